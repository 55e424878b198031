// SPDX-License-Identifier: GPL-2.0
/*
 * MGvm in the GPU timing core (mgvm=on; docs/gpu.md, MGvm in the core):
 * a GMMU a chiplet in the IOMMU's place, through the tool's host backend
 * (tools/mcmgpu/lib/gpu_run_host.c), which places the page-table pages
 * and times the GMMUs' walks.
 *
 * The hand-made case: one object of 1024 pages at VPN 0x100000 (the
 * allocator's first), kwc on 4 chiplets (256 pages each: pages 0-255 on
 * chiplet 0, 256-511 on 1, 512-767 on 2, 768-1023 on 3). Its page table
 * is a root, a level-1 and a level-2 table and two leaf tables: leaf A
 * maps pages 0-511 (256 on chiplet 0, 256 on 1: a tie, chiplet 0), leaf
 * B pages 512-1023 (chiplets 2 and 3 tie: chiplet 2); the three upper
 * tables map 256 pages of each chiplet (chiplet 0). Block b (tb_sched
 * chunk: on chiplet b) reads b + 1 pages of its own chunk, 256 b + 10 k
 * for k = 0..b, one after the other, so GMMU b walks b + 1 times:
 *   GMMU 0, leaf A: root, L1, L2, A all on chiplet 0: 0 remote a walk
 *   GMMU 1, leaf A: all four on chiplet 0:            4 remote a walk
 *   GMMU 2, leaf B: root, L1, L2 remote, B local:      3 remote a walk
 *   GMMU 3, leaf B: all four remote:                   4 remote a walk
 * so 10 walks, 40 PTE reads, 0 + 8 + 9 + 16 = 33 remote, 9 walks with
 * one; with dram_lat 100 and link_lat 32 (the barre preset) a walk takes
 * 400, 656, 592 and 656 cycles in GMMU 0..3 (6,112 in all), and each ATS
 * round trip adds 2 x mgvm_lat. (The uneven counts matter: with every
 * GMMU walking once, breaking the ties towards the highest chiplet gives
 * the same total.)
 * Every answer is the true walk's: each block's page is on its own
 * chiplet, so every data access is local.
 *
 * PEC in a GMMU: with one walker a GMMU, a warp of chiplet 1 reading
 * pages 256 + 5 and 512 + 5 (one group: the same local frame on chiplets
 * 1 and 2) at once sends two requests to GMMU 1; under Barre the second
 * waits while the first walks and PEC completes it (1 walk, 4 remote
 * reads); with Barre off both walk (8 remote reads). The other three
 * chiplets' blocks walk once each (0 + 3 + 4 remote reads).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "apps.h"
#include "gpu_run.h"
#include "../lib/host_run.h"
#include "program.h"
#include "simt.h"
#include "../lib/app_prog.h"

#define BASE            0x7f0000000000ULL
#define PAGE            4096ULL
#define PAGES           1024    /* 256 a chiplet under kwc */
#define CHUNK           256

/* One load: lanes 0-15 from a, lanes 16-31 from b (4 B each). */
static void load2(FILE *f, unsigned long long a, unsigned long long b)
{
	unsigned int l;

	fprintf(f, "0x100 0xffffffff mem.global.load.4 LDG.E d=8 s=8 @");
	for (l = 0; l < 32; l++)
		fprintf(f, " 0x%llx", (l < 16 ? a : b) + 4ULL * (l % 16));
	fprintf(f, "\n");
}

/* Block b reads pages 256 b + 10 k, k = 0..b: b + 1 walks in GMMU b. */
static void write_walks(FILE *f)
{
	unsigned int b, k;

	fprintf(f, "mcmgpu-program 1\nobject 0x%llx %llu data\n", BASE,
		PAGES * PAGE);
	host_kernel_head(f, 1, 4, "walks");
	for (b = 0; b < 4; b++) {
		fprintf(f, "block %u,0,0\nwarp 0 insts=%u\n", b, b + 1);
		for (k = 0; k <= b; k++) {
			unsigned long long p = BASE + (b * CHUNK + 10ULL * k) * PAGE;

			load2(f, p, p + 64);
		}
		fprintf(f, "end-block\n");
	}
	fprintf(f, "end-kernel\nend\n");
}

