/*
 * F-Barre's in-package translation in the GPU timing core (gpu_core.h):
 * fbarre.c's filters, PEC buffers and lookup flow around the core's
 * per-chiplet L2 TLBs, as chiplet_tlb.c puts them around its chiplets.
 * The core calls it at four points: an L2 TLB miss that takes an MSHR
 * (gpu_fbarre_miss: the package first), an ATS reply (gpu_fbarre_reply:
 * it keeps the PTE's coalescing bits and the object's PEC entry), an L2
 * TLB fill (gpu_fbarre_fill: the filters follow the entry evicted and
 * added) and its counters (gpu_fbarre_export).
 *
 * It keeps a mirror of every L2 TLB entry as a leaf PTE (PFN, write
 * permission and coalescing bits, which the core's entries do not hold),
 * laid out as the core's sets and ways, so it reads a chiplet's TLB the
 * way chiplet_tlb.c does without touching the core's LRU.
 *
 * Freestanding: shared by the QEMU device, the tool (--host) and the
 * host tests.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef MCMGPU_GPU_FBARRE_H
#define MCMGPU_GPU_FBARRE_H

#include "mcmgpu_compat.h"
#include "gpu_config.h"
#include "fbarre.h"
#include "chiplet_tlb.h"

/* Its counters: struct gpu_core_fbarre_stats (fbarre.h). */

/* An L2 TLB entry as F-Barre sees it; pte 0: empty. */
struct gpu_fbarre_entry {
    u64 vpn;
    u64 pte;
};

/* What a translation of an L2 TLB MSHR brought: the fill's extra fields. */
struct gpu_fbarre_reply {
    u64 coal;                       /* the PTE's coalescing bits */
    struct mcmgpu_pec_entry pec;    /* the object's, if valid */
    u8 writable;
    u8 pad[7];
};

/* The true walk of vpn (its leaf PTE, 0 if none). */
typedef u64 (*gpu_fbarre_walk_fn)(void *priv, u64 vpn);

struct gpu_fbarre {
    struct fbarre_state fb;
    u32 chiplets, sets, ways, mshrs;
    struct gpu_fbarre_entry *l2;    /* chiplets x sets x ways */
    struct gpu_fbarre_reply *reply; /* chiplets x mshrs */
    gpu_fbarre_walk_fn walk;        /* optional */
    void *walk_priv;
    u64 l2_misses;
    u64 mismatches;
};

/* An in-package answer to an L2 TLB miss. */
struct gpu_fbarre_answer {
    u64 pfn;
    u64 latency;    /* cycles after the L2 lookup: the answer or the request */
    bool hit;
};

/* Entries of the mirror and replies gpu_fbarre_init() takes from cfg. */
u64 gpu_fbarre_entries(const struct gpu_config *cfg);
u64 gpu_fbarre_replies(const struct gpu_config *cfg);
/*
 * F-Barre for cfg (its fbarre_* fields; frames: a chiplet's, for the
 * global PFN map) with zeroed storage l2[gpu_fbarre_entries()] and
 * reply[gpu_fbarre_replies()]. -EINVAL for a bad configuration.
 */
int gpu_fbarre_init(struct gpu_fbarre *f, const struct gpu_config *cfg,
                    u64 frames, struct gpu_fbarre_entry *l2,
                    struct gpu_fbarre_reply *reply, gpu_fbarre_walk_fn walk,
                    void *walk_priv);
/*
 * Chiplet c missed vpn in its L2 TLB at cycle now and took MSHR mi
 * (chiplet-major, as the core numbers them). True: the package answers
 * (pfn, latency cycles after the L2 lookup, its fill fields kept for
 * mi); false: the ATS request leaves latency cycles late.
 */
bool gpu_fbarre_miss(struct gpu_fbarre *f, u32 c, u32 mi, u64 vpn, u64 now,
                     struct gpu_fbarre_answer *a);
/* The IOMMU's reply for MSHR mi: keep its coalescing bits and PEC entry. */
void gpu_fbarre_reply(struct gpu_fbarre *f, u32 mi,
                      const struct chiplet_tlb_reply *r);
/*
 * MSHR mi's translation (vpn -> pfn) filled chiplet c's L2 TLB entry
 * index (in the core's table) at cycle now, replacing what was there.
 */
void gpu_fbarre_fill(struct gpu_fbarre *f, u32 c, u32 mi, u64 index, u64 vpn,
                     u64 pfn, u64 now);
/* The counters; ats_sent: the core's ATS requests. */
void gpu_fbarre_export(const struct gpu_fbarre *f, u64 ats_sent,
                       struct gpu_core_fbarre_stats *st);

#endif /* MCMGPU_GPU_FBARRE_H */
