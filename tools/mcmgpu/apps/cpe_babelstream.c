// SPDX-License-Identifier: GPL-2.0
/*
 * BabelStream (CPElide's Table II): the five STREAM kernels over three
 * double arrays, as BabelStream's CUDA/HIP back end launches them. One
 * thread an element in blocks of 1024 (TBSIZE; the array size must be a
 * multiple of it): copy c = a, mul b = s c, add c = a + b, triad
 * a = b + s c, with s = 0.4; dot sums a b in a grid of 256 blocks
 * (DOT_NUM_BLOCKS) of 1024, each thread striding the arrays by the grid,
 * a shared-memory tree a block, the host adding the partial sums. Below
 * 256 x 1024 elements the dot grid is one block a 1024 elements (ours:
 * BabelStream keeps 256 blocks, most of them idle, which would make the
 * small sizes' programs mostly empty dot blocks).
 * init_kernel sets a, b, c to 0.1, 0.2, 0.0 first; then the host runs
 * copy, mul, add, triad, dot in turn each repetition and reads the
 * arrays back.
 */
#include <errno.h>
#include <stdlib.h>

#include "app_util.h"
#include "apps.h"

#define BS_TBSIZE	1024
#define BS_DOT_BLOCKS	256
#define BS_TIMES	10
#define BS_MAX		(1ULL << 25)	/* 256 MiB an array */
#define BS_SCALAR	0.4
#define BS_INIT_A	0.1
#define BS_INIT_B	0.2
#define BS_INIT_C	0.0

struct bs_args {
	uint64_t a, b, c, sum;
	uint64_t n;
	double init_a, init_b, init_c;
};

/* OPS: the global index (INT 1). */
static void bs_init(struct simt_thread *t, const void *p)
{
	const struct bs_args *a = p;
	uint64_t i = simt_global_x(t);

	OPS(t, PROG_OP_INT, 1);
	ST(t, double, a->a, i, a->init_a);
	ST(t, double, a->b, i, a->init_b);
	ST(t, double, a->c, i, a->init_c);
}

/* c = a. OPS: the global index (INT 1). */
static void bs_copy(struct simt_thread *t, const void *p)
{
	const struct bs_args *a = p;
	uint64_t i = simt_global_x(t);

	OPS(t, PROG_OP_INT, 1);
	ST(t, double, a->c, i, LD(t, double, a->a, i));
}

/* b = s c. OPS: the global index (INT 1), the multiply (DP 1). */
static void bs_mul(struct simt_thread *t, const void *p)
{
	const struct bs_args *a = p;
	uint64_t i = simt_global_x(t);
	double c;

	OPS(t, PROG_OP_INT, 1);
	c = LD(t, double, a->c, i);
	OPS(t, PROG_OP_DP, 1);
	ST(t, double, a->b, i, BS_SCALAR * c);
}

/* c = a + b. OPS: the global index (INT 1), the add (DP 1). */
static void bs_add(struct simt_thread *t, const void *p)
{
	const struct bs_args *a = p;
	uint64_t i = simt_global_x(t);
	double x, y;

	OPS(t, PROG_OP_INT, 1);
	x = LD(t, double, a->a, i);
	y = LD(t, double, a->b, i);
	OPS(t, PROG_OP_DP, 1);
	ST(t, double, a->c, i, x + y);
}

/* a = b + s c. OPS: the global index (INT 1), one DFMA (DP 1). */
static void bs_triad(struct simt_thread *t, const void *p)
{
	const struct bs_args *a = p;
	uint64_t i = simt_global_x(t);
	double x, y;

	OPS(t, PROG_OP_INT, 1);
	x = LD(t, double, a->b, i);
	y = LD(t, double, a->c, i);
	OPS(t, PROG_OP_DP, 1);
	ST(t, double, a->a, i, x + BS_SCALAR * y);
}

/*
 * sum[block] = the block's share of a . b. OPS: the global index (INT
 * 1); a stride: one DFMA (DP 1), the index's add and compare (INT 2) and
 * the loop's branch (BRANCH 1), plus the test before the first (INT 1,
 * BRANCH 1); a tree level: the halving and compare (INT 2), the branch
 * (BRANCH 1), the add for the threads below the offset (DP 1); the last
 * test (INT 1, BRANCH 1).
 */
