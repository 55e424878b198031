/*
 * FinePack in the GPU timing core (gpu_finepack.h): finepack.c's queues
 * fed with the core's remote store sectors, and the packets each mode
 * sends.
 *
 * Decisions (docs/gpu.md, "FinePack in the core"):
 * - A store sector's bytes are its lanes' bytes (the decoder's masks);
 *   each contiguous run is one store of the queue (the L1 sends sectors,
 *   so a 128 B warp store is four stores; they coalesce in the queue).
 * - Atomics and reductions stay on the per-sector path; like loads, they
 *   flush their partition first when their line is queued (finepack.c's
 *   rule), so they reach the home after the data queued before them.
 * - p2p sends a warp store's bytes in a line at once, each contiguous run
 *   a plain TLP: the L1 coalesces a warp into at most one 128 B access
 *   (§III), so its sectors leave together (gpu_fp_p2p_line(), called
 *   once a line by the core); wc and finepack send a
 *   flushed partition as one transfer (wc: a TLP a run, back to back);
 *   dma keeps the flushed bytes until the kernel ends and then copies,
 *   per source and destination, the bytes it got in 4 KiB TLPs. dma holds
 *   nothing back from loads: a kernel that reads what it wrote remotely
 *   is not what bulk DMA serves.
 * - The queue runs in every mode, so every scheme's bytes are counted on
 *   one run (the mode's own traffic is link_bytes).
 * - gps and alt (FinePack §VI-B's two comparisons; docs/gpu.md) use the
 *   same queue and flushes, so they differ from finepack only in what a
 *   flush costs on the wire and, for gps, in which stores are sent:
 *   alt sends a flush as a config packet (a TLP of O bytes: the base and
 *   the fields its stores share) and each sub-packet as its own TLP of
 *   h + its bytes + GPU_FP_ALT_PER_STORE (no DW padding, as §VI-B
 *   counts it); gps sends each flushed line as one TLP carrying the whole
 *   128 B line ("coalescing at the cacheline granularity": the bytes not
 *   written are §VI-B's "unneeded transfers within a cacheline"; the
 *   home writes only the written ones). gps drops a store to a page its
 *   home has not subscribed to: every page is subscribed while the
 *   program profiles (from its first kernel to the next launch of that
 *   kernel's name: an iterative program's first iteration stands for
 *   GPS's programmer-marked profiling region), then only the pages the
 *   home's SMs have loaded (a later load subscribes again; values are
 *   not modeled, so what a dropped store carried is not re-fetched).
 *   A subscription is a 4 KiB page (the core's; paper silent).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "gpu_finepack.h"
#include "finepack.h"

#define NPAIR       MCMGPU_FP_MAX_GPUS

struct gpu_fp {
    u32 mode, chiplets;
    gpu_fp_alloc_fn alloc;
    gpu_fp_free_fn free;
    void *priv;
    bool oom;
    bool flushing;          /* kernel end: flushed, packets on their way */
    struct fp_model *m;
    struct gpu_fp_packet *p;
    u32 capp, freep;
    struct gpu_fp_write *w;
    u32 capw, freew;
    u32 ready_head, ready_tail;
    u32 cur;                /* the packet the running flush fills */
    u32 cur_src;
    u64 last_wc;            /* m->stats.wc_wire_bytes at the last flush */
    /* This kernel's flushed bytes a pair, and (dma) their writes */
    u64 pair_bytes[NPAIR][NPAIR];
    u32 dma_head[NPAIR][NPAIR], dma_tail[NPAIR][NPAIR];
    struct gpu_finepack_stats st;
    u8 zero[GPU_SECTOR_BYTES];
    /* gps: the subscribed pages (a hash set) and the profiling region */
    u64 *gps_sub;           /* page + 1, 0 = empty; gps_cap a power of 2 */
    u64 gps_cap;
    u64 gps_line;           /* the last line the running flush sent */
    bool gps_profiling;
    bool gps_started;
    char gps_first[64];     /* the first kernel's name */
};

/* ---- Tables ------------------------------------------------------------ */

