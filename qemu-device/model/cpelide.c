/*
 * CPElide (CPElide §III): the global CP keeps a Chiplet Coherence Table of
 * data structures (rows) with a 2-bit state per chiplet (NotPresent,
 * Valid, Dirty, Stale) and the per-chiplet range hull each chiplet touched
 * (notes A1). At a launch it marks Stale the copies other chiplets hold of
 * ranges the kernel writes (phase 1, over all arguments), releases
 * (flushes) a Dirty holder only when another chiplet accesses its range,
 * and acquires (invalidates) only where the kernel finds a Stale copy
 * (phase 2). Flushes and invalidations act on the whole L2 and so change
 * every row of that chiplet. The cache model and the oracle (a version per
 * 4 B word) turn the decisions into hits, traffic and time, and check them.
 *
 * Decisions where the paper is silent (notes §5): cost of an invalidate =
 * request + flash clear of the valid bits + ACK, of a flush = request + tag
 * walk + write-back bytes at the link bandwidth + ACK (A11); L2 lines keep
 * per-word valid and dirty masks (A4, issue 8); invalidate keeps dirty words
 * (A3); flush keeps a clean copy of lines whose valid words were all dirty;
 * a chiplet that must both flush and invalidate invalidates first (§III-B's
 * order keeps the lines the flush writes back) unless its copy goes Dirty ->
 * Stale, then it flushes first so no stale clean copy survives; rows that
 * leave the table or merge flush first; unknown ranges: flush then
 * invalidate every chiplet, clear the table, and track the kernel's objects
 * as whole-object hulls; overflow evicts the least recently used row after
 * syncing it (A5); coarsening merges the closest rows, flushing a chiplet
 * first where it would merge Dirty with Stale (A6); host reads flush
 * overlapping Dirty holders, host writes flush them and mark every holder
 * Stale (A7).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "cpelide.h"

#define CPE_NO_RANGE_LO  UINT64_MAX
#define CPE_NO_RANGE_HI  0

static u64 cpe_ns_to_cycles(u64 ns)
{
    return ns * CPE_GPU_MHZ / 1000;
}

static u64 cpe_cp_to_gpu(u64 cp_cycles)
{
    return cp_cycles * CPE_GPU_MHZ / CPE_CP_MHZ;
}

void cpe_config_defaults(struct cpe_config *cfg, u32 chiplets, u32 policy,
                         u64 mem_bytes)
{
    memset(cfg, 0, sizeof(*cfg));
    cfg->chiplets = chiplets;
    cfg->policy = policy;
    cfg->mem_bytes = mem_bytes;
    cfg->l1_sets = 16;
    cfg->l1_ways = 16;
    cfg->l2_sets = 4096;
    cfg->l2_ways = 32;
    cfg->l3_sets = 16384;
    cfg->l3_ways = 16;
    cfg->table_rows = MCMGPU_CPE_TABLE_ROWS;
    cfg->dir_ways = CPE_DIR_WAYS;
    cfg->dir_sets = CPE_DIR_ENTRIES / CPE_DIR_WAYS;
}

void cpe_config_of_reset(struct cpe_config *cfg,
                         const struct mcmgpu_cpe_record *r)
{
    cpe_config_defaults(cfg, r->chiplets, r->policy, r->mem_bytes);
    cfg->flags = r->flags;
}

bool cpe_config_valid(const struct cpe_config *cfg, const char **why)
{
    if (cfg->chiplets < 1 || cfg->chiplets > MCMGPU_MAX_CHIPLETS) {
        *why = "chiplets: must be 1..8";
        return false;
    }
    if (cfg->policy >= MCMGPU_CPE_POLICIES) {
        *why = "policy: unknown";
        return false;
    }
    if (!cfg->mem_bytes || cfg->mem_bytes > MCMGPU_CPE_MAX_MEM_BYTES ||
        cfg->mem_bytes % CPE_PAGE_BYTES) {
        *why = "mem_bytes: must be a multiple of 4 KiB up to 64 MiB";
        return false;
    }
    if (!cfg->l1_sets || !cfg->l1_ways || !cfg->l2_sets || !cfg->l2_ways ||
        !cfg->l3_sets || !cfg->l3_ways || !cfg->dir_sets || !cfg->dir_ways ||
        cfg->table_rows <= MCMGPU_CPE_ROWS_PER_KERNEL ||
        cfg->table_rows > MCMGPU_CPE_TABLE_ROWS) {
        *why = "cache or table geometry: zero or too large";
        return false;
    }
    if (cfg->flags & ~MCMGPU_CPE_FLAGS) {
        *why = "flags: unknown flag";
        return false;
    }
    return true;
}

static u64 cpe_align8(u64 n)
{
    return (n + 7) & ~7ULL;
}

u64 cpe_arena_bytes(const struct cpe_config *cfg)
{
    u64 words = cfg->mem_bytes / 4;

    return cpe_align8((u64)cfg->chiplets * cfg->l2_sets * cfg->l2_ways *
                      sizeof(struct cpe_line)) +
           cpe_align8((u64)cfg->chiplets * cfg->l1_sets * cfg->l1_ways *
                      sizeof(struct cpe_tag)) +
           cpe_align8((u64)cfg->l3_sets * cfg->l3_ways *
                      sizeof(struct cpe_tag)) +
           cpe_align8((u64)cfg->chiplets * cfg->dir_sets * cfg->dir_ways *
                      sizeof(struct cpe_dir)) +
           2 * cpe_align8(words * 4) +
           cpe_align8(cfg->mem_bytes / CPE_PAGE_BYTES);
}

void cpe_model_init(struct cpe_model *m, const struct cpe_config *cfg,
                    void *arena)
{
    u8 *p = arena;
    u64 pages = cfg->mem_bytes / CPE_PAGE_BYTES, i;

    memset(m, 0, sizeof(*m));
    m->cfg = *cfg;
    m->l2 = (struct cpe_line *)p;
    p += cpe_align8((u64)cfg->chiplets * cfg->l2_sets * cfg->l2_ways *
                    sizeof(struct cpe_line));
    m->l1 = (struct cpe_tag *)p;
    p += cpe_align8((u64)cfg->chiplets * cfg->l1_sets * cfg->l1_ways *
                    sizeof(struct cpe_tag));
    m->l3 = (struct cpe_tag *)p;
    p += cpe_align8((u64)cfg->l3_sets * cfg->l3_ways * sizeof(struct cpe_tag));
    m->dir = (struct cpe_dir *)p;
    p += cpe_align8((u64)cfg->chiplets * cfg->dir_sets * cfg->dir_ways *
                    sizeof(struct cpe_dir));
    m->mem_ver = (u32 *)p;
    p += cpe_align8(cfg->mem_bytes);
    m->golden = (u32 *)p;
    p += cpe_align8(cfg->mem_bytes);
    m->home = (s8 *)p;
    for (i = 0; i < pages; i++) {
        m->home[i] = -1;
    }
}

/* ---- caches ------------------------------------------------------------ */

