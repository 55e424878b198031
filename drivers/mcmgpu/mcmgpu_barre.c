// SPDX-License-Identifier: GPL-2.0
/*
 * MCMGPU_IOCTL_BARRE_RUN: one phase of accesses through the chiplets' TLBs
 * (the device) and barre_iommu.ko's walkers, epoch by epoch: the device
 * runs its chiplets one epoch and leaves its ATS requests in the IOMMU's
 * request queue, the IOMMU answers in its response queue, the next
 * BARRE_RUN command takes the answers and runs the next epoch. All in
 * virtual cycles, so a phase's counters do not depend on the guest's
 * timing. MCMGPU_IOCTL_PTE_QUERY reads an object's PTEs (--dump-pt).
 */
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "mcmgpu.h"
#include "mcmgpu_ioctl.h"

/* One BARRE_RUN command; reset (with RESET) carries F-Barre's knobs. */
static int mcmgpu_barre_cmd(struct mcmgpu_file *mf, struct mcmgpu_iommu *iommu,
			    u16 flags, u32 nresp,
			    struct mcmgpu_barre_run_result *res,
			    const struct mcmgpu_barre_run *reset)
{
	struct mcmgpu_device *mdev = mf->mdev;
	struct mcmgpu_cmd c = {
		.opcode = MCMGPU_OP_BARRE_RUN,
		.flags = flags,
		.ctx = mf->ctx,
		.args = { iommu->req_dma, iommu->resp_dma, nresp,
			  mdev->bounce_dma },
	};
	int ret;

	/* START: the page table, for the device's check of F-Barre. */
	if (flags & MCMGPU_BARRE_RUN_START && mf->as)
		c.args[4] = mf->as->root;
	if (reset && reset->fbarre_flags & MCMGPU_BARRE_FBARRE_F_SHARING) {
		c.args[4] = MCMGPU_FBARRE_ARG_SHARING |
			    MCMGPU_FBARRE_ARG(reset->merge ? reset->merge : 1,
					      reset->filter_rows ?: MCMGPU_FBARRE_FILTER_ROWS);
		c.args[5] = reset->drop_ppm;
	}

	ret = mcmgpu_cmd_begin(mdev, MCMGPU_WAIT_KILLABLE, true);
	if (ret)
		return ret;
	memset(mdev->bounce, 0, sizeof(*res));
	ret = mcmgpu_submit_locked(mdev, &c);
	if (!ret)
		memcpy(res, mdev->bounce, sizeof(*res));
	mcmgpu_cmd_end(mdev);
	if (!ret && c.status != MCMGPU_CMPL_OK) {
		res->error.what[sizeof(res->error.what) - 1] = '\0';
		dev_dbg(&mdev->pdev->dev, "BARRE_RUN: status %u: %s (%llu)\n",
			c.status, res->error.what, res->error.index);
		ret = mcmgpu_status_errno(c.status);
	}
	return ret;
}

/* The accesses, in chunks of what one BARRE_LOAD takes. */
static int mcmgpu_barre_load(struct mcmgpu_file *mf, u64 uptr, u64 count)
{
	const u64 chunk = min_t(u64, MCMGPU_BARRE_LOAD_MAX,
				MCMGPU_BOUNCE_SIZE /
				sizeof(struct mcmgpu_barre_access));
	u64 done;
	int ret;

	for (done = 0; done < count; done += chunk) {
		u64 n = min(count - done, chunk);
		struct mcmgpu_cmd c = {
			.opcode = MCMGPU_OP_BARRE_LOAD,
			.flags = done ? 0 : MCMGPU_BARRE_LOAD_FIRST,
			.ctx = mf->ctx,
			.args = { 0, n },
		};
		struct mcmgpu_xfer x = {
			.in = u64_to_user_ptr(uptr) +
			      done * sizeof(struct mcmgpu_barre_access),
			.in_len = n * sizeof(struct mcmgpu_barre_access),
			.in_arg = 0,
			.out_arg = -1,
			.progress = true,
		};

		ret = mcmgpu_submit_xfer(mf->mdev, &c, &x);
		if (!ret && c.status != MCMGPU_CMPL_OK) {
			if (c.status == MCMGPU_CMPL_BAD_TRACE)
				dev_dbg(&mf->mdev->pdev->dev,
					"BARRE_LOAD: access %llu refused\n",
					done + c.result);
			ret = mcmgpu_status_errno(c.status);
		}
		if (ret)
			return ret;
		cond_resched();
	}
	return 0;
}

