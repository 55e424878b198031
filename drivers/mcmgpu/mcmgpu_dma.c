// SPDX-License-Identifier: GPL-2.0
/* MCMGPU_IOCTL_DMA: copies between a user buffer and GPU memory. */
#include <linux/dma-mapping.h>
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "mcmgpu.h"
#include "mcmgpu_ioctl.h"

static int mcmgpu_ioctl_dma(void *file, void *arg, u32 usize)
{
	struct mcmgpu_file *mf = file;
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
			ret = mcmgpu_status_errno(c.status);
		if (ret)
			return ret;
		cond_resched();
	}
	return 0;
}

static const struct mcmgpu_ioctl_desc mcmgpu_dma_ioctls[] = {
	MCMGPU_IOCTL_DEF(MCMGPU_IOCTL_DMA, MCMGPU_DMA_SIZE_VER0,
			 mcmgpu_ioctl_dma, 0),
};

const struct mcmgpu_engine mcmgpu_dma_engine = {
	.name = "dma",
	.ioctls = mcmgpu_dma_ioctls,
	.nr_ioctls = ARRAY_SIZE(mcmgpu_dma_ioctls),
};

int mcmgpu_user_pages_get(struct mcmgpu_user_pages *up, struct device *dev,
			  unsigned long uaddr, u64 len, bool device_writes)
{
	unsigned long first = uaddr & PAGE_MASK, i;
	int ret = -ENOMEM;

	*up = (struct mcmgpu_user_pages) {
		.dev = dev,
		.npages = (PAGE_ALIGN(uaddr + len) - first) >> PAGE_SHIFT,
		.dir = device_writes ? DMA_FROM_DEVICE : DMA_TO_DEVICE,
	};
	up->pages = kvcalloc(up->npages, sizeof(*up->pages), GFP_KERNEL);
	up->list = dma_alloc_coherent(dev, up->npages * 8, &up->list_dma,
				      GFP_KERNEL);
	if (!up->pages || !up->list)
		goto fail;
	ret = pin_user_pages_fast(first, up->npages,
				  device_writes ? FOLL_WRITE : 0, up->pages);
	if (ret < 0)
		goto fail;
	up->pinned = ret;
	ret = -EFAULT;
	if (up->pinned != up->npages)
		goto fail;
	for (i = 0; i < up->npages; i++) {
		dma_addr_t bus = dma_map_page(dev, up->pages[i], 0, PAGE_SIZE,
					      up->dir);

		ret = -ENOMEM;
		if (dma_mapping_error(dev, bus))
			goto fail;
		up->list[i] = cpu_to_le64(bus);
		up->mapped++;
	}
	return 0;
fail:
	mcmgpu_user_pages_put(up, false);
	return ret;
}

void mcmgpu_user_pages_put(struct mcmgpu_user_pages *up, bool dirty)
{
	unsigned long i;

	for (i = 0; i < up->mapped; i++)
		dma_unmap_page(up->dev, le64_to_cpu(up->list[i]), PAGE_SIZE,
			       up->dir);
	if (up->pinned > 0)
		unpin_user_pages_dirty_lock(up->pages, up->pinned, dirty);
	if (up->list)
		dma_free_coherent(up->dev, up->npages * 8, up->list,
				  up->list_dma);
	kvfree(up->pages);
	up->mapped = 0;
	up->pinned = 0;
	up->list = NULL;
	up->pages = NULL;
}
