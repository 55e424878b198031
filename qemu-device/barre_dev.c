/*
 * Barre, the device's side: chiplet TLBs and MSHRs in virtual cycles. See
 * barre_dev.h for the order of events.
 *
 * Decisions where the paper is silent: the L1 TLB is one per chiplet (the
 * paper has one per CU; our chiplets issue one access stream each); both
 * TLBs are LRU; an MSHR holds up to BD_MSHR_WAITERS accesses to its page,
 * a further miss on that page waits like a miss with no MSHR free; a
 * write that hits a read-only translation is a fault, not a retry.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "barre_dev.h"

void bd_init(struct bd_device *d, u32 chiplets, struct bd_reply *replies,
             bd_request_fn request, bd_mem_fn mem, void *priv)
{
    memset(d, 0, sizeof(*d));
    d->chiplets = chiplets;
    d->replies = replies;
    d->cap_replies = chiplets * MCMGPU_BARRE_MSHRS;
    d->request = request;
    d->mem = mem;
    d->priv = priv;
}

void bd_phase(struct bd_device *d, const struct bd_access *acc, u64 n,
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
        struct bd_chiplet *ch = &d->chip[c];

        ch->acc = acc;
        ch->order = order + off;
        ch->nacc = count[c];
        ch->next = 0;
        ch->t = d->now;
        ch->stalled = false;
        off += count[c];
    }
}

void bd_shootdown(struct bd_device *d)
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
    d->stats.shootdowns++;
}

static struct bd_tlb_entry *bd_lookup(struct bd_tlb_entry *set, u32 ways,
                                      u64 vpn)
{
    u32 i;

    for (i = 0; i < ways; i++) {
        if (set[i].valid && set[i].vpn == vpn) {
            return &set[i];
        }
    }
    return NULL;
}

static void bd_fill(struct bd_chiplet *ch, struct bd_tlb_entry *set, u32 ways,
                    u64 vpn, u64 pfn, bool writable)
{
    struct bd_tlb_entry *victim = &set[0];
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
    victim->valid = 1;
    victim->vpn = vpn;
    victim->pfn = pfn;
    victim->writable = writable;
    victim->lru = ++ch->lru_clock;
}

static struct bd_tlb_entry *bd_l2_set(struct bd_chiplet *ch, u64 vpn)
{
    return &ch->l2[(vpn % BD_L2_SETS) * MCMGPU_BARRE_L2_WAYS];
}

/* A translated access: the data side, or a fault. */
static void bd_complete(struct bd_device *d, const struct bd_access *a,
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

/* Chiplet ch issues its next access at d->now; false if it must wait. */
static bool bd_issue(struct bd_device *d, struct bd_chiplet *ch)
{
    const struct bd_access *a = &ch->acc[ch->order[ch->next]];
    struct bd_tlb_entry *e;
    struct bd_mshr *free_mshr = NULL, *same = NULL;
    u32 i;

    e = bd_lookup(ch->l1, MCMGPU_BARRE_L1_ENTRIES, a->vpn);
    if (e) {
        e->lru = ++ch->lru_clock;
        d->stats.l1_hits++;
        bd_complete(d, a, e->pfn, e->writable, false, d->now + 1);
        return true;
    }
    e = bd_lookup(bd_l2_set(ch, a->vpn), MCMGPU_BARRE_L2_WAYS, a->vpn);
    if (e) {
        e->lru = ++ch->lru_clock;
        d->stats.l2_hits++;
        bd_fill(ch, ch->l1, MCMGPU_BARRE_L1_ENTRIES, a->vpn, e->pfn,
                e->writable);
        bd_complete(d, a, e->pfn, e->writable, false,
                    d->now + MCMGPU_BARRE_L2_CYCLES);
        return true;
    }
    for (i = 0; i < MCMGPU_BARRE_MSHRS; i++) {
        struct bd_mshr *m = &ch->mshr[i];

        if (m->busy && m->vpn == a->vpn) {
            same = m;
        } else if (!m->busy && !free_mshr) {
            free_mshr = m;
        }
    }
    if (same && same->nwait < BD_MSHR_WAITERS) {
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
    free_mshr->nwait = 1;
    free_mshr->wait[0] = ch->order[ch->next];
    d->stats.l2_misses++;
    {
        struct bd_request r = {
            .tag = free_mshr->tag, .vpn = a->vpn,
            .issue = free_mshr->issue,
            .chiplet = a->chiplet, .write = a->write,
        };

        d->request(d->priv, &r);
    }
    return true;
}

static struct bd_mshr *bd_find_tag(struct bd_device *d, u64 tag, u32 *chip)
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

int bd_deliver(struct bd_device *d, const struct bd_reply *r)
{
    u32 c, i;

    if (r->arrive < d->now || !bd_find_tag(d, r->tag, &c)) {
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
static void bd_arrive(struct bd_device *d, const struct bd_reply *r)
{
    struct bd_chiplet *ch;
    struct bd_mshr *m;
    u32 c, i;

    m = bd_find_tag(d, r->tag, &c);
    ch = &d->chip[c];
    d->stats.ats_round_trip += d->now - m->issue;
    if (!r->fault) {
        bd_fill(ch, bd_l2_set(ch, m->vpn), MCMGPU_BARRE_L2_WAYS, m->vpn,
                r->pfn, r->writable);
        bd_fill(ch, ch->l1, MCMGPU_BARRE_L1_ENTRIES, m->vpn, r->pfn,
                r->writable);
    }
    for (i = 0; i < m->nwait; i++) {
        bd_complete(d, &ch->acc[m->wait[i]], r->pfn, r->writable, r->fault,
                    d->now);
    }
    m->busy = 0;
    if (ch->stalled) {
        ch->stalled = false;
        d->stats.stall_cycles += d->now - ch->t;
        ch->t = d->now;
    }
}

u64 bd_next_event(const struct bd_device *d)
{
    u64 next = ~0ULL;
    u32 c, i;

    for (i = 0; i < d->nreplies; i++) {
        if (d->replies[i].arrive < next) {
            next = d->replies[i].arrive;
        }
    }
    for (c = 0; c < d->chiplets; c++) {
        const struct bd_chiplet *ch = &d->chip[c];

        if (!ch->stalled && ch->next < ch->nacc && ch->t < next) {
            next = ch->t;
        }
    }
    return next;
}

void bd_run(struct bd_device *d, u64 until)
{
    for (;;) {
        u64 t = bd_next_event(d);
        u32 c;

        if (t >= until) {
            break;
        }
        d->now = t;
        for (;;) {
            u32 i, best = d->nreplies;
            struct bd_reply r;

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
            bd_arrive(d, &r);
        }
        for (c = 0; c < d->chiplets; c++) {
            struct bd_chiplet *ch = &d->chip[c];

            if (ch->stalled || ch->next >= ch->nacc || ch->t != t) {
                continue;
            }
            if (bd_issue(d, ch)) {
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

bool bd_done(const struct bd_device *d)
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
