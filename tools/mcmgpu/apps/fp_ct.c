// SPDX-License-Identifier: GPL-2.0
/*
 * ct (FinePack §V): model-based iterative (MBIR) low-dose CT
 * reconstruction, like GE's Veo, "little spatial locality" and
 * all-to-all. The paper's code is not public; this is the nearest public
 * scheme: SIRT (simultaneous iterative reconstruction) with a quadratic
 * smoothness prior and positivity, the voxels updated in a random order
 * as GPU MBIR codes do (GPU-ICD, Sabne et al., PPoPP 2017):
 *   ct_error:  w_i = (y_i - sum_j A_ij x_j) / R_i, a thread a ray
 *              (R_i = sum_j A_ij);
 *   ct_update: x_j' = max(0, x_j + (sum_i A_ij w_i) / C_j
 *                     - beta sum over j's 4 neighbours n of (x_j - x_n)),
 *              a thread a voxel (C_j = sum_i A_ij), beta = 0.05.
 * Ours, where the paper is silent:
 *  - 2D parallel beam: an nx x nx image, nx angles over 180 degrees, 2 nx
 *    detector bins; A is pixel-driven (each voxel's centre projected on
 *    the detector, split linearly between the two nearest bins), kept
 *    both voxel-major (2 nx entries a voxel) and ray-major (CSR). The
 *    object is a disc of radius nx / 2, uniform in [0, 1) from the seed;
 *    y = A x_true; x starts at 0; 5 iterations (two launches each).
 *  - 4 GPUs: GPU g owns rays [g R / 4, (g + 1) R / 4) and a quarter of
 *    the voxels chosen by a random permutation (the random update order).
 *    Every array is replicated (fp_util.h): each GPU reads only its own
 *    copies. ct_error stores w_i into every GPU's copy (32 lanes
 *    contiguous), ct_update stores x_j' into every copy (x ping-ponged):
 *    one 4 B store a voxel at a random place, the low-locality stores.
 * Every copy of w and x is checked against the same sums on the host.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "app_util.h"
#include "apps.h"
#include "fp_util.h"

#define CT_BLOCK	64
#define CT_ITERATIONS	5
#define CT_BETA		0.05f

struct ct_args {
	uint64_t rptr, rvox, rw, rinv, y, vray, vw, cinv, perm, w, x, xn;
	/* bytes between GPU copies of each */
	uint64_t s_rptr, s_rnz, s_ray, s_vnz, s_vox;
	uint32_t nx, rays, voxels, entries;	/* entries: a voxel's */
};

/*
 * OPS: the index and its GPU (INT 2); a nonzero: the FFMA (FP 1) and
 * the loop (INT 2, BRANCH 1); the scale (FP 1); a store: the loop (INT
 * 2, BRANCH 1).
 */
static void ct_error_kernel(struct simt_thread *t, const void *p)
{
	const struct ct_args *a = p;
	uint64_t r = simt_global_x(t);
	uint32_t gpu = (uint32_t)(r / (a->rays / FP_GPUS)), k, start, end, d;
	uint64_t ray = gpu * a->s_ray, rnz = gpu * a->s_rnz;
	float sum = LD(t, float, a->y + ray, r);

	OPS(t, PROG_OP_INT, 2);
	start = LD(t, uint32_t, a->rptr + gpu * a->s_rptr, r);
	end = LD(t, uint32_t, a->rptr + gpu * a->s_rptr, r + 1);
	for (k = start; k < end; k++) {
		uint32_t j = LD(t, uint32_t, a->rvox + rnz, k);

		OPS(t, PROG_OP_FP, 1);
		sum = sum - LD(t, float, a->rw + rnz, k) *
			    LD(t, float, a->x + gpu * a->s_vox, j);
		OPS(t, PROG_OP_INT, 2);
		OPS(t, PROG_OP_BRANCH, 1);
	}
	OPS(t, PROG_OP_FP, 1);
	sum = sum * LD(t, float, a->rinv + ray, r);
	for (d = 0; d < FP_GPUS; d++) {
		ST(t, float, a->w + (gpu + d) % FP_GPUS * a->s_ray, r, sum);
		OPS(t, PROG_OP_INT, 2);
		OPS(t, PROG_OP_BRANCH, 1);
	}
}

