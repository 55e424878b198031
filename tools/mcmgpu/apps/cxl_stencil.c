// SPDX-License-Identifier: GPL-2.0
/*
 * stencil (CXL-GPU's workload table): Parboil's stencil, a 7-point 3-D
 * Jacobi sweep next = c1 (the six neighbours' sum) - c0 centre with c0 =
 * 1/6 and c1 = 1/36, iterated 100 times with the two grids swapped; the
 * faces keep their values. The kernel is Parboil's CUDA one
 * (block2D_hybrid_coarsen_x): blocks of 32 x 4 threads, each thread two
 * columns 32 apart in x (coarsening), marching up z with the plane below
 * and above in registers and the current plane in shared memory (2 x 32
 * x 4 floats); a thread on the tile's edge reads its outside neighbour
 * from global memory instead.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "app_util.h"
#include "apps.h"

#define ST_TX		32
#define ST_TY		4
#define ST_ITER		100	/* Parboil's runs */
#define ST_MIN		12
#define ST_MAX		1024
#define ST_C0		(1.0f / 6.0f)
#define ST_C1		(1.0f / 6.0f / 6.0f)

struct st_args {
	uint64_t a0, anext;
	int32_t nx, ny, nz;
};

static inline uint64_t st_idx(const struct st_args *a, int32_t i, int32_t j,
			      int32_t k)
{
	return (uint64_t)i + (uint64_t)a->nx * (j + (uint64_t)a->ny * k);
}

/*
 * OPS: i, i2, j and the two shared indices (INT 5); the regions' and
 * edges' tests (INT 12); the two bounds tests of the first loads (INT 2,
 * BRANCH 2); a plane: a column's bounds test (INT 1, BRANCH 1), its
 * region test (BRANCH 1), the three edge selects (INT 3, BRANCH 3) and
 * the sum and result (FP 7) where inside, for each of the two columns;
 * the loop (INT 2, BRANCH 1).
 */
static void stencil_kernel(struct simt_thread *t, const void *p)
{
	const struct st_args *a = p;
	struct simt_dim3 b = simt_block_idx(t), l = simt_thread_idx(t);
	int32_t tx = (int32_t)l.x, ty = (int32_t)l.y;
	int32_t i = (int32_t)b.x * ST_TX * 2 + tx, i2 = i + ST_TX;
	int32_t j = (int32_t)b.y * ST_TY + ty;
	int32_t sh = tx + ty * ST_TX * 2, sh2 = sh + ST_TX;
	bool w_region = i > 0 && j > 0 && i < a->nx - 1 && j < a->ny - 1;
	bool w_region2 = j > 0 && i2 < a->nx - 1 && j < a->ny - 1;
	bool x_lo = tx == 0, x_hi = tx + ST_TX == ST_TX * 2 - 1;
	bool y_lo = ty == 0, y_hi = ty == ST_TY - 1;
	bool in1 = i < a->nx && j < a->ny, in2 = i2 < a->nx && j < a->ny;
	float bottom = 0.0f, bottom2 = 0.0f, top = 0.0f, top2 = 0.0f;
	int32_t k;

	OPS(t, PROG_OP_INT, 17);
	STS(t, float, sh, 0.0f);
	STS(t, float, sh2, 0.0f);
	SYNC(t);
	OPS(t, PROG_OP_INT, 2);
	OPS(t, PROG_OP_BRANCH, 2);
	if (in1) {
		bottom = LD(t, float, a->a0, st_idx(a, i, j, 0));
		STS(t, float, sh, LD(t, float, a->a0, st_idx(a, i, j, 1)));
	}
	if (in2) {
		bottom2 = LD(t, float, a->a0, st_idx(a, i2, j, 0));
		STS(t, float, sh2, LD(t, float, a->a0, st_idx(a, i2, j, 1)));
	}
	SYNC(t);
	for (k = 1; k < a->nz - 1; k++) {
		float up, down, side, v;

		OPS(t, PROG_OP_INT, 1);
		OPS(t, PROG_OP_BRANCH, 2);
		if (in1)
			top = LD(t, float, a->a0, st_idx(a, i, j, k + 1));
		if (w_region) {
			OPS(t, PROG_OP_INT, 3);
			OPS(t, PROG_OP_BRANCH, 3);
			up = y_hi ? LD(t, float, a->a0, st_idx(a, i, j + 1, k)) :
			     LDS(t, float, sh + 2 * ST_TX);
			down = y_lo ? LD(t, float, a->a0,
					 st_idx(a, i, j - 1, k)) :
			       LDS(t, float, sh - 2 * ST_TX);
			side = x_lo ? LD(t, float, a->a0,
					 st_idx(a, i - 1, j, k)) :
			       LDS(t, float, sh - 1);
			v = top + bottom + up + down +
			    LDS(t, float, sh + 1) + side;
			OPS(t, PROG_OP_FP, 7);
			ST(t, float, a->anext, st_idx(a, i, j, k),
			   v * ST_C1 - LDS(t, float, sh) * ST_C0);
		}
		OPS(t, PROG_OP_INT, 1);
		OPS(t, PROG_OP_BRANCH, 2);
		if (in2)
			top2 = LD(t, float, a->a0, st_idx(a, i2, j, k + 1));
		if (w_region2) {
			OPS(t, PROG_OP_INT, 3);
			OPS(t, PROG_OP_BRANCH, 3);
			up = y_hi ? LD(t, float, a->a0,
				       st_idx(a, i2, j + 1, k)) :
			     LDS(t, float, sh2 + 2 * ST_TX);
			down = y_lo ? LD(t, float, a->a0,
					 st_idx(a, i2, j - 1, k)) :
			       LDS(t, float, sh2 - 2 * ST_TX);
			side = x_hi ? LD(t, float, a->a0,
					 st_idx(a, i2 + 1, j, k)) :
			       LDS(t, float, sh2 + 1);
			v = top2 + bottom2 + up + down + side +
			    LDS(t, float, sh2 - 1);
			OPS(t, PROG_OP_FP, 7);
			ST(t, float, a->anext, st_idx(a, i2, j, k),
			   v * ST_C1 - LDS(t, float, sh2) * ST_C0);
		}
		SYNC(t);
		bottom = LDS(t, float, sh);
		STS(t, float, sh, top);
		bottom2 = LDS(t, float, sh2);
		STS(t, float, sh2, top2);
		SYNC(t);
		OPS(t, PROG_OP_INT, 2);
		OPS(t, PROG_OP_BRANCH, 1);
	}
}

