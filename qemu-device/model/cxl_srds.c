/*
 * CXL-GPU speculative read and deterministic store: the model (see
 * cxl_srds.h for what it does and the decisions behind it).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "cxl_srds.h"
#include "cxl_hdm.h"

#define PS_PER_NS           1000ULL
#define ISSUE_PS            1000ULL         /* the LLC issues 1 line a ns */
#define FLIT_PS             2100ULL         /* 68 B at x8 32 GT/s */
#define GPU_DRAM_PS         50000ULL        /* local GPU memory [A] */
#define SR_QUEUE            32              /* paper §III */
#define MEM_QUEUE           32
#define RING                32              /* [A] */
#define SECTOR              256ULL
#define PAGE                4096ULL
#define SECTORS_PER_PAGE    (PAGE / SECTOR)
#define EP_DISPATCH_PS      1000ULL
#define EP_CHANNELS         32              /* media dies [A] */
#define EP_INGRESS_LEVEL    8               /* DevLoad steps [A] */
#define SSD_DRAM_BYTES      (2ULL << 20)
#define SSD_SECTORS         (SSD_DRAM_BYTES / SECTOR)
#define SSD_DIRTY_MAX       1024
#define SSD_FREE_PAGES      (SSD_GC_FREE + 512) /* an aged drive near GC [A] */
#define SSD_GC_FREE         256             /* free pages that start GC */
#define SSD_GC_NOTICE_PS    20000000ULL     /* DevLoad so this long before */
#define SSD_GC_RECLAIM      512
#define DRAM_BURST_PS       2000ULL         /* a channel per 64 B */
#define SECTOR_XFER_PS      256000ULL       /* 256 B at 1 GB/s a channel [A] */
#define DS_LINES            65536
#define DS_FLUSH_INFLIGHT   8               /* memory queue / 4 [A] */
#define DS_POLL_PS          1000000ULL
#define POOL_PER_PORT       512
#define MAX_COMPUTE_NS      1000000

enum { DL_LL, DL_OL, DL_MO, DL_SO };

/* [A], notes cxlgpu.md §5.1.10: DDR5 and the datasheet class of each SSD. */
static const struct {
    u64 dram_ps;        /* the DRAM EP's media, or an SSD's internal DRAM */
    u64 read_ps;        /* media read (tR); 0 for a DRAM endpoint */
    u64 program_ps;     /* one page */
    u64 gc_ps;          /* one garbage collection; 0: none (wear-levels) */
} srds_media[MCMGPU_CXL_MEDIA_TYPES] = {
    [MCMGPU_CXL_MEDIA_DRAM] = { 46000, 0, 0, 0 },
    [MCMGPU_CXL_MEDIA_OPTANE] = { 46000, 5000000, 5000000, 0 },
    [MCMGPU_CXL_MEDIA_ZNAND] = { 46000, 3000000, 100000000, 2000000000 },
    [MCMGPU_CXL_MEDIA_NAND] = { 46000, 50000000, 600000000, 5000000000 },
};

enum { REQ_LOAD, REQ_STORE, REQ_SPEC, REQ_FLUSH };
enum { EV_ISSUE, EV_EP_ARRIVE, EV_EP_DISPATCH, EV_RESP, EV_POLL };

struct req {
    u64 line;           /* HPA offset of the line (or SpecRd start) */
    u64 dpa;
    u64 t_issue;
    u64 tag;            /* srds_submit()'s, for the completion */
    u32 port;
    u32 next;           /* ingress FIFO / free list */
    u16 sectors;        /* SpecRd length */
    u8 kind;
    u8 spec_done;
};

struct event {
    u64 t;
    u64 seq;
    u32 type;
    u32 arg;
};

/* An SSD's internal DRAM: 256 B sectors in an LRU list, hashed. */
struct cache {
    u64 *key;           /* sector number + 1; 0 = empty slot */
    u64 *ready;         /* when its fill completes */
    u32 *prev, *next;   /* LRU, by slot; head = most recent */
    u8 *dirty;
    u32 head, tail, used, slots;
};

struct ep {
    u32 media;
    u64 chan_free[EP_CHANNELS];
    u64 open_page[EP_CHANNELS];     /* in the die's page register, + 1 */
    u64 ctrl_free;
    u32 in_head, in_tail, in_len;   /* ingress FIFO of reqs */
    bool dispatching;
    struct cache c;
    u64 *dirty_fifo;                /* sectors in the order they dirtied */
    u32 df_head, df_len;
    u32 dirty;                      /* dirty sectors not yet programmed */
    u64 *prog_done;                 /* programs in flight: their ends */
    u32 prog_len;
    u32 prog_sectors[64];
    u64 free_pages;
    u64 gc_end;
};

struct port {
    u32 srq[SR_QUEUE];
    u32 srq_head, srq_len;
    u32 memq[MEM_QUEUE];            /* reqs awaiting a response */
    u32 memq_len;
    u64 ring_start[RING], ring_end[RING];
    u32 ring_next;
    u32 gran;
    bool halted;
    u64 link_up, link_down;         /* when each direction is free */
    /* DS */
    bool suspended, write_out, polling;
    u32 flush_out;
    u64 *ds_key;                    /* staged lines, hashed (line + 1) */
    u64 *ds_fifo;                   /* the lines in staging order */
    u32 ds_head, ds_len;
};

struct srds {
    const struct srds_config *cfg;
    const struct mcmgpu_cxl_record *rec;
    u64 n, next_rec;
    struct mcmgpu_cxl_sim_result *res;
    u64 ctrl_half;
    bool gpu_blocked;
    struct port port[SRDS_MAX_PORTS];
    struct ep ep[SRDS_MAX_PORTS];
    struct req *req;
    u32 nreq, free_req;
    struct event *heap;
    u32 heap_len, heap_cap;
    u64 seq, now;
    srds_done_fn done;  /* incremental: completions go here */
    void *done_priv;
    srds_probe_fn probe;        /* an observer (srds_probe()), or NULL */
    void *probe_priv;
    u64 ds_held;                /* staged lines over every port */
};

