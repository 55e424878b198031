/*
 * mcmgpu CXL root complex engine (CXL-GPU paper §II; notes cxlgpu.md §4):
 * the GPU's CXL host bridge with its HDM decoders, root ports and one
 * Type-3 endpoint behind each (media and capacity per port), as gpu_rc.ko
 * finds them: a Register Locator DVSEC in config space pointing at
 * component register blocks in BAR0 (layout in mcmgpu_cxl.h).
 *
 * Decoder registers follow the spec: RsvdP bits 27:0 of bases and sizes,
 * Lock On Commit, Commit answered by Committed or Error Not Committed after
 * the commit delay, with every check of cxl_hdm.c applied whether or not
 * Lock On Commit is set (QEMU's own hw/cxl commits without checks). Data
 * through the window (BAR4's aperture) goes HB decode → root port → the
 * endpoint's HPA → DPA → its media, held in 64 KiB chunks allocated on
 * first write and charged to the device's memory budget. An address no
 * decoder maps reads all 1s; a write to it is dropped.
 *
 * All of this runs under the BQL (MMIO and the commit timer).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/cutils.h"
#include "qemu/units.h"
#include "qemu/host-utils.h"
#include "qemu/log.h"
#include "qemu/error-report.h"
#include "qemu/timer.h"
#include "qapi/error.h"
#include "migration/qemu-file-types.h"
#include "hw/pci/pci.h"
#include "hw/pci/pcie.h"
#include "hw/pci/pcie_regs.h"
#include "hw/cxl/cxl.h"
#include "trace.h"
#include "mcmgpu_engine.h"
#include "mcmgpu_cxl.h"
#include "cxl_hdm.h"
#include "cxl_srds.h"

#define CXL_CHUNK_SHIFT 16
#define CXL_CHUNK       (1ull << CXL_CHUNK_SHIFT)
#define CXL_BLOCKS      (1 + MCMGPU_CXL_MAX_PORTS)
#define CXL_HDM_BASE    (MCMGPU_CXL_CM_OFFSET + MCMGPU_CXL_HDM_OFFSET)

typedef struct CXLRC CXLRC;

typedef struct CXLEndpoint {
    uint32_t media;
    uint64_t capacity;
    uint64_t dpa;               /* EP_DPA, the media window's pointer */
    GHashTable *chunks;         /* DPA >> CXL_CHUNK_SHIFT → CXL_CHUNK bytes */
    uint8_t config[MCMGPU_CXL_EP_CONFIG_SIZE];
} CXLEndpoint;

/* One component register block: the HB's (port < 0) or an endpoint's. */
typedef struct CXLBlock {
    MemoryRegion mr;
    CXLRC *rc;
    int port;
    struct cxl_hdm hdm;
    int64_t commit_due[CXL_HDM_MAX_DECODERS];   /* ns, -1: none pending */
} CXLBlock;

/*
 * What the worker thread's replays decode with: a copy of the decoders,
 * published by the MMIO side (BQL) after every change.
 */
typedef struct cxl_hdm_tree CXLSnapshot;

struct CXLRC {
    MCMGPUState *s;
    unsigned ports;
    unsigned hb_decoders;
    uint8_t port_ids[MCMGPU_CXL_MAX_PORTS];
    CXLBlock block[CXL_BLOCKS];
    CXLEndpoint ep[MCMGPU_CXL_MAX_PORTS];
    uint64_t window_size;
    uint64_t aperture_size;     /* BAR4 */
    uint64_t aperture;          /* window offset BAR4 shows */
    uint32_t commit_us;
    uint64_t probe_hpa;
    uint32_t probe_port;
    uint64_t probe_dpa;
    QEMUTimer *commit_timer;
    MemoryRegion bar4;
    QemuMutex snap_lock;
    CXLSnapshot snap;
    /* The replay trace: the worker thread's alone. */
    struct mcmgpu_cxl_record *rec;
    uint64_t nrec, cap, charged;
};

static void cxl_publish(CXLRC *rc)
{
    unsigned p;

    qemu_mutex_lock(&rc->snap_lock);
    rc->snap.hb = rc->block[MCMGPU_CXL_HB_BLOCK].hdm;
    for (p = 0; p < rc->ports; p++) {
        rc->snap.ep[p] = rc->block[MCMGPU_CXL_EP_BLOCK(p)].hdm;
        rc->snap.port_ids[p] = rc->port_ids[p];
        rc->snap.capacity[p] = rc->ep[p].capacity;
    }
    rc->snap.ports = rc->ports;
    qemu_mutex_unlock(&rc->snap_lock);
}

static const char *const cxl_media_names[MCMGPU_CXL_MEDIA_TYPES] = {
    [MCMGPU_CXL_MEDIA_DRAM] = "dram",
    [MCMGPU_CXL_MEDIA_OPTANE] = "optane",
    [MCMGPU_CXL_MEDIA_ZNAND] = "znand",
    [MCMGPU_CXL_MEDIA_NAND] = "nand",
};

/* ---- Endpoint media ---------------------------------------------------- */

static uint8_t *cxl_chunk(CXLRC *rc, CXLEndpoint *ep, uint64_t dpa,
                          bool create)
{
    gpointer key = GSIZE_TO_POINTER(dpa >> CXL_CHUNK_SHIFT);
    uint8_t *c = g_hash_table_lookup(ep->chunks, key);

    if (!c && create) {
        if (!mcmgpu_mem_charge(rc->s, CXL_CHUNK)) {
            qemu_log_mask(LOG_GUEST_ERROR, "mcmgpu: CXL endpoint media "
                          "write dropped: the device's mem-budget is spent\n");
            return NULL;
        }
        c = g_malloc0(CXL_CHUNK);
        g_hash_table_insert(ep->chunks, key, c);
    }
    return c;
}

/* len <= 8 bytes, not crossing a chunk (callers access aligned words). */
static uint64_t cxl_media_read(CXLRC *rc, CXLEndpoint *ep, uint64_t dpa,
                               unsigned len)
{
    uint8_t *c = cxl_chunk(rc, ep, dpa, false);

    return c ? ldn_le_p(c + (dpa & (CXL_CHUNK - 1)), len) : 0;
}

static void cxl_media_write(CXLRC *rc, CXLEndpoint *ep, uint64_t dpa,
                            uint64_t val, unsigned len)
{
    uint8_t *c = cxl_chunk(rc, ep, dpa, true);

    if (c) {
        stn_le_p(c + (dpa & (CXL_CHUNK - 1)), len, val);
    }
}

static void cxl_media_free(CXLRC *rc, CXLEndpoint *ep)
{
    mcmgpu_mem_uncharge(rc->s, g_hash_table_size(ep->chunks) * CXL_CHUNK);
    g_hash_table_remove_all(ep->chunks);
}

/* ---- Decode ------------------------------------------------------------ */

/*
 * MMIO's decode, under the BQL: every writer of the snapshot holds the
 * BQL too, so it is read here without its lock.
 */
static bool cxl_decode(CXLRC *rc, uint64_t hpa, unsigned len,
                       unsigned *port, uint64_t *dpa)
{
    return cxl_hdm_tree_route(&rc->snap, hpa, len, port, dpa);
}

