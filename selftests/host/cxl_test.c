// SPDX-License-Identifier: GPL-2.0
/*
 * Host tests of the CXL HDM decoder core (qemu-device/model/cxl_hdm.c): the
 * spec's two worked decode examples exactly (notes cxlgpu.md §4.4), the
 * field encodings, a decode bijection for every host-bridge ways x
 * granularity against the spec's arithmetic written here as division and
 * remainder, and every commit check of notes §5.3.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"
#include "cxl_hdm.h"

#define GiB (1ULL << 30)
#define MiB (1ULL << 20)

static const uint8_t port_ids[4] = {
	MCMGPU_CXL_PORT_ID(0), MCMGPU_CXL_PORT_ID(1),
	MCMGPU_CXL_PORT_ID(2), MCMGPU_CXL_PORT_ID(3),
};

static uint32_t ctrl(unsigned int ig, unsigned int iw)
{
	return FIELD_PREP(MCMGPU_HDM_CTRL_IG_MASK, ig) |
	       FIELD_PREP(MCMGPU_HDM_CTRL_IW_MASK, iw) | MCMGPU_HDM_CTRL_COMMIT;
}

static void hdm_init(struct cxl_hdm *h, bool hb, unsigned int targets)
{
	memset(h, 0, sizeof(*h));
	h->host_bridge = hb;
	h->decoders = hb ? MCMGPU_CXL_HB_DECODERS : MCMGPU_CXL_EP_DECODERS;
	h->targets = targets;
	h->global_ctrl = hb ? 0 : MCMGPU_HDM_GLOBAL_ENABLE;
}

/* Program decoder n and commit it as the device would: checks first. */
static const char *commit(struct cxl_hdm *h, unsigned int n, uint64_t base,
			  uint64_t size, uint32_t c, uint64_t target,
			  const struct cxl_hdm_limits *lim)
{
	const char *why;

	h->d[n].base = base;
	h->d[n].size = size;
	h->d[n].ctrl = c;
	h->d[n].target = target;
	why = cxl_hdm_commit_check(h, n, lim);
	if (why)
		h->d[n].ctrl |= MCMGPU_HDM_CTRL_ERROR;
	else
		cxl_hdm_set_committed(h, n);
	return why;
}

static const struct cxl_hdm_limits hb_lim = {
	.port_ids = port_ids, .ports = 4,
	.window_base = 0, .window_size = 1ULL << 40,
};

TEST(encodings)
{
	unsigned int ig, iw;

	for (ig = 0; ig < 16; ig++)
		EXPECT_EQ(ig <= 6 ? 256ULL << ig : 0,
			  cxl_hdm_granularity(ig));
	for (iw = 0; iw < 16; iw++)
		EXPECT_EQ(iw <= 3 ? 1U << iw : 0,
			  cxl_hdm_ways(FIELD_PREP(MCMGPU_HDM_CTRL_IW_MASK, iw)));
	/* 3, 6, 12 and 16 ways: the capability says we cannot. */
	EXPECT_EQ(0, cxl_hdm_ways(FIELD_PREP(MCMGPU_HDM_CTRL_IW_MASK, 8)));
	EXPECT_EQ(0, cxl_hdm_ways(4 << 4));
	EXPECT_EQ(0, cxl_hdm_count_enc(1));
	EXPECT_EQ(4, cxl_hdm_count_enc(8));
}

/* Spec example: HB D[2] = 4 GiB at 128 GiB, 4-way at 512 B. */
TEST(spec_example_host_bridge)
{
	struct cxl_hdm hb;
	uint64_t targets = 0x13111210;	/* ways 0..3: ports 0x10,0x12,0x11,0x13 */
	uint8_t id = 0;

	hdm_init(&hb, true, 4);
	ASSERT_EQ(NULL, commit(&hb, 0, 32 * GiB, 32 * GiB, ctrl(1, 2),
			       targets, &hb_lim));
	ASSERT_EQ(NULL, commit(&hb, 1, 64 * GiB, 4 * GiB, ctrl(1, 2),
			       targets, &hb_lim));
	ASSERT_EQ(NULL, commit(&hb, 2, 128 * GiB, 4 * GiB, ctrl(1, 2),
			       targets, &hb_lim));
	ASSERT_TRUE(cxl_hdm_hb_route(&hb, 129 * GiB + 1028, &id));
	/* Bits 10:9 of the HPA are 2: Target List Low [23:16]. */
	EXPECT_EQ(0x11, id);
	EXPECT_EQ(2, cxl_hdm_find(&hb, 129 * GiB + 1028));
}

