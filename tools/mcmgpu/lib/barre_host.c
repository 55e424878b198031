// SPDX-License-Identifier: GPL-2.0
/*
 * The host backend of the Barre replay (barre_replay.h): the allocator
 * core, the device's TLB core and the IOMMU walker core, here.
 *
 * The epoch protocol (the same one the device and barre_iommu.ko run):
 * from cycle H the chiplets run to T = mcmgpu_ats_lookahead(H, the
 * IOMMU's next event), the IOMMU then takes every request they sent
 * (arriving a PCIe latency later) and runs to T + PCIe. No answer it
 * gives later can reach the chiplets before T, and every answer they
 * need before T was given by then, so the result is the same as one
 * simulation of both, whatever the epochs cost in host time.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "barre_replay.h"
#include "chiplet_tlb.h"
#include "num.h"
#include "../../../drivers/mcmgpu/gpu_alloc.h"
#include "../../../drivers/iommu/barre/barre_walk.h"

struct host {
	struct gpu_alloc_pools pools;
	struct gpu_alloc_space as;
	struct gpu_alloc_pt_ops pt;
	struct barre_walker iommu;
	struct chiplet_tlbs dev;
	struct chiplet_tlb_reply replies[MCMGPU_MAX_CHIPLETS * MCMGPU_BARRE_MSHRS];
	struct gpu_alloc_object *obj;		/* by the trace's ID */
	struct chiplet_tlb_access *acc;		/* a phase's accesses */
	u32 *order;
	u64 *storage;			/* the pools' bitmaps */
	uint32_t pcie;
	int error;
};

static u64 host_table_alloc(void *priv)
{
	void *p = aligned_alloc(4096, 4096);

	(void)priv;
	if (p)
		memset(p, 0, 4096);
	return (u64)(uintptr_t)p;
}

static void host_table_free(void *priv, u64 table)
{
	(void)priv;
	free((void *)(uintptr_t)table);
}

static u64 *host_table_map(void *priv, u64 table)
{
	(void)priv;
	return (u64 *)(uintptr_t)table;
}

static u64 host_root(void *priv, u32 pasid)
{
	struct host *h = priv;

	return pasid == h->as.pasid ? h->as.root : 0;
}

static u64 host_read(void *priv, u64 table, u32 index)
{
	(void)priv;
	return ((u64 *)(uintptr_t)table)[index];
}

/* Device -> IOMMU: a PCIe latency later. */
static void host_request(void *priv, const struct chiplet_tlb_request *r)
{
	struct host *h = priv;
	struct barre_walker_request q = {
		.tag = r->tag, .vpn = r->vpn, .arrive = r->issue + h->pcie,
		.pasid = h->as.pasid, .chiplet = r->chiplet, .write = r->write,
	};

	if (barre_walker_submit(&h->iommu, &q))
		h->error = -EPROTO;
}

/* IOMMU -> device. */
static void host_respond(void *priv, const struct barre_walker_response *rsp)
{
	struct host *h = priv;
	struct chiplet_tlb_reply r = {
		.tag = rsp->tag, .pfn = rsp->pfn, .arrive = rsp->done + h->pcie,
		.fault = rsp->status != BARRE_WALKER_STATUS_OK, .writable = rsp->writable,
		.coal = rsp->coal, .pec = rsp->pec,
	};

	if (chiplet_tlb_deliver(&h->dev, &r))
		h->error = -EPROTO;
}

/* F-Barre's check: the true walk of a page translated in the package. */
static u64 host_walk(void *priv, u64 vpn)
{
	struct host *h = priv;

	return gpu_alloc_pte_get(&h->as, vpn);
}

void barre_fb_config(const struct barre_replay_cfg *cfg, struct fbarre_config *fc)
{
	memset(fc, 0, sizeof(*fc));
	fc->sharing = cfg->sharing;
	fc->rows = cfg->filter_rows ? cfg->filter_rows : MCMGPU_FBARRE_FILTER_ROWS;
	fc->drop_ppm = cfg->drop_ppm;
	fc->run = cfg->merge ? cfg->merge : 1;
	fc->seed = 1;
}

/*
 * Runs the phase's accesses to the end, epoch by epoch; each epoch in
 * pieces that end on the phase's grid, so that it ends where the fixed
 * epochs ended it (mcmgpu_barre_grid_next).
 */
