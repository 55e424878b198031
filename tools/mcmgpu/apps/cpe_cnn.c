// SPDX-License-Identifier: GPL-2.0
/*
 * cnn (CPElide's Table II): DNNMark's composed Conv + Pool + FC model
 * forward on a batch of 4 RGB images (NCHW floats). The layers are
 * gem5-resources' DNNMark composed_model_config.dnnmark, the one config
 * with exactly these three layers: 32 filters of 5 x 5, pad 2, stride 1
 * (cross-correlation); a 3 x 3 max pool with stride 2, no padding; a
 * fully connected layer of 32 outputs. Table II sets the input, 128 x
 * 128 x 3 and batch 4. The kernels:
 *  - conv_fwd_direct: a direct convolution as MIOpen's direct kernels
 *    run one; a block of 16 x 16 threads a 16 x 16 output tile of one
 *    image and a group of 8 filters: the block loads the tile's input
 *    window (3 x 20 x 20, zero outside the image) and the group's
 *    weights into shared memory, SYNCs, and each thread accumulates 8
 *    outputs (a pixel for each filter), the weights read 4 at a time;
 *  - pool_fwd_max: a thread an output, the largest of its 3 x 3 window;
 *  - fc_gemm_splitk and fc_splitk_reduce: Y (4 x 32) = X W^T with X the
 *    pooled maps (4 x 32 P^2) and W (32 x 32 P^2) as a GPU BLAS runs so
 *    short and deep a GEMM: split along K in chunks of 512, a block of
 *    32 x 4 threads a chunk through 16-wide shared tiles of W and X
 *    (SYNC between tile loads), its partial sums to a workspace; a
 *    second kernel adds the chunks' partials in order.
 *
 * Ours, where DNNMark and the paper are silent: size = the image's side
 * (a multiple of 16; batch 4 and 3 channels at every size), pooled side
 * P = (size - 3) / 2 + 1 (63 at 128); no bias or activation (the
 * composed config has none); inputs and weights uniform in [0, 1) from
 * the seed as DNNMark's curand fill; the split chunk of 512; 8 filters a
 * thread (one would need 3 instructions a multiply-add, 8 need 11 for 8).
 * The host copies out the convolution's and the pool's outputs as well
 * as Y, to check each layer.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "app_util.h"
#include "apps.h"

#define CNN_BATCH	4
#define CNN_CH		3
#define CNN_FILTERS	32
#define CNN_R		5	/* filter side */
#define CNN_PAD		2
#define CNN_TILE	16	/* conv output tile side */
#define CNN_WIN		(CNN_TILE + CNN_R - 1)
#define CNN_FPT		8	/* filters a thread */
#define CNN_TAPS	(CNN_CH * CNN_R * CNN_R)
#define CNN_POOL	3
#define CNN_STRIDE	2
#define CNN_OUT		32	/* FC outputs */
#define CNN_TK		16	/* the FC's K step */
#define CNN_CHUNK	512	/* the FC's split along K */
#define CNN_MIN		16
#define CNN_MAX		256

/* Four weights in one 16-byte shared load (LDS.128). */
struct cnn_f4 {
	float v[4];
};

struct cnn_args {
	uint64_t in, w, conv, pool, fcw, part, y;
	uint32_t s, p;		/* image and pooled side */
	uint64_t k;		/* FC depth: CNN_FILTERS P^2 */
	uint32_t splits;
};

/* The pooled side for an image side s. */
static uint32_t cnn_pooled(uint32_t s)
{
	return (s - CNN_POOL) / CNN_STRIDE + 1;
}

/*
 * Shared: the window (3 x 20 x 20 floats), then the weights tap-major,
 * 8 filters a tap. OPS: the thread's index, image, filter group and
 * pixel (INT 6); a window element: its channel, row and column (INT 3),
 * the image coordinates (INT 2), the four bounds tests (INT 4, BRANCH
 * 1), the address (INT 1), the loop (INT 2, BRANCH 1); a weight: its
 * filter and tap (INT 2), address (INT 1), loop (INT 2, BRANCH 1); a tap
 * (75, unrolled: shared offsets are constants): 8 FFMAs (FP 8); a store's
 * address (INT 1) eight times.
 */
