// SPDX-License-Identifier: GPL-2.0
/*
 * The Barre IOMMU walker (drivers/iommu/barre/barre_walk.c) against a
 * reference model: the walker as it was before issue 31 made it cheaper
 * (linear scans of the waiting requests, the walkers and the whole
 * PW-queue, PEC's calculation on every queued request), kept here
 * unchanged. Both run the same randomized request streams, shaped like
 * the replays' (several objects in several address spaces, chunked and
 * merged groups, groups with holes, read-only pages, writes, full queues,
 * F-Barre's scheduling, ties in arrival time, PEC entries added and
 * dropped mid-stream, abandoned phases), and must give the same responses
 * in the same order, the same counters and the same next event.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"
#include "../../drivers/iommu/barre/barre_walk.h"
#include "mcmgpu_pt.h"

/* ---- The reference model: the walker before issue 31 ------------------- */

struct ref_unit {
	bool busy;
	u64 done;
	struct barre_walker_request req;
};

struct ref_walker {
	struct barre_walker_config cfg;
	struct barre_walker_pt_ops ops;
	struct mcmgpu_pec_entry pec[BARRE_WALKER_MAX_PEC];
	u64 now;
	struct barre_walker_request waiting[BARRE_WALKER_MAX_INFLIGHT];
	u32 nwaiting;
	struct barre_walker_request queue[MCMGPU_BARRE_PWQ_ENTRIES];
	u32 nqueue;
	struct ref_unit walker[MCMGPU_BARRE_MAX_WALKERS];
	struct barre_walker_stats stats;
	void (*respond)(void *priv, const struct barre_walker_response *rsp);
	void *respond_priv;
};

static void ref_init(struct ref_walker *b, const struct barre_walker_config *cfg,
		     const struct barre_walker_pt_ops *ops,
		     void (*respond)(void *priv, const struct barre_walker_response *rsp),
		     void *respond_priv)
{
	memset(b, 0, sizeof(*b));
	b->cfg = *cfg;
	b->ops = *ops;
	b->respond = respond;
	b->respond_priv = respond_priv;
}

static int ref_pec_add(struct ref_walker *b, const struct mcmgpu_pec_entry *e)
{
	int ret;

	if (!b->cfg.pec_entries)
		return 0;
	ret = mcmgpu_pec_insert(b->pec, b->cfg.pec_entries, e);
	if (ret > 0)
		b->stats.pec_evictions++;
	return ret >= 0;
}

static void ref_pec_drop(struct ref_walker *b, u32 pasid, u64 start, u64 end)
{
	mcmgpu_pec_drop(b->pec, BARRE_WALKER_MAX_PEC, pasid, start, end);
}

static const struct mcmgpu_pec_entry *
ref_pec_find(const struct ref_walker *b, u32 pasid, u64 vpn)
{
	u32 i;

	for (i = 0; i < b->cfg.pec_entries; i++)
		if (b->pec[i].valid && b->pec[i].pasid == pasid &&
		    b->pec[i].start_vpn <= vpn && vpn <= b->pec[i].end_vpn)
			return &b->pec[i];
	return NULL;
}

static u64 ref_walk(const struct ref_walker *b, u32 pasid, u64 vpn)
{
	return mcmgpu_pt_walk(b->ops.root(b->ops.priv, pasid), vpn,
			      b->ops.read_entry, b->ops.priv);
}

static u32 ref_inflight(const struct ref_walker *b)
{
	u32 w, n = b->nwaiting + b->nqueue;

	for (w = 0; w < b->cfg.walkers; w++)
		n += b->walker[w].busy;
	return n;
}

static int ref_can_submit(const struct ref_walker *b, u64 arrive, u32 count)
{
	if (arrive < b->now)
		return -EINVAL;
	if (ref_inflight(b) + count > BARRE_WALKER_MAX_INFLIGHT)
		return -ENOSPC;
	return 0;
}

