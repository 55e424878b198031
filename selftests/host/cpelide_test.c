// SPDX-License-Identifier: GPL-2.0
/*
 * Host tests of the CPElide core (qemu-device/model/cpelide.c): every cell of
 * the state table (notes §2.4), the directed sequences of notes §4.3.2 with
 * exact operation counts, mutation tests that prove the oracle catches a
 * dropped acquire, a dropped release and a skipped Stale marking, and
 * randomized differential fuzzing of baseline against cpelide that also
 * checks the table against the caches after every record.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"
#include "../lib/mcmgpu_test.h"
#include "cpelide.h"

#define KIB 1024ULL

struct sim {
	struct cpe_model m;
	void *arena;
};

static struct sim *sim_new_l2(u32 chiplets, u32 policy, u32 mutate,
			      u32 l2_sets)
{
	struct sim *s = calloc(1, sizeof(*s));
	struct cpe_config cfg;

	cpe_config_defaults(&cfg, chiplets, policy, 1 << 20);
	cfg.l2_sets = l2_sets;
	cfg.l2_ways = 16;
	cfg.l3_sets = 512;
	cfg.mutate = mutate;
	s->arena = calloc(1, cpe_arena_bytes(&cfg));
	cpe_model_init(&s->m, &cfg, s->arena);
	return s;
}

/* Small caches so tests run fast; behaviour does not depend on size here. */
static struct sim *sim_new(u32 chiplets, u32 policy, u32 mutate)
{
	return sim_new_l2(chiplets, policy, mutate, 256);
}

static void sim_free(struct sim *s)
{
	free(s->arena);
	free(s);
}

/* Objects: A at 0, B at 64 KiB, C at 128 KiB ... each 64 KiB. */
static u64 obj(int i)
{
	return i * 64 * KIB;
}

static struct mcmgpu_cpe_record kern(u32 mask)
{
	struct mcmgpu_cpe_record r = { .type = MCMGPU_CPE_REC_KERNEL, .chiplet_mask = mask,
				.passes = 1 };
	return r;
}

/* Argument: object i, mode, chiplet c accesses [off, off + len). */
static void arg_on(struct mcmgpu_cpe_record *r, int i, u32 mode, u32 c, u64 off,
		   u64 len)
{
	struct mcmgpu_cpe_arg *a = &r->args[r->nargs++];
	u32 d;

	a->base = obj(i);
	a->size = 64 * KIB;
	a->mode = mode;
	a->kind = MCMGPU_CPE_ARG_EXPLICIT;
	for (d = 0; d < MCMGPU_MAX_CHIPLETS; d++) {
		a->range[d].start = 1;
		a->range[d].end = 0;
	}
	a->range[c].start = obj(i) + off;
	a->range[c].end = obj(i) + off + len - 1;
}

static void arg_even(struct mcmgpu_cpe_record *r, int i, u32 mode, u32 kind)
{
	struct mcmgpu_cpe_arg *a = &r->args[r->nargs++];

	a->base = obj(i);
	a->size = 64 * KIB;
	a->mode = mode;
	a->kind = kind;
}

static int run(struct sim *s, struct mcmgpu_cpe_record r)
{
	struct cpe_error err;

	if (cpe_record_check(&s->m, &r, &err))
		return -1;
	cpe_model_record(&s->m, &r);
	return 0;
}

/* One chiplet touches [off, off+len) of object i. */
static int touch(struct sim *s, u32 c, int i, u32 mode, u64 off, u64 len)
{
	struct mcmgpu_cpe_record r = kern(1U << c);

	arg_on(&r, i, mode, c, off, len);
	return run(s, r);
}

static int state_at(struct sim *s, u64 addr, u32 c)
{
	u32 k;

	for (k = 0; k < MCMGPU_CPE_TABLE_ROWS; k++)
		if (s->m.row[k].used && s->m.row[k].base <= addr &&
		    addr < s->m.row[k].end)
			return s->m.row[k].state[c];
	return CPE_NP;	/* no row: NotPresent everywhere */
}

static int state(struct sim *s, int i, u32 c)
{
	return state_at(s, obj(i), c);
}

#define OPS(s) ((s)->m.stats.l2_invalidates + (s)->m.stats.l2_flushes)
#define R MCMGPU_CPE_MODE_R
#define RW MCMGPU_CPE_MODE_RW

FIXTURE(cp) {
	struct sim *s;
};

FIXTURE_SETUP(cp)
{
	self->s = sim_new(3, MCMGPU_CPE_POLICY_CPELIDE, 0);
}

FIXTURE_TEARDOWN(cp)
{
	sim_free(self->s);
}

TEST_F(cp, np_read_becomes_valid_np_write_becomes_dirty)
{
	ASSERT_EQ(0, touch(self->s, 0, 0, R, 0, 4096));
	ASSERT_EQ(0, touch(self->s, 1, 1, RW, 0, 4096));
	EXPECT_EQ(CPE_V, state(self->s, 0, 0));
	EXPECT_EQ(CPE_D, state(self->s, 1, 1));
	EXPECT_EQ(CPE_NP, state(self->s, 0, 1));
	EXPECT_EQ(0, OPS(self->s));
}

TEST_F(cp, valid_stays_valid_on_reads_and_becomes_dirty_on_local_write)
{
	ASSERT_EQ(0, touch(self->s, 0, 0, R, 0, 4096));
	ASSERT_EQ(0, touch(self->s, 0, 0, R, 0, 4096));
	ASSERT_EQ(0, touch(self->s, 1, 0, R, 0, 4096));
	EXPECT_EQ(CPE_V, state(self->s, 0, 0));
	EXPECT_EQ(CPE_V, state(self->s, 0, 1));
	ASSERT_EQ(0, touch(self->s, 0, 0, RW, 0, 4096));
	EXPECT_EQ(CPE_D, state(self->s, 0, 0));
	/* ... and chiplet 1's overlapping copy became Stale, lazily. */
	EXPECT_EQ(CPE_S, state(self->s, 0, 1));
	EXPECT_EQ(0, OPS(self->s));
}

TEST_F(cp, dirty_reused_by_the_same_chiplet_elides_the_release)
{
	int k;

	for (k = 0; k < 5; k++)
		ASSERT_EQ(0, touch(self->s, 2, 0, RW, 4096, 8192));
	EXPECT_EQ(CPE_D, state(self->s, 0, 2));
	EXPECT_EQ(0, OPS(self->s));
}

TEST_F(cp, dirty_then_remote_write_flushes_and_marks_stale)
{
	ASSERT_EQ(0, touch(self->s, 0, 0, RW, 0, 4096));
	ASSERT_EQ(0, touch(self->s, 1, 0, RW, 0, 4096));
	EXPECT_EQ(1, self->s->m.stats.l2_flushes);
	EXPECT_EQ(0, self->s->m.stats.l2_invalidates);
	EXPECT_EQ(CPE_S, state(self->s, 0, 0));
	EXPECT_EQ(CPE_D, state(self->s, 0, 1));
}

TEST_F(cp, dirty_then_remote_read_flushes_and_keeps_valid)
{
	ASSERT_EQ(0, touch(self->s, 0, 0, RW, 0, 4096));
	ASSERT_EQ(0, touch(self->s, 1, 0, R, 0, 4096));
	EXPECT_EQ(1, self->s->m.stats.l2_flushes);
	EXPECT_EQ(CPE_V, state(self->s, 0, 0));
	EXPECT_EQ(CPE_V, state(self->s, 0, 1));
}

TEST_F(cp, dirty_with_disjoint_remote_access_needs_nothing)
{
	ASSERT_EQ(0, touch(self->s, 0, 0, RW, 0, 4096));
	ASSERT_EQ(0, touch(self->s, 1, 0, RW, 8192, 4096));
	EXPECT_EQ(0, OPS(self->s));
	EXPECT_EQ(CPE_D, state(self->s, 0, 0));
	EXPECT_EQ(CPE_D, state(self->s, 0, 1));
}

