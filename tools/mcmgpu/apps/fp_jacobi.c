// SPDX-License-Identifier: GPL-2.0
/*
 * jacobi (FinePack §V): Jacobi iterations x' = D^-1 (b - (A - D) x) for
 * A x = b on a synthetic banded matrix, split across FP_GPUS GPUs by
 * rows, with P2P boundary exchange (fp_util.h). FinePack evaluates
 * NVIDIA's multi-GPU Jacobi; we write the same scheme from its
 * description: "synthetic banded matrices", each GPU storing the rows
 * its neighbours read straight into their copies of x.
 *
 * Ours, where the paper is silent:
 *  - The matrix is a 5-point one on an nx x nx grid (bands at 0, +-1
 *    and +-nx), the banded matrix NVIDIA's Jacobi sample solves; the
 *    off-diagonals are -c with c uniform in [0, 1) and the diagonal 4.5,
 *    so A is diagonally dominant and x stays nonnegative. Stored by
 *    diagonals (DIA): D^-1, the four couplings c and b, n floats each,
 *    one object each (kwc puts GPU g's rows in its memory).
 *  - GPU g owns grid rows [g nx / 4, (g + 1) nx / 4). x is replicated
 *    (two objects, ping-ponged); a thread a cell reads its neighbours
 *    from its GPU's replica and stores x'[i] there; a cell in the first
 *    (last) owned row also stores it into the previous (next) GPU's
 *    replica: the halo row a neighbour reads next iteration. A warp's
 *    32 cells are one 128 B store, the paper's "128B stores".
 *  - 20 iterations, one launch each (the launch is the sync), x0 = 0.
 * Each replica is checked: its rows and halo rows against the host's
 * same sums, every other element still 0.
 */
#include <errno.h>
#include <stdlib.h>

#include "app_util.h"
#include "apps.h"
#include "fp_util.h"

#define JAC_BLOCK	256
#define JAC_ITERATIONS	20
#define JAC_DIAG	4.5f

struct jac_args {
	uint64_t dinv, cw, ce, cn, cs, b, x, xn;
	uint64_t stride;		/* a replica's bytes */
	uint32_t nx, rows, blocks;	/* rows, blocks: a GPU's */
};

/* The row's sum, as the kernel and the reference both add it. */
static inline float jac_acc(float sum, float c, float x)
{
	return sum + c * x;
}

/*
 * OPS: the index, gpu, row and column (INT 4); each neighbour's edge
 * test (INT 1, BRANCH 1) and its FFMA (FP 1); the scale (FP 1); the two
 * halo tests (INT 2, BRANCH 2).
 */
static void jac_kernel(struct simt_thread *t, const void *p)
{
	const struct jac_args *a = p;
	uint64_t i = simt_global_x(t);
	uint32_t gpu = simt_block_idx(t).x / a->blocks;
	uint32_t r = (uint32_t)(i / a->nx), c = (uint32_t)(i % a->nx);
	uint64_t x = a->x + gpu * a->stride, xn = a->xn + gpu * a->stride;
	float sum = LD(t, float, a->b, i);

	OPS(t, PROG_OP_INT, 4);
	OPS(t, PROG_OP_INT, 1);
	OPS(t, PROG_OP_BRANCH, 1);
	if (c > 0) {
		OPS(t, PROG_OP_FP, 1);
		sum = jac_acc(sum, LD(t, float, a->cw, i),
			      LD(t, float, x, i - 1));
	}
	OPS(t, PROG_OP_INT, 1);
	OPS(t, PROG_OP_BRANCH, 1);
	if (c < a->nx - 1) {
		OPS(t, PROG_OP_FP, 1);
		sum = jac_acc(sum, LD(t, float, a->ce, i),
			      LD(t, float, x, i + 1));
	}
	OPS(t, PROG_OP_INT, 1);
	OPS(t, PROG_OP_BRANCH, 1);
	if (r > 0) {
		OPS(t, PROG_OP_FP, 1);
		sum = jac_acc(sum, LD(t, float, a->cn, i),
			      LD(t, float, x, i - a->nx));
	}
	OPS(t, PROG_OP_INT, 1);
	OPS(t, PROG_OP_BRANCH, 1);
	if (r < a->nx - 1) {
		OPS(t, PROG_OP_FP, 1);
		sum = jac_acc(sum, LD(t, float, a->cs, i),
			      LD(t, float, x, i + a->nx));
	}
	OPS(t, PROG_OP_FP, 1);
	sum = sum * LD(t, float, a->dinv, i);
	ST(t, float, xn, i, sum);
	OPS(t, PROG_OP_INT, 2);
	OPS(t, PROG_OP_BRANCH, 2);
	if (gpu > 0 && r == gpu * a->rows)
		ST(t, float, xn - a->stride, i, sum);
	if (gpu < FP_GPUS - 1 && r == (gpu + 1) * a->rows - 1)
		ST(t, float, xn + a->stride, i, sum);
}

/* One sweep on the host. */
static void jac_ref(const float *const m[6], const float *x, float *xn,
		    uint32_t nx)
{
	uint64_t n = (uint64_t)nx * nx, i;

	for (i = 0; i < n; i++) {
		uint32_t r = (uint32_t)(i / nx), c = (uint32_t)(i % nx);
		float sum = m[5][i];

		if (c > 0)
			sum = jac_acc(sum, m[1][i], x[i - 1]);
		if (c < nx - 1)
			sum = jac_acc(sum, m[2][i], x[i + 1]);
		if (r > 0)
			sum = jac_acc(sum, m[3][i], x[i - nx]);
		if (r < nx - 1)
			sum = jac_acc(sum, m[4][i], x[i + nx]);
		xn[i] = sum * m[0][i];
	}
}

