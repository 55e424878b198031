// SPDX-License-Identifier: GPL-2.0
/*
 * tpacf (ADSM's Table 2): Parboil's two-point angular correlation
 * function. Points on the unit sphere: an observed set D and R random
 * sets of the same size. The histograms of angular separation, in 20
 * bins five a decade from 1 to 10000 arcminutes (Parboil's defaults),
 * of the pairs D-D, each D-R_s and each R_s-R_s, from which the host
 * forms the estimator. One launch as Parboil's gen_hists: 2R + 1 blocks
 * of 256 threads, block 0 for DD, 1..R for DR_s, R+1..2R for RR_s; a
 * block walks the first set's points (every lane reads the same one)
 * while its threads stride over the second set's, computes the dot
 * product, finds the bin by binary search over the boundaries' cosines
 * (Parboil's constant binb; here a global array read as a broadcast)
 * and adds one to the block's histogram in shared memory with a shared
 * atomic; at the end the block writes its histogram out. The host
 * copies the points and boundaries in and the histograms out.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "app_util.h"
#include "apps.h"

#define TP_BLOCK	256
#define TP_BINS		20
#define TP_HIST		(TP_BINS + 2)		/* below, the bins, beyond */
#define TP_SETS		2			/* random sets */
#define TP_BLOCKS	(2 * TP_SETS + 1)
#define TP_MIN_ARCMIN	1.0
#define TP_BINS_PER_DEC	5
#define TP_MIN		16
#define TP_MAX		(1ULL << 16)

struct tp_args {
	uint64_t x, y, z;	/* [set][point]: set 0 is D, 1.. the R_s */
	uint64_t binb, hists;
	uint32_t n;
};

/*
 * The histogram slot of a cosine: how many boundaries it is below
 * (they fall as the angle grows). The kernel's and the reference's.
 */
#define TP_BIN_SEARCH(load, dot, out) do {				\
	uint32_t lo_ = 0, hi_ = TP_BINS + 1;				\
	while (lo_ < hi_) {						\
		uint32_t mid_ = (lo_ + hi_) / 2;			\
		if ((dot) < load(mid_))					\
			lo_ = mid_ + 1;					\
		else							\
			hi_ = mid_;					\
	}								\
	(out) = lo_;							\
} while (0)

/*
 * OPS: the block's sets (INT 4, BRANCH 1); a first point: the start
 * (INT 2), the loop (INT 1, BRANCH 1); a pair: the dot product (FP 3),
 * a search step (INT 3, BRANCH 2), the loop (INT 2, BRANCH 1); the end:
 * the histogram's copy (INT 2, BRANCH 1 a bin).
 */
static void gen_hists_kernel(struct simt_thread *t, const void *p)
{
	const struct tp_args *a = p;
	uint32_t b = simt_block_idx(t).x, th = simt_thread_idx(t).x;
	uint32_t s1, s2, i, j, k;
	bool self;

	OPS(t, PROG_OP_INT, 4);
	OPS(t, PROG_OP_BRANCH, 1);
	if (b == 0) {
		s1 = 0;
		s2 = 0;
	} else if (b <= TP_SETS) {
		s1 = 0;
		s2 = b;
	} else {
		s1 = b - TP_SETS;
		s2 = s1;
	}
	self = s1 == s2;
	for (i = 0; i < a->n; i++) {
		uint64_t pi = (uint64_t)s1 * a->n + i;
		float xi = LD(t, float, a->x, pi);
		float yi = LD(t, float, a->y, pi);
		float zi = LD(t, float, a->z, pi);

		OPS(t, PROG_OP_INT, 2);
		for (j = (self ? i + 1 : 0) + th; j < a->n; j += TP_BLOCK) {
			uint64_t pj = (uint64_t)s2 * a->n + j;
			float dot = xi * LD(t, float, a->x, pj) +
				    yi * LD(t, float, a->y, pj) +
				    zi * LD(t, float, a->z, pj);
			uint32_t bin;

			OPS(t, PROG_OP_FP, 3);
#define TP_KLOAD(m) ({ OPS(t, PROG_OP_INT, 3);				\
		       OPS(t, PROG_OP_BRANCH, 2);			\
		       LD(t, float, a->binb, (m)); })
			TP_BIN_SEARCH(TP_KLOAD, dot, bin);
#undef TP_KLOAD
			ATOMIC_SHARED(t, uint32_t, SIMT_ATOMIC_ADD, bin, 1);
			OPS(t, PROG_OP_INT, 2);
			OPS(t, PROG_OP_BRANCH, 1);
		}
		OPS(t, PROG_OP_INT, 1);
		OPS(t, PROG_OP_BRANCH, 1);
	}
	SYNC(t);
	for (k = th; k < TP_HIST; k += TP_BLOCK) {
		ST(t, uint32_t, a->hists, (uint64_t)b * TP_HIST + k,
		   LDS(t, uint32_t, k));
		OPS(t, PROG_OP_INT, 2);
		OPS(t, PROG_OP_BRANCH, 1);
	}
}

