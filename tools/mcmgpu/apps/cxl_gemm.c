// SPDX-License-Identifier: GPL-2.0
/*
 * gemm (CXL-GPU's workload table): C = A B for N x N row-major float
 * matrices, tiled through shared memory as the CUDA samples' matrixMul
 * does it: a 16 x 16 block computes a 16 x 16 tile of C; for each tile
 * step along k every thread loads one element of A's tile and one of
 * B's (coalesced, a row of the tile a half warp) into shared memory,
 * waits, accumulates 16 products from the two tiles (the inner loop
 * unrolled, as its #pragma unroll makes it), and waits again before the
 * next step overwrites the tiles. Each thread stores its element of C.
 */
#include <errno.h>
#include <stdlib.h>

#include "app_util.h"
#include "apps.h"

#define GEMM_TILE	16
#define GEMM_MAX	8192

struct gemm_args {
	uint64_t a, b, c;
	uint32_t n;
};

/*
 * OPS: the tile's first and last index into A and B (INT 4); a tile
 * step: the two shared indices (INT 2), 16 FFMAs (FP 16, unrolled), the
 * steps of a and b and the loop test (INT 3, BRANCH 1); the end: C's
 * index (INT 1). N is a multiple of the tile: no bounds tests.
 */
static void gemm_kernel(struct simt_thread *t, const void *p)
{
	const struct gemm_args *a = p;
	struct simt_dim3 b = simt_block_idx(t), l = simt_thread_idx(t);
	const uint32_t as = 0, bs = GEMM_TILE * GEMM_TILE;
	uint64_t arow = (uint64_t)b.y * GEMM_TILE * a->n;
	uint32_t bcol = b.x * GEMM_TILE;
	float csub = 0.0f;
	uint32_t k0, k;

	OPS(t, PROG_OP_INT, 4);
	for (k0 = 0; k0 < a->n; k0 += GEMM_TILE) {
		float av = LD(t, float, a->a, arow + (uint64_t)l.y * a->n +
			      k0 + l.x);
		float bv = LD(t, float, a->b, (uint64_t)(k0 + l.y) * a->n +
			      bcol + l.x);

		OPS(t, PROG_OP_INT, 2);
		STS(t, float, as + l.y * GEMM_TILE + l.x, av);
		STS(t, float, bs + l.y * GEMM_TILE + l.x, bv);
		SYNC(t);
		for (k = 0; k < GEMM_TILE; k++) {
			float x = LDS(t, float, as + l.y * GEMM_TILE + k);
			float y = LDS(t, float, bs + k * GEMM_TILE + l.x);

			OPS(t, PROG_OP_FP, 1);
			csub = csub + x * y;
		}
		SYNC(t);
		OPS(t, PROG_OP_INT, 3);
		OPS(t, PROG_OP_BRANCH, 1);
	}
	OPS(t, PROG_OP_INT, 1);
	ST(t, float, a->c, ((uint64_t)b.y * GEMM_TILE + l.y) * a->n + bcol +
	   l.x, csub);
}

/* The reference: each element's products added in k order. */
static void gemm_ref(const float *a, const float *b, float *c, uint32_t n)
{
	uint32_t i, j, k;

	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++) {
			float sum = 0.0f;

			for (k = 0; k < n; k++)
				sum = sum + a[(size_t)i * n + k] *
					    b[(size_t)k * n + j];
			c[(size_t)i * n + j] = sum;
		}
}

static int gemm_run(struct simt_gpu *gpu, uint64_t size, uint64_t seed,
		    char *err, size_t errlen)
{
	const char *app = "gemm";
	const uint32_t n = (uint32_t)size;
	const uint64_t bytes = size * size * sizeof(float);
	float *a = NULL, *b = NULL, *got = NULL, *want = NULL;
	struct gemm_args args = { .n = n };
	struct app_rng rng;
	int ret;

	ret = app_size_range(size, GEMM_TILE, GEMM_MAX, "N (N x N matrices)",
			     app, err, errlen);
	if (ret)
		return ret;
	if (size % GEMM_TILE) {
		app_err(err, errlen, app,
			"size %llu: N must be a multiple of %u (the tile)",
			(unsigned long long)size, GEMM_TILE);
		return -EINVAL;
	}
	a = malloc(bytes);
	b = malloc(bytes);
	got = malloc(bytes);
	want = malloc(bytes);
	ret = -ENOMEM;
	if (!a || !b || !got || !want) {
		app_err(err, errlen, app, "out of memory");
		goto out;
	}
	app_rng_init(&rng, seed, 41);
	app_rng_fill_float(&rng, a, (size_t)n * n, 1.0f);
	app_rng_fill_float(&rng, b, (size_t)n * n, 1.0f);

	ret = app_alloc(gpu, bytes, "d_A", &args.a, app, err, errlen);
	if (!ret)
		ret = app_alloc(gpu, bytes, "d_B", &args.b, app, err, errlen);
	if (!ret)
		ret = app_alloc(gpu, bytes, "d_C", &args.c, app, err, errlen);
	if (ret)
		goto out;
	simt_h2d(gpu, args.a, a, bytes);
	simt_h2d(gpu, args.b, b, bytes);
	ret = app_launch(gpu, "MatrixMulCUDA", gemm_kernel,
			 DIM3(n / GEMM_TILE, n / GEMM_TILE, 1),
			 DIM3(GEMM_TILE, GEMM_TILE, 1),
			 2 * GEMM_TILE * GEMM_TILE * sizeof(float), &args, app,
			 err, errlen);
	if (ret)
		goto out;
	simt_d2h(gpu, got, args.c, bytes);
	app_test_perturb(got, sizeof(float), (size_t)n * n);

	gemm_ref(a, b, want, n);
	ret = app_check_f32(got, want, (size_t)n * n, APP_FLOAT_TOLERANCE,
			    app, "C", err, errlen);
out:
	free(a);
	free(b);
	free(got);
	free(want);
	return ret;
}

const struct app_desc app_gemm = {
	.name = "gemm",
	.suite = "CUDA samples (matrixMul)",
	.summary = "SGEMM C = A B through 16 x 16 shared-memory tiles of A "
		   "and B, a block a tile of C, 2-D grid",
	.input = "size = N: N x N float matrices A and B (N a multiple of "
		 "16), uniform in [0, 1) from the seed (the values do not "
		 "change the program). Large: the paper sizes data at 10x "
		 "the GPU's memory (640 MiB for the cxl preset's 64 MiB); "
		 "gemm's N^3 work bounds it to N = 384 (1.7 MiB, over the "
		 "preset's 1 MiB LLC; 1.8 Mi FFMA warp instructions)",
	.small_size = 64,
	.large_size = 384,
	.paper_sizes = "CXL-GPU: no input given, data sized to 10x the GPU's "
		       "memory (640 MiB for the cxl preset's 64 MiB) = "
		       "--large, N = 384 (N^3 work bounds it)",
	.kernels = "MatrixMulCUDA",
	.run = gemm_run,
};
