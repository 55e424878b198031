/*
 * mcmgpu GPU engine: the GPU timing core (model/gpu_core.c) running a
 * program (model/program.h, binary form) per context. GPU_LOAD appends
 * the program's bytes; GPU_START checks the configuration and starts the
 * core over them; GPU_RUN runs it in work-bounded steps and, with
 * translation on, trades ATS requests and answers with barre_iommu.ko by
 * the epoch protocol of the Barre engine (engine_barre.c); GPU_STATS
 * copies the counters and the kernels' records out; GPU_OBJECTS lists the
 * program's OBJECT records, so that the guest need not decode it.
 *
 * The epoch, as tools/mcmgpu/lib/barre_host.c runs it on the host: with
 * L = 2 x the PCIe latency, an epoch at H runs the core to H + L, and the
 * IOMMU then answers everything it completes before H + L + PCIe, which
 * reaches the chiplets before H + 2L. So the device's counters equal the
 * host backend's, whatever the guest's timing.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/cutils.h"
#include "qemu/log.h"
#include "mcmgpu_engine.h"
#include "mcmgpu_barre.h"
#include "mcmgpu_gpu.h"
#include "gpu_core.h"
#include "trace.h"

/*
 * One command's work: at most GPU_WORK_INSTS warp instructions issued or
 * GPU_WORK_CYCLES cycles run (idle stretches the core skips by its next
 * event do not count), checked every GPU_STEP_CYCLES; the driver then
 * sends the next GPU_RUN.
 */
#define GPU_STEP_CYCLES     4096
#define GPU_WORK_INSTS      (1ULL << 22)
#define GPU_WORK_CYCLES     (1ULL << 24)

/* What the core takes from ops->alloc carries its size, for the budget. */
typedef struct GpuBlock {
    uint64_t bytes;
    uint64_t pad;
} GpuBlock;

/* A reader's position in the stored program. */
typedef struct GpuProgCursor {
    const uint8_t *bytes;
    uint64_t len, pos;
} GpuProgCursor;

typedef struct GpuContext {
    MCMGPUState *s;
    uint32_t pasid;
    /* The program's bytes as loaded */
    uint8_t *prog;
    uint64_t prog_len, prog_cap;
    uint64_t prog_charged;
    /* The run: the core, its reader, its objects' VAs */
    struct gpu_config cfg;
    struct gpu_core *core;
    struct prog_reader *rd;
    GpuProgCursor rd_at;
    char src_msg[MCMGPU_GPU_MSG_MAX];   /* the reader's last refusal */
    uint64_t *va;
    uint64_t nva;
    uint64_t run_charged;       /* core, reader, VAs, records */
    bool started;
    int core_err;               /* gpu_core_run's, once it failed */
    uint32_t fail_status;       /* the run failed: every GPU_RUN says so */
    char fail_msg[MCMGPU_GPU_MSG_MAX];
    /* The kernels' records, as they finished */
    struct gpu_kernel_stats *kern;
    uint64_t nkern, cap_kern;
    /* ATS: this epoch's requests, those not answered yet */
    struct mcmgpu_ats_request sent[MCMGPU_ATS_QUEUE_ENTRIES];
    uint32_t nsent;
    uint64_t outstanding;
    uint64_t horizon;
    uint64_t iommu_next;        /* the IOMMU's next event after it */
    bool ats_started;           /* the run's START batch went out */
    bool overflow;
    bool nomem;                 /* an allocation for a record failed */
} GpuContext;

static void *gpu_ctx_new(MCMGPUState *s)
{
    GpuContext *gc = g_new0(GpuContext, 1);

    gc->s = s;
    return gc;
}

static void gpu_run_free(GpuContext *gc)
{
    if (gc->core) {
        gpu_core_destroy(gc->core);
        g_free(gc->core);
        gc->core = NULL;
    }
    g_free(gc->rd);
    g_free(gc->va);
    g_free(gc->kern);
    gc->rd = NULL;
    gc->va = NULL;
    gc->kern = NULL;
    gc->nva = gc->nkern = gc->cap_kern = 0;
    mcmgpu_mem_uncharge(gc->s, gc->run_charged);
    gc->run_charged = 0;
    gc->started = false;
    gc->core_err = 0;
    gc->fail_status = 0;
    gc->fail_msg[0] = '\0';
    gc->nsent = 0;
    gc->outstanding = 0;
    gc->horizon = 0;
    gc->ats_started = false;
    gc->overflow = gc->nomem = false;
    gc->src_msg[0] = '\0';
}

static void gpu_prog_free(GpuContext *gc)
{
    gpu_run_free(gc);
    g_free(gc->prog);
    gc->prog = NULL;
    gc->prog_len = gc->prog_cap = 0;
    mcmgpu_mem_uncharge(gc->s, gc->prog_charged);
    gc->prog_charged = 0;
}

static void gpu_ctx_free(MCMGPUState *s, void *state)
{
    GpuContext *gc = state;

    gpu_prog_free(gc);
    g_free(gc);
}

