/*
 * The GPU timing core: a multi-chiplet GPU that executes a program
 * (program.h) in virtual cycles. Chiplets of SMs with warp slots; a
 * thread-block scheduler across chiplets (rr or chunk); per SM a warp
 * scheduler (loose round-robin or greedy-then-oldest) issuing at most one
 * warp instruction a cycle; a scoreboard from the trace's registers; ALU
 * latencies per class; barriers. Memory instructions coalesce into 32 B
 * sectors of 128 B lines and go through the per-SM L1 TLB, the chiplet's
 * L2 TLB with MSHRs and, on a miss, an ATS request to the IOMMU (the
 * caller's: the Barre walker on the host, barre_iommu.ko from the
 * device); then the SM's L1 cache, the L2 of the page's home chiplet
 * (across the inter-chiplet link when remote) and the home chiplet's
 * DRAM. Every link and memory is a bandwidth server, so queues build and
 * drain, and a warp waits for exactly what it needs.
 *
 * Time: gpu_core_run(until) runs every event before cycle until, in
 * (cycle, sequence) order, so the result never depends on how the caller
 * cuts the run. The ATS protocol is chiplet_tlb.h's: requests leave
 * through ops->ats_request with the cycle they leave the chiplet;
 * replies come back through gpu_core_deliver() with the cycle they
 * arrive, which must not be before the current cycle. The caller runs
 * the IOMMU's epochs around it exactly as for the Barre replay
 * (tools/mcmgpu/lib/barre_host.c).
 *
 * The program is read from a source (prog_source_fn) a kernel at a time:
 * the header records before each kernel (objects, copies), then the
 * kernel's blocks, decoded into memory taken from ops->alloc (at most
 * cfg.kernel_mib MiB; a larger kernel is an error), then run to its end.
 * Kernels run one after another (streams are not overlapped), unless
 * gpu_core_streams() runs streams on groups of chiplets concurrently.
 *
 * Errors (a record the source refuses, an address in no object,
 * inconsistent registers or masks, a kernel over the limits) stop the
 * run with a negative errno and a message naming the kernel, block,
 * warp and instruction (gpu_core_error()); the core can then only be
 * freed.
 *
 * Freestanding: shared by the QEMU device, the tool (--host) and the host
 * tests. Deterministic: the same program and configuration give the same
 * counters, bit for bit.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef MCMGPU_GPU_CORE_H
#define MCMGPU_GPU_CORE_H

#include "mcmgpu_compat.h"
#include "program.h"
#include "gpu_config.h"
#include "chiplet_tlb.h"
#include "gpu_fbarre.h"
#include "gpu_finepack.h"
#include "gpu_cpelide.h"
#include "gpu_adsm.h"
#include "gpu_cxl.h"
#include "gpu_uvm.h"

#define GPU_CORE_ERR_MAX        256

struct gpu_kernel_stats;

/* A program's object as the core places it. */
struct gpu_object {
    u64 base, size;         /* the program's addresses */
    u64 gpu_va;             /* where it is mapped (page aligned) */
    u32 policy;             /* enum gpu_placement */
    u32 g;                  /* pages a chiplet a round (chunk) */
    u32 index;              /* 0, 1, ... in program order */
};