/* One sweep on the host, summing in the kernel's order. */
static void stencil_ref(const float *in, float *out, int32_t nx, int32_t ny,
			int32_t nz)
{
	const size_t plane = (size_t)nx * ny;
	int32_t i, j, k;

	for (k = 1; k < nz - 1; k++)
		for (j = 1; j < ny - 1; j++)
			for (i = 1; i < nx - 1; i++) {
				size_t c = i + (size_t)nx * j + plane * k;
				float v = in[c + plane] + in[c - plane] +
					  in[c + nx] + in[c - nx] +
					  in[c + 1] + in[c - 1];

				out[c] = v * ST_C1 - in[c] * ST_C0;
			}
}

static int stencil_run(struct simt_gpu *gpu, uint64_t size, uint64_t seed,
		       char *err, size_t errlen)
{
	const char *app = "stencil";
	const int32_t n = (int32_t)size, nz = (int32_t)size / 4;
	const size_t count = (size_t)size * size * (size / 4);
	const uint64_t bytes = count * sizeof(float);
	float *a = NULL, *b = NULL, *got = NULL, *tmp;
	struct st_args args = { .nx = n, .ny = n, .nz = nz };
	uint64_t d_a0, d_anext;
	struct app_rng rng;
	int iter, ret;

	ret = app_size_range(size, ST_MIN, ST_MAX, "N (an N x N x N/4 grid)",
			     app, err, errlen);
	if (ret)
		return ret;
	if (size % 4) {
		app_err(err, errlen, app,
			"size %llu: N must be a multiple of 4 (nz = N / 4)",
			(unsigned long long)size);
		return -EINVAL;
	}
	a = malloc(bytes);
	b = malloc(bytes);
	got = malloc(bytes);
	ret = -ENOMEM;
	if (!a || !b || !got) {
		app_err(err, errlen, app, "out of memory");
		goto out;
	}
	app_rng_init(&rng, seed, 43);
	app_rng_fill_float(&rng, a, count, 1.0f);
	memcpy(b, a, bytes);

	ret = app_alloc(gpu, bytes, "d_A0", &d_a0, app, err, errlen);
	if (!ret)
		ret = app_alloc(gpu, bytes, "d_Anext", &d_anext, app, err,
				errlen);
	if (ret)
		goto out;
	/* Parboil copies the input into both: the faces stay as read. */
	simt_h2d(gpu, d_a0, a, bytes);
	simt_h2d(gpu, d_anext, a, bytes);
	args.a0 = d_a0;
	args.anext = d_anext;
	for (iter = 0; iter < ST_ITER; iter++) {
		uint64_t swap;

		ret = app_launch(gpu, "block2D_hybrid_coarsen_x",
				 stencil_kernel,
				 DIM3(app_blocks(size, 2 * ST_TX),
				      app_blocks(size, ST_TY), 1),
				 DIM3(ST_TX, ST_TY, 1),
				 2 * ST_TX * ST_TY * sizeof(float), &args, app,
				 err, errlen);
		if (ret)
			goto out;
		swap = args.a0;
		args.a0 = args.anext;
		args.anext = swap;
	}
	/* After the last swap the result is in a0. */
	simt_d2h(gpu, got, args.a0, bytes);
	app_test_perturb(got, sizeof(float), count);

	for (iter = 0; iter < ST_ITER; iter++) {
		stencil_ref(a, b, n, n, nz);
		tmp = a;
		a = b;
		b = tmp;
	}
	ret = app_check_f32(got, a, count, APP_FLOAT_TOLERANCE, app, "A0",
			    err, errlen);
out:
	free(a);
	free(b);
	free(got);
	return ret;
}

const struct app_desc app_stencil = {
	.name = "stencil",
	.suite = "Parboil (stencil)",
	.summary = "7-point 3-D Jacobi, 100 sweeps: 32 x 4 blocks, 2 columns "
		   "a thread, marching up z through a shared-memory plane",
	.input = "size = N: an N x N x N/4 float grid (N a multiple of 4; "
		 "Parboil's small input is 128 x 128 x 32), uniform in "
		 "[0, 1) from the seed (the values do not change the "
		 "program); 100 sweeps. Large: N = 64 (two 256 KiB grids). "
		 "The paper sizes data at 10x the GPU's memory (640 MiB for "
		 "the cxl preset's 64 MiB); 100 recorded sweeps bound it: "
		 "Parboil's small input (N = 128) writes a 1 GiB program",
	.small_size = 16,
	.large_size = 64,
	.paper_sizes = "CXL-GPU: no input given, data sized to 10x the GPU's "
		       "memory (640 MiB for the cxl preset's 64 MiB) = "
		       "--large, N = 64 (100 recorded sweeps bound it; "
		       "Parboil's small input is N = 128)",
	.kernels = "block2D_hybrid_coarsen_x",
	.run = stencil_run,
};
