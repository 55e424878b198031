// SPDX-License-Identifier: GPL-2.0
/*
 * Host tests of ADSM's cores: the protocols (drivers/mcmgpu/adsm_protocol.c)
 * move exactly the bytes of the notes' §4.5 formulas for every pattern and
 * protocol; every (state, event) cell of GMAC's Fig. 6; all protocols leave
 * the same memory after every sync of random programs and differ only in
 * counters, with the invariants (PTEs match states, at most R Dirty blocks)
 * held after every step; the kernels compute what a plain C model does and
 * refuse bad arguments by field.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"
#include "adsm_rt.h"
#include "adsm_kernels.h"
#include "../../drivers/mcmgpu/adsm_protocol.h"

#define KiB 1024ULL
#define MiB (1024ULL * KiB)

static void run_one(struct __test_metadata *_metadata, uint32_t pattern,
		    uint32_t protocol, uint64_t size, uint64_t block,
		    uint32_t rolling, uint32_t iterations)
{
	struct adsm_params p = {
		.pattern = pattern, .protocol = protocol, .size = size,
		.block = block, .rolling = rolling, .iterations = iterations,
		.seed = 7,
	};
	struct adsm_rt *rt = adsm_host_new(protocol, block, rolling, 4);
	struct adsm_outcome o;

	ASSERT_NE(NULL, rt);
	ASSERT_EQ(0, adsm_run(rt, &p, &o)) TH_LOG("%s", rt->err);
	EXPECT_TRUE(o.verified) TH_LOG("%s %s S %llu B %llu R %u: element %llu",
				       adsm_pattern_name(pattern),
				       adsm_protocol_name(protocol),
				       (unsigned long long)size,
				       (unsigned long long)block, rolling,
				       (unsigned long long)o.bad_index);
	EXPECT_EQ(o.exp_h2d, o.st.h2d_bytes)
		TH_LOG("%s %s S %llu B %llu R %u K %u: H2D",
		       adsm_pattern_name(pattern), adsm_protocol_name(protocol),
		       (unsigned long long)size, (unsigned long long)block,
		       rolling, iterations);
	EXPECT_EQ(o.exp_d2h, o.st.d2h_bytes)
		TH_LOG("%s %s S %llu B %llu R %u K %u: D2H",
		       adsm_pattern_name(pattern), adsm_protocol_name(protocol),
		       (unsigned long long)size, (unsigned long long)block,
		       rolling, iterations);
	if (protocol != ADSM_EXPLICIT) {
		EXPECT_EQ(o.exp_faults, o.st.faults)
			TH_LOG("%s %s S %llu B %llu R %u K %u: faults",
			       adsm_pattern_name(pattern),
			       adsm_protocol_name(protocol),
			       (unsigned long long)size,
			       (unsigned long long)block, rolling, iterations);
	}
	EXPECT_EQ(o.st.h2d_call + o.st.h2d_evict, o.st.h2d_bytes);
	EXPECT_EQ(o.st.d2h_call + o.st.d2h_fault, o.st.d2h_bytes);
	if (protocol == MCMGPU_ADSM_ROLLING) {
		EXPECT_GE(o.st.rolling, o.st.dirty_peak);
	} else {
		EXPECT_EQ(0, o.st.h2d_evict);
	}
	adsm_host_free(rt);
}

/* Every pattern, protocol, and shapes around the rolling window. */
TEST(patterns_move_the_formula_bytes)
{
	/* 100004: no whole pages, a short last block under every B. */
	static const uint64_t sizes[] = { 4 * KiB, 64 * KiB, 200 * KiB, 1 * MiB,
					  100004 };
	static const uint64_t blocks[] = { 4 * KiB, 16 * KiB, 128 * KiB, 2 * MiB };
	static const uint32_t rollings[] = { 0, 1, 3, 64 };
	uint32_t pat, proto, si, bi, ri;

	for (pat = 0; pat < ADSM_PATTERNS; pat++)
		for (proto = 0; proto <= ADSM_EXPLICIT; proto++)
			for (si = 0; si < 5; si++)
				for (bi = 0; bi < 4; bi++)
					/* R only matters to rolling. */
					for (ri = 0; ri < 4; ri++) {
						if (ri &&
						    proto != MCMGPU_ADSM_ROLLING)
							break;
						run_one(_metadata, pat, proto,
							sizes[si], blocks[bi],
							rollings[ri], 3);
					}
}

/* Fig. 12: P passes re-send the input until R * B covers it. */
TEST(multipass_h2d_falls_from_p_times_s_to_s)
{
	struct adsm_params p = {
		.pattern = ADSM_PAT_MULTIPASS, .protocol = MCMGPU_ADSM_ROLLING,
		.size = 4 * MiB, .iterations = 4, .seed = 1,
	};
	uint64_t block;

	for (block = 128 * KiB; block <= 4 * MiB; block *= 2) {
		struct adsm_rt *rt;
		struct adsm_outcome o;

		p.block = block;
		p.rolling = 2;
		rt = adsm_host_new(p.protocol, block, 2, 4);
		ASSERT_EQ(0, adsm_run(rt, &p, &o));
		EXPECT_EQ(2 * block >= p.size ? p.size : 4 * p.size,
			  o.st.h2d_bytes) TH_LOG("B %llu",
						 (unsigned long long)block);
		EXPECT_TRUE(o.verified);
		adsm_host_free(rt);
	}
}

