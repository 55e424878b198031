// SPDX-License-Identifier: GPL-2.0
/*
 * Host tests of CXL-GPU in the GPU timing core (gpu_cxl.c through
 * gpu_core.c): with cxl off nothing changes; objects in CXL memory have
 * every L2 load miss served by the root complex's endpoints and every
 * write-back sent there; slower media cost cycles, SR turns a
 * sequential read's SSD-DRAM misses into hits, NAIVE, DYN and
 * always-max SR send their MemSpecRds, write-backs start garbage
 * collection unless gc is off, DS makes stores complete
 * at GPU memory speed; every run is the same whatever the epochs.
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
#define BYTES		(256u << 10)	/* 4x the test's L2 */
#define WARPS		16

static struct gpu_config cxl_cfg(uint32_t on, uint32_t media, uint32_t sr,
				 uint32_t ds)
{
	struct gpu_config c = gpu_preset_find("cxl")->cfg;

	c.l2_size = 64u << 10;
	c.cxl = on;
	c.cxl_media = media;
	c.cxl_sr = sr;
	c.cxl_ds = ds;
	return c;
}

/*
 * Objects a and b of BYTES each; one kernel of WARPS blocks (a warp
 * each) streaming its share: loads of a (if load) and stores to b (if
 * store), 128 B an instruction.
 */
static void stream(struct tprog *p, bool load, bool store)
{
	uint32_t per = BYTES / WARPS, w, i;

	tp_object(p, OBJ_A, BYTES, "a");
	tp_object(p, OBJ_B, BYTES, "b");
	tp_kernel(p, 1, "stream", WARPS, 32, 0);
	for (w = 0; w < WARPS; w++) {
		tp_block(p, w);
		tp_warp(p, 0, (per / 128) * (load + store));
		for (i = 0; i < per / 128; i++) {
			uint64_t off = (uint64_t)w * per + i * 128;

			if (load)
				tp_mem(p, PROG_SPACE_GLOBAL, PROG_KIND_LOAD, 4,
				       0xffffffff, OBJ_A + off, 4, 1);
			if (store)
				tp_mem(p, PROG_SPACE_GLOBAL, PROG_KIND_STORE, 4,
				       0xffffffff, OBJ_B + off, 4, 2);
		}
		tp_add(p, PROG_REC_BLOCK_END);
	}
	tp_add(p, PROG_REC_KERNEL_END);
	tp_add(p, PROG_REC_END);
}

/*
 * One warp, one lane: n loads 64 B apart in order, at most 8 in flight
 * (each waited for 8 loads later), with compute between them.
 */
static void chase(struct tprog *p, uint32_t n)
{
	uint32_t i;

	tp_object(p, OBJ_A, (uint64_t)n * 64, "a");
	tp_kernel(p, 1, "chase", 1, 32, 0);
	tp_block(p, 0);
	tp_warp(p, 0, 3 * n);
	for (i = 0; i < n; i++) {
		tp_mem(p, PROG_SPACE_GLOBAL, PROG_KIND_LOAD, 4, 1,
		       OBJ_A + (uint64_t)i * 64, 4, 1 + i % 8);
		tp_alu(p, PROG_OP_INT, 20, 1 + (i + 1) % 8);
		tp_alu(p, PROG_OP_SFU, 21, 21);
	}
	tp_add(p, PROG_REC_BLOCK_END);
	tp_add(p, PROG_REC_KERNEL_END);
	tp_add(p, PROG_REC_END);
}

static const struct mcmgpu_cxl_sim_result zero;

TEST(off_changes_nothing)
{
	struct gpu_config a = cxl_cfg(0, MCMGPU_CXL_MEDIA_ZNAND, 3, 0);
	struct gpu_config b = cxl_cfg(0, MCMGPU_CXL_MEDIA_NAND, 0, 1);
	struct gpu_core_stats sa, sb;
	char err[GPU_CORE_ERR_MAX];
	struct tprog p = { 0 };

	b.cxl_ports = 1;
	b.cxl_first_object = 1;
	stream(&p, true, true);
	ASSERT_EQ(0, tp_run(&a, &p, ~0ULL >> 1, 0, &sa, err)) TH_LOG("%s", err);
	ASSERT_EQ(0, tp_run(&b, &p, ~0ULL >> 1, 0, &sb, err)) TH_LOG("%s", err);
	ASSERT_EQ(0, memcmp(&sa, &sb, sizeof(sa)));
	ASSERT_EQ(0, memcmp(&sa.cxl, &zero, sizeof(zero)));
	ASSERT_LT(0, sa.dram.requests);
	tp_free(&p);
}

