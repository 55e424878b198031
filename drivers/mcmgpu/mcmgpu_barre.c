// SPDX-License-Identifier: GPL-2.0
/*
 * Barre's phases on the device: MCMGPU_IOCTL_BARRE_RESET (a new walker
 * model and empty TLBs), MCMGPU_IOCTL_BARRE_RUN (one phase of accesses)
 * and MCMGPU_IOCTL_BARRE_STATS. A phase runs in the device, epoch by
 * epoch, trading its ATS requests with barre_iommu.ko on the IOMMU's own
 * rings (mcmgpu_hw.h); this file only loads the accesses and submits
 * commands until the device says the phase is done. The walker model's
 * settings reach the IOMMU through the file's PASID entry (mcmgpu_mem.c).
 * All in virtual cycles, so a phase's counters do not depend on the
 * guest's timing. MCMGPU_IOCTL_PTE_QUERY reads an object's PTEs.
 */
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "mcmgpu.h"
#include "mcmgpu_ioctl.h"

/* One BARRE_RUN command; reset (with RESET) carries F-Barre's knobs. */
static int mcmgpu_barre_cmd(struct mcmgpu_file *mf, u16 flags,
			    struct mcmgpu_barre_run_result *res,
			    const struct mcmgpu_barre_run *reset)
{
	struct mcmgpu_device *mdev = mf->mdev;
	struct mcmgpu_cmd c = {
		.opcode = MCMGPU_OP_BARRE_RUN,
		.flags = flags,
		.ctx = mf->ctx,
		.args = { 0, 0, 0, mdev->bounce_dma },
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
 * walker: every request in flight walked one after the other. A command
 * runs up to MCMGPU_BARRE_CMD_EPOCHS of them (the device's budget).
 */
#define MCMGPU_BARRE_EPOCHS_PER_ACCESS \
	(MCMGPU_ATS_QUEUE_ENTRIES * MCMGPU_BARRE_WALK_CYCLES / \
	 (2 * MCMGPU_BARRE_PCIE_CYCLES) + 1)
#define MCMGPU_BARRE_CMD_EPOCHS		4096

/* Commands until the device says the phase is done. */
static int mcmgpu_barre_phase(struct mcmgpu_file *mf, u64 count,
			      struct mcmgpu_barre_run_result *res)
{
	u64 cmds = (count + 1) * MCMGPU_BARRE_EPOCHS_PER_ACCESS /
		   MCMGPU_BARRE_CMD_EPOCHS + 2;
	u64 i;
	int ret;

	for (i = 0; i < cmds; i++) {
		ret = mcmgpu_barre_cmd(mf, i ? 0 : MCMGPU_BARRE_RUN_START, res,
				       NULL);
		if (ret || res->done)
			return ret;
		if (fatal_signal_pending(current))
			return -EINTR;
		cond_resched();
	}
	dev_err(&mf->mdev->pdev->dev, "BARRE_RUN: not done after %llu commands\n",
		cmds);
	return -EIO;
}

/* The reset fields are valid only with a reset. */
static bool mcmgpu_barre_reset_fields(const struct mcmgpu_barre_run *br)
{
	return br->walkers || br->flags & MCMGPU_BARRE_RUN_F_SHADOW ||
	       br->fbarre_flags || br->filter_rows || br->drop_ppm ||
	       br->merge || br->sched_moves;
}

static int mcmgpu_barre_check(const struct mcmgpu_barre_run *br, bool reset)
{
	if (br->flags & ~(MCMGPU_BARRE_RUN_F_RESET | MCMGPU_BARRE_RUN_F_SHADOW) ||
	    (!reset && mcmgpu_barre_reset_fields(br)) ||
	    br->walkers > MCMGPU_BARRE_MAX_WALKERS || br->reserved ||
	    br->fbarre_flags & ~MCMGPU_BARRE_FBARRE_F_SHARING ||
	    (br->filter_rows && br->filter_rows != 256 &&
	     br->filter_rows != 512 && br->filter_rows != 1024) ||
	    br->drop_ppm > 1000000 || br->merge > 4 || br->sched_moves > 255 ||
	    (br->stats_ptr &&
	     br->stats_size < sizeof(struct mcmgpu_barre_stats)))
		return -EINVAL;
	if (br->count && !br->accesses_ptr)
		return -EFAULT;
	return 0;
}

/* mf->lock held. */
static int mcmgpu_barre_reset(struct mcmgpu_file *mf,
			      const struct mcmgpu_barre_run *br,
			      struct mcmgpu_barre_run_result *res)
{
	int ret = mcmgpu_barre_cmd(mf, MCMGPU_BARRE_RUN_RESET, res, br);

	if (ret)
		return ret;
	mcmgpu_mem_pasid_reset(mf, br->walkers,
			       br->flags & MCMGPU_BARRE_RUN_F_SHADOW,
			       br->sched_moves);
	mf->barre_need_reset = false;
	return 0;
}

/* mf->lock held. */
static int mcmgpu_barre_run(struct mcmgpu_file *mf,
			    const struct mcmgpu_barre_run *br,
			    struct mcmgpu_barre_run_result *res)
{
	int ret;

	if (mf->barre_need_reset)
		return -EBADFD;
	if (!br->count)
		return 0;
	/* Until the phase completes, its requests may be in flight. */
	mf->barre_need_reset = true;
	ret = mcmgpu_barre_load(mf, br->accesses_ptr, br->count);
	if (!ret)
		ret = mcmgpu_barre_phase(mf, br->count, res);
	if (ret == -EBADFD)
		dev_dbg(&mf->mdev->pdev->dev, "BARRE_RUN: the device lost the phase\n");
	if (!ret)
		mf->barre_need_reset = false;
	return ret;
}

/* mf->lock held: the device's counters, then the IOMMU's, in one struct. */
static int mcmgpu_barre_stats(struct mcmgpu_file *mf,
			      const struct mcmgpu_barre_run *br,
			      struct mcmgpu_barre_run_result *res)
{
	int ret = mcmgpu_barre_cmd(mf, MCMGPU_BARRE_RUN_REPORT, res, NULL);

	if (ret)
		return ret;
	mcmgpu_mem_pasid_read_stats(mf, &res->stats);
	if (copy_to_user(u64_to_user_ptr(br->stats_ptr), &res->stats,
			 sizeof(res->stats)))
		return -EFAULT;
	return 0;
}

enum mcmgpu_barre_op { BARRE_OP_RUN, BARRE_OP_RESET, BARRE_OP_STATS };

static int mcmgpu_barre_ioctl(struct mcmgpu_file *mf,
			      const struct mcmgpu_barre_run *br,
			      enum mcmgpu_barre_op op)
{
	struct mcmgpu_barre_run_result *res;
	bool reset = op == BARRE_OP_RESET ||
		     (op == BARRE_OP_RUN && br->flags & MCMGPU_BARRE_RUN_F_RESET);
	int ret;

	ret = mcmgpu_barre_check(br, reset);
	if (ret)
		return ret;
	/* Each operation takes only its own fields. */
	if ((op == BARRE_OP_RESET && (br->count || br->stats_ptr ||
				      br->flags & MCMGPU_BARRE_RUN_F_RESET)) ||
	    (op == BARRE_OP_STATS && (br->flags || br->count || !br->stats_ptr)))
		return -EINVAL;
	res = kzalloc(sizeof(*res), GFP_KERNEL);
	if (!res)
		return -ENOMEM;
	if (mutex_lock_interruptible(&mf->lock)) {
		kfree(res);
		return -ERESTARTSYS;
	}
	if (reset)
		ret = mcmgpu_barre_reset(mf, br, res);
	if (!ret && op == BARRE_OP_RUN)
		ret = mcmgpu_barre_run(mf, br, res);
	if (!ret && br->stats_ptr)
		ret = mcmgpu_barre_stats(mf, br, res);
	mutex_unlock(&mf->lock);
	kfree(res);
	return ret;
}

static int mcmgpu_ioctl_barre_run(void *file, void *arg, u32 usize)
{
	return mcmgpu_barre_ioctl(file, arg, BARRE_OP_RUN);
}

static int mcmgpu_ioctl_barre_reset(void *file, void *arg, u32 usize)
{
	return mcmgpu_barre_ioctl(file, arg, BARRE_OP_RESET);
}

static int mcmgpu_ioctl_barre_stats(void *file, void *arg, u32 usize)
{
	return mcmgpu_barre_ioctl(file, arg, BARRE_OP_STATS);
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
	MCMGPU_IOCTL_DEF(MCMGPU_IOCTL_BARRE_RESET, MCMGPU_BARRE_RUN_SIZE_VER0,
			 mcmgpu_ioctl_barre_reset, 0),
	MCMGPU_IOCTL_DEF(MCMGPU_IOCTL_BARRE_STATS, MCMGPU_BARRE_RUN_SIZE_VER0,
			 mcmgpu_ioctl_barre_stats, 0),
};

const struct mcmgpu_engine mcmgpu_barre_engine = {
	.name = "barre",
	.ioctls = mcmgpu_barre_ioctls,
	.nr_ioctls = ARRAY_SIZE(mcmgpu_barre_ioctls),
};
