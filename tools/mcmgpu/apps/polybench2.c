// SPDX-License-Identifier: GPL-2.0
/*
 * PolyBench/GPU's gemver, covariance, correlation, jacobi2d (jacobi-2d-imper),
 * fdtd2d (fdtd-2d), lu and adi, with PolyBench/GPU's CUDA decomposition:
 * the same kernels, the same thread-to-index mapping, its block shapes
 * (256 x 1 for a thread a row or column, 32 x 8 for a thread an element of
 * a 2-D array), its host loops over time steps and over k, and its
 * constants. As in polybench.c, the kernels accumulate in global memory as
 * PolyBench/GPU writes them (a load and a store an iteration: the arrays
 * may alias), inputs are uniform floats from the seed instead of
 * PolyBench's formulas (the values do not change the program), and the
 * time-step counts are PolyBench/GPU's at every size.
 *
 * covariance and correlation keep PolyBench/GPU's (M+1) x (N+1) arrays
 * indexed from 1 (row and column 0 unused), as its CUDA code does. Its
 * grids are kept where they change what runs (lu's shrinking grids,
 * covariance's short reduce grid: see there), but a 1-D grid of
 * (size_t)(ceil(M) / 256) blocks, which truncates, is rounded up here so
 * that sizes below the block run (the same at multiples of it).
 *
 * Divisions and square roots are counted as nvcc emits the IEEE versions:
 * a reciprocal or reciprocal square root on the SFU refined by FFMAs, and
 * a branch to the slow path that is not taken (PB2_OPS_* below).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "app_util.h"
#include "apps.h"

#define PB2_BLOCK	256	/* DIM_THREAD_BLOCK_X of the 1-D kernels */
#define PB2_TILE_X	32	/* and of the 2-D ones */
#define PB2_TILE_Y	8
/* PolyBench's gemver constants. */
#define GEMVER_ALPHA	43532.0f
#define GEMVER_BETA	12313.0f
/* covariance's and correlation's (float literals in PolyBench/GPU). */
#define PB2_FLOAT_N	3214212.01f
#define CORR_EPS	0.005f
#define JACOBI_TSTEPS	20
#define FDTD_TMAX	500
#define ADI_TSTEPS	1

/* IEEE float division: MUFU.RCP, 4 FFMAs, the slow path's branch. */
#define PB2_OPS_FDIV(thread) do {					\
	struct simt_thread *pb2_t_ = (thread);				\
	OPS(pb2_t_, PROG_OP_SFU, 1);					\
	OPS(pb2_t_, PROG_OP_FP, 4);					\
	OPS(pb2_t_, PROG_OP_BRANCH, 1);					\
} while (0)
/* IEEE float square root: MUFU.RSQ, 3 FFMAs, the slow path's branch. */
#define PB2_OPS_FSQRT(thread) do {					\
	struct simt_thread *pb2_t_ = (thread);				\
	OPS(pb2_t_, PROG_OP_SFU, 1);					\
	OPS(pb2_t_, PROG_OP_FP, 3);					\
	OPS(pb2_t_, PROG_OP_BRANCH, 1);					\
} while (0)

/*
 * A square root without libm (the host tests do not link it): Newton's
 * iteration in double from an exponent-halved start, which converges to
 * within an ulp of double; kernels and references both call it.
 */
static double pb2_sqrt(double x)
{
	union { double d; uint64_t u; } g = { .d = x };
	int k;

	if (!(x > 0))
		return x == 0 ? 0 : (x - x) / (x - x);
	g.u = (g.u >> 1) + (0x3ffULL << 51);
	for (k = 0; k < 8; k++)
		g.d = 0.5 * (g.d + x / g.d);
	return g.d;
}

static float pb2_sqrtf(float x)
{
	return (float)pb2_sqrt(x);
}

/* The host arrays of one run, freed together. */
#define PB2_MAX_ARRAYS	12

struct pb2_host {
	float *p[PB2_MAX_ARRAYS];
	unsigned int n;
	bool failed;
};

static float *pb2_array(struct pb2_host *h, size_t count)
{
	float *p = calloc(count ? count : 1, sizeof(float));

	if (!p || h->n == PB2_MAX_ARRAYS) {
		free(p);
		h->failed = true;
		return NULL;
	}
	h->p[h->n++] = p;
	return p;
}

static void pb2_host_free(struct pb2_host *h)
{
	while (h->n)
		free(h->p[--h->n]);
}

static int pb2_oom(struct pb2_host *h, const char *app, char *err,
		   size_t errlen)
{
	if (!h->failed)
		return 0;
	app_err(err, errlen, app, "out of memory");
	return -ENOMEM;
}

/* A 2-D launch's grid: 32 x 8 blocks over cols x rows threads. */
static struct simt_dim3 pb2_grid2(uint64_t cols, uint64_t rows)
{
	return DIM3(app_blocks(cols, PB2_TILE_X), app_blocks(rows, PB2_TILE_Y),
		    1);
}

/* The thread's row (y) and column (x) in a 2-D launch. */
static uint64_t pb2_row(const struct simt_thread *t)
{
	return (uint64_t)simt_block_idx(t).y * simt_block_dim(t).y +
	       simt_thread_idx(t).y;
}

/* ------------------------------------------------------------------ */
/* gemver */

struct gemver_args {
	uint64_t a, u1, v1, u2, v2, w, x, y, z;
	uint32_t n;
};

/*
 * A[i][j] += u1[i] * v1[j] + u2[i] * v2[j], thread (i, j), 32 x 8.
 * OPS: i and j, the two bounds tests (INT 4, BRANCH 1), the element's
 * index (INT 1); a multiply, an FFMA and the add (FP 3).
 */
static void gemver_kernel1(struct simt_thread *t, const void *p)
{
	const struct gemver_args *a = p;
	uint64_t i = pb2_row(t), j = simt_global_x(t);
	float m, u1, v1, u2, v2;

	OPS(t, PROG_OP_INT, 4);
	OPS(t, PROG_OP_BRANCH, 1);
	if (i >= a->n || j >= a->n)
		return;
	OPS(t, PROG_OP_INT, 1);
	m = LD(t, float, a->a, i * a->n + j);
	u1 = LD(t, float, a->u1, i);
	v1 = LD(t, float, a->v1, j);
	u2 = LD(t, float, a->u2, i);
	v2 = LD(t, float, a->v2, j);
	OPS(t, PROG_OP_FP, 3);
	ST(t, float, a->a, i * a->n + j, m + (u1 * v1 + u2 * v2));
}

/*
 * x[i] += beta * A[j][i] * y[j] over j, then x[i] += z[i]: thread i, a
 * column of A (coalesced). OPS: the index and bound (INT 2, BRANCH 1); an
 * iteration a multiply and an FFMA (FP 2) and the loop (INT 2, BRANCH
 * 1); the end an add (FP 1).
 */
static void gemver_kernel2(struct simt_thread *t, const void *p)
{
	const struct gemver_args *a = p;
	uint64_t i = simt_global_x(t);
	float acc, z;
	uint32_t j;

	OPS(t, PROG_OP_INT, 2);
	OPS(t, PROG_OP_BRANCH, 1);
	if (i >= a->n)
		return;
	for (j = 0; j < a->n; j++) {
		float m = LD(t, float, a->a, (uint64_t)j * a->n + i);
		float y = LD(t, float, a->y, j);

		acc = LD(t, float, a->x, i);
		OPS(t, PROG_OP_FP, 2);
		ST(t, float, a->x, i, acc + GEMVER_BETA * m * y);
		OPS(t, PROG_OP_INT, 2);
		OPS(t, PROG_OP_BRANCH, 1);
	}
	acc = LD(t, float, a->x, i);
	z = LD(t, float, a->z, i);
	OPS(t, PROG_OP_FP, 1);
	ST(t, float, a->x, i, acc + z);
}

/*
 * w[i] += alpha * A[i][j] * x[j] over j: thread i, a row of A. OPS as
 * gemver_kernel2's loop.
 */
