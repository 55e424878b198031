// SPDX-License-Identifier: GPL-2.0
/*
 * srad (CPElide's Table II: SRAD_v2): Rodinia's srad_v2, speckle-reducing
 * anisotropic diffusion of an image J. Each iteration the host sums the
 * region of interest (rows r1..r2, columns c1..c2) for q0^2 = var /
 * mean^2, copies J in, and launches two kernels on 16 x 16 tiles, a
 * thread a pixel (BLOCK_SIZE 16): srad_cuda_1 loads the tile and its
 * four neighbouring rows and columns into shared memory and writes each
 * pixel's differences to its neighbours (N_C, S_C, W_C, E_C) and its
 * diffusion coefficient C in [0, 1]; srad_cuda_2 loads C with its south
 * and east neighbours and updates J += lambda / 4 x (c dN + c_S dS +
 * c dW + c_E dE). The host copies J back. Past the image's edge a
 * neighbour is the pixel itself. Rodinia's kernels load the neighbour
 * row or column beyond an edge tile before replacing it with the edge's
 * own (reading outside J); here the edge tiles load only the one they
 * use, since the executor faults on accesses outside every object.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "app_util.h"
#include "apps.h"

#define SR_BLOCK	16
#define SR_ROI		127	/* Table II: 0 127 0 127 */
#define SR_LAMBDA	0.5f
#define SR_ITERS	2
#define SR_MAX		8192

struct sr_args {
	uint64_t e, w, n, s, j, c;
	int32_t cols, rows;
	float q0sqr, lambda;
};

/* The coefficient from the four differences, clamped to [0, 1]. */
static inline float sr_coef(float n, float s, float w, float e, float jc,
			    float q0sqr)
{
	float g2 = (n * n + s * s + w * w + e * e) / (jc * jc);
	float l = (n + s + w + e) / jc;
	float num = 0.5f * g2 - (1.0f / 16.0f) * (l * l);
	float den = 1.0f + 0.25f * l;
	float qsqr = num / (den * den);
	float c;

	den = (qsqr - q0sqr) / (q0sqr * (1.0f + q0sqr));
	c = 1.0f / (1.0f + den);
	return c < 0 ? 0.0f : c > 1 ? 1.0f : c;
}

static inline float sr_update(float j, float cc, float cs, float ce,
			      float n, float s, float w, float e, float lambda)
{
	float d = cc * n + cs * s + cc * w + ce * e;

	return j + 0.25f * lambda * d;
}

/*
 * Shared (16 x 16 floats each): temp, north, south, west, east and
 * temp_result. OPS: the indices (INT 6); the north and south choice
 * (INT 2, BRANCH 2), west and east (INT 2, BRANCH 2); the pixel's case
 * (counted as INT 4, BRANCH 4); the differences (FP 4), g2 and l (FP 7,
 * SFU 2), num, den, qsqr (FP 5, SFU 1), the second den and c (FP 4, SFU
 * 2), the clamp (INT 2, BRANCH 2).
 */
