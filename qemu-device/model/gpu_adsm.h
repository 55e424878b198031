/*
 * ADSM/GMAC in the GPU timing core (gpu_core.h, cfg.adsm; docs/gpu.md,
 * "ADSM in the core"): the driver's protocol core
 * (drivers/mcmgpu/adsm_protocol.c, unchanged) driven by the program's
 * records, and the host <-> GPU PCIe link its transfers take time on.
 *
 * With cfg.adsm on every OBJECT is shared (adsmAlloc). A COPY record
 * stands for the host code's accesses between kernels: an H2D copy of a
 * range is the CPU writing it, a D2H copy the CPU reading it; they go
 * through the protocol unit by unit (adsm_fault where the modeled PTEs
 * do not allow the access). A KERNEL is a launch (adsm_release); its end
 * a completion and a sync (adsm_kernel_done, adsm_acquire).
 *
 * Time, on one timeline the host and the GPU share: the host's cursor
 * (the CPU's time between kernels) and one DMA engine on the PCIe link.
 * A transfer occupies the engine pcie_dma_lat + bytes / pcie_bw cycles
 * (exactly, in 1/pcie_bw fractions), one at a time in issue order, both
 * directions alike. A fault's fetch, a launch's flush and a sync's fetch
 * hold the host until they are done; rolling's evictions do not (they
 * only take the engine). Each protocol fault costs the CPU adsm_fault_lat
 * cycles after its transfer. A kernel starts when the host launched it
 * and every transfer (evictions included) is done.
 *
 * With cfg.adsm off and cfg.pcie_copies on, COPY records are explicit
 * synchronous copies (cudaMemcpy, the paper's CUDA bar) on the same
 * engine; off and off, COPY records take no time (the other papers'
 * traces time the GPU alone).
 *
 * Freestanding: shared by the QEMU device, the tool (--host) and the host
 * tests. Deterministic.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef MCMGPU_GPU_ADSM_H
#define MCMGPU_GPU_ADSM_H

#include "mcmgpu_compat.h"
#include "gpu_config.h"

/*
 * The counters, named as `mcmgpu adsm` names its own (struct
 * mcmgpu_adsm_stats; h2d_eager is its h2d_evict) where they mean the
 * same. Every u64.
 */
struct gpu_adsm_stats {
    u64 protocol;               /* cfg.adsm: 0 explicit copies, 1.. */
    u64 block_bytes;            /* rolling's block, 0 otherwise */
    u64 rolling;                /* rolling's R at the end */
    u64 objects;                /* shared objects */
    u64 h2d_bytes, d2h_bytes;
    u64 h2d_call;               /* a launch's flush (explicit: copies) */
    u64 h2d_eager;              /* rolling's evictions */
    u64 d2h_call;               /* a sync's fetch (explicit: copies) */
    u64 d2h_fault;              /* a CPU fault's fetch */
    u64 transfers;
    u64 faults;                 /* protocol faults: the three below */
    u64 faults_read_invalid;
    u64 faults_write_invalid;
    u64 faults_write_readonly;
    u64 refaults;               /* PTE re-installed, no state change */
    u64 evictions;
    u64 dirty_peak;
    u64 launches, syncs;
    u64 copies;                 /* COPY records */
    u64 cpu_bytes_written;      /* H2D records' bytes (the CPU's writes) */
    u64 cpu_bytes_read;         /* D2H records' bytes */
    u64 kernel_cycles;          /* kernels' spans, launch to end */
    u64 xfer_cycles;            /* the DMA engine busy */
    u64 fault_cycles;           /* the CPU in protocol faults */
    u64 launch_wait_cycles;     /* launches waiting for transfers */
    /*
     * The host held by the transfers it waits for outside launches: a
     * fault's fetch, a sync's fetch, an explicit copy (waits behind
     * earlier transfers included). The CPU's own work costing nothing,
     * kernel_cycles (launch_wait_cycles included) + fault_cycles +
     * xfer_wait_cycles is the host's whole time, modeled_cycles but for
     * evictions still on the engine at the end (ADSM Fig. 10's
     * breakdown, docs/gpu.md).
     */
    u64 xfer_wait_cycles;
    u64 modeled_cycles;         /* the host's cursor at the end */
};

struct gpu_adsm;

/* Zeroed memory (the core's ops->alloc), and its free. */
typedef void *(*gpu_adsm_alloc_fn)(void *priv, size_t bytes);
typedef void (*gpu_adsm_free_fn)(void *priv, void *p);

/* cfg.adsm or cfg.pcie_copies on; NULL: out of memory or a bad field. */
struct gpu_adsm *gpu_adsm_create(const struct gpu_config *cfg,
                                 gpu_adsm_alloc_fn alloc,
                                 gpu_adsm_free_fn free, void *priv);
void gpu_adsm_destroy(struct gpu_adsm *a);
/* An OBJECT record, the index-th (program order): shared (cfg.adsm). */
int gpu_adsm_object(struct gpu_adsm *a, u32 index, u64 bytes);
/* The host's cursor moves to t if later (a kernel ended at t). */
void gpu_adsm_host_at(struct gpu_adsm *a, u64 t);
/*
 * A COPY record's piece inside object index (bytes [off, off + len) of
 * it): the CPU writes it (h2d) or reads it. -errno from the protocol.
 */
int gpu_adsm_cpu(struct gpu_adsm *a, u32 index, u64 off, u64 len, bool h2d);
/*
 * A COPY record of bytes: counted; with cfg.adsm off an explicit copy
 * (with it on, gpu_adsm_cpu() each object's piece).
 */
void gpu_adsm_copy(struct gpu_adsm *a, u64 bytes, bool h2d);
/*
 * A launch, the GPU free from now: the release. *launch: when the host
 * launches it; *start: when the kernel may start. -errno from the
 * protocol.
 */
int gpu_adsm_launch(struct gpu_adsm *a, u64 now, u64 *launch, u64 *start);
/* The kernel launched at start ended at end: completion and sync. */
int gpu_adsm_kernel_end(struct gpu_adsm *a, u64 start, u64 end);
/* The host's cursor: when the CPU is done with what it was given. */
u64 gpu_adsm_host(const struct gpu_adsm *a);
bool gpu_adsm_oom(const struct gpu_adsm *a);
void gpu_adsm_stats(const struct gpu_adsm *a, struct gpu_adsm_stats *st);

#endif /* MCMGPU_GPU_ADSM_H */
