/*
 * The GPU timing core (gpu_core.h): one global event queue in (cycle,
 * order) and everything else reacting to its events.
 *
 * Decisions the interface leaves open, each the simplest that keeps the
 * model honest:
 * - A kernel is decoded whole before it runs: per instruction its class,
 *   registers and, for global accesses, the sorted list of distinct 32 B
 *   sectors its active lanes touch (a lane of width w touches every
 *   sector of [addr, addr + w)), already mapped to GPU virtual addresses.
 *   Address errors are found at decode, before the kernel's first cycle.
 * - An object's first byte is at its gpu_va (objects start a page, as
 *   the allocator maps them); a page's index counts from there.
 * - Local, constant and texture accesses take const_lat and make no
 *   traffic (local memory assumed to hit in the L1); shared ones
 *   shmem_lat.
 * - Sizes on the link: a load's request is an 8 B header, its reply 32 B
 *   of data and the header; a store's or atomic's request carries 32 B
 *   and the header; a store's or reduction's acknowledgement is 8 B.
 * - The L1 is write-through without allocation (a store updates a
 *   present sector); atomics and reductions bypass it. An access leaves
 *   the SM after l1_lat (a load's miss, a store), an atomic at once.
 * - The L2 has no MSHRs of its own: a request for a sector whose fill is
 *   still on its way misses too. A store that misses allocates its sector
 *   without reading DRAM (a sector written whole); an atomic that misses
 *   reads it first. Reductions are atomics with no reply data.
 * - A bandwidth server keeps its next free time exactly, in cycles and
 *   1/bw fractions of one: b bytes take b * 1000 / bw cycles. A transfer
 *   ending inside a cycle is usable at the next one.
 * - ATS fills order before every other event of their cycle, by tag, so
 *   the result does not depend on when the caller delivered them.
 * - A miss that waited for an L2 TLB MSHR and finds its page translated
 *   when it retries counts as a merge (it was served by another's
 *   request), so ats_requests = l2_tlb_misses - l2_tlb_mshr_merges
 *   (less the misses F-Barre's package answers).
 * - F-Barre (cfg.fbarre, gpu_fbarre.h) as chiplet_tlb.c: a miss that
 *   takes an MSHR tries the package at the L2 lookup; its answer is an
 *   ATS fill without a request (not in ats_replies or ats_round_trip), a
 *   failed attempt delays the request by its cost.
 * - Least (cfg.xl_share, Barre Chord §VII-A): an L2 TLB miss that takes
 *   an MSHR asks ideal filters (exact copies of the peers' L2 TLBs, no
 *   false positive: the 1024-entry filter holds a whole 512-entry TLB,
 *   so it needs no replacement) alongside the L2 TLB lookup, at no extra
 *   cost. If a peer holds the page, the first after the chiplet in
 *   ring order is asked over the link (an 8 B request; its L2 TLB
 *   lookup, LRU untouched; a reply of the header and an 8 B PTE) and its
 *   answer fills like an ATS reply without a request; if the entry left
 *   meanwhile, the ATS request leaves when the negative reply arrives.
 * - Valkyrie (cfg.xl_share): an L1 TLB miss probes the L1 TLBs of the
 *   chiplet's other SMs, one more l1_tlb_lat (no crossbar hop is
 *   modelled inside a chiplet, as for the L1 to the L2 TLB); a hit fills
 *   the SM's L1 TLB. A demand fill of the L2 TLB, and the first hit on
 *   a prefetched entry (tagged prefetch), prefetches the next
 *   xl_prefetch mapped pages absent from it into free MSHRs (none while
 *   a miss waits for one); a prefetch's fill prefetches nothing; a miss
 *   on a page being prefetched merges into it and makes it a demand.
 *   The program ends when its last kernel does (cycles), but the core
 *   is done only when every prefetch's ATS reply has arrived, so every
 *   request is answered (ats_replies = ats_requests).
 * - A barrier releases its warps lat_other cycles after the last arrives;
 *   a warp whose last instruction is a barrier just finishes.
 * - Stall cycles take the reason of the oldest unfinished warp when the
 *   SM's state last changed (scoreboard: an ALU result; memory: a load or
 *   atomic in the memory system; translation; barrier; mshr: an access
 *   waiting for an L1 or L2 TLB MSHR). Finished warps waiting for loads
 *   count as memory.
 * - Overlapping objects are refused (as the adapters do).
 * - CPElide (cfg.cpelide on, gpu_cpelide.h): the paper's hierarchy. Each
 *   chiplet's L2 caches local and remote data (local stores write-back,
 *   remote ones written through; HMG's all written through); behind it
 *   the home's L3 slice (l3_size / chiplets, rounded down to a power of
 *   two of sets; l3_lat after the L2's miss, l2_bw; write-back and
 *   write-allocate, not inclusive) is the ordering point, then DRAM
 *   (dram_lat after the slice's). Flushes and invalidations act on every
 *   L2 line. Off: no L3, the home L2 is the home (docs/gpu.md).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "gpu_core.h"

#define NEVER           (~0ULL)
#define NONE            0xffffffffu
#define STALE           0xfffffffeu     /* sm.oldest: to be found again */
#define NO_ADDR         (~0ULL)         /* a free L1 MSHR: no sector's */
#define PEND_MAX        32      /* pending register writes a warp */
#define CHUNK_BYTES     (1u << 20)      /* decoded instructions a chunk */
#define CHUNK_RESERVE   16      /* a chunk's end: the jump to the next */
#define MAX_SECTORS     (PROG_WARP_SIZE * (PROG_MAX_WIDTH / 32 + 1))
#define HDR_BYTES       8       /* a link message's header */
#define PTE_BYTES       8       /* Least: a PTE in a peer TLB's reply */
#define OP_JUMP         0xff    /* decoded: continue at the next chunk */
#define FILL_KEY_BIT    0       /* ATS fills first in their cycle */
#define ORDER_KEY_BIT   (1ULL << 63)
#define WHEEL           4096    /* cycles of near events, a power of two */
#define KIND_FENCE      0xfe    /* decoded: a fence FinePack flushes on */
#define CPE_HOME_SHIFT  56      /* CPElide, translate off: home in address */
#define FT_PENDING      31      /* a decoded sector's home, not known yet */
_Static_assert(GPU_MAX_CHIPLETS < FT_PENDING, "a home fits below FT_PENDING");
#define FT_HOMED        (1u << 31)
#define FT_PEND         (FT_HOMED - 1)  /* touched, first toucher not known */
#define FT_MAX_POS      ((1u << 25) - 1)

/* Placement ft: a decoded sector whose page the kernel touches first. */
struct ft_fix {
    u64 *sect;
    u32 obj, page, kb, pad;
};

/* An instruction's pages waiting for a first toucher. */
struct ft_page {
    u64 lo;
    u32 obj, page;
};

enum ev_type {
    EV_SM = 1,          /* an SM may issue */
    EV_OPDONE,          /* a memory instruction's last sector is back */
    EV_XL_L2,           /* an L1 TLB miss reaches the L2 TLB */
    EV_XL_DATA,         /* a page group is translated: its sectors go */
    EV_ATS_SEND,        /* an L2 TLB miss leaves for the IOMMU */
    EV_ATS_FILL,        /* its reply arrives */
    EV_DEPART,          /* a sector request leaves the SM's L1 */
    EV_INGRESS,         /* at a chiplet's link ingress port */
    EV_L2,              /* at the home L2 */
    EV_DRAM,            /* at the home DRAM */
    EV_FILL,            /* DRAM data back at the L2 */
    EV_REPLY,           /* the L2's reply leaves */
    EV_SM_REPLY,        /* the reply is back at the SM */
    EV_FP_INGRESS,      /* a FinePack packet at the home's ingress port */
    EV_FP_L2,           /* its bytes go into the home L2 */
    EV_FP_DONE,         /* they are written */
    EV_CPE_LAUNCH,      /* CPElide: the launch's L2 operations are done */
    EV_ADSM_LAUNCH,     /* ADSM: the host's launch reaches the GPU */
    EV_FP_FENCE,        /* FinePack: a fence reaches its chiplet's queue */
    EV_CXL,             /* CXL-GPU: the root complex has an event */
    EV_XLS,             /* Least: a remote L2 TLB lookup's next step */
    EV_UVM,             /* UVM/GDS: a fault batch starts or ends */
};

enum reason {
    R_SCOREBOARD = 0,
    R_MEMORY,
    R_TRANSLATION,
    R_BARRIER,
    R_MSHR,
    R_IDLE,
    R_NR
};

struct event {
    u64 cycle;
    u64 key;            /* fills: the tag; others: ORDER_KEY_BIT | seq */
    u32 type;
    u32 arg;
};

struct heap {
    struct event *a;
    u32 n, cap;
};

struct enode {
    u64 cycle;
    u32 type, arg, next;
    u32 pad;
};

/* One decoded instruction; regs, then (8-aligned) sectors follow. */
struct dinst {
    u8 op, space, kind, ndst;
    u8 nsrc, nlines;
    u16 width;
    u32 mask;
    u16 nsect;
    u16 size;           /* bytes of the whole record */
};

struct dblock {
    u32 x, y, z;
    u32 first_warp, nwarps;
};

struct dwarp {
    const u8 *first;
    u32 ninsts;
    u32 id;
};

struct chunk {
    struct chunk *next;
    u32 used;
    u32 pad;
    u8 data[];
};

struct pend {
    u64 ready;          /* NEVER while memop != NONE */
    u32 memop;
    u16 reg;
    u16 pad;
};

struct warp {
    const u8 *pc;
    u64 not_before;
    u32 left;           /* instructions not issued */
    u32 block;          /* the SM's block slot */
    u32 npend;
    u8 active, done, at_barrier, pad;
    u64 pend_bits;      /* bit reg % 64 of every pend entry (and maybe more) */
    struct pend pend[PEND_MAX];
};

struct rblock {
    u32 kb;             /* decoded block */
    u32 live;           /* warps not finished */
    u32 arrived;        /* at the barrier */
    u32 loads;          /* loads and atomics in flight */
    u32 nwarps;
    u32 used;
    u64 slots;          /* the SM's warp slots it holds */
};

struct sm {
    u32 chiplet;
    u32 warps_used, blocks_used, shmem_used, regs_used;
    u32 last_warp;
    u64 sched_at;       /* its pending EV_SM, NEVER if none */
    u64 last_issue;
    u64 acct_from;      /* stall cycles counted up to here */
    u32 mshr_used;
    u32 mshr_free;      /* its free L1 MSHRs' list, NONE if none */
    u32 fifo_head, fifo_tail;   /* requests waiting for an L1 MSHR */
    /*
     * The slot of the oldest unfinished warp (least wseq), NONE if none,
     * STALE after it finished: stall accounting asks for it far more
     * often than it changes.
     */
    u32 oldest;
    /* Slots with a finite wready / wseq: the scans visit only these. */
    u64 ready_slots, seq_slots;
};

/*
 * An SM's L1 MSHRs: busy ones chained by next from their hash bucket
 * (gpu_core_mshr_bucket()), free ones from sm->mshr_free, so a lookup
 * costs the same with 16 MSHRs as with gem5's 2560.
 */
struct l1_mshr {
    u64 addr;           /* the sector; NO_ADDR: free */
    u32 head;           /* requests waiting for this sector */
    u32 next;           /* the next in its bucket or in the free list */
};

struct line {
    u64 tag;            /* line address >> 7 */
    u64 lru;
    u8 valid, dirty;    /* sector bits */
    u8 home;            /* L2: the line's home chiplet (cfg.cpelide) */
    u8 cxl;             /* L2: in CXL memory (cfg.cxl) */
    u8 pad[4];
};

struct tlb_entry {
    u64 vpn, pfn, lru;
    u64 valid;          /* bit 0; TLB_PREFETCHED: Valkyrie's, not used */
};

#define TLB_PREFETCHED  2

struct tlb_mshr {
    u64 tag, vpn, issue, pfn, arrive;
    u32 head, tail;     /* translations waiting */
    u8 busy, sent, answered, fault, write;
    u8 in_package;      /* F-Barre answered it (or Least's peer) */
    u8 prefetch;        /* Valkyrie: a prefetch, no demand behind it */
    u8 xls_stage;       /* Least: the remote lookup's next step */
    u8 xls_peer;        /* Least: the chiplet asked */
    u8 xls_hit;         /* Least: the peer had it */
    u8 mig_stale;       /* migrate: sent before its page's shootdown */
    u8 pad[6];
};

/* Valkyrie: a page in the L1 TLBs of a chiplet, and in how many. */
struct xls_slot {
    u64 vpn, pfn;
    u64 count;          /* 0: a free slot */
};

struct chiplet {
    u32 cursor, end, step;      /* blocks still to dispatch */
    u32 last_sm;
    u32 fifo_head, fifo_tail;   /* translations waiting for an MSHR */
    u32 wq_old;                 /* cfg.dram_wq: its memory's oldest entry */
    u32 pad;
};

struct server {
    u64 free_c;         /* next free: free_c + free_f / bw cycles */
    u64 free_f;
    u64 busy_f;
    struct gpu_queue_stats st;
};

struct memop {
    u64 done_max;
    u32 left;           /* sectors not back */
    u32 warp;           /* global warp index; NONE for stores */
    u32 sm;
    u32 nxlate, nmshr;  /* page groups translating; accesses waiting */
    u32 next;
    u8 kind, loads, used, pad;
    u64 p2p_sent;       /* finepack p2p: lines whose TLPs have left */
    const struct dinst *d;      /* FinePack: its store sectors' masks */
};

struct req {
    u64 addr;           /* physical sector address */
    u32 memop, next;
    u32 sm;
    u8 src, home, kind, reply;
    u32 ver;            /* cfg.cpelide: the version a load's data has */
    u8 looked;          /* cfg.cpelide: the local L2 was looked up */
    u8 cxl;             /* cfg.cxl: the sector is in CXL memory */
    u16 sidx;           /* finepack: the sector's index in its list */
};

struct xl {
    u64 vpn, pfn;
    const u64 *sect;
    u32 nsect, memop, sm, next;
    u8 kind, pad[7];
};

struct msg {
    char *buf;
    size_t pos, cap;
};

struct gpu_core {
    struct gpu_config cfg;
    const struct gpu_core_ops *ops;
    void *priv;
    prog_source_fn src;
    void *src_priv;
    int err;
    char errmsg[GPU_CORE_ERR_MAX];

    u64 now;
    u64 last_cycle;
    u64 seq;
    u64 lru;
    u64 next_tag;
    u64 warp_seq;
    u32 nsms;
    u32 l1_sets, l2_sets, l1t_sets, l2t_sets;
    u64 frames;         /* a chiplet's page frames */
    u64 kernel_limit;

    /* Tables sized by the configuration */
    struct sm *sms;
    struct warp *warps;
    /*
     * Hot, a warp each: next issue (NEVER: none) and dispatch order
     * (NEVER: finished or no warp), scanned every issue.
     */
    u64 *wready, *wseq;
    struct rblock *blocks;
    struct line *l1, *l2;
    struct tlb_entry *l1t, *l2t;
    struct l1_mshr *l1m;
    u32 *l1mh;          /* L1 MSHR hash buckets, 1 << l1mh_bits an SM */
    u32 l1mh_bits;
    struct tlb_mshr *l2m;
    struct chiplet *chip;
    struct server *egress, *ingress, *l2s, *drams;
    /*
     * cfg.dram_wq: a ring a chiplet's memory of its last dram_wq writes'
     * drain cycles (0: none), oldest at chip[c].wq_old.
     */
    u64 *wq;
    struct gpu_fbarre *fb;      /* F-Barre, NULL when off */
    struct xls_slot *l1dir;     /* Valkyrie: L1 TLBs' pages a chiplet */
    u64 prefetching;            /* Valkyrie: prefetches not yet filled */
    u64 l1dir_slots;            /* a chiplet's, a power of two */

    /* Grown as needed */
    struct heap fills, far;
    u64 wbase;          /* the wheel holds [wbase, wbase + WHEEL) */
    u32 *whead, *wtail;
    u64 *wmap;          /* buckets not empty */
    struct enode *nodes;
    u32 capnodes, freenode, nwheel;
    struct memop *memops;
    u32 capmemops, freememop;
    struct req *reqs;
    u32 capreqs, freereq;
    struct xl *xls;
    u32 capxls, freexl;
    struct gpu_object *objs;
    u32 nobjs, capobjs, last_obj;
    /*
     * Placement ft: each object's pages (by index), 0 untouched, a first
     * toucher's key + 1 while its kernel decodes, FT_HOMED | home after.
     */
    u32 **ft;
    u32 capft;
    struct ft_fix *ftfix;       /* the decoding kernel's unhomed sectors */
    u32 nftfix, capftfix;

    /* The decoded kernel */
    struct chunk *chunks, *cur_chunk;
    struct dblock *dblocks;
    u32 ndblocks, capdblocks;
    struct dwarp *dwarps;
    u32 ndwarps, capdwarps;
    u64 kernel_bytes;

    /* The program */
    struct prog_grammar grammar;
    bool src_checked;   /* the source runs the grammar: skip ours */
    u64 records;
    u64 copies;
    bool kactive, prog_end, done;
    struct prog_kernel kern;    /* the running one (name kept short) */
    u64 kstart, kend;
    u32 blocks_left;
    u64 ops_left;
    struct gpu_core_stats kbase;
    struct gpu_core_stats stats;
    struct prog_rec rec;
    struct gpu_fp *fp;          /* cfg.finepack on */
    struct gpu_cpe *cpe;        /* cfg.cpelide on */
    u32 *cver;                  /* its versions: an L2 line's 4 sectors */
    struct line *l3;            /* its L3 slices (the homes' side) */
    struct server *l3s;
    u32 l3_sets;
    u32 cpe_test;               /* GPU_CPE_TEST_* */
    struct gpu_adsm *adsm;      /* cfg.adsm or cfg.pcie_copies on */
    struct gpu_cxl *cx;         /* cfg.cxl on */
    u64 cxl_at;                 /* its pending EV_CXL, NEVER if none */
    struct gpu_uvm *uvm;        /* cfg.uvm on */
    u64 uvm_at;                 /* its pending EV_UVM, NEVER if none */
    /* cfg.migrate on (the Migration section; NULL off) */
    u8 *mig_count;              /* frames x chiplets: remote accesses */
    struct mig_hold *mig_hold;  /* pages whose new translation waits */
    u32 mig_nhold, mig_caphold;
    /* gpu_core_streams() on (the Concurrent streams section; 0 off) */
    u32 sgroups;                /* chiplet groups: stream s on (s-1) % it */
    struct sgroup *sg;
    u32 s_hold;                 /* S_HOLD_*: a record read, waiting */
    u32 s_slot;                 /* S_HOLD_KERNEL: the slot it waits for */
    u8 cgrp[GPU_MAX_CHIPLETS];  /* the slot each chiplet runs */
    u8 *s_objslot;              /* an object's first kernel's slot + 1 */
    u32 s_capobj;
};

/*
 * Concurrent streams: a chiplet group's kernel (its decoded blocks, what
 * is left of it). A group runs one kernel at a time.
 */
struct sgroup {
    struct prog_kernel kern;
    struct dblock *dblocks;
    u32 ndblocks, capdblocks;
    struct dwarp *dwarps;
    u32 ndwarps, capdwarps;
    struct chunk *chunks;
    u64 kstart;
    u64 ops_left;
    u32 blocks_left;
    bool active;
    struct gpu_core_stats kbase;
};

/* The slot of the kernel chiplet c runs (sgroups on). */
static inline u32 s_group(const struct gpu_core *g, u32 c)
{
    return g->cgrp[c];
}

/* The kernel chiplet c runs (streams off: the one kernel). */
static inline const struct prog_kernel *s_kern(const struct gpu_core *g,
                                               u32 c)
{
    return g->sgroups ? &g->sg[s_group(g, c)].kern : &g->kern;
}

static inline const struct dblock *s_dblocks(const struct gpu_core *g, u32 c)
{
    return g->sgroups ? g->sg[s_group(g, c)].dblocks : g->dblocks;
}

static inline const struct dwarp *s_dwarps(const struct gpu_core *g, u32 c)
{
    return g->sgroups ? g->sg[s_group(g, c)].dwarps : g->dwarps;
}

static inline u32 *s_blocks_left(struct gpu_core *g, u32 c)
{
    return g->sgroups ? &g->sg[s_group(g, c)].blocks_left : &g->blocks_left;
}

/* The memory instructions in flight of the kernel SM s runs. */
static inline u64 *s_ops_left(struct gpu_core *g, u32 s)
{
    return g->sgroups ? &g->sg[s_group(g, g->sms[s].chiplet)].ops_left :
           &g->ops_left;
}

/* ---- Messages ---------------------------------------------------------- */

static void m_str(struct msg *m, const char *s)
{
    while (*s && m->pos + 1 < m->cap) {
        m->buf[m->pos++] = *s++;
    }
    m->buf[m->pos] = 0;
}

static void m_strn(struct msg *m, const char *s, size_t n)
{
    while (n-- && *s && m->pos + 1 < m->cap) {
        m->buf[m->pos++] = *s++;
    }
    m->buf[m->pos] = 0;
}

static void m_num(struct msg *m, u64 v, u32 base)
{
    char tmp[24];
    int n = 0;

    if (base == 16) {
        m_str(m, "0x");
    }
    do {
        tmp[n++] = "0123456789abcdef"[v % base];
        v /= base;
    } while (v);
    while (n && m->pos + 1 < m->cap) {
        m->buf[m->pos++] = tmp[--n];
    }
    m->buf[m->pos] = 0;
}

static void m_begin(struct gpu_core *g, struct msg *m)
{
    m->buf = g->errmsg;
    m->cap = sizeof(g->errmsg);
    m->pos = 0;
    m->buf[0] = 0;
}

static void m_kernel(struct msg *m, const struct gpu_core *g)
{
    m_str(m, "kernel ");
    m_num(m, g->kern.id, 10);
    m_str(m, " (");
    m_strn(m, g->kern.name, 48);
    m_str(m, ")");
}

/* "kernel K (NAME) block (x,y,z) warp W inst I (pc 0x...): " */
static void m_where(struct msg *m, const struct gpu_core *g,
                    const struct dblock *b, u32 warp, u64 inst, u64 pc)
{
    m_kernel(m, g);
    if (b) {
        m_str(m, " block (");
        m_num(m, b->x, 10);
        m_str(m, ",");
        m_num(m, b->y, 10);
        m_str(m, ",");
        m_num(m, b->z, 10);
        m_str(m, ")");
    }
    if (warp != NONE) {
        m_str(m, " warp ");
        m_num(m, warp, 10);
    }
    if (inst != NEVER) {
        m_str(m, " inst ");
        m_num(m, inst, 10);
        m_str(m, " (pc ");
        m_num(m, pc, 16);
        m_str(m, ")");
    }
    m_str(m, ": ");
}

static int fail(struct gpu_core *g, int err)
{
    g->err = err;
    return err;
}

static int fail_str(struct gpu_core *g, int err, const char *s)
{
    struct msg m;

    m_begin(g, &m);
    m_str(&m, s);
    return fail(g, err);
}

/* ---- Memory ------------------------------------------------------------ */

static void *zalloc(struct gpu_core *g, size_t bytes)
{
    return g->ops->alloc(g->priv, bytes ? bytes : 1);
}

static void zfree(struct gpu_core *g, void *p)
{
    if (p) {
        g->ops->free(g->priv, p);
    }
}

/* Grows *arr (of *cap elements) to hold at least need. 0 or -ENOMEM. */
static int grow(struct gpu_core *g, void **arr, u32 *cap, size_t elem,
                u64 need)
{
    u64 ncap = *cap ? *cap : 16;
    void *p;

    if (need <= *cap) {
        return 0;
    }
    while (ncap < need) {
        ncap *= 2;
    }
    if (ncap > 0xfffffff0u) {
        return -ENOMEM;
    }
    p = zalloc(g, ncap * elem);
    if (!p) {
        return -ENOMEM;
    }
    if (*arr) {
        memcpy(p, *arr, *cap * elem);
        zfree(g, *arr);
    }
    *arr = p;
    *cap = ncap;
    return 0;
}

/* Free lists of memops, requests and translations (indexes). */
#define POOL_GET(g, arr, cap, freel, out)                               \
    do {                                                                \
        if ((g)->freel == NONE) {                                       \
            u32 old_ = (g)->cap, i_;                                    \
            if (grow((g), (void **)&(g)->arr, &(g)->cap,                \
                     sizeof(*(g)->arr), (u64)old_ + 1)) {               \
                (out) = NONE;                                           \
                break;                                                  \
            }                                                           \
            for (i_ = (g)->cap; i_ > old_; i_--) {                      \
                (g)->arr[i_ - 1].next = (g)->freel;                     \
                (g)->freel = i_ - 1;                                    \
            }                                                           \
        }                                                               \
        (out) = (g)->freel;                                             \
        (g)->freel = (g)->arr[(out)].next;                              \
        (g)->arr[(out)].next = NONE;                                    \
    } while (0)

