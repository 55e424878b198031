// SPDX-License-Identifier: GPL-2.0
/*
 * fw (CPElide's Table II, FW): Pannotia's Floyd-Warshall all-pairs
 * shortest paths over a dense N x N distance matrix. For k = 0 .. N - 1
 * the host launches floydwarshall, a thread an (i, j) in 16 x 16
 * blocks, which relaxes dist[i][j] through k and records k in next[i][j]
 * where that is shorter. Each launch reads row k and column k, which
 * launch k itself does not change (dist[k][k] is 0), so the launches
 * need no other ordering than their sequence.
 *
 * Input (ours: Table II's 512_65536.gr is a synthetic graph of 512
 * vertices and 65,536 edges we do not have): N vertices and N^2 / 4
 * directed edge tuples with both ends uniform (self loops dropped, a
 * repeated pair keeping its smaller weight), weights uniform in
 * [1, 255], all from the seed; dist is the weight, BIG (Pannotia's
 * 'infinity', here 2^28 so two add without overflow) without an edge
 * and 0 on the diagonal; next starts at -1.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "app_util.h"
#include "apps.h"

#define FW_BLOCK	16
#define FW_MAX		2048
#define FW_BIG		(1 << 28)

struct fw_args {
	uint64_t dist, next;
	int32_t n, k;
};

/*
 * OPS: i and j (INT 2), the bounds (INT 2, BRANCH 1), the sum and
 * compare (INT 2, BRANCH 1).
 */
static void fw_kernel(struct simt_thread *t, const void *p)
{
	const struct fw_args *a = p;
	int64_t i = (int64_t)simt_block_idx(t).y * FW_BLOCK +
		    simt_thread_idx(t).y;
	int64_t j = (int64_t)simt_block_idx(t).x * FW_BLOCK +
		    simt_thread_idx(t).x;
	int32_t ik, kj, ij;

	OPS(t, PROG_OP_INT, 4);
	OPS(t, PROG_OP_BRANCH, 1);
	if (i >= a->n || j >= a->n)
		return;
	ik = LD(t, int32_t, a->dist, i * a->n + a->k);
	kj = LD(t, int32_t, a->dist, (int64_t)a->k * a->n + j);
	ij = LD(t, int32_t, a->dist, i * a->n + j);
	OPS(t, PROG_OP_INT, 2);
	OPS(t, PROG_OP_BRANCH, 1);
	if (ik + kj < ij) {
		ST(t, int32_t, a->dist, i * a->n + j, ik + kj);
		ST(t, int32_t, a->next, i * a->n + j, a->k);
	}
}

static void fw_ref(int32_t *d, int32_t *next, int32_t n)
{
	int64_t i, j, k;

	for (k = 0; k < n; k++)
		for (i = 0; i < n; i++)
			for (j = 0; j < n; j++)
				if (d[i * n + k] + d[k * n + j] < d[i * n + j]) {
					d[i * n + j] = d[i * n + k] +
						       d[k * n + j];
					next[i * n + j] = (int32_t)k;
				}
}

static int fw_run(struct simt_gpu *gpu, uint64_t size, uint64_t seed,
		  char *err, size_t errlen)
{
	const char *app = "fw";
	const int32_t n = (int32_t)size;
	const uint64_t cells = size * size, bytes = cells * sizeof(int32_t);
	int32_t *dist = NULL, *next = NULL, *got = NULL;
	struct fw_args args;
	struct app_rng rng;
	uint64_t e, i;
	uint32_t blocks;
	int ret;

	ret = app_size_range(size, 2, FW_MAX, "the vertices", app, err,
			     errlen);
	if (ret)
		return ret;
	dist = malloc(bytes);
	next = malloc(bytes);
	got = malloc(bytes);
	ret = -ENOMEM;
	if (!dist || !next || !got) {
		app_err(err, errlen, app, "out of memory");
		goto out;
	}
	for (i = 0; i < cells; i++) {
		dist[i] = i / size == i % size ? 0 : FW_BIG;
		next[i] = -1;
	}
	app_rng_init(&rng, seed, 71);
	for (e = 0; e < cells / 4; e++) {
		uint64_t u = app_rng_below(&rng, size);
		uint64_t v = app_rng_below(&rng, size);
		int32_t w = 1 + (int32_t)app_rng_below(&rng, 255);

		if (u != v && w < dist[u * size + v])
			dist[u * size + v] = w;
	}
	memset(&args, 0, sizeof(args));
	args.n = n;
	blocks = app_blocks(size, FW_BLOCK);

	ret = app_alloc(gpu, bytes, "dist", &args.dist, app, err, errlen);
	if (!ret)
		ret = app_alloc(gpu, bytes, "next", &args.next, app, err,
				errlen);
	if (ret)
		goto out;
	simt_h2d(gpu, args.dist, dist, bytes);
	simt_h2d(gpu, args.next, next, bytes);
	for (args.k = 0; args.k < n; args.k++) {
		ret = app_launch(gpu, "floydwarshall", fw_kernel,
				 DIM3(blocks, blocks, 1),
				 DIM3(FW_BLOCK, FW_BLOCK, 1), 0, &args, app,
				 err, errlen);
		if (ret)
			goto out;
	}
	fw_ref(dist, next, n);
	simt_d2h(gpu, got, args.dist, bytes);
	app_test_perturb(got, sizeof(*got), cells);
	ret = app_check_i32(got, dist, cells, app, "dist", err, errlen);
	if (ret)
		goto out;
	simt_d2h(gpu, got, args.next, bytes);
	ret = app_check_i32(got, next, cells, app, "next", err, errlen);
out:
	free(dist);
	free(next);
	free(got);
	return ret;
}

const struct app_desc app_fw = {
	.name = "fw",
	.suite = "Pannotia (fw)",
	.summary = "Floyd-Warshall all-pairs shortest paths: floydwarshall "
		   "launched once for each k over the N x N distance and "
		   "next matrices, a thread an entry, 16 x 16 blocks",
	.input = "size = N vertices; N^2 / 4 directed edge tuples with "
		 "uniform ends and weights in [1, 255] from the seed (self "
		 "loops dropped, repeats keep the smaller weight). Large: 256 "
		 "(the paper's 512 is 512 launches of 2^18 threads, a 1.1 GB "
		 "program: beyond what the executor records well)",
	.small_size = 32,
	.large_size = 256,
	.kernels = "floydwarshall",
	.paper_sizes = "CPElide Table II: 512_65536.gr (512 vertices, 65,536 "
		       "edges) = size 512 (N^2 / 4 = 65,536 edge tuples); the "
		       "large size is 256 (16,384 tuples, the same density)",
	.run = fw_run,
};
