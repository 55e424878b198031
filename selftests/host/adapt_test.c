// SPDX-License-Identifier: GPL-2.0
/*
 * The adapters (tools/mcmgpu/workload/adapt.c): small programs built here
 * as records in memory, each adapted trace compared line by line with
 * what the rules of adapt.h give by hand (block to chiplet by chunk and
 * rr, pages by first-touch, interleave and chunk, the round-robin issue,
 * remote-only FinePack traffic), then fed to its mechanism's host replay
 * (tools/mcmgpu/lib/) to show the replay takes it and runs it. And the
 * limits: what a trace format cannot hold is an error that says so.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"
#include "adapt.h"
#include "adsm_rt.h"
#include "barre_replay.h"
#include "cpe_replay.h"
#include "cxl_replay.h"
#include "cxl_trace.h"
#include "fp_replay.h"
#include "fp_trace.h"

/* ---- Programs as records in memory -------------------------------------- */

struct prog {
	struct prog_rec *rec;
	size_t n, cap, pos;
	int fail_at;		/* source error at this record, 0 never */
};

static struct prog_rec *add(struct prog *p, uint32_t type)
{
	if (p->n == p->cap) {
		p->cap = p->cap ? 2 * p->cap : 64;
		p->rec = realloc(p->rec, p->cap * sizeof(*p->rec));
	}
	memset(&p->rec[p->n], 0, sizeof(p->rec[0]));
	p->rec[p->n].type = type;
	return &p->rec[p->n++];
}

static void object(struct prog *p, uint64_t base, uint64_t size,
		   const char *name)
{
	struct prog_rec *r = add(p, PROG_REC_OBJECT);

	r->object.base = base;
	r->object.size = size;
	snprintf(r->object.name, sizeof(r->object.name), "%s", name);
}

static void copy(struct prog *p, uint32_t dir, uint64_t base, uint64_t bytes)
{
	struct prog_rec *r = add(p, PROG_REC_COPY);

	r->copy.dir = dir;
	r->copy.base = base;
	r->copy.bytes = bytes;
}

static void kernel(struct prog *p, uint32_t id, const char *name,
		   uint32_t blocks, uint32_t threads)
{
	struct prog_rec *r = add(p, PROG_REC_KERNEL);

	r->kernel.id = id;
	snprintf(r->kernel.name, sizeof(r->kernel.name), "%s", name);
	r->kernel.grid[0] = blocks;
	r->kernel.grid[1] = r->kernel.grid[2] = 1;
	r->kernel.block[0] = threads;
	r->kernel.block[1] = r->kernel.block[2] = 1;
	r->kernel.binary_version = 70;
}

static void block(struct prog *p, uint32_t x)
{
	add(p, PROG_REC_BLOCK)->block.x = x;
}

static void warp(struct prog *p, uint32_t id, uint32_t insts)
{
	struct prog_rec *r = add(p, PROG_REC_WARP);

	r->warp.id = id;
	r->warp.insts = insts;
}

static void alu(struct prog *p, uint32_t mask)
{
	struct prog_rec *r = add(p, PROG_REC_INST);

	r->inst.pc = 0x10 * p->n;
	r->inst.mask = mask;
	r->inst.op = PROG_OP_INT;
	strcpy(r->inst.opcode, "IADD3");
}

static void membar_sys(struct prog *p)
{
	struct prog_rec *r = add(p, PROG_REC_INST);

	r->inst.pc = 0x10 * p->n;
	r->inst.mask = 1;
	r->inst.op = PROG_OP_OTHER;
	strcpy(r->inst.opcode, "MEMBAR.SC.SYS");
}

/* Lanes of mask at base + stride * i, i counting the active lanes. */
static void mem(struct prog *p, uint32_t kind, uint32_t mask, uint32_t width,
		uint64_t base, uint64_t stride)
{
	static const char *const op[] = {
		[PROG_KIND_LOAD] = "LDG.E", [PROG_KIND_STORE] = "STG.E",
		[PROG_KIND_ATOMIC] = "ATOMG.E.ADD",
		[PROG_KIND_REDUCTION] = "RED.E.ADD",
	};
	struct prog_rec *r = add(p, PROG_REC_INST);
	unsigned int l, i = 0;

	r->inst.pc = 0x10 * p->n;
	r->inst.mask = mask;
	r->inst.op = PROG_OP_MEMORY;
	r->inst.space = PROG_SPACE_GLOBAL;
	r->inst.kind = kind;
	r->inst.width = width;
	strcpy(r->inst.opcode, op[kind]);
	for (l = 0; l < PROG_WARP_SIZE; l++)
		if (mask >> l & 1)
			r->inst.addr[l] = base + stride * i++;
}

