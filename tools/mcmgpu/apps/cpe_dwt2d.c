// SPDX-License-Identifier: GPL-2.0
/*
 * dwt2d (CPElide's Table II): Rodinia's dwt2d, the forward reversible
 * 5/3 wavelet transform (JPEG 2000's integer lifting: d = odd - ((left +
 * right) >> 1), then s = even + ((d_left + d_right + 2) >> 2), mirrored
 * at the edges) of an RGB image over 3 levels. c_CopySrcToComponents
 * (blocks of 256, a thread a pixel, the bytes staged through shared
 * memory four at a time) splits the image into three int components less
 * 128; then each component is transformed as Rodinia's fdwt53 recurses:
 * a level's kernel writes the four subbands one after another (LL, HL,
 * LH, HH, each compact), the next level transforms the LL band into the
 * other buffer, and memCopy copies the deeper result back over the LL
 * band on the way out (3 fdwt53 and 2 memCopy launches a component).
 *
 * GPUDWT's fdwt53 slides a window of 64 to 192 columns down a strip of
 * rows, keeping the lifting state between window steps; here a block of
 * 64 threads transforms one 64 x 8 tile with a 2-sample halo loaded into
 * shared memory (horizontal lifting on every row, then vertical on every
 * column), the same arithmetic and results without the sliding.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "app_util.h"
#include "apps.h"

#define DW_THREADS	256	/* c_CopySrcToComponents */
#define DW_TX		64
#define DW_TY		8
#define DW_HALO		2
#define DW_W		(DW_TX + 2 * DW_HALO)
#define DW_H		(DW_TY + 2 * DW_HALO)
#define DW_LEVELS	3
#define DW_MAX		8192

struct dw_args {
	uint64_t src, r, g, b;		/* the copy */
	uint64_t in, out;		/* a level, or memCopy out <- in */
	int32_t sx, sy, pixels;
};

/* Whole-sample mirroring into [0, n), n >= 2, clamped past 2n. */
static inline int32_t dw_mirror(int32_t i, int32_t n)
{
	if (i < 0)
		i = -i;
	if (i >= n)
		i = 2 * n - 2 - i;
	return i < 0 ? 0 : i >= n ? n - 1 : i;
}

/*
 * Shared: sData[768] bytes. OPS: gX and the test x * 4 < 768 (INT 3,
 * BRANCH 1); the offsets (INT 2), the position and its test (INT 2,
 * BRANCH 1), the three subtractions (INT 3).
 */
static void dw_copy(struct simt_thread *t, const void *p)
{
	const struct dw_args *a = p;
	uint32_t x = simt_thread_idx(t).x;
	uint32_t gx = simt_block_dim(t).x * simt_block_idx(t).x;
	int32_t r, g, b;

	OPS(t, PROG_OP_INT, 3);
	OPS(t, PROG_OP_BRANCH, 1);
	if (x * 4 < DW_THREADS * 3)
		STS(t, uint32_t, x,
		    LD(t, uint32_t, a->src, (gx * 3 >> 2) + x));
	SYNC(t);
	OPS(t, PROG_OP_INT, 4);
	r = LDS(t, uint8_t, x * 3);
	g = LDS(t, uint8_t, x * 3 + 1);
	b = LDS(t, uint8_t, x * 3 + 2);
	OPS(t, PROG_OP_BRANCH, 1);
	if ((int32_t)(gx + x) < a->pixels) {
		OPS(t, PROG_OP_INT, 3);
		ST(t, int32_t, a->r, gx + x, r - 128);
		ST(t, int32_t, a->g, gx + x, g - 128);
		ST(t, int32_t, a->b, gx + x, b - 128);
	}
}

/* Where output (x, y) of an sx x sy level goes: its band, compact. */
static inline int64_t dw_band_index(int32_t x, int32_t y, int32_t sx,
				    int32_t sy)
{
	int32_t cx = (sx + 1) / 2, fx = sx / 2, cy = (sy + 1) / 2;
	int64_t ll = (int64_t)cx * cy, hl = (int64_t)fx * cy;
	int64_t lh = (int64_t)cx * (sy / 2);

	if (!(y & 1))
		return x & 1 ? ll + (int64_t)(y / 2) * fx + x / 2 :
			(int64_t)(y / 2) * cx + x / 2;
	return x & 1 ? ll + hl + lh + (int64_t)(y / 2) * fx + x / 2 :
		ll + hl + (int64_t)(y / 2) * cx + x / 2;
}

