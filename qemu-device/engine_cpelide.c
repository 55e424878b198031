/*
 * mcmgpu CPElide engine: the global command processor. A context's launch
 * records (one per CP_LAUNCH) drive its own Chiplet Coherence Table and
 * cache model in the CPElide core (cpelide.c).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/cutils.h"
#include "mcmgpu_engine.h"
#include "cpelide.h"

/* One context's launch sequence, from its RESET record on. */
typedef struct CPEContext {
    struct cpe_model *cp;
    void *arena;
    uint64_t charged;       /* against the device's memory budget */
} CPEContext;

static void *cpe_ctx_new(MCMGPUState *s)
{
    return g_new0(CPEContext, 1);
}

static void cpe_sequence_free(MCMGPUState *s, CPEContext *cc)
{
    mcmgpu_mem_uncharge(s, cc->charged);
    cc->charged = 0;
    g_free(cc->cp);
    g_free(cc->arena);
    cc->cp = NULL;
    cc->arena = NULL;
}

static void cpe_ctx_free(MCMGPUState *s, void *state)
{
    cpe_sequence_free(s, state);
    g_free(state);
}

/* A refused reset changes nothing: the running sequence stays. */
static uint32_t cpe_reset(MCMGPUState *s, CPEContext *cc,
                          const struct mcmgpu_cpe_record *r,
                          struct mcmgpu_cpe_launch_result *res)
{
    struct cpe_config cfg;
    const char *why;

    if (!cpe_reset_check(r, &why)) {
        pstrcpy(res->error.what, sizeof(res->error.what), why);
        return MCMGPU_CMPL_BAD_LAUNCH;
    }
    if (r->chiplets > mcmgpu_geometry(s)->chiplets) {
        pstrcpy(res->error.what, sizeof(res->error.what),
                "chiplets: more than the device has");
        return MCMGPU_CMPL_BAD_LAUNCH;
    }
    cpe_sequence_free(s, cc);
    cpe_config_of_reset(&cfg, r);
    if (!mcmgpu_mem_charge(s, sizeof(*cc->cp) + cpe_arena_bytes(&cfg))) {
        pstrcpy(res->error.what, sizeof(res->error.what),
                "mem_bytes: the device's memory budget is used up");
        return MCMGPU_CMPL_NO_MEMORY;
    }
    cc->charged = sizeof(*cc->cp) + cpe_arena_bytes(&cfg);
    cc->cp = g_try_malloc0(sizeof(*cc->cp));
    cc->arena = g_try_malloc0(cpe_arena_bytes(&cfg));
    if (!cc->cp || !cc->arena) {
        cpe_sequence_free(s, cc);
        return MCMGPU_CMPL_NO_MEMORY;
    }
    cpe_model_init(cc->cp, &cfg, cc->arena);
    return MCMGPU_CMPL_OK;
}

/* args[0] the record's host address, args[1] the result's. */
static uint32_t cpe_launch(MCMGPUState *s, MCMGPUContext *ctx, uint16_t flags,
                           const uint64_t *args, MCMGPUCmdOut *out)
{
    CPEContext *cc = mcmgpu_ctx_state(ctx, &mcmgpu_cpelide_engine);
    g_autofree struct mcmgpu_cpe_record *r =
        g_new0(struct mcmgpu_cpe_record, 1);
    g_autofree struct mcmgpu_cpe_launch_result *res =
        g_new0(struct mcmgpu_cpe_launch_result, 1);
    uint64_t before = cc->cp ? cc->cp->stats.modeled_cycles : 0;
    struct cpe_error err;
    uint32_t st = MCMGPU_CMPL_OK;

    if (mcmgpu_host_read(s, args[0], r, sizeof(*r)) != MEMTX_OK) {
        return MCMGPU_CMPL_DMA_FAULT;
    }
    if (r->type == MCMGPU_CPE_REC_RESET) {
        st = cpe_reset(s, cc, r, res);
        if (st == MCMGPU_CMPL_OK) {
            before = 0;
        }
    } else if (!cc->cp) {
        pstrcpy(res->error.what, sizeof(res->error.what),
                "type: no sequence (send a reset record first)");
        st = MCMGPU_CMPL_BAD_LAUNCH;
    } else if (cpe_record_check(cc->cp, r, &err)) {
        res->error.index = err.arg;
        res->error.value = err.value;
        pstrcpy(res->error.what, sizeof(res->error.what), err.what);
        st = MCMGPU_CMPL_BAD_LAUNCH;
    } else if (r->type == MCMGPU_CPE_REC_END) {
        cpe_model_finish(cc->cp);
    } else {
        cpe_model_record(cc->cp, r);
    }
    if (cc->cp) {
        res->stats = cc->cp->stats;
        out->cycles = cc->cp->stats.modeled_cycles - before;
    }
    if (mcmgpu_host_write(s, args[1], res, sizeof(*res)) != MEMTX_OK) {
        return MCMGPU_CMPL_DMA_FAULT;
    }
    return st;
}

static const MCMGPUCommand cpe_commands[] = {
    { MCMGPU_OP_CP_LAUNCH, "CP_LAUNCH", 0, true, cpe_launch },
    { 0 }
};

const MCMGPUEngine mcmgpu_cpelide_engine = {
    .name = "cpelide",
    .feature = MCMGPU_FEAT_CPELIDE,
    .commands = cpe_commands,
    .ctx_new = cpe_ctx_new,
    .ctx_free = cpe_ctx_free,
    .not_migrated = "a launch sequence restarts with its next reset record",
    .window = -1,
};