static struct cpe_tag *cpe_tag_lookup(struct cpe_tag *set, u32 ways, u64 tag,
                                      u32 clock, bool *hit)
{
    struct cpe_tag *victim = &set[0];
    u32 w;

    for (w = 0; w < ways; w++) {
        if (set[w].tag == tag) {
            set[w].lru = clock;
            *hit = true;
            return &set[w];
        }
        if (!set[w].tag || (victim->tag && set[w].lru < victim->lru)) {
            victim = &set[w];
        }
    }
    *hit = false;
    victim->tag = tag;
    victim->lru = clock;
    return victim;
}

static struct cpe_line *cpe_l2_set(struct cpe_model *m, u32 c, u64 line)
{
    return &m->l2[((u64)c * m->cfg.l2_sets + line % m->cfg.l2_sets) *
                  m->cfg.l2_ways];
}

static u32 cpe_home(struct cpe_model *m, u32 c, u64 line)
{
    u64 page = line * CPE_LINE_BYTES / CPE_PAGE_BYTES;

    if (m->home[page] < 0) {
        m->home[page] = (s8)c;      /* first touch */
    }
    return (u32)m->home[page];
}

/*
 * n flits between chiplet c's L2 and the home of a line: local ones go to
 * the L3 slice, remote ones cross both chiplets' crossbar ports.
 */
static void cpe_flits(struct cpe_model *m, u32 c, u32 home, u32 n)
{
    if (home == c) {
        m->stats.flits_l2_l3 += n;
        return;
    }
    m->stats.flits_remote += n;
    m->link_bytes[c] += (u64)n * CPE_FLIT_BYTES;
    m->link_bytes[home] += (u64)n * CPE_FLIT_BYTES;
}

static void cpe_dram(struct cpe_model *m, u32 home)
{
    m->stats.dram_lines++;
    m->dram_bytes[home] += CPE_LINE_BYTES;
}

/* Words of versions that reach L3/memory: a version never goes back. */
static void cpe_mem_store(struct cpe_model *m, u64 word, u32 ver)
{
    if (m->mem_ver[word] > ver) {
        m->stats.oracle_order_violations++;
    }
    m->mem_ver[word] = ver;
}

/* Dirty words of an L2 line reach L3/memory. */
static void cpe_writeback(struct cpe_model *m, u32 c, struct cpe_line *l)
{
    u64 line = l->tag - 1, w0 = line * CPE_LINE_WORDS;
    u32 w;

    for (w = 0; w < CPE_LINE_WORDS; w++) {
        if (l->dirty >> w & 1) {
            cpe_mem_store(m, w0 + w, l->ver[w]);
        }
    }
    cpe_flits(m, c, cpe_home(m, c, line), CPE_DATA_FLITS);
    m->stats.bytes_written_back += CPE_LINE_BYTES;
    l->dirty = 0;
}

static u32 cpe_words(u32 mask)
{
    u32 n = 0;

    for (; mask; mask &= mask - 1) {
        n++;
    }
    return n;
}

static u16 cpe_word_mask(u32 w_lo, u32 w_hi)
{
    return (u16)(((2U << w_hi) - 1) & ~((1U << w_lo) - 1));
}

/* A request flit, a header and the words of mask. */
static u32 cpe_data_flits(u16 mask)
{
    return CPE_REQ_FLITS + 1 +
           (cpe_words(mask) * 4 + CPE_FLIT_BYTES - 1) / CPE_FLIT_BYTES;
}

/* Chiplet c's L2 line for line: found, or allocated empty (LRU victim). */
static struct cpe_line *cpe_l2_line(struct cpe_model *m, u32 c, u64 line)
{
    struct cpe_line *set = cpe_l2_set(m, c, line), *victim = &set[0];
    u32 w;

    m->clock++;
    for (w = 0; w < m->cfg.l2_ways; w++) {
        if (set[w].tag == line + 1) {
            set[w].lru = m->clock;
            return &set[w];
        }
        if (!set[w].tag || (victim->tag && set[w].lru < victim->lru)) {
            victim = &set[w];
        }
    }
    if (victim->tag && victim->dirty) {
        cpe_writeback(m, c, victim);
    }
    victim->tag = line + 1;
    victim->valid = 0;
    victim->dirty = 0;
    victim->lru = m->clock;
    return victim;
}

/*
 * Chiplet c reads the words of mask of line from L3/memory at the line's
 * home (beyond the L2 lookup). Returns the home.
 */
static u32 cpe_fetch(struct cpe_model *m, u32 c, u64 line, u16 mask,
                     u64 *cycles)
{
    u32 home = cpe_home(m, c, line);
    bool l3_hit;

    cpe_tag_lookup(&m->l3[(line % m->cfg.l3_sets) * m->cfg.l3_ways],
                   m->cfg.l3_ways, line + 1, m->clock, &l3_hit);
    *cycles += CPE_LAT_L3 - CPE_LAT_L2;
    if (!l3_hit) {
        *cycles += CPE_LAT_DRAM;
        cpe_dram(m, home);
    }
    if (home != c) {
        *cycles += CPE_LAT_L2_REMOTE - CPE_LAT_L2;
        m->stats.remote_accesses++;
    }
    cpe_flits(m, c, home, cpe_data_flits(mask));
    return home;
}

static void cpe_copy_words(struct cpe_line *dst, const u32 *ver, u16 mask)
{
    u32 w;

    for (w = 0; w < CPE_LINE_WORDS; w++) {
        if (mask >> w & 1) {
            dst->ver[w] = ver[w];
        }
    }
    dst->valid |= mask;
}

/*
 * The L2 line for (c, line) with the words of need valid. VIPER-style
 * (notes A4): a line holds a per-word valid mask; a read (fill) of a word
 * not valid misses and fetches only the missing words of need, so a line
 * never holds words its chiplet did not access; a write (!fill) allocates
 * without fetching. A read is an L2 hit only if every word it needs is
 * valid.
 */
static struct cpe_line *cpe_l2_get(struct cpe_model *m, u32 c, u64 line,
                                   u16 need, bool fill, u64 *cycles,
                                   bool *hit)
{
    struct cpe_line *l = cpe_l2_line(m, c, line);
    u16 missing = fill ? need & ~l->valid : 0;

    *hit = !(need & ~l->valid);
    *cycles += CPE_LAT_L2;
    if (missing) {
        cpe_fetch(m, c, line, missing, cycles);
        cpe_copy_words(l, &m->mem_ver[line * CPE_LINE_WORDS], missing);
    }
    return l;
}

/* ---- HMG (notes §1.3, A12) ------------------------------------------- */

/* HMG drops chiplet s's copy of line (write-through: never dirty). */
static void cpe_hmg_drop(struct cpe_model *m, u32 s, u64 line)
{
    struct cpe_line *set = cpe_l2_set(m, s, line);
    u32 w;

    for (w = 0; w < m->cfg.l2_ways; w++) {
        if (set[w].tag == line + 1) {
            set[w].tag = 0;
            m->stats.dir_invalidations++;
        }
    }
}

