// SPDX-License-Identifier: GPL-2.0
/*
 * Host tests of the FinePack core (qemu-device/model/finepack.c): the worked
 * examples of notes/finepack.md §3 as exact values, invariants I1-I9 of
 * §5.2, and trace validation.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"
#include "../lib/mcmgpu_test.h"
#include "finepack.h"
#include "fp_trace.h"

#define MIB (1ULL << 20)

/* A test memory: chiplets x vram bytes, plus packet checks. */
struct mem {
	uint64_t vram;
	uint8_t *bytes;
	uint64_t packets, packet_wire, packet_errors;
	uint32_t overhead, subheader;
	uint64_t delivered;
	uint64_t log_addr[16];	/* first deliveries, for ordering checks */
	uint32_t nlog;
};

static void mem_write(void *ctx, u32 dst, u64 addr, const u8 *data, u32 len)
{
	struct mem *m = ctx;

	if (m->nlog < 16)
		m->log_addr[m->nlog++] = addr;
	m->delivered += len;
	if (m->bytes)
		memcpy(m->bytes + dst * m->vram + addr, data, len);
}

struct run {
	uint64_t off;
	uint32_t len;
};

static int run_cmp(const void *a, const void *b)
{
	const struct run *x = a, *y = b;

	return x->off < y->off ? -1 : x->off > y->off;
}

/* I2, I4, I5 on every packet: decode independently and check bounds. */
static void mem_packet(void *ctx, u32 src, u32 dst, u64 base, const u8 *buf,
		       u32 len)
{
	struct mem *m = ctx;
	uint64_t window = fp_window_bytes(m->subheader), off;
	struct run runs[FP_MAX_PAYLOAD / 3];
	uint32_t pos = 0, sublen, n = 0, i;

	m->packets++;
	m->packet_wire += m->overhead + ((len + 3) & ~3U);
	if (len > FP_MAX_PAYLOAD || base % window)
		m->packet_errors++;
	while (pos < len) {
		fp_decode_subheader(buf + pos, m->subheader, &off, &sublen);
		pos += m->subheader;
		if (!sublen || sublen > FP_LINE_BYTES || off + sublen > window ||
		    pos + sublen > len) {
			m->packet_errors++;
			return;
		}
		runs[n].off = off;
		runs[n++].len = sublen;
		pos += sublen;
	}
	/* Sub-packets of one packet are byte-disjoint. */
	qsort(runs, n, sizeof(runs[0]), run_cmp);
	for (i = 1; i < n; i++)
		if (runs[i - 1].off + runs[i - 1].len > runs[i].off)
			m->packet_errors++;
}

static void run_trace(struct fp_model *model, struct mem *m, uint32_t chiplets,
		      uint64_t vram, uint32_t h, uint32_t overhead,
		      uint8_t *trace, size_t len, struct fp_error *err, int *ret)
{
	struct fp_config cfg = {
		.chiplets = chiplets, .subheader = h, .overhead = overhead,
		.vram_per_chiplet = vram,
	};
	struct fp_sink sink = { .ctx = m, .write = mem_write, .packet = mem_packet };
	struct fp_trace_view view;
	uint8_t *written = calloc(1, fp_bitmap_bytes(&cfg));

	m->vram = vram;
	m->overhead = overhead;
	m->subheader = h;
	*ret = fp_trace_check(trace, len, &cfg, &view, err);
	if (!*ret) {
		fp_model_init(model, &cfg, &sink, written);
		fp_model_run(model, &view);
	}
	free(written);
}

static uint64_t fp_wire(const struct mcmgpu_fp_stats *s)
{
	return s->wire_payload + s->wire_subheader + s->wire_overhead +
	       s->wire_padding;
}

FIXTURE(fp) {
	struct fp_model *model;
	struct fp_trace_buf tb;
	struct mem mem;
	struct fp_error err;
	uint8_t *trace;
	size_t len;
	int ret;
};

FIXTURE_SETUP(fp)
{
	self->model = calloc(1, sizeof(*self->model));
	ASSERT_NE(NULL, self->model);
	memset(&self->tb, 0, sizeof(self->tb));
	memset(&self->mem, 0, sizeof(self->mem));
	self->mem.bytes = calloc(4, 4 * MIB);
	self->trace = NULL;
}

FIXTURE_TEARDOWN(fp)
{
	free(self->model);
	free(self->mem.bytes);
	free(self->trace);
	fp_tb_free(&self->tb);
}

#define RUN(chiplets, vram, h, o) do { \
	self->trace = fp_tb_finish(&self->tb, &self->len); \
	run_trace(self->model, &self->mem, chiplets, vram, h, o, self->trace, \
		  self->len, &self->err, &self->ret); \
	ASSERT_EQ(0, self->ret) TH_LOG("record %llu: %s", \
		(unsigned long long)self->err.record, self->err.what); \
} while (0)

static const uint8_t four[4] = { 1, 2, 3, 4 };

/* Example 1: 42 scattered 4 B stores: 408 B vs 1344 B, R = 3.29. */
TEST_F(fp, example1_42_scattered_stores)
{
	const struct mcmgpu_fp_stats *s = &self->model->stats;
	int i;

	for (i = 0; i < 42; i++)
		fp_tb_add(&self->tb, MCMGPU_FP_REC_STORE, 0, 1, i * 1024 + 8, 4, four);
	RUN(4, 4 * MIB, 5, 28);
	EXPECT_EQ(1, s->packets);
	EXPECT_EQ(42, s->subpackets);
	EXPECT_EQ(408, fp_wire(s));
	EXPECT_EQ(1344, s->plain_wire_bytes);
	EXPECT_EQ(168, s->wire_payload);
	EXPECT_EQ(210, s->wire_subheader);
	EXPECT_EQ(2, s->wire_padding);
	EXPECT_EQ(1, s->flushes[MCMGPU_FP_FLUSH_KERNEL_END]);
	EXPECT_EQ(0, self->mem.packet_errors);
}

/* Example 2: 32 consecutive 4 B stores fill one line: 164 B vs 1024 B. */
TEST_F(fp, example2_one_full_line)
{
	const struct mcmgpu_fp_stats *s = &self->model->stats;
	uint8_t line[128];
	int i;

	for (i = 0; i < 128; i++)
		line[i] = i * 7 + 1;
	for (i = 0; i < 32; i++)
		fp_tb_add(&self->tb, MCMGPU_FP_REC_STORE, 2, 0, 4096 + i * 4, 4, line + i * 4);
	RUN(4, 4 * MIB, 5, 28);
	EXPECT_EQ(1, s->packets);
	EXPECT_EQ(1, s->subpackets);
	EXPECT_EQ(164, fp_wire(s));
	EXPECT_EQ(1024, s->plain_wire_bytes);
	EXPECT_EQ(0, memcmp(self->mem.bytes + 4096, line, 128));
}

/* Example 3: the same 8 B written 10 times: 44 B vs 360 B, last wins. */
TEST_F(fp, example3_redundant_stores_last_writer_wins)
{
	const struct mcmgpu_fp_stats *s = &self->model->stats;
	uint8_t v[8];
	int i;

	for (i = 0; i < 10; i++) {
		memset(v, i, sizeof(v));
		fp_tb_add(&self->tb, MCMGPU_FP_REC_STORE, 1, 3, 800, 8, v);
	}
	fp_tb_add(&self->tb, MCMGPU_FP_REC_FENCE, 1, 0, 0, 0, NULL);
	RUN(4, 4 * MIB, 5, 28);
	EXPECT_EQ(1, s->packets);
	EXPECT_EQ(44, fp_wire(s));
	EXPECT_EQ(360, s->plain_wire_bytes);
	EXPECT_EQ(1, s->flushes[MCMGPU_FP_FLUSH_FENCE]);
	EXPECT_EQ(8, self->mem.delivered);
	EXPECT_EQ(8, s->useful_bytes);
	memset(v, 9, sizeof(v));
	EXPECT_EQ(0, memcmp(self->mem.bytes + 3 * 4 * MIB + 800, v, 8));
}

