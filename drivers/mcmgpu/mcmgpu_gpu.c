// SPDX-License-Identifier: GPL-2.0
/*
 * The GPU timing core on the device (uapi/mcmgpu_gpu.h): GPU_LOAD moves a
 * program to the file's device context in bounce-buffer chunks; GPU_RUN
 * starts the core with a configuration and runs it to the end (the
 * device trades ATS with barre_iommu.ko itself when the configuration
 * translates); GPU_STATS copies the counters, the kernels' records and
 * the run's error out; GPU_OBJECTS lists the program's OBJECT records as
 * the device reads them.
 */
#include <linux/mm.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "mcmgpu.h"
#include "mcmgpu_gpu.h"
#include "mcmgpu_ioctl.h"

#define MCMGPU_GPU_RES_SIZE	sizeof(struct mcmgpu_gpu_result)

/* A refusal of the caller's input is EINVAL; the rest as for any command. */
static int mcmgpu_gpu_errno(u32 status)
{
	if (status == MCMGPU_CMPL_BAD_ARG || status == MCMGPU_CMPL_BAD_TRACE)
		return -EINVAL;
	return mcmgpu_status_errno(status);
}

/*
 * One command: in_len bytes of in at the bounce buffer's start, the
 * result (and out_len more bytes) after them, copied back whatever the
 * status, so a refusal's message reaches the caller.
 */
static int mcmgpu_gpu_cmd(struct mcmgpu_device *mdev, struct mcmgpu_cmd *c,
			  bool progress, const void *in, u32 in_len,
			  struct mcmgpu_gpu_result *res, void *out, u32 out_len)
{
	int ret;

	ret = mcmgpu_cmd_begin(mdev, MCMGPU_WAIT_KILLABLE, progress);
	if (ret)
		return ret;
	if (in_len)
		memcpy(mdev->bounce, in, in_len);
	memset(mdev->bounce + in_len, 0, MCMGPU_GPU_RES_SIZE + out_len);
	ret = mcmgpu_submit_locked(mdev, c);
	if (!ret) {
		memcpy(res, mdev->bounce + in_len, sizeof(*res));
		res->msg[sizeof(res->msg) - 1] = '\0';
		if (out_len)
			memcpy(out, mdev->bounce + in_len + MCMGPU_GPU_RES_SIZE,
			       out_len);
	}
	mcmgpu_cmd_end(mdev);
	if (!ret && c->status != MCMGPU_CMPL_OK) {
		dev_dbg(&mdev->pdev->dev, "GPU command 0x%x: status %u: %s\n",
			c->opcode, c->status, res->msg);
		ret = mcmgpu_gpu_errno(c->status);
	}
	return ret;
}

/* The device's message, if the caller gave room for it. */
static int mcmgpu_gpu_msg(u64 uptr, u32 size, const char *msg)
{
	size_t n;

	if (!uptr || !size)
		return 0;
	n = min_t(size_t, strnlen(msg, MCMGPU_GPU_MSG_MAX - 1), size - 1);
	if (copy_to_user(u64_to_user_ptr(uptr), msg, n) ||
	    put_user(0, (char __user *)u64_to_user_ptr(uptr) + n))
		return -EFAULT;
	return 0;
}

static int mcmgpu_ioctl_gpu_load(void *file, void *arg, u32 usize)
{
	struct mcmgpu_file *mf = file;
	struct mcmgpu_gpu_load *ld = arg;
	u64 done;
	int ret = 0;

	if (ld->flags & ~MCMGPU_GPU_LOAD_F_FIRST || !ld->length)
		return -EINVAL;
	if (!ld->program_ptr)
		return -EFAULT;
	if (mutex_lock_interruptible(&mf->lock))
		return -ERESTARTSYS;
	for (done = 0; done < ld->length && !ret; done += MCMGPU_BOUNCE_SIZE) {
		u32 n = min_t(u64, ld->length - done, MCMGPU_BOUNCE_SIZE);
		struct mcmgpu_cmd c = {
			.opcode = MCMGPU_OP_GPU_LOAD,
			.flags = !done && ld->flags & MCMGPU_GPU_LOAD_F_FIRST ?
				 MCMGPU_GPU_LOAD_FIRST : 0,
			.ctx = mf->ctx,
			.args = { 0, n },
		};
		struct mcmgpu_xfer x = {
			.in = u64_to_user_ptr(ld->program_ptr) + done,
			.in_len = n,
			.in_arg = 0,
			.out_arg = -1,
			.progress = done > 0,
		};

		ret = mcmgpu_submit_xfer(mf->mdev, &c, &x);
		if (!ret && c.status != MCMGPU_CMPL_OK)
			ret = mcmgpu_status_errno(c.status);
		cond_resched();
	}
	mutex_unlock(&mf->lock);
	return ret;
}

