/*
 * mcmgpu Barre engine: the chiplets' translation side (chiplet_tlb.c). A
 * context's accesses run through its own chiplet TLBs in virtual cycles;
 * after each epoch the L2 misses leave as one batch on the IOMMU's ATS
 * rings (engine_iommu.c), and the IOMMU's answers come back before the
 * next epoch. One BARRE_RUN command runs many epochs.
 *
 * The epoch is the one the host replay runs (tools/mcmgpu/lib/
 * barre_host.c): from cycle H the chiplets run to T, the exact lookahead
 * given the IOMMU's next event (mcmgpu_ats_lookahead), and the IOMMU then
 * answers everything it completes before T + PCIe, which is all that can
 * reach the chiplets before the next T. So the device's counters equal
 * the host replay's, whatever the guest's timing. Epochs with nothing in
 * flight and nothing sent go on without a batch; the IOMMU would have
 * nothing to do in them.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/cutils.h"
#include "qemu/host-utils.h"
#include "qemu/log.h"
#include "mcmgpu_engine.h"
#include "mcmgpu_barre.h"
#include "chiplet_tlb.h"
#include "fbarre.h"

/* meson.build sizes F-Barre's state for the device's chiplets. */
QEMU_BUILD_BUG_ON(FBARRE_MAX_CHIPLETS < MCMGPU_MAX_CHIPLETS);

#define BARRE_MAX_REPLIES   (MCMGPU_MAX_CHIPLETS * MCMGPU_BARRE_MSHRS)

typedef struct BarreModel {
    struct chiplet_tlbs dev;
    struct chiplet_tlb_reply replies[BARRE_MAX_REPLIES];
    struct mcmgpu_ats_request sent[MCMGPU_ATS_QUEUE_ENTRIES];  /* epoch's */
    uint32_t nsent;
    uint64_t outstanding;   /* requests not answered yet */
    uint64_t horizon;       /* the last epoch's: answers are done before */
    uint64_t iommu_next;    /* the IOMMU's next event after it */
    uint64_t phase_start;   /* the cycle the running phase started */
    bool overflow;          /* more requests than the queue holds */
} BarreModel;

typedef struct BarreContext {
    MCMGPUState *s;
    uint32_t pasid;
    uint64_t root;          /* the context's page table, to check F-Barre */
    BarreModel *m;          /* from the first reset on */
    struct chiplet_tlb_access *acc;  /* the loaded phase */
    uint32_t *order;
    uint64_t nacc, cap;
    bool running;           /* a phase started and not done */
    uint64_t charged;       /* the model's */
    uint64_t phase_charged; /* the phase's */
} BarreContext;

static void *barre_ctx_new(MCMGPUState *s)
{
    BarreContext *bc = g_new0(BarreContext, 1);

    bc->s = s;
    return bc;
}

static void barre_phase_free(BarreContext *bc)
{
    mcmgpu_mem_uncharge(bc->s, bc->phase_charged);
    bc->phase_charged = 0;
    g_free(bc->acc);
    g_free(bc->order);
    bc->acc = NULL;
    bc->order = NULL;
    bc->nacc = bc->cap = 0;
    bc->running = false;
}

static void barre_ctx_free(MCMGPUState *s, void *state)
{
    BarreContext *bc = state;

    barre_phase_free(bc);
    g_free(bc->m);
    mcmgpu_mem_uncharge(s, bc->charged);
    g_free(bc);
}

/* The data side: a write stores its chiplet's signature byte. */
static void barre_mem(void *priv, const struct chiplet_tlb_access *a, u64 pfn)
{
    BarreContext *bc = priv;
    uint64_t gpa = (pfn << MCMGPU_PAGE_SHIFT) + a->offset;
    uint8_t byte = MCMGPU_BARRE_WRITE_BYTE(a->chiplet);

    if (a->write) {
        mcmgpu_gpu_write(bc->s, gpa, &byte, 1);
    } else {
        mcmgpu_gpu_read(bc->s, gpa, &byte, 1);
    }
}