/* Example 4 / I8: ping-pong between two windows; FinePack loses. */
TEST_F(fp, example4_ping_pong_reduction_below_one)
{
	const struct mcmgpu_fp_stats *s = &self->model->stats;
	int i;

	free(self->mem.bytes);
	self->mem.bytes = NULL;	/* 2 GiB chiplets: count, do not store */
	for (i = 0; i < 100; i++)
		fp_tb_add(&self->tb, MCMGPU_FP_REC_STORE, 0, 1,
			  (i % 2) * (1ULL << 30) + i * 4, 4, four);
	RUN(2, 2ULL << 30, 5, 28);
	EXPECT_EQ(100, s->packets);
	EXPECT_EQ(99, s->flushes[MCMGPU_FP_FLUSH_WINDOW]);
	EXPECT_EQ(4000, fp_wire(s));
	EXPECT_EQ(3200, s->plain_wire_bytes);
	EXPECT_LT(s->plain_wire_bytes, fp_wire(s));	/* R = 0.8 */
}

/* Full-queue triggers: 64 entries, then a 65th line flushes. */
TEST_F(fp, sixty_fifth_entry_flushes)
{
	const struct mcmgpu_fp_stats *s = &self->model->stats;
	int i;

	for (i = 0; i < 65; i++)
		fp_tb_add(&self->tb, MCMGPU_FP_REC_STORE, 0, 1, i * 128, 4, four);
	RUN(2, 4 * MIB, 5, 28);
	EXPECT_EQ(1, s->flushes[MCMGPU_FP_FLUSH_ENTRIES]);
	EXPECT_EQ(1, s->flushes[MCMGPU_FP_FLUSH_KERNEL_END]);
	EXPECT_EQ(2, s->packets);
}

/* Payload: 32 full lines cost 32 * 133 = 4256 > 4096: the 31st flushes. */
TEST_F(fp, payload_limit_flushes_exactly)
{
	const struct mcmgpu_fp_stats *s = &self->model->stats;
	uint8_t line[128] = { 0 };
	int i;

	for (i = 0; i < 32; i++)
		fp_tb_add(&self->tb, MCMGPU_FP_REC_STORE, 0, 1, i * 128, 128, line);
	RUN(2, 4 * MIB, 5, 28);
	/* 30 lines = 3990 B fit; the 31st would make 4123. */
	EXPECT_EQ(1, s->flushes[MCMGPU_FP_FLUSH_PAYLOAD]);
	EXPECT_EQ(2, s->packets);
	EXPECT_EQ(32, s->subpackets);
	EXPECT_EQ(0, self->mem.packet_errors);
}

/* Filling the gap between two runs merges them and frees a sub-header. */
TEST_F(fp, merging_runs_saves_a_subheader)
{
	const struct mcmgpu_fp_stats *s = &self->model->stats;

	fp_tb_add(&self->tb, MCMGPU_FP_REC_STORE, 0, 1, 0, 4, four);
	fp_tb_add(&self->tb, MCMGPU_FP_REC_STORE, 0, 1, 8, 4, four);
	fp_tb_add(&self->tb, MCMGPU_FP_REC_STORE, 0, 1, 4, 4, four);
	RUN(2, 4 * MIB, 5, 28);
	EXPECT_EQ(1, s->subpackets);
	EXPECT_EQ(12, s->wire_payload);
	EXPECT_EQ(5, s->wire_subheader);
}

/* h = 2: 64 B windows split a 128 B line store into two packets. */
TEST_F(fp, subheader2_splits_at_window)
{
	const struct mcmgpu_fp_stats *s = &self->model->stats;
	uint8_t line[128];

	memset(line, 0x5a, sizeof(line));
	fp_tb_add(&self->tb, MCMGPU_FP_REC_STORE, 0, 1, 256, 128, line);
	RUN(2, 4 * MIB, 2, 28);
	EXPECT_EQ(2, s->packets);
	EXPECT_EQ(1, s->flushes[MCMGPU_FP_FLUSH_WINDOW]);
	EXPECT_EQ(1, s->plain_tlps);
	EXPECT_EQ(0, memcmp(self->mem.bytes + 4 * MIB + 256, line, 128));
}

/* I7: an atomic to a queued line is delivered after the queued data. */
TEST_F(fp, atomic_flushes_its_line_first_and_is_not_coalesced)
{
	const struct mcmgpu_fp_stats *s = &self->model->stats;
	uint8_t a[4] = { 9, 9, 9, 9 };

	fp_tb_add(&self->tb, MCMGPU_FP_REC_STORE, 0, 1, 64, 4, four);
	fp_tb_add(&self->tb, MCMGPU_FP_REC_ATOMIC, 0, 1, 64, 4, a);
	fp_tb_add(&self->tb, MCMGPU_FP_REC_STORE, 0, 1, 4096, 4, four);
	fp_tb_add(&self->tb, MCMGPU_FP_REC_LOAD, 0, 1, 4096, 4, NULL);
	fp_tb_add(&self->tb, MCMGPU_FP_REC_LOAD, 0, 1, 8192, 4, NULL);
	RUN(2, 4 * MIB, 5, 28);
	EXPECT_EQ(1, s->flushes[MCMGPU_FP_FLUSH_ATOMIC]);
	EXPECT_EQ(1, s->flushes[MCMGPU_FP_FLUSH_LOAD]);
	EXPECT_EQ(0, s->flushes[MCMGPU_FP_FLUSH_KERNEL_END]);
	EXPECT_EQ(64, self->mem.log_addr[0]);	/* the store, */
	EXPECT_EQ(64, self->mem.log_addr[1]);	/* then the atomic */
	EXPECT_EQ(0, memcmp(self->mem.bytes + 4 * MIB + 64, a, 4));
	/* Atomic: one plain TLP in both counts (28 + 4). */
	EXPECT_EQ(32 * 3, s->plain_wire_bytes);
	EXPECT_EQ(2 * (28 + 9 + 3) + 32, fp_wire(s));
}

/* A load flushes only if its range reaches a queued line. */
TEST_F(fp, load_flushes_only_when_it_meets_a_queued_line)
{
	const struct mcmgpu_fp_stats *s = &self->model->stats;

	/* Kernel 1: loads that end at, start after, or miss the line. */
	fp_tb_add(&self->tb, MCMGPU_FP_REC_STORE, 0, 1, 8192 + 100, 4, four);
	fp_tb_add(&self->tb, MCMGPU_FP_REC_LOAD, 0, 1, 100, 8192 - 100, NULL);
	fp_tb_add(&self->tb, MCMGPU_FP_REC_LOAD, 0, 1, 8192 + 128, MIB, NULL);
	fp_tb_add(&self->tb, MCMGPU_FP_REC_LOAD, 1, 0, 8192, 4, NULL);
	fp_tb_add(&self->tb, MCMGPU_FP_REC_KERNEL_END, 0, 0, 0, 0, NULL);
	/* Kernel 2: a long load whose last byte is the line's first. */
	fp_tb_add(&self->tb, MCMGPU_FP_REC_STORE, 0, 1, 8192 + 100, 4, four);
	fp_tb_add(&self->tb, MCMGPU_FP_REC_LOAD, 0, 1, 3, 8192 - 3 + 1, NULL);
	RUN(2, 4 * MIB, 5, 28);
	EXPECT_EQ(1, s->flushes[MCMGPU_FP_FLUSH_KERNEL_END]);
	EXPECT_EQ(1, s->flushes[MCMGPU_FP_FLUSH_LOAD]);
	EXPECT_EQ(2, s->packets);
}

/*
 * Issue 16: two 1 B stores at both ends of a 64 MiB chiplet per kernel.
 * The DMA hull is the whole chiplet, but a kernel end clears only the two
 * bitmap words the kernel set, not the 1 Mi words of the hull.
 */
TEST_F(fp, kernel_end_clears_only_the_words_it_set)
{
	const struct mcmgpu_fp_stats *s = &self->model->stats;
	const uint64_t vram = 64 * MIB, kernels = 2000;
	uint64_t i;

	free(self->mem.bytes);
	self->mem.bytes = NULL;
	for (i = 0; i < kernels; i++) {
		fp_tb_add(&self->tb, MCMGPU_FP_REC_STORE, 0, 1, 0, 1, four);
		fp_tb_add(&self->tb, MCMGPU_FP_REC_STORE, 0, 1, vram - 1, 1, four);
		fp_tb_add(&self->tb, MCMGPU_FP_REC_KERNEL_END, 0, 0, 0, 0, NULL);
	}
	RUN(4, vram, 5, 28);
	EXPECT_EQ(kernels, s->kernels);
	EXPECT_EQ(2 * kernels, s->useful_bytes);
	EXPECT_EQ(kernels, s->packets);
	EXPECT_EQ(kernels * vram, s->dma_payload);
	EXPECT_EQ(kernels * (vram / 4096), s->dma_tlps);
	EXPECT_EQ(kernels * (vram + vram / 4096 * 28), s->dma_wire_bytes);
	EXPECT_EQ(2 * kernels, self->model->words_cleared);
	EXPECT_EQ(0, self->model->ntouched);
}