static void gemver_kernel3(struct simt_thread *t, const void *p)
{
	const struct gemver_args *a = p;
	uint64_t i = simt_global_x(t);
	uint32_t j;

	OPS(t, PROG_OP_INT, 2);
	OPS(t, PROG_OP_BRANCH, 1);
	if (i >= a->n)
		return;
	for (j = 0; j < a->n; j++) {
		float m = LD(t, float, a->a, i * a->n + j);
		float x = LD(t, float, a->x, j);
		float acc = LD(t, float, a->w, i);

		OPS(t, PROG_OP_FP, 2);
		ST(t, float, a->w, i, acc + GEMVER_ALPHA * m * x);
		OPS(t, PROG_OP_INT, 2);
		OPS(t, PROG_OP_BRANCH, 1);
	}
}

static int gemver_run(struct simt_gpu *gpu, uint64_t size, uint64_t seed,
		      char *err, size_t errlen)
{
	static const char *const names[] = {
		"a", "u1", "v1", "u2", "v2", "w", "x", "y", "z"
	};
	const char *app = "gemver";
	const uint32_t n = (uint32_t)size;
	const uint64_t nn = size * size;
	const struct simt_dim3 block = DIM3(PB2_BLOCK, 1, 1);
	const struct simt_dim3 grid = DIM3(app_blocks(n, PB2_BLOCK), 1, 1);
	struct pb2_host h = { .n = 0 };
	float *host[9], *got;
	uint64_t dev[9];
	struct gemver_args args;
	struct app_rng rng;
	uint32_t i, j;
	int ret, k;

	ret = app_size_range(size, 1, 16384, "N (an N x N matrix)", app, err,
			     errlen);
	if (ret)
		return ret;
	for (k = 0; k < 9; k++)
		host[k] = pb2_array(&h, k ? n : nn);
	got = pb2_array(&h, n);
	ret = pb2_oom(&h, app, err, errlen);
	if (ret)
		goto out;
	/* A, u1, v1, u2, v2, y, z from the seed; w and x start at 0. */
	app_rng_init(&rng, seed, 40);
	for (k = 0; k < 9; k++)
		if (k != 5 && k != 6)
			app_rng_fill_float(&rng, host[k], k ? n : nn, 1.0f);
	for (k = 0; k < 9 && !ret; k++)
		ret = app_alloc(gpu, (k ? n : nn) * sizeof(float), names[k],
				&dev[k], app, err, errlen);
	if (ret)
		goto out;
	for (k = 0; k < 9; k++)
		simt_h2d(gpu, dev[k], host[k], (k ? n : nn) * sizeof(float));
	args = (struct gemver_args){
		.a = dev[0], .u1 = dev[1], .v1 = dev[2], .u2 = dev[3],
		.v2 = dev[4], .w = dev[5], .x = dev[6], .y = dev[7],
		.z = dev[8], .n = n,
	};
	ret = app_launch(gpu, "gemver_kernel1", gemver_kernel1,
			 pb2_grid2(n, n), DIM3(PB2_TILE_X, PB2_TILE_Y, 1), 0,
			 &args, app, err, errlen);
	if (!ret)
		ret = app_launch(gpu, "gemver_kernel2", gemver_kernel2, grid,
				 block, 0, &args, app, err, errlen);
	if (!ret)
		ret = app_launch(gpu, "gemver_kernel3", gemver_kernel3, grid,
				 block, 0, &args, app, err, errlen);
	if (ret)
		goto out;
	simt_d2h(gpu, got, dev[5], n * sizeof(float));
	app_test_perturb(got, sizeof(float), n);

	/* The reference, in the kernels' order of operations. */
	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++)
			host[0][(size_t)i * n + j] += host[1][i] * host[2][j] +
						      host[3][i] * host[4][j];
	for (i = 0; i < n; i++) {
		for (j = 0; j < n; j++)
			host[6][i] = host[6][i] + GEMVER_BETA *
				     host[0][(size_t)j * n + i] * host[7][j];
		host[6][i] = host[6][i] + host[8][i];
	}
	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++)
			host[5][i] = host[5][i] + GEMVER_ALPHA *
				     host[0][(size_t)i * n + j] * host[6][j];
	ret = app_check_f32(got, host[5], n, APP_FLOAT_TOLERANCE, app, "w",
			    err, errlen);
out:
	pb2_host_free(&h);
	return ret;
}

/* ------------------------------------------------------------------ */
/* covariance and correlation */

struct cov_args {
	uint64_t data, mean, std, symmat;
	uint32_t m, n;		/* columns (variables), rows (samples) */
};

/*
 * mean[j] = sum of data[i][j] over rows i = 1..n, / float_n: thread j - 1
 * (columns from 1). OPS: j (INT 2), 1 <= j <= m (INT 2, BRANCH 1); an
 * iteration an add (FP 1) and the loop (INT 2, BRANCH 1); the end a float
 * division.
 */
static void cov_mean_kernel(struct simt_thread *t, const void *p)
{
	const struct cov_args *a = p;
	uint64_t j = simt_global_x(t) + 1, w = a->m + 1;
	uint32_t i;
	float acc;

	OPS(t, PROG_OP_INT, 4);
	OPS(t, PROG_OP_BRANCH, 1);
	if (j > a->m)
		return;
	ST(t, float, a->mean, j, 0.0f);
	for (i = 1; i <= a->n; i++) {
		float d = LD(t, float, a->data, i * w + j);

		acc = LD(t, float, a->mean, j);
		OPS(t, PROG_OP_FP, 1);
		ST(t, float, a->mean, j, acc + d);
		OPS(t, PROG_OP_INT, 2);
		OPS(t, PROG_OP_BRANCH, 1);
	}
	acc = LD(t, float, a->mean, j);
	PB2_OPS_FDIV(t);
	ST(t, float, a->mean, j, acc / PB2_FLOAT_N);
}

/*
 * std[j] = sqrt(sum of (data[i][j] - mean[j])^2 / FLOAT_N), 1 if that is
 * at most eps: thread j - 1 (correlation). The final stores fold into one
 * (nothing between them can alias std[j]): a select. OPS: j and its
 * bounds (INT 4, BRANCH 1); an iteration a subtract and an FFMA (FP 2)
 * and the loop (INT 2, BRANCH 1); the end a division, a square root,
 * the compare (FP 1) and the select (INT 1).
 */
static void corr_std_kernel(struct simt_thread *t, const void *p)
{
	const struct cov_args *a = p;
	uint64_t j = simt_global_x(t) + 1, w = a->m + 1;
	uint32_t i;
	float acc;

	OPS(t, PROG_OP_INT, 4);
	OPS(t, PROG_OP_BRANCH, 1);
	if (j > a->m)
		return;
	ST(t, float, a->std, j, 0.0f);
	for (i = 1; i <= a->n; i++) {
		float d = LD(t, float, a->data, i * w + j);
		float mu = LD(t, float, a->mean, j);

		acc = LD(t, float, a->std, j);
		OPS(t, PROG_OP_FP, 2);
		ST(t, float, a->std, j, acc + (d - mu) * (d - mu));
		OPS(t, PROG_OP_INT, 2);
		OPS(t, PROG_OP_BRANCH, 1);
	}
	acc = LD(t, float, a->std, j);
	PB2_OPS_FDIV(t);
	acc = acc / PB2_FLOAT_N;
	PB2_OPS_FSQRT(t);
	acc = pb2_sqrtf(acc);
	OPS(t, PROG_OP_FP, 1);
	OPS(t, PROG_OP_INT, 1);
	ST(t, float, a->std, j, acc <= CORR_EPS ? 1.0f : acc);
}

/*
 * data[i][j] -= mean[j] (and for correlation /= sqrt(FLOAT_N) * std[j],
 * the square root a constant): thread (i - 1, j - 1), 32 x 8. OPS: i and
 * j (INT 4), their four bounds (INT 4, BRANCH 1), the index (INT 1), the
 * subtract (FP 1); correlation: the multiply (FP 1) and a division.
 */
