// SPDX-License-Identifier: GPL-2.0
/*
 * Host tests of concurrent streams in the GPU timing core
 * (gpu_core_streams(), docs/cpelide.md "Multi-stream in the core"): two
 * streams on disjoint chiplet groups overlap exactly (a hand-computed
 * case: each runs as fast as alone, one after another takes the sum), a
 * stream-0 kernel waits for every other and everything waits for it, a
 * program whose kernels are all on stream 0 runs as with streams off, a
 * launch's flush on a chiplet still running a kernel keeps that kernel's
 * writes in the table (notes A8), the oracle finds writes and reads racing
 * between streams, and on Table II applications merged as concurrent jobs
 * (mcmgpu workload streams) no policy lets a read see an older version
 * and ideal is no slower than any policy.
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
#include "prog_streams.h"
#include "../lib/core_run.h"
#include "../lib/app_prog.h"

#define OBJ_Q		0x10000000ULL
#define OBJ_P		0x20000000ULL
#define PAGE		4096ULL
#define CHAIN		400	/* dependent ALU instructions of a warp */

static const uint32_t policies[] = {
	GPU_CPE_BASELINE, GPU_CPE_CPELIDE, GPU_CPE_HMG, GPU_CPE_IDEAL,
};

static uint64_t s_epoch = 5000;

/* tp_run() with groups stream groups (0: streams off), s_epoch a call. */
static int s_run(const struct gpu_config *cfg, struct tprog *p,
		 uint32_t groups, struct gpu_core_stats *st, char *err)
{
	return tp_run_streams(cfg, p, s_epoch, 0, groups, st, err);
}

static void s_kernel(struct tprog *p, uint32_t id, uint64_t stream,
		     uint32_t blocks, const char *name)
{
	tp_kernel(p, id, name, blocks, 32, 0);
	p->recs[p->n - 1].kernel.stream = stream;
}

/* A block: chain dependent INT instructions, then what[] (0: nothing). */
static void s_block(struct tprog *p, uint32_t b, uint32_t chain,
		    uint32_t kind, uint64_t addr)
{
	uint32_t i;

	tp_block(p, b);
	tp_warp(p, 0, chain + (kind ? 1 : 0));
	for (i = 0; i < chain; i++)
		tp_alu(p, PROG_OP_INT, 1, 1);
	if (kind)
		tp_mem(p, PROG_SPACE_GLOBAL, kind, 4, 0xffffffff, addr, 4, 2);
	tp_add(p, PROG_REC_BLOCK_END);
}

/* Kernels of 2 blocks, each a chain, on streams[0..n). */
static void build_chains(struct tprog *p, const uint64_t *streams, uint32_t n,
			 uint32_t chain)
{
	uint32_t k;

	for (k = 0; k < n; k++) {
		s_kernel(p, k + 1, streams[k], 2, "chain");
		s_block(p, 0, chain, 0, 0);
		s_block(p, 1, chain, 0, 0);
		tp_add(p, PROG_REC_KERNEL_END);
	}
	tp_add(p, PROG_REC_END);
}

static uint64_t chain_cycles(struct __test_metadata *_metadata,
			     const uint64_t *streams, uint32_t n,
			     uint32_t chain, uint32_t groups, uint32_t policy)
{
	struct gpu_config c = tp_cpelide_cfg(policy);
	struct gpu_core_stats st;
	char err[GPU_CORE_ERR_MAX];
	struct tprog p = { 0 };

	build_chains(&p, streams, n, chain);
	EXPECT_EQ(0, s_run(&c, &p, groups, &st, err)) TH_LOG("%s", err);
	EXPECT_EQ(n, st.kernels);
	tp_free(&p);
	return st.cycles;
}