/*
 * No access can take more epochs than a full drain of the IOMMU with one
 * walker: every request in flight walked one after the other.
 */
#define MCMGPU_BARRE_EPOCHS_PER_ACCESS \
	(MCMGPU_ATS_QUEUE_ENTRIES * MCMGPU_BARRE_WALK_CYCLES / \
	 (2 * MCMGPU_BARRE_PCIE_CYCLES) + 1)

/*
 * The epoch loop (barre_host.c's protocol): the device runs an epoch and
 * leaves its ATS requests in the IOMMU's queue (step), the IOMMU answers
 * what it completes before the horizon, the next step takes the answers.
 * Shared with the GPU timing core's runs (mcmgpu_gpu.c).
 */
int mcmgpu_epoch_loop(struct mcmgpu_file *mf, struct mcmgpu_iommu *iommu,
		      const char *what, u64 max_epochs,
		      mcmgpu_epoch_step_fn step, void *priv)
{
	struct mcmgpu_epoch e = { .first = true };
	u64 epoch;
	int ret;

	for (epoch = 0;; epoch++) {
		if (epoch > max_epochs) {
			dev_err(&mf->mdev->pdev->dev,
				"%s: not done after %llu epochs\n", what, epoch);
			return -EIO;
		}
		ret = step(mf, iommu, &e, priv);
		if (ret || e.done)
			return ret;
		if (e.requests > MCMGPU_ATS_QUEUE_ENTRIES)
			return -EIO;
		ret = iommu->serve(iommu, mf->ctx, mf->as ? mf->as->root : 0,
				   e.requests, e.horizon);
		if (ret < 0)
			return ret;
		e.responses = ret;
		e.first = false;
		if (fatal_signal_pending(current))
			return -EINTR;
		cond_resched();
	}
}

static int mcmgpu_barre_step(struct mcmgpu_file *mf, struct mcmgpu_iommu *iommu,
			     struct mcmgpu_epoch *e, void *priv)
{
	struct mcmgpu_barre_run_result *res = priv;
	int ret;

	ret = mcmgpu_barre_cmd(mf, iommu, e->first ? MCMGPU_BARRE_RUN_START : 0,
			       e->responses, res, NULL);
	e->requests = res->requests;
	e->horizon = res->horizon;
	e->done = res->done;
	return ret;
}

/* Epochs until the phase is done: the device, then the IOMMU. */
static int mcmgpu_barre_phase(struct mcmgpu_file *mf,
			      struct mcmgpu_iommu *iommu, u64 count,
			      struct mcmgpu_barre_run_result *res)
{
	return mcmgpu_epoch_loop(mf, iommu, "BARRE_RUN",
				 (count + 1) * MCMGPU_BARRE_EPOCHS_PER_ACCESS,
				 mcmgpu_barre_step, res);
}

