// SPDX-License-Identifier: GPL-2.0
/*
 * hotspot3d (CPElide's Table II): Rodinia's hotspot3D, the chip's
 * temperature over nz stacked layers by a 7-point stencil: each step a
 * cell becomes cc T + cw W + ce E + cs S + cn N + cb below + ct above +
 * sdc power + ct x 80, the coefficients from Rodinia's chip constants
 * (a neighbour past an edge, or past the top or bottom layer, is the
 * cell itself). hotspotOpt1, as hotspot_opt1 launches it: blocks of
 * 64 x 4 threads over the x-y plane (grid nx / 64 x ny / 4), each
 * thread walking up its column of layers keeping the layers below,
 * at and above in registers. The host launches it once a step,
 * swapping tIn and tOut.
 */
#include <errno.h>
#include <stdlib.h>

#include "app_util.h"
#include "apps.h"

#define H3_BX		64
#define H3_BY		4
#define H3_LAYERS	8	/* Table II: 512 8 20 */
#define H3_STEPS	20
#define H3_MAX		4096
#define H3_T_CHIP	0.0005f
#define H3_CHIP_HEIGHT	0.016f
#define H3_CHIP_WIDTH	0.016f
#define H3_AMB_TEMP	80.0f
#define H3_FACTOR_CHIP	0.5f
#define H3_SPEC_HEAT_SI	1.75e6f
#define H3_K_SI		100.0f
#define H3_PRECISION	0.001f
#define H3_MAX_PD	3.0e6f

struct h3_args {
	uint64_t p, tin, tout;
	int32_t nx, ny, nz;
	float sdc, ce, cw, cn, cs, ct, cb, cc;
};

static inline float h3_cell(const struct h3_args *a, float c, float w,
			    float e, float s, float n, float b, float t,
			    float pw)
{
	return a->cc * c + a->cw * w + a->ce * e + a->cs * s + a->cn * n +
		a->cb * b + a->ct * t + a->sdc * pw + a->ct * H3_AMB_TEMP;
}

/*
 * OPS: i, j, c, xy and the four clamped neighbours (INT 12); a layer:
 * the update (FP 9), the five offsets' adds (INT 5); each of the loop's
 * nz - 2 iterations also its add and compare (INT 2) and back edge
 * (BRANCH 1).
 */
static void h3_kernel(struct simt_thread *t, const void *p)
{
	const struct h3_args *a = p;
	int32_t i = (int32_t)simt_global_x(t);
	int32_t j = (int32_t)(simt_block_dim(t).y * simt_block_idx(t).y +
			      simt_thread_idx(t).y);
	int64_t c = i + (int64_t)j * a->nx, xy = (int64_t)a->nx * a->ny;
	int64_t w = i == 0 ? c : c - 1;
	int64_t e = i == a->nx - 1 ? c : c + 1;
	int64_t n = j == 0 ? c : c - a->nx;
	int64_t s = j == a->ny - 1 ? c : c + a->nx;
	float t1, t2, t3, vw, ve, vs, vn, pw;
	int32_t k;

	OPS(t, PROG_OP_INT, 12);
	t1 = LD(t, float, a->tin, c);
	t2 = t1;
	t3 = LD(t, float, a->tin, c + xy);
	vw = LD(t, float, a->tin, w);
	ve = LD(t, float, a->tin, e);
	vs = LD(t, float, a->tin, s);
	vn = LD(t, float, a->tin, n);
	pw = LD(t, float, a->p, c);
	OPS(t, PROG_OP_FP, 9);
	ST(t, float, a->tout, c, h3_cell(a, t2, vw, ve, vs, vn, t1, t3, pw));
	OPS(t, PROG_OP_INT, 5);
	c += xy;
	w += xy;
	e += xy;
	n += xy;
	s += xy;
	for (k = 1; k < a->nz - 1; k++) {
		t1 = t2;
		t2 = t3;
		t3 = LD(t, float, a->tin, c + xy);
		vw = LD(t, float, a->tin, w);
		ve = LD(t, float, a->tin, e);
		vs = LD(t, float, a->tin, s);
		vn = LD(t, float, a->tin, n);
		pw = LD(t, float, a->p, c);
		OPS(t, PROG_OP_FP, 9);
		ST(t, float, a->tout, c,
		   h3_cell(a, t2, vw, ve, vs, vn, t1, t3, pw));
		OPS(t, PROG_OP_INT, 7);
		OPS(t, PROG_OP_BRANCH, 1);
		c += xy;
		w += xy;
		e += xy;
		n += xy;
		s += xy;
	}
	t1 = t2;
	t2 = t3;
	vw = LD(t, float, a->tin, w);
	ve = LD(t, float, a->tin, e);
	vs = LD(t, float, a->tin, s);
	vn = LD(t, float, a->tin, n);
	pw = LD(t, float, a->p, c);
	OPS(t, PROG_OP_FP, 9);
	ST(t, float, a->tout, c, h3_cell(a, t2, vw, ve, vs, vn, t1, t3, pw));
}

/* The reference: every cell of every layer, a step at a time. */
static void h3_ref(float *in, float *out, const float *pw,
		   const struct h3_args *a)
{
	const int64_t nx = a->nx, ny = a->ny, nz = a->nz, xy = nx * ny;
	int64_t x, y, z, c;
	int32_t step;
	float *tmp;

	for (step = 0; step < H3_STEPS; step++) {
		for (z = 0; z < nz; z++)
			for (y = 0; y < ny; y++)
				for (x = 0; x < nx; x++) {
					c = z * xy + y * nx + x;
					out[c] = h3_cell(a, in[c],
						in[x ? c - 1 : c],
						in[x < nx - 1 ? c + 1 : c],
						in[y < ny - 1 ? c + nx : c],
						in[y ? c - nx : c],
						in[z ? c - xy : c],
						in[z < nz - 1 ? c + xy : c],
						pw[c]);
				}
		tmp = in;
		in = out;
		out = tmp;
	}
}

