// SPDX-License-Identifier: GPL-2.0
/*
 * The SIMT executor (tools/mcmgpu/workload/simt.c) against warps worked
 * out by hand: coalesced and strided accesses, divergence and
 * reconvergence, loops with per-thread trip counts, barriers with shared
 * memory, atomics, partial warps, 2-D and 3-D indices, the registers,
 * bad accesses, and determinism. Records are captured with a sink.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"
#include "simt.h"
#include "../lib/prog_mem.h"

#define FULL 0xffffffffu

struct capture {
	struct prog_rec *rec;
	size_t n, cap;
	int fail_at;		/* refuse the n-th record (1-based); 0 never */
	struct prog_grammar g;	/* every record checked as writers do */
	const char *bad_field, *bad_why;
};

static int capture_sink(void *ctx, const struct prog_rec *rec)
{
	struct capture *c = ctx;

	if (c->fail_at && c->n + 1 == (size_t)c->fail_at)
		return -ENOSPC;
	if (!c->bad_field && prog_grammar_check(&c->g, rec)) {
		c->bad_field = c->g.err_field;
		c->bad_why = c->g.err_why;
	}
	if (c->n == c->cap) {
		c->cap = c->cap ? c->cap * 2 : 256;
		c->rec = realloc(c->rec, c->cap * sizeof(*c->rec));
		if (!c->rec)
			abort();
	}
	c->rec[c->n++] = *rec;
	return 0;
}

static struct simt_gpu *gpu_new(struct capture *c)
{
	struct simt_gpu *gpu = simt_gpu_new(NULL);

	memset(c, 0, sizeof(*c));
	prog_grammar_init(&c->g);
	if (gpu)
		simt_gpu_set_sink(gpu, capture_sink, c);
	return gpu;
}

/* The index of the first record of type after from, or -1. */
static long find_rec(const struct capture *c, size_t from, u32 type)
{
	size_t i;

	for (i = from; i < c->n; i++)
		if (c->rec[i].type == type)
			return (long)i;
	return -1;
}

/*
 * The instructions of warp id of the nth block (0-based) of the last
 * kernel: *n of them, from the returned index on.
 */
static long warp_insts(const struct capture *c, u32 block, u32 id, u32 *n)
{
	long k = -1, b = -1;
	size_t i;
	u32 seen = 0;

	for (i = 0; i < c->n; i++)
		if (c->rec[i].type == PROG_REC_KERNEL)
			k = (long)i;
	if (k < 0)
		return -1;
	for (i = (size_t)k; i < c->n; i++) {
		if (c->rec[i].type != PROG_REC_BLOCK)
			continue;
		if (seen++ == block) {
			b = (long)i;
			break;
		}
	}
	if (b < 0)
		return -1;
	for (i = (size_t)b + 1; i < c->n; i++) {
		if (c->rec[i].type == PROG_REC_BLOCK_END)
			return -1;
		if (c->rec[i].type == PROG_REC_WARP && c->rec[i].warp.id == id) {
			*n = c->rec[i].warp.insts;
			return (long)i + 1;
		}
	}
	return -1;
}

static const struct prog_inst *inst(const struct capture *c, long at, u32 k)
{
	return &c->rec[at + k].inst;
}

/*
 * 0 if every record passed program.h's grammar (and every instruction
 * has lanes), else the first bad one's field and reason in the log.
 */
static int check_order(const struct capture *c)
{
	size_t i;

	if (c->bad_field) {
		printf("# grammar: %s: %s\n", c->bad_field, c->bad_why);
		return -EINVAL;
	}
	for (i = 0; i < c->n; i++)
		if (c->rec[i].type == PROG_REC_INST && !c->rec[i].inst.mask)
			return -EINVAL;
	return 0;
}

/* ---- kernels ---- */

struct copy_args {
	uint64_t a, b;
	uint32_t stride;
};

static void k_scale(struct simt_thread *t, const void *p)
{
	const struct copy_args *a = p;
	uint64_t i = simt_global_x(t);
	float v = LD(t, float, a->a, i * a->stride);

	ST(t, float, a->b, i, v * 2);
}

static void k_ifelse(struct simt_thread *t, const void *p)
{
	const struct copy_args *a = p;
	uint64_t i = simt_global_x(t);
	uint32_t v;

	if (simt_thread_idx(t).x % 32 < 10)
		v = LD(t, uint32_t, a->a, i);
	else
		v = LD(t, uint32_t, a->a, i + 32) + 1;
	ST(t, uint32_t, a->b, i, v);
}

static void k_loop(struct simt_thread *t, const void *p)
{
	const struct copy_args *a = p;
	uint64_t i = simt_global_x(t);
	uint32_t k, sum = 0;

	for (k = 0; k < i % 4 + 1; k++)
		sum += LD(t, uint32_t, a->a, k);
	ST(t, uint32_t, a->b, i, sum);
}

/* A block reduction over shared memory (64 threads). */
static void k_reduce(struct simt_thread *t, const void *p)
{
	const struct copy_args *a = p;
	uint32_t tid = simt_thread_idx(t).x, s;

	STS(t, uint32_t, tid, LD(t, uint32_t, a->a, simt_global_x(t)));
	SYNC(t);
	for (s = simt_block_dim(t).x / 2; s; s /= 2) {
		if (tid < s)
			STS(t, uint32_t, tid,
			    LDS(t, uint32_t, tid) + LDS(t, uint32_t, tid + s));
		SYNC(t);
	}
	if (tid == 0)
		ST(t, uint32_t, a->b, simt_block_idx(t).x, LDS(t, uint32_t, 0));
}

