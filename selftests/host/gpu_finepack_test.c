// SPDX-License-Identifier: GPL-2.0
/*
 * Host tests of FinePack in the GPU timing core (gpu_finepack.c through
 * gpu_core.c): a kernel of small scattered remote stores, run with each
 * scheme. The homes get exactly the bytes stored remotely; FinePack's
 * wire bytes are below write combining's, which are at most P2P's; the
 * links carry exactly the packets' wire bytes; fences and loads to
 * queued lines flush; off counts nothing; every run is the same whatever
 * the epochs.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"
#include "gpu_core.h"
#include "../lib/core_run.h"

/* ---- Running ------------------------------------------------------------ */

#define OBJ		0x10000000ULL
#define OBJ_SIZE	(64ULL << 20)	/* room for stores a page apart */
/* A lane's 4 B from the next's: 132, a line apart (scattered stores). */
static uint32_t stride = 132;
#define BLOCKS		8
#define WARPS		2	/* a block */
#define STORES		16	/* a warp */

static struct gpu_config fp_cfg(uint32_t mode)
{
	struct gpu_config c = gpu_preset_find(GPU_CONFIG_DEFAULT)->cfg;

	c.chiplets = 4;
	c.sms = 2;
	c.translate = 0;
	c.placement = GPU_PLACE_RR;
	c.finepack = mode;
	return c;
}

static uint64_t store_addr(uint32_t warp, uint32_t j, uint32_t lane)
{
	return OBJ + ((uint64_t)(warp * STORES + j) * 32 + lane) * stride;
}

/*
 * BLOCKS blocks of WARPS warps, each STORES scattered 4 B stores (every
 * byte written once); load: then a load of the last store's addresses;
 * fence: the mnemonic of an instruction between the stores and the load.
 */
static void build(struct tprog *p, bool load, const char *fence)
{
	uint32_t b, w, j, n = STORES + (load ? 1 : 0) + (fence ? 1 : 0);

	tp_object(p, OBJ, OBJ_SIZE, "a");
	tp_kernel(p, 1, "scatter", BLOCKS, 32 * WARPS, 0);
	for (b = 0; b < BLOCKS; b++) {
		tp_block(p, b);
		for (w = 0; w < WARPS; w++) {
			uint32_t gw = b * WARPS + w;

			tp_warp(p, w, n);
			for (j = 0; j < STORES; j++)
				tp_mem(p, PROG_SPACE_GLOBAL, PROG_KIND_STORE, 4,
				       0xffffffff, store_addr(gw, j, 0), stride,
				       1);
			if (fence) {
				tp_alu(p, PROG_OP_OTHER, 0, 0);
				snprintf(p->recs[p->n - 1].inst.opcode,
					 PROG_OPCODE_MAX, "%s", fence);
			}
			if (load)
				tp_mem(p, PROG_SPACE_GLOBAL, PROG_KIND_LOAD, 4,
				       0xffffffff, store_addr(gw, STORES - 1, 0),
				       stride, 2);
		}
		tp_add(p, PROG_REC_BLOCK_END);
	}
	tp_add(p, PROG_REC_KERNEL_END);
	tp_add(p, PROG_REC_END);
}

/* The bytes stored to another chiplet than the block's (chunk scheduling). */
static uint64_t remote_bytes(const struct gpu_config *c)
{
	struct gpu_object o = {
		.base = OBJ, .size = OBJ_SIZE, .gpu_va = OBJ,
		.policy = GPU_PLACE_RR, .g = 1,
	};
	uint64_t bytes = 0;
	uint32_t b, w, j, l;

	for (b = 0; b < BLOCKS; b++) {
		uint32_t chiplet = b / (BLOCKS / c->chiplets);

		for (w = 0; w < WARPS; w++)
			for (j = 0; j < STORES; j++)
				for (l = 0; l < 32; l++) {
					uint64_t a = store_addr(b * WARPS + w,
								j, l);

					if (gpu_object_page_home(&o, (a - OBJ) >> 12,
								 c->chiplets) != chiplet)
						bytes += 4;
				}
	}
	return bytes;
}

static uint64_t fp_wire(const struct gpu_finepack_stats *f)
{
	return f->wire_payload + f->wire_subheader + f->wire_overhead +
	       f->wire_padding;
}

