// SPDX-License-Identifier: GPL-2.0
/*
 * Barre Chord's baselines in the GPU timing core (--barre least and
 * valkyrie; qemu-device/model/gpu_core.c, translation sharing), through
 * the tool's host backend (the allocator and the IOMMU walker
 * in-process) on programs written here:
 * - "share": chiplet 0 translates every page of an object, then all four
 *   chiplets read them. Least answers the other chiplets from chiplet 0's
 *   L2 TLB over the link: exactly 3 x 64 remote hits and 64 ATS requests
 *   where Barre off sends 4 x 64; every answer equal to the true walk.
 * - "stream": one warp reads 16 pages in order, each load waiting for
 *   the last. Valkyrie's next-page prefetch translates each page before
 *   the warp gets there: 15 prefetches that hit, fewer cycles than
 *   Barre off.
 * The counters' identities hold in every mode, the result does not depend
 * on how the epochs are cut, and with xl_share off xl_prefetch changes
 * nothing.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "gpu_run.h"
#include "../lib/host_run.h"

#define BASE            0x7f0000000000ULL
#define PAGE            4096ULL
#define SHARE_PAGES     64      /* fit chiplet 0's L1 and L2 TLBs */
#define STREAM_PAGES    16
#define STREAM_LOADS    32      /* 128 B loads a page: the whole page */

/* One 4 B load a lane; lane l at first + l * stride. */
static void load(FILE *f, unsigned int pc, const char *regs,
		 unsigned long long first, unsigned long long stride)
{
	unsigned int l;

	fprintf(f, "0x%x 0xffffffff mem.global.load.4 LDG.E %s @", pc, regs);
	for (l = 0; l < 32; l++)
		fprintf(f, " 0x%llx", first + l * stride);
	fprintf(f, "\n");
}

/* A warp reading one word of each page, 32 pages a load. */
static void touch_warp(FILE *f, unsigned int pages)
{
	unsigned int i;

	fprintf(f, "warp 0 insts=%u\n", pages / 32);
	for (i = 0; i < pages / 32; i++)
		load(f, 0x100 + 0x10 * i, "d=8 s=2", BASE + 32 * i * PAGE, PAGE);
}

/* One block (chiplet 0, tb_sched chunk) touches pages, then grid. */
static void write_touch(FILE *f, unsigned int pages, unsigned int grid)
{
	unsigned int b;

	fprintf(f, "mcmgpu-program 1\nobject 0x%llx %llu table\n", BASE,
		pages * PAGE);
	host_kernel_head(f, 1, 1, "first");
	fprintf(f, "block 0,0,0\n");
	touch_warp(f, pages);
	fprintf(f, "end-block\nend-kernel\n");
	host_kernel_head(f, 2, grid, "then");
	for (b = 0; b < grid; b++) {
		fprintf(f, "block %u,0,0\n", b);
		touch_warp(f, pages);
		fprintf(f, "end-block\n");
	}
	fprintf(f, "end-kernel\nend\n");
}

/* Then all four chiplets: one block each. */
static void write_share(FILE *f)
{
	write_touch(f, SHARE_PAGES, 4);
}

/*
 * Twice the L1 TLB's pages: the first block's SM keeps the second half,
 * which is all a second SM of chiplet 0 finds there.
 */
static void write_evict(FILE *f)
{
	write_touch(f, 2 * SHARE_PAGES, 1);
}

/* loads 128 B loads a page, each waiting for the last. */
static void write_stream_loads(FILE *f, unsigned int loads)
{
	unsigned int p, k;

	/* A page more than read: its prefetch is still out at the end. */
	fprintf(f, "mcmgpu-program 1\nobject 0x%llx %llu stream\n", BASE,
		(STREAM_PAGES + 1) * PAGE);
	host_kernel_head(f, 1, 1, "stream");
	fprintf(f, "block 0,0,0\nwarp 0 insts=%u\n", STREAM_PAGES * loads);
	/* Each load reads the register the last one writes: one at a time. */
	for (p = 0; p < STREAM_PAGES; p++)
		for (k = 0; k < loads; k++)
			load(f, 0x100 + 0x10 * (p * loads + k), "d=8 s=8",
			     BASE + p * PAGE + k * 128, 4);
	fprintf(f, "end-block\nend-kernel\nend\n");
}

/* The whole page: the warp is slower than a translation. */
static void write_stream(FILE *f)
{
	write_stream_loads(f, STREAM_LOADS);
}

