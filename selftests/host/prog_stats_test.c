// SPDX-License-Identifier: GPL-2.0
/*
 * Host tests of the program statistics (tools/mcmgpu/workload/prog_stats.c):
 * a hand-built program whose every count is worked out by hand below
 * (distinct lines and pages within a kernel and over the program, partial
 * masks, a lane straddling a line and a page, shared and local, atomics
 * and reductions), its JSON, and the growing key set against a plain
 * reference.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"
#include "../lib/mcmgpu_test.h"
#include "prog_stats.h"

static struct prog_rec rec;

static struct prog_rec *object(uint64_t base, uint64_t size, const char *name)
{
	memset(&rec, 0, sizeof(rec));
	rec.type = PROG_REC_OBJECT;
	rec.object.base = base;
	rec.object.size = size;
	snprintf(rec.object.name, sizeof(rec.object.name), "%s", name);
	return &rec;
}

static struct prog_rec *copy(uint32_t dir, uint64_t base, uint64_t bytes)
{
	memset(&rec, 0, sizeof(rec));
	rec.type = PROG_REC_COPY;
	rec.copy.dir = dir;
	rec.copy.base = base;
	rec.copy.bytes = bytes;
	return &rec;
}

static struct prog_rec *kernel(uint32_t id, const char *name, uint32_t gx,
			       uint32_t bx)
{
	memset(&rec, 0, sizeof(rec));
	rec.type = PROG_REC_KERNEL;
	rec.kernel.id = id;
	snprintf(rec.kernel.name, sizeof(rec.kernel.name), "%s", name);
	rec.kernel.grid[0] = gx;
	rec.kernel.grid[1] = rec.kernel.grid[2] = 1;
	rec.kernel.block[0] = bx;
	rec.kernel.block[1] = rec.kernel.block[2] = 1;
	rec.kernel.binary_version = 70;
	return &rec;
}

static struct prog_rec *simple(uint32_t type)
{
	memset(&rec, 0, sizeof(rec));
	rec.type = type;
	return &rec;
}

static struct prog_rec *block(uint32_t x)
{
	simple(PROG_REC_BLOCK);
	rec.block.x = x;
	return &rec;
}

static struct prog_rec *warp(uint32_t id, uint32_t insts)
{
	simple(PROG_REC_WARP);
	rec.warp.id = id;
	rec.warp.insts = insts;
	return &rec;
}

static struct prog_rec *alu(uint32_t op, uint32_t mask)
{
	simple(PROG_REC_INST);
	rec.inst.pc = 0x10;
	rec.inst.mask = mask;
	rec.inst.op = op;
	strcpy(rec.inst.opcode, op == PROG_OP_BRANCH ? "BRA" : "IADD3");
	return &rec;
}

/* A memory instruction: lane l of mask at base + l * stride. */
static struct prog_rec *mem(uint32_t space, uint32_t kind, uint16_t width,
			    uint32_t mask, uint64_t base, uint64_t stride)
{
	unsigned int l;

	simple(PROG_REC_INST);
	rec.inst.pc = 0x20;
	rec.inst.mask = mask;
	rec.inst.op = PROG_OP_MEMORY;
	rec.inst.space = space;
	rec.inst.kind = kind;
	rec.inst.width = width;
	strcpy(rec.inst.opcode, "MEM");
	for (l = 0; l < PROG_WARP_SIZE; l++)
		if (mask & (1u << l))
			rec.inst.addr[l] = base + l * stride;
	return &rec;
}

#define FEED(s, r) ASSERT_EQ(0, prog_stats_sink((s), (r)))

