/*
 * CPElide (Dalmia et al., CPElide §III): the global command processor's
 * Chiplet Coherence Table and lazy acquire/release decisions, with the
 * per-chiplet L1/L2 and shared L3 model and the coherence oracle that
 * check them. Freestanding: shared by the QEMU device, the tool (--host)
 * and the host tests.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef CPELIDE_H
#define CPELIDE_H

#include "mcmgpu_compat.h"
#include "mcmgpu_cpelide.h"

#define CPE_LINE_BYTES      64
#define CPE_LINE_WORDS      16          /* oracle versions per 4 B word */
#define CPE_PAGE_BYTES      4096        /* first-touch home granularity */
/* Per launch: about 2 s of host time in the device (~200 ns an access). */
#define CPE_MAX_LINE_ACCESSES (1ULL << 23)

/* Table I (GPU cycles at 1801 MHz) and §IV-B CP costs; notes A11. */
#define CPE_GPU_MHZ         1801
#define CPE_CP_MHZ          1500
#define CPE_LAT_L1          140
#define CPE_LAT_L2          269
#define CPE_LAT_L2_REMOTE   390
#define CPE_LAT_L3          330
#define CPE_LAT_DRAM        180         /* beyond L3; not in the paper */
#define CPE_CP_LAUNCH_NS    2000        /* every launch, every policy */
#define CPE_CP_ELIDE_NS     6000        /* CPElide processing, 1st kernel */
#define CPE_XBAR_UNICAST    65          /* CP cycles */
#define CPE_XBAR_BROADCAST  100
#define CPE_WALK_CYCLES_PER_SET 1       /* tag walk of a flush */
#define CPE_FLASH_INVALIDATE_CYCLES 64  /* clear clean lines' valid bits */
#define CPE_LINK_BYTES_PER_CYCLE 426    /* 768 GB/s at 1801 MHz */
/* One HBM2 stack per chiplet: 1024 bits, DDR at 1000 MHz = 256 GB/s. */
#define CPE_HBM_BYTES_PER_CYCLE 142
/* HMG's sharer directory (notes §1.3, A12): 12K entries of 4 lines. */
#define CPE_DIR_ENTRIES     12288
#define CPE_DIR_WAYS        16          /* not in the paper */
#define CPE_DIR_LINES       4
#define CPE_INV_FLITS       2           /* invalidation and its ACK */
/*
 * Outstanding line requests per chiplet: Table I's 60 CUs x 4 SIMDs x 10
 * wavefronts, one coalesced line each, so a chiplet can saturate its
 * memory and links (the bandwidth bound in cpe_kernel then decides).
 */
#define CPE_MLP             2400
#define CPE_FLIT_BYTES      16
#define CPE_REQ_FLITS       1
#define CPE_DATA_FLITS      5           /* 64 B + header */
#define CPE_FULL_LINE       0xffff      /* every word of a line */

enum cpe_state { CPE_NP = 0, CPE_V = 1, CPE_D = 2, CPE_S = 3 };

/* Deliberate bugs the mutation tests use to prove the oracle works. */
#define CPE_MUTATE_DROP_ACQUIRE  (1U << 0)
#define CPE_MUTATE_DROP_RELEASE  (1U << 1)
#define CPE_MUTATE_SKIP_STALE    (1U << 2)
#define CPE_MUTATE_HMG_KEEP_SHARERS (1U << 3)

struct cpe_config {
    u32 chiplets;
    u32 policy;
    u64 mem_bytes;          /* GPU addresses 0..mem_bytes-1 are modeled */
    u32 l1_sets, l1_ways;   /* 16 KiB, 16-way */
    u32 l2_sets, l2_ways;   /* 8 MiB, 32-way */
    u32 l3_sets, l3_ways;   /* 16 MiB, 16-way */
    u32 table_rows;         /* 64; more than 8 */
    u32 flags;              /* MCMGPU_CPE_FLAG_* */
    u32 dir_sets, dir_ways; /* HMG directory per home chiplet */
    u32 mutate;             /* CPE_MUTATE_* (tests only) */
};