/* F-Barre's check: an in-package answer against the guest's page table. */
static u64 barre_walk(void *priv, u64 vpn)
{
    BarreContext *bc = priv;

    return mcmgpu_guest_pt_walk(bc->s, bc->root, vpn);
}

static void barre_request(void *priv, const struct chiplet_tlb_request *r)
{
    BarreContext *bc = priv;
    BarreModel *m = bc->m;
    struct mcmgpu_ats_request *q;

    m->outstanding++;
    if (m->nsent == MCMGPU_ATS_QUEUE_ENTRIES) {
        m->overflow = true;     /* an MSHR each: cannot happen */
        return;
    }
    q = &m->sent[m->nsent++];
    q->tag = cpu_to_le64(r->tag);
    q->vpn = cpu_to_le64(r->vpn);
    q->issue = cpu_to_le64(r->issue);
    q->pasid = cpu_to_le32(bc->pasid);
    q->chiplet = r->chiplet;
    q->write = r->write;
    q->reserved = 0;
}

/* Accesses go after those already loaded; a bad one loads nothing. */
static uint32_t barre_load(MCMGPUState *s, MCMGPUContext *ctx, uint16_t flags,
                           const uint64_t *args, MCMGPUCmdOut *out)
{
    BarreContext *bc = mcmgpu_ctx_state(ctx, &mcmgpu_barre_engine);
    uint32_t chiplets = mcmgpu_geometry(s)->chiplets;
    g_autofree struct mcmgpu_barre_access *in = NULL;
    uint64_t n = args[1], i, keep;

    if (bc->running) {
        return MCMGPU_CMPL_BAD_ARG;     /* a phase is still running */
    }
    if (flags & MCMGPU_BARRE_LOAD_FIRST) {
        barre_phase_free(bc);
    }
    if (!n || n > MCMGPU_BARRE_LOAD_MAX || bc->nacc + n > UINT32_MAX) {
        return MCMGPU_CMPL_BAD_LENGTH;
    }
    in = g_new(struct mcmgpu_barre_access, n);
    if (mcmgpu_host_read(s, args[0], in, n * sizeof(*in)) != MEMTX_OK) {
        return MCMGPU_CMPL_DMA_FAULT;
    }
    for (i = 0; i < n; i++) {
        if (in[i].chiplet >= chiplets || in[i].write > 1 ||
            !buffer_is_zero(in[i].reserved, sizeof(in[i].reserved))) {
            out->result = i + 1;
            return MCMGPU_CMPL_BAD_TRACE;
        }
    }
    keep = bc->nacc;
    if (keep + n > bc->cap) {
        uint64_t cap = MAX(bc->cap * 2, keep + n);
        uint64_t bytes = (cap - bc->cap) *
                         (sizeof(*bc->acc) + sizeof(*bc->order));

        if (!mcmgpu_mem_charge(s, bytes)) {
            return MCMGPU_CMPL_NO_MEMORY;
        }
        bc->phase_charged += bytes;
        bc->acc = g_renew(struct chiplet_tlb_access, bc->acc, cap);
        bc->order = g_renew(uint32_t, bc->order, cap);
        bc->cap = cap;
    }
    for (i = 0; i < n; i++) {
        bc->acc[keep + i] = (struct chiplet_tlb_access){
            .vpn = le64_to_cpu(in[i].va) >> MCMGPU_PAGE_SHIFT,
            .offset = le64_to_cpu(in[i].va) & ((1U << MCMGPU_PAGE_SHIFT) - 1),
            .chiplet = in[i].chiplet,
            .write = in[i].write,
        };
    }
    bc->nacc = keep + n;
    return MCMGPU_CMPL_OK;
}

