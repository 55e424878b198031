// SPDX-License-Identifier: GPL-2.0
/*
 * SHOC's Spmv, CSR format, the scalar kernel (spmv_csr_scalar_kernel):
 * one thread a row in blocks of 128, each thread walking its row's
 * nonzeros and gathering x at their columns. SHOC reads x through the
 * texture cache; the executor has no texture path, so x is read with
 * global loads. (SHOC's vector kernel, a warp a row, reduces within a
 * warp without barriers, which the executor does not model: threads run
 * one after another between barriers.)
 *
 * The matrix is SHOC's random one (initRandomMatrix): size x size with
 * 1 % of its entries nonzero, each entry in row order taking a nonzero
 * with probability 1 % until the count is reached (or all remaining
 * entries once only as many remain as are still to be placed); values
 * and x uniform in [0, 10) (SHOC's fill with maxval 10).
 */
#include <errno.h>
#include <stdlib.h>

#include "app_util.h"
#include "apps.h"

#define SPMV_BLOCK	128
#define SPMV_MIN	10		/* at least one nonzero */
#define SPMV_MAX	65536

struct spmv_args {
	uint64_t val, cols, rows, vec, out;
	uint32_t dim;
};

/*
 * OPS: the row index and its bounds (INT 2, BRANCH 1); a nonzero: an
 * FFMA (FP 1), the loop's add and compare (INT 2) and back edge
 * (BRANCH 1).
 */
static void spmv_scalar_kernel(struct simt_thread *t, const void *p)
{
	const struct spmv_args *a = p;
	uint64_t row = simt_global_x(t);
	uint32_t start, end, j;
	float sum = 0.0f;

	OPS(t, PROG_OP_INT, 2);
	OPS(t, PROG_OP_BRANCH, 1);
	if (row >= a->dim)
		return;
	start = LD(t, uint32_t, a->rows, row);
	end = LD(t, uint32_t, a->rows, row + 1);
	for (j = start; j < end; j++) {
		uint32_t col = LD(t, uint32_t, a->cols, j);
		float v = LD(t, float, a->val, j);
		float x = LD(t, float, a->vec, col);

		OPS(t, PROG_OP_FP, 1);
		sum = sum + v * x;
		OPS(t, PROG_OP_INT, 2);
		OPS(t, PROG_OP_BRANCH, 1);
	}
	ST(t, float, a->out, row, sum);
}

/* SHOC's initRandomMatrix: rows[dim + 1] and cols[nnz], row order. */
static void spmv_matrix(struct app_rng *rng, uint32_t dim, uint64_t nnz,
			uint32_t *rows, uint32_t *cols)
{
	const double prob = (double)nnz / ((double)dim * dim);
	const uint64_t entries = (uint64_t)dim * dim;
	uint64_t placed = 0;
	bool fill_rest = false;
	uint32_t i, j;

	for (i = 0; i < dim; i++) {
		rows[i] = (uint32_t)placed;
		for (j = 0; j < dim; j++) {
			uint64_t left = entries - ((uint64_t)i * dim + j);

			if (left <= nnz - placed)
				fill_rest = true;
			if ((placed < nnz && app_rng_unit(rng) <= prob) ||
			    fill_rest)
				cols[placed++] = j;
		}
	}
	rows[dim] = (uint32_t)placed;
}

static int spmv_run(struct simt_gpu *gpu, uint64_t size, uint64_t seed,
		    char *err, size_t errlen)
{
	const char *app = "spmv";
	const uint32_t dim = (uint32_t)size;
	uint32_t *rows = NULL, *cols = NULL, i, j;
	float *val = NULL, *vec = NULL, *got = NULL, *want = NULL;
	struct spmv_args args = { .dim = dim };
	struct app_rng rng;
	uint64_t nnz;
	int ret;

	ret = app_size_range(size, SPMV_MIN, SPMV_MAX, "the matrix's rows",
			     app, err, errlen);
	if (ret)
		return ret;
	nnz = size * size / 100;
	rows = malloc((size + 1) * sizeof(*rows));
	cols = malloc(nnz * sizeof(*cols));
	val = malloc(nnz * sizeof(*val));
	vec = malloc(size * sizeof(*vec));
	got = malloc(size * sizeof(*got));
	want = malloc(size * sizeof(*want));
	ret = -ENOMEM;
	if (!rows || !cols || !val || !vec || !got || !want) {
		app_err(err, errlen, app, "out of memory");
		goto out;
	}
	app_rng_init(&rng, seed, 40);
	spmv_matrix(&rng, dim, nnz, rows, cols);
	app_rng_fill_float(&rng, val, nnz, 10.0f);
	app_rng_fill_float(&rng, vec, size, 10.0f);

	ret = app_alloc(gpu, nnz * sizeof(float), "val", &args.val, app, err,
			errlen);
	if (!ret)
		ret = app_alloc(gpu, nnz * sizeof(uint32_t), "cols",
				&args.cols, app, err, errlen);
	if (!ret)
		ret = app_alloc(gpu, (size + 1) * sizeof(uint32_t),
				"rowDelimiters", &args.rows, app, err, errlen);
	if (!ret)
		ret = app_alloc(gpu, size * sizeof(float), "vec", &args.vec,
				app, err, errlen);
	if (!ret)
		ret = app_alloc(gpu, size * sizeof(float), "out", &args.out,
				app, err, errlen);
	if (ret)
		goto out;
	simt_h2d(gpu, args.val, val, nnz * sizeof(float));
	simt_h2d(gpu, args.cols, cols, nnz * sizeof(uint32_t));
	simt_h2d(gpu, args.rows, rows, (size + 1) * sizeof(uint32_t));
	simt_h2d(gpu, args.vec, vec, size * sizeof(float));
	ret = app_launch(gpu, "spmv_csr_scalar_kernel", spmv_scalar_kernel,
			 DIM3(app_blocks(size, SPMV_BLOCK), 1, 1),
			 DIM3(SPMV_BLOCK, 1, 1), 0, &args, app, err, errlen);
	if (ret)
		goto out;
	simt_d2h(gpu, got, args.out, size * sizeof(float));
	app_test_perturb(got, sizeof(*got), size);

	for (i = 0; i < dim; i++) {
		float sum = 0.0f;

		for (j = rows[i]; j < rows[i + 1]; j++)
			sum = sum + val[j] * vec[cols[j]];
		want[i] = sum;
	}
	ret = app_check_f32(got, want, size, APP_FLOAT_TOLERANCE, app, "out",
			    err, errlen);
out:
	free(rows);
	free(cols);
	free(val);
	free(vec);
	free(got);
	free(want);
	return ret;
}

const struct app_desc app_spmv = {
	.name = "spmv",
	.suite = "SHOC (Spmv, CSR scalar kernel)",
	.summary = "y = A x for a random CSR matrix, a thread a row, blocks "
		   "of 128",
	.input = "size = the matrix's rows (and columns): SHOC's random "
		 "matrix with size^2 / 100 nonzeros placed row by row with "
		 "probability 1 % each, values and x uniform in [0, 10), all "
		 "from the seed (SHOC's sizes are 1024, 8192, 12288, 16384)",
	.small_size = 1024,
	.large_size = 16384,
	.paper_sizes = "Barre Table I (spm, MPKI 3835.95): input not given",
	.kernels = "spmv_csr_scalar_kernel",
	.run = spmv_run,
};
