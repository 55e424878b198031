// SPDX-License-Identifier: GPL-2.0
/*
 * Pannotia's sssp (CSR): single-source shortest paths as repeated
 * min-plus sparse matrix-vector products (Bellman-Ford, Jacobi style),
 * one thread a vertex in blocks of 64. vector_init sets both distance
 * vectors to BIG_NUM but the source's 0; then, until nothing changes,
 * the host clears 'stop' and copies it in, vector_assign copies y into
 * x, spmv_min_dot_plus_kernel sets y[v] = min(x[v], min over v's edges
 * (v, u) of w + x[u]), vector_diff sets 'stop' where x and y differ, and
 * the host copies 'stop' back. x is copied out at the end.
 *
 * On Graph500's R-MAT graph (app_rmat) with integer weights in [1, 255];
 * the graph is undirected, so a vertex's row lists its in-edges too.
 * The source is a random vertex with an edge. The distances are checked
 * against the same iteration run on the host.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "app_util.h"
#include "apps.h"
#include "fp_util.h"

#define SSSP_BLOCK	64
#define SSSP_BIG	99999999	/* Pannotia's BIG_NUM */

/*
 * fp-sssp's replicas (fp_util.h): the bytes between GPU g's copies of
 * each array and the vertices a GPU owns (part; tid / part is the GPU).
 * For sssp: one copy (reps 1, strides 0, part n).
 */
struct sssp_args {
	uint64_t row, col, data, x, y, stop;
	uint64_t rep_row, rep_col, rep_vec, rep_stop;
	uint32_t n, source, part, reps;
};

/* Thread tid's GPU's copy of array base. */
#define SSSP_OWN(a, tid, base, rep)					\
	((a)->base + (tid) / (a)->part * (a)->rep)

/*
 * OPS for the four kernels: the index and its bounds (INT 2, BRANCH 1),
 * then vector_init's source test (INT 1, BRANCH 1); vector_diff's
 * compare (INT 1, BRANCH 1); the min-plus product's edge: the add and
 * the compare (INT 2) and its branch (BRANCH 1), the loop's add and
 * compare (INT 2) and back edge (BRANCH 1). With replicas (fp-sssp): a
 * peer's store (INT 2, BRANCH 1: the loop), vector_assign's changed test
 * (INT 1, BRANCH 1).
 */
static void sssp_init_kernel(struct simt_thread *t, const void *p)
{
	const struct sssp_args *a = p;
	uint64_t tid = simt_global_x(t);

	OPS(t, PROG_OP_INT, 2);
	OPS(t, PROG_OP_BRANCH, 1);
	if (tid >= a->n)
		return;
	OPS(t, PROG_OP_INT, 1);
	OPS(t, PROG_OP_BRANCH, 1);
	if (a->reps > 1) {
		uint32_t gpu = (uint32_t)(tid / a->part), d;
		int32_t v = tid == a->source ? 0 : SSSP_BIG;

		/* x in every GPU's copy (its own first), y its own. */
		for (d = 0; d < a->reps; d++) {
			ST(t, int32_t, a->x + (gpu + d) % a->reps * a->rep_vec,
			   tid, v);
			OPS(t, PROG_OP_INT, 2);
			OPS(t, PROG_OP_BRANCH, 1);
		}
		ST(t, int32_t, a->y + gpu * a->rep_vec, tid, v);
		return;
	}
	if (tid == a->source) {
		ST(t, int32_t, a->x, tid, 0);
		ST(t, int32_t, a->y, tid, 0);
	} else {
		ST(t, int32_t, a->x, tid, SSSP_BIG);
		ST(t, int32_t, a->y, tid, SSSP_BIG);
	}
}

