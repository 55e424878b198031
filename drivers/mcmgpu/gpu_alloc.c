// SPDX-License-Identifier: GPL-2.0
/*
 * GPU memory allocation with Barre (Barre Chord §IV-C, §IV-G).
 *
 * Layout of an object of P pages over GPU_map = (M[0], ..., M[n-1]) with g
 * pages per chiplet: page i is in round r = i / (n g); inside the round,
 * position k = (i mod n g) / g and index j = i mod g. Page i goes to chiplet
 * M[k]. Group j of round r is the pages of index j at every position the
 * round has (a short last round has fewer), the paper's "j-th page of every
 * sharer's chunk".
 *
 * With Barre on, each group of two or more pages gets the lowest local
 * frame free in all of its chiplets, and its PTEs carry the bitmap of those
 * chiplets and each page's position (§IV-G, one common frame per group);
 * where no such frame exists, that group's pages are placed one by one
 * with bitmap 0 (per-group fallback: the paper leaves the granularity open,
 * notes §6.5). Without Barre, or for a page alone in its group, a page takes
 * the lowest free frame of its chiplet. On more than 8 chiplets the PTEs
 * carry the group's count instead of its bitmap (count mode, §VI,
 * mcmgpu_barre.h): a group is always positions 0..n-1 of the round.
 */
#include "gpu_alloc.h"
#include "mcmgpu_pt.h"

#define GPU_ALLOC_BITS		64

u32 gpu_alloc_pool_words(u32 frames)
{
	return (frames + GPU_ALLOC_BITS - 1) / GPU_ALLOC_BITS;
}

void gpu_alloc_pools_init(struct gpu_alloc_pools *p, u32 chiplets, u32 frames, u64 *storage)
{
	u32 c, w, words = gpu_alloc_pool_words(frames);

	memset(p, 0, sizeof(*p));
	p->chiplets = chiplets;
	p->frames = frames;
	p->words = words;
	for (c = 0; c < chiplets; c++) {
		p->free[c] = storage + (u64)c * words;
		p->base[c] = (u64)c * frames;
		for (w = 0; w < words; w++)
			p->free[c][w] = ~0ULL;
		if (frames % GPU_ALLOC_BITS)
			p->free[c][words - 1] = (1ULL << (frames % GPU_ALLOC_BITS)) - 1;
		p->free_frames[c] = frames;
	}
}

bool gpu_alloc_frame_is_free(const struct gpu_alloc_pools *p, u32 chiplet, u32 local)
{
	return p->free[chiplet][local / GPU_ALLOC_BITS] & (1ULL << (local % GPU_ALLOC_BITS));
}

void gpu_alloc_frame_take(struct gpu_alloc_pools *p, u32 chiplet, u32 local)
{
	p->free[chiplet][local / GPU_ALLOC_BITS] &= ~(1ULL << (local % GPU_ALLOC_BITS));
	p->free_frames[chiplet]--;
}

void gpu_alloc_frame_put(struct gpu_alloc_pools *p, u32 chiplet, u32 local)
{
	p->free[chiplet][local / GPU_ALLOC_BITS] |= 1ULL << (local % GPU_ALLOC_BITS);
	p->free_frames[chiplet]++;
	if (local < p->hint[chiplet])
		p->hint[chiplet] = local;
}

static u32 gpu_alloc_lowest_bit(u64 v)
{
	u32 n = 0;

	while (!(v & 1)) {
		v >>= 1;
		n++;
	}
	return n;
}

u32 gpu_alloc_find_free(struct gpu_alloc_pools *p, u32 chiplet)
{
	u32 w;

	for (w = p->hint[chiplet] / GPU_ALLOC_BITS; w < p->words; w++) {
		if (p->free[chiplet][w]) {
			u32 local = w * GPU_ALLOC_BITS + gpu_alloc_lowest_bit(p->free[chiplet][w]);

			p->hint[chiplet] = local;
			return local;
		}
	}
	p->hint[chiplet] = p->frames;
	return GPU_ALLOC_NO_FRAME;
}

/* Lowest local frame at or above from free in every chiplet of mask. */
static u32 gpu_alloc_common_from(const struct gpu_alloc_pools *p, u32 mask, u32 from)
{
	u32 c, w;

	/* A frame free everywhere is at or above every chiplet's hint. */
	for (c = 0; c < p->chiplets; c++)
		if ((mask & (1U << c)) && p->hint[c] > from)
			from = p->hint[c];
	for (w = from / GPU_ALLOC_BITS; w < p->words; w++) {
		u64 all = w == from / GPU_ALLOC_BITS ? ~0ULL << (from % GPU_ALLOC_BITS) : ~0ULL;

		for (c = 0; c < p->chiplets && all; c++)
			if (mask & (1U << c))
				all &= p->free[c][w];
		if (all)
			return w * GPU_ALLOC_BITS + gpu_alloc_lowest_bit(all);
	}
	return GPU_ALLOC_NO_FRAME;
}

