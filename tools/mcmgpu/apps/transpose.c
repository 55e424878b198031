// SPDX-License-Identifier: GPL-2.0
/*
 * The AMD APP SDK's MatrixTranspose: out = in^T for an N x N float
 * matrix, through shared-memory tiles. A 16 x 16 block reads its tile
 * of the input with coalesced loads (a row of the tile a half warp),
 * stores it to shared memory, waits at the barrier, then writes the
 * tile's transpose to the mirrored block of the output, again a row a
 * half warp, reading the tile down its columns (the SDK's kernel has no
 * padding, so those shared reads conflict on banks).
 */
#include <errno.h>
#include <stdlib.h>

#include "app_util.h"
#include "apps.h"

#define TR_TILE		16
#define TR_MAX		16384

struct tr_args {
	uint64_t in, out;
	uint32_t n;
};

/*
 * OPS: the global x and y (INT 2) and the source index (INT 1); the
 * tile index (INT 1); the target's row and index (INT 2) and the
 * transposed tile index (INT 1). N is a multiple of the tile: no bounds
 * test, so every thread reaches the barrier.
 */
static void transpose_kernel(struct simt_thread *t, const void *p)
{
	const struct tr_args *a = p;
	struct simt_dim3 b = simt_block_idx(t), l = simt_thread_idx(t);
	uint64_t gx = (uint64_t)b.x * TR_TILE + l.x;
	uint64_t gy = (uint64_t)b.y * TR_TILE + l.y;
	uint64_t tx = (uint64_t)b.y * TR_TILE + l.x;	/* the output's */
	uint64_t ty = (uint64_t)b.x * TR_TILE + l.y;
	float v;

	OPS(t, PROG_OP_INT, 3);
	v = LD(t, float, a->in, gy * a->n + gx);
	OPS(t, PROG_OP_INT, 1);
	STS(t, float, l.y * TR_TILE + l.x, v);
	SYNC(t);
	OPS(t, PROG_OP_INT, 3);
	v = LDS(t, float, l.x * TR_TILE + l.y);
	ST(t, float, a->out, ty * a->n + tx, v);
}

static int transpose_run(struct simt_gpu *gpu, uint64_t size, uint64_t seed,
			 char *err, size_t errlen)
{
	const char *app = "transpose";
	const uint32_t n = (uint32_t)size;
	const uint64_t bytes = size * size * sizeof(float);
	float *in = NULL, *got = NULL, *want = NULL;
	struct tr_args args = { .n = n };
	struct app_rng rng;
	uint32_t r, c;
	int ret;

	ret = app_size_range(size, TR_TILE, TR_MAX, "N (an N x N matrix)",
			     app, err, errlen);
	if (ret)
		return ret;
	if (size % TR_TILE) {
		app_err(err, errlen, app,
			"size %llu: N must be a multiple of %u (the tile)",
			(unsigned long long)size, TR_TILE);
		return -EINVAL;
	}
	in = malloc(bytes);
	got = malloc(bytes);
	want = malloc(bytes);
	ret = -ENOMEM;
	if (!in || !got || !want) {
		app_err(err, errlen, app, "out of memory");
		goto out;
	}
	app_rng_init(&rng, seed, 30);
	app_rng_fill_float(&rng, in, (size_t)n * n, 1.0f);

	ret = app_alloc(gpu, bytes, "input", &args.in, app, err, errlen);
	if (!ret)
		ret = app_alloc(gpu, bytes, "output", &args.out, app, err,
				errlen);
	if (ret)
		goto out;
	simt_h2d(gpu, args.in, in, bytes);
	ret = app_launch(gpu, "matrixTranspose", transpose_kernel,
			 DIM3(n / TR_TILE, n / TR_TILE, 1),
			 DIM3(TR_TILE, TR_TILE, 1),
			 TR_TILE * TR_TILE * sizeof(float), &args, app, err,
			 errlen);
	if (ret)
		goto out;
	simt_d2h(gpu, got, args.out, bytes);
	app_test_perturb(got, sizeof(float), (size_t)n * n);

	for (r = 0; r < n; r++)
		for (c = 0; c < n; c++)
			want[(size_t)c * n + r] = in[(size_t)r * n + c];
	/* Moved, never computed: exact. */
	ret = app_check_f32(got, want, (size_t)n * n, 0.0f, app, "output",
			    err, errlen);
out:
	free(in);
	free(got);
	free(want);
	return ret;
}

const struct app_desc app_transpose = {
	.name = "transpose",
	.suite = "AMD APP SDK (MatrixTranspose)",
	.summary = "out = in^T through 16 x 16 shared-memory tiles, a block "
		   "a tile, 2-D grid",
	.input = "size = N: an N x N float matrix (N a multiple of 16), "
		 "uniform in [0, 1) from the seed (the values do not change "
		 "the program)",
	.small_size = 256,
	.large_size = 4096,
	.paper_sizes = "Barre Table I (matr, MPKI 174.99): input not given",
	.kernels = "matrixTranspose",
	.run = transpose_run,
};