static void cov_reduce_kernel(struct simt_thread *t, const void *p)
{
	const struct cov_args *a = p;
	uint64_t j = simt_global_x(t) + 1, i = pb2_row(t) + 1;
	uint64_t w = a->m + 1;
	float d, mu, s;

	OPS(t, PROG_OP_INT, 8);
	OPS(t, PROG_OP_BRANCH, 1);
	if (i > a->n || j > a->m)
		return;
	OPS(t, PROG_OP_INT, 1);
	d = LD(t, float, a->data, i * w + j);
	mu = LD(t, float, a->mean, j);
	OPS(t, PROG_OP_FP, 1);
	d = d - mu;
	ST(t, float, a->data, i * w + j, d);
	if (!a->std)
		return;
	s = LD(t, float, a->std, j);
	OPS(t, PROG_OP_FP, 1);
	PB2_OPS_FDIV(t);
	ST(t, float, a->data, i * w + j, d / (pb2_sqrtf(PB2_FLOAT_N) * s));
}

/*
 * symmat[j1][j2] = sum of data[i][j1] * data[i][j2] over i, for j2 from
 * j1 (covariance) or j1 + 1 (correlation, which sets the diagonal to 1
 * and stops at j1 = m - 1), mirrored to symmat[j2][j1]: thread j1 - 1.
 * OPS: j1 and its bounds (INT 4, BRANCH 1); a j2 iteration the loop (INT
 * 2, BRANCH 1) around the i loop: an FFMA (FP 1) and the loop (INT 2,
 * BRANCH 1).
 */
static void cov_symmat_kernel(struct simt_thread *t, const void *p)
{
	const struct cov_args *a = p;
	uint64_t j1 = simt_global_x(t) + 1, w = a->m + 1, j2, i;
	bool corr = a->std;

	OPS(t, PROG_OP_INT, 4);
	OPS(t, PROG_OP_BRANCH, 1);
	if (j1 > a->m || (corr && j1 >= a->m))
		return;
	if (corr)
		ST(t, float, a->symmat, j1 * w + j1, 1.0f);
	for (j2 = corr ? j1 + 1 : j1; j2 <= a->m; j2++) {
		float acc;

		ST(t, float, a->symmat, j1 * w + j2, 0.0f);
		for (i = 1; i <= a->n; i++) {
			float x = LD(t, float, a->data, i * w + j1);
			float y = LD(t, float, a->data, i * w + j2);

			acc = LD(t, float, a->symmat, j1 * w + j2);
			OPS(t, PROG_OP_FP, 1);
			ST(t, float, a->symmat, j1 * w + j2, acc + x * y);
			OPS(t, PROG_OP_INT, 2);
			OPS(t, PROG_OP_BRANCH, 1);
		}
		acc = LD(t, float, a->symmat, j1 * w + j2);
		ST(t, float, a->symmat, j2 * w + j1, acc);
		OPS(t, PROG_OP_INT, 2);
		OPS(t, PROG_OP_BRANCH, 1);
	}
}

/* The rows reduce_kernel's grid covers (cov_run). */
static uint32_t cov_centred_rows(uint32_t n, bool corr)
{
	uint32_t rows;

	if (corr)
		return n;
	rows = app_blocks(n, PB2_TILE_X) * PB2_TILE_Y;
	return rows < n ? rows : n;
}

/* The reference of both, in the kernels' order of operations. */
static void cov_ref(float *data, float *mean, float *std, float *sym,
		    uint32_t m, uint32_t n, bool corr)
{
	const size_t w = (size_t)m + 1;
	uint32_t i, j, j1, j2;

	for (j = 1; j <= m; j++) {
		mean[j] = 0;
		for (i = 1; i <= n; i++)
			mean[j] = mean[j] + data[i * w + j];
		mean[j] = mean[j] / PB2_FLOAT_N;
	}
	if (corr) {
		for (j = 1; j <= m; j++) {
			float acc = 0;

			for (i = 1; i <= n; i++) {
				float d = data[i * w + j];

				acc = acc + (d - mean[j]) * (d - mean[j]);
			}
			acc = acc / PB2_FLOAT_N;
			acc = pb2_sqrtf(acc);
			std[j] = acc <= CORR_EPS ? 1.0f : acc;
		}
	}
	for (i = 1; i <= cov_centred_rows(n, corr); i++)
		for (j = 1; j <= m; j++) {
			float d = data[i * w + j] - mean[j];

			if (corr)
				d = d / (pb2_sqrtf(PB2_FLOAT_N) * std[j]);
			data[i * w + j] = d;
		}
	for (j1 = 1; j1 <= m; j1++) {
		if (corr && j1 == m)
			break;
		if (corr)
			sym[j1 * w + j1] = 1.0f;
		for (j2 = corr ? j1 + 1 : j1; j2 <= m; j2++) {
			float acc = 0;

			for (i = 1; i <= n; i++)
				acc = acc + data[i * w + j1] * data[i * w + j2];
			sym[j1 * w + j2] = acc;
			sym[j2 * w + j1] = acc;
		}
	}
	if (corr)
		sym[m * w + m] = 1.0f;
}

static int cov_run(struct simt_gpu *gpu, uint64_t size, uint64_t seed,
		   bool corr, char *err, size_t errlen)
{
	const char *app = corr ? "correlation" : "covariance";
	const uint32_t m = (uint32_t)size, n = (uint32_t)size;
	const uint64_t w = size + 1, cells = w * w;
	const struct simt_dim3 block = DIM3(PB2_BLOCK, 1, 1);
	const struct simt_dim3 grid = DIM3(app_blocks(m, PB2_BLOCK), 1, 1);
	struct pb2_host h = { .n = 0 };
	float *data, *mean, *std, *sym, *got;
	struct cov_args args = { .m = m, .n = n };
	struct app_rng rng;
	int ret;

	ret = app_size_range(size, 2, 8192, "M = N (an N x M data matrix)",
			     app, err, errlen);
	if (ret)
		return ret;
	data = pb2_array(&h, cells);
	mean = pb2_array(&h, w);
	std = pb2_array(&h, w);
	sym = pb2_array(&h, cells);
	got = pb2_array(&h, cells);
	ret = pb2_oom(&h, app, err, errlen);
	if (ret)
		goto out;
	app_rng_init(&rng, seed, corr ? 42 : 41);
	app_rng_fill_float(&rng, data, cells, 1.0f);

	/* Objects named as PolyBench/GPU names its arrays. */
	ret = app_alloc(gpu, cells * sizeof(float), "data", &args.data, app,
			err, errlen);
	if (!ret)
		ret = app_alloc(gpu, w * sizeof(float), "mean", &args.mean,
				app, err, errlen);
	if (!ret && corr)
		ret = app_alloc(gpu, w * sizeof(float), "std", &args.std,
				app, err, errlen);
	if (!ret)
		ret = app_alloc(gpu, cells * sizeof(float), "symmat",
				&args.symmat, app, err, errlen);
	if (ret)
		goto out;
	simt_h2d(gpu, args.data, data, cells * sizeof(float));
	ret = app_launch(gpu, "mean_kernel", cov_mean_kernel, grid, block, 0,
			 &args, app, err, errlen);
	if (!ret && corr)
		ret = app_launch(gpu, "std_kernel", corr_std_kernel, grid,
				 block, 0, &args, app, err, errlen);
	/*
	 * covariance's host sizes reduce_kernel's grid rows by the block's
	 * x (32), not its y (8): only the first quarter of the rows is
	 * centred. Its code, its result; the reference does the same.
	 */
	if (!ret)
		ret = app_launch(gpu, "reduce_kernel", cov_reduce_kernel,
				 pb2_grid2(m, cov_centred_rows(n, corr)),
				 DIM3(PB2_TILE_X, PB2_TILE_Y, 1), 0, &args,
				 app, err, errlen);
	if (!ret)
		ret = app_launch(gpu, corr ? "corr_kernel" : "covar_kernel",
				 cov_symmat_kernel, grid, block, 0, &args, app,
				 err, errlen);
	if (ret)
		goto out;
	if (corr) {
		/* PolyBench/GPU's host sets the last diagonal element. */
		const float one = 1.0f;

		simt_h2d(gpu, args.symmat + (m * w + m) * sizeof(float), &one,
			 sizeof(one));
	}
	simt_d2h(gpu, got, args.symmat, cells * sizeof(float));
	app_test_perturb(got, sizeof(float), cells);
	cov_ref(data, mean, std, sym, m, n, corr);
	ret = app_check_f32(got, sym, cells, APP_FLOAT_TOLERANCE, app,
			    "symmat", err, errlen);
out:
	pb2_host_free(&h);
	return ret;
}

