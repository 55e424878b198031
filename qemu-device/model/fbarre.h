/*
 * F-Barre, in-package translation (Barre Chord §V-A, Figs 11-12): each
 * chiplet keeps a local coalescing filter (LCF: the VPNs in its L2 TLB),
 * one remote filter per peer (RCF_j: chiplet j's L2 TLB VPNs and all
 * their coalescing VPNs) and a PEC buffer filled by ATS responses. An L2
 * TLB miss first tries to compute the translation from a sibling in its
 * own TLB, then from the peer whose RCF hits, and only then asks the
 * IOMMU. Freestanding: the device's chiplets (chiplet_tlb.c) in QEMU, the
 * tool's --host replay and the host tests.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef FBARRE_H
#define FBARRE_H

#include "mcmgpu_compat.h"
#include "mcmgpu_barre.h"

#define FBARRE_WAYS             4       /* fingerprints a row (Table II) */
#define FBARRE_MAX_ROWS         1024
#define FBARRE_FP_MASK          0x1ff   /* 9-bit fingerprints, 0 = empty */
#define FBARRE_MAX_KICKS        128     /* cuckoo relocations before giving up */
#define FBARRE_PEC_CYCLES       1       /* a chiplet's PFN calculation */
#define FBARRE_MSG_RING         65536   /* filter updates on the mesh at once */

/*
 * Chiplets a state holds: 16 (the PEC's count mode) on the host; the
 * device, at most MCMGPU_MAX_CHIPLETS, builds with 8 (meson.build), so its
 * contexts do not carry 1.5 MiB of filters no chiplet uses.
 */
#ifndef FBARRE_MAX_CHIPLETS
#define FBARRE_MAX_CHIPLETS     MCMGPU_PEC_MAX_CHIPLETS
#endif

/* A cuckoo filter with deletion (a multiset of fingerprints). */
struct fbarre_filter {
    u16 slot[FBARRE_MAX_ROWS][FBARRE_WAYS];
};

struct fbarre_chiplet {
    /* filter[self] is the LCF; filter[j] is RCF_j. */
    struct fbarre_filter filter[FBARRE_MAX_CHIPLETS];
    struct mcmgpu_pec_entry pec[MCMGPU_BARRE_PEC_ENTRIES];
};

/* A filter-update message on its way (1-bit op, sender, VPN). */
struct fbarre_msg {
    u64 vpn;
    u64 arrive;             /* cycle it reaches chiplet to */
    u8 from, to, add;
};

struct fbarre_config {
    bool sharing;           /* in-package translation on */
    u32 rows;               /* 256, 512 or 1024 */
    u32 drop_ppm;           /* filter messages lost, per million */
    u32 run;                /* longest merged run to look for (1..4) */
    u64 seed;               /* of the message-loss draws */
};

struct fbarre_stats {
    u64 lookups;                /* L2 misses that tried the package */
    u64 filter_probes;          /* LCF and RCF lookups */
    u64 local_hits;
    u64 remote_requests;        /* asked a peer whose RCF hit */
    u64 remote_hits;
    u64 remote_false_positives; /* the peer could not translate */
    u64 lcf_hits;               /* LCF said yes (local or at a peer) */
    u64 lcf_true_positives;     /* ... and the TLB held the VPN */
    u64 filter_messages;
    u64 filter_messages_dropped;    /* lost, or no room on the mesh */
    u64 filter_overflows;       /* a fingerprint found no room */
    u64 tlb_reads;              /* L2 TLB reads for a sibling */
};

/*
 * The counters as the GPU core and the Barre replay name them (struct
 * gpu_core_stats's fbarre, struct mcmgpu_barre_stats): l2_misses =
 * local_hits + remote_hits + ats_requests_sent; inpackage_lookups =
 * l2_misses.
 */
struct gpu_core_fbarre_stats {
    u64 l2_misses;              /* misses that took an L2 TLB MSHR */
    u64 ats_requests_sent;      /* those the package could not answer */
    u64 inpackage_lookups;
    u64 local_hits;
    u64 remote_requests;
    u64 remote_hits;
    u64 remote_false_positives;
    u64 lcf_hits;
    u64 lcf_true_positives;
    u64 filter_messages;
    u64 filter_messages_dropped;
    u64 filter_overflows;
    u64 sibling_tlb_reads;
    u64 filter_probes;
    u64 inpackage_mismatches;   /* answers != the true walk */
};

