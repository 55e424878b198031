/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * mcmgpu CXL root complex (CXL-GPU paper; notes cxlgpu.md §4): where the
 * GPU's CXL host bridge, root ports and Type-3 endpoints show their
 * registers, shared by the QEMU device, gpu_rc.ko, the tool and the tests.
 *
 * The GPU owns the root complex: its root ports lead to memory expanders
 * the host never enumerates. The host (gpu_rc.ko, in the role the paper
 * gives the GPU's firmware core) finds them through a Register Locator
 * DVSEC in the GPU function's config space whose entries point at CXL
 * component register blocks in BAR0: entry 0 the host bridge, entry 1 + p
 * the endpoint behind root port p. Each block follows the spec's layout
 * (CXL.cache/mem at +0x1000, capability array, HDM decoder capability);
 * an endpoint's block adds, in its implementation-specific range, an
 * image of the endpoint's own config space (with its PCIe DVSEC for CXL
 * devices: capacity and media class) and a window onto its media by DPA.
 *
 * GPU physical address space: the chiplet memories from 0 (mcmgpu_hw.h),
 * then the CXL window at MCMGPU_CXL_WINDOW_BASE, the HPA range the host
 * bridge decoders map. BAR4 shows a slice of the window (the aperture).
 */
#ifndef MCMGPU_CXL_H
#define MCMGPU_CXL_H

#include <linux/types.h>
#include <linux/ioctl.h>

#include "mcmgpu_hw.h"	/* struct mcmgpu_record_error */

#define MCMGPU_BAR_CXL			4	/* the CXL window's aperture */

#define MCMGPU_CXL_DEFAULT_PORTS	4
#define MCMGPU_CXL_MAX_PORTS		8	/* the HDM Target Count limit */
#define MCMGPU_CXL_HB_DECODERS		8
#define MCMGPU_CXL_EP_DECODERS		4
/* HDM decoders map 256 MiB units; endpoint capacity is a multiple. */
#define MCMGPU_CXL_UNIT			(256ULL << 20)
#define MCMGPU_CXL_DEFAULT_CAPACITY	MCMGPU_CXL_UNIT
#define MCMGPU_CXL_MAX_CAPACITY		(64ULL << 30)	/* per endpoint */
#define MCMGPU_CXL_WINDOW_BASE		(64ULL << 30)	/* GPU physical */
#define MCMGPU_CXL_DEFAULT_APERTURE	(1ULL << 30)	/* BAR4 at most */
#define MCMGPU_CXL_DEFAULT_COMMIT_US	1000
#define MCMGPU_CXL_MAX_COMMIT_US	100000

/* Root port p's Port Number (its Link Capabilities), the HB target ID. */
#define MCMGPU_CXL_PORT_ID(p)		(0x10 + (p))

/* Register Locator DVSEC in the GPU function's extended config space. */
#define MCMGPU_CXL_REGLOC_OFFSET	0x110
#define MCMGPU_CXL_DVSEC_VENDOR		0x1e98
#define MCMGPU_CXL_DVSEC_DEVICE		0	/* PCIe DVSEC for CXL devices */
#define MCMGPU_CXL_DVSEC_REGLOC		8	/* Register Locator */

/* Component register blocks in BAR0, 64 KiB each: HB, then endpoints. */
#define MCMGPU_CXL_BLOCKS_OFFSET	0x10000
#define MCMGPU_CXL_BLOCK_SIZE		0x10000
#define MCMGPU_CXL_BLOCK(k) \
	(MCMGPU_CXL_BLOCKS_OFFSET + (k) * MCMGPU_CXL_BLOCK_SIZE)
#define MCMGPU_CXL_HB_BLOCK		0
#define MCMGPU_CXL_EP_BLOCK(p)		(1 + (p))

/* Inside a block (spec §8.2.4): CXL.cache/mem registers, capability array. */
#define MCMGPU_CXL_CM_OFFSET		0x1000
#define MCMGPU_CXL_HDM_OFFSET		0x100	/* from the CM base */
#define MCMGPU_CXL_CAP_ID_ARRAY		1
#define MCMGPU_CXL_CAP_ID_HDM		5

/*
 * HDM Decoder Capability Structure (spec §8.2.4.20), from its start, for
 * the HDM model (cxl_hdm.c), the tool and the tests. The device's glue
 * names these registers and fields as QEMU does (hw/cxl/cxl_component.h),
 * gpu_rc.ko as the kernel does (drivers/cxl/cxl.h).
 */