/* What the core asks of its caller. */
struct gpu_core_ops {
    /* Memory for the core's tables; zeroed. NULL: out of memory. */
    void *(*alloc)(void *priv, size_t bytes);
    void (*free)(void *priv, void *p);
    /*
     * An OBJECT record: map it. The caller sets o->gpu_va (and may
     * change o->policy / o->g); the core has filled the rest with the
     * configuration's placement. 0 or a negative errno (message in why).
     * NULL: identity (gpu_va = base rounded down to a page).
     */
    int (*object)(void *priv, struct gpu_object *o, char *why, size_t len);
    /* An L2 TLB miss leaves for the IOMMU (only with cfg.translate). */
    void (*ats_request)(void *priv, const struct chiplet_tlb_request *r);
    /* A kernel finished (optional). */
    void (*kernel_done)(void *priv, const struct gpu_kernel_stats *k);
    /*
     * F-Barre's check (optional): the true walk of vpn, its leaf PTE (0
     * if none); every in-package answer is compared with it.
     */
    u64 (*walk)(void *priv, u64 vpn);
    /*
     * cfg.migrate: move page vpn, seen at frame *pfn, to chiplet dest.
     * The caller gives it a frame on dest (*pfn), rewrites its PTE and
     * every PTE the move changes (under Barre its group's coal_bitmaps),
     * and lists their pages in vpns[0..*n) (at most GPU_MIG_PAGES_MAX,
     * vpn among them).
     * 0, or a negative errno: the page stays (-ENOMEM: dest is full;
     * -ESTALE: vpn is no longer at *pfn, the access used a translation
     * shot down since).
     */
    int (*migrate)(void *priv, u64 vpn, u32 dest, u64 *pfn, u64 *vpns,
                   u32 *n);
};

/* Pages one migration may change: a group of 8 chiplets x 4 merged. */
#define GPU_MIG_PAGES_MAX       32

/* A bandwidth server's counters (a link port, an L2, a DRAM). */
struct gpu_queue_stats {
    u64 requests;
    u64 bytes;
    u64 busy_cycles;        /* cycles transferring */
    u64 wait_cycles;        /* sum over requests of cycles queued */
    u64 max_wait;           /* longest one request queued */
};

/*
 * Translation sharing (cfg.xl_share; all 0 when off). Least: l2_tlb
 * ats_requests = misses - mshr_merges - remote_tlb_hits. Valkyrie:
 * l2_tlb accesses = l1_tlb misses - l1_peer_hits, ats_requests = misses -
 * mshr_merges + prefetches.
 */
struct gpu_core_share_stats {
    u64 filter_probes;      /* least: L2 TLB misses that asked the filter */
    u64 remote_tlb_lookups; /* least: sent to a peer the filter named */
    u64 remote_tlb_hits;    /* least: answered by the peer's L2 TLB */
    u64 remote_tlb_gone;    /* least: evicted there before the lookup */
    u64 l1_probes;          /* valkyrie: L1 TLB misses probing peer SMs */
    u64 l1_peer_hits;       /* valkyrie: answered by a peer's L1 TLB */
    u64 prefetches;         /* valkyrie: ATS requests an L2 fill sent */
    u64 prefetch_hits;      /* valkyrie: first L2 TLB hit on one's entry */
    u64 prefetch_late;      /* valkyrie: misses merged into one in flight */
    u64 mismatches;         /* answers a true walk disagrees with (host) */
};

/* cfg.migrate on (docs/gpu.md, Migration (ACUD) in the core; 0 off). */
struct gpu_core_migrate_stats {
    u64 remote_accesses;    /* translated accesses to a remote page */
    u64 migrations;         /* pages moved */
    u64 migrated_bytes;     /* copied over the link */
    u64 shootdowns;         /* pages whose translations were shot down */
    u64 group_ptes;         /* Barre: mates' PTEs that lost the page's bit */
    u64 tlb_entries_shot;   /* L1 and L2 TLB entries they held */
    u64 refused;            /* the caller had no frame on the chiplet */
    u64 stale_fills;        /* ATS answers older than a shootdown: again */
    u64 held_fills;         /* answers held until copy and shootdown end */
};

/*
 * cfg.dram_wq: the memories' write queues (all 0 when unbounded). A
 * write waited when its memory's queue was full on arrival.
 */
struct gpu_core_wq_stats {
    u64 writes;             /* sector writes into memory */
    u64 waited;
    u64 wait_cycles;        /* sum over writes of cycles waiting for room */
    u64 max_wait;
};

