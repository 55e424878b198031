// SPDX-License-Identifier: GPL-2.0
/*
 * Host tests of ADSM in the GPU timing core (gpu_adsm.c through
 * gpu_core.c): programs of two objects whose COPY records stand for the
 * CPU's accesses. Off leaves a program without copies as it was; explicit
 * copies cost exactly setup + bytes / bandwidth each; batch moves every
 * object both ways at every launch and sync; lazy only what the CPU
 * touched, a whole object at a time; rolling evicts beyond R and fetches
 * only the blocks read; every run is the same whatever the epochs.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"
#include "gpu_core.h"
#include "../lib/core_run.h"

#define OBJ_A		0x10000000ULL
#define OBJ_B		0x20000000ULL
#define A_BYTES		(64 * 1024ULL)
#define B_BYTES		(32 * 1024ULL)
#define BLOCK		4096ULL
#define BW		8000	/* 8 B a cycle */
#define DMA_LAT		500
#define FAULT_LAT	1000

/* The transfer of bytes alone on the engine. */
#define XFER(bytes)	(DMA_LAT + (bytes) * 1000 / BW)

static struct gpu_config adsm_cfg(uint32_t mode)
{
	struct gpu_config c = gpu_preset_find("adsm")->cfg;

	c.sms = 2;
	c.adsm = mode;
	c.adsm_block = BLOCK;
	c.adsm_rolling = 0;
	c.pcie_bw = BW;
	c.pcie_dma_lat = DMA_LAT;
	c.adsm_fault_lat = FAULT_LAT;
	return c;
}

static void copy(struct tprog *p, uint32_t dir, uint64_t base, uint64_t bytes)
{
	struct prog_rec *r = tp_add(p, PROG_REC_COPY);

	r->copy.dir = dir;
	r->copy.base = base;
	r->copy.bytes = bytes;
}

/* One block, one warp: loads 4 lines of A, adds. */
static void kernel(struct tprog *p, uint32_t id)
{
	uint32_t i;

	tp_kernel(p, id, "k", 1, 32, 0);
	tp_block(p, 0);
	tp_warp(p, 0, 5);
	for (i = 0; i < 4; i++)
		tp_mem(p, PROG_SPACE_GLOBAL, PROG_KIND_LOAD, 4, 0xffffffff,
		       OBJ_A + i * 128, 4, 1);
	tp_alu(p, PROG_OP_INT, 2, 1);
	tp_add(p, PROG_REC_BLOCK_END);
	tp_add(p, PROG_REC_KERNEL_END);
}

static void objects(struct tprog *p)
{
	tp_object(p, OBJ_A, A_BYTES, "a");
	tp_object(p, OBJ_B, B_BYTES, "b");
}

/* The CPU writes all of A, two kernels, reads 8 KiB of A, one more kernel. */
static void build_iter(struct tprog *p)
{
	objects(p);
	copy(p, PROG_COPY_H2D, OBJ_A, A_BYTES);
	kernel(p, 1);
	kernel(p, 2);
	copy(p, PROG_COPY_D2H, OBJ_A, 2 * BLOCK);
	kernel(p, 3);
	tp_add(p, PROG_REC_END);
}

TEST(off_leaves_a_program_without_copies_unchanged)
{
	struct gpu_core_stats plain, timed;
	struct gpu_config c = adsm_cfg(GPU_ADSM_OFF);
	char err[GPU_CORE_ERR_MAX];
	struct tprog p = { 0 };

	objects(&p);
	kernel(&p, 1);
	kernel(&p, 2);
	tp_add(&p, PROG_REC_END);
	c.pcie_copies = 0;
	ASSERT_EQ(0, tp_run(&c, &p, ~0ULL >> 1, 0, &plain, err)) TH_LOG("%s", err);
	c.pcie_copies = 1;
	ASSERT_EQ(0, tp_run(&c, &p, ~0ULL >> 1, 0, &timed, err)) TH_LOG("%s", err);
	/* Everything but the adsm group: launches count there. */
	EXPECT_EQ(0, memcmp(&plain, &timed, offsetof(struct gpu_core_stats, adsm)));
	EXPECT_EQ(2, timed.adsm.launches);
	EXPECT_EQ(0, timed.adsm.transfers);
	EXPECT_EQ(0, timed.adsm.launch_wait_cycles);
	tp_free(&p);
}

