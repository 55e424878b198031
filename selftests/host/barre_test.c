// SPDX-License-Identifier: GPL-2.0
/*
 * Host tests of Barre's cores: the allocator (drivers/mcmgpu/gpu_alloc.c)
 * and the IOMMU walker with PEC (drivers/iommu/barre/barre_walk.c). The
 * paper's worked examples as exact values (notes §5d), then randomized
 * properties: every coalesced PFN equals the true walk, nothing is
 * translated outside its object or address space, no frame is owned twice.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"
#include "../lib/mcmgpu_test.h"
#include "../lib/barre_identities.h"
#include "../../drivers/mcmgpu/gpu_alloc.h"
#include "../../drivers/iommu/barre/barre_walk.h"
#include "barre_replay.h"

/* ---- Page tables in plain memory --------------------------------------- */

struct tables {
	long live;
};

static u64 t_alloc(void *priv)
{
	struct tables *t = priv;
	void *p = aligned_alloc(4096, 4096);

	if (!p)
		return 0;
	memset(p, 0, 4096);
	t->live++;
	return (u64)(uintptr_t)p;
}

static void t_free(void *priv, u64 table)
{
	struct tables *t = priv;

	free((void *)(uintptr_t)table);
	t->live--;
}

static u64 *t_map(void *priv, u64 table)
{
	return (u64 *)(uintptr_t)table;
}

struct env {
	struct tables tables;
	struct gpu_alloc_pt_ops ops;
	struct gpu_alloc_pools pools;
	u64 *storage;
	struct gpu_alloc_space as[4];
	u32 nspaces;
};

static void env_init(struct env *e, u32 chiplets, u32 frames, u32 spaces)
{
	u32 i;

	memset(e, 0, sizeof(*e));
	e->ops = (struct gpu_alloc_pt_ops){ t_alloc, t_free, t_map, &e->tables };
	e->storage = calloc((size_t)chiplets * gpu_alloc_pool_words(frames), 8);
	gpu_alloc_pools_init(&e->pools, chiplets, frames, e->storage);
	e->nspaces = spaces;
	for (i = 0; i < spaces; i++)
		gpu_alloc_space_init(&e->as[i], i + 1, &e->ops);
}

static void env_fini(struct env *e)
{
	u32 i;

	for (i = 0; i < e->nspaces; i++)
		gpu_alloc_space_destroy(&e->as[i]);
	free(e->storage);
}

/* Walker page-table access: PASID i + 1 is e->as[i]. */
static u64 w_root(void *priv, u32 pasid)
{
	struct env *e = priv;

	return pasid >= 1 && pasid <= e->nspaces ? e->as[pasid - 1].root : 0;
}

static u64 w_read(void *priv, u64 table, u32 index)
{
	return ((u64 *)(uintptr_t)table)[index];
}

/* The paper's Example 1 bases of the four chiplets' memories. */
static const __u64 paper_base[4] = { 0xA000, 0xB000, 0xC000, 0xD000 };

static void example_bases(struct env *e)
{
	u32 c;

	for (c = 0; c < 4; c++)
		e->pools.base[c] = paper_base[c];
}

/* A valid leaf PTE with its coalescing fields (intra and merged: F-Barre). */
static u64 coal_pte(u64 pfn, u64 bitmap, u64 pos, u64 intra, u64 merged)
{
	return MCMGPU_PTE_VALID | FIELD_PREP(MCMGPU_PTE_PFN_MASK, pfn) |
	       FIELD_PREP(MCMGPU_PTE_COAL_BITMAP_MASK, bitmap) |
	       FIELD_PREP(MCMGPU_PTE_COAL_POS_MASK, pos) |
	       FIELD_PREP(MCMGPU_PTE_COAL_INTRA_MASK, intra) |
	       FIELD_PREP(MCMGPU_PTE_COAL_MERGED_MASK, merged);
}

/* Only the given local frames free (in every chiplet of mask). */
static void pools_only(struct env *e, u32 mask, const u32 *frames, u32 n)
{
	u32 c, f, i;

	for (c = 0; c < e->pools.chiplets; c++)
		for (f = 0; f < e->pools.frames; f++)
			if (gpu_alloc_frame_is_free(&e->pools, c, f))
				gpu_alloc_frame_take(&e->pools, c, f);
	for (c = 0; c < e->pools.chiplets; c++)
		if (mask & (1U << c))
			for (i = 0; i < n; i++)
				gpu_alloc_frame_put(&e->pools, c, frames[i]);
}

/* Example 1 (notes §2.2): data 1, VPNs 0x1..0xC, g = 3, map 0..3. */
TEST(example1_layout_and_example3_pec_entry)
{
	static const u32 common[] = { 0x75, 0x88, 0x114 };
	struct gpu_alloc_alloc_req req = { .pages = 12, .policy = MCMGPU_ALLOC_CHUNK,
				    .g = 3, .barre = true };
	struct mcmgpu_pec_entry pe;
	struct gpu_alloc_object obj;
	struct env e;
	u64 pfn[12], i;

	env_init(&e, 4, 0x1000, 1);
	example_bases(&e);
	pools_only(&e, 0xf, common, 3);
	/* A frame free in only some chiplets is not common. */
	gpu_alloc_frame_put(&e.pools, 0, 0x10);
	gpu_alloc_frame_put(&e.pools, 1, 0x10);
	e.as[0].next_vpn = 0x1;
	ASSERT_EQ(0, gpu_alloc(&e.pools, &e.as[0], &req, &obj, pfn));
	EXPECT_EQ(0x1, obj.vpn);
	EXPECT_EQ(0xA075, pfn[0x1 - 1]);
	EXPECT_EQ(0xB088, pfn[0x5 - 1]);
	EXPECT_EQ(0xD114, pfn[0xC - 1]);
	/* G0 {1,4,7,A} at 0x75, G1 {2,5,8,B} at 0x88, G2 {3,6,9,C} at 0x114. */
	for (i = 0; i < 12; i++) {
		u64 pte = gpu_alloc_pte_get(&e.as[0], 0x1 + i);

		EXPECT_EQ(0xA000 + 0x1000 * (i / 3) + common[i % 3], pfn[i]);
		EXPECT_EQ(pfn[i], MCMGPU_PTE_PFN(pte));
		EXPECT_EQ(0xf, MCMGPU_PTE_COAL_BITMAP(pte));
		EXPECT_EQ(i / 3, MCMGPU_PTE_COAL_POS(pte));
	}
	EXPECT_EQ(3, obj.groups);
	EXPECT_EQ(12, obj.grouped_pages);
	EXPECT_EQ(0, obj.fallback_pages);

	/* Example 3: (0x1, 0xC, 3, 000 001 010 011). */
	gpu_alloc_pec_entry(&e.as[0], &obj, &pe);
	EXPECT_EQ(0x1, pe.start_vpn);
	EXPECT_EQ(0xC, pe.end_vpn);
	EXPECT_EQ(3, pe.g);
	EXPECT_EQ(4, pe.nmap);
	for (i = 0; i < 4; i++)
		EXPECT_EQ(i, pe.map[i]);

	gpu_alloc_free(&e.pools, &e.as[0], &obj);
	for (i = 0; i < 3; i++)
		EXPECT_TRUE(gpu_alloc_frame_is_free(&e.pools, 3, common[i]));
	EXPECT_EQ(0, gpu_alloc_pte_get(&e.as[0], 0x5));
	env_fini(&e);
	EXPECT_EQ(0, e.tables.live);
}

/* Example 4 (notes §2.6): walking 0x4 (0xB075, order 1) gives 0xA -> 0xD075. */
TEST(example4_pfn_calculation)
{
	struct mcmgpu_pec_entry pe = { .start_vpn = 0x1, .end_vpn = 0xC, .g = 3,
				       .nmap = 4, .map = { 0, 1, 2, 3 } };
	const __u64 *base = paper_base;
	u64 pte = coal_pte(0xB075, 0xf, 1, 0, 0);
	__u64 pfn = 0;

	ASSERT_EQ(1, mcmgpu_pec_calc(&pe, base, 0x4, pte, 0xA, &pfn));
	EXPECT_EQ(0xD075, pfn);
	ASSERT_EQ(1, mcmgpu_pec_calc(&pe, base, 0x4, pte, 0x1, &pfn));
	EXPECT_EQ(0xA075, pfn);
	ASSERT_EQ(1, mcmgpu_pec_calc(&pe, base, 0x4, pte, 0x4, &pfn));
	EXPECT_EQ(0xB075, pfn);
	/* Another group (0x5: delta 1), outside the object (0xD), no group. */
	EXPECT_EQ(0, mcmgpu_pec_calc(&pe, base, 0x4, pte, 0x5, &pfn));
	EXPECT_EQ(0, mcmgpu_pec_calc(&pe, base, 0x4, pte, 0xD, &pfn));
	EXPECT_EQ(0, mcmgpu_pec_calc(&pe, base, 0x4,
				     pte & ~MCMGPU_PTE_COAL_BITMAP_MASK,
				     0xA, &pfn));
	/* A hole: chiplet 3 not in the bitmap, so 0xA must be walked. */
	EXPECT_EQ(0, mcmgpu_pec_calc(&pe, base, 0x4,
				     pte & ~FIELD_PREP(MCMGPU_PTE_COAL_BITMAP_MASK, 0x8),
				     0xA, &pfn));
}