static u32 memop_get(struct gpu_core *g)
{
    u32 i;

    POOL_GET(g, memops, capmemops, freememop, i);
    if (i != NONE) {
        struct memop *o = &g->memops[i];

        memset(o, 0, sizeof(*o));
        o->next = NONE;
        o->warp = NONE;
        o->used = 1;
    }
    return i;
}

static void memop_put(struct gpu_core *g, u32 i)
{
    g->memops[i].used = 0;
    g->memops[i].next = g->freememop;
    g->freememop = i;
}

static u32 req_get(struct gpu_core *g)
{
    u32 i;

    POOL_GET(g, reqs, capreqs, freereq, i);
    return i;
}

static void req_put(struct gpu_core *g, u32 i)
{
    g->reqs[i].next = g->freereq;
    g->freereq = i;
}

static u32 xl_get(struct gpu_core *g)
{
    u32 i;

    POOL_GET(g, xls, capxls, freexl, i);
    return i;
}

static void xl_put(struct gpu_core *g, u32 i)
{
    g->xls[i].next = g->freexl;
    g->freexl = i;
}

/*
 * ---- Event queue -----------------------------------------------------------
 * Order: (cycle, key). Near events (within WHEEL cycles of the wheel's
 * base) sit in a bucket a cycle, first in first out: they are pushed in
 * sequence order, so a bucket is in key order. Far events wait in a
 * binary heap and move into the wheel, in heap order, as soon as their
 * cycle comes in range (before anything else can be pushed for it).
 * ATS fills have their own heap: in their cycle they come first, by tag.
 */

static bool ev_less(const struct event *a, const struct event *b)
{
    return a->cycle < b->cycle || (a->cycle == b->cycle && a->key < b->key);
}

static void heap_push(struct gpu_core *g, struct heap *h,
                      const struct event *e)
{
    u32 i;

    if (h->n == h->cap &&
        grow(g, (void **)&h->a, &h->cap, sizeof(*h->a), (u64)h->n + 1)) {
        fail_str(g, -ENOMEM, "out of memory for the event queue");
        return;
    }
    i = h->n++;
    while (i) {
        u32 p = (i - 1) / 2;

        if (!ev_less(e, &h->a[p])) {
            break;
        }
        h->a[i] = h->a[p];
        i = p;
    }
    h->a[i] = *e;
}

static void heap_pop(struct heap *h, struct event *out)
{
    struct event last;
    u32 i = 0, n;

    *out = h->a[0];
    n = --h->n;
    if (!n) {
        return;
    }
    last = h->a[n];
    for (;;) {
        u32 c = 2 * i + 1;

        if (c >= n) {
            break;
        }
        if (c + 1 < n && ev_less(&h->a[c + 1], &h->a[c])) {
            c++;
        }
        if (!ev_less(&h->a[c], &last)) {
            break;
        }
        h->a[i] = h->a[c];
        i = c;
    }
    h->a[i] = last;
}

static void wheel_append(struct gpu_core *g, u64 cycle, u32 type, u32 arg)
{
    u32 b = cycle & (WHEEL - 1), ni;
    struct enode *nd;

    if (g->freenode == NONE) {
        u32 old = g->capnodes, k;

        if (grow(g, (void **)&g->nodes, &g->capnodes, sizeof(*g->nodes),
                 (u64)old + 1)) {
            fail_str(g, -ENOMEM, "out of memory for the event queue");
            return;
        }
        for (k = g->capnodes; k > old; k--) {
            g->nodes[k - 1].next = g->freenode;
            g->freenode = k - 1;
        }
    }
    ni = g->freenode;
    nd = &g->nodes[ni];
    g->freenode = nd->next;
    nd->cycle = cycle;
    nd->type = type;
    nd->arg = arg;
    nd->next = NONE;
    if (g->whead[b] == NONE) {
        g->whead[b] = ni;
        g->wmap[b / 64] |= 1ULL << (b % 64);
    } else {
        g->nodes[g->wtail[b]].next = ni;
    }
    g->wtail[b] = ni;
    g->nwheel++;
}

static void push(struct gpu_core *g, u64 cycle, u32 type, u32 arg)
{
    if (cycle < g->wbase + WHEEL) {
        g->seq++;
        wheel_append(g, cycle, type, arg);
    } else {
        struct event e = {
            .cycle = cycle, .key = ORDER_KEY_BIT | g->seq++,
            .type = type, .arg = arg,
        };

        heap_push(g, &g->far, &e);
    }
}

/* The wheel's earliest cycle, NEVER if it is empty. */
static u64 wheel_next(const struct gpu_core *g)
{
    u32 p = g->wbase & (WHEEL - 1), w = p / 64, k;
    u64 bits;

    if (!g->nwheel) {
        return NEVER;
    }
    bits = g->wmap[w] & (~0ULL << (p % 64));
    for (k = 0; k <= WHEEL / 64; k++) {
        if (bits) {
            u32 b = (w % (WHEEL / 64)) * 64 + __builtin_ctzll(bits);

            return g->wbase + ((b - p) & (WHEEL - 1));
        }
        w++;
        bits = g->wmap[w % (WHEEL / 64)];
        if (k == WHEEL / 64 - 1) {
            bits &= (1ULL << (p % 64)) - 1;
            bits = p % 64 ? bits : 0;
        }
    }
    return NEVER;
}

/* Moves the wheel's base to c (no wheel event before it). */
static void wheel_advance(struct gpu_core *g, u64 c)
{
    if (c <= g->wbase) {
        return;
    }
    g->wbase = c;
    while (g->far.n && g->far.a[0].cycle < g->wbase + WHEEL) {
        struct event e;

        heap_pop(&g->far, &e);
        wheel_append(g, e.cycle, e.type, e.arg);
    }
}

/* The next event's cycle (superseded ones included), NEVER if none. */
static u64 queue_next(const struct gpu_core *g)
{
    u64 c = wheel_next(g);

    if (c == NEVER && g->far.n) {
        c = g->far.a[0].cycle;
    }
    if (g->fills.n && g->fills.a[0].cycle <= c) {
        c = g->fills.a[0].cycle;
    }
    return c;
}

/* Takes the next event, at cycle c = queue_next(). */
static void queue_pop(struct gpu_core *g, u64 c, struct event *e)
{
    u32 b, ni;
    struct enode *nd;

    wheel_advance(g, c);
    if (g->fills.n && g->fills.a[0].cycle == c) {
        heap_pop(&g->fills, e);
        return;
    }
    b = c & (WHEEL - 1);
    ni = g->whead[b];
    nd = &g->nodes[ni];
    e->cycle = nd->cycle;
    e->type = nd->type;
    e->arg = nd->arg;
    e->key = 0;
    g->whead[b] = nd->next;
    if (nd->next == NONE) {
        g->wmap[b / 64] &= ~(1ULL << (b % 64));
    } else {
        /* Its cycle's next event, usually taken next: start the miss. */
        __builtin_prefetch(&g->nodes[nd->next]);
    }
    nd->next = g->freenode;
    g->freenode = ni;
    g->nwheel--;
}

/* ---- Bandwidth servers ------------------------------------------------- */

/* A transfer of bytes arriving at t: the cycle its result is usable. */
static u64 server_use(struct server *s, u32 bw, u32 lat, u64 t, u32 bytes)
{
    u64 start_c = t, start_f = 0, end_c, end_f, wait;
    u64 svc = (u64)bytes * 1000;

    if (s->free_c > t || (s->free_c == t && s->free_f)) {
        start_c = s->free_c;
        start_f = s->free_f;
    }
    wait = start_c - t + (start_f ? 1 : 0);
    end_f = start_f + svc;
    end_c = start_c + end_f / bw;
    end_f %= bw;
    s->free_c = end_c;
    s->free_f = end_f;
    s->busy_f += svc;
    s->st.busy_cycles += s->busy_f / bw;
    s->busy_f %= bw;
    s->st.requests++;
    s->st.bytes += bytes;
    s->st.wait_cycles += wait;
    if (wait > s->st.max_wait) {
        s->st.max_wait = wait;
    }
    return end_c + (end_f ? 1 : 0) + lat;
}

/* ---- Caches and TLBs --------------------------------------------------- */

/* The line holding tag in a set of ways lines, or NULL. */
static struct line *line_find(struct line *set, u32 ways, u64 tag)
{
    u32 i;

    for (i = 0; i < ways; i++) {
        if (set[i].valid && set[i].tag == tag) {
            return &set[i];
        }
    }
    return NULL;
}

/* The least recently used line of a set (an empty one first). */
static struct line *line_victim(struct line *set, u32 ways)
{
    struct line *v = &set[0];
    u32 i;

    for (i = 0; i < ways; i++) {
        if (!set[i].valid) {
            return &set[i];
        }
        if (set[i].lru < v->lru) {
            v = &set[i];
        }
    }
    return v;
}

static struct line *l1_set(struct gpu_core *g, u32 sm, u64 addr)
{
    u64 tag = addr >> 7;

    return &g->l1[((u64)sm * g->l1_sets + (tag & (g->l1_sets - 1))) *
                  g->cfg.l1_ways];
}

static struct line *l2_set(struct gpu_core *g, u32 c, u64 addr)
{
    u64 tag = addr >> 7;

    return &g->l2[((u64)c * g->l2_sets + (tag & (g->l2_sets - 1))) *
                  g->cfg.l2_ways];
}

static u8 sector_bit(u64 addr)
{
    return 1u << ((addr >> 5) & 3);
}

/*
 * The home side of a chiplet's memory: its L2 with CPElide off, its L3
 * slice with a policy on (the chiplet's L2 then caches any data).
 */
static struct line *home_set(struct gpu_core *g, u32 c, u64 addr)
{
    u64 tag = addr >> 7;

    if (!g->l3) {
        return l2_set(g, c, addr);
    }
    return &g->l3[((u64)c * g->l3_sets + (tag & (g->l3_sets - 1))) *
                  g->cfg.l3_ways];
}

static u32 home_ways(const struct gpu_core *g)
{
    return g->l3 ? g->cfg.l3_ways : g->cfg.l2_ways;
}

/* A sector's access at home c's cache from t: when it is done. */
static u64 home_use(struct gpu_core *g, u32 c, u64 t)
{
    if (!g->l3) {
        return server_use(&g->l2s[c], g->cfg.l2_bw, g->cfg.l2_lat, t,
                          GPU_SECTOR_BYTES);
    }
    return server_use(&g->l3s[c], g->cfg.l2_bw, g->cfg.l3_lat, t,
                      GPU_SECTOR_BYTES);
}

/* A home-side hit or miss, counted as an L2's or an L3 slice's. */
static void home_count(struct gpu_core *g, bool local, bool hit)
{
    if (g->l3) {
        struct gpu_cpelide_stats *st = gpu_cpe_stats(g->cpe);

        st->l3_accesses++;
        st->l3_hits += hit;
        st->l3_misses += !hit;
        return;
    }
    g->stats.l2_accesses++;
    if (local) {
        g->stats.l2_local++;
    } else {
        g->stats.l2_remote++;
    }
    if (hit) {
        g->stats.l2_hits++;
    } else {
        g->stats.l2_misses++;
    }
}

static struct tlb_entry *tlb_find(struct tlb_entry *set, u32 ways, u64 vpn)
{
    u32 i;

    for (i = 0; i < ways; i++) {
        if (set[i].valid && set[i].vpn == vpn) {
            return &set[i];
        }
    }
    return NULL;
}

/* Where vpn goes in a set: its entry, else a free one, else the LRU. */
static struct tlb_entry *tlb_victim(struct tlb_entry *set, u32 ways, u64 vpn)
{
    struct tlb_entry *v = tlb_find(set, ways, vpn);
    u32 i;

    if (!v) {
        v = &set[0];
        for (i = 0; i < ways; i++) {
            if (!set[i].valid) {
                v = &set[i];
                break;
            }
            if (set[i].lru < v->lru) {
                v = &set[i];
            }
        }
    }
    return v;
}

static void tlb_fill(struct gpu_core *g, struct tlb_entry *set, u32 ways,
                     u64 vpn, u64 pfn)
{
    struct tlb_entry *v = tlb_victim(set, ways, vpn);

    v->valid = 1;
    v->vpn = vpn;
    v->pfn = pfn;
    v->lru = ++g->lru;
}

static struct tlb_entry *l1t_set(struct gpu_core *g, u32 sm, u64 vpn)
{
    return &g->l1t[((u64)sm * g->l1t_sets + (vpn & (g->l1t_sets - 1))) *
                   g->cfg.l1_tlb_ways];
}

static struct tlb_entry *l2t_set(struct gpu_core *g, u32 c, u64 vpn)
{
    return &g->l2t[((u64)c * g->l2t_sets + (vpn & (g->l2t_sets - 1))) *
                   g->cfg.l2_tlb_ways];
}

/*
 * Valkyrie's probe of a chiplet's other L1 TLBs, kept as a count a page
 * in an open-addressed table (linear probing, backward-shift deletion):
 * the same answer as looking in each, without looking in each.
 */
static struct xls_slot *l1dir_find(struct gpu_core *g, u32 c, u64 vpn)
{
    struct xls_slot *t = &g->l1dir[(u64)c * g->l1dir_slots];
    u64 mask = g->l1dir_slots - 1, i = (vpn * 0x9e3779b97f4a7c15ULL) >> 40;

    for (i &= mask; t[i].count; i = (i + 1) & mask) {
        if (t[i].vpn == vpn) {
            return &t[i];
        }
    }
    return &t[i];
}

static void l1dir_add(struct gpu_core *g, u32 c, u64 vpn, u64 pfn)
{
    struct xls_slot *e = l1dir_find(g, c, vpn);

    e->vpn = vpn;
    e->pfn = pfn;
    e->count++;
}

static void l1dir_remove(struct gpu_core *g, u32 c, u64 vpn)
{
    struct xls_slot *t = &g->l1dir[(u64)c * g->l1dir_slots];
    u64 mask = g->l1dir_slots - 1;
    u64 i = l1dir_find(g, c, vpn) - t, j, home;

    if (--t[i].count) {
        return;
    }
    /* Close the gap: later slots of the run move back if they may. */
    for (j = (i + 1) & mask; t[j].count; j = (j + 1) & mask) {
        home = ((t[j].vpn * 0x9e3779b97f4a7c15ULL) >> 40) & mask;
        if (((j - home) & mask) >= ((j - i) & mask)) {
            t[i] = t[j];
            t[j].count = 0;
            i = j;
        }
    }
}

/* SM s's L1 TLB gets vpn; Valkyrie's table follows it. */
static void l1t_fill(struct gpu_core *g, u32 s, u64 vpn, u64 pfn)
{
    struct tlb_entry *set = l1t_set(g, s, vpn);
    struct tlb_entry *v;
    u32 c = g->sms[s].chiplet;

    if (!g->l1dir) {
        tlb_fill(g, set, g->cfg.l1_tlb_ways, vpn, pfn);
        return;
    }
    v = tlb_victim(set, g->cfg.l1_tlb_ways, vpn);
    if (!v->valid || v->vpn != vpn) {
        if (v->valid) {
            l1dir_remove(g, c, v->vpn);
        }
        l1dir_add(g, c, vpn, pfn);
    }
    tlb_fill(g, set, g->cfg.l1_tlb_ways, vpn, pfn);
}

/* ---- Placement --------------------------------------------------------- */

u32 gpu_object_page_home(const struct gpu_object *o, u64 page, u32 n)
{
    u64 pages = (o->size + (1u << GPU_PAGE_SHIFT) - 1) >> GPU_PAGE_SHIFT;
    u64 gr;

    if (!n) {
        return 0;
    }
    switch (o->policy) {
    case GPU_PLACE_RR:
        gr = 1;
        break;
    case GPU_PLACE_KWC:
    case GPU_PLACE_FT:      /* the core homes touched pages itself */
        gr = (pages + n - 1) / n;
        break;
    default:
        gr = o->g;
        break;
    }
    if (!gr) {
        gr = 1;
    }
    return (u32)((page % ((u64)n * gr)) / gr);
}

/* ---- Warps: scoreboard and readiness ------------------------------------ */

static const struct dinst *di(const u8 *p)
{
    return (const struct dinst *)p;
}

static const u16 *di_regs(const struct dinst *d)
{
    return (const u16 *)(d + 1);
}

static const u64 *di_sect(const struct dinst *d)
{
    u32 rb = ((u32)(d->ndst + d->nsrc) * 2 + 7) & ~7u;

    return (const u64 *)((const u8 *)(d + 1) + rb);
}

/* Follows the jump to the next chunk, if the warp is at one. */
static const u8 *pc_fix(const u8 *pc)
{
    if (di(pc)->op == OP_JUMP) {
        const u8 *next;

        memcpy(&next, pc + 8, sizeof(next));
        return next;
    }
    return pc;
}

static u64 pend_bit(u16 reg)
{
    return 1ULL << (reg % 64);
}

static void pend_expire(struct warp *w, u64 now)
{
    u64 bits = 0;
    u32 i = 0;

    while (i < w->npend) {
        if (w->pend[i].memop == NONE && w->pend[i].ready <= now) {
            w->pend[i] = w->pend[--w->npend];
        } else {
            bits |= pend_bit(w->pend[i].reg);
            i++;
        }
    }
    w->pend_bits = bits;
}

static struct pend *pend_find(struct warp *w, u16 reg)
{
    u32 i;

    /* Most registers read have no write pending: one test says so. */
    if (!(w->pend_bits & pend_bit(reg))) {
        return NULL;
    }
    for (i = 0; i < w->npend; i++) {
        if (w->pend[i].reg == reg) {
            return &w->pend[i];
        }
    }
    return NULL;
}

/* After pend_expire(now): the earliest cycle the next instruction can go. */
static u64 warp_ready(struct warp *w)
{
    const struct dinst *d;
    const u16 *regs;
    u64 r = w->not_before;
    u32 i, n, live, guard;

    if (!w->active || w->done || w->at_barrier) {
        return NEVER;
    }
    d = di(w->pc);
    regs = di_regs(d);
    n = d->ndst + d->nsrc;
    for (i = 0; i < n; i++) {
        struct pend *p = pend_find(w, regs[i]);

        if (p) {
            if (p->memop != NONE) {
                return NEVER;
            }
            if (p->ready > r) {
                r = p->ready;
            }
        }
    }
    /* Room in the table for the destinations: wait for ALU entries. */
    if (PEND_MAX - w->npend >= d->ndst) {
        return r;       /* what the first pass below finds */
    }
    for (guard = 0; guard < PEND_MAX; guard++) {
        u64 first = NEVER;

        live = 0;
        for (i = 0; i < w->npend; i++) {
            const struct pend *p = &w->pend[i];

            if (p->memop != NONE || p->ready > r) {
                live++;
                if (p->memop == NONE && p->ready < first) {
                    first = p->ready;
                }
            }
        }
        if (PEND_MAX - live >= d->ndst) {
            return r;
        }
        if (first == NEVER) {
            return NEVER;
        }
        r = first;
    }
    return r;
}

static void pend_set(struct warp *w, u16 reg, u64 ready, u32 memop)
{
    struct pend *p = pend_find(w, reg);

    if (!p) {
        p = &w->pend[w->npend++];
        w->pend_bits |= pend_bit(reg);
    }
    p->reg = reg;
    p->ready = ready;
    p->memop = memop;
}

/* Why the warp's next instruction cannot go (reason). */
static u32 warp_reason(struct gpu_core *g, struct warp *w)
{
    const struct dinst *d;
    const u16 *regs;
    u32 i, n;

    if (w->at_barrier) {
        return R_BARRIER;
    }
    d = di(w->pc);
    regs = di_regs(d);
    n = d->ndst + d->nsrc;
    for (i = 0; i < n; i++) {
        struct pend *p = pend_find(w, regs[i]);

        if (p && p->memop != NONE) {
            const struct memop *o = &g->memops[p->memop];

            if (o->nmshr) {
                return R_MSHR;
            }
            return o->nxlate ? R_TRANSLATION : R_MEMORY;
        }
    }
    return R_SCOREBOARD;
}

/* ---- Per-SM slot masks (host speed) ---- */

/* wready[wi] = t, keeping the SM's ready_slots in step. */
static void wready_set(struct gpu_core *g, u32 wi, u64 t)
{
    u32 n = g->cfg.warps_per_sm;
    struct sm *sm = &g->sms[wi / n];
    u64 bit = 1ULL << (wi % n);

    g->wready[wi] = t;
    if (t != NEVER) {
        sm->ready_slots |= bit;
    } else {
        sm->ready_slots &= ~bit;
    }
}

/* A warp finished or left: it no longer counts for the oldest. */
static void wseq_clear(struct gpu_core *g, u32 wi)
{
    struct sm *sm = &g->sms[wi / g->cfg.warps_per_sm];

    g->wseq[wi] = NEVER;
    sm->seq_slots &= ~(1ULL << (wi % g->cfg.warps_per_sm));
    if (sm->oldest == wi % g->cfg.warps_per_sm) {
        sm->oldest = STALE;
    }
}

static u32 sm_reason(struct gpu_core *g, u32 s)
{
    struct sm *sm = &g->sms[s];
    u64 base = (u64)s * g->cfg.warps_per_sm, best = NEVER;
    const u64 *seq = &g->wseq[base];
    u32 i, old = NONE;
    u64 m;

    if (!sm->warps_used) {
        return R_IDLE;
    }
    if (sm->oldest == STALE) {
        for (m = sm->seq_slots; m; m &= m - 1) {
            i = __builtin_ctzll(m);
            if (seq[i] < best) {
                best = seq[i];
                old = i;
            }
        }
        sm->oldest = old;
    }
    old = sm->oldest;
    return old != NONE ? warp_reason(g, &g->warps[base + old]) : R_MEMORY;
}

static void sm_account(struct gpu_core *g, u32 s, u64 upto)
{
    struct sm *sm = &g->sms[s];
    u64 n;
    u64 *ctr[R_NR] = {
        &g->stats.stall_scoreboard, &g->stats.stall_memory,
        &g->stats.stall_translation, &g->stats.stall_barrier,
        &g->stats.stall_mshr, &g->stats.idle_sm_cycles,
    };

    if (upto <= sm->acct_from) {
        return;
    }
    n = upto - sm->acct_from;
    *ctr[sm_reason(g, s)] += n;
    sm->acct_from = upto;
}

/*
 * The SM's state is about to change now: the cycles before are counted
 * with the reason its state gives (it held since the last change).
 */
static void sm_touch(struct gpu_core *g, u32 s)
{
    sm_account(g, s, g->now);
}

/* The SM may issue at t (or later): make sure an event is there. */
static void sm_wake(struct gpu_core *g, u32 s, u64 t)
{
    struct sm *sm = &g->sms[s];

    if (t == NEVER) {
        return;
    }
    if (t < g->now) {
        t = g->now;
    }
    if (sm->last_issue != NEVER && t <= sm->last_issue) {
        t = sm->last_issue + 1;
    }
    if (t < sm->sched_at) {
        sm->sched_at = t;
        push(g, t, EV_SM, s);
    }
}

static void warp_update(struct gpu_core *g, u32 wi)
{
    struct warp *w = &g->warps[wi];

    pend_expire(w, g->now);
    wready_set(g, wi, warp_ready(w));
    sm_wake(g, wi / g->cfg.warps_per_sm, g->wready[wi]);
}

/* ---- Kernels and blocks ------------------------------------------------ */

static void kernel_check_end(struct gpu_core *g);

static bool block_fits(struct gpu_core *g, const struct sm *sm,
                       const struct dblock *b)
{
    const struct gpu_config *c = &g->cfg;
    const struct prog_kernel *k = s_kern(g, sm->chiplet);
    u64 threads = (u64)k->block[0] * k->block[1] * k->block[2];
    u64 regs = k->nregs ? k->nregs * threads : 0;

    return sm->warps_used + b->nwarps <= c->warps_per_sm &&
           sm->blocks_used < c->blocks_per_sm &&
           sm->shmem_used + k->shmem <= c->shmem_per_sm &&
           sm->regs_used + regs <= c->regs_per_sm;
}

static void block_free(struct gpu_core *g, u32 s, u32 bs)
{
    struct sm *sm = &g->sms[s];
    struct rblock *rb = &g->blocks[(u64)s * g->cfg.blocks_per_sm + bs];
    const struct prog_kernel *k = s_kern(g, sm->chiplet);
    u64 threads = (u64)k->block[0] * k->block[1] * k->block[2];
    u32 i;

    for (i = 0; i < g->cfg.warps_per_sm; i++) {
        if (rb->slots & (1ULL << i)) {
            struct warp *w = &g->warps[(u64)s * g->cfg.warps_per_sm + i];

            w->active = 0;
            w->npend = 0;
            wready_set(g, s * g->cfg.warps_per_sm + i, NEVER);
            wseq_clear(g, s * g->cfg.warps_per_sm + i);
        }
    }
    sm->warps_used -= rb->nwarps;
    sm->blocks_used--;
    sm->shmem_used -= k->shmem;
    sm->regs_used -= k->nregs ? (u32)(k->nregs * threads) : 0;
    rb->used = 0;
    g->stats.blocks++;
    (*s_blocks_left(g, sm->chiplet))--;
}

