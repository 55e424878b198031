// SPDX-License-Identifier: GPL-2.0
/*
 * The host backend of `mcmgpu run` (gpu_run.h): the GPU timing core, the
 * allocator and the IOMMU walker in-process.
 *
 * With translation on, the core and the IOMMU exchange ATS requests by
 * the Barre replay's epoch protocol (barre_host.c): from cycle H the core
 * runs to T = mcmgpu_ats_lookahead(H, the IOMMU's next event), then the
 * IOMMU to T + PCIe; every answer it gives later reaches the core after
 * T, so the result is that of one simulation of both, however the epochs
 * are cut. The device runs the same epochs and trades them with
 * barre_iommu.ko on its ATS rings.
 *
 * mgvm on (host only; docs/gpu.md, MGvm in the core): the IOMMU's place
 * is taken by a GMMU a chiplet, each a walker of its own (barre_walk.c:
 * PW-queue, walkers, PEC), reached in mgvm_lat cycles each way, whose
 * walks cost the local and remote reads of the page-table pages, each
 * placed on the chiplet holding most of the data pages it maps. The
 * epochs are the same with mgvm_lat in the place of the PCIe latency and
 * no walk counted in the lookahead (a walk's cost varies with its reads).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_run.h"
#include "gpu_run_objects.h"
#include "prog_file.h"
#include "../../../drivers/mcmgpu/gpu_alloc.h"
#include "../../../drivers/iommu/barre/barre_walk.h"
#include "../../../uapi/mcmgpu_pt.h"

struct host_run;

/* mgvm: one chiplet's GMMU. */
struct host_gmmu {
	struct host_run *h;
	u32 chiplet;
	struct barre_walker w;
};

/* mgvm: a page-table page and the chiplet whose memory holds it. */
struct host_pt_home {
	u64 table;
	u32 chiplet;
};

struct host_run {
	const struct gpu_run_opts *o;
	struct gpu_run_result *r;
	struct gpu_core *core;
	struct prog_in *in;
	/* translation */
	struct gpu_alloc_pools pools;
	struct gpu_alloc_space as;
	struct gpu_alloc_pt_ops pt;
	struct barre_walker iommu;
	/* mgvm on: cfg.chiplets GMMUs in the IOMMU's place, and the tables' homes */
	struct host_gmmu *gmmu;
	struct host_pt_home *homes;
	uint32_t nhomes, cap_homes;
	u64 *pool_bits;
	struct gpu_alloc_object *objs;
	uint32_t nobjs, cap_objs;
	uint32_t cap_kernels;
	int error;		/* a request or reply refused */
	char why[256];
};

static void *host_alloc(void *priv, size_t bytes)
{
	(void)priv;
	return calloc(1, bytes ? bytes : 1);
}

static void host_free(void *priv, void *p)
{
	(void)priv;
	free(p);
}

static u64 pt_alloc(void *priv)
{
	void *p = aligned_alloc(4096, 4096);

	(void)priv;
	if (p)
		memset(p, 0, 4096);
	return (u64)(uintptr_t)p;
}

static void pt_free(void *priv, u64 table)
{
	(void)priv;
	free((void *)(uintptr_t)table);
}

static u64 *pt_map(void *priv, u64 table)
{
	(void)priv;
	return (u64 *)(uintptr_t)table;
}

static u64 walk_root(void *priv, u32 pasid)
{
	struct host_run *h = priv;

	return pasid == h->as.pasid ? h->as.root : 0;
}

static u64 walk_read(void *priv, u64 table, u32 index)
{
	(void)priv;
	return ((u64 *)(uintptr_t)table)[index];
}

/*
 * mgvm: the page-table pages' homes. The rule (ours; MGvm [41] places the
 * page tables by the static analysis that maps the data, which Barre
 * Chord does not detail): a table lives on the chiplet holding the most
 * data pages it maps, directly (a leaf table) or through the tables under
 * it, the lowest such chiplet on a tie, and a table mapping none (never
 * walked) on chiplet 0. Called once the objects are allocated; the
 * tables do not change during a run (mgvm is refused with migrate).
 */