/* Batch on an iterative code moves K times what lazy and rolling do. */
TEST(batch_blows_up_on_iterative_codes)
{
	struct adsm_params p = {
		.pattern = ADSM_PAT_ITER, .size = 1 * MiB, .block = 64 * KiB,
		.iterations = 20, .seed = 3,
	};
	struct adsm_outcome o[ADSM_EXPLICIT + 1];
	uint32_t proto;

	for (proto = 0; proto <= ADSM_EXPLICIT; proto++) {
		struct adsm_rt *rt = adsm_host_new(proto, p.block, 0, 4);

		p.protocol = proto;
		ASSERT_EQ(0, adsm_run(rt, &p, &o[proto]));
		adsm_host_free(rt);
	}
	EXPECT_EQ(20 * p.size, o[MCMGPU_ADSM_BATCH].st.h2d_bytes);
	EXPECT_EQ(p.size, o[MCMGPU_ADSM_LAZY].st.h2d_bytes);
	EXPECT_EQ(20 * p.block, o[MCMGPU_ADSM_ROLLING].st.d2h_bytes);
	EXPECT_GT(o[MCMGPU_ADSM_BATCH].st.modeled_cycles,
		  2 * o[MCMGPU_ADSM_ROLLING].st.modeled_cycles);
	EXPECT_LE(o[ADSM_EXPLICIT].st.modeled_cycles,
		  o[MCMGPU_ADSM_ROLLING].st.modeled_cycles);
}

/* ---- the state machine, cell by cell -------------------------------- */

struct cell_env {
	struct adsm_ctx c;
	struct adsm_obj o;
	u8 state[64];
	struct adsm_ref fifo[64];
	u64 xfers, protects;
	u64 last_off, last_len;
	int last_dir;
	int fail;		/* every transfer fails with it */
	u64 failed;
	bool async_evict;	/* evictions stay in flight */
};

static int cell_xfer(void *priv, struct adsm_obj *o, u64 off, u64 len,
		     enum adsm_dir dir, enum adsm_cause cause)
{
	struct cell_env *e = priv;

	/* A core that retries for ever gets through after a while. */
	if (e->fail && ++e->failed < 1000)
		return e->fail;
	if (e->async_evict && cause == ADSM_CAUSE_EVICT) {
		e->xfers++;
		return 1;
	}
	e->xfers++;
	e->last_off = off;
	e->last_len = len;
	e->last_dir = dir;
	return 0;
}

static void cell_protect(void *priv, struct adsm_obj *o, u64 off, u64 len,
			 u8 state)
{
	((struct cell_env *)priv)->protects++;
}

static const struct adsm_ops cell_ops = { cell_xfer, cell_protect };

static void cell_init(struct cell_env *e, u32 protocol, u32 rolling,
		      u64 bytes)
{
	memset(e, 0, sizeof(*e));
	adsm_ctx_init(&e->c, protocol, 12, rolling, 0, 0, 1, &cell_ops, e);
	adsm_fifo_move(&e->c, e->fifo, 64);
	e->o.bytes = bytes;
	e->o.state = e->state;
	adsm_obj_add(&e->c, &e->o);
}

TEST(fig6_lazy_cells)
{
	struct cell_env e;
	bool w;
	u64 off, len;

	cell_init(&e, MCMGPU_ADSM_LAZY, 0, 8 * KiB);
	/* R: read, no transfer; write, no transfer, D. */
	EXPECT_EQ(MCMGPU_ADSM_READONLY, adsm_state(&e.o, 0));
	ASSERT_EQ(0, adsm_fault(&e.c, &e.o, 100, false, &w, &off, &len));
	EXPECT_FALSE(w);
	EXPECT_EQ(0, e.xfers);
	EXPECT_EQ(8 * KiB, len);
	ASSERT_EQ(0, adsm_fault(&e.c, &e.o, 5000, true, &w, &off, &len));
	EXPECT_TRUE(w);
	EXPECT_EQ(0, e.xfers);
	EXPECT_EQ(MCMGPU_ADSM_DIRTY, adsm_state(&e.o, 0));
	/* D at a call: the whole object H2D, then I. */
	ASSERT_EQ(0, adsm_release(&e.c));
	EXPECT_EQ(1, e.xfers);
	EXPECT_EQ(ADSM_H2D, e.last_dir);
	EXPECT_EQ(8 * KiB, e.last_len);
	EXPECT_EQ(MCMGPU_ADSM_INVALID, adsm_state(&e.o, 0));
	/* I at a sync: nothing. */
	ASSERT_EQ(0, adsm_acquire(&e.c));
	EXPECT_EQ(1, e.xfers);
	/* I read: the whole object D2H, R. */
	ASSERT_EQ(0, adsm_fault(&e.c, &e.o, 4096, false, &w, &off, &len));
	EXPECT_EQ(2, e.xfers);
	EXPECT_EQ(ADSM_D2H, e.last_dir);
	EXPECT_EQ(MCMGPU_ADSM_READONLY, adsm_state(&e.o, 0));
	/* R at a call: no transfer, I. */
	ASSERT_EQ(0, adsm_release(&e.c));
	EXPECT_EQ(2, e.xfers);
	EXPECT_EQ(MCMGPU_ADSM_INVALID, adsm_state(&e.o, 0));
	/* I write: fetch first, then D. */
	ASSERT_EQ(0, adsm_fault(&e.c, &e.o, 0, true, &w, &off, &len));
	EXPECT_EQ(3, e.xfers);
	EXPECT_EQ(ADSM_D2H, e.last_dir);
	EXPECT_EQ(MCMGPU_ADSM_DIRTY, adsm_state(&e.o, 0));
	EXPECT_EQ(3, e.c.st.faults);
	EXPECT_EQ(1, e.c.st.faults_write_invalid);
	EXPECT_EQ(1, e.c.st.faults_read_invalid);
	EXPECT_EQ(1, e.c.st.faults_write_readonly);
	EXPECT_EQ(1, e.c.st.refaults);
}