TEST(explicit_copies_cost_setup_plus_bytes_over_bandwidth)
{
	struct gpu_core_stats plain, timed;
	struct gpu_config c = adsm_cfg(GPU_ADSM_OFF);
	char err[GPU_CORE_ERR_MAX];
	struct tprog p = { 0 };

	objects(&p);
	copy(&p, PROG_COPY_H2D, OBJ_A, A_BYTES);
	kernel(&p, 1);
	copy(&p, PROG_COPY_D2H, OBJ_B, B_BYTES);
	tp_add(&p, PROG_REC_END);
	c.pcie_copies = 0;
	ASSERT_EQ(0, tp_run(&c, &p, ~0ULL >> 1, 0, &plain, err)) TH_LOG("%s", err);
	EXPECT_EQ(0, plain.adsm.transfers);
	c.pcie_copies = 1;
	ASSERT_EQ(0, tp_run(&c, &p, ~0ULL >> 1, 0, &timed, err)) TH_LOG("%s", err);
	EXPECT_EQ(plain.cycles + XFER(A_BYTES) + XFER(B_BYTES), timed.cycles);
	EXPECT_EQ(A_BYTES, timed.adsm.h2d_bytes);
	EXPECT_EQ(B_BYTES, timed.adsm.d2h_bytes);
	EXPECT_EQ(2, timed.adsm.transfers);
	EXPECT_EQ(2, timed.adsm.copies);
	EXPECT_EQ(XFER(A_BYTES) + XFER(B_BYTES), timed.adsm.xfer_cycles);
	/* Synchronous copies: the host waits for each, whole. */
	EXPECT_EQ(XFER(A_BYTES) + XFER(B_BYTES), timed.adsm.xfer_wait_cycles);
	/*
	 * The copy before the kernel is synchronous: the host launches it
	 * after, with nothing left to wait for; the kernel takes as long.
	 */
	EXPECT_EQ(0, timed.adsm.launch_wait_cycles);
	EXPECT_EQ(plain.cycles, timed.adsm.kernel_cycles);
	EXPECT_EQ(timed.cycles, timed.adsm.modeled_cycles);
	tp_free(&p);
}

TEST(batch_moves_every_object_both_ways_at_every_launch_and_sync)
{
	struct gpu_config c = adsm_cfg(GPU_ADSM_BATCH);
	const struct gpu_adsm_stats *a;
	struct gpu_core_stats st, plain;
	char err[GPU_CORE_ERR_MAX];
	struct tprog p = { 0 };

	build_iter(&p);
	ASSERT_EQ(0, tp_run(&c, &p, ~0ULL >> 1, 0, &st, err)) TH_LOG("%s", err);
	a = &st.adsm;
	EXPECT_EQ(3, a->launches);
	EXPECT_EQ(3, a->syncs);
	EXPECT_EQ(2, a->objects);
	EXPECT_EQ(3 * (A_BYTES + B_BYTES), a->h2d_bytes);
	EXPECT_EQ(3 * (A_BYTES + B_BYTES), a->h2d_call);
	EXPECT_EQ(3 * (A_BYTES + B_BYTES), a->d2h_bytes);
	EXPECT_EQ(3 * (A_BYTES + B_BYTES), a->d2h_call);
	EXPECT_EQ(0, a->faults);
	EXPECT_EQ(0, a->fault_cycles);
	EXPECT_EQ(12, a->transfers);
	/* Each transfer alone on the engine: setup + bytes / bandwidth. */
	EXPECT_EQ(6 * (XFER(A_BYTES) + XFER(B_BYTES)), a->xfer_cycles);
	/* The GPU's time is the same; the transfers add to it, serially. */
	c.adsm = GPU_ADSM_OFF;
	c.pcie_copies = 0;
	ASSERT_EQ(0, tp_run(&c, &p, ~0ULL >> 1, 0, &plain, err)) TH_LOG("%s", err);
	EXPECT_EQ(plain.cycles + a->xfer_cycles, st.cycles);
	EXPECT_EQ(plain.cycles, a->kernel_cycles - a->launch_wait_cycles);
	tp_free(&p);
}

