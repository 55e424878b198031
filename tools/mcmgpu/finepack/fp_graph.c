// SPDX-License-Identifier: GPL-2.0
/*
 * Graph workloads for FinePack (derivation in docs/finepack.md):
 * PageRank and SSSP over a CSR graph the tool generates, a banded
 * cage-like matrix or a power-law R-MAT graph. Vertices are owned in
 * equal contiguous blocks, one per chiplet; every chiplet keeps a replica
 * of the vertex array. Each iteration the owner of a vertex whose value
 * changed (every vertex for PageRank, the relaxed ones for SSSP) writes
 * the value into each replica whose chiplet pulls it along an in-edge, in
 * the order a GPU issues it: a thread per vertex, warps of 32 in thread
 * blocks of 256, RESIDENT blocks in flight taking turns a warp at a time;
 * a warp's stores to one destination, coalesced by L1, are one store
 * record per contiguous run of lanes.
 */
#include <stdlib.h>
#include <string.h>

#include "fp_tool.h"

#define WARP		32
#define BLOCK		256
#define RESIDENT	8	/* blocks in flight per chiplet [A] */

struct graph {
	uint64_t n;
	uint64_t *start;	/* in-edges of v: src[start[v] .. start[v+1]) */
	uint32_t *src;
	uint8_t *weight;	/* SSSP edge weights, 1..255 */
};

static uint64_t draw(uint64_t *rng)
{
	return xorshift64(rng);
}

/*
 * One in-edge source for vertex v. Band: uniform within +-n/band of v
 * (cage matrices are banded around the diagonal). R-MAT: the source's
 * bits chosen quadrant by quadrant with Graph500's (a, b, c) = (0.57,
 * 0.19, 0.19), the destination being v's bits (below).
 */
static uint64_t band_source(const struct fp_gen_params *p, uint64_t v,
			    uint64_t *rng)
{
	uint64_t half = p->count / p->band, lo = v > half ? v - half : 0;
	uint64_t hi = v + half < p->count ? v + half : p->count - 1;

	return lo + draw(rng) % (hi - lo + 1);
}

/* R-MAT edges, generated as (src, dst) pairs, then grouped by dst. */
static int build_rmat(struct graph *g, const struct fp_gen_params *p,
		      uint64_t *rng)
{
	uint64_t m = g->n * p->degree, e, v, *cnt;
	uint32_t *es = malloc(m * sizeof(*es)), *ed = malloc(m * sizeof(*ed));
	unsigned int bits = 0, k;

	while ((1ULL << bits) < g->n)
		bits++;
	cnt = calloc(g->n + 1, sizeof(*cnt));
	if (!es || !ed || !cnt)
		goto fail;
	for (e = 0; e < m; e++) {
		uint64_t s, d;

		do {
			s = d = 0;
			for (k = 0; k < bits; k++) {
				uint64_t r = draw(rng) % 100;

				/* a 57: (0,0); b 19: (0,1); c 19: (1,0); d 5: (1,1) */
				s = s << 1 | (r >= 76);
				d = d << 1 | ((r >= 57 && r < 76) || r >= 95);
			}
		} while (s >= g->n || d >= g->n || s == d);
		es[e] = s;
		ed[e] = d;
		cnt[d + 1]++;
	}
	for (v = 0; v < g->n; v++)
		cnt[v + 1] += cnt[v];
	memcpy(g->start, cnt, (g->n + 1) * sizeof(*cnt));
	for (e = 0; e < m; e++)
		g->src[cnt[ed[e]]++] = es[e];
	free(es);
	free(ed);
	free(cnt);
	return 0;
fail:
	free(es);
	free(ed);
	free(cnt);
	return -1;
}