TEST(fig6_rolling_evicts_the_oldest_beyond_r)
{
	struct cell_env e;
	bool w;
	u64 off, len, b;

	cell_init(&e, MCMGPU_ADSM_ROLLING, 2, 20 * KiB);	/* 5 blocks */
	EXPECT_EQ(5, e.o.units);
	for (b = 0; b < 2; b++)
		ASSERT_EQ(0, adsm_fault(&e.c, &e.o, b * 4096, true, &w, &off,
					&len));
	EXPECT_EQ(0, e.xfers);
	/* The third Dirty block pushes block 0 out, H2D, as R. */
	ASSERT_EQ(0, adsm_fault(&e.c, &e.o, 2 * 4096 + 8, true, &w, &off, &len));
	EXPECT_EQ(1, e.xfers);
	EXPECT_EQ(0, e.last_off);
	EXPECT_EQ(ADSM_H2D, e.last_dir);
	EXPECT_EQ(MCMGPU_ADSM_READONLY, adsm_state(&e.o, 0));
	EXPECT_EQ(MCMGPU_ADSM_DIRTY, adsm_state(&e.o, 1));
	EXPECT_EQ(4096, e.c.st.h2d_evict);
	/* Re-dirtying block 0 pushes block 1 out. */
	ASSERT_EQ(0, adsm_fault(&e.c, &e.o, 0, true, &w, &off, &len));
	EXPECT_EQ(4096, e.last_off);
	EXPECT_EQ(MCMGPU_ADSM_READONLY, adsm_state(&e.o, 1));
	/* The call sends the two left, blocks 2 and 0. */
	ASSERT_EQ(0, adsm_release(&e.c));
	EXPECT_EQ(4, e.xfers);
	EXPECT_EQ(4 * 4096, e.c.st.h2d_bytes);
	for (b = 0; b < 5; b++)
		EXPECT_EQ(MCMGPU_ADSM_INVALID, adsm_state(&e.o, b));
	/* A read of an I block fetches only it; the short last block too. */
	cell_init(&e, MCMGPU_ADSM_ROLLING, 2, 20 * KiB);
	ASSERT_EQ(0, adsm_release(&e.c));
	ASSERT_EQ(0, adsm_fault(&e.c, &e.o, 4 * 4096 + 1, false, &w, &off, &len));
	EXPECT_EQ(4 * 4096, e.last_off);
	EXPECT_EQ(4096, e.last_len);
	EXPECT_EQ(MCMGPU_ADSM_READONLY, adsm_state(&e.o, 4));
	EXPECT_EQ(MCMGPU_ADSM_INVALID, adsm_state(&e.o, 3));
}

TEST(fig6_batch_cells)
{
	struct cell_env e;
	bool w;
	u64 off, len;

	cell_init(&e, MCMGPU_ADSM_BATCH, 0, 8 * KiB);
	EXPECT_EQ(MCMGPU_ADSM_DIRTY, adsm_state(&e.o, 0));
	ASSERT_EQ(0, adsm_fault(&e.c, &e.o, 0, false, &w, &off, &len));
	EXPECT_TRUE(w);		/* no detection: always writable */
	EXPECT_EQ(0, e.c.st.faults);
	ASSERT_EQ(0, adsm_release(&e.c));
	EXPECT_EQ(1, e.xfers);
	EXPECT_EQ(MCMGPU_ADSM_INVALID, adsm_state(&e.o, 0));
	ASSERT_EQ(0, adsm_acquire(&e.c));
	EXPECT_EQ(2, e.xfers);
	EXPECT_EQ(ADSM_D2H, e.last_dir);
	EXPECT_EQ(MCMGPU_ADSM_DIRTY, adsm_state(&e.o, 0));
	/* A second sync owes nothing; a touch before a sync does its fetch. */
	ASSERT_EQ(0, adsm_acquire(&e.c));
	EXPECT_EQ(2, e.xfers);
	ASSERT_EQ(0, adsm_release(&e.c));
	ASSERT_EQ(0, adsm_fault(&e.c, &e.o, 0, true, &w, &off, &len));
	EXPECT_EQ(4, e.xfers);
	ASSERT_EQ(0, adsm_acquire(&e.c));
	EXPECT_EQ(4, e.xfers);
}

static u64 cell_dirty(struct cell_env *e)
{
	u64 u, n = 0;

	for (u = 0; u < e->o.units; u++)
		n += adsm_state(&e->o, u) == MCMGPU_ADSM_DIRTY;
	return n;
}

/* A failed eviction is returned, not retried for ever (issue 32). */
TEST(a_failed_eviction_returns_its_error)
{
	struct cell_env e;
	bool w;
	u64 off, len;

	cell_init(&e, MCMGPU_ADSM_ROLLING, 1, 16 * KiB);
	ASSERT_EQ(0, adsm_fault(&e.c, &e.o, 0, true, &w, &off, &len));
	e.fail = -EIO;
	EXPECT_EQ(-EIO, adsm_fault(&e.c, &e.o, 4096, true, &w, &off, &len));
	EXPECT_EQ(1, e.failed);
	/* Nothing moved: block 0 Dirty and queued, block 1 as it was. */
	EXPECT_EQ(MCMGPU_ADSM_DIRTY, adsm_state(&e.o, 0));
	EXPECT_EQ(MCMGPU_ADSM_READONLY, adsm_state(&e.o, 1));
	EXPECT_EQ(1, e.c.fifo_len);
	EXPECT_EQ(0, e.c.evicting);
	EXPECT_EQ(0, e.c.st.evictions);
	/* The device is back: the same write goes through. */
	e.fail = 0;
	ASSERT_EQ(0, adsm_fault(&e.c, &e.o, 4096, true, &w, &off, &len));
	EXPECT_TRUE(w);
	EXPECT_EQ(MCMGPU_ADSM_READONLY, adsm_state(&e.o, 0));
	EXPECT_EQ(MCMGPU_ADSM_DIRTY, adsm_state(&e.o, 1));
	EXPECT_EQ(1, e.c.fifo_len);
	EXPECT_EQ(1, e.c.st.evictions);
	/* A read of an Invalid block whose fetch fails stays Invalid. */
	ASSERT_EQ(0, adsm_release(&e.c));
	e.fail = -EIO;
	e.failed = 0;
	EXPECT_EQ(-EIO, adsm_fault(&e.c, &e.o, 0, false, &w, &off, &len));
	EXPECT_EQ(MCMGPU_ADSM_INVALID, adsm_state(&e.o, 0));
}

