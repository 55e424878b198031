/*
 * FinePack (FinePack §IV): per source chiplet, one remote write queue
 * partition per destination chiplet; stores coalesce at 128 B line
 * granularity inside an aligned 2^k window; a flush packs the queued runs
 * into one packet of h-byte sub-headers and data; the destination's
 * de-packetizer writes each sub-packet at base + offset. Plain P2P and a
 * DMA model are accounted on the same trace.
 *
 * Decisions where the paper is silent (notes/finepack.md §6), pinned here:
 * base = addr & ~(2^k - 1); exact payload accounting (cost of an entry is
 * the sum over its runs of h + run length); a 65th entry flushes; flush
 * checks in the order window, payload, entries; atomics are never
 * coalesced and flush their partition first if their line is queued, as
 * does a load; the end of a trace is a kernel end.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "finepack.h"

/* Inline: without -mpopcnt the builtin is a libgcc call per store. */
static u32 popcount64(u64 x)
{
    x -= (x >> 1) & 0x5555555555555555ULL;
    x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
    x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0fULL;
    return (u32)((x * 0x0101010101010101ULL) >> 56);
}

u64 fp_window_bytes(u32 subheader)
{
    return 1ULL << (8 * subheader - FP_LEN_BITS);
}

bool fp_config_valid(const struct fp_config *cfg, const char **why)
{
    if (cfg->chiplets < 2 || cfg->chiplets > MCMGPU_FP_MAX_GPUS) {
        *why = "chiplets: must be 2..16";
        return false;
    }
    if (cfg->subheader < MCMGPU_FP_SUBHEADER_MIN ||
        cfg->subheader > MCMGPU_FP_SUBHEADER_MAX) {
        *why = "subheader: must be 2..6 bytes";
        return false;
    }
    if (cfg->overhead != MCMGPU_FP_OVERHEAD_ECRC &&
        cfg->overhead != MCMGPU_FP_OVERHEAD_NO_ECRC) {
        *why = "overhead: must be 24 or 28 bytes";
        return false;
    }
    if (!cfg->vram_per_chiplet || cfg->vram_per_chiplet > (1ULL << 40)) {
        *why = "vram_per_chiplet: must be 1 B..1 TiB";
        return false;
    }
    return true;
}

static u64 fp_bitmap_words(const struct fp_config *cfg)
{
    return (cfg->chiplets * cfg->vram_per_chiplet + 63) / 64;
}

/*
 * A kernel that overflows the log has set bits in more than 1/64 of the
 * bitmap words, so scanning its hulls costs at most 64 words per word it
 * touched: kernel ends stay proportional to the bytes written.
 */
static u64 fp_touched_cap(const struct fp_config *cfg)
{
    return fp_bitmap_words(cfg) / 64 + 1;
}

u64 fp_bitmap_bytes(const struct fp_config *cfg)
{
    return 8 * (fp_bitmap_words(cfg) + fp_touched_cap(cfg));
}

static u32 fp_mask_cost(u64 m0, u64 m1, u32 subheader)
{
    u64 starts0 = m0 & ~(m0 << 1);
    u64 starts1 = m1 & ~((m1 << 1) | (m0 >> 63));
    u32 runs = popcount64(starts0) + popcount64(starts1);

    return runs * subheader + popcount64(m0) + popcount64(m1);
}

u32 fp_entry_cost(const struct fp_entry *e, u32 subheader)
{
    return fp_mask_cost(e->mask[0], e->mask[1], subheader);
}

u32 fp_encode_subheader(u8 *out, u32 subheader, u64 offset, u32 len)
{
    u64 v = offset << FP_LEN_BITS | len;
    u32 i;

    for (i = 0; i < subheader; i++) {
        out[i] = (u8)(v >> (8 * i));
    }
    return subheader;
}

void fp_decode_subheader(const u8 *in, u32 subheader, u64 *offset, u32 *len)
{
    u64 v = 0;
    u32 i;

    for (i = 0; i < subheader; i++) {
        v |= (u64)in[i] << (8 * i);
    }
    *len = v & ((1U << FP_LEN_BITS) - 1);
    *offset = v >> FP_LEN_BITS;
}

/*
 * The packet buffer's own sub-headers, a word at a time: the buffer has
 * a word of slack past its end, and the bytes written past a sub-header
 * are the sub-packet's data, written next. Same bytes as the loops above.
 */
