// SPDX-License-Identifier: GPL-2.0
/*
 * The GPU timing core against the old replays (issue 28, item 5): each
 * mechanism fed through the core on a stream where the replay's
 * assumptions hold gives the replay's counters (docs/gpu.md,
 * "Validation").
 *
 * Barre: `mcmgpu barre replay --host` (barre_replay.c, barre_host.c) runs
 * each chiplet's accesses in trace order, one a cycle, through
 * chiplet_tlb.c. The core runs the same stream as a program of one SM a
 * chiplet and one warp a chiplet whose instructions are single-lane
 * stores (no register waits on another, one page each), so its warps
 * issue one access a cycle in trace order too. The replay's phases (the
 * accesses between two allocations) are the program's kernels: both
 * wait for every translation before the next starts. Each phase keeps
 * within what both model alike: at most l2_tlb_mshrs distinct pages a
 * chiplet (no access ever waits for an MSHR: the replay stalls the
 * chiplet there, the core lets the warp go on and queues the miss) and
 * at most CHIPLET_TLB_MSHR_WAITERS accesses a page (the replay's MSHRs
 * hold that many), short enough that every fill comes after the
 * chiplet's last access.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "barre_replay.h"
#include "barre_trace.h"
#include "chiplet_tlb.h"
#include "cpe_replay.h"
#include "fp_replay.h"
#include "gpu_core.h"
#include "gpu_finepack.h"
#include "gpu_run.h"
#include "program.h"
#include "../lib/core_run.h"
#include "../../drivers/iommu/barre/barre_walk.h"

#define PAGE		4096ULL
#define CHIPLETS	4
#define OBJ_BASE	0x10000000ULL
#define SEP_BASE	0x40000000ULL

/* ---- a tprog as a program file ------------------------------------------ */

static int file_write(void *ctx, const void *buf, size_t len)
{
	return fwrite(buf, 1, len, ctx) == len ? 0 : -EIO;
}

static int tp_to_file(const struct tprog *p, char *path, size_t len,
		      const char *tag)
{
	struct prog_writer *w = calloc(1, sizeof(*w));
	FILE *f;
	size_t i;
	int ret, fd;

	snprintf(path, len, "/tmp/gpu_replay_equiv.%s.XXXXXX", tag);
	fd = mkstemp(path);
	if (fd < 0 || !w) {
		free(w);
		return -EIO;
	}
	f = fdopen(fd, "wb");
	ret = f ? prog_writer_init(w, file_write, f) : -EIO;
	for (i = 0; !ret && i < p->n; i++)
		ret = prog_write(w, &p->recs[i]);
	if (ret)
		fprintf(stderr, "record %zu: %s %s\n", i,
			w->grammar.err_field ? w->grammar.err_field : "",
			w->grammar.err_why ? w->grammar.err_why : "");
	if (f && fclose(f) && !ret)
		ret = -EIO;
	free(w);
	return ret;
}

/* ---- Barre ---------------------------------------------------------------- */

struct baccess {
	uint32_t page;
	uint8_t write;
};

/* A stream: phases of per-chiplet access lists. */
struct bstream {
	uint32_t pages;			/* the object's */
	uint32_t phases;
	struct baccess *acc[64][CHIPLETS];
	uint32_t n[64][CHIPLETS];
};

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/*
 * Each phase, chiplet c touches up to `distinct` pages, each 1 to
 * `repeat` times, interleaved at random: a page it used in the last
 * phases (likely a TLB hit) with probability reuse %, else one at random
 * in the object (likely a miss; with `near`, in the group its
 * neighbours miss on too, so the IOMMU coalesces).
 */
static void bstream_gen(struct bstream *s, uint32_t pages, uint32_t phases,
			uint32_t distinct, uint32_t repeat, uint32_t reuse,
			bool near, uint64_t seed)
{
	uint32_t hist[CHIPLETS][256], nhist[CHIPLETS] = { 0 };
	uint32_t ph, c, i, j;

	memset(s, 0, sizeof(*s));
	s->pages = pages;
	s->phases = phases;
	seed |= 1;
	for (ph = 0; ph < phases; ph++) {
		uint32_t group = rnd(&seed) % (pages / 16);

		for (c = 0; c < CHIPLETS; c++) {
			uint32_t pg[16], cnt[16], np = 0, total = 0;

			for (i = 0; i < distinct; i++) {
				uint32_t p;

				if (nhist[c] && rnd(&seed) % 100 < reuse)
					p = hist[c][rnd(&seed) % nhist[c]];
				else if (near)
					p = group * 16 + rnd(&seed) % 16;
				else
					p = rnd(&seed) % pages;
				for (j = 0; j < np && pg[j] != p; j++)
					;
				if (j < np)
					continue;
				pg[np] = p;
				cnt[np] = 1 + rnd(&seed) % repeat;
				total += cnt[np++];
				if (nhist[c] < 256)
					hist[c][nhist[c]++] = p;
				else
					hist[c][rnd(&seed) % 256] = p;
			}
			s->acc[ph][c] = calloc(total, sizeof(struct baccess));
			while (s->n[ph][c] < total) {
				j = rnd(&seed) % np;
				if (!cnt[j])
					continue;
				cnt[j]--;
				s->acc[ph][c][s->n[ph][c]++] = (struct baccess){
					.page = pg[j], .write = 1,
				};
			}
		}
	}
}

