/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * mcmgpu user-space ABI: ioctls on /dev/mcmgpuN.
 *
 * Every argument struct starts with __u32 size, set by the caller to
 * sizeof() the struct it was compiled with. The kernel accepts older
 * (smaller) structs and newer (larger) ones whose unknown trailing bytes
 * are zero; anything else fails with EINVAL (too small) or E2BIG
 * (non-zero unknown bytes).
 */
#ifndef _UAPI_MCMGPU_IOCTL_H
#define _UAPI_MCMGPU_IOCTL_H

#include <linux/types.h>
#include <linux/ioctl.h>

#define MCMGPU_IOCTL_MAGIC	'G'

struct mcmgpu_info {
	__u32 size;		/* in: sizeof(struct mcmgpu_info); out: bytes written */
	__u32 flags;		/* in: must be 0 */
	__u32 hw_version;	/* out: BAR0 VERSION register */
	__u32 chiplets;		/* out: number of chiplets */
	__u64 vram_per_chiplet;	/* out: bytes of memory per chiplet */
	__u64 vram_total;	/* out: chiplets * vram_per_chiplet */
	__u64 vram_bar_size;	/* out: size of the BAR exposing the memories */
	__u32 features;		/* out: BAR0 FEATURES register */
	__u32 pci_domain;	/* out: PCI location of the device */
	__u32 pci_bus;
	__u32 pci_devfn;
	__u64 commands_done;	/* out: commands completed by this device */
	__u64 commands_failed;	/* out: commands completed with an error */
};

#define MCMGPU_INFO_SIZE_VER0	72

/* DMA between a user buffer and GPU physical memory. */
struct mcmgpu_dma {
	__u32 size;		/* sizeof(struct mcmgpu_dma) */
	__u32 flags;		/* MCMGPU_DMA_* */
	__u64 user_ptr;		/* user buffer */
	__u64 gpu_addr;		/* chiplet * vram_per_chiplet + offset */
	__u64 length;		/* bytes, > 0 */
};

#define MCMGPU_DMA_SIZE_VER0	32
#define MCMGPU_DMA_FROM_GPU	(1U << 0)	/* else user buffer to GPU */
#define MCMGPU_DMA_FLAGS_ALL	MCMGPU_DMA_FROM_GPU

/*
 * Replay a FinePack trace (uapi/mcmgpu_finepack.h) on the device: the
 * trace is validated whole before anything is applied, then its stores
 * are coalesced, packed, de-packetized and written into the destination
 * chiplets' memories. result_ptr receives a struct mcmgpu_fp_replay_result, also
 * when the trace is rejected (EINVAL) so the bad record can be named.
 */
struct mcmgpu_finepack_replay {
	__u32 size;		/* sizeof(struct mcmgpu_finepack_replay) */
	__u32 flags;		/* 0 */
	__u64 trace_ptr;
	__u64 trace_len;	/* 1..MCMGPU_FP_TRACE_MAX_BYTES */
	__u32 subheader;	/* 2..6 bytes */
	__u32 overhead;		/* 24 or 28 bytes per TLP */
	__u64 result_ptr;	/* struct mcmgpu_fp_replay_result */
	__u32 result_size;	/* sizeof(struct mcmgpu_fp_replay_result) */
	__u32 reserved;		/* 0 */
};

#define MCMGPU_FINEPACK_REPLAY_SIZE_VER0	48

/*
 * The launch call: one record for the device's global command processor
 * (uapi/mcmgpu_cpelide.h): a RESET that starts a sequence (policy,
 * chiplets, memory), a KERNEL with its chiplet set, stream and arguments,
 * HOST_READ/HOST_WRITE, or END (the final release). result_ptr receives a
 * struct mcmgpu_cpe_launch_result: the counters so far, or on EINVAL the argument
 * and field the device refused.
 */
struct mcmgpu_launch {
	__u32 size;		/* sizeof(struct mcmgpu_launch) */
	__u32 flags;		/* MCMGPU_LAUNCH_F_* */
	__u64 record_ptr;	/* struct mcmgpu_cpe_record */
	__u32 record_size;	/* sizeof(struct mcmgpu_cpe_record) */
	__u32 result_size;	/* sizeof(struct mcmgpu_cpe_launch_result) */
	__u64 result_ptr;	/* struct mcmgpu_cpe_launch_result */
};