TEST(lazy_moves_only_what_the_cpu_touched)
{
	struct gpu_config c = adsm_cfg(GPU_ADSM_LAZY);
	const struct gpu_adsm_stats *a;
	struct gpu_core_stats st;
	char err[GPU_CORE_ERR_MAX];
	struct tprog p = { 0 };

	build_iter(&p);
	ASSERT_EQ(0, tp_run(&c, &p, ~0ULL >> 1, 0, &st, err)) TH_LOG("%s", err);
	a = &st.adsm;
	/* A written (R -> D), flushed at launch 1; B never moves. */
	EXPECT_EQ(A_BYTES, a->h2d_bytes);
	EXPECT_EQ(A_BYTES, a->h2d_call);
	/* The read of 8 KiB fetches the whole object (I -> R), once. */
	EXPECT_EQ(A_BYTES, a->d2h_bytes);
	EXPECT_EQ(A_BYTES, a->d2h_fault);
	EXPECT_EQ(0, a->d2h_call);
	EXPECT_EQ(2, a->faults);
	EXPECT_EQ(1, a->faults_write_readonly);
	EXPECT_EQ(1, a->faults_read_invalid);
	EXPECT_EQ(2, a->transfers);
	EXPECT_EQ(2 * FAULT_LAT, a->fault_cycles);
	EXPECT_EQ(2 * XFER(A_BYTES), a->xfer_cycles);
	EXPECT_EQ(A_BYTES + 2 * BLOCK, a->cpu_bytes_written + a->cpu_bytes_read);
	tp_free(&p);
}

TEST(rolling_evicts_beyond_r_and_fetches_only_blocks_read)
{
	struct gpu_config c = adsm_cfg(GPU_ADSM_ROLLING);
	const struct gpu_adsm_stats *a;
	struct gpu_core_stats st, lazy;
	char err[GPU_CORE_ERR_MAX];
	struct tprog p = { 0 };
	uint64_t blocks = A_BYTES / BLOCK;

	build_iter(&p);
	c.adsm_rolling = 2;
	ASSERT_EQ(0, tp_run(&c, &p, ~0ULL >> 1, 0, &st, err)) TH_LOG("%s", err);
	a = &st.adsm;
	EXPECT_EQ(BLOCK, a->block_bytes);
	EXPECT_EQ(2, a->rolling);
	/* 16 blocks written: each a fault; all but R evicted early. */
	EXPECT_EQ(blocks - 2, a->evictions);
	EXPECT_EQ((blocks - 2) * BLOCK, a->h2d_eager);
	EXPECT_EQ(2 * BLOCK, a->h2d_call);
	EXPECT_EQ(A_BYTES, a->h2d_bytes);
	EXPECT_EQ(2, a->dirty_peak);
	/* The read of 2 blocks fetches those 2 only. */
	EXPECT_EQ(2 * BLOCK, a->d2h_bytes);
	EXPECT_EQ(2 * BLOCK, a->d2h_fault);
	EXPECT_EQ(blocks, a->faults_write_readonly);
	EXPECT_EQ(2, a->faults_read_invalid);
	EXPECT_EQ(blocks + 2, a->faults);
	/* A transfer a block: the evictions, the flush, the fetches. */
	EXPECT_EQ(blocks + 2, a->transfers);
	EXPECT_EQ((blocks + 2) * XFER(BLOCK), a->xfer_cycles);
	EXPECT_EQ((blocks + 2) * FAULT_LAT, a->fault_cycles);
	/* Fewer bytes than lazy, which fetched all of A back. */
	c.adsm = GPU_ADSM_LAZY;
	ASSERT_EQ(0, tp_run(&c, &p, ~0ULL >> 1, 0, &lazy, err)) TH_LOG("%s", err);
	EXPECT_LT(a->d2h_bytes, lazy.adsm.d2h_bytes);
	tp_free(&p);
}

TEST(rolling_evictions_overlap_the_cpu)
{
	struct gpu_config c = adsm_cfg(GPU_ADSM_ROLLING);
	struct gpu_core_stats st;
	char err[GPU_CORE_ERR_MAX];
	struct tprog p = { 0 };

	/*
	 * The CPU's faults (FAULT_LAT each) are longer than a block's
	 * transfer: every eviction is done when the next fault comes, so
	 * the launch waits only for the last R blocks' flush.
	 */
	objects(&p);
	copy(&p, PROG_COPY_H2D, OBJ_A, A_BYTES);
	kernel(&p, 1);
	tp_add(&p, PROG_REC_END);
	c.adsm_rolling = 1;
	c.adsm_fault_lat = 2 * XFER(BLOCK);
	ASSERT_EQ(0, tp_run(&c, &p, ~0ULL >> 1, 0, &st, err)) TH_LOG("%s", err);
	EXPECT_EQ(A_BYTES / BLOCK - 1, st.adsm.evictions);
	EXPECT_EQ(XFER(BLOCK), st.adsm.launch_wait_cycles);
	tp_free(&p);
}