TEST(every_l2_load_miss_is_served_by_an_endpoint)
{
	struct gpu_config c = cxl_cfg(1, MCMGPU_CXL_MEDIA_ZNAND, 3, 0);
	struct gpu_core_stats st, off;
	char err[GPU_CORE_ERR_MAX];
	struct tprog p = { 0 };

	stream(&p, true, false);
	ASSERT_EQ(0, tp_run(&c, &p, ~0ULL >> 1, 0, &st, err)) TH_LOG("%s", err);
	ASSERT_EQ(BYTES / 32, st.l2_misses);
	ASSERT_EQ(st.l2_misses, st.cxl.loads);
	ASSERT_EQ(0, st.cxl.stores);
	ASSERT_EQ(0, st.dram.requests);
	ASSERT_EQ(st.cxl.loads, st.cxl.dram_hits + st.cxl.dram_misses);
	/* Only b in CXL memory: a's loads go to DRAM. */
	c.cxl_first_object = 1;
	ASSERT_EQ(0, tp_run(&c, &p, ~0ULL >> 1, 0, &off, err)) TH_LOG("%s", err);
	ASSERT_EQ(0, off.cxl.loads);
	ASSERT_EQ(off.l2_misses, off.dram.requests);
	ASSERT_LT(off.cycles, st.cycles);
	tp_free(&p);
}

TEST(write_backs_are_cxl_stores)
{
	struct gpu_config c = cxl_cfg(1, MCMGPU_CXL_MEDIA_ZNAND, 3, 0);
	struct gpu_core_stats st;
	char err[GPU_CORE_ERR_MAX];
	struct tprog p = { 0 };

	stream(&p, false, true);
	ASSERT_EQ(0, tp_run(&c, &p, ~0ULL >> 1, 0, &st, err)) TH_LOG("%s", err);
	/* Every sector dirty: one 64 B store a two sectors written back. */
	ASSERT_LT(0, st.l2_writebacks);
	ASSERT_EQ(st.l2_writebacks / 2, st.cxl.stores);
	ASSERT_EQ(0, st.cxl.loads);
	ASSERT_EQ(0, st.dram.requests);
	tp_free(&p);
}

TEST(slower_media_more_cycles)
{
	static const uint32_t media[] = {
		MCMGPU_CXL_MEDIA_DRAM, MCMGPU_CXL_MEDIA_OPTANE,
		MCMGPU_CXL_MEDIA_NAND,
	};
	struct gpu_core_stats st, local;
	char err[GPU_CORE_ERR_MAX];
	struct tprog p = { 0 };
	uint64_t last;
	uint32_t i;

	stream(&p, true, true);
	{
		struct gpu_config c = cxl_cfg(0, 0, 0, 0);

		ASSERT_EQ(0, tp_run(&c, &p, ~0ULL >> 1, 0, &local, err));
	}
	last = local.cycles;
	for (i = 0; i < 3; i++) {
		struct gpu_config c = cxl_cfg(1, media[i], 0, 0);

		ASSERT_EQ(0, tp_run(&c, &p, ~0ULL >> 1, 0, &st, err))
			TH_LOG("%s", err);
		ASSERT_LT(last, st.cycles) TH_LOG("media %u", media[i]);
		last = st.cycles;
	}
	tp_free(&p);
}

TEST(sr_prefetches_a_sequential_read_into_the_ssd_dram)
{
	struct gpu_config off = cxl_cfg(1, MCMGPU_CXL_MEDIA_ZNAND,
					MCMGPU_CXL_SR_OFF, 0);
	struct gpu_config sr = cxl_cfg(1, MCMGPU_CXL_MEDIA_ZNAND,
				       MCMGPU_CXL_SR_FULL, 0);
	struct gpu_core_stats so, ss;
	char err[GPU_CORE_ERR_MAX];
	struct tprog p = { 0 };

	chase(&p, 1024);
	ASSERT_EQ(0, tp_run(&off, &p, ~0ULL >> 1, 0, &so, err)) TH_LOG("%s", err);
	ASSERT_EQ(0, tp_run(&sr, &p, ~0ULL >> 1, 0, &ss, err)) TH_LOG("%s", err);
	ASSERT_EQ(1024, so.cxl.loads);
	ASSERT_EQ(1024, ss.cxl.loads);
	ASSERT_EQ(0, so.cxl.specrd_sent);
	ASSERT_LT(0, ss.cxl.specrd_sent);
	ASSERT_LT(so.cxl.dram_hits, ss.cxl.dram_hits);
	/*
	 * Not asserted: fewer cycles. A MemSpecRd's sectors are all ready
	 * at the end of its fill (cxl_srds.c ep_fill), so a warp that waits
	 * for the first line waits for the whole range; on this read SR
	 * costs cycles (docs/gpu.md, CXL-GPU in the core).
	 */
	tp_free(&p);
}

