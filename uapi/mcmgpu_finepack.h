/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * FinePack: binary trace format and replay statistics. Shared by the tool,
 * the driver, the QEMU device and the model core (qemu-device/model/finepack.c).
 *
 * A trace is a header, nrecords fixed-size records, then data_size bytes of
 * store/atomic data that records point into. All fields little-endian.
 */
#ifndef _UAPI_MCMGPU_FINEPACK_H
#define _UAPI_MCMGPU_FINEPACK_H

#include <linux/types.h>

#include "mcmgpu_hw.h"	/* struct mcmgpu_record_error */

#define MCMGPU_FP_TRACE_MAGIC		0x52545046U	/* "FPTR" */
#define MCMGPU_FP_TRACE_VERSION	1
#define MCMGPU_FP_TRACE_MAX_BYTES	(256U << 20)	/* whole trace, device limit */
#define MCMGPU_FP_STORE_MAX_LEN	(1U << 20)	/* one store record */
#define MCMGPU_FP_ATOMIC_MAX_LEN	16		/* within one 128 B line */
#define MCMGPU_FP_MAX_TOTAL_BYTES	(1ULL << 30)	/* sum of record lengths */
#define MCMGPU_FP_MAX_REGION_BYTES	(1ULL << 36)	/* sum of declared regions */
#define MCMGPU_FP_SUBHEADER_MIN		2	/* sub-header bytes */
#define MCMGPU_FP_SUBHEADER_MAX		6
#define MCMGPU_FP_SUBHEADER_DEFAULT	5	/* 30-bit offset, 1 GiB window */
#define MCMGPU_FP_OVERHEAD_ECRC		28	/* TLP: 16 B header, framing, LCRC, ECRC */
#define MCMGPU_FP_OVERHEAD_NO_ECRC	24	/* the same without ECRC */

struct mcmgpu_fp_trace_header {
	__u32 magic;		/* MCMGPU_FP_TRACE_MAGIC */
	__u16 version;		/* MCMGPU_FP_TRACE_VERSION */
	__u16 header_size;	/* sizeof(struct mcmgpu_fp_trace_header) */
	__u32 record_size;	/* sizeof(struct mcmgpu_fp_trace_record) */
	__u32 reserved;		/* 0 */
	__u64 nrecords;
	__u64 data_size;
};

enum mcmgpu_fp_record_type {
	MCMGPU_FP_REC_STORE = 1,	/* src dst addr len data */
	MCMGPU_FP_REC_LOAD = 2,	/* src dst addr len */
	MCMGPU_FP_REC_ATOMIC = 3,	/* src dst addr len data */
	MCMGPU_FP_REC_FENCE = 4,	/* src: system-scope release */
	MCMGPU_FP_REC_KERNEL_END = 5,
	/*
	 * src dst addr len: the application's declared replicated region,
	 * which the region DMA baseline copies from src into dst's replica at
	 * every kernel end from here on. Not an access; no data.
	 */
	MCMGPU_FP_REC_REGION = 6,
	/*
	 * src addr: chiplet src computes for addr ns in this kernel (the
	 * timing model's compute time; several add up). dst and len are 0.
	 */
	MCMGPU_FP_REC_COMPUTE = 7,
};

#define MCMGPU_FP_MAX_GPUS		16	/* the core; the device: its chiplets */
#define MCMGPU_FP_MAX_COMPUTE_NS	(1ULL << 40)	/* sum over a trace */

/* The links the timing model prices every kernel on (finepack.c). */
enum mcmgpu_fp_link {
	MCMGPU_FP_LINK_PCIE4,		/* 32 GB/s per direction */
	MCMGPU_FP_LINK_PCIE5,		/* 64 GB/s */
	MCMGPU_FP_LINK_PCIE6,		/* 128 GB/s */
	MCMGPU_FP_LINK_CHIPLET,		/* 768 GB/s in-package link */
	MCMGPU_FP_LINKS,
};

