/*
 * UVM and GDS in the GPU timing core (gpu_uvm.h): the pages' residence,
 * the fault batches and their cost.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "gpu_uvm.h"
#include "cxl_srds.h"

#define NEVER_C         (~0ULL)
#define NO_WAITER       0xffffffffu
#define FOOTPRINT_RATIO 10      /* paper: inputs 10x the GPU's memory */

enum { PG_HOST, PG_QUEUED, PG_MIGRATING, PG_RESIDENT };

struct uvm_page {
    u64 page;
    u32 waiters;        /* first waiter, NO_WAITER if none */
    u8 used, state, dirty, pad;
};

struct uvm_waiter {
    u64 since;
    u32 id, next;
};

struct uvm_fault {
    u64 page, cycle;
};

struct gpu_uvm {
    gpu_uvm_alloc_fn alloc;
    gpu_uvm_free_fn free;
    void *priv;
    gpu_uvm_wake_fn wake;
    void *core;
    u32 mode, media, shift, batch_max, gpu_kib;
    u64 runtime_c, dma_c, bw, mhz;
    u64 cycle;
    struct uvm_page *tab;
    u32 tabcap, tabused;
    struct uvm_waiter *w;
    u32 wcap, wfree, wused;
    struct uvm_fault *q;        /* the fault buffer, in order */
    u32 qhead, qlen, qcap;
    u64 *res;                   /* resident pages, oldest migrated first */
    u32 rhead, rlen, rcap;
    u64 *batch;                 /* the batch in service */
    u32 nbatch, take;
    u64 busy_end;               /* NEVER_C: idle */
    u64 cap_pages;              /* 0 until the first batch */
    struct gpu_uvm_stats st;
};

static u64 hash_page(u64 p)
{
    p ^= p >> 33;
    p *= 0xff51afd7ed558ccdULL;
    p ^= p >> 33;
    return p;
}

static struct uvm_page *slot(struct uvm_page *tab, u32 cap, u64 page)
{
    u32 i = (u32)hash_page(page) & (cap - 1);

    while (tab[i].used && tab[i].page != page) {
        i = (i + 1) & (cap - 1);
    }
    return &tab[i];
}

static int tab_grow(struct gpu_uvm *u)
{
    u32 cap = u->tabcap ? 2 * u->tabcap : 1024, i;
    struct uvm_page *t = u->alloc(u->priv, cap * sizeof(*t));

    if (!t) {
        return -ENOMEM;
    }
    memset(t, 0, cap * sizeof(*t));
    for (i = 0; i < u->tabcap; i++) {
        if (u->tab[i].used) {
            *slot(t, cap, u->tab[i].page) = u->tab[i];
        }
    }
    u->free(u->priv, u->tab);
    u->tab = t;
    u->tabcap = cap;
    return 0;
}

static struct uvm_page *page_get(struct gpu_uvm *u, u64 page)
{
    struct uvm_page *e;

    if (2 * (u->tabused + 1) > u->tabcap && tab_grow(u)) {
        return NULL;
    }
    e = slot(u->tab, u->tabcap, page);
    if (!e->used) {
        e->used = 1;
        e->page = page;
        e->state = PG_HOST;
        e->dirty = 0;
        e->waiters = NO_WAITER;
        u->tabused++;
    }
    return e;
}

/* Grows a ring of elem-byte items, keeping their order from index 0. */
static void *ring_grow(struct gpu_uvm *u, void *ring, u32 *head, u32 len,
                       u32 *cap, size_t elem)
{
    u32 ncap = *cap ? 2 * *cap : 256, k;
    char *n = u->alloc(u->priv, ncap * elem);

    if (!n) {
        return NULL;
    }
    for (k = 0; k < len; k++) {
        memcpy(n + k * elem, (char *)ring + ((*head + k) % *cap) * elem,
               elem);
    }
    u->free(u->priv, ring);
    *head = 0;
    *cap = ncap;
    return n;
}