static void probe(struct srds *s, u32 what, u64 t, u64 a, u64 b)
{
    if (s->probe) {
        s->probe(s->probe_priv, what, t, a, b);
    }
}

/* ---- Memory ------------------------------------------------------------ */

struct carve {
    u8 *p;
    u64 used;
};

static void *take(struct carve *c, u64 bytes)
{
    void *p = c->p ? c->p + c->used : NULL;

    c->used += (bytes + 7) & ~7ULL;
    return p;
}

static bool is_ssd(const struct srds_config *cfg, u32 p)
{
    return !cfg->sim.local && cfg->media[p] != MCMGPU_CXL_MEDIA_DRAM;
}

static void carve_all(struct srds *s, const struct srds_config *cfg,
                      struct carve *c)
{
    u32 p, slots = 2 * SSD_SECTORS;

    s->nreq = POOL_PER_PORT * cfg->ports;
    s->heap_cap = 2 * s->nreq + 2 * cfg->ports + 8;
    s->req = take(c, sizeof(*s->req) * s->nreq);
    s->heap = take(c, sizeof(*s->heap) * s->heap_cap);
    for (p = 0; p < cfg->ports; p++) {
        struct ep *e = &s->ep[p];
        struct port *pt = &s->port[p];

        if (is_ssd(cfg, p)) {
            e->c.slots = slots;
            e->c.key = take(c, sizeof(u64) * slots);
            e->c.ready = take(c, sizeof(u64) * slots);
            e->c.prev = take(c, sizeof(u32) * slots);
            e->c.next = take(c, sizeof(u32) * slots);
            e->c.dirty = take(c, slots);
            e->dirty_fifo = take(c, sizeof(u64) * (SSD_DIRTY_MAX + 64));
            e->prog_done = take(c, sizeof(u64) * 64);
            if (cfg->sim.ds) {
                pt->ds_key = take(c, sizeof(u64) * 2 * DS_LINES);
                pt->ds_fifo = take(c, sizeof(u64) * DS_LINES);
            }
        }
    }
}

u64 srds_state_size(const struct srds_config *cfg)
{
    struct srds s;
    struct carve c = { NULL, sizeof(struct srds) };

    memset(&s, 0, sizeof(s));
    carve_all(&s, cfg, &c);
    return c.used;
}

/* ---- Events ------------------------------------------------------------ */

static bool ev_less(const struct event *a, const struct event *b)
{
    return a->t < b->t || (a->t == b->t && a->seq < b->seq);
}

static void ev_push(struct srds *s, u64 t, u32 type, u32 arg)
{
    u32 i = s->heap_len++;

    s->heap[i] = (struct event){ t, s->seq++, type, arg };
    while (i && ev_less(&s->heap[i], &s->heap[(i - 1) / 2])) {
        struct event tmp = s->heap[i];

        s->heap[i] = s->heap[(i - 1) / 2];
        s->heap[(i - 1) / 2] = tmp;
        i = (i - 1) / 2;
    }
}

static struct event ev_pop(struct srds *s)
{
    struct event top = s->heap[0];
    u32 i = 0;

    s->heap[0] = s->heap[--s->heap_len];
    for (;;) {
        u32 l = 2 * i + 1, r = l + 1, m = i;
        struct event tmp;

        if (l < s->heap_len && ev_less(&s->heap[l], &s->heap[m])) {
            m = l;
        }
        if (r < s->heap_len && ev_less(&s->heap[r], &s->heap[m])) {
            m = r;
        }
        if (m == i) {
            return top;
        }
        tmp = s->heap[i];
        s->heap[i] = s->heap[m];
        s->heap[m] = tmp;
        i = m;
    }
}

static u32 req_new(struct srds *s, u32 kind, u32 port, u64 line, u64 dpa)
{
    u32 i = s->free_req;

    if (i == UINT32_MAX) {
        return i;
    }
    s->free_req = s->req[i].next;
    s->req[i] = (struct req){ .line = line, .dpa = dpa, .t_issue = s->now,
                              .port = port, .next = UINT32_MAX,
                              .kind = kind };
    return i;
}

static void req_free(struct srds *s, u32 i)
{
    s->req[i].next = s->free_req;
    s->free_req = i;
}

/* ---- The SSD's internal DRAM ------------------------------------------- */

static u64 mix(u64 x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    return x;
}

/* The slot holding sector, or the empty slot where it would go. */
static u32 cache_slot(const struct cache *c, u64 sector)
{
    u32 i = mix(sector) & (c->slots - 1);

    while (c->key[i] && c->key[i] != sector + 1) {
        i = (i + 1) & (c->slots - 1);
    }
    return i;
}

static void lru_unlink(struct cache *c, u32 i)
{
    if (c->prev[i] != UINT32_MAX) {
        c->next[c->prev[i]] = c->next[i];
    } else {
        c->head = c->next[i];
    }
    if (c->next[i] != UINT32_MAX) {
        c->prev[c->next[i]] = c->prev[i];
    } else {
        c->tail = c->prev[i];
    }
}

static void lru_front(struct cache *c, u32 i)
{
    c->prev[i] = UINT32_MAX;
    c->next[i] = c->head;
    if (c->head != UINT32_MAX) {
        c->prev[c->head] = i;
    } else {
        c->tail = i;
    }
    c->head = i;
}

/*
 * Backward-shift deletion in linear probing: slot j's key, whose home is
 * k, may move into the hole at i when k is not cyclically in (i, j].
 */
