// SPDX-License-Identifier: GPL-2.0
/*
 * lud (CPElide's Table II): Rodinia's lud, LU decomposition in place
 * (Doolittle, no pivoting) by 16 x 16 tiles (BLOCK_SIZE 16). For each
 * block step at offset k the host launches lud_diagonal (one block of
 * 16 threads factors the diagonal tile in shared memory), lud_perimeter
 * (a block of 32 threads a tile pair right of and below it: 16 threads
 * solve the row tile with L's unit triangle, 16 the column tile with U)
 * and lud_internal (a 16 x 16 block a trailing tile: the tile minus the
 * product of its row's and column's perimeter tiles, through shared
 * memory); after the last step one more lud_diagonal.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "app_util.h"
#include "apps.h"

#define LUD_BS		16
#define LUD_MAX		4096

struct lud_args {
	uint64_t m;
	int32_t dim, offset;
};

/*
 * Shared: shadow[16][16]. OPS: a row's load or store (INT 2, BRANCH 1
 * with the loop); a step i: tx > i (INT 1, BRANCH 1), for the threads
 * below it i FFMAs, a divide (FP 1, SFU 1) and the inner loop (INT 2,
 * BRANCH 1 an iteration); the second tx > i (INT 1, BRANCH 1), i + 1
 * FFMAs with their loop; the step's loop (INT 2, BRANCH 1).
 */
static void lud_diagonal(struct simt_thread *t, const void *p)
{
	const struct lud_args *a = p;
	int32_t tx = (int32_t)simt_thread_idx(t).x;
	int64_t off = (int64_t)a->offset * a->dim + a->offset;
	int32_t i, j;

	for (i = 0; i < LUD_BS; i++) {
		STS(t, float, i * LUD_BS + tx, LD(t, float, a->m, off + tx));
		off += a->dim;
		OPS(t, PROG_OP_INT, 2);
		OPS(t, PROG_OP_BRANCH, 1);
	}
	SYNC(t);
	for (i = 0; i < LUD_BS - 1; i++) {
		OPS(t, PROG_OP_INT, 1);
		OPS(t, PROG_OP_BRANCH, 1);
		if (tx > i) {
			for (j = 0; j < i; j++) {
				float x = LDS(t, float, tx * LUD_BS + i);
				float l = LDS(t, float, tx * LUD_BS + j);
				float u = LDS(t, float, j * LUD_BS + i);

				OPS(t, PROG_OP_FP, 1);
				STS(t, float, tx * LUD_BS + i, x - l * u);
				OPS(t, PROG_OP_INT, 2);
				OPS(t, PROG_OP_BRANCH, 1);
			}
			OPS(t, PROG_OP_FP, 1);
			OPS(t, PROG_OP_SFU, 1);
			STS(t, float, tx * LUD_BS + i,
			    LDS(t, float, tx * LUD_BS + i) /
			    LDS(t, float, i * LUD_BS + i));
		}
		SYNC(t);
		OPS(t, PROG_OP_INT, 1);
		OPS(t, PROG_OP_BRANCH, 1);
		if (tx > i) {
			for (j = 0; j < i + 1; j++) {
				float x = LDS(t, float, (i + 1) * LUD_BS + tx);
				float l = LDS(t, float, (i + 1) * LUD_BS + j);
				float u = LDS(t, float, j * LUD_BS + tx);

				OPS(t, PROG_OP_FP, 1);
				STS(t, float, (i + 1) * LUD_BS + tx, x - l * u);
				OPS(t, PROG_OP_INT, 2);
				OPS(t, PROG_OP_BRANCH, 1);
			}
		}
		SYNC(t);
		OPS(t, PROG_OP_INT, 2);
		OPS(t, PROG_OP_BRANCH, 1);
	}
	off = (int64_t)(a->offset + 1) * a->dim + a->offset;
	for (i = 1; i < LUD_BS; i++) {
		ST(t, float, a->m, off + tx, LDS(t, float, i * LUD_BS + tx));
		off += a->dim;
		OPS(t, PROG_OP_INT, 2);
		OPS(t, PROG_OP_BRANCH, 1);
	}
}

/*
 * Shared: dia, peri_row, peri_col (16 x 16 floats each). OPS: the half's
 * test (INT 1, BRANCH 1) three times, the offsets (INT 3); a row loaded
 * or stored (INT 2, BRANCH 1 with the loop); an FFMA (FP 1) with its
 * loop (INT 2, BRANCH 1); the column half's divide (FP 1, SFU 1) a row.
 */
