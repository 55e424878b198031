// SPDX-License-Identifier: GPL-2.0
/*
 * sad (ADSM's Table 2): Parboil's sum of absolute differences, the full
 * search of H.264's (JM) motion estimation. For every 16 x 16 macroblock
 * of the current frame and every offset within +-16 pixels (33 x 33 =
 * 1089 positions), the SADs of its 41 partitions against the reference
 * frame, read with clamped coordinates (Parboil reads it through a
 * clamping texture). Three kernels, as Parboil launches them:
 *  - mb_sad_calc: a block a 4 x 4 block of the frame, 61 threads of 18
 *    positions each; a thread keeps the current 4 x 4 pixels in
 *    registers and stores one 16-bit SAD a position;
 *  - larger_sad_calc_8: a block a macroblock, 128 threads striding over
 *    the positions, adding the 4 x 4 SADs into 8 x 4, 4 x 8 and 8 x 8;
 *  - larger_sad_calc_16: the same grid, 8 x 8 into 16 x 8, 8 x 16 and
 *    16 x 16.
 * The host copies both frames in and all the SADs out. A macroblock's
 * 41 partitions each hold 1096 positions (1089 padded to 8, Parboil's
 * MAX_POS_PADDED); our order of the partitions within it is below.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "app_util.h"
#include "apps.h"

#define SAD_RANGE	16
#define SAD_DIM		(2 * SAD_RANGE + 1)
#define SAD_POS		(SAD_DIM * SAD_DIM)
#define SAD_POS_PAD	1096
#define SAD_PER_THREAD	18
#define SAD_THREADS	((SAD_POS + SAD_PER_THREAD - 1) / SAD_PER_THREAD)
#define SAD_LARGER	128
#define SAD_PARTS	41
#define SAD_MIN		16
#define SAD_MAX		1024
/* Partitions: 16 4x4, 8 8x4, 8 4x8, 4 8x8, 2 16x8, 2 8x16, 1 16x16. */
#define SAD_P8X4	16
#define SAD_P4X8	24
#define SAD_P8X8	32
#define SAD_P16X8	36
#define SAD_P8X16	38
#define SAD_P16X16	40

struct sad_args {
	uint64_t cur, ref, sads;
	int32_t w, h;
};

static int32_t sad_clamp(int32_t v, int32_t hi)
{
	return v < 0 ? 0 : v > hi ? hi : v;
}

/* A partition's positions in the SAD array. */
static uint64_t sad_at(uint32_t mb, uint32_t part)
{
	return ((uint64_t)mb * SAD_PARTS + part) * SAD_POS_PAD;
}

/*
 * OPS: the block's place (INT 4); the current pixels' addresses (INT
 * 16); a position: its offsets (INT 2), a row's clamp (INT 2), a pixel's
 * clamp, difference, absolute value and sum (INT 5), the loop (INT 2,
 * BRANCH 2).
 */
static void mb_sad_kernel(struct simt_thread *t, const void *p)
{
	const struct sad_args *a = p;
	struct simt_dim3 b = simt_block_idx(t);
	uint32_t th = simt_thread_idx(t).x;
	int32_t x0 = (int32_t)b.x * 4, y0 = (int32_t)b.y * 4;
	uint32_t mb = (uint32_t)(y0 / 16) * ((uint32_t)a->w / 16) +
		      (uint32_t)(x0 / 16);
	uint32_t part = (uint32_t)(y0 % 16 / 4 * 4 + x0 % 16 / 4);
	uint32_t pos, end;
	int32_t c[16];
	int i, j;

	OPS(t, PROG_OP_INT, 4 + 16);
	for (i = 0; i < 4; i++)
		for (j = 0; j < 4; j++)
			c[4 * i + j] = LD(t, uint16_t, a->cur,
					  (uint64_t)(y0 + i) * a->w + x0 + j);
	end = (th + 1) * SAD_PER_THREAD;
	if (end > SAD_POS)
		end = SAD_POS;
	for (pos = th * SAD_PER_THREAD; pos < end; pos++) {
		int32_t dy = (int32_t)(pos / SAD_DIM) - SAD_RANGE;
		int32_t dx = (int32_t)(pos % SAD_DIM) - SAD_RANGE;
		uint32_t sad = 0;

		OPS(t, PROG_OP_INT, 2);
		for (i = 0; i < 4; i++) {
			int32_t ry = sad_clamp(y0 + i + dy, a->h - 1);

			OPS(t, PROG_OP_INT, 2 + 4 * 5);
			for (j = 0; j < 4; j++) {
				int32_t rx = sad_clamp(x0 + j + dx, a->w - 1);
				int32_t d = c[4 * i + j] -
					    LD(t, uint16_t, a->ref,
					       (uint64_t)ry * a->w + rx);

				sad += (uint32_t)(d < 0 ? -d : d);
			}
		}
		ST(t, uint16_t, a->sads, sad_at(mb, part) + pos,
		   (uint16_t)sad);
		OPS(t, PROG_OP_INT, 2);
		OPS(t, PROG_OP_BRANCH, 2);
	}
}

