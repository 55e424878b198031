/*
 * CXL HDM decoders: commit checks and decode (see cxl_hdm.h).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "cxl_hdm.h"

unsigned cxl_hdm_ways(uint32_t ctrl)
{
    uint32_t iw = FIELD_GET(MCMGPU_HDM_CTRL_IW_MASK, ctrl);

    return iw <= 3 ? 1u << iw : 0;
}

uint64_t cxl_hdm_granularity(uint32_t ctrl)
{
    uint32_t ig = FIELD_GET(MCMGPU_HDM_CTRL_IG_MASK, ctrl);

    return ig <= 6 ? 256ull << ig : 0;
}

uint32_t cxl_hdm_count_enc(unsigned n)
{
    return n <= 1 ? 0 : n <= 16 ? n / 2 : 9 + (n - 20) / 4;
}

bool cxl_hdm_count_valid(unsigned n)
{
    return n == 1 || (n >= 2 && n <= 16 && n % 2 == 0) ||
           (n >= 20 && n <= CXL_HDM_MAX_DECODERS && n % 4 == 0);
}

static bool committed(const struct cxl_hdm_decoder *d)
{
    return d->ctrl & MCMGPU_HDM_CTRL_COMMITTED;
}

static uint64_t dpa_len(const struct cxl_hdm_decoder *d)
{
    unsigned ways = cxl_hdm_ways(d->ctrl);

    return ways ? d->size / ways : 0;
}

uint64_t cxl_hdm_dpa_base(const struct cxl_hdm *ep, unsigned n)
{
    uint64_t base = 0;
    unsigned m;

    if (n > 0 && committed(&ep->d[n - 1])) {
        return ep->d[n - 1].dpa_base + dpa_len(&ep->d[n - 1]) +
               ep->d[n].target;
    }
    for (m = 0; m <= n; m++) {
        base += ep->d[m].target + (m < n ? dpa_len(&ep->d[m]) : 0);
    }
    return base;
}

void cxl_hdm_set_committed(struct cxl_hdm *h, unsigned n)
{
    h->d[n].dpa_base = h->host_bridge ? 0 : cxl_hdm_dpa_base(h, n);
    h->d[n].ctrl |= MCMGPU_HDM_CTRL_COMMITTED;
}

const char *cxl_hdm_commit_check(const struct cxl_hdm *h, unsigned n,
                                 const struct cxl_hdm_limits *lim)
{
    const struct cxl_hdm_decoder *d = &h->d[n];
    unsigned ways = cxl_hdm_ways(d->ctrl);
    unsigned i, j;

    if (n > 0 && !committed(&h->d[n - 1])) {
        return "out of order: the decoder below is not committed";
    }
    /* In order both ways: a decoder above may not be committed yet. */
    for (i = n + 1; i < h->decoders; i++) {
        if (committed(&h->d[i])) {
            return "out of order: a decoder above is committed";
        }
    }
    if (!cxl_hdm_granularity(d->ctrl)) {
        return "reserved interleave granularity (IG > 6)";
    }
    if (!ways) {
        return "reserved or unsupported interleave ways";
    }
    if (d->base + d->size < d->base) {
        return "base + size wraps around";
    }
    if (n > 0 && d->base < h->d[n - 1].base + h->d[n - 1].size) {
        return "overlaps the decoder below (bases must ascend)";
    }
    if (h->host_bridge) {
        if (ways > h->targets) {
            return "more ways than the Target Count";
        }
        for (i = 0; i < ways; i++) {
            uint8_t id = d->target >> (8 * i);
            bool known = false;

            for (j = 0; j < lim->ports; j++) {
                known |= lim->port_ids[j] == id;
            }
            /* A zero-size decoder routes nothing: any target will do. */
            if (!known && d->size) {
                return "target is not a root port ID";
            }
            for (j = 0; j < i; j++) {
                if ((uint8_t)(d->target >> (8 * j)) == id) {
                    return "targets are not distinct";
                }
            }
        }
        if (d->size && (d->base < lim->window_base ||
                        d->base + d->size >
                        lim->window_base + lim->window_size)) {
            return "range outside the CXL window";
        }
    } else {
        uint64_t dpa = cxl_hdm_dpa_base(h, n), len = d->size / ways;

        /* Written so that no sum wraps (skips are guest-controlled). */
        if (len > lim->capacity || dpa > lim->capacity - len ||
            dpa < d->target) {
            return "DPA range beyond the endpoint's capacity";
        }
    }
    return NULL;
}

