/*
 * CPElide in the GPU timing core (gpu_cpelide.h): the table, the
 * per-kernel access summaries, the oracle's versions and HMG's directory.
 *
 * Decisions (the paper's rules as cpelide.c applies them, notes §2.4-2.5):
 * - A launch: phase 1 releases (flushes) a chiplet holding an object
 *   Dirty whose hull overlaps what another chiplet of the kernel touches,
 *   and marks Stale the Valid or Dirty copies other chiplets hold where
 *   the kernel writes; phase 2 acquires (invalidates) a chiplet that
 *   touches an object it holds Stale. Whole-cache effects: an invalidate
 *   makes every non-Dirty row of that chiplet NotPresent, a flush every
 *   Dirty row Valid. Then the kernel's own accesses: write -> Dirty,
 *   read -> Valid (Dirty stays).
 * - The core knows the kernel's accesses exactly (its decoded sectors),
 *   so a chiplet's range of an object is the hull of what its blocks
 *   touch, split into read and written: Stale marking uses the written
 *   hull (a copy is stale only where another chiplet writes).
 * - A chiplet that read an object in the kernel where another chiplet
 *   wrote an overlapping range may hold a copy older than that write (a
 *   race under HRF at byte level, but at line granularity an ordinary
 *   partition edge): its Valid row becomes Stale after the kernel, so its
 *   next use invalidates it. A Dirty row whose chiplet read (loads) in
 *   the kernel where another wrote stays Dirty but is marked (dstale):
 *   its next use invalidates too (the clean lines go, the
 *   dirty stay, notes A3/A6), and a flush makes it Stale, not Valid.
 * - No row limit: a row per object (the paper's 64 rows bound the
 *   arguments a kernel and its reuse window; table_peak_rows reports
 *   what a run needed).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "gpu_cpelide.h"

#define NO_LO           (~0ULL)
#define NO_HI           0ULL
#define LINE_SHIFT      7       /* ranges compare at 128 B lines */

enum { NP = 0, V = 1, D = 2, S = 3 };

struct cpe_row {
    u8 state[GPU_MAX_CHIPLETS];
    u8 dstale[GPU_MAX_CHIPLETS];    /* D whose clean lines may be stale */
    u64 lo[GPU_MAX_CHIPLETS], hi[GPU_MAX_CHIPLETS];
};

struct cpe_rec {
    u64 lo, hi;
    u32 kb, obj;
    u32 write;
    u32 pad;
};

/* One kernel's accesses of an object by a chiplet: any, and written. */
struct cpe_sum {
    u64 alo, ahi, wlo, whi;
    u64 rlo, rhi;       /* read only (loads) */
};

struct cpe_ver {
    u64 key;            /* sector number + 1; 0: free */
    u32 gold;           /* newest version written */
    u32 prev;           /* newest before gold's kernel */
    u32 home;           /* what the home holds */
    u32 writers;        /* chiplets that wrote it in gold's kernel */
};

struct cpe_dir {
    u64 tag;            /* region + 1; 0: free */
    u64 lru;
    u32 sharers;
    u32 pad;
};

struct gpu_cpe {
    gpu_cpe_alloc_fn alloc;
    gpu_cpe_free_fn free;
    void *priv;
    u32 policy, n;
    bool oom, first_done;
    u32 version;
    struct cpe_row *rows;
    u32 nrows;          /* objects seen: rows[0 .. nrows) */
    struct cpe_rec *recs;
    u32 nrecs, caprecs;
    u32 cur_first;      /* the block being decoded: its first record */
    struct cpe_sum *sum;
    u32 capsum;         /* in cpe_sum's */
    struct cpe_ver *map;
    u64 mapcap, mapn;
    struct cpe_dir *dir;
    u32 dir_sets;
    u64 clock;
    struct gpu_cpelide_stats st;
    /* The blocks' chiplets: [map_first, map_first + map_m) */
    u32 map_first, map_m;
    /* gpu_cpe_streams() on (0 slots: off) */
    u32 nslots;
    u32 launched;               /* the last launch's version */
    u32 kver[GPU_MAX_CHIPLETS]; /* the version of each chiplet's kernel */
    u32 *slot_ver;              /* a slot's running kernel's, 0: none */
    struct cpe_sum **live;      /* its summaries (CPElide) */
    u32 *live_rows, *live_cap;
    /* lal[v * nslots + i]: the kernels running when kernel v launched */
    u32 *lal;
    u32 caplal;
};