static bool may_fill_hole(u32 i, u32 j, u32 k)
{
    return j > i ? k <= i || k > j : k <= i && k > j;
}

/* Backward-shift deletion keeps every probe chain whole. */
static void cache_erase(struct cache *c, u32 i)
{
    u32 j = i;

    lru_unlink(c, i);
    c->used--;
    for (;;) {
        u32 k;

        j = (j + 1) & (c->slots - 1);
        if (!c->key[j]) {
            break;
        }
        k = mix(c->key[j] - 1) & (c->slots - 1);
        if (may_fill_hole(i, j, k)) {
            c->key[i] = c->key[j];
            c->ready[i] = c->ready[j];
            c->dirty[i] = c->dirty[j];
            c->prev[i] = c->prev[j];
            c->next[i] = c->next[j];
            if (c->prev[i] != UINT32_MAX) {
                c->next[c->prev[i]] = i;
            } else {
                c->head = i;
            }
            if (c->next[i] != UINT32_MAX) {
                c->prev[c->next[i]] = i;
            } else {
                c->tail = i;
            }
            i = j;
        }
    }
    c->key[i] = 0;
}

/* Present (maybe still filling): its slot, or UINT32_MAX. */
static u32 cache_find(struct cache *c, u64 sector)
{
    u32 i = cache_slot(c, sector);

    return c->key[i] ? i : UINT32_MAX;
}

/* Insert sector (absent), evicting the least recent clean sector. */
static u32 cache_insert(struct cache *c, u64 sector, u64 ready)
{
    u32 i;

    if (c->used >= SSD_SECTORS) {
        u32 v = c->tail;

        while (c->dirty[v]) {       /* dirty ones wait for their program */
            v = c->prev[v];
        }
        cache_erase(c, v);
    }
    i = cache_slot(c, sector);
    c->key[i] = sector + 1;
    c->ready[i] = ready;
    c->dirty[i] = 0;
    c->used++;
    lru_front(c, i);
    return i;
}

static void cache_touch(struct cache *c, u32 i)
{
    lru_unlink(c, i);
    lru_front(c, i);
}

/* ---- The endpoint -------------------------------------------------------- */

static u32 ep_devload(const struct srds *s, const struct ep *e)
{
    u32 lvl = e->in_len / EP_INGRESS_LEVEL;

    if (s->now < e->gc_end) {       /* announced, or running */
        return DL_SO;
    }
    return lvl > DL_SO ? DL_SO : lvl;
}

static u32 chan_of(u64 dpa)
{
    return (dpa / PAGE) % EP_CHANNELS;
}

/* A media operation of dur on channel ch: when it ends. */
static u64 chan_op(struct ep *e, u32 ch, u64 now, u64 dur)
{
    u64 start = e->chan_free[ch] > now ? e->chan_free[ch] : now;

    e->chan_free[ch] = start + dur;
    return e->chan_free[ch];
}

/*
 * Garbage collection, announced through DevLoad a notice ahead: every
 * channel, after what each has queued.
 */
static void ep_gc(struct srds *s, struct ep *e)
{
    u64 start = s->now + SSD_GC_NOTICE_PS;
    u32 ch;

    for (ch = 0; ch < EP_CHANNELS; ch++) {
        start = e->chan_free[ch] > start ? e->chan_free[ch] : start;
    }
    e->gc_end = start + srds_media[e->media].gc_ps;
    for (ch = 0; ch < EP_CHANNELS; ch++) {
        e->chan_free[ch] = e->gc_end;
        e->open_page[ch] = 0;
    }
    e->free_pages += SSD_GC_RECLAIM;
    s->res->gc_runs++;
    probe(s, SRDS_PROBE_GC, s->now, start, e->gc_end);
}

/* Programs that ended by now give their sectors back to the budget. */
static void ep_programs_done(struct srds *s, struct ep *e)
{
    u32 i = 0;

    while (i < e->prog_len) {
        if (e->prog_done[i] <= s->now) {
            e->dirty -= e->prog_sectors[i];
            e->prog_done[i] = e->prog_done[e->prog_len - 1];
            e->prog_sectors[i] = e->prog_sectors[e->prog_len - 1];
            e->prog_len--;
        } else {
            i++;
        }
    }
}

/* Program the oldest dirty sectors, a page at a time. */
static void ep_program(struct srds *s, struct ep *e, bool force)
{
    while (e->df_len >= SECTORS_PER_PAGE || (force && e->df_len)) {
        u32 k, n = e->df_len < SECTORS_PER_PAGE ? e->df_len :
                   SECTORS_PER_PAGE, best = 0;
        u64 done;

        if (e->prog_len == 64) {
            return;
        }
        for (k = 0; k < n; k++) {
            u64 sector = e->dirty_fifo[(e->df_head + k) %
                                       (SSD_DIRTY_MAX + 64)];
            u32 i = cache_find(&e->c, sector);

            if (i != UINT32_MAX) {
                e->c.dirty[i] = 0;
            }
        }
        e->df_head = (e->df_head + n) % (SSD_DIRTY_MAX + 64);
        e->df_len -= n;
        e->free_pages--;
        if (s->cfg->sim.gc && srds_media[e->media].gc_ps &&
            e->free_pages <= SSD_GC_FREE && s->now >= e->gc_end) {
            ep_gc(s, e);
        }
        for (k = 1; k < EP_CHANNELS; k++) {
            best = e->chan_free[k] < e->chan_free[best] ? k : best;
        }
        done = chan_op(e, best, s->now, srds_media[e->media].program_ps);
        e->open_page[best] = 0;
        e->prog_done[e->prog_len] = done;
        e->prog_sectors[e->prog_len++] = n;
        s->res->media_programs++;
    }
}

