// SPDX-License-Identifier: GPL-2.0
/*
 * hotspot (CPElide's Table II): Rodinia's hotspot, a chip's transient
 * temperature on a square grid. Each step every cell moves by
 * step / Cap x (power + (N + S - 2 T) / Ry + (E + W - 2 T) / Rx +
 * (80 - T) / Rz), with the chip's constants from Rodinia's
 * compute_tran_temp; a neighbour past the edge is the cell itself.
 * calculate_temp advances pyramid_height steps a launch: a block of
 * 16 x 16 threads (BLOCK_SIZE) loads a 16 x 16 tile of temperature and
 * power into shared memory and steps in place, the valid tile shrinking
 * by a cell on each side a step, so a block writes its middle
 * (16 - 2 ph)^2 cells and the tiles overlap by ph (border rows and
 * columns). The host launches it ceil(steps / ph) times, ping-ponging
 * the temperature arrays.
 */
#include <errno.h>
#include <stdlib.h>

#include "app_util.h"
#include "apps.h"

#define HS_BLOCK	16
#define HS_PYRAMID	2	/* Table II: 512 2 20 */
#define HS_STEPS	20
#define HS_MAX		8192
/* Rodinia's hotspot constants. */
#define HS_T_CHIP	0.0005f
#define HS_CHIP_HEIGHT	0.016f
#define HS_CHIP_WIDTH	0.016f
#define HS_AMB_TEMP	80.0f
#define HS_FACTOR_CHIP	0.5f
#define HS_SPEC_HEAT_SI	1.75e6f
#define HS_K_SI		100.0f
#define HS_PRECISION	0.001f
#define HS_MAX_PD	3.0e6f

struct hs_args {
	uint64_t power, src, dst;
	int32_t cols, rows, border_cols, border_rows, iteration;
	float step_div_cap, rx_1, ry_1, rz_1;
};

#define IN_RANGE(x, lo, hi)	((x) >= (lo) && (x) <= (hi))

/* The cell update, as the kernel and the reference both compute it. */
static inline float hs_cell(float tc, float pw, float n, float s, float e,
			    float w, const struct hs_args *a)
{
	return tc + a->step_div_cap * (pw + (s + n - 2.0f * tc) * a->ry_1 +
				       (e + w - 2.0f * tc) * a->rx_1 +
				       (HS_AMB_TEMP - tc) * a->rz_1);
}

/*
 * Shared: temp_on_cuda, power_on_cuda and temp_t, 16 x 16 floats each.
 * OPS: the tile's corner, limits, the thread's cell and index (INT 10),
 * the load's range test (INT 4, BRANCH 1); the valid limits and the
 * clamped N, S, W, E (INT 12); a step: the range tests (INT 8, BRANCH
 * 1), the update where computed (FP 9); the last-step test (INT 1,
 * BRANCH 1), the copy's test (BRANCH 1), the loop (INT 2, BRANCH 1); the
 * store's test (BRANCH 1).
 */
