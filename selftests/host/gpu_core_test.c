// SPDX-License-Identifier: GPL-2.0
/*
 * Host tests of the GPU timing core (qemu-device/model/gpu_core.c):
 * programs built in memory and fed through a source callback. Compute
 * chains cost their latencies, streams their DRAM bandwidth; the counter
 * identities hold with translation through a test IOMMU that answers
 * every request a fixed latency after it leaves; runs are bit for bit
 * the same twice and whatever the epochs; errors name what failed; the
 * block scheduler's choice shows in local and remote L2 accesses. And
 * the speed on a big synthetic program (printed, not asserted).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kselftest_harness.h"
#include "gpu_core.h"
#include "../lib/core_run.h"

/* ---- Running ------------------------------------------------------------ */

#define MAX_REPLIES	4096

struct env {
	uint64_t lat;			/* the test IOMMU's */
	uint64_t frames;		/* all chiplets' */
	struct chiplet_tlb_reply rep[MAX_REPLIES];
	uint32_t nrep;
	uint64_t requests, kernels;
	struct gpu_kernel_stats last;
	int overflow;
};

/* Answers at issue + lat: a PFN from the VPN, spread over the chiplets. */
static void t_ats(void *priv, const struct chiplet_tlb_request *r)
{
	struct env *e = priv;
	struct chiplet_tlb_reply *y;

	e->requests++;
	if (e->nrep == MAX_REPLIES) {
		e->overflow = 1;
		return;
	}
	y = &e->rep[e->nrep++];
	memset(y, 0, sizeof(*y));
	y->tag = r->tag;
	y->pfn = r->vpn % e->frames;
	y->arrive = r->issue + e->lat;
}

static void t_kernel_done(void *priv, const struct gpu_kernel_stats *k)
{
	struct env *e = priv;

	e->kernels++;
	e->last = *k;
}

static const struct gpu_core_ops test_ops = {
	.alloc = core_test_alloc,
	.free = core_test_free,
	.ats_request = t_ats,
	.kernel_done = t_kernel_done,
};

static struct gpu_config small_cfg(uint32_t chiplets, uint32_t sms,
				   uint32_t translate)
{
	struct gpu_config c = gpu_preset_find(GPU_CONFIG_DEFAULT)->cfg;

	c.chiplets = chiplets;
	c.sms = sms;
	c.translate = translate;
	return c;
}

struct run {
	struct gpu_core *g;
	struct env env;
	struct gpu_core_stats st;
	int ret;
	char err[GPU_CORE_ERR_MAX];
};

/*
 * Runs p on cfg in epochs of epoch cycles, delivering every reply after
 * each (the test IOMMU's latency must be at least the epoch).
 */
static int run_prog(struct run *r, const struct gpu_config *cfg,
		    struct tprog *p, uint64_t epoch, uint64_t lat)
{
	size_t size = gpu_core_size(cfg);
	uint64_t guard = 0;
	uint32_t i;

	memset(&r->env, 0, sizeof(r->env));
	r->env.lat = lat;
	r->env.frames = ((uint64_t)cfg->vram_mib << 8) * cfg->chiplets;
	p->pos = 0;
	r->g = size ? calloc(1, size) : NULL;
	if (!r->g)
		return -ENOMEM;
	r->ret = gpu_core_init(r->g, cfg, &test_ops, &r->env, tp_source, p);
	while (!r->ret && !gpu_core_done(r->g) && guard++ < 100000000) {
		r->ret = gpu_core_run(r->g, gpu_core_now(r->g) + epoch);
		for (i = 0; !r->ret && i < r->env.nrep; i++)
			r->ret = gpu_core_deliver(r->g, &r->env.rep[i]);
		r->env.nrep = 0;
	}
	snprintf(r->err, sizeof(r->err), "%s", gpu_core_error(r->g));
	gpu_core_stats(r->g, &r->st);
	gpu_core_destroy(r->g);
	free(r->g);
	r->g = NULL;
	return r->ret;
}

static void check_identities(struct __test_metadata *_metadata,
			     const struct gpu_core_stats *s)
{
	ASSERT_EQ(s->l1_tlb_accesses, s->l1_tlb_hits + s->l1_tlb_misses);
	ASSERT_EQ(s->l2_tlb_accesses, s->l2_tlb_hits + s->l2_tlb_misses);
	ASSERT_EQ(s->ats_requests, s->l2_tlb_misses - s->l2_tlb_mshr_merges);
	ASSERT_EQ(s->ats_replies, s->ats_requests);
	ASSERT_EQ(s->l1_accesses, s->l1_hits + s->l1_misses);
	ASSERT_EQ(s->l2_accesses, s->l2_hits + s->l2_misses);
	ASSERT_EQ(s->l2_accesses, s->l2_local + s->l2_remote);
	ASSERT_EQ(s->l2_tlb_accesses, s->l1_tlb_misses);
}

/* ---- Compute ------------------------------------------------------------ */

#define CHAIN	1000