static void sssp_assign_kernel(struct simt_thread *t, const void *p)
{
	const struct sssp_args *a = p;
	uint64_t tid = simt_global_x(t);
	int32_t v;

	OPS(t, PROG_OP_INT, 2);
	OPS(t, PROG_OP_BRANCH, 1);
	if (tid >= a->n)
		return;
	if (a->reps > 1) {
		uint64_t x_own = SSSP_OWN(a, tid, x, rep_vec);
		uint32_t gpu = (uint32_t)(tid / a->part), d;
		int32_t old = LD(t, int32_t, x_own, tid);

		/*
		 * Every copy of x held the old value: the peers need the
		 * new one only where it changed, one 4 B P2P store each.
		 */
		v = LD(t, int32_t, SSSP_OWN(a, tid, y, rep_vec), tid);
		ST(t, int32_t, x_own, tid, v);
		OPS(t, PROG_OP_INT, 1);
		OPS(t, PROG_OP_BRANCH, 1);
		if (v == old)
			return;
		for (d = 1; d < a->reps; d++) {
			ST(t, int32_t, a->x + (gpu + d) % a->reps * a->rep_vec,
			   tid, v);
			OPS(t, PROG_OP_INT, 2);
			OPS(t, PROG_OP_BRANCH, 1);
		}
		return;
	}
	v = LD(t, int32_t, a->y, tid);
	ST(t, int32_t, a->x, tid, v);
}

static void sssp_min_plus_kernel(struct simt_thread *t, const void *p)
{
	const struct sssp_args *a = p;
	uint64_t tid = simt_global_x(t);
	uint32_t start, end, j;
	int32_t min;

	OPS(t, PROG_OP_INT, 2);
	OPS(t, PROG_OP_BRANCH, 1);
	if (tid >= a->n)
		return;
	start = LD(t, uint32_t, SSSP_OWN(a, tid, row, rep_row), tid);
	end = LD(t, uint32_t, SSSP_OWN(a, tid, row, rep_row), tid + 1);
	min = LD(t, int32_t, SSSP_OWN(a, tid, x, rep_vec), tid);
	for (j = start; j < end; j++) {
		uint32_t u = LD(t, uint32_t, SSSP_OWN(a, tid, col, rep_col),
				j);
		int32_t w = LD(t, int32_t, SSSP_OWN(a, tid, data, rep_col),
			       j);
		int32_t xu = LD(t, int32_t, SSSP_OWN(a, tid, x, rep_vec), u);

		OPS(t, PROG_OP_INT, 2);
		OPS(t, PROG_OP_BRANCH, 1);
		if (w + xu < min)
			min = w + xu;
		OPS(t, PROG_OP_INT, 2);
		OPS(t, PROG_OP_BRANCH, 1);
	}
	ST(t, int32_t, SSSP_OWN(a, tid, y, rep_vec), tid, min);
}

static void sssp_diff_kernel(struct simt_thread *t, const void *p)
{
	const struct sssp_args *a = p;
	uint64_t tid = simt_global_x(t);
	int32_t x, y;

	OPS(t, PROG_OP_INT, 2);
	OPS(t, PROG_OP_BRANCH, 1);
	if (tid >= a->n)
		return;
	y = LD(t, int32_t, SSSP_OWN(a, tid, y, rep_vec), tid);
	x = LD(t, int32_t, SSSP_OWN(a, tid, x, rep_vec), tid);
	OPS(t, PROG_OP_INT, 1);
	OPS(t, PROG_OP_BRANCH, 1);
	if (y != x)
		ST(t, int32_t, SSSP_OWN(a, tid, stop, rep_stop), 0, 1);
}

/* The same iteration on the host: x = y; y = min-plus(x) until x == y. */
static void sssp_ref(const struct app_graph *g, uint32_t source, int32_t *x,
		     int32_t *y)
{
	uint32_t v, j;
	bool changed = true;

	for (v = 0; v < g->nodes; v++)
		x[v] = y[v] = v == source ? 0 : SSSP_BIG;
	while (changed) {
		memcpy(x, y, (size_t)g->nodes * sizeof(*x));
		changed = false;
		for (v = 0; v < g->nodes; v++) {
			int32_t min = x[v];

			for (j = g->row[v]; j < g->row[v + 1]; j++)
				if ((int32_t)g->weight[j] + x[g->col[j]] < min)
					min = g->weight[j] + x[g->col[j]];
			y[v] = min;
			changed |= y[v] != x[v];
		}
	}
}

