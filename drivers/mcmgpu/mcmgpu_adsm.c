// SPDX-License-Identifier: GPL-2.0
/*
 * ADSM/GMAC in the kernel (notes/adsm.md §4): shared objects user space
 * maps at their GPU virtual address, kept coherent by the protocol core
 * (adsm_protocol.c) through page faults instead of GMAC's SIGSEGV handler.
 *
 * - A shared object has shadow pages (the CPU's copy) and is mapped
 *   VM_PFNMAP: a unit (a rolling block or a lazy object) gets all its PTEs
 *   at one fault, read-only or writable as its state says; a write to a
 *   read-only PTE comes through pfn_mkwrite. Invalidation zaps the PTEs in
 *   every process (unmap_mapping_range); a write-protect zaps too.
 * - Transfers are ADSM_XFER commands between the shadow pages and the
 *   object's GPU pages, through the file's GPU page table. Evictions run in
 *   a work item, one at a time; a write to a block being evicted waits.
 * - Launch is the release, then the kernel runs in a work item; sync waits
 *   for it and is the acquire. A CPU fault while the file's kernel runs
 *   waits for it to finish (decision: block, notes §6.1).
 * - Fork: the mapping is VM_DONTCOPY (the child has none, unless
 *   MADV_DOFORK cleared it: then it shares the one object). FREE of a
 *   mapped object frees its GPU side at once and zaps the CPU side (a
 *   later touch gets SIGSEGV); the shadow pages go with the last unmap;
 *   FREE while the file's kernel runs is EBUSY.
 *
 * Locks: mmap_lock -> adsm lock -> cmd_lock; mf->lock -> adsm lock. The
 * adsm lock is never held across a user copy.
 */
#include <linux/bitfield.h>
#include <linux/dma-mapping.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/highmem.h>
#include <linux/ktime.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/sched/signal.h>
#include <linux/sched/task_stack.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

#include "mcmgpu.h"
#include "mcmgpu_ioctl.h"
#include "adsm_protocol.h"

static char *adsm_protocol = "rolling";
module_param(adsm_protocol, charp, 0644);
MODULE_PARM_DESC(adsm_protocol, "ADSM protocol of new files: batch, lazy or rolling (default rolling)");
static unsigned int adsm_block_kib = 256;
module_param(adsm_block_kib, uint, 0644);
MODULE_PARM_DESC(adsm_block_kib, "ADSM rolling block in KiB, a power of two 4..32768 (default 256)");
static unsigned int adsm_rolling_step = MCMGPU_ADSM_ROLLING_STEP;
module_param(adsm_rolling_step, uint, 0644);
MODULE_PARM_DESC(adsm_rolling_step, "ADSM rolling size added per allocation (default 2)");

static const char *const mcmgpu_adsm_names[MCMGPU_ADSM_PROTOCOLS] = {
	"batch", "lazy", "rolling",
};

/* One eviction waiting for the copy engine. */
struct mcmgpu_evict {
	struct list_head node;
	struct mcmgpu_shared *sh;
	u64 unit;
	u64 off;
	u64 len;
};

/* A file's ADSM state, made at its first ADSM call. */
struct mcmgpu_adsm {
	struct mcmgpu_file *mf;
	struct mutex lock;		/* everything below */
	struct adsm_ctx ctx;
	struct adsm_ref *fifo;
	bool started;			/* a shared object exists: config fixed */
	/* The kernel launched last: running until its work item ends. */
	struct work_struct kernel_work;
	bool running;
	bool pending;			/* launched, not yet synced */
	u32 kernel_status;
	struct mcmgpu_adsm_kernel *desc;	/* coherent: the device reads it */
	struct mcmgpu_adsm_kernel_result *result;
	dma_addr_t desc_dma;
	/* Evictions, oldest first; one work item copies them in order. */
	struct work_struct evict_work;
	struct list_head evictions;
	wait_queue_head_t wq;		/* kernel done, eviction landed */
	u64 hw_faults;
	u64 fault_ns;
	u64 dma_wait_ns;
};

/* The CPU side of a shared object; the GPU side is its struct mcmgpu_obj. */
struct mcmgpu_shared {
	struct adsm_obj core;
	struct kref ref;		/* the handle and every VMA */
	struct mcmgpu_adsm *adsm;
	u64 gpu_va;
	u64 npages;
	struct page **pages;
	__le64 *list;			/* the pages' bus addresses */
	dma_addr_t list_dma;
	u64 mmap_offset;
	bool freed;
};

static struct device *adsm_dev(struct mcmgpu_adsm *a)
{
	return &a->mf->mdev->pdev->dev;
}

static int mcmgpu_adsm_protocol_default(void)
{
	int i;

	for (i = 0; i < MCMGPU_ADSM_PROTOCOLS; i++)
		if (sysfs_streq(adsm_protocol, mcmgpu_adsm_names[i]))
			return i;
	return MCMGPU_ADSM_ROLLING;
}

static void mcmgpu_shared_free(struct kref *ref)
{
	struct mcmgpu_shared *sh = container_of(ref, struct mcmgpu_shared, ref);
	struct device *dev = adsm_dev(sh->adsm);
	u64 i;

	for (i = 0; i < sh->npages && sh->pages[i]; i++) {
		dma_unmap_page(dev, le64_to_cpu(sh->list[i]), PAGE_SIZE,
			       DMA_BIDIRECTIONAL);
		__free_page(sh->pages[i]);
	}
	if (sh->list)
		dma_free_coherent(dev, sh->npages * 8, sh->list, sh->list_dma);
	kvfree(sh->pages);
	kvfree(sh->core.state);
	kfree(sh);
}

void mcmgpu_shared_put(struct mcmgpu_shared *sh)
{
	kref_put(&sh->ref, mcmgpu_shared_free);
}

/* adsm_block_kib as a block shift, rounded up into 4 KiB..32 MiB. */
static u32 mcmgpu_adsm_block_shift_default(void)
{
	u32 kib = clamp_t(u32, adsm_block_kib, 4, 32768);

	return order_base_2(kib) + 10;
}

