// SPDX-License-Identifier: GPL-2.0
/*
 * The AMD APP SDK's FastWalshTransform: the in-place Walsh-Hadamard
 * transform of N floats. The host launches one butterfly kernel per
 * stage, step = 1, 2, 4 .. N / 2 (log2(N) launches), each over N / 2
 * work-items in groups of 256 (the SDK's local size). Work-item tid
 * takes the pair (pair, pair + step) with pair = 2 step (tid / step) +
 * tid % step and writes their sum and difference back. Early stages read
 * neighbouring words; late ones pair words N / 2 apart.
 */
#include <errno.h>
#include <stdlib.h>

#include "app_util.h"
#include "apps.h"

#define FWT_BLOCK	256
#define FWT_MIN		512	/* one full group */
#define FWT_MAX		(1ULL << 26)

struct fwt_args {
	uint64_t data;
	uint32_t step;
};

/*
 * OPS: the global id (INT 1); tid / step by a run-time divisor: the
 * reciprocal (SFU 1) and its integer refinement (INT 8), the remainder
 * from the quotient (INT 1); 2 step (INT 1), pair (IMAD, INT 1), match
 * (INT 1); the sum and the difference (FP 2). N / 2 work-items exactly:
 * the SDK's kernel has no bounds test.
 */
static void fwt_kernel(struct simt_thread *t, const void *p)
{
	const struct fwt_args *a = p;
	uint32_t tid = (uint32_t)simt_global_x(t);
	uint32_t group = tid % a->step;
	uint32_t pair = 2 * a->step * (tid / a->step) + group;
	uint32_t match = pair + a->step;
	float t1, t2;

	OPS(t, PROG_OP_INT, 1);
	OPS(t, PROG_OP_SFU, 1);
	OPS(t, PROG_OP_INT, 12);
	t1 = LD(t, float, a->data, pair);
	t2 = LD(t, float, a->data, match);
	OPS(t, PROG_OP_FP, 2);
	ST(t, float, a->data, pair, t1 + t2);
	ST(t, float, a->data, match, t1 - t2);
}

/* The SDK's CPU reference, the same butterflies stage by stage. */
static void fwt_ref(float *v, uint64_t n)
{
	uint64_t step, group, pair;

	for (step = 1; step < n; step <<= 1)
		for (group = 0; group < step; group++)
			for (pair = group; pair < n; pair += 2 * step) {
				float t1 = v[pair], t2 = v[pair + step];

				v[pair] = t1 + t2;
				v[pair + step] = t1 - t2;
			}
}

static int fwt_run(struct simt_gpu *gpu, uint64_t size, uint64_t seed,
		   char *err, size_t errlen)
{
	const char *app = "fastwalshtransform";
	const uint64_t bytes = size * sizeof(float);
	float *in = NULL, *got = NULL;
	struct fwt_args args;
	struct app_rng rng;
	uint64_t step;
	int ret;

	ret = app_size_range(size, FWT_MIN, FWT_MAX, "N (floats)", app, err,
			     errlen);
	if (ret)
		return ret;
	if (size & (size - 1)) {
		app_err(err, errlen, app,
			"size %llu: N must be a power of two",
			(unsigned long long)size);
		return -EINVAL;
	}
	in = malloc(bytes);
	got = malloc(bytes);
	ret = -ENOMEM;
	if (!in || !got) {
		app_err(err, errlen, app, "out of memory");
		goto out;
	}
	/* The SDK fills the input with random floats in [0, 255]. */
	app_rng_init(&rng, seed, 40);
	app_rng_fill_float(&rng, in, size, 255.0f);

	ret = app_alloc(gpu, bytes, "input", &args.data, app, err, errlen);
	if (ret)
		goto out;
	simt_h2d(gpu, args.data, in, bytes);
	for (step = 1; step < size; step <<= 1) {
		args.step = (uint32_t)step;
		ret = app_launch(gpu, "fastWalshTransform", fwt_kernel,
				 DIM3(app_blocks(size / 2, FWT_BLOCK), 1, 1),
				 DIM3(FWT_BLOCK, 1, 1), 0, &args, app, err,
				 errlen);
		if (ret)
			goto out;
	}
	simt_d2h(gpu, got, args.data, bytes);
	app_test_perturb(got, sizeof(float), size);

	fwt_ref(in, size);
	/*
	 * The same adds and subtracts in the same order, no multiplies to
	 * contract: bit for bit (the differences may cancel, so no
	 * relative bound would hold otherwise).
	 */
	ret = app_check_f32(got, in, size, 0.0f, app, "input", err, errlen);
out:
	free(in);
	free(got);
	return ret;
}

const struct app_desc app_fastwalshtransform = {
	.name = "fastwalshtransform",
	.suite = "AMD APP SDK (FastWalshTransform)",
	.summary = "in-place Walsh-Hadamard transform: log2(N) butterfly "
		   "launches (step 1 .. N / 2) of N / 2 work-items, groups of "
		   "256",
	.input = "size = N: floats (a power of two, at least 512) uniform "
		 "in [0, 255) from the seed (the values do not change the "
		 "program; the SDK's default is 1024)",
	.small_size = 4096,
	.large_size = 1 << 20,
	.paper_sizes = "Barre Table I (fwf, MPKI 2.27): input not given",
	.kernels = "fastWalshTransform",
	.run = fwt_run,
};
