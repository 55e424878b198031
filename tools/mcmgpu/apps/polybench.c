// SPDX-License-Identifier: GPL-2.0
/*
 * PolyBench/GPU's atax, bicg and gesummv: matrix-vector products over an
 * N x N row-major float matrix, one thread a row or a column in blocks
 * of 256 x 1 (PolyBench/GPU's DIM_THREAD_BLOCK_X/Y). As PolyBench/GPU
 * writes them, the kernels accumulate in the output array in global
 * memory (tmp[i] += A[i][j] * x[j]: a load and a store an iteration, as
 * the compiler must emit them when the arrays may alias), and the
 * outputs are copied in zeroed beforehand.
 *
 * A thread on a row (atax kernel 1, bicg kernel 2, gesummv) reads its
 * row: 32 lanes a row apart, uncoalesced. A thread on a column (atax
 * kernel 2, bicg kernel 1) reads a row's consecutive words: coalesced.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "app_util.h"
#include "apps.h"

#define PB_BLOCK	256
#define PB_MIN		1
#define PB_MAX		16384	/* a 1 GiB matrix */
/* PolyBench's gesummv constants. */
#define GESUMMV_ALPHA	43532.0f
#define GESUMMV_BETA	12313.0f

struct pb_args {
	uint64_t a, b, v, out, tmp;
	uint32_t n;
	bool zero_first;	/* out[k] = 0 before the loop (bicg) */
};

/*
 * out[i] += A[i][j] * v[j] over j, thread i (atax 1, bicg 2). OPS: the
 * index and i < n (INT 2, BRANCH 1); an iteration: one FFMA (FP 1), the
 * loop's add and compare (INT 2) and its back edge (BRANCH 1).
 */
static void pb_row_kernel(struct simt_thread *t, const void *p)
{
	const struct pb_args *a = p;
	uint64_t i = simt_global_x(t);
	uint32_t j;

	OPS(t, PROG_OP_INT, 2);
	OPS(t, PROG_OP_BRANCH, 1);
	if (i >= a->n)
		return;
	if (a->zero_first)
		ST(t, float, a->out, i, 0.0f);
	for (j = 0; j < a->n; j++) {
		float m = LD(t, float, a->a, i * a->n + j);
		float v = LD(t, float, a->v, j);
		float acc = LD(t, float, a->out, i);

		OPS(t, PROG_OP_FP, 1);
		ST(t, float, a->out, i, acc + m * v);
		OPS(t, PROG_OP_INT, 2);
		OPS(t, PROG_OP_BRANCH, 1);
	}
}

/*
 * out[j] += A[i][j] * v[i] over i, thread j (atax 2, bicg 1). OPS as
 * pb_row_kernel's.
 */
static void pb_col_kernel(struct simt_thread *t, const void *p)
{
	const struct pb_args *a = p;
	uint64_t j = simt_global_x(t);
	uint32_t i;

	OPS(t, PROG_OP_INT, 2);
	OPS(t, PROG_OP_BRANCH, 1);
	if (j >= a->n)
		return;
	if (a->zero_first)
		ST(t, float, a->out, j, 0.0f);
	for (i = 0; i < a->n; i++) {
		float m = LD(t, float, a->a, (uint64_t)i * a->n + j);
		float v = LD(t, float, a->v, i);
		float acc = LD(t, float, a->out, j);

		OPS(t, PROG_OP_FP, 1);
		ST(t, float, a->out, j, acc + m * v);
		OPS(t, PROG_OP_INT, 2);
		OPS(t, PROG_OP_BRANCH, 1);
	}
}

/*
 * gesummv: tmp[i] += A[i][j] * x[j]; y[i] += B[i][j] * x[j] over j, then
 * y[i] = alpha * tmp[i] + beta * y[i]. x[j] is loaded again after the
 * store to tmp[i] (they may alias). OPS: the index and bounds (INT 2,
 * BRANCH 1); an iteration two FFMAs (FP 2), the loop (INT 2, BRANCH 1);
 * the end a multiply and an FFMA (FP 2).
 */
static void gesummv_kernel(struct simt_thread *t, const void *p)
{
	const struct pb_args *a = p;
	uint64_t i = simt_global_x(t);
	float tv, yv;
	uint32_t j;

	OPS(t, PROG_OP_INT, 2);
	OPS(t, PROG_OP_BRANCH, 1);
	if (i >= a->n)
		return;
	for (j = 0; j < a->n; j++) {
		float m = LD(t, float, a->a, i * a->n + j);
		float x = LD(t, float, a->v, j);
		float acc = LD(t, float, a->tmp, i);

		OPS(t, PROG_OP_FP, 1);
		ST(t, float, a->tmp, i, acc + m * x);
		m = LD(t, float, a->b, i * a->n + j);
		x = LD(t, float, a->v, j);
		acc = LD(t, float, a->out, i);
		OPS(t, PROG_OP_FP, 1);
		ST(t, float, a->out, i, acc + m * x);
		OPS(t, PROG_OP_INT, 2);
		OPS(t, PROG_OP_BRANCH, 1);
	}
	tv = LD(t, float, a->tmp, i);
	yv = LD(t, float, a->out, i);
	OPS(t, PROG_OP_FP, 2);
	ST(t, float, a->out, i, GESUMMV_ALPHA * tv + GESUMMV_BETA * yv);
}