/* Long per-thread streams: lane l runs 300 + l iterations. */
static void k_long(struct simt_thread *t, const void *p)
{
	const struct copy_args *a = p;
	uint32_t j, n = 300 + simt_thread_idx(t).x % 32, sum = 0;

	for (j = 0; j < n; j++) {
		OPS(t, PROG_OP_INT, 1);
		sum += LD(t, uint32_t, a->a, j);
	}
	ST(t, uint32_t, a->b, simt_global_x(t), sum);
}

struct hist_args {
	uint64_t in, bins, old, fsum, mins, cas;
};

static void k_hist(struct simt_thread *t, const void *p)
{
	const struct hist_args *a = p;
	uint64_t i = simt_global_x(t);
	uint32_t v = LD(t, uint32_t, a->in, i);
	uint32_t old = ATOMIC(t, uint32_t, SIMT_ATOMIC_ADD, a->bins, v % 8, 1);

	ST(t, uint32_t, a->old, i, old);
	RED(t, float, SIMT_ATOMIC_FADD, a->fsum, 0, 0.5f);
	RED(t, double, SIMT_ATOMIC_ADD, a->fsum, 1, 0.25);
	RED(t, int32_t, SIMT_ATOMIC_MIN, a->mins, 0, (int32_t)i - 100);
	RED(t, uint32_t, SIMT_ATOMIC_MAX, a->mins, 1, (uint32_t)i);
	/* Only the first thread finds 0 and stores its index + 1. */
	ATOMIC_CAS(t, uint32_t, a->cas, 0, 0, (uint32_t)i + 1);
	ATOMIC_SHARED(t, uint32_t, SIMT_ATOMIC_OR, 0, 1u << (i % 32));
}

static void k_index(struct simt_thread *t, const void *p)
{
	const struct copy_args *a = p;
	struct simt_dim3 ti = simt_thread_idx(t), bi = simt_block_idx(t);
	struct simt_dim3 bd = simt_block_dim(t), gd = simt_grid_dim(t);
	uint64_t block = bi.x + (uint64_t)gd.x * (bi.y + (uint64_t)gd.y * bi.z);
	uint64_t thread = ti.x + (uint64_t)bd.x * (ti.y + (uint64_t)bd.y * ti.z);
	uint64_t n = (uint64_t)bd.x * bd.y * bd.z;

	ST(t, uint32_t, a->b, block * n + thread,
	   ti.x | ti.y << 4 | ti.z << 8 | bi.x << 12 | bi.y << 16 | bi.z << 20);
}

static void k_saxpy(struct simt_thread *t, const void *p)
{
	const struct copy_args *a = p;
	uint64_t i = simt_global_x(t);
	float x, y;

	OPS(t, PROG_OP_INT, 1);
	x = LD(t, float, a->a, i);
	y = LD(t, float, a->b, i);
	OPS(t, PROG_OP_FP, 2);
	ST(t, float, a->b, i, 2.0f * x + y);
}

/* OPS counts that differ by lane: lane l does l % 3 instructions. */
static void k_ops(struct simt_thread *t, const void *p)
{
	(void)p;
	OPS(t, PROG_OP_INT, simt_thread_idx(t).x % 3);
}

/* Lanes 0..7 return before the barrier the others wait at. */
static void k_early(struct simt_thread *t, const void *p)
{
	const struct copy_args *a = p;
	uint32_t tid = simt_thread_idx(t).x;

	if (tid < 8)
		return;
	SYNC(t);
	ST(t, uint32_t, a->b, tid, tid);
}

static void k_oob(struct simt_thread *t, const void *p)
{
	const struct copy_args *a = p;
	uint64_t i = simt_global_x(t);

	/* Thread 37 of block 1 reads just past the end of a (130 words). */
	if (i == 101)
		(void)LD(t, uint32_t, a->a, 130);
	ST(t, uint32_t, a->b, i, 1);
}

static void k_shared_oob(struct simt_thread *t, const void *p)
{
	(void)p;
	STS(t, uint64_t, simt_thread_idx(t).x, 1);
}

/* ---- tests ---- */