static void *cpe_zalloc(struct gpu_cpe *p, size_t bytes)
{
    void *m = p->alloc(p->priv, bytes ? bytes : 1);

    if (!m) {
        p->oom = true;
    }
    return m;
}

/* Grows *arr of *cap elements (elem bytes) to hold need, zeroing the new. */
static bool cpe_grow(struct gpu_cpe *p, void **arr, u32 *cap, size_t elem,
                     u64 need)
{
    u64 ncap = *cap ? *cap : 16;
    void *m;

    if (need <= *cap) {
        return true;
    }
    while (ncap < need) {
        ncap *= 2;
    }
    if (ncap > 0x7fffffffu) {
        p->oom = true;
        return false;
    }
    m = cpe_zalloc(p, ncap * elem);
    if (!m) {
        return false;
    }
    if (*arr) {
        memcpy(m, *arr, *cap * elem);
        p->free(p->priv, *arr);
    }
    *arr = m;
    *cap = (u32)ncap;
    return true;
}

struct gpu_cpe *gpu_cpe_create(const struct gpu_config *cfg,
                               gpu_cpe_alloc_fn alloc, gpu_cpe_free_fn free,
                               void *priv)
{
    struct gpu_cpe *p = alloc(priv, sizeof(*p));

    if (!p) {
        return NULL;
    }
    memset(p, 0, sizeof(*p));
    p->alloc = alloc;
    p->free = free;
    p->priv = priv;
    p->policy = cfg->cpelide;
    p->n = cfg->chiplets;
    p->map_m = p->n;
    p->mapcap = 1024;
    p->map = cpe_zalloc(p, p->mapcap * sizeof(*p->map));
    if (p->policy == GPU_CPE_HMG) {
        p->dir_sets = GPU_CPE_DIR_ENTRIES / GPU_CPE_DIR_WAYS;
        p->dir = cpe_zalloc(p, (size_t)p->n * p->dir_sets *
                            GPU_CPE_DIR_WAYS * sizeof(*p->dir));
    }
    if (p->oom) {
        gpu_cpe_destroy(p);
        return NULL;
    }
    return p;
}

void gpu_cpe_destroy(struct gpu_cpe *p)
{
    if (!p) {
        return;
    }
    if (p->rows) {
        p->free(p->priv, p->rows);
    }
    if (p->recs) {
        p->free(p->priv, p->recs);
    }
    if (p->sum) {
        p->free(p->priv, p->sum);
    }
    if (p->map) {
        p->free(p->priv, p->map);
    }
    if (p->dir) {
        p->free(p->priv, p->dir);
    }
    if (p->live) {
        u32 i;

        for (i = 0; i < p->nslots; i++) {
            if (p->live[i]) {
                p->free(p->priv, p->live[i]);
            }
        }
        p->free(p->priv, p->live);
    }
    if (p->slot_ver) {
        p->free(p->priv, p->slot_ver);
    }
    if (p->live_rows) {
        p->free(p->priv, p->live_rows);
    }
    if (p->live_cap) {
        p->free(p->priv, p->live_cap);
    }
    if (p->lal) {
        p->free(p->priv, p->lal);
    }
    p->free(p->priv, p);
}

bool gpu_cpe_oom(const struct gpu_cpe *p)
{
    return p->oom;
}

struct gpu_cpelide_stats *gpu_cpe_stats(struct gpu_cpe *p)
{
    return &p->st;
}

u32 gpu_cpe_version(const struct gpu_cpe *p)
{
    return p->version;
}

/* ---- The kernel's accesses ---- */

void gpu_cpe_kernel_begin(struct gpu_cpe *p)
{
    p->nrecs = 0;
    p->cur_first = 0;
}