/* args[4], args[5] of a RESET: F-Barre's chiplets, or plain Barre. */
static uint32_t barre_reset(MCMGPUState *s, BarreContext *bc,
                            const uint64_t *args,
                            struct mcmgpu_barre_run_result *res)
{
    const struct mcmgpu_geometry *geo = mcmgpu_geometry(s);
    struct fbarre_config fc = {
        .sharing = args[4] & MCMGPU_FBARRE_ARG_SHARING,
        .run = MCMGPU_FBARRE_ARG_RUN(args[4]),
        .rows = MCMGPU_FBARRE_ARG_ROWS(args[4]),
        .drop_ppm = args[5] > 1000000 ? UINT32_MAX : args[5],
        .seed = 1,
    };

    if (fc.sharing && (args[4] & ~0xffffff01ULL || !fbarre_config_valid(&fc))) {
        qemu_log_mask(LOG_GUEST_ERROR, "mcmgpu: BARRE_RUN reset: bad F-Barre "
                      "arguments 0x%" PRIx64 " 0x%" PRIx64 "\n", args[4],
                      args[5]);
        pstrcpy(res->error.what, sizeof(res->error.what),
                "args[4]/args[5]: F-Barre run not 1..4, rows not 256/512/"
                "1024, unknown bits, or a loss rate above 10^6 ppm");
        return MCMGPU_CMPL_BAD_ARG;
    }
    barre_phase_free(bc);
    if (!bc->m) {
        if (!mcmgpu_mem_charge(s, sizeof(*bc->m))) {
            return MCMGPU_CMPL_NO_MEMORY;
        }
        bc->charged += sizeof(*bc->m);
        bc->m = g_new0(BarreModel, 1);
    }
    memset(bc->m, 0, sizeof(*bc->m));
    chiplet_tlb_init(&bc->m->dev, geo->chiplets, bc->m->replies,
            barre_request, barre_mem, bc);
    if (fc.sharing) {
        chiplet_tlb_fbarre(&bc->m->dev, &fc,
                           geo->vram_per_chiplet >> MCMGPU_PAGE_SHIFT, NULL);
    }
    return MCMGPU_CMPL_OK;
}

/*
 * One ATS response as the chiplets' reply, arriving pcie_cycles after the
 * IOMMU was done. F-Barre's extension is taken as it is: the chiplets
 * check it before they use it.
 */
void mcmgpu_ats_reply(struct chiplet_tlb_reply *r,
                      const struct mcmgpu_ats_response *rsp,
                      uint64_t pcie_cycles, uint32_t pasid)
{
    *r = (struct chiplet_tlb_reply){
        .tag = le64_to_cpu(rsp->tag),
        .pfn = le64_to_cpu(rsp->pfn),
        .arrive = le64_to_cpu(rsp->done) + pcie_cycles,
        .fault = le32_to_cpu(rsp->status) != MCMGPU_ATS_OK,
        .writable = rsp->writable,
    };
    if (rsp->has_group) {
        r->coal = le64_to_cpu(rsp->coal) & MCMGPU_PTE_COAL_MASK;
        r->pec = (struct mcmgpu_pec_entry){
            .start_vpn = le64_to_cpu(rsp->start_vpn),
            .end_vpn = le64_to_cpu(rsp->end_vpn),
            .pasid = pasid,
            .g = le32_to_cpu(rsp->g),
            .nmap = MIN(rsp->nmap, MCMGPU_MAX_CHIPLETS),
            .valid = 1,
        };
        memcpy(r->pec.map, rsp->map, sizeof(rsp->map));
    }
}