TEST_F(cp, flush_of_another_row_moves_dirty_to_valid)
{
	ASSERT_EQ(0, touch(self->s, 0, 0, RW, 0, 4096));
	ASSERT_EQ(0, touch(self->s, 0, 1, RW, 0, 4096));
	ASSERT_EQ(0, touch(self->s, 1, 0, R, 0, 4096));	/* flushes chiplet 0 */
	EXPECT_EQ(CPE_V, state(self->s, 1, 0));		/* whole-cache effect */
}

TEST_F(cp, stale_then_local_access_invalidates_first)
{
	ASSERT_EQ(0, touch(self->s, 1, 0, R, 0, 4096));
	ASSERT_EQ(0, touch(self->s, 0, 0, RW, 0, 4096));
	EXPECT_EQ(CPE_S, state(self->s, 0, 1));
	/* Another chiplet's access leaves chiplet 1 Stale. */
	ASSERT_EQ(0, touch(self->s, 2, 0, R, 0, 4096));
	EXPECT_EQ(CPE_S, state(self->s, 0, 1));
	EXPECT_EQ(0, self->s->m.stats.l2_invalidates);
	ASSERT_EQ(0, touch(self->s, 1, 0, R, 0, 4096));
	EXPECT_EQ(1, self->s->m.stats.l2_invalidates);
	EXPECT_EQ(CPE_V, state(self->s, 0, 1));
	EXPECT_EQ(0, self->s->m.stats.oracle_read_violations);
}

TEST_F(cp, invalidate_drops_valid_rows_keeps_dirty_and_frees_empty_rows)
{
	ASSERT_EQ(0, touch(self->s, 1, 0, R, 0, 4096));	/* A: 1 V */
	ASSERT_EQ(0, touch(self->s, 1, 1, R, 0, 4096));	/* B: 1 V */
	ASSERT_EQ(0, touch(self->s, 1, 2, RW, 0, 4096));	/* C: 1 D */
	ASSERT_EQ(0, touch(self->s, 0, 0, RW, 0, 4096));	/* A: 1 S */
	ASSERT_EQ(3, cpe_table_rows_used(&self->s->m));
	ASSERT_EQ(0, touch(self->s, 1, 0, R, 0, 4096));	/* INV chiplet 1 */
	EXPECT_EQ(CPE_NP, state(self->s, 1, 1));
	EXPECT_EQ(CPE_D, state(self->s, 2, 1));
	/* B was NotPresent everywhere and its row is gone. */
	EXPECT_EQ(2, cpe_table_rows_used(&self->s->m));
	EXPECT_EQ(1, self->s->m.stats.l2_invalidates);
}

TEST(stream_like_elides_everything_until_the_final_flush)
{
	struct sim *c = sim_new(4, MCMGPU_CPE_POLICY_CPELIDE, 0);
	struct sim *b = sim_new(4, MCMGPU_CPE_POLICY_BASELINE, 0);
	int k;

	for (k = 0; k < 10; k++) {
		struct mcmgpu_cpe_record r = kern(0xf);

		arg_even(&r, 0, R, MCMGPU_CPE_ARG_EVEN);
		arg_even(&r, 1, R, MCMGPU_CPE_ARG_EVEN);
		arg_even(&r, 2, RW, MCMGPU_CPE_ARG_EVEN);
		ASSERT_EQ(0, run(c, r));
		ASSERT_EQ(0, run(b, r));
	}
	EXPECT_EQ(0, OPS(c));
	cpe_model_finish(&c->m);
	cpe_model_finish(&b->m);
	EXPECT_EQ(0, c->m.stats.l2_invalidates);
	EXPECT_EQ(4, c->m.stats.l2_flushes);		/* the final release */
	EXPECT_EQ(40, b->m.stats.l2_invalidates);
	EXPECT_EQ(40, b->m.stats.l2_flushes);
	EXPECT_EQ(40, c->m.stats.baseline_invalidates);
	EXPECT_EQ(40, c->m.stats.baseline_flushes);
	EXPECT_EQ(0, c->m.stats.oracle_violations);
	EXPECT_EQ(0, b->m.stats.oracle_violations);
	/* Reuse: cpelide hits in L2 where baseline had to refetch. */
	EXPECT_GT(c->m.stats.l2_hits, b->m.stats.l2_hits);
	/* Beside the CP's 6 us on the first kernel, which 10 tiny kernels do not hide. */
	EXPECT_LT(c->m.stats.modeled_cycles - c->m.stats.cp_cycles,
		  b->m.stats.modeled_cycles - b->m.stats.cp_cycles);
	sim_free(c);
	sim_free(b);
}

TEST(producer_consumer_one_flush_no_invalidate)
{
	struct sim *s = sim_new(4, MCMGPU_CPE_POLICY_CPELIDE, 0);

	ASSERT_EQ(0, touch(s, 0, 0, RW, 0, 16384));
	ASSERT_EQ(0, touch(s, 1, 0, R, 0, 16384));
	EXPECT_EQ(1, s->m.stats.l2_flushes);
	EXPECT_EQ(0, s->m.stats.l2_invalidates);
	EXPECT_EQ(CPE_V, state(s, 0, 0));
	EXPECT_EQ(CPE_V, state(s, 0, 1));
	cpe_model_finish(&s->m);
	EXPECT_EQ(0, s->m.stats.oracle_violations);
	sim_free(s);
}

TEST(read_sharing_needs_no_operations)
{
	struct sim *s = sim_new(4, MCMGPU_CPE_POLICY_CPELIDE, 0);
	int k, c;

	for (k = 0; k < 6; k++) {
		struct mcmgpu_cpe_record r = kern(0xf);

		for (c = 0; c < MCMGPU_MAX_CHIPLETS; c++)
			r.args[0].range[c] = c < 4 ?
				(struct mcmgpu_cpe_range){ obj(1), obj(1) + 65535 } :
				(struct mcmgpu_cpe_range){ 1, 0 };
		r.nargs = 1;
		r.args[0].base = obj(1);
		r.args[0].size = 64 * KIB;
		r.args[0].mode = R;
		r.args[0].kind = MCMGPU_CPE_ARG_EXPLICIT;
		ASSERT_EQ(0, run(s, r));
	}
	cpe_model_finish(&s->m);
	EXPECT_EQ(0, OPS(s));
	for (c = 0; c < 4; c++)
		EXPECT_EQ(CPE_V, state(s, 1, c));
	EXPECT_EQ(0, s->m.stats.oracle_violations);
	sim_free(s);
}

static struct sim *write_after_remote_read(u32 mutate)
{
	struct sim *s = sim_new(4, MCMGPU_CPE_POLICY_CPELIDE, mutate);

	touch(s, 1, 0, R, 0, 4096);	/* chiplet 1 reads X: V */
	touch(s, 0, 0, RW, 0, 4096);	/* chiplet 0 writes X: 1 -> S */
	touch(s, 1, 0, R, 0, 4096);	/* INV 1, FLUSH 0 */
	cpe_model_finish(&s->m);
	return s;
}

TEST(write_after_remote_read_one_invalidate_one_flush)
{
	struct sim *s = write_after_remote_read(0);

	/* The final release finds nothing dirty: 0 was flushed. */
	EXPECT_EQ(1, s->m.stats.l2_invalidates);
	EXPECT_EQ(1, s->m.stats.l2_flushes);
	EXPECT_EQ(0, s->m.stats.oracle_violations);
	sim_free(s);
}

