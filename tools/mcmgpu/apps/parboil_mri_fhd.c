// SPDX-License-Identifier: GPL-2.0
/*
 * mri-fhd (ADSM's Table 2): Parboil's mri-fhd, the F^H d vector of a
 * non-Cartesian MRI reconstruction, mri-q's sibling (cxl_mri.c).
 * ComputeRhoPhi (blocks of 512) makes rho phi = phi^* d's real and
 * imaginary parts for every k-space sample; the host copies them back,
 * builds the samples' table (Kx, Ky, Kz, RhoPhiR, RhoPhiI) and copies it
 * in chunks of 512 (KERNEL_FH_K_ELEMS_PER_GRID) to the kernel's table,
 * launching ComputeFH (blocks of 256) for each: a thread a voxel adds
 * rho phi e^(i 2 pi k . x) over the chunk, keeping rFhD, iFhD in
 * registers and storing them at its end. Parboil keeps the chunk in
 * constant memory; here it is a global array read as a broadcast.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "app_util.h"
#include "apps.h"

#define FHD_RHO_BLOCK	512
#define FHD_FH_BLOCK	256
#define FHD_CHUNK	512
#define FHD_K_RATIO	8		/* voxels a k-space sample */
#define FHD_MAX		(1ULL << 24)
#define FHD_PIX2	6.2831853071795864769252867665590058f

struct fhd_kvalue {
	float kx, ky, kz, rr, ri;
};

struct fhd_args {
	uint64_t phi_r, phi_i, d_r, d_i, rho_r, rho_i;
	uint64_t x, y, z, fr, fi, ck;
	uint32_t num_k, num_x, chunk;
};

/*
 * rho phi = (phiR dR + phiI dI, phiR dI - phiI dR). OPS: the index and
 * bound (INT 2, BRANCH 1), two multiplies and two FFMAs (FP 4).
 */
static void rhophi_kernel(struct simt_thread *t, const void *p)
{
	const struct fhd_args *a = p;
	uint64_t k = simt_global_x(t);
	float pr, pi, dr, di;

	OPS(t, PROG_OP_INT, 2);
	OPS(t, PROG_OP_BRANCH, 1);
	if (k >= a->num_k)
		return;
	pr = LD(t, float, a->phi_r, k);
	pi = LD(t, float, a->phi_i, k);
	dr = LD(t, float, a->d_r, k);
	di = LD(t, float, a->d_i, k);
	OPS(t, PROG_OP_FP, 4);
	ST(t, float, a->rho_r, k, pr * dr + pi * di);
	ST(t, float, a->rho_i, k, pr * di - pi * dr);
}

/*
 * OPS: the index and bound (INT 2, BRANCH 1); a sample: the dot product
 * and its scaling (FP 4), cos and sin (SFU 2), the two complex
 * accumulations (FP 4), the loop (INT 2, BRANCH 1).
 */
static void computefh_kernel(struct simt_thread *t, const void *p)
{
	const struct fhd_args *a = p;
	uint64_t v = simt_global_x(t);
	float sx, sy, sz, fr, fi;
	uint32_t k;

	OPS(t, PROG_OP_INT, 2);
	OPS(t, PROG_OP_BRANCH, 1);
	if (v >= a->num_x)
		return;
	sx = LD(t, float, a->x, v);
	sy = LD(t, float, a->y, v);
	sz = LD(t, float, a->z, v);
	fr = LD(t, float, a->fr, v);
	fi = LD(t, float, a->fi, v);
	for (k = 0; k < a->chunk; k++) {
		float kx = LD(t, float, a->ck, 5 * k);
		float ky = LD(t, float, a->ck, 5 * k + 1);
		float kz = LD(t, float, a->ck, 5 * k + 2);
		float rr = LD(t, float, a->ck, 5 * k + 3);
		float ri = LD(t, float, a->ck, 5 * k + 4);
		float arg = FHD_PIX2 * (kx * sx + ky * sy + kz * sz);
		float c = cosf(arg), s = sinf(arg);

		OPS(t, PROG_OP_FP, 4);
		OPS(t, PROG_OP_SFU, 2);
		OPS(t, PROG_OP_FP, 4);
		fr = fr + rr * c - ri * s;
		fi = fi + ri * c + rr * s;
		OPS(t, PROG_OP_INT, 2);
		OPS(t, PROG_OP_BRANCH, 1);
	}
	ST(t, float, a->fr, v, fr);
	ST(t, float, a->fi, v, fi);
}

