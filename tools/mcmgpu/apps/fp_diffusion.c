// SPDX-License-Identifier: GPL-2.0
/*
 * diffusion (FinePack §V): Tartan's Diffusion solves the heat equation
 * and the inviscid Burgers' equation on a grid split across GPUs, the
 * halos moved by P2P stores (MPI replaced). Tartan's code is not public;
 * this is the nearest public scheme, written from the textbook methods:
 *  - heat: explicit FTCS, T' = T + r (N + S + E + W - 4 T), r = 0.2
 *    (stable: r <= 1/4);
 *  - Burgers u_t + (u^2/2)_x + (u^2/2)_y = 0: Lax-Friedrichs,
 *    u' = (N + S + E + W) / 4 - l/2 (F(E) - F(W) + F(S) - F(N)),
 *    F(v) = v^2 / 2, l = dt / h = 0.25 (monotone while l max|u| <= 1/2,
 *    and u stays in [0, 1)).
 * Ours, where the paper is silent: a 2D nx x nx grid, both fields from
 * the seed uniform in [0, 1), the edge cells held fixed (Dirichlet);
 * one launch a step (the launch is the sync), 20 steps; GPU g owns grid
 * rows [g nx / 4, (g + 1) nx / 4); T and u are replicated (two objects
 * each, ping-ponged); a thread a cell reads its GPU's replicas and
 * stores T' and u' there, and a cell of its first (last) row also into
 * the previous (next) GPU's replicas: the halo row. A warp's 32 cells
 * are one 128 B store ("128B stores", §V).
 * Each replica is checked: its rows and halo rows against the host's
 * same steps, every other element still the initial field.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "app_util.h"
#include "apps.h"
#include "fp_util.h"

#define DIF_BLOCK	256
#define DIF_STEPS	20
#define DIF_R		0.2f
#define DIF_L		0.25f

struct dif_args {
	uint64_t t, u, tn, un;
	uint64_t stride;		/* a replica's bytes */
	uint32_t nx, rows, blocks;	/* rows, blocks: a GPU's */
};

static inline float dif_heat(float c, float n, float s, float e, float w)
{
	return c + DIF_R * (n + s + e + w - 4.0f * c);
}

static inline float dif_burgers(float n, float s, float e, float w)
{
	float avg = (n + s + e + w) * 0.25f;
	float flux = 0.5f * e * e - 0.5f * w * w + 0.5f * s * s -
		     0.5f * n * n;

	return avg - 0.5f * DIF_L * flux;
}

/*
 * OPS: the index, gpu, row and column (INT 4), the edge test (INT 4,
 * BRANCH 1); inside: heat (FP 6), Burgers (FP 9); the two halo tests
 * (INT 2, BRANCH 2).
 */
static void dif_kernel(struct simt_thread *t, const void *p)
{
	const struct dif_args *a = p;
	uint64_t i = simt_global_x(t);
	uint32_t gpu = simt_block_idx(t).x / a->blocks;
	uint32_t r = (uint32_t)(i / a->nx), c = (uint32_t)(i % a->nx);
	uint64_t off = gpu * a->stride;
	float tv = LD(t, float, a->t + off, i);
	float uv = LD(t, float, a->u + off, i);

	OPS(t, PROG_OP_INT, 8);
	OPS(t, PROG_OP_BRANCH, 1);
	if (r > 0 && r < a->nx - 1 && c > 0 && c < a->nx - 1) {
		uint64_t tp = a->t + off, up = a->u + off;

		OPS(t, PROG_OP_FP, 15);
		tv = dif_heat(tv, LD(t, float, tp, i - a->nx),
			      LD(t, float, tp, i + a->nx),
			      LD(t, float, tp, i + 1),
			      LD(t, float, tp, i - 1));
		uv = dif_burgers(LD(t, float, up, i - a->nx),
				 LD(t, float, up, i + a->nx),
				 LD(t, float, up, i + 1),
				 LD(t, float, up, i - 1));
	}
	ST(t, float, a->tn + off, i, tv);
	ST(t, float, a->un + off, i, uv);
	OPS(t, PROG_OP_INT, 2);
	OPS(t, PROG_OP_BRANCH, 2);
	if (gpu > 0 && r == gpu * a->rows) {
		ST(t, float, a->tn + off - a->stride, i, tv);
		ST(t, float, a->un + off - a->stride, i, uv);
	}
	if (gpu < FP_GPUS - 1 && r == (gpu + 1) * a->rows - 1) {
		ST(t, float, a->tn + off + a->stride, i, tv);
		ST(t, float, a->un + off + a->stride, i, uv);
	}
}

/* One step of both fields on the host. */
static void dif_ref(const float *t, const float *u, float *tn, float *un,
		    uint32_t nx)
{
	uint64_t n = (uint64_t)nx * nx, i;

	for (i = 0; i < n; i++) {
		uint32_t r = (uint32_t)(i / nx), c = (uint32_t)(i % nx);

		tn[i] = t[i];
		un[i] = u[i];
		if (r == 0 || r == nx - 1 || c == 0 || c == nx - 1)
			continue;
		tn[i] = dif_heat(t[i], t[i - nx], t[i + nx], t[i + 1],
				 t[i - 1]);
		un[i] = dif_burgers(u[i - nx], u[i + nx], u[i + 1], u[i - 1]);
	}
}

