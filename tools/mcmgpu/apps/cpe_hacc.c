// SPDX-License-Identifier: GPL-2.0
/*
 * hacc (CPElide's Table II, HACC): CORAL-2 HACC's short-range force
 * test (ForceTreeTest with an RCB tree). The host sorts the particles
 * into a recursive-coordinate-bisection tree (split at the median of the
 * longest side of each box until a box holds at most 12 particles, the
 * leaves' particles contiguous in tree order, as HACC reorders them) and
 * lists for each leaf every leaf whose box lies within the cutoff of
 * its own. Each time step launches shortRangeForce (a thread a
 * particle, blocks of 256, walking its leaf's interaction list and each
 * listed leaf's particles: within the cutoff it adds m (r^2 + rsm^2)^-3/2
 * minus HACC's fifth-order polynomial in r^2 times the separation), kick
 * (v += dt a) and stream (x += dt v). Positions are checked against the
 * same steps on the host, in the same order.
 *
 * Ours, where the test's arguments are silent to us: we read Table II's
 * "0.5 0.1 512 0.1 2 N 12 rcb" as 512 particles, softening 0.1, time
 * step 0.1, 2 steps, leaf size 12, RCB tree; the cutoff is 1 and the
 * density puts 32 particles on average within it; the tree and lists
 * are built once, from the initial positions (HACC rebuilds them every
 * long-range step); the polynomial's coefficients are of HACC's form
 * (a fit to the grid force) with values of our own.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "app_util.h"
#include "apps.h"

#define HACC_BLOCK	256
#define HACC_LEAF	12
#define HACC_STEPS	2
#define HACC_MAX	(1 << 20)
#define HACC_CUT2	1.0f
#define HACC_RSM2	0.01f
#define HACC_DT		0.1f
#define HACC_PER_CUT	32.0	/* particles within the cutoff's sphere */

struct hacc_args {
	uint64_t x[3], v[3], a[3];
	uint64_t leaf_of, leaf_start, list_row, list_col;
	uint32_t n;
	float mass;
};

/* The pair force's scale at r2: m ((r2 + rsm2)^-3/2 - poly5(r2)). */
static inline float hacc_pair(float r2, float mass)
{
	float s = 1.0f / sqrtf(r2 + HACC_RSM2);
	float poly = 0.2637f + r2 * (-0.0686f + r2 * (0.00882f + r2 *
		     (-0.000592f + r2 * (1.85e-05f + r2 * -1.62e-07f))));

	return mass * (s * s * s - poly);
}

/*
 * OPS: the index and bounds (INT 2, BRANCH 1); a list entry: the leaf's
 * range (INT 1), the list loop (INT 2, BRANCH 1); a particle: the
 * separation and r^2 (FP 6), the cutoff test (FP 1, BRANCH 1), the pair
 * force (FP 9: two adds, three multiplies, five FFMAs less the fold;
 * SFU 1 for the reciprocal square root) and the three sums (FP 3), the
 * loop (INT 2, BRANCH 1); the three stores' scaling (none).
 */