TEST(unknown_range_falls_back_to_baseline_sync)
{
	struct sim *s = sim_new(4, MCMGPU_CPE_POLICY_CPELIDE, 0);
	struct mcmgpu_cpe_record r = kern(0xf);

	ASSERT_EQ(0, touch(s, 0, 1, R, 0, 4096));
	ASSERT_EQ(0, touch(s, 2, 2, R, 0, 4096));
	ASSERT_EQ(2, cpe_table_rows_used(&s->m));
	arg_even(&r, 0, RW, MCMGPU_CPE_ARG_UNKNOWN);
	ASSERT_EQ(0, run(s, r));
	/* n invalidates at launch, n flushes at completion, as baseline. */
	EXPECT_EQ(4, s->m.stats.l2_invalidates);
	EXPECT_EQ(4, s->m.stats.l2_flushes);
	EXPECT_EQ(1, s->m.stats.conservative_launches);
	/* The earlier rows are gone; only the unknown kernel's object is left,
	 * released (Valid) on every chiplet. */
	EXPECT_EQ(1, cpe_table_rows_used(&s->m));
	EXPECT_EQ(CPE_NP, state(s, 1, 0));
	EXPECT_EQ(CPE_V, state(s, 0, 3));
	/* The final release has nothing left to do. */
	cpe_model_finish(&s->m);
	EXPECT_EQ(4, s->m.stats.l2_flushes);
	cpe_model_finish(&s->m);
	EXPECT_EQ(0, s->m.stats.oracle_violations);
	sim_free(s);
}

TEST(mutations_are_caught_by_the_oracle)
{
	struct sim *s;

	s = write_after_remote_read(CPE_MUTATE_DROP_ACQUIRE);
	EXPECT_LT(0, s->m.stats.oracle_violations);
	sim_free(s);
	s = write_after_remote_read(CPE_MUTATE_SKIP_STALE);
	EXPECT_LT(0, s->m.stats.oracle_violations);
	sim_free(s);

	/* Dropped release: the consumer reads memory the producer never wrote back. */
	s = sim_new(4, MCMGPU_CPE_POLICY_CPELIDE, CPE_MUTATE_DROP_RELEASE);
	touch(s, 0, 0, RW, 0, 16384);
	touch(s, 1, 0, R, 0, 16384);
	EXPECT_LT(0, s->m.stats.oracle_read_violations);
	sim_free(s);
}

/* Lines of [lo, hi) chiplet c's L2 holds. */
static u64 l2_lines_of(struct sim *s, u32 c, u64 lo, u64 hi)
{
	u64 n = 0, i, per = (u64)s->m.cfg.l2_sets * s->m.cfg.l2_ways;

	for (i = 0; i < per; i++) {
		const struct cpe_line *l = &s->m.l2[c * per + i];

		n += l->tag && (l->tag - 1) * CPE_LINE_BYTES >= lo &&
		     (l->tag - 1) * CPE_LINE_BYTES < hi;
	}
	return n;
}

/*
 * Notes A2, the paper's policy (the default): chiplet 1 reads what chiplet
 * 0 first touched without filling its own L2, and its stores go straight
 * through to memory. With MCMGPU_CPE_FLAG_CACHE_REMOTE it caches them.
 */
TEST(remote_data_is_served_at_the_home_unless_cached)
{
	u32 flags;

	for (flags = 0; flags <= MCMGPU_CPE_FLAG_CACHE_REMOTE; flags++) {
		struct sim *s = sim_new(2, MCMGPU_CPE_POLICY_CPELIDE, 0);
		u64 hits, wb;

		s->m.cfg.flags = flags;
		ASSERT_EQ(0, touch(s, 0, 0, RW, 0, 16384));
		hits = s->m.stats.l2_hits + s->m.stats.l2_misses;
		ASSERT_EQ(0, touch(s, 1, 0, R, 0, 16384));
		if (!flags) {
			EXPECT_EQ(0, l2_lines_of(s, 1, obj(0), obj(1)));
			EXPECT_EQ(256, s->m.stats.remote_uncached);
			EXPECT_EQ(hits, s->m.stats.l2_hits + s->m.stats.l2_misses);
		} else {
			EXPECT_EQ(256, l2_lines_of(s, 1, obj(0), obj(1)));
			EXPECT_EQ(0, s->m.stats.remote_uncached);
		}
		wb = s->m.stats.bytes_written_back;
		ASSERT_EQ(0, touch(s, 1, 0, RW, 0, 4096));
		EXPECT_EQ(flags ? 0 : 64, s->m.stats.writes_through);
		/* Written through: nothing of chiplet 1 is left to write back. */
		if (!flags)
			EXPECT_EQ(wb, s->m.stats.bytes_written_back);
		ASSERT_EQ(0, touch(s, 0, 0, R, 0, 16384));
		cpe_model_finish(&s->m);
		EXPECT_EQ(0, s->m.stats.oracle_violations) TH_LOG("flags %u", flags);
		sim_free(s);
	}
}

/*
 * HMG (notes §1.3, A12): no bulk L2 sync; a remote reader caches the line
 * and is a sharer; a write invalidates the other sharers; the oracle stays
 * clean, and catches a directory that forgets its sharers.
 */
static struct sim *hmg_reuse_then_rewrite(u32 mutate)
{
	struct sim *s = sim_new(2, MCMGPU_CPE_POLICY_HMG, mutate);

	touch(s, 0, 0, RW, 0, 16384);
	touch(s, 1, 0, R, 0, 16384);
	touch(s, 1, 0, R, 0, 16384);
	touch(s, 0, 0, RW, 0, 16384);
	touch(s, 1, 0, R, 0, 16384);
	cpe_model_finish(&s->m);
	return s;
}

TEST(hmg_invalidates_sharers_without_bulk_sync)
{
	struct sim *s = hmg_reuse_then_rewrite(0);

	EXPECT_EQ(0, OPS(s));
	/* The second read hits the copies the first one cached. */
	EXPECT_LE(256, s->m.stats.l2_hits);
	EXPECT_EQ(256, s->m.stats.dir_invalidations);
	EXPECT_LT(0, s->m.stats.writes_through);
	EXPECT_EQ(0, s->m.stats.bytes_written_back);
	EXPECT_EQ(0, s->m.stats.oracle_violations);
	sim_free(s);
	s = hmg_reuse_then_rewrite(CPE_MUTATE_HMG_KEEP_SHARERS);
	EXPECT_LT(0, s->m.stats.oracle_read_violations);
	sim_free(s);
}

/* A directory eviction takes all 4 lines of its region from the sharers. */
TEST(hmg_directory_eviction_invalidates_the_region)
{
	struct sim *s = sim_new(2, MCMGPU_CPE_POLICY_HMG, 0);

	s->m.cfg.dir_sets = 1;
	s->m.cfg.dir_ways = 2;
	touch(s, 0, 0, RW, 0, 768);
	touch(s, 1, 0, R, 0, 512);	/* regions 0 and 1 */
	EXPECT_EQ(8, l2_lines_of(s, 1, obj(0), obj(1)));
	EXPECT_EQ(0, s->m.stats.dir_evictions);
	touch(s, 1, 0, R, 512, 256);	/* region 2 evicts region 0 */
	EXPECT_EQ(1, s->m.stats.dir_evictions);
	EXPECT_EQ(4, s->m.stats.dir_invalidations);
	EXPECT_EQ(0, l2_lines_of(s, 1, obj(0), obj(0) + 256));
	EXPECT_EQ(8, l2_lines_of(s, 1, obj(0) + 256, obj(0) + 768));
	touch(s, 0, 0, RW, 0, 768);
	touch(s, 1, 0, R, 0, 768);
	cpe_model_finish(&s->m);
	EXPECT_EQ(0, s->m.stats.oracle_violations);
	sim_free(s);
}

/* Chiplet c's range [lo, hi] (inclusive) of argument a. */
static void arg_range(struct mcmgpu_cpe_arg *a, u32 c, u64 lo, u64 hi)
{
	a->range[c].start = lo;
	a->range[c].end = hi;
}

/* The view [base, base + size) with no chiplet ranges yet. */
static struct mcmgpu_cpe_arg *arg_explicit(struct mcmgpu_cpe_record *r, u64 base,
					   u64 size, u32 mode)
{
	struct mcmgpu_cpe_arg *a = &r->args[r->nargs++];
	u32 c;

	a->base = base;
	a->size = size;
	a->mode = mode;
	a->kind = MCMGPU_CPE_ARG_EXPLICIT;
	for (c = 0; c < MCMGPU_MAX_CHIPLETS; c++)
		arg_range(a, c, 1, 0);
	return a;
}