/* The counters; every u64, totals over the chiplets. */
struct gpu_core_stats {
    /* Execution */
    u64 cycles;             /* the program's last event */
    u64 kernels;
    u64 blocks;
    u64 warps;
    u64 warp_insts;
    u64 thread_insts;       /* active lanes summed */
    u64 mem_insts;          /* global, local, const, texture, shared */
    u64 global_loads, global_stores, global_atomics;
    u64 shared_insts;
    u64 barriers;           /* block barriers completed */
    /* Cycles an SM had a warp but issued none, by the oldest one's reason */
    u64 stall_scoreboard;   /* waiting on a register (ALU or memory) */
    u64 stall_memory;       /* waiting on a load's data */
    u64 stall_translation;  /* waiting on a TLB miss */
    u64 stall_barrier;
    u64 stall_mshr;         /* L1 or L2 TLB MSHRs full */
    u64 idle_sm_cycles;     /* SM cycles with no warp at all */
    /* Coalescing */
    u64 sectors;            /* 32 B sectors the global accesses touched */
    u64 lines;              /* 128 B lines */
    /* Translation (translate on): accesses = hits + misses */
    u64 l1_tlb_accesses, l1_tlb_hits, l1_tlb_misses;
    u64 l2_tlb_accesses, l2_tlb_hits, l2_tlb_misses;
    u64 l2_tlb_mshr_merges; /* a miss on a page already missing */
    u64 ats_requests;       /* = l2_tlb_misses - l2_tlb_mshr_merges */
    u64 ats_replies;
    u64 ats_round_trip;     /* sum of arrive - issue */
    u64 translation_faults;
    /* Caches: sectors; accesses = hits + misses */
    u64 l1_accesses, l1_hits, l1_misses;
    u64 l2_accesses, l2_hits, l2_misses;
    u64 l2_local, l2_remote;        /* accesses by where they came from */
    u64 l2_writebacks;              /* dirty sectors evicted to DRAM */
    u64 bytes_loaded, bytes_stored; /* lanes' bytes, as the program says */
    /* Queues: [0] inter-chiplet links (every port), [1] L2s, [2] DRAMs */
    struct gpu_queue_stats link, l2, dram;
    /* F-Barre (cfg.fbarre on; zero otherwise) */
    struct gpu_core_fbarre_stats fbarre;
    /* cfg.finepack on: its queues and packets (all 0 when off) */
    struct gpu_finepack_stats finepack;
    /* cfg.cpelide on: kernel-boundary coherence and its oracle (0 off) */
    struct gpu_cpelide_stats cpelide;
    /* cfg.adsm or cfg.pcie_copies on: the protocol and the host link */
    struct gpu_adsm_stats adsm;
    /* cfg.cxl on: the root complex's counters (all 0 when off) */
    struct mcmgpu_cxl_sim_result cxl;
    /* cfg.xl_share on: Least's or Valkyrie's counters (0 off) */
    struct gpu_core_share_stats share;
    /* cfg.uvm on: UVM's or GDS's faults and migrations (all 0 off) */
    struct gpu_uvm_stats uvm;
    /* cfg.migrate on: ACUD's migrations (all 0 off) */
    struct gpu_core_migrate_stats migrate;
    /* cfg.dram_wq on: its queues */
    struct gpu_core_wq_stats wq;
};

/* One kernel, as it finished. */
struct gpu_kernel_stats {
    u32 id;                 /* the program's kernel id */
    u32 pad;
    u64 start, end;         /* cycles: launch, last block and store done */
    u64 blocks, warp_insts, thread_insts;
    u64 l1_tlb_misses, l2_tlb_misses, l1_misses, l2_misses;
    char name[64];          /* truncated */
};

struct gpu_core;

/*
 * Bytes a core takes with cfg (the caller allocates it, aligned to 8, and
 * passes it to gpu_core_init). 0: cfg is bad.
 */
size_t gpu_core_size(const struct gpu_config *cfg);
/*
 * Starts a run of the program src gives (its reader keeps its own
 * state). cfg is checked (-EINVAL, gpu_core_error() names the field) and
 * copied. 0 or a negative errno.
 */
int gpu_core_init(struct gpu_core *g, const struct gpu_config *cfg,
                  const struct gpu_core_ops *ops, void *priv,
                  prog_source_fn src, void *src_priv);