#define SAD_GET(t, a, base, part, pos) \
	((uint32_t)LD(t, uint16_t, (a)->sads, (base) + \
		      (uint64_t)(part) * SAD_POS_PAD + (pos)))
#define SAD_PUT(t, a, base, part, pos, v) \
	ST(t, uint16_t, (a)->sads, (base) + (uint64_t)(part) * SAD_POS_PAD + \
	   (pos), (uint16_t)(v))

/*
 * OPS: the macroblock (INT 2); a position: 16 loads' sums into 8 8x4 and
 * 8 4x8 (INT 16), the 4 8x8 (INT 4), the loop (INT 2, BRANCH 1).
 */
static void larger8_kernel(struct simt_thread *t, const void *p)
{
	const struct sad_args *a = p;
	struct simt_dim3 b = simt_block_idx(t);
	uint32_t mb = b.y * ((uint32_t)a->w / 16) + b.x;
	uint64_t base = sad_at(mb, 0);
	uint32_t pos, s[16], h[8];
	int i;

	OPS(t, PROG_OP_INT, 2);
	for (pos = simt_thread_idx(t).x; pos < SAD_POS; pos += SAD_LARGER) {
		for (i = 0; i < 16; i++)
			s[i] = SAD_GET(t, a, base, i, pos);
		/* 8x4: 4x4 pairs side by side; 4x8: pairs one above another. */
		for (i = 0; i < 8; i++) {
			h[i] = s[2 * i] + s[2 * i + 1];
			SAD_PUT(t, a, base, SAD_P8X4 + i, pos, h[i]);
		}
		for (i = 0; i < 8; i++)
			SAD_PUT(t, a, base, SAD_P4X8 + i, pos,
				s[i / 4 * 8 + i % 4] +
				s[i / 4 * 8 + i % 4 + 4]);
		for (i = 0; i < 4; i++)
			SAD_PUT(t, a, base, SAD_P8X8 + i, pos,
				h[i / 2 * 4 + i % 2] +
				h[i / 2 * 4 + i % 2 + 2]);
		OPS(t, PROG_OP_INT, 16 + 4 + 2);
		OPS(t, PROG_OP_BRANCH, 1);
	}
}

/*
 * OPS: the macroblock (INT 2); a position: the 16x8, 8x16 and 16x16 sums
 * (INT 5), the loop (INT 2, BRANCH 1).
 */
static void larger16_kernel(struct simt_thread *t, const void *p)
{
	const struct sad_args *a = p;
	struct simt_dim3 b = simt_block_idx(t);
	uint32_t mb = b.y * ((uint32_t)a->w / 16) + b.x;
	uint64_t base = sad_at(mb, 0);
	uint32_t pos, q[4];
	int i;

	OPS(t, PROG_OP_INT, 2);
	for (pos = simt_thread_idx(t).x; pos < SAD_POS; pos += SAD_LARGER) {
		for (i = 0; i < 4; i++)
			q[i] = SAD_GET(t, a, base, SAD_P8X8 + i, pos);
		SAD_PUT(t, a, base, SAD_P16X8, pos, q[0] + q[1]);
		SAD_PUT(t, a, base, SAD_P16X8 + 1, pos, q[2] + q[3]);
		SAD_PUT(t, a, base, SAD_P8X16, pos, q[0] + q[2]);
		SAD_PUT(t, a, base, SAD_P8X16 + 1, pos, q[1] + q[3]);
		SAD_PUT(t, a, base, SAD_P16X16, pos,
			q[0] + q[1] + q[2] + q[3]);
		OPS(t, PROG_OP_INT, 5 + 2);
		OPS(t, PROG_OP_BRANCH, 1);
	}
}

