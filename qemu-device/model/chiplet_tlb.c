/*
 * Barre, the device's side: chiplet TLBs and MSHRs in virtual cycles. See
 * chiplet_tlb.h for the order of events.
 *
 * Decisions where the paper is silent: the L1 TLB is one per chiplet (the
 * paper has one per CU; our chiplets issue one access stream each); both
 * TLBs are LRU; an MSHR holds up to CHIPLET_TLB_MSHR_WAITERS accesses to its
 * page, a further miss on that page waits like a miss with no MSHR free; a
 * write that hits a read-only translation is a fault, not a retry.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "chiplet_tlb.h"

void chiplet_tlb_init(struct chiplet_tlbs *d, u32 chiplets,
                      struct chiplet_tlb_reply *replies,
             chiplet_tlb_request_fn request, chiplet_tlb_mem_fn mem, void *priv)
{
    memset(d, 0, sizeof(*d));
    d->chiplets = chiplets;
    d->replies = replies;
    d->cap_replies = chiplets * MCMGPU_BARRE_MSHRS;
    d->request = request;
    d->mem = mem;
    d->priv = priv;
}

int chiplet_tlb_fbarre(struct chiplet_tlbs *d,
                       const struct fbarre_config *cfg, u64 frames,
              chiplet_tlb_walk_fn walk)
{
    int ret = fbarre_init(&d->fb, cfg, d->chiplets, frames);

    if (ret) {
        memset(&d->fb, 0, sizeof(d->fb));
        return ret;
    }
    d->walk = walk;
    return 0;
}

void chiplet_tlb_phase(struct chiplet_tlbs *d,
                       const struct chiplet_tlb_access *acc, u64 n,
              u32 *order)
{
    u64 count[MCMGPU_MAX_CHIPLETS] = { 0 }, at[MCMGPU_MAX_CHIPLETS], i, off;
    u32 c;

    for (i = 0; i < n; i++) {
        count[acc[i].chiplet]++;
    }
    for (c = 0, off = 0; c < d->chiplets; c++) {
        at[c] = off;
        off += count[c];
    }
    for (i = 0; i < n; i++) {
        order[at[acc[i].chiplet]++] = i;
    }
    for (c = 0, off = 0; c < d->chiplets; c++) {
        struct chiplet_tlb_chiplet *ch = &d->chip[c];

        ch->acc = acc;
        ch->order = order + off;
        ch->nacc = count[c];
        ch->next = 0;
        ch->t = d->now;
        ch->stalled = false;
        off += count[c];
    }
}

static struct chiplet_tlb_mshr *chiplet_tlb_find_tag(struct chiplet_tlbs *d,
                                                     u64 tag, u32 *chip)
{
    u32 c, i;

    for (c = 0; c < d->chiplets; c++) {
        for (i = 0; i < MCMGPU_BARRE_MSHRS; i++) {
            if (d->chip[c].mshr[i].busy && d->chip[c].mshr[i].tag == tag) {
                *chip = c;
                return &d->chip[c].mshr[i];
            }
        }
    }
    return NULL;
}

/*
 * Answers computed in the package before a shootdown may be stale: their
 * misses ask the IOMMU instead, now.
 */
static void chiplet_tlb_refetch_in_package(struct chiplet_tlbs *d)
{
    struct chiplet_tlb_mshr *m;
    u32 i = 0, c;

    while (i < d->nreplies) {
        if (!d->replies[i].in_package) {
            i++;
            continue;
        }
        m = chiplet_tlb_find_tag(d, d->replies[i].tag, &c);
        if (m) {
            m->deferred = 1;
            m->issue = d->now;
        }
        /*
         * Not answered in the package after all; a peer's answer leaves
         * remote_requests too, so that it still adds up to remote_hits +
         * remote_false_positives.
         */
        if (d->replies[i].in_package == CHIPLET_TLB_REMOTE) {
            d->fb.stats.remote_requests--;
            d->fb.stats.remote_hits--;
        } else {
            d->fb.stats.local_hits--;
        }
        d->replies[i] = d->replies[--d->nreplies];
    }
}