/*
 * A background eviction that fails puts its block back in the FIFO as
 * the oldest: the R bound is kept (the next fault sends it first).
 */
TEST(a_failed_background_eviction_keeps_the_bound)
{
	struct cell_env e;
	bool w;
	u64 off, len, b;

	cell_init(&e, MCMGPU_ADSM_ROLLING, 2, 32 * KiB);
	e.async_evict = true;
	for (b = 0; b < 3; b++)
		ASSERT_EQ(0, adsm_fault(&e.c, &e.o, b * 4096, true, &w, &off,
					&len));
	EXPECT_EQ(MCMGPU_ADSM_READONLY | MCMGPU_ADSM_EVICTING,
		  adsm_state(&e.o, 0));
	EXPECT_EQ(1, adsm_evicting(&e.c));
	adsm_evict_failed(&e.c, &e.o, 0);
	EXPECT_EQ(0, adsm_evicting(&e.c));
	EXPECT_EQ(MCMGPU_ADSM_DIRTY, adsm_state(&e.o, 0));
	EXPECT_EQ(3, e.c.fifo_len);
	EXPECT_EQ(cell_dirty(&e), e.c.fifo_len);
	/* The next Dirty block evicts down to R, the failed block first. */
	ASSERT_EQ(0, adsm_fault(&e.c, &e.o, 3 * 4096, true, &w, &off, &len));
	EXPECT_EQ(2, e.c.fifo_len);
	EXPECT_EQ(2, cell_dirty(&e));
	EXPECT_EQ(MCMGPU_ADSM_READONLY | MCMGPU_ADSM_EVICTING,
		  adsm_state(&e.o, 0));
	EXPECT_EQ(MCMGPU_ADSM_READONLY | MCMGPU_ADSM_EVICTING,
		  adsm_state(&e.o, 1));
	/* Every failure of a row: each comes back, none is lost. */
	adsm_evict_failed(&e.c, &e.o, 0);
	adsm_evict_failed(&e.c, &e.o, 1);
	EXPECT_EQ(4, cell_dirty(&e));
	EXPECT_EQ(4, e.c.fifo_len);
	ASSERT_EQ(0, adsm_fault(&e.c, &e.o, 4 * 4096, true, &w, &off, &len));
	EXPECT_EQ(2, cell_dirty(&e));
	EXPECT_EQ(2, e.c.fifo_len);
	for (b = 0; b < 3; b++)
		adsm_evict_done(&e.c, &e.o, b);
	ASSERT_EQ(0, adsm_release(&e.c));
	for (b = 0; b < 8; b++)
		EXPECT_EQ(MCMGPU_ADSM_INVALID, adsm_state(&e.o, b));
}

/*
 * Explicit copies keep the protocols' states (issue 32): Dirty units go
 * to the GPU first; a copy to the GPU invalidates the CPU's copy, and
 * batch's next launch does not send it over the copy.
 */
