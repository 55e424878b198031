/* SPDX-License-Identifier: GPL-2.0 */
/* mcmgpu driver internals shared by the PCI, ring and char-device code. */
#ifndef MCMGPU_DRV_H
#define MCMGPU_DRV_H

#include <linux/kref.h>
#include <linux/miscdevice.h>
#include <linux/mutex.h>
#include <linux/pci.h>
#include <linux/rwsem.h>
#include <linux/sizes.h>
#include <linux/wait.h>

#include "mcmgpu_hw.h"
#include "mcmgpu_aux.h"

#define MCMGPU_RING_ENTRIES	256
#define MCMGPU_BOUNCE_SIZE	SZ_1M

enum mcmgpu_aux_kind {
	MCMGPU_AUX_IOMMU,
	MCMGPU_AUX_CXL_RC,
	MCMGPU_AUX_COUNT,
};

struct mcmgpu_device {
	struct kref ref;
	struct pci_dev *pdev;
	void __iomem *regs;
	int id;
	char name[16];
	struct miscdevice misc;

	u32 hw_version;
	u32 features;
	u32 chiplets;
	u64 vram_per_chiplet;

	/* Held across a whole FinePack upload and run: one device trace buffer. */
	struct mutex trace_lock;

	/* Serialises command submission and owns the bounce buffer. */
	struct mutex cmd_lock;
	struct mcmgpu_hw_cmd *ring;
	dma_addr_t ring_dma;
	struct mcmgpu_hw_cmpl *cmpl;
	dma_addr_t cmpl_dma;
	void *bounce;
	dma_addr_t bounce_dma;
	u32 tail;
	u64 next_seq;
	/* A command left running by a killed waiter: slot and seq. */
	bool inflight;
	u32 inflight_slot;
	u64 inflight_seq;
	wait_queue_head_t cmpl_wait;
	bool ring_error;
	u64 commands_done;
	u64 commands_failed;

	/* Held for read by every file operation; removal takes it for write. */
	struct rw_semaphore remove_lock;
	bool removed;

	struct mcmgpu_aux_dev *aux[MCMGPU_AUX_COUNT];
};

static inline u64 mcmgpu_vram_total(const struct mcmgpu_device *mdev)
{
	return (u64)mdev->chiplets * mdev->vram_per_chiplet;
}

void mcmgpu_device_put(struct mcmgpu_device *mdev);
int mcmgpu_ring_init(struct mcmgpu_device *mdev);
void mcmgpu_ring_stop(struct mcmgpu_device *mdev);
int mcmgpu_cmd_begin(struct mcmgpu_device *mdev, bool progress);
void mcmgpu_cmd_end(struct mcmgpu_device *mdev);
int mcmgpu_submit(struct mcmgpu_device *mdev, u16 opcode, u16 flags,
		  const u64 *args, unsigned int nargs, u64 *result);
irqreturn_t mcmgpu_irq(int irq, void *data);

int mcmgpu_chardev_register(struct mcmgpu_device *mdev);
void mcmgpu_chardev_unregister(struct mcmgpu_device *mdev);

#endif /* MCMGPU_DRV_H */