static uint64_t cxl_window_read(void *opaque, hwaddr off, unsigned size)
{
    CXLRC *rc = opaque;
    uint64_t hpa = MCMGPU_CXL_WINDOW_BASE + rc->aperture + off;
    uint64_t dpa, val = ~0ull >> (64 - 8 * size);
    unsigned p;

    if (cxl_decode(rc, hpa, size, &p, &dpa)) {
        val = cxl_media_read(rc, &rc->ep[p], dpa, size);
    } else {
        trace_mcmgpu_cxl_unmapped(hpa, false);
    }
    return val;
}

static void cxl_window_write(void *opaque, hwaddr off, uint64_t val,
                             unsigned size)
{
    CXLRC *rc = opaque;
    uint64_t hpa = MCMGPU_CXL_WINDOW_BASE + rc->aperture + off;
    uint64_t dpa;
    unsigned p;

    if (cxl_decode(rc, hpa, size, &p, &dpa)) {
        cxl_media_write(rc, &rc->ep[p], dpa, val, size);
    } else {
        trace_mcmgpu_cxl_unmapped(hpa, true);
    }
}

static const MemoryRegionOps cxl_window_ops = {
    .read = cxl_window_read,
    .write = cxl_window_write,
    .endianness = DEVICE_LITTLE_ENDIAN,
    .valid = {
        .min_access_size = 1,
        .max_access_size = 8,
    },
    .impl = {
        .min_access_size = 1,
        .max_access_size = 8,
    },
};

/* ---- HDM decoder registers --------------------------------------------- */

static struct cxl_hdm_limits cxl_limits(CXLBlock *b)
{
    CXLRC *rc = b->rc;

    return (struct cxl_hdm_limits) {
        .port_ids = rc->port_ids,
        .ports = rc->ports,
        .window_base = MCMGPU_CXL_WINDOW_BASE,
        .window_size = rc->window_size,
        .capacity = b->port < 0 ? 0 : rc->ep[b->port].capacity,
    };
}

static void cxl_commit_resolve(CXLBlock *b, unsigned n)
{
    struct cxl_hdm_limits lim = cxl_limits(b);
    const char *why = cxl_hdm_commit_check(&b->hdm, n, &lim);

    b->commit_due[n] = -1;
    if (why) {
        b->hdm.d[n].ctrl = FIELD_DP32(b->hdm.d[n].ctrl,
                                      CXL_HDM_DECODER0_CTRL, ERR, 1);
        qemu_log_mask(LOG_GUEST_ERROR, "mcmgpu: CXL %s%d decoder %u not "
                      "committed: %s\n", b->port < 0 ? "host bridge" :
                      "endpoint ", b->port < 0 ? 0 : b->port, n, why);
    } else {
        cxl_hdm_set_committed(&b->hdm, n);
    }
    trace_mcmgpu_cxl_commit(b->port, n, why ? why : "committed");
    cxl_publish(b->rc);
}

static void cxl_commit_arm(CXLRC *rc)
{
    int64_t next = INT64_MAX;
    unsigned k, n;

    for (k = 0; k <= rc->ports; k++) {
        for (n = 0; n < rc->block[k].hdm.decoders; n++) {
            if (rc->block[k].commit_due[n] >= 0) {
                next = MIN(next, rc->block[k].commit_due[n]);
            }
        }
    }
    if (next == INT64_MAX) {
        timer_del(rc->commit_timer);
    } else {
        timer_mod(rc->commit_timer, next);
    }
}

/* Due commits resolve in block and decoder order, lower decoders first. */
static void cxl_commit_timer(void *opaque)
{
    CXLRC *rc = opaque;
    int64_t now = qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);
    unsigned k, n;

    for (k = 0; k <= rc->ports; k++) {
        for (n = 0; n < rc->block[k].hdm.decoders; n++) {
            int64_t due = rc->block[k].commit_due[n];

            if (due >= 0 && due <= now) {
                cxl_commit_resolve(&rc->block[k], n);
            }
        }
    }
    cxl_commit_arm(rc);
}

static void cxl_commit_start(CXLBlock *b, unsigned n)
{
    CXLRC *rc = b->rc;

    if (!rc->commit_us) {
        cxl_commit_resolve(b, n);
        return;
    }
    b->commit_due[n] = qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL) +
                       (int64_t)rc->commit_us * 1000;
    cxl_commit_arm(rc);
}

/*
 * The HDM Decoder Capability Structure (spec §8.2.4.20) by 32-bit word
 * from its start, under the spec's names as QEMU defines them
 * (hw/cxl/cxl_component.h), taken relative to its first register since
 * QEMU places the structure elsewhere: Capability, Global Control, then
 * decoder n's words at CXL_HDM_DEC_WORD(n) + CXL_DEC_REG(BASE_LO ...
 * TARGET_LIST_HI), the model's struct cxl_hdm_decoder seen as registers.
 */
#define CXL_HDM_REG(r)      (R_CXL_HDM_DECODER_##r - \
                             R_CXL_HDM_DECODER_CAPABILITY)
#define CXL_DEC_REG(r)      (R_CXL_HDM_DECODER0_##r - \
                             R_CXL_HDM_DECODER0_BASE_LO)
#define CXL_DEC_WORDS       (0x20 / 4)
#define CXL_HDM_DEC_WORD(n) (R_CXL_HDM_DECODER0_BASE_LO - \
                             R_CXL_HDM_DECODER_CAPABILITY + \
                             (n) * CXL_DEC_WORDS)
#define CXL_DEC_CTRL(f)     R_CXL_HDM_DECODER0_CTRL_##f##_MASK

/* A 256 MiB-aligned address's low word: bits 31:28, 27:0 RsvdP. */
#define CXL_DEC_ADDR_LO     R_CXL_HDM_DECODER0_BASE_LO_L_MASK

/*
 * What a write to each decoder register changes ([0] the host bridge's,
 * [1] an endpoint's), unless the decoder is locked or has Commit set:
 * the rest is RO or RsvdP. An endpoint's Target Range Type is RO (its
 * media is host-only coherent) and its TARGET_LIST words are the DPA Skip.
 */
static const uint32_t cxl_dec_wmask[2][CXL_DEC_WORDS] = {
    {
        [CXL_DEC_REG(BASE_LO)] = CXL_DEC_ADDR_LO,
        [CXL_DEC_REG(BASE_HI)] = UINT32_MAX,
        [CXL_DEC_REG(SIZE_LO)] = CXL_DEC_ADDR_LO,
        [CXL_DEC_REG(SIZE_HI)] = UINT32_MAX,
        [CXL_DEC_REG(CTRL)] = CXL_DEC_CTRL(IG) | CXL_DEC_CTRL(IW) |
                              CXL_DEC_CTRL(LOCK_ON_COMMIT) |
                              CXL_DEC_CTRL(COMMIT) | CXL_DEC_CTRL(TYPE),
        [CXL_DEC_REG(TARGET_LIST_LO)] = UINT32_MAX,
        [CXL_DEC_REG(TARGET_LIST_HI)] = UINT32_MAX,
    }, {
        [CXL_DEC_REG(BASE_LO)] = CXL_DEC_ADDR_LO,
        [CXL_DEC_REG(BASE_HI)] = UINT32_MAX,
        [CXL_DEC_REG(SIZE_LO)] = CXL_DEC_ADDR_LO,
        [CXL_DEC_REG(SIZE_HI)] = UINT32_MAX,
        [CXL_DEC_REG(CTRL)] = CXL_DEC_CTRL(IG) | CXL_DEC_CTRL(IW) |
                              CXL_DEC_CTRL(LOCK_ON_COMMIT) |
                              CXL_DEC_CTRL(COMMIT),
        [CXL_DEC_REG(TARGET_LIST_LO)] = CXL_DEC_ADDR_LO,
        [CXL_DEC_REG(TARGET_LIST_HI)] = UINT32_MAX,
    },
};

