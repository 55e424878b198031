// SPDX-License-Identifier: GPL-2.0
/*
 * GPU-side CXL root complex: binds the "mcmgpu.cxl_rc" auxiliary device.
 * Enumeration and HDM decoder setup arrive with the CXL-GPU issue; this
 * skeleton proves the binding.
 */
#include <linux/auxiliary_bus.h>
#include <linux/module.h>

#include "mcmgpu_aux.h"

static int gpu_rc_probe(struct auxiliary_device *adev,
			const struct auxiliary_device_id *id)
{
	struct mcmgpu_aux_dev *aux = to_mcmgpu_aux_dev(adev);

	dev_info(&adev->dev, "GPU CXL root complex bound: %u chiplets\n",
		 aux->chiplets);
	return 0;
}

static void gpu_rc_remove(struct auxiliary_device *adev)
{
	dev_dbg(&adev->dev, "GPU CXL root complex unbound\n");
}

static const struct auxiliary_device_id gpu_rc_ids[] = {
	{ .name = "mcmgpu." MCMGPU_AUX_CXL_RC_NAME },
	{ }
};
MODULE_DEVICE_TABLE(auxiliary, gpu_rc_ids);

static struct auxiliary_driver gpu_rc_driver = {
	.name = "gpu_rc",
	.probe = gpu_rc_probe,
	.remove = gpu_rc_remove,
	.id_table = gpu_rc_ids,
};
module_auxiliary_driver(gpu_rc_driver);

MODULE_DESCRIPTION("GPU-side CXL root complex for the mcmgpu device");
MODULE_LICENSE("GPL");