/* Naive per-kernel reference: a byte per destination byte and per word. */
struct ref {
	uint64_t vram;
	uint8_t *seen, *word_seen;
	uint64_t *bytes, *words;	/* what to reset at the kernel end */
	uint64_t nbytes, nwords;
	uint64_t dst_lo[4], dst_hi[4], dma_lo[4][4], dma_hi[4][4];
	/* Expected model counters. */
	uint64_t kernels, useful, dma_payload, dma_tlps, dma_wire, cleared;
	uint64_t logged, overflowed;
	/* Declared regions: what each kernel end copies, and the totals. */
	uint64_t reg_bytes, reg_tlps, reg_wire, reg_payload, reg_tlp_total;
	uint64_t reg_wire_total, regions;
};

static void ref_hull(uint64_t *lo, uint64_t *hi, uint64_t addr, uint32_t len)
{
	if (addr < *lo)
		*lo = addr;
	if (addr + len > *hi)
		*hi = addr + len;
}

static void ref_mark(struct ref *k, const struct mcmgpu_fp_trace_record *r)
{
	uint64_t b = r->dst * k->vram + r->addr, end = b + r->len;

	for (; b < end; b++) {
		if (!k->seen[b]) {
			k->seen[b] = 1;
			k->bytes[k->nbytes++] = b;
		}
		if (!k->word_seen[b / 64]) {
			k->word_seen[b / 64] = 1;
			k->words[k->nwords++] = b / 64;
		}
	}
	ref_hull(&k->dst_lo[r->dst], &k->dst_hi[r->dst], r->addr, r->len);
	if (r->type == MCMGPU_FP_REC_STORE) {
		ref_hull(&k->dma_lo[r->src][r->dst], &k->dma_hi[r->src][r->dst],
			 r->addr, r->len);
	} else {
		k->dma_payload += r->len;
		k->dma_tlps++;
		k->dma_wire += fp_plain_tlp_bytes(r->addr, r->len, 28);
		k->reg_payload += r->len;
		k->reg_tlp_total++;
		k->reg_wire_total += fp_plain_tlp_bytes(r->addr, r->len, 28);
	}
}

/* A region is copied whole at every later kernel end, 4 KiB per TLP. */
static void ref_region(struct ref *k, const struct mcmgpu_fp_trace_record *r)
{
	uint64_t tlps = (r->len + 4095) / 4096;

	k->regions++;
	k->reg_bytes += r->len;
	k->reg_tlps += tlps;
	k->reg_wire += (r->len + 3) / 4 * 4 + 28 * tlps;
}

/* What the kernel end adds, given the touched-word log's capacity. */
static void ref_kernel_end(struct ref *k, uint64_t cap)
{
	uint64_t i, len, tlps;
	uint32_t s, d;

	k->kernels++;
	k->useful += k->nbytes;
	k->reg_payload += k->reg_bytes;
	k->reg_tlp_total += k->reg_tlps;
	k->reg_wire_total += k->reg_wire;
	if (k->nwords <= cap) {
		k->cleared += k->nwords;
		k->logged += k->nwords > 0;
	} else {
		for (d = 0; d < 4; d++)
			if (k->dst_hi[d] > k->dst_lo[d])
				k->cleared += (d * k->vram + k->dst_hi[d] + 63) / 64 -
					      (d * k->vram + k->dst_lo[d]) / 64;
		k->overflowed++;
	}
	for (s = 0; s < 4; s++) {
		for (d = 0; d < 4; d++) {
			if (k->dma_hi[s][d] > k->dma_lo[s][d]) {
				len = k->dma_hi[s][d] - k->dma_lo[s][d];
				tlps = (len + 4095) / 4096;
				k->dma_payload += len;
				k->dma_tlps += tlps;
				k->dma_wire += ((len + 3) & ~3ULL) + tlps * 28;
			}
			k->dma_lo[s][d] = UINT64_MAX;
			k->dma_hi[s][d] = 0;
		}
		k->dst_lo[s] = UINT64_MAX;
		k->dst_hi[s] = 0;
	}
	for (i = 0; i < k->nbytes; i++)
		k->seen[k->bytes[i]] = 0;
	for (i = 0; i < k->nwords; i++)
		k->word_seen[k->words[i]] = 0;
	k->nbytes = 0;
	k->nwords = 0;
}

/*
 * Useful bytes, the DMA hulls and the kernel-end cleanup against a naive
 * per-kernel byte set, on random traces: overlapping and repeated stores,
 * unaligned stores across 64 B bitmap words and lines, runs of empty
 * kernels, and kernels big enough to overflow the touched-word log. The
 * first vram is not a multiple of 64, so two chiplets share a word.
 */
TEST(useful_bytes_match_a_naive_reference)
{
	static const uint64_t vrams[] = { 16 * 1024 + 24, MIB / 2 };
	struct fp_model *model = calloc(1, sizeof(*model));
	struct mem m = { 0 };
	struct fp_sink sink = { &m, mem_write, NULL };
	uint64_t rng = 4242, logged = 0, overflowed = 0;
	uint8_t data[4096];
	unsigned int v;

	ASSERT_NE(NULL, model);
	memset(data, 0x5a, sizeof(data));
	for (v = 0; v < 2; v++) {
		struct fp_config cfg = { 4, 2 + v * 3, 28, vrams[v] };
		uint64_t vram = vrams[v], span;
		struct ref k = {
			.vram = vram,
			.seen = calloc(4, vram),
			.word_seen = calloc(1, 4 * vram / 64 + 1),
			.bytes = calloc(4, vram * 8),
			.words = calloc(1, (4 * vram / 64 + 1) * 8),
		};
		uint8_t *written = calloc(1, fp_bitmap_bytes(&cfg));
		int i, n = 40000;

		ASSERT_NE(NULL, k.seen);
		ASSERT_NE(NULL, k.word_seen);
		ASSERT_NE(NULL, k.bytes);
		ASSERT_NE(NULL, k.words);
		ASSERT_NE(NULL, written);
		ref_kernel_end(&k, 0);	/* sets the empty hulls */
		k.kernels = 0;
		fp_model_init(model, &cfg, &sink, written);
		for (i = 0; i < n; i++) {
			struct mcmgpu_fp_trace_record r = { 0 };
			uint64_t x;

			x = mt_xorshift64(&rng);
			r.src = x % 4;
			r.dst = (r.src + 1 + (x >> 8) % 3) % 4;
			r.len = 1 + (x >> 16) % ((x >> 62) ? 150 : 4096);
			/* Mostly a hot 1 KiB (repeated bytes), else anywhere. */
			span = (x >> 40) % 4 ? 1024 : vram;
			if (r.len > span)
				r.len = span;
			r.addr = (x >> 24) % (span - r.len + 1);
			switch ((x >> 52) % 128) {
			case 0 ... 2:
				r.type = MCMGPU_FP_REC_KERNEL_END;
				break;
			case 3:
				r.type = MCMGPU_FP_REC_FENCE;
				break;
			case 4:
				r.type = MCMGPU_FP_REC_LOAD;
				break;
			case 5 ... 6:
				r.type = MCMGPU_FP_REC_ATOMIC;
				r.len = 1 + r.len % 16;
				r.addr &= ~127ULL;
				break;
			case 7:		/* a region: any length up to the chiplet */
				r.type = MCMGPU_FP_REC_REGION;
				r.len = 1 + (x >> 20) % vram;
				r.addr = (x >> 30) % (vram - r.len + 1);
				break;
			default:
				r.type = MCMGPU_FP_REC_STORE;
			}
			if (i == n - 1)
				r.type = MCMGPU_FP_REC_KERNEL_END;
			if (r.type == MCMGPU_FP_REC_STORE || r.type == MCMGPU_FP_REC_ATOMIC)
				ref_mark(&k, &r);
			if (r.type == MCMGPU_FP_REC_REGION)
				ref_region(&k, &r);
			if (r.type == MCMGPU_FP_REC_KERNEL_END) {
				ASSERT_EQ(k.nwords, model->ntouched);
				ref_kernel_end(&k, model->touched_cap);
			}
			fp_model_record(model, &r, data);
			if (r.type != MCMGPU_FP_REC_KERNEL_END)
				continue;
			ASSERT_EQ(k.kernels, model->stats.kernels);
			ASSERT_EQ(k.useful, model->stats.useful_bytes) TH_LOG("record %d", i);
			ASSERT_EQ(k.cleared, model->words_cleared) TH_LOG("record %d", i);
			ASSERT_EQ(k.dma_payload, model->stats.dma_payload);
			ASSERT_EQ(k.dma_tlps, model->stats.dma_tlps);
			ASSERT_EQ(k.dma_wire, model->stats.dma_wire_bytes);
			ASSERT_EQ(k.regions, model->stats.regions);
			ASSERT_EQ(k.reg_payload, model->stats.region_dma_payload);
			ASSERT_EQ(k.reg_tlp_total, model->stats.region_dma_tlps);
			ASSERT_EQ(k.reg_wire_total, model->stats.region_dma_wire_bytes);
		}
		ASSERT_LT(100, k.regions);
		/* Everything the kernels set was cleared: the bitmap is zero. */
		for (i = 0; i < (int)((4 * vram + 63) / 64); i++)
			ASSERT_EQ(0, model->written[i]) TH_LOG("word %d", i);
		logged += k.logged;
		overflowed += k.overflowed;
		free(written);
		free(k.seen);
		free(k.word_seen);
		free(k.bytes);
		free(k.words);
	}
	/* Both cleanups ran. */
	EXPECT_LT(100, logged);
	EXPECT_LT(10, overflowed);
	free(model);
}

