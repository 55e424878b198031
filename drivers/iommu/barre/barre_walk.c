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
 *
 * Data structures (issue 31; the answers are those of the plain scans,
 * which selftests/host/barre_walk_equiv_test.c keeps as its reference):
 * the busy walkers form a min-heap on (end of walk, walker index); the
 * waiting requests an array sorted by (arrival, tag), whose head is the
 * next to join the queue; every request in the queue or a walker carries
 * its place in its PEC object (chunk, offset, round), placed again after
 * any change of the buffer, so that PEC runs its calculation only on the
 * queued requests its group's chunks can hold and scheduling compares
 * places without dividing. Requests with the same arrival and the same
 * tag (the device numbers its requests, so only a broken one sends two)
 * join the queue in the order they were submitted; the plain scan took
 * them in an order its swap-removals made.
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
	for (c = 0; c < chiplets && c < MCMGPU_PEC_MAX_CHIPLETS; c++)
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
	    cfg->chiplets > MCMGPU_PEC_MAX_CHIPLETS)
		return -EINVAL;
	memset(b, 0, sizeof(*b));
	b->cfg = *cfg;
	b->ops = *ops;
	b->respond = respond;
	b->respond_priv = respond_priv;
	return 0;
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

/* The group size a leaf PTE gives, in the mode of the walker's chiplets. */
static u32 barre_walker_coal_n(const struct barre_walker *b, u64 pte)
{
	struct mcmgpu_coal g;

	mcmgpu_coal_decode(pte, mcmgpu_coal_count_mode(b->cfg.chiplets), &g);
	return g.n;
}

/* The PW-queue bucket of a place: a multiplicative hash of its key. */
static u16 barre_walker_bucket(u32 slot, u64 round, u64 offset)
{
	return (slot + round * 0x9e3779b97f4a7c15ULL + offset * 0xc2b2ae3d27d4eb4fULL) >> 52;
}

/* vpn's place in object e (start_vpn <= vpn, g and nmap not 0). */
static void barre_walker_place_in(const struct barre_walker *b, const struct mcmgpu_pec_entry *e,
				  u64 vpn, struct barre_walker_place *p)
{
	u64 off = vpn - e->start_vpn;

	p->slot = e - b->pec + 1;
	p->chunk = off / e->g;
	p->offset = off % e->g;
	p->round = p->chunk / e->nmap;
	p->bucket = barre_walker_bucket(p->slot, p->round, p->offset);
}

/* r's place in the object PEC finds for it. */
static void barre_walker_place(const struct barre_walker *b, const struct barre_walker_request *r,
			       struct barre_walker_place *p)
{
	const struct mcmgpu_pec_entry *e = barre_walker_pec_find(b, r->pasid, r->vpn);

	if (e && e->g && e->nmap)
		barre_walker_place_in(b, e, r->vpn, p);
	else
		p->slot = 0;
}

/*
 * After any change of the buffer: the overlap flag, then every request in
 * the queue or a walker placed again and the queue's buckets recounted.
 */
static void barre_walker_pec_changed(struct barre_walker *b)
{
	const struct mcmgpu_pec_entry *x, *y;
	u32 i, j;

	b->pec_overlap = false;
	for (i = 0; i < b->cfg.pec_entries; i++)
		for (j = i + 1; j < b->cfg.pec_entries; j++) {
			x = &b->pec[i];
			y = &b->pec[j];
			if (x->valid && y->valid && x->pasid == y->pasid &&
			    x->start_vpn <= y->end_vpn && y->start_vpn <= x->end_vpn)
				b->pec_overlap = true;
		}
	memset(b->bucket, 0, sizeof(b->bucket));
	for (i = b->qhead; i < b->qhead + b->nqueue; i++) {
		barre_walker_place(b, &b->queue[i].req, &b->queue[i].place);
		if (b->queue[i].place.slot)
			b->bucket[b->queue[i].place.bucket]++;
	}
	for (i = 0; i < b->cfg.walkers; i++)
		if (b->walker[i].busy)
			barre_walker_place(b, &b->walker[i].req, &b->walker[i].place);
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
	barre_walker_pec_changed(b);
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
	barre_walker_pec_changed(b);
	return ret >= 0;
}