static bool grow(struct gpu_fp *f, void **arr, u32 *cap, size_t elem,
                 u32 *freelist, size_t next_off)
{
    u32 ncap = *cap ? *cap * 2 : 256, i;
    u8 *n;

    if (ncap > 0x40000000u) {
        f->oom = true;
        return false;
    }
    n = f->alloc(f->priv, (size_t)ncap * elem);
    if (!n) {
        f->oom = true;
        return false;
    }
    if (*arr) {
        memcpy(n, *arr, (size_t)*cap * elem);
        f->free(f->priv, *arr);
    }
    for (i = ncap; i-- > *cap;) {
        u32 *next = (u32 *)(n + (size_t)i * elem + next_off);

        *next = *freelist;
        *freelist = i;
    }
    *arr = n;
    *cap = ncap;
    return true;
}

static u32 packet_new(struct gpu_fp *f, u32 src, u32 dst, u64 wire)
{
    struct gpu_fp_packet *k;
    u32 i;

    if (f->freep == GPU_FP_NONE &&
        !grow(f, (void **)&f->p, &f->capp, sizeof(*f->p), &f->freep,
              offsetof(struct gpu_fp_packet, next))) {
        return GPU_FP_NONE;
    }
    i = f->freep;
    k = &f->p[i];
    f->freep = k->next;
    k->wire = wire;
    k->src = src;
    k->dst = dst;
    k->head = GPU_FP_NONE;
    k->tail = GPU_FP_NONE;
    k->next = GPU_FP_NONE;
    return i;
}

static void packet_ready(struct gpu_fp *f, u32 i)
{
    if (f->ready_head == GPU_FP_NONE) {
        f->ready_head = i;
    } else {
        f->p[f->ready_tail].next = i;
    }
    f->ready_tail = i;
}

/* Appends a write to the list *head..*tail. */
static void write_add(struct gpu_fp *f, u32 *head, u32 *tail, u64 addr,
                      u32 len)
{
    struct gpu_fp_write *w;
    u32 i;

    if (f->freew == GPU_FP_NONE &&
        !grow(f, (void **)&f->w, &f->capw, sizeof(*f->w), &f->freew,
              offsetof(struct gpu_fp_write, next))) {
        return;
    }
    i = f->freew;
    w = &f->w[i];
    f->freew = w->next;
    w->addr = addr;
    w->len = len;
    w->next = GPU_FP_NONE;
    if (*head == GPU_FP_NONE) {
        *head = i;
    } else {
        f->w[*tail].next = i;
    }
    *tail = i;
}

/* ---- The queue's sink: a flush's packet, then its sub-packets ---------- */

static void sink_packet(void *ctx, u32 src, u32 dst, u64 base, const u8 *buf,
                        u32 len)
{
    struct gpu_fp *f = ctx;
    u64 wc = f->m->stats.wc_wire_bytes - f->last_wc;

    (void)base;
    (void)buf;
    f->last_wc = f->m->stats.wc_wire_bytes;
    f->cur_src = src;
    f->cur = GPU_FP_NONE;
    if (f->mode == GPU_FP_FINEPACK) {
        f->cur = packet_new(f, src, dst,
                            GPU_FP_OVERHEAD + ((len + 3) & ~3u));
    } else if (f->mode == GPU_FP_WC) {
        f->cur = packet_new(f, src, dst, wc);
    } else if (f->mode == GPU_FP_ALT) {
        /* The config packet, then (sink_write) a TLP a sub-packet. */
        f->cur = packet_new(f, src, dst, GPU_FP_OVERHEAD + len);
        f->st.alt_tlps++;
        f->st.alt_wire_bytes += GPU_FP_OVERHEAD + len;
    } else if (f->mode == GPU_FP_GPS) {
        f->cur = packet_new(f, src, dst, 0);    /* sink_write: the lines */
        f->gps_line = UINT64_MAX;
    }
    if (f->cur != GPU_FP_NONE) {
        packet_ready(f, f->cur);
    }
}