TEST(copies_keep_the_protocol_states)
{
	struct cell_env e;
	bool w;
	u64 off, len;

	/* Lazy: D goes H2D before a copy from the GPU, then R. */
	cell_init(&e, MCMGPU_ADSM_LAZY, 0, 8 * KiB);
	ASSERT_EQ(0, adsm_fault(&e.c, &e.o, 0, true, &w, &off, &len));
	ASSERT_EQ(0, adsm_copy_begin(&e.c, &e.o, 100, 4));
	EXPECT_EQ(1, e.xfers);
	EXPECT_EQ(ADSM_H2D, e.last_dir);
	EXPECT_EQ(8 * KiB, e.last_len);
	EXPECT_EQ(MCMGPU_ADSM_READONLY, adsm_state(&e.o, 0));
	/* A copy to the GPU: the CPU's copy Invalid, fetched on a read. */
	ASSERT_EQ(0, adsm_copy_begin(&e.c, &e.o, 0, 4));
	EXPECT_EQ(1, e.xfers);
	adsm_copy_to_gpu_done(&e.c, &e.o, 0, 4);
	EXPECT_EQ(MCMGPU_ADSM_INVALID, adsm_state(&e.o, 0));
	ASSERT_EQ(0, adsm_fault(&e.c, &e.o, 0, false, &w, &off, &len));
	EXPECT_EQ(2, e.xfers);
	EXPECT_EQ(ADSM_D2H, e.last_dir);

	/* Rolling: only the blocks in the range; they leave the FIFO. */
	cell_init(&e, MCMGPU_ADSM_ROLLING, 4, 20 * KiB);
	ASSERT_EQ(0, adsm_fault(&e.c, &e.o, 0, true, &w, &off, &len));
	ASSERT_EQ(0, adsm_fault(&e.c, &e.o, 8192, true, &w, &off, &len));
	ASSERT_EQ(0, adsm_copy_begin(&e.c, &e.o, 4000, 4000));
	EXPECT_EQ(1, e.xfers);
	EXPECT_EQ(0, e.last_off);
	EXPECT_EQ(MCMGPU_ADSM_READONLY, adsm_state(&e.o, 0));
	EXPECT_EQ(MCMGPU_ADSM_DIRTY, adsm_state(&e.o, 2));
	EXPECT_EQ(1, e.c.fifo_len);
	adsm_copy_to_gpu_done(&e.c, &e.o, 4000, 4000);
	EXPECT_EQ(MCMGPU_ADSM_INVALID, adsm_state(&e.o, 0));
	EXPECT_EQ(MCMGPU_ADSM_INVALID, adsm_state(&e.o, 1));
	EXPECT_EQ(MCMGPU_ADSM_DIRTY, adsm_state(&e.o, 2));
	EXPECT_EQ(MCMGPU_ADSM_READONLY, adsm_state(&e.o, 3));
	EXPECT_EQ(1, e.c.fifo_len);
	/* A read of a block the copy wrote fetches it. */
	ASSERT_EQ(0, adsm_fault(&e.c, &e.o, 4096, false, &w, &off, &len));
	EXPECT_EQ(2, e.xfers);
	EXPECT_EQ(ADSM_D2H, e.last_dir);

	/* Batch: D is sent first; after a copy to the GPU the launch skips it. */
	cell_init(&e, MCMGPU_ADSM_BATCH, 0, 8 * KiB);
	ASSERT_EQ(0, adsm_copy_begin(&e.c, &e.o, 0, 4));
	EXPECT_EQ(1, e.xfers);
	EXPECT_EQ(MCMGPU_ADSM_DIRTY, adsm_state(&e.o, 0));
	adsm_copy_to_gpu_done(&e.c, &e.o, 0, 4);
	EXPECT_EQ(MCMGPU_ADSM_INVALID, adsm_state(&e.o, 0));
	ASSERT_EQ(0, adsm_release(&e.c));
	EXPECT_EQ(1, e.xfers);
	ASSERT_EQ(0, adsm_acquire(&e.c));
	EXPECT_EQ(2, e.xfers);
	/* A copy to the GPU, then a touch: the object comes back first. */
	adsm_copy_to_gpu_done(&e.c, &e.o, 0, 4);
	ASSERT_EQ(0, adsm_fault(&e.c, &e.o, 0, true, &w, &off, &len));
	EXPECT_EQ(3, e.xfers);
	EXPECT_EQ(ADSM_D2H, e.last_dir);
	EXPECT_EQ(MCMGPU_ADSM_DIRTY, adsm_state(&e.o, 0));
}

/* The CPU's PTEs allow a write to byte off (Dirty, mapped). */
static bool cell_writable(struct cell_env *e, u64 off)
{
	return adsm_map(&e->o, adsm_unit_of(&e->o, off)) == ADSM_MAP_RW;
}

/*
 * One try of thread key's 8-byte store at off (split over two blocks):
 * it faults on the first half not writable, else it completes.
 */
static bool split_store_try(struct cell_env *e, const void *key, u64 ip,
			    u64 off)
{
	bool w;
	u64 uoff, ulen, at;

	at = !cell_writable(e, off) ? off :
	     !cell_writable(e, off + 4) ? off + 4 : ~0ULL;
	if (at == ~0ULL)
		return true;
	adsm_thread(&e->c, key, ip, at, false);
	if (adsm_fault(&e->c, &e->o, at, true, &w, &uoff, &ulen))
		return false;
	return false;
}

/*
 * Forward progress per thread (issue 32): with R = 1, two threads whose
 * split stores' faults alternate both complete, and the Dirty bound is
 * R plus the held pairs.
 */
TEST(split_stores_of_two_threads_complete_at_r1)
{
	static const int a, b;
	struct cell_env e;
	bool da = false, db = false;
	int step;

	cell_init(&e, MCMGPU_ADSM_ROLLING, 1, 32 * KiB);
	for (step = 0; step < 40 && !(da && db); step++) {
		if (!da)
			da = split_store_try(&e, &a, 100, 4096 - 4);
		if (!db)
			db = split_store_try(&e, &b, 200, 3 * 4096 - 4);
		EXPECT_GE(1 + 2 * 2, cell_dirty(&e));
	}
	EXPECT_TRUE(da);
	EXPECT_TRUE(db);
	EXPECT_GT(10, step);
	/* The launch drops the holds: every block Invalid, none held. */
	ASSERT_EQ(0, adsm_release(&e.c));
	EXPECT_EQ(0, e.c.held);
	EXPECT_EQ(0, e.state[0] & ADSM_HELD);
	/* A loop of stores to the next block is not a split store. */
	for (step = 0; step < 8; step++) {
		adsm_thread(&e.c, &a, 300, step * 4096, false);
		EXPECT_FALSE(e.c.thread->retried);
		e.c.thread = NULL;
	}
}

/* xorshift64 */
static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/*
 * A thread whose split store waits for its first half's eviction keeps
 * its second half held: other threads' faults meanwhile do not evict it,
 * so after the wait both halves are writable and the store completes.
 */