static int mgvm_place(struct host_run *h, u64 table, int level, u64 *count)
{
	u64 own[MCMGPU_PEC_MAX_CHIPLETS] = { 0 }, sub[MCMGPU_PEC_MAX_CHIPLETS];
	u32 i, c, best = 0;
	int ret;

	for (i = 0; i < MCMGPU_PT_ENTRIES; i++) {
		u64 e = walk_read(h, table, i);

		if (!(e & MCMGPU_PTE_VALID))
			continue;
		if (level == MCMGPU_PT_LEVELS - 1) {
			c = (u32)(MCMGPU_PTE_PFN(e) / h->pools.frames);
			if (c < MCMGPU_PEC_MAX_CHIPLETS)
				own[c]++;
			continue;
		}
		memset(sub, 0, sizeof(sub));
		ret = mgvm_place(h, e & MCMGPU_PTE_TABLE_MASK, level + 1, sub);
		if (ret)
			return ret;
		for (c = 0; c < MCMGPU_PEC_MAX_CHIPLETS; c++)
			own[c] += sub[c];
	}
	for (c = 1; c < h->o->cfg.chiplets; c++)
		if (own[c] > own[best])
			best = c;
	for (c = 0; c < MCMGPU_PEC_MAX_CHIPLETS; c++)
		count[c] += own[c];
	if (h->nhomes == h->cap_homes) {
		uint32_t cap = h->cap_homes ? 2 * h->cap_homes : 64;
		void *p = realloc(h->homes, cap * sizeof(*h->homes));

		if (!p)
			return -ENOMEM;
		h->homes = p;
		h->cap_homes = cap;
	}
	h->homes[h->nhomes++] = (struct host_pt_home){ table, best };
	return 0;
}

static int home_cmp(const void *a, const void *b)
{
	const struct host_pt_home *x = a, *y = b;

	return x->table < y->table ? -1 : x->table > y->table;
}

static int mgvm_place_tables(struct host_run *h, char *err, size_t errlen)
{
	u64 count[MCMGPU_PEC_MAX_CHIPLETS] = { 0 };
	int ret = mgvm_place(h, h->as.root, 0, count);

	if (ret) {
		snprintf(err, errlen, "out of memory");
		return ret;
	}
	qsort(h->homes, h->nhomes, sizeof(*h->homes), home_cmp);
	h->r->mgvm.pt_pages = h->nhomes;
	return 0;
}

/* The chiplet whose memory holds table (chiplet 0 for one never placed). */
static u32 mgvm_home(const struct host_run *h, u64 table)
{
	struct host_pt_home key = { table, 0 };
	const struct host_pt_home *p = bsearch(&key, h->homes, h->nhomes,
					       sizeof(*h->homes), home_cmp);

	return p ? p->chiplet : 0;
}

/*
 * mgvm: a GMMU's walk of req, when a walker takes it. One read a level,
 * each dram_lat at the table's home, and a table on another chiplet adds
 * the link both ways (2 x link_lat): the core's local and remote costs of
 * a DRAM access without its L2 (no page-walk cache: Barre Chord names
 * none, and its IOMMU's walk has none either).
 */
static u32 gmmu_walk_cycles(void *priv, const struct barre_walker_request *req)
{
	struct host_gmmu *gm = priv;
	struct host_run *h = gm->h;
	const struct gpu_config *c = &h->o->cfg;
	u64 table = h->as.root, e;
	u32 cycles = 0, remote = 0;
	int level;

	for (level = 0; table && level < MCMGPU_PT_LEVELS; level++) {
		cycles += c->dram_lat;
		h->r->mgvm.pte_reads++;
		if (mgvm_home(h, table) != gm->chiplet) {
			cycles += 2 * c->link_lat;
			remote++;
		}
		e = walk_read(h, table, mcmgpu_pt_index(req->vpn, level));
		if (!(e & MCMGPU_PTE_VALID))
			break;
		table = e & MCMGPU_PTE_TABLE_MASK;
	}
	h->r->mgvm.remote_pte_reads += remote;
	h->r->mgvm.remote_walks += remote > 0;
	h->r->mgvm.walk_cycles += cycles;
	return cycles ? cycles : 1;
}