/*
 * The program. Lines are addr >> 7, pages addr >> 12.
 *
 * kernel 1 "k1", grid 2, block 64:
 *  block 0, warp 0:
 *   IADD3 full mask
 *   LDG.32 full, 0x10000 + 4l: line 0x200, page 0x10; 32 lanes, 128 B
 *   STG.32 0xffff, 0x10080 + 4l: line 0x201; 16 lanes, 64 B
 *   LDS.32 full: shared
 *  block 0, warp 1:
 *   ATOMG.32 lanes 0 and 2 at 0x10000 (line 0x200 again) and 0x23000
 *     (lane 2: 0x10000 + 2 * 0x9800; line 0x460, page 0x23); 8 B
 *   RED.64 lane 31 at 0x100f8 (line 0x201 again): 8 B
 *   STL.32 full: local
 *  block 1, warp 0:
 *   LDG.128 lane 0 at 0x10ff8: bytes up to 0x11007 cover lines 0x21f and
 *     0x220 and pages 0x10 and 0x11; 16 B
 *  k1: 2 blocks, 3 warps, 8 insts; loads 2, stores 1, atomics 2 (1 RED),
 *  shared 1, local 1; lanes 32 + 16 + 2 + 1 + 1 = 52; loaded 144, stored
 *  64, atomic 16; lines {200, 201, 460, 21f, 220} = 5; pages {10, 23, 11}.
 *
 * kernel 2 "k2", grid 1, block 32:
 *  LDG.32 lanes 0, 1 at 0x10000, 0x50000: lines 0x200 (old), 0xa00 (new);
 *    pages 0x10 (old), 0x50 (new)
 *  BRA lane 0
 *  k2: 1 block, 1 warp, 2 insts, 1 load, 2 lanes, 8 B, lines 2, pages 2.
 *
 * totals: 3 blocks, 4 warps, 10 insts, loads 3, stores 1, atomics 2 (RED
 * 1), shared 1, local 1, lanes 54, loaded 152, stored 64, atomic 16,
 * lines 6 (5 + 0xa00), pages 4 (3 + 0x50).
 */
static void feed_program(struct __test_metadata *_metadata,
			 struct prog_stats *s)
{
	FEED(s, object(0x10000, 0x40000, "a"));
	FEED(s, object(0x50000, 0x1000, "b vector"));
	FEED(s, copy(PROG_COPY_H2D, 0x10000, 100));
	FEED(s, copy(PROG_COPY_H2D, 0x50000, 28));
	FEED(s, kernel(1, "k1", 2, 64));
	FEED(s, block(0));
	FEED(s, warp(0, 4));
	FEED(s, alu(PROG_OP_INT, 0xffffffff));
	FEED(s, mem(PROG_SPACE_GLOBAL, PROG_KIND_LOAD, 4, 0xffffffff, 0x10000, 4));
	FEED(s, mem(PROG_SPACE_GLOBAL, PROG_KIND_STORE, 4, 0xffff, 0x10080, 4));
	FEED(s, mem(PROG_SPACE_SHARED, PROG_KIND_LOAD, 4, 0xffffffff, 0, 4));
	FEED(s, warp(1, 3));
	FEED(s, mem(PROG_SPACE_GLOBAL, PROG_KIND_ATOMIC, 4, 0x5, 0x10000, 0x9800));
	FEED(s, mem(PROG_SPACE_GLOBAL, PROG_KIND_REDUCTION, 8, 0x80000000,
		    0x100f8 - 31 * 8, 8));
	FEED(s, mem(PROG_SPACE_LOCAL, PROG_KIND_STORE, 4, 0xffffffff, 0xfff000, 4));
	FEED(s, simple(PROG_REC_BLOCK_END));
	FEED(s, block(1));
	FEED(s, warp(0, 1));
	FEED(s, mem(PROG_SPACE_GLOBAL, PROG_KIND_LOAD, 16, 0x1, 0x10ff8, 0));
	FEED(s, simple(PROG_REC_BLOCK_END));
	FEED(s, simple(PROG_REC_KERNEL_END));
	FEED(s, copy(PROG_COPY_D2H, 0x10000, 64));
	FEED(s, kernel(2, "k2", 1, 32));
	FEED(s, block(0));
	FEED(s, warp(0, 2));
	FEED(s, mem(PROG_SPACE_GLOBAL, PROG_KIND_LOAD, 4, 0x3, 0x10000, 0x40000));
	FEED(s, alu(PROG_OP_BRANCH, 0x1));
	FEED(s, simple(PROG_REC_BLOCK_END));
	FEED(s, simple(PROG_REC_KERNEL_END));
	FEED(s, simple(PROG_REC_END));
}