static void hacc_force_kernel(struct simt_thread *t, const void *p)
{
	const struct hacc_args *a = p;
	uint64_t i = simt_global_x(t);
	uint32_t leaf, l, lend, j, jend;
	float xi, yi, zi, fx = 0, fy = 0, fz = 0;

	OPS(t, PROG_OP_INT, 2);
	OPS(t, PROG_OP_BRANCH, 1);
	if (i >= a->n)
		return;
	xi = LD(t, float, a->x[0], i);
	yi = LD(t, float, a->x[1], i);
	zi = LD(t, float, a->x[2], i);
	leaf = LD(t, uint32_t, a->leaf_of, i);
	l = LD(t, uint32_t, a->list_row, leaf);
	lend = LD(t, uint32_t, a->list_row, leaf + 1);
	for (; l < lend; l++) {
		uint32_t other = LD(t, uint32_t, a->list_col, l);

		j = LD(t, uint32_t, a->leaf_start, other);
		jend = LD(t, uint32_t, a->leaf_start, other + 1);
		OPS(t, PROG_OP_INT, 1);
		for (; j < jend; j++) {
			float dx = LD(t, float, a->x[0], j) - xi;
			float dy = LD(t, float, a->x[1], j) - yi;
			float dz = LD(t, float, a->x[2], j) - zi;
			float r2 = dx * dx + dy * dy + dz * dz;

			OPS(t, PROG_OP_FP, 7);
			OPS(t, PROG_OP_BRANCH, 1);
			if (r2 < HACC_CUT2) {
				float f = hacc_pair(r2, a->mass);

				OPS(t, PROG_OP_FP, 12);
				OPS(t, PROG_OP_SFU, 1);
				fx += f * dx;
				fy += f * dy;
				fz += f * dz;
			}
			OPS(t, PROG_OP_INT, 2);
			OPS(t, PROG_OP_BRANCH, 1);
		}
		OPS(t, PROG_OP_INT, 2);
		OPS(t, PROG_OP_BRANCH, 1);
	}
	ST(t, float, a->a[0], i, fx);
	ST(t, float, a->a[1], i, fy);
	ST(t, float, a->a[2], i, fz);
}

/* OPS: the index and bounds (INT 2, BRANCH 1), three FFMAs (FP 3). */
static void hacc_kick_kernel(struct simt_thread *t, const void *p)
{
	const struct hacc_args *a = p;
	uint64_t i = simt_global_x(t);
	int d;

	OPS(t, PROG_OP_INT, 2);
	OPS(t, PROG_OP_BRANCH, 1);
	if (i >= a->n)
		return;
	OPS(t, PROG_OP_FP, 3);
	for (d = 0; d < 3; d++)
		ST(t, float, a->v[d], i, LD(t, float, a->v[d], i) +
		   HACC_DT * LD(t, float, a->a[d], i));
}

static void hacc_stream_kernel(struct simt_thread *t, const void *p)
{
	const struct hacc_args *a = p;
	uint64_t i = simt_global_x(t);
	int d;

	OPS(t, PROG_OP_INT, 2);
	OPS(t, PROG_OP_BRANCH, 1);
	if (i >= a->n)
		return;
	OPS(t, PROG_OP_FP, 3);
	for (d = 0; d < 3; d++)
		ST(t, float, a->x[d], i, LD(t, float, a->x[d], i) +
		   HACC_DT * LD(t, float, a->v[d], i));
}

struct hacc_tree {
	float *pos[3];			/* n each, in tree order */
	uint32_t *leaf_of, *leaf_start, *list_row, *list_col;
	float (*lo)[3], (*hi)[3];	/* each leaf's box */
	uint32_t leaves, list_len, list_cap;
};

/* A particle's coordinate on the split axis, and the particle. */
struct hacc_key {
	float v;
	uint32_t idx;
};

static int hacc_cmp(const void *l, const void *r)
{
	const struct hacc_key *a = l, *b = r;

	if (a->v != b->v)
		return a->v < b->v ? -1 : 1;
	return a->idx < b->idx ? -1 : 1;
}

