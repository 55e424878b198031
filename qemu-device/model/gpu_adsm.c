/*
 * ADSM/GMAC in the GPU timing core (gpu_adsm.h): the protocol core of the
 * driver (adsm_protocol.c) with a context of its own, its transfers timed
 * on one DMA engine. Decisions where the paper is silent (docs/gpu.md,
 * "ADSM in the core"):
 * - an object's bytes are the program's size (a short last block as the
 *   protocol keeps it); COPY records are the CPU's only accesses;
 * - the CPU is never charged for producing or consuming data, in either
 *   mode: only faults (adsm_fault_lat each) and the transfers it waits
 *   for, so the explicit baseline and the protocols compare on transfers;
 * - batch's PTE re-installs (refaults) cost nothing: GMAC's batch does no
 *   detection;
 * - an eviction lands in the protocol's state at once (as the host
 *   replay); its time is on the engine, which a later fetch, launch or
 *   eviction waits for;
 * - the transfer cost: pcie_dma_lat + bytes / pcie_bw on the engine, the
 *   setup not overlapped with the previous transfer (one descriptor at a
 *   time, as adsm_protocol.c's model).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "gpu_adsm.h"
#include "adsm_protocol.h"

struct gpu_adsm {
    struct adsm_ctx ctx;
    gpu_adsm_alloc_fn alloc;
    gpu_adsm_free_fn free;
    void *priv;
    bool shared;            /* cfg.adsm on */
    bool oom;
    u32 bw;                 /* pcie_bw, bytes / 1000 cycles */
    u32 lat;                /* pcie_dma_lat */
    u32 fault_lat;
    struct adsm_obj **objs; /* by program index */
    u32 nobjs, capobjs;
    /* The engine free at eng_c + eng_f / bw; the host's cursor. */
    u64 eng_c, eng_f;
    u64 busy_f;
    u64 host;
    struct gpu_adsm_stats st;
};

/* Occupies the engine from max(host, free) for a transfer of bytes. */
static void engine_use(struct gpu_adsm *a, u64 bytes, bool hold_host)
{
    u64 c = a->eng_c, f = a->eng_f, svc;

    if (a->host > c) {
        c = a->host;
        f = 0;
    }
    svc = (u64)a->lat * a->bw + bytes * 1000;
    f += svc;
    c += f / a->bw;
    f %= a->bw;
    a->eng_c = c;
    a->eng_f = f;
    a->busy_f += svc;
    a->st.xfer_cycles += a->busy_f / a->bw;
    a->busy_f %= a->bw;
    if (hold_host) {
        u64 t = c + (f ? 1 : 0);

        a->st.xfer_wait_cycles += t - a->host;
        a->host = t;
    }
}

/* When every transfer issued so far is done. */
static u64 engine_done(const struct gpu_adsm *a)
{
    return a->eng_c + (a->eng_f ? 1 : 0);
}

static int adsm_xfer(void *priv, struct adsm_obj *o, u64 off, u64 len,
                     enum adsm_dir dir, enum adsm_cause cause)
{
    (void)o;
    (void)off;
    (void)dir;
    engine_use(priv, len, cause != ADSM_CAUSE_EVICT);
    return 0;
}

static void adsm_protect(void *priv, struct adsm_obj *o, u64 off, u64 len,
                         u8 state)
{
    /* The core keeps no CPU mappings: the protocol's state says all. */
    (void)priv;
    (void)o;
    (void)off;
    (void)len;
    (void)state;
}

static const struct adsm_ops gpu_adsm_ops = {
    .xfer = adsm_xfer,
    .protect = adsm_protect,
};

static u32 log2_u32(u32 v)
{
    u32 s = 0;

    while (s < 31 && (1u << s) < v) {
        s++;
    }
    return s;
}