/* The core's tables, charged against the memory budget. */
static void *gpu_ctx_alloc(void *priv, size_t bytes)
{
    GpuContext *gc = priv;
    uint64_t total = (uint64_t)bytes + sizeof(GpuBlock);
    GpuBlock *b;

    if (total < bytes || !mcmgpu_mem_charge(gc->s, total)) {
        return NULL;
    }
    b = g_try_malloc0(total);
    if (!b) {
        mcmgpu_mem_uncharge(gc->s, total);
        return NULL;
    }
    b->bytes = total;
    return b + 1;
}

static void gpu_ctx_free_mem(void *priv, void *p)
{
    GpuContext *gc = priv;
    GpuBlock *b;

    if (!p) {
        return;
    }
    b = (GpuBlock *)p - 1;
    mcmgpu_mem_uncharge(gc->s, b->bytes);
    g_free(b);
}

/* Translation on: the object's pages are where the driver mapped them. */
static int gpu_object(void *priv, struct gpu_object *o, char *why, size_t len)
{
    GpuContext *gc = priv;

    if (o->index >= gc->nva) {
        snprintf(why, len, "object %u has no GPU VA (the table has %" PRIu64
                 ")", o->index, gc->nva);
        return -EINVAL;
    }
    o->gpu_va = gc->va[o->index];
    return 0;
}

static void gpu_ats_request(void *priv, const struct chiplet_tlb_request *r)
{
    GpuContext *gc = priv;
    struct mcmgpu_ats_request *q;

    gc->outstanding++;
    if (gc->nsent == MCMGPU_ATS_QUEUE_ENTRIES) {
        gc->overflow = true;    /* START bounds the MSHRs: cannot happen */
        return;
    }
    q = &gc->sent[gc->nsent++];
    q->tag = cpu_to_le64(r->tag);
    q->vpn = cpu_to_le64(r->vpn);
    q->issue = cpu_to_le64(r->issue);
    q->pasid = cpu_to_le32(gc->pasid);
    q->chiplet = r->chiplet;
    q->write = r->write;
    q->reserved = 0;
}

static void gpu_kernel_done(void *priv, const struct gpu_kernel_stats *k)
{
    GpuContext *gc = priv;

    if (gc->nkern == gc->cap_kern) {
        uint64_t cap = MAX(gc->cap_kern * 2, 16);
        uint64_t bytes = (cap - gc->cap_kern) * sizeof(*gc->kern);

        if (!mcmgpu_mem_charge(gc->s, bytes)) {
            gc->nomem = true;
            return;
        }
        gc->run_charged += bytes;
        gc->kern = g_renew(struct gpu_kernel_stats, gc->kern, cap);
        gc->cap_kern = cap;
    }
    gc->kern[gc->nkern++] = *k;
}

static const struct gpu_core_ops gpu_ops = {
    .alloc = gpu_ctx_alloc,
    .free = gpu_ctx_free_mem,
    .object = gpu_object,
    .ats_request = gpu_ats_request,
    .kernel_done = gpu_kernel_done,
};

/* Translation off: identity (the core's own placement). */
static const struct gpu_core_ops gpu_ops_identity = {
    .alloc = gpu_ctx_alloc,
    .free = gpu_ctx_free_mem,
    .kernel_done = gpu_kernel_done,
};

static long gpu_prog_read(void *ctx, void *buf, size_t len)
{
    GpuProgCursor *c = ctx;
    uint64_t n = MIN((uint64_t)len, c->len - c->pos);

    memcpy(buf, c->bytes + c->pos, n);
    c->pos += n;
    return n;
}

static int gpu_source(void *ctx, struct prog_rec *rec)
{
    GpuContext *gc = ctx;
    int ret = prog_read(gc->rd, rec);

    if (ret < 0) {
        snprintf(gc->src_msg, sizeof(gc->src_msg),
                 "program byte %" PRIu64 ": %s: %s", gc->rd->offset,
                 gc->rd->err_field ? gc->rd->err_field : "record",
                 gc->rd->err_why ? gc->rd->err_why : "refused");
    }
    return ret;
}

static uint32_t gpu_refuse(struct mcmgpu_gpu_result *res, uint32_t st,
                           const char *cmd, const char *fmt, ...)
    G_GNUC_PRINTF(4, 5);

static uint32_t gpu_refuse(struct mcmgpu_gpu_result *res, uint32_t st,
                           const char *cmd, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(res->msg, sizeof(res->msg), fmt, ap);
    va_end(ap);
    qemu_log_mask(LOG_GUEST_ERROR, "mcmgpu: %s: %s\n", cmd, res->msg);
    trace_mcmgpu_gpu_refused(cmd, st, res->msg);
    return st;
}