static void sink_write(void *ctx, u32 dst, u64 addr, const u8 *data, u32 len)
{
    struct gpu_fp *f = ctx;
    u32 src = f->cur_src;

    (void)data;
    f->pair_bytes[src][dst] += len;
    if (f->cur != GPU_FP_NONE && f->mode == GPU_FP_ALT) {
        f->p[f->cur].wire += GPU_FP_ALT_PER_STORE;
        f->st.alt_tlps++;
        f->st.alt_wire_bytes += GPU_FP_ALT_PER_STORE;
    } else if (f->cur != GPU_FP_NONE && f->mode == GPU_FP_GPS &&
               addr / GPU_FP_GPS_LINE != f->gps_line) {
        /* A flush gives an entry's runs together: a new line, a TLP. */
        f->gps_line = addr / GPU_FP_GPS_LINE;
        f->p[f->cur].wire += GPU_FP_OVERHEAD + GPU_FP_GPS_LINE;
        f->st.gps_tlps++;
        f->st.gps_wire_bytes += GPU_FP_OVERHEAD + GPU_FP_GPS_LINE;
    }
    if (f->cur != GPU_FP_NONE) {
        write_add(f, &f->p[f->cur].head, &f->p[f->cur].tail, addr, len);
    } else if (f->mode == GPU_FP_DMA) {
        write_add(f, &f->dma_head[src][dst], &f->dma_tail[src][dst], addr,
                  len);
    }
}

/* ---- The interface ------------------------------------------------------ */

struct gpu_fp *gpu_fp_create(u32 mode, u32 chiplets, gpu_fp_alloc_fn alloc,
                             gpu_fp_free_fn free, void *priv)
{
    struct gpu_fp *f = alloc(priv, sizeof(*f));
    struct fp_config cfg = {
        .chiplets = chiplets, .subheader = GPU_FP_SUBHEADER,
        .overhead = GPU_FP_OVERHEAD, .vram_per_chiplet = 1ULL << 40,
    };
    struct fp_sink sink = { .write = sink_write, .packet = sink_packet };
    u32 s, d;

    if (!f) {
        return NULL;
    }
    f->m = alloc(priv, sizeof(*f->m));
    if (!f->m) {
        free(priv, f);
        return NULL;
    }
    f->mode = mode;
    f->chiplets = chiplets;
    f->alloc = alloc;
    f->free = free;
    f->priv = priv;
    f->freep = GPU_FP_NONE;
    f->freew = GPU_FP_NONE;
    f->ready_head = GPU_FP_NONE;
    f->ready_tail = GPU_FP_NONE;
    f->cur = GPU_FP_NONE;
    for (s = 0; s < NPAIR; s++) {
        for (d = 0; d < NPAIR; d++) {
            f->dma_head[s][d] = GPU_FP_NONE;
            f->dma_tail[s][d] = GPU_FP_NONE;
        }
    }
    f->st.mode = mode;
    sink.ctx = f;
    fp_model_init(f->m, &cfg, &sink, NULL);
    return f;
}

void gpu_fp_destroy(struct gpu_fp *f)
{
    if (!f) {
        return;
    }
    if (f->p) {
        f->free(f->priv, f->p);
    }
    if (f->w) {
        f->free(f->priv, f->w);
    }
    if (f->gps_sub) {
        f->free(f->priv, f->gps_sub);
    }
    f->free(f->priv, f->m);
    f->free(f->priv, f);
}

bool gpu_fp_oom(const struct gpu_fp *f)
{
    return f->oom;
}

/* ---- GPS's subscriptions ------------------------------------------------ */

/* A page's slot in the open-addressed set: its own, or the empty one. */
static u64 gps_slot(const struct gpu_fp *f, u64 key)
{
    u64 h = key * 0x9e3779b97f4a7c15ULL, m = f->gps_cap - 1;

    for (h >>= 20;; h++) {
        if (f->gps_sub[h & m] == key || !f->gps_sub[h & m]) {
            return h & m;
        }
    }
}

static bool gps_subscribed(const struct gpu_fp *f, u64 addr)
{
    u64 key = (addr >> GPU_PAGE_SHIFT) + 1;

    return f->gps_cap && f->gps_sub[gps_slot(f, key)] == key;
}

/* Adds a page, the set kept at most half full. */
static void gps_subscribe(struct gpu_fp *f, u64 addr)
{
    u64 key = (addr >> GPU_PAGE_SHIFT) + 1, *old = f->gps_sub, i;
    u64 ocap = f->gps_cap;

    if (2 * (f->st.gps_subscribed_pages + 1) > f->gps_cap) {
        u64 ncap = ocap ? 2 * ocap : 1024;

        f->gps_sub = f->alloc(f->priv, ncap * sizeof(u64));
        if (!f->gps_sub) {
            f->gps_sub = old;
            f->oom = true;
            return;
        }
        memset(f->gps_sub, 0, ncap * sizeof(u64));
        f->gps_cap = ncap;
        for (i = 0; i < ocap; i++) {
            if (old[i]) {
                f->gps_sub[gps_slot(f, old[i])] = old[i];
            }
        }
        if (old) {
            f->free(f->priv, old);
        }
    }
    f->gps_sub[gps_slot(f, key)] = key;
    f->st.gps_subscribed_pages++;
}