/* RCB: split idx[0..cnt) at the median of its box's longest side. */
static int hacc_rcb(struct hacc_tree *tr, const float *xyz, uint32_t *idx,
		    uint32_t first, uint32_t cnt)
{
	struct hacc_key *key;
	float lo[3], hi[3];
	uint32_t i, d, axis = 0;

	for (d = 0; d < 3; d++) {
		lo[d] = hi[d] = xyz[idx[0] * 3 + d];
		for (i = 1; i < cnt; i++) {
			float v = xyz[idx[i] * 3 + d];

			lo[d] = v < lo[d] ? v : lo[d];
			hi[d] = v > hi[d] ? v : hi[d];
		}
		if (hi[d] - lo[d] > hi[axis] - lo[axis])
			axis = d;
	}
	if (cnt <= HACC_LEAF) {
		tr->leaf_start[tr->leaves] = first;
		memcpy(tr->lo[tr->leaves], lo, sizeof(lo));
		memcpy(tr->hi[tr->leaves], hi, sizeof(hi));
		for (i = 0; i < cnt; i++)
			tr->leaf_of[first + i] = tr->leaves;
		tr->leaves++;
		return 0;
	}
	key = malloc((size_t)cnt * sizeof(*key));
	if (!key)
		return -ENOMEM;
	for (i = 0; i < cnt; i++) {
		key[i].v = xyz[idx[i] * 3 + axis];
		key[i].idx = idx[i];
	}
	qsort(key, cnt, sizeof(*key), hacc_cmp);
	for (i = 0; i < cnt; i++)
		idx[i] = key[i].idx;
	free(key);
	if (hacc_rcb(tr, xyz, idx, first, cnt / 2))
		return -ENOMEM;
	return hacc_rcb(tr, xyz, idx + cnt / 2, first + cnt / 2,
			cnt - cnt / 2);
}

/* The squared gap between two leaves' boxes. */
static float hacc_gap2(const struct hacc_tree *tr, uint32_t a, uint32_t b)
{
	float g2 = 0;
	int d;

	for (d = 0; d < 3; d++) {
		float g = tr->lo[b][d] - tr->hi[a][d];

		if (tr->lo[a][d] - tr->hi[b][d] > g)
			g = tr->lo[a][d] - tr->hi[b][d];
		if (g > 0)
			g2 += g * g;
	}
	return g2;
}

static int hacc_build(struct hacc_tree *tr, const float *xyz, uint32_t n)
{
	uint32_t *idx = malloc((size_t)n * sizeof(*idx));
	uint32_t i, j, d;
	int ret = -ENOMEM;

	for (d = 0; d < 3; d++)
		tr->pos[d] = malloc((size_t)n * sizeof(float));
	tr->leaf_of = malloc((size_t)n * sizeof(uint32_t));
	tr->leaf_start = malloc(((size_t)n + 1) * sizeof(uint32_t));
	tr->list_row = malloc(((size_t)n + 1) * sizeof(uint32_t));
	tr->lo = malloc((size_t)n * sizeof(*tr->lo));
	tr->hi = malloc((size_t)n * sizeof(*tr->hi));
	if (!idx || !tr->pos[0] || !tr->pos[1] || !tr->pos[2] ||
	    !tr->leaf_of || !tr->leaf_start || !tr->list_row || !tr->lo ||
	    !tr->hi)
		goto out;
	for (i = 0; i < n; i++)
		idx[i] = i;
	tr->leaves = 0;
	if (hacc_rcb(tr, xyz, idx, 0, n))
		goto out;
	tr->leaf_start[tr->leaves] = n;
	for (i = 0; i < n; i++)
		for (d = 0; d < 3; d++)
			tr->pos[d][i] = xyz[idx[i] * 3 + d];
	for (i = 0; i < tr->leaves; i++) {
		tr->list_row[i] = tr->list_len;
		for (j = 0; j < tr->leaves; j++) {
			if (hacc_gap2(tr, i, j) >= HACC_CUT2)
				continue;
			if (tr->list_len == tr->list_cap) {
				uint32_t cap = tr->list_cap ?
					       2 * tr->list_cap : 1024;
				uint32_t *c = realloc(tr->list_col,
						      cap * sizeof(*c));

				if (!c)
					goto out;
				tr->list_col = c;
				tr->list_cap = cap;
			}
			tr->list_col[tr->list_len++] = j;
		}
	}
	tr->list_row[tr->leaves] = tr->list_len;
	ret = 0;
out:
	free(idx);
	return ret;
}

static void hacc_tree_free(struct hacc_tree *tr)
{
	int d;

	for (d = 0; d < 3; d++)
		free(tr->pos[d]);
	free(tr->leaf_of);
	free(tr->leaf_start);
	free(tr->list_row);
	free(tr->list_col);
	free(tr->lo);
	free(tr->hi);
}