/* Drop the lines of one directory region from chiplet s's L2. */
static void cpe_dir_invalidate(struct cpe_model *m, u32 home, u32 s,
                               u64 region)
{
    u64 line;

    cpe_flits(m, home, s, CPE_INV_FLITS);
    for (line = region * CPE_DIR_LINES; line < (region + 1) * CPE_DIR_LINES;
         line++) {
        cpe_hmg_drop(m, s, line);
    }
}

static void cpe_dir_invalidate_sharers(struct cpe_model *m, u32 home,
                                       u64 region, u32 sharers)
{
    u32 s;

    for (s = 0; s < m->cfg.chiplets; s++) {
        if (sharers >> s & 1) {
            cpe_dir_invalidate(m, home, s, region);
        }
    }
}

/*
 * The home's entry for region; if it has none, a new one (LRU eviction)
 * when alloc, else NULL.
 */
static struct cpe_dir *cpe_dir_entry(struct cpe_model *m, u32 home,
                                     u64 region, bool alloc)
{
    struct cpe_dir *set = &m->dir[((u64)home * m->cfg.dir_sets +
                                   region % m->cfg.dir_sets) *
                                  m->cfg.dir_ways];
    struct cpe_dir *victim = &set[0];
    u32 w;

    m->clock++;
    for (w = 0; w < m->cfg.dir_ways; w++) {
        if (set[w].tag == region + 1) {
            set[w].lru = m->clock;
            return &set[w];
        }
        if (!set[w].tag || (victim->tag && set[w].lru < victim->lru)) {
            victim = &set[w];
        }
    }
    if (!alloc) {
        return NULL;
    }
    if (victim->tag) {
        /* One entry covers 4 lines: its sharers lose all of them. */
        m->stats.dir_evictions++;
        cpe_dir_invalidate_sharers(m, home, victim->tag - 1, victim->sharers);
    }
    victim->tag = region + 1;
    victim->sharers = 0;
    victim->lru = m->clock;
    return victim;
}

/*
 * HMG read miss of a remote line: the home's L2 serves it (filling from
 * L3 first if needed) and keeps a copy, the requester caches it too, and
 * the home's directory records the requester as a sharer.
 */
static struct cpe_line *cpe_hmg_read(struct cpe_model *m, u32 c, u64 line,
                                     u16 need, u64 *cycles, bool *hit)
{
    u32 home = cpe_home(m, c, line);
    struct cpe_line *l, *hl;
    u16 missing;

    if (home == c) {
        return cpe_l2_get(m, c, line, need, true, cycles, hit);
    }
    l = cpe_l2_line(m, c, line);
    missing = need & ~l->valid;
    *hit = !missing;
    *cycles += CPE_LAT_L2;
    if (!missing) {
        return l;
    }
    *cycles += CPE_LAT_L2_REMOTE - CPE_LAT_L2;
    m->stats.remote_accesses++;
    cpe_dir_entry(m, home, line / CPE_DIR_LINES, true)->sharers |= 1U << c;
    hl = cpe_l2_line(m, home, line);
    if (missing & ~hl->valid) {
        u64 home_cycles = 0;

        cpe_fetch(m, home, line, missing & ~hl->valid, &home_cycles);
        *cycles += home_cycles;
        cpe_copy_words(hl, &m->mem_ver[line * CPE_LINE_WORDS],
                       missing & ~hl->valid);
    }
    cpe_flits(m, c, home, cpe_data_flits(missing));
    cpe_copy_words(l, hl->ver, missing);
    return l;
}

/*
 * HMG write: the words go through to the home's L2 and to memory, the
 * writer keeps a valid copy, and the directory invalidates every other
 * sharer of the region.
 */
static void cpe_hmg_write(struct cpe_model *m, u32 c, u64 line,
                          struct cpe_line *l, u16 need)
{
    u32 home = cpe_home(m, c, line), w, others = 0;
    u64 region = line / CPE_DIR_LINES;
    /* The home's own writes need an entry only if it has sharers. */
    struct cpe_dir *e = cpe_dir_entry(m, home, region, home != c);

    if (e) {
        others = e->sharers & ~(1U << c);
        if (m->cfg.mutate & CPE_MUTATE_HMG_KEEP_SHARERS) {
            others = 0;
        }
        e->sharers &= ~others;
        if (home != c) {
            e->sharers |= 1U << c;
        }
    }
    cpe_dir_invalidate_sharers(m, home, region, others);
    if (home != c) {
        cpe_copy_words(cpe_l2_line(m, home, line), l->ver, need);
        cpe_flits(m, c, home, cpe_data_flits(need));
    }
    for (w = 0; w < CPE_LINE_WORDS; w++) {
        if (need >> w & 1) {
            cpe_mem_store(m, line * CPE_LINE_WORDS + w, l->ver[w]);
        }
    }
    cpe_flits(m, home, home, cpe_data_flits(need));
    cpe_dram(m, home);
    m->stats.writes_through++;
}

/* ---- accesses ---------------------------------------------------------- */

/*
 * Chiplet c reads (and for RW then writes) words [w_lo, w_hi] of line.
 * Lines homed elsewhere bypass c's L2 unless remote data is cached (the
 * flag) or the policy is HMG: reads are served at the home, stores are
 * written through to it (notes A2).
 */