/*
 * The source checks every record with struct prog_grammar itself (as
 * prog_read() and the tool's prog_in do), so the core need not check
 * each record a second time. Only for such sources: the core's safety
 * rests on the grammar. Call before the first gpu_core_run().
 */
void gpu_core_source_checked(struct gpu_core *g);
/* Frees what the core took from ops->alloc (not g itself). */
void gpu_core_destroy(struct gpu_core *g);
/*
 * Runs every event before cycle until (reading the program as it needs
 * it). 0, or a negative errno with gpu_core_error() set; after an error
 * every call returns it again.
 */
int gpu_core_run(struct gpu_core *g, u64 until);
/* The current cycle: every event before it has run. */
u64 gpu_core_now(const struct gpu_core *g);
/*
 * The cycle of the next event, ~0 if nothing can happen without an ATS
 * reply (or the program is done).
 */
u64 gpu_core_next_event(const struct gpu_core *g);
/* The program's END was read and everything it started has finished. */
bool gpu_core_done(const struct gpu_core *g);
/*
 * An ATS reply: -EINVAL for a tag never sent or already answered, or an
 * arrival before gpu_core_now() (the message says which).
 */
int gpu_core_deliver(struct gpu_core *g, const struct chiplet_tlb_reply *r);
void gpu_core_stats(const struct gpu_core *g, struct gpu_core_stats *st);
const char *gpu_core_error(const struct gpu_core *g);
/*
 * Tests only: GPU_CPE_TEST_* bugs in the L2 operations a launch issues
 * (the table still believes them done), so the oracle must see stale
 * reads. Call before the first gpu_core_run().
 */
void gpu_core_cpelide_test(struct gpu_core *g, u32 knobs);
/*
 * Concurrent streams (docs/cpelide.md, "Multi-stream in the core"): the
 * chiplets form groups equal groups; a kernel of stream s >= 1 runs on
 * group (s - 1) % groups while other groups run other streams' kernels, a
 * kernel of stream 0 on every chiplet alone. Off (never called) the core
 * runs kernels one after another whatever their streams. Not with
 * finepack, adsm, pcie_copies, cxl, uvm or migrate (-EINVAL). Call
 * before the first gpu_core_run(). 0 or a negative errno.
 */
int gpu_core_streams(struct gpu_core *g, u32 groups);

/*
 * CXL-GPU's time series (`mcmgpu run --host --timeline CYCLES`, gpu_cxl.h
 * gpu_cxl_timeline()): the root complex sampled every 'every' cycles; the
 * run's timing is the same with it or without. cfg.cxl on; call before
 * the first gpu_core_run(). 0 or -EINVAL (gpu_core_error() says why).
 */
int gpu_core_cxl_timeline(struct gpu_core *g, u64 every);
/*
 * Once gpu_core_done(): the samples up to the program's last cycle
 * (stats.cycles) and what came after it (gpu_cxl_samples()). 0, -EINVAL
 * (no timeline, or not done), -E2BIG or -ENOMEM.
 */
int gpu_core_cxl_samples(struct gpu_core *g,
                         const struct gpu_cxl_sample **samples, u64 *n,
                         struct gpu_cxl_sample *after);

/*
 * The home chiplet of page i of an object under o's policy (n chiplets),
 * as gpu_alloc_page_chiplet() places it. With translation the home is
 * the chiplet of the PFN the IOMMU returns (pfn / (vram_mib << 8)).
 */
u32 gpu_object_page_home(const struct gpu_object *o, u64 page, u32 n);

/*
 * The bucket of an SM's L1 MSHR hash (2^bits buckets, bits 0..12) that
 * sector address addr falls in: Fibonacci hashing of the sector number,
 * so strided sectors spread too. Here so tests can build collisions.
 */
static inline u32 gpu_core_mshr_bucket(u64 addr, u32 bits)
{
    return bits ? (u32)(((addr >> 5) * 0x9E3779B97F4A7C15ULL) >>
                        (64 - bits)) : 0;
}

#endif /* MCMGPU_GPU_CORE_H */