/* The core's state after a step, and its error with the reader's. */
static uint32_t gpu_report(GpuContext *gc, struct mcmgpu_gpu_result *res)
{
    res->translate = gc->cfg.translate;
    res->walkers = gc->cfg.walkers;
    res->sched_moves = gc->cfg.translate &&
                       (gc->cfg.fbarre || gc->cfg.barre_sched) ?
                       gc->cfg.fbarre_sched_moves : 0;
    res->kernels = gc->nkern;
    if (!gc->core) {
        return MCMGPU_CMPL_OK;
    }
    res->cycle = gpu_core_now(gc->core);
    res->next_event = gpu_core_next_event(gc->core);
    res->done = gpu_core_done(gc->core);
    if (gc->nomem) {
        res->error = -ENOMEM;
        pstrcpy(res->msg, sizeof(res->msg),
                "no memory for the kernels' records (mem-budget)");
        return MCMGPU_CMPL_NO_MEMORY;
    }
    if (gc->overflow) {
        res->error = -EPROTO;
        pstrcpy(res->msg, sizeof(res->msg),
                "more ATS requests in an epoch than the queue holds");
        return MCMGPU_CMPL_NO_MEMORY;
    }
    if (gc->core_err) {
        res->error = gc->core_err;
        pstrcpy(res->msg, sizeof(res->msg), gpu_core_error(gc->core));
        if (gc->src_msg[0]) {
            pstrcat(res->msg, sizeof(res->msg), " (");
            pstrcat(res->msg, sizeof(res->msg), gc->src_msg);
            pstrcat(res->msg, sizeof(res->msg), ")");
        }
        return res->error == -ENOMEM ? MCMGPU_CMPL_NO_MEMORY :
               MCMGPU_CMPL_BAD_TRACE;
    }
    return MCMGPU_CMPL_OK;
}

/* args[0] host address, args[1] length; FIRST starts a new program. */
static uint32_t gpu_load(MCMGPUState *s, MCMGPUContext *ctx, uint16_t flags,
                         const uint64_t *args, MCMGPUCmdOut *out)
{
    GpuContext *gc = mcmgpu_ctx_state(ctx, &mcmgpu_gpu_engine);
    uint64_t max = mcmgpu_gpu_program_max(s), len = args[1];

    if (flags & MCMGPU_GPU_LOAD_FIRST) {
        gpu_prog_free(gc);
    } else if (gc->started) {
        qemu_log_mask(LOG_GUEST_ERROR, "mcmgpu: GPU_LOAD: a run is started; "
                      "FIRST starts a new program\n");
        return MCMGPU_CMPL_BAD_ARG;
    }
    if (!len || len > MCMGPU_DMA_MAX_LEN || len > max - gc->prog_len) {
        qemu_log_mask(LOG_GUEST_ERROR, "mcmgpu: GPU_LOAD: %" PRIu64
                      " bytes after %" PRIu64 ": 0, over a command's %u or "
                      "past the program limit %" PRIu64 "\n", len,
                      gc->prog_len, MCMGPU_DMA_MAX_LEN, max);
        return MCMGPU_CMPL_BAD_LENGTH;
    }
    if (gc->prog_len + len > gc->prog_cap) {
        uint64_t cap = MIN(MAX(gc->prog_cap * 2, gc->prog_len + len), max);

        if (!mcmgpu_mem_charge(s, cap - gc->prog_cap)) {
            return MCMGPU_CMPL_NO_MEMORY;
        }
        gc->prog_charged += cap - gc->prog_cap;
        gc->prog = g_realloc(gc->prog, cap);
        gc->prog_cap = cap;
    }
    if (mcmgpu_host_read(s, args[0], gc->prog + gc->prog_len, len)
        != MEMTX_OK) {
        return MCMGPU_CMPL_DMA_FAULT;
    }
    gc->prog_len += len;
    out->result = gc->prog_len;
    trace_mcmgpu_gpu_load(len, gc->prog_len);
    return MCMGPU_CMPL_OK;
}

static const char *gpu_header_why(int err)
{
    return err == -EPROTONOSUPPORT ? "another version of the binary form" :
           "not a binary program (no MCMGPROG header)";
}

/* The configuration as the device can run it. */
static uint32_t gpu_check(MCMGPUState *s, const struct gpu_config *c,
                          struct mcmgpu_gpu_result *res)
{
    const struct mcmgpu_geometry *geo = mcmgpu_geometry(s);
    const char *field, *why;

