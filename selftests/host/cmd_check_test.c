// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests of the freestanding command checks the device applies
 * (qemu-device/model/mcmgpu_cmd.c) and of the ABI layouts in uapi/.
 */
#include <stddef.h>
#include <stdint.h>

#include "kselftest_harness.h"
#include "../lib/mcmgpu_test.h"
#include "mcmgpu_cmd.h"
#include "mcmgpu_hw.h"
#include "mcmgpu_gpu.h"
#include "mcmgpu_ioctl.h"

static const struct mcmgpu_geometry geom4 = {
	.chiplets = 4, .vram_per_chiplet = 64ULL << 20,
};

static uint64_t rng = 88172645463325252ULL;

static uint64_t rnd(void)
{
	return mt_xorshift64(&rng);
}

TEST(geometry_total)
{
	struct mcmgpu_geometry g8 = { .chiplets = 8, .vram_per_chiplet = 1ULL << 30 };

	EXPECT_EQ(256ULL << 20, mcmgpu_geometry_total(&geom4));
	EXPECT_EQ(8ULL << 30, mcmgpu_geometry_total(&g8));
}

TEST(gpu_range_edges)
{
	uint64_t total = mcmgpu_geometry_total(&geom4);

	EXPECT_TRUE(mcmgpu_gpu_range_ok(&geom4, 0, total));
	EXPECT_TRUE(mcmgpu_gpu_range_ok(&geom4, total - 1, 1));
	EXPECT_TRUE(mcmgpu_gpu_range_ok(&geom4, total, 0));
	EXPECT_FALSE(mcmgpu_gpu_range_ok(&geom4, total, 1));
	EXPECT_FALSE(mcmgpu_gpu_range_ok(&geom4, 1, total));
	EXPECT_FALSE(mcmgpu_gpu_range_ok(&geom4, UINT64_MAX, 2));
	EXPECT_FALSE(mcmgpu_gpu_range_ok(&geom4, 2, UINT64_MAX));
	EXPECT_FALSE(mcmgpu_gpu_range_ok(&geom4, UINT64_MAX - 3, 16));
}

/* The check equals exact 128-bit arithmetic on random and edge inputs. */
TEST(gpu_range_matches_wide_arithmetic)
{
	uint64_t total = mcmgpu_geometry_total(&geom4);
	int i;

	for (i = 0; i < 200000; i++) {
		uint64_t addr = rnd(), len = rnd();
		unsigned __int128 end;

		switch (i % 4) {
		case 0:
			addr %= total + 2;
			len %= total + 2;
			break;
		case 1:
			addr = total - (addr % 64);
			len %= 128;
			break;
		case 2:
			addr = UINT64_MAX - (addr % 64);
			len %= 128;
			break;
		}
		end = (unsigned __int128)addr + len;
		ASSERT_EQ(end <= total, mcmgpu_gpu_range_ok(&geom4, addr, len))
			TH_LOG("addr %#llx len %#llx", (unsigned long long)addr,
			       (unsigned long long)len);
	}
}

TEST(dma_check_statuses)
{
	uint64_t total = mcmgpu_geometry_total(&geom4);

	EXPECT_EQ(MCMGPU_CMPL_OK, mcmgpu_check_dma(&geom4, 0, 0x1000, 0, 4096));
	EXPECT_EQ(MCMGPU_CMPL_OK, mcmgpu_check_dma(&geom4, MCMGPU_DMA_FLAG_TO_HOST,
						   0x1000, total - 1, 1));
	EXPECT_EQ(MCMGPU_CMPL_BAD_FLAGS, mcmgpu_check_dma(&geom4, 2, 0x1000, 0, 16));
	EXPECT_EQ(MCMGPU_CMPL_BAD_LENGTH, mcmgpu_check_dma(&geom4, 0, 0x1000, 0, 0));
	EXPECT_EQ(MCMGPU_CMPL_BAD_LENGTH,
		  mcmgpu_check_dma(&geom4, 0, 0x1000, 0, MCMGPU_DMA_MAX_LEN + 1ULL));
	EXPECT_EQ(MCMGPU_CMPL_OK,
		  mcmgpu_check_dma(&geom4, 0, 0x1000, 0, MCMGPU_DMA_MAX_LEN));
	EXPECT_EQ(MCMGPU_CMPL_BAD_GPU_ADDR,
		  mcmgpu_check_dma(&geom4, 0, 0x1000, total, 1));
	EXPECT_EQ(MCMGPU_CMPL_BAD_GPU_ADDR,
		  mcmgpu_check_dma(&geom4, 0, 0x1000, UINT64_MAX - 3, 16));
	EXPECT_EQ(MCMGPU_CMPL_DMA_FAULT,
		  mcmgpu_check_dma(&geom4, 0, UINT64_MAX - 3, 0, 16));
}