/* The IOMMU's answers to the last epoch; the first bad one stops them. */
static uint32_t barre_deliver(MCMGPUState *s, BarreContext *bc,
                              const struct mcmgpu_ats_response *rsp,
                              uint32_t n, struct mcmgpu_barre_run_result *res)
{
    uint64_t frames = mcmgpu_geometry_total(mcmgpu_geometry(s)) >>
                      MCMGPU_PAGE_SHIFT;
    uint32_t i;

    for (i = 0; i < n; i++) {
        struct chiplet_tlb_reply r;

        mcmgpu_ats_reply(&r, &rsp[i], MCMGPU_BARRE_PCIE_CYCLES, bc->pasid);

        /*
         * A frame past the GPU's memory: pfn << 12 would wrap from 2^52
         * on, and the TLBs (which keep the PTE's PFN field) and F-Barre's
         * formula would disagree with the data path.
         */
        if (!r.fault && r.pfn >= frames) {
            qemu_log_mask(LOG_GUEST_ERROR, "mcmgpu: ATS response %u"
                          " (tag %" PRIu64 ") translates to PFN 0x%" PRIx64
                          ", past the GPU's %" PRIu64 " frames\n", i + 1,
                          r.tag, r.pfn, frames);
            res->error.index = i + 1;
            res->error.value = r.pfn;
            pstrcpy(res->error.what, sizeof(res->error.what),
                    "pfn: past the GPU's memory");
            return MCMGPU_CMPL_BAD_ATS_RESPONSE;
        }
        /*
         * An answer arriving before the chiplets' cycle is one the IOMMU's
         * next event promised not to give (the lookahead ran past it).
         */
        if (bc->m && r.arrive < bc->m->dev.now) {
            qemu_log_mask(LOG_GUEST_ERROR, "mcmgpu: ATS response %u (tag %"
                          PRIu64 ") arrives at cycle %" PRIu64 ", before the"
                          " chiplets' %" PRIu64 "\n", i + 1, r.tag, r.arrive,
                          bc->m->dev.now);
            res->error.index = i + 1;
            res->error.value = r.arrive;
            pstrcpy(res->error.what, sizeof(res->error.what),
                    "done: earlier than the IOMMU's next event said (the "
                    "answer arrives in the chiplets' past)");
            return MCMGPU_CMPL_BAD_ATS_RESPONSE;
        }
        /*
         * An answer from past the horizon would park a chiplet at a cycle
         * the epochs may never reach (or wrap the clock).
         */
        if (!bc->m || le64_to_cpu(rsp[i].done) >= bc->m->horizon ||
            chiplet_tlb_deliver(&bc->m->dev, &r)) {
            qemu_log_mask(LOG_GUEST_ERROR, "mcmgpu: ATS response %u"
                          " answers tag %" PRIu64 ", not a request in "
                          "flight\n", i + 1, r.tag);
            res->error.index = i + 1;
            res->error.value = r.tag;
            pstrcpy(res->error.what, sizeof(res->error.what),
                    "tag or done: no request in flight has the tag (never "
                    "sent, or answered already), or done is past the "
                    "epoch's horizon");
            return MCMGPU_CMPL_BAD_ATS_RESPONSE;
        }
        bc->m->outstanding--;
    }
    return MCMGPU_CMPL_OK;
}

/*
 * Runs epochs until one sends requests or waits for answers: each to the
 * exact lookahead given the IOMMU's next event (mcmgpu_ats_lookahead), in
 * pieces that end on the phase's grid so that the phase ends where fixed
 * epochs ended it (mcmgpu_barre_grid_next), as the host replay does.
 */
static void barre_epoch(BarreContext *bc, struct mcmgpu_barre_run_result *res)
{
    struct chiplet_tlbs *d = &bc->m->dev;
    const uint32_t pcie = MCMGPU_BARRE_PCIE_CYCLES;

    bc->m->nsent = 0;
    while (!chiplet_tlb_done(d)) {
        uint64_t h = d->now, t, g;

        if (!bc->m->outstanding) {
            t = chiplet_tlb_next_event(d);
            if (t == ~0ULL) {
                break;          /* nothing can happen: a model bug */
            }
            h = MAX(h, t);
        }
        t = mcmgpu_ats_lookahead(h, bc->m->outstanding ? bc->m->iommu_next :
                                 ~0ULL, pcie, MCMGPU_BARRE_WALK_CYCLES);
        g = mcmgpu_barre_grid_next(bc->m->phase_start, h, pcie);
        for (;;) {
            chiplet_tlb_run(d, MIN(g, t));
            if (chiplet_tlb_done(d)) {
                chiplet_tlb_run(d, g);
                break;
            }
            if (g >= t) {
                break;
            }
            g += 2ULL * pcie;
        }
        res->horizon = d->now + pcie;
        bc->m->horizon = res->horizon;
        if (bc->m->nsent || bc->m->outstanding) {
            return;
        }
    }
    bc->running = false;
    res->done = 1;
}

