// SPDX-License-Identifier: GPL-2.0
/*
 * The auxiliary devices of mcmgpu.ko and the API their drivers use
 * (include/mcmgpu_aux.h): each owns a BAR0 register window and an MSI-X
 * vector, and submits commands through the device's ring. The glue every
 * aux device has is here, once: its vector's handler and the round-trip
 * test on it, the "ping" attribute (writing 1 submits MCMGPU_OP_PING for
 * the device's own window and waits for the interrupt on its own vector;
 * reading gives "pings P irqs I").
 */
#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/interrupt.h>
#include <linux/io.h>
#include <linux/jiffies.h>
#include <linux/slab.h>

#include "mcmgpu.h"

/* mcmgpu.ko's side of an aux device. */
struct mcmgpu_aux {
	struct mcmgpu_aux_dev dev;
	struct mutex ping_lock;	/* one ping at a time */
	struct completion ping_irq;
	atomic_t pings;
	atomic_t irqs;
};

static struct mcmgpu_aux *to_mcmgpu_aux(struct device *dev)
{
	return container_of(to_mcmgpu_aux_dev(to_auxiliary_dev(dev)),
			    struct mcmgpu_aux, dev);
}

struct mcmgpu_aux_info {
	const char *name;	/* auxiliary device name */
	const char *irq_name;	/* in /proc/interrupts */
	unsigned int window;	/* MCMGPU_WINDOW_* */
	unsigned int vector;	/* MCMGPU_MSIX_VEC_* */
};

static const struct mcmgpu_aux_info mcmgpu_aux_info[MCMGPU_AUX_COUNT] = {
	[MCMGPU_AUX_IOMMU] = { MCMGPU_AUX_IOMMU_NAME, "mcmgpu-iommu",
			       MCMGPU_WINDOW_IOMMU, MCMGPU_MSIX_VEC_IOMMU },
	[MCMGPU_AUX_CXL_RC] = { MCMGPU_AUX_CXL_RC_NAME, "mcmgpu-cxl-rc",
				MCMGPU_WINDOW_CXL_RC, MCMGPU_MSIX_VEC_CXL_RC },
};

static int mcmgpu_aux_submit(struct mcmgpu_aux_dev *aux,
			     struct mcmgpu_aux_cmd *ac)
{
	struct mcmgpu_device *mdev = aux->parent;
	struct mcmgpu_cmd c = { .opcode = ac->opcode, .flags = ac->flags };
	int ret;

	memcpy(c.args, ac->args, sizeof(c.args));
	down_read(&mdev->remove_lock);
	ret = mdev->removed ? -ENODEV : mcmgpu_submit(mdev, &c);
	up_read(&mdev->remove_lock);
	ac->status = c.status;
	ac->result = c.result;
	return ret;
}

static const struct mcmgpu_aux_ops mcmgpu_aux_ops = {
	.submit = mcmgpu_aux_submit,
	.pasid_entry = mcmgpu_mem_pasid_entry,
	.pasid_stats = mcmgpu_mem_pasid_stats,
};

/* A window's vector: a ping's event ends its wait. */
static irqreturn_t mcmgpu_aux_irq(int irq, void *data)
{
	struct mcmgpu_aux *ma = data;
	u32 events = readl(ma->dev.window + MCMGPU_WIN_IRQ_STATUS);

	/* The others are the aux driver's, on the same vector. */
	if (!(events & MCMGPU_WIN_IRQ_PING))
		return IRQ_NONE;
	writel(MCMGPU_WIN_IRQ_PING, ma->dev.window + MCMGPU_WIN_IRQ_STATUS);
	atomic_inc(&ma->irqs);
	complete(&ma->ping_irq);
	return IRQ_HANDLED;
}

static ssize_t ping_show(struct device *dev, struct device_attribute *attr,
			 char *buf)
{
	struct mcmgpu_aux *ma = to_mcmgpu_aux(dev);

	return sysfs_emit(buf, "pings %d irqs %d\n", atomic_read(&ma->pings),
			  atomic_read(&ma->irqs));
}

/*
 * The attribute goes with the aux device, before its IRQ and the parent's
 * ring: kernfs waits for a store in progress and answers later ones (an
 * open file's too) ENODEV.
 */
