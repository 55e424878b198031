/*
 * The GPU timing core's parameters, their checks and the papers' presets
 * (gpu_config.h). Each preset value carries its source; a value no paper
 * gives is marked as our choice and says why.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "gpu_config.h"

/*
 * Field indexes, in gpu_config_fields[] order. The table and each
 * preset's sources are keyed by them ([CF_chiplets] = ...), so a row or
 * a source cannot land on another field's index.
 */
enum gpu_config_field_index {
    CF_chiplets, CF_sms, CF_warps_per_sm, CF_blocks_per_sm, CF_regs_per_sm,
    CF_shmem_per_sm, CF_tb_sched, CF_warp_sched, CF_clock_mhz, CF_lat_int,
    CF_lat_fp, CF_lat_dp, CF_lat_sfu, CF_lat_tensor, CF_lat_branch,
    CF_lat_other, CF_shmem_lat, CF_const_lat, CF_translate, CF_l1_tlb_entries,
    CF_l1_tlb_ways, CF_l1_tlb_lat, CF_l2_tlb_entries, CF_l2_tlb_ways,
    CF_l2_tlb_lat, CF_l2_tlb_mshrs, CF_pcie_lat, CF_walkers, CF_walk_lat,
    CF_l1_size, CF_l1_ways, CF_l1_lat, CF_l1_mshrs, CF_l2_size, CF_l2_ways,
    CF_l2_lat, CF_l2_bw, CF_link_lat, CF_link_bw, CF_dram_lat, CF_dram_bw,
    CF_vram_mib, CF_placement, CF_place_g, CF_kernel_mib, CF_fbarre,
    CF_fbarre_merge, CF_fbarre_filter_rows, CF_fbarre_sched_moves,
    CF_finepack, CF_cpelide, CF_adsm, CF_adsm_block, CF_adsm_rolling,
    CF_adsm_fault_lat, CF_pcie_bw, CF_pcie_dma_lat, CF_pcie_copies,
    CF_cxl, CF_cxl_sr, CF_cxl_ds, CF_cxl_media, CF_cxl_ports, CF_cxl_ctrl_ns,
    CF_cxl_gc, CF_cxl_first_object,
    CF_xl_share, CF_xl_prefetch,
    CF_uvm, CF_uvm_page, CF_uvm_batch, CF_uvm_runtime_ns, CF_uvm_gpu_kib,
    CF_uvm_pcie_bw,
    CF_l3_size, CF_l3_ways, CF_l3_lat,
    CF_barre_sched,
    CF_migrate, CF_migrate_threshold,
    CF_mgvm, CF_mgvm_lat,
    CF_cpe_remote,
    CF_dram_wq,
    CF_NR
};

#define F(field, unit, lo, hi) \
    [CF_##field] = { #field, (u32)offsetof(struct gpu_config, field), \
                     unit, lo, hi }

const struct gpu_config_field gpu_config_fields[CF_NR] = {
    F(chiplets, "", 1, GPU_MAX_CHIPLETS),
    F(sms, "", 1, GPU_MAX_SMS),
    F(warps_per_sm, "", 1, GPU_MAX_WARPS_PER_SM),
    F(blocks_per_sm, "", 1, GPU_MAX_BLOCKS_PER_SM),
    F(regs_per_sm, "", 1024, 1u << 20),
    F(shmem_per_sm, "bytes", 0, 1u << 24),
    F(tb_sched, "rr=0 chunk=1", 0, GPU_TB_NR - 1),
    F(warp_sched, "lrr=0 gto=1", 0, GPU_WS_NR - 1),
    F(clock_mhz, "MHz", 1, 10000),
    F(lat_int, "cycles", 1, 10000),
    F(lat_fp, "cycles", 1, 10000),
    F(lat_dp, "cycles", 1, 10000),
    F(lat_sfu, "cycles", 1, 10000),
    F(lat_tensor, "cycles", 1, 10000),
    F(lat_branch, "cycles", 1, 10000),
    F(lat_other, "cycles", 1, 10000),
    F(shmem_lat, "cycles", 1, 10000),
    F(const_lat, "cycles", 1, 10000),
    F(translate, "off=0 on=1", 0, 1),
    F(l1_tlb_entries, "", 1, 65536),
    F(l1_tlb_ways, "", 1, 65536),
    F(l1_tlb_lat, "cycles", 1, 10000),
    F(l2_tlb_entries, "", 1, 1u << 20),
    F(l2_tlb_ways, "", 1, 1u << 20),
    F(l2_tlb_lat, "cycles", 1, 10000),
    F(l2_tlb_mshrs, "", 1, 1024),
    F(pcie_lat, "cycles", 1, 1000000),
    F(walkers, "", 1, 32),
    F(walk_lat, "cycles", 1, 1000000),
    F(l1_size, "bytes", GPU_LINE_BYTES, 1u << 24),
    F(l1_ways, "", 1, 256),
    F(l1_lat, "cycles", 1, 10000),
    F(l1_mshrs, "", 1, 4096),
    F(l2_size, "bytes", GPU_LINE_BYTES, 1u << 30),
    F(l2_ways, "", 1, 256),
    F(l2_lat, "cycles", 1, 10000),
    F(l2_bw, "B/kcycle", 1000, 1u << 30),
    F(link_lat, "cycles", 1, 100000),
    F(link_bw, "B/kcycle", 1000, 1u << 30),
    F(dram_lat, "cycles", 1, 100000),
    F(dram_bw, "B/kcycle", 1000, 1u << 30),
    F(vram_mib, "MiB", 1, 1u << 20),
    F(placement, "chunk=0 rr=1 kwc=2 ft=3", 0, GPU_PLACE_NR - 1),
    F(place_g, "pages", 1, 1u << 20),
    F(kernel_mib, "MiB", 1, 1u << 20),
    F(fbarre, "off=0 on=1", 0, 1),
    F(fbarre_merge, "pages", 1, 4),
    F(fbarre_filter_rows, "", 256, 1024),
    F(fbarre_sched_moves, "", 0, 255),
    F(finepack, "off=0 p2p=1 wc=2 finepack=3 dma=4 gps=5 alt=6", 0,
      GPU_FP_NR - 1),
    F(cpelide, "off=0 baseline=1 cpelide=2 hmg=3 ideal=4", 0,
      GPU_CPE_NR - 1),
    F(adsm, "off=0 batch=1 lazy=2 rolling=3", 0, GPU_ADSM_NR - 1),
    F(adsm_block, "bytes", 1u << 12, 1u << 25),
    F(adsm_rolling, "blocks", 0, 65536),
    F(adsm_fault_lat, "cycles", 0, 100000000),
    F(pcie_bw, "B/kcycle", 1000, 1u << 30),
    F(pcie_dma_lat, "cycles", 0, 100000000),
    F(pcie_copies, "off=0 on=1", 0, 1),
    F(cxl, "off=0 on=1", 0, 1),
    F(cxl_sr, "off=0 naive=1 dyn=2 sr=3 max=4", 0, 4),
    F(cxl_ds, "off=0 on=1", 0, 1),
    F(cxl_media, "dram=0 optane=1 znand=2 nand=3", 0, 3),
    F(cxl_ports, "", 1, 8),
    F(cxl_ctrl_ns, "ns", 1, 100000),
    F(cxl_gc, "off=0 on=1", 0, 1),
    F(cxl_first_object, "", 0, 1u << 30),
    F(xl_share, "off=0 least=1 valkyrie=2", 0, GPU_XLS_NR - 1),
    F(xl_prefetch, "pages", 0, 8),
    F(uvm, "off=0 on=1 gds=2", 0, GPU_UVM_NR - 1),
    F(uvm_page, "bytes", 4096, 2u << 20),
    F(uvm_batch, "", 1, 65536),
    F(uvm_runtime_ns, "ns", 0, 100000000),
    F(uvm_gpu_kib, "KiB", 0, 1u << 30),
    F(uvm_pcie_bw, "B/kcycle", 1000, 1u << 30),
    F(l3_size, "bytes", GPU_LINE_BYTES, 1u << 30),
    F(l3_ways, "", 1, 256),
    F(l3_lat, "cycles", 1, 10000),
    F(barre_sched, "off=0 on=1", 0, 1),
    F(migrate, "off=0 acud=1", 0, GPU_MIG_NR - 1),
    F(migrate_threshold, "accesses", 1, 255),
    F(mgvm, "off=0 on=1", 0, 1),
    F(mgvm_lat, "cycles", 1, 10000),
    F(cpe_remote, "forward=0 cache=1", 0, 1),
    F(dram_wq, "", 0, 65536),
};
#undef F