/* Exchanges a command: a long phase takes several, so a kill can end it. */
#define BARRE_CMD_EPOCHS    4096

/*
 * The phase's last batch: its end (the IOMMU's counters go out), or with
 * ABANDON its failure (what it has in flight is dropped).
 */
static uint32_t barre_end(MCMGPUState *s, BarreContext *bc, uint32_t flags,
                          struct mcmgpu_barre_run_result *res)
{
    struct mcmgpu_ats_response rsp[1];
    char why[sizeof(res->error.what)];
    uint64_t next;
    uint32_t n;

    /* A failure keeps its own message. */
    return mcmgpu_ats_exchange(s, bc->pasid, flags | MCMGPU_ATS_BATCH_END,
                               bc->m->horizon, NULL, 0, rsp, &n, &next,
                               flags & MCMGPU_ATS_BATCH_ABANDON ?
                               why : res->error.what, sizeof(why));
}

/* Epochs and their batches until the phase is done or the budget spent. */
static uint32_t barre_drive(MCMGPUState *s, BarreContext *bc, bool start,
                            struct mcmgpu_barre_run_result *res)
{
    g_autofree struct mcmgpu_ats_response *rsp =
        g_new(struct mcmgpu_ats_response, MCMGPU_ATS_QUEUE_ENTRIES);
    uint32_t flags = start ? MCMGPU_ATS_BATCH_START : 0, st, n, i;

    for (i = 0; i < BARRE_CMD_EPOCHS; i++) {
        barre_epoch(bc, res);
        if (bc->m->overflow) {
            return MCMGPU_CMPL_NO_MEMORY;
        }
        res->requests = bc->m->nsent;
        if (res->done) {
            return barre_end(s, bc, flags, res);
        }
        st = mcmgpu_ats_exchange(s, bc->pasid, flags, res->horizon,
                                 bc->m->sent, bc->m->nsent, rsp, &n,
                                 &bc->m->iommu_next, res->error.what,
                                 sizeof(res->error.what));
        if (st != MCMGPU_CMPL_OK) {
            return st;
        }
        flags = 0;
        st = barre_deliver(s, bc, rsp, n, res);
        if (st != MCMGPU_CMPL_OK) {
            return st;
        }
    }
    return MCMGPU_CMPL_OK;
}

/*
 * args[3] the result; RESET: args[4], args[5] F-Barre's; START: args[4]
 * the page-table root. Without a flag the running phase goes on.
 */