static int covariance_run(struct simt_gpu *gpu, uint64_t size,
			  uint64_t seed, char *err, size_t errlen)
{
	return cov_run(gpu, size, seed, false, err, errlen);
}

static int correlation_run(struct simt_gpu *gpu, uint64_t size,
			   uint64_t seed, char *err, size_t errlen)
{
	return cov_run(gpu, size, seed, true, err, errlen);
}

const struct app_desc app_gemver = {
	.name = "gemver",
	.suite = "PolyBench/GPU",
	.summary = "A += u1 v1^T + u2 v2^T (32 x 8 blocks, a thread an "
		   "element); x = 12313 A^T y + z (a thread a column); w = "
		   "43532 A x (a thread a row), blocks of 256",
	.input = "size = N: an N x N float matrix A and the vectors u1, v1, "
		 "u2, v2, y, z uniform in [0, 1) from the seed, x and w zero "
		 "(the values do not change the program; PolyBench/GPU's "
		 "standard size is 4096)",
	.small_size = 128,
	.large_size = 2048,
	.paper_sizes = "Barre Table I (gemv, MPKI 0.015): input not given",
	.kernels = "gemver_kernel1, gemver_kernel2, gemver_kernel3",
	.run = gemver_run,
};

const struct app_desc app_covariance = {
	.name = "covariance",
	.suite = "PolyBench/GPU",
	.summary = "column means (a thread a column, blocks of 256), centring "
		   "(32 x 8 blocks, a thread an element; PolyBench/GPU's grid "
		   "covers the first N / 4 rows), then the upper triangle of "
		   "data^T data mirrored (a thread a row)",
	.input = "size = M = N: an N x M float data matrix (PolyBench's "
		 "1-based (N+1) x (M+1) layout) uniform in [0, 1) from the "
		 "seed; FLOAT_N = 3214212.01f as PolyBench/GPU has it (the "
		 "values do not change the program; PolyBench/GPU's standard "
		 "size is 2048)",
	.small_size = 64,
	.large_size = 256,
	.paper_sizes = "Barre Table I (cov, MPKI 3.24): input not given",
	.kernels = "mean_kernel, reduce_kernel, covar_kernel",
	.run = covariance_run,
};

const struct app_desc app_correlation = {
	.name = "correlation",
	.suite = "PolyBench/GPU",
	.summary = "column means and standard deviations (a thread a "
		   "column, blocks of 256), normalisation (32 x 8 blocks), "
		   "then the upper triangle of the correlation matrix "
		   "mirrored (a thread a row)",
	.input = "size = M = N: an N x M float data matrix (PolyBench's "
		 "1-based (N+1) x (M+1) layout) uniform in [0, 1) from the "
		 "seed; FLOAT_N = 3214212.01f and eps = 0.005f as "
		 "PolyBench/GPU has them (the values do not change the "
		 "program; PolyBench/GPU's standard size is 2048)",
	.small_size = 64,
	.large_size = 256,
	.paper_sizes = "Barre Table I (corr, MPKI 0.045): input not given",
	.kernels = "mean_kernel, std_kernel, reduce_kernel, corr_kernel",
	.run = correlation_run,
};

/* ------------------------------------------------------------------ */
/* jacobi2d (jacobi-2d-imper) */

struct jacobi_args {
	uint64_t a, b;
	uint32_t n;
};

/*
 * B[i][j] = 0.2 (A[i][j] + A[i][j-1] + A[i][j+1] + A[i+1][j] + A[i-1][j])
 * on the interior: thread (i, j), 32 x 8. OPS: i and j (INT 2), four
 * bounds (INT 4, BRANCH 1), the index (INT 1); four adds and the multiply
 * (FP 5).
 */
static void jacobi_kernel1(struct simt_thread *t, const void *p)
{
	const struct jacobi_args *a = p;
	uint64_t i = pb2_row(t), j = simt_global_x(t), n = a->n;
	float c, w, e, s, no;

	OPS(t, PROG_OP_INT, 6);
	OPS(t, PROG_OP_BRANCH, 1);
	if (i < 1 || i >= n - 1 || j < 1 || j >= n - 1)
		return;
	OPS(t, PROG_OP_INT, 1);
	c = LD(t, float, a->a, i * n + j);
	w = LD(t, float, a->a, i * n + j - 1);
	e = LD(t, float, a->a, i * n + j + 1);
	s = LD(t, float, a->a, (i + 1) * n + j);
	no = LD(t, float, a->a, (i - 1) * n + j);
	OPS(t, PROG_OP_FP, 5);
	ST(t, float, a->b, i * n + j, 0.2f * (c + w + e + s + no));
}

/* A[i][j] = B[i][j] on the interior. OPS as kernel 1's indices. */
static void jacobi_kernel2(struct simt_thread *t, const void *p)
{
	const struct jacobi_args *a = p;
	uint64_t i = pb2_row(t), j = simt_global_x(t), n = a->n;
	float v;

	OPS(t, PROG_OP_INT, 6);
	OPS(t, PROG_OP_BRANCH, 1);
	if (i < 1 || i >= n - 1 || j < 1 || j >= n - 1)
		return;
	OPS(t, PROG_OP_INT, 1);
	v = LD(t, float, a->b, i * n + j);
	ST(t, float, a->a, i * n + j, v);
}

static int jacobi2d_run(struct simt_gpu *gpu, uint64_t size, uint64_t seed,
			char *err, size_t errlen)
{
	const char *app = "jacobi2d";
	const uint32_t n = (uint32_t)size;
	const uint64_t nn = size * size;
	const struct simt_dim3 block = DIM3(PB2_TILE_X, PB2_TILE_Y, 1);
	struct pb2_host h = { .n = 0 };
	struct jacobi_args args = { .n = n };
	float *a, *b, *got;
	struct app_rng rng;
	uint32_t i, j, step;
	int ret;

	ret = app_size_range(size, 3, 16384, "N (an N x N grid)", app, err,
			     errlen);
	if (ret)
		return ret;
	a = pb2_array(&h, nn);
	b = pb2_array(&h, nn);
	got = pb2_array(&h, nn);
	ret = pb2_oom(&h, app, err, errlen);
	if (ret)
		goto out;
	app_rng_init(&rng, seed, 43);
	app_rng_fill_float(&rng, a, nn, 1.0f);
	app_rng_fill_float(&rng, b, nn, 1.0f);
	ret = app_alloc(gpu, nn * sizeof(float), "A", &args.a, app, err,
			errlen);
	if (!ret)
		ret = app_alloc(gpu, nn * sizeof(float), "B", &args.b, app,
				err, errlen);
	if (ret)
		goto out;
	simt_h2d(gpu, args.a, a, nn * sizeof(float));
	simt_h2d(gpu, args.b, b, nn * sizeof(float));
	for (step = 0; step < JACOBI_TSTEPS && !ret; step++) {
		ret = app_launch(gpu, "runJacobiCUDA_kernel1", jacobi_kernel1,
				 pb2_grid2(n, n), block, 0, &args, app, err,
				 errlen);
		if (!ret)
			ret = app_launch(gpu, "runJacobiCUDA_kernel2",
					 jacobi_kernel2, pb2_grid2(n, n),
					 block, 0, &args, app, err, errlen);
	}
	if (ret)
		goto out;
	simt_d2h(gpu, got, args.a, nn * sizeof(float));
	app_test_perturb(got, sizeof(float), nn);
	for (step = 0; step < JACOBI_TSTEPS; step++) {
		for (i = 1; i < n - 1; i++)
			for (j = 1; j < n - 1; j++) {
				size_t c = (size_t)i * n + j;

				b[c] = 0.2f * (a[c] + a[c - 1] + a[c + 1] +
					       a[c + n] + a[c - n]);
			}
		for (i = 1; i < n - 1; i++)
			for (j = 1; j < n - 1; j++)
				a[(size_t)i * n + j] = b[(size_t)i * n + j];
	}
	ret = app_check_f32(got, a, nn, APP_FLOAT_TOLERANCE, app, "A", err,
			    errlen);
out:
	pb2_host_free(&h);
	return ret;
}