static int h3_run(struct simt_gpu *gpu, uint64_t size, uint64_t seed,
		  char *err, size_t errlen)
{
	const char *app = "hotspot3d";
	const uint64_t cells = size * size * H3_LAYERS;
	const uint64_t bytes = cells * sizeof(float);
	float *temp = NULL, *power = NULL, *got = NULL, *a_ref = NULL;
	float *b_ref = NULL;
	float dx, dy, dz, cap, rx, ry, rz, max_slope, dt;
	struct h3_args args;
	struct app_rng rng;
	uint64_t d_t[2], i;
	int src = 0, ret, step;

	ret = app_size_range(size, H3_BX, H3_MAX, "the grid's side", app,
			     err, errlen);
	if (ret)
		return ret;
	if (size % H3_BX) {
		app_err(err, errlen, app,
			"size %llu: the grid's side must be a multiple of 64",
			(unsigned long long)size);
		return -EINVAL;
	}
	temp = malloc(bytes);
	power = malloc(bytes);
	got = malloc(bytes);
	a_ref = malloc(bytes);
	b_ref = malloc(bytes);
	ret = -ENOMEM;
	if (!temp || !power || !got || !a_ref || !b_ref) {
		app_err(err, errlen, app, "out of memory");
		goto out;
	}
	/* The ranges of Rodinia's temp_512x8 and power_512x8. */
	app_rng_init(&rng, seed, 100);
	for (i = 0; i < cells; i++)
		temp[i] = 323.0f + 20.0f * app_rng_float(&rng);
	app_rng_fill_float(&rng, power, cells, 1e-3f);

	args.nx = (int32_t)size;
	args.ny = (int32_t)size;
	args.nz = H3_LAYERS;
	dx = H3_CHIP_HEIGHT / args.nx;
	dy = H3_CHIP_WIDTH / args.ny;
	dz = H3_T_CHIP / args.nz;
	cap = H3_FACTOR_CHIP * H3_SPEC_HEAT_SI * H3_T_CHIP * dx * dy;
	rx = dy / (2.0f * H3_K_SI * H3_T_CHIP * dx);
	ry = dx / (2.0f * H3_K_SI * H3_T_CHIP * dy);
	rz = dz / (H3_K_SI * dx * dy);
	max_slope = H3_MAX_PD / (H3_FACTOR_CHIP * H3_T_CHIP * H3_SPEC_HEAT_SI);
	dt = H3_PRECISION / max_slope;
	args.sdc = dt / cap;
	args.ce = args.sdc / rx;
	args.cw = args.ce;
	args.cn = args.sdc / ry;
	args.cs = args.cn;
	args.ct = args.sdc / rz;
	args.cb = args.ct;
	args.cc = 1.0f - (2.0f * args.ce + 2.0f * args.cn + 3.0f * args.ct);

	ret = app_alloc(gpu, bytes, "p_d", &args.p, app, err, errlen);
	if (!ret)
		ret = app_alloc(gpu, bytes, "tIn_d", &d_t[0], app, err,
				errlen);
	if (!ret)
		ret = app_alloc(gpu, bytes, "tOut_d", &d_t[1], app, err,
				errlen);
	if (ret)
		goto out;
	simt_h2d(gpu, args.p, power, bytes);
	simt_h2d(gpu, d_t[0], temp, bytes);
	simt_h2d(gpu, d_t[1], temp, bytes);
	for (step = 0; step < H3_STEPS; step++) {
		args.tin = d_t[src];
		args.tout = d_t[!src];
		src = !src;
		ret = app_launch(gpu, "hotspotOpt1", h3_kernel,
				 DIM3(args.nx / H3_BX, args.ny / H3_BY, 1),
				 DIM3(H3_BX, H3_BY, 1), 0, &args, app, err,
				 errlen);
		if (ret)
			goto out;
	}
	simt_d2h(gpu, got, d_t[src], bytes);
	app_test_perturb(got, sizeof(*got), cells);

	for (i = 0; i < cells; i++)
		a_ref[i] = temp[i];
	h3_ref(a_ref, b_ref, power, &args);
	ret = app_check_f32(got, H3_STEPS % 2 ? b_ref : a_ref, cells,
			    APP_FLOAT_TOLERANCE, app, "tOut", err, errlen);
out:
	free(temp);
	free(power);
	free(got);
	free(a_ref);
	free(b_ref);
	return ret;
}

const struct app_desc app_hotspot3d = {
	.name = "hotspot3d",
	.suite = "Rodinia (hotspot3D)",
	.summary = "transient temperature of an 8-layer chip, a 7-point "
		   "stencil: hotspotOpt1 in 64 x 4 blocks over the plane, a "
		   "thread walking its column of layers, 20 launches "
		   "swapping tIn and tOut",
	.input = "size = the grid's side nx = ny (a multiple of 64; Table "
		 "II: 512 8 20), 8 layers, 20 steps; temperatures uniform in "
		 "[323, 343) K and power in [0, 1 mW) from the seed, the "
		 "ranges of Rodinia's temp_512x8 and power_512x8 (the values "
		 "do not change the program). Large: the paper's 512 (8 MiB "
		 "an array)",
	.small_size = 64,
	.large_size = 512,
	.paper_sizes = "CPElide Table II: 512 8 20 power_512x8 temp_512x8 = "
		       "size 512 (--large; 8 layers and 20 steps as given, "
		       "temperatures and power random in the files' ranges)",
	.kernels = "hotspotOpt1",
	.run = h3_run,
};