/* The same steps on the host: x, v in tree order (3 arrays of n each). */
static void hacc_ref(const struct hacc_tree *tr, uint32_t n, float mass,
		     float *x[3], float *v[3], float *acc[3])
{
	uint32_t s, i, l, j, d;

	for (s = 0; s < HACC_STEPS; s++) {
		for (i = 0; i < n; i++) {
			uint32_t leaf = tr->leaf_of[i];
			float fx = 0, fy = 0, fz = 0;

			for (l = tr->list_row[leaf];
			     l < tr->list_row[leaf + 1]; l++) {
				uint32_t o = tr->list_col[l];

				for (j = tr->leaf_start[o];
				     j < tr->leaf_start[o + 1]; j++) {
					float dx = x[0][j] - x[0][i];
					float dy = x[1][j] - x[1][i];
					float dz = x[2][j] - x[2][i];
					float r2 = dx * dx + dy * dy + dz * dz;
					float f;

					if (!(r2 < HACC_CUT2))
						continue;
					f = hacc_pair(r2, mass);
					fx += f * dx;
					fy += f * dy;
					fz += f * dz;
				}
			}
			acc[0][i] = fx;
			acc[1][i] = fy;
			acc[2][i] = fz;
		}
		for (d = 0; d < 3; d++)
			for (i = 0; i < n; i++)
				v[d][i] = v[d][i] + HACC_DT * acc[d][i];
		for (d = 0; d < 3; d++)
			for (i = 0; i < n; i++)
				x[d][i] = x[d][i] + HACC_DT * v[d][i];
	}
}

