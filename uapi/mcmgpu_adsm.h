/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * ADSM/GMAC (Gelado et al., ASPLOS'10): objects the CPU maps at the
 * address the GPU uses, kept coherent by the driver with the batch, lazy
 * and rolling update protocols, and the device's built-in compute kernels
 * that work on them. Shared by the driver (drivers/mcmgpu/mcmgpu_adsm.c,
 * protocol core drivers/mcmgpu/adsm_protocol.c), the device
 * (qemu-device/engine_adsm.c, kernel core qemu-device/model/adsm_kernels.c) and
 * the tool (tools/mcmgpu/adsm/).
 *
 * An object allocated with MCMGPU_ALLOC_F_SHARED gets host shadow pages
 * and an mmap offset (struct mcmgpu_alloc.mmap_offset); mmap() of the
 * whole object at that offset, MAP_SHARED, at the object's GPU virtual
 * address (MAP_FIXED_NOREPLACE) gives one pointer for CPU and GPU.
 * mremap() that would move the mapping fails with EINVAL (it would leave
 * the GPU VA); a child of fork() has no mapping unless MADV_DOFORK was
 * given (then it shares the same object). ptrace and /proc/pid/mem reach
 * the mapping; get_user_pages users (O_DIRECT, futexes, process_vm_readv)
 * get EFAULT. MCMGPU_IOCTL_FREE of any of the file's objects while its
 * ADSM kernel runs fails with EBUSY.
 */
#ifndef _UAPI_MCMGPU_ADSM_H
#define _UAPI_MCMGPU_ADSM_H

#include <linux/types.h>

#include "mcmgpu_hw.h"

enum mcmgpu_adsm_protocol {
	MCMGPU_ADSM_BATCH = 0,	/* all objects to the GPU at launch, back at sync */
	MCMGPU_ADSM_LAZY = 1,	/* per object: fetch on touch, send if dirty */
	MCMGPU_ADSM_ROLLING = 2,	/* per block, at most R dirty, oldest sent early */
	MCMGPU_ADSM_PROTOCOLS,
};

/* Block states (GMAC Fig. 6); the query reports these values. */
#define MCMGPU_ADSM_INVALID	0	/* only the GPU copy is current */
#define MCMGPU_ADSM_READONLY	1	/* CPU and GPU copies equal */
#define MCMGPU_ADSM_DIRTY	2	/* the CPU copy is newer */
#define MCMGPU_ADSM_EVICTING	4	/* flag: its eager H2D is in flight */

#define MCMGPU_ADSM_BLOCK_MIN_SHIFT	12	/* 4 KiB */
#define MCMGPU_ADSM_BLOCK_MAX_SHIFT	25	/* 32 MiB, Fig. 11's largest */
#define MCMGPU_ADSM_ROLLING_STEP	2	/* blocks added per allocation (§4.3) */
#define MCMGPU_ADSM_ROLLING_MAX		65536
#define MCMGPU_ADSM_MAX_OBJECT		(256ULL << 20)

/*
 * Modeled costs, in device cycles (1 GHz): a transfer costs a fixed setup
 * plus its bytes over the link's bandwidth, PCIe 2.0 x16 by default (8 GB/s,
 * the paper's testbed); a kernel costs its per-chiplet element work. The
 * paper gives no per-transfer latency: the setup is the device's DMA
 * engine's (MCMGPU_DMA_SETUP_CYCLES). Device properties adsm-dma-setup and
 * adsm-dma-bw override the defaults; MCMGPU_IOCTL_ADSM_STATS reports the
 * values in use.
 */
#define MCMGPU_ADSM_DMA_SETUP_CYCLES	MCMGPU_DMA_SETUP_CYCLES
#define MCMGPU_ADSM_DMA_BYTES_PER_CYCLE	8
#define MCMGPU_ADSM_DMA_SETUP_MAX	1000000

static inline __u64 mcmgpu_adsm_xfer_cycles(__u64 bytes, __u32 setup,
					    __u32 bytes_per_cycle)
{
	return setup + (bytes + bytes_per_cycle - 1) / bytes_per_cycle;
}

/* Built-in kernels; elements are little-endian __u32, arithmetic mod 2^32. */
enum mcmgpu_adsm_kernel_id {
	MCMGPU_ADSM_K_FILL = 0,		/* va[0][i] = s[0] */
	MCMGPU_ADSM_K_COPY = 1,		/* va[0][i] = va[1][i] */
	MCMGPU_ADSM_K_VADD = 2,		/* va[0][i] = va[1][i] + va[2][i] */
	MCMGPU_ADSM_K_SAXPY = 3,	/* va[0][i] = s[0] * va[1][i] + va[0][i] */
	/*
	 * One Jacobi step on a width x height grid (n = width * height):
	 * interior va[0][y][x] = (sum of va[1] at (x, y) and its 4
	 * neighbours) / 5, the border copied.
	 */
	MCMGPU_ADSM_K_STENCIL2D = 4,
	/* va[0][i] += va[1][s[0]]: one element read per iteration. */
	MCMGPU_ADSM_K_ADD_ELEMENT = 5,
	/* va[0][i] = va[0][i] * s[0] + s[1] (an iteration of an update). */
	MCMGPU_ADSM_K_SCALE_ADD = 6,
	MCMGPU_ADSM_KERNELS,
};

/* Element accesses a chiplet makes per element of its share. */
#define MCMGPU_ADSM_CYCLES_PER_ACCESS	1

/*
 * A launch (MCMGPU_IOCTL_LAUNCH with MCMGPU_LAUNCH_F_ADSM): the kernel runs
 * over n elements split in equal contiguous shares over the chiplets of
 * chiplet_mask (0: all); addresses are GPU virtual addresses of the file's
 * objects, translated through its page table by the device.
 */
struct mcmgpu_adsm_kernel {
	__u32 kernel;		/* enum mcmgpu_adsm_kernel_id */
	__u32 chiplet_mask;
	__u64 n;		/* elements, >= 1 */
	__u64 va[3];		/* 4-byte aligned; unused ones 0 */
	__u64 s[2];		/* scalars */
	__u32 width;		/* STENCIL2D */
	__u32 height;
	__u64 reserved;		/* 0 */
};

/* What the device reports about one kernel. */
struct mcmgpu_adsm_kernel_result {
	__u64 cycles;		/* modeled */
	__u64 elements;
	__u64 bytes_read;
	__u64 bytes_written;
	struct mcmgpu_record_error error;	/* index: 1-based va, 0 = the kernel */
};

/*
 * Per-file configuration (MCMGPU_IOCTL_ADSM_CONFIG): before the file's
 * first shared allocation. protocol MCMGPU_ADSM_PROTOCOLS keeps the module
 * parameter's; block_bytes 0 keeps the parameter's; rolling 0 = adaptive
 * (rolling_step more blocks per allocation, from 0), else fixed.
 * Errors: EINVAL a bad field (flags, reserved, protocol, rolling,
 * rolling_step, block_bytes); EBUSY the file has shared objects already;
 * EOPNOTSUPP no ADSM engine; ENOMEM.
 */
struct mcmgpu_adsm_config {
	__u32 size;		/* sizeof(struct mcmgpu_adsm_config) */
	__u32 flags;		/* 0 */
	__u32 protocol;
	__u32 rolling;		/* R, dirty blocks; 0 adaptive */
	__u64 block_bytes;	/* rolling block: a power of two, 4 KiB..32 MiB */
	__u32 rolling_step;	/* adaptive: 0 keeps MCMGPU_ADSM_ROLLING_STEP */
	__u32 reserved;		/* 0 */
};

#define MCMGPU_ADSM_CONFIG_SIZE_VER0	32

/*
 * Counters of a file (MCMGPU_IOCTL_ADSM_STATS); all since its open.
 * Errors: ENOENT the file has no GPU object yet (no counters exist);
 * EOPNOTSUPP the device has no ADSM engine.
 */
struct mcmgpu_adsm_stats {
	__u32 size;		/* sizeof(struct mcmgpu_adsm_stats) */
	__u32 protocol;		/* out: in use */
	__u64 block_bytes;	/* out */
	__u32 rolling;		/* out: R now */
	__u32 dma_setup;	/* out: the device's modeled transfer cost */
	__u32 dma_bytes_per_cycle;
	__u32 objects;		/* out: shared objects live */
	__u64 h2d_bytes;	/* host to GPU, all causes */
	__u64 d2h_bytes;
	__u64 h2d_call;		/* flushed at a launch */
	__u64 h2d_evict;	/* rolling's eager evictions */
	__u64 d2h_call;		/* batch: fetched at a sync */
	__u64 d2h_fault;	/* fetched by a CPU fault */
	__u64 transfers;	/* DMA operations */
	__u64 faults;		/* protocol faults: the three below */
	__u64 faults_read_invalid;
	__u64 faults_write_invalid;
	__u64 faults_write_readonly;
	__u64 refaults;		/* PTE re-installed, no state change */
	__u64 hw_faults;	/* fault and mkwrite calls */
	__u64 evictions;
	__u64 dirty_peak;	/* most dirty blocks at once */
	__u64 launches;
	__u64 syncs;
	__u64 kernel_cycles;	/* modeled, device kernels */
	__u64 xfer_cycles;	/* modeled, all transfers */
	__u64 modeled_cycles;	/* kernels + transfers on the CPU's path */
	__u64 fault_ns;		/* guest time in the fault handler, transfers apart */
	__u64 dma_wait_ns;	/* guest time waiting for transfers */
};

#define MCMGPU_ADSM_STATS_SIZE_VER0	208

/*
 * MCMGPU_IOCTL_ADSM_SYNC: wait for the file's launched kernel (adsmSync,
 * the acquire); result_ptr (optional) gets its struct
 * mcmgpu_adsm_kernel_result.
 * Errors: EINVAL flags or reserved not 0, or result_size too small;
 * ENOENT the file has no GPU object yet (nothing can have run);
 * EOPNOTSUPP the device has no ADSM engine; EFAULT result_ptr; EINTR a
 * signal while waiting; EIO the kernel failed, and the result says why:
 * among others a va that is no object of the file, an output that
 * overlaps an input ("the output overlaps this input"; only an
 * element-wise update may work in place), a range past its object.
 */
struct mcmgpu_adsm_sync {
	__u32 size;		/* sizeof(struct mcmgpu_adsm_sync) */
	__u32 flags;		/* 0 */
	__u64 result_ptr;
	__u32 result_size;
	__u32 reserved;
};

#define MCMGPU_ADSM_SYNC_SIZE_VER0	24

/*
 * States of blocks first .. first + count - 1 of an object, a byte each.
 * Errors: ENOENT handle names no shared object of the file; ERANGE blocks
 * past the object's (blocks says how many) or count above 2^20; EFAULT
 * states_ptr; ENOMEM.
 */
struct mcmgpu_adsm_query {
	__u32 size;		/* sizeof(struct mcmgpu_adsm_query) */
	__u32 handle;
	__u64 first;
	__u64 count;
	__u64 states_ptr;	/* count bytes: MCMGPU_ADSM_* */
	__u64 blocks;		/* out: the object's blocks */
};

#define MCMGPU_ADSM_QUERY_SIZE_VER0	40

/*
 * MCMGPU_IOCTL_ADSM_COPY, the hand-written baseline (the paper's "CUDA"
 * bar): length bytes between the user buffer and the GPU copy of object
 * handle at offset (any object of the file). A shared object keeps its
 * protocol's states: the copy waits for the file's kernel and evictions,
 * the CPU's Dirty blocks it touches go to the GPU first, and a copy to the
 * GPU invalidates the CPU's copy of them (the CPU's next touch fetches).
 * Errors: EINVAL bad flags, length or reserved; EOVERFLOW a range that
 * wraps; ENOENT no such object (or freed during the call); ERANGE past
 * the object; EFAULT the user buffer; EIO a transfer failed; EINTR a
 * signal while waiting for the file's kernel.
 */
struct mcmgpu_adsm_copy {
	__u32 size;		/* sizeof(struct mcmgpu_adsm_copy) */
	__u32 flags;		/* MCMGPU_ADSM_COPY_* */
	__u32 handle;
	__u32 reserved;		/* 0 */
	__u64 offset;
	__u64 length;		/* 1 .. MCMGPU_ADSM_MAX_OBJECT */
	__u64 user_ptr;
};

#define MCMGPU_ADSM_COPY_FROM_GPU	(1U << 0)
#define MCMGPU_ADSM_COPY_SIZE_VER0	40

/* mmap offset of a shared object: the file's context, then its GPU VA. */
#define MCMGPU_ADSM_MMAP_CTX_MASK	0xffff000000000000ULL
#define MCMGPU_ADSM_MMAP_VA_MASK	0x0000ffffffffffffULL

#endif /* _UAPI_MCMGPU_ADSM_H */
