// SPDX-License-Identifier: GPL-2.0
/*
 * GPU memory objects: the ALLOC and FREE ioctls over the allocator core
 * (gpu_alloc.c). The chiplet pools belong to the device and outlive an
 * unbind (a file may still free its objects); each file has one GPU
 * address space, its page tables in kernel pages that barre_iommu.ko
 * walks by physical address. A free drops the object's PEC entry and
 * shoots down the device's TLBs before its frames return to the pools.
 */
#include <linux/mm.h>
#include <linux/slab.h>

#include "mcmgpu.h"
#include "mcmgpu_ioctl.h"

static int mcmgpu_mem_init(struct mcmgpu_device *mdev)
{
	u32 frames = mdev->vram_per_chiplet >> MCMGPU_PAGE_SHIFT;

	mutex_init(&mdev->mem_lock);
	mdev->pool_bits = kvcalloc((size_t)mdev->chiplets * gpu_alloc_pool_words(frames),
				   sizeof(u64), GFP_KERNEL);
	if (!mdev->pool_bits)
		return -ENOMEM;
	gpu_alloc_pools_init(&mdev->pools, mdev->chiplets, frames, mdev->pool_bits);
	return 0;
}

static void mcmgpu_mem_fini(struct mcmgpu_device *mdev)
{
	kvfree(mdev->pool_bits);
	mdev->pool_bits = NULL;
}

static u64 mcmgpu_table_alloc(void *priv)
{
	unsigned long page = get_zeroed_page(GFP_KERNEL);

	return page ? virt_to_phys((void *)page) : 0;
}

static void mcmgpu_table_free(void *priv, u64 table)
{
	free_page((unsigned long)phys_to_virt(table));
}

static u64 *mcmgpu_table_map(void *priv, u64 table)
{
	return phys_to_virt(table);
}

static const struct gpu_alloc_pt_ops mcmgpu_pt_ops = {
	.alloc_table = mcmgpu_table_alloc,
	.free_table = mcmgpu_table_free,
	.map_table = mcmgpu_table_map,
};

static void mcmgpu_obj_free(struct mcmgpu_file *mf, struct mcmgpu_obj *o)
{
	struct mcmgpu_device *mdev = mf->mdev;

	mcmgpu_engines_obj_free(mf, o);
	mutex_lock(&mdev->mem_lock);
	gpu_alloc_free(&mdev->pools, mf->as, &o->obj);
	mutex_unlock(&mdev->mem_lock);
	kvfree(o->pfn);
	kfree(o);
}

/* The file's GPU address space, made with its first object (mf->lock). */
int mcmgpu_mem_space(struct mcmgpu_file *mf)
{
	struct gpu_alloc_space *as;
	int ret;

	lockdep_assert_held(&mf->lock);
	if (mf->as)
		return 0;
	as = kzalloc(sizeof(*as), GFP_KERNEL);
	ret = as ? gpu_alloc_space_init(as, mf->ctx, &mcmgpu_pt_ops) : -ENOMEM;
	if (ret) {
		kfree(as);
		return ret;
	}
	mutex_lock(&mf->mdev->files_lock);
	mf->as = as;
	mf->pasid.root = as->root;
	mutex_unlock(&mf->mdev->files_lock);
	return 0;
}