struct fbarre_state {
    struct fbarre_config cfg;
    u32 chiplets;
    __u64 base[MCMGPU_PEC_MAX_CHIPLETS]; /* global PFN map */
    u64 rng;
    struct fbarre_chiplet chip[FBARRE_MAX_CHIPLETS];
    struct fbarre_msg msg[FBARRE_MSG_RING];     /* in flight, in arrival order */
    u32 msg_head, msg_count;
    struct fbarre_stats stats;
};

/* How a chiplet reads an L2 TLB entry: its leaf PTE, 0 if absent. */
typedef u64 (*fbarre_tlb_read_fn)(void *priv, u32 chiplet, u64 vpn);

/* An in-package answer. */
struct fbarre_result {
    u64 pte;                    /* the missed VPN's leaf PTE */
    struct mcmgpu_pec_entry pec;    /* its object's, if the answerer had it */
    u64 latency;                /* cycles after the L2 lookup */
    bool hit;
    bool remote;                /* a peer answered */
};

/* Rows 256/512/1024, run 1..4 and drop <= 10^6: the one check of a config. */
bool fbarre_config_valid(const struct fbarre_config *cfg);
/* -EINVAL when !fbarre_config_valid() or the chiplet count is out of range. */
int fbarre_init(struct fbarre_state *f, const struct fbarre_config *cfg, u32 chiplets,
            u64 frames);
/*
 * Shootdown (§VI): every filter and every chiplet's PEC buffer empty, and
 * the updates still on the mesh dropped (they describe dropped entries).
 */
void fbarre_reset(struct fbarre_state *f);
/* A TLB shootdown (§VI): every LCF and RCF empty, messages dropped. */
void fbarre_reset_filters(struct fbarre_state *f);
/*
 * An ATS response's PEC entry joins chiplet c's buffer; false (and
 * ignored) if it names a chiplet twice or one the device lacks.
 */
bool fbarre_pec_add(struct fbarre_state *f, u32 c, const struct mcmgpu_pec_entry *e);
/*
 * Chiplet c's L2 TLB gained (add) or lost vpn, whose PTE is pte, at cycle
 * now: its LCF changes at once, the peers' RCFs when the messages arrive
 * (the mesh's latency later). now never goes back between calls.
 */
void fbarre_tlb_update(struct fbarre_state *f, u32 c, u64 vpn, u64 pte, bool add,
                   u64 now);
/*
 * The lookup flow of Fig 11 at cycle now for vpn, missed in chiplet c's
 * L2 TLB (updates that arrived by now are in the filters): local
 * coalescing, then the first peer (from c + 1 on) whose RCF hits. On a
 * miss, latency is when the ATS request can leave (after any failed
 * attempt). Every answer is verified against the TLB entry it came from.
 */
void fbarre_lookup(struct fbarre_state *f, u32 c, u64 vpn, u64 now,
               fbarre_tlb_read_fn read, void *priv, struct fbarre_result *res);

/*
 * The counters in those names (the one place they are renamed): the L2
 * misses, the requests sent and the mismatches are the caller's.
 */
void fbarre_export_stats(const struct fbarre_state *f, u64 l2_misses,
                         u64 ats_sent, u64 mismatches,
                         struct gpu_core_fbarre_stats *st);
/* And into the Barre replay's (the one copy between the two). */
void fbarre_stats_to_barre(const struct gpu_core_fbarre_stats *fb,
                           struct mcmgpu_barre_stats *st);

/* The filter itself, for the tests and the benchmark. */
void fbarre_filter_clear(struct fbarre_filter *fl);
bool fbarre_filter_has(const struct fbarre_filter *fl, u32 rows, u64 vpn);
/* false if it found no room (an item, maybe another, was lost). */
bool fbarre_filter_add(struct fbarre_filter *fl, u32 rows, u64 vpn);
/* Removes one copy of vpn's fingerprint; false if none was there. */
bool fbarre_filter_del(struct fbarre_filter *fl, u32 rows, u64 vpn);

#endif /* FBARRE_H */
