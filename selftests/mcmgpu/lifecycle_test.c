// SPDX-License-Identifier: GPL-2.0
/*
 * Lifecycle (issue 9): cycles of unload, load, use (a DMA round trip and a
 * CPElide sequence) of all three modules; in every third cycle a file stays
 * open across an unbind of the PCI driver and is closed only after it. The
 * modules must unload every time (no reference left behind), the device
 * node and the auxiliary devices must come and go with them, and the GPU
 * memory written before the first cycle must survive. MCMGPU_LIFECYCLE_CYCLES
 * sets the cycles (default 20; docs/testing.md gives a 100-cycle run). Under the
 * debug kernel kmemleak would also see what a cycle leaks; on the Debian
 * kernel a kernel report fails the run (tools/guest/init).
 */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "../lib/mcmgpu_test.h"

static int use_device(void)
{
	struct mcmgpu_cpe_launch_result res;
	int fd = mt_open_dev(), ret;

	if (fd < 0)
		return -errno;
	ret = mt_roundtrip(fd, 4096, 8192);
	if (!ret)
		ret = mt_launch_reset(fd);
	if (!ret)
		ret = mt_launch_kernel(fd, &res);
	if (!ret && res.stats.kernels != 1)
		ret = -EPROTO;
	close(fd);
	return ret;
}

FIXTURE(lifecycle) {
	int unused;
};

FIXTURE_SETUP(lifecycle)
{
}

FIXTURE_TEARDOWN(lifecycle)
{
}

TEST_F_TIMEOUT(lifecycle, load_use_unload_cycles, 600)
{
	uint64_t cycles = mt_env_u64("MCMGPU_LIFECYCLE_CYCLES", 20);
	uint8_t pattern[4096], back[4096];
	char slot[NAME_MAX + 1];
	struct mcmgpu_info info;
	uint64_t i, held = 0;
	int fd;

	ASSERT_EQ(0, mt_find_slot(slot, sizeof(slot)));
	mt_fill_random(pattern, sizeof(pattern));
	fd = mt_open_dev();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, mt_get_info(fd, &info));
	ASSERT_EQ(0, mt_dma(fd, 0, pattern, info.vram_total - sizeof(pattern),
			    sizeof(pattern)));
	close(fd);
	for (i = 0; i < cycles; i++) {
		struct mcmgpu_info gone;
		int stale;

		if (i % 3 == 2) {
			/* A file held across the unbind: ENODEV, then closed. */
			stale = mt_open_dev();
			ASSERT_LE(0, stale);
			ASSERT_EQ(0, mt_write_sysfs("/sys/bus/pci/drivers/mcmgpu/unbind",
						    slot));
			EXPECT_EQ(-ENODEV, mt_get_info(stale, &gone));
			close(stale);
			held++;
		}
		ASSERT_EQ(0, mt_unload_modules()) TH_LOG("cycle %llu",
							 (unsigned long long)i);
		EXPECT_NE(0, access(MT_DEV_PATH, F_OK));
		EXPECT_NE(0, access("/sys/bus/auxiliary/devices/mcmgpu.iommu.0", F_OK));
		ASSERT_EQ(0, mt_load_modules());
		EXPECT_EQ(0, access("/sys/bus/auxiliary/devices/mcmgpu.cxl_rc.0/driver",
				    F_OK));
		ASSERT_EQ(0, use_device()) TH_LOG("cycle %llu", (unsigned long long)i);
	}
	fd = mt_open_dev();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, mt_dma(fd, MCMGPU_DMA_FROM_GPU, back,
			    info.vram_total - sizeof(back), sizeof(back)));
	EXPECT_EQ(0, memcmp(pattern, back, sizeof(back)));
	close(fd);
	TH_LOG("%llu cycles, %llu with a file held across an unbind",
	       (unsigned long long)cycles, (unsigned long long)held);
}

TEST_HARNESS_MAIN
