// SPDX-License-Identifier: GPL-2.0
/*
 * als (FinePack §V): alternating least squares for a recommender, the
 * ratings matrix R factored as U V^T with K latent factors. FinePack
 * runs it on SuiteSparse's rgg; its code is not named. This is ALS-WR
 * (Zhou et al., "Large-scale parallel collaborative filtering for the
 * Netflix prize", 2008; cuMF's and Spark MLlib's scheme): each half
 * iteration solves, for every row u of U with the other factor fixed,
 * (sum over u's ratings j of v_j v_j^T + lambda n_u I) u = sum r_uj v_j
 * (n_u: u's ratings), here by Cholesky, then the same for V with U
 * fixed.
 * Ours, where the paper is silent:
 *  - K = 8, lambda = 0.1, 5 iterations (10 launches); V starts uniform
 *    in [0, 1) from the seed; a row with no ratings gets 0.
 *  - The ratings are the R-MAT graph's (app_rmat, weighted): r_uv =
 *    1 + (weight mod 5), a 1..5 star scale. The graph is undirected, so
 *    R is symmetric and users and items share one CSR. Of rgg (which
 *    one the paper does not say; the largest, rgg_n_2_24_s0: 16.8M
 *    vertices, 265M nonzeros, undirected, degree about 16) we keep the symmetric sparse pattern and a degree of the
 *    same order (R-MAT about 15 to 29); not its geometric locality: the
 *    permuted R-MAT labels put a row's ratings on every GPU, the
 *    paper's "all-to-all". Size = scale, 2^scale rows (rgg_n_2_24 is
 *    scale 24).
 *  - A thread a row, blocks of 64; GPU g owns rows [g part, (g + 1)
 *    part), part = ceil(n / 4) rounded up to a block. The CSR, U and V
 *    are replicated (fp_util.h), each stored row-major (a row's K
 *    factors together); a thread reads the fixed factor from its GPU's
 *    copy and stores its K results one 4 B store at a time into every
 *    GPU's copy (its own first): a warp's store instruction touches 32
 *    rows 32 B apart, the fine-grained stores FinePack packs.
 * Every copy of U and V is checked against the same solves on the host.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "app_util.h"
#include "apps.h"
#include "fp_util.h"

#define ALS_K		8
#define ALS_BLOCK	64
#define ALS_ITERATIONS	5
#define ALS_LAMBDA	0.1f

struct als_args {
	uint64_t row, col, rating, fixed, out;
	uint64_t rep_row, rep_col, rep_f;	/* bytes between copies */
	uint32_t n, part;
};

/*
 * Solves a x = b for the SPD a (lower triangle used), in place by
 * Cholesky: a's lower triangle becomes L, b becomes x.
 * FP: sum over j of (j + (K - 1 - j) (j + 1)) + K (K + 1) FFMAs and
 * products; SFU: K square roots and K reciprocals.
 */
static void als_solve(float a[ALS_K][ALS_K], float b[ALS_K])
{
	int i, j, k;

	for (j = 0; j < ALS_K; j++) {
		float d = a[j][j], inv;

		for (k = 0; k < j; k++)
			d = d - a[j][k] * a[j][k];
		d = sqrtf(d);
		a[j][j] = d;
		inv = 1.0f / d;
		for (i = j + 1; i < ALS_K; i++) {
			float s = a[i][j];

			for (k = 0; k < j; k++)
				s = s - a[i][k] * a[j][k];
			a[i][j] = s * inv;
		}
	}
	for (i = 0; i < ALS_K; i++) {
		float s = b[i];

		for (k = 0; k < i; k++)
			s = s - a[i][k] * b[k];
		b[i] = s / a[i][i];
	}
	for (i = ALS_K - 1; i >= 0; i--) {
		float s = b[i];

		for (k = i + 1; k < ALS_K; k++)
			s = s - a[k][i] * b[k];
		b[i] = s / a[i][i];
	}
}

static unsigned int als_solve_fp(void)
{
	unsigned int j, n = ALS_K * (ALS_K + 1);

	for (j = 0; j < ALS_K; j++)
		n += j + (ALS_K - 1 - j) * (j + 1);
	return n;
}

/* One neighbour's terms, as the kernel and the reference add them. */
static inline void als_accumulate(float a[ALS_K][ALS_K], float b[ALS_K],
				  const float v[ALS_K], float r)
{
	int i, j;

	for (i = 0; i < ALS_K; i++) {
		for (j = 0; j <= i; j++)
			a[i][j] = a[i][j] + v[i] * v[j];
		b[i] = b[i] + r * v[i];
	}
}

