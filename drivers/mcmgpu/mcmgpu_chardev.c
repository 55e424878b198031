// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/mcmgpuN: the user-space ABI of uapi/mcmgpu.h. Every argument is
 * checked here, before the device sees it, so users get a precise errno;
 * the device checks again and reports anything that slips through as EIO.
 */
#include <linux/fs.h>
#include <linux/overflow.h>
#include <linux/sched/signal.h>
#include <linux/uaccess.h>

#include "mcmgpu.h"
#include "mcmgpu_ioctl.h"
#include "mcmgpu_finepack.h"
#include "mcmgpu_cpelide.h"

static struct mcmgpu_device *file_to_mdev(struct file *file)
{
	return container_of(file->private_data, struct mcmgpu_device, misc);
}

static int mcmgpu_open(struct inode *inode, struct file *file)
{
	/* misc_open holds misc_mtx, so removal cannot run concurrently. */
	kref_get(&file_to_mdev(file)->ref);
	return 0;
}

static int mcmgpu_release(struct inode *inode, struct file *file)
{
	mcmgpu_device_put(file_to_mdev(file));
	return 0;
}

/* Copy an extensible argument struct: size first, unknown tail zero. */
static int mcmgpu_copy_arg(void *karg, size_t ksize, size_t min_size,
			   void __user *uarg, u32 *usize)
{
	if (get_user(*usize, (u32 __user *)uarg))
		return -EFAULT;
	if (*usize < min_size)
		return -EINVAL;
	return copy_struct_from_user(karg, ksize, uarg, *usize);
}

static int mcmgpu_ioctl_get_info(struct mcmgpu_device *mdev,
				 void __user *uarg)
{
	struct mcmgpu_info info;
	u32 usize;
	int ret;

	ret = mcmgpu_copy_arg(&info, sizeof(info), MCMGPU_INFO_SIZE_VER0,
			      uarg, &usize);
	if (ret)
		return ret;
	if (info.flags)
		return -EINVAL;

	memset(&info, 0, sizeof(info));
	info.size = min_t(u32, usize, sizeof(info));
	info.hw_version = mdev->hw_version;
	info.chiplets = mdev->chiplets;
	info.vram_per_chiplet = mdev->vram_per_chiplet;
	info.vram_total = mcmgpu_vram_total(mdev);
	info.vram_bar_size = pci_resource_len(mdev->pdev, MCMGPU_BAR_VRAM);
	info.features = mdev->features;
	info.pci_domain = pci_domain_nr(mdev->pdev->bus);
	info.pci_bus = mdev->pdev->bus->number;
	info.pci_devfn = mdev->pdev->devfn;
	mutex_lock(&mdev->cmd_lock);
	info.commands_done = mdev->commands_done;
	info.commands_failed = mdev->commands_failed;
	mutex_unlock(&mdev->cmd_lock);

	if (copy_to_user(uarg, &info, info.size))
		return -EFAULT;
	return 0;
}

static int mcmgpu_dma_chunk(struct mcmgpu_device *mdev, bool from_gpu,
			    u8 __user *uptr, u64 gpu_addr, u32 len,
			    bool progress)
{
	u64 args[3] = { mdev->bounce_dma, gpu_addr, len };
	int ret;

	ret = mcmgpu_cmd_begin(mdev, progress);
	if (ret)
		return ret;
	if (!from_gpu && copy_from_user(mdev->bounce, uptr, len)) {
		ret = -EFAULT;
		goto out;
	}
	ret = mcmgpu_submit(mdev, MCMGPU_OP_DMA_COPY,
			    from_gpu ? MCMGPU_DMA_FLAG_TO_HOST : 0,
			    args, ARRAY_SIZE(args), NULL);
	if (!ret && from_gpu && copy_to_user(uptr, mdev->bounce, len))
		ret = -EFAULT;
out:
	mcmgpu_cmd_end(mdev);
	return ret;
}