static void bs_dot(struct simt_thread *t, const void *p)
{
	const struct bs_args *a = p;
	uint64_t i = simt_global_x(t);
	uint64_t stride = simt_global_threads_x(t);
	uint32_t li = simt_thread_idx(t).x, off;

	OPS(t, PROG_OP_INT, 2);
	STS(t, double, li, 0.0);
	OPS(t, PROG_OP_BRANCH, 1);
	for (; i < a->n; i += stride) {
		double x = LD(t, double, a->a, i);
		double y = LD(t, double, a->b, i);
		double s = LDS(t, double, li);

		OPS(t, PROG_OP_DP, 1);
		STS(t, double, li, s + x * y);
		OPS(t, PROG_OP_INT, 2);
		OPS(t, PROG_OP_BRANCH, 1);
	}
	for (off = BS_TBSIZE / 2; off > 0; off /= 2) {
		SYNC(t);
		OPS(t, PROG_OP_INT, 2);
		OPS(t, PROG_OP_BRANCH, 1);
		if (li < off) {
			double x = LDS(t, double, li);
			double y = LDS(t, double, li + off);

			OPS(t, PROG_OP_DP, 1);
			STS(t, double, li, x + y);
		}
	}
	OPS(t, PROG_OP_INT, 1);
	OPS(t, PROG_OP_BRANCH, 1);
	if (li == 0)
		ST(t, double, a->sum, simt_block_idx(t).x, LDS(t, double, 0));
}

/* The reference's dot: the kernel's strides and tree, block by block. */
static double bs_dot_ref(const double *a, const double *b, uint64_t n,
			 double *part, uint32_t blocks)
{
	const uint64_t stride = (uint64_t)blocks * BS_TBSIZE;
	double sum = 0.0, tb[BS_TBSIZE];
	uint32_t blk, li, off;
	uint64_t i;

	for (blk = 0; blk < blocks; blk++) {
		for (li = 0; li < BS_TBSIZE; li++) {
			tb[li] = 0.0;
			for (i = (uint64_t)blk * BS_TBSIZE + li; i < n;
			     i += stride)
				tb[li] = tb[li] + a[i] * b[i];
		}
		for (off = BS_TBSIZE / 2; off > 0; off /= 2)
			for (li = 0; li < off; li++)
				tb[li] = tb[li] + tb[li + off];
		part[blk] = tb[0];
	}
	for (blk = 0; blk < blocks; blk++)
		sum += part[blk];
	return sum;
}

/* Doubles within rel of the reference, as app_check_f32 does floats. */
static int bs_check(const double *got, const double *want, uint64_t n,
		    const char *what, char *err, size_t errlen)
{
	uint64_t i;

	for (i = 0; i < n; i++) {
		double mag = want[i] < 0 ? -want[i] : want[i];
		double diff = got[i] - want[i];

		if (diff < 0)
			diff = -diff;
		if (diff <= 1e-12 * mag)
			continue;
		app_err(err, errlen, "babelstream",
			"%s[%llu] = %.17g, the reference says %.17g", what,
			(unsigned long long)i, got[i], want[i]);
		return -EIO;
	}
	return 0;
}