static u64 gmmu_root(void *priv, u32 pasid)
{
	struct host_gmmu *gm = priv;

	return walk_root(gm->h, pasid);
}

static u64 gmmu_read(void *priv, u64 table, u32 index)
{
	struct host_gmmu *gm = priv;

	return walk_read(gm->h, table, index);
}

/*
 * Translation: every object allocated before the run, in program order,
 * as the device path does (the allocator's PEC entries then stand from
 * the first kernel on); the IOMMU's counters start after them.
 */
static int host_preallocate(struct host_run *h, const char *path, char *err,
			    size_t errlen)
{
	struct prog_in *in = prog_in_open(path, err, errlen);
	struct prog_rec *rec = malloc(sizeof(*rec));
	struct barre_walker_config bc = h->iommu.cfg;
	int ret = in && rec ? 0 : -ENOMEM;
	uint32_t c;

	while (!ret && (ret = prog_in_next(in, rec)) == 1) {
		struct gpu_alloc_alloc_req req;
		struct gpu_object obj = {
			.base = rec->object.base, .size = rec->object.size,
			.policy = h->o->cfg.placement, .g = h->o->cfg.place_g,
		};
		struct gpu_alloc_object *g;
		u64 *pfn;

		ret = 0;
		if (rec->type != PROG_REC_OBJECT)
			continue;
		if (h->nobjs == h->cap_objs) {
			uint32_t cap = h->cap_objs ? 2 * h->cap_objs : 64;
			void *p = realloc(h->objs, cap * sizeof(*h->objs));

			if (!p) {
				ret = -ENOMEM;
				break;
			}
			h->objs = p;
			h->cap_objs = cap;
		}
		obj.index = h->nobjs;
		gpu_run_object_req(h->o, &obj, &req);
		g = &h->objs[h->nobjs];
		pfn = malloc(req.pages * sizeof(*pfn));
		ret = pfn ? gpu_alloc(&h->pools, &h->as, &req, g, pfn) : -ENOMEM;
		if (ret) {
			free(pfn);
			snprintf(err, errlen, "object %u (0x%llx, %llu bytes): %llu pages "
				 "do not fit in %u x %u MiB (%s)", h->nobjs,
				 (unsigned long long)obj.base, (unsigned long long)obj.size,
				 (unsigned long long)req.pages, h->o->cfg.chiplets,
				 h->o->cfg.vram_mib, strerror(-ret));
			break;
		}
		h->nobjs++;
		if (req.barre) {
			struct mcmgpu_pec_entry pe;

			gpu_alloc_pec_entry(&h->as, g, &pe);
			barre_walker_pec_add(&h->iommu, &pe);
			/* mgvm: the driver registers the object with every GMMU. */
			for (c = 0; h->gmmu && c < h->o->cfg.chiplets; c++)
				barre_walker_pec_add(&h->gmmu[c].w, &pe);
		}
	}
	if (ret < 0 && in && !*err)
		snprintf(err, errlen, "%s", *prog_in_error(in) ? prog_in_error(in) :
			 "out of memory");
	free(rec);
	if (in)
		prog_in_close(in);
	if (ret < 0)
		return ret;
	/* barre_iommu.ko is reset at the run's start: counters, not PEC. */
	ret = barre_walker_reset(&h->iommu, &bc);
	for (c = 0; !ret && h->gmmu && c < h->o->cfg.chiplets; c++)
		ret = barre_walker_reset(&h->gmmu[c].w, &bc);
	if (!ret && h->gmmu)
		ret = mgvm_place_tables(h, err, errlen);
	return ret;
}

/* An OBJECT record: its VA, allocated before the run (or identity). */
static int host_object(void *priv, struct gpu_object *obj, char *why, size_t len)
{
	struct host_run *h = priv;

	h->r->objects++;
	if (!h->o->cfg.translate) {
		obj->gpu_va = obj->base & ~((1ULL << GPU_PAGE_SHIFT) - 1);
		return 0;
	}
	if (obj->index >= h->nobjs) {
		snprintf(why, len, "object %u was not in the program's first reading",
			 obj->index);
		return -EINVAL;
	}
	obj->gpu_va = h->objs[obj->index].vpn << GPU_PAGE_SHIFT;
	return 0;
}

