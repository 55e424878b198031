/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The interface mcmgpu.ko gives its auxiliary drivers: barre_iommu.ko on
 * "mcmgpu.iommu" and gpu_rc.ko on "mcmgpu.cxl_rc". Each gets the device
 * geometry, its own BAR0 register window (already mapped) and a way to
 * submit a device command and wait, and the IOMMU its PASID table. The
 * window's MSI-X vector is shared (IRQF_SHARED): mcmgpu.ko takes the PING
 * event of the device's "ping" attribute (mcmgpu_aux.c), the aux driver
 * its own events. The aux driver calls mcmgpu.ko, never the reverse.
 * Besides this, they include only mcmgpu_ioctl_desc.h (ioctl tables,
 * errnos) and mcmgpu_aux_debugfs.h.
 */
#ifndef MCMGPU_AUX_H
#define MCMGPU_AUX_H

#include <linux/auxiliary_bus.h>

#include "mcmgpu_hw.h"
#include "mcmgpu_barre.h"

#define MCMGPU_AUX_IOMMU_NAME	"iommu"
#define MCMGPU_AUX_CXL_RC_NAME	"cxl_rc"

struct mcmgpu_aux_dev;

/* One device command; status and result are filled when it completes. */
struct mcmgpu_aux_cmd {
	u16 opcode;		/* MCMGPU_OP_* */
	u16 flags;
	u64 args[6];
	u32 status;		/* out: MCMGPU_CMPL_* */
	u64 result;		/* out */
};

/*
 * A PASID's entry (ops->pasid_entry), which the IOMMU reads as a real one
 * reads its PASID table: the page tables' root, the walker model's
 * settings (a new config_gen restarts the model: a reset), and the PEC
 * buffer as ALLOC and FREE left it (pec_gen counts their changes,
 * pec_evictions the entries replaced since the last reset).
 */
struct mcmgpu_pasid_entry {
	u64 root;		/* physical; 0: no address space yet */
	u64 config_gen;
	u32 walkers;		/* 0: the IOMMU's default */
	u32 sched_moves;	/* F-Barre's scheduling bound, 0: FIFO */
	bool shadow;		/* walk every coalesced answer too */
	u64 pec_gen;
	u64 pec_evictions;
	struct mcmgpu_pec_entry pec[MCMGPU_BARRE_PEC_ENTRIES];
};

struct mcmgpu_aux_ops {
	/*
	 * Submit one command through the device's ring and wait for it
	 * (once submitted, only a fatal signal ends the wait): 0 when the
	 * device completed it (see cmd->status), -ERESTARTSYS (a signal
	 * before it was submitted), -EINTR, -ETIMEDOUT, -EIO or -ENODEV.
	 */
	int (*submit)(struct mcmgpu_aux_dev *aux, struct mcmgpu_aux_cmd *cmd);
	/* pasid's entry: 0, or -ENOENT when no open file has the PASID. */
	int (*pasid_entry)(struct mcmgpu_aux_dev *aux, u32 pasid,
			   struct mcmgpu_pasid_entry *e);
	/*
	 * The IOMMU's counters of pasid at a run's end (its END batch), kept
	 * for the file's stats while config_gen is still the entry's.
	 */
	void (*pasid_stats)(struct mcmgpu_aux_dev *aux, u32 pasid,
			    u64 config_gen,
			    const struct mcmgpu_barre_stats *st);
};

struct mcmgpu_aux_dev {
	struct auxiliary_device adev;
	const struct mcmgpu_aux_ops *ops;
	void __iomem *window;	/* MCMGPU_WINDOW(window_index) of BAR0 */
	unsigned int window_index;	/* MCMGPU_WINDOW_* */
	unsigned int vector;	/* its MSI-X vector */
	int irq;		/* the Linux IRQ of that vector */
	u32 chiplets;
	u64 vram_per_chiplet;
	void *parent;		/* mcmgpu.ko's own, opaque */
};

static inline struct mcmgpu_aux_dev *
to_mcmgpu_aux_dev(struct auxiliary_device *adev)
{
	return container_of(adev, struct mcmgpu_aux_dev, adev);
}

#endif /* MCMGPU_AUX_H */
