// SPDX-License-Identifier: GPL-2.0
/*
 * gauss (CXL-GPU's workload table): Rodinia's gaussian, forward
 * elimination of A x = b without pivoting, two kernels a column t:
 * Fan1 (1-D, blocks of 512, MAXBLOCKSIZE) computes the multipliers
 * m[i][t] = a[i][t] / a[t][t] for the rows below t; Fan2 (2-D, blocks of
 * 4 x 4, BLOCK_SIZE_XY) subtracts m[i][t] times row t from every row i
 * below it (x indexes the row, so a warp's lanes are rows apart), and
 * its column-0 threads update b. The host launches both for t = 0 ..
 * N - 2, copies m, a and b out and back-substitutes (BackSub) on the CPU.
 * The matrix is Rodinia's generated one (its -s option): a symmetric
 * Toeplitz matrix a[i][j] = 10 exp(-0.01 |i - j|), b all ones.
 */
#include <errno.h>
#include <math.h>
#include <string.h>
#include <stdlib.h>

#include "app_util.h"
#include "apps.h"

#define GAUSS_FAN1_BLOCK	512
#define GAUSS_FAN2_BLOCK	4
#define GAUSS_MAX		4096

struct gauss_args {
	uint64_t m, a, b;
	uint32_t n, t;
};

/*
 * OPS: the index (INT 1), the bound N - 1 - t and its test (INT 2,
 * BRANCH 1), the row's index (INT 1), the division (SFU 1 for the
 * reciprocal, FP 1 for the multiply).
 */
static void fan1_kernel(struct simt_thread *t, const void *p)
{
	const struct gauss_args *a = p;
	uint64_t x = simt_global_x(t), row;
	float num, piv;

	OPS(t, PROG_OP_INT, 3);
	OPS(t, PROG_OP_BRANCH, 1);
	if (x >= a->n - 1 - a->t)
		return;
	OPS(t, PROG_OP_INT, 1);
	row = (x + a->t + 1) * a->n;
	num = LD(t, float, a->a, row + a->t);
	piv = LD(t, float, a->a, (uint64_t)a->n * a->t + a->t);
	OPS(t, PROG_OP_SFU, 1);
	OPS(t, PROG_OP_FP, 1);
	ST(t, float, a->m, row + a->t, num / piv);
}

/*
 * OPS: x and y (INT 2), the two bounds and tests (INT 3, BRANCH 2), the
 * row's index (INT 1), the FFMA (FP 1); y == 0 (INT 1, BRANCH 1) and
 * b's FFMA (FP 1) where taken.
 */
static void fan2_kernel(struct simt_thread *t, const void *p)
{
	const struct gauss_args *a = p;
	struct simt_dim3 b = simt_block_idx(t), l = simt_thread_idx(t);
	uint64_t x = (uint64_t)b.x * GAUSS_FAN2_BLOCK + l.x;
	uint64_t y = (uint64_t)b.y * GAUSS_FAN2_BLOCK + l.y;
	uint64_t row;
	float mv, pv, av;

	OPS(t, PROG_OP_INT, 5);
	OPS(t, PROG_OP_BRANCH, 2);
	if (x >= a->n - 1 - a->t || y >= a->n - a->t)
		return;
	OPS(t, PROG_OP_INT, 1);
	row = (x + 1 + a->t) * a->n;
	mv = LD(t, float, a->m, row + a->t);
	pv = LD(t, float, a->a, (uint64_t)a->n * a->t + y + a->t);
	av = LD(t, float, a->a, row + y + a->t);
	OPS(t, PROG_OP_FP, 1);
	ST(t, float, a->a, row + y + a->t, av - mv * pv);
	OPS(t, PROG_OP_INT, 1);
	OPS(t, PROG_OP_BRANCH, 1);
	if (y == 0) {
		float bt = LD(t, float, a->b, a->t);
		float bx = LD(t, float, a->b, x + 1 + a->t);

		mv = LD(t, float, a->m, row + y + a->t);
		OPS(t, PROG_OP_FP, 1);
		ST(t, float, a->b, x + 1 + a->t, bx - mv * bt);
	}
}

/* The reference: the same elimination, column by column, row by row. */
static void gauss_ref(float *m, float *a, float *b, uint32_t n)
{
	uint32_t t, i, j;

	for (t = 0; t + 1 < n; t++) {
		for (i = t + 1; i < n; i++)
			m[(size_t)i * n + t] = a[(size_t)i * n + t] /
					       a[(size_t)t * n + t];
		for (i = t + 1; i < n; i++) {
			float mv = m[(size_t)i * n + t];

			for (j = t; j < n; j++)
				a[(size_t)i * n + j] = a[(size_t)i * n + j] -
					mv * a[(size_t)t * n + j];
			b[i] = b[i] - mv * b[t];
		}
	}
}

/* BackSub: x from the upper triangle, the last row first. */
static void gauss_backsub(const float *a, const float *b, float *x,
			  uint32_t n)
{
	uint32_t i, j;

	for (i = n; i-- > 0;) {
		float v = b[i];

		for (j = i + 1; j < n; j++)
			v = v - a[(size_t)i * n + j] * x[j];
		x[i] = v / a[(size_t)i * n + i];
	}
}