    if (gpu_config_check(c, MCMGPU_MAX_CHIPLETS, &field, &why)) {
        return gpu_refuse(res, MCMGPU_CMPL_BAD_ARG, "GPU_START",
                          "%s: %s", field, why);
    }
    if (c->chiplets > geo->chiplets) {
        return gpu_refuse(res, MCMGPU_CMPL_BAD_ARG, "GPU_START",
                          "chiplets: %u, the device has %u", c->chiplets,
                          geo->chiplets);
    }
    if (!c->translate) {
        return MCMGPU_CMPL_OK;
    }
    /* MGvm's GMMUs are the tool's host backend's (docs/gpu.md). */
    if (c->mgvm) {
        return gpu_refuse(res, MCMGPU_CMPL_BAD_ARG, "GPU_START",
                          "mgvm: on runs with --host only (the device "
                          "translates through barre_iommu.ko, no GMMUs)");
    }
    /* The driver's allocator and barre_iommu.ko are the device's. */
    if (c->chiplets != geo->chiplets) {
        return gpu_refuse(res, MCMGPU_CMPL_BAD_ARG, "GPU_START",
                          "chiplets: %u, translation maps the device's %u",
                          c->chiplets, geo->chiplets);
    }
    if ((uint64_t)c->vram_mib << 20 != geo->vram_per_chiplet) {
        return gpu_refuse(res, MCMGPU_CMPL_BAD_ARG, "GPU_START",
                          "vram_mib: %u, the device has %" PRIu64 " MiB a "
                          "chiplet", c->vram_mib,
                          geo->vram_per_chiplet >> 20);
    }
    if (c->pcie_lat != MCMGPU_BARRE_PCIE_CYCLES ||
        c->walk_lat != MCMGPU_BARRE_WALK_CYCLES) {
        return gpu_refuse(res, MCMGPU_CMPL_BAD_ARG, "GPU_START",
                          "pcie_lat/walk_lat: %u/%u, barre_iommu.ko models "
                          "%u/%u", c->pcie_lat, c->walk_lat,
                          MCMGPU_BARRE_PCIE_CYCLES, MCMGPU_BARRE_WALK_CYCLES);
    }
    if ((uint64_t)c->chiplets * c->l2_tlb_mshrs > MCMGPU_ATS_QUEUE_ENTRIES) {
        return gpu_refuse(res, MCMGPU_CMPL_BAD_ARG, "GPU_START",
                          "l2_tlb_mshrs: %u a chiplet x %u, the ATS queue "
                          "holds %u in flight", c->l2_tlb_mshrs, c->chiplets,
                          MCMGPU_ATS_QUEUE_ENTRIES);
    }
    return MCMGPU_CMPL_OK;
}

/* args[0] struct mcmgpu_gpu_start, args[1] VAs, args[2] their count */
static uint32_t gpu_start_run(MCMGPUState *s, GpuContext *gc,
                              const uint64_t *args,
                              struct mcmgpu_gpu_result *res)
{
    g_autofree struct mcmgpu_gpu_start *st = g_new0(struct mcmgpu_gpu_start,
                                                    1);
    struct gpu_config cfg = { .name = "device" };
    uint64_t n = args[2], i, bytes;
    size_t size;
    uint32_t ret;
    int err;

    if (!gc->prog_len) {
        return gpu_refuse(res, MCMGPU_CMPL_NO_TRACE, "GPU_START",
                          "no program loaded");
    }
    if (mcmgpu_host_read(s, args[0], st, sizeof(*st)) != MEMTX_OK) {
        return MCMGPU_CMPL_DMA_FAULT;
    }
    if (le32_to_cpu(st->nfields) != gpu_config_nfields || st->flags ||
        st->reserved) {
        return gpu_refuse(res, MCMGPU_CMPL_BAD_ARG, "GPU_START",
                          "nfields %u (the device has %u), flags 0x%x or "
                          "reserved 0x%x", le32_to_cpu(st->nfields),
                          gpu_config_nfields, le32_to_cpu(st->flags),
                          le32_to_cpu(st->reserved));
    }
    for (i = 0; i < gpu_config_nfields; i++) {
        *gpu_config_u32(&cfg, &gpu_config_fields[i]) =
            le32_to_cpu(st->fields[i]);
    }
    ret = gpu_check(s, &cfg, res);
    if (ret) {
        return ret;
    }
    if ((!cfg.translate && n) || n > MCMGPU_GPU_MAX_OBJECTS) {
        return gpu_refuse(res, MCMGPU_CMPL_BAD_ARG, "GPU_START",
                          "objects: %" PRIu64 " VAs (translation %s, at most "
                          "%u)", n, cfg.translate ? "on" : "off (none)",
                          MCMGPU_GPU_MAX_OBJECTS);
    }
    gpu_run_free(gc);
    gc->cfg = cfg;
    size = gpu_core_size(&cfg);
    bytes = size + sizeof(*gc->rd) + n * sizeof(*gc->va);
    if (!size || !mcmgpu_mem_charge(s, bytes)) {
        return size ? MCMGPU_CMPL_NO_MEMORY :
               gpu_refuse(res, MCMGPU_CMPL_BAD_ARG, "GPU_START",
                          "the core refuses the configuration");
    }
    gc->run_charged = bytes;
    gc->va = g_new0(uint64_t, MAX(n, 1));
    gc->nva = n;
    if (n && mcmgpu_host_read(s, args[1], gc->va, n * sizeof(*gc->va))
        != MEMTX_OK) {
        return MCMGPU_CMPL_DMA_FAULT;
    }
    for (i = 0; i < n; i++) {
        gc->va[i] = le64_to_cpu(gc->va[i]);
        if (gc->va[i] & ((1ULL << MCMGPU_PAGE_SHIFT) - 1) ||
            gc->va[i] >> MCMGPU_VA_BITS) {
            return gpu_refuse(res, MCMGPU_CMPL_BAD_ARG, "GPU_START",
                              "object %" PRIu64 ": VA 0x%" PRIx64 " not a "
                              "page in the 48-bit space", i, gc->va[i]);
        }
    }
    gc->rd = g_new0(struct prog_reader, 1);
    gc->rd_at = (GpuProgCursor){ .bytes = gc->prog, .len = gc->prog_len };
    err = prog_reader_init(gc->rd, gpu_prog_read, &gc->rd_at);
    if (err) {
        return gpu_refuse(res, MCMGPU_CMPL_BAD_TRACE, "GPU_START",
                          "program: %s", gpu_header_why(err));
    }
    gc->core = g_malloc0(size);
    err = gpu_core_init(gc->core, &cfg,
                        cfg.translate ? &gpu_ops : &gpu_ops_identity, gc,
                        gpu_source, gc);
    /* The program's streams on chiplet groups, as --host --streams. */
    if (!err && st->streams) {
        err = gpu_core_streams(gc->core, le32_to_cpu(st->streams));
    }
    if (err) {
        res->error = err;
        ret = gpu_refuse(res, err == -ENOMEM ? MCMGPU_CMPL_NO_MEMORY :
                         MCMGPU_CMPL_BAD_ARG, "GPU_START", "%s",
                         gpu_core_error(gc->core));
        gpu_core_destroy(gc->core);
        g_free(gc->core);
        gc->core = NULL;
        return ret;
    }
    gc->started = true;
    trace_mcmgpu_gpu_start(cfg.chiplets, cfg.translate, n);
    return MCMGPU_CMPL_OK;
}

