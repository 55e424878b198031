/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The interface mcmgpu.ko gives its auxiliary drivers: barre_iommu.ko on
 * "mcmgpu.iommu" and gpu_rc.ko on "mcmgpu.cxl_rc". Each gets the device
 * geometry, its own BAR0 register window (already mapped) and a way to
 * submit a device command and wait. The window's MSI-X vector and the
 * device's "ping" attribute are mcmgpu.ko's (mcmgpu_aux.c). Besides this,
 * they include only mcmgpu_ioctl_desc.h (ioctl tables, errnos) and
 * mcmgpu_aux_debugfs.h.
 */
#ifndef MCMGPU_AUX_H
#define MCMGPU_AUX_H

#include <linux/auxiliary_bus.h>

#include "mcmgpu_hw.h"

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

struct mcmgpu_pec_entry;
struct mcmgpu_barre_stats;

/*
 * The IOMMU barre_iommu.ko gives mcmgpu.ko (ops->set_iommu): the ATS queues
 * it owns (mcmgpu_hw.h) and one walker model per address space (PASID =
 * device context id), all in virtual cycles. mcmgpu.ko calls these for
 * one file at a time per PASID, under that file's lock.
 */
struct mcmgpu_iommu {
	dma_addr_t req_dma;	/* MCMGPU_ATS_QUEUE_ENTRIES requests */
	dma_addr_t resp_dma;	/* as many responses */
	/*
	 * Walkers (0: the module's default), shadow walk, F-Barre's
	 * scheduling bound (0: FIFO); empties the model's walkers, queues
	 * and counters, and keeps its PEC entries (the objects are live).
	 */
	int (*reset)(struct mcmgpu_iommu *iommu, u32 pasid, u32 walkers,
		     bool shadow, u32 sched_moves);
	void (*pec_add)(struct mcmgpu_iommu *iommu,
			const struct mcmgpu_pec_entry *e);
	void (*pec_drop)(struct mcmgpu_iommu *iommu, u32 pasid, u64 start,
			 u64 end);
	/*
	 * At binding: pasid's PEC buffer becomes n entries (slot by slot, so
	 * later replacements choose as they would have).
	 */
	void (*pec_restore)(struct mcmgpu_iommu *iommu, u32 pasid,
			    const struct mcmgpu_pec_entry *buf, u32 n);
	/*
	 * Take nreq requests from the request queue, walk with the page
	 * tables at root (a physical address) and answer, in the response
	 * queue, every request done before cycle horizon: their number, or
	 * -EPROTO for a request the walker cannot take.
	 */
	int (*serve)(struct mcmgpu_iommu *iommu, u32 pasid, u64 root, u32 nreq,
		     u64 horizon);
	/*
	 * The phase failed: its requests in flight are dropped, and those
	 * not walked yet leave the counts (walks + coalesced = requests).
	 */
	void (*abandon)(struct mcmgpu_iommu *iommu, u32 pasid);
	void (*stats)(struct mcmgpu_iommu *iommu, u32 pasid,
		      struct mcmgpu_barre_stats *st);
	/* The address space is gone. */
	void (*release)(struct mcmgpu_iommu *iommu, u32 pasid);
};

struct mcmgpu_aux_ops {
	/*
	 * Submit one command through the device's ring and wait for it
	 * (once submitted, only a fatal signal ends the wait): 0 when the
	 * device completed it (see cmd->status), -ERESTARTSYS (a signal
	 * before it was submitted), -EINTR, -ETIMEDOUT, -EIO or -ENODEV.
	 */
	int (*submit)(struct mcmgpu_aux_dev *aux, struct mcmgpu_aux_cmd *cmd);
	/* Offer (or, with NULL, withdraw and wait out) the IOMMU. */
	void (*set_iommu)(struct mcmgpu_aux_dev *aux,
			  struct mcmgpu_iommu *iommu);
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
