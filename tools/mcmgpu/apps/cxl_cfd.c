// SPDX-License-Identifier: GPL-2.0
/*
 * cfd (CXL-GPU's workload table): Rodinia's cfd (euler3d), a finite-
 * volume solver of the 3-D Euler equations on an unstructured mesh of
 * elements with four faces each, variables stored as structures of
 * arrays (density, momentum x, y, z, density energy; element i of
 * variable v at i + v nelr). An iteration: the old variables are copied,
 * compute_step_factor gives each element its local time step, then for
 * each of the three Runge-Kutta stages compute_flux sums each element's
 * fluxes over its faces (a neighbour's variables, artificial viscosity;
 * a wing face adds pressure, a far-field face the free stream's flux)
 * and time_step advances the variables from the old ones. Every kernel
 * is a thread an element in blocks of 192 (BLOCK_SIZE_0 .. 4).
 *
 * Rodinia copies the old variables with a device-to-device cudaMemcpy;
 * the executor has no such copy, so a copy kernel (a thread an element)
 * does it. The free stream's values, in constant memory in Rodinia, are
 * kernel arguments here. Rodinia runs 2000 iterations of its read mesh;
 * we run 3 on a generated one (see the input).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "app_util.h"
#include "apps.h"

#define CFD_BLOCK	192
#define CFD_NNB		4
#define CFD_NVAR	5
#define CFD_RK		3
#define CFD_ITERS	3
#define CFD_WIDTH	64		/* the generated mesh's rows */
#define CFD_MAX		(1ULL << 24)
#define CFD_GAMMA	1.4f
#define CFD_SMOOTHING	0.2f
#define CFD_FF_MACH	1.2f

enum { V_DENSITY, V_MX, V_MY, V_MZ, V_ENERGY };

struct cfd_vec {
	float x, y, z;
};

/* A cell's state and what the kernels derive from it. */
struct cfd_cell {
	float density, energy;
	struct cfd_vec mom, vel;
	float speed_sqd, pressure, sound;
	struct cfd_vec fc_mx, fc_my, fc_mz, fc_de;	/* flux contributions */
};

struct cfd_args {
	uint64_t vars, old, fluxes, step, areas, nbs, normals;
	uint32_t nelr, stage;
	struct cfd_cell ff;		/* the free stream (Rodinia: constant) */
};

/*
 * compute_velocity, compute_speed_sqd, compute_pressure,
 * compute_speed_of_sound and compute_flux_contribution, as Rodinia
 * writes them. Kernel and reference both call it, so both compute in
 * the same order. OPS: 3 divisions (SFU 3, FP 3), the square (FP 3),
 * the pressure (FP 3), the speed of sound (FP 2, SFU 2: a division and
 * a square root), the contributions (FP 13).
 */
#define CFD_DERIVE_FP	24
#define CFD_DERIVE_SFU	5
static void cfd_derive(struct cfd_cell *c)
{
	float de_p;

	c->vel.x = c->mom.x / c->density;
	c->vel.y = c->mom.y / c->density;
	c->vel.z = c->mom.z / c->density;
	c->speed_sqd = c->vel.x * c->vel.x + c->vel.y * c->vel.y +
		       c->vel.z * c->vel.z;
	c->pressure = (CFD_GAMMA - 1.0f) *
		      (c->energy - 0.5f * c->density * c->speed_sqd);
	c->sound = sqrtf(CFD_GAMMA * c->pressure / c->density);
	c->fc_mx.x = c->vel.x * c->mom.x + c->pressure;
	c->fc_mx.y = c->vel.x * c->mom.y;
	c->fc_mx.z = c->vel.x * c->mom.z;
	c->fc_my.x = c->fc_mx.y;
	c->fc_my.y = c->vel.y * c->mom.y + c->pressure;
	c->fc_my.z = c->vel.y * c->mom.z;
	c->fc_mz.x = c->fc_mx.z;
	c->fc_mz.y = c->fc_my.z;
	c->fc_mz.z = c->vel.z * c->mom.z + c->pressure;
	de_p = c->energy + c->pressure;
	c->fc_de.x = c->vel.x * de_p;
	c->fc_de.y = c->vel.y * de_p;
	c->fc_de.z = c->vel.z * de_p;
}

