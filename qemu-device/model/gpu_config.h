/*
 * The GPU timing core's configuration (gpu_core.h): every parameter of
 * the modeled GPU, one preset per paper with the source of each value,
 * and overrides by name ("l2_tlb_entries=1024"). The same table is read
 * by the device, the tool (mcmgpu gpu config) and the tests.
 * Freestanding: shared by the QEMU device, the tool (--host) and the host
 * tests.
 *
 * Units: latencies in GPU core cycles; bandwidths in bytes per 1000
 * cycles (so 768 GB/s at 1 GHz is 768000) to keep fractions exact;
 * sizes in bytes. Every field is a u32 so one table of { name, offset }
 * rows describes them all.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef MCMGPU_GPU_CONFIG_H
#define MCMGPU_GPU_CONFIG_H

#include "mcmgpu_compat.h"
#include "program.h"

#define GPU_MAX_CHIPLETS        16      /* the host; the device allows 8 */
#define GPU_MAX_SMS             128     /* a chiplet */
#define GPU_MAX_WARPS_PER_SM    64
#define GPU_MAX_BLOCKS_PER_SM   32
#define GPU_LINE_BYTES          128     /* cache line */
#define GPU_SECTOR_BYTES        32      /* cache sector, the unit moved */
#define GPU_PAGE_SHIFT          12      /* 4 KiB pages (every paper's base) */
#define GPU_CONFIG_NAME_MAX     32

enum gpu_tb_sched {
    GPU_TB_RR = 0,          /* block i to chiplet i mod n */
    GPU_TB_CHUNK,           /* n contiguous ranges of blocks (MCM-GPU, LASP) */
    GPU_TB_NR
};

/* GPU_TB_CHUNK: chiplet i's first block of nblocks over n chiplets. */
static inline u32 gpu_tb_chunk_first(u32 i, u32 nblocks, u32 n)
{
    return (u32)(((u64)i * nblocks + n - 1) / n);
}

/*
 * The chiplet (of n) that tb_sched gives block kb of nblocks, and in *pos
 * the block's place in that chiplet's dispatch order.
 */
static inline u32 gpu_tb_chiplet(u32 kb, u32 nblocks, u32 n, u32 tb_sched,
                                 u32 *pos)
{
    u32 i;

    if (tb_sched == GPU_TB_RR) {
        *pos = kb / n;
        return kb % n;
    }
    for (i = n - 1; i && kb < gpu_tb_chunk_first(i, nblocks, n); i--) {
        ;
    }
    *pos = kb - gpu_tb_chunk_first(i, nblocks, n);
    return i;
}

enum gpu_warp_sched {
    GPU_WS_LRR = 0,         /* loose round-robin */
    GPU_WS_GTO,             /* greedy then oldest */
    GPU_WS_NR
};

/* Remote stores' path (gpu_finepack.h; docs/gpu.md, FinePack in the core) */
enum gpu_finepack_mode {
    GPU_FP_OFF = 0,         /* per-sector link messages, acknowledged */
    GPU_FP_P2P,             /* each store its own posted write TLP */
    GPU_FP_WC,              /* the remote write queue, a TLP a run */
    GPU_FP_FINEPACK,        /* the queue, a packet of sub-packets a flush */
    GPU_FP_DMA,             /* buffered, one bulk DMA a pair at kernel end */
    /* FinePack §VI-B's comparisons (docs/gpu.md, "GPS and §VI-B's design") */
    GPU_FP_GPS,             /* GPS [31]: a TLP a flushed line, subscriptions */
    GPU_FP_ALT,             /* §VI-B: a config packet, then a TLP a store */
    GPU_FP_NR
};

/* Kernel-boundary coherence of remote data (docs/gpu.md, CPElide) */
enum gpu_cpelide_mode {
    GPU_CPE_OFF = 0,        /* an L2 caches only its own chiplet's memory */
    GPU_CPE_BASELINE,       /* L2s cache remote data; flush + invalidate all */
    GPU_CPE_CPELIDE,        /* the CP's table elides what is not needed */
    GPU_CPE_HMG,            /* write-through to the home, sharer directory */
    GPU_CPE_IDEAL,          /* an oracle syncs exactly, at no cost */
    GPU_CPE_NR
};