TEST(same_counters_whatever_the_epochs)
{
	static const uint64_t epochs[] = { 1, 7, 333, 1000000000 };
	struct tprog p = { 0 };
	uint32_t m, i;

	build_iter(&p);
	for (m = GPU_ADSM_OFF; m < GPU_ADSM_NR; m++) {
		struct gpu_config c = adsm_cfg(m);
		struct gpu_core_stats first, st;
		char err[GPU_CORE_ERR_MAX];

		c.adsm_rolling = 3;
		ASSERT_EQ(0, tp_run(&c, &p, epochs[0], 0, &first, err))
			TH_LOG("%s", err);
		for (i = 1; i < 4; i++) {
			ASSERT_EQ(0, tp_run(&c, &p, epochs[i], 0, &st, err))
				TH_LOG("%s", err);
			EXPECT_EQ(0, memcmp(&first, &st, sizeof(st)))
				TH_LOG("mode %u epoch %llu", m,
				       (unsigned long long)epochs[i]);
		}
	}
	tp_free(&p);
}

TEST(a_copy_outside_every_object_is_an_error)
{
	struct gpu_config c = adsm_cfg(GPU_ADSM_LAZY);
	struct gpu_core_stats st;
	char err[GPU_CORE_ERR_MAX];
	struct tprog p = { 0 };

	objects(&p);
	copy(&p, PROG_COPY_H2D, OBJ_A + A_BYTES - 16, 32);
	kernel(&p, 1);
	tp_add(&p, PROG_REC_END);
	EXPECT_EQ(-EINVAL, tp_run(&c, &p, ~0ULL >> 1, 0, &st, err));
	EXPECT_NE(NULL, strstr(err, "in no object")) TH_LOG("%s", err);
	tp_free(&p);
}

TEST(config_names_the_modes)
{
	struct gpu_config c = adsm_cfg(GPU_ADSM_OFF);
	const char *why, *field;

	ASSERT_EQ(0, gpu_config_set(&c, "adsm=rolling", &why));
	EXPECT_EQ(GPU_ADSM_ROLLING, c.adsm);
	ASSERT_EQ(0, gpu_config_set(&c, "adsm=batch", &why));
	EXPECT_EQ(GPU_ADSM_BATCH, c.adsm);
	EXPECT_NE(0, gpu_config_set(&c, "adsm=eager", &why));
	ASSERT_EQ(0, gpu_config_set(&c, "adsm_block=12288", &why));
	EXPECT_EQ(-EINVAL, gpu_config_check(&c, GPU_MAX_CHIPLETS, &field, &why));
	EXPECT_STREQ("adsm_block", field);
	/* Every preset off; only adsm's times its copies. */
	for (uint32_t i = 0; i < gpu_npresets; i++) {
		EXPECT_EQ(GPU_ADSM_OFF, gpu_presets[i].cfg.adsm);
		EXPECT_EQ(!strcmp(gpu_presets[i].name, "adsm"),
			  gpu_presets[i].cfg.pcie_copies);
	}
}

/*
 * ADSM Fig. 12's pattern (notes/adsm.md §4.5, adsm_multipass): the CPU
 * writes all of A in MP_PASSES passes, then a kernel. Rolling sends A
 * MP_PASSES times when its window R x B is smaller than A (each block is
 * evicted before the next pass rewrites it), once when the window holds A.
 */
#define MP_PASSES	4

static void build_multipass(struct tprog *p)
{
	uint32_t i;

	objects(p);
	for (i = 0; i < MP_PASSES; i++)
		copy(p, PROG_COPY_H2D, OBJ_A, A_BYTES);
	kernel(p, 1);
	tp_add(p, PROG_REC_END);
}