#define MCMGPU_HDM_CAP			0x00
#define MCMGPU_HDM_GLOBAL_CTRL		0x04
#define MCMGPU_HDM_DECODER(n)		(0x10 + (n) * 0x20)
#define MCMGPU_HDM_BASE_LO		0x00
#define MCMGPU_HDM_BASE_HI		0x04
#define MCMGPU_HDM_SIZE_LO		0x08
#define MCMGPU_HDM_SIZE_HI		0x0c
#define MCMGPU_HDM_CTRL			0x10
#define MCMGPU_HDM_TARGET_LO		0x14	/* HB: target list; EP: DPA skip */
#define MCMGPU_HDM_TARGET_HI		0x18

#define MCMGPU_HDM_GLOBAL_ENABLE	(1U << 1)	/* EP: decode by HDM */
#define MCMGPU_HDM_CTRL_IG_MASK		0x0000000fU
#define MCMGPU_HDM_CTRL_IW_MASK		0x000000f0U
#define MCMGPU_HDM_CTRL_LOCK		(1U << 8)
#define MCMGPU_HDM_CTRL_COMMIT		(1U << 9)
#define MCMGPU_HDM_CTRL_COMMITTED	(1U << 10)
#define MCMGPU_HDM_CTRL_ERROR		(1U << 11)
#define MCMGPU_HDM_CTRL_HOSTONLY	(1U << 12)
#define MCMGPU_HDM_ADDR_LO_MASK		0xf0000000U	/* 27:0 RsvdP */

/*
 * An endpoint block's implementation-specific range: its config space
 * image (4 KiB, read-only) and its media window.
 */
#define MCMGPU_CXL_EP_CONFIG		0x2000
#define MCMGPU_CXL_EP_CONFIG_SIZE	0x1000
#define MCMGPU_CXL_EP_MEDIA		0x3000	/* RO: MCMGPU_CXL_MEDIA_* */
#define MCMGPU_CXL_EP_CAPACITY_LO	0x3004	/* RO: bytes */
#define MCMGPU_CXL_EP_CAPACITY_HI	0x3008
#define MCMGPU_CXL_EP_PORT_ID		0x300c	/* RO: its root port's ID */
#define MCMGPU_CXL_EP_DPA_LO		0x3010	/* RW: DPA of EP_DATA */
#define MCMGPU_CXL_EP_DPA_HI		0x3014
/* RW: the 4 bytes at DPA (must be below capacity); DPA += 4 after. */
#define MCMGPU_CXL_EP_DATA		0x3018

#define MCMGPU_CXL_MEDIA_DRAM		0
#define MCMGPU_CXL_MEDIA_OPTANE		1
#define MCMGPU_CXL_MEDIA_ZNAND		2
#define MCMGPU_CXL_MEDIA_NAND		3
#define MCMGPU_CXL_MEDIA_TYPES		4

/* The endpoints' identity in their config space images. */
#define MCMGPU_CXL_EP_DEVICE_ID		0x4d58	/* "MX" */
#define MCMGPU_CXL_EP_CLASS		0x050210	/* CXL memory, CXL 2.0 */

/*
 * The CXL RC engine's registers in its BAR0 window (MCMGPU_WINDOW_CXL_RC),
 * from MCMGPU_WIN_ENGINE on.
 */
#define MCMGPU_CXL_REG_PORTS		0x100	/* RO */
#define MCMGPU_CXL_REG_WINDOW_BASE_LO	0x104	/* RO: GPU physical */
#define MCMGPU_CXL_REG_WINDOW_BASE_HI	0x108
#define MCMGPU_CXL_REG_WINDOW_SIZE_LO	0x10c	/* RO: pow2 >= sum of capacities */
#define MCMGPU_CXL_REG_WINDOW_SIZE_HI	0x110
#define MCMGPU_CXL_REG_APERTURE_LO	0x114	/* RW: window offset BAR4 shows */
#define MCMGPU_CXL_REG_APERTURE_HI	0x118
#define MCMGPU_CXL_REG_COMMIT_US	0x11c	/* RW: commit delay, microseconds */
/* Decode probe: write an HPA, read where the device sends it. */
#define MCMGPU_CXL_REG_PROBE_HPA_LO	0x120	/* RW */
#define MCMGPU_CXL_REG_PROBE_HPA_HI	0x124	/* RW; writing it decodes */
#define MCMGPU_CXL_REG_PROBE_PORT	0x128	/* RO: port index, or ~0 */
#define MCMGPU_CXL_REG_PROBE_DPA_LO	0x12c	/* RO */
#define MCMGPU_CXL_REG_PROBE_DPA_HI	0x130
#define MCMGPU_CXL_PROBE_MISS		0xffffffffU