static void cpe_access(struct cpe_model *m, u32 c, u64 line, u32 w_lo,
                       u32 w_hi, bool write)
{
    struct cpe_tag *l1set = &m->l1[((u64)c * m->cfg.l1_sets +
                                    line % m->cfg.l1_sets) * m->cfg.l1_ways];
    struct cpe_tag *l1;
    u64 *cycles = &m->exec_cycles[c], w0 = line * CPE_LINE_WORDS;
    struct cpe_line *l = NULL;
    u16 need = cpe_word_mask(w_lo, w_hi);
    bool hmg = m->cfg.policy == MCMGPU_CPE_POLICY_HMG;
    bool bypass = !hmg && !(m->cfg.flags & MCMGPU_CPE_FLAG_CACHE_REMOTE) &&
                  cpe_home(m, c, line) != c;
    bool l1_hit, hit;
    u32 w;

    l1 = cpe_tag_lookup(l1set, m->cfg.l1_ways, line + 1, ++m->clock,
                        &l1_hit);
    if (!l1_hit) {
        l1->valid = 0;
    }
    if (l1_hit && !(need & ~l1->valid)) {
        /* L1 copies live within one kernel of race-free accesses. */
        m->stats.l1_hits++;
        *cycles += CPE_LAT_L1;
    } else {
        /* An L1 hit only on words it fetched: the oracle sees each word. */
        const u32 *ver;

        l1->valid |= need;
        m->stats.flits_l1_l2 += CPE_REQ_FLITS + CPE_DATA_FLITS;
        if (bypass) {
            *cycles += CPE_LAT_L2;
            cpe_fetch(m, c, line, need, cycles);
            m->stats.remote_uncached++;
            ver = &m->mem_ver[w0];
        } else {
            l = hmg ? cpe_hmg_read(m, c, line, need, cycles, &hit) :
                      cpe_l2_get(m, c, line, need, true, cycles, &hit);
            if (hit) {
                m->stats.l2_hits++;
            } else {
                m->stats.l2_misses++;
            }
            ver = l->ver;
        }
        for (w = w_lo; w <= w_hi; w++) {
            if (ver[w] != m->golden[w0 + w]) {
                m->stats.oracle_read_violations++;
            }
        }
    }
    if (!write) {
        return;
    }
    /* Write-through L1; write-back write-allocate (no fill) L2. */
    m->stats.flits_l1_l2 += CPE_DATA_FLITS;
    if (bypass) {
        u32 home = cpe_home(m, c, line);

        *cycles += CPE_LAT_L2_REMOTE;
        for (w = w_lo; w <= w_hi; w++) {
            cpe_mem_store(m, w0 + w, ++m->golden[w0 + w]);
        }
        cpe_flits(m, c, home, cpe_data_flits(need));
        m->stats.writes_through++;
        return;
    }
    if (!l) {
        l = cpe_l2_get(m, c, line, need, false, cycles, &hit);
    }
    for (w = w_lo; w <= w_hi; w++) {
        l->ver[w] = ++m->golden[w0 + w];
    }
    l->valid |= need;
    if (hmg) {
        cpe_hmg_write(m, c, line, l, need);
    } else {
        l->dirty |= need;
    }
}

static u64 cpe_l2_lines(const struct cpe_model *m)
{
    return (u64)m->cfg.l2_sets * m->cfg.l2_ways;
}

/* INV: drop clean words, keep dirty ones (A3). Returns walk cycles. */
static u64 cpe_l2_invalidate(struct cpe_model *m, u32 c)
{
    struct cpe_line *l = &m->l2[(u64)c * cpe_l2_lines(m)];
    u64 i;

    for (i = 0; i < cpe_l2_lines(m); i++) {
        l[i].valid = l[i].dirty;
        if (l[i].tag && !l[i].dirty) {
            l[i].tag = 0;
        }
    }
    m->stats.l2_invalidates++;
    return 2 * cpe_cp_to_gpu(CPE_XBAR_UNICAST) + CPE_FLASH_INVALIDATE_CYCLES;
}

/*
 * FLUSH: write back dirty words; a line whose valid words were all dirty
 * stays as a clean copy (A3), others are dropped.
 */
static u64 cpe_l2_flush(struct cpe_model *m, u32 c)
{
    struct cpe_line *l = &m->l2[(u64)c * cpe_l2_lines(m)];
    u64 i, bytes = 0;
    bool full;

    for (i = 0; i < cpe_l2_lines(m); i++) {
        if (!l[i].tag || !l[i].dirty) {
            continue;
        }
        full = l[i].dirty == l[i].valid;
        cpe_writeback(m, c, &l[i]);
        if (!full) {
            l[i].tag = 0;
        }
        bytes += CPE_LINE_BYTES;
    }
    m->stats.l2_flushes++;
    return 2 * cpe_cp_to_gpu(CPE_XBAR_UNICAST) +
           (u64)m->cfg.l2_sets * CPE_WALK_CYCLES_PER_SET +
           bytes / CPE_LINK_BYTES_PER_CYCLE;
}

/* ---- the table ---------------------------------------------------------- */

static bool cpe_overlap(u64 alo, u64 ahi, u64 blo, u64 bhi)
{
    /* Line granularity (A4). */
    if (alo > ahi || blo > bhi) {
        return false;
    }
    return alo / CPE_LINE_BYTES <= bhi / CPE_LINE_BYTES &&
           blo / CPE_LINE_BYTES <= ahi / CPE_LINE_BYTES;
}

static void cpe_set_state(struct cpe_row *r, u32 c, u8 st)
{
    r->state[c] = st;
    if (st == CPE_NP) {
        r->lo[c] = CPE_NO_RANGE_LO;
        r->hi[c] = CPE_NO_RANGE_HI;
    }
}

/* Whole-cache effects of one operation on every row of chiplet c. */
static void cpe_rows_after_invalidate(struct cpe_model *m, u32 c)
{
    u32 i;

    for (i = 0; i < MCMGPU_CPE_TABLE_ROWS; i++) {
        if (m->row[i].used && m->row[i].state[c] != CPE_D) {
            cpe_set_state(&m->row[i], c, CPE_NP);
        }
    }
}

static void cpe_rows_after_flush(struct cpe_model *m, u32 c)
{
    u32 i;

    for (i = 0; i < MCMGPU_CPE_TABLE_ROWS; i++) {
        if (m->row[i].used && m->row[i].state[c] == CPE_D) {
            m->row[i].state[c] = CPE_V;
        }
    }
}

static void cpe_free_empty_rows(struct cpe_model *m)
{
    u32 i, c;

    for (i = 0; i < MCMGPU_CPE_TABLE_ROWS; i++) {
        bool present = false;

        for (c = 0; c < m->cfg.chiplets; c++) {
            present |= m->row[i].state[c] != CPE_NP;
        }
        if (m->row[i].used && !present) {
            m->row[i].used = false;
        }
    }
}

u32 cpe_table_rows_used(const struct cpe_model *m)
{
    u32 i, n = 0;

    for (i = 0; i < MCMGPU_CPE_TABLE_ROWS; i++) {
        n += m->row[i].used;
    }
    return n;
}

/*
 * Issue the operations of one launch; returns the sync cycles. Acquire
 * before release (§III-B): an invalidate keeps dirty words, and the flush
 * after it keeps the lines just written back. A chiplet in first_mask
 * (its copy goes Dirty -> Stale) flushes first instead, so the invalidate
 * also drops the copies the kernel's writers make stale.
 */
static u64 cpe_sync_ordered(struct cpe_model *m, u32 inv_mask,
                            u32 flush_mask, u32 first_mask)
{
    u64 worst = 0, t;
    u32 c;

    if (m->cfg.mutate & CPE_MUTATE_DROP_ACQUIRE && inv_mask) {
        inv_mask &= inv_mask - 1;   /* lose one acquire */
    }
    if (m->cfg.mutate & CPE_MUTATE_DROP_RELEASE && flush_mask) {
        flush_mask &= flush_mask - 1;
    }
    for (c = 0; c < m->cfg.chiplets; c++) {
        bool inv = inv_mask >> c & 1, flush = flush_mask >> c & 1;
        bool first = first_mask >> c & 1;

        t = 0;
        if (flush && first) {
            t += cpe_l2_flush(m, c);
            cpe_rows_after_flush(m, c);
        }
        if (inv) {
            t += cpe_l2_invalidate(m, c);
            cpe_rows_after_invalidate(m, c);
        }
        if (flush && !first) {
            t += cpe_l2_flush(m, c);
            cpe_rows_after_flush(m, c);
        }
        if (t > worst) {
            worst = t;
        }
    }
    return worst;
}

