// SPDX-License-Identifier: GPL-2.0
/*
 * Host tests of CPElide in the GPU timing core (gpu_cpelide.c through
 * gpu_core.c): multi-kernel programs whose blocks (one a chiplet) write
 * and read whole pages of one object placed a quarter a chiplet. The
 * baseline flushes and invalidates every L2 at every boundary, CPElide
 * only what the table needs (exact counts on constructed cases), the
 * oracle sees no stale read under any policy and does when a test knob
 * drops the invalidations or the flushes, ideal is the fastest, off
 * counts nothing, and every run is the same whatever the epochs. With
 * FinePack on too (remote stores through its queues, docs/gpu.md "CPElide
 * with FinePack"): the oracle stays clean under every policy and mode on
 * generated applications, the homes get every byte stored (p2p), no
 * dirty remote data is left to flush, and dropping the in-place update of
 * the writer's copy makes the oracle fire.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "gpu_core.h"
#include "gpu_run.h"
#include "../lib/core_run.h"
#include "../lib/app_prog.h"

#define OBJ		0x10000000ULL
#define PAGES		16		/* kwc: pages 4h..4h+3 live on chiplet h */
#define PAGE		4096ULL
#define NONE_PAGE	(~0u)

/*
 * A kernel of 4 blocks, block c on chiplet c: it loads or stores (32
 * lanes of 4 B an instruction) the whole of page[c] of the object, or
 * does one ALU instruction if page[c] is NONE_PAGE.
 */
static void kernel(struct tprog *p, uint32_t id, const uint32_t page[4],
		   uint32_t kind)
{
	uint32_t b, i;

	tp_kernel(p, id, kind == PROG_KIND_STORE ? "produce" : "consume", 4,
		  32, 0);
	for (b = 0; b < 4; b++) {
		tp_block(p, b);
		if (page[b] == NONE_PAGE) {
			tp_warp(p, 0, 1);
			tp_alu(p, PROG_OP_INT, 1, 0);
		} else {
			tp_warp(p, 0, PAGE / 128);
			for (i = 0; i < PAGE / 128; i++)
				tp_mem(p, PROG_SPACE_GLOBAL, kind, 4, 0xffffffff,
				       OBJ + page[b] * PAGE + i * 128, 4, 1);
		}
		tp_add(p, PROG_REC_BLOCK_END);
	}
	tp_add(p, PROG_REC_KERNEL_END);
}

/*
 * Producer -> consumer across chiplets: chiplet w writes a page of its
 * own memory (kept dirty in its L2: local stores are written back); then
 * twice, chiplet c reads what chiplet c + 3 wrote (the writer's memory).
 */
static void build_pc(struct tprog *p)
{
	uint32_t wr[4], rd[4], c;

	for (c = 0; c < 4; c++) {
		wr[c] = 4 * c;
		rd[c] = 4 * ((c + 3) % 4);
	}
	tp_object(p, OBJ, PAGES * PAGE, "a");
	kernel(p, 1, wr, PROG_KIND_STORE);
	kernel(p, 2, rd, PROG_KIND_LOAD);
	kernel(p, 3, rd, PROG_KIND_LOAD);
	tp_add(p, PROG_REC_END);
}

/*
 * Write after read: chiplet reader reads page 0 (homed on chiplet 0),
 * chiplet writer writes it, the reader reads it again.
 */
static void build_war_by(struct tprog *p, uint32_t reader, uint32_t writer)
{
	uint32_t rd[4] = { NONE_PAGE, NONE_PAGE, NONE_PAGE, NONE_PAGE };
	uint32_t wr[4] = { NONE_PAGE, NONE_PAGE, NONE_PAGE, NONE_PAGE };

	rd[reader] = 0;
	wr[writer] = 0;
	tp_object(p, OBJ, PAGES * PAGE, "a");
	kernel(p, 1, rd, PROG_KIND_LOAD);
	kernel(p, 2, wr, PROG_KIND_STORE);
	kernel(p, 3, rd, PROG_KIND_LOAD);
	tp_add(p, PROG_REC_END);
}

/* Write after a remote read (notes §4.3): the reader is chiplet 1. */
static void build_war(struct tprog *p)
{
	build_war_by(p, 1, 0);
}

/*
 * Read, write, read (notes §4.3 with one chiplet): chiplet 1 reads a page
 * homed on 0 (its L2 keeps a copy), writes it, reads it again.
 */
static void build_rwr(struct tprog *p)
{
	const uint32_t x1[4] = { NONE_PAGE, 0, NONE_PAGE, NONE_PAGE };

	tp_object(p, OBJ, PAGES * PAGE, "a");
	kernel(p, 1, x1, PROG_KIND_LOAD);
	kernel(p, 2, x1, PROG_KIND_STORE);
	kernel(p, 3, x1, PROG_KIND_LOAD);
	tp_add(p, PROG_REC_END);
}

/*
 * A load's data still on its way when its warp stores the same sector:
 * in kernel 1 chiplet 1 loads then stores (no dependence) each line of
 * a page homed on 0, kernel 2 reads the page on chiplet 1.
 */