static int ref_submit(struct ref_walker *b, const struct barre_walker_request *req)
{
	int ret = ref_can_submit(b, req->arrive, 1);

	if (ret)
		return ret;
	b->waiting[b->nwaiting++] = *req;
	b->stats.ats_requests++;
	return 0;
}

static void ref_abandon(struct ref_walker *b)
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
static void ref_answer(struct ref_walker *b, const struct barre_walker_request *req,
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
		    ref_pec_find(b, req->pasid, req->vpn) : NULL;
		if (e) {
			rsp.coal = pte & MCMGPU_PTE_COAL_MASK;
			rsp.pec = *e;
		}
	}
	b->stats.service_cycles += b->now - req->arrive;
	b->respond(b->respond_priv, &rsp);
}

/* PEC after a walk of req that found pte: complete its group's pending pages. */
static void ref_coalesce(struct ref_walker *b, const struct barre_walker_request *req,
				  u64 pte)
{
	const struct mcmgpu_pec_entry *e;
	u32 i, kept = 0;

	if (!b->cfg.pec_entries || !(pte & MCMGPU_PTE_VALID) ||
	    mcmgpu_popcount8(MCMGPU_PTE_COAL_BITMAP(pte)) < 2)
		return;
	e = ref_pec_find(b, req->pasid, req->vpn);
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
			u64 truth = ref_walk(b, q->pasid, q->vpn);

			if (!(truth & MCMGPU_PTE_VALID) ||
			    MCMGPU_PTE_PFN(truth) != MCMGPU_PTE_PFN(calc) ||
			    ((pte & MCMGPU_PTE_WRITE) && !(truth & MCMGPU_PTE_WRITE)))
				b->stats.shadow_mismatches++;
		}
		b->stats.coalesced++;
		ref_answer(b, q, calc, true);
	}
	b->nqueue = kept;
}