/* Flush first everywhere: rows leave the table or merge (A5, A6). */
static u64 cpe_sync(struct cpe_model *m, u32 inv_mask, u32 flush_mask)
{
    return cpe_sync_ordered(m, inv_mask, flush_mask, flush_mask);
}

static void cpe_merge_into(struct cpe_model *m, struct cpe_row *dst,
                           struct cpe_row *src, u64 *sync)
{
    u32 c;

    for (c = 0; c < m->cfg.chiplets; c++) {
        u8 a = dst->state[c], b = src->state[c];

        if ((a == CPE_D && b == CPE_S) || (a == CPE_S && b == CPE_D)) {
            /* Not representable (A6): release the dirty copy first. */
            *sync += cpe_sync(m, 0, 1U << c);
            a = dst->state[c];
            b = src->state[c];
        }
        dst->state[c] = (a == CPE_S || b == CPE_S) ? CPE_S :
                        (a == CPE_D || b == CPE_D) ? CPE_D :
                        (a == CPE_V || b == CPE_V) ? CPE_V : CPE_NP;
        if (src->lo[c] < dst->lo[c]) {
            dst->lo[c] = src->lo[c];
        }
        if (src->hi[c] > dst->hi[c]) {
            dst->hi[c] = src->hi[c];
        }
        if (dst->state[c] == CPE_NP) {
            cpe_set_state(dst, c, CPE_NP);
        }
    }
    if (src->base < dst->base) {
        dst->base = src->base;
    }
    if (src->end > dst->end) {
        dst->end = src->end;
    }
    if (src->last_use > dst->last_use) {
        dst->last_use = src->last_use;
    }
    src->used = false;
}

/* Make a row NotPresent everywhere with its syncs, then drop it (A5). */
static void cpe_evict_lru_row(struct cpe_model *m, u64 *sync)
{
    struct cpe_row *victim = NULL;
    u32 i, c, inv = 0, flush = 0;

    for (i = 0; i < MCMGPU_CPE_TABLE_ROWS; i++) {
        if (m->row[i].used &&
            (!victim || m->row[i].last_use < victim->last_use)) {
            victim = &m->row[i];
        }
    }
    if (!victim) {
        return;
    }
    for (c = 0; c < m->cfg.chiplets && c < MCMGPU_MAX_CHIPLETS; c++) {
        if (victim->state[c] == CPE_D) {
            flush |= 1U << c;
        }
        if (victim->state[c] != CPE_NP) {
            inv |= 1U << c;
        }
    }
    *sync += cpe_sync(m, inv, flush);
    victim->used = false;
    m->stats.overflow_evictions++;
}

/* The row that covers [base, end); rows it overlaps are merged into it. */
static struct cpe_row *cpe_row_for(struct cpe_model *m, u64 base, u64 end,
                                   u64 *sync)
{
    struct cpe_row *row = NULL;
    u32 i, c;

    for (i = 0; i < MCMGPU_CPE_TABLE_ROWS; i++) {
        struct cpe_row *r = &m->row[i];

        if (!r->used || r->end <= base || end <= r->base) {
            continue;
        }
        if (!row) {
            row = r;
        } else {
            cpe_merge_into(m, row, r, sync);
        }
    }
    if (row) {
        if (base < row->base) {
            row->base = base;
        }
        if (end > row->end) {
            row->end = end;
        }
        return row;
    }
    while (cpe_table_rows_used(m) >= m->cfg.table_rows) {
        cpe_evict_lru_row(m, sync);
    }
    row = &m->row[0];   /* eviction above guarantees a free row */
    for (i = 0; i < MCMGPU_CPE_TABLE_ROWS; i++) {
        if (!m->row[i].used) {
            row = &m->row[i];
            break;
        }
    }
    memset(row, 0, sizeof(*row));
    row->used = true;
    row->base = base;
    row->end = end;
    for (c = 0; c < MCMGPU_MAX_CHIPLETS; c++) {
        cpe_set_state(row, c, CPE_NP);
    }
    return row;
}

bool cpe_arg_range(const struct mcmgpu_cpe_record *r,
                   const struct mcmgpu_cpe_arg *a, u32 c, u64 *lo, u64 *hi)
{
    u32 k = 0, idx = 0, i;
    u64 chunk, start;

    if (!(r->chiplet_mask >> c & 1)) {
        return false;
    }
    if (a->kind == MCMGPU_CPE_ARG_EXPLICIT) {
        *lo = a->range[c].start;
        *hi = a->range[c].end;
        return *lo <= *hi;
    }
    for (i = 0; i < MCMGPU_MAX_CHIPLETS; i++) {
        if (r->chiplet_mask >> i & 1) {
            if (i < c) {
                idx++;
            }
            k++;
        }
    }
    /* Equal, line-aligned chunks (A16). */
    chunk = (a->size + k - 1) / k;
    chunk = (chunk + CPE_LINE_BYTES - 1) / CPE_LINE_BYTES * CPE_LINE_BYTES;
    start = idx * chunk;
    if (start >= a->size) {
        return false;
    }
    *lo = a->base + start;
    *hi = a->base + (start + chunk < a->size ? start + chunk : a->size) - 1;
    return true;
}

/* Coarsening (§III-B): group arguments into at most 8 spans. */
static u32 cpe_coarsen(struct cpe_model *m, const struct mcmgpu_cpe_record *r,
                       u32 *group, u64 *gbase, u64 *gend)
{
    u32 n = r->nargs, i, j, groups = n;

    for (i = 0; i < n; i++) {
        group[i] = i;
        gbase[i] = r->args[i].base;
        gend[i] = r->args[i].base + r->args[i].size;
    }
    /* Arguments on the same or overlapping objects share a row anyway. */
    while (groups > MCMGPU_CPE_ROWS_PER_KERNEL) {
        u32 best_a = 0, best_b = 0;
        u64 best_gap = UINT64_MAX;

        for (i = 0; i < n; i++) {
            for (j = 0; j < n; j++) {
                u64 gap;

                if (group[i] != i || group[j] != j || i == j) {
                    continue;
                }
                gap = gbase[j] >= gend[i] ? gbase[j] - gend[i] :
                      gbase[i] >= gend[j] ? gbase[i] - gend[j] : 0;
                if (gap < best_gap) {
                    best_gap = gap;
                    best_a = i;
                    best_b = j;
                }
            }
        }
        for (i = 0; i < n; i++) {
            if (group[i] == best_b) {
                group[i] = best_a;
            }
        }
        if (gbase[best_b] < gbase[best_a]) {
            gbase[best_a] = gbase[best_b];
        }
        if (gend[best_b] > gend[best_a]) {
            gend[best_a] = gend[best_b];
        }
        groups--;
        m->stats.coarsened_args++;
    }
    return groups;
}