static inline void fp_put_subheader(u8 *out, u32 subheader, u64 offset,
                                    u32 len)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    u64 v = offset << FP_LEN_BITS | len;

    (void)subheader;        /* the next sub-packet overwrites the rest */
    memcpy(out, &v, sizeof(v));
#else
    fp_encode_subheader(out, subheader, offset, len);
#endif
}

static inline void fp_get_subheader(const u8 *in, u32 subheader, u64 *offset,
                                    u32 *len)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    u64 v;

    memcpy(&v, in, sizeof(v));
    v &= ~0ULL >> (64 - 8 * subheader);
    *len = v & ((1U << FP_LEN_BITS) - 1);
    *offset = v >> FP_LEN_BITS;
#else
    fp_decode_subheader(in, subheader, offset, len);
#endif
}

u64 fp_plain_tlp_bytes(u64 addr, u32 len, u32 overhead)
{
    return overhead + 4 * (((addr % 4) + len + 3) / 4);
}

/* Bits [lo, hi) of a word, 0 <= lo < hi <= 64. */
u64 fp_dma_tlps(u64 len)
{
    return (len + FP_MAX_PAYLOAD - 1) / FP_MAX_PAYLOAD;
}

u64 fp_dma_wire_bytes(u64 len, u32 overhead)
{
    return ((len + 3) & ~3ULL) + fp_dma_tlps(len) * overhead;
}

u32 fp_link_rate(u32 link)
{
    static const u32 rate[MCMGPU_FP_LINKS] = {
        [MCMGPU_FP_LINK_PCIE4] = 32,    /* FinePack section V, Fig 13 */
        [MCMGPU_FP_LINK_PCIE5] = 64,
        [MCMGPU_FP_LINK_PCIE6] = 128,
        [MCMGPU_FP_LINK_CHIPLET] = 768, /* MCM-GPU's inter-chiplet link */
    };

    return rate[link];
}

static inline void fp_port_add(struct fp_model *m, enum fp_port_scheme k,
                               u32 src, u32 dst, u64 bytes)
{
    m->port_out[k][src] += bytes;
    m->port_in[k][dst] += bytes;
}

/* The busiest port's bytes, in ps on a link. */
static u64 fp_port_ps(const u64 *out, const u64 *in, u32 n, u32 link)
{
    u64 most = 0;
    u32 c;

    for (c = 0; c < n; c++) {
        most = out[c] > most ? out[c] : most;
        most = in[c] > most ? in[c] : most;
    }
    return most * 1000 / fp_link_rate(link);
}

static u64 fp_max64(u64 a, u64 b)
{
    return a > b ? a : b;
}

/* Adds this kernel's modeled time to every link and scheme. */
static void fp_kernel_time(struct fp_model *m, bool any)
{
    struct mcmgpu_fp_stats *st = &m->stats;
    u32 n = m->cfg.chiplets, l, c;
    u64 compute = 0, depack = 0;

    if (m->regions_dirty) {
        for (l = 0; l < MCMGPU_FP_LINKS; l++) {
            m->region_ps[l] = fp_port_ps(m->region_out, m->region_in, n, l);
        }
        m->regions_dirty = false;
    }
    if (!any) {     /* an empty kernel: only the regions are copied */
        for (l = 0; l < MCMGPU_FP_LINKS; l++) {
            st->time_ps[l][MCMGPU_FP_T_DMA_REGION] += m->region_ps[l];
        }
        return;
    }
    for (c = 0; c < n; c++) {
        compute = fp_max64(compute, m->compute_ns[c] * 1000);
        depack = fp_max64(depack, m->subpackets_in[c] * 1000000 /
                          (FP_DEPACK_PER_CYCLE * FP_GPU_MHZ));
        st->one_gpu_ps += m->compute_ns[c] * 1000;
    }
    for (l = 0; l < MCMGPU_FP_LINKS; l++) {
        __u64 *t = st->time_ps[l];
        u64 fp = fp_port_ps(m->port_out[FP_PORT_FP], m->port_in[FP_PORT_FP],
                            n, l);
        u64 atomics = fp_max64(compute, fp_port_ps(m->port_out[FP_PORT_ATOMIC],
                                                   m->port_in[FP_PORT_ATOMIC],
                                                   n, l));

        if (l == MCMGPU_FP_LINK_PCIE6 && depack > fp && depack > compute) {
            st->depack_bound_kernels++;
        }
        t[MCMGPU_FP_T_INFINITE] += compute;
        t[MCMGPU_FP_T_P2P] += fp_max64(compute, fp_port_ps(
            m->port_out[FP_PORT_P2P], m->port_in[FP_PORT_P2P], n, l));
        t[MCMGPU_FP_T_WC] += fp_max64(compute, fp_port_ps(
            m->port_out[FP_PORT_WC], m->port_in[FP_PORT_WC], n, l));
        t[MCMGPU_FP_T_FINEPACK] += fp_max64(compute, fp_max64(fp, depack));
        /* DMA follows the kernel; its atomics went out during it. */
        t[MCMGPU_FP_T_DMA_HULL] += atomics + fp_port_ps(
            m->port_out[FP_PORT_DMA_HULL], m->port_in[FP_PORT_DMA_HULL], n, l);
        t[MCMGPU_FP_T_DMA_REGION] += atomics + m->region_ps[l];
    }
    memset(m->port_out, 0, sizeof(m->port_out));
    memset(m->port_in, 0, sizeof(m->port_in));
    memset(m->subpackets_in, 0, sizeof(m->subpackets_in));
    memset(m->compute_ns, 0, sizeof(m->compute_ns));
}