/*
 * Speculative read and deterministic store replays (qemu-device/model/cxl_srds.c):
 * a trace of the GPU's last-level-cache misses into the CXL window, one
 * 64 B line each, with the compute between them. Little-endian records.
 */
#define MCMGPU_CXL_REC_LOAD		1	/* addr: HPA offset in the window */
#define MCMGPU_CXL_REC_STORE		2
#define MCMGPU_CXL_REC_COMPUTE		3	/* arg: nanoseconds of compute */
#define MCMGPU_CXL_LINE			64
#define MCMGPU_CXL_MAX_RECORDS		(1U << 24)

struct mcmgpu_cxl_record {
	__u64 addr;
	__u32 kind;		/* MCMGPU_CXL_REC_* */
	__u32 arg;
};

/* The root ports' queue logic (paper §III, Fig 9d's ablation). */
#define MCMGPU_CXL_SR_OFF		0	/* "CXL": demand reads only */
#define MCMGPU_CXL_SR_NAIVE		1	/* a 64 B MemSpecRd per load */
#define MCMGPU_CXL_SR_DYN		2	/* DevLoad-sized, at the load */
#define MCMGPU_CXL_SR_FULL		3	/* DYN + the address window */
#define MCMGPU_CXL_SR_MAX		4	/* always 1 KiB at the load */
#define MCMGPU_CXL_SR_MODES		5

struct mcmgpu_cxl_sim_config {
	__u32 sr_mode;		/* MCMGPU_CXL_SR_* */
	__u32 ds;		/* 1: deterministic store */
	__u32 ctrl_ns;		/* controller round trip: 80 (ours) or 250 */
	__u32 gc;		/* 1: SSD garbage collection (free-page pool) */
	__u32 local;		/* 1: the "GPU-DRAM" ideal: every line local */
	__u32 reserved[3];
};

/* Counters of one replay; times in picoseconds of virtual time. */
struct mcmgpu_cxl_sim_result {
	__u64 runtime_ps;
	__u64 loads;
	__u64 stores;
	__u64 load_latency_ps;	/* sum */
	__u64 store_latency_ps;	/* sum, as the GPU sees it */
	__u64 load_latency_max_ps;
	__u64 store_latency_max_ps;
	__u64 dram_hits;	/* demand reads found in the SSD's DRAM */
	__u64 dram_misses;
	__u64 specrd_sent;
	__u64 specrd_dropped;	/* by the endpoint (overloaded) */
	__u64 specrd_bytes;
	__u64 media_reads;
	__u64 media_programs;
	__u64 gc_runs;
	__u64 ds_staged;	/* stores kept in GPU memory for later */
	__u64 ds_flushed;
	__u64 ds_read_hits;	/* loads served from the staging buffer */
	__u64 ingress_max;	/* deepest endpoint ingress queue */
	__u64 devload_so;	/* responses that carried severe overload */
	__u64 flits;		/* on the CXL links, both ways */
	__u64 dram_joins;	/* misses that found their sector being filled */
	__u64 reserved[2];
};

/* What CXL_REPLAY writes back. */
struct mcmgpu_cxl_replay_out {
	struct mcmgpu_cxl_sim_result result;
	struct mcmgpu_record_error error;	/* on BAD_TRACE */
};

/*
 * gpu_rc.ko's control device, /dev/mcmgpu_cxlN (N = the mcmgpu device):
 * what the root complex has, and the HPA layout its decoders implement.
 */
#define MCMGPU_CXL_IOCTL_MAGIC		'X'

struct mcmgpu_cxl_port_info {
	__u8 id;		/* Port Number: the HB target ID */
	__u8 media;		/* MCMGPU_CXL_MEDIA_* (from the endpoint's DVSEC) */
	__u8 decoders;		/* endpoint decoders committed */
	__u8 reserved[5];
	__u64 capacity;		/* bytes (DVSEC Range 1 size) */
};

struct mcmgpu_cxl_info {
	__u32 ports;
	__u32 regions;		/* host bridge decoders committed */
	__u32 hb_decoders;	/* host bridge decoders the capability has */
	__u32 ep_decoders;	/* decoders of each endpoint */
	__u64 window_base;	/* GPU physical */
	__u64 window_size;
	__u64 aperture_size;	/* BAR4 */
	__u32 locked;		/* 1: decoders are locked until a reset */
	__u32 reserved;
	struct mcmgpu_cxl_port_info port[MCMGPU_CXL_MAX_PORTS];
};