#define MCMGPU_LAUNCH_SIZE_VER0		32
/*
 * ADSM (uapi/mcmgpu_adsm.h): the record is a struct mcmgpu_adsm_kernel,
 * the result (optional, with WAIT) a struct mcmgpu_adsm_kernel_result. The
 * launch is the release: the file's shared objects reach the GPU and the
 * CPU's copies are invalidated; the kernel then runs on its own, and
 * MCMGPU_IOCTL_ADSM_SYNC (or WAIT here) waits for it and is the acquire.
 * Errors: EINVAL record_size is not sizeof(struct mcmgpu_adsm_kernel) or
 * result_size too small; EFAULT record_ptr or result_ptr; ENOENT the file
 * has no GPU object yet; EOPNOTSUPP no ADSM engine; EINTR a signal while
 * waiting; EIO (at the sync, or here with WAIT) the device refused or
 * failed the kernel, the result naming the va and why (an output that
 * overlaps an input among them, ADSM_SYNC's list).
 */
#define MCMGPU_LAUNCH_F_ADSM		(1U << 0)
#define MCMGPU_LAUNCH_F_WAIT		(1U << 1)	/* ADSM: and sync */

/*
 * Allocate an object of GPU memory in the file's GPU address space (Barre
 * Chord §IV-C, §IV-G): its pages spread over map's chiplets by policy
 * (enum mcmgpu_alloc_policy in mcmgpu_barre.h) and, with
 * MCMGPU_ALLOC_F_BARRE, placed so that each coalescing group sits at one
 * local frame in all of its chiplets. The project's one GPU allocation:
 * later mechanisms map these objects too.
 * bytes is rounded up to whole 4096-byte pages (pages says how many),
 * with or without F_SHARED.
 * Errors: EINVAL a bad field (bytes 0 or, rounded up, more than the
 * device has; unknown flags or policy; for chunk, g 0 or more than the
 * object's pages; map with a duplicate or a chiplet the device lacks;
 * merge as below; reserved not 0), ENOMEM no frames left (nothing is
 * kept), ENOSPC no GPU virtual space left, ENODEV the device was removed.
 */
struct mcmgpu_alloc {
	__u32 size;		/* sizeof(struct mcmgpu_alloc) */
	__u32 flags;		/* MCMGPU_ALLOC_F_* */
	__u64 bytes;		/* rounded up to pages */
	__u32 policy;		/* MCMGPU_ALLOC_CHUNK, _RR or _KWC */
	__u32 g;		/* chunk: pages per chiplet per round, 1..pages */
	__u32 nmap;		/* 0: chiplets 0..n-1 in order */
	__u8 map[8];		/* GPU_map: the chiplet at each position */
	__u32 handle;		/* out: names the object to FREE */
	__u64 gpu_va;		/* out: its first GPU virtual address */
	__u64 pages;		/* out */
	__u64 groups;		/* out: coalescing groups formed */
	__u64 grouped_pages;	/* out: pages in them */
	__u64 fallback_pages;	/* out: Barre on, no common frame found */
	__u64 mmap_offset;	/* out: F_SHARED, for mmap() */
	/*
	 * F-Barre's expansion (Barre Chord §V-B): with F_BARRE, a group may
	 * hold up to merge consecutive pages a chiplet (0 or 1: none, up to
	 * 4, on at most 4 chiplets); EINVAL otherwise.
	 */
	__u32 merge;
	__u32 reserved;		/* zero */
	__u64 merged_groups;	/* out: groups of more than a page a chiplet */
};

#define MCMGPU_ALLOC_F_BARRE		(1U << 0)
#define MCMGPU_ALLOC_F_WRITE		(1U << 1)
/*
 * ADSM: the object gets a CPU copy kept coherent by the file's protocol
 * (uapi/mcmgpu_adsm.h); mmap() it at mmap_offset. Implies F_WRITE.
 */
#define MCMGPU_ALLOC_F_SHARED		(1U << 2)
#define MCMGPU_ALLOC_SIZE_VER0		80

/*
 * Free an object: ENOENT if handle names none of this file's; EBUSY while
 * the file's ADSM kernel runs (it may use any of the file's objects; the
 * object stays: sync, then free).
 */
