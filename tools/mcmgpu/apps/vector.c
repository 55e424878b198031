// SPDX-License-Identifier: GPL-2.0
/*
 * vadd (the CUDA samples' vectorAdd: c = a + b) and saxpy (BLAS level 1:
 * y = alpha * x + y), one thread an element in blocks of 256: the
 * streaming kernels every GPU study starts from.
 */
#include <errno.h>
#include <stdlib.h>

#include "app_util.h"
#include "apps.h"

#define VEC_BLOCK	256
#define VEC_MAX		(1ULL << 28)	/* 1 GiB an array */
#define SAXPY_ALPHA	2.5f

struct vec_args {
	uint64_t x, y, out;
	uint64_t n;
	float alpha;
};

/*
 * c[i] = a[i] + b[i]. OPS: the global index (INT 1), i < n (INT 1 and
 * BRANCH 1), the add (FP 1).
 */
static void vadd_kernel(struct simt_thread *t, const void *p)
{
	const struct vec_args *a = p;
	uint64_t i = simt_global_x(t);
	float x, y;

	OPS(t, PROG_OP_INT, 2);
	OPS(t, PROG_OP_BRANCH, 1);
	if (i >= a->n)
		return;
	x = LD(t, float, a->x, i);
	y = LD(t, float, a->y, i);
	OPS(t, PROG_OP_FP, 1);
	ST(t, float, a->out, i, x + y);
}

/*
 * y[i] = alpha * x[i] + y[i]. OPS: the global index (INT 1), i < n (INT
 * 1 and BRANCH 1), one FFMA (FP 1).
 */
static void saxpy_kernel(struct simt_thread *t, const void *p)
{
	const struct vec_args *a = p;
	uint64_t i = simt_global_x(t);
	float x, y;

	OPS(t, PROG_OP_INT, 2);
	OPS(t, PROG_OP_BRANCH, 1);
	if (i >= a->n)
		return;
	x = LD(t, float, a->x, i);
	y = LD(t, float, a->y, i);
	OPS(t, PROG_OP_FP, 1);
	ST(t, float, a->y, i, a->alpha * x + y);
}

/* Both: x and y uniform in [0, 1) from the seed; saxpy updates y. */
static int vec_run(struct simt_gpu *gpu, uint64_t n, uint64_t seed,
		   bool saxpy, char *err, size_t errlen)
{
	const char *app = saxpy ? "saxpy" : "vadd";
	float *x, *y, *got, *want;
	struct vec_args args = { .n = n, .alpha = SAXPY_ALPHA };
	struct app_rng rng;
	uint64_t i;
	int ret;

	ret = app_size_range(n, 1, VEC_MAX, "the vector length", app, err,
			     errlen);
	if (ret)
		return ret;
	x = malloc(n * sizeof(*x));
	y = malloc(n * sizeof(*y));
	got = malloc(n * sizeof(*got));
	want = malloc(n * sizeof(*want));
	ret = -ENOMEM;
	if (!x || !y || !got || !want) {
		app_err(err, errlen, app, "out of memory");
		goto out;
	}
	app_rng_init(&rng, seed, 10);
	app_rng_fill_float(&rng, x, n, 1.0f);
	app_rng_fill_float(&rng, y, n, 1.0f);

	ret = app_alloc(gpu, n * sizeof(float), saxpy ? "x" : "a", &args.x,
			app, err, errlen);
	if (!ret)
		ret = app_alloc(gpu, n * sizeof(float), saxpy ? "y" : "b",
				&args.y, app, err, errlen);
	if (!ret && !saxpy)
		ret = app_alloc(gpu, n * sizeof(float), "c", &args.out, app,
				err, errlen);
	if (ret)
		goto out;
	simt_h2d(gpu, args.x, x, n * sizeof(float));
	simt_h2d(gpu, args.y, y, n * sizeof(float));
	ret = app_launch(gpu, saxpy ? "saxpy" : "vectorAdd",
			 saxpy ? saxpy_kernel : vadd_kernel,
			 DIM3(app_blocks(n, VEC_BLOCK), 1, 1),
			 DIM3(VEC_BLOCK, 1, 1), 0, &args, app, err, errlen);
	if (ret)
		goto out;
	simt_d2h(gpu, got, saxpy ? args.y : args.out, n * sizeof(float));
	app_test_perturb(got, sizeof(*got), n);

	for (i = 0; i < n; i++)
		want[i] = saxpy ? SAXPY_ALPHA * x[i] + y[i] : x[i] + y[i];
	ret = app_check_f32(got, want, n, APP_FLOAT_TOLERANCE, app,
			    saxpy ? "y" : "c", err, errlen);
out:
	free(x);
	free(y);
	free(got);
	free(want);
	return ret;
}

static int vadd_run(struct simt_gpu *gpu, uint64_t size, uint64_t seed,
		    char *err, size_t errlen)
{
	return vec_run(gpu, size, seed, false, err, errlen);
}

static int saxpy_run(struct simt_gpu *gpu, uint64_t size, uint64_t seed,
		     char *err, size_t errlen)
{
	return vec_run(gpu, size, seed, true, err, errlen);
}

const struct app_desc app_vadd = {
	.name = "vadd",
	.suite = "CUDA samples (vectorAdd)",
	.summary = "c = a + b, one thread an element, blocks of 256",
	.input = "size = elements (floats) a vector; a and b uniform in "
		 "[0, 1) from the seed (the values do not change the program)",
	.small_size = 4096,
	.large_size = 1 << 22,
	.paper_sizes = "CXL-GPU: no input given, data sized to 10x the GPU's "
		       "memory (640 MiB for the cxl preset's 64 MiB) = "
		       "--large, 4194304 floats a vector (16 MiB); ADSM Fig. "
		       "11: two vectors of 8 million elements (type not "
		       "given) = size 8000000",
	.kernels = "vectorAdd",
	.run = vadd_run,
};

const struct app_desc app_saxpy = {
	.name = "saxpy",
	.suite = "BLAS level 1 (saxpy)",
	.summary = "y = 2.5 x + y, one thread an element, blocks of 256",
	.input = "size = elements (floats) a vector; x and y uniform in "
		 "[0, 1) from the seed (the values do not change the program)",
	.small_size = 4096,
	.large_size = 1 << 22,
	.paper_sizes = "CXL-GPU: no input given, data sized to 10x the GPU's "
		       "memory (640 MiB for the cxl preset's 64 MiB) = "
		       "--large, 4194304 floats a vector (16 MiB)",
	.kernels = "saxpy",
	.run = saxpy_run,
};