const u32 gpu_config_nfields = CF_NR;

const struct gpu_config_field *gpu_config_field_find(const char *name)
{
    u32 i;

    for (i = 0; i < gpu_config_nfields; i++) {
        if (!strcmp(gpu_config_fields[i].name, name)) {
            return &gpu_config_fields[i];
        }
    }
    return NULL;
}

static bool is_pow2(u32 v)
{
    return v && !(v & (v - 1));
}

int gpu_config_check(const struct gpu_config *c, u32 max_chiplets,
                     const char **field, const char **why)
{
    u32 i;

    for (i = 0; i < gpu_config_nfields; i++) {
        const struct gpu_config_field *f = &gpu_config_fields[i];
        u32 v = *(const u32 *)((const char *)c + f->offset);

        if (v < f->min || v > f->max) {
            *field = f->name;
            *why = "out of its range (mcmgpu gpu config lists the ranges)";
            return -EINVAL;
        }
    }
#define BAD(f, w) do { *field = f; *why = w; return -EINVAL; } while (0)
    if (c->chiplets > max_chiplets) {
        BAD("chiplets", "more chiplets than this GPU can have");
    }
    if (c->l1_tlb_entries % c->l1_tlb_ways ||
        !is_pow2(c->l1_tlb_entries / c->l1_tlb_ways)) {
        BAD("l1_tlb_ways", "entries / ways must be a power of two");
    }
    if (c->l2_tlb_entries % c->l2_tlb_ways ||
        !is_pow2(c->l2_tlb_entries / c->l2_tlb_ways)) {
        BAD("l2_tlb_ways", "entries / ways must be a power of two");
    }
    if (c->l1_size % (GPU_LINE_BYTES * c->l1_ways) ||
        !is_pow2(c->l1_size / (GPU_LINE_BYTES * c->l1_ways))) {
        BAD("l1_ways", "size / (128 B x ways) must be a power of two");
    }
    if (c->l2_size % (GPU_LINE_BYTES * c->l2_ways) ||
        !is_pow2(c->l2_size / (GPU_LINE_BYTES * c->l2_ways))) {
        BAD("l2_ways", "size / (128 B x ways) must be a power of two");
    }
    if (!is_pow2(c->fbarre_filter_rows)) {
        BAD("fbarre_filter_rows", "256, 512 or 1024");
    }
    if (!is_pow2(c->adsm_block)) {
        BAD("adsm_block", "a power of two, 4 KiB to 32 MiB");
    }
    if (!is_pow2(c->cxl_ports)) {
        BAD("cxl_ports", "1, 2, 4 or 8");
    }
    if (c->xl_share && c->fbarre) {
        BAD("xl_share", "Least and Valkyrie are baselines of Barre off");
    }
    /* Least's ideal filter holds 1024 entries, a whole L2 TLB (§VII-A). */
    if (c->xl_share == GPU_XLS_LEAST && c->l2_tlb_entries > 1024) {
        BAD("xl_share", "least tracks an L2 TLB of at most 1024 entries");
    }
    if (!is_pow2(c->uvm_page)) {
        BAD("uvm_page", "a power of two, 4 KiB to 2 MiB");
    }
    /*
     * First touch homes a page when a kernel first touches it; with
     * translation the driver maps every frame when the object is made.
     */
    if (c->placement == GPU_PLACE_FT && c->translate) {
        BAD("placement", "ft needs translate off (with translation the"
            " driver places an object's frames when it is created)");
    }
    if (c->uvm && (c->cxl || c->adsm || c->pcie_copies)) {
        BAD("uvm", "UVM and GDS place every object outside the GPU: not"
            " with cxl, adsm or pcie_copies");
    }
    if (c->warps_per_sm * PROG_WARP_SIZE > c->regs_per_sm) {
        BAD("regs_per_sm", "fewer than one register a thread of every warp");
    }
    /*
     * Migration rewrites PTEs the caller owns: the other models keep
     * pages or translations of their own (docs/gpu.md).
     */
    if (c->migrate && (!c->translate || c->xl_share || c->uvm || c->cpelide ||
                       c->cxl || c->adsm || c->finepack)) {
        BAD("migrate", "needs translate on, and not with xl_share, uvm,"
            " cpelide, cxl, adsm or finepack");
    }
    /*
     * MGvm's GMMUs walk the allocator's page tables on the host (docs/
     * gpu.md, MGvm in the core); the other models keep pages or
     * translations of their own, and migration would move pages under
     * the page-table placement.
     */
    if (c->mgvm && (!c->translate || c->xl_share || c->uvm || c->cpelide ||
                    c->cxl || c->adsm || c->finepack || c->migrate)) {
        BAD("mgvm", "needs translate on, and not with xl_share, uvm,"
            " cpelide, cxl, adsm, finepack or migrate");
    }
#undef BAD
    return 0;
}


/* ---- Overrides: "name=value" ---- */

/* An enum's unit spells its values: "lrr=0 gto=1". */
static bool field_is_enum(const struct gpu_config_field *f)
{
    return strchr(f->unit, '=') != NULL;
}

/*
 * Walks f's "name=value" pairs: the value of the name s[0..len), or with
 * s NULL the name of value *v (into *name, *len). 0, or -1 if none.
 */
static int enum_lookup(const struct gpu_config_field *f, const char **s,
                       u32 *len, u32 *v)
{
    const char *p = f->unit;

    while (*p) {
        const char *eq = strchr(p, '=');
        const char *end;
        u32 n = 0;

        if (!eq) {
            return -1;
        }
        for (end = eq + 1; *end >= '0' && *end <= '9'; end++) {
            n = n * 10 + (u32)(*end - '0');
        }
        if (*s && (u32)(eq - p) == *len && !memcmp(p, *s, *len)) {
            *v = n;
            return 0;
        }
        if (!*s && n == *v) {
            *s = p;
            *len = (u32)(eq - p);
            return 0;
        }
        while (*end == ' ') {
            end++;
        }
        p = end;
    }
    return -1;
}

int gpu_config_value_name(const struct gpu_config_field *f, u32 v,
                          const char **name, u32 *len)
{
    *name = NULL;
    return field_is_enum(f) ? enum_lookup(f, name, len, &v) : -1;
}

/*
 * Decimal with an optional k, M or G (x 1024, 1024^2, 1024^3): 0, -1
 * for no number, -2 for one above U32_MAX.
 */
static int parse_value(const char *s, u32 *out)
{
    u64 v = 0;
    const char *p = s;
    u32 shift = 0;
    bool big = false;

    for (; *p >= '0' && *p <= '9'; p++) {
        v = v * 10 + (u64)(*p - '0');
        if (v > 0xffffffffull) {
            big = true;         /* keep reading: a bad suffix still wins */
            v = 0xffffffffull + 1;
        }
    }
    if (p == s) {
        return -1;
    }
    switch (*p) {
    case 'k': case 'K':
        shift = 10, p++;
        break;
    case 'm': case 'M':
        shift = 20, p++;
        break;
    case 'g': case 'G':
        shift = 30, p++;
        break;
    }
    if (*p) {
        return -1;
    }
    if (big || v << shift > 0xffffffffull) {
        return -2;
    }
    *out = (u32)(v << shift);
    return 0;
}