/* Voxel j's update from its back-projection s, as both compute it. */
static inline float ct_voxel(float xj, float s, float cinv, float prior)
{
	float v = xj + s * cinv - CT_BETA * prior;

	return v > 0.0f ? v : 0.0f;
}

/*
 * OPS: the index, GPU and voxel's coordinates (INT 4); an entry: the
 * FFMA (FP 1), the loop (INT 2, BRANCH 1); a neighbour: its test (INT 2,
 * BRANCH 1) and the difference and sum (FP 2); the update (FP 3, INT 1
 * the clamp); a store: the loop (INT 2, BRANCH 1).
 */
static void ct_update_kernel(struct simt_thread *t, const void *p)
{
	const struct ct_args *a = p;
	uint64_t tid = simt_global_x(t);
	uint32_t gpu = (uint32_t)(tid / (a->voxels / FP_GPUS)), k, d;
	uint64_t vox = gpu * a->s_vox, vnz = gpu * a->s_vnz;
	uint64_t x = a->x + vox;
	uint32_t j = LD(t, uint32_t, a->perm + vox, tid);
	int32_t ix = (int32_t)(j % a->nx), iy = (int32_t)(j / a->nx);
	static const int32_t dx[4] = { -1, 1, 0, 0 }, dy[4] = { 0, 0, -1, 1 };
	float xj = LD(t, float, x, j), s = 0.0f, prior = 0.0f;

	OPS(t, PROG_OP_INT, 4);
	for (k = 0; k < a->entries; k++) {
		uint64_t e = (uint64_t)j * a->entries + k;
		uint32_t ray = LD(t, uint32_t, a->vray + vnz, e);

		OPS(t, PROG_OP_FP, 1);
		s = s + LD(t, float, a->vw + vnz, e) *
			LD(t, float, a->w + gpu * a->s_ray, ray);
		OPS(t, PROG_OP_INT, 2);
		OPS(t, PROG_OP_BRANCH, 1);
	}
	for (k = 0; k < 4; k++) {
		int32_t px = ix + dx[k], py = iy + dy[k];

		OPS(t, PROG_OP_INT, 2);
		OPS(t, PROG_OP_BRANCH, 1);
		if (px < 0 || py < 0 || px >= (int32_t)a->nx ||
		    py >= (int32_t)a->nx)
			continue;
		OPS(t, PROG_OP_FP, 2);
		prior = prior + (xj - LD(t, float, x,
					 (uint64_t)py * a->nx + px));
	}
	OPS(t, PROG_OP_FP, 3);
	OPS(t, PROG_OP_INT, 1);
	xj = ct_voxel(xj, s, LD(t, float, a->cinv + vox, j), prior);
	for (d = 0; d < FP_GPUS; d++) {
		ST(t, float, a->xn + (gpu + d) % FP_GPUS * a->s_vox, j, xj);
		OPS(t, PROG_OP_INT, 2);
		OPS(t, PROG_OP_BRANCH, 1);
	}
}

/* The system matrix, both ways, and R_i, C_j (host arrays). */
struct ct_matrix {
	uint32_t *vray, *rptr, *rvox;
	float *vw, *rw, *rinv, *cinv;
};

static void ct_matrix_free(struct ct_matrix *m)
{
	free(m->vray);
	free(m->rptr);
	free(m->rvox);
	free(m->vw);
	free(m->rw);
	free(m->rinv);
	free(m->cinv);
}