/* F-Barre's check: the true walk of a page translated in the package. */
static u64 host_walk(void *priv, u64 vpn)
{
	struct host_run *h = priv;

	return gpu_alloc_pte_get(&h->as, vpn);
}

/*
 * migrate=acud (docs/gpu.md, Migration (ACUD) in the core): page vpn
 * moves to the lowest free frame of chiplet dest, as the driver would
 * place it; its old frame goes back to the pool. Under Barre the page
 * leaves its coalescing group (§VI "we reset coal_bitmap"): its own
 * coalescing bits go, and its old chiplet's bit goes from every other
 * member's bitmap too (notes §6.4), so that no walk of a member computes
 * the old frame; every PTE changed is listed for the shootdown.
 */
static int host_migrate(void *priv, u64 vpn, u32 dest, u64 *pfn, u64 *vpns,
			u32 *n)
{
	struct host_run *h = priv;
	struct gpu_alloc_object *obj = NULL;
	struct mcmgpu_pec_entry pe;
	u64 pte = gpu_alloc_pte_get(&h->as, vpn), old, first, v, last, bit;
	__u64 base[MCMGPU_PEC_MAX_CHIPLETS], mpte;
	u32 local, i;

	*n = 0;
	for (i = 0; i < h->nobjs; i++)
		if (vpn >= h->objs[i].vpn && vpn < h->objs[i].vpn + h->objs[i].pages)
			obj = &h->objs[i];
	if (!obj || !(pte & MCMGPU_PTE_VALID))
		return -EINVAL;
	old = MCMGPU_PTE_PFN(pte);
	if (old != *pfn)
		return -ESTALE;		/* the access used a translation shot down */
	if (old / h->pools.frames == dest)
		return -EINVAL;
	local = gpu_alloc_find_free(&h->pools, dest);
	if (local == GPU_ALLOC_NO_FRAME)
		return -ENOMEM;
	gpu_alloc_frame_take(&h->pools, dest, local);
	*pfn = h->pools.base[dest] + local;
	/* The group's other members, found as PEC finds them. */
	if (mcmgpu_popcount8(MCMGPU_PTE_COAL_BITMAP(pte)) > 1) {
		gpu_alloc_pec_entry(&h->as, obj, &pe);
		for (i = 0; i < MCMGPU_PEC_MAX_CHIPLETS; i++)
			base[i] = h->pools.base[i];
		bit = FIELD_PREP(MCMGPU_PTE_COAL_BITMAP_MASK,
				 1ULL << (old / h->pools.frames));
		first = vpn - MCMGPU_PTE_COAL_INTRA(pte) -
			(u64)obj->g * MCMGPU_PTE_COAL_POS(pte);
		last = first + (u64)obj->g * pe.nmap;
		for (v = first; v < last && v <= pe.end_vpn; v++) {
			if (v == vpn || !mcmgpu_pec_calc_pte(&pe, base, vpn,
							     pte, v, &mpte))
				continue;
			mpte = gpu_alloc_pte_get(&h->as, v);
			if (!(mpte & bit) || *n + 1 >= GPU_MIG_PAGES_MAX)
				continue;
			mpte &= ~bit;
			if (mcmgpu_popcount8(MCMGPU_PTE_COAL_BITMAP(mpte)) < 2)
				mpte &= ~MCMGPU_PTE_COAL_MASK;
			if (gpu_alloc_pte_set(&h->as, v, mpte))
				return -EIO;
			vpns[(*n)++] = v;
		}
	}
	pte &= ~(MCMGPU_PTE_PFN_MASK | MCMGPU_PTE_COAL_MASK);
	pte |= FIELD_PREP(MCMGPU_PTE_PFN_MASK, *pfn);
	if (gpu_alloc_pte_set(&h->as, vpn, pte))
		return -EIO;
	obj->pfn[vpn - obj->vpn] = *pfn;
	gpu_alloc_frame_put(&h->pools, (u32)(old / h->pools.frames),
			    (u32)(old - h->pools.base[old / h->pools.frames]));
	vpns[(*n)++] = vpn;
	return 0;
}