void gpu_cpe_note(struct gpu_cpe *p, u32 kb, u32 obj, u64 lo, u64 hi,
                  bool write)
{
    struct cpe_rec *r;
    u32 i;

    if (p->nrecs && p->recs[p->nrecs - 1].kb != kb) {
        p->cur_first = p->nrecs;
    }
    /* A block touches few objects: its records are the last ones. */
    for (i = p->nrecs; i > p->cur_first; i--) {
        r = &p->recs[i - 1];
        if (r->obj == obj && r->write == (u32)write) {
            if (lo < r->lo) {
                r->lo = lo;
            }
            if (hi > r->hi) {
                r->hi = hi;
            }
            return;
        }
    }
    if (!cpe_grow(p, (void **)&p->recs, &p->caprecs, sizeof(*p->recs),
                  (u64)p->nrecs + 1)) {
        return;
    }
    r = &p->recs[p->nrecs++];
    r->kb = kb;
    r->obj = obj;
    r->lo = lo;
    r->hi = hi;
    r->write = write;
}

static bool cpe_overlap(u64 alo, u64 ahi, u64 blo, u64 bhi)
{
    if (alo > ahi || blo > bhi) {
        return false;
    }
    return alo >> LINE_SHIFT <= bhi >> LINE_SHIFT &&
           blo >> LINE_SHIFT <= ahi >> LINE_SHIFT;
}

static void cpe_set(struct cpe_row *r, u32 c, u8 st)
{
    r->state[c] = st;
    if (st == NP) {
        r->lo[c] = NO_LO;
        r->hi[c] = NO_HI;
    }
}

/* Whole-cache effects of an operation on chiplet c (every row). */
static void cpe_after_inv(struct gpu_cpe *p, u32 c)
{
    u32 i;

    for (i = 0; i < p->nrows; i++) {
        p->rows[i].dstale[c] = 0;   /* its clean lines are gone */
        if (p->rows[i].state[c] != D) {
            cpe_set(&p->rows[i], c, NP);
        }
    }
}

static void cpe_after_flush(struct gpu_cpe *p, u32 c)
{
    u32 i;

    for (i = 0; i < p->nrows; i++) {
        if (p->rows[i].state[c] == D) {
            p->rows[i].state[c] = p->rows[i].dstale[c] ? S : V;
            p->rows[i].dstale[c] = 0;
        }
    }
}

static void cpe_apply(struct gpu_cpe *p, const struct gpu_cpe_sync *s)
{
    u32 c;

    for (c = 0; c < p->n; c++) {
        bool inv = s->inv >> c & 1, fl = s->flush >> c & 1;
        bool first = s->flush_first >> c & 1;

        if (fl && first) {
            cpe_after_flush(p, c);
        }
        if (inv) {
            cpe_after_inv(p, c);
        }
        if (fl && !first) {
            cpe_after_flush(p, c);
        }
    }
}

static u64 cpe_rows_used(const struct gpu_cpe *p)
{
    u64 used = 0;
    u32 i, c;

    for (i = 0; i < p->nrows; i++) {
        for (c = 0; c < p->n; c++) {
            if (p->rows[i].state[c] != NP) {
                used++;
                break;
            }
        }
    }
    return used;
}

/* This kernel's summaries: sum[obj * n + c]. false: out of memory. */
static bool cpe_summarize(struct gpu_cpe *p, u32 nblocks, u32 tb_sched)
{
    u32 i, nobj = 0;

    for (i = 0; i < p->nrecs; i++) {
        if (p->recs[i].obj + 1 > nobj) {
            nobj = p->recs[i].obj + 1;
        }
    }
    if (nobj > p->nrows) {
        u32 cap = p->nrows, old = p->nrows, j, c;

        if (!cpe_grow(p, (void **)&p->rows, &cap, sizeof(*p->rows), nobj)) {
            return false;
        }
        /* cap may exceed nobj; rows beyond nrows are set when reached. */
        for (j = old; j < nobj; j++) {
            for (c = 0; c < GPU_MAX_CHIPLETS; c++) {
                cpe_set(&p->rows[j], c, NP);
            }
        }
        p->nrows = nobj;
    }
    if (!cpe_grow(p, (void **)&p->sum, &p->capsum, sizeof(*p->sum),
                  (u64)p->nrows * p->n)) {
        return false;
    }
    for (i = 0; i < p->nrows * p->n; i++) {
        p->sum[i].alo = p->sum[i].wlo = p->sum[i].rlo = NO_LO;
        p->sum[i].ahi = p->sum[i].whi = p->sum[i].rhi = NO_HI;
    }
    for (i = 0; i < p->nrecs; i++) {
        const struct cpe_rec *r = &p->recs[i];
        u32 pos, c = p->map_first +
                gpu_tb_chiplet(r->kb, nblocks, p->map_m, tb_sched, &pos);
        struct cpe_sum *s = &p->sum[(u64)r->obj * p->n + c];

        if (r->lo < s->alo) {
            s->alo = r->lo;
        }
        if (r->hi > s->ahi) {
            s->ahi = r->hi;
        }
        if (r->write) {
            if (r->lo < s->wlo) {
                s->wlo = r->lo;
            }
            if (r->hi > s->whi) {
                s->whi = r->hi;
            }
        } else {
            if (r->lo < s->rlo) {
                s->rlo = r->lo;
            }
            if (r->hi > s->rhi) {
                s->rhi = r->hi;
            }
        }
    }
    return true;
}

