/*
 * mcmgpu IOMMU engine: the register window barre_iommu.ko drives, with its
 * own MSI-X vector. Barre's ATS request and response rings will live here;
 * today the window holds the common registers only.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "mcmgpu_engine.h"

const MCMGPUEngine mcmgpu_iommu_engine = {
    .name = "iommu",
    .not_migrated = "no state besides the window's common registers",
    .window = MCMGPU_WINDOW_IOMMU,
    .window_ident = 0x554d4f49,     /* "IOMU", little-endian */
};