static int ct_matrix_build(struct ct_matrix *m, uint32_t nx)
{
	uint32_t ndet = 2 * nx, na = nx, nv = nx * nx, rays = na * ndet;
	uint32_t e = 2 * na, j, k, a;
	uint64_t nnz = (uint64_t)nv * e;
	double *rsum;

	memset(m, 0, sizeof(*m));
	m->vray = malloc(nnz * sizeof(uint32_t));
	m->vw = malloc(nnz * sizeof(float));
	m->rptr = calloc((size_t)rays + 1, sizeof(uint32_t));
	m->rvox = malloc(nnz * sizeof(uint32_t));
	m->rw = malloc(nnz * sizeof(float));
	m->rinv = malloc((size_t)rays * sizeof(float));
	m->cinv = malloc((size_t)nv * sizeof(float));
	rsum = calloc(rays, sizeof(double));
	if (!m->vray || !m->vw || !m->rptr || !m->rvox || !m->rw ||
	    !m->rinv || !m->cinv || !rsum) {
		free(rsum);
		ct_matrix_free(m);
		return -ENOMEM;
	}
	for (j = 0; j < nv; j++) {
		double cx = (double)(j % nx) - nx / 2.0 + 0.5;
		double cy = (double)(j / nx) - nx / 2.0 + 0.5;
		double csum = 0.0;

		for (a = 0; a < na; a++) {
			double th = M_PI * a / na;
			double tpos = cx * cos(th) + cy * sin(th) + nx - 0.5;
			uint32_t bin = (uint32_t)floor(tpos);
			float f = (float)(tpos - bin);
			uint64_t i = (uint64_t)j * e + 2 * a;

			m->vray[i] = a * ndet + bin;
			m->vray[i + 1] = a * ndet + bin + 1;
			m->vw[i] = 1.0f - f;
			m->vw[i + 1] = f;
		}
		for (k = 0; k < e; k++) {
			uint64_t i = (uint64_t)j * e + k;

			csum += m->vw[i];
			m->rptr[m->vray[i] + 1]++;
			rsum[m->vray[i]] += m->vw[i];
		}
		m->cinv[j] = (float)(1.0 / csum);
	}
	for (k = 0; k < rays; k++) {
		m->rptr[k + 1] += m->rptr[k];
		m->rinv[k] = rsum[k] > 0.0 ? (float)(1.0 / rsum[k]) : 0.0f;
	}
	/* Ray-major: voxels in increasing order within a ray. */
	memset(rsum, 0, rays * sizeof(double));
	for (j = 0; j < nv; j++) {
		for (k = 0; k < e; k++) {
			uint64_t i = (uint64_t)j * e + k;
			uint32_t r = m->vray[i];
			uint32_t at = m->rptr[r] + (uint32_t)rsum[r];

			rsum[r] += 1.0;
			m->rvox[at] = j;
			m->rw[at] = m->vw[i];
		}
	}
	free(rsum);
	return 0;
}

/* One iteration on the host: w from x, then xn from w and x. */
static void ct_ref(const struct ct_matrix *m, const float *y, uint32_t nx,
		   const float *x, float *w, float *xn)
{
	uint32_t rays = 2 * nx * nx, nv = nx * nx, e = 2 * nx, r, j, k;

	for (r = 0; r < rays; r++) {
		float sum = y[r];

		for (k = m->rptr[r]; k < m->rptr[r + 1]; k++)
			sum = sum - m->rw[k] * x[m->rvox[k]];
		w[r] = sum * m->rinv[r];
	}
	for (j = 0; j < nv; j++) {
		int32_t ix = (int32_t)(j % nx), iy = (int32_t)(j / nx);
		static const int32_t dx[4] = { -1, 1, 0, 0 };
		static const int32_t dy[4] = { 0, 0, -1, 1 };
		float s = 0.0f, prior = 0.0f;

		for (k = 0; k < e; k++)
			s = s + m->vw[(uint64_t)j * e + k] *
				w[m->vray[(uint64_t)j * e + k]];
		for (k = 0; k < 4; k++) {
			int32_t px = ix + dx[k], py = iy + dy[k];

			if (px < 0 || py < 0 || px >= (int32_t)nx ||
			    py >= (int32_t)nx)
				continue;
			prior = prior + (x[j] - x[(uint64_t)py * nx + px]);
		}
		xn[j] = ct_voxel(x[j], s, m->cinv[j], prior);
	}
}

