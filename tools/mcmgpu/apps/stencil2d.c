// SPDX-License-Identifier: GPL-2.0
/*
 * SHOC's Stencil2D: a 9-point stencil over an N x N float matrix with a
 * one-element halo, new = wc * centre + wn * (N + S + W + E) + wd * (NW +
 * NE + SW + SE), iterated with the two buffers swapped by the host
 * between launches. Both buffers go in with the halo, which no kernel
 * writes, so it stays the boundary condition.
 *
 * The kernel is SHOC's local-memory tiled one with its default local
 * size "8,256": a block is one row of 256 threads (blockDim (1, 256),
 * .y along the columns) over a strip of 8 rows x 256 columns. Each
 * thread copies its column of the strip plus the rows above and below
 * into a shared (8 + 2) x (256 + 2) tile, the first and last threads the
 * halo columns too; after the barrier each thread computes its 8
 * outputs from the tile and stores them. A row is N + 2 floats, not
 * padded to an alignment as SHOC can pad it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "app_util.h"
#include "apps.h"

#define ST2D_ROWS	8	/* a thread's strip: SHOC's lsize rows */
#define ST2D_COLS	256	/* a block's columns: SHOC's lsize cols */
#define ST2D_MIN	ST2D_COLS
#define ST2D_MAX	16384
/* SHOC's defaults for the weights; its 1000 iterations cut to 10. */
#define ST2D_W_CENTER	0.25f
#define ST2D_W_CARDINAL	0.15f
#define ST2D_W_DIAGONAL	0.05f
#define ST2D_ITERS	10

struct st2d_args {
	uint64_t data, out;
	uint32_t pitch;		/* N + 2: a row with its halo */
};

/* The tile's element (r, c), both counted from the tile's halo. */
static inline uint32_t st2d_tile(uint32_t r, uint32_t c)
{
	return r * (ST2D_COLS + 2) + c;
}

/*
 * OPS: the strip's first row and the column (INT 2). Loading, a row of
 * the tile: its index (INT 1), the loop (INT 2, BRANCH 1); the two
 * halo-column tests (INT 2, BRANCH 2) and, for the thread that loads
 * one, its index a row (INT 1). Computing, an output: the cardinal and
 * diagonal sums (FP 6), the centre's multiply and two FFMAs (FP 3), the
 * output's index (INT 1), the loop (INT 2, BRANCH 1).
 */
static void st2d_kernel(struct simt_thread *t, const void *p)
{
	const struct st2d_args *a = p;
	struct simt_dim3 b = simt_block_idx(t), l = simt_thread_idx(t);
	uint64_t row0 = (uint64_t)b.x * ST2D_ROWS;	/* the halo row above */
	uint64_t col = (uint64_t)b.y * ST2D_COLS + l.y;	/* left neighbour */
	uint32_t c = l.y, r;

	OPS(t, PROG_OP_INT, 2);
	for (r = 0; r < ST2D_ROWS + 2; r++) {
		float v = LD(t, float, a->data, (row0 + r) * a->pitch + col + 1);

		OPS(t, PROG_OP_INT, 1);
		STS(t, float, st2d_tile(r, c + 1), v);
		OPS(t, PROG_OP_INT, 2);
		OPS(t, PROG_OP_BRANCH, 1);
	}
	OPS(t, PROG_OP_INT, 1);
	OPS(t, PROG_OP_BRANCH, 1);
	if (c == 0) {
		for (r = 0; r < ST2D_ROWS + 2; r++) {
			float v = LD(t, float, a->data,
				     (row0 + r) * a->pitch + col);

			OPS(t, PROG_OP_INT, 1);
			STS(t, float, st2d_tile(r, 0), v);
			OPS(t, PROG_OP_INT, 2);
			OPS(t, PROG_OP_BRANCH, 1);
		}
	}
	OPS(t, PROG_OP_INT, 1);
	OPS(t, PROG_OP_BRANCH, 1);
	if (c == ST2D_COLS - 1) {
		for (r = 0; r < ST2D_ROWS + 2; r++) {
			float v = LD(t, float, a->data,
				     (row0 + r) * a->pitch + col + 2);

			OPS(t, PROG_OP_INT, 1);
			STS(t, float, st2d_tile(r, ST2D_COLS + 1), v);
			OPS(t, PROG_OP_INT, 2);
			OPS(t, PROG_OP_BRANCH, 1);
		}
	}
	SYNC(t);
	for (r = 1; r <= ST2D_ROWS; r++) {
		float nw = LDS(t, float, st2d_tile(r - 1, c));
		float n = LDS(t, float, st2d_tile(r - 1, c + 1));
		float ne = LDS(t, float, st2d_tile(r - 1, c + 2));
		float w = LDS(t, float, st2d_tile(r, c));
		float ctr = LDS(t, float, st2d_tile(r, c + 1));
		float e = LDS(t, float, st2d_tile(r, c + 2));
		float sw = LDS(t, float, st2d_tile(r + 1, c));
		float s = LDS(t, float, st2d_tile(r + 1, c + 1));
		float se = LDS(t, float, st2d_tile(r + 1, c + 2));
		float card = n + s + w + e;
		float diag = nw + ne + sw + se;

		OPS(t, PROG_OP_FP, 9);
		OPS(t, PROG_OP_INT, 1);
		ST(t, float, a->out, (row0 + r) * a->pitch + col + 1,
		   ST2D_W_CENTER * ctr + ST2D_W_CARDINAL * card +
		   ST2D_W_DIAGONAL * diag);
		OPS(t, PROG_OP_INT, 2);
		OPS(t, PROG_OP_BRANCH, 1);
	}
}