static void build_load_store(struct tprog *p)
{
	const uint32_t x1[4] = { NONE_PAGE, 0, NONE_PAGE, NONE_PAGE };
	uint32_t b, i;

	tp_object(p, OBJ, PAGES * PAGE, "a");
	tp_kernel(p, 1, "load_store", 4, 32, 0);
	for (b = 0; b < 4; b++) {
		tp_block(p, b);
		if (b != 1) {
			tp_warp(p, 0, 1);
			tp_alu(p, PROG_OP_INT, 1, 0);
		} else {
			tp_warp(p, 0, 2 * PAGE / 128);
			for (i = 0; i < PAGE / 128; i++) {
				tp_mem(p, PROG_SPACE_GLOBAL, PROG_KIND_LOAD, 4,
				       0xffffffff, OBJ + i * 128, 4, 1);
				tp_mem(p, PROG_SPACE_GLOBAL, PROG_KIND_STORE, 4,
				       0xffffffff, OBJ + i * 128, 4, 2);
			}
		}
		tp_add(p, PROG_REC_BLOCK_END);
	}
	tp_add(p, PROG_REC_KERNEL_END);
	kernel(p, 2, x1, PROG_KIND_LOAD);
	tp_add(p, PROG_REC_END);
}

static const uint32_t policies[] = {
	GPU_CPE_BASELINE, GPU_CPE_CPELIDE, GPU_CPE_HMG, GPU_CPE_IDEAL,
};

/*
 * The programs above read pages homed elsewhere; these tests are about
 * the copies a chiplet keeps of them, so they run with cpe_remote=cache
 * (the paper's baseline and CPElide forward remote reads to the home).
 */
static struct gpu_config cache_cfg(uint32_t policy)
{
	struct gpu_config c = tp_cpelide_cfg(policy);

	c.cpe_remote = 1;
	return c;
}

TEST(baseline_syncs_every_boundary_cpelide_only_the_producers)
{
	struct gpu_config c;
	struct gpu_core_stats st;
	const struct gpu_cpelide_stats *s = &st.cpelide;
	char err[GPU_CORE_ERR_MAX];
	struct tprog p = { 0 };

	build_pc(&p);
	c = cache_cfg(GPU_CPE_BASELINE);
	ASSERT_EQ(0, tp_run(&c, &p, ~0ULL >> 1, 0, &st, err)) TH_LOG("%s", err);
	EXPECT_EQ(3, s->kernels);
	EXPECT_EQ(12, s->l2_invalidates);
	EXPECT_EQ(12, s->l2_flushes);
	EXPECT_EQ(12, s->baseline_invalidates);
	EXPECT_EQ(12, s->baseline_flushes);
	EXPECT_EQ(0, s->elided_invalidates);
	EXPECT_EQ(0, s->elided_flushes);
	/* Each producer's page, written back once, 128 sectors each. */
	EXPECT_EQ(4 * PAGE / 32, s->sectors_written_back);
	/* Kernel 3 finds nothing: the baseline invalidated every copy. */
	EXPECT_EQ(0, s->remote_hits);
	EXPECT_EQ(0, s->oracle_violations);

	c = cache_cfg(GPU_CPE_CPELIDE);
	ASSERT_EQ(0, tp_run(&c, &p, ~0ULL >> 1, 0, &st, err)) TH_LOG("%s", err);
	/* Kernel 2 releases the 4 producers; nothing else is needed. */
	EXPECT_EQ(0, s->l2_invalidates);
	EXPECT_EQ(4, s->l2_flushes);
	EXPECT_EQ(12, s->elided_invalidates);
	EXPECT_EQ(8, s->elided_flushes);
	EXPECT_EQ(4 * PAGE / 32, s->sectors_written_back);
	/* Kernel 3 reuses kernel 2's copies: every sector hits. */
	EXPECT_EQ(4 * PAGE / 32, s->remote_hits);
	EXPECT_EQ(1, s->table_peak_rows);
	EXPECT_EQ(0, s->oracle_violations);
	tp_free(&p);
}

TEST(write_after_remote_read_invalidates_the_reader_only)
{
	struct gpu_config c = cache_cfg(GPU_CPE_CPELIDE);
	struct gpu_core_stats st;
	char err[GPU_CORE_ERR_MAX];
	struct tprog p = { 0 };

	build_war(&p);
	ASSERT_EQ(0, tp_run(&c, &p, ~0ULL >> 1, 0, &st, err)) TH_LOG("%s", err);
	/*
	 * Kernel 3: chiplet 1 is Stale (invalidate), chiplet 0 Dirty where
	 * 1 reads (release); the end releases nothing more.
	 */
	EXPECT_EQ(1, st.cpelide.l2_invalidates);
	EXPECT_EQ(1, st.cpelide.l2_flushes);
	EXPECT_EQ(PAGE / 32, st.cpelide.sectors_invalidated);
	EXPECT_EQ(0, st.cpelide.oracle_violations);
	tp_free(&p);
}

/*
 * Kernel ID of 4 blocks, one a chiplet: block 0 stores the first line of
 * OBJ (4 B a lane), the others only compute.
 */
static void store_one_line(struct tprog *p, uint32_t id)
{
	uint32_t b;

	tp_kernel(p, id, "produce", 4, 32, 0);
	for (b = 0; b < 4; b++) {
		tp_block(p, b);
		tp_warp(p, 0, 1);
		if (b == 0)
			tp_mem(p, PROG_SPACE_GLOBAL, PROG_KIND_STORE, 4,
			       0xffffffff, OBJ, 4, 1);
		else
			tp_alu(p, PROG_OP_INT, 1, 0);
		tp_add(p, PROG_REC_BLOCK_END);
	}
	tp_add(p, PROG_REC_KERNEL_END);
}

