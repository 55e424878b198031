// SPDX-License-Identifier: GPL-2.0
/*
 * path (CXL-GPU's workload table): Rodinia's pathfinder, the cheapest
 * path down a grid of weights, a row at a time: dst[x] = wall[r][x] +
 * min(src[x - 1], src[x], src[x + 1]). The kernel (dynproc_kernel)
 * computes a pyramid of 20 rows (pyramid_height) a launch: a block of
 * 256 threads (BLOCK_SIZE) loads 256 columns of the previous result into
 * shared memory and steps down the rows, each step narrowing the valid
 * columns by one on each side (HALO), so a block's 256 - 2 x 20 middle
 * columns come out right and the blocks overlap by the halo. The host
 * launches it every 20 rows, ping-ponging the result arrays.
 */
#include <errno.h>
#include <stdlib.h>

#include "app_util.h"
#include "apps.h"

#define PATH_BLOCK	256
#define PATH_HALO	1
#define PATH_PYRAMID	20
#define PATH_ROWS	100		/* Rodinia's run: 100000 x 100 */
#define PATH_MAX	(1ULL << 24)

struct path_args {
	uint64_t wall, src, dst;
	int32_t cols, iteration, start, border;
};

#define IN_RANGE(x, lo, hi)	((x) >= (lo) && (x) <= (hi))

/*
 * OPS: the block's columns, limits and the thread's x, W and E (INT 12),
 * the load's range test (INT 2, BRANCH 1); a step: the range and
 * validity tests (INT 3, BRANCH 1), where computed two mins, the index
 * and the add (INT 4); the last-step test (INT 1, BRANCH 1), the copy's
 * test (BRANCH 1), the loop (INT 2, BRANCH 1); the end: the store's test
 * (BRANCH 1).
 */
static void path_kernel(struct simt_thread *t, const void *p)
{
	const struct path_args *a = p;
	const uint32_t prev = 0, result = PATH_BLOCK;
	int32_t tx = (int32_t)simt_thread_idx(t).x;
	int32_t bx = (int32_t)simt_block_idx(t).x;
	int32_t small = PATH_BLOCK - a->iteration * PATH_HALO * 2;
	int32_t blk_x = small * bx - a->border;
	int32_t blk_xmax = blk_x + PATH_BLOCK - 1;
	int32_t x = blk_x + tx;
	int32_t valid_min = blk_x < 0 ? -blk_x : 0;
	int32_t valid_max = blk_xmax > a->cols - 1 ?
		PATH_BLOCK - 1 - (blk_xmax - a->cols + 1) : PATH_BLOCK - 1;
	int32_t w = tx - 1 < valid_min ? valid_min : tx - 1;
	int32_t e = tx + 1 > valid_max ? valid_max : tx + 1;
	bool valid = IN_RANGE(tx, valid_min, valid_max);
	bool computed = false;
	int32_t i;

	OPS(t, PROG_OP_INT, 14);
	OPS(t, PROG_OP_BRANCH, 1);
	if (IN_RANGE(x, 0, a->cols - 1))
		STS(t, int32_t, prev + tx, LD(t, int32_t, a->src, x));
	SYNC(t);
	for (i = 0; i < a->iteration; i++) {
		computed = false;
		OPS(t, PROG_OP_INT, 3);
		OPS(t, PROG_OP_BRANCH, 1);
		if (IN_RANGE(tx, i + 1, PATH_BLOCK - i - 2) && valid) {
			int32_t left = LDS(t, int32_t, prev + w);
			int32_t up = LDS(t, int32_t, prev + tx);
			int32_t right = LDS(t, int32_t, prev + e);
			int32_t shortest = left < up ? left : up;
			int32_t cost;

			shortest = shortest < right ? shortest : right;
			computed = true;
			cost = LD(t, int32_t, a->wall,
				  (int64_t)a->cols * (a->start + i) + x);
			OPS(t, PROG_OP_INT, 4);
			STS(t, int32_t, result + tx, shortest + cost);
		}
		SYNC(t);
		OPS(t, PROG_OP_INT, 1);
		OPS(t, PROG_OP_BRANCH, 1);
		if (i == a->iteration - 1)
			break;
		OPS(t, PROG_OP_BRANCH, 1);
		if (computed)
			STS(t, int32_t, prev + tx, LDS(t, int32_t, result + tx));
		SYNC(t);
		OPS(t, PROG_OP_INT, 2);
		OPS(t, PROG_OP_BRANCH, 1);
	}
	OPS(t, PROG_OP_BRANCH, 1);
	if (computed)
		ST(t, int32_t, a->dst, x, LDS(t, int32_t, result + tx));
}