/*
 * Issue 8: two chiplets split one 16 KiB array at 4-byte boundaries that
 * share a line (3276 and 2756 are not multiples of 64). A write or read
 * miss used to fill the whole line, so each chiplet kept a stale copy of
 * the other's words. K2: chiplet 1's range overlaps chiplet 0's Dirty hull
 * (bytes 2756-3275), so chiplet 0 is flushed and, being written by 1,
 * goes Stale and is invalidated before its own access; chiplet 1 needs
 * nothing: its line 51 holds only its own words, the rest miss.
 */
TEST(sub_line_partition_reads_no_stale_words)
{
	static const u32 policy[] = { MCMGPU_CPE_POLICY_BASELINE, MCMGPU_CPE_POLICY_CPELIDE };
	unsigned int p;

	for (p = 0; p < ARRAY_SIZE(policy); p++) {
		struct sim *s = sim_new(2, policy[p], 0);
		struct mcmgpu_cpe_record k1 = kern(3), k2 = kern(3);
		struct mcmgpu_cpe_arg *a;

		a = arg_explicit(&k1, 0, 16 * KIB, RW);
		arg_range(a, 0, 0, 3275);
		arg_range(a, 1, 3276, 16383);
		a = arg_explicit(&k2, 0, 16 * KIB, RW);
		arg_range(a, 0, 0, 2755);
		arg_range(a, 1, 2756, 16383);
		ASSERT_EQ(0, run(s, k1));
		ASSERT_EQ(0, run(s, k2));
		cpe_model_finish(&s->m);
		EXPECT_EQ(0, s->m.stats.oracle_violations);
		if (policy[p] == MCMGPU_CPE_POLICY_BASELINE) {
			EXPECT_EQ(4, s->m.stats.l2_invalidates);
			EXPECT_EQ(4, s->m.stats.l2_flushes);
		} else {
			/* K2: INV 0 and FLUSH 0; end: FLUSH 0 and 1. */
			EXPECT_EQ(1, s->m.stats.l2_invalidates);
			EXPECT_EQ(3, s->m.stats.l2_flushes);
		}
		sim_free(s);
	}
}

/*
 * Two views that share a line without sharing bytes get separate rows
 * (rows are matched by bytes): chiplet 0 writes X = [0, 32), chiplet 1
 * writes Y = [32, 64), then chiplet 1 reads X. Only chiplet 0 is flushed
 * (its Dirty X overlaps the read); chiplet 1 is never invalidated, and
 * its line holds only Y's words, so X's words miss to L3.
 */
TEST(views_sharing_a_line_read_no_stale_words)
{
	static const u32 policy[] = { MCMGPU_CPE_POLICY_BASELINE, MCMGPU_CPE_POLICY_CPELIDE };
	unsigned int p;

	for (p = 0; p < ARRAY_SIZE(policy); p++) {
		struct sim *s = sim_new(2, policy[p], 0);
		struct mcmgpu_cpe_record k1 = kern(3), k2 = kern(2);

		arg_range(arg_explicit(&k1, 0, 32, RW), 0, 0, 31);
		arg_range(arg_explicit(&k1, 32, 32, RW), 1, 32, 63);
		arg_range(arg_explicit(&k2, 0, 32, R), 1, 0, 31);
		ASSERT_EQ(0, run(s, k1));
		if (policy[p] == MCMGPU_CPE_POLICY_CPELIDE)
			EXPECT_EQ(2, cpe_table_rows_used(&s->m));
		ASSERT_EQ(0, run(s, k2));
		cpe_model_finish(&s->m);
		EXPECT_EQ(0, s->m.stats.oracle_violations);
		if (policy[p] == MCMGPU_CPE_POLICY_BASELINE) {
			EXPECT_EQ(4, s->m.stats.l2_invalidates);
			EXPECT_EQ(4, s->m.stats.l2_flushes);
		} else {
			/* K2: FLUSH 0; end: FLUSH 1. */
			EXPECT_EQ(0, s->m.stats.l2_invalidates);
			EXPECT_EQ(2, s->m.stats.l2_flushes);
			EXPECT_EQ(0, s->m.stats.l2_hits);
		}
		sim_free(s);
	}
}

/*
 * Overlap is compared by lines (A4): the same sub-line split twice still
 * releases and acquires both chiplets around the shared line 51.
 */
TEST(same_sub_line_split_twice_syncs_the_shared_line)
{
	struct sim *s = sim_new(2, MCMGPU_CPE_POLICY_CPELIDE, 0);
	struct mcmgpu_cpe_record k = kern(3);
	struct mcmgpu_cpe_arg *a = arg_explicit(&k, 0, 16 * KIB, RW);

	arg_range(a, 0, 0, 3275);
	arg_range(a, 1, 3276, 16383);
	ASSERT_EQ(0, run(s, k));
	ASSERT_EQ(0, run(s, k));
	EXPECT_EQ(2, s->m.stats.l2_flushes);
	EXPECT_EQ(2, s->m.stats.l2_invalidates);
	cpe_model_finish(&s->m);
	EXPECT_EQ(0, s->m.stats.oracle_violations);
	sim_free(s);
}

/*
 * Acquire before release (§III-B): chiplet 0 must invalidate (its Valid B
 * goes Stale) and flush (chiplet 1 reads its Dirty A). Invalidating first
 * keeps A's dirty lines, and the flush leaves them clean, so chiplet 0's
 * reads of A hit: 64 hits. Flushing first would have dropped them.
 */
TEST(acquire_before_release_keeps_the_lines_just_written)
{
	struct sim *s = sim_new(2, MCMGPU_CPE_POLICY_CPELIDE, 0);
	struct mcmgpu_cpe_record k1 = kern(1), k2 = kern(3);
	struct mcmgpu_cpe_arg *a;

	arg_range(arg_explicit(&k1, obj(1), 64 * KIB, R), 0, obj(1), obj(1) + 8191);
	arg_range(arg_explicit(&k1, obj(0), 64 * KIB, RW), 0, obj(0), obj(0) + 4095);
	a = arg_explicit(&k2, obj(1), 64 * KIB, RW);
	arg_range(a, 1, obj(1), obj(1) + 4095);
	a = arg_explicit(&k2, obj(1), 64 * KIB, R);
	arg_range(a, 0, obj(1) + 4096, obj(1) + 8191);
	a = arg_explicit(&k2, obj(0), 64 * KIB, R);
	arg_range(a, 0, obj(0), obj(0) + 4095);
	arg_range(a, 1, obj(0), obj(0) + 4095);
	ASSERT_EQ(0, run(s, k1));
	ASSERT_EQ(0, run(s, k2));
	EXPECT_EQ(1, s->m.stats.l2_invalidates);
	EXPECT_EQ(1, s->m.stats.l2_flushes);
	EXPECT_EQ(64, s->m.stats.l2_hits);
	cpe_model_finish(&s->m);
	EXPECT_EQ(0, s->m.stats.oracle_violations);
	sim_free(s);
}

TEST(coarsening_above_eight_arguments_stays_correct)
{
	struct sim *s = sim_new(2, MCMGPU_CPE_POLICY_CPELIDE, 0);
	int k, i;

	for (k = 0; k < 4; k++) {
		struct mcmgpu_cpe_record r = kern(k % 2 ? 0x3 : 0x1);

		for (i = 0; i < 12; i++)
			arg_even(&r, i, (i + k) % 3 ? R : RW, MCMGPU_CPE_ARG_EVEN);
		ASSERT_EQ(0, run(s, r));
		EXPECT_GE(8, cpe_table_rows_used(&s->m) - 0);
	}
	cpe_model_finish(&s->m);
	EXPECT_LT(0, s->m.stats.coarsened_args);
	EXPECT_EQ(0, s->m.stats.oracle_violations);
	sim_free(s);
}