static uint32_t gpu_start(MCMGPUState *s, MCMGPUContext *ctx, uint16_t flags,
                          const uint64_t *args, MCMGPUCmdOut *out)
{
    GpuContext *gc = mcmgpu_ctx_state(ctx, &mcmgpu_gpu_engine);
    g_autofree struct mcmgpu_gpu_result *res =
        g_new0(struct mcmgpu_gpu_result, 1);
    uint32_t st;

    gc->pasid = mcmgpu_ctx_id(ctx);
    st = gpu_start_run(s, gc, args, res);
    if (st != MCMGPU_CMPL_OK) {
        gpu_run_free(gc);
    }
    gpu_report(gc, res);
    if (mcmgpu_host_write(s, args[3], res, sizeof(*res)) != MEMTX_OK) {
        return MCMGPU_CMPL_DMA_FAULT;
    }
    return st;
}

/* The IOMMU's answers to the last epoch; the first bad one stops them. */
static uint32_t gpu_deliver(MCMGPUState *s, GpuContext *gc,
                            const struct mcmgpu_ats_response *rsp, uint32_t n,
                            struct mcmgpu_gpu_result *res)
{
    uint64_t frames = mcmgpu_geometry_total(mcmgpu_geometry(s)) >>
                      MCMGPU_PAGE_SHIFT;
    uint32_t i;

    for (i = 0; i < n; i++) {
        uint64_t done = le64_to_cpu(rsp[i].done);
        struct chiplet_tlb_reply r;

        mcmgpu_ats_reply(&r, &rsp[i], gc->cfg.pcie_lat, gc->pasid);
        if (!r.fault && r.pfn >= frames) {
            return gpu_refuse(res, MCMGPU_CMPL_BAD_ATS_RESPONSE, "GPU_RUN",
                              "response %u: PFN 0x%" PRIx64
                              " past the GPU's %" PRIu64 " frames", i + 1,
                              r.pfn, frames);
        }
        if (r.arrive < gpu_core_now(gc->core)) {
            return gpu_refuse(res, MCMGPU_CMPL_BAD_ATS_RESPONSE, "GPU_RUN",
                              "response %u: done %" PRIu64 " arrives before "
                              "the core's cycle %" PRIu64 ", earlier than the "
                              "IOMMU's next event said", i + 1, done,
                              gpu_core_now(gc->core));
        }
        /* From past the horizon, an answer could park a warp for ever. */
        if (done >= gc->horizon || gpu_core_deliver(gc->core, &r)) {
            return gpu_refuse(res, MCMGPU_CMPL_BAD_ATS_RESPONSE, "GPU_RUN",
                              "response %u: tag %" PRIu64 " not in "
                              "flight, or done %" PRIu64 " past the horizon "
                              "%" PRIu64, i + 1, r.tag, done, gc->horizon);
        }
        gc->outstanding--;
    }
    return MCMGPU_CMPL_OK;
}

/* Warp instructions issued so far: the work measure. */
static uint64_t gpu_insts(GpuContext *gc)
{
    struct gpu_core_stats st;

    gpu_core_stats(gc->core, &st);
    return st.warp_insts;
}