void chiplet_tlb_shootdown(struct chiplet_tlbs *d)
{
    u32 c, i;

    for (c = 0; c < d->chiplets; c++) {
        for (i = 0; i < MCMGPU_BARRE_L1_ENTRIES; i++) {
            d->chip[c].l1[i].valid = 0;
        }
        for (i = 0; i < MCMGPU_BARRE_L2_ENTRIES; i++) {
            d->chip[c].l2[i].valid = 0;
        }
    }
    if (d->fb.cfg.sharing) {
        fbarre_reset(&d->fb);
        chiplet_tlb_refetch_in_package(d);
    }
    d->stats.shootdowns++;
}

static struct chiplet_tlb_entry *
chiplet_tlb_lookup(struct chiplet_tlb_entry *set, u32 ways, u64 vpn)
{
    u32 i;

    for (i = 0; i < ways; i++) {
        if (set[i].valid && set[i].vpn == vpn) {
            return &set[i];
        }
    }
    return NULL;
}

/* The LRU way of set takes vpn; returns it (its old contents in *old). */
static struct chiplet_tlb_entry *
chiplet_tlb_fill(struct chiplet_tlb_chiplet *ch, struct chiplet_tlb_entry *set,
                 u32 ways, u64 vpn, u64 pfn, bool writable,
                 struct chiplet_tlb_entry *old)
{
    struct chiplet_tlb_entry *victim = &set[0];
    u32 i;

    for (i = 0; i < ways; i++) {
        if (!set[i].valid) {
            victim = &set[i];
            break;
        }
        if (set[i].lru < victim->lru) {
            victim = &set[i];
        }
    }
    if (old) {
        *old = *victim;
    }
    victim->valid = 1;
    victim->vpn = vpn;
    victim->pfn = pfn;
    victim->writable = writable;
    victim->coal = 0;
    victim->lru = ++ch->lru_clock;
    return victim;
}

static struct chiplet_tlb_entry *
chiplet_tlb_l2_set(struct chiplet_tlb_chiplet *ch, u64 vpn)
{
    return &ch->l2[(vpn % CHIPLET_TLB_L2_SETS) * MCMGPU_BARRE_L2_WAYS];
}

/* A TLB entry as its leaf PTE (what F-Barre computes from). */
static u64 chiplet_tlb_entry_pte(const struct chiplet_tlb_entry *e)
{
    return MCMGPU_PTE_VALID | MCMGPU_PTE_READ |
           (e->writable ? MCMGPU_PTE_WRITE : 0) |
           FIELD_PREP(MCMGPU_PTE_PFN_MASK, e->pfn) | e->coal;
}

/* F-Barre reads a chiplet's L2 TLB (no LRU update: a probe, not a use). */
static u64 chiplet_tlb_read(void *priv, u32 chiplet, u64 vpn)
{
    struct chiplet_tlbs *d = priv;
    struct chiplet_tlb_chiplet *ch = &d->chip[chiplet];
    struct chiplet_tlb_entry *e = chiplet_tlb_lookup(chiplet_tlb_l2_set(ch,
                                                                        vpn),
                                       MCMGPU_BARRE_L2_WAYS, vpn);

    return e ? chiplet_tlb_entry_pte(e) : 0;
}