/* ---- the copy engine ----------------------------------------------------- */

static int mcmgpu_adsm_xfer_cmd(struct mcmgpu_adsm *a, u64 va, u64 len,
				dma_addr_t list, u64 first_off, bool to_host,
				enum mcmgpu_wait wait)
{
	struct mcmgpu_file *mf = a->mf;
	struct mcmgpu_cmd c = {
		.opcode = MCMGPU_OP_ADSM_XFER,
		.flags = to_host ? MCMGPU_ADSM_XFER_TO_HOST : 0,
		.ctx = mf->ctx,
		.args = { mf->as->root, va, len, list, first_off },
		.wait = wait,
	};
	ktime_t t0 = ktime_get();
	int ret;

	ret = mcmgpu_submit(mf->mdev, &c);
	if (!ret && c.status != MCMGPU_CMPL_OK) {
		dev_dbg(adsm_dev(a), "ADSM_XFER va %#llx len %llu: status %u\n",
			va, len, c.status);
		ret = -EIO;
	}
	a->dma_wait_ns += ktime_to_ns(ktime_sub(ktime_get(), t0));
	return ret;
}

static void mcmgpu_adsm_evict_work(struct work_struct *work)
{
	struct mcmgpu_adsm *a = container_of(work, struct mcmgpu_adsm,
					     evict_work);
	struct mcmgpu_evict *ev;

	for (;;) {
		bool freed;
		int ret = 0;

		/*
		 * FREE sets freed under the lock, then flushes this work: a
		 * copy started before it lands before the GPU pages go.
		 */
		mutex_lock(&a->lock);
		ev = list_first_entry_or_null(&a->evictions,
					      struct mcmgpu_evict, node);
		freed = ev && ev->sh->freed;
		mutex_unlock(&a->lock);
		if (!ev)
			return;
		if (!freed)
			ret = mcmgpu_adsm_xfer_cmd(a, ev->sh->gpu_va + ev->off,
						   ev->len,
						   ev->sh->list_dma +
						   (ev->off >> PAGE_SHIFT) * 8,
						   0, false,
						   MCMGPU_WAIT_UNINTERRUPTIBLE);
		if (ret)
			dev_warn_ratelimited(adsm_dev(a),
					     "ADSM eviction of %llu bytes failed (%d): the block is Dirty again\n",
					     ev->len, ret);
		mutex_lock(&a->lock);
		list_del(&ev->node);
		/*
		 * Counted done also for a freed object: launches wait on it.
		 * One not on the GPU is Dirty and queued again, as the oldest.
		 */
		if (ret && !ev->sh->freed)
			adsm_evict_failed(&a->ctx, &ev->sh->core, ev->unit);
		else
			adsm_evict_done(&a->ctx, &ev->sh->core, ev->unit);
		mutex_unlock(&a->lock);
		wake_up_all(&a->wq);
		mcmgpu_shared_put(ev->sh);
		kfree(ev);
	}
}

/* The protocol core's transfers: the caller holds a->lock. */
static int mcmgpu_adsm_core_xfer(void *priv, struct adsm_obj *o, u64 off,
				 u64 len, enum adsm_dir dir,
				 enum adsm_cause cause)
{
	struct mcmgpu_shared *sh = container_of(o, struct mcmgpu_shared, core);
	struct mcmgpu_adsm *a = priv;
	struct mcmgpu_evict *ev;

	if (cause != ADSM_CAUSE_EVICT)
		return mcmgpu_adsm_xfer_cmd(a, sh->gpu_va + off, len,
					    sh->list_dma +
					    (off >> PAGE_SHIFT) * 8, 0,
					    dir == ADSM_D2H,
					    MCMGPU_WAIT_KILLABLE);
	ev = kzalloc(sizeof(*ev), GFP_KERNEL);
	if (!ev)
		return -ENOMEM;
	ev->sh = sh;
	ev->unit = adsm_unit_of(o, off);
	ev->off = off;
	ev->len = len;
	kref_get(&sh->ref);
	list_add_tail(&ev->node, &a->evictions);
	queue_work(system_unbound_wq, &a->evict_work);
	return 1;
}

/* Take CPU access away: every PTE of the range, in every process. */
static void mcmgpu_adsm_core_protect(void *priv, struct adsm_obj *o, u64 off,
				     u64 len, u8 state)
{
	struct mcmgpu_shared *sh = container_of(o, struct mcmgpu_shared, core);
	struct mcmgpu_adsm *a = priv;

	unmap_mapping_range(a->mf->mapping, sh->mmap_offset + off, len, 1);
}

static const struct adsm_ops mcmgpu_adsm_core_ops = {
	.xfer = mcmgpu_adsm_core_xfer,
	.protect = mcmgpu_adsm_core_protect,
};

/* ---- per-file state ------------------------------------------------------ */

static void mcmgpu_adsm_kernel_work(struct work_struct *work);

static struct mcmgpu_adsm *mcmgpu_adsm_get(struct mcmgpu_file *mf)
{
	struct mcmgpu_device *mdev = mf->mdev;
	struct mcmgpu_adsm *a;
	int ret;

	lockdep_assert_held(&mf->lock);
	if (mf->adsm)
		return mf->adsm;
	if (!(mdev->features & MCMGPU_FEAT_ADSM) || !mdev->adsm_dma_bw)
		return ERR_PTR(-EOPNOTSUPP);
	if (!mf->as)
		return ERR_PTR(-ENOENT);
	a = kzalloc(sizeof(*a), GFP_KERNEL);
	if (!a)
		return ERR_PTR(-ENOMEM);
	a->desc = dma_alloc_coherent(&mdev->pdev->dev, PAGE_SIZE, &a->desc_dma,
				     GFP_KERNEL);
	if (!a->desc) {
		kfree(a);
		return ERR_PTR(-ENOMEM);
	}
	a->result = (void *)(a->desc + 1);
	a->mf = mf;
	mutex_init(&a->lock);
	init_waitqueue_head(&a->wq);
	INIT_LIST_HEAD(&a->evictions);
	INIT_WORK(&a->kernel_work, mcmgpu_adsm_kernel_work);
	INIT_WORK(&a->evict_work, mcmgpu_adsm_evict_work);
	ret = adsm_ctx_init(&a->ctx, mcmgpu_adsm_protocol_default(),
			    mcmgpu_adsm_block_shift_default(),
			    0, adsm_rolling_step, mdev->adsm_dma_setup,
			    mdev->adsm_dma_bw, &mcmgpu_adsm_core_ops, a);
	if (ret) {
		dma_free_coherent(&mdev->pdev->dev, PAGE_SIZE, a->desc,
				  a->desc_dma);
		kfree(a);
		return ERR_PTR(ret);
	}
	/* Published whole: mmap() reads it without mf->lock. */
	smp_store_release(&mf->adsm, a);
	return a;
}

