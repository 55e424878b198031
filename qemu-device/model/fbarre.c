/*
 * F-Barre, in-package translation (Barre Chord §V-A). See fbarre.h.
 *
 * Decisions where the paper is silent (notes §6.9, docs/fbarre.md):
 * - Candidates: the requester knows only the missed VPN and the object's
 *   PEC entry (S, g, GPU_map), so it probes every VPN of the same round
 *   at the same chunk offset (the ±g steps of §V-A) and, for merged
 *   groups, up to run - 1 pages either side inside the chunk.
 * - Order: local coalescing first, then one peer, then the ATS request,
 *   one after the other; the peer is the first from c + 1 on whose RCF
 *   hits. A false positive costs its round trip, never a wrong answer:
 *   every PFN comes from mcmgpu_pec_calc_pte() on the TLB entry read.
 * - Timing: filters are probed beside the L2 lookup (no extra cycle);
 *   each TLB entry read for a sibling costs an L2 lookup, the PFN
 *   calculation one cycle, a peer message the mesh's 32 cycles each way.
 *   The peer's TLB is read as it is when the miss is handled.
 * - A translation made in the package fills the TLB with its coalescing
 *   info, brings the answerer's PEC entry for the object along (so the
 *   requester can coalesce locally later) and sends filter updates like
 *   any other fill.
 * - Filter updates: one message per VPN per peer (1-bit op, 3-bit sender,
 *   40-bit VPN), applied when it arrives (32 cycles later) unless lost,
 *   or unless the mesh already carries FBARRE_MSG_RING of them (best effort).
 *   A lost delete leaves a stale fingerprint (a false positive later), a
 *   lost add a false negative; a delete after a lost add may remove
 *   another VPN's equal fingerprint (a false negative): all cost time
 *   only. Deletes use the object's PEC entry as the chiplet holds it
 *   then; an object no longer in the buffer deletes only the VPN itself.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "fbarre.h"

static u64 fbarre_mix(u64 v)
{
    v ^= v >> 33;
    v *= 0xff51afd7ed558ccdULL;
    v ^= v >> 33;
    v *= 0xc4ceb9fe1a85ec53ULL;
    v ^= v >> 33;
    return v;
}

/* Partial-key cuckoo hashing: the other row follows from row and fp. */
static u32 fbarre_fp(u64 vpn)
{
    return (u32)(fbarre_mix(vpn ^ 0x9e3779b97f4a7c15ULL) % FBARRE_FP_MASK) + 1;
}

static u32 fbarre_row(u64 vpn, u32 rows)
{
    return (u32)fbarre_mix(vpn) & (rows - 1);
}

static u32 fbarre_alt(u32 row, u32 fp, u32 rows)
{
    return (row ^ (u32)fbarre_mix(fp)) & (rows - 1);
}

void fbarre_filter_clear(struct fbarre_filter *fl)
{
    memset(fl, 0, sizeof(*fl));
}

static bool fbarre_row_has(const struct fbarre_filter *fl, u32 row, u32 fp)
{
    u32 w;

    for (w = 0; w < FBARRE_WAYS; w++) {
        if (fl->slot[row][w] == fp) {
            return true;
        }
    }
    return false;
}

bool fbarre_filter_has(const struct fbarre_filter *fl, u32 rows, u64 vpn)
{
    u32 fp = fbarre_fp(vpn), r1 = fbarre_row(vpn, rows);

    return fbarre_row_has(fl, r1, fp) ||
           fbarre_row_has(fl, fbarre_alt(r1, fp, rows), fp);
}

static bool fbarre_row_put(struct fbarre_filter *fl, u32 row, u32 fp)
{
    u32 w;

    for (w = 0; w < FBARRE_WAYS; w++) {
        if (!fl->slot[row][w]) {
            fl->slot[row][w] = fp;
            return true;
        }
    }
    return false;
}

bool fbarre_filter_add(struct fbarre_filter *fl, u32 rows, u64 vpn)
{
    u32 fp = fbarre_fp(vpn), row = fbarre_row(vpn, rows), kick, w, t;

    if (fbarre_row_put(fl, row, fp) ||
        fbarre_row_put(fl, fbarre_alt(row, fp, rows), fp)) {
        return true;
    }
    /* Evict a resident to its other row; the way rotates, deterministic. */
    for (kick = 0; kick < FBARRE_MAX_KICKS; kick++) {
        w = kick % FBARRE_WAYS;
        t = fl->slot[row][w];
        fl->slot[row][w] = fp;
        fp = t;
        row = fbarre_alt(row, fp, rows);
        if (fbarre_row_put(fl, row, fp)) {
            return true;
        }
    }
    return false;
}