/* An L2 fill; with F-Barre the filters follow the entry evicted and added. */
static void chiplet_tlb_l2_fill(struct chiplet_tlbs *d, u32 c, u64 vpn, u64 pfn,
                                bool writable, u64 coal)
{
    struct chiplet_tlb_chiplet *ch = &d->chip[c];
    struct chiplet_tlb_entry old, *e;

    e = chiplet_tlb_fill(ch, chiplet_tlb_l2_set(ch, vpn),
                         MCMGPU_BARRE_L2_WAYS, vpn, pfn,
                writable, &old);
    e->coal = d->fb.cfg.sharing ? coal & MCMGPU_PTE_COAL_MASK : 0;
    if (!d->fb.cfg.sharing) {
        return;
    }
    if (old.valid) {
        fbarre_tlb_update(&d->fb, c, old.vpn, chiplet_tlb_entry_pte(&old),
                          false, d->now);
    }
    fbarre_tlb_update(&d->fb, c, vpn, chiplet_tlb_entry_pte(e), true, d->now);
}

/* A translated access: the data side, or a fault. */
static void chiplet_tlb_complete(struct chiplet_tlbs *d,
                                 const struct chiplet_tlb_access *a,
                        u64 pfn, bool writable, bool fault, u64 when)
{
    if (fault || (a->write && !writable)) {
        d->stats.faults++;
    } else if (d->mem) {
        d->mem(d->priv, a, pfn);
    }
    if (when > d->stats.modeled_cycles) {
        d->stats.modeled_cycles = when;
    }
}

/* The MSHR's request leaves for the IOMMU at its issue cycle. */
static void chiplet_tlb_send(struct chiplet_tlbs *d, u32 c,
                             struct chiplet_tlb_mshr *m)
{
    struct chiplet_tlb_request r = {
        .tag = m->tag, .vpn = m->vpn, .issue = m->issue,
        .chiplet = c, .write = m->write,
    };

    m->deferred = 0;
    d->stats.ats_sent++;
    d->request(d->priv, &r);
}

/*
 * F-Barre's lookup for m's page (Fig 11): true if the package answers (it
 * arrives like a response); else the request waits for the attempt.
 */
static bool chiplet_tlb_in_package(struct chiplet_tlbs *d, u32 c,
                                   struct chiplet_tlb_mshr *m)
{
    struct fbarre_result res;
    struct chiplet_tlb_reply r = { .tag = m->tag };

    fbarre_lookup(&d->fb, c, m->vpn, d->now, chiplet_tlb_read, d, &res);
    if (!res.hit) {
        m->issue += res.latency;
        m->deferred = res.latency != 0;
        return m->deferred;
    }
    if (d->walk) {
        u64 truth = d->walk(d->priv, m->vpn);

        if (!(truth & MCMGPU_PTE_VALID) ||
            MCMGPU_PTE_PFN(truth) != MCMGPU_PTE_PFN(res.pte) ||
            ((res.pte & MCMGPU_PTE_WRITE) && !(truth & MCMGPU_PTE_WRITE))) {
            d->stats.inpackage_mismatches++;
        }
    }
    r.in_package = res.remote ? CHIPLET_TLB_REMOTE : CHIPLET_TLB_LOCAL;
    r.pfn = MCMGPU_PTE_PFN(res.pte);
    r.writable = !!(res.pte & MCMGPU_PTE_WRITE);
    r.coal = res.pte & MCMGPU_PTE_COAL_MASK;
    r.pec = res.pec;
    r.arrive = m->issue + res.latency;
    d->replies[d->nreplies++] = r;
    return true;
}

/* Chiplet ch issues its next access at d->now; false if it must wait. */
static bool chiplet_tlb_issue(struct chiplet_tlbs *d,
                              struct chiplet_tlb_chiplet *ch)
{
    const struct chiplet_tlb_access *a = &ch->acc[ch->order[ch->next]];
    struct chiplet_tlb_entry *e;
    struct chiplet_tlb_mshr *free_mshr = NULL, *same = NULL;
    u32 i;

