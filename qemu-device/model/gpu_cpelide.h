/*
 * CPElide in the GPU timing core (gpu_core.h, cfg.cpelide): the global
 * command processor's Chiplet Coherence Table fed by what each chiplet
 * of a kernel actually touches, HMG's sharer directory, and the coherence
 * oracle's versions. The core keeps the caches and the time; this file
 * decides which L2 flushes and invalidations a launch needs (CPElide
 * §III-B/C, notes/cpelide.md §2.4-2.5) and checks every read.
 *
 * The table: a row per program object (a kernel argument), a 2-bit state
 * per chiplet (NotPresent, Valid, Dirty, Stale) and the hull of the
 * addresses (GPU virtual, as the paper's) each chiplet touched since it
 * was last NotPresent (notes A1). Ranges compare at 128 B lines (A4).
 *
 * Versions: a write in kernel k gives its sector version k. A read in
 * kernel k must see the newest version written before k (a write by
 * another chiplet in k itself is a race under HRF, not a stale read).
 *
 * Freestanding: shared by the QEMU device, the tool (--host) and the host
 * tests. Deterministic.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef MCMGPU_GPU_CPELIDE_H
#define MCMGPU_GPU_CPELIDE_H

#include "mcmgpu_compat.h"
#include "gpu_config.h"

/* Table I and §IV-B costs (cpelide.h's, converted at cfg.clock_mhz). */
#define GPU_CPE_CP_MHZ              1500
#define GPU_CPE_CP_LAUNCH_NS        2000    /* every launch, every policy */
#define GPU_CPE_CP_ELIDE_NS         6000    /* CPElide's, the 1st kernel */
#define GPU_CPE_XBAR_UNICAST        65      /* CP cycles */
#define GPU_CPE_XBAR_BROADCAST      100
#define GPU_CPE_FLASH_INVALIDATE    64      /* GPU cycles: valid bits */
#define GPU_CPE_WALK_PER_SET        1       /* a flush's tag walk */
/*
 * HMG's directory (notes §1.3): 12K entries a home chiplet, each of 4 of
 * the paper's gem5 lines (64 B), so 256 B: 2 of the core's 128 B lines.
 */
#define GPU_CPE_DIR_ENTRIES         12288
#define GPU_CPE_DIR_WAYS            16      /* ours */
#define GPU_CPE_DIR_SHIFT           8       /* bytes a region: 4 x 64 B */
#define GPU_CPE_DIR_LINES           (1u << (GPU_CPE_DIR_SHIFT - 7))
#define GPU_CPE_DIR_LAT             20      /* ours: a lookup, cycles */

/* Test knobs (gpu_core_cpelide_test()): deliberate bugs the oracle finds. */
#define GPU_CPE_TEST_NO_INVALIDATE  (1u << 0)
#define GPU_CPE_TEST_NO_FLUSH       (1u << 1)
/* A written-through store (HMG, FinePack) leaves the local copy as it was. */
#define GPU_CPE_TEST_NO_STORE_UPDATE (1u << 2)

/*
 * The counters, named as `mcmgpu cpelide replay` names its own
 * (struct mcmgpu_cpe_stats) where they mean the same.
 */
struct gpu_cpelide_stats {
    u64 kernels;
    u64 launches;               /* kernels + the end of the program */
    u64 l2_invalidates;         /* a chiplet's L2, issued */
    u64 l2_flushes;
    u64 baseline_invalidates;   /* what the baseline issues: n a kernel */
    u64 baseline_flushes;
    u64 elided_invalidates;     /* baseline_ - issued */
    u64 elided_flushes;
    u64 l1_invalidates;         /* a chiplet's L1s, every launch */
    u64 remote_hits;            /* remote sectors served by the local L2 */
    u64 remote_misses;          /* ... that went on to the home */
    u64 remote_accesses;        /* requests that crossed to a home */
    u64 sectors_invalidated;    /* clean L2 sectors dropped */
    u64 sectors_written_back;   /* dirty L2 sectors sent home (L3) */
    u64 bytes_written_back;
    u64 writes_through;         /* HMG: store sectors to the home */
    u64 dir_invalidations;      /* HMG: sharer sectors dropped */
    u64 dir_evictions;          /* HMG: entries evicted */
    u64 sync_cycles;            /* launches waiting for L2 operations */
    u64 cp_cycles;              /* the CP's own launch processing */
    u64 table_peak_rows;
    u64 oracle_violations;      /* read + order */
    u64 oracle_read_violations; /* a read saw an older version */
    u64 oracle_order_violations; /* a home's version went back */
    /* The L3 slices (every policy on): sector accesses at the homes. */
    u64 l3_accesses;
    u64 l3_hits;
    u64 l3_misses;
    u64 l3_writebacks;          /* dirty L3 sectors written to DRAM */
    u64 memory_writes;          /* HMG: store sectors written through to DRAM */
    /*
     * gpu_cpe_streams() on: a sector written by one kernel and read or
     * written by another running at the same time (a race between
     * streams; not in the JSON unless streams are on).
     */
    u64 stream_races;
};