void barre_walker_pec_restore(struct barre_walker *b, const struct mcmgpu_pec_entry *buf,
			      u32 n)
{
	memset(b->pec, 0, sizeof(b->pec));
	memcpy(b->pec, buf, (n < BARRE_WALKER_MAX_PEC ? n : BARRE_WALKER_MAX_PEC) * sizeof(*buf));
	barre_walker_pec_changed(b);
}

void barre_walker_pec_drop(struct barre_walker *b, u32 pasid, u64 start, u64 end)
{
	mcmgpu_pec_drop(b->pec, BARRE_WALKER_MAX_PEC, pasid, start, end);
	barre_walker_pec_changed(b);
}

u64 barre_walker_walk(const struct barre_walker *b, u32 pasid, u64 vpn)
{
	return mcmgpu_pt_walk(b->ops.root(b->ops.priv, pasid), vpn,
			      b->ops.read_entry, b->ops.priv);
}

u32 barre_walker_inflight(const struct barre_walker *b)
{
	return b->nwaiting + b->nqueue + b->nbusy;
}

int barre_walker_can_submit(const struct barre_walker *b, u64 arrive, u32 count)
{
	if (arrive < b->now)
		return -EINVAL;
	if (barre_walker_inflight(b) + count > BARRE_WALKER_MAX_INFLIGHT)
		return -ENOSPC;
	return 0;
}

static bool barre_walker_arrives_after(const struct barre_walker_request *a,
				       const struct barre_walker_request *r)
{
	return a->arrive > r->arrive || (a->arrive == r->arrive && a->tag > r->tag);
}

int barre_walker_submit(struct barre_walker *b, const struct barre_walker_request *req)
{
	int ret = barre_walker_can_submit(b, req->arrive, 1);
	u32 i;

	if (ret)
		return ret;
	if (b->whead + b->nwaiting == BARRE_WALKER_MAX_INFLIGHT) {
		memmove(b->waiting, b->waiting + b->whead, b->nwaiting * sizeof(*req));
		b->whead = 0;
	}
	/* Requests come nearly in arrival order: a short walk from the tail. */
	for (i = b->whead + b->nwaiting;
	     i > b->whead && barre_walker_arrives_after(&b->waiting[i - 1], req); i--)
		b->waiting[i] = b->waiting[i - 1];
	b->waiting[i] = *req;
	b->nwaiting++;
	b->stats.ats_requests++;
	return 0;
}

void barre_walker_abandon(struct barre_walker *b)
{
	u32 w;

	/* Walked ones stay counted as walks; the others were never served. */
	b->stats.ats_requests -= b->nwaiting + b->nqueue;
	b->whead = 0;
	b->nwaiting = 0;
	b->qhead = 0;
	b->nqueue = 0;
	memset(b->bucket, 0, sizeof(b->bucket));
	b->nbusy = 0;
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
		e = barre_walker_coal_n(b, pte) >= 2 ?
		    barre_walker_pec_find(b, req->pasid, req->vpn) : NULL;
		if (e) {
			rsp.coal = pte & MCMGPU_PTE_COAL_MASK;
			rsp.pec = *e;
		}
	}
	b->stats.service_cycles += b->now - req->arrive;
	b->respond(b->respond_priv, &rsp);
}

/*
 * The place of r (placed at p) in e: p itself when it is e's, else when
 * e may hold r too (overlapping entries) computed in *tmp, else NULL.
 */
static const struct barre_walker_place *
barre_walker_place_for(const struct barre_walker *b, const struct mcmgpu_pec_entry *e,
		       const struct barre_walker_request *r, const struct barre_walker_place *p,
		       struct barre_walker_place *tmp)
{
	if (p->slot == e - b->pec + 1)
		return p;
	if (!b->pec_overlap || r->pasid != e->pasid || r->vpn < e->start_vpn ||
	    r->vpn > e->end_vpn)
		return NULL;
	barre_walker_place_in(b, e, r->vpn, tmp);
	return tmp;
}