/* The file's ADSM state for an ioctl: ERR_PTR when it cannot have one. */
static struct mcmgpu_adsm *mcmgpu_adsm_of(struct mcmgpu_file *mf)
{
	struct mcmgpu_adsm *a;

	if (mutex_lock_interruptible(&mf->lock))
		return ERR_PTR(-ERESTARTSYS);
	a = mcmgpu_adsm_get(mf);
	mutex_unlock(&mf->lock);
	return a;
}

/*
 * The file's release, before its context goes: a kernel launched without
 * a sync and the evictions finish under the context they were made for.
 */
static void mcmgpu_adsm_quiesce(struct mcmgpu_file *mf)
{
	struct mcmgpu_adsm *a = mf->adsm;

	if (!a)
		return;
	flush_work(&a->kernel_work);
	flush_work(&a->evict_work);
}

/*
 * The file's release: its VMAs are gone, so nothing faults any more; its
 * objects went before (mem's release, engines in order).
 */
static void mcmgpu_adsm_release(struct mcmgpu_file *mf)
{
	struct mcmgpu_adsm *a = mf->adsm;

	if (!a)
		return;
	flush_work(&a->kernel_work);
	flush_work(&a->evict_work);
	dma_free_coherent(&mf->mdev->pdev->dev, PAGE_SIZE, a->desc,
			  a->desc_dma);
	kvfree(a->fifo);
	kfree(a);
	mf->adsm = NULL;
}

/* ---- shared objects ------------------------------------------------------ */

/*
 * A shared object for o (mf->lock held) of bytes, its true size (o has
 * whole pages): shadow pages and their list, then the protocol's state.
 * The object's GPU PTEs are writable.
 */
static int mcmgpu_adsm_share(struct mcmgpu_file *mf, struct mcmgpu_obj *o,
			     u64 bytes)
{
	struct device *dev = &mf->mdev->pdev->dev;
	struct mcmgpu_adsm *a = mcmgpu_adsm_get(mf);
	u64 i;
	struct mcmgpu_shared *sh;
	struct adsm_ref *fifo = NULL;
	u32 need;
	int ret = -ENOMEM;

	if (IS_ERR(a))
		return PTR_ERR(a);
	if (bytes > MCMGPU_ADSM_MAX_OBJECT)
		return -EINVAL;
	sh = kzalloc(sizeof(*sh), GFP_KERNEL);
	if (!sh)
		return -ENOMEM;
	kref_init(&sh->ref);
	sh->adsm = a;
	sh->gpu_va = o->obj.vpn << PAGE_SHIFT;
	sh->npages = o->obj.pages;
	sh->mmap_offset = FIELD_PREP(MCMGPU_ADSM_MMAP_CTX_MASK, mf->ctx) |
			  sh->gpu_va;
	sh->core.bytes = bytes;
	sh->core.priv = sh;
	sh->pages = kvcalloc(sh->npages, sizeof(*sh->pages), GFP_KERNEL);
	sh->list = dma_alloc_coherent(dev, sh->npages * 8, &sh->list_dma,
				      GFP_KERNEL);
	mutex_lock(&a->lock);
	sh->core.state = kvzalloc(adsm_units(&a->ctx, bytes), GFP_KERNEL);
	need = adsm_fifo_needed(&a->ctx, bytes);
	mutex_unlock(&a->lock);
	if (!sh->pages || !sh->list || !sh->core.state)
		goto put;
	for (i = 0; i < sh->npages; i++) {
		struct page *p = alloc_page(GFP_HIGHUSER | __GFP_ZERO);
		dma_addr_t bus;

		if (!p)
			goto put;
		bus = dma_map_page(dev, p, 0, PAGE_SIZE, DMA_BIDIRECTIONAL);
		if (dma_mapping_error(dev, bus)) {
			__free_page(p);
			goto put;
		}
		sh->pages[i] = p;
		sh->list[i] = cpu_to_le64(bus);
		if (!(i % 1024))
			cond_resched();
	}
	/*
	 * Read-only says both copies are equal: the GPU's starts as zeros
	 * too (the shadow pages), by a copy the protocols do not count. The
	 * whole pages: the last one's tail past bytes is the kernels' and
	 * the copies' too, and must not show an earlier object's data.
	 */
	ret = mcmgpu_adsm_xfer_cmd(a, sh->gpu_va, sh->npages << PAGE_SHIFT,
				   sh->list_dma, 0, false, MCMGPU_WAIT_KILLABLE);
	if (ret)
		goto put;
	ret = -ENOMEM;
	if (need) {
		fifo = kvcalloc(need, sizeof(*fifo), GFP_KERNEL);
		if (!fifo)
			goto put;
	}
	mutex_lock(&a->lock);
	if (fifo && need > a->ctx.fifo_cap) {
		adsm_fifo_move(&a->ctx, fifo, need);
		swap(fifo, a->fifo);
	}
	adsm_obj_add(&a->ctx, &sh->core);
	a->started = true;
	mutex_unlock(&a->lock);
	kvfree(fifo);
	o->shared = sh;
	return 0;
put:
	mcmgpu_shared_put(sh);
	return ret;
}

/* ALLOC with MCMGPU_ALLOC_F_SHARED (mf->lock held): the object's CPU side. */
static int mcmgpu_adsm_obj_alloc(struct mcmgpu_file *mf, struct mcmgpu_obj *o,
				 struct mcmgpu_alloc *al)
{
	int ret;

