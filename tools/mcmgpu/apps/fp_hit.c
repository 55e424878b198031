// SPDX-License-Identifier: GPL-2.0
/*
 * hit (FinePack §V): Tartan's HIT simulates homogeneous isotropic
 * turbulence pseudo-spectrally, its 3D FFTs X-partitioned across GPUs
 * with all-to-all transposes done by P2P stores. Tartan's code is not
 * public; this is the nearest public scheme, the slab-decomposed 3D FFT
 * of pseudo-spectral Navier-Stokes codes (e.g. Rogallo's): forward FFT
 * along z and y in each GPU's x slab, a transpose to y slabs, the FFT
 * along x, the spectral step, and back the same way.
 * Ours, where the paper is silent:
 *  - The spectral step is the viscous term's exact integration,
 *    u^(k) *= exp(-nu dt |k|^2) (nu dt = 1e-3), on one velocity
 *    component, 2 time steps; the nonlinear term's products (more of the
 *    same transforms and transposes) are left out. u starts real,
 *    uniform in [0, 1) from the seed.
 *  - An N^3 complex grid (interleaved float re, im) in two objects:
 *    A in x-major order [x][y][z] and T in y-major order [y][x][z], each
 *    one copy whose kwc share g is GPU g's slab (the data is distributed,
 *    not replicated: each point has one home, so the check over the
 *    whole of A catches a lost or misdirected store).
 *  - A thread a line, blocks of 64, radix-2 FFTs in registers; the
 *    twiddles and the 1D decay factors are kernel parameters (the
 *    constant bank). The transposes are fused into the FFT kernels: the
 *    y-FFT stores its results straight into T at their y slab's GPU, the
 *    x kernel stores into A at their x slab's GPU (the all-to-all, 8 B P2P
 *    stores, 32 lanes contiguous in z).
 *  - The inverse transforms scale by 1 / N^3 at the last (z) pass.
 * A is checked against the same line transforms on the host.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "app_util.h"
#include "apps.h"
#include "fp_util.h"

#define HIT_BLOCK	64
#define HIT_MAX		128
#define HIT_STEPS	2
#define HIT_NU_DT	1e-3f

struct hit_args {
	uint64_t a, t;
	uint32_t n, log2n, pass;	/* pass: enum hit_pass */
	float scale;			/* 1 / N^3 */
	float twr[HIT_MAX / 2], twi[HIT_MAX / 2];
	float decay[HIT_MAX];		/* exp(-nu dt k^2), k the wavenumber */
};

/*
 * In-place radix-2 decimation-in-time FFT of one line; inverse with the
 * conjugate twiddles, unscaled. FP: 8 a butterfly, (n / 2) log2 n.
 */
static void hit_fft(float *re, float *im, const struct hit_args *a,
		    bool inverse)
{
	uint32_t n = a->n, i, j, len, k;

	for (i = 1, j = 0; i < n; i++) {
		uint32_t bit = n >> 1;

		for (; j & bit; bit >>= 1)
			j ^= bit;
		j |= bit;
		if (i < j) {
			float tr = re[i], ti = im[i];

			re[i] = re[j];
			im[i] = im[j];
			re[j] = tr;
			im[j] = ti;
		}
	}
	for (len = 2; len <= n; len <<= 1) {
		uint32_t step = n / len;

		for (i = 0; i < n; i += len) {
			for (k = 0; k < len / 2; k++) {
				float wr = a->twr[k * step];
				float wi = inverse ? -a->twi[k * step] :
					   a->twi[k * step];
				float br = re[i + k + len / 2];
				float bi = im[i + k + len / 2];
				float tr = wr * br - wi * bi;
				float ti = wr * bi + wi * br;

				re[i + k + len / 2] = re[i + k] - tr;
				im[i + k + len / 2] = im[i + k] - ti;
				re[i + k] = re[i + k] + tr;
				im[i + k] = im[i + k] + ti;
			}
		}
	}
}

static unsigned int hit_fft_fp(const struct hit_args *a)
{
	return 8 * (a->n / 2) * a->log2n;
}

/* The FFT's index work: the bit reversal (INT 3 a point). */
#define HIT_FFT_INT(a)	(3 * (a)->n)

enum hit_pass { HIT_Z, HIT_Y_TRANSPOSE, HIT_X_DECAY, HIT_IY, HIT_IZ };

/* A point is one 8 B access: re in the low word, as a float2. */
static inline uint64_t hit_pack(float re, float im)
{
	uint32_t r, i;

	memcpy(&r, &re, 4);
	memcpy(&i, &im, 4);
	return (uint64_t)i << 32 | r;
}

static inline void hit_unpack(uint64_t v, float *re, float *im)
{
	uint32_t r = (uint32_t)v, i = (uint32_t)(v >> 32);

	memcpy(re, &r, 4);
	memcpy(im, &i, 4);
}