TEST(coalesced_load_and_store)
{
	struct capture c;
	struct simt_gpu *gpu = gpu_new(&c);
	struct copy_args a = { .stride = 1 };
	float in[32], out[32];
	u32 n, l;
	long w;

	ASSERT_NE(NULL, gpu);
	for (l = 0; l < 32; l++)
		in[l] = (float)l;
	a.a = simt_malloc(gpu, sizeof(in), "in");
	a.b = simt_malloc(gpu, sizeof(out), "out");
	EXPECT_EQ(0x7f0000000000ull, a.a);
	EXPECT_EQ(0x7f0000000100ull, a.b);
	simt_h2d(gpu, a.a, in, sizeof(in));
	ASSERT_EQ(0, simt_launch(gpu, "scale", k_scale, DIM3(1, 1, 1),
				 DIM3(32, 1, 1), 0, &a));
	simt_d2h(gpu, out, a.b, sizeof(out));
	ASSERT_EQ(0, simt_gpu_finish(gpu));
	for (l = 0; l < 32; l++)
		EXPECT_EQ(2.0f * l, out[l]);

	ASSERT_EQ(0, check_order(&c));
	EXPECT_EQ(PROG_REC_OBJECT, c.rec[0].type);
	EXPECT_EQ(a.a, c.rec[0].object.base);
	EXPECT_EQ(128, c.rec[0].object.size);
	EXPECT_STREQ("in", c.rec[0].object.name);
	EXPECT_EQ(PROG_REC_COPY, c.rec[2].type);
	EXPECT_EQ(PROG_COPY_H2D, c.rec[2].copy.dir);
	ASSERT_EQ(PROG_REC_KERNEL, c.rec[3].type);
	EXPECT_EQ(1, c.rec[3].kernel.id);
	EXPECT_STREQ("scale", c.rec[3].kernel.name);
	EXPECT_EQ(32, c.rec[3].kernel.block[0]);
	EXPECT_EQ(70, c.rec[3].kernel.binary_version);
	EXPECT_EQ(PROG_REC_END, c.rec[c.n - 1].type);
	EXPECT_EQ(PROG_REC_COPY, c.rec[c.n - 2].type);
	EXPECT_EQ(PROG_COPY_D2H, c.rec[c.n - 2].copy.dir);

	w = warp_insts(&c, 0, 0, &n);
	ASSERT_LE(0, w);
	ASSERT_EQ(3, n);		/* LDG, STG, EXIT */
	EXPECT_EQ(PROG_OP_MEMORY, inst(&c, w, 0)->op);
	EXPECT_EQ(PROG_SPACE_GLOBAL, inst(&c, w, 0)->space);
	EXPECT_EQ(PROG_KIND_LOAD, inst(&c, w, 0)->kind);
	EXPECT_EQ(4, inst(&c, w, 0)->width);
	EXPECT_EQ(FULL, inst(&c, w, 0)->mask);
	for (l = 0; l < 32; l++) {
		EXPECT_EQ(a.a + 4 * l, inst(&c, w, 0)->addr[l]);
		EXPECT_EQ(a.b + 4 * l, inst(&c, w, 1)->addr[l]);
	}
	EXPECT_EQ(PROG_KIND_STORE, inst(&c, w, 1)->kind);
	EXPECT_LT(inst(&c, w, 0)->pc, inst(&c, w, 1)->pc);
	EXPECT_EQ(PROG_OP_BRANCH, inst(&c, w, 2)->op);
	EXPECT_STREQ("EXIT", inst(&c, w, 2)->opcode);
	EXPECT_EQ(FULL, inst(&c, w, 2)->mask);
	EXPECT_EQ(0, check_order(&c));
	simt_gpu_free(gpu);
	free(c.rec);
}

TEST(strided_load)
{
	struct capture c;
	struct simt_gpu *gpu = gpu_new(&c);
	struct copy_args a = { .stride = 5 };
	u32 n, l;
	long w;

	ASSERT_NE(NULL, gpu);
	a.a = simt_malloc(gpu, 64 * 5 * 4, "in");
	a.b = simt_malloc(gpu, 64 * 4, "out");
	ASSERT_EQ(0, simt_launch(gpu, "strided", k_scale, DIM3(2, 1, 1),
				 DIM3(32, 1, 1), 0, &a));
	w = warp_insts(&c, 1, 0, &n);
	ASSERT_LE(0, w);
	ASSERT_EQ(3, n);
	for (l = 0; l < 32; l++)
		EXPECT_EQ(a.a + 4 * 5 * (32 + l), inst(&c, w, 0)->addr[l]);
	EXPECT_EQ(0, check_order(&c));
	simt_gpu_free(gpu);
	free(c.rec);
}

TEST(divergent_if_else_reconverges)
{
	struct capture c;
	struct simt_gpu *gpu = gpu_new(&c);
	struct copy_args a = { 0 };
	uint32_t in[64], out[32];
	u32 n, l;
	long w;

	ASSERT_NE(NULL, gpu);
	for (l = 0; l < 64; l++)
		in[l] = l * 10;
	a.a = simt_malloc(gpu, sizeof(in), "in");
	a.b = simt_malloc(gpu, sizeof(out), "out");
	simt_h2d(gpu, a.a, in, sizeof(in));
	ASSERT_EQ(0, simt_launch(gpu, "ifelse", k_ifelse, DIM3(1, 1, 1),
				 DIM3(32, 1, 1), 0, &a));
	simt_d2h(gpu, out, a.b, sizeof(out));
	for (l = 0; l < 32; l++)
		EXPECT_EQ(l < 10 ? l * 10 : (l + 32) * 10 + 1, out[l]);
	w = warp_insts(&c, 0, 0, &n);
	ASSERT_LE(0, w);
	ASSERT_EQ(4, n);		/* then, else, store, EXIT */
	EXPECT_EQ(0x3ffu, inst(&c, w, 0)->mask);
	EXPECT_EQ(FULL & ~0x3ffu, inst(&c, w, 1)->mask);
	EXPECT_EQ(FULL, inst(&c, w, 2)->mask);
	EXPECT_EQ(PROG_KIND_STORE, inst(&c, w, 2)->kind);
	for (l = 0; l < 32; l++) {
		/* Inactive lanes have no address. */
		EXPECT_EQ(l < 10 ? a.a + 4 * l : 0, inst(&c, w, 0)->addr[l]);
		EXPECT_EQ(l < 10 ? 0 : a.a + 4 * (l + 32),
			  inst(&c, w, 1)->addr[l]);
	}
	EXPECT_EQ(0, check_order(&c));
	simt_gpu_free(gpu);
	free(c.rec);
}