/* Spec example: EP D[0] = 32 GiB at 32 GiB, D[1] = 4 GiB at 128 GiB, 8-way. */
TEST(spec_example_endpoint)
{
	struct cxl_hdm ep;
	struct cxl_hdm_limits lim = { .capacity = 64 * GiB };
	uint64_t dpa = 0;

	hdm_init(&ep, false, 0);
	ASSERT_EQ(NULL, commit(&ep, 0, 32 * GiB, 32 * GiB, ctrl(1, 3), 0,
			       &lim));
	ASSERT_EQ(NULL, commit(&ep, 1, 128 * GiB, 4 * GiB, ctrl(1, 3), 0,
			       &lim));
	EXPECT_EQ(4 * GiB, cxl_hdm_dpa_base(&ep, 1));
	ASSERT_TRUE(cxl_hdm_ep_translate(&ep, 129 * GiB + 1028, &dpa));
	EXPECT_EQ(0x108000004ULL, dpa);
	/* HDM Decoder Enable off: the endpoint decodes nothing. */
	ep.global_ctrl = 0;
	EXPECT_FALSE(cxl_hdm_ep_translate(&ep, 129 * GiB + 1028, &dpa));
}

/*
 * One region over 'ways' ports at granularity g, each endpoint's share
 * after a DPA skip; the expected port and DPA by the spec's arithmetic.
 */
static void check_region(struct __test_metadata *_metadata, unsigned int ways,
			 unsigned int ig, uint64_t skip)
{
	uint64_t gran = 256ULL << ig, base = 64 * GiB;
	uint64_t size = ways * 512 * MiB, share = size / ways;
	struct cxl_hdm hb, ep[4];
	struct cxl_hdm_limits lim = { .capacity = skip + share };
	uint64_t targets = 0, hpa, dpa, n = size / gran;
	char *seen = calloc(n, 1);
	unsigned int w, i, port, iw = __builtin_ctz(ways);
	uint8_t id;

	hdm_init(&hb, true, 4);
	/* Way w goes to port (w + 1) % ways: not the identity. */
	for (w = 0; w < ways; w++)
		targets |= (uint64_t)port_ids[(w + 1) % ways] << (8 * w);
	ASSERT_EQ(NULL, commit(&hb, 0, base, size, ctrl(ig, iw), targets,
			       &hb_lim));
	for (w = 0; w < ways; w++) {
		hdm_init(&ep[w], false, 0);
		ASSERT_EQ(NULL, commit(&ep[w], 0, base, size, ctrl(ig, iw),
				       skip, &lim));
	}
	srandom(ways * 100 + ig);
	for (i = 0; i < 4000; i++) {
		uint64_t off, g, want_dpa;
		unsigned int want_port;

		switch (i) {
		case 0: off = 0; break;
		case 1: off = size - 1; break;
		case 2: off = gran - 1; break;
		case 3: off = gran; break;
		default:
			off = ((uint64_t)random() << 31 ^ random()) % size;
			if (i % 3 == 0)	/* a granule's edges */
				off = off / gran * gran + (i % 2 ? gran - 1 : 0);
		}
		hpa = base + off;
		g = off / gran;
		want_port = (g % ways + 1) % ways;
		want_dpa = skip + g / ways * gran + off % gran;
		ASSERT_TRUE(cxl_hdm_hb_route(&hb, hpa, &id));
		for (port = 0; port_ids[port] != id; port++)
			ASSERT_LT(port, 3);
		ASSERT_EQ(want_port, port);
		ASSERT_TRUE(cxl_hdm_ep_translate(&ep[port], hpa, &dpa));
		ASSERT_EQ(want_dpa, dpa);
		ASSERT_LT(dpa, skip + share);
		ASSERT_GE(dpa, skip);
	}
	/* Exactly one (port, DPA granule) per HPA granule: all, none twice. */
	ASSERT_NE(NULL, seen);
	for (hpa = base; hpa < base + size; hpa += gran) {
		uint64_t slot;

		ASSERT_TRUE(cxl_hdm_hb_route(&hb, hpa, &id));
		for (port = 0; port_ids[port] != id; port++)
			;
		ASSERT_TRUE(cxl_hdm_ep_translate(&ep[port], hpa, &dpa));
		ASSERT_EQ(0, (dpa - skip) % gran);
		slot = (dpa - skip) / gran + port * (share / gran);
		ASSERT_LT(slot, n);
		ASSERT_EQ(0, seen[slot]);
		seen[slot] = 1;
	}
	free(seen);
	EXPECT_FALSE(cxl_hdm_hb_route(&hb, base - 1, &id));
	EXPECT_FALSE(cxl_hdm_hb_route(&hb, base + size, &id));
}