static void end_block(struct prog *p)
{
	add(p, PROG_REC_BLOCK_END);
}

static void end_kernel(struct prog *p)
{
	add(p, PROG_REC_KERNEL_END);
}

static void end(struct prog *p)
{
	add(p, PROG_REC_END);
}

static int source(void *ctx, struct prog_rec *rec)
{
	struct prog *p = ctx;

	if (p->fail_at && p->pos + 1 == (size_t)p->fail_at)
		return -EIO;
	if (p->pos == p->n)
		return 0;
	*rec = p->rec[p->pos++];
	return 1;
}

#define A	0x10000ULL	/* 2 pages */
#define B	0x20000ULL	/* 1 page */
#define ALL	0xffffffffU

/*
 * The program most tests adapt. Kernel 1: 4 blocks of one warp; block b
 * loads 128 B of A at 2048 b (blocks 0 and 1 in A's page 0, 2 and 3 in
 * page 1), does integer work, stores 128 B of B at 128 b. Kernel 2: one
 * block loads A's first 128 B again and adds to B's first word.
 */
static void program(struct prog *p)
{
	uint32_t b;

	memset(p, 0, sizeof(*p));
	object(p, A, 8192, "A");
	object(p, B, 4096, "B");
	copy(p, PROG_COPY_H2D, A, 8192);
	kernel(p, 1, "k", 4, 32);
	for (b = 0; b < 4; b++) {
		block(p, b);
		warp(p, 0, 3);
		mem(p, PROG_KIND_LOAD, ALL, 4, A + 2048 * b, 4);
		alu(p, ALL);
		mem(p, PROG_KIND_STORE, ALL, 4, B + 128 * b, 4);
		end_block(p);
	}
	end_kernel(p);
	kernel(p, 2, "k2", 1, 32);
	block(p, 0);
	warp(p, 0, 2);
	mem(p, PROG_KIND_LOAD, ALL, 4, A, 4);
	mem(p, PROG_KIND_ATOMIC, 1, 4, B, 0);
	end_block(p);
	end_kernel(p);
	copy(p, PROG_COPY_D2H, B, 4096);
	end(p);
}

/* The trace of p for mech; the return value, the text in *text. */
static int adapt(struct prog *p, uint32_t mech, uint32_t chiplets, uint32_t cta,
		 uint32_t placement, char **text, char *err, size_t errlen)
{
	struct adapt_opts o = { .mech = mech, .chiplets = chiplets, .cta = cta,
				.placement = placement };
	struct adapt_stats st;
	size_t len;
	FILE *f;
	int ret;

	p->pos = 0;
	err[0] = '\0';
	ret = adapt_resolve(&o, err, errlen);
	if (ret)
		return ret;
	f = open_memstream(text, &len);
	if (!f)
		return -ENOMEM;
	ret = adapt_program(&o, source, p, f, &st, err, errlen);
	fclose(f);
	return ret;
}

/* ---- barre ------------------------------------------------------------- */

static void barre_runs(struct __test_metadata *_metadata, const char *text,
		       uint32_t chiplets, uint64_t accesses)
{
	struct barre_replay_cfg cfg = { .chiplets = chiplets, .frames = 1024,
					 .barre = true, .walkers = 16,
					 .merge = 1 };
	struct mcmgpu_barre_stats st;
	struct barre_trace t;
	char err[256];

	ASSERT_EQ(0, barre_trace_parse(text, strlen(text), &t, err, sizeof(err)))
		TH_LOG("%s", err);
	ASSERT_EQ(0, barre_replay_host(&t, &cfg, &st, err, sizeof(err)))
		TH_LOG("%s", err);
	EXPECT_EQ(accesses, st.accesses);
	EXPECT_EQ(2, st.objects);
	EXPECT_EQ(3, st.pages);
	barre_trace_free(&t);
}

TEST(barre_chunk_blocks_kwc_pages)
{
	struct prog p;
	char *text, err[256];

	program(&p);
	ASSERT_EQ(0, adapt(&p, ADAPT_BARRE, 2, ADAPT_CTA_CHUNK,
			   ADAPT_PLACE_DEFAULT, &text, err, sizeof(err)))
		TH_LOG("%s", err);
	/*
	 * Blocks 0 and 1 on chiplet 0, 2 and 3 on 1; each chiplet's three
	 * instructions a block, one a turn: load, (integer), store.
	 */
	EXPECT_STREQ("# mcmgpu workload to barre: 2 chiplets, cta-policy chunk, "
		     "placement chunk\n"
		     "alloc A 8192 policy=kwc\n"
		     "alloc B 4096 policy=kwc\n"
		     "access 0 A 0 r\n"
		     "access 1 A 4096 r\n"
		     "access 0 B 0 w\n"
		     "access 1 B 256 w\n"
		     "access 0 A 2048 r\n"
		     "access 1 A 6144 r\n"
		     "access 0 B 128 w\n"
		     "access 1 B 384 w\n"
		     "access 0 A 0 r\n"
		     "access 0 B 0 w\n", text);
	barre_runs(_metadata, text, 2, 10);
	free(text);
	free(p.rec);
}