TEST(hand_counted_program)
{
	struct prog_stats s;
	const struct prog_stats_counts *c, *k1, *k2;

	prog_stats_init(&s);
	feed_program(_metadata, &s);
	ASSERT_EQ(2, s.nkernels);
	ASSERT_EQ(2, s.nobjects);
	EXPECT_TRUE(s.ended);
	EXPECT_EQ(128, s.h2d_bytes);
	EXPECT_EQ(64, s.d2h_bytes);
	EXPECT_EQ(0x50000, s.objects[1].base);
	EXPECT_STREQ("b vector", s.objects[1].name);

	k1 = &s.kernels[0].c;
	EXPECT_STREQ("k1", s.kernels[0].name);
	EXPECT_EQ(2, s.kernels[0].grid[0]);
	EXPECT_EQ(64, s.kernels[0].block[0]);
	EXPECT_EQ(2, k1->thread_blocks);
	EXPECT_EQ(3, k1->warps);
	EXPECT_EQ(8, k1->warp_instructions);
	EXPECT_EQ(2, k1->global_loads);
	EXPECT_EQ(1, k1->global_stores);
	EXPECT_EQ(2, k1->global_atomics);
	EXPECT_EQ(1, k1->global_reductions);
	EXPECT_EQ(1, k1->shared_accesses);
	EXPECT_EQ(1, k1->local_accesses);
	EXPECT_EQ(52, k1->global_lanes);
	EXPECT_EQ(144, k1->global_bytes_loaded);
	EXPECT_EQ(64, k1->global_bytes_stored);
	EXPECT_EQ(16, k1->global_bytes_atomic);
	EXPECT_EQ(5, k1->global_lines);
	EXPECT_EQ(3, k1->global_pages);

	k2 = &s.kernels[1].c;
	EXPECT_EQ(1, k2->thread_blocks);
	EXPECT_EQ(1, k2->warps);
	EXPECT_EQ(2, k2->warp_instructions);
	EXPECT_EQ(1, k2->global_loads);
	EXPECT_EQ(0, k2->global_atomics);
	EXPECT_EQ(2, k2->global_lanes);
	EXPECT_EQ(8, k2->global_bytes_loaded);
	EXPECT_EQ(2, k2->global_lines);
	EXPECT_EQ(2, k2->global_pages);

	c = &s.total;
	EXPECT_EQ(3, c->thread_blocks);
	EXPECT_EQ(4, c->warps);
	EXPECT_EQ(10, c->warp_instructions);
	EXPECT_EQ(3, c->global_loads);
	EXPECT_EQ(1, c->global_stores);
	EXPECT_EQ(2, c->global_atomics);
	EXPECT_EQ(1, c->global_reductions);
	EXPECT_EQ(1, c->shared_accesses);
	EXPECT_EQ(1, c->local_accesses);
	EXPECT_EQ(54, c->global_lanes);
	EXPECT_EQ(152, c->global_bytes_loaded);
	EXPECT_EQ(64, c->global_bytes_stored);
	EXPECT_EQ(16, c->global_bytes_atomic);
	EXPECT_EQ(6, c->global_lines);
	EXPECT_EQ(4, c->global_pages);
	prog_stats_free(&s);
}

/* The JSON: totals at the top level, the names, kernels after. */
TEST(json_layout)
{
	static const char *const names[] = {
		"thread_blocks", "warps", "warp_instructions", "global_loads",
		"global_stores", "global_atomics", "shared_accesses",
		"local_accesses", "global_lanes", "global_bytes_loaded",
		"global_bytes_stored", "global_lines", "global_pages",
		"h2d_bytes", "d2h_bytes",
	};
	struct prog_stats s;
	char *buf = NULL, *kern;
	size_t len = 0, i;
	FILE *f;

	prog_stats_init(&s);
	feed_program(_metadata, &s);
	f = open_memstream(&buf, &len);
	ASSERT_NE(NULL, f);
	prog_stats_json(&s, f);
	fclose(f);
	kern = strstr(buf, "\"kernels\": [");
	ASSERT_NE(NULL, kern) TH_LOG("%s", buf);
	for (i = 0; i < ARRAY_SIZE(names); i++) {
		char key[64];
		char *at;

		snprintf(key, sizeof(key), "\"%s\": ", names[i]);
		at = strstr(buf, key);
		EXPECT_TRUE(at && at < kern) TH_LOG("%s at the top: %s", key, buf);
	}
	EXPECT_NE(NULL, strstr(buf, "\"global_lines\": 6,")) TH_LOG("%s", buf);
	EXPECT_NE(NULL, strstr(buf, "\"global_pages\": 4,"));
	EXPECT_NE(NULL, strstr(buf, "\"h2d_bytes\": 128,"));
	EXPECT_NE(NULL, strstr(buf, "{\"base\": 327680, \"size\": 4096, "
			       "\"name\": \"b vector\"}"));
	EXPECT_NE(NULL, strstr(kern, "\"name\": \"k1\", \"grid\": [2, 1, 1], "
			       "\"block\": [64, 1, 1]")) TH_LOG("%s", kern);
	EXPECT_NE(NULL, strstr(kern, "\"global_lines\": 5,"));
	EXPECT_NE(NULL, strstr(kern, "\"global_lines\": 2,"));
	free(buf);
	prog_stats_free(&s);
}

