// SPDX-License-Identifier: GPL-2.0
/*
 * mri (CXL-GPU's workload table): Parboil's mri-q, the Q matrix of a
 * non-Cartesian MRI reconstruction. ComputePhiMag (blocks of 512) makes
 * |phi|^2 for every k-space sample; then the host copies the samples
 * (Kx, Ky, Kz, PhiMag) in chunks of 1024 (KERNEL_Q_K_ELEMS_PER_GRID) to
 * the kernel's table and launches ComputeQ (blocks of 256) for each: a
 * thread a voxel accumulates Q += PhiMag (cos, sin)(2 pi k . x) over the
 * chunk, keeping Qr, Qi in registers and storing them at its end.
 * Parboil keeps the chunk in constant memory; the executor has no
 * constant space yet, so it is a global array every lane of a warp
 * reads at the same address (a broadcast).
 */
#include <errno.h>
#include <math.h>
#include <string.h>
#include <stdlib.h>

#include "app_util.h"
#include "apps.h"

#define MRI_PHI_BLOCK	512
#define MRI_Q_BLOCK	256
#define MRI_CHUNK	1024
#define MRI_K_RATIO	8		/* voxels a k-space sample */
#define MRI_MAX		(1ULL << 24)
#define MRI_PIX2	6.2831853071795864769252867665590058f

struct mri_kvalue {
	float kx, ky, kz, phi_mag;
};

struct mri_args {
	uint64_t phi_r, phi_i, phi_mag;
	uint64_t x, y, z, qr, qi, ck;
	uint32_t num_k, num_x, chunk;
};

/* OPS: the index and bound (INT 2, BRANCH 1), the FFMA and multiply (FP 2). */
static void phimag_kernel(struct simt_thread *t, const void *p)
{
	const struct mri_args *a = p;
	uint64_t k = simt_global_x(t);
	float r, i;

	OPS(t, PROG_OP_INT, 2);
	OPS(t, PROG_OP_BRANCH, 1);
	if (k >= a->num_k)
		return;
	r = LD(t, float, a->phi_r, k);
	i = LD(t, float, a->phi_i, k);
	OPS(t, PROG_OP_FP, 2);
	ST(t, float, a->phi_mag, k, r * r + i * i);
}

/*
 * OPS: the index and bound (INT 2, BRANCH 1); a sample: the dot product
 * and its scaling (FP 4), cos and sin (SFU 2), the two accumulations
 * (FP 2), the loop (INT 2, BRANCH 1).
 */
static void computeq_kernel(struct simt_thread *t, const void *p)
{
	const struct mri_args *a = p;
	uint64_t v = simt_global_x(t);
	float sx, sy, sz, qr, qi;
	uint32_t k;

	OPS(t, PROG_OP_INT, 2);
	OPS(t, PROG_OP_BRANCH, 1);
	if (v >= a->num_x)
		return;
	sx = LD(t, float, a->x, v);
	sy = LD(t, float, a->y, v);
	sz = LD(t, float, a->z, v);
	qr = LD(t, float, a->qr, v);
	qi = LD(t, float, a->qi, v);
	for (k = 0; k < a->chunk; k++) {
		float kx = LD(t, float, a->ck, 4 * k);
		float ky = LD(t, float, a->ck, 4 * k + 1);
		float kz = LD(t, float, a->ck, 4 * k + 2);
		float phi = LD(t, float, a->ck, 4 * k + 3);
		float arg = MRI_PIX2 * (kx * sx + ky * sy + kz * sz);

		OPS(t, PROG_OP_FP, 4);
		OPS(t, PROG_OP_SFU, 2);
		OPS(t, PROG_OP_FP, 2);
		qr = qr + phi * cosf(arg);
		qi = qi + phi * sinf(arg);
		OPS(t, PROG_OP_INT, 2);
		OPS(t, PROG_OP_BRANCH, 1);
	}
	ST(t, float, a->qr, v, qr);
	ST(t, float, a->qi, v, qi);
}