static void lud_perimeter(struct simt_thread *t, const void *p)
{
	const struct lud_args *a = p;
	const uint32_t dia = 0, row = 256, col = 512;
	int32_t tx = (int32_t)simt_thread_idx(t).x;
	int32_t bx = (int32_t)simt_block_idx(t).x;
	int64_t off;
	int32_t i, j, idx;

	OPS(t, PROG_OP_INT, 4);
	OPS(t, PROG_OP_BRANCH, 1);
	if (tx < LUD_BS) {
		idx = tx;
		off = (int64_t)a->offset * a->dim + a->offset;
		for (i = 0; i < LUD_BS / 2; i++) {
			STS(t, float, dia + i * LUD_BS + idx,
			    LD(t, float, a->m, off + idx));
			off += a->dim;
			OPS(t, PROG_OP_INT, 2);
			OPS(t, PROG_OP_BRANCH, 1);
		}
		off = (int64_t)a->offset * a->dim + a->offset;
		for (i = 0; i < LUD_BS; i++) {
			STS(t, float, row + i * LUD_BS + idx,
			    LD(t, float, a->m, off + (bx + 1) * LUD_BS + idx));
			off += a->dim;
			OPS(t, PROG_OP_INT, 2);
			OPS(t, PROG_OP_BRANCH, 1);
		}
	} else {
		idx = tx - LUD_BS;
		off = (int64_t)(a->offset + LUD_BS / 2) * a->dim + a->offset;
		for (i = LUD_BS / 2; i < LUD_BS; i++) {
			STS(t, float, dia + i * LUD_BS + idx,
			    LD(t, float, a->m, off + idx));
			off += a->dim;
			OPS(t, PROG_OP_INT, 2);
			OPS(t, PROG_OP_BRANCH, 1);
		}
		off = (int64_t)(a->offset + (bx + 1) * LUD_BS) * a->dim +
			a->offset;
		for (i = 0; i < LUD_BS; i++) {
			STS(t, float, col + i * LUD_BS + idx,
			    LD(t, float, a->m, off + idx));
			off += a->dim;
			OPS(t, PROG_OP_INT, 2);
			OPS(t, PROG_OP_BRANCH, 1);
		}
	}
	SYNC(t);
	OPS(t, PROG_OP_INT, 1);
	OPS(t, PROG_OP_BRANCH, 1);
	if (tx < LUD_BS) {
		idx = tx;
		for (i = 1; i < LUD_BS; i++) {
			for (j = 0; j < i; j++) {
				float x = LDS(t, float, row + i * LUD_BS + idx);
				float l = LDS(t, float, dia + i * LUD_BS + j);
				float u = LDS(t, float, row + j * LUD_BS + idx);

				OPS(t, PROG_OP_FP, 1);
				STS(t, float, row + i * LUD_BS + idx, x - l * u);
				OPS(t, PROG_OP_INT, 2);
				OPS(t, PROG_OP_BRANCH, 1);
			}
			OPS(t, PROG_OP_INT, 2);
			OPS(t, PROG_OP_BRANCH, 1);
		}
	} else {
		idx = tx - LUD_BS;
		for (i = 0; i < LUD_BS; i++) {
			for (j = 0; j < i; j++) {
				float x = LDS(t, float, col + idx * LUD_BS + i);
				float l = LDS(t, float, col + idx * LUD_BS + j);
				float u = LDS(t, float, dia + j * LUD_BS + i);

				OPS(t, PROG_OP_FP, 1);
				STS(t, float, col + idx * LUD_BS + i, x - l * u);
				OPS(t, PROG_OP_INT, 2);
				OPS(t, PROG_OP_BRANCH, 1);
			}
			OPS(t, PROG_OP_FP, 1);
			OPS(t, PROG_OP_SFU, 1);
			STS(t, float, col + idx * LUD_BS + i,
			    LDS(t, float, col + idx * LUD_BS + i) /
			    LDS(t, float, dia + i * LUD_BS + i));
			OPS(t, PROG_OP_INT, 2);
			OPS(t, PROG_OP_BRANCH, 1);
		}
	}
	SYNC(t);
	OPS(t, PROG_OP_INT, 1);
	OPS(t, PROG_OP_BRANCH, 1);
	if (tx < LUD_BS) {
		idx = tx;
		off = (int64_t)(a->offset + 1) * a->dim + a->offset;
		for (i = 1; i < LUD_BS; i++) {
			ST(t, float, a->m, off + (bx + 1) * LUD_BS + idx,
			   LDS(t, float, row + i * LUD_BS + idx));
			off += a->dim;
			OPS(t, PROG_OP_INT, 2);
			OPS(t, PROG_OP_BRANCH, 1);
		}
	} else {
		idx = tx - LUD_BS;
		off = (int64_t)(a->offset + (bx + 1) * LUD_BS) * a->dim +
			a->offset;
		for (i = 0; i < LUD_BS; i++) {
			ST(t, float, a->m, off + idx,
			   LDS(t, float, col + i * LUD_BS + idx));
			off += a->dim;
			OPS(t, PROG_OP_INT, 2);
			OPS(t, PROG_OP_BRANCH, 1);
		}
	}
}