static void hs_kernel(struct simt_thread *t, const void *p)
{
	const struct hs_args *a = p;
	const uint32_t tc = 0, pc = HS_BLOCK * HS_BLOCK;
	const uint32_t tt = 2 * HS_BLOCK * HS_BLOCK;
	int32_t tx = (int32_t)simt_thread_idx(t).x;
	int32_t ty = (int32_t)simt_thread_idx(t).y;
	int32_t bx = (int32_t)simt_block_idx(t).x;
	int32_t by = (int32_t)simt_block_idx(t).y;
	int32_t small = HS_BLOCK - a->iteration * 2;
	int32_t blk_y = small * by - a->border_rows;
	int32_t blk_x = small * bx - a->border_cols;
	int32_t blk_ymax = blk_y + HS_BLOCK - 1;
	int32_t blk_xmax = blk_x + HS_BLOCK - 1;
	int32_t y = blk_y + ty, x = blk_x + tx;
	int64_t index = (int64_t)a->cols * y + x;
	int32_t vymin, vymax, vxmin, vxmax, n, s, w, e, i;
	bool computed = false;

	OPS(t, PROG_OP_INT, 14);
	OPS(t, PROG_OP_BRANCH, 1);
	if (IN_RANGE(y, 0, a->rows - 1) && IN_RANGE(x, 0, a->cols - 1)) {
		STS(t, float, tc + ty * HS_BLOCK + tx,
		    LD(t, float, a->src, index));
		STS(t, float, pc + ty * HS_BLOCK + tx,
		    LD(t, float, a->power, index));
	}
	SYNC(t);
	vymin = blk_y < 0 ? -blk_y : 0;
	vymax = blk_ymax > a->rows - 1 ?
		HS_BLOCK - 1 - (blk_ymax - a->rows + 1) : HS_BLOCK - 1;
	vxmin = blk_x < 0 ? -blk_x : 0;
	vxmax = blk_xmax > a->cols - 1 ?
		HS_BLOCK - 1 - (blk_xmax - a->cols + 1) : HS_BLOCK - 1;
	n = ty - 1 < vymin ? vymin : ty - 1;
	s = ty + 1 > vymax ? vymax : ty + 1;
	w = tx - 1 < vxmin ? vxmin : tx - 1;
	e = tx + 1 > vxmax ? vxmax : tx + 1;
	OPS(t, PROG_OP_INT, 12);
	for (i = 0; i < a->iteration; i++) {
		computed = false;
		OPS(t, PROG_OP_INT, 8);
		OPS(t, PROG_OP_BRANCH, 1);
		if (IN_RANGE(tx, i + 1, HS_BLOCK - i - 2) &&
		    IN_RANGE(ty, i + 1, HS_BLOCK - i - 2) &&
		    IN_RANGE(tx, vxmin, vxmax) && IN_RANGE(ty, vymin, vymax)) {
			float c = LDS(t, float, tc + ty * HS_BLOCK + tx);
			float pw = LDS(t, float, pc + ty * HS_BLOCK + tx);
			float sv = LDS(t, float, tc + s * HS_BLOCK + tx);
			float nv = LDS(t, float, tc + n * HS_BLOCK + tx);
			float ev = LDS(t, float, tc + ty * HS_BLOCK + e);
			float wv = LDS(t, float, tc + ty * HS_BLOCK + w);

			computed = true;
			OPS(t, PROG_OP_FP, 9);
			STS(t, float, tt + ty * HS_BLOCK + tx,
			    hs_cell(c, pw, nv, sv, ev, wv, a));
		}
		SYNC(t);
		OPS(t, PROG_OP_INT, 1);
		OPS(t, PROG_OP_BRANCH, 1);
		if (i == a->iteration - 1)
			break;
		OPS(t, PROG_OP_BRANCH, 1);
		if (computed)
			STS(t, float, tc + ty * HS_BLOCK + tx,
			    LDS(t, float, tt + ty * HS_BLOCK + tx));
		SYNC(t);
		OPS(t, PROG_OP_INT, 2);
		OPS(t, PROG_OP_BRANCH, 1);
	}
	OPS(t, PROG_OP_BRANCH, 1);
	if (computed)
		ST(t, float, a->dst, index,
		   LDS(t, float, tt + ty * HS_BLOCK + tx));
}

/* The reference: one step at a time over the whole grid. */
static void hs_ref(float *cur, float *next, const float *power, int32_t n,
		   const struct hs_args *a)
{
	int32_t step, r, c;
	float *tmp;

	for (step = 0; step < HS_STEPS; step++) {
		for (r = 0; r < n; r++) {
			for (c = 0; c < n; c++) {
				const float *row = cur + (int64_t)r * n;
				float nv = cur[(int64_t)(r ? r - 1 : 0) * n + c];
				float sv = cur[(int64_t)(r < n - 1 ? r + 1 : r) *
					       n + c];
				float ev = row[c < n - 1 ? c + 1 : c];
				float wv = row[c ? c - 1 : 0];

				next[(int64_t)r * n + c] =
					hs_cell(row[c], power[(int64_t)r * n + c],
						nv, sv, ev, wv, a);
			}
		}
		tmp = cur;
		cur = next;
		next = tmp;
	}
	if (HS_STEPS % 2)
		for (r = 0; r < n * n; r++)
			next[r] = cur[r];
}

