// SPDX-License-Identifier: GPL-2.0
/*
 * rpes (ADSM's Table 2): Parboil's Rys polynomial equation solver
 * computes two-electron repulsion integrals (ij|kl) by Rys quadrature.
 * Its source is not reproduced here; this is the nearest public
 * equivalent we can write from the textbook method: every shell is an
 * s shell (STO-3G hydrogen, three primitives), for which Rys quadrature
 * has a single root whose weight is the Boys function F0(T), so
 *   (ab|cd) = K_ab K_cd 2 pi^(5/2) / (p q sqrt(p + q)) F0(pq/(p+q) |PQ|^2)
 * summed over the 3 x 3 primitive pairs of each side. The host forms the
 * shell pairs' primitive data (exponent sum p, centre P, prefactor K
 * with the contraction coefficients) and copies it in; then, a batch of
 * RP_BATCH bra pairs at a time, it launches the integral kernel (a
 * thread a (bra, ket) pair of pairs, blocks of 256, the bra's nine
 * primitives in registers) and copies the batch's integrals back, as a
 * host that consumes them batch by batch does.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "app_util.h"
#include "apps.h"

#define RP_BLOCK	256
#define RP_BATCH	64
#define RP_PRIM		3
#define RP_PP		(RP_PRIM * RP_PRIM)	/* primitive pairs a pair */
#define RP_FIELDS	5			/* p, Px, Py, Pz, K */
#define RP_MIN		2
#define RP_MAX		256
#define RP_PI		3.14159265358979323846f

struct rp_args {
	uint64_t pairs, ints;
	uint32_t npairs, first, count;
};

/* STO-3G hydrogen 1s: exponents and normalised contraction coefficients. */
static const float rp_alpha[RP_PRIM] = {
	3.42525091f, 0.62391373f, 0.16885540f
};

static const float rp_coef[RP_PRIM] = {
	0.15432897f, 0.53532814f, 0.44463454f
};

/* F0(T) = erf(sqrt T) sqrt(pi / T) / 2, its series' start near 0. */
static float rp_boys0(float t)
{
	if (t < 1e-7f)
		return 1.0f - t / 3.0f;
	return 0.5f * sqrtf(RP_PI / t) * erff(sqrtf(t));
}

static float rp_prim(const float *b, const float *k)
{
	float s = b[0] + k[0];
	float dx = b[1] - k[1], dy = b[2] - k[2], dz = b[3] - k[3];
	float r2 = dx * dx + dy * dy + dz * dz;
	float t = b[0] * k[0] / s * r2;

	return b[4] * k[4] * 2.0f * RP_PI * RP_PI * sqrtf(RP_PI) /
	       (b[0] * k[0] * sqrtf(s)) * rp_boys0(t);
}

/*
 * OPS: the index and bound (INT 3, BRANCH 1); the bra's loads' indices
 * (INT 1 each); a ket primitive pair: its indices (INT 1), a primitive
 * quartet: the distance (FP 5), T (FP 3), F0 (SFU 3, FP 3, BRANCH 1),
 * the prefactor and sum (FP 6); the loops (INT 1, BRANCH 1 an
 * iteration).
 */
static void rp_kernel(struct simt_thread *t, const void *p)
{
	const struct rp_args *a = p;
	uint64_t q = simt_global_x(t);
	float bra[RP_PP][RP_FIELDS], ket[RP_FIELDS], sum = 0.0f;
	uint64_t bp, kp;
	int i, j, f;

	OPS(t, PROG_OP_INT, 3);
	OPS(t, PROG_OP_BRANCH, 1);
	if (q >= (uint64_t)a->count * a->npairs)
		return;
	bp = a->first + q / a->npairs;
	kp = q % a->npairs;
	for (i = 0; i < RP_PP; i++)
		for (f = 0; f < RP_FIELDS; f++)
			bra[i][f] = LD(t, float, a->pairs,
				       (bp * RP_PP + i) * RP_FIELDS + f);
	OPS(t, PROG_OP_INT, RP_PP * RP_FIELDS);
	for (j = 0; j < RP_PP; j++) {
		for (f = 0; f < RP_FIELDS; f++)
			ket[f] = LD(t, float, a->pairs,
				    (kp * RP_PP + j) * RP_FIELDS + f);
		OPS(t, PROG_OP_INT, 1);
		for (i = 0; i < RP_PP; i++) {
			OPS(t, PROG_OP_FP, 5 + 3 + 3 + 6);
			OPS(t, PROG_OP_SFU, 3);
			OPS(t, PROG_OP_BRANCH, 1);
			sum = sum + rp_prim(bra[i], ket);
			OPS(t, PROG_OP_INT, 1);
			OPS(t, PROG_OP_BRANCH, 1);
		}
		OPS(t, PROG_OP_INT, 1);
		OPS(t, PROG_OP_BRANCH, 1);
	}
	ST(t, float, a->ints, q, sum);
}

