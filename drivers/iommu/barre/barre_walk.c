// SPDX-License-Identifier: GPL-2.0
/*
 * The Barre IOMMU's page-walk side: PW-queue, walkers and PEC (Barre
 * Chord §IV-B, §IV-E, §IV-F). See barre_walk.h for the order of events.
 *
 * Decisions where the paper is silent (notes §6.7 and docs/barre.md):
 * - PEC entries carry the address space (PASID); a lookup matches both.
 * - Replacement (mcmgpu_pec_insert): when full, the smallest object (in
 *   pages) goes, and only for a larger one; a new object smaller than all
 *   five is not entered.
 * - PEC completes only requests in the PW-queue; requests waiting outside
 *   a full queue are not seen (the paper's scope is "pending in the PW-queue").
 * - A coalesced answer goes out at the walk's end (the PFN calculation
 *   costs no extra cycle) and carries the walked PTE's permission; a write
 *   request is coalesced only if that PTE is writable.
 * - Scheduling (§V-C) predicts before the walk returns the PTE (notes
 *   §6.8): a request is likely in a walked page's group when the PEC entry
 *   holds both and they sit at the same offset of their chunks in the
 *   same round (plain groups; a merged run is known only after the walk).
 *   An idle walker takes the first request not so predicted; those it
 *   passes rotate to the queue's tail, behind later arrivals, and one
 *   passed sched_moves times is no longer passed. So a request is passed
 *   at most sched_moves times, and fewer than (sched_moves + 1) x
 *   pwq_entries other requests start their walks before its own.
 */
#include "barre_walk.h"
#include "mcmgpu_pt.h"

void barre_walker_default_config(struct barre_walker_config *cfg, u32 chiplets, u64 frames)
{
	u32 c;

	memset(cfg, 0, sizeof(*cfg));
	cfg->walkers = MCMGPU_BARRE_WALKERS;
	cfg->pwq_entries = MCMGPU_BARRE_PWQ_ENTRIES;
	cfg->walk_cycles = MCMGPU_BARRE_WALK_CYCLES;
	cfg->pec_entries = MCMGPU_BARRE_PEC_ENTRIES;
	cfg->chiplets = chiplets;
	for (c = 0; c < chiplets && c < MCMGPU_MAX_CHIPLETS; c++)
		cfg->base[c] = (u64)c * frames;
}

int barre_walker_init(struct barre_walker *b, const struct barre_walker_config *cfg,
		      const struct barre_walker_pt_ops *ops,
	    void (*respond)(void *priv, const struct barre_walker_response *rsp),
	    void *respond_priv)
{
	if (!cfg->walkers || cfg->walkers > MCMGPU_BARRE_MAX_WALKERS ||
	    !cfg->pwq_entries || cfg->pwq_entries > MCMGPU_BARRE_PWQ_ENTRIES ||
	    !cfg->walk_cycles || cfg->pec_entries > BARRE_WALKER_MAX_PEC ||
	    cfg->sched_moves > BARRE_WALKER_MAX_SCHED_MOVES ||
	    cfg->chiplets < MCMGPU_MIN_CHIPLETS ||
	    cfg->chiplets > MCMGPU_MAX_CHIPLETS)
		return -EINVAL;
	memset(b, 0, sizeof(*b));
	b->cfg = *cfg;
	b->ops = *ops;
	b->respond = respond;
	b->respond_priv = respond_priv;
	return 0;
}

int barre_walker_reset(struct barre_walker *b, const struct barre_walker_config *cfg)
{
	struct mcmgpu_pec_entry pec[BARRE_WALKER_MAX_PEC];
	struct barre_walker_pt_ops ops = b->ops;

	/* The objects outlive the reset: ALLOC registered them only once. */
	memcpy(pec, b->pec, sizeof(pec));
	if (barre_walker_init(b, cfg, &ops, b->respond, b->respond_priv))
		return -EINVAL;
	memcpy(b->pec, pec, sizeof(pec));
	return 0;
}