TEST(barre_rr_blocks_interleaved_pages)
{
	struct prog p;
	char *text, err[256];

	program(&p);
	ASSERT_EQ(0, adapt(&p, ADAPT_BARRE, 2, ADAPT_CTA_RR,
			   ADAPT_PLACE_INTERLEAVE, &text, err, sizeof(err)))
		TH_LOG("%s", err);
	/* Blocks 0 and 2 on chiplet 0, 1 and 3 on 1. */
	EXPECT_STREQ("# mcmgpu workload to barre: 2 chiplets, cta-policy rr, "
		     "placement interleave\n"
		     "alloc A 8192 policy=rr\n"
		     "alloc B 4096 policy=rr\n"
		     "access 0 A 0 r\n"
		     "access 1 A 2048 r\n"
		     "access 0 B 0 w\n"
		     "access 1 B 128 w\n"
		     "access 0 A 4096 r\n"
		     "access 1 A 6144 r\n"
		     "access 0 B 256 w\n"
		     "access 1 B 384 w\n"
		     "access 0 A 0 r\n"
		     "access 0 B 0 w\n", text);
	barre_runs(_metadata, text, 2, 10);
	free(text);
	free(p.rec);
}

/* One access a distinct page a warp instruction touches, in lane order. */
TEST(barre_one_access_per_page_an_instruction)
{
	struct prog p = { 0 };
	char *text, err[256];

	object(&p, A, 8192, "A");
	kernel(&p, 1, "k", 1, 32);
	block(&p, 0);
	warp(&p, 0, 2);
	/* Lanes 0-15 in page 0, 16-31 in page 1; lane 15 ends at 4096. */
	mem(&p, PROG_KIND_LOAD, ALL, 4, A + 4096 - 64, 4);
	/* Every lane on one word: one access. */
	mem(&p, PROG_KIND_REDUCTION, ALL, 4, A + 100, 0);
	end_block(&p);
	end_kernel(&p);
	end(&p);
	ASSERT_EQ(0, adapt(&p, ADAPT_BARRE, 4, ADAPT_CTA_RR, ADAPT_PLACE_CHUNK,
			   &text, err, sizeof(err))) TH_LOG("%s", err);
	EXPECT_STREQ("# mcmgpu workload to barre: 4 chiplets, cta-policy rr, "
		     "placement chunk\n"
		     "alloc A 8192 policy=kwc\n"
		     "access 0 A 4032 r\n"
		     "access 0 A 4096 r\n"
		     "access 0 A 100 w\n", text);
	free(text);
	free(p.rec);
}

/* ---- finepack ------------------------------------------------------------ */

#define X	0x100000ULL

/*
 * Two blocks of one warp, chunk: block 0 on chiplet 0, block 1 on 1.
 * Turn 0: chiplet 0 stores in X's page 0, chiplet 1 in page 1 (each
 * first touch: local). Turn 1: chiplet 0 stores three words into page 1
 * (remote, two runs); chiplet 1 adds atomically into page 0 (remote).
 * Turn 2: chiplet 0's system fence; chiplet 1 loads two words of page 0.
 */
static void fp_program(struct prog *p)
{
	memset(p, 0, sizeof(*p));
	object(p, X, 8192, "X");
	kernel(p, 1, "fp", 2, 32);
	block(p, 0);
	warp(p, 0, 3);
	mem(p, PROG_KIND_STORE, 0x3, 4, X, 4);
	mem(p, PROG_KIND_STORE, 0x7, 4, X + 4096, 4);
	p->rec[p->n - 1].inst.addr[2] = X + 4108;	/* a gap: two runs */
	membar_sys(p);
	end_block(p);
	block(p, 1);
	warp(p, 0, 3);
	mem(p, PROG_KIND_STORE, 0x3, 4, X + 4096 + 16, 4);
	mem(p, PROG_KIND_ATOMIC, 0x1, 4, X + 8, 0);
	mem(p, PROG_KIND_LOAD, 0x3, 4, X, 4);
	end_block(p);
	end_kernel(p);
	end(p);
}