/* An element's five fluxes: density, momentum x, y, z, energy. */
struct cfd_flux {
	float f[CFD_NVAR];
};

/* The cell-centred flux through one face: factor = 0.5 normal's axis. */
static void cfd_centred(struct cfd_flux *fl, float factor, float mom_nb,
			float mom_i, float de_nb, float de_i, float mx_nb,
			float mx_i, float my_nb, float my_i, float mz_nb,
			float mz_i)
{
	fl->f[V_DENSITY] += factor * (mom_nb + mom_i);
	fl->f[V_ENERGY] += factor * (de_nb + de_i);
	fl->f[V_MX] += factor * (mx_nb + mx_i);
	fl->f[V_MY] += factor * (my_nb + my_i);
	fl->f[V_MZ] += factor * (mz_nb + mz_i);
}

/* A face to another element: viscosity, then the centred flux. */
#define CFD_FACE_FP	(3 + 6 + 10 + 3 * 11)
#define CFD_FACE_SFU	2
static void cfd_face(struct cfd_flux *fl, const struct cfd_cell *i,
		     const struct cfd_cell *nb, struct cfd_vec n,
		     float normal_len)
{
	float factor = -normal_len * CFD_SMOOTHING * 0.5f *
		       (sqrtf(i->speed_sqd) + sqrtf(nb->speed_sqd) +
			i->sound + nb->sound);

	fl->f[V_DENSITY] += factor * (i->density - nb->density);
	fl->f[V_ENERGY] += factor * (i->energy - nb->energy);
	fl->f[V_MX] += factor * (i->mom.x - nb->mom.x);
	fl->f[V_MY] += factor * (i->mom.y - nb->mom.y);
	fl->f[V_MZ] += factor * (i->mom.z - nb->mom.z);
	cfd_centred(fl, 0.5f * n.x, nb->mom.x, i->mom.x, nb->fc_de.x,
		    i->fc_de.x, nb->fc_mx.x, i->fc_mx.x, nb->fc_my.x,
		    i->fc_my.x, nb->fc_mz.x, i->fc_mz.x);
	cfd_centred(fl, 0.5f * n.y, nb->mom.y, i->mom.y, nb->fc_de.y,
		    i->fc_de.y, nb->fc_mx.y, i->fc_mx.y, nb->fc_my.y,
		    i->fc_my.y, nb->fc_mz.y, i->fc_mz.y);
	cfd_centred(fl, 0.5f * n.z, nb->mom.z, i->mom.z, nb->fc_de.z,
		    i->fc_de.z, nb->fc_mx.z, i->fc_mx.z, nb->fc_my.z,
		    i->fc_my.z, nb->fc_mz.z, i->fc_mz.z);
}

/* A wing face adds pressure (FP 3); a far-field face the free stream's. */
static void cfd_wing(struct cfd_flux *fl, const struct cfd_cell *i,
		     struct cfd_vec n)
{
	fl->f[V_MX] += n.x * i->pressure;
	fl->f[V_MY] += n.y * i->pressure;
	fl->f[V_MZ] += n.z * i->pressure;
}

#define CFD_FAR_FP	(3 * 11)
static void cfd_far(struct cfd_flux *fl, const struct cfd_cell *i,
		    const struct cfd_cell *ff, struct cfd_vec n)
{
	cfd_centred(fl, 0.5f * n.x, ff->mom.x, i->mom.x, ff->fc_de.x,
		    i->fc_de.x, ff->fc_mx.x, i->fc_mx.x, ff->fc_my.x,
		    i->fc_my.x, ff->fc_mz.x, i->fc_mz.x);
	cfd_centred(fl, 0.5f * n.y, ff->mom.y, i->mom.y, ff->fc_de.y,
		    i->fc_de.y, ff->fc_mx.y, i->fc_mx.y, ff->fc_my.y,
		    i->fc_my.y, ff->fc_mz.y, i->fc_mz.y);
	cfd_centred(fl, 0.5f * n.z, ff->mom.z, i->mom.z, ff->fc_de.z,
		    i->fc_de.z, ff->fc_mx.z, i->fc_mx.z, ff->fc_my.z,
		    i->fc_my.z, ff->fc_mz.z, i->fc_mz.z);
}

