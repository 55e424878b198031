// SPDX-License-Identifier: GPL-2.0
/*
 * F-Barre's in-package translation in the GPU timing core
 * (qemu-device/model/gpu_fbarre.c), through the tool's host backend
 * (gpu_run_host: the allocator and the Barre walker in-process) on
 * applications generated in memory (tools/mcmgpu/apps): fewer ATS
 * requests than Barre, answers from the chiplet's own TLB and from
 * peers, none wrong against the true walk, the counters' identities,
 * the same result however the epochs are cut, and Barre untouched by
 * F-Barre's fields while fbarre is off.
 */
#include <errno.h>
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

static void preset(struct gpu_run_opts *o, uint32_t barre, uint32_t merge)
{
	host_barre_opts(o, barre);
	o->cfg.fbarre_merge = merge;
}

/*
 * The "barre" preset with Barre mode, merge and an optional override. The
 * small programs here have a handful of groups: with the preset's kwc
 * placement no peer holds a mate at gups' size, so the identities below
 * are checked on chunk placement (page round-robin, place_g 1 unless set),
 * where every chiplet touches every group; preset() keeps kwc.
 */
static void opts(struct gpu_run_opts *o, uint32_t barre, uint32_t merge,
		 const char *set)
{
	preset(o, barre, merge);
	host_set(&o->cfg, "placement=chunk");
	if (set)
		host_set(&o->cfg, "%s", set);
}

/* F-Barre's identities and its wins over Barre on the same objects. */
static void check_fbarre(struct __test_metadata *_metadata, const char *app,
			 uint32_t merge, const char *set, bool local)
{
	struct gpu_run_opts ob, of;
	struct gpu_run_result rb, rf;
	const struct mcmgpu_barre_stats *f = &rf.barre;
	char path[128];

	ASSERT_EQ(0, app_prog_file("gpu_fbarre_test", app, 0,
				   path, sizeof(path)));
	opts(&ob, GPU_RUN_BARRE_ON, merge, set);
	opts(&of, GPU_RUN_BARRE_FBARRE, merge, set);
	ASSERT_EQ(0, host_run(path, &ob, &rb));
	ASSERT_EQ(0, host_run(path, &of, &rf));
	unlink(path);
	TH_LOG("%s merge %u: Barre %llu ATS requests, %llu cycles; F-Barre %llu "
	       "(%llu local, %llu remote), %llu cycles", app, merge,
	       (unsigned long long)rb.core.ats_requests,
	       (unsigned long long)rb.core.cycles,
	       (unsigned long long)f->ats_requests_sent,
	       (unsigned long long)f->local_hits,
	       (unsigned long long)f->remote_hits,
	       (unsigned long long)rf.core.cycles);
	/* The package answers some misses: fewer requests leave. */
	EXPECT_LT(f->ats_requests_sent, rb.core.ats_requests);
	EXPECT_GT(f->remote_hits, 0);
	if (local)
		EXPECT_GT(f->local_hits, 0);
	EXPECT_EQ(0, f->inpackage_mismatches);
	/* Every miss that took an MSHR: answered in the package or sent. */
	EXPECT_EQ(f->l2_misses, rf.core.l2_tlb_misses - rf.core.l2_tlb_mshr_merges);
	EXPECT_EQ(f->l2_misses, f->local_hits + f->remote_hits +
		  f->ats_requests_sent);
	EXPECT_EQ(f->inpackage_lookups, f->l2_misses);
	EXPECT_EQ(f->remote_requests, f->remote_hits + f->remote_false_positives);
	EXPECT_LE(f->lcf_true_positives, f->lcf_hits);
	EXPECT_GT(f->filter_messages, 0);
	/* The core's, the IOMMU's and F-Barre's counts of requests agree. */
	EXPECT_EQ(f->ats_requests_sent, rf.core.ats_requests);
	EXPECT_EQ(f->ats_requests_sent, rf.core.ats_replies);
	EXPECT_EQ(f->ats_requests_sent, f->ats_requests);
	EXPECT_EQ(0, rf.core.translation_faults);
	if (merge > 1)
		EXPECT_GT(f->merged_groups, 0);
	/* Same work either way. */
	EXPECT_EQ(rb.core.warp_insts, rf.core.warp_insts);
	EXPECT_EQ(rb.core.sectors, rf.core.sectors);
	/* Barre alone keeps F-Barre's counters at zero. */
	EXPECT_EQ(0, rb.core.fbarre.l2_misses);
	EXPECT_EQ(0, rb.barre.local_hits);
	gpu_run_result_free(&rb);
	gpu_run_result_free(&rf);
}