struct cpe_line {
    u64 tag;                /* line number + 1; 0 = invalid */
    u32 lru;
    u16 valid;              /* one bit per 4 B word (VIPER-style) */
    u16 dirty;              /* one bit per 4 B word, a subset of valid */
    u32 ver[CPE_LINE_WORDS];
};

struct cpe_tag {
    u64 tag;
    u32 lru;
    u32 valid;              /* L1: words fetched through it; L3: unused */
};

/* HMG: which chiplets may hold lines of a 4-line region homed here. */
struct cpe_dir {
    u64 tag;                /* region + 1; 0 = free */
    u32 lru;
    u32 sharers;            /* chiplet bit mask, never the home */
};

struct cpe_row {
    bool used;
    u64 base, end;          /* GPU address span [base, end) */
    u64 last_use;
    u8 state[MCMGPU_MAX_CHIPLETS];
    /* Range hull each chiplet touched, inclusive. */
    u64 lo[MCMGPU_MAX_CHIPLETS], hi[MCMGPU_MAX_CHIPLETS];
};

struct cpe_model {
    struct cpe_config cfg;
    struct mcmgpu_cpe_stats stats;
    struct cpe_line *l2;    /* chiplets * l2_sets * l2_ways */
    struct cpe_tag *l1;     /* chiplets * l1_sets * l1_ways */
    struct cpe_tag *l3;     /* l3_sets * l3_ways */
    struct cpe_dir *dir;    /* chiplets * dir_sets * dir_ways */
    u32 *mem_ver;           /* version held by L3/memory, per word */
    u32 *golden;            /* latest version written, per word */
    s8 *home;               /* first-touch chiplet per page, -1 none */
    u32 clock;              /* LRU */
    u64 launches;
    bool first_kernel_done;
    bool ended;             /* the last record was the final release */
    bool completion_flush;  /* an unknown-range kernel: release at its end */
    struct cpe_row row[MCMGPU_CPE_TABLE_ROWS];
    u64 exec_cycles[MCMGPU_MAX_CHIPLETS];
    /* This kernel's bytes on each chiplet's crossbar port and HBM. */
    u64 link_bytes[MCMGPU_MAX_CHIPLETS];
    u64 dram_bytes[MCMGPU_MAX_CHIPLETS];
};

struct cpe_error {
    u32 arg;                /* 1-based argument, 0 = the record itself */
    const char *what;
    u64 value;
};

void cpe_config_defaults(struct cpe_config *cfg, u32 chiplets, u32 policy,
                         u64 mem_bytes);
/* The configuration a RESET record asks for. */
void cpe_config_of_reset(struct cpe_config *cfg,
                         const struct mcmgpu_cpe_record *r);
/* Bytes of arena cpe_model_init needs for cfg. */
u64 cpe_arena_bytes(const struct cpe_config *cfg);
bool cpe_config_valid(const struct cpe_config *cfg, const char **why);
/* arena: zeroed, cpe_arena_bytes(cfg) bytes, 8-byte aligned. */
void cpe_model_init(struct cpe_model *m, const struct cpe_config *cfg,
                    void *arena);
/* Checks a RESET record: its flags and the configuration it asks for. */
bool cpe_reset_check(const struct mcmgpu_cpe_record *r, const char **why);
/* Checks one record against the model's configuration (no side effects). */
int cpe_record_check(const struct cpe_model *m,
                     const struct mcmgpu_cpe_record *r,
                     struct cpe_error *err);
/* Applies one checked record. */
void cpe_model_record(struct cpe_model *m, const struct mcmgpu_cpe_record *r);
/* Final release if the sequence did not end with one; final oracle check. */
void cpe_model_finish(struct cpe_model *m);
u32 cpe_table_rows_used(const struct cpe_model *m);
/* The range chiplet c of the kernel accesses for argument a; false if none. */
bool cpe_arg_range(const struct mcmgpu_cpe_record *r,
                   const struct mcmgpu_cpe_arg *a, u32 c, u64 *lo, u64 *hi);

#endif /* CPELIDE_H */