TEST(compute_dependent_chain)
{
	struct gpu_config c = small_cfg(1, 1, 0);
	struct tprog p = { 0 };
	struct run r;
	int i;

	tp_kernel(&p, 1, "chain", 1, 32, 0);
	tp_block(&p, 0);
	tp_warp(&p, 0, CHAIN);
	for (i = 0; i < CHAIN; i++)
		tp_alu(&p, PROG_OP_INT, 1, 1);
	tp_add(&p, PROG_REC_BLOCK_END);
	tp_add(&p, PROG_REC_KERNEL_END);
	tp_add(&p, PROG_REC_END);
	ASSERT_EQ(0, run_prog(&r, &c, &p, 1000, 1000)) TH_LOG("%s", r.err);
	ASSERT_EQ(CHAIN, r.st.warp_insts);
	ASSERT_EQ(1, r.st.kernels);
	ASSERT_EQ(1, r.st.blocks);
	/* Each instruction waits for the one before: lat_int apart. */
	ASSERT_GE(r.st.cycles, (uint64_t)(CHAIN - 1) * c.lat_int);
	ASSERT_LE(r.st.cycles, (uint64_t)CHAIN * c.lat_int + 10);
	ASSERT_GT(r.st.stall_scoreboard, (uint64_t)(CHAIN - 1) * (c.lat_int - 2));
	ASSERT_EQ(1, r.env.kernels);
	ASSERT_EQ(CHAIN, r.env.last.warp_insts);
	ASSERT_STREQ("chain", r.env.last.name);
	tp_free(&p);
}

TEST(compute_independent)
{
	struct gpu_config c = small_cfg(1, 1, 0);
	struct tprog p = { 0 };
	struct run r;
	int i;

	tp_kernel(&p, 1, "indep", 1, 32, 0);
	tp_block(&p, 0);
	tp_warp(&p, 0, CHAIN);
	for (i = 0; i < CHAIN; i++)
		tp_alu(&p, PROG_OP_FP, 1 + i % 8, 0);
	tp_add(&p, PROG_REC_BLOCK_END);
	tp_add(&p, PROG_REC_KERNEL_END);
	tp_add(&p, PROG_REC_END);
	ASSERT_EQ(0, run_prog(&r, &c, &p, 1000, 1000)) TH_LOG("%s", r.err);
	ASSERT_EQ(CHAIN, r.st.warp_insts);
	ASSERT_EQ(CHAIN * 32, r.st.thread_insts);
	/* One a cycle. */
	ASSERT_GE(r.st.cycles, CHAIN - 1);
	ASSERT_LE(r.st.cycles, CHAIN + 10);
	tp_free(&p);
}

/* ---- Streaming ------------------------------------------------------------ */

#define OBJ_A	0x10000000ULL
#define OBJ_B	0x20000000ULL

TEST(stream_dram_bound)
{
	struct gpu_config c = small_cfg(1, 4, 0);
	struct tprog p = { 0 };
	uint64_t bytes = 8 * 4 * 16 * 128;
	struct run r;
	uint32_t b, w, i;

	c.dram_bw = 32000;	/* 32 B a cycle */
	tp_object(&p, OBJ_A, bytes, "a");
	tp_kernel(&p, 1, "stream", 8, 128, 0);
	for (b = 0; b < 8; b++) {
		tp_block(&p, b);
		for (w = 0; w < 4; w++) {
			tp_warp(&p, w, 16);
			for (i = 0; i < 16; i++)
				tp_mem(&p, PROG_SPACE_GLOBAL, PROG_KIND_LOAD, 4,
				       0xffffffff,
				       OBJ_A + ((b * 4 + w) * 16 + i) * 128, 4,
				       1 + i);
		}
		tp_add(&p, PROG_REC_BLOCK_END);
	}
	tp_add(&p, PROG_REC_KERNEL_END);
	tp_add(&p, PROG_REC_END);
	ASSERT_EQ(0, run_prog(&r, &c, &p, 1000, 1000)) TH_LOG("%s", r.err);
	ASSERT_EQ(bytes, r.st.bytes_loaded);
	ASSERT_EQ(bytes / 32, r.st.sectors);
	ASSERT_EQ(bytes / 128, r.st.lines);
	ASSERT_EQ(bytes / 32, r.st.l2_misses);
	ASSERT_EQ(bytes, r.st.dram.bytes);
	ASSERT_EQ(0, r.st.l2_remote);
	/* Every byte through a 32 B/cycle DRAM. */
	ASSERT_GE(r.st.cycles, bytes * 1000 / c.dram_bw);
	ASSERT_GE(r.st.dram.busy_cycles, bytes * 1000 / c.dram_bw);
	ASSERT_GT(r.st.dram.wait_cycles, 0);
	ASSERT_GT(r.st.stall_memory, 0);
	check_identities(_metadata, &r.st);
	tp_free(&p);
}

/* ---- L1 MSHRs ------------------------------------------------------------- */

/*
 * One warp on one SM loads the sectors at addrs in turn, lane 0 only,
 * each into its own register (no dependence: all issue back to back,
 * long before the first is back). Returns the run's stats.
 */
static void load_sectors(struct __test_metadata *_metadata, uint32_t mshrs,
			 const uint64_t *addrs, uint32_t n, struct run *r)
{
	struct gpu_config c = small_cfg(1, 1, 0);
	struct tprog p = { 0 };
	uint32_t i;

	c.l1_mshrs = mshrs;
	tp_object(&p, OBJ_A, 1 << 20, "a");
	tp_kernel(&p, 1, "loads", 1, 32, 0);
	tp_block(&p, 0);
	tp_warp(&p, 0, n);
	for (i = 0; i < n; i++)
		tp_mem(&p, PROG_SPACE_GLOBAL, PROG_KIND_LOAD, 4, 1, addrs[i], 4,
		       1 + i);
	tp_add(&p, PROG_REC_BLOCK_END);
	tp_add(&p, PROG_REC_KERNEL_END);
	tp_add(&p, PROG_REC_END);
	ASSERT_EQ(0, run_prog(r, &c, &p, 1000, 1000)) TH_LOG("%s", r->err);
	ASSERT_EQ(n, r->st.l1_misses);
	check_identities(_metadata, &r->st);
	tp_free(&p);
}

