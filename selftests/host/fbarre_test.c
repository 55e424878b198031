// SPDX-License-Identifier: GPL-2.0
/*
 * Host tests of F-Barre's in-package translation (qemu-device/model/fbarre.c)
 * and its place in the chiplets' model (qemu-device/model/chiplet_tlb.c): the
 * cuckoo filter, the Fig 12 walkthrough as exact steps, shootdown, and
 * randomized replays where every translation made in the package is
 * checked against the true walk, with filter messages lost.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"
#include "../lib/mcmgpu_test.h"
#include "../lib/barre_identities.h"
#include "../../drivers/mcmgpu/gpu_alloc.h"
#include "chiplet_tlb.h"
#include "barre_replay.h"

/* ---- The cuckoo filter ------------------------------------------------- */

/*
 * 1024 fingerprints fit 256 rows x 4 ways (no false negative while they
 * fit); deleting removes exactly one copy; the false-positive rate of a
 * full filter stays near 2 x 4 / 2^9 = 1.56 %.
 */
TEST(cuckoo_filter_holds_deletes_and_rarely_lies)
{
	static struct fbarre_filter f;
	u64 seed = 3, keys[1000], i, fp = 0, probes = 200000;
	u32 rows;

	for (rows = 256; rows <= 1024; rows *= 2) {
		u32 n = rows == 256 ? 900 : 1000;

		fbarre_filter_clear(&f);
		for (i = 0; i < n; i++) {
			keys[i] = mt_xorshift64(&seed) & ((1ULL << 36) - 1);
			ASSERT_TRUE(fbarre_filter_add(&f, rows, keys[i]));
		}
		for (i = 0; i < n; i++)
			ASSERT_TRUE(fbarre_filter_has(&f, rows, keys[i]));
		/* A multiset: two copies need two deletes. */
		ASSERT_TRUE(fbarre_filter_add(&f, rows, keys[0]));
		ASSERT_TRUE(fbarre_filter_del(&f, rows, keys[0]));
		ASSERT_TRUE(fbarre_filter_has(&f, rows, keys[0]));
		if (rows == 256) {
			for (fp = 0, i = 0; i < probes; i++)
				fp += fbarre_filter_has(&f, rows, (1ULL << 40) + i);
			TH_LOG("256 rows, %u items: %.2f %% false positives", n,
			       100.0 * fp / probes);
			EXPECT_LT(fp, probes * 3 / 100);
			EXPECT_GT(fp, probes / 200);
		}
		for (i = 0; i < n; i++)
			ASSERT_TRUE(fbarre_filter_del(&f, rows, keys[i]));
		for (i = 0; i < rows; i++) {
			u32 w;

			for (w = 0; w < FBARRE_WAYS; w++)
				ASSERT_EQ(0, f.slot[i][w]);
		}
	}
}

/* ---- Fig 12 ----------------------------------------------------------- */

/* A two-chiplet TLB: entries[c] holds at most 4 (vpn, pte). */
struct tiny_tlb {
	u64 vpn[2][4], pte[2][4];
	u32 n[2];
	u32 reads;
};

static u64 tiny_read(void *priv, u32 c, u64 vpn)
{
	struct tiny_tlb *t = priv;
	u32 i;

	t->reads++;
	for (i = 0; i < t->n[c]; i++)
		if (t->vpn[c][i] == vpn)
			return t->pte[c][i];
	return 0;
}

static u64 grouped_pte(u64 pfn, u32 bitmap, u32 pos)
{
	return MCMGPU_PTE_VALID | MCMGPU_PTE_READ | MCMGPU_PTE_WRITE |
	       FIELD_PREP(MCMGPU_PTE_PFN_MASK, pfn) |
	       FIELD_PREP(MCMGPU_PTE_COAL_BITMAP_MASK, bitmap) |
	       FIELD_PREP(MCMGPU_PTE_COAL_POS_MASK, pos);
}