/*
 * The key set against a bitmap over a small domain, across growth (to
 * 128 Ki entries) and clears; keys also spread far apart (x 2^40), where
 * a weak hash would collide.
 */
TEST(keyset_matches_reference)
{
	static const size_t sizes[] = { 300, 5000, 100000, 20, 70000 };
	static uint8_t seen[200000];
	struct prog_keyset ks;
	uint64_t state = 12345;
	unsigned int round;

	prog_keyset_init(&ks);
	for (round = 0; round < 2 * ARRAY_SIZE(sizes); round++) {
		size_t n = sizes[round % ARRAY_SIZE(sizes)], i, distinct = 0;
		int shift = round >= ARRAY_SIZE(sizes) ? 40 : 0;

		memset(seen, 0, sizeof(seen));
		for (i = 0; i < n; i++) {
			/* A domain of 2n: about 40 % of the adds repeat. */
			uint64_t v = mt_xorshift64(&state) % (2 * n);
			int r = prog_keyset_add(&ks, v << shift);

			ASSERT_EQ(!seen[v], r) TH_LOG("round %u key %llu", round,
						      (unsigned long long)v);
			distinct += !seen[v];
			seen[v] = 1;
		}
		EXPECT_EQ(distinct, ks.count);
		EXPECT_LE(2 * ks.count, ks.cap);
		prog_keyset_clear(&ks);
		EXPECT_EQ(0, ks.count);
	}
	prog_keyset_free(&ks);
}

/* Clearing 2^32 times would revive old entries: the wrap resets them. */
TEST(keyset_generation_wrap)
{
	struct prog_keyset ks;

	prog_keyset_init(&ks);
	ASSERT_EQ(1, prog_keyset_add(&ks, 7));	/* in generation 1 */
	ks.cur = UINT32_MAX;			/* as after 2^32 - 2 clears */
	ASSERT_EQ(1, prog_keyset_add(&ks, 8));
	prog_keyset_clear(&ks);			/* wraps: back to generation 1 */
	EXPECT_EQ(1, ks.cur);
	EXPECT_EQ(1, prog_keyset_add(&ks, 7));	/* not revived */
	EXPECT_EQ(1, prog_keyset_add(&ks, 8));
	EXPECT_EQ(0, prog_keyset_add(&ks, 7));
	prog_keyset_free(&ks);
}

/* A kernel's sets start empty even when the previous one filled them. */
TEST(per_kernel_sets_restart)
{
	struct prog_stats s;
	uint32_t k, i;

	prog_stats_init(&s);
	for (k = 1; k <= 3; k++) {
		FEED(&s, kernel(k, "k", 1, 32));
		FEED(&s, block(0));
		FEED(&s, warp(0, 100 * k));
		/* 32 lanes 4 KiB apart: 32 lines and 32 pages an instruction. */
		for (i = 0; i < 100 * k; i++)
			FEED(&s, mem(PROG_SPACE_GLOBAL, PROG_KIND_LOAD, 4,
				     0xffffffff, (uint64_t)i << 17, 4096));
		FEED(&s, simple(PROG_REC_BLOCK_END));
		FEED(&s, simple(PROG_REC_KERNEL_END));
	}
	FEED(&s, simple(PROG_REC_END));
	/* Instruction i covers pages i*32 .. i*32+31: no overlap between i. */
	EXPECT_EQ(3200, s.kernels[0].c.global_pages);
	EXPECT_EQ(6400, s.kernels[1].c.global_pages);
	EXPECT_EQ(9600, s.kernels[2].c.global_lines);
	EXPECT_EQ(9600, s.total.global_pages);
	EXPECT_EQ(9600, s.total.global_lines);
	prog_stats_free(&s);
}

TEST_HARNESS_MAIN