/* The reference: every pair of every block's sets, in any order. */
static void tp_ref(const float *x, const float *y, const float *z,
		   const float *binb, uint32_t n, uint32_t *hists)
{
	uint32_t b, i, j;

	memset(hists, 0, TP_BLOCKS * TP_HIST * sizeof(*hists));
	for (b = 0; b < TP_BLOCKS; b++) {
		uint32_t s1 = b == 0 ? 0 : b <= TP_SETS ? 0 : b - TP_SETS;
		uint32_t s2 = b == 0 ? 0 : b <= TP_SETS ? b : s1;

		for (i = 0; i < n; i++) {
			size_t pi = (size_t)s1 * n + i;

			for (j = s1 == s2 ? i + 1 : 0; j < n; j++) {
				size_t pj = (size_t)s2 * n + j;
				float dot = x[pi] * x[pj] + y[pi] * y[pj] +
					    z[pi] * z[pj];
				uint32_t bin;

#define TP_RLOAD(m) (binb[(m)])
				TP_BIN_SEARCH(TP_RLOAD, dot, bin);
#undef TP_RLOAD
				hists[b * TP_HIST + bin]++;
			}
		}
	}
}

/* A point uniform on the sphere, or (clustered) near a given one. */
static void tp_point(struct app_rng *rng, float *x, float *y, float *z,
		     size_t k, const float *near)
{
	double ra = app_rng_unit(rng) * 2 * M_PI;
	double dec = asin(2 * app_rng_unit(rng) - 1);

	x[k] = (float)(cos(dec) * cos(ra));
	y[k] = (float)(cos(dec) * sin(ra));
	z[k] = (float)sin(dec);
	if (near) {
		/* Within about a degree of near: renormalised. */
		double nx = near[0] + 0.02 * x[k], ny = near[1] + 0.02 * y[k];
		double nz = near[2] + 0.02 * z[k];
		double r = sqrt(nx * nx + ny * ny + nz * nz);

		x[k] = (float)(nx / r);
		y[k] = (float)(ny / r);
		z[k] = (float)(nz / r);
	}
}