/*
 * HMG's directory region is 4 of the paper's 64 B lines (notes §1.3):
 * 256 B, two of the core's 128 B lines. Chiplet 1 reads a page homed on
 * 0, chiplet 0 stores one line of it, chiplet 1 reads the page again:
 * the store drops the reader's copies of its region only (its line and
 * the next), so the re-read misses those 2 lines and hits the other 30.
 */
TEST(hmg_write_invalidates_its_256_byte_region)
{
	const uint32_t r1[4] = { NONE_PAGE, 0, NONE_PAGE, NONE_PAGE };
	struct gpu_config c = tp_cpelide_cfg(GPU_CPE_HMG);
	struct gpu_core_stats st;
	char err[GPU_CORE_ERR_MAX];
	struct tprog p = { 0 };

	tp_object(&p, OBJ, PAGES * PAGE, "a");
	kernel(&p, 1, r1, PROG_KIND_LOAD);
	store_one_line(&p, 2);
	kernel(&p, 3, r1, PROG_KIND_LOAD);
	tp_add(&p, PROG_REC_END);
	ASSERT_EQ(0, tp_run(&c, &p, ~0ULL >> 1, 0, &st, err)) TH_LOG("%s", err);
	EXPECT_EQ(0, st.cpelide.oracle_violations);
	/* Sectors: the region's 8 dropped; kernel 1 misses all 128. */
	EXPECT_EQ(8, st.cpelide.dir_invalidations);
	EXPECT_EQ(PAGE / 32 - 8, st.cpelide.remote_hits);
	EXPECT_EQ(PAGE / 32 + 8, st.cpelide.remote_misses);
	tp_free(&p);
}

/*
 * The home memory's write queue (cfg.dram_wq, gem5's MemCtrl): block 0
 * stores one line, 4 sectors of its own chiplet's memory, so under HMG
 * all 4 reach the home's slice in the same cycle T and are written
 * through. DRAM at 1 B a cycle serves a sector in 32 cycles, in order:
 * write k drains at T + 32 (k + 1). With one entry, write k waits for
 * write k - 1 to drain (32 k cycles: 32 + 64 + 96 = 192 in all), so the
 * last acknowledgement, and the kernel's end, come 96 cycles later than
 * unbounded; with two entries write k waits for write k - 2 (32 + 64),
 * 64 cycles later; with four none waits.
 */
static void wq_run(struct __test_metadata *_metadata, uint32_t entries,
		   struct gpu_core_stats *st)
{
	struct gpu_config c = tp_cpelide_cfg(GPU_CPE_HMG);
	char err[GPU_CORE_ERR_MAX];
	struct tprog p = { 0 };

	c.dram_bw = 1000;
	c.dram_wq = entries;
	tp_object(&p, OBJ, PAGES * PAGE, "a");
	store_one_line(&p, 1);
	tp_add(&p, PROG_REC_END);
	ASSERT_EQ(0, tp_run(&c, &p, ~0ULL >> 1, 0, st, err)) TH_LOG("%s", err);
	EXPECT_EQ(0, st->cpelide.oracle_violations);
	EXPECT_EQ(4, st->cpelide.memory_writes);
	EXPECT_EQ(4 * 32, st->dram.bytes);
	tp_free(&p);
}

TEST(hmg_write_waits_for_room_in_the_memory_write_queue)
{
	struct gpu_core_stats st0, st1, st2, st4;

	wq_run(_metadata, 0, &st0);
	EXPECT_EQ(0, st0.wq.writes);
	wq_run(_metadata, 1, &st1);
	EXPECT_EQ(4, st1.wq.writes);
	EXPECT_EQ(3, st1.wq.waited);
	EXPECT_EQ(32 + 64 + 96, st1.wq.wait_cycles);
	EXPECT_EQ(96, st1.wq.max_wait);
	EXPECT_EQ(st0.cycles + 96, st1.cycles);
	wq_run(_metadata, 2, &st2);
	EXPECT_EQ(2, st2.wq.waited);
	EXPECT_EQ(32 + 64, st2.wq.wait_cycles);
	EXPECT_EQ(64, st2.wq.max_wait);
	EXPECT_EQ(st0.cycles + 64, st2.cycles);
	wq_run(_metadata, 4, &st4);
	EXPECT_EQ(4, st4.wq.writes);
	EXPECT_EQ(0, st4.wq.waited);
	EXPECT_EQ(st0.cycles, st4.cycles);
}

TEST(oracle_clean_under_every_policy_and_ideal_fastest)
{
	struct gpu_core_stats st;
	char err[GPU_CORE_ERR_MAX];
	uint64_t cycles[4], sync[4];
	uint32_t i, b;

	for (b = 0; b < 2; b++) {
		struct tprog p = { 0 };

		if (b)
			build_war(&p);
		else
			build_pc(&p);
		for (i = 0; i < 4; i++) {
			struct gpu_config c = tp_cpelide_cfg(policies[i]);

			ASSERT_EQ(0, tp_run(&c, &p, ~0ULL >> 1, 0, &st, err))
				TH_LOG("%s", err);
			EXPECT_EQ(0, st.cpelide.oracle_violations)
				TH_LOG("program %u policy %u", b, policies[i]);
			/* HMG writes every store through to memory (§IV-C). */
			if (policies[i] == GPU_CPE_HMG) {
				EXPECT_LT(0, st.cpelide.memory_writes);
				EXPECT_EQ(st.cpelide.writes_through,
					  st.cpelide.memory_writes);
			} else {
				EXPECT_EQ(0, st.cpelide.memory_writes);
			}
			cycles[i] = st.cycles;
			sync[i] = st.cpelide.sync_cycles;
		}
		for (i = 0; i < 3; i++) {
			EXPECT_LE(cycles[3], cycles[i])
				TH_LOG("program %u: ideal %llu, policy %u %llu", b,
				       (unsigned long long)cycles[3], policies[i],
				       (unsigned long long)cycles[i]);
		}
		/*
		 * CPElide waits less at the boundaries than the baseline (its
		 * 6 us first launch dominates programs this small).
		 */
		EXPECT_LT(sync[1], sync[0]);
		tp_free(&p);
	}
}