TEST(gups_merge1)
{
	check_fbarre(_metadata, "gups", 1, NULL, true);
}

TEST(gups_merge2)
{
	check_fbarre(_metadata, "gups", 2, "place_g=4", true);
}

TEST(spmv_merge1)
{
	check_fbarre(_metadata, "spmv", 1, NULL, false);
}

TEST(spmv_merge2)
{
	check_fbarre(_metadata, "spmv", 2, "place_g=4", false);
}

/*
 * The preset (kwc: g = an object's pages over the chiplets) lets groups
 * merge with no override; page round-robin (g = 1) cannot.
 */
TEST(preset_placement_merges_groups)
{
	struct gpu_run_opts o;
	struct gpu_run_result r;
	char path[128];

	ASSERT_EQ(0, app_prog_file("gpu_fbarre_test", "gups", 0,
				   path, sizeof(path)));
	preset(&o, GPU_RUN_BARRE_FBARRE, 2);
	ASSERT_EQ(GPU_PLACE_KWC, o.cfg.placement);
	ASSERT_EQ(0, host_run(path, &o, &r));
	EXPECT_GT(r.barre.merged_groups, 0);
	EXPECT_EQ(0, r.barre.inpackage_mismatches);
	EXPECT_EQ(0, r.barre.shadow_mismatches);
	gpu_run_result_free(&r);
	opts(&o, GPU_RUN_BARRE_FBARRE, 2, NULL);
	ASSERT_EQ(0, host_run(path, &o, &r));
	unlink(path);
	EXPECT_EQ(0, r.barre.merged_groups);
	gpu_run_result_free(&r);
}

/* The core in steps of 1, 7 and 61 cycles inside the epochs: no change. */
TEST(deterministic_across_epoch_cuts)
{
	struct gpu_run_result r0;
	struct gpu_run_opts o;
	char path[128];

	ASSERT_EQ(0, app_prog_file("gpu_fbarre_test", "gups", 0,
				   path, sizeof(path)));
	opts(&o, GPU_RUN_BARRE_FBARRE, 2, "place_g=4");
	ASSERT_EQ(0, host_run(path, &o, &r0));
	EXPECT_GT(r0.barre.local_hits + r0.barre.remote_hits, 0);
	host_same_across_cuts(_metadata, path, &o, &r0);
	gpu_run_result_free(&r0);
	unlink(path);
}

/* With fbarre off, F-Barre's other fields change nothing. */
TEST(off_ignores_fbarre_fields)
{
	static const uint32_t modes[] = { GPU_RUN_BARRE_OFF, GPU_RUN_BARRE_ON };
	struct gpu_run_result r0, r1;
	struct gpu_run_opts o;
	char path[128];
	uint32_t i;

	ASSERT_EQ(0, app_prog_file("gpu_fbarre_test", "spmv", 0,
				   path, sizeof(path)));
	for (i = 0; i < 2; i++) {
		opts(&o, modes[i], 1, NULL);
		ASSERT_EQ(0, host_run(path, &o, &r0));
		o.cfg.fbarre_filter_rows = 1024;
		o.cfg.fbarre_sched_moves = 9;
		ASSERT_EQ(0, host_run(path, &o, &r1));
		host_same_result(_metadata, &r0, &r1);
		EXPECT_EQ(0, r1.core.fbarre.l2_misses);
		EXPECT_EQ(0, r1.barre.sched_moves);
		gpu_run_result_free(&r0);
		gpu_run_result_free(&r1);
	}
	unlink(path);
}