/* Empties the slot of @row that holds @fp, if any. */
static bool fbarre_row_take(struct fbarre_filter *fl, u32 row, u32 fp)
{
    u32 w;

    for (w = 0; w < FBARRE_WAYS; w++) {
        if (fl->slot[row][w] == fp) {
            fl->slot[row][w] = 0;
            return true;
        }
    }
    return false;
}

bool fbarre_filter_del(struct fbarre_filter *fl, u32 rows, u64 vpn)
{
    u32 fp = fbarre_fp(vpn), r1 = fbarre_row(vpn, rows);

    return fbarre_row_take(fl, r1, fp) ||
           fbarre_row_take(fl, fbarre_alt(r1, fp, rows), fp);
}

bool fbarre_config_valid(const struct fbarre_config *cfg)
{
    return (cfg->rows == 256 || cfg->rows == 512 || cfg->rows == 1024) &&
           cfg->run >= 1 && cfg->run <= 4 && cfg->drop_ppm <= 1000000;
}

int fbarre_init(struct fbarre_state *f, const struct fbarre_config *cfg,
                u32 chiplets,
            u64 frames)
{
    u32 c;

    if (!fbarre_config_valid(cfg) || !chiplets ||
        chiplets > FBARRE_MAX_CHIPLETS) {
        return -EINVAL;
    }
    memset(f, 0, sizeof(*f));
    f->cfg = *cfg;
    f->chiplets = chiplets;
    for (c = 0; c < chiplets; c++) {
        f->base[c] = (u64)c * frames;
    }
    f->rng = cfg->seed ? cfg->seed : 1;
    return 0;
}

void fbarre_reset(struct fbarre_state *f)
{
    u32 c;

    fbarre_reset_filters(f);
    for (c = 0; c < f->chiplets; c++) {
        memset(f->chip[c].pec, 0, sizeof(f->chip[c].pec));
    }
}

void fbarre_reset_filters(struct fbarre_state *f)
{
    u32 c, j;

    for (c = 0; c < f->chiplets; c++) {
        for (j = 0; j < f->chiplets; j++) {
            fbarre_filter_clear(&f->chip[c].filter[j]);
        }
    }
    f->msg_head = f->msg_count = 0;
}

/* The messages that reached their chiplet by now change its RCFs. */
static void fbarre_deliver(struct fbarre_state *f, u64 now)
{
    while (f->msg_count && f->msg[f->msg_head].arrive <= now) {
        const struct fbarre_msg *m = &f->msg[f->msg_head];
        struct fbarre_filter *rcf = &f->chip[m->to].filter[m->from];

        if (!m->add) {
            fbarre_filter_del(rcf, f->cfg.rows, m->vpn);
        } else if (!fbarre_filter_add(rcf, f->cfg.rows, m->vpn)) {
            f->stats.filter_overflows++;
        }
        f->msg_head = (f->msg_head + 1) % FBARRE_MSG_RING;
        f->msg_count--;
    }
}

bool fbarre_pec_add(struct fbarre_state *f, u32 c,
                    const struct mcmgpu_pec_entry *e)
{
    u32 k, seen = 0;

    /* It came over PCIe: every chiplet it names must exist, once. */
    if (!e->g || !e->nmap || e->nmap > f->chiplets ||
        e->start_vpn > e->end_vpn ||
        e->coal_count != mcmgpu_coal_count_mode(f->chiplets)) {
        return false;
    }
    for (k = 0; k < e->nmap; k++) {
        if (e->map[k] >= f->chiplets || seen & (1U << e->map[k])) {
            return false;
        }
        seen |= 1U << e->map[k];
    }
    mcmgpu_pec_insert(f->chip[c].pec, MCMGPU_BARRE_PEC_ENTRIES, e);
    return true;
}

static const struct mcmgpu_pec_entry *
fbarre_pec_find(const struct fbarre_chiplet *ch, u64 vpn)
{
    u32 i;

    for (i = 0; i < MCMGPU_BARRE_PEC_ENTRIES; i++) {
        if (ch->pec[i].valid && ch->pec[i].start_vpn <= vpn &&
            vpn <= ch->pec[i].end_vpn && ch->pec[i].g && ch->pec[i].nmap) {
            return &ch->pec[i];
        }
    }
    return NULL;
}