/* The references, in the kernels' order of operations. */
static void pb_row_ref(const float *m, const float *v, float *out, uint32_t n)
{
	uint32_t i, j;

	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++)
			out[i] = out[i] + m[(size_t)i * n + j] * v[j];
}

static void pb_col_ref(const float *m, const float *v, float *out, uint32_t n)
{
	uint32_t i, j;

	for (j = 0; j < n; j++)
		for (i = 0; i < n; i++)
			out[j] = out[j] + m[(size_t)i * n + j] * v[i];
}

enum pb_app { PB_ATAX, PB_BICG, PB_GESUMMV };

static const char *const pb_names[] = { "atax", "bicg", "gesummv" };

/* The host side of all three: inputs, copies, launches and checks. */
static int pb_run(struct simt_gpu *gpu, uint64_t size, uint64_t seed,
		  enum pb_app which, char *err, size_t errlen)
{
	const char *app = pb_names[which];
	const uint32_t n = (uint32_t)size;
	const struct simt_dim3 block = DIM3(PB_BLOCK, 1, 1);
	const struct simt_dim3 grid = DIM3(app_blocks(n, PB_BLOCK), 1, 1);
	float *m = NULL, *m2 = NULL, *v = NULL, *v2 = NULL;
	float *ref = NULL, *ref2 = NULL, *got = NULL, *got2 = NULL;
	uint64_t d_m, d_m2 = 0, d_v, d_v2 = 0, d_o, d_o2;
	struct pb_args args;
	struct app_rng rng;
	uint32_t i;
	int ret;

	ret = app_size_range(size, PB_MIN, PB_MAX, "N (an N x N matrix)",
			     app, err, errlen);
	if (ret)
		return ret;
	m = malloc((size_t)n * n * sizeof(float));
	if (which == PB_GESUMMV)
		m2 = malloc((size_t)n * n * sizeof(float));
	v = malloc(n * sizeof(float));
	v2 = malloc(n * sizeof(float));
	ref = calloc(n, sizeof(float));
	ref2 = calloc(n, sizeof(float));
	got = malloc(n * sizeof(float));
	got2 = malloc(n * sizeof(float));
	ret = -ENOMEM;
	if (!m || (which == PB_GESUMMV && !m2) || !v || !v2 || !ref ||
	    !ref2 || !got || !got2) {
		app_err(err, errlen, app, "out of memory");
		goto out;
	}
	app_rng_init(&rng, seed, 20);
	app_rng_fill_float(&rng, m, (size_t)n * n, 1.0f);
	if (m2)
		app_rng_fill_float(&rng, m2, (size_t)n * n, 1.0f);
	app_rng_fill_float(&rng, v, n, 1.0f);
	app_rng_fill_float(&rng, v2, n, 1.0f);

	/* Objects named as PolyBench/GPU names its arrays. */
	ret = app_alloc(gpu, (uint64_t)n * n * sizeof(float), "A", &d_m, app,
			err, errlen);
	if (!ret && m2)
		ret = app_alloc(gpu, (uint64_t)n * n * sizeof(float), "B",
				&d_m2, app, err, errlen);
	if (!ret)
		ret = app_alloc(gpu, n * sizeof(float),
				which == PB_BICG ? "r" : "x", &d_v, app, err,
				errlen);
	if (!ret && which == PB_BICG)
		ret = app_alloc(gpu, n * sizeof(float), "p", &d_v2, app, err,
				errlen);
	if (!ret)
		ret = app_alloc(gpu, n * sizeof(float),
				which == PB_BICG ? "s" : "y", &d_o, app, err,
				errlen);
	if (!ret)
		ret = app_alloc(gpu, n * sizeof(float),
				which == PB_BICG ? "q" : "tmp", &d_o2, app,
				err, errlen);
	if (ret)
		goto out;
	/* got holds zeros here: the outputs go in zeroed. */
	memset(got, 0, n * sizeof(float));
	simt_h2d(gpu, d_m, m, (uint64_t)n * n * sizeof(float));
	if (m2)
		simt_h2d(gpu, d_m2, m2, (uint64_t)n * n * sizeof(float));
	simt_h2d(gpu, d_v, v, n * sizeof(float));
	if (d_v2)
		simt_h2d(gpu, d_v2, v2, n * sizeof(float));
	simt_h2d(gpu, d_o, got, n * sizeof(float));
	simt_h2d(gpu, d_o2, got, n * sizeof(float));