TEST(every_scheme_delivers_what_was_stored)
{
	static const uint32_t modes[] = {
		GPU_FP_P2P, GPU_FP_WC, GPU_FP_FINEPACK, GPU_FP_DMA,
	};
	struct gpu_core_stats st[4];
	char err[GPU_CORE_ERR_MAX];
	struct tprog p = { 0 };
	uint32_t i;

	build(&p, false, NULL);
	for (i = 0; i < 4; i++) {
		struct gpu_config c = fp_cfg(modes[i]);
		const struct gpu_finepack_stats *f = &st[i].finepack;
		uint64_t want = remote_bytes(&c);

		ASSERT_EQ(0, tp_run(&c, &p, 1000, 0, &st[i], err)) TH_LOG("%s", err);
		ASSERT_GT(want, 0);
		EXPECT_EQ(modes[i], f->mode);
		EXPECT_EQ(want, f->store_bytes);
		EXPECT_EQ(want / 4, f->stores);
		/* Every one a 4 B run: under a sector (§I's small stores). */
		EXPECT_EQ(f->stores, f->stores_under_32b);
		/* The home L2s receive exactly the bytes stored remotely. */
		EXPECT_EQ(want, f->delivered_bytes);
		EXPECT_EQ(want, f->wire_payload);
		EXPECT_EQ(want, f->dma_payload);
		/* Stores only: the links carry the packets, out and in. */
		EXPECT_EQ(2 * f->link_bytes, st[i].link.bytes);
		EXPECT_EQ(2 * f->link_messages, st[i].link.requests);
		EXPECT_EQ(f->delivered_sectors, st[i].l2_remote);
		EXPECT_EQ(1, f->kernels);
		EXPECT_EQ(0, f->flushes[MCMGPU_FP_FLUSH_LOAD]);
		EXPECT_EQ(0, f->flushes[MCMGPU_FP_FLUSH_FENCE]);
	}
	/* What each mode sent is its scheme's bytes. */
	EXPECT_EQ(st[0].finepack.plain_wire_bytes, st[0].finepack.link_bytes);
	EXPECT_EQ(st[0].finepack.plain_tlps, st[0].finepack.link_messages);
	EXPECT_EQ(st[1].finepack.wc_wire_bytes, st[1].finepack.link_bytes);
	EXPECT_EQ(fp_wire(&st[2].finepack), st[2].finepack.link_bytes);
	EXPECT_EQ(st[2].finepack.packets, st[2].finepack.link_messages);
	EXPECT_EQ(st[3].finepack.dma_wire_bytes, st[3].finepack.link_bytes);
	/* Small scattered stores: FinePack < write combining <= P2P. */
	for (i = 0; i < 4; i++) {
		const struct gpu_finepack_stats *f = &st[i].finepack;

		EXPECT_LT(fp_wire(f), f->wc_wire_bytes);
		EXPECT_LE(f->wc_wire_bytes, f->plain_wire_bytes);
	}
	EXPECT_LT(st[2].finepack.link_bytes, st[1].finepack.link_bytes);
	EXPECT_LE(st[1].finepack.link_bytes, st[0].finepack.link_bytes);
	/* The same instructions whatever the scheme. */
	for (i = 1; i < 4; i++) {
		EXPECT_EQ(st[0].warp_insts, st[i].warp_insts);
		EXPECT_EQ(st[0].bytes_stored, st[i].bytes_stored);
	}
	tp_free(&p);
}

/*
 * A warp's 32 lanes storing 128 contiguous bytes leave the L1 as four
 * full sectors: four stores, none under 32 B, every byte delivered.
 */
TEST(coalesced_warp_stores_are_full_sectors)
{
	struct gpu_config c = fp_cfg(GPU_FP_FINEPACK);
	struct gpu_core_stats st;
	char err[GPU_CORE_ERR_MAX];
	struct tprog p = { 0 };
	uint64_t want;

	stride = 4;
	want = remote_bytes(&c);
	build(&p, false, NULL);
	ASSERT_EQ(0, tp_run(&c, &p, 1000, 0, &st, err)) TH_LOG("%s", err);
	ASSERT_GT(want, 0);
	EXPECT_EQ(want / 32, st.finepack.stores);
	EXPECT_EQ(0, st.finepack.stores_under_32b);
	EXPECT_EQ(want, st.finepack.delivered_bytes);
	stride = 132;
	tp_free(&p);
}

/*
 * P2P: the L1 sends a warp's store to a line as one access (§III), so a
 * coalesced 128 B warp store is one TLP of O + 128 B, not four of O + 32.
 */