/* I5: decode(encode(x)) == x for every h, random offsets and lengths. */
TEST(subheader_round_trip_every_h)
{
	uint64_t rng = 12345, off, got_off;
	uint32_t h, len, got_len;
	uint8_t buf[8];
	int i;

	for (h = MCMGPU_FP_SUBHEADER_MIN; h <= MCMGPU_FP_SUBHEADER_MAX; h++) {
		for (i = 0; i < 100000; i++) {
			mt_xorshift64(&rng);
			off = rng % fp_window_bytes(h);
			len = 1 + (rng >> 40) % 1023;
			memset(buf, 0xee, sizeof(buf));
			ASSERT_EQ(h, fp_encode_subheader(buf, h, off, len));
			EXPECT_EQ(0xee, buf[h]);	/* writes exactly h bytes */
			fp_decode_subheader(buf, h, &got_off, &got_len);
			ASSERT_EQ(off, got_off);
			ASSERT_EQ(len, got_len);
		}
	}
	EXPECT_EQ(64, fp_window_bytes(2));
	EXPECT_EQ(1ULL << 30, fp_window_bytes(5));
	EXPECT_EQ(1ULL << 38, fp_window_bytes(6));
}

/*
 * I1, I2, I3, I4, I6, I8, I9 on random traces for every h: memory equals
 * in-order plain application at every kernel end; packets are well formed;
 * fences empty the source's partitions; accounting adds up; reruns match.
 */
TEST(random_traces_equal_plain_application)
{
	const uint64_t vram = MIB / 4;
	uint8_t *golden = calloc(4, vram), *image = calloc(4, vram);
	struct fp_model *model = calloc(1, sizeof(*model));
	uint64_t rng = 777;
	uint32_t h, o;

	ASSERT_NE(NULL, golden);
	ASSERT_NE(NULL, image);
	ASSERT_NE(NULL, model);
	for (h = MCMGPU_FP_SUBHEADER_MIN; h <= MCMGPU_FP_SUBHEADER_MAX; h++) {
		for (o = 24; o <= 28; o += 4) {
			struct fp_config cfg = { 4, h, o, vram };
			struct mem m = { .vram = vram, .bytes = image,
					 .overhead = o, .subheader = h };
			struct fp_sink sink = { &m, mem_write, mem_packet };
			uint8_t *written = calloc(1, fp_bitmap_bytes(&cfg));
			uint64_t atomic_wire = 0;
			uint8_t data[300];
			int i, j, mismatches = 0;

			memset(golden, 0, 4 * vram);
			memset(image, 0, 4 * vram);
			fp_model_init(model, &cfg, &sink, written);
			for (i = 0; i < 20000; i++) {
				struct mcmgpu_fp_trace_record r = { 0 };
				uint64_t x;

				x = mt_xorshift64(&rng);
				r.src = x % 4;
				r.dst = (r.src + 1 + (x >> 8) % 3) % 4;
				r.len = 1 + (x >> 16) % ((x >> 60) ? 16 : 300);
				/*
				 * Each source writes its own quarter of a destination
				 * (no cross-source races, see docs/finepack.md): mostly a small
				 * hot region, sometimes anywhere in the quarter.
				 */
				r.addr = r.src * (vram / 4) +
					 ((x >> 32) % 8 ? (x >> 24) % 8192 :
					  (x >> 24) % (vram / 4 - 300));
				switch ((x >> 56) % 64) {
				case 0:
					r.type = MCMGPU_FP_REC_FENCE;
					break;
				case 1:
					r.type = MCMGPU_FP_REC_KERNEL_END;
					break;
				case 2:
					r.type = MCMGPU_FP_REC_LOAD;
					break;
				case 3:
					r.type = MCMGPU_FP_REC_ATOMIC;
					r.len = 1 + r.len % 8;
					r.addr &= ~127ULL;
					break;
				default:
					r.type = MCMGPU_FP_REC_STORE;
				}
				for (j = 0; j < (int)r.len; j++)
					data[j] = (uint8_t)(i + j * 31);
				if (r.type == MCMGPU_FP_REC_STORE || r.type == MCMGPU_FP_REC_ATOMIC)
					memcpy(golden + r.dst * vram + r.addr, data, r.len);
				if (r.type == MCMGPU_FP_REC_ATOMIC)
					atomic_wire += o + 4 * ((r.addr % 4 + r.len + 3) / 4);
				fp_model_record(model, &r, data);
				if (r.type == MCMGPU_FP_REC_FENCE)
					for (j = 0; j < 4; j++)
						ASSERT_EQ(FP_EMPTY_BASE,
							  model->part[r.src][j].base);
				if (r.type == MCMGPU_FP_REC_KERNEL_END)
					mismatches += !!memcmp(golden, image, 4 * vram);
			}
			fp_model_finish(model);
			mismatches += !!memcmp(golden, image, 4 * vram);
			EXPECT_EQ(0, mismatches) TH_LOG("h %u O %u", h, o);
			EXPECT_EQ(0, m.packet_errors) TH_LOG("h %u", h);
			EXPECT_EQ(0, model->stats.decode_errors);
			EXPECT_EQ(model->stats.packets, m.packets);
			/* I8: wire bytes = sum over packets + atomics' TLPs. */
			EXPECT_EQ(m.packet_wire + atomic_wire, fp_wire(&model->stats));
			EXPECT_LT(0, model->stats.packets);
			for (j = 0; j < 16; j++)
				EXPECT_EQ(FP_EMPTY_BASE, model->part[j / 4][j % 4].base);
			free(written);
		}
	}
	free(model);
	free(golden);
	free(image);
}

/*
 * An independent packetizer, written from the pinned semantics (notes
 * finepack.md §4) with no incremental state: per partition the window
 * base and, in allocation order, each entry's line and byte enables; the
 * cost is recounted from the enables every time (runs x h + bytes).
 */
struct ref_part {
	uint64_t base;
	int n;
	uint64_t tag[FP_ENTRIES];
	uint8_t en[FP_ENTRIES][FP_LINE_BYTES];
};

static void discard_write(void *ctx, uint32_t dst, uint64_t addr,
			  const uint8_t *data, uint32_t len)
{
}

struct ref_model {
	uint32_t h;
	uint64_t window;
	struct ref_part part[4][4];
	uint64_t packets, subpackets, payload, padding, wc_bytes;
	uint64_t flushes[MCMGPU_FP_FLUSH_REASONS];
};

static uint32_t ref_line_cost(const uint8_t *en, uint32_t h)
{
	uint32_t b, cost = 0;

	for (b = 0; b < FP_LINE_BYTES; b++)
		cost += en[b] + (en[b] && (!b || !en[b - 1])) * h;
	return cost;
}

