/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The GPU page-table format's one walker (the format: uapi/mcmgpu_hw.h),
 * freestanding: the device (qemu-device/mcmgpu.c, on guest RAM), the
 * allocator (drivers/mcmgpu/gpu_alloc.c, on its own tables) and the IOMMU
 * (drivers/iommu/barre/barre_walk.c) all walk with it, each reading
 * entries its own way.
 */
#ifndef MCMGPU_PT_H
#define MCMGPU_PT_H

#include "mcmgpu_compat.h"
#include "mcmgpu_hw.h"

/* The index of vpn's entry in its level's table (0 = the root's). */
static inline u32 mcmgpu_pt_index(u64 vpn, int level)
{
	return (vpn >> (9 * (MCMGPU_PT_LEVELS - 1 - level))) &
		(MCMGPU_PT_ENTRIES - 1);
}

/*
 * vpn's leaf PTE under root: 0 when root is 0, vpn is past the VA space or
 * an entry on the way is not valid. read_entry(priv, table, index) reads
 * one entry of the table at physical address table, in CPU byte order (0
 * when it cannot be read).
 */
static inline u64 mcmgpu_pt_walk(u64 root, u64 vpn,
				 u64 (*read_entry)(void *priv, u64 table,
						   u32 index),
				 void *priv)
{
	u64 table = root, e = 0;
	int level;

	if (!root || vpn >> (MCMGPU_VA_BITS - MCMGPU_PAGE_SHIFT))
		return 0;
	for (level = 0; level < MCMGPU_PT_LEVELS; level++) {
		e = read_entry(priv, table, mcmgpu_pt_index(vpn, level));
		if (!(e & MCMGPU_PTE_VALID))
			return 0;
		table = e & MCMGPU_PTE_TABLE_MASK;
	}
	return e;
}

#endif /* MCMGPU_PT_H */
