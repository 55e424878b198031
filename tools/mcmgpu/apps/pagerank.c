// SPDX-License-Identifier: GPL-2.0
/*
 * HeteroMark's pr (PageRankUpdateGpu): power iterations y = M x over a
 * CSR matrix, 64 threads a row (an AMD wavefront; a block of two warps
 * here), the host swapping x and y between a fixed number of launches.
 * A row's 64 threads each store y[row] = 0, stride through the row's
 * nonzeros 64 apart summing val * x[col], put their partial sums in
 * shared memory and reduce them by halves (64 to 32 to ... 1); thread 0
 * adds the total to y[row].
 *
 * Two departures, both because of the executor's model: HeteroMark's
 * reduction steps rely on the 64-wide wavefront running in lockstep and
 * have no barrier; with 32-thread warps that run one thread after
 * another between barriers, each step ends with a barrier here. And a
 * thread's partial sum is kept in a register and stored to shared
 * memory once, not read and written there every nonzero.
 *
 * The matrix is the R-MAT graph's (app_rmat) transition matrix: row v,
 * column u holds 1 / degree(u) for each edge; x starts at 1 / vertices.
 * The ranks after the iterations are checked against the same sums on
 * the host, in the kernel's order.
 */
#include <errno.h>
#include <stdlib.h>

#include "app_util.h"
#include "apps.h"

#define PR_ROW_THREADS	64
#define PR_ITERATIONS	10

struct pr_args {
	uint64_t row_offset, col, val, x, y;
	uint32_t n;
};

/*
 * OPS: the global index, the row and the lane (INT 3) and row < n (INT
 * 1, BRANCH 1); a nonzero: an FFMA (FP 1) and the loop (INT 2, BRANCH
 * 1); a reduction step: lane < s (INT 1, BRANCH 1), the add (FP 1) where
 * taken, the loop (INT 2, BRANCH 1); the end: lane == 0 (INT 1, BRANCH
 * 1) and the add (FP 1).
 */
static void pr_kernel(struct simt_thread *t, const void *p)
{
	const struct pr_args *a = p;
	uint32_t lane = simt_thread_idx(t).x;
	uint64_t row = simt_global_x(t) / PR_ROW_THREADS;
	bool valid = row < a->n;
	uint32_t s;

	OPS(t, PROG_OP_INT, 4);
	OPS(t, PROG_OP_BRANCH, 1);
	if (valid) {
		uint32_t start, end, jj;
		float sum = 0.0f;

		ST(t, float, a->y, row, 0.0f);
		start = LD(t, uint32_t, a->row_offset, row);
		end = LD(t, uint32_t, a->row_offset, row + 1);
		for (jj = start + lane; jj < end; jj += PR_ROW_THREADS) {
			uint32_t c = LD(t, uint32_t, a->col, jj);
			float v = LD(t, float, a->val, jj);
			float x = LD(t, float, a->x, c);

			OPS(t, PROG_OP_FP, 1);
			sum = sum + v * x;
			OPS(t, PROG_OP_INT, 2);
			OPS(t, PROG_OP_BRANCH, 1);
		}
		STS(t, float, lane, sum);
	}
	SYNC(t);
	for (s = PR_ROW_THREADS / 2; s > 0; s >>= 1) {
		OPS(t, PROG_OP_INT, 1);
		OPS(t, PROG_OP_BRANCH, 1);
		if (valid && lane < s) {
			float lo = LDS(t, float, lane);
			float hi = LDS(t, float, lane + s);

			OPS(t, PROG_OP_FP, 1);
			STS(t, float, lane, lo + hi);
		}
		SYNC(t);
		OPS(t, PROG_OP_INT, 2);
		OPS(t, PROG_OP_BRANCH, 1);
	}
	OPS(t, PROG_OP_INT, 1);
	OPS(t, PROG_OP_BRANCH, 1);
	if (valid && lane == 0) {
		float y = LD(t, float, a->y, row);
		float total = LDS(t, float, 0);

		OPS(t, PROG_OP_FP, 1);
		ST(t, float, a->y, row, y + total);
	}
}

/* One iteration on the host, summed as the kernel sums. */
static void pr_ref(const struct app_graph *g, const float *val,
		   const float *x, float *y)
{
	float part[PR_ROW_THREADS];
	uint32_t v, lane, s, jj;

	for (v = 0; v < g->nodes; v++) {
		for (lane = 0; lane < PR_ROW_THREADS; lane++) {
			float sum = 0.0f;

			for (jj = g->row[v] + lane; jj < g->row[v + 1];
			     jj += PR_ROW_THREADS)
				sum = sum + val[jj] * x[g->col[jj]];
			part[lane] = sum;
		}
		for (s = PR_ROW_THREADS / 2; s > 0; s >>= 1)
			for (lane = 0; lane < s; lane++)
				part[lane] = part[lane] + part[lane + s];
		y[v] = 0.0f + part[0];
	}
}