int gpu_config_set(struct gpu_config *c, const char *assignment,
                   const char **why)
{
    const char *eq = strchr(assignment, '=');
    const struct gpu_config_field *f = NULL;
    const char *value;
    u32 i, len, v;
    int ret;

    if (!eq || eq == assignment) {
        *why = "not FIELD=VALUE";
        return -EINVAL;
    }
    len = (u32)(eq - assignment);
    for (i = 0; i < gpu_config_nfields; i++) {
        if (strlen(gpu_config_fields[i].name) == len &&
            !memcmp(gpu_config_fields[i].name, assignment, len)) {
            f = &gpu_config_fields[i];
            break;
        }
    }
    if (!f) {
        *why = "unknown field";
        return -EINVAL;
    }
    value = eq + 1;
    len = (u32)strlen(value);
    if (field_is_enum(f) && !enum_lookup(f, &value, &len, &v)) {
        ret = 0;
    } else {
        ret = parse_value(value, &v);
    }
    if (ret == -1) {
        *why = field_is_enum(f) ? "bad value (one of its names or a number)"
                                : "bad number (decimal, optional k, M or G)";
        return -EINVAL;
    }
    if (ret == -2 || v < f->min || v > f->max) {
        *why = "out of range";
        return -EINVAL;
    }
    *gpu_config_u32(c, f) = v;
    return 0;
}

/* ---- The presets ---- */

/*
 * The TLB and walker fields of a preset that runs with translation off,
 * which the core ignores then: Barre's values, so they stay valid.
 */
#define UNUSED_TLB(why) \
    [CF_l1_tlb_entries] = "unused (" why "); Barre's Table II: 64", \
    [CF_l1_tlb_ways] = "unused (" why "); Barre's Table II: fully assoc.", \
    [CF_l1_tlb_lat] = "unused (" why "); Barre's Table II: 1 cycle", \
    [CF_l2_tlb_entries] = "unused (" why "); Barre's Table II: 512", \
    [CF_l2_tlb_ways] = "unused (" why "); Barre's Table II: 16-way", \
    [CF_l2_tlb_lat] = "unused (" why "); Barre's Table II: 10 cycles", \
    [CF_l2_tlb_mshrs] = "unused (" why "); Barre's Table II: 16", \
    [CF_walkers] = "unused (" why "); Barre's Table II: 16 PTWs", \
    [CF_walk_lat] = "unused (" why "); Barre's Table II: 500 cycles"

#define UNUSED_TLB_VALUES \
    .l1_tlb_entries = 64, .l1_tlb_ways = 64, .l1_tlb_lat = 1, \
    .l2_tlb_entries = 512, .l2_tlb_ways = 16, .l2_tlb_lat = 10, \
    .l2_tlb_mshrs = 16, .pcie_lat = 150, .walkers = 16, .walk_lat = 500

#define VRAM_SOURCE(paper) \
    "ours: the device's 64 MiB a chiplet (MCMGPU_DEFAULT_VRAM_PER_CHIPLET)" \
    " so PFN homes match it; the paper's GPU has " paper

/* F-Barre's fields: run options, defaults from the paper. */
#define FBARRE_SOURCES \
    [CF_fbarre] = "run option (--barre fbarre): F-Barre's in-package" \
                  " translation (§V-A), off by default", \
    [CF_fbarre_merge] = "run option (--merge): 1; the paper's F-Barre is" \
                        " 2Merge (§V-B, Fig 15)", \
    [CF_fbarre_filter_rows] = "Table II: cuckoo filters of 256 rows x 4" \
                              " ways, 9-bit fingerprints", \
    [CF_fbarre_sched_moves] = "ours: a request is passed at most 4 times" \
                              " (MCMGPU_FBARRE_SCHED_MOVES; §V-C gives no" \
                              " bound)"

#define FBARRE_VALUES \
    .fbarre = 0, .fbarre_merge = 1, .fbarre_filter_rows = 256, \
    .fbarre_sched_moves = 4
/*
 * Barre with F-Barre's coalescing-aware walker scheduling and no
 * in-package translation: Barre Chord's Fig 18 first step.
 */
#define BARRE_SCHED_SOURCES \
    [CF_barre_sched] = "run option (--set barre_sched=1 with --barre on):" \
                       " off; on, Barre's walkers schedule as F-Barre's" \
                       " (fbarre_sched_moves) without in-package" \
                       " translation (§V-C, Fig 18's first step)"
#define FINEPACK_SOURCE \
    "run option (mcmgpu run --finepack): off, the core's per-sector" \
    " link path (docs/gpu.md, FinePack in the core)"

#define CPELIDE_SOURCE \
    "run option (mcmgpu run --cpelide): off, an L2 caches only its own" \
    " chiplet's memory (docs/gpu.md, CPElide in the core)"

/*
 * ADSM and the host link. The paper gives no per-transfer cost and no
 * fault time: the DMA setup is the device's (MCMGPU_DMA_SETUP_CYCLES,
 * 500 ns at its 1 GHz, as `mcmgpu adsm`'s model), a fault 2 us; each
 * preset's values are these in its own cycles. Only the adsm preset times
 * COPY records (pcie_copies): the other papers' traces time the GPU.
 */
#define ADSM_SOURCES(mhz, bw, dma, fault) \
    [CF_adsm] = "run option (mcmgpu run --adsm): off (docs/gpu.md, ADSM" \
                " in the core)", \
    [CF_adsm_block] = "ours: 256 KiB, mcmgpu adsm run's default (§5.2:" \
                      " the block size makes no appreciable difference)", \
    [CF_adsm_rolling] = "§4.3: 0, adaptive: 2 more dirty blocks an object", \
    [CF_adsm_fault_lat] = "ours: 2 us = " fault " cycles at " mhz " MHz" \
                          " (signal, handler, mprotect; the paper gives no" \
                          " time, only below 2% of the run, Fig. 10)", \
    [CF_pcie_bw] = "ADSM §5: PCIe 2.0 x16, 16 lanes x 500 MB/s = 8 GB/s" \
                   " each way = " bw " B/kcycle at " mhz " MHz", \
    [CF_pcie_dma_lat] = "ours: 500 ns = " dma " cycles at " mhz " MHz, the" \
                        " device's DMA setup (MCMGPU_DMA_SETUP_CYCLES at 1" \
                        " GHz; the paper gives none)"

#define ADSM_VALUES(bw, dma, fault) \
    .adsm = GPU_ADSM_OFF, .adsm_block = 256u << 10, .adsm_rolling = 0, \
    .adsm_fault_lat = fault, .pcie_bw = bw, .pcie_dma_lat = dma

#define PCIE_COPIES_OFF \
    [CF_pcie_copies] = "ours: off, COPY records take no time (the paper" \
                       " times the GPU alone)"
/* CXL-GPU's settings are run options in every preset (gpu_cxl.h). */
#define CXL_SOURCES \
    [CF_cxl] = "run option (mcmgpu run --cxl): off, every object in the" \
               " chiplets' DRAM (docs/gpu.md, CXL-GPU in the core)", \
    [CF_cxl_sr] = "run option (--cxl MEDIA:sr=MODE): sr, the paper's" \
                  " CXL-SR (§III, Fig 9d); used with cxl on", \
    [CF_cxl_ds] = "run option (--cxl MEDIA:ds=on): off (§III's DS is" \
                  " optional); used with cxl on", \
    [CF_cxl_media] = "run option (--cxl MEDIA): znand, Fig 9b's endpoint" \
                     " (Table 10(a): Samsung 983 ZET)", \
    [CF_cxl_ports] = "run option (--cxl MEDIA:ports=N): 4, as mcmgpu cxl" \
                     " replay (the paper gives no root-port count)", \
    [CF_cxl_ctrl_ns] = "run option (--cxl MEDIA:ctrl=NS): 80 ns, the" \
                       " paper's controller (Fig 3(b): over 3x under" \
                       " 250 ns)", \
    [CF_cxl_gc] = "run option (--cxl MEDIA:gc=off): on, as mcmgpu cxl" \
                  " replay (Fig 9e's garbage collection)", \
    [CF_cxl_first_object] = "run option (--cxl MEDIA:from=K): 0, every" \
                            " object in CXL memory (the paper's inputs" \
                            " exceed GPU memory 10x, §Methodology)"

/*
 * CXL-GPU's baselines, UVM and GDS (gpu_uvm.h): run options in every
 * preset. The host runtime's time is the paper's ("approximately 500",
 * unit lost, us from Allen & Ge [11]); the batch and the page are the
 * NVIDIA driver's; the host link is the preset's.
 */