static void bstream_free(struct bstream *s)
{
	uint32_t ph, c;

	for (ph = 0; ph < s->phases; ph++)
		for (c = 0; c < CHIPLETS; c++)
			free(s->acc[ph][c]);
}

/* Byte offset of an access: a page's word picked by its position. */
static uint64_t boff(const struct baccess *a, uint32_t i)
{
	return a->page * PAGE + (i * 68) % PAGE / 4 * 4;
}

/*
 * The replay's trace: the object, then each phase's accesses (chiplet
 * after chiplet: each chiplet runs its own in order whatever the
 * interleaving), a one-page separator allocated between phases.
 */
static char *bstream_trace(const struct bstream *s)
{
	size_t cap = 1 << 20, len = 0;
	char *t = malloc(cap);
	uint32_t ph, c, i;

	len += snprintf(t + len, cap - len,
			"alloc data %llu policy=chunk g=16\n",
			(unsigned long long)s->pages * PAGE);
	for (ph = 0; ph < s->phases; ph++) {
		if (ph)
			len += snprintf(t + len, cap - len,
					"alloc sep%u 4096 policy=chunk g=1\n", ph);
		for (c = 0; c < CHIPLETS; c++)
			for (i = 0; i < s->n[ph][c]; i++) {
				const struct baccess *a = &s->acc[ph][c][i];

				if (cap - len < 128) {
					cap *= 2;
					t = realloc(t, cap);
				}
				len += snprintf(t + len, cap - len,
						"access %u data %llu %c\n", c,
						(unsigned long long)boff(a, i),
						a->write ? 'w' : 'r');
			}
	}
	return t;
}

/*
 * The same as a program: every object first (the host run allocates
 * them in program order before the run, as the replay does in trace
 * order), a kernel a phase, block c (on chiplet c, tb_sched rr) with one
 * warp of single-lane 4 B stores of a register nothing writes, so no
 * instruction waits (loads would: a warp holds PEND_MAX pending writes).
 */
static void bstream_prog(const struct bstream *s, struct tprog *p)
{
	uint32_t ph, c, i;

	tp_object(p, OBJ_BASE, s->pages * PAGE, "data");
	for (ph = 1; ph < s->phases; ph++) {
		char name[16];

		snprintf(name, sizeof(name), "sep%u", ph);
		tp_object(p, SEP_BASE + ph * PAGE, PAGE, name);
	}
	for (ph = 0; ph < s->phases; ph++) {
		tp_kernel(p, ph + 1, "phase", CHIPLETS, 32, 0);
		for (c = 0; c < CHIPLETS; c++) {
			tp_block(p, c);
			tp_warp(p, 0, s->n[ph][c] ? s->n[ph][c] : 1);
			if (!s->n[ph][c])
				tp_alu(p, PROG_OP_INT, 0, 0);
			for (i = 0; i < s->n[ph][c]; i++) {
				const struct baccess *a = &s->acc[ph][c][i];

				tp_mem(p, PROG_SPACE_GLOBAL, PROG_KIND_STORE,
				       4, 1, OBJ_BASE + boff(a, i), 0, 1);
			}
			tp_add(p, PROG_REC_BLOCK_END);
		}
		tp_add(p, PROG_REC_KERNEL_END);
	}
	tp_add(p, PROG_REC_END);
}

/*
 * The "barre" preset made to the replay's machine: one SM a chiplet, the
 * replay's TLBs, MSHRs, walkers and latencies. The replay looks up both
 * TLBs at the issue cycle and sends a miss MCMGPU_BARRE_L2_CYCLES later;
 * the core reaches the L2 TLB l1_tlb_lat after issue and sends
 * l2_tlb_lat after that, so l2_tlb_lat is the replay's less one.
 */
static void barre_opts(struct gpu_run_opts *o)
{
	char set[64];
	const char *why;
	static const char *const sets[] = {
		"chiplets=4", "sms=1", "tb_sched=rr", "placement=chunk",
		"place_g=16", "l1_tlb_ways=64", "l1_tlb_lat=1",
	};
	uint32_t i;

	memset(o, 0, sizeof(*o));
	o->cfg = gpu_preset_find("barre")->cfg;
	o->barre = GPU_RUN_BARRE_ON;
	for (i = 0; i < sizeof(sets) / sizeof(sets[0]); i++)
		if (gpu_config_set(&o->cfg, sets[i], &why))
			abort();
	o->cfg.l1_tlb_entries = MCMGPU_BARRE_L1_ENTRIES;
	o->cfg.l1_tlb_ways = MCMGPU_BARRE_L1_ENTRIES;
	o->cfg.l2_tlb_entries = MCMGPU_BARRE_L2_ENTRIES;
	o->cfg.l2_tlb_ways = MCMGPU_BARRE_L2_WAYS;
	o->cfg.l2_tlb_mshrs = MCMGPU_BARRE_MSHRS;
	o->cfg.pcie_lat = MCMGPU_BARRE_PCIE_CYCLES;
	o->cfg.walkers = MCMGPU_BARRE_WALKERS;
	o->cfg.walk_lat = MCMGPU_BARRE_WALK_CYCLES;
	snprintf(set, sizeof(set), "l2_tlb_lat=%u", MCMGPU_BARRE_L2_CYCLES - 1);
	if (gpu_config_set(&o->cfg, set, &why))
		abort();
}