static int bs_run(struct simt_gpu *gpu, uint64_t size, uint64_t seed,
		  char *err, size_t errlen)
{
	const char *app = "babelstream";
	const struct simt_dim3 block = DIM3(BS_TBSIZE, 1, 1);
	struct simt_dim3 grid;
	double *ha = NULL, *hb = NULL, *hc = NULL, *ga = NULL, *gb = NULL;
	double *gc = NULL, part[BS_DOT_BLOCKS], gsum = 0.0, wsum = 0.0;
	struct bs_args args = {
		.n = size, .init_a = BS_INIT_A, .init_b = BS_INIT_B,
		.init_c = BS_INIT_C,
	};
	uint64_t i, bytes = size * sizeof(double);
	uint32_t dot_blocks;
	unsigned int k;
	int ret;

	(void)seed;	/* BabelStream's arrays start at constants */
	ret = app_size_range(size, BS_TBSIZE, BS_MAX, "the array length",
			     app, err, errlen);
	if (ret)
		return ret;
	if (size % BS_TBSIZE) {
		app_err(err, errlen, app,
			"size %llu: the array length must be a multiple of %d",
			(unsigned long long)size, BS_TBSIZE);
		return -EINVAL;
	}
	grid = DIM3(app_blocks(size, BS_TBSIZE), 1, 1);
	dot_blocks = grid.x < BS_DOT_BLOCKS ? grid.x : BS_DOT_BLOCKS;
	ha = malloc(bytes);
	hb = malloc(bytes);
	hc = malloc(bytes);
	ga = malloc(bytes);
	gb = malloc(bytes);
	gc = malloc(bytes);
	ret = -ENOMEM;
	if (!ha || !hb || !hc || !ga || !gb || !gc) {
		app_err(err, errlen, app, "out of memory");
		goto out;
	}
	ret = app_alloc(gpu, bytes, "d_a", &args.a, app, err, errlen);
	if (!ret)
		ret = app_alloc(gpu, bytes, "d_b", &args.b, app, err, errlen);
	if (!ret)
		ret = app_alloc(gpu, bytes, "d_c", &args.c, app, err, errlen);
	if (!ret)
		ret = app_alloc(gpu, BS_DOT_BLOCKS * sizeof(double), "d_sum",
				&args.sum, app, err, errlen);
	if (!ret)
		ret = app_launch(gpu, "init_kernel", bs_init, grid, block, 0,
				 &args, app, err, errlen);
	for (k = 0; !ret && k < BS_TIMES; k++) {
		ret = app_launch(gpu, "copy_kernel", bs_copy, grid, block, 0,
				 &args, app, err, errlen);
		if (!ret)
			ret = app_launch(gpu, "mul_kernel", bs_mul, grid,
					 block, 0, &args, app, err, errlen);
		if (!ret)
			ret = app_launch(gpu, "add_kernel", bs_add, grid,
					 block, 0, &args, app, err, errlen);
		if (!ret)
			ret = app_launch(gpu, "triad_kernel", bs_triad, grid,
					 block, 0, &args, app, err, errlen);
		if (!ret)
			ret = app_launch(gpu, "dot_kernel", bs_dot,
					 DIM3(dot_blocks, 1, 1), block,
					 BS_TBSIZE * sizeof(double), &args,
					 app, err, errlen);
		if (ret)
			break;
		simt_d2h(gpu, part, args.sum, dot_blocks * sizeof(double));
		for (gsum = 0.0, i = 0; i < dot_blocks; i++)
			gsum += part[i];
	}
	if (ret)
		goto out;
	simt_d2h(gpu, ga, args.a, bytes);
	simt_d2h(gpu, gb, args.b, bytes);
	simt_d2h(gpu, gc, args.c, bytes);
	app_test_perturb(ga, sizeof(*ga), size);

	for (i = 0; i < size; i++) {
		ha[i] = BS_INIT_A;
		hb[i] = BS_INIT_B;
		hc[i] = BS_INIT_C;
	}
	for (k = 0; k < BS_TIMES; k++) {
		for (i = 0; i < size; i++)
			hc[i] = ha[i];
		for (i = 0; i < size; i++)
			hb[i] = BS_SCALAR * hc[i];
		for (i = 0; i < size; i++)
			hc[i] = ha[i] + hb[i];
		for (i = 0; i < size; i++)
			ha[i] = hb[i] + BS_SCALAR * hc[i];
		wsum = bs_dot_ref(ha, hb, size, part, dot_blocks);
	}
	ret = bs_check(ga, ha, size, "a", err, errlen);
	if (!ret)
		ret = bs_check(gb, hb, size, "b", err, errlen);
	if (!ret)
		ret = bs_check(gc, hc, size, "c", err, errlen);
	if (!ret)
		ret = bs_check(&gsum, &wsum, 1, "sum", err, errlen);
out:
	free(ha);
	free(hb);
	free(hc);
	free(ga);
	free(gb);
	free(gc);
	return ret;
}

const struct app_desc app_babelstream = {
	.name = "babelstream",
	.suite = "BabelStream",
	.summary = "copy, mul, add, triad (a thread an element, blocks of "
		   "1024) and dot (256 blocks of 1024 striding the arrays, a "
		   "shared-memory tree a block) over three double arrays, 10 "
		   "repetitions after init_kernel",
	.input = "size = elements a double array (a multiple of 1024); a, "
		 "b, c start at BabelStream's 0.1, 0.2, 0.0 (the seed changes "
		 "nothing); 10 repetitions of the five kernels at every size "
		 "(BabelStream's default is 100); below 256 x 1024 elements "
		 "dot has a block a 1024 elements. Large: the paper's 524288 "
		 "elements (4 MiB an array)",
	.small_size = 4096,
	.large_size = 524288,
	.paper_sizes = "CPElide Table II: 524288 = size 524288 (--large)",
	.kernels = "init_kernel, copy_kernel, mul_kernel, add_kernel, "
		   "triad_kernel, dot_kernel",
	.run = bs_run,
};