static u64 fp_bits(u32 lo, u32 hi)
{
    return (hi - lo == 64 ? ~0ULL : (1ULL << (hi - lo)) - 1) << lo;
}

/* First byte >= b of the line whose enable bit is set, or FP_LINE_BYTES. */
static u32 fp_mask_next(const u64 *mask, u32 b, bool set)
{
    for (; b < FP_LINE_BYTES; b = (b | 63) + 1) {
        u64 w = (set ? mask[b / 64] : ~mask[b / 64]) >> (b % 64);

        if (w) {
            return b + __builtin_ctzll(w);
        }
    }
    return FP_LINE_BYTES;
}

/*
 * The enables of one piece, a word at a time (stores cost per 64 bytes,
 * not per byte), built in registers: no store for a later load to wait on.
 */
static inline void fp_piece_mask(u32 off, u32 len, u64 mask[2])
{
    u32 end = off + len;

    mask[0] = off < 64 ? fp_bits(off, end < 64 ? end : 64) : 0;
    mask[1] = end > 64 ? fp_bits(off > 64 ? off - 64 : 0, end - 64) : 0;
}

static void fp_partition_reset(struct fp_partition *p)
{
    if (p->nentries) {
        memset(p->slot, 0, sizeof(p->slot));
    }
    p->base = FP_EMPTY_BASE;
    p->cost = 0;
    p->nentries = 0;
}

/* Applies each sub-packet of one packet at base + offset. */
static void fp_depacketize(struct fp_model *m, u32 dst, u64 base,
                           const u8 *buf, u32 len)
{
    const u32 h = m->cfg.subheader;
    const u64 window = m->window;
    void (*write)(void *, u32, u64, const u8 *, u32) = m->sink.write;
    void *ctx = m->sink.ctx;
    u32 pos = 0, sublen;
    u64 off;

    while (pos < len) {
        if (len - pos < h) {
            m->stats.decode_errors++;
            return;
        }
        fp_get_subheader(buf + pos, h, &off, &sublen);
        pos += h;
        if (!sublen || sublen > len - pos || off + sublen > window) {
            m->stats.decode_errors++;
            return;
        }
        write(ctx, dst, base + off, buf + pos, sublen);
        pos += sublen;
    }
}

/* One flush = one packet: runs in entry-allocation order, then offset. */
static void fp_flush(struct fp_model *m, u32 src, u32 dst,
                     enum mcmgpu_fp_flush_reason why)
{
    struct fp_partition *p = &m->part[src][dst];
    struct mcmgpu_fp_stats *st = &m->stats;
    const u32 h = m->cfg.subheader, overhead = m->cfg.overhead;
    const u64 base = p->base;
    u32 pos = 0, i, start, b, runs = 0;
    u64 wc = 0, payload = 0;