static void host_run_phase(struct host *h)
{
	u64 start = h->dev.now;

	while (!h->error && (!chiplet_tlb_done(&h->dev) || barre_walker_inflight(&h->iommu))) {
		u64 H = h->dev.now, T, g;

		/* Nothing in flight: skip to the chiplets' next event. */
		if (!barre_walker_inflight(&h->iommu)) {
			u64 t = chiplet_tlb_next_event(&h->dev);

			if (t != ~0ULL && t > H)
				H = t;
		}
		T = mcmgpu_ats_lookahead(H, barre_walker_inflight(&h->iommu) ?
					 barre_walker_next_event(&h->iommu) : ~0ULL,
					 h->pcie, h->iommu.cfg.walk_cycles);
		for (g = mcmgpu_barre_grid_next(start, H, h->pcie);; g += 2ULL * h->pcie) {
			chiplet_tlb_run(&h->dev, g < T ? g : T);
			if (chiplet_tlb_done(&h->dev) &&
			    !barre_walker_inflight(&h->iommu)) {
				chiplet_tlb_run(&h->dev, g);
				break;
			}
			if (g >= T)
				break;
		}
		barre_walker_advance(&h->iommu, h->dev.now + h->pcie);
	}
}

/* Takes pct % of every pool's frames, at random (seeded). */
static void fragment(struct gpu_alloc_pools *p, uint32_t pct, uint64_t seed)
{
	uint64_t s = seed | 1;
	u32 c, f;

	for (c = 0; pct && c < p->chiplets; c++)
		for (f = 0; f < p->frames; f++)
			if (xorshift64(&s) % 100 < pct)
				gpu_alloc_frame_take(p, c, f);
}

int barre_alloc_bench(uint32_t chiplets, uint64_t frames, uint32_t pct,
		      bool barre, uint64_t pages, uint32_t rounds,
		      double *seconds, uint64_t *grouped)
{
	struct host *h = calloc(1, sizeof(*h));
	u64 *storage = calloc((size_t)chiplets * gpu_alloc_pool_words(frames), 8);
	u64 *pfn = malloc(pages * sizeof(*pfn));
	struct gpu_alloc_alloc_req req = {
		.pages = pages, .policy = MCMGPU_ALLOC_CHUNK, .g = 16,
		.barre = barre, .writable = true,
	};
	struct gpu_alloc_object o;
	uint32_t r;
	double t0;
	int ret = -ENOMEM;

	*grouped = 0;
	if (!h || !storage || !pfn)
		goto out;
	h->pt = (struct gpu_alloc_pt_ops){ host_table_alloc, host_table_free,
				    host_table_map, h };
	gpu_alloc_pools_init(&h->pools, chiplets, frames, storage);
	fragment(&h->pools, pct, 1);
	ret = gpu_alloc_space_init(&h->as, 1, &h->pt);
	if (ret)
		goto out;
	t0 = now_seconds();
	for (r = 0; r < rounds && !ret; r++) {
		ret = gpu_alloc(&h->pools, &h->as, &req, &o, pfn);
		if (!ret) {
			*grouped += o.grouped_pages;
			gpu_alloc_free(&h->pools, &h->as, &o);
		}
	}
	*seconds = now_seconds() - t0;
	gpu_alloc_space_destroy(&h->as);
out:
	free(pfn);
	free(storage);
	free(h);
	return ret;
}

static int host_fail(struct barre_backend *b, int ret, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(b->why, sizeof(b->why), fmt, ap);
	va_end(ap);
	return ret;
}

static void host_close(struct barre_backend *b)
{
	struct host *h = b->priv;

	if (!h)
		return;
	if (h->as.root)
		gpu_alloc_space_destroy(&h->as);
	free(h->order);
	free(h->acc);
	free(h->storage);
	free(h->obj);
	free(h);
	b->priv = NULL;
}