/*
 * Hand-computed: a warp's chain of CHAIN dependent INT instructions
 * issues one every lat_int cycles, so 2 * CHAIN take CHAIN * lat_int more
 * than CHAIN. Two kernels of 2 such blocks on streams 1 and 2 run on
 * chiplets {0, 1} and {2, 3} at once: exactly as long as one alone; with
 * streams off (or both on stream 1, or both on stream 0) one after the
 * other, each as long as alone.
 */
TEST(two_streams_overlap_on_disjoint_chiplets)
{
	const uint64_t one[1] = { 1 }, two[2] = { 1, 2 }, same[2] = { 1, 1 };
	const uint64_t zero[2] = { 0, 0 };
	struct gpu_config c = tp_cpelide_cfg(GPU_CPE_OFF);
	uint64_t t1, t2, off1, off2;
	uint32_t i;

	t1 = chain_cycles(_metadata, one, 1, CHAIN, 2, GPU_CPE_OFF);
	t2 = chain_cycles(_metadata, one, 1, 2 * CHAIN, 2, GPU_CPE_OFF);
	EXPECT_EQ((uint64_t)CHAIN * c.lat_int, t2 - t1);
	EXPECT_EQ(t1, chain_cycles(_metadata, two, 2, CHAIN, 2, GPU_CPE_OFF));
	off1 = chain_cycles(_metadata, one, 1, CHAIN, 0, GPU_CPE_OFF);
	off2 = chain_cycles(_metadata, two, 2, CHAIN, 0, GPU_CPE_OFF);
	EXPECT_EQ(t1, off1);
	/* The second kernel's blocks start the cycle after the first ends. */
	EXPECT_EQ(2 * off1 + 1, off2);
	EXPECT_EQ(off2,
		  chain_cycles(_metadata, same, 2, CHAIN, 2, GPU_CPE_OFF));
	EXPECT_EQ(off2,
		  chain_cycles(_metadata, zero, 2, CHAIN, 2, GPU_CPE_OFF));
	/* With 4 groups, 2 streams on one chiplet each: still overlapped. */
	EXPECT_EQ(chain_cycles(_metadata, one, 1, CHAIN, 4, GPU_CPE_OFF),
		  chain_cycles(_metadata, two, 2, CHAIN, 4, GPU_CPE_OFF));
	/*
	 * Under every policy the second launch overlaps the first: exactly
	 * where a launch syncs nothing (hmg, ideal; cpelide's second launch
	 * finds nothing to sync); the baseline's second launch flushes and
	 * invalidates every L2 first (its tag walk), so it starts later.
	 */
	for (i = 0; i < 4; i++) {
		uint64_t a = chain_cycles(_metadata, one, 1, CHAIN, 2,
					  policies[i]);
		uint64_t b = chain_cycles(_metadata, two, 2, CHAIN, 2,
					  policies[i]);

		TH_LOG("policy %u: one %llu, two %llu", policies[i],
		       (unsigned long long)a, (unsigned long long)b);
		if (policies[i] == GPU_CPE_BASELINE) {
			EXPECT_LT(a, b);
			EXPECT_LT(b, 2 * a);
		} else {
			EXPECT_EQ(a, b);
		}
	}
}

/*
 * A8: stream 0 writes page 0 of Q on chiplet 0 (dirty in its L2). Then
 * stream 1 (chiplets 0 and 1) computes a while and writes page 0 of P on
 * chiplet 0, while stream 2 (chiplets 2 and 3) reads Q on chiplet 2:
 * its launch flushes chiplet 0 under CPElide, before stream 1's store.
 * A stream-0 kernel then reads P on chiplet 2: the table must still say
 * chiplet 0 holds P dirty (stream 1 wrote it after the flush), or the
 * read finds the home's older version.
 */