/* Arrivals up to now join the queue, earliest (then lowest tag) first. */
static void ref_admit(struct ref_walker *b)
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
static bool ref_predict_group(const struct ref_walker *b,
				       const struct barre_walker_request *q)
{
	const struct mcmgpu_pec_entry *e = ref_pec_find(b, q->pasid, q->vpn);
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
static u32 ref_pick(const struct ref_walker *b)
{
	u32 i;

	if (!b->cfg.sched_moves)
		return 0;
	for (i = 0; i < b->nqueue; i++)
		if (b->queue[i].moves >= b->cfg.sched_moves ||
		    !ref_predict_group(b, &b->queue[i]))
			return i;
	return b->nqueue;
}

static void ref_reverse(struct barre_walker_request *q, u32 from, u32 to)
{
	struct barre_walker_request t;

	while (from + 1 < to) {
		t = q[from];
		q[from++] = q[--to];
		q[to] = t;
	}
}

static void ref_dispatch(struct ref_walker *b)
{
	u32 w, i, pick;

	for (w = 0; w < b->cfg.walkers && b->nqueue; w++) {
		if (b->walker[w].busy)
			continue;
		pick = ref_pick(b);
		if (pick == b->nqueue)
			return;
		b->walker[w].busy = true;
		b->walker[w].done = b->now + b->cfg.walk_cycles;
		b->walker[w].req = b->queue[pick];
		for (i = pick + 1; i < b->nqueue; i++)
			b->queue[i - 1] = b->queue[i];
		b->nqueue--;
		/* The ones passed over go to the tail, in their order (a rotation). */
		for (i = 0; i < pick; i++)
			b->queue[i].moves++;
		if (pick && pick < b->nqueue) {
			ref_reverse(b->queue, 0, pick);
			ref_reverse(b->queue, pick, b->nqueue);
			ref_reverse(b->queue, 0, b->nqueue);
		}
		b->stats.sched_moves += pick;
		b->stats.walks++;
	}
}

static u64 ref_next_event(const struct ref_walker *b)
{
	bool can_start = b->nqueue && ref_pick(b) < b->nqueue;
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

static void ref_advance(struct ref_walker *b, u64 until)
{
	for (;;) {
		u64 t = ref_next_event(b);
		u32 w;

		if (t >= until)
			break;
		if (t > b->now)
			b->now = t;
		for (w = 0; w < b->cfg.walkers; w++) {
			struct ref_unit *wk = &b->walker[w];
			u64 pte;

			if (!wk->busy || wk->done != b->now)
				continue;
			wk->busy = false;
			pte = ref_walk(b, wk->req.pasid, wk->req.vpn);
			ref_answer(b, &wk->req, pte, false);
			ref_coalesce(b, &wk->req, pte);
		}
		ref_admit(b);
		ref_dispatch(b);
	}
	if (until > b->now)
		b->now = until;
}


/* ---- Page tables made up from the objects' layouts --------------------- */

#define SPACES		3
#define MAX_OBJS	10

struct obj {
	u32 pasid;
	u64 start, pages;
	u32 g, nmap, m;		/* chunk, positions, pages a chiplet a group */
	u8 map[MCMGPU_MAX_CHIPLETS];
	bool grouped;		/* coalescing bits in its PTEs */
	bool ro;		/* read-only */
	u32 ro_every;		/* and every ro_every-th page read-only (0: none) */
	u32 hole_every;		/* every hole_every-th group misses position 0 */
	u64 frame;		/* its first frame in every chiplet */
};

struct world {
	u32 chiplets;
	u64 base[MCMGPU_MAX_CHIPLETS];
	struct obj o[MAX_OBJS];
	u32 nobj;
	u64 rng;
};

static u32 rnd(struct world *w, u32 n)
{
	w->rng ^= w->rng << 13;
	w->rng ^= w->rng >> 7;
	w->rng ^= w->rng << 17;
	return n ? (u32)((w->rng >> 11) % n) : 0;
}

static const struct obj *obj_of(const struct world *w, u32 pasid, u64 vpn)
{
	u32 i;

	for (i = 0; i < w->nobj; i++)
		if (w->o[i].pasid == pasid && w->o[i].start <= vpn &&
		    vpn < w->o[i].start + w->o[i].pages)
			return &w->o[i];
	return NULL;
}

/* The leaf PTE the allocator would have written for vpn, or 0. */
static u64 leaf(const struct world *w, u32 pasid, u64 vpn)
{
	const struct obj *o = obj_of(w, pasid, vpn);
	u64 off, round, gid, pte;
	u32 k, co, x, bitmap = 0, j;

	if (!o)
		return 0;
	off = vpn - o->start;
	round = off / ((u64)o->g * o->nmap);
	k = (off / o->g) % o->nmap;
	co = off % o->g;
	x = co % o->m;
	gid = round * o->g + co - x;
	pte = MCMGPU_PTE_VALID | MCMGPU_PTE_READ;
	if (!o->ro && !(o->ro_every && vpn % o->ro_every == 0))
		pte |= MCMGPU_PTE_WRITE;
	pte |= FIELD_PREP(MCMGPU_PTE_PFN_MASK, w->base[o->map[k]] + o->frame + round * o->g + co);
	if (!o->grouped)
		return pte;
	for (j = 0; j < o->nmap; j++)
		if (!(o->hole_every && gid % o->hole_every == 0 && j == 0))
			bitmap |= 1U << o->map[j];
	if (!(bitmap & (1U << o->map[k])) || mcmgpu_popcount8(bitmap) < 2)
		return pte ^ FIELD_PREP(MCMGPU_PTE_PFN_MASK, 0x80000);	/* placed elsewhere */
	return pte | FIELD_PREP(MCMGPU_PTE_COAL_BITMAP_MASK, bitmap) |
	       FIELD_PREP(MCMGPU_PTE_COAL_POS_MASK, k) |
	       FIELD_PREP(MCMGPU_PTE_COAL_INTRA_MASK, x) |
	       FIELD_PREP(MCMGPU_PTE_COAL_MERGED_MASK, o->m - 1);
}

/* A table: its level, address space and VPN prefix in the table bits. */
#define T_LEVEL(t)	(((t) >> 48) & 3)
#define T_PASID(t)	(((t) >> 40) & 0xff)
#define T_PREFIX(t)	(((t) >> 12) & 0xfffffff)
#define T_MAKE(l, p, x)	(((u64)(l) << 48) | ((u64)(p) << 40) | ((u64)(x) << 12))

static u64 w_root(void *priv, u32 pasid)
{
	return pasid >= 1 && pasid <= SPACES ? T_MAKE(0, pasid, 0) : 0;
}

static u64 w_read(void *priv, u64 table, u32 index)
{
	u64 prefix = T_PREFIX(table);

	if (T_LEVEL(table) < MCMGPU_PT_LEVELS - 1)
		return MCMGPU_PTE_VALID |
		       T_MAKE(T_LEVEL(table) + 1, T_PASID(table), prefix << 9 | index);
	return leaf(priv, T_PASID(table), prefix << 9 | index);
}

static void make_world(struct world *w, u64 seed)
{
	static const u32 gs[] = { 1, 2, 3, 4, 6, 8, 16 };
	u64 next[SPACES + 1], frame = 0;
	u32 i, j, c;

	memset(w, 0, sizeof(*w));
	w->rng = seed * 0x9e3779b97f4a7c15ULL + 1;
	w->chiplets = rnd(w, 2) ? 8 : 4;
	for (c = 0; c < w->chiplets; c++)
		w->base[c] = (u64)c * 0x40000;
	for (i = 1; i <= SPACES; i++)
		next[i] = 0x100 + rnd(w, 64);
	w->nobj = 3 + rnd(w, MAX_OBJS - 2);
	for (i = 0; i < w->nobj; i++) {
		struct obj *o = &w->o[i];
		u8 perm[MCMGPU_MAX_CHIPLETS];

		o->pasid = 1 + rnd(w, SPACES);
		o->m = 1U << rnd(w, 3);
		if (o->m > 1 && rnd(w, 3))
			o->m = 1;	/* plain groups most of the time */
		o->g = gs[rnd(w, ARRAY_SIZE(gs))] * o->m;
		o->nmap = 2 + rnd(w, w->chiplets - 1);
		for (c = 0; c < w->chiplets; c++)
			perm[c] = c;
		for (c = 0; c < w->chiplets; c++) {	/* a random GPU_map */
			u8 t = perm[c];

			j = c + rnd(w, w->chiplets - c);
			perm[c] = perm[j];
			perm[j] = t;
		}
		memcpy(o->map, perm, o->nmap);
		/* Whole rounds or not; an object may end inside a group. */
		o->pages = (u64)o->g * o->nmap * (1 + rnd(w, 12)) - (rnd(w, 3) ? 0 : rnd(w, o->g));
		o->grouped = rnd(w, 8) != 0;
		o->ro = rnd(w, 6) == 0;
		o->ro_every = rnd(w, 4) == 0 ? 3 + rnd(w, 5) : 0;
		o->hole_every = rnd(w, 4) == 0 ? 2 + rnd(w, 4) : 0;
		o->start = next[o->pasid];
		next[o->pasid] += o->pages + rnd(w, 3) * 7;
		o->frame = frame;
		frame += o->pages;
	}
}

static void pec_of(const struct obj *o, struct mcmgpu_pec_entry *e)
{
	memset(e, 0, sizeof(*e));
	e->pasid = o->pasid;
	e->start_vpn = o->start;
	e->end_vpn = o->start + o->pages - 1;
	e->g = o->g;
	e->nmap = o->nmap;
	memcpy(e->map, o->map, o->nmap);
}

/* ---- Both walkers on one stream ---------------------------------------- */

struct answers {
	struct barre_walker_response r[1 << 15];
	u32 n;
};

static void collect(void *priv, const struct barre_walker_response *rsp)
{
	struct answers *a = priv;

	if (a->n < ARRAY_SIZE(a->r))
		a->r[a->n] = *rsp;
	a->n++;
}

static bool same_response(const struct barre_walker_response *x,
			  const struct barre_walker_response *y)
{
	return x->tag == y->tag && x->pfn == y->pfn && x->done == y->done &&
	       x->status == y->status && x->coalesced == y->coalesced &&
	       x->writable == y->writable && x->coal == y->coal &&
	       !memcmp(&x->pec, &y->pec, sizeof(x->pec));
}

struct totals {
	u64 requests, coalesced, merged, faults, sched_moves, full, misses, mismatches, overlap;
};

/* A request of stream position i: mostly pages of one group, close in time. */
static void make_request(struct world *w, struct barre_walker_request *r, u64 tag, u64 t,
			 const struct obj *hot, u64 hot_first)
{
	const struct obj *o = hot;
	u64 vpn;

	memset(r, 0, sizeof(*r));
	r->tag = tag * 0x9e3779b97f4a7c15ULL;	/* unique, not in arrival order */
	r->arrive = t + 25 * rnd(w, 13);	/* many ties */
	r->write = rnd(w, 3) == 0;
	r->chiplet = rnd(w, w->chiplets);
	if (rnd(w, 20) == 0) {			/* outside every object, or no space */
		r->pasid = rnd(w, SPACES + 2);
		r->vpn = rnd(w, 0x2000);
		return;
	}
	if (rnd(w, 4) == 0)
		o = &w->o[rnd(w, w->nobj)];
	r->pasid = o->pasid;
	if (o == hot && rnd(w, 4)) {
		/* A member of the hot group: another position, another page of its run. */
		vpn = hot_first + (u64)rnd(w, o->nmap) * o->g + rnd(w, o->m);
		if (vpn >= o->start + o->pages)
			vpn = o->start + rnd(w, o->pages);
	} else {
		vpn = o->start + rnd(w, o->pages);
	}
	r->vpn = vpn;
}

static void run_stream(struct __test_metadata *_metadata, u64 seed, struct totals *tot)
{
	static struct world w;
	static struct barre_walker b;
	static struct ref_walker ref;
	static struct answers got, want;
	struct barre_walker_pt_ops ops = { w_root, w_read, &w };
	struct barre_walker_config cfg;
	struct mcmgpu_pec_entry pe;
	u64 t, tag = 0, hot_first = 0;
	const struct obj *hot;
	u32 epoch, i, c, n, epochs;

	make_world(&w, seed);
	barre_walker_default_config(&cfg, w.chiplets, 0x40000);
	for (c = 0; c < w.chiplets; c++)
		cfg.base[c] = w.base[c];
	cfg.walkers = rnd(&w, 3) ? 1 + rnd(&w, 6) : 1 + rnd(&w, MCMGPU_BARRE_MAX_WALKERS);
	cfg.pwq_entries = rnd(&w, 2) ? 1 + rnd(&w, 12) : 1 + rnd(&w, MCMGPU_BARRE_PWQ_ENTRIES);
	cfg.walk_cycles = 1 + rnd(&w, 700);
	cfg.pec_entries = rnd(&w, 8) ? 1 + rnd(&w, BARRE_WALKER_MAX_PEC) : 0;
	cfg.shadow = rnd(&w, 2);
	cfg.sched_moves = rnd(&w, 3) == 0 ? 0 : rnd(&w, 6) == 0 ? 255 : 1 + rnd(&w, 5);
	memset(&got, 0, sizeof(got));
	memset(&want, 0, sizeof(want));
	ASSERT_EQ(0, barre_walker_init(&b, &cfg, &ops, collect, &got));
	ref_init(&ref, &cfg, &ops, collect, &want);
	for (i = 0; i < w.nobj; i++) {
		if (!w.o[i].grouped || rnd(&w, 5) == 0)
			continue;
		pec_of(&w.o[i], &pe);
		ASSERT_EQ(ref_pec_add(&ref, &pe), barre_walker_pec_add(&b, &pe));
	}
	epochs = 40 + rnd(&w, 160);
	hot = &w.o[0];
	for (epoch = 0, t = 0; epoch < epochs; epoch++, t += 300) {
		/* Now and then a free or a late allocation changes PEC's buffer. */
		if (rnd(&w, 25) == 0) {
			const struct obj *o = &w.o[rnd(&w, w.nobj)];

			barre_walker_pec_drop(&b, o->pasid, o->start, o->start + o->pages - 1);
			ref_pec_drop(&ref, o->pasid, o->start, o->start + o->pages - 1);
		} else if (rnd(&w, 25) == 0) {
			pec_of(&w.o[rnd(&w, w.nobj)], &pe);
			ASSERT_EQ(ref_pec_add(&ref, &pe), barre_walker_pec_add(&b, &pe));
		} else if (rnd(&w, 25) == 0) {
			/*
			 * An entry that disagrees with the tables (a buggy driver):
			 * shifted, overlapping its neighbours, another g or GPU_map
			 * size. Queued requests' cached places go stale, and groups
			 * can start before the entry's first page.
			 */
			const struct obj *o = &w.o[rnd(&w, w.nobj)];

			pec_of(o, &pe);
			barre_walker_pec_drop(&b, o->pasid, o->start, o->start + o->pages - 1);
			ref_pec_drop(&ref, o->pasid, o->start, o->start + o->pages - 1);
			switch (rnd(&w, 5)) {
			case 4:		/* one page into its neighbour's */
				if (rnd(&w, 2))
					pe.end_vpn++;
				else
					pe.start_vpn--;
				break;
			case 0:
				pe.start_vpn += 1 + rnd(&w, o->g);
				break;
			case 1:
				pe.start_vpn -= rnd(&w, 5);
				pe.end_vpn += rnd(&w, 5);
				break;
			case 2:
				pe.g = 1 + rnd(&w, 8);
				break;
			default:
				pe.nmap = 2 + rnd(&w, w.chiplets - 1);
				break;
			}
			ASSERT_EQ(ref_pec_add(&ref, &pe), barre_walker_pec_add(&b, &pe));
		}
		if (rnd(&w, 30) == 0) {
			/* Scheduling switched between phases, as the tests do. */
			ref.cfg.sched_moves = rnd(&w, 2) ? 0 : 1 + rnd(&w, 4);
			b.cfg.sched_moves = ref.cfg.sched_moves;
		}
		if (rnd(&w, 150) == 0) {	/* a failed phase */
			barre_walker_abandon(&b);
			ref_abandon(&ref);
		}
		n = rnd(&w, 4) ? rnd(&w, 24) : rnd(&w, 130);
		for (i = 0; i < n; i++) {
			struct barre_walker_request r;

			if (i % 6 == 0) {	/* a new hot group: its first page */
				u64 off;

				hot = &w.o[rnd(&w, w.nobj)];
				off = rnd(&w, hot->pages);
				hot_first = hot->start + off - off % ((u64)hot->g * hot->nmap) +
					    off % hot->g - off % hot->g % hot->m;
			}
			make_request(&w, &r, tag++, t, hot, hot_first);
			ASSERT_EQ(ref_submit(&ref, &r), barre_walker_submit(&b, &r));
		}
		ASSERT_EQ(ref_next_event(&ref), barre_walker_next_event(&b));
		barre_walker_advance(&b, t + 300 + 150);
		ref_advance(&ref, t + 300 + 150);
		ASSERT_EQ(want.n, got.n);
		ASSERT_EQ(ref_inflight(&ref), barre_walker_inflight(&b));
		ASSERT_EQ(ref_next_event(&ref), barre_walker_next_event(&b));
		ASSERT_EQ(ref.now, b.now);
		tot->full += ref.nqueue == cfg.pwq_entries;
		tot->overlap += b.pec_overlap;
	}
	/* Drain, in steps of a walk. */
	for (i = 0; i < 100000 && ref_inflight(&ref); i++, t += cfg.walk_cycles) {
		barre_walker_advance(&b, t);
		ref_advance(&ref, t);
		ASSERT_EQ(ref_next_event(&ref), barre_walker_next_event(&b));
	}
	ASSERT_EQ(0, barre_walker_inflight(&b));
	ASSERT_EQ(want.n, got.n);
	n = want.n < ARRAY_SIZE(want.r) ? want.n : ARRAY_SIZE(want.r);
	for (i = 0; i < n; i++)
		if (!same_response(&want.r[i], &got.r[i]))
			break;
	EXPECT_EQ(n, i) {
		TH_LOG("seed %llu: response %u differs: tag %llx/%llx done %llu/%llu",
		       (unsigned long long)seed, i, (unsigned long long)want.r[i].tag,
		       (unsigned long long)got.r[i].tag, (unsigned long long)want.r[i].done,
		       (unsigned long long)got.r[i].done);
	}
	ASSERT_EQ(0, memcmp(&ref.stats, &b.stats, sizeof(b.stats))) {
		TH_LOG("seed %llu: walks %llu/%llu coalesced %llu/%llu sched_moves %llu/%llu",
		       (unsigned long long)seed,
		       (unsigned long long)ref.stats.walks, (unsigned long long)b.stats.walks,
		       (unsigned long long)ref.stats.coalesced,
		       (unsigned long long)b.stats.coalesced,
		       (unsigned long long)ref.stats.sched_moves,
		       (unsigned long long)b.stats.sched_moves);
	}
	for (i = 0; i < n; i++)
		tot->merged += want.r[i].coalesced && MCMGPU_PTE_COAL_MERGED(want.r[i].coal);
	tot->requests += b.stats.ats_requests;
	tot->coalesced += b.stats.coalesced;
	tot->faults += b.stats.faults;
	tot->sched_moves += b.stats.sched_moves;
	tot->misses += b.stats.pec_misses;
	tot->mismatches += b.stats.shadow_mismatches;
}

/*
 * 400 streams, each its own objects and configuration. The totals show
 * that the streams reach what they must: coalescing (merged groups too),
 * faults, scheduling's moves, full queues, PEC misses and shadow
 * mismatches (read-only pages inside writable groups).
 */
TEST(same_responses_as_the_linear_scans)
{
	struct totals tot = { 0 };
	u64 seed;

	for (seed = 1; seed <= 400; seed++) {
		run_stream(_metadata, seed, &tot);
		if (!_metadata->passed)
			break;
	}
	TH_LOG("requests %llu coalesced %llu (merged groups %llu) faults %llu sched_moves %llu full %llu misses %llu mismatches %llu overlap %llu",
	       (unsigned long long)tot.requests, (unsigned long long)tot.coalesced,
	       (unsigned long long)tot.merged,
	       (unsigned long long)tot.faults, (unsigned long long)tot.sched_moves,
	       (unsigned long long)tot.full, (unsigned long long)tot.misses,
	       (unsigned long long)tot.mismatches, (unsigned long long)tot.overlap);
	EXPECT_LT(tot.requests / 20, tot.coalesced);
	EXPECT_LT(0, tot.merged);
	EXPECT_LT(0, tot.faults);
	EXPECT_LT(0, tot.sched_moves);
	EXPECT_LT(0, tot.full);
	EXPECT_LT(0, tot.misses);
	EXPECT_LT(0, tot.mismatches);
	EXPECT_LT(0, tot.overlap);
}

TEST_HARNESS_MAIN
