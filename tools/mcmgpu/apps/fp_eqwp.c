// SPDX-License-Identifier: GPL-2.0
/*
 * eqwp (FinePack §V): Tartan's EQWP propagates earthquake waves through
 * a 3D volume with 4th-order finite differences, split across GPUs, the
 * halos moved by P2P stores (MPI replaced). Tartan's code is not public;
 * this is the nearest public scheme: the acoustic (scalar) wave equation
 * u_tt = c^2 lap(u), 4th-order central differences in space (the
 * weights -1/12, 4/3, -5/2, -- AWP-ODC's staggered elastic solver uses
 * the same 4th-order stencil radius 2), leapfrog in time:
 * u' = 2 u - u_prev + C2 lap4(u), C2 = (c dt / h)^2 a cell.
 * Ours, where the paper is silent: an n^3 volume, C2 uniform in [0.05,
 * 0.15) (a heterogeneous medium; stable below 0.25) and the starting
 * field uniform in [0, 1), at rest (u_prev = u), from the seed; the two
 * cells next to each face held fixed; 10 steps, one launch each;
 * GPU g owns z planes [g n / 4, (g + 1) n / 4); the three time levels
 * are replicated (three objects, rotated); a thread a cell reads its
 * GPU's replicas and stores u' there, and a cell in the first (last) two
 * owned planes also into the previous (next) GPU's replica: the 2-plane
 * halo the 4th-order stencil reads. A warp's 32 cells (an x row) are one
 * 128 B store.
 * Each replica is checked: its planes and halo planes against the
 * host's same steps, every other element still the starting field.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "app_util.h"
#include "apps.h"
#include "fp_util.h"

#define EQ_BLOCK	256
#define EQ_STEPS	10
#define EQ_HALO		2

struct eq_args {
	uint64_t c2, prev, cur, next;
	uint64_t stride;		/* a replica's bytes */
	uint32_t n, planes, blocks;	/* planes, blocks: a GPU's */
};

/* The update, as the kernel and the reference both compute it. */
static inline float eq_cell(float prev, float c, float c2, const float d1[6],
			    const float d2[6])
{
	float s1 = d1[0] + d1[1] + d1[2] + d1[3] + d1[4] + d1[5];
	float s2 = d2[0] + d2[1] + d2[2] + d2[3] + d2[4] + d2[5];
	float lap = -7.5f * c + (4.0f / 3.0f) * s1 - (1.0f / 12.0f) * s2;

	return 2.0f * c - prev + c2 * lap;
}

/*
 * OPS: the index, gpu and the three coordinates (INT 6), the interior
 * test (INT 6, BRANCH 1); inside: the neighbours' offsets (INT 12), the
 * update (FP 15); the two halo tests (INT 4, BRANCH 2).
 */
static void eq_kernel(struct simt_thread *t, const void *p)
{
	const struct eq_args *a = p;
	uint64_t i = simt_global_x(t), nn = (uint64_t)a->n * a->n;
	uint32_t gpu = simt_block_idx(t).x / a->blocks;
	uint32_t x = (uint32_t)(i % a->n), y = (uint32_t)(i / a->n % a->n);
	uint32_t z = (uint32_t)(i / nn), lo = EQ_HALO, hi = a->n - EQ_HALO;
	uint64_t off = gpu * a->stride, cur = a->cur + off;
	uint64_t next = a->next + off;
	float v = LD(t, float, cur, i);

	OPS(t, PROG_OP_INT, 12);
	OPS(t, PROG_OP_BRANCH, 1);
	if (x >= lo && x < hi && y >= lo && y < hi && z >= lo && z < hi) {
		const uint64_t step[3] = { 1, a->n, nn };
		float d1[6], d2[6];
		int k;

		OPS(t, PROG_OP_INT, 12);
		for (k = 0; k < 3; k++) {
			d1[2 * k] = LD(t, float, cur, i - step[k]);
			d1[2 * k + 1] = LD(t, float, cur, i + step[k]);
			d2[2 * k] = LD(t, float, cur, i - 2 * step[k]);
			d2[2 * k + 1] = LD(t, float, cur, i + 2 * step[k]);
		}
		OPS(t, PROG_OP_FP, 15);
		v = eq_cell(LD(t, float, a->prev + off, i), v,
			    LD(t, float, a->c2, i), d1, d2);
	}
	ST(t, float, next, i, v);
	OPS(t, PROG_OP_INT, 4);
	OPS(t, PROG_OP_BRANCH, 2);
	if (gpu > 0 && z < gpu * a->planes + EQ_HALO)
		ST(t, float, next - a->stride, i, v);
	if (gpu < FP_GPUS - 1 && z >= (gpu + 1) * a->planes - EQ_HALO)
		ST(t, float, next + a->stride, i, v);
}

/* One step on the host. */
static void eq_ref(const float *c2, const float *prev, const float *cur,
		   float *next, uint32_t n)
{
	uint64_t nn = (uint64_t)n * n, i;
	const uint64_t step[3] = { 1, n, nn };

	for (i = 0; i < nn * n; i++) {
		uint32_t x = (uint32_t)(i % n), y = (uint32_t)(i / n % n);
		uint32_t z = (uint32_t)(i / nn);
		float d1[6], d2[6];
		int k;

		next[i] = cur[i];
		if (x < EQ_HALO || x >= n - EQ_HALO || y < EQ_HALO ||
		    y >= n - EQ_HALO || z < EQ_HALO || z >= n - EQ_HALO)
			continue;
		for (k = 0; k < 3; k++) {
			d1[2 * k] = cur[i - step[k]];
			d1[2 * k + 1] = cur[i + step[k]];
			d2[2 * k] = cur[i - 2 * step[k]];
			d2[2 * k + 1] = cur[i + 2 * step[k]];
		}
		next[i] = eq_cell(prev[i], cur[i], c2[i], d1, d2);
	}
}