static uint32_t cxl_hdm_wmask(CXLBlock *b, unsigned word)
{
    bool ep = b->port >= 0;

    if (word >= CXL_HDM_DEC_WORD(0)) {
        return cxl_dec_wmask[ep][(word - CXL_HDM_DEC_WORD(0)) % CXL_DEC_WORDS];
    }
    if (word == CXL_HDM_REG(GLOBAL_CONTROL) && ep) {
        return R_CXL_HDM_DECODER_GLOBAL_CONTROL_HDM_DECODER_ENABLE_MASK;
    }
    return 0;
}

/* Decoder d's registers, as the words the guest sees, and back. */
static void cxl_dec_get_regs(const struct cxl_hdm_decoder *d, uint32_t *r)
{
    r[CXL_DEC_REG(BASE_LO)] = d->base;
    r[CXL_DEC_REG(BASE_HI)] = d->base >> 32;
    r[CXL_DEC_REG(SIZE_LO)] = d->size;
    r[CXL_DEC_REG(SIZE_HI)] = d->size >> 32;
    r[CXL_DEC_REG(CTRL)] = d->ctrl;
    r[CXL_DEC_REG(TARGET_LIST_LO)] = d->target;
    r[CXL_DEC_REG(TARGET_LIST_HI)] = d->target >> 32;
    r[CXL_DEC_WORDS - 1] = 0;
}

static void cxl_dec_set_regs(struct cxl_hdm_decoder *d, const uint32_t *r)
{
    d->base = deposit64(r[CXL_DEC_REG(BASE_LO)], 32, 32,
                        r[CXL_DEC_REG(BASE_HI)]);
    d->size = deposit64(r[CXL_DEC_REG(SIZE_LO)], 32, 32,
                        r[CXL_DEC_REG(SIZE_HI)]);
    d->ctrl = r[CXL_DEC_REG(CTRL)];
    d->target = deposit64(r[CXL_DEC_REG(TARGET_LIST_LO)], 32, 32,
                          r[CXL_DEC_REG(TARGET_LIST_HI)]);
}

/* Whether block offset off falls in the HDM structure of b's decoders. */
static bool cxl_hdm_holds(CXLBlock *b, hwaddr off)
{
    return off >= CXL_HDM_BASE &&
           off < CXL_HDM_BASE + CXL_HDM_DEC_WORD(b->hdm.decoders) * 4;
}

static uint32_t cxl_hdm_read(CXLBlock *b, hwaddr off)
{
    uint32_t r[CXL_DEC_WORDS], cap = 0;
    unsigned word = off / 4;

    if (word == CXL_HDM_REG(CAPABILITY)) {
        cap = FIELD_DP32(cap, CXL_HDM_DECODER_CAPABILITY, DECODER_COUNT,
                         cxl_hdm_count_enc(b->hdm.decoders));
        cap = FIELD_DP32(cap, CXL_HDM_DECODER_CAPABILITY, TARGET_COUNT,
                         b->hdm.targets);
        cap = FIELD_DP32(cap, CXL_HDM_DECODER_CAPABILITY, INTERLEAVE_256B, 1);
        return FIELD_DP32(cap, CXL_HDM_DECODER_CAPABILITY, INTERLEAVE_4K, 1);
    }
    if (word == CXL_HDM_REG(GLOBAL_CONTROL)) {
        return b->hdm.global_ctrl;
    }
    if (word < CXL_HDM_DEC_WORD(0)) {
        return 0;
    }
    word -= CXL_HDM_DEC_WORD(0);
    cxl_dec_get_regs(&b->hdm.d[word / CXL_DEC_WORDS], r);
    return r[word % CXL_DEC_WORDS];
}

/*
 * Control's side effects: Commit 0→1 starts the commit check, 1→0
 * uncommits. An unlocked decoder may drop Commit in any order, as the
 * spec has it (Linux resets newest first, but that is software's rule);
 * the ones above keep the DPA bases they latched at their commit.
 */
static void cxl_dec_ctrl_written(CXLBlock *b, unsigned n, uint32_t old)
{
    struct cxl_hdm_decoder *d = &b->hdm.d[n];
    bool was = FIELD_EX32(old, CXL_HDM_DECODER0_CTRL, COMMIT);
    bool now = FIELD_EX32(d->ctrl, CXL_HDM_DECODER0_CTRL, COMMIT);

    if (was && !now) {
        d->ctrl = FIELD_DP32(d->ctrl, CXL_HDM_DECODER0_CTRL, COMMITTED, 0);
        d->ctrl = FIELD_DP32(d->ctrl, CXL_HDM_DECODER0_CTRL, ERR, 0);
    } else if (!was && now) {
        cxl_commit_start(b, n);
    }
}

/*
 * A decoder's registers are RWL: a locked decoder takes no write until a
 * reset, one with Commit set only the write that clears it (which also
 * cancels a commit check in progress, so a driver that timed out can roll
 * back; the spec leaves writes during the check undefined).
 */
static bool cxl_dec_writable(CXLBlock *b, unsigned n, unsigned reg,
                             uint32_t val)
{
    const struct cxl_hdm_decoder *d = &b->hdm.d[n];

    if (FIELD_EX32(d->ctrl, CXL_HDM_DECODER0_CTRL, LOCK_ON_COMMIT) &&
        FIELD_EX32(d->ctrl, CXL_HDM_DECODER0_CTRL, COMMITTED)) {
        qemu_log_mask(LOG_GUEST_ERROR, "mcmgpu: CXL decoder %u is locked: "
                      "write ignored\n", n);
        return false;
    }
    if (!FIELD_EX32(d->ctrl, CXL_HDM_DECODER0_CTRL, COMMIT)) {
        return true;
    }
    if (reg != CXL_DEC_REG(CTRL) ||
        FIELD_EX32(val, CXL_HDM_DECODER0_CTRL, COMMIT)) {
        qemu_log_mask(LOG_GUEST_ERROR, "mcmgpu: CXL decoder %u %s: write "
                      "ignored\n", n, b->commit_due[n] >= 0 ?
                      "is being checked for commit" : "has Commit set");
        return false;
    }
    if (b->commit_due[n] >= 0) {
        b->commit_due[n] = -1;
        trace_mcmgpu_cxl_commit(b->port, n, "cancelled");
        cxl_commit_arm(b->rc);
    }
    return true;
}

static void cxl_hdm_write(CXLBlock *b, hwaddr off, uint32_t val)
{
    uint32_t r[CXL_DEC_WORDS], mask = cxl_hdm_wmask(b, off / 4), old;
    unsigned word = off / 4, n, reg;

    if (!mask) {
        qemu_log_mask(LOG_GUEST_ERROR, "mcmgpu: CXL write to read-only HDM "
                      "register 0x%" HWADDR_PRIx "\n", off);
        return;
    }
    if (word == CXL_HDM_REG(GLOBAL_CONTROL)) {
        b->hdm.global_ctrl = (b->hdm.global_ctrl & ~mask) | (val & mask);
        return;
    }
    word -= CXL_HDM_DEC_WORD(0);
    n = word / CXL_DEC_WORDS;
    reg = word % CXL_DEC_WORDS;
    if (!cxl_dec_writable(b, n, reg, val)) {
        return;
    }
    cxl_dec_get_regs(&b->hdm.d[n], r);
    old = r[reg];
    r[reg] = (old & ~mask) | (val & mask);
    cxl_dec_set_regs(&b->hdm.d[n], r);
    if (reg == CXL_DEC_REG(CTRL)) {
        cxl_dec_ctrl_written(b, n, old);
    }
}