	if (!(al->flags & MCMGPU_ALLOC_F_SHARED))
		return 0;
	ret = mcmgpu_adsm_share(mf, o, al->bytes);
	if (!ret)
		al->mmap_offset = o->shared->mmap_offset;
	return ret;
}

/*
 * FREE (mf->lock held) while the file's kernel runs: the kernel may use
 * any of the file's objects (its page table is the file's), and its work
 * item may not have submitted it yet, so the object must stay.
 */
static bool mcmgpu_adsm_busy(struct mcmgpu_file *mf, struct mcmgpu_obj *o)
{
	struct mcmgpu_adsm *a = mf->adsm;
	bool busy;

	lockdep_assert_held(&mf->lock);
	if (!a)
		return false;
	mutex_lock(&a->lock);
	busy = a->running;
	mutex_unlock(&a->lock);
	return busy;
}

/*
 * FREE of a shared object (mf->lock held), before its GPU side goes: no
 * eviction of it may be in flight, no CPU mapping may stay.
 */
static void mcmgpu_adsm_unshare(struct mcmgpu_file *mf, struct mcmgpu_obj *o)
{
	struct mcmgpu_shared *sh = o->shared;
	struct mcmgpu_adsm *a;

	if (!sh)
		return;
	a = sh->adsm;
	/*
	 * freed first, under the lock: no fault queues an eviction of it
	 * after this, and the flush waits for one already copying.
	 */
	mutex_lock(&a->lock);
	sh->freed = true;
	adsm_obj_remove(&a->ctx, &sh->core);
	unmap_mapping_range(mf->mapping, sh->mmap_offset,
			    PAGE_ALIGN(sh->core.bytes), 1);
	mutex_unlock(&a->lock);
	flush_work(&a->evict_work);
	o->shared = NULL;
	mcmgpu_shared_put(sh);
}

/* ---- the CPU mapping ----------------------------------------------------- */

static void mcmgpu_adsm_vm_open(struct vm_area_struct *vma)
{
	struct mcmgpu_shared *sh = vma->vm_private_data;

	kref_get(&sh->ref);
}

static void mcmgpu_adsm_vm_close(struct vm_area_struct *vma)
{
	mcmgpu_shared_put(vma->vm_private_data);
}

/* Installs the PTEs of [off, off + len) of the object that lie in vma. */
static vm_fault_t mcmgpu_adsm_map(struct vm_area_struct *vma,
				  struct mcmgpu_shared *sh, u64 off, u64 len,
				  bool writable)
{
	u64 vma_off = (vma->vm_pgoff << PAGE_SHIFT) - sh->mmap_offset;
	u64 start = max(off, vma_off);
	/* Whole pages: a short last unit still has its last page mapped. */
	u64 end = min(PAGE_ALIGN(off + len),
		      vma_off + (vma->vm_end - vma->vm_start));
	pgprot_t prot = vm_get_page_prot(writable ? vma->vm_flags :
					 vma->vm_flags & ~VM_WRITE);
	u64 o;

	if (start >= end)
		return VM_FAULT_NOPAGE;
	/* Read-only PTEs of the unit go first, so all come back writable. */
	zap_vma_ptes(vma, vma->vm_start + (start - vma_off), end - start);
	for (o = start; o < end; o += PAGE_SIZE) {
		vm_fault_t r = vmf_insert_pfn_prot(vma, vma->vm_start +
						   (o - vma_off),
						   page_to_pfn(sh->pages[o >> PAGE_SHIFT]),
						   prot);

		if (r != VM_FAULT_NOPAGE)
			return r;
	}
	return VM_FAULT_NOPAGE;
}

/* The fault's wait is over: the kernel ran (unit U64_MAX) or the eviction. */
static bool mcmgpu_adsm_waited(struct mcmgpu_adsm *a, struct mcmgpu_shared *sh,
			       u64 unit)
{
	if (unit == U64_MAX)
		return !READ_ONCE(a->running);
	return !(READ_ONCE(sh->core.state[unit]) & MCMGPU_ADSM_EVICTING);
}

/*
 * A fault's wait for a kernel or an eviction. When the fault may be
 * retried, without mmap_lock (a long kernel must not block the process's
 * every mmap, munmap and fault): the lock is dropped, the file and the
 * object pinned, and the fault retried. Else (a retry already, a
 * pfn_mkwrite, get_user_pages) under it. VM_FAULT_NOPAGE: a fatal signal.
 */
static vm_fault_t mcmgpu_adsm_fault_wait(struct vm_fault *vmf,
					 struct mcmgpu_adsm *a,
					 struct mcmgpu_shared *sh, u64 unit)
{
	struct file *f;

	if (vmf->flags & FAULT_FLAG_MKWRITE ||
	    !fault_flag_allow_retry_first(vmf->flags)) {
		if (wait_event_killable(a->wq, mcmgpu_adsm_waited(a, sh, unit)))
			return VM_FAULT_NOPAGE;	/* dying: not retried */
		return 0;
	}
	if (vmf->flags & FAULT_FLAG_RETRY_NOWAIT)
		return VM_FAULT_RETRY;
	f = get_file(vmf->vma->vm_file);
	kref_get(&sh->ref);
	mmap_read_unlock(vmf->vma->vm_mm);
	wait_event_killable(a->wq, mcmgpu_adsm_waited(a, sh, unit));
	mcmgpu_shared_put(sh);
	fput(f);
	return VM_FAULT_RETRY;
}