/*
 * Shared: peri_row, peri_col. OPS: the tile's row and column and the
 * three indices (INT 5); 16 FFMAs (FP 16, the loop unrolled as nvcc
 * does a constant trip count); the subtraction (FP 1).
 */
static void lud_internal(struct simt_thread *t, const void *p)
{
	const struct lud_args *a = p;
	const uint32_t row = 0, col = 256;
	int32_t tx = (int32_t)simt_thread_idx(t).x;
	int32_t ty = (int32_t)simt_thread_idx(t).y;
	int32_t grow = a->offset + ((int32_t)simt_block_idx(t).y + 1) * LUD_BS;
	int32_t gcol = a->offset + ((int32_t)simt_block_idx(t).x + 1) * LUD_BS;
	int64_t dst = (int64_t)(grow + ty) * a->dim + gcol + tx;
	float sum = 0.0f;
	int32_t i;

	OPS(t, PROG_OP_INT, 5);
	STS(t, float, row + ty * LUD_BS + tx,
	    LD(t, float, a->m, (int64_t)(a->offset + ty) * a->dim + gcol + tx));
	STS(t, float, col + ty * LUD_BS + tx,
	    LD(t, float, a->m, (int64_t)(grow + ty) * a->dim + a->offset + tx));
	SYNC(t);
	for (i = 0; i < LUD_BS; i++)
		sum += LDS(t, float, col + ty * LUD_BS + i) *
			LDS(t, float, row + i * LUD_BS + tx);
	OPS(t, PROG_OP_FP, 17);
	ST(t, float, a->m, dst, LD(t, float, a->m, dst) - sum);
}

/* The reference's trailing tile (by, bx) at step off. */
static void lud_internal_ref(float *m, int32_t n, int32_t off, int32_t by,
			     int32_t bx)
{
	int32_t k, x, y;
	float sum;

	for (y = 0; y < LUD_BS; y++) {
		const float *col = m + (int64_t)(by + y) * n + off;
		float *dst = m + (int64_t)(by + y) * n + bx;

		for (x = 0; x < LUD_BS; x++) {
			sum = 0.0f;
			for (k = 0; k < LUD_BS; k++)
				sum += col[k] * m[(int64_t)(off + k) * n + bx + x];
			dst[x] -= sum;
		}
	}
}

/* The reference: the same tile algorithm on the CPU, in its order. */
static void lud_ref(float *m, int32_t n)
{
	float s[LUD_BS][LUD_BS];
	int32_t off, b, bx, by, i, j, x;

	for (off = 0; ; off += LUD_BS) {
		float *d = m + (int64_t)off * n + off;

		for (i = 0; i < LUD_BS; i++)
			for (j = 0; j < LUD_BS; j++)
				s[i][j] = d[(int64_t)i * n + j];
		for (i = 0; i < LUD_BS - 1; i++) {
			for (x = i + 1; x < LUD_BS; x++) {
				for (j = 0; j < i; j++)
					s[x][i] = s[x][i] - s[x][j] * s[j][i];
				s[x][i] = s[x][i] / s[i][i];
			}
			for (x = i + 1; x < LUD_BS; x++)
				for (j = 0; j < i + 1; j++)
					s[i + 1][x] = s[i + 1][x] -
						s[i + 1][j] * s[j][x];
		}
		for (i = 1; i < LUD_BS; i++)
			for (j = 0; j < LUD_BS; j++)
				d[(int64_t)i * n + j] = s[i][j];
		if (off >= n - LUD_BS)
			break;
		for (b = off + LUD_BS; b < n; b += LUD_BS) {
			/* The row tile (off, b), then the column tile (b, off). */
			for (x = 0; x < LUD_BS; x++)
				for (i = 1; i < LUD_BS; i++)
					for (j = 0; j < i; j++)
						d[(int64_t)i * n + b - off + x] -=
							d[(int64_t)i * n + j] *
							d[(int64_t)j * n + b - off + x];
			for (x = 0; x < LUD_BS; x++) {
				float *r = m + (int64_t)(b + x) * n + off;

				for (i = 0; i < LUD_BS; i++) {
					for (j = 0; j < i; j++)
						r[i] -= r[j] * d[(int64_t)j * n + i];
					r[i] /= d[(int64_t)i * n + i];
				}
			}
		}
		for (by = off + LUD_BS; by < n; by += LUD_BS)
			for (bx = off + LUD_BS; bx < n; bx += LUD_BS)
				lud_internal_ref(m, n, off, by, bx);
	}
}