static void fp_runs(struct __test_metadata *_metadata, const char *text,
		    uint32_t chiplets, uint64_t stores, uint64_t atomics,
		    uint64_t loads)
{
	struct fp_config cfg = {
		.chiplets = chiplets, .subheader = MCMGPU_FP_SUBHEADER_DEFAULT,
		.overhead = MCMGPU_FP_OVERHEAD_ECRC, .vram_per_chiplet = 16 << 20,
	};
	struct fp_backend b = { .ops = &fp_host_ops, .fd = -1 };
	struct mcmgpu_fp_replay_result res;
	struct fp_trace_buf tb = { 0 };
	struct replay_error e;
	struct fp_verify v;
	uint8_t *trace;
	char msg[256];
	size_t len;

	ASSERT_EQ(0, fp_text_parse(text, strlen(text), &tb, msg, sizeof(msg)))
		TH_LOG("%s", msg);
	trace = fp_tb_finish(&tb, &len);
	ASSERT_NE(NULL, trace);
	ASSERT_EQ(0, fp_replay(&b, trace, len, &cfg, true, &res, &v, &e))
		TH_LOG("%s", e.rec.what);
	EXPECT_EQ(stores, res.stats.stores);
	EXPECT_EQ(atomics, res.stats.atomics);
	EXPECT_EQ(loads, res.stats.loads);
	EXPECT_LT(0, res.stats.kernels);
	EXPECT_TRUE(v.done);
	EXPECT_EQ(0, v.mismatched_bytes);
	free(trace);
}