TEST(loop_masks_shrink_with_trip_counts)
{
	struct capture c;
	struct simt_gpu *gpu = gpu_new(&c);
	struct copy_args a = { 0 };
	uint32_t in[4] = { 1, 2, 4, 8 }, out[32];
	static const u32 masks[4] = { 0xffffffff, 0xeeeeeeee, 0xcccccccc,
				      0x88888888 };
	u32 n, l, k;
	long w;

	ASSERT_NE(NULL, gpu);
	a.a = simt_malloc(gpu, sizeof(in), "in");
	a.b = simt_malloc(gpu, sizeof(out), "out");
	simt_h2d(gpu, a.a, in, sizeof(in));
	ASSERT_EQ(0, simt_launch(gpu, "loop", k_loop, DIM3(1, 1, 1),
				 DIM3(32, 1, 1), 0, &a));
	simt_d2h(gpu, out, a.b, sizeof(out));
	for (l = 0; l < 32; l++)
		EXPECT_EQ((1u << (l % 4 + 1)) - 1, out[l]);
	w = warp_insts(&c, 0, 0, &n);
	ASSERT_LE(0, w);
	ASSERT_EQ(6, n);
	for (k = 0; k < 4; k++) {
		EXPECT_EQ(masks[k], inst(&c, w, k)->mask);
		EXPECT_EQ(inst(&c, w, 0)->pc, inst(&c, w, k)->pc);
		for (l = 0; l < 32; l++)
			EXPECT_EQ(masks[k] >> l & 1 ? a.a + 4 * k : 0,
				  inst(&c, w, k)->addr[l]);
	}
	EXPECT_EQ(FULL, inst(&c, w, 4)->mask);
	EXPECT_EQ(PROG_KIND_STORE, inst(&c, w, 4)->kind);
	EXPECT_EQ(0, check_order(&c));
	simt_gpu_free(gpu);
	free(c.rec);
}

TEST(block_reduction_with_barriers)
{
	struct capture c;
	struct simt_gpu *gpu = gpu_new(&c);
	struct copy_args a = { 0 };
	uint32_t in[128], out[2], want[2] = { 0, 0 };
	u32 n, l, bars, wi, k;
	long w;

	ASSERT_NE(NULL, gpu);
	for (l = 0; l < 128; l++) {
		in[l] = l * l + 3;
		want[l / 64] += in[l];
	}
	a.a = simt_malloc(gpu, sizeof(in), "in");
	a.b = simt_malloc(gpu, sizeof(out), "out");
	simt_h2d(gpu, a.a, in, sizeof(in));
	ASSERT_EQ(0, simt_launch(gpu, "reduce", k_reduce, DIM3(2, 1, 1),
				 DIM3(64, 1, 1), 64 * 4, &a));
	simt_d2h(gpu, out, a.b, sizeof(out));
	EXPECT_EQ(want[0], out[0]);
	EXPECT_EQ(want[1], out[1]);
	ASSERT_EQ(0, check_order(&c));
	EXPECT_EQ(0x7e0000000000ull,
		  c.rec[find_rec(&c, 0, PROG_REC_KERNEL)].kernel.shmem_base);
	EXPECT_EQ(256, c.rec[find_rec(&c, 0, PROG_REC_KERNEL)].kernel.shmem);

	for (wi = 0; wi < 2; wi++) {
		u32 sts = 0;

		w = warp_insts(&c, 1, wi, &n);
		ASSERT_LE(0, w);
		for (bars = 0, k = 0; k < n; k++) {
			const struct prog_inst *in = inst(&c, w, k);

			if (in->op == PROG_OP_BARRIER) {
				bars++;
				EXPECT_EQ(FULL, in->mask);
				EXPECT_STRNE("", in->opcode);
			}
			if (in->op == PROG_OP_MEMORY &&
			    in->space == PROG_SPACE_SHARED &&
			    in->kind == PROG_KIND_STORE && sts++ == 0) {
				/* The first STS: shared window + 4 * tid. */
				for (l = 0; l < 32; l++)
					EXPECT_EQ(0x7e0000000000ull +
						  4 * (32 * wi + l),
						  in->addr[l]);
			}
		}
		EXPECT_EQ(7, bars);	/* one, then one per step of 6 */
	}
	/* Warp 1 of block 1 is idle in the last five steps (tid < 16..1). */
	w = warp_insts(&c, 1, 0, &n);
	ASSERT_LE(0, w);
	EXPECT_EQ(FULL, inst(&c, w, n - 1)->mask);	/* EXIT */
	EXPECT_EQ(0, check_order(&c));
	simt_gpu_free(gpu);
	free(c.rec);
}