static int mcmgpu_ioctl_alloc(void *file, void *arg, u32 usize)
{
	struct mcmgpu_file *mf = file;
	struct mcmgpu_device *mdev = mf->mdev;
	struct mcmgpu_alloc *a = arg;
	struct gpu_alloc_alloc_req req = { };
	struct mcmgpu_obj *o;
	const char *field;
	u32 handle;
	int ret;

	/*
	 * Any size is rounded up to whole pages, shared or not; a shared
	 * object keeps its true size too: its last block may be short.
	 */
	if (a->flags & ~(MCMGPU_ALLOC_F_BARRE | MCMGPU_ALLOC_F_WRITE |
			 MCMGPU_ALLOC_F_SHARED) || !a->bytes ||
	    a->bytes > U64_MAX - PAGE_SIZE || a->nmap > MCMGPU_MAX_CHIPLETS ||
	    a->reserved || (a->merge > 1 && !(a->flags & MCMGPU_ALLOC_F_BARRE)))
		return -EINVAL;
	req.pages = DIV_ROUND_UP_ULL(a->bytes, 1ULL << MCMGPU_PAGE_SHIFT);
	req.policy = a->policy;
	req.g = a->g;
	req.nmap = a->nmap;
	memcpy(req.map, a->map, sizeof(a->map));
	req.barre = a->flags & MCMGPU_ALLOC_F_BARRE;
	req.merge = a->merge;
	req.writable = a->flags & (MCMGPU_ALLOC_F_WRITE | MCMGPU_ALLOC_F_SHARED);
	if (gpu_alloc_alloc_check(&mdev->pools, &req, &field))
		return -EINVAL;

	o = kzalloc(sizeof(*o), GFP_KERNEL);
	if (!o)
		return -ENOMEM;
	o->pfn = kvmalloc_array(req.pages, sizeof(u64), GFP_KERNEL);
	if (!o->pfn) {
		kfree(o);
		return -ENOMEM;
	}
	mutex_lock(&mf->lock);
	ret = mcmgpu_mem_space(mf);
	if (ret)
		goto unlock;
	mutex_lock(&mdev->mem_lock);
	ret = gpu_alloc(&mdev->pools, mf->as, &req, &o->obj, o->pfn);
	mutex_unlock(&mdev->mem_lock);
	if (ret)
		goto unlock;
	ret = xa_alloc(&mf->objects, &handle, o, xa_limit_31b, GFP_KERNEL);
	if (!ret) {
		/* The engines' parts of it (ADSM's CPU side, its mmap offset). */
		a->mmap_offset = 0;
		ret = mcmgpu_engines_obj_alloc(mf, o, a);
		if (ret)
			xa_erase(&mf->objects, handle);
	}
	if (ret) {
		mutex_lock(&mdev->mem_lock);
		gpu_alloc_free(&mdev->pools, mf->as, &o->obj);
		mutex_unlock(&mdev->mem_lock);
		goto unlock;
	}
	if (req.barre) {
		struct mcmgpu_pec_entry pe;

		/* The IOMMU reads it from the PASID entry at its next batch. */
		gpu_alloc_pec_entry(mf->as, &o->obj, &pe);
		mutex_lock(&mdev->files_lock);
		if (mcmgpu_pec_insert(mf->pasid.pec, ARRAY_SIZE(mf->pasid.pec),
				      &pe) > 0)
			mf->pasid.pec_evictions++;
		mf->pasid.pec_gen = ++mdev->pasid_gen;
		mutex_unlock(&mdev->files_lock);
	}
	mutex_unlock(&mf->lock);
	a->handle = handle;
	a->gpu_va = o->obj.vpn << MCMGPU_PAGE_SHIFT;
	a->pages = o->obj.pages;
	a->groups = o->obj.groups;
	a->grouped_pages = o->obj.grouped_pages;
	a->fallback_pages = o->obj.fallback_pages;
	a->merged_groups = o->obj.merged_groups;
	return 0;

unlock:
	mutex_unlock(&mf->lock);
	kvfree(o->pfn);
	kfree(o);
	return ret;
}

/*
 * No translation of the object may survive its frames: the PEC entry goes,
 * then every TLB of the context (waited for). If the shootdown fails the
 * object stays, and a later FREE (or the file's release) retries.
 */
static int mcmgpu_ioctl_free(void *file, void *arg, u32 usize)
{
	struct mcmgpu_file *mf = file;
	struct mcmgpu_device *mdev = mf->mdev;
	struct mcmgpu_free *f = arg;
	struct mcmgpu_cmd c = {
		.opcode = MCMGPU_OP_TLB_INVALIDATE,
		.ctx = mf->ctx,
	};
	struct mcmgpu_obj *o;
	int ret;

	if (mutex_lock_interruptible(&mf->lock))
		return -ERESTARTSYS;
	o = xa_load(&mf->objects, f->handle);
	if (!o) {
		ret = -ENOENT;
		goto unlock;
	}
	if (mcmgpu_engines_obj_busy(mf, o)) {
		ret = -EBUSY;
		goto unlock;
	}
	mutex_lock(&mdev->files_lock);
	mcmgpu_pec_drop(mf->pasid.pec, ARRAY_SIZE(mf->pasid.pec), mf->ctx,
			o->obj.vpn, o->obj.vpn + o->obj.pages - 1);
	mf->pasid.pec_gen = ++mdev->pasid_gen;
	mutex_unlock(&mdev->files_lock);
	ret = mcmgpu_submit(mdev, &c);
	if (!ret)
		ret = mcmgpu_status_errno(c.status);
	if (ret)
		goto unlock;
	xa_erase(&mf->objects, f->handle);
	mcmgpu_obj_free(mf, o);
unlock:
	mutex_unlock(&mf->lock);
	return ret;
}

/*
 * The open file's PASID joins the IOMMU's table. Generations are the
 * device's, so a model the IOMMU kept for a closed file whose PASID is
 * used again never looks current.
 */
static void mcmgpu_mem_file_open(struct mcmgpu_file *mf)
{
	mutex_lock(&mf->mdev->files_lock);
	mf->pasid.config_gen = ++mf->mdev->pasid_gen;
	mf->pasid.pec_gen = mf->pasid.config_gen;
	list_add_tail(&mf->node, &mf->mdev->files);
	mutex_unlock(&mf->mdev->files_lock);
}

/* files_lock held. */
static struct mcmgpu_file *mcmgpu_mem_pasid_file(struct mcmgpu_device *mdev,
						 u32 pasid)
{
	struct mcmgpu_file *mf;

	list_for_each_entry(mf, &mdev->files, node)
		if (mf->ctx == pasid)
			return mf;
	return NULL;
}