/* Translation off: to until or the end, in bounded steps. */
static void gpu_run_plain(GpuContext *gc, uint64_t until)
{
    uint64_t insts = gpu_insts(gc), cycles = 0;

    while (!gpu_core_done(gc->core) && gpu_core_now(gc->core) < until) {
        uint64_t t = gpu_core_next_event(gc->core), to;

        if (t == ~0ULL) {
            break;              /* nothing can happen: the core's bug */
        }
        t = MAX(t, gpu_core_now(gc->core));
        to = t + MIN(GPU_STEP_CYCLES, ~0ULL - t);
        to = MIN(to, until);
        cycles += to - t;
        gc->core_err = gpu_core_run(gc->core, to);
        if (gc->core_err) {
            break;
        }
        if (cycles >= GPU_WORK_CYCLES ||
            gpu_insts(gc) - insts >= GPU_WORK_INSTS) {
            break;
        }
    }
}

/*
 * Translation on: epochs until one sends requests or waits for answers,
 * each to the exact lookahead given the IOMMU's next event.
 */
static void gpu_epoch(GpuContext *gc, struct mcmgpu_gpu_result *res)
{
    uint64_t insts = gpu_insts(gc), start = gpu_core_now(gc->core);

    gc->nsent = 0;
    while (!gpu_core_done(gc->core)) {
        uint64_t h = gpu_core_now(gc->core), t;

        if (!gc->outstanding) {
            t = gpu_core_next_event(gc->core);
            if (t == ~0ULL) {
                break;          /* nothing can happen: the core's bug */
            }
            h = MAX(h, t);
        }
        t = mcmgpu_ats_lookahead(h, gc->outstanding ? gc->iommu_next : ~0ULL,
                                 gc->cfg.pcie_lat, gc->cfg.walk_lat);
        gc->core_err = gpu_core_run(gc->core, t);
        if (gc->core_err) {
            break;
        }
        gc->horizon = t + gc->cfg.pcie_lat;
        res->horizon = gc->horizon;
        if (gc->nsent || gc->outstanding ||
            gpu_core_now(gc->core) - start >= GPU_WORK_CYCLES ||
            gpu_insts(gc) - insts >= GPU_WORK_INSTS) {
            return;
        }
    }
}

/*
 * One batch over the ATS rings, the run's first with START; with END the
 * run is over (ABANDON: failed) and the IOMMU's counters go out.
 */
static uint32_t gpu_exchange(MCMGPUState *s, GpuContext *gc, uint32_t flags,
                             struct mcmgpu_ats_response *rsp, uint32_t *n,
                             struct mcmgpu_gpu_result *res)
{
    char why[MCMGPU_GPU_MSG_MAX];
    uint64_t next = ~0ULL;
    uint32_t st;

    if (!gc->ats_started) {
        flags |= MCMGPU_ATS_BATCH_START;
    }
    st = mcmgpu_ats_exchange(s, gc->pasid, flags, gc->horizon, gc->sent,
                             flags & MCMGPU_ATS_BATCH_END ? 0 : gc->nsent,
                             rsp, n, &next, why, sizeof(why));
    if (st != MCMGPU_CMPL_OK) {
        return flags & MCMGPU_ATS_BATCH_ABANDON ? st :
               gpu_refuse(res, st, "GPU_RUN", "%s", why);
    }
    gc->ats_started = true;
    gc->iommu_next = next;
    return MCMGPU_CMPL_OK;
}

/*
 * Translation on: epochs and their batches until the run is done, the
 * core fails or the command's work is spent.
 */
static uint32_t gpu_run_translated(MCMGPUState *s, GpuContext *gc,
                                   struct mcmgpu_gpu_result *res)
{
    g_autofree struct mcmgpu_ats_response *rsp =
        g_new(struct mcmgpu_ats_response, MCMGPU_ATS_QUEUE_ENTRIES);
    uint64_t insts = gpu_insts(gc), start = gpu_core_now(gc->core);
    uint32_t st, n;

    for (;;) {
        gpu_epoch(gc, res);
        if (gc->core_err || gc->overflow) {
            return MCMGPU_CMPL_OK;      /* gpu_report says why */
        }
        res->requests = gc->nsent;
        if (gpu_core_done(gc->core)) {
            return gpu_exchange(s, gc, MCMGPU_ATS_BATCH_END, rsp, &n, res);
        }
        if (!gc->nsent && !gc->outstanding) {
            return MCMGPU_CMPL_OK;      /* the work is spent */
        }
        st = gpu_exchange(s, gc, 0, rsp, &n, res);
        if (st == MCMGPU_CMPL_OK) {
            st = gpu_deliver(s, gc, rsp, n, res);
        }
        if (st != MCMGPU_CMPL_OK) {
            return st;
        }
        gc->nsent = 0;
        if (gpu_insts(gc) - insts >= GPU_WORK_INSTS ||
            gpu_core_now(gc->core) - start >= GPU_WORK_CYCLES) {
            return MCMGPU_CMPL_OK;
        }
    }
}

