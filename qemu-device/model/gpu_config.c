/*
 * The GPU timing core's parameters, their checks and the papers' presets
 * (gpu_config.h). Each preset value carries its source; a value no paper
 * gives is marked as our choice and says why.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "gpu_config.h"

#define F(field, unit, lo, hi) \
    { #field, (u32)offsetof(struct gpu_config, field), unit, lo, hi }

const struct gpu_config_field gpu_config_fields[] = {
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
    F(placement, "chunk=0 rr=1 kwc=2", 0, GPU_PLACE_NR - 1),
    F(place_g, "pages", 1, 1u << 20),
    F(kernel_mib, "MiB", 1, 1u << 20),
};
#undef F

const u32 gpu_config_nfields =
    sizeof(gpu_config_fields) / sizeof(gpu_config_fields[0]);

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
    if (c->warps_per_sm * PROG_WARP_SIZE > c->regs_per_sm) {
        BAD("regs_per_sm", "fewer than one register a thread of every warp");
    }
#undef BAD
    return 0;
}

/*
 * Barre Chord, Table II (notes/barre.md §1): an AMD GCN3-like MCM-GPU in
 * MGPUSim at 1 GHz. Bandwidths in B/kcycle at 1 GHz = GB/s.
 */
static const char *const barre_sources[] = {
    [0] = "Table II: 4 GPU chiplets",
    [1] = "Table II: 4 SAs x 16 CUs a chiplet",
    [2] = "GCN3: 4 SIMDs x 10 wavefronts a CU; ours: 40 warp slots",
    [3] = "ours: CUDA-like 32 blocks an SM (MGPUSim limits by wavefronts)",
    [4] = "GCN3: 4 x 64 KiB vector registers a CU = 65536 x 32-bit",
    [5] = "GCN3: 64 KiB LDS a CU",
    [6] = "Table II: LASP co-locates CTAs with their pages: chunk",
    [7] = "ours: GTO, the common GPGPU-Sim/Accel-Sim default",
    [8] = "MGPUSim's R9 Nano model: 1 GHz",
    [9] = "ours: 4 cycles (a GCN3 SIMD takes 4 cycles a wavefront instruction)",
    [10] = "ours: 4 cycles, as integer",
    [11] = "ours: 8 cycles (GCN3 DP at half rate)",
    [12] = "ours: 16 cycles (GCN3 transcendental at quarter rate)",
    [13] = "ours: 16 cycles (no matrix units in GCN3)",
    [14] = "ours: 4 cycles",
    [15] = "ours: 4 cycles",
    [16] = "ours: 32 cycles (MGPUSim's LDS)",
    [17] = "ours: 32 cycles (MGPUSim's scalar cache hit)",
    [18] = "Barre Chord models translation: on",
    [19] = "Table II: L1 TLB 64 entries, private per CU",
    [20] = "Table II: fully associative",
    [21] = "Table II: 1-cycle lookup",
    [22] = "Table II: L2 TLB 512 entries, one per chiplet",
    [23] = "Table II: 16-way",
    [24] = "Table II: 10-cycle lookup",
    [25] = "Table II: 16 MSHRs",
    [26] = "Table II: PCIe Gen4 x16, 150 cycles",
    [27] = "Table II: 16 shared PTWs",
    [28] = "Table II: 500-cycle page-table walks",
    [29] = "§III-A: L1 vector cache 16 KB",
    [30] = "§III-A: 4-way",
    [31] = "ours: 28 cycles (MGPUSim's L1 vector cache pipeline)",
    [32] = "§III-A: 16 MSHRs",
    [33] = "§III-A: L2 2 MB (a chiplet)",
    [34] = "§III-A: 16-way",
    [35] = "ours: 100 cycles (MGPUSim's L2 hit, R9 Nano)",
    [36] = "ours: 1 TB/s, the chiplet's DRAM rate (never the limit)",
    [37] = "Table II: mesh 32-cycle latency",
    [38] = "Table II: 768 GB/s mesh",
    [39] = "Table II: 100 ns DRAM latency at 1 GHz",
    [40] = "Table II: 1 TBps DRAM a chiplet",
    [41] = "the device's 64 MiB a chiplet (MCMGPU_DEFAULT_VRAM_PER_CHIPLET)",
    [42] = "Table II: LASP = chunk placement",
    [43] = "ours: 1 page a chiplet a round (notes/barre.md §1.4: interlv_gran not given)",
    [44] = "ours: 512 MiB of decoded instructions a kernel",
};

const struct gpu_preset gpu_presets[] = {
    {
        .name = "barre",
        .title = "Barre Chord (Table II): 4 x 64 CUs, MGPUSim GCN3",
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
            .placement = GPU_PLACE_CHUNK, .place_g = 1,
            .kernel_mib = 512,
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