TEST(dma_cycles_model)
{
	EXPECT_EQ(MCMGPU_DMA_SETUP_CYCLES + 1, mcmgpu_dma_cycles(1));
	EXPECT_EQ(MCMGPU_DMA_SETUP_CYCLES + 1,
		  mcmgpu_dma_cycles(MCMGPU_DMA_BYTES_PER_CYCLE));
	EXPECT_EQ(MCMGPU_DMA_SETUP_CYCLES + 2,
		  mcmgpu_dma_cycles(MCMGPU_DMA_BYTES_PER_CYCLE + 1));
	EXPECT_EQ(MCMGPU_DMA_SETUP_CYCLES + (1 << 20) / MCMGPU_DMA_BYTES_PER_CYCLE,
		  mcmgpu_dma_cycles(1 << 20));
}

/* The ABI is fixed: these sizes and offsets never change once published. */
TEST(abi_layout)
{
	EXPECT_EQ(MCMGPU_HW_CMD_SIZE, sizeof(struct mcmgpu_hw_cmd));
	EXPECT_EQ(MCMGPU_HW_CMPL_SIZE, sizeof(struct mcmgpu_hw_cmpl));
	EXPECT_EQ(16, offsetof(struct mcmgpu_hw_cmd, args));
	EXPECT_EQ(8, offsetof(struct mcmgpu_hw_cmpl, status));
	EXPECT_EQ(24, offsetof(struct mcmgpu_hw_cmpl, cycles));
	EXPECT_EQ(MCMGPU_INFO_SIZE_VER0, sizeof(struct mcmgpu_info));
	EXPECT_EQ(MCMGPU_DMA_SIZE_VER0, sizeof(struct mcmgpu_dma));
	EXPECT_EQ(0, offsetof(struct mcmgpu_info, size));
	EXPECT_EQ(0, offsetof(struct mcmgpu_dma, size));
	EXPECT_EQ(16, offsetof(struct mcmgpu_info, vram_per_chiplet));
	EXPECT_EQ(24, offsetof(struct mcmgpu_dma, length));
	/* The GPU core's ioctls and DMA records. */
	EXPECT_EQ(MCMGPU_GPU_LOAD_SIZE_VER0, sizeof(struct mcmgpu_gpu_load));
	EXPECT_EQ(MCMGPU_GPU_RUN_SIZE_VER1, sizeof(struct mcmgpu_gpu_run));
	EXPECT_EQ(MCMGPU_GPU_RUN_SIZE_VER0,
		  offsetof(struct mcmgpu_gpu_run, streams));
	EXPECT_EQ(MCMGPU_GPU_STATS_SIZE_VER0, sizeof(struct mcmgpu_gpu_stats));
	EXPECT_EQ(MCMGPU_GPU_OBJECTS_SIZE_VER0,
		  sizeof(struct mcmgpu_gpu_objects));
	EXPECT_EQ(32, offsetof(struct mcmgpu_gpu_objects, msg_ptr));
	EXPECT_EQ(16, sizeof(struct mcmgpu_gpu_object));
	EXPECT_EQ(40, offsetof(struct mcmgpu_gpu_run, msg_ptr));
	EXPECT_EQ(80, offsetof(struct mcmgpu_gpu_stats, error));
	EXPECT_EQ(528, sizeof(struct mcmgpu_gpu_start));
	EXPECT_EQ(312, sizeof(struct mcmgpu_gpu_result));
	EXPECT_EQ(56, offsetof(struct mcmgpu_gpu_result, msg));
	/* Registers of the last chiplet stay below the MSI-X table. */
	EXPECT_LT(MCMGPU_REG_CHIPLET(MCMGPU_MAX_CHIPLETS, 0),
		  MCMGPU_MSIX_TABLE_OFFSET);
}

TEST_HARNESS_MAIN