/* The reference: every partition's SAD straight from the pixels. */
static void sad_ref(const uint16_t *cur, const uint16_t *ref, int32_t w,
		    int32_t h, uint16_t *out)
{
	static const uint8_t shape[SAD_PARTS][4] = {
		/* x, y in 4-pixel units, width, height in 4-pixel units */
		{0, 0, 1, 1}, {1, 0, 1, 1}, {2, 0, 1, 1}, {3, 0, 1, 1},
		{0, 1, 1, 1}, {1, 1, 1, 1}, {2, 1, 1, 1}, {3, 1, 1, 1},
		{0, 2, 1, 1}, {1, 2, 1, 1}, {2, 2, 1, 1}, {3, 2, 1, 1},
		{0, 3, 1, 1}, {1, 3, 1, 1}, {2, 3, 1, 1}, {3, 3, 1, 1},
		{0, 0, 2, 1}, {2, 0, 2, 1}, {0, 1, 2, 1}, {2, 1, 2, 1},
		{0, 2, 2, 1}, {2, 2, 2, 1}, {0, 3, 2, 1}, {2, 3, 2, 1},
		{0, 0, 1, 2}, {1, 0, 1, 2}, {2, 0, 1, 2}, {3, 0, 1, 2},
		{0, 2, 1, 2}, {1, 2, 1, 2}, {2, 2, 1, 2}, {3, 2, 1, 2},
		{0, 0, 2, 2}, {2, 0, 2, 2}, {0, 2, 2, 2}, {2, 2, 2, 2},
		{0, 0, 4, 2}, {0, 2, 4, 2}, {0, 0, 2, 4}, {2, 0, 2, 4},
		{0, 0, 4, 4},
	};
	uint32_t mbs_w = (uint32_t)w / 16, mb, part, pos;

	for (mb = 0; mb < mbs_w * ((uint32_t)h / 16); mb++) {
		int32_t mx = (int32_t)(mb % mbs_w) * 16;
		int32_t my = (int32_t)(mb / mbs_w) * 16;

		for (part = 0; part < SAD_PARTS; part++) {
			const uint8_t *sh = shape[part];

			for (pos = 0; pos < SAD_POS; pos++) {
				int32_t dy = (int32_t)(pos / SAD_DIM) -
					     SAD_RANGE;
				int32_t dx = (int32_t)(pos % SAD_DIM) -
					     SAD_RANGE;
				uint32_t sad = 0;
				int32_t x, y;

				for (y = my + 4 * sh[1];
				     y < my + 4 * (sh[1] + sh[3]); y++) {
					int32_t ry = sad_clamp(y + dy, h - 1);

					for (x = mx + 4 * sh[0];
					     x < mx + 4 * (sh[0] + sh[2]);
					     x++) {
						int32_t rx = sad_clamp(x + dx,
								       w - 1);
						int32_t d = cur[y * w + x] -
							    ref[ry * w + rx];

						sad += (uint32_t)(d < 0 ? -d :
								  d);
					}
				}
				out[sad_at(mb, part) + pos] = (uint16_t)sad;
			}
		}
	}
}