static int sssp_run(struct simt_gpu *gpu, uint64_t size, uint64_t seed,
		    char *err, size_t errlen)
{
	const char *app = "sssp";
	struct app_graph g;
	struct sssp_args args;
	int32_t *got = NULL, *want = NULL, *scratch = NULL, stop;
	struct simt_dim3 grid, block = DIM3(SSSP_BLOCK, 1, 1);
	uint32_t n, i;
	int ret;

	ret = app_size_range(size, 1, APP_RMAT_MAX_SCALE, "the scale", app,
			     err, errlen);
	if (ret)
		return ret;
	ret = app_rmat(&g, (unsigned int)size, seed, true, app, err, errlen);
	if (ret)
		return ret;
	n = g.nodes;
	grid = DIM3(app_blocks(n, SSSP_BLOCK), 1, 1);
	memset(&args, 0, sizeof(args));
	args.n = n;
	args.part = n;
	args.reps = 1;
	args.source = app_graph_root(&g, seed);
	got = malloc((size_t)n * sizeof(*got));
	want = malloc((size_t)n * sizeof(*want));
	scratch = malloc((size_t)n * sizeof(*scratch));
	ret = -ENOMEM;
	if (!got || !want || !scratch) {
		app_err(err, errlen, app, "out of memory");
		goto out;
	}

	ret = app_alloc(gpu, ((uint64_t)n + 1) * sizeof(uint32_t), "row",
			&args.row, app, err, errlen);
	if (!ret)
		ret = app_alloc(gpu, (uint64_t)g.edges * sizeof(uint32_t),
				"col", &args.col, app, err, errlen);
	if (!ret)
		ret = app_alloc(gpu, (uint64_t)g.edges * sizeof(int32_t),
				"data", &args.data, app, err, errlen);
	if (!ret)
		ret = app_alloc(gpu, sizeof(int32_t), "stop", &args.stop, app,
				err, errlen);
	if (!ret)
		ret = app_alloc(gpu, (uint64_t)n * sizeof(int32_t), "vector1",
				&args.x, app, err, errlen);
	if (!ret)
		ret = app_alloc(gpu, (uint64_t)n * sizeof(int32_t), "vector2",
				&args.y, app, err, errlen);
	if (ret)
		goto out;
	simt_h2d(gpu, args.row, g.row, ((uint64_t)n + 1) * sizeof(uint32_t));
	simt_h2d(gpu, args.col, g.col, (uint64_t)g.edges * sizeof(uint32_t));
	simt_h2d(gpu, args.data, g.weight,
		 (uint64_t)g.edges * sizeof(uint32_t));
	ret = app_launch(gpu, "vector_init", sssp_init_kernel, grid, block, 0,
			 &args, app, err, errlen);
	if (ret)
		goto out;
	/* Pannotia's loop: at most n - 1 rounds, until 'stop' stays 0. */
	for (i = 1; i < n; i++) {
		stop = 0;
		simt_h2d(gpu, args.stop, &stop, sizeof(stop));
		ret = app_launch(gpu, "vector_assign", sssp_assign_kernel,
				 grid, block, 0, &args, app, err, errlen);
		if (!ret)
			ret = app_launch(gpu, "spmv_min_dot_plus_kernel",
					 sssp_min_plus_kernel, grid, block, 0,
					 &args, app, err, errlen);
		if (!ret)
			ret = app_launch(gpu, "vector_diff", sssp_diff_kernel,
					 grid, block, 0, &args, app, err,
					 errlen);
		if (ret)
			goto out;
		simt_d2h(gpu, &stop, args.stop, sizeof(stop));
		if (!stop)
			break;
	}
	simt_d2h(gpu, got, args.x, (uint64_t)n * sizeof(int32_t));
	app_test_perturb(got, sizeof(*got), n);

	sssp_ref(&g, args.source, want, scratch);
	ret = app_check_i32(got, want, n, app, "vector1", err, errlen);
out:
	app_graph_free(&g);
	free(got);
	free(want);
	free(scratch);
	return ret;
}