static int hs_run(struct simt_gpu *gpu, uint64_t size, uint64_t seed,
		  char *err, size_t errlen)
{
	const char *app = "hotspot";
	const int32_t n = (int32_t)size;
	const int32_t small = HS_BLOCK - HS_PYRAMID * 2;
	const uint64_t cells = size * size, bytes = cells * sizeof(float);
	float *temp = NULL, *power = NULL, *got = NULL, *cur = NULL;
	float *next = NULL;
	float grid_h, grid_w, cap, rx, ry, rz, max_slope;
	uint64_t d_temp[2], i;
	struct hs_args args;
	struct app_rng rng;
	int src = 0, ret, step;
	uint32_t blocks;

	ret = app_size_range(size, HS_BLOCK, HS_MAX, "the grid's side", app,
			     err, errlen);
	if (ret)
		return ret;
	temp = malloc(bytes);
	power = malloc(bytes);
	got = malloc(bytes);
	cur = malloc(bytes);
	next = malloc(bytes);
	ret = -ENOMEM;
	if (!temp || !power || !got || !cur || !next) {
		app_err(err, errlen, app, "out of memory");
		goto out;
	}
	/* temp_512 and power_512's ranges: about 323 to 343 K, < 1 mW. */
	app_rng_init(&rng, seed, 60);
	for (i = 0; i < cells; i++)
		temp[i] = 323.0f + 20.0f * app_rng_float(&rng);
	app_rng_fill_float(&rng, power, cells, 1e-3f);

	/* Rodinia's compute_tran_temp. */
	grid_h = HS_CHIP_HEIGHT / n;
	grid_w = HS_CHIP_WIDTH / n;
	cap = HS_FACTOR_CHIP * HS_SPEC_HEAT_SI * HS_T_CHIP * grid_w * grid_h;
	rx = grid_w / (2.0f * HS_K_SI * HS_T_CHIP * grid_h);
	ry = grid_h / (2.0f * HS_K_SI * HS_T_CHIP * grid_w);
	rz = HS_T_CHIP / (HS_K_SI * grid_h * grid_w);
	max_slope = HS_MAX_PD / (HS_FACTOR_CHIP * HS_T_CHIP * HS_SPEC_HEAT_SI);
	args.step_div_cap = HS_PRECISION / max_slope / cap;
	args.rx_1 = 1.0f / rx;
	args.ry_1 = 1.0f / ry;
	args.rz_1 = 1.0f / rz;
	args.cols = n;
	args.rows = n;
	args.border_cols = HS_PYRAMID;
	args.border_rows = HS_PYRAMID;
	blocks = (uint32_t)((n + small - 1) / small);

	ret = app_alloc(gpu, bytes, "MatrixPower", &args.power, app, err,
			errlen);
	if (!ret)
		ret = app_alloc(gpu, bytes, "MatrixTemp[0]", &d_temp[0], app,
				err, errlen);
	if (!ret)
		ret = app_alloc(gpu, bytes, "MatrixTemp[1]", &d_temp[1], app,
				err, errlen);
	if (ret)
		goto out;
	simt_h2d(gpu, d_temp[0], temp, bytes);
	simt_h2d(gpu, args.power, power, bytes);
	for (step = 0; step < HS_STEPS; step += HS_PYRAMID) {
		args.iteration = HS_STEPS - step < HS_PYRAMID ?
				 HS_STEPS - step : HS_PYRAMID;
		args.src = d_temp[src];
		args.dst = d_temp[!src];
		src = !src;
		ret = app_launch(gpu, "calculate_temp", hs_kernel,
				 DIM3(blocks, blocks, 1),
				 DIM3(HS_BLOCK, HS_BLOCK, 1),
				 3 * HS_BLOCK * HS_BLOCK * sizeof(float),
				 &args, app, err, errlen);
		if (ret)
			goto out;
	}
	simt_d2h(gpu, got, d_temp[src], bytes);
	app_test_perturb(got, sizeof(*got), cells);

	for (i = 0; i < cells; i++)
		cur[i] = temp[i];
	hs_ref(cur, next, power, n, &args);
	ret = app_check_f32(got, cur, cells, APP_FLOAT_TOLERANCE, app, "temp",
			    err, errlen);
out:
	free(temp);
	free(power);
	free(got);
	free(cur);
	free(next);
	return ret;
}

const struct app_desc app_hotspot = {
	.name = "hotspot",
	.suite = "Rodinia (hotspot)",
	.summary = "transient chip temperature, a 5-point stencil: "
		   "calculate_temp advances 2 steps (pyramid_height) a launch "
		   "in 16 x 16 shared-memory tiles overlapping by 2, 10 "
		   "launches for 20 steps",
	.input = "size = the grid's side (Table II: 512, pyramid height 2, "
		 "20 steps); temperatures uniform in [323, 343) K and power "
		 "in [0, 1 mW) from the seed, the ranges of Rodinia's "
		 "temp_512 and power_512 (the values do not change the "
		 "program). Large: the paper's 512",
	.small_size = 64,
	.large_size = 512,
	.paper_sizes = "CPElide Table II: 512 2 20 temp_512 power_512 = size "
		       "512 (--large; pyramid height 2 and 20 steps as given, "
		       "temperatures and power random in the files' ranges)",
	.kernels = "calculate_temp",
	.run = hs_run,
};
