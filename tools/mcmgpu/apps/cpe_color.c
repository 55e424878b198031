// SPDX-License-Identifier: GPL-2.0
/*
 * color (CPElide's Table II, Color-max): Pannotia's graph colouring, the
 * max variant (Jones-Plassmann style). Every vertex has a random value;
 * a round with colour c runs color1, which for each uncoloured vertex
 * finds the largest value among its uncoloured neighbours (and raises
 * 'stop' if it has any), then color2, which gives colour c to each
 * uncoloured vertex whose value is at least that maximum. The host
 * clears 'stop', copies it in, launches color1, copies 'stop' back,
 * launches color2, and loops while 'stop' was raised. A thread a vertex
 * in blocks of 256; colours are checked against the same rounds on the
 * host.
 *
 * Input (ours: we take Table II's AK.gr to be DIMACS's ak2010, Alaska's
 * census blocks, 45,292 vertices and 108,549 edges, a sparse nearly
 * planar graph we do not have): a W x W lattice, each vertex joined to its right and lower
 * neighbours with probability 0.9 each and to its lower-right one with
 * probability 0.6 (2.4 undirected edges a vertex, as in AK), vertices
 * numbered row by row, values uniform 31-bit, all from the seed.
 * Ours: the kernel names (Pannotia's two kernels are called color1 and
 * color2 here); Pannotia's degree-1 special case is left out.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "app_util.h"
#include "apps.h"

#define COLOR_BLOCK	256
#define COLOR_MAX_SIDE	2048

struct color_args {
	uint64_t row, col, value, color, max, stop;
	uint32_t n;
	int32_t c;
};

/*
 * OPS: the index and bounds (INT 2, BRANCH 1), the uncoloured test
 * (INT 1, BRANCH 1); color1's edge: the neighbour's test (INT 1,
 * BRANCH 1), for an uncoloured one the compare and select (INT 2,
 * BRANCH 1), the loop (INT 2, BRANCH 1); color2's compare (INT 1,
 * BRANCH 1).
 */
static void color1_kernel(struct simt_thread *t, const void *p)
{
	const struct color_args *a = p;
	uint64_t tid = simt_global_x(t);
	uint32_t start, end, j;
	int32_t max = -1;

	OPS(t, PROG_OP_INT, 2);
	OPS(t, PROG_OP_BRANCH, 1);
	if (tid >= a->n)
		return;
	OPS(t, PROG_OP_INT, 1);
	OPS(t, PROG_OP_BRANCH, 1);
	if (LD(t, int32_t, a->color, tid) != -1)
		return;
	start = LD(t, uint32_t, a->row, tid);
	end = LD(t, uint32_t, a->row, tid + 1);
	for (j = start; j < end; j++) {
		uint32_t u = LD(t, uint32_t, a->col, j);

		OPS(t, PROG_OP_INT, 1);
		OPS(t, PROG_OP_BRANCH, 1);
		if (LD(t, int32_t, a->color, u) == -1) {
			int32_t v;

			ST(t, int32_t, a->stop, 0, 1);
			v = LD(t, int32_t, a->value, u);
			OPS(t, PROG_OP_INT, 2);
			OPS(t, PROG_OP_BRANCH, 1);
			if (v > max)
				max = v;
		}
		OPS(t, PROG_OP_INT, 2);
		OPS(t, PROG_OP_BRANCH, 1);
	}
	ST(t, int32_t, a->max, tid, max);
}

static void color2_kernel(struct simt_thread *t, const void *p)
{
	const struct color_args *a = p;
	uint64_t tid = simt_global_x(t);

	OPS(t, PROG_OP_INT, 2);
	OPS(t, PROG_OP_BRANCH, 1);
	if (tid >= a->n)
		return;
	OPS(t, PROG_OP_INT, 1);
	OPS(t, PROG_OP_BRANCH, 1);
	if (LD(t, int32_t, a->color, tid) != -1)
		return;
	OPS(t, PROG_OP_INT, 1);
	OPS(t, PROG_OP_BRANCH, 1);
	if (LD(t, int32_t, a->value, tid) >= LD(t, int32_t, a->max, tid))
		ST(t, int32_t, a->color, tid, a->c);
}

/* Whether the lattice edge of v in direction dir (0 right, 1 down, 2 diag). */
static bool color_edge(uint64_t seed, uint32_t v, unsigned int dir)
{
	static const uint32_t per_mille[3] = { 900, 900, 600 };

	return app_mix64(seed * 0x9e3779b97f4a7c15ULL ^
			 ((uint64_t)v << 2 | dir)) % 1000 < per_mille[dir];
}

/* The lattice in CSR form, each row's columns ascending. */
static int color_graph(struct app_graph *g, uint32_t w, uint64_t seed)
{
	uint32_t n = w * w, v, e = 0;

	memset(g, 0, sizeof(*g));
	g->nodes = n;
	g->row = malloc(((size_t)n + 1) * sizeof(*g->row));
	g->col = malloc((size_t)n * 6 * sizeof(*g->col));
	if (!g->row || !g->col)
		return -ENOMEM;
	for (v = 0; v < n; v++) {
		uint32_t r = v / w, c = v % w;

		g->row[v] = e;
		if (r && c && color_edge(seed, v - w - 1, 2))
			g->col[e++] = v - w - 1;
		if (r && color_edge(seed, v - w, 1))
			g->col[e++] = v - w;
		if (c && color_edge(seed, v - 1, 0))
			g->col[e++] = v - 1;
		if (c + 1 < w && color_edge(seed, v, 0))
			g->col[e++] = v + 1;
		if (r + 1 < w && color_edge(seed, v, 1))
			g->col[e++] = v + w;
		if (r + 1 < w && c + 1 < w && color_edge(seed, v, 2))
			g->col[e++] = v + w + 1;
	}
	g->row[n] = e;
	g->edges = e;
	return 0;
}