const struct app_desc app_sssp = {
	.name = "sssp",
	.suite = "Pannotia (sssp, CSR)",
	.summary = "Bellman-Ford as min-plus SpMV, a thread a vertex, three "
		   "kernels a round until no distance changes, blocks of 64",
	.input = "size = scale: Graph500's R-MAT graph as for bfs (2^scale "
		 "vertices, 16 x 2^scale edge tuples, undirected) with each "
		 "edge's weight an integer uniform in [1, 255]; the source a "
		 "random vertex with an edge; all from the seed",
	.small_size = 8,
	.large_size = 14,
	.paper_sizes = "Barre Table I (sssp, MPKI 3.38): input not given; "
		       "FinePack: indochina (SuiteSparse) = not reproduced, "
		       "an R-MAT graph stands in (--large, scale 14); CPElide "
		       "Table II: AK.gr (size not given) = not reproduced, "
		       "R-MAT as for FinePack",
	.kernels = "vector_init, vector_assign, spmv_min_dot_plus_kernel, "
		   "vector_diff",
	.run = sssp_run,
};

/*
 * fp-sssp (FinePack §V's SSSP, Bellman-Ford, "many-to-many"): sssp's
 * kernels as a P2P-replicated program on FP_GPUS GPUs (fp_util.h). GPU
 * g owns vertices [g part, (g + 1) part), part = ceil(n / 4) rounded up
 * to a block of 64; the CSR arrays and the distance vector x are
 * replicated, y and 'stop' are per GPU (only the owner reads them).
 * vector_init stores x into every copy; vector_assign copies y into its
 * GPU's x and, where the distance changed, stores it into each peer's
 * copy: one 4 B P2P store per updated vertex and peer, scattered as the
 * relaxations fall (ours: Pannotia's assign copies every vertex; pushing
 * only the changed ones is what a P2P code sends, and keeps the copies
 * equal). The host clears and reads the four 'stop' flags each round.
 * Input (ours): the paper's indochina-2004 (SuiteSparse: 7.4M vertices,
 * 194M edges, a directed web graph, unweighted) is replaced by sssp's
 * R-MAT graph: kept, a power-law degree distribution and a degree of the
 * same order (R-MAT about 15 to 29, indochina 26), edges falling across
 * all GPUs; not kept, direction and the web graph's host locality; the
 * weights in [1, 255] are sssp's. Size = scale: 2^scale vertices
 * (indochina is about scale 23). Every copy of x is checked against
 * sssp's reference.
 */