static void ref_flush(struct ref_model *m, struct ref_part *p, int why)
{
	uint32_t pos = 0, b;
	int i;

	if (!p->n)
		return;
	for (i = 0; i < p->n; i++)
		for (b = 0; b < FP_LINE_BYTES; b++) {
			if (p->en[i][b] && (!b || !p->en[i][b - 1])) {
				uint32_t e = b;

				m->subpackets++;
				pos += m->h;
				/* write combining: this run as its own MWr */
				while (e < FP_LINE_BYTES && p->en[i][e])
					e++;
				m->wc_bytes += 28 + 4 * ((b % 4 + e - b + 3) / 4);
			}
			m->payload += p->en[i][b];
			pos += p->en[i][b];
		}
	m->packets++;
	m->padding += (4 - pos % 4) % 4;
	m->flushes[why]++;
	p->n = 0;
}

static void ref_piece(struct ref_model *m, struct ref_part *p, uint64_t a,
		      uint32_t n)
{
	uint64_t tag = a & ~(uint64_t)(FP_LINE_BYTES - 1);
	uint8_t en[FP_LINE_BYTES];
	uint32_t cost = 0, b;
	int i, hit = -1;

	for (i = 0; i < p->n; i++)
		if (p->tag[i] == tag)
			hit = i;
	if (p->n && (a < p->base || a - p->base >= m->window)) {
		ref_flush(m, p, MCMGPU_FP_FLUSH_WINDOW);
	} else if (p->n) {
		for (i = 0; i < p->n; i++)
			if (i != hit)
				cost += ref_line_cost(p->en[i], m->h);
		memset(en, 0, sizeof(en));
		if (hit >= 0)
			memcpy(en, p->en[hit], sizeof(en));
		memset(en + (a - tag), 1, n);
		if (cost + ref_line_cost(en, m->h) > FP_MAX_PAYLOAD)
			ref_flush(m, p, MCMGPU_FP_FLUSH_PAYLOAD);
		else if (hit < 0 && p->n == FP_ENTRIES)
			ref_flush(m, p, MCMGPU_FP_FLUSH_ENTRIES);
	}
	if (!p->n) {
		p->base = a & ~(m->window - 1);
		hit = -1;
	}
	if (hit < 0) {
		hit = p->n++;
		p->tag[hit] = tag;
		memset(p->en[hit], 0, FP_LINE_BYTES);
	}
	for (b = 0; b < n; b++)
		p->en[hit][a - tag + b] = 1;
}

static void ref_store(struct ref_model *m, int src, int dst, uint64_t addr,
		      uint32_t len)
{
	uint64_t step = m->window < FP_LINE_BYTES ? m->window : FP_LINE_BYTES;
	uint64_t a, end = addr + len;

	/* Pieces: within one line, and within one window when it is smaller. */
	for (a = addr; a < end; ) {
		uint64_t cut = (a | (step - 1)) + 1;
		uint32_t n = (cut < end ? cut : end) - a;

		ref_piece(m, &m->part[src][dst], a, n);
		a += n;
	}
}

/*
 * The core's packet counters equal the reference's on stores built to
 * reach every flush reason: a few hot lines per partition with short,
 * gapped stores (payload flushes), many lines (entry flushes), jumps
 * across windows, lines stored to several times in one packet.
 */
TEST(packets_equal_an_independent_packetizer)
{
	const uint64_t vram = 16 * MIB;
	struct fp_model *model = calloc(1, sizeof(*model));
	struct ref_model *ref = calloc(1, sizeof(*ref));
	uint64_t rng = 4242;
	uint8_t data[300] = { 0 };
	uint32_t h;

	ASSERT_NE(NULL, model);
	ASSERT_NE(NULL, ref);
	for (h = MCMGPU_FP_SUBHEADER_MIN; h <= MCMGPU_FP_SUBHEADER_MAX; h++) {
		struct fp_config cfg = { 4, h, 28, vram };
		struct fp_sink sink = { NULL, discard_write, NULL };
		uint8_t *written = calloc(1, fp_bitmap_bytes(&cfg));
		int i, s, d, k;

		ASSERT_NE(NULL, written);
		memset(ref, 0, sizeof(*ref));
		ref->h = h;
		ref->window = fp_window_bytes(h);
		fp_model_init(model, &cfg, &sink, written);
		for (i = 0; i < 60000; i++) {
			struct mcmgpu_fp_trace_record r = { 0 };
			uint64_t x = mt_xorshift64(&rng), lines;

			r.type = i % 5000 == 4999 ? MCMGPU_FP_REC_KERNEL_END :
				 MCMGPU_FP_REC_STORE;
			r.src = x % 4;
			r.dst = (r.src + 1 + (x >> 8) % 3) % 4;
			/*
			 * Phases inside one window where it is large enough: 48
			 * lines with long, overlapping stores (payload flushes),
			 * up to 200 lines with 1-3 B stores (entry flushes), then
			 * the whole memory (window flushes).
			 */
			switch ((i / 2000) % 3) {
			case 0:
				lines = 48;
				r.len = 40 + (x >> 53) % 200;
				break;
			case 1:
				lines = ref->window / FP_LINE_BYTES;
				lines = lines > 200 ? 200 : lines ? lines : 1;
				r.len = 1 + (x >> 53) % 3;
				break;
			default:
				lines = vram / FP_LINE_BYTES - 4;
				r.len = (x >> 50) % 8 ? 1 + (x >> 53) % 3 :
					1 + (x >> 53) % 260;
			}
			r.addr = (x >> 16) % lines * FP_LINE_BYTES + (x >> 40) % 128;
			fp_model_record(model, &r, data);
			if (r.type == MCMGPU_FP_REC_KERNEL_END) {
				for (s = 0; s < 4; s++)
					for (d = 0; d < 4; d++)
						ref_flush(ref, &ref->part[s][d],
							  MCMGPU_FP_FLUSH_KERNEL_END);
			} else {
				ref_store(ref, r.src, r.dst, r.addr, r.len);
			}
		}
		fp_model_finish(model);
		for (s = 0; s < 4; s++)
			for (d = 0; d < 4; d++)
				ref_flush(ref, &ref->part[s][d],
					  MCMGPU_FP_FLUSH_KERNEL_END);
		EXPECT_EQ(ref->packets, model->stats.packets) TH_LOG("h %u", h);
		EXPECT_EQ(ref->subpackets, model->stats.subpackets);
		EXPECT_EQ(ref->payload, model->stats.wire_payload);
		EXPECT_EQ(ref->subpackets * h, model->stats.wire_subheader);
		EXPECT_EQ(ref->padding, model->stats.wire_padding);
		EXPECT_EQ(ref->wc_bytes, model->stats.wc_wire_bytes);
		for (k = 0; k < MCMGPU_FP_FLUSH_REASONS; k++)
			EXPECT_EQ(ref->flushes[k], model->stats.flushes[k])
				TH_LOG("h %u, flush reason %d", h, k);
		/* With h = 2 a window is 64 B: only window flushes. */
		if (h > 2) {
			EXPECT_LT(0, ref->flushes[MCMGPU_FP_FLUSH_PAYLOAD]);
			EXPECT_LT(0, ref->flushes[MCMGPU_FP_FLUSH_ENTRIES]);
		}
		if (ref->window < vram)
			EXPECT_LT(0, ref->flushes[MCMGPU_FP_FLUSH_WINDOW]);
		free(written);
	}
	free(model);
	free(ref);
}

/* I9: byte-identical counters and memory from two runs of one trace. */
TEST(determinism)
{
	struct fp_trace_buf tb = { 0 };
	struct fp_model *a = calloc(1, sizeof(*a)), *b = calloc(1, sizeof(*b));
	struct mem ma = { 0 }, mb = { 0 };
	struct fp_error err;
	uint8_t *trace, d[64];
	size_t len;
	int i, ra, rb;

	ASSERT_NE(NULL, a);
	ASSERT_NE(NULL, b);
	ma.bytes = calloc(4, MIB);
	mb.bytes = calloc(4, MIB);
	for (i = 0; i < 5000; i++) {
		memset(d, i, sizeof(d));
		fp_tb_add(&tb, MCMGPU_FP_REC_STORE, i % 4, (i / 4 + 1 + i) % 4 == i % 4 ?
			  (i + 1) % 4 : (i / 4 + 1 + i) % 4,
			  (i * 2654435761ULL) % (MIB - 64), 1 + i % 64, d);
		if (i % 700 == 0)
			fp_tb_add(&tb, MCMGPU_FP_REC_KERNEL_END, 0, 0, 0, 0, NULL);
	}
	trace = fp_tb_finish(&tb, &len);
	run_trace(a, &ma, 4, MIB, 4, 28, trace, len, &err, &ra);
	run_trace(b, &mb, 4, MIB, 4, 28, trace, len, &err, &rb);
	ASSERT_EQ(0, ra);
	ASSERT_EQ(0, rb);
	EXPECT_EQ(0, memcmp(&a->stats, &b->stats, sizeof(a->stats)));
	EXPECT_EQ(0, memcmp(ma.bytes, mb.bytes, 4 * MIB));
	EXPECT_LT(0, a->stats.packets);
	free(trace);
	free(ma.bytes);
	free(mb.bytes);
	free(a);
	free(b);
}