/* ------------------------------------------------------------------ */
/* fdtd2d (fdtd-2d) */

struct fdtd_args {
	uint64_t fict, ex, ey, hz;
	uint32_t n, t;		/* NX = NY = n; the time step */
};

/*
 * ey[i][j] = fict[t] on row 0, else ey[i][j] -= 0.5 (hz[i][j] -
 * hz[i-1][j]): thread (i, j), 32 x 8. OPS: i and j, two bounds (INT 4,
 * BRANCH 1), i == 0 (INT 1, BRANCH 1); the index (INT 1), a subtract and
 * an FFMA (FP 2).
 */
static void fdtd_step1_kernel(struct simt_thread *t, const void *p)
{
	const struct fdtd_args *a = p;
	uint64_t i = pb2_row(t), j = simt_global_x(t), n = a->n;
	float e, h, hn;

	OPS(t, PROG_OP_INT, 4);
	OPS(t, PROG_OP_BRANCH, 1);
	if (i >= n || j >= n)
		return;
	OPS(t, PROG_OP_INT, 1);
	OPS(t, PROG_OP_BRANCH, 1);
	if (i == 0) {
		e = LD(t, float, a->fict, a->t);
		ST(t, float, a->ey, j, e);
		return;
	}
	OPS(t, PROG_OP_INT, 1);
	e = LD(t, float, a->ey, i * n + j);
	h = LD(t, float, a->hz, i * n + j);
	hn = LD(t, float, a->hz, (i - 1) * n + j);
	OPS(t, PROG_OP_FP, 2);
	ST(t, float, a->ey, i * n + j, e - 0.5f * (h - hn));
}

/*
 * ex[i][j] -= 0.5 (hz[i][j] - hz[i][j-1]) for j > 0 (ex is NX x (NY +
 * 1)). OPS: i and j, three bounds (INT 5, BRANCH 1), the indices (INT 2),
 * a subtract and an FFMA (FP 2).
 */
static void fdtd_step2_kernel(struct simt_thread *t, const void *p)
{
	const struct fdtd_args *a = p;
	uint64_t i = pb2_row(t), j = simt_global_x(t), n = a->n;
	float e, h, hw;

	OPS(t, PROG_OP_INT, 5);
	OPS(t, PROG_OP_BRANCH, 1);
	if (i >= n || j >= n || j == 0)
		return;
	OPS(t, PROG_OP_INT, 2);
	e = LD(t, float, a->ex, i * (n + 1) + j);
	h = LD(t, float, a->hz, i * n + j);
	hw = LD(t, float, a->hz, i * n + j - 1);
	OPS(t, PROG_OP_FP, 2);
	ST(t, float, a->ex, i * (n + 1) + j, e - 0.5f * (h - hw));
}

/*
 * hz[i][j] -= 0.7 (ex[i][j+1] - ex[i][j] + ey[i+1][j] - ey[i][j]) (ey is
 * (NX + 1) x NY). OPS: i and j, two bounds (INT 4, BRANCH 1), the indices
 * (INT 2), three adds or subtracts and an FFMA (FP 4).
 */
static void fdtd_step3_kernel(struct simt_thread *t, const void *p)
{
	const struct fdtd_args *a = p;
	uint64_t i = pb2_row(t), j = simt_global_x(t), n = a->n;
	float h, xe, xw, ys, yn;

	OPS(t, PROG_OP_INT, 4);
	OPS(t, PROG_OP_BRANCH, 1);
	if (i >= n || j >= n)
		return;
	OPS(t, PROG_OP_INT, 2);
	h = LD(t, float, a->hz, i * n + j);
	xe = LD(t, float, a->ex, i * (n + 1) + j + 1);
	xw = LD(t, float, a->ex, i * (n + 1) + j);
	ys = LD(t, float, a->ey, (i + 1) * n + j);
	yn = LD(t, float, a->ey, i * n + j);
	OPS(t, PROG_OP_FP, 4);
	ST(t, float, a->hz, i * n + j, h - 0.7f * (xe - xw + ys - yn));
}

static void fdtd_ref(const float *fict, float *ex, float *ey, float *hz,
		     uint32_t n)
{
	const size_t w = (size_t)n + 1;
	uint32_t t, i, j;

	for (t = 0; t < FDTD_TMAX; t++) {
		for (j = 0; j < n; j++)
			ey[j] = fict[t];
		for (i = 1; i < n; i++)
			for (j = 0; j < n; j++)
				ey[i * n + j] = ey[i * n + j] - 0.5f *
						(hz[i * n + j] -
						 hz[(i - 1) * n + j]);
		for (i = 0; i < n; i++)
			for (j = 1; j < n; j++)
				ex[i * w + j] = ex[i * w + j] - 0.5f *
						(hz[i * n + j] -
						 hz[i * n + j - 1]);
		for (i = 0; i < n; i++)
			for (j = 0; j < n; j++)
				hz[i * n + j] = hz[i * n + j] - 0.7f *
						(ex[i * w + j + 1] -
						 ex[i * w + j] +
						 ey[(i + 1) * n + j] -
						 ey[i * n + j]);
	}
}

static int fdtd2d_run(struct simt_gpu *gpu, uint64_t size, uint64_t seed,
		      char *err, size_t errlen)
{
	const char *app = "fdtd2d";
	const uint32_t n = (uint32_t)size;
	const uint64_t nn = size * size, nw = size * (size + 1);
	const struct simt_dim3 block = DIM3(PB2_TILE_X, PB2_TILE_Y, 1);
	struct pb2_host h = { .n = 0 };
	struct fdtd_args args = { .n = n };
	float *fict, *ex, *ey, *hz, *got;
	struct app_rng rng;
	uint32_t step;
	int ret;

	ret = app_size_range(size, 1, 16384, "N (an N x N grid)", app, err,
			     errlen);
	if (ret)
		return ret;
	fict = pb2_array(&h, FDTD_TMAX);
	ex = pb2_array(&h, nw);
	ey = pb2_array(&h, nw);
	hz = pb2_array(&h, nn);
	got = pb2_array(&h, nn);
	ret = pb2_oom(&h, app, err, errlen);
	if (ret)
		goto out;
	/* PolyBench's _fict_[t] = t; the fields from the seed. */
	for (step = 0; step < FDTD_TMAX; step++)
		fict[step] = (float)step;
	app_rng_init(&rng, seed, 44);
	app_rng_fill_float(&rng, ex, nw, 1.0f);
	app_rng_fill_float(&rng, ey, nw, 1.0f);
	app_rng_fill_float(&rng, hz, nn, 1.0f);
	ret = app_alloc(gpu, FDTD_TMAX * sizeof(float), "_fict_", &args.fict,
			app, err, errlen);
	if (!ret)
		ret = app_alloc(gpu, nw * sizeof(float), "ex", &args.ex, app,
				err, errlen);
	if (!ret)
		ret = app_alloc(gpu, nw * sizeof(float), "ey", &args.ey, app,
				err, errlen);
	if (!ret)
		ret = app_alloc(gpu, nn * sizeof(float), "hz", &args.hz, app,
				err, errlen);
	if (ret)
		goto out;
	simt_h2d(gpu, args.fict, fict, FDTD_TMAX * sizeof(float));
	simt_h2d(gpu, args.ex, ex, nw * sizeof(float));
	simt_h2d(gpu, args.ey, ey, nw * sizeof(float));
	simt_h2d(gpu, args.hz, hz, nn * sizeof(float));
	for (step = 0; step < FDTD_TMAX && !ret; step++) {
		args.t = step;
		ret = app_launch(gpu, "fdtd_step1_kernel", fdtd_step1_kernel,
				 pb2_grid2(n, n), block, 0, &args, app, err,
				 errlen);
		if (!ret)
			ret = app_launch(gpu, "fdtd_step2_kernel",
					 fdtd_step2_kernel, pb2_grid2(n, n),
					 block, 0, &args, app, err, errlen);
		if (!ret)
			ret = app_launch(gpu, "fdtd_step3_kernel",
					 fdtd_step3_kernel, pb2_grid2(n, n),
					 block, 0, &args, app, err, errlen);
	}
	if (ret)
		goto out;
	simt_d2h(gpu, got, args.hz, nn * sizeof(float));
	app_test_perturb(got, sizeof(float), nn);
	fdtd_ref(fict, ex, ey, hz, n);
	ret = app_check_f32(got, hz, nn, APP_FLOAT_TOLERANCE, app, "hz", err,
			    errlen);
out:
	pb2_host_free(&h);
	return ret;
}