static float cfd_step_factor(const struct cfd_cell *c, float area)
{
	return 0.5f / (sqrtf(area) * (sqrtf(c->speed_sqd) + c->sound));
}

/* A cell's five variables from an array of variables. */
#define CFD_LOAD_CELL(t, base, nelr, e, c) do {				\
	(c)->density = LD(t, float, base, (e) + V_DENSITY * (nelr));	\
	(c)->mom.x = LD(t, float, base, (e) + V_MX * (nelr));		\
	(c)->mom.y = LD(t, float, base, (e) + V_MY * (nelr));		\
	(c)->mom.z = LD(t, float, base, (e) + V_MZ * (nelr));		\
	(c)->energy = LD(t, float, base, (e) + V_ENERGY * (nelr));	\
} while (0)

/*
 * OPS: the index (INT 1), the cell's derived values (FP 24, SFU 5), the
 * step factor (FP 3, SFU 3: two square roots and the division).
 */
static void step_factor_kernel(struct simt_thread *t, const void *p)
{
	const struct cfd_args *a = p;
	uint64_t i = simt_global_x(t);
	struct cfd_cell c;
	float area;

	OPS(t, PROG_OP_INT, 1);
	CFD_LOAD_CELL(t, a->vars, a->nelr, i, &c);
	cfd_derive(&c);
	OPS(t, PROG_OP_FP, CFD_DERIVE_FP);
	OPS(t, PROG_OP_SFU, CFD_DERIVE_SFU);
	area = LD(t, float, a->areas, i);
	OPS(t, PROG_OP_FP, 3);
	OPS(t, PROG_OP_SFU, 3);
	ST(t, float, a->step, i, cfd_step_factor(&c, area));
}

/*
 * OPS: the index (INT 1), the cell's derived values (FP 24, SFU 5); a
 * face: the normal's length (FP 3, SFU 1), the neighbour's kind (INT 1,
 * BRANCH 1; INT 1, BRANCH 1 more past the first), then an element's
 * derived values and the face (FP 24 + 52, SFU 5 + 2), a wing's FP 3 or
 * a far field's FP 33; the loop (INT 2, BRANCH 1).
 */
static void flux_kernel(struct simt_thread *t, const void *p)
{
	const struct cfd_args *a = p;
	const uint32_t nelr = a->nelr;
	uint64_t i = simt_global_x(t);
	struct cfd_flux fl = { { 0 } };
	struct cfd_cell ci, cn;
	uint32_t j, v;

	OPS(t, PROG_OP_INT, 1);
	CFD_LOAD_CELL(t, a->vars, nelr, i, &ci);
	cfd_derive(&ci);
	OPS(t, PROG_OP_FP, CFD_DERIVE_FP);
	OPS(t, PROG_OP_SFU, CFD_DERIVE_SFU);
	for (j = 0; j < CFD_NNB; j++) {
		int32_t nb = LD(t, int32_t, a->nbs, i + j * nelr);
		struct cfd_vec n;
		float len;

		n.x = LD(t, float, a->normals, i + (j + 0 * CFD_NNB) * nelr);
		n.y = LD(t, float, a->normals, i + (j + 1 * CFD_NNB) * nelr);
		n.z = LD(t, float, a->normals, i + (j + 2 * CFD_NNB) * nelr);
		OPS(t, PROG_OP_FP, 3);
		OPS(t, PROG_OP_SFU, 1);
		len = sqrtf(n.x * n.x + n.y * n.y + n.z * n.z);
		OPS(t, PROG_OP_INT, 1);
		OPS(t, PROG_OP_BRANCH, 1);
		if (nb >= 0) {
			CFD_LOAD_CELL(t, a->vars, nelr, (uint32_t)nb, &cn);
			cfd_derive(&cn);
			OPS(t, PROG_OP_FP, CFD_DERIVE_FP + CFD_FACE_FP);
			OPS(t, PROG_OP_SFU, CFD_DERIVE_SFU + CFD_FACE_SFU);
			cfd_face(&fl, &ci, &cn, n, len);
		} else {
			OPS(t, PROG_OP_INT, 1);
			OPS(t, PROG_OP_BRANCH, 1);
			if (nb == -1) {
				OPS(t, PROG_OP_FP, 3);
				cfd_wing(&fl, &ci, n);
			} else if (nb == -2) {
				OPS(t, PROG_OP_FP, CFD_FAR_FP);
				cfd_far(&fl, &ci, &a->ff, n);
			}
		}
		OPS(t, PROG_OP_INT, 2);
		OPS(t, PROG_OP_BRANCH, 1);
	}
	for (v = 0; v < CFD_NVAR; v++)
		ST(t, float, a->fluxes, i + v * nelr, fl.f[v]);
}