/* ---- Component register blocks ----------------------------------------- */

/* EP_DATA's word: 4-byte aligned and inside the media, else logged. */
static bool cxl_ep_data_ok(CXLBlock *b)
{
    CXLEndpoint *ep = &b->rc->ep[b->port];

    if (ep->dpa % 4 || ep->dpa > ep->capacity - 4) {
        qemu_log_mask(LOG_GUEST_ERROR, "mcmgpu: CXL endpoint %d DPA 0x%"
                      PRIx64 " unaligned or beyond capacity\n", b->port,
                      ep->dpa);
        return false;
    }
    return true;
}

static uint64_t cxl_block_read(void *opaque, hwaddr off, unsigned size)
{
    CXLBlock *b = opaque;
    CXLEndpoint *ep = b->port < 0 ? NULL : &b->rc->ep[b->port];
    uint64_t val = 0;

    if (off == MCMGPU_CXL_CM_OFFSET) {
        /* Capability array: CXL 1, cache/mem 1, one capability after it. */
        val = FIELD_DP32(val, CXL_CAPABILITY_HEADER, ID,
                         MCMGPU_CXL_CAP_ID_ARRAY);
        val = FIELD_DP32(val, CXL_CAPABILITY_HEADER, VERSION, 1);
        val = FIELD_DP32(val, CXL_CAPABILITY_HEADER, CACHE_MEM_VERSION, 1);
        val = FIELD_DP32(val, CXL_CAPABILITY_HEADER, ARRAY_SIZE, 1);
    } else if (off == MCMGPU_CXL_CM_OFFSET + 4) {
        val = FIELD_DP32(val, CXL_HDM_CAPABILITY_HEADER, ID,
                         MCMGPU_CXL_CAP_ID_HDM);
        val = FIELD_DP32(val, CXL_HDM_CAPABILITY_HEADER, VERSION, 1);
        val = FIELD_DP32(val, CXL_HDM_CAPABILITY_HEADER, PTR,
                         MCMGPU_CXL_HDM_OFFSET);
    } else if (cxl_hdm_holds(b, off)) {
        val = cxl_hdm_read(b, off - CXL_HDM_BASE);
    } else if (ep && off >= MCMGPU_CXL_EP_CONFIG &&
               off < MCMGPU_CXL_EP_CONFIG + MCMGPU_CXL_EP_CONFIG_SIZE) {
        val = ldl_le_p(ep->config + off - MCMGPU_CXL_EP_CONFIG);
    } else if (ep) {
        switch (off) {
        case MCMGPU_CXL_EP_MEDIA:
            val = ep->media;
            break;
        case MCMGPU_CXL_EP_CAPACITY_LO:
            val = (uint32_t)ep->capacity;
            break;
        case MCMGPU_CXL_EP_CAPACITY_HI:
            val = ep->capacity >> 32;
            break;
        case MCMGPU_CXL_EP_PORT_ID:
            val = b->rc->port_ids[b->port];
            break;
        case MCMGPU_CXL_EP_DPA_LO:
            val = (uint32_t)ep->dpa;
            break;
        case MCMGPU_CXL_EP_DPA_HI:
            val = ep->dpa >> 32;
            break;
        case MCMGPU_CXL_EP_DATA:
            if (!cxl_ep_data_ok(b)) {
                val = UINT32_MAX;
                break;
            }
            val = cxl_media_read(b->rc, ep, ep->dpa, 4);
            ep->dpa += 4;
            break;
        }
    }
    return val;
}

static void cxl_block_write(void *opaque, hwaddr off, uint64_t val,
                            unsigned size)
{
    CXLBlock *b = opaque;
    CXLEndpoint *ep = b->port < 0 ? NULL : &b->rc->ep[b->port];

    if (cxl_hdm_holds(b, off)) {
        cxl_hdm_write(b, off - CXL_HDM_BASE, val);
        cxl_publish(b->rc);
    } else if (ep && off == MCMGPU_CXL_EP_DPA_LO) {
        ep->dpa = deposit64(ep->dpa, 0, 32, val);
    } else if (ep && off == MCMGPU_CXL_EP_DPA_HI) {
        ep->dpa = deposit64(ep->dpa, 32, 32, val);
    } else if (ep && off == MCMGPU_CXL_EP_DATA) {
        if (!cxl_ep_data_ok(b)) {
            return;
        }
        cxl_media_write(b->rc, ep, ep->dpa, val, 4);
        ep->dpa += 4;
    } else {
        qemu_log_mask(LOG_GUEST_ERROR, "mcmgpu: CXL write to read-only or "
                      "reserved component register 0x%" HWADDR_PRIx "\n", off);
    }
}

/* Spec §8.2.2: 32-bit registers, accessed whole. */
static const MemoryRegionOps cxl_block_ops = {
    .read = cxl_block_read,
    .write = cxl_block_write,
    .endianness = DEVICE_LITTLE_ENDIAN,
    .valid = {
        .min_access_size = 4,
        .max_access_size = 8,
    },
    .impl = {
        .min_access_size = 4,
        .max_access_size = 4,
    },
};

/* ---- The engine's window registers ------------------------------------- */

static CXLRC *cxl_rc(MCMGPUState *s)
{
    return mcmgpu_engine_dev(s, &mcmgpu_cxl_rc_engine);
}

static uint64_t cxl_rc_window_read(MCMGPUState *s, hwaddr off)
{
    CXLRC *rc = cxl_rc(s);

    switch (off) {
    case MCMGPU_CXL_REG_PORTS:
        return rc->ports;
    case MCMGPU_CXL_REG_WINDOW_BASE_LO:
        return (uint32_t)MCMGPU_CXL_WINDOW_BASE;
    case MCMGPU_CXL_REG_WINDOW_BASE_HI:
        return MCMGPU_CXL_WINDOW_BASE >> 32;
    case MCMGPU_CXL_REG_WINDOW_SIZE_LO:
        return (uint32_t)rc->window_size;
    case MCMGPU_CXL_REG_WINDOW_SIZE_HI:
        return rc->window_size >> 32;
    case MCMGPU_CXL_REG_APERTURE_LO:
        return (uint32_t)rc->aperture;
    case MCMGPU_CXL_REG_APERTURE_HI:
        return rc->aperture >> 32;
    case MCMGPU_CXL_REG_COMMIT_US:
        return rc->commit_us;
    case MCMGPU_CXL_REG_PROBE_HPA_LO:
        return (uint32_t)rc->probe_hpa;
    case MCMGPU_CXL_REG_PROBE_HPA_HI:
        return rc->probe_hpa >> 32;
    case MCMGPU_CXL_REG_PROBE_PORT:
        return rc->probe_port;
    case MCMGPU_CXL_REG_PROBE_DPA_LO:
        return (uint32_t)rc->probe_dpa;
    case MCMGPU_CXL_REG_PROBE_DPA_HI:
        return rc->probe_dpa >> 32;
    default:
        qemu_log_mask(LOG_GUEST_ERROR, "mcmgpu: read of unknown CXL RC "
                      "register 0x%" HWADDR_PRIx "\n", off);
        return 0;
    }
}