struct mcmgpu_free {
	__u32 size;		/* sizeof(struct mcmgpu_free) */
	__u32 handle;
};

#define MCMGPU_FREE_SIZE_VER0		8

/*
 * Barre's three operations, each taking its own fields of this struct:
 * MCMGPU_IOCTL_BARRE_RESET empties the file's TLBs, clocks and counters
 * (the live objects keep their PEC entries) and sets the walkers (0:
 * barre_iommu.ko's walkers parameter), the shadow walk (F_SHADOW) and
 * F-Barre's fields below. MCMGPU_IOCTL_BARRE_RUN runs one phase of Barre
 * accesses (struct mcmgpu_barre_access, each chiplet in its own order)
 * through the chiplets' TLBs and, on their misses, ATS to barre_iommu.ko,
 * in virtual cycles; count 0 runs nothing. MCMGPU_IOCTL_BARRE_STATS writes
 * every counter since the last reset to stats_ptr. For older callers,
 * BARRE_RUN with MCMGPU_BARRE_RUN_F_RESET resets first, and with stats_ptr
 * writes the stats after. Errors: ENODEV barre_iommu.ko not bound, EINVAL a bad
 * field or access (a chiplet the device lacks, reserved bytes), EPROTO the
 * IOMMU answered a request twice or never sent, EBADFD no reset since the
 * open or since a run that failed (the device lost its phase in a
 * migration, say), EINTR a fatal signal.
 */
struct mcmgpu_barre_run {
	__u32 size;		/* sizeof(struct mcmgpu_barre_run) */
	__u32 flags;		/* MCMGPU_BARRE_RUN_F_* */
	__u64 accesses_ptr;
	__u64 count;
	__u64 stats_ptr;	/* struct mcmgpu_barre_stats, or 0 */
	__u32 stats_size;
	__u32 walkers;		/* with RESET */
	/*
	 * F-Barre (Barre Chord §V), with RESET, else zero: the chiplets'
	 * in-package translation (F_SHARING), its filters' rows (256, 512 or
	 * 1024; 0 = 256), the filter messages lost per million, the longest
	 * merged run it looks for (the allocations' merge, 0 = 1), and the
	 * walkers' coalescing-aware scheduling (how often a request may be
	 * passed over, 0 off, at most 255).
	 */
	__u32 fbarre_flags;
	__u32 filter_rows;
	__u32 drop_ppm;
	__u32 merge;
	__u32 sched_moves;
	__u32 reserved;		/* zero */
};

#define MCMGPU_BARRE_FBARRE_F_SHARING	(1U << 0)

#define MCMGPU_BARRE_RUN_F_RESET	(1U << 0)
#define MCMGPU_BARRE_RUN_F_SHADOW	(1U << 1)	/* with RESET */
#define MCMGPU_BARRE_RUN_SIZE_VER0	40

/*
 * Read the leaf PTEs (mcmgpu_hw.h format) of an object's pages first ..
 * first + count - 1 into ptes_ptr (count u64). ENOENT unknown handle,
 * ERANGE pages outside the object.
 */
struct mcmgpu_pte_query {
	__u32 size;		/* sizeof(struct mcmgpu_pte_query) */
	__u32 handle;
	__u64 first;
	__u64 count;
	__u64 ptes_ptr;
};

#define MCMGPU_PTE_QUERY_SIZE_VER0	32

/*
 * The GPU timing core on the device (uapi/mcmgpu_gpu.h, docs/gpu.md).
 * GPU_LOAD appends length bytes of a binary program (program.h) to the
 * file's program, F_FIRST starting a new one (and ending any run); the
 * whole program is at most the device's gpu-program-max-mib. Errors:
 * EINVAL flags or length 0, EFAULT, EIO past the device's limit, ENOMEM
 * the device's memory budget.
 */
struct mcmgpu_gpu_load {
	__u32 size;		/* sizeof(struct mcmgpu_gpu_load) */
	__u32 flags;		/* MCMGPU_GPU_LOAD_F_FIRST */
	__u64 program_ptr;
	__u64 length;		/* bytes, > 0 */
};

#define MCMGPU_GPU_LOAD_F_FIRST		(1U << 0)
#define MCMGPU_GPU_LOAD_SIZE_VER0	24