/*
 * Whether the page at place p of e may be in the group whose first page
 * lies c chunks and o pages after e's first page (before it if before):
 * its distance d from the group's first page must have d / g < nmap and
 * d % g < m, as mcmgpu_pec_calc_pte() requires; found here from the
 * chunks, without a division. A superset: the calculation decides.
 */
static bool barre_walker_may_group(const struct mcmgpu_pec_entry *e,
				   const struct barre_walker_place *p,
				   bool before, u64 c, u32 o, u32 m)
{
	u64 k, x;

	if (before) {
		k = p->chunk + c;
		x = (u64)p->offset + o;
		if (x >= e->g) {
			k++;
			x -= e->g;
		}
	} else {
		if (p->chunk < c || (p->chunk == c && p->offset < o))
			return false;
		k = p->chunk - c;
		if (p->offset >= o) {
			x = p->offset - o;
		} else {
			k--;
			x = (u64)p->offset + e->g - o;
		}
	}
	return x < m && k < e->nmap;
}

/*
 * Whether a queued request may be in the group whose first page lies c
 * chunks and o pages after e's first page (m pages a chiplet): a member d
 * = k g + x pages past it (k < nmap, x < m, x < g) sits at offset (o + x)
 * mod g of chunks c' .. c' + nmap - 1 (c' = c, or c + 1 past the chunk's
 * end), so in one of two rounds. False only if all those buckets are empty.
 */
static bool barre_walker_group_queued(const struct barre_walker *b,
				      const struct mcmgpu_pec_entry *e, u64 c, u32 o, u32 m)
{
	u32 slot = e - b->pec + 1, cm = c % e->nmap, rm;
	u64 cr = c / e->nmap, r, off;
	u32 x;

	for (x = 0; x < m && x < e->g; x++) {
		off = (u64)o + x;
		r = cr;
		rm = cm;
		if (off >= e->g) {
			off -= e->g;
			if (++rm == e->nmap) {
				r++;
				rm = 0;
			}
		}
		if (b->bucket[barre_walker_bucket(slot, r, off)] ||
		    (rm && b->bucket[barre_walker_bucket(slot, r + 1, off)]))
			return true;
	}
	return false;
}

/*
 * PEC after a walk of req that found pte: complete its group's pending
 * pages, in queue order. Only the queued requests of req's object whose
 * chunks put them in the group go through PEC's calculation, which
 * decides as it always did.
 */
static void barre_walker_coalesce(struct barre_walker *b, const struct barre_walker_request *req,
				  u64 pte)
{
	struct barre_walker_queued *queue = b->queue + b->qhead;
	const struct barre_walker_place *p;
	const struct mcmgpu_pec_entry *e;
	struct barre_walker_place tmp;
	struct mcmgpu_coal g;
	u32 o_t, i_t, m;
	u32 i, kept, o;
	u64 first, c;
	bool before;

	mcmgpu_coal_decode(pte, mcmgpu_coal_count_mode(b->cfg.chiplets), &g);
	o_t = g.pos;
	i_t = g.intra;
	m = g.run;
	if (!b->cfg.pec_entries || !(pte & MCMGPU_PTE_VALID) || g.n < 2)
		return;
	e = barre_walker_pec_find(b, req->pasid, req->vpn);
	if (!e) {
		b->stats.pec_misses++;
		return;
	}
	b->stats.pec_hits++;
	/* What mcmgpu_pec_calc_pte() refuses for every page. */
	if (!e->g || o_t >= e->nmap || !mcmgpu_coal_member(&g, o_t, e->map[o_t]) ||
	    req->vpn < i_t + (u64)e->g * o_t)
		return;
	first = req->vpn - i_t - (u64)e->g * o_t;
	before = first < e->start_vpn;
	c = before ? e->start_vpn - first : first - e->start_vpn;
	o = c % e->g;
	c /= e->g;
	if (!before && !b->pec_overlap && !barre_walker_group_queued(b, e, c, o, m))
		return;
	for (i = 0, kept = 0; i < b->nqueue; i++) {
		struct barre_walker_queued *q = &queue[i];
		__u64 calc;

		p = barre_walker_place_for(b, e, &q->req, &q->place, &tmp);
		if (!p || !barre_walker_may_group(e, p, before, c, o, m) ||
		    (q->req.write && !(pte & MCMGPU_PTE_WRITE)) ||
		    !mcmgpu_pec_calc_pte(e, b->cfg.base, req->vpn, pte, q->req.vpn, &calc)) {
			if (kept != i)
				queue[kept] = *q;
			kept++;
			continue;
		}
		if (b->cfg.shadow) {
			u64 truth = barre_walker_walk(b, q->req.pasid, q->req.vpn);

			if (!(truth & MCMGPU_PTE_VALID) ||
			    MCMGPU_PTE_PFN(truth) != MCMGPU_PTE_PFN(calc) ||
			    ((pte & MCMGPU_PTE_WRITE) && !(truth & MCMGPU_PTE_WRITE)))
				b->stats.shadow_mismatches++;
		}
		b->bucket[q->place.bucket] -= !!q->place.slot;
		b->stats.coalesced++;
		barre_walker_answer(b, &q->req, calc, true);
	}
	b->nqueue = kept;
}