/*
 * OPS: the index (INT 1), the factor (SFU 1, FP 1: a division by the
 * stage's constant), an FFMA a variable (FP 5).
 */
static void time_step_kernel(struct simt_thread *t, const void *p)
{
	const struct cfd_args *a = p;
	uint64_t i = simt_global_x(t);
	float factor;
	uint32_t v;

	OPS(t, PROG_OP_INT, 1);
	OPS(t, PROG_OP_SFU, 1);
	OPS(t, PROG_OP_FP, 1);
	factor = LD(t, float, a->step, i) / (float)(CFD_RK + 1 - a->stage);
	for (v = 0; v < CFD_NVAR; v++) {
		float old = LD(t, float, a->old, i + v * a->nelr);
		float flux = LD(t, float, a->fluxes, i + v * a->nelr);

		OPS(t, PROG_OP_FP, 1);
		ST(t, float, a->vars, i + v * a->nelr, old + factor * flux);
	}
}

/* The device-to-device copy of the variables. OPS: the index (INT 1). */
static void copy_kernel(struct simt_thread *t, const void *p)
{
	const struct cfd_args *a = p;
	uint64_t i = simt_global_x(t);
	uint32_t v;

	OPS(t, PROG_OP_INT, 1);
	for (v = 0; v < CFD_NVAR; v++)
		ST(t, float, a->old, i + v * a->nelr,
		   LD(t, float, a->vars, i + v * a->nelr));
}

/* The host's mesh and the reference's state. */
struct cfd_mesh {
	uint32_t nelr;
	int32_t *nbs;
	float *normals, *areas;
};

static float cfd_unit(struct app_rng *r, float lo, float hi)
{
	return lo + (hi - lo) * app_rng_float(r);
}

/*
 * The generated mesh: nelr elements on a CFD_WIDTH x (nelr / CFD_WIDTH)
 * lattice, periodic along its rows; faces to the row's two neighbours
 * and to the rows above and below; the bottom row's lower face is the
 * wing (-1), the top row's upper face the far field (-2). The labels
 * are shuffled within each window of 192 (a mesh generator's numbering
 * is local but not regular). A face's normal points along its axis with
 * a random length in [0.5, 1.5) and random tilts in [-0.2, 0.2), the
 * neighbour's the same negated; areas uniform in [0.5, 1.5).
 */