/* Core -> IOMMU: a PCIe latency later. */
static void host_ats_request(void *priv, const struct chiplet_tlb_request *r)
{
	struct host_run *h = priv;
	struct barre_walker_request q = {
		.tag = r->tag, .vpn = r->vpn, .arrive = r->issue + h->o->cfg.pcie_lat,
		.pasid = h->as.pasid, .chiplet = r->chiplet, .write = r->write,
	};
	int ret;

	/* mgvm: the L2 TLB's miss goes to its own chiplet's GMMU. */
	if (h->gmmu) {
		q.arrive = r->issue + h->o->cfg.mgvm_lat;
		ret = r->chiplet < h->o->cfg.chiplets ?
		      barre_walker_submit(&h->gmmu[r->chiplet].w, &q) : -EINVAL;
	} else {
		ret = barre_walker_submit(&h->iommu, &q);
	}

	if (ret && !h->error) {
		h->error = ret;
		snprintf(h->why, sizeof(h->why), "the IOMMU refused ATS request %llu (%s)",
			 (unsigned long long)r->tag, strerror(-ret));
	}
}

/* IOMMU -> core. */
static void host_respond(void *priv, const struct barre_walker_response *rsp)
{
	struct host_run *h = priv;
	struct chiplet_tlb_reply r = {
		.tag = rsp->tag, .pfn = rsp->pfn,
		.arrive = rsp->done + (h->gmmu ? h->o->cfg.mgvm_lat : h->o->cfg.pcie_lat),
		.fault = rsp->status != BARRE_WALKER_STATUS_OK, .writable = rsp->writable,
		.coal = rsp->coal, .pec = rsp->pec,
	};
	int ret = gpu_core_deliver(h->core, &r);

	if (ret && !h->error) {
		h->error = ret;
		snprintf(h->why, sizeof(h->why), "%s", gpu_core_error(h->core));
	}
}

static void host_kernel_done(void *priv, const struct gpu_kernel_stats *k)
{
	struct host_run *h = priv;
	struct gpu_run_result *r = h->r;

	if (r->nkernels == h->cap_kernels) {
		uint32_t cap = h->cap_kernels ? 2 * h->cap_kernels : 16;
		void *p = realloc(r->kernels, cap * sizeof(*r->kernels));

		if (!p) {
			h->error = -ENOMEM;
			snprintf(h->why, sizeof(h->why), "out of memory");
			return;
		}
		r->kernels = p;
		h->cap_kernels = cap;
	}
	r->kernels[r->nkernels++] = *k;
	if (h->o->progress)
		fprintf(stderr, "\rkernel %u (%s) done at cycle %llu   ", k->id, k->name,
			(unsigned long long)k->end);
}