TEST(finepack_remote_only_first_touch)
{
	struct prog p;
	char *text, err[256];

	fp_program(&p);
	ASSERT_EQ(0, adapt(&p, ADAPT_FINEPACK, 2, ADAPT_CTA_CHUNK,
			   ADAPT_PLACE_DEFAULT, &text, err, sizeof(err)))
		TH_LOG("%s", err);
	/*
	 * X is packed at 0 in each chiplet's memory. Data byte at a:
	 * a ^ a >> 8 ^ a >> 16 ^ 0xa5 (4096 = 0x1000: 0xb5, 0xb4, ...).
	 * Compute: 3 instructions and 2 lines a chiplet, 1 ns each.
	 */
	EXPECT_STREQ("# mcmgpu workload to finepack: 2 chiplets, cta-policy "
		     "chunk, placement first-touch\n"
		     "store 0 1 4096 8 b5b4b7b6b1b0b3b2\n"
		     "store 0 1 4108 4 b9b8bbba\n"
		     "atomic 1 0 8 4 adacafae\n"
		     "fence 0\n"
		     "load 1 0 0 8\n"
		     "compute 0 1\n"
		     "compute 1 1\n"
		     "kernel_end\n", text);
	fp_runs(_metadata, text, 2, 2, 1, 1);
	free(text);

	/* rr puts block 1 on chiplet 1 too: the same trace. chunk pages: so. */
	ASSERT_EQ(0, adapt(&p, ADAPT_FINEPACK, 2, ADAPT_CTA_RR,
			   ADAPT_PLACE_CHUNK, &text, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(text, "store 0 1 4096 8 b5b4b7b6b1b0b3b2\n"));
	free(text);
	free(p.rec);
}

/*
 * One block on chiplet 0 stores into page 1 of a 4-page object: remote
 * under interleave (page 1 on chiplet 1), local under chunk (pages 0-1
 * on chiplet 0) and first-touch.
 */
TEST(finepack_placements)
{
	struct prog p = { 0 };
	char *text, err[256];

	object(&p, X, 4 * 4096, "X");
	object(&p, X + 0x10000, 100, "small");
	kernel(&p, 1, "k", 1, 32);
	block(&p, 0);
	warp(&p, 0, 2);
	mem(&p, PROG_KIND_STORE, 0x1, 8, X + 4096 + 40, 0);
	/* A second object's page 0 is chiplet 0's under every placement. */
	mem(&p, PROG_KIND_STORE, 0x1, 4, X + 0x10000, 0);
	end_block(&p);
	end_kernel(&p);
	end(&p);

	ASSERT_EQ(0, adapt(&p, ADAPT_FINEPACK, 2, ADAPT_CTA_CHUNK,
			   ADAPT_PLACE_INTERLEAVE, &text, err, sizeof(err)));
	/* 4136 = 0x1028: 0x28 ^ 0x10 ^ 0xa5 = 0x9d, then 0x9c, ... */
	EXPECT_STREQ("# mcmgpu workload to finepack: 2 chiplets, cta-policy "
		     "chunk, placement interleave\n"
		     "store 0 1 4136 8 9d9c9f9e99989b9a\n"
		     "compute 0 1\n"
		     "kernel_end\n", text);
	fp_runs(_metadata, text, 2, 1, 0, 0);
	free(text);
	ASSERT_EQ(0, adapt(&p, ADAPT_FINEPACK, 2, ADAPT_CTA_CHUNK,
			   ADAPT_PLACE_CHUNK, &text, err, sizeof(err)));
	EXPECT_EQ(NULL, strstr(text, "store"));
	free(text);
	ASSERT_EQ(0, adapt(&p, ADAPT_FINEPACK, 2, ADAPT_CTA_CHUNK,
			   ADAPT_PLACE_FIRST_TOUCH, &text, err, sizeof(err)));
	EXPECT_EQ(NULL, strstr(text, "store"));
	free(text);
	free(p.rec);
}

TEST(finepack_refuses_a_wide_atomic)
{
	struct prog p = { 0 };
	char *text = NULL, err[256];

	object(&p, X, 4096, "X");
	kernel(&p, 1, "wide", 1, 32);
	block(&p, 0);
	warp(&p, 0, 1);
	mem(&p, PROG_KIND_ATOMIC, 0x1, 32, X, 0);
	end_block(&p);
	end_kernel(&p);
	end(&p);
	EXPECT_EQ(-EINVAL, adapt(&p, ADAPT_FINEPACK, 2, ADAPT_CTA_CHUNK,
				 ADAPT_PLACE_DEFAULT, &text, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "kernel 1 'wide' block (0,0,0) warp 0 "
			       "instruction 0")) TH_LOG("%s", err);
	EXPECT_NE(NULL, strstr(err, "1 to 16 bytes")) TH_LOG("%s", err);
	free(text);
	free(p.rec);
}

/* ---- cpelide ------------------------------------------------------------ */

static void cpe_runs(struct __test_metadata *_metadata, const char *text,
		     uint32_t chiplets, uint64_t kernels)
{
	struct cpe_backend b = { .ops = &cpe_host_ops, .fd = -1 };
	struct mcmgpu_cpe_stats st;
	struct cpe_seq seq = { 0 };
	struct replay_error e;
	char msg[256];

	ASSERT_EQ(0, cpe_seq_parse(text, strlen(text), chiplets,
				   MCMGPU_CPE_POLICY_CPELIDE, &seq, msg,
				   sizeof(msg))) TH_LOG("%s", msg);
	ASSERT_EQ(0, cpe_replay(&b, &seq, &st, &e)) TH_LOG("%s", e.rec.what);
	EXPECT_EQ(kernels, st.kernels);
	EXPECT_EQ(0, st.oracle_violations);
	cpe_seq_free(&seq);
}

TEST(cpelide_chunk_has_disjoint_ranges)
{
	struct prog p;
	char *text, err[256];

	program(&p);
	ASSERT_EQ(0, adapt(&p, ADAPT_CPELIDE, 2, ADAPT_CTA_CHUNK,
			   ADAPT_PLACE_DEFAULT, &text, err, sizeof(err)))
		TH_LOG("%s", err);
	/* Chiplet 0 reads A at 0 and 2048, 1 at 4096 and 6144; B by 128 B. */
	EXPECT_STREQ("# mcmgpu workload to cpelide: 2 chiplets, cta-policy "
		     "chunk, placement first-touch\n"
		     "alloc A 8192\n"
		     "alloc B 4096\n"
		     "host_write A 0-8191\n"
		     "kernel k chiplets=0,1 A:r:0=0-2175,1=4096-6271 "
		     "B:rw:0=0-255,1=256-511\n"
		     "kernel k2 chiplets=0 A:r:0=0-127 B:rw:0=0-3\n"
		     "host_read B 0-4095\n"
		     "end\n", text);
	cpe_runs(_metadata, text, 2, 2);
	free(text);
	free(p.rec);
}

TEST(cpelide_rr_overlapping_writes_are_unknown)
{
	struct prog p;
	char *text, err[256];

	program(&p);
	ASSERT_EQ(0, adapt(&p, ADAPT_CPELIDE, 2, ADAPT_CTA_RR,
			   ADAPT_PLACE_FIRST_TOUCH, &text, err, sizeof(err)))
		TH_LOG("%s", err);
	/* Read hulls may overlap; B's written ones do: no range says it. */
	EXPECT_STREQ("# mcmgpu workload to cpelide: 2 chiplets, cta-policy "
		     "rr, placement first-touch\n"
		     "alloc A 8192\n"
		     "alloc B 4096\n"
		     "host_write A 0-8191\n"
		     "kernel k chiplets=0,1 A:r:0=0-4223,1=2048-6271 "
		     "B:rw:unknown\n"
		     "kernel k2 chiplets=0 A:r:0=0-127 B:rw:0=0-3\n"
		     "host_read B 0-4095\n"
		     "end\n", text);
	cpe_runs(_metadata, text, 2, 2);
	free(text);
	free(p.rec);
}

TEST(cpelide_limits)
{
	struct prog p = { 0 };
	char *text = NULL, err[256], name[16];
	uint32_t i;

	/* 17 objects in one kernel: a launch descriptor holds 16. */
	for (i = 0; i < 17; i++) {
		snprintf(name, sizeof(name), "o%u", i);
		object(&p, X + 4096 * i, 4096, name);
	}
	kernel(&p, 1, "many", 1, 32);
	block(&p, 0);
	warp(&p, 0, 17);
	for (i = 0; i < 17; i++)
		mem(&p, PROG_KIND_LOAD, 1, 4, X + 4096 * i, 0);
	end_block(&p);
	end_kernel(&p);
	end(&p);
	EXPECT_EQ(-E2BIG, adapt(&p, ADAPT_CPELIDE, 4, ADAPT_CTA_CHUNK,
				ADAPT_PLACE_DEFAULT, &text, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "kernel 1 'many': it touches more than 16 "
			       "objects")) TH_LOG("%s", err);
	free(text);
	free(p.rec);

	/* 65 MiB of objects: a sequence holds 64. */
	memset(&p, 0, sizeof(p));
	object(&p, X, 32 << 20, "big");
	object(&p, X + (64 << 20), 33 << 20, "bigger");
	end(&p);
	text = NULL;
	EXPECT_EQ(-E2BIG, adapt(&p, ADAPT_CPELIDE, 4, ADAPT_CTA_CHUNK,
				ADAPT_PLACE_DEFAULT, &text, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "object 'bigger'")) TH_LOG("%s", err);
	free(text);
	free(p.rec);
}

/* ---- cxl ------------------------------------------------------------------ */

TEST(cxl_lines_compute_and_the_llc)
{
	struct srds_config cfg = {
		.sim = { .sr_mode = MCMGPU_CXL_SR_FULL, .ds = 1, .ctrl_ns = 80,
			 .gc = 1 },
		.ports = 2,
		.media = { MCMGPU_CXL_MEDIA_ZNAND, MCMGPU_CXL_MEDIA_ZNAND },
		.capacity = { 256ULL << 20, 256ULL << 20 },
		.route = srds_route_default,
	};
	struct cxl_backend b = { .ops = &cxl_host_ops, .fd = -1 };
	struct mcmgpu_cxl_sim_result res;
	struct mcmgpu_cxl_record *rec;
	struct replay_error e;
	struct prog p;
	char *text, err[256];
	uint64_t n;

	program(&p);
	ASSERT_EQ(0, adapt(&p, ADAPT_CXL, 2, ADAPT_CTA_CHUNK,
			   ADAPT_PLACE_DEFAULT, &text, err, sizeof(err)))
		TH_LOG("%s", err);
	/*
	 * A at 0, B at 0x2000. Each turn's two integer instructions are 64
	 * lanes: 1 ns before the next line. Kernel 2 finds A's lines and
	 * B's first in the LLC: no read, and the atomic writes through.
	 */
	EXPECT_STREQ("# mcmgpu workload to cxl: 2 chiplets, cta-policy chunk, "
		     "placement none\n"
		     "r 0x0\nr 0x40\nr 0x1000\nr 0x1040\n"
		     "c 1\nw 0x2000\nw 0x2040\nw 0x2100\nw 0x2140\n"
		     "r 0x800\nr 0x840\nr 0x1800\nr 0x1840\n"
		     "c 1\nw 0x2080\nw 0x20c0\nw 0x2180\nw 0x21c0\n"
		     "w 0x2000\n", text);
	cfg.route_priv = &cfg;
	ASSERT_EQ(0, cxl_trace_parse(text, &rec, &n, err, sizeof(err)))
		TH_LOG("%s", err);
	EXPECT_EQ(19, n);
	ASSERT_EQ(0, cxl_replay(&b, &cfg, rec, n, &res, &e)) TH_LOG("%s", e.rec.what);
	EXPECT_EQ(8, res.loads);
	EXPECT_EQ(9, res.stores);
	free(rec);
	free(text);
	free(p.rec);
}

/* ---- adsm ---------------------------------------------------------------- */

TEST(adsm_pattern_and_its_replay)
{
	struct adapt_adsm_result res;
	struct adsm_rt *rt;
	struct prog p;
	char *text, err[256];

	program(&p);
	ASSERT_EQ(0, adapt(&p, ADAPT_ADSM, 2, ADAPT_CTA_RR, ADAPT_PLACE_DEFAULT,
			   &text, err, sizeof(err))) TH_LOG("%s", err);
	EXPECT_STREQ("# mcmgpu workload to adsm: 2 chiplets, cta-policy rr, "
		     "placement none\n"
		     "object A 8192\n"
		     "object B 4096\n"
		     "cpu_write A 0 8192\n"
		     "kernel k chiplets=0,1 reads=A writes=B\n"
		     "kernel k2 chiplets=0 reads=A writes=B\n"
		     "cpu_read B 0 4096\n", text);

	/*
	 * Lazy: A is Dirty after the CPU's write and goes at the first
	 * launch (8192); the second finds nothing Dirty; the CPU's read of
	 * B after the sync fetches it (4096).
	 */
	rt = adsm_host_new(MCMGPU_ADSM_LAZY, 4096, 0, 2);
	ASSERT_NE(NULL, rt);
	ASSERT_EQ(0, adapt_adsm_run(text, strlen(text), rt, 2, &res, err,
				    sizeof(err))) TH_LOG("%s", err);
	EXPECT_EQ(2, res.objects);
	EXPECT_EQ(2, res.kernels);
	EXPECT_EQ(8192, res.cpu_bytes_written);
	EXPECT_EQ(4096, res.cpu_bytes_read);
	EXPECT_EQ(8192, res.stats.h2d_bytes);
	EXPECT_EQ(4096, res.stats.d2h_bytes);
	EXPECT_EQ(2, res.stats.launches);
	EXPECT_EQ(2, res.stats.faults);	/* A written, B read */
	adsm_host_free(rt);

	/* Explicit: the program's copies by hand, the same bytes, no faults. */
	rt = adsm_host_new(ADSM_EXPLICIT, 4096, 0, 2);
	ASSERT_NE(NULL, rt);
	ASSERT_EQ(0, adapt_adsm_run(text, strlen(text), rt, 2, &res, err,
				    sizeof(err))) TH_LOG("%s", err);
	EXPECT_EQ(8192, res.stats.h2d_bytes);
	EXPECT_EQ(4096, res.stats.d2h_bytes);
	EXPECT_EQ(0, res.stats.faults);
	adsm_host_free(rt);
	free(text);
	free(p.rec);
}

TEST(adsm_run_errors_name_the_line)
{
	static const char *const bad[][2] = {
		{ "object A 4096\ncpu_write B 0 4\n", "line 2: no object 'B'" },
		{ "object A 4096\ncpu_read A 4000 100\n",
		  "line 2: cpu_read: [4000, +100) is not inside object 'A'" },
		{ "object A 4096\nkernel k chiplets=2\n",
		  "line 2: chiplets: no chiplet 2 of 2" },
		{ "object A 4096\nobject A 4\n", "line 2: object 'A' twice" },
		{ "fill A\n", "line 1: unknown record 'fill'" },
	};
	struct adapt_adsm_result res;
	char err[256];
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct adsm_rt *rt = adsm_host_new(MCMGPU_ADSM_LAZY, 4096, 0, 2);

		ASSERT_NE(NULL, rt);
		EXPECT_EQ(-EINVAL, adapt_adsm_run(bad[i][0], strlen(bad[i][0]), rt,
						  2, &res, err, sizeof(err)));
		EXPECT_NE(NULL, strstr(err, bad[i][1])) TH_LOG("%s", err);
		adsm_host_free(rt);
	}
}

