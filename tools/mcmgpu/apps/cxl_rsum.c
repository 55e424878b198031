// SPDX-License-Identifier: GPL-2.0
/*
 * rsum (CXL-GPU's workload table): the sum of a float vector by the
 * classic shared-memory tree reduction, as the CUDA samples' reduction
 * kernel 3 writes it: blocks of 256 threads, each thread adding two
 * elements a block apart as it loads them, then halving the active
 * threads with a barrier after each step (sequential addressing, no bank
 * conflicts); thread 0 writes the block's sum. The host launches the
 * same kernel on the partial sums (ping-ponging between two arrays, so
 * no block reads what another writes) until one value remains, and
 * copies it out.
 */
#include <errno.h>
#include <stdlib.h>

#include "app_util.h"
#include "apps.h"

#define RSUM_BLOCK	256
#define RSUM_SPAN	(2 * RSUM_BLOCK)	/* elements a block */
#define RSUM_MAX	(1ULL << 28)

struct rsum_args {
	uint64_t in, out;
	uint64_t n;
};

/*
 * OPS: the first index blockIdx * 512 + tid (INT 1); its bound (INT 1,
 * BRANCH 1), the second's index and bound (INT 2, BRANCH 1) and the add
 * (FP 1); a tree step: tid < s (INT 1, BRANCH 1), the add (FP 1) where
 * taken, the shift and the loop test (INT 2, BRANCH 1); the end: tid ==
 * 0 (INT 1, BRANCH 1).
 */
static void rsum_kernel(struct simt_thread *t, const void *p)
{
	const struct rsum_args *a = p;
	uint32_t tid = simt_thread_idx(t).x;
	uint64_t i = (uint64_t)simt_block_idx(t).x * RSUM_SPAN + tid;
	float sum = 0.0f;
	uint32_t s;

	OPS(t, PROG_OP_INT, 2);
	OPS(t, PROG_OP_BRANCH, 1);
	if (i < a->n)
		sum = LD(t, float, a->in, i);
	OPS(t, PROG_OP_INT, 2);
	OPS(t, PROG_OP_BRANCH, 1);
	if (i + RSUM_BLOCK < a->n) {
		float v = LD(t, float, a->in, i + RSUM_BLOCK);

		OPS(t, PROG_OP_FP, 1);
		sum = sum + v;
	}
	STS(t, float, tid, sum);
	SYNC(t);
	for (s = RSUM_BLOCK / 2; s > 0; s >>= 1) {
		OPS(t, PROG_OP_INT, 1);
		OPS(t, PROG_OP_BRANCH, 1);
		if (tid < s) {
			float lo = LDS(t, float, tid);
			float hi = LDS(t, float, tid + s);

			OPS(t, PROG_OP_FP, 1);
			STS(t, float, tid, lo + hi);
		}
		SYNC(t);
		OPS(t, PROG_OP_INT, 2);
		OPS(t, PROG_OP_BRANCH, 1);
	}
	OPS(t, PROG_OP_INT, 1);
	OPS(t, PROG_OP_BRANCH, 1);
	if (tid == 0)
		ST(t, float, a->out, simt_block_idx(t).x, LDS(t, float, 0));
}

/* One pass on the host, in the kernel's order: n values to blocks. */
static uint64_t rsum_ref_pass(const float *in, float *out, uint64_t n)
{
	uint64_t blocks = app_blocks(n, RSUM_SPAN), b;
	float part[RSUM_BLOCK];
	uint32_t tid, s;

	for (b = 0; b < blocks; b++) {
		for (tid = 0; tid < RSUM_BLOCK; tid++) {
			uint64_t i = b * RSUM_SPAN + tid;

			part[tid] = i < n ? in[i] : 0.0f;
			if (i + RSUM_BLOCK < n)
				part[tid] = part[tid] + in[i + RSUM_BLOCK];
		}
		for (s = RSUM_BLOCK / 2; s > 0; s >>= 1)
			for (tid = 0; tid < s; tid++)
				part[tid] = part[tid] + part[tid + s];
		out[b] = part[0];
	}
	return blocks;
}

static int rsum_run(struct simt_gpu *gpu, uint64_t size, uint64_t seed,
		    char *err, size_t errlen)
{
	const char *app = "rsum";
	uint64_t parts = app_blocks(size, RSUM_SPAN), n, d_in, d_part[2];
	float *in = NULL, *ref = NULL, got;
	struct rsum_args args;
	struct app_rng rng;
	unsigned int pass;
	int ret;

	ret = app_size_range(size, 1, RSUM_MAX, "the vector length", app,
			     err, errlen);
	if (ret)
		return ret;
	in = malloc(size * sizeof(*in));
	ref = malloc(size * sizeof(*ref));
	ret = -ENOMEM;
	if (!in || !ref) {
		app_err(err, errlen, app, "out of memory");
		goto out;
	}
	app_rng_init(&rng, seed, 40);
	app_rng_fill_float(&rng, in, size, 1.0f);

	ret = app_alloc(gpu, size * sizeof(float), "d_idata", &d_in, app, err,
			errlen);
	if (!ret)
		ret = app_alloc(gpu, parts * sizeof(float), "d_odata",
				&d_part[0], app, err, errlen);
	if (!ret)
		ret = app_alloc(gpu, app_blocks(parts, RSUM_SPAN) *
				sizeof(float), "d_odata2", &d_part[1], app,
				err, errlen);
	if (ret)
		goto out;
	simt_h2d(gpu, d_in, in, size * sizeof(float));
	args.in = d_in;
	args.n = size;
	for (pass = 0;; pass++) {
		args.out = d_part[pass & 1];
		ret = app_launch(gpu, "reduce3", rsum_kernel,
				 DIM3(app_blocks(args.n, RSUM_SPAN), 1, 1),
				 DIM3(RSUM_BLOCK, 1, 1),
				 RSUM_BLOCK * sizeof(float), &args, app, err,
				 errlen);
		if (ret)
			goto out;
		args.n = app_blocks(args.n, RSUM_SPAN);
		args.in = args.out;
		if (args.n == 1)
			break;
	}
	simt_d2h(gpu, &got, args.out, sizeof(float));
	app_test_perturb(&got, sizeof(got), 1);

	for (n = size; n > 1;)
		n = rsum_ref_pass(n == size ? in : ref, ref, n);
	if (size == 1)
		rsum_ref_pass(in, ref, 1);
	ret = app_check_f32(&got, ref, 1, APP_FLOAT_TOLERANCE, app, "sum",
			    err, errlen);
out:
	free(in);
	free(ref);
	return ret;
}

const struct app_desc app_rsum = {
	.name = "rsum",
	.suite = "CUDA samples (reduction, kernel 3)",
	.summary = "sum of a vector: a shared-memory tree a block of 256 "
		   "(512 elements), the same kernel again on the partial "
		   "sums until one remains",
	.input = "size = elements (floats), uniform in [0, 1) from the seed "
		 "(the values do not change the program). Large: the paper "
		 "sizes data at 10x the GPU's memory, 640 MiB for the cxl "
		 "preset's 64 MiB, more than the executor can record; we "
		 "keep the ratio to the level in front of memory instead: "
		 "16 MiB, over 10x the preset's 1 MiB LLC",
	.small_size = 1 << 16,
	.large_size = 1 << 22,
	.paper_sizes = "CXL-GPU: no input given, data sized to 10x the GPU's "
		       "memory (640 MiB for the cxl preset's 64 MiB) = "
		       "--large, 4194304 floats (16 MiB: over 10x the "
		       "preset's 1 MiB LLC instead)",
	.kernels = "reduce3",
	.run = rsum_run,
};
