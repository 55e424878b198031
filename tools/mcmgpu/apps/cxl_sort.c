// SPDX-License-Identifier: GPL-2.0
/*
 * sort (CXL-GPU's workload table): bitonic sort of 32-bit keys, as the
 * AMD APP SDK's BitonicSort runs it. The paper's table describes sort's
 * accesses as a binary tree ("Around": spatially local, not monotonic)
 * without naming its kernel; Vortex's OpenCL sort is not described in
 * the paper, so we take the sorting network whose compare distances
 * halve down a tree, the bitonic one. The host launches one kernel per
 * (stage, pass): for stage s = 0 .. log2(n) - 1 and pass p = 0 .. s,
 * n / 2 threads in blocks of 256, each comparing the pair 2^(s - p)
 * apart that it owns and swapping it into its block's direction
 * (ascending where thread / 2^s is even). The addresses do not depend
 * on the keys.
 */
#include <errno.h>
#include <stdlib.h>

#include "app_util.h"
#include "apps.h"

#define SORT_BLOCK	256
#define SORT_MIN	2
#define SORT_MAX	(1ULL << 28)

struct sort_args {
	uint64_t keys;
	uint32_t stage, pass;
};

/*
 * OPS: the index (INT 1), the pair distance, the left index (a
 * remainder, a quotient and an IMAD: the power of two makes them a
 * mask, a shift and an IMAD) and the right one (INT 5), the direction's
 * test (INT 2, BRANCH 1), the compare and two selects (INT 3), the
 * direction's select of the stores (BRANCH 1).
 */
static void bitonic_kernel(struct simt_thread *t, const void *p)
{
	const struct sort_args *a = p;
	uint64_t tid = simt_global_x(t);
	uint64_t dist = 1ULL << (a->stage - a->pass);
	uint64_t left = tid % dist + tid / dist * 2 * dist;
	uint64_t right = left + dist;
	uint32_t lv, rv, hi, lo;
	bool up = true;

	OPS(t, PROG_OP_INT, 6);
	lv = LD(t, uint32_t, a->keys, left);
	rv = LD(t, uint32_t, a->keys, right);
	OPS(t, PROG_OP_INT, 2);
	OPS(t, PROG_OP_BRANCH, 1);
	if ((tid >> a->stage) & 1)
		up = false;
	OPS(t, PROG_OP_INT, 3);
	hi = lv > rv ? lv : rv;
	lo = lv > rv ? rv : lv;
	OPS(t, PROG_OP_BRANCH, 1);
	if (up) {
		ST(t, uint32_t, a->keys, left, lo);
		ST(t, uint32_t, a->keys, right, hi);
	} else {
		ST(t, uint32_t, a->keys, left, hi);
		ST(t, uint32_t, a->keys, right, lo);
	}
}

static int sort_cmp(const void *x, const void *y)
{
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;

	return a < b ? -1 : a > b;
}

static int sort_run(struct simt_gpu *gpu, uint64_t size, uint64_t seed,
		    char *err, size_t errlen)
{
	const char *app = "sort";
	uint32_t *keys = NULL, *got = NULL, stages = 0;
	struct sort_args args;
	struct app_rng rng;
	uint64_t d_keys, i;
	int ret;

	ret = app_size_range(size, SORT_MIN, SORT_MAX, "the keys", app, err,
			     errlen);
	if (ret)
		return ret;
	if (size & (size - 1)) {
		app_err(err, errlen, app,
			"size %llu: the keys must be a power of two",
			(unsigned long long)size);
		return -EINVAL;
	}
	while ((1ULL << stages) < size)
		stages++;
	keys = malloc(size * sizeof(*keys));
	got = malloc(size * sizeof(*got));
	ret = -ENOMEM;
	if (!keys || !got) {
		app_err(err, errlen, app, "out of memory");
		goto out;
	}
	app_rng_init(&rng, seed, 45);
	for (i = 0; i < size; i++)
		keys[i] = (uint32_t)app_rng_next(&rng);

	ret = app_alloc(gpu, size * sizeof(uint32_t), "inputBuffer", &d_keys,
			app, err, errlen);
	if (ret)
		goto out;
	simt_h2d(gpu, d_keys, keys, size * sizeof(uint32_t));
	args.keys = d_keys;
	for (args.stage = 0; args.stage < stages; args.stage++)
		for (args.pass = 0; args.pass <= args.stage; args.pass++) {
			ret = app_launch(gpu, "bitonicSort", bitonic_kernel,
					 DIM3(app_blocks(size / 2, SORT_BLOCK),
					      1, 1),
					 DIM3(size / 2 < SORT_BLOCK ?
					      size / 2 : SORT_BLOCK, 1, 1),
					 0, &args, app, err, errlen);
			if (ret)
				goto out;
		}
	simt_d2h(gpu, got, d_keys, size * sizeof(uint32_t));
	app_test_perturb(got, sizeof(*got), size);

	qsort(keys, size, sizeof(*keys), sort_cmp);
	ret = app_check_u32(got, keys, size, app, "keys", err, errlen);
out:
	free(keys);
	free(got);
	return ret;
}

const struct app_desc app_sort = {
	.name = "sort",
	.suite = "AMD APP SDK (BitonicSort)",
	.summary = "bitonic sort of 32-bit keys, a launch per stage and "
		   "pass, a thread a compared pair, blocks of 256 (the "
		   "paper's sort kernel is not public; its table's binary-"
		   "tree pattern is the bitonic network's)",
	.input = "size = keys (a power of two), uniform 32-bit from the "
		 "seed (the values do not change the program). Large: 2^18 "
		 "keys, 1 MiB, the cxl preset's LLC: the paper sizes data "
		 "at 10x the GPU's memory (640 MiB for the preset's 64 "
		 "MiB); bitonic's n log^2 n / 4 compares bound it",
	.small_size = 4096,
	.large_size = 1 << 18,
	.paper_sizes = "CXL-GPU: no input given, data sized to 10x the GPU's "
		       "memory (640 MiB for the cxl preset's 64 MiB) = "
		       "--large, 2^18 keys (bitonic's n log^2 n / 4 compares "
		       "bound it)",
	.kernels = "bitonicSort",
	.run = sort_run,
};
