/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * CPElide: launch descriptors for the global command processor and its
 * counters. Shared by the tool, the driver, the QEMU device and the model
 * core (qemu-device/model/cpelide.c). Addresses are GPU physical byte addresses;
 * ranges are inclusive.
 */
#ifndef _UAPI_MCMGPU_CPELIDE_H
#define _UAPI_MCMGPU_CPELIDE_H

#include <linux/types.h>

#include "mcmgpu_hw.h"	/* MCMGPU_MAX_CHIPLETS, struct mcmgpu_record_error */

#define MCMGPU_CPE_MAX_ARGS		16	/* per launch descriptor */
#define MCMGPU_CPE_TABLE_ROWS		64	/* Chiplet Coherence Table */
#define MCMGPU_CPE_ROWS_PER_KERNEL	8	/* more arguments are coarsened */
#define MCMGPU_CPE_MAX_MEM_BYTES	(64ULL << 20)	/* per sequence */
#define MCMGPU_CPE_MAX_PASSES		1024	/* per kernel */

enum mcmgpu_cpe_policy {
	MCMGPU_CPE_POLICY_BASELINE = 0,	/* INV every L2 at launch, FLUSH at completion */
	MCMGPU_CPE_POLICY_CPELIDE = 1,
	MCMGPU_CPE_POLICY_IDEAL = 2,		/* no L2 sync: the reuse bound */
	MCMGPU_CPE_POLICY_HMG = 3,		/* sharer directory, write-through (notes A12) */
	MCMGPU_CPE_POLICIES,
};

enum mcmgpu_cpe_record_type {
	MCMGPU_CPE_REC_RESET = 1,	/* start a sequence: policy, chiplets, memory */
	MCMGPU_CPE_REC_KERNEL = 2,
	MCMGPU_CPE_REC_HOST_READ = 3,	/* args[0]: the range the host reads */
	MCMGPU_CPE_REC_HOST_WRITE = 4,	/* args[0]: the range the host writes */
	MCMGPU_CPE_REC_END = 5,	/* final release */
};

/*
 * Reset flags. Without MCMGPU_CPE_FLAG_CACHE_REMOTE a chiplet's L2 holds
 * only lines homed in its own memory: remote reads are served at the home
 * and remote stores are written through to it (the paper's Baseline and
 * CPElide, notes A2). With it every L2 caches whatever its chiplet touches,
 * write-back. HMG always caches remote data.
 */
#define MCMGPU_CPE_FLAG_CACHE_REMOTE	(1U << 0)
#define MCMGPU_CPE_FLAGS		MCMGPU_CPE_FLAG_CACHE_REMOTE

#define MCMGPU_CPE_MODE_R		1
#define MCMGPU_CPE_MODE_RW		2

#define MCMGPU_CPE_ARG_EVEN		0	/* split evenly over the kernel's chiplets */
#define MCMGPU_CPE_ARG_UNKNOWN		1	/* range not known: baseline sync */
#define MCMGPU_CPE_ARG_EXPLICIT	2	/* range[c] per chiplet; start > end: none */

struct mcmgpu_cpe_range {
	__u64 start;
	__u64 end;		/* inclusive */
};

struct mcmgpu_cpe_arg {
	__u64 base;		/* the object: GPU address and size */
	__u64 size;
	__u32 mode;		/* CPE_MODE_* */
	__u32 kind;		/* CPE_ARG_* */
	struct mcmgpu_cpe_range range[MCMGPU_MAX_CHIPLETS];	/* MCMGPU_CPE_ARG_EXPLICIT */
};

struct mcmgpu_cpe_record {
	__u32 type;		/* enum mcmgpu_cpe_record_type */
	__u32 nargs;		/* kernel: 1..MCMGPU_CPE_MAX_ARGS; host: 1 */
	__u32 chiplet_mask;	/* kernel: chiplets that run it */
	__u32 stream;
	__u32 passes;		/* kernel: sweeps over each range, >= 1 */
	__u32 policy;		/* reset: enum mcmgpu_cpe_policy */
	__u32 chiplets;		/* reset: chiplet count */
	__u32 flags;		/* reset: MCMGPU_CPE_FLAG_*; others: 0 */
	__u64 mem_bytes;	/* reset: bytes of GPU memory the sequence uses */
	__u64 kernel_id;
	struct mcmgpu_cpe_arg args[MCMGPU_CPE_MAX_ARGS];
};

struct mcmgpu_cpe_stats {
	__u64 kernels;
	__u64 launches;			/* kernels + host records + end */
	__u64 l2_invalidates;
	__u64 l2_flushes;
	__u64 baseline_invalidates;	/* n per kernel */
	__u64 baseline_flushes;		/* n per kernel */
	__u64 l1_invalidates;
	__u64 l1_hits;
	__u64 l2_hits;
	__u64 l2_misses;
	__u64 remote_accesses;
	__u64 flits_l1_l2;
	__u64 flits_l2_l3;
	__u64 flits_remote;
	__u64 bytes_written_back;
	__u64 modeled_cycles;
	__u64 sync_cycles;
	__u64 cp_cycles;
	__u64 table_peak_rows;
	__u64 coarsened_args;
	__u64 overflow_evictions;
	__u64 conservative_launches;
	__u64 oracle_violations;
	__u64 oracle_read_violations;
	__u64 oracle_order_violations;
	__u64 oracle_final_violations;
	__u64 remote_uncached;		/* accesses served at a remote home, no L2 fill */
	__u64 writes_through;		/* line writes sent through to home or memory */
	__u64 dir_evictions;		/* HMG: directory entries evicted */
	__u64 dir_invalidations;	/* HMG: sharer lines invalidated */
	__u64 bandwidth_cycles;		/* kernel cycles the busiest path added */
	__u64 dram_lines;		/* 64 B DRAM reads and writes */
};

/* What the device writes back after each launch record. */
struct mcmgpu_cpe_launch_result {
	struct mcmgpu_cpe_stats stats;
	struct mcmgpu_record_error error;	/* index: 1-based argument, 0 = record */
};

#endif /* _UAPI_MCMGPU_CPELIDE_H */
