/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * CPElide: launch descriptors for the global command processor and its
 * counters. Shared by the tool, the driver, the QEMU device and the model
 * core (qemu-device/cpelide.c). Addresses are GPU physical byte addresses;
 * ranges are inclusive.
 */
#ifndef _UAPI_MCMGPU_CPELIDE_H
#define _UAPI_MCMGPU_CPELIDE_H

#include <linux/types.h>

#define CPE_MAX_CHIPLETS	8
#define CPE_MAX_ARGS		16	/* per launch descriptor */
#define CPE_TABLE_ROWS		64	/* Chiplet Coherence Table */
#define CPE_ROWS_PER_KERNEL	8	/* more arguments are coarsened */

enum cpe_policy {
	CPE_POLICY_BASELINE = 0,	/* INV every L2 at launch, FLUSH at completion */
	CPE_POLICY_CPELIDE = 1,
	CPE_POLICY_IDEAL = 2,		/* no L2 sync: the reuse bound */
	CPE_POLICIES,
};

enum cpe_record_type {
	CPE_REC_RESET = 1,	/* start a sequence: policy, chiplets, memory */
	CPE_REC_KERNEL = 2,
	CPE_REC_HOST_READ = 3,	/* args[0]: the range the host reads */
	CPE_REC_HOST_WRITE = 4,	/* args[0]: the range the host writes */
	CPE_REC_END = 5,	/* final release */
};

#define CPE_MODE_R		1
#define CPE_MODE_RW		2

#define CPE_ARG_EVEN		0	/* split evenly over the kernel's chiplets */
#define CPE_ARG_UNKNOWN		1	/* range not known: baseline sync */
#define CPE_ARG_EXPLICIT	2	/* range[c] per chiplet; start > end: none */

struct cpe_range {
	__u64 start;
	__u64 end;		/* inclusive */
};

struct cpe_arg {
	__u64 base;		/* the object: GPU address and size */
	__u64 size;
	__u32 mode;		/* CPE_MODE_* */
	__u32 kind;		/* CPE_ARG_* */
	struct cpe_range range[CPE_MAX_CHIPLETS];	/* CPE_ARG_EXPLICIT */
};

struct cpe_record {
	__u32 type;		/* enum cpe_record_type */
	__u32 nargs;		/* kernel: 1..CPE_MAX_ARGS; host: 1 */
	__u32 chiplet_mask;	/* kernel: chiplets that run it */
	__u32 stream;
	__u32 passes;		/* kernel: sweeps over each range, >= 1 */
	__u32 policy;		/* reset: enum cpe_policy */
	__u32 chiplets;		/* reset: chiplet count */
	__u32 reserved;
	__u64 mem_bytes;	/* reset: bytes of GPU memory the sequence uses */
	__u64 kernel_id;
	struct cpe_arg args[CPE_MAX_ARGS];
};

struct cpe_stats {
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
};

/* What the device writes back after each launch record. */
struct cpe_launch_result {
	struct cpe_stats stats;
	__u32 error_arg;	/* 1-based argument, 0 = the record itself */
	__u32 reserved;
	__u64 error_value;
	char error[96];		/* "field: problem", NUL-terminated */
};

#endif /* _UAPI_MCMGPU_CPELIDE_H */