/*
 * CPElide's decision (§III-B/C) on this kernel's summaries. An access
 * of object a is checked against every row whose hulls it overlaps, not
 * only a's: objects the identity mapping puts on one page share lines.
 */
static void cpe_decide(struct gpu_cpe *p, struct gpu_cpe_sync *s)
{
    u32 a, b, c, d, n = p->n;

    for (a = 0; a < p->nrows; a++) {
        for (c = 0; c < n; c++) {
            const struct cpe_sum *m = &p->sum[(u64)a * n + c];

            for (b = 0; b < p->nrows && m->alo <= m->ahi; b++) {
                struct cpe_row *e = &p->rows[b];

                for (d = 0; d < n; d++) {
                    if (d == c) {
                        continue;
                    }
                    if (e->state[d] == D &&
                        cpe_overlap(e->lo[d], e->hi[d], m->alo, m->ahi)) {
                        s->flush |= 1u << d;
                    }
                    if ((e->state[d] == V || e->state[d] == D) &&
                        cpe_overlap(e->lo[d], e->hi[d], m->wlo, m->whi)) {
                        if (e->state[d] == D) {
                            s->flush_first |= 1u << d;
                        }
                        e->state[d] = S;
                        e->dstale[d] = 0;
                    }
                }
            }
        }
    }
    /* Phase 2, after every Stale mark. */
    for (a = 0; a < p->nrows; a++) {
        for (c = 0; c < n; c++) {
            const struct cpe_sum *m = &p->sum[(u64)a * n + c];

            for (b = 0; b < p->nrows && m->alo <= m->ahi; b++) {
                const struct cpe_row *e = &p->rows[b];

                if ((e->state[c] == S || (e->state[c] == D && e->dstale[c])) &&
                    (b == a ||
                     cpe_overlap(e->lo[c], e->hi[c], m->alo, m->ahi))) {
                    s->inv |= 1u << c;
                }
            }
        }
    }
    s->flush_first &= s->flush;
}

/* The kernel's own accesses enter the table. */
static void cpe_record_kernel(struct gpu_cpe *p)
{
    u32 a, b, c, d, n = p->n;

    for (a = 0; a < p->nrows; a++) {
        struct cpe_row *e = &p->rows[a];

        for (c = 0; c < n; c++) {
            const struct cpe_sum *m = &p->sum[(u64)a * n + c];

            if (m->alo > m->ahi) {
                continue;
            }
            if (m->wlo <= m->whi) {
                e->state[c] = D;
            } else if (e->state[c] != D) {
                e->state[c] = V;
            }
            if (m->alo < e->lo[c]) {
                e->lo[c] = m->alo;
            }
            if (m->ahi > e->hi[c]) {
                e->hi[c] = m->ahi;
            }
        }
    }
    /* Copies read while another chiplet wrote the same lines. */
    for (a = 0; a < p->nrows; a++) {
        for (d = 0; d < n; d++) {
            const struct cpe_sum *w = &p->sum[(u64)a * n + d];

            for (b = 0; b < p->nrows && w->wlo <= w->whi; b++) {
                struct cpe_row *e = &p->rows[b];

                for (c = 0; c < n; c++) {
                    if (c == d ||
                        !cpe_overlap(e->lo[c], e->hi[c], w->wlo, w->whi)) {
                        continue;
                    }
                    if (e->state[c] == V) {
                        e->state[c] = S;
                    } else if (e->state[c] == D &&
                               cpe_overlap(p->sum[(u64)b * n + c].rlo,
                                           p->sum[(u64)b * n + c].rhi,
                                           w->wlo, w->whi)) {
                        e->dstale[c] = 1;   /* read here: invalidate later */
                    }
                }
            }
        }
    }
}