/*
 * GPU_RUN until the device says the program is done. With translation,
 * each command runs many epochs and trades their ATS requests with
 * barre_iommu.ko on its rings inside the device. Each command moves the
 * core's clock or ends the run, so a device that stops doing so is an
 * error rather than a loop.
 */
static int mcmgpu_gpu_run_all(struct mcmgpu_file *mf,
			      struct mcmgpu_gpu_result *res)
{
	struct mcmgpu_device *mdev = mf->mdev;
	bool first = true;
	int ret;

	for (;;) {
		u64 cycle = res->cycle;
		struct mcmgpu_cmd c = {
			.opcode = MCMGPU_OP_GPU_RUN,
			.ctx = mf->ctx,
			.args = { 0, 0, 0, mdev->bounce_dma, U64_MAX },
		};

		ret = mcmgpu_gpu_cmd(mdev, &c, true, NULL, 0, res, NULL, 0);
		if (ret || res->done)
			return ret;
		if (!first && res->cycle <= cycle) {
			dev_err(&mdev->pdev->dev, "GPU_RUN: no progress at cycle %llu\n",
				res->cycle);
			return -EIO;
		}
		first = false;
		if (fatal_signal_pending(current))
			return -EINTR;
		cond_resched();
	}
}

static int mcmgpu_ioctl_gpu_run(void *file, void *arg, u32 usize)
{
	struct mcmgpu_file *mf = file;
	struct mcmgpu_device *mdev = mf->mdev;
	struct mcmgpu_gpu_run *gr = arg;
	struct mcmgpu_gpu_start *st;
	struct mcmgpu_gpu_result *res;
	u64 va_bytes;
	u32 in_len;
	int ret;

	if (gr->flags & ~MCMGPU_GPU_RUN_F_SHADOW || !gr->nfields ||
	    gr->nfields > MCMGPU_GPU_CONFIG_MAX_FIELDS ||
	    gr->nobjects > MCMGPU_GPU_MAX_OBJECTS ||
	    gr->streams > MCMGPU_MAX_CHIPLETS || gr->reserved)
		return -EINVAL;
	if (!gr->config_ptr || (gr->nobjects && !gr->objects_ptr) ||
	    (gr->msg_size && !gr->msg_ptr))
		return -EFAULT;
	va_bytes = gr->nobjects * sizeof(u64);
	in_len = sizeof(*st) + va_bytes;
	BUILD_BUG_ON(sizeof(*st) + MCMGPU_GPU_MAX_OBJECTS * sizeof(u64) +
		     MCMGPU_GPU_RES_SIZE > MCMGPU_BOUNCE_SIZE);
	st = kvzalloc(in_len, GFP_KERNEL);
	res = kzalloc(sizeof(*res), GFP_KERNEL);
	if (!st || !res) {
		ret = -ENOMEM;
		goto free;
	}
	st->nfields = gr->nfields;
	st->streams = gr->streams;
	if (copy_from_user(st->fields, u64_to_user_ptr(gr->config_ptr),
			   gr->nfields * sizeof(u32)) ||
	    (va_bytes && copy_from_user(st + 1, u64_to_user_ptr(gr->objects_ptr),
					va_bytes))) {
		ret = -EFAULT;
		goto free;
	}
	if (mutex_lock_interruptible(&mf->lock)) {
		ret = -ERESTARTSYS;
		goto free;
	}
	{
		struct mcmgpu_cmd c = {
			.opcode = MCMGPU_OP_GPU_START,
			.ctx = mf->ctx,
			.args = { mdev->bounce_dma,
				  mdev->bounce_dma + sizeof(*st), gr->nobjects,
				  mdev->bounce_dma + in_len },
		};

		ret = mcmgpu_gpu_cmd(mdev, &c, false, st, in_len, res, NULL, 0);
	}
	/* The IOMMU's model for this PASID is the run's: Barre resets after. */
	if (!ret && res->translate) {
		mf->barre_need_reset = true;
		mcmgpu_mem_pasid_reset(mf, res->walkers,
				       gr->flags & MCMGPU_GPU_RUN_F_SHADOW,
				       res->sched_moves);
	}
	if (!ret)
		ret = mcmgpu_gpu_run_all(mf, res);
	mutex_unlock(&mf->lock);
	if (ret && ret != -EINTR &&
	    mcmgpu_gpu_msg(gr->msg_ptr, gr->msg_size, res->msg))
		ret = -EFAULT;
free:
	kfree(res);
	kvfree(st);
	return ret;
}