/*
 * An unlocked decoder may drop Commit out of order (the spec sets no
 * order for it): the committed one above keeps the DPA base it latched,
 * even when the lower one's skip and size are rewritten.
 */
TEST(uncommit_out_of_order_keeps_upper_dpas)
{
	struct cxl_hdm ep;
	struct cxl_hdm_limits lim = { .capacity = 4 * GiB };
	uint64_t dpa = 0;

	hdm_init(&ep, false, 0);
	ASSERT_EQ(NULL, commit(&ep, 0, 0, GiB, ctrl(0, 0), 0, &lim));
	ASSERT_EQ(NULL, commit(&ep, 1, GiB, GiB, ctrl(0, 0), GiB, &lim));
	EXPECT_EQ(2 * GiB, ep.d[1].dpa_base);
	ASSERT_TRUE(cxl_hdm_ep_translate(&ep, GiB + 5, &dpa));
	EXPECT_EQ(2 * GiB + 5, dpa);
	/* Decoder 0 drops Commit and gets a new skip and size. */
	ep.d[0].ctrl &= ~(MCMGPU_HDM_CTRL_COMMIT | MCMGPU_HDM_CTRL_COMMITTED);
	ep.d[0].target = 512ULL << 20;
	ep.d[0].size = 2 * GiB;
	EXPECT_FALSE(cxl_hdm_ep_translate(&ep, 5, &dpa));
	ASSERT_TRUE(cxl_hdm_ep_translate(&ep, GiB + 5, &dpa));
	EXPECT_EQ(2 * GiB + 5, dpa);
	/* Under a committed decoder it cannot commit again. */
	EXPECT_NE(NULL, cxl_hdm_commit_check(&ep, 0, &lim));
}

TEST(decode_bijection_every_ways_and_granularity)
{
	unsigned int ways, ig;

	for (ways = 1; ways <= 4; ways *= 2)
		for (ig = 0; ig <= 6; ig++) {
			check_region(_metadata, ways, ig, 0);
			check_region(_metadata, ways, ig, 256 * MiB);
		}
}