static int translation_init(struct host_run *h, char *err, size_t errlen)
{
	const struct gpu_config *c = &h->o->cfg;
	struct barre_walker_config bc;
	u32 frames = c->vram_mib << 8, i;
	int ret;

	if (c->chiplets > MCMGPU_PEC_MAX_CHIPLETS ||
	    c->chiplets * c->l2_tlb_mshrs > BARRE_WALKER_MAX_INFLIGHT) {
		snprintf(err, errlen, "chiplets x l2_tlb_mshrs: %u x %u, translation takes at most %u chiplets and %u requests in flight",
			 c->chiplets, c->l2_tlb_mshrs, MCMGPU_PEC_MAX_CHIPLETS,
			 BARRE_WALKER_MAX_INFLIGHT);
		return -EINVAL;
	}
	/* A leaf PTE's frame number has 28 bits (mcmgpu_hw.h). */
	if ((u64)c->chiplets * frames > (MCMGPU_PTE_PFN_MASK >> 12) + 1) {
		snprintf(err, errlen, "vram_mib: %u MiB x %u chiplets, translated runs address at most %llu frames of GPU memory",
			 c->vram_mib, c->chiplets,
			 (unsigned long long)(MCMGPU_PTE_PFN_MASK >> 12) + 1);
		return -EINVAL;
	}
	/*
	 * Count mode (more than 8 chiplets, mcmgpu_barre.h) writes a group
	 * as positions 0..n-1: a moved page cannot leave it alone (§VI).
	 */
	if (mcmgpu_coal_count_mode(c->chiplets) && c->fbarre_merge > 1 &&
	    h->o->barre != GPU_RUN_BARRE_OFF) {
		snprintf(err, errlen, "fbarre_merge: %u on %u chiplets; group expansion is for at most %u chiplets (§VI)",
			 c->fbarre_merge, c->chiplets, GPU_ALLOC_MERGE_MAX_CHIPLETS);
		return -EINVAL;
	}
	if (mcmgpu_coal_count_mode(c->chiplets) && c->migrate &&
	    h->o->barre != GPU_RUN_BARRE_OFF) {
		snprintf(err, errlen, "migrate: on %u chiplets coal_bitmap is a count of consecutive chiplets (§VI), which cannot drop a moved page from its group; at most %u chiplets with Barre and migration",
			 c->chiplets, MCMGPU_COAL_BITMAP_CHIPLETS);
		return -EINVAL;
	}
	h->pt = (struct gpu_alloc_pt_ops){ pt_alloc, pt_free, pt_map, h };
	h->pool_bits = calloc((size_t)c->chiplets * gpu_alloc_pool_words(frames), 8);
	if (!h->pool_bits) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	gpu_alloc_pools_init(&h->pools, c->chiplets, frames, h->pool_bits);
	ret = gpu_alloc_space_init(&h->as, 1, &h->pt);
	if (ret) {
		snprintf(err, errlen, "out of memory");
		return ret;
	}
	barre_walker_default_config(&bc, c->chiplets, frames);
	bc.walkers = c->walkers;
	bc.walk_cycles = c->walk_lat;
	bc.shadow = h->o->shadow;
	/*
	 * F-Barre's coalescing-aware scheduling (§V-C); Barre's has none
	 * unless barre_sched asks for it (Fig 18's first step).
	 */
	bc.sched_moves = c->fbarre || c->barre_sched ? c->fbarre_sched_moves : 0;
	if (h->o->barre == GPU_RUN_BARRE_OFF)
		bc.pec_entries = 0;
	ret = barre_walker_init(&h->iommu, &bc,
				&(struct barre_walker_pt_ops){ walk_root, walk_read, h, NULL },
				host_respond, h);
	/*
	 * mgvm: a GMMU a chiplet with the IOMMU's walkers, queue, PEC
	 * buffer and scheduling (Barre Chord gives no GMMU configuration);
	 * its walks cost their PTE reads (gmmu_walk_cycles).
	 */
	if (!ret && c->mgvm) {
		h->gmmu = calloc(c->chiplets, sizeof(*h->gmmu));
		if (!h->gmmu) {
			snprintf(err, errlen, "out of memory");
			return -ENOMEM;
		}
		for (i = 0; !ret && i < c->chiplets; i++) {
			h->gmmu[i].h = h;
			h->gmmu[i].chiplet = i;
			ret = barre_walker_init(&h->gmmu[i].w, &bc,
				&(struct barre_walker_pt_ops){ gmmu_root, gmmu_read,
							       &h->gmmu[i],
							       gmmu_walk_cycles },
				host_respond, h);
		}
	}
	if (ret)
		snprintf(err, errlen, "walkers: %u out of 1..%u", bc.walkers,
			 MCMGPU_BARRE_MAX_WALKERS);
	return ret;
}

/* The walkers' requests in flight: the IOMMU's, or mgvm's GMMUs'. */
static u32 walkers_inflight(struct host_run *h)
{
	u32 c, n = 0;

	if (!h->gmmu)
		return barre_walker_inflight(&h->iommu);
	for (c = 0; c < h->o->cfg.chiplets; c++)
		n += barre_walker_inflight(&h->gmmu[c].w);
	return n;
}