struct bresult {
	struct mcmgpu_barre_stats rep;	/* the replay's */
	struct gpu_run_result core;	/* the core's */
};

static int barre_both_mode(const struct bstream *s, struct bresult *r,
			   bool fbarre);

static int barre_both(const struct bstream *s, struct bresult *r)
{
	return barre_both_mode(s, r, false);
}

/* fbarre: F-Barre's in-package translation in both (merge 1). */
static int barre_both_mode(const struct bstream *s, struct bresult *r,
			   bool fbarre)
{
	struct barre_replay_cfg rc = { 0 };
	struct barre_trace t = { 0 };
	struct gpu_run_opts o;
	struct tprog p = { 0 };
	char err[512] = "", path[96];
	char *text = bstream_trace(s);
	int ret;

	barre_opts(&o);
	rc.chiplets = CHIPLETS;
	rc.frames = (uint64_t)o.cfg.vram_mib << 8;
	rc.barre = true;
	rc.walkers = MCMGPU_BARRE_WALKERS;
	rc.merge = 1;
	if (fbarre) {
		o.barre = GPU_RUN_BARRE_FBARRE;
		o.cfg.fbarre = 1;
		o.cfg.fbarre_merge = 1;
		rc.sharing = true;
		rc.filter_rows = o.cfg.fbarre_filter_rows;
		rc.sched_moves = o.cfg.fbarre_sched_moves;
	}
	ret = barre_trace_parse(text, strlen(text), &t, err, sizeof(err));
	free(text);
	if (!ret)
		ret = barre_replay_host(&t, &rc, &r->rep, err, sizeof(err));
	barre_trace_free(&t);
	if (ret) {
		fprintf(stderr, "replay: %s\n", err);
		return ret;
	}
	bstream_prog(s, &p);
	ret = tp_to_file(&p, path, sizeof(path), "barre");
	tp_free(&p);
	if (!ret) {
		ret = gpu_run_host(path, &o, &r->core, err, sizeof(err));
		if (ret)
			fprintf(stderr, "core: %s\n", err);
	}
	unlink(path);
	return ret;
}

/* What both count, equal; the core's misses include its merges. */
static void barre_equal(struct __test_metadata *_metadata,
			const struct bresult *r)
{
	const struct mcmgpu_barre_stats *b = &r->rep, *w = &r->core.barre;
	const struct gpu_core_stats *c = &r->core.core;
	uint32_t i;

	TH_LOG("replay: %llu accesses, %llu L1 hits, %llu L2 hits, %llu merges, "
	       "%llu misses, %llu walks, %llu coalesced; core: %llu walks, "
	       "%llu coalesced",
	       (unsigned long long)b->accesses, (unsigned long long)b->l1_hits,
	       (unsigned long long)b->l2_hits, (unsigned long long)b->mshr_merges,
	       (unsigned long long)b->l2_misses, (unsigned long long)b->walks,
	       (unsigned long long)b->coalesced, (unsigned long long)w->walks,
	       (unsigned long long)w->coalesced);
	/* The stream keeps the replay's assumptions: no chiplet stalled. */
	ASSERT_EQ(0, b->stall_cycles);
	ASSERT_EQ(0, b->access_faults);
	/* The device's side. */
	EXPECT_EQ(b->accesses, c->l1_tlb_accesses);
	EXPECT_EQ(b->l1_hits, c->l1_tlb_hits);
	EXPECT_EQ(b->l2_hits, c->l2_tlb_hits);
	EXPECT_EQ(b->mshr_merges, c->l2_tlb_mshr_merges);
	EXPECT_EQ(b->l2_misses + b->mshr_merges, c->l2_tlb_misses);
	EXPECT_EQ(b->ats_requests_sent, c->ats_requests);
	EXPECT_EQ(b->ats_requests_sent, c->ats_replies);
	EXPECT_EQ(b->ats_round_trip, c->ats_round_trip);
	EXPECT_EQ(0, c->translation_faults);
	/* The IOMMU's: the same requests at the same cycles. */
	EXPECT_EQ(b->ats_requests, w->ats_requests);
	EXPECT_EQ(b->walks, w->walks);
	EXPECT_EQ(b->coalesced, w->coalesced);
	EXPECT_EQ(b->pec_hits, w->pec_hits);
	EXPECT_EQ(b->pec_misses, w->pec_misses);
	EXPECT_EQ(b->iommu_cycles, w->iommu_cycles);
	EXPECT_EQ(b->translation_faults, w->translation_faults);
	for (i = 0; i <= MCMGPU_BARRE_PWQ_ENTRIES; i++)
		EXPECT_EQ(b->pwq_occupancy[i], w->pwq_occupancy[i]);
	/* The allocator's: the same objects in the same order. */
	EXPECT_EQ(b->objects, w->objects);
	EXPECT_EQ(b->pages, w->pages);
	EXPECT_EQ(b->groups, w->groups);
	EXPECT_EQ(b->grouped_pages, w->grouped_pages);
}

static void barre_case(struct __test_metadata *_metadata, uint32_t pages,
		       uint32_t phases, uint32_t distinct, uint32_t repeat,
		       uint32_t reuse, bool near, uint64_t seed)
{
	struct bstream s;
	struct bresult r;

	bstream_gen(&s, pages, phases, distinct, repeat, reuse, near, seed);
	ASSERT_EQ(0, barre_both(&s, &r));
	barre_equal(_metadata, &r);
	gpu_run_result_free(&r.core);
	bstream_free(&s);
}