void gpu_fp_kernel_begin(struct gpu_fp *f, const char *name)
{
    u32 i;

    if (f->mode != GPU_FP_GPS) {
        return;
    }
    if (!f->gps_started) {
        f->gps_started = true;
        f->gps_profiling = true;
        for (i = 0; i + 1 < sizeof(f->gps_first) && name[i]; i++) {
            f->gps_first[i] = name[i];
        }
    } else if (f->gps_profiling &&
               !strncmp(f->gps_first, name, sizeof(f->gps_first) - 1)) {
        f->gps_profiling = false;   /* the second iteration begins */
    }
    if (f->gps_profiling) {
        f->st.gps_profiling_kernels++;
    }
}

void gpu_fp_local_load(struct gpu_fp *f, u64 addr)
{
    if (f->mode == GPU_FP_GPS && !gps_subscribed(f, addr)) {
        gps_subscribe(f, addr);
    }
}

void gpu_fp_store(struct gpu_fp *f, u32 src, u32 dst, u64 addr, u32 mask)
{
    struct mcmgpu_fp_trace_record r = {
        .type = MCMGPU_FP_REC_STORE, .src = (u8)src, .dst = (u8)dst,
    };

    if (f->mode == GPU_FP_GPS && !f->gps_profiling &&
        !gps_subscribed(f, addr)) {
        /* Unsubscribed: its runs are dropped at the source. */
        f->st.gps_dropped_bytes += __builtin_popcount(mask);
        f->st.gps_dropped_stores +=
            __builtin_popcount(mask & ~(mask << 1));
        return;
    }

    while (mask) {
        u32 off = __builtin_ctz(mask), run = mask >> off, len;

        len = ~run ? (u32)__builtin_ctz(~run) : 32 - off;
        mask &= ~((len == 32 ? ~0u : (1u << len) - 1) << off);
        r.addr = addr + off;
        r.len = len;
        if (len < GPU_SECTOR_BYTES) {
            f->st.stores_under_32b++;
        }
        fp_model_record(f->m, &r, f->zero);
    }
}

void gpu_fp_p2p_line(struct gpu_fp *f, u32 src, u32 dst, u64 line,
                     const u32 mask[GPU_LINE_BYTES / GPU_SECTOR_BYTES])
{
    u32 b = 0;

    while (b < GPU_LINE_BYTES) {
        u32 end, i;

        if (!(mask[b / 32] & (1u << (b % 32)))) {
            b++;
            continue;
        }
        end = b + 1;
        while (end < GPU_LINE_BYTES && (mask[end / 32] & (1u << (end % 32)))) {
            end++;
        }
        /* A posted write TLP a contiguous run: byte enables span no hole. */
        i = packet_new(f, src, dst, fp_plain_tlp_bytes(line + b, end - b,
                                                       GPU_FP_OVERHEAD));
        if (i == GPU_FP_NONE) {
            return;
        }
        write_add(f, &f->p[i].head, &f->p[i].tail, line + b, end - b);
        packet_ready(f, i);
        b = end;
    }
}

void gpu_fp_access(struct gpu_fp *f, u32 src, u32 dst, u64 addr, bool load)
{
    if (load) {
        f->st.loads++;
    } else {
        f->st.atomics++;
    }
    fp_model_flush_line(f->m, src, dst, addr, GPU_SECTOR_BYTES,
                        load ? MCMGPU_FP_FLUSH_LOAD : MCMGPU_FP_FLUSH_ATOMIC);
}

void gpu_fp_fence(struct gpu_fp *f, u32 src)
{
    u32 d;

    f->st.fences++;
    for (d = 0; d < f->chiplets; d++) {
        fp_model_flush(f->m, src, d, MCMGPU_FP_FLUSH_FENCE);
    }
}