/* The expanded group of notes §3.2 (F-Barre's general form). */
TEST(expanded_group_general_formula)
{
	struct mcmgpu_pec_entry pe = { .start_vpn = 0x100, .end_vpn = 0x10F,
				       .g = 4, .nmap = 4, .map = { 0, 1, 2, 3 } };
	const __u64 *base = paper_base;
	u64 pte = coal_pte(0xB201, 0xf, 1, 1, 1);
	__u64 pfn = 0;

	ASSERT_EQ(1, mcmgpu_pec_calc(&pe, base, 0x105, pte, 0x10C, &pfn));
	EXPECT_EQ(0xD200, pfn);
	ASSERT_EQ(1, mcmgpu_pec_calc(&pe, base, 0x105, pte, 0x101, &pfn));
	EXPECT_EQ(0xA201, pfn);
	EXPECT_EQ(0, mcmgpu_pec_calc(&pe, base, 0x105, pte, 0x10E, &pfn));
}

/*
 * The allocator makes §3.2's expanded group: 4 chiplets, g = 4, merge 2,
 * local frames 0x200.. free everywhere: pages 0-1 of each chunk form one
 * group of 8 on frames 0x200/0x201, and walking 0x105 computes 0x10C.
 * Fig 14: with a 2-frame run free but not 3, a 3-page chunk under merge 4
 * becomes a merged pair plus a plain group.
 */
TEST(expansion_builds_notes_example_and_fig14)
{
	struct mcmgpu_pec_entry pe;
	struct gpu_alloc_alloc_req req = { .pages = 16, .policy = MCMGPU_ALLOC_CHUNK,
				    .g = 4, .merge = 2, .barre = true };
	struct gpu_alloc_object obj;
	u64 pfn[16], pte;
	__u64 out;
	struct env e;
	u32 c, f;

	env_init(&e, 4, 0x1000, 1);
	example_bases(&e);
	for (c = 0; c < 4; c++)
		for (f = 0; f < 0x200; f++)
			gpu_alloc_frame_take(&e.pools, c, f);
	e.as[0].next_vpn = 0x100;
	ASSERT_EQ(0, gpu_alloc(&e.pools, &e.as[0], &req, &obj, pfn));
	EXPECT_EQ(2, obj.groups);
	EXPECT_EQ(2, obj.merged_groups);
	EXPECT_EQ(16, obj.grouped_pages);
	EXPECT_EQ(0xB201, pfn[5]);
	EXPECT_EQ(0xD200, pfn[12]);
	EXPECT_EQ(0xA203, pfn[3]);
	pte = gpu_alloc_pte_get(&e.as[0], 0x105);
	EXPECT_EQ(1, MCMGPU_PTE_COAL_INTRA(pte));
	EXPECT_EQ(1, MCMGPU_PTE_COAL_MERGED(pte));
	EXPECT_EQ(0xf, MCMGPU_PTE_COAL_BITMAP(pte));
	gpu_alloc_pec_entry(&e.as[0], &obj, &pe);
	ASSERT_EQ(1, mcmgpu_pec_calc(&pe, paper_base, 0x105, pte, 0x10C, &out));
	EXPECT_EQ(0xD200, out);
	EXPECT_EQ(0, mcmgpu_pec_calc(&pe, paper_base, 0x105, pte, 0x10E, &out));
	gpu_alloc_free(&e.pools, &e.as[0], &obj);

	/* Fig 14: only frames 0x200, 0x201 and 0x203 free. */
	for (c = 0; c < 4; c++)
		for (f = 0x202; f < 0x1000; f++)
			if (f != 0x203)
				gpu_alloc_frame_take(&e.pools, c, f);
	req = (struct gpu_alloc_alloc_req){ .pages = 12, .policy = MCMGPU_ALLOC_CHUNK,
				     .g = 3, .merge = 4, .barre = true };
	ASSERT_EQ(0, gpu_alloc(&e.pools, &e.as[0], &req, &obj, pfn));
	EXPECT_EQ(2, obj.groups);
	EXPECT_EQ(1, obj.merged_groups);
	EXPECT_EQ(12, obj.grouped_pages);
	for (c = 0; c < 4; c++) {
		EXPECT_EQ(e.pools.base[c] + 0x200, pfn[c * 3]);
		EXPECT_EQ(e.pools.base[c] + 0x201, pfn[c * 3 + 1]);
		EXPECT_EQ(e.pools.base[c] + 0x203, pfn[c * 3 + 2]);
		pte = gpu_alloc_pte_get(&e.as[0], obj.vpn + c * 3 + 2);
		EXPECT_EQ(0, MCMGPU_PTE_COAL_MERGED(pte));
		EXPECT_EQ(c, MCMGPU_PTE_COAL_POS(pte));
	}
	gpu_alloc_free(&e.pools, &e.as[0], &obj);
	env_fini(&e);
}

/*
 * Fig 7a: objects of 12, 4 and 3 pages on 4 chiplets make 5 groups over
 * 19 pages; Example 2: data 3 spans chiplets 0-2 (bitmap 0x07), and its
 * last page has order 2.
 */
TEST(fig7a_five_groups_and_example2)
{
	struct gpu_alloc_alloc_req d1 = { .pages = 12, .policy = MCMGPU_ALLOC_CHUNK,
				   .g = 3, .barre = true };
	struct gpu_alloc_alloc_req d2 = { .pages = 4, .policy = MCMGPU_ALLOC_RR,
				   .barre = true };
	struct gpu_alloc_alloc_req d3 = { .pages = 3, .policy = MCMGPU_ALLOC_RR,
				   .barre = true };
	struct gpu_alloc_object o1, o2, o3;
	u64 p1[12], p2[4], p3[3], pte;
	struct env e;

	env_init(&e, 4, 1024, 1);
	ASSERT_EQ(0, gpu_alloc(&e.pools, &e.as[0], &d1, &o1, p1));
	ASSERT_EQ(0, gpu_alloc(&e.pools, &e.as[0], &d2, &o2, p2));
	ASSERT_EQ(0, gpu_alloc(&e.pools, &e.as[0], &d3, &o3, p3));
	EXPECT_EQ(5, o1.groups + o2.groups + o3.groups);
	EXPECT_EQ(19, o1.grouped_pages + o2.grouped_pages + o3.grouped_pages);
	pte = gpu_alloc_pte_get(&e.as[0], o3.vpn + 2);
	EXPECT_EQ(0x07, MCMGPU_PTE_COAL_BITMAP(pte));
	EXPECT_EQ(2, MCMGPU_PTE_COAL_POS(pte));
	EXPECT_EQ(2 * 1024 + MCMGPU_PTE_PFN(gpu_alloc_pte_get(&e.as[0], o3.vpn)),
		  MCMGPU_PTE_PFN(pte));
	gpu_alloc_free(&e.pools, &e.as[0], &o1);
	gpu_alloc_free(&e.pools, &e.as[0], &o2);
	gpu_alloc_free(&e.pools, &e.as[0], &o3);
	env_fini(&e);
}

/*
 * An arbitrary GPU_map (Fig 10 right; the figure's exact map is not in the
 * text, so ours is 1, 0, 3, 2): positions go to chiplets in map order and
 * PEC computes across them.
 */