/* Misses in the same groups across chiplets: the IOMMU coalesces. */
TEST(barre_coalescing)
{
	struct bstream s;
	struct bresult r;

	bstream_gen(&s, 1024, 12, MCMGPU_BARRE_MSHRS, 1, 0, true, 7);
	ASSERT_EQ(0, barre_both(&s, &r));
	barre_equal(_metadata, &r);
	EXPECT_GT(r.rep.coalesced, 0);
	gpu_run_result_free(&r.core);
	bstream_free(&s);
}

/* Reuse across phases: L1 and L2 TLB hits, merges, evictions. */
TEST(barre_hits_and_merges)
{
	struct bstream s;
	struct bresult r;

	bstream_gen(&s, 2048, 40, MCMGPU_BARRE_MSHRS,
		    CHIPLET_TLB_MSHR_WAITERS, 70, false, 11);
	ASSERT_EQ(0, barre_both(&s, &r));
	barre_equal(_metadata, &r);
	EXPECT_GT(r.rep.l1_hits, 0);
	EXPECT_GT(r.rep.l2_hits, 0);
	EXPECT_GT(r.rep.mshr_merges, 0);
	gpu_run_result_free(&r.core);
	bstream_free(&s);
}

/* Seeds and shapes at random within the assumptions. */
TEST(barre_random)
{
	uint32_t seed;

	for (seed = 1; seed <= 6; seed++)
		barre_case(_metadata, 256 << (seed % 4), 8 + seed * 3,
			   4 + seed * 2, 1 + seed % CHIPLET_TLB_MSHR_WAITERS,
			   20 * (seed % 5), seed % 2, seed * 977);
}

/* a and b within 1 % of scale (and 1). */
static void near_equal(struct __test_metadata *_metadata, uint64_t a,
		       uint64_t b, uint64_t scale)
{
	uint64_t d = a > b ? a - b : b - a;

	EXPECT_LE(d, scale / 100 + 1) TH_LOG("%llu against %llu",
					     (unsigned long long)a,
					     (unsigned long long)b);
}

/*
 * F-Barre (against the same replay with --sharing: chiplet_tlb.c's
 * fbarre.c calls; the core's through gpu_fbarre.c): the same streams.
 */
static void fbarre_case(struct __test_metadata *_metadata, uint32_t pages,
			uint32_t phases, uint32_t reuse, bool near,
			uint64_t seed)
{
	const struct mcmgpu_barre_stats *b, *w;
	struct bstream s;
	struct bresult r;

	bstream_gen(&s, pages, phases, MCMGPU_BARRE_MSHRS,
		    CHIPLET_TLB_MSHR_WAITERS / 2, reuse, near, seed);
	ASSERT_EQ(0, barre_both_mode(&s, &r, true));
	b = &r.rep;
	w = &r.core.barre;
	TH_LOG("F-Barre replay: %llu lookups, %llu local, %llu remote, %llu sent; "
	       "core: %llu, %llu, %llu, %llu",
	       (unsigned long long)b->inpackage_lookups,
	       (unsigned long long)b->local_hits,
	       (unsigned long long)b->remote_hits,
	       (unsigned long long)b->ats_requests_sent,
	       (unsigned long long)w->inpackage_lookups,
	       (unsigned long long)w->local_hits,
	       (unsigned long long)w->remote_hits,
	       (unsigned long long)w->ats_requests_sent);
	/*
	 * Not equal by design, within a cycle: the replay looks up the L2
	 * TLB at issue, the core l1_tlb_lat (at least 1) later. Barre's
	 * answers come after a phase's last access, F-Barre's from the
	 * package within it, so an access the replay merges into the MSHR
	 * of a page answered in that very cycle hits the core's L2 TLB, and
	 * a filter update can land on either side of a lookup. The work is
	 * the same, the split between hit and merge a cycle's worth, every
	 * identity holds in both, and the package's counts stay within 1 %.
	 */
	EXPECT_EQ(b->accesses, r.core.core.l1_tlb_accesses);
	EXPECT_EQ(b->l1_hits, r.core.core.l1_tlb_hits);
	EXPECT_EQ(b->l2_hits + b->mshr_merges,
		  r.core.core.l2_tlb_hits + r.core.core.l2_tlb_mshr_merges);
	EXPECT_GE(r.core.core.l2_tlb_hits, b->l2_hits);
	EXPECT_EQ(b->l2_misses, w->l2_misses);
	EXPECT_EQ(b->inpackage_lookups, w->inpackage_lookups);
	EXPECT_EQ(b->l2_misses, b->local_hits + b->remote_hits +
		  b->ats_requests_sent);
	EXPECT_EQ(w->l2_misses, w->local_hits + w->remote_hits +
		  w->ats_requests_sent);
	EXPECT_EQ(w->ats_requests_sent, w->walks + w->coalesced);
	EXPECT_EQ(0, w->inpackage_mismatches);
	EXPECT_GT(w->local_hits, 0);
	EXPECT_GT(w->remote_hits, 0);
	near_equal(_metadata, b->local_hits, w->local_hits, b->l2_misses);
	near_equal(_metadata, b->remote_hits, w->remote_hits, b->l2_misses);
	near_equal(_metadata, b->ats_requests_sent, w->ats_requests_sent,
		   b->l2_misses);
	near_equal(_metadata, b->lcf_hits, w->lcf_hits, b->l2_misses);
	near_equal(_metadata, b->filter_messages, w->filter_messages,
		   b->filter_messages);
	near_equal(_metadata, b->walks, w->walks, b->l2_misses);
	gpu_run_result_free(&r.core);
	bstream_free(&s);
}