static int eq_run(struct simt_gpu *gpu, uint64_t size, uint64_t seed,
		  char *err, size_t errlen)
{
	const char *app = "eqwp";
	uint64_t n = size * size * size, d_u[3], d_c2, lo[FP_GPUS];
	uint64_t hi[FP_GPUS], plane = size * size;
	float *c2 = NULL, *u0 = NULL, *lvl[3] = { NULL }, *got = NULL, *tmp;
	static const char *const names[3] = { "u0", "u1", "u2" };
	struct eq_args args;
	struct app_rng rng;
	int ret, it, g, k;
	uint64_t i;

	ret = app_size_range(size, 32, 512, "the volume's side", app, err,
			     errlen);
	if (ret)
		return ret;
	if (size % 32)
		return app_err(err, errlen, app,
			       "size %llu: the volume's side must be a multiple of 32",
			       (unsigned long long)size), -EINVAL;
	c2 = malloc(n * sizeof(float));
	u0 = malloc(n * sizeof(float));
	for (k = 0; k < 3; k++)
		lvl[k] = malloc(n * sizeof(float));
	ret = -ENOMEM;
	if (!c2 || !u0 || !lvl[0] || !lvl[1] || !lvl[2]) {
		app_err(err, errlen, app, "out of memory");
		goto out;
	}
	app_rng_init(&rng, seed, 92);
	for (i = 0; i < n; i++)
		c2[i] = 0.05f + 0.1f * app_rng_float(&rng);
	app_rng_fill_float(&rng, u0, n, 1.0f);

	ret = app_alloc(gpu, n * sizeof(float), "c2", &d_c2, app, err,
			errlen);
	for (k = 0; k < 3 && !ret; k++)
		ret = fp_alloc(gpu, n, sizeof(float), u0, names[k], &d_u[k],
			       app, err, errlen);
	if (ret)
		goto out;
	simt_h2d(gpu, d_c2, c2, n * sizeof(float));
	args.c2 = d_c2;
	args.n = (uint32_t)size;
	args.planes = (uint32_t)size / FP_GPUS;
	args.blocks = (uint32_t)(n / FP_GPUS / EQ_BLOCK);
	args.stride = fp_stride(n, sizeof(float)) * sizeof(float);
	for (it = 0; it < EQ_STEPS; it++) {
		args.prev = d_u[it % 3];
		args.cur = d_u[(it + 1) % 3];
		args.next = d_u[(it + 2) % 3];
		ret = app_launch(gpu, "eqwp_step", eq_kernel,
				 DIM3(FP_GPUS * args.blocks, 1, 1),
				 DIM3(EQ_BLOCK, 1, 1), 0, &args, app, err,
				 errlen);
		if (ret)
			goto out;
	}
	got = fp_fetch(gpu, d_u[(EQ_STEPS + 1) % 3], n, sizeof(float));
	ret = -ENOMEM;
	if (!got) {
		app_err(err, errlen, app, "out of memory");
		goto out;
	}

	memcpy(lvl[0], u0, n * sizeof(float));
	memcpy(lvl[1], u0, n * sizeof(float));
	for (it = 0; it < EQ_STEPS; it++) {
		eq_ref(c2, lvl[0], lvl[1], lvl[2], args.n);
		tmp = lvl[0];
		lvl[0] = lvl[1];
		lvl[1] = lvl[2];
		lvl[2] = tmp;
	}
	for (g = 0; g < FP_GPUS; g++) {
		lo[g] = g ? ((uint64_t)g * args.planes - EQ_HALO) * plane : 0;
		hi[g] = g < FP_GPUS - 1 ?
			((uint64_t)(g + 1) * args.planes + EQ_HALO) * plane : n;
	}
	ret = fp_check_f32(got, n, lvl[1], u0, lo, hi, app, "u", err, errlen);
out:
	free(c2);
	free(u0);
	for (k = 0; k < 3; k++)
		free(lvl[k]);
	free(got);
	return ret;
}

const struct app_desc app_fp_eqwp = {
	.name = "eqwp",
	.suite = "FinePack §V (EQWP, Tartan; nearest public scheme)",
	.summary = "10 leapfrog steps of the 3D acoustic wave equation with "
		   "4th-order differences, 4 GPUs by z slabs, the time levels "
		   "replicated, 2 edge planes stored into each neighbour's "
		   "replica (P2P halo)",
	.input = "size = n, a multiple of 32: an n^3 volume, (c dt / h)^2 "
		 "uniform in [0.05, 0.15) and the starting field in [0, 1) "
		 "from the seed, at rest",
	.small_size = 32,
	.large_size = 64,
	.kernels = "eqwp_step",
	.paper_sizes = "FinePack §V: Tartan's EQWP (no size given) = any "
		       "size; large 64 (64^3 cells)",
	.run = eq_run,
};