static void cxl_rc_set_aperture(CXLRC *rc, uint64_t off)
{
    if (off % rc->aperture_size || off >= rc->window_size) {
        qemu_log_mask(LOG_GUEST_ERROR, "mcmgpu: CXL aperture offset 0x%"
                      PRIx64 " not a multiple of 0x%" PRIx64 " inside the "
                      "window: ignored\n", off, rc->aperture_size);
        return;
    }
    rc->aperture = off;
}

static void cxl_rc_window_write(MCMGPUState *s, hwaddr off, uint64_t val)
{
    CXLRC *rc = cxl_rc(s);
    uint64_t dpa;
    unsigned p;

    switch (off) {
    case MCMGPU_CXL_REG_APERTURE_LO:
        cxl_rc_set_aperture(rc, deposit64(rc->aperture, 0, 32, val));
        break;
    case MCMGPU_CXL_REG_APERTURE_HI:
        cxl_rc_set_aperture(rc, deposit64(rc->aperture, 32, 32, val));
        break;
    case MCMGPU_CXL_REG_COMMIT_US:
        if (val > MCMGPU_CXL_MAX_COMMIT_US) {
            qemu_log_mask(LOG_GUEST_ERROR, "mcmgpu: CXL commit delay %"
                          PRIu64 " us above %d: ignored\n", val,
                          MCMGPU_CXL_MAX_COMMIT_US);
            break;
        }
        rc->commit_us = val;
        break;
    case MCMGPU_CXL_REG_PROBE_HPA_LO:
        rc->probe_hpa = deposit64(rc->probe_hpa, 0, 32, val);
        break;
    case MCMGPU_CXL_REG_PROBE_HPA_HI:
        rc->probe_hpa = deposit64(rc->probe_hpa, 32, 32, val);
        if (cxl_decode(rc, rc->probe_hpa, 1, &p, &dpa)) {
            rc->probe_port = p;
            rc->probe_dpa = dpa;
        } else {
            rc->probe_port = MCMGPU_CXL_PROBE_MISS;
            rc->probe_dpa = 0;
        }
        break;
    default:
        qemu_log_mask(LOG_GUEST_ERROR, "mcmgpu: write to read-only or unknown "
                      "CXL RC register 0x%" HWADDR_PRIx "\n", off);
        break;
    }
}

/* ---- SR/DS replays (worker thread) ------------------------------------- */

static void cxl_trace_free(CXLRC *rc)
{
    mcmgpu_mem_uncharge(rc->s, rc->charged);
    g_free(rc->rec);
    rc->rec = NULL;
    rc->nrec = rc->cap = rc->charged = 0;
}

static uint32_t cxl_load(MCMGPUState *s, MCMGPUContext *ctx, uint16_t flags,
                         const uint64_t *args, MCMGPUCmdOut *out)
{
    CXLRC *rc = cxl_rc(s);
    uint64_t n = args[1];

    if (flags & MCMGPU_CXL_LOAD_FIRST) {
        cxl_trace_free(rc);
    }
    if (!n || n > MCMGPU_CXL_LOAD_MAX ||
        rc->nrec + n > MCMGPU_CXL_MAX_RECORDS) {
        return MCMGPU_CMPL_BAD_LENGTH;
    }
    if (rc->nrec + n > rc->cap) {
        uint64_t cap = MIN(MAX(rc->cap * 2, rc->nrec + n),
                           MCMGPU_CXL_MAX_RECORDS);
        uint64_t bytes = (cap - rc->cap) * sizeof(*rc->rec);

        if (!mcmgpu_mem_charge(s, bytes)) {
            return MCMGPU_CMPL_NO_MEMORY;
        }
        rc->charged += bytes;
        rc->rec = g_renew(struct mcmgpu_cxl_record, rc->rec, cap);
        rc->cap = cap;
    }
    if (mcmgpu_host_read(s, args[0], rc->rec + rc->nrec,
                         n * sizeof(*rc->rec)) != MEMTX_OK) {
        return MCMGPU_CMPL_DMA_FAULT;
    }
    rc->nrec += n;
    out->result = rc->nrec;
    return MCMGPU_CMPL_OK;
}

/* The replay with the device's own endpoints and committed decoders. */
static uint32_t cxl_replay(MCMGPUState *s, MCMGPUContext *ctx,
                           uint16_t flags, const uint64_t *args,
                           MCMGPUCmdOut *out)
{
    CXLRC *rc = cxl_rc(s);
    g_autofree struct mcmgpu_cxl_replay_out *res =
        g_new0(struct mcmgpu_cxl_replay_out, 1);
    struct srds_config cfg = { 0 };
    CXLSnapshot snap;
    uint32_t status = MCMGPU_CMPL_OK;
    uint64_t bytes;
    unsigned p;
    void *mem;

    if (mcmgpu_host_read(s, args[0], &cfg.sim, sizeof(cfg.sim)) != MEMTX_OK) {
        return MCMGPU_CMPL_DMA_FAULT;
    }
    qemu_mutex_lock(&rc->snap_lock);
    snap = rc->snap;
    qemu_mutex_unlock(&rc->snap_lock);
    cfg.ports = rc->ports;
    for (p = 0; p < rc->ports; p++) {
        cfg.media[p] = rc->ep[p].media;
        cfg.capacity[p] = rc->ep[p].capacity;
    }
    cfg.route = srds_route_tree;
    cfg.route_priv = &snap;
    if (!buffer_is_zero(cfg.sim.reserved, sizeof(cfg.sim.reserved))) {
        return MCMGPU_CMPL_BAD_RESERVED;
    }
    if (srds_check(&cfg, rc->rec, rc->nrec, &res->error)) {
        out->result = res->error.index;
        status = MCMGPU_CMPL_BAD_TRACE;
    } else {
        bytes = srds_state_size(&cfg);
        if (!mcmgpu_mem_charge(s, bytes)) {
            return MCMGPU_CMPL_NO_MEMORY;
        }
        mem = g_try_malloc(bytes);
        if (!mem) {
            mcmgpu_mem_uncharge(s, bytes);
            return MCMGPU_CMPL_NO_MEMORY;
        }
        srds_run(&cfg, mem, rc->rec, rc->nrec, &res->result);
        g_free(mem);
        mcmgpu_mem_uncharge(s, bytes);
        out->cycles = res->result.runtime_ps / 1000;
    }
    if (mcmgpu_host_write(s, args[1], res, sizeof(*res)) != MEMTX_OK) {
        return MCMGPU_CMPL_DMA_FAULT;
    }
    return status;
}

static const MCMGPUCommand cxl_rc_commands[] = {
    { MCMGPU_OP_CXL_LOAD, "CXL_LOAD", MCMGPU_CXL_LOAD_FIRST, false,
      cxl_load },
    { MCMGPU_OP_CXL_REPLAY, "CXL_REPLAY", 0, false, cxl_replay },
    { 0 }
};

/* ---- Realize, reset -------------------------------------------------- */

/*
 * "x" for every port, or one value a port: "a:b:c:d" (a colon, since
 * -device takes commas between properties).
 */
