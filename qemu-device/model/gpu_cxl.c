/*
 * CXL-GPU in the GPU timing core (gpu_cxl.h): placement, the window
 * mapping, time conversion and the queue before the root ports.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "gpu_cxl.h"
#include "cxl_srds.h"

#define PS_PER_US       1000000ULL
#define NO_TAG_STORE    (~0ULL)     /* write-backs: no one waits */

struct cxl_range {
    u64 va, end;
};

struct cxl_pending {
    u64 off;
    u32 kind;           /* MCMGPU_CXL_REC_LOAD or _STORE */
    u32 tag;
};

struct gpu_cxl {
    struct srds_config scfg;
    struct srds *s;
    struct mcmgpu_cxl_sim_result res;
    gpu_cxl_alloc_fn alloc;
    gpu_cxl_free_fn free;
    void *priv;
    gpu_cxl_done_fn done;
    void *core;
    u32 mhz, ports, first_object;
    u64 window;         /* bytes: ports x GPU_CXL_PORT_BYTES */
    u64 cycle;          /* the latest cycle a call gave */
    struct cxl_range *ranges;
    u32 nranges, capranges, last;
    struct cxl_pending *pend;
    u32 phead, plen, pcap;
};

static u64 ps_of(const struct gpu_cxl *x, u64 cycle)
{
    return cycle * PS_PER_US / x->mhz;
}

/* The first cycle that starts at or after t. */
static u64 cycle_of(const struct gpu_cxl *x, u64 t)
{
    return (t * x->mhz + PS_PER_US - 1) / PS_PER_US;
}

/* 4 KiB pages round-robin over the ports, each port's pages packed. */
static bool route(void *priv, u64 off, u32 *port, u64 *dpa)
{
    const struct gpu_cxl *x = priv;
    u64 page = off / GPU_CXL_INTERLEAVE;

    if (off >= x->window) {
        return false;
    }
    *port = (u32)(page % x->ports);
    *dpa = page / x->ports * GPU_CXL_INTERLEAVE + off % GPU_CXL_INTERLEAVE;
    return true;
}

static void on_done(void *priv, u64 tag, u64 t_ps)
{
    struct gpu_cxl *x = priv;
    u64 c = cycle_of(x, t_ps);

    if (tag == NO_TAG_STORE) {
        return;
    }
    x->done(x->core, (u32)tag, c > x->cycle ? c : x->cycle);
}

struct gpu_cxl *gpu_cxl_create(const struct gpu_config *cfg,
                               gpu_cxl_alloc_fn alloc, gpu_cxl_free_fn free,
                               void *priv, gpu_cxl_done_fn done, void *core)
{
    struct gpu_cxl *x = alloc(priv, sizeof(*x));
    void *mem;
    u32 p;

    if (!x) {
        return NULL;
    }
    x->alloc = alloc;
    x->free = free;
    x->priv = priv;
    x->done = done;
    x->core = core;
    x->mhz = cfg->clock_mhz;
    x->ports = cfg->cxl_ports;
    x->first_object = cfg->cxl_first_object;
    x->window = x->ports * GPU_CXL_PORT_BYTES;
    x->scfg.sim.sr_mode = cfg->cxl_sr;
    x->scfg.sim.ds = cfg->cxl_ds;
    x->scfg.sim.ctrl_ns = cfg->cxl_ctrl_ns;
    x->scfg.sim.gc = cfg->cxl_gc;
    x->scfg.ports = x->ports;
    for (p = 0; p < x->ports; p++) {
        x->scfg.media[p] = cfg->cxl_media;
        x->scfg.capacity[p] = GPU_CXL_PORT_BYTES;
    }
    x->scfg.route = route;
    x->scfg.route_priv = x;
    mem = alloc(priv, srds_state_size(&x->scfg));
    if (!mem) {
        free(priv, x);
        return NULL;
    }
    x->s = srds_start(&x->scfg, mem, &x->res, on_done, x);
    return x;
}

void gpu_cxl_destroy(struct gpu_cxl *x)
{
    if (!x) {
        return;
    }
    x->free(x->priv, x->s);
    x->free(x->priv, x->ranges);
    x->free(x->priv, x->pend);
    x->free(x->priv, x);
}