/*
 * GPU0 and GPU1 share the group {0xA1, 0xA2} (g = 1, local frame 0x33).
 * 0-2: 0xA1's ATS response reaches GPU0 at cycle 100: LCF0 gains 0xA1,
 * and two messages give GPU1's RCF0 0xA1 and 0xA2 32 cycles later (a miss
 * before then goes to the IOMMU). 3: GPU1 misses 0xA2, RCF0 hits.
 * 4-7: GPU0 computes 0xA2's coalescing VPNs, its LCF hits 0xA1, it reads
 * that entry and computes 0xA2's PFN. 8: GPU1 has it, 75 cycles later.
 */
TEST(fig12_remote_hit_walkthrough)
{
	const struct fbarre_config cfg = { .sharing = true, .rows = 256, .run = 1 };
	const struct mcmgpu_pec_entry e = {
		.start_vpn = 0xA1, .end_vpn = 0xA2, .g = 1, .nmap = 2,
		.map = { 0, 1 }, .valid = 1,
	};
	static struct fbarre_state f;
	struct mcmgpu_pec_entry bad;
	struct tiny_tlb t = { 0 };
	struct fbarre_result res;
	const u64 frames = 0x1000;

	ASSERT_EQ(0, fbarre_init(&f, &cfg, 2, frames));
	ASSERT_TRUE(fbarre_pec_add(&f, 0, &e));
	t.vpn[0][0] = 0xA1;
	t.pte[0][0] = grouped_pte(0x33, 0x3, 0);
	t.n[0] = 1;
	fbarre_tlb_update(&f, 0, 0xA1, t.pte[0][0], true, 100);
	EXPECT_EQ(2, f.stats.filter_messages);
	EXPECT_TRUE(fbarre_filter_has(&f.chip[0].filter[0], 256, 0xA1));
	EXPECT_FALSE(fbarre_filter_has(&f.chip[0].filter[0], 256, 0xA2));
	fbarre_lookup(&f, 1, 0xA2, 131, tiny_read, &t, &res);
	EXPECT_FALSE(res.hit);
	EXPECT_EQ(0, res.latency);
	EXPECT_EQ(0, f.stats.remote_requests);
	EXPECT_FALSE(fbarre_filter_has(&f.chip[1].filter[0], 256, 0xA2));

	fbarre_lookup(&f, 1, 0xA2, 132, tiny_read, &t, &res);
	EXPECT_TRUE(fbarre_filter_has(&f.chip[1].filter[0], 256, 0xA1));
	EXPECT_TRUE(fbarre_filter_has(&f.chip[1].filter[0], 256, 0xA2));
	ASSERT_TRUE(res.hit);
	EXPECT_EQ(frames + 0x33, MCMGPU_PTE_PFN(res.pte));
	EXPECT_EQ(1, MCMGPU_PTE_COAL_POS(res.pte));
	EXPECT_EQ(0x3, MCMGPU_PTE_COAL_BITMAP(res.pte));
	EXPECT_TRUE(res.pte & MCMGPU_PTE_WRITE);
	EXPECT_EQ(2 * MCMGPU_FBARRE_LINK_CYCLES + MCMGPU_BARRE_L2_CYCLES +
		  FBARRE_PEC_CYCLES, res.latency);
	EXPECT_EQ(0, f.stats.local_hits);
	EXPECT_EQ(1, f.stats.remote_requests);
	EXPECT_EQ(1, f.stats.remote_hits);
	EXPECT_EQ(1, f.stats.lcf_hits);
	EXPECT_EQ(1, f.stats.lcf_true_positives);

	/* GPU0 itself misses 0xA2: local coalescing, one TLB read, no traffic. */
	fbarre_lookup(&f, 0, 0xA2, 200, tiny_read, &t, &res);
	ASSERT_TRUE(res.hit);
	EXPECT_EQ(frames + 0x33, MCMGPU_PTE_PFN(res.pte));
	EXPECT_EQ(MCMGPU_BARRE_L2_CYCLES + FBARRE_PEC_CYCLES, res.latency);
	EXPECT_EQ(1, f.stats.local_hits);

	/* The entry is gone but the filters still say yes: verified, refused. */
	t.n[0] = 0;
	fbarre_lookup(&f, 1, 0xA2, 300, tiny_read, &t, &res);
	EXPECT_FALSE(res.hit);
	EXPECT_EQ(1, f.stats.remote_false_positives);
	EXPECT_EQ(2 * MCMGPU_FBARRE_LINK_CYCLES + MCMGPU_BARRE_L2_CYCLES,
		  res.latency);
	/* An entry whose fields say "not grouped" is no source either. */
	t.pte[0][0] = grouped_pte(0x33, 0x1, 0);
	t.n[0] = 1;
	fbarre_lookup(&f, 1, 0xA2, 301, tiny_read, &t, &res);
	EXPECT_FALSE(res.hit);

	/* Evicting 0xA1 deletes it from LCF0 and both VPNs from RCF0. */
	t.pte[0][0] = grouped_pte(0x33, 0x3, 0);
	fbarre_tlb_update(&f, 0, 0xA1, t.pte[0][0], false, 400);
	EXPECT_FALSE(fbarre_filter_has(&f.chip[0].filter[0], 256, 0xA1));
	fbarre_lookup(&f, 1, 0xA7, 432, tiny_read, &t, &res);
	EXPECT_FALSE(fbarre_filter_has(&f.chip[1].filter[0], 256, 0xA2));
	EXPECT_EQ(4, f.stats.filter_messages);

	/* A PEC entry naming a chiplet twice or one not there is refused. */
	bad = e;
	bad.map[1] = 0;
	EXPECT_FALSE(fbarre_pec_add(&f, 1, &bad));
	bad.map[1] = 2;
	EXPECT_FALSE(fbarre_pec_add(&f, 1, &bad));
	bad = e;
	bad.g = 0;
	EXPECT_FALSE(fbarre_pec_add(&f, 1, &bad));
}