static ssize_t ping_store(struct device *dev, struct device_attribute *attr,
			  const char *buf, size_t count)
{
	struct mcmgpu_aux *ma = to_mcmgpu_aux(dev);
	struct mcmgpu_aux_cmd cmd = {
		.opcode = MCMGPU_OP_PING,
		.args = { ma->dev.window_index },
	};
	int ret;

	mutex_lock(&ma->ping_lock);
	reinit_completion(&ma->ping_irq);
	ret = mcmgpu_aux_submit(&ma->dev, &cmd);
	if (!ret && cmd.status != MCMGPU_CMPL_OK)
		ret = -EIO;
	if (!ret) {
		atomic_inc(&ma->pings);
		if (!wait_for_completion_timeout(&ma->ping_irq, HZ))
			ret = -ETIMEDOUT;
	}
	mutex_unlock(&ma->ping_lock);
	return ret ? ret : count;
}
static DEVICE_ATTR_RW(ping);

static struct attribute *mcmgpu_aux_attrs[] = {
	&dev_attr_ping.attr,
	NULL
};
ATTRIBUTE_GROUPS(mcmgpu_aux);

static void mcmgpu_aux_release(struct device *dev)
{
	kfree(to_mcmgpu_aux(dev));
}

void mcmgpu_aux_destroy(struct mcmgpu_device *mdev)
{
	struct mcmgpu_aux_dev *aux;
	int i;

	for (i = MCMGPU_AUX_COUNT - 1; i >= 0; i--) {
		aux = mdev->aux[i];
		if (!aux)
			continue;
		/* The driver unbinds first, and the ping attribute goes. */
		auxiliary_device_delete(&aux->adev);
		writel(0, aux->window + MCMGPU_WIN_IRQ_MASK);
		free_irq(aux->irq, to_mcmgpu_aux(&aux->adev.dev));
		auxiliary_device_uninit(&aux->adev);
		mdev->aux[i] = NULL;
	}
}

static int mcmgpu_aux_add(struct mcmgpu_device *mdev, int i)
{
	const struct mcmgpu_aux_info *info = &mcmgpu_aux_info[i];
	struct mcmgpu_aux_dev *aux;
	struct mcmgpu_aux *ma;
	int ret;

	ma = kzalloc(sizeof(*ma), GFP_KERNEL);
	if (!ma)
		return -ENOMEM;
	mutex_init(&ma->ping_lock);
	init_completion(&ma->ping_irq);
	aux = &ma->dev;
	aux->ops = &mcmgpu_aux_ops;
	aux->window = mdev->regs + MCMGPU_WINDOW(info->window);
	aux->window_index = info->window;
	aux->vector = info->vector;
	aux->irq = pci_irq_vector(mdev->pdev, info->vector);
	aux->chiplets = mdev->chiplets;
	aux->vram_per_chiplet = mdev->vram_per_chiplet;
	aux->parent = mdev;
	aux->adev.name = info->name;
	aux->adev.id = mdev->id;
	aux->adev.dev.parent = &mdev->pdev->dev;
	aux->adev.dev.release = mcmgpu_aux_release;
	aux->adev.dev.groups = mcmgpu_aux_groups;
	ret = request_irq(aux->irq, mcmgpu_aux_irq, IRQF_SHARED, info->irq_name,
			  ma);
	if (ret) {
		kfree(ma);
		return ret;
	}
	writel(MCMGPU_WIN_IRQ_PING, aux->window + MCMGPU_WIN_IRQ_MASK);
	ret = auxiliary_device_init(&aux->adev);
	if (ret) {
		writel(0, aux->window + MCMGPU_WIN_IRQ_MASK);
		free_irq(aux->irq, ma);
		kfree(ma);
		return ret;
	}
	ret = auxiliary_device_add(&aux->adev);
	if (ret) {
		writel(0, aux->window + MCMGPU_WIN_IRQ_MASK);
		free_irq(aux->irq, ma);
		auxiliary_device_uninit(&aux->adev);
		return ret;
	}
	mdev->aux[i] = aux;
	return 0;
}

int mcmgpu_aux_create(struct mcmgpu_device *mdev)
{
	int i, ret;

	for (i = 0; i < MCMGPU_AUX_COUNT; i++) {
		ret = mcmgpu_aux_add(mdev, i);
		if (ret) {
			mcmgpu_aux_destroy(mdev);
			return ret;
		}
	}
	return 0;
}
