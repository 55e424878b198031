// SPDX-License-Identifier: GPL-2.0
/*
 * pns (ADSM's Table 2): Parboil's Petri net simulation. The net is
 * Parboil's fixed grid: 2N rows of N places, each place a byte, and a
 * transition beside each place taking a token from the place above and
 * the place on its left and giving one to the place below and the place
 * on its right (the torus wraps; odd rows are shifted by one). A block
 * of 256 threads simulates one trajectory in its own slice of g_places
 * (the places, then an int a transition for conflict stamps): it sets
 * every place to one token, then, for s steps, each thread draws a
 * transition and fires it in three barrier-separated phases (test
 * enabled and stamp, resolve conflicts with the neighbours' stamps and
 * take the tokens, give the tokens), each round of 256 firings
 * advancing the step count by 128 as Parboil's rounds do; at the end
 * the block reduces the places' squares and maximum in shared memory
 * and thread 0 writes the trajectory's variance and maximum. The host
 * launches batches of PNS_BATCH trajectories (Parboil: as many as fit
 * in 750 MB), copying the two small result arrays out after each launch,
 * and computes the statistics itself: so g_places, by far the largest
 * object, is never copied by the CUDA program. Parboil draws from a
 * Mersenne twister in shared memory; here each thread has its own
 * linear congruential generator.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "app_util.h"
#include "apps.h"

#define PNS_BLOCK	256
#define PNS_N		32			/* the net: 2N x N places */
#define PNS_PLACES	(2 * PNS_N * PNS_N)
#define PNS_SLICE	(PNS_PLACES + 4 * PNS_PLACES)	/* bytes a trajectory */
#define PNS_STEPS	512			/* s */
#define PNS_ROUND	(PNS_BLOCK / 2)		/* steps a round advances */
/*
 * Trajectories a launch. Parboil's launch holds as many as fit in its
 * 750 MB (MAX_DEVICE_MEM / unit_size: about 73,000 at N = 32), many full
 * waves of the GPU. Each full wave adds the same bytes to g_places and
 * the same kernel time, so one full wave keeps Parboil's ratio of bytes
 * to work at a cost make run can pay: the paper's GTX 280 (the adsm
 * preset) runs 30 SMs x 1024 threads / 256 = 120 blocks of 256 at once.
 */
#define PNS_BATCH	120
#define PNS_MAX		(1ULL << 16)
#define PNS_LCG_A	1664525u
#define PNS_LCG_C	1013904223u

struct pns_args {
	uint64_t places, vars, maxs;
	uint32_t seed;
};

/* A thread's generator: from the launch's seed, block and thread. */
static uint32_t pns_seed(uint32_t seed, uint32_t block, uint32_t th)
{
	return (uint32_t)app_mix64(((uint64_t)seed << 32) | block << 8 | th);
}

/* The places a transition (r, c) touches, as Parboil's fire_transition. */
struct pns_tr {
	uint32_t above, left, below, right, self;
	uint32_t below_left;	/* the other neighbour whose stamp conflicts */
};

static struct pns_tr pns_transition(uint32_t r, uint32_t c)
{
	uint32_t up = r == 0 ? 2 * PNS_N - 1 : r - 1;
	uint32_t col = (r & 1) ? (c == PNS_N - 1 ? 0 : c + 1) : c;
	uint32_t down = r == 2 * PNS_N - 1 ? 0 : r + 1;
	struct pns_tr tr;

	tr.above = up * PNS_N + col;
	tr.left = r * PNS_N + c;
	tr.below = down * PNS_N + col;
	tr.right = r * PNS_N + (c == PNS_N - 1 ? 0 : c + 1);
	tr.self = r * PNS_N + c;
	tr.below_left = down * PNS_N + (col == 0 ? PNS_N - 1 : col - 1);
	return tr;
}

/*
 * OPS: the slice (INT 2); initialisation: a word's index and loop (INT
 * 2, BRANCH 1); a round: the draw (INT 3), the transition's indices
 * (INT 12), the enabled test (INT 2, BRANCH 1), the conflict rule (INT
 * 4, BRANCH 1), the two take and two give branches (INT 4, BRANCH 2),
 * the loop (INT 2, BRANCH 1); the statistics: a byte's square, sum and
 * maximum (FP 2, INT 3), a word's loop (INT 2, BRANCH 1), a reduction
 * level (FP 1, INT 2, BRANCH 2), the end (FP 2, INT 1, BRANCH 1).
 */
