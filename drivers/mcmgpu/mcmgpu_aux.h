/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Auxiliary devices that mcmgpu.ko creates for the Barre IOMMU
 * ("mcmgpu.iommu") and the GPU-side CXL root complex ("mcmgpu.cxl_rc").
 */
#ifndef MCMGPU_AUX_H
#define MCMGPU_AUX_H

#include <linux/auxiliary_bus.h>

#define MCMGPU_AUX_IOMMU_NAME	"iommu"
#define MCMGPU_AUX_CXL_RC_NAME	"cxl_rc"

struct mcmgpu_aux_dev {
	struct auxiliary_device adev;
	void __iomem *regs;	/* BAR0 of the parent device */
	u32 chiplets;
	u64 vram_per_chiplet;
};

static inline struct mcmgpu_aux_dev *
to_mcmgpu_aux_dev(struct auxiliary_device *adev)
{
	return container_of(adev, struct mcmgpu_aux_dev, adev);
}

#endif /* MCMGPU_AUX_H */
