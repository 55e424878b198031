/* SPDX-License-Identifier: GPL-2.0 */
/*
 * CPElide workloads as step tables (cpe_workloads.c) and the interpreter
 * that writes them out as launch sequences (cpe_steps.c).
 *
 * A workload is a table of steps: allocations, host transfers, kernels and
 * loops, in the order the application issues them. A kernel argument names
 * an object, its mode and a range set: the bytes each chiplet's work-groups
 * touch. The tables hold what the application does; GEOM steps call the
 * workload's geometry functions, which compute the range sets (chunks of
 * work-groups, halos, frontiers) for the chiplet count: once at the start,
 * and again inside a loop where the sets change from one iteration to the
 * next.
 */
#ifndef CPE_STEPS_H
#define CPE_STEPS_H

#include <stdio.h>

#include "mcmgpu_cpelide.h"

#define MAXC		MCMGPU_MAX_CHIPLETS
#define MAX_KARGS	8	/* the paper's maximum per kernel (§III-A) */
#define MAX_SLOTS	12	/* argument slots of a kernel step */
#define MAX_SETS	24
#define MAX_MASKS	8
#define MAX_VARS	8
#define MAX_DEPTH	3	/* nested loops */

typedef unsigned long long u64;

/* Bytes [lo, hi) of an object; empty when hi <= lo. */
struct rg {
	u64 lo, hi;
};

/* What a workload's geometry fills and its steps read. */
struct cpe_gen {
	FILE *f;
	unsigned int n;			/* chiplets */
	u64 it[MAX_DEPTH];		/* the enclosing loops' indices, outermost first */
	struct rg set[MAX_SETS][MAXC];	/* range sets: set[s][c], chiplet c's bytes */
	unsigned int mask[MAX_MASKS];	/* kernels' chiplet sets */
	u64 var[MAX_VARS];		/* sizes, counts and passes the tables take from here */
	const unsigned long long *param;	/* the workload's parameters */
	void *priv;			/* the geometry's own state */
};

enum { STEPS_END, S_ALLOC, S_WRITE, S_READ, S_KERNEL, S_LOOP, S_LOOP_END, S_GEOM };

/*
 * How a slot's ranges are found. An argument whose ranges are all empty
 * is left out of the kernel record: a geometry empties a set to drop an
 * argument in some iterations (the first timestep's hx instead of y).
 */
enum { IN_SET, EVERY, FIRST, UNKNOWN };

struct cpe_slot {
	const char *obj;	/* "a|b|c": the outermost loop's index picks one */
	unsigned char rw, kind, set;
	u64 unit;		/* IN_SET: the set counts units of this many bytes (0: 1) */
	u64 lo, hi;		/* EVERY, FIRST: bytes [lo, hi) */
};

struct cpe_step {
	unsigned char op;
	unsigned char mask;	/* S_KERNEL: index in cpe_gen.mask; empty: no launch */
	unsigned char var;	/* 1 + index in cpe_gen.var that replaces n; 0: none */
	const char *name;	/* object or kernel */
	u64 n;			/* bytes, loop count or passes */
	u64 lo, hi;		/* host transfers: bytes [lo, hi) (hi 0: all of it) */
	struct cpe_slot arg[MAX_SLOTS];
	void (*geom)(struct cpe_gen *g);	/* S_GEOM */
};

/* Chiplet sets every workload has; its own are numbered from M_OWN. */
enum { M_ALL, M_CHIPLET0, M_OWN };

#define ALLOC(o, bytes)		{ .op = S_ALLOC, .name = (o), .n = (bytes) }
#define ALLOC_VAR(o, v)		{ .op = S_ALLOC, .name = (o), .var = (v) + 1 }
#define WRITE(o)		{ .op = S_WRITE, .name = (o) }
#define READ(o)			{ .op = S_READ, .name = (o) }
#define WRITE_RANGE(o, l, h)	{ .op = S_WRITE, .name = (o), .lo = (l), .hi = (h) }
#define READ_RANGE(o, l, h)	{ .op = S_READ, .name = (o), .lo = (l), .hi = (h) }
#define LOOP(count)		{ .op = S_LOOP, .n = (count) }
#define LOOP_VAR(v)		{ .op = S_LOOP, .var = (v) + 1 }
#define LOOP_END		{ .op = S_LOOP_END }
#define GEOM(fn)		{ .op = S_GEOM, .geom = (fn) }
#define STEPS_DONE		{ .op = STEPS_END }
#define KERNEL(k, m, ...) \
	{ .op = S_KERNEL, .name = (k), .mask = (m), .n = 1, .arg = { __VA_ARGS__ } }
#define KERNEL_PASSES(k, m, passes, ...) \
	{ .op = S_KERNEL, .name = (k), .mask = (m), .n = (passes), .arg = { __VA_ARGS__ } }
#define KERNEL_PASSES_VAR(k, m, v, ...) \
	{ .op = S_KERNEL, .name = (k), .mask = (m), .var = (v) + 1, .arg = { __VA_ARGS__ } }

/* Arguments: set s (in units of u bytes), the same bytes on every chiplet
 * of the kernel, bytes on chiplet 0 only (flags, atomics), or unknown
 * before launch (pointer chasing, §III-C). */
#define R(o, s)			{ .obj = (o), .set = (s) }
#define RW(o, s)		{ .obj = (o), .rw = 1, .set = (s) }
#define R_UNITS(o, s, u)	{ .obj = (o), .set = (s), .unit = (u) }
#define RW_UNITS(o, s, u)	{ .obj = (o), .rw = 1, .set = (s), .unit = (u) }
#define R_EVERY(o, l, h)	{ .obj = (o), .kind = EVERY, .lo = (l), .hi = (h) }
#define RW_EVERY(o, l, h)	{ .obj = (o), .rw = 1, .kind = EVERY, .lo = (l), .hi = (h) }
#define RW_FIRST(o, l, h)	{ .obj = (o), .rw = 1, .kind = FIRST, .lo = (l), .hi = (h) }
#define R_UNKNOWN(o)		{ .obj = (o), .kind = UNKNOWN }

/* ---- geometry helpers ---------------------------------------------- */

static inline u64 min64(u64 a, u64 b)
{
	return a < b ? a : b;
}

static inline u64 max64(u64 a, u64 b)
{
	return a > b ? a : b;
}

static inline u64 sub0(u64 a, u64 b)
{
	return a > b ? a - b : 0;
}

int chunk(u64 G, unsigned int n, unsigned int c, u64 *lo, u64 *hi);
unsigned int wg_rg(struct rg *r, unsigned int n, u64 G, u64 per, u64 base,
		   u64 end);
void rg_clear(struct rg *r);
void rg_all(struct rg *r, unsigned int mask, u64 lo, u64 hi);
u64 occ(u64 L, double probes);
double dexp(double x);

#endif /* CPE_STEPS_H */