/* The expanded group of notes §3.2, looked up locally with merge 2. */
TEST(local_coalescing_in_an_expanded_group)
{
	const struct fbarre_config cfg = { .sharing = true, .rows = 256, .run = 2 };
	const struct mcmgpu_pec_entry e = {
		.start_vpn = 0x100, .end_vpn = 0x10F, .g = 4, .nmap = 4,
		.map = { 0, 1, 2, 3 }, .valid = 1,
	};
	static struct fbarre_state f;
	struct tiny_tlb t = { 0 };
	struct fbarre_result res;
	const u64 frames = 0x1000;
	u64 pte = grouped_pte(frames + 0x201, 0xf, 1) |
		  FIELD_PREP(MCMGPU_PTE_COAL_INTRA_MASK, 1) |
		  FIELD_PREP(MCMGPU_PTE_COAL_MERGED_MASK, 1);

	ASSERT_EQ(0, fbarre_init(&f, &cfg, 2, frames));
	f.chiplets = 4;
	f.base[2] = 2 * frames;
	f.base[3] = 3 * frames;
	ASSERT_TRUE(fbarre_pec_add(&f, 0, &e));
	t.vpn[0][0] = 0x105;
	t.pte[0][0] = pte;
	t.n[0] = 1;
	fbarre_tlb_update(&f, 0, 0x105, pte, true, 0);
	/* 3 peers x 8 VPNs of the group. */
	EXPECT_EQ(24, f.stats.filter_messages);
	fbarre_lookup(&f, 0, 0x10C, 1, tiny_read, &t, &res);
	ASSERT_TRUE(res.hit);
	EXPECT_EQ(3 * frames + 0x200, MCMGPU_PTE_PFN(res.pte));
	EXPECT_EQ(0, MCMGPU_PTE_COAL_INTRA(res.pte));
	EXPECT_EQ(3, MCMGPU_PTE_COAL_POS(res.pte));
	fbarre_lookup(&f, 0, 0x10E, 2, tiny_read, &t, &res);
	EXPECT_FALSE(res.hit);
	fbarre_lookup(&f, 0, 0x100, 3, tiny_read, &t, &res);
	ASSERT_TRUE(res.hit);
	EXPECT_EQ(0x200, MCMGPU_PTE_PFN(res.pte));
}

/* ---- The chiplets' model ---------------------------------------------- */

static void no_request(void *priv, const struct chiplet_tlb_request *r)
{
	(void)priv;
	(void)r;
}