static int pagerank_run(struct simt_gpu *gpu, uint64_t size, uint64_t seed,
			char *err, size_t errlen)
{
	const char *app = "pagerank";
	float *val = NULL, *x = NULL, *y = NULL, *got = NULL, *tmp;
	uint64_t d_x, d_y, d_tmp;
	struct pr_args args;
	struct app_graph g;
	uint32_t n, v, j, it;
	int ret;

	ret = app_size_range(size, 1, APP_RMAT_MAX_SCALE, "the scale", app,
			     err, errlen);
	if (ret)
		return ret;
	ret = app_rmat(&g, (unsigned int)size, seed, false, app, err, errlen);
	if (ret)
		return ret;
	n = g.nodes;
	val = malloc(((size_t)g.edges + 1) * sizeof(*val));
	x = malloc((size_t)n * sizeof(*x));
	y = malloc((size_t)n * sizeof(*y));
	got = malloc((size_t)n * sizeof(*got));
	ret = -ENOMEM;
	if (!val || !x || !y || !got) {
		app_err(err, errlen, app, "out of memory");
		goto out;
	}
	/* Row v, column u: 1 / degree(u), u's rank spread over its edges. */
	for (v = 0; v < n; v++) {
		for (j = g.row[v]; j < g.row[v + 1]; j++) {
			uint32_t u = g.col[j];

			val[j] = 1.0f / (float)(g.row[u + 1] - g.row[u]);
		}
		x[v] = 1.0f / (float)n;
	}

	args.n = n;
	ret = app_alloc(gpu, ((uint64_t)n + 1) * sizeof(uint32_t),
			"rowOffset", &args.row_offset, app, err, errlen);
	if (!ret)
		ret = app_alloc(gpu, (uint64_t)g.edges * sizeof(uint32_t),
				"col", &args.col, app, err, errlen);
	if (!ret)
		ret = app_alloc(gpu, (uint64_t)g.edges * sizeof(float), "val",
				&args.val, app, err, errlen);
	if (!ret)
		ret = app_alloc(gpu, (uint64_t)n * sizeof(float), "pageRank",
				&d_x, app, err, errlen);
	if (!ret)
		ret = app_alloc(gpu, (uint64_t)n * sizeof(float),
				"pageRankTemp", &d_y, app, err, errlen);
	if (ret)
		goto out;
	simt_h2d(gpu, args.row_offset, g.row,
		 ((uint64_t)n + 1) * sizeof(uint32_t));
	simt_h2d(gpu, args.col, g.col, (uint64_t)g.edges * sizeof(uint32_t));
	simt_h2d(gpu, args.val, val, (uint64_t)g.edges * sizeof(float));
	simt_h2d(gpu, d_x, x, (uint64_t)n * sizeof(float));
	for (it = 0; it < PR_ITERATIONS; it++) {
		args.x = d_x;
		args.y = d_y;
		ret = app_launch(gpu, "PageRankUpdateGpu", pr_kernel,
				 DIM3(n, 1, 1), DIM3(PR_ROW_THREADS, 1, 1),
				 PR_ROW_THREADS * sizeof(float), &args, app,
				 err, errlen);
		if (ret)
			goto out;
		d_tmp = d_x;
		d_x = d_y;
		d_y = d_tmp;
	}
	simt_d2h(gpu, got, d_x, (uint64_t)n * sizeof(float));
	app_test_perturb(got, sizeof(*got), n);

	for (it = 0; it < PR_ITERATIONS; it++) {
		pr_ref(&g, val, x, y);
		tmp = x;
		x = y;
		y = tmp;
	}
	ret = app_check_f32(got, x, n, APP_FLOAT_TOLERANCE, app, "pageRank",
			    err, errlen);
out:
	app_graph_free(&g);
	free(val);
	free(x);
	free(y);
	free(got);
	return ret;
}

const struct app_desc app_pagerank = {
	.name = "pagerank",
	.suite = "HeteroMark (pr)",
	.summary = "10 power iterations y = M x, a block of 64 threads a row "
		   "with a shared-memory reduction",
	.input = "size = scale: Graph500's R-MAT graph as for bfs (2^scale "
		 "vertices, 16 x 2^scale edge tuples, undirected, from the "
		 "seed); M[v][u] = 1 / degree(u) for each edge, x starts at "
		 "1 / 2^scale; 10 iterations at every size",
	.small_size = 7,
	.large_size = 13,
	.paper_sizes = "Barre Table I (pr, MPKI 0.828): input not given; "
		       "FinePack: a Cage matrix (SuiteSparse; which one not "
		       "given) = not reproduced, an R-MAT graph stands in "
		       "(--large, scale 13)",
	.kernels = "PageRankUpdateGpu",
	.run = pagerank_run,
};