/* Eight ways needs eight ports: a HB of its own. */
TEST(decode_eight_ways)
{
	static const uint8_t ids[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	struct cxl_hdm_limits lim = { .port_ids = ids, .ports = 8,
				      .window_size = 1ULL << 40 };
	struct cxl_hdm hb;
	unsigned int ig, i;
	uint8_t id;

	for (ig = 0; ig <= 6; ig++) {
		uint64_t gran = 256ULL << ig;

		hdm_init(&hb, true, 8);
		ASSERT_EQ(NULL, commit(&hb, 0, 0, 8 * 256 * MiB, ctrl(ig, 3),
				       0x0807060504030201ULL, &lim));
		for (i = 0; i < 64; i++) {
			uint64_t hpa = i * gran + i;

			ASSERT_TRUE(cxl_hdm_hb_route(&hb, hpa, &id));
			ASSERT_EQ(i % 8 + 1, id);
		}
	}
}

TEST(commit_rejections)
{
	struct cxl_hdm hb, ep;
	struct cxl_hdm_limits ep_lim = { .capacity = 1 * GiB };
	struct cxl_hdm_limits win = hb_lim;

	hdm_init(&hb, true, 4);
	/* Out of order: decoder 1 before decoder 0. */
	EXPECT_NE(NULL, commit(&hb, 1, 2 * GiB, GiB, ctrl(0, 0), 0x10, &hb_lim));
	hdm_init(&hb, true, 4);
	ASSERT_EQ(NULL, commit(&hb, 0, 2 * GiB, 2 * GiB, ctrl(0, 0), 0x10,
			       &hb_lim));
	/* Overlap: D1.base < D0.base + D0.size. */
	EXPECT_NE(NULL, commit(&hb, 1, 3 * GiB, GiB, ctrl(0, 0), 0x11, &hb_lim));
	/* Wraparound. */
	EXPECT_NE(NULL, commit(&hb, 1, ~0ULL << 28, GiB, ctrl(0, 0), 0x11,
			       &hb_lim));
	/* Duplicate targets; a target that is no root port. */
	EXPECT_NE(NULL, commit(&hb, 1, 4 * GiB, GiB, ctrl(0, 1), 0x1010,
			       &hb_lim));
	EXPECT_NE(NULL, commit(&hb, 1, 4 * GiB, GiB, ctrl(0, 1), 0x2010,
			       &hb_lim));
	/* Reserved IG and IW; 3-way (IW 8) and 16-way are not ours; 8 > 4. */
	EXPECT_NE(NULL, commit(&hb, 1, 4 * GiB, GiB, ctrl(7, 0), 0x10, &hb_lim));
	EXPECT_NE(NULL, commit(&hb, 1, 4 * GiB, GiB, ctrl(0, 8), 0x121110,
			       &hb_lim));
	EXPECT_NE(NULL, commit(&hb, 1, 4 * GiB, GiB, ctrl(0, 4), 0x10, &hb_lim));
	EXPECT_NE(NULL, commit(&hb, 1, 4 * GiB, GiB, ctrl(0, 3), 0x13121110,
			       &hb_lim));
	/* Outside the CXL window. */
	win.window_base = 4 * GiB;
	win.window_size = GiB;
	EXPECT_NE(NULL, commit(&hb, 1, 4 * GiB, 2 * GiB, ctrl(0, 0), 0x10,
			       &win));
	EXPECT_EQ(NULL, commit(&hb, 1, 4 * GiB, GiB, ctrl(0, 0), 0x10, &win));
	/* Zero size commits and decodes nothing. */
	EXPECT_EQ(NULL, commit(&hb, 2, 8 * GiB, 0, ctrl(0, 0), 0x10, &hb_lim));
	EXPECT_EQ(-1, cxl_hdm_find(&hb, 8 * GiB));
	/* ... with any target list, even no root port's. */
	EXPECT_EQ(NULL, commit(&hb, 3, 8 * GiB, 0, ctrl(0, 0), 0, &hb_lim));
	/* Decoder 1 again while 2 and 3 above it are committed. */
	hb.d[1].ctrl = 0;
	EXPECT_NE(NULL, commit(&hb, 1, 4 * GiB, GiB, ctrl(0, 0), 0x10, &win));

	/* Endpoint: DPA range beyond capacity, with and without a skip. */
	hdm_init(&ep, false, 0);
	EXPECT_NE(NULL, commit(&ep, 0, 0, 2 * GiB, ctrl(0, 0), 0, &ep_lim));
	hdm_init(&ep, false, 0);
	EXPECT_NE(NULL, commit(&ep, 0, 0, GiB, ctrl(0, 0), 256 * MiB,
			       &ep_lim));
	hdm_init(&ep, false, 0);
	EXPECT_EQ(NULL, commit(&ep, 0, 0, 2 * GiB, ctrl(0, 1), 0, &ep_lim));
	EXPECT_NE(NULL, commit(&ep, 1, 2 * GiB, 256 * MiB, ctrl(0, 0), 0,
			       &ep_lim));
	/* A skip near 2^64: the sum would wrap back inside the capacity. */
	hdm_init(&ep, false, 0);
	EXPECT_NE(NULL, commit(&ep, 0, 0, 512 * MiB, ctrl(0, 0),
			       -(256 * MiB), &ep_lim));
	hdm_init(&ep, false, 0);
	EXPECT_NE(NULL, commit(&ep, 0, 0, 512 * MiB, ctrl(0, 0),
			       -(1024 * MiB), &ep_lim));
}

/*
 * The host model's layouts (cxl_hdm_tree_commit, what mcmgpu cxl replay
 * --host --ways/--region commits): two regions, each region's ports in a
 * scrambled order, decode by the spec's arithmetic through both stages;
 * the second region's DPAs start after the first's share.
 */
TEST(tree_layouts_decode_as_the_spec_says)
{
	static const uint64_t cap[4] = { 1 * GiB, 1 * GiB, 1 * GiB, 1 * GiB };
	unsigned int ways, ig, i, bad, port;

	for (ways = 1; ways <= 4; ways *= 2)
		for (ig = 0; ig <= 6; ig++) {
			struct mcmgpu_cxl_region r[2] = { 0 };
			struct cxl_hdm_tree t;
			uint64_t window, gran = 256ULL << ig, dpa;
			unsigned int k;

			cxl_hdm_tree_init(&t, 4, cap, &window);
			ASSERT_EQ(4 * GiB, window);
			for (k = 0; k < 2; k++) {
				r[k].base = MCMGPU_CXL_WINDOW_BASE + k * ways * 512 * MiB;
				r[k].size = ways * 512 * MiB;
				r[k].ways = ways;
				r[k].granularity = gran;
			}
			for (k = 0; k < ways; k++)
				r[0].ports[k] = r[1].ports[k] = (ways - 1 - k);
			ASSERT_EQ(NULL, cxl_hdm_tree_commit(&t, r, 2, window, &bad));
			srandom(ways * 10 + ig);
			for (i = 0; i < 3000; i++) {
				uint64_t off = ((uint64_t)random() << 31 ^ random()) %
					       (2 * r[0].size), g, in;

				in = off % r[0].size;
				g = in / gran;
				ASSERT_TRUE(cxl_hdm_tree_route(&t, MCMGPU_CXL_WINDOW_BASE + off,
							       64, &port, &dpa));
				ASSERT_EQ(ways - 1 - g % ways, port);
				ASSERT_EQ(off / r[0].size * 512 * MiB +
					  g / ways * gran + in % gran, dpa);
			}
			ASSERT_FALSE(cxl_hdm_tree_route(&t, MCMGPU_CXL_WINDOW_BASE +
							2 * r[0].size, 64, &port, &dpa));
		}
}

/* Each layout the driver would refuse is refused, the region named. */
TEST(tree_rejections)
{
	static const uint64_t cap[4] = { 256 * MiB, 256 * MiB, 256 * MiB, 256 * MiB };
	static const struct {
		struct mcmgpu_cxl_region r;
		const char *why;
	} cases[] = {
		{ { 1 * GiB, 256 * MiB, 1, 256, { 0 } }, "outside the CXL window" },
		{ { 100 * MiB, 256 * MiB, 1, 256, { 0 } }, "multiple of 256 MiB" },
		{ { 0, 256 * MiB, 2, 256, { 0, 1 } }, "multiple of 256 MiB" },
		{ { 0, 512 * MiB, 2, 256, { 0, 0 } }, "named twice" },
		{ { 0, 512 * MiB, 2, 256, { 0, 7 } }, "does not exist" },
		{ { 0, 512 * MiB, 2, 32768, { 0, 1 } }, "no encoding" },
		{ { 0, 768 * MiB, 3, 256, { 0, 1, 2 } }, "no encoding" },
		{ { 0, 1 * GiB, 2, 256, { 0, 1 } }, "beyond the endpoint's capacity" },
	};
	unsigned int i, bad;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct mcmgpu_cxl_region r[2] = {
			{ MCMGPU_CXL_WINDOW_BASE, 256 * MiB, 1, 256, { 3 } },
			cases[i].r,
		};
		struct cxl_hdm_tree t;
		uint64_t window;
		const char *why;

		cxl_hdm_tree_init(&t, 4, cap, &window);
		r[1].base += MCMGPU_CXL_WINDOW_BASE + 256 * MiB;
		why = cxl_hdm_tree_commit(&t, r, 2, window, &bad);
		ASSERT_NE(NULL, why) TH_LOG("case %u", i);
		EXPECT_NE(NULL, strstr(why, cases[i].why)) TH_LOG("case %u: %s", i, why);
		EXPECT_EQ(1, bad);
	}
}

TEST_HARNESS_MAIN
