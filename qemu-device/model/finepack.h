/*
 * FinePack (Muthukrishnan et al., FinePack §IV): the remote write queue,
 * packetizer, de-packetizer and link byte accounting, as a freestanding
 * core shared by the QEMU device and the host tool and tests.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef FINEPACK_H
#define FINEPACK_H

#include "mcmgpu_compat.h"
#include "mcmgpu_finepack.h"

#define FP_LINE_BYTES       128     /* L1-coalesced access, entry data */
#define FP_ENTRIES          64      /* entries per partition (Table III) */
#define FP_SLOTS            128     /* lookup hash: at most half full */
#define FP_MAX_PAYLOAD      4096    /* PCIe max payload (Table III) */
#define FP_LEN_BITS         10      /* sub-header length field */
#define FP_EMPTY_BASE       UINT64_MAX

/*
 * Timing model (docs/finepack.md, "Link timing"): each GPU has one link per
 * direction; a kernel's traffic of a scheme takes the busiest port's wire
 * bytes over the link rate. Stores (P2P, write combining, FinePack)
 * overlap the kernel's compute; DMA follows it. The de-packetizer hands
 * FP_DEPACK_PER_CYCLE sub-packets a GPU cycle to the memory system.
 */
#define FP_GPU_MHZ          1530    /* GV100 boost clock */
#define FP_DEPACK_PER_CYCLE 16

/* Per-kernel port bytes, by scheme. */
enum fp_port_scheme {
    FP_PORT_P2P, FP_PORT_WC, FP_PORT_FP, FP_PORT_ATOMIC, FP_PORT_DMA_HULL,
    FP_PORT_SCHEMES,
};

struct fp_config {
    u32 chiplets;
    u32 subheader;          /* h, 2..6 */
    u32 overhead;           /* O per TLP, 24 or 28 */
    u64 vram_per_chiplet;
};

struct fp_entry {
    u64 tag;                /* line address in the destination chiplet */
    u64 mask[2];            /* byte enables */
    u32 cost;               /* fp_entry_cost(), kept as the mask grows */
    u8 data[FP_LINE_BYTES];
};

struct fp_partition {
    u64 base;               /* window base, FP_EMPTY_BASE when empty */
    u32 cost;               /* sum over runs of (h + run length) */
    u32 nentries;           /* in allocation order */
    u64 tag[FP_ENTRIES];    /* entry[i].tag, packed for flush checks */
    u8 slot[FP_SLOTS];      /* tag hash -> entry index + 1, 0 = free */
    struct fp_entry entry[FP_ENTRIES];
};

/* Receives every de-packetized sub-packet and every atomic. */
struct fp_sink {
    void *ctx;
    void (*write)(void *ctx, u32 dst, u64 addr, const u8 *data, u32 len);
    /* Optional: sees each encoded packet before it is de-packetized. */
    void (*packet)(void *ctx, u32 src, u32 dst, u64 base, const u8 *buf,
                   u32 len);
};

struct fp_model {
    struct fp_config cfg;
    struct fp_sink sink;
    u64 window;             /* 2^k bytes, k = 8h - 10 */
    struct fp_partition part[MCMGPU_FP_MAX_GPUS][MCMGPU_FP_MAX_GPUS];
    /* Per-kernel hulls for the DMA baseline and the useful-byte count. */
    u64 dma_lo[MCMGPU_FP_MAX_GPUS][MCMGPU_FP_MAX_GPUS];
    u64 dma_hi[MCMGPU_FP_MAX_GPUS][MCMGPU_FP_MAX_GPUS];
    /* What the region DMA copies at each kernel end, summed over regions. */
    u64 region_payload, region_tlps, region_wire;
    u64 region_out[MCMGPU_FP_MAX_GPUS], region_in[MCMGPU_FP_MAX_GPUS];
    u64 region_ps[MCMGPU_FP_LINKS];     /* their time, when !regions_dirty */
    bool regions_dirty;
    /* This kernel's wire bytes out of and into each GPU, its compute. */
    u64 port_out[FP_PORT_SCHEMES][MCMGPU_FP_MAX_GPUS];
    u64 port_in[FP_PORT_SCHEMES][MCMGPU_FP_MAX_GPUS];
    u64 subpackets_in[MCMGPU_FP_MAX_GPUS];
    u64 compute_ns[MCMGPU_FP_MAX_GPUS];
    u64 dst_lo[MCMGPU_FP_MAX_GPUS];    /* bytes written per destination */
    u64 dst_hi[MCMGPU_FP_MAX_GPUS];
    u64 *written;           /* bitmap, chiplets * vram_per_chiplet bits */
    /*
     * Bitmap words that became non-zero in this kernel, so a kernel end
     * clears only those. Past touched_cap the log is dropped and the kernel
     * end clears the hulls dst_lo..dst_hi instead.
     */
    u64 *touched;
    u64 touched_cap;
    u64 ntouched;           /* may exceed touched_cap */
    u64 kernel_useful;      /* bits set in this kernel */
    u64 words_cleared;      /* by kernel ends, for the cost tests */
    bool kernel_open;       /* records since the last kernel end */
    u8 packet[FP_MAX_PAYLOAD + 8];  /* + a whole word past the end */
    struct mcmgpu_fp_stats stats;
};