/* A load a page: the warp is faster than a translation. */
static void write_stream_fast(FILE *f)
{
	write_stream_loads(f, 1);
}

/* The "barre" preset, Barre off, shadow walks, xl_share as named. */
static void opts(struct gpu_run_opts *o, const char *share)
{
	host_barre_opts(o, GPU_RUN_BARRE_OFF);
	o->shadow = true;
	host_set(&o->cfg, "xl_share=%s", share);
}

/* What holds in every mode: accesses, requests and walks add up. */
static void identities(struct __test_metadata *_metadata,
		       const struct gpu_run_result *r)
{
	const struct gpu_core_stats *c = &r->core;
	const struct gpu_core_share_stats *s = &c->share;

	EXPECT_EQ(c->l1_tlb_accesses, c->l1_tlb_hits + c->l1_tlb_misses);
	EXPECT_EQ(c->l2_tlb_accesses, c->l2_tlb_hits + c->l2_tlb_misses);
	EXPECT_EQ(c->l2_tlb_accesses, c->l1_tlb_misses - s->l1_peer_hits);
	EXPECT_EQ(c->ats_requests, c->l2_tlb_misses - c->l2_tlb_mshr_merges -
		  s->remote_tlb_hits + s->prefetches);
	EXPECT_EQ(c->ats_replies, c->ats_requests);
	EXPECT_EQ(r->barre.ats_requests, c->ats_requests);
	EXPECT_EQ(s->remote_tlb_lookups, s->remote_tlb_hits + s->remote_tlb_gone);
	EXPECT_LE(s->remote_tlb_lookups, s->filter_probes);
	EXPECT_LE(s->prefetch_hits, s->prefetches);
	EXPECT_EQ(0, s->mismatches);
	EXPECT_EQ(0, r->barre.shadow_mismatches);
	EXPECT_EQ(0, c->translation_faults);
	/* The run's cycles end with its last kernel, not a prefetch's fill. */
	ASSERT_GT(r->nkernels, 0);
	EXPECT_EQ(r->kernels[r->nkernels - 1].end, c->cycles);
}

TEST(least_serves_remote_hits)
{
	struct gpu_run_opts o;
	struct gpu_run_result off, least;
	const struct gpu_core_share_stats *s = &least.core.share;
	char path[64];

	ASSERT_EQ(0, host_gen(write_share, path, sizeof(path)));
	opts(&o, "off");
	ASSERT_EQ(0, host_run(path, &o, &off));
	opts(&o, "least");
	ASSERT_EQ(0, host_run(path, &o, &least));
	unlink(path);
	TH_LOG("off: %llu ATS requests, %llu cycles; least: %llu, %llu remote "
	       "hits, %llu cycles", (unsigned long long)off.core.ats_requests,
	       (unsigned long long)off.core.cycles,
	       (unsigned long long)least.core.ats_requests,
	       (unsigned long long)s->remote_tlb_hits,
	       (unsigned long long)least.core.cycles);
	identities(_metadata, &off);
	identities(_metadata, &least);
	/* Each chiplet asks for each page once; only chiplet 0's go out. */
	EXPECT_EQ(4 * SHARE_PAGES, off.core.ats_requests);
	EXPECT_EQ(SHARE_PAGES, least.core.ats_requests);
	EXPECT_EQ(3 * SHARE_PAGES, s->remote_tlb_hits);
	EXPECT_EQ(0, s->remote_tlb_gone);
	EXPECT_EQ(4 * SHARE_PAGES, s->filter_probes);
	/* A link round trip beats PCIe and a walk. */
	EXPECT_LT(least.core.cycles, off.core.cycles);
	/* The lookups and their PTEs crossed the link. */
	EXPECT_EQ(off.core.link.requests + 4 * s->remote_tlb_lookups,
		  least.core.link.requests);
	EXPECT_EQ(0, off.core.share.filter_probes);
	EXPECT_EQ(0, off.core.share.remote_tlb_hits);
	gpu_run_result_free(&off);
	gpu_run_result_free(&least);
}