static void cnn_conv(struct simt_thread *t, const void *p)
{
	const struct cnn_args *a = p;
	struct simt_dim3 b = simt_block_idx(t), l = simt_thread_idx(t);
	const uint32_t groups = CNN_FILTERS / CNN_FPT;
	const uint32_t win = 0, wts = CNN_CH * CNN_WIN * CNN_WIN;
	const uint32_t lin = l.y * CNN_TILE + l.x;
	const uint32_t n = b.z / groups, f0 = b.z % groups * CNN_FPT;
	const uint64_t plane = (uint64_t)a->s * a->s;
	float acc[CNN_FPT] = { 0 };
	uint32_t e, c, ky, kx, f;

	OPS(t, PROG_OP_INT, 6);
	for (e = lin; e < wts; e += CNN_TILE * CNN_TILE) {
		int64_t gy, gx;
		float v = 0.0f;

		c = e / (CNN_WIN * CNN_WIN);
		gy = (int64_t)b.y * CNN_TILE + e % (CNN_WIN * CNN_WIN) /
			CNN_WIN - CNN_PAD;
		gx = (int64_t)b.x * CNN_TILE + e % CNN_WIN - CNN_PAD;
		OPS(t, PROG_OP_INT, 9);
		OPS(t, PROG_OP_BRANCH, 1);
		if (gy >= 0 && gy < a->s && gx >= 0 && gx < a->s) {
			OPS(t, PROG_OP_INT, 1);
			v = LD(t, float, a->in, ((uint64_t)n * CNN_CH + c) *
			       plane + (uint64_t)gy * a->s + (uint64_t)gx);
		}
		STS(t, float, win + e, v);
		OPS(t, PROG_OP_INT, 2);
		OPS(t, PROG_OP_BRANCH, 1);
	}
	for (e = lin; e < CNN_TAPS * CNN_FPT; e += CNN_TILE * CNN_TILE) {
		OPS(t, PROG_OP_INT, 5);
		OPS(t, PROG_OP_BRANCH, 1);
		STS(t, float, wts + e,
		    LD(t, float, a->w, (f0 + e % CNN_FPT) * CNN_TAPS +
		       e / CNN_FPT));
	}
	SYNC(t);
	for (c = 0; c < CNN_CH; c++)
		for (ky = 0; ky < CNN_R; ky++)
			for (kx = 0; kx < CNN_R; kx++) {
				uint32_t tap = (c * CNN_R + ky) * CNN_R + kx;
				uint32_t q = (wts + tap * CNN_FPT) / 4;
				float v = LDS(t, float, win +
					      (c * CNN_WIN + l.y + ky) *
					      CNN_WIN + l.x + kx);
				struct cnn_f4 w0 = LDS(t, struct cnn_f4, q);
				struct cnn_f4 w1 = LDS(t, struct cnn_f4, q + 1);

				for (f = 0; f < 4; f++) {
					acc[f] = acc[f] + v * w0.v[f];
					acc[f + 4] = acc[f + 4] + v * w1.v[f];
				}
				OPS(t, PROG_OP_FP, CNN_FPT);
			}
	for (f = 0; f < CNN_FPT; f++) {
		OPS(t, PROG_OP_INT, 1);
		ST(t, float, a->conv, ((uint64_t)n * CNN_FILTERS + f0 + f) *
		   plane + ((uint64_t)b.y * CNN_TILE + l.y) * a->s +
		   b.x * CNN_TILE + l.x, acc[f]);
	}
}

/*
 * A thread an output (image, filter, row, column). OPS: the index and
 * bounds test (INT 2, BRANCH 1), the row, column and map by two
 * divisions and remainders (INT 6), the window's first element (INT 2);
 * the 8 max (FP 8), the 3 x 3 loads' offsets folded.
 */