/*
 * Fig 9d's ablation through the core (tools/experiments/64-cxl-core.sh):
 * on a sequential read, NAIVE sends a MemSpecRd for every load, of its
 * 64 B line, which the message rounds to one 256 B unit (cxl_srds.c:
 * (L + 1) x 256 B); always-max sends 1 KiB ones, DYN DevLoad-sized ones (256 B to 1 KiB) that
 * cover several loads each.
 */
TEST(sr_ablation_modes_reach_the_root_ports)
{
	struct gpu_config c = cxl_cfg(1, MCMGPU_CXL_MEDIA_ZNAND,
				      MCMGPU_CXL_SR_NAIVE, 0);
	struct gpu_core_stats sn, sd, sm;
	char err[GPU_CORE_ERR_MAX];
	struct tprog p = { 0 };

	chase(&p, 1024);
	ASSERT_EQ(0, tp_run(&c, &p, ~0ULL >> 1, 0, &sn, err)) TH_LOG("%s", err);
	c.cxl_sr = MCMGPU_CXL_SR_DYN;
	ASSERT_EQ(0, tp_run(&c, &p, ~0ULL >> 1, 0, &sd, err)) TH_LOG("%s", err);
	c.cxl_sr = MCMGPU_CXL_SR_MAX;
	ASSERT_EQ(0, tp_run(&c, &p, ~0ULL >> 1, 0, &sm, err)) TH_LOG("%s", err);
	ASSERT_EQ(1024, sn.cxl.loads);
	ASSERT_EQ(sn.cxl.loads, sn.cxl.specrd_sent);
	ASSERT_EQ(256 * sn.cxl.specrd_sent, sn.cxl.specrd_bytes);
	ASSERT_LT(0, sm.cxl.specrd_sent);
	ASSERT_EQ(1024 * sm.cxl.specrd_sent, sm.cxl.specrd_bytes);
	ASSERT_LT(0, sd.cxl.specrd_sent);
	ASSERT_LT(sd.cxl.specrd_sent, sd.cxl.loads);
	ASSERT_EQ(0, sd.cxl.specrd_bytes % 256);
	ASSERT_LE(256 * sd.cxl.specrd_sent, sd.cxl.specrd_bytes);
	ASSERT_GE(1024 * sd.cxl.specrd_sent, sd.cxl.specrd_bytes);
	tp_free(&p);
}

/*
 * Fig 9e's garbage collection through the core: enough write-backs to
 * one Z-NAND endpoint start it (the aged drive is 512 pages above its
 * threshold, cxl_srds.c), and gc=off (--cxl znand:gc=off) never does.
 */
TEST(write_backs_start_garbage_collection_unless_gc_off)
{
	struct gpu_config c = cxl_cfg(1, MCMGPU_CXL_MEDIA_ZNAND,
				      MCMGPU_CXL_SR_FULL, 0);
	uint32_t bytes = 4u << 20, w, i;
	struct gpu_core_stats on, off;
	char err[GPU_CORE_ERR_MAX];
	struct tprog p = { 0 };

	c.cxl_ports = 1;
	tp_object(&p, OBJ_B, bytes, "b");
	tp_kernel(&p, 1, "fill", WARPS, 32, 0);
	for (w = 0; w < WARPS; w++) {
		tp_block(&p, w);
		tp_warp(&p, 0, bytes / WARPS / 128);
		for (i = 0; i < bytes / WARPS / 128; i++)
			tp_mem(&p, PROG_SPACE_GLOBAL, PROG_KIND_STORE, 4,
			       0xffffffff, OBJ_B + (uint64_t)w * (bytes / WARPS) +
			       i * 128, 4, 2);
		tp_add(&p, PROG_REC_BLOCK_END);
	}
	tp_add(&p, PROG_REC_KERNEL_END);
	tp_add(&p, PROG_REC_END);
	ASSERT_EQ(0, tp_run(&c, &p, ~0ULL >> 1, 0, &on, err)) TH_LOG("%s", err);
	c.cxl_gc = 0;
	ASSERT_EQ(0, tp_run(&c, &p, ~0ULL >> 1, 0, &off, err)) TH_LOG("%s", err);
	ASSERT_LT(512, on.cxl.media_programs);
	ASSERT_LT(0, on.cxl.gc_runs);
	ASSERT_LT(0, on.cxl.devload_so);
	ASSERT_EQ(on.cxl.media_programs, off.cxl.media_programs);
	ASSERT_EQ(0, off.cxl.gc_runs);
	ASSERT_LT(off.cxl.store_latency_max_ps, on.cxl.store_latency_max_ps);
	tp_free(&p);
}