static void sr_kernel1(struct simt_thread *t, const void *p)
{
	const struct sr_args *a = p;
	const uint32_t tmp = 0, no = 256, so = 512, we = 768, ea = 1024;
	const uint32_t res = 1280;
	int32_t tx = (int32_t)simt_thread_idx(t).x;
	int32_t ty = (int32_t)simt_thread_idx(t).y;
	int32_t bx = (int32_t)simt_block_idx(t).x;
	int32_t by = (int32_t)simt_block_idx(t).y;
	int32_t gx = (int32_t)simt_grid_dim(t).x;
	int32_t gy = (int32_t)simt_grid_dim(t).y;
	int64_t base = (int64_t)a->cols * SR_BLOCK * by + SR_BLOCK * bx;
	int64_t index = base + (int64_t)a->cols * ty + tx;
	uint32_t me = ty * SR_BLOCK + tx;
	float n, s, w, e, jc;

	OPS(t, PROG_OP_INT, 8);
	OPS(t, PROG_OP_BRANCH, 2);
	if (by == 0)
		STS(t, float, no + me, LD(t, float, a->j, SR_BLOCK * bx + tx));
	else
		STS(t, float, no + me, LD(t, float, a->j, base + tx - a->cols));
	if (by == gy - 1)
		STS(t, float, so + me, LD(t, float, a->j, base +
			(int64_t)a->cols * (SR_BLOCK - 1) + tx));
	else
		STS(t, float, so + me, LD(t, float, a->j, base +
			(int64_t)a->cols * SR_BLOCK + tx));
	SYNC(t);
	OPS(t, PROG_OP_INT, 2);
	OPS(t, PROG_OP_BRANCH, 2);
	if (bx == 0)
		STS(t, float, we + me, LD(t, float, a->j, base +
			(int64_t)a->cols * ty));
	else
		STS(t, float, we + me, LD(t, float, a->j, base +
			(int64_t)a->cols * ty - 1));
	if (bx == gx - 1)
		STS(t, float, ea + me, LD(t, float, a->j, base +
			(int64_t)a->cols * ty + SR_BLOCK - 1));
	else
		STS(t, float, ea + me, LD(t, float, a->j, base +
			(int64_t)a->cols * ty + SR_BLOCK));
	SYNC(t);
	STS(t, float, tmp + me, LD(t, float, a->j, index));
	SYNC(t);
	jc = LDS(t, float, tmp + me);
	OPS(t, PROG_OP_INT, 4);
	OPS(t, PROG_OP_BRANCH, 4);
	n = ty == 0 ? LDS(t, float, no + me) : LDS(t, float, tmp + me - 16);
	s = ty == SR_BLOCK - 1 ? LDS(t, float, so + me) :
		LDS(t, float, tmp + me + 16);
	w = tx == 0 ? LDS(t, float, we + me) : LDS(t, float, tmp + me - 1);
	e = tx == SR_BLOCK - 1 ? LDS(t, float, ea + me) :
		LDS(t, float, tmp + me + 1);
	n -= jc;
	s -= jc;
	w -= jc;
	e -= jc;
	OPS(t, PROG_OP_FP, 20);
	OPS(t, PROG_OP_SFU, 5);
	OPS(t, PROG_OP_INT, 2);
	OPS(t, PROG_OP_BRANCH, 2);
	STS(t, float, res + me, sr_coef(n, s, w, e, jc, a->q0sqr));
	SYNC(t);
	ST(t, float, a->c, index, LDS(t, float, res + me));
	ST(t, float, a->e, index, e);
	ST(t, float, a->w, index, w);
	ST(t, float, a->s, index, s);
	ST(t, float, a->n, index, n);
}

/*
 * Shared: south_c, east_c, c_cuda_temp, c_cuda_result, temp. OPS: the
 * indices (INT 6); the south and east choice (INT 2, BRANCH 2); the
 * pixel's case (INT 4, BRANCH 3); the divergence (FP 4) and the update
 * (FP 2).
 */