/* ------------------------------------------------------------------ */
/* lu */

struct lu_args {
	uint64_t a;
	uint32_t n, k;
};

/*
 * A[k][j] /= A[k][k] for j > k: thread j, blocks of 256. OPS: j (INT 1),
 * k < j < n (INT 2, BRANCH 1), a float division.
 */
static void lu_kernel1(struct simt_thread *t, const void *p)
{
	const struct lu_args *a = p;
	uint64_t j = simt_global_x(t), k = a->k, n = a->n;
	float v, piv;

	OPS(t, PROG_OP_INT, 3);
	OPS(t, PROG_OP_BRANCH, 1);
	if (j <= k || j >= n)
		return;
	v = LD(t, float, a->a, k * n + j);
	piv = LD(t, float, a->a, k * n + k);
	PB2_OPS_FDIV(t);
	ST(t, float, a->a, k * n + j, v / piv);
}

/*
 * A[i][j] -= A[i][k] A[k][j] for i, j > k: thread (i, j), 32 x 8. OPS: i
 * and j, four bounds (INT 6, BRANCH 1), the index (INT 1), an FFMA (FP
 * 1).
 */
static void lu_kernel2(struct simt_thread *t, const void *p)
{
	const struct lu_args *a = p;
	uint64_t i = pb2_row(t), j = simt_global_x(t), k = a->k, n = a->n;
	float v, l, u;

	OPS(t, PROG_OP_INT, 6);
	OPS(t, PROG_OP_BRANCH, 1);
	if (i <= k || j <= k || i >= n || j >= n)
		return;
	OPS(t, PROG_OP_INT, 1);
	v = LD(t, float, a->a, i * n + j);
	l = LD(t, float, a->a, i * n + k);
	u = LD(t, float, a->a, k * n + j);
	OPS(t, PROG_OP_FP, 1);
	ST(t, float, a->a, i * n + j, v - l * u);
}

static uint32_t lu_min(uint32_t a, uint32_t b)
{
	return a < b ? a : b;
}

static int lu_run(struct simt_gpu *gpu, uint64_t size, uint64_t seed,
		  char *err, size_t errlen)
{
	const char *app = "lu";
	const uint32_t n = (uint32_t)size;
	const uint64_t nn = size * size;
	struct pb2_host h = { .n = 0 };
	struct lu_args args = { .n = n };
	float *a, *got;
	struct app_rng rng;
	uint32_t i, j, k;
	int ret;

	ret = app_size_range(size, 1, 16384, "N (an N x N matrix)", app, err,
			     errlen);
	if (ret)
		return ret;
	a = pb2_array(&h, nn);
	got = pb2_array(&h, nn);
	ret = pb2_oom(&h, app, err, errlen);
	if (ret)
		goto out;
	/*
	 * Diagonally dominant, so elimination without pivoting (as
	 * PolyBench's) stays finite: PolyBench's own (i j + 1) / N matrix
	 * has rank 2 and its pivots vanish.
	 */
	app_rng_init(&rng, seed, 45);
	app_rng_fill_float(&rng, a, nn, 1.0f);
	for (i = 0; i < n; i++)
		a[(size_t)i * n + i] += (float)n;
	ret = app_alloc(gpu, nn * sizeof(float), "A", &args.a, app, err,
			errlen);
	if (ret)
		goto out;
	simt_h2d(gpu, args.a, a, nn * sizeof(float));
	/*
	 * PolyBench/GPU sizes both grids by the N - k - 1 rows and columns
	 * left but indexes from 0, not from k + 1: the threads cover
	 * indices below N - k - 1 rounded up to the block, so from k of
	 * about N / 2 on the updates are left undone. Its code, its
	 * result; the reference does the same. At k = N - 1 the grids are
	 * empty (CUDA refuses the launches): nothing is launched.
	 */
	for (k = 0; k + 1 < n && !ret; k++) {
		args.k = k;
		ret = app_launch(gpu, "lu_kernel1", lu_kernel1,
				 DIM3(app_blocks(n - k - 1, PB2_BLOCK), 1, 1),
				 DIM3(PB2_BLOCK, 1, 1), 0, &args, app, err,
				 errlen);
		if (!ret)
			ret = app_launch(gpu, "lu_kernel2", lu_kernel2,
					 pb2_grid2(n - k - 1, n - k - 1),
					 DIM3(PB2_TILE_X, PB2_TILE_Y, 1), 0,
					 &args, app, err, errlen);
	}
	if (ret)
		goto out;
	simt_d2h(gpu, got, args.a, nn * sizeof(float));
	app_test_perturb(got, sizeof(float), nn);
	for (k = 0; k + 1 < n; k++) {
		uint32_t left = n - k - 1;
		uint32_t row_end = lu_min(n, app_blocks(left, PB2_BLOCK) *
					  PB2_BLOCK);
		uint32_t x_end = lu_min(n, app_blocks(left, PB2_TILE_X) *
					PB2_TILE_X);
		uint32_t y_end = lu_min(n, app_blocks(left, PB2_TILE_Y) *
					PB2_TILE_Y);

		for (j = k + 1; j < row_end; j++)
			a[(size_t)k * n + j] = a[(size_t)k * n + j] /
					       a[(size_t)k * n + k];
		for (i = k + 1; i < y_end; i++)
			for (j = k + 1; j < x_end; j++)
				a[(size_t)i * n + j] = a[(size_t)i * n + j] -
					a[(size_t)i * n + k] *
					a[(size_t)k * n + j];
	}
	ret = app_check_f32(got, a, nn, APP_FLOAT_TOLERANCE, app, "A", err,
			    errlen);
out:
	pb2_host_free(&h);
	return ret;
}

/* ------------------------------------------------------------------ */
/* adi (PolyBench 2.0's, as PolyBench/GPU has it) */

struct adi_args {
	uint64_t a, b, x;
	uint32_t n, i1;
};

/*
 * Along row i1 (thread i1, blocks of 256): for i2 = 1 .. n-1,
 * X[i1][i2] -= X[i1][i2-1] A[i1][i2] / B[i1][i2-1] and
 * B[i1][i2] -= A[i1][i2]^2 / B[i1][i2-1]. OPS: the index and bound (INT
 * 2, BRANCH 1); an iteration two multiplies, two subtracts (FP 4), two
 * divisions and the loop (INT 2, BRANCH 1).
 */