TEST(a_split_store_waiting_for_an_eviction_keeps_its_held_half)
{
	static const int a, b;
	struct cell_env e;
	u64 off, len, u;
	bool w;

	cell_init(&e, MCMGPU_ADSM_ROLLING, 1, 32 * KiB);
	e.async_evict = true;
	/* A's store at 4096 - 4: block 0 first. */
	adsm_thread(&e.c, &a, 100, 4096 - 4, false);
	ASSERT_EQ(0, adsm_fault(&e.c, &e.o, 4096 - 4, true, &w, &off, &len));
	/* B's new store evicts A's block 0 (beyond R = 1). */
	adsm_thread(&e.c, &b, 200, 5 * 4096 - 4, false);
	ASSERT_EQ(0, adsm_fault(&e.c, &e.o, 4 * 4096, true, &w, &off, &len));
	EXPECT_EQ(MCMGPU_ADSM_READONLY | MCMGPU_ADSM_EVICTING,
		  adsm_state(&e.o, 0));
	/* A's second half: held alone, its first is on its way out. */
	adsm_thread(&e.c, &a, 100, 4096, false);
	ASSERT_EQ(0, adsm_fault(&e.c, &e.o, 4096, true, &w, &off, &len));
	EXPECT_TRUE(e.state[1] & ADSM_HELD);
	/* A's next try: block 0 is still in flight, A waits ... */
	adsm_thread(&e.c, &a, 100, 4096 - 4, false);
	EXPECT_EQ(-EAGAIN, adsm_fault(&e.c, &e.o, 4096 - 4, true, &w, &off,
				      &len));
	EXPECT_TRUE(e.state[1] & ADSM_HELD);
	/* ... while B's next store evicts down to R: not A's held half. */
	adsm_thread(&e.c, &b, 300, 6 * 4096 + 8, false);
	ASSERT_EQ(0, adsm_fault(&e.c, &e.o, 6 * 4096 + 8, true, &w, &off,
				&len));
	EXPECT_EQ(MCMGPU_ADSM_DIRTY, adsm_state(&e.o, 1));
	EXPECT_TRUE(cell_writable(&e, 4096));
	/* The eviction lands; A's fault again: both halves writable. */
	for (u = 0; u < 8; u++)
		if (adsm_state(&e.o, u) & MCMGPU_ADSM_EVICTING)
			adsm_evict_done(&e.c, &e.o, u);
	adsm_thread(&e.c, &a, 100, 4096 - 4, true);
	ASSERT_EQ(0, adsm_fault(&e.c, &e.o, 4096 - 4, true, &w, &off, &len));
	EXPECT_TRUE(cell_writable(&e, 4096 - 4));
	EXPECT_TRUE(cell_writable(&e, 4096));
}

/*
 * Eight threads' split stores at R = 1 with evictions that take a while
 * to land (a DMA in flight), the threads' turns in a random order, and
 * either page of a store faulting first: every thread completes its
 * stores, on every seed.
 */
TEST(split_stores_of_eight_threads_complete_with_slow_evictions)
{
	enum { THREADS = 8, STORES = 40, SEEDS = 20 };
	static const char keys[THREADS];
	u64 seed;

	for (seed = 1; seed <= SEEDS; seed++) {
		u64 pending[64], done[THREADS] = { 0 }, step, total = 0;
		uint64_t r = seed * 0x9e3779b97f4a7c15ULL;
		bool waiting[THREADS] = { false };
		u32 npending = 0, land[64];
		struct cell_env e;

		cell_init(&e, MCMGPU_ADSM_ROLLING, 1, 64 * 4096);
		e.async_evict = true;
		for (step = 0; step < 200000 && total < THREADS * STORES;
		     step++) {
			/* Thread j's blocks 8j + 2k, 8j + 2k + 1 (k < 4). */
			int j = rnd(&r) % THREADS;
			u64 at, off = (8 * j + 1 + 2 * (done[j] % 4)) * 4096 - 4;
			u64 uoff, ulen, before = e.xfers;
			bool w;
			u32 i;
			int ret;

			/* An eviction lands 1-16 turns after it was issued. */
			for (i = 0; i < npending; i++) {
				if (--land[i])
					continue;
				adsm_evict_done(&e.c, &e.o, pending[i]);
				pending[i] = pending[--npending];
				land[i--] = land[npending];
			}
			if (done[j] == STORES)
				continue;
			/* Either page may fault first when neither allows it. */
			at = !cell_writable(&e, off) ? off :
			     !cell_writable(&e, off + 4) ? off + 4 : ~0ULL;
			if (at == off && !cell_writable(&e, off + 4) &&
			    rnd(&r) % 2)
				at = off + 4;
			if (at == ~0ULL) {
				done[j]++;
				total++;
				waiting[j] = false;
				continue;
			}
			if (waiting[j] && (adsm_state(&e.o, at >> 12) &
					   MCMGPU_ADSM_EVICTING))
				continue;
			adsm_thread(&e.c, &keys[j], 100 + j, at, waiting[j]);
			ret = adsm_fault(&e.c, &e.o, at, true, &w, &uoff,
					 &ulen);
			ASSERT_TRUE(ret == 0 || ret == -EAGAIN);
			waiting[j] = ret == -EAGAIN;
			for (i = 0; i < 64 && e.xfers > before; i++) {
				u32 k;

				if (!(adsm_state(&e.o, i) &
				      MCMGPU_ADSM_EVICTING))
					continue;
				for (k = 0; k < npending; k++)
					if (pending[k] == i)
						break;
				if (k == npending) {
					pending[npending] = i;
					land[npending++] = 1 + rnd(&r) % 16;
				}
			}
			ASSERT_GE(1 + 2 * THREADS, cell_dirty(&e));
		}
		TH_LOG("seed %llu: %llu stores in %llu turns",
		       (unsigned long long)seed, (unsigned long long)total,
		       (unsigned long long)step);
		ASSERT_EQ(THREADS * STORES, total);
	}
}

/* ---- random programs: one memory, whatever the protocol --------------- */

#define RND_OBJS	3
#define RND_BYTES	(40 * KiB)

/* Checks I3 and I5 on the core's state of every object. */
static void check_invariants(struct __test_metadata *_metadata,
			     struct adsm_rt *rt, struct adsm_buf *b)
{
	struct mcmgpu_adsm_stats st;
	uint64_t dirty = 0;
	int i;