TEST(arbitrary_gpu_map)
{
	struct gpu_alloc_alloc_req req = { .pages = 8, .policy = MCMGPU_ALLOC_CHUNK,
				    .g = 2, .nmap = 4, .map = { 1, 0, 3, 2 },
				    .barre = true };
	struct mcmgpu_pec_entry pe;
	struct gpu_alloc_object obj;
	__u64 base[4], pfn;
	struct env e;
	u64 p[8], i, j;

	env_init(&e, 4, 256, 1);
	for (i = 0; i < 4; i++)
		base[i] = e.pools.base[i];
	ASSERT_EQ(0, gpu_alloc(&e.pools, &e.as[0], &req, &obj, p));
	for (i = 0; i < 8; i++)
		EXPECT_EQ(req.map[i / 2], (p[i] / 256)) TH_LOG("page %lu", (unsigned long)i);
	gpu_alloc_pec_entry(&e.as[0], &obj, &pe);
	for (i = 0; i < 8; i++)
		for (j = 0; j < 8; j++) {
			int in = mcmgpu_pec_calc(&pe, base, obj.vpn + i,
						 gpu_alloc_pte_get(&e.as[0], obj.vpn + i),
						 obj.vpn + j, &pfn);

			EXPECT_EQ(i % 2 == j % 2, in);
			if (in)
				EXPECT_EQ(p[j], pfn);
		}
	gpu_alloc_free(&e.pools, &e.as[0], &obj);
	env_fini(&e);
}

/*
 * Count mode (§VI, mcmgpu_barre.h), hand-computed: 16 chiplets of 0x100
 * frames (base c * 0x100), GPU_map reversed (position k on chiplet
 * 15 - k), g = 2, 28 pages: one short round, so each group is positions
 * 0..13 (count 14, "1110"). Frame 0 of chiplet 9 is taken, so group 0
 * takes frame 1 and group 1 frame 2: page i = 2k + j is at
 * (15 - k) * 0x100 + 1 + j.
 */
static int alloc16(struct env *e, struct gpu_alloc_object *obj, u64 *pfn,
		   struct mcmgpu_pec_entry *pe)
{
	struct gpu_alloc_alloc_req req = { .pages = 28, .policy = MCMGPU_ALLOC_CHUNK,
				    .g = 2, .nmap = 16, .barre = true };
	u32 k;

	for (k = 0; k < 16; k++)
		req.map[k] = 15 - k;
	env_init(e, 16, 0x100, 1);
	gpu_alloc_frame_take(&e->pools, 9, 0);
	if (gpu_alloc(&e->pools, &e->as[0], &req, obj, pfn))
		return -1;
	gpu_alloc_pec_entry(&e->as[0], obj, pe);
	return 0;
}

TEST(count_mode_16_chiplets)
{
	struct gpu_alloc_alloc_req merged = { .pages = 8, .policy = MCMGPU_ALLOC_CHUNK,
				       .g = 2, .nmap = 4, .map = { 0, 1, 2, 3 },
				       .merge = 2, .barre = true };
	struct mcmgpu_pec_entry pe, bm;
	struct gpu_alloc_object obj;
	const char *field;
	__u64 base[16], out = 0;
	u64 pfn[28], i, pte, walked;
	struct env e;

	ASSERT_EQ(0, alloc16(&e, &obj, pfn, &pe));
	for (i = 0; i < 16; i++)
		base[i] = e.pools.base[i];
	EXPECT_EQ(2, obj.groups);
	EXPECT_EQ(28, obj.grouped_pages);
	EXPECT_EQ(0, obj.fallback_pages);
	EXPECT_EQ(1, pe.coal_count);
	EXPECT_EQ(16, pe.nmap);
	for (i = 0; i < 28; i++) {
		pte = gpu_alloc_pte_get(&e.as[0], obj.vpn + i);
		EXPECT_EQ((15 - i / 2) * 0x100 + 1 + i % 2, pfn[i]) TH_LOG("page %lu", (unsigned long)i);
		EXPECT_EQ(pfn[i], MCMGPU_PTE_PFN(pte));
		EXPECT_EQ(14, MCMGPU_PTE_COAL_BITMAP(pte));
		EXPECT_EQ(i / 2, FIELD_GET(MCMGPU_PTE_COAL_POS16_MASK, pte));
	}
	/* Page 22: position 11 (bit 51 set), chiplet 4, frame 1, count 14. */
	walked = gpu_alloc_pte_get(&e.as[0], obj.vpn + 22);
	EXPECT_EQ(0x000b0e0000401003ULL, walked);
	/* Its group across 14 chiplets: position 3 on chiplet 12, 13 on 2. */
	ASSERT_EQ(1, mcmgpu_pec_calc_pte(&pe, base, obj.vpn + 22, walked, obj.vpn + 6, &out));
	EXPECT_EQ(0x00030e0000c01003ULL, out);
	ASSERT_EQ(1, mcmgpu_pec_calc(&pe, base, obj.vpn + 22, walked, obj.vpn + 26, &out));
	EXPECT_EQ(0x201, out);
	ASSERT_EQ(1, mcmgpu_pec_calc(&pe, base, obj.vpn + 22, walked, obj.vpn + 0, &out));
	EXPECT_EQ(0xf01, out);
	/* Group 1 (page 7) is another group. */
	EXPECT_EQ(0, mcmgpu_pec_calc(&pe, base, obj.vpn + 22, walked, obj.vpn + 7, &out));
	/*
	 * "0110" = 6 consecutive chiplets: positions 0..5. Walking page 8
	 * (position 4, 0xb01) computes position 5 (0xa01), never 6; a
	 * walked page at position 11 is outside its own count.
	 */
	pte = (gpu_alloc_pte_get(&e.as[0], obj.vpn + 8) & ~MCMGPU_PTE_COAL_BITMAP_MASK) |
	      FIELD_PREP(MCMGPU_PTE_COAL_BITMAP_MASK, 6);
	ASSERT_EQ(1, mcmgpu_pec_calc(&pe, base, obj.vpn + 8, pte, obj.vpn + 10, &out));
	EXPECT_EQ(0xa01, out);
	EXPECT_EQ(0, mcmgpu_pec_calc(&pe, base, obj.vpn + 8, pte, obj.vpn + 12, &out));
	pte = (walked & ~MCMGPU_PTE_COAL_BITMAP_MASK) | FIELD_PREP(MCMGPU_PTE_COAL_BITMAP_MASK, 6);
	EXPECT_EQ(0, mcmgpu_pec_calc(&pe, base, obj.vpn + 22, pte, obj.vpn + 6, &out));
	/* Read as a bitmap, 14 is chiplets 1-3: chiplet 4's page is not in it. */
	bm = pe;
	bm.coal_count = 0;
	EXPECT_EQ(0, mcmgpu_pec_calc(&bm, base, obj.vpn + 22, walked, obj.vpn + 6, &out));
	/* No F-Barre expansion in count mode (§VI: at most 4 chiplets). */
	EXPECT_EQ(-EINVAL, gpu_alloc_alloc_check(&e.pools, &merged, &field));
	EXPECT_STREQ("merge", field);
	gpu_alloc_free(&e.pools, &e.as[0], &obj);
	env_fini(&e);
	env_init(&e, 4, 0x100, 1);
	EXPECT_EQ(0, gpu_alloc_alloc_check(&e.pools, &merged, &field));
	env_fini(&e);
}

TEST(bad_requests_are_refused)
{
	struct gpu_alloc_alloc_req req = { .pages = 8, .policy = MCMGPU_ALLOC_CHUNK,
				    .g = 2 };
	const char *field;
	struct gpu_alloc_object obj;
	struct env e;
	u64 p[8];

	env_init(&e, 4, 256, 1);
	req.pages = 0;
	EXPECT_EQ(-EINVAL, gpu_alloc_alloc_check(&e.pools, &req, &field));
	EXPECT_STREQ("pages", field);
	req.pages = 4 * 256 + 1;
	EXPECT_EQ(-EINVAL, gpu_alloc_alloc_check(&e.pools, &req, &field));
	req.pages = 8;
	req.g = 0;
	EXPECT_EQ(-EINVAL, gpu_alloc_alloc_check(&e.pools, &req, &field));
	EXPECT_STREQ("g", field);
	req.g = 2;
	req.policy = 7;
	EXPECT_EQ(-EINVAL, gpu_alloc_alloc_check(&e.pools, &req, &field));
	EXPECT_STREQ("policy", field);
	req.policy = MCMGPU_ALLOC_CHUNK;
	req.nmap = 2;
	req.map[0] = 1;
	req.map[1] = 1;
	EXPECT_EQ(-EINVAL, gpu_alloc(&e.pools, &e.as[0], &req, &obj, p));
	req.map[1] = 4;
	EXPECT_EQ(-EINVAL, gpu_alloc_alloc_check(&e.pools, &req, &field));
	EXPECT_STREQ("map", field);
	/* A chiplet id past any shift width (the debug kernel's UBSAN found it). */
	req.map[1] = 200;
	EXPECT_EQ(-EINVAL, gpu_alloc_alloc_check(&e.pools, &req, &field));
	EXPECT_STREQ("map", field);
	/* Out of frames: -ENOMEM and nothing kept. */
	req.nmap = 0;
	req.pages = 8;
	pools_only(&e, 0xf, (const u32[]){ 1, 2, 3 }, 1);
	EXPECT_EQ(-ENOMEM, gpu_alloc(&e.pools, &e.as[0], &req, &obj, p));
	EXPECT_TRUE(gpu_alloc_frame_is_free(&e.pools, 0, 1));
	EXPECT_EQ(1, e.pools.free_frames[0]);
	EXPECT_EQ(0, gpu_alloc_pte_get(&e.as[0], GPU_ALLOC_FIRST_VPN));
	env_fini(&e);
}