/* A launch's decision: chiplet masks. */
struct gpu_cpe_sync {
    u32 inv, flush;
    u32 flush_first;            /* flush before invalidating (D -> S) */
};

struct gpu_cpe;

typedef void *(*gpu_cpe_alloc_fn)(void *priv, size_t bytes);
typedef void (*gpu_cpe_free_fn)(void *priv, void *p);

/* NULL: out of memory. */
struct gpu_cpe *gpu_cpe_create(const struct gpu_config *cfg,
                               gpu_cpe_alloc_fn alloc, gpu_cpe_free_fn free,
                               void *priv);
void gpu_cpe_destroy(struct gpu_cpe *p);
/* A table or the version map could not grow: the run must stop. */
bool gpu_cpe_oom(const struct gpu_cpe *p);

/* ---- The kernel being decoded: what each block touches ---- */
void gpu_cpe_kernel_begin(struct gpu_cpe *p);
/* Block kb touches [lo, hi] (GPU virtual) of object obj (its index). */
void gpu_cpe_note(struct gpu_cpe *p, u32 kb, u32 obj, u64 lo, u64 hi,
                  bool write);
/*
 * The kernel starts (nblocks blocks placed by tb_sched on the chiplets):
 * the flushes and invalidations its policy issues before it, with the
 * table updated as if they were done. The kernel's version begins.
 */
void gpu_cpe_launch(struct gpu_cpe *p, u32 nblocks, u32 tb_sched,
                    struct gpu_cpe_sync *s);
/* The program ends: the final releases. */
void gpu_cpe_end(struct gpu_cpe *p, struct gpu_cpe_sync *s);
/* The running kernel's version (1, 2, ...). */
u32 gpu_cpe_version(const struct gpu_cpe *p);

/* ---- The oracle (sector addresses, physical) ---- */
/* A read of sector that found version ver: counted if stale. */
void gpu_cpe_read(struct gpu_cpe *p, u64 sector, u32 ver);
/* The running kernel writes sector (golden), from chiplet. */
void gpu_cpe_write(struct gpu_cpe *p, u64 sector, u32 chiplet);
/*
 * A fill of version ver for chiplet is older than a write chiplet made
 * to sector in the running kernel (its store or atomic, noted when it
 * left the chiplet, overtook the fill: the transient state of a line
 * with a fill pending drops the fill).
 */
bool gpu_cpe_fill_stale(struct gpu_cpe *p, u64 sector, u32 chiplet, u32 ver);
/* The version the sector's home (its L2 and DRAM) holds. */
u32 gpu_cpe_home_version(struct gpu_cpe *p, u64 sector);
/* ver reaches the home (a local write, a write-back or write-through). */
void gpu_cpe_home_store(struct gpu_cpe *p, u64 sector, u32 ver);
/* The newest version of sector (ideal's oracle sync). */
u32 gpu_cpe_golden(struct gpu_cpe *p, u64 sector);

/* ---- HMG's directory at each home, a region of 4 lines an entry ---- */
/*
 * Chiplet c (not the home) caches a line of region at home: its bit is
 * set. An eviction puts the victim's region and sharers in *ev_region,
 * *ev_sharers (0: none).
 */
void gpu_cpe_dir_add(struct gpu_cpe *p, u32 home, u64 region, u32 c,
                     u64 *ev_region, u32 *ev_sharers);
/* A write by c reaches home: the other sharers, cleared (to invalidate). */
u32 gpu_cpe_dir_write(struct gpu_cpe *p, u32 home, u64 region, u32 c);
/* Chiplet c is still a sharer of the region at its home's directory. */
bool gpu_cpe_dir_has(struct gpu_cpe *p, u32 home, u64 region, u32 c);

struct gpu_cpelide_stats *gpu_cpe_stats(struct gpu_cpe *p);

/*
 * ---- Concurrent streams (gpu_core_streams(); notes A8) ----
 * Kernels in nslots slots may run at once, each on its own chiplets; a
 * chiplet runs one kernel at a time. The table is updated in launch
 * order (A8): a launch's flushes, invalidations and Stale marks may hit
 * chiplets of a kernel still running, whose accesses then enter the
 * table again (it keeps writing and reading what it did). The oracle's "running kernel"
 * is the one of the chiplet a request comes from (gpu_cpe_at()): a read
 * must see the newest version written before its own kernel began, by
 * the kernels ordered before it. 0, or -1: out of memory.
 */
int gpu_cpe_streams(struct gpu_cpe *p, u32 nslots);
/* gpu_cpe_launch() of a kernel in slot on chiplets [first, first + m). */
void gpu_cpe_launch_on(struct gpu_cpe *p, u32 nblocks, u32 tb_sched,
                       u32 first, u32 m, u32 slot, struct gpu_cpe_sync *s);
/* Slot's kernel finished. */
void gpu_cpe_kernel_end_on(struct gpu_cpe *p, u32 slot);
/* The oracle's calls that follow come from chiplet's kernel. */
void gpu_cpe_at(struct gpu_cpe *p, u32 chiplet);

#endif /* MCMGPU_GPU_CPELIDE_H */