TEST(atomics_histogram)
{
	struct capture c;
	struct simt_gpu *gpu = gpu_new(&c);
	struct hist_args a;
	uint32_t in[256], bins[8], old[256], want[8] = { 0 }, cas, mins[2];
	uint8_t seen[8 * 256] = { 0 };
	double dsum;
	float fsum;
	u32 i, n, k, atoms = 0, reds = 0;
	long w;

	ASSERT_NE(NULL, gpu);
	for (i = 0; i < 256; i++) {
		in[i] = (i * 2654435761u) >> 7;
		want[in[i] % 8]++;
	}
	a.in = simt_malloc(gpu, sizeof(in), "in");
	a.bins = simt_malloc(gpu, sizeof(bins), "bins");
	a.old = simt_malloc(gpu, sizeof(old), "old");
	a.fsum = simt_malloc(gpu, 16, "fsum");
	a.mins = simt_malloc(gpu, 8, "mins");
	a.cas = simt_malloc(gpu, 4, "cas");
	simt_h2d(gpu, a.in, in, sizeof(in));
	ASSERT_EQ(0, simt_launch(gpu, "hist", k_hist, DIM3(2, 1, 1),
				 DIM3(128, 1, 1), 4, &a)) {
		TH_LOG("%s", simt_gpu_error(gpu));
	}
	simt_d2h(gpu, bins, a.bins, sizeof(bins));
	simt_d2h(gpu, old, a.old, sizeof(old));
	for (k = 0; k < 8; k++)
		EXPECT_EQ(want[k], bins[k]);
	/* Each bin's old values are 0..count-1, each once. */
	for (i = 0; i < 256; i++) {
		u32 b = in[i] % 8;

		ASSERT_LT(old[i], want[b]);
		EXPECT_EQ(0, seen[b * 256 + old[i]]);
		seen[b * 256 + old[i]] = 1;
	}
	memcpy(&fsum, simt_host(gpu, a.fsum), 4);
	memcpy(&dsum, simt_host(gpu, a.fsum + 8), 8);
	EXPECT_EQ(128.0f, fsum);
	EXPECT_EQ(64.0, dsum);
	memcpy(mins, simt_host(gpu, a.mins), 8);
	EXPECT_EQ(-100, (int32_t)mins[0]);
	EXPECT_EQ(255, mins[1]);
	memcpy(&cas, simt_host(gpu, a.cas), 4);
	EXPECT_EQ(1, cas);

	w = warp_insts(&c, 0, 0, &n);
	ASSERT_LE(0, w);
	for (k = 0; k < n; k++) {
		const struct prog_inst *in = inst(&c, w, k);

		if (in->kind == PROG_KIND_ATOMIC)
			atoms++;
		if (in->kind == PROG_KIND_REDUCTION) {
			reds++;
			EXPECT_EQ(0, in->ndst);
		}
	}
	EXPECT_EQ(3, atoms);	/* ATOMG.ADD, ATOMG.CAS, ATOMS.OR */
	EXPECT_EQ(4, reds);
	EXPECT_STREQ("ATOMG.E.ADD", inst(&c, w, 1)->opcode);
	EXPECT_STREQ("RED.E.ADD.F32.FTZ.RN", inst(&c, w, 3)->opcode);
	EXPECT_STREQ("RED.E.ADD.F64.RN", inst(&c, w, 4)->opcode);
	EXPECT_STREQ("RED.E.MIN.S32", inst(&c, w, 5)->opcode);
	EXPECT_STREQ("RED.E.MAX", inst(&c, w, 6)->opcode);
	EXPECT_STREQ("ATOMG.E.CAS", inst(&c, w, 7)->opcode);
	EXPECT_STREQ("ATOMS.OR", inst(&c, w, 8)->opcode);
	EXPECT_EQ(PROG_SPACE_SHARED, inst(&c, w, 8)->space);
	EXPECT_EQ(0, check_order(&c));
	simt_gpu_free(gpu);
	free(c.rec);
}

TEST(long_streams_and_full_blocks)
{
	struct capture c;
	struct simt_gpu *gpu = gpu_new(&c);
	struct copy_args a = { 0 };
	uint32_t in[1024], out[1024], want = 0;
	u32 n, l, i;
	long w;

	ASSERT_NE(NULL, gpu);
	for (i = 0; i < 1024; i++)
		in[i] = i * 7 + 1;
	a.a = simt_malloc(gpu, sizeof(in), "in");
	a.b = simt_malloc(gpu, sizeof(out), "out");
	simt_h2d(gpu, a.a, in, sizeof(in));
	ASSERT_EQ(0, simt_launch(gpu, "long", k_long, DIM3(1, 1, 1),
				 DIM3(64, 1, 1), 0, &a));
	simt_d2h(gpu, out, a.b, sizeof(out));
	for (i = 0; i < 331; i++) {
		want += in[i];
		if (i >= 299)
			EXPECT_EQ(want, out[i - 299]);
	}
	w = warp_insts(&c, 0, 1, &n);
	ASSERT_LE(0, w);
	ASSERT_EQ(2 * 331 + 2, n);
	/* Iteration 300 + k runs on lanes above k. */
	for (l = 0; l < 31; l++)
		EXPECT_EQ(FULL << (l + 1), inst(&c, w, 2 * (300 + l))->mask);

	/* 1024 threads between barriers: as many stacks at once. */
	ASSERT_EQ(0, simt_launch(gpu, "reduce1024", k_reduce, DIM3(1, 1, 1),
				 DIM3(1024, 1, 1), 4096, &a));
	simt_d2h(gpu, out, a.b, 4);
	for (want = 0, i = 0; i < 1024; i++)
		want += in[i];
	EXPECT_EQ(want, out[0]);
	EXPECT_EQ(0, check_order(&c));
	simt_gpu_free(gpu);
	free(c.rec);
}