TEST(p2p_sends_a_warp_store_line_as_one_tlp)
{
	struct gpu_config c = fp_cfg(GPU_FP_P2P);
	struct gpu_core_stats st;
	char err[GPU_CORE_ERR_MAX];
	struct tprog p = { 0 };
	uint64_t want;

	stride = 4;
	want = remote_bytes(&c);
	build(&p, false, NULL);
	ASSERT_EQ(0, tp_run(&c, &p, 1000, 0, &st, err)) TH_LOG("%s", err);
	ASSERT_GT(want, 0);
	EXPECT_EQ(want / 128, st.finepack.link_messages);
	EXPECT_EQ(want / 128 * (GPU_FP_OVERHEAD + 128), st.finepack.link_bytes);
	EXPECT_EQ(want, st.finepack.delivered_bytes);
	/* The queue's own P2P figure still counts a TLP a sector run. */
	EXPECT_EQ(want / 32, st.finepack.plain_tlps);
	stride = 132;
	tp_free(&p);
}

/*
 * One warp store whose sectors in two pages sit at one page offset: page
 * 1's holds lanes 0 and 1 (8 B), page 2's lane 2 (4 B). Each sector
 * carries its own bytes, none taken for the other page's.
 */
TEST(stores_at_one_page_offset_keep_their_own_bytes)
{
	static const uint32_t modes[] = { GPU_FP_P2P, GPU_FP_FINEPACK };
	struct gpu_core_stats st;
	char err[GPU_CORE_ERR_MAX];
	struct tprog p = { 0 };
	struct prog_inst *in;
	uint32_t i;

	tp_object(&p, OBJ, OBJ_SIZE, "a");
	tp_kernel(&p, 1, "two_pages", 1, 32, 0);
	tp_block(&p, 0);
	tp_warp(&p, 0, 1);
	tp_mem(&p, PROG_SPACE_GLOBAL, PROG_KIND_STORE, 4, 0x7, OBJ, 4, 1);
	in = &p.recs[p.n - 1].inst;
	in->addr[0] = OBJ + 4096;
	in->addr[1] = OBJ + 4096 + 4;
	in->addr[2] = OBJ + 2 * 4096;
	inst_finish(in);
	tp_add(&p, PROG_REC_BLOCK_END);
	tp_add(&p, PROG_REC_KERNEL_END);
	tp_add(&p, PROG_REC_END);
	for (i = 0; i < 2; i++) {
		struct gpu_config c = fp_cfg(modes[i]);

		/* Pages 1 and 2 are homed on chiplets 1 and 2, the block on 0. */
		ASSERT_EQ(0, tp_run(&c, &p, 1000, 0, &st, err))
			TH_LOG("%s", err);
		EXPECT_EQ(12, st.finepack.store_bytes);
		EXPECT_EQ(2, st.finepack.stores);
		EXPECT_EQ(12, st.finepack.delivered_bytes);
	}
	tp_free(&p);
}

/*
 * The finepack preset's L1 keeps 512 sectors in flight (Accel-Sim's V100
 * L1): one SM's warps, each a load of 32 scattered sectors, miss
 * together, so 8 warps (256 sectors) take about one warp's round trip.
 * With 32 MSHRs (the old value) they took eight.
 */
static uint64_t gather_cycles(uint32_t warps)
{
	struct gpu_config c = gpu_preset_find("finepack")->cfg;
	struct gpu_core_stats st;
	char err[GPU_CORE_ERR_MAX];
	struct tprog p = { 0 };
	uint32_t w;

	c.chiplets = 1;
	c.sms = 1;
	tp_object(&p, OBJ, OBJ_SIZE, "a");
	tp_kernel(&p, 1, "gather", 1, 32 * warps, 0);
	tp_block(&p, 0);
	for (w = 0; w < warps; w++) {
		tp_warp(&p, w, 1);
		tp_mem(&p, PROG_SPACE_GLOBAL, PROG_KIND_LOAD, 4, 0xffffffff,
		       OBJ + (uint64_t)w * 32 * 132, 132, 2);
	}
	tp_add(&p, PROG_REC_BLOCK_END);
	tp_add(&p, PROG_REC_KERNEL_END);
	tp_add(&p, PROG_REC_END);
	if (tp_run(&c, &p, 1000, 0, &st, err)) {
		fprintf(stderr, "%s\n", err);
		st.cycles = 0;
	}
	tp_free(&p);
	return st.cycles;
}