static void adi_kernel1(struct simt_thread *t, const void *p)
{
	const struct adi_args *a = p;
	uint64_t i1 = simt_global_x(t), n = a->n, i2;

	OPS(t, PROG_OP_INT, 2);
	OPS(t, PROG_OP_BRANCH, 1);
	if (i1 >= n)
		return;
	for (i2 = 1; i2 < n; i2++) {
		uint64_t c = i1 * n + i2;
		float x = LD(t, float, a->x, c);
		float xw = LD(t, float, a->x, c - 1);
		float av = LD(t, float, a->a, c);
		float bw = LD(t, float, a->b, c - 1);
		float b;

		OPS(t, PROG_OP_FP, 2);
		PB2_OPS_FDIV(t);
		ST(t, float, a->x, c, x - xw * av / bw);
		b = LD(t, float, a->b, c);
		av = LD(t, float, a->a, c);
		bw = LD(t, float, a->b, c - 1);
		OPS(t, PROG_OP_FP, 2);
		PB2_OPS_FDIV(t);
		ST(t, float, a->b, c, b - av * av / bw);
		OPS(t, PROG_OP_INT, 2);
		OPS(t, PROG_OP_BRANCH, 1);
	}
}

/* X[i1][n-1] /= B[i1][n-1]: thread i1. OPS: index, bound, a division. */
static void adi_kernel2(struct simt_thread *t, const void *p)
{
	const struct adi_args *a = p;
	uint64_t i1 = simt_global_x(t), n = a->n;
	float x, b;

	OPS(t, PROG_OP_INT, 2);
	OPS(t, PROG_OP_BRANCH, 1);
	if (i1 >= n)
		return;
	x = LD(t, float, a->x, i1 * n + n - 1);
	b = LD(t, float, a->b, i1 * n + n - 1);
	PB2_OPS_FDIV(t);
	ST(t, float, a->x, i1 * n + n - 1, x / b);
}

/*
 * Back along row i1: for i2 = 0 .. n-3, X[i1][n-i2-2] = (X[i1][n-2-i2] -
 * X[i1][n-i2-3] A[i1][n-i2-3]) / B[i1][n-i2-3]. OPS: index and bound
 * (INT 2, BRANCH 1); an iteration the reversed index (INT 1), an FFMA
 * (FP 1), a division and the loop (INT 2, BRANCH 1).
 */
static void adi_kernel3(struct simt_thread *t, const void *p)
{
	const struct adi_args *a = p;
	uint64_t i1 = simt_global_x(t), n = a->n, i2;

	OPS(t, PROG_OP_INT, 2);
	OPS(t, PROG_OP_BRANCH, 1);
	if (i1 >= n)
		return;
	for (i2 = 0; i2 < n - 2; i2++) {
		uint64_t c = i1 * n + n - i2 - 2;
		float x, xw, av, bw;

		OPS(t, PROG_OP_INT, 1);
		x = LD(t, float, a->x, c);
		xw = LD(t, float, a->x, c - 1);
		av = LD(t, float, a->a, c - 1);
		bw = LD(t, float, a->b, c - 1);
		OPS(t, PROG_OP_FP, 1);
		PB2_OPS_FDIV(t);
		ST(t, float, a->x, c, (x - xw * av) / bw);
		OPS(t, PROG_OP_INT, 2);
		OPS(t, PROG_OP_BRANCH, 1);
	}
}

/*
 * Down the columns, row i1 from row i1 - 1 (thread i2): kernel 1's two
 * updates with the row above. OPS: index and bound (INT 2, BRANCH 1),
 * the indices (INT 2), FP 4 and two divisions.
 */
static void adi_kernel4(struct simt_thread *t, const void *p)
{
	const struct adi_args *a = p;
	uint64_t i2 = simt_global_x(t), n = a->n, c;
	float x, xn, av, bn, b;

	OPS(t, PROG_OP_INT, 2);
	OPS(t, PROG_OP_BRANCH, 1);
	if (i2 >= n)
		return;
	OPS(t, PROG_OP_INT, 2);
	c = (uint64_t)a->i1 * n + i2;
	x = LD(t, float, a->x, c);
	xn = LD(t, float, a->x, c - n);
	av = LD(t, float, a->a, c);
	bn = LD(t, float, a->b, c - n);
	OPS(t, PROG_OP_FP, 2);
	PB2_OPS_FDIV(t);
	ST(t, float, a->x, c, x - xn * av / bn);
	b = LD(t, float, a->b, c);
	av = LD(t, float, a->a, c);
	bn = LD(t, float, a->b, c - n);
	OPS(t, PROG_OP_FP, 2);
	PB2_OPS_FDIV(t);
	ST(t, float, a->b, c, b - av * av / bn);
}

/* X[n-1][i2] /= B[n-1][i2]: thread i2. OPS as adi_kernel2's. */
static void adi_kernel5(struct simt_thread *t, const void *p)
{
	const struct adi_args *a = p;
	uint64_t i2 = simt_global_x(t), n = a->n;
	float x, b;

	OPS(t, PROG_OP_INT, 2);
	OPS(t, PROG_OP_BRANCH, 1);
	if (i2 >= n)
		return;
	x = LD(t, float, a->x, (n - 1) * n + i2);
	b = LD(t, float, a->b, (n - 1) * n + i2);
	PB2_OPS_FDIV(t);
	ST(t, float, a->x, (n - 1) * n + i2, x / b);
}

/*
 * Back up the columns: X[n-2-i1][i2] = (X[n-2-i1][i2] - X[n-3-i1][i2]
 * A[n-3-i1][i2]) / B[n-2-i1][i2]: thread i2. OPS: index and bound (INT
 * 2, BRANCH 1), the rows (INT 2), an FFMA (FP 1) and a division.
 */
static void adi_kernel6(struct simt_thread *t, const void *p)
{
	const struct adi_args *a = p;
	uint64_t i2 = simt_global_x(t), n = a->n, c;
	float x, xn, av, b;

	OPS(t, PROG_OP_INT, 2);
	OPS(t, PROG_OP_BRANCH, 1);
	if (i2 >= n)
		return;
	OPS(t, PROG_OP_INT, 2);
	c = (n - 2 - a->i1) * n + i2;
	x = LD(t, float, a->x, c);
	xn = LD(t, float, a->x, c - n);
	av = LD(t, float, a->a, c - n);
	b = LD(t, float, a->b, c);
	OPS(t, PROG_OP_FP, 1);
	PB2_OPS_FDIV(t);
	ST(t, float, a->x, c, (x - xn * av) / b);
}

static void adi_ref(const float *a, float *b, float *x, uint32_t n)
{
	size_t i1, i2, c;
	uint32_t step;

	for (step = 0; step < ADI_TSTEPS; step++) {
		for (i1 = 0; i1 < n; i1++)
			for (i2 = 1; i2 < n; i2++) {
				c = i1 * n + i2;
				x[c] = x[c] - x[c - 1] * a[c] / b[c - 1];
				b[c] = b[c] - a[c] * a[c] / b[c - 1];
			}
		for (i1 = 0; i1 < n; i1++)
			x[i1 * n + n - 1] = x[i1 * n + n - 1] /
					    b[i1 * n + n - 1];
		for (i1 = 0; i1 < n; i1++)
			for (i2 = 0; i2 < n - 2; i2++) {
				c = i1 * n + n - i2 - 2;
				x[c] = (x[c] - x[c - 1] * a[c - 1]) / b[c - 1];
			}
		for (i1 = 1; i1 < n; i1++)
			for (i2 = 0; i2 < n; i2++) {
				c = i1 * n + i2;
				x[c] = x[c] - x[c - n] * a[c] / b[c - n];
				b[c] = b[c] - a[c] * a[c] / b[c - n];
			}
		for (i2 = 0; i2 < n; i2++)
			x[(n - 1) * n + i2] = x[(n - 1) * n + i2] /
					      b[(n - 1) * n + i2];
		for (i1 = 0; i1 < n - 2; i1++)
			for (i2 = 0; i2 < n; i2++) {
				c = (n - 2 - i1) * n + i2;
				x[c] = (x[c] - x[c - n] * a[c - n]) / b[c];
			}
	}
}