TEST(partial_last_warp)
{
	struct capture c;
	struct simt_gpu *gpu = gpu_new(&c);
	struct copy_args a = { .stride = 1 };
	u32 n, k;
	long w;

	ASSERT_NE(NULL, gpu);
	a.a = simt_malloc(gpu, 48 * 4, "in");
	a.b = simt_malloc(gpu, 48 * 4, "out");
	ASSERT_EQ(0, simt_launch(gpu, "partial", k_scale, DIM3(1, 1, 1),
				 DIM3(48, 1, 1), 0, &a));
	w = warp_insts(&c, 0, 1, &n);
	ASSERT_LE(0, w);
	ASSERT_EQ(3, n);
	for (k = 0; k < n; k++)
		EXPECT_EQ(0xffffu, inst(&c, w, k)->mask);
	EXPECT_EQ(a.a + 4 * 47, inst(&c, w, 0)->addr[15]);
	EXPECT_EQ(0, inst(&c, w, 0)->addr[16]);
	EXPECT_EQ(-1, warp_insts(&c, 0, 2, &n));
	EXPECT_EQ(0, check_order(&c));
	simt_gpu_free(gpu);
	free(c.rec);
}

TEST(grid_and_block_indices_2d_3d)
{
	struct capture c;
	struct simt_gpu *gpu = gpu_new(&c);
	struct copy_args a = { 0 };
	uint32_t out[12 * 24];
	u32 bx, by, bz, tx, ty, tz, i = 0, nblocks = 0;
	long r;

	ASSERT_NE(NULL, gpu);
	a.b = simt_malloc(gpu, sizeof(out), "out");
	ASSERT_EQ(0, simt_launch(gpu, "index", k_index, DIM3(2, 3, 2),
				 DIM3(4, 2, 3), 0, &a));
	simt_d2h(gpu, out, a.b, sizeof(out));
	for (bz = 0; bz < 2; bz++)
		for (by = 0; by < 3; by++)
			for (bx = 0; bx < 2; bx++)
				for (tz = 0; tz < 3; tz++)
					for (ty = 0; ty < 2; ty++)
						for (tx = 0; tx < 4; tx++)
							EXPECT_EQ(tx | ty << 4 | tz << 8 |
								  bx << 12 | by << 16 |
								  bz << 20, out[i++]);
	/* Blocks in linear order, x fastest. */
	for (r = find_rec(&c, 0, PROG_REC_BLOCK); r >= 0;
	     r = find_rec(&c, r + 1, PROG_REC_BLOCK), nblocks++) {
		EXPECT_EQ(nblocks % 2, c.rec[r].block.x);
		EXPECT_EQ(nblocks / 2 % 3, c.rec[r].block.y);
		EXPECT_EQ(nblocks / 6, c.rec[r].block.z);
	}
	EXPECT_EQ(12, nblocks);
	EXPECT_EQ(0, check_order(&c));
	simt_gpu_free(gpu);
	free(c.rec);
}

TEST(registers_chain_loads_ops_and_stores)
{
	struct capture c;
	struct simt_gpu *gpu = gpu_new(&c);
	struct copy_args a = { 0 };
	const struct prog_inst *in;
	u32 n;
	long w;

	ASSERT_NE(NULL, gpu);
	a.a = simt_malloc(gpu, 32 * 4, "x");
	a.b = simt_malloc(gpu, 32 * 4, "y");
	ASSERT_EQ(0, simt_launch(gpu, "saxpy", k_saxpy, DIM3(1, 1, 1),
				 DIM3(32, 1, 1), 0, &a));
	w = warp_insts(&c, 0, 0, &n);
	ASSERT_LE(0, w);
	ASSERT_EQ(7, n);	/* IADD3, LDG, LDG, FFMA, FFMA, STG, EXIT */
	in = inst(&c, w, 0);	/* index: R1 -> R2 */
	EXPECT_EQ(PROG_OP_INT, in->op);
	EXPECT_EQ(1, in->nsrc);
	EXPECT_EQ(1, in->src[0]);
	ASSERT_EQ(1, in->ndst);
	EXPECT_EQ(2, in->dst[0]);
	in = inst(&c, w, 1);	/* LDG R8 <- [R2] */
	EXPECT_EQ(1, in->nsrc);
	EXPECT_EQ(2, in->src[0]);
	EXPECT_EQ(8, in->dst[0]);
	in = inst(&c, w, 2);	/* LDG R9 <- [R2] */
	EXPECT_EQ(9, in->dst[0]);
	in = inst(&c, w, 3);	/* FFMA R3 <- R8, R9 */
	EXPECT_EQ(PROG_OP_FP, in->op);
	ASSERT_EQ(2, in->nsrc);
	EXPECT_EQ(8, in->src[0]);
	EXPECT_EQ(9, in->src[1]);
	EXPECT_EQ(3, in->dst[0]);
	EXPECT_EQ(inst(&c, w, 3)->pc + 1, inst(&c, w, 4)->pc);
	in = inst(&c, w, 4);	/* FFMA R3 <- R3 */
	ASSERT_EQ(1, in->nsrc);
	EXPECT_EQ(3, in->src[0]);
	in = inst(&c, w, 5);	/* STG [R2] <- R3 */
	ASSERT_EQ(2, in->nsrc);
	EXPECT_EQ(2, in->src[0]);
	EXPECT_EQ(3, in->src[1]);
	EXPECT_EQ(0, in->ndst);
	EXPECT_EQ(0, check_order(&c));
	simt_gpu_free(gpu);
	free(c.rec);
}

