// SPDX-License-Identifier: GPL-2.0
/*
 * ACUD page migration in the GPU timing core (migrate=acud;
 * qemu-device/model/gpu_core.c, the Migration section; docs/gpu.md,
 * Migration (ACUD) in the core), through the tool's host backend (the
 * allocator, which moves the page, and the IOMMU walker in-process):
 * - "hammer": one warp of chiplet 0 reads page 1 of a 4-page object
 *   (kwc: page i on chiplet i) 128 B at a time, each load waiting for
 *   the last, 32 loads. The 16th remote access moves the page to chiplet
 *   0: exactly one migration, 16 loads' sectors remote and the 16 after
 *   it local; one shootdown; every answer equal to the true walk.
 * - With migration off, or on with a threshold never reached, the run is
 *   the same counter for counter (bar the remote-access count).
 * - "all": every chiplet reads three pages, Barre off, on and F-Barre:
 *   pages move (and move again: ACUD's ping-pong), under Barre the group
 *   mates' PTEs lose the page's bit (only the page is shot down), and no coalesced or in-package answer
 *   differs from the true walk; the result does not depend on how the
 *   epochs are cut.
 * - gups and nw at their small sizes, Barre on and F-Barre merge 2: many pages
 *   move while their group mates are walked and answered in the package;
 *   a move must clear its old chiplet's bit in every mate, or a mate's
 *   walk computes the old frame (the shadow walk and F-Barre's check
 *   count it).
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
#define PAGES           4       /* page i on chiplet i */
#define LOADS           32      /* 128 B each: the whole page */
#define THRESHOLD       16      /* Barre Chord §VII-G */
#define SECTORS         4       /* a 128 B load's */

/* 32 lanes, 4 B each from first: one 128 B line; reads what it writes. */
static void load(FILE *f, unsigned int pc, unsigned long long first)
{
	unsigned int l;

	fprintf(f, "0x%x 0xffffffff mem.global.load.4 LDG.E d=8 s=8 @", pc);
	for (l = 0; l < 32; l++)
		fprintf(f, " 0x%llx", first + 4ULL * l);
	fprintf(f, "\n");
}

/* grid blocks (block b on chiplet b: tb_sched chunk), each reading page. */
static void write_pages(FILE *f, unsigned int grid, int page)
{
	unsigned int b, p, k, n = page < 0 ? PAGES : 1;

	fprintf(f, "mcmgpu-program 1\nobject 0x%llx %llu data\n", BASE,
		PAGES * PAGE);
	host_kernel_head(f, 1, grid, "hammer");
	for (b = 0; b < grid; b++) {
		fprintf(f, "block %u,0,0\nwarp 0 insts=%u\n", b, n * LOADS);
		for (p = 0; p < n; p++) {
			unsigned int pg = page < 0 ? (p + b + 1) % PAGES : page;

			for (k = 0; k < LOADS; k++)
				load(f, 0x100 + 0x10 * (p * LOADS + k),
				     BASE + pg * PAGE + k * 128);
		}
		fprintf(f, "end-block\n");
	}
	fprintf(f, "end-kernel\nend\n");
}

static void write_hammer(FILE *f)
{
	write_pages(f, 1, 1);
}

/* Block b reads pages b + 1, b + 2, ...: each page from three chiplets. */
static void write_all(FILE *f)
{
	write_pages(f, PAGES, -1);
}

/* The "barre" preset (4 chiplets, kwc), shadow walks, migrate as named. */
static void opts(struct gpu_run_opts *o, const char *mode, int barre)
{
	host_barre_opts(o, barre);
	o->cfg.tb_sched = GPU_TB_CHUNK;
	o->shadow = true;
	host_set(&o->cfg, "migrate=%s", mode);
}

static void identities(struct __test_metadata *_metadata,
		       const struct gpu_run_result *r)
{
	const struct gpu_core_stats *c = &r->core;

	EXPECT_EQ(c->ats_replies, c->ats_requests);
	EXPECT_EQ(r->barre.ats_requests, c->ats_requests);
	EXPECT_EQ(0, r->barre.shadow_mismatches);
	EXPECT_EQ(0, c->fbarre.inpackage_mismatches);
	EXPECT_EQ(0, c->translation_faults);
	EXPECT_EQ(c->migrate.migrated_bytes, c->migrate.migrations * PAGE);
	EXPECT_LE(c->migrate.migrations, c->migrate.shootdowns);
	EXPECT_EQ(0, c->migrate.refused);
}

