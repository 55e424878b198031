// SPDX-License-Identifier: GPL-2.0
/*
 * DOC: the device object and its engines
 *
 * The bottom of the driver: the device's lifetime, the walk of its engines
 * for each hook (struct mcmgpu_engine, one per mechanism file), and the
 * code every character device of mcmgpu.ko and its aux drivers dispatches
 * its ioctls with, next to the one table of device statuses to errnos.
 * Nothing here calls into a mechanism except through its engine.
 */
#include <linux/errno.h>
#include <linux/idr.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "mcmgpu.h"

static DEFINE_IDA(mcmgpu_ida);

/*
 * What each device status tells the caller, for every mechanism; a
 * status missing here (or not known yet) is the device's fault: EIO.
 */
static const int mcmgpu_status_errnos[] = {
	[MCMGPU_CMPL_OK]		= 0,
	[MCMGPU_CMPL_BAD_OPCODE]	= -EIO,
	[MCMGPU_CMPL_BAD_FLAGS]		= -EIO,
	[MCMGPU_CMPL_BAD_LENGTH]	= -EIO,	/* the driver sized it */
	[MCMGPU_CMPL_BAD_GPU_ADDR]	= -ERANGE,
	[MCMGPU_CMPL_DMA_FAULT]		= -EIO,
	[MCMGPU_CMPL_BAD_RESERVED]	= -EINVAL,	/* the caller's, passed on */
	[MCMGPU_CMPL_BAD_TRACE]		= -EINVAL,
	[MCMGPU_CMPL_NO_MEMORY]		= -ENOMEM,
	/* The device lost what was loaded (a migration): redo from a reset. */
	[MCMGPU_CMPL_NO_TRACE]		= -EBADFD,
	[MCMGPU_CMPL_INJECTED_FAULT]	= -EIO,
	[MCMGPU_CMPL_BAD_LAUNCH]	= -EINVAL,
	[MCMGPU_CMPL_NO_CONTEXT]	= -ENOSPC,
	[MCMGPU_CMPL_BAD_CONTEXT]	= -EIO,
	[MCMGPU_CMPL_BAD_ARG]		= -EIO,
	[MCMGPU_CMPL_BAD_ATS_RESPONSE]	= -EPROTO,
	[MCMGPU_CMPL_ATS_DISABLED]	= -ENODEV,
	[MCMGPU_CMPL_NO_IOMMU]		= -ENODEV,
};

static_assert(ARRAY_SIZE(mcmgpu_status_errnos) == MCMGPU_CMPL_NO_IOMMU + 1);

int mcmgpu_status_errno(u32 status)
{
	if (status >= ARRAY_SIZE(mcmgpu_status_errnos))
		return -EIO;
	return mcmgpu_status_errnos[status];
}
EXPORT_SYMBOL_NS_GPL(mcmgpu_status_errno, MCMGPU);

static bool mcmgpu_ioctl_matches(const struct mcmgpu_ioctl_desc *d,
				 unsigned int cmd)
{
	/* Size first: the struct says its size, not the number. */
	if (d->flags & MCMGPU_IOCTL_SIZE_FIRST)
		return _IOC_TYPE(cmd) == _IOC_TYPE(d->cmd) &&
		       _IOC_NR(cmd) == _IOC_NR(d->cmd);
	return cmd == d->cmd;
}

const struct mcmgpu_ioctl_desc *
mcmgpu_ioctl_lookup(const struct mcmgpu_ioctl_desc *table, unsigned int n,
		    unsigned int cmd)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (mcmgpu_ioctl_matches(&table[i], cmd))
			return &table[i];
	return NULL;
}
EXPORT_SYMBOL_NS_GPL(mcmgpu_ioctl_lookup, MCMGPU);

/* Argument structs up to this size are copied to the stack. */
#define MCMGPU_IOCTL_STACK_SIZE	256

/*
 * One ioctl of d (ENOTTY without one): the argument in (size first, an
 * unknown tail must be zero), the handler, and back as many bytes as both
 * structs have, or the descriptor's part of them. The caller holds what
 * keeps owner alive and has checked that its device is still there.
 */
long mcmgpu_ioctl_call(const struct mcmgpu_ioctl_desc *d, void *owner,
		       unsigned long arg)
{
	u8 stack[MCMGPU_IOCTL_STACK_SIZE] __aligned(8);
	void __user *uarg = (void __user *)arg;
	u32 size, usize, off, len;
	bool ran = false;
	void *karg = stack;
	long ret;

	if (!d)
		return -ENOTTY;
	size = _IOC_SIZE(d->cmd);
	usize = size;
	if (d->flags & MCMGPU_IOCTL_SIZE_FIRST) {
		if (get_user(usize, (u32 __user *)uarg))
			return -EFAULT;
		if (usize < d->size_ver0)
			return -EINVAL;
	}
	if (size > sizeof(stack)) {
		karg = kmalloc(size, GFP_KERNEL);
		if (!karg)
			return -ENOMEM;
	}
	if (d->flags & MCMGPU_IOCTL_SIZE_FIRST || _IOC_DIR(d->cmd) & _IOC_WRITE) {
		ret = copy_struct_from_user(karg, size, uarg, usize);
	} else {
		memset(karg, 0, size);
		ret = 0;
	}
	if (!ret) {
		ret = d->handler(owner, karg, usize);
		ran = true;
	}
	if (ran && d->flags & (ret ? MCMGPU_IOCTL_OUT_ERROR : MCMGPU_IOCTL_OUT)) {
		off = d->out_off;
		len = d->out_len ?: min(usize, size);
		if (copy_to_user(uarg + off, karg + off, len))
			ret = -EFAULT;
	}
	if (karg != stack)
		kfree(karg);
	return ret;
}
EXPORT_SYMBOL_NS_GPL(mcmgpu_ioctl_call, MCMGPU);