TEST(table_overflow_evicts_with_syncs)
{
	struct sim *s = sim_new(2, MCMGPU_CPE_POLICY_CPELIDE, 0);
	int i;

	s->m.cfg.table_rows = 9;
	for (i = 0; i < 14; i++)
		ASSERT_EQ(0, touch(s, i % 2, i, RW, 0, 4096));
	for (i = 0; i < 14; i++)
		ASSERT_EQ(0, touch(s, (i + 1) % 2, i, R, 0, 4096));
	cpe_model_finish(&s->m);
	EXPECT_LT(0, s->m.stats.overflow_evictions);
	EXPECT_GE(9, s->m.stats.table_peak_rows);
	EXPECT_EQ(0, s->m.stats.oracle_violations);
	sim_free(s);
}

TEST(host_read_and_write_in_the_middle)
{
	struct sim *s = sim_new(4, MCMGPU_CPE_POLICY_CPELIDE, 0);
	struct mcmgpu_cpe_record h = { .type = MCMGPU_CPE_REC_HOST_READ, .nargs = 1 };

	ASSERT_EQ(0, touch(s, 0, 0, RW, 0, 4096));
	ASSERT_EQ(0, touch(s, 1, 1, RW, 0, 4096));
	h.args[0].base = obj(0);
	h.args[0].size = 64 * KIB;
	h.args[0].range[0] = (struct mcmgpu_cpe_range){ obj(0), obj(0) + 4095 };
	ASSERT_EQ(0, run(s, h));
	EXPECT_EQ(1, s->m.stats.l2_flushes);	/* only chiplet 0 */
	h.type = MCMGPU_CPE_REC_HOST_WRITE;
	ASSERT_EQ(0, run(s, h));
	EXPECT_EQ(CPE_S, state(s, 0, 0));
	ASSERT_EQ(0, touch(s, 0, 0, R, 0, 4096));	/* sees the host's data */
	cpe_model_finish(&s->m);
	EXPECT_EQ(0, s->m.stats.oracle_violations);
	sim_free(s);
}

TEST(bad_records_are_rejected)
{
	struct sim *s = sim_new(4, MCMGPU_CPE_POLICY_CPELIDE, 0);
	struct cpe_error err;
	struct mcmgpu_cpe_record r = kern(0x3);

	arg_on(&r, 0, RW, 0, 0, 4096);
	r.args[0].range[1] = (struct mcmgpu_cpe_range){ obj(0) + 4092, obj(0) + 8191 };
	EXPECT_EQ(-1, cpe_record_check(&s->m, &r, &err));
	EXPECT_EQ(0, strncmp("race", err.what, 4));
	r.args[0].range[1] = (struct mcmgpu_cpe_range){ obj(0) + 4096, obj(0) + 8191 };
	EXPECT_EQ(0, cpe_record_check(&s->m, &r, &err));
	r.chiplet_mask = 0;
	EXPECT_EQ(-1, cpe_record_check(&s->m, &r, &err));
	EXPECT_EQ(0, strncmp("chiplets: empty", err.what, 15));
	r.chiplet_mask = 0x13;
	EXPECT_EQ(-1, cpe_record_check(&s->m, &r, &err));
	EXPECT_EQ(0, strncmp("chiplets: no such", err.what, 17));
	r.chiplet_mask = 0x3;
	r.args[0].range[1] = (struct mcmgpu_cpe_range){ obj(0) + 4096, obj(1) + 8 };
	EXPECT_EQ(-1, cpe_record_check(&s->m, &r, &err));
	EXPECT_EQ(1, err.arg);
	EXPECT_EQ(0, strncmp("range: outside", err.what, 14));
	r.args[0].range[1] = (struct mcmgpu_cpe_range){ obj(0) + 4097, obj(0) + 8191 };
	EXPECT_EQ(-1, cpe_record_check(&s->m, &r, &err));
	r.args[0].range[1] = (struct mcmgpu_cpe_range){ obj(0) + 4096, obj(0) + 8191 };
	r.nargs = 17;
	EXPECT_EQ(-1, cpe_record_check(&s->m, &r, &err));
	r.nargs = 1;
	r.args[0].base = 1 << 20;
	EXPECT_EQ(-1, cpe_record_check(&s->m, &r, &err));
	/* 1024 passes over 16 x 1 MiB is too much work for one launch. */
	r = kern(0xf);
	for (int i = 0; i < MCMGPU_CPE_MAX_ARGS; i++) {
		arg_even(&r, 0, R, MCMGPU_CPE_ARG_EVEN);
		r.args[i].base = 0;
		r.args[i].size = 1 << 20;
	}
	r.passes = 1024;
	EXPECT_EQ(-1, cpe_record_check(&s->m, &r, &err));
	EXPECT_EQ(0, strncmp("passes", err.what, 6));
	/* 16 x 16384 lines: 32 passes are exactly the bound, 33 past it. */
	r.passes = 32;
	EXPECT_EQ(0, cpe_record_check(&s->m, &r, &err));
	EXPECT_EQ(32ULL * 16 * 16384, CPE_MAX_LINE_ACCESSES);
	r.passes = 33;
	EXPECT_EQ(-1, cpe_record_check(&s->m, &r, &err));
	r.passes = 1;
	EXPECT_EQ(0, cpe_record_check(&s->m, &r, &err));
	sim_free(s);
}

/* Argument: the view [base, base + size) of memory, split evenly. */
static void arg_view(struct mcmgpu_cpe_record *r, u64 base, u64 size, u32 mode)
{
	struct mcmgpu_cpe_arg *a = &r->args[r->nargs++];

	a->base = base;
	a->size = size;
	a->mode = mode;
	a->kind = MCMGPU_CPE_ARG_EVEN;
}

/*
 * Issue 16: A's row is merged into B's during B's lookup and its slot goes
 * to C's new row; A's Dirty state must stay on the row that covers A, so
 * K3 on chiplet 1 finds chiplet 0 Dirty and flushes it first.
 */
TEST(merged_row_keeps_its_arguments_dirty_state)
{
	static const u32 policy[] = { MCMGPU_CPE_POLICY_CPELIDE, MCMGPU_CPE_POLICY_BASELINE };
	unsigned int p;

	for (p = 0; p < ARRAY_SIZE(policy); p++) {
		struct sim *s = sim_new(4, policy[p], 0);
		struct mcmgpu_cpe_record k1 = kern(1U << 2), k2 = kern(1U << 0),
				  k3 = kern(1U << 1);
		bool cpelide = policy[p] == MCMGPU_CPE_POLICY_CPELIDE;

		arg_view(&k1, 0, 4 * KIB, R);
		arg_view(&k2, 8 * KIB, 4 * KIB, RW);	/* A */
		arg_view(&k2, 0, 12 * KIB, R);		/* B: A + K1's */
		arg_view(&k2, 20 * KIB, 4 * KIB, R);	/* C: new row */
		arg_view(&k3, 8 * KIB, 4 * KIB, R);
		ASSERT_EQ(0, run(s, k1));
		ASSERT_EQ(0, run(s, k2));
		if (cpelide)
			EXPECT_EQ(0, OPS(s));
		ASSERT_EQ(0, run(s, k3));
		EXPECT_EQ(0, s->m.stats.oracle_read_violations);
		if (cpelide) {
			/* Chiplet 0 flushed before K3 read A, nothing else. */
			EXPECT_EQ(1, s->m.stats.l2_flushes);
			EXPECT_EQ(0, s->m.stats.l2_invalidates);
			EXPECT_EQ(2, cpe_table_rows_used(&s->m));
			EXPECT_EQ(CPE_V, state_at(s, 8 * KIB, 0));
			EXPECT_EQ(CPE_V, state_at(s, 8 * KIB, 1));
			EXPECT_EQ(CPE_V, state_at(s, 0, 2));
			EXPECT_EQ(CPE_V, state_at(s, 20 * KIB, 0));
		}
		cpe_model_finish(&s->m);
		/* cpelide: the final release finds nothing dirty. */
		EXPECT_EQ(cpelide ? 0 : 12, s->m.stats.l2_invalidates);
		EXPECT_EQ(cpelide ? 1 : 12, s->m.stats.l2_flushes);
		EXPECT_EQ(0, s->m.stats.oracle_violations);
		sim_free(s);
	}
}