TEST(finepack_preset_l1_keeps_many_misses_in_flight)
{
	uint64_t one = gather_cycles(1), eight = gather_cycles(8);

	ASSERT_GT(one, 0);
	ASSERT_GT(eight, 0);
	EXPECT_EQ(512, gpu_preset_find("finepack")->cfg.l1_mshrs);
	/* 256 sectors: the L2's and DRAM's rates add a little, no trip. */
	EXPECT_LT(eight, one + one / 2) TH_LOG("%llu vs %llu",
					       (unsigned long long)eight,
					       (unsigned long long)one);
}

TEST(off_counts_nothing_and_keeps_the_sector_path)
{
	struct gpu_finepack_stats zero = { 0 };
	struct gpu_config c = fp_cfg(GPU_FP_OFF);
	struct gpu_core_stats off, on;
	char err[GPU_CORE_ERR_MAX];
	struct tprog p = { 0 };

	build(&p, false, NULL);
	ASSERT_EQ(0, tp_run(&c, &p, 1000, 0, &off, err)) TH_LOG("%s", err);
	EXPECT_EQ(0, memcmp(&zero, &off.finepack, sizeof(zero)));
	/*
	 * Off: a remote 4 B store is a sector message and its
	 * acknowledgement, each out of one port and into another.
	 */
	EXPECT_EQ(remote_bytes(&c) / 4 * 4, off.link.requests);
	c.finepack = GPU_FP_FINEPACK;
	ASSERT_EQ(0, tp_run(&c, &p, 1000, 0, &on, err)) TH_LOG("%s", err);
	EXPECT_LT(on.link.bytes, off.link.bytes);
	tp_free(&p);
}

TEST(deterministic_whatever_the_epochs)
{
	static const uint64_t epochs[] = { 1, 7, 333, 1000000000 };
	uint32_t m, i;

	for (m = GPU_FP_P2P; m < GPU_FP_NR; m++) {
		struct gpu_config c = fp_cfg(m);
		struct gpu_core_stats first, st;
		char err[GPU_CORE_ERR_MAX];
		struct tprog p = { 0 };

		build(&p, true, "MEMBAR.SC.SYS");
		ASSERT_EQ(0, tp_run(&c, &p, epochs[0], 0, &first, err))
			TH_LOG("%s", err);
		for (i = 1; i < 4; i++) {
			ASSERT_EQ(0, tp_run(&c, &p, epochs[i], 0, &st, err))
				TH_LOG("%s", err);
			EXPECT_EQ(0, memcmp(&first, &st, sizeof(st)))
				TH_LOG("mode %u epoch %llu", m,
				       (unsigned long long)epochs[i]);
		}
		tp_free(&p);
	}
}

TEST(fences_and_loads_flush)
{
	struct gpu_config c = fp_cfg(GPU_FP_FINEPACK);
	struct gpu_core_stats st;
	char err[GPU_CORE_ERR_MAX];
	struct tprog p = { 0 };

	/* A system fence flushes the chiplet's queue. */
	build(&p, false, "MEMBAR.SC.SYS");
	ASSERT_EQ(0, tp_run(&c, &p, 1000, 0, &st, err)) TH_LOG("%s", err);
	EXPECT_EQ(BLOCKS * WARPS, st.finepack.fences);
	EXPECT_GT(st.finepack.flushes[MCMGPU_FP_FLUSH_FENCE], 0);
	EXPECT_EQ(remote_bytes(&c), st.finepack.delivered_bytes);
	tp_free(&p);
	/* A block-scope one does not. */
	build(&p, false, "MEMBAR.SC.CTA");
	ASSERT_EQ(0, tp_run(&c, &p, 1000, 0, &st, err)) TH_LOG("%s", err);
	EXPECT_EQ(0, st.finepack.fences);
	EXPECT_EQ(0, st.finepack.flushes[MCMGPU_FP_FLUSH_FENCE]);
	tp_free(&p);
	/* A load of a queued line flushes its partition first. */
	build(&p, true, NULL);
	ASSERT_EQ(0, tp_run(&c, &p, 1000, 0, &st, err)) TH_LOG("%s", err);
	EXPECT_GT(st.finepack.loads, 0);
	EXPECT_GT(st.finepack.flushes[MCMGPU_FP_FLUSH_LOAD], 0);
	EXPECT_EQ(remote_bytes(&c), st.finepack.delivered_bytes);
	tp_free(&p);
}