/*
 * Fill sectors [first, first + n) (one page) from media if absent: when
 * the last of them is ready. A demand read passes n = 1.
 */
static u64 ep_fill(struct srds *s, struct ep *e, u64 first, u32 n)
{
    u64 ready = s->now, at = 0;
    u32 k, missing = 0;

    for (k = 0; k < n; k++) {
        missing += cache_find(&e->c, first + k) == UINT32_MAX;
    }
    if (missing) {
        u32 ch = chan_of(first * SECTOR);
        u64 page = first / SECTORS_PER_PAGE + 1;

        /*
         * tR brings the page into the register; then the missing sectors
         * stream out in address order, each ready as its own transfer
         * ends (a demand read that joins waits only for its sector).
         */
        at = chan_op(e, ch, s->now, missing * SECTOR_XFER_PS +
                     (e->open_page[ch] == page ? 0 :
                      srds_media[e->media].read_ps)) -
             missing * SECTOR_XFER_PS;
        e->open_page[ch] = page;
        s->res->media_reads++;
    }
    for (k = 0; k < n; k++) {
        u32 i = cache_find(&e->c, first + k);

        if (i == UINT32_MAX) {
            at += SECTOR_XFER_PS;
            i = cache_insert(&e->c, first + k, at);
        } else {
            cache_touch(&e->c, i);
        }
        ready = e->c.ready[i] > ready ? e->c.ready[i] : ready;
    }
    return ready;
}

static void send_up(struct srds *s, struct port *pt, u32 r, u64 t, u32 flits)
{
    u64 start = pt->link_up > t ? pt->link_up : t;

    flits = s->cfg->sim.local ? 0 : flits;
    pt->link_up = start + flits * FLIT_PS;
    s->res->flits += flits;
    ev_push(s, pt->link_up + s->ctrl_half, EV_RESP, r);
}

/*
 * The controller takes the head of the ingress FIFO: false when it must
 * wait (a media queue or the dirty budget is full) until *retry.
 */
static bool ep_serve(struct srds *s, u32 p, u32 r, u64 *retry)
{
    struct ep *e = &s->ep[p];
    struct req *q = &s->req[r];
    u64 done, sector = q->dpa / SECTOR, dram = srds_media[e->media].dram_ps;
    u32 i;

    if (e->media == MCMGPU_CXL_MEDIA_DRAM) {
        if (q->kind == REQ_SPEC) {      /* the root port sends none */
            req_free(s, r);
            return true;
        }
        done = chan_op(e, (q->dpa / MCMGPU_CXL_LINE) % EP_CHANNELS, s->now,
                       DRAM_BURST_PS) - DRAM_BURST_PS + dram;
        send_up(s, &s->port[p], r, done, q->kind == REQ_LOAD ? 2 : 1);
        return true;
    }
    ep_programs_done(s, e);
    switch (q->kind) {
    case REQ_SPEC:
        if (ep_devload(s, e) == DL_SO) {
            s->res->specrd_dropped++;
        } else {
            u64 first = sector, left = q->sectors;

            while (left) {
                u32 n = SECTORS_PER_PAGE - first % SECTORS_PER_PAGE;

                n = n < left ? n : left;
                ep_fill(s, e, first, n);
                first += n;
                left -= n;
            }
        }
        req_free(s, r);
        return true;
    case REQ_LOAD:
        i = cache_find(&e->c, sector);
        if (i != UINT32_MAX && e->c.ready[i] <= s->now) {
            s->res->dram_hits++;
        } else {
            s->res->dram_misses++;
            s->res->dram_joins += i != UINT32_MAX;
        }
        done = ep_fill(s, e, sector, 1) + dram;
        send_up(s, &s->port[p], r, done > s->now + dram ? done :
                s->now + dram, 2);
        return true;
    default:    /* a store or a DS flush */
        i = cache_find(&e->c, sector);
        if ((i == UINT32_MAX || !e->c.dirty[i]) &&
            e->dirty >= SSD_DIRTY_MAX) {
            u64 first = UINT64_MAX;
            u32 k;

            ep_program(s, e, true);
            for (k = 0; k < e->prog_len; k++) {
                first = e->prog_done[k] < first ? e->prog_done[k] : first;
            }
            *retry = e->prog_len ? first : s->now + EP_DISPATCH_PS;
            return false;
        }
        if (i == UINT32_MAX) {
            i = cache_insert(&e->c, sector, s->now);
        } else {
            cache_touch(&e->c, i);
        }
        if (!e->c.dirty[i]) {
            e->c.dirty[i] = 1;
            e->dirty++;
            e->dirty_fifo[(e->df_head + e->df_len++) % (SSD_DIRTY_MAX + 64)] =
                sector;
        }
        ep_program(s, e, false);
        send_up(s, &s->port[p], r, s->now + dram, 1);
        return true;
    }
}

static void ep_dispatch(struct srds *s, u32 p)
{
    struct ep *e = &s->ep[p];
    u64 retry = 0;
    u32 r, next;

    e->dispatching = false;
    if (!e->in_len) {
        return;
    }
    r = e->in_head;
    next = s->req[r].next;          /* serving a MemSpecRd frees it */
    if (!ep_serve(s, p, r, &retry)) {
        e->dispatching = true;
        ev_push(s, retry > s->now ? retry : s->now + EP_DISPATCH_PS,
                EV_EP_DISPATCH, p);
        return;
    }
    e->in_head = next;
    e->in_len--;
    probe(s, SRDS_PROBE_INGRESS, s->now, p, e->in_len);
    e->ctrl_free = s->now + EP_DISPATCH_PS;
    if (e->in_len) {
        e->dispatching = true;
        ev_push(s, e->ctrl_free, EV_EP_DISPATCH, p);
    }
}

