/*
 * mcmgpu DMA engine: copies between guest RAM and GPU memory.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "mcmgpu_engine.h"

/* args[0] host address, args[1] GPU address, args[2] length. */
static uint32_t dma_copy(MCMGPUState *s, MCMGPUContext *ctx, uint16_t flags,
                         const uint64_t *args, MCMGPUCmdOut *out)
{
    uint32_t st;

    st = mcmgpu_check_dma(mcmgpu_geometry(s), flags, args[0], args[1],
                          args[2]);
    if (st == MCMGPU_CMPL_OK) {
        st = mcmgpu_gpu_host_copy(s, args[1], args[0], args[2],
                                  flags & MCMGPU_DMA_FLAG_TO_HOST);
    }
    if (st == MCMGPU_CMPL_OK) {
        out->result = args[2];
        out->cycles = mcmgpu_dma_cycles(args[2]);
    }
    return st;
}

static const MCMGPUCommand dma_commands[] = {
    { MCMGPU_OP_DMA_COPY, "DMA_COPY", MCMGPU_DMA_FLAG_TO_HOST, false,
      dma_copy },
    { 0 }
};

const MCMGPUEngine mcmgpu_dma_engine = {
    .name = "dma",
    .feature = MCMGPU_FEAT_DMA_COPY,
    .commands = dma_commands,
    .not_migrated = "stateless",
    .window = -1,
};