TEST(oracle_sees_dropped_invalidations_and_flushes)
{
	struct gpu_core_stats st;
	char err[GPU_CORE_ERR_MAX];
	struct tprog war = { 0 }, pc = { 0 };
	uint32_t i;

	build_war(&war);
	build_pc(&pc);
	for (i = 0; i < 2; i++) {
		struct gpu_config c = cache_cfg(policies[i]);

		/* Chiplet 1's copy of the page survives chiplet 0's write. */
		ASSERT_EQ(0, tp_run(&c, &war, ~0ULL >> 1,
				    GPU_CPE_TEST_NO_INVALIDATE, &st, err));
		EXPECT_EQ(PAGE / 32, st.cpelide.oracle_read_violations)
			TH_LOG("policy %u", policies[i]);
		/* The consumers read the homes before the producers' data. */
		ASSERT_EQ(0, tp_run(&c, &pc, ~0ULL >> 1, GPU_CPE_TEST_NO_FLUSH,
				    &st, err));
		EXPECT_LT(0, st.cpelide.oracle_read_violations)
			TH_LOG("policy %u", policies[i]);
	}
	tp_free(&war);
	tp_free(&pc);
}

/*
 * The paper's baseline and CPElide (cpe_remote=forward, the default)
 * keep no copy of a remote line: chiplet 1 reads a page homed on 0,
 * writes it, reads it again, and both reads go to the home. HMG and
 * ideal keep the copy the store updated, and so does cpe_remote=cache.
 */
TEST(forward_keeps_remote_lines_at_their_home)
{
	struct gpu_core_stats st;
	char err[GPU_CORE_ERR_MAX];
	struct tprog p = { 0 };
	uint32_t i;

	build_rwr(&p);
	for (i = 0; i < 4; i++) {
		struct gpu_config c = tp_cpelide_cfg(policies[i]);
		bool caches = policies[i] == GPU_CPE_HMG ||
			      policies[i] == GPU_CPE_IDEAL;

		ASSERT_EQ(0, tp_run(&c, &p, ~0ULL >> 1, 0, &st, err))
			TH_LOG("%s", err);
		EXPECT_EQ(caches ? PAGE / 32 : 0, st.cpelide.remote_hits)
			TH_LOG("policy %u", policies[i]);
		EXPECT_EQ(caches ? PAGE / 32 : 2 * PAGE / 32,
			  st.cpelide.remote_misses)
			TH_LOG("policy %u", policies[i]);
		EXPECT_EQ(0, st.cpelide.oracle_violations);
		if (policies[i] != GPU_CPE_CPELIDE)
			continue;
		c = cache_cfg(policies[i]);
		ASSERT_EQ(0, tp_run(&c, &p, ~0ULL >> 1, 0, &st, err))
			TH_LOG("%s", err);
		EXPECT_EQ(PAGE / 32, st.cpelide.remote_hits);
		EXPECT_EQ(0, st.cpelide.oracle_violations);
	}
	tp_free(&p);
}

/*
 * Forwarding leaves the home's own copies to sync: chiplet 0 reads its
 * page, chiplet 1 writes it (through to the home's L3 slice), chiplet 0
 * reads it again. CPElide invalidates chiplet 0 (its copy is Stale) and
 * nothing else; without the invalidation every sector reads stale.
 */
TEST(forward_invalidates_the_home_after_a_remote_write)
{
	struct gpu_config c = tp_cpelide_cfg(GPU_CPE_CPELIDE);
	struct gpu_core_stats st;
	char err[GPU_CORE_ERR_MAX];
	struct tprog p = { 0 };
	uint32_t i;

	build_war_by(&p, 0, 1);
	ASSERT_EQ(0, tp_run(&c, &p, ~0ULL >> 1, 0, &st, err)) TH_LOG("%s", err);
	EXPECT_EQ(1, st.cpelide.l2_invalidates);
	EXPECT_EQ(PAGE / 32, st.cpelide.sectors_invalidated);
	EXPECT_EQ(0, st.cpelide.oracle_violations);
	for (i = 0; i < 2; i++) {
		c = tp_cpelide_cfg(policies[i]);
		ASSERT_EQ(0, tp_run(&c, &p, ~0ULL >> 1,
				    GPU_CPE_TEST_NO_INVALIDATE, &st, err));
		EXPECT_EQ(PAGE / 32, st.cpelide.oracle_read_violations)
			TH_LOG("policy %u", policies[i]);
	}
	tp_free(&p);
}

/*
 * A remote read leaves no copy anywhere under forward, the home's L2
 * included: chiplet 1 reads a page homed on 0, then chiplet 0 reads it
 * and misses every sector too.
 */
