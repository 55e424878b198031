// SPDX-License-Identifier: GPL-2.0
/*
 * Host tests of the CPElide core (qemu-device/cpelide.c): every cell of
 * the state table (notes §2.4), the directed sequences of notes §4.3.2 with
 * exact operation counts, mutation tests that prove the oracle catches a
 * dropped acquire, a dropped release and a skipped Stale marking, and
 * randomized differential fuzzing of baseline against cpelide.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"
#include "cpelide.h"

#define KIB 1024ULL

struct sim {
	struct cpe_model m;
	void *arena;
};

/* Small caches so tests run fast; behaviour does not depend on size here. */
static struct sim *sim_new(u32 chiplets, u32 policy, u32 mutate)
{
	struct sim *s = calloc(1, sizeof(*s));
	struct cpe_config cfg;

	cpe_config_defaults(&cfg, chiplets, policy, 1 << 20);
	cfg.l2_sets = 256;
	cfg.l2_ways = 16;
	cfg.l3_sets = 512;
	cfg.mutate = mutate;
	s->arena = calloc(1, cpe_arena_bytes(&cfg));
	cpe_model_init(&s->m, &cfg, s->arena);
	return s;
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

static struct cpe_record kern(u32 mask)
{
	struct cpe_record r = { .type = CPE_REC_KERNEL, .chiplet_mask = mask,
				.passes = 1 };
	return r;
}

/* Argument: object i, mode, chiplet c accesses [off, off + len). */
static void arg_on(struct cpe_record *r, int i, u32 mode, u32 c, u64 off,
		   u64 len)
{
	struct cpe_arg *a = &r->args[r->nargs++];
	u32 d;

	a->base = obj(i);
	a->size = 64 * KIB;
	a->mode = mode;
	a->kind = CPE_ARG_EXPLICIT;
	for (d = 0; d < CPE_MAX_CHIPLETS; d++) {
		a->range[d].start = 1;
		a->range[d].end = 0;
	}
	a->range[c].start = obj(i) + off;
	a->range[c].end = obj(i) + off + len - 1;
}

static void arg_even(struct cpe_record *r, int i, u32 mode, u32 kind)
{
	struct cpe_arg *a = &r->args[r->nargs++];

	a->base = obj(i);
	a->size = 64 * KIB;
	a->mode = mode;
	a->kind = kind;
}

static int run(struct sim *s, struct cpe_record r)
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
	struct cpe_record r = kern(1U << c);

	arg_on(&r, i, mode, c, off, len);
	return run(s, r);
}

static int state(struct sim *s, int i, u32 c)
{
	u32 k;

	for (k = 0; k < CPE_TABLE_ROWS; k++)
		if (s->m.row[k].used && s->m.row[k].base <= obj(i) &&
		    obj(i) < s->m.row[k].end)
			return s->m.row[k].state[c];
	return CPE_NP;	/* no row: NotPresent everywhere */
}

#define OPS(s) ((s)->m.stats.l2_invalidates + (s)->m.stats.l2_flushes)
#define R CPE_MODE_R
#define RW CPE_MODE_RW

FIXTURE(cp) {
	struct sim *s;
};