static void ep_arrive(struct srds *s, u32 r)
{
    struct req *q = &s->req[r];
    struct ep *e = &s->ep[q->port];

    q->next = UINT32_MAX;
    if (e->in_len) {
        s->req[e->in_tail].next = r;
    } else {
        e->in_head = r;
    }
    e->in_tail = r;
    e->in_len++;
    if (e->in_len > s->res->ingress_max) {
        s->res->ingress_max = e->in_len;
    }
    probe(s, SRDS_PROBE_INGRESS, s->now, q->port, e->in_len);
    if (!e->dispatching) {
        e->dispatching = true;
        ev_push(s, e->ctrl_free > s->now ? e->ctrl_free : s->now,
                EV_EP_DISPATCH, q->port);
    }
}

/* ---- The root port ------------------------------------------------------ */

static void send_down(struct srds *s, struct port *pt, u32 r, u32 flits)
{
    u64 start = pt->link_down > s->now ? pt->link_down : s->now;

    flits = s->cfg->sim.local ? 0 : flits;
    pt->link_down = start + flits * FLIT_PS;
    s->res->flits += flits;
    ev_push(s, pt->link_down + s->ctrl_half, EV_EP_ARRIVE, r);
}

static bool ring_covers(const struct port *pt, u64 line)
{
    u32 k;

    for (k = 0; k < RING; k++) {
        if (line >= pt->ring_start[k] && line < pt->ring_end[k]) {
            return true;
        }
    }
    return false;
}

/*
 * SR's address window for a load at a (HPA offset): [a − G, a + G], each
 * queued request inside it moving one end 64 B away from where the scan
 * has been (a past request in the memory queue) or toward where it goes
 * (a future one in the SR queue); outward to 256 B, at most 1 KiB.
 */
static bool srds_window(const struct srds *s, const struct port *pt, u64 a,
                        u64 *start, u64 *end)
{
    u64 g = pt->gran, lo = a >= g ? a - g : 0, hi = a + g;
    u64 ds = 0, de = 0;
    u32 k;

    for (k = 0; k < pt->memq_len; k++) {
        u64 x = s->req[pt->memq[k]].line;

        if (x >= lo && x < hi && x != a) {
            if (x < a) {
                ds += 64;
            } else {
                de += 64;
            }
        }
    }
    for (k = 0; k < pt->srq_len; k++) {
        u64 x = s->req[pt->srq[(pt->srq_head + k) % SR_QUEUE]].line;

        if (x >= lo && x < hi && x != a) {
            if (x > a) {
                ds += 64;
            } else {
                de += 64;
            }
        }
    }
    lo += ds;
    hi = hi > de ? hi - de : 0;
    lo &= ~(SECTOR - 1);
    hi = (hi + SECTOR - 1) & ~(SECTOR - 1);
    if (hi <= lo) {
        return false;
    }
    if (hi - lo > 1024) {
        if (ds >= de) {
            lo = hi - 1024;
        } else {
            hi = lo + 1024;
        }
    }
    *start = lo;
    *end = hi;
    return true;
}

static void port_specrd(struct srds *s, u32 p, u32 r)
{
    const struct srds_config *cfg = s->cfg;
    struct port *pt = &s->port[p];
    struct req *q = &s->req[r];
    u64 a = q->line, start, end, dpa;
    u32 mode = cfg->sim.sr_mode, sp, rport;

    q->spec_done = 1;
    if (mode == MCMGPU_CXL_SR_OFF || !is_ssd(cfg, p)) {
        return;
    }
    if (mode == MCMGPU_CXL_SR_NAIVE) {
        start = a;
        end = a + MCMGPU_CXL_LINE;
    } else {
        if (ring_covers(pt, a) || (pt->halted && mode != MCMGPU_CXL_SR_MAX)) {
            return;
        }
        if (mode == MCMGPU_CXL_SR_FULL) {
            if (!srds_window(s, pt, a, &start, &end)) {
                return;
            }
        } else {
            start = a & ~(SECTOR - 1);
            end = start + (mode == MCMGPU_CXL_SR_MAX ? 1024 : pt->gran);
        }
    }
    /* The window may leave the region: clip it to this port's lines. */
    while (start < a && (!cfg->route(cfg->route_priv, start, &rport, &dpa) ||
                         rport != p)) {
        start += SECTOR;
    }
    while (end > a + MCMGPU_CXL_LINE &&
           (!cfg->route(cfg->route_priv, end - 1, &rport, &dpa) ||
            rport != p)) {
        end -= SECTOR;
    }
    if (end <= start ||
        !cfg->route(cfg->route_priv, start, &rport, &dpa) || rport != p) {
        return;
    }
    sp = req_new(s, REQ_SPEC, p, start, dpa);
    if (sp == UINT32_MAX) {
        s->res->specrd_dropped++;
        return;
    }
    /* MemSpecRd: a 256 B-aligned offset and (L + 1) x 256 B (notes D4). */
    s->req[sp].sectors = (dpa % SECTOR + (end - start) + SECTOR - 1) / SECTOR;
    s->req[sp].dpa = dpa;
    pt->ring_start[pt->ring_next] = start;
    pt->ring_end[pt->ring_next] = end;
    pt->ring_next = (pt->ring_next + 1) % RING;
    s->res->specrd_sent++;
    s->res->specrd_bytes += s->req[sp].sectors * SECTOR;
    send_down(s, pt, sp, 1);
}

static void memq_remove(struct port *pt, u32 r)
{
    u32 k;

    for (k = 0; k < pt->memq_len; k++) {
        if (pt->memq[k] == r) {
            pt->memq[k] = pt->memq[--pt->memq_len];
            return;
        }
    }
}