static int dif_run(struct simt_gpu *gpu, uint64_t size, uint64_t seed,
		   char *err, size_t errlen)
{
	const char *app = "diffusion";
	uint64_t n = size * size, d_t[2], d_u[2], lo[FP_GPUS], hi[FP_GPUS];
	float *t0 = NULL, *u0 = NULL, *t = NULL, *u = NULL, *tn = NULL;
	float *un = NULL, *got_t = NULL, *got_u = NULL, *tmp;
	struct dif_args args;
	struct app_rng rng;
	int ret, it, g;

	ret = app_size_range(size, 64, 4096, "the grid's side", app, err,
			     errlen);
	if (ret)
		return ret;
	if (size % 64)
		return app_err(err, errlen, app,
			       "size %llu: the grid's side must be a multiple of 64",
			       (unsigned long long)size), -EINVAL;
	t0 = malloc(n * sizeof(float));
	u0 = malloc(n * sizeof(float));
	t = malloc(n * sizeof(float));
	u = malloc(n * sizeof(float));
	tn = malloc(n * sizeof(float));
	un = malloc(n * sizeof(float));
	ret = -ENOMEM;
	if (!t0 || !u0 || !t || !u || !tn || !un) {
		app_err(err, errlen, app, "out of memory");
		goto out;
	}
	app_rng_init(&rng, seed, 91);
	app_rng_fill_float(&rng, t0, n, 1.0f);
	app_rng_fill_float(&rng, u0, n, 1.0f);

	ret = fp_alloc(gpu, n, sizeof(float), t0, "T", &d_t[0], app, err,
		       errlen);
	if (!ret)
		ret = fp_alloc(gpu, n, sizeof(float), t0, "Tnew", &d_t[1], app,
			       err, errlen);
	if (!ret)
		ret = fp_alloc(gpu, n, sizeof(float), u0, "u", &d_u[0], app,
			       err, errlen);
	if (!ret)
		ret = fp_alloc(gpu, n, sizeof(float), u0, "unew", &d_u[1], app,
			       err, errlen);
	if (ret)
		goto out;
	args.nx = (uint32_t)size;
	args.rows = (uint32_t)size / FP_GPUS;
	args.blocks = (uint32_t)(n / FP_GPUS / DIF_BLOCK);
	args.stride = fp_stride(n, sizeof(float)) * sizeof(float);
	for (it = 0; it < DIF_STEPS; it++) {
		args.t = d_t[it % 2];
		args.u = d_u[it % 2];
		args.tn = d_t[!(it % 2)];
		args.un = d_u[!(it % 2)];
		ret = app_launch(gpu, "diffusion_step", dif_kernel,
				 DIM3(FP_GPUS * args.blocks, 1, 1),
				 DIM3(DIF_BLOCK, 1, 1), 0, &args, app, err,
				 errlen);
		if (ret)
			goto out;
	}
	got_t = fp_fetch(gpu, d_t[DIF_STEPS % 2], n, sizeof(float));
	got_u = fp_fetch(gpu, d_u[DIF_STEPS % 2], n, sizeof(float));
	ret = -ENOMEM;
	if (!got_t || !got_u) {
		app_err(err, errlen, app, "out of memory");
		goto out;
	}

	memcpy(t, t0, n * sizeof(float));
	memcpy(u, u0, n * sizeof(float));
	for (it = 0; it < DIF_STEPS; it++) {
		dif_ref(t, u, tn, un, args.nx);
		tmp = t;
		t = tn;
		tn = tmp;
		tmp = u;
		u = un;
		un = tmp;
	}
	for (g = 0; g < FP_GPUS; g++) {
		lo[g] = g ? ((uint64_t)g * args.rows - 1) * size : 0;
		hi[g] = g < FP_GPUS - 1 ?
			((uint64_t)(g + 1) * args.rows + 1) * size : n;
	}
	ret = fp_check_f32(got_t, n, t, t0, lo, hi, app, "T", err, errlen);
	if (!ret)
		ret = fp_check_f32(got_u, n, u, u0, lo, hi, app, "u", err,
				   errlen);
out:
	free(t0);
	free(u0);
	free(t);
	free(u);
	free(tn);
	free(un);
	free(got_t);
	free(got_u);
	return ret;
}

const struct app_desc app_fp_diffusion = {
	.name = "diffusion",
	.suite = "FinePack §V (Diffusion, Tartan; nearest public scheme)",
	.summary = "20 steps of heat (FTCS) and inviscid Burgers' "
		   "(Lax-Friedrichs) on a 2D grid, 4 GPUs by rows, both "
		   "fields replicated, edge rows stored into the neighbours' "
		   "replicas (P2P halo)",
	.input = "size = nx, a multiple of 64: an nx x nx grid, T and u "
		 "uniform in [0, 1) from the seed, edge cells fixed",
	.small_size = 64,
	.large_size = 512,
	.kernels = "diffusion_step",
	.paper_sizes = "FinePack §V: Tartan's Diffusion (no size given) = "
		       "any size; large 512",
	.run = dif_run,
};