/* A shootdown leaves no filter fingerprint and no chiplet PEC entry. */
TEST(shootdown_empties_filters_and_pec_buffers)
{
	static struct chiplet_tlbs d;
	static struct chiplet_tlb_reply replies[4 * MCMGPU_BARRE_MSHRS];
	const struct fbarre_config cfg = { .sharing = true, .rows = 512, .run = 2 };
	const struct mcmgpu_pec_entry e = {
		.start_vpn = 0x100, .end_vpn = 0x1ff, .g = 8, .nmap = 4,
		.map = { 0, 1, 2, 3 }, .valid = 1,
	};
	u32 c, j, r, w;

	chiplet_tlb_init(&d, 4, replies, no_request, NULL, NULL);
	ASSERT_EQ(0, chiplet_tlb_fbarre(&d, &cfg, 0x1000, NULL));
	for (c = 0; c < 4; c++) {
		ASSERT_TRUE(fbarre_pec_add(&d.fb, c, &e));
		fbarre_tlb_update(&d.fb, c, 0x100 + 8 * c,
			      grouped_pte(c * 0x1000 + 7, 0xf, c), true, 0);
	}
	fbarre_tlb_update(&d.fb, 0, 0x1f0, grouped_pte(7, 0, 0), true, 100);
	EXPECT_TRUE(fbarre_filter_has(&d.fb.chip[1].filter[0], 512, 0x108));
	EXPECT_LT(0, d.fb.msg_count);	/* the last updates are on the way */
	chiplet_tlb_shootdown(&d);
	for (c = 0; c < 4; c++) {
		for (j = 0; j < 4; j++)
			for (r = 0; r < 512; r++)
				for (w = 0; w < FBARRE_WAYS; w++)
					ASSERT_EQ(0, d.fb.chip[c].filter[j].slot[r][w]);
		for (j = 0; j < MCMGPU_BARRE_PEC_ENTRIES; j++)
			ASSERT_FALSE(d.fb.chip[c].pec[j].valid);
	}
	EXPECT_EQ(0, d.fb.msg_count);
}

static u32 sent_n;
static u64 sent_tag[8];

static void record_request(void *priv, const struct chiplet_tlb_request *r)
{
	(void)priv;
	if (sent_n < 8)
		sent_tag[sent_n] = r->tag;
	sent_n++;
}

static struct chiplet_tlbs sd_dev;
static struct chiplet_tlb_reply sd_replies[2 * MCMGPU_BARRE_MSHRS];
static struct chiplet_tlb_reply sd_reply;

/*
 * 0x100 from chiplet 0 through the IOMMU (its group and object come with
 * it), then 0x101 from chiplet `chiplet`, answered in the package from
 * 0x100's entry and not yet arrived: the state a shootdown then overtakes.
 */
static void shootdown_setup(struct __test_metadata *_metadata, u32 chiplet)
{
	const struct fbarre_config cfg = { .sharing = true, .rows = 256, .run = 1 };
	struct chiplet_tlbs *d = &sd_dev;
	/* The device keeps pointing at the phase's accesses: not on the stack. */
	static struct chiplet_tlb_access acc[2];
	static u32 order[2];

	acc[0] = (struct chiplet_tlb_access){ .vpn = 0x100, .chiplet = 0 };
	acc[1] = (struct chiplet_tlb_access){ .vpn = 0x101, .chiplet = chiplet };

	sd_reply = (struct chiplet_tlb_reply){
		.pfn = 0x33, .coal = grouped_pte(0, 0x3, 0) & MCMGPU_PTE_COAL_MASK,
		.pec = { .start_vpn = 0x100, .end_vpn = 0x101, .g = 1, .nmap = 2,
			 .map = { 0, 1 }, .valid = 1 },
		.writable = 1,
	};
	sent_n = 0;
	chiplet_tlb_init(d, 2, sd_replies, record_request, NULL, NULL);
	ASSERT_EQ(0, chiplet_tlb_fbarre(d, &cfg, 0x1000, NULL));
	chiplet_tlb_phase(d, &acc[0], 1, order);
	chiplet_tlb_run(d, 100);
	ASSERT_EQ(1, sent_n);
	sd_reply.tag = sent_tag[0];
	sd_reply.arrive = 500;
	ASSERT_EQ(0, chiplet_tlb_deliver(d, &sd_reply));
	chiplet_tlb_run(d, 1000);		/* the filter messages are there by 532 */
	ASSERT_TRUE(chiplet_tlb_done(d));
	chiplet_tlb_phase(d, &acc[1], 1, order);
	chiplet_tlb_run(d, d->now + 1);
	EXPECT_EQ(1, sent_n);
}