u32 gpu_alloc_find_common(const struct gpu_alloc_pools *p, u32 mask)
{
	return gpu_alloc_find_common_run(p, mask, 1);
}

u32 gpu_alloc_find_common_run(const struct gpu_alloc_pools *p, u32 mask, u32 len)
{
	u32 f = gpu_alloc_common_from(p, mask, 0), x;

	while (f != GPU_ALLOC_NO_FRAME && f + len <= p->frames) {
		for (x = 1; x < len; x++)
			if (gpu_alloc_common_from(p, mask, f + x) != f + x)
				break;
		if (x == len)
			return f;
		f = gpu_alloc_common_from(p, mask, f + x + 1);
	}
	return GPU_ALLOC_NO_FRAME;
}

/* ---- Page tables ------------------------------------------------------ */

int gpu_alloc_space_init(struct gpu_alloc_space *as, u32 pasid, const struct gpu_alloc_pt_ops *ops)
{
	memset(as, 0, sizeof(*as));
	as->pasid = pasid;
	as->ops = ops;
	as->next_vpn = GPU_ALLOC_FIRST_VPN;
	as->root = ops->alloc_table(ops->priv);
	return as->root ? 0 : -ENOMEM;
}

static void gpu_alloc_free_tables(struct gpu_alloc_space *as, u64 table, int level)
{
	u64 *t = as->ops->map_table(as->ops->priv, table);
	u32 i;

	if (level < MCMGPU_PT_LEVELS - 1) {
		for (i = 0; i < MCMGPU_PT_ENTRIES; i++)
			if (t[i] & MCMGPU_PTE_VALID)
				gpu_alloc_free_tables(as, t[i] & MCMGPU_PTE_TABLE_MASK,
						      level + 1);
	}
	as->ops->free_table(as->ops->priv, table);
}

void gpu_alloc_space_destroy(struct gpu_alloc_space *as)
{
	if (as->root)
		gpu_alloc_free_tables(as, as->root, 0);
	as->root = 0;
}

static u64 gpu_alloc_read_entry(void *priv, u64 table, u32 index)
{
	const struct gpu_alloc_space *as = priv;

	return as->ops->map_table(as->ops->priv, table)[index];
}

u64 gpu_alloc_pte_get(const struct gpu_alloc_space *as, u64 vpn)
{
	return mcmgpu_pt_walk(as->root, vpn, gpu_alloc_read_entry, (void *)as);
}

int gpu_alloc_pte_set(struct gpu_alloc_space *as, u64 vpn, u64 pte)
{
	u64 table = as->root, *t;
	int level;

	if (!table || vpn >= GPU_ALLOC_VPN_LIMIT)
		return -EINVAL;
	for (level = 0; level < MCMGPU_PT_LEVELS - 1; level++) {
		t = as->ops->map_table(as->ops->priv, table);
		if (!(t[mcmgpu_pt_index(vpn, level)] & MCMGPU_PTE_VALID)) {
			u64 next = as->ops->alloc_table(as->ops->priv);

			if (!next)
				return -ENOMEM;
			t[mcmgpu_pt_index(vpn, level)] = next | MCMGPU_PTE_VALID;
		}
		table = t[mcmgpu_pt_index(vpn, level)] & MCMGPU_PTE_TABLE_MASK;
	}
	as->ops->map_table(as->ops->priv, table)[mcmgpu_pt_index(vpn, level)] = pte;
	return 0;
}

/* ---- Objects ---------------------------------------------------------- */

int gpu_alloc_alloc_check(const struct gpu_alloc_pools *p, const struct gpu_alloc_alloc_req *req,
			  const char **field)
{
	u32 i, seen = 0;

	*field = NULL;
	if (!req->pages || req->pages > (u64)p->chiplets * p->frames)
		*field = "pages";
	else if (req->policy >= MCMGPU_ALLOC_POLICIES)
		*field = "policy";
	else if (req->policy == MCMGPU_ALLOC_CHUNK &&
		 (!req->g || req->g > req->pages))
		*field = "g";
	else if (req->nmap > p->chiplets)
		*field = "map";
	else if (req->merge > GPU_ALLOC_MAX_MERGE ||
		 (req->merge > 1 && ((req->nmap ? req->nmap : p->chiplets) >
				     GPU_ALLOC_MERGE_MAX_CHIPLETS ||
				     mcmgpu_coal_count_mode(p->chiplets))))
		*field = "merge";
	for (i = 0; !*field && i < req->nmap; i++) {
		if (req->map[i] >= p->chiplets || (seen & (1U << req->map[i])))
			*field = "map";
		else
			seen |= 1U << req->map[i];
	}
	return *field ? -EINVAL : 0;
}

