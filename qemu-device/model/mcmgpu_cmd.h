/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Freestanding validation of guest-supplied commands, shared by the QEMU
 * device and the host tests.
 */
#ifndef MCMGPU_CMD_H
#define MCMGPU_CMD_H

#include "mcmgpu_compat.h"

struct mcmgpu_geometry {
    u32 chiplets;
    u64 vram_per_chiplet;
};

u64 mcmgpu_geometry_total(const struct mcmgpu_geometry *g);
bool mcmgpu_gpu_range_ok(const struct mcmgpu_geometry *g, u64 addr, u64 len);
u32 mcmgpu_check_dma(const struct mcmgpu_geometry *g, u16 flags, u64 host,
                     u64 gpu, u64 len);
u64 mcmgpu_dma_cycles(u64 len);

#endif /* MCMGPU_CMD_H */
