/*
 * mcmgpu CXL root complex engine: the register window gpu_rc.ko drives,
 * with its own MSI-X vector. The HDM decoders and component registers of
 * the GPU's CXL root ports will live here; today the window holds the
 * common registers only.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "mcmgpu_engine.h"

const MCMGPUEngine mcmgpu_cxl_rc_engine = {
    .name = "cxl_rc",
    .not_migrated = "no state besides the window's common registers",
    .window = MCMGPU_WINDOW_CXL_RC,
    .window_ident = 0x524c5843,     /* "CXLR", little-endian */
};