/* The reference: the same sums, voxel by voxel, in sample order. */
static void mri_ref(const struct mri_kvalue *kv, uint32_t num_k,
		    const float *x, const float *y, const float *z, float *qr,
		    float *qi, uint32_t num_x)
{
	uint32_t v, k;

	for (v = 0; v < num_x; v++) {
		float r = 0.0f, i = 0.0f;

		for (k = 0; k < num_k; k++) {
			float arg = MRI_PIX2 * (kv[k].kx * x[v] +
						kv[k].ky * y[v] +
						kv[k].kz * z[v]);

			r = r + kv[k].phi_mag * cosf(arg);
			i = i + kv[k].phi_mag * sinf(arg);
		}
		qr[v] = r;
		qi[v] = i;
	}
}

static int mri_run(struct simt_gpu *gpu, uint64_t size, uint64_t seed,
		   char *err, size_t errlen)
{
	const char *app = "mri";
	const uint32_t num_x = (uint32_t)size;
	const uint32_t num_k = (uint32_t)(size / MRI_K_RATIO);
	float *x = NULL, *y = NULL, *z = NULL, *pr = NULL, *pi = NULL;
	float *pm = NULL, *qr = NULL, *qi = NULL, *wr = NULL, *wi = NULL;
	struct mri_kvalue *kv = NULL;
	struct mri_args args;
	struct app_rng rng;
	uint32_t k, done;
	int ret;

	ret = app_size_range(size, MRI_K_RATIO, MRI_MAX, "the voxels", app,
			     err, errlen);
	if (ret)
		return ret;
	x = malloc(num_x * sizeof(float));
	y = malloc(num_x * sizeof(float));
	z = malloc(num_x * sizeof(float));
	qr = malloc(num_x * sizeof(float));
	qi = malloc(num_x * sizeof(float));
	wr = malloc(num_x * sizeof(float));
	wi = malloc(num_x * sizeof(float));
	pr = malloc(num_k * sizeof(float));
	pi = malloc(num_k * sizeof(float));
	pm = malloc(num_k * sizeof(float));
	kv = malloc(num_k * sizeof(*kv));
	ret = -ENOMEM;
	if (!x || !y || !z || !qr || !qi || !wr || !wi || !pr || !pi ||
	    !pm || !kv) {
		app_err(err, errlen, app, "out of memory");
		goto out;
	}
	/*
	 * Voxel coordinates in [-0.5, 0.5) of the field of view, k-space
	 * frequencies in [-N^(1/3) / 2, N^(1/3) / 2) a dimension as a grid
	 * of N voxels samples them, phi's parts in [0, 1): from the seed.
	 */
	app_rng_init(&rng, seed, 46);
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
	app_rng_fill_float(&rng, pr, num_k, 1.0f);
	app_rng_fill_float(&rng, pi, num_k, 1.0f);

	memset(&args, 0, sizeof(args));
	args.num_k = num_k;
	args.num_x = num_x;
	ret = app_alloc(gpu, num_k * sizeof(float), "phiR_d", &args.phi_r,
			app, err, errlen);
	if (!ret)
		ret = app_alloc(gpu, num_k * sizeof(float), "phiI_d",
				&args.phi_i, app, err, errlen);
	if (!ret)
		ret = app_alloc(gpu, num_k * sizeof(float), "phiMag_d",
				&args.phi_mag, app, err, errlen);
	if (!ret)
		ret = app_alloc(gpu, num_x * sizeof(float), "x_d", &args.x,
				app, err, errlen);
	if (!ret)
		ret = app_alloc(gpu, num_x * sizeof(float), "y_d", &args.y,
				app, err, errlen);
	if (!ret)
		ret = app_alloc(gpu, num_x * sizeof(float), "z_d", &args.z,
				app, err, errlen);
	if (!ret)
		ret = app_alloc(gpu, num_x * sizeof(float), "Qr_d", &args.qr,
				app, err, errlen);
	if (!ret)
		ret = app_alloc(gpu, num_x * sizeof(float), "Qi_d", &args.qi,
				app, err, errlen);
	if (!ret)
		ret = app_alloc(gpu, MRI_CHUNK * sizeof(*kv), "ck", &args.ck,
				app, err, errlen);
	if (ret)
		goto out;

	simt_h2d(gpu, args.phi_r, pr, num_k * sizeof(float));
	simt_h2d(gpu, args.phi_i, pi, num_k * sizeof(float));
	ret = app_launch(gpu, "ComputePhiMag_GPU", phimag_kernel,
			 DIM3(app_blocks(num_k, MRI_PHI_BLOCK), 1, 1),
			 DIM3(MRI_PHI_BLOCK, 1, 1), 0, &args, app, err,
			 errlen);
	if (ret)
		goto out;
	simt_d2h(gpu, pm, args.phi_mag, num_k * sizeof(float));
	for (k = 0; k < num_k; k++)
		kv[k].phi_mag = pm[k];

	/* Qr_d, Qi_d start zeroed (cudaMemset in Parboil: the allocation's). */
	simt_h2d(gpu, args.x, x, num_x * sizeof(float));
	simt_h2d(gpu, args.y, y, num_x * sizeof(float));
	simt_h2d(gpu, args.z, z, num_x * sizeof(float));
	for (done = 0; done < num_k; done += args.chunk) {
		args.chunk = num_k - done < MRI_CHUNK ? num_k - done :
			     MRI_CHUNK;
		simt_h2d(gpu, args.ck, kv + done, args.chunk * sizeof(*kv));
		ret = app_launch(gpu, "ComputeQ_GPU", computeq_kernel,
				 DIM3(app_blocks(num_x, MRI_Q_BLOCK), 1, 1),
				 DIM3(MRI_Q_BLOCK, 1, 1), 0, &args, app, err,
				 errlen);
		if (ret)
			goto out;
	}
	simt_d2h(gpu, qr, args.qr, num_x * sizeof(float));
	simt_d2h(gpu, qi, args.qi, num_x * sizeof(float));
	app_test_perturb(qr, sizeof(float), num_x);

	/* The reference computes |phi|^2 itself, as the kernel does. */
	for (k = 0; k < num_k; k++)
		kv[k].phi_mag = pr[k] * pr[k] + pi[k] * pi[k];
	mri_ref(kv, num_k, x, y, z, wr, wi, num_x);
	ret = app_check_f32(qr, wr, num_x, APP_FLOAT_TOLERANCE, app, "Qr",
			    err, errlen);
	if (!ret)
		ret = app_check_f32(qi, wi, num_x, APP_FLOAT_TOLERANCE, app,
				    "Qi", err, errlen);
out:
	free(x);
	free(y);
	free(z);
	free(qr);
	free(qi);
	free(wr);
	free(wi);
	free(pr);
	free(pi);
	free(pm);
	free(kv);
	return ret;
}