static int hacc_run(struct simt_gpu *gpu, uint64_t size, uint64_t seed,
		    char *err, size_t errlen)
{
	static const char *const xname[3] = { "xx", "yy", "zz" };
	static const char *const vname[3] = { "vx", "vy", "vz" };
	static const char *const aname[3] = { "ax", "ay", "az" };
	const char *app = "hacc";
	const uint32_t n = (uint32_t)size;
	const uint64_t bytes = size * sizeof(float);
	struct simt_dim3 grid, block = DIM3(HACC_BLOCK, 1, 1);
	float *xyz = NULL, *v[3] = { 0 }, *acc[3] = { 0 }, *got = NULL;
	struct hacc_tree tr;
	struct hacc_args args;
	struct app_rng rng;
	uint32_t i, s;
	float side;
	int ret, d;

	ret = app_size_range(size, 2 * HACC_LEAF, HACC_MAX, "the particles",
			     app, err, errlen);
	if (ret)
		return ret;
	memset(&tr, 0, sizeof(tr));
	xyz = malloc((size_t)n * 3 * sizeof(float));
	got = malloc(bytes);
	for (d = 0; d < 3; d++) {
		v[d] = calloc(n, sizeof(float));
		acc[d] = calloc(n, sizeof(float));
	}
	ret = -ENOMEM;
	if (!xyz || !got || !v[0] || !v[1] || !v[2] || !acc[0] || !acc[1] ||
	    !acc[2]) {
		app_err(err, errlen, app, "out of memory");
		goto out;
	}
	/* Uniform in a cube holding HACC_PER_CUT particles a unit sphere. */
	side = (float)cbrt(size * (4.0 / 3.0 * M_PI) / HACC_PER_CUT);
	app_rng_init(&rng, seed, 72);
	for (i = 0; i < 3 * n; i++)
		xyz[i] = side * app_rng_float(&rng);
	ret = hacc_build(&tr, xyz, n);
	if (ret) {
		app_err(err, errlen, app, "out of memory");
		goto out;
	}
	memset(&args, 0, sizeof(args));
	args.n = n;
	args.mass = 1.0f / HACC_PER_CUT;
	grid = DIM3(app_blocks(n, HACC_BLOCK), 1, 1);

	for (d = 0; d < 3 && !ret; d++) {
		ret = app_alloc(gpu, bytes, xname[d], &args.x[d], app, err,
				errlen);
		if (!ret)
			ret = app_alloc(gpu, bytes, vname[d], &args.v[d], app,
					err, errlen);
		if (!ret)
			ret = app_alloc(gpu, bytes, aname[d], &args.a[d], app,
					err, errlen);
	}
	if (!ret)
		ret = app_alloc(gpu, bytes, "leaf_of", &args.leaf_of, app, err,
				errlen);
	if (!ret)
		ret = app_alloc(gpu, ((uint64_t)tr.leaves + 1) * 4,
				"leaf_start", &args.leaf_start, app, err,
				errlen);
	if (!ret)
		ret = app_alloc(gpu, ((uint64_t)tr.leaves + 1) * 4,
				"list_row", &args.list_row, app, err, errlen);
	if (!ret)
		ret = app_alloc(gpu, (uint64_t)tr.list_len * 4, "list_col",
				&args.list_col, app, err, errlen);
	if (ret)
		goto out;
	for (d = 0; d < 3; d++) {
		simt_h2d(gpu, args.x[d], tr.pos[d], bytes);
		simt_h2d(gpu, args.v[d], v[d], bytes);
	}
	simt_h2d(gpu, args.leaf_of, tr.leaf_of, bytes);
	simt_h2d(gpu, args.leaf_start, tr.leaf_start,
		 ((uint64_t)tr.leaves + 1) * 4);
	simt_h2d(gpu, args.list_row, tr.list_row,
		 ((uint64_t)tr.leaves + 1) * 4);
	simt_h2d(gpu, args.list_col, tr.list_col, (uint64_t)tr.list_len * 4);
	for (s = 0; s < HACC_STEPS; s++) {
		ret = app_launch(gpu, "shortRangeForce", hacc_force_kernel,
				 grid, block, 0, &args, app, err, errlen);
		if (!ret)
			ret = app_launch(gpu, "kick", hacc_kick_kernel, grid,
					 block, 0, &args, app, err, errlen);
		if (!ret)
			ret = app_launch(gpu, "stream", hacc_stream_kernel,
					 grid, block, 0, &args, app, err,
					 errlen);
		if (ret)
			goto out;
	}
	hacc_ref(&tr, n, args.mass, tr.pos, v, acc);
	for (d = 0; d < 3 && !ret; d++) {
		simt_d2h(gpu, got, args.x[d], bytes);
		if (d == 1)
			app_test_perturb(got, sizeof(*got), n);
		ret = app_check_f32(got, tr.pos[d], n, APP_FLOAT_TOLERANCE,
				    app, xname[d], err, errlen);
	}
out:
	hacc_tree_free(&tr);
	free(xyz);
	free(got);
	for (d = 0; d < 3; d++) {
		free(v[d]);
		free(acc[d]);
	}
	return ret;
}

const struct app_desc app_hacc = {
	.name = "hacc",
	.suite = "CORAL-2 (HACC, short-range force)",
	.summary = "particle short-range gravity on an RCB tree of leaves of "
		   "at most 12: a time step is shortRangeForce (a thread a "
		   "particle walking its leaf's list of leaves within the "
		   "cutoff, a softened 1/r^2 minus HACC's polynomial), kick "
		   "and stream, blocks of 256, 2 steps",
	.input = "size = particles, uniform in a cube sized for 32 a unit "
		 "cutoff sphere, from the seed, at rest; the host sorts them "
		 "into the tree and lists once. Large: 16384 (ours: Table "
		 "II's 512 particles is 24 KiB of positions)",
	.small_size = 512,
	.large_size = 16384,
	.kernels = "shortRangeForce, kick, stream",
	.paper_sizes = "CPElide Table II: 0.5 0.1 512 0.1 2 N 12 rcb, read "
		       "as 512 particles, 2 steps, leaves of 12, RCB = size "
		       "512 (the small size); large 16384 is ours",
	.run = hacc_run,
};