static void chiplet_dispatch(struct gpu_core *g, u32 c);

static void block_check_done(struct gpu_core *g, u32 s, u32 bs)
{
    struct rblock *rb = &g->blocks[(u64)s * g->cfg.blocks_per_sm + bs];

    if (rb->live || rb->loads) {
        return;
    }
    sm_touch(g, s);
    block_free(g, s, bs);
    chiplet_dispatch(g, g->sms[s].chiplet);
    kernel_check_end(g);
}

static void barrier_release(struct gpu_core *g, u32 s, struct rblock *rb)
{
    u32 i;

    sm_touch(g, s);
    for (i = 0; i < g->cfg.warps_per_sm; i++) {
        if (rb->slots & (1ULL << i)) {
            u32 wi = s * g->cfg.warps_per_sm + i;
            struct warp *w = &g->warps[wi];

            if (w->at_barrier) {
                w->at_barrier = 0;
                w->not_before = g->now + g->cfg.lat_other;
                warp_update(g, wi);
            }
        }
    }
    rb->arrived = 0;
    g->stats.barriers++;
}

/* Places block kb on SM s now. */
static void block_place(struct gpu_core *g, u32 s, u32 kb)
{
    struct sm *sm = &g->sms[s];
    const struct dblock *b = &s_dblocks(g, sm->chiplet)[kb];
    const struct dwarp *dws = s_dwarps(g, sm->chiplet);
    const struct prog_kernel *k = s_kern(g, sm->chiplet);
    u64 threads = (u64)k->block[0] * k->block[1] * k->block[2];
    struct rblock *rb = NULL;
    u32 bs, i, slot = 0;

    sm_touch(g, s);
    /* Younger warps arrive: only an SM with none gets a new oldest. */
    if (sm->oldest == NONE) {
        sm->oldest = STALE;
    }
    for (bs = 0; bs < g->cfg.blocks_per_sm; bs++) {
        rb = &g->blocks[(u64)s * g->cfg.blocks_per_sm + bs];
        if (!rb->used) {
            break;
        }
    }
    memset(rb, 0, sizeof(*rb));
    rb->used = 1;
    rb->kb = kb;
    rb->nwarps = b->nwarps;
    sm->warps_used += b->nwarps;
    sm->blocks_used++;
    sm->shmem_used += k->shmem;
    sm->regs_used += k->nregs ? (u32)(k->nregs * threads) : 0;
    for (i = 0; i < b->nwarps; i++) {
        const struct dwarp *dw = &dws[b->first_warp + i];
        struct warp *w;
        u32 wi;

        while (g->warps[(u64)s * g->cfg.warps_per_sm + slot].active) {
            slot++;
        }
        wi = s * g->cfg.warps_per_sm + slot;
        w = &g->warps[wi];
        memset(w, 0, offsetof(struct warp, pend));
        w->active = 1;
        w->block = bs;
        g->wseq[wi] = g->warp_seq++;
        g->sms[s].seq_slots |= 1ULL << slot;
        w->left = dw->ninsts;
        w->pc = dw->ninsts ? pc_fix(dw->first) : NULL;
        w->not_before = g->now;
        rb->slots |= 1ULL << slot;
        g->stats.warps++;
        if (!dw->ninsts) {
            w->done = 1;
            wseq_clear(g, wi);
        } else {
            rb->live++;
            warp_update(g, wi);
        }
    }
    if (!rb->live) {
        block_free(g, s, bs);
    }
}

/* A kernel's record: its counters are the core's between a and b. */
static void kernel_record(struct gpu_kernel_stats *ks,
                          const struct prog_kernel *k, u64 start, u64 end,
                          const struct gpu_core_stats *a,
                          const struct gpu_core_stats *b)
{
    u32 i;

    memset(ks, 0, sizeof(*ks));
    ks->id = k->id;
    ks->start = start;
    ks->end = end;
    ks->blocks = b->blocks - a->blocks;
    ks->warp_insts = b->warp_insts - a->warp_insts;
    ks->thread_insts = b->thread_insts - a->thread_insts;
    ks->l1_tlb_misses = b->l1_tlb_misses - a->l1_tlb_misses;
    ks->l2_tlb_misses = b->l2_tlb_misses - a->l2_tlb_misses;
    ks->l1_misses = b->l1_misses - a->l1_misses;
    ks->l2_misses = b->l2_misses - a->l2_misses;
    for (i = 0; i + 1 < sizeof(ks->name) && k->name[i]; i++) {
        ks->name[i] = k->name[i];
    }
}

/* Dispatches the chiplet's next blocks, in order, while they fit. */
static void chiplet_dispatch(struct gpu_core *g, u32 c)
{
    struct chiplet *ch = &g->chip[c];
    u32 n = g->cfg.sms;

    while (ch->cursor < ch->end) {
        const struct dblock *b = &s_dblocks(g, c)[ch->cursor];
        u32 k, s = NONE;

        for (k = 1; k <= n; k++) {
            u32 cand = c * n + (ch->last_sm + k) % n;

            if (block_fits(g, &g->sms[cand], b)) {
                s = cand;
                break;
            }
        }
        if (s == NONE) {
            return;
        }
        ch->last_sm = s - c * n;
        block_place(g, s, ch->cursor);
        ch->cursor += ch->step;
    }
}

static bool fp_kernel_end(struct gpu_core *g);
static void adsm_kernel_end(struct gpu_core *g);

static void s_check_end(struct gpu_core *g);

static void kernel_check_end(struct gpu_core *g)
{
    struct gpu_kernel_stats ks;
    const struct gpu_core_stats *a = &g->kbase, *b = &g->stats;

    if (g->sgroups) {
        s_check_end(g);
        return;
    }
    if (!g->kactive || g->blocks_left || g->ops_left) {
        return;
    }
    if (g->fp && fp_kernel_end(g)) {
        return;         /* the queues' packets first */
    }
    g->kactive = false;
    g->kend = g->now;
    if (g->now > g->last_cycle) {
        g->last_cycle = g->now;
    }
    if (g->adsm) {
        adsm_kernel_end(g);
    }
    g->stats.kernels++;
    if (g->ops->kernel_done) {
        kernel_record(&ks, &g->kern, g->kstart, g->now, a, b);
        g->ops->kernel_done(g->priv, &ks);
    }
}

/* ---- Memory instructions ----------------------------------------------- */

static void memop_done(struct gpu_core *g, u32 oi)
{
    struct memop *o = &g->memops[oi];

    if (o->warp != NONE) {
        struct warp *w = &g->warps[o->warp];
        u32 s = o->warp / g->cfg.warps_per_sm;
        u32 i;

        sm_touch(g, s);
        for (i = 0; i < w->npend; i++) {
            if (w->pend[i].memop == oi) {
                w->pend[i].memop = NONE;
                w->pend[i].ready = g->now;
            }
        }
        warp_update(g, o->warp);
        if (o->loads) {
            struct rblock *rb = &g->blocks[(u64)s * g->cfg.blocks_per_sm +
                                           w->block];

            rb->loads--;
            memop_put(g, oi);
            (*s_ops_left(g, s))--;
            block_check_done(g, s, w->block);
            kernel_check_end(g);
            return;
        }
    }
    (*s_ops_left(g, o->sm))--;
    memop_put(g, oi);
    kernel_check_end(g);
}

/* A sector of memop oi is usable at tc (>= now). */
static void sector_done(struct gpu_core *g, u32 oi, u64 tc)
{
    struct memop *o = &g->memops[oi];

    if (tc > o->done_max) {
        o->done_max = tc;
    }
    if (--o->left) {
        return;
    }
    if (o->done_max <= g->now) {
        memop_done(g, oi);
    } else {
        push(g, o->done_max, EV_OPDONE, oi);
    }
}

static void ev_depart(struct gpu_core *g, u32 ri);
static void ev_l2(struct gpu_core *g, u32 ri);

/* Sends request ri on at t: now inline, later by an event. */
static void go(struct gpu_core *g, u64 t, u32 type, u32 ri)
{
    if (t == g->now && type == EV_DEPART) {
        ev_depart(g, ri);
    } else {
        push(g, t, type, ri);
    }
}

static void l1_mshr_try(struct gpu_core *g, u32 ri);

/*
 * A sector access starts at the SM now. sect: its entry in the decoded
 * instruction's sorted list (its address, and for FinePack its index).
 */
static void sector_start(struct gpu_core *g, u32 s, u32 oi, u64 addr,
                         u32 home, u32 kind, const u64 *sect)
{
    struct memop *o = &g->memops[oi];
    u64 va = *sect;
    u32 ri;
    struct req *r;

    if (kind == PROG_KIND_LOAD) {
        struct line *l = line_find(l1_set(g, s, addr), g->cfg.l1_ways,
                                   addr >> 7);

        g->stats.l1_accesses++;
        if (l && (l->valid & sector_bit(addr))) {
            g->stats.l1_hits++;
            l->lru = ++g->lru;
            sector_done(g, oi, g->now + g->cfg.l1_lat);
            return;
        }
        g->stats.l1_misses++;
    } else if (kind == PROG_KIND_STORE) {
        struct line *l = line_find(l1_set(g, s, addr), g->cfg.l1_ways,
                                   addr >> 7);

        if (l && (l->valid & sector_bit(addr))) {
            l->lru = ++g->lru;
        }
    }
    ri = req_get(g);
    if (ri == NONE) {
        fail_str(g, -ENOMEM, "out of memory for memory requests");
        return;
    }
    r = &g->reqs[ri];
    r->addr = addr;
    r->memop = oi;
    r->next = NONE;
    r->sm = s;
    r->src = g->sms[s].chiplet;
    r->home = home;
    r->kind = kind;
    r->reply = 0;
    r->ver = 0;
    r->looked = 0;
    r->cxl = g->cx && gpu_cxl_holds(g->cx, va & ~31ULL);
    r->sidx = (u16)(sect - di_sect(o->d));
    if (kind == PROG_KIND_LOAD) {
        l1_mshr_try(g, ri);
    } else if (kind == PROG_KIND_STORE) {
        go(g, g->now + g->cfg.l1_lat, EV_DEPART, ri);
    } else {
        go(g, g->now, EV_DEPART, ri);
    }
}

/* SM s's hash bucket of sector addr: the link to its first MSHR. */
static u32 *l1_mshr_bucket(struct gpu_core *g, u32 s, u64 addr)
{
    return &g->l1mh[((u64)s << g->l1mh_bits) +
                    gpu_core_mshr_bucket(addr, g->l1mh_bits)];
}

/*
 * The link (a bucket or an MSHR's next) to SM s's MSHR of sector addr,
 * or to NONE if none has it.
 */
static u32 *l1_mshr_find(struct gpu_core *g, u32 s, u64 addr)
{
    struct l1_mshr *m = &g->l1m[(u64)s * g->cfg.l1_mshrs];
    u32 *link = l1_mshr_bucket(g, s, addr);

    while (*link != NONE && m[*link].addr != addr) {
        link = &m[*link].next;
    }
    return link;
}

/* A load's miss: merge with one in flight, take an MSHR or wait. */
static void l1_mshr_try(struct gpu_core *g, u32 ri)
{
    struct req *r = &g->reqs[ri];
    u32 s = r->sm, free_i, *b;
    struct l1_mshr *m = &g->l1m[(u64)s * g->cfg.l1_mshrs];
    struct sm *sm = &g->sms[s];

    if (sm->mshr_used) {
        u32 i = *l1_mshr_find(g, s, r->addr);

        if (i != NONE) {
            r->next = m[i].head;
            m[i].head = ri;
            return;
        }
    }
    free_i = sm->mshr_free;
    if (free_i == NONE) {
        sm_touch(g, s);
        r->next = NONE;
        if (sm->fifo_head == NONE) {
            sm->fifo_head = ri;
        } else {
            g->reqs[sm->fifo_tail].next = ri;
        }
        sm->fifo_tail = ri;
        g->memops[r->memop].nmshr++;
        return;
    }
    sm->mshr_free = m[free_i].next;
    b = l1_mshr_bucket(g, s, r->addr);
    m[free_i].addr = r->addr;
    m[free_i].head = NONE;
    m[free_i].next = *b;
    *b = free_i;
    sm->mshr_used++;
    r->next = NONE;
    go(g, g->now + g->cfg.l1_lat, EV_DEPART, ri);
}

static bool fp_depart(struct gpu_core *g, u32 ri);
static void cpe_local(struct gpu_core *g, u32 ri);
static u32 cpe_home(struct gpu_core *g, u32 ri);
static void cpe_fill(struct gpu_core *g, u32 ri);

static void ev_depart(struct gpu_core *g, u32 ri)
{
    struct req *r = &g->reqs[ri];
    const struct gpu_config *c = &g->cfg;
    u32 from = r->reply ? r->home : r->src;
    u32 to = r->reply ? r->src : r->home;
    u32 bytes;
    u64 t;

    if (g->cpe && !r->reply && !r->looked) {
        cpe_local(g, ri);   /* the chiplet's L2 first: it caches any data */
        return;
    }
    if (from == to) {
        if (r->reply) {
            push(g, g->now, EV_SM_REPLY, ri);
        } else {
            if (g->fp && r->kind == PROG_KIND_LOAD) {
                gpu_fp_local_load(g->fp, r->addr);  /* gps: subscribes */
                if (gpu_fp_oom(g->fp)) {
                    fail_str(g, -ENOMEM, "out of memory for GPS's pages");
                    return;
                }
            }
            ev_l2(g, ri);
        }
        return;
    }
    if (g->fp && !r->reply && fp_depart(g, ri)) {
        return;         /* a store into the remote write queue */
    }
    if (r->reply) {
        bytes = (r->kind == PROG_KIND_LOAD || r->kind == PROG_KIND_ATOMIC) ?
                GPU_SECTOR_BYTES + HDR_BYTES : HDR_BYTES;
    } else {
        bytes = r->kind == PROG_KIND_LOAD ? HDR_BYTES :
                GPU_SECTOR_BYTES + HDR_BYTES;
    }
    t = server_use(&g->egress[from], c->link_bw, c->link_lat, g->now, bytes);
    push(g, t, EV_INGRESS, ri);
}

static void ev_ingress(struct gpu_core *g, u32 ri)
{
    struct req *r = &g->reqs[ri];
    const struct gpu_config *c = &g->cfg;
    u32 to = r->reply ? r->src : r->home;
    u32 bytes;
    u64 t;

    if (r->reply) {
        bytes = (r->kind == PROG_KIND_LOAD || r->kind == PROG_KIND_ATOMIC) ?
                GPU_SECTOR_BYTES + HDR_BYTES : HDR_BYTES;
    } else {
        bytes = r->kind == PROG_KIND_LOAD ? HDR_BYTES :
                GPU_SECTOR_BYTES + HDR_BYTES;
    }
    t = server_use(&g->ingress[to], c->link_bw, 0, g->now, bytes);
    push(g, t, r->reply ? EV_SM_REPLY : EV_L2, ri);
}

static void cpe_evict(struct gpu_core *g, u32 c, struct line *l);
static void cxl_writeback(struct gpu_core *g, struct line *l);
static void cxl_load(struct gpu_core *g, u32 ri);
static void cxl_mark(struct gpu_core *g, u32 ri);
static void cxl_done(void *core, u32 ri, u64 cycle);
static void uvm_wake(void *core, u32 xi);
static void mig_access(struct gpu_core *g, u32 s, u64 vpn, u64 pfn);
static bool mig_fill_held(struct gpu_core *g, u32 mi);
static void uvm_event(struct gpu_core *g, u64 cycle);

/*
 * A sector written into chiplet c's memory, reaching it at t; returns
 * when the memory accepted it. With cfg.dram_wq (gem5 MemCtrl's write
 * queue) a write enters only when an entry is free, and an entry drains
 * when the DRAM server has served its write. The server serves in
 * arrival order, so drains are in order and the ring's oldest entry is
 * the first free: the write waits for it if it has not drained by t.
 * Unbounded (0), a write is accepted on arrival, as before the queue.
 */
static u64 dram_write(struct gpu_core *g, u32 c, u64 t)
{
    const struct gpu_config *cf = &g->cfg;
    struct gpu_core_wq_stats *st = &g->stats.wq;
    u64 *old, wait;

    if (!cf->dram_wq) {
        server_use(&g->drams[c], cf->dram_bw, cf->dram_lat, t,
                   GPU_SECTOR_BYTES);
        return t;
    }
    old = &g->wq[(u64)c * cf->dram_wq + g->chip[c].wq_old];
    wait = *old > t ? *old - t : 0;
    st->writes++;
    if (wait) {
        st->waited++;
        st->wait_cycles += wait;
        st->max_wait = wait > st->max_wait ? wait : st->max_wait;
        t = *old;
    }
    *old = server_use(&g->drams[c], cf->dram_bw, cf->dram_lat, t,
                      GPU_SECTOR_BYTES) - cf->dram_lat;
    g->chip[c].wq_old = (g->chip[c].wq_old + 1) % cf->dram_wq;
    return t;
}

/*
 * Chiplet c's L2 line l leaves: its dirty sectors go home. Returns when
 * its memory accepted the last (0: none went to memory directly).
 */
static u64 l2_evict(struct gpu_core *g, u32 c, struct line *l)
{
    u64 t = 0;

    if (l->valid && l->dirty) {
        u32 n = __builtin_popcount(l->dirty);

        if (g->cpe) {
            cpe_evict(g, c, l);     /* to its home's L3 slice */
            return 0;
        }
        if (l->cxl && g->cx) {
            cxl_writeback(g, l);    /* to the root complex */
            return 0;
        }
        g->stats.l2_writebacks += n;
        while (n--) {
            t = dram_write(g, c, g->now);
        }
    }
    return t;
}

/*
 * Sector addr goes into line l: the line holding it, or (fresh) a victim
 * whose data the caller has sent on, which starts empty, homed at home.
 */
static void line_put(struct gpu_core *g, struct line *l, bool fresh,
                     u64 addr, u32 home, bool dirty)
{
    u8 bit = sector_bit(addr);

    if (fresh) {
        l->tag = addr >> 7;
        l->valid = 0;
        l->dirty = 0;
        l->home = home;
        l->cxl = 0;
    }
    l->valid |= bit;
    if (dirty) {
        l->dirty |= bit;
    }
    l->lru = ++g->lru;
}

/*
 * Puts a sector into home's L2 now; a dirty victim is written back.
 * Returns when memory accepted the victim (0: none): the fill waits.
 */
static u64 l2_fill(struct gpu_core *g, u32 home, u64 addr, bool dirty)
{
    struct line *set = l2_set(g, home, addr);
    struct line *l = line_find(set, g->cfg.l2_ways, addr >> 7);
    bool fresh = !l;
    u64 t = 0;

    if (fresh) {
        l = line_victim(set, g->cfg.l2_ways);
        t = l2_evict(g, home, l);
    }
    line_put(g, l, fresh, addr, home, dirty);
    return t;
}

/*
 * Puts a sector into home's L3 slice now; a dirty victim goes to DRAM.
 * Returns when memory accepted the victim (0: none): the fill waits.
 */
static u64 l3_fill(struct gpu_core *g, u32 home, u64 addr, bool dirty)
{
    struct line *set = home_set(g, home, addr);
    struct line *l = line_find(set, g->cfg.l3_ways, addr >> 7);
    bool fresh = !l;
    u64 t = 0;

    if (fresh) {
        l = line_victim(set, g->cfg.l3_ways);
        if (l->valid && l->dirty) {
            u32 n = __builtin_popcount(l->dirty);

            gpu_cpe_stats(g->cpe)->l3_writebacks += n;
            while (n--) {
                t = dram_write(g, home, g->now);
            }
        }
    }
    line_put(g, l, fresh, addr, home, dirty);
    return t;
}

static u64 home_fill(struct gpu_core *g, u32 home, u64 addr, bool dirty)
{
    return g->l3 ? l3_fill(g, home, addr, dirty) :
                   l2_fill(g, home, addr, dirty);
}

/*
 * HMG "also sends writes through to memory" (CPElide §IV-C): a store
 * sector reaching its home's L3 slice at *t takes the DRAM's time too
 * and leaves the slice's copy clean; *t becomes when memory accepted
 * it (its write queue), when the home acknowledges. True when it did.
 */
static bool hmg_through(struct gpu_core *g, u32 home, u64 *t)
{
    if (!g->l3 || g->cfg.cpelide != GPU_CPE_HMG) {
        return false;
    }
    *t = dram_write(g, home, *t);
    gpu_cpe_stats(g->cpe)->memory_writes++;
    return true;
}

static void ev_l2(struct gpu_core *g, u32 ri)
{
    struct req *r = &g->reqs[ri];
    struct line *l = line_find(home_set(g, r->home, r->addr), home_ways(g),
                               r->addr >> 7);
    bool hit = l && (l->valid & sector_bit(r->addr));
    bool through = false;
    u64 t;

    home_count(g, r->src == r->home, hit);
    t = home_use(g, r->home, g->now);
    if (g->cpe) {
        t += cpe_home(g, ri);
    }
    if (r->kind == PROG_KIND_STORE) {
        through = hmg_through(g, r->home, &t);
    }
    if (hit) {
        l->lru = ++g->lru;
        if (r->kind != PROG_KIND_LOAD && !through) {
            l->dirty |= sector_bit(r->addr);
        }
        r->reply = 1;
        push(g, t, EV_REPLY, ri);
        return;
    }
    if (r->kind == PROG_KIND_STORE) {
        u64 w = home_fill(g, r->home, r->addr, !through);

        t = w > t ? w : t;      /* its victim's write accepted */
        if (r->cxl) {
            cxl_mark(g, ri);
        }
        r->reply = 1;
        push(g, t, EV_REPLY, ri);
        return;
    }
    push(g, t, EV_DRAM, ri);
}

static void ev_dram(struct gpu_core *g, u32 ri)
{
    struct req *r = &g->reqs[ri];
    u64 t;

    if (r->cxl) {
        cxl_load(g, ri);
        return;
    }
    t = server_use(&g->drams[r->home], g->cfg.dram_bw, g->cfg.dram_lat,
                   g->now, GPU_SECTOR_BYTES);

    push(g, t, EV_FILL, ri);
}

static void ev_fill(struct gpu_core *g, u32 ri)
{
    struct req *r = &g->reqs[ri];
    u64 w = home_fill(g, r->home, r->addr, r->kind != PROG_KIND_LOAD);

    if (r->cxl) {
        cxl_mark(g, ri);
    }
    r->reply = 1;
    if (w > g->now) {
        push(g, w, EV_DEPART, ri);  /* its victim's write accepted */
    } else {
        ev_depart(g, ri);
    }
}

/* A freed L1 MSHR: the oldest waiting miss retries. */
static void l1_mshr_free(struct gpu_core *g, u32 s)
{
    struct sm *sm = &g->sms[s];

    sm_touch(g, s);
    while (sm->fifo_head != NONE) {
        u32 ri = sm->fifo_head;
        struct req *r = &g->reqs[ri];
        struct line *l = line_find(l1_set(g, s, r->addr), g->cfg.l1_ways,
                                   r->addr >> 7);
        u32 used = sm->mshr_used;

        sm->fifo_head = r->next;
        g->memops[r->memop].nmshr--;
        if (l && (l->valid & sector_bit(r->addr))) {
            u32 oi = r->memop;

            req_put(g, ri);
            sector_done(g, oi, g->now + g->cfg.l1_lat);
            continue;
        }
        l1_mshr_try(g, ri);
        if (sm->mshr_used > used || sm->fifo_head == NONE ||
            sm->mshr_used == g->cfg.l1_mshrs) {
            break;
        }
    }
}