/* Two loads of one sector in flight: one MSHR, one request to the L2. */
TEST(l1_mshr_merges_two_loads_of_a_sector)
{
	const uint64_t a[2] = { OBJ_A + 0x40, OBJ_A + 0x40 };
	struct run r;

	load_sectors(_metadata, 16, a, 2, &r);
	ASSERT_EQ(1, r.st.l2_accesses);
	ASSERT_EQ(1, r.st.dram.requests);
}

/*
 * x, y, x again, z, y again, then u and v: sectors of 5 lines (u and v
 * fresh), loaded by load_sectors() with mshrs MSHRs.
 */
static void xyz_pattern(struct __test_metadata *_metadata, uint32_t mshrs,
			uint64_t x, uint64_t y, uint64_t z, struct run *r)
{
	const uint64_t a[7] = { x, y, x, z, y, OBJ_A + 0x80000,
				OBJ_A + 0x80100 };

	load_sectors(_metadata, mshrs, a, 7, r);
}

/*
 * Sectors of other lines in one bucket of the MSHR hash (2 MSHRs, so 2
 * buckets) stay apart: x, y, x again, z and y again, all colliding, go
 * to the L2 once each (x and y merge their second loads; z waits for an
 * MSHR and takes x's when its data is back, x unlinked from behind y in
 * its bucket's chain), and the run takes exactly as long as with x and
 * y in different buckets: the hash only finds MSHRs faster.
 */
TEST(l1_mshr_hash_keeps_colliding_sectors_apart)
{
	uint64_t x = OBJ_A, y, z, y2;
	uint32_t bx = gpu_core_mshr_bucket(x, 1);
	struct run r, apart, r3;

	for (y = x + 128; gpu_core_mshr_bucket(y, 1) != bx; y += 128)
		;
	for (z = y + 128; gpu_core_mshr_bucket(z, 1) != bx; z += 128)
		;
	for (y2 = x + 128; gpu_core_mshr_bucket(y2, 1) == bx; y2 += 128)
		;
	xyz_pattern(_metadata, 2, x, y, z, &r);
	ASSERT_EQ(5, r.st.l2_accesses);
	ASSERT_EQ(5, r.st.dram.requests);
	xyz_pattern(_metadata, 2, x, y2, z, &apart);
	ASSERT_EQ(5, apart.st.l2_accesses);
	ASSERT_EQ(apart.st.cycles, r.st.cycles);
	/* z waited for an MSHR: with a third one free it is faster. */
	xyz_pattern(_metadata, 3, x, y, z, &r3);
	ASSERT_EQ(5, r3.st.l2_accesses);
	ASSERT_GT(r.st.cycles, r3.st.cycles);
}

/* ---- A mixed kernel with translation --------------------------------------- */

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* blocks of 4 warps: loads, stores, atomics, shared, ALU and a barrier. */
static void mixed(struct tprog *p, uint32_t blocks, uint32_t kernels)
{
	uint64_t s = 12345;
	uint32_t k, b, w, i;

	tp_object(p, OBJ_A, 256 << 10, "a");
	tp_object(p, OBJ_B, 64 << 10, "b");
	for (k = 0; k < kernels; k++) {
		tp_kernel(p, k + 1, "mixed", blocks, 128, 1024);
		for (b = 0; b < blocks; b++) {
			tp_block(p, b);
			for (w = 0; w < 4; w++) {
				tp_warp(p, w, 40);
				for (i = 0; i < 40; i++) {
					uint64_t x = rnd(&s);
					uint64_t off = (x >> 8) % ((256 << 10) - 4096);

					switch (x % 8) {
					case 0:
					case 1:
						tp_mem(p, PROG_SPACE_GLOBAL,
						       PROG_KIND_LOAD, 4, 0xffffffff,
						       OBJ_A + (off & ~127ULL), 4,
						       1 + i % 8);
						break;
					case 2:
						tp_mem(p, PROG_SPACE_GLOBAL,
						       PROG_KIND_LOAD, 8, 0xffff00ff,
						       OBJ_A + off, 72, 9);
						break;
					case 3:
						tp_mem(p, PROG_SPACE_GLOBAL,
						       PROG_KIND_STORE, 4, 0xffffffff,
						       OBJ_B + (off % (60 << 10)), 4, 2);
						break;
					case 4:
						tp_mem(p, PROG_SPACE_GLOBAL,
						       PROG_KIND_ATOMIC, 4, 0x0000ffff,
						       OBJ_B + (off % (60 << 10)), 8, 3);
						break;
					case 5:
						tp_mem(p, PROG_SPACE_SHARED,
						       PROG_KIND_LOAD, 4, 0xffffffff,
						       0x100, 4, 4);
						break;
					default:
						tp_alu(p, PROG_OP_FP, 1 + x % 10,
						       1 + (x >> 4) % 10);
						break;
					}
					if (i == 20)
						tp_alu(p, PROG_OP_BARRIER, 0, 0);
				}
			}
			tp_add(p, PROG_REC_BLOCK_END);
		}
		tp_add(p, PROG_REC_KERNEL_END);
	}
	tp_add(p, PROG_REC_END);
}

