/*
 * Freestanding validation of guest-supplied commands: every bound the
 * device applies before it touches guest or GPU memory.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "mcmgpu_cmd.h"
#include "mcmgpu_hw.h"

u64 mcmgpu_geometry_total(const struct mcmgpu_geometry *g)
{
    return (u64)g->chiplets * g->vram_per_chiplet;
}

/* True when [addr, addr + len) lies inside the chiplet memories. */
bool mcmgpu_gpu_range_ok(const struct mcmgpu_geometry *g, u64 addr, u64 len)
{
    u64 total = mcmgpu_geometry_total(g);

    return len <= total && addr <= total - len;
}

/* Returns MCMGPU_CMPL_OK or the completion status that rejects the copy. */
u32 mcmgpu_check_dma(const struct mcmgpu_geometry *g, u16 flags, u64 host,
                     u64 gpu, u64 len)
{
    if (flags & ~MCMGPU_DMA_FLAG_TO_HOST) {
        return MCMGPU_CMPL_BAD_FLAGS;
    }
    if (len == 0 || len > MCMGPU_DMA_MAX_LEN) {
        return MCMGPU_CMPL_BAD_LENGTH;
    }
    if (!mcmgpu_gpu_range_ok(g, gpu, len)) {
        return MCMGPU_CMPL_BAD_GPU_ADDR;
    }
    if (host + len < host) {
        return MCMGPU_CMPL_DMA_FAULT;
    }
    return MCMGPU_CMPL_OK;
}

u64 mcmgpu_dma_cycles(u64 len)
{
    return MCMGPU_DMA_SETUP_CYCLES +
           (len + MCMGPU_DMA_BYTES_PER_CYCLE - 1) / MCMGPU_DMA_BYTES_PER_CYCLE;
}
