// SPDX-License-Identifier: GPL-2.0
/*
 * adsm-stencil (ADSM's 3-D stencil micro-benchmark, its Fig. 9): a wave
 * propagated through an N^3 volume by the second-order finite
 * difference next = 2 cur - prev + c lap(cur) with the 7-point
 * Laplacian (faces held at zero), the CPU injecting a point source each
 * time step and writing the whole volume to disk every WS_DUMP steps.
 * As a CUDA program: each step the host reads the source's cell (a
 * 4-byte copy out), adds the step's Ricker wavelet value and writes it
 * back (a 4-byte copy in), launches the stencil (blocks of 32 x 4, a
 * thread a cell, one z plane a grid layer) and swaps the two time
 * levels; every WS_DUMP steps it copies the current volume out. The
 * paper's stencil code is not public; the update and the host's
 * accesses are as its text describes them.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "app_util.h"
#include "apps.h"

#define WS_BX		32
#define WS_BY		4
#define WS_STEPS	8
#define WS_DUMP		4
#define WS_C		0.1f	/* (v dt / dx)^2, stable below 1/3 */
#define WS_FREQ		0.25f	/* the wavelet's peak, a step's fraction */
#define WS_MIN		8
#define WS_MAX		1024

struct ws_args {
	uint64_t prev, cur;	/* next overwrites prev */
	uint32_t n;
};

/* The source's value at a step: a Ricker wavelet peaking at step 2. */
static float ws_ricker(uint32_t step)
{
	float a = 3.14159265f * WS_FREQ * ((float)step - 2.0f);

	a = a * a;
	return (1.0f - 2.0f * a) * expf(-a);
}

/*
 * OPS: the cell's indices and the three bound tests (INT 9, BRANCH 1);
 * the interior's index (INT 1), the Laplacian's six adds and the
 * centre's scale (FP 7), the two FFMAs of the update (FP 2).
 */
static void ws_kernel(struct simt_thread *t, const void *p)
{
	const struct ws_args *a = p;
	struct simt_dim3 b = simt_block_idx(t), th = simt_thread_idx(t);
	uint32_t x = b.x * WS_BX + th.x, y = b.y * WS_BY + th.y, z = b.z;
	uint64_t n = a->n, i = (z * n + y) * n + x;
	float c, lap, old;

	OPS(t, PROG_OP_INT, 9);
	OPS(t, PROG_OP_BRANCH, 1);
	if (x < 1 || y < 1 || z < 1 || x >= n - 1 || y >= n - 1 ||
	    z >= n - 1)
		return;
	OPS(t, PROG_OP_INT, 1);
	c = LD(t, float, a->cur, i);
	lap = LD(t, float, a->cur, i - 1) + LD(t, float, a->cur, i + 1) +
	      LD(t, float, a->cur, i - n) + LD(t, float, a->cur, i + n) +
	      LD(t, float, a->cur, i - n * n) +
	      LD(t, float, a->cur, i + n * n) - 6.0f * c;
	old = LD(t, float, a->prev, i);
	OPS(t, PROG_OP_FP, 9);
	ST(t, float, a->prev, i, 2.0f * c - old + WS_C * lap);
}

/* The reference: the same update, cell by cell. */
static void ws_ref_step(const float *cur, float *prev, uint32_t n)
{
	uint64_t x, y, z, nn = n;

	for (z = 1; z + 1 < n; z++) {
		for (y = 1; y + 1 < n; y++) {
			for (x = 1; x + 1 < n; x++) {
				uint64_t i = (z * nn + y) * nn + x;
				float c = cur[i];
				float lap = cur[i - 1] + cur[i + 1] +
					    cur[i - nn] + cur[i + nn] +
					    cur[i - nn * nn] +
					    cur[i + nn * nn] - 6.0f * c;

				prev[i] = 2.0f * c - prev[i] + WS_C * lap;
			}
		}
	}
}

/* Values change sign: compare within a share of the largest one. */
static int ws_check(const float *got, const float *want, size_t n,
		    const char *what, char *err, size_t errlen)
{
	float scale = 0.0f;
	size_t i;

	for (i = 0; i < n; i++)
		if (fabsf(want[i]) > scale)
			scale = fabsf(want[i]);
	for (i = 0; i < n; i++) {
		if (!(fabsf(got[i] - want[i]) <= APP_FLOAT_TOLERANCE * scale)) {
			app_err(err, errlen, "adsm-stencil", "%s[%zu] = %g, the "
				"reference says %g", what, i, got[i],
				want[i]);
			return -EIO;
		}
	}
	return 0;
}

