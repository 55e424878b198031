// SPDX-License-Identifier: GPL-2.0
/*
 * Compute time per kernel for FinePack's timing model: each proxy's local
 * work priced on a GV100 roofline (docs/finepack.md, "Compute per kernel").
 * Memory traffic counts every byte of the kernel's data once (compulsory
 * traffic, caches assumed perfect), so these are lower bounds on compute
 * and upper bounds on how much the link matters.
 */
#include <math.h>

#include "fp_tool.h"

uint64_t fp_roofline_ns(double bytes, double flops)
{
	double mem = bytes / FP_GPU_HBM_GBPS, alu = flops / FP_GPU_GFLOPS;

	return (uint64_t)ceil(mem > alu ? mem : alu);
}

int fp_add_compute(struct fp_trace_buf *tb, uint32_t c, uint64_t ns)
{
	if (!ns)
		return 0;
	return fp_tb_add(tb, MCMGPU_FP_REC_COMPUTE, c, 0, ns, 0, NULL);
}

/* MBIR's ICD (Veo-like scanner [A]): a voxel's column of the system matrix. */
#define CT_VIEWS	984
#define CT_CHANNELS	3

uint64_t fp_kernel_compute_ns(const struct fp_gen_params *p)
{
	double face, points, local;

	switch (p->compute) {
	case FP_COMPUTE_STENCIL2D:
	case FP_COMPUTE_STENCIL3D:
		/*
		 * A face is a row (2-D) or a plane (3-D) of 8 B values, depth
		 * layers deep; the domain is a square or cube cut in slabs.
		 */
		face = (double)p->bytes / 8 / (p->depth ? p->depth : 1);
		points = p->compute == FP_COMPUTE_STENCIL2D ? face * face :
			 face * sqrt(face);
		points /= p->chiplets;
		/* Read the old value, write the new; neighbours hit in cache. */
		return fp_roofline_ns(16 * points, 8 * points);
	case FP_COMPUTE_FFT:
		/* A pass of 1-D FFTs over the local rows: 5 N log2 N flops. */
		local = (double)p->rows * p->rows * p->chiplets;
		return fp_roofline_ns(2 * local * p->store,
				      5 * local * log2((double)p->rows * p->chiplets));
	case FP_COMPUTE_STREAM:
		local = (double)p->rows * p->rows * p->chiplets;
		return fp_roofline_ns(2 * local * p->store, 0);
	case FP_COMPUTE_GATHER:
		/* An update reads its CSR row and its in-neighbours' values. */
		return fp_roofline_ns((double)p->count * (p->degree * 8.0 + 12), 0);
	case FP_COMPUTE_CT:
		/* Each voxel of the slab: its matrix column and error sinogram. */
		local = (double)p->bytes / p->store / p->chiplets;
		return fp_roofline_ns(local * CT_VIEWS * CT_CHANNELS * 8,
				      local * CT_VIEWS * CT_CHANNELS * 4);
	default:
		return 0;
	}
}