TEST(fbarre_shared_pages)
{
	fbarre_case(_metadata, 256, 30, 40, true, 21);
	fbarre_case(_metadata, 1024, 30, 60, false, 22);
}

/* ---- FinePack --------------------------------------------------------------- */

/*
 * `mcmgpu finepack replay --host` (fp_replay.c, fp_host.c) feeds a
 * trace's records to finepack.c in order; only each source's order
 * matters (a partition is a source and a destination; a fence flushes
 * its source's, a kernel end all). The core feeds the same queues with
 * its remote store sectors as they depart the L1, each contiguous run of
 * a sector's bytes one store. A program of one warp a chiplet whose
 * stores each write within one sector departs them in program order, so
 * the trace of those runs, a source after another, with the fences and
 * kernel ends where the program has them, is what the core queued.
 */
#define FP_OBJ		0x10000000ULL
#define FP_PAGES	64
#define FP_VRAM		(64ULL << 20)

struct fpstore {
	uint64_t addr;		/* the sector's */
	uint8_t words;		/* 4 B words written, bit i: word i */
	uint8_t fence;		/* a fence instead of a store */
};

struct fptrace {
	struct mcmgpu_fp_trace_record *rec;
	uint32_t n, cap;
};

static void fpt_add(struct fptrace *t, uint8_t type, uint32_t src,
		    uint32_t dst, uint64_t addr, uint32_t len)
{
	if (t->n == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 1024;
		t->rec = realloc(t->rec, t->cap * sizeof(*t->rec));
	}
	t->rec[t->n++] = (struct mcmgpu_fp_trace_record){
		.type = type, .src = src, .dst = dst, .addr = addr, .len = len,
	};
}

static uint32_t fp_home(uint64_t addr)
{
	return (uint32_t)(((addr - FP_OBJ) >> 12) % CHIPLETS);
}

/*
 * kernels x CHIPLETS warps of n instructions each: stores of a random
 * set of words of a random sector (in a few hot pages with `hot` % so
 * the queue combines), a fence with fence_pct %. The program into p,
 * the trace into t.
 */
static void fp_gen(struct tprog *p, struct fptrace *t, uint32_t kernels,
		   uint32_t n, uint32_t hot, uint32_t fence_pct, uint64_t seed)
{
	struct fpstore *w = calloc(n, sizeof(*w));
	uint32_t k, c, i, b;

	seed |= 1;
	tp_object(p, FP_OBJ, FP_PAGES * PAGE, "a");
	for (k = 0; k < kernels; k++) {
		tp_kernel(p, k + 1, "scatter", CHIPLETS, 32, 0);
		for (c = 0; c < CHIPLETS; c++) {
			tp_block(p, c);
			tp_warp(p, 0, n);
			for (i = 0; i < n; i++) {
				uint64_t page = rnd(&seed) % 100 < hot ?
					rnd(&seed) % 4 : rnd(&seed) % FP_PAGES;

				w[i].fence = rnd(&seed) % 100 < fence_pct;
				w[i].addr = FP_OBJ + page * PAGE +
					    rnd(&seed) % (PAGE / 32) * 32;
				w[i].words = rnd(&seed) | 1;
				if (w[i].fence) {
					tp_alu(p, PROG_OP_OTHER, 0, 0);
					snprintf(p->recs[p->n - 1].inst.opcode,
						 PROG_OPCODE_MAX, "MEMBAR.SYS");
					fpt_add(t, MCMGPU_FP_REC_FENCE, c, 0, 0, 0);
					continue;
				}
				/* Lane l writes word l of the sector, if set. */
				tp_mem(p, PROG_SPACE_GLOBAL, PROG_KIND_STORE, 4,
				       w[i].words, w[i].addr, 4, 1);
				if (fp_home(w[i].addr) == c)
					continue;
				for (b = 0; b < 8;) {
					uint32_t e = b;

					if (!(w[i].words & (1u << b))) {
						b++;
						continue;
					}
					while (e < 8 && (w[i].words & (1u << e)))
						e++;
					fpt_add(t, MCMGPU_FP_REC_STORE, c,
						fp_home(w[i].addr),
						w[i].addr - FP_OBJ + 4 * b,
						4 * (e - b));
					b = e;
				}
			}
			tp_add(p, PROG_REC_BLOCK_END);
		}
		tp_add(p, PROG_REC_KERNEL_END);
		fpt_add(t, MCMGPU_FP_REC_KERNEL_END, 0, 0, 0, 0);
	}
	tp_add(p, PROG_REC_END);
	free(w);
}