u32 gpu_fp_kernel_end(struct gpu_fp *f)
{
    struct mcmgpu_fp_trace_record r = { .type = MCMGPU_FP_REC_KERNEL_END };
    u32 s, d, made = 0, i;

    if (f->flushing) {
        f->flushing = false;
        return 0;
    }
    fp_model_record(f->m, &r, NULL);
    for (i = f->ready_head; i != GPU_FP_NONE; i = f->p[i].next) {
        made++;
    }
    for (s = 0; s < f->chiplets; s++) {
        for (d = 0; d < f->chiplets; d++) {
            u64 len = f->pair_bytes[s][d];

            if (!len) {
                continue;
            }
            f->pair_bytes[s][d] = 0;
            f->st.dma_payload += len;
            f->st.dma_tlps += fp_dma_tlps(len);
            f->st.dma_wire_bytes += fp_dma_wire_bytes(len, GPU_FP_OVERHEAD);
            if (f->mode != GPU_FP_DMA) {
                continue;
            }
            i = packet_new(f, s, d, fp_dma_wire_bytes(len, GPU_FP_OVERHEAD));
            if (i == GPU_FP_NONE) {
                return made;
            }
            f->p[i].head = f->dma_head[s][d];
            f->p[i].tail = f->dma_tail[s][d];
            f->dma_head[s][d] = GPU_FP_NONE;
            f->dma_tail[s][d] = GPU_FP_NONE;
            packet_ready(f, i);
            made++;
        }
    }
    f->flushing = made != 0;
    return made;
}

u32 gpu_fp_next(struct gpu_fp *f)
{
    u32 i = f->ready_head;

    if (i == GPU_FP_NONE) {
        return i;
    }
    f->ready_head = f->p[i].next;
    f->p[i].next = GPU_FP_NONE;
    f->st.link_messages++;
    f->st.link_bytes += f->p[i].wire;
    return i;
}

const struct gpu_fp_packet *gpu_fp_packet(const struct gpu_fp *f, u32 i)
{
    return &f->p[i];
}

const struct gpu_fp_write *gpu_fp_write(const struct gpu_fp *f, u32 i)
{
    return &f->w[i];
}

void gpu_fp_delivered(struct gpu_fp *f, u32 i, u64 bytes, u64 sectors)
{
    struct gpu_fp_packet *k = &f->p[i];

    f->st.delivered_bytes += bytes;
    f->st.delivered_sectors += sectors;
    if (k->head != GPU_FP_NONE) {
        f->w[k->tail].next = f->freew;
        f->freew = k->head;
    }
    k->next = f->freep;
    f->freep = i;
}

void gpu_fp_stats(const struct gpu_fp *f, struct gpu_finepack_stats *st)
{
    const struct mcmgpu_fp_stats *m = &f->m->stats;

    *st = f->st;
    st->stores = m->stores;
    st->store_bytes = m->store_bytes;
    st->store_pieces = m->store_pieces;
    st->kernels = m->kernels;
    st->packets = m->packets;
    st->subpackets = m->subpackets;
    st->wire_payload = m->wire_payload;
    st->wire_subheader = m->wire_subheader;
    st->wire_overhead = m->wire_overhead;
    st->wire_padding = m->wire_padding;
    memcpy(st->flushes, m->flushes, sizeof(st->flushes));
    st->plain_wire_bytes = m->plain_wire_bytes;
    st->plain_tlps = m->plain_tlps;
    st->wc_wire_bytes = m->wc_wire_bytes;
    st->wc_tlps = m->wc_tlps;
}

/* ---- Decoding ----------------------------------------------------------- */

void gpu_fp_lane_mask(const u64 *sect, u32 n, u64 va, u32 width,
                      u32 *masks)
{
    u64 end = va + width, a = va;

    while (a < end) {
        u64 s = a >> 5, e = (s + 1) << 5;
        u32 lo = 0, hi = n, off = a & 31, len;

        len = (u32)((e < end ? e : end) - a);
        while (lo < hi) {       /* the first sector >= s */
            u32 mid = (lo + hi) / 2;

            if ((sect[mid] >> 5) < s) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        if (lo < n && (sect[lo] >> 5) == s) {
            masks[lo] |= (len == 32 ? ~0u : ((1u << len) - 1)) << off;
        }
        a += len;
    }
}

bool gpu_fp_is_fence(const char *opcode)
{
    const char *p;

    if (strncmp(opcode, "MEMBAR", 6) && strncmp(opcode, "FENCE", 5)) {
        return false;
    }
    for (p = opcode; *p; p++) {
        if (!strncmp(p, ".CTA", 4)) {
            return false;
        }
    }
    return true;
}