static int mcmgpu_ioctl_gpu_stats(void *file, void *arg, u32 usize)
{
	struct mcmgpu_file *mf = file;
	struct mcmgpu_device *mdev = mf->mdev;
	struct mcmgpu_gpu_stats *gs = arg;
	struct mcmgpu_gpu_result *res;
	struct mcmgpu_barre_stats *bst = NULL;
	void *out;
	u64 copied = 0, end;
	u32 room;
	int ret = 0;

	if (gs->flags || !gs->stats_size ||
	    gs->stats_size > MCMGPU_GPU_STATS_MAX ||
	    gs->kernel_size > MCMGPU_GPU_KERNEL_REC_MAX ||
	    (gs->count && !gs->kernel_size) ||
	    (gs->barre_ptr && gs->barre_size < sizeof(*bst)))
		return -EINVAL;
	if (!gs->stats_ptr || (gs->count && !gs->kernels_ptr) ||
	    (gs->msg_size && !gs->msg_ptr))
		return -EFAULT;
	if (check_add_overflow(gs->first, gs->count, &end))
		return -EINVAL;
	room = gs->kernel_size ?
	       (MCMGPU_BOUNCE_SIZE - MCMGPU_GPU_RES_SIZE - gs->stats_size) /
	       gs->kernel_size : 0;
	res = kzalloc(sizeof(*res), GFP_KERNEL);
	out = kvzalloc(MCMGPU_BOUNCE_SIZE, GFP_KERNEL);
	if (!res || !out) {
		ret = -ENOMEM;
		goto free;
	}
	if (mutex_lock_interruptible(&mf->lock)) {
		ret = -ERESTARTSYS;
		goto free;
	}
	do {
		u32 n = min_t(u64, gs->count - copied, room);
		u64 base = mdev->bounce_dma + MCMGPU_GPU_RES_SIZE;
		struct mcmgpu_cmd c = {
			.opcode = MCMGPU_OP_GPU_STATS,
			.ctx = mf->ctx,
			.args = { mdev->bounce_dma, base, gs->stats_size,
				  base + gs->stats_size, gs->first + copied,
				  MCMGPU_GPU_STATS_ARG(gs->kernel_size, n) },
		};

		ret = mcmgpu_gpu_cmd(mdev, &c, copied > 0, NULL, 0, res, out,
				     gs->stats_size + n * gs->kernel_size);
		if (ret)
			break;
		if (!copied && copy_to_user(u64_to_user_ptr(gs->stats_ptr),
					    out, gs->stats_size)) {
			ret = -EFAULT;
			break;
		}
		if (c.result > n) {
			ret = -EIO;
			break;
		}
		if (c.result &&
		    copy_to_user(u64_to_user_ptr(gs->kernels_ptr) +
				 copied * gs->kernel_size,
				 out + gs->stats_size,
				 c.result * gs->kernel_size)) {
			ret = -EFAULT;
			break;
		}
		copied += c.result;
		if (c.result < n)
			break;
		cond_resched();
	} while (copied < gs->count);
	mutex_unlock(&mf->lock);
	if (ret != -EFAULT && ret != -EINTR &&
	    mcmgpu_gpu_msg(gs->msg_ptr, gs->msg_size, res->msg))
		ret = -EFAULT;
	if (ret)
		goto free;
	gs->count = copied;
	gs->nkernels = res->kernels;
	gs->error = res->error;
	gs->done = res->done;
	if (gs->barre_ptr) {
		bst = kzalloc(sizeof(*bst), GFP_KERNEL);
		if (bst)
			mcmgpu_mem_pasid_read_stats(mf, bst);
		if (!bst)
			ret = -ENOMEM;
		else if (copy_to_user(u64_to_user_ptr(gs->barre_ptr), bst,
				      sizeof(*bst)))
			ret = -EFAULT;
	}
free:
	kfree(bst);
	kvfree(out);
	kfree(res);
	return ret;
}