	for (i = 0; i < RND_OBJS; i++) {
		struct adsm_obj *o = b[i].priv;	/* struct host_obj starts with it */
		uint64_t u;

		for (u = 0; u < o->units; u++) {
			u8 s = adsm_state(o, u), m = adsm_map(o, u);

			EXPECT_FALSE(s & MCMGPU_ADSM_EVICTING);
			if (s == MCMGPU_ADSM_INVALID) {
				EXPECT_EQ(ADSM_MAP_NONE, m);
			}
			if (s != MCMGPU_ADSM_DIRTY) {
				EXPECT_NE(ADSM_MAP_RW, m);
			}
			dirty += s == MCMGPU_ADSM_DIRTY;
		}
	}
	rt->ops->stats(rt, &st);
	if (rt->protocol == MCMGPU_ADSM_ROLLING) {
		EXPECT_GE(st.rolling, dirty);
	}
}

static void random_program(struct __test_metadata *_metadata, uint32_t proto,
			   uint64_t block, uint32_t rolling, uint64_t seed,
			   uint8_t *final)
{
	struct adsm_rt *rt = adsm_host_new(proto, block, rolling, 4);
	struct adsm_buf b[RND_OBJS];
	uint8_t ref[RND_OBJS][RND_BYTES], buf[RND_BYTES];
	uint64_t s = seed, step;
	int i;

	ASSERT_NE(NULL, rt);
	memset(ref, 0, sizeof(ref));
	for (i = 0; i < RND_OBJS; i++)
		ASSERT_EQ(0, rt->ops->alloc(rt, RND_BYTES, &b[i]));
	for (step = 0; step < 400; step++) {
		int o = rnd(&s) % RND_OBJS, op = rnd(&s) % 10;
		uint64_t off = rnd(&s) % RND_BYTES;
		uint64_t len = 1 + rnd(&s) % (RND_BYTES - off);

		if (op < 4) {		/* CPU write, unaligned */
			for (i = 0; i < (int)len; i++)
				buf[i] = rnd(&s);
			ASSERT_EQ(0, rt->ops->cpu_write(rt, &b[o], off, buf, len));
			memcpy(ref[o] + off, buf, len);
		} else if (op < 7) {	/* CPU read */
			ASSERT_EQ(0, rt->ops->cpu_read(rt, &b[o], off, buf, len));
			EXPECT_EQ(0, memcmp(buf, ref[o] + off, len))
				TH_LOG("%s step %llu", adsm_protocol_name(proto),
				       (unsigned long long)step);
		} else {		/* a kernel, then the sync */
			struct mcmgpu_adsm_kernel k = { .n = RND_BYTES / 4 };
			struct mcmgpu_adsm_kernel_result res;
			int src = (o + 1) % RND_OBJS;
			uint32_t *d = (uint32_t *)ref[o], *sv = (uint32_t *)ref[src];
			uint64_t e;

			if (op == 7) {
				k.kernel = MCMGPU_ADSM_K_SCALE_ADD;
				k.va[0] = b[o].gpu_va;
				k.s[0] = 3;
				k.s[1] = step;
				for (e = 0; e < k.n; e++)
					d[e] = d[e] * 3 + (uint32_t)step;
			} else if (op == 8) {
				k.kernel = MCMGPU_ADSM_K_COPY;
				k.va[0] = b[o].gpu_va;
				k.va[1] = b[src].gpu_va;
				memcpy(d, sv, RND_BYTES);
			} else {
				uint32_t x;

				k.kernel = MCMGPU_ADSM_K_ADD_ELEMENT;
				k.va[0] = b[o].gpu_va;
				k.va[1] = b[src].gpu_va;
				k.s[0] = rnd(&s) % k.n;
				x = sv[k.s[0]];
				for (e = 0; e < k.n; e++)
					d[e] += x;
			}
			ASSERT_EQ(0, rt->ops->launch(rt, &k)) TH_LOG("%s", rt->err);
			ASSERT_EQ(0, rt->ops->sync(rt, &res));
		}
		check_invariants(_metadata, rt, b);
	}
	for (i = 0; i < RND_OBJS; i++) {
		ASSERT_EQ(0, rt->ops->cpu_read(rt, &b[i], 0, final + i * RND_BYTES,
					       RND_BYTES));
		EXPECT_EQ(0, memcmp(final + i * RND_BYTES, ref[i], RND_BYTES));
	}
	for (i = 0; i < RND_OBJS; i++)
		rt->ops->free(rt, &b[i]);
	adsm_host_free(rt);
}

TEST(random_programs_leave_one_memory_under_every_protocol)
{
	static const uint64_t blocks[] = { 4 * KiB, 8 * KiB, 32 * KiB };
	static const uint32_t rollings[] = { 0, 1, 2, 5 };
	uint8_t *first = malloc(RND_OBJS * RND_BYTES);
	uint8_t *other = malloc(RND_OBJS * RND_BYTES);
	uint64_t seed;
	uint32_t bi, ri;

	ASSERT_NE(NULL, first);
	ASSERT_NE(NULL, other);
	for (seed = 1; seed <= 6; seed++) {
		random_program(_metadata, MCMGPU_ADSM_BATCH, 4096, 0, seed, first);
		random_program(_metadata, MCMGPU_ADSM_LAZY, 4096, 0, seed, other);
		EXPECT_EQ(0, memcmp(first, other, RND_OBJS * RND_BYTES));
		for (bi = 0; bi < 3; bi++) {
			for (ri = 0; ri < 4; ri++) {
				random_program(_metadata, MCMGPU_ADSM_ROLLING,
					       blocks[bi], rollings[ri], seed,
					       other);
				EXPECT_EQ(0, memcmp(first, other,
						    RND_OBJS * RND_BYTES));
			}
		}
	}
	free(first);
	free(other);
}

/* ---- the kernels ----------------------------------------------------- */

struct flat {
	uint8_t mem[64 * KiB];
};