static bool fbarre_lost(struct fbarre_state *f)
{
    if (!f->cfg.drop_ppm) {
        return false;
    }
    f->rng ^= f->rng << 13;
    f->rng ^= f->rng >> 7;
    f->rng ^= f->rng << 17;
    return f->rng % 1000000 < f->cfg.drop_ppm;
}

/* One filter-update message for vpn from chiplet c to chiplet j. */
static void fbarre_message(struct fbarre_state *f, u32 c, u32 j, u64 vpn,
                           bool add,
                       u64 now)
{
    struct fbarre_msg *m;

    f->stats.filter_messages++;
    if (fbarre_lost(f) || f->msg_count == FBARRE_MSG_RING) {
        f->stats.filter_messages_dropped++;
        return;
    }
    m = &f->msg[(f->msg_head + f->msg_count++) % FBARRE_MSG_RING];
    *m = (struct fbarre_msg){
        .vpn = vpn, .arrive = now + MCMGPU_FBARRE_LINK_CYCLES,
        .from = c, .to = j, .add = add,
    };
}

void fbarre_tlb_update(struct fbarre_state *f, u32 c, u64 vpn, u64 pte,
                       bool add,
                   u64 now)
{
    const struct mcmgpu_pec_entry *e = fbarre_pec_find(&f->chip[c], vpn);
    struct fbarre_filter *lcf = &f->chip[c].filter[c];
    struct mcmgpu_coal g;
    u32 x, pos, run, j, k, xx;
    bool grouped;
    u64 first;

    mcmgpu_coal_decode(pte, mcmgpu_coal_count_mode(f->chiplets), &g);
    x = g.intra;
    pos = g.pos;
    run = g.run;

    fbarre_deliver(f, now);
    if (add) {
        if (!fbarre_filter_add(lcf, f->cfg.rows, vpn)) {
            f->stats.filter_overflows++;
        }
    } else {
        fbarre_filter_del(lcf, f->cfg.rows, vpn);
    }
    grouped = e && g.n >= 2 && pos < e->nmap &&
              vpn >= x + (u64)e->g * pos;
    first = grouped ? vpn - x - (u64)e->g * pos : 0;
    for (j = 0; j < f->chiplets; j++) {
        if (j == c) {
            continue;
        }
        if (!grouped) {
            fbarre_message(f, c, j, vpn, add, now);
            continue;
        }
        /* The VPN and all its coalescing VPNs (the whole group). */
        for (k = 0; k < e->nmap; k++) {
            if (!mcmgpu_coal_member(&g, k, e->map[k])) {
                continue;
            }
            for (xx = 0; xx < run; xx++) {
                fbarre_message(f, c, j, first + (u64)k * e->g + xx, add, now);
            }
        }
    }
}

/*
 * Chiplet c computes vpn from its own TLB: candidates of vpn's round at
 * its chunk offset (and neighbours for merged runs), LCF first, then the
 * TLB entry, then the formula. exact: vpn itself is a candidate (a peer
 * answering for another chiplet may hold it).
 */
static bool fbarre_from_tlb(struct fbarre_state *f, u32 c, u64 vpn, bool exact,
                            fbarre_tlb_read_fn read, void *priv, u64 *pte,
                        u64 *reads, struct mcmgpu_pec_entry *pec)
{
    const struct mcmgpu_pec_entry *e = fbarre_pec_find(&f->chip[c], vpn);
    const struct fbarre_filter *lcf = &f->chip[c].filter[c];
    u64 off, round_first, chunk_off, cand, src, xs, xe, xx;
    __u64 calc;
    u32 k, span = f->cfg.run - 1;

    *reads = 0;
    if (e) {
        *pec = *e;
    }
    f->stats.filter_probes += exact;
    if (exact && fbarre_filter_has(lcf, f->cfg.rows, vpn)) {
        f->stats.lcf_hits++;
        (*reads)++;
        src = read(priv, c, vpn);
        if (src) {
            f->stats.lcf_true_positives++;
            *pte = src;
            return true;
        }
    }
    if (!e) {
        return false;
    }
    off = vpn - e->start_vpn;
    round_first = e->start_vpn + off - off % ((u64)e->g * e->nmap);
    chunk_off = off % e->g;
    xs = chunk_off > span ? chunk_off - span : 0;
    xe = chunk_off + span >= e->g ? e->g - 1 : chunk_off + span;
    for (k = 0; k < e->nmap; k++) {
        for (xx = xs; xx <= xe; xx++) {
            cand = round_first + (u64)k * e->g + xx;
            if (cand == vpn || cand > e->end_vpn) {
                continue;
            }
            f->stats.filter_probes++;
            if (!fbarre_filter_has(lcf, f->cfg.rows, cand)) {
                continue;
            }
            f->stats.lcf_hits++;
            (*reads)++;
            src = read(priv, c, cand);
            if (!src) {
                continue;
            }
            f->stats.lcf_true_positives++;
            /* Membership from the entry's own fields, never the filter. */
            if (mcmgpu_pec_calc_pte(e, f->base, cand, src, vpn, &calc)) {
                *pte = calc;
                return true;
            }
        }
    }
    return false;
}