static int mcmgpu_ioctl_dma(struct mcmgpu_device *mdev, void __user *uarg)
{
	struct mcmgpu_dma dma;
	u8 __user *uptr;
	u64 end, done;
	bool from_gpu;
	u32 usize;
	int ret;

	ret = mcmgpu_copy_arg(&dma, sizeof(dma), MCMGPU_DMA_SIZE_VER0,
			      uarg, &usize);
	if (ret)
		return ret;
	if (dma.flags & ~MCMGPU_DMA_FLAGS_ALL || !dma.length)
		return -EINVAL;
	if (check_add_overflow(dma.gpu_addr, dma.length, &end))
		return -EOVERFLOW;
	if (end > mcmgpu_vram_total(mdev))
		return -ERANGE;
	uptr = u64_to_user_ptr(dma.user_ptr);
	if (!dma.user_ptr || !access_ok(uptr, dma.length))
		return -EFAULT;
	from_gpu = dma.flags & MCMGPU_DMA_FROM_GPU;

	for (done = 0; done < dma.length; done += MCMGPU_BOUNCE_SIZE) {
		u32 len = min_t(u64, dma.length - done, MCMGPU_BOUNCE_SIZE);

		if (done && fatal_signal_pending(current))
			return -EINTR;
		ret = mcmgpu_dma_chunk(mdev, from_gpu, uptr + done,
				       dma.gpu_addr + done, len, done > 0);
		if (ret)
			return ret;
		cond_resched();
	}
	return 0;
}

/* Upload the trace through the bounce buffer, then run it. */
static int mcmgpu_finepack_submit(struct mcmgpu_device *mdev,
				  const struct mcmgpu_finepack_replay *rp,
				  struct fp_replay_result *res)
{
	const u8 __user *src = u64_to_user_ptr(rp->trace_ptr);
	u64 done, args[4];
	int ret;

	for (done = 0; done < rp->trace_len; done += MCMGPU_BOUNCE_SIZE) {
		u32 len = min_t(u64, rp->trace_len - done, MCMGPU_BOUNCE_SIZE);

		if (done && fatal_signal_pending(current))
			return -EINTR;
		ret = mcmgpu_cmd_begin(mdev, done > 0);
		if (ret)
			return ret;
		if (copy_from_user(mdev->bounce, src + done, len)) {
			mcmgpu_cmd_end(mdev);
			return -EFAULT;
		}
		args[0] = mdev->bounce_dma;
		args[1] = done;
		args[2] = len;
		args[3] = rp->trace_len;
		ret = mcmgpu_submit(mdev, MCMGPU_OP_TRACE_LOAD, 0, args, 4, NULL);
		mcmgpu_cmd_end(mdev);
		if (ret)
			return ret;
	}

	ret = mcmgpu_cmd_begin(mdev, true);
	if (ret)
		return ret;
	args[0] = rp->trace_len;
	args[1] = MCMGPU_FP_CFG(rp->subheader, rp->overhead);
	args[2] = mdev->bounce_dma;
	memset(mdev->bounce, 0, sizeof(*res));
	ret = mcmgpu_submit(mdev, MCMGPU_OP_FINEPACK_RUN, 0, args, 3, NULL);
	if (!ret || ret == -EINVAL)
		memcpy(res, mdev->bounce, sizeof(*res));
	mcmgpu_cmd_end(mdev);
	return ret;
}

static int mcmgpu_ioctl_finepack(struct mcmgpu_device *mdev,
				 void __user *uarg)
{
	struct mcmgpu_finepack_replay rp;
	struct fp_replay_result *res;
	u32 usize;
	int ret;

	ret = mcmgpu_copy_arg(&rp, sizeof(rp), MCMGPU_FINEPACK_REPLAY_SIZE_VER0,
			      uarg, &usize);
	if (ret)
		return ret;
	if (rp.flags || rp.reserved || !rp.trace_len ||
	    rp.trace_len > FP_TRACE_MAX_BYTES ||
	    rp.subheader < 2 || rp.subheader > 6 ||
	    (rp.overhead != 24 && rp.overhead != 28) ||
	    rp.result_size < sizeof(*res))
		return -EINVAL;
	if (!access_ok(u64_to_user_ptr(rp.trace_ptr), rp.trace_len) ||
	    !rp.trace_ptr || !rp.result_ptr)
		return -EFAULT;

	res = kzalloc(sizeof(*res), GFP_KERNEL);
	if (!res)
		return -ENOMEM;
	if (mutex_lock_interruptible(&mdev->trace_lock)) {
		kfree(res);
		return -ERESTARTSYS;
	}
	ret = mcmgpu_finepack_submit(mdev, &rp, res);
	mutex_unlock(&mdev->trace_lock);
	if ((!ret || ret == -EINVAL) &&
	    copy_to_user(u64_to_user_ptr(rp.result_ptr), res, sizeof(*res)))
		ret = -EFAULT;
	kfree(res);
	return ret;
}