/* args[3] the result, [4] the cycle to run to (translation off; ~0 the end) */
static uint32_t gpu_run(MCMGPUState *s, MCMGPUContext *ctx, uint16_t flags,
                        const uint64_t *args, MCMGPUCmdOut *out)
{
    GpuContext *gc = mcmgpu_ctx_state(ctx, &mcmgpu_gpu_engine);
    g_autofree struct mcmgpu_gpu_result *res =
        g_new0(struct mcmgpu_gpu_result, 1);
    uint64_t before = gc->core ? gpu_core_now(gc->core) : 0;
    uint32_t st = MCMGPU_CMPL_OK;

    gc->nsent = 0;
    if (!gc->started) {
        st = gpu_refuse(res, MCMGPU_CMPL_NO_TRACE, "GPU_RUN",
                        "no run started (GPU_START; a reset or migration "
                        "ends one)");
    } else if (gc->fail_status) {
        pstrcpy(res->msg, sizeof(res->msg), gc->fail_msg);
        st = gc->fail_status;
    } else if (!gc->cfg.translate) {
        gpu_run_plain(gc, args[4]);
    } else if (!mcmgpu_ats_enabled(s)) {
        st = gpu_refuse(res, MCMGPU_CMPL_ATS_DISABLED, "GPU_RUN",
                        "ATS: disabled in the device's ATS capability");
    } else {
        st = gpu_run_translated(s, gc, res);
    }
    if (gc->started && !gc->fail_status) {
        uint32_t r = gpu_report(gc, res);

        if (st == MCMGPU_CMPL_OK) {
            st = r;
        }
        if (st == MCMGPU_CMPL_OK && !res->done && !gc->outstanding &&
            !gc->nsent && res->next_event == ~0ULL) {
            st = gpu_refuse(res, MCMGPU_CMPL_BAD_TRACE, "GPU_RUN",
                            "the core waits with nothing in flight");
        }
        out->cycles = gpu_core_now(gc->core) - before;
        if (st != MCMGPU_CMPL_OK) {
            /* The run cannot go on (its requests are lost); STATS can. */
            gc->fail_status = st;
            pstrcpy(gc->fail_msg, sizeof(gc->fail_msg), res->msg);
            if (gc->cfg.translate && gc->ats_started &&
                st != MCMGPU_CMPL_NO_IOMMU) {
                uint32_t n;
                struct mcmgpu_ats_response rsp[1];

                /* Best effort: the IOMMU drops what it has in flight. */
                gpu_exchange(s, gc, MCMGPU_ATS_BATCH_END |
                             MCMGPU_ATS_BATCH_ABANDON, rsp, &n, res);
            }
            gc->outstanding = 0;
            if (!res->error) {
                res->error = -EPROTO;
            }
        }
    }
    trace_mcmgpu_gpu_run(res->cycle, res->requests, res->done, st);
    out->result = res->requests;
    if (mcmgpu_host_write(s, args[3], res, sizeof(*res)) != MEMTX_OK) {
        return MCMGPU_CMPL_DMA_FAULT;
    }
    return st;
}

/*
 * args[0] result, [1] stats, [2] their size, [3] records, [4] first,
 * [5] MCMGPU_GPU_STATS_ARG(record size, count)
 */
static uint32_t gpu_stats(MCMGPUState *s, MCMGPUContext *ctx, uint16_t flags,
                          const uint64_t *args, MCMGPUCmdOut *out)
{
    GpuContext *gc = mcmgpu_ctx_state(ctx, &mcmgpu_gpu_engine);
    g_autofree struct mcmgpu_gpu_result *res =
        g_new0(struct mcmgpu_gpu_result, 1);
    struct gpu_core_stats st = { 0 };
    uint32_t rec = (uint32_t)args[5], count = args[5] >> 32;
    uint64_t first = args[4], n = 0;
    uint32_t ret = MCMGPU_CMPL_OK;

    if (args[2] != sizeof(st) ||
        (count && rec != sizeof(struct gpu_kernel_stats))) {
        ret = gpu_refuse(res, MCMGPU_CMPL_BAD_ARG, "GPU_STATS",
                         "sizes %" PRIu64 "/%u, the device's %zu/%zu",
                         args[2], rec, sizeof(st),
                         sizeof(struct gpu_kernel_stats));
    } else if (!gc->core) {
        ret = gpu_refuse(res, MCMGPU_CMPL_NO_TRACE, "GPU_STATS",
                         "no run started");
    } else {
        gpu_report(gc, res);
        if (gc->fail_status) {
            pstrcpy(res->msg, sizeof(res->msg), gc->fail_msg);
            res->error = res->error ? res->error : -EPROTO;
        }
        gpu_core_stats(gc->core, &st);
        if (first < gc->nkern) {
            n = MIN((uint64_t)count, gc->nkern - first);
        }
        if (mcmgpu_host_write(s, args[1], &st, sizeof(st)) != MEMTX_OK ||
            (n && mcmgpu_host_write(s, args[3], gc->kern + first,
                                    n * sizeof(*gc->kern)) != MEMTX_OK)) {
            return MCMGPU_CMPL_DMA_FAULT;
        }
    }
    out->result = n;
    if (mcmgpu_host_write(s, args[0], res, sizeof(*res)) != MEMTX_OK) {
        return MCMGPU_CMPL_DMA_FAULT;
    }
    return ret;
}