/* .fault and .pfn_mkwrite: the protocol decides, then the unit is mapped. */
static vm_fault_t mcmgpu_adsm_fault(struct vm_fault *vmf)
{
	struct vm_area_struct *vma = vmf->vma;
	struct mcmgpu_shared *sh = vma->vm_private_data;
	struct mcmgpu_adsm *a = sh->adsm;
	struct mcmgpu_device *mdev = a->mf->mdev;
	bool write = vmf->flags & FAULT_FLAG_WRITE, writable;
	u64 off = (vmf->pgoff << PAGE_SHIFT) - sh->mmap_offset, uoff, ulen;
	ktime_t t0 = ktime_get();
	bool seen = false;
	u64 dma0, unit;
	vm_fault_t vr;
	int ret;

	/* Removal holds it for writing: a fault then is a bus error. */
	if (!down_read_trylock(&mdev->remove_lock))
		return VM_FAULT_SIGBUS;
	if (mdev->removed) {
		vr = VM_FAULT_SIGBUS;
		goto out;
	}
again:
	mutex_lock(&a->lock);
	if (sh->freed) {
		vr = VM_FAULT_SIGSEGV;
		goto unlock;
	}
	if (a->running) {
		mutex_unlock(&a->lock);
		vr = mcmgpu_adsm_fault_wait(vmf, a, sh, U64_MAX);
		if (vr)
			goto out;
		goto again;
	}
	dma0 = a->dma_wait_ns;
	/*
	 * Forward progress per thread: the same instruction a few bytes from
	 * its last fault is a store split over two blocks. This fault again
	 * (after a wait, with or without mmap_lock) is no new try.
	 */
	adsm_thread(&a->ctx, current,
		    instruction_pointer(task_pt_regs(current)),
		    vmf->real_address, seen || vmf->flags & FAULT_FLAG_TRIED);
	seen = true;
	ret = adsm_fault(&a->ctx, &sh->core, off, write, &writable, &uoff,
			 &ulen);
	if (ret == -EAGAIN) {
		unit = adsm_unit_of(&sh->core, off);
		mutex_unlock(&a->lock);
		vr = mcmgpu_adsm_fault_wait(vmf, a, sh, unit);
		if (vr)
			goto out;
		goto again;
	}
	if (ret) {
		dev_dbg(&mdev->pdev->dev, "ADSM fault at %#llx: %d\n",
			sh->gpu_va + off, ret);
		vr = VM_FAULT_SIGBUS;
		goto unlock;
	}
	vr = mcmgpu_adsm_map(vma, sh, uoff, ulen, writable);
	a->hw_faults++;
	/* The handler's own time, as GMAC's "Signal": transfers apart. */
	a->fault_ns += ktime_to_ns(ktime_sub(ktime_get(), t0)) -
		       (a->dma_wait_ns - dma0);
unlock:
	mutex_unlock(&a->lock);
out:
	up_read(&mdev->remove_lock);
	return vr;
}

/*
 * ptrace, /proc/pid/mem (access_remote_vm(): get_user_pages fails on
 * VM_PFNMAP): the bytes through the protocol, as the CPU's own access
 * would, copied from or into the shadow pages. The caller holds
 * mmap_lock, so waits happen under it. len is what is left of the whole
 * request: only the object's pages are ours. A gone device: EIO, as a
 * fault's SIGBUS.
 */
static int mcmgpu_adsm_access(struct vm_area_struct *vma, unsigned long addr,
			      void *buf, int len, int write)
{
	struct mcmgpu_shared *sh = vma->vm_private_data;
	struct mcmgpu_adsm *a = sh->adsm;
	struct mcmgpu_device *mdev = a->mf->mdev;
	u64 off = ((vma->vm_pgoff << PAGE_SHIFT) - sh->mmap_offset) +
		  (addr - vma->vm_start);
	u64 uoff, ulen, unit, end = sh->npages << PAGE_SHIFT;
	int done = 0, ret;
	bool writable;

	if (off >= end)
		return -EIO;
	len = min3((u64)len, (u64)(vma->vm_end - addr), end - off);
	if (!down_read_trylock(&mdev->remove_lock))
		return -EIO;
	while (!mdev->removed && done < len) {
		u32 n = min_t(u64, len - done, PAGE_SIZE - offset_in_page(off));
		void *p;

		mutex_lock(&a->lock);
		if (sh->freed) {
			mutex_unlock(&a->lock);
			break;
		}
		unit = U64_MAX;
		ret = a->running ? -EAGAIN :
			adsm_fault(&a->ctx, &sh->core, off, write, &writable,
				   &uoff, &ulen);
		if (ret == -EAGAIN) {
			if (!a->running)
				unit = adsm_unit_of(&sh->core, off);
			mutex_unlock(&a->lock);
			if (wait_event_killable(a->wq,
						mcmgpu_adsm_waited(a, sh, unit)))
				break;
			continue;
		}
		if (ret) {
			mutex_unlock(&a->lock);
			break;
		}
		/* The unit's PTEs come back at the CPU's next fault. */
		p = kmap_local_page(sh->pages[off >> PAGE_SHIFT]);
		if (write)
			memcpy(p + offset_in_page(off), buf + done, n);
		else
			memcpy(buf + done, p + offset_in_page(off), n);
		kunmap_local(p);
		mutex_unlock(&a->lock);
		done += n;
		off += n;
	}
	up_read(&mdev->remove_lock);
	return done ? done : -EIO;
}

/* Moved, the mapping would leave the GPU VA: one pointer no more. */
static int mcmgpu_adsm_mremap(struct vm_area_struct *vma)
{
	return -EINVAL;
}

static const struct vm_operations_struct mcmgpu_adsm_vm_ops = {
	.open = mcmgpu_adsm_vm_open,
	.close = mcmgpu_adsm_vm_close,
	.fault = mcmgpu_adsm_fault,
	.pfn_mkwrite = mcmgpu_adsm_fault,
	.access = mcmgpu_adsm_access,
	.mremap = mcmgpu_adsm_mremap,
};

/*
 * mmap() of a whole shared object, MAP_SHARED, at its mmap offset. Called
 * under mmap_lock: the object is found under the adsm lock, not mf->lock
 * (an ioctl holds mf->lock across user copies, which take mmap_lock).
 */