/* The barrier is an extra instruction in each warp: fix the counts. */
static void mixed_fix(struct tprog *p)
{
	size_t i;

	for (i = 0; i < p->n; i++)
		if (p->recs[i].type == PROG_REC_WARP)
			p->recs[i].warp.insts = 41;
}

TEST(identities_translate)
{
	struct gpu_config c = small_cfg(2, 2, 1);
	struct tprog p = { 0 };
	struct run r;

	c.l1_tlb_entries = 8;
	c.l1_tlb_ways = 8;
	c.l2_tlb_entries = 16;
	c.l2_tlb_ways = 4;
	c.l2_tlb_mshrs = 4;
	c.l2_size = 64 << 10;
	mixed(&p, 16, 2);
	mixed_fix(&p);
	ASSERT_EQ(0, run_prog(&r, &c, &p, 300, 600)) TH_LOG("%s", r.err);
	ASSERT_EQ(0, r.env.overflow);
	ASSERT_EQ(2, r.st.kernels);
	ASSERT_EQ(2, r.env.kernels);
	ASSERT_EQ(32, r.st.blocks);
	ASSERT_EQ(128, r.st.warps);
	ASSERT_EQ(128 * 41, r.st.warp_insts);
	ASSERT_EQ(32, r.st.barriers);	/* one a block */
	ASSERT_GT(r.st.global_loads, 0);
	ASSERT_GT(r.st.global_stores, 0);
	ASSERT_GT(r.st.global_atomics, 0);
	ASSERT_GT(r.st.shared_insts, 0);
	ASSERT_GT(r.st.ats_requests, 0);
	ASSERT_GT(r.st.l2_tlb_mshr_merges, 0);
	ASSERT_EQ(r.env.requests, r.st.ats_requests);
	ASSERT_EQ(r.st.ats_round_trip, r.st.ats_replies * 600);
	ASSERT_GT(r.st.l2_remote, 0);
	ASSERT_GT(r.st.l2_local, 0);
	ASSERT_GT(r.st.link.bytes, 0);
	ASSERT_GT(r.st.stall_translation, 0);
	ASSERT_EQ(0, r.st.translation_faults);
	ASSERT_LE(r.env.last.end, r.st.cycles);
	ASSERT_GT(r.env.last.start, 0);
	check_identities(_metadata, &r.st);
	tp_free(&p);
}

TEST(deterministic_and_epoch_independent)
{
	struct gpu_config c = small_cfg(2, 2, 1);
	struct gpu_core_stats a, b;
	struct tprog p = { 0 };
	struct run r;

	c.l2_tlb_mshrs = 4;
	mixed(&p, 16, 2);
	mixed_fix(&p);
	ASSERT_EQ(0, run_prog(&r, &c, &p, 1000, 1000)) TH_LOG("%s", r.err);
	a = r.st;
	ASSERT_EQ(0, run_prog(&r, &c, &p, 1000, 1000)) TH_LOG("%s", r.err);
	b = r.st;
	ASSERT_EQ(0, memcmp(&a, &b, sizeof(a)));
	ASSERT_EQ(0, run_prog(&r, &c, &p, 100, 1000)) TH_LOG("%s", r.err);
	b = r.st;
	ASSERT_EQ(a.cycles, b.cycles);
	ASSERT_EQ(0, memcmp(&a, &b, sizeof(a)));
	ASSERT_EQ(0, run_prog(&r, &c, &p, 377, 1000)) TH_LOG("%s", r.err);
	b = r.st;
	ASSERT_EQ(0, memcmp(&a, &b, sizeof(a)));
	/* Translation off: the same twice too. */
	c.translate = 0;
	ASSERT_EQ(0, run_prog(&r, &c, &p, 1000, 1000)) TH_LOG("%s", r.err);
	a = r.st;
	ASSERT_EQ(0, run_prog(&r, &c, &p, 50, 1000)) TH_LOG("%s", r.err);
	ASSERT_EQ(0, memcmp(&a, &r.st, sizeof(a)));
	check_identities(_metadata, &a);
	tp_free(&p);
}

/* ---- Errors ----------------------------------------------------------------- */

TEST(error_address_in_no_object)
{
	struct gpu_config c = small_cfg(1, 1, 0);
	struct tprog p = { 0 };
	struct run r;

	tp_object(&p, OBJ_A, 4096, "a");
	tp_kernel(&p, 1, "wild", 2, 64, 0);
	tp_block(&p, 0);
	tp_warp(&p, 0, 1);
	tp_alu(&p, PROG_OP_INT, 1, 0);
	tp_add(&p, PROG_REC_BLOCK_END);
	tp_block(&p, 1);
	tp_warp(&p, 1, 3);
	tp_alu(&p, PROG_OP_INT, 1, 0);
	tp_mem(&p, PROG_SPACE_GLOBAL, PROG_KIND_LOAD, 4, 0xffffffff, OBJ_A, 4, 2);
	tp_mem(&p, PROG_SPACE_GLOBAL, PROG_KIND_LOAD, 4, 0x3, OBJ_A + 4092, 4, 2);
	tp_add(&p, PROG_REC_BLOCK_END);
	tp_add(&p, PROG_REC_KERNEL_END);
	tp_add(&p, PROG_REC_END);
	ASSERT_EQ(-EFAULT, run_prog(&r, &c, &p, 1000, 1000));
	ASSERT_NE(NULL, strstr(r.err, "kernel 1 (wild) block (1,0,0) warp 1 "
			       "inst 2 (pc 0x")) TH_LOG("%s", r.err);
	ASSERT_NE(NULL, strstr(r.err, "address 0x10001000 is in no object"))
		TH_LOG("%s", r.err);
	tp_free(&p);
}

