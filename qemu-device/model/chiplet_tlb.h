/*
 * Barre, the device's side (Barre Chord §III-A, Table II): per chiplet an
 * L1 TLB (64 entries, fully associative), an L2 TLB (512 entries, 16-way)
 * and 16 MSHRs; each chiplet runs its accesses in trace order in virtual
 * cycles, and every L2 miss becomes an ATS request with a timestamp.
 * Freestanding: shared by the QEMU device, the tool (--host) and the host
 * tests.
 *
 * Time: chiplet_tlb_run(until) runs every event before cycle until. At one
 * cycle, ATS responses arrive first (in tag order), then chiplets issue
 * (chiplet order). A chiplet issues one access a cycle: an L1 or L2 hit completes
 * (L2 after MCMGPU_BARRE_L2_CYCLES), a miss on a VPN already missing joins
 * its MSHR, another miss takes a free MSHR and sends a request after the
 * L2 lookup, and with no MSHR free the chiplet waits for a response.
 * With F-Barre (chiplet_tlb_fbarre), a miss first tries the package
 * (fbarre.c): a translation found there arrives like a response, without a
 * request; a failed attempt delays the request by its cost.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef CHIPLET_TLB_H
#define CHIPLET_TLB_H

#include "mcmgpu_compat.h"
#include "mcmgpu_barre.h"
#include "fbarre.h"

#define CHIPLET_TLB_L2_SETS (MCMGPU_BARRE_L2_ENTRIES / MCMGPU_BARRE_L2_WAYS)
/* Accesses one MSHR holds; more stall. */
#define CHIPLET_TLB_MSHR_WAITERS 8
/* An answer from the chiplet's own TLB. */
#define CHIPLET_TLB_LOCAL        1
/* ... from a peer's. */
#define CHIPLET_TLB_REMOTE       2

struct chiplet_tlb_access {
    u64 vpn;
    u32 offset;                     /* byte in the page */
    u8 chiplet;
    u8 write;
};

struct chiplet_tlb_request {
    u64 tag;
    u64 vpn;
    u64 issue;                      /* cycle it leaves the chiplet */
    u8 chiplet;
    u8 write;
};

struct chiplet_tlb_reply {
    u64 tag;
    u64 pfn;
    u64 arrive;                     /* cycle it reaches the chiplet */
    u64 coal;                       /* F-Barre: the PTE's coalescing bits */
    struct mcmgpu_pec_entry pec;    /* F-Barre: the object's, if valid */
    u8 fault;
    u8 writable;
    u8 in_package;      /* F-Barre's: CHIPLET_TLB_LOCAL or CHIPLET_TLB_REMOTE */
};

struct chiplet_tlb_stats {
    u64 accesses;
    u64 l1_hits;
    u64 l2_hits;
    u64 l2_misses;                  /* each one an ATS request */
    u64 mshr_merges;                /* misses on a VPN already missing */
    u64 faults;                     /* accesses whose translation failed */
    u64 stall_cycles;               /* chiplets waiting for an MSHR */
    u64 ats_round_trip;             /* sum of arrive - issue */
    u64 shootdowns;
    u64 modeled_cycles;             /* last access done */
    u64 ats_sent;                   /* requests that left for the IOMMU */
    u64 inpackage_mismatches;       /* in-package answers != true walk */
};

struct chiplet_tlb_entry {
    u64 vpn;
    u64 pfn;
    u64 coal;                       /* L2, F-Barre: the PTE's group bits */
    u64 lru;
    u8 valid;
    u8 writable;
};

struct chiplet_tlb_mshr {
    u64 tag;
    u64 vpn;
    u64 issue;                      /* when its request leaves (or left) */
    u32 nwait;
    u32 wait[CHIPLET_TLB_MSHR_WAITERS]; /* indexes into the chiplet's accesses */
    u8 busy;
    u8 write;                       /* a waiter writes */
    u8 deferred;                    /* request not sent until issue */
};

struct chiplet_tlb_chiplet {
    const struct chiplet_tlb_access *acc;
    const u32 *order;               /* this chiplet's access indexes */
    u64 nacc, next;
    u64 t;                          /* cycle it can issue again */
    bool stalled;
    struct chiplet_tlb_entry l1[MCMGPU_BARRE_L1_ENTRIES];
    struct chiplet_tlb_entry l2[MCMGPU_BARRE_L2_ENTRIES];
    struct chiplet_tlb_mshr mshr[MCMGPU_BARRE_MSHRS];
    u64 lru_clock;
};

/*
 * The data side: a translated access reads or writes GPU memory at global
 * PFN pfn, byte offset (the device writes the access's own signature).
 */
typedef void (*chiplet_tlb_mem_fn)(void *priv,
                                   const struct chiplet_tlb_access *a, u64 pfn);
/* A request for the IOMMU. */
typedef void (*chiplet_tlb_request_fn)(void *priv,
                                       const struct chiplet_tlb_request *r);
/* The true walk of vpn (its leaf PTE, 0 if none), to check F-Barre. */
typedef u64 (*chiplet_tlb_walk_fn)(void *priv, u64 vpn);

struct chiplet_tlbs {
    u32 chiplets;
    struct chiplet_tlb_chiplet chip[MCMGPU_MAX_CHIPLETS];
    u64 now;
    u64 next_tag;
    struct chiplet_tlb_reply *replies;       /* delivered, not yet arrived */
    u32 nreplies, cap_replies;
    struct chiplet_tlb_stats stats;
    chiplet_tlb_mem_fn mem;
    chiplet_tlb_request_fn request;
    chiplet_tlb_walk_fn walk;                /* optional */
    void *priv;
    struct fbarre_state fb;             /* F-Barre; fb.cfg.sharing off: Barre */
};

/* replies: storage for BW-style in-flight replies (chiplets * MSHRS). */
void chiplet_tlb_init(struct chiplet_tlbs *d, u32 chiplets,
                      struct chiplet_tlb_reply *replies,
                      chiplet_tlb_request_fn request, chiplet_tlb_mem_fn mem,
                      void *priv);
/*
 * F-Barre's in-package translation with cfg (frames: per chiplet, for the
 * global PFN map); walk, if not NULL, checks every answer made in the
 * package. -EINVAL for a bad cfg.
 */
int chiplet_tlb_fbarre(struct chiplet_tlbs *d,
                       const struct fbarre_config *cfg, u64 frames,
              chiplet_tlb_walk_fn walk);
/*
 * A phase: the accesses acc[0..n) (each chiplet runs its own in order),
 * starting at the current cycle. order: n u32 of storage. The previous
 * phase must be done.
 */
void chiplet_tlb_phase(struct chiplet_tlbs *d,
                       const struct chiplet_tlb_access *acc, u64 n,
              u32 *order);
/* An ATS response; -EINVAL for a tag never sent, already answered or late. */
int chiplet_tlb_deliver(struct chiplet_tlbs *d,
                        const struct chiplet_tlb_reply *r);
void chiplet_tlb_run(struct chiplet_tlbs *d, u64 until);
/* Every access of the phase done. */
bool chiplet_tlb_done(const struct chiplet_tlbs *d);
/* The next cycle something happens, ~0 if nothing can without a reply. */
u64 chiplet_tlb_next_event(const struct chiplet_tlbs *d);
/* The device's fields of a replay's counters. */
void chiplet_tlb_export_stats(const struct chiplet_tlbs *d,
                              struct mcmgpu_barre_stats *st);
/* Drops every TLB entry, filter and chiplet PEC entry (a free's shootdown). */
void chiplet_tlb_shootdown(struct chiplet_tlbs *d);

#endif /* CHIPLET_TLB_H */