/* The schemes timed on each link. */
enum mcmgpu_fp_scheme {
	MCMGPU_FP_T_INFINITE,		/* compute alone: infinite bandwidth */
	MCMGPU_FP_T_P2P,		/* plain stores, overlapped */
	MCMGPU_FP_T_WC,			/* write combining, overlapped */
	MCMGPU_FP_T_FINEPACK,		/* overlapped; de-packetizer bound too */
	MCMGPU_FP_T_DMA_REGION,		/* declared regions after the kernel */
	MCMGPU_FP_T_DMA_HULL,		/* written hulls after the kernel */
	MCMGPU_FP_SCHEMES,
};

struct mcmgpu_fp_trace_record {
	__u8 type;		/* enum mcmgpu_fp_record_type */
	__u8 src;		/* source chiplet */
	__u8 dst;		/* destination chiplet */
	__u8 reserved;		/* 0 */
	__u32 len;		/* bytes */
	__u64 addr;		/* byte offset in the destination chiplet */
	__u64 data_off;		/* offset of the data in the data section */
};

enum mcmgpu_fp_flush_reason {
	MCMGPU_FP_FLUSH_WINDOW,	/* piece outside the partition's window */
	MCMGPU_FP_FLUSH_PAYLOAD,	/* payload would exceed 4096 B */
	MCMGPU_FP_FLUSH_ENTRIES,	/* needs a 65th entry */
	MCMGPU_FP_FLUSH_FENCE,		/* system-scope fence of the source */
	MCMGPU_FP_FLUSH_KERNEL_END,	/* kernel end (and end of trace) */
	MCMGPU_FP_FLUSH_LOAD,		/* remote load to a queued line */
	MCMGPU_FP_FLUSH_ATOMIC,	/* remote atomic to a queued line */
	MCMGPU_FP_FLUSH_REASONS,
};

/* Replay counters; identical from the device and from the host core. */
struct mcmgpu_fp_stats {
	__u64 records;
	__u64 stores;		/* store records */
	__u64 store_bytes;	/* bytes in store records */
	__u64 store_pieces;	/* line pieces admitted to the queues */
	__u64 loads;
	__u64 atomics;
	__u64 atomic_bytes;
	__u64 fences;
	__u64 kernels;
	/* FinePack */
	__u64 packets;
	__u64 subpackets;
	__u64 wire_payload;	/* data bytes in sub-packets and atomics */
	__u64 wire_subheader;
	__u64 wire_overhead;	/* O per TLP */
	__u64 wire_padding;	/* DW padding */
	__u64 flushes[MCMGPU_FP_FLUSH_REASONS];
	/* baselines on the same trace */
	__u64 plain_wire_bytes;
	__u64 plain_tlps;
	__u64 dma_wire_bytes;
	__u64 dma_payload;
	__u64 dma_tlps;
	/* distinct destination bytes written per kernel (never overwritten) */
	__u64 useful_bytes;
	__u64 decode_errors;	/* de-packetizer rejections; always 0 */
	/*
	 * Write combining alone: the same queues and flushes, but each
	 * contiguous run of a flushed line is its own plain MWr TLP.
	 */
	__u64 wc_wire_bytes;
	__u64 wc_tlps;
	/*
	 * DMA of the declared regions (REGION records) at every kernel end,
	 * plus the atomics; the dma_* counters above copy the per-kernel hull
	 * of what each source wrote in each destination instead.
	 */
	__u64 regions;		/* REGION records */
	__u64 region_dma_wire_bytes;
	__u64 region_dma_payload;
	__u64 region_dma_tlps;
	/*
	 * Modeled time in ps, summed over kernels, per link and scheme; and
	 * every chiplet's compute run on one GPU, for speedups over one GPU.
	 */
	__u64 compute_records;
	__u64 one_gpu_ps;
	__u64 depack_bound_kernels;	/* on PCIe 6: the de-packetizer binds */
	__u64 time_ps[MCMGPU_FP_LINKS][MCMGPU_FP_SCHEMES];
};

/* What a replay writes back: the counters, or where the trace is bad. */
struct mcmgpu_fp_replay_result {
	struct mcmgpu_fp_stats stats;
	struct mcmgpu_record_error error;	/* index: 1-based record, 0 = header */
};

#endif /* _UAPI_MCMGPU_FINEPACK_H */