/* The 16th remote access moves the page; the accesses after it are local. */
TEST(hammered_page_moves_once_at_the_threshold)
{
	struct gpu_run_opts o;
	struct gpu_run_result off, on;
	const struct gpu_core_migrate_stats *m = &on.core.migrate;
	char path[64];

	ASSERT_EQ(0, host_gen(write_hammer, path, sizeof(path)));
	opts(&o, "off", GPU_RUN_BARRE_OFF);
	ASSERT_EQ(0, host_run(path, &o, &off));
	opts(&o, "acud", GPU_RUN_BARRE_OFF);
	ASSERT_EQ(THRESHOLD, o.cfg.migrate_threshold);
	ASSERT_EQ(0, host_run(path, &o, &on));
	unlink(path);
	TH_LOG("off: %llu cycles, %llu remote sectors; acud: %llu cycles, "
	       "%llu remote and %llu local sectors, %llu migrations",
	       (unsigned long long)off.core.cycles,
	       (unsigned long long)off.core.l2_remote,
	       (unsigned long long)on.core.cycles,
	       (unsigned long long)on.core.l2_remote,
	       (unsigned long long)on.core.l2_local,
	       (unsigned long long)m->migrations);
	identities(_metadata, &off);
	identities(_metadata, &on);
	/* Off: page 1 stays on chiplet 1, every load remote. */
	EXPECT_EQ(LOADS * SECTORS, off.core.l2_remote);
	EXPECT_EQ(0, off.core.l2_local);
	EXPECT_EQ(0, off.core.migrate.migrations);
	EXPECT_EQ(0, off.core.migrate.remote_accesses);
	/* On: loads 1..16 remote, the 16th moves it, 17..32 local. */
	EXPECT_EQ(1, m->migrations);
	EXPECT_EQ(PAGE, m->migrated_bytes);
	EXPECT_EQ(THRESHOLD, m->remote_accesses);
	EXPECT_EQ(THRESHOLD * SECTORS, on.core.l2_remote);
	EXPECT_EQ((LOADS - THRESHOLD) * SECTORS, on.core.l2_local);
	EXPECT_EQ(1, m->shootdowns);            /* Barre off: no group */
	/* The warp's SM and chiplet 0's L2 TLB held it. */
	EXPECT_EQ(2, m->tlb_entries_shot);
	/* A second translation of the page after the shootdown. */
	EXPECT_EQ(off.core.ats_requests + 1, on.core.ats_requests);
	/*
	 * The link's ports (each counts a message): the copy (a page and a
	 * header) added, 16 loads' sectors (an 8 B request, 32 B and a
	 * header back) gone.
	 */
	EXPECT_EQ(off.core.link.bytes + 2 * (PAGE + 8) -
		  (LOADS - THRESHOLD) * (uint64_t)SECTORS * 2 * (8 + 8 + 32),
		  on.core.link.bytes);
	gpu_run_result_free(&off);
	gpu_run_result_free(&on);
}

/*
 * A copy slower than the page's new translation: the answer waits for the
 * copy's end (with the preset's latencies the ATS round trip is longer).
 */
TEST(translation_waits_for_the_copy)
{
	struct gpu_run_opts o;
	struct gpu_run_result r;
	char path[64];

	ASSERT_EQ(0, host_gen(write_hammer, path, sizeof(path)));
	opts(&o, "acud", GPU_RUN_BARRE_OFF);
	o.cfg.dram_lat = 5000;
	ASSERT_EQ(0, host_run(path, &o, &r));
	unlink(path);
	identities(_metadata, &r);
	EXPECT_EQ(1, r.core.migrate.migrations);
	EXPECT_EQ(1, r.core.migrate.held_fills);
	EXPECT_EQ((LOADS - THRESHOLD) * SECTORS, r.core.l2_local);
	gpu_run_result_free(&r);
}

/* Off, or on but never reaching the threshold: the same run. */
TEST(no_migration_changes_nothing)
{
	struct gpu_run_opts o;
	struct gpu_run_result off, off2, high;
	char path[64];
	uint32_t b;

	for (b = GPU_RUN_BARRE_OFF; b <= GPU_RUN_BARRE_FBARRE; b++) {
		ASSERT_EQ(0, host_gen(write_all, path, sizeof(path)));
		opts(&o, "off", b);
		ASSERT_EQ(0, host_run(path, &o, &off));
		o.cfg.migrate_threshold = 3;    /* ignored when off */
		ASSERT_EQ(0, host_run(path, &o, &off2));
		host_same_result(_metadata, &off, &off2);
		opts(&o, "acud", b);
		o.cfg.migrate_threshold = 255;  /* LOADS < 255: never */
		ASSERT_EQ(0, host_run(path, &o, &high));
		unlink(path);
		identities(_metadata, &high);
		EXPECT_EQ(0, high.core.migrate.migrations);
		EXPECT_GT(high.core.migrate.remote_accesses, 0);
		high.core.migrate.remote_accesses = 0;
		host_same_result(_metadata, &off, &high);
		gpu_run_result_free(&off);
		gpu_run_result_free(&off2);
		gpu_run_result_free(&high);
	}
}