static void build_a8(struct tprog *p, uint64_t last_stream)
{
	uint32_t b;

	tp_object(p, OBJ_Q, 4 * PAGE, "q");
	tp_object(p, OBJ_P, 4 * PAGE, "p");
	s_kernel(p, 1, 0, 4, "write_q");
	for (b = 0; b < 4; b++)
		s_block(p, b, 1, PROG_KIND_STORE, OBJ_Q + b * PAGE);
	tp_add(p, PROG_REC_KERNEL_END);
	s_kernel(p, 2, 1, 2, "write_p");
	s_block(p, 0, 2000, PROG_KIND_STORE, OBJ_P);
	s_block(p, 1, 1, 0, 0);
	tp_add(p, PROG_REC_KERNEL_END);
	s_kernel(p, 3, 2, 2, "read_q");
	s_block(p, 0, 1, PROG_KIND_LOAD, OBJ_Q);
	s_block(p, 1, 1, 0, 0);
	tp_add(p, PROG_REC_KERNEL_END);
	s_kernel(p, 4, last_stream, 4, "read_p");
	for (b = 0; b < 4; b++)
		s_block(p, b, 1, b == 2 ? PROG_KIND_LOAD : 0, OBJ_P);
	tp_add(p, PROG_REC_KERNEL_END);
	tp_add(p, PROG_REC_END);
}

TEST(a_flush_under_a_running_kernel_keeps_its_writes)
{
	struct gpu_core_stats st;
	const struct gpu_cpelide_stats *s = &st.cpelide;
	char err[GPU_CORE_ERR_MAX];
	struct tprog p = { 0 };
	uint32_t i;

	build_a8(&p, 0);
	for (i = 0; i < 4; i++) {
		struct gpu_config c = tp_cpelide_cfg(policies[i]);

		ASSERT_EQ(0, s_run(&c, &p, 2, &st, err)) TH_LOG("%s", err);
		EXPECT_EQ(4, s->kernels);
		EXPECT_EQ(0, s->oracle_violations) TH_LOG("policy %u",
							  policies[i]);
		EXPECT_EQ(0, s->stream_races);
		if (policies[i] == GPU_CPE_CPELIDE) {
			/*
			 * read_q's flush of chiplet 0 (Q), read_p's of it
			 * again (P), the end's of chiplets 1-3 (Q's pages).
			 */
			EXPECT_EQ(5, s->l2_flushes);
			EXPECT_EQ(0, s->l2_invalidates);
		}
	}
	tp_free(&p);
}

/*
 * A8 with hulls: stream 1 (chiplets 0 and 1) computes a while, then
 * chiplet 0 writes pages 0 and 2 of X (its hull covers page 1); stream 2
 * (chiplets 2 and 3) writes page 1 on chiplet 2 meanwhile (no byte in
 * common: no race), so its launch marks chiplet 0's X Stale and flushes
 * it. Stream 1's writes come after: the table must still make the
 * stream-0 reader of page 0 (chiplet 2) flush chiplet 0.
 */
static void build_hull(struct tprog *p)
{
	uint32_t b;

	tp_object(p, OBJ_P, 4 * PAGE, "x");
	s_kernel(p, 1, 1, 2, "write_0_2");
	tp_block(p, 0);
	tp_warp(p, 0, 2002);
	for (b = 0; b < 2000; b++)
		tp_alu(p, PROG_OP_INT, 1, 1);
	tp_mem(p, PROG_SPACE_GLOBAL, PROG_KIND_STORE, 4, 0xffffffff, OBJ_P, 4,
	       2);
	tp_mem(p, PROG_SPACE_GLOBAL, PROG_KIND_STORE, 4, 0xffffffff,
	       OBJ_P + 2 * PAGE, 4, 2);
	tp_add(p, PROG_REC_BLOCK_END);
	s_block(p, 1, 1, 0, 0);
	tp_add(p, PROG_REC_KERNEL_END);
	s_kernel(p, 2, 2, 2, "write_1");
	s_block(p, 0, 1, PROG_KIND_STORE, OBJ_P + PAGE);
	s_block(p, 1, 1, 0, 0);
	tp_add(p, PROG_REC_KERNEL_END);
	s_kernel(p, 3, 0, 4, "read_0");
	for (b = 0; b < 4; b++)
		s_block(p, b, 1, b == 2 ? PROG_KIND_LOAD : 0, OBJ_P);
	tp_add(p, PROG_REC_KERNEL_END);
	tp_add(p, PROG_REC_END);
}