static void ev_sm_reply(struct gpu_core *g, u32 ri)
{
    struct req *r = &g->reqs[ri];
    u32 s = r->sm;

    if (g->cpe && r->kind == PROG_KIND_LOAD) {
        cpe_fill(g, ri);
    }

    if (r->kind == PROG_KIND_LOAD) {
        struct line *set = l1_set(g, s, r->addr);
        struct line *l = line_find(set, g->cfg.l1_ways, r->addr >> 7);
        struct l1_mshr *m = &g->l1m[(u64)s * g->cfg.l1_mshrs];
        u32 *link = l1_mshr_find(g, s, r->addr), i = *link, w;

        if (!l) {
            l = line_victim(set, g->cfg.l1_ways);
            l->tag = r->addr >> 7;
            l->valid = 0;
        }
        l->valid |= sector_bit(r->addr);
        l->lru = ++g->lru;
        if (i != NONE) {
            w = m[i].head;
            *link = m[i].next;
            m[i].addr = NO_ADDR;
            m[i].next = g->sms[s].mshr_free;
            g->sms[s].mshr_free = i;
            g->sms[s].mshr_used--;
            while (w != NONE) {
                u32 nx = g->reqs[w].next, oi = g->reqs[w].memop;

                req_put(g, w);
                sector_done(g, oi, g->now);
                w = nx;
            }
        }
        {
            u32 oi = r->memop;

            req_put(g, ri);
            sector_done(g, oi, g->now);
        }
        if (g->sms[s].fifo_head != NONE) {
            l1_mshr_free(g, s);
        }
        return;
    }
    {
        u32 oi = r->memop;

        req_put(g, ri);
        sector_done(g, oi, g->now);
    }
}

/* ---- Translation ------------------------------------------------------- */

static void xl_data(struct gpu_core *g, u32 xi);
static void xl_l2(struct gpu_core *g, u32 xi, bool retry);

static u32 xl_chiplet(struct gpu_core *g, u32 xi)
{
    return g->sms[g->xls[xi].sm].chiplet;
}

/*
 * F-Barre: MSHR mi's page in the package first: its answer is a fill
 * after the attempt, else the ATS request leaves after the attempt.
 */
static void fb_miss(struct gpu_core *g, u32 mi)
{
    struct tlb_mshr *m = &g->l2m[mi];
    u64 at = g->now + g->cfg.l2_tlb_lat;
    struct gpu_fbarre_answer a;
    struct event e = {
        .key = FILL_KEY_BIT | m->tag, .type = EV_ATS_FILL, .arg = mi,
    };

    if (!gpu_fbarre_miss(g->fb, mi / g->cfg.l2_tlb_mshrs, mi, m->vpn, g->now,
                         &a)) {
        push(g, at + a.latency, EV_ATS_SEND, mi);
        return;
    }
    m->answered = 1;
    m->in_package = 1;
    m->pfn = a.pfn;
    m->issue = at;
    m->arrive = e.cycle = at + a.latency;
    heap_push(g, &g->fills, &e);
}

/* ---- Translation sharing: Least and Valkyrie (Barre Chord §VII-A) ---- */

/* An answer from another TLB against the true walk (host only). */
static void xls_check(struct gpu_core *g, u64 vpn, u64 pfn)
{
    u64 truth;

    if (!g->ops->walk) {
        return;
    }
    truth = g->ops->walk(g->priv, vpn);
    if (!(truth & MCMGPU_PTE_VALID) || MCMGPU_PTE_PFN(truth) != pfn) {
        g->stats.share.mismatches++;
    }
}

/*
 * Least: chiplet c's ideal filters (exact: every entry of each peer's L2
 * TLB, no false positive) name the first peer after c holding vpn.
 */
static u32 xls_least_peer(struct gpu_core *g, u32 c, u64 vpn)
{
    u32 i, p;

    for (i = 1; i < g->cfg.chiplets; i++) {
        p = (c + i) % g->cfg.chiplets;
        if (tlb_find(l2t_set(g, p, vpn), g->cfg.l2_tlb_ways, vpn)) {
            return p;
        }
    }
    return NONE;
}

/* Least: MSHR mi's miss asks the filters alongside the L2 TLB lookup. */
static void xls_least_miss(struct gpu_core *g, u32 mi)
{
    struct tlb_mshr *m = &g->l2m[mi];
    u32 p = xls_least_peer(g, mi / g->cfg.l2_tlb_mshrs, m->vpn);

    g->stats.share.filter_probes++;
    if (p == NONE) {
        push(g, g->now + g->cfg.l2_tlb_lat, EV_ATS_SEND, mi);
        return;
    }
    g->stats.share.remote_tlb_lookups++;
    m->xls_peer = (u8)p;
    m->xls_stage = 0;
    push(g, g->now + g->cfg.l2_tlb_lat, EV_XLS, mi);
}

/*
 * Least's remote lookup, a step an event: the request (a header) leaves
 * c's port and enters the peer's, the peer's L2 TLB is looked up (its LRU
 * untouched), the reply (a header and the PTE, or a header alone if the
 * entry left meanwhile) comes back. A hit fills like an ATS reply without
 * a request; a miss sends the ATS request then.
 */
static void ev_xls(struct gpu_core *g, u32 mi)
{
    struct tlb_mshr *m = &g->l2m[mi];
    const struct gpu_config *cf = &g->cfg;
    u32 c = mi / cf->l2_tlb_mshrs, p = m->xls_peer;
    struct tlb_entry *e;
    struct event fill = {
        .key = FILL_KEY_BIT | m->tag, .type = EV_ATS_FILL, .arg = mi,
    };
    u64 t;

    switch (m->xls_stage++) {
    case 0:
        t = server_use(&g->egress[c], cf->link_bw, cf->link_lat, g->now,
                       HDR_BYTES);
        push(g, t, EV_XLS, mi);
        return;
    case 1:
        t = server_use(&g->ingress[p], cf->link_bw, 0, g->now, HDR_BYTES);
        push(g, t + cf->l2_tlb_lat, EV_XLS, mi);
        return;
    case 2:
        e = tlb_find(l2t_set(g, p, m->vpn), cf->l2_tlb_ways, m->vpn);
        m->xls_hit = e != NULL;
        if (e) {
            m->pfn = e->pfn;
        }
        t = server_use(&g->egress[p], cf->link_bw, cf->link_lat, g->now,
                       HDR_BYTES + (e ? PTE_BYTES : 0));
        push(g, t, EV_XLS, mi);
        return;
    }
    t = server_use(&g->ingress[c], cf->link_bw, 0, g->now,
                   HDR_BYTES + (m->xls_hit ? PTE_BYTES : 0));
    if (!m->xls_hit) {
        g->stats.share.remote_tlb_gone++;
        push(g, t, EV_ATS_SEND, mi);
        return;
    }
    g->stats.share.remote_tlb_hits++;
    xls_check(g, m->vpn, m->pfn);
    m->answered = 1;
    m->in_package = 1;
    m->issue = m->arrive = fill.cycle = t;
    heap_push(g, &g->fills, &fill);
}

/*
 * Valkyrie: SM s's L1 TLB miss xi probes the L1 TLBs of its chiplet's
 * other SMs (their LRU untouched; s's own missed, so a page in the
 * chiplet's table is in a peer's), one more L1 TLB lookup; a hit fills
 * s's L1 TLB, else on to the L2 TLB.
 */
static void xls_valkyrie_l1(struct gpu_core *g, u32 s, u32 xi)
{
    struct xl *x = &g->xls[xi];
    struct xls_slot *e = l1dir_find(g, g->sms[s].chiplet, x->vpn);
    u64 at = g->now + 2 * (u64)g->cfg.l1_tlb_lat;

    g->stats.share.l1_probes++;
    if (!e->count) {
        push(g, at, EV_XL_L2, xi);
        return;
    }
    g->stats.share.l1_peer_hits++;
    x->pfn = e->pfn;
    xls_check(g, x->vpn, x->pfn);
    l1t_fill(g, s, x->vpn, x->pfn);
    push(g, at, EV_XL_DATA, xi);
}

/* A page of some object: mapped, so a prefetch of it cannot fault. */
static bool xls_mapped(const struct gpu_core *g, u64 vpn)
{
    u32 i;

    for (i = 0; i < g->nobjs; i++) {
        const struct gpu_object *o = &g->objs[i];

        if (o->size && vpn >= o->gpu_va >> GPU_PAGE_SHIFT &&
            vpn <= (o->gpu_va + o->size - 1) >> GPU_PAGE_SHIFT) {
            return true;
        }
    }
    return false;
}

/*
 * Valkyrie: a demand fill of vpn on chiplet c, or the first hit on an
 * entry a prefetch filled (tagged prefetch, as Smith's sequential
 * prefetch of caches: a stream stays ahead, a prefetch alone starts
 * none), prefetches the next
 * xl_prefetch pages that are mapped and neither in the L2 TLB nor
 * missing, each into a free MSHR while no miss waits for one; the request
 * leaves after the L2 TLB lookup that found the page absent.
 */
static void xls_prefetch(struct gpu_core *g, u32 c, u64 vpn)
{
    const struct gpu_config *cf = &g->cfg;
    struct tlb_mshr *m = &g->l2m[(u64)c * cf->l2_tlb_mshrs];
    u32 k, i, free_i;

    for (k = 1; k <= cf->xl_prefetch && g->chip[c].fifo_head == NONE; k++) {
        u64 v = vpn + k;

        if (!xls_mapped(g, v) ||
            tlb_find(l2t_set(g, c, v), cf->l2_tlb_ways, v)) {
            continue;
        }
        free_i = NONE;
        for (i = 0; i < cf->l2_tlb_mshrs; i++) {
            if (m[i].busy && m[i].vpn == v) {
                break;
            }
            if (!m[i].busy && free_i == NONE) {
                free_i = i;
            }
        }
        if (i < cf->l2_tlb_mshrs) {
            continue;
        }
        if (free_i == NONE) {
            return;
        }
        memset(&m[free_i], 0, sizeof(m[free_i]));
        m[free_i].busy = 1;
        m[free_i].prefetch = 1;
        m[free_i].vpn = v;
        m[free_i].tag = ++g->next_tag;
        m[free_i].head = m[free_i].tail = NONE;
        g->stats.share.prefetches++;
        g->prefetching++;
        push(g, g->now + cf->l2_tlb_lat, EV_ATS_SEND,
             c * cf->l2_tlb_mshrs + free_i);
    }
}

/* ---- end of translation sharing --------------------------------------- */

/* At the L2 TLB now: hit, merge, take an MSHR or wait for one. */
static void xl_l2(struct gpu_core *g, u32 xi, bool retry)
{
    struct xl *x = &g->xls[xi];
    const struct gpu_config *c = &g->cfg;
    u32 ch = xl_chiplet(g, xi), i, free_i = NONE;
    struct tlb_entry *e = tlb_find(l2t_set(g, ch, x->vpn), c->l2_tlb_ways,
                                   x->vpn);
    struct tlb_mshr *m = &g->l2m[(u64)ch * c->l2_tlb_mshrs];
    struct chiplet *cp = &g->chip[ch];

    if (!retry) {
        g->stats.l2_tlb_accesses++;
    }
    if (e) {
        if (!retry) {
            g->stats.l2_tlb_hits++;
        } else {
            g->stats.l2_tlb_mshr_merges++;
        }
        if (e->valid & TLB_PREFETCHED) {
            /* Valkyrie: a prefetch's first use prefetches on (tagged). */
            e->valid &= ~(u64)TLB_PREFETCHED;
            g->stats.share.prefetch_hits++;
            xls_prefetch(g, ch, x->vpn);
        }
        e->lru = ++g->lru;
        x->pfn = e->pfn;
        l1t_fill(g, x->sm, x->vpn, e->pfn);
        push(g, g->now + c->l2_tlb_lat, EV_XL_DATA, xi);
        return;
    }
    if (!retry) {
        g->stats.l2_tlb_misses++;
    }
    for (i = 0; i < c->l2_tlb_mshrs; i++) {
        if (m[i].busy && m[i].vpn == x->vpn) {
            g->stats.l2_tlb_mshr_merges++;
            x->next = NONE;
            if (m[i].prefetch) {
                /* Valkyrie: a prefetch in flight becomes this demand. */
                g->stats.share.prefetch_late++;
                g->prefetching--;
                m[i].prefetch = 0;
                m[i].head = xi;
            } else {
                g->xls[m[i].tail].next = xi;
            }
            m[i].tail = xi;
            m[i].write |= x->kind != PROG_KIND_LOAD;
            return;
        }
        if (!m[i].busy && free_i == NONE) {
            free_i = i;
        }
    }
    if (free_i == NONE) {
        sm_touch(g, x->sm);
        x->next = NONE;
        if (cp->fifo_head == NONE) {
            cp->fifo_head = xi;
        } else {
            g->xls[cp->fifo_tail].next = xi;
        }
        cp->fifo_tail = xi;
        g->memops[x->memop].nmshr++;
        return;
    }
    memset(&m[free_i], 0, sizeof(m[free_i]));
    m[free_i].busy = 1;
    m[free_i].vpn = x->vpn;
    m[free_i].tag = ++g->next_tag;
    m[free_i].head = m[free_i].tail = xi;
    m[free_i].write = x->kind != PROG_KIND_LOAD;
    x->next = NONE;
    if (g->fb) {
        fb_miss(g, ch * c->l2_tlb_mshrs + free_i);
        return;
    }
    if (c->xl_share == GPU_XLS_LEAST) {
        xls_least_miss(g, ch * c->l2_tlb_mshrs + free_i);
        return;
    }
    push(g, g->now + c->l2_tlb_lat, EV_ATS_SEND,
         ch * c->l2_tlb_mshrs + free_i);
}

static void ev_ats_send(struct gpu_core *g, u32 mi)
{
    struct tlb_mshr *m = &g->l2m[mi];
    struct chiplet_tlb_request rq;

    memset(&rq, 0, sizeof(rq));
    rq.tag = m->tag;
    rq.vpn = m->vpn;
    rq.issue = g->now;
    rq.chiplet = mi / g->cfg.l2_tlb_mshrs;
    rq.write = m->write;
    m->issue = g->now;
    m->sent = 1;
    g->stats.ats_requests++;
    if (g->ops->ats_request) {
        g->ops->ats_request(g->priv, &rq);
    }
}

static void ev_ats_fill(struct gpu_core *g, u32 mi)
{
    struct tlb_mshr *m = &g->l2m[mi];
    const struct gpu_config *c = &g->cfg;
    u32 ch = mi / c->l2_tlb_mshrs;
    struct chiplet *cp = &g->chip[ch];
    u32 xi = m->head;
    u64 vpn = m->vpn;
    bool demand = !m->prefetch && !m->fault;

    if (g->mig_count && mig_fill_held(g, mi)) {
        return;
    }
    if (!m->in_package) {
        g->stats.ats_replies++;
        g->stats.ats_round_trip += m->arrive - m->issue;
    }
    if (m->prefetch) {
        g->prefetching--;
    }
    if (!m->fault) {
        tlb_fill(g, l2t_set(g, ch, m->vpn), c->l2_tlb_ways, m->vpn, m->pfn);
        if (m->prefetch) {
            tlb_find(l2t_set(g, ch, m->vpn), c->l2_tlb_ways,
                     m->vpn)->valid |= TLB_PREFETCHED;
        }
        if (g->fb) {
            gpu_fbarre_fill(g->fb, ch, mi,
                            tlb_find(l2t_set(g, ch, m->vpn), c->l2_tlb_ways,
                                     m->vpn) - g->l2t, m->vpn, m->pfn, g->now);
        }
    }
    m->busy = 0;
    while (xi != NONE) {
        struct xl *x = &g->xls[xi];
        u32 nx = x->next;

        if (m->fault) {
            u32 oi = x->memop, n = x->nsect, s = x->sm;

            sm_touch(g, s);
            g->stats.translation_faults++;
            g->memops[oi].nxlate--;
            xl_put(g, xi);
            while (n--) {
                sector_done(g, oi, g->now);
            }
        } else {
            x->pfn = m->pfn;
            l1t_fill(g, x->sm, x->vpn, m->pfn);
            xl_data(g, xi);
        }
        xi = nx;
    }
    /* Waiting misses retry, oldest first, until one takes the MSHR. */
    while (cp->fifo_head != NONE) {
        u32 wi = cp->fifo_head;
        u32 busy = 0, i;

        cp->fifo_head = g->xls[wi].next;
        sm_touch(g, g->xls[wi].sm);
        g->memops[g->xls[wi].memop].nmshr--;
        xl_l2(g, wi, true);
        for (i = 0; i < c->l2_tlb_mshrs; i++) {
            busy += g->l2m[ch * c->l2_tlb_mshrs + i].busy;
        }
        if (busy == c->l2_tlb_mshrs) {
            break;
        }
    }
    if (c->xl_share == GPU_XLS_VALKYRIE && demand) {
        xls_prefetch(g, ch, vpn);
    }
}

/* The page group's translation is known now: its sectors go. */
static void xl_data(struct gpu_core *g, u32 xi)
{
    struct xl x = g->xls[xi];
    u32 i;

    sm_touch(g, x.sm);
    xl_put(g, xi);
    g->memops[x.memop].nxlate--;
    if (g->mig_count) {
        mig_access(g, x.sm, x.vpn, x.pfn);
    }
    for (i = 0; i < x.nsect && !g->err; i++) {
        u64 pa = (x.pfn << GPU_PAGE_SHIFT) |
                 (x.sect[i] & ((1u << GPU_PAGE_SHIFT) - 32));
        u64 home = x.pfn / g->frames;

        if (home >= g->cfg.chiplets) {
            struct msg m;

            m_begin(g, &m);
            m_str(&m, "ATS reply: pfn ");
            m_num(&m, x.pfn, 16);
            m_str(&m, " for vpn ");
            m_num(&m, x.vpn, 16);
            m_str(&m, " is past the chiplets' memory");
            fail(g, -EINVAL);
            return;
        }
        sector_start(g, x.sm, x.memop, pa, (u32)home, x.kind, &x.sect[i]);
    }
}

/* ---- Issue ------------------------------------------------------------- */

static u32 alu_lat(const struct gpu_config *c, u32 op)
{
    switch (op) {
    case PROG_OP_INT:
        return c->lat_int;
    case PROG_OP_FP:
        return c->lat_fp;
    case PROG_OP_DP:
        return c->lat_dp;
    case PROG_OP_SFU:
        return c->lat_sfu;
    case PROG_OP_TENSOR:
        return c->lat_tensor;
    case PROG_OP_BRANCH:
        return c->lat_branch;
    default:
        return c->lat_other;
    }
}

static void global_sectors(struct gpu_core *g, u32 s, u32 oi,
                           const u64 *sect, u32 n, u32 kind);
static void uvm_issue(struct gpu_core *g, u32 s, u32 oi, const u64 *sect,
                      u32 n, u32 kind);

static void issue_global(struct gpu_core *g, u32 s, u32 wi,
                         const struct dinst *d)
{
    const struct gpu_config *c = &g->cfg;
    struct warp *w = &g->warps[wi];
    const u64 *sect = di_sect(d);
    const u16 *regs = di_regs(d);
    u32 bytes = prog_lanes(d->mask) * d->width;
    u32 i, oi, kind = d->kind;
    bool loads = kind == PROG_KIND_LOAD || kind == PROG_KIND_ATOMIC;

    switch (kind) {
    case PROG_KIND_LOAD:
        g->stats.global_loads++;
        g->stats.bytes_loaded += bytes;
        break;
    case PROG_KIND_STORE:
        g->stats.global_stores++;
        g->stats.bytes_stored += bytes;
        break;
    case PROG_KIND_ATOMIC:
        g->stats.global_atomics++;
        g->stats.bytes_loaded += bytes;
        g->stats.bytes_stored += bytes;
        break;
    default:
        g->stats.global_atomics++;
        g->stats.bytes_stored += bytes;
        break;
    }
    g->stats.sectors += d->nsect;
    g->stats.lines += d->nlines;
    if (!d->nsect) {
        for (i = 0; i < d->ndst; i++) {
            pend_set(w, regs[i], g->now + c->l1_lat, NONE);
        }
        return;
    }
    oi = memop_get(g);
    if (oi == NONE) {
        fail_str(g, -ENOMEM, "out of memory for memory instructions");
        return;
    }
    g->memops[oi].left = d->nsect;
    g->memops[oi].kind = kind;
    g->memops[oi].d = d;
    g->memops[oi].sm = s;
    (*s_ops_left(g, s))++;
    if (loads) {
        g->memops[oi].warp = wi;
        g->memops[oi].loads = 1;
        g->blocks[(u64)s * c->blocks_per_sm + w->block].loads++;
        for (i = 0; i < d->ndst; i++) {
            pend_set(w, regs[i], NEVER, oi);
        }
    }
    if (g->uvm) {
        uvm_issue(g, s, oi, sect, d->nsect, kind);
        return;
    }
    global_sectors(g, s, oi, sect, d->nsect, kind);
}

/* Sectors sect[0..n) of memop oi start: to the L1, or to translation. */
static void global_sectors(struct gpu_core *g, u32 s, u32 oi,
                           const u64 *sect, u32 n, u32 kind)
{
    const struct gpu_config *c = &g->cfg;
    u32 i;

    if (!c->translate) {
        for (i = 0; i < n && !g->err; i++) {
            u64 a = sect[i] & ~31ULL;

            if (g->cpe) {
                /* Objects that share a page keep their own homes' bytes. */
                a |= (u64)(sect[i] & 31) << CPE_HOME_SHIFT;
            }
            sector_start(g, s, oi, a, sect[i] & 31, kind, &sect[i]);
        }
        return;
    }
    for (i = 0; i < n && !g->err;) {
        u64 vpn = sect[i] >> GPU_PAGE_SHIFT;
        u32 j = i, xi;
        struct xl *x;
        struct tlb_entry *e;

        while (j < n && (sect[j] >> GPU_PAGE_SHIFT) == vpn) {
            j++;
        }
        xi = xl_get(g);
        if (xi == NONE) {
            fail_str(g, -ENOMEM, "out of memory for translations");
            return;
        }
        x = &g->xls[xi];
        x->vpn = vpn;
        x->sect = &sect[i];
        x->nsect = j - i;
        x->memop = oi;
        x->sm = s;
        x->kind = kind;
        x->next = NONE;
        g->memops[oi].nxlate++;
        g->stats.l1_tlb_accesses++;
        e = tlb_find(l1t_set(g, s, vpn), c->l1_tlb_ways, vpn);
        if (e) {
            g->stats.l1_tlb_hits++;
            e->lru = ++g->lru;
            x->pfn = e->pfn;
            push(g, g->now + c->l1_tlb_lat, EV_XL_DATA, xi);
        } else if (c->xl_share == GPU_XLS_VALKYRIE) {
            g->stats.l1_tlb_misses++;
            xls_valkyrie_l1(g, s, xi);
        } else {
            g->stats.l1_tlb_misses++;
            push(g, g->now + c->l1_tlb_lat, EV_XL_L2, xi);
        }
        i = j;
    }
}

static void warp_finish(struct gpu_core *g, u32 s, u32 wi)
{
    struct warp *w = &g->warps[wi];
    struct rblock *rb = &g->blocks[(u64)s * g->cfg.blocks_per_sm + w->block];

    sm_touch(g, s);
    w->done = 1;
    wready_set(g, wi, NEVER);
    wseq_clear(g, wi);
    rb->live--;
    if (rb->arrived && rb->arrived == rb->live) {
        barrier_release(g, s, rb);
    }
    block_check_done(g, s, w->block);
}

static void fp_fence(struct gpu_core *g, u32 s);

static void issue(struct gpu_core *g, u32 s, u32 wi)
{
    const struct gpu_config *c = &g->cfg;
    struct warp *w = &g->warps[wi];
    const struct dinst *d = di(w->pc);
    const u16 *regs = di_regs(d);
    u32 i, lat = 0;
    bool barrier = false;

    g->stats.warp_insts++;
    g->stats.thread_insts += prog_lanes(d->mask);
    switch (d->op) {
    case PROG_OP_MEMORY:
        g->stats.mem_insts++;
        if (d->space == PROG_SPACE_GLOBAL) {
            issue_global(g, s, wi, d);
            break;
        }
        if (d->space == PROG_SPACE_SHARED) {
            g->stats.shared_insts++;
            lat = c->shmem_lat;
        } else {
            lat = c->const_lat;
        }
        for (i = 0; i < d->ndst; i++) {
            pend_set(w, regs[i], g->now + lat, NONE);
        }
        break;
    case PROG_OP_BARRIER:
        barrier = true;
        /* fall through */
    default:
        if (d->kind == KIND_FENCE) {
            fp_fence(g, s);
        }
        lat = alu_lat(c, d->op);
        for (i = 0; i < d->ndst; i++) {
            pend_set(w, regs[i], g->now + lat, NONE);
        }
        break;
    }
    w->not_before = g->now + 1;
    if (--w->left) {
        w->pc = pc_fix(w->pc + d->size);
        if (barrier) {
            struct rblock *rb = &g->blocks[(u64)s * c->blocks_per_sm +
                                           w->block];

            w->at_barrier = 1;
            rb->arrived++;
            if (rb->arrived == rb->live) {
                barrier_release(g, s, rb);
            }
        }
        wready_set(g, wi, w->at_barrier ? NEVER : warp_ready(w));
        /*
         * The decoded kernel is far larger than the caches and each warp
         * walks its own stretch: fetch the instruction after early.
         */
        __builtin_prefetch(w->pc + di(w->pc)->size);
    } else {
        warp_finish(g, s, wi);
    }
}