static u32 cpe_all_mask(const struct cpe_model *m)
{
    return (1U << m->cfg.chiplets) - 1;
}

/* Chiplets holding Dirty data that overlaps [lo, hi] (all: lo > hi). */
static u32 cpe_dirty_holders(struct cpe_model *m, u64 lo, u64 hi, bool all)
{
    u32 i, c, mask = 0;

    for (i = 0; i < MCMGPU_CPE_TABLE_ROWS; i++) {
        const struct cpe_row *e = &m->row[i];

        for (c = 0; c < m->cfg.chiplets && e->used; c++) {
            if (e->state[c] == CPE_D &&
                (all || cpe_overlap(e->lo[c], e->hi[c], lo, hi))) {
                mask |= 1U << c;
            }
        }
    }
    return mask;
}

/* The lazy acquire/release decision of one launch (§2.5 of the notes). */
static u64 cpe_launch_cpelide(struct cpe_model *m,
                              const struct mcmgpu_cpe_record *r)
{
    struct cpe_row *rows[MCMGPU_CPE_MAX_ARGS];
    u32 group[MCMGPU_CPE_MAX_ARGS], inv = 0, flush = 0, d_to_s = 0, i, c, d;
    u64 gbase[MCMGPU_CPE_MAX_ARGS], gend[MCMGPU_CPE_MAX_ARGS], lo, hi, sync = 0;
    bool unknown = false;

    for (i = 0; i < r->nargs; i++) {
        unknown |= r->args[i].kind == MCMGPU_CPE_ARG_UNKNOWN;
    }
    if (unknown) {
        /*
         * Baseline sync (§III-C): release what earlier kernels left dirty,
         * invalidate every L2 (which empties the table), and release every
         * L2 again at completion (m->completion_flush).
         */
        flush = cpe_dirty_holders(m, 1, 0, true);
        sync += cpe_sync(m, cpe_all_mask(m), flush);
        for (i = 0; i < MCMGPU_CPE_TABLE_ROWS; i++) {
            m->row[i].used = false;
        }
        m->completion_flush = true;
        m->stats.conservative_launches++;
    }

    cpe_coarsen(m, r, group, gbase, gend);
    /* Look up every group's span first, merging rows it overlaps ... */
    for (i = 0; i < r->nargs; i++) {
        if (group[i] == i) {
            cpe_row_for(m, gbase[i], gend[i], &sync)->last_use =
                ++m->launches;
        }
    }
    /*
     * ... and only then take each argument's row. A later group's lookup
     * can merge an earlier group's row away and hand its slot to a new
     * row, so a pointer kept from the loop above may name another range
     * (issue 16). Rows stay disjoint, so each span now overlaps exactly
     * one row and this lookup neither merges nor allocates.
     */
    for (i = 0; i < r->nargs; i++) {
        rows[i] = cpe_row_for(m, gbase[group[i]], gend[group[i]], &sync);
    }

    /* Phase 1: releases, and Stale marking for everything written. */
    for (i = 0; i < r->nargs && !unknown; i++) {
        const struct mcmgpu_cpe_arg *a = &r->args[i];
        struct cpe_row *e = rows[i];

        for (c = 0; c < m->cfg.chiplets; c++) {
            if (!cpe_arg_range(r, a, c, &lo, &hi)) {
                continue;
            }
            for (d = 0; d < m->cfg.chiplets; d++) {
                if (d == c || !cpe_overlap(e->lo[d], e->hi[d], lo, hi)) {
                    continue;
                }
                if (e->state[d] == CPE_D) {
                    flush |= 1U << d;
                }
                if (a->mode == MCMGPU_CPE_MODE_RW &&
                    !(m->cfg.mutate & CPE_MUTATE_SKIP_STALE) &&
                    (e->state[d] == CPE_V || e->state[d] == CPE_D)) {
                    d_to_s |= (e->state[d] == CPE_D) << d;
                    e->state[d] = CPE_S;
                }
            }
        }
    }
    /* Phase 2: acquires where this kernel would find a Stale copy. */
    for (i = 0; i < r->nargs && !unknown; i++) {
        for (c = 0; c < m->cfg.chiplets; c++) {
            if (cpe_arg_range(r, &r->args[i], c, &lo, &hi) &&
                rows[i]->state[c] == CPE_S) {
                inv |= 1U << c;
            }
        }
    }
    if (!unknown) {
        sync += cpe_sync_ordered(m, inv, flush, d_to_s);
    }

    /* The kernel's own accesses: read -> V (D stays D), write -> D. */
    for (i = 0; i < r->nargs; i++) {
        const struct mcmgpu_cpe_arg *a = &r->args[i];
        struct cpe_row *e = rows[i];

        for (c = 0; c < m->cfg.chiplets; c++) {
            if (!(r->chiplet_mask >> c & 1)) {
                continue;
            }
            if (a->kind == MCMGPU_CPE_ARG_UNKNOWN) {
                lo = a->base;
                hi = a->base + a->size - 1;
            } else if (!cpe_arg_range(r, a, c, &lo, &hi)) {
                continue;
            }
            if (a->mode == MCMGPU_CPE_MODE_RW) {
                e->state[c] = CPE_D;
            } else if (e->state[c] != CPE_D) {
                e->state[c] = CPE_V;
            }
            if (lo < e->lo[c]) {
                e->lo[c] = lo;
            }
            if (hi > e->hi[c]) {
                e->hi[c] = hi;
            }
        }
    }
    cpe_free_empty_rows(m);
    return sync;
}

static void cpe_run_kernel(struct cpe_model *m,
                           const struct mcmgpu_cpe_record *r)
{
    u32 p, i, c;
    u64 lo, hi;

    for (p = 0; p < r->passes; p++) {
        for (i = 0; i < r->nargs; i++) {
            const struct mcmgpu_cpe_arg *a = &r->args[i];

            for (c = 0; c < m->cfg.chiplets; c++) {
                struct mcmgpu_cpe_arg even = *a;
                u64 line;

                if (a->kind == MCMGPU_CPE_ARG_UNKNOWN) {
                    even.kind = MCMGPU_CPE_ARG_EVEN;
                }
                if (!cpe_arg_range(r, &even, c, &lo, &hi)) {
                    continue;
                }
                for (line = lo / CPE_LINE_BYTES; line <= hi / CPE_LINE_BYTES;
                     line++) {
                    u64 ls = line * CPE_LINE_BYTES;
                    u32 w_lo = lo > ls ? (lo - ls) / 4 : 0;
                    u32 w_hi = hi < ls + CPE_LINE_BYTES - 1 ?
                               (hi - ls) / 4 : CPE_LINE_WORDS - 1;

                    cpe_access(m, c, line, w_lo, w_hi,
                               a->mode == MCMGPU_CPE_MODE_RW);
                }
            }
        }
    }
}

