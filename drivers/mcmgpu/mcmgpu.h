/* SPDX-License-Identifier: GPL-2.0 */
/* mcmgpu driver internals shared by the PCI, ring, aux and ioctl code. */
#ifndef MCMGPU_DRV_H
#define MCMGPU_DRV_H

#include <linux/dma-direction.h>
#include <linux/kref.h>
#include <linux/miscdevice.h>
#include <linux/mutex.h>
#include <linux/pci.h>
#include <linux/rwsem.h>
#include <linux/sizes.h>
#include <linux/wait.h>
#include <linux/xarray.h>

#include "mcmgpu_hw.h"
#include "mcmgpu_aux.h"
#include "mcmgpu_ioctl_desc.h"
#include "gpu_alloc.h"

#define MCMGPU_RING_ENTRIES	256
#define MCMGPU_BOUNCE_SIZE	SZ_1M

struct mcmgpu_engine;

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
	/* What the device is made of, in order (mcmgpu_main.c). */
	const struct mcmgpu_engine *const *engines;
	unsigned int nr_engines;

	u32 hw_version;
	u32 features;
	u32 chiplets;
	u64 vram_per_chiplet;

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

	/* Contexts whose destroy did not complete; the next open retries. */
	struct mutex orphan_lock;
	unsigned long *orphans;	/* bit per context id, 1..contexts */
	u32 contexts;

	/* Held for read by every file operation; removal takes it for write. */
	struct rw_semaphore remove_lock;
	bool removed;

	struct mcmgpu_aux_dev *aux[MCMGPU_AUX_COUNT];

	/* GPU memory frames of every chiplet (mcmgpu_mem.c). */
	struct gpu_alloc_pools pools;
	u64 *pool_bits;
	struct mutex mem_lock;	/* pools */

	/* Open files: the IOMMU's PASID table (their pasid entries). */
	struct mutex files_lock;
	struct list_head files;
	u64 pasid_gen;		/* the last config_gen or pec_gen given */

	/* ADSM's modeled copy engine (BAR0). */
	u32 adsm_dma_setup;
	u32 adsm_dma_bw;
};

struct mcmgpu_adsm;
struct mcmgpu_shared;
struct mcmgpu_launch;

/* One open file: its device context and what it keeps there. */
struct mcmgpu_file {
	struct mcmgpu_device *mdev;
	u32 ctx;		/* device context id */
	/* One multi-command operation (a trace upload and run) at a time. */
	struct mutex lock;
	/* GPU address space (PASID = ctx) and its objects, by handle; lock. */
	struct gpu_alloc_space *as;
	struct xarray objects;
	/* No Barre reset since open, or a phase failed: the next run resets. */
	bool barre_need_reset;
	/*
	 * The PASID's entry the IOMMU reads (mcmgpu_aux.h): its PEC buffer
	 * as ALLOC and FREE leave it (the same replacement,
	 * mcmgpu_pec_insert), so an IOMMU loaded at any time gets the live
	 * objects exactly; and the IOMMU's counters of the last run's end.
	 * mdev->files_lock.
	 */
	struct list_head node;
	struct mcmgpu_pasid_entry pasid;
	u64 pec_evictions_at_reset;
	struct mcmgpu_barre_stats iommu_stats;
	/* ADSM (mcmgpu_adsm.c): the file's protocol state, its mappings. */
	struct mcmgpu_adsm *adsm;
	struct address_space *mapping;
};

/* One GPU memory object of a file (mcmgpu_mem.c). */
struct mcmgpu_obj {
	struct gpu_alloc_object obj;
	u64 *pfn;
	struct mcmgpu_shared *shared;	/* ADSM: its CPU side, or NULL */
};

static inline u64 mcmgpu_vram_total(const struct mcmgpu_device *mdev)
{
	return (u64)mdev->chiplets * mdev->vram_per_chiplet;
}

/* How a command waits once submitted (see mcmgpu_ring.c). */
enum mcmgpu_wait {
	MCMGPU_WAIT_KILLABLE,		/* ioctls: only a fatal signal ends it */
	MCMGPU_WAIT_UNINTERRUPTIBLE,	/* release and removal */
};

