// SPDX-License-Identifier: GPL-2.0
/*
 * conv3 (CXL-GPU's workload table): PolyBench/GPU's 3DConvolution, B =
 * a 3 x 3 x 3 stencil of A with PolyBench's nine coefficients over 15
 * of the 27 neighbours (the suite's own selection, with the (i - 1, j -
 * 1, k - 1) and (i + 1, j - 1, k - 1) terms repeated under three
 * coefficients each), on the interior of an N x N x N float grid. The
 * host launches the kernel once per plane i = 1 .. N - 2; the kernel's
 * 2-D grid covers (k, j) with blocks of 32 x 8 (DIM_THREAD_BLOCK_X/Y),
 * so a warp reads 32 consecutive k: coalesced.
 */
#include <errno.h>
#include <stdlib.h>

#include "app_util.h"
#include "apps.h"

#define CV_BX		32
#define CV_BY		8
#define CV_MIN		3
#define CV_MAX		1024

/* PolyBench's coefficients. */
#define C11	(2.0f)
#define C21	(5.0f)
#define C31	(-8.0f)
#define C12	(-3.0f)
#define C22	(6.0f)
#define C32	(-9.0f)
#define C13	(4.0f)
#define C23	(7.0f)
#define C33	(10.0f)

struct cv_args {
	uint64_t a, b;
	int32_t n, i;
};

/* A at (i + di, j + dj, k + dk) as the kernel or the reference reads it. */
#define CV_SUM(A)							\
	(C11 * A(-1, -1, -1) + C13 * A(1, -1, -1) +			\
	 C21 * A(-1, -1, -1) + C23 * A(1, -1, -1) +			\
	 C31 * A(-1, -1, -1) + C33 * A(1, -1, -1) +			\
	 C12 * A(0, -1, 0) + C22 * A(0, 0, 0) + C32 * A(0, 1, 0) +	\
	 C11 * A(-1, -1, 1) + C13 * A(1, -1, 1) +			\
	 C21 * A(-1, 0, 1) + C23 * A(1, 0, 1) +			\
	 C31 * A(-1, 1, 1) + C33 * A(1, 1, 1))

/*
 * OPS: k and j (INT 2), the six bounds tests (INT 6, BRANCH 1), B's
 * index (INT 1) and the 15 terms (FP 15: a multiply and 14 FFMAs).
 */
static void conv3_kernel(struct simt_thread *t, const void *p)
{
	const struct cv_args *a = p;
	struct simt_dim3 b = simt_block_idx(t), l = simt_thread_idx(t);
	int32_t k = (int32_t)(b.x * CV_BX + l.x);
	int32_t j = (int32_t)(b.y * CV_BY + l.y);
	const int32_t n = a->n, i = a->i;
	float v;

	OPS(t, PROG_OP_INT, 8);
	OPS(t, PROG_OP_BRANCH, 1);
	if (!(i < n - 1 && j < n - 1 && k < n - 1 && i > 0 && j > 0 && k > 0))
		return;
#define CV_LD(di, dj, dk)						\
	LD(t, float, a->a, (uint64_t)(i + (di)) * n * n +		\
	   (uint64_t)(j + (dj)) * n + k + (dk))
	v = CV_SUM(CV_LD);
#undef CV_LD
	OPS(t, PROG_OP_INT, 1);
	OPS(t, PROG_OP_FP, 15);
	ST(t, float, a->b, (uint64_t)i * n * n + (uint64_t)j * n + k, v);
}

static void conv3_ref(const float *a, float *b, int32_t n)
{
	int32_t i, j, k;

	for (i = 1; i < n - 1; i++)
		for (j = 1; j < n - 1; j++)
			for (k = 1; k < n - 1; k++) {
#define CV_AT(di, dj, dk)						\
	a[(size_t)(i + (di)) * n * n + (size_t)(j + (dj)) * n + k + (dk)]
				b[(size_t)i * n * n + (size_t)j * n + k] =
					CV_SUM(CV_AT);
#undef CV_AT
			}
}

static int conv3_run(struct simt_gpu *gpu, uint64_t size, uint64_t seed,
		     char *err, size_t errlen)
{
	const char *app = "conv3";
	const int32_t n = (int32_t)size;
	const size_t count = (size_t)size * size * size;
	const uint64_t bytes = count * sizeof(float);
	float *a = NULL, *got = NULL, *want = NULL;
	struct cv_args args = { .n = n };
	struct app_rng rng;
	int ret;

	ret = app_size_range(size, CV_MIN, CV_MAX, "N (an N x N x N grid)",
			     app, err, errlen);
	if (ret)
		return ret;
	a = malloc(bytes);
	got = malloc(bytes);
	want = calloc(count, sizeof(float));
	ret = -ENOMEM;
	if (!a || !got || !want) {
		app_err(err, errlen, app, "out of memory");
		goto out;
	}
	app_rng_init(&rng, seed, 44);
	app_rng_fill_float(&rng, a, count, 1.0f);

	ret = app_alloc(gpu, bytes, "A_gpu", &args.a, app, err, errlen);
	if (!ret)
		ret = app_alloc(gpu, bytes, "B_gpu", &args.b, app, err,
				errlen);
	if (ret)
		goto out;
	simt_h2d(gpu, args.a, a, bytes);
	for (args.i = 1; args.i < n - 1; args.i++) {
		ret = app_launch(gpu, "convolution3D_kernel", conv3_kernel,
				 DIM3(app_blocks(size, CV_BX),
				      app_blocks(size, CV_BY), 1),
				 DIM3(CV_BX, CV_BY, 1), 0, &args, app, err,
				 errlen);
		if (ret)
			goto out;
	}
	simt_d2h(gpu, got, args.b, bytes);
	app_test_perturb(got, sizeof(float), count);

	conv3_ref(a, want, n);
	ret = app_check_f32(got, want, count, APP_FLOAT_TOLERANCE, app, "B",
			    err, errlen);
out:
	free(a);
	free(got);
	free(want);
	return ret;
}

const struct app_desc app_conv3 = {
	.name = "conv3",
	.suite = "PolyBench/GPU (3DConvolution)",
	.summary = "3-D convolution of a grid's interior with PolyBench's 15 "
		   "weighted neighbours, a launch a plane, 32 x 8 blocks over "
		   "the plane",
	.input = "size = N: an N x N x N float grid A uniform in [0, 1) from "
		 "the seed (the values do not change the program; "
		 "PolyBench/GPU's standard N is 256). Large: N = 128, A and "
		 "B 8 MiB each, over 10x the cxl preset's 1 MiB LLC: the "
		 "paper's 10x the GPU's memory (640 MiB for the preset's 64 "
		 "MiB) is beyond what the executor records",
	.small_size = 32,
	.large_size = 128,
	.paper_sizes = "CXL-GPU: no input given, data sized to 10x the GPU's "
		       "memory (640 MiB for the cxl preset's 64 MiB) = "
		       "--large, N = 128 (A and B 8 MiB each)",
	.kernels = "convolution3D_kernel",
	.run = conv3_run,
};