static void pns_kernel(struct simt_thread *t, const void *p)
{
	const struct pns_args *a = p;
	uint32_t b = simt_block_idx(t).x, th = simt_thread_idx(t).x;
	uint64_t pl = a->places + (uint64_t)b * PNS_SLICE;
	uint64_t stamps = pl + PNS_PLACES;
	uint32_t rng = pns_seed(a->seed, b, th), step, w, i, mx = 0;
	float sum = 0.0f;

	OPS(t, PROG_OP_INT, 2);
	for (w = th; w < PNS_PLACES / 4; w += PNS_BLOCK) {
		ST(t, uint32_t, pl, w, 0x01010101u);
		OPS(t, PROG_OP_INT, 2);
		OPS(t, PROG_OP_BRANCH, 1);
	}
	SYNC(t);
	for (step = 0; step < PNS_STEPS; step += PNS_ROUND) {
		struct pns_tr tr;
		uint32_t stamp = step + 7, m1 = 0, m2 = 0;
		bool fire = false;

		rng = rng * PNS_LCG_A + PNS_LCG_C;
		w = (rng >> 8) % PNS_PLACES;
		tr = pns_transition(w / PNS_N, w % PNS_N);
		OPS(t, PROG_OP_INT, 3 + 12);
		m1 = LD(t, uint8_t, pl, tr.above);
		m2 = LD(t, uint8_t, pl, tr.left);
		OPS(t, PROG_OP_INT, 2);
		OPS(t, PROG_OP_BRANCH, 1);
		if (m1 > 0 && m2 > 0) {
			fire = true;
			ST(t, int32_t, stamps, tr.self, (int32_t)stamp);
		}
		SYNC(t);
		OPS(t, PROG_OP_BRANCH, 1);
		if (fire) {
			/* Even steps keep even rows, odd steps odd rows. */
			OPS(t, PROG_OP_INT, 4);
			OPS(t, PROG_OP_BRANCH, 1);
			fire = (stamp & 1) == (w / PNS_N & 1) ||
			       ((uint32_t)LD(t, int32_t, stamps, tr.above) !=
				stamp &&
				(uint32_t)LD(t, int32_t, stamps,
					     tr.below_left) != stamp);
		}
		OPS(t, PROG_OP_INT, 2);
		OPS(t, PROG_OP_BRANCH, 1);
		if (fire) {
			ST(t, uint8_t, pl, tr.above, (uint8_t)(m1 - 1));
			ST(t, uint8_t, pl, tr.left, (uint8_t)(m2 - 1));
		}
		SYNC(t);
		OPS(t, PROG_OP_INT, 2);
		OPS(t, PROG_OP_BRANCH, 1);
		if (fire) {
			uint8_t v = LD(t, uint8_t, pl, tr.below);

			ST(t, uint8_t, pl, tr.below, (uint8_t)(v + 1));
			v = LD(t, uint8_t, pl, tr.right);
			ST(t, uint8_t, pl, tr.right, (uint8_t)(v + 1));
		}
		SYNC(t);
		OPS(t, PROG_OP_INT, 2);
		OPS(t, PROG_OP_BRANCH, 1);
	}
	for (w = th; w < PNS_PLACES / 4; w += PNS_BLOCK) {
		uint32_t d = LD(t, uint32_t, pl, w);

		for (i = 0; i < 4; i++) {
			uint32_t v = d >> (8 * i) & 0xff;

			sum = sum + (float)(v * v);
			mx = v > mx ? v : mx;
		}
		OPS(t, PROG_OP_FP, 2 * 4);
		OPS(t, PROG_OP_INT, 3 * 4 + 2);
		OPS(t, PROG_OP_BRANCH, 1);
	}
	STS(t, float, th, sum);
	STS(t, uint32_t, PNS_BLOCK + th, mx);
	SYNC(t);
	for (i = PNS_BLOCK / 2; i > 0; i >>= 1) {
		OPS(t, PROG_OP_INT, 2);
		OPS(t, PROG_OP_BRANCH, 2);
		if (th < i) {
			uint32_t o = LDS(t, uint32_t, PNS_BLOCK + th + i);

			OPS(t, PROG_OP_FP, 1);
			STS(t, float, th, LDS(t, float, th) +
			    LDS(t, float, th + i));
			if (o > LDS(t, uint32_t, PNS_BLOCK + th))
				STS(t, uint32_t, PNS_BLOCK + th, o);
		}
		SYNC(t);
	}
	OPS(t, PROG_OP_INT, 1);
	OPS(t, PROG_OP_BRANCH, 1);
	if (th == 0) {
		OPS(t, PROG_OP_FP, 2);
		ST(t, float, a->vars, b,
		   LDS(t, float, 0) / PNS_PLACES - 1.0f);
		ST(t, int32_t, a->maxs, b,
		   (int32_t)LDS(t, uint32_t, PNS_BLOCK));
	}
}