    e = chiplet_tlb_lookup(ch->l1, MCMGPU_BARRE_L1_ENTRIES, a->vpn);
    if (e) {
        e->lru = ++ch->lru_clock;
        d->stats.l1_hits++;
        chiplet_tlb_complete(d, a, e->pfn, e->writable, false, d->now + 1);
        return true;
    }
    e = chiplet_tlb_lookup(chiplet_tlb_l2_set(ch, a->vpn),
                           MCMGPU_BARRE_L2_WAYS, a->vpn);
    if (e) {
        e->lru = ++ch->lru_clock;
        d->stats.l2_hits++;
        chiplet_tlb_fill(ch, ch->l1, MCMGPU_BARRE_L1_ENTRIES, a->vpn, e->pfn,
                         e->writable, NULL);
        chiplet_tlb_complete(d, a, e->pfn, e->writable, false,
                             d->now + MCMGPU_BARRE_L2_CYCLES);
        return true;
    }
    for (i = 0; i < MCMGPU_BARRE_MSHRS; i++) {
        struct chiplet_tlb_mshr *m = &ch->mshr[i];

        if (m->busy && m->vpn == a->vpn) {
            same = m;
        } else if (!m->busy && !free_mshr) {
            free_mshr = m;
        }
    }
    if (same && same->nwait < CHIPLET_TLB_MSHR_WAITERS) {
        same->wait[same->nwait++] = ch->order[ch->next];
        d->stats.mshr_merges++;
        return true;
    }
    if (same || !free_mshr) {
        return false;
    }
    free_mshr->busy = 1;
    free_mshr->vpn = a->vpn;
    free_mshr->write = a->write;
    free_mshr->tag = d->next_tag++;
    free_mshr->issue = d->now + MCMGPU_BARRE_L2_CYCLES;
    free_mshr->deferred = 0;
    free_mshr->nwait = 1;
    free_mshr->wait[0] = ch->order[ch->next];
    d->stats.l2_misses++;
    if (d->fb.cfg.sharing && chiplet_tlb_in_package(d, a->chiplet, free_mshr)) {
        return true;
    }
    chiplet_tlb_send(d, a->chiplet, free_mshr);
    return true;
}

int chiplet_tlb_deliver(struct chiplet_tlbs *d,
                        const struct chiplet_tlb_reply *r)
{
    u32 c, i;

    struct chiplet_tlb_mshr *m = chiplet_tlb_find_tag(d, r->tag, &c);

    if (r->arrive < d->now || !m || m->deferred) {
        return -EINVAL;
    }
    for (i = 0; i < d->nreplies; i++) {
        if (d->replies[i].tag == r->tag) {
            return -EINVAL;
        }
    }
    if (d->nreplies >= d->cap_replies) {
        return -ENOSPC;
    }
    d->replies[d->nreplies++] = *r;
    return 0;
}

/* The response r arrives now: fill the TLBs, finish the waiters. */
static void chiplet_tlb_arrive(struct chiplet_tlbs *d,
                               const struct chiplet_tlb_reply *r)
{
    struct chiplet_tlb_chiplet *ch;
    struct chiplet_tlb_mshr *m;
    u32 c = 0, i;

    m = chiplet_tlb_find_tag(d, r->tag, &c);
    ch = &d->chip[c];
    if (!r->in_package) {
        d->stats.ats_round_trip += d->now - m->issue;
    }
    if (!r->fault) {
        /* The object's PEC entry first: the filter updates use it. */
        if (d->fb.cfg.sharing && r->pec.valid) {
            fbarre_pec_add(&d->fb, c, &r->pec);
        }
        chiplet_tlb_l2_fill(d, c, m->vpn, r->pfn, r->writable, r->coal);
        chiplet_tlb_fill(ch, ch->l1, MCMGPU_BARRE_L1_ENTRIES, m->vpn, r->pfn,
                         r->writable, NULL);
    }
    for (i = 0; i < m->nwait; i++) {
        chiplet_tlb_complete(d, &ch->acc[m->wait[i]], r->pfn, r->writable,
                             r->fault,
                    d->now);
    }
    m->busy = 0;
    if (ch->stalled) {
        ch->stalled = false;
        d->stats.stall_cycles += d->now - ch->t;
        ch->t = d->now;
    }
}