/*
 * One HPA region: one host bridge decoder interleaving 'ways' root ports
 * (indices into port[], way k = ports[k]) every 'granularity' bytes, and a
 * decoder on each of those endpoints taking size / ways bytes of its DPA
 * space, after what earlier regions took there.
 */
struct mcmgpu_cxl_region {
	__u64 base;		/* HPA, 256 MiB aligned, inside the window */
	__u64 size;		/* a multiple of 256 MiB x ways */
	__u32 ways;		/* 1, 2, 4 or 8 */
	__u32 granularity;	/* bytes, a power of 2 in 256..16384 */
	__u8 ports[MCMGPU_CXL_MAX_PORTS];
};

#define MCMGPU_CXL_MAX_REGIONS		MCMGPU_CXL_HB_DECODERS

/*
 * Replace the layout: decoders of the current one are reset (newest
 * first), the request is checked whole before any register is written
 * (EINVAL and 'error' names the region and field), then the endpoint
 * decoders and the host bridge's are committed in order, each polled up
 * to 20 ms (EIO: the device refused, ETIMEDOUT: no answer; both roll the
 * new layout back). nregions 0 asks for the default: one 1-way region per
 * root port, ascending from the window's base, as the paper's firmware
 * sets them up. EBUSY: the current decoders are locked.
 */
struct mcmgpu_cxl_setup {
	__u32 flags;		/* MCMGPU_CXL_SETUP_* */
	__u32 nregions;
	struct mcmgpu_cxl_region region[MCMGPU_CXL_MAX_REGIONS];
	char error[96];		/* out: "region N: field: problem" */
};

#define MCMGPU_CXL_SETUP_LOCK		(1U << 0)	/* Lock On Commit */

/* Where the device's decoders send an HPA (its decode probe). */
struct mcmgpu_cxl_decode {
	__u64 hpa;		/* in */
	__u32 port;		/* out: port index, or MCMGPU_CXL_PROBE_MISS */
	__u32 reserved;
	__u64 dpa;		/* out */
};

#define MCMGPU_CXL_IOCTL_INFO \
	_IOR(MCMGPU_CXL_IOCTL_MAGIC, 0x00, struct mcmgpu_cxl_info)
#define MCMGPU_CXL_IOCTL_SETUP \
	_IOWR(MCMGPU_CXL_IOCTL_MAGIC, 0x01, struct mcmgpu_cxl_setup)
#define MCMGPU_CXL_IOCTL_DECODE \
	_IOWR(MCMGPU_CXL_IOCTL_MAGIC, 0x02, struct mcmgpu_cxl_decode)
/* Reset every decoder, newest first (EBUSY when locked). */
#define MCMGPU_CXL_IOCTL_TEARDOWN	_IO(MCMGPU_CXL_IOCTL_MAGIC, 0x03)

/*
 * Replay an SR/DS trace on the device, through the committed layout:
 * EINVAL with 'error' naming the record or field the device refused.
 */
struct mcmgpu_cxl_replay {
	__u64 records_ptr;	/* struct mcmgpu_cxl_record[count] */
	__u64 count;
	__u64 result_ptr;	/* struct mcmgpu_cxl_sim_result, written */
	struct mcmgpu_cxl_sim_config config;
	struct mcmgpu_record_error error;	/* out */
};

#define MCMGPU_CXL_IOCTL_REPLAY \
	_IOWR(MCMGPU_CXL_IOCTL_MAGIC, 0x04, struct mcmgpu_cxl_replay)

/* One HDM decoder as its registers say. */
struct mcmgpu_cxl_decoder {
	__u64 base;
	__u64 size;
	__u64 skip;		/* endpoints: DPA skip */
	__u32 ways;		/* 0: a reserved IW encoding */
	__u32 granularity;	/* bytes; 0: a reserved IG encoding */
	__u32 ctrl;		/* the Control register */
	__u8 targets[8];	/* host bridge: port IDs of ways 0..7 */
	__u8 committed;
	__u8 locked;
	__u8 error;		/* Error Not Committed */
	__u8 reserved;
};

/* Every decoder: the host bridge's, then each endpoint's. */
struct mcmgpu_cxl_decoders {
	struct mcmgpu_cxl_decoder hb[MCMGPU_CXL_HB_DECODERS];
	struct mcmgpu_cxl_decoder ep[MCMGPU_CXL_MAX_PORTS][MCMGPU_CXL_EP_DECODERS];
};

#define MCMGPU_CXL_IOCTL_DECODERS \
	_IOR(MCMGPU_CXL_IOCTL_MAGIC, 0x05, struct mcmgpu_cxl_decoders)

#endif /* MCMGPU_CXL_H */