static int gauss_run(struct simt_gpu *gpu, uint64_t size, uint64_t seed,
		     char *err, size_t errlen)
{
	const char *app = "gauss";
	const uint32_t n = (uint32_t)size;
	const uint64_t bytes = size * size * sizeof(float);
	float *a = NULL, *b = NULL, *m = NULL, *ga = NULL, *gb = NULL;
	float *x = NULL, *gx = NULL;
	struct gauss_args args = { .n = n };
	uint32_t i, j;
	int ret;

	(void)seed;
	ret = app_size_range(size, 2, GAUSS_MAX, "N (an N x N system)", app,
			     err, errlen);
	if (ret)
		return ret;
	a = malloc(bytes);
	m = calloc((size_t)n * n, sizeof(float));
	ga = malloc(bytes);
	b = malloc(n * sizeof(float));
	gb = malloc(n * sizeof(float));
	x = malloc(n * sizeof(float));
	gx = malloc(n * sizeof(float));
	ret = -ENOMEM;
	if (!a || !m || !ga || !b || !gb || !x || !gx) {
		app_err(err, errlen, app, "out of memory");
		goto out;
	}
	for (i = 0; i < n; i++) {
		for (j = 0; j < n; j++)
			a[(size_t)i * n + j] = 10.0f *
				expf(-0.01f * (float)(i > j ? i - j : j - i));
		b[i] = 1.0f;
	}

	ret = app_alloc(gpu, bytes, "m_cuda", &args.m, app, err, errlen);
	if (!ret)
		ret = app_alloc(gpu, bytes, "a_cuda", &args.a, app, err,
				errlen);
	if (!ret)
		ret = app_alloc(gpu, n * sizeof(float), "b_cuda", &args.b, app,
				err, errlen);
	if (ret)
		goto out;
	simt_h2d(gpu, args.m, m, bytes);
	simt_h2d(gpu, args.a, a, bytes);
	simt_h2d(gpu, args.b, b, n * sizeof(float));
	for (args.t = 0; args.t + 1 < n; args.t++) {
		ret = app_launch(gpu, "Fan1", fan1_kernel,
				 DIM3(app_blocks(n, GAUSS_FAN1_BLOCK), 1, 1),
				 DIM3(GAUSS_FAN1_BLOCK, 1, 1), 0, &args, app,
				 err, errlen);
		if (!ret)
			ret = app_launch(gpu, "Fan2", fan2_kernel,
					 DIM3(app_blocks(n, GAUSS_FAN2_BLOCK),
					      app_blocks(n, GAUSS_FAN2_BLOCK),
					      1),
					 DIM3(GAUSS_FAN2_BLOCK,
					      GAUSS_FAN2_BLOCK, 1),
					 0, &args, app, err, errlen);
		if (ret)
			goto out;
	}
	simt_d2h(gpu, m, args.m, bytes);
	simt_d2h(gpu, ga, args.a, bytes);
	simt_d2h(gpu, gb, args.b, n * sizeof(float));
	app_test_perturb(ga, sizeof(float), (size_t)n * n);
	gauss_backsub(ga, gb, gx, n);

	memset(m, 0, bytes);
	gauss_ref(m, a, b, n);
	gauss_backsub(a, b, x, n);
	ret = app_check_f32(ga, a, (size_t)n * n, APP_FLOAT_TOLERANCE, app,
			    "a", err, errlen);
	if (!ret)
		ret = app_check_f32(gb, b, n, APP_FLOAT_TOLERANCE, app, "b",
				    err, errlen);
	if (!ret)
		ret = app_check_f32(gx, x, n, APP_FLOAT_TOLERANCE, app,
				    "finalVec", err, errlen);
out:
	free(a);
	free(b);
	free(m);
	free(ga);
	free(gb);
	free(x);
	free(gx);
	return ret;
}

const struct app_desc app_gauss = {
	.name = "gauss",
	.suite = "Rodinia (gaussian)",
	.summary = "Gaussian elimination without pivoting: Fan1 (the "
		   "multipliers, blocks of 512) and Fan2 (the row updates, "
		   "4 x 4 blocks) a column, back-substitution on the host",
	.input = "size = N: Rodinia's generated N x N system, a[i][j] = "
		 "10 exp(-0.01 |i - j|), b all ones (the seed changes "
		 "nothing). Large: the paper sizes data at 10x the GPU's "
		 "memory (640 MiB for the cxl preset's 64 MiB); Fan2's N^3 "
		 "/ 16 warps bound it to N = 256",
	.small_size = 48,
	.large_size = 256,
	.paper_sizes = "CPElide Table II: 256x256 = size 256 (--large); "
		       "CXL-GPU: no input given, data sized to 10x the GPU's "
		       "memory (640 MiB for the cxl preset's 64 MiB) = "
		       "--large, N = 256 (Fan2's N^3 / 16 warps bound it)",
	.kernels = "Fan1, Fan2",
	.run = gauss_run,
};