TEST(valkyrie_prefetch_hits_a_stream)
{
	struct gpu_run_opts o;
	struct gpu_run_result off, vk;
	const struct gpu_core_share_stats *s = &vk.core.share;
	char path[64];

	ASSERT_EQ(0, host_gen(write_stream, path, sizeof(path)));
	opts(&o, "off");
	ASSERT_EQ(0, host_run(path, &o, &off));
	opts(&o, "valkyrie");
	ASSERT_EQ(0, host_run(path, &o, &vk));
	unlink(path);
	TH_LOG("off: %llu cycles, %llu ATS requests; valkyrie: %llu cycles, "
	       "%llu prefetches, %llu hit, %llu late",
	       (unsigned long long)off.core.cycles,
	       (unsigned long long)off.core.ats_requests,
	       (unsigned long long)vk.core.cycles,
	       (unsigned long long)s->prefetches,
	       (unsigned long long)s->prefetch_hits,
	       (unsigned long long)s->prefetch_late);
	identities(_metadata, &off);
	identities(_metadata, &vk);
	/*
	 * Each page's fill or first hit fetches the next, the one past the
	 * stream's too: answered before the run is done.
	 */
	EXPECT_EQ(STREAM_PAGES, s->prefetches);
	EXPECT_EQ(STREAM_PAGES - 1, s->prefetch_hits);
	EXPECT_EQ(0, s->prefetch_late);
	EXPECT_EQ(STREAM_PAGES, off.core.ats_requests);
	EXPECT_EQ(STREAM_PAGES + 1, vk.core.ats_requests);
	EXPECT_EQ(STREAM_PAGES + 1, vk.core.ats_replies);
	EXPECT_EQ(1, vk.core.l2_tlb_misses);
	/* One SM: no peer to probe a page from. */
	EXPECT_EQ(vk.core.l1_tlb_misses, s->l1_probes);
	EXPECT_EQ(0, s->l1_peer_hits);
	/* Every page but the first without most of ATS's round trip. */
	EXPECT_GE(off.core.cycles - vk.core.cycles, (STREAM_PAGES - 1) *
		  (2 * o.cfg.pcie_lat + o.cfg.walk_lat) * 9 / 10);
	gpu_run_result_free(&off);
	gpu_run_result_free(&vk);
}

/* A stream faster than ATS: each demand joins the prefetch in flight. */
TEST(valkyrie_late_prefetch_becomes_demand)
{
	struct gpu_run_opts o;
	struct gpu_run_result off, vk;
	const struct gpu_core_share_stats *s = &vk.core.share;
	char path[64];

	ASSERT_EQ(0, host_gen(write_stream_fast, path, sizeof(path)));
	opts(&o, "off");
	ASSERT_EQ(0, host_run(path, &o, &off));
	opts(&o, "valkyrie");
	ASSERT_EQ(0, host_run(path, &o, &vk));
	unlink(path);
	TH_LOG("off: %llu cycles; valkyrie: %llu cycles, %llu prefetches, "
	       "%llu hit, %llu late", (unsigned long long)off.core.cycles,
	       (unsigned long long)vk.core.cycles,
	       (unsigned long long)s->prefetches,
	       (unsigned long long)s->prefetch_hits,
	       (unsigned long long)s->prefetch_late);
	identities(_metadata, &off);
	identities(_metadata, &vk);
	/* A late prefetch's fill is a demand's: it prefetches the next. */
	EXPECT_EQ(STREAM_PAGES, s->prefetches);
	EXPECT_EQ(STREAM_PAGES - 1, s->prefetch_late);
	EXPECT_EQ(0, s->prefetch_hits);
	EXPECT_EQ(STREAM_PAGES + 1, vk.core.ats_requests);
	EXPECT_LT(vk.core.cycles, off.core.cycles);
	gpu_run_result_free(&off);
	gpu_run_result_free(&vk);
}

/* Chiplet 0's second kernel finds the first's pages in a peer L1 TLB. */
TEST(valkyrie_probes_peer_l1_tlbs)
{
	struct gpu_run_opts o;
	struct gpu_run_result off, vk;
	const struct gpu_core_share_stats *s = &vk.core.share;
	char path[64];

	ASSERT_EQ(0, host_gen(write_share, path, sizeof(path)));
	opts(&o, "off");
	ASSERT_EQ(0, host_run(path, &o, &off));
	opts(&o, "valkyrie");
	o.cfg.xl_prefetch = 0;
	ASSERT_EQ(0, host_run(path, &o, &vk));
	unlink(path);
	TH_LOG("off: %llu L2 TLB accesses; valkyrie: %llu, %llu of %llu "
	       "probes hit", (unsigned long long)off.core.l2_tlb_accesses,
	       (unsigned long long)vk.core.l2_tlb_accesses,
	       (unsigned long long)s->l1_peer_hits,
	       (unsigned long long)s->l1_probes);
	identities(_metadata, &off);
	identities(_metadata, &vk);
	EXPECT_EQ(0, s->prefetches);
	EXPECT_EQ(vk.core.l1_tlb_misses, s->l1_probes);
	/* Chiplet 0's second block runs on another SM: every page a hit. */
	EXPECT_EQ(SHARE_PAGES, s->l1_peer_hits);
	EXPECT_EQ(off.core.l1_tlb_hits, vk.core.l1_tlb_hits);
	EXPECT_EQ(off.core.l2_tlb_accesses - s->l1_peer_hits,
		  vk.core.l2_tlb_accesses);
	EXPECT_EQ(off.core.ats_requests, vk.core.ats_requests);
	gpu_run_result_free(&off);
	gpu_run_result_free(&vk);
}