static void sr_kernel2(struct simt_thread *t, const void *p)
{
	const struct sr_args *a = p;
	const uint32_t so = 0, ea = 256, ct = 512, cr = 768, tmp = 1024;
	int32_t tx = (int32_t)simt_thread_idx(t).x;
	int32_t ty = (int32_t)simt_thread_idx(t).y;
	int32_t bx = (int32_t)simt_block_idx(t).x;
	int32_t by = (int32_t)simt_block_idx(t).y;
	int32_t gx = (int32_t)simt_grid_dim(t).x;
	int32_t gy = (int32_t)simt_grid_dim(t).y;
	int64_t base = (int64_t)a->cols * SR_BLOCK * by + SR_BLOCK * bx;
	int64_t index = base + (int64_t)a->cols * ty + tx;
	uint32_t me = ty * SR_BLOCK + tx;
	float cc, cs, ce, dn, ds, dw, de;

	OPS(t, PROG_OP_INT, 6);
	STS(t, float, tmp + me, LD(t, float, a->j, index));
	SYNC(t);
	OPS(t, PROG_OP_INT, 1);
	OPS(t, PROG_OP_BRANCH, 1);
	if (by == gy - 1)
		STS(t, float, so + me, LD(t, float, a->c, base +
			(int64_t)a->cols * (SR_BLOCK - 1) + tx));
	else
		STS(t, float, so + me, LD(t, float, a->c, base +
			(int64_t)a->cols * SR_BLOCK + tx));
	SYNC(t);
	OPS(t, PROG_OP_INT, 1);
	OPS(t, PROG_OP_BRANCH, 1);
	if (bx == gx - 1)
		STS(t, float, ea + me, LD(t, float, a->c, base +
			(int64_t)a->cols * ty + SR_BLOCK - 1));
	else
		STS(t, float, ea + me, LD(t, float, a->c, base +
			(int64_t)a->cols * ty + SR_BLOCK));
	SYNC(t);
	STS(t, float, ct + me, LD(t, float, a->c, index));
	SYNC(t);
	cc = LDS(t, float, ct + me);
	OPS(t, PROG_OP_INT, 4);
	OPS(t, PROG_OP_BRANCH, 3);
	cs = ty == SR_BLOCK - 1 ? LDS(t, float, so + me) :
		LDS(t, float, ct + me + 16);
	ce = tx == SR_BLOCK - 1 ? LDS(t, float, ea + me) :
		LDS(t, float, ct + me + 1);
	dn = LD(t, float, a->n, index);
	ds = LD(t, float, a->s, index);
	dw = LD(t, float, a->w, index);
	de = LD(t, float, a->e, index);
	OPS(t, PROG_OP_FP, 6);
	STS(t, float, cr + me, sr_update(LDS(t, float, tmp + me), cc, cs, ce,
					 dn, ds, dw, de, a->lambda));
	SYNC(t);
	ST(t, float, a->j, index, LDS(t, float, cr + me));
}

/* Rodinia's host statistics over the region of interest: q0^2. */
static float sr_q0sqr(const float *j, int32_t cols, int32_t r2, int32_t c2)
{
	float sum = 0, sum2 = 0, mean, var, size_r;
	int32_t r, c;

	for (r = 0; r <= r2; r++) {
		for (c = 0; c <= c2; c++) {
			float v = j[(int64_t)r * cols + c];

			sum += v;
			sum2 += v * v;
		}
	}
	size_r = (float)((r2 + 1) * (c2 + 1));
	mean = sum / size_r;
	var = sum2 / size_r - mean * mean;
	return var / (mean * mean);
}

/* The reference: the same two sweeps over the whole image. */
static void sr_ref(float *j, float *c, float *d, int32_t n, int32_t r2,
		   int32_t c2)
{
	int32_t it, y, x;

	for (it = 0; it < SR_ITERS; it++) {
		float q0 = sr_q0sqr(j, n, r2, c2);

		for (y = 0; y < n; y++) {
			for (x = 0; x < n; x++) {
				int64_t i = (int64_t)y * n + x;
				float jc = j[i];
				float *dd = d + 4 * i;

				dd[0] = j[i - (y ? n : 0)] - jc;
				dd[1] = j[i + (y < n - 1 ? n : 0)] - jc;
				dd[2] = j[i - (x ? 1 : 0)] - jc;
				dd[3] = j[i + (x < n - 1 ? 1 : 0)] - jc;
				c[i] = sr_coef(dd[0], dd[1], dd[2], dd[3], jc,
					       q0);
			}
		}
		for (y = 0; y < n; y++) {
			for (x = 0; x < n; x++) {
				int64_t i = (int64_t)y * n + x;
				float *dd = d + 4 * i;

				j[i] = sr_update(j[i], c[i],
						 c[i + (y < n - 1 ? n : 0)],
						 c[i + (x < n - 1 ? 1 : 0)],
						 dd[0], dd[1], dd[2], dd[3],
						 SR_LAMBDA);
			}
		}
	}
}