/* One device command; status and result are filled on completion. */
struct mcmgpu_cmd {
	u16 opcode;
	u16 flags;
	u32 ctx;
	u64 args[6];
	enum mcmgpu_wait wait;
	u32 status;		/* out: MCMGPU_CMPL_* */
	u64 result;		/* out */
};

/*
 * The bounce-buffer round trip of one command: in_len bytes from user
 * space go to the start of the buffer, args[in_arg] gets their bus
 * address; args[out_arg] gets the bus address of out_len bytes after them,
 * which go back to user space when the device completes the command with
 * MCMGPU_CMPL_OK or report_status (a refusal that names its reason).
 */
struct mcmgpu_xfer {
	const void __user *in;
	u32 in_len;
	int in_arg;		/* -1: none */
	void __user *out;
	u32 out_len;
	int out_arg;		/* -1: none */
	u32 report_status;
	bool progress;		/* the call already had an effect */
};

/*
 * A mechanism of the driver, mirroring the device's MCMGPUEngine
 * (qemu-device/mcmgpu_engine.h): its ioctls and its hooks into the
 * device's, the files' and the GPU memory objects' lifetimes. Every hook
 * is optional; they run in the order of mdev->engines.
 */
struct mcmgpu_alloc;
struct vm_area_struct;

struct mcmgpu_engine {
	const char *name;
	const struct mcmgpu_ioctl_desc *ioctls;
	unsigned int nr_ioctls;
	/*
	 * The device: at probe once its identity is read; at its last
	 * reference, even when its dev_init did not run or failed.
	 */
	int (*dev_init)(struct mcmgpu_device *mdev);
	void (*dev_fini)(struct mcmgpu_device *mdev);
	/* A file: opened; before its context is destroyed; after. */
	void (*file_open)(struct mcmgpu_file *mf);
	void (*file_quiesce)(struct mcmgpu_file *mf);
	void (*file_release)(struct mcmgpu_file *mf);
	/* mmap() of the file: the first engine that has the hook maps. */
	int (*mmap)(struct mcmgpu_file *mf, struct vm_area_struct *vma);
	/*
	 * A GPU memory object (mcmgpu_mem.c), mf->lock held: made by ALLOC
	 * (the engine's part of the request; it may set outputs in a);
	 * obj_busy refuses a FREE with EBUSY; freed, before its frames go.
	 */
	int (*obj_alloc)(struct mcmgpu_file *mf, struct mcmgpu_obj *o,
			 struct mcmgpu_alloc *a);
	bool (*obj_busy)(struct mcmgpu_file *mf, struct mcmgpu_obj *o);
	void (*obj_free)(struct mcmgpu_file *mf, struct mcmgpu_obj *o);
};

extern const struct mcmgpu_engine mcmgpu_dma_engine;
extern const struct mcmgpu_engine mcmgpu_finepack_engine;
extern const struct mcmgpu_engine mcmgpu_cpelide_engine;
extern const struct mcmgpu_engine mcmgpu_mem_engine;
extern const struct mcmgpu_engine mcmgpu_barre_engine;
extern const struct mcmgpu_engine mcmgpu_adsm_engine;
extern const struct mcmgpu_engine mcmgpu_gpu_engine;

/* The device and its engines (mcmgpu_engine.c). */
struct mcmgpu_device *mcmgpu_device_create(struct pci_dev *pdev,
					   const struct mcmgpu_engine *const *engines,
					   unsigned int nr_engines);
void mcmgpu_device_put(struct mcmgpu_device *mdev);
int mcmgpu_engines_dev_init(struct mcmgpu_device *mdev);
const struct mcmgpu_ioctl_desc *
mcmgpu_engines_ioctl(struct mcmgpu_device *mdev, unsigned int cmd);
void mcmgpu_engines_file_open(struct mcmgpu_file *mf);
void mcmgpu_engines_file_quiesce(struct mcmgpu_file *mf);
void mcmgpu_engines_file_release(struct mcmgpu_file *mf);
int mcmgpu_engines_mmap(struct mcmgpu_file *mf, struct vm_area_struct *vma);
int mcmgpu_engines_obj_alloc(struct mcmgpu_file *mf, struct mcmgpu_obj *o,
			     struct mcmgpu_alloc *a);