int gpu_cxl_object(struct gpu_cxl *x, u32 index, u64 va, u64 size)
{
    u32 i;

    if (index < x->first_object || !size) {
        return 0;
    }
    if (x->nranges == x->capranges) {
        u32 cap = x->capranges ? 2 * x->capranges : 16;
        struct cxl_range *r = x->alloc(x->priv, cap * sizeof(*r));

        if (!r) {
            return -ENOMEM;
        }
        if (x->ranges) {
            memcpy(r, x->ranges, x->nranges * sizeof(*r));
            x->free(x->priv, x->ranges);
        }
        x->ranges = r;
        x->capranges = cap;
    }
    for (i = x->nranges; i && x->ranges[i - 1].va > va; i--) {
        x->ranges[i] = x->ranges[i - 1];
    }
    x->ranges[i].va = va;
    x->ranges[i].end = va + size;
    x->nranges++;
    x->last = 0;
    return 0;
}

bool gpu_cxl_holds(struct gpu_cxl *x, u64 va)
{
    u32 lo = 0, hi = x->nranges;
    const struct cxl_range *r;

    if (x->last < x->nranges) {
        r = &x->ranges[x->last];
        if (va >= r->va && va < r->end) {
            return true;
        }
    }
    while (lo < hi) {
        u32 mid = (lo + hi) / 2;

        if (x->ranges[mid].va <= va) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    if (!lo || va >= x->ranges[lo - 1].end) {
        return false;
    }
    x->last = lo - 1;
    return true;
}

static int pend_push(struct gpu_cxl *x, u32 kind, u64 off, u32 tag)
{
    if (x->plen == x->pcap) {
        u32 cap = x->pcap ? 2 * x->pcap : 64, k;
        struct cxl_pending *p = x->alloc(x->priv, cap * sizeof(*p));

        if (!p) {
            return -ENOMEM;
        }
        for (k = 0; k < x->plen; k++) {
            p[k] = x->pend[(x->phead + k) % x->pcap];
        }
        x->free(x->priv, x->pend);
        x->pend = p;
        x->pcap = cap;
        x->phead = 0;
    }
    x->pend[(x->phead + x->plen++) % x->pcap] =
        (struct cxl_pending){ off, kind, tag };
    return 0;
}

/* Queued requests go in order while the root ports take them. */
static void pend_retry(struct gpu_cxl *x)
{
    while (x->plen) {
        const struct cxl_pending *p = &x->pend[x->phead];
        u64 tag = p->kind == MCMGPU_CXL_REC_LOAD ? p->tag : NO_TAG_STORE;

        if (!srds_submit(x->s, ps_of(x, x->cycle), p->kind, p->off, tag)) {
            return;
        }
        x->phead = (x->phead + 1) % x->pcap;
        x->plen--;
    }
}

static int submit(struct gpu_cxl *x, u64 cycle, u32 kind, u64 pa, u32 tag)
{
    u64 off = (pa % x->window) & ~(u64)(MCMGPU_CXL_LINE - 1);

    if (cycle > x->cycle) {
        x->cycle = cycle;
    }
    pend_retry(x);
    if (!x->plen &&
        srds_submit(x->s, ps_of(x, x->cycle), kind, off,
                    kind == MCMGPU_CXL_REC_LOAD ? tag : NO_TAG_STORE)) {
        return 0;
    }
    return pend_push(x, kind, off, tag);
}

int gpu_cxl_load(struct gpu_cxl *x, u64 cycle, u64 pa, u32 tag)
{
    return submit(x, cycle, MCMGPU_CXL_REC_LOAD, pa, tag);
}

int gpu_cxl_store(struct gpu_cxl *x, u64 cycle, u64 pa)
{
    return submit(x, cycle, MCMGPU_CXL_REC_STORE, pa, 0);
}

int gpu_cxl_run(struct gpu_cxl *x, u64 cycle)
{
    if (cycle > x->cycle) {
        x->cycle = cycle;
    }
    srds_advance(x->s, ps_of(x, x->cycle));
    pend_retry(x);
    return 0;
}

void gpu_cxl_drain(struct gpu_cxl *x)
{
    for (;;) {
        u64 t = srds_next_event(x->s);

        if (t == UINT64_MAX) {
            if (!x->plen) {
                return;
            }
            t = ps_of(x, x->cycle + 1);     /* cannot happen: progress */
        }
        x->cycle = cycle_of(x, t) > x->cycle ? cycle_of(x, t) : x->cycle;
        srds_advance(x->s, ps_of(x, x->cycle));
        pend_retry(x);
    }
}

u64 gpu_cxl_next(const struct gpu_cxl *x)
{
    u64 t = srds_next_event(x->s), c;

    if (t == UINT64_MAX) {
        return x->plen ? x->cycle + 1 : ~0ULL;
    }
    c = cycle_of(x, t);
    return c > x->cycle ? c : x->cycle;
}

void gpu_cxl_stats(const struct gpu_cxl *x,
                   struct mcmgpu_cxl_sim_result *res)
{
    *res = x->res;
}
