/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The applications: GPU kernels written against the SIMT executor's API
 * (simt.h), each from its suite's published algorithm, with its host code
 * between launches, a deterministic input generator and a plain-C
 * reference its result is checked against. `mcmgpu workload gen APP`
 * runs one into a program (docs/workloads.md).
 *
 * Arithmetic is stated with OPS() as a compiler would emit it for the
 * kernel's own operations, one per thread at each place:
 *  - FP: one per float add or multiply, a * b + c being one (FFMA);
 *  - INT: one per integer operation on values (add, compare, shift,
 *    logic, select; an index a * b + c is one IMAD). The thread's global
 *    index costs one, a bounds test one; address arithmetic folded into
 *    a load or store is not counted;
 *  - BRANCH: one per conditional branch the code takes or skips (a
 *    bounds test, a data-dependent if, a loop's back edge per iteration).
 * Each kernel's comment derives its counts from its code.
 */
#ifndef MCMGPU_APPS_H
#define MCMGPU_APPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "simt.h"

struct app_desc {
	const char *name, *suite, *summary;
	/* How the data is generated, and what size means. */
	const char *input;
	/* make check's size, and make run's. */
	uint64_t small_size, large_size;
	/*
	 * The kernels the program launches, by name, in first-launch order,
	 * comma-separated (apps_test checks it against the program).
	 */
	const char *kernels;
	/*
	 * The input each paper that evaluates the application gives it, and
	 * the size that stands for it here ("CPElide Table II: 524288 = size
	 * 524288; ..."); "" for an application no paper names.
	 */
	const char *paper_sizes;
	/*
	 * Generates the input from (size, seed), copies it in, launches the
	 * kernels with the host code between them, copies the result out
	 * and checks it against the reference: 0, -EIO naming the first
	 * wrong element, -EINVAL for a size the application cannot take,
	 * -ENOMEM, or the executor's error; the message in err.
	 */
	int (*run)(struct simt_gpu *gpu, uint64_t size, uint64_t seed,
		   char *err, size_t errlen);
};

/* NULL-terminated, in a fixed order. */
extern const struct app_desc *const apps[];
/* The application named name, or NULL. */
const struct app_desc *app_find(const char *name);

/*
 * For tests only: while set, every run() corrupts one element of its
 * result after copying it out, so the check must catch it.
 */
extern bool app_test_corrupt;

extern const struct app_desc app_gups, app_atax, app_gesummv, app_bicg,
	app_transpose, app_spmv, app_bfs, app_sssp, app_pagerank, app_vadd,
	app_saxpy, app_micro_stream, app_micro_chase, app_micro_compute,
	app_micro_tlb;
extern const struct app_desc app_gemver, app_covariance, app_correlation,
	app_jacobi2d, app_fdtd2d, app_lu, app_adi;
extern const struct app_desc app_fastwalshtransform;
extern const struct app_desc app_stencil2d;
extern const struct app_desc app_nw;
extern const struct app_desc app_fft;
extern const struct app_desc app_rsum, app_gemm, app_gauss, app_path,
	app_stencil, app_conv3, app_sort, app_mri, app_cfd, app_gnn;
extern const struct app_desc app_babelstream, app_square, app_hotspot,
	app_srad, app_backprop, app_lud, app_hotspot3d, app_btree, app_dwt2d;
extern const struct app_desc app_rnn_gru, app_rnn_lstm, app_cnn;
extern const struct app_desc app_color, app_fw, app_hacc, app_lulesh,
	app_pennant;

extern const struct app_desc app_pns;
extern const struct app_desc app_cp;
extern const struct app_desc app_sad;
extern const struct app_desc app_tpacf;
extern const struct app_desc app_mri_fhd;
extern const struct app_desc app_rpes;
extern const struct app_desc app_adsm_stencil;
extern const struct app_desc app_adsm_multipass;
extern const struct app_desc app_fp_pagerank, app_fp_sssp, app_fp_jacobi,
	app_fp_als, app_fp_ct, app_fp_eqwp, app_fp_diffusion, app_fp_hit;

#endif /* MCMGPU_APPS_H */