struct gpu_uvm *gpu_uvm_create(const struct gpu_config *cfg,
                               gpu_uvm_alloc_fn alloc, gpu_uvm_free_fn free,
                               void *priv, gpu_uvm_wake_fn wake,
                               void *core)
{
    struct gpu_uvm *u = alloc(priv, sizeof(*u));

    if (!u) {
        return NULL;
    }
    memset(u, 0, sizeof(*u));
    u->alloc = alloc;
    u->free = free;
    u->priv = priv;
    u->wake = wake;
    u->core = core;
    u->mode = cfg->uvm;
    u->media = cfg->cxl_media;
    u->shift = (u32)__builtin_ctz(cfg->uvm_page);
    u->batch_max = cfg->uvm_batch;
    u->gpu_kib = cfg->uvm_gpu_kib;
    u->mhz = cfg->clock_mhz;
    u->runtime_c = ((u64)cfg->uvm_runtime_ns * u->mhz + 999) / 1000;
    u->dma_c = cfg->pcie_dma_lat;
    u->bw = cfg->uvm_pcie_bw;
    u->busy_end = NEVER_C;
    u->wfree = NO_WAITER;
    u->batch = alloc(priv, (size_t)u->batch_max * sizeof(*u->batch));
    if (!u->batch) {
        free(priv, u);
        return NULL;
    }
    u->st.page_bytes = cfg->uvm_page;
    return u;
}

void gpu_uvm_destroy(struct gpu_uvm *u)
{
    if (!u) {
        return;
    }
    u->free(u->priv, u->tab);
    u->free(u->priv, u->w);
    u->free(u->priv, u->q);
    u->free(u->priv, u->res);
    u->free(u->priv, u->batch);
    u->free(u->priv, u);
}

void gpu_uvm_object(struct gpu_uvm *u, u64 va, u64 size)
{
    if (size) {
        u->st.footprint_pages += ((va + size - 1) >> u->shift) -
                                 (va >> u->shift) + 1;
    }
}

u32 gpu_uvm_page_shift(const struct gpu_uvm *u)
{
    return u->shift;
}

static int waiter_add(struct gpu_uvm *u, struct uvm_page *e, u32 id)
{
    u32 wi;

    if (u->wfree == NO_WAITER) {
        u32 cap = u->wcap ? 2 * u->wcap : 256, k;
        struct uvm_waiter *n = u->alloc(u->priv, cap * sizeof(*n));

        if (!n) {
            return -ENOMEM;
        }
        if (u->w) {
            memcpy(n, u->w, u->wcap * sizeof(*n));
        }
        for (k = u->wcap; k < cap; k++) {
            n[k].next = k + 1 < cap ? k + 1 : NO_WAITER;
        }
        u->free(u->priv, u->w);
        u->w = n;
        u->wfree = u->wcap;
        u->wcap = cap;
    }
    wi = u->wfree;
    u->wfree = u->w[wi].next;
    u->w[wi].id = id;
    u->w[wi].since = u->cycle;
    u->w[wi].next = e->waiters;     /* woken in reverse: order them */
    e->waiters = wi;
    return 0;
}

int gpu_uvm_access(struct gpu_uvm *u, u64 now, u64 va, bool write,
                   u32 waiter)
{
    u64 page = va >> u->shift;
    struct uvm_page *e;

    if (now > u->cycle) {
        u->cycle = now;
    }
    e = page_get(u, page);
    if (!e) {
        return -ENOMEM;
    }
    if (e->state == PG_RESIDENT) {
        e->dirty |= write;
        return 1;
    }
    u->st.faults++;
    e->dirty |= write;
    if (e->state != PG_HOST) {
        u->st.duplicate_faults++;
    } else {
        if (u->qlen == u->qcap) {
            struct uvm_fault *n = ring_grow(u, u->q, &u->qhead, u->qlen,
                                            &u->qcap, sizeof(*n));

            if (!n) {
                return -ENOMEM;
            }
            u->q = n;
            e = page_get(u, page);
        }
        u->q[(u->qhead + u->qlen++) % u->qcap] =
            (struct uvm_fault){ page, u->cycle };
        e->state = PG_QUEUED;
    }
    return waiter_add(u, e, waiter) ? -ENOMEM : 0;
}

static u64 cycles_of_ps(const struct gpu_uvm *u, u64 ps)
{
    return (ps * u->mhz + 999999) / 1000000;
}