/* SHOC's serial stencil: the same sums in the same order. */
static void st2d_ref(const float *in, float *out, uint32_t n)
{
	const size_t pitch = (size_t)n + 2;
	uint32_t i, j;

	for (i = 1; i <= n; i++)
		for (j = 1; j <= n; j++) {
			const float *u = in + (i - 1) * pitch + j;
			const float *m = in + i * pitch + j;
			const float *d = in + (i + 1) * pitch + j;
			float card = u[0] + d[0] + m[-1] + m[1];
			float diag = u[-1] + u[1] + d[-1] + d[1];

			out[i * pitch + j] = ST2D_W_CENTER * m[0] +
					     ST2D_W_CARDINAL * card +
					     ST2D_W_DIAGONAL * diag;
		}
}

static int st2d_run(struct simt_gpu *gpu, uint64_t size, uint64_t seed,
		    char *err, size_t errlen)
{
	const char *app = "stencil2d";
	const uint32_t n = (uint32_t)size;
	const uint64_t elems = (size + 2) * (size + 2);
	const uint64_t bytes = elems * sizeof(float);
	float *in = NULL, *ref = NULL, *got = NULL, *tmp;
	struct st2d_args args = { .pitch = n + 2 };
	uint64_t d_a, d_b;
	struct app_rng rng;
	unsigned int it;
	int ret;

	ret = app_size_range(size, ST2D_MIN, ST2D_MAX,
			     "N (an N x N matrix inside its halo)", app, err,
			     errlen);
	if (ret)
		return ret;
	if (size % ST2D_COLS) {
		app_err(err, errlen, app,
			"size %llu: N must be a multiple of %u (a block's columns)",
			(unsigned long long)size, ST2D_COLS);
		return -EINVAL;
	}
	in = malloc(bytes);
	ref = malloc(bytes);
	got = malloc(bytes);
	ret = -ENOMEM;
	if (!in || !ref || !got) {
		app_err(err, errlen, app, "out of memory");
		goto out;
	}
	app_rng_init(&rng, seed, 50);
	app_rng_fill_float(&rng, in, elems, 1.0f);

	ret = app_alloc(gpu, bytes, "data", &d_a, app, err, errlen);
	if (!ret)
		ret = app_alloc(gpu, bytes, "newData", &d_b, app, err, errlen);
	if (ret)
		goto out;
	simt_h2d(gpu, d_a, in, bytes);
	simt_h2d(gpu, d_b, in, bytes);
	args.data = d_a;
	args.out = d_b;
	for (it = 0; it < ST2D_ITERS; it++) {
		uint64_t swap;

		ret = app_launch(gpu, "StencilKernel", st2d_kernel,
				 DIM3(n / ST2D_ROWS, n / ST2D_COLS, 1),
				 DIM3(1, ST2D_COLS, 1),
				 (ST2D_ROWS + 2) * (ST2D_COLS + 2) *
				 sizeof(float), &args, app, err, errlen);
		if (ret)
			goto out;
		swap = args.data;
		args.data = args.out;
		args.out = swap;
	}
	simt_d2h(gpu, got, args.data, bytes);
	app_test_perturb(got, sizeof(float), elems);

	/* ref and in swap like the buffers; both start with the halo. */
	memcpy(ref, in, bytes);
	for (it = 0; it < ST2D_ITERS; it++) {
		st2d_ref(in, ref, n);
		tmp = in;
		in = ref;
		ref = tmp;
	}
	ret = app_check_f32(got, in, elems, APP_FLOAT_TOLERANCE, app, "data",
			    err, errlen);
out:
	free(in);
	free(ref);
	free(got);
	return ret;
}

const struct app_desc app_stencil2d = {
	.name = "stencil2d",
	.suite = "SHOC (Stencil2D)",
	.summary = "9-point stencil (weights 0.25, 0.15, 0.05), 10 "
		   "iterations swapping two buffers; SHOC's tiled kernel: "
		   "blocks of 256 columns x 8 rows through a shared tile",
	.input = "size = N: an N x N float matrix (N a multiple of 256) "
		 "inside a one-element halo, all uniform in [0, 1) from the "
		 "seed (the values do not change the program; SHOC's sizes "
		 "are 512 to 4096)",
	.small_size = 256,
	.large_size = 1024,
	.paper_sizes = "Barre Table I (st2d, MPKI 46.90): input not given",
	.kernels = "StencilKernel",
	.run = st2d_run,
};