/*
 * The shootdown: 0x101 goes to the IOMMU after all (*st: the counters
 * then), and its answer completes the phase; the identities hold at both.
 */
static void shootdown_then_answer(struct __test_metadata *_metadata,
				  struct mcmgpu_barre_stats *st)
{
	struct chiplet_tlbs *d = &sd_dev;
	struct mcmgpu_barre_stats end;

	chiplet_tlb_shootdown(d);
	chiplet_tlb_run(d, d->now + 1000);
	ASSERT_EQ(2, sent_n);
	EXPECT_FALSE(chiplet_tlb_done(d));
	chiplet_tlb_export_stats(d, st);
	EXPECT_EQ(2, st->ats_requests_sent);
	EXPECT_BARRE_DEVICE_IDENTITIES(st);
	sd_reply.tag = sent_tag[1];
	sd_reply.arrive = d->now + 10;
	sd_reply.pfn = 0x1033;
	ASSERT_EQ(0, chiplet_tlb_deliver(d, &sd_reply));
	chiplet_tlb_run(d, d->now + 1000);
	EXPECT_TRUE(chiplet_tlb_done(d));
	chiplet_tlb_export_stats(d, &end);
	EXPECT_BARRE_DEVICE_IDENTITIES(&end);
}

/*
 * A translation computed in the package but not yet arrived when a
 * shootdown comes is stale: the miss asks the IOMMU instead, and counts
 * as an ATS request, not as a local hit.
 */
TEST(shootdown_sends_pending_in_package_answers_to_the_iommu)
{
	struct mcmgpu_barre_stats st = { 0 };

	shootdown_setup(_metadata, 0);
	EXPECT_EQ(1, sd_dev.fb.stats.local_hits);
	shootdown_then_answer(_metadata, &st);
	EXPECT_EQ(0, st.local_hits);
}

/*
 * The same with a peer's answer: chiplet 1 misses 0x101, its RCF of
 * chiplet 0 hits, chiplet 0 computes it from 0x100's entry, and a
 * shootdown overtakes the answer. The peer request leaves the counts
 * with its hit: remote_requests = remote_hits + remote_false_positives.
 */
TEST(shootdown_sends_pending_peer_answers_to_the_iommu)
{
	struct mcmgpu_barre_stats st = { 0 };

	shootdown_setup(_metadata, 1);
	EXPECT_EQ(1, sd_dev.fb.stats.remote_requests);
	EXPECT_EQ(1, sd_dev.fb.stats.remote_hits);
	shootdown_then_answer(_metadata, &st);
	EXPECT_EQ(0, st.remote_hits);
	EXPECT_EQ(0, st.remote_requests);
}

/* ---- Randomized replays ----------------------------------------------- */

/*
 * A random trace: objects of random size, g and policy, accesses from
 * every chiplet (reuse, sweeps, scatter, writes), frees and new objects
 * on the freed frames.
 */
static char *random_trace(u64 *seed, u32 chiplets)
{
	size_t cap = 1 << 22, len = 0;
	char *s = malloc(cap);
	u32 id, live[8] = { 0 }, pages[8] = { 0 }, i, next = 1, a;

	for (id = 0; id < 4; id++) {
		pages[id] = 16 + mt_xorshift64(seed) % 600;
		live[id] = next++;
		len += snprintf(s + len, cap - len,
				"alloc %u %u policy=chunk g=%u\n", live[id],
				pages[id] * 4096, 1 + (u32)(mt_xorshift64(seed) % 16));
	}
	for (i = 0; i < 6; i++) {
		for (a = 0; a < 1500; a++) {
			u32 o = mt_xorshift64(seed) % 4;
			u32 c = mt_xorshift64(seed) % chiplets;
			u32 pg = mt_xorshift64(seed) % 3 ?
				 (a / 3 + c * pages[o] / chiplets) % pages[o] :
				 mt_xorshift64(seed) % pages[o];

			len += snprintf(s + len, cap - len, "access %u %u %u %s\n",
					c, live[o], pg * 4096 + (a % 512) * 8,
					mt_xorshift64(seed) & 1 ? "w" : "r");
		}
		/* Free one and allocate another on its frames. */
		id = mt_xorshift64(seed) % 4;
		len += snprintf(s + len, cap - len, "free %u\n", live[id]);
		pages[id] = 16 + mt_xorshift64(seed) % 600;
		live[id] = next++;
		len += snprintf(s + len, cap - len,
				"alloc %u %u policy=%s g=%u\n", live[id],
				pages[id] * 4096,
				mt_xorshift64(seed) % 3 ? "chunk" : "rr",
				1 + (u32)(mt_xorshift64(seed) % 16));
	}
	return s;
}