static void walkers_advance(struct host_run *h, u64 until)
{
	u32 c;

	if (!h->gmmu) {
		barre_walker_advance(&h->iommu, until);
		return;
	}
	/* The core orders the answers of one cycle by tag: GMMU order is free. */
	for (c = 0; c < h->o->cfg.chiplets; c++)
		barre_walker_advance(&h->gmmu[c].w, until);
}

/* The earliest next event of the IOMMU or of any GMMU. */
static u64 walkers_next_event(struct host_run *h)
{
	u64 t, next = ~0ULL;
	u32 c;

	if (!h->gmmu)
		return barre_walker_next_event(&h->iommu);
	for (c = 0; c < h->o->cfg.chiplets; c++) {
		t = barre_walker_next_event(&h->gmmu[c].w);
		if (t < next)
			next = t;
	}
	return next;
}

/* Runs the core to the end, epoch by epoch when translating. */
static int host_loop(struct host_run *h)
{
	u64 pcie = h->gmmu ? h->o->cfg.mgvm_lat : h->o->cfg.pcie_lat;
	u32 walk = h->gmmu ? 0 : h->iommu.cfg.walk_cycles;
	int ret = 0;

	if (!h->o->cfg.translate) {
		while (!ret && !gpu_core_done(h->core))
			ret = gpu_core_run(h->core, ~0ULL);
		return ret;
	}
	while (!ret && !h->error && !gpu_core_done(h->core)) {
		u64 H = gpu_core_now(h->core), T;
		bool inflight = walkers_inflight(h);

		/* Nothing in flight: skip to the core's next event. */
		if (!inflight) {
			u64 t = gpu_core_next_event(h->core);

			if (t == ~0ULL) {
				h->error = -EPROTO;
				snprintf(h->why, sizeof(h->why),
					 "the core waits for a translation nobody is walking");
				break;
			}
			if (t > H)
				H = t;
		}
		T = mcmgpu_ats_lookahead(H, inflight ? walkers_next_event(h) : ~0ULL,
					 pcie, walk);
		if (h->o->cut) {
			u64 t = gpu_core_now(h->core);

			while (!ret && t < T) {
				t = t + h->o->cut < T ? t + h->o->cut : T;
				ret = gpu_core_run(h->core, t);
			}
		} else {
			ret = gpu_core_run(h->core, T);
		}
		if (!ret)
			walkers_advance(h, T + pcie);
	}
	return ret ? ret : h->error;
}

/* mgvm: the GMMUs' counters, summed, in the IOMMU's place. */
static void mgvm_export_stats(const struct host_run *h, struct mcmgpu_barre_stats *st)
{
	struct barre_walker_stats s = { 0 };
	u32 c, i;

	for (c = 0; c < h->o->cfg.chiplets; c++) {
		const struct barre_walker_stats *g = &h->gmmu[c].w.stats;

		s.ats_requests += g->ats_requests;
		s.walks += g->walks;
		s.coalesced += g->coalesced;
		s.faults += g->faults;
		s.pec_hits += g->pec_hits;
		s.pec_misses += g->pec_misses;
		s.pec_evictions += g->pec_evictions;
		s.shadow_mismatches += g->shadow_mismatches;
		s.sched_moves += g->sched_moves;
		s.service_cycles += g->service_cycles;
		for (i = 0; i <= MCMGPU_BARRE_PWQ_ENTRIES; i++)
			s.pwq_hist[i] += g->pwq_hist[i];
	}
	barre_walker_export_stats(&s, st);
}

/* --timeline: the core's samples into the result. */
static int host_timeline(struct host_run *h, char *err, size_t errlen)
{
	const struct gpu_cxl_sample *s;
	u64 n;
	int ret = gpu_core_cxl_samples(h->core, &s, &n, &h->r->timeline_after);

	if (ret == -E2BIG) {
		snprintf(err, errlen, "--timeline %llu: the run's %llu cycles need "
			 "more than %llu samples; give more cycles a sample",
			 (unsigned long long)h->o->timeline,
			 (unsigned long long)h->r->core.cycles,
			 (unsigned long long)GPU_CXL_TIMELINE_MAX);
		return ret;
	}
	if (!ret) {
		h->r->timeline = malloc(n * sizeof(*s));
		ret = h->r->timeline ? 0 : -ENOMEM;
	}
	if (ret) {
		snprintf(err, errlen, "--timeline: out of memory for the samples");
		return ret;
	}
	memcpy(h->r->timeline, s, n * sizeof(*s));
	h->r->ntimeline = n;
	return 0;
}