FIXTURE_SETUP(cp)
{
	self->s = sim_new(3, CPE_POLICY_CPELIDE, 0);
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
	struct sim *c = sim_new(4, CPE_POLICY_CPELIDE, 0);
	struct sim *b = sim_new(4, CPE_POLICY_BASELINE, 0);
	int k;

	for (k = 0; k < 10; k++) {
		struct cpe_record r = kern(0xf);

		arg_even(&r, 0, R, CPE_ARG_EVEN);
		arg_even(&r, 1, R, CPE_ARG_EVEN);
		arg_even(&r, 2, RW, CPE_ARG_EVEN);
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
	EXPECT_LT(c->m.stats.modeled_cycles, b->m.stats.modeled_cycles);
	sim_free(c);
	sim_free(b);
}

TEST(producer_consumer_one_flush_no_invalidate)
{
	struct sim *s = sim_new(4, CPE_POLICY_CPELIDE, 0);

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
	struct sim *s = sim_new(4, CPE_POLICY_CPELIDE, 0);
	int k, c;

	for (k = 0; k < 6; k++) {
		struct cpe_record r = kern(0xf);

		for (c = 0; c < CPE_MAX_CHIPLETS; c++)
			r.args[0].range[c] = c < 4 ?
				(struct cpe_range){ obj(1), obj(1) + 65535 } :
				(struct cpe_range){ 1, 0 };
		r.nargs = 1;
		r.args[0].base = obj(1);
		r.args[0].size = 64 * KIB;
		r.args[0].mode = R;
		r.args[0].kind = CPE_ARG_EXPLICIT;
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
	struct sim *s = sim_new(4, CPE_POLICY_CPELIDE, mutate);

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
	struct sim *s = sim_new(4, CPE_POLICY_CPELIDE, 0);
	struct cpe_record r = kern(0xf);

	ASSERT_EQ(0, touch(s, 0, 1, R, 0, 4096));
	ASSERT_EQ(0, touch(s, 2, 2, R, 0, 4096));
	ASSERT_EQ(2, cpe_table_rows_used(&s->m));
	arg_even(&r, 0, RW, CPE_ARG_UNKNOWN);
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
	s = sim_new(4, CPE_POLICY_CPELIDE, CPE_MUTATE_DROP_RELEASE);
	touch(s, 0, 0, RW, 0, 16384);
	touch(s, 1, 0, R, 0, 16384);
	EXPECT_LT(0, s->m.stats.oracle_read_violations);
	sim_free(s);
}

TEST(coarsening_above_eight_arguments_stays_correct)
{
	struct sim *s = sim_new(2, CPE_POLICY_CPELIDE, 0);
	int k, i;

	for (k = 0; k < 4; k++) {
		struct cpe_record r = kern(k % 2 ? 0x3 : 0x1);

		for (i = 0; i < 12; i++)
			arg_even(&r, i, (i + k) % 3 ? R : RW, CPE_ARG_EVEN);
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
	struct sim *s = sim_new(2, CPE_POLICY_CPELIDE, 0);
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
	struct sim *s = sim_new(4, CPE_POLICY_CPELIDE, 0);
	struct cpe_record h = { .type = CPE_REC_HOST_READ, .nargs = 1 };

	ASSERT_EQ(0, touch(s, 0, 0, RW, 0, 4096));
	ASSERT_EQ(0, touch(s, 1, 1, RW, 0, 4096));
	h.args[0].base = obj(0);
	h.args[0].size = 64 * KIB;
	h.args[0].range[0] = (struct cpe_range){ obj(0), obj(0) + 4095 };
	ASSERT_EQ(0, run(s, h));
	EXPECT_EQ(1, s->m.stats.l2_flushes);	/* only chiplet 0 */
	h.type = CPE_REC_HOST_WRITE;
	ASSERT_EQ(0, run(s, h));
	EXPECT_EQ(CPE_S, state(s, 0, 0));
	ASSERT_EQ(0, touch(s, 0, 0, R, 0, 4096));	/* sees the host's data */
	cpe_model_finish(&s->m);
	EXPECT_EQ(0, s->m.stats.oracle_violations);
	sim_free(s);
}

TEST(bad_records_are_rejected)
{
	struct sim *s = sim_new(4, CPE_POLICY_CPELIDE, 0);
	struct cpe_error err;
	struct cpe_record r = kern(0x3);

	arg_on(&r, 0, RW, 0, 0, 4096);
	r.args[0].range[1] = (struct cpe_range){ obj(0) + 4092, obj(0) + 8191 };
	EXPECT_EQ(-1, cpe_record_check(&s->m, &r, &err));
	EXPECT_EQ(0, strncmp("race", err.what, 4));
	r.args[0].range[1] = (struct cpe_range){ obj(0) + 4096, obj(0) + 8191 };
	EXPECT_EQ(0, cpe_record_check(&s->m, &r, &err));
	r.chiplet_mask = 0;
	EXPECT_EQ(-1, cpe_record_check(&s->m, &r, &err));
	EXPECT_EQ(0, strncmp("chiplets: empty", err.what, 15));
	r.chiplet_mask = 0x13;
	EXPECT_EQ(-1, cpe_record_check(&s->m, &r, &err));
	EXPECT_EQ(0, strncmp("chiplets: no such", err.what, 17));
	r.chiplet_mask = 0x3;
	r.args[0].range[1] = (struct cpe_range){ obj(0) + 4096, obj(1) + 8 };
	EXPECT_EQ(-1, cpe_record_check(&s->m, &r, &err));
	EXPECT_EQ(1, err.arg);
	EXPECT_EQ(0, strncmp("range: outside", err.what, 14));
	r.args[0].range[1] = (struct cpe_range){ obj(0) + 4097, obj(0) + 8191 };
	EXPECT_EQ(-1, cpe_record_check(&s->m, &r, &err));
	r.args[0].range[1] = (struct cpe_range){ obj(0) + 4096, obj(0) + 8191 };
	r.nargs = 17;
	EXPECT_EQ(-1, cpe_record_check(&s->m, &r, &err));
	r.nargs = 1;
	r.args[0].base = 1 << 20;
	EXPECT_EQ(-1, cpe_record_check(&s->m, &r, &err));
	/* 1024 passes over 16 x 1 MiB is too much work for one launch. */
	r = kern(0xf);
	for (int i = 0; i < CPE_MAX_ARGS; i++) {
		arg_even(&r, 0, R, CPE_ARG_EVEN);
		r.args[i].base = 0;
		r.args[i].size = 1 << 20;
	}
	r.passes = 1024;
	EXPECT_EQ(-1, cpe_record_check(&s->m, &r, &err));
	EXPECT_EQ(0, strncmp("passes", err.what, 6));
	r.passes = 1;
	EXPECT_EQ(0, cpe_record_check(&s->m, &r, &err));
	sim_free(s);
}

/* Random race-free sequences: no violation, cpelide never does more. */
TEST(differential_fuzz_baseline_vs_cpelide)
{
	uint64_t rng = 2024;
	int seq;

#define RND() (rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17, rng)
	for (seq = 0; seq < 60; seq++) {
		u32 n = 1 + RND() % 8, k, i, c, p;
		struct sim *sim[2] = { sim_new(n, CPE_POLICY_BASELINE, 0),
				       sim_new(n, CPE_POLICY_CPELIDE, 0) };

		for (k = 0; k < 25; k++) {
			struct cpe_record r = kern(0);
			u32 nargs = 1 + RND() % 12;

			if (RND() % 10 == 0) {
				r.type = RND() % 2 ? CPE_REC_HOST_READ : CPE_REC_HOST_WRITE;
				r.nargs = 1;
				r.args[0].base = obj(RND() % 8);
				r.args[0].size = 64 * KIB;
				r.args[0].range[0].start = r.args[0].base + RND() % 16 * 4096;
				r.args[0].range[0].end = r.args[0].range[0].start + 4095;
			} else {
				r.chiplet_mask = 1 + RND() % ((1U << n) - 1);
				r.passes = 1 + RND() % 2;
				for (i = 0; i < nargs; i++) {
					struct cpe_arg *a = &r.args[r.nargs++];

					/* Distinct objects per argument: no cross-arg races. */
					a->base = obj(i);
					a->size = 64 * KIB;
					a->mode = RND() % 2 ? RW : R;
					a->kind = RND() % 8 == 0 ? CPE_ARG_UNKNOWN :
						  RND() % 2 ? CPE_ARG_EVEN : CPE_ARG_EXPLICIT;
					/* Explicit: chiplet c gets slice p(c) of 16, maybe
					 * unaligned to lines but 4-byte aligned. */
					p = RND() % 16;
					for (c = 0; c < CPE_MAX_CHIPLETS; c++) {
						u64 slice = (c + p) % 16 * 4096 + RND() % 4 * 4;

						a->range[c].start = 1;
						a->range[c].end = 0;
						if (r.chiplet_mask >> c & 1 && RND() % 4) {
							a->range[c].start = a->base + slice;
							a->range[c].end = a->base + slice + 4095 -
								(slice % 4096);
						}
					}
				}
			}
			for (i = 0; i < 2; i++) {
				struct cpe_error err;

				if (cpe_record_check(&sim[i]->m, &r, &err))
					break;
				cpe_model_record(&sim[i]->m, &r);
			}
		}
		for (i = 0; i < 2; i++) {
			cpe_model_finish(&sim[i]->m);
			EXPECT_EQ(0, sim[i]->m.stats.oracle_violations)
				TH_LOG("seq %d policy %u", seq, i);
		}
		EXPECT_LE(OPS(sim[1]), OPS(sim[0])) TH_LOG("seq %d", seq);
		EXPECT_LT(0, sim[0]->m.stats.kernels);
		sim_free(sim[0]);
		sim_free(sim[1]);
	}
}

TEST_HARNESS_MAIN
