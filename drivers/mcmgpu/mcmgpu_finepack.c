// SPDX-License-Identifier: GPL-2.0
/*
 * MCMGPU_IOCTL_FINEPACK_REPLAY: the trace goes to the file's device
 * context in bounce-buffer chunks, then the device replays it and writes
 * the counters (or the record it refused) back.
 */
#include <linux/sched/signal.h>
#include <linux/uaccess.h>

#include "mcmgpu.h"
#include "mcmgpu_ioctl.h"
#include "mcmgpu_finepack.h"

/*
 * Traces this long go to the device from the caller's own pages, pinned
 * and listed, in one command per MCMGPU_DMA_MAX_LEN: no bounce copy,
 * which under TCG cost more than the replay itself. Shorter ones take
 * the bounce buffer (pinning would cost more than it saves).
 */
#define MCMGPU_FP_PIN_MIN	(256U << 10)

static int mcmgpu_fp_upload_pinned(struct mcmgpu_file *mf,
				   const struct mcmgpu_finepack_replay *rp)
{
	struct mcmgpu_user_pages up;
	u64 done, first = rp->trace_ptr & ~PAGE_MASK;
	int ret;

	ret = mcmgpu_user_pages_get(&up, &mf->mdev->pdev->dev, rp->trace_ptr,
				    rp->trace_len, false);
	if (ret)
		return ret;
	for (done = 0; done < rp->trace_len; done += MCMGPU_DMA_MAX_LEN) {
		u64 pos = first + done;
		struct mcmgpu_cmd c = {
			.opcode = MCMGPU_OP_TRACE_LOAD,
			.flags = MCMGPU_TRACE_LOAD_PAGES,
			.ctx = mf->ctx,
			.args = { up.list_dma + (pos >> PAGE_SHIFT) * 8, done,
				  min_t(u64, rp->trace_len - done,
					MCMGPU_DMA_MAX_LEN),
				  rp->trace_len, pos & ~PAGE_MASK },
			.wait = MCMGPU_WAIT_KILLABLE,
		};

		ret = mcmgpu_submit(mf->mdev, &c);
		if (!ret)
			ret = mcmgpu_status_errno(c.status);
		if (ret)
			break;
	}
	mcmgpu_user_pages_put(&up, false);
	return ret;
}

static int mcmgpu_fp_upload(struct mcmgpu_file *mf,
			    const struct mcmgpu_finepack_replay *rp)
{
	const u8 __user *src = u64_to_user_ptr(rp->trace_ptr);
	u64 done;
	int ret;

	for (done = 0; done < rp->trace_len; done += MCMGPU_BOUNCE_SIZE) {
		u32 len = min_t(u64, rp->trace_len - done, MCMGPU_BOUNCE_SIZE);
		struct mcmgpu_cmd c = {
			.opcode = MCMGPU_OP_TRACE_LOAD,
			.ctx = mf->ctx,
			.args = { 0, done, len, rp->trace_len },
		};
		struct mcmgpu_xfer x = {
			.in = src + done, .in_len = len, .in_arg = 0,
			.out_arg = -1, .progress = done > 0,
		};

		if (done && fatal_signal_pending(current))
			return -EINTR;
		ret = mcmgpu_submit_xfer(mf->mdev, &c, &x);
		if (!ret)
			ret = mcmgpu_status_errno(c.status);
		if (ret)
			return ret;
	}
	return 0;
}

static int mcmgpu_ioctl_finepack(void *file, void *arg, u32 usize)
{
	struct mcmgpu_file *mf = file;
	struct mcmgpu_finepack_replay *rp = arg;
	struct mcmgpu_cmd c = {
		.opcode = MCMGPU_OP_FINEPACK_RUN,
		.ctx = mf->ctx,
		.args = { rp->trace_len, rp->subheader, rp->overhead },
	};
	struct mcmgpu_xfer x = {
		.in_arg = -1,
		.out = u64_to_user_ptr(rp->result_ptr),
		.out_len = sizeof(struct mcmgpu_fp_replay_result),
		.out_arg = 3,
		.report_status = MCMGPU_CMPL_BAD_TRACE,
		.progress = true,
	};
	int ret;

	if (rp->flags || rp->reserved || !rp->trace_len ||
	    rp->trace_len > MCMGPU_FP_TRACE_MAX_BYTES ||
	    rp->subheader < MCMGPU_FP_SUBHEADER_MIN ||
	    rp->subheader > MCMGPU_FP_SUBHEADER_MAX ||
	    (rp->overhead != MCMGPU_FP_OVERHEAD_NO_ECRC &&
	     rp->overhead != MCMGPU_FP_OVERHEAD_ECRC) ||
	    rp->result_size < sizeof(struct mcmgpu_fp_replay_result))
		return -EINVAL;
	if (!access_ok(u64_to_user_ptr(rp->trace_ptr), rp->trace_len) ||
	    !rp->trace_ptr || !rp->result_ptr)
		return -EFAULT;

	/* Upload and run belong together: one per file at a time. */
	if (mutex_lock_interruptible(&mf->lock))
		return -ERESTARTSYS;
	if (rp->trace_len >= MCMGPU_FP_PIN_MIN)
		ret = mcmgpu_fp_upload_pinned(mf, rp);
	else
		ret = mcmgpu_fp_upload(mf, rp);
	if (!ret)
		ret = mcmgpu_submit_xfer(mf->mdev, &c, &x);
	if (!ret)
		ret = mcmgpu_status_errno(c.status);
	mutex_unlock(&mf->lock);
	return ret;
}

static const struct mcmgpu_ioctl_desc mcmgpu_finepack_ioctls[] = {
	MCMGPU_IOCTL_DEF(MCMGPU_IOCTL_FINEPACK_REPLAY,
			 MCMGPU_FINEPACK_REPLAY_SIZE_VER0, mcmgpu_ioctl_finepack, 0),
};

const struct mcmgpu_engine mcmgpu_finepack_engine = {
	.name = "finepack",
	.ioctls = mcmgpu_finepack_ioctls,
	.nr_ioctls = ARRAY_SIZE(mcmgpu_finepack_ioctls),
};