static int flat_read(void *priv, u64 va, void *buf, u32 len)
{
	struct flat *f = priv;

	if (va < 4096 || va + len > sizeof(f->mem))
		return -EFAULT;
	memcpy(buf, f->mem + va, len);
	return 0;
}

static int flat_write(void *priv, u64 va, const void *buf, u32 len)
{
	struct flat *f = priv;

	if (va < 4096 || va + len > sizeof(f->mem))
		return -EFAULT;
	memcpy(f->mem + va, buf, len);
	return 0;
}

static const struct adsm_mem_ops flat_ops = { flat_read, flat_write };

TEST(kernels_compute_and_refuse_by_field)
{
	static struct flat f;
	struct mcmgpu_adsm_kernel_result res;
	struct mcmgpu_record_error err;
	uint32_t *a = (uint32_t *)(f.mem + 4096), *b = (uint32_t *)(f.mem + 8192);
	uint32_t *c = (uint32_t *)(f.mem + 12288), want[1024];
	struct mcmgpu_adsm_kernel k = {
		.kernel = MCMGPU_ADSM_K_VADD, .n = 1000,
		.va = { 12288, 4096, 8192 },
	};
	int i;

	for (i = 0; i < 1024; i++) {
		a[i] = i * 7;
		b[i] = 0xfffffff0u + i;
		want[i] = a[i] + b[i];
	}
	ASSERT_EQ(0, adsm_kernel_check(&k, 4, &err));
	ASSERT_EQ(0, adsm_kernel_run(&k, 4, &flat_ops, &f, &res));
	EXPECT_EQ(0, memcmp(c, want, 1000 * 4));
	EXPECT_EQ(0, c[1000]);
	EXPECT_EQ(250 * 3, res.cycles);	/* 1000 / 4 chiplets, 3 accesses */
	EXPECT_EQ(8000, res.bytes_read);
	EXPECT_EQ(4000, res.bytes_written);

	/* saxpy in place on c: c = 3 * a + c. */
	k = (struct mcmgpu_adsm_kernel){ .kernel = MCMGPU_ADSM_K_SAXPY,
		.n = 1000, .va = { 12288, 4096 }, .s = { 3 } };
	ASSERT_EQ(0, adsm_kernel_check(&k, 4, &err));
	ASSERT_EQ(0, adsm_kernel_run(&k, 4, &flat_ops, &f, &res));
	for (i = 0; i < 1000; i++)
		EXPECT_EQ(3 * a[i] + want[i], c[i]);
	/* fill and copy. */
	k = (struct mcmgpu_adsm_kernel){ .kernel = MCMGPU_ADSM_K_FILL,
		.n = 10, .va = { 12288 }, .s = { 77 } };
	ASSERT_EQ(0, adsm_kernel_run(&k, 4, &flat_ops, &f, &res));
	EXPECT_EQ(77, c[9]);
	EXPECT_NE(77, c[10]);
	k = (struct mcmgpu_adsm_kernel){ .kernel = MCMGPU_ADSM_K_COPY,
		.n = 10, .va = { 8192, 12288 } };
	ASSERT_EQ(0, adsm_kernel_run(&k, 4, &flat_ops, &f, &res));
	EXPECT_EQ(77, b[0]);

	/* A 3x3 stencil: only the centre is averaged. */
	memset(f.mem, 0, sizeof(f.mem));
	for (i = 0; i < 9; i++)
		a[i] = i * 10;
	k = (struct mcmgpu_adsm_kernel){ .kernel = MCMGPU_ADSM_K_STENCIL2D,
		.n = 9, .va = { 8192, 4096 }, .width = 3, .height = 3 };
	ASSERT_EQ(0, adsm_kernel_check(&k, 4, &err));
	ASSERT_EQ(0, adsm_kernel_run(&k, 4, &flat_ops, &f, &res));
	for (i = 0; i < 9; i++)
		EXPECT_EQ(i == 4 ? (40 + 30 + 50 + 10 + 70) / 5 : i * 10, b[i]);

	/* Refusals name their field. */
	k.va[1] = 8192 + 8;
	EXPECT_EQ(-EINVAL, adsm_kernel_check(&k, 4, &err));
	EXPECT_EQ(2, err.index);
	EXPECT_NE(NULL, strstr(err.what, "overlaps"));
	k = (struct mcmgpu_adsm_kernel){ .kernel = MCMGPU_ADSM_K_FILL, .n = 4,
		.va = { 4098 } };
	EXPECT_EQ(-EINVAL, adsm_kernel_check(&k, 4, &err));
	EXPECT_NE(NULL, strstr(err.what, "aligned"));
	k.va[0] = 4096;
	k.va[1] = 8192;
	EXPECT_EQ(-EINVAL, adsm_kernel_check(&k, 4, &err));
	EXPECT_EQ(2, err.index);
	k.va[1] = 0;
	k.chiplet_mask = 1 << 4;
	EXPECT_EQ(-EINVAL, adsm_kernel_check(&k, 4, &err));
	EXPECT_NE(NULL, strstr(err.what, "chiplet_mask"));
	k.chiplet_mask = 0;
	k.n = 0;
	EXPECT_EQ(-EINVAL, adsm_kernel_check(&k, 4, &err));
	k.n = 4;
	k.kernel = 99;
	EXPECT_EQ(-EINVAL, adsm_kernel_check(&k, 4, &err));
	/* An address that does not translate stops the kernel with it. */
	k = (struct mcmgpu_adsm_kernel){ .kernel = MCMGPU_ADSM_K_COPY, .n = 8,
		.va = { 4096, 0 } };
	ASSERT_EQ(0, adsm_kernel_check(&k, 4, &err));
	EXPECT_EQ(-EFAULT, adsm_kernel_run(&k, 4, &flat_ops, &f, &res));
	EXPECT_EQ(2, res.error.index);
}

TEST_HARNESS_MAIN