TEST(forward_fills_no_l2_on_a_remote_read)
{
	const uint32_t r1[4] = { NONE_PAGE, 0, NONE_PAGE, NONE_PAGE };
	const uint32_t r0[4] = { 0, NONE_PAGE, NONE_PAGE, NONE_PAGE };
	struct gpu_core_stats st;
	char err[GPU_CORE_ERR_MAX];
	struct tprog p = { 0 };
	uint32_t i;

	tp_object(&p, OBJ, PAGES * PAGE, "a");
	kernel(&p, 1, r1, PROG_KIND_LOAD);
	kernel(&p, 2, r0, PROG_KIND_LOAD);
	tp_add(&p, PROG_REC_END);
	for (i = 0; i < 2; i++) {
		struct gpu_config c = tp_cpelide_cfg(policies[i]);

		ASSERT_EQ(0, tp_run(&c, &p, ~0ULL >> 1, 0, &st, err))
			TH_LOG("%s", err);
		EXPECT_EQ(2 * PAGE / 32, st.l2_misses) TH_LOG("policy %u", policies[i]);
		EXPECT_EQ(0, st.l2_hits) TH_LOG("policy %u", policies[i]);
	}
	tp_free(&p);
}

TEST(off_counts_nothing)
{
	struct gpu_config c = tp_cpelide_cfg(GPU_CPE_OFF);
	struct gpu_cpelide_stats zero = { 0 };
	struct gpu_core_stats st;
	char err[GPU_CORE_ERR_MAX];
	struct tprog p = { 0 };

	build_pc(&p);
	ASSERT_EQ(0, tp_run(&c, &p, ~0ULL >> 1, 0, &st, err)) TH_LOG("%s", err);
	EXPECT_EQ(0, memcmp(&zero, &st.cpelide, sizeof(zero)));
	/*
	 * The local stores and kernel 2's remote loads reach the homes' L2s
	 * (off keeps the L1s, so kernel 3 hits in them).
	 */
	EXPECT_EQ(4 * PAGE / 32, st.l2_remote);
	EXPECT_EQ(2 * st.l2_remote, st.l2_accesses);
	tp_free(&p);
}

TEST(deterministic_whatever_the_epochs)
{
	static const uint64_t epochs[] = { 1, 7, 333, 1000000000 };
	struct tprog p = { 0 };
	uint32_t m, i;

	build_pc(&p);
	for (m = 0; m < 4; m++) {
		struct gpu_config c = tp_cpelide_cfg(policies[m]);
		struct gpu_core_stats first, st;
		char err[GPU_CORE_ERR_MAX];

		ASSERT_EQ(0, tp_run(&c, &p, epochs[0], 0, &first, err))
			TH_LOG("%s", err);
		for (i = 1; i < 4; i++) {
			ASSERT_EQ(0, tp_run(&c, &p, epochs[i], 0, &st, err))
				TH_LOG("%s", err);
			EXPECT_EQ(0, memcmp(&first, &st, sizeof(st)))
				TH_LOG("policy %u epoch %llu", policies[m],
				       (unsigned long long)epochs[i]);
		}
	}
	tp_free(&p);
}

TEST(config_names_the_policies)
{
	struct gpu_config c = tp_cpelide_cfg(GPU_CPE_OFF);
	const char *why, *field;

	ASSERT_EQ(0, gpu_config_set(&c, "cpelide=hmg", &why));
	EXPECT_EQ(GPU_CPE_HMG, c.cpelide);
	ASSERT_EQ(0, gpu_config_set(&c, "cpelide=ideal", &why));
	EXPECT_EQ(GPU_CPE_IDEAL, c.cpelide);
	EXPECT_NE(0, gpu_config_set(&c, "cpelide=sometimes", &why));
	/* Every policy with every FinePack mode. */
	c.finepack = GPU_FP_FINEPACK;
	EXPECT_EQ(0, gpu_config_check(&c, GPU_MAX_CHIPLETS, &field, &why));
}

/* ---- With FinePack -------------------------------------------------------- */

static const uint32_t fp_modes[] = {
	GPU_FP_P2P, GPU_FP_WC, GPU_FP_FINEPACK, GPU_FP_DMA,
};

TEST(with_finepack_the_writer_copy_is_written_through)
{
	struct gpu_core_stats st;
	char err[GPU_CORE_ERR_MAX];
	struct tprog p = { 0 };
	uint32_t i, m;

	build_rwr(&p);
	for (m = 0; m < 4; m++) {
		for (i = 0; i < 4; i++) {
			struct gpu_config c = cache_cfg(policies[i]);
			const struct gpu_cpelide_stats *s = &st.cpelide;

			c.finepack = fp_modes[m];
			ASSERT_EQ(0, tp_run(&c, &p, ~0ULL >> 1, 0, &st, err))
				TH_LOG("%s", err);
			EXPECT_EQ(0, s->oracle_violations)
				TH_LOG("mode %u policy %u", fp_modes[m],
				       policies[i]);
			/* The stores went home in packets: nothing dirty. */
			EXPECT_EQ(0, s->sectors_written_back);
			EXPECT_EQ(PAGE, st.finepack.store_bytes);
			EXPECT_EQ(PAGE, st.finepack.delivered_bytes);
			/* Kernel 3 reads the copy the stores updated. */
			if (policies[i] == GPU_CPE_CPELIDE ||
			    policies[i] == GPU_CPE_HMG)
				EXPECT_EQ(PAGE / 32, s->remote_hits)
					TH_LOG("mode %u policy %u", fp_modes[m],
					       policies[i]);
			/*
			 * Mutation: the copy keeps kernel 1's bytes. A policy
			 * that keeps it across the boundary (the writer is not
			 * Stale; HMG's directory skips the writer) reads them.
			 */
			ASSERT_EQ(0, tp_run(&c, &p, ~0ULL >> 1,
					    GPU_CPE_TEST_NO_STORE_UPDATE, &st,
					    err));
			if (policies[i] == GPU_CPE_CPELIDE ||
			    policies[i] == GPU_CPE_HMG)
				EXPECT_EQ(PAGE / 32, s->oracle_read_violations)
					TH_LOG("mode %u policy %u", fp_modes[m],
					       policies[i]);
		}
	}
	tp_free(&p);
}