/* Row u's new factors from its ratings' fixed factors, zeros if none. */
static inline void als_finish(float a[ALS_K][ALS_K], float b[ALS_K],
			      uint32_t deg)
{
	float reg = ALS_LAMBDA * (float)deg;
	int i;

	if (!deg)
		return;
	for (i = 0; i < ALS_K; i++)
		a[i][i] = a[i][i] + reg;
	als_solve(a, b);
}

/*
 * OPS: the index and its GPU (INT 2), the bounds (INT 1, BRANCH 1); a
 * rating: the loop (INT 2, BRANCH 1), the terms (FP K (K + 1) / 2 + K);
 * the degree test (INT 1, BRANCH 1), the regularisation (FP K + 1), the
 * solve (als_solve_fp(), SFU 2 K); a store: its loops (INT 2, BRANCH 1).
 */
static void als_kernel(struct simt_thread *t, const void *p)
{
	const struct als_args *a = p;
	uint64_t u = simt_global_x(t);
	uint32_t gpu = (uint32_t)(u / a->part), start, end, j, d;
	uint64_t off_f = gpu * a->rep_f, off_c = gpu * a->rep_col;
	float m[ALS_K][ALS_K], b[ALS_K], v[ALS_K];
	int f;

	OPS(t, PROG_OP_INT, 3);
	OPS(t, PROG_OP_BRANCH, 1);
	if (u >= a->n)
		return;
	memset(m, 0, sizeof(m));
	memset(b, 0, sizeof(b));
	start = LD(t, uint32_t, a->row + gpu * a->rep_row, u);
	end = LD(t, uint32_t, a->row + gpu * a->rep_row, u + 1);
	for (j = start; j < end; j++) {
		uint32_t c = LD(t, uint32_t, a->col + off_c, j);
		float r = LD(t, float, a->rating + off_c, j);

		for (f = 0; f < ALS_K; f++)
			v[f] = LD(t, float, a->fixed + off_f,
				  (uint64_t)c * ALS_K + f);
		OPS(t, PROG_OP_FP, ALS_K * (ALS_K + 1) / 2 + ALS_K);
		als_accumulate(m, b, v, r);
		OPS(t, PROG_OP_INT, 2);
		OPS(t, PROG_OP_BRANCH, 1);
	}
	OPS(t, PROG_OP_INT, 1);
	OPS(t, PROG_OP_BRANCH, 1);
	if (end > start) {
		OPS(t, PROG_OP_FP, ALS_K + 1 + als_solve_fp());
		OPS(t, PROG_OP_SFU, 2 * ALS_K);
	}
	als_finish(m, b, end - start);
	for (d = 0; d < FP_GPUS; d++) {
		uint64_t out = a->out + (gpu + d) % FP_GPUS * a->rep_f;

		for (f = 0; f < ALS_K; f++) {
			ST(t, float, out, u * ALS_K + f, b[f]);
			OPS(t, PROG_OP_INT, 2);
			OPS(t, PROG_OP_BRANCH, 1);
		}
	}
}

/* Half an iteration on the host: out's rows from fixed's. */
static void als_ref(const struct app_graph *g, const float *rating,
		    const float *fixed, float *out)
{
	float m[ALS_K][ALS_K], b[ALS_K];
	uint32_t u, j;

	for (u = 0; u < g->nodes; u++) {
		memset(m, 0, sizeof(m));
		memset(b, 0, sizeof(b));
		for (j = g->row[u]; j < g->row[u + 1]; j++)
			als_accumulate(m, b, fixed + (size_t)g->col[j] * ALS_K,
				       rating[j]);
		als_finish(m, b, g->row[u + 1] - g->row[u]);
		memcpy(out + (size_t)u * ALS_K, b, sizeof(b));
	}
}