/*
 * Translation sharing, Barre Chord's baselines (§VII-A; docs/gpu.md,
 * Least and Valkyrie in the core); with Barre off.
 */
enum gpu_xl_share {
    GPU_XLS_OFF = 0,        /* the conventional IOMMU path alone */
    GPU_XLS_LEAST,          /* peers' L2 TLBs over the link, ideal filter */
    GPU_XLS_VALKYRIE,       /* peer L1 TLB probing, L2 TLB prefetch */
    GPU_XLS_NR
};

/*
 * Page migration (docs/gpu.md, Migration (ACUD) in the core): Barre
 * Chord's Fig 22 runs ACUD [7], counter-based, threshold 16.
 */
enum gpu_migrate {
    GPU_MIG_OFF = 0,        /* pages stay where the allocator put them */
    GPU_MIG_ACUD,           /* a page moves to a chiplet that hammers it */
    GPU_MIG_NR
};

/* Objects shared with the CPU (docs/gpu.md, ADSM in the core) */
enum gpu_adsm_mode {
    GPU_ADSM_OFF = 0,       /* COPY records are copies (pcie_copies) */
    GPU_ADSM_BATCH,         /* = MCMGPU_ADSM_BATCH + 1, ... */
    GPU_ADSM_LAZY,
    GPU_ADSM_ROLLING,
    GPU_ADSM_NR
};

/* CXL-GPU's baselines: objects migrated on faults (gpu_uvm.h) */
enum gpu_uvm_mode {
    GPU_UVM_OFF = 0,
    GPU_UVM_ON,             /* from host memory over PCIe */
    GPU_UVM_GDS,            /* from the storage device (cxl_media) */
    GPU_UVM_NR
};

/*
 * Where an object's pages live: mcmgpu_barre.h's allocator policies, and
 * first touch, which only the core places (its pages have no frames).
 */
enum gpu_placement {
    GPU_PLACE_CHUNK = 0,    /* place_g pages a chiplet, round by round (LASP) */
    GPU_PLACE_RR,           /* page i on chiplet i mod n */
    GPU_PLACE_KWC,          /* kernel-wide chunking: ceil(pages / n) each */
    GPU_PLACE_FT,           /* first touch (core only, translate off) */
    GPU_PLACE_NR
};