int barre_walker_pec_add(struct barre_walker *b, const struct mcmgpu_pec_entry *e)
{
	int ret;

	if (!b->cfg.pec_entries)
		return 0;
	ret = mcmgpu_pec_insert(b->pec, b->cfg.pec_entries, e);
	if (ret > 0)
		b->stats.pec_evictions++;
	return ret >= 0;
}

void barre_walker_pec_restore(struct barre_walker *b, const struct mcmgpu_pec_entry *buf,
			      u32 n)
{
	memset(b->pec, 0, sizeof(b->pec));
	memcpy(b->pec, buf, (n < BARRE_WALKER_MAX_PEC ? n : BARRE_WALKER_MAX_PEC) * sizeof(*buf));
}

void barre_walker_pec_drop(struct barre_walker *b, u32 pasid, u64 start, u64 end)
{
	mcmgpu_pec_drop(b->pec, BARRE_WALKER_MAX_PEC, pasid, start, end);
}

static const struct mcmgpu_pec_entry *
barre_walker_pec_find(const struct barre_walker *b, u32 pasid, u64 vpn)
{
	u32 i;

	for (i = 0; i < b->cfg.pec_entries; i++)
		if (b->pec[i].valid && b->pec[i].pasid == pasid &&
		    b->pec[i].start_vpn <= vpn && vpn <= b->pec[i].end_vpn)
			return &b->pec[i];
	return NULL;
}

u64 barre_walker_walk(const struct barre_walker *b, u32 pasid, u64 vpn)
{
	return mcmgpu_pt_walk(b->ops.root(b->ops.priv, pasid), vpn,
			      b->ops.read_entry, b->ops.priv);
}

u32 barre_walker_inflight(const struct barre_walker *b)
{
	u32 w, n = b->nwaiting + b->nqueue;

	for (w = 0; w < b->cfg.walkers; w++)
		n += b->walker[w].busy;
	return n;
}

int barre_walker_can_submit(const struct barre_walker *b, u64 arrive, u32 count)
{
	if (arrive < b->now)
		return -EINVAL;
	if (barre_walker_inflight(b) + count > BARRE_WALKER_MAX_INFLIGHT)
		return -ENOSPC;
	return 0;
}

int barre_walker_submit(struct barre_walker *b, const struct barre_walker_request *req)
{
	int ret = barre_walker_can_submit(b, req->arrive, 1);

	if (ret)
		return ret;
	b->waiting[b->nwaiting++] = *req;
	b->stats.ats_requests++;
	return 0;
}

void barre_walker_abandon(struct barre_walker *b)
{
	u32 w;

	/* Walked ones stay counted as walks; the others were never served. */
	b->stats.ats_requests -= b->nwaiting + b->nqueue;
	b->nwaiting = 0;
	b->nqueue = 0;
	for (w = 0; w < b->cfg.walkers; w++)
		b->walker[w].busy = false;
}

/* Answers req with its page's leaf PTE pte (walked, or computed by PEC). */
static void barre_walker_answer(struct barre_walker *b, const struct barre_walker_request *req,
				u64 pte, bool coalesced)
{
	struct barre_walker_response rsp = {
		.tag = req->tag, .done = b->now, .coalesced = coalesced,
	};
	const struct mcmgpu_pec_entry *e;

	if (!(pte & MCMGPU_PTE_VALID) ||
	    (req->write && !(pte & MCMGPU_PTE_WRITE))) {
		rsp.status = BARRE_WALKER_STATUS_FAULT;
		b->stats.faults++;
	} else {
		rsp.pfn = MCMGPU_PTE_PFN(pte);
		rsp.writable = !!(pte & MCMGPU_PTE_WRITE);
		/* F-Barre: a grouped page brings its group and object along. */
		e = mcmgpu_popcount8(MCMGPU_PTE_COAL_BITMAP(pte)) >= 2 ?
		    barre_walker_pec_find(b, req->pasid, req->vpn) : NULL;
		if (e) {
			rsp.coal = pte & MCMGPU_PTE_COAL_MASK;
			rsp.pec = *e;
		}
	}
	b->stats.service_cycles += b->now - req->arrive;
	b->respond(b->respond_priv, &rsp);
}