/* The batch starts at cycle s: evictions, then its cost. */
static int batch_start(struct gpu_uvm *u, u64 s)
{
    u64 dirty = 0, bytes, xfer, storage = 0, media_pages;
    u32 n = 0;

    if (!u->cap_pages) {
        u->cap_pages = u->gpu_kib ?
            ((u64)u->gpu_kib << 10) >> u->shift :
            (u->st.footprint_pages + FOOTPRINT_RATIO - 1) / FOOTPRINT_RATIO;
        if (!u->cap_pages) {
            u->cap_pages = 1;
        }
        u->take = u->batch_max < u->cap_pages ? u->batch_max :
                  (u32)u->cap_pages;
        u->st.gpu_pages = u->cap_pages;
    }
    while (u->qlen && n < u->take && u->q[u->qhead].cycle < s) {
        u64 page = u->q[u->qhead].page;

        u->qhead = (u->qhead + 1) % u->qcap;
        u->qlen--;
        slot(u->tab, u->tabcap, page)->state = PG_MIGRATING;
        u->batch[n++] = page;
    }
    u->nbatch = n;
    while (u->rlen + n > u->cap_pages) {
        u64 page = u->res[u->rhead];
        struct uvm_page *e = slot(u->tab, u->tabcap, page);

        u->rhead = (u->rhead + 1) % u->rcap;
        u->rlen--;
        e->state = PG_HOST;
        u->st.evictions++;
        if (e->dirty) {
            e->dirty = 0;
            dirty++;
        }
    }
    u->st.dirty_evictions += dirty;
    u->st.d2h_bytes += dirty << u->shift;
    u->st.h2d_bytes += (u64)n << u->shift;
    u->st.pages_migrated += n;
    u->st.batches++;
    if (n > u->st.batch_max) {
        u->st.batch_max = n;
    }
    bytes = (dirty + n) << u->shift;
    xfer = u->dma_c + (bytes * 1000 + u->bw - 1) / u->bw;
    if (u->mode == GPU_UVM_GDS) {
        media_pages = (1ULL << u->shift) / 4096;
        storage = cycles_of_ps(u, srds_media_pages_ps(u->media, false,
                                                      n * media_pages)) +
                  cycles_of_ps(u, srds_media_pages_ps(u->media, true,
                                                      dirty * media_pages));
    }
    u->st.runtime_cycles += u->runtime_c;
    u->st.xfer_cycles += xfer;
    u->st.storage_cycles += storage;
    u->st.batch_cycles += u->runtime_c + xfer + storage;
    u->busy_end = s + u->runtime_c + xfer + storage;
    return 0;
}

/* The batch in service ends now: its pages are in, their waiters go. */
static int batch_end(struct gpu_uvm *u)
{
    u32 k;

    for (k = 0; k < u->nbatch; k++) {
        u64 page = u->batch[k];
        struct uvm_page *e;
        u32 wi, prev = NO_WAITER;

        if (u->rlen == u->rcap) {
            u64 *n = ring_grow(u, u->res, &u->rhead, u->rlen, &u->rcap,
                               sizeof(*n));

            if (!n) {
                return -ENOMEM;
            }
            u->res = n;
        }
        u->res[(u->rhead + u->rlen++) % u->rcap] = page;
        e = slot(u->tab, u->tabcap, page);
        e->state = PG_RESIDENT;
        /* The list is newest first: reverse it, wake in fault order. */
        for (wi = e->waiters; wi != NO_WAITER;) {
            u32 next = u->w[wi].next;

            u->w[wi].next = prev;
            prev = wi;
            wi = next;
        }
        e->waiters = NO_WAITER;
        for (wi = prev; wi != NO_WAITER;) {
            u32 next = u->w[wi].next;

            u->st.stall_cycles += u->busy_end - u->w[wi].since;
            u->w[wi].next = u->wfree;
            u->wfree = wi;
            u->wake(u->core, u->w[wi].id);
            wi = next;
        }
    }
    u->nbatch = 0;
    return 0;
}

int gpu_uvm_run(struct gpu_uvm *u, u64 cycle)
{
    int err;

    if (cycle > u->cycle) {
        u->cycle = cycle;
    }
    for (;;) {
        if (u->busy_end != NEVER_C) {
            u64 end = u->busy_end;

            if (end > u->cycle) {
                return 0;
            }
            err = batch_end(u);
            if (err) {
                return err;
            }
            u->busy_end = NEVER_C;
            if (u->qlen && u->q[u->qhead].cycle < end) {
                batch_start(u, end);    /* raised while it was serviced */
            }
            continue;
        }
        if (!u->qlen || u->q[u->qhead].cycle + 1 > u->cycle) {
            return 0;
        }
        batch_start(u, u->q[u->qhead].cycle + 1);
    }
}

u64 gpu_uvm_next(const struct gpu_uvm *u)
{
    if (u->busy_end != NEVER_C) {
        return u->busy_end;
    }
    return u->qlen ? u->q[u->qhead].cycle + 1 : NEVER_C;
}

void gpu_uvm_stats(const struct gpu_uvm *u, struct gpu_uvm_stats *st)
{
    *st = u->st;
}