struct gpu_config {
    char name[GPU_CONFIG_NAME_MAX];
    /* The GPU */
    u32 chiplets;           /* 1..GPU_MAX_CHIPLETS */
    u32 sms;                /* SMs (CUs) a chiplet */
    u32 warps_per_sm;       /* warp slots */
    u32 blocks_per_sm;      /* resident thread blocks */
    u32 regs_per_sm;        /* 32-bit registers */
    u32 shmem_per_sm;       /* bytes */
    u32 tb_sched;           /* enum gpu_tb_sched */
    u32 warp_sched;         /* enum gpu_warp_sched */
    u32 clock_mhz;          /* cycles to time, for reports only */
    /* Issue-to-result latency of each class (enum prog_op) */
    u32 lat_int, lat_fp, lat_dp, lat_sfu, lat_tensor, lat_branch,
        lat_other;
    u32 shmem_lat;          /* shared memory, no bank conflict */
    u32 const_lat;          /* constant cache hit; local and const */
    /* Translation (0: no TLBs; addresses are physical, home by placement) */
    u32 translate;
    u32 l1_tlb_entries, l1_tlb_ways, l1_tlb_lat;    /* per SM */
    u32 l2_tlb_entries, l2_tlb_ways, l2_tlb_lat;    /* per chiplet */
    u32 l2_tlb_mshrs;       /* outstanding L2 TLB misses a chiplet */
    u32 pcie_lat;           /* device <-> IOMMU, one way */
    u32 walkers;            /* IOMMU page-table walkers */
    u32 walk_lat;           /* one walk */
    /* Caches (sectored: 128 B lines of 32 B sectors) */
    u32 l1_size, l1_ways, l1_lat;   /* per SM; write-through, no allocate */
    u32 l1_mshrs;                   /* outstanding sector misses an SM */
    u32 l2_size, l2_ways, l2_lat;   /* per chiplet; write-back */
    u32 l2_bw;              /* bytes / 1000 cycles, a chiplet's L2 */
    /* Inter-chiplet link, each chiplet's port, each direction */
    u32 link_lat, link_bw;
    /* Memory, per chiplet */
    u32 dram_lat, dram_bw;
    u32 vram_mib;           /* a chiplet's memory: global PFN / its frames */
    /* Object placement */
    u32 placement;          /* enum gpu_placement */
    u32 place_g;            /* GPU_PLACE_CHUNK: pages a chiplet a round */
    /* Limits */
    u32 kernel_mib;         /* a kernel's decoded instructions, MiB */
    /* F-Barre (Barre Chord §V; used with translate and Barre on) */
    u32 fbarre;             /* in-package translation: 0 off, 1 on */
    u32 fbarre_merge;       /* group expansion: pages a chiplet, 1..4 */
    u32 fbarre_filter_rows; /* cuckoo filter rows: 256, 512 or 1024 */
    u32 fbarre_sched_moves; /* walkers' coalescing-aware scheduling bound */
    /* Mechanisms */
    u32 finepack;           /* enum gpu_finepack_mode */
    u32 cpelide;            /* enum gpu_cpelide_mode */
    /* ADSM and the host link (gpu_adsm.h) */
    u32 adsm;               /* enum gpu_adsm_mode */
    u32 adsm_block;         /* rolling's block, bytes: a power of two */
    u32 adsm_rolling;       /* rolling's R, dirty blocks; 0 adaptive */
    u32 adsm_fault_lat;     /* the CPU's time in one protocol fault */
    u32 pcie_bw;            /* host <-> GPU DMA, B/kcycle */
    u32 pcie_dma_lat;       /* a transfer's fixed cost, cycles */
    u32 pcie_copies;        /* adsm off: COPY records take time, 0 / 1 */
    /* CXL-GPU (gpu_cxl.h; docs/gpu.md, CXL-GPU in the core) */
    u32 cxl;                /* 0 off; 1: objects in CXL memory */
    u32 cxl_sr;             /* MCMGPU_CXL_SR_*: the root ports' SR */
    u32 cxl_ds;             /* deterministic store: 0 off, 1 on */
    u32 cxl_media;          /* MCMGPU_CXL_MEDIA_* of every endpoint */
    u32 cxl_ports;          /* root ports, an endpoint each: 1, 2, 4, 8 */
    u32 cxl_ctrl_ns;        /* controller round trip */
    u32 cxl_gc;             /* SSD garbage collection: 0 off, 1 on */
    u32 cxl_first_object;   /* objects with index >= it live in CXL */
    /* Translation sharing: Least, Valkyrie (enum gpu_xl_share) */
    u32 xl_share;           /* enum gpu_xl_share; needs translate, Barre off */
    u32 xl_prefetch;        /* valkyrie: next pages an L2 TLB fill fetches */
    /* UVM and GDS (gpu_uvm.h; docs/gpu.md, UVM and GDS in the core) */
    u32 uvm;                /* enum gpu_uvm_mode */
    u32 uvm_page;           /* the migration unit, bytes */
    u32 uvm_batch;          /* faults a batch at most */
    u32 uvm_runtime_ns;     /* the host runtime's time a batch */
    u32 uvm_gpu_kib;        /* GPU memory for pages; 0: footprint / 10 */
    u32 uvm_pcie_bw;        /* the host link, B/kcycle */
    /* CPElide's memory-side L3, its slices the homes (used: cpelide on) */
    u32 l3_size;            /* bytes, all chiplets' slices together */
    u32 l3_ways, l3_lat;    /* a slice's; its bandwidth is l2_bw */
    /* Barre: F-Barre's walker scheduling without F-Barre (Fig 18) */
    u32 barre_sched;        /* 0 off, 1 on: fbarre_sched_moves applies */
    /* Page migration, Barre Chord's Fig 22 baseline (enum gpu_migrate) */
    u32 migrate;            /* enum gpu_migrate; needs translate, --host */
    u32 migrate_threshold;  /* acud: remote accesses from one chiplet */
    /* MGvm [41], Barre Chord's Fig 21 baseline: a GMMU a chiplet */
    u32 mgvm;               /* 0 off, 1 on; needs translate, --host */
    u32 mgvm_lat;           /* L2 TLB <-> its chiplet's GMMU, one way */
    u32 cpe_remote;         /* 0: baseline and cpelide forward remote lines */
    u32 dram_wq;            /* memory write queue entries; 0 unbounded */
};