void fbarre_lookup(struct fbarre_state *f, u32 c, u64 vpn, u64 now,
                   fbarre_tlb_read_fn read, void *priv,
                   struct fbarre_result *res)
{
    u64 reads, t = 0;
    u32 i, j;

    memset(res, 0, sizeof(*res));
    if (!f->cfg.sharing) {
        return;
    }
    fbarre_deliver(f, now);
    f->stats.lookups++;
    if (fbarre_from_tlb(f, c, vpn, false, read, priv, &res->pte, &reads,
                        &res->pec)) {
        f->stats.local_hits++;
        f->stats.tlb_reads += reads;
        res->latency = reads * MCMGPU_BARRE_L2_CYCLES + FBARRE_PEC_CYCLES;
        res->hit = true;
        return;
    }
    f->stats.tlb_reads += reads;
    t = reads * MCMGPU_BARRE_L2_CYCLES;
    for (i = 1; i < f->chiplets; i++) {
        j = (c + i) % f->chiplets;
        f->stats.filter_probes++;
        if (!fbarre_filter_has(&f->chip[c].filter[j], f->cfg.rows, vpn)) {
            continue;
        }
        f->stats.remote_requests++;
        res->hit = fbarre_from_tlb(f, j, vpn, true, read, priv, &res->pte,
                                   &reads,
                               &res->pec);
        f->stats.tlb_reads += reads;
        t += 2 * MCMGPU_FBARRE_LINK_CYCLES + reads * MCMGPU_BARRE_L2_CYCLES;
        if (res->hit) {
            res->remote = true;
            f->stats.remote_hits++;
            t += FBARRE_PEC_CYCLES;
        } else {
            f->stats.remote_false_positives++;
        }
        break;
    }
    res->latency = t;
}

void fbarre_export_stats(const struct fbarre_state *f, u64 l2_misses,
                         u64 ats_sent, u64 mismatches,
                         struct gpu_core_fbarre_stats *st)
{
    const struct fbarre_stats *fs = &f->stats;

    st->l2_misses = l2_misses;
    st->ats_requests_sent = ats_sent;
    st->inpackage_lookups = fs->lookups;
    st->local_hits = fs->local_hits;
    st->remote_requests = fs->remote_requests;
    st->remote_hits = fs->remote_hits;
    st->remote_false_positives = fs->remote_false_positives;
    st->lcf_hits = fs->lcf_hits;
    st->lcf_true_positives = fs->lcf_true_positives;
    st->filter_messages = fs->filter_messages;
    st->filter_messages_dropped = fs->filter_messages_dropped;
    st->filter_overflows = fs->filter_overflows;
    st->sibling_tlb_reads = fs->tlb_reads;
    st->filter_probes = fs->filter_probes;
    st->inpackage_mismatches = mismatches;
}

void fbarre_stats_to_barre(const struct gpu_core_fbarre_stats *fb,
                           struct mcmgpu_barre_stats *st)
{
    st->l2_misses = fb->l2_misses;
    st->ats_requests_sent = fb->ats_requests_sent;
    st->inpackage_lookups = fb->inpackage_lookups;
    st->local_hits = fb->local_hits;
    st->remote_requests = fb->remote_requests;
    st->remote_hits = fb->remote_hits;
    st->remote_false_positives = fb->remote_false_positives;
    st->lcf_hits = fb->lcf_hits;
    st->lcf_true_positives = fb->lcf_true_positives;
    st->filter_messages = fb->filter_messages;
    st->filter_messages_dropped = fb->filter_messages_dropped;
    st->filter_overflows = fb->filter_overflows;
    st->sibling_tlb_reads = fb->sibling_tlb_reads;
    st->filter_probes = fb->filter_probes;
    st->inpackage_mismatches = fb->inpackage_mismatches;
}