/*
 * Every in-package translation equals the true walk (the replay checks
 * each against gpu_alloc_pte_get), with 0..100 % of filter messages lost, every
 * merge and filter size; misses add up; message loss costs only lookups.
 */
TEST(random_replays_translate_in_package_as_the_walk)
{
	static const u32 drops[] = { 0, 100000, 500000, 1000000 };
	static const u32 merges[] = { 1, 2, 4 };
	u64 seed = 0xfba22e;
	int iter;

	for (iter = 0; iter < 12; iter++) {
		struct barre_replay_cfg cfg = {
			.chiplets = iter % 3 == 2 ? 2 : 4, .frames = 4096,
			.barre = true, .walkers = 1 + iter % 16, .shadow = true,
			.sharing = true, .sched_moves = 1 + iter % 4,
			.merge = merges[iter % 3],
			.filter_rows = 256 << (iter % 3),
			.drop_ppm = drops[iter % 4],
		};
		struct mcmgpu_barre_stats st;
		struct barre_trace t = { 0 };
		char err[256], *text = random_trace(&seed, cfg.chiplets);

		ASSERT_EQ(0, barre_trace_parse(text, strlen(text), &t, err,
					       sizeof(err))) TH_LOG("%s", err);
		ASSERT_EQ(0, barre_replay_host(&t, &cfg, &st, err, sizeof(err)))
			TH_LOG("%s", err);
		EXPECT_EQ(0, st.inpackage_mismatches);
		EXPECT_EQ(0, st.shadow_mismatches);
		EXPECT_EQ(0, st.access_faults);
		EXPECT_EQ(0, st.translation_faults);
		EXPECT_BARRE_IDENTITIES(&st);
		EXPECT_LT(0, st.local_hits + st.remote_hits);
		if (cfg.drop_ppm == 1000000) {
			EXPECT_EQ(st.filter_messages, st.filter_messages_dropped);
			EXPECT_EQ(0, st.remote_requests);
		}
		TH_LOG("merge %u drop %u ppm: %llu misses, %llu local, %llu "
		       "remote of %llu asked, %llu ATS", cfg.merge, cfg.drop_ppm,
		       (unsigned long long)st.l2_misses,
		       (unsigned long long)st.local_hits,
		       (unsigned long long)st.remote_hits,
		       (unsigned long long)st.remote_requests,
		       (unsigned long long)st.ats_requests_sent);
		barre_trace_free(&t);
		free(text);
	}
}

/* Sharing off is plain Barre: the same counters as before F-Barre. */
TEST(sharing_off_changes_nothing)
{
	u64 seed = 11;
	char err[256], *text = random_trace(&seed, 4);
	struct barre_replay_cfg cfg = { .chiplets = 4, .frames = 4096,
				      .barre = true, .walkers = 16 };
	struct mcmgpu_barre_stats st;
	struct barre_trace t = { 0 };

	ASSERT_EQ(0, barre_trace_parse(text, strlen(text), &t, err, sizeof(err)));
	ASSERT_EQ(0, barre_replay_host(&t, &cfg, &st, err, sizeof(err)));
	EXPECT_EQ(st.l2_misses, st.ats_requests);
	EXPECT_EQ(0, st.inpackage_lookups + st.filter_messages + st.sched_moves);
	barre_trace_free(&t);
	free(text);
}

TEST_HARNESS_MAIN