int cxl_hdm_find(const struct cxl_hdm *h, uint64_t hpa)
{
    unsigned n;

    for (n = 0; n < h->decoders; n++) {
        const struct cxl_hdm_decoder *d = &h->d[n];

        if (committed(d) && d->size && hpa >= d->base &&
            hpa - d->base < d->size) {
            return n;
        }
    }
    return -1;
}

/* log2 of the ways and granularity of a committed (so valid) decoder. */
static unsigned iw_of(uint32_t ctrl)
{
    return FIELD_GET(MCMGPU_HDM_CTRL_IW_MASK, ctrl);
}

static unsigned ig_shift(uint32_t ctrl)
{
    return FIELD_GET(MCMGPU_HDM_CTRL_IG_MASK, ctrl) + 8;
}

bool cxl_hdm_hb_route(const struct cxl_hdm *hb, uint64_t hpa,
                      uint8_t *port_id)
{
    int n = cxl_hdm_find(hb, hpa);
    unsigned way;

    if (n < 0) {
        return false;
    }
    /* From the absolute HPA: bases are 256 MiB aligned, IG <= 16 KiB. */
    way = (hpa >> ig_shift(hb->d[n].ctrl)) &
          ((1u << iw_of(hb->d[n].ctrl)) - 1);
    *port_id = hb->d[n].target >> (8 * way);
    return true;
}

bool cxl_hdm_ep_translate(const struct cxl_hdm *ep, uint64_t hpa,
                          uint64_t *dpa)
{
    int n;
    uint64_t off;
    unsigned shift, iw;

    if (!(ep->global_ctrl & MCMGPU_HDM_GLOBAL_ENABLE)) {
        return false;
    }
    n = cxl_hdm_find(ep, hpa);
    if (n < 0) {
        return false;
    }
    off = hpa - ep->d[n].base;
    shift = ig_shift(ep->d[n].ctrl);
    iw = iw_of(ep->d[n].ctrl);
    /* Drop the way bits: the granule's offset, then the granule index. */
    *dpa = ep->d[n].dpa_base + (off & ((1ull << shift) - 1)) +
           ((off >> (shift + iw)) << shift);
    return true;
}

bool cxl_hdm_tree_route(const struct cxl_hdm_tree *t, uint64_t hpa,
                        unsigned len, unsigned *port, uint64_t *dpa)
{
    uint8_t id;
    unsigned p;

    if (!cxl_hdm_hb_route(&t->hb, hpa, &id)) {
        return false;
    }
    for (p = 0; p < t->ports && t->port_ids[p] != id; p++) {
        /* find the port */
    }
    if (p == t->ports || !cxl_hdm_ep_translate(&t->ep[p], hpa, dpa) ||
        len > t->capacity[p] || *dpa > t->capacity[p] - len) {
        return false;
    }
    *port = p;
    return true;
}

void cxl_hdm_tree_init(struct cxl_hdm_tree *t, unsigned ports,
                       const uint64_t *capacity, uint64_t *window_size)
{
    uint64_t total = 0, w = 1;
    unsigned p;

    *t = (struct cxl_hdm_tree) {
        .hb = { .host_bridge = true, .decoders = MCMGPU_CXL_HB_DECODERS,
                .targets = ports },
        .ports = ports,
    };
    for (p = 0; p < ports; p++) {
        t->ep[p].decoders = MCMGPU_CXL_EP_DECODERS;
        t->port_ids[p] = MCMGPU_CXL_PORT_ID(p);
        t->capacity[p] = capacity[p];
        total += capacity[p];
    }
    while (w < total) {
        w <<= 1;
    }
    *window_size = w;
}

