// SPDX-License-Identifier: GPL-2.0
/*
 * The host backend of `mcmgpu run` (gpu_run.h): the GPU timing core, the
 * allocator and the IOMMU walker in-process.
 *
 * With translation on, the core and the IOMMU exchange ATS requests by
 * the Barre replay's epoch protocol (barre_host.c): with L = 2 x the PCIe
 * latency, epoch [H, H + L) runs the core to H + L, then the IOMMU to
 * H + L + PCIe; every answer it gives by then reaches the core after
 * H + L, so the result is that of one simulation of both, however the
 * epochs are cut. The device path runs the same epochs through
 * mcmgpu.ko and barre_iommu.ko.
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
	return barre_walker_reset(&h->iommu, &bc);
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
	__u64 base[MCMGPU_MAX_CHIPLETS], mpte;
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
		for (i = 0; i < MCMGPU_MAX_CHIPLETS; i++)
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
	int ret = barre_walker_submit(&h->iommu, &q);

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
		.tag = rsp->tag, .pfn = rsp->pfn, .arrive = rsp->done + h->o->cfg.pcie_lat,
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
	u32 frames = c->vram_mib << 8;
	int ret;

	if (c->chiplets > MCMGPU_MAX_CHIPLETS ||
	    c->chiplets * c->l2_tlb_mshrs > BARRE_WALKER_MAX_INFLIGHT) {
		snprintf(err, errlen, "chiplets x l2_tlb_mshrs: %u x %u, translation takes at most %u chiplets and %u requests in flight",
			 c->chiplets, c->l2_tlb_mshrs, MCMGPU_MAX_CHIPLETS,
			 BARRE_WALKER_MAX_INFLIGHT);
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
				&(struct barre_walker_pt_ops){ walk_root, walk_read, h },
				host_respond, h);
	if (ret)
		snprintf(err, errlen, "walkers: %u out of 1..%u", bc.walkers,
			 MCMGPU_BARRE_MAX_WALKERS);
	return ret;
}

/* Runs the core to the end, epoch by epoch when translating. */
static int host_loop(struct host_run *h)
{
	u64 pcie = h->o->cfg.pcie_lat, L = 2 * pcie;
	int ret = 0;

	if (!h->o->cfg.translate) {
		while (!ret && !gpu_core_done(h->core))
			ret = gpu_core_run(h->core, ~0ULL);
		return ret;
	}
	while (!ret && !h->error && !gpu_core_done(h->core)) {
		u64 H = gpu_core_now(h->core);

		/* Nothing in flight: skip to the next epoch with work. */
		if (!barre_walker_inflight(&h->iommu)) {
			u64 t = gpu_core_next_event(h->core);

			if (t == ~0ULL) {
				h->error = -EPROTO;
				snprintf(h->why, sizeof(h->why),
					 "the core waits for a translation nobody is walking");
				break;
			}
			if (t >= H + L)
				H = t - (t - H) % L;
			barre_walker_advance(&h->iommu, H + pcie);
		}
		if (h->o->cut) {
			u64 t = gpu_core_now(h->core);

			while (!ret && t < H + L) {
				t = t + h->o->cut < H + L ? t + h->o->cut : H + L;
				ret = gpu_core_run(h->core, t);
			}
		} else {
			ret = gpu_core_run(h->core, H + L);
		}
		if (!ret)
			barre_walker_advance(&h->iommu, H + L + pcie);
	}
	return ret ? ret : h->error;
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
	}
out_core:
	gpu_core_destroy(h.core);
	free(h.core);
out:
	for (i = 0; i < h.nobjs; i++) {
		free(h.objs[i].pfn);
	}
	free(h.objs);
	if (h.as.root)
		gpu_alloc_space_destroy(&h.as);
	free(h.pool_bits);
	prog_in_close(h.in);
	if (ret)
		gpu_run_result_free(r);
	return ret;
}
