// SPDX-License-Identifier: GPL-2.0
/*
 * SHOC's FFT: a batch of 512-point single-precision complex FFTs, in
 * place, forward and then inverse (SHOC's benchmark runs both), one
 * block of 64 threads a transform (SHOC's FFT512 kernels).
 *
 * 512 = 8 x 8 x 8, as SHOC factors it: thread tid loads the 8 points
 * tid + 64 i, does a radix-8 butterfly in registers (its outputs in
 * bit-reversed order), multiplies by the twiddles exp(-+2 pi i rev(j)
 * tid / 512), and exchanges through shared memory so that each thread
 * holds the next stage's 8 points; radix 8 again with the twiddles of
 * the 64-point sub-transforms, a second exchange, a last radix 8, and
 * thread tid stores outputs tid + 64 i. An exchange goes through one
 * float array, real parts and then imaginary parts, with a barrier
 * after each store and load (SHOC's transpose(); the second skips the
 * last), the first with rows of 66 floats, the second of 72. The
 * twiddles are computed in the kernel (SHOC's __sincosf). The inverse
 * is the same with conjugate twiddles and is not normalised.
 *
 * Checked as transforms: the forward result against a double-precision
 * DFT of the input, the inverse's against 512 x the input, each within
 * 1e-4 of the largest magnitude of its transform (the radix-8 float
 * arithmetic rounds differently from any plain-C order, and outputs
 * near zero cancel).
 */
#include <errno.h>
#include <stdlib.h>

#include "app_util.h"
#include "apps.h"

#define FFT_N		512
#define FFT_THREADS	64
#define FFT_MAX		(1 << 20)	/* transforms: 4 GiB of data */
#define FFT_SHMEM	(8 * 8 * 9 * sizeof(float))
#define FFT_SQRT1_2	0.70710678118654752440f
#define FFT_PI		3.14159265358979323846
#define FFT_TOLERANCE	1e-4

struct fft_c {
	float x, y;
};

struct fft_args {
	uint64_t work;
	bool inverse;
};

static const uint8_t fft_rev8[8] = { 0, 4, 2, 6, 1, 5, 3, 7 };

/*
 * exp(i 2 pi k / n) in double without libm: the angle reduced to [-pi,
 * pi], then Taylor series to well below a float's precision.
 */
static void fft_cis(int64_t k, int64_t n, double *c, double *s)
{
	double th, th2, term;
	int m;

	k %= n;
	if (k < 0)
		k += n;
	if (2 * k > n)
		k -= n;
	th = 2.0 * FFT_PI * (double)k / (double)n;
	th2 = th * th;
	*c = 0.0;
	*s = 0.0;
	term = 1.0;
	for (m = 0; m < 30; m += 2) {
		*c += term;
		term *= -th2 / ((m + 1) * (m + 2));
	}
	term = th;
	for (m = 1; m < 30; m += 2) {
		*s += term;
		term *= -th2 / ((m + 1) * (m + 2));
	}
}

static inline struct fft_c fft_add(struct fft_c a, struct fft_c b)
{
	return (struct fft_c){ a.x + b.x, a.y + b.y };
}

static inline struct fft_c fft_sub(struct fft_c a, struct fft_c b)
{
	return (struct fft_c){ a.x - b.x, a.y - b.y };
}

static inline struct fft_c fft_mul(struct fft_c a, struct fft_c b)
{
	return (struct fft_c){ a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x };
}

static void fft2(struct fft_c *a0, struct fft_c *a1)
{
	struct fft_c c0 = *a0;

	*a0 = fft_add(c0, *a1);
	*a1 = fft_sub(c0, *a1);
}

static void fft4(struct fft_c *a, struct fft_c w_1_4)
{
	fft2(&a[0], &a[2]);
	fft2(&a[1], &a[3]);
	a[3] = fft_mul(a[3], w_1_4);
	fft2(&a[0], &a[1]);
	fft2(&a[2], &a[3]);
}

/*
 * SHOC's FFT8: radix-2 decimation in frequency in registers, outputs in
 * bit-reversed order. 12 FFT2s (4 here, 4 in each FFT4) of a complex add
 * and subtract (FP 4 each) and 5 complex multiplies by constants (FP 4
 * each): FP 68.
 */
#define FFT8_FP		68
static void fft8(struct fft_c *a, bool inverse)
{
	const float s = FFT_SQRT1_2, sign = inverse ? 1.0f : -1.0f;
	const struct fft_c w_1_8 = { s, sign * s };
	const struct fft_c w_1_4 = { 0.0f, sign };
	const struct fft_c w_3_8 = { -s, sign * s };

	fft2(&a[0], &a[4]);
	fft2(&a[1], &a[5]);
	fft2(&a[2], &a[6]);
	fft2(&a[3], &a[7]);
	a[5] = fft_mul(a[5], w_1_8);
	a[6] = fft_mul(a[6], w_1_4);
	a[7] = fft_mul(a[7], w_3_8);
	fft4(&a[0], w_1_4);
	fft4(&a[4], w_1_4);
}