TEST(error_shared_memory)
{
	struct gpu_config c = small_cfg(1, 1, 0);
	struct tprog p = { 0 };
	struct run r;

	tp_kernel(&p, 1, "fat", 1, 32, c.shmem_per_sm + 1);
	tp_block(&p, 0);
	tp_warp(&p, 0, 1);
	tp_alu(&p, PROG_OP_INT, 1, 0);
	tp_add(&p, PROG_REC_BLOCK_END);
	tp_add(&p, PROG_REC_KERNEL_END);
	tp_add(&p, PROG_REC_END);
	ASSERT_EQ(-E2BIG, run_prog(&r, &c, &p, 1000, 1000));
	ASSERT_NE(NULL, strstr(r.err, "kernel 1 (fat)")) TH_LOG("%s", r.err);
	ASSERT_NE(NULL, strstr(r.err, "shmem_per_sm")) TH_LOG("%s", r.err);
	tp_free(&p);
}

TEST(error_bad_tag_and_late_reply)
{
	struct gpu_config c = small_cfg(1, 1, 1);
	size_t size = gpu_core_size(&c);
	struct chiplet_tlb_reply y = { 0 };
	struct tprog p = { 0 };
	struct env *e = calloc(1, sizeof(*e));
	struct gpu_core *g = calloc(1, size);
	int i;

	ASSERT_NE(NULL, g);
	tp_object(&p, OBJ_A, 4096, "a");
	tp_kernel(&p, 1, "k", 1, 32, 0);
	tp_block(&p, 0);
	tp_warp(&p, 0, 1);
	tp_mem(&p, PROG_SPACE_GLOBAL, PROG_KIND_LOAD, 4, 0xffffffff, OBJ_A, 4, 1);
	tp_add(&p, PROG_REC_BLOCK_END);
	tp_add(&p, PROG_REC_KERNEL_END);
	tp_add(&p, PROG_REC_END);
	e->lat = 1000;
	e->frames = 1 << 14;

	/* A tag never sent. */
	ASSERT_EQ(0, gpu_core_init(g, &c, &test_ops, e, tp_source, &p));
	ASSERT_EQ(0, gpu_core_run(g, 200));
	ASSERT_EQ(1, e->nrep);
	ASSERT_EQ(~0ULL, gpu_core_next_event(g));
	y = e->rep[0];
	y.tag = 99;
	ASSERT_EQ(-EINVAL, gpu_core_deliver(g, &y));
	ASSERT_NE(NULL, strstr(gpu_core_error(g), "tag 99 was never sent"));
	ASSERT_EQ(-EINVAL, gpu_core_run(g, 300));
	gpu_core_destroy(g);

	/* A tag answered twice. */
	p.pos = 0;
	e->nrep = 0;
	ASSERT_EQ(0, gpu_core_init(g, &c, &test_ops, e, tp_source, &p));
	ASSERT_EQ(0, gpu_core_run(g, 200));
	ASSERT_EQ(0, gpu_core_deliver(g, &e->rep[0]));
	ASSERT_EQ(-EINVAL, gpu_core_deliver(g, &e->rep[0]));
	ASSERT_NE(NULL, strstr(gpu_core_error(g), "already answered"));
	gpu_core_destroy(g);

	/* A reply arriving in the past. */
	p.pos = 0;
	e->nrep = 0;
	ASSERT_EQ(0, gpu_core_init(g, &c, &test_ops, e, tp_source, &p));
	ASSERT_EQ(0, gpu_core_run(g, 200));
	y = e->rep[0];
	y.arrive = 150;
	ASSERT_EQ(-EINVAL, gpu_core_deliver(g, &y));
	ASSERT_NE(NULL, strstr(gpu_core_error(g), "before the current cycle"));
	gpu_core_destroy(g);

	/* And the good run: done after the reply. */
	p.pos = 0;
	e->nrep = 0;
	ASSERT_EQ(0, gpu_core_init(g, &c, &test_ops, e, tp_source, &p));
	ASSERT_EQ(0, gpu_core_run(g, 200));
	ASSERT_EQ(0, gpu_core_deliver(g, &e->rep[0]));
	for (i = 0; i < 10 && !gpu_core_done(g); i++)
		ASSERT_EQ(0, gpu_core_run(g, gpu_core_now(g) + 1000));
	ASSERT_TRUE(gpu_core_done(g));
	gpu_core_destroy(g);
	free(g);
	free(e);
	tp_free(&p);
}

/* ---- Thread blocks to chiplets ------------------------------------------------ */

/* Block i reads page i of an object whose pages are kwc-placed. */
static void paged(struct tprog *p, uint32_t blocks)
{
	uint32_t b, i;

	tp_object(p, OBJ_A, (uint64_t)blocks * 4096, "a");
	tp_kernel(p, 1, "paged", blocks, 32, 0);
	for (b = 0; b < blocks; b++) {
		tp_block(p, b);
		tp_warp(p, 0, 8);
		for (i = 0; i < 8; i++)
			tp_mem(p, PROG_SPACE_GLOBAL, PROG_KIND_LOAD, 4,
			       0xffffffff, OBJ_A + b * 4096ULL + i * 128, 4,
			       1 + i);
		tp_add(p, PROG_REC_BLOCK_END);
	}
	tp_add(p, PROG_REC_KERNEL_END);
	tp_add(p, PROG_REC_END);
}