static int adi_run(struct simt_gpu *gpu, uint64_t size, uint64_t seed,
		   char *err, size_t errlen)
{
	const char *app = "adi";
	const uint32_t n = (uint32_t)size;
	const uint64_t nn = size * size;
	const struct simt_dim3 block = DIM3(PB2_BLOCK, 1, 1);
	const struct simt_dim3 grid = DIM3(app_blocks(n, PB2_BLOCK), 1, 1);
	struct pb2_host h = { .n = 0 };
	struct adi_args args = { .n = n };
	float *a, *b, *x, *got, *got_b;
	struct app_rng rng;
	uint32_t step, i1;
	size_t i;
	int ret;

	ret = app_size_range(size, 3, 16384, "N (an N x N grid)", app, err,
			     errlen);
	if (ret)
		return ret;
	a = pb2_array(&h, nn);
	b = pb2_array(&h, nn);
	x = pb2_array(&h, nn);
	got = pb2_array(&h, nn);
	got_b = pb2_array(&h, nn);
	ret = pb2_oom(&h, app, err, errlen);
	if (ret)
		goto out;
	/*
	 * A and X in [0, 1), B in [3, 4): every B the sweeps divide by
	 * stays at least 2 (B - A^2 / B' with B' >= 2), so nothing blows up.
	 */
	app_rng_init(&rng, seed, 46);
	app_rng_fill_float(&rng, a, nn, 1.0f);
	app_rng_fill_float(&rng, b, nn, 1.0f);
	app_rng_fill_float(&rng, x, nn, 1.0f);
	for (i = 0; i < nn; i++)
		b[i] += 3.0f;
	ret = app_alloc(gpu, nn * sizeof(float), "A", &args.a, app, err,
			errlen);
	if (!ret)
		ret = app_alloc(gpu, nn * sizeof(float), "B", &args.b, app,
				err, errlen);
	if (!ret)
		ret = app_alloc(gpu, nn * sizeof(float), "X", &args.x, app,
				err, errlen);
	if (ret)
		goto out;
	simt_h2d(gpu, args.a, a, nn * sizeof(float));
	simt_h2d(gpu, args.b, b, nn * sizeof(float));
	simt_h2d(gpu, args.x, x, nn * sizeof(float));
	for (step = 0; step < ADI_TSTEPS && !ret; step++) {
		ret = app_launch(gpu, "adi_kernel1", adi_kernel1, grid, block,
				 0, &args, app, err, errlen);
		if (!ret)
			ret = app_launch(gpu, "adi_kernel2", adi_kernel2, grid,
					 block, 0, &args, app, err, errlen);
		if (!ret)
			ret = app_launch(gpu, "adi_kernel3", adi_kernel3, grid,
					 block, 0, &args, app, err, errlen);
		for (i1 = 1; i1 < n && !ret; i1++) {
			args.i1 = i1;
			ret = app_launch(gpu, "adi_kernel4", adi_kernel4, grid,
					 block, 0, &args, app, err, errlen);
		}
		if (!ret)
			ret = app_launch(gpu, "adi_kernel5", adi_kernel5, grid,
					 block, 0, &args, app, err, errlen);
		for (i1 = 0; i1 < n - 2 && !ret; i1++) {
			args.i1 = i1;
			ret = app_launch(gpu, "adi_kernel6", adi_kernel6, grid,
					 block, 0, &args, app, err, errlen);
		}
	}
	if (ret)
		goto out;
	/* PolyBench/GPU copies out and checks both. */
	simt_d2h(gpu, got_b, args.b, nn * sizeof(float));
	simt_d2h(gpu, got, args.x, nn * sizeof(float));
	app_test_perturb(got, sizeof(float), nn);
	adi_ref(a, b, x, n);
	ret = app_check_f32(got_b, b, nn, APP_FLOAT_TOLERANCE, app, "B", err,
			    errlen);
	if (!ret)
		ret = app_check_f32(got, x, nn, APP_FLOAT_TOLERANCE, app, "X",
				    err, errlen);
out:
	pb2_host_free(&h);
	return ret;
}

const struct app_desc app_jacobi2d = {
	.name = "jacobi2d",
	.suite = "PolyBench/GPU (jacobi-2d-imper)",
	.summary = "20 time steps of a 5-point Jacobi stencil, each two "
		   "kernels (B from A, then A = B on the interior), 32 x 8 "
		   "blocks, a thread an element",
	.input = "size = N: an N x N float grid A (and B) uniform in [0, 1) "
		 "from the seed; 20 steps (PolyBench/GPU's TSTEPS) at every "
		 "size (the values do not change the program; PolyBench/GPU's "
		 "standard size is 1000)",
	.small_size = 64,
	.large_size = 1024,
	.paper_sizes = "Barre Table I (jac2d, MPKI 4.78): input not given",
	.kernels = "runJacobiCUDA_kernel1, runJacobiCUDA_kernel2",
	.run = jacobi2d_run,
};

const struct app_desc app_fdtd2d = {
	.name = "fdtd2d",
	.suite = "PolyBench/GPU (fdtd-2d)",
	.summary = "500 time steps of 2-D FDTD, each three kernels (ey, ex, "
		   "hz), 32 x 8 blocks, a thread an element",
	.input = "size = N = NX = NY: the fields ex (N x (N+1)), ey ((N+1) x "
		 "N) and hz (N x N) uniform in [0, 1) from the seed, "
		 "_fict_[t] = t; 500 steps (PolyBench/GPU's tmax) at every "
		 "size (the values do not change the program; PolyBench/GPU's "
		 "standard size is 2048)",
	.small_size = 16,
	.large_size = 128,
	.paper_sizes = "Barre Table I (fdtd2d, MPKI 10.12): input not given",
	.kernels = "fdtd_step1_kernel, fdtd_step2_kernel, fdtd_step3_kernel",
	.run = fdtd2d_run,
};

const struct app_desc app_lu = {
	.name = "lu",
	.suite = "PolyBench/GPU",
	.summary = "LU without pivoting: for each k, kernel 1 scales row k "
		   "(blocks of 256), kernel 2 updates the trailing matrix (32 "
		   "x 8 blocks); grids of N - k - 1 indexed from 0 as "
		   "PolyBench/GPU launches them, so k past about N / 2 "
		   "updates nothing",
	.input = "size = N: an N x N float matrix uniform in [0, 1) from the "
		 "seed plus N on the diagonal (diagonally dominant: "
		 "PolyBench's own matrix is singular); 2 (N - 1) launches (the "
		 "values do not change the program; PolyBench/GPU's standard "
		 "size is 2048)",
	.small_size = 32,
	.large_size = 512,
	.paper_sizes = "Barre Table I (lu, MPKI 17.14): input not given",
	.kernels = "lu_kernel1, lu_kernel2",
	.run = lu_run,
};

const struct app_desc app_adi = {
	.name = "adi",
	.suite = "PolyBench/GPU",
	.summary = "alternating-direction implicit sweeps: three kernels "
		   "along the rows (a thread a row), then N - 1 and N - 2 "
		   "launches down and back up the columns (a thread a "
		   "column), blocks of 256",
	.input = "size = N: N x N float arrays A and X uniform in [0, 1) and "
		 "B in [3, 4) (so the divisors stay at least 2) from the "
		 "seed; 1 step (PolyBench/GPU's TSTEPS) (the values do not "
		 "change the program; PolyBench/GPU's standard size is 1024)",
	.small_size = 64,
	.large_size = 1024,
	.paper_sizes = "Barre Table I (adi, MPKI 0.051): input not given",
	.kernels = "adi_kernel1, adi_kernel2, adi_kernel3, adi_kernel4, "
		   "adi_kernel5, adi_kernel6",
	.run = adi_run,
};