static int als_run(struct simt_gpu *gpu, uint64_t size, uint64_t seed,
		   char *err, size_t errlen)
{
	const char *app = "als";
	float *rating = NULL, *uf = NULL, *vf = NULL, *got_u = NULL;
	float *got_v = NULL;
	uint64_t d_u, d_v, nf;
	struct als_args args;
	struct app_graph g;
	struct app_rng rng;
	uint32_t n, blocks, j;
	int ret, it;

	ret = app_size_range(size, 2, APP_RMAT_MAX_SCALE, "the scale", app,
			     err, errlen);
	if (ret)
		return ret;
	ret = app_rmat(&g, (unsigned int)size, seed, true, app, err, errlen);
	if (ret)
		return ret;
	n = g.nodes;
	nf = (uint64_t)n * ALS_K;
	rating = malloc(((size_t)g.edges + 1) * sizeof(float));
	uf = calloc(nf, sizeof(float));
	vf = malloc(nf * sizeof(float));
	ret = -ENOMEM;
	if (!rating || !uf || !vf) {
		app_err(err, errlen, app, "out of memory");
		goto out;
	}
	for (j = 0; j < g.edges; j++)
		rating[j] = (float)(1 + g.weight[j] % 5);
	app_rng_init(&rng, seed, 93);
	app_rng_fill_float(&rng, vf, nf, 1.0f);

	memset(&args, 0, sizeof(args));
	args.n = n;
	blocks = app_blocks(app_blocks(n, FP_GPUS), ALS_BLOCK);
	args.part = blocks * ALS_BLOCK;
	args.rep_row = fp_stride((uint64_t)n + 1, sizeof(uint32_t)) *
		       sizeof(uint32_t);
	args.rep_col = fp_stride(g.edges, sizeof(uint32_t)) *
		       sizeof(uint32_t);
	args.rep_f = fp_stride(nf, sizeof(float)) * sizeof(float);
	ret = fp_alloc(gpu, (uint64_t)n + 1, sizeof(uint32_t), g.row, "row",
		       &args.row, app, err, errlen);
	if (!ret)
		ret = fp_alloc(gpu, g.edges, sizeof(uint32_t), g.col, "col",
			       &args.col, app, err, errlen);
	if (!ret)
		ret = fp_alloc(gpu, g.edges, sizeof(float), rating, "rating",
			       &args.rating, app, err, errlen);
	if (!ret)
		ret = fp_alloc(gpu, nf, sizeof(float), NULL, "U", &d_u, app,
			       err, errlen);
	if (!ret)
		ret = fp_alloc(gpu, nf, sizeof(float), vf, "V", &d_v, app,
			       err, errlen);
	if (ret)
		goto out;
	for (it = 0; it < ALS_ITERATIONS; it++) {
		args.fixed = d_v;
		args.out = d_u;
		ret = app_launch(gpu, "als_update_users", als_kernel,
				 DIM3(FP_GPUS * blocks, 1, 1),
				 DIM3(ALS_BLOCK, 1, 1), 0, &args, app, err,
				 errlen);
		if (ret)
			goto out;
		args.fixed = d_u;
		args.out = d_v;
		ret = app_launch(gpu, "als_update_items", als_kernel,
				 DIM3(FP_GPUS * blocks, 1, 1),
				 DIM3(ALS_BLOCK, 1, 1), 0, &args, app, err,
				 errlen);
		if (ret)
			goto out;
	}
	got_u = fp_fetch(gpu, d_u, nf, sizeof(float));
	got_v = fp_fetch(gpu, d_v, nf, sizeof(float));
	ret = -ENOMEM;
	if (!got_u || !got_v) {
		app_err(err, errlen, app, "out of memory");
		goto out;
	}

	for (it = 0; it < ALS_ITERATIONS; it++) {
		als_ref(&g, rating, vf, uf);
		als_ref(&g, rating, uf, vf);
	}
	ret = fp_check_f32(got_u, nf, uf, NULL, NULL, NULL, app, "U", err,
			   errlen);
	if (!ret)
		ret = fp_check_f32(got_v, nf, vf, NULL, NULL, NULL, app, "V",
				   err, errlen);
out:
	app_graph_free(&g);
	free(rating);
	free(uf);
	free(vf);
	free(got_u);
	free(got_v);
	return ret;
}

const struct app_desc app_fp_als = {
	.name = "als",
	.suite = "FinePack §V (ALS; ALS-WR, Zhou et al. 2008)",
	.summary = "5 ALS-WR iterations with 8 factors, a thread a row "
		   "solving its 8 x 8 normal equations by Cholesky, 4 GPUs by "
		   "rows, CSR and both factors replicated, each factor "
		   "stored 4 B at a time into every GPU's copy",
	.input = "size = scale: the weighted R-MAT graph as for sssp "
		 "(2^scale rows) as a symmetric ratings matrix, r = 1 + "
		 "(weight mod 5), standing for the paper's rgg; V uniform in "
		 "[0, 1) from the seed",
	.small_size = 7,
	.large_size = 12,
	.kernels = "als_update_users, als_update_items",
	.paper_sizes = "FinePack §V: rgg (SuiteSparse, which one not given; "
		       "rgg_n_2_24_s0 has 16.8M vertices) = scale 24 (not run: the executor's time); "
		       "large 12",
	.run = als_run,
};
