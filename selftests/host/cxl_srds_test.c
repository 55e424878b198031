// SPDX-License-Identifier: GPL-2.0
/*
 * Host tests of the SR/DS core (qemu-device/model/cxl_srds.c): what goes in
 * comes out (every load and store completes, every staged store is
 * flushed, hits + misses = the loads the SSD served), replays are
 * deterministic, each mechanism moves its counters the way the paper says
 * it works, and bad records are refused by index and field.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"
#include "cxl_srds.h"

#define MiB (1ULL << 20)

static struct srds_config config(uint32_t media, uint32_t sr, uint32_t ds)
{
	struct srds_config c = {
		.sim = { .sr_mode = sr, .ds = ds, .ctrl_ns = 80, .gc = 1 },
		.ports = 2,
		.media = { media, media },
		.capacity = { 256 * MiB, 256 * MiB },
		.route = srds_route_default,
	};
	return c;
}

/* n records: a forward scan of loads, a store every 'every'th. */
static struct mcmgpu_cxl_record *scan(uint64_t n, uint64_t every,
				      uint64_t stride)
{
	struct mcmgpu_cxl_record *r = calloc(n, sizeof(*r));
	uint64_t i;

	for (i = 0; r && i < n; i++) {
		r[i].addr = (i * stride) % (512 * MiB) & ~63ULL;
		r[i].kind = every && i % every == 0 ? MCMGPU_CXL_REC_STORE :
			    MCMGPU_CXL_REC_LOAD;
	}
	return r;
}

static void run(struct srds_config *c, const struct mcmgpu_cxl_record *r,
		uint64_t n, struct mcmgpu_cxl_sim_result *res)
{
	void *mem;

	c->route_priv = c;
	mem = malloc(srds_state_size(c));
	srds_run(c, mem, r, n, res);
	free(mem);
}

static void conserved(struct __test_metadata *_metadata,
		      const struct mcmgpu_cxl_record *r, uint64_t n,
		      const struct mcmgpu_cxl_sim_result *res, bool ssd)
{
	uint64_t loads = 0, stores = 0, i;

	for (i = 0; i < n; i++) {
		loads += r[i].kind == MCMGPU_CXL_REC_LOAD;
		stores += r[i].kind == MCMGPU_CXL_REC_STORE;
	}
	ASSERT_EQ(loads, res->loads);
	ASSERT_EQ(stores, res->stores);
	ASSERT_EQ(res->ds_staged, res->ds_flushed);
	if (ssd)
		ASSERT_EQ(loads - res->ds_read_hits,
			  res->dram_hits + res->dram_misses);
	ASSERT_LT(0, res->runtime_ps);
}

TEST(every_mode_completes_and_is_deterministic)
{
	uint32_t media, sr, ds;
	struct mcmgpu_cxl_record *r = scan(20000, 3, 4160);

	ASSERT_NE(NULL, r);
	for (media = 0; media < MCMGPU_CXL_MEDIA_TYPES; media++)
		for (sr = 0; sr < MCMGPU_CXL_SR_MODES; sr++)
			for (ds = 0; ds < 2; ds++) {
				struct srds_config c = config(media, sr, ds);
				struct mcmgpu_cxl_sim_result a, b;

				run(&c, r, 20000, &a);
				run(&c, r, 20000, &b);
				conserved(_metadata, r, 20000, &a,
					  media != MCMGPU_CXL_MEDIA_DRAM);
				ASSERT_EQ(0, memcmp(&a, &b, sizeof(a)))
					TH_LOG("media %u sr %u ds %u", media, sr, ds);
				if (sr == MCMGPU_CXL_SR_OFF)
					ASSERT_EQ(0, a.specrd_sent);
				if (!ds)
					ASSERT_EQ(0, a.ds_staged);
			}
	free(r);
}