    if (p->base == FP_EMPTY_BASE) {
        return;
    }
    for (i = 0; i < p->nentries; i++) {
        const struct fp_entry *e = &p->entry[i];

        /* Counters in locals: the packet's byte stores may alias them. */
        for (start = fp_mask_next(e->mask, 0, true); start < FP_LINE_BYTES;
             start = fp_mask_next(e->mask, b, true)) {
            b = fp_mask_next(e->mask, start, false);
            fp_put_subheader(m->packet + pos, h, e->tag + start - base,
                             b - start);
            pos += h;
            fp_copy(m->packet + pos, e->data + start, b - start);
            pos += b - start;
            wc += fp_plain_tlp_bytes(e->tag + start, b - start, overhead);
            runs++;
            payload += b - start;
        }
    }
    st->wire_payload += payload;
    st->wire_subheader += (u64)h * runs;
    st->wc_wire_bytes += wc;
    st->wc_tlps += runs;
    st->subpackets += runs;
    st->packets++;
    st->wire_overhead += m->cfg.overhead;
    st->wire_padding += ((pos + 3) & ~3U) - pos;
    fp_port_add(m, FP_PORT_WC, src, dst, wc);
    fp_port_add(m, FP_PORT_FP, src, dst, m->cfg.overhead + ((pos + 3) & ~3U));
    m->subpackets_in[dst] += runs;
    st->flushes[why]++;
    if (m->sink.packet) {
        m->sink.packet(m->sink.ctx, src, dst, p->base, m->packet, pos);
    }
    fp_depacketize(m, dst, p->base, m->packet, pos);
    fp_partition_reset(p);
}

/* The hash slot holding tag, or the free slot where it would go. */
static u32 fp_slot(const struct fp_partition *p, u64 tag)
{
    u32 i = (u32)(((tag / FP_LINE_BYTES) * 0x9e3779b97f4a7c15ULL) >> 57);

    while (p->slot[i] && p->tag[p->slot[i] - 1] != tag) {
        i = (i + 1) % FP_SLOTS;
    }
    return i;
}

static struct fp_entry *fp_find(struct fp_partition *p, u64 tag)
{
    u32 i = fp_slot(p, tag);

    return p->slot[i] ? &p->entry[p->slot[i] - 1] : NULL;
}

/*
 * Flushes src->dst if any line of [addr, addr + len) is queued there.
 * Walks the entries, not the lines: a 1 MiB load costs 64 compares.
 */
static void fp_flush_if_queued(struct fp_model *m, u32 src, u32 dst,
                               u64 addr, u32 len,
                               enum mcmgpu_fp_flush_reason why)
{
    struct fp_partition *p = &m->part[src][dst];
    u64 line = addr & ~(u64)(FP_LINE_BYTES - 1);
    u32 i;

    for (i = 0; i < p->nentries; i++) {
        if (p->tag[i] >= line && p->tag[i] < addr + len) {
            fp_flush(m, src, dst, why);
            return;
        }
    }
}

/* Admits a piece that lies in one line and one window. */
static void fp_admit(struct fp_model *m, u32 src, u32 dst, u64 addr,
                     u32 len, const u8 *data)
{
    struct fp_partition *p = &m->part[src][dst];
    u32 h = m->cfg.subheader, off, cost;
    u64 tag = addr & ~(u64)(FP_LINE_BYTES - 1), mask[2];
    struct fp_entry *e;

    off = addr - tag;
    e = NULL;
    fp_piece_mask(off, len, mask);
    cost = h + len;         /* a piece is one run */
    if (p->base != FP_EMPTY_BASE) {
        if (addr < p->base || addr - p->base >= m->window) {
            fp_flush(m, src, dst, MCMGPU_FP_FLUSH_WINDOW);
        } else {
            e = fp_find(p, tag);
            if (e) {
                mask[0] |= e->mask[0];
                mask[1] |= e->mask[1];
                cost = fp_mask_cost(mask[0], mask[1], h);
            }
            if (p->cost - (e ? e->cost : 0) + cost > FP_MAX_PAYLOAD) {
                fp_flush(m, src, dst, MCMGPU_FP_FLUSH_PAYLOAD);
                if (e) {    /* the piece alone in a new packet */
                    e = NULL;
                    fp_piece_mask(off, len, mask);
                    cost = h + len;
                }
            } else if (!e && p->nentries == FP_ENTRIES) {
                fp_flush(m, src, dst, MCMGPU_FP_FLUSH_ENTRIES);
            }
        }
    }
    if (p->base == FP_EMPTY_BASE) {
        p->base = addr & ~(m->window - 1);
    }
    if (!e) {       /* new, or a flush above left the partition empty */
        p->tag[p->nentries] = tag;
        p->slot[fp_slot(p, tag)] = p->nentries + 1;
        e = &p->entry[p->nentries++];
        e->tag = tag;
        e->cost = 0;
    }
    fp_copy(e->data + off, data, len);
    e->mask[0] = mask[0];
    e->mask[1] = mask[1];
    p->cost += cost - e->cost;
    e->cost = cost;
    m->stats.store_pieces++;
}

