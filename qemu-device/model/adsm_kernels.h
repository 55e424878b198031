/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The device's built-in compute kernels for ADSM (uapi/mcmgpu_adsm.h):
 * what they compute, their argument checks and their modeled cost.
 * Freestanding C: the device runs them on GPU memory through the
 * context's page table (engine_adsm.c), the tool's --host replay and the
 * host tests on plain memory, so both compute the same bytes and cycles.
 */
#ifndef MCMGPU_ADSM_KERNELS_H
#define MCMGPU_ADSM_KERNELS_H

#include "mcmgpu_compat.h"
#include "mcmgpu_adsm.h"

/* How a kernel reaches memory: GPU virtual addresses; 0 or -EFAULT. */
struct adsm_mem_ops {
    int (*read)(void *priv, u64 va, void *buf, u32 len);
    int (*write)(void *priv, u64 va, const void *buf, u32 len);
};

/*
 * Checks a kernel before it runs: 0, or -EINVAL with err naming the field
 * (err->index: 1-based va, 0 the kernel). chiplets: the device's count.
 */
int adsm_kernel_check(const struct mcmgpu_adsm_kernel *k, u32 chiplets,
              struct mcmgpu_record_error *err);
/*
 * Runs a checked kernel. 0, or -EFAULT when an address does not translate
 * (err names the argument and the address; the elements before it are
 * written). res gets the modeled cycles and the bytes moved.
 */
int adsm_kernel_run(const struct mcmgpu_adsm_kernel *k, u32 chiplets,
            const struct adsm_mem_ops *mem, void *priv,
            struct mcmgpu_adsm_kernel_result *res);
/* The bytes each va argument of k spans (0: unused). */
u64 adsm_kernel_span(const struct mcmgpu_adsm_kernel *k, int arg);

#endif /* MCMGPU_ADSM_KERNELS_H */