/* An SM's turn at now: issue one ready warp, then sleep until the next. */
static void ev_sm(struct gpu_core *g, u32 s)
{
    struct sm *sm = &g->sms[s];
    const struct gpu_config *c = &g->cfg;
    u32 n = c->warps_per_sm, i, pick = NONE;
    u64 base = (u64)s * n;
    const u64 *ready = &g->wready[base], *seq = &g->wseq[base];
    u64 next = NEVER, now = g->now, m;

    if (sm->sched_at != now) {
        return;         /* superseded by an earlier wake */
    }
    sm->sched_at = NEVER;
    if (c->warp_sched == GPU_WS_GTO) {
        if (ready[sm->last_warp] <= now) {
            pick = sm->last_warp;
        } else {
            u64 best = NEVER;

            for (m = sm->ready_slots; m; m &= m - 1) {
                i = __builtin_ctzll(m);
                if (ready[i] <= now && seq[i] < best) {
                    best = seq[i];
                    pick = i;
                }
            }
        }
    } else {
        /* The first ready slot after last_warp, wrapping around. */
        u64 after = sm->last_warp + 1 >= 64 ? 0 :
                    ~0ULL << (sm->last_warp + 1);

        for (m = sm->ready_slots & after; m && pick == NONE; m &= m - 1) {
            i = __builtin_ctzll(m);
            if (ready[i] <= now) {
                pick = i;
            }
        }
        for (m = sm->ready_slots & ~after; m && pick == NONE; m &= m - 1) {
            i = __builtin_ctzll(m);
            if (ready[i] <= now) {
                pick = i;
            }
        }
    }
    if (pick != NONE) {
        sm_account(g, s, now);
        sm->acct_from = now + 1;
        sm->last_issue = now;
        sm->last_warp = pick;
        issue(g, s, (u32)(base + pick));
        if (g->err) {
            return;
        }
    }
    /* The earliest next issue; now + 1 is as early as it gets. */
    if (pick != NONE && ready[pick] <= now + 1) {
        next = now + 1;
    } else {
        for (m = sm->ready_slots; m; m &= m - 1) {
            i = __builtin_ctzll(m);
            if (ready[i] < next) {
                next = ready[i];
                if (next <= now + 1) {
                    break;
                }
            }
        }
    }
    sm_wake(g, s, next);
}

/* ---- Decoding a kernel ------------------------------------------------- */

static int kernel_fail(struct gpu_core *g, int err, const struct dblock *b,
                       u32 warp, u64 inst, u64 pc, const char *what)
{
    struct msg m;

    m_begin(g, &m);
    m_where(&m, g, b, warp, inst, pc);
    m_str(&m, what);
    return fail(g, err);
}

/* Room for bytes of decoded instructions; NULL: over the limit or OOM. */
static u8 *arena_take(struct gpu_core *g, u32 bytes)
{
    struct chunk *c = g->cur_chunk;
    u8 *p;

    if (g->kernel_bytes + bytes > g->kernel_limit) {
        return NULL;
    }
    if (c && c->used + bytes + CHUNK_RESERVE <= CHUNK_BYTES) {
        p = c->data + c->used;
        c->used += bytes;
        g->kernel_bytes += bytes;
        return p;
    }
    /* The next chunk (kept from an earlier kernel or new). */
    {
        struct chunk *nc = c ? c->next : g->chunks;

        if (!nc) {
            nc = zalloc(g, sizeof(*nc) + CHUNK_BYTES);
            if (!nc) {
                return NULL;
            }
            if (c) {
                c->next = nc;
            } else {
                g->chunks = nc;
            }
        }
        nc->used = 0;
        if (c) {
            /* The jump: a marker and the next chunk's start. */
            u8 *j = c->data + c->used;
            const u8 *to = nc->data;

            memset(j, 0, CHUNK_RESERVE);
            j[0] = OP_JUMP;
            memcpy(j + 8, &to, sizeof(to));
        }
        g->cur_chunk = nc;
        c = nc;
    }
    p = c->data;
    c->used = bytes;
    g->kernel_bytes += bytes;
    return p;
}

static struct gpu_object *obj_lookup(struct gpu_core *g, u64 a)
{
    u32 lo = 0, hi = g->nobjs;
    struct gpu_object *o;