/* Useful bytes are the bits that flip 0 -> 1; new words go to the log. */
static void fp_mark_written(struct fp_model *m, u32 src, u32 dst, u64 addr,
                            u32 len, bool dma_region)
{
    u64 bit = dst * m->cfg.vram_per_chiplet + addr, end = bit + len;

    if (!m->written) {      /* no bitmap (the GPU core): hulls only */
        bit = end;
    }
    while (bit < end) {
        u64 i = bit / 64, n = end - bit, old = m->written[i], mask;
        u32 sh = bit % 64;

        mask = n < 64 - sh ? ((1ULL << n) - 1) << sh : ~0ULL << sh;
        if (!old) {
            if (m->ntouched < m->touched_cap) {
                m->touched[m->ntouched] = i;
            }
            m->ntouched++;
            /* A fresh word: every bit of the mask flips. */
            m->kernel_useful += n < 64 - sh ? n : 64 - sh;
        } else {
            m->kernel_useful += popcount64(mask & ~old);
        }
        m->written[i] = old | mask;
        bit = (i + 1) * 64;
    }
    if (addr < m->dst_lo[dst]) {
        m->dst_lo[dst] = addr;
    }
    if (addr + len > m->dst_hi[dst]) {
        m->dst_hi[dst] = addr + len;
    }
    if (dma_region) {
        if (addr < m->dma_lo[src][dst]) {
            m->dma_lo[src][dst] = addr;
        }
        if (addr + len > m->dma_hi[src][dst]) {
            m->dma_hi[src][dst] = addr + len;
        }
    }
}

static void fp_store(struct fp_model *m,
                     const struct mcmgpu_fp_trace_record *r, const u8 *data)
{
    u64 addr = r->addr, end = r->addr + r->len;
    u64 step = m->window < FP_LINE_BYTES ? m->window : FP_LINE_BYTES;

    m->stats.stores++;
    m->stats.store_bytes += r->len;
    fp_mark_written(m, r->src, r->dst, r->addr, r->len, true);
    while (addr < end) {
        u64 line_end = (addr | (FP_LINE_BYTES - 1)) + 1;
        u32 line_len = (line_end < end ? line_end : end) - addr;
        u64 a = addr;

        u64 tlp = fp_plain_tlp_bytes(addr, line_len, m->cfg.overhead);

        m->stats.plain_wire_bytes += tlp;
        m->stats.plain_tlps++;
        fp_port_add(m, FP_PORT_P2P, r->src, r->dst, tlp);
        while (a < addr + line_len) {
            u64 piece_end = (a | (step - 1)) + 1;
            u32 n = (piece_end < addr + line_len ? piece_end :
                     addr + line_len) - a;

            fp_admit(m, r->src, r->dst, a, n, data + (a - r->addr));
            a += n;
        }
        addr += line_len;
    }
}

/* An atomic is one plain TLP in every scheme, after any queued data. */
static void fp_atomic(struct fp_model *m,
                      const struct mcmgpu_fp_trace_record *r, const u8 *data)
{
    struct mcmgpu_fp_stats *st = &m->stats;
    u64 tlp = fp_plain_tlp_bytes(r->addr, r->len, m->cfg.overhead);

    fp_flush_if_queued(m, r->src, r->dst, r->addr, r->len,
                       MCMGPU_FP_FLUSH_ATOMIC);
    st->atomics++;
    st->atomic_bytes += r->len;
    st->wire_payload += r->len;
    st->wire_overhead += m->cfg.overhead;
    st->wire_padding += tlp - m->cfg.overhead - r->len;
    st->plain_wire_bytes += tlp;
    st->plain_tlps++;
    st->wc_wire_bytes += tlp;
    st->wc_tlps++;
    st->dma_wire_bytes += tlp;
    st->dma_payload += r->len;
    st->dma_tlps++;
    st->region_dma_wire_bytes += tlp;
    st->region_dma_payload += r->len;
    st->region_dma_tlps++;
    fp_port_add(m, FP_PORT_P2P, r->src, r->dst, tlp);
    fp_port_add(m, FP_PORT_WC, r->src, r->dst, tlp);
    fp_port_add(m, FP_PORT_FP, r->src, r->dst, tlp);
    fp_port_add(m, FP_PORT_ATOMIC, r->src, r->dst, tlp);
    fp_mark_written(m, r->src, r->dst, r->addr, r->len, false);
    m->sink.write(m->sink.ctx, r->dst, r->addr, data, r->len);
}