/*
 * The reference: one trajectory, its threads' phases in thread order as
 * the executor runs them, and the reduction's tree order. st: its
 * slice's stamps, which (as in Parboil) the kernel never clears, so a
 * slice's earlier trajectories leave theirs.
 */
static void pns_ref(uint32_t seed, uint32_t b, uint32_t *st, float *var,
		    int32_t *max)
{
	static uint8_t pl[PNS_PLACES];
	static uint32_t rng[PNS_BLOCK], m1[PNS_BLOCK], m2[PNS_BLOCK];
	static struct pns_tr tr[PNS_BLOCK];
	static bool fire[PNS_BLOCK];
	static uint32_t wsel[PNS_BLOCK], mx[PNS_BLOCK];
	static float sum[PNS_BLOCK];
	uint32_t th, step, w, i;

	memset(pl, 1, sizeof(pl));
	for (th = 0; th < PNS_BLOCK; th++)
		rng[th] = pns_seed(seed, b, th);
	for (step = 0; step < PNS_STEPS; step += PNS_ROUND) {
		uint32_t stamp = step + 7;

		for (th = 0; th < PNS_BLOCK; th++) {
			rng[th] = rng[th] * PNS_LCG_A + PNS_LCG_C;
			wsel[th] = (rng[th] >> 8) % PNS_PLACES;
			tr[th] = pns_transition(wsel[th] / PNS_N,
						wsel[th] % PNS_N);
			m1[th] = pl[tr[th].above];
			m2[th] = pl[tr[th].left];
			fire[th] = m1[th] > 0 && m2[th] > 0;
			if (fire[th])
				st[tr[th].self] = stamp;
		}
		for (th = 0; th < PNS_BLOCK; th++) {
			if (fire[th])
				fire[th] = (stamp & 1) ==
					   (wsel[th] / PNS_N & 1) ||
					   (st[tr[th].above] != stamp &&
					    st[tr[th].below_left] !=
					    stamp);
			if (fire[th]) {
				pl[tr[th].above] = (uint8_t)(m1[th] - 1);
				pl[tr[th].left] = (uint8_t)(m2[th] - 1);
			}
		}
		for (th = 0; th < PNS_BLOCK; th++) {
			if (fire[th]) {
				pl[tr[th].below]++;
				pl[tr[th].right]++;
			}
		}
	}
	for (th = 0; th < PNS_BLOCK; th++) {
		sum[th] = 0.0f;
		mx[th] = 0;
		for (w = th; w < PNS_PLACES / 4; w += PNS_BLOCK) {
			for (i = 0; i < 4; i++) {
				uint32_t v = pl[4 * w + i];

				sum[th] = sum[th] + (float)(v * v);
				mx[th] = v > mx[th] ? v : mx[th];
			}
		}
	}
	for (i = PNS_BLOCK / 2; i > 0; i >>= 1) {
		for (th = 0; th < i; th++) {
			sum[th] = sum[th] + sum[th + i];
			if (mx[th + i] > mx[th])
				mx[th] = mx[th + i];
		}
	}
	*var = sum[0] / PNS_PLACES - 1.0f;
	*max = (int32_t)mx[0];
}