/* The reference: the same sums, voxel by voxel, in sample order. */
static void fhd_ref(const struct fhd_kvalue *kv, uint32_t num_k,
		    const float *x, const float *y, const float *z, float *fr,
		    float *fi, uint32_t num_x)
{
	uint32_t v, k;

	for (v = 0; v < num_x; v++) {
		float r = 0.0f, i = 0.0f;

		for (k = 0; k < num_k; k++) {
			float arg = FHD_PIX2 * (kv[k].kx * x[v] +
						kv[k].ky * y[v] +
						kv[k].kz * z[v]);
			float c = cosf(arg), s = sinf(arg);

			r = r + kv[k].rr * c - kv[k].ri * s;
			i = i + kv[k].ri * c + kv[k].rr * s;
		}
		fr[v] = r;
		fi[v] = i;
	}
}

/*
 * The sums cancel (rho phi e^(i theta) turns), so a relative bound on
 * each element is too tight near zero: check against the voxel's
 * magnitude of terms instead, which the kernel and reference share.
 */
static int fhd_check(const float *got, const float *want, uint32_t n,
		     float scale, const char *what, char *err, size_t errlen)
{
	uint32_t i;

	for (i = 0; i < n; i++) {
		if (!(fabsf(got[i] - want[i]) <= APP_FLOAT_TOLERANCE * scale)) {
			app_err(err, errlen, "mri-fhd", "%s[%u] = %g, the "
				"reference says %g", what, i, got[i],
				want[i]);
			return -EIO;
		}
	}
	return 0;
}