#define UVM_SOURCES(bw) \
    [CF_uvm] = "run option (mcmgpu run --cxl uvm|gds): off (docs/gpu.md," \
               " UVM and GDS in the core)", \
    [CF_uvm_page] = "ours: 4 KiB, the NVIDIA UVM driver's fault page on" \
                    " x86 (the paper: data moves per page; no prefetch)", \
    [CF_uvm_batch] = "ours: 256 faults, the NVIDIA UVM driver's default" \
                     " fault batch (uvm_perf_fault_batch_count)", \
    [CF_uvm_runtime_ns] = "§Methodology: about 500 (us; the unit is lost)" \
                          " of host runtime a fault batch, from Allen &" \
                          " Ge, IPDPS'21 [11]", \
    [CF_uvm_gpu_kib] = "ours: 0, the objects' pages / 10 (§Methodology:" \
                       " the inputs are 10x the GPU's memory)", \
    [CF_uvm_pcie_bw] = bw

#define UVM_VALUES(bw) \
    .uvm = GPU_UVM_OFF, .uvm_page = 4096, .uvm_batch = 256, \
    .uvm_runtime_ns = 500000, .uvm_gpu_kib = 0, .uvm_pcie_bw = bw

#define UVM_LINK_AS_PCIE(bw) \
    "ours: the preset's host link, pcie_bw = " bw " B/kcycle"

#define CXL_VALUES \
    .cxl = 0, .cxl_sr = 3, .cxl_ds = 0, .cxl_media = 2, .cxl_ports = 4, \
    .cxl_ctrl_ns = 80, .cxl_gc = 1, .cxl_first_object = 0

/*
 * CPElide's memory-side L3 (Table I), the homes' side of the hierarchy
 * with a cpelide policy on, in every preset (docs/gpu.md, CPElide in the
 * core). Its lines are 64 B, ours 128 B: size and ways are the paper's.
 */
#define CPELIDE_L3_SOURCES \
    [CF_l3_size] = "CPElide Table I: L3 16 MB, shared, banks split over" \
                   " the chiplets (a slice each); used with cpelide on", \
    [CF_l3_ways] = "CPElide Table I: L3 16-way; used with cpelide on", \
    [CF_l3_lat] = "CPElide Table I: L3 latency 330 cycles, after an L2" \
                  " miss (ours: added to it); used with cpelide on"

#define CPELIDE_L3_VALUES \
    .l3_size = 16u << 20, .l3_ways = 16, .l3_lat = 330

/* Barre Chord's baselines (§VII-A) are run options in every preset. */
#define XL_SHARE_SOURCES \
    [CF_xl_share] = "run option (mcmgpu run --barre least|valkyrie): off;" \
                    " Barre Chord's baselines Least [27] and Valkyrie [8]" \
                    " (§VII-A)", \
    [CF_xl_prefetch] = "ours: 1, the next page (§VII-A says only \"L2 TLB" \
                       " prefetch\"); used with xl_share=valkyrie"

#define XL_SHARE_VALUES \
    .xl_share = GPU_XLS_OFF, .xl_prefetch = 1

/* Barre Chord's Fig 22 baseline (§VII-G) is a run option in every preset. */
#define MIGRATE_SOURCES \
    [CF_migrate] = "run option: off; Barre Chord §VII-G runs ACUD [7]" \
                   " (Fig 22), counter-based page migration", \
    [CF_migrate_threshold] = "Barre Chord §VII-G: ACUD's migration" \
                             " threshold 16; used with migrate=acud"

#define MIGRATE_VALUES \
    .migrate = GPU_MIG_OFF, .migrate_threshold = 16

/*
 * Barre Chord's Fig 21 baseline MGvm [41] (§VII-F): a GMMU a chiplet,
 * a run option in every preset (docs/gpu.md, MGvm in the core).
 */
#define MGVM_SOURCES \
    [CF_mgvm] = "run option: off; Barre Chord §VII-F runs MGvm [41]" \
                " (Fig 21), a GMMU a chiplet, page tables spread", \
    [CF_mgvm_lat] = "ours: 10 cycles, L2 TLB <-> its chiplet's GMMU one" \
                    " way, Table II's L2 TLB lookup (paper silent); used" \
                    " with mgvm on"

#define MGVM_VALUES \
    .mgvm = 0, .mgvm_lat = 10

/*
 * Where remote-homed lines live with a cpelide policy on (docs/gpu.md,
 * CPElide in the core): HMG and ideal cache them in any case.
 */
#define CPE_REMOTE_SOURCES \
    [CF_cpe_remote] = "CPElide §IV-C: forward; baseline \"forwards remote" \
                      " requests to the home node\", CPElide \"does not" \
                      " cache remote reads\" (§V-B); cache keeps them in" \
                      " the requester's L2 as HMG does"

#define CPE_REMOTE_VALUES \
    .cpe_remote = 0

/*
 * A memory's write queue (docs/gpu.md, the write queue): 0 unbounded in
 * the presets whose papers give no memory controller.
 */
#define DRAM_WQ_SOURCES \
    [CF_dram_wq] = "ours: 0, unbounded (the paper gives no memory" \
                   " controller's queues)"

#define DRAM_WQ_VALUES \
    .dram_wq = 0

#define KERNEL_MIB_SOURCE \
    "ours: 512 MiB of decoded instructions a kernel, a bound no paper" \
    " sets (a larger kernel is refused, not swapped)"

/*
 * Barre Chord, Table II (notes/barre.md §1): an AMD GCN3-like MCM-GPU in
 * MGPUSim. The paper gives no clock: at our 1 GHz, B/kcycle = GB/s.
 */
static const char *const barre_sources[CF_NR] = {
    [CF_chiplets] = "Table II: 4 GPU chiplets",
    [CF_sms] = "Table II: 4 SAs a chip x 16 CUs an SA",
    [CF_warps_per_sm] = "ours: 40 (GCN3: 4 SIMDs x 10 wavefronts a CU;"
                        " not in the paper)",
    [CF_blocks_per_sm] = "ours: CUDA-like 32 blocks an SM (MGPUSim limits"
                         " by wavefronts)",
    [CF_regs_per_sm] = "ours: GCN3's 4 x 64 KiB vector registers a CU ="
                       " 65536 x 32-bit (not in the paper)",
    [CF_shmem_per_sm] = "ours: GCN3's 64 KiB LDS a CU (not in the paper)",
    [CF_tb_sched] = "Table II: CTA scheduling LASP; chunk is our reading"
                    " (CTAs go with their pages, notes §1.4)",
    [CF_warp_sched] = "ours: GTO, the common GPGPU-Sim/Accel-Sim default",
    [CF_clock_mhz] = "ours: 1 GHz, MGPUSim's R9 Nano default (the paper"
                     " gives no clock)",
    [CF_lat_int] = "ours: 4 cycles (a GCN3 SIMD takes 4 cycles a wavefront"
                   " instruction)",
    [CF_lat_fp] = "ours: 4 cycles, as integer",
    [CF_lat_dp] = "ours: 8 cycles (GCN3 DP at half rate)",
    [CF_lat_sfu] = "ours: 16 cycles (GCN3 transcendental at quarter rate)",
    [CF_lat_tensor] = "ours: 16 cycles (no matrix units in GCN3)",
    [CF_lat_branch] = "ours: 4 cycles, one SIMD pass as an ALU op",
    [CF_lat_other] = "ours: 4 cycles, one SIMD pass as an ALU op",
    [CF_shmem_lat] = "ours: 32 cycles (MGPUSim's LDS)",
    [CF_const_lat] = "ours: 32 cycles (MGPUSim's scalar cache hit)",
    [CF_translate] = "§III-A, Table II: translation through the IOMMU: on",
    [CF_l1_tlb_entries] = "Table II: L1 TLB 64 entries, private per CU",
    [CF_l1_tlb_ways] = "Table II: fully associative (\"fully connected\")",
    [CF_l1_tlb_lat] = "Table II: 1-cycle lookup",
    [CF_l2_tlb_entries] = "Table II: L2 TLB 512 entries, one per chiplet",
    [CF_l2_tlb_ways] = "Table II: 16-way",
    [CF_l2_tlb_lat] = "Table II: 10-cycle lookup",
    [CF_l2_tlb_mshrs] = "Table II: L2 TLB 16 MSHRs",
    [CF_pcie_lat] = "Table II: PCIe Gen4 x16, 150 cycles",
    [CF_walkers] = "Table II: 16 shared PTWs",
    [CF_walk_lat] = "Table II: 500-cycle page-table walks",
    [CF_l1_size] = "Table II: L1 vector cache 16 KB",
    [CF_l1_ways] = "Table II: L1 vector cache 4-way",
    [CF_l1_lat] = "ours: 28 cycles (MGPUSim's L1 vector cache pipeline)",
    [CF_l1_mshrs] = "Table II: L1 vector cache 16 MSHRs",
    [CF_l2_size] = "Table II: L2 2 MB (a chiplet: our reading, the table"
                   " does not say)",
    [CF_l2_ways] = "Table II: L2 16-way",
    [CF_l2_lat] = "ours: 100 cycles (MGPUSim's L2 hit, R9 Nano)",
    [CF_l2_bw] = "ours: 1 TB/s, the chiplet's DRAM rate (never the limit)",
    [CF_link_lat] = "Table II: mesh 32-cycle latency",
    [CF_link_bw] = "Table II: 768 GB/s mesh (taken as each chiplet's port,"
                   " each direction: ours)",
    [CF_dram_lat] = "Table II: DRAM 100 ns latency = 100 cycles at our 1 GHz",
    [CF_dram_bw] = "Table II: DRAM 1 TBps (a chiplet, notes §1.1)",
    [CF_vram_mib] = VRAM_SOURCE("memory the paper does not size"),
    [CF_placement] = "Table II: LASP co-locates CTAs and their pages"
                     " (§II-B); under chunk CTA scheduling that is kwc,"
                     " kernel-wide chunking [30] (no compiler pass here)",
    [CF_place_g] = "unused (placement kwc: g = an object's pages / chiplets,"
                   " notes/barre.md §5a); ours: 1",
    [CF_kernel_mib] = KERNEL_MIB_SOURCE,
    FBARRE_SOURCES,
    [CF_finepack] = FINEPACK_SOURCE,
    [CF_cpelide] = CPELIDE_SOURCE,
    ADSM_SOURCES("1000", "8000", "500", "2000"),
    PCIE_COPIES_OFF,
    CXL_SOURCES,
    XL_SHARE_SOURCES,
    MIGRATE_SOURCES,
    MGVM_SOURCES,
    CPE_REMOTE_SOURCES,
    DRAM_WQ_SOURCES,
    UVM_SOURCES(UVM_LINK_AS_PCIE("8000")),
    CPELIDE_L3_SOURCES,
    BARRE_SCHED_SOURCES,
};

