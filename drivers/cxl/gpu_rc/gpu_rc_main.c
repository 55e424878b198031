// SPDX-License-Identifier: GPL-2.0
/*
 * GPU-side CXL root complex: binds the "mcmgpu.cxl_rc" auxiliary device,
 * with its register window and MSI-X vector. Enumeration and HDM decoder
 * setup arrive with the CXL-GPU issue; today it proves the round trip (a
 * command submitted, an interrupt on its own vector) through "ping".
 */
#include <linux/auxiliary_bus.h>
#include <linux/module.h>
#include <linux/slab.h>

#include "mcmgpu_aux.h"
#include "mcmgpu_aux_ping.h"

struct gpu_rc {
	struct mcmgpu_aux_dev *aux;
	struct mcmgpu_aux_ping ping;
};

static void gpu_rc_irq(struct mcmgpu_aux_dev *aux, u32 events)
{
	struct gpu_rc *rc = dev_get_drvdata(&aux->adev.dev);

	mcmgpu_aux_ping_irq(&rc->ping, events);
}

static ssize_t ping_show(struct device *dev, struct device_attribute *attr,
			 char *buf)
{
	struct gpu_rc *rc = dev_get_drvdata(dev);

	return mcmgpu_aux_ping_show(&rc->ping, buf);
}

static ssize_t ping_store(struct device *dev, struct device_attribute *attr,
			  const char *buf, size_t count)
{
	struct gpu_rc *rc = dev_get_drvdata(dev);
	int ret = mcmgpu_aux_ping(rc->aux, &rc->ping);

	return ret ? ret : count;
}
static DEVICE_ATTR_RW(ping);

static struct attribute *gpu_rc_attrs[] = {
	&dev_attr_ping.attr,
	NULL
};
ATTRIBUTE_GROUPS(gpu_rc);

static int gpu_rc_probe(struct auxiliary_device *adev,
			const struct auxiliary_device_id *id)
{
	struct mcmgpu_aux_dev *aux = to_mcmgpu_aux_dev(adev);
	struct gpu_rc *rc;

	rc = devm_kzalloc(&adev->dev, sizeof(*rc), GFP_KERNEL);
	if (!rc)
		return -ENOMEM;
	rc->aux = aux;
	mcmgpu_aux_ping_init(&rc->ping);
	dev_set_drvdata(&adev->dev, rc);
	aux->ops->set_irq_handler(aux, gpu_rc_irq);
	dev_info(&adev->dev, "GPU CXL root complex bound: %u chiplets, window %u, vector %u\n",
		 aux->chiplets, aux->window_index, aux->vector);
	return 0;
}

static void gpu_rc_remove(struct auxiliary_device *adev)
{
	struct mcmgpu_aux_dev *aux = to_mcmgpu_aux_dev(adev);

	aux->ops->set_irq_handler(aux, NULL);
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
	.driver.dev_groups = gpu_rc_groups,
};
module_auxiliary_driver(gpu_rc_driver);

MODULE_DESCRIPTION("GPU-side CXL root complex for the mcmgpu device");
MODULE_LICENSE("GPL");