struct gpu_adsm *gpu_adsm_create(const struct gpu_config *cfg,
                                 gpu_adsm_alloc_fn alloc,
                                 gpu_adsm_free_fn free, void *priv)
{
    struct gpu_adsm *a = alloc(priv, sizeof(*a));
    /* Explicit copies: a batch context with no object counts them. */
    u32 protocol = cfg->adsm ? cfg->adsm - 1 : MCMGPU_ADSM_BATCH;
    u32 bpc = cfg->pcie_bw / 1000;

    if (!a) {
        return NULL;
    }
    if (adsm_ctx_init(&a->ctx, protocol, log2_u32(cfg->adsm_block),
                      cfg->adsm_rolling, 0, cfg->pcie_dma_lat,
                      bpc ? bpc : 1, &gpu_adsm_ops, a)) {
        free(priv, a);
        return NULL;
    }
    a->alloc = alloc;
    a->free = free;
    a->priv = priv;
    a->shared = cfg->adsm != GPU_ADSM_OFF;
    a->bw = cfg->pcie_bw;
    a->lat = cfg->pcie_dma_lat;
    a->fault_lat = cfg->adsm_fault_lat;
    a->st.protocol = cfg->adsm;
    return a;
}

void gpu_adsm_destroy(struct gpu_adsm *a)
{
    u32 i;

    if (!a) {
        return;
    }
    for (i = 0; i < a->nobjs; i++) {
        if (a->objs[i]) {
            a->free(a->priv, a->objs[i]->state);
            a->free(a->priv, a->objs[i]);
        }
    }
    a->free(a->priv, a->objs);
    a->free(a->priv, a->ctx.fifo);
    a->free(a->priv, a);
}

bool gpu_adsm_oom(const struct gpu_adsm *a)
{
    return a->oom;
}

int gpu_adsm_object(struct gpu_adsm *a, u32 index, u64 bytes)
{
    struct adsm_obj *o;
    u32 need;

    if (!a->shared) {
        return 0;
    }
    if (index >= a->capobjs) {
        u32 cap = a->capobjs ? a->capobjs * 2 : 16;
        struct adsm_obj **n;

        while (cap <= index) {
            cap *= 2;
        }
        n = a->alloc(a->priv, (size_t)cap * sizeof(*n));
        if (!n) {
            a->oom = true;
            return -ENOMEM;
        }
        if (a->nobjs) {
            memcpy(n, a->objs, (size_t)a->nobjs * sizeof(*n));
        }
        a->free(a->priv, a->objs);
        a->objs = n;
        a->capobjs = cap;
    }
    o = a->alloc(a->priv, sizeof(*o));
    if (!o) {
        a->oom = true;
        return -ENOMEM;
    }
    o->bytes = bytes;
    o->state = a->alloc(a->priv, (size_t)adsm_units(&a->ctx, bytes));
    if (!o->state) {
        a->free(a->priv, o);
        a->oom = true;
        return -ENOMEM;
    }
    need = adsm_fifo_needed(&a->ctx, bytes);
    if (need > a->ctx.fifo_cap) {
        struct adsm_ref *f = a->alloc(a->priv, (size_t)need * sizeof(*f));
        struct adsm_ref *old = a->ctx.fifo;

        if (!f) {
            a->free(a->priv, o->state);
            a->free(a->priv, o);
            a->oom = true;
            return -ENOMEM;
        }
        adsm_fifo_move(&a->ctx, f, need);
        a->free(a->priv, old);
    }
    adsm_obj_add(&a->ctx, o);
    a->objs[index] = o;
    if (index >= a->nobjs) {
        a->nobjs = index + 1;
    }
    return 0;
}

void gpu_adsm_host_at(struct gpu_adsm *a, u64 t)
{
    if (t > a->host) {
        a->host = t;
    }
}

