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

static int mcmgpu_fp_errno(u32 status)
{
	switch (status) {
	case MCMGPU_CMPL_BAD_TRACE:
		return -EINVAL;
	default:
		return mcmgpu_status_errno(status);
	}
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
			ret = mcmgpu_fp_errno(c.status);
		if (ret)
			return ret;
	}
	return 0;
}

int mcmgpu_ioctl_finepack(struct mcmgpu_file *mf, void *arg, u32 usize)
{
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
	ret = mcmgpu_fp_upload(mf, rp);
	if (!ret)
		ret = mcmgpu_submit_xfer(mf->mdev, &c, &x);
	if (!ret)
		ret = mcmgpu_fp_errno(c.status);
	mutex_unlock(&mf->lock);
	return ret;
}