static int fp_replay_run(const struct fptrace *t, struct mcmgpu_fp_stats *st)
{
	size_t len = sizeof(struct mcmgpu_fp_trace_header) +
		     (size_t)t->n * sizeof(*t->rec) + 32;
	uint8_t *buf = calloc(1, len);
	struct mcmgpu_fp_trace_header *h = (void *)buf;
	struct fp_backend b = { .ops = &fp_host_ops, .fd = -1 };
	struct fp_config cfg = {
		.chiplets = CHIPLETS, .subheader = GPU_FP_SUBHEADER,
		.overhead = GPU_FP_OVERHEAD, .vram_per_chiplet = FP_VRAM,
	};
	struct mcmgpu_fp_replay_result res;
	struct fp_verify v;
	struct replay_error e;
	int ret;

	*h = (struct mcmgpu_fp_trace_header){
		.magic = MCMGPU_FP_TRACE_MAGIC,
		.version = MCMGPU_FP_TRACE_VERSION,
		.header_size = sizeof(*h), .record_size = sizeof(*t->rec),
		.nrecords = t->n, .data_size = 32,
	};
	memcpy(buf + sizeof(*h), t->rec, (size_t)t->n * sizeof(*t->rec));
	ret = fp_replay(&b, buf, len, &cfg, false, &res, &v, &e);
	if (ret)
		fprintf(stderr, "replay: record %llu: %s\n",
			(unsigned long long)e.rec.index, e.rec.what);
	*st = res.stats;
	free(buf);
	return ret;
}

static int fp_core_run(struct tprog *p, uint32_t mode,
		       struct gpu_core_stats *st)
{
	struct gpu_config c = gpu_preset_find("finepack")->cfg;
	char err[GPU_CORE_ERR_MAX];
	int ret;

	c.chiplets = CHIPLETS;
	c.sms = 1;
	c.translate = 0;
	c.tb_sched = GPU_TB_RR;
	c.placement = GPU_PLACE_RR;
	c.place_g = 1;
	c.finepack = mode;
	ret = tp_run(&c, p, ~0ULL, 0, st, err);
	if (ret)
		fprintf(stderr, "core: %s\n", err);
	return ret;
}

static void fp_equal(struct __test_metadata *_metadata,
		     const struct mcmgpu_fp_stats *r,
		     const struct gpu_finepack_stats *f)
{
	uint32_t i;

	TH_LOG("replay: %llu stores, %llu packets, %llu subpackets, %llu fence "
	       "flushes; core: %llu, %llu, %llu, %llu",
	       (unsigned long long)r->stores, (unsigned long long)r->packets,
	       (unsigned long long)r->subpackets,
	       (unsigned long long)r->flushes[MCMGPU_FP_FLUSH_FENCE],
	       (unsigned long long)f->stores, (unsigned long long)f->packets,
	       (unsigned long long)f->subpackets,
	       (unsigned long long)f->flushes[MCMGPU_FP_FLUSH_FENCE]);
	EXPECT_EQ(r->stores, f->stores);
	EXPECT_EQ(r->store_bytes, f->store_bytes);
	EXPECT_EQ(r->store_pieces, f->store_pieces);
	EXPECT_EQ(r->fences, f->fences);
	EXPECT_EQ(r->kernels, f->kernels);
	EXPECT_EQ(r->packets, f->packets);
	EXPECT_EQ(r->subpackets, f->subpackets);
	EXPECT_EQ(r->wire_payload, f->wire_payload);
	EXPECT_EQ(r->wire_subheader, f->wire_subheader);
	EXPECT_EQ(r->wire_overhead, f->wire_overhead);
	EXPECT_EQ(r->wire_padding, f->wire_padding);
	for (i = 0; i < MCMGPU_FP_FLUSH_REASONS; i++)
		EXPECT_EQ(r->flushes[i], f->flushes[i]);
	EXPECT_EQ(r->plain_wire_bytes, f->plain_wire_bytes);
	EXPECT_EQ(r->plain_tlps, f->plain_tlps);
	EXPECT_EQ(r->wc_wire_bytes, f->wc_wire_bytes);
	EXPECT_EQ(r->wc_tlps, f->wc_tlps);
	/*
	 * DMA differs by design: the replay copies each kernel's hull of
	 * what a source wrote in a destination, the core only the bytes its
	 * queue flushed (what FinePack's sub-packets carry), in 4 KiB TLPs.
	 */
	EXPECT_EQ(r->wire_payload, f->dma_payload);
	EXPECT_LE(f->dma_payload, r->dma_payload);
	EXPECT_LE(f->dma_wire_bytes, r->dma_wire_bytes);
	EXPECT_LE(f->dma_tlps, r->dma_tlps);
}

static void fp_case(struct __test_metadata *_metadata, uint32_t kernels,
		    uint32_t n, uint32_t hot, uint32_t fence_pct, uint64_t seed)
{
	static const uint32_t modes[] = {
		GPU_FP_P2P, GPU_FP_WC, GPU_FP_FINEPACK, GPU_FP_DMA,
	};
	struct mcmgpu_fp_stats r;
	struct gpu_core_stats st;
	struct fptrace t = { 0 };
	struct tprog p = { 0 };
	uint32_t i;

	fp_gen(&p, &t, kernels, n, hot, fence_pct, seed);
	ASSERT_EQ(0, fp_replay_run(&t, &r));
	for (i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		ASSERT_EQ(0, fp_core_run(&p, modes[i], &st));
		fp_equal(_metadata, &r, &st.finepack);
	}
	free(t.rec);
	tp_free(&p);
}