/* Arrivals up to now join the queue, earliest (then lowest tag) first. */
static void barre_walker_admit(struct barre_walker *b)
{
	while (b->nqueue < b->cfg.pwq_entries && b->nwaiting &&
	       b->waiting[b->whead].arrive <= b->now) {
		struct barre_walker_queued *q;

		if (b->qhead + b->nqueue == 2 * MCMGPU_BARRE_PWQ_ENTRIES) {
			memmove(b->queue, b->queue + b->qhead, b->nqueue * sizeof(*q));
			b->qhead = 0;
		}
		q = &b->queue[b->qhead + b->nqueue];
		b->stats.pwq_hist[b->nqueue++]++;
		q->req = b->waiting[b->whead++];
		b->nwaiting--;
		barre_walker_place(b, &q->req, &q->place);
		b->bucket[q->place.bucket] += !!q->place.slot;
	}
	if (!b->nwaiting)
		b->whead = 0;
}

/* Same object, same round, same offset in the chunk: PEC will likely do q. */
static bool barre_walker_predict_group(const struct barre_walker *b,
				       const struct barre_walker_queued *q)
{
	const struct barre_walker_place *pw;
	const struct mcmgpu_pec_entry *e;
	struct barre_walker_place tmp;
	u32 w;

	/* Its place is in the entry PEC finds for it (0: none, or g or nmap 0). */
	if (!q->place.slot)
		return false;
	e = &b->pec[q->place.slot - 1];
	for (w = 0; w < b->cfg.walkers; w++) {
		const struct barre_walker_unit *wk = &b->walker[w];

		if (!wk->busy)
			continue;
		pw = barre_walker_place_for(b, e, &wk->req, &wk->place, &tmp);
		if (pw && pw->round == q->place.round && pw->offset == q->place.offset &&
		    wk->req.pasid == q->req.pasid)
			return true;
	}
	return false;
}

/* The queue index an idle walker takes now, nqueue if it should wait. */
static u32 barre_walker_pick(const struct barre_walker *b)
{
	const struct barre_walker_queued *queue = b->queue + b->qhead;
	u32 i;

	if (!b->cfg.sched_moves)
		return 0;
	for (i = 0; i < b->nqueue; i++)
		if (queue[i].req.moves >= b->cfg.sched_moves ||
		    !barre_walker_predict_group(b, &queue[i]))
			return i;
	return b->nqueue;
}

static void barre_walker_reverse(struct barre_walker_queued *q, u32 from, u32 to)
{
	struct barre_walker_queued t;

	while (from + 1 < to) {
		t = q[from];
		q[from++] = q[--to];
		q[to] = t;
	}
}

/* Walker x's walk ends before walker y's (ties: the lower index first). */
static bool barre_walker_ends_first(const struct barre_walker *b, u32 x, u32 y)
{
	return b->walker[x].done < b->walker[y].done ||
	       (b->walker[x].done == b->walker[y].done && x < y);
}

