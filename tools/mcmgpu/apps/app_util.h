/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the applications (apps.h) share: one pseudo-random generator, the
 * Graph500 R-MAT graph, HPCC's RandomAccess stream, GPU allocation with
 * errors, and the checks of results against the plain-C references.
 */
#ifndef MCMGPU_APP_UTIL_H
#define MCMGPU_APP_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "simt.h"

/*
 * splitmix64: every input of every application comes from it, so the
 * same (size, seed) gives the same bytes on every host. stream keeps the
 * inputs of one application (values, weights, ...) independent.
 */
struct app_rng {
	uint64_t state;
};

void app_rng_init(struct app_rng *r, uint64_t seed, uint64_t stream);
uint64_t app_rng_next(struct app_rng *r);
/* Uniform in [0, n), n > 0 (multiply-shift: no division, no retry). */
uint64_t app_rng_below(struct app_rng *r, uint64_t n);
/* Uniform in [0, 1): 53 and 24 random bits. */
double app_rng_unit(struct app_rng *r);
float app_rng_float(struct app_rng *r);
/* n floats uniform in [0, scale). */
void app_rng_fill_float(struct app_rng *r, float *v, size_t n, float scale);
/* A hash of x: splitmix64's finaliser. */
uint64_t app_mix64(uint64_t x);

/*
 * A graph in CSR form: row[v] .. row[v + 1] index col[] (and weight[]),
 * each row's columns sorted and distinct.
 */
struct app_graph {
	uint32_t nodes;
	uint32_t edges;			/* col[] entries (directed) */
	uint32_t *row;			/* nodes + 1 */
	uint32_t *col;
	uint32_t *weight;		/* NULL unless asked for */
};

/*
 * Graph500's Kronecker (R-MAT) generator: 2^scale vertices and 16 x
 * 2^scale edge tuples, each placed by scale quadrant choices with
 * a = 0.57, b = 0.19, c = 0.19, d = 0.05 (Graph500's reference code
 * draws the row bit with P(1) = c + d, then the column bit with P(1) =
 * b / (a + b) or d / (c + d)); vertex labels are then randomly permuted.
 * The graph is made undirected (each tuple both ways) without self loops
 * or duplicate edges. weights: each undirected edge gets an integer
 * weight uniform in [1, 255] (a hash of its ends and the seed, the same
 * both ways). 0 or -ENOMEM / -EINVAL with err set.
 */
int app_rmat(struct app_graph *g, unsigned int scale, uint64_t seed,
	     bool weights, const char *app, char *err, size_t errlen);
void app_graph_free(struct app_graph *g);
/* A random vertex with at least one edge (Graph500's search keys). */
uint32_t app_graph_root(const struct app_graph *g, uint64_t seed);
#define APP_RMAT_MAX_SCALE	26

/*
 * HPCC RandomAccess: the stream's polynomial and period, one step and
 * the n-th value from the start (HPCC_starts' jump ahead).
 */
#define APP_HPCC_POLY		7ULL
#define APP_HPCC_PERIOD		1317624576693539401ULL
static inline uint64_t app_hpcc_step(uint64_t ran)
{
	return (ran << 1) ^ ((int64_t)ran < 0 ? APP_HPCC_POLY : 0);
}
uint64_t app_hpcc_starts(uint64_t n);

/* The error string's helper: "app: ...". Returns err. */
char *app_err(char *err, size_t errlen, const char *app, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* -EINVAL unless lo <= size <= hi: "size S: WHAT must be LO to HI". */
int app_size_range(uint64_t size, uint64_t lo, uint64_t hi, const char *what,
		   const char *app, char *err, size_t errlen);

/* simt_malloc with the error an application returns: 0 or -ENOMEM. */
int app_alloc(struct simt_gpu *gpu, uint64_t bytes, const char *name,
	      uint64_t *addr, const char *app, char *err, size_t errlen);
/* simt_launch with the error an application returns. */
int app_launch(struct simt_gpu *gpu, const char *kernel, simt_kernel_fn fn,
	       struct simt_dim3 grid, struct simt_dim3 block, uint32_t shmem,
	       const void *args, const char *app, char *err, size_t errlen);

/*
 * Results against references: 0, or -EIO naming the first wrong element
 * ("app: what[i] = got, the reference says want"). Floats agree within
 * rel * |want|: the kernels and references add in the same order, so
 * only a compiler's multiply-add contraction can make them differ (on
 * x86-64 they are bit-identical), and every application's float inputs
 * are nonnegative, so no sum cancels and a relative bound holds.
 */
int app_check_u32(const uint32_t *got, const uint32_t *want, size_t n,
		  const char *app, const char *what, char *err, size_t errlen);
int app_check_i32(const int32_t *got, const int32_t *want, size_t n,
		  const char *app, const char *what, char *err, size_t errlen);
int app_check_u64(const uint64_t *got, const uint64_t *want, size_t n,
		  const char *app, const char *what, char *err, size_t errlen);
int app_check_f32(const float *got, const float *want, size_t n, float rel,
		  const char *app, const char *what, char *err, size_t errlen);
#define APP_FLOAT_TOLERANCE	1e-4f

/*
 * The tests' corruption hook (apps.h: app_test_corrupt): flips bit 6 of
 * the top byte of element n / 2 of an array just copied out, before the
 * check (for a float, the exponent's top bit).
 */
void app_test_perturb(void *v, size_t elem_bytes, size_t n);

/*
 * The minima of a and b over a block of n threads (n a power of two, tx
 * the thread's index), as a time-step kernel reduces its limits: both in
 * shared memory (2 n doubles), a tree of halvings with a barrier each;
 * after it the block's minima are at shared doubles 0 and n. OPS: a
 * level's halving and branch (INT 1, BRANCH 1), the two compares of the
 * threads below it (DP 2), the loop's add, compare and branch (INT 2,
 * BRANCH 1).
 */
void app_block_min2(struct simt_thread *t, uint32_t tx, uint32_t n,
		    double a, double b);

/* Blocks to cover n threads with blocks of bs. */
static inline uint32_t app_blocks(uint64_t n, uint32_t bs)
{
	return (uint32_t)((n + bs - 1) / bs);
}

#endif /* MCMGPU_APP_UTIL_H */