static int host_open(struct barre_backend *b, const struct barre_replay_cfg *cfg,
		     const struct barre_trace *t)
{
	struct host *h = calloc(1, sizeof(*h));
	struct fbarre_config fc;
	struct barre_walker_config bc;
	int ret;

	b->priv = h;
	if (!h)
		return host_fail(b, -ENOMEM, "out of memory");
	h->pcie = MCMGPU_BARRE_PCIE_CYCLES;
	h->pt = (struct gpu_alloc_pt_ops){ host_table_alloc, host_table_free,
				    host_table_map, h };
	h->storage = calloc((size_t)cfg->chiplets * gpu_alloc_pool_words(cfg->frames), 8);
	h->obj = calloc(t->max_id + 1, sizeof(*h->obj));
	h->acc = malloc((t->n + 1) * sizeof(*h->acc));
	h->order = malloc((t->n + 1) * sizeof(*h->order));
	if (!h->storage || !h->obj || !h->acc || !h->order) {
		ret = host_fail(b, -ENOMEM, "out of memory");
		goto fail;
	}
	gpu_alloc_pools_init(&h->pools, cfg->chiplets, cfg->frames, h->storage);
	fragment(&h->pools, cfg->fragment_pct, cfg->fragment_seed);
	ret = gpu_alloc_space_init(&h->as, 1, &h->pt);
	if (ret) {
		host_fail(b, ret, "out of memory");
		goto fail;
	}
	barre_walker_default_config(&bc, cfg->chiplets, cfg->frames);
	bc.walkers = cfg->walkers ? cfg->walkers : MCMGPU_BARRE_WALKERS;
	bc.shadow = cfg->shadow;
	bc.sched_moves = cfg->barre ? cfg->sched_moves : 0;
	if (!cfg->barre)
		bc.pec_entries = 0;
	ret = barre_walker_init(&h->iommu, &bc,
		      &(struct barre_walker_pt_ops){ host_root, host_read, h, NULL },
		      host_respond, h);
	if (ret) {
		host_fail(b, ret, "walkers: %u out of 1..%u", bc.walkers,
			  MCMGPU_BARRE_MAX_WALKERS);
		goto fail;
	}
	chiplet_tlb_init(&h->dev, cfg->chiplets, h->replies, host_request, NULL, h);
	barre_fb_config(cfg, &fc);
	fc.sharing = fc.sharing && cfg->barre;
	if (chiplet_tlb_fbarre(&h->dev, &fc, cfg->frames, host_walk)) {
		ret = host_fail(b, -EINVAL, "F-Barre: filter rows %u not 256, 512 "
				"or 1024, or merge %u not 1..4", fc.rows, fc.run);
		goto fail;
	}
	return 0;
fail:
	host_close(b);
	return ret;
}

static int host_alloc(struct barre_backend *b, uint32_t id,
		      const struct gpu_alloc_alloc_req *req, struct barre_obj *o)
{
	struct host *h = b->priv;
	struct gpu_alloc_object *g = &h->obj[id];
	u64 *pfn = malloc(req->pages * sizeof(*pfn));
	int ret = pfn ? gpu_alloc(&h->pools, &h->as, req, g, pfn) : -ENOMEM;

	if (ret) {
		free(pfn);
		return ret;
	}
	*o = (struct barre_obj){
		.handle = id, .va = g->vpn << 12, .pages = g->pages,
		.groups = g->groups, .grouped_pages = g->grouped_pages,
		.fallback_pages = g->fallback_pages,
		.merged_groups = g->merged_groups,
	};
	if (req->barre) {
		struct mcmgpu_pec_entry pe;

		gpu_alloc_pec_entry(&h->as, g, &pe);
		barre_walker_pec_add(&h->iommu, &pe);
	}
	return 0;
}

static int host_free(struct barre_backend *b, struct barre_obj *o)
{
	struct host *h = b->priv;
	struct gpu_alloc_object *g = &h->obj[o->handle];

	/* PEC entry and TLBs first, then the frames (issue 10, item 3). */
	barre_walker_pec_drop(&h->iommu, h->as.pasid, g->vpn, g->vpn + g->pages - 1);
	chiplet_tlb_shootdown(&h->dev);
	gpu_alloc_free(&h->pools, &h->as, g);
	free(g->pfn);
	return 0;
}

static int host_run(struct barre_backend *b,
		    const struct mcmgpu_barre_access *acc, uint32_t n)
{
	struct host *h = b->priv;
	uint32_t i;

	for (i = 0; i < n; i++)
		h->acc[i] = (struct chiplet_tlb_access){
			.vpn = acc[i].va >> 12, .offset = acc[i].va % 4096,
			.chiplet = acc[i].chiplet, .write = acc[i].write,
		};
	chiplet_tlb_phase(&h->dev, h->acc, n, h->order);
	host_run_phase(h);
	if (h->error)
		return host_fail(b, h->error, "the replay lost a request");
	return 0;
}

static int host_ptes(struct barre_backend *b, const struct barre_obj *o,
		     uint64_t *pte)
{
	struct host *h = b->priv;
	uint64_t i;

	for (i = 0; i < o->pages; i++)
		pte[i] = gpu_alloc_pte_get(&h->as, (o->va >> 12) + i);
	return 0;
}

static int host_stats(struct barre_backend *b, struct mcmgpu_barre_stats *st)
{
	struct host *h = b->priv;

	barre_walker_export_stats(&h->iommu.stats, st);
	chiplet_tlb_export_stats(&h->dev, st);
	return 0;
}

const struct barre_backend_ops barre_host_ops = {
	.open = host_open, .alloc = host_alloc, .free = host_free,
	.run = host_run, .ptes = host_ptes, .stats = host_stats,
	.close = host_close,
};