/*
 * FinePack (notes/finepack.md §2.1, §4.1): NVAS with four GV100 GPUs on
 * PCIe 4.0 (Table III, §V); one chiplet a GPU. Table III gives few
 * numbers: the rest are V100 facts or our choices, marked. 1530 MHz.
 */
static const char *const finepack_sources[CF_NR] = {
    [CF_chiplets] = "§V: four GV100 GPUs, one chiplet a GPU",
    [CF_sms] = "Table III: 80 SMs",
    [CF_warps_per_sm] = "Table III: 2048 threads an SM / warp size 32",
    [CF_blocks_per_sm] = "ours: 32, Volta's (CUDA 7.0) limit; not in the"
                         " paper",
    [CF_regs_per_sm] = "ours: GV100's 64K 32-bit registers an SM; not in"
                       " the paper",
    [CF_shmem_per_sm] = "ours: GV100's largest shared memory, 96 KB an SM;"
                        " not in the paper",
    [CF_tb_sched] = "ours: chunk, each GPU runs a contiguous share of the"
                    " work as the apps partition it (§V)",
    [CF_warp_sched] = "ours: GTO, the common GPGPU-Sim/Accel-Sim default",
    [CF_clock_mhz] = "ours: 1530 MHz, V100's boost clock (Table III gives"
                     " none)",
    [CF_lat_int] = "ours: 4 cycles (Volta-class dependent issue)",
    [CF_lat_fp] = "ours: 4 cycles (Volta-class dependent issue)",
    [CF_lat_dp] = "ours: 8 cycles (DP at half rate)",
    [CF_lat_sfu] = "ours: 16 cycles (quarter-rate SFU)",
    [CF_lat_tensor] = "ours: 16 cycles (FinePack's apps use no tensor"
                      " cores)",
    [CF_lat_branch] = "ours: 4 cycles, as an ALU op",
    [CF_lat_other] = "ours: 4 cycles, as an ALU op",
    [CF_shmem_lat] = "ours: 20 cycles (Volta-class shared memory)",
    [CF_const_lat] = "ours: 20 cycles (Volta-class constant cache hit)",
    [CF_translate] = "ours: off, FinePack's evaluation models no address"
                     " translation",
    UNUSED_TLB("translate off"),
    [CF_pcie_lat] = "unused (translate off); ours: Barre's 150 cycles",
    [CF_l1_size] = "ours: 32 KB, GV100's 128 KB L1/shared less 96 KB"
                   " shared (§IV-B's 16 MB L1+L2 = 6 MB + 80 x 128 KB)",
    [CF_l1_ways] = "ours: 4-way (the paper gives no L1 geometry)",
    [CF_l1_lat] = "ours: 28 cycles (Volta-class L1 hit)",
    [CF_l1_mshrs] = "ours: 512 sectors in flight, Accel-Sim's QV100 L1"
                    " (Khairy et al., ISCA 2020: 512 MSHRs; its later"
                    " config 256, within 0.7 % on FinePack's apps; the"
                    " paper is silent)",
    [CF_l2_size] = "Table III: L2 6 MB (a GPU)",
    [CF_l2_ways] = "ours: 24-way (6 MB needs a multiple of 3 ways for"
                   " power-of-two sets)",
    [CF_l2_lat] = "ours: 190 cycles (Volta-class L2 hit)",
    [CF_l2_bw] = "ours: 2 KB a cycle, above the DRAM rate (paper silent)",
    [CF_link_lat] = "ours: 1000 cycles (650 ns at 1530 MHz, a P2P write"
                    " through a PCIe switch; the paper gives none)",
    [CF_link_bw] = "§V: PCIe 4.0 at 32 GB/s = 20915 B/kcycle at 1530 MHz",
    [CF_dram_lat] = "ours: 450 cycles (HBM2-class access; paper silent)",
    [CF_dram_bw] = "ours: 900 GB/s, V100's HBM2 = 588235 B/kcycle at 1530"
                   " MHz (Table III gives 16 GB, no rate)",
    [CF_vram_mib] = VRAM_SOURCE("16 GB (Table III)"),
    [CF_placement] = "ours: kwc, each GPU holds the contiguous share its"
                     " kernels write (P2P-store replicas, §II-A)",
    [CF_place_g] = "unused (placement kwc); ours: 1",
    [CF_kernel_mib] = KERNEL_MIB_SOURCE,
    FBARRE_SOURCES,
    [CF_finepack] = FINEPACK_SOURCE,
    [CF_cpelide] = CPELIDE_SOURCE,
    ADSM_SOURCES("1530", "5229", "765", "3060"),
    PCIE_COPIES_OFF,
    CXL_SOURCES,
    XL_SHARE_SOURCES,
    MIGRATE_SOURCES,
    MGVM_SOURCES,
    CPE_REMOTE_SOURCES,
    DRAM_WQ_SOURCES,
    UVM_SOURCES(UVM_LINK_AS_PCIE("5229")),
    CPELIDE_L3_SOURCES,
    BARRE_SCHED_SOURCES,
};

/*
 * CPElide, Table I (notes/cpelide.md §3.1): gem5 v21.1 with ROCm 1.6, a
 * Radeon VII-like chiplet GPU at 1801 MHz; 4 chiplets, the headline
 * count. Its lines are 64 B, ours 128 B: sizes and ways are the paper's.
 */