/*
 * Shared: the tile with its halo, 12 x 68 ints. OPS: the tile's corner
 * (INT 2); a halo load: the mirrored row and column (INT 6) and the loop
 * (INT 2, BRANCH 1); a lifting step a sample: the parity test (INT 1,
 * BRANCH 1), the add and shift, the subtraction (INT 3; the update INT
 * 4) and the loop (INT 2, BRANCH 1); a store: the bounds (INT 2, BRANCH
 * 1) and the band's index (INT 8).
 */
static void dw_fdwt53(struct simt_thread *t, const void *p)
{
	const struct dw_args *a = p;
	int32_t tid = (int32_t)simt_thread_idx(t).x;
	int32_t x0 = (int32_t)simt_block_idx(t).x * DW_TX;
	int32_t y0 = (int32_t)simt_block_idx(t).y * DW_TY;
	int32_t r, c, v, x, y;

	OPS(t, PROG_OP_INT, 2);
	for (r = 0; r < DW_H; r++) {
		for (c = tid; c < DW_W; c += DW_TX) {
			y = dw_mirror(y0 + r - DW_HALO, a->sy);
			x = dw_mirror(x0 + c - DW_HALO, a->sx);
			OPS(t, PROG_OP_INT, 8);
			OPS(t, PROG_OP_BRANCH, 1);
			STS(t, int32_t, r * DW_W + c,
			    LD(t, int32_t, a->in, (int64_t)y * a->sx + x));
		}
	}
	SYNC(t);
	/* Horizontal: predict the odd columns 1 .. TX + 1, then update. */
	for (r = 0; r < DW_H; r++) {
		for (c = tid + 1; c <= DW_TX + 1; c += DW_TX) {
			OPS(t, PROG_OP_INT, 1);
			OPS(t, PROG_OP_BRANCH, 1);
			if (c & 1) {
				int32_t l = LDS(t, int32_t, r * DW_W + c - 1);
				int32_t rt = LDS(t, int32_t, r * DW_W + c + 1);

				v = LDS(t, int32_t, r * DW_W + c);
				OPS(t, PROG_OP_INT, 3);
				STS(t, int32_t, r * DW_W + c, v - ((l + rt) >> 1));
			}
			OPS(t, PROG_OP_INT, 2);
			OPS(t, PROG_OP_BRANCH, 1);
		}
	}
	SYNC(t);
	for (r = 0; r < DW_H; r++) {
		c = tid + DW_HALO;
		OPS(t, PROG_OP_INT, 1);
		OPS(t, PROG_OP_BRANCH, 1);
		if (!(c & 1)) {
			int32_t l = LDS(t, int32_t, r * DW_W + c - 1);
			int32_t rt = LDS(t, int32_t, r * DW_W + c + 1);

			v = LDS(t, int32_t, r * DW_W + c);
			OPS(t, PROG_OP_INT, 4);
			STS(t, int32_t, r * DW_W + c, v + ((l + rt + 2) >> 2));
		}
		OPS(t, PROG_OP_INT, 2);
		OPS(t, PROG_OP_BRANCH, 1);
	}
	SYNC(t);
	/* Vertical on column tid + 2: predict rows 1 .. TY + 1, update. */
	c = tid + DW_HALO;
	for (r = 1; r <= DW_TY + 1; r += 2) {
		int32_t u = LDS(t, int32_t, (r - 1) * DW_W + c);
		int32_t d = LDS(t, int32_t, (r + 1) * DW_W + c);

		v = LDS(t, int32_t, r * DW_W + c);
		OPS(t, PROG_OP_INT, 5);
		OPS(t, PROG_OP_BRANCH, 1);
		STS(t, int32_t, r * DW_W + c, v - ((u + d) >> 1));
	}
	for (r = DW_HALO; r <= DW_TY; r += 2) {
		int32_t u = LDS(t, int32_t, (r - 1) * DW_W + c);
		int32_t d = LDS(t, int32_t, (r + 1) * DW_W + c);

		v = LDS(t, int32_t, r * DW_W + c);
		OPS(t, PROG_OP_INT, 6);
		OPS(t, PROG_OP_BRANCH, 1);
		STS(t, int32_t, r * DW_W + c, v + ((u + d + 2) >> 2));
	}
	x = x0 + tid;
	for (r = 0; r < DW_TY; r++) {
		y = y0 + r;
		OPS(t, PROG_OP_INT, 4);
		OPS(t, PROG_OP_BRANCH, 2);
		if (x < a->sx && y < a->sy) {
			OPS(t, PROG_OP_INT, 8);
			ST(t, int32_t, a->out, dw_band_index(x, y, a->sx, a->sy),
			   LDS(t, int32_t, (r + DW_HALO) * DW_W + c));
		}
	}
}