static int ct_run(struct simt_gpu *gpu, uint64_t size, uint64_t seed,
		  char *err, size_t errlen)
{
	const char *app = "ct";
	uint32_t nx = (uint32_t)size, nv, rays, e, j, k, it;
	float *truth = NULL, *y = NULL, *x = NULL, *xn = NULL, *w = NULL;
	float *got_x = NULL, *got_w = NULL, *tmp;
	uint32_t *perm = NULL;
	uint64_t nnz, d_x[2];
	struct ct_matrix m;
	struct ct_args args;
	struct app_rng rng;
	int ret;

	ret = app_size_range(size, 16, 256, "the image's side", app, err,
			     errlen);
	if (ret)
		return ret;
	if (size % 16)
		return app_err(err, errlen, app,
			       "size %llu: the image's side must be a multiple of 16",
			       (unsigned long long)size), -EINVAL;
	nv = nx * nx;
	rays = 2 * nx * nx;
	e = 2 * nx;
	nnz = (uint64_t)nv * e;
	memset(&m, 0, sizeof(m));
	truth = calloc(nv, sizeof(float));
	x = calloc(nv, sizeof(float));
	xn = malloc(nv * sizeof(float));
	y = malloc(rays * sizeof(float));
	w = malloc(rays * sizeof(float));
	perm = malloc(nv * sizeof(uint32_t));
	ret = -ENOMEM;
	if (!truth || !x || !xn || !y || !w || !perm ||
	    ct_matrix_build(&m, nx)) {
		app_err(err, errlen, app, "out of memory");
		goto out;
	}
	app_rng_init(&rng, seed, 95);
	for (j = 0; j < nv; j++) {
		double cx = (double)(j % nx) - nx / 2.0 + 0.5;
		double cy = (double)(j / nx) - nx / 2.0 + 0.5;
		float v = app_rng_float(&rng);

		if (cx * cx + cy * cy < nx * nx / 4.0)
			truth[j] = v;
	}
	for (k = 0; k < rays; k++) {
		float sum = 0.0f;

		for (j = m.rptr[k]; j < m.rptr[k + 1]; j++)
			sum = sum + m.rw[j] * truth[m.rvox[j]];
		y[k] = sum;
	}
	/* The update order: a random permutation (Fisher-Yates). */
	for (j = 0; j < nv; j++)
		perm[j] = j;
	for (j = nv - 1; j > 0; j--) {
		uint32_t r = (uint32_t)app_rng_below(&rng, j + 1), t = perm[j];

		perm[j] = perm[r];
		perm[r] = t;
	}

	memset(&args, 0, sizeof(args));
	args.nx = nx;
	args.rays = rays;
	args.voxels = nv;
	args.entries = e;
	args.s_rptr = fp_stride((uint64_t)rays + 1, 4) * 4;
	args.s_rnz = fp_stride(nnz, 4) * 4;
	args.s_ray = fp_stride(rays, 4) * 4;
	args.s_vnz = args.s_rnz;
	args.s_vox = fp_stride(nv, 4) * 4;
	ret = fp_alloc(gpu, (uint64_t)rays + 1, 4, m.rptr, "rayPtr",
		       &args.rptr, app, err, errlen);
	if (!ret)
		ret = fp_alloc(gpu, nnz, 4, m.rvox, "rayVoxel", &args.rvox, app,
			       err, errlen);
	if (!ret)
		ret = fp_alloc(gpu, nnz, 4, m.rw, "rayWeight", &args.rw, app,
			       err, errlen);
	if (!ret)
		ret = fp_alloc(gpu, rays, 4, m.rinv, "rayNorm", &args.rinv, app,
			       err, errlen);
	if (!ret)
		ret = fp_alloc(gpu, rays, 4, y, "sinogram", &args.y, app, err,
			       errlen);
	if (!ret)
		ret = fp_alloc(gpu, nnz, 4, m.vray, "voxelRay", &args.vray, app,
			       err, errlen);
	if (!ret)
		ret = fp_alloc(gpu, nnz, 4, m.vw, "voxelWeight", &args.vw, app,
			       err, errlen);
	if (!ret)
		ret = fp_alloc(gpu, nv, 4, m.cinv, "voxelNorm", &args.cinv,
			       app, err, errlen);
	if (!ret)
		ret = fp_alloc(gpu, nv, 4, perm, "order", &args.perm, app, err,
			       errlen);
	if (!ret)
		ret = fp_alloc(gpu, rays, 4, NULL, "error", &args.w, app, err,
			       errlen);
	if (!ret)
		ret = fp_alloc(gpu, nv, 4, NULL, "x", &d_x[0], app, err,
			       errlen);
	if (!ret)
		ret = fp_alloc(gpu, nv, 4, NULL, "xnew", &d_x[1], app, err,
			       errlen);
	if (ret)
		goto out;
	for (it = 0; it < CT_ITERATIONS; it++) {
		args.x = d_x[it % 2];
		args.xn = d_x[!(it % 2)];
		ret = app_launch(gpu, "ct_error", ct_error_kernel,
				 DIM3(rays / CT_BLOCK, 1, 1),
				 DIM3(CT_BLOCK, 1, 1), 0, &args, app, err,
				 errlen);
		if (!ret)
			ret = app_launch(gpu, "ct_update", ct_update_kernel,
					 DIM3(nv / CT_BLOCK, 1, 1),
					 DIM3(CT_BLOCK, 1, 1), 0, &args, app,
					 err, errlen);
		if (ret)
			goto out;
	}
	got_x = fp_fetch(gpu, d_x[CT_ITERATIONS % 2], nv, 4);
	got_w = fp_fetch(gpu, args.w, rays, 4);
	ret = -ENOMEM;
	if (!got_x || !got_w) {
		app_err(err, errlen, app, "out of memory");
		goto out;
	}

	for (it = 0; it < CT_ITERATIONS; it++) {
		ct_ref(&m, y, nx, x, w, xn);
		tmp = x;
		x = xn;
		xn = tmp;
	}
	ret = fp_check_f32(got_w, rays, w, NULL, NULL, NULL, app, "error",
			   err, errlen);
	if (!ret)
		ret = fp_check_f32(got_x, nv, x, NULL, NULL, NULL, app, "x",
				   err, errlen);
out:
	ct_matrix_free(&m);
	free(truth);
	free(x);
	free(xn);
	free(y);
	free(w);
	free(perm);
	free(got_x);
	free(got_w);
	return ret;
}

const struct app_desc app_fp_ct = {
	.name = "ct",
	.suite = "FinePack §V (CT, MBIR; nearest public scheme)",
	.summary = "5 iterations of regularised SIRT (MBIR-like) for 2D "
		   "parallel-beam CT on 4 GPUs, everything replicated: a "
		   "thread a ray stores its weighted error into every copy, "
		   "a thread a voxel (random order) its new value (4 B "
		   "stores at random places)",
	.input = "size = nx, a multiple of 16: an nx x nx image (a disc "
		 "uniform in [0, 1) from the seed), nx angles, 2 nx detector "
		 "bins, the sinogram A x_true",
	.small_size = 16,
	.large_size = 64,
	.kernels = "ct_error, ct_update",
	.paper_sizes = "FinePack §V: MBIR low-dose CT (no size given) = any "
		       "size; large 64 (a 64 x 64 image)",
	.run = ct_run,
};