TEST(tb_sched_rr_vs_chunk)
{
	struct gpu_config c = small_cfg(2, 1, 0);
	struct tprog p = { 0 };
	struct run r;

	c.placement = GPU_PLACE_KWC;
	paged(&p, 16);
	c.tb_sched = GPU_TB_CHUNK;
	ASSERT_EQ(0, run_prog(&r, &c, &p, 1000, 1000)) TH_LOG("%s", r.err);
	ASSERT_EQ(16 * 8 * 4, r.st.l2_accesses);
	ASSERT_EQ(0, r.st.l2_remote);
	ASSERT_EQ(0, r.st.link.bytes);
	c.tb_sched = GPU_TB_RR;
	ASSERT_EQ(0, run_prog(&r, &c, &p, 1000, 1000)) TH_LOG("%s", r.err);
	ASSERT_EQ(16 * 8 * 4 / 2, r.st.l2_remote);
	ASSERT_EQ(16 * 8 * 4 / 2, r.st.l2_local);
	/* Requests 8 B, replies 40 B, each through two ports. */
	ASSERT_EQ(16 * 8 * 4 / 2 * (8 + 40) * 2, r.st.link.bytes);
	tp_free(&p);
}

TEST(page_home)
{
	struct gpu_object o = { .size = 10 * 4096, .policy = GPU_PLACE_CHUNK,
				.g = 2 };

	ASSERT_EQ(0, gpu_object_page_home(&o, 1, 4));
	ASSERT_EQ(1, gpu_object_page_home(&o, 2, 4));
	ASSERT_EQ(3, gpu_object_page_home(&o, 7, 4));
	ASSERT_EQ(0, gpu_object_page_home(&o, 8, 4));
	o.policy = GPU_PLACE_RR;
	ASSERT_EQ(3, gpu_object_page_home(&o, 7, 4));
	o.policy = GPU_PLACE_KWC;	/* 3 pages a chiplet */
	ASSERT_EQ(0, gpu_object_page_home(&o, 2, 4));
	ASSERT_EQ(1, gpu_object_page_home(&o, 3, 4));
	ASSERT_EQ(3, gpu_object_page_home(&o, 9, 4));
}

/* ---- First touch (placement ft) ---------------------------------------------------- */

/*
 * Kernel id of nb blocks of one warp: block b loads line id - 1 of each
 * page in touch[b] (a list ended by ~0u; pages of OBJ_A), so a later
 * kernel misses the L1s, which keep lines across kernels. 4 chiplets,
 * chunk scheduling: with 4 blocks block b runs on chiplet b, with 8
 * blocks 2b and 2b + 1 on chiplet b.
 */
static void ft_kernel(struct tprog *p, uint32_t id, uint32_t nb,
		      const uint32_t (*touch)[4])
{
	uint32_t b, i;

	tp_kernel(p, id, "touch", nb, 32, 0);
	for (b = 0; b < nb; b++) {
		tp_block(p, b);
		for (i = 0; i < 4 && touch[b][i] != ~0u; i++)
			;
		tp_warp(p, 0, i ? i : 1);
		if (!i)
			tp_alu(p, PROG_OP_INT, 1, 0);
		for (i = 0; i < 4 && touch[b][i] != ~0u; i++)
			tp_mem(p, PROG_SPACE_GLOBAL, PROG_KIND_LOAD, 4,
			       0xffffffff, OBJ_A + touch[b][i] * 4096ULL +
			       (id - 1) * 128ULL, 4, 1 + i);
		tp_add(p, PROG_REC_BLOCK_END);
	}
	tp_add(p, PROG_REC_KERNEL_END);
}

static struct gpu_config ft_cfg(uint32_t placement)
{
	struct gpu_config c = small_cfg(4, 1, 0);

	c.tb_sched = GPU_TB_CHUNK;
	c.placement = placement;
	return c;
}

/*
 * Runs kernels k1 then k2 (nb blocks each, ft_kernel()) over a 16-page
 * object on c; r holds the stats.
 */
static void ft_run(struct __test_metadata *_metadata,
		   const struct gpu_config *c, uint32_t nb,
		   const uint32_t (*k1)[4], const uint32_t (*k2)[4],
		   struct run *r)
{
	struct tprog p = { 0 };

	tp_object(&p, OBJ_A, 16 * 4096, "a");
	ft_kernel(&p, 1, nb, k1);
	ft_kernel(&p, 2, nb, k2);
	tp_add(&p, PROG_REC_END);
	ASSERT_EQ(0, run_prog(r, c, &p, 1000, 1000)) TH_LOG("%s", r->err);
	tp_free(&p);
}

#define N	~0u
#define LINE_SECTORS	4	/* a 128 B load: 4 sectors, one L2 access each */

/*
 * Block b touches page 4 ((b + 1) mod 4), twice: under kwc (4 pages a
 * chiplet) that page lives on chiplet (b + 1) mod 4, so every access is
 * remote; under first touch it lives where block b runs.
 */