/*
 * Block 1 (chiplet 1) reads pages 261 and 517 in one instruction; blocks
 * 0, 2 and 3 read pages 100, 612 and 868 (one walk each, in their own
 * GMMUs: 0, 3 and 4 remote reads).
 */
static void write_pair(FILE *f)
{
	unsigned int b;

	fprintf(f, "mcmgpu-program 1\nobject 0x%llx %llu data\n", BASE,
		PAGES * PAGE);
	host_kernel_head(f, 1, 4, "pair");
	for (b = 0; b < 4; b++) {
		unsigned long long p = BASE + (b * CHUNK + 100ULL) * PAGE;

		fprintf(f, "block %u,0,0\nwarp 0 insts=1\n", b);
		if (b == 1)
			load2(f, BASE + (CHUNK + 5) * PAGE,
			      BASE + (2 * CHUNK + 5) * PAGE);
		else
			load2(f, p, p + 64);
		fprintf(f, "end-block\n");
	}
	fprintf(f, "end-kernel\nend\n");
}

/* The "barre" preset (4 chiplets, kwc), chunk scheduling, shadow walks. */
static void opts(struct gpu_run_opts *o, int mgvm, int barre)
{
	host_barre_opts(o, barre);
	o->cfg.tb_sched = GPU_TB_CHUNK;
	o->cfg.mgvm = mgvm;
	o->shadow = true;
}

static int check(const struct gpu_config *c)
{
	const char *field, *why;

	return gpu_config_check(c, GPU_MAX_CHIPLETS, &field, &why);
}

static void identities(struct __test_metadata *_metadata,
		       const struct gpu_run_result *r)
{
	const struct gpu_core_stats *c = &r->core;

	EXPECT_EQ(c->ats_replies, c->ats_requests);
	EXPECT_EQ(r->barre.ats_requests, c->ats_requests);
	EXPECT_EQ(r->barre.walks + r->barre.coalesced, r->barre.ats_requests);
	EXPECT_EQ(0, r->barre.shadow_mismatches);
	EXPECT_EQ(0, c->fbarre.inpackage_mismatches);
	EXPECT_EQ(0, c->translation_faults);
	/* Every GMMU walk reads one entry a level (all valid). */
	if (r->mgvm.pt_pages)
		EXPECT_EQ(4 * r->barre.walks, r->mgvm.pte_reads);
	EXPECT_LE(r->mgvm.remote_pte_reads, r->mgvm.pte_reads);
	EXPECT_LE(r->mgvm.remote_walks, r->barre.walks);
}

/* The hand-made case of the comment at the top, number for number. */
TEST(walks_count_remote_reads_by_the_placement_rule)
{
	struct gpu_run_opts o;
	struct gpu_run_result r;
	char path[64];

	ASSERT_EQ(0, host_gen(write_walks, path, sizeof(path)));
	opts(&o, 1, GPU_RUN_BARRE_OFF);
	ASSERT_EQ(100, o.cfg.dram_lat);
	ASSERT_EQ(32, o.cfg.link_lat);
	ASSERT_EQ(10, o.cfg.mgvm_lat);
	ASSERT_EQ(0, check(&o.cfg));
	ASSERT_EQ(0, host_run(path, &o, &r));
	unlink(path);
	TH_LOG("%llu cycles; %llu walks, %llu PTE reads, %llu remote, "
	       "%llu walk cycles, ATS round trips %llu",
	       (unsigned long long)r.core.cycles,
	       (unsigned long long)r.barre.walks,
	       (unsigned long long)r.mgvm.pte_reads,
	       (unsigned long long)r.mgvm.remote_pte_reads,
	       (unsigned long long)r.mgvm.walk_cycles,
	       (unsigned long long)r.core.ats_round_trip);
	identities(_metadata, &r);
	EXPECT_EQ(5, r.mgvm.pt_pages);
	EXPECT_EQ(10, r.core.ats_requests);
	EXPECT_EQ(10, r.barre.walks);
	EXPECT_EQ(40, r.mgvm.pte_reads);
	EXPECT_EQ(0 + 2 * 4 + 3 * 3 + 4 * 4, r.mgvm.remote_pte_reads);
	EXPECT_EQ(9, r.mgvm.remote_walks);
	EXPECT_EQ(400 + 2 * 656 + 3 * 592 + 4 * 656, r.mgvm.walk_cycles);
	/* No queueing: the GMMUs' service time is the walks'. */
	EXPECT_EQ(r.mgvm.walk_cycles, r.barre.iommu_cycles);
	EXPECT_EQ(r.mgvm.walk_cycles + 10 * 2 * o.cfg.mgvm_lat,
		  r.core.ats_round_trip);
	/* The true frames: every block's page is on its own chiplet. */
	EXPECT_EQ(0, r.core.l2_remote);
	EXPECT_LT(0, r.core.l2_local);
	gpu_run_result_free(&r);
}