/*
 * Point i of thread (p, q)'s line in a pass's source and destination
 * (complex elements): z lines of A (p = x, q = y), y lines of A (p = x,
 * q = z), x lines of T (p = y, q = z).
 */
static inline uint64_t hit_a(uint32_t n, uint32_t x, uint32_t y, uint32_t z)
{
	return ((uint64_t)x * n + y) * n + z;
}

/*
 * The five passes' kernel. OPS: the index, p, q (INT 3); the FFT
 * (hit_fft_fp() FP, HIT_FFT_INT INT) once or, in the x pass, twice
 * around the decay (FP 2 a point); the z pass's scale (FP 2 a point); a
 * point's load and store addresses (INT 2 a point).
 */
static void hit_kernel(struct simt_thread *t, const void *p)
{
	const struct hit_args *a = p;
	uint32_t pass = a->pass;
	uint32_t n = a->n, tid = (uint32_t)simt_global_x(t);
	uint32_t pp = tid / n, q = tid % n, i;
	float re[HIT_MAX], im[HIT_MAX];
	uint64_t src = pass == HIT_X_DECAY ? a->t : a->a;
	uint64_t dst = pass == HIT_Y_TRANSPOSE ? a->t : a->a;

	OPS(t, PROG_OP_INT, 3);
	for (i = 0; i < n; i++) {
		uint64_t s;

		/* z lines of A; y lines of A and x lines of T alike. */
		s = pass == HIT_Z || pass == HIT_IZ ? hit_a(n, pp, q, i) :
		    hit_a(n, pp, i, q);
		hit_unpack(LD(t, uint64_t, src, s), &re[i], &im[i]);
	}
	OPS(t, PROG_OP_INT, 2 * n + HIT_FFT_INT(a));
	OPS(t, PROG_OP_FP, hit_fft_fp(a));
	hit_fft(re, im, a, pass >= HIT_IY);
	if (pass == HIT_X_DECAY) {
		float f = a->decay[pp] * a->decay[q];

		OPS(t, PROG_OP_FP, 2 * n + 1 + hit_fft_fp(a));
		OPS(t, PROG_OP_INT, HIT_FFT_INT(a));
		for (i = 0; i < n; i++) {
			re[i] = re[i] * (f * a->decay[i]);
			im[i] = im[i] * (f * a->decay[i]);
		}
		hit_fft(re, im, a, true);
	}
	if (pass == HIT_IZ) {
		OPS(t, PROG_OP_FP, 2 * n);
		for (i = 0; i < n; i++) {
			re[i] = re[i] * a->scale;
			im[i] = im[i] * a->scale;
		}
	}
	for (i = 0; i < n; i++) {
		uint64_t d;

		/* y pass: into T[y][x][z]; x pass: into A[x][y][z]. */
		d = pass == HIT_Z || pass == HIT_IZ ? hit_a(n, pp, q, i) :
		    pass == HIT_IY ? hit_a(n, pp, i, q) : hit_a(n, i, pp, q);
		ST(t, uint64_t, dst, d, hit_pack(re[i], im[i]));
	}
}

/* One line of the host's grid (re, im interleaved), by its stride. */
static void hit_ref_line(float *g, uint64_t base, uint64_t stride,
			 const struct hit_args *a, bool inverse,
			 const float *decay_yz, float scale)
{
	float re[HIT_MAX], im[HIT_MAX];
	uint32_t i;

	for (i = 0; i < a->n; i++) {
		re[i] = g[2 * (base + i * stride)];
		im[i] = g[2 * (base + i * stride) + 1];
	}
	hit_fft(re, im, a, inverse);
	if (decay_yz) {
		for (i = 0; i < a->n; i++) {
			re[i] = re[i] * (*decay_yz * a->decay[i]);
			im[i] = im[i] * (*decay_yz * a->decay[i]);
		}
		hit_fft(re, im, a, true);
	}
	if (scale != 0.0f) {
		for (i = 0; i < a->n; i++) {
			re[i] = re[i] * scale;
			im[i] = im[i] * scale;
		}
	}
	for (i = 0; i < a->n; i++) {
		g[2 * (base + i * stride)] = re[i];
		g[2 * (base + i * stride) + 1] = im[i];
	}
}

