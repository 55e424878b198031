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

struct cxl_gc {
    u64 start, end;     /* cycles */
};

/*
 * --timeline: samples [0, n) as the events reach them, and one for every
 * event past GPU_CXL_TIMELINE_MAX. The state (ingress depths, staged
 * lines) is carried into each sample it lasts through: sample 'carried'
 * and those before it have it.
 */
struct cxl_timeline {
    u64 every;
    struct gpu_cxl_sample *s;
    u64 n, cap;
    struct gpu_cxl_sample beyond;
    u64 carried;
    u64 depth[MCMGPU_CXL_MAX_PORTS];
    u64 held;
    struct cxl_gc *gc;
    u32 ngc, capgc;
    int err;            /* -ENOMEM: a sample could not be kept */
    u64 want;           /* gpu_cxl_samples() ran: its answer */
    struct gpu_cxl_sample after;
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
    struct cxl_timeline tl;
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
    x->free(x->priv, x->tl.s);
    x->free(x->priv, x->tl.gc);
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

/* ---- --timeline ---------------------------------------------------------- */

static u64 tl_index(const struct gpu_cxl *x, u64 cycle)
{
    return cycle ? (cycle - 1) / x->tl.every : 0;
}

/*
 * Samples up to k (or every one, past the last) exist, zeroed when new;
 * false: out of memory.
 */
static bool tl_grow(struct gpu_cxl *x, u64 k)
{
    struct cxl_timeline *tl = &x->tl;

    k = k < GPU_CXL_TIMELINE_MAX ? k : GPU_CXL_TIMELINE_MAX - 1;
    if (k >= tl->cap) {
        u64 cap = tl->cap ? 2 * tl->cap : 256;
        struct gpu_cxl_sample *p;

        while (cap <= k) {
            cap *= 2;
        }
        cap = cap < GPU_CXL_TIMELINE_MAX ? cap : GPU_CXL_TIMELINE_MAX;
        p = x->alloc(x->priv, cap * sizeof(*p));
        if (!p) {
            tl->err = -ENOMEM;
            return false;
        }
        memset(p, 0, cap * sizeof(*p));
        if (tl->s) {
            memcpy(p, tl->s, tl->n * sizeof(*p));
            x->free(x->priv, tl->s);
        }
        tl->s = p;
        tl->cap = cap;
    }
    if (k >= tl->n) {
        tl->n = k + 1;
    }
    return true;
}

static struct gpu_cxl_sample *tl_at(struct gpu_cxl *x, u64 k)
{
    if (!tl_grow(x, k)) {
        return NULL;
    }
    return k < GPU_CXL_TIMELINE_MAX ? &x->tl.s[k] : &x->tl.beyond;
}

static u64 tl_depth(const struct gpu_cxl *x)
{
    u64 d = 0;
    u32 p;

    for (p = 0; p < x->ports; p++) {
        d = x->tl.depth[p] > d ? x->tl.depth[p] : d;
    }
    return d;
}

static void tl_max(struct gpu_cxl_sample *e, u64 depth, u64 held)
{
    e->ingress_max = depth > e->ingress_max ? depth : e->ingress_max;
    e->ds_held_max = held > e->ds_held_max ? held : e->ds_held_max;
}

/* The state as it is lasts through samples (carried, k]. */
static void tl_carry(struct gpu_cxl *x, u64 k)
{
    struct cxl_timeline *tl = &x->tl;
    u64 depth = tl_depth(x), j;

    if (k <= tl->carried || !tl_grow(x, k)) {
        return;
    }
    for (j = tl->carried + 1; j <= k && j < GPU_CXL_TIMELINE_MAX; j++) {
        tl_max(&tl->s[j], depth, tl->held);
    }
    if (k >= GPU_CXL_TIMELINE_MAX) {
        tl_max(&tl->beyond, depth, tl->held);
    }
    tl->carried = k;
}

static void tl_probe(void *priv, u32 what, u64 t_ps, u64 a, u64 b)
{
    struct gpu_cxl *x = priv;
    struct cxl_timeline *tl = &x->tl;
    u64 k = tl_index(x, cycle_of(x, t_ps));
    struct gpu_cxl_sample *e;

    switch (what) {
    case SRDS_PROBE_INGRESS:
    case SRDS_PROBE_STAGED:
        /* State changes come in time order: carry it, then change it. */
        tl_carry(x, k);
        e = tl_at(x, k);
        if (!e) {
            return;
        }
        if (what == SRDS_PROBE_INGRESS) {
            tl->depth[a] = b;
        } else {
            tl->held = a;
            e->ds_staged += b;
        }
        tl_max(e, tl_depth(x), tl->held);
        return;
    case SRDS_PROBE_LOAD:
        e = tl_at(x, k);
        if (e) {
            e->loads++;
            e->load_latency_ps += a;
            e->load_latency_max_ps = a > e->load_latency_max_ps ? a :
                                     e->load_latency_max_ps;
        }
        return;
    case SRDS_PROBE_STORE:
        e = tl_at(x, k);
        if (e) {
            e->stores++;
            e->store_latency_ps += a;
            e->store_latency_max_ps = a > e->store_latency_max_ps ? a :
                                      e->store_latency_max_ps;
        }
        return;
    case SRDS_PROBE_GC:
        if (tl->ngc == tl->capgc) {
            u32 cap = tl->capgc ? 2 * tl->capgc : 16;
            struct cxl_gc *g = x->alloc(x->priv, cap * sizeof(*g));

            if (!g) {
                tl->err = -ENOMEM;
                return;
            }
            if (tl->gc) {
                memcpy(g, tl->gc, tl->ngc * sizeof(*g));
                x->free(x->priv, tl->gc);
            }
            tl->gc = g;
            tl->capgc = cap;
        }
        /* The cycles it holds: from its start's to its end's last. */
        tl->gc[tl->ngc++] = (struct cxl_gc){ cycle_of(x, a),
                                             cycle_of(x, b) };
        return;
    }
}

int gpu_cxl_timeline(struct gpu_cxl *x, u64 every)
{
    if (!every) {
        return -EINVAL;
    }
    x->tl.every = every;
    srds_probe(x->s, tl_probe, x);
    return 0;
}

static void tl_add(struct gpu_cxl_sample *to, const struct gpu_cxl_sample *e)
{
    tl_max(to, e->ingress_max, e->ds_held_max);
    to->loads += e->loads;
    to->load_latency_ps += e->load_latency_ps;
    to->load_latency_max_ps = e->load_latency_max_ps >
                              to->load_latency_max_ps ?
                              e->load_latency_max_ps :
                              to->load_latency_max_ps;
    to->stores += e->stores;
    to->store_latency_ps += e->store_latency_ps;
    to->store_latency_max_ps = e->store_latency_max_ps >
                               to->store_latency_max_ps ?
                               e->store_latency_max_ps :
                               to->store_latency_max_ps;
    to->ds_staged += e->ds_staged;
}

int gpu_cxl_samples(struct gpu_cxl *x, u64 end,
                    const struct gpu_cxl_sample **samples, u64 *n,
                    struct gpu_cxl_sample *after)
{
    struct cxl_timeline *tl = &x->tl;
    u64 want, k;
    u32 i;

    if (!tl->every) {
        return -EINVAL;
    }
    if (tl->want) {
        goto out;
    }
    want = tl_index(x, end) + 1;
    if (want > GPU_CXL_TIMELINE_MAX) {
        return -E2BIG;
    }
    if (tl->err) {
        return tl->err;
    }
    tl_carry(x, want - 1);
    if (!tl_grow(x, want - 1)) {
        return -ENOMEM;
    }
    for (k = want; k < tl->n; k++) {
        tl_add(&tl->after, &tl->s[k]);
    }
    tl_add(&tl->after, &tl->beyond);
    for (i = 0; i < tl->ngc; i++) {
        u64 first = tl_index(x, tl->gc[i].start);
        u64 last = tl_index(x, tl->gc[i].end);

        for (k = first; k <= last && k < want; k++) {
            tl->s[k].gc++;
        }
        if (last >= want) {
            tl->after.gc++;
        }
    }
    tl->want = want;
out:
    *samples = tl->s;
    *n = tl->want;
    *after = tl->after;
    return 0;
}
