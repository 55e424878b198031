/*
 * FinePack in the GPU timing core's memory path (gpu_core.h, docs/gpu.md
 * "FinePack in the core"): the remote stores of a chiplet enter its
 * remote write queue (finepack.h's partitions, one a destination) instead
 * of the per-sector link path, and leave as the configured scheme's
 * packets: p2p (each store its own posted write TLP), wc (a flushed
 * line's runs as TLPs), finepack (a flush as one packet of sub-packets)
 * or dma (the flushed bytes wait for the kernel's end, then go as one
 * bulk copy a source and destination). The core sends each packet over
 * its link servers and writes its bytes into the home L2; this file
 * decides what is sent and when, and counts it.
 *
 * Freestanding: shared by the QEMU device, the tool (--host) and the host
 * tests.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef MCMGPU_GPU_FINEPACK_H
#define MCMGPU_GPU_FINEPACK_H

#include "mcmgpu_compat.h"
#include "mcmgpu_finepack.h"
#include "gpu_config.h"

#define GPU_FP_SUBHEADER    5       /* h: finepack.h's default (1 GiB) */
#define GPU_FP_OVERHEAD     28      /* O: a TLP's bytes with ECRC */
/*
 * alt (§VI-B): what a store's own TLP adds to its sub-packet, "sequence
 * number, ECRC, and LCRC ... an additional 10-byte overhead per store"
 * (2 + 4 + 4 B, notes/finepack.md §2.2).
 */
#define GPU_FP_ALT_PER_STORE 10
/* gps: the coalescing unit, "at the cacheline granularity" (§VI-B) */
#define GPU_FP_GPS_LINE     128

/*
 * The counters; names as `mcmgpu finepack replay` uses them where they
 * mean the same. Every scheme's bytes are counted on every run (the queue
 * runs in every mode); mode says which one went on the links.
 */
struct gpu_finepack_stats {
    u64 mode;               /* enum gpu_finepack_mode */
    u64 stores;             /* contiguous runs of remote store sectors */
    u64 store_bytes;
    u64 store_pieces;       /* admitted to the queues */
    u64 stores_under_32b;   /* runs shorter than a sector (§I: > 63 %) */
    u64 loads;              /* remote loads checked against the queue */
    u64 atomics;            /* remote atomics and reductions, checked */
    u64 fences;             /* MEMBAR (not .CTA) issued */
    u64 kernels;
    /* FinePack's packets (every mode counts them) */
    u64 packets, subpackets;
    u64 wire_payload, wire_subheader, wire_overhead, wire_padding;
    u64 flushes[MCMGPU_FP_FLUSH_REASONS];
    /* The other schemes on the same stores */
    u64 plain_wire_bytes, plain_tlps;
    u64 wc_wire_bytes, wc_tlps;
    u64 dma_wire_bytes, dma_payload, dma_tlps;
    /* What the mode sent and the homes received */
    u64 link_messages;      /* transfers on the links */
    u64 link_bytes;         /* their wire bytes (egress ports) */
    u64 delivered_bytes;    /* written into the home L2s */
    u64 delivered_sectors;  /* L2 store accesses they made */
    /* gps and alt (FinePack §VI-B; counted only in those modes) */
    u64 alt_wire_bytes, alt_tlps;   /* config packets + a TLP a store */
    u64 gps_wire_bytes, gps_tlps;   /* a whole line a TLP */
    u64 gps_profiling_kernels;      /* launches before unsubscribing */
    u64 gps_subscribed_pages;       /* pages their homes have loaded */
    u64 gps_dropped_stores;         /* to unsubscribed pages: not sent */
    u64 gps_dropped_bytes;
};

/* A packet the mode sends: its writes at the destination in order. */
struct gpu_fp_packet {
    u64 wire;               /* bytes on the link */
    u32 src, dst;
    u32 head, tail;         /* writes, GPU_FP_NONE-terminated */
    u32 next;               /* ready list or free list */
    u32 pad;
};

struct gpu_fp_write {
    u64 addr;               /* the core's address at the home */
    u32 len;
    u32 next;
};

#define GPU_FP_NONE         0xffffffffu

struct gpu_fp;

typedef void *(*gpu_fp_alloc_fn)(void *priv, size_t bytes);
typedef void (*gpu_fp_free_fn)(void *priv, void *p);

/* NULL: out of memory. mode is not GPU_FP_OFF. */
struct gpu_fp *gpu_fp_create(u32 mode, u32 chiplets, gpu_fp_alloc_fn alloc,
                             gpu_fp_free_fn free, void *priv);
void gpu_fp_destroy(struct gpu_fp *f);
/* A table could not grow: the run must stop (-ENOMEM). */
bool gpu_fp_oom(const struct gpu_fp *f);

/* A remote store sector departs src for dst: mask = its bytes (bit b). */
void gpu_fp_store(struct gpu_fp *f, u32 src, u32 dst, u64 addr, u32 mask);
/*
 * p2p: a warp store's bytes in the 128 B line at line (mask: a word a
 * sector), sent at once, each contiguous run one posted write TLP.
 */
void gpu_fp_p2p_line(struct gpu_fp *f, u32 src, u32 dst, u64 line,
                     const u32 mask[GPU_LINE_BYTES / GPU_SECTOR_BYTES]);
/* A remote load (or atomic) of a sector: a queued line flushes first. */
void gpu_fp_access(struct gpu_fp *f, u32 src, u32 dst, u64 addr, bool load);
/*
 * gps: a kernel launches (its name); a chiplet's SM loads its own
 * memory at addr (the core's address, as a store's).
 */
void gpu_fp_kernel_begin(struct gpu_fp *f, const char *name);
void gpu_fp_local_load(struct gpu_fp *f, u64 addr);
/* A fence on a chiplet: its queue flushes. */
void gpu_fp_fence(struct gpu_fp *f, u32 src);
/*
 * The kernel's SMs and memory are done: every queue flushes (dma: the
 * bulk copies). The number of packets this made; when it is not 0 the
 * next call (once they are delivered) returns 0 and the kernel ends.
 */
u32 gpu_fp_kernel_end(struct gpu_fp *f);

/* The next packet to send (counted as sent), GPU_FP_NONE if none. */
u32 gpu_fp_next(struct gpu_fp *f);
const struct gpu_fp_packet *gpu_fp_packet(const struct gpu_fp *f, u32 i);
const struct gpu_fp_write *gpu_fp_write(const struct gpu_fp *f, u32 i);
/* Packet i is in the home L2: counted and freed. */
void gpu_fp_delivered(struct gpu_fp *f, u32 i, u64 bytes, u64 sectors);
void gpu_fp_stats(const struct gpu_fp *f, struct gpu_finepack_stats *st);

/*
 * Decoding: the bytes a lane writes, [va, va + width), into the masks of
 * the sorted sectors sect[0..n) (addresses in bits 63..5).
 */
void gpu_fp_lane_mask(const u64 *sect, u32 n, u64 va, u32 width,
                      u32 *masks);
/* A fence that flushes the chiplet's queue: MEMBAR or FENCE, not .CTA. */
bool gpu_fp_is_fence(const char *opcode);

#endif /* MCMGPU_GPU_FINEPACK_H */