/* DS: the staging index of lines kept in GPU memory (open addressing). */
static u32 ds_slot(const struct port *pt, u64 line)
{
    u32 i = mix(line) & (2 * DS_LINES - 1);

    while (pt->ds_key[i] && pt->ds_key[i] != line + 1) {
        i = (i + 1) & (2 * DS_LINES - 1);
    }
    return i;
}

static bool ds_has(const struct port *pt, u64 line)
{
    return pt->ds_key && pt->ds_len && pt->ds_key[ds_slot(pt, line)];
}

static void ds_erase(struct port *pt, u64 line)
{
    u32 mask = 2 * DS_LINES - 1, i = ds_slot(pt, line), j = i;

    for (;;) {
        u32 k;

        j = (j + 1) & mask;
        if (!pt->ds_key[j]) {
            break;
        }
        k = mix(pt->ds_key[j] - 1) & mask;
        if (may_fill_hole(i, j, k)) {
            pt->ds_key[i] = pt->ds_key[j];
            i = j;
        }
    }
    pt->ds_key[i] = 0;
}

/*
 * Staged lines go to the SSD in staging order while DevLoad allows, a few
 * at a time, in memory-queue slots the loads left.
 */
static void ds_flush(struct srds *s, u32 p)
{
    struct port *pt = &s->port[p];

    while (pt->ds_len && !pt->suspended && pt->memq_len < MEM_QUEUE &&
           pt->flush_out < DS_FLUSH_INFLIGHT) {
        u64 line = pt->ds_fifo[pt->ds_head], dpa;
        u32 rport, r;

        s->cfg->route(s->cfg->route_priv, line, &rport, &dpa);
        r = req_new(s, REQ_FLUSH, p, line, dpa);
        if (r == UINT32_MAX) {
            return;
        }
        pt->ds_head = (pt->ds_head + 1) % DS_LINES;
        pt->ds_len--;
        ds_erase(pt, line);
        s->ds_held--;
        probe(s, SRDS_PROBE_STAGED, s->now, s->ds_held, 0);
        pt->flush_out++;
        pt->memq[pt->memq_len++] = r;
        send_down(s, pt, r, 2);
    }
}

static void gpu_wake(struct srds *s)
{
    if (s->gpu_blocked) {
        s->gpu_blocked = false;
        ev_push(s, s->now, EV_ISSUE, 0);
    }
}

static void port_pump(struct srds *s, u32 p)
{
    struct port *pt = &s->port[p];
    u32 k;

    while (pt->srq_len && pt->memq_len < MEM_QUEUE) {
        u32 r;

        /* Every waiting load's MemSpecRd first: they hold no slot. */
        for (k = 0; k < pt->srq_len; k++) {
            r = pt->srq[(pt->srq_head + k) % SR_QUEUE];
            if (!s->req[r].spec_done) {
                port_specrd(s, p, r);
            }
        }
        r = pt->srq[pt->srq_head];
        pt->srq_head = (pt->srq_head + 1) % SR_QUEUE;
        pt->srq_len--;
        pt->memq[pt->memq_len++] = r;
        send_down(s, pt, r, 1);
    }
    if (s->cfg->sim.ds && pt->ds_key) {
        ds_flush(s, p);
    }
    gpu_wake(s);
}

static void devload_seen(struct srds *s, u32 p, u32 dl)
{
    struct port *pt = &s->port[p];

    if (dl == DL_SO) {
        s->res->devload_so++;
    }
    switch (dl) {
    case DL_LL:
        pt->gran = 1024;
        pt->halted = false;
        break;
    case DL_OL:
        break;
    case DL_MO:
        pt->gran = pt->gran > 256 ? pt->gran - 256 : 256;
        break;
    default:
        pt->halted = true;
        break;
    }
    if (s->cfg->sim.ds && is_ssd(s->cfg, p)) {
        /* Suspend on mo or so; resume on ll only, as SR does [A]. */
        if (dl >= DL_MO) {
            pt->suspended = true;
        } else if (dl == DL_LL) {
            pt->suspended = false;
        }
        if (pt->suspended && !pt->polling) {
            pt->polling = true;
            ev_push(s, s->now + DS_POLL_PS, EV_POLL, p);
        }
    }
}

static void gpu_done(struct srds *s, u64 t_issue, bool load, u64 tag)
{
    u64 lat = s->now - t_issue;

    if (s->done) {
        s->done(s->done_priv, tag, s->now);
    }
    probe(s, load ? SRDS_PROBE_LOAD : SRDS_PROBE_STORE, s->now, lat, 0);
    if (load) {
        s->res->load_latency_ps += lat;
        if (lat > s->res->load_latency_max_ps) {
            s->res->load_latency_max_ps = lat;
        }
    } else {
        s->res->store_latency_ps += lat;
        if (lat > s->res->store_latency_max_ps) {
            s->res->store_latency_max_ps = lat;
        }
    }
    if (s->now > s->res->runtime_ps) {
        s->res->runtime_ps = s->now;
    }
}

static void on_response(struct srds *s, u32 r)
{
    struct req *q = &s->req[r];
    u32 p = q->port;
    struct port *pt = &s->port[p];

    devload_seen(s, p, ep_devload(s, &s->ep[p]));
    switch (q->kind) {
    case REQ_LOAD:
        memq_remove(pt, r);
        gpu_done(s, q->t_issue, true, q->tag);
        break;
    case REQ_STORE:
        memq_remove(pt, r);
        if (q->spec_done) {         /* DS: sent beside its GPU-memory copy */
            pt->write_out = false;
        } else {
            gpu_done(s, q->t_issue, false, q->tag);
        }
        break;
    case REQ_FLUSH:
        memq_remove(pt, r);
        pt->flush_out--;
        s->res->ds_flushed++;
        break;
    }
    req_free(s, r);
    port_pump(s, p);
}