TEST(first_touch_homes_a_page_where_it_is_first_touched)
{
	static const uint32_t t[4][4] = {
		{ 4, N }, { 8, N }, { 12, N }, { 0, N } };
	struct gpu_config c = ft_cfg(GPU_PLACE_KWC);
	struct run r;

	ft_run(_metadata, &c, 4, t, t, &r);
	EXPECT_EQ(0, r.st.l2_local);
	EXPECT_EQ(2 * 4 * LINE_SECTORS, r.st.l2_remote);
	c = ft_cfg(GPU_PLACE_FT);
	ft_run(_metadata, &c, 4, t, t, &r);
	EXPECT_EQ(2 * 4 * LINE_SECTORS, r.st.l2_local);
	EXPECT_EQ(0, r.st.l2_remote);
}

/*
 * Eight blocks, two a chiplet. Page 1: block 1 (chiplet 0, its second
 * block) and block 2 (chiplet 1, its first) touch it; block 1 is read
 * first, but block 2 starts first, so page 1 lives on chiplet 1. Page 2:
 * blocks 0 and 4, each first on its chiplet: the lower chiplet, 0. Page
 * 3: block 6 (chiplet 3) in kernel 1; kernel 2's block 0 does not move
 * it. Kernel 1: local b0, b2, b6, remote b1, b4. Kernel 2: block 0 reads
 * page 2 (local) and page 3 (remote), block 2 page 1 (local).
 */
TEST(first_touch_is_by_dispatch_position_and_keeps_its_home)
{
	static const uint32_t k1[8][4] = {
		{ 2, N }, { 1, N }, { 1, N }, { N }, { 2, N }, { N }, { 3, N },
		{ N } };
	static const uint32_t k2[8][4] = {
		{ 2, 3, N }, { N }, { 1, N }, { N }, { N }, { N }, { N },
		{ N } };
	struct gpu_config c = ft_cfg(GPU_PLACE_FT);
	struct run r;

	ft_run(_metadata, &c, 8, k1, k2, &r);
	EXPECT_EQ((3 + 2) * LINE_SECTORS, r.st.l2_local);
	EXPECT_EQ((2 + 1) * LINE_SECTORS, r.st.l2_remote);
}

/*
 * The first toucher under each scheduler. chunk, 6 blocks: chiplets start
 * at blocks 0, 2, 3 and 5 (ceil(i * 6 / 4)); page 1 is touched by block 1
 * (chiplet 0, second) and block 4 (chiplet 2, second): a tie, chiplet 0.
 * Kernel 2's block 0 reads it locally (floor's starts 0, 1, 3, 4 would
 * put it on chiplet 1). rr, 8 blocks: block 6 runs on chiplet 6 mod 4 =
 * 2, so page 2 lives there and kernel 2's block 2 reads it locally.
 */
TEST(first_touch_follows_the_block_scheduler)
{
	static const uint32_t c1[6][4] = {
		{ N }, { 1, N }, { N }, { N }, { 1, N }, { N } };
	static const uint32_t c2[6][4] = {
		{ 1, N }, { N }, { N }, { N }, { N }, { N } };
	static const uint32_t r1[8][4] = {
		{ N }, { N }, { N }, { N }, { N }, { N }, { 2, N }, { N } };
	static const uint32_t r2[8][4] = {
		{ N }, { N }, { 2, N }, { N }, { N }, { N }, { N }, { N } };
	struct gpu_config c = ft_cfg(GPU_PLACE_FT);
	struct run r;

	ft_run(_metadata, &c, 6, c1, c2, &r);
	EXPECT_EQ(2 * LINE_SECTORS, r.st.l2_local);	/* blocks 1, then 0 */
	EXPECT_EQ(1 * LINE_SECTORS, r.st.l2_remote);	/* block 4 */
	c.tb_sched = GPU_TB_RR;
	ft_run(_metadata, &c, 8, r1, r2, &r);
	EXPECT_EQ(2 * LINE_SECTORS, r.st.l2_local);
	EXPECT_EQ(0, r.st.l2_remote);
}

/*
 * Each object keeps its own pages' homes: kernel 1's block 3 (chiplet 3)
 * touches page 0 of b, and only kernel 2's block 0 touches page 0 of a,
 * which so lives on chiplet 0: all three reads are local (with one table
 * for both objects, a's page 0 would be on chiplet 3).
 */
TEST(first_touch_keeps_each_objects_pages_apart)
{
	struct gpu_config c = ft_cfg(GPU_PLACE_FT);
	struct tprog p = { 0 };
	struct run r;
	uint32_t k, b;

	tp_object(&p, OBJ_A, 4 * 4096, "a");
	tp_object(&p, OBJ_B, 4 * 4096, "b");
	for (k = 1; k <= 2; k++) {
		tp_kernel(&p, k, "touch", 4, 32, 0);
		for (b = 0; b < 4; b++) {
			tp_block(&p, b);
			tp_warp(&p, 0, 1);
			if (b == 3)
				tp_mem(&p, PROG_SPACE_GLOBAL, PROG_KIND_LOAD, 4,
				       0xffffffff, OBJ_B + (k - 1) * 128ULL, 4,
				       1);
			else if (b == 0 && k == 2)
				tp_mem(&p, PROG_SPACE_GLOBAL, PROG_KIND_LOAD, 4,
				       0xffffffff, OBJ_A, 4, 1);
			else
				tp_alu(&p, PROG_OP_INT, 1, 0);
			tp_add(&p, PROG_REC_BLOCK_END);
		}
		tp_add(&p, PROG_REC_KERNEL_END);
	}
	tp_add(&p, PROG_REC_END);
	ASSERT_EQ(0, run_prog(&r, &c, &p, 1000, 1000)) TH_LOG("%s", r.err);
	EXPECT_EQ(3 * LINE_SECTORS, r.st.l2_local);
	EXPECT_EQ(0, r.st.l2_remote);
	tp_free(&p);
}