int gpu_adsm_cpu(struct gpu_adsm *a, u32 index, u64 off, u64 len, bool h2d)
{
    struct adsm_obj *o = index < a->nobjs ? a->objs[index] : NULL;
    u64 end = off + len, uoff, ulen;
    bool writable;
    int ret;

    if (!o || !len || end > o->bytes) {
        return -EINVAL;
    }
    /* adsm_cpu_access(), with the CPU's time for each protocol fault. */
    while (off < end) {
        u64 unit = adsm_unit_of(o, off);
        u8 map = adsm_map(o, unit);

        if (!(map == ADSM_MAP_RW || (map == ADSM_MAP_RO && !h2d))) {
            u64 faults = a->ctx.st.faults;

            ret = adsm_fault(&a->ctx, o, off, h2d, &writable, &uoff, &ulen);
            if (ret) {
                return ret;
            }
            a->ctx.st.hw_faults++;
            if (a->ctx.st.faults != faults) {
                a->host += a->fault_lat;
                a->st.fault_cycles += a->fault_lat;
            }
        }
        adsm_unit_range(o, unit, &uoff, &ulen);
        off = uoff + ulen;
    }
    return 0;
}

void gpu_adsm_copy(struct gpu_adsm *a, u64 bytes, bool h2d)
{
    a->st.copies++;
    if (h2d) {
        a->st.cpu_bytes_written += bytes;
    } else {
        a->st.cpu_bytes_read += bytes;
    }
    if (!a->shared) {
        engine_use(a, bytes, true);
        adsm_charge_copy(&a->ctx, bytes, h2d ? ADSM_H2D : ADSM_D2H);
    }
}

int gpu_adsm_launch(struct gpu_adsm *a, u64 now, u64 *launch, u64 *start)
{
    u64 t0, wait;
    int ret;

    gpu_adsm_host_at(a, now);
    t0 = a->host;
    *launch = t0;
    /*
     * Explicit copies: a context with no object counts the launches. The
     * flush's wait is the launch's (launch_wait_cycles), not xfer_wait.
     */
    wait = a->st.xfer_wait_cycles;
    ret = adsm_release(&a->ctx);
    a->st.xfer_wait_cycles = wait;
    /* The doorbell is ordered after every transfer, evictions too. */
    gpu_adsm_host_at(a, engine_done(a));
    a->st.launch_wait_cycles += a->host - t0;
    *start = a->host;
    return ret;
}

int gpu_adsm_kernel_end(struct gpu_adsm *a, u64 start, u64 end)
{
    gpu_adsm_host_at(a, end);
    a->st.kernel_cycles += end - start;
    adsm_kernel_done(&a->ctx, end - start);
    return adsm_acquire(&a->ctx);
}

u64 gpu_adsm_host(const struct gpu_adsm *a)
{
    return a->host;
}

void gpu_adsm_stats(const struct gpu_adsm *a, struct gpu_adsm_stats *st)
{
    const struct mcmgpu_adsm_stats *p = &a->ctx.st;

    *st = a->st;
    st->block_bytes = a->shared && a->ctx.protocol == MCMGPU_ADSM_ROLLING ?
                      1ULL << a->ctx.block_shift : 0;
    st->rolling = a->shared && a->ctx.protocol == MCMGPU_ADSM_ROLLING ?
                  a->ctx.rolling : 0;
    st->objects = a->shared ? p->objects : 0;
    st->h2d_bytes = p->h2d_bytes;
    st->d2h_bytes = p->d2h_bytes;
    st->h2d_call = p->h2d_call;
    st->h2d_eager = p->h2d_evict;
    st->d2h_call = p->d2h_call;
    st->d2h_fault = p->d2h_fault;
    st->transfers = p->transfers;
    st->faults = p->faults;
    st->faults_read_invalid = p->faults_read_invalid;
    st->faults_write_invalid = p->faults_write_invalid;
    st->faults_write_readonly = p->faults_write_readonly;
    st->refaults = p->refaults;
    st->evictions = p->evictions;
    st->dirty_peak = p->dirty_peak;
    st->launches = p->launches;
    st->syncs = p->syncs;
    st->modeled_cycles = a->host > engine_done(a) ? a->host : engine_done(a);
}