/*
 * a[j] *= exp(-+2 pi i rev(j) k / n), j = 1 .. 7 (SHOC's twiddle()).
 * OPS: k to float (INT 1); a twiddle: its angle (FP 1), __sincosf's
 * range scaling (FP 1) and sine and cosine (SFU 2), the complex
 * multiply (FP 4).
 */
static void fft_twiddle(struct simt_thread *t, struct fft_c *a, uint32_t k,
			uint32_t n, bool inverse)
{
	uint32_t j;

	OPS(t, PROG_OP_INT, 1);
	for (j = 1; j < 8; j++) {
		double c, s;

		fft_cis((inverse ? 1 : -1) * (int64_t)fft_rev8[j] * k, n,
			&c, &s);
		a[j] = fft_mul(a[j], (struct fft_c){ (float)c, (float)s });
	}
	OPS(t, PROG_OP_FP, 7 * 6);
	OPS(t, PROG_OP_SFU, 7 * 2);
}

/*
 * SHOC's transpose(): the real parts stored at store + i ds (a[rev i]),
 * loaded from load + i dl, then the imaginary parts; a barrier after
 * each step whose bit is set in sync (8 .. 1).
 */
static void fft_exchange(struct simt_thread *t, struct fft_c *a,
			 uint32_t store, uint32_t ds, uint32_t load,
			 uint32_t dl, unsigned int sync)
{
	uint32_t i;

	for (i = 0; i < 8; i++)
		STS(t, float, store + i * ds, a[fft_rev8[i]].x);
	if (sync & 8)
		SYNC(t);
	for (i = 0; i < 8; i++)
		a[i].x = LDS(t, float, load + i * dl);
	if (sync & 4)
		SYNC(t);
	for (i = 0; i < 8; i++)
		STS(t, float, store + i * ds, a[fft_rev8[i]].y);
	if (sync & 2)
		SYNC(t);
	for (i = 0; i < 8; i++)
		a[i].y = LDS(t, float, load + i * dl);
	if (sync & 1)
		SYNC(t);
}

/*
 * FFT512_device / IFFT512_device. SHOC unrolls every loop: no loop
 * OPS. OPS: hi and lo from tid (INT 2), the transform's base (INT 1),
 * the exchanges' two shared offsets each (INT 2, twice), the FFT8s and
 * twiddles as stated at theirs.
 */
static void fft_kernel(struct simt_thread *t, const void *p)
{
	const struct fft_args *a = p;
	uint32_t tid = simt_thread_idx(t).x;
	uint32_t hi = tid >> 3, lo = tid & 7, i;
	uint64_t base = (uint64_t)simt_block_idx(t).x * FFT_N + tid;
	struct fft_c v[8];

	OPS(t, PROG_OP_INT, 3);
	for (i = 0; i < 8; i++)
		v[i] = LD(t, struct fft_c, a->work, base + FFT_THREADS * i);
	fft8(v, a->inverse);
	OPS(t, PROG_OP_FP, FFT8_FP);
	fft_twiddle(t, v, tid, FFT_N, a->inverse);
	OPS(t, PROG_OP_INT, 2);
	fft_exchange(t, v, hi * 8 + lo, 66, lo * 66 + hi, 8, 0xf);
	fft8(v, a->inverse);
	OPS(t, PROG_OP_FP, FFT8_FP);
	fft_twiddle(t, v, hi, 64, a->inverse);
	OPS(t, PROG_OP_INT, 2);
	fft_exchange(t, v, hi * 8 + lo, 72, hi * 72 + lo, 8, 0xe);
	fft8(v, a->inverse);
	OPS(t, PROG_OP_FP, FFT8_FP);
	for (i = 0; i < 8; i++)
		ST(t, struct fft_c, a->work, base + FFT_THREADS * i,
		   v[fft_rev8[i]]);
}

/*
 * got (batch transforms of FFT_N complex floats) against want (the
 * same in double), each transform within FFT_TOLERANCE of its largest
 * component's magnitude.
 */
static int fft_check(const struct fft_c *got, const double *want,
		     uint64_t batch, const char *what, char *err,
		     size_t errlen)
{
	uint64_t b;
	size_t i;

	for (b = 0; b < batch; b++) {
		const float *g = &got[b * FFT_N].x;
		const double *w = want + b * FFT_N * 2;
		double big = 0.0;

		for (i = 0; i < 2 * FFT_N; i++)
			if (w[i] > big || -w[i] > big)
				big = w[i] < 0 ? -w[i] : w[i];
		for (i = 0; i < 2 * FFT_N; i++) {
			double diff = (double)g[i] - w[i];

			/* Written so that a NaN fails too. */
			if (diff <= FFT_TOLERANCE * big &&
			    -diff <= FFT_TOLERANCE * big)
				continue;
			app_err(err, errlen, "fft",
				"%s[%llu].%c = %.9g, the reference says %.9g",
				what, (unsigned long long)(b * FFT_N + i / 2),
				i % 2 ? 'y' : 'x', g[i], w[i]);
			return -EIO;
		}
	}
	return 0;
}

