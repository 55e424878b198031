// SPDX-License-Identifier: GPL-2.0
/*
 * gnn (CXL-GPU's workload table): one graph convolutional layer (Kipf
 * and Welling's GCN), out = ReLU(D^-1/2 (A + I) D^-1/2 H W). The paper
 * names gnn without its code (its table says it combines bfs's, vadd's
 * and gemm's patterns); this is the layer as GNN libraries run it on
 * GPUs, in two kernels:
 *  - aggregation, a CSR SpMM: blocks of 32 features x 8 vertices, a warp
 *    a vertex and a lane a feature, so each neighbour's feature row is
 *    one coalesced 128 B load; the vertex's own row first, then its
 *    neighbours in CSR order, each scaled by dinv[v] dinv[u] (dinv =
 *    1 / sqrt(degree + 1), computed on the host);
 *  - the dense transform: blocks of 16 outputs x 16 vertices load W (32
 *    x 16) into shared memory, then each thread takes the dot product of
 *    its vertex's aggregated row with W's column and applies ReLU.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "app_util.h"
#include "apps.h"

#define GNN_FIN		32	/* input features */
#define GNN_FOUT	16	/* output features (GCN's hidden 16) */
#define GNN_AGG_V	8	/* vertices an aggregation block */
#define GNN_XF_V	16	/* vertices a transform block */

struct gnn_args {
	uint64_t row, col, dinv, h, agg, w, out;
	uint32_t n;
};

/*
 * OPS: the vertex and its bound (INT 2, BRANCH 1); the self term (FP 2:
 * the norm and its product); a neighbour: the norm and the FFMA (FP 2),
 * the loop (INT 2, BRANCH 1).
 */
static void gnn_aggregate_kernel(struct simt_thread *t, const void *p)
{
	const struct gnn_args *a = p;
	struct simt_dim3 l = simt_thread_idx(t);
	uint64_t v = (uint64_t)simt_block_idx(t).x * GNN_AGG_V + l.y;
	uint32_t f = l.x, start, end, j;
	float dv, acc;

	OPS(t, PROG_OP_INT, 2);
	OPS(t, PROG_OP_BRANCH, 1);
	if (v >= a->n)
		return;
	dv = LD(t, float, a->dinv, v);
	OPS(t, PROG_OP_FP, 2);
	acc = dv * dv * LD(t, float, a->h, v * GNN_FIN + f);
	start = LD(t, uint32_t, a->row, v);
	end = LD(t, uint32_t, a->row, v + 1);
	for (j = start; j < end; j++) {
		uint32_t u = LD(t, uint32_t, a->col, j);
		float du = LD(t, float, a->dinv, u);
		float hu = LD(t, float, a->h, (uint64_t)u * GNN_FIN + f);

		OPS(t, PROG_OP_FP, 2);
		acc = acc + dv * du * hu;
		OPS(t, PROG_OP_INT, 2);
		OPS(t, PROG_OP_BRANCH, 1);
	}
	ST(t, float, a->agg, v * GNN_FIN + f, acc);
}

/*
 * OPS: the vertex (INT 1), W's two elements' indices (INT 2); the bound
 * (INT 1, BRANCH 1); a feature: the FFMA (FP 1), unrolled; ReLU (FP 1).
 */
static void gnn_transform_kernel(struct simt_thread *t, const void *p)
{
	const struct gnn_args *a = p;
	struct simt_dim3 l = simt_thread_idx(t);
	uint64_t v = (uint64_t)simt_block_idx(t).x * GNN_XF_V + l.y;
	uint32_t tid = l.y * GNN_FOUT + l.x, k;
	float acc = 0.0f;

	OPS(t, PROG_OP_INT, 3);
	STS(t, float, tid, LD(t, float, a->w, tid));
	STS(t, float, tid + GNN_FOUT * GNN_XF_V,
	    LD(t, float, a->w, tid + GNN_FOUT * GNN_XF_V));
	SYNC(t);
	OPS(t, PROG_OP_INT, 1);
	OPS(t, PROG_OP_BRANCH, 1);
	if (v >= a->n)
		return;
	for (k = 0; k < GNN_FIN; k++) {
		float x = LD(t, float, a->agg, v * GNN_FIN + k);
		float w = LDS(t, float, k * GNN_FOUT + l.x);

		OPS(t, PROG_OP_FP, 1);
		acc = acc + x * w;
	}
	OPS(t, PROG_OP_FP, 1);
	ST(t, float, a->out, v * GNN_FOUT + l.x, acc > 0.0f ? acc : 0.0f);
}

