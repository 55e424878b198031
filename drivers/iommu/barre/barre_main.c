// SPDX-License-Identifier: GPL-2.0
/*
 * Barre Chord IOMMU: binds the "mcmgpu.iommu" auxiliary device. The
 * page-table walkers, PW-queue and PEC logic arrive with the Barre issue;
 * this skeleton proves the binding and reports the geometry it was given.
 */
#include <linux/auxiliary_bus.h>
#include <linux/module.h>

#include "mcmgpu_aux.h"

static int barre_iommu_probe(struct auxiliary_device *adev,
			     const struct auxiliary_device_id *id)
{
	struct mcmgpu_aux_dev *aux = to_mcmgpu_aux_dev(adev);

	dev_info(&adev->dev, "Barre IOMMU bound: %u chiplets\n", aux->chiplets);
	return 0;
}

static void barre_iommu_remove(struct auxiliary_device *adev)
{
	dev_dbg(&adev->dev, "Barre IOMMU unbound\n");
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
};
module_auxiliary_driver(barre_iommu_driver);

MODULE_DESCRIPTION("Barre Chord IOMMU for the mcmgpu device");
MODULE_LICENSE("GPL");