static int cfd_mesh_make(struct cfd_mesh *m, uint64_t seed)
{
	const uint32_t n = m->nelr, rows = n / CFD_WIDTH;
	uint32_t *label = malloc(n * sizeof(*label)), e, w;
	struct app_rng rng;
	int32_t *nb = m->nbs;

	if (!label)
		return -ENOMEM;
	app_rng_init(&rng, seed, 47);
	for (e = 0; e < n; e++)
		label[e] = e;
	for (w = 0; w < n; w += CFD_BLOCK)
		for (e = CFD_BLOCK - 1; e > 0; e--) {
			uint32_t k = (uint32_t)app_rng_below(&rng, e + 1);
			uint32_t tmp = label[w + e];

			label[w + e] = label[w + k];
			label[w + k] = tmp;
		}
	/* Faces: 0 row +x, 1 row -x, 2 +y (row above), 3 -y. */
	for (e = 0; e < n; e++) {
		uint32_t x = e % CFD_WIDTH, y = e / CFD_WIDTH, me = label[e];

		nb[me + 0 * n] = label[y * CFD_WIDTH + (x + 1) % CFD_WIDTH];
		nb[me + 1 * n] = label[y * CFD_WIDTH +
				       (x + CFD_WIDTH - 1) % CFD_WIDTH];
		nb[me + 2 * n] = y + 1 < rows ?
				 (int32_t)label[e + CFD_WIDTH] : -2;
		nb[me + 3 * n] = y > 0 ? (int32_t)label[e - CFD_WIDTH] : -1;
		m->areas[me] = cfd_unit(&rng, 0.5f, 1.5f);
	}
	/* Each face's normal once, from its +x or +y side. */
	for (e = 0; e < n; e++) {
		uint32_t x = e % CFD_WIDTH, y = e / CFD_WIDTH, me = label[e];
		uint32_t f;

		for (f = 0; f < CFD_NNB; f++) {
			float len = cfd_unit(&rng, 0.5f, 1.5f);
			float t1 = cfd_unit(&rng, -0.2f, 0.2f);
			float t2 = cfd_unit(&rng, -0.2f, 0.2f);
			float d[3];
			uint32_t other, of, k;

			if (f == 1 || (f == 3 && y > 0))
				continue;	/* set from the other side */
			d[0] = f == 0 ? len : t1;
			d[1] = f == 0 ? t1 : f == 2 ? len : -len;
			d[2] = t2;
			for (k = 0; k < 3; k++)
				m->normals[me + (f + k * CFD_NNB) * n] = d[k];
			if (f == 3 || (f == 2 && y + 1 == rows))
				continue;	/* a boundary */
			other = f == 0 ? label[y * CFD_WIDTH +
					       (x + 1) % CFD_WIDTH] :
				label[e + CFD_WIDTH];
			of = f == 0 ? 1 : 3;
			for (k = 0; k < 3; k++)
				m->normals[other + (of + k * CFD_NNB) * n] =
					-d[k];
		}
	}
	free(label);
	return 0;
}

/* Rodinia's free stream: Mach 1.2, no angle of attack. */
static void cfd_free_stream(struct cfd_cell *ff)
{
	float speed;

	memset(ff, 0, sizeof(*ff));
	ff->density = 1.4f;
	ff->pressure = 1.0f;
	ff->sound = sqrtf(CFD_GAMMA * ff->pressure / ff->density);
	speed = CFD_FF_MACH * ff->sound;
	ff->mom.x = ff->density * speed;
	ff->mom.y = 0.0f;
	ff->mom.z = 0.0f;
	ff->energy = ff->density * (0.5f * (speed * speed)) +
		     ff->pressure / (CFD_GAMMA - 1.0f);
	cfd_derive(ff);
}

static void cfd_cell_at(const float *vars, uint32_t nelr, uint32_t e,
			struct cfd_cell *c)
{
	c->density = vars[e + V_DENSITY * nelr];
	c->mom.x = vars[e + V_MX * nelr];
	c->mom.y = vars[e + V_MY * nelr];
	c->mom.z = vars[e + V_MZ * nelr];
	c->energy = vars[e + V_ENERGY * nelr];
	cfd_derive(c);
}