const struct app_desc app_mri = {
	.name = "mri",
	.suite = "Parboil (mri-q)",
	.summary = "MRI Q matrix: ComputePhiMag (blocks of 512), then "
		   "ComputeQ (blocks of 256, a thread a voxel) over chunks of "
		   "1024 k-space samples copied in between launches",
	.input = "size = voxels, with size / 8 k-space samples; voxel "
		 "coordinates uniform in [-0.5, 0.5), frequencies uniform in "
		 "+-size^(1/3) / 2, phi's parts in [0, 1), all from the seed "
		 "(the values do not change the program; Parboil's small "
		 "input has 32768 voxels and 3072 samples). Large: 12288 "
		 "voxels and 1536 samples (two chunks): mri-q is compute "
		 "bound, its data small (240 KiB); the voxels x samples "
		 "product bounds it, not the paper's 10x the GPU's memory",
	.small_size = 1024,
	.large_size = 12288,
	.paper_sizes = "CXL-GPU: no input given, data sized to 10x the GPU's "
		       "memory (640 MiB for the cxl preset's 64 MiB) = "
		       "--large, 12288 voxels and 1536 samples (compute "
		       "bound; the table calls mri sort + conv3, this is "
		       "Parboil's mri-q); ADSM Table 2 (mri-q): input not "
		       "given",
	.kernels = "ComputePhiMag_GPU, ComputeQ_GPU",
	.run = mri_run,
};