TEST(ops_counts_by_lane)
{
	struct capture c;
	struct simt_gpu *gpu = gpu_new(&c);
	u32 n, m1 = 0, m2 = 0, l;
	long w;

	ASSERT_NE(NULL, gpu);
	ASSERT_EQ(0, simt_launch(gpu, "ops", k_ops, DIM3(1, 1, 1),
				 DIM3(32, 1, 1), 0, NULL));
	for (l = 0; l < 32; l++) {
		if (l % 3 >= 1)
			m1 |= 1u << l;
		if (l % 3 >= 2)
			m2 |= 1u << l;
	}
	w = warp_insts(&c, 0, 0, &n);
	ASSERT_LE(0, w);
	ASSERT_EQ(3, n);
	EXPECT_EQ(m1, inst(&c, w, 0)->mask);
	EXPECT_EQ(m2, inst(&c, w, 1)->mask);
	EXPECT_EQ(inst(&c, w, 0)->pc + 1, inst(&c, w, 1)->pc);
	EXPECT_EQ(FULL, inst(&c, w, 2)->mask);
	EXPECT_EQ(0, check_order(&c));
	simt_gpu_free(gpu);
	free(c.rec);
}

TEST(exited_threads_count_as_arrived)
{
	struct capture c;
	struct simt_gpu *gpu = gpu_new(&c);
	struct copy_args a = { 0 };
	u32 n;
	long w;

	ASSERT_NE(NULL, gpu);
	a.b = simt_malloc(gpu, 64 * 4, "out");
	ASSERT_EQ(0, simt_launch(gpu, "early", k_early, DIM3(1, 1, 1),
				 DIM3(64, 1, 1), 0, &a));
	w = warp_insts(&c, 0, 0, &n);
	ASSERT_LE(0, w);
	ASSERT_EQ(4, n);	/* EXIT 0..7, BAR 8..31, STG, EXIT */
	EXPECT_STREQ("EXIT", inst(&c, w, 0)->opcode);
	EXPECT_EQ(0xffu, inst(&c, w, 0)->mask);
	EXPECT_EQ(PROG_OP_BARRIER, inst(&c, w, 1)->op);
	EXPECT_EQ(FULL & ~0xffu, inst(&c, w, 1)->mask);
	EXPECT_EQ(FULL & ~0xffu, inst(&c, w, 2)->mask);
	EXPECT_EQ(FULL & ~0xffu, inst(&c, w, 3)->mask);
	w = warp_insts(&c, 0, 1, &n);
	ASSERT_LE(0, w);
	ASSERT_EQ(3, n);	/* BAR, STG, EXIT */
	EXPECT_EQ(FULL, inst(&c, w, 0)->mask);
	EXPECT_EQ(0, check_order(&c));
	simt_gpu_free(gpu);
	free(c.rec);
}

TEST(out_of_bounds_is_efault_with_a_message)
{
	struct capture c;
	struct simt_gpu *gpu = gpu_new(&c);
	struct copy_args a = { 0 };
	char want[128];

	ASSERT_NE(NULL, gpu);
	a.a = simt_malloc(gpu, 130 * 4, "in");
	a.b = simt_malloc(gpu, 128 * 4, "out");
	EXPECT_EQ(-EFAULT, simt_launch(gpu, "oob", k_oob, DIM3(2, 1, 1),
				       DIM3(64, 1, 1), 0, &a));
	snprintf(want, sizeof(want), "at 0x%llx",
		 (unsigned long long)a.a + 520);
	EXPECT_NE(NULL, strstr(simt_gpu_error(gpu), "kernel oob"));
	EXPECT_NE(NULL, strstr(simt_gpu_error(gpu), "block (1,0,0)"));
	EXPECT_NE(NULL, strstr(simt_gpu_error(gpu), "thread (37,0,0)"));
	EXPECT_NE(NULL, strstr(simt_gpu_error(gpu), want)) {
		TH_LOG("%s", simt_gpu_error(gpu));
	}
	/* The GPU keeps its first error. */
	EXPECT_EQ(-EFAULT, simt_launch(gpu, "again", k_scale, DIM3(1, 1, 1),
				       DIM3(32, 1, 1), 0, &a));
	EXPECT_EQ(-EFAULT, simt_gpu_finish(gpu));
	simt_gpu_free(gpu);
	free(c.rec);

	gpu = gpu_new(&c);
	ASSERT_NE(NULL, gpu);
	EXPECT_EQ(-EFAULT, simt_launch(gpu, "shoob", k_shared_oob,
				       DIM3(1, 1, 1), DIM3(64, 1, 1), 256,
				       NULL));
	EXPECT_NE(NULL, strstr(simt_gpu_error(gpu), "thread (32,0,0)")) {
		TH_LOG("%s", simt_gpu_error(gpu));
	}
	EXPECT_NE(NULL, strstr(simt_gpu_error(gpu), "offset 0x100"));
	simt_gpu_free(gpu);
	free(c.rec);

	/* Host copies outside every object. */
	gpu = gpu_new(&c);
	ASSERT_NE(NULL, gpu);
	a.a = simt_malloc(gpu, 64, "small");
	simt_h2d(gpu, a.a, want, 65);
	EXPECT_EQ(-EFAULT, simt_gpu_finish(gpu));
	EXPECT_NE(NULL, strstr(simt_gpu_error(gpu), "simt_h2d")) {
		TH_LOG("%s", simt_gpu_error(gpu));
	}
	EXPECT_EQ(0, check_order(&c));
	simt_gpu_free(gpu);
	free(c.rec);
}