static bool cxl_parse_list(const char *list, unsigned ports, const char *prop,
                           bool (*one)(const char *v, unsigned p, void *out),
                           void *out, Error **errp)
{
    g_auto(GStrv) v = g_strsplit(list, ":", -1);
    unsigned n = g_strv_length(v), p;

    if (n != 1 && n != ports) {
        error_setg(errp, "mcmgpu: %s has %u values: give one, or one for "
                   "each of the %u ports", prop, n, ports);
        return false;
    }
    for (p = 0; p < ports; p++) {
        if (!one(v[n == 1 ? 0 : p], p, out)) {
            error_setg(errp, "mcmgpu: %s value '%s' (port %u) is not valid",
                       prop, v[n == 1 ? 0 : p], p);
            return false;
        }
    }
    return true;
}

static bool cxl_parse_media(const char *v, unsigned p, void *out)
{
    CXLEndpoint *ep = &((CXLEndpoint *)out)[p];

    for (ep->media = 0; ep->media < MCMGPU_CXL_MEDIA_TYPES; ep->media++) {
        if (!strcmp(v, cxl_media_names[ep->media])) {
            return true;
        }
    }
    return false;
}

static bool cxl_parse_capacity(const char *v, unsigned p, void *out)
{
    CXLEndpoint *ep = &((CXLEndpoint *)out)[p];
    uint64_t sz;

    if (qemu_strtosz(v, NULL, &sz) || !sz || sz % MCMGPU_CXL_UNIT ||
        sz > MCMGPU_CXL_MAX_CAPACITY) {
        return false;
    }
    ep->capacity = sz;
    return true;
}

/*
 * The fields of the DVSECs we build (spec §8.1.3, §8.1.9), by their
 * offsets from the DVSEC's start, the layout of QEMU's CXLDVSECDevice
 * and CXLDVSECRegisterLocator (hw/cxl/cxl_pci.h).
 */
REG32(CXL_DVSEC_HEADER1, PCIE_DVSEC_HEADER1_OFFSET)
    FIELD(CXL_DVSEC_HEADER1, VENDOR_ID, 0, 16)
    FIELD(CXL_DVSEC_HEADER1, REVISION, 16, 4)
    FIELD(CXL_DVSEC_HEADER1, LENGTH, 20, 12)
REG16(CXL_DVSEC_CAP, offsetof(CXLDVSECDevice, cap))
    FIELD(CXL_DVSEC_CAP, IO_CAPABLE, 1, 1)
    FIELD(CXL_DVSEC_CAP, MEM_CAPABLE, 2, 1)
    FIELD(CXL_DVSEC_CAP, HDM_COUNT, 4, 2)
REG16(CXL_DVSEC_CTRL, offsetof(CXLDVSECDevice, ctrl))
    FIELD(CXL_DVSEC_CTRL, IO_ENABLE, 1, 1)
    FIELD(CXL_DVSEC_CTRL, MEM_ENABLE, 2, 1)
REG32(CXL_DVSEC_RANGE1_SIZE_HI, offsetof(CXLDVSECDevice, range1_size_hi))
REG32(CXL_DVSEC_RANGE1_SIZE_LO, offsetof(CXLDVSECDevice, range1_size_lo))
    FIELD(CXL_DVSEC_RANGE1_SIZE_LO, MEMORY_INFO_VALID, 0, 1)
    FIELD(CXL_DVSEC_RANGE1_SIZE_LO, MEMORY_ACTIVE, 1, 1)
    FIELD(CXL_DVSEC_RANGE1_SIZE_LO, MEDIA_TYPE, 2, 3)
    FIELD(CXL_DVSEC_RANGE1_SIZE_LO, MEMORY_CLASS, 5, 3)
    FIELD(CXL_DVSEC_RANGE1_SIZE_LO, MEMORY_SIZE_LOW, 28, 4)
REG32(CXL_REGLOC_BLOCK0_LO, offsetof(CXLDVSECRegisterLocator, reg0_base_lo))
REG32(CXL_REGLOC_BLOCK0_HI, offsetof(CXLDVSECRegisterLocator, reg0_base_hi))

#define CXL_MEDIA_NON_VOLATILE  1       /* Media_Type, Memory_Class */

/* DVSEC header 1: the CXL vendor, revision and length. */
static uint32_t cxl_dvsec_header1(unsigned revision, unsigned len)
{
    uint32_t h = 0;

    h = FIELD_DP32(h, CXL_DVSEC_HEADER1, VENDOR_ID, MCMGPU_CXL_DVSEC_VENDOR);
    h = FIELD_DP32(h, CXL_DVSEC_HEADER1, REVISION, revision);
    return FIELD_DP32(h, CXL_DVSEC_HEADER1, LENGTH, len);
}

/*
 * The endpoint's config space as the GPU's firmware reads it over the
 * link: a CXL memory device with the PCIe DVSEC for CXL devices giving
 * its capacity and media class (spec §8.1.3; lspci decodes it).
 */
static void cxl_ep_config(CXLEndpoint *ep)
{
    uint8_t *c = ep->config;
    uint8_t *dvsec = c + PCI_CFG_SPACE_SIZE;
    uint16_t cap = 0, ctrl = 0;
    uint32_t size_lo = 0;
    unsigned media = ep->media == MCMGPU_CXL_MEDIA_DRAM ? 0 :
                     CXL_MEDIA_NON_VOLATILE;

    memset(c, 0, sizeof(ep->config));
    pci_set_word(c + PCI_VENDOR_ID, MCMGPU_PCI_VENDOR_ID);
    pci_set_word(c + PCI_DEVICE_ID, MCMGPU_CXL_EP_DEVICE_ID);
    pci_set_word(c + PCI_STATUS, PCI_STATUS_CAP_LIST);
    c[PCI_REVISION_ID] = 1;
    pci_set_long(c + PCI_REVISION_ID, 1 | MCMGPU_CXL_EP_CLASS << 8);
    c[PCI_CAPABILITY_LIST] = 0x40;
    /* PCIe capability v2, an endpoint on a x8 32 GT/s link (Table 10a). */
    c[0x40 + PCI_CAP_LIST_ID] = PCI_CAP_ID_EXP;
    pci_set_word(c + 0x40 + PCI_EXP_FLAGS, PCI_EXP_FLAGS_VER2 |
                 PCI_EXP_TYPE_ENDPOINT << PCI_EXP_FLAGS_TYPE_SHIFT);
    pci_set_long(c + 0x40 + PCI_EXP_LNKCAP, PCI_EXP_LNKCAP_SLS_32_0GB |
                 QEMU_PCI_EXP_LNKCAP_MLW(8));
    pci_set_word(c + 0x40 + PCI_EXP_LNKSTA, PCI_EXP_LNKSTA_CLS_32_0GB |
                 PCI_EXP_LNKSTA_NLW_X8);
    /* DVSEC for CXL devices: IO and Mem capable and on, one HDM range. */
    pci_set_long(dvsec, PCI_EXT_CAP(PCI_EXT_CAP_ID_DVSEC, 1, 0));
    pci_set_long(dvsec + A_CXL_DVSEC_HEADER1,
                 cxl_dvsec_header1(PCIE_CXL2_DEVICE_DVSEC_REVID,
                                   PCIE_CXL_DEVICE_DVSEC_LENGTH));
    pci_set_word(dvsec + PCIE_DVSEC_ID_OFFSET, MCMGPU_CXL_DVSEC_DEVICE);
    cap = FIELD_DP16(cap, CXL_DVSEC_CAP, IO_CAPABLE, 1);
    cap = FIELD_DP16(cap, CXL_DVSEC_CAP, MEM_CAPABLE, 1);
    cap = FIELD_DP16(cap, CXL_DVSEC_CAP, HDM_COUNT, 1);
    pci_set_word(dvsec + A_CXL_DVSEC_CAP, cap);
    ctrl = FIELD_DP16(ctrl, CXL_DVSEC_CTRL, IO_ENABLE, 1);
    ctrl = FIELD_DP16(ctrl, CXL_DVSEC_CTRL, MEM_ENABLE, 1);
    pci_set_word(dvsec + A_CXL_DVSEC_CTRL, ctrl);
    /* Range 1: valid, active; media and class volatile or persistent. */
    size_lo = FIELD_DP32(size_lo, CXL_DVSEC_RANGE1_SIZE_LO,
                         MEMORY_INFO_VALID, 1);
    size_lo = FIELD_DP32(size_lo, CXL_DVSEC_RANGE1_SIZE_LO, MEMORY_ACTIVE, 1);
    size_lo = FIELD_DP32(size_lo, CXL_DVSEC_RANGE1_SIZE_LO, MEDIA_TYPE, media);
    size_lo = FIELD_DP32(size_lo, CXL_DVSEC_RANGE1_SIZE_LO, MEMORY_CLASS,
                         media);
    size_lo = FIELD_DP32(size_lo, CXL_DVSEC_RANGE1_SIZE_LO, MEMORY_SIZE_LOW,
                         extract64(ep->capacity, 28, 4));
    pci_set_long(dvsec + A_CXL_DVSEC_RANGE1_SIZE_HI, ep->capacity >> 32);
    pci_set_long(dvsec + A_CXL_DVSEC_RANGE1_SIZE_LO, size_lo);
}