/*
 * GPU_OBJECTS: the device reads the stored program through for each
 * bounce buffer of records (one pass up to 65517 objects).
 */
static int mcmgpu_ioctl_gpu_objects(void *file, void *arg, u32 usize)
{
	const u32 room = (MCMGPU_BOUNCE_SIZE - MCMGPU_GPU_RES_SIZE) /
			 sizeof(struct mcmgpu_gpu_object);
	struct mcmgpu_file *mf = file;
	struct mcmgpu_device *mdev = mf->mdev;
	struct mcmgpu_gpu_objects *go = arg;
	struct mcmgpu_gpu_result *res;
	struct mcmgpu_gpu_object *obj;
	u64 want, copied = 0, total = 0;
	int ret = 0;

	if (go->flags || go->pad)
		return -EINVAL;
	if ((go->count && !go->objects_ptr) || (go->msg_size && !go->msg_ptr))
		return -EFAULT;
	want = min_t(u64, go->count, MCMGPU_GPU_MAX_OBJECTS);
	res = kzalloc(sizeof(*res), GFP_KERNEL);
	obj = kvmalloc_array(room, sizeof(*obj), GFP_KERNEL);
	if (!res || !obj) {
		ret = -ENOMEM;
		goto free;
	}
	if (mutex_lock_interruptible(&mf->lock)) {
		ret = -ERESTARTSYS;
		goto free;
	}
	do {
		u32 n = min_t(u64, want - copied, room), got, i;
		struct mcmgpu_cmd c = {
			.opcode = MCMGPU_OP_GPU_OBJECTS,
			.ctx = mf->ctx,
			.args = { mdev->bounce_dma,
				  mdev->bounce_dma + MCMGPU_GPU_RES_SIZE,
				  copied, n },
		};

		ret = mcmgpu_gpu_cmd(mdev, &c, copied > 0, NULL, 0, res, obj,
				     n * sizeof(*obj));
		if (ret)
			break;
		total = c.result;
		got = total > copied ? min_t(u64, total - copied, n) : 0;
		for (i = 0; i < got; i++) {
			obj[i].base = le64_to_cpu((__force __le64)obj[i].base);
			obj[i].size = le64_to_cpu((__force __le64)obj[i].size);
		}
		if (got && copy_to_user(u64_to_user_ptr(go->objects_ptr) +
					copied * sizeof(*obj), obj,
					got * sizeof(*obj))) {
			ret = -EFAULT;
			break;
		}
		copied += got;
		if (got < n)
			break;
		cond_resched();
	} while (copied < want);
	mutex_unlock(&mf->lock);
	if (!ret && total > MCMGPU_GPU_MAX_OBJECTS)
		ret = -E2BIG;
	if (ret && ret != -EFAULT && ret != -EINTR &&
	    mcmgpu_gpu_msg(go->msg_ptr, go->msg_size, res->msg))
		ret = -EFAULT;
	go->count = copied;
	go->nobjects = total;
free:
	kvfree(obj);
	kfree(res);
	return ret;
}

static const struct mcmgpu_ioctl_desc mcmgpu_gpu_ioctls[] = {
	MCMGPU_IOCTL_DEF(MCMGPU_IOCTL_GPU_LOAD, MCMGPU_GPU_LOAD_SIZE_VER0,
			 mcmgpu_ioctl_gpu_load, 0),
	MCMGPU_IOCTL_DEF(MCMGPU_IOCTL_GPU_RUN, MCMGPU_GPU_RUN_SIZE_VER0,
			 mcmgpu_ioctl_gpu_run, 0),
	MCMGPU_IOCTL_DEF(MCMGPU_IOCTL_GPU_STATS, MCMGPU_GPU_STATS_SIZE_VER0,
			 mcmgpu_ioctl_gpu_stats, MCMGPU_IOCTL_OUT),
	MCMGPU_IOCTL_DEF(MCMGPU_IOCTL_GPU_OBJECTS, MCMGPU_GPU_OBJECTS_SIZE_VER0,
			 mcmgpu_ioctl_gpu_objects, MCMGPU_IOCTL_OUT),
};

const struct mcmgpu_engine mcmgpu_gpu_engine = {
	.name = "gpu",
	.ioctls = mcmgpu_gpu_ioctls,
	.nr_ioctls = ARRAY_SIZE(mcmgpu_gpu_ioctls),
};