	memset(&args, 0, sizeof(args));
	args.n = n;
	args.a = d_m;
	switch (which) {
	case PB_ATAX:
		/* tmp = A x; y = A^T tmp. */
		args.v = d_v;
		args.out = d_o2;
		ret = app_launch(gpu, "atax_kernel1", pb_row_kernel, grid,
				 block, 0, &args, app, err, errlen);
		if (ret)
			goto out;
		args.v = d_o2;
		args.out = d_o;
		ret = app_launch(gpu, "atax_kernel2", pb_col_kernel, grid,
				 block, 0, &args, app, err, errlen);
		if (ret)
			goto out;
		simt_d2h(gpu, got, d_o, n * sizeof(float));
		app_test_perturb(got, sizeof(float), n);
		pb_row_ref(m, v, ref2, n);
		pb_col_ref(m, ref2, ref, n);
		ret = app_check_f32(got, ref, n, APP_FLOAT_TOLERANCE, app,
				    "y", err, errlen);
		break;
	case PB_BICG:
		/* s = A^T r; q = A p. */
		args.zero_first = true;
		args.v = d_v;
		args.out = d_o;
		ret = app_launch(gpu, "bicg_kernel1", pb_col_kernel, grid,
				 block, 0, &args, app, err, errlen);
		if (ret)
			goto out;
		args.v = d_v2;
		args.out = d_o2;
		ret = app_launch(gpu, "bicg_kernel2", pb_row_kernel, grid,
				 block, 0, &args, app, err, errlen);
		if (ret)
			goto out;
		simt_d2h(gpu, got, d_o, n * sizeof(float));
		simt_d2h(gpu, got2, d_o2, n * sizeof(float));
		app_test_perturb(got2, sizeof(float), n);
		pb_col_ref(m, v, ref, n);
		pb_row_ref(m, v2, ref2, n);
		ret = app_check_f32(got, ref, n, APP_FLOAT_TOLERANCE, app,
				    "s", err, errlen);
		if (!ret)
			ret = app_check_f32(got2, ref2, n,
					    APP_FLOAT_TOLERANCE, app, "q",
					    err, errlen);
		break;
	case PB_GESUMMV:
		args.b = d_m2;
		args.v = d_v;
		args.out = d_o;
		args.tmp = d_o2;
		ret = app_launch(gpu, "gesummv_kernel", gesummv_kernel, grid,
				 block, 0, &args, app, err, errlen);
		if (ret)
			goto out;
		simt_d2h(gpu, got, d_o, n * sizeof(float));
		app_test_perturb(got, sizeof(float), n);
		/* ref2 = tmp, ref = y, accumulated as the kernel does. */
		pb_row_ref(m, v, ref2, n);
		pb_row_ref(m2, v, ref, n);
		for (i = 0; i < n; i++)
			ref[i] = GESUMMV_ALPHA * ref2[i] +
				 GESUMMV_BETA * ref[i];
		ret = app_check_f32(got, ref, n, APP_FLOAT_TOLERANCE, app,
				    "y", err, errlen);
		break;
	}
out:
	free(m);
	free(m2);
	free(v);
	free(v2);
	free(ref);
	free(ref2);
	free(got);
	free(got2);
	return ret;
}

static int atax_run(struct simt_gpu *gpu, uint64_t size, uint64_t seed,
		    char *err, size_t errlen)
{
	return pb_run(gpu, size, seed, PB_ATAX, err, errlen);
}

static int bicg_run(struct simt_gpu *gpu, uint64_t size, uint64_t seed,
		    char *err, size_t errlen)
{
	return pb_run(gpu, size, seed, PB_BICG, err, errlen);
}

static int gesummv_run(struct simt_gpu *gpu, uint64_t size, uint64_t seed,
		       char *err, size_t errlen)
{
	return pb_run(gpu, size, seed, PB_GESUMMV, err, errlen);
}

#define PB_INPUT(what)							\
	"size = N: an N x N float matrix " what " uniform in [0, 1) "	\
	"from the seed (the values do not change the program; "	\
	"PolyBench/GPU's standard size is 4096)"

const struct app_desc app_atax = {
	.name = "atax",
	.suite = "PolyBench/GPU",
	.summary = "y = A^T (A x): kernel 1 a thread a row (tmp), kernel 2 a "
		   "thread a column (y), blocks of 256",
	.input = PB_INPUT("A and the vector x"),
	.small_size = 128,
	.large_size = 2048,
	.paper_sizes = "Barre Table I (atax, MPKI 34.28): input not given",
	.kernels = "atax_kernel1, atax_kernel2",
	.run = atax_run,
};

const struct app_desc app_bicg = {
	.name = "bicg",
	.suite = "PolyBench/GPU",
	.summary = "BiCG's kernels s = A^T r (a thread a column) and q = A p "
		   "(a thread a row), blocks of 256",
	.input = PB_INPUT("A and the vectors r and p"),
	.small_size = 128,
	.large_size = 2048,
	.paper_sizes = "Barre Table I (bigc, MPKI 2128.63): input not given",
	.kernels = "bicg_kernel1, bicg_kernel2",
	.run = bicg_run,
};

const struct app_desc app_gesummv = {
	.name = "gesummv",
	.suite = "PolyBench/GPU",
	.summary = "y = 43532 A x + 12313 B x, one kernel, a thread a row, "
		   "blocks of 256",
	.input = PB_INPUT("A and B and the vector x"),
	.small_size = 128,
	.large_size = 2048,
	.paper_sizes = "Barre Table I (gesm, MPKI 4762.86): input not given",
	.kernels = "gesummv_kernel",
	.run = gesummv_run,
};