/* The reference: the same sums in the same order. */
static void gnn_ref(const struct app_graph *g, const float *dinv,
		    const float *h, const float *w, float *agg, float *out)
{
	uint32_t v, f, j, k;

	for (v = 0; v < g->nodes; v++)
		for (f = 0; f < GNN_FIN; f++) {
			float acc = dinv[v] * dinv[v] *
				    h[(size_t)v * GNN_FIN + f];

			for (j = g->row[v]; j < g->row[v + 1]; j++) {
				uint32_t u = g->col[j];

				acc = acc + dinv[v] * dinv[u] *
					    h[(size_t)u * GNN_FIN + f];
			}
			agg[(size_t)v * GNN_FIN + f] = acc;
		}
	for (v = 0; v < g->nodes; v++)
		for (f = 0; f < GNN_FOUT; f++) {
			float acc = 0.0f;

			for (k = 0; k < GNN_FIN; k++)
				acc = acc + agg[(size_t)v * GNN_FIN + k] *
					    w[k * GNN_FOUT + f];
			out[(size_t)v * GNN_FOUT + f] = acc > 0.0f ? acc : 0.0f;
		}
}

static int gnn_run(struct simt_gpu *gpu, uint64_t size, uint64_t seed,
		   char *err, size_t errlen)
{
	const char *app = "gnn";
	float *dinv = NULL, *h = NULL, *w = NULL, *agg = NULL, *out = NULL;
	float *got = NULL;
	struct gnn_args args;
	struct app_graph g;
	struct app_rng rng;
	uint32_t n, v, k;
	int ret;

	ret = app_size_range(size, 1, APP_RMAT_MAX_SCALE, "the scale", app,
			     err, errlen);
	if (ret)
		return ret;
	ret = app_rmat(&g, (unsigned int)size, seed, false, app, err, errlen);
	if (ret)
		return ret;
	n = g.nodes;
	dinv = malloc((size_t)n * sizeof(float));
	h = malloc((size_t)n * GNN_FIN * sizeof(float));
	w = malloc(GNN_FIN * GNN_FOUT * sizeof(float));
	agg = malloc((size_t)n * GNN_FIN * sizeof(float));
	out = malloc((size_t)n * GNN_FOUT * sizeof(float));
	got = malloc((size_t)n * GNN_FOUT * sizeof(float));
	ret = -ENOMEM;
	if (!dinv || !h || !w || !agg || !out || !got) {
		app_err(err, errlen, app, "out of memory");
		goto out;
	}
	for (v = 0; v < n; v++)
		dinv[v] = 1.0f / sqrtf((float)(g.row[v + 1] - g.row[v] + 1));
	app_rng_init(&rng, seed, 48);
	app_rng_fill_float(&rng, h, (size_t)n * GNN_FIN, 1.0f);
	/* Glorot-like weights in [-0.5, 0.5): ReLU has work to do. */
	for (k = 0; k < GNN_FIN * GNN_FOUT; k++)
		w[k] = app_rng_float(&rng) - 0.5f;

	memset(&args, 0, sizeof(args));
	args.n = n;
	ret = app_alloc(gpu, ((uint64_t)n + 1) * sizeof(uint32_t), "row_ptr",
			&args.row, app, err, errlen);
	if (!ret)
		ret = app_alloc(gpu, (uint64_t)(g.edges ? g.edges : 1) *
				sizeof(uint32_t), "col_idx", &args.col, app,
				err, errlen);
	if (!ret)
		ret = app_alloc(gpu, (uint64_t)n * sizeof(float), "dinv",
				&args.dinv, app, err, errlen);
	if (!ret)
		ret = app_alloc(gpu, (uint64_t)n * GNN_FIN * sizeof(float),
				"features", &args.h, app, err, errlen);
	if (!ret)
		ret = app_alloc(gpu, (uint64_t)n * GNN_FIN * sizeof(float),
				"aggregated", &args.agg, app, err, errlen);
	if (!ret)
		ret = app_alloc(gpu, GNN_FIN * GNN_FOUT * sizeof(float),
				"weight", &args.w, app, err, errlen);
	if (!ret)
		ret = app_alloc(gpu, (uint64_t)n * GNN_FOUT * sizeof(float),
				"output", &args.out, app, err, errlen);
	if (ret)
		goto out;
	simt_h2d(gpu, args.row, g.row, ((uint64_t)n + 1) * sizeof(uint32_t));
	if (g.edges)
		simt_h2d(gpu, args.col, g.col,
			 (uint64_t)g.edges * sizeof(uint32_t));
	simt_h2d(gpu, args.dinv, dinv, (uint64_t)n * sizeof(float));
	simt_h2d(gpu, args.h, h, (uint64_t)n * GNN_FIN * sizeof(float));
	simt_h2d(gpu, args.w, w, GNN_FIN * GNN_FOUT * sizeof(float));
	ret = app_launch(gpu, "gcn_aggregate", gnn_aggregate_kernel,
			 DIM3(app_blocks(n, GNN_AGG_V), 1, 1),
			 DIM3(GNN_FIN, GNN_AGG_V, 1), 0, &args, app, err,
			 errlen);
	if (!ret)
		ret = app_launch(gpu, "gcn_transform", gnn_transform_kernel,
				 DIM3(app_blocks(n, GNN_XF_V), 1, 1),
				 DIM3(GNN_FOUT, GNN_XF_V, 1),
				 GNN_FIN * GNN_FOUT * sizeof(float), &args,
				 app, err, errlen);
	if (ret)
		goto out;
	simt_d2h(gpu, got, args.out, (uint64_t)n * GNN_FOUT * sizeof(float));
	app_test_perturb(got, sizeof(float), (size_t)n * GNN_FOUT);

	gnn_ref(&g, dinv, h, w, agg, out);
	ret = app_check_f32(got, out, (size_t)n * GNN_FOUT,
			    APP_FLOAT_TOLERANCE, app, "output", err, errlen);
out:
	app_graph_free(&g);
	free(dinv);
	free(h);
	free(w);
	free(agg);
	free(out);
	free(got);
	return ret;
}

const struct app_desc app_gnn = {
	.name = "gnn",
	.suite = "GCN layer (Kipf and Welling)",
	.summary = "one GCN layer: a CSR SpMM aggregation (a warp a vertex, "
		   "a lane a feature) then a dense 32 -> 16 transform through "
		   "shared memory with ReLU (the paper's gnn is not public)",
	.input = "size = scale: Graph500's R-MAT graph as for bfs (2^scale "
		 "vertices, 16 x 2^scale edge tuples, undirected), 32 input "
		 "features uniform in [0, 1) and weights uniform in [-0.5, "
		 "0.5), all from the seed. Large: scale 15, 14 MiB of graph "
		 "and features, over 10x the cxl preset's 1 MiB LLC: the "
		 "paper's 10x the GPU's memory (640 MiB for the preset's 64 "
		 "MiB) is beyond what the executor records",
	.small_size = 8,
	.large_size = 15,
	.paper_sizes = "CXL-GPU: no input given, data sized to 10x the GPU's "
		       "memory (640 MiB for the cxl preset's 64 MiB) = "
		       "--large, scale 15 (14 MiB of graph and features; the "
		       "paper's gnn is not public)",
	.kernels = "gcn_aggregate, gcn_transform",
	.run = gnn_run,
};