static int sr_run(struct simt_gpu *gpu, uint64_t size, uint64_t seed,
		  char *err, size_t errlen)
{
	const char *app = "srad";
	const int32_t n = (int32_t)size;
	const int32_t r2 = n - 1 < SR_ROI ? n - 1 : SR_ROI;
	const uint64_t px = size * size, bytes = px * sizeof(float);
	const struct simt_dim3 grid = DIM3(n / SR_BLOCK, n / SR_BLOCK, 1);
	const struct simt_dim3 block = DIM3(SR_BLOCK, SR_BLOCK, 1);
	float *j = NULL, *want = NULL, *c = NULL, *d = NULL;
	struct sr_args args = { .cols = n, .rows = n, .lambda = SR_LAMBDA };
	struct app_rng rng;
	uint64_t i;
	int it, ret;

	ret = app_size_range(size, 2 * SR_BLOCK, SR_MAX, "the image's side",
			     app, err, errlen);
	if (ret)
		return ret;
	if (size % SR_BLOCK) {
		app_err(err, errlen, app,
			"size %llu: the image's side must be a multiple of 16",
			(unsigned long long)size);
		return -EINVAL;
	}
	j = malloc(bytes);
	want = malloc(bytes);
	c = malloc(bytes);
	d = malloc(4 * bytes);
	ret = -ENOMEM;
	if (!j || !want || !c || !d) {
		app_err(err, errlen, app, "out of memory");
		goto out;
	}
	/* Rodinia's random_matrix: I uniform in [0, 1], J = exp(I). */
	app_rng_init(&rng, seed, 70);
	for (i = 0; i < px; i++) {
		j[i] = expf(app_rng_float(&rng));
		want[i] = j[i];
	}
	ret = app_alloc(gpu, bytes, "J_cuda", &args.j, app, err, errlen);
	if (!ret)
		ret = app_alloc(gpu, bytes, "C_cuda", &args.c, app, err,
				errlen);
	if (!ret)
		ret = app_alloc(gpu, bytes, "E_C", &args.e, app, err, errlen);
	if (!ret)
		ret = app_alloc(gpu, bytes, "W_C", &args.w, app, err, errlen);
	if (!ret)
		ret = app_alloc(gpu, bytes, "N_C", &args.n, app, err, errlen);
	if (!ret)
		ret = app_alloc(gpu, bytes, "S_C", &args.s, app, err, errlen);
	for (it = 0; !ret && it < SR_ITERS; it++) {
		args.q0sqr = sr_q0sqr(j, n, r2, r2);
		simt_h2d(gpu, args.j, j, bytes);
		ret = app_launch(gpu, "srad_cuda_1", sr_kernel1, grid, block,
				 6 * SR_BLOCK * SR_BLOCK * sizeof(float),
				 &args, app, err, errlen);
		if (!ret)
			ret = app_launch(gpu, "srad_cuda_2", sr_kernel2, grid,
					 block,
					 5 * SR_BLOCK * SR_BLOCK *
					 sizeof(float), &args, app, err,
					 errlen);
		simt_d2h(gpu, j, args.j, bytes);
	}
	if (ret)
		goto out;
	app_test_perturb(j, sizeof(*j), px);

	sr_ref(want, c, d, n, r2, r2);
	ret = app_check_f32(j, want, px, APP_FLOAT_TOLERANCE, app, "J", err,
			    errlen);
out:
	free(j);
	free(want);
	free(c);
	free(d);
	return ret;
}

const struct app_desc app_srad = {
	.name = "srad",
	.suite = "Rodinia (srad_v2)",
	.summary = "speckle-reducing anisotropic diffusion: per iteration "
		   "the host's region statistics, then srad_cuda_1 "
		   "(differences and coefficient) and srad_cuda_2 (update) "
		   "on 16 x 16 shared-memory tiles, 2 iterations",
	.input = "size = the image's side (a multiple of 16, at least 32); "
		 "I uniform in [0, 1) from the seed and J = exp(I) as "
		 "Rodinia's random_matrix; region of interest rows and "
		 "columns 0..127 (clipped to the image), lambda 0.5, 2 "
		 "iterations as Table II's '2048 2048 0 127 0 127 0.5 2'. "
		 "Large: 1024 (six 4 MiB arrays; the paper's 2048 is 16M "
		 "threads a launch, beyond what the executor records well)",
	.small_size = 64,
	.large_size = 1024,
	.paper_sizes = "CPElide Table II: 2048 2048 0 127 0 127 0.5 2 = size "
		       "2048 (region, lambda and 2 iterations as given; "
		       "--large is 1024)",
	.kernels = "srad_cuda_1, srad_cuda_2",
	.run = sr_run,
};