TEST(config_names_the_modes)
{
	struct gpu_config c = fp_cfg(GPU_FP_OFF);
	const char *why = NULL;

	ASSERT_EQ(0, gpu_config_set(&c, "finepack=finepack", &why));
	EXPECT_EQ(GPU_FP_FINEPACK, c.finepack);
	ASSERT_EQ(0, gpu_config_set(&c, "finepack=dma", &why));
	EXPECT_EQ(GPU_FP_DMA, c.finepack);
	ASSERT_EQ(0, gpu_config_set(&c, "finepack=off", &why));
	EXPECT_EQ(GPU_FP_OFF, c.finepack);
	ASSERT_EQ(0, gpu_config_set(&c, "finepack=gps", &why));
	EXPECT_EQ(GPU_FP_GPS, c.finepack);
	ASSERT_EQ(0, gpu_config_set(&c, "finepack=alt", &why));
	EXPECT_EQ(GPU_FP_ALT, c.finepack);
	EXPECT_EQ(-EINVAL, gpu_config_set(&c, "finepack=7", &why));
	EXPECT_EQ(-EINVAL, gpu_config_set(&c, "finepack=fast", &why));
}

/* ---- GPS and §VI-B's alternative design (FinePack §VI-B) ---------------- */

/* The scatter kernel's stores, as build() writes them, under kernel id. */
static void scatter_kernel(struct tprog *p, uint32_t id)
{
	uint32_t b, w, j;

	tp_kernel(p, id, "scatter", BLOCKS, 32 * WARPS, 0);
	for (b = 0; b < BLOCKS; b++) {
		tp_block(p, b);
		for (w = 0; w < WARPS; w++) {
			tp_warp(p, w, STORES);
			for (j = 0; j < STORES; j++)
				tp_mem(p, PROG_SPACE_GLOBAL, PROG_KIND_STORE, 4,
				       0xffffffff,
				       store_addr(b * WARPS + w, j, 0), stride,
				       1);
		}
		tp_add(p, PROG_REC_BLOCK_END);
	}
	tp_add(p, PROG_REC_KERNEL_END);
}

/* Every block's warp loads every stored line: every home reads its pages. */
static void reader_kernel(struct tprog *p, uint32_t id)
{
	uint32_t n = BLOCKS * WARPS * STORES, b, i;

	tp_kernel(p, id, "reader", BLOCKS, 32, 0);
	for (b = 0; b < BLOCKS; b++) {
		tp_block(p, b);
		tp_warp(p, 0, n);
		for (i = 0; i < n; i++)
			tp_mem(p, PROG_SPACE_GLOBAL, PROG_KIND_LOAD, 4,
			       0xffffffff, store_addr(i / STORES, i % STORES, 0),
			       stride, 2);
		tp_add(p, PROG_REC_BLOCK_END);
	}
	tp_add(p, PROG_REC_KERNEL_END);
}

/* scatter, (reader,) scatter: the second scatter ends GPS's profiling. */
static void build_twice(struct tprog *p, bool read)
{
	tp_object(p, OBJ, OBJ_SIZE, "a");
	scatter_kernel(p, 1);
	if (read)
		reader_kernel(p, 2);
	scatter_kernel(p, read ? 3 : 2);
	tp_add(p, PROG_REC_END);
}

/*
 * alt and gps deliver every byte stored remotely (one kernel: GPS is
 * still profiling, every page subscribed), and their links carry their
 * own wire bytes: alt's are FinePack's packets unpadded plus 10 B a
 * sub-packet (each store its own TLP) in a config packet and a TLP a
 * sub-packet; gps's a 128 B line and O a line (132 B apart, every store
 * its own line).
 */