bool mcmgpu_engines_obj_busy(struct mcmgpu_file *mf, struct mcmgpu_obj *o);
void mcmgpu_engines_obj_free(struct mcmgpu_file *mf, struct mcmgpu_obj *o);

/* The command ring (mcmgpu_ring.c). */
int mcmgpu_ring_init(struct mcmgpu_device *mdev);
void mcmgpu_ring_stop(struct mcmgpu_device *mdev, u32 how);
int mcmgpu_cmd_begin(struct mcmgpu_device *mdev, enum mcmgpu_wait wait,
		     bool progress);
void mcmgpu_cmd_end(struct mcmgpu_device *mdev);
int mcmgpu_submit_locked(struct mcmgpu_device *mdev, struct mcmgpu_cmd *c);
int mcmgpu_submit(struct mcmgpu_device *mdev, struct mcmgpu_cmd *c);
int mcmgpu_submit_xfer(struct mcmgpu_device *mdev, struct mcmgpu_cmd *c,
		       const struct mcmgpu_xfer *x);
irqreturn_t mcmgpu_irq(int irq, void *data);

/* The auxiliary devices (mcmgpu_aux.c). */
int mcmgpu_aux_create(struct mcmgpu_device *mdev);
void mcmgpu_aux_destroy(struct mcmgpu_device *mdev);

/* /dev/mcmgpuN (mcmgpu_chardev.c). */
int mcmgpu_chardev_register(struct mcmgpu_device *mdev);
void mcmgpu_chardev_unregister(struct mcmgpu_device *mdev);

/*
 * A user buffer's pages, pinned and DMA-mapped, with the little-endian
 * list of their bus addresses the device reads (mcmgpu_dma.c).
 */
struct mcmgpu_user_pages {
	struct device *dev;
	struct page **pages;
	__le64 *list;
	dma_addr_t list_dma;
	unsigned long npages, mapped;
	int pinned;
	enum dma_data_direction dir;
};

/* 0, or -errno with nothing held; device_writes pins for writing. */
int mcmgpu_user_pages_get(struct mcmgpu_user_pages *up, struct device *dev,
			  unsigned long uaddr, u64 len, bool device_writes);
/* Unmaps, unpins (marking the pages dirty if asked) and frees. */
void mcmgpu_user_pages_put(struct mcmgpu_user_pages *up, bool dirty);

/* The file's GPU address space, made with its first object (mcmgpu_mem.c). */
int mcmgpu_mem_space(struct mcmgpu_file *mf);

/*
 * The IOMMU's PASID table (mcmgpu_mem.c; mcmgpu_aux.h): pasid's entry, and
 * the IOMMU's counters at a run's end.
 */
int mcmgpu_mem_pasid_entry(struct mcmgpu_aux_dev *aux, u32 pasid,
			   struct mcmgpu_pasid_entry *e);
void mcmgpu_mem_pasid_stats(struct mcmgpu_aux_dev *aux, u32 pasid,
			    u64 config_gen,
			    const struct mcmgpu_barre_stats *st);
/*
 * A new walker model for the file's PASID (a Barre reset, a translated
 * GPU run): its settings, a new config_gen, the IOMMU's counters zero.
 */
void mcmgpu_mem_pasid_reset(struct mcmgpu_file *mf, u32 walkers, bool shadow,
			    u32 sched_moves);
/* The IOMMU's counters of the file's PASID into st's IOMMU fields. */
void mcmgpu_mem_pasid_read_stats(struct mcmgpu_file *mf,
				 struct mcmgpu_barre_stats *st);

/* MCMGPU_IOCTL_LAUNCH with MCMGPU_LAUNCH_F_ADSM (mcmgpu_adsm.c). */
int mcmgpu_adsm_launch(struct mcmgpu_file *mf, struct mcmgpu_launch *ln);

#endif /* MCMGPU_DRV_H */
