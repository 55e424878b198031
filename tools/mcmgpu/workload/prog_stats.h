/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a program does, counted as its records stream past (a
 * prog_sink_fn): thread blocks, warps and warp instructions, the memory
 * instructions by space and kind, the bytes and the distinct 128 B lines
 * and 4 KiB pages global memory instructions touch, for the whole program
 * and for each kernel, and the program's objects and host copies. This is
 * `mcmgpu workload stats` (docs/workloads.md#statistics).
 *
 * The counting rules:
 *  - warp_instructions: every INST record; the memory counts are warp
 *    level (one per INST record of that space and kind).
 *  - global_atomics: global ATOMIC and REDUCTION instructions both (a RED
 *    is an atomic that returns nothing); global_reductions: the RED share.
 *  - global_lanes: active lanes of every global memory instruction.
 *  - global_bytes_loaded / _stored: active lanes x width of global loads /
 *    stores only; atomics and reductions go to global_bytes_atomic.
 *  - global_lines / global_pages: the distinct 128 B lines and 4 KiB
 *    pages the bytes [addr, addr + width) of every active lane of every
 *    global memory instruction (any kind) cover. Per kernel: distinct
 *    within the kernel; the totals: distinct over the whole program (so
 *    not the sum of the kernels').
 *  - shared_accesses / local_accesses: shared / local memory instructions
 *    of every kind.
 */
#ifndef MCMGPU_TOOL_PROG_STATS_H
#define MCMGPU_TOOL_PROG_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "program.h"

#define PROG_STATS_LINE_SHIFT	7	/* 128 B lines */
#define PROG_STATS_PAGE_SHIFT	12	/* 4 KiB pages */

struct prog_stats_counts {
	uint64_t thread_blocks, warps, warp_instructions;
	uint64_t global_loads, global_stores, global_atomics, global_reductions;
	uint64_t shared_accesses, local_accesses;
	uint64_t global_lanes;
	uint64_t global_bytes_loaded, global_bytes_stored, global_bytes_atomic;
	uint64_t global_lines, global_pages;
};

struct prog_stats_kernel {
	uint32_t id;
	char *name;
	uint32_t grid[3], block[3];
	uint32_t shmem;
	uint64_t stream;
	struct prog_stats_counts c;
};

/*
 * A set of 64-bit keys that grows (open addressing). Each entry carries
 * the generation it was added in, so emptying it is O(1): the per-kernel
 * sets are emptied at every launch, however large they grew.
 */
struct prog_keyset_entry {
	uint64_t key;
	uint32_t gen;		/* the generation it was added in; 0 never */
};

struct prog_keyset {
	struct prog_keyset_entry *e;	/* key and generation together: one
					 * cache miss a probe */
	size_t cap, count;	/* cap a power of two; count: this generation */
	uint32_t cur;		/* the current generation, never 0 */
};

struct prog_stats {
	struct prog_stats_counts total;
	struct prog_object *objects;
	size_t nobjects, objects_cap;
	uint64_t h2d_bytes, d2h_bytes;
	uint64_t h2d_copies, d2h_copies;
	struct prog_stats_kernel *kernels;
	size_t nkernels, kernels_cap;
	struct prog_stats_kernel *cur;	/* the open kernel, or NULL */
	uint64_t records;
	bool ended;			/* END seen */
	struct prog_keyset lines, pages;		/* the program's */
	struct prog_keyset kernel_lines, kernel_pages;	/* the open kernel's */
};

void prog_stats_init(struct prog_stats *s);
void prog_stats_free(struct prog_stats *s);
/* A prog_sink_fn: 0, or -ENOMEM. */
int prog_stats_sink(void *stats, const struct prog_rec *rec);

/* The JSON object (totals at the top level, then kernels: [...]). */
void prog_stats_json(const struct prog_stats *s, FILE *f);
/* The same, readably. */
void prog_stats_text(const struct prog_stats *s, FILE *f);

/* The key set on its own (the tests use it). 0 or -ENOMEM. */
void prog_keyset_init(struct prog_keyset *ks);
void prog_keyset_free(struct prog_keyset *ks);
/* 1 if key was new, 0 if present, -ENOMEM. */
int prog_keyset_add(struct prog_keyset *ks, uint64_t key);
/* Empties it in O(1). */
void prog_keyset_clear(struct prog_keyset *ks);

#endif /* MCMGPU_TOOL_PROG_STATS_H */
