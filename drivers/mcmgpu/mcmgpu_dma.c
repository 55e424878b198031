// SPDX-License-Identifier: GPL-2.0
/* MCMGPU_IOCTL_DMA: copies between a user buffer and GPU memory. */
#include <linux/overflow.h>
#include <linux/sched/signal.h>
#include <linux/uaccess.h>

#include "mcmgpu.h"
#include "mcmgpu_ioctl.h"

static int mcmgpu_dma_errno(u32 status)
{
	switch (status) {
	case MCMGPU_CMPL_BAD_GPU_ADDR:
		return -ERANGE;
	default:
		return mcmgpu_status_errno(status);
	}
}

int mcmgpu_ioctl_dma(struct mcmgpu_file *mf, void *arg, u32 usize)
{
	struct mcmgpu_device *mdev = mf->mdev;
	struct mcmgpu_dma *dma = arg;
	u8 __user *uptr;
	u64 end, done;
	bool from_gpu;
	int ret;

	if (dma->flags & ~MCMGPU_DMA_FLAGS_ALL || !dma->length)
		return -EINVAL;
	if (check_add_overflow(dma->gpu_addr, dma->length, &end))
		return -EOVERFLOW;
	if (end > mcmgpu_vram_total(mdev))
		return -ERANGE;
	uptr = u64_to_user_ptr(dma->user_ptr);
	if (!dma->user_ptr || !access_ok(uptr, dma->length))
		return -EFAULT;
	from_gpu = dma->flags & MCMGPU_DMA_FROM_GPU;

	for (done = 0; done < dma->length; done += MCMGPU_BOUNCE_SIZE) {
		u32 len = min_t(u64, dma->length - done, MCMGPU_BOUNCE_SIZE);
		struct mcmgpu_cmd c = {
			.opcode = MCMGPU_OP_DMA_COPY,
			.flags = from_gpu ? MCMGPU_DMA_FLAG_TO_HOST : 0,
			.args = { 0, dma->gpu_addr + done, len },
		};
		struct mcmgpu_xfer x = {
			.in = from_gpu ? NULL : uptr + done,
			.in_len = from_gpu ? 0 : len,
			.in_arg = 0,
			.out = from_gpu ? uptr + done : NULL,
			.out_len = from_gpu ? len : 0,
			.out_arg = from_gpu ? 0 : -1,
			.report_status = MCMGPU_CMPL_OK,
			.progress = done > 0,
		};

		if (done && fatal_signal_pending(current))
			return -EINTR;
		ret = mcmgpu_submit_xfer(mdev, &c, &x);
		if (!ret)
			ret = mcmgpu_dma_errno(c.status);
		if (ret)
			return ret;
		cond_resched();
	}
	return 0;
}