TEST(first_touch_needs_translation_off)
{
	struct gpu_config c = ft_cfg(GPU_PLACE_FT);
	const char *field = NULL, *why = NULL;

	ASSERT_EQ(0, gpu_config_check(&c, GPU_MAX_CHIPLETS, &field, &why));
	c.translate = 1;
	ASSERT_EQ(-EINVAL, gpu_config_check(&c, GPU_MAX_CHIPLETS, &field,
					     &why));
	EXPECT_STREQ("placement", field);
}

#undef N
#undef LINE_SECTORS

/* ---- Speed ----------------------------------------------------------------------- */

/* A generated program: blocks of 8 warps, ALU and a coalesced load every period. */
struct gen {
	uint32_t blocks, insts, period;
	uint32_t b, w, i, state;
};

static int gen_source(void *ctx, struct prog_rec *rec)
{
	struct gen *s = ctx;

	memset(rec, 0, offsetof(struct prog_rec, inst) + sizeof(rec->inst));
	switch (s->state) {
	case 0:
		rec->type = PROG_REC_OBJECT;
		rec->object.base = OBJ_A;
		rec->object.size = 64 << 20;
		strcpy(rec->object.name, "big");
		s->state = 1;
		return 1;
	case 1:
		rec->type = PROG_REC_KERNEL;
		memset(rec->kernel.name, 0, sizeof(rec->kernel.name));
		strcpy(rec->kernel.name, "big");
		rec->kernel.id = 1;
		rec->kernel.grid[0] = s->blocks;
		rec->kernel.grid[1] = rec->kernel.grid[2] = 1;
		rec->kernel.block[0] = 256;
		rec->kernel.block[1] = rec->kernel.block[2] = 1;
		rec->kernel.binary_version = 70;
		s->state = 2;
		return 1;
	case 2:
		if (s->b == s->blocks) {
			rec->type = PROG_REC_KERNEL_END;
			s->state = 6;
			return 1;
		}
		rec->type = PROG_REC_BLOCK;
		rec->block.x = s->b;
		s->w = 0;
		s->state = 3;
		return 1;
	case 3:
		if (s->w == 8) {
			rec->type = PROG_REC_BLOCK_END;
			s->b++;
			s->state = 2;
			return 1;
		}
		rec->type = PROG_REC_WARP;
		rec->warp.id = s->w;
		rec->warp.insts = s->insts;
		s->i = 0;
		s->state = 4;
		return 1;
	case 4: {
		struct prog_inst *in = &rec->inst;

		rec->type = PROG_REC_INST;
		in->pc = 0x100 + s->i * 16;
		in->mask = 0xffffffff;
		if (s->i % s->period == s->period - 1) {
			uint64_t line = ((uint64_t)(s->b * 8 + s->w) * s->insts +
					 s->i) % (1 << 19);
			int l;

			in->op = PROG_OP_MEMORY;
			in->space = PROG_SPACE_GLOBAL;
			in->kind = PROG_KIND_LOAD;
			in->width = 4;
			in->dst[in->ndst++] = 20;
			for (l = 0; l < 32; l++)
				in->addr[l] = OBJ_A + line * 128 + l * 4;
			strcpy(in->opcode, "LDG.E");
		} else {
			in->op = PROG_OP_FP;
			in->dst[in->ndst++] = 1 + s->i % 6;
			in->src[in->nsrc++] = 1 + (s->i + 3) % 6;
			in->src[in->nsrc++] = s->i % 8 == 0 ? 20 : 7;
			strcpy(in->opcode, "FFMA");
		}
		if (++s->i == s->insts) {
			s->w++;
			s->state = 3;
		}
		return 1;
	}
	case 6:
		rec->type = PROG_REC_END;
		s->state = 7;
		return 1;
	default:
		return 0;
	}
}

static void speed(struct __test_metadata *_metadata, uint32_t period)
{
	struct gpu_config c = gpu_preset_find(GPU_CONFIG_DEFAULT)->cfg;
	struct gen s = { .blocks = 256, .insts = 400, .period = period };
	struct env *e = calloc(1, sizeof(*e));
	struct gpu_core_stats st;
	struct timespec t0, t1;
	struct gpu_core *g;
	double secs;

	c.translate = 0;
	g = calloc(1, gpu_core_size(&c));
	ASSERT_NE(NULL, g);
	ASSERT_EQ(0, gpu_core_init(g, &c, &test_ops, e, gen_source, &s));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (!gpu_core_done(g))
		ASSERT_EQ(0, gpu_core_run(g, gpu_core_now(g) + 100000))
			TH_LOG("%s", gpu_core_error(g));
	clock_gettime(CLOCK_MONOTONIC, &t1);
	gpu_core_stats(g, &st);
	secs = (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
	ASSERT_EQ((uint64_t)256 * 8 * 400, st.warp_insts);
	fprintf(stderr, "# a load in %u: %llu warp instructions, %llu cycles in "
		"%.3f s: %.2f M warp instructions/s (this build)\n", period,
		(unsigned long long)st.warp_insts,
		(unsigned long long)st.cycles, secs, st.warp_insts / secs / 1e6);
	gpu_core_destroy(g);
	free(g);
	free(e);
}

TEST(speed_compute)
{
	speed(_metadata, 64);
}

TEST(speed_memory)
{
	speed(_metadata, 8);
}

TEST_HARNESS_MAIN