static int ws_run(struct simt_gpu *gpu, uint64_t size, uint64_t seed,
		  char *err, size_t errlen)
{
	const char *app = "adsm-stencil";
	const uint32_t n = (uint32_t)size;
	const size_t cells = (size_t)n * n * n;
	float *got = NULL, *dump = NULL, *rp = NULL, *rc = NULL, *sw;
	uint64_t src, sw_addr;
	struct ws_args args;
	struct app_rng rng;
	uint32_t step;
	float v;
	int ret;

	ret = app_size_range(size, WS_MIN, WS_MAX, "the volume's side", app,
			     err, errlen);
	if (ret)
		return ret;
	if (size % WS_BX) {
		app_err(err, errlen, app, "size %llu: the volume's side must "
			"be a multiple of %d", (unsigned long long)size,
			WS_BX);
		return -EINVAL;
	}
	got = malloc(cells * sizeof(*got));
	dump = malloc(cells * sizeof(*dump));
	rp = calloc(cells, sizeof(*rp));
	rc = calloc(cells, sizeof(*rc));
	ret = -ENOMEM;
	if (!got || !dump || !rp || !rc) {
		app_err(err, errlen, app, "out of memory");
		goto out;
	}
	/* The source: an interior cell from the seed; the fields start at 0. */
	app_rng_init(&rng, seed, 66);
	src = ((1 + app_rng_below(&rng, n - 2)) * n +
	       1 + app_rng_below(&rng, n - 2)) * n +
	      1 + app_rng_below(&rng, n - 2);

	memset(&args, 0, sizeof(args));
	args.n = n;
	ret = app_alloc(gpu, cells * sizeof(float), "u0", &args.prev, app,
			err, errlen);
	if (!ret)
		ret = app_alloc(gpu, cells * sizeof(float), "u1", &args.cur,
				app, err, errlen);
	if (ret)
		goto out;
	for (step = 0; step < WS_STEPS; step++) {
		/* The CPU's read-modify-write of the source cell. */
		simt_d2h(gpu, &v, args.cur + src * sizeof(float),
			 sizeof(float));
		v += ws_ricker(step);
		simt_h2d(gpu, args.cur + src * sizeof(float), &v,
			 sizeof(float));
		ret = app_launch(gpu, "stencil3d", ws_kernel,
				 DIM3(n / WS_BX, n / WS_BY, n),
				 DIM3(WS_BX, WS_BY, 1), 0, &args, app, err,
				 errlen);
		if (ret)
			goto out;
		sw_addr = args.prev;
		args.prev = args.cur;
		args.cur = sw_addr;
		if ((step + 1) % WS_DUMP == 0)
			simt_d2h(gpu, dump, args.cur, cells * sizeof(float));
	}
	simt_d2h(gpu, got, args.cur, cells * sizeof(float));
	app_test_perturb(got, sizeof(*got), cells);

	for (step = 0; step < WS_STEPS; step++) {
		rc[src] += ws_ricker(step);
		ws_ref_step(rc, rp, n);
		sw = rp;
		rp = rc;
		rc = sw;
	}
	ret = ws_check(got, rc, cells, "u", err, errlen);
out:
	free(got);
	free(dump);
	free(rp);
	free(rc);
	return ret;
}

const struct app_desc app_adsm_stencil = {
	.name = "adsm-stencil",
	.suite = "ADSM (3-D stencil micro-benchmark)",
	.summary = "7-point 3-D wave stencil (blocks of 32 x 4, a thread a "
		   "cell) for 8 time steps; between launches the CPU "
		   "read-modify-writes the point source's cell and every 4 "
		   "steps reads the whole volume (the disk dump)",
	.input = "size = N: an N^3 volume (N a multiple of 32), both time "
		 "levels zero, the source at an interior cell from the seed "
		 "with a Ricker wavelet (the values do not change the "
		 "program; the paper sweeps 64^3 to 384^3). Large: 64^3",
	.small_size = 32,
	.large_size = 64,
	.paper_sizes = "ADSM Fig. 9: volumes 64^3, 128^3, 192^3, 256^3, 384^3 "
		       "= size 64, 128, 192, 256, 384 (--large is 64)",
	.kernels = "stencil3d",
	.run = ws_run,
};