static int mcmgpu_adsm_mmap(struct mcmgpu_file *mf, struct vm_area_struct *vma)
{
	/* Pairs with the release in mcmgpu_adsm_get(): a whole state. */
	struct mcmgpu_adsm *a = smp_load_acquire(&mf->adsm);
	u64 offset = (u64)vma->vm_pgoff << PAGE_SHIFT;
	u64 va = FIELD_GET(MCMGPU_ADSM_MMAP_VA_MASK, offset);
	struct mcmgpu_shared *sh = NULL;
	struct adsm_obj *o;

	if (!(vma->vm_flags & VM_SHARED) || !a ||
	    FIELD_GET(MCMGPU_ADSM_MMAP_CTX_MASK, offset) != mf->ctx)
		return -EINVAL;
	mutex_lock(&a->lock);
	for (o = a->ctx.objs; o; o = o->next) {
		struct mcmgpu_shared *s = o->priv;

		if (s->gpu_va == va) {
			sh = s;
			break;
		}
	}
	if (!sh || vma->vm_end - vma->vm_start != PAGE_ALIGN(sh->core.bytes)) {
		mutex_unlock(&a->lock);
		return -EINVAL;
	}
	kref_get(&sh->ref);
	mutex_unlock(&a->lock);
	vma->vm_flags |= VM_PFNMAP | VM_DONTEXPAND | VM_DONTDUMP | VM_DONTCOPY;
	vma->vm_private_data = sh;
	vma->vm_ops = &mcmgpu_adsm_vm_ops;
	return 0;
}

/* ---- launch and sync ------------------------------------------------------ */

static void mcmgpu_adsm_kernel_work(struct work_struct *work)
{
	struct mcmgpu_adsm *a = container_of(work, struct mcmgpu_adsm,
					     kernel_work);
	struct mcmgpu_file *mf = a->mf;
	struct mcmgpu_cmd c = {
		.opcode = MCMGPU_OP_ADSM_KERNEL,
		.ctx = mf->ctx,
		.args = { mf->as->root, a->desc_dma,
			  a->desc_dma + sizeof(*a->desc) },
		.wait = MCMGPU_WAIT_UNINTERRUPTIBLE,
	};
	int ret = mcmgpu_submit(mf->mdev, &c);

	mutex_lock(&a->lock);
	a->kernel_status = ret ? MCMGPU_CMPL_DMA_FAULT : c.status;
	if (ret) {
		memset(a->result, 0, sizeof(*a->result));
		strscpy(a->result->error.what, "the device did not complete the kernel",
			sizeof(a->result->error.what));
	}
	WRITE_ONCE(a->running, false);
	mutex_unlock(&a->lock);
	wake_up_all(&a->wq);
}

/* Waits for the file's kernel; a->lock held on return if 0. */
static int mcmgpu_adsm_wait_idle(struct mcmgpu_adsm *a)
{
	for (;;) {
		if (wait_event_interruptible(a->wq, !READ_ONCE(a->running)))
			return -ERESTARTSYS;
		if (mutex_lock_interruptible(&a->lock))
			return -ERESTARTSYS;
		if (!a->running)
			return 0;
		mutex_unlock(&a->lock);
	}
}

/* The acquire, a->lock held: the kernel's time, then batch's fetch. */
static int mcmgpu_adsm_acquire(struct mcmgpu_adsm *a,
			       struct mcmgpu_adsm_kernel_result *res)
{
	int ret = 0;

	if (a->pending) {
		a->pending = false;
		*res = *a->result;
		if (a->kernel_status == MCMGPU_CMPL_OK)
			adsm_kernel_done(&a->ctx, a->result->cycles);
		else
			ret = -EIO;
	}
	if (!ret)
		ret = adsm_acquire(&a->ctx);
	return ret;
}

/*
 * The end of a sync (a->lock held, dropped here): the acquire, then the
 * kernel's result to user space (optional) outside the lock.
 */
static int mcmgpu_adsm_sync_unlock(struct mcmgpu_adsm *a, u64 uptr, u32 usize)
{
	struct mcmgpu_adsm_kernel_result res = { };
	int ret = mcmgpu_adsm_acquire(a, &res);

	mutex_unlock(&a->lock);
	if (uptr && copy_to_user(u64_to_user_ptr(uptr), &res,
				 min_t(u32, usize, sizeof(res))))
		return ret ? ret : -EFAULT;
	return ret;
}

/* MCMGPU_IOCTL_LAUNCH with MCMGPU_LAUNCH_F_ADSM. */
int mcmgpu_adsm_launch(struct mcmgpu_file *mf, struct mcmgpu_launch *ln)
{
	struct mcmgpu_adsm_kernel_result res = { };
	struct mcmgpu_adsm_kernel k;
	struct mcmgpu_adsm *a;
	int ret;

	if (ln->record_size != sizeof(k) ||
	    (ln->result_ptr && ln->result_size < sizeof(res)))
		return -EINVAL;
	if (!ln->record_ptr)
		return -EFAULT;
	if (copy_from_user(&k, u64_to_user_ptr(ln->record_ptr), sizeof(k)))
		return -EFAULT;
	/*
	 * mf->lock until the kernel counts as running: a FREE checks that
	 * under it, so none frees an object between the check and the launch.
	 */
	if (mutex_lock_interruptible(&mf->lock))
		return -ERESTARTSYS;
	a = mcmgpu_adsm_get(mf);
	ret = IS_ERR(a) ? PTR_ERR(a) : mcmgpu_adsm_wait_idle(a);
	if (ret) {
		mutex_unlock(&mf->lock);
		return ret;
	}
	/* A kernel not yet synced is synced first (its result is dropped). */
	if (a->pending) {
		ret = mcmgpu_adsm_acquire(a, &res);
		if (ret == -EIO)
			ret = 0;
		memset(&res, 0, sizeof(res));
	}
	/* Evictions land before the release (they may carry the data). */
	while (!ret && adsm_evicting(&a->ctx)) {
		mutex_unlock(&a->lock);
		flush_work(&a->evict_work);
		mutex_lock(&a->lock);
	}
	if (!ret)
		ret = adsm_release(&a->ctx);
	if (ret) {
		mutex_unlock(&a->lock);
		mutex_unlock(&mf->lock);
		return ret;
	}
	*a->desc = k;
	memset(a->result, 0, sizeof(*a->result));
	a->running = true;
	a->pending = true;
	queue_work(system_unbound_wq, &a->kernel_work);
	mutex_unlock(&a->lock);
	mutex_unlock(&mf->lock);
	if (!(ln->flags & MCMGPU_LAUNCH_F_WAIT))
		return 0;
	/* The launch had its effect: only a fatal signal ends this wait. */
	if (wait_event_killable(a->wq, !READ_ONCE(a->running)))
		return -EINTR;
	mutex_lock(&a->lock);
	return mcmgpu_adsm_sync_unlock(a, ln->result_ptr, ln->result_size);
}

