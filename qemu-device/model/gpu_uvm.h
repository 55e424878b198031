/*
 * CXL-GPU's baselines in the GPU timing core (docs/gpu.md "UVM and GDS in
 * the core"): the objects start outside the GPU, in host memory (UVM) or
 * on the storage device (GDS), and the host runtime migrates them to GPU
 * memory page by page on the GPU's page faults (paper §Methodology: "In
 * both cases, data is transferred to the GPU per page through the host
 * runtime", which costs about 500 us, from Allen & Ge, IPDPS'21).
 *
 * Decisions where the paper is silent ([A], docs/gpu.md):
 *  - A memory instruction's sectors are checked page by page at issue; a
 *    page not in GPU memory faults and those sectors wait (the warp
 *    waits for a load's data as for any miss; a kernel ends only when its
 *    stores are done).
 *  - Batches, as the NVIDIA driver's fault buffer: with the servicer
 *    idle, a fault opens a batch that starts the next cycle; the faults
 *    raised while a batch is serviced form the next one, which starts
 *    when it ends; a batch takes at most uvm_batch faults (256, the
 *    driver's default fault batch), the rest wait for the next. A fault
 *    on a page already queued or migrating is a duplicate: it waits for
 *    that page's batch and takes no room.
 *  - A batch costs the host runtime (uvm_runtime_ns) plus its transfers:
 *    UVM one DMA over the host link (pcie_dma_lat + bytes / uvm_pcie_bw,
 *    the core's ADSM transfer formula), the dirty pages it evicts (D2H)
 *    and the pages it migrates (H2D); GDS the same DMA, and before it the
 *    storage's reads (and programs of dirty evictions) of its pages over
 *    the endpoint's dies (cxl_srds.c's media: srds_media_pages_ps()).
 *  - GPU memory holds uvm_gpu_kib (0: the footprint / 10, the paper's
 *    inputs being 10x the GPU's memory); when a batch's pages do not fit,
 *    the least recently migrated pages are evicted first (the driver
 *    replaces "older pages"); a later access to an evicted page faults
 *    again. The caches keep its lines (the core holds no data, only
 *    time, and every access is checked at issue, before the L1;
 *    invalidating 32 lines in every L1 and L2 per eviction cost more
 *    host time than the rest of a thrashing run).
 *
 * Freestanding: shared by the QEMU device, the tool (--host) and the host
 * tests. Deterministic.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef MCMGPU_GPU_UVM_H
#define MCMGPU_GPU_UVM_H

#include "mcmgpu_compat.h"
#include "gpu_config.h"

/* The JSON's "uvm" group (cfg.uvm on; all 0 when off). */
struct gpu_uvm_stats {
    u64 page_bytes;         /* the migration unit */
    u64 gpu_pages;          /* GPU memory, pages */
    u64 footprint_pages;    /* the objects' pages */
    u64 faults;             /* accesses to a page not in GPU memory */
    u64 duplicate_faults;   /* of them, on a page queued or migrating */
    u64 batches;
    u64 batch_max;          /* the largest batch's pages */
    u64 pages_migrated;     /* = faults - duplicate_faults */
    u64 evictions;
    u64 dirty_evictions;    /* written back (D2H) */
    u64 h2d_bytes;          /* pages_migrated x page_bytes */
    u64 d2h_bytes;          /* dirty_evictions x page_bytes */
    u64 runtime_cycles;     /* the host runtime's share of the batches */
    u64 xfer_cycles;        /* the DMA's share */
    u64 storage_cycles;     /* GDS: the storage's reads and programs */
    u64 batch_cycles;       /* the servicer busy: the three above */
    u64 stall_cycles;       /* sum over faults of the wait to residence */
};

struct gpu_uvm;

typedef void *(*gpu_uvm_alloc_fn)(void *priv, size_t bytes);
typedef void (*gpu_uvm_free_fn)(void *priv, void *p);
/* The waiter's page is in GPU memory at cycle (now). */
typedef void (*gpu_uvm_wake_fn)(void *core, u32 waiter);

/* NULL: out of memory. */
struct gpu_uvm *gpu_uvm_create(const struct gpu_config *cfg,
                               gpu_uvm_alloc_fn alloc, gpu_uvm_free_fn free,
                               void *priv, gpu_uvm_wake_fn wake,
                               void *core);
void gpu_uvm_destroy(struct gpu_uvm *u);
/* An object of the program: its pages count in the footprint. */
void gpu_uvm_object(struct gpu_uvm *u, u64 va, u64 size);
/* The migration unit's shift: an access's page is va >> it. */
u32 gpu_uvm_page_shift(const struct gpu_uvm *u);
/*
 * At cycle now (never before the last call's): an access of the page
 * holding va (a store if write). 1: in GPU memory, go on; 0: it faulted,
 * wake(waiter) comes when it is in; -ENOMEM.
 */
int gpu_uvm_access(struct gpu_uvm *u, u64 now, u64 va, bool write,
                   u32 waiter);
/* Runs the servicer to the end of cycle: wakes, evicts. 0 or -ENOMEM. */
int gpu_uvm_run(struct gpu_uvm *u, u64 cycle);
/* The cycle gpu_uvm_run() must next be called at; ~0 if none. */
u64 gpu_uvm_next(const struct gpu_uvm *u);
void gpu_uvm_stats(const struct gpu_uvm *u, struct gpu_uvm_stats *st);

#endif /* MCMGPU_GPU_UVM_H */