TEST(adsm_limits)
{
	struct prog p = { 0 };
	char *text = NULL, err[256], name[16];
	uint32_t i;

	for (i = 0; i < 17; i++) {
		snprintf(name, sizeof(name), "o%u", i);
		object(&p, X + 4096 * i, 4096, name);
	}
	end(&p);
	EXPECT_EQ(-E2BIG, adapt(&p, ADAPT_ADSM, 2, ADAPT_CTA_CHUNK,
				ADAPT_PLACE_DEFAULT, &text, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "object 'o16': an ADSM pattern takes at "
			       "most 16 objects")) TH_LOG("%s", err);
	free(text);
	free(p.rec);
}

/* ---- Options, IDs and bad programs -------------------------------------- */

TEST(options_each_trace_can_express)
{
	static const struct {
		uint32_t mech, chiplets, placement;
		const char *why;	/* NULL: accepted */
	} cases[] = {
		{ ADAPT_BARRE, 2, ADAPT_PLACE_FIRST_TOUCH, "use interleave or chunk" },
		{ ADAPT_BARRE, 9, ADAPT_PLACE_DEFAULT, "barre traces take 1 to 8" },
		{ ADAPT_CPELIDE, 4, ADAPT_PLACE_CHUNK, "only first-touch" },
		{ ADAPT_CXL, 4, ADAPT_PLACE_INTERLEAVE, "one memory" },
		{ ADAPT_ADSM, 4, ADAPT_PLACE_FIRST_TOUCH, "one memory" },
		{ ADAPT_FINEPACK, 16, ADAPT_PLACE_CHUNK, NULL },
		{ ADAPT_FINEPACK, 17, ADAPT_PLACE_CHUNK, "1 to 16" },
		{ ADAPT_CXL, 16, ADAPT_PLACE_DEFAULT, NULL },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct adapt_opts o = { .mech = cases[i].mech,
					.chiplets = cases[i].chiplets,
					.placement = cases[i].placement };
		char err[256] = "";
		int ret = adapt_resolve(&o, err, sizeof(err));

		if (!cases[i].why) {
			EXPECT_EQ(0, ret) TH_LOG("case %zu: %s", i, err);
			continue;
		}
		EXPECT_EQ(-EINVAL, ret) TH_LOG("case %zu", i);
		EXPECT_NE(NULL, strstr(err, cases[i].why)) TH_LOG("%zu: %s", i, err);
	}
	EXPECT_EQ(ADAPT_BARRE, adapt_mech_parse("barre"));
	EXPECT_EQ(-1, adapt_mech_parse("tlb"));
	EXPECT_EQ(ADAPT_CTA_RR, adapt_cta_parse("rr"));
	EXPECT_EQ(ADAPT_PLACE_FIRST_TOUCH, adapt_placement_parse("first-touch"));
	EXPECT_EQ(-1, adapt_placement_parse("default"));
}

