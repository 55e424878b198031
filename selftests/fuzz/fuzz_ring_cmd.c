// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the device's check of a ring DMA command against its
 * geometry. Accepted means the copy lies inside GPU memory and its host
 * range does not wrap, checked here in 128-bit arithmetic.
 */
#include <stdint.h>
#include <string.h>

#include "mcmgpu_cmd.h"
#include "mcmgpu_hw.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct {
		u32 chiplets;
		u16 flags;
		u64 vram, host, gpu, len;
	} in;
	struct mcmgpu_geometry g;
	unsigned __int128 end;

	if (size < sizeof(in))
		return 0;
	memcpy(&in, data, sizeof(in));
	g.chiplets = in.chiplets % (MCMGPU_MAX_CHIPLETS + 1);
	g.vram_per_chiplet = in.vram >> (in.vram & 63);
	if (mcmgpu_check_dma(&g, in.flags, in.host, in.gpu, in.len) != MCMGPU_CMPL_OK)
		return 0;
	end = (unsigned __int128)in.gpu + in.len;
	if (!in.len || in.len > MCMGPU_DMA_MAX_LEN ||
	    end > (unsigned __int128)g.chiplets * g.vram_per_chiplet ||
	    (unsigned __int128)in.host + in.len > ((unsigned __int128)1 << 64) ||
	    in.flags & ~MCMGPU_DMA_FLAG_TO_HOST)
		__builtin_trap();
	return 0;
}