/* The Register Locator in the GPU's config space: every block in BAR0. */
static void cxl_register_locator(CXLRC *rc, PCIDevice *pdev)
{
    uint16_t off = MCMGPU_CXL_REGLOC_OFFSET;
    uint16_t len = A_CXL_REGLOC_BLOCK0_LO + 8 * (1 + rc->ports);
    uint8_t *entry;
    unsigned k;

    pcie_add_capability(pdev, PCI_EXT_CAP_ID_DVSEC, 1, off, len);
    pci_set_long(pdev->config + off + A_CXL_DVSEC_HEADER1,
                 cxl_dvsec_header1(REG_LOC_DVSEC_REVID, len));
    pci_set_word(pdev->config + off + PCIE_DVSEC_ID_OFFSET,
                 MCMGPU_CXL_DVSEC_REGLOC);
    for (k = 0; k <= rc->ports; k++) {
        /* BAR0 (our MCMGPU_BAR_REGS), component registers, offset. */
        entry = pdev->config + off + 8 * k;
        pci_set_long(entry + A_CXL_REGLOC_BLOCK0_LO,
                     MCMGPU_BAR_REGS | RBI_COMPONENT_REG |
                     MCMGPU_CXL_BLOCK(k));
        pci_set_long(entry + A_CXL_REGLOC_BLOCK0_HI, 0);
    }
}

static void cxl_rc_reset_state(CXLRC *rc)
{
    unsigned k, p;

    for (k = 0; k <= rc->ports; k++) {
        CXLBlock *b = &rc->block[k];
        bool hb = k == MCMGPU_CXL_HB_BLOCK;

        memset(&b->hdm, 0, sizeof(b->hdm));
        b->hdm.host_bridge = hb;
        b->hdm.decoders = hb ? rc->hb_decoders : MCMGPU_CXL_EP_DECODERS;
        b->hdm.targets = hb ? rc->ports : 0;
        for (p = 0; p < CXL_HDM_MAX_DECODERS; p++) {
            b->commit_due[p] = -1;
            /* Type-3 expanders are host-only coherent (HDM-H). */
            b->hdm.d[p].ctrl = FIELD_DP32(0, CXL_HDM_DECODER0_CTRL, TYPE,
                                          !hb);
        }
    }
    for (p = 0; p < rc->ports; p++) {
        rc->ep[p].dpa = 0;
    }
    rc->aperture = 0;
    rc->probe_hpa = 0;
    rc->probe_port = MCMGPU_CXL_PROBE_MISS;
    rc->probe_dpa = 0;
    timer_del(rc->commit_timer);
}

static void *cxl_rc_realize(MCMGPUState *s, PCIDevice *pdev,
                            MemoryRegion *bar0, Error **errp)
{
    const MCMGPUCxlConfig *cfg = mcmgpu_cxl_config(s);
    g_autofree CXLRC *rc = g_new0(CXLRC, 1);
    uint64_t total = 0;
    unsigned k, p;

    rc->s = s;
    rc->ports = cfg->ports;
    if (!is_power_of_2(rc->ports) || rc->ports > MCMGPU_CXL_MAX_PORTS) {
        error_setg(errp, "mcmgpu: cxl-ports=%u must be 1, 2, 4 or 8 (the "
                   "HDM Target Count)", cfg->ports);
        return NULL;
    }
    /* More than a request's regions too: drivers must bound by both. */
    rc->hb_decoders = cfg->hb_decoders;
    if (!cxl_hdm_count_valid(rc->hb_decoders)) {
        error_setg(errp, "mcmgpu: cxl-hb-decoders=%u must be 1, 2..16 even, "
                   "20, 24, 28 or 32 (the Decoder Count encodings)",
                   cfg->hb_decoders);
        return NULL;
    }
    if (cfg->commit_us > MCMGPU_CXL_MAX_COMMIT_US) {
        error_setg(errp, "mcmgpu: cxl-commit-us=%u above %d", cfg->commit_us,
                   MCMGPU_CXL_MAX_COMMIT_US);
        return NULL;
    }
    if (!cxl_parse_list(cfg->media ? cfg->media : "dram", rc->ports,
                        "cxl-media (dram|optane|znand|nand)", cxl_parse_media,
                        rc->ep, errp) ||
        !cxl_parse_list(cfg->capacity ? cfg->capacity : "256M", rc->ports,
                        "cxl-capacity (multiples of 256M, up to 64G)",
                        cxl_parse_capacity, rc->ep, errp)) {
        return NULL;
    }
    for (p = 0; p < rc->ports; p++) {
        rc->port_ids[p] = MCMGPU_CXL_PORT_ID(p);
        total += rc->ep[p].capacity;
        cxl_ep_config(&rc->ep[p]);
    }
    rc->window_size = pow2ceil(total);
    if (!is_power_of_2(cfg->aperture) || cfg->aperture < 1 * MiB) {
        error_setg(errp, "mcmgpu: cxl-aperture=%" PRIu64 " must be a power "
                   "of 2 of at least 1M", cfg->aperture);
        return NULL;
    }
    rc->aperture_size = MIN(rc->window_size, cfg->aperture);
    rc->commit_us = cfg->commit_us;
    rc->commit_timer = timer_new_ns(QEMU_CLOCK_VIRTUAL, cxl_commit_timer, rc);

    for (k = 0; k <= rc->ports; k++) {
        CXLBlock *b = &rc->block[k];
        g_autofree char *name = g_strdup_printf("mcmgpu-cxl-block%u", k);

        b->rc = rc;
        b->port = (int)k - 1;
        memory_region_init_io(&b->mr, OBJECT(pdev), &cxl_block_ops, b, name,
                              MCMGPU_CXL_BLOCK_SIZE);
        memory_region_add_subregion(bar0, MCMGPU_CXL_BLOCK(k), &b->mr);
    }
    for (p = 0; p < rc->ports; p++) {
        rc->ep[p].chunks = g_hash_table_new_full(NULL, NULL, NULL, g_free);
    }
    qemu_mutex_init(&rc->snap_lock);
    cxl_rc_reset_state(rc);
    cxl_publish(rc);
    cxl_register_locator(rc, pdev);
    memory_region_init_io(&rc->bar4, OBJECT(pdev), &cxl_window_ops, rc,
                          "mcmgpu-cxl-window", rc->aperture_size);
    pci_register_bar(pdev, MCMGPU_BAR_CXL, PCI_BASE_ADDRESS_SPACE_MEMORY |
                     PCI_BASE_ADDRESS_MEM_TYPE_64 |
                     PCI_BASE_ADDRESS_MEM_PREFETCH, &rc->bar4);
    return g_steal_pointer(&rc);
}