static int fhd_run(struct simt_gpu *gpu, uint64_t size, uint64_t seed,
		   char *err, size_t errlen)
{
	const char *app = "mri-fhd";
	const uint32_t num_x = (uint32_t)size;
	const uint32_t num_k = (uint32_t)(size / FHD_K_RATIO);
	float *x = NULL, *y = NULL, *z = NULL, *kin = NULL, *rho = NULL;
	float *fr = NULL, *fi = NULL, *wr = NULL, *wi = NULL;
	struct fhd_kvalue *kv = NULL;
	struct fhd_args args;
	struct app_rng rng;
	uint32_t k, done;
	float scale;
	int ret;

	ret = app_size_range(size, FHD_K_RATIO, FHD_MAX, "the voxels", app,
			     err, errlen);
	if (ret)
		return ret;
	x = malloc(num_x * sizeof(float));
	y = malloc(num_x * sizeof(float));
	z = malloc(num_x * sizeof(float));
	fr = malloc(num_x * sizeof(float));
	fi = malloc(num_x * sizeof(float));
	wr = malloc(num_x * sizeof(float));
	wi = malloc(num_x * sizeof(float));
	kin = malloc(4 * num_k * sizeof(float));	/* phiR, phiI, dR, dI */
	rho = malloc(2 * num_k * sizeof(float));
	kv = malloc(num_k * sizeof(*kv));
	ret = -ENOMEM;
	if (!x || !y || !z || !fr || !fi || !wr || !wi || !kin || !rho ||
	    !kv) {
		app_err(err, errlen, app, "out of memory");
		goto out;
	}
	/* As mri: voxels in [-0.5, 0.5), frequencies +-N^(1/3) / 2. */
	app_rng_init(&rng, seed, 64);
	for (k = 0; k < num_x; k++) {
		x[k] = app_rng_float(&rng) - 0.5f;
		y[k] = app_rng_float(&rng) - 0.5f;
		z[k] = app_rng_float(&rng) - 0.5f;
	}
	{
		float span = cbrtf((float)num_x);

		for (k = 0; k < num_k; k++) {
			kv[k].kx = (app_rng_float(&rng) - 0.5f) * span;
			kv[k].ky = (app_rng_float(&rng) - 0.5f) * span;
			kv[k].kz = (app_rng_float(&rng) - 0.5f) * span;
		}
	}
	app_rng_fill_float(&rng, kin, 4 * num_k, 1.0f);

	memset(&args, 0, sizeof(args));
	args.num_k = num_k;
	args.num_x = num_x;
	{
		static const char *const kname[] = {
			"phiR_d", "phiI_d", "dR_d", "dI_d",
			"realRhoPhi_d", "imagRhoPhi_d",
		};
		uint64_t *kaddr[] = {
			&args.phi_r, &args.phi_i, &args.d_r, &args.d_i,
			&args.rho_r, &args.rho_i,
		};
		static const char *const xname[] = {
			"x_d", "y_d", "z_d", "rFhD_d", "iFhD_d",
		};
		uint64_t *xaddr[] = {
			&args.x, &args.y, &args.z, &args.fr, &args.fi,
		};

		ret = 0;
		for (k = 0; !ret && k < 6; k++)
			ret = app_alloc(gpu, num_k * sizeof(float), kname[k],
					kaddr[k], app, err, errlen);
		for (k = 0; !ret && k < 5; k++)
			ret = app_alloc(gpu, num_x * sizeof(float), xname[k],
					xaddr[k], app, err, errlen);
	}
	if (!ret)
		ret = app_alloc(gpu, FHD_CHUNK * sizeof(*kv), "ck", &args.ck,
				app, err, errlen);
	if (ret)
		goto out;

	simt_h2d(gpu, args.phi_r, kin, num_k * sizeof(float));
	simt_h2d(gpu, args.phi_i, kin + num_k, num_k * sizeof(float));
	simt_h2d(gpu, args.d_r, kin + 2 * num_k, num_k * sizeof(float));
	simt_h2d(gpu, args.d_i, kin + 3 * num_k, num_k * sizeof(float));
	ret = app_launch(gpu, "ComputeRhoPhi_GPU", rhophi_kernel,
			 DIM3(app_blocks(num_k, FHD_RHO_BLOCK), 1, 1),
			 DIM3(FHD_RHO_BLOCK, 1, 1), 0, &args, app, err,
			 errlen);
	if (ret)
		goto out;
	simt_d2h(gpu, rho, args.rho_r, num_k * sizeof(float));
	simt_d2h(gpu, rho + num_k, args.rho_i, num_k * sizeof(float));
	for (k = 0; k < num_k; k++) {
		kv[k].rr = rho[k];
		kv[k].ri = rho[num_k + k];
	}

	/* rFhD_d, iFhD_d start zeroed (cudaMemset in Parboil). */
	simt_h2d(gpu, args.x, x, num_x * sizeof(float));
	simt_h2d(gpu, args.y, y, num_x * sizeof(float));
	simt_h2d(gpu, args.z, z, num_x * sizeof(float));
	for (done = 0; done < num_k; done += args.chunk) {
		args.chunk = num_k - done < FHD_CHUNK ? num_k - done :
			     FHD_CHUNK;
		simt_h2d(gpu, args.ck, kv + done, args.chunk * sizeof(*kv));
		ret = app_launch(gpu, "ComputeFH_GPU", computefh_kernel,
				 DIM3(app_blocks(num_x, FHD_FH_BLOCK), 1, 1),
				 DIM3(FHD_FH_BLOCK, 1, 1), 0, &args, app, err,
				 errlen);
		if (ret)
			goto out;
	}
	simt_d2h(gpu, fr, args.fr, num_x * sizeof(float));
	simt_d2h(gpu, fi, args.fi, num_x * sizeof(float));
	app_test_perturb(fr, sizeof(float), num_x);

	/* The reference computes rho phi itself, as the kernel does. */
	scale = 0.0f;
	for (k = 0; k < num_k; k++) {
		float pr = kin[k], pi = kin[num_k + k];
		float dr = kin[2 * num_k + k], di = kin[3 * num_k + k];

		kv[k].rr = pr * dr + pi * di;
		kv[k].ri = pr * di - pi * dr;
		scale += fabsf(kv[k].rr) + fabsf(kv[k].ri);
	}
	fhd_ref(kv, num_k, x, y, z, wr, wi, num_x);
	ret = fhd_check(fr, wr, num_x, scale, "rFhD", err, errlen);
	if (!ret)
		ret = fhd_check(fi, wi, num_x, scale, "iFhD", err, errlen);
out:
	free(x);
	free(y);
	free(z);
	free(fr);
	free(fi);
	free(wr);
	free(wi);
	free(kin);
	free(rho);
	free(kv);
	return ret;
}

const struct app_desc app_mri_fhd = {
	.name = "mri-fhd",
	.suite = "Parboil (mri-fhd)",
	.summary = "MRI F^H d: ComputeRhoPhi (blocks of 512), copied back to "
		   "build the sample table, then ComputeFH (blocks of 256, a "
		   "thread a voxel) over chunks of 512 samples copied in "
		   "between launches",
	.input = "size = voxels, with size / 8 k-space samples; voxel "
		 "coordinates uniform in [-0.5, 0.5), frequencies uniform in "
		 "+-size^(1/3) / 2, phi's and d's parts in [0, 1), all from "
		 "the seed (the values do not change the program; Parboil's "
		 "small input has 32768 voxels and 3072 samples). Large: "
		 "12288 voxels and 1536 samples (three chunks)",
	.small_size = 1024,
	.large_size = 12288,
	.paper_sizes = "ADSM Table 2: input not given; --large is 12288 "
		       "voxels and 1536 samples (Parboil's small input: 32768 "
		       "and 3072)",
	.kernels = "ComputeRhoPhi_GPU, ComputeFH_GPU",
	.run = fhd_run,
};