static int build(struct graph *g, const struct fp_gen_params *p,
		 uint64_t *rng)
{
	uint64_t m = p->count * p->degree, v, e;

	g->n = p->count;
	g->start = malloc((g->n + 1) * sizeof(*g->start));
	g->src = malloc(m * sizeof(*g->src));
	g->weight = malloc(m);
	if (!g->start || !g->src || !g->weight)
		return -1;
	if (p->graph == FP_GRAPH_RMAT) {
		if (build_rmat(g, p, rng))
			return -1;
	} else {
		for (v = 0; v <= g->n; v++)
			g->start[v] = v * p->degree;
		for (v = 0; v < g->n; v++)
			for (e = g->start[v]; e < g->start[v + 1]; e++)
				g->src[e] = band_source(p, v, rng);
	}
	for (e = 0; e < m; e++)
		g->weight[e] = 1 + draw(rng) % 255;
	return 0;
}

static uint32_t owner(const struct fp_gen_params *p, uint64_t v)
{
	return v / ((p->count + p->chiplets - 1) / p->chiplets);
}

/* The replicas each vertex goes to: chiplets with an in-edge from it. */
static uint16_t *needers(const struct graph *g, const struct fp_gen_params *p)
{
	uint16_t *need = calloc(g->n, sizeof(*need));
	uint64_t v, e;

	if (!need)
		return NULL;
	for (v = 0; v < g->n; v++)
		for (e = g->start[v]; e < g->start[v + 1]; e++)
			if (owner(p, g->src[e]) != owner(p, v))
				need[g->src[e]] |= 1u << owner(p, v);	/* <= 16 chiplets */
	return need;
}

/* One warp's stores: per destination, a record per run of lanes. */
static int warp_stores(struct fp_trace_buf *tb, const struct fp_gen_params *p,
		       const uint16_t *need, const uint8_t *changed,
		       uint64_t first, uint64_t end, uint64_t *rng)
{
	uint32_t c = owner(p, first), d;
	uint8_t data[WARP * 8];
	uint64_t v, run;

	for (d = 0; d < p->chiplets; d++) {
		if (d == c)
			continue;
		for (v = first; v < end; v = run) {
			uint32_t k;

			while (v < end && !(changed[v] && need[v] >> d & 1))
				v++;
			for (run = v; run < end && changed[run] &&
			     need[run] >> d & 1; run++)
				;
			if (run == v)
				break;
			for (k = 0; k < (run - v) * p->store; k++)
				data[k] = draw(rng);
			if (fp_tb_add(tb, MCMGPU_FP_REC_STORE, c, d, v * p->store,
				      (run - v) * p->store, data))
				return -1;
		}
	}
	return 0;
}

/*
 * A pull iteration on chiplet c reads, per owned vertex, its row offsets
 * and writes its value; per in-edge, the source index and value (SSSP:
 * also the weight and the source's changed flag) (docs/finepack.md).
 */
static void graph_compute(const struct graph *g, const struct fp_gen_params *p,
			  uint64_t *ns)
{
	uint64_t per = (p->count + p->chiplets - 1) / p->chiplets, lo, hi;
	double edge = 4 + p->store + (p->kind == FP_GEN_SSSP ? 2 : 0);
	uint32_t c;

	for (c = 0; c < p->chiplets; c++) {
		lo = c * per < g->n ? c * per : g->n;
		hi = lo + per < g->n ? lo + per : g->n;
		ns[c] = p->compute == FP_COMPUTE_GRAPH ?
			fp_roofline_ns((g->start[hi] - g->start[lo]) * edge +
				       (hi - lo) * (8.0 + p->store),
				       2.0 * (g->start[hi] - g->start[lo])) : 0;
	}
}

/* The replicated vertex array: each owner's block, to every peer. */
static int declare_regions(struct fp_trace_buf *tb,
			   const struct fp_gen_params *p)
{
	uint64_t per = (p->count + p->chiplets - 1) / p->chiplets, lo, hi;
	uint32_t c, d;

	for (c = 0; c < p->chiplets; c++) {
		lo = c * per;
		hi = lo + per < p->count ? lo + per : p->count;
		for (d = 0; d < p->chiplets && lo < hi; d++)
			if (d != c && fp_tb_add(tb, MCMGPU_FP_REC_REGION, c, d,
						lo * p->store, (hi - lo) * p->store,
						NULL))
				return -1;
	}
	return 0;
}