/* PEC after a walk of req that found pte: complete its group's pending pages. */
static void barre_walker_coalesce(struct barre_walker *b, const struct barre_walker_request *req,
				  u64 pte)
{
	const struct mcmgpu_pec_entry *e;
	u32 i, kept = 0;

	if (!b->cfg.pec_entries || !(pte & MCMGPU_PTE_VALID) ||
	    mcmgpu_popcount8(MCMGPU_PTE_COAL_BITMAP(pte)) < 2)
		return;
	e = barre_walker_pec_find(b, req->pasid, req->vpn);
	if (!e) {
		b->stats.pec_misses++;
		return;
	}
	b->stats.pec_hits++;
	for (i = 0; i < b->nqueue; i++) {
		struct barre_walker_request *q = &b->queue[i];
		__u64 calc;

		if (q->pasid != req->pasid ||
		    (q->write && !(pte & MCMGPU_PTE_WRITE)) ||
		    !mcmgpu_pec_calc_pte(e, b->cfg.base, req->vpn, pte, q->vpn,
					 &calc)) {
			b->queue[kept++] = *q;
			continue;
		}
		if (b->cfg.shadow) {
			u64 truth = barre_walker_walk(b, q->pasid, q->vpn);

			if (!(truth & MCMGPU_PTE_VALID) ||
			    MCMGPU_PTE_PFN(truth) != MCMGPU_PTE_PFN(calc) ||
			    ((pte & MCMGPU_PTE_WRITE) && !(truth & MCMGPU_PTE_WRITE)))
				b->stats.shadow_mismatches++;
		}
		b->stats.coalesced++;
		barre_walker_answer(b, q, calc, true);
	}
	b->nqueue = kept;
}

/* Arrivals up to now join the queue, earliest (then lowest tag) first. */
static void barre_walker_admit(struct barre_walker *b)
{
	while (b->nqueue < b->cfg.pwq_entries) {
		u32 i, best = b->nwaiting;

		for (i = 0; i < b->nwaiting; i++) {
			const struct barre_walker_request *r = &b->waiting[i];

			if (r->arrive > b->now)
				continue;
			if (best == b->nwaiting || r->arrive < b->waiting[best].arrive ||
			    (r->arrive == b->waiting[best].arrive &&
			     r->tag < b->waiting[best].tag))
				best = i;
		}
		if (best == b->nwaiting)
			return;
		b->stats.pwq_hist[b->nqueue]++;
		b->queue[b->nqueue++] = b->waiting[best];
		b->waiting[best] = b->waiting[--b->nwaiting];
	}
}

/* Same object, same round, same offset in the chunk: PEC will likely do q. */
static bool barre_walker_predict_group(const struct barre_walker *b,
				       const struct barre_walker_request *q)
{
	const struct mcmgpu_pec_entry *e = barre_walker_pec_find(b, q->pasid, q->vpn);
	u64 round, oq, ow;
	u32 w;

	if (!e || !e->g || !e->nmap)
		return false;
	round = (u64)e->g * e->nmap;
	oq = q->vpn - e->start_vpn;
	for (w = 0; w < b->cfg.walkers; w++) {
		const struct barre_walker_request *r = &b->walker[w].req;

		if (!b->walker[w].busy || r->pasid != q->pasid ||
		    r->vpn < e->start_vpn || r->vpn > e->end_vpn)
			continue;
		ow = r->vpn - e->start_vpn;
		if (ow / round == oq / round && ow % e->g == oq % e->g)
			return true;
	}
	return false;
}