static void fp_kernel_end(struct fp_model *m)
{
    struct mcmgpu_fp_stats *st = &m->stats;
    u64 vram = m->cfg.vram_per_chiplet, i, end;
    u32 s, d;

    /* Every kernel is an iteration: the declared regions are copied. */
    st->region_dma_payload += m->region_payload;
    st->region_dma_tlps += m->region_tlps;
    st->region_dma_wire_bytes += m->region_wire;
    /* Nothing queued or written since the last one: O(1) per record. */
    if (!m->kernel_open) {
        fp_kernel_time(m, false);
        st->kernels++;
        return;
    }
    for (s = 0; s < m->cfg.chiplets; s++) {
        for (d = 0; d < m->cfg.chiplets; d++) {
            fp_flush(m, s, d, MCMGPU_FP_FLUSH_KERNEL_END);
        }
    }
    /* DMA model: each source copies the hull it wrote in each destination. */
    for (s = 0; s < m->cfg.chiplets; s++) {
        for (d = 0; d < m->cfg.chiplets; d++) {
            u64 lo = m->dma_lo[s][d], hi = m->dma_hi[s][d], len;

            if (hi <= lo) {
                continue;
            }
            len = hi - lo;
            st->dma_payload += len;
            st->dma_tlps += fp_dma_tlps(len);
            st->dma_wire_bytes += fp_dma_wire_bytes(len, m->cfg.overhead);
            fp_port_add(m, FP_PORT_DMA_HULL, s, d,
                        fp_dma_wire_bytes(len, m->cfg.overhead));
            m->dma_lo[s][d] = UINT64_MAX;
            m->dma_hi[s][d] = 0;
        }
    }
    fp_kernel_time(m, true);
    /* Useful bytes: distinct destination bytes written in this kernel. */
    st->useful_bytes += m->kernel_useful;
    m->kernel_useful = 0;
    if (m->ntouched <= m->touched_cap) {
        for (i = 0; i < m->ntouched; i++) {
            m->written[m->touched[i]] = 0;
        }
        m->words_cleared += m->ntouched;
    }
    for (d = 0; d < m->cfg.chiplets; d++) {
        /* The log overflowed: clear the hulls (see fp_touched_cap). */
        if (m->ntouched > m->touched_cap && m->dst_hi[d] > m->dst_lo[d]) {
            i = (d * vram + m->dst_lo[d]) / 64;
            end = (d * vram + m->dst_hi[d] + 63) / 64;
            memset(&m->written[i], 0, 8 * (end - i));
            m->words_cleared += end - i;
        }
        m->dst_lo[d] = UINT64_MAX;
        m->dst_hi[d] = 0;
    }
    m->ntouched = 0;
    st->kernels++;
    m->kernel_open = false;
}

void fp_model_init(struct fp_model *m, const struct fp_config *cfg,
                   const struct fp_sink *sink, void *written)
{
    u32 s, d;

    memset(&m->stats, 0, sizeof(m->stats));
    m->cfg = *cfg;
    m->sink = *sink;
    m->window = fp_window_bytes(cfg->subheader);
    m->written = written;
    m->touched = written ? m->written + fp_bitmap_words(cfg) : NULL;
    m->touched_cap = fp_touched_cap(cfg);
    m->ntouched = 0;
    m->kernel_useful = 0;
    m->words_cleared = 0;
    m->kernel_open = false;
    m->region_payload = 0;
    m->region_tlps = 0;
    m->region_wire = 0;
    memset(m->region_out, 0, sizeof(m->region_out));
    memset(m->region_in, 0, sizeof(m->region_in));
    memset(m->region_ps, 0, sizeof(m->region_ps));
    m->regions_dirty = false;
    memset(m->port_out, 0, sizeof(m->port_out));
    memset(m->port_in, 0, sizeof(m->port_in));
    memset(m->subpackets_in, 0, sizeof(m->subpackets_in));
    memset(m->compute_ns, 0, sizeof(m->compute_ns));
    for (s = 0; s < MCMGPU_FP_MAX_GPUS; s++) {
        m->dst_lo[s] = UINT64_MAX;
        m->dst_hi[s] = 0;
        for (d = 0; d < MCMGPU_FP_MAX_GPUS; d++) {
            memset(m->part[s][d].slot, 0, sizeof(m->part[s][d].slot));
            fp_partition_reset(&m->part[s][d]);
            m->dma_lo[s][d] = UINT64_MAX;
            m->dma_hi[s][d] = 0;
        }
    }
}