/* One parameter: its name, where it is, its unit and what it means. */
struct gpu_config_field {
    const char *name;       /* as overrides and JSON spell it */
    u32 offset;             /* of a u32 in struct gpu_config */
    const char *unit;       /* "cycles", "bytes", "B/kcycle", "" */
    u32 min, max;
};

extern const struct gpu_config_field gpu_config_fields[];
extern const u32 gpu_config_nfields;

/*
 * A preset: the values and where each comes from (paper, table, page, or
 * "ours: ..." where the paper is silent). Every field has a source.
 */
struct gpu_preset {
    const char *name;       /* "barre", "finepack", ... */
    const char *title;
    const char *note;       /* what the paper leaves out, in a sentence */
    struct gpu_config cfg;
    /* sources[i]: gpu_config_fields[i]'s source */
    const char *const *sources;
};

extern const struct gpu_preset gpu_presets[];
extern const u32 gpu_npresets;

/* The default preset's name (Barre Chord's Table II). */
#define GPU_CONFIG_DEFAULT      "barre"

/* The preset, or NULL. */
const struct gpu_preset *gpu_preset_find(const char *name);
/* p's source of field f. */
const char *gpu_preset_source(const struct gpu_preset *p,
                              const struct gpu_config_field *f);
/* The field called name, or NULL. */
const struct gpu_config_field *gpu_config_field_find(const char *name);
/*
 * An enum field's value's name ("gto" for warp_sched 1), its unit being
 * "lrr=0 gto=1": *name (not terminated) and *len; -1 if it has none.
 */
int gpu_config_value_name(const struct gpu_config_field *f, u32 v,
                          const char **name, u32 *len);
/*
 * An override, "name=value": value is decimal with an optional k, M or
 * G (times 1024, 1024^2, 1024^3), or for an enum field one of its names
 * (tb_sched=rr|chunk, warp_sched=lrr|gto, placement=chunk|rr|kwc|ft,
 * translate=off|on, fbarre=off|on, finepack=off|p2p|wc|finepack|dma,
 * cpelide=off|baseline|cpelide|hmg|ideal,
 * adsm=off|batch|lazy|rolling, pcie_copies=off|on, cxl=off|on,
 * cxl_sr=off|naive|dyn|sr|max, cxl_ds=off|on, cxl_gc=off|on,
 * cxl_media=dram|optane|znand|nand, uvm=off|on|gds,
 * xl_share=off|least|valkyrie, migrate=off|acud, mgvm=off|on).
 * 0, or -EINVAL with c unchanged and *why saying which: not name=value,
 * unknown field, bad number (or name), out of
 * the field's range; the caller names the assignment. Only the field's
 * own range is checked: gpu_config_check() the result.
 */
int gpu_config_set(struct gpu_config *c, const char *assignment,
                   const char **why);
static inline u32 *gpu_config_u32(struct gpu_config *c,
                                  const struct gpu_config_field *f)
{
    return (u32 *)((char *)c + f->offset);
}
/*
 * Every field within its range and the combination consistent (ways
 * divide entries, sizes a multiple of a line's ways, ...): 0, or -EINVAL
 * with *field naming the first bad one and *why the reason.
 * max_chiplets: GPU_MAX_CHIPLETS on the host, 8 on the device.
 */
int gpu_config_check(const struct gpu_config *c, u32 max_chiplets,
                     const char **field, const char **why);

#endif /* MCMGPU_GPU_CONFIG_H */