/* ---- Randomized properties --------------------------------------------- */

struct live {
	struct gpu_alloc_object obj;
	u64 *pfn;
	u32 space;
	bool used;
};

/* Every frame owned once; every PTE equals the object's record; groups sound. */
static void check_layout(struct __test_metadata *_metadata, struct env *e,
			 struct live *objs, u32 nobj, const u8 *pretaken)
{
	u32 c, frames = e->pools.frames;
	u8 *owner = calloc((size_t)e->pools.chiplets * frames, 1);
	u32 o;
	u64 i;

	for (o = 0; o < nobj; o++) {
		struct gpu_alloc_object *ob = &objs[o].obj;

		if (!objs[o].used)
			continue;
		for (i = 0; i < ob->pages; i++) {
			u64 pte = gpu_alloc_pte_get(&e->as[objs[o].space], ob->vpn + i);
			u64 pfn = objs[o].pfn[i];
			u32 chip = gpu_alloc_page_chiplet(ob, i);
			u32 bm = MCMGPU_PTE_COAL_BITMAP(pte);

			ASSERT_EQ(pfn, MCMGPU_PTE_PFN(pte));
			ASSERT_EQ(chip, pfn / frames);
			ASSERT_EQ(0, owner[pfn]) TH_LOG("frame %lu twice", (unsigned long)pfn);
			ASSERT_FALSE(pretaken[pfn]);
			ASSERT_FALSE(gpu_alloc_frame_is_free(&e->pools, chip, pfn % frames));
			owner[pfn] = 1;
			if (mcmgpu_popcount8(bm) >= 2) {
				u32 k, xx, pos = MCMGPU_PTE_COAL_POS(pte);
				u32 x = MCMGPU_PTE_COAL_INTRA(pte);
				u32 run = 1 + MCMGPU_PTE_COAL_MERGED(pte);
				u64 first = i - x - pos * ob->g;

				ASSERT_TRUE(ob->barre);
				ASSERT_EQ(gpu_alloc_page_pos(ob, i), pos);
				ASSERT_TRUE(bm & (1U << chip));
				/* A merged run stays in its chunk: m <= g, no crossing. */
				ASSERT_LE(run, ob->merge);
				ASSERT_LT(x, run);
				ASSERT_LE(first % ob->g + run, ob->g);
				for (k = 0; k < ob->nmap; k++) {
					if (!(bm & (1U << ob->map[k])))
						continue;
					for (xx = 0; xx < run; xx++) {
						u64 sib = first + (u64)k * ob->g + xx, spte;

						ASSERT_LT(sib, ob->pages);
						spte = gpu_alloc_pte_get(&e->as[objs[o].space],
								  ob->vpn + sib);
						ASSERT_EQ(bm, MCMGPU_PTE_COAL_BITMAP(spte));
						ASSERT_EQ(k, MCMGPU_PTE_COAL_POS(spte));
						ASSERT_EQ(xx, MCMGPU_PTE_COAL_INTRA(spte));
						ASSERT_EQ(run - 1, MCMGPU_PTE_COAL_MERGED(spte));
						ASSERT_EQ(pfn % frames - x + xx,
							  MCMGPU_PTE_PFN(spte) % frames);
					}
				}
			} else {
				ASSERT_EQ(0, pte & (MCMGPU_PTE_COAL_MASK |
						     MCMGPU_PTE_RESERVED_MASK));
			}
		}
	}
	for (c = 0; c < e->pools.chiplets; c++) {
		u32 f, free = 0;

		for (f = 0; f < frames; f++) {
			bool is_free = gpu_alloc_frame_is_free(&e->pools, c, f);

			free += is_free;
			ASSERT_EQ(!is_free, owner[c * frames + f] || pretaken[c * frames + f]);
		}
		ASSERT_EQ(free, e->pools.free_frames[c]);
	}
	free(owner);
}

/* PEC over every walked page and candidate: computed = true walk, or no. */
static void check_pec(struct __test_metadata *_metadata, struct env *e,
		      struct live *objs, u32 nobj)
{
	__u64 base[MCMGPU_MAX_CHIPLETS], pfn;
	u32 o, c;
	u64 i, j;

	for (c = 0; c < e->pools.chiplets; c++)
		base[c] = e->pools.base[c];
	for (o = 0; o < nobj; o++) {
		struct gpu_alloc_object *ob = &objs[o].obj;
		struct mcmgpu_pec_entry pe;
		struct gpu_alloc_space *as = &e->as[objs[o].space];

		if (!objs[o].used)
			continue;
		gpu_alloc_pec_entry(as, ob, &pe);
		for (i = 0; i < ob->pages; i++) {
			u64 pte = gpu_alloc_pte_get(as, ob->vpn + i);
			u64 members = 0;

			/* Candidates: the object and a margin around it. */
			for (j = 0; j < ob->pages + 4; j++) {
				u64 vpn = ob->vpn + j - 2;
				u64 truth = gpu_alloc_pte_get(as, vpn);

				if (!mcmgpu_pec_calc_pte(&pe, base, ob->vpn + i, pte, vpn,
							 &pfn))
					continue;
				members++;
				/* The whole PTE: PFN, permission, group coordinates. */
				ASSERT_EQ(truth, pfn)
					TH_LOG("object %u page %lu -> vpn 0x%lx", o,
					       (unsigned long)i, (unsigned long)vpn);
			}
			ASSERT_EQ(mcmgpu_popcount8(MCMGPU_PTE_COAL_BITMAP(pte)) >= 2 ?
				  mcmgpu_popcount8(MCMGPU_PTE_COAL_BITMAP(pte)) *
				  (1 + MCMGPU_PTE_COAL_MERGED(pte)) : 0,
				  members);
		}
	}
}

TEST(random_layouts_frees_and_pec)
{
	u64 seed = 0x5eed;
	int iter;

	for (iter = 0; iter < 60; iter++) {
		static const u32 nchip[] = { 2, 4, 8 };
		u32 chiplets = nchip[mt_xorshift64(&seed) % 3];
		u32 frames = 64 + mt_xorshift64(&seed) % 512;
		struct live objs[24];
		struct env e;
		u8 *pretaken;
		u32 o, c, f, frag = mt_xorshift64(&seed) % 91;

		env_init(&e, chiplets, frames, 2);
		pretaken = calloc((size_t)chiplets * frames, 1);
		/* Pre-fragment: frag % of each pool taken at random. */
		for (c = 0; c < chiplets; c++)
			for (f = 0; f < frames; f++)
				if (mt_xorshift64(&seed) % 100 < frag) {
					gpu_alloc_frame_take(&e.pools, c, f);
					pretaken[c * frames + f] = 1;
				}
		memset(objs, 0, sizeof(objs));
		for (o = 0; o < 24; o++) {
			struct gpu_alloc_alloc_req req = { 0 };
			u32 k, n, perm[MCMGPU_MAX_CHIPLETS];
			int ret;

			req.pages = 1 + mt_xorshift64(&seed) % (frames / 4 + 1);
			req.policy = mt_xorshift64(&seed) % MCMGPU_ALLOC_POLICIES;
			req.g = 1 + mt_xorshift64(&seed) % 6;
			if (req.g > req.pages)
				req.g = req.pages;
			req.barre = mt_xorshift64(&seed) % 4 != 0;
			req.writable = mt_xorshift64(&seed) & 1;
			/* F-Barre's expansion on at most 4 chiplets. */
			req.merge = mt_xorshift64(&seed) % 5;
			/* A random subset of chiplets in random order, or the default. */
			n = mt_xorshift64(&seed) % (chiplets + 1);
			for (k = 0; k < chiplets; k++)
				perm[k] = k;
			for (k = 0; k < chiplets; k++) {
				u32 r = k + mt_xorshift64(&seed) % (chiplets - k), t = perm[k];

				perm[k] = perm[r];
				perm[r] = t;
			}
			req.nmap = n;
			for (k = 0; k < n; k++)
				req.map[k] = perm[k];
			objs[o].pfn = malloc(req.pages * sizeof(u64));
			objs[o].space = mt_xorshift64(&seed) % 2;
			if (req.merge > 1 && (n ? n : chiplets) > 4) {
				const char *field;

				ASSERT_EQ(-EINVAL, gpu_alloc_alloc_check(&e.pools, &req, &field));
				ASSERT_STREQ("merge", field);
				req.merge = 1;
			}
			ret = gpu_alloc(&e.pools, &e.as[objs[o].space], &req,
				       &objs[o].obj, objs[o].pfn);
			ASSERT_TRUE(ret == 0 || ret == -ENOMEM) TH_LOG("ret %d", ret);
			objs[o].used = ret == 0;
			if (!objs[o].used)
				free(objs[o].pfn);
			/* Now and then free a random earlier object. */
			if (mt_xorshift64(&seed) % 3 == 0) {
				u32 v = mt_xorshift64(&seed) % (o + 1);

				if (objs[v].used) {
					struct gpu_alloc_object *ob = &objs[v].obj;
					u64 i;

					gpu_alloc_free(&e.pools, &e.as[objs[v].space], ob);
					for (i = 0; i < ob->pages; i++)
						ASSERT_EQ(0, gpu_alloc_pte_get(&e.as[objs[v].space],
									ob->vpn + i));
					objs[v].used = false;
					free(objs[v].pfn);
				}
			}
			check_layout(_metadata, &e, objs, o + 1, pretaken);
		}
		check_pec(_metadata, &e, objs, 24);
		for (o = 0; o < 24; o++)
			if (objs[o].used) {
				gpu_alloc_free(&e.pools, &e.as[objs[o].space], &objs[o].obj);
				free(objs[o].pfn);
			}
		for (c = 0; c < chiplets; c++) {
			u32 taken = 0;

			for (f = 0; f < frames; f++)
				taken += pretaken[c * frames + f];
			EXPECT_EQ(frames - taken, e.pools.free_frames[c]);
		}
		free(pretaken);
		env_fini(&e);
		ASSERT_EQ(0, e.tables.live);
	}
}