TEST(with_finepack_a_fill_on_its_way_keeps_the_store)
{
	struct gpu_core_stats st;
	char err[GPU_CORE_ERR_MAX];
	struct tprog p = { 0 };
	uint32_t i, m;

	build_load_store(&p);
	for (m = 0; m < 4; m++) {
		for (i = 0; i < 4; i++) {
			struct gpu_config c = tp_cpelide_cfg(policies[i]);

			c.finepack = fp_modes[m];
			ASSERT_EQ(0, tp_run(&c, &p, ~0ULL >> 1, 0, &st, err))
				TH_LOG("%s", err);
			EXPECT_EQ(0, st.cpelide.oracle_violations)
				TH_LOG("mode %u policy %u", fp_modes[m],
				       policies[i]);
			EXPECT_EQ(PAGE, st.finepack.delivered_bytes);
		}
	}
	tp_free(&p);
}

/* Every policy with every mode on app, as `mcmgpu run --host` runs it. */
static void check_app(struct __test_metadata *_metadata, const char *app)
{
	struct gpu_run_result r = { 0 };
	uint64_t cycles[4];
	char path[128], err[512];
	uint32_t i, m;

	ASSERT_EQ(0, app_prog_file("gpu_cpelide_test", app, 0,
				   path, sizeof(path)));
	for (m = 0; m < 4; m++) {
		for (i = 0; i < 4; i++) {
			struct gpu_run_opts o = { 0 };
			const struct gpu_finepack_stats *f = &r.core.finepack;
			const struct gpu_cpelide_stats *s = &r.core.cpelide;

			o.cfg = gpu_preset_find("cpelide")->cfg;
			o.cfg.cpelide = policies[i];
			o.cfg.finepack = fp_modes[m];
			ASSERT_EQ(0, gpu_run_host(path, &o, &r, err,
						  sizeof(err)))
				TH_LOG("%s", err);
			TH_LOG("%s mode %u policy %u: %llu cycles, %llu bytes "
			       "stored remotely, %llu delivered, %llu remote "
			       "hits", app, fp_modes[m], policies[i],
			       (unsigned long long)r.core.cycles,
			       (unsigned long long)f->store_bytes,
			       (unsigned long long)f->delivered_bytes,
			       (unsigned long long)s->remote_hits);
			EXPECT_EQ(0, s->oracle_violations);
			EXPECT_GT(f->store_bytes, 0);
			/* p2p: each store its write; others merge rewrites. */
			if (fp_modes[m] == GPU_FP_P2P) {
				EXPECT_EQ(f->store_bytes, f->delivered_bytes);
			} else {
				EXPECT_LE(f->delivered_bytes, f->store_bytes);
			}
			/* Both count every kernel. */
			EXPECT_EQ(r.core.kernels, f->kernels);
			EXPECT_EQ(r.core.kernels, s->kernels);
			cycles[i] = r.core.cycles;
			gpu_run_result_free(&r);
		}
		for (i = 0; i < 3; i++)
			EXPECT_LE(cycles[3], cycles[i])
				TH_LOG("%s mode %u: ideal %llu, policy %u %llu",
				       app, fp_modes[m],
				       (unsigned long long)cycles[3],
				       policies[i],
				       (unsigned long long)cycles[i]);
	}
	unlink(path);
}

TEST(with_finepack_gups)
{
	check_app(_metadata, "gups");
}

TEST(with_finepack_bfs)
{
	check_app(_metadata, "bfs");
}

TEST(with_finepack_sort)
{
	check_app(_metadata, "sort");
}

TEST(with_finepack_spmv)
{
	check_app(_metadata, "spmv");
}

/* ---- The paper's hierarchy on CPElide's applications ------------------ */

/*
 * Every application of CPElide's list (Table II, paper_tables.py) at its
 * small size on the cpelide preset's 4 chiplets: no policy lets a read
 * see an older version, and ideal (the oracle's exact write-backs and
 * invalidations at no cost) is no slower than any policy.
 */

/*
 * CPElide's application app at its small size on the cpelide preset at
 * chiplets (the paper's 4; 8 and 16 beyond what it simulates, where
 * 63-cpelide-scale.sh runs them all): under every policy no read sees an
 * older version (the sync masks and the table's state span every
 * chiplet), the L3 slices are reached, and ideal is no slower than any
 * policy.
 */