/*
 * barre_sched: Barre's walkers schedule as F-Barre's (passes counted in
 * sched_moves) with no in-package translation; with a bound of 0 it is
 * Barre's result (Fig 18's first step).
 */
TEST(barre_sched_schedules_without_the_package)
{
	struct gpu_run_result r0, r1, r2;
	struct gpu_run_opts o;
	char path[128];

	ASSERT_EQ(0, app_prog_file("gpu_fbarre_test", "transpose", 0,
				   path, sizeof(path)));
	preset(&o, GPU_RUN_BARRE_ON, 1);
	ASSERT_EQ(0, host_run(path, &o, &r0));
	o.cfg.barre_sched = 1;
	ASSERT_EQ(0, host_run(path, &o, &r1));
	o.cfg.fbarre_sched_moves = 0;
	ASSERT_EQ(0, host_run(path, &o, &r2));
	unlink(path);
	TH_LOG("transpose: Barre %llu cycles, %llu coalesced; with scheduling "
	       "%llu cycles, %llu coalesced, %llu passes",
	       (unsigned long long)r0.core.cycles,
	       (unsigned long long)r0.barre.coalesced,
	       (unsigned long long)r1.core.cycles,
	       (unsigned long long)r1.barre.coalesced,
	       (unsigned long long)r1.barre.sched_moves);
	EXPECT_EQ(0, r0.barre.sched_moves);
	EXPECT_GT(r1.barre.sched_moves, 0);
	EXPECT_GT(r1.barre.coalesced, r0.barre.coalesced);
	EXPECT_EQ(0, r1.core.fbarre.l2_misses);
	EXPECT_EQ(0, r1.barre.shadow_mismatches);
	host_same_result(_metadata, &r0, &r2);
	gpu_run_result_free(&r0);
	gpu_run_result_free(&r1);
	gpu_run_result_free(&r2);
}

/*
 * 16 chiplets (count mode, §VI): Barre coalesces across more than 8
 * chiplets with every computed frame the true walk's, F-Barre keeps its
 * identities, and what count mode cannot write is refused by name: group
 * expansion (merge) and migration under Barre.
 */
TEST(sixteen_chiplets)
{
	struct gpu_run_result r;
	struct gpu_run_opts o;
	char path[128], err[512];

	ASSERT_EQ(0, app_prog_file("gpu_fbarre_test", "gups", 0,
				   path, sizeof(path)));
	opts(&o, GPU_RUN_BARRE_ON, 1, "chiplets=16");
	o.shadow = true;
	ASSERT_EQ(0, host_run(path, &o, &r));
	EXPECT_GT(r.barre.coalesced, 0);
	EXPECT_GT(r.barre.groups, 0);
	EXPECT_EQ(0, r.barre.shadow_mismatches);
	EXPECT_EQ(0, r.core.translation_faults);
	gpu_run_result_free(&r);
	opts(&o, GPU_RUN_BARRE_ON, 2, "chiplets=16");
	EXPECT_EQ(-EINVAL, gpu_run_host(path, &o, &r, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "fbarre_merge: ")) TH_LOG("%s", err);
	opts(&o, GPU_RUN_BARRE_ON, 1, "chiplets=16");
	host_set(&o.cfg, "migrate=1");
	EXPECT_EQ(-EINVAL, gpu_run_host(path, &o, &r, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "migrate: on 16 chiplets")) TH_LOG("%s", err);
	unlink(path);
	check_fbarre(_metadata, "spmv", 1, "chiplets=16", false);
}

TEST_HARNESS_MAIN
