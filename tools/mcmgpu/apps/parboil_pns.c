// SPDX-License-Identifier: GPL-2.0
/*
 * pns (ADSM's Table 2): Parboil's Petri net simulation. Many independent
 * runs of one stochastic Petri net, a thread a run in blocks of 256: each
 * launch is one simulation step, in which every run draws PNS_FIRE
 * transitions from its own linear congruential generator and fires each
 * one that is enabled (every input place holds a token). The host
 * launches the step kernel in a loop with nothing between launches (the
 * token state stays on the GPU), then a statistics kernel (a thread a
 * place: mean and variance of its tokens over the runs), and copies only
 * the statistics out. The net: a W x W torus of places, transition (r,
 * c) taking a token from places (r, c) and (r, c + 1) and giving one to
 * (r + 1, c) and (r + 1, c + 1), so tokens are conserved. Parboil's own
 * net and generator are not reproduced; the launch structure (a step a
 * launch, a thread a run, statistics at the end) is.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "app_util.h"
#include "apps.h"

#define PNS_BLOCK	256
#define PNS_W		16			/* the net's side */
#define PNS_PLACES	(PNS_W * PNS_W)
#define PNS_FIRE	4			/* draws a step */
#define PNS_STEPS	100			/* launches */
#define PNS_MAX		(1ULL << 16)
#define PNS_LCG_A	1664525u
#define PNS_LCG_C	1013904223u

struct pns_args {
	uint64_t tokens;	/* [place][run] */
	uint64_t seeds;		/* [run] */
	uint64_t vars;		/* [place][2]: mean, variance */
	uint32_t runs;
};

static uint32_t pns_place(uint32_t r, uint32_t c)
{
	return (r % PNS_W) * PNS_W + c % PNS_W;
}

/*
 * OPS: the index and bound (INT 2, BRANCH 1); a draw: the LCG (INT 1),
 * the shift and modulo (INT 2), the four places' indices (INT 4), the
 * enabled test (INT 2, BRANCH 1), when firing the four updates (INT 4),
 * the loop (INT 1, BRANCH 1).
 */
static void pns_step_kernel(struct simt_thread *t, const void *p)
{
	const struct pns_args *a = p;
	uint64_t s = simt_global_x(t);
	uint32_t seed, f;

	OPS(t, PROG_OP_INT, 2);
	OPS(t, PROG_OP_BRANCH, 1);
	if (s >= a->runs)
		return;
	seed = LD(t, uint32_t, a->seeds, s);
	for (f = 0; f < PNS_FIRE; f++) {
		uint32_t tr, r, c, i0, i1, o0, o1, v0, v1;

		seed = seed * PNS_LCG_A + PNS_LCG_C;
		tr = (seed >> 16) % PNS_PLACES;
		r = tr / PNS_W;
		c = tr % PNS_W;
		i0 = pns_place(r, c);
		i1 = pns_place(r, c + 1);
		o0 = pns_place(r + 1, c);
		o1 = pns_place(r + 1, c + 1);
		OPS(t, PROG_OP_INT, 7);
		v0 = LD(t, uint32_t, a->tokens, (uint64_t)i0 * a->runs + s);
		v1 = LD(t, uint32_t, a->tokens, (uint64_t)i1 * a->runs + s);
		OPS(t, PROG_OP_INT, 2);
		OPS(t, PROG_OP_BRANCH, 1);
		if (v0 && v1) {
			uint32_t w0, w1;

			ST(t, uint32_t, a->tokens, (uint64_t)i0 * a->runs + s,
			   v0 - 1);
			ST(t, uint32_t, a->tokens, (uint64_t)i1 * a->runs + s,
			   v1 - 1);
			w0 = LD(t, uint32_t, a->tokens,
				(uint64_t)o0 * a->runs + s);
			ST(t, uint32_t, a->tokens, (uint64_t)o0 * a->runs + s,
			   w0 + 1);
			w1 = LD(t, uint32_t, a->tokens,
				(uint64_t)o1 * a->runs + s);
			ST(t, uint32_t, a->tokens, (uint64_t)o1 * a->runs + s,
			   w1 + 1);
			OPS(t, PROG_OP_INT, 4);
		}
		OPS(t, PROG_OP_INT, 1);
		OPS(t, PROG_OP_BRANCH, 1);
	}
	ST(t, uint32_t, a->seeds, s, seed);
}

/*
 * A thread a place: the mean and variance of its tokens over the runs.
 * OPS: the index and bound (INT 2, BRANCH 1); a run: the conversion (INT
 * 1), the sum and the FFMA of squares (FP 2), the loop (INT 1, BRANCH
 * 1); the end: the divisions and the difference (FP 4).
 */
static void pns_stats_kernel(struct simt_thread *t, const void *p)
{
	const struct pns_args *a = p;
	uint64_t pl = simt_global_x(t);
	float sum = 0.0f, sq = 0.0f, mean;
	uint32_t s;

	OPS(t, PROG_OP_INT, 2);
	OPS(t, PROG_OP_BRANCH, 1);
	if (pl >= PNS_PLACES)
		return;
	for (s = 0; s < a->runs; s++) {
		float v = (float)LD(t, uint32_t, a->tokens,
				    (uint64_t)pl * a->runs + s);

		OPS(t, PROG_OP_INT, 1);
		OPS(t, PROG_OP_FP, 2);
		sum = sum + v;
		sq = sq + v * v;
		OPS(t, PROG_OP_INT, 1);
		OPS(t, PROG_OP_BRANCH, 1);
	}
	OPS(t, PROG_OP_FP, 4);
	mean = sum / (float)a->runs;
	ST(t, float, a->vars, 2 * pl, mean);
	ST(t, float, a->vars, 2 * pl + 1, sq / (float)a->runs - mean * mean);
}