/*
 * GPU_RUN runs the loaded program to its end with the configuration
 * (nfields u32 values in gpu_config_fields order,
 * qemu-device/model/gpu_config.c). With the configuration's translate on,
 * objects_ptr holds nobjects GPU VAs, one an OBJECT record in program
 * order (each allocated with MCMGPU_IOCTL_ALLOC), and the core's TLB
 * misses are served by barre_iommu.ko epoch by epoch, as
 * MCMGPU_IOCTL_BARRE_RUN's (F_SHADOW: check every coalesced answer with a
 * walk). streams (0: off) runs the program's streams concurrently on
 * that many groups of chiplets, as mcmgpu run --host --streams does
 * (gpu_core_streams(); it must divide the chiplets). On an error msg_ptr
 * (if not 0) gets why, NUL-terminated: the
 * field, or the core's kernel, block, warp and instruction. Errors:
 * EINVAL a bad field or configuration, or the program refused; EFAULT;
 * EBADFD nothing loaded (or the device lost it); ENODEV translation
 * without barre_iommu.ko; EPROTO a bad ATS answer; ENOMEM the device's
 * memory budget; EINTR a fatal signal.
 */
struct mcmgpu_gpu_run {
	__u32 size;		/* sizeof(struct mcmgpu_gpu_run) */
	__u32 flags;		/* MCMGPU_GPU_RUN_F_* */
	__u64 config_ptr;	/* __u32 [nfields] */
	__u32 nfields;		/* 1..MCMGPU_GPU_CONFIG_MAX_FIELDS */
	__u32 msg_size;		/* bytes at msg_ptr */
	__u64 objects_ptr;	/* __u64 [nobjects] */
	__u64 nobjects;		/* 0..MCMGPU_GPU_MAX_OBJECTS */
	__u64 msg_ptr;
	__u32 streams;		/* chiplet groups, 0 off (since size 56) */
	__u32 reserved;		/* zero */
};

#define MCMGPU_GPU_RUN_F_SHADOW		(1U << 0)
#define MCMGPU_GPU_RUN_SIZE_VER0	48
#define MCMGPU_GPU_RUN_SIZE_VER1	56	/* streams */

/*
 * GPU_STATS: the last run's counters (struct gpu_core_stats, stats_size
 * its size), the kernels' records (struct gpu_kernel_stats, kernel_size
 * its size) from first on, at most count of them (out: how many were
 * copied; nkernels: how many the device keeps), the IOMMU's counters
 * (barre_ptr, or 0) and the run's error (msg_ptr, or 0; empty when none).
 * Errors: EINVAL a size; EFAULT; EBADFD no run since the file's last
 * load.
 */
struct mcmgpu_gpu_stats {
	__u32 size;		/* sizeof(struct mcmgpu_gpu_stats) */
	__u32 flags;		/* 0 */
	__u64 stats_ptr;
	__u32 stats_size;
	__u32 kernel_size;
	__u64 kernels_ptr;
	__u64 first;
	__u64 count;		/* in: room at kernels_ptr; out: copied */
	__u64 nkernels;		/* out */
	__u64 barre_ptr;	/* struct mcmgpu_barre_stats */
	__u32 barre_size;
	__u32 msg_size;
	__u64 msg_ptr;
	__s32 error;		/* out: the run's negative errno, 0 none */
	__u32 done;		/* out: the program ran to its end */
};

#define MCMGPU_GPU_STATS_SIZE_VER0	88

/*
 * GPU_OBJECTS: the loaded program's OBJECT records in program order
 * (struct mcmgpu_gpu_object), as the device reads them from the stored
 * bytes, so that a translated run's objects are allocated without the
 * caller decoding the program. At most count of them go to objects_ptr
 * (out: how many were copied); nobjects says how many the program has.
 * On a refused program msg_ptr (if not 0) gets where, NUL-terminated.
 * Errors: EINVAL flags or pad, or the program refused; EFAULT; EBADFD
 * nothing loaded (or the device lost it); E2BIG more than
 * MCMGPU_GPU_MAX_OBJECTS objects; ENOMEM the device's memory budget.
 */
struct mcmgpu_gpu_objects {
	__u32 size;		/* sizeof(struct mcmgpu_gpu_objects) */
	__u32 flags;		/* 0 */
	__u64 objects_ptr;	/* struct mcmgpu_gpu_object [count] */
	__u64 count;		/* in: room at objects_ptr; out: copied */
	__u64 nobjects;		/* out: the program's OBJECT records */
	__u64 msg_ptr;
	__u32 msg_size;
	__u32 pad;		/* 0 */
};