/* RESET takes known flags only; every other record type no flags at all. */
TEST(flags_are_checked_in_every_record_type)
{
	static const u32 types[] = { MCMGPU_CPE_REC_KERNEL, MCMGPU_CPE_REC_HOST_READ,
				     MCMGPU_CPE_REC_HOST_WRITE, MCMGPU_CPE_REC_END };
	struct mcmgpu_cpe_record reset = { .type = MCMGPU_CPE_REC_RESET, .chiplets = 4,
				    .policy = MCMGPU_CPE_POLICY_CPELIDE,
				    .mem_bytes = 1 << 20 };
	struct sim *s = sim_new(4, MCMGPU_CPE_POLICY_CPELIDE, 0);
	const char *why = NULL;
	struct cpe_error err;
	unsigned int t;

	EXPECT_TRUE(cpe_reset_check(&reset, &why));
	reset.flags = MCMGPU_CPE_FLAG_CACHE_REMOTE;
	EXPECT_TRUE(cpe_reset_check(&reset, &why));
	reset.flags = 2;
	EXPECT_FALSE(cpe_reset_check(&reset, &why));
	EXPECT_STREQ("flags: unknown flag", why);
	reset.flags = 0;
	reset.policy = MCMGPU_CPE_POLICIES;
	EXPECT_FALSE(cpe_reset_check(&reset, &why));
	EXPECT_EQ(0, strncmp("policy", why, 6));
	reset.policy = MCMGPU_CPE_POLICY_HMG;
	EXPECT_TRUE(cpe_reset_check(&reset, &why));
	reset.chiplets = 9;
	EXPECT_FALSE(cpe_reset_check(&reset, &why));
	EXPECT_EQ(0, strncmp("chiplets", why, 8));
	reset.chiplets = 4;
	reset.mem_bytes = 4097;
	EXPECT_FALSE(cpe_reset_check(&reset, &why));
	EXPECT_EQ(0, strncmp("mem_bytes", why, 9));

	for (t = 0; t < ARRAY_SIZE(types); t++) {
		struct mcmgpu_cpe_record r = kern(0x1);

		r.type = types[t];
		arg_on(&r, 0, R, 0, 0, 4096);
		if (types[t] != MCMGPU_CPE_REC_KERNEL)
			r.args[0].range[0] = (struct mcmgpu_cpe_range){ 0, 4095 };
		ASSERT_EQ(0, cpe_record_check(&s->m, &r, &err))
			TH_LOG("type %u", r.type);
		r.flags = MCMGPU_CPE_FLAG_CACHE_REMOTE;
		EXPECT_EQ(-1, cpe_record_check(&s->m, &r, &err));
		EXPECT_STREQ("flags: only a reset record has flags", err.what);
	}
	sim_free(s);
}

/*
 * Differential fuzz. Arguments are views (base, size) of sixteen 64 KiB
 * objects: several on one object, identical, nested, containing two
 * others, abutting and overlapping, RW inside R and R inside RW; up to 16
 * a kernel (coarsened above 8). Some sequences name many small buffers
 * and overflow the 64-row table; some shrink the table.
 *
 * Race-free by construction: in each kernel each object is split among the
 * kernel's chiplets at 4-byte boundaries, so neighbours share a line (issue
 * 8), and a chiplet's ranges stay in its part. Views start and end at any
 * 4-byte boundary too, so views that share a line without sharing bytes
 * get separate rows. Unknown ranges are rare (they empty the table).
 */
#define FUZZ_OBJS	16
#define FUZZ_SHARDS	4	/* tests, each under the harness's 30 s */
#define FUZZ_SEQS	1000	/* per shard */
#define FUZZ_KERNELS	10
#define FUZZ_LINES	(64 * KIB / CPE_LINE_BYTES)

struct fuzz {
	uint64_t rng;
	u32 mask;
	bool even[FUZZ_OBJS];		/* whole-object args */
	u64 part_lo[FUZZ_OBJS][MCMGPU_MAX_CHIPLETS];	/* offsets, [lo, hi) */
	u64 part_hi[FUZZ_OBJS][MCMGPU_MAX_CHIPLETS];
	u32 sizes;			/* views up to len[sizes - 1] */
	bool wide;			/* many small separate buffers */
	struct mcmgpu_cpe_record last;		/* the previous kernel */
	u32 nested;			/* kernels with overlapping views */
};

static u64 rnd(struct fuzz *f)
{
	return mt_xorshift64(&f->rng);
}

/* A random multiple of 4 in [0, n]. */
static u64 rnd4(struct fuzz *f, u64 n)
{
	return rnd(f) % (n / 4 + 1) * 4;
}

/*
 * Per object: whole-object even args, or a split at 4-byte cuts inside the
 * hull of the kernel's views of it, so neighbours mostly share a line.
 */
static void fuzz_partition(struct fuzz *f, const struct mcmgpu_cpe_record *r)
{
	u32 order[MCMGPU_MAX_CHIPLETS], k = 0, o, i, j, t;
	u64 cut[MCMGPU_MAX_CHIPLETS + 1], vlo[FUZZ_OBJS], vhi[FUZZ_OBJS];

	for (o = 0; o < FUZZ_OBJS; o++) {
		vlo[o] = 64 * KIB;
		vhi[o] = 0;
	}
	for (i = 0; i < r->nargs; i++) {
		u64 s = r->args[i].base % obj(1), e = s + r->args[i].size;

		o = r->args[i].base / obj(1);
		vlo[o] = s < vlo[o] ? s : vlo[o];
		vhi[o] = e > vhi[o] ? e : vhi[o];
	}

	for (i = 0; i < MCMGPU_MAX_CHIPLETS; i++)
		if (f->mask >> i & 1)
			order[k++] = i;
	for (o = 0; o < FUZZ_OBJS; o++) {
		f->even[o] = !f->wide && rnd(f) % 4 == 0;
		/* Random owners, so data moves between chiplets. */
		for (i = k - 1; i > 0; i--) {
			j = rnd(f) % (i + 1);
			t = order[i];
			order[i] = order[j];
			order[j] = t;
		}
		cut[0] = 0;
		cut[k] = 64 * KIB;
		for (i = 1; i < k && vlo[o] < vhi[o]; i++)
			cut[i] = vlo[o] + rnd4(f, vhi[o] - vlo[o]);
		for (i = 1; i < k && vlo[o] >= vhi[o]; i++)
			cut[i] = rnd4(f, 64 * KIB);
		for (i = 1; i < k; i++)	/* sort the inner cuts */
			for (j = i + 1; j < k; j++)
				if (cut[j] < cut[i]) {
					u64 x = cut[i];

					cut[i] = cut[j];
					cut[j] = x;
				}
		for (i = 0; i < MCMGPU_MAX_CHIPLETS; i++)
			f->part_lo[o][i] = f->part_hi[o][i] = 0;
		for (i = 0; i < k; i++) {
			f->part_lo[o][order[i]] = cut[i];
			f->part_hi[o][order[i]] = cut[i + 1];
		}
	}
}

/* Appends the view [s, e) of object o, if there is room. */
static void fuzz_add(struct mcmgpu_cpe_record *r, u32 max, u32 o, u64 s, u64 e,
		     u32 mode)
{
	struct mcmgpu_cpe_arg *a;

	if (r->nargs >= max || s >= e)
		return;
	a = &r->args[r->nargs++];
	a->base = obj(o) + s;
	a->size = e - s;
	a->mode = mode;
}

static u32 other_mode(struct fuzz *f, u32 mode)
{
	/* Mostly RW inside R and R inside RW. */
	return rnd(f) % 4 ? (mode == R ? RW : R) : mode;
}

/* A random multiple of 4 in [0, n], mostly whole lines. */
static u64 rndl(struct fuzz *f, u64 n)
{
	u64 x = rnd(f) % (n / CPE_LINE_BYTES + 1) * CPE_LINE_BYTES;

	return rnd(f) % 4 ? rnd4(f, n) : x;
}