/* SR sends MemSpecRds and they make a stream's loads faster. */
TEST(speculative_read_speeds_a_stream)
{
	struct mcmgpu_cxl_record *r = scan(50000, 0, 64);
	struct srds_config off = config(MCMGPU_CXL_MEDIA_ZNAND,
					MCMGPU_CXL_SR_OFF, 0);
	struct srds_config on = config(MCMGPU_CXL_MEDIA_ZNAND,
				       MCMGPU_CXL_SR_FULL, 0);
	struct mcmgpu_cxl_sim_result a, b;

	run(&off, r, 50000, &a);
	run(&on, r, 50000, &b);
	EXPECT_LT(0, b.specrd_sent);
	EXPECT_LT(b.runtime_ps, a.runtime_ps);
	EXPECT_LT(b.load_latency_ps, a.load_latency_ps);
	free(r);
}

/* DS: stores complete at GPU-memory speed; GC still runs underneath. */
TEST(deterministic_store_hides_write_latency)
{
	struct mcmgpu_cxl_record *r = scan(300000, 2, 64);
	struct srds_config off = config(MCMGPU_CXL_MEDIA_ZNAND,
					MCMGPU_CXL_SR_FULL, 0);
	struct srds_config on = config(MCMGPU_CXL_MEDIA_ZNAND,
				       MCMGPU_CXL_SR_FULL, 1);
	struct mcmgpu_cxl_sim_result a, b;

	run(&off, r, 300000, &a);
	run(&on, r, 300000, &b);
	EXPECT_LT(0, a.gc_runs);
	EXPECT_LT(0, b.ds_staged);
	EXPECT_LT(b.store_latency_ps / b.stores, a.store_latency_ps / a.stores);
	EXPECT_LE(b.store_latency_max_ps, a.store_latency_max_ps);
	free(r);
}

/*
 * The SSD's DRAM across evictions: stream 8 MiB through its 2 MiB of
 * sectors, then, slowly, read again the last 512 KiB it kept: every read
 * must hit. A cache that loses entries as it evicts others misses here.
 */
TEST(ssd_dram_keeps_the_recent_sectors)
{
	uint64_t stream = 8 * MiB / 64, again = 512 * 1024 / 64, i;
	struct mcmgpu_cxl_record *r = calloc(stream + 2 * again, sizeof(*r));
	struct srds_config c = config(MCMGPU_CXL_MEDIA_ZNAND,
				      MCMGPU_CXL_SR_OFF, 0);
	struct mcmgpu_cxl_sim_result a, b;

	ASSERT_NE(NULL, r);
	for (i = 0; i < stream; i++)
		r[i] = (struct mcmgpu_cxl_record){ i * 64, MCMGPU_CXL_REC_LOAD, 0 };
	run(&c, r, stream, &a);
	/* After the stream, 10 us of compute, then the re-reads, 1 us apart. */
	r[stream] = (struct mcmgpu_cxl_record){ 0, MCMGPU_CXL_REC_COMPUTE, 10000 };
	for (i = 0; i < again - 1; i++) {
		r[stream + 1 + 2 * i] = (struct mcmgpu_cxl_record){
			8 * MiB - 512 * 1024 + i * 64, MCMGPU_CXL_REC_LOAD, 0 };
		r[stream + 2 + 2 * i] = (struct mcmgpu_cxl_record){
			0, MCMGPU_CXL_REC_COMPUTE, 1000 };
	}
	run(&c, r, stream + 2 * again - 1, &b);
	EXPECT_EQ(a.dram_hits + again - 1, b.dram_hits);
	free(r);
}

/* The controller's round trip and the link are what CXL adds. */
TEST(latency_ordering)
{
	struct mcmgpu_cxl_record *r = scan(20000, 4, 64);
	struct srds_config local = config(MCMGPU_CXL_MEDIA_DRAM, 0, 0);
	struct srds_config fast = config(MCMGPU_CXL_MEDIA_DRAM, 0, 0);
	struct srds_config slow = config(MCMGPU_CXL_MEDIA_DRAM, 0, 0);
	struct mcmgpu_cxl_sim_result l, f, s;

	local.sim.local = 1;
	slow.sim.ctrl_ns = 250;
	run(&local, r, 20000, &l);
	run(&fast, r, 20000, &f);
	run(&slow, r, 20000, &s);
	EXPECT_LT(l.runtime_ps, f.runtime_ps);
	EXPECT_LT(f.runtime_ps, s.runtime_ps);
	EXPECT_EQ(0, l.flits);
	free(r);
}