/* Bad traces: the error names the record and the field. */
TEST(bad_traces_are_rejected_with_record_numbers)
{
	struct fp_config cfg = { 4, 5, 28, 4 * MIB };
	struct fp_trace_view view;
	struct fp_trace_buf tb = { 0 };
	struct fp_error err;
	struct mcmgpu_fp_trace_header *hdr;
	struct mcmgpu_fp_trace_record *rec;
	uint8_t *t;
	size_t len;

	fp_tb_add(&tb, MCMGPU_FP_REC_STORE, 0, 1, 0, 4, four);
	fp_tb_add(&tb, MCMGPU_FP_REC_FENCE, 0, 0, 0, 0, NULL);
	fp_tb_add(&tb, MCMGPU_FP_REC_STORE, 1, 2, 100, 4, four);
	t = fp_tb_finish(&tb, &len);
	ASSERT_EQ(0, fp_trace_check(t, len, &cfg, &view, &err));
	hdr = (struct mcmgpu_fp_trace_header *)t;
	rec = (struct mcmgpu_fp_trace_record *)(hdr + 1);

#define BAD(field_change, restore, want_rec, want) do { \
	field_change; \
	EXPECT_EQ(-1, fp_trace_check(t, len, &cfg, &view, &err)); \
	EXPECT_EQ(want_rec, err.record); \
	EXPECT_EQ(0, strncmp(want, err.what, strlen(want))) TH_LOG("%s", err.what); \
	restore; \
} while (0)

	BAD(len -= 1, len += 1, 0, "data_size");
	BAD(len = 20, len = sizeof(*hdr) + 3 * sizeof(*rec) + 8, 0, "header: truncated");
	BAD(hdr->version = 2, hdr->version = 1, 0, "version");
	BAD(hdr->magic = 1, hdr->magic = MCMGPU_FP_TRACE_MAGIC, 0, "magic");
	BAD(hdr->nrecords = 99, hdr->nrecords = 3, 0, "nrecords");
	BAD(rec[2].type = 9, rec[2].type = MCMGPU_FP_REC_STORE, 3, "type");
	BAD(rec[2].len = 0, rec[2].len = 4, 3, "len: must not be 0");
	BAD(rec[2].dst = 1, rec[2].dst = 2, 3, "dst: equals src");
	BAD(rec[2].dst = 4, rec[2].dst = 2, 3, "dst: no such chiplet");
	BAD(rec[1].src = 7, rec[1].src = 0, 2, "src: no such chiplet");
	BAD(rec[0].addr = 4 * MIB - 2, rec[0].addr = 0, 1, "addr");
	BAD(rec[0].addr = UINT64_MAX - 1, rec[0].addr = 0, 1, "addr");
	BAD(rec[0].data_off = 6, rec[0].data_off = 0, 1, "data_off");
	BAD(rec[0].reserved = 1, rec[0].reserved = 0, 1, "reserved");
	BAD(cfg.subheader = 7, cfg.subheader = 5, 0, "subheader");
	BAD(cfg.overhead = 20, cfg.overhead = 28, 0, "overhead");
	ASSERT_EQ(0, fp_trace_check(t, len, &cfg, &view, &err));
	free(t);
}

/* Records may share one data blob; the total work is still bounded. */
TEST(total_bytes_are_bounded)
{
	struct fp_config cfg = { 2, 5, 28, 1ULL << 30 };
	const size_t n = 1100, data = MIB;
	size_t len = sizeof(struct mcmgpu_fp_trace_header) + n * sizeof(struct mcmgpu_fp_trace_record) +
		     data, i;
	uint8_t *t = calloc(1, len);
	struct mcmgpu_fp_trace_header *hdr = (struct mcmgpu_fp_trace_header *)t;
	struct mcmgpu_fp_trace_record *rec = (struct mcmgpu_fp_trace_record *)(hdr + 1);
	struct fp_trace_view view;
	struct fp_error err;

	ASSERT_NE(NULL, t);
	*hdr = (struct mcmgpu_fp_trace_header){ MCMGPU_FP_TRACE_MAGIC, MCMGPU_FP_TRACE_VERSION,
		sizeof(*hdr), sizeof(*rec), 0, n, data };
	for (i = 0; i < n; i++)
		rec[i] = (struct mcmgpu_fp_trace_record){ .type = MCMGPU_FP_REC_STORE, .src = 0,
						   .dst = 1, .len = MIB };
	EXPECT_EQ(-1, fp_trace_check(t, len, &cfg, &view, &err));
	EXPECT_EQ(1025, err.record);
	EXPECT_EQ(0, strncmp("len: the trace moves more than 1 GiB", err.what, 36));
	hdr->nrecords = 1024;
	hdr->data_size = len - sizeof(*hdr) - 1024 * sizeof(*rec);
	EXPECT_EQ(0, fp_trace_check(t, len, &cfg, &view, &err));
	free(t);
}

/*
 * Regions may be longer than a store (a whole chiplet) but must lie in the
 * destination, between two chiplets, and add up to at most 64 GiB; each
 * is copied at every kernel end after it, empty kernels included.
 */
