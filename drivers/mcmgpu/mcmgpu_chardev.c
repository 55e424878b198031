// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/mcmgpuN: the user-space ABI of uapi/mcmgpu_ioctl.h. Each open file
 * has its own device context. Ioctls are dispatched through the engines'
 * tables (mcmgpu_engine.c); each mechanism's handlers live in its own file
 * and check every argument before the device sees it, so users get a
 * precise errno.
 */
#include <linux/fs.h>
#include <linux/slab.h>

#include "mcmgpu.h"
#include "mcmgpu_ioctl.h"

/* Traces and launch records reach the device as user space wrote them. */
#ifdef __BIG_ENDIAN
#error "mcmgpu: the device reads mechanism structures as little-endian"
#endif

static struct mcmgpu_device *misc_to_mdev(struct file *file)
{
	return container_of(file->private_data, struct mcmgpu_device, misc);
}

/*
 * Destroy the contexts whose release could not (a timeout or a ring error
 * dropped the CTX_DESTROY), so failed releases do not use them all up.
 */
static void mcmgpu_reap_orphans(struct mcmgpu_device *mdev)
{
	unsigned int id;

	mutex_lock(&mdev->orphan_lock);
	for_each_set_bit(id, mdev->orphans, mdev->contexts + 1) {
		struct mcmgpu_cmd c = {
			.opcode = MCMGPU_OP_CTX_DESTROY,
			.ctx = id,
			.wait = MCMGPU_WAIT_UNINTERRUPTIBLE,
		};

		if (mcmgpu_submit(mdev, &c))
			break;	/* the device is still unwell: next time */
		if (c.status == MCMGPU_CMPL_OK ||
		    c.status == MCMGPU_CMPL_BAD_CONTEXT)
			clear_bit(id, mdev->orphans);
	}
	mutex_unlock(&mdev->orphan_lock);
}

/* Each open file gets a device context: ENOSPC when all are in use. */
static int mcmgpu_open(struct inode *inode, struct file *file)
{
	struct mcmgpu_device *mdev = misc_to_mdev(file);
	struct mcmgpu_cmd c = {
		.opcode = MCMGPU_OP_CTX_CREATE,
		/* A killed opener must not leave a context nobody owns. */
		.wait = MCMGPU_WAIT_UNINTERRUPTIBLE,
	};
	struct mcmgpu_file *mf;
	int ret;

	mf = kzalloc(sizeof(*mf), GFP_KERNEL);
	if (!mf)
		return -ENOMEM;
	mutex_init(&mf->lock);
	xa_init_flags(&mf->objects, XA_FLAGS_ALLOC1);
	mf->mdev = mdev;
	/* misc_open holds misc_mtx, so removal cannot run concurrently. */
	kref_get(&mdev->ref);
	mcmgpu_reap_orphans(mdev);
	ret = mcmgpu_submit(mdev, &c);
	if (!ret)
		ret = mcmgpu_status_errno(c.status);
	if (ret) {
		mcmgpu_device_put(mdev);
		kfree(mf);
		return ret;
	}
	mf->ctx = c.result;
	mf->barre_need_reset = true;
	mf->mapping = file->f_mapping;
	mcmgpu_engines_file_open(mf);
	file->private_data = mf;
	return 0;
}

/* Runs after every ioctl of the file returned; its commands are done. */
static int mcmgpu_release(struct inode *inode, struct file *file)
{
	struct mcmgpu_file *mf = file->private_data;
	struct mcmgpu_device *mdev = mf->mdev;
	struct mcmgpu_cmd c = {
		.opcode = MCMGPU_OP_CTX_DESTROY,
		.ctx = mf->ctx,
		.wait = MCMGPU_WAIT_UNINTERRUPTIBLE,
	};

	mcmgpu_engines_file_quiesce(mf);
	down_read(&mdev->remove_lock);
	/* After removal the device was reset: its contexts are gone. */
	if (!mdev->removed &&
	    (mcmgpu_submit(mdev, &c) || c.status != MCMGPU_CMPL_OK) &&
	    mf->ctx <= mdev->contexts) {
		dev_warn(&mdev->pdev->dev,
			 "context %u not destroyed, retried at the next open\n",
			 mf->ctx);
		set_bit(mf->ctx, mdev->orphans);
	}
	up_read(&mdev->remove_lock);
	mcmgpu_engines_file_release(mf);
	mcmgpu_device_put(mdev);
	kfree(mf);
	return 0;
}