/* One time step on the host, line by line as the kernels go. */
static void hit_ref(float *g, const struct hit_args *a)
{
	uint32_t n = a->n, p, q;
	uint64_t nn = (uint64_t)n * n;

	for (p = 0; p < n; p++)
		for (q = 0; q < n; q++)
			hit_ref_line(g, hit_a(n, p, q, 0), 1, a, false, NULL,
				     0.0f);
	for (p = 0; p < n; p++)
		for (q = 0; q < n; q++)
			hit_ref_line(g, hit_a(n, p, 0, q), n, a, false, NULL,
				     0.0f);
	for (p = 0; p < n; p++) {
		for (q = 0; q < n; q++) {
			float f = a->decay[p] * a->decay[q];

			hit_ref_line(g, hit_a(n, 0, p, q), nn, a, false, &f,
				     0.0f);
		}
	}
	for (p = 0; p < n; p++)
		for (q = 0; q < n; q++)
			hit_ref_line(g, hit_a(n, p, 0, q), n, a, true, NULL,
				     0.0f);
	for (p = 0; p < n; p++)
		for (q = 0; q < n; q++)
			hit_ref_line(g, hit_a(n, p, q, 0), 1, a, true, NULL,
				     a->scale);
}

static int hit_run(struct simt_gpu *gpu, uint64_t size, uint64_t seed,
		   char *err, size_t errlen)
{
	static const char *const names[] = {
		"fft_z", "fft_y_transpose", "fft_x_decay_transpose",
		"ifft_y", "ifft_z",
	};
	const char *app = "hit";
	uint64_t points = size * size * size, i;
	float *g = NULL, *got = NULL;
	struct hit_args args;
	struct app_rng rng;
	uint32_t k, blocks;
	int ret, step, pass;

	ret = app_size_range(size, 16, HIT_MAX, "the grid's side", app, err,
			     errlen);
	if (ret)
		return ret;
	if (size & (size - 1))
		return app_err(err, errlen, app,
			       "size %llu: the grid's side must be a power of two",
			       (unsigned long long)size), -EINVAL;
	g = calloc(2 * points, sizeof(float));
	got = malloc(2 * points * sizeof(float));
	ret = -ENOMEM;
	if (!g || !got) {
		app_err(err, errlen, app, "out of memory");
		goto out;
	}
	app_rng_init(&rng, seed, 94);
	for (i = 0; i < points; i++)
		g[2 * i] = app_rng_float(&rng);

	memset(&args, 0, sizeof(args));
	args.n = (uint32_t)size;
	while ((1u << args.log2n) < args.n)
		args.log2n++;
	args.scale = 1.0f / (float)points;
	for (k = 0; k < args.n / 2; k++) {
		double th = -2.0 * M_PI * k / args.n;

		args.twr[k] = (float)cos(th);
		args.twi[k] = (float)sin(th);
	}
	for (k = 0; k < args.n; k++) {
		int32_t w = k < args.n / 2 ? (int32_t)k :
			    (int32_t)k - (int32_t)args.n;

		args.decay[k] = expf(-HIT_NU_DT * (float)(w * w));
	}
	ret = app_alloc(gpu, points * 8, "A", &args.a, app, err, errlen);
	if (!ret)
		ret = app_alloc(gpu, points * 8, "T", &args.t, app, err,
				errlen);
	if (ret)
		goto out;
	simt_h2d(gpu, args.a, g, points * 8);
	blocks = (uint32_t)(size * size / HIT_BLOCK);
	for (step = 0; step < HIT_STEPS; step++) {
		for (pass = HIT_Z; pass <= HIT_IZ; pass++) {
			args.pass = (uint32_t)pass;
			ret = app_launch(gpu, names[pass], hit_kernel,
					 DIM3(blocks, 1, 1),
					 DIM3(HIT_BLOCK, 1, 1), 0, &args, app,
					 err, errlen);
			if (ret)
				goto out;
		}
	}
	simt_d2h(gpu, got, args.a, points * 8);
	app_test_perturb(got, sizeof(float), 2 * points);

	for (step = 0; step < HIT_STEPS; step++)
		hit_ref(g, &args);
	ret = app_check_f32(got, g, 2 * points, APP_FLOAT_TOLERANCE, app,
			    "u (re, im)", err, errlen);
out:
	free(g);
	free(got);
	return ret;
}

const struct app_desc app_fp_hit = {
	.name = "hit",
	.suite = "FinePack §V (HIT, Tartan; nearest public scheme)",
	.summary = "2 pseudo-spectral steps (viscous decay) of a 3D FFT on 4 "
		   "GPUs by x slabs, a thread a line, the y-FFT and x-FFT "
		   "kernels storing their results straight into the other "
		   "layout's slab owner (P2P all-to-all transposes, 8 B "
		   "stores)",
	.input = "size = N, a power of two, 16 to 128: an N^3 grid, u real "
		 "uniform in [0, 1) from the seed",
	.small_size = 16,
	.large_size = 64,
	.kernels = "fft_z, fft_y_transpose, fft_x_decay_transpose, ifft_y, "
		   "ifft_z",
	.paper_sizes = "FinePack §V: Tartan's HIT (no size given) = any "
		       "size; large 64 (64^3 points)",
	.run = hit_run,
};