int mcmgpu_mem_pasid_entry(struct mcmgpu_aux_dev *aux, u32 pasid,
			   struct mcmgpu_pasid_entry *e)
{
	struct mcmgpu_device *mdev = aux->parent;
	struct mcmgpu_file *mf;
	int ret = -ENOENT;

	mutex_lock(&mdev->files_lock);
	mf = mcmgpu_mem_pasid_file(mdev, pasid);
	if (mf) {
		*e = mf->pasid;
		e->pec_evictions -= mf->pec_evictions_at_reset;
		ret = 0;
	}
	mutex_unlock(&mdev->files_lock);
	return ret;
}

void mcmgpu_mem_pasid_stats(struct mcmgpu_aux_dev *aux, u32 pasid,
			    u64 config_gen, const struct mcmgpu_barre_stats *st)
{
	struct mcmgpu_device *mdev = aux->parent;
	struct mcmgpu_file *mf;

	mutex_lock(&mdev->files_lock);
	mf = mcmgpu_mem_pasid_file(mdev, pasid);
	if (mf && mf->pasid.config_gen == config_gen)
		mf->iommu_stats = *st;
	mutex_unlock(&mdev->files_lock);
}

void mcmgpu_mem_pasid_reset(struct mcmgpu_file *mf, u32 walkers, bool shadow,
			    u32 sched_moves)
{
	mutex_lock(&mf->mdev->files_lock);
	mf->pasid.config_gen = ++mf->mdev->pasid_gen;
	mf->pasid.walkers = walkers;
	mf->pasid.shadow = shadow;
	mf->pasid.sched_moves = sched_moves;
	mf->pec_evictions_at_reset = mf->pasid.pec_evictions;
	memset(&mf->iommu_stats, 0, sizeof(mf->iommu_stats));
	mutex_unlock(&mf->mdev->files_lock);
}

/* The IOMMU's fields of struct mcmgpu_barre_stats (barre_walker_export_stats). */
void mcmgpu_mem_pasid_read_stats(struct mcmgpu_file *mf,
				 struct mcmgpu_barre_stats *st)
{
	const struct mcmgpu_barre_stats *s = &mf->iommu_stats;

	mutex_lock(&mf->mdev->files_lock);
	st->ats_requests = s->ats_requests;
	st->walks = s->walks;
	st->coalesced = s->coalesced;
	st->pec_hits = s->pec_hits;
	st->pec_misses = s->pec_misses;
	/* ALLOCs since the run's end count too, as the IOMMU would. */
	st->pec_evictions = mf->pasid.pec_evictions -
			    mf->pec_evictions_at_reset;
	st->translation_faults = s->translation_faults;
	st->shadow_mismatches = s->shadow_mismatches;
	st->iommu_cycles = s->iommu_cycles;
	st->sched_moves = s->sched_moves;
	memcpy(st->pwq_occupancy, s->pwq_occupancy,
	       sizeof(st->pwq_occupancy));
	mutex_unlock(&mf->mdev->files_lock);
}

/*
 * The file's objects and address space, at its release: its context (and
 * so its TLBs) is destroyed already; its PASID leaves the IOMMU's table
 * (the IOMMU drops its model when it next looks).
 */
static void mcmgpu_mem_file_release(struct mcmgpu_file *mf)
{
	struct mcmgpu_obj *o;
	unsigned long handle;

	mutex_lock(&mf->mdev->files_lock);
	list_del(&mf->node);
	mutex_unlock(&mf->mdev->files_lock);
	xa_for_each(&mf->objects, handle, o)
		mcmgpu_obj_free(mf, o);
	xa_destroy(&mf->objects);
	if (mf->as) {
		gpu_alloc_space_destroy(mf->as);
		kfree(mf->as);
	}
}

static const struct mcmgpu_ioctl_desc mcmgpu_mem_ioctls[] = {
	MCMGPU_IOCTL_DEF(MCMGPU_IOCTL_ALLOC, MCMGPU_ALLOC_SIZE_VER0,
			 mcmgpu_ioctl_alloc, MCMGPU_IOCTL_OUT),
	MCMGPU_IOCTL_DEF(MCMGPU_IOCTL_FREE, MCMGPU_FREE_SIZE_VER0,
			 mcmgpu_ioctl_free, 0),
};

const struct mcmgpu_engine mcmgpu_mem_engine = {
	.name = "mem",
	.ioctls = mcmgpu_mem_ioctls,
	.nr_ioctls = ARRAY_SIZE(mcmgpu_mem_ioctls),
	.dev_init = mcmgpu_mem_init,
	.dev_fini = mcmgpu_mem_fini,
	.file_open = mcmgpu_mem_file_open,
	.file_release = mcmgpu_mem_file_release,
};