static int lud_run(struct simt_gpu *gpu, uint64_t size, uint64_t seed,
		   char *err, size_t errlen)
{
	const char *app = "lud";
	const int32_t n = (int32_t)size;
	const uint64_t bytes = size * size * sizeof(float);
	float *m = NULL, *got = NULL;
	struct lud_args args = { .dim = n };
	struct app_rng rng;
	uint64_t i;
	uint32_t tiles;
	int ret;

	ret = app_size_range(size, LUD_BS, LUD_MAX, "the matrix's side", app,
			     err, errlen);
	if (ret)
		return ret;
	if (size % LUD_BS) {
		app_err(err, errlen, app,
			"size %llu: the matrix's side must be a multiple of 16",
			(unsigned long long)size);
		return -EINVAL;
	}
	m = malloc(bytes);
	got = malloc(bytes);
	ret = -ENOMEM;
	if (!m || !got) {
		app_err(err, errlen, app, "out of memory");
		goto out;
	}
	/* Uniform in [0, 1) plus N on the diagonal: no pivot needed. */
	app_rng_init(&rng, seed, 90);
	app_rng_fill_float(&rng, m, size * size, 1.0f);
	for (i = 0; i < size; i++)
		m[i * size + i] += (float)size;
	ret = app_alloc(gpu, bytes, "m_d", &args.m, app, err, errlen);
	if (ret)
		goto out;
	simt_h2d(gpu, args.m, m, bytes);
	for (args.offset = 0; args.offset < n - LUD_BS;
	     args.offset += LUD_BS) {
		tiles = (uint32_t)((n - args.offset) / LUD_BS - 1);
		ret = app_launch(gpu, "lud_diagonal", lud_diagonal,
				 DIM3(1, 1, 1), DIM3(LUD_BS, 1, 1),
				 LUD_BS * LUD_BS * sizeof(float), &args, app,
				 err, errlen);
		if (!ret)
			ret = app_launch(gpu, "lud_perimeter", lud_perimeter,
					 DIM3(tiles, 1, 1),
					 DIM3(2 * LUD_BS, 1, 1),
					 3 * LUD_BS * LUD_BS * sizeof(float),
					 &args, app, err, errlen);
		if (!ret)
			ret = app_launch(gpu, "lud_internal", lud_internal,
					 DIM3(tiles, tiles, 1),
					 DIM3(LUD_BS, LUD_BS, 1),
					 2 * LUD_BS * LUD_BS * sizeof(float),
					 &args, app, err, errlen);
		if (ret)
			goto out;
	}
	ret = app_launch(gpu, "lud_diagonal", lud_diagonal, DIM3(1, 1, 1),
			 DIM3(LUD_BS, 1, 1), LUD_BS * LUD_BS * sizeof(float),
			 &args, app, err, errlen);
	if (ret)
		goto out;
	simt_d2h(gpu, got, args.m, bytes);
	app_test_perturb(got, sizeof(*got), size * size);

	lud_ref(m, n);
	ret = app_check_f32(got, m, size * size, APP_FLOAT_TOLERANCE, app,
			    "m", err, errlen);
out:
	free(m);
	free(got);
	return ret;
}

const struct app_desc app_lud = {
	.name = "lud",
	.suite = "Rodinia (lud)",
	.summary = "LU decomposition by 16 x 16 tiles: a block step is "
		   "lud_diagonal (1 block of 16), lud_perimeter (a block of "
		   "32 a tile pair) and lud_internal (16 x 16 a trailing "
		   "tile), shared memory throughout; a last lud_diagonal",
	.input = "size = N: an N x N float matrix (a multiple of 16; Table "
		 "II: 512.dat, 512 x 512) uniform in [0, 1) from the seed "
		 "plus N on the diagonal, so no pivot is needed (Rodinia's "
		 "512.dat is a file we do not have; the values do not change "
		 "the program). Large: the paper's 512",
	.small_size = 64,
	.large_size = 512,
	.paper_sizes = "CPElide Table II: 512.dat = size 512 (--large; a "
		       "random diagonally dominant matrix instead of the file)",
	.kernels = "lud_diagonal, lud_perimeter, lud_internal",
	.run = lud_run,
};