static int sad_run(struct simt_gpu *gpu, uint64_t size, uint64_t seed,
		   char *err, size_t errlen)
{
	const char *app = "sad";
	const int32_t w = (int32_t)size, h = (int32_t)size;
	const uint32_t mbs = (uint32_t)(w / 16) * (uint32_t)(h / 16);
	const size_t px = (size_t)w * h, ns = (size_t)mbs * SAD_PARTS *
					      SAD_POS_PAD;
	uint16_t *cur = NULL, *ref = NULL, *got = NULL, *want = NULL;
	struct sad_args args;
	struct app_rng rng;
	size_t i;
	int ret;

	ret = app_size_range(size, SAD_MIN, SAD_MAX, "the frame's side", app,
			     err, errlen);
	if (ret)
		return ret;
	if (size % 16) {
		app_err(err, errlen, app, "size %llu: the frame's side must "
			"be a multiple of 16", (unsigned long long)size);
		return -EINVAL;
	}
	cur = malloc(px * sizeof(*cur));
	ref = malloc(px * sizeof(*ref));
	got = calloc(ns, sizeof(*got));
	want = calloc(ns, sizeof(*want));
	ret = -ENOMEM;
	if (!cur || !ref || !got || !want) {
		app_err(err, errlen, app, "out of memory");
		goto out;
	}
	/*
	 * The reference frame's pixels uniform in [0, 256); the current
	 * frame is it moved by (3, -2) with noise of +-4, as motion gives.
	 */
	app_rng_init(&rng, seed, 62);
	for (i = 0; i < px; i++)
		ref[i] = (uint16_t)app_rng_below(&rng, 256);
	for (i = 0; i < px; i++) {
		int32_t x = (int32_t)(i % w), y = (int32_t)(i / w);
		int32_t v = ref[sad_clamp(y + 2, h - 1) * w +
				sad_clamp(x - 3, w - 1)] +
			    (int32_t)app_rng_below(&rng, 9) - 4;

		cur[i] = (uint16_t)sad_clamp(v, 255);
	}

	memset(&args, 0, sizeof(args));
	args.w = w;
	args.h = h;
	ret = app_alloc(gpu, px * sizeof(uint16_t), "d_cur_image", &args.cur,
			app, err, errlen);
	if (!ret)
		ret = app_alloc(gpu, px * sizeof(uint16_t), "ref_image",
				&args.ref, app, err, errlen);
	if (!ret)
		ret = app_alloc(gpu, ns * sizeof(uint16_t), "d_sads",
				&args.sads, app, err, errlen);
	if (ret)
		goto out;
	simt_h2d(gpu, args.cur, cur, px * sizeof(uint16_t));
	simt_h2d(gpu, args.ref, ref, px * sizeof(uint16_t));
	ret = app_launch(gpu, "mb_sad_calc", mb_sad_kernel,
			 DIM3((uint32_t)w / 4, (uint32_t)h / 4, 1),
			 DIM3(SAD_THREADS, 1, 1), 0, &args, app, err, errlen);
	if (!ret)
		ret = app_launch(gpu, "larger_sad_calc_8", larger8_kernel,
				 DIM3((uint32_t)w / 16, (uint32_t)h / 16, 1),
				 DIM3(SAD_LARGER, 1, 1), 0, &args, app, err,
				 errlen);
	if (!ret)
		ret = app_launch(gpu, "larger_sad_calc_16", larger16_kernel,
				 DIM3((uint32_t)w / 16, (uint32_t)h / 16, 1),
				 DIM3(SAD_LARGER, 1, 1), 0, &args, app, err,
				 errlen);
	if (ret)
		goto out;
	simt_d2h(gpu, got, args.sads, ns * sizeof(uint16_t));
	app_test_perturb(got, sizeof(*got), ns);

	sad_ref(cur, ref, w, h, want);
	/* app_util has no 16-bit check: the same message, here. */
	for (i = 0; i < ns; i++) {
		if (got[i] != want[i]) {
			app_err(err, errlen, app, "sads[%zu] = %u, the "
				"reference says %u", i, got[i], want[i]);
			ret = -EIO;
			goto out;
		}
	}
out:
	free(cur);
	free(ref);
	free(got);
	free(want);
	return ret;
}

const struct app_desc app_sad = {
	.name = "sad",
	.suite = "Parboil (sad)",
	.summary = "H.264 full-search SADs (+-16 pixels, 1089 positions): "
		   "mb_sad_calc (a block a 4 x 4 block, 61 threads of 18 "
		   "positions), then larger_sad_calc_8 and larger_sad_calc_16 "
		   "(a block a macroblock, 128 threads) summing them into the "
		   "41 partitions",
	.input = "size = the square frames' side in pixels (a multiple of "
		 "16); reference pixels uniform in [0, 256), the current "
		 "frame it moved by (3, -2) plus noise of +-4, from the seed "
		 "(the values do not change the program; Parboil's frames "
		 "are QCIF, 176 x 144). Large: 96 x 96 (36 macroblocks)",
	.small_size = 16,
	.large_size = 96,
	.paper_sizes = "ADSM Table 2: input not given; --large is 96 x 96 "
		       "frames (Parboil's are QCIF, 176 x 144)",
	.kernels = "mb_sad_calc, larger_sad_calc_8, larger_sad_calc_16",
	.run = sad_run,
};