/* Every chiplet's changed vertices, in GPU issue order. */
static int iteration(struct fp_trace_buf *tb, const struct fp_gen_params *p,
		     const uint16_t *need, const uint8_t *changed,
		     const uint64_t *compute_ns, uint64_t *rng)
{
	uint64_t per = (p->count + p->chiplets - 1) / p->chiplets;
	uint32_t c;

	for (c = 0; c < p->chiplets; c++)
		if (fp_add_compute(tb, c, compute_ns[c]))
			return -1;

	for (c = 0; c < p->chiplets; c++) {
		uint64_t lo = c * per, hi = lo + per < p->count ? lo + per :
			      p->count, next = lo, at[RESIDENT], end[RESIDENT];
		uint32_t b, live = 0;

		/*
		 * RESIDENT blocks take turns a warp at a time; a finished
		 * block's slot takes the next block.
		 */
		for (; live < RESIDENT && next < hi; live++, next += BLOCK) {
			at[live] = next;
			end[live] = next + BLOCK < hi ? next + BLOCK : hi;
		}
		b = 0;
		while (live) {
			uint64_t w = at[b], wend = w + WARP < end[b] ? w + WARP :
				     end[b];

			if (warp_stores(tb, p, need, changed, w, wend, rng))
				return -1;
			at[b] = wend;
			if (at[b] == end[b]) {
				if (next < hi) {
					at[b] = next;
					end[b] = next + BLOCK < hi ? next + BLOCK : hi;
					next += BLOCK;
				} else {
					live--;
					at[b] = at[live];
					end[b] = end[live];
					b--;	/* the moved slot's turn is next */
				}
			}
			b = live ? (b + 1) % live : 0;
		}
	}
	return fp_tb_add(tb, MCMGPU_FP_REC_KERNEL_END, 0, 0, 0, 0, NULL);
}

int fp_gen_graph(struct fp_trace_buf *tb, const struct fp_gen_params *p,
		 uint64_t *rng)
{
	struct graph g = { 0 };
	uint16_t *need = NULL;
	uint8_t *changed = calloc(p->count, 1);
	uint32_t *dist = NULL, *nd = NULL;
	uint64_t v, e, compute_ns[MCMGPU_FP_MAX_GPUS];
	uint32_t it;
	int ret = -1;

	if (!changed || build(&g, p, rng))
		goto out;
	need = needers(&g, p);
	if (!need || declare_regions(tb, p))
		goto out;
	graph_compute(&g, p, compute_ns);
	if (p->kind == FP_GEN_PAGERANK) {
		/* Synchronous: every rank is new every iteration. */
		memset(changed, 1, p->count);
		for (it = 0; it < p->iters; it++)
			if (iteration(tb, p, need, changed, compute_ns, rng))
				goto out;
		ret = 0;
		goto out;
	}
	/* Bellman-Ford from vertex 0, pulling along in-edges. */
	dist = malloc(p->count * sizeof(*dist));
	nd = malloc(p->count * sizeof(*nd));
	if (!dist || !nd)
		goto out;
	for (v = 0; v < p->count; v++)
		dist[v] = v ? UINT32_MAX : 0;
	changed[0] = 1;
	for (it = 0; it < p->iters; it++) {
		uint64_t any = 0;

		if (iteration(tb, p, need, changed, compute_ns, rng))
			goto out;
		for (v = 0; v < p->count; v++) {
			nd[v] = dist[v];
			for (e = g.start[v]; e < g.start[v + 1]; e++)
				if (changed[g.src[e]] &&
				    dist[g.src[e]] + g.weight[e] < nd[v])
					nd[v] = dist[g.src[e]] + g.weight[e];
		}
		for (v = 0; v < p->count; v++) {
			changed[v] = nd[v] != dist[v];
			any += changed[v];
			dist[v] = nd[v];
		}
		if (!any)
			break;
	}
	ret = 0;
out:
	free(g.start);
	free(g.src);
	free(g.weight);
	free(need);
	free(changed);
	free(dist);
	free(nd);
	return ret;
}