/* The queue index an idle walker takes now, nqueue if it should wait. */
static u32 barre_walker_pick(const struct barre_walker *b)
{
	u32 i;

	if (!b->cfg.sched_moves)
		return 0;
	for (i = 0; i < b->nqueue; i++)
		if (b->queue[i].moves >= b->cfg.sched_moves ||
		    !barre_walker_predict_group(b, &b->queue[i]))
			return i;
	return b->nqueue;
}

static void barre_walker_reverse(struct barre_walker_request *q, u32 from, u32 to)
{
	struct barre_walker_request t;

	while (from + 1 < to) {
		t = q[from];
		q[from++] = q[--to];
		q[to] = t;
	}
}

static void barre_walker_dispatch(struct barre_walker *b)
{
	u32 w, i, pick;

	for (w = 0; w < b->cfg.walkers && b->nqueue; w++) {
		if (b->walker[w].busy)
			continue;
		pick = barre_walker_pick(b);
		if (pick == b->nqueue)
			return;
		b->walker[w].busy = true;
		b->walker[w].req = b->queue[pick];
		b->walker[w].done = b->now + (b->ops.walk_cycles ?
			b->ops.walk_cycles(b->ops.priv, &b->walker[w].req) :
			b->cfg.walk_cycles);
		for (i = pick + 1; i < b->nqueue; i++)
			b->queue[i - 1] = b->queue[i];
		b->nqueue--;
		/* The ones passed over go to the tail, in their order (a rotation). */
		for (i = 0; i < pick; i++)
			b->queue[i].moves++;
		if (pick && pick < b->nqueue) {
			barre_walker_reverse(b->queue, 0, pick);
			barre_walker_reverse(b->queue, pick, b->nqueue);
			barre_walker_reverse(b->queue, 0, b->nqueue);
		}
		b->stats.sched_moves += pick;
		b->stats.walks++;
	}
}

u64 barre_walker_next_event(const struct barre_walker *b)
{
	bool can_start = b->nqueue && barre_walker_pick(b) < b->nqueue;
	u64 next = ~0ULL;
	u32 i;

	for (i = 0; i < b->cfg.walkers; i++) {
		if (b->walker[i].busy && b->walker[i].done < next)
			next = b->walker[i].done;
		else if (!b->walker[i].busy && can_start)
			next = b->now;		/* a walker can start now */
	}
	for (i = 0; i < b->nwaiting; i++) {
		u64 t = b->waiting[i].arrive;

		/* Arrived ones wait for room in the queue, not for time. */
		if (t <= b->now)
			t = b->nqueue < b->cfg.pwq_entries ? b->now : ~0ULL;
		if (t < next)
			next = t;
	}
	return next;
}

void barre_walker_advance(struct barre_walker *b, u64 until)
{
	for (;;) {
		u64 t = barre_walker_next_event(b);
		u32 w;

		if (t >= until)
			break;
		if (t > b->now)
			b->now = t;
		for (w = 0; w < b->cfg.walkers; w++) {
			struct barre_walker_unit *wk = &b->walker[w];
			u64 pte;

			if (!wk->busy || wk->done != b->now)
				continue;
			wk->busy = false;
			pte = barre_walker_walk(b, wk->req.pasid, wk->req.vpn);
			barre_walker_answer(b, &wk->req, pte, false);
			barre_walker_coalesce(b, &wk->req, pte);
		}
		barre_walker_admit(b);
		barre_walker_dispatch(b);
	}
	if (until > b->now)
		b->now = until;
}

void barre_walker_export_stats(const struct barre_walker_stats *s, struct mcmgpu_barre_stats *st)
{
	st->ats_requests = s->ats_requests;
	st->walks = s->walks;
	st->coalesced = s->coalesced;
	st->pec_hits = s->pec_hits;
	st->pec_misses = s->pec_misses;
	st->pec_evictions = s->pec_evictions;
	st->translation_faults = s->faults;
	st->shadow_mismatches = s->shadow_mismatches;
	st->iommu_cycles = s->service_cycles;
	st->sched_moves = s->sched_moves;
	memcpy(st->pwq_occupancy, s->pwq_hist, sizeof(st->pwq_occupancy));
}
