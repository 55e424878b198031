// SPDX-License-Identifier: GPL-2.0
/*
 * The auxiliary devices of mcmgpu.ko and the API their drivers use
 * (include/mcmgpu_aux.h): each owns a BAR0 register window and an MSI-X
 * vector, and submits commands through the device's ring.
 */
#include <linux/interrupt.h>
#include <linux/io.h>
#include <linux/slab.h>

#include "mcmgpu.h"

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

static void mcmgpu_aux_set_irq_handler(struct mcmgpu_aux_dev *aux,
				       mcmgpu_aux_irq_fn fn)
{
	WRITE_ONCE(aux->irq_fn, fn);
	if (!fn)
		synchronize_irq(aux->irq);
}

static void mcmgpu_aux_set_iommu(struct mcmgpu_aux_dev *aux,
				 struct mcmgpu_iommu *iommu)
{
	struct mcmgpu_device *mdev = aux->parent;

	down_write(&mdev->iommu_lock);
	mdev->iommu = iommu;
	/* A reloaded IOMMU starts empty: the live objects register again. */
	if (iommu)
		mcmgpu_engines_iommu_bind(mdev, iommu);
	up_write(&mdev->iommu_lock);
}

/* The bound IOMMU, held until mcmgpu_iommu_put(); NULL if none. */
struct mcmgpu_iommu *mcmgpu_iommu_get(struct mcmgpu_device *mdev)
{
	down_read(&mdev->iommu_lock);
	if (mdev->iommu)
		return mdev->iommu;
	up_read(&mdev->iommu_lock);
	return NULL;
}

void mcmgpu_iommu_put(struct mcmgpu_device *mdev)
{
	up_read(&mdev->iommu_lock);
}

static const struct mcmgpu_aux_ops mcmgpu_aux_ops = {
	.submit = mcmgpu_aux_submit,
	.set_irq_handler = mcmgpu_aux_set_irq_handler,
	.set_iommu = mcmgpu_aux_set_iommu,
};

/* A window's vector: acknowledge its events, hand them to its driver. */
static irqreturn_t mcmgpu_aux_irq(int irq, void *data)
{
	struct mcmgpu_aux_dev *aux = data;
	u32 events = readl(aux->window + MCMGPU_WIN_IRQ_STATUS);
	mcmgpu_aux_irq_fn fn;

	if (!events)
		return IRQ_NONE;
	writel(events, aux->window + MCMGPU_WIN_IRQ_STATUS);
	fn = READ_ONCE(aux->irq_fn);
	if (fn)
		fn(aux, events);
	return IRQ_HANDLED;
}

static void mcmgpu_aux_release(struct device *dev)
{
	kfree(to_mcmgpu_aux_dev(to_auxiliary_dev(dev)));
}

void mcmgpu_aux_destroy(struct mcmgpu_device *mdev)
{
	struct mcmgpu_aux_dev *aux;
	int i;

	for (i = MCMGPU_AUX_COUNT - 1; i >= 0; i--) {
		aux = mdev->aux[i];
		if (!aux)
			continue;
		/* The driver unbinds first, so no callback is left. */
		auxiliary_device_delete(&aux->adev);
		writel(0, aux->window + MCMGPU_WIN_IRQ_MASK);
		free_irq(aux->irq, aux);
		auxiliary_device_uninit(&aux->adev);
		mdev->aux[i] = NULL;
	}
}

static int mcmgpu_aux_add(struct mcmgpu_device *mdev, int i)
{
	const struct mcmgpu_aux_info *info = &mcmgpu_aux_info[i];
	struct mcmgpu_aux_dev *aux;
	int ret;

	aux = kzalloc(sizeof(*aux), GFP_KERNEL);
	if (!aux)
		return -ENOMEM;
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
	ret = request_irq(aux->irq, mcmgpu_aux_irq, 0, info->irq_name, aux);
	if (ret) {
		kfree(aux);
		return ret;
	}
	writel(~0U, aux->window + MCMGPU_WIN_IRQ_MASK);
	ret = auxiliary_device_init(&aux->adev);
	if (ret) {
		writel(0, aux->window + MCMGPU_WIN_IRQ_MASK);
		free_irq(aux->irq, aux);
		kfree(aux);
		return ret;
	}
	ret = auxiliary_device_add(&aux->adev);
	if (ret) {
		writel(0, aux->window + MCMGPU_WIN_IRQ_MASK);
		free_irq(aux->irq, aux);
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
