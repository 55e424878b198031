/*
 * mcmgpu FinePack engine: a context's trace is loaded in chunks, then
 * replayed through the FinePack core (finepack.c), whose de-packetized
 * sub-packets land in the destination chiplets' memories.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/cutils.h"
#include "qemu/log.h"
#include "mcmgpu_engine.h"
#include "finepack.h"

/*
 * One context's trace buffer of TRACE_LOAD, and the core's model and
 * written-bytes bitmap, kept for the next replay with the same geometry:
 * every replay ends with a kernel end, which leaves the bitmap zero.
 */
typedef struct FPContext {
    uint8_t *trace;
    uint64_t total;
    uint64_t loaded;
    struct fp_model *model;
    void *written;
    uint64_t written_bytes;     /* charged with the model while kept */
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

static void fp_model_free(MCMGPUState *s, FPContext *fc)
{
    if (fc->model) {
        mcmgpu_mem_uncharge(s, sizeof(*fc->model) + fc->written_bytes);
    }
    g_free(fc->model);
    g_free(fc->written);
    fc->model = NULL;
    fc->written = NULL;
    fc->written_bytes = 0;
}

/* The kept model for cfg's bitmap size, or a new one; false: no memory. */
static bool fp_model_get(MCMGPUState *s, FPContext *fc,
                         const struct fp_config *cfg)
{
    uint64_t bytes = fp_bitmap_bytes(cfg);

    if (fc->model && fc->written_bytes == bytes) {
        return true;
    }
    fp_model_free(s, fc);
    if (!mcmgpu_mem_charge(s, sizeof(*fc->model) + bytes)) {
        return false;
    }
    fc->model = g_try_malloc0(sizeof(*fc->model));
    fc->written = g_try_malloc0(bytes);
    fc->written_bytes = bytes;
    if (!fc->model || !fc->written) {
        g_free(fc->model);
        g_free(fc->written);
        fc->model = NULL;
        fc->written = NULL;
        fc->written_bytes = 0;
        mcmgpu_mem_uncharge(s, sizeof(struct fp_model) + bytes);
        return false;
    }
    return true;
}

static void fp_ctx_free(MCMGPUState *s, void *state)
{
    fp_trace_free(s, state);
    fp_model_free(s, state);
    g_free(state);
}

/*
 * len bytes from the pages listed at list, starting first bytes into the
 * first page: the list is read FP_LIST_CHUNK entries at a time.
 */
#define FP_LIST_CHUNK   512

static uint32_t fp_trace_load_pages(MCMGPUState *s, FPContext *fc,
                                    uint64_t list, uint64_t first,
                                    uint64_t len)
{
    const uint64_t page = 1ULL << MCMGPU_PAGE_SHIFT;
    uint64_t entry[FP_LIST_CHUNK], loaded = ~0ULL, pos, idx, n;
    uint64_t start = fc->loaded;

    if (first >= page) {
        qemu_log_mask(LOG_GUEST_ERROR, "mcmgpu: TRACE_LOAD: data starts "
                      "0x%" PRIx64 " into its first page\n", first);
        return MCMGPU_CMPL_BAD_LENGTH;
    }
    for (pos = 0; pos < len; pos += n) {
        idx = (first + pos) / page;
        n = MIN(len - pos, page - (first + pos) % page);
        if (idx / FP_LIST_CHUNK != loaded) {
            uint64_t base = idx / FP_LIST_CHUNK * FP_LIST_CHUNK;
            uint64_t count = MIN((first + len + page - 1) / page - base,
                                 FP_LIST_CHUNK);

            if (mcmgpu_host_read(s, list + base * 8, entry, count * 8) !=
                MEMTX_OK) {
                qemu_log_mask(LOG_GUEST_ERROR, "mcmgpu: TRACE_LOAD page "
                              "list at 0x%" PRIx64 " not readable\n", list);
                fc->loaded = start;     /* all of the chunk or nothing */
                return MCMGPU_CMPL_DMA_FAULT;
            }
            loaded = idx / FP_LIST_CHUNK;
        }
        if (mcmgpu_host_read(s, le64_to_cpu(entry[idx % FP_LIST_CHUNK]) +
                             (first + pos) % page,
                             fc->trace + fc->loaded, n) != MEMTX_OK) {
            fc->loaded = start;
            return MCMGPU_CMPL_DMA_FAULT;
        }
        fc->loaded += n;
    }
    return MCMGPU_CMPL_OK;
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
    if (flags & MCMGPU_TRACE_LOAD_PAGES) {
        return fp_trace_load_pages(s, fc, host, args[4], len);
    }
    if (mcmgpu_host_read(s, host, fc->trace + off, len) != MEMTX_OK) {
        return MCMGPU_CMPL_DMA_FAULT;
    }
    fc->loaded += len;
    return MCMGPU_CMPL_OK;
}

/* Where a replay's sub-packets land: each chiplet's written hull. */
typedef struct FPSink {
    MCMGPUState *s;
    uint64_t vram;
    uint64_t lo[MCMGPU_MAX_CHIPLETS], hi[MCMGPU_MAX_CHIPLETS];
} FPSink;

static void fp_sink_write(void *opaque, u32 dst, u64 addr, const u8 *data,
                          u32 len)
{
    FPSink *k = opaque;

    /*
     * The trace check kept every record inside its chiplet. Dirty pages
     * are marked once per replay, over each hull: per sub-packet it was
     * a fifth of the replay.
     */
    mcmgpu_gpu_write_undirtied(k->s, dst * k->vram + addr, data, len);
    k->lo[dst] = MIN(k->lo[dst], addr);
    k->hi[dst] = MAX(k->hi[dst], addr + len);
}

static void fp_sink_dirty(FPSink *k)
{
    unsigned d;

    for (d = 0; d < MCMGPU_MAX_CHIPLETS; d++) {
        if (k->hi[d] > k->lo[d]) {
            mcmgpu_gpu_dirty(k->s, d * k->vram + k->lo[d],
                             k->hi[d] - k->lo[d]);
        }
    }
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
    FPSink k = { .s = s, .vram = g->vram_per_chiplet };
    struct fp_sink sink = { .ctx = &k, .write = fp_sink_write };
    g_autofree struct mcmgpu_fp_replay_result *res =
        g_new0(struct mcmgpu_fp_replay_result, 1);
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
        if (!fp_model_get(s, fc, &cfg)) {
            fp_trace_free(s, fc);
            return MCMGPU_CMPL_NO_MEMORY;
        }
        fp_model_init(fc->model, &cfg, &sink, fc->written);
        memset(k.lo, 0xff, sizeof(k.lo));
        fp_model_run(fc->model, &view);
        fp_sink_dirty(&k);
        res->stats = fc->model->stats;
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
    { MCMGPU_OP_TRACE_LOAD, "TRACE_LOAD", MCMGPU_TRACE_LOAD_PAGES, true,
      fp_trace_load },
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
