// SPDX-License-Identifier: GPL-2.0
/*
 * Barre Chord IOMMU: binds the "mcmgpu.iommu" auxiliary device, with its
 * register window and MSI-X vector. The page-table walkers, PW-queue and
 * PEC logic arrive with the Barre issue; today it proves the round trip
 * (a command submitted, an interrupt on its own vector) through "ping".
 */
#include <linux/auxiliary_bus.h>
#include <linux/module.h>
#include <linux/slab.h>

#include "mcmgpu_aux.h"
#include "mcmgpu_aux_ping.h"

struct barre_iommu {
	struct mcmgpu_aux_dev *aux;
	struct mcmgpu_aux_ping ping;
};

static void barre_iommu_irq(struct mcmgpu_aux_dev *aux, u32 events)
{
	struct barre_iommu *bi = dev_get_drvdata(&aux->adev.dev);

	mcmgpu_aux_ping_irq(&bi->ping, events);
}

static ssize_t ping_show(struct device *dev, struct device_attribute *attr,
			 char *buf)
{
	struct barre_iommu *bi = dev_get_drvdata(dev);

	return mcmgpu_aux_ping_show(&bi->ping, buf);
}

static ssize_t ping_store(struct device *dev, struct device_attribute *attr,
			  const char *buf, size_t count)
{
	struct barre_iommu *bi = dev_get_drvdata(dev);
	int ret = mcmgpu_aux_ping(bi->aux, &bi->ping);

	return ret ? ret : count;
}
static DEVICE_ATTR_RW(ping);

static struct attribute *barre_iommu_attrs[] = {
	&dev_attr_ping.attr,
	NULL
};
ATTRIBUTE_GROUPS(barre_iommu);

static int barre_iommu_probe(struct auxiliary_device *adev,
			     const struct auxiliary_device_id *id)
{
	struct mcmgpu_aux_dev *aux = to_mcmgpu_aux_dev(adev);
	struct barre_iommu *bi;

	bi = devm_kzalloc(&adev->dev, sizeof(*bi), GFP_KERNEL);
	if (!bi)
		return -ENOMEM;
	bi->aux = aux;
	mcmgpu_aux_ping_init(&bi->ping);
	dev_set_drvdata(&adev->dev, bi);
	aux->ops->set_irq_handler(aux, barre_iommu_irq);
	dev_info(&adev->dev, "Barre IOMMU bound: %u chiplets, window %u, vector %u\n",
		 aux->chiplets, aux->window_index, aux->vector);
	return 0;
}

static void barre_iommu_remove(struct auxiliary_device *adev)
{
	struct mcmgpu_aux_dev *aux = to_mcmgpu_aux_dev(adev);

	aux->ops->set_irq_handler(aux, NULL);
}

static const struct auxiliary_device_id barre_iommu_ids[] = {
	{ .name = "mcmgpu." MCMGPU_AUX_IOMMU_NAME },
	{ }
};
MODULE_DEVICE_TABLE(auxiliary, barre_iommu_ids);

static struct auxiliary_driver barre_iommu_driver = {
	.name = "barre_iommu",
	.probe = barre_iommu_probe,
	.remove = barre_iommu_remove,
	.id_table = barre_iommu_ids,
	.driver.dev_groups = barre_iommu_groups,
};
module_auxiliary_driver(barre_iommu_driver);

MODULE_DESCRIPTION("Barre Chord IOMMU for the mcmgpu device");
MODULE_LICENSE("GPL");