/* Off: the IOMMU over PCIe, a flat walk, no mgvm counter. */
TEST(off_is_the_iommu)
{
	struct gpu_run_opts o;
	struct gpu_run_result r;
	char path[64];

	ASSERT_EQ(0, host_gen(write_walks, path, sizeof(path)));
	opts(&o, 0, GPU_RUN_BARRE_OFF);
	ASSERT_EQ(0, host_run(path, &o, &r));
	unlink(path);
	identities(_metadata, &r);
	EXPECT_EQ(0, r.mgvm.pt_pages);
	EXPECT_EQ(0, r.mgvm.pte_reads);
	EXPECT_EQ(10, r.barre.walks);
	EXPECT_EQ(10 * (u64)o.cfg.walk_lat, r.barre.iommu_cycles);
	EXPECT_EQ(10 * ((u64)o.cfg.walk_lat + 2 * o.cfg.pcie_lat),
		  r.core.ats_round_trip);
	gpu_run_result_free(&r);
}

/* PEC in each GMMU: a pending request of the walked page's group. */
TEST(pec_in_a_gmmu_completes_a_pending_group_page)
{
	struct gpu_run_opts o;
	struct gpu_run_result off, on;
	char path[64];

	ASSERT_EQ(0, host_gen(write_pair, path, sizeof(path)));
	opts(&o, 1, GPU_RUN_BARRE_OFF);
	o.cfg.walkers = 1;
	ASSERT_EQ(0, host_run(path, &o, &off));
	opts(&o, 1, GPU_RUN_BARRE_ON);
	o.cfg.walkers = 1;
	ASSERT_EQ(0, host_run(path, &o, &on));
	unlink(path);
	identities(_metadata, &off);
	identities(_metadata, &on);
	/* GMMU 1's walks read only tables on chiplet 0: 4 remote each. */
	EXPECT_EQ(5, off.core.ats_requests);
	EXPECT_EQ(5, off.barre.walks);
	EXPECT_EQ(8 + 7, off.mgvm.remote_pte_reads);
	EXPECT_EQ(4, off.mgvm.remote_walks);
	EXPECT_EQ(5, on.core.ats_requests);
	EXPECT_EQ(4, on.barre.walks);
	EXPECT_EQ(1, on.barre.coalesced);
	EXPECT_EQ(4 + 7, on.mgvm.remote_pte_reads);
	EXPECT_EQ(3, on.mgvm.remote_walks);
	/* The same data traffic: page 261 is chiplet 1's, 517 chiplet 2's. */
	EXPECT_EQ(off.core.l2_local, on.core.l2_local);
	EXPECT_EQ(off.core.l2_remote, on.core.l2_remote);
	EXPECT_LT(on.core.cycles, off.core.cycles);
	gpu_run_result_free(&off);
	gpu_run_result_free(&on);
}