/* Completion times by tag, for the event-by-event interface. */
static void note_done(void *priv, uint64_t tag, uint64_t t_ps)
{
	((uint64_t *)priv)[tag] = t_ps;
}

/*
 * A MemSpecRd's 256 B units become ready one by one: tR opens the page,
 * then each unit's transfer ends in address order (cxl_srds.c ep_fill).
 * Z-NAND, always-1 KiB SR, one port: at t = 0 a load of line 0 sends
 * MemSpecRd [0, 1 KiB) and then its MemRd; a load of line 768 (the 4th
 * unit, inside the ring's range) sends only its MemRd. By hand, in ps:
 * flits leave every 2100 and cross the 40000 half round trip, so the
 * MemSpecRd reaches the endpoint at 42100 and its page read runs
 * 42100 + 3000000 (tR) + 4 x 256000; unit k is ready at 42100 + 3000000
 * + (k + 1) x 256000. Both MemRds join (a miss each), read the internal
 * DRAM (46000) and return in two flits (4200) plus 40000. Line 0:
 * 3298100 + 46000 + 4200 + 40000 = 3388300, before the whole range's
 * 4066100 + 90200 = 4156300, which is when line 768 completes. With the
 * whole range ready at its end, line 0 would also take 4156300.
 */
TEST(a_demand_read_waits_only_for_its_own_unit)
{
	struct srds_config c = config(MCMGPU_CXL_MEDIA_ZNAND,
				      MCMGPU_CXL_SR_MAX, 0);
	struct mcmgpu_cxl_sim_result res;
	uint64_t done[2] = { 0, 0 };
	struct srds *s;
	void *mem;

	c.route_priv = &c;
	mem = malloc(srds_state_size(&c));
	ASSERT_NE(NULL, mem);
	s = srds_start(&c, mem, &res, note_done, done);
	ASSERT_TRUE(srds_submit(s, 0, MCMGPU_CXL_REC_LOAD, 0, 0));
	ASSERT_TRUE(srds_submit(s, 0, MCMGPU_CXL_REC_LOAD, 768, 1));
	srds_advance(s, UINT64_MAX);
	EXPECT_EQ(1, res.specrd_sent);
	EXPECT_EQ(1024, res.specrd_bytes);
	EXPECT_EQ(1, res.media_reads);
	EXPECT_EQ(0, res.dram_hits);
	EXPECT_EQ(2, res.dram_joins);
	EXPECT_EQ(3388300, done[0]);
	EXPECT_EQ(4156300, done[1]);
	free(mem);
}

TEST(bad_records_named)
{
	struct srds_config c = config(MCMGPU_CXL_MEDIA_ZNAND, 0, 0);
	struct mcmgpu_cxl_record r[3] = {
		{ 0, MCMGPU_CXL_REC_LOAD, 0 },
		{ 64, MCMGPU_CXL_REC_STORE, 0 },
		{ 0, MCMGPU_CXL_REC_COMPUTE, 10 },
	};
	struct mcmgpu_record_error err;

	c.route_priv = &c;
	ASSERT_EQ(0, srds_check(&c, r, 3, &err));
	r[1].addr = 65;
	EXPECT_EQ(-EINVAL, srds_check(&c, r, 3, &err));
	EXPECT_EQ(2, err.index);
	EXPECT_NE(NULL, strstr(err.what, "aligned"));
	r[1].addr = 512 * MiB;
	EXPECT_EQ(-EINVAL, srds_check(&c, r, 3, &err));
	EXPECT_NE(NULL, strstr(err.what, "no decoder"));
	r[1].addr = 64;
	r[2].arg = 2000000;
	EXPECT_EQ(-EINVAL, srds_check(&c, r, 3, &err));
	EXPECT_EQ(3, err.index);
	r[2].arg = 1;
	r[0].kind = 9;
	EXPECT_EQ(-EINVAL, srds_check(&c, r, 3, &err));
	EXPECT_EQ(1, err.index);
	r[0].kind = MCMGPU_CXL_REC_LOAD;
	c.sim.sr_mode = MCMGPU_CXL_SR_MODES;
	EXPECT_EQ(-EINVAL, srds_check(&c, r, 3, &err));
	EXPECT_NE(NULL, strstr(err.what, "sr_mode"));
}

TEST_HARNESS_MAIN