/* A device reset: decoders and media back to power-on (media empty). */
static void cxl_rc_reset(void *state)
{
    CXLRC *rc = state;
    unsigned p;

    cxl_rc_reset_state(rc);
    cxl_publish(rc);
    for (p = 0; p < rc->ports; p++) {
        cxl_media_free(rc, &rc->ep[p]);
    }
}

static void cxl_rc_exit(void *state)
{
    CXLRC *rc = state;
    unsigned p;

    timer_free(rc->commit_timer);
    cxl_trace_free(rc);
    qemu_mutex_destroy(&rc->snap_lock);
    for (p = 0; p < rc->ports; p++) {
        cxl_media_free(rc, &rc->ep[p]);
        g_hash_table_destroy(rc->ep[p].chunks);
    }
    g_free(rc);
}

/* ---- Migration ---------------------------------------------------------- */

/*
 * The decoders, pending commits (due in virtual time, which migrates), the
 * registers and every media chunk. The field's pointer is the device.
 */
static int cxl_rc_put(QEMUFile *f, void *pv, size_t size,
                      const VMStateField *field, JSONWriter *vmdesc)
{
    CXLRC *rc = cxl_rc(pv);
    GHashTableIter it;
    gpointer key, val;
    unsigned k, n, p;

    /* The stream's shape: ports and host bridge decoders. */
    qemu_put_be32(f, rc->ports);
    qemu_put_be32(f, rc->hb_decoders);
    for (k = 0; k <= rc->ports; k++) {
        CXLBlock *b = &rc->block[k];

        qemu_put_be32(f, b->hdm.global_ctrl);
        for (n = 0; n < b->hdm.decoders; n++) {
            qemu_put_be64(f, b->hdm.d[n].base);
            qemu_put_be64(f, b->hdm.d[n].size);
            qemu_put_be32(f, b->hdm.d[n].ctrl);
            qemu_put_be64(f, b->hdm.d[n].target);
            qemu_put_be64(f, b->hdm.d[n].dpa_base);
            qemu_put_be64(f, b->commit_due[n]);
        }
    }
    qemu_put_be64(f, rc->aperture);
    qemu_put_be32(f, rc->commit_us);
    qemu_put_be64(f, rc->probe_hpa);
    qemu_put_be32(f, rc->probe_port);
    qemu_put_be64(f, rc->probe_dpa);
    for (p = 0; p < rc->ports; p++) {
        qemu_put_be64(f, rc->ep[p].dpa);
        qemu_put_be32(f, g_hash_table_size(rc->ep[p].chunks));
        g_hash_table_iter_init(&it, rc->ep[p].chunks);
        while (g_hash_table_iter_next(&it, &key, &val)) {
            qemu_put_be64(f, GPOINTER_TO_SIZE(key));
            qemu_put_buffer(f, val, CXL_CHUNK);
        }
    }
    return 0;
}

static int cxl_rc_get(QEMUFile *f, void *pv, size_t size,
                      const VMStateField *field)
{
    CXLRC *rc = cxl_rc(pv);
    unsigned k, n, p;
    uint32_t chunks, ports = qemu_get_be32(f), hb_decoders = qemu_get_be32(f);

    if (ports != rc->ports || hb_decoders != rc->hb_decoders) {
        error_report("mcmgpu: migration of %u CXL ports and %u host bridge "
                     "decoders to a device with %u and %u", ports,
                     hb_decoders, rc->ports, rc->hb_decoders);
        return -EINVAL;
    }
    for (k = 0; k <= rc->ports; k++) {
        CXLBlock *b = &rc->block[k];

        b->hdm.global_ctrl = qemu_get_be32(f);
        for (n = 0; n < b->hdm.decoders; n++) {
            b->hdm.d[n].base = qemu_get_be64(f);
            b->hdm.d[n].size = qemu_get_be64(f);
            b->hdm.d[n].ctrl = qemu_get_be32(f);
            b->hdm.d[n].target = qemu_get_be64(f);
            b->hdm.d[n].dpa_base = qemu_get_be64(f);
            b->commit_due[n] = qemu_get_be64(f);
        }
    }
    rc->aperture = qemu_get_be64(f);
    rc->commit_us = qemu_get_be32(f);
    rc->probe_hpa = qemu_get_be64(f);
    rc->probe_port = qemu_get_be32(f);
    rc->probe_dpa = qemu_get_be64(f);
    if (rc->aperture % rc->aperture_size || rc->aperture >= rc->window_size ||
        rc->commit_us > MCMGPU_CXL_MAX_COMMIT_US) {
        return -EINVAL;
    }
    for (p = 0; p < rc->ports; p++) {
        cxl_media_free(rc, &rc->ep[p]);
        rc->ep[p].dpa = qemu_get_be64(f);
        chunks = qemu_get_be32(f);
        while (chunks--) {
            uint64_t idx = qemu_get_be64(f);
            uint8_t *c = NULL;

            if (idx < rc->ep[p].capacity / CXL_CHUNK) {
                c = cxl_chunk(rc, &rc->ep[p], idx * CXL_CHUNK, true);
            }
            if (!c) {
                return -EINVAL;
            }
            qemu_get_buffer(f, c, CXL_CHUNK);
        }
    }
    cxl_publish(rc);
    cxl_commit_arm(rc);
    return qemu_file_get_error(f);
}

static const VMStateInfo cxl_rc_state_info = {
    .name = "mcmgpu-cxl-rc",
    .get = cxl_rc_get,
    .put = cxl_rc_put,
};

static const VMStateDescription cxl_rc_vmsd = {
    .name = "mcmgpu/cxl_rc",
    .version_id = 2,        /* 2: the shape, DPA bases latched at commit */
    .minimum_version_id = 2,
    .fields = (VMStateField[]) {
        {
            .name = "cxl_rc",
            .info = &cxl_rc_state_info,
            .flags = VMS_SINGLE,
            .offset = 0,
            .size = 0,
        },
        VMSTATE_END_OF_LIST()
    },
};

const MCMGPUEngine mcmgpu_cxl_rc_engine = {
    .name = "cxl_rc",
    .vmsd = &cxl_rc_vmsd,
    .window = MCMGPU_WINDOW_CXL_RC,
    .window_ident = 0x524c5843,     /* "CXLR", little-endian */
    .window_read = cxl_rc_window_read,
    .window_write = cxl_rc_window_write,
    .commands = cxl_rc_commands,
    .dev_realize = cxl_rc_realize,
    .dev_reset = cxl_rc_reset,
    .dev_exit = cxl_rc_exit,
};