/* A completion the GPU sees without the endpoint (local or DS). */
static void gpu_local(struct srds *s, bool load, u64 tag)
{
    u64 t = s->now;

    s->now += GPU_DRAM_PS;
    gpu_done(s, t, load, tag);
    s->now = t;
}

/*
 * One load or store of the line at HPA offset addr, now: false when the
 * queue it needs (or the request pool, or DS staging) is full.
 */
static bool issue_one(struct srds *s, u32 kind, u64 addr, u64 tag)
{
    const struct srds_config *cfg = s->cfg;
    struct port *pt;
    u32 p, r;
    u64 dpa;

    cfg->route(cfg->route_priv, addr, &p, &dpa);
    pt = &s->port[p];
    if (kind == MCMGPU_CXL_REC_LOAD) {
        if (ds_has(pt, addr)) {
            s->res->ds_read_hits++;
            gpu_local(s, true, tag);
        } else if (pt->srq_len == SR_QUEUE) {
            return false;
        } else {
            r = req_new(s, REQ_LOAD, p, addr, dpa);
            if (r == UINT32_MAX) {
                return false;
            }
            s->req[r].tag = tag;
            pt->srq[(pt->srq_head + pt->srq_len++) % SR_QUEUE] = r;
            port_pump(s, p);
        }
    } else if (cfg->sim.ds && is_ssd(cfg, p)) {
        /*
         * DS: the GPU is done once GPU memory has the line. The SSD gets
         * it now if it keeps up (dual write), else later (staged).
         */
        bool direct = !pt->suspended && !pt->write_out &&
                      pt->memq_len < MEM_QUEUE;

        r = direct && !ds_has(pt, addr) ?
            req_new(s, REQ_STORE, p, addr, dpa) : UINT32_MAX;
        if (ds_has(pt, addr)) {
            gpu_local(s, false, tag);       /* the staged copy is newer */
        } else if (r != UINT32_MAX) {
            s->req[r].spec_done = 1;        /* marks a dual write */
            s->req[r].tag = tag;
            pt->write_out = true;
            pt->memq[pt->memq_len++] = r;
            send_down(s, pt, r, 2);
            gpu_local(s, false, tag);
        } else if (pt->ds_len < DS_LINES) {
            pt->ds_key[ds_slot(pt, addr)] = addr + 1;
            pt->ds_fifo[(pt->ds_head + pt->ds_len++) % DS_LINES] = addr;
            s->res->ds_staged++;
            s->ds_held++;
            probe(s, SRDS_PROBE_STAGED, s->now, s->ds_held, 1);
            gpu_local(s, false, tag);
        } else {
            return false;                   /* staging full: wait */
        }
    } else {
        if (pt->memq_len == MEM_QUEUE) {
            return false;
        }
        r = req_new(s, REQ_STORE, p, addr, dpa);
        if (r == UINT32_MAX) {
            return false;
        }
        s->req[r].tag = tag;
        pt->memq[pt->memq_len++] = r;
        send_down(s, pt, r, 2);
    }
    if (kind == MCMGPU_CXL_REC_LOAD) {
        s->res->loads++;
    } else {
        s->res->stores++;
    }
    return true;
}

static void gpu_issue(struct srds *s)
{
    const struct mcmgpu_cxl_record *rec;

    if (s->next_rec >= s->n) {
        return;
    }
    rec = &s->rec[s->next_rec];
    if (rec->kind == MCMGPU_CXL_REC_COMPUTE) {
        s->next_rec++;
        ev_push(s, s->now + rec->arg * PS_PER_NS, EV_ISSUE, 0);
        if (s->now + rec->arg * PS_PER_NS > s->res->runtime_ps) {
            s->res->runtime_ps = s->now + rec->arg * PS_PER_NS;
        }
        return;
    }
    if (!issue_one(s, rec->kind, rec->addr, s->next_rec)) {
        s->gpu_blocked = true;
        return;
    }
    s->next_rec++;
    ev_push(s, s->now + ISSUE_PS, EV_ISSUE, 0);
}

static void on_poll(struct srds *s, u32 p)
{
    struct port *pt = &s->port[p];

    pt->polling = false;
    s->res->flits += 2;             /* the status read and its answer */
    devload_seen(s, p, ep_devload(s, &s->ep[p]));
    port_pump(s, p);
}

/* ---- Replay -------------------------------------------------------------- */

bool srds_route_default(void *priv, u64 hpa, u32 *port, u64 *dpa)
{
    const struct srds_config *cfg = priv;
    u32 p;

    for (p = 0; p < cfg->ports; p++) {
        if (hpa < cfg->capacity[p]) {
            *port = p;
            *dpa = hpa;
            return true;
        }
        hpa -= cfg->capacity[p];
    }
    return false;
}

bool srds_route_tree(void *priv, u64 off, u32 *port, u64 *dpa)
{
    unsigned p;

    if (off >= MCMGPU_CXL_MAX_PORTS * MCMGPU_CXL_MAX_CAPACITY ||
        !cxl_hdm_tree_route(priv, MCMGPU_CXL_WINDOW_BASE + off,
                            MCMGPU_CXL_LINE, &p, dpa)) {
        return false;
    }
    *port = p;
    return true;
}

static int bad(struct mcmgpu_record_error *err, u64 index, u64 value,
               const char *what)
{
    u32 k;

    err->index = index;
    err->value = value;
    for (k = 0; what[k] && k < sizeof(err->what) - 1; k++) {
        err->what[k] = what[k];
    }
    err->what[k] = 0;
    return -EINVAL;
}

int srds_check(const struct srds_config *cfg,
               const struct mcmgpu_cxl_record *rec, u64 n,
               struct mcmgpu_record_error *err)
{
    u64 i, dpa;
    u32 p;