/* An application: every answer (walked, coalesced, in the package) true. */
static void app(struct __test_metadata *_metadata, const char *name,
		int barre, u32 merge, struct gpu_run_result *r)
{
	struct gpu_run_opts o;
	char path[64];

	ASSERT_EQ(0, app_prog_file("gpu_mgvm_test", name, 0, path, sizeof(path)));
	opts(&o, 1, barre);
	o.cfg.fbarre_merge = merge;
	ASSERT_EQ(0, host_run(path, &o, r));
	unlink(path);
	identities(_metadata, r);
}

/*
 * gups, nw: Barre Chord (F-Barre-2Merge) on MGvm walks less and reads
 * fewer remote PTEs than MGvm, and answers only true translations.
 */
TEST(barre_chord_on_mgvm_removes_remote_walk_reads)
{
	static const char *const apps[] = { "gups", "nw" };
	struct gpu_run_result mg, bc;
	unsigned int i;

	for (i = 0; i < 2; i++) {
		app(_metadata, apps[i], GPU_RUN_BARRE_OFF, 1, &mg);
		app(_metadata, apps[i], GPU_RUN_BARRE_FBARRE, 2, &bc);
		TH_LOG("%s: MGvm %llu cycles, %llu walks, %llu remote reads; "
		       "Barre Chord %llu cycles, %llu walks, %llu remote reads, "
		       "%llu answered in the package", apps[i],
		       (unsigned long long)mg.core.cycles,
		       (unsigned long long)mg.barre.walks,
		       (unsigned long long)mg.mgvm.remote_pte_reads,
		       (unsigned long long)bc.core.cycles,
		       (unsigned long long)bc.barre.walks,
		       (unsigned long long)bc.mgvm.remote_pte_reads,
		       (unsigned long long)(bc.core.fbarre.local_hits +
					    bc.core.fbarre.remote_hits));
		EXPECT_LT(bc.barre.walks, mg.barre.walks);
		EXPECT_LT(bc.mgvm.remote_pte_reads, mg.mgvm.remote_pte_reads);
		EXPECT_LT(0, bc.core.fbarre.local_hits + bc.core.fbarre.remote_hits);
		gpu_run_result_free(&mg);
		gpu_run_result_free(&bc);
	}
}

/* The result does not depend on how the epochs are cut. */
TEST(epoch_cuts_change_nothing)
{
	struct gpu_run_opts o;
	struct gpu_run_result a, b;
	char path[64];

	ASSERT_EQ(0, app_prog_file("gpu_mgvm_test", "gups", 0, path, sizeof(path)));
	opts(&o, 1, GPU_RUN_BARRE_FBARRE);
	o.cfg.fbarre_merge = 2;
	ASSERT_EQ(0, host_run(path, &o, &a));
	o.cut = 7;
	ASSERT_EQ(0, host_run(path, &o, &b));
	unlink(path);
	EXPECT_EQ(0, memcmp(&a.core, &b.core, sizeof(a.core)));
	EXPECT_EQ(0, memcmp(&a.barre, &b.barre, sizeof(a.barre)));
	EXPECT_EQ(0, memcmp(&a.mgvm, &b.mgvm, sizeof(a.mgvm)));
	gpu_run_result_free(&a);
	gpu_run_result_free(&b);
}

/* The models that keep pages or translations of their own refuse it. */
TEST(config_refuses_what_it_cannot_combine)
{
	struct gpu_config c = gpu_preset_find("barre")->cfg;
	const char *why;

	EXPECT_EQ(0, c.mgvm);		/* off in every preset */
	ASSERT_EQ(0, gpu_config_set(&c, "mgvm=on", &why));
	EXPECT_EQ(0, check(&c));
	c.translate = 0;
	EXPECT_NE(0, check(&c));
	c.translate = 1;
	ASSERT_EQ(0, gpu_config_set(&c, "migrate=acud", &why));
	EXPECT_NE(0, check(&c));
	ASSERT_EQ(0, gpu_config_set(&c, "migrate=off", &why));
	ASSERT_EQ(0, gpu_config_set(&c, "xl_share=least", &why));
	EXPECT_NE(0, check(&c));
	EXPECT_EQ(-EINVAL, gpu_config_set(&c, "mgvm_lat=0", &why));
}

TEST_HARNESS_MAIN
