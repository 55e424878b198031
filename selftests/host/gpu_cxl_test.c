// SPDX-License-Identifier: GPL-2.0
/*
 * Host tests of CXL-GPU in the GPU timing core (gpu_cxl.c through
 * gpu_core.c): with cxl off nothing changes; objects in CXL memory have
 * every L2 load miss served by the root complex's endpoints and every
 * write-back sent there; slower media cost cycles, SR reads a
 * sequential read ahead of its loads at no cost in cycles, NAIVE, DYN and
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
 * Kernel id: one warp, one lane, n loads of object A 64 B apart in order,
 * at most 8 in flight (each waited for 8 loads later), with compute
 * between them.
 */
static void chase_kernel(struct tprog *p, uint32_t id, uint32_t n)
{
	uint32_t i;

	tp_kernel(p, id, "chase", 1, 32, 0);
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
}

/* The chase alone, on an object of its n lines. */
static void chase(struct tprog *p, uint32_t n)
{
	tp_object(p, OBJ_A, (uint64_t)n * 64, "a");
	chase_kernel(p, 1, n);
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

/*
 * The chase reads 4 lines of each 256 B unit. Without SR the first load
 * of a unit reads it from media and the other 3 join that fill (768
 * joins, 256 media reads). With SR each unit's MemSpecRd reaches the
 * endpoint before the unit's first MemRd, so all 1024 loads join a
 * MemSpecRd's fill and only MemSpecRds read media. Not fewer cycles:
 * the chase's 8 loads in flight are 2 units ahead, nearer than one
 * unit's transfer, so each load waits for its unit's transfer either
 * way (the page stays open without SR too). But no more: a load waits
 * only for its own unit, not the MemSpecRd's whole range (cxl_srds.c
 * ep_fill; waiting for the range cost 19 % more cycles here).
 */
TEST(sr_reads_a_sequential_read_ahead_of_its_loads)
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
	ASSERT_EQ(768, so.cxl.dram_joins);
	ASSERT_EQ(256, so.cxl.media_reads);
	ASSERT_LT(0, ss.cxl.specrd_sent);
	ASSERT_EQ(1024, ss.cxl.dram_joins);
	ASSERT_EQ(ss.cxl.specrd_sent, ss.cxl.media_reads);
	ASSERT_LE(ss.cycles, so.cycles);
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

/*
 * The run with the root complex sampled every 'every' cycles
 * (gpu_core_cxl_timeline(), --timeline): *st as tp_run() gives it, the
 * samples in *tl (malloc'ed, *n of them) and the drain's in *after.
 */
static int tl_run(const struct gpu_config *cfg, struct tprog *p,
		  uint64_t epoch, uint64_t every, struct gpu_core_stats *st,
		  struct gpu_cxl_sample **tl, uint64_t *n,
		  struct gpu_cxl_sample *after)
{
	static const struct gpu_core_ops ops = {
		.alloc = core_test_alloc, .free = core_test_free,
	};
	struct gpu_core *g = calloc(1, gpu_core_size(cfg));
	const struct gpu_cxl_sample *s;
	int ret;

	if (!g)
		return -ENOMEM;
	p->pos = 0;
	*tl = NULL;
	ret = gpu_core_init(g, cfg, &ops, NULL, tp_source, p);
	if (!ret)
		ret = gpu_core_cxl_timeline(g, every);
	while (!ret && !gpu_core_done(g))
		ret = gpu_core_run(g, gpu_core_now(g) + epoch);
	if (!ret)
		ret = gpu_core_cxl_samples(g, &s, n, after);
	if (!ret) {
		*tl = malloc(*n * sizeof(*s));
		if (*tl)
			memcpy(*tl, s, *n * sizeof(*s));
		else
			ret = -ENOMEM;
	}
	gpu_core_stats(g, st);
	gpu_core_destroy(g);
	free(g);
	return ret;
}

/*
 * Two kernels: stores to every line of bytes of object b, then one warp's
 * n loads of a 64 B apart (as chase()), whose misses evict b's dirty
 * lines: the write-backs reach the endpoint while the loads run.
 */
static void fill_chase(struct tprog *p, uint32_t bytes, uint32_t n)
{
	uint32_t w, i;

	tp_object(p, OBJ_A, (uint64_t)n * 64, "a");
	tp_object(p, OBJ_B, bytes, "b");
	tp_kernel(p, 1, "fill", WARPS, 32, 0);
	for (w = 0; w < WARPS; w++) {
		tp_block(p, w);
		tp_warp(p, 0, bytes / WARPS / 128);
		for (i = 0; i < bytes / WARPS / 128; i++)
			tp_mem(p, PROG_SPACE_GLOBAL, PROG_KIND_STORE, 4,
			       0xffffffff, OBJ_B + (uint64_t)w * (bytes / WARPS) +
			       i * 128, 4, 2);
		tp_add(p, PROG_REC_BLOCK_END);
	}
	tp_add(p, PROG_REC_KERNEL_END);
	chase_kernel(p, 2, n);
	tp_add(p, PROG_REC_END);
}

#define MAX(a, b)	((a) > (b) ? (a) : (b))

/*
 * The samples and the drain together hold every completion and staging
 * the end-of-run counters count, and the deepest ingress queue.
 */
static void tl_sums(struct __test_metadata *_metadata,
		    const struct gpu_core_stats *st,
		    const struct gpu_cxl_sample *tl, uint64_t n,
		    const struct gpu_cxl_sample *after)
{
	struct gpu_cxl_sample sum = *after;
	uint64_t k;

	for (k = 0; k < n; k++) {
		sum.loads += tl[k].loads;
		sum.load_latency_ps += tl[k].load_latency_ps;
		sum.load_latency_max_ps = MAX(sum.load_latency_max_ps,
					      tl[k].load_latency_max_ps);
		sum.stores += tl[k].stores;
		sum.store_latency_ps += tl[k].store_latency_ps;
		sum.store_latency_max_ps = MAX(sum.store_latency_max_ps,
					       tl[k].store_latency_max_ps);
		sum.ds_staged += tl[k].ds_staged;
		sum.ingress_max = MAX(sum.ingress_max, tl[k].ingress_max);
	}
	ASSERT_EQ(st->cxl.loads, sum.loads);
	ASSERT_EQ(st->cxl.load_latency_ps, sum.load_latency_ps);
	ASSERT_EQ(st->cxl.load_latency_max_ps, sum.load_latency_max_ps);
	ASSERT_EQ(st->cxl.stores, sum.stores);
	ASSERT_EQ(st->cxl.store_latency_ps, sum.store_latency_ps);
	ASSERT_EQ(st->cxl.store_latency_max_ps, sum.store_latency_max_ps);
	ASSERT_EQ(st->cxl.ds_staged, sum.ds_staged);
	ASSERT_EQ(st->cxl.ingress_max, sum.ingress_max);
}

/*
 * Fig 9e's time series (--timeline): one load. Its sample holds it
 * alone; a sample longer than the run is the whole run.
 */
TEST(timeline_one_load)
{
	struct gpu_config c = cxl_cfg(1, MCMGPU_CXL_MEDIA_ZNAND,
				      MCMGPU_CXL_SR_OFF, 0);
	struct gpu_cxl_sample *tl, after;
	char err[GPU_CORE_ERR_MAX];
	struct gpu_core_stats st, plain;
	struct tprog p = { 0 };
	uint64_t n, k, with = 0, queued = 0;

	chase(&p, 1);
	ASSERT_EQ(0, tp_run(&c, &p, ~0ULL >> 1, 0, &plain, err)) TH_LOG("%s", err);
	ASSERT_EQ(1, plain.cxl.loads);
	ASSERT_EQ(0, tl_run(&c, &p, ~0ULL >> 1, plain.cycles + 1, &st, &tl,
			    &n, &after));
	ASSERT_EQ(0, memcmp(&plain, &st, sizeof(st)));
	ASSERT_EQ(1, n);
	ASSERT_EQ(1, tl[0].loads);
	ASSERT_EQ(st.cxl.load_latency_ps, tl[0].load_latency_ps);
	ASSERT_EQ(st.cxl.load_latency_ps, tl[0].load_latency_max_ps);
	ASSERT_EQ(1, tl[0].ingress_max);
	ASSERT_EQ(0, tl[0].stores + tl[0].gc + tl[0].ds_staged +
		  tl[0].ds_held_max);
	ASSERT_EQ(0, after.loads + after.ingress_max);
	free(tl);
	/* A cycle a sample: as many samples as cycles, one with the load. */
	ASSERT_EQ(0, tl_run(&c, &p, ~0ULL >> 1, 1, &st, &tl, &n, &after));
	ASSERT_EQ(0, memcmp(&plain, &st, sizeof(st)));
	ASSERT_EQ(st.cycles, n);
	for (k = 0; k < n; k++) {
		with += tl[k].loads;
		queued += tl[k].ingress_max;
		if (tl[k].loads)
			ASSERT_EQ(st.cxl.load_latency_ps, tl[k].load_latency_ps);
	}
	ASSERT_EQ(1, with);
	/* The controller is free: the load leaves the FIFO as it arrives. */
	ASSERT_EQ(1, queued);
	free(tl);
	tp_free(&p);
}

/*
 * The write-backs of fill() start one garbage collection on the one
 * endpoint. Every --timeline CYCLES gives ceil(cycles / CYCLES) samples,
 * sums equal to the end-of-run counters, and the same run to the byte;
 * the GC marks consecutive samples over its 2 ms (Z-NAND's, cxl_srds.c),
 * and none with gc off.
 */
TEST(timeline_samples_without_changing_the_run)
{
	static const uint64_t every[] = { 1000, 7777, 100000 };
	struct gpu_config c = cxl_cfg(1, MCMGPU_CXL_MEDIA_ZNAND,
				      MCMGPU_CXL_SR_FULL, 0);
	struct gpu_cxl_sample *tl, after;
	struct gpu_core_stats st, plain;
	char err[GPU_CORE_ERR_MAX];
	struct tprog p = { 0 };
	uint32_t i, ds;

	c.cxl_ports = 1;
	fill_chase(&p, 1280u << 10, 1024);
	for (ds = 0; ds < 2; ds++) {
		c.cxl_ds = ds;
		ASSERT_EQ(0, tp_run(&c, &p, ~0ULL >> 1, 0, &plain, err))
			TH_LOG("%s", err);
		ASSERT_EQ(1, plain.cxl.gc_runs);
		for (i = 0; i < 3; i++) {
			uint64_t n, k, first = ~0ULL, last = 0, gc_cycles;

			ASSERT_EQ(0, tl_run(&c, &p, ~0ULL >> 1, every[i], &st,
					    &tl, &n, &after));
			ASSERT_EQ(0, memcmp(&plain, &st, sizeof(st)))
				TH_LOG("ds %u every %llu", ds,
				       (unsigned long long)every[i]);
			ASSERT_EQ((st.cycles + every[i] - 1) / every[i], n);
			tl_sums(_metadata, &st, tl, n, &after);
			for (k = 0; k < n; k++) {
				if (!tl[k].gc)
					continue;
				ASSERT_EQ(1, tl[k].gc);
				first = first < k ? first : k;
				last = k;
			}
			/*
			 * One GC: consecutive samples, 2 ms long, unless it
			 * runs past the end (DS's run ends before it starts).
			 */
			gc_cycles = 2000000ULL * c.clock_mhz / 1000;
			if (!ds) {
				ASSERT_NE(~0ULL, first);
				ASSERT_EQ(0, after.gc);
				ASSERT_LE(gc_cycles / every[i], last - first + 1);
				ASSERT_GE(gc_cycles / every[i] + 2,
					  last - first + 1);
				/*
				 * SR: while the GC holds the channels, the
				 * stalled controller keeps the root port's
				 * 32 memory-queue requests in the ingress
				 * FIFO (Fig 9e), sample after sample.
				 */
				for (k = first; k <= last; k++) {
					ASSERT_EQ(1, tl[k].gc);
					ASSERT_EQ(32, tl[k].ingress_max);
				}
			} else {
				ASSERT_EQ(~0ULL, first);
				ASSERT_EQ(1, after.gc);
				ASSERT_LT(0, st.cxl.ds_staged);
			}
			free(tl);
		}
	}
	/* The same samples whatever the epochs. */
	{
		struct gpu_cxl_sample *again, after2;
		uint64_t n, n2;

		ASSERT_EQ(0, tl_run(&c, &p, ~0ULL >> 1, 7777, &st, &tl, &n,
				    &after));
		ASSERT_EQ(0, tl_run(&c, &p, 1000, 7777, &plain, &again, &n2,
				    &after2));
		ASSERT_EQ(n, n2);
		ASSERT_EQ(0, memcmp(tl, again, n * sizeof(*tl)));
		ASSERT_EQ(0, memcmp(&after, &after2, sizeof(after)));
		free(again);
		free(tl);
		c.cxl_gc = 0;
		ASSERT_EQ(0, tl_run(&c, &p, ~0ULL >> 1, 1000, &st, &tl, &n,
				    &after));
		ASSERT_EQ(0, st.cxl.gc_runs);
		tl_sums(_metadata, &st, tl, n, &after);
		while (n--)
			ASSERT_EQ(0, tl[n].gc);
		ASSERT_EQ(0, after.gc);
		free(tl);
	}
	tp_free(&p);
}

/*
 * Write-backs still in flight when the program ends complete in the
 * drain: they are in "after", not in a sample.
 */
TEST(timeline_after_the_run)
{
	struct gpu_config c = cxl_cfg(1, MCMGPU_CXL_MEDIA_ZNAND,
				      MCMGPU_CXL_SR_FULL, 0);
	struct gpu_cxl_sample *tl, after;
	struct gpu_core_stats st, plain;
	char err[GPU_CORE_ERR_MAX];
	struct tprog p = { 0 };
	uint64_t n, k, stores = 0;

	stream(&p, false, true);
	ASSERT_EQ(0, tp_run(&c, &p, ~0ULL >> 1, 0, &plain, err)) TH_LOG("%s", err);
	ASSERT_EQ(0, tl_run(&c, &p, ~0ULL >> 1, 500, &st, &tl, &n, &after));
	ASSERT_EQ(0, memcmp(&plain, &st, sizeof(st)));
	ASSERT_EQ((st.cycles + 499) / 500, n);
	tl_sums(_metadata, &st, tl, n, &after);
	for (k = 0; k < n; k++)
		stores += tl[k].stores;
	ASSERT_LT(0, after.stores);
	ASSERT_LT(0, stores);
	free(tl);
	tp_free(&p);
}

/* --timeline needs CXL memory, a sample of a cycle or more, and a run. */
TEST(timeline_refuses)
{
	static const struct gpu_core_ops ops = {
		.alloc = core_test_alloc, .free = core_test_free,
	};
	struct gpu_config off = cxl_cfg(0, 0, 0, 0);
	struct gpu_config on = cxl_cfg(1, MCMGPU_CXL_MEDIA_ZNAND, 3, 0);
	struct gpu_core *g = calloc(1, gpu_core_size(&on));
	const struct gpu_cxl_sample *s;
	struct gpu_cxl_sample after;
	struct tprog p = { 0 };
	uint64_t n;

	chase(&p, 1);
	ASSERT_EQ(0, gpu_core_init(g, &off, &ops, NULL, tp_source, &p));
	ASSERT_EQ(-EINVAL, gpu_core_cxl_timeline(g, 100));
	ASSERT_NE(NULL, strstr(gpu_core_error(g), "CXL"));
	gpu_core_destroy(g);
	memset(g, 0, gpu_core_size(&on));
	p.pos = 0;
	ASSERT_EQ(0, gpu_core_init(g, &on, &ops, NULL, tp_source, &p));
	ASSERT_EQ(-EINVAL, gpu_core_cxl_samples(g, &s, &n, &after));
	ASSERT_EQ(-EINVAL, gpu_core_cxl_timeline(g, 0));
	gpu_core_destroy(g);
	free(g);
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