void gpu_cpe_launch(struct gpu_cpe *p, u32 nblocks, u32 tb_sched,
                    struct gpu_cpe_sync *s)
{
    u32 all = (1u << p->n) - 1, used;

    memset(s, 0, sizeof(*s));
    p->version++;
    p->st.kernels++;
    p->st.launches++;
    p->st.l1_invalidates += p->n;
    p->st.baseline_invalidates += p->n;
    p->st.baseline_flushes += p->n;
    switch (p->policy) {
    case GPU_CPE_BASELINE:
        /* The last kernel's release at its completion, then the acquire. */
        s->inv = all;
        s->flush = s->flush_first = p->first_done ? all : 0;
        break;
    case GPU_CPE_CPELIDE:
        if (!cpe_summarize(p, nblocks, tb_sched)) {
            return;
        }
        cpe_decide(p, s);
        cpe_apply(p, s);
        cpe_record_kernel(p);
        used = (u32)cpe_rows_used(p);
        if (used > p->st.table_peak_rows) {
            p->st.table_peak_rows = used;
        }
        break;
    default:
        break;
    }
    p->first_done = true;
}

void gpu_cpe_end(struct gpu_cpe *p, struct gpu_cpe_sync *s)
{
    u32 a, c;

    memset(s, 0, sizeof(*s));
    p->st.launches++;
    if (p->policy == GPU_CPE_BASELINE && p->first_done) {
        s->flush = (1u << p->n) - 1;
    } else if (p->policy == GPU_CPE_CPELIDE) {
        for (a = 0; a < p->nrows; a++) {
            for (c = 0; c < p->n; c++) {
                if (p->rows[a].state[c] == D) {
                    s->flush |= 1u << c;
                }
            }
        }
        s->flush_first = s->flush;
        cpe_apply(p, s);
    }
}

/* ---- Versions ---- */

static u64 cpe_hash(u64 key)
{
    key ^= key >> 33;
    key *= 0xff51afd7ed558ccdULL;
    key ^= key >> 33;
    return key;
}

/* The sector's entry; created (all 0) when add, else NULL if none. */
static struct cpe_ver *cpe_ver(struct gpu_cpe *p, u64 sector, bool add)
{
    u64 key = (sector >> 5) + 1, i;

    if (!p->map) {
        return NULL;
    }
    if (add && (p->mapn + 1) * 2 > p->mapcap) {
        struct cpe_ver *old = p->map, *m;
        u64 oldcap = p->mapcap, j;

        m = cpe_zalloc(p, oldcap * 2 * sizeof(*m));
        if (!m) {
            return NULL;
        }
        p->map = m;
        p->mapcap = oldcap * 2;
        for (j = 0; j < oldcap; j++) {
            if (old[j].key) {
                i = cpe_hash(old[j].key) & (p->mapcap - 1);
                while (m[i].key) {
                    i = (i + 1) & (p->mapcap - 1);
                }
                m[i] = old[j];
            }
        }
        p->free(p->priv, old);
    }
    i = cpe_hash(key) & (p->mapcap - 1);
    while (p->map[i].key) {
        if (p->map[i].key == key) {
            return &p->map[i];
        }
        i = (i + 1) & (p->mapcap - 1);
    }
    if (!add) {
        return NULL;
    }
    memset(&p->map[i], 0, sizeof(p->map[i]));
    p->map[i].key = key;
    p->mapn++;
    return &p->map[i];
}

/*
 * Streams: kernel ver and the caller's kernel are not ordered (the older
 * one was still running when the younger launched): a race if they
 * share a sector and one writes it.
 */
static bool cpe_live_other(const struct gpu_cpe *p, u32 ver)
{
    u32 a = ver < p->version ? ver : p->version;
    u32 b = ver < p->version ? p->version : ver;
    u32 i;

    if (!ver || ver == p->version || !p->lal ||
        (u64)b * p->nslots >= p->caplal) {
        return false;
    }
    for (i = 0; i < p->nslots; i++) {
        if (p->lal[(u64)b * p->nslots + i] == a) {
            return true;
        }
    }
    return false;
}