static int mcmgpu_ioctl_adsm_sync(void *file, void *arg, u32 usize)
{
	struct mcmgpu_file *mf = file;
	struct mcmgpu_adsm_sync *sy = arg;
	struct mcmgpu_adsm_kernel_result res = { };
	struct mcmgpu_adsm *a;
	int ret;

	if (sy->flags || sy->reserved ||
	    (sy->result_ptr && sy->result_size < sizeof(res)))
		return -EINVAL;
	a = mcmgpu_adsm_of(mf);
	if (IS_ERR(a))
		return PTR_ERR(a);
	ret = mcmgpu_adsm_wait_idle(a);
	if (ret)
		return ret;
	return mcmgpu_adsm_sync_unlock(a, sy->result_ptr, sy->result_size);
}

/* ---- configuration, counters, states, explicit copies -------------------- */

static int mcmgpu_ioctl_adsm_config(void *file, void *arg, u32 usize)
{
	struct mcmgpu_file *mf = file;
	struct mcmgpu_adsm_config *cf = arg;
	struct mcmgpu_adsm *a;
	u32 shift;
	int ret;

	if (cf->flags || cf->reserved || cf->protocol > MCMGPU_ADSM_PROTOCOLS ||
	    cf->rolling > MCMGPU_ADSM_ROLLING_MAX ||
	    cf->rolling_step > MCMGPU_ADSM_ROLLING_MAX ||
	    (cf->block_bytes && (!is_power_of_2(cf->block_bytes) ||
				 cf->block_bytes < BIT(MCMGPU_ADSM_BLOCK_MIN_SHIFT) ||
				 cf->block_bytes > BIT(MCMGPU_ADSM_BLOCK_MAX_SHIFT))))
		return -EINVAL;
	if (mutex_lock_interruptible(&mf->lock))
		return -ERESTARTSYS;
	a = mcmgpu_adsm_get(mf);
	if (IS_ERR(a) && PTR_ERR(a) == -ENOENT) {
		/* No object yet: the address space comes with the first one. */
		ret = mcmgpu_mem_space(mf);
		a = ret ? ERR_PTR(ret) : mcmgpu_adsm_get(mf);
	}
	if (IS_ERR(a)) {
		mutex_unlock(&mf->lock);
		return PTR_ERR(a);
	}
	mutex_lock(&a->lock);
	if (a->started) {
		ret = -EBUSY;
	} else {
		shift = cf->block_bytes ? ilog2(cf->block_bytes) :
			a->ctx.block_shift;
		ret = adsm_ctx_init(&a->ctx, cf->protocol == MCMGPU_ADSM_PROTOCOLS ?
				    a->ctx.protocol : cf->protocol, shift,
				    cf->rolling, cf->rolling_step,
				    a->ctx.dma_setup, a->ctx.dma_bytes_per_cycle,
				    &mcmgpu_adsm_core_ops, a);
	}
	mutex_unlock(&a->lock);
	mutex_unlock(&mf->lock);
	return ret;
}

static int mcmgpu_ioctl_adsm_stats(void *file, void *arg, u32 usize)
{
	struct mcmgpu_file *mf = file;
	struct mcmgpu_adsm_stats *st = arg;
	struct mcmgpu_adsm *a;

	a = mcmgpu_adsm_of(mf);
	if (IS_ERR(a))
		return PTR_ERR(a);
	mutex_lock(&a->lock);
	adsm_stats(&a->ctx, st);
	st->hw_faults = a->hw_faults;
	st->fault_ns = a->fault_ns;
	st->dma_wait_ns = a->dma_wait_ns;
	mutex_unlock(&a->lock);
	st->size = min_t(u32, usize, sizeof(*st));
	return 0;
}

static int mcmgpu_ioctl_adsm_query(void *file, void *arg, u32 usize)
{
	struct mcmgpu_file *mf = file;
	struct mcmgpu_adsm_query *q = arg;
	struct mcmgpu_shared *sh;
	struct mcmgpu_obj *o;
	u8 *states = NULL;
	u64 i, end;
	int ret = 0;

	if (check_add_overflow(q->first, q->count, &end) || q->count > SZ_1M)
		return -ERANGE;
	if (q->count && !q->states_ptr)
		return -EFAULT;
	states = kvmalloc(max_t(u64, q->count, 1), GFP_KERNEL);
	if (!states)
		return -ENOMEM;
	if (mutex_lock_interruptible(&mf->lock)) {
		kvfree(states);
		return -ERESTARTSYS;
	}
	o = xa_load(&mf->objects, q->handle);
	sh = o ? o->shared : NULL;
	if (!sh) {
		ret = -ENOENT;
	} else {
		mutex_lock(&sh->adsm->lock);
		q->blocks = sh->core.units;
		if (end > sh->core.units)
			ret = -ERANGE;
		for (i = 0; !ret && i < q->count; i++)
			states[i] = adsm_state(&sh->core, q->first + i);
		mutex_unlock(&sh->adsm->lock);
	}
	mutex_unlock(&mf->lock);
	if (!ret && q->count &&
	    copy_to_user(u64_to_user_ptr(q->states_ptr), states, q->count))
		ret = -EFAULT;
	kvfree(states);
	return ret;
}

/*
 * Waits for the file's kernel and the evictions in flight: a->lock held
 * on return if 0. A copy into a shared object must not race either.
 */