/*
 * args[0] result, [1] objects, [2] the first one, [3] room: the OBJECT
 * records of the stored program, read through with a reader of its own
 * (the run's, if any, is left where it is).
 */
static uint32_t gpu_objects(MCMGPUState *s, MCMGPUContext *ctx,
                            uint16_t flags, const uint64_t *args,
                            MCMGPUCmdOut *out)
{
    GpuContext *gc = mcmgpu_ctx_state(ctx, &mcmgpu_gpu_engine);
    g_autofree struct mcmgpu_gpu_result *res =
        g_new0(struct mcmgpu_gpu_result, 1);
    g_autofree struct prog_reader *rd = NULL;
    g_autofree struct prog_rec *rec = NULL;
    g_autofree struct mcmgpu_gpu_object *obj = NULL;
    GpuProgCursor at = { .bytes = gc->prog, .len = gc->prog_len };
    uint64_t first = args[2], room = args[3], n = 0, copied = 0, charged = 0;
    uint32_t st = MCMGPU_CMPL_OK;
    int ret;

    if (room > MCMGPU_GPU_MAX_OBJECTS) {
        st = gpu_refuse(res, MCMGPU_CMPL_BAD_ARG, "GPU_OBJECTS",
                        "room for %" PRIu64 " objects, at most %u", room,
                        MCMGPU_GPU_MAX_OBJECTS);
        goto report;
    }
    if (!gc->prog_len) {
        st = gpu_refuse(res, MCMGPU_CMPL_NO_TRACE, "GPU_OBJECTS",
                        "no program loaded");
        goto report;
    }
    if (!mcmgpu_mem_charge(s, sizeof(*rd) + sizeof(*rec) +
                           room * sizeof(*obj))) {
        st = gpu_refuse(res, MCMGPU_CMPL_NO_MEMORY, "GPU_OBJECTS",
                        "no memory to read the program (mem-budget)");
        goto report;
    }
    charged = sizeof(*rd) + sizeof(*rec) + room * sizeof(*obj);
    rd = g_new0(struct prog_reader, 1);
    rec = g_new0(struct prog_rec, 1);
    obj = g_new0(struct mcmgpu_gpu_object, MAX(room, 1));
    ret = prog_reader_init(rd, gpu_prog_read, &at);
    if (ret) {
        st = gpu_refuse(res, MCMGPU_CMPL_BAD_TRACE, "GPU_OBJECTS",
                        "program: %s", gpu_header_why(ret));
        goto report;
    }
    while ((ret = prog_read_same(rd, rec)) == 1 &&
           rec->type != PROG_REC_END) {
        if (rec->type != PROG_REC_OBJECT) {
            continue;
        }
        if (n >= first && n - first < room) {
            obj[copied].base = cpu_to_le64(rec->object.base);
            obj[copied].size = cpu_to_le64(rec->object.size);
            copied++;
        }
        if (++n > MCMGPU_GPU_MAX_OBJECTS) {
            break;              /* the caller cannot map them all */
        }
    }
    if (ret < 0) {
        st = gpu_refuse(res, MCMGPU_CMPL_BAD_TRACE, "GPU_OBJECTS",
                        "program byte %" PRIu64 ": %s: %s", rd->offset,
                        rd->err_field ? rd->err_field : "record",
                        rd->err_why ? rd->err_why : "refused");
    } else if (copied && mcmgpu_host_write(s, args[1], obj,
                                           copied * sizeof(*obj))
               != MEMTX_OK) {
        st = MCMGPU_CMPL_DMA_FAULT;
    }
    trace_mcmgpu_gpu_objects(n, copied, st);
report:
    mcmgpu_mem_uncharge(s, charged);
    res->kernels = gc->nkern;
    out->result = st == MCMGPU_CMPL_OK ? n : 0;
    if (mcmgpu_host_write(s, args[0], res, sizeof(*res)) != MEMTX_OK) {
        return MCMGPU_CMPL_DMA_FAULT;
    }
    return st;
}

static const MCMGPUCommand gpu_commands[] = {
    { MCMGPU_OP_GPU_LOAD, "GPU_LOAD", MCMGPU_GPU_LOAD_FIRST, true, gpu_load },
    { MCMGPU_OP_GPU_START, "GPU_START", 0, true, gpu_start },
    { MCMGPU_OP_GPU_RUN, "GPU_RUN", 0, true, gpu_run },
    { MCMGPU_OP_GPU_STATS, "GPU_STATS", 0, true, gpu_stats },
    { MCMGPU_OP_GPU_OBJECTS, "GPU_OBJECTS", 0, true, gpu_objects },
    { 0 }
};

const MCMGPUEngine mcmgpu_gpu_engine = {
    .name = "gpu",
    .feature = MCMGPU_FEAT_GPU,
    .commands = gpu_commands,
    .ctx_new = gpu_ctx_new,
    .ctx_free = gpu_ctx_free,
    .not_migrated = "a loaded program and a run in flight are lost "
                    "(GPU_START and GPU_RUN answer NO_TRACE: load again)",
    .window = -1,
};