TEST(object_ids_every_trace_takes)
{
	struct prog p = { 0 };
	char *text, err[256];

	object(&p, A, 100, "my buf#1");
	object(&p, A + 4096, 100, "x");
	object(&p, A + 8192, 100, "x");
	object(&p, A + 12288, 100, "2d:grid");
	end(&p);
	ASSERT_EQ(0, adapt(&p, ADAPT_BARRE, 2, ADAPT_CTA_CHUNK,
			   ADAPT_PLACE_DEFAULT, &text, err, sizeof(err)));
	EXPECT_STREQ("# mcmgpu workload to barre: 2 chiplets, cta-policy chunk, "
		     "placement chunk\n"
		     "alloc my_buf_1 100 policy=kwc\n"
		     "alloc x 100 policy=kwc\n"
		     "alloc x.2 100 policy=kwc\n"
		     "alloc _2d_grid 100 policy=kwc\n", text);
	free(text);
	free(p.rec);
}

TEST(bad_programs_are_named)
{
	struct prog p;
	char *text = NULL, err[256];

	/* A lane outside every object. */
	memset(&p, 0, sizeof(p));
	object(&p, A, 4096, "A");
	kernel(&p, 1, "stray", 2, 64);
	block(&p, 1);
	warp(&p, 1, 2);
	alu(&p, ALL);
	mem(&p, PROG_KIND_LOAD, 0x3, 4, A + 4092, 4);
	end_block(&p);
	end_kernel(&p);
	end(&p);
	EXPECT_EQ(-EINVAL, adapt(&p, ADAPT_BARRE, 2, ADAPT_CTA_CHUNK,
				 ADAPT_PLACE_DEFAULT, &text, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "kernel 1 'stray' block (1,0,0) warp 1 "
			       "instruction 1 (pc ")) TH_LOG("%s", err);
	EXPECT_NE(NULL, strstr(err, "lane 1: [0x11000, +4) is not inside one "
			       "object")) TH_LOG("%s", err);
	free(text);

	/* Cut short: no END. */
	p.n -= 1;
	text = NULL;
	EXPECT_EQ(-EINVAL, adapt(&p, ADAPT_CPELIDE, 2, ADAPT_CTA_CHUNK,
				 ADAPT_PLACE_DEFAULT, &text, err, sizeof(err)));
	free(text);

	/* The source's own error comes back as it is. */
	program(&p);
	p.fail_at = 5;
	text = NULL;
	EXPECT_EQ(-EIO, adapt(&p, ADAPT_CXL, 2, ADAPT_CTA_CHUNK,
			      ADAPT_PLACE_DEFAULT, &text, err, sizeof(err)));
	free(text);
	free(p.rec);
}

/* Same program, same options: same bytes. */
TEST(deterministic)
{
	uint32_t mech;
	struct prog p;

	program(&p);
	for (mech = 0; mech < ADAPT_MECHS; mech++) {
		char *one, *two, err[256];

		ASSERT_EQ(0, adapt(&p, mech, 2, ADAPT_CTA_RR, ADAPT_PLACE_DEFAULT,
				   &one, err, sizeof(err))) TH_LOG("%s", err);
		ASSERT_EQ(0, adapt(&p, mech, 2, ADAPT_CTA_RR, ADAPT_PLACE_DEFAULT,
				   &two, err, sizeof(err)));
		EXPECT_STREQ(one, two);
		free(one);
		free(two);
	}
	free(p.rec);
}

TEST_HARNESS_MAIN
