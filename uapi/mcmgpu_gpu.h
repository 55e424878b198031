/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * The GPU timing core on the device (qemu-device/engine_gpu.c, the core
 * qemu-device/model/gpu_core.h): what the device reads and writes by DMA
 * for the GPU_LOAD, GPU_START, GPU_RUN, GPU_STATS and GPU_OBJECTS commands
 * (mcmgpu_hw.h) and the ioctls' records (mcmgpu_ioctl.h). The program is
 * the binary form of qemu-device/model/program.h; the statistics are the
 * core's struct gpu_core_stats and struct gpu_kernel_stats, which the
 * device, the tool and the driver share as opaque bytes of the size the
 * device checks (the tool and the device are built from one tree).
 */
#ifndef _UAPI_MCMGPU_GPU_H
#define _UAPI_MCMGPU_GPU_H

#include <linux/types.h>

#include "mcmgpu_hw.h"

/* The device property gpu-program-max-mib's default: a program's bytes. */
#define MCMGPU_GPU_PROGRAM_MAX_MIB	256
/* The configuration's u32 fields (gpu_config_fields order) at most. */
#define MCMGPU_GPU_CONFIG_MAX_FIELDS	128
/* Objects (OBJECT records) a translated run maps at most. */
#define MCMGPU_GPU_MAX_OBJECTS		65536
/* The core's error message, NUL-terminated. */
#define MCMGPU_GPU_MSG_MAX		256
/* The statistics' sizes at most (the device wants its exact ones). */
#define MCMGPU_GPU_STATS_MAX		4096
#define MCMGPU_GPU_KERNEL_REC_MAX	1024

/*
 * GPU_START's block: the configuration as nfields u32 values in the order
 * of gpu_config_fields (qemu-device/model/gpu_config.c; nfields must be
 * the device's count), then flags (zero), then the chiplet groups the
 * program's streams run on concurrently (gpu_core_streams(); 0 off).
 */
struct mcmgpu_gpu_start {
	__u32 nfields;
	__u32 flags;		/* zero */
	__u32 fields[MCMGPU_GPU_CONFIG_MAX_FIELDS];
	__u32 streams;		/* 0: one kernel after another */
	__u32 reserved;		/* zero */
};

/*
 * What GPU_START, GPU_RUN and GPU_STATS write back. For the driver's
 * epoch loop: requests in the request queue, the horizon the IOMMU runs
 * to, done once the program finished. On a refusal or the core's error,
 * msg says why (the core's message names the kernel, block, warp and
 * instruction).
 */
struct mcmgpu_gpu_result {
	__u64 cycle;		/* the core's current cycle */
	__u64 next_event;	/* ~0: none without an ATS answer, or done */
	__u64 horizon;		/* translate on: the IOMMU runs to it */
	__u64 kernels;		/* kernel records kept so far */
	__u32 requests;		/* ATS requests in the queue */
	__u32 done;		/* the program ran to its end */
	__u32 translate;	/* the configuration's (GPU_START) */
	__u32 walkers;		/* the configuration's IOMMU walkers */
	__s32 error;		/* the core's negative errno, 0 none */
	__u32 sched_moves;	/* the walkers' (F-Barre's), 0 none */
	char msg[MCMGPU_GPU_MSG_MAX];
};

/*
 * What GPU_OBJECTS writes for each OBJECT record of the loaded program,
 * in program order (little-endian): its GPU virtual range.
 */
struct mcmgpu_gpu_object {
	__u64 base;
	__u64 size;
};

#endif /* _UAPI_MCMGPU_GPU_H */