int gpu_run_host(const char *path, const struct gpu_run_opts *o,
		 struct gpu_run_result *r, char *err, size_t errlen)
{
	struct host_run h = { .o = o, .r = r };
	struct gpu_core_ops ops = {
		.alloc = host_alloc, .free = host_free, .object = host_object,
		.ats_request = host_ats_request, .kernel_done = host_kernel_done,
		.walk = host_walk, .migrate = host_migrate,
	};
	size_t size = gpu_core_size(&o->cfg);
	int ret;
	uint32_t i;

	memset(r, 0, sizeof(*r));
	*err = 0;
	if (!size) {
		snprintf(err, errlen, "the configuration is not valid");
		return -EINVAL;
	}
	h.in = prog_in_open(path, err, errlen);
	if (!h.in)
		return -EINVAL;
	/* The core reads every record into its own, which only prog_in writes. */
	prog_in_same_record(h.in);
	if (o->cfg.translate) {
		ret = translation_init(&h, err, errlen);
		if (!ret)
			ret = host_preallocate(&h, path, err, errlen);
		if (ret)
			goto out;
	}
	h.core = aligned_alloc(64, (size + 63) & ~(size_t)63);
	if (!h.core) {
		ret = -ENOMEM;
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	memset(h.core, 0, size);
	ret = gpu_core_init(h.core, &o->cfg, &ops, &h, prog_in_source, h.in);
	if (ret) {
		snprintf(err, errlen, "%s", gpu_core_error(h.core));
		free(h.core);
		h.core = NULL;
		goto out;
	}
	/* prog_in checks every record (either encoding): no second check. */
	gpu_core_source_checked(h.core);
	if (o->streams && gpu_core_streams(h.core, o->streams)) {
		ret = -EINVAL;
		snprintf(err, errlen, "%s", gpu_core_error(h.core));
		goto out_core;
	}
	if (o->timeline && gpu_core_cxl_timeline(h.core, o->timeline)) {
		ret = -EINVAL;
		snprintf(err, errlen, "--timeline: %s", gpu_core_error(h.core));
		goto out_core;
	}
	ret = host_loop(&h);
	if (o->progress)
		fputc('\n', stderr);
	if (ret) {
		/* The source's message names the file and record; the core's the warp. */
		snprintf(err, errlen, "%s", h.error && *h.why ? h.why :
			 *prog_in_error(h.in) ? prog_in_error(h.in) : gpu_core_error(h.core));
	} else {
		gpu_core_stats(h.core, &r->core);
		if (o->cfg.translate) {
			if (h.gmmu)
				mgvm_export_stats(&h, &r->barre);
			else
				barre_walker_export_stats(&h.iommu.stats, &r->barre);
			for (i = 0; i < h.nobjs; i++) {
				r->barre.objects++;
				r->barre.pages += h.objs[i].pages;
				r->barre.grouped_pages += h.objs[i].grouped_pages;
				r->barre.fallback_pages += h.objs[i].fallback_pages;
				r->barre.groups += h.objs[i].groups;
				r->barre.merged_groups += h.objs[i].merged_groups;
			}
			gpu_run_fbarre_stats(o, r);
		}
		if (o->timeline)
			ret = host_timeline(&h, err, errlen);
	}
out_core:
	gpu_core_destroy(h.core);
	free(h.core);
out:
	for (i = 0; i < h.nobjs; i++) {
		free(h.objs[i].pfn);
	}
	free(h.objs);
	free(h.gmmu);
	free(h.homes);
	if (h.as.root)
		gpu_alloc_space_destroy(&h.as);
	free(h.pool_bits);
	prog_in_close(h.in);
	if (ret)
		gpu_run_result_free(r);
	return ret;
}