/* The reference: the same recurrence a row at a time. */
static void path_ref(const int32_t *wall, int32_t *cur, int32_t *next,
		     int32_t cols, int32_t rows)
{
	int32_t r, x;

	for (x = 0; x < cols; x++)
		cur[x] = wall[x];
	for (r = 1; r < rows; r++) {
		for (x = 0; x < cols; x++) {
			int32_t m = cur[x];

			if (x > 0 && cur[x - 1] < m)
				m = cur[x - 1];
			if (x < cols - 1 && cur[x + 1] < m)
				m = cur[x + 1];
			next[x] = m + wall[(int64_t)r * cols + x];
		}
		for (x = 0; x < cols; x++)
			cur[x] = next[x];
	}
}

static int path_run(struct simt_gpu *gpu, uint64_t size, uint64_t seed,
		    char *err, size_t errlen)
{
	const char *app = "path";
	const int32_t cols = (int32_t)size, rows = PATH_ROWS;
	const int32_t small = PATH_BLOCK - PATH_PYRAMID * PATH_HALO * 2;
	const uint64_t wall_n = size * rows;
	int32_t *wall = NULL, *got = NULL, *want = NULL, *next = NULL;
	uint64_t d_result[2], i;
	struct path_args args;
	struct app_rng rng;
	int src = 0, ret;

	ret = app_size_range(size, 1, PATH_MAX, "the columns", app, err,
			     errlen);
	if (ret)
		return ret;
	wall = malloc(wall_n * sizeof(*wall));
	got = malloc(size * sizeof(*got));
	want = malloc(size * sizeof(*want));
	next = malloc(size * sizeof(*next));
	ret = -ENOMEM;
	if (!wall || !got || !want || !next) {
		app_err(err, errlen, app, "out of memory");
		goto out;
	}
	/* Rodinia: every weight rand() % 10. */
	app_rng_init(&rng, seed, 42);
	for (i = 0; i < wall_n; i++)
		wall[i] = (int32_t)app_rng_below(&rng, 10);

	/* gpuWall holds rows 1 on; row 0 starts the result. */
	ret = app_alloc(gpu, (wall_n - size) * sizeof(int32_t), "gpuWall",
			&args.wall, app, err, errlen);
	if (!ret)
		ret = app_alloc(gpu, size * sizeof(int32_t), "gpuResult[0]",
				&d_result[0], app, err, errlen);
	if (!ret)
		ret = app_alloc(gpu, size * sizeof(int32_t), "gpuResult[1]",
				&d_result[1], app, err, errlen);
	if (ret)
		goto out;
	simt_h2d(gpu, args.wall, wall + size, (wall_n - size) *
		 sizeof(int32_t));
	simt_h2d(gpu, d_result[0], wall, size * sizeof(int32_t));
	args.cols = cols;
	args.border = PATH_PYRAMID * PATH_HALO;
	for (args.start = 0; args.start < rows - 1;
	     args.start += PATH_PYRAMID) {
		args.iteration = rows - args.start - 1 < PATH_PYRAMID ?
				 rows - args.start - 1 : PATH_PYRAMID;
		args.src = d_result[src];
		args.dst = d_result[!src];
		src = !src;
		ret = app_launch(gpu, "dynproc_kernel", path_kernel,
				 DIM3(app_blocks(size, small), 1, 1),
				 DIM3(PATH_BLOCK, 1, 1),
				 2 * PATH_BLOCK * sizeof(int32_t), &args, app,
				 err, errlen);
		if (ret)
			goto out;
	}
	simt_d2h(gpu, got, d_result[src], size * sizeof(int32_t));
	app_test_perturb(got, sizeof(*got), size);

	path_ref(wall, want, next, cols, rows);
	ret = app_check_i32(got, want, size, app, "result", err, errlen);
out:
	free(wall);
	free(got);
	free(want);
	free(next);
	return ret;
}

const struct app_desc app_path = {
	.name = "path",
	.suite = "Rodinia (pathfinder)",
	.summary = "dynamic programming down a grid's rows, a pyramid of 20 "
		   "rows a launch in shared memory, blocks of 256 with a halo "
		   "of 1 a row",
	.input = "size = columns; 100 rows (Rodinia's run: 100000 x 100, "
		 "pyramid height 20); every weight uniform in 0..9 from the "
		 "seed (the values do not change the program). Large: "
		 "Rodinia's 100000 columns, a 38 MiB grid: the paper sizes "
		 "data at 10x the GPU's memory (640 MiB for the cxl preset's "
		 "64 MiB), beyond what the executor records; this is over "
		 "10x the preset's 1 MiB LLC",
	.small_size = 1024,
	.large_size = 100000,
	.paper_sizes = "CPElide Table II: 200000 100 20 = size 200000 (100 "
		       "rows and pyramid height 20 as given; --large is "
		       "100000); CXL-GPU: no input given, data sized to 10x "
		       "the GPU's memory (640 MiB for the cxl preset's 64 "
		       "MiB) = --large, 100000 columns (Rodinia's run, a 38 "
		       "MiB grid)",
	.kernels = "dynproc_kernel",
	.run = path_run,
};