/* The reference: the same iterations element by element. */
static void cfd_ref(const struct cfd_mesh *m, const struct cfd_cell *ff,
		    float *vars, float *old, float *fluxes, float *step)
{
	const uint32_t n = m->nelr;
	uint32_t it, stage, e, j, v;
	struct cfd_cell ci, cn;

	for (it = 0; it < CFD_ITERS; it++) {
		memcpy(old, vars, (size_t)n * CFD_NVAR * sizeof(float));
		for (e = 0; e < n; e++) {
			cfd_cell_at(vars, n, e, &ci);
			step[e] = cfd_step_factor(&ci, m->areas[e]);
		}
		for (stage = 0; stage < CFD_RK; stage++) {
			for (e = 0; e < n; e++) {
				struct cfd_flux fl = { { 0 } };

				cfd_cell_at(vars, n, e, &ci);
				for (j = 0; j < CFD_NNB; j++) {
					int32_t nb = m->nbs[e + j * n];
					struct cfd_vec nv;

					nv.x = m->normals[e + j * n];
					nv.y = m->normals[e + (j + CFD_NNB) * n];
					nv.z = m->normals[e +
							  (j + 2 * CFD_NNB) * n];
					if (nb >= 0) {
						cfd_cell_at(vars, n, nb, &cn);
						cfd_face(&fl, &ci, &cn, nv,
							 sqrtf(nv.x * nv.x +
							       nv.y * nv.y +
							       nv.z * nv.z));
					} else if (nb == -1) {
						cfd_wing(&fl, &ci, nv);
					} else if (nb == -2) {
						cfd_far(&fl, &ci, ff, nv);
					}
				}
				for (v = 0; v < CFD_NVAR; v++)
					fluxes[e + v * n] = fl.f[v];
			}
			for (e = 0; e < n; e++) {
				float factor = step[e] /
					       (float)(CFD_RK + 1 - stage);

				for (v = 0; v < CFD_NVAR; v++)
					vars[e + v * n] = old[e + v * n] +
						factor * fluxes[e + v * n];
			}
		}
	}
}

static int cfd_run(struct simt_gpu *gpu, uint64_t size, uint64_t seed,
		   char *err, size_t errlen)
{
	const char *app = "cfd";
	const uint32_t n = (uint32_t)size;
	const uint64_t var_bytes = size * CFD_NVAR * sizeof(float);
	const struct simt_dim3 grid = DIM3(app_blocks(size, CFD_BLOCK), 1, 1);
	const struct simt_dim3 block = DIM3(CFD_BLOCK, 1, 1);
	struct cfd_mesh m = { .nelr = n };
	float *vars = NULL, *old = NULL, *fluxes = NULL, *step = NULL;
	float *got = NULL;
	struct cfd_args args;
	uint32_t it, e, v;
	int ret;

	ret = app_size_range(size, 2 * CFD_BLOCK, CFD_MAX, "the elements",
			     app, err, errlen);
	if (ret)
		return ret;
	if (size % CFD_BLOCK) {
		app_err(err, errlen, app,
			"size %llu: the elements must be a multiple of %u",
			(unsigned long long)size, CFD_BLOCK);
		return -EINVAL;
	}
	m.nbs = malloc(size * CFD_NNB * sizeof(int32_t));
	m.normals = malloc(size * CFD_NNB * 3 * sizeof(float));
	m.areas = malloc(size * sizeof(float));
	vars = malloc(var_bytes);
	old = malloc(var_bytes);
	fluxes = malloc(var_bytes);
	got = malloc(var_bytes);
	step = malloc(size * sizeof(float));
	ret = -ENOMEM;
	if (!m.nbs || !m.normals || !m.areas || !vars || !old || !fluxes ||
	    !got || !step) {
		app_err(err, errlen, app, "out of memory");
		goto out;
	}
	if (cfd_mesh_make(&m, seed)) {
		app_err(err, errlen, app, "out of memory");
		goto out;
	}
	memset(&args, 0, sizeof(args));
	args.nelr = n;
	cfd_free_stream(&args.ff);
	/* initialize_variables: every element at the free stream. */
	for (e = 0; e < n; e++) {
		vars[e + V_DENSITY * n] = args.ff.density;
		vars[e + V_MX * n] = args.ff.mom.x;
		vars[e + V_MY * n] = args.ff.mom.y;
		vars[e + V_MZ * n] = args.ff.mom.z;
		vars[e + V_ENERGY * n] = args.ff.energy;
	}

	ret = app_alloc(gpu, size * sizeof(float), "areas", &args.areas, app,
			err, errlen);
	if (!ret)
		ret = app_alloc(gpu, size * CFD_NNB * sizeof(int32_t),
				"elements_surrounding_elements", &args.nbs,
				app, err, errlen);
	if (!ret)
		ret = app_alloc(gpu, size * CFD_NNB * 3 * sizeof(float),
				"normals", &args.normals, app, err, errlen);
	if (!ret)
		ret = app_alloc(gpu, var_bytes, "variables", &args.vars, app,
				err, errlen);
	if (!ret)
		ret = app_alloc(gpu, var_bytes, "old_variables", &args.old,
				app, err, errlen);
	if (!ret)
		ret = app_alloc(gpu, var_bytes, "fluxes", &args.fluxes, app,
				err, errlen);
	if (!ret)
		ret = app_alloc(gpu, size * sizeof(float), "step_factors",
				&args.step, app, err, errlen);
	if (ret)
		goto out;
	simt_h2d(gpu, args.areas, m.areas, size * sizeof(float));
	simt_h2d(gpu, args.nbs, m.nbs, size * CFD_NNB * sizeof(int32_t));
	simt_h2d(gpu, args.normals, m.normals,
		 size * CFD_NNB * 3 * sizeof(float));
	simt_h2d(gpu, args.vars, vars, var_bytes);
	for (it = 0; it < CFD_ITERS; it++) {
		ret = app_launch(gpu, "copy", copy_kernel, grid, block, 0,
				 &args, app, err, errlen);
		if (!ret)
			ret = app_launch(gpu, "cuda_compute_step_factor",
					 step_factor_kernel, grid, block, 0,
					 &args, app, err, errlen);
		for (args.stage = 0; !ret && args.stage < CFD_RK;
		     args.stage++) {
			ret = app_launch(gpu, "cuda_compute_flux",
					 flux_kernel, grid, block, 0, &args,
					 app, err, errlen);
			if (!ret)
				ret = app_launch(gpu, "cuda_time_step",
						 time_step_kernel, grid, block,
						 0, &args, app, err, errlen);
		}
		if (ret)
			goto out;
	}
	simt_d2h(gpu, got, args.vars, var_bytes);
	app_test_perturb(got, sizeof(float), size * CFD_NVAR);

	cfd_ref(&m, &args.ff, vars, old, fluxes, step);
	for (v = 0; v < CFD_NVAR * n; v++)
		if (!isfinite(vars[v])) {
			app_err(err, errlen, app,
				"the reference diverged at variables[%u]", v);
			ret = -EIO;
			goto out;
		}
	ret = app_check_f32(got, vars, size * CFD_NVAR, APP_FLOAT_TOLERANCE,
			    app, "variables", err, errlen);
out:
	free(m.nbs);
	free(m.normals);
	free(m.areas);
	free(vars);
	free(old);
	free(fluxes);
	free(got);
	free(step);
	return ret;
}