TEST(regions_are_checked_bounded_and_copied_per_kernel)
{
	struct fp_config cfg = { 2, 5, 28, 8 * MIB };
	struct fp_trace_buf tb = { 0 };
	struct fp_trace_view view;
	struct fp_error err;
	struct fp_model *model = calloc(1, sizeof(*model));
	struct mem m = { 0 };
	struct fp_sink sink = { &m, mem_write, NULL };
	struct mcmgpu_fp_trace_record *rec;
	uint8_t *t, *written;
	size_t len;
	int i;

	ASSERT_NE(NULL, model);
	fp_tb_add(&tb, MCMGPU_FP_REC_KERNEL_END, 0, 0, 0, 0, NULL);
	fp_tb_add(&tb, MCMGPU_FP_REC_REGION, 0, 1, 0, 10000, NULL);
	fp_tb_add(&tb, MCMGPU_FP_REC_REGION, 1, 0, 4096, 4 * MIB, NULL);
	fp_tb_add(&tb, MCMGPU_FP_REC_KERNEL_END, 0, 0, 0, 0, NULL);
	fp_tb_add(&tb, MCMGPU_FP_REC_KERNEL_END, 0, 0, 0, 0, NULL);
	fp_tb_add(&tb, MCMGPU_FP_REC_ATOMIC, 0, 1, 0, 4, four);
	t = fp_tb_finish(&tb, &len);
	ASSERT_EQ(0, fp_trace_check(t, len, &cfg, &view, &err)) TH_LOG("%s", err.what);
	written = calloc(1, fp_bitmap_bytes(&cfg));
	ASSERT_NE(NULL, written);
	m.vram = cfg.vram_per_chiplet;
	m.bytes = calloc(2, m.vram);
	ASSERT_NE(NULL, m.bytes);
	fp_model_init(model, &cfg, &sink, written);
	fp_model_run(model, &view);
	/* Three kernel ends after the regions (the last closes the atomic). */
	EXPECT_EQ(4, model->stats.kernels);
	EXPECT_EQ(2, model->stats.regions);
	EXPECT_EQ(3 * (10000 + 4 * MIB) + 4, model->stats.region_dma_payload);
	EXPECT_EQ(3 * (3 + 1024) + 1, model->stats.region_dma_tlps);
	EXPECT_EQ(3 * (10000 + 3 * 28 + 4 * MIB + 1024 * 28) + 32,
		  model->stats.region_dma_wire_bytes);
	/* No store: the hull DMA has only the atomic. */
	EXPECT_EQ(4, model->stats.dma_payload);
	free(m.bytes);
	free(written);

	rec = (struct mcmgpu_fp_trace_record *)(t + sizeof(struct mcmgpu_fp_trace_header));
	rec[1].len = 0;
	EXPECT_EQ(-1, fp_trace_check(t, len, &cfg, &view, &err));
	EXPECT_EQ(2, err.record);
	EXPECT_STREQ("len: must not be 0", err.what);
	rec[1].len = 10000;
	rec[2].addr = 4 * MIB + 1;
	EXPECT_EQ(-1, fp_trace_check(t, len, &cfg, &view, &err));
	EXPECT_EQ(3, err.record);
	EXPECT_EQ(0, strncmp("addr: past the end", err.what, 18));
	rec[2].addr = 0;
	rec[2].dst = 1;
	EXPECT_EQ(-1, fp_trace_check(t, len, &cfg, &view, &err));
	EXPECT_EQ(0, strncmp("dst: equals src", err.what, 15));
	free(t);

	/* Compute: dst and len 0, at most 2^40 ns in all. */
	fp_tb_add(&tb, MCMGPU_FP_REC_COMPUTE, 1, 0, 1ULL << 39, 0, NULL);
	fp_tb_add(&tb, MCMGPU_FP_REC_COMPUTE, 0, 0, 1ULL << 39, 0, NULL);
	t = fp_tb_finish(&tb, &len);
	EXPECT_EQ(0, fp_trace_check(t, len, &cfg, &view, &err)) TH_LOG("%s", err.what);
	rec = (struct mcmgpu_fp_trace_record *)(t + sizeof(struct mcmgpu_fp_trace_header));
	rec[1].addr++;
	EXPECT_EQ(-1, fp_trace_check(t, len, &cfg, &view, &err));
	EXPECT_EQ(2, err.record);
	EXPECT_EQ(0, strncmp("addr: the compute adds up", err.what, 25));
	rec[1].addr--;
	rec[0].len = 4;
	EXPECT_EQ(-1, fp_trace_check(t, len, &cfg, &view, &err));
	EXPECT_EQ(1, err.record);
	EXPECT_EQ(0, strncmp("dst, len, data_off: must be 0", err.what, 29));
	rec[0].len = 0;
	rec[0].src = 2;
	EXPECT_EQ(-1, fp_trace_check(t, len, &cfg, &view, &err));
	EXPECT_EQ(0, strncmp("src: no such chiplet", err.what, 20));
	free(t);

	/* 16 regions of 4 GiB - 1 fit in 64 GiB; a 17th does not. */
	cfg.vram_per_chiplet = 1ULL << 32;
	for (i = 0; i < 17; i++)
		fp_tb_add(&tb, MCMGPU_FP_REC_REGION, 0, 1, 0, UINT32_MAX, NULL);
	t = fp_tb_finish(&tb, &len);
	EXPECT_EQ(-1, fp_trace_check(t, len, &cfg, &view, &err));
	EXPECT_EQ(17, err.record);
	EXPECT_EQ(0, strncmp("len: the declared regions add up", err.what, 32));
	((struct mcmgpu_fp_trace_header *)t)->nrecords = 16;
	((struct mcmgpu_fp_trace_header *)t)->data_size = 0;
	EXPECT_EQ(-1, fp_trace_check(t, len, &cfg, &view, &err));	/* trailing */
	EXPECT_EQ(0, fp_trace_check(t, len - sizeof(*rec), &cfg, &view, &err));
	free(t);
	free(model);
}

/* What the timing reference sees of each packet. */
struct tref {
	uint32_t n, h, o;
	uint64_t fp_out[16], fp_in[16], wc_out[16], wc_in[16], sp_in[16];
};

static void tref_write(void *ctx, u32 dst, u64 addr, const u8 *data, u32 len)
{
}

/* Decodes the packet itself: wire bytes, and a plain TLP per sub-packet. */
static void tref_packet(void *ctx, u32 src, u32 dst, u64 base, const u8 *buf,
			u32 len)
{
	struct tref *t = ctx;
	uint32_t pos = 0, sublen;
	u64 off;

	t->fp_out[src] += t->o + (len + 3) / 4 * 4;
	t->fp_in[dst] += t->o + (len + 3) / 4 * 4;
	while (pos < len) {
		fp_decode_subheader(buf + pos, t->h, &off, &sublen);
		t->wc_out[src] += fp_plain_tlp_bytes(base + off, sublen, t->o);
		t->wc_in[dst] += fp_plain_tlp_bytes(base + off, sublen, t->o);
		t->sp_in[dst]++;
		pos += t->h + sublen;
	}
}

static uint64_t busiest(const uint64_t *out, const uint64_t *in, uint32_t n)
{
	uint64_t most = 0;
	uint32_t c;

	for (c = 0; c < n; c++) {
		most = out[c] > most ? out[c] : most;
		most = in[c] > most ? in[c] : most;
	}
	return most;
}