void gpu_cpe_read(struct gpu_cpe *p, u64 sector, u32 ver)
{
    struct cpe_ver *e = cpe_ver(p, sector, false);
    u32 want;

    if (!e) {
        return;
    }
    if (p->nslots && cpe_live_other(p, e->gold)) {
        p->st.stream_races++;
    }
    want = e->gold == p->version ? e->prev : e->gold;
    if (ver < want) {
        p->st.oracle_read_violations++;
        p->st.oracle_violations++;
    }
}

void gpu_cpe_write(struct gpu_cpe *p, u64 sector, u32 chiplet)
{
    struct cpe_ver *e = cpe_ver(p, sector, true);

    if (!e) {
        return;
    }
    if (p->nslots && cpe_live_other(p, e->gold)) {
        p->st.stream_races++;
    }
    if (e->gold != p->version) {
        e->prev = e->gold;
        e->gold = p->version;
        e->writers = 0;
    }
    e->writers |= 1u << chiplet;
}

bool gpu_cpe_fill_stale(struct gpu_cpe *p, u64 sector, u32 chiplet, u32 ver)
{
    struct cpe_ver *e = cpe_ver(p, sector, false);

    return e && e->gold == p->version && ver < e->gold &&
           (e->writers & (1u << chiplet));
}

u32 gpu_cpe_home_version(struct gpu_cpe *p, u64 sector)
{
    struct cpe_ver *e = cpe_ver(p, sector, false);

    return e ? e->home : 0;
}

void gpu_cpe_home_store(struct gpu_cpe *p, u64 sector, u32 ver)
{
    struct cpe_ver *e = cpe_ver(p, sector, true);

    if (!e) {
        return;
    }
    if (ver < e->home) {
        p->st.oracle_order_violations++;
        p->st.oracle_violations++;
        return;
    }
    e->home = ver;
}

u32 gpu_cpe_golden(struct gpu_cpe *p, u64 sector)
{
    struct cpe_ver *e = cpe_ver(p, sector, false);

    return e ? e->gold : 0;
}

/* ---- HMG's directory ---- */

static struct cpe_dir *cpe_dir_set(struct gpu_cpe *p, u32 home, u64 region)
{
    return &p->dir[((u64)home * p->dir_sets + region % p->dir_sets) *
                   GPU_CPE_DIR_WAYS];
}

void gpu_cpe_dir_add(struct gpu_cpe *p, u32 home, u64 region, u32 c,
                     u64 *ev_region, u32 *ev_sharers)
{
    struct cpe_dir *set = cpe_dir_set(p, home, region), *v = &set[0];
    u32 w;

    *ev_sharers = 0;
    p->clock++;
    for (w = 0; w < GPU_CPE_DIR_WAYS; w++) {
        if (set[w].tag == region + 1) {
            set[w].sharers |= 1u << c;
            set[w].lru = p->clock;
            return;
        }
        if (!set[w].tag || (v->tag && set[w].lru < v->lru)) {
            v = &set[w];
        }
    }
    if (v->tag) {
        /* An entry covers 4 lines: its sharers lose all of them. */
        p->st.dir_evictions++;
        *ev_region = v->tag - 1;
        *ev_sharers = v->sharers;
    }
    v->tag = region + 1;
    v->sharers = 1u << c;
    v->lru = p->clock;
}

bool gpu_cpe_dir_has(struct gpu_cpe *p, u32 home, u64 region, u32 c)
{
    struct cpe_dir *set = cpe_dir_set(p, home, region);
    u32 w;

    for (w = 0; w < GPU_CPE_DIR_WAYS; w++) {
        if (set[w].tag == region + 1) {
            return set[w].sharers >> c & 1;
        }
    }
    return false;
}

u32 gpu_cpe_dir_write(struct gpu_cpe *p, u32 home, u64 region, u32 c)
{
    struct cpe_dir *set = cpe_dir_set(p, home, region);
    u32 w, others;

    for (w = 0; w < GPU_CPE_DIR_WAYS; w++) {
        if (set[w].tag == region + 1) {
            others = set[w].sharers & ~(1u << c);
            set[w].sharers &= ~others;
            return others;
        }
    }
    return 0;
}