static const char *const cpelide_sources[CF_NR] = {
    [CF_chiplets] = "Table I: 2, 4, 6 chiplets; 4 is the headline (§V)",
    [CF_sms] = "Table I: 60 CUs a chiplet",
    [CF_warps_per_sm] = "Table I: 4 SIMDs a CU x 10 WFs a SIMD",
    [CF_blocks_per_sm] = "ours: 32 (the paper gives no workgroup limit)",
    [CF_regs_per_sm] = "Table I: 256 KB VRF a CU = 65536 x 32-bit",
    [CF_shmem_per_sm] = "Table I: 64 KB LDS a CU",
    [CF_tb_sched] = "Table I: static kernel partitioning = contiguous WG"
                    " ranges a chiplet: chunk",
    [CF_warp_sched] = "ours: GTO (the paper does not say)",
    [CF_clock_mhz] = "Table I: GPU clock 1801 MHz",
    [CF_lat_int] = "ours: 4 cycles (GCN: a SIMD takes 4 cycles a"
                   " wavefront instruction)",
    [CF_lat_fp] = "ours: 4 cycles, as integer",
    [CF_lat_dp] = "ours: 8 cycles (DP at half rate)",
    [CF_lat_sfu] = "ours: 16 cycles (transcendental at quarter rate)",
    [CF_lat_tensor] = "ours: 16 cycles (no matrix units)",
    [CF_lat_branch] = "ours: 4 cycles, one SIMD pass as an ALU op",
    [CF_lat_other] = "ours: 4 cycles, one SIMD pass as an ALU op",
    [CF_shmem_lat] = "Table I: LDS latency 65 cycles",
    [CF_const_lat] = "ours: 32 cycles (scalar cache hit, as Barre's)",
    [CF_translate] = "ours: off, CPElide's evaluation says nothing of"
                     " translation",
    UNUSED_TLB("translate off"),
    [CF_pcie_lat] = "unused (translate off); ours: Barre's 150 cycles",
    [CF_l1_size] = "Table I: L1D 16 KB a CU (64 B lines)",
    [CF_l1_ways] = "Table I: L1D 16-way",
    [CF_l1_lat] = "Table I: L1 latency 140 cycles",
    [CF_l1_mshrs] = "gem5 configs/ruby/GPU_VIPER.py: 2560 TCP TBEs, \"set"
                    " to max outstanding requests\" (4 SIMDs x 10"
                    " wavefronts x 64 lanes; gem5 is the paper's"
                    " simulator, the paper gives none)",
    [CF_l2_size] = "Table I: L2 8 MB a chiplet (64 B lines)",
    [CF_l2_ways] = "Table I: L2 32-way",
    [CF_l2_lat] = "Table I: local L2 latency 269 cycles",
    [CF_l2_bw] = "ours: 2 KB a cycle, above the DRAM rate (paper silent)",
    [CF_link_lat] = "Table I: remote L2 390 - local 269 = 121 cycles",
    [CF_link_bw] = "Table I: 768 GB/s inter-chiplet = 426430 B/kcycle at"
                   " 1801 MHz (a chiplet's port, each direction: ours)",
    [CF_dram_lat] = "ours: 330 cycles, Table I's L3 latency (HBM latency"
                    " not given; with cpelide off the model has no L3, on"
                    " the L3 slice's miss pays it too)",
    [CF_dram_bw] = "ours: one HBM2 stack a chiplet, 1024 bits at 1000 MHz"
                   " DDR = 256 GB/s = 142143 B/kcycle (Table I: clock only)",
    [CF_vram_mib] = VRAM_SOURCE("16 GB HBM (Table I)"),
    [CF_placement] = "Table I: first touch (ft; a page's first toucher:"
                     " the block first in its chiplet's dispatch order,"
                     " the lower chiplet on a tie: ours)",
    [CF_place_g] = "unused (placement ft); ours: 1",
    [CF_kernel_mib] = KERNEL_MIB_SOURCE,
    FBARRE_SOURCES,
    [CF_finepack] = FINEPACK_SOURCE,
    [CF_cpelide] = CPELIDE_SOURCE,
    ADSM_SOURCES("1801", "4442", "901", "3602"),
    PCIE_COPIES_OFF,
    CXL_SOURCES,
    XL_SHARE_SOURCES,
    MIGRATE_SOURCES,
    MGVM_SOURCES,
    CPE_REMOTE_SOURCES,
    [CF_dram_wq] = "gem5 src/mem/MemCtrl.py: write_buffer_size 64, the"
                   " default (gem5 is the paper's simulator; the paper"
                   " gives no memory controller): an entry a sector write",
    UVM_SOURCES(UVM_LINK_AS_PCIE("4442")),
    CPELIDE_L3_SOURCES,
    BARRE_SCHED_SOURCES,
};

/*
 * CXL-GPU, Table 10(a) (notes/cxlgpu.md §3.2): the Vortex RISC-V GPU,
 * one GPU. The table's media latencies and bandwidths are lost from the
 * paper's text and its bus latencies were never printed: the endpoint
 * media are not parameters here (the CXL root complex, cxl_srds.c, times
 * them with notes §5.1.10's [A] values), and the GPU's own DDR5 is ours.
 * The paper gives no clock: at our 1 GHz a cycle is 1 ns.
 */
static const char *const cxl_sources[CF_NR] = {
    [CF_chiplets] = "Table 10(a): one Vortex GPU: 1 chiplet",
    [CF_sms] = "Table 10(a): Vortex 8 cores (a core = an SM)",
    [CF_warps_per_sm] = "ours: 8 (Table 10(a)'s 8 threads are a core's"
                        " lanes; the model's warps have 32)",
    [CF_blocks_per_sm] = "ours: 8, one a warp slot",
    [CF_regs_per_sm] = "ours: 16384 (8 warps x 32 lanes x 64; not in the"
                       " paper)",
    [CF_shmem_per_sm] = "ours: 16 KB local memory a core (not in the"
                        " paper)",
    [CF_tb_sched] = "ours: rr (one chiplet: either is the same)",
    [CF_warp_sched] = "ours: LRR, a simple in-order core's round-robin",
    [CF_clock_mhz] = "ours: 1000 MHz, so a cycle is 1 ns (the paper gives"
                     " no clock)",
    [CF_lat_int] = "ours: 4 cycles (the paper gives no Vortex pipeline"
                   " latencies)",
    [CF_lat_fp] = "ours: 4 cycles, as integer",
    [CF_lat_dp] = "ours: 8 cycles, twice integer",
    [CF_lat_sfu] = "ours: 16 cycles, a multi-cycle functional unit",
    [CF_lat_tensor] = "ours: 16 cycles (Vortex has no matrix units)",
    [CF_lat_branch] = "ours: 4 cycles, as an ALU op",
    [CF_lat_other] = "ours: 4 cycles, as an ALU op",
    [CF_shmem_lat] = "ours: 8 cycles (an on-core local memory)",
    [CF_const_lat] = "ours: 8 cycles, as the local memory",
    [CF_translate] = "ours: off, the paper's GPU addresses are HPAs with"
                     " no TLBs (notes §1.1)",
    UNUSED_TLB("translate off"),
    [CF_pcie_lat] = "unused (translate off); Table 10(a): PCIe 5.0 x8,"
                    " latency not printed; ours: Barre's 150 cycles",
    [CF_l1_size] = "ours: 16 KB (the paper sizes no cache)",
    [CF_l1_ways] = "ours: 4-way (the paper gives no cache geometry)",
    [CF_l1_lat] = "ours: 4 cycles, a small on-core cache",
    [CF_l1_mshrs] = "ours: 16, as Barre's Table II (paper silent)",
    [CF_l2_size] = "ours: 1 MB LLC (§System configuration names an LLC,"
                   " not its size)",
    [CF_l2_ways] = "ours: 16-way (the paper gives no cache geometry)",
    [CF_l2_lat] = "ours: 20 cycles, a shared LLC a few times L1's",
    [CF_l2_bw] = "ours: 64 B a cycle, above the DRAM rate",
    [CF_link_lat] = "unused (one chiplet); Barre's Table II: 32 cycles",
    [CF_link_bw] = "unused (one chiplet); Barre's Table II: 768 GB/s",
    [CF_dram_lat] = "Table 10(a): DDR5-5600 via DRAMSim3, latency not"
                    " printed; ours: 46 ns (notes §5.1.10 [A], as"
                    " cxl_srds.c)",
    [CF_dram_bw] = "ours: one DDR5-5600 channel, 5600 MT/s x 8 B = 44.8"
                   " GB/s (Table 10(a) names the part, not channels)",
    [CF_vram_mib] = VRAM_SOURCE("memory the paper does not size"),
    [CF_placement] = "ours: chunk (one chiplet: every policy is the same)",
    [CF_place_g] = "ours: 1 (one chiplet: placement cannot matter)",
    [CF_kernel_mib] = KERNEL_MIB_SOURCE,
    FBARRE_SOURCES,
    [CF_finepack] = FINEPACK_SOURCE,
    [CF_cpelide] = CPELIDE_SOURCE,
    ADSM_SOURCES("1000", "8000", "500", "2000"),
    PCIE_COPIES_OFF,
    CXL_SOURCES,
    XL_SHARE_SOURCES,
    MIGRATE_SOURCES,
    MGVM_SOURCES,
    CPE_REMOTE_SOURCES,
    DRAM_WQ_SOURCES,
    UVM_SOURCES("Table 10(a): PCIe 5.0 x8, 32 GT/s x 8 x 128/130 / 8"
                " = 31.5 GB/s = 31507 B/kcycle at 1000 MHz"),
    CPELIDE_L3_SOURCES,
    BARRE_SCHED_SOURCES,
};