static int mcmgpu_ioctl_barre_run(void *file, void *arg, u32 usize)
{
	struct mcmgpu_file *mf = file;
	struct mcmgpu_device *mdev = mf->mdev;
	struct mcmgpu_barre_run *br = arg;
	struct mcmgpu_barre_run_result *res;
	struct mcmgpu_iommu *iommu;
	bool reset = br->flags & MCMGPU_BARRE_RUN_F_RESET;
	int ret;

	if (br->flags & ~(MCMGPU_BARRE_RUN_F_RESET | MCMGPU_BARRE_RUN_F_SHADOW) ||
	    (!reset && (br->walkers || br->flags & MCMGPU_BARRE_RUN_F_SHADOW ||
			br->fbarre_flags || br->filter_rows || br->drop_ppm ||
			br->merge || br->sched_moves)) ||
	    br->walkers > MCMGPU_BARRE_MAX_WALKERS || br->reserved ||
	    br->fbarre_flags & ~MCMGPU_BARRE_FBARRE_F_SHARING ||
	    (br->filter_rows && br->filter_rows != 256 &&
	     br->filter_rows != 512 && br->filter_rows != 1024) ||
	    br->drop_ppm > 1000000 || br->merge > 4 || br->sched_moves > 255 ||
	    (br->stats_ptr && br->stats_size < sizeof(res->stats)))
		return -EINVAL;
	if (br->count && !br->accesses_ptr)
		return -EFAULT;
	res = kzalloc(sizeof(*res), GFP_KERNEL);
	if (!res)
		return -ENOMEM;
	if (mutex_lock_interruptible(&mf->lock)) {
		ret = -ERESTARTSYS;
		goto free;
	}
	iommu = mcmgpu_iommu_get(mdev);
	if (!iommu) {
		ret = -ENODEV;
		goto unlock;
	}
	if (mutex_lock_interruptible(&mdev->barre_lock)) {
		ret = -ERESTARTSYS;
		goto put;
	}
	if (reset) {
		ret = mcmgpu_barre_cmd(mf, iommu, MCMGPU_BARRE_RUN_RESET, 0, res,
				       br);
		if (!ret)
			ret = iommu->reset(iommu, mf->ctx, br->walkers,
					   br->flags & MCMGPU_BARRE_RUN_F_SHADOW,
					   br->sched_moves);
		if (ret)
			goto out;
		mf->barre_need_reset = false;
	} else if (mf->barre_need_reset) {
		ret = -EBADFD;
		goto out;
	}
	if (br->count) {
		/* Until the phase completes, its requests may be in flight. */
		mf->barre_need_reset = true;
		ret = mcmgpu_barre_load(mf, br->accesses_ptr, br->count);
		if (!ret)
			ret = mcmgpu_barre_phase(mf, iommu, br->count, res);
		if (ret) {
			/* Its requests in flight will never be answered. */
			iommu->abandon(iommu, mf->ctx);
			if (ret == -EBADFD)
				dev_dbg(&mdev->pdev->dev, "BARRE_RUN: the device lost the phase\n");
			goto out;
		}
		mf->barre_need_reset = false;
	}
	if (br->stats_ptr) {
		ret = mcmgpu_barre_cmd(mf, iommu, MCMGPU_BARRE_RUN_REPORT, 0, res,
				       NULL);
		if (ret)
			goto out;
		/* The device's counters, then the walker's, in one struct. */
		iommu->stats(iommu, mf->ctx, &res->stats);
		if (copy_to_user(u64_to_user_ptr(br->stats_ptr), &res->stats,
				 sizeof(res->stats)))
			ret = -EFAULT;
	}
out:
	mutex_unlock(&mdev->barre_lock);
put:
	mcmgpu_iommu_put(mdev);
unlock:
	mutex_unlock(&mf->lock);
free:
	kfree(res);
	return ret;
}

static int mcmgpu_ioctl_pte_query(void *file, void *arg, u32 usize)
{
	struct mcmgpu_file *mf = file;
	struct mcmgpu_pte_query *q = arg;
	u64 __user *out = u64_to_user_ptr(q->ptes_ptr);
	struct mcmgpu_obj *o;
	u64 i, end;
	int ret = 0;

	if (check_add_overflow(q->first, q->count, &end))
		return -ERANGE;
	if (q->count && !q->ptes_ptr)
		return -EFAULT;
	if (mutex_lock_interruptible(&mf->lock))
		return -ERESTARTSYS;
	o = xa_load(&mf->objects, q->handle);
	if (!o)
		ret = -ENOENT;
	else if (end > o->obj.pages)
		ret = -ERANGE;
	for (i = 0; !ret && i < q->count; i++) {
		if (put_user(gpu_alloc_pte_get(mf->as, o->obj.vpn + q->first + i),
			     out + i))
			ret = -EFAULT;
		if (!(i % 4096))
			cond_resched();
	}
	mutex_unlock(&mf->lock);
	return ret;
}

static const struct mcmgpu_ioctl_desc mcmgpu_barre_ioctls[] = {
	MCMGPU_IOCTL_DEF(MCMGPU_IOCTL_BARRE_RUN, MCMGPU_BARRE_RUN_SIZE_VER0,
			 mcmgpu_ioctl_barre_run, 0),
	MCMGPU_IOCTL_DEF(MCMGPU_IOCTL_PTE_QUERY, MCMGPU_PTE_QUERY_SIZE_VER0,
			 mcmgpu_ioctl_pte_query, 0),
};

const struct mcmgpu_engine mcmgpu_barre_engine = {
	.name = "barre",
	.ioctls = mcmgpu_barre_ioctls,
	.nr_ioctls = ARRAY_SIZE(mcmgpu_barre_ioctls),
};