static void cpe_kernel(struct cpe_model *m, const struct mcmgpu_cpe_record *r)
{
    u64 sync = 0, exec = 0, cp = cpe_ns_to_cycles(CPE_CP_LAUNCH_NS);
    u32 c, all = cpe_all_mask(m);

    /* Every launch invalidates the L1s (write-through, so no flush). */
    for (c = 0; c < m->cfg.chiplets; c++) {
        u32 n = m->cfg.l1_sets * m->cfg.l1_ways, j;
        struct cpe_tag *l1 = &m->l1[(u64)c * n];

        for (j = 0; j < n; j++) {
            l1[j].tag = 0;
        }
        m->stats.l1_invalidates++;
    }
    m->stats.baseline_invalidates += m->cfg.chiplets;
    m->stats.baseline_flushes += m->cfg.chiplets;

    switch (m->cfg.policy) {
    case MCMGPU_CPE_POLICY_BASELINE:
        sync += cpe_sync(m, all, 0);
        break;
    case MCMGPU_CPE_POLICY_CPELIDE:
        if (!m->first_kernel_done) {
            cp += cpe_ns_to_cycles(CPE_CP_ELIDE_NS);
        }
        sync += cpe_launch_cpelide(m, r);
        break;
    }
    m->first_kernel_done = true;
    sync += cpe_cp_to_gpu(CPE_XBAR_BROADCAST);      /* launch enable */

    memset(m->exec_cycles, 0, sizeof(m->exec_cycles));
    memset(m->link_bytes, 0, sizeof(m->link_bytes));
    memset(m->dram_bytes, 0, sizeof(m->dram_bytes));
    cpe_run_kernel(m, r);
    for (c = 0; c < m->cfg.chiplets; c++) {
        u64 t = (m->exec_cycles[c] + CPE_MLP - 1) / CPE_MLP;

        if (t > exec) {
            exec = t;
        }
    }
    /*
     * Bandwidth (issue 8): the kernel cannot finish before its busiest
     * shared path, a chiplet's crossbar port or its HBM stack, has moved
     * its bytes (the saturation limit of the queue on that path).
     */
    for (c = 0; c < m->cfg.chiplets; c++) {
        u64 t = (m->link_bytes[c] + CPE_LINK_BYTES_PER_CYCLE - 1) /
                CPE_LINK_BYTES_PER_CYCLE;
        u64 d = (m->dram_bytes[c] + CPE_HBM_BYTES_PER_CYCLE - 1) /
                CPE_HBM_BYTES_PER_CYCLE;

        t = d > t ? d : t;
        if (t > exec) {
            m->stats.bandwidth_cycles += t - exec;
            exec = t;
        }
    }
    if (m->cfg.policy == MCMGPU_CPE_POLICY_BASELINE || m->completion_flush) {
        sync += cpe_sync(m, 0, all);                /* release at completion */
        m->completion_flush = false;
    }
    m->stats.kernels++;
    m->stats.cp_cycles += cp;
    m->stats.sync_cycles += sync;
    m->stats.modeled_cycles += cp + sync + exec;
    if (cpe_table_rows_used(m) > m->stats.table_peak_rows) {
        m->stats.table_peak_rows = cpe_table_rows_used(m);
    }
}

/* The host writes [lo, hi] in memory: new versions, straight to memory. */
static void cpe_host_write(struct cpe_model *m, u64 lo, u64 hi)
{
    u64 w;

    for (w = lo / 4; w <= hi / 4; w++) {
        m->mem_ver[w] = ++m->golden[w];
    }
}

static void cpe_host(struct cpe_model *m, const struct mcmgpu_cpe_record *r)
{
    u64 lo = r->args[0].range[0].start, hi = r->args[0].range[0].end, sync;
    u32 i, c, holders;

    if (m->cfg.policy == MCMGPU_CPE_POLICY_CPELIDE) {
        holders = cpe_dirty_holders(m, lo, hi, false);
        sync = cpe_sync(m, 0, holders);
        if (r->type == MCMGPU_CPE_REC_HOST_WRITE) {
            for (i = 0; i < MCMGPU_CPE_TABLE_ROWS; i++) {
                for (c = 0; c < m->cfg.chiplets && m->row[i].used; c++) {
                    if (m->row[i].state[c] != CPE_NP &&
                        cpe_overlap(m->row[i].lo[c], m->row[i].hi[c], lo, hi)) {
                        m->row[i].state[c] = CPE_S;
                    }
                }
            }
        }
        m->stats.sync_cycles += sync;
        m->stats.modeled_cycles += sync;
    }
    if (m->cfg.policy == MCMGPU_CPE_POLICY_HMG &&
        r->type == MCMGPU_CPE_REC_HOST_WRITE) {
        /* The host writes through the homes: every L2 copy goes. */
        for (c = 0; c < m->cfg.chiplets; c++) {
            u64 line;

            for (line = lo / CPE_LINE_BYTES; line <= hi / CPE_LINE_BYTES;
                 line++) {
                cpe_hmg_drop(m, c, line);
            }
        }
    }
    if (r->type == MCMGPU_CPE_REC_HOST_READ) {
        u64 w;

        for (w = lo / 4; w <= hi / 4; w++) {
            if (m->mem_ver[w] != m->golden[w] &&
                m->cfg.policy != MCMGPU_CPE_POLICY_IDEAL) {
                m->stats.oracle_read_violations++;
            }
        }
    } else {
        cpe_host_write(m, lo, hi);
    }
}

/* The final release: flush every chiplet that may hold dirty data. */
static void cpe_end(struct cpe_model *m)
{
    u32 mask;
    u64 sync;

    if (m->cfg.policy == MCMGPU_CPE_POLICY_CPELIDE) {
        mask = cpe_dirty_holders(m, 1, 0, true);
    } else if (m->cfg.policy == MCMGPU_CPE_POLICY_IDEAL) {
        mask = cpe_all_mask(m);
    } else {
        mask = 0;               /* already released at every completion */
    }
    sync = cpe_sync(m, 0, mask);
    m->stats.sync_cycles += sync;
    m->stats.modeled_cycles += sync;
    m->ended = true;
}

void cpe_model_record(struct cpe_model *m, const struct mcmgpu_cpe_record *r)
{
    m->stats.launches++;
    m->ended = false;
    switch (r->type) {
    case MCMGPU_CPE_REC_KERNEL:
        cpe_kernel(m, r);
        break;
    case MCMGPU_CPE_REC_HOST_READ:
    case MCMGPU_CPE_REC_HOST_WRITE:
        cpe_host(m, r);
        break;
    case MCMGPU_CPE_REC_END:
        cpe_end(m);
        break;
    }
}