    memset(err, 0, sizeof(*err));
    if (cfg->sim.sr_mode >= MCMGPU_CXL_SR_MODES) {
        return bad(err, 0, cfg->sim.sr_mode, "sr_mode: unknown");
    }
    if (cfg->sim.ds > 1 || cfg->sim.gc > 1 || cfg->sim.local > 1) {
        return bad(err, 0, 0, "ds, gc, local: not 0 or 1");
    }
    if (cfg->sim.ctrl_ns < 1 || cfg->sim.ctrl_ns > 100000) {
        return bad(err, 0, cfg->sim.ctrl_ns, "ctrl_ns: not in 1..100000");
    }
    if (n > MCMGPU_CXL_MAX_RECORDS) {
        return bad(err, 0, n, "records: more than 2^24");
    }
    for (i = 0; i < n; i++) {
        switch (rec[i].kind) {
        case MCMGPU_CXL_REC_LOAD:
        case MCMGPU_CXL_REC_STORE:
            if (rec[i].addr % MCMGPU_CXL_LINE) {
                return bad(err, i + 1, rec[i].addr,
                           "addr: not 64 B aligned");
            }
            if (!cfg->route(cfg->route_priv, rec[i].addr, &p, &dpa)) {
                return bad(err, i + 1, rec[i].addr,
                           "addr: no decoder maps it");
            }
            if (rec[i].arg) {
                return bad(err, i + 1, rec[i].arg, "arg: must be 0");
            }
            break;
        case MCMGPU_CXL_REC_COMPUTE:
            if (rec[i].arg > MAX_COMPUTE_NS) {
                return bad(err, i + 1, rec[i].arg,
                           "arg: compute above 1 ms");
            }
            break;
        default:
            return bad(err, i + 1, rec[i].kind, "kind: unknown");
        }
    }
    return 0;
}

struct srds *srds_start(const struct srds_config *cfg, void *mem,
                        struct mcmgpu_cxl_sim_result *res,
                        srds_done_fn done, void *priv)
{
    struct srds *s = mem;
    struct carve c = { mem, sizeof(struct srds) };
    u32 p, i;

    memset(mem, 0, srds_state_size(cfg));
    memset(res, 0, sizeof(*res));
    carve_all(s, cfg, &c);
    s->cfg = cfg;
    s->res = res;
    s->done = done;
    s->done_priv = priv;
    /* "GPU-DRAM": the same queues before local DRAM, no link. */
    s->ctrl_half = cfg->sim.local ? 0 :
                   (u64)cfg->sim.ctrl_ns * PS_PER_NS / 2;
    for (i = 0; i < s->nreq; i++) {
        s->req[i].next = i + 1 < s->nreq ? i + 1 : UINT32_MAX;
    }
    s->free_req = 0;
    for (p = 0; p < cfg->ports; p++) {
        s->port[p].gran = 256;
        s->ep[p].media = cfg->sim.local ? MCMGPU_CXL_MEDIA_DRAM :
                         cfg->media[p];
        s->ep[p].free_pages = SSD_FREE_PAGES;
        s->ep[p].c.head = s->ep[p].c.tail = UINT32_MAX;
    }
    return s;
}

static void run_event(struct srds *s)
{
    struct event ev = ev_pop(s);

    s->now = ev.t;
    switch (ev.type) {
    case EV_ISSUE:
        gpu_issue(s);
        break;
    case EV_EP_ARRIVE:
        ep_arrive(s, ev.arg);
        break;
    case EV_EP_DISPATCH:
        ep_dispatch(s, ev.arg);
        break;
    case EV_RESP:
        on_response(s, ev.arg);
        break;
    case EV_POLL:
        on_poll(s, ev.arg);
        break;
    }
}

void srds_advance(struct srds *s, u64 t)
{
    while (s->heap_len && s->heap[0].t <= t) {
        run_event(s);
    }
    if (t > s->now) {
        s->now = t;
    }
}

u64 srds_next_event(const struct srds *s)
{
    return s->heap_len ? s->heap[0].t : UINT64_MAX;
}

u64 srds_now(const struct srds *s)
{
    return s->now;
}

void srds_probe(struct srds *s, srds_probe_fn fn, void *priv)
{
    s->probe = fn;
    s->probe_priv = priv;
}

bool srds_submit(struct srds *s, u64 t, u32 kind, u64 addr, u64 tag)
{
    srds_advance(s, t);
    return issue_one(s, kind, addr, tag);
}

void srds_run(const struct srds_config *cfg, void *mem,
              const struct mcmgpu_cxl_record *rec, u64 n,
              struct mcmgpu_cxl_sim_result *res)
{
    struct srds *s = srds_start(cfg, mem, res, NULL, NULL);

    s->rec = rec;
    s->n = n;
    ev_push(s, 0, EV_ISSUE, 0);
    while (s->heap_len) {
        run_event(s);
    }
}

/* ---- GDS's storage reads (gpu_uvm.c) ---------------------------------- */

u64 srds_media_pages_ps(u32 media, bool program, u64 pages)
{
    u64 rounds, page_ps;

    if (!pages || media >= MCMGPU_CXL_MEDIA_TYPES) {
        return 0;
    }
    if (media == MCMGPU_CXL_MEDIA_DRAM) {
        rounds = (pages + EP_CHANNELS - 1) / EP_CHANNELS;
        return srds_media[media].dram_ps +
               rounds * (PAGE / 64) * DRAM_BURST_PS;
    }
    rounds = (pages + EP_CHANNELS - 1) / EP_CHANNELS;
    page_ps = program ? srds_media[media].program_ps
                      : srds_media[media].read_ps;
    return rounds * (page_ps + SECTORS_PER_PAGE * SECTOR_XFER_PS);
}