static int mcmgpu_adsm_wait_quiet(struct mcmgpu_adsm *a)
{
	int ret = mcmgpu_adsm_wait_idle(a);

	while (!ret && adsm_evicting(&a->ctx)) {
		mutex_unlock(&a->lock);
		flush_work(&a->evict_work);
		ret = mcmgpu_adsm_wait_idle(a);
	}
	return ret;
}

/*
 * The hand-written baseline: bytes between a user buffer and an object's
 * GPU copy. The buffer's pages are pinned, listed and copied by the same
 * engine; the copy is charged like the protocols' transfers. A shared
 * object keeps its protocol's states (adsm_copy_begin()): its Dirty units
 * go first, and a copy to the GPU invalidates the CPU's copy.
 */
static int mcmgpu_ioctl_adsm_copy(void *file, void *arg, u32 usize)
{
	struct mcmgpu_file *mf = file;
	struct mcmgpu_adsm_copy *cp = arg;
	bool to_gpu = !(cp->flags & MCMGPU_ADSM_COPY_FROM_GPU);
	struct device *dev = &mf->mdev->pdev->dev;
	unsigned long uaddr = cp->user_ptr;
	struct mcmgpu_shared *sh = NULL;
	struct mcmgpu_user_pages up;
	struct mcmgpu_adsm *a;
	struct mcmgpu_obj *o;
	u64 end, va;
	int ret;

	if (cp->flags & ~MCMGPU_ADSM_COPY_FROM_GPU || cp->reserved ||
	    !cp->length || cp->length > MCMGPU_ADSM_MAX_OBJECT)
		return -EINVAL;
	if (check_add_overflow(cp->offset, cp->length, &end) ||
	    check_add_overflow((u64)uaddr, cp->length, &end))
		return -EOVERFLOW;
	if (mutex_lock_interruptible(&mf->lock))
		return -ERESTARTSYS;
	o = xa_load(&mf->objects, cp->handle);
	if (!o) {
		mutex_unlock(&mf->lock);
		return -ENOENT;
	}
	if (cp->offset + cp->length > o->obj.pages << PAGE_SHIFT) {
		mutex_unlock(&mf->lock);
		return -ERANGE;
	}
	va = (o->obj.vpn << PAGE_SHIFT) + cp->offset;
	a = mcmgpu_adsm_get(mf);
	/* Held past mf->lock: a FREE meanwhile sets freed, checked below. */
	if (!IS_ERR(a) && o->shared) {
		sh = o->shared;
		kref_get(&sh->ref);
	}
	mutex_unlock(&mf->lock);
	if (IS_ERR(a))
		return PTR_ERR(a);
	/* Pinned before a->lock: pinning takes mmap_lock. */
	ret = mcmgpu_user_pages_get(&up, dev, uaddr, cp->length, !to_gpu);
	if (ret)
		goto put;
	if (sh) {
		ret = mcmgpu_adsm_wait_quiet(a);
		if (ret)
			goto unpin;
		if (sh->freed)
			ret = -ENOENT;
		else
			ret = adsm_copy_begin(&a->ctx, &sh->core, cp->offset,
					      cp->length);
		if (ret) {
			mutex_unlock(&a->lock);
			goto unpin;
		}
	}
	ret = mcmgpu_adsm_xfer_cmd(a, va, cp->length, up.list_dma,
				   uaddr & ~PAGE_MASK, !to_gpu,
				   MCMGPU_WAIT_KILLABLE);
	if (!sh)
		mutex_lock(&a->lock);
	/* Also after a failure: the GPU copy may have changed in part. */
	if (sh && to_gpu)
		adsm_copy_to_gpu_done(&a->ctx, &sh->core, cp->offset,
				      cp->length);
	if (!ret)
		adsm_charge_copy(&a->ctx, cp->length, to_gpu ? ADSM_H2D : ADSM_D2H);
	mutex_unlock(&a->lock);
unpin:
	mcmgpu_user_pages_put(&up, !to_gpu && !ret);
put:
	if (sh)
		mcmgpu_shared_put(sh);
	return ret;
}

static const struct mcmgpu_ioctl_desc mcmgpu_adsm_ioctls[] = {
	MCMGPU_IOCTL_DEF(MCMGPU_IOCTL_ADSM_CONFIG, MCMGPU_ADSM_CONFIG_SIZE_VER0,
			 mcmgpu_ioctl_adsm_config, 0),
	MCMGPU_IOCTL_DEF(MCMGPU_IOCTL_ADSM_SYNC, MCMGPU_ADSM_SYNC_SIZE_VER0,
			 mcmgpu_ioctl_adsm_sync, 0),
	MCMGPU_IOCTL_DEF(MCMGPU_IOCTL_ADSM_STATS, MCMGPU_ADSM_STATS_SIZE_VER0,
			 mcmgpu_ioctl_adsm_stats, MCMGPU_IOCTL_OUT),
	MCMGPU_IOCTL_DEF(MCMGPU_IOCTL_ADSM_QUERY, MCMGPU_ADSM_QUERY_SIZE_VER0,
			 mcmgpu_ioctl_adsm_query, MCMGPU_IOCTL_OUT),
	MCMGPU_IOCTL_DEF(MCMGPU_IOCTL_ADSM_COPY, MCMGPU_ADSM_COPY_SIZE_VER0,
			 mcmgpu_ioctl_adsm_copy, 0),
};

/*
 * After mem's engine: a shared object is one of mem's objects, so its
 * CPU side comes after its GPU side and goes before (obj_free), and the
 * file's ADSM state outlives the objects at release.
 */
const struct mcmgpu_engine mcmgpu_adsm_engine = {
	.name = "adsm",
	.ioctls = mcmgpu_adsm_ioctls,
	.nr_ioctls = ARRAY_SIZE(mcmgpu_adsm_ioctls),
	.file_quiesce = mcmgpu_adsm_quiesce,
	.file_release = mcmgpu_adsm_release,
	.mmap = mcmgpu_adsm_mmap,
	.obj_alloc = mcmgpu_adsm_obj_alloc,
	.obj_busy = mcmgpu_adsm_busy,
	.obj_free = mcmgpu_adsm_unshare,
};
