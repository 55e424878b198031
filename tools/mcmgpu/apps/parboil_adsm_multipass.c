// SPDX-License-Identifier: GPL-2.0
/*
 * adsm-multipass (ADSM's Fig. 12 proxy, notes/adsm.md §4.5
 * "adsm_multipass"): Parboil's tpacf fills its inputs on the CPU in
 * several passes before its one kernel, and under rolling update a block
 * evicted between two passes is sent again (Fig. 12). The paper gives
 * neither the passes nor the input's size, and tpacf's host code is not
 * what ADSM ran; this is the notes' access pattern, not tpacf: the host
 * writes the whole input MP_PASSES times (a first pass of values from the
 * seed, as a file read, then MP_PASSES - 1 in-place conversions, each a
 * copy in of the whole array), then one kernel samples the input (a
 * thread reads one float of every MP_STRIDE, blocks of 256) into a small
 * output the host copies out. The kernel is kept small: the figure is
 * about the host's passes.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "app_util.h"
#include "apps.h"

#define MP_PASSES	4
#define MP_STRIDE	256	/* floats: a sample every KiB */
#define MP_BLOCK	256
#define MP_MIN		MP_STRIDE
#define MP_MAX		(64u << 20)	/* floats: 256 MiB */

struct mp_args {
	uint64_t in, out;
	uint32_t samples;
};

/* A conversion pass (as tpacf's degrees to radians to x, y, z). */
static float mp_convert(float v)
{
	return v * 0.5f + 0.25f;
}

/* OPS: the index and bound test (INT 2, BRANCH 1), the scale (FP 1). */
static void mp_kernel(struct simt_thread *t, const void *p)
{
	const struct mp_args *a = p;
	uint64_t i = (uint64_t)simt_block_idx(t).x * MP_BLOCK +
		     simt_thread_idx(t).x;

	OPS(t, PROG_OP_INT, 2);
	OPS(t, PROG_OP_BRANCH, 1);
	if (i >= a->samples)
		return;
	OPS(t, PROG_OP_FP, 1);
	ST(t, float, a->out, i, 2.0f * LD(t, float, a->in, i * MP_STRIDE));
}

static int mp_run(struct simt_gpu *gpu, uint64_t size, uint64_t seed,
		  char *err, size_t errlen)
{
	const char *app = "adsm-multipass";
	const size_t n = (size_t)size, samples = n / MP_STRIDE;
	float *v = NULL, *got = NULL, *want = NULL;
	struct mp_args args;
	struct app_rng rng;
	uint32_t pass;
	size_t i;
	int ret;

	ret = app_size_range(size, MP_MIN, MP_MAX, "the input's floats", app,
			     err, errlen);
	if (ret)
		return ret;
	if (size % MP_STRIDE) {
		app_err(err, errlen, app, "size %llu: the input's floats must "
			"be a multiple of %d", (unsigned long long)size,
			MP_STRIDE);
		return -EINVAL;
	}
	v = malloc(n * sizeof(*v));
	got = malloc(samples * sizeof(*got));
	want = malloc(samples * sizeof(*want));
	ret = -ENOMEM;
	if (!v || !got || !want) {
		app_err(err, errlen, app, "out of memory");
		goto out;
	}
	memset(&args, 0, sizeof(args));
	args.samples = (uint32_t)samples;
	ret = app_alloc(gpu, n * sizeof(float), "input", &args.in, app, err,
			errlen);
	if (!ret)
		ret = app_alloc(gpu, samples * sizeof(float), "samples",
				&args.out, app, err, errlen);
	if (ret)
		goto out;
	/* The passes: each writes the whole input (a copy in). */
	app_rng_init(&rng, seed, 67);
	app_rng_fill_float(&rng, v, n, 1.0f);
	simt_h2d(gpu, args.in, v, n * sizeof(float));
	for (pass = 1; pass < MP_PASSES; pass++) {
		for (i = 0; i < n; i++)
			v[i] = mp_convert(v[i]);
		simt_h2d(gpu, args.in, v, n * sizeof(float));
	}
	ret = app_launch(gpu, "sample", mp_kernel,
			 DIM3(app_blocks(samples, MP_BLOCK), 1, 1),
			 DIM3(MP_BLOCK, 1, 1), 0, &args, app, err, errlen);
	if (ret)
		goto out;
	simt_d2h(gpu, got, args.out, samples * sizeof(float));
	app_test_perturb(got, sizeof(*got), samples);

	for (i = 0; i < samples; i++)
		want[i] = 2.0f * v[i * MP_STRIDE];
	ret = app_check_f32(got, want, samples, APP_FLOAT_TOLERANCE, app,
			    "samples", err, errlen);
out:
	free(v);
	free(got);
	free(want);
	return ret;
}

const struct app_desc app_adsm_multipass = {
	.name = "adsm-multipass",
	.suite = "ADSM (Fig. 12's multi-pass initialisation, tpacf's pattern)",
	.summary = "the CPU writes the whole input in 4 passes (values from "
		   "the seed, then 3 in-place conversions), then one kernel "
		   "samples a float of every 256 (blocks of 256) into an "
		   "output the CPU reads",
	.input = "size = the input's floats (a multiple of 256), uniform in "
		 "[0, 1) from the seed (the values do not change the "
		 "program). Large: 1 Mi floats, 4 MiB: the paper gives "
		 "neither tpacf's input nor its passes; 4 MiB is the window "
		 "its two thresholds imply (notes/adsm.md §3.4)",
	.small_size = 16384,
	.large_size = 1048576,
	.paper_sizes = "ADSM Fig. 12 (tpacf's initialisation): input not "
		       "given; --large is 4 MiB, the rolling window its "
		       "thresholds imply",
	.kernels = "sample",
	.run = mp_run,
};