TEST(ds_completes_stores_at_gpu_memory_speed)
{
	struct gpu_config off = cxl_cfg(1, MCMGPU_CXL_MEDIA_ZNAND, 3, 0);
	struct gpu_config ds = cxl_cfg(1, MCMGPU_CXL_MEDIA_ZNAND, 3, 1);
	struct gpu_core_stats so, sd;
	char err[GPU_CORE_ERR_MAX];
	struct tprog p = { 0 };

	stream(&p, false, true);
	ASSERT_EQ(0, tp_run(&off, &p, ~0ULL >> 1, 0, &so, err)) TH_LOG("%s", err);
	ASSERT_EQ(0, tp_run(&ds, &p, ~0ULL >> 1, 0, &sd, err)) TH_LOG("%s", err);
	ASSERT_EQ(so.cxl.stores, sd.cxl.stores);
	ASSERT_EQ(0, so.cxl.ds_staged);
	/* Every store staged or dual-written, and the staged ones flushed. */
	ASSERT_GE(sd.cxl.stores, sd.cxl.ds_staged);
	ASSERT_LE(sd.cxl.ds_flushed, sd.cxl.ds_staged);
	ASSERT_EQ(50000, sd.cxl.store_latency_max_ps);
	ASSERT_LT(50000, so.cxl.store_latency_max_ps);
	tp_free(&p);
}

TEST(deterministic_whatever_the_epochs)
{
	static const uint64_t epochs[] = { ~0ULL >> 1, 1, 7, 1000, 123457 };
	struct gpu_config c = cxl_cfg(1, MCMGPU_CXL_MEDIA_ZNAND,
				      MCMGPU_CXL_SR_FULL, 1);
	struct gpu_core_stats first, st;
	char err[GPU_CORE_ERR_MAX];
	struct tprog p = { 0 };
	uint32_t i;

	stream(&p, true, true);
	ASSERT_EQ(0, tp_run(&c, &p, epochs[0], 0, &first, err)) TH_LOG("%s", err);
	ASSERT_LT(0, first.cxl.loads);
	for (i = 1; i < sizeof(epochs) / sizeof(epochs[0]); i++) {
		ASSERT_EQ(0, tp_run(&c, &p, epochs[i], 0, &st, err));
		ASSERT_EQ(0, memcmp(&first, &st, sizeof(st)))
			TH_LOG("epoch %llu", (unsigned long long)epochs[i]);
	}
	tp_free(&p);
}

TEST(config_names_the_settings)
{
	struct gpu_config c = gpu_preset_find("barre")->cfg;
	const char *why, *field;

	ASSERT_EQ(0, c.cxl);
	ASSERT_EQ(0, gpu_config_set(&c, "cxl=on", &why));
	ASSERT_EQ(0, gpu_config_set(&c, "cxl_media=nand", &why));
	ASSERT_EQ(0, gpu_config_set(&c, "cxl_sr=dyn", &why));
	ASSERT_EQ(1, c.cxl);
	ASSERT_EQ(MCMGPU_CXL_MEDIA_NAND, c.cxl_media);
	ASSERT_EQ(MCMGPU_CXL_SR_DYN, c.cxl_sr);
	ASSERT_EQ(-EINVAL, gpu_config_set(&c, "cxl_media=tape", &why));
	c.cxl_ports = 3;
	ASSERT_EQ(-EINVAL, gpu_config_check(&c, 16, &field, &why));
	ASSERT_STREQ("cxl_ports", field);
}

TEST_HARNESS_MAIN