u64 chiplet_tlb_next_event(const struct chiplet_tlbs *d)
{
    u64 next = ~0ULL;
    u32 c, i;

    for (i = 0; i < d->nreplies; i++) {
        if (d->replies[i].arrive < next) {
            next = d->replies[i].arrive;
        }
    }
    for (c = 0; c < d->chiplets; c++) {
        const struct chiplet_tlb_chiplet *ch = &d->chip[c];

        if (!ch->stalled && ch->next < ch->nacc && ch->t < next) {
            next = ch->t;
        }
        for (i = 0; i < MCMGPU_BARRE_MSHRS; i++) {
            if (ch->mshr[i].busy && ch->mshr[i].deferred &&
                ch->mshr[i].issue < next) {
                next = ch->mshr[i].issue;
            }
        }
    }
    return next;
}

void chiplet_tlb_run(struct chiplet_tlbs *d, u64 until)
{
    for (;;) {
        u64 t = chiplet_tlb_next_event(d);
        u32 c;

        if (t >= until) {
            break;
        }
        d->now = t;
        for (;;) {
            u32 i, best = d->nreplies;
            struct chiplet_tlb_reply r;

            for (i = 0; i < d->nreplies; i++) {
                if (d->replies[i].arrive == t &&
                    (best == d->nreplies ||
                     d->replies[i].tag < d->replies[best].tag)) {
                    best = i;
                }
            }
            if (best == d->nreplies) {
                break;
            }
            r = d->replies[best];
            d->replies[best] = d->replies[--d->nreplies];
            chiplet_tlb_arrive(d, &r);
        }
        /* Requests whose in-package attempt failed leave now. */
        for (c = 0; c < d->chiplets; c++) {
            u32 i;

            for (i = 0; i < MCMGPU_BARRE_MSHRS; i++) {
                struct chiplet_tlb_mshr *m = &d->chip[c].mshr[i];

                if (m->busy && m->deferred && m->issue == t) {
                    chiplet_tlb_send(d, c, m);
                }
            }
        }
        for (c = 0; c < d->chiplets; c++) {
            struct chiplet_tlb_chiplet *ch = &d->chip[c];

            if (ch->stalled || ch->next >= ch->nacc || ch->t != t) {
                continue;
            }
            if (chiplet_tlb_issue(d, ch)) {
                d->stats.accesses++;
                ch->next++;
                ch->t = t + 1;
            } else {
                ch->stalled = true;
            }
        }
    }
    if (until > d->now) {
        d->now = until;
    }
}

bool chiplet_tlb_done(const struct chiplet_tlbs *d)
{
    u32 c, i;

    for (c = 0; c < d->chiplets; c++) {
        if (d->chip[c].next < d->chip[c].nacc) {
            return false;
        }
        for (i = 0; i < MCMGPU_BARRE_MSHRS; i++) {
            if (d->chip[c].mshr[i].busy) {
                return false;
            }
        }
    }
    return true;
}

void chiplet_tlb_export_stats(const struct chiplet_tlbs *d,
                              struct mcmgpu_barre_stats *st)
{
    const struct chiplet_tlb_stats *ds = &d->stats;
    struct gpu_core_fbarre_stats fb;

    st->accesses = ds->accesses;
    st->l1_hits = ds->l1_hits;
    st->l2_hits = ds->l2_hits;
    st->mshr_merges = ds->mshr_merges;
    st->stall_cycles = ds->stall_cycles;
    st->access_faults = ds->faults;
    st->shootdowns = ds->shootdowns;
    st->ats_round_trip = ds->ats_round_trip;
    st->modeled_cycles = ds->modeled_cycles;
    fbarre_export_stats(&d->fb, ds->l2_misses, ds->ats_sent,
                        ds->inpackage_mismatches, &fb);
    fbarre_stats_to_barre(&fb, st);
}