/* ---- The walker ------------------------------------------------------- */

struct answers {
	struct barre_walker_response r[BARRE_WALKER_MAX_INFLIGHT * 4];
	u32 n;
};

static void collect(void *priv, const struct barre_walker_response *rsp)
{
	struct answers *a = priv;

	a->r[a->n++] = *rsp;
}

static void walker_env(struct env *e, struct barre_walker *b, struct answers *a,
		       u32 walkers, u32 pec, bool shadow)
{
	struct barre_walker_pt_ops ops = { w_root, w_read, e, NULL };
	struct barre_walker_config cfg;
	u32 c;

	barre_walker_default_config(&cfg, e->pools.chiplets, e->pools.frames);
	for (c = 0; c < e->pools.chiplets; c++)
		cfg.base[c] = e->pools.base[c];
	cfg.walkers = walkers;
	cfg.pec_entries = pec;
	cfg.shadow = shadow;
	memset(a, 0, sizeof(*a));
	barre_walker_init(b, &cfg, &ops, collect, a);
}

/*
 * Example 1's data 1 in a fresh environment: 12 pages, g = 3, at VPN 0x1,
 * its groups on the common frames 0x75, 0x88 and 0x114 of four chiplets.
 */
static int example1_data1(struct env *e, struct gpu_alloc_object *obj, u64 *pfn,
			  struct mcmgpu_pec_entry *pe)
{
	static const u32 common[] = { 0x75, 0x88, 0x114 };
	struct gpu_alloc_alloc_req req = { .pages = 12, .policy = MCMGPU_ALLOC_CHUNK,
				    .g = 3, .barre = true };
	int ret;

	env_init(e, 4, 0x1000, 1);
	example_bases(e);
	pools_only(e, 0xf, common, 3);
	e->as[0].next_vpn = 0x1;
	ret = gpu_alloc(&e->pools, &e->as[0], &req, obj, pfn);
	if (!ret)
		gpu_alloc_pec_entry(&e->as[0], obj, pe);
	return ret;
}

/*
 * One walker, the four pages of G0 of Example 1 arriving together: the
 * first is walked (500 cycles) and PEC completes the three others.
 */
TEST(walker_coalesces_pending_group)
{
	static struct barre_walker b;
	static struct answers a;
	struct mcmgpu_pec_entry pe;
	struct gpu_alloc_object obj;
	struct env e;
	u64 pfn[12];
	u32 i;

	ASSERT_EQ(0, example1_data1(&e, &obj, pfn, &pe));

	walker_env(&e, &b, &a, 1, 5, true);
	ASSERT_EQ(1, barre_walker_pec_add(&b, &pe));
	for (i = 0; i < 4; i++) {
		struct barre_walker_request r = { .tag = i, .vpn = 0x1 + 3 * i, .arrive = 0,
					.pasid = 1, .chiplet = i };

		ASSERT_EQ(0, barre_walker_submit(&b, &r));
	}
	barre_walker_advance(&b, 10000);
	ASSERT_EQ(4, a.n);
	EXPECT_EQ(1, b.stats.walks);
	EXPECT_EQ(3, b.stats.coalesced);
	EXPECT_EQ(1, b.stats.pec_hits);
	EXPECT_EQ(0, b.stats.shadow_mismatches);
	EXPECT_EQ(4 * 500, b.stats.service_cycles);
	for (i = 0; i < 4; i++) {
		EXPECT_EQ(500, a.r[i].done);
		EXPECT_EQ(0xA075 + 0x1000 * a.r[i].tag, a.r[i].pfn);
		EXPECT_EQ(a.r[i].tag != 0, a.r[i].coalesced);
	}

	/* Barre off (no PEC entries): four walks, one after another. */
	walker_env(&e, &b, &a, 1, 0, true);
	for (i = 0; i < 4; i++) {
		struct barre_walker_request r = { .tag = i, .vpn = 0x1 + 3 * i, .arrive = 0,
					.pasid = 1, .chiplet = i };

		ASSERT_EQ(0, barre_walker_submit(&b, &r));
	}
	barre_walker_advance(&b, 10000);
	EXPECT_EQ(4, b.stats.walks);
	EXPECT_EQ(0, b.stats.coalesced);
	EXPECT_EQ(500 + 1000 + 1500 + 2000, b.stats.service_cycles);

	/* Sixteen walkers: all four start at once, nothing is pending. */
	walker_env(&e, &b, &a, 16, 5, true);
	barre_walker_pec_add(&b, &pe);
	for (i = 0; i < 4; i++) {
		struct barre_walker_request r = { .tag = i, .vpn = 0x1 + 3 * i, .arrive = 0,
					.pasid = 1, .chiplet = i };

		ASSERT_EQ(0, barre_walker_submit(&b, &r));
	}
	barre_walker_advance(&b, 10000);
	EXPECT_EQ(4, b.stats.walks);
	EXPECT_EQ(0, b.stats.coalesced);

	/* Another address space's request is not coalesced; a fault is a fault. */
	walker_env(&e, &b, &a, 1, 5, true);
	barre_walker_pec_add(&b, &pe);
	{
		struct barre_walker_request r0 = { .tag = 0, .vpn = 0x1, .pasid = 1 };
		struct barre_walker_request r1 = { .tag = 1, .vpn = 0x4, .pasid = 2 };
		struct barre_walker_request r2 = { .tag = 2, .vpn = 0x400, .pasid = 1 };

		barre_walker_submit(&b, &r0);
		barre_walker_submit(&b, &r1);
		barre_walker_submit(&b, &r2);
	}
	barre_walker_advance(&b, 10000);
	EXPECT_EQ(3, b.stats.walks);
	EXPECT_EQ(0, b.stats.coalesced);
	EXPECT_EQ(2, b.stats.faults);
	gpu_alloc_free(&e.pools, &e.as[0], &obj);
	env_fini(&e);
}

/*
 * Count mode in the IOMMU: count_mode_16_chiplets' object, one walker,
 * group 0's 14 pages (chiplets 15..2) and page 1 of group 1 arriving
 * together: the first walk completes the 13 others of its group across
 * 14 chiplets, group 1's page takes the second walk.
 */