static void cnn_pool(struct simt_thread *t, const void *p)
{
	const struct cnn_args *a = p;
	const uint64_t pp = (uint64_t)a->p * a->p;
	uint64_t o = simt_global_x(t), map, base;
	uint32_t py, px, dy, dx;
	float m = 0.0f;

	OPS(t, PROG_OP_INT, 2);
	OPS(t, PROG_OP_BRANCH, 1);
	if (o >= CNN_BATCH * CNN_FILTERS * pp)
		return;
	map = o / pp;
	py = (uint32_t)(o % pp / a->p);
	px = (uint32_t)(o % a->p);
	base = map * a->s * a->s + (uint64_t)py * CNN_STRIDE * a->s +
		px * CNN_STRIDE;
	OPS(t, PROG_OP_INT, 8);
	for (dy = 0; dy < CNN_POOL; dy++)
		for (dx = 0; dx < CNN_POOL; dx++) {
			float v = LD(t, float, a->conv, base +
				     (uint64_t)dy * a->s + dx);

			m = dy || dx ? fmaxf(m, v) : v;
		}
	OPS(t, PROG_OP_FP, CNN_POOL * CNN_POOL - 1);
	ST(t, float, a->pool, o, m);
}

/*
 * Shared: the W tile (32 x 16), the X tile (4 x 16). Thread (x, y) =
 * (output, image). OPS: the linear index, the chunk's bounds (INT 4); a
 * K step: 4 W elements (INT 5, BRANCH 1 each: row, column, address, the
 * loop's step and test), the X test
 * (INT 1, BRANCH 1) and address (INT 2), 16 FFMAs (FP 16, unrolled), the
 * step and test (INT 2, BRANCH 1); the partial's index (INT 1).
 */
static void cnn_fc(struct simt_thread *t, const void *p)
{
	const struct cnn_args *a = p;
	struct simt_dim3 l = simt_thread_idx(t);
	const uint32_t ws = 0, xs = CNN_OUT * CNN_TK;
	const uint32_t lin = l.y * CNN_OUT + l.x;
	const uint32_t split = simt_block_idx(t).x;
	uint64_t k0 = (uint64_t)split * CNN_CHUNK, end = k0 + CNN_CHUNK;
	float sum = 0.0f;
	uint32_t e, k;

	if (end > a->k)
		end = a->k;
	OPS(t, PROG_OP_INT, 4);
	for (; k0 < end; k0 += CNN_TK) {
		for (e = lin; e < CNN_OUT * CNN_TK;
		     e += CNN_OUT * CNN_BATCH) {
			OPS(t, PROG_OP_INT, 5);
			OPS(t, PROG_OP_BRANCH, 1);
			STS(t, float, ws + e,
			    LD(t, float, a->fcw, e / CNN_TK * a->k + k0 +
			       e % CNN_TK));
		}
		OPS(t, PROG_OP_INT, 1);
		OPS(t, PROG_OP_BRANCH, 1);
		if (lin < CNN_BATCH * CNN_TK) {
			OPS(t, PROG_OP_INT, 2);
			STS(t, float, xs + lin,
			    LD(t, float, a->pool, lin / CNN_TK * a->k + k0 +
			       lin % CNN_TK));
		}
		SYNC(t);
		for (k = 0; k < CNN_TK; k++) {
			float w = LDS(t, float, ws + l.x * CNN_TK + k);
			float x = LDS(t, float, xs + l.y * CNN_TK + k);

			sum = sum + x * w;
		}
		OPS(t, PROG_OP_FP, CNN_TK);
		SYNC(t);
		OPS(t, PROG_OP_INT, 2);
		OPS(t, PROG_OP_BRANCH, 1);
	}
	OPS(t, PROG_OP_INT, 1);
	ST(t, float, a->part, (uint64_t)split * CNN_BATCH * CNN_OUT + lin,
	   sum);
}