/* Pages the first SM evicted are found in no peer. */
TEST(valkyrie_probe_follows_evictions)
{
	struct gpu_run_opts o;
	struct gpu_run_result vk;
	const struct gpu_core_share_stats *s = &vk.core.share;
	char path[64];

	ASSERT_EQ(0, host_gen(write_evict, path, sizeof(path)));
	opts(&o, "valkyrie");
	o.cfg.xl_prefetch = 0;
	ASSERT_EQ(64, o.cfg.l1_tlb_entries);
	ASSERT_EQ(0, host_run(path, &o, &vk));
	unlink(path);
	identities(_metadata, &vk);
	EXPECT_EQ(4 * SHARE_PAGES, s->l1_probes);
	EXPECT_EQ(SHARE_PAGES, s->l1_peer_hits);
	gpu_run_result_free(&vk);
}

/* The core in steps of 1, 7 and 61 cycles inside the epochs: no change. */
TEST(deterministic_across_epoch_cuts)
{
	static const char *const modes[] = { "least", "valkyrie" };
	void (*writers[])(FILE *f) = { write_share, write_stream };
	struct gpu_run_result r0;
	struct gpu_run_opts o;
	char path[64];
	uint32_t m, w;

	for (w = 0; w < 2; w++) {
		ASSERT_EQ(0, host_gen(writers[w], path, sizeof(path)));
		for (m = 0; m < 2; m++) {
			opts(&o, modes[m]);
			ASSERT_EQ(0, host_run(path, &o, &r0));
			host_same_across_cuts(_metadata, path, &o, &r0);
			gpu_run_result_free(&r0);
		}
		unlink(path);
	}
}

/* With xl_share off, xl_prefetch changes nothing. */
TEST(off_ignores_xl_prefetch)
{
	struct gpu_run_result r0, r1;
	struct gpu_run_opts o;
	char path[64];

	ASSERT_EQ(0, host_gen(write_stream, path, sizeof(path)));
	opts(&o, "off");
	ASSERT_EQ(0, host_run(path, &o, &r0));
	o.cfg.xl_prefetch = 8;
	ASSERT_EQ(0, host_run(path, &o, &r1));
	host_same_result(_metadata, &r0, &r1);
	EXPECT_EQ(0, r1.core.share.prefetches);
	gpu_run_result_free(&r0);
	gpu_run_result_free(&r1);
	unlink(path);
}

/* The configuration refuses what the modes cannot model. */
TEST(config_refuses)
{
	struct gpu_run_opts o;
	const char *field, *why;

	opts(&o, "least");
	EXPECT_EQ(0, gpu_config_check(&o.cfg, 16, &field, &why));
	o.cfg.l2_tlb_entries = 2048;    /* more than the ideal filter holds */
	EXPECT_EQ(-EINVAL, gpu_config_check(&o.cfg, 16, &field, &why));
	EXPECT_STREQ("xl_share", field);
	opts(&o, "valkyrie");
	o.cfg.l2_tlb_entries = 2048;
	EXPECT_EQ(0, gpu_config_check(&o.cfg, 16, &field, &why));
	o.cfg.fbarre = 1;               /* a baseline of Barre off */
	EXPECT_EQ(-EINVAL, gpu_config_check(&o.cfg, 16, &field, &why));
	EXPECT_STREQ("xl_share", field);
	EXPECT_EQ(-EINVAL, gpu_config_set(&o.cfg, "xl_share=lest", &why));
	EXPECT_EQ(-EINVAL, gpu_config_set(&o.cfg, "xl_prefetch=9", &why));
}

TEST_HARNESS_MAIN
