/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gpu_rc.ko: the host side of the GPU's CXL root complex (CXL-GPU paper,
 * in the role of the GPU's firmware core). gpu_rc_hdm.c finds the
 * component blocks with the kernel's CXL parsers, reads what sits behind
 * each root port and commits HDM decoder layouts; gpu_rc_main.c binds the
 * auxiliary device and offers /dev/mcmgpu_cxlN and debugfs.
 */
#ifndef GPU_RC_H
#define GPU_RC_H

#include <linux/kref.h>
#include <linux/miscdevice.h>
#include <linux/mutex.h>
#include <linux/pci.h>
#include <linux/rwsem.h>

#include "mcmgpu_aux.h"
#include "mcmgpu_cxl.h"

/* One component register block, mapped, with its HDM capability. */
struct gpu_rc_block {
	void __iomem *regs;
	void __iomem *hdm;
	unsigned int decoders;
	unsigned int targets;
};

struct gpu_rc_port {
	u8 id;
	u8 media;
	u64 capacity;
	struct gpu_rc_block blk;
	unsigned int committed;	/* endpoint decoders in use, from 0 */
};

struct gpu_rc {
	struct kref ref;	/* the binding and each open file */
	struct rw_semaphore remove_lock;	/* 'removed' against ioctls */
	bool removed;		/* unbound: no register, no aux call */
	struct mcmgpu_aux_dev *aux;
	struct pci_dev *pdev;
	struct mutex lock;	/* the decoders and the layout below */
	struct mutex replay_lock;	/* the device holds one trace */
	struct gpu_rc_block hb;
	struct gpu_rc_port port[MCMGPU_CXL_MAX_PORTS];
	unsigned int ports;
	u64 window_base;
	u64 window_size;
	u64 aperture_size;
	struct mcmgpu_cxl_region layout[MCMGPU_CXL_MAX_REGIONS];
	unsigned int regions;	/* host bridge decoders committed */
	bool locked;
	struct miscdevice misc;
	char name[24];
	struct dentry *debugfs;
};

int gpu_rc_discover(struct gpu_rc *rc);
void gpu_rc_unmap(struct gpu_rc *rc);
/* With rc->lock held. */
int gpu_rc_setup(struct gpu_rc *rc, const struct mcmgpu_cxl_setup *req,
		 char *error, size_t len);
int gpu_rc_teardown(struct gpu_rc *rc);

#endif /* GPU_RC_H */
