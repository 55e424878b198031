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
#include <string.h>

#include "app_util.h"
#include "apps.h"
#include "fp_util.h"

#define PR_ROW_THREADS	64
#define PR_ITERATIONS	10

/*
 * fp-pagerank's replicas (fp_util.h): the bytes between GPU g's copies
 * of each array, and the rows a GPU (part; row / part is the GPU). For
 * pagerank: one copy (reps 1, strides 0, part n).
 */
struct pr_args {
	uint64_t row_offset, col, val, x, y;
	uint64_t rep_ro, rep_col, rep_val, rep_vec;
	uint32_t n, part, reps;
};

/*
 * OPS: the global index, the row and the lane (INT 3) and row < n (INT
 * 1, BRANCH 1); a nonzero: an FFMA (FP 1) and the loop (INT 2, BRANCH
 * 1); a reduction step: lane < s (INT 1, BRANCH 1), the add (FP 1) where
 * taken, the loop (INT 2, BRANCH 1); the end: lane == 0 (INT 1, BRANCH
 * 1) and the add (FP 1); with replicas, a store a replica (INT 2, BRANCH
 * 1: the loop).
 */
static void pr_kernel(struct simt_thread *t, const void *p)
{
	const struct pr_args *a = p;
	uint32_t lane = simt_thread_idx(t).x;
	uint64_t row = simt_global_x(t) / PR_ROW_THREADS;
	bool valid = row < a->n;
	uint32_t gpu = (uint32_t)(row / a->part), s, d;
	uint64_t ro = a->row_offset + gpu * a->rep_ro;
	uint64_t col = a->col + gpu * a->rep_col;
	uint64_t val = a->val + gpu * a->rep_val;
	uint64_t x_own = a->x + gpu * a->rep_vec;
	uint64_t y_own = a->y + gpu * a->rep_vec;

	OPS(t, PROG_OP_INT, 4);
	OPS(t, PROG_OP_BRANCH, 1);
	if (valid) {
		uint32_t start, end, jj;
		float sum = 0.0f;

		ST(t, float, y_own, row, 0.0f);
		start = LD(t, uint32_t, ro, row);
		end = LD(t, uint32_t, ro, row + 1);
		for (jj = start + lane; jj < end; jj += PR_ROW_THREADS) {
			uint32_t c = LD(t, uint32_t, col, jj);
			float v = LD(t, float, val, jj);
			float x = LD(t, float, x_own, c);

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
		float y = LD(t, float, y_own, row);
		float total = LDS(t, float, 0);

		OPS(t, PROG_OP_FP, 1);
		if (a->reps == 1) {
			ST(t, float, a->y, row, y + total);
			return;
		}
		/* Every GPU's copy, its own first: P2P stores. */
		for (d = 0; d < a->reps; d++) {
			ST(t, float, a->y + (gpu + d) % a->reps * a->rep_vec,
			   row, y + total);
			OPS(t, PROG_OP_INT, 2);
			OPS(t, PROG_OP_BRANCH, 1);
		}
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

/* Row v, column u: 1 / degree(u), u's rank spread over its edges. */
static void pr_values(const struct app_graph *g, float *val, float *x)
{
	uint32_t v, j;

	for (v = 0; v < g->nodes; v++) {
		for (j = g->row[v]; j < g->row[v + 1]; j++) {
			uint32_t u = g->col[j];

			val[j] = 1.0f / (float)(g->row[u + 1] - g->row[u]);
		}
		x[v] = 1.0f / (float)g->nodes;
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
	uint32_t n, it;
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
	pr_values(&g, val, x);

	memset(&args, 0, sizeof(args));
	args.n = n;
	args.part = n;
	args.reps = 1;
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

/*
 * fp-pagerank (FinePack §V's Pagerank, "iterative synchronous SpMV"):
 * the same kernel as P2P-replicated program on FP_GPUS GPUs (fp_util.h).
 * GPU g owns rows [g part, (g + 1) part), part = ceil(n / 4) (a block a
 * row, so block b works for GPU b / part); the CSR arrays (row offsets,
 * columns, values) and both rank vectors are replicated, each GPU's rows
 * read from its own copy; a row's thread 0 stores the new rank into every
 * GPU's copy of y (its own first), one 4 B P2P store a row and peer, the
 * fine-grained stores FinePack packs. 10 iterations, a launch each.
 * Input (ours): the paper's "Cage" SuiteSparse matrix (which cage# it
 * does not say) is replaced by the R-MAT graph as for pagerank: of
 * cage15 (5.15M rows, 99M nonzeros) we keep a sparse square matrix with
 * a degree of the same order (R-MAT averages about 15 at scale 7 to 29
 * at 20, cage15 19) whose rows' columns fall all over the vector (so
 * every GPU stores to every peer); cage's near-banded structure we do
 * not keep. Size = scale: 2^scale rows (cage15 is about scale 22).
 * Every replica of the ranks is checked against pagerank's reference.
 */
static int fp_pagerank_run(struct simt_gpu *gpu, uint64_t size, uint64_t seed,
			   char *err, size_t errlen)
{
	const char *app = "fp-pagerank";
	float *val = NULL, *x = NULL, *y = NULL, *got = NULL, *tmp;
	uint64_t d_x, d_y, d_tmp;
	struct pr_args args;
	struct app_graph g;
	uint32_t n, it;
	int ret;

	ret = app_size_range(size, 2, APP_RMAT_MAX_SCALE, "the scale", app,
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
	ret = -ENOMEM;
	if (!val || !x || !y) {
		app_err(err, errlen, app, "out of memory");
		goto out;
	}
	pr_values(&g, val, x);

	memset(&args, 0, sizeof(args));
	args.n = n;
	args.reps = FP_GPUS;
	args.part = (n + FP_GPUS - 1) / FP_GPUS;
	args.rep_ro = fp_stride((uint64_t)n + 1, sizeof(uint32_t)) *
		      sizeof(uint32_t);
	args.rep_col = fp_stride(g.edges, sizeof(uint32_t)) *
		       sizeof(uint32_t);
	args.rep_val = fp_stride(g.edges, sizeof(float)) * sizeof(float);
	args.rep_vec = fp_stride(n, sizeof(float)) * sizeof(float);
	ret = fp_alloc(gpu, (uint64_t)n + 1, sizeof(uint32_t), g.row,
		       "rowOffset", &args.row_offset, app, err, errlen);
	if (!ret)
		ret = fp_alloc(gpu, g.edges, sizeof(uint32_t), g.col, "col",
			       &args.col, app, err, errlen);
	if (!ret)
		ret = fp_alloc(gpu, g.edges, sizeof(float), val, "val",
			       &args.val, app, err, errlen);
	if (!ret)
		ret = fp_alloc(gpu, n, sizeof(float), x, "pageRank", &d_x,
			       app, err, errlen);
	if (!ret)
		ret = fp_alloc(gpu, n, sizeof(float), NULL, "pageRankTemp",
			       &d_y, app, err, errlen);
	if (ret)
		goto out;
	for (it = 0; it < PR_ITERATIONS; it++) {
		args.x = d_x;
		args.y = d_y;
		ret = app_launch(gpu, "PageRankUpdateGpu", pr_kernel,
				 DIM3(FP_GPUS * args.part, 1, 1),
				 DIM3(PR_ROW_THREADS, 1, 1),
				 PR_ROW_THREADS * sizeof(float), &args, app,
				 err, errlen);
		if (ret)
			goto out;
		d_tmp = d_x;
		d_x = d_y;
		d_y = d_tmp;
	}
	got = fp_fetch(gpu, d_x, n, sizeof(float));
	ret = -ENOMEM;
	if (!got) {
		app_err(err, errlen, app, "out of memory");
		goto out;
	}

	for (it = 0; it < PR_ITERATIONS; it++) {
		pr_ref(&g, val, x, y);
		tmp = x;
		x = y;
		y = tmp;
	}
	ret = fp_check_f32(got, n, x, NULL, NULL, NULL, app, "pageRank", err,
			   errlen);
out:
	app_graph_free(&g);
	free(val);
	free(x);
	free(y);
	free(got);
	return ret;
}

const struct app_desc app_fp_pagerank = {
	.name = "fp-pagerank",
	.suite = "FinePack §V (Pagerank; pagerank's HeteroMark kernel)",
	.summary = "pagerank's 10 iterations on 4 GPUs by rows, CSR and "
		   "ranks replicated, each new rank stored into every GPU's "
		   "copy (4 B P2P stores)",
	.input = "size = scale: pagerank's R-MAT graph and matrix (2^scale "
		 "rows) standing for the paper's Cage matrix",
	.small_size = 7,
	.large_size = 13,
	.kernels = "PageRankUpdateGpu",
	.paper_sizes = "FinePack §V: Cage (SuiteSparse, cage# not given; "
		       "cage15 has 5.15M rows) = scale 22 (not run: the "
		       "executor's time); large 13",
	.run = fp_pagerank_run,
};