/*
 * Views of one object in the order kernels tend to name them: one to three
 * parts, abutting or apart, then mostly a container of them, then
 * sometimes a view nested in, identical to or overlapping a part; now and
 * then shuffled. Views are cut at 4-byte boundaries; fuzz_ranges splits
 * them among the chiplets.
 */
static void fuzz_cluster(struct fuzz *f, struct mcmgpu_cpe_record *r, u32 max)
{
	const u64 l = 4;
	static const u64 len[] = { 64, 256, 1024, 4096, 16384 };
	u64 n = len[rnd(f) % f->sizes], pos = rndl(f, 64 * KIB - l);
	u64 ps[3], pe[3], s, e;
	u32 o = rnd(f) % FUZZ_OBJS, parts = 0, first = r->nargs, i, j;

	while (parts < (f->wide ? 1 : 1 + rnd(f) % 3)) {
		s = pos;
		e = s + l + rndl(f, n - l);
		if (e > 64 * KIB)
			break;
		ps[parts] = s;
		pe[parts++] = e;
		fuzz_add(r, max, o, s, e, rnd(f) % 2 ? RW : R);
		pos = e + (rnd(f) % 2 ? 0 : rndl(f, n));
	}
	if (!parts || f->wide)
		return;
	if (rnd(f) % 4) {
		u64 room = 64 * KIB - pe[parts - 1];

		s = ps[0] - rndl(f, rnd(f) % 2 ? 0 : ps[0] < n ? ps[0] : n);
		e = pe[parts - 1];
		e += rndl(f, rnd(f) % 2 ? 0 : room < n ? room : n);
		fuzz_add(r, max, o, s, e, other_mode(f, r->args[first].mode));
	}
	if (rnd(f) % 2) {
		i = rnd(f) % parts;
		s = ps[i];
		e = pe[i];
		switch (rnd(f) % 3) {
		case 0:				/* nested */
			s += rndl(f, e - s - l);
			e = s + l + rndl(f, e - s - l);
			break;
		case 1:				/* overlapping one end */
			s += rndl(f, e - s - l);
			e = s + n < 64 * KIB ? s + n : 64 * KIB;
			break;
		}				/* else identical */
		if (first + i < r->nargs)
			fuzz_add(r, max, o, s, e,
				 other_mode(f, r->args[first + i].mode));
	}
	for (i = first; i + 1 < r->nargs && !(rnd(f) % 4); i++) {
		struct mcmgpu_cpe_arg t = r->args[i];

		j = i + rnd(f) % (r->nargs - i);
		r->args[i] = r->args[j];
		r->args[j] = t;
	}
}

/* Chiplet c's part of the view: explicit, or the whole object evenly. */
static void fuzz_ranges(struct fuzz *f, struct mcmgpu_cpe_arg *a, bool unknown)
{
	u32 o = a->base / obj(1), c;
	u64 s = a->base - obj(o), e = s + a->size;

	if (f->even[o]) {
		a->base = obj(o);
		a->size = 64 * KIB;
		a->kind = unknown && !(rnd(f) % 4) ? MCMGPU_CPE_ARG_UNKNOWN :
			  MCMGPU_CPE_ARG_EVEN;
		return;
	}
	a->kind = MCMGPU_CPE_ARG_EXPLICIT;
	for (c = 0; c < MCMGPU_MAX_CHIPLETS; c++) {
		u64 lo = s > f->part_lo[o][c] ? s : f->part_lo[o][c];
		u64 hi = e < f->part_hi[o][c] ? e : f->part_hi[o][c];

		a->range[c].start = 1;
		a->range[c].end = 0;
		if (!(f->mask >> c & 1) || lo >= hi || !(rnd(f) % 8))
			continue;
		/* Within one chiplet, cut anywhere 4-byte aligned. */
		if (rnd(f) % 4 == 0) {
			lo += rnd4(f, hi - lo - 4);
			hi = lo + 4 + rnd4(f, hi - lo - 4);
		}
		a->range[c].start = obj(o) + lo;
		a->range[c].end = obj(o) + hi - 1;
	}
}

/*
 * One race-free kernel of 1..16 arguments; half of them consume a subset
 * of the previous kernel's views on a new split, as a next step would.
 */
static void fuzz_kernel(struct fuzz *f, struct mcmgpu_cpe_record *r, u32 chiplets)
{
	u32 nargs = 1 + rnd(f) % (rnd(f) % 2 ? 8 : MCMGPU_CPE_MAX_ARGS), i, j;
	u32 ncons = 1 + rnd(f) % 3;
	bool unknown = rnd(f) % 16 == 0;
	bool consumer = f->last.nargs && !(rnd(f) % (f->wide ? 4 : 2));

	if (f->wide)
		nargs = MCMGPU_CPE_ROWS_PER_KERNEL;

	*r = kern(1 + rnd(f) % ((1U << chiplets) - 1));
	r->passes = 1 + rnd(f) % 2;
	f->mask = r->chiplet_mask;
	for (i = 0; consumer && i < ncons; i++) {
		struct mcmgpu_cpe_arg *a = &r->args[r->nargs++];

		/* Mostly what the last kernel wrote. */
		for (j = 0; j < 4; j++) {
			*a = f->last.args[rnd(f) % f->last.nargs];
			if (a->mode == RW)
				break;
		}
		a->mode = rnd(f) % 4 ? R : RW;
	}
	while (!consumer && r->nargs < nargs)
		fuzz_cluster(f, r, nargs);
	fuzz_partition(f, r);
	for (i = 0; i < r->nargs; i++)
		fuzz_ranges(f, &r->args[i], unknown);
	for (i = 0; i < r->nargs; i++) {
		const struct mcmgpu_cpe_arg *a = &r->args[i], *b;

		for (j = i + 1; j < r->nargs; j++) {
			b = &r->args[j];
			if (a->base < b->base + b->size &&
			    b->base < a->base + a->size) {
				f->nested++;
				i = j = r->nargs;
			}
		}
	}
	f->last = *r;
}

/*
 * The table must describe the caches conservatively: a valid word in
 * chiplet c's L2 lies in a row where c is present, inside c's range hull
 * (by line, A4), and that row says Dirty if the word is dirty. This
 * catches a lost or misplaced table update when it happens, before any
 * read has to trip over it. Returns the words that break it.
 */
static u64 table_misses(const struct cpe_model *m)
{
	u64 lines = (u64)m->cfg.l2_sets * m->cfg.l2_ways, i, bad = 0;
	u32 c, k, w;

	for (c = 0; c < m->cfg.chiplets; c++) {
		for (i = 0; i < lines; i++) {
			const struct cpe_line *l = &m->l2[c * lines + i];
			u64 line = l->tag - 1;

			for (w = 0; l->tag && w < CPE_LINE_WORDS; w++) {
				const struct cpe_row *row = NULL;
				u64 addr = line * CPE_LINE_BYTES + w * 4;

				if (!(l->valid >> w & 1))
					continue;
				for (k = 0; k < MCMGPU_CPE_TABLE_ROWS && !row; k++)
					if (m->row[k].used && m->row[k].base <= addr &&
					    addr < m->row[k].end)
						row = &m->row[k];
				bad += !row || row->state[c] == CPE_NP ||
				       (l->dirty >> w & 1 && row->state[c] != CPE_D) ||
				       line < row->lo[c] / CPE_LINE_BYTES ||
				       line > row->hi[c] / CPE_LINE_BYTES;
			}
		}
	}
	return bad;
}

static bool fuzz_unknown(const struct mcmgpu_cpe_record *r)
{
	u32 i;

	for (i = 0; i < r->nargs; i++)
		if (r->args[i].kind == MCMGPU_CPE_ARG_UNKNOWN)
			return true;
	return false;
}