/*
 * ADSM (notes/adsm.md §3.2): GMAC on an NVIDIA "G280" (GTX 280 class, 1
 * GB) on PCIe 2.0 x16. The paper gives no microarchitecture beyond the
 * 512-bit memory bus (§2): the GT200 numbers are the part's public
 * specifications, ours to choose, marked so. GT200 caches no global
 * data; the model needs an L1 and an L2, so those are ours too.
 */
static const char *const adsm_sources[CF_NR] = {
    [CF_chiplets] = "§5: one G280 GPU: 1 chiplet",
    [CF_sms] = "ours: GTX 280's 30 SMs (240 cores; not in the paper)",
    [CF_warps_per_sm] = "ours: GT200's 1024 threads = 32 warps an SM (the"
                        " part's)",
    [CF_blocks_per_sm] = "ours: GT200's 8 blocks an SM (the part's)",
    [CF_regs_per_sm] = "ours: GT200's 16384 registers an SM (the part's)",
    [CF_shmem_per_sm] = "ours: GT200's 16 KB shared memory an SM (the"
                        " part's)",
    [CF_tb_sched] = "ours: rr (one chiplet: either is the same)",
    [CF_warp_sched] = "ours: LRR (GT200-era round-robin issue)",
    [CF_clock_mhz] = "ours: 1296 MHz, GTX 280's shader clock",
    [CF_lat_int] = "ours: 24 cycles (GT200-class dependent issue)",
    [CF_lat_fp] = "ours: 24 cycles (GT200-class dependent issue)",
    [CF_lat_dp] = "ours: 48 cycles (one DP unit an SM)",
    [CF_lat_sfu] = "ours: 32 cycles (two SFUs an SM, slower than the"
                   " ALUs)",
    [CF_lat_tensor] = "ours: 24 cycles (GT200 has no matrix units)",
    [CF_lat_branch] = "ours: 24 cycles, as an ALU op",
    [CF_lat_other] = "ours: 24 cycles, as an ALU op",
    [CF_shmem_lat] = "ours: 38 cycles (GT200-class shared memory)",
    [CF_const_lat] = "ours: 40 cycles (GT200-class constant cache hit)",
    [CF_translate] = "ours: off, ADSM's evaluation models no GPU"
                     " translation",
    UNUSED_TLB("translate off"),
    [CF_pcie_lat] = "unused (translate off); §5: PCIe 2.0 x16, latency not"
                    " given; ours: Barre's 150 cycles",
    [CF_l1_size] = "ours: 16 KB (GT200 caches no global data; the model"
                   " needs an L1)",
    [CF_l1_ways] = "ours: 4-way (no GT200 data L1 to copy)",
    [CF_l1_lat] = "ours: 30 cycles (no GT200 data L1 to copy)",
    [CF_l1_mshrs] = "ours: 16, as Barre's Table II (paper silent)",
    [CF_l2_size] = "ours: 256 KB (GT200's L2 holds textures only; the"
                   " model needs an L2)",
    [CF_l2_ways] = "ours: 16-way (no GT200 data L2 to copy)",
    [CF_l2_lat] = "ours: 200 cycles, about half the DRAM latency",
    [CF_l2_bw] = "ours: 256 B a cycle, above the DRAM rate",
    [CF_link_lat] = "unused (one chiplet); Barre's Table II: 32 cycles",
    [CF_link_bw] = "unused (one chiplet); Barre's Table II: 768 GB/s",
    [CF_dram_lat] = "ours: 440 cycles (GT200-class global memory)",
    [CF_dram_bw] = "§2: 512-bit bus; ours: GDDR3 at 2214 MT/s x 64 B ="
                   " 141.7 GB/s = 109333 B/kcycle at 1296 MHz",
    [CF_vram_mib] = VRAM_SOURCE("1 GB (§5)"),
    [CF_placement] = "ours: chunk (one chiplet: every policy is the same)",
    [CF_place_g] = "ours: 1 (one chiplet: placement cannot matter)",
    [CF_kernel_mib] = KERNEL_MIB_SOURCE,
    FBARRE_SOURCES,
    [CF_finepack] = FINEPACK_SOURCE,
    [CF_cpelide] = CPELIDE_SOURCE,
    ADSM_SOURCES("1296", "6173", "648", "2592"),
    [CF_pcie_copies] = "ours: on, COPY records are cudaMemcpy on PCIe (the"
                       " paper's CUDA bar, --adsm off)",
    CXL_SOURCES,
    XL_SHARE_SOURCES,
    MIGRATE_SOURCES,
    MGVM_SOURCES,
    CPE_REMOTE_SOURCES,
    DRAM_WQ_SOURCES,
    UVM_SOURCES(UVM_LINK_AS_PCIE("6173")),
    CPELIDE_L3_SOURCES,
    BARRE_SCHED_SOURCES,
};