/*
 * A thread an output of Y. OPS: the index and bounds test (INT 2, BRANCH
 * 1); a chunk: the add (FP 1), the index and loop (INT 2, BRANCH 1).
 */
static void cnn_reduce(struct simt_thread *t, const void *p)
{
	const struct cnn_args *a = p;
	uint64_t o = simt_global_x(t);
	float sum = 0.0f;
	uint32_t s;

	OPS(t, PROG_OP_INT, 2);
	OPS(t, PROG_OP_BRANCH, 1);
	if (o >= CNN_BATCH * CNN_OUT)
		return;
	for (s = 0; s < a->splits; s++) {
		sum = sum + LD(t, float, a->part,
			       (uint64_t)s * CNN_BATCH * CNN_OUT + o);
		OPS(t, PROG_OP_FP, 1);
		OPS(t, PROG_OP_INT, 2);
		OPS(t, PROG_OP_BRANCH, 1);
	}
	ST(t, float, a->y, o, sum);
}

/* The reference's convolution output (n, f, oy, ox), taps in order. */
static float cnn_conv_ref(const float *in, const float *w, uint32_t s,
			  uint32_t n, uint32_t f, uint32_t oy, uint32_t ox)
{
	const float *img = in + (uint64_t)n * CNN_CH * s * s;
	const float *filt = w + (uint64_t)f * CNN_TAPS;
	uint32_t c, ky, kx;
	float acc = 0.0f;

	for (c = 0; c < CNN_CH; c++)
		for (ky = 0; ky < CNN_R; ky++)
			for (kx = 0; kx < CNN_R; kx++) {
				int64_t gy = (int64_t)oy + ky - CNN_PAD;
				int64_t gx = (int64_t)ox + kx - CNN_PAD;
				float v = 0.0f;

				if (gy >= 0 && gy < s && gx >= 0 && gx < s)
					v = img[((uint64_t)c * s + gy) * s +
						gx];
				acc = acc + v * *filt++;
			}
	return acc;
}

/* The reference: the three layers, each sum in the kernels' order. */
static void cnn_ref(const float *in, const float *w, const float *fcw,
		    uint32_t s, float *conv, float *pool, float *y)
{
	const uint32_t pside = cnn_pooled(s);
	const uint64_t plane = (uint64_t)s * s, k = CNN_FILTERS *
		(uint64_t)pside * pside;
	uint32_t n, f, oy, ox, dy, dx;
	uint64_t map, q, k0;

	for (n = 0; n < CNN_BATCH; n++)
		for (f = 0; f < CNN_FILTERS; f++)
			for (oy = 0; oy < s; oy++)
				for (ox = 0; ox < s; ox++)
					*conv++ = cnn_conv_ref(in, w, s, n, f,
							       oy, ox);
	conv -= (uint64_t)CNN_BATCH * CNN_FILTERS * plane;
	for (map = 0; map < CNN_BATCH * CNN_FILTERS; map++)
		for (oy = 0; oy < pside; oy++)
			for (ox = 0; ox < pside; ox++) {
				const float *win = conv + map * plane +
					(uint64_t)oy * CNN_STRIDE * s +
					ox * CNN_STRIDE;
				float m = win[0];

				for (dy = 0; dy < CNN_POOL; dy++)
					for (dx = 0; dx < CNN_POOL; dx++)
						if (dy || dx)
							m = fmaxf(m, win[(uint64_t)dy * s + dx]);
				pool[(map * pside + oy) * pside + ox] = m;
			}
	for (n = 0; n < CNN_BATCH; n++)
		for (f = 0; f < CNN_OUT; f++) {
			float total = 0.0f;

			for (k0 = 0; k0 < k; k0 += CNN_CHUNK) {
				float sum = 0.0f;

				for (q = k0; q < k0 + CNN_CHUNK && q < k; q++)
					sum = sum + pool[n * k + q] *
						fcw[f * k + q];
				total = total + sum;
			}
			y[n * CNN_OUT + f] = total;
		}
}