/* The launch call: one record through the device's command processor. */
static int mcmgpu_ioctl_launch(struct mcmgpu_device *mdev, void __user *uarg)
{
	struct cpe_launch_result *res;
	struct mcmgpu_launch ln;
	u64 args[2];
	u32 usize;
	int ret;

	BUILD_BUG_ON(sizeof(struct cpe_record) + sizeof(*res) > MCMGPU_BOUNCE_SIZE);
	ret = mcmgpu_copy_arg(&ln, sizeof(ln), MCMGPU_LAUNCH_SIZE_VER0, uarg,
			      &usize);
	if (ret)
		return ret;
	if (ln.flags || ln.record_size != sizeof(struct cpe_record) ||
	    ln.result_size < sizeof(*res))
		return -EINVAL;
	if (!ln.record_ptr || !ln.result_ptr)
		return -EFAULT;

	ret = mcmgpu_cmd_begin(mdev, false);
	if (ret)
		return ret;
	if (copy_from_user(mdev->bounce, u64_to_user_ptr(ln.record_ptr),
			   sizeof(struct cpe_record))) {
		ret = -EFAULT;
		goto out;
	}
	res = mdev->bounce + sizeof(struct cpe_record);
	memset(res, 0, sizeof(*res));
	args[0] = mdev->bounce_dma;
	args[1] = mdev->bounce_dma + sizeof(struct cpe_record);
	ret = mcmgpu_submit(mdev, MCMGPU_OP_CP_LAUNCH, 0, args, 2, NULL);
	if ((!ret || ret == -EINVAL) &&
	    copy_to_user(u64_to_user_ptr(ln.result_ptr), res, sizeof(*res)))
		ret = -EFAULT;
out:
	mcmgpu_cmd_end(mdev);
	return ret;
}

static long mcmgpu_ioctl(struct file *file, unsigned int cmd,
			 unsigned long arg)
{
	struct mcmgpu_device *mdev = file_to_mdev(file);
	void __user *uarg = (void __user *)arg;
	long ret;

	/* The size in the command number is ignored: the struct says it. */
	if (_IOC_TYPE(cmd) != MCMGPU_IOCTL_MAGIC)
		return -ENOTTY;

	down_read(&mdev->remove_lock);
	if (mdev->removed) {
		ret = -ENODEV;
		goto out;
	}
	switch (_IOC_NR(cmd)) {
	case _IOC_NR(MCMGPU_IOCTL_GET_INFO):
		ret = mcmgpu_ioctl_get_info(mdev, uarg);
		break;
	case _IOC_NR(MCMGPU_IOCTL_DMA):
		ret = mcmgpu_ioctl_dma(mdev, uarg);
		break;
	case _IOC_NR(MCMGPU_IOCTL_FINEPACK_REPLAY):
		ret = mcmgpu_ioctl_finepack(mdev, uarg);
		break;
	case _IOC_NR(MCMGPU_IOCTL_LAUNCH):
		ret = mcmgpu_ioctl_launch(mdev, uarg);
		break;
	default:
		ret = -ENOTTY;
		break;
	}
out:
	up_read(&mdev->remove_lock);
	return ret;
}

static const struct file_operations mcmgpu_fops = {
	.owner = THIS_MODULE,
	.open = mcmgpu_open,
	.release = mcmgpu_release,
	.unlocked_ioctl = mcmgpu_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.llseek = noop_llseek,
};

int mcmgpu_chardev_register(struct mcmgpu_device *mdev)
{
	snprintf(mdev->name, sizeof(mdev->name), "mcmgpu%d", mdev->id);
	mdev->misc.minor = MISC_DYNAMIC_MINOR;
	mdev->misc.name = mdev->name;
	mdev->misc.fops = &mcmgpu_fops;
	mdev->misc.parent = &mdev->pdev->dev;
	return misc_register(&mdev->misc);
}

void mcmgpu_chardev_unregister(struct mcmgpu_device *mdev)
{
	misc_deregister(&mdev->misc);
}