TEST(multipass_resends_the_object_unless_the_window_holds_it)
{
	static const struct { uint32_t r; uint64_t block; } runs[] = {
		{ 1, 4096 }, { 1, 32768 }, { 1, 65536 }, { 2, 16384 },
		{ 2, 32768 }, { 4, 8192 }, { 4, 16384 }, { 8, 4096 },
	};
	struct gpu_config c = adsm_cfg(GPU_ADSM_ROLLING);
	char err[GPU_CORE_ERR_MAX];
	struct gpu_core_stats st;
	struct tprog p = { 0 };
	uint32_t i;

	build_multipass(&p);
	for (i = 0; i < sizeof(runs) / sizeof(runs[0]); i++) {
		uint64_t n = A_BYTES / runs[i].block;
		bool fits = runs[i].r * runs[i].block >= A_BYTES;

		c.adsm_rolling = runs[i].r;
		c.adsm_block = runs[i].block;
		ASSERT_EQ(0, tp_run(&c, &p, ~0ULL >> 1, 0, &st, err))
			TH_LOG("%s", err);
		EXPECT_EQ(fits ? A_BYTES : MP_PASSES * A_BYTES, st.adsm.h2d_bytes)
			TH_LOG("R %u, block %llu", runs[i].r,
			       (unsigned long long)runs[i].block);
		/* The first pass's faults, then each evicted block again. */
		EXPECT_EQ(fits ? n : MP_PASSES * n, st.adsm.faults)
			TH_LOG("R %u, block %llu", runs[i].r,
			       (unsigned long long)runs[i].block);
		EXPECT_EQ(fits ? 0 : MP_PASSES * n - runs[i].r,
			  st.adsm.evictions);
	}
	tp_free(&p);
}

/*
 * ADSM Fig. 10's breakdown: the CPU's own work costing nothing, the host's
 * time is its kernels (launch waits included), its faults and the
 * transfers it waits for, and these add up to the run's cycles.
 */
TEST(breakdown_adds_up_to_the_run)
{
	struct gpu_config c;
	char err[GPU_CORE_ERR_MAX];
	struct gpu_core_stats st;
	struct tprog iter = { 0 }, mp = { 0 }, wr = { 0 };
	struct tprog *progs[] = { &iter, &mp, &wr };
	uint32_t m, i;

	build_iter(&iter);
	build_multipass(&mp);
	/*
	 * After a kernel every block is Invalid: each write fetches its block
	 * first, behind the previous block's eviction (rolling).
	 */
	objects(&wr);
	kernel(&wr, 1);
	copy(&wr, PROG_COPY_H2D, OBJ_A, A_BYTES);
	copy(&wr, PROG_COPY_D2H, OBJ_B, B_BYTES);
	kernel(&wr, 2);
	tp_add(&wr, PROG_REC_END);
	for (m = GPU_ADSM_OFF; m < GPU_ADSM_NR; m++) {
		for (i = 0; i < 3; i++) {
			c = adsm_cfg(m);
			c.pcie_copies = 1;
			c.adsm_rolling = 1;
			ASSERT_EQ(0, tp_run(&c, progs[i], ~0ULL >> 1, 0, &st, err))
				TH_LOG("%s", err);
			EXPECT_EQ(st.cycles, st.adsm.kernel_cycles +
				  st.adsm.fault_cycles + st.adsm.xfer_wait_cycles)
				TH_LOG("mode %u, program %u", m, i);
			EXPECT_EQ(st.cycles, st.adsm.modeled_cycles);
			EXPECT_EQ(st.adsm.fault_cycles,
				  st.adsm.faults * FAULT_LAT);
		}
	}
	/*
	 * Rolling on the passes: the host waits for no fetch (the CPU only
	 * writes), the launch for the evictions still on the engine.
	 */
	c = adsm_cfg(GPU_ADSM_ROLLING);
	c.adsm_rolling = 1;
	ASSERT_EQ(0, tp_run(&c, &mp, ~0ULL >> 1, 0, &st, err)) TH_LOG("%s", err);
	EXPECT_EQ(0, st.adsm.xfer_wait_cycles);
	EXPECT_LT(0, st.adsm.launch_wait_cycles);
	EXPECT_LE(st.adsm.launch_wait_cycles, st.adsm.xfer_cycles);
	tp_free(&iter);
	tp_free(&mp);
	tp_free(&wr);
}

TEST_HARNESS_MAIN