u32 gpu_alloc_page_pos(const struct gpu_alloc_object *obj, u64 i)
{
	return (i % ((u64)obj->nmap * obj->g)) / obj->g;
}

u32 gpu_alloc_page_chiplet(const struct gpu_alloc_object *obj, u64 i)
{
	return obj->map[gpu_alloc_page_pos(obj, i)];
}

/*
 * A page of a group of run pages a chiplet: its position, and its place x
 * in its chiplet's run (F-Barre's expanded format, notes §3.2).
 */
struct gpu_alloc_coal {
	u32 bitmap;			/* bitmap or count mode's count; 0: not grouped */
	u32 x;
	u32 run;
};

static u64 gpu_alloc_pte(const struct gpu_alloc_object *obj, u64 pfn,
			 const struct gpu_alloc_coal *gc, u32 pos)
{
	u64 pte = obj->pte_flags | FIELD_PREP(MCMGPU_PTE_PFN_MASK, pfn);

	if (!gc->bitmap)
		return pte;
	return pte | mcmgpu_coal_bits(obj->coal_count, gc->bitmap, pos, gc->x, gc->run);
}

/* Returns page i's frame to its pool and clears its PTE (rollback, free). */
static void gpu_alloc_unplace(struct gpu_alloc_pools *p, struct gpu_alloc_space *as,
			      struct gpu_alloc_object *obj, u64 i)
{
	u32 c = gpu_alloc_page_chiplet(obj, i);

	gpu_alloc_frame_put(p, c, obj->pfn[i] - p->base[c]);
	gpu_alloc_pte_set(as, obj->vpn + i, 0);
	obj->pfn[i] = GPU_ALLOC_UNPLACED;
}

static int gpu_alloc_place(struct gpu_alloc_pools *p, struct gpu_alloc_space *as,
			   struct gpu_alloc_object *obj, u64 i, u32 local,
		    const struct gpu_alloc_coal *gc)
{
	u32 c = gpu_alloc_page_chiplet(obj, i);
	u64 pfn = p->base[c] + local;
	u64 pte = gpu_alloc_pte(obj, pfn, gc, gpu_alloc_page_pos(obj, i));
	int ret;

	ret = gpu_alloc_pte_set(as, obj->vpn + i, pte);
	if (ret)
		return ret;
	gpu_alloc_frame_take(p, c, local);
	obj->pfn[i] = pfn;
	return 0;
}

/* A page on its own: the lowest free frame of its chiplet. */
static int gpu_alloc_place_single(struct gpu_alloc_pools *p, struct gpu_alloc_space *as,
				  struct gpu_alloc_object *obj, u64 i)
{
	static const struct gpu_alloc_coal none;
	u32 local = gpu_alloc_find_free(p, gpu_alloc_page_chiplet(obj, i));

	return local == GPU_ALLOC_NO_FRAME ? -ENOMEM :
	       gpu_alloc_place(p, as, obj, i, local, &none);
}

/*
 * The group whose first page is page first + j of a round, run pages a
 * chiplet: the positions that hold all run pages (a prefix: the object
 * may end inside the round) and their chiplets.
 */
static u32 gpu_alloc_group(const struct gpu_alloc_object *obj, u64 first, u32 j, u32 run,
			   u32 *mask)
{
	u32 k;

	*mask = 0;
	for (k = 0; k < obj->nmap; k++) {
		if (first + (u64)k * obj->g + j + run > obj->pages)
			break;
		*mask |= 1U << obj->map[k];
	}
	return k;
}

/*
 * Greedy expansion (Fig 14): the longest run up to merge that stays inside
 * the chunk and has consecutive local frames free in every chiplet of its
 * group; down to run 1, plain Barre's group.
 */
static u32 gpu_alloc_pick_run(struct gpu_alloc_pools *p, const struct gpu_alloc_object *obj,
			      u64 first, u32 j, u32 *n, u32 *mask, u32 *local)
{
	u32 run = obj->merge < obj->g - j ? obj->merge : obj->g - j;
	u32 n1 = gpu_alloc_group(obj, first, j, 1, mask);

	*n = n1;
	*local = GPU_ALLOC_NO_FRAME;

	for (; run >= 1; run--) {
		/* Every position's run is whole: the object may end in it. */
		*n = gpu_alloc_group(obj, first, j, run, mask);
		if (run > 1 && (*n < 2 || *n != n1))
			continue;
		*local = obj->barre && *n > 1 ?
			 gpu_alloc_find_common_run(p, *mask, run) : GPU_ALLOC_NO_FRAME;
		if (*local != GPU_ALLOC_NO_FRAME || run == 1)
			return run;
	}
	return 1;
}