/* Where a trace is malformed: record is 1-based, 0 means the header. */
struct fp_error {
    u64 record;
    const char *what;
    u64 value;
};

struct fp_trace_view {
    const struct mcmgpu_fp_trace_header *hdr;
    const struct mcmgpu_fp_trace_record *rec;
    const u8 *data;
};

bool fp_config_valid(const struct fp_config *cfg, const char **why);
u64 fp_window_bytes(u32 subheader);
/*
 * Bytes of the zeroed work buffer fp_model_init takes: the written-bytes
 * bitmap and the log of its touched words, 1/64 of the bitmap's size.
 */
u64 fp_bitmap_bytes(const struct fp_config *cfg);
/* Checks the whole trace against cfg; 0 or -1 with *err filled. */
int fp_trace_check(const void *buf, u64 len, const struct fp_config *cfg,
                   struct fp_trace_view *view, struct fp_error *err);
/*
 * written: zeroed, 8-byte aligned (any malloc), fp_bitmap_bytes(cfg) bytes;
 * or NULL: no useful-byte count (useful_bytes stays 0; the GPU core's use).
 */
void fp_model_init(struct fp_model *m, const struct fp_config *cfg,
                   const struct fp_sink *sink, void *written);
/* Runs a trace that passed fp_trace_check; ends with a kernel end. */
void fp_model_run(struct fp_model *m, const struct fp_trace_view *view);
void fp_model_record(struct fp_model *m, const struct mcmgpu_fp_trace_record *r,
                     const u8 *data);
void fp_model_finish(struct fp_model *m);
/* One partition's flush, and one if a line of [addr, addr + len) is queued. */
void fp_model_flush(struct fp_model *m, u32 src, u32 dst,
                    enum mcmgpu_fp_flush_reason why);
void fp_model_flush_line(struct fp_model *m, u32 src, u32 dst, u64 addr,
                         u32 len, enum mcmgpu_fp_flush_reason why);

/*
 * memcpy for the short pieces stores are made of: fixed-size moves the
 * compiler inlines, overlapping at the ends, instead of a call a piece.
 */
static inline void fp_copy(u8 *d, const u8 *s, u32 len)
{
    u64 a, b;
    u32 x, y;

    if (len >= 8 && len <= 16) {
        __builtin_memcpy(&a, s, 8);
        __builtin_memcpy(&b, s + len - 8, 8);
        __builtin_memcpy(d, &a, 8);
        __builtin_memcpy(d + len - 8, &b, 8);
    } else if (len >= 4 && len < 8) {
        __builtin_memcpy(&x, s, 4);
        __builtin_memcpy(&y, s + len - 4, 4);
        __builtin_memcpy(d, &x, 4);
        __builtin_memcpy(d + len - 4, &y, 4);
    } else {
        memcpy(d, s, len);
    }
}

/* Helpers exposed for tests. */
u32 fp_entry_cost(const struct fp_entry *e, u32 subheader);
u32 fp_encode_subheader(u8 *out, u32 subheader, u64 offset, u32 len);
void fp_decode_subheader(const u8 *in, u32 subheader, u64 *offset, u32 *len);
u64 fp_plain_tlp_bytes(u64 addr, u32 len, u32 overhead);
/* A bulk copy of len bytes in 4 KiB TLPs: its TLPs and its wire bytes. */
u64 fp_dma_tlps(u64 len);
u64 fp_dma_wire_bytes(u64 len, u32 overhead);
/* Link rate in bytes per ns (GB/s), by enum mcmgpu_fp_link. */
u32 fp_link_rate(u32 link);

#endif /* FINEPACK_H */