void cpe_model_finish(struct cpe_model *m)
{
    u64 w, words = m->cfg.mem_bytes / 4;
    struct mcmgpu_cpe_record end = { .type = MCMGPU_CPE_REC_END };

    if (!m->ended) {
        cpe_model_record(m, &end);
    }
    /* Idempotent: the device runs this at every END record. */
    m->stats.oracle_final_violations = 0;
    if (m->cfg.policy != MCMGPU_CPE_POLICY_IDEAL) {
        for (w = 0; w < words; w++) {
            m->stats.oracle_final_violations += m->mem_ver[w] != m->golden[w];
        }
    }
    if (m->cfg.policy == MCMGPU_CPE_POLICY_IDEAL) {
        m->stats.oracle_read_violations = 0;
        m->stats.oracle_order_violations = 0;
    }
    m->stats.oracle_violations = m->stats.oracle_read_violations +
                                 m->stats.oracle_order_violations +
                                 m->stats.oracle_final_violations;
}

/* ---- input checks ------------------------------------------------------ */

static int cpe_fail(struct cpe_error *err, u32 arg, const char *what, u64 v)
{
    err->arg = arg;
    err->what = what;
    err->value = v;
    return -1;
}

static int cpe_check_range(u64 lo, u64 hi, u64 base, u64 size, u32 arg,
                           struct cpe_error *err)
{
    if (lo > hi || lo < base || hi >= base + size) {
        return cpe_fail(err, arg, "range: outside the object", lo);
    }
    if (lo % 4 || (hi + 1) % 4) {
        return cpe_fail(err, arg, "range: not 4-byte aligned", lo);
    }
    return 0;
}

bool cpe_reset_check(const struct mcmgpu_cpe_record *r, const char **why)
{
    struct cpe_config cfg;

    if (r->type != MCMGPU_CPE_REC_RESET) {
        *why = "type: not a reset record";
        return false;
    }
    cpe_config_of_reset(&cfg, r);
    return cpe_config_valid(&cfg, why);
}

int cpe_record_check(const struct cpe_model *m,
                     const struct mcmgpu_cpe_record *r,
                     struct cpe_error *err)
{
    u32 i, j, c, d;
    u64 lo, hi, lo2, hi2;

    if (r->flags) {
        return cpe_fail(err, 0, "flags: only a reset record has flags",
                        r->flags);
    }
    if (r->type == MCMGPU_CPE_REC_END) {
        return 0;
    }
    if (r->type == MCMGPU_CPE_REC_HOST_READ ||
        r->type == MCMGPU_CPE_REC_HOST_WRITE) {
        const struct mcmgpu_cpe_arg *a = &r->args[0];

        if (r->nargs != 1) {
            return cpe_fail(err, 0, "nargs: a host record has one range",
                            r->nargs);
        }
        if (a->size == 0 || a->base > m->cfg.mem_bytes ||
            a->size > m->cfg.mem_bytes - a->base) {
            return cpe_fail(err, 1, "object: outside the sequence's memory",
                            a->base);
        }
        return cpe_check_range(a->range[0].start, a->range[0].end, a->base,
                               a->size, 1, err);
    }
    if (r->type != MCMGPU_CPE_REC_KERNEL) {
        return cpe_fail(err, 0, "type: unknown record type", r->type);
    }
    if (!r->chiplet_mask) {
        return cpe_fail(err, 0, "chiplets: empty chiplet set", 0);
    }
    if (r->chiplet_mask >> m->cfg.chiplets) {
        return cpe_fail(err, 0, "chiplets: no such chiplet", r->chiplet_mask);
    }
    if (!r->nargs || r->nargs > MCMGPU_CPE_MAX_ARGS) {
        return cpe_fail(err, 0, "nargs: must be 1..16", r->nargs);
    }
    if (!r->passes || r->passes > MCMGPU_CPE_MAX_PASSES) {
        return cpe_fail(err, 0, "passes: must be 1..1024", r->passes);
    }
    for (i = 0; i < r->nargs; i++) {
        const struct mcmgpu_cpe_arg *a = &r->args[i];

        if (a->size == 0 || a->base > m->cfg.mem_bytes ||
            a->size > m->cfg.mem_bytes - a->base || a->base % 4 ||
            a->size % 4) {
            return cpe_fail(err, i + 1, "object: outside the sequence's memory "
                            "or not 4-byte aligned", a->base);
        }
        if (a->mode != MCMGPU_CPE_MODE_R && a->mode != MCMGPU_CPE_MODE_RW) {
            return cpe_fail(err, i + 1, "mode: must be r or rw", a->mode);
        }
        if (a->kind > MCMGPU_CPE_ARG_EXPLICIT) {
            return cpe_fail(err, i + 1, "kind: unknown range kind", a->kind);
        }
        if (a->kind != MCMGPU_CPE_ARG_EXPLICIT) {
            continue;
        }
        for (c = 0; c < MCMGPU_MAX_CHIPLETS; c++) {
            if (a->range[c].start > a->range[c].end) {
                continue;
            }
            if (!(r->chiplet_mask >> c & 1)) {
                return cpe_fail(err, i + 1, "range: for a chiplet not in the "
                                "kernel's set", c);
            }
            if (cpe_check_range(a->range[c].start, a->range[c].end, a->base,
                                a->size, i + 1, err)) {
                return -1;
            }
        }
    }
    /* Bound the work of one launch so a guest cannot stall the device. */
    {
        u64 lines = 0;

        for (i = 0; i < r->nargs; i++) {
            struct mcmgpu_cpe_arg even = r->args[i];

            if (even.kind == MCMGPU_CPE_ARG_UNKNOWN) {
                even.kind = MCMGPU_CPE_ARG_EVEN;
            }
            for (c = 0; c < MCMGPU_MAX_CHIPLETS; c++) {
                if (cpe_arg_range(r, &even, c, &lo, &hi)) {
                    lines += hi / CPE_LINE_BYTES - lo / CPE_LINE_BYTES + 1;
                }
            }
        }
        if (lines * r->passes > CPE_MAX_LINE_ACCESSES) {
            return cpe_fail(err, 0, "passes: kernel touches more than 2^23 "
                            "lines", lines * r->passes);
        }
    }
    /* HRF race: one chiplet writes bytes another accesses in this kernel. */
    for (i = 0; i < r->nargs; i++) {
        for (j = 0; j < r->nargs; j++) {
            const struct mcmgpu_cpe_arg *a = &r->args[i], *b = &r->args[j];

            if (a->mode != MCMGPU_CPE_MODE_RW) {
                continue;
            }
            for (c = 0; c < MCMGPU_MAX_CHIPLETS; c++) {
                for (d = 0; d < MCMGPU_MAX_CHIPLETS; d++) {
                    if (c == d || !cpe_arg_range(r, a, c, &lo, &hi) ||
                        !cpe_arg_range(r, b, d, &lo2, &hi2)) {
                        continue;
                    }
                    if (lo <= hi2 && lo2 <= hi) {
                        return cpe_fail(err, i + 1, "race: two chiplets access "
                                        "overlapping bytes and one writes them",
                                        c);
                    }
                }
            }
        }
    }
    return 0;
}