/*
 * out[i] = in[i] for sx x sy elements, blocks of 256. OPS: the index
 * and test (INT 2, BRANCH 1).
 */
static void dw_memcopy(struct simt_thread *t, const void *p)
{
	const struct dw_args *a = p;
	uint64_t i = simt_global_x(t);

	OPS(t, PROG_OP_INT, 2);
	OPS(t, PROG_OP_BRANCH, 1);
	if (i >= (uint64_t)a->sx * a->sy)
		return;
	ST(t, int32_t, a->out, i, LD(t, int32_t, a->in, i));
}

/* The reference's 1-D lifting of n samples at stride st, in place. */
static void dw_lift(int32_t *v, int32_t n, int64_t st, int32_t *tmp)
{
	int32_t i;

	for (i = 0; i < n; i++)
		tmp[i] = v[i * st];
	for (i = 1; i < n; i += 2)
		tmp[i] -= (tmp[i - 1] + tmp[dw_mirror(i + 1, n)]) >> 1;
	for (i = 0; i < n; i += 2)
		tmp[i] += (tmp[dw_mirror(i - 1, n)] +
			   tmp[dw_mirror(i + 1, n)] + 2) >> 2;
	for (i = 0; i < n; i++)
		v[i * st] = tmp[i];
}

/* The reference: a level in img (sx x sy), bands into out; recursion. */
static void dw_ref(int32_t *img, int32_t *out, int32_t sx, int32_t sy,
		   int levels, int32_t *tmp)
{
	int32_t x, y;

	for (y = 0; y < sy; y++)
		dw_lift(img + (int64_t)y * sx, sx, 1, tmp);
	for (x = 0; x < sx; x++)
		dw_lift(img + x, sy, sx, tmp);
	for (y = 0; y < sy; y++)
		for (x = 0; x < sx; x++)
			out[dw_band_index(x, y, sx, sy)] =
				img[(int64_t)y * sx + x];
	if (levels > 1) {
		int32_t cx = (sx + 1) / 2, cy = (sy + 1) / 2;

		/* img is free now: the next level's bands land there. */
		dw_ref(out, img, cx, cy, levels - 1, tmp);
		memcpy(out, img, (size_t)cx * cy * sizeof(*out));
	}
}

/* Rodinia's fdwt53 recursion on the GPU. */
static int dw_gpu(struct simt_gpu *gpu, struct dw_args *a, uint64_t in,
		  uint64_t out, int32_t sx, int32_t sy, int levels,
		  const char *app, char *err, size_t errlen)
{
	int ret;

	a->in = in;
	a->out = out;
	a->sx = sx;
	a->sy = sy;
	ret = app_launch(gpu, "fdwt53Kernel", dw_fdwt53,
			 DIM3(app_blocks(sx, DW_TX), app_blocks(sy, DW_TY), 1),
			 DIM3(DW_TX, 1, 1), DW_W * DW_H * sizeof(int32_t), a,
			 app, err, errlen);
	if (ret || levels <= 1)
		return ret;
	sx = (sx + 1) / 2;
	sy = (sy + 1) / 2;
	ret = dw_gpu(gpu, a, out, in, sx, sy, levels - 1, app, err, errlen);
	if (ret)
		return ret;
	a->in = in;
	a->out = out;
	a->sx = sx;
	a->sy = sy;
	return app_launch(gpu, "memCopy", dw_memcopy,
			  DIM3(app_blocks((uint64_t)sx * sy, DW_THREADS), 1, 1),
			  DIM3(DW_THREADS, 1, 1), 0, a, app, err, errlen);
}