static int cnn_run(struct simt_gpu *gpu, uint64_t size, uint64_t seed,
		   char *err, size_t errlen)
{
	const char *app = "cnn";
	const uint32_t s = (uint32_t)size;
	const uint32_t pside = cnn_pooled(s);
	const uint64_t in_n = (uint64_t)CNN_BATCH * CNN_CH * s * s;
	const uint64_t conv_n = (uint64_t)CNN_BATCH * CNN_FILTERS * s * s;
	const uint64_t k = (uint64_t)CNN_FILTERS * pside * pside;
	const uint64_t pool_n = CNN_BATCH * k, fcw_n = CNN_OUT * k;
	const uint32_t splits = (uint32_t)((k + CNN_CHUNK - 1) / CNN_CHUNK);
	const uint64_t part_n = (uint64_t)splits * CNN_BATCH * CNN_OUT;
	const uint64_t y_n = CNN_BATCH * CNN_OUT;
	float *in = NULL, *w = NULL, *fcw = NULL, *conv = NULL, *pool = NULL;
	float *y = NULL, *want_conv = NULL, *want_pool = NULL, *want_y = NULL;
	struct cnn_args args = { .s = s, .p = pside, .k = k,
				 .splits = splits };
	struct app_rng rng;
	int ret;

	ret = app_size_range(size, CNN_MIN, CNN_MAX, "the image's side", app,
			     err, errlen);
	if (ret)
		return ret;
	if (size % CNN_TILE) {
		app_err(err, errlen, app,
			"size %llu: the image's side must be a multiple of 16",
			(unsigned long long)size);
		return -EINVAL;
	}
	in = malloc(in_n * sizeof(float));
	w = malloc(CNN_FILTERS * CNN_TAPS * sizeof(float));
	fcw = malloc(fcw_n * sizeof(float));
	conv = malloc(conv_n * sizeof(float));
	pool = malloc(pool_n * sizeof(float));
	y = malloc(y_n * sizeof(float));
	want_conv = malloc(conv_n * sizeof(float));
	want_pool = malloc(pool_n * sizeof(float));
	want_y = malloc(y_n * sizeof(float));
	ret = -ENOMEM;
	if (!in || !w || !fcw || !conv || !pool || !y || !want_conv ||
	    !want_pool || !want_y) {
		app_err(err, errlen, app, "out of memory");
		goto out;
	}
	app_rng_init(&rng, seed, 110);
	app_rng_fill_float(&rng, in, in_n, 1.0f);
	app_rng_fill_float(&rng, w, CNN_FILTERS * CNN_TAPS, 1.0f);
	app_rng_fill_float(&rng, fcw, fcw_n, 1.0f);

	ret = app_alloc(gpu, in_n * sizeof(float), "input", &args.in, app,
			err, errlen);
	if (!ret)
		ret = app_alloc(gpu, CNN_FILTERS * CNN_TAPS * sizeof(float),
				"conv_weights", &args.w, app, err, errlen);
	if (!ret)
		ret = app_alloc(gpu, conv_n * sizeof(float), "conv_out",
				&args.conv, app, err, errlen);
	if (!ret)
		ret = app_alloc(gpu, pool_n * sizeof(float), "pool_out",
				&args.pool, app, err, errlen);
	if (!ret)
		ret = app_alloc(gpu, fcw_n * sizeof(float), "fc_weights",
				&args.fcw, app, err, errlen);
	if (!ret)
		ret = app_alloc(gpu, part_n * sizeof(float), "fc_workspace",
				&args.part, app, err, errlen);
	if (!ret)
		ret = app_alloc(gpu, y_n * sizeof(float), "fc_out", &args.y,
				app, err, errlen);
	if (ret)
		goto out;
	simt_h2d(gpu, args.in, in, in_n * sizeof(float));
	simt_h2d(gpu, args.w, w, CNN_FILTERS * CNN_TAPS * sizeof(float));
	simt_h2d(gpu, args.fcw, fcw, fcw_n * sizeof(float));
	ret = app_launch(gpu, "conv_fwd_direct", cnn_conv,
			 DIM3(s / CNN_TILE, s / CNN_TILE,
			      CNN_BATCH * CNN_FILTERS / CNN_FPT),
			 DIM3(CNN_TILE, CNN_TILE, 1),
			 (CNN_CH * CNN_WIN * CNN_WIN + CNN_TAPS * CNN_FPT) *
			 sizeof(float), &args, app, err, errlen);
	if (!ret)
		ret = app_launch(gpu, "pool_fwd_max", cnn_pool,
				 DIM3(app_blocks(pool_n, 256), 1, 1),
				 DIM3(256, 1, 1), 0, &args, app, err, errlen);
	if (!ret)
		ret = app_launch(gpu, "fc_gemm_splitk", cnn_fc,
				 DIM3(splits, 1, 1),
				 DIM3(CNN_OUT, CNN_BATCH, 1),
				 (CNN_OUT + CNN_BATCH) * CNN_TK *
				 sizeof(float), &args, app, err, errlen);
	if (!ret)
		ret = app_launch(gpu, "fc_splitk_reduce", cnn_reduce,
				 DIM3(1, 1, 1), DIM3(CNN_BATCH * CNN_OUT, 1, 1),
				 0, &args, app, err, errlen);
	if (ret)
		goto out;
	simt_d2h(gpu, conv, args.conv, conv_n * sizeof(float));
	simt_d2h(gpu, pool, args.pool, pool_n * sizeof(float));
	simt_d2h(gpu, y, args.y, y_n * sizeof(float));
	app_test_perturb(y, sizeof(float), y_n);

	cnn_ref(in, w, fcw, s, want_conv, want_pool, want_y);
	ret = app_check_f32(conv, want_conv, conv_n, APP_FLOAT_TOLERANCE, app,
			    "conv_out", err, errlen);
	if (!ret)
		ret = app_check_f32(pool, want_pool, pool_n,
				    APP_FLOAT_TOLERANCE, app, "pool_out", err,
				    errlen);
	if (!ret)
		ret = app_check_f32(y, want_y, y_n, APP_FLOAT_TOLERANCE, app,
				    "fc_out", err, errlen);
out:
	free(in);
	free(w);
	free(fcw);
	free(conv);
	free(pool);
	free(y);
	free(want_conv);
	free(want_pool);
	free(want_y);
	return ret;
}

