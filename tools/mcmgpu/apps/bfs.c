// SPDX-License-Identifier: GPL-2.0
/*
 * Rodinia's bfs: level-synchronous breadth-first search over a graph's
 * nodes (starting edge, edge count) and edge list, one thread a node in
 * blocks of 512 (MAX_THREADS_PER_BLOCK). Kernel 1 expands the frontier:
 * a node whose mask is set clears it and, for each unvisited neighbour,
 * sets its cost to its own plus one and marks it in the updating mask.
 * Kernel 2 makes the updating mask the next frontier, marks those nodes
 * visited and sets the 'over' flag. The host clears 'over', copies it
 * in, runs both kernels and copies it back, until no node was updated.
 *
 * On Graph500's R-MAT graph (app_rmat), from a random vertex with an
 * edge; the result, every node's cost (its level; -1 unreached), is
 * checked against a plain breadth-first search.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "app_util.h"
#include "apps.h"

#define BFS_BLOCK	512

struct bfs_args {
	uint64_t nodes;		/* (start, count) pairs */
	uint64_t edges, mask, updating, visited, cost, over;
	uint32_t n;
};

/*
 * OPS: the index and its bounds (INT 2, BRANCH 1), the mask's test (INT
 * 1, BRANCH 1); an edge: the visited test (INT 1, BRANCH 1), the new
 * cost's add (INT 1) for the unvisited, the loop's add and compare (INT
 * 2) and back edge (BRANCH 1).
 */
static void bfs_kernel1(struct simt_thread *t, const void *p)
{
	const struct bfs_args *a = p;
	uint64_t tid = simt_global_x(t);
	uint32_t start, count, i;
	uint8_t frontier;

	OPS(t, PROG_OP_INT, 2);
	OPS(t, PROG_OP_BRANCH, 1);
	if (tid >= a->n)
		return;
	frontier = LD(t, uint8_t, a->mask, tid);
	OPS(t, PROG_OP_INT, 1);
	OPS(t, PROG_OP_BRANCH, 1);
	if (!frontier)
		return;
	ST(t, uint8_t, a->mask, tid, 0);
	start = LD(t, uint32_t, a->nodes, 2 * tid);
	count = LD(t, uint32_t, a->nodes, 2 * tid + 1);
	for (i = start; i < start + count; i++) {
		uint32_t id = LD(t, uint32_t, a->edges, i);
		uint8_t seen = LD(t, uint8_t, a->visited, id);

		OPS(t, PROG_OP_INT, 1);
		OPS(t, PROG_OP_BRANCH, 1);
		if (!seen) {
			int32_t c = LD(t, int32_t, a->cost, tid);

			OPS(t, PROG_OP_INT, 1);
			ST(t, int32_t, a->cost, id, c + 1);
			ST(t, uint8_t, a->updating, id, 1);
		}
		OPS(t, PROG_OP_INT, 2);
		OPS(t, PROG_OP_BRANCH, 1);
	}
}

/*
 * OPS: the index and its bounds (INT 2, BRANCH 1), the updating mask's
 * test (INT 1, BRANCH 1).
 */
static void bfs_kernel2(struct simt_thread *t, const void *p)
{
	const struct bfs_args *a = p;
	uint64_t tid = simt_global_x(t);
	uint8_t upd;

	OPS(t, PROG_OP_INT, 2);
	OPS(t, PROG_OP_BRANCH, 1);
	if (tid >= a->n)
		return;
	upd = LD(t, uint8_t, a->updating, tid);
	OPS(t, PROG_OP_INT, 1);
	OPS(t, PROG_OP_BRANCH, 1);
	if (!upd)
		return;
	ST(t, uint8_t, a->mask, tid, 1);
	ST(t, uint8_t, a->visited, tid, 1);
	ST(t, uint8_t, a->over, 0, 1);
	ST(t, uint8_t, a->updating, tid, 0);
}

/* The reference: a queue-based breadth-first search. */
static void bfs_ref(const struct app_graph *g, uint32_t root, int32_t *cost,
		    uint32_t *queue)
{
	uint32_t head = 0, tail = 0, v, i;

	for (v = 0; v < g->nodes; v++)
		cost[v] = -1;
	cost[root] = 0;
	queue[tail++] = root;
	while (head < tail) {
		v = queue[head++];
		for (i = g->row[v]; i < g->row[v + 1]; i++) {
			if (cost[g->col[i]] >= 0)
				continue;
			cost[g->col[i]] = cost[v] + 1;
			queue[tail++] = g->col[i];
		}
	}
}

