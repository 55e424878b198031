/* SPDX-License-Identifier: GPL-2.0 */
/*
 * FinePack §V's applications in the P2P-store style the paper evaluates
 * (fp_*.c, and the fp- programs of pagerank.c and sssp.c), on its system
 * of FP_GPUS GPUs: the finepack preset's 4 chiplets, its tb_sched chunk
 * (a grid's blocks in 4 contiguous ranges, range g on chiplet g) and
 * placement kwc (an object in 4 contiguous shares, share g in chiplet
 * g's memory).
 *
 * A replicated array is one object of FP_GPUS replicas, replica g at
 * element g x stride (stride: the array rounded up to whole 4 KiB pages,
 * so share g is exactly replica g). A grid is FP_GPUS x B blocks, block b
 * working for GPU b / B; a thread reads its GPU's replica (local) and
 * stores each result into every replica that needs it (its own: local;
 * the peers': remote P2P stores the queue coalesces). A launch is the
 * synchronization, as in the paper's kernels.
 */
#ifndef MCMGPU_FP_UTIL_H
#define MCMGPU_FP_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include "simt.h"

#define FP_GPUS		4

/* Elements of a replica: n rounded up to whole 4 KiB pages. */
uint64_t fp_stride(uint64_t n, size_t elem);

/*
 * Allocates the FP_GPUS replicas of an n-element array named name and
 * copies host (n elements, or nothing if NULL) into each: 0 or -ENOMEM.
 */
int fp_alloc(struct simt_gpu *gpu, uint64_t n, size_t elem, const void *host,
	     const char *name, uint64_t *addr, const char *app, char *err,
	     size_t errlen);

/*
 * Copies every replica out (FP_GPUS x fp_stride(n) elements, malloc'd;
 * NULL when out of memory) and applies the tests' corruption to the
 * whole object, so it lands in replica FP_GPUS / 2.
 */
void *fp_fetch(struct simt_gpu *gpu, uint64_t addr, uint64_t n, size_t elem);

/*
 * Checks every replica of got (fp_fetch's): replica g's elements
 * [lo[g], hi[g]) against want (within APP_FLOAT_TOLERANCE), the others
 * against init (exactly: nothing may have stored there). lo, hi NULL:
 * every element against want. 0 or -EIO naming the replica and element.
 */
int fp_check_f32(const float *got, uint64_t n, const float *want,
		 const float *init, const uint64_t *lo, const uint64_t *hi,
		 const char *app, const char *what, char *err, size_t errlen);
int fp_check_i32(const int32_t *got, uint64_t n, const int32_t *want,
		 const char *app, const char *what, char *err, size_t errlen);

#endif /* MCMGPU_FP_UTIL_H */
