// SPDX-License-Identifier: GPL-2.0
/*
 * square (CPElide's Table II; HIP-Examples' square as gem5-resources
 * carries it): C[i] = A[i] * A[i] by vector_square, a grid-stride loop
 * (offset blockIdx.x * blockDim.x + threadIdx.x, stride blockDim.x *
 * gridDim.x). Table II's arguments "524288 1 2 2048 256" give N = 524288
 * floats in 2048 blocks of 256 threads, one element a thread; we keep
 * that shape at every size (N / 256 blocks). HIP-Examples launches the
 * kernel once; the paper counts Square as iterative, so the host
 * launches it 50 times (the repetition docs/cpelide.md's sequence uses)
 * between writing A and reading C. A[i] = 1.618 + i as HIP-Examples
 * fills it.
 */
#include <errno.h>
#include <stdlib.h>

#include "app_util.h"
#include "apps.h"

#define SQ_BLOCK	256
#define SQ_ITERS	50
#define SQ_MAX		(1ULL << 26)	/* 256 MiB an array */

struct sq_args {
	uint64_t c, a;
	uint64_t n;
};

/*
 * OPS: the offset (INT 1) and stride (INT 1); an element: the loop's
 * test and branch (INT 1, BRANCH 1), the multiply (FP 1), the stride's
 * add (INT 1); the final test (INT 1, BRANCH 1).
 */
static void sq_kernel(struct simt_thread *t, const void *p)
{
	const struct sq_args *a = p;
	uint64_t i = simt_global_x(t);
	uint64_t stride = simt_global_threads_x(t);

	OPS(t, PROG_OP_INT, 2);
	for (; ; i += stride) {
		float x;

		OPS(t, PROG_OP_INT, 1);
		OPS(t, PROG_OP_BRANCH, 1);
		if (i >= a->n)
			break;
		x = LD(t, float, a->a, i);
		OPS(t, PROG_OP_FP, 1);
		ST(t, float, a->c, i, x * x);
		OPS(t, PROG_OP_INT, 1);
	}
}

static int sq_run(struct simt_gpu *gpu, uint64_t size, uint64_t seed,
		  char *err, size_t errlen)
{
	const char *app = "square";
	float *ha = NULL, *got = NULL, *want = NULL;
	uint64_t i, bytes = size * sizeof(float);
	struct sq_args args = { .n = size };
	unsigned int k;
	int ret;

	(void)seed;	/* HIP-Examples' input is fixed */
	ret = app_size_range(size, 1, SQ_MAX, "N (floats)", app, err, errlen);
	if (ret)
		return ret;
	ha = malloc(bytes);
	got = malloc(bytes);
	want = malloc(bytes);
	ret = -ENOMEM;
	if (!ha || !got || !want) {
		app_err(err, errlen, app, "out of memory");
		goto out;
	}
	for (i = 0; i < size; i++)
		ha[i] = 1.618f + (float)i;
	ret = app_alloc(gpu, bytes, "A_d", &args.a, app, err, errlen);
	if (!ret)
		ret = app_alloc(gpu, bytes, "C_d", &args.c, app, err, errlen);
	if (ret)
		goto out;
	simt_h2d(gpu, args.a, ha, bytes);
	for (k = 0; k < SQ_ITERS; k++) {
		ret = app_launch(gpu, "vector_square", sq_kernel,
				 DIM3(app_blocks(size, SQ_BLOCK), 1, 1),
				 DIM3(SQ_BLOCK, 1, 1), 0, &args, app, err,
				 errlen);
		if (ret)
			goto out;
	}
	simt_d2h(gpu, got, args.c, bytes);
	app_test_perturb(got, sizeof(*got), size);

	for (i = 0; i < size; i++)
		want[i] = ha[i] * ha[i];
	ret = app_check_f32(got, want, size, APP_FLOAT_TOLERANCE, app, "C",
			    err, errlen);
out:
	free(ha);
	free(got);
	free(want);
	return ret;
}

const struct app_desc app_square = {
	.name = "square",
	.suite = "HIP-Examples (square)",
	.summary = "C = A * A elementwise by a grid-stride kernel, one "
		   "element a thread in blocks of 256 (Table II's 2048 x "
		   "256), launched 50 times",
	.input = "size = N floats, A[i] = 1.618 + i as HIP-Examples fills "
		 "it (the seed changes nothing); N / 256 blocks of 256; 50 "
		 "launches (HIP-Examples launches once; the paper calls "
		 "Square iterative and gives no count). Large: the paper's "
		 "524288 (2048 blocks, 2 MiB an array)",
	.small_size = 4096,
	.large_size = 524288,
	.paper_sizes = "CPElide Table II: 524288 1 2 2048 256 = size 524288 "
		       "(--large; 2048 blocks of 256)",
	.kernels = "vector_square",
	.run = sq_run,
};