static int mcmgpu_ioctl_get_info(void *file, void *arg, u32 usize)
{
	struct mcmgpu_file *mf = file;
	struct mcmgpu_device *mdev = mf->mdev;
	struct mcmgpu_info *info = arg;

	if (info->flags)
		return -EINVAL;
	memset(info, 0, sizeof(*info));
	info->size = min_t(u32, usize, sizeof(*info));
	info->hw_version = mdev->hw_version;
	info->chiplets = mdev->chiplets;
	info->vram_per_chiplet = mdev->vram_per_chiplet;
	info->vram_total = mcmgpu_vram_total(mdev);
	info->vram_bar_size = pci_resource_len(mdev->pdev, MCMGPU_BAR_VRAM);
	info->features = mdev->features;
	info->pci_domain = pci_domain_nr(mdev->pdev->bus);
	info->pci_bus = mdev->pdev->bus->number;
	info->pci_devfn = mdev->pdev->devfn;
	/* Not under cmd_lock: a caller must not wait for a running command. */
	info->commands_done = READ_ONCE(mdev->commands_done);
	info->commands_failed = READ_ONCE(mdev->commands_failed);
	return 0;
}

/* The device's own ioctls; the engines have the others. */
static const struct mcmgpu_ioctl_desc mcmgpu_core_ioctls[] = {
	MCMGPU_IOCTL_DEF(MCMGPU_IOCTL_GET_INFO, MCMGPU_INFO_SIZE_VER0,
			 mcmgpu_ioctl_get_info, MCMGPU_IOCTL_OUT),
};

static long mcmgpu_ioctl(struct file *file, unsigned int cmd,
			 unsigned long arg)
{
	struct mcmgpu_file *mf = file->private_data;
	struct mcmgpu_device *mdev = mf->mdev;
	const struct mcmgpu_ioctl_desc *d;
	long ret;

	/*
	 * A gone device answers ENODEV first, whatever the number and the
	 * argument (remove_lock may be held across user copies).
	 */
	down_read(&mdev->remove_lock);
	if (mdev->removed) {
		ret = -ENODEV;
	} else {
		d = mcmgpu_ioctl_lookup(mcmgpu_core_ioctls,
					ARRAY_SIZE(mcmgpu_core_ioctls), cmd);
		ret = mcmgpu_ioctl_call(d ?: mcmgpu_engines_ioctl(mdev, cmd),
					mf, arg);
	}
	up_read(&mdev->remove_lock);
	return ret;
}

/* The engine that maps (ADSM's shared objects, mcmgpu_adsm.c). */
static int mcmgpu_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct mcmgpu_file *mf = file->private_data;
	struct mcmgpu_device *mdev = mf->mdev;
	int ret;

	/*
	 * Under mmap_lock, which ioctls take inside remove_lock (user
	 * copies): a try, so removal waiting for the lock means ENODEV.
	 */
	if (!down_read_trylock(&mdev->remove_lock))
		return -ENODEV;
	ret = mdev->removed ? -ENODEV : mcmgpu_engines_mmap(mf, vma);
	up_read(&mdev->remove_lock);
	return ret;
}

static const struct file_operations mcmgpu_fops = {
	.owner = THIS_MODULE,
	.open = mcmgpu_open,
	.release = mcmgpu_release,
	.mmap = mcmgpu_mmap,
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