/* The same rounds on the host. */
static void color_ref(const struct app_graph *g, const int32_t *value,
		      int32_t *color, int32_t *max)
{
	uint32_t v, j;
	int32_t c = 0;
	bool stop = true;

	for (v = 0; v < g->nodes; v++)
		color[v] = -1;
	while (stop) {
		stop = false;
		for (v = 0; v < g->nodes; v++) {
			if (color[v] != -1)
				continue;
			max[v] = -1;
			for (j = g->row[v]; j < g->row[v + 1]; j++) {
				uint32_t u = g->col[j];

				if (color[u] == -1) {
					stop = true;
					if (value[u] > max[v])
						max[v] = value[u];
				}
			}
		}
		for (v = 0; v < g->nodes; v++)
			if (color[v] == -1 && value[v] >= max[v])
				color[v] = c;
		c++;
	}
}

static int color_run(struct simt_gpu *gpu, uint64_t size, uint64_t seed,
		     char *err, size_t errlen)
{
	const char *app = "color";
	struct simt_dim3 grid, block = DIM3(COLOR_BLOCK, 1, 1);
	int32_t *value = NULL, *got = NULL, *want = NULL, *max = NULL;
	struct color_args args;
	struct app_graph g;
	struct app_rng rng;
	int32_t stop;
	uint32_t n, i;
	int ret;

	ret = app_size_range(size, 2, COLOR_MAX_SIDE, "the lattice's side",
			     app, err, errlen);
	if (ret)
		return ret;
	ret = color_graph(&g, (uint32_t)size, seed);
	n = g.nodes;
	value = malloc((size_t)n * sizeof(*value));
	got = malloc((size_t)n * sizeof(*got));
	want = malloc((size_t)n * sizeof(*want));
	max = malloc((size_t)n * sizeof(*max));
	if (ret || !value || !got || !want || !max) {
		ret = -ENOMEM;
		app_err(err, errlen, app, "out of memory");
		goto out;
	}
	app_rng_init(&rng, seed, 70);
	for (i = 0; i < n; i++) {
		value[i] = (int32_t)(app_rng_next(&rng) >> 33);
		got[i] = -1;
	}
	memset(&args, 0, sizeof(args));
	args.n = n;
	grid = DIM3(app_blocks(n, COLOR_BLOCK), 1, 1);

	ret = app_alloc(gpu, ((uint64_t)n + 1) * sizeof(uint32_t), "row",
			&args.row, app, err, errlen);
	if (!ret)
		ret = app_alloc(gpu, (uint64_t)g.edges * sizeof(uint32_t),
				"col", &args.col, app, err, errlen);
	if (!ret)
		ret = app_alloc(gpu, (uint64_t)n * sizeof(int32_t),
				"node_value", &args.value, app, err, errlen);
	if (!ret)
		ret = app_alloc(gpu, (uint64_t)n * sizeof(int32_t),
				"col_array", &args.color, app, err, errlen);
	if (!ret)
		ret = app_alloc(gpu, (uint64_t)n * sizeof(int32_t), "max_d",
				&args.max, app, err, errlen);
	if (!ret)
		ret = app_alloc(gpu, sizeof(int32_t), "stop", &args.stop, app,
				err, errlen);
	if (ret)
		goto out;
	simt_h2d(gpu, args.row, g.row, ((uint64_t)n + 1) * sizeof(uint32_t));
	simt_h2d(gpu, args.col, g.col, (uint64_t)g.edges * sizeof(uint32_t));
	simt_h2d(gpu, args.value, value, (uint64_t)n * sizeof(int32_t));
	simt_h2d(gpu, args.color, got, (uint64_t)n * sizeof(int32_t));
	for (stop = 1; stop; args.c++) {
		stop = 0;
		simt_h2d(gpu, args.stop, &stop, sizeof(stop));
		ret = app_launch(gpu, "color1", color1_kernel, grid, block, 0,
				 &args, app, err, errlen);
		if (ret)
			goto out;
		simt_d2h(gpu, &stop, args.stop, sizeof(stop));
		ret = app_launch(gpu, "color2", color2_kernel, grid, block, 0,
				 &args, app, err, errlen);
		if (ret)
			goto out;
	}
	simt_d2h(gpu, got, args.color, (uint64_t)n * sizeof(int32_t));
	app_test_perturb(got, sizeof(*got), n);

	color_ref(&g, value, want, max);
	ret = app_check_i32(got, want, n, app, "col_array", err, errlen);
out:
	app_graph_free(&g);
	free(value);
	free(got);
	free(want);
	free(max);
	return ret;
}

const struct app_desc app_color = {
	.name = "color",
	.suite = "Pannotia (color, max)",
	.summary = "graph colouring by local maxima: a round is color1 (the "
		   "largest value among a vertex's uncoloured neighbours, "
		   "raising 'stop') and color2 (colour the vertices at least "
		   "that), a thread a vertex, blocks of 256, the host looping "
		   "while 'stop' is raised",
	.input = "size = W: a W x W lattice graph, each vertex joined right "
		 "and down with probability 0.9 and down-right with 0.6 "
		 "(AK.gr's 2.4 undirected edges a vertex), numbered row by "
		 "row, values uniform 31-bit, all from the seed. Large: 213, "
		 "45,369 vertices for AK.gr's 45,292",
	.small_size = 32,
	.large_size = 213,
	.kernels = "color1, color2",
	.paper_sizes = "CPElide Table II: AK.gr (taken as DIMACS ak2010: "
		       "45,292 vertices, 108,549 edges) = size 213 (213^2 = "
		       "45,369 lattice vertices, about 108,200 edges)",
	.run = color_run,
};