const struct app_desc app_cfd = {
	.name = "cfd",
	.suite = "Rodinia (cfd, euler3d)",
	.summary = "finite-volume Euler solver: a copy, compute_step_factor "
		   "and 3 Runge-Kutta stages of compute_flux and time_step "
		   "an iteration, 3 iterations, blocks of 192",
	.input = "size = elements (a multiple of 192): a generated mesh of "
		 "four-face elements, a 64-wide lattice periodic along its "
		 "rows, wing below and far field above, labels shuffled "
		 "within windows of 192, normals' lengths and tilts and the "
		 "areas random from the seed; all start at Rodinia's free "
		 "stream (Mach 1.2). Large: 97152 elements, Rodinia's "
		 "fvcorr.domn.097K padded to 192 (13 MiB, over 10x the cxl "
		 "preset's 1 MiB LLC: the paper's 10x the GPU's memory, 640 "
		 "MiB for the preset's 64 MiB, is beyond the executor)",
	.small_size = 1536,
	.large_size = 97152,
	.paper_sizes = "CXL-GPU: no input given, data sized to 10x the GPU's "
		       "memory (640 MiB for the cxl preset's 64 MiB) = "
		       "--large, 97152 elements (Rodinia's fvcorr.domn.097K "
		       "padded to 192, 13 MiB)",
	.kernels = "copy, cuda_compute_step_factor, cuda_compute_flux, "
		   "cuda_time_step",
	.run = cfd_run,
};