/* The reference: the same runs, step by step, then the same sums. */
static void pns_ref(uint32_t *tok, uint32_t *seeds, uint32_t runs,
		    float *vars)
{
	uint32_t step, s, f, pl;

	for (step = 0; step < PNS_STEPS; step++) {
		for (s = 0; s < runs; s++) {
			uint32_t seed = seeds[s];

			for (f = 0; f < PNS_FIRE; f++) {
				uint32_t tr, r, c, i0, i1, o0, o1;

				seed = seed * PNS_LCG_A + PNS_LCG_C;
				tr = (seed >> 16) % PNS_PLACES;
				r = tr / PNS_W;
				c = tr % PNS_W;
				i0 = pns_place(r, c) * runs + s;
				i1 = pns_place(r, c + 1) * runs + s;
				o0 = pns_place(r + 1, c) * runs + s;
				o1 = pns_place(r + 1, c + 1) * runs + s;
				if (tok[i0] && tok[i1]) {
					tok[i0]--;
					tok[i1]--;
					tok[o0]++;
					tok[o1]++;
				}
			}
			seeds[s] = seed;
		}
	}
	for (pl = 0; pl < PNS_PLACES; pl++) {
		float sum = 0.0f, sq = 0.0f, mean;

		for (s = 0; s < runs; s++) {
			float v = (float)tok[pl * runs + s];

			sum = sum + v;
			sq = sq + v * v;
		}
		mean = sum / (float)runs;
		vars[2 * pl] = mean;
		vars[2 * pl + 1] = sq / (float)runs - mean * mean;
	}
}

static int pns_run(struct simt_gpu *gpu, uint64_t size, uint64_t seed,
		   char *err, size_t errlen)
{
	const char *app = "pns";
	const uint32_t runs = (uint32_t)size;
	uint32_t *tok = NULL, *seeds = NULL;
	float *got = NULL, *want = NULL;
	struct pns_args args;
	struct app_rng rng;
	uint32_t i, s, step;
	int ret;

	ret = app_size_range(size, 1, PNS_MAX, "the runs", app, err, errlen);
	if (ret)
		return ret;
	tok = malloc((size_t)PNS_PLACES * runs * sizeof(*tok));
	seeds = malloc(runs * sizeof(*seeds));
	got = malloc(2 * PNS_PLACES * sizeof(*got));
	want = malloc(2 * PNS_PLACES * sizeof(*want));
	ret = -ENOMEM;
	if (!tok || !seeds || !got || !want) {
		app_err(err, errlen, app, "out of memory");
		goto out;
	}
	/* One initial marking (0 to 3 tokens a place) for every run. */
	app_rng_init(&rng, seed, 60);
	for (i = 0; i < PNS_PLACES; i++) {
		uint32_t m = (uint32_t)app_rng_below(&rng, 4);

		for (s = 0; s < runs; s++)
			tok[i * runs + s] = m;
	}
	for (s = 0; s < runs; s++)
		seeds[s] = (uint32_t)app_rng_next(&rng);

	memset(&args, 0, sizeof(args));
	args.runs = runs;
	ret = app_alloc(gpu, (uint64_t)PNS_PLACES * runs * sizeof(uint32_t),
			"g_places", &args.tokens, app, err, errlen);
	if (!ret)
		ret = app_alloc(gpu, runs * sizeof(uint32_t), "g_seeds",
				&args.seeds, app, err, errlen);
	if (!ret)
		ret = app_alloc(gpu, 2 * PNS_PLACES * sizeof(float), "g_vars",
				&args.vars, app, err, errlen);
	if (ret)
		goto out;
	simt_h2d(gpu, args.tokens, tok,
		 (uint64_t)PNS_PLACES * runs * sizeof(uint32_t));
	simt_h2d(gpu, args.seeds, seeds, runs * sizeof(uint32_t));
	for (step = 0; step < PNS_STEPS; step++) {
		ret = app_launch(gpu, "PetrinetKernel", pns_step_kernel,
				 DIM3(app_blocks(runs, PNS_BLOCK), 1, 1),
				 DIM3(PNS_BLOCK, 1, 1), 0, &args, app, err,
				 errlen);
		if (ret)
			goto out;
	}
	ret = app_launch(gpu, "compute_statistics", pns_stats_kernel,
			 DIM3(app_blocks(PNS_PLACES, PNS_BLOCK), 1, 1),
			 DIM3(PNS_BLOCK, 1, 1), 0, &args, app, err, errlen);
	if (ret)
		goto out;
	simt_d2h(gpu, got, args.vars, 2 * PNS_PLACES * sizeof(float));
	app_test_perturb(got, sizeof(*got), 2 * PNS_PLACES);

	pns_ref(tok, seeds, runs, want);
	ret = app_check_f32(got, want, 2 * PNS_PLACES, APP_FLOAT_TOLERANCE,
			    app, "vars", err, errlen);
out:
	free(tok);
	free(seeds);
	free(got);
	free(want);
	return ret;
}

const struct app_desc app_pns = {
	.name = "pns",
	.suite = "Parboil (pns)",
	.summary = "Petri net simulation: PetrinetKernel (blocks of 256, a "
		   "thread a run, 4 random firings a step) launched for 100 "
		   "steps with nothing copied between, then a statistics "
		   "kernel (mean, variance of each place's tokens); the net "
		   "is a 16 x 16 torus of our own (Parboil's is not "
		   "reproduced)",
	.input = "size = independent runs; one initial marking of 0 to 3 "
		 "tokens a place and a generator seed a run, from the seed "
		 "(the values change which firings store). Large: 4096 "
		 "runs, a 4 MiB token array copied in once",
	.small_size = 256,
	.large_size = 4096,
	.run = pns_run,
};