/* Two chiplets touch different words of one line in this kernel. */
static bool fuzz_shares_a_line(const struct mcmgpu_cpe_record *r)
{
	u32 i, j, c, d;
	u64 lo, hi, lo2, hi2;

	for (i = 0; i < r->nargs; i++)
		for (j = 0; j < r->nargs; j++)
			for (c = 0; c < MCMGPU_MAX_CHIPLETS; c++)
				for (d = 0; d < MCMGPU_MAX_CHIPLETS; d++) {
					if (c == d ||
					    !cpe_arg_range(r, &r->args[i], c, &lo, &hi) ||
					    !cpe_arg_range(r, &r->args[j], d, &lo2, &hi2))
						continue;
					if (lo / CPE_LINE_BYTES <= hi2 / CPE_LINE_BYTES &&
					    lo2 / CPE_LINE_BYTES <= hi / CPE_LINE_BYTES)
						return true;
				}
	return false;
}

/* Reinitializes s, reusing its arena (no page faults per sequence). */
static void sim_reuse(struct sim *s, u32 chiplets, u32 policy, u32 l2_sets,
		      u32 flags)
{
	struct cpe_config cfg;
	u64 bytes;

	cpe_config_defaults(&cfg, chiplets, policy, 1 << 20);
	cfg.flags = flags;
	cfg.l2_sets = l2_sets;
	cfg.l2_ways = 16;
	cfg.l3_sets = 512;
	bytes = cpe_arena_bytes(&cfg);
	if (!s->arena) {
		cfg.chiplets = MCMGPU_MAX_CHIPLETS;
		s->arena = malloc(cpe_arena_bytes(&cfg));
		cfg.chiplets = chiplets;
	}
	memset(s->arena, 0, bytes);
	cpe_model_init(&s->m, &cfg, s->arena);
}

static void fuzz_shard(struct __test_metadata *_metadata, u64 seed)
{
	struct fuzz f = { .rng = seed };
	u64 kernels = 0, refused = 0, coarsened = 0, evictions = 0, full64 = 0;
	u64 shared = 0, unknown = 0;
	struct sim sim[3] = { 0 };
	u64 cached = 0, dir_evictions = 0;
	int seq;
	u32 i;

	for (seq = 0; seq < FUZZ_SEQS; seq++) {
		u32 n = 1 + rnd(&f) % 8, k;
		u32 policy[3] = { MCMGPU_CPE_POLICY_BASELINE,
				  MCMGPU_CPE_POLICY_CPELIDE, MCMGPU_CPE_POLICY_HMG };
		u32 flags = rnd(&f) % 2 ? MCMGPU_CPE_FLAG_CACHE_REMOTE : 0;
		u64 misses = 0;

		/* 64 KiB L2s: fast to check, and evictions of dirty lines. */
		for (i = 0; i < 3; i++)
			sim_reuse(&sim[i], n, policy[i], 64, flags);
		/* A small directory, so HMG evicts entries. */
		sim[2].m.cfg.dir_sets = 4;
		cached += !!flags;
		f.last.nargs = 0;
		f.wide = rnd(&f) % 6 == 0;
		f.sizes = f.wide ? 2 : 2 + rnd(&f) % 4;
		if (rnd(&f) % 4 == 0)
			sim[1].m.cfg.table_rows = MCMGPU_CPE_ROWS_PER_KERNEL + 1 +
						   rnd(&f) % 24;
		for (k = 0; k < FUZZ_KERNELS * (f.wide ? 2 : 1); k++) {
			struct mcmgpu_cpe_record r;

			if (rnd(&f) % 10 == 0) {
				u32 o = rnd(&f) % FUZZ_OBJS;
				u64 s = rnd4(&f, 64 * KIB - 4);

				r = (struct mcmgpu_cpe_record){ .nargs = 1 };
				r.type = rnd(&f) % 2 ? MCMGPU_CPE_REC_HOST_READ :
						       MCMGPU_CPE_REC_HOST_WRITE;
				r.args[0].base = obj(o);
				r.args[0].size = 64 * KIB;
				r.args[0].range[0].start = obj(o) + s;
				r.args[0].range[0].end = obj(o) + s +
					rnd4(&f, 64 * KIB - s - 4) + 3;
			} else {
				fuzz_kernel(&f, &r, n);
				kernels++;
				unknown += fuzz_unknown(&r);
				shared += fuzz_shares_a_line(&r);
			}
			for (i = 0; i < 3; i++) {
				struct cpe_error err;

				if (cpe_record_check(&sim[i].m, &r, &err)) {
					refused += !i;
					break;
				}
				cpe_model_record(&sim[i].m, &r);
			}
			misses += table_misses(&sim[1].m);
		}
		EXPECT_EQ(0, misses) TH_LOG("seq %d", seq);
		for (i = 0; i < 3; i++) {
			cpe_model_finish(&sim[i].m);
			EXPECT_EQ(0, sim[i].m.stats.oracle_violations)
				TH_LOG("seq %d policy %u flags %u", seq, policy[i],
				       flags);
		}
		EXPECT_EQ(0, OPS(&sim[2])) TH_LOG("seq %d: HMG never syncs", seq);
		dir_evictions += sim[2].m.stats.dir_evictions;
		/* A table shrunk far below 64 rows may sync more (A5). */
		if (sim[1].m.cfg.table_rows == MCMGPU_CPE_TABLE_ROWS)
			EXPECT_LE(OPS(&sim[1]), OPS(&sim[0])) TH_LOG("seq %d", seq);
		EXPECT_LT(0, sim[0].m.stats.kernels);
		coarsened += sim[1].m.stats.coarsened_args;
		evictions += sim[1].m.stats.overflow_evictions;
		full64 += sim[1].m.cfg.table_rows == MCMGPU_CPE_TABLE_ROWS &&
			  sim[1].m.stats.overflow_evictions;
	}
	for (i = 0; i < 3; i++)
		free(sim[i].arena);
	/* The generator did what it claims. */
	EXPECT_EQ(0, refused);
	EXPECT_LT(kernels / 3, shared);
	EXPECT_GT(kernels / 10, unknown);
	EXPECT_LT(kernels / 3, f.nested);
	EXPECT_LT(0, coarsened);
	EXPECT_LT(0, evictions);
	EXPECT_LT(0, full64);
	EXPECT_LT(FUZZ_SEQS / 4, cached);
	EXPECT_GT(FUZZ_SEQS * 3 / 4, cached);
	EXPECT_LT(0, dir_evictions);
	TH_LOG("%d sequences, %llu kernels, %llu with chiplets sharing a line, "
	       "%llu with unknown ranges, %u with overlapping views, "
	       "%llu args coarsened, %llu evictions, "
	       "%llu sequences overflowed 64 rows, %llu cached remote data, "
	       "%llu HMG directory evictions", FUZZ_SEQS,
	       (unsigned long long)kernels, (unsigned long long)shared,
	       (unsigned long long)unknown, f.nested,
	       (unsigned long long)coarsened, (unsigned long long)evictions,
	       (unsigned long long)full64, (unsigned long long)cached,
	       (unsigned long long)dir_evictions);
}

/*
 * A shard takes about 11 s under ASan on an idle core; the harness's 30 s
 * default fails it on a loaded machine, so the shards get 300 s.
 */
FIXTURE(shard) {};
FIXTURE_SETUP(shard) {}
FIXTURE_TEARDOWN(shard) {}

TEST_F_TIMEOUT(shard, differential_fuzz_baseline_cpelide_hmg_0, 300)
{
	fuzz_shard(_metadata, 2024);
}

TEST_F_TIMEOUT(shard, differential_fuzz_baseline_cpelide_hmg_1, 300)
{
	fuzz_shard(_metadata, 2025);
}

TEST_F_TIMEOUT(shard, differential_fuzz_baseline_cpelide_hmg_2, 300)
{
	fuzz_shard(_metadata, 2026);
}

TEST_F_TIMEOUT(shard, differential_fuzz_baseline_cpelide_hmg_3, 300)
{
	fuzz_shard(_metadata, 2027);
}

TEST_HARNESS_MAIN
