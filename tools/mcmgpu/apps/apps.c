// SPDX-License-Identifier: GPL-2.0
/* The applications' table (apps.h). */
#include <string.h>

#include "apps.h"

/*
 * The order `mcmgpu workload list` shows: by suite, then the simple ones,
 * then the microbenchmarks.
 */
const struct app_desc *const apps[] = {
	&app_gups,
	&app_atax,
	&app_gesummv,
	&app_bicg,
	&app_gemver, &app_covariance, &app_correlation, &app_jacobi2d,
	&app_fdtd2d, &app_lu, &app_adi,
	&app_transpose,
	&app_spmv,
	&app_bfs,
	&app_sssp,
	&app_pagerank,
	&app_fastwalshtransform,
	&app_stencil2d,
	&app_nw,
	&app_fft,
	&app_vadd,
	&app_saxpy,
	&app_rsum,
	&app_gemm,
	&app_gauss,
	&app_path,
	&app_stencil,
	&app_conv3,
	&app_sort,
	&app_mri,
	&app_cfd,
	&app_gnn,
	&app_babelstream,
	&app_square,
	&app_hotspot,
	&app_srad,
	&app_backprop,
	&app_lud,
	&app_hotspot3d,
	&app_btree,
	&app_dwt2d,
	&app_rnn_gru,
	&app_rnn_lstm,
	&app_cnn,
	&app_color,
	&app_fw,
	&app_hacc,
	&app_lulesh,
	&app_pennant,
	&app_pns,
	&app_cp,
	&app_sad,
	&app_tpacf,
	&app_mri_fhd,
	&app_rpes,
	&app_adsm_stencil,
	&app_adsm_multipass,
	&app_fp_jacobi,
	&app_fp_diffusion,
	&app_fp_eqwp,
	&app_fp_pagerank,
	&app_fp_sssp,
	&app_fp_als,
	&app_fp_hit,
	&app_fp_ct,
	&app_micro_stream,
	&app_micro_chase,
	&app_micro_compute,
	&app_micro_tlb,
	NULL
};

const struct app_desc *app_find(const char *name)
{
	const struct app_desc *const *a;

	for (a = apps; *a; a++)
		if (!strcmp((*a)->name, name))
			return *a;
	return NULL;
}