static int fp_sssp_run(struct simt_gpu *gpu, uint64_t size, uint64_t seed,
		       char *err, size_t errlen)
{
	const char *app = "fp-sssp";
	struct app_graph g;
	struct sssp_args args;
	int32_t *got = NULL, *want = NULL, *scratch = NULL, stop, any;
	struct simt_dim3 grid, block = DIM3(SSSP_BLOCK, 1, 1);
	uint32_t n, i;
	int ret, k;

	ret = app_size_range(size, 2, APP_RMAT_MAX_SCALE, "the scale", app,
			     err, errlen);
	if (ret)
		return ret;
	ret = app_rmat(&g, (unsigned int)size, seed, true, app, err, errlen);
	if (ret)
		return ret;
	n = g.nodes;
	memset(&args, 0, sizeof(args));
	args.n = n;
	args.reps = FP_GPUS;
	args.part = app_blocks(app_blocks(n, FP_GPUS), SSSP_BLOCK) *
		    SSSP_BLOCK;
	args.source = app_graph_root(&g, seed);
	args.rep_row = fp_stride((uint64_t)n + 1, sizeof(uint32_t)) *
		       sizeof(uint32_t);
	args.rep_col = fp_stride(g.edges, sizeof(uint32_t)) *
		       sizeof(uint32_t);
	args.rep_vec = fp_stride(n, sizeof(int32_t)) * sizeof(int32_t);
	args.rep_stop = fp_stride(1, sizeof(int32_t)) * sizeof(int32_t);
	grid = DIM3(FP_GPUS * args.part / SSSP_BLOCK, 1, 1);
	want = malloc((size_t)n * sizeof(*want));
	scratch = malloc((size_t)n * sizeof(*scratch));
	ret = -ENOMEM;
	if (!want || !scratch) {
		app_err(err, errlen, app, "out of memory");
		goto out;
	}

	ret = fp_alloc(gpu, (uint64_t)n + 1, sizeof(uint32_t), g.row, "row",
		       &args.row, app, err, errlen);
	if (!ret)
		ret = fp_alloc(gpu, g.edges, sizeof(uint32_t), g.col, "col",
			       &args.col, app, err, errlen);
	if (!ret)
		ret = fp_alloc(gpu, g.edges, sizeof(uint32_t), g.weight,
			       "data", &args.data, app, err, errlen);
	if (!ret)
		ret = fp_alloc(gpu, 1, sizeof(int32_t), NULL, "stop",
			       &args.stop, app, err, errlen);
	if (!ret)
		ret = fp_alloc(gpu, n, sizeof(int32_t), NULL, "vector1",
			       &args.x, app, err, errlen);
	if (!ret)
		ret = fp_alloc(gpu, n, sizeof(int32_t), NULL, "vector2",
			       &args.y, app, err, errlen);
	if (ret)
		goto out;
	ret = app_launch(gpu, "vector_init", sssp_init_kernel, grid, block, 0,
			 &args, app, err, errlen);
	if (ret)
		goto out;
	for (i = 1; i < n; i++) {
		stop = 0;
		for (k = 0; k < FP_GPUS; k++)
			simt_h2d(gpu, args.stop + k * args.rep_stop, &stop,
				 sizeof(stop));
		ret = app_launch(gpu, "vector_assign", sssp_assign_kernel,
				 grid, block, 0, &args, app, err, errlen);
		if (!ret)
			ret = app_launch(gpu, "spmv_min_dot_plus_kernel",
					 sssp_min_plus_kernel, grid, block, 0,
					 &args, app, err, errlen);
		if (!ret)
			ret = app_launch(gpu, "vector_diff", sssp_diff_kernel,
					 grid, block, 0, &args, app, err,
					 errlen);
		if (ret)
			goto out;
		any = 0;
		for (k = 0; k < FP_GPUS; k++) {
			simt_d2h(gpu, &stop, args.stop + k * args.rep_stop,
				 sizeof(stop));
			any |= stop;
		}
		if (!any)
			break;
	}
	got = fp_fetch(gpu, args.x, n, sizeof(int32_t));
	ret = -ENOMEM;
	if (!got) {
		app_err(err, errlen, app, "out of memory");
		goto out;
	}

	sssp_ref(&g, args.source, want, scratch);
	ret = fp_check_i32(got, n, want, app, "vector1", err, errlen);
out:
	app_graph_free(&g);
	free(got);
	free(want);
	free(scratch);
	return ret;
}

const struct app_desc app_fp_sssp = {
	.name = "fp-sssp",
	.suite = "FinePack §V (SSSP; sssp's Pannotia kernels)",
	.summary = "sssp's Bellman-Ford rounds on 4 GPUs by vertices, CSR "
		   "and distances replicated, each changed distance stored "
		   "into every peer's copy (4 B P2P stores)",
	.input = "size = scale: sssp's weighted R-MAT graph (2^scale "
		 "vertices) standing for the paper's indochina; the source a "
		 "random vertex with an edge",
	.small_size = 8,
	.large_size = 14,
	.kernels = "vector_init, vector_assign, spmv_min_dot_plus_kernel, "
		   "vector_diff",
	.paper_sizes = "FinePack §V: indochina-2004 (7.4M vertices) = scale "
		       "23 (not run: the executor's time); large 14",
	.run = fp_sssp_run,
};