TEST(walker_coalesces_16_chiplets)
{
	static struct barre_walker b;
	static struct answers a;
	struct mcmgpu_pec_entry pe;
	struct gpu_alloc_object obj;
	struct env e;
	u64 pfn[28];
	u32 i;

	ASSERT_EQ(0, alloc16(&e, &obj, pfn, &pe));
	walker_env(&e, &b, &a, 1, 5, true);
	ASSERT_EQ(16, b.cfg.chiplets);
	ASSERT_EQ(1, barre_walker_pec_add(&b, &pe));
	for (i = 0; i < 15; i++) {
		struct barre_walker_request r = {
			.tag = i, .vpn = obj.vpn + (i < 14 ? 2 * i : 1),
			.pasid = 1, .chiplet = i < 14 ? 15 - i : 15,
		};

		ASSERT_EQ(0, barre_walker_submit(&b, &r));
	}
	barre_walker_advance(&b, 10000);
	ASSERT_EQ(15, a.n);
	EXPECT_EQ(2, b.stats.walks);
	EXPECT_EQ(13, b.stats.coalesced);
	EXPECT_EQ(0, b.stats.shadow_mismatches);
	for (i = 0; i < 15; i++) {
		const struct barre_walker_response *r = &a.r[i];
		u64 t = r->tag;

		EXPECT_EQ(t < 14 ? (15 - t) * 0x100 + 1 : 0xf02, r->pfn) TH_LOG("tag %lu", (unsigned long)t);
		EXPECT_EQ(t < 14 ? 500 : 1000, r->done);
		EXPECT_EQ(t != 0 && t < 14, r->coalesced);
		/* F-Barre's extension carries the count and the mode. */
		EXPECT_EQ(14, MCMGPU_PTE_COAL_BITMAP(r->coal));
		EXPECT_EQ(1, r->pec.coal_count);
	}
	gpu_alloc_free(&e.pools, &e.as[0], &obj);
	env_fini(&e);
}

/* G0 of Example 1 (0x1, 0x4, 0x7, 0xA) arriving together at cycle at. */
static void submit_g0(struct barre_walker *b, u64 at)
{
	u32 i;

	for (i = 0; i < 4; i++) {
		struct barre_walker_request r = { .tag = i, .vpn = 0x1 + 3 * i, .arrive = at,
					.pasid = 1, .chiplet = i };

		barre_walker_submit(b, &r);
	}
}

/*
 * Issue 32 item 9: a reset (BARRE_RUN's F_RESET) empties the walkers and
 * queues but keeps the PEC entries ALLOC registered once, and a reloaded
 * IOMMU given the buffer back (barre_walker_pec_restore) coalesces as before: one
 * walk and three coalesced answers that carry the object's entry.
 */
TEST(reset_and_reload_keep_pec_entries)
{
	static struct barre_walker b;
	static struct answers a;
	struct mcmgpu_pec_entry pe, saved[BARRE_WALKER_MAX_PEC];
	struct barre_walker_config cfg;
	struct gpu_alloc_object obj;
	struct env e;
	u64 pfn[12];
	u32 i;

	ASSERT_EQ(0, example1_data1(&e, &obj, pfn, &pe));
	walker_env(&e, &b, &a, 1, 5, true);
	ASSERT_EQ(1, barre_walker_pec_add(&b, &pe));
	submit_g0(&b, 0);
	barre_walker_advance(&b, 300);	/* a reset in the middle of a walk */
	cfg = b.cfg;
	ASSERT_EQ(0, barre_walker_reset(&b, &cfg));
	EXPECT_EQ(0, barre_walker_inflight(&b));
	EXPECT_EQ(0, b.stats.ats_requests);
	a.n = 0;
	submit_g0(&b, 1000);
	barre_walker_advance(&b, 10000);
	ASSERT_EQ(4, a.n);
	EXPECT_EQ(1, b.stats.walks);
	EXPECT_EQ(3, b.stats.coalesced);
	for (i = 0; i < 4; i++) {
		EXPECT_EQ(0xA075 + 0x1000 * a.r[i].tag, a.r[i].pfn);
		EXPECT_TRUE(a.r[i].pec.valid);	/* F-Barre's extension */
	}
	cfg.walkers = 0;
	EXPECT_EQ(-EINVAL, barre_walker_reset(&b, &cfg));
	EXPECT_EQ(1, b.stats.walks);	/* a refused reset changes nothing */

	/* A new model (module reload) with the buffer given back. */
	memcpy(saved, b.pec, sizeof(saved));
	walker_env(&e, &b, &a, 1, 5, true);
	barre_walker_pec_restore(&b, saved, MCMGPU_BARRE_PEC_ENTRIES);
	submit_g0(&b, 0);
	barre_walker_advance(&b, 10000);
	EXPECT_EQ(1, b.stats.walks);
	EXPECT_EQ(3, b.stats.coalesced);
	EXPECT_EQ(0, b.stats.pec_misses);
	gpu_alloc_free(&e.pools, &e.as[0], &obj);
	env_fini(&e);
}

/*
 * Issue 32 item 11: a phase abandoned with requests queued, waiting and
 * being walked: those never walked leave ats_requests, so walks +
 * coalesced = ats_requests holds right after, and the model is idle.
 */
TEST(abandoned_phase_keeps_walks_plus_coalesced)
{
	static struct barre_walker b;
	static struct answers a;
	struct mcmgpu_pec_entry pe;
	struct gpu_alloc_object obj;
	struct env e;
	u64 pfn[12];
	u32 i;

	ASSERT_EQ(0, example1_data1(&e, &obj, pfn, &pe));
	walker_env(&e, &b, &a, 1, 0, false);
	for (i = 0; i < 12; i++) {
		struct barre_walker_request r = { .tag = i, .vpn = 0x1 + i,
					.arrive = i < 8 ? 0 : 5000, .pasid = 1 };

		ASSERT_EQ(0, barre_walker_submit(&b, &r));
	}
	barre_walker_advance(&b, 1200);	/* two walked, one walking, the rest waiting */
	EXPECT_EQ(3, b.stats.walks);
	EXPECT_EQ(2, a.n);
	barre_walker_abandon(&b);
	EXPECT_EQ(0, barre_walker_inflight(&b));
	EXPECT_EQ(b.stats.ats_requests, b.stats.walks + b.stats.coalesced);
	EXPECT_EQ(~0ULL, barre_walker_next_event(&b));
	gpu_alloc_free(&e.pools, &e.as[0], &obj);
	env_fini(&e);
}

/* Each answer equals the true walk of its request's page; returns how many. */
static u32 check_answers(struct __test_metadata *_metadata, struct env *e,
			 struct answers *a, const u64 *vpns)
{
	u32 i, n = a->n;

	for (i = 0; i < n; i++) {
		u64 truth = gpu_alloc_pte_get(&e->as[0], vpns[a->r[i].tag]);

		if (truth & MCMGPU_PTE_VALID) {
			EXPECT_EQ(BARRE_WALKER_STATUS_OK, a->r[i].status);
			EXPECT_EQ(MCMGPU_PTE_PFN(truth), a->r[i].pfn);
		} else {
			EXPECT_EQ(BARRE_WALKER_STATUS_FAULT, a->r[i].status);
		}
	}
	a->n = 0;
	return n;
}

/* Submits the requests for vpns[0..n), tags 0..n-1, all arriving at 0. */
static void submit_all(struct barre_walker *b, const u64 *vpns, u32 n)
{
	u32 i;

	for (i = 0; i < n; i++) {
		struct barre_walker_request r = { .tag = i, .vpn = vpns[i], .pasid = 1 };

		barre_walker_submit(b, &r);
	}
}

/*
 * §V-C on Example 1: two walkers, G0's four pages then 0x2 (another group)
 * in the queue. FIFO walks 0x1 and 0x4 together, then 0x2; coalescing-
 * aware scheduling passes 0x4, 0x7 and 0xA (0x1's walk will complete them)
 * and walks 0x2 beside 0x1: everything is done at cycle 500.
 */
TEST(scheduling_passes_requests_a_walk_will_complete)
{
	static const u64 vpns[] = { 0x1, 0x4, 0x7, 0xA, 0x2 };
	static struct barre_walker b;
	static struct answers a;
	struct mcmgpu_pec_entry pe;
	struct gpu_alloc_object obj;
	struct env e;
	u64 pfn[12];
	u32 i;

	ASSERT_EQ(0, example1_data1(&e, &obj, pfn, &pe));

	walker_env(&e, &b, &a, 2, 5, true);
	barre_walker_pec_add(&b, &pe);
	submit_all(&b, vpns, 5);
	barre_walker_advance(&b, 10000);
	EXPECT_EQ(3, b.stats.walks);
	EXPECT_EQ(2, b.stats.coalesced);
	EXPECT_EQ(0, b.stats.sched_moves);
	EXPECT_EQ(500 * 4 + 1000, b.stats.service_cycles);

	walker_env(&e, &b, &a, 2, 5, true);
	b.cfg.sched_moves = 4;
	barre_walker_pec_add(&b, &pe);
	submit_all(&b, vpns, 5);
	barre_walker_advance(&b, 10000);
	ASSERT_EQ(5, a.n);
	EXPECT_EQ(2, b.stats.walks);
	EXPECT_EQ(3, b.stats.coalesced);
	EXPECT_EQ(3, b.stats.sched_moves);
	EXPECT_EQ(500 * 5, b.stats.service_cycles);
	EXPECT_EQ(0, b.stats.shadow_mismatches);
	for (i = 0; i < 5; i++) {
		EXPECT_EQ(500, a.r[i].done);
		EXPECT_EQ(MCMGPU_PTE_PFN(gpu_alloc_pte_get(&e.as[0], vpns[a.r[i].tag])),
			  a.r[i].pfn);
	}
	gpu_alloc_free(&e.pools, &e.as[0], &obj);
	env_fini(&e);
}