TEST(gps_and_alt_deliver_what_was_stored)
{
	static const uint32_t modes[] = { GPU_FP_GPS, GPU_FP_ALT };
	struct gpu_core_stats st[2];
	const struct gpu_finepack_stats *a = &st[1].finepack;
	char err[GPU_CORE_ERR_MAX];
	struct tprog p = { 0 };
	uint32_t i;

	build(&p, false, NULL);
	for (i = 0; i < 2; i++) {
		struct gpu_config c = fp_cfg(modes[i]);
		const struct gpu_finepack_stats *f = &st[i].finepack;
		uint64_t want = remote_bytes(&c);

		ASSERT_EQ(0, tp_run(&c, &p, 1000, 0, &st[i], err)) TH_LOG("%s", err);
		ASSERT_GT(want, 0);
		EXPECT_EQ(modes[i], f->mode);
		EXPECT_EQ(want, f->store_bytes);
		EXPECT_EQ(want, f->delivered_bytes);
		EXPECT_EQ(want, f->wire_payload);
		EXPECT_EQ(2 * f->link_bytes, st[i].link.bytes);
		EXPECT_EQ(2 * f->link_messages, st[i].link.requests);
		EXPECT_EQ(f->delivered_sectors, st[i].l2_remote);
		EXPECT_EQ(0, f->gps_dropped_bytes);
	}
	/* gps: a line a store, each its own TLP of O + 128 B. */
	EXPECT_EQ(st[0].finepack.stores, st[0].finepack.gps_tlps);
	EXPECT_EQ(st[0].finepack.stores * (GPU_FP_OVERHEAD + 128),
		  st[0].finepack.gps_wire_bytes);
	EXPECT_EQ(st[0].finepack.gps_wire_bytes, st[0].finepack.link_bytes);
	EXPECT_EQ(1, st[0].finepack.gps_profiling_kernels);
	EXPECT_EQ(0, st[0].finepack.alt_wire_bytes);
	/* alt: FinePack's unpadded packets, + 10 B and a TLP a sub-packet. */
	EXPECT_EQ(a->wire_overhead + a->wire_subheader +
		  a->wire_payload + 10 * a->subpackets,
		  a->alt_wire_bytes);
	EXPECT_EQ(fp_wire(a) - a->wire_padding + 10 * a->subpackets,
		  a->alt_wire_bytes);
	EXPECT_EQ(a->packets + a->subpackets, a->alt_tlps);
	EXPECT_EQ(a->alt_wire_bytes, a->link_bytes);
	EXPECT_EQ(a->packets, a->link_messages);
	EXPECT_EQ(0, a->gps_tlps);
	/* Small stores: alt is below P2P, above FinePack. */
	EXPECT_GT(a->alt_wire_bytes, fp_wire(a));
	EXPECT_LT(a->alt_wire_bytes, a->plain_wire_bytes);
	tp_free(&p);
}

/*
 * gps: after the profiling kernel, a page its home never loaded is
 * unsubscribed and the stores to it are dropped (delivered + dropped =
 * stored); a home that read its pages keeps them, and gets every byte.
 */
TEST(gps_drops_only_unsubscribed_pages)
{
	struct gpu_config c = fp_cfg(GPU_FP_GPS);
	const struct gpu_finepack_stats *f;
	struct gpu_core_stats st;
	char err[GPU_CORE_ERR_MAX];
	struct tprog p = { 0 };
	uint64_t want = remote_bytes(&c);

	/* No home ever loads: the second scatter is dropped whole. */
	build_twice(&p, false);
	ASSERT_EQ(0, tp_run(&c, &p, 1000, 0, &st, err)) TH_LOG("%s", err);
	f = &st.finepack;
	EXPECT_EQ(1, f->gps_profiling_kernels);
	EXPECT_EQ(0, f->gps_subscribed_pages);
	EXPECT_EQ(want, f->delivered_bytes);
	EXPECT_EQ(want, f->gps_dropped_bytes);
	EXPECT_EQ(want / 4, f->gps_dropped_stores);
	EXPECT_EQ(want, f->store_bytes);	/* the queue saw only kernel 1 */
	tp_free(&p);
	/* Every home read its pages in the profiling region: all delivered. */
	memset(&p, 0, sizeof(p));
	build_twice(&p, true);
	ASSERT_EQ(0, tp_run(&c, &p, 1000, 0, &st, err)) TH_LOG("%s", err);
	f = &st.finepack;
	EXPECT_EQ(2, f->gps_profiling_kernels);
	EXPECT_GT(f->gps_subscribed_pages, 0);
	EXPECT_EQ(0, f->gps_dropped_bytes);
	EXPECT_EQ(2 * want, f->delivered_bytes);
	EXPECT_EQ(2 * want, f->store_bytes);
	/* The other modes never drop and never count gps or alt. */
	c.finepack = GPU_FP_FINEPACK;
	ASSERT_EQ(0, tp_run(&c, &p, 1000, 0, &st, err)) TH_LOG("%s", err);
	EXPECT_EQ(2 * want, st.finepack.delivered_bytes);
	EXPECT_EQ(0, st.finepack.gps_subscribed_pages);
	EXPECT_EQ(0, st.finepack.alt_wire_bytes);
	tp_free(&p);
}

TEST_HARNESS_MAIN