/* Every chiplet reads every page: Barre's groups lose the pages that move. */
TEST(groups_follow_migrations)
{
	struct gpu_run_opts o;
	struct gpu_run_result r0;
	char path[64];
	uint32_t b;

	ASSERT_EQ(0, host_gen(write_all, path, sizeof(path)));
	for (b = GPU_RUN_BARRE_OFF; b <= GPU_RUN_BARRE_FBARRE; b++) {
		opts(&o, "acud", b);
		ASSERT_EQ(0, host_run(path, &o, &r0));
		TH_LOG("barre %u: %llu migrations, %llu group PTEs changed, %llu "
		       "walks, %llu coalesced, %llu cycles", b,
		       (unsigned long long)r0.core.migrate.migrations,
		       (unsigned long long)r0.core.migrate.group_ptes,
		       (unsigned long long)r0.barre.walks,
		       (unsigned long long)r0.barre.coalesced,
		       (unsigned long long)r0.core.cycles);
		identities(_metadata, &r0);
		/*
		 * Each page: the first of its three readers to 16 takes it,
		 * then the others count again on the new frame (ACUD's
		 * ping-pong): at least one move a page, at most one per 16
		 * remote loads.
		 */
		EXPECT_GE(r0.core.migrate.migrations, PAGES);
		EXPECT_LE(r0.core.migrate.migrations,
			  PAGES * 3 * LOADS / THRESHOLD);
		/* Only the page is shot down; under Barre its mates' PTEs
		 * lose its chiplet's bit. */
		EXPECT_EQ(r0.core.migrate.migrations,
			  r0.core.migrate.shootdowns);
		if (b != GPU_RUN_BARRE_OFF) {
			EXPECT_GT(r0.core.migrate.group_ptes, 0);
		} else {
			EXPECT_EQ(0, r0.core.migrate.group_ptes);
		}
		host_same_across_cuts(_metadata, path, &o, &r0);
		gpu_run_result_free(&r0);
	}
	unlink(path);
}

/* Every coalesced or in-package answer is the true walk's, pages moving. */
static void check_app(struct __test_metadata *_metadata, const char *name,
		      bool coalesces)
{
	struct gpu_run_opts o;
	struct gpu_run_result r;
	char path[128];
	uint32_t b;

	ASSERT_EQ(0, app_prog_file("gpu_migrate_test", name, 0,
				   path, sizeof(path)));
	for (b = GPU_RUN_BARRE_ON; b <= GPU_RUN_BARRE_FBARRE; b++) {
		opts(&o, "acud", b);
		o.cfg.tb_sched = gpu_preset_find("barre")->cfg.tb_sched;
		o.cfg.fbarre_merge = b == GPU_RUN_BARRE_FBARRE ? 2 : 1;
		ASSERT_EQ(0, host_run(path, &o, &r));
		TH_LOG("%s, barre %u: %llu migrations, %llu group PTEs changed, "
		       "%llu coalesced, %llu stale answers asked again", name, b,
		       (unsigned long long)r.core.migrate.migrations,
		       (unsigned long long)r.core.migrate.group_ptes,
		       (unsigned long long)r.barre.coalesced,
		       (unsigned long long)r.core.migrate.stale_fills);
		identities(_metadata, &r);
		EXPECT_GT(r.core.migrate.migrations, 0);
		EXPECT_EQ(r.core.migrate.shootdowns, r.core.migrate.migrations);
		EXPECT_GT(r.core.migrate.group_ptes, 0);
		if (coalesces) {
			EXPECT_GT(r.barre.coalesced, 0);
		}
		gpu_run_result_free(&r);
	}
	unlink(path);
}

TEST(gups_groups_exclude_moved_pages)
{
	check_app(_metadata, "gups", true);
}

/* nw's F-Barre run computes a moved page from a mate's entry if the
 * mate's bitmap keeps the old chiplet (25 in-package mismatches). */
TEST(nw_groups_exclude_moved_pages)
{
	check_app(_metadata, "nw", false);
}

/* The configuration refuses what migration cannot run with. */
TEST(config_refuses)
{
	struct gpu_run_opts o;
	const char *field, *why;

	opts(&o, "acud", GPU_RUN_BARRE_OFF);
	EXPECT_EQ(0, gpu_config_check(&o.cfg, 16, &field, &why));
	o.cfg.xl_share = GPU_XLS_LEAST;
	EXPECT_EQ(-EINVAL, gpu_config_check(&o.cfg, 16, &field, &why));
	EXPECT_STREQ("migrate", field);
	opts(&o, "acud", GPU_RUN_BARRE_OFF);
	o.cfg.translate = 0;
	EXPECT_EQ(-EINVAL, gpu_config_check(&o.cfg, 16, &field, &why));
	EXPECT_EQ(-EINVAL, gpu_config_set(&o.cfg, "migrate=acdu", &why));
	EXPECT_EQ(-EINVAL, gpu_config_set(&o.cfg, "migrate_threshold=0", &why));
	EXPECT_EQ(-EINVAL, gpu_config_set(&o.cfg, "migrate_threshold=256", &why));
}

TEST_HARNESS_MAIN