/* Kernel ends only: the entries, payload and kernel-end flushes. */
TEST(finepack_kernel_ends)
{
	fp_case(_metadata, 3, 400, 60, 0, 5);
}

/* Few pages: entries and payload limits flush. */
TEST(finepack_hot)
{
	fp_case(_metadata, 2, 1500, 95, 0, 9);
}

/* Fences between the stores flush their source's queues. */
TEST(finepack_fences)
{
	fp_case(_metadata, 3, 400, 60, 5, 13);
}

/* ---- CPElide ---------------------------------------------------------------- */

/*
 * `mcmgpu cpelide replay --host` (cpe_replay.c, cpe_host.c) decides each
 * launch's L2 invalidations and flushes from the kernel's declared
 * arguments: per object a mode and per chiplet the range it touches. The
 * core decides from what each chiplet's warps actually touch. A program
 * whose blocks (one a chiplet) touch exactly the declared ranges, every
 * chiplet of a kernel reading an object or every one writing it (the
 * replay's mode is an argument's, the core's a chiplet's), gives the
 * replay's counts. Order does not matter here: the decisions are made at
 * the boundaries from the access sets.
 */
#define CPE_OBJ		0x10000000ULL
#define CPE_OBJS	4
#define CPE_OBJ_PAGES	8
#define CPE_KERNELS	12

struct cpe_touch {
	bool used, write;		/* the object in the kernel */
	int32_t first[CHIPLETS], last[CHIPLETS];	/* pages; first > last: none */
};

static uint64_t cpe_base(uint32_t o)
{
	return CPE_OBJ + (uint64_t)o * CPE_OBJ_PAGES * PAGE;
}

static void cpe_gen(struct cpe_touch t[CPE_KERNELS][CPE_OBJS], uint32_t wpct,
		    uint64_t seed)
{
	uint32_t k, o, c;

	seed |= 1;
	for (k = 0; k < CPE_KERNELS; k++)
		for (o = 0; o < CPE_OBJS; o++) {
			struct cpe_touch *x = &t[k][o];

			x->used = rnd(&seed) % 100 < 70;
			x->write = rnd(&seed) % 100 < wpct;
			for (c = 0; c < CHIPLETS; c++) {
				/* Writers keep to their own slice: no race. */
				uint32_t lo = x->write ? c * CPE_OBJ_PAGES / CHIPLETS : 0;
				uint32_t n = x->write ? CPE_OBJ_PAGES / CHIPLETS :
					     CPE_OBJ_PAGES;
				uint32_t a = lo + rnd(&seed) % n;
				uint32_t b = a + rnd(&seed) % (lo + n - a);

				x->first[c] = a;
				x->last[c] = b;
				if (!x->used || rnd(&seed) % 100 < 25)
					x->last[c] = -1;
			}
		}
}

static void cpe_prog(struct cpe_touch t[CPE_KERNELS][CPE_OBJS], struct tprog *p)
{
	uint32_t k, o, c, n, i;
	int32_t pg;

	for (o = 0; o < CPE_OBJS; o++) {
		char name[8];

		snprintf(name, sizeof(name), "o%u", o);
		tp_object(p, cpe_base(o), CPE_OBJ_PAGES * PAGE, name);
	}
	for (k = 0; k < CPE_KERNELS; k++) {
		tp_kernel(p, k + 1, "k", CHIPLETS, 32, 0);
		for (c = 0; c < CHIPLETS; c++) {
			tp_block(p, c);
			for (n = 0, o = 0; o < CPE_OBJS; o++)
				if (t[k][o].last[c] >= t[k][o].first[c])
					n += (t[k][o].last[c] - t[k][o].first[c] + 1) *
					     PAGE / 128;
			tp_warp(p, 0, n ? n : 1);
			if (!n)
				tp_alu(p, PROG_OP_INT, 1, 0);
			for (o = 0; o < CPE_OBJS; o++)
				for (pg = t[k][o].first[c]; pg <= t[k][o].last[c]; pg++)
					for (i = 0; i < PAGE / 128; i++)
						tp_mem(p, PROG_SPACE_GLOBAL,
						       t[k][o].write ? PROG_KIND_STORE :
						       PROG_KIND_LOAD, 4, 0xffffffff,
						       cpe_base(o) + pg * PAGE + i * 128,
						       4, t[k][o].write ? 1 : 2);
			tp_add(p, PROG_REC_BLOCK_END);
		}
		tp_add(p, PROG_REC_KERNEL_END);
	}
	tp_add(p, PROG_REC_END);
}