const struct gpu_preset gpu_presets[] = {
    {
        .name = "barre",
        .title = "Barre Chord (Table II): 4 x 64 CUs, MGPUSim GCN3",
        .note = "The paper gives no clock or core latencies: 1 GHz and"
                " MGPUSim-like latencies are ours.",
        .sources = barre_sources,
        .cfg = {
            .name = "barre",
            .chiplets = 4, .sms = 64, .warps_per_sm = 40,
            .blocks_per_sm = 32, .regs_per_sm = 65536,
            .shmem_per_sm = 65536, .tb_sched = GPU_TB_CHUNK,
            .warp_sched = GPU_WS_GTO, .clock_mhz = 1000,
            .lat_int = 4, .lat_fp = 4, .lat_dp = 8, .lat_sfu = 16,
            .lat_tensor = 16, .lat_branch = 4, .lat_other = 4,
            .shmem_lat = 32, .const_lat = 32,
            .translate = 1,
            .l1_tlb_entries = 64, .l1_tlb_ways = 64, .l1_tlb_lat = 1,
            .l2_tlb_entries = 512, .l2_tlb_ways = 16, .l2_tlb_lat = 10,
            .l2_tlb_mshrs = 16, .pcie_lat = 150, .walkers = 16,
            .walk_lat = 500,
            .l1_size = 16384, .l1_ways = 4, .l1_lat = 28, .l1_mshrs = 16,
            .l2_size = 2u << 20, .l2_ways = 16, .l2_lat = 100,
            .l2_bw = 1000000,
            .link_lat = 32, .link_bw = 768000,
            .dram_lat = 100, .dram_bw = 1000000,
            .vram_mib = 64,
            .placement = GPU_PLACE_KWC, .place_g = 1,
            .kernel_mib = 512,
            FBARRE_VALUES,
            ADSM_VALUES(8000, 500, 2000),
            CXL_VALUES,
            XL_SHARE_VALUES,
            MIGRATE_VALUES,
            MGVM_VALUES,
            CPE_REMOTE_VALUES,
            DRAM_WQ_VALUES,
            UVM_VALUES(8000),
            CPELIDE_L3_VALUES,
        },
    },
    {
        .name = "finepack",
        .title = "FinePack (Table III, §V): 4 GV100 GPUs on PCIe 4.0, NVAS",
        .note = "Table III gives SMs, threads, L2 and memory size only: the"
                " clock, latencies and rates are V100 facts or ours.",
        .sources = finepack_sources,
        .cfg = {
            .name = "finepack",
            .chiplets = 4, .sms = 80, .warps_per_sm = 64,
            .blocks_per_sm = 32, .regs_per_sm = 65536,
            .shmem_per_sm = 98304, .tb_sched = GPU_TB_CHUNK,
            .warp_sched = GPU_WS_GTO, .clock_mhz = 1530,
            .lat_int = 4, .lat_fp = 4, .lat_dp = 8, .lat_sfu = 16,
            .lat_tensor = 16, .lat_branch = 4, .lat_other = 4,
            .shmem_lat = 20, .const_lat = 20,
            .translate = 0,
            UNUSED_TLB_VALUES,
            .l1_size = 32768, .l1_ways = 4, .l1_lat = 28, .l1_mshrs = 512,
            .l2_size = 6u << 20, .l2_ways = 24, .l2_lat = 190,
            .l2_bw = 2048000,
            .link_lat = 1000, .link_bw = 20915,
            .dram_lat = 450, .dram_bw = 588235,
            .vram_mib = 64,
            .placement = GPU_PLACE_KWC, .place_g = 1,
            .kernel_mib = 512,
            FBARRE_VALUES,
            ADSM_VALUES(5229, 765, 3060),
            CXL_VALUES,
            XL_SHARE_VALUES,
            MIGRATE_VALUES,
            MGVM_VALUES,
            CPE_REMOTE_VALUES,
            DRAM_WQ_VALUES,
            UVM_VALUES(5229),
            CPELIDE_L3_VALUES,
        },
    },
    {
        .name = "cpelide",
        .title = "CPElide (Table I): 4 x 60 CUs, Radeon VII-like, gem5",
        .note = "Table I's lines are 64 B; the model's are 128 B. The L3"
                " is modeled only with a cpelide policy on (l3_*); off,"
                " its latency stands for DRAM's.",
        .sources = cpelide_sources,
        .cfg = {
            .name = "cpelide",
            .chiplets = 4, .sms = 60, .warps_per_sm = 40,
            .blocks_per_sm = 32, .regs_per_sm = 65536,
            .shmem_per_sm = 65536, .tb_sched = GPU_TB_CHUNK,
            .warp_sched = GPU_WS_GTO, .clock_mhz = 1801,
            .lat_int = 4, .lat_fp = 4, .lat_dp = 8, .lat_sfu = 16,
            .lat_tensor = 16, .lat_branch = 4, .lat_other = 4,
            .shmem_lat = 65, .const_lat = 32,
            .translate = 0,
            UNUSED_TLB_VALUES,
            .l1_size = 16384, .l1_ways = 16, .l1_lat = 140, .l1_mshrs = 2560,
            .l2_size = 8u << 20, .l2_ways = 32, .l2_lat = 269,
            .l2_bw = 2048000,
            .link_lat = 121, .link_bw = 426430,
            .dram_lat = 330, .dram_bw = 142143,
            .vram_mib = 64,
            .placement = GPU_PLACE_FT, .place_g = 1,
            .kernel_mib = 512,
            FBARRE_VALUES,
            ADSM_VALUES(4442, 901, 3602),
            CXL_VALUES,
            XL_SHARE_VALUES,
            MIGRATE_VALUES,
            MGVM_VALUES,
            CPE_REMOTE_VALUES,
            .dram_wq = 64,
            UVM_VALUES(4442),
            CPELIDE_L3_VALUES,
        },
    },
    {
        .name = "cxl",
        .title = "CXL-GPU (Table 10(a)): Vortex, 8 cores, DDR5-5600",
        .note = "The paper's media latencies and bandwidths (Table 10(a))"
                " are missing from its text: the endpoints are timed by the"
                " CXL model (cxl_srds.c) with notes §5.1.10's assumed"
                " values, and the GPU's DDR5 here is ours.",
        .sources = cxl_sources,
        .cfg = {
            .name = "cxl",
            .chiplets = 1, .sms = 8, .warps_per_sm = 8,
            .blocks_per_sm = 8, .regs_per_sm = 16384,
            .shmem_per_sm = 16384, .tb_sched = GPU_TB_RR,
            .warp_sched = GPU_WS_LRR, .clock_mhz = 1000,
            .lat_int = 4, .lat_fp = 4, .lat_dp = 8, .lat_sfu = 16,
            .lat_tensor = 16, .lat_branch = 4, .lat_other = 4,
            .shmem_lat = 8, .const_lat = 8,
            .translate = 0,
            UNUSED_TLB_VALUES,
            .l1_size = 16384, .l1_ways = 4, .l1_lat = 4, .l1_mshrs = 16,
            .l2_size = 1u << 20, .l2_ways = 16, .l2_lat = 20,
            .l2_bw = 64000,
            .link_lat = 32, .link_bw = 768000,
            .dram_lat = 46, .dram_bw = 44800,
            .vram_mib = 64,
            .placement = GPU_PLACE_CHUNK, .place_g = 1,
            .kernel_mib = 512,
            FBARRE_VALUES,
            ADSM_VALUES(8000, 500, 2000),
            CXL_VALUES,
            XL_SHARE_VALUES,
            MIGRATE_VALUES,
            MGVM_VALUES,
            CPE_REMOTE_VALUES,
            DRAM_WQ_VALUES,
            UVM_VALUES(31507),
            CPELIDE_L3_VALUES,
        },
    },
    {
        .name = "adsm",
        .title = "ADSM/GMAC (§5): one GTX 280-class GPU on PCIe 2.0 x16",
        .note = "The paper names the GPU and its bus, nothing else: the"
                " GT200 figures are the part's public specifications and"
                " the caches (GT200 has none for data) are ours.",
        .sources = adsm_sources,
        .cfg = {
            .name = "adsm",
            .chiplets = 1, .sms = 30, .warps_per_sm = 32,
            .blocks_per_sm = 8, .regs_per_sm = 16384,
            .shmem_per_sm = 16384, .tb_sched = GPU_TB_RR,
            .warp_sched = GPU_WS_LRR, .clock_mhz = 1296,
            .lat_int = 24, .lat_fp = 24, .lat_dp = 48, .lat_sfu = 32,
            .lat_tensor = 24, .lat_branch = 24, .lat_other = 24,
            .shmem_lat = 38, .const_lat = 40,
            .translate = 0,
            UNUSED_TLB_VALUES,
            .l1_size = 16384, .l1_ways = 4, .l1_lat = 30, .l1_mshrs = 16,
            .l2_size = 256u << 10, .l2_ways = 16, .l2_lat = 200,
            .l2_bw = 256000,
            .link_lat = 32, .link_bw = 768000,
            .dram_lat = 440, .dram_bw = 109333,
            .vram_mib = 64,
            .placement = GPU_PLACE_CHUNK, .place_g = 1,
            .kernel_mib = 512,
            FBARRE_VALUES,
            ADSM_VALUES(6173, 648, 2592),
            .pcie_copies = 1,
            CXL_VALUES,
            XL_SHARE_VALUES,
            MIGRATE_VALUES,
            MGVM_VALUES,
            CPE_REMOTE_VALUES,
            DRAM_WQ_VALUES,
            UVM_VALUES(6173),
            CPELIDE_L3_VALUES,
        },
    },
};

const u32 gpu_npresets = sizeof(gpu_presets) / sizeof(gpu_presets[0]);

const struct gpu_preset *gpu_preset_find(const char *name)
{
    u32 i;

    for (i = 0; i < gpu_npresets; i++) {
        if (!strcmp(gpu_presets[i].name, name)) {
            return &gpu_presets[i];
        }
    }
    return NULL;
}

const char *gpu_preset_source(const struct gpu_preset *p,
                              const struct gpu_config_field *f)
{
    return p->sources[f - gpu_config_fields];
}