static int jac_run(struct simt_gpu *gpu, uint64_t size, uint64_t seed,
		   char *err, size_t errlen)
{
	static const char *const names[6] = {
		"dinv", "cw", "ce", "cn", "cs", "b"
	};
	const char *app = "jacobi";
	uint64_t n = size * size, *dev[6], d_x[2], lo[FP_GPUS], hi[FP_GPUS];
	float *m[6] = { NULL }, *x = NULL, *xn = NULL, *zero = NULL;
	float *got = NULL, *tmp;
	struct jac_args args;
	struct app_rng rng;
	int ret, k, it;
	uint64_t i;
	int g;

	ret = app_size_range(size, 64, 4096, "the grid's side", app, err,
			     errlen);
	if (ret)
		return ret;
	if (size % 64)
		return app_err(err, errlen, app,
			       "size %llu: the grid's side must be a multiple of 64",
			       (unsigned long long)size), -EINVAL;
	for (k = 0; k < 6; k++)
		m[k] = malloc(n * sizeof(float));
	x = calloc(n, sizeof(float));
	xn = malloc(n * sizeof(float));
	zero = calloc(n, sizeof(float));
	ret = -ENOMEM;
	if (!m[0] || !m[1] || !m[2] || !m[3] || !m[4] || !m[5] || !x ||
	    !xn || !zero) {
		app_err(err, errlen, app, "out of memory");
		goto out;
	}
	app_rng_init(&rng, seed, 90);
	for (i = 0; i < n; i++)
		m[0][i] = 1.0f / JAC_DIAG;
	for (k = 1; k < 6; k++)
		app_rng_fill_float(&rng, m[k], n, 1.0f);

	dev[0] = &args.dinv;
	dev[1] = &args.cw;
	dev[2] = &args.ce;
	dev[3] = &args.cn;
	dev[4] = &args.cs;
	dev[5] = &args.b;
	for (k = 0, ret = 0; k < 6 && !ret; k++)
		ret = app_alloc(gpu, n * sizeof(float), names[k], dev[k], app,
				err, errlen);
	if (!ret)
		ret = fp_alloc(gpu, n, sizeof(float), zero, "x", &d_x[0], app,
			       err, errlen);
	if (!ret)
		ret = fp_alloc(gpu, n, sizeof(float), zero, "xnew", &d_x[1],
			       app, err, errlen);
	if (ret)
		goto out;
	for (k = 0; k < 6; k++)
		simt_h2d(gpu, *dev[k], m[k], n * sizeof(float));
	args.nx = (uint32_t)size;
	args.rows = (uint32_t)size / FP_GPUS;
	args.blocks = (uint32_t)(n / FP_GPUS / JAC_BLOCK);
	args.stride = fp_stride(n, sizeof(float)) * sizeof(float);
	for (it = 0; it < JAC_ITERATIONS; it++) {
		args.x = d_x[it % 2];
		args.xn = d_x[!(it % 2)];
		ret = app_launch(gpu, "jacobi_kernel", jac_kernel,
				 DIM3(FP_GPUS * args.blocks, 1, 1),
				 DIM3(JAC_BLOCK, 1, 1), 0, &args, app, err,
				 errlen);
		if (ret)
			goto out;
	}
	got = fp_fetch(gpu, d_x[JAC_ITERATIONS % 2], n, sizeof(float));
	ret = -ENOMEM;
	if (!got) {
		app_err(err, errlen, app, "out of memory");
		goto out;
	}

	for (it = 0; it < JAC_ITERATIONS; it++) {
		jac_ref((const float *const *)m, x, xn, args.nx);
		tmp = x;
		x = xn;
		xn = tmp;
	}
	/* A replica holds its rows and the halo row on each side. */
	for (g = 0; g < FP_GPUS; g++) {
		lo[g] = g ? ((uint64_t)g * args.rows - 1) * size : 0;
		hi[g] = g < FP_GPUS - 1 ?
			((uint64_t)(g + 1) * args.rows + 1) * size : n;
	}
	ret = fp_check_f32(got, n, x, zero, lo, hi, app, "x", err, errlen);
out:
	for (k = 0; k < 6; k++)
		free(m[k]);
	free(x);
	free(xn);
	free(zero);
	free(got);
	return ret;
}

const struct app_desc app_fp_jacobi = {
	.name = "jacobi",
	.suite = "FinePack §V (Jacobi, NVIDIA multi-GPU Jacobi)",
	.summary = "20 Jacobi sweeps for A x = b with a 5-point banded A, 4 "
		   "GPUs by rows, x replicated, each GPU storing its edge "
		   "rows into its neighbours' replicas (P2P halo)",
	.input = "size = nx, a multiple of 64: an nx^2-row matrix with bands "
		 "at 0, +-1, +-nx (couplings and b uniform in [0, 1), "
		 "diagonal 4.5) from the seed",
	.small_size = 64,
	.large_size = 512,
	.kernels = "jacobi_kernel",
	.paper_sizes = "FinePack §V: synthetic banded matrices (no size "
		       "given) = any size; large 512 (2^18 rows)",
	.run = jac_run,
};