static void check_policies(struct __test_metadata *_metadata,
			   const char *app, uint32_t chiplets, uint32_t remote)
{
	struct gpu_run_result r = { 0 };
	uint64_t cycles[4];
	char path[128], err[512];
	uint32_t i;

	ASSERT_EQ(0, app_prog_file("gpu_cpelide_test", app, 0,
				   path, sizeof(path)));
	for (i = 0; i < 4; i++) {
		struct gpu_run_opts o = { 0 };
		const struct gpu_cpelide_stats *s = &r.core.cpelide;

		o.cfg = gpu_preset_find("cpelide")->cfg;
		o.cfg.cpelide = policies[i];
		o.cfg.chiplets = chiplets;
		o.cfg.cpe_remote = remote;
		ASSERT_EQ(0, gpu_run_host(path, &o, &r, err, sizeof(err)))
			TH_LOG("%s", err);
		EXPECT_EQ(0, s->oracle_violations)
			TH_LOG("%s at %u policy %u: %llu read, %llu order", app,
			       chiplets, policies[i],
			       (unsigned long long)s->oracle_read_violations,
			       (unsigned long long)s->oracle_order_violations);
		EXPECT_EQ(r.core.kernels, s->kernels);
		/* The L3 slices are the homes: every miss of an L2 reaches one. */
		EXPECT_LT(0, s->l3_accesses);
		cycles[i] = r.core.cycles;
		gpu_run_result_free(&r);
	}
	TH_LOG("%s at %u: baseline %llu cpelide %llu hmg %llu ideal %llu "
	       "cycles", app, chiplets, (unsigned long long)cycles[0],
	       (unsigned long long)cycles[1], (unsigned long long)cycles[2],
	       (unsigned long long)cycles[3]);
	EXPECT_LE(cycles[3], cycles[0]);
	EXPECT_LE(cycles[3], cycles[1]);
	EXPECT_LE(cycles[3], cycles[2]);
	unlink(path);
}