static int dw_run(struct simt_gpu *gpu, uint64_t size, uint64_t seed,
		  char *err, size_t errlen)
{
	const char *app = "dwt2d";
	const int32_t n = (int32_t)size;
	const uint64_t px = size * size, bytes = px * sizeof(int32_t);
	uint8_t *src = NULL;
	int32_t *got = NULL, *want = NULL, *work = NULL, *tmp = NULL;
	uint64_t comp[3], backup[3], i;
	struct dw_args args;
	struct app_rng rng;
	int k, ret;

	ret = app_size_range(size, DW_TX, DW_MAX, "the image's side", app,
			     err, errlen);
	if (ret)
		return ret;
	if (size % DW_TX) {
		app_err(err, errlen, app,
			"size %llu: the image's side must be a multiple of 64",
			(unsigned long long)size);
		return -EINVAL;
	}
	/* Rodinia stages the pixels in whole 768-byte blocks. */
	src = calloc(app_blocks(px, DW_THREADS) * (uint64_t)DW_THREADS, 3);
	got = malloc(3 * bytes);
	want = malloc(bytes);
	work = malloc(bytes);
	tmp = malloc(size * sizeof(*tmp));
	ret = -ENOMEM;
	if (!src || !got || !want || !work || !tmp) {
		app_err(err, errlen, app, "out of memory");
		goto out;
	}
	app_rng_init(&rng, seed, 120);
	for (i = 0; i < px * 3; i++)
		src[i] = (uint8_t)app_rng_below(&rng, 256);

	memset(&args, 0, sizeof(args));
	args.pixels = (int32_t)px;
	ret = app_alloc(gpu, app_blocks(px, DW_THREADS) * 3ULL * DW_THREADS,
			"d_src", &args.src, app, err, errlen);
	for (k = 0; !ret && k < 3; k++) {
		static const char *const names[] = { "c_r", "c_g", "c_b" };
		static const char *const outs[] = {
			"c_r_out", "c_g_out", "c_b_out",
		};

		ret = app_alloc(gpu, bytes, names[k], &comp[k], app, err,
				errlen);
		if (!ret)
			ret = app_alloc(gpu, bytes, outs[k], &backup[k], app,
					err, errlen);
	}
	if (ret)
		goto out;
	simt_h2d(gpu, args.src, src, app_blocks(px, DW_THREADS) * 3ULL *
		 DW_THREADS);
	args.r = comp[0];
	args.g = comp[1];
	args.b = comp[2];
	ret = app_launch(gpu, "c_CopySrcToComponents", dw_copy,
			 DIM3(app_blocks(px, DW_THREADS), 1, 1),
			 DIM3(DW_THREADS, 1, 1), DW_THREADS * 3, &args, app,
			 err, errlen);
	for (k = 0; !ret && k < 3; k++)
		ret = dw_gpu(gpu, &args, comp[k], backup[k], n, n, DW_LEVELS,
			     app, err, errlen);
	if (ret)
		goto out;
	for (k = 0; k < 3; k++)
		simt_d2h(gpu, got + k * px, backup[k], bytes);
	app_test_perturb(got, sizeof(*got), 3 * px);

	for (k = 0; !ret && k < 3; k++) {
		static const char *const what[] = { "r_out", "g_out", "b_out" };

		for (i = 0; i < px; i++)
			work[i] = (int32_t)src[i * 3 + k] - 128;
		dw_ref(work, want, n, n, DW_LEVELS, tmp);
		ret = app_check_i32(got + k * px, want, px, app, what[k], err,
				    errlen);
	}
out:
	free(src);
	free(got);
	free(want);
	free(work);
	free(tmp);
	return ret;
}

const struct app_desc app_dwt2d = {
	.name = "dwt2d",
	.suite = "Rodinia (dwt2d)",
	.summary = "forward 5/3 integer wavelet, 3 levels of an RGB image: "
		   "c_CopySrcToComponents (blocks of 256), then a component "
		   "at a time fdwt53 a level (64-thread blocks a 64 x 8 tile "
		   "in shared memory; GPUDWT slides its window instead) and "
		   "memCopy of the LL band between levels",
	.input = "size = the image's side (a multiple of 64; Table II: "
		 "rgb.bmp 4096 x 4096); RGB bytes uniform from the seed (we "
		 "do not have rgb.bmp; the values do not change the "
		 "program). Large: 1024 (4096^2 needs about 500 MB of "
		 "buffers and a program beyond what the executor records "
		 "well)",
	.small_size = 64,
	.large_size = 1024,
	.paper_sizes = "CPElide Table II: rgb.bmp 4096x4096 = size 4096 "
		       "(random RGB instead of the file; --large is 1024)",
	.kernels = "c_CopySrcToComponents, fdwt53Kernel, memCopy",
	.run = dw_run,
};