void fp_model_record(struct fp_model *m,
                     const struct mcmgpu_fp_trace_record *r, const u8 *data)
{
    u32 d;

    m->stats.records++;
    switch (r->type) {
    case MCMGPU_FP_REC_STORE:
        fp_store(m, r, data);
        break;
    case MCMGPU_FP_REC_LOAD:
        m->stats.loads++;
        fp_flush_if_queued(m, r->src, r->dst, r->addr, r->len,
                           MCMGPU_FP_FLUSH_LOAD);
        break;
    case MCMGPU_FP_REC_ATOMIC:
        fp_atomic(m, r, data);
        break;
    case MCMGPU_FP_REC_FENCE:
        m->stats.fences++;
        for (d = 0; d < m->cfg.chiplets; d++) {
            fp_flush(m, r->src, d, MCMGPU_FP_FLUSH_FENCE);
        }
        break;
    case MCMGPU_FP_REC_KERNEL_END:
        fp_kernel_end(m);
        return;
    case MCMGPU_FP_REC_REGION:
        /* A declaration, not an access: the kernel stays as it was. */
        m->stats.regions++;
        m->region_payload += r->len;
        m->region_tlps += fp_dma_tlps(r->len);
        m->region_wire += fp_dma_wire_bytes(r->len, m->cfg.overhead);
        m->region_out[r->src] += fp_dma_wire_bytes(r->len, m->cfg.overhead);
        m->region_in[r->dst] += fp_dma_wire_bytes(r->len, m->cfg.overhead);
        m->regions_dirty = true;
        return;
    case MCMGPU_FP_REC_COMPUTE:
        m->stats.compute_records++;
        m->compute_ns[r->src] += r->addr;
        break;
    }
    m->kernel_open = true;
}

void fp_model_flush(struct fp_model *m, u32 src, u32 dst,
                    enum mcmgpu_fp_flush_reason why)
{
    fp_flush(m, src, dst, why);
}

void fp_model_flush_line(struct fp_model *m, u32 src, u32 dst, u64 addr,
                         u32 len, enum mcmgpu_fp_flush_reason why)
{
    fp_flush_if_queued(m, src, dst, addr, len, why);
}

void fp_model_finish(struct fp_model *m)
{
    if (m->kernel_open) {
        fp_kernel_end(m);
    }
}

void fp_model_run(struct fp_model *m, const struct fp_trace_view *view)
{
    u64 i;

    const u64 n = view->hdr->nrecords, ahead = 16;

    for (i = 0; i < n; i++) {
        const struct mcmgpu_fp_trace_record *r = &view->rec[i];

        /* The bitmap is touched at random: start the miss a few early. */
        if (i + ahead < n && r[ahead].type <= MCMGPU_FP_REC_ATOMIC) {
            __builtin_prefetch(&m->written[(r[ahead].dst *
                                            m->cfg.vram_per_chiplet +
                                            r[ahead].addr) / 64], 1);
        }
        /* Only stores and atomics have a checked data_off. */
        fp_model_record(m, r, r->type == MCMGPU_FP_REC_STORE ||
                        r->type == MCMGPU_FP_REC_ATOMIC ?
                        view->data + r->data_off : NULL);
    }
    fp_model_finish(m);
}

static int fp_fail(struct fp_error *err, u64 record, const char *what,
                   u64 value)
{
    err->record = record;
    err->what = what;
    err->value = value;
    return -1;
}

static int fp_check_record(const struct mcmgpu_fp_trace_record *r,
                           u64 data_size, const struct fp_config *cfg, u64 n,
                           struct fp_error *err)
{
    bool has_data = r->type == MCMGPU_FP_REC_STORE ||
                    r->type == MCMGPU_FP_REC_ATOMIC;