#define BOUND_TEST(name, app)			\
	TEST(ideal_bounds_##name)		\
	{					\
		check_policies(_metadata, app, 4, 0);	\
	}

/* The same with every policy keeping remote lines (cpe_remote=cache). */
TEST(ideal_bounds_cache_bfs)
{
	check_policies(_metadata, "bfs", 4, 1);
}

TEST(ideal_bounds_cache_lud)
{
	check_policies(_metadata, "lud", 4, 1);
}

BOUND_TEST(babelstream, "babelstream")
BOUND_TEST(backprop, "backprop")
BOUND_TEST(bfs, "bfs")
BOUND_TEST(btree, "btree")
BOUND_TEST(cnn, "cnn")
BOUND_TEST(color, "color")
BOUND_TEST(dwt2d, "dwt2d")
BOUND_TEST(fw, "fw")
BOUND_TEST(gauss, "gauss")
BOUND_TEST(hacc, "hacc")
BOUND_TEST(hotspot, "hotspot")
BOUND_TEST(hotspot3d, "hotspot3d")
BOUND_TEST(lud, "lud")
BOUND_TEST(lulesh, "lulesh")
BOUND_TEST(nw, "nw")
BOUND_TEST(path, "path")
BOUND_TEST(pennant, "pennant")
BOUND_TEST(rnn_gru, "rnn-gru")
BOUND_TEST(rnn_lstm, "rnn-lstm")
BOUND_TEST(square, "square")
BOUND_TEST(srad, "srad")
BOUND_TEST(sssp, "sssp")

/*
 * ---- More chiplets than the paper simulates (§VI): a few applications,
 * 63-cpelide-scale.sh runs them all.
 */

#define SCALE_TEST(name, app)				\
	TEST(scale_8_##name)				\
	{						\
		check_policies(_metadata, app, 8, 0);	\
	}						\
	TEST(scale_16_##name)				\
	{						\
		check_policies(_metadata, app, 16, 0);	\
	}

SCALE_TEST(babelstream, "babelstream")
SCALE_TEST(bfs, "bfs")
SCALE_TEST(hotspot3d, "hotspot3d")
SCALE_TEST(lud, "lud")
SCALE_TEST(rnn_gru, "rnn-gru")
SCALE_TEST(square, "square")

/*
 * HMG at 9 chiplets, fw at 128 vertices: a chiplet's load of a sector is
 * on its way when its own store updates its copy; a write to another
 * line of the directory region drops the copy and its other loads make
 * it a sharer again; the old reply arrives before the store reaches the
 * home. It must not be cached (13 stale reads when it was).
 */
TEST(hmg_fill_overtaken_by_its_chiplets_store)
{
	struct gpu_run_result r = { 0 };
	struct gpu_run_opts o = { 0 };
	char path[128], err[512];

	ASSERT_EQ(0, app_prog_file("gpu_cpelide_test", "fw", 128,
				   path, sizeof(path)));
	o.cfg = gpu_preset_find("cpelide")->cfg;
	o.cfg.cpelide = GPU_CPE_HMG;
	o.cfg.chiplets = 9;
	ASSERT_EQ(0, gpu_run_host(path, &o, &r, err, sizeof(err)))
		TH_LOG("%s", err);
	EXPECT_EQ(0, r.core.cpelide.oracle_violations);
	EXPECT_LT(0, r.core.cpelide.dir_invalidations);
	gpu_run_result_free(&r);
	unlink(path);
}

/*
 * A load's data still on its way when its chiplet's atomic (or reduction)
 * to the sector leaves: in kernel 1 chiplet 1 loads a line of page 0
 * (homed on 0), waits wait dependent ALU instructions, then does an
 * atomic on the line; kernel 2 reads the page on chiplet 1.
 */
static void build_load_atomic(struct tprog *p, uint32_t wait, uint32_t kind)
{
	const uint32_t x1[4] = { NONE_PAGE, 0, NONE_PAGE, NONE_PAGE };
	uint32_t b, i;

	tp_object(p, OBJ, PAGES * PAGE, "a");
	tp_kernel(p, 1, "load_atomic", 4, 32, 0);
	for (b = 0; b < 4; b++) {
		tp_block(p, b);
		if (b != 1) {
			tp_warp(p, 0, 1);
			tp_alu(p, PROG_OP_INT, 1, 0);
		} else {
			tp_warp(p, 0, 2 + wait);
			tp_mem(p, PROG_SPACE_GLOBAL, PROG_KIND_LOAD, 4,
			       0xffffffff, OBJ, 4, 1);
			for (i = 0; i < wait; i++)
				tp_alu(p, PROG_OP_INT, 2, 2);
			tp_mem(p, PROG_SPACE_GLOBAL, kind, 4, 0xffffffff, OBJ,
			       4, 3);
		}
		tp_add(p, PROG_REC_BLOCK_END);
	}
	tp_add(p, PROG_REC_KERNEL_END);
	kernel(p, 2, x1, PROG_KIND_LOAD);
	tp_add(p, PROG_REC_END);
}

/*
 * The atomic leaves after the load was served at the home and reaches
 * the home after the load's data is back (waits of 300-334 under HMG,
 * 300-328 under CPElide keeping remote lines, when the atomic was noted
 * at the home only): the old data must not be cached, or kernel 2 reads
 * it (4 stale reads). The waits around the window are scanned, so that
 * a change of latencies still meets it.
 */
TEST(fill_overtaken_by_its_chiplets_atomic)
{
	static const struct {
		uint32_t policy, kind;
	} runs[] = {
		{ GPU_CPE_HMG, PROG_KIND_ATOMIC },
		{ GPU_CPE_HMG, PROG_KIND_REDUCTION },
		{ GPU_CPE_CPELIDE, PROG_KIND_ATOMIC },
	};
	struct gpu_core_stats st;
	char err[GPU_CORE_ERR_MAX];
	uint32_t i, wait;

	for (i = 0; i < ARRAY_SIZE(runs); i++) {
		for (wait = 200; wait < 440; wait += 6) {
			struct gpu_config c = cache_cfg(runs[i].policy);
			struct tprog p = { 0 };

			build_load_atomic(&p, wait, runs[i].kind);
			ASSERT_EQ(0, tp_run(&c, &p, ~0ULL >> 1, 0, &st, err))
				TH_LOG("%s", err);
			EXPECT_EQ(0, st.cpelide.oracle_violations)
				TH_LOG("policy %u kind %u wait %u",
				       runs[i].policy, runs[i].kind, wait);
			tp_free(&p);
		}
	}
}

/*
 * One kernel of 4 blocks (block c on chiplet c): block `who` stores the
 * 16 B at addr (4 lanes of 4 B), the others do one ALU instruction.
 */
static void store16(struct tprog *p, uint32_t id, uint32_t who, uint64_t addr)
{
	uint32_t b;

	tp_kernel(p, id, "store16", 4, 32, 0);
	for (b = 0; b < 4; b++) {
		tp_block(p, b);
		tp_warp(p, 0, 1);
		if (b == who)
			tp_mem(p, PROG_SPACE_GLOBAL, PROG_KIND_STORE, 4, 0xf,
			       addr, 4, 1);
		else
			tp_alu(p, PROG_OP_INT, 1, 0);
		tp_add(p, PROG_REC_BLOCK_END);
	}
	tp_add(p, PROG_REC_KERNEL_END);
}

/*
 * Two objects on one sector (fuzz_gpu_core's cpelide-frame-alias, as
 * the table can see it): a ends 16 B into page 4, b starts there, so
 * with placement=rr both bytes are homed on chiplet 0. Kernel 1:
 * chiplet 0 stores a's last 16 B (local: dirty in its L2); kernel 2:
 * chiplet 1 stores b's first 16 B (remote: to the home's L3). CPElide
 * must flush chiplet 0 before kernel 2 although the rows differ (b's
 * hull overlaps a's), or the end's write-back of the kernel-1 sector
 * lands after the kernel-2 store (an order violation).
 */
TEST(cpelide_flushes_a_dirty_row_another_object_shares_a_line_with)
{
	const uint64_t edge = OBJ + 4 * PAGE;
	struct gpu_core_stats st;
	char err[GPU_CORE_ERR_MAX];
	struct tprog p = { 0 };
	uint32_t i;

	tp_object(&p, OBJ, 4 * PAGE + 16, "a");
	tp_object(&p, edge + 16, PAGE, "b");
	store16(&p, 1, 0, edge);
	store16(&p, 2, 1, edge + 16);
	tp_add(&p, PROG_REC_END);
	for (i = 0; i < 4; i++) {
		struct gpu_config c = tp_cpelide_cfg(policies[i]);

		c.placement = GPU_PLACE_RR;
		ASSERT_EQ(0, tp_run(&c, &p, ~0ULL >> 1, 0, &st, err))
			TH_LOG("%s", err);
		EXPECT_EQ(0, st.cpelide.oracle_violations)
			TH_LOG("policy %u", policies[i]);
		if (policies[i] != GPU_CPE_CPELIDE)
			continue;
		/* Kernel 2 releases chiplet 0 (its one sector) and no other. */
		EXPECT_EQ(1, st.cpelide.sectors_written_back);
		EXPECT_EQ(2, st.cpelide.table_peak_rows);
	}
	tp_free(&p);
}

TEST_HARNESS_MAIN