static int pns_run(struct simt_gpu *gpu, uint64_t size, uint64_t seed,
		   char *err, size_t errlen)
{
	const char *app = "pns";
	const uint32_t t = (uint32_t)size;
	float *vars = NULL, *wvars = NULL;
	int32_t *maxs = NULL, *wmaxs = NULL;
	uint32_t *stamps = NULL;
	struct pns_args args;
	uint32_t i, n, k;
	int ret;

	ret = app_size_range(size, 1, PNS_MAX, "the trajectories", app, err,
			     errlen);
	if (ret)
		return ret;
	vars = malloc(t * sizeof(*vars));
	wvars = malloc(t * sizeof(*wvars));
	maxs = malloc(t * sizeof(*maxs));
	wmaxs = malloc(t * sizeof(*wmaxs));
	stamps = calloc((size_t)PNS_BATCH * PNS_PLACES, sizeof(*stamps));
	ret = -ENOMEM;
	if (!vars || !wvars || !maxs || !wmaxs || !stamps) {
		app_err(err, errlen, app, "out of memory");
		goto out;
	}
	memset(&args, 0, sizeof(args));
	ret = app_alloc(gpu, (uint64_t)PNS_BATCH * PNS_SLICE, "g_places",
			&args.places, app, err, errlen);
	if (!ret)
		ret = app_alloc(gpu, PNS_BATCH * sizeof(float), "g_vars",
				&args.vars, app, err, errlen);
	if (!ret)
		ret = app_alloc(gpu, PNS_BATCH * sizeof(int32_t), "g_maxs",
				&args.maxs, app, err, errlen);
	if (ret)
		goto out;
	/* A launch's seed: Parboil's 5489 (i + 1), moved by ours. */
	for (i = 0; i < t; i += n) {
		n = t - i < PNS_BATCH ? t - i : PNS_BATCH;
		args.seed = (uint32_t)(5489 * (i + 1) + seed);
		ret = app_launch(gpu, "PetrinetKernel", pns_kernel,
				 DIM3(n, 1, 1), DIM3(PNS_BLOCK, 1, 1),
				 2 * PNS_BLOCK * 4, &args, app, err, errlen);
		if (ret)
			goto out;
		simt_d2h(gpu, maxs + i, args.maxs, n * sizeof(int32_t));
		simt_d2h(gpu, vars + i, args.vars, n * sizeof(float));
		for (k = 0; k < n; k++)
			pns_ref(args.seed, k, stamps + k * PNS_PLACES,
				wvars + i + k, wmaxs + i + k);
	}
	/* Parboil's compute_statistics reads them on the host: no copies. */
	app_test_perturb(maxs, sizeof(*maxs), t);

	ret = app_check_i32(maxs, wmaxs, t, app, "g_maxs", err, errlen);
	if (!ret)
		ret = app_check_f32(vars, wvars, t, APP_FLOAT_TOLERANCE, app,
				    "g_vars", err, errlen);
out:
	free(vars);
	free(wvars);
	free(maxs);
	free(wmaxs);
	free(stamps);
	return ret;
}

const struct app_desc app_pns = {
	.name = "pns",
	.suite = "Parboil (pns)",
	.summary = "Petri net simulation: PetrinetKernel, a block of 256 a "
		   "trajectory on Parboil's 2N x N grid net (N = 32, 512 "
		   "steps, three-phase conflict-resolved firings, a shared "
		   "reduction of the places' variance and maximum), 120 "
		   "trajectories a launch (a full wave of the GTX 280) with their two results copied out "
		   "after each; the host computes the statistics",
	.input = "size = trajectories; every place starts with one token, "
		 "each thread draws transitions from its own generator "
		 "seeded by the launch, block, thread and seed (the draws "
		 "move every address; Parboil fills 750 MB with "
		 "trajectories a launch, many full waves, and draws from a "
		 "Mersenne twister). Large: 3840 trajectories, 32 launches",
	.small_size = 32,
	.large_size = 3840,
	.paper_sizes = "ADSM Table 2: input not given; --large is 3840 "
		       "trajectories (32 launches)",
	.kernels = "PetrinetKernel",
	.run = pns_run,
};