/*
 * The starvation bound: pages the prediction calls coalescible that no
 * walk completes (ungrouped PTEs under a PEC entry). A stream of other
 * requests keeps arriving; a predicted request is passed at most
 * sched_moves times, then walked, and every answer is the true walk.
 */
TEST(scheduling_bound_keeps_requests_from_starving)
{
	struct gpu_alloc_alloc_req req = { .pages = 64, .policy = MCMGPU_ALLOC_CHUNK,
				    .g = 8, .barre = false };
	static struct barre_walker b;
	static struct answers a;
	static u64 vpns[4096];
	struct mcmgpu_pec_entry pe;
	struct gpu_alloc_object obj;
	u32 bound, i, w, max_seen = 0, tag = 0;
	struct env e;
	u64 pfn[64], t;

	env_init(&e, 4, 0x1000, 1);
	ASSERT_EQ(0, gpu_alloc(&e.pools, &e.as[0], &req, &obj, pfn));
	gpu_alloc_pec_entry(&e.as[0], &obj, &pe);
	for (bound = 1; bound <= 3; bound++) {
		walker_env(&e, &b, &a, 2, 5, false);
		b.cfg.sched_moves = bound;
		barre_walker_pec_add(&b, &pe);
		max_seen = 0;
		tag = 0;
		for (t = 0; t < 40 * 500; t += 100) {
			/* Offset 0 of every chunk: all predicted alike. */
			for (i = 0; i < 2 && barre_walker_inflight(&b) < 40; i++) {
				struct barre_walker_request r = {
					.tag = tag, .arrive = t, .pasid = 1,
					.vpn = obj.vpn + (tag % 8) * 8,
				};

				vpns[tag++] = r.vpn;
				ASSERT_EQ(0, barre_walker_submit(&b, &r));
			}
			barre_walker_advance(&b, t + 100);
			for (i = 0; i < b.nqueue; i++)
				if (b.queue[b.qhead + i].req.moves > max_seen)
					max_seen = b.queue[b.qhead + i].req.moves;
			for (w = 0; w < b.cfg.walkers; w++)
				if (b.walker[w].busy && b.walker[w].req.moves > max_seen)
					max_seen = b.walker[w].req.moves;
			check_answers(_metadata, &e, &a, vpns);
		}
		EXPECT_EQ(bound, max_seen);
		EXPECT_LT(0, b.stats.sched_moves);
		EXPECT_EQ(0, b.stats.coalesced);
	}
	gpu_alloc_free(&e.pools, &e.as[0], &obj);
	env_fini(&e);
}

/* Random request streams: every answer equals the true walk. */
TEST(walker_random_streams_answer_true_walks)
{
	static struct barre_walker b;
	static struct answers a;
	u64 seed = 77;
	int iter;

	for (iter = 0; iter < 40; iter++) {
		struct gpu_alloc_alloc_req req = { .policy = MCMGPU_ALLOC_CHUNK, .barre = true,
					    .writable = true };
		struct mcmgpu_pec_entry pe;
		struct gpu_alloc_object obj;
		u32 walkers = 1 + mt_xorshift64(&seed) % 16, i;
		u64 *pfn, t = 0, submitted = 0, answered = 0;
		static u64 vpns[2100];
		struct env e;

		env_init(&e, 4, 2048, 1);
		req.pages = 16 + mt_xorshift64(&seed) % 600;
		req.g = 1 + mt_xorshift64(&seed) % 8;
		pfn = malloc(req.pages * sizeof(u64));
		ASSERT_EQ(0, gpu_alloc(&e.pools, &e.as[0], &req, &obj, pfn));
		gpu_alloc_pec_entry(&e.as[0], &obj, &pe);
		walker_env(&e, &b, &a, walkers, 5, true);
		b.cfg.sched_moves = mt_xorshift64(&seed) % 5;
		barre_walker_pec_add(&b, &pe);
		while (submitted < 2000) {
			u32 burst = mt_xorshift64(&seed) % 24;

			for (i = 0; i < burst && barre_walker_inflight(&b) < BARRE_WALKER_MAX_INFLIGHT; i++) {
				struct barre_walker_request r = {
					.tag = submitted++, .arrive = t, .pasid = 1,
					.vpn = obj.vpn + mt_xorshift64(&seed) % (obj.pages + 2),
					.write = mt_xorshift64(&seed) & 1,
				};

				vpns[r.tag] = r.vpn;

				ASSERT_EQ(0, barre_walker_submit(&b, &r));
			}
			t += 1 + mt_xorshift64(&seed) % 300;
			barre_walker_advance(&b, t);
			answered += check_answers(_metadata, &e, &a, vpns);
		}
		barre_walker_advance(&b, ~0ULL >> 1);
		answered += check_answers(_metadata, &e, &a, vpns);
		EXPECT_EQ(submitted, answered);
		EXPECT_EQ(b.stats.ats_requests, b.stats.walks + b.stats.coalesced);
		EXPECT_EQ(0, b.stats.shadow_mismatches);
		EXPECT_EQ(0, barre_walker_inflight(&b));
		gpu_alloc_free(&e.pools, &e.as[0], &obj);
		free(pfn);
		env_fini(&e);
	}
}

/* ---- Traces and the host replay -------------------------------------- */

static const char *const bad_traces[][2] = {
	{ "alloc 1 4096 policy=rr\nbogus 1\n", "line 2: 'bogus': expected alloc" },
	{ "alloc 1 -1 policy=rr\n", "line 1: alloc: BYTES must be a number" },
	{ "alloc 1 0 policy=rr\n", "line 1: alloc: BYTES must be a number" },
	{ "alloc 1 0xfffffffffffff001 policy=rr\n", "line 1: alloc: BYTES" },
	{ "\n\nalloc 2x 4096 policy=rr\n", "line 3: ID '2x': not a number, nor a name" },
	{ "alloc a$ 4096 policy=rr\n", "line 1: ID 'a$'" },
	{ "alloc A 4096 policy=rr\naccess 0 .b 0\n", "line 2: ID '.b'" },
	{ "alloc A 4096 policy=rr\naccess 0\n", "line 2: access: expected CHIPLET" },
	{ "alloc matrix_b 4096 policy=rr\naccess 0 matrix_a 0\n",
	  "line 2: access: object matrix_a is not allocated" },
	{ "alloc A 4096 policy=rr\nalloc A 4096 policy=rr\n",
	  "line 2: alloc: object A is already live" },
	{ "alloc 0x10 4096 policy=rr\nalloc 16 4096 policy=rr\n",
	  "line 2: alloc: object 16 is already live" },
	{ "# c\nalloc 1 8192\n", "line 2: alloc: policy= missing" },
	{ "alloc 1 8192 policy=chunk\n", "line 1: alloc: policy=chunk needs g=" },
	{ "alloc 1 8192 policy=rr g=0\n", "line 1: alloc: unknown field 'g=0'" },
	{ "alloc 1 8192 policy=rr map=0,9\n", "line 1: alloc: bad map" },
	{ "alloc 1 8192 policy=rr\nalloc 1 8192 policy=rr\n", "line 2: alloc: object 1 is already live" },
	{ "access 0 1 0\n", "line 1: access: object 1 is not allocated" },
	{ "alloc 1 8192 policy=rr\naccess 0 1 0 x\n", "line 2: access: expected" },
	{ "alloc 1 8192 policy=rr\nfree 1\nfree 1\n", "line 3: free: object 1 is not allocated" },
	{ "alloc a123456789012345678901234567890123456789012345678901234567890123"
	  " 4096 policy=rr\n", "line 1: ID 'a1234" },
};

/*
 * Issue 32 item 10: IDs are names or numbers, BYTES whole pages rounded
 * up; the replay of a trace with names and odd sizes equals the one with
 * numbers and whole pages, and the last page is usable.
 */