TEST(a_stale_mark_under_a_running_kernel_keeps_its_writes)
{
	struct gpu_core_stats st;
	char err[GPU_CORE_ERR_MAX];
	struct tprog p = { 0 };
	uint32_t i;

	build_hull(&p);
	for (i = 0; i < 4; i++) {
		struct gpu_config c = tp_cpelide_cfg(policies[i]);

		ASSERT_EQ(0, s_run(&c, &p, 2, &st, err)) TH_LOG("%s", err);
		EXPECT_EQ(3, st.cpelide.kernels);
		EXPECT_EQ(0, st.cpelide.oracle_violations)
			TH_LOG("policy %u", policies[i]);
		EXPECT_EQ(0, st.cpelide.stream_races);
	}
	tp_free(&p);
}

/*
 * The same with read_p on stream 2 (chiplets 2 and 3; its block 0 reads
 * P on chiplet 2) after read_q: nothing orders it after write_p (stream
 * 1), whose write it reads while write_p may still run: a race the
 * oracle reports, as it does a write of a page another stream writes.
 */
TEST(races_between_streams_are_found)
{
	struct gpu_config c = tp_cpelide_cfg(GPU_CPE_CPELIDE);
	struct gpu_core_stats st;
	char err[GPU_CORE_ERR_MAX];
	struct tprog p = { 0 };

	tp_object(&p, OBJ_P, 4 * PAGE, "p");
	s_kernel(&p, 1, 1, 1, "w1");
	s_block(&p, 0, 500, PROG_KIND_STORE, OBJ_P);
	tp_add(&p, PROG_REC_KERNEL_END);
	s_kernel(&p, 2, 2, 1, "w2");
	s_block(&p, 0, 200, PROG_KIND_STORE, OBJ_P);
	tp_add(&p, PROG_REC_KERNEL_END);
	tp_add(&p, PROG_REC_END);
	ASSERT_EQ(0, s_run(&c, &p, 2, &st, err)) TH_LOG("%s", err);
	EXPECT_GT(st.cpelide.stream_races, 0);
	/* Streams off: one after another, no race. */
	ASSERT_EQ(0, s_run(&c, &p, 0, &st, err)) TH_LOG("%s", err);
	EXPECT_EQ(0, st.cpelide.stream_races);
	tp_free(&p);
}

/* Every counter is the same however the run is cut into calls. */
TEST(epochs_change_nothing)
{
	static const uint64_t epochs[] = { 1, 97, 5000, ~0ULL >> 2 };
	struct gpu_core_stats a, b;
	char err[GPU_CORE_ERR_MAX];
	struct tprog p = { 0 };
	uint32_t i, e;

	build_a8(&p, 0);
	for (i = 0; i < 4; i++) {
		struct gpu_config c = tp_cpelide_cfg(policies[i]);

		s_epoch = epochs[0];
		ASSERT_EQ(0, s_run(&c, &p, 2, &a, err)) TH_LOG("%s", err);
		for (e = 1; e < 4; e++) {
			s_epoch = epochs[e];
			ASSERT_EQ(0, s_run(&c, &p, 2, &b, err))
				TH_LOG("%s", err);
			EXPECT_EQ(0, memcmp(&a, &b, sizeof(a)))
				TH_LOG("policy %u epoch %llu", policies[i],
				       (unsigned long long)epochs[e]);
		}
	}
	s_epoch = 5000;
	tp_free(&p);
}