static int gpu_alloc_place_round(struct gpu_alloc_pools *p, struct gpu_alloc_space *as,
				 struct gpu_alloc_object *obj, u64 first)
{
	u32 j, k, n, mask, local, run;
	int ret;

	for (j = 0; j < obj->g && first + j < obj->pages; j += run) {
		struct gpu_alloc_coal gc = { };

		run = gpu_alloc_pick_run(p, obj, first, j, &n, &mask, &local);
		/* The positions are 0..n-1: count mode writes n. */
		if (local != GPU_ALLOC_NO_FRAME)
			gc = (struct gpu_alloc_coal){
				.bitmap = obj->coal_count ? n : mask,
				.run = run,
			};
		for (gc.x = 0; gc.x < run; gc.x++) {
			for (k = 0; k < n; k++) {
				u64 i = first + (u64)k * obj->g + j + gc.x;

				if (local != GPU_ALLOC_NO_FRAME)
					ret = gpu_alloc_place(p, as, obj, i,
							      local + gc.x, &gc);
				else
					ret = gpu_alloc_place_single(p, as, obj, i);
				if (ret)
					return ret;
			}
		}
		if (local != GPU_ALLOC_NO_FRAME) {
			obj->groups++;
			obj->merged_groups += run > 1;
			obj->grouped_pages += (u64)n * run;
		} else if (obj->barre && n > 1) {
			obj->fallback_pages += n;
		}
	}
	return 0;
}

int gpu_alloc(struct gpu_alloc_pools *p, struct gpu_alloc_space *as,
	      const struct gpu_alloc_alloc_req *req, struct gpu_alloc_object *obj, u64 *pfn)
{
	const char *field;
	u64 first, i, round;
	int ret = gpu_alloc_alloc_check(p, req, &field);
	u32 k;

	if (ret)
		return ret;
	if (as->next_vpn + req->pages + 1 > GPU_ALLOC_VPN_LIMIT)
		return -ENOSPC;
	memset(obj, 0, sizeof(*obj));
	obj->pages = req->pages;
	obj->nmap = req->nmap ? req->nmap : p->chiplets;
	for (k = 0; k < obj->nmap; k++)
		obj->map[k] = req->nmap ? req->map[k] : k;
	if (req->policy == MCMGPU_ALLOC_RR)
		obj->g = 1;
	else if (req->policy == MCMGPU_ALLOC_KWC)
		obj->g = (req->pages + obj->nmap - 1) / obj->nmap;
	else
		obj->g = req->g;
	obj->barre = req->barre;
	obj->coal_count = mcmgpu_coal_count_mode(p->chiplets);
	obj->merge = req->merge ? req->merge : 1;
	obj->pte_flags = MCMGPU_PTE_VALID | MCMGPU_PTE_READ |
			 (req->writable ? MCMGPU_PTE_WRITE : 0);
	obj->vpn = as->next_vpn;
	obj->pfn = pfn;
	for (i = 0; i < obj->pages; i++)
		pfn[i] = GPU_ALLOC_UNPLACED;

	round = (u64)obj->nmap * obj->g;
	for (first = 0; first < obj->pages; first += round) {
		ret = gpu_alloc_place_round(p, as, obj, first);
		if (ret)
			goto rollback;
	}
	/* A guard page between objects. */
	as->next_vpn += obj->pages + 1;
	return 0;

rollback:
	for (i = 0; i < obj->pages; i++)
		if (obj->pfn[i] != GPU_ALLOC_UNPLACED)
			gpu_alloc_unplace(p, as, obj, i);
	return ret;
}

void gpu_alloc_free(struct gpu_alloc_pools *p, struct gpu_alloc_space *as,
		    struct gpu_alloc_object *obj)
{
	u64 i;

	for (i = 0; i < obj->pages; i++)
		if (obj->pfn[i] != GPU_ALLOC_UNPLACED)
			gpu_alloc_unplace(p, as, obj, i);
}

void gpu_alloc_pec_entry(const struct gpu_alloc_space *as, const struct gpu_alloc_object *obj,
			 struct mcmgpu_pec_entry *e)
{
	memset(e, 0, sizeof(*e));
	e->start_vpn = obj->vpn;
	e->end_vpn = obj->vpn + obj->pages - 1;
	e->pasid = as->pasid;
	e->g = obj->g;
	e->nmap = obj->nmap;
	memcpy(e->map, obj->map, sizeof(e->map));
	e->coal_count = obj->coal_count;
	e->valid = 1;
}