TEST(trace_names_and_rounded_bytes)
{
	static const char named[] =
		"alloc matrix_b 5000 policy=chunk g=1\n"
		"alloc A 1 policy=rr\n"
		"access 0 matrix_b 8191 w\naccess 1 A 4095\naccess 2 matrix_b 0\n"
		"free A\nalloc x.y-1 4097 policy=kwc\naccess 3 x.y-1 8000\n";
	static const char numbered[] =
		"alloc 1 8192 policy=chunk g=1\n"
		"alloc 2 4096 policy=rr\n"
		"access 0 1 8191 w\naccess 1 2 4095\naccess 2 1 0\n"
		"free 2\nalloc 3 8192 policy=kwc\naccess 3 3 8000\n";
	struct barre_replay_cfg cfg = { .chiplets = 4, .frames = 256, .barre = true,
				      .walkers = 16, .shadow = true };
	struct mcmgpu_barre_stats a, b;
	struct barre_trace t;
	char err[256];

	ASSERT_EQ(0, barre_trace_parse(named, strlen(named), &t, err, sizeof(err)))
		TH_LOG("%s", err);
	EXPECT_EQ(3, t.max_id);
	EXPECT_STREQ("matrix_b", t.names[0]);
	EXPECT_STREQ("A", t.names[1]);
	EXPECT_STREQ("x.y-1", t.names[2]);
	EXPECT_EQ(8192, t.rec[0].bytes);
	EXPECT_EQ(4096, t.rec[1].bytes);
	EXPECT_EQ(t.rec[0].id, t.rec[2].id);
	ASSERT_EQ(0, barre_replay_host(&t, &cfg, &a, err, sizeof(err))) TH_LOG("%s", err);
	barre_trace_free(&t);
	ASSERT_EQ(0, barre_trace_parse(numbered, strlen(numbered), &t, err,
				       sizeof(err)));
	ASSERT_EQ(0, barre_replay_host(&t, &cfg, &b, err, sizeof(err))) TH_LOG("%s", err);
	barre_trace_free(&t);
	EXPECT_EQ(0, memcmp(&a, &b, sizeof(a)));
	EXPECT_EQ(5, a.pages);
	EXPECT_EQ(4, a.accesses);
	EXPECT_EQ(0, a.access_faults);
	EXPECT_BARRE_IDENTITIES(&a);

	/* Past the rounded size is still past the object. */
	ASSERT_EQ(0, barre_trace_parse("alloc A 10 policy=rr\naccess 0 A 4096\n",
				       36, &t, err, sizeof(err)));
	EXPECT_EQ(-EINVAL, barre_replay_host(&t, &cfg, &a, err, sizeof(err)));
	EXPECT_STREQ("line 2: access: offset past the object", err);
	barre_trace_free(&t);
}

TEST(bad_traces_name_the_line)
{
	struct barre_trace t;
	char err[256];
	unsigned int i;

	for (i = 0; i < sizeof(bad_traces) / sizeof(bad_traces[0]); i++) {
		err[0] = '\0';
		EXPECT_EQ(-EINVAL, barre_trace_parse(bad_traces[i][0],
						     strlen(bad_traces[i][0]), &t,
						     err, sizeof(err)));
		EXPECT_EQ(0, strncmp(err, bad_traces[i][1], strlen(bad_traces[i][1])))
			TH_LOG("trace %u: '%s'", i, err);
	}
}

/* Streams each chiplet through its own chunks, all at once. */
static char *stream_trace(unsigned int chiplets, unsigned int pages, unsigned int g)
{
	size_t cap = 64 * (size_t)pages * 4 + 256, n = 0;
	char *text = malloc(cap);
	unsigned int p, c, k;

	n += snprintf(text + n, cap - n, "alloc 1 %u policy=chunk g=%u\n",
		      pages * 4096, g);
	for (p = 0; p < pages / chiplets; p++)
		for (c = 0; c < chiplets; c++)
			for (k = 0; k < 4; k++)
				n += snprintf(text + n, cap - n, "access %u 1 %u %c\n", c,
					      ((p / g) * chiplets * g + c * g + p % g) * 4096 +
					      k * 64, k ? 'r' : 'w');
	n += snprintf(text + n, cap - n, "free 1\n");
	return text;
}

TEST(host_replay_invariants)
{
	char *text = stream_trace(4, 4096, 64), err[256];
	struct mcmgpu_barre_stats on, again, off;
	struct barre_replay_cfg cfg = { .chiplets = 4, .frames = 4096, .barre = true,
				      .walkers = 1, .shadow = true };
	struct barre_trace t;

	ASSERT_EQ(0, barre_trace_parse(text, strlen(text), &t, err, sizeof(err)))
		TH_LOG("%s", err);
	ASSERT_EQ(0, barre_replay_host(&t, &cfg, &on, err, sizeof(err))) TH_LOG("%s", err);
	ASSERT_EQ(0, barre_replay_host(&t, &cfg, &again, err, sizeof(err)));
	EXPECT_EQ(0, memcmp(&on, &again, sizeof(on)));
	cfg.barre = false;
	ASSERT_EQ(0, barre_replay_host(&t, &cfg, &off, err, sizeof(err)));

	EXPECT_BARRE_IDENTITIES(&on);
	EXPECT_BARRE_IDENTITIES(&off);
	EXPECT_EQ(0, off.coalesced);
	EXPECT_EQ(0, off.groups);
	EXPECT_EQ(0, on.shadow_mismatches);
	EXPECT_EQ(0, on.translation_faults);
	EXPECT_EQ(0, on.access_faults);
	EXPECT_EQ(4096, on.pages);
	EXPECT_EQ(4096, on.grouped_pages);
	EXPECT_EQ(1024, on.groups);
	EXPECT_EQ(4 * 4096, on.accesses);
	/* One walker, four chiplets missing the same groups: PEC does the rest. */
	EXPECT_LT(on.walks * 2, on.ats_requests) TH_LOG("walks %llu of %llu",
		(unsigned long long)on.walks, (unsigned long long)on.ats_requests);
	EXPECT_LE(on.walks, off.walks);
	EXPECT_LT(on.modeled_cycles, off.modeled_cycles);
	barre_trace_free(&t);
	free(text);
}

TEST(host_replay_dump_pt_and_errors)
{
	static const char trace[] =
		"alloc 7 65536 policy=chunk g=2 map=1,0,3,2\n"
		"alloc 8 12288 policy=rr\n"
		"access 0 7 0\n"
		"free 8\n";
	struct barre_replay_cfg cfg = { .chiplets = 4, .frames = 256, .barre = true,
				      .walkers = 16 };
	struct mcmgpu_barre_stats st;
	struct barre_trace t;
	static const unsigned int map[4] = { 1, 0, 3, 2 };
	char err[256], line[128];
	unsigned int n = 0;
	FILE *f = tmpfile();

	ASSERT_NE(NULL, f);
	cfg.dump_pt = f;
	ASSERT_EQ(0, barre_trace_parse(trace, strlen(trace), &t, err, sizeof(err)));
	ASSERT_EQ(0, barre_replay_host(&t, &cfg, &st, err, sizeof(err))) TH_LOG("%s", err);
	rewind(f);
	while (fgets(line, sizeof(line), f)) {
		unsigned int id, chip, bm, pos;
		unsigned long long vpn, pfn;

		ASSERT_EQ(6, sscanf(line, "%u 0x%llx 0x%llx %u 0x%x %u", &id, &vpn,
				    &pfn, &chip, &bm, &pos)) TH_LOG("'%s'", line);
		EXPECT_EQ(7, id);
		EXPECT_EQ(GPU_ALLOC_FIRST_VPN + n, vpn);
		EXPECT_EQ(map[(n % 8) / 2], chip);
		EXPECT_EQ(chip, pfn / 256);
		EXPECT_EQ(0xf, bm);
		EXPECT_EQ((n % 8) / 2, pos);
		n++;
	}
	EXPECT_EQ(16, n);
	fclose(f);
	barre_trace_free(&t);

	/* An access past its object, and an allocation too big, name their line. */
	ASSERT_EQ(0, barre_trace_parse("alloc 1 4096 policy=rr\naccess 0 1 4096\n", 38,
				       &t, err, sizeof(err)));
	cfg.dump_pt = NULL;
	EXPECT_EQ(-EINVAL, barre_replay_host(&t, &cfg, &st, err, sizeof(err)));
	EXPECT_STREQ("line 2: access: offset past the object", err);
	barre_trace_free(&t);
	ASSERT_EQ(0, barre_trace_parse("alloc 1 8388608 policy=rr\n", 26, &t, err,
				       sizeof(err)));
	EXPECT_EQ(-EINVAL, barre_replay_host(&t, &cfg, &st, err, sizeof(err)));
	EXPECT_STREQ("line 1: alloc: bad pages", err);
	barre_trace_free(&t);
}

TEST_HARNESS_MAIN
