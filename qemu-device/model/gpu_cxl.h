/*
 * CXL-GPU in the GPU timing core's memory path (gpu_core.h, docs/gpu.md
 * "CXL-GPU in the core"): objects placed in CXL memory are served by the
 * GPU's CXL root complex (its root ports' SR/DS queue logic and the
 * Type-3 endpoints' media, cxl_srds.h, driven event by event) instead of
 * the chiplets' DRAM. The core keeps the caches and the time; this file
 * decides which addresses are CXL memory, maps them into the CXL window,
 * converts cycles to picoseconds and back, and queues what the root
 * ports cannot take yet.
 *
 * Decisions where the paper is silent ([A], docs/gpu.md):
 *  - Placement: objects with index >= cfg.cxl_first_object (0: all, the
 *    paper's inputs are 10x GPU memory) live in CXL memory; the others
 *    in the chiplets' DRAM. An index is the one thing a u32 field can
 *    name in every program.
 *  - An L2 sector miss to CXL memory is one 64 B CXL load (MemRd) of the
 *    line holding it; only the missing sector is filled. A dirty L2 line
 *    written back sends one 64 B store per 64 B half with a dirty
 *    sector. Stores that miss allocate in the L2 (write-back), so CXL
 *    sees stores as write-backs, as the paper's LLC misses.
 *  - The CXL window offset of an address is the address modulo the
 *    window (cxl_ports x 16 GiB), interleaved over the root ports every
 *    4 KiB (the paper interleaves nothing; with one port it is the
 *    paper's single region).
 *
 * Freestanding: shared by the QEMU device, the tool (--host) and the host
 * tests. Deterministic.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef MCMGPU_GPU_CXL_H
#define MCMGPU_GPU_CXL_H

#include "mcmgpu_compat.h"
#include "mcmgpu_cxl.h"
#include "gpu_config.h"

#define GPU_CXL_PORT_BYTES      (16ULL << 30)   /* an endpoint's capacity */
#define GPU_CXL_INTERLEAVE      4096            /* bytes a port a round */

struct gpu_cxl;

typedef void *(*gpu_cxl_alloc_fn)(void *priv, size_t bytes);
typedef void (*gpu_cxl_free_fn)(void *priv, void *p);
/* A load submitted with tag completed: its data is back at cycle. */
typedef void (*gpu_cxl_done_fn)(void *core, u32 tag, u64 cycle);

/* NULL: out of memory. */
struct gpu_cxl *gpu_cxl_create(const struct gpu_config *cfg,
                               gpu_cxl_alloc_fn alloc, gpu_cxl_free_fn free,
                               void *priv, gpu_cxl_done_fn done, void *core);
void gpu_cxl_destroy(struct gpu_cxl *x);
/*
 * An object [va, va + size) of the program, index in program order: it
 * lives in CXL memory if the placement says so. 0 or -ENOMEM.
 */
int gpu_cxl_object(struct gpu_cxl *x, u32 index, u64 va, u64 size);
/* The GPU virtual address va is in CXL memory. */
bool gpu_cxl_holds(struct gpu_cxl *x, u64 va);
/*
 * At cycle (never before the last call's): a load of the sector at
 * physical address pa (done(tag) when back), or a write-back of one.
 * 0 or -ENOMEM.
 */
int gpu_cxl_load(struct gpu_cxl *x, u64 cycle, u64 pa, u32 tag);
int gpu_cxl_store(struct gpu_cxl *x, u64 cycle, u64 pa);
/*
 * Runs the root complex to the end of cycle: completions call done,
 * queued requests retry. 0 or -ENOMEM.
 */
int gpu_cxl_run(struct gpu_cxl *x, u64 cycle);
/*
 * The program ended: what is still queued or in flight (write-backs, DS
 * flushes) runs to its end, so the counters hold every request; the
 * GPU's cycles do not wait for it, as they do not for DRAM write-backs.
 */
void gpu_cxl_drain(struct gpu_cxl *x);
/* The cycle gpu_cxl_run() must next be called at; ~0 if none. */
u64 gpu_cxl_next(const struct gpu_cxl *x);
/* The counters, as `mcmgpu cxl replay --json` names them. */
void gpu_cxl_stats(const struct gpu_cxl *x,
                   struct mcmgpu_cxl_sim_result *res);

/*
 * The time series (`mcmgpu run --host --timeline CYCLES`, docs/gpu.md
 * "CXL-GPU in the core"): the root complex sampled every 'every' cycles.
 * Sample k covers cycles (k x every, (k + 1) x every], sample 0 also
 * cycle 0; an event counts in the sample of the first cycle starting at
 * or after its time. Each endpoint's state is read from the model as it
 * changes (srds_probe()), so sampling adds no event and the run's timing
 * is the same with it or without.
 */
struct gpu_cxl_sample {
    u64 ingress_max;            /* deepest endpoint ingress FIFO in it */
    u64 loads;                  /* loads completed in it (GPU-seen) */
    u64 load_latency_ps;        /* their latencies: sum and largest */
    u64 load_latency_max_ps;
    u64 stores;                 /* stores completed in it */
    u64 store_latency_ps;
    u64 store_latency_max_ps;
    u64 gc;                     /* GC runs holding channels during it */
    u64 ds_staged;              /* stores DS staged in it */
    u64 ds_held_max;            /* most lines DS staging held in it */
};

#define GPU_CXL_TIMELINE_MAX    (1ULL << 20)    /* samples at most */

/* Turn sampling on, before the first request. 0, or -EINVAL (every 0). */
int gpu_cxl_timeline(struct gpu_cxl *x, u64 every);
/*
 * After gpu_cxl_drain(), for a run whose last cycle is end: *n =
 * ceil(end / every) samples (1 when end is 0) at *samples (x's, until
 * gpu_cxl_destroy()), and in *after what happened after end (the drain:
 * write-backs, DS flushes). Every completion and DS staging is in one
 * sample or in *after, so their sums equal the end-of-run counters, and
 * the largest ingress_max equals ingress_max. 0, -E2BIG (more than
 * GPU_CXL_TIMELINE_MAX samples), -ENOMEM, or -EINVAL (sampling off).
 */
int gpu_cxl_samples(struct gpu_cxl *x, u64 end,
                    const struct gpu_cxl_sample **samples, u64 *n,
                    struct gpu_cxl_sample *after);

#endif /* MCMGPU_GPU_CXL_H */