    if (g->last_obj < g->nobjs) {
        o = &g->objs[g->last_obj];
        if (a >= o->base && a - o->base < o->size) {
            return o;
        }
    }
    while (lo < hi) {
        u32 mid = (lo + hi) / 2;

        if (g->objs[mid].base <= a) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    if (!lo) {
        return NULL;
    }
    o = &g->objs[lo - 1];
    if (a - o->base >= o->size) {
        return NULL;
    }
    g->last_obj = lo - 1;
    return o;
}

static u32 s_home(struct gpu_core *g, const struct gpu_object *o, u64 page);
static void s_range(const struct gpu_core *g, u32 slot, u32 *first, u32 *m);

/*
 * Placement ft (CPElide's Table I: first touch). A page's home is the
 * chiplet that touches it first. The core decodes a whole kernel before
 * it runs, so first is decided among the kernel's blocks by their place
 * in their chiplet's dispatch order (all chiplets start together), the
 * lower chiplet on a tie; a page keeps its home from then on.
 */
static u32 ft_decode_home(struct gpu_core *g, const struct gpu_object *o,
                          u64 page)
{
    u32 *st = &g->ft[o->index][page];

    if (*st & FT_HOMED) {
        return *st & 31;
    }
    *st = *st ? *st : FT_PEND;
    return FT_PENDING;
}

/* Block kb's first-touch key: its dispatch position, then its chiplet. */
static u32 ft_key(const struct gpu_core *g, u32 kb)
{
    u32 first = 0, m = g->cfg.chiplets, i, pos;

    if (g->sgroups) {
        s_range(g, g->s_slot, &first, &m);
    }
    i = gpu_tb_chiplet(kb, g->ndblocks, m, g->cfg.tb_sched, &pos);
    if (pos > FT_MAX_POS) {
        pos = FT_MAX_POS;
    }
    return ((pos << 5) | (first + i)) + 1;
}

/* Keeps the sectors of sect[0..n) whose page waits for a first toucher. */
static int ft_note(struct gpu_core *g, u64 *sect, u32 n,
                   const struct ft_page *pg, u32 npg)
{
    u32 i, j;

    for (i = 0; i < n; i++) {
        u64 a = sect[i] & ~31ULL;
        struct ft_fix *f;

        if ((sect[i] & 31) != FT_PENDING) {
            continue;
        }
        for (j = 0; j < npg && (a < pg[j].lo ||
                                a - pg[j].lo >= (1u << GPU_PAGE_SHIFT)); j++) {
            ;
        }
        if (j == npg) {
            /* Every pending page is listed (at most MAX_SECTORS a lane set). */
            return fail_str(g, -EINVAL, "first touch lost a page");
        }
        g->kernel_bytes += sizeof(*f);
        if (g->kernel_bytes > g->kernel_limit) {
            return fail_str(g, -E2BIG, "the kernel's first-touch pages"
                            " exceed kernel_mib");
        }
        if (grow(g, (void **)&g->ftfix, &g->capftfix, sizeof(*f),
                 (u64)g->nftfix + 1)) {
            return fail_str(g, -ENOMEM, "out of memory for first touch");
        }
        f = &g->ftfix[g->nftfix++];
        f->sect = &sect[i];
        f->obj = pg[j].obj;
        f->page = pg[j].page;
        f->kb = g->ndblocks - 1;
    }
    return 0;
}

/* The decoded kernel's first touches: each page its home, each sector. */
static void ft_finish(struct gpu_core *g)
{
    u32 i;

    for (i = 0; i < g->nftfix; i++) {
        const struct ft_fix *f = &g->ftfix[i];
        u32 *st = &g->ft[f->obj][f->page], key = ft_key(g, f->kb);

        if (!(*st & FT_HOMED) && key < *st) {
            *st = key;
        }
    }
    for (i = 0; i < g->nftfix; i++) {
        const struct ft_fix *f = &g->ftfix[i];
        u32 *st = &g->ft[f->obj][f->page];

        if (!(*st & FT_HOMED)) {
            *st = FT_HOMED | ((*st - 1) & 31);
        }
        *f->sect = (*f->sect & ~31ULL) | (*st & 31);
    }
    g->nftfix = 0;
}

/* FinePack: the bytes each sector of a store gets from its lanes. */
static void fp_masks(struct gpu_core *g, const struct prog_inst *in,
                     const u64 *sect, u32 n, u32 *masks)
{
    u32 mask = in->mask;

    memset(masks, 0, n * sizeof(*masks));
    while (mask) {
        u32 lane = __builtin_ctz(mask);
        struct gpu_object *o = obj_lookup(g, in->addr[lane]);

        mask &= mask - 1;
        gpu_fp_lane_mask(sect, n, o->gpu_va + (in->addr[lane] - o->base),
                         in->width, masks);
    }
}

static int decode_inst(struct gpu_core *g, const struct prog_inst *in,
                       const struct dblock *b, u32 warp, u32 idx,
                       const u8 **at)
{
    u64 tmp[MAX_SECTORS];
    u32 fpm[MAX_SECTORS];
    u32 n = 0, i, nregs = in->ndst + in->nsrc, nlines = 0, size;
    u32 rb = (nregs * 2 + 7) & ~7u;
    struct dinst *d;
    u8 *p;

    struct ft_page ftp[MAX_SECTORS];
    u32 nftp = 0;

    if (in->op == PROG_OP_MEMORY && in->space == PROG_SPACE_GLOBAL) {
        const struct gpu_object *home_obj = NULL;
        u64 home_page = 0;
        u32 mask = in->mask, home = 0;

        while (mask) {
            u32 lane = __builtin_ctz(mask);
            u64 a = in->addr[lane], va, s, e;
            struct gpu_object *o;

            mask &= mask - 1;
            o = obj_lookup(g, a);
            if (!o) {
                struct msg m;

                m_begin(g, &m);
                m_where(&m, g, b, warp, idx, in->pc);
                m_str(&m, "address ");
                m_num(&m, a, 16);
                m_str(&m, " is in no object");
                return fail(g, -EFAULT);
            }
            va = o->gpu_va + (a - o->base);
            if (g->cpe) {
                gpu_cpe_note(g->cpe, g->ndblocks - 1, o->index, va,
                             va + in->width - 1,
                             in->kind != PROG_KIND_LOAD);
            }
            for (s = va >> 5, e = (va + in->width - 1) >> 5; s <= e; s++) {
                u64 v = s << 5;

                if (!g->cfg.translate) {
                    u64 page = (v - o->gpu_va) >> GPU_PAGE_SHIFT;

                    /* Lanes share pages: the divisions once a page. */
                    if (o != home_obj || page != home_page) {
                        home_obj = o;
                        home_page = page;
                        if (o->policy == GPU_PLACE_FT) {
                            home = ft_decode_home(g, o, page);
                            /*
                             * A lane set makes at most MAX_SECTORS page
                             * lookups. Two objects that share a page
                             * share its addresses: its sectors take the
                             * first object's entry, as under kwc.
                             */
                            if (home == FT_PENDING && nftp < MAX_SECTORS) {
                                ftp[nftp].lo = o->gpu_va +
                                               (page << GPU_PAGE_SHIFT);
                                ftp[nftp].obj = o->index;
                                ftp[nftp++].page = (u32)page;
                            }
                        } else {
                            home = g->sgroups ? s_home(g, o, page) :
                                   gpu_object_page_home(o, page,
                                                        g->cfg.chiplets);
                        }
                    }
                    v |= home;
                }
                /* Insertion into a sorted list: lanes mostly ascend. */
                for (i = n; i && tmp[i - 1] > v; i--) {
                    tmp[i] = tmp[i - 1];
                }
                if (i && (tmp[i - 1] >> 5) == (v >> 5)) {
                    memmove(&tmp[i], &tmp[i + 1], (n - i) * sizeof(u64));
                    continue;
                }
                tmp[i] = v;
                n++;
            }
        }
        for (i = 0; i < n; i++) {
            if (!i || (tmp[i] >> 7) != (tmp[i - 1] >> 7)) {
                nlines++;
            }
        }
    }
    size = sizeof(*d) + rb + n * 8;
    if (g->fp && in->kind == PROG_KIND_STORE && n) {
        fp_masks(g, in, tmp, n, fpm);
        size += (n * 4 + 7) & ~7u;      /* FinePack: the sectors' bytes */
    }
    p = arena_take(g, size);
    if (!p) {
        struct msg m;

        m_begin(g, &m);
        m_where(&m, g, b, warp, idx, in->pc);
        m_str(&m, "the kernel's decoded instructions exceed kernel_mib (");
        m_num(&m, g->cfg.kernel_mib, 10);
        m_str(&m, " MiB)");
        return fail(g, -E2BIG);
    }
    *at = p;
    d = (struct dinst *)p;
    d->op = in->op;
    d->space = in->space;
    d->kind = in->kind;
    d->ndst = in->ndst;
    d->nsrc = in->nsrc;
    d->nlines = nlines;
    d->width = in->width;
    d->mask = in->mask;
    d->nsect = n;
    d->size = size;
    memcpy((u16 *)(d + 1), in->dst, in->ndst * 2);
    memcpy((u16 *)(d + 1) + in->ndst, in->src, in->nsrc * 2);
    memcpy(p + sizeof(*d) + rb, tmp, n * 8);
    if (nftp && ft_note(g, (u64 *)(p + sizeof(*d) + rb), n, ftp, nftp)) {
        return g->err;
    }
    if (g->fp && in->kind == PROG_KIND_STORE && n) {
        memcpy(p + sizeof(*d) + rb + n * 8, fpm, n * 4);
    }
    if (g->fp && in->op == PROG_OP_OTHER && gpu_fp_is_fence(in->opcode)) {
        d->kind = KIND_FENCE;
    }
    return 0;
}

/* ---- Reading the program ----------------------------------------------- */

static int next_rec(struct gpu_core *g)
{
    int ret = g->src(g->src_priv, &g->rec);
    struct msg m;

    if (ret < 0) {
        m_begin(g, &m);
        m_str(&m, "the program's record ");
        m_num(&m, g->records + 1, 10);
        m_str(&m, " could not be read (its reader says why)");
        return fail(g, ret);
    }
    if (!ret) {
        return fail_str(g, -EINVAL, "the program ends without its END record");
    }
    ret = g->src_checked ? 0 : prog_grammar_check(&g->grammar, &g->rec);
    if (ret) {
        m_begin(g, &m);
        m_str(&m, "the program's record ");
        m_num(&m, g->records + 1, 10);
        if (g->kactive || g->rec.type > PROG_REC_KERNEL) {
            m_str(&m, " in ");
            m_kernel(&m, g);
        }
        m_str(&m, ": ");
        m_str(&m, g->grammar.err_field ? g->grammar.err_field : "?");
        m_str(&m, ": ");
        m_str(&m, g->grammar.err_why ? g->grammar.err_why : "invalid");
        return fail(g, -EINVAL);
    }
    g->records++;
    return 0;
}

static int add_object(struct gpu_core *g, const struct prog_object *po)
{
    const struct gpu_config *c = &g->cfg;
    struct gpu_object o;
    char why[128];
    u64 pages = (po->size + (1u << GPU_PAGE_SHIFT) - 1) >> GPU_PAGE_SHIFT;
    struct msg m;
    u32 i;
    int ret;

    memset(&o, 0, sizeof(o));
    o.base = po->base;
    o.size = po->size;
    o.policy = c->placement;
    o.g = c->placement == GPU_PLACE_CHUNK ? c->place_g :
          c->placement == GPU_PLACE_RR ? 1 :
          (u32)((pages + c->chiplets - 1) / c->chiplets);
    o.index = g->nobjs;
    why[0] = 0;
    if (g->ops->object) {
        ret = g->ops->object(g->priv, &o, why, sizeof(why));
        if (ret) {
            why[sizeof(why) - 1] = 0;
            m_begin(g, &m);
            m_str(&m, "object ");
            m_num(&m, o.index, 10);
            m_str(&m, " (");
            m_strn(&m, po->name, 48);
            m_str(&m, "): ");
            m_str(&m, why[0] ? why : "could not be mapped");
            return fail(g, ret < 0 ? ret : -EINVAL);
        }
    } else {
        o.gpu_va = o.base & ~((1ULL << GPU_PAGE_SHIFT) - 1);
    }
    if (o.gpu_va & ((1u << GPU_PAGE_SHIFT) - 1) || !o.g ||
        o.policy >= GPU_PLACE_NR) {
        m_begin(g, &m);
        m_str(&m, "object ");
        m_num(&m, o.index, 10);
        m_str(&m, " (");
        m_strn(&m, po->name, 48);
        m_str(&m, "): mapped at an address not a page or with a bad policy");
        return fail(g, -EINVAL);
    }
    if (grow(g, (void **)&g->objs, &g->capobjs, sizeof(*g->objs),
             (u64)g->nobjs + 1)) {
        return fail_str(g, -ENOMEM, "out of memory for the objects");
    }
    for (i = g->nobjs; i && g->objs[i - 1].base > o.base; i--) {
        ;
    }
    if ((i && g->objs[i - 1].base + g->objs[i - 1].size > o.base) ||
        (i < g->nobjs && o.base + o.size > g->objs[i].base)) {
        u32 other = (i && g->objs[i - 1].base + g->objs[i - 1].size > o.base) ?
                    g->objs[i - 1].index : g->objs[i].index;

        m_begin(g, &m);
        m_str(&m, "object ");
        m_num(&m, o.index, 10);
        m_str(&m, " (");
        m_strn(&m, po->name, 48);
        m_str(&m, ") overlaps object ");
        m_num(&m, other, 10);
        return fail(g, -EINVAL);
    }
    memmove(&g->objs[i + 1], &g->objs[i],
            (g->nobjs - i) * sizeof(*g->objs));
    g->objs[i] = o;
    g->nobjs++;
    if (o.policy == GPU_PLACE_FT) {
        /* A page past the last: an access may run over the object's end. */
        if (pages + 1 > 0x3fffffffu ||
            grow(g, (void **)&g->ft, &g->capft, sizeof(*g->ft),
                 (u64)o.index + 1)) {
            return fail_str(g, -ENOMEM, "out of memory for first touch");
        }
        g->ft[o.index] = zalloc(g, (pages + 1) * sizeof(u32));
        if (!g->ft[o.index]) {
            return fail_str(g, -ENOMEM, "out of memory for first touch");
        }
    }
    /* Its bytes are [gpu_va, gpu_va + size), translated or not. */
    if (g->cx && gpu_cxl_object(g->cx, o.index, o.gpu_va, o.size)) {
        return fail_str(g, -ENOMEM, "out of memory for the CXL objects");
    }
    if (g->uvm) {
        gpu_uvm_object(g->uvm, o.gpu_va, o.size);
    }
    return 0;
}

static int kernel_limit_fail(struct gpu_core *g, const char *limit,
                             u64 need, u64 have)
{
    struct msg m;

    m_begin(g, &m);
    m_kernel(&m, g);
    m_str(&m, ": a block needs ");
    m_num(&m, need, 10);
    m_str(&m, ", more than ");
    m_str(&m, limit);
    m_str(&m, " (");
    m_num(&m, have, 10);
    m_str(&m, ")");
    return fail(g, -E2BIG);
}

static u64 cpe_launch(struct gpu_core *g);
static void cpe_end(struct gpu_core *g);
static void kernel_dispatch(struct gpu_core *g);
static void kernel_start(struct gpu_core *g);
static u64 adsm_launch(struct gpu_core *g);
static int adsm_record(struct gpu_core *g);
static void adsm_end(struct gpu_core *g);
static int s_start(struct gpu_core *g);

/*
 * Chiplet i of n's share of a kernel's nblocks thread blocks: every n-th
 * from i (round-robin), or the i-th contiguous part.
 */
static void chiplet_blocks(struct chiplet *ch, u32 tb_sched, u32 i, u32 n,
                           u32 nblocks)
{
    if (tb_sched == GPU_TB_RR) {
        ch->cursor = i;
        ch->end = nblocks;
        ch->step = n;
    } else {
        ch->cursor = gpu_tb_chunk_first(i, nblocks, n);
        ch->end = gpu_tb_chunk_first(i + 1, nblocks, n);
        ch->step = 1;
    }
    if (ch->cursor > ch->end) {
        ch->cursor = ch->end;
    }
}

/* Reads the kernel's blocks to KERNEL_END, then starts it now. */
static int read_kernel(struct gpu_core *g)
{
    const struct gpu_config *c = &g->cfg;
    const struct prog_kernel *pk = &g->rec.kernel;
    u64 threads, regs;
    u32 maxw = 0, i, n;
    int ret;

    memcpy(&g->kern, pk, sizeof(g->kern));
    g->kern.name[PROG_NAME_MAX - 1] = 0;
    if (g->fp) {
        gpu_fp_kernel_begin(g->fp, g->kern.name);   /* gps: profiling */
    }
    g->ndblocks = g->ndwarps = 0;
    g->kernel_bytes = 0;
    g->cur_chunk = NULL;
    g->nftfix = 0;
    if (g->cpe) {
        gpu_cpe_kernel_begin(g->cpe);
    }
    for (;;) {
        struct dblock *b;

        ret = next_rec(g);
        if (ret) {
            return ret;
        }
        if (g->rec.type == PROG_REC_KERNEL_END) {
            break;
        }
        /* BLOCK */
        g->kernel_bytes += sizeof(struct dblock);
        if (g->kernel_bytes > g->kernel_limit) {
            return kernel_fail(g, -E2BIG, NULL, NONE, NEVER, 0,
                               "the kernel's decoded blocks exceed "
                               "kernel_mib");
        }
        if (grow(g, (void **)&g->dblocks, &g->capdblocks,
                 sizeof(*g->dblocks), (u64)g->ndblocks + 1)) {
            return fail_str(g, -ENOMEM, "out of memory for the blocks");
        }
        b = &g->dblocks[g->ndblocks++];
        b->x = g->rec.block.x;
        b->y = g->rec.block.y;
        b->z = g->rec.block.z;
        b->first_warp = g->ndwarps;
        b->nwarps = 0;
        for (;;) {
            struct dwarp *dw;
            u32 k;

            ret = next_rec(g);
            if (ret) {
                return ret;
            }
            if (g->rec.type == PROG_REC_BLOCK_END) {
                break;
            }
            /* WARP and its instructions */
            g->kernel_bytes += sizeof(struct dwarp);
            if (grow(g, (void **)&g->dwarps, &g->capdwarps,
                     sizeof(*g->dwarps), (u64)g->ndwarps + 1)) {
                return fail_str(g, -ENOMEM, "out of memory for the warps");
            }
            b = &g->dblocks[g->ndblocks - 1];
            dw = &g->dwarps[g->ndwarps++];
            dw->id = g->rec.warp.id;
            dw->ninsts = g->rec.warp.insts;
            dw->first = NULL;
            b->nwarps++;
            for (k = 0; k < dw->ninsts; k++) {
                const u8 *at;

                ret = next_rec(g);
                if (ret) {
                    return ret;
                }
                ret = decode_inst(g, &g->rec.inst, b, dw->id, k, &at);
                if (ret) {
                    return ret;
                }
                if (!k) {
                    dw->first = at;
                }
            }
        }
        if (b->nwarps > maxw) {
            maxw = b->nwarps;
        }
    }
    ft_finish(g);
    /* Every block must fit an empty SM. */
    threads = (u64)g->kern.block[0] * g->kern.block[1] * g->kern.block[2];
    regs = g->kern.nregs ? (u64)g->kern.nregs * threads : 0;
    if (maxw > c->warps_per_sm) {
        return kernel_limit_fail(g, "warps_per_sm", maxw, c->warps_per_sm);
    }
    if (g->kern.shmem > c->shmem_per_sm) {
        return kernel_limit_fail(g, "shmem_per_sm", g->kern.shmem,
                                 c->shmem_per_sm);
    }
    if (regs > c->regs_per_sm) {
        return kernel_limit_fail(g, "regs_per_sm", regs, c->regs_per_sm);
    }
    if (g->sgroups) {
        return s_start(g);
    }
    /* Start: blocks to chiplets, then each chiplet's first blocks. */
    n = c->chiplets;
    g->kactive = true;
    g->kstart = g->now;
    g->blocks_left = g->ndblocks;
    g->ops_left = 0;
    g->kbase = g->stats;
    for (i = 0; i < n; i++) {
        chiplet_blocks(&g->chip[i], c->tb_sched, i, n, g->ndblocks);
    }
    if (g->adsm) {
        u64 t = adsm_launch(g);

        if (g->err) {
            return g->err;
        }
        if (t > g->now) {
            g->ops_left++;      /* the kernel waits for the host */
            push(g, t, EV_ADSM_LAUNCH, 0);
            return g->err;
        }
    }
    kernel_start(g);
    return g->err;
}

/* The launch reaches the GPU now: CPElide's L2 operations, the blocks. */
static void kernel_start(struct gpu_core *g)
{
    if (g->cpe) {
        u64 t = cpe_launch(g);

        if (g->err) {
            return;
        }
        if (t > g->now) {
            g->ops_left++;      /* the kernel waits for its L2 operations */
            push(g, t, EV_CPE_LAUNCH, 0);
            return;
        }
    }
    kernel_dispatch(g);
}

/* The kernel's blocks start on every chiplet now. */
static void kernel_dispatch(struct gpu_core *g)
{
    u32 i;

    for (i = 0; i < g->cfg.chiplets; i++) {
        chiplet_dispatch(g, i);
    }
    kernel_check_end(g);
}

/* Reads header records and the next kernel (or END) and starts it. */
static int read_next(struct gpu_core *g)
{
    int ret;

    for (;;) {
        ret = next_rec(g);
        if (ret) {
            return ret;
        }
        switch (g->rec.type) {
        case PROG_REC_OBJECT:
            ret = add_object(g, &g->rec.object);
            if (!ret && g->adsm) {
                ret = adsm_record(g);
            }
            if (ret) {
                return ret;
            }
            break;
        case PROG_REC_COPY:
            g->copies++;
            if (g->adsm) {
                ret = adsm_record(g);
                if (ret) {
                    return ret;
                }
            }
            break;
        case PROG_REC_KERNEL:
            return read_kernel(g);
        case PROG_REC_END:
            g->prog_end = true;
            if (g->cpe) {
                cpe_end(g);     /* the final releases */
            }
            if (g->adsm) {
                adsm_end(g);
            }
            return g->err;
        default:
            return fail_str(g, -EINVAL, "unexpected record in the program");
        }
    }
}

/* ---- Concurrent streams (gpu_core_streams(); docs/cpelide.md) -------- */

/*
 * The rule (CPElide §III-B: hipSetDevice binds stream i to chiplet(s) j;
 * where the paper is silent, ours): the chiplets form sgroups equal
 * groups; a kernel of stream s >= 1 runs on group (s - 1) % sgroups, a
 * kernel of stream 0 (CUDA's legacy default stream) on every chiplet once
 * every other kernel has finished, and nothing starts after it until it
 * finishes. A group runs one kernel at a time, so launches on one stream
 * keep their order and concurrent kernels never share an SM. The command
 * processor takes launches in program order: a launch whose group is busy
 * waits, and every record after it waits too (one in-order queue). COPY
 * records take no time in this mode (adsm and pcie_copies are refused)
 * and order nothing; END waits for every kernel.
 */
enum { S_HOLD_NONE = 0, S_HOLD_KERNEL, S_HOLD_END };

static void s_dispatch(struct gpu_core *g, u32 slot);

static bool s_busy(const struct gpu_core *g)
{
    u32 i;

    for (i = 0; i <= g->sgroups; i++) {
        if (g->sg[i].active) {
            return true;
        }
    }
    return false;
}

/* The slot a stream's kernels run in: sgroups is the whole GPU. */
static u32 s_slot_of(const struct gpu_core *g, u64 stream)
{
    return stream ? (u32)((stream - 1) % g->sgroups) : g->sgroups;
}

/* The slot's chiplets: [*first, *first + *m). */
static void s_range(const struct gpu_core *g, u32 slot, u32 *first, u32 *m)
{
    u32 per = g->cfg.chiplets / g->sgroups;

    *first = slot == g->sgroups ? 0 : slot * per;
    *m = slot == g->sgroups ? g->cfg.chiplets : per;
}

static bool s_ready(const struct gpu_core *g)
{
    if (g->prog_end) {
        return false;
    }
    switch (g->s_hold) {
    case S_HOLD_KERNEL:
        return g->s_slot == g->sgroups ? !s_busy(g) :
               !g->sg[g->s_slot].active && !g->sg[g->sgroups].active;
    case S_HOLD_END:
        return !s_busy(g);
    default:
        return true;
    }
}

/* Reads records until a launch or END must wait, or a kernel started. */
static int s_read(struct gpu_core *g)
{
    int ret;

    for (;;) {
        if (g->s_hold == S_HOLD_KERNEL) {
            if (!s_ready(g)) {
                return 0;
            }
            g->s_hold = S_HOLD_NONE;
            return read_kernel(g);
        }
        if (g->s_hold == S_HOLD_END) {
            if (s_busy(g)) {
                return 0;
            }
            g->s_hold = S_HOLD_NONE;
            g->prog_end = true;
            if (g->cpe) {
                cpe_end(g);
            }
            return g->err;
        }
        ret = next_rec(g);
        if (ret) {
            return ret;
        }
        switch (g->rec.type) {
        case PROG_REC_OBJECT:
            ret = add_object(g, &g->rec.object);
            if (ret) {
                return ret;
            }
            break;
        case PROG_REC_COPY:
            g->copies++;
            break;
        case PROG_REC_KERNEL:
            g->s_hold = S_HOLD_KERNEL;
            g->s_slot = s_slot_of(g, g->rec.kernel.stream);
            break;
        case PROG_REC_END:
            g->s_hold = S_HOLD_END;
            break;
        default:
            return fail_str(g, -EINVAL, "unexpected record in the program");
        }
    }
}

#define S_SWAP(a, b)                                                    \
    do {                                                                \
        __typeof__(a) t_ = (a);                                         \
        (a) = (b);                                                      \
        (b) = t_;                                                       \
    } while (0)

/*
 * The kernel just decoded starts in slot g->s_slot now: the slot takes
 * the decoded blocks (and gives its old, free tables back for the next
 * decode), its chiplets split the blocks as tb_sched does over the GPU.
 */
static int s_start(struct gpu_core *g)
{
    u32 slot = g->s_slot, first, m, j;
    struct sgroup *sg = &g->sg[slot];

    S_SWAP(sg->dblocks, g->dblocks);
    S_SWAP(sg->ndblocks, g->ndblocks);
    S_SWAP(sg->capdblocks, g->capdblocks);
    S_SWAP(sg->dwarps, g->dwarps);
    S_SWAP(sg->ndwarps, g->ndwarps);
    S_SWAP(sg->capdwarps, g->capdwarps);
    S_SWAP(sg->chunks, g->chunks);
    g->cur_chunk = NULL;
    memcpy(&sg->kern, &g->kern, sizeof(sg->kern));
    sg->active = true;
    sg->kstart = g->now;
    sg->blocks_left = sg->ndblocks;
    sg->ops_left = 0;
    sg->kbase = g->stats;
    s_range(g, slot, &first, &m);
    for (j = 0; j < m; j++) {
        g->cgrp[first + j] = (u8)slot;
        chiplet_blocks(&g->chip[first + j], g->cfg.tb_sched, j, m,
                       sg->ndblocks);
    }
    if (g->cpe) {
        u64 t = cpe_launch(g);

        if (g->err) {
            return g->err;
        }
        if (t > g->now) {
            sg->ops_left++;     /* the kernel waits for its L2 operations */
            push(g, t, EV_CPE_LAUNCH, slot);
            return g->err;
        }
    }
    s_dispatch(g, NONE);
    return g->err;
}

/* Slot's blocks start on its chiplets now (NONE: g->s_slot's, at once). */
static void s_dispatch(struct gpu_core *g, u32 slot)
{
    u32 first, m, j;

    if (slot == NONE) {
        slot = g->s_slot;
    } else {
        g->sg[slot].ops_left--;         /* its L2 operations are done */
    }
    s_range(g, slot, &first, &m);
    for (j = 0; j < m; j++) {
        chiplet_dispatch(g, first + j);
    }
    kernel_check_end(g);
}

/* CPElide's decision for the kernel starting in slot g->s_slot. */
static void s_cpe_launch(struct gpu_core *g, struct gpu_cpe_sync *s)
{
    u32 first, m;

    s_range(g, g->s_slot, &first, &m);
    gpu_cpe_launch_on(g->cpe, g->sg[g->s_slot].ndblocks, g->cfg.tb_sched,
                      first, m, g->s_slot, s);
}

/* Every slot whose kernel has nothing left ends now. */
static void s_check_end(struct gpu_core *g)
{
    struct gpu_kernel_stats ks;
    u32 i;

    for (i = 0; i <= g->sgroups; i++) {
        struct sgroup *sg = &g->sg[i];
        const struct gpu_core_stats *a = &sg->kbase, *b = &g->stats;

        if (!sg->active || sg->blocks_left || sg->ops_left) {
            continue;
        }
        sg->active = false;
        g->kend = g->now;
        if (g->now > g->last_cycle) {
            g->last_cycle = g->now;
        }
        if (g->cpe) {
            gpu_cpe_kernel_end_on(g->cpe, i);
        }
        g->stats.kernels++;
        if (!g->ops->kernel_done) {
            continue;
        }
        /* Counters other than blocks: every kernel running meanwhile. */
        kernel_record(&ks, &sg->kern, sg->kstart, g->now, a, b);
        ks.blocks = sg->ndblocks;
        g->ops->kernel_done(g->priv, &ks);
    }
}

int gpu_core_cxl_timeline(struct gpu_core *g, u64 every)
{
    if (g->err) {
        return g->err;
    }
    if (!g->cx) {
        return fail_str(g, -EINVAL, "timeline: needs CXL memory (cxl on)");
    }
    if (!every) {
        return fail_str(g, -EINVAL, "timeline: a sample must last at "
                        "least one cycle");
    }
    if (g->records) {
        return fail_str(g, -EINVAL, "timeline: set before the first run");
    }
    return gpu_cxl_timeline(g->cx, every);
}

int gpu_core_cxl_samples(struct gpu_core *g,
                         const struct gpu_cxl_sample **samples, u64 *n,
                         struct gpu_cxl_sample *after)
{
    if (!g->cx || !g->done) {
        return -EINVAL;
    }
    return gpu_cxl_samples(g->cx, g->last_cycle, samples, n, after);
}

int gpu_core_streams(struct gpu_core *g, u32 groups)
{
    const struct gpu_config *c = &g->cfg;
    u32 i;

    if (g->err) {
        return g->err;
    }
    if (!groups || groups > c->chiplets || c->chiplets % groups) {
        return fail_str(g, -EINVAL, "streams: the groups must divide the "
                        "chiplets");
    }
    if (c->finepack || c->adsm || c->pcie_copies || c->cxl || c->uvm ||
        c->migrate) {
        return fail_str(g, -EINVAL, "streams: not with finepack, adsm, "
                        "pcie_copies, cxl, uvm or migrate");
    }
    if (g->records || g->sgroups) {
        return fail_str(g, -EINVAL, "streams: set before the first run");
    }
    g->sg = zalloc(g, (groups + 1) * sizeof(*g->sg));
    if (!g->sg) {
        return fail_str(g, -ENOMEM, "out of memory for the streams");
    }
    if (g->cpe && gpu_cpe_streams(g->cpe, groups + 1)) {
        return fail_str(g, -ENOMEM, "out of memory for the streams");
    }
    g->sgroups = groups;
    for (i = 0; i < c->chiplets; i++) {
        g->cgrp[i] = (u8)(i / (c->chiplets / groups));
    }
    return 0;
}

/*
 * Streams, translate off: an object's pages live on the chiplets of the
 * first kernel that touches it, placed over them as the configuration
 * places them over the GPU (placement ft homes each page on its own
 * first toucher instead: ft_decode_home()).
 */
static u32 s_home(struct gpu_core *g, const struct gpu_object *o, u64 page)
{
    u32 first, m;

    if (grow(g, (void **)&g->s_objslot, &g->s_capobj, 1,
             (u64)o->index + 1)) {
        fail_str(g, -ENOMEM, "out of memory for the streams' objects");
        return 0;
    }
    if (!g->s_objslot[o->index]) {
        g->s_objslot[o->index] = (u8)(g->s_slot + 1);
    }
    s_range(g, g->s_objslot[o->index] - 1u, &first, &m);
    return first + gpu_object_page_home(o, page, m);
}

/* Frees the slots' tables (gpu_core_destroy). */
static void s_destroy(struct gpu_core *g)
{
    u32 i;

    if (!g->sg) {
        return;
    }
    for (i = 0; i <= g->sgroups; i++) {
        struct chunk *c = g->sg[i].chunks;

        while (c) {
            struct chunk *n = c->next;

            zfree(g, c);
            c = n;
        }
        zfree(g, g->sg[i].dblocks);
        zfree(g, g->sg[i].dwarps);
    }
    zfree(g, g->sg);
    g->sg = NULL;
    zfree(g, g->s_objslot);
    g->s_objslot = NULL;
}

/* ---- The interface ----------------------------------------------------- */

size_t gpu_core_size(const struct gpu_config *cfg)
{
    const char *field, *why;

    if (!cfg || gpu_config_check(cfg, GPU_MAX_CHIPLETS, &field, &why)) {
        return 0;
    }
    return sizeof(struct gpu_core);
}

#define TABLE(g, ptr, count)                                            \
    do {                                                                \
        (ptr) = zalloc((g), (size_t)(count) * sizeof(*(ptr)));          \
        if (!(ptr)) {                                                   \
            return fail_str((g), -ENOMEM, "out of memory for the "      \
                            #ptr " table");                             \
        }                                                               \
    } while (0)

int gpu_core_init(struct gpu_core *g, const struct gpu_config *cfg,
                  const struct gpu_core_ops *ops, void *priv,
                  prog_source_fn src, void *src_priv)
{
    const char *field = NULL, *why = NULL;
    u64 nsms, i;
    struct msg m;

    memset(g, 0, sizeof(*g));
    g->ops = ops;
    g->priv = priv;
    g->src = src;
    g->src_priv = src_priv;
    g->freememop = g->freereq = g->freexl = NONE;
    if (!ops || !ops->alloc || !ops->free || !src) {
        return fail_str(g, -EINVAL, "ops->alloc, ops->free and the source "
                        "are required");
    }
    if (gpu_config_check(cfg, GPU_MAX_CHIPLETS, &field, &why)) {
        m_begin(g, &m);
        m_str(&m, "configuration: ");
        m_str(&m, field);
        m_str(&m, ": ");
        m_str(&m, why);
        return fail(g, -EINVAL);
    }
    if (cfg->warps_per_sm > 64) {
        return fail_str(g, -EINVAL, "configuration: warps_per_sm: over 64");
    }
    g->cfg = *cfg;
    nsms = (u64)cfg->chiplets * cfg->sms;
    g->nsms = (u32)nsms;
    g->l1_sets = cfg->l1_size / (GPU_LINE_BYTES * cfg->l1_ways);
    g->l2_sets = cfg->l2_size / (GPU_LINE_BYTES * cfg->l2_ways);
    g->l1t_sets = cfg->l1_tlb_entries / cfg->l1_tlb_ways;
    g->l2t_sets = cfg->l2_tlb_entries / cfg->l2_tlb_ways;
    g->frames = (u64)cfg->vram_mib << (20 - GPU_PAGE_SHIFT);
    g->kernel_limit = (u64)cfg->kernel_mib << 20;
    g->last_obj = NONE;
    prog_grammar_init(&g->grammar);

    TABLE(g, g->sms, nsms);
    TABLE(g, g->warps, nsms * cfg->warps_per_sm);
    TABLE(g, g->blocks, nsms * cfg->blocks_per_sm);
    TABLE(g, g->l1, nsms * (cfg->l1_size / GPU_LINE_BYTES));
    TABLE(g, g->l2, (u64)cfg->chiplets * (cfg->l2_size / GPU_LINE_BYTES));
    TABLE(g, g->l1m, nsms * cfg->l1_mshrs);
    while ((1u << g->l1mh_bits) < cfg->l1_mshrs) {
        g->l1mh_bits++;     /* at most one MSHR a bucket on average */
    }
    TABLE(g, g->l1mh, nsms << g->l1mh_bits);
    TABLE(g, g->chip, cfg->chiplets);
    TABLE(g, g->egress, cfg->chiplets);
    TABLE(g, g->ingress, cfg->chiplets);
    TABLE(g, g->l2s, cfg->chiplets);
    TABLE(g, g->drams, cfg->chiplets);
    if (cfg->dram_wq) {
        TABLE(g, g->wq, (u64)cfg->chiplets * cfg->dram_wq);
    }
    if (cfg->translate) {
        TABLE(g, g->l1t, nsms * cfg->l1_tlb_entries);
        TABLE(g, g->l2t, (u64)cfg->chiplets * cfg->l2_tlb_entries);
        TABLE(g, g->l2m, (u64)cfg->chiplets * cfg->l2_tlb_mshrs);
    }
    if (cfg->translate && cfg->xl_share == GPU_XLS_VALKYRIE) {
        /* At most half full: every L1 TLB entry of a chiplet distinct. */
        g->l1dir_slots = 1;
        while (g->l1dir_slots < 2 * (u64)cfg->sms * cfg->l1_tlb_entries) {
            g->l1dir_slots <<= 1;
        }
        TABLE(g, g->l1dir, cfg->chiplets * g->l1dir_slots);
    }
    if (cfg->translate && cfg->fbarre) {
        TABLE(g, g->fb, 1);
        TABLE(g, g->fb->l2, gpu_fbarre_entries(cfg));
        TABLE(g, g->fb->reply, gpu_fbarre_replies(cfg));
        if (gpu_fbarre_init(g->fb, cfg, g->frames, g->fb->l2, g->fb->reply,
                            ops->walk, priv)) {
            return fail_str(g, -EINVAL, "configuration: fbarre_merge or "
                            "fbarre_filter_rows: F-Barre refuses them");
        }
    }
    for (i = 0; i < nsms; i++) {
        struct sm *sm = &g->sms[i];

        sm->chiplet = (u32)(i / cfg->sms);
        sm->sched_at = NEVER;
        sm->last_issue = NEVER;
        sm->last_warp = cfg->warps_per_sm - 1;
        sm->fifo_head = sm->fifo_tail = NONE;
        sm->oldest = NONE;
    }
    for (i = 0; i < nsms * cfg->l1_mshrs; i++) {
        u32 j = (u32)(i % cfg->l1_mshrs) + 1;   /* an SM's own index */

        g->l1m[i].addr = NO_ADDR;
        g->l1m[i].next = j < cfg->l1_mshrs ? j : NONE;
    }
    for (i = 0; i < nsms; i++) {
        g->sms[i].mshr_free = 0;
    }
    memset(g->l1mh, 0xff, (nsms << g->l1mh_bits) * sizeof(*g->l1mh));
    TABLE(g, g->wready, nsms * cfg->warps_per_sm);
    TABLE(g, g->wseq, nsms * cfg->warps_per_sm);
    TABLE(g, g->whead, WHEEL);
    TABLE(g, g->wtail, WHEEL);
    TABLE(g, g->wmap, WHEEL / 64);
    memset(g->whead, 0xff, WHEEL * sizeof(*g->whead));
    g->freenode = NONE;
    for (i = 0; i < nsms * cfg->warps_per_sm; i++) {
        g->wready[i] = NEVER;
        g->wseq[i] = NEVER;
    }
    for (i = 0; i < cfg->chiplets; i++) {
        g->chip[i].fifo_head = g->chip[i].fifo_tail = NONE;
        g->chip[i].last_sm = cfg->sms - 1;
    }
    if (cfg->finepack) {
        g->fp = gpu_fp_create(cfg->finepack, cfg->chiplets, ops->alloc,
                              ops->free, priv);
        if (!g->fp) {
            return fail_str(g, -ENOMEM, "out of memory for FinePack");
        }
    }
    if (cfg->cpelide) {
        g->cpe = gpu_cpe_create(cfg, ops->alloc, ops->free, priv);
        if (!g->cpe) {
            return fail_str(g, -ENOMEM, "out of memory for CPElide");
        }
        TABLE(g, g->cver, (u64)cfg->chiplets *
              (cfg->l2_size / GPU_LINE_BYTES) * 4);
        /* A slice: the L3's share, in a power of two of sets. */
        g->l3_sets = 1;
        while ((u64)g->l3_sets * 2 * GPU_LINE_BYTES * cfg->l3_ways <=
               cfg->l3_size / cfg->chiplets) {
            g->l3_sets *= 2;
        }
        TABLE(g, g->l3, (u64)cfg->chiplets * g->l3_sets * cfg->l3_ways);
        TABLE(g, g->l3s, cfg->chiplets);
    }
    if (cfg->adsm || cfg->pcie_copies) {
        g->adsm = gpu_adsm_create(cfg, ops->alloc, ops->free, priv);
        if (!g->adsm) {
            return fail_str(g, -ENOMEM, "out of memory for ADSM");
        }
    }
    g->cxl_at = NEVER;
    if (cfg->cxl) {
        g->cx = gpu_cxl_create(cfg, ops->alloc, ops->free, priv,
                               cxl_done, g);
        if (!g->cx) {
            return fail_str(g, -ENOMEM, "out of memory for CXL-GPU");
        }
    }
    g->uvm_at = NEVER;
    if (cfg->uvm) {
        g->uvm = gpu_uvm_create(cfg, ops->alloc, ops->free, priv, uvm_wake,
                                g);
        if (!g->uvm) {
            return fail_str(g, -ENOMEM, "out of memory for UVM");
        }
    }
    if (cfg->migrate) {
        if (!ops->migrate) {
            return fail_str(g, -EINVAL, "migrate: the caller cannot move"
                            " pages (only the host runs it)");
        }
        TABLE(g, g->mig_count, g->frames * cfg->chiplets * cfg->chiplets);
    }
    return 0;
}

void gpu_core_source_checked(struct gpu_core *g)
{
    g->src_checked = true;
}

void gpu_core_destroy(struct gpu_core *g)
{
    struct chunk *c = g->chunks;
    u32 i;

    if (!g->ops || !g->ops->free) {
        return;
    }
    s_destroy(g);
    while (c) {
        struct chunk *n = c->next;

        zfree(g, c);
        c = n;
    }
    g->chunks = NULL;
    gpu_fp_destroy(g->fp);
    g->fp = NULL;
    gpu_cxl_destroy(g->cx);
    g->cx = NULL;
    gpu_uvm_destroy(g->uvm);
    g->uvm = NULL;
    zfree(g, g->mig_count);
    g->mig_count = NULL;
    zfree(g, g->mig_hold);
    g->mig_hold = NULL;
    gpu_cpe_destroy(g->cpe);
    g->cpe = NULL;
    for (i = 0; g->ft && i < g->capft; i++) {
        zfree(g, g->ft[i]);
    }
    zfree(g, g->ft);
    g->ft = NULL;
    zfree(g, g->ftfix);
    g->ftfix = NULL;
    gpu_adsm_destroy(g->adsm);
    g->adsm = NULL;
    zfree(g, g->cver);
    g->cver = NULL;
    zfree(g, g->l3);
    g->l3 = NULL;
    zfree(g, g->l3s);
    g->l3s = NULL;
    zfree(g, g->sms);
    zfree(g, g->warps);
    zfree(g, g->wready);
    zfree(g, g->wseq);
    zfree(g, g->blocks);
    zfree(g, g->l1);
    zfree(g, g->l2);
    zfree(g, g->l1t);
    zfree(g, g->l2t);
    zfree(g, g->l1dir);
    g->l1dir = NULL;
    zfree(g, g->l1m);
    zfree(g, g->l1mh);
    zfree(g, g->l2m);
    zfree(g, g->chip);
    zfree(g, g->egress);
    zfree(g, g->ingress);
    zfree(g, g->l2s);
    zfree(g, g->drams);
    zfree(g, g->wq);
    if (g->fb) {
        zfree(g, g->fb->l2);
        zfree(g, g->fb->reply);
        zfree(g, g->fb);
        g->fb = NULL;
    }
    zfree(g, g->fills.a);
    zfree(g, g->far.a);
    zfree(g, g->whead);
    zfree(g, g->wtail);
    zfree(g, g->wmap);
    zfree(g, g->nodes);
    zfree(g, g->memops);
    zfree(g, g->reqs);
    zfree(g, g->xls);
    zfree(g, g->objs);
    zfree(g, g->dblocks);
    zfree(g, g->dwarps);
    g->sms = NULL;
    g->warps = NULL;
    g->wready = g->wseq = NULL;
    g->blocks = NULL;
    g->l1 = g->l2 = NULL;
    g->l1t = g->l2t = NULL;
    g->l1m = NULL;
    g->l1mh = NULL;
    g->l2m = NULL;
    g->chip = NULL;
    g->egress = g->ingress = g->l2s = g->drams = NULL;
    g->wq = NULL;
    g->fills.a = g->far.a = NULL;
    g->whead = g->wtail = NULL;
    g->wmap = NULL;
    g->nodes = NULL;
    g->memops = NULL;
    g->reqs = NULL;
    g->xls = NULL;
    g->objs = NULL;
    g->dblocks = NULL;
    g->dwarps = NULL;
}

/* ---- FinePack (gpu_finepack.h) --------------------------------------- */

static u32 cpe_fp_home(struct gpu_core *g, u32 src, u32 home, u64 addr);

/* Sends every packet the queues let go: out of the source's port now. */
static void fp_send(struct gpu_core *g)
{
    const struct gpu_config *c = &g->cfg;
    u32 i;

    if (gpu_fp_oom(g->fp)) {
        fail_str(g, -ENOMEM, "out of memory for FinePack's packets");
        return;
    }
    while ((i = gpu_fp_next(g->fp)) != GPU_FP_NONE) {
        const struct gpu_fp_packet *k = gpu_fp_packet(g->fp, i);
        u64 left = k->wire, t = g->now;

        do {    /* a bulk copy in pieces a u32 holds */
            u32 b = left > (1u << 30) ? 1u << 30 : (u32)left;

            t = server_use(&g->egress[k->src], c->link_bw, c->link_lat,
                           g->now, b);
            left -= b;
        } while (left);
        g->ops_left++;
        push(g, t, EV_FP_INGRESS, i);
    }
}

/*
 * p2p: the L1 sends a warp's store to a line as one access (FinePack
 * §III: 32 threads coalesce into at most one 128 B access), so the first
 * of the instruction's sectors of a line to depart sends the line's
 * bytes, and the others send nothing.
 */
static void fp_p2p_line(struct gpu_core *g, u32 oi, const struct req *r)
{
    const struct dinst *d = g->memops[oi].d;
    const u64 *sect = di_sect(d);
    const u32 *masks = (const u32 *)(sect + d->nsect);
    const u64 line_mask = ~(u64)(GPU_LINE_BYTES - 1);
    u32 line[GPU_LINE_BYTES / GPU_SECTOR_BYTES] = { 0 };
    u32 si = r->sidx, i, li = 0;

    if (si >= d->nsect) {
        return;
    }
    /* The sorted list's lines in order: this sector's is number li. */
    for (i = 1; i <= si; i++) {
        li += ((sect[i] ^ sect[i - 1]) & line_mask) != 0;
    }
    if (li >= 64) {
        /* Lanes straddling lines: past 64 lines, a TLP a sector run. */
        u32 one[GPU_LINE_BYTES / GPU_SECTOR_BYTES] = { 0 };

        one[(sect[si] & (GPU_LINE_BYTES - 1)) / GPU_SECTOR_BYTES] =
            masks[si];
        gpu_fp_p2p_line(g->fp, r->src, r->home,
                        r->addr & ~(u64)(GPU_LINE_BYTES - 1), one);
        return;
    }
    if (g->memops[oi].p2p_sent & (1ULL << li)) {
        return;
    }
    g->memops[oi].p2p_sent |= 1ULL << li;
    for (i = 0; i < d->nsect; i++) {
        if (!((sect[i] ^ sect[si]) & line_mask)) {
            line[(sect[i] & (GPU_LINE_BYTES - 1)) / GPU_SECTOR_BYTES] =
                masks[i];
        }
    }
    gpu_fp_p2p_line(g->fp, r->src, r->home,
                    r->addr & ~(u64)(GPU_LINE_BYTES - 1), line);
}

/* A remote request departs: stores enter the queue (true), others flush. */
static bool fp_depart(struct gpu_core *g, u32 ri)
{
    struct req *r = &g->reqs[ri];
    const struct dinst *d;
    const u64 *sect;
    u32 oi = r->memop, i, mask = 0;

    if (r->kind != PROG_KIND_STORE) {
        gpu_fp_access(g->fp, r->src, r->home, r->addr,
                      r->kind == PROG_KIND_LOAD);
        fp_send(g);
        return false;
    }
    /*
     * Its bytes: its own sector's (sector_start() noted its index; a page
     * offset alone can match another page's sector of the instruction).
     */
    d = g->memops[oi].d;
    sect = di_sect(d);
    i = r->sidx;
    if (i < d->nsect) {
        mask = ((const u32 *)(sect + d->nsect))[i];
    }
    gpu_fp_store(g->fp, r->src, r->home, r->addr, mask);
    if (g->cfg.finepack == GPU_FP_P2P) {
        fp_p2p_line(g, oi, r);
    }
    req_put(g, ri);
    sector_done(g, oi, g->now);     /* posted: the SM is done with it */
    fp_send(g);
    return true;
}

/*
 * A fence leaves the SM as a store does, l1_lat after issue, so the
 * queue flushes behind the stores issued before it (with translation, a
 * store still waiting for its page is not covered). The kernel waits.
 */
static void fp_fence(struct gpu_core *g, u32 s)
{
    g->ops_left++;
    push(g, g->now + g->cfg.l1_lat, EV_FP_FENCE, g->sms[s].chiplet);
}

/* The kernel's work is done: true while the queues' packets are out. */
static bool fp_kernel_end(struct gpu_core *g)
{
    if (!gpu_fp_kernel_end(g->fp)) {
        return false;
    }
    fp_send(g);
    return true;
}

static void fp_event(struct gpu_core *g, const struct event *e)
{
    const struct gpu_config *c = &g->cfg;
    const struct gpu_fp_packet *k;
    u64 t = g->now, bytes = 0, sectors = 0;
    u32 wi;

    if (e->type == EV_FP_DONE) {
        g->ops_left--;
        kernel_check_end(g);
        return;
    }
    if (e->type == EV_FP_FENCE) {
        gpu_fp_fence(g->fp, e->arg);
        fp_send(g);
        g->ops_left--;
        kernel_check_end(g);
        return;
    }
    k = gpu_fp_packet(g->fp, e->arg);
    if (e->type == EV_FP_INGRESS) {
        u64 left = k->wire;

        do {
            u32 b = left > (1u << 30) ? 1u << 30 : (u32)left;

            t = server_use(&g->ingress[k->dst], c->link_bw, 0, g->now, b);
            left -= b;
        } while (left);
        push(g, t, EV_FP_L2, e->arg);
        return;
    }
    /* Each sub-packet's sectors are stores at the home L2. */
    for (wi = k->head; wi != GPU_FP_NONE; wi = gpu_fp_write(g->fp, wi)->next) {
        const struct gpu_fp_write *w = gpu_fp_write(g->fp, wi);
        u64 a = w->addr & ~31ULL, end = w->addr + w->len;

        bytes += w->len;
        for (; a < end; a += GPU_SECTOR_BYTES) {
            struct line *l = line_find(home_set(g, k->dst, a),
                                       home_ways(g), a >> 7);
            bool hit = l && (l->valid & sector_bit(a));
            u64 done = home_use(g, k->dst, g->now);
            bool through;

            if (g->cpe) {
                done += cpe_fp_home(g, k->src, k->dst, a);
            }
            through = hmg_through(g, k->dst, &done);
            sectors++;
            home_count(g, false, hit);
            if (hit) {
                l->lru = ++g->lru;
                if (!through) {
                    l->dirty |= sector_bit(a);
                }
            } else {
                u64 w = home_fill(g, k->dst, a, !through);

                done = w > done ? w : done;
            }
            t = done > t ? done : t;
        }
    }
    gpu_fp_delivered(g->fp, e->arg, bytes, sectors);
    push(g, t, EV_FP_DONE, 0);
}

/* ---- CPElide (gpu_cpelide.h) ----------------------------------------- */

static u32 *cpe_cver(struct gpu_core *g, const struct line *l, u64 addr)
{
    return &g->cver[(u64)(l - g->l2) * 4 + ((addr >> 5) & 3)];
}

/* CP crossbar cycles (at GPU_CPE_CP_MHZ) and nanoseconds in GPU cycles. */
static u64 cpe_cp(const struct gpu_core *g, u64 cp_cycles)
{
    return cp_cycles * g->cfg.clock_mhz / GPU_CPE_CP_MHZ;
}

static u64 cpe_ns(const struct gpu_core *g, u64 ns)
{
    return ns * g->cfg.clock_mhz / 1000;
}

/*
 * Sector i of chiplet c's L2 line l goes home at t: a remote line's over
 * both link ports, then into the home's L3 slice (write-allocate; a
 * dirty victim goes to DRAM). Returns when it is written.
 */
static u64 cpe_writeback(struct gpu_core *g, u32 c, struct line *l, u32 i,
                         u64 t)
{
    const struct gpu_config *cf = &g->cfg;
    struct gpu_cpelide_stats *st = gpu_cpe_stats(g->cpe);
    u64 addr = (l->tag << 7) | ((u64)i << 5), w;
    struct line *hl;

    if (l->home != c) {
        t = server_use(&g->egress[c], cf->link_bw, cf->link_lat, t,
                       GPU_SECTOR_BYTES + HDR_BYTES);
        t = server_use(&g->ingress[l->home], cf->link_bw, 0, t,
                       GPU_SECTOR_BYTES + HDR_BYTES);
    }
    hl = line_find(home_set(g, l->home, addr), g->cfg.l3_ways, addr >> 7);
    home_count(g, l->home == c, hl && (hl->valid & sector_bit(addr)));
    t = home_use(g, l->home, t);
    w = l3_fill(g, l->home, addr, true);
    t = w > t ? w : t;      /* its victim's write accepted */
    gpu_cpe_home_store(g->cpe, addr, *cpe_cver(g, l, addr));
    l->dirty &= ~(1u << i);
    st->sectors_written_back++;
    st->bytes_written_back += GPU_SECTOR_BYTES;
    return t;
}

/* A line leaves chiplet c's L2: its dirty sectors go home now. */
static void cpe_evict(struct gpu_core *g, u32 c, struct line *l)
{
    u32 i;

    for (i = 0; i < 4; i++) {
        if (l->dirty & (1u << i)) {
            cpe_writeback(g, c, l, i, g->now);
        }
    }
}

/*
 * Whether a chiplet's L2 keeps lines homed elsewhere: HMG does (§IV-C),
 * ideal does (a monolithic GPU's one L2 would, so it bounds HMG), the
 * paper's baseline "forwards remote requests to the home node" and
 * CPElide "does not cache remote reads" (§IV-C, §V-B): cpe_remote=cache
 * keeps them as before 28 November 2026.
 */
static bool cpe_caches_remote(const struct gpu_core *g)
{
    return g->cfg.cpelide == GPU_CPE_HMG || g->cfg.cpelide == GPU_CPE_IDEAL ||
           g->cfg.cpe_remote;
}

/*
 * Chiplet c's L2 takes a copy of sector addr (a present one stays), if
 * it keeps lines of home's memory at all (cpe_caches_remote()).
 */
static void cpe_copy(struct gpu_core *g, u32 c, u64 addr, u32 home,
                     bool dirty, u32 ver)
{
    struct line *set, *l;
    bool fresh;

    if (c != home && !cpe_caches_remote(g)) {
        return;
    }
    set = l2_set(g, c, addr);
    l = line_find(set, g->cfg.l2_ways, addr >> 7);
    fresh = !l;
    if (fresh) {
        l = line_victim(set, g->cfg.l2_ways);
        l2_evict(g, c, l);
    } else if ((l->valid & sector_bit(addr)) && !dirty) {
        l->lru = ++g->lru;
        return;
    }
    line_put(g, l, fresh, addr, home, dirty);
    *cpe_cver(g, l, addr) = ver;
}

/*
 * A request looks up its own chiplet's L2 first (it caches local data,
 * and remote data where cpe_caches_remote()): a load hit is served there;
 * a local store is kept there dirty (write-back, write-allocate), a
 * remote one (and every HMG store) updates a cached copy clean and is
 * written through to its home's L3 slice; an atomic drops the copy and
 * goes to the home's slice.
 */
static void cpe_local(struct gpu_core *g, u32 ri)
{
    struct req *r = &g->reqs[ri];
    const struct gpu_config *c = &g->cfg;
    struct gpu_cpelide_stats *st = gpu_cpe_stats(g->cpe);
    struct line *l = line_find(l2_set(g, r->src, r->addr), c->l2_ways,
                               r->addr >> 7);
    u8 bit = sector_bit(r->addr);
    bool hit = l && (l->valid & bit);
    bool remote = r->src != r->home;
    u64 t;

    if (g->sgroups) {
        gpu_cpe_at(g->cpe, r->src);     /* the version of its kernel */
    }
    r->looked = 1;
    if (r->kind != PROG_KIND_LOAD && r->kind != PROG_KIND_STORE) {
        /*
         * Noted as a store is: a fill of the sector still on its way
         * is older than this write, though it may reach the home later
         * (gpu_cpe_fill_stale()).
         */
        gpu_cpe_write(g->cpe, r->addr, r->src);
        if (hit) {
            if (l->dirty & bit) {
                cpe_writeback(g, r->src, l, (r->addr >> 5) & 3, g->now);
            }
            l->valid &= ~bit;
        }
        st->remote_accesses += remote;
        ev_depart(g, ri);
        return;
    }
    g->stats.l2_accesses++;
    if (remote) {
        g->stats.l2_remote++;
    } else {
        g->stats.l2_local++;
    }
    if (hit) {
        g->stats.l2_hits++;
    } else {
        g->stats.l2_misses++;
    }
    t = server_use(&g->l2s[r->src], c->l2_bw, c->l2_lat, g->now,
                   GPU_SECTOR_BYTES);
    if (r->kind == PROG_KIND_LOAD) {
        if (hit) {
            st->remote_hits += remote;
            l->lru = ++g->lru;
            r->ver = *cpe_cver(g, l, r->addr);
            gpu_cpe_read(g->cpe, r->addr, r->ver);
            r->reply = 1;
            push(g, t, EV_SM_REPLY, ri);
            return;
        }
        st->remote_misses += remote;
        st->remote_accesses += remote;
        push(g, t, EV_DEPART, ri);
        return;
    }
    gpu_cpe_write(g->cpe, r->addr, r->src);
    if (c->cpelide == GPU_CPE_HMG || remote) {
        /*
         * Written through (HMG every store; the others a remote one, as
         * the paper's baseline; with FinePack through the remote write
         * queue): the copy here takes the bytes and stays clean
         * (allocated: a load's fill still on its way keeps it), the home
         * gets them when the request (or the queue) delivers.
         */
        if (!(g->cpe_test & GPU_CPE_TEST_NO_STORE_UPDATE)) {
            cpe_copy(g, r->src, r->addr, r->home, false,
                     gpu_cpe_version(g->cpe));
            if (hit) {
                *cpe_cver(g, l, r->addr) = gpu_cpe_version(g->cpe);
            }
        }
        st->writes_through += c->cpelide == GPU_CPE_HMG;
        st->remote_accesses += remote;
        push(g, t, EV_DEPART, ri);
        return;
    }
    cpe_copy(g, r->src, r->addr, r->home, true, gpu_cpe_version(g->cpe));
    r->reply = 1;
    push(g, t, EV_SM_REPLY, ri);
}

/* HMG: chiplet s loses its copies of a directory region's lines. */
static void cpe_drop_region(struct gpu_core *g, u32 s, u64 region)
{
    struct gpu_cpelide_stats *st = gpu_cpe_stats(g->cpe);
    u64 line;

    for (line = region * GPU_CPE_DIR_LINES;
         line < (region + 1) * GPU_CPE_DIR_LINES; line++) {
        struct line *l = line_find(l2_set(g, s, line << 7), g->cfg.l2_ways,
                                   line);

        if (l && l->home != s) {
            st->dir_invalidations += __builtin_popcount(l->valid);
            l->valid = 0;
            l->dirty = 0;
        }
    }
}

/* HMG: the home invalidates sharers; a message each on its port. */
static void cpe_dir_invalidate(struct gpu_core *g, u32 home, u64 region,
                               u32 sharers)
{
    u32 s;

    for (s = 0; s < g->cfg.chiplets; s++) {
        if (sharers & (1u << s)) {
            server_use(&g->egress[home], g->cfg.link_bw, g->cfg.link_lat,
                       g->now, HDR_BYTES);
            cpe_drop_region(g, s, region);
        }
    }
}

/*
 * HMG: a write at home c's L3 slice also updates the home L2's own copy
 * of its memory (the home holds the newest value, §1.3); the home's own
 * stores updated it already. ideal does the same at no cost, so that it
 * bounds HMG too.
 */
static void cpe_home_copy(struct gpu_core *g, u32 c, u64 addr)
{
    struct line *l = line_find(l2_set(g, c, addr), g->cfg.l2_ways,
                               addr >> 7);

    if (l && (l->valid & sector_bit(addr))) {
        *cpe_cver(g, l, addr) = gpu_cpe_version(g->cpe);
    }
}

/*
 * A request at its home L3 slice: the oracle checks what a read gets and
 * records what a write puts; HMG's directory. Returns extra cycles.
 */
static u32 cpe_home(struct gpu_core *g, u32 ri)
{
    struct req *r = &g->reqs[ri];
    bool hmg = g->cfg.cpelide == GPU_CPE_HMG;
    u64 region = r->addr >> GPU_CPE_DIR_SHIFT, ev_region = 0;
    u32 ev_sharers, extra = 0;

    if (g->sgroups) {
        gpu_cpe_at(g->cpe, r->src);
    }
    if (r->kind == PROG_KIND_LOAD || r->kind == PROG_KIND_ATOMIC) {
        r->ver = gpu_cpe_home_version(g->cpe, r->addr);
        gpu_cpe_read(g->cpe, r->addr, r->ver);
    }
    if (r->kind != PROG_KIND_LOAD) {
        gpu_cpe_write(g->cpe, r->addr, r->src);
        gpu_cpe_home_store(g->cpe, r->addr, gpu_cpe_version(g->cpe));
        if (g->cfg.cpelide == GPU_CPE_IDEAL) {
            cpe_home_copy(g, r->home, r->addr);     /* as HMG's, free */
        }
    }
    if (!hmg) {
        return 0;
    }
    if (r->kind != PROG_KIND_LOAD) {
        cpe_dir_invalidate(g, r->home, region,
                           gpu_cpe_dir_write(g->cpe, r->home, region,
                                             r->src));
        cpe_home_copy(g, r->home, r->addr);
        extra = GPU_CPE_DIR_LAT;
    }
    if (r->src != r->home && r->kind != PROG_KIND_ATOMIC &&
        r->kind != PROG_KIND_REDUCTION) {
        /* A remote load's or store's chiplet keeps a copy. */
        gpu_cpe_dir_add(g->cpe, r->home, region, r->src, &ev_region,
                        &ev_sharers);
        if (ev_sharers) {
            cpe_dir_invalidate(g, r->home, ev_region, ev_sharers);
        }
        extra = GPU_CPE_DIR_LAT;
    }
    return extra;
}

/*
 * With FinePack, a remote store's sector reaches its home in a packet:
 * the home holds the running kernel's version (the queues empty before
 * a kernel ends, so it is the store's), HMG's directory acts as for a
 * store at the home. Returns extra cycles.
 */
static u32 cpe_fp_home(struct gpu_core *g, u32 src, u32 home, u64 addr)
{
    u64 region = addr >> GPU_CPE_DIR_SHIFT, ev_region = 0;
    u32 ev_sharers;

    gpu_cpe_home_store(g->cpe, addr, gpu_cpe_version(g->cpe));
    if (g->cfg.cpelide == GPU_CPE_IDEAL) {
        cpe_home_copy(g, home, addr);
    }
    if (g->cfg.cpelide != GPU_CPE_HMG) {
        return 0;
    }
    cpe_dir_invalidate(g, home, region,
                       gpu_cpe_dir_write(g->cpe, home, region, src));
    cpe_home_copy(g, home, addr);
    gpu_cpe_dir_add(g->cpe, home, region, src, &ev_region, &ev_sharers);
    if (ev_sharers) {
        cpe_dir_invalidate(g, home, ev_region, ev_sharers);
    }
    return GPU_CPE_DIR_LAT;
}

/* A load's data is back: the requester's L2 keeps a copy. */
static void cpe_fill(struct gpu_core *g, u32 ri)
{
    struct req *r = &g->reqs[ri];

    if (g->sgroups) {
        gpu_cpe_at(g->cpe, r->src);
    }
    /*
     * A write reached the home after the data left it (HMG: it
     * invalidated the copy on its way, a transient state's job; the
     * requester's own written-through store overtook it): not kept.
     */
    if (gpu_cpe_home_version(g->cpe, r->addr) > r->ver) {
        return;
    }
    /*
     * The requester's own store, still on its way home, overtook it
     * after its copy was dropped (a directory invalidation of another
     * line of the region, an eviction), or its own atomic did (it drops
     * the copy): the copy would go back in time.
     */
    if (gpu_cpe_fill_stale(g->cpe, r->addr, r->src, r->ver)) {
        return;
    }
    /*
     * HMG: the directory invalidated the region while the data was on
     * its way (the sharer bit is gone): a later write will not find it.
     */
    if (g->cfg.cpelide == GPU_CPE_HMG && r->src != r->home &&
        !gpu_cpe_dir_has(g->cpe, r->home, r->addr >> GPU_CPE_DIR_SHIFT,
                         r->src)) {
        return;
    }
    cpe_copy(g, r->src, r->addr, r->home, false, r->ver);
}

static struct line *cpe_l2_lines(struct gpu_core *g, u32 c, u64 *n)
{
    *n = (u64)g->l2_sets * g->cfg.l2_ways;
    return &g->l2[(u64)c * *n];
}

/* FLUSH of chiplet c's L2 from t: dirty sectors go home, stay clean. */
static u64 cpe_flush(struct gpu_core *g, u32 c, u64 t)
{
    u64 n, i, end = t;
    struct line *l = cpe_l2_lines(g, c, &n);
    u32 k;

    for (i = 0; i < n; i++) {
        if (!l[i].valid || !l[i].dirty) {
            continue;
        }
        for (k = 0; k < 4; k++) {
            if (l[i].dirty & (1u << k)) {
                u64 e = cpe_writeback(g, c, &l[i], k, t);

                end = e > end ? e : end;
            }
        }
    }
    return end + (u64)g->l2_sets * GPU_CPE_WALK_PER_SET +
           2 * cpe_cp(g, GPU_CPE_XBAR_UNICAST);
}

/* INV of chiplet c's L2 from t: clean sectors go, dirty stay (A3). */
static u64 cpe_invalidate(struct gpu_core *g, u32 c, u64 t)
{
    struct gpu_cpelide_stats *st = gpu_cpe_stats(g->cpe);
    u64 n, i;
    struct line *l = cpe_l2_lines(g, c, &n);

    for (i = 0; i < n; i++) {
        if (l[i].valid) {
            st->sectors_invalidated +=
                __builtin_popcount(l[i].valid & ~l[i].dirty);
            l[i].valid = l[i].dirty;
        }
    }
    return t + GPU_CPE_FLASH_INVALIDATE + 2 * cpe_cp(g, GPU_CPE_XBAR_UNICAST);
}

/* The operations of one decision from t, chiplets in parallel: the end. */
static u64 cpe_sync(struct gpu_core *g, const struct gpu_cpe_sync *s, u64 t)
{
    struct gpu_cpelide_stats *st = gpu_cpe_stats(g->cpe);
    u64 end = t;
    u32 c;

    for (c = 0; c < g->cfg.chiplets; c++) {
        bool inv = s->inv >> c & 1, fl = s->flush >> c & 1;
        bool first = s->flush_first >> c & 1;
        u64 tc = t;

        st->l2_invalidates += inv;
        st->l2_flushes += fl;
        if (g->cpe_test & GPU_CPE_TEST_NO_INVALIDATE) {
            inv = false;
        }
        if (g->cpe_test & GPU_CPE_TEST_NO_FLUSH) {
            fl = false;
        }
        if (fl && first) {
            tc = cpe_flush(g, c, tc);
        }
        if (inv) {
            tc = cpe_invalidate(g, c, tc);
        }
        if (fl && !first) {
            tc = cpe_flush(g, c, tc);
        }
        end = tc > end ? tc : end;
    }
    return end;
}

/*
 * ideal: an oracle writes every dirty sector into its home's L3 slice
 * and drops every copy older than the newest write, at no cost in time
 * or traffic (as one monolithic L2 would hold the data).
 */
static void cpe_ideal(struct gpu_core *g)
{
    u64 n, i;
    u32 c, k;

    for (c = 0; c < g->cfg.chiplets; c++) {
        struct line *l = cpe_l2_lines(g, c, &n);

        for (i = 0; i < n; i++) {
            if (!l[i].valid) {
                continue;
            }
            for (k = 0; k < 4; k++) {
                u64 a = (l[i].tag << 7) | ((u64)k << 5);
                u32 ver = *cpe_cver(g, &l[i], a);

                if (l[i].dirty & (1u << k)) {
                    gpu_cpe_home_store(g->cpe, a, ver);
                    l[i].dirty &= ~(1u << k);
                    l3_fill(g, l[i].home, a, true);
                } else if ((l[i].valid & (1u << k)) &&
                           ver < gpu_cpe_golden(g->cpe, a)) {
                    l[i].valid &= ~(1u << k);
                }
            }
        }
    }
}

/*
 * A kernel is about to start: every L1 is invalidated, the CP decides
 * the L2 operations and the kernel waits for them and for the launch
 * enable. Returns the cycle its blocks start.
 */
static u64 cpe_launch(struct gpu_core *g)
{
    struct gpu_cpelide_stats *st = gpu_cpe_stats(g->cpe);
    struct gpu_cpe_sync s;
    u64 i, t, end, cp = cpe_ns(g, GPU_CPE_CP_LAUNCH_NS);
    bool first = !st->kernels;

    for (i = 0; i < (u64)g->nsms * (g->cfg.l1_size / GPU_LINE_BYTES); i++) {
        g->l1[i].valid = 0;
    }
    if (g->sgroups) {
        s_cpe_launch(g, &s);
    } else {
        gpu_cpe_launch(g->cpe, g->ndblocks, g->cfg.tb_sched, &s);
    }
    if (gpu_cpe_oom(g->cpe)) {
        fail_str(g, -ENOMEM, "out of memory for CPElide's table");
        return g->now;
    }
    if (g->cfg.cpelide == GPU_CPE_CPELIDE && first) {
        cp += cpe_ns(g, GPU_CPE_CP_ELIDE_NS);
    }
    if (g->cfg.cpelide == GPU_CPE_IDEAL) {
        cpe_ideal(g);
    }
    t = g->now + cp;
    end = cpe_sync(g, &s, t) + cpe_cp(g, GPU_CPE_XBAR_BROADCAST);
    st->cp_cycles += cp;
    st->sync_cycles += end - t;
    return end;
}

/* The program's end: the final releases; the run ends when they are done. */
static void cpe_end(struct gpu_core *g)
{
    struct gpu_cpe_sync s;
    u64 end;

    gpu_cpe_end(g->cpe, &s);
    if (g->cfg.cpelide == GPU_CPE_IDEAL) {
        cpe_ideal(g);
    }
    if (!s.inv && !s.flush) {
        return;
    }
    end = cpe_sync(g, &s, g->now);
    gpu_cpe_stats(g->cpe)->sync_cycles += end - g->now;
    if (end > g->last_cycle) {
        g->last_cycle = end;
    }
}

/* ---- ADSM (gpu_adsm.h) ----------------------------------------------- */

static int adsm_fail(struct gpu_core *g, int err, const char *what)
{
    const struct prog_copy *cp = &g->rec.copy;
    struct msg m;

    if (gpu_adsm_oom(g->adsm)) {
        return fail_str(g, -ENOMEM, "out of memory for ADSM's objects");
    }
    m_begin(g, &m);
    m_str(&m, "ADSM: copy ");
    m_str(&m, cp->dir == PROG_COPY_H2D ? "h2d 0x" : "d2h 0x");
    m_num(&m, cp->base, 16);
    m_str(&m, " +");
    m_num(&m, cp->bytes, 10);
    m_str(&m, ": ");
    m_str(&m, what);
    return fail(g, err);
}

/*
 * An OBJECT (adsmAlloc) or a COPY record: with cfg.adsm the CPU's access
 * to each object the range covers, else an explicit copy.
 */
static int adsm_record(struct gpu_core *g)
{
    const struct prog_copy *cp = &g->rec.copy;
    bool h2d = cp->dir == PROG_COPY_H2D;
    u64 addr = cp->base, end = cp->base + cp->bytes;
    int ret;

    if (g->rec.type == PROG_REC_OBJECT) {
        ret = gpu_adsm_object(g->adsm, g->nobjs - 1, g->rec.object.size);
        return ret ? adsm_fail(g, ret, "") : 0;
    }
    gpu_adsm_copy(g->adsm, cp->bytes, h2d);
    while (g->cfg.adsm && addr < end) {
        struct gpu_object *o = obj_lookup(g, addr);
        u64 off, n;

        if (!o) {
            return adsm_fail(g, -EINVAL, "a byte in no object");
        }
        off = addr - o->base;
        n = o->size - off < end - addr ? o->size - off : end - addr;
        ret = gpu_adsm_cpu(g->adsm, o->index, off, n, h2d);
        if (ret) {
            return adsm_fail(g, ret, "the protocol refused it");
        }
        addr += n;
    }
    if (gpu_adsm_host(g->adsm) > g->last_cycle) {
        g->last_cycle = gpu_adsm_host(g->adsm);
    }
    return 0;
}

/*
 * A launch (the release) when the host is done with what came before: the
 * kernel's start is then, its blocks wait for the returned cycle.
 */
static u64 adsm_launch(struct gpu_core *g)
{
    u64 t;
    int ret = gpu_adsm_launch(g->adsm, g->now, &g->kstart, &t);

    if (ret) {
        fail_str(g, ret, "ADSM: a launch's transfers failed");
        return g->now;
    }
    return t;
}

/* The kernel ended: its completion and the host's sync (the acquire). */
static void adsm_kernel_end(struct gpu_core *g)
{
    if (gpu_adsm_kernel_end(g->adsm, g->kstart, g->kend)) {
        fail_str(g, -EIO, "ADSM: a sync's transfers failed");
        return;
    }
    if (gpu_adsm_host(g->adsm) > g->last_cycle) {
        g->last_cycle = gpu_adsm_host(g->adsm);
    }
}

/* The program's end: the host's last work counts. */
static void adsm_end(struct gpu_core *g)
{
    if (gpu_adsm_host(g->adsm) > g->last_cycle) {
        g->last_cycle = gpu_adsm_host(g->adsm);
    }
}

void gpu_core_cpelide_test(struct gpu_core *g, u32 knobs)
{
    g->cpe_test = knobs;
}

/* ---- CXL-GPU (gpu_cxl.h) ---------------------------------------------- */

/*
 * A model beside the core (the root complex, UVM's servicer) whose next
 * event is at next: an event of type ev then, unless *at (its pending
 * one) comes first. err: the model's call failed.
 */
static void model_kick(struct gpu_core *g, int err, const char *what,
                       u64 next, u64 *at, u32 ev)
{
    if (err) {
        fail_str(g, err, what);
        return;
    }
    if (next == NEVER) {
        return;
    }
    next = next > g->now ? next : g->now;
    if (next < *at || *at < g->now) {
        *at = next;
        push(g, next, ev, 0);
    }
}

/* The root complex's next event gets an EV_CXL unless one comes first. */
static void cxl_kick(struct gpu_core *g, int err)
{
    model_kick(g, err, "out of memory for CXL requests",
               err ? NEVER : gpu_cxl_next(g->cx), &g->cxl_at, EV_CXL);
}

/* A CXL load's data is at the L2 at cycle: it fills there. */
static void cxl_done(void *core, u32 ri, u64 cycle)
{
    struct gpu_core *g = core;

    push(g, cycle > g->now ? cycle : g->now, EV_FILL, ri);
}

/* An L2 miss to CXL memory: the root complex serves it, not DRAM. */
static void cxl_load(struct gpu_core *g, u32 ri)
{
    cxl_kick(g, gpu_cxl_load(g->cx, g->now, g->reqs[ri].addr, ri));
}

/* A CXL line filled into the L2: its write-back goes to CXL too. */
static void cxl_mark(struct gpu_core *g, u32 ri)
{
    const struct req *r = &g->reqs[ri];
    struct line *l = line_find(l2_set(g, r->home, r->addr), g->cfg.l2_ways,
                               r->addr >> 7);

    if (l) {
        l->cxl = 1;
    }
}

/* One 64 B store a half line with a dirty sector. */
static void cxl_writeback(struct gpu_core *g, struct line *l)
{
    u32 h;
    int err = 0;

    g->stats.l2_writebacks += __builtin_popcount(l->dirty);
    for (h = 0; h < 2 && !err; h++) {
        if (l->dirty & (3u << (2 * h))) {
            err = gpu_cxl_store(g->cx, g->now, (l->tag << 7) | (h * 64));
        }
    }
    cxl_kick(g, err);
}

static void cxl_event(struct gpu_core *g, u64 cycle)
{
    if (cycle == g->cxl_at) {
        g->cxl_at = NEVER;
    }
    cxl_kick(g, gpu_cxl_run(g->cx, cycle));
}

/* ---- end of CXL-GPU ---------------------------------------------------- */

/* ---- Migration (ACUD; docs/gpu.md, Migration (ACUD) in the core) ------ */

/* A page whose translations were shot down: answers wait until ready. */
struct mig_hold {
    u64 vpn, ready;
};

/* Page vpn's new translation is usable from ready on. */
static void mig_hold_add(struct gpu_core *g, u64 vpn, u64 ready)
{
    u32 i, n = 0;

    /* Drop the holds that ended: a migration is rare, the list short. */
    for (i = 0; i < g->mig_nhold; i++) {
        if (g->mig_hold[i].ready > g->now) {
            g->mig_hold[n++] = g->mig_hold[i];
        }
    }
    g->mig_nhold = n;
    if (grow(g, (void **)&g->mig_hold, &g->mig_caphold,
             sizeof(*g->mig_hold), (u64)n + 1)) {
        fail_str(g, -ENOMEM, "out of memory for migrations");
        return;
    }
    g->mig_hold[n].vpn = vpn;
    g->mig_hold[n].ready = ready;
    g->mig_nhold++;
}

/*
 * Every translation of vpn goes: the L1 TLB of every SM, the L2 TLB of
 * every chiplet (and F-Barre's copy of it), and the MSHRs already asking
 * are marked, so that their answer is asked again.
 */
static void mig_shoot(struct gpu_core *g, u64 vpn)
{
    const struct gpu_config *c = &g->cfg;
    struct gpu_core_migrate_stats *st = &g->stats.migrate;
    u64 s, i;
    struct tlb_entry *e;

    st->shootdowns++;
    for (s = 0; s < g->nsms; s++) {
        e = tlb_find(l1t_set(g, (u32)s, vpn), c->l1_tlb_ways, vpn);
        if (e) {
            e->valid = 0;
            st->tlb_entries_shot++;
        }
    }
    for (s = 0; s < c->chiplets; s++) {
        e = tlb_find(l2t_set(g, (u32)s, vpn), c->l2_tlb_ways, vpn);
        if (e) {
            e->valid = 0;
            st->tlb_entries_shot++;
            if (g->fb) {
                g->fb->l2[e - g->l2t].pte = 0;
            }
        }
    }
    for (i = 0; i < (u64)c->chiplets * c->l2_tlb_mshrs; i++) {
        if (g->l2m[i].busy && g->l2m[i].vpn == vpn) {
            g->l2m[i].mig_stale = 1;
        }
    }
}

/*
 * ACUD: SM s's translated access to page vpn (frame pfn). A remote one
 * counts for s's chiplet; the threshold-th from one chiplet moves the
 * page there. This access has its translation already and goes to the
 * old home; the next ones miss and find the new frame.
 */
static void mig_access(struct gpu_core *g, u32 s, u64 vpn, u64 pfn)
{
    const struct gpu_config *c = &g->cfg;
    struct gpu_core_migrate_stats *st = &g->stats.migrate;
    u32 ch = g->sms[s].chiplet, n = 0;
    u64 home = pfn / g->frames, vpns[GPU_MIG_PAGES_MAX], npfn = pfn, t, shot;
    u8 *cnt;
    int ret;

    if (home == ch || home >= c->chiplets) {
        return;
    }
    st->remote_accesses++;
    cnt = &g->mig_count[pfn * c->chiplets + ch];
    if (++*cnt < c->migrate_threshold) {
        return;
    }
    *cnt = 0;
    ret = g->ops->migrate(g->priv, vpn, ch, &npfn, vpns, &n);
    if (ret == -ENOMEM) {
        st->refused++;
        return;
    }
    if (ret == -ESTALE) {
        return;         /* counted on a frame the page has left */
    }
    if (ret || n > GPU_MIG_PAGES_MAX || npfn / g->frames != ch) {
        fail_str(g, ret ? ret : -EINVAL, "the page migration failed");
        return;
    }
    /* The new frame starts with no count; the old one is free now. */
    memset(&g->mig_count[npfn * c->chiplets], 0, c->chiplets);
    memset(&g->mig_count[pfn * c->chiplets], 0, c->chiplets);
    st->migrations++;
    st->migrated_bytes += (1u << GPU_PAGE_SHIFT);
    /* The copy: the old home's DRAM, its link port, ch's port and DRAM. */
    t = server_use(&g->drams[home], c->dram_bw, c->dram_lat, g->now,
                   (1u << GPU_PAGE_SHIFT));
    t = server_use(&g->egress[home], c->link_bw, c->link_lat, t,
                   (1u << GPU_PAGE_SHIFT) + HDR_BYTES);
    t = server_use(&g->ingress[ch], c->link_bw, 0, t,
                   (1u << GPU_PAGE_SHIFT) + HDR_BYTES);
    t = server_use(&g->drams[ch], c->dram_bw, c->dram_lat, t,
                   (1u << GPU_PAGE_SHIFT));
    /*
     * The shootdown: the driver is told and its invalidation comes back.
     * Only the page's translations go: its group mates keep their frames
     * (their PTEs lost a bitmap bit, which walks read from memory); under
     * F-Barre their TLB entries' bits are stale, but the filters' reset
     * (§VI) leaves no filter naming them, so no in-package answer is
     * computed from them (docs/gpu.md, Migration (ACUD) in the core).
     */
    shot = g->now + 2 * (u64)c->pcie_lat;
    st->group_ptes += n - 1;
    mig_shoot(g, vpn);
    mig_hold_add(g, vpn, t > shot ? t : shot);
    if (g->fb) {
        fbarre_reset_filters(&g->fb->fb);
    }
}

/*
 * An ATS answer for MSHR mi: asked before its page's shootdown, it is
 * asked again; for a page whose copy or shootdown is still on, it waits.
 * True: held (the fill is not done now).
 */
static bool mig_fill_held(struct gpu_core *g, u32 mi)
{
    struct tlb_mshr *m = &g->l2m[mi];
    struct gpu_core_migrate_stats *st = &g->stats.migrate;
    u32 i;

    if (m->mig_stale) {
        st->stale_fills++;
        if (!m->in_package) {
            g->stats.ats_replies++;
            g->stats.ats_round_trip += m->arrive - m->issue;
        }
        m->mig_stale = 0;
        m->answered = m->sent = m->in_package = m->fault = 0;
        m->tag = ++g->next_tag;
        push(g, g->now, EV_ATS_SEND, mi);
        return true;
    }
    for (i = 0; i < g->mig_nhold; i++) {
        if (g->mig_hold[i].vpn == m->vpn && g->mig_hold[i].ready > g->now) {
            struct event fill = {
                .cycle = g->mig_hold[i].ready, .key = FILL_KEY_BIT | m->tag,
                .type = EV_ATS_FILL, .arg = mi,
            };

            st->held_fills++;
            heap_push(g, &g->fills, &fill);
            return true;
        }
    }
    return false;
}

/* ---- UVM and GDS (gpu_uvm.h) ------------------------------------------ */

/* The servicer's next batch start or end gets an EV_UVM. */
static void uvm_kick(struct gpu_core *g, int err)
{
    model_kick(g, err, "out of memory for UVM faults",
               err ? NEVER : gpu_uvm_next(g->uvm), &g->uvm_at, EV_UVM);
}

/*
 * The memop's sectors, page by page (runs of one page): a page in GPU
 * memory goes on, one not there faults and its run waits (an xl).
 */
static void uvm_issue(struct gpu_core *g, u32 s, u32 oi, const u64 *sect,
                      u32 n, u32 kind)
{
    u32 shift = gpu_uvm_page_shift(g->uvm), i = 0;
    bool write = kind != PROG_KIND_LOAD;

    while (i < n && !g->err) {
        u64 page = sect[i] >> shift;
        u32 j = i, xi;
        int in;

        while (j < n && (sect[j] >> shift) == page) {
            j++;
        }
        xi = xl_get(g);
        if (xi == NONE) {
            fail_str(g, -ENOMEM, "out of memory for UVM faults");
            return;
        }
        in = gpu_uvm_access(g->uvm, g->now, sect[i] & ~31ULL, write, xi);
        if (in < 0) {
            xl_put(g, xi);
            uvm_kick(g, in);
            return;
        }
        if (in) {
            xl_put(g, xi);
            global_sectors(g, s, oi, &sect[i], j - i, kind);
        } else {
            struct xl *x = &g->xls[xi];

            x->sect = &sect[i];
            x->nsect = j - i;
            x->memop = oi;
            x->sm = s;
            x->kind = (u8)kind;
            x->next = NONE;
            g->memops[oi].nxlate++;     /* waits as for a translation */
        }
        i = j;
    }
    uvm_kick(g, 0);
}

/* A faulted run's page is in GPU memory now: its sectors go. */
static void uvm_wake(void *core, u32 xi)
{
    struct gpu_core *g = core;
    struct xl x = g->xls[xi];

    xl_put(g, xi);
    sm_touch(g, x.sm);
    g->memops[x.memop].nxlate--;
    global_sectors(g, x.sm, x.memop, x.sect, x.nsect, x.kind);
}

static void uvm_event(struct gpu_core *g, u64 cycle)
{
    if (cycle == g->uvm_at) {
        g->uvm_at = NEVER;
    }
    uvm_kick(g, gpu_uvm_run(g->uvm, cycle));
}

/* ---- end of UVM and GDS ------------------------------------------------ */

static void dispatch_event(struct gpu_core *g, const struct event *e)
{
    switch (e->type) {
    case EV_SM:
        ev_sm(g, e->arg);
        break;
    case EV_OPDONE:
        memop_done(g, e->arg);
        break;
    case EV_XL_L2:
        xl_l2(g, e->arg, false);
        break;
    case EV_XL_DATA:
        xl_data(g, e->arg);
        break;
    case EV_ATS_SEND:
        ev_ats_send(g, e->arg);
        break;
    case EV_ATS_FILL:
        ev_ats_fill(g, e->arg);
        break;
    case EV_DEPART:
    case EV_REPLY:
        ev_depart(g, e->arg);
        break;
    case EV_INGRESS:
        ev_ingress(g, e->arg);
        break;
    case EV_L2:
        ev_l2(g, e->arg);
        break;
    case EV_DRAM:
        ev_dram(g, e->arg);
        break;
    case EV_FILL:
        ev_fill(g, e->arg);
        break;
    case EV_SM_REPLY:
        ev_sm_reply(g, e->arg);
        break;
    case EV_FP_INGRESS:
    case EV_FP_L2:
    case EV_FP_DONE:
    case EV_FP_FENCE:
        fp_event(g, e);
        break;
    case EV_CPE_LAUNCH:
        if (g->sgroups) {
            s_dispatch(g, e->arg);
            break;
        }
        g->ops_left--;
        kernel_dispatch(g);
        break;
    case EV_ADSM_LAUNCH:
        g->ops_left--;
        kernel_start(g);
        break;
    case EV_CXL:
        cxl_event(g, e->cycle);
        break;
    case EV_XLS:
        ev_xls(g, e->arg);
        break;
    case EV_UVM:
        uvm_event(g, e->cycle);
        break;
    }
}

/* The program ended: every SM's cycles counted to the last one. */
static void finish(struct gpu_core *g)
{
    u32 s;

    g->done = true;
    for (s = 0; s < g->nsms; s++) {
        sm_account(g, s, g->last_cycle);
    }
    if (g->cx) {
        gpu_cxl_drain(g->cx);   /* CXL-GPU: its counters complete */
    }
}

int gpu_core_run(struct gpu_core *g, u64 until)
{
    struct event e;
    u64 c;

    if (g->err) {
        return g->err;
    }
    while (!g->done) {
        /* Valkyrie: every prefetch answered before the end (its ATS). */
        if (g->prog_end && !g->prefetching) {
            finish(g);
            break;
        }
        if (g->sgroups) {
            if (s_ready(g)) {
                if (s_read(g)) {
                    return g->err;
                }
                continue;
            }
        } else if (!g->kactive && !g->prog_end) {
            g->now = g->kend;
            if (read_next(g)) {
                return g->err;
            }
            continue;   /* a kernel with nothing in it ends at once */
        }
        c = queue_next(g);
        if (c == NEVER || c >= until) {
            break;
        }
        queue_pop(g, c, &e);
        g->now = e.cycle;
        if (e.type == EV_SM && g->sms[e.arg].sched_at != e.cycle) {
            continue;   /* superseded */
        }
        if (e.cycle > g->last_cycle && !g->prog_end) {
            g->last_cycle = e.cycle;    /* not Valkyrie's last fills */
        }
        dispatch_event(g, &e);
        if (g->err) {
            return g->err;
        }
    }
    if (until > g->now) {
        g->now = until;
    }
    return 0;
}

u64 gpu_core_now(const struct gpu_core *g)
{
    return g->now;
}

u64 gpu_core_next_event(const struct gpu_core *g)
{
    if (g->err || g->done) {
        return NEVER;
    }
    if (g->sgroups ? s_ready(g) : !g->kactive && !g->prog_end) {
        return g->now;
    }
    return queue_next(g);
}

bool gpu_core_done(const struct gpu_core *g)
{
    return g->done;
}

int gpu_core_deliver(struct gpu_core *g, const struct chiplet_tlb_reply *r)
{
    u64 i, n;
    struct msg m;

    if (g->err) {
        return g->err;
    }
    n = g->l2m ? (u64)g->cfg.chiplets * g->cfg.l2_tlb_mshrs : 0;
    for (i = 0; i < n; i++) {
        struct tlb_mshr *mh = &g->l2m[i];

        if (mh->busy && mh->sent && !mh->answered && mh->tag == r->tag) {
            break;
        }
    }
    if (i == n) {
        m_begin(g, &m);
        m_str(&m, "ATS reply: tag ");
        m_num(&m, r->tag, 10);
        m_str(&m, " was never sent or was already answered");
        return fail(g, -EINVAL);
    }
    if (r->arrive < g->now) {
        m_begin(g, &m);
        m_str(&m, "ATS reply: tag ");
        m_num(&m, r->tag, 10);
        m_str(&m, " arrives at cycle ");
        m_num(&m, r->arrive, 10);
        m_str(&m, ", before the current cycle ");
        m_num(&m, g->now, 10);
        return fail(g, -EINVAL);
    }
    g->l2m[i].answered = 1;
    g->l2m[i].arrive = r->arrive;
    g->l2m[i].pfn = r->pfn;
    g->l2m[i].fault = r->fault ? 1 : 0;
    if (g->fb) {
        gpu_fbarre_reply(g->fb, (u32)i, r);
    }
    {
        struct event e = {
            .cycle = r->arrive, .key = FILL_KEY_BIT | r->tag,
            .type = EV_ATS_FILL, .arg = (u32)i,
        };

        heap_push(g, &g->fills, &e);
    }
    return g->err;
}

static void queue_add(struct gpu_queue_stats *to,
                      const struct gpu_queue_stats *s)
{
    to->requests += s->requests;
    to->bytes += s->bytes;
    to->busy_cycles += s->busy_cycles;
    to->wait_cycles += s->wait_cycles;
    if (s->max_wait > to->max_wait) {
        to->max_wait = s->max_wait;
    }
}

void gpu_core_stats(const struct gpu_core *g, struct gpu_core_stats *st)
{
    u32 c;

    *st = g->stats;
    st->cycles = g->last_cycle;
    memset(&st->link, 0, sizeof(st->link));
    memset(&st->l2, 0, sizeof(st->l2));
    memset(&st->dram, 0, sizeof(st->dram));
    for (c = 0; g->chip && c < g->cfg.chiplets; c++) {
        queue_add(&st->link, &g->egress[c].st);
        queue_add(&st->link, &g->ingress[c].st);
        queue_add(&st->l2, &g->l2s[c].st);
        queue_add(&st->dram, &g->drams[c].st);
    }
    if (g->fb) {
        gpu_fbarre_export(g->fb, g->stats.ats_requests, &st->fbarre);
    }
    if (g->fp) {
        gpu_fp_stats(g->fp, &st->finepack);
    }
    if (g->cx) {
        gpu_cxl_stats(g->cx, &st->cxl);
    }
    if (g->uvm) {
        gpu_uvm_stats(g->uvm, &st->uvm);
    }
    if (g->cpe) {
        struct gpu_cpelide_stats *c = &st->cpelide;

        *c = *gpu_cpe_stats(g->cpe);
        c->elided_invalidates = c->baseline_invalidates > c->l2_invalidates ?
                                c->baseline_invalidates - c->l2_invalidates : 0;
        c->elided_flushes = c->baseline_flushes > c->l2_flushes ?
                            c->baseline_flushes - c->l2_flushes : 0;
    }
    if (g->adsm) {
        gpu_adsm_stats(g->adsm, &st->adsm);
    }
}

const char *gpu_core_error(const struct gpu_core *g)
{
    return g->errmsg;
}