/* The launch sequence: a kernel record a kernel, its used objects. */
static int cpe_replay_run(struct cpe_touch t[CPE_KERNELS][CPE_OBJS],
			  uint32_t policy, struct mcmgpu_cpe_stats *st)
{
	struct cpe_seq seq = { 0 };
	struct cpe_backend b = { .ops = &cpe_host_ops, .fd = -1 };
	struct replay_error e;
	uint32_t k, o, c;
	int ret;

	seq.n = CPE_KERNELS + 2;
	seq.rec = calloc(seq.n, sizeof(*seq.rec));
	seq.line = calloc(seq.n, sizeof(*seq.line));
	seq.rec[0] = (struct mcmgpu_cpe_record){
		.type = MCMGPU_CPE_REC_RESET, .policy = policy,
		.chiplets = CHIPLETS, .flags = MCMGPU_CPE_FLAG_CACHE_REMOTE,
		.mem_bytes = CPE_OBJS * CPE_OBJ_PAGES * PAGE,
	};
	for (k = 0; k < CPE_KERNELS; k++) {
		struct mcmgpu_cpe_record *r = &seq.rec[k + 1];

		r->type = MCMGPU_CPE_REC_KERNEL;
		r->chiplet_mask = (1u << CHIPLETS) - 1;
		r->passes = 1;
		r->kernel_id = k + 1;
		for (o = 0; o < CPE_OBJS; o++) {
			struct mcmgpu_cpe_arg *a = &r->args[r->nargs];

			if (!t[k][o].used)
				continue;
			r->nargs++;
			a->base = cpe_base(o) - CPE_OBJ;
			a->size = CPE_OBJ_PAGES * PAGE;
			a->mode = t[k][o].write ? MCMGPU_CPE_MODE_RW :
				  MCMGPU_CPE_MODE_R;
			a->kind = MCMGPU_CPE_ARG_EXPLICIT;
			for (c = 0; c < MCMGPU_MAX_CHIPLETS; c++)
				a->range[c] = (struct mcmgpu_cpe_range){ 1, 0 };
			for (c = 0; c < CHIPLETS; c++) {
				if (t[k][o].last[c] < t[k][o].first[c])
					continue;
				a->range[c].start = a->base + t[k][o].first[c] * PAGE;
				a->range[c].end = a->base +
					(t[k][o].last[c] + 1) * PAGE - 1;
			}
		}
		if (!r->nargs) {	/* a kernel takes an argument: a page read */
			r->nargs = 1;
			r->args[0] = (struct mcmgpu_cpe_arg){
				.base = 0, .size = PAGE, .mode = MCMGPU_CPE_MODE_R,
				.kind = MCMGPU_CPE_ARG_EXPLICIT,
			};
			for (c = 0; c < MCMGPU_MAX_CHIPLETS; c++)
				r->args[0].range[c] = (struct mcmgpu_cpe_range){ 1, 0 };
		}
	}
	seq.rec[seq.n - 1].type = MCMGPU_CPE_REC_END;
	ret = cpe_replay(&b, &seq, st, &e);
	if (ret)
		fprintf(stderr, "replay: line %u: %s\n", e.line, e.rec.what);
	free(seq.rec);
	free(seq.line);
	return ret;
}

static int cpe_core_run(struct tprog *p, uint32_t policy,
			struct gpu_core_stats *st)
{
	struct gpu_config c = gpu_preset_find("cpelide")->cfg;
	char err[GPU_CORE_ERR_MAX];
	int ret;

	c.chiplets = CHIPLETS;
	c.sms = 1;
	c.translate = 0;
	c.tb_sched = GPU_TB_RR;
	c.l2_size = 1u << 20;
	c.cpelide = policy;
	ret = tp_run(&c, p, ~0ULL, 0, st, err);
	if (ret)
		fprintf(stderr, "core: %s\n", err);
	return ret;
}

static void cpe_case(struct __test_metadata *_metadata, uint32_t wpct,
		     uint64_t seed)
{
	static const struct { uint32_t core, rep; } pol[] = {
		{ GPU_CPE_BASELINE, MCMGPU_CPE_POLICY_BASELINE },
		{ GPU_CPE_CPELIDE, MCMGPU_CPE_POLICY_CPELIDE },
	};
	struct cpe_touch t[CPE_KERNELS][CPE_OBJS];
	struct mcmgpu_cpe_stats r;
	struct gpu_core_stats st;
	struct tprog p = { 0 };
	uint32_t i;

	cpe_gen(t, wpct, seed);
	cpe_prog(t, &p);
	for (i = 0; i < sizeof(pol) / sizeof(pol[0]); i++) {
		ASSERT_EQ(0, cpe_replay_run(t, pol[i].rep, &r));
		ASSERT_EQ(0, cpe_core_run(&p, pol[i].core, &st));
		TH_LOG("policy %u: replay %llu inv %llu flush, core %llu inv "
		       "%llu flush", pol[i].core,
		       (unsigned long long)r.l2_invalidates,
		       (unsigned long long)r.l2_flushes,
		       (unsigned long long)st.cpelide.l2_invalidates,
		       (unsigned long long)st.cpelide.l2_flushes);
		EXPECT_EQ(r.kernels, st.cpelide.kernels);
		EXPECT_EQ(r.l2_invalidates, st.cpelide.l2_invalidates);
		EXPECT_EQ(r.l2_flushes, st.cpelide.l2_flushes);
		EXPECT_EQ(r.baseline_invalidates, st.cpelide.baseline_invalidates);
		EXPECT_EQ(r.baseline_flushes, st.cpelide.baseline_flushes);
		EXPECT_EQ(0, st.cpelide.oracle_violations);
	}
	tp_free(&p);
}

TEST(cpelide_reads_mostly)
{
	cpe_case(_metadata, 20, 3);
}

TEST(cpelide_writes_mostly)
{
	cpe_case(_metadata, 70, 17);
}

TEST(cpelide_random)
{
	uint64_t seed;

	for (seed = 100; seed < 106; seed++)
		cpe_case(_metadata, 10 + seed % 7 * 12, seed);
}

TEST_HARNESS_MAIN
