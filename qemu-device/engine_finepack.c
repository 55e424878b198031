/*
 * mcmgpu FinePack engine: a context's trace is loaded in chunks, then
 * replayed through the FinePack core (finepack.c), whose de-packetized
 * sub-packets land in the destination chiplets' memories.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/cutils.h"
#include "mcmgpu_engine.h"
#include "finepack.h"

/* One context's trace buffer of TRACE_LOAD. */
typedef struct FPContext {
    uint8_t *trace;
    uint64_t total;
    uint64_t loaded;
} FPContext;

static void *fp_ctx_new(MCMGPUState *s)
{
    return g_new0(FPContext, 1);
}

static void fp_trace_free(MCMGPUState *s, FPContext *fc)
{
    if (fc->trace) {
        mcmgpu_mem_uncharge(s, fc->total);
    }
    g_free(fc->trace);
    fc->trace = NULL;
    fc->total = 0;
    fc->loaded = 0;
}

static void fp_ctx_free(MCMGPUState *s, void *state)
{
    fp_trace_free(s, state);
    g_free(state);
}

/* args: host address, offset (0 starts a trace), length, total length. */
static uint32_t fp_trace_load(MCMGPUState *s, MCMGPUContext *ctx,
                              uint16_t flags, const uint64_t *args,
                              MCMGPUCmdOut *out)
{
    FPContext *fc = mcmgpu_ctx_state(ctx, &mcmgpu_finepack_engine);
    uint64_t host = args[0], off = args[1], len = args[2], total = args[3];

    if (off == 0) {
        fp_trace_free(s, fc);
        if (total == 0 || total > MCMGPU_FP_TRACE_MAX_BYTES) {
            return MCMGPU_CMPL_BAD_LENGTH;
        }
        if (!mcmgpu_mem_charge(s, total)) {
            return MCMGPU_CMPL_NO_MEMORY;
        }
        fc->trace = g_try_malloc(total);
        if (!fc->trace) {
            mcmgpu_mem_uncharge(s, total);
            return MCMGPU_CMPL_NO_MEMORY;
        }
        fc->total = total;
    }
    if (!fc->trace || total != fc->total || off != fc->loaded ||
        len == 0 || len > MCMGPU_DMA_MAX_LEN || len > total - off) {
        return MCMGPU_CMPL_BAD_LENGTH;
    }
    if (mcmgpu_host_read(s, host, fc->trace + off, len) != MEMTX_OK) {
        return MCMGPU_CMPL_DMA_FAULT;
    }
    fc->loaded += len;
    return MCMGPU_CMPL_OK;
}

static void fp_sink_write(void *opaque, u32 dst, u64 addr, const u8 *data,
                          u32 len)
{
    MCMGPUState *s = opaque;

    /* The trace check kept every record inside its chiplet. */
    mcmgpu_gpu_write(s, dst * mcmgpu_geometry(s)->vram_per_chiplet + addr,
                     data, len);
}

/* args: total length, sub-header, overhead, result address. */
static uint32_t fp_run(MCMGPUState *s, MCMGPUContext *ctx, uint16_t flags,
                       const uint64_t *args, MCMGPUCmdOut *out)
{
    FPContext *fc = mcmgpu_ctx_state(ctx, &mcmgpu_finepack_engine);
    const struct mcmgpu_geometry *g = mcmgpu_geometry(s);
    struct fp_config cfg = {
        .chiplets = g->chiplets,
        .subheader = args[1] > UINT8_MAX ? 0 : args[1],
        .overhead = args[2] > UINT8_MAX ? 0 : args[2],
        .vram_per_chiplet = g->vram_per_chiplet,
    };
    struct fp_sink sink = { .ctx = s, .write = fp_sink_write };
    g_autofree struct mcmgpu_fp_replay_result *res =
        g_new0(struct mcmgpu_fp_replay_result, 1);
    g_autofree struct fp_model *model = NULL;
    g_autofree void *written = NULL;
    struct fp_trace_view view;
    struct fp_error err;
    uint32_t st = MCMGPU_CMPL_OK;

    if (!fc->trace || args[0] != fc->total || fc->loaded != fc->total) {
        return MCMGPU_CMPL_NO_TRACE;
    }
    if (fp_trace_check(fc->trace, fc->total, &cfg, &view, &err)) {
        res->error.index = err.record;
        res->error.value = err.value;
        pstrcpy(res->error.what, sizeof(res->error.what), err.what);
        out->result = err.record;
        st = MCMGPU_CMPL_BAD_TRACE;
    } else {
        uint64_t need = sizeof(*model) + fp_bitmap_bytes(&cfg);

        if (!mcmgpu_mem_charge(s, need)) {
            fp_trace_free(s, fc);
            return MCMGPU_CMPL_NO_MEMORY;
        }
        model = g_try_malloc0(sizeof(*model));
        written = g_try_malloc0(fp_bitmap_bytes(&cfg));
        if (!model || !written) {
            mcmgpu_mem_uncharge(s, need);
            fp_trace_free(s, fc);
            return MCMGPU_CMPL_NO_MEMORY;
        }
        fp_model_init(model, &cfg, &sink, written);
        fp_model_run(model, &view);
        mcmgpu_mem_uncharge(s, need);
        res->stats = model->stats;
        /* Link time at 16 B per device cycle (PCIe 4.0 x16 at 2 GHz). */
        out->cycles = (res->stats.wire_payload + res->stats.wire_subheader +
                       res->stats.wire_overhead +
                       res->stats.wire_padding) / 16;
        out->result = res->stats.records;
    }
    fp_trace_free(s, fc);
    if (mcmgpu_host_write(s, args[3], res, sizeof(*res)) != MEMTX_OK) {
        return MCMGPU_CMPL_DMA_FAULT;
    }
    return st;
}

static const MCMGPUCommand fp_commands[] = {
    { MCMGPU_OP_TRACE_LOAD, "TRACE_LOAD", 0, true, fp_trace_load },
    { MCMGPU_OP_FINEPACK_RUN, "FINEPACK_RUN", 0, true, fp_run },
    { 0 }
};

const MCMGPUEngine mcmgpu_finepack_engine = {
    .name = "finepack",
    .feature = MCMGPU_FEAT_FINEPACK,
    .commands = fp_commands,
    .ctx_new = fp_ctx_new,
    .ctx_free = fp_ctx_free,
    .not_migrated = "a trace in flight is reloaded by the next replay",
    .window = -1,
};