/* ---- Concurrent streams ---- */

int gpu_cpe_streams(struct gpu_cpe *p, u32 nslots)
{
    p->slot_ver = cpe_zalloc(p, nslots * sizeof(*p->slot_ver));
    p->live = cpe_zalloc(p, nslots * sizeof(*p->live));
    p->live_rows = cpe_zalloc(p, nslots * sizeof(*p->live_rows));
    p->live_cap = cpe_zalloc(p, nslots * sizeof(*p->live_cap));
    if (p->oom) {
        return -1;
    }
    p->nslots = nslots;
    return 0;
}

void gpu_cpe_at(struct gpu_cpe *p, u32 chiplet)
{
    p->version = p->kver[chiplet];
}

/*
 * A running kernel's accesses (sum, rows rows) enter the table again on
 * the chiplets in mask, after a launch's decision: a flush made its Dirty
 * rows Valid, an invalidate its Valid rows NotPresent, another kernel's
 * write into its hull (other bytes: no race) its rows Stale, but it goes
 * on writing and reading them. A row it writes that was marked Stale is
 * Dirty with its clean lines possibly stale (dstale: the next use
 * invalidates, a flush leaves it Stale); one it only reads stays Stale.
 */
static void cpe_rerecord(struct gpu_cpe *p, const struct cpe_sum *sum,
                         u32 rows, u32 mask)
{
    u32 a, c, n = p->n;

    for (a = 0; a < rows && a < p->nrows; a++) {
        struct cpe_row *e = &p->rows[a];

        for (c = 0; c < n; c++) {
            const struct cpe_sum *m = &sum[(u64)a * n + c];

            if (!(mask >> c & 1) || m->alo > m->ahi) {
                continue;
            }
            if (m->wlo <= m->whi && e->state[c] == S) {
                e->state[c] = D;
                e->dstale[c] = 1;
            } else if (m->wlo <= m->whi && (e->state[c] == V ||
                                            e->state[c] == NP)) {
                e->state[c] = D;
            } else if (e->state[c] == NP) {
                e->state[c] = V;
            }
            if (m->alo < e->lo[c]) {
                e->lo[c] = m->alo;
            }
            if (m->ahi > e->hi[c]) {
                e->hi[c] = m->ahi;
            }
        }
    }
}

void gpu_cpe_launch_on(struct gpu_cpe *p, u32 nblocks, u32 tb_sched,
                       u32 first, u32 m, u32 slot, struct gpu_cpe_sync *s)
{
    u32 i, c;

    p->map_first = first;
    p->map_m = m;
    p->version = p->launched;
    gpu_cpe_launch(p, nblocks, tb_sched, s);
    p->launched = p->version;
    p->map_first = 0;
    p->map_m = p->n;
    for (c = first; c < first + m; c++) {
        p->kver[c] = p->version;
    }
    if (cpe_grow(p, (void **)&p->lal, &p->caplal, sizeof(*p->lal),
                 ((u64)p->version + 1) * p->nslots)) {
        memcpy(&p->lal[(u64)p->version * p->nslots], p->slot_ver,
               p->nslots * sizeof(*p->lal));
    }
    p->slot_ver[slot] = p->version;
    if (p->policy != GPU_CPE_CPELIDE || p->oom) {
        return;
    }
    for (i = 0; i < p->nslots; i++) {
        if (i != slot && p->slot_ver[i] && p->live[i]) {
            cpe_rerecord(p, p->live[i], p->live_rows[i],
                         (1u << p->n) - 1);
        }
    }
    /* This kernel's summaries, for the launches while it runs. */
    if (!cpe_grow(p, (void **)&p->live[slot], &p->live_cap[slot],
                  sizeof(struct cpe_sum), (u64)p->nrows * p->n)) {
        return;
    }
    if (p->nrows) {
        memcpy(p->live[slot], p->sum,
               (size_t)p->nrows * p->n * sizeof(*p->sum));
    }
    p->live_rows[slot] = p->nrows;
}

void gpu_cpe_kernel_end_on(struct gpu_cpe *p, u32 slot)
{
    p->slot_ver[slot] = 0;
}