static int bfs_run(struct simt_gpu *gpu, uint64_t size, uint64_t seed,
		   char *err, size_t errlen)
{
	const char *app = "bfs";
	struct app_graph g;
	struct bfs_args args;
	uint32_t *nodes = NULL, *queue = NULL, root, v, n;
	int32_t *cost = NULL, *want = NULL;
	uint8_t *mask = NULL, over;
	struct simt_dim3 grid, block = DIM3(BFS_BLOCK, 1, 1);
	int ret;

	ret = app_size_range(size, 1, APP_RMAT_MAX_SCALE, "the scale", app,
			     err, errlen);
	if (ret)
		return ret;
	ret = app_rmat(&g, (unsigned int)size, seed, false, app, err, errlen);
	if (ret)
		return ret;
	n = g.nodes;
	grid = DIM3(app_blocks(n, BFS_BLOCK), 1, 1);
	root = app_graph_root(&g, seed);
	nodes = malloc(2 * (size_t)n * sizeof(*nodes));
	queue = malloc((size_t)n * sizeof(*queue));
	cost = malloc((size_t)n * sizeof(*cost));
	want = malloc((size_t)n * sizeof(*want));
	mask = calloc(n, 1);
	ret = -ENOMEM;
	if (!nodes || !queue || !cost || !want || !mask) {
		app_err(err, errlen, app, "out of memory");
		goto out;
	}
	for (v = 0; v < n; v++) {
		nodes[2 * v] = g.row[v];
		nodes[2 * v + 1] = g.row[v + 1] - g.row[v];
		cost[v] = -1;
	}
	cost[root] = 0;

	memset(&args, 0, sizeof(args));
	args.n = n;
	ret = app_alloc(gpu, 2 * (uint64_t)n * sizeof(uint32_t),
			"graph_nodes", &args.nodes, app, err, errlen);
	if (!ret)
		ret = app_alloc(gpu, (uint64_t)g.edges * sizeof(uint32_t),
				"graph_edges", &args.edges, app, err, errlen);
	if (!ret)
		ret = app_alloc(gpu, n, "graph_mask", &args.mask, app, err,
				errlen);
	if (!ret)
		ret = app_alloc(gpu, n, "updating_graph_mask", &args.updating,
				app, err, errlen);
	if (!ret)
		ret = app_alloc(gpu, n, "graph_visited", &args.visited, app,
				err, errlen);
	if (!ret)
		ret = app_alloc(gpu, (uint64_t)n * sizeof(int32_t), "cost",
				&args.cost, app, err, errlen);
	if (!ret)
		ret = app_alloc(gpu, 1, "over", &args.over, app, err, errlen);
	if (ret)
		goto out;

	/* Rodinia's set-up: the root alone in the frontier, visited. */
	simt_h2d(gpu, args.nodes, nodes, 2 * (uint64_t)n * sizeof(uint32_t));
	simt_h2d(gpu, args.edges, g.col, (uint64_t)g.edges * sizeof(uint32_t));
	mask[root] = 1;
	simt_h2d(gpu, args.mask, mask, n);
	simt_h2d(gpu, args.visited, mask, n);
	mask[root] = 0;
	simt_h2d(gpu, args.updating, mask, n);
	simt_h2d(gpu, args.cost, cost, (uint64_t)n * sizeof(int32_t));
	do {
		over = 0;
		simt_h2d(gpu, args.over, &over, 1);
		ret = app_launch(gpu, "Kernel", bfs_kernel1, grid, block, 0,
				 &args, app, err, errlen);
		if (!ret)
			ret = app_launch(gpu, "Kernel2", bfs_kernel2, grid,
					 block, 0, &args, app, err, errlen);
		if (ret)
			goto out;
		simt_d2h(gpu, &over, args.over, 1);
	} while (over);
	simt_d2h(gpu, cost, args.cost, (uint64_t)n * sizeof(int32_t));
	app_test_perturb(cost, sizeof(*cost), n);

	bfs_ref(&g, root, want, queue);
	ret = app_check_i32(cost, want, n, app, "cost", err, errlen);
out:
	app_graph_free(&g);
	free(nodes);
	free(queue);
	free(cost);
	free(want);
	free(mask);
	return ret;
}

const struct app_desc app_bfs = {
	.name = "bfs",
	.suite = "Rodinia (bfs)",
	.summary = "level-synchronous BFS, a thread a node, two kernels a "
		   "level until the 'over' flag stays clear, blocks of 512",
	.input = "size = scale: Graph500's R-MAT graph (a = 0.57, b = c = "
		 "0.19, d = 0.05) with 2^scale vertices and 16 x 2^scale "
		 "edge tuples, labels permuted, made undirected without self "
		 "loops or duplicates; the root a random vertex with an edge; "
		 "all from the seed",
	.small_size = 10,
	.large_size = 17,
	.paper_sizes = "CPElide Table II: graph128k.txt (131072 nodes) = size "
		       "17 (--large; 2^17 vertices, but an R-MAT graph, not "
		       "Rodinia's generated one); CXL-GPU: no input given, "
		       "data sized to 10x the GPU's memory (640 MiB for the "
		       "cxl preset's 64 MiB) = --large, scale 17",
	.kernels = "Kernel, Kernel2",
	.run = bfs_run,
};