static void barre_walker_heap_push(struct barre_walker *b, u32 w)
{
	u32 i = b->nbusy++, up;

	for (; i; i = up) {
		up = (i - 1) / 2;
		if (!barre_walker_ends_first(b, w, b->heap[up]))
			break;
		b->heap[i] = b->heap[up];
	}
	b->heap[i] = w;
}

/* Takes the walker whose walk ends first off the heap. */
static u32 barre_walker_heap_pop(struct barre_walker *b)
{
	u32 top = b->heap[0], w = b->heap[--b->nbusy], i = 0, c;

	while ((c = 2 * i + 1) < b->nbusy) {
		if (c + 1 < b->nbusy && barre_walker_ends_first(b, b->heap[c + 1], b->heap[c]))
			c++;
		if (!barre_walker_ends_first(b, b->heap[c], w))
			break;
		b->heap[i] = b->heap[c];
		i = c;
	}
	b->heap[i] = w;
	return top;
}

static void barre_walker_dispatch(struct barre_walker *b)
{
	struct barre_walker_queued *queue;
	u32 w, i, pick;

	for (w = 0; w < b->cfg.walkers && b->nqueue && b->nbusy < b->cfg.walkers; w++) {
		struct barre_walker_unit *wk = &b->walker[w];

		if (wk->busy)
			continue;
		pick = barre_walker_pick(b);
		if (pick == b->nqueue)
			return;
		queue = b->queue + b->qhead;
		wk->busy = true;
		wk->req = queue[pick].req;
		wk->done = b->now + (b->ops.walk_cycles ?
			b->ops.walk_cycles(b->ops.priv, &wk->req) :
			b->cfg.walk_cycles);
		wk->place = queue[pick].place;
		b->bucket[wk->place.bucket] -= !!wk->place.slot;
		barre_walker_heap_push(b, w);
		b->stats.sched_moves += pick;
		b->stats.walks++;
		if (!pick) {
			b->qhead = --b->nqueue ? b->qhead + 1 : 0;
			continue;
		}
		for (i = pick + 1; i < b->nqueue; i++)
			queue[i - 1] = queue[i];
		b->nqueue--;
		/* The ones passed over go to the tail, in their order (a rotation). */
		for (i = 0; i < pick; i++)
			queue[i].req.moves++;
		if (pick < b->nqueue) {
			barre_walker_reverse(queue, 0, pick);
			barre_walker_reverse(queue, pick, b->nqueue);
			barre_walker_reverse(queue, 0, b->nqueue);
		}
	}
}

u64 barre_walker_next_event(const struct barre_walker *b)
{
	u64 next = b->nbusy ? b->walker[b->heap[0]].done : ~0ULL;
	u32 lo, hi, mid;

	/* Nothing ends before now: an idle walker that can start goes first. */
	if (b->nbusy < b->cfg.walkers && b->nqueue && barre_walker_pick(b) < b->nqueue)
		return b->now;
	if (!b->nwaiting)
		return next;
	lo = b->whead;
	hi = b->whead + b->nwaiting;
	if (b->waiting[lo].arrive <= b->now) {
		/* Arrived ones wait for room in the queue, not for time. */
		if (b->nqueue < b->cfg.pwq_entries)
			return b->now;
		/* The first one not arrived yet. */
		while (lo < hi) {
			mid = lo + (hi - lo) / 2;
			if (b->waiting[mid].arrive <= b->now)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo == b->whead + b->nwaiting)
			return next;
	}
	return b->waiting[lo].arrive < next ? b->waiting[lo].arrive : next;
}

void barre_walker_advance(struct barre_walker *b, u64 until)
{
	for (;;) {
		u64 t = barre_walker_next_event(b);

		if (t >= until)
			break;
		if (t > b->now)
			b->now = t;
		/* Walks that end now, in walker order. */
		while (b->nbusy && b->walker[b->heap[0]].done == b->now) {
			struct barre_walker_unit *wk = &b->walker[barre_walker_heap_pop(b)];
			u64 pte;

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
