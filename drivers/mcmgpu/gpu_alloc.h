/* SPDX-License-Identifier: GPL-2.0 */
/*
 * GPU memory allocation with Barre (Barre Chord §IV-C, §IV-G): chiplet
 * memory pools, GPU address spaces with 4-level page tables, and objects
 * whose pages are placed so that each coalescing group sits at the same
 * local frame in every participating chiplet. Freestanding C: built into
 * mcmgpu.ko, the tool's --host replay and the host tests.
 */
#ifndef MCMGPU_GPU_ALLOC_H
#define MCMGPU_GPU_ALLOC_H

#include "mcmgpu_compat.h"
#include "mcmgpu_barre.h"

#define GPU_ALLOC_NO_FRAME	0xffffffffU
#define GPU_ALLOC_UNPLACED	(~0ULL)		/* pfn[] of a page not placed (yet) */
/* The first VPN handed out: objects start at 4 GiB of GPU virtual space. */
#define GPU_ALLOC_FIRST_VPN	0x100000ULL
#define GPU_ALLOC_VPN_LIMIT	(1ULL << (MCMGPU_VA_BITS - MCMGPU_PAGE_SHIFT))
/*
 * F-Barre's expansion (§V-B): up to 4 pages a chiplet a group (the PTE's
 * 2-bit intra order), on at most 4 chiplets (§VI, the 10-bit ATS info).
 */
#define GPU_ALLOC_MAX_MERGE		4
#define GPU_ALLOC_MERGE_MAX_CHIPLETS	4

/* One free bitmap per chiplet memory, bit set = local frame free. */
struct gpu_alloc_pools {
	u32 chiplets;
	u32 frames;			/* per chiplet */
	u32 words;			/* u64 words per bitmap */
	u64 base[MCMGPU_PEC_MAX_CHIPLETS];	/* chiplet's first global PFN */
	u64 *free[MCMGPU_PEC_MAX_CHIPLETS];
	u32 free_frames[MCMGPU_PEC_MAX_CHIPLETS];
	u32 hint[MCMGPU_PEC_MAX_CHIPLETS];	/* no free frame below it */
};

u32 gpu_alloc_pool_words(u32 frames);
/* storage: chiplets * gpu_alloc_pool_words(frames) words; every frame free. */
void gpu_alloc_pools_init(struct gpu_alloc_pools *p, u32 chiplets, u32 frames, u64 *storage);
bool gpu_alloc_frame_is_free(const struct gpu_alloc_pools *p, u32 chiplet, u32 local);
void gpu_alloc_frame_take(struct gpu_alloc_pools *p, u32 chiplet, u32 local);
void gpu_alloc_frame_put(struct gpu_alloc_pools *p, u32 chiplet, u32 local);
/* Lowest local frame free in chiplet; GPU_ALLOC_NO_FRAME if none. */
u32 gpu_alloc_find_free(struct gpu_alloc_pools *p, u32 chiplet);
/* Lowest local frame free in every chiplet of mask (AND, a word at a time). */
u32 gpu_alloc_find_common(const struct gpu_alloc_pools *p, u32 mask);
/* Lowest f with frames f .. f + len - 1 free in every chiplet of mask. */
u32 gpu_alloc_find_common_run(const struct gpu_alloc_pools *p, u32 mask, u32 len);

/*
 * Page tables live in memory the caller provides: the kernel uses pages
 * (the walker reads them by physical address), the host test plain memory.
 */
struct gpu_alloc_pt_ops {
	u64 (*alloc_table)(void *priv);	/* zeroed 4 KiB; 0 = no memory */
	void (*free_table)(void *priv, u64 table);
	u64 *(*map_table)(void *priv, u64 table);
	void *priv;
};

/* One GPU address space (a context's, PASID = its id). */
struct gpu_alloc_space {
	u32 pasid;
	u64 root;			/* top table */
	u64 next_vpn;			/* where the next object goes */
	const struct gpu_alloc_pt_ops *ops;
};

int gpu_alloc_space_init(struct gpu_alloc_space *as, u32 pasid, const struct gpu_alloc_pt_ops *ops);
/* Frees every table; the objects must be freed first. */
void gpu_alloc_space_destroy(struct gpu_alloc_space *as);
/* The leaf PTE of vpn, 0 if none: a true walk. */
u64 gpu_alloc_pte_get(const struct gpu_alloc_space *as, u64 vpn);
int gpu_alloc_pte_set(struct gpu_alloc_space *as, u64 vpn, u64 pte);

struct gpu_alloc_alloc_req {
	u64 pages;
	u32 policy;			/* enum mcmgpu_alloc_policy */
	u32 g;				/* chunk: pages per chiplet per round */
	u32 nmap;			/* 0: chiplets 0..n-1 */
	u8 map[MCMGPU_PEC_MAX_CHIPLETS];
	u32 merge;			/* 0 or 1: plain Barre; 2..4 F-Barre */
	bool barre;
	bool writable;
};

/* What an allocation made; the caller keeps it until gpu_alloc_free(). */
struct gpu_alloc_object {
	u64 vpn;			/* first VPN; pages are consecutive */
	u64 pages;
	u32 g;
	u32 nmap;
	u8 map[MCMGPU_PEC_MAX_CHIPLETS];
	bool barre;
	bool coal_count;		/* count mode: more than 8 chiplets */
	u64 pte_flags;			/* VALID | READ [| WRITE] */
	u64 *pfn;			/* global PFN of each page */
	u32 merge;
	u64 groups;			/* coalescing groups formed */
	u64 merged_groups;		/* of them, more than a page a chiplet */
	u64 grouped_pages;		/* pages in them */
	u64 fallback_pages;		/* Barre on, no common frame for the group */
};

/*
 * Checks a request against the pools: 0 or -EINVAL with *field naming what
 * is wrong ("pages", "policy", "g", "map").
 */
int gpu_alloc_alloc_check(const struct gpu_alloc_pools *p, const struct gpu_alloc_alloc_req *req,
			  const char **field);
/* Chiplet and GPU_map position of page i of an object. */
u32 gpu_alloc_page_pos(const struct gpu_alloc_object *obj, u64 i);
u32 gpu_alloc_page_chiplet(const struct gpu_alloc_object *obj, u64 i);
/*
 * Places, maps and records an object; pfn: storage for req->pages entries.
 * -EINVAL (see gpu_alloc_alloc_check), -ENOSPC (no virtual space), -ENOMEM (a
 * pool or a page table ran out); on error nothing is left allocated.
 */
int gpu_alloc(struct gpu_alloc_pools *p, struct gpu_alloc_space *as,
	      const struct gpu_alloc_alloc_req *req, struct gpu_alloc_object *obj, u64 *pfn);
/* Unmaps and returns the frames (the caller shot down the TLBs first). */
void gpu_alloc_free(struct gpu_alloc_pools *p, struct gpu_alloc_space *as,
		    struct gpu_alloc_object *obj);
/* The object's PEC buffer entry. */
void gpu_alloc_pec_entry(const struct gpu_alloc_space *as, const struct gpu_alloc_object *obj,
			 struct mcmgpu_pec_entry *e);

#endif /* MCMGPU_GPU_ALLOC_H */