    if (r->type < MCMGPU_FP_REC_STORE || r->type > MCMGPU_FP_REC_COMPUTE) {
        return fp_fail(err, n, "type: unknown record type", r->type);
    }
    if (r->reserved) {
        return fp_fail(err, n, "reserved: must be 0", r->reserved);
    }
    if (r->type == MCMGPU_FP_REC_KERNEL_END) {
        return 0;
    }
    if (r->src >= cfg->chiplets) {
        return fp_fail(err, n, "src: no such chiplet", r->src);
    }
    if (r->type == MCMGPU_FP_REC_FENCE) {
        return 0;
    }
    if (r->type == MCMGPU_FP_REC_COMPUTE) {
        if (r->dst || r->len || r->data_off) {
            return fp_fail(err, n, "dst, len, data_off: must be 0 for "
                           "compute", r->dst | r->len | r->data_off);
        }
        return 0;
    }
    if (r->dst >= cfg->chiplets) {
        return fp_fail(err, n, "dst: no such chiplet", r->dst);
    }
    if (r->dst == r->src) {
        return fp_fail(err, n, "dst: equals src (not a remote access)",
                       r->dst);
    }
    if (!r->len) {
        return fp_fail(err, n, "len: must not be 0", 0);
    }
    if (r->len > MCMGPU_FP_STORE_MAX_LEN && r->type != MCMGPU_FP_REC_REGION) {
        return fp_fail(err, n, "len: longer than 1 MiB", r->len);
    }
    if (r->type == MCMGPU_FP_REC_ATOMIC &&
        (r->len > MCMGPU_FP_ATOMIC_MAX_LEN ||
         r->addr % FP_LINE_BYTES + r->len > FP_LINE_BYTES)) {
        return fp_fail(err, n, "len: atomic longer than 16 B or crossing a "
                       "128 B line", r->len);
    }
    if (r->addr > cfg->vram_per_chiplet ||
        r->len > cfg->vram_per_chiplet - r->addr) {
        return fp_fail(err, n, "addr: past the end of the destination memory",
                       r->addr);
    }
    if (has_data && (r->data_off > data_size ||
                     r->len > data_size - r->data_off)) {
        return fp_fail(err, n, "data_off: outside the data section",
                       r->data_off);
    }
    return 0;
}

int fp_trace_check(const void *buf, u64 len, const struct fp_config *cfg,
                   struct fp_trace_view *view, struct fp_error *err)
{
    const struct mcmgpu_fp_trace_header *hdr = buf;
    const u64 rec_size = sizeof(struct mcmgpu_fp_trace_record);
    const char *why;
    u64 i, body, total = 0, regions = 0, compute = 0;

    if (!fp_config_valid(cfg, &why)) {
        return fp_fail(err, 0, why, 0);
    }
    if (len < sizeof(*hdr)) {
        return fp_fail(err, 0, "header: truncated", len);
    }
    if (hdr->magic != MCMGPU_FP_TRACE_MAGIC) {
        return fp_fail(err, 0, "magic: not a FinePack trace", hdr->magic);
    }
    if (hdr->version != MCMGPU_FP_TRACE_VERSION) {
        return fp_fail(err, 0, "version: unsupported", hdr->version);
    }
    if (hdr->header_size != sizeof(*hdr) || hdr->record_size != rec_size ||
        hdr->reserved) {
        return fp_fail(err, 0, "header: bad header_size, record_size or "
                       "reserved", hdr->record_size);
    }
    if (hdr->nrecords > (len - sizeof(*hdr)) / rec_size) {
        return fp_fail(err, 0, "nrecords: trace truncated", hdr->nrecords);
    }
    body = sizeof(*hdr) + hdr->nrecords * rec_size;
    if (hdr->data_size != len - body) {
        return fp_fail(err, 0, "data_size: does not match the trace length "
                       "(truncated or trailing bytes)", hdr->data_size);
    }
    view->hdr = hdr;
    view->rec = (const struct mcmgpu_fp_trace_record *)(hdr + 1);
    view->data = (const u8 *)buf + body;
    for (i = 0; i < hdr->nrecords; i++) {
        if (fp_check_record(&view->rec[i], hdr->data_size, cfg, i + 1, err)) {
            return -1;
        }
        /* Bounded so the region DMA counters cannot wrap. */
        if (view->rec[i].type == MCMGPU_FP_REC_REGION) {
            regions += view->rec[i].len;
            if (regions > MCMGPU_FP_MAX_REGION_BYTES) {
                return fp_fail(err, i + 1, "len: the declared regions add up "
                               "to more than 64 GiB", regions);
            }
            continue;
        }
        /* Bounded so the modeled times cannot wrap. */
        if (view->rec[i].type == MCMGPU_FP_REC_COMPUTE) {
            if (view->rec[i].addr > MCMGPU_FP_MAX_COMPUTE_NS - compute) {
                return fp_fail(err, i + 1, "addr: the compute adds up to more "
                               "than 2^40 ns", view->rec[i].addr);
            }
            compute += view->rec[i].addr;
            continue;
        }
        /* Records may share data; bound the work so a guest cannot stall us. */
        total += view->rec[i].len;
        if (total > MCMGPU_FP_MAX_TOTAL_BYTES) {
            return fp_fail(err, i + 1, "len: the trace moves more than 1 GiB",
                           total);
        }
    }
    return 0;
}