TEST(bad_launches_are_einval)
{
	struct capture c;
	struct simt_gpu *gpu = gpu_new(&c);

	ASSERT_NE(NULL, gpu);
	EXPECT_EQ(-EINVAL, simt_launch(gpu, "big", k_ops, DIM3(1, 1, 1),
				       DIM3(1025, 1, 1), 0, NULL));
	EXPECT_NE(NULL, strstr(simt_gpu_error(gpu), "block (1025,1,1)"));
	simt_gpu_free(gpu);
	free(c.rec);
	gpu = gpu_new(&c);
	EXPECT_EQ(-EINVAL, simt_launch(gpu, "nogrid", k_ops, DIM3(0, 1, 1),
				       DIM3(1, 1, 1), 0, NULL));
	EXPECT_EQ(0, check_order(&c));
	simt_gpu_free(gpu);
	free(c.rec);
}

TEST(sink_error_stops_the_gpu)
{
	struct capture c;
	struct simt_gpu *gpu = gpu_new(&c);
	struct copy_args a = { .stride = 1 };

	ASSERT_NE(NULL, gpu);
	c.fail_at = 6;		/* OBJECT OBJECT KERNEL BLOCK WARP *INST* */
	a.a = simt_malloc(gpu, 32 * 4, "in");
	a.b = simt_malloc(gpu, 32 * 4, "out");
	EXPECT_EQ(-ENOSPC, simt_launch(gpu, "scale", k_scale, DIM3(4, 1, 1),
				       DIM3(32, 1, 1), 0, &a));
	EXPECT_EQ(5, c.n);
	EXPECT_EQ(-ENOSPC, simt_gpu_finish(gpu));
	EXPECT_EQ(0, check_order(&c));
	simt_gpu_free(gpu);
	free(c.rec);
}

/* A gather: where it reads depends on the data. */
static void k_gather(struct simt_thread *t, const void *p)
{
	const struct copy_args *a = p;
	uint64_t i = simt_global_x(t);
	uint32_t v = LD(t, uint32_t, a->a, i);

	if (v & 1)
		v = LD(t, uint32_t, a->a, v % 512);
	ST(t, uint32_t, a->b, i % 8, v);
}

static int run_kernels(struct simt_gpu *gpu, uint64_t seed);

/* A program of three kernels, as records and as binary bytes. */
static int run_program(struct capture *c, struct prog_mem *b, uint64_t seed)
{
	struct prog_writer *w = calloc(1, sizeof(*w));
	struct simt_gpu *gpu;
	int ret;

	memset(b, 0, sizeof(*b));
	if (!w || prog_writer_init(w, prog_mem_write, b))
		return -ENOMEM;
	gpu = simt_gpu_new(w);
	memset(c, 0, sizeof(*c));
	prog_grammar_init(&c->g);
	simt_gpu_set_sink(gpu, capture_sink, c);
	ret = run_kernels(gpu, seed);
	simt_gpu_free(gpu);
	free(w);
	return ret;
}

static int run_kernels(struct simt_gpu *gpu, uint64_t seed)
{
	struct copy_args a = { 0 };
	uint32_t in[512];
	u32 i;

	if (!gpu)
		return -ENOMEM;
	for (i = 0; i < 512; i++)
		in[i] = (uint32_t)((i + seed) * 2654435761u);
	a.a = simt_malloc(gpu, sizeof(in), "in");
	a.b = simt_malloc(gpu, 8 * 4, "out");
	simt_h2d(gpu, a.a, in, sizeof(in));
	simt_launch(gpu, "reduce", k_reduce, DIM3(8, 1, 1), DIM3(64, 1, 1),
		    256, &a);
	simt_launch(gpu, "loop", k_loop, DIM3(1, 1, 1), DIM3(8, 1, 1), 0, &a);
	simt_launch(gpu, "gather", k_gather, DIM3(4, 1, 1), DIM3(128, 1, 1), 0,
		    &a);
	return simt_gpu_finish(gpu);
}

TEST(deterministic_bytes)
{
	struct capture c1, c2, c3;
	struct prog_mem b1, b2, b3;

	ASSERT_EQ(0, run_program(&c1, &b1, 1));
	ASSERT_EQ(0, run_program(&c2, &b2, 1));
	ASSERT_EQ(0, run_program(&c3, &b3, 2));
	ASSERT_EQ(c1.n, c2.n);
	EXPECT_EQ(0, memcmp(c1.rec, c2.rec, c1.n * sizeof(*c1.rec)));
	ASSERT_EQ(b1.len, b2.len);
	EXPECT_EQ(0, memcmp(b1.bytes, b2.bytes, b1.len));
	EXPECT_EQ(0, memcmp(b1.bytes, PROG_MAGIC, PROG_MAGIC_LEN));
	/* Another seed, other data: other gathers, other bytes. */
	EXPECT_TRUE(b1.len != b3.len || memcmp(b1.bytes, b3.bytes, b1.len));
	EXPECT_EQ(0, check_order(&c1));
	free(c1.rec);
	free(c2.rec);
	free(c3.rec);
	free(b1.bytes);
	free(b2.bytes);
	free(b3.bytes);
}

TEST_HARNESS_MAIN