/* ---- the device ---------------------------------------------------------- */

struct mcmgpu_device *mcmgpu_device_create(struct pci_dev *pdev,
					   const struct mcmgpu_engine *const *engines,
					   unsigned int nr_engines)
{
	struct mcmgpu_device *mdev = kzalloc(sizeof(*mdev), GFP_KERNEL);

	if (!mdev)
		return ERR_PTR(-ENOMEM);
	mdev->id = ida_alloc(&mcmgpu_ida, GFP_KERNEL);
	if (mdev->id < 0) {
		int ret = mdev->id;

		kfree(mdev);
		return ERR_PTR(ret);
	}
	kref_init(&mdev->ref);
	mutex_init(&mdev->cmd_lock);
	mutex_init(&mdev->orphan_lock);
	init_rwsem(&mdev->remove_lock);
	mutex_init(&mdev->files_lock);
	INIT_LIST_HEAD(&mdev->files);
	init_waitqueue_head(&mdev->cmpl_wait);
	mdev->pdev = pdev;
	mdev->engines = engines;
	mdev->nr_engines = nr_engines;
	return mdev;
}

static void mcmgpu_device_release(struct kref *ref)
{
	struct mcmgpu_device *mdev = container_of(ref, struct mcmgpu_device, ref);
	int i;

	for (i = mdev->nr_engines - 1; i >= 0; i--)
		if (mdev->engines[i]->dev_fini)
			mdev->engines[i]->dev_fini(mdev);
	ida_free(&mcmgpu_ida, mdev->id);
	kfree(mdev);
}

void mcmgpu_device_put(struct mcmgpu_device *mdev)
{
	kref_put(&mdev->ref, mcmgpu_device_release);
}

/* ---- the engines' hooks -------------------------------------------------- */

int mcmgpu_engines_dev_init(struct mcmgpu_device *mdev)
{
	const struct mcmgpu_engine *e;
	unsigned int i;
	int ret;

	for (i = 0; i < mdev->nr_engines; i++) {
		e = mdev->engines[i];
		if (!e->dev_init)
			continue;
		ret = e->dev_init(mdev);
		if (ret)
			return ret;	/* dev_fini undoes it, at the last put */
	}
	return 0;
}

const struct mcmgpu_ioctl_desc *
mcmgpu_engines_ioctl(struct mcmgpu_device *mdev, unsigned int cmd)
{
	const struct mcmgpu_ioctl_desc *d;
	const struct mcmgpu_engine *e;
	unsigned int i;

	for (i = 0; i < mdev->nr_engines; i++) {
		e = mdev->engines[i];
		d = mcmgpu_ioctl_lookup(e->ioctls, e->nr_ioctls, cmd);
		if (d)
			return d;
	}
	return NULL;
}

void mcmgpu_engines_file_open(struct mcmgpu_file *mf)
{
	const struct mcmgpu_engine *e;
	unsigned int i;

	for (i = 0; i < mf->mdev->nr_engines; i++) {
		e = mf->mdev->engines[i];
		if (e->file_open)
			e->file_open(mf);
	}
}

void mcmgpu_engines_file_quiesce(struct mcmgpu_file *mf)
{
	const struct mcmgpu_engine *e;
	unsigned int i;

	for (i = 0; i < mf->mdev->nr_engines; i++) {
		e = mf->mdev->engines[i];
		if (e->file_quiesce)
			e->file_quiesce(mf);
	}
}

/* In order: the objects go first, then what their hooks still used. */
void mcmgpu_engines_file_release(struct mcmgpu_file *mf)
{
	const struct mcmgpu_engine *e;
	unsigned int i;

	for (i = 0; i < mf->mdev->nr_engines; i++) {
		e = mf->mdev->engines[i];
		if (e->file_release)
			e->file_release(mf);
	}
}

int mcmgpu_engines_mmap(struct mcmgpu_file *mf, struct vm_area_struct *vma)
{
	const struct mcmgpu_engine *e;
	unsigned int i;

	for (i = 0; i < mf->mdev->nr_engines; i++) {
		e = mf->mdev->engines[i];
		if (e->mmap)
			return e->mmap(mf, vma);
	}
	return -ENODEV;
}

/* Each engine's part of a new object; one failing undoes those before. */
int mcmgpu_engines_obj_alloc(struct mcmgpu_file *mf, struct mcmgpu_obj *o,
			     struct mcmgpu_alloc *a)
{
	const struct mcmgpu_engine *e;
	unsigned int i;
	int ret = 0;

	for (i = 0; i < mf->mdev->nr_engines; i++) {
		e = mf->mdev->engines[i];
		if (e->obj_alloc)
			ret = e->obj_alloc(mf, o, a);
		if (ret)
			break;
	}
	if (ret)
		while (i--)
			if (mf->mdev->engines[i]->obj_free)
				mf->mdev->engines[i]->obj_free(mf, o);
	return ret;
}

bool mcmgpu_engines_obj_busy(struct mcmgpu_file *mf, struct mcmgpu_obj *o)
{
	const struct mcmgpu_engine *e;
	unsigned int i;

	for (i = 0; i < mf->mdev->nr_engines; i++) {
		e = mf->mdev->engines[i];
		if (e->obj_busy && e->obj_busy(mf, o))
			return true;
	}
	return false;
}

void mcmgpu_engines_obj_free(struct mcmgpu_file *mf, struct mcmgpu_obj *o)
{
	const struct mcmgpu_engine *e;
	unsigned int i;

	for (i = 0; i < mf->mdev->nr_engines; i++) {
		e = mf->mdev->engines[i];
		if (e->obj_free)
			e->obj_free(mf, o);
	}
}