/* The forward DFT of each transform, in double, by its definition. */
static void fft_ref(const struct fft_c *in, double *out, uint64_t batch)
{
	double c[FFT_N], s[FFT_N];
	uint64_t b;
	uint32_t k, n;

	for (k = 0; k < FFT_N; k++)
		fft_cis(-(int64_t)k, FFT_N, &c[k], &s[k]);
	for (b = 0; b < batch; b++) {
		const struct fft_c *x = in + b * FFT_N;
		double *y = out + b * FFT_N * 2;

		for (k = 0; k < FFT_N; k++) {
			double re = 0.0, im = 0.0;

			for (n = 0; n < FFT_N; n++) {
				uint32_t r = (n * k) % FFT_N;

				re += x[n].x * c[r] - x[n].y * s[r];
				im += x[n].x * s[r] + x[n].y * c[r];
			}
			y[2 * k] = re;
			y[2 * k + 1] = im;
		}
	}
}

static int fft_run(struct simt_gpu *gpu, uint64_t size, uint64_t seed,
		   char *err, size_t errlen)
{
	const char *app = "fft";
	const uint64_t points = size * FFT_N;
	const uint64_t bytes = points * sizeof(struct fft_c);
	struct fft_c *in = NULL, *got = NULL;
	double *want = NULL;
	struct fft_args args = { .inverse = false };
	struct app_rng rng;
	uint64_t i;
	int ret;

	ret = app_size_range(size, 1, FFT_MAX, "512-point transforms", app,
			     err, errlen);
	if (ret)
		return ret;
	in = malloc(bytes);
	got = malloc(bytes);
	want = malloc(points * 2 * sizeof(double));
	ret = -ENOMEM;
	if (!in || !got || !want) {
		app_err(err, errlen, app, "out of memory");
		goto out;
	}
	/* Real and imaginary parts uniform in [-1, 1): signed, so sums cancel. */
	app_rng_init(&rng, seed, 70);
	app_rng_fill_float(&rng, &in[0].x, 2 * points, 2.0f);
	for (i = 0; i < points; i++) {
		in[i].x -= 1.0f;
		in[i].y -= 1.0f;
	}

	ret = app_alloc(gpu, bytes, "work", &args.work, app, err, errlen);
	if (ret)
		goto out;
	simt_h2d(gpu, args.work, in, bytes);
	ret = app_launch(gpu, "FFT512_device", fft_kernel,
			 DIM3((uint32_t)size, 1, 1), DIM3(FFT_THREADS, 1, 1),
			 FFT_SHMEM, &args, app, err, errlen);
	if (ret)
		goto out;
	/* The forward result, to check it on its own. */
	simt_d2h(gpu, got, args.work, bytes);
	fft_ref(in, want, size);
	ret = fft_check(got, want, size, "forward", err, errlen);
	if (ret)
		goto out;

	args.inverse = true;
	ret = app_launch(gpu, "IFFT512_device", fft_kernel,
			 DIM3((uint32_t)size, 1, 1), DIM3(FFT_THREADS, 1, 1),
			 FFT_SHMEM, &args, app, err, errlen);
	if (ret)
		goto out;
	simt_d2h(gpu, got, args.work, bytes);
	app_test_perturb(got, sizeof(float), 2 * points);
	/* Not normalised: the inverse of the forward is N x the input. */
	for (i = 0; i < points; i++) {
		want[2 * i] = (double)FFT_N * in[i].x;
		want[2 * i + 1] = (double)FFT_N * in[i].y;
	}
	ret = fft_check(got, want, size, "inverse", err, errlen);
out:
	free(in);
	free(got);
	free(want);
	return ret;
}

const struct app_desc app_fft = {
	.name = "fft",
	.suite = "SHOC (FFT)",
	.summary = "batched 512-point complex FFTs, forward then inverse: a "
		   "block of 64 threads a transform, three radix-8 passes in "
		   "registers with two shared-memory exchanges",
	.input = "size = 512-point transforms in the batch; real and "
		 "imaginary parts uniform in [-1, 1) from the seed (the "
		 "values do not change the program)",
	.small_size = 32,
	.large_size = 4096,
	.paper_sizes = "Barre Table I (fft, MPKI 0.48): input not given",
	.kernels = "FFT512_device, IFFT512_device",
	.run = fft_run,
};