const struct app_desc app_cnn = {
	.name = "cnn",
	.suite = "DNNMark (composed Conv + Pool + FC)",
	.summary = "forward pass of DNNMark's composed model on 4 RGB "
		   "images: a direct 5 x 5 convolution to 32 maps (16 x 16 "
		   "tiles, the window and weights in shared memory, 8 "
		   "filters a thread), a 3 x 3 stride-2 max pool (a thread "
		   "an output), and a 32-output fully connected layer as a "
		   "split-K tiled GEMM (chunks of 512) and its reduction",
	.input = "size = the image's side (a multiple of 16); batch 4, 3 "
		 "channels; 32 filters of 5 x 5 (pad 2), 3 x 3 pool stride "
		 "2, 32 FC outputs as gem5-resources' DNNMark composed "
		 "config; images and weights uniform in [0, 1) from the "
		 "seed (the values do not change the program). Large: the "
		 "paper's 128 x 128 x 3 (8 MiB of maps, a 16 MiB FC "
		 "weight matrix)",
	.small_size = 16,
	.large_size = 128,
	.kernels = "conv_fwd_direct, pool_fwd_max, fc_gemm_splitk, "
		   "fc_splitk_reduce",
	.paper_sizes = "CPElide Table II: 128x128x3, BS 4 = size 128",
	.run = cnn_run,
};
