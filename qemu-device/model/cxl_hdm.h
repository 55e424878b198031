/*
 * CXL HDM decoders (CXL 3.1 §8.2.4.20; notes cxlgpu.md §4): the commit
 * checks and the two decode stages of the GPU's CXL root complex. The host
 * bridge picks a root port from the HPA (interleave way = HPA bits
 * [IG+8+IW-1 : IG+8]), the endpoint turns the HPA into a device physical
 * address (DPA). Freestanding: shared by the QEMU device, the tool and the
 * host tests. Our components interleave 1, 2, 4 or 8 ways (no 3/6/12/16:
 * the capability bits say so), at 256 B..16 KiB.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef CXL_HDM_H
#define CXL_HDM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "mcmgpu_cxl.h"

/* The most a component may have (spec's Decoder Count encoding 0xC). */
#define CXL_HDM_MAX_DECODERS    32

struct cxl_hdm_decoder {
    uint64_t base;          /* HPA, 256 MiB aligned */
    uint64_t size;
    uint32_t ctrl;          /* the Control register */
    uint64_t target;        /* HB: target list, byte k = way k; EP: DPA skip */
    uint64_t dpa_base;      /* EP: where it starts in DPA, latched at commit */
};

struct cxl_hdm {
    bool host_bridge;       /* else an endpoint */
    unsigned decoders;
    unsigned targets;       /* HB: Target Count; EP: 0 */
    uint32_t global_ctrl;
    struct cxl_hdm_decoder d[CXL_HDM_MAX_DECODERS];
};

/* Ways from the IW field: 1, 2, 4, 8, or 0 for an encoding we reserve. */
unsigned cxl_hdm_ways(uint32_t ctrl);
/* Bytes from the IG field: 256..16384, or 0 for a reserved encoding. */
uint64_t cxl_hdm_granularity(uint32_t ctrl);
/*
 * The Decoder Count field for n decoders: 1, 2..16 even, 20, 24, 28 or 32
 * (CXL 3.1 §8.2.4.20.1; cxl_hdm_count_valid says which n). Linux 6.1
 * decodes the field as 2 x value, so it sees 18..24 for 20..32.
 */
uint32_t cxl_hdm_count_enc(unsigned n);
bool cxl_hdm_count_valid(unsigned n);

/*
 * Where the endpoint's decoder n would start in DPA space if it committed
 * now (spec §8.2.4.20.13): after the DPA range of decoder n - 1 (as that
 * one latched it, if committed) and n's skip. A committed decoder decodes
 * from the base it latched, so a lower decoder uncommitted and rewritten
 * later does not move it.
 */
uint64_t cxl_hdm_dpa_base(const struct cxl_hdm *ep, unsigned n);
/* Decoder n passed its commit check: Committed, and its DPA base latched. */
void cxl_hdm_set_committed(struct cxl_hdm *h, unsigned n);

/* What the commit of decoder n must be checked against. */
struct cxl_hdm_limits {
    const uint8_t *port_ids;    /* HB: the root ports' IDs */
    unsigned ports;
    uint64_t window_base;       /* HB: the CXL window in HPA space */
    uint64_t window_size;
    uint64_t capacity;          /* EP: media bytes */
};

/*
 * The checks at Commit 0→1 (always applied, Lock On Commit or not): NULL
 * when decoder n may commit, else why not, for the guest-error log.
 */
const char *cxl_hdm_commit_check(const struct cxl_hdm *h, unsigned n,
                                 const struct cxl_hdm_limits *lim);

/* The committed decoder whose non-empty range holds hpa, or -1. */
int cxl_hdm_find(const struct cxl_hdm *h, uint64_t hpa);
/* HB: the target port ID for hpa; false when no decoder maps it. */
bool cxl_hdm_hb_route(const struct cxl_hdm *hb, uint64_t hpa,
                      uint8_t *port_id);
/* EP: the DPA of hpa; false when decoding is off or nothing maps it. */
bool cxl_hdm_ep_translate(const struct cxl_hdm *ep, uint64_t hpa,
                          uint64_t *dpa);

/*
 * The whole root complex as decode sees it: the host bridge, and each
 * root port's ID, endpoint decoders and media capacity.
 */
struct cxl_hdm_tree {
    struct cxl_hdm hb;
    struct cxl_hdm ep[MCMGPU_CXL_MAX_PORTS];
    uint8_t port_ids[MCMGPU_CXL_MAX_PORTS];
    uint64_t capacity[MCMGPU_CXL_MAX_PORTS];
    unsigned ports;
};

/*
 * len bytes at hpa through the host bridge and then the endpoint: the
 * port index and DPA; false when a decoder misses or the bytes pass the
 * endpoint's capacity.
 */
bool cxl_hdm_tree_route(const struct cxl_hdm_tree *t, uint64_t hpa,
                        unsigned len, unsigned *port, uint64_t *dpa);

/*
 * For a model off the device (the tool's --host replays, host tests): an
 * empty tree of ports endpoints with these capacities, its IDs the
 * device's, and its window (the capacities' sum rounded up to a power of
 * 2, as the device sizes it) in *window_size.
 */
void cxl_hdm_tree_init(struct cxl_hdm_tree *t, unsigned ports,
                       const uint64_t *capacity, uint64_t *window_size);

/*
 * Commit regions as gpu_rc.ko does (each region's endpoint decoders, in
 * region order, then one host bridge decoder a region), each under the
 * device's commit checks: NULL, or why region *bad cannot be committed.
 */
const char *cxl_hdm_tree_commit(struct cxl_hdm_tree *t,
                                const struct mcmgpu_cxl_region *r,
                                unsigned nregions, uint64_t window_size,
                                unsigned *bad);

#endif /* CXL_HDM_H */