static uint64_t max2(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

/*
 * The timing model against a per-kernel reference that takes FinePack's
 * and write combining's bytes from the packets themselves, P2P's from the
 * stores, DMA's from the hulls and regions: random traces on 2..16 GPUs
 * with compute, atomics, regions and empty kernels.
 */
TEST(modeled_times_match_a_per_kernel_reference)
{
	static const uint32_t gbps[MCMGPU_FP_LINKS] = { 32, 64, 128, 768 };
	const uint64_t vram = MIB;
	struct fp_model *model = calloc(1, sizeof(*model));
	uint64_t rng = 99, depack_bound = 0;
	uint32_t n, round;
	uint8_t data[300];

	ASSERT_NE(NULL, model);
	memset(data, 7, sizeof(data));
	for (round = 0; round < 12; round++) {
		struct tref t = { .h = 2 + round % 5, .o = round % 2 ? 24 : 28 };
		struct fp_config cfg;
		struct fp_sink sink = { &t, tref_write, tref_packet };
		uint64_t want[MCMGPU_FP_LINKS][MCMGPU_FP_SCHEMES] = { { 0 } };
		uint64_t p2p_out[16] = { 0 }, p2p_in[16] = { 0 };
		uint64_t at_out[16] = { 0 }, at_in[16] = { 0 };
		uint64_t reg_out[16] = { 0 }, reg_in[16] = { 0 };
		uint64_t lo[16][16], hi[16][16], comp[16] = { 0 }, one_gpu = 0;
		uint8_t *written;
		uint32_t s, d, l, c;
		int i;

		n = 2 + (uint32_t)(mt_xorshift64(&rng) % 15);
		t.n = n;
		cfg = (struct fp_config){ n, t.h, t.o, vram };
		written = calloc(1, fp_bitmap_bytes(&cfg));
		ASSERT_NE(NULL, written);
		fp_model_init(model, &cfg, &sink, written);
		for (s = 0; s < 16; s++)
			for (d = 0; d < 16; d++)
				lo[s][d] = UINT64_MAX, hi[s][d] = 0;
		for (i = 0; i < 6000; i++) {
			struct mcmgpu_fp_trace_record r = { 0 };
			uint64_t x = mt_xorshift64(&rng), a, e;

			r.src = x % n;
			r.dst = (r.src + 1 + (x >> 8) % (n - 1)) % n;
			r.len = 1 + (x >> 16) % ((x >> 61) ? 300 : 8);
			r.addr = (x >> 24) % (vram - 300);
			/* Every third round: 1-2 B stores in a hot 8 KiB. */
			switch ((x >> 54) % 64) {
			case 0 ... 1:
				r.type = round % 3 != 2 || (x >> 40) % 16 == 0 ?
					 MCMGPU_FP_REC_KERNEL_END : MCMGPU_FP_REC_STORE;
				break;
			case 2:
				r.type = MCMGPU_FP_REC_REGION;
				r.len = 1 + (x >> 12) % (vram / 2);
				r.addr = (x >> 40) % (vram - r.len);
				break;
			case 3 ... 5:
				r.type = MCMGPU_FP_REC_COMPUTE;
				r.addr = (x >> 20) % 200000;
				r.dst = 0;
				r.len = 0;
				break;
			case 6:
				r.type = MCMGPU_FP_REC_ATOMIC;
				r.len = 1 + r.len % 8;
				r.addr &= ~127ULL;
				break;
			case 7:
				r.type = MCMGPU_FP_REC_FENCE;
				break;
			default:
				r.type = MCMGPU_FP_REC_STORE;
			}
			/* Hot rounds: stores only, no flush but a rare kernel end. */
			if (round % 3 == 2 && r.type != MCMGPU_FP_REC_KERNEL_END) {
				r = (struct mcmgpu_fp_trace_record){
					.type = MCMGPU_FP_REC_STORE, .src = r.src,
					.dst = (r.src + 1) % n, .len = 1 + (x >> 16) % 2,
					.addr = (x >> 24) % 8192 };
			}
			if (i == 5999)
				r.type = MCMGPU_FP_REC_KERNEL_END;
			switch (r.type) {
			case MCMGPU_FP_REC_STORE:
				for (a = r.addr; a < r.addr + r.len; a = e) {
					e = (a | 127) + 1;
					e = e < r.addr + r.len ? e : r.addr + r.len;
					p2p_out[r.src] += fp_plain_tlp_bytes(a, e - a, t.o);
					p2p_in[r.dst] += fp_plain_tlp_bytes(a, e - a, t.o);
				}
				lo[r.src][r.dst] = r.addr < lo[r.src][r.dst] ?
						   r.addr : lo[r.src][r.dst];
				hi[r.src][r.dst] = max2(hi[r.src][r.dst], r.addr + r.len);
				break;
			case MCMGPU_FP_REC_ATOMIC:
				a = fp_plain_tlp_bytes(r.addr, r.len, t.o);
				at_out[r.src] += a;
				at_in[r.dst] += a;
				break;
			case MCMGPU_FP_REC_REGION:
				a = (r.len + 3) / 4 * 4 + (r.len + 4095) / 4096 * t.o;
				reg_out[r.src] += a;
				reg_in[r.dst] += a;
				break;
			case MCMGPU_FP_REC_COMPUTE:
				comp[r.src] += r.addr;
				break;
			}
			fp_model_record(model, &r, data);
			if (r.type != MCMGPU_FP_REC_KERNEL_END)
				continue;
			/* The kernel end: every partition was flushed into t. */
			{
				uint64_t hull_out[16] = { 0 }, hull_in[16] = { 0 };
				uint64_t cmax = 0, dp = 0, len;

				for (s = 0; s < n; s++) {
					for (d = 0; d < n; d++) {
						if (hi[s][d] > lo[s][d]) {
							len = hi[s][d] - lo[s][d];
							len = (len + 3) / 4 * 4 +
							      (len + 4095) / 4096 * t.o;
							hull_out[s] += len;
							hull_in[d] += len;
						}
						lo[s][d] = UINT64_MAX;
						hi[s][d] = 0;
					}
				}
				for (c = 0; c < n; c++) {
					/* Atomics are TLPs of every store scheme. */
					p2p_out[c] += at_out[c];
					p2p_in[c] += at_in[c];
					t.fp_out[c] += at_out[c];
					t.fp_in[c] += at_in[c];
					t.wc_out[c] += at_out[c];
					t.wc_in[c] += at_in[c];
					cmax = max2(cmax, comp[c] * 1000);
					dp = max2(dp, t.sp_in[c] * 1000000 / (16 * 1530));
					one_gpu += comp[c] * 1000;
				}
				for (l = 0; l < MCMGPU_FP_LINKS; l++) {
					uint64_t fp = busiest(t.fp_out, t.fp_in, n) * 1000 /
						      gbps[l];
					uint64_t at = max2(cmax, busiest(at_out, at_in, n) *
							   1000 / gbps[l]);

					if (l == MCMGPU_FP_LINK_PCIE6 && dp > fp && dp > cmax)
						depack_bound++;
					want[l][MCMGPU_FP_T_INFINITE] += cmax;
					want[l][MCMGPU_FP_T_P2P] += max2(cmax,
						busiest(p2p_out, p2p_in, n) * 1000 / gbps[l]);
					want[l][MCMGPU_FP_T_WC] += max2(cmax,
						busiest(t.wc_out, t.wc_in, n) * 1000 / gbps[l]);
					want[l][MCMGPU_FP_T_FINEPACK] += max2(cmax, max2(fp, dp));
					want[l][MCMGPU_FP_T_DMA_HULL] += at +
						busiest(hull_out, hull_in, n) * 1000 / gbps[l];
					want[l][MCMGPU_FP_T_DMA_REGION] += at +
						busiest(reg_out, reg_in, n) * 1000 / gbps[l];
				}
				memset(p2p_out, 0, sizeof(p2p_out));
				memset(p2p_in, 0, sizeof(p2p_in));
				memset(at_out, 0, sizeof(at_out));
				memset(at_in, 0, sizeof(at_in));
				memset(comp, 0, sizeof(comp));
				memset(t.fp_out, 0, sizeof(t.fp_out));
				memset(t.fp_in, 0, sizeof(t.fp_in));
				memset(t.wc_out, 0, sizeof(t.wc_out));
				memset(t.wc_in, 0, sizeof(t.wc_in));
				memset(t.sp_in, 0, sizeof(t.sp_in));
			}
			for (l = 0; l < MCMGPU_FP_LINKS; l++)
				for (c = 0; c < MCMGPU_FP_SCHEMES; c++)
					ASSERT_EQ(want[l][c], model->stats.time_ps[l][c])
						TH_LOG("round %u record %d link %u scheme %u",
						       round, i, l, c);
			ASSERT_EQ(one_gpu, model->stats.one_gpu_ps);
			ASSERT_EQ(depack_bound, model->stats.depack_bound_kernels);
		}
		EXPECT_EQ(round % 3 != 2, model->stats.compute_records > 0);
		EXPECT_EQ(round % 3 != 2, model->stats.regions > 0);
		free(written);
	}
	/* Some kernels were bound by each of compute, the link, the de-packetizer. */
	EXPECT_LT(0, depack_bound);
	free(model);
}

/* Text form: every record type and each kind of bad line. */
TEST(text_parser)
{
	static const char good[] =
		"# comment\n"
		"store 0 1 0x10 4 01020304   # trailing comment\n"
		"load 0 1 16 4\n"
		"atomic 1 0 0 2 0xbeef\n"
		"fence 1\n"
		"\n"
		"kernel_end\n"
		"region 2 3 0x1000 8192\n"
		"compute 3 123456789\n";
	static const struct { const char *text, *want; } bad[] = {
		{ "store 0 1 0 4 0102\n", "line 1: HEXDATA: 4 hex digits for LEN 4" },
		{ "fence 0\nstroe 0 1 0 1 00\n", "line 2: unknown record type 'stroe'" },
		{ "load 0 1 zz 4\n", "line 1: ADDR: not a number" },
		{ "load 0 1 4\n", "line 1: load takes 4 fields, got 3" },
		{ "store 0 1 0 2 0g00\n", "line 1: HEXDATA: bad hex digit" },
		{ "load 0 300 0 4\n", "line 1: DST: chiplet 300 out of range" },
		{ "region 0 1 0\n", "line 1: region takes 4 fields, got 3" },
		{ "region 0 1 0 4294967296\n", "line 1: LEN: 4294967296 too large" },
		{ "compute 0 1x\n", "line 1: NS: not a number: '1x'" },
		{ "compute 0\n", "line 1: compute takes 2 fields, got 1" },
	};
	struct fp_trace_buf tb = { 0 };
	char msg[256];
	size_t i;

	ASSERT_EQ(0, fp_text_parse(good, strlen(good), &tb, msg, sizeof(msg)))
		TH_LOG("%s", msg);
	ASSERT_EQ(7, tb.nrec);
	EXPECT_EQ(MCMGPU_FP_REC_COMPUTE, tb.rec[6].type);
	EXPECT_EQ(3, tb.rec[6].src);
	EXPECT_EQ(0, tb.rec[6].dst);
	EXPECT_EQ(123456789, tb.rec[6].addr);
	EXPECT_EQ(0, tb.rec[6].len);
	EXPECT_EQ(MCMGPU_FP_REC_REGION, tb.rec[5].type);
	EXPECT_EQ(0x1000, tb.rec[5].addr);
	EXPECT_EQ(8192, tb.rec[5].len);
	EXPECT_EQ(3, tb.rec[5].dst);
	EXPECT_EQ(MCMGPU_FP_REC_STORE, tb.rec[0].type);
	EXPECT_EQ(0x10, tb.rec[0].addr);
	EXPECT_EQ(4, tb.data[3]);
	EXPECT_EQ(0xbe, tb.data[4]);
	EXPECT_EQ(MCMGPU_FP_REC_KERNEL_END, tb.rec[4].type);
	fp_tb_free(&tb);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		EXPECT_EQ(-1, fp_text_parse(bad[i].text, strlen(bad[i].text), &tb,
					    msg, sizeof(msg)));
		EXPECT_EQ(0, strncmp(bad[i].want, msg, strlen(bad[i].want)))
			TH_LOG("got '%s'", msg);
		fp_tb_free(&tb);
	}
}

TEST_HARNESS_MAIN