static int tpacf_run(struct simt_gpu *gpu, uint64_t size, uint64_t seed,
		     char *err, size_t errlen)
{
	const char *app = "tpacf";
	const uint32_t n = (uint32_t)size;
	const size_t pts = (size_t)(TP_SETS + 1) * n;
	float *x = NULL, *y = NULL, *z = NULL, binb[TP_BINS + 1];
	uint32_t got[TP_BLOCKS * TP_HIST], want[TP_BLOCKS * TP_HIST];
	struct tp_args args;
	struct app_rng rng;
	size_t k;
	int ret;

	ret = app_size_range(size, TP_MIN, TP_MAX, "the points a set", app,
			     err, errlen);
	if (ret)
		return ret;
	x = malloc(pts * sizeof(*x));
	y = malloc(pts * sizeof(*y));
	z = malloc(pts * sizeof(*z));
	ret = -ENOMEM;
	if (!x || !y || !z) {
		app_err(err, errlen, app, "out of memory");
		goto out;
	}
	/*
	 * D: half its points uniform, half near an earlier D point (so it
	 * correlates); the random sets uniform: from the seed.
	 */
	app_rng_init(&rng, seed, 63);
	for (k = 0; k < pts; k++) {
		float near[3];
		bool clustered = k < n && k > 0 && app_rng_below(&rng, 2);

		if (clustered) {
			size_t o = app_rng_below(&rng, k);

			near[0] = x[o];
			near[1] = y[o];
			near[2] = z[o];
		}
		tp_point(&rng, x, y, z, k, clustered ? near : NULL);
	}
	/* Boundary k: the cosine of 10^(k / 5) arcminutes. */
	for (k = 0; k <= TP_BINS; k++)
		binb[k] = (float)cos(pow(10.0, log10(TP_MIN_ARCMIN) +
					 (double)k / TP_BINS_PER_DEC) /
				     60.0 * M_PI / 180.0);

	memset(&args, 0, sizeof(args));
	args.n = n;
	ret = app_alloc(gpu, pts * sizeof(float), "d_x", &args.x, app, err,
			errlen);
	if (!ret)
		ret = app_alloc(gpu, pts * sizeof(float), "d_y", &args.y, app,
				err, errlen);
	if (!ret)
		ret = app_alloc(gpu, pts * sizeof(float), "d_z", &args.z, app,
				err, errlen);
	if (!ret)
		ret = app_alloc(gpu, sizeof(binb), "binb", &args.binb, app,
				err, errlen);
	if (!ret)
		ret = app_alloc(gpu, sizeof(got), "d_hists", &args.hists, app,
				err, errlen);
	if (ret)
		goto out;
	simt_h2d(gpu, args.x, x, pts * sizeof(float));
	simt_h2d(gpu, args.y, y, pts * sizeof(float));
	simt_h2d(gpu, args.z, z, pts * sizeof(float));
	simt_h2d(gpu, args.binb, binb, sizeof(binb));
	ret = app_launch(gpu, "gen_hists", gen_hists_kernel,
			 DIM3(TP_BLOCKS, 1, 1), DIM3(TP_BLOCK, 1, 1),
			 TP_HIST * sizeof(uint32_t), &args, app, err, errlen);
	if (ret)
		goto out;
	simt_d2h(gpu, got, args.hists, sizeof(got));
	app_test_perturb(got, sizeof(*got), TP_BLOCKS * TP_HIST);

	tp_ref(x, y, z, binb, n, want);
	ret = app_check_u32(got, want, TP_BLOCKS * TP_HIST, app, "hists", err,
			    errlen);
out:
	free(x);
	free(y);
	free(z);
	return ret;
}

const struct app_desc app_tpacf = {
	.name = "tpacf",
	.suite = "Parboil (tpacf)",
	.summary = "two-point angular correlation: gen_hists, 2R + 1 blocks "
		   "of 256 (DD, each DR_s, each RR_s), each block's threads "
		   "binning pairs by binary search over 20 log-spaced "
		   "angular bins into a shared-memory histogram with atomics",
	.input = "size = points a set; D (half uniform on the sphere, half "
		 "within a degree of an earlier D point) and R = 2 uniform "
		 "random sets, from the seed (the values change the bins "
		 "the atomics hit; Parboil's sets are 97178 points, 100 "
		 "random sets). Large: 1024 points (the pairs bound it)",
	.small_size = 128,
	.large_size = 1024,
	.paper_sizes = "ADSM Table 2 and Fig. 12: input not given; --large is "
		       "1024 points a set (Parboil's sets are 97178 points)",
	.kernels = "gen_hists",
	.run = tpacf_run,
};