#define MCMGPU_GPU_OBJECTS_SIZE_VER0	48

/*
 * Errors: EINVAL bad size/flags/length 0, E2BIG non-zero unknown trailing
 * bytes, EFAULT unreadable or unwritable user memory, EOVERFLOW
 * gpu_addr + length wraps, ERANGE range past the end of GPU memory,
 * ETIMEDOUT the device did not complete, EIO the device reported an error,
 * ENODEV the device was removed (every ioctl number, before any argument
 * is looked at).
 */
#define MCMGPU_IOCTL_GET_INFO	_IOWR(MCMGPU_IOCTL_MAGIC, 0x00, struct mcmgpu_info)
#define MCMGPU_IOCTL_DMA	_IOW(MCMGPU_IOCTL_MAGIC, 0x01, struct mcmgpu_dma)
#define MCMGPU_IOCTL_FINEPACK_REPLAY \
	_IOW(MCMGPU_IOCTL_MAGIC, 0x02, struct mcmgpu_finepack_replay)
#define MCMGPU_IOCTL_LAUNCH	_IOW(MCMGPU_IOCTL_MAGIC, 0x03, struct mcmgpu_launch)
#define MCMGPU_IOCTL_ALLOC	_IOWR(MCMGPU_IOCTL_MAGIC, 0x04, struct mcmgpu_alloc)
#define MCMGPU_IOCTL_FREE	_IOW(MCMGPU_IOCTL_MAGIC, 0x05, struct mcmgpu_free)
#define MCMGPU_IOCTL_BARRE_RUN \
	_IOW(MCMGPU_IOCTL_MAGIC, 0x06, struct mcmgpu_barre_run)
#define MCMGPU_IOCTL_PTE_QUERY \
	_IOW(MCMGPU_IOCTL_MAGIC, 0x07, struct mcmgpu_pte_query)
/* ADSM: uapi/mcmgpu_adsm.h. */
#define MCMGPU_IOCTL_ADSM_CONFIG \
	_IOW(MCMGPU_IOCTL_MAGIC, 0x08, struct mcmgpu_adsm_config)
#define MCMGPU_IOCTL_ADSM_SYNC \
	_IOW(MCMGPU_IOCTL_MAGIC, 0x09, struct mcmgpu_adsm_sync)
#define MCMGPU_IOCTL_ADSM_STATS \
	_IOWR(MCMGPU_IOCTL_MAGIC, 0x0a, struct mcmgpu_adsm_stats)
#define MCMGPU_IOCTL_ADSM_QUERY \
	_IOWR(MCMGPU_IOCTL_MAGIC, 0x0b, struct mcmgpu_adsm_query)
#define MCMGPU_IOCTL_ADSM_COPY \
	_IOW(MCMGPU_IOCTL_MAGIC, 0x0c, struct mcmgpu_adsm_copy)
/* The GPU timing core. */
#define MCMGPU_IOCTL_GPU_LOAD \
	_IOW(MCMGPU_IOCTL_MAGIC, 0x0d, struct mcmgpu_gpu_load)
#define MCMGPU_IOCTL_GPU_RUN \
	_IOW(MCMGPU_IOCTL_MAGIC, 0x0e, struct mcmgpu_gpu_run)
#define MCMGPU_IOCTL_GPU_STATS \
	_IOWR(MCMGPU_IOCTL_MAGIC, 0x0f, struct mcmgpu_gpu_stats)
#define MCMGPU_IOCTL_GPU_OBJECTS \
	_IOWR(MCMGPU_IOCTL_MAGIC, 0x10, struct mcmgpu_gpu_objects)
/* Barre's reset and stats alone (struct mcmgpu_barre_run). */
#define MCMGPU_IOCTL_BARRE_RESET \
	_IOW(MCMGPU_IOCTL_MAGIC, 0x11, struct mcmgpu_barre_run)
#define MCMGPU_IOCTL_BARRE_STATS \
	_IOW(MCMGPU_IOCTL_MAGIC, 0x12, struct mcmgpu_barre_run)

#endif /* _UAPI_MCMGPU_IOCTL_H */