/* A program on stream 0 runs with streams on exactly as with them off. */
TEST(stream_zero_programs_unchanged)
{
	struct gpu_core_stats a, b;
	char err[GPU_CORE_ERR_MAX];
	struct tprog p = { 0 };
	uint32_t i, grp;

	build_a8(&p, 0);
	/* Every kernel on stream 0. */
	for (i = 0; i < p.n; i++) {
		if (p.recs[i].type == PROG_REC_KERNEL)
			p.recs[i].kernel.stream = 0;
	}
	for (i = 0; i < 4; i++) {
		struct gpu_config c = tp_cpelide_cfg(policies[i]);

		ASSERT_EQ(0, s_run(&c, &p, 0, &a, err)) TH_LOG("%s", err);
		for (grp = 1; grp <= 4; grp *= 2) {
			ASSERT_EQ(0, s_run(&c, &p, grp, &b, err))
				TH_LOG("%s", err);
			EXPECT_EQ(0, memcmp(&a, &b, sizeof(a)))
				TH_LOG("policy %u groups %u: %llu vs %llu cycles",
				       policies[i], grp,
				       (unsigned long long)a.cycles,
				       (unsigned long long)b.cycles);
		}
	}
	tp_free(&p);
}

/*
 * Applications merged as concurrent jobs (jobs copies of app), run with
 * groups stream groups under every policy: the oracle is clean, no race
 * between streams, and ideal is no slower than any policy.
 */
static void check_jobs(struct __test_metadata *_metadata, const char *app,
		       uint32_t jobs, uint32_t groups)
{
	char path[128], merged[160], err[512];
	const char *in[PROG_STREAMS_MAX];
	struct gpu_run_result r = { 0 };
	uint64_t cycles[4];
	uint32_t i;

	ASSERT_EQ(0, app_prog_file("gpu_streams_test", app, 0, path,
				   sizeof(path)));
	for (i = 0; i < jobs; i++)
		in[i] = path;
	snprintf(merged, sizeof(merged), "%s.streams", path);
	ASSERT_EQ(0, prog_streams_merge(in, jobs, merged, false, err,
					sizeof(err))) TH_LOG("%s", err);
	for (i = 0; i < 4; i++) {
		struct gpu_run_opts o = { 0 };
		const struct gpu_cpelide_stats *s = &r.core.cpelide;

		o.cfg = gpu_preset_find("cpelide")->cfg;
		o.cfg.cpelide = policies[i];
		o.streams = groups;
		ASSERT_EQ(0, gpu_run_host(merged, &o, &r, err, sizeof(err)))
			TH_LOG("%s", err);
		TH_LOG("%s x%u on %u groups, policy %u: %llu cycles", app, jobs,
		       groups, policies[i],
		       (unsigned long long)r.core.cycles);
		EXPECT_EQ(0, s->oracle_violations);
		EXPECT_EQ(0, s->stream_races);
		EXPECT_EQ(r.core.kernels, s->kernels);
		cycles[i] = r.core.cycles;
		gpu_run_result_free(&r);
	}
	for (i = 0; i < 3; i++)
		EXPECT_LE(cycles[3], cycles[i])
			TH_LOG("%s: ideal %llu, policy %u %llu", app,
			       (unsigned long long)cycles[3], policies[i],
			       (unsigned long long)cycles[i]);
	unlink(merged);
	unlink(path);
}

TEST(jobs_square)
{
	check_jobs(_metadata, "square", 2, 2);
}

TEST(jobs_babelstream)
{
	check_jobs(_metadata, "babelstream", 2, 2);
}

TEST(jobs_rnn_gru)
{
	check_jobs(_metadata, "rnn-gru", 2, 2);
}

TEST(jobs_hotspot3d)
{
	check_jobs(_metadata, "hotspot3d", 2, 2);
}

TEST(jobs_lud_four_groups)
{
	check_jobs(_metadata, "lud", 4, 4);
}

TEST(jobs_srad_four_on_two_groups)
{
	check_jobs(_metadata, "srad", 4, 2);
}

TEST(jobs_transpose)
{
	check_jobs(_metadata, "transpose", 2, 2);
}

TEST_HARNESS_MAIN