#define CXL_HDM_ALIGN   (256ull << 20)

/* Encodings: log2 of the field's unit, or -1 when not a power of 2. */
static int log2_exact(uint64_t v)
{
    int k = 0;

    if (!v || (v & (v - 1))) {
        return -1;
    }
    while (v >>= 1) {
        k++;
    }
    return k;
}

/* Commit decoder n of h as the device would: NULL, or why not. */
static const char *tree_commit_one(struct cxl_hdm *h, unsigned n,
                                   const struct mcmgpu_cxl_region *r,
                                   uint32_t ctrl, uint64_t target,
                                   const struct cxl_hdm_limits *lim)
{
    const char *why;

    if (n >= h->decoders) {
        return "no free decoder left";
    }
    h->d[n] = (struct cxl_hdm_decoder) {
        .base = r->base, .size = r->size, .ctrl = ctrl, .target = target,
    };
    why = cxl_hdm_commit_check(h, n, lim);
    if (why) {
        h->d[n] = (struct cxl_hdm_decoder) { 0 };
        return why;
    }
    cxl_hdm_set_committed(h, n);
    return NULL;
}

const char *cxl_hdm_tree_commit(struct cxl_hdm_tree *t,
                                const struct mcmgpu_cxl_region *r,
                                unsigned nregions, uint64_t window_size,
                                unsigned *bad)
{
    struct cxl_hdm_limits lim = {
        .port_ids = t->port_ids, .ports = t->ports,
        .window_base = MCMGPU_CXL_WINDOW_BASE, .window_size = window_size,
    };
    unsigned used[MCMGPU_CXL_MAX_PORTS] = { 0 };
    unsigned i, k, p;
    const char *why;

    *bad = 0;
    if (nregions > t->hb.decoders) {
        return "more regions than host bridge decoders";
    }
    for (p = 0; p < t->ports; p++) {
        t->ep[p].global_ctrl = MCMGPU_HDM_GLOBAL_ENABLE;
    }
    for (i = 0; i < nregions; i++) {
        int ig = log2_exact(r[i].granularity) - 8;
        int iw = log2_exact(r[i].ways);
        uint32_t ctrl;
        uint64_t targets = 0;

        *bad = i;

        if (ig < 0 || ig > 6 || iw < 0 || iw > 3) {
            return "ways or granularity has no encoding";
        }
        /* What the registers cannot hold, gpu_rc.ko refuses. */
        if ((r[i].base | r[i].size) % CXL_HDM_ALIGN ||
            r[i].size % (CXL_HDM_ALIGN * r[i].ways)) {
            return "base or size not a multiple of 256 MiB (x ways)";
        }
        ctrl = FIELD_PREP(MCMGPU_HDM_CTRL_IG_MASK, ig) |
               FIELD_PREP(MCMGPU_HDM_CTRL_IW_MASK, iw) |
               MCMGPU_HDM_CTRL_HOSTONLY;
        for (k = 0; k < r[i].ways; k++) {
            unsigned j;

            p = r[i].ports[k];
            if (p >= t->ports) {
                return "a port that does not exist";
            }
            for (j = 0; j < k; j++) {
                if (r[i].ports[j] == p) {
                    return "a port named twice in one region";
                }
            }
            lim.capacity = t->capacity[p];
            why = tree_commit_one(&t->ep[p], used[p]++, &r[i], ctrl, 0, &lim);
            if (why) {
                return why;
            }
            targets |= (uint64_t)t->port_ids[p] << (8 * k);
        }
        why = tree_commit_one(&t->hb, i, &r[i], ctrl, targets, &lim);
        if (why) {
            return why;
        }
    }
    return NULL;
}