static uint32_t barre_run(MCMGPUState *s, MCMGPUContext *ctx, uint16_t flags,
                          const uint64_t *args, MCMGPUCmdOut *out)
{
    BarreContext *bc = mcmgpu_ctx_state(ctx, &mcmgpu_barre_engine);
    g_autofree struct mcmgpu_barre_run_result *res =
        g_new0(struct mcmgpu_barre_run_result, 1);
    uint64_t before = bc->m ? bc->m->dev.stats.modeled_cycles : 0;
    uint32_t st = MCMGPU_CMPL_OK;

    bc->pasid = mcmgpu_ctx_id(ctx);
    if (ctpop16(flags) > 1) {
        return MCMGPU_CMPL_BAD_FLAGS;
    }
    if (flags & MCMGPU_BARRE_RUN_RESET) {
        st = barre_reset(s, bc, args, res);
        res->done = 1;
    } else if (flags & MCMGPU_BARRE_RUN_REPORT) {
        res->done = !bc->running;
    } else if (!mcmgpu_ats_enabled(s)) {
        pstrcpy(res->error.what, sizeof(res->error.what),
                "ATS: disabled in the device's ATS capability");
        st = MCMGPU_CMPL_ATS_DISABLED;
    } else if (flags & MCMGPU_BARRE_RUN_START) {
        if (!bc->m || bc->running || !bc->nacc ||
            !chiplet_tlb_done(&bc->m->dev) || bc->m->outstanding) {
            /*
             * A phase ended early leaves translations in flight that
             * point into its accesses: only a reset clears them.
             */
            pstrcpy(res->error.what, sizeof(res->error.what),
                    !bc->m ? "flags: no reset yet" :
                    bc->running ? "flags: a phase is running" :
                    !bc->nacc ? "flags: no accesses loaded" :
                    "flags: the last phase ended with translations in "
                    "flight; reset first");
            st = MCMGPU_CMPL_NO_TRACE;
        } else {
            chiplet_tlb_phase(&bc->m->dev, bc->acc, bc->nacc, bc->order);
            bc->m->phase_start = bc->m->dev.now;
            bc->root = args[4];
            bc->m->dev.walk = bc->root ? barre_walk : NULL;
            bc->running = true;
        }
    } else if (!bc->running) {
        pstrcpy(res->error.what, sizeof(res->error.what),
                "flags: no phase is running (a reset or a migration "
                "ended it)");
        st = MCMGPU_CMPL_NO_TRACE;
    }
    if (st == MCMGPU_CMPL_OK && bc->running &&
        !(flags & MCMGPU_BARRE_RUN_REPORT)) {
        st = barre_drive(s, bc, flags & MCMGPU_BARRE_RUN_START, res);
        if (st != MCMGPU_CMPL_OK) {
            bc->running = false;
            if (st != MCMGPU_CMPL_NO_IOMMU) {
                /* Best effort: the IOMMU drops what it has in flight. */
                barre_end(s, bc, MCMGPU_ATS_BATCH_ABANDON, res);
            }
        }
    } else if (st != MCMGPU_CMPL_OK) {
        bc->running = false;    /* the phase cannot go on without it */
    }
    if (bc->m) {
        chiplet_tlb_export_stats(&bc->m->dev, &res->stats);
        out->cycles = bc->m->dev.stats.modeled_cycles - before;
    }
    out->result = res->requests;
    if (mcmgpu_host_write(s, args[3], res, sizeof(*res)) != MEMTX_OK) {
        return MCMGPU_CMPL_DMA_FAULT;
    }
    return st;
}

static uint32_t barre_tlb_invalidate(MCMGPUState *s, MCMGPUContext *ctx,
                                     uint16_t flags, const uint64_t *args,
                                     MCMGPUCmdOut *out)
{
    BarreContext *bc = mcmgpu_ctx_state(ctx, &mcmgpu_barre_engine);

    if (bc->m) {
        chiplet_tlb_shootdown(&bc->m->dev);
    }
    return MCMGPU_CMPL_OK;
}

static const MCMGPUCommand barre_commands[] = {
    { MCMGPU_OP_BARRE_LOAD, "BARRE_LOAD", MCMGPU_BARRE_LOAD_FIRST, true,
      barre_load },
    { MCMGPU_OP_BARRE_RUN, "BARRE_RUN",
      MCMGPU_BARRE_RUN_RESET | MCMGPU_BARRE_RUN_START |
      MCMGPU_BARRE_RUN_REPORT, true, barre_run },
    { MCMGPU_OP_TLB_INVALIDATE, "TLB_INVALIDATE", 0, true,
      barre_tlb_invalidate },
    { 0 }
};

const MCMGPUEngine mcmgpu_barre_engine = {
    .name = "barre",
    .feature = MCMGPU_FEAT_BARRE,
    .commands = barre_commands,
    .ctx_new = barre_ctx_new,
    .ctx_free = barre_ctx_free,
    .not_migrated = "a phase in flight fails (NO_TRACE); TLBs restart empty",
    .window = -1,
};