static int rp_run(struct simt_gpu *gpu, uint64_t size, uint64_t seed,
		  char *err, size_t errlen)
{
	const char *app = "rpes";
	const uint32_t n = (uint32_t)size;
	const uint32_t np = n * (n + 1) / 2;
	float *atom = NULL, *pd = NULL, *got = NULL, *want = NULL;
	struct rp_args args;
	struct app_rng rng;
	uint32_t i, j, pr, ka, kb;
	size_t total;
	int ret;

	ret = app_size_range(size, RP_MIN, RP_MAX, "the shells", app, err,
			     errlen);
	if (ret)
		return ret;
	total = (size_t)np * np;
	atom = malloc(3 * n * sizeof(*atom));
	pd = malloc((size_t)np * RP_PP * RP_FIELDS * sizeof(*pd));
	got = malloc(total * sizeof(*got));
	want = malloc(total * sizeof(*want));
	ret = -ENOMEM;
	if (!atom || !pd || !got || !want) {
		app_err(err, errlen, app, "out of memory");
		goto out;
	}
	/* Hydrogen atoms uniform in a cube of n^(1/3) x 2 bohr: the seed's. */
	app_rng_init(&rng, seed, 65);
	app_rng_fill_float(&rng, atom, 3 * n, 2.0f * cbrtf((float)n));
	/* The host's pair data: shells i <= j, primitives a, b. */
	pr = 0;
	for (i = 0; i < n; i++) {
		for (j = i; j < n; j++, pr++) {
			const float *A = atom + 3 * i, *B = atom + 3 * j;
			float ab2 = (A[0] - B[0]) * (A[0] - B[0]) +
				    (A[1] - B[1]) * (A[1] - B[1]) +
				    (A[2] - B[2]) * (A[2] - B[2]);

			for (ka = 0; ka < RP_PRIM; ka++) {
				for (kb = 0; kb < RP_PRIM; kb++) {
					float al = rp_alpha[ka];
					float be = rp_alpha[kb];
					float s = al + be;
					float norm = powf(4.0f * al * be /
							  (RP_PI * RP_PI),
							  0.75f);
					float *d = pd + ((size_t)pr * RP_PP +
							 ka * RP_PRIM + kb) *
						   RP_FIELDS;

					d[0] = s;
					d[1] = (al * A[0] + be * B[0]) / s;
					d[2] = (al * A[1] + be * B[1]) / s;
					d[3] = (al * A[2] + be * B[2]) / s;
					d[4] = rp_coef[ka] * rp_coef[kb] *
					       norm * expf(-al * be / s * ab2);
				}
			}
		}
	}

	memset(&args, 0, sizeof(args));
	args.npairs = np;
	ret = app_alloc(gpu, (uint64_t)np * RP_PP * RP_FIELDS * sizeof(float),
			"d_pairs", &args.pairs, app, err, errlen);
	if (!ret)
		ret = app_alloc(gpu, (uint64_t)RP_BATCH * np * sizeof(float),
				"d_ints", &args.ints, app, err, errlen);
	if (ret)
		goto out;
	simt_h2d(gpu, args.pairs, pd,
		 (uint64_t)np * RP_PP * RP_FIELDS * sizeof(float));
	for (args.first = 0; args.first < np; args.first += RP_BATCH) {
		args.count = np - args.first < RP_BATCH ? np - args.first :
			     RP_BATCH;
		ret = app_launch(gpu, "rys_eri", rp_kernel,
				 DIM3(app_blocks((uint64_t)args.count * np,
						 RP_BLOCK), 1, 1),
				 DIM3(RP_BLOCK, 1, 1), 0, &args, app, err,
				 errlen);
		if (ret)
			goto out;
		simt_d2h(gpu, got + (size_t)args.first * np, args.ints,
			 (uint64_t)args.count * np * sizeof(float));
	}
	app_test_perturb(got, sizeof(*got), total);

	/* The reference: the same sums, in the kernel's order. */
	for (pr = 0; pr < np; pr++) {
		const float *bra = pd + (size_t)pr * RP_PP * RP_FIELDS;

		for (i = 0; i < np; i++) {
			float sum = 0.0f;

			for (kb = 0; kb < RP_PP; kb++) {
				const float *ket = pd + ((size_t)i * RP_PP +
							 kb) * RP_FIELDS;

				for (ka = 0; ka < RP_PP; ka++)
					sum = sum + rp_prim(bra + ka *
							    RP_FIELDS, ket);
			}
			want[(size_t)pr * np + i] = sum;
		}
	}
	ret = app_check_f32(got, want, total, APP_FLOAT_TOLERANCE, app, "eri",
			    err, errlen);
out:
	free(atom);
	free(pd);
	free(got);
	free(want);
	return ret;
}

const struct app_desc app_rpes = {
	.name = "rpes",
	.suite = "Parboil (rpes; nearest public equivalent)",
	.summary = "two-electron repulsion integrals (ij|kl) of s shells by "
		   "one-root Rys quadrature (Boys F0): a thread a pair of "
		   "shell pairs (blocks of 256), 64 bra pairs a launch with "
		   "the batch's integrals copied back after each; Parboil's "
		   "own rpes is not public to us, so this is our equivalent",
	.input = "size = shells: that many hydrogen atoms (STO-3G 1s, three "
		 "primitives) uniform in a cube of side 2 size^(1/3) bohr, "
		 "from the seed; size (size + 1) / 2 shell pairs and all "
		 "their pairs of pairs (the values do not change the "
		 "program). Large: 24 shells (300 pairs, 5 launches)",
	.small_size = 8,
	.large_size = 24,
	.paper_sizes = "ADSM Table 2: input not given (Parboil's rpes is not "
		       "public, this is an equivalent); --large is 24 shells",
	.kernels = "rys_eri",
	.run = rp_run,
};
