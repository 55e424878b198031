// SPDX-License-Identifier: GPL-2.0
/*
 * Foundation kselftests, run inside the guest by tools/vm-run: the device
 * is found and bound, GET_INFO matches the device properties, DMA round
 * trips are byte-exact in every chiplet, bad ioctl input gets the
 * documented errno and leaves the device usable, the device itself rejects
 * bad rings and commands, and the modules unload and reload.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "../lib/mcmgpu_test.h"
#include "mcmgpu_barre.h"

#define TIMEOUT_PARAM	"/sys/module/mcmgpu/parameters/cmd_timeout_ms"

FIXTURE(dev) {
	int fd;
	struct mcmgpu_info info;
};

FIXTURE_SETUP(dev)
{
	self->fd = mt_open_dev();
	ASSERT_LE(0, self->fd) TH_LOG("open %s: %s", MT_DEV_PATH, strerror(errno));
	ASSERT_EQ(0, mt_get_info(self->fd, &self->info));
}

FIXTURE_TEARDOWN(dev)
{
	close(self->fd);
}

TEST(device_found_and_bound)
{
	char slot[NAME_MAX + 1], path[PATH_MAX], target[PATH_MAX];
	struct stat st;
	ssize_t n;

	ASSERT_EQ(0, mt_find_slot(slot, sizeof(slot)));
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/driver", slot);
	n = readlink(path, target, sizeof(target) - 1);
	ASSERT_LT(0, n);
	target[n] = '\0';
	EXPECT_STREQ("mcmgpu", strrchr(target, '/') + 1);
	EXPECT_EQ(0, stat(MT_DEV_PATH, &st));
	EXPECT_TRUE(S_ISCHR(st.st_mode));
	/* The auxiliary devices exist and their drivers are bound. */
	EXPECT_EQ(0, access("/sys/bus/auxiliary/devices/mcmgpu.iommu.0/driver", F_OK));
	EXPECT_EQ(0, access("/sys/bus/auxiliary/devices/mcmgpu.cxl_rc.0/driver", F_OK));
}

TEST_F(dev, get_info_matches_device_properties)
{
	uint64_t chiplets = mt_expect_chiplets();
	uint64_t vram = mt_expect_vram_per_chiplet();

	EXPECT_EQ(sizeof(struct mcmgpu_info), self->info.size);
	EXPECT_EQ(chiplets, self->info.chiplets);
	EXPECT_EQ(vram, self->info.vram_per_chiplet);
	EXPECT_EQ(chiplets * vram, self->info.vram_total);
	EXPECT_LE(self->info.vram_total, self->info.vram_bar_size);
	EXPECT_EQ(MCMGPU_HW_VERSION, self->info.hw_version);
	EXPECT_TRUE(self->info.features & MCMGPU_FEAT_DMA_COPY);
}

TEST_F(dev, get_info_extensible_size)
{
	struct {
		struct mcmgpu_info info;
		uint8_t future[16];
	} big;
	struct mcmgpu_info info;

	/* A newer, larger struct with a zero tail is accepted. */
	memset(&big, 0, sizeof(big));
	big.info.size = sizeof(big);
	ASSERT_EQ(0, ioctl(self->fd, MCMGPU_IOCTL_GET_INFO, &big));
	EXPECT_EQ(sizeof(struct mcmgpu_info), big.info.size);
	EXPECT_EQ(self->info.chiplets, big.info.chiplets);

	/* A non-zero unknown tail is refused. */
	memset(&big, 0, sizeof(big));
	big.info.size = sizeof(big);
	big.future[3] = 1;
	EXPECT_EQ(-1, ioctl(self->fd, MCMGPU_IOCTL_GET_INFO, &big));
	EXPECT_EQ(E2BIG, errno);

	/* Too small, non-zero flags, NULL and unmapped pointers. */
	memset(&info, 0, sizeof(info));
	info.size = 4;
	EXPECT_EQ(-1, ioctl(self->fd, MCMGPU_IOCTL_GET_INFO, &info));
	EXPECT_EQ(EINVAL, errno);
	info.size = sizeof(info);
	info.flags = 1;
	EXPECT_EQ(-1, ioctl(self->fd, MCMGPU_IOCTL_GET_INFO, &info));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, ioctl(self->fd, MCMGPU_IOCTL_GET_INFO, NULL));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(-1, ioctl(self->fd, MCMGPU_IOCTL_GET_INFO, (void *)16));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(-1, ioctl(self->fd, _IO(MCMGPU_IOCTL_MAGIC, 0x7f), 0));
	EXPECT_EQ(ENOTTY, errno);
}

/*
 * Size first: the struct says its size, so the number's size and
 * direction bits do not matter (the dispatcher matches type and nr); an
 * ioctl that returns its struct returns as many bytes as the caller's.
 */
TEST_F(dev, size_first_ioctls_ignore_the_numbers_size)
{
	static const unsigned int dirs[] = {
		_IOC_NONE, _IOC_READ, _IOC_WRITE, _IOC_READ | _IOC_WRITE,
	};
	struct {
		struct mcmgpu_info info;
		uint8_t canary[8];
	} out;
	unsigned int d;

	for (d = 0; d < 4; d++) {
		unsigned long nr = _IOC(dirs[d], MCMGPU_IOCTL_MAGIC,
					_IOC_NR(MCMGPU_IOCTL_GET_INFO), 8 * d);

		memset(&out, 0xa5, sizeof(out));
		out.info.size = MCMGPU_INFO_SIZE_VER0;
		out.info.flags = 0;
		ASSERT_EQ(0, ioctl(self->fd, nr, &out)) TH_LOG("dir %u", d);
		EXPECT_EQ(MCMGPU_INFO_SIZE_VER0, out.info.size);
		EXPECT_EQ(self->info.chiplets, out.info.chiplets);
		/* Past the caller's size nothing is written. */
		EXPECT_EQ(0xa5, ((uint8_t *)&out)[MCMGPU_INFO_SIZE_VER0]);
	}
}

TEST_F(dev, dma_roundtrip_every_chiplet)
{
	uint64_t vram = self->info.vram_per_chiplet;
	uint32_t c;
	int i;

	for (c = 0; c < self->info.chiplets; c++) {
		for (i = 0; i < 4; i++) {
			size_t len = 1 + mt_rnd() % (256 << 10);
			uint64_t off = mt_rnd() % (vram - len + 1);

			ASSERT_EQ(0, mt_roundtrip(self->fd, c * vram + off, len))
				TH_LOG("chiplet %u offset %#llx len %zu", c,
				       (unsigned long long)off, len);
		}
	}
	/* Larger than the driver's bounce buffer, across a chiplet boundary. */
	ASSERT_EQ(0, mt_roundtrip(self->fd, vram - (1 << 20) - 333, (2 << 20) + 777));
	/* The very first and the very last byte of GPU memory. */
	ASSERT_EQ(0, mt_roundtrip(self->fd, 0, 1));
	ASSERT_EQ(0, mt_roundtrip(self->fd, self->info.vram_total - 1, 1));
}

TEST_F(dev, dma_bad_input_gives_errno_and_device_stays_usable)
{
	uint64_t total = self->info.vram_total;
	struct mcmgpu_info after;
	struct {
		struct mcmgpu_dma d;
		uint64_t future;
	} big;
	struct mcmgpu_dma d;
	uint8_t buf[4096];
	void *unmapped, *ro;

	memset(&d, 0, sizeof(d));
	d.size = 8;
	d.user_ptr = (uintptr_t)buf;
	d.length = 16;
	EXPECT_EQ(-1, ioctl(self->fd, MCMGPU_IOCTL_DMA, &d));
	EXPECT_EQ(EINVAL, errno);

	memset(&big, 0, sizeof(big));
	big.d.size = sizeof(big);
	big.d.user_ptr = (uintptr_t)buf;
	big.d.length = 16;
	big.future = 7;
	EXPECT_EQ(-1, ioctl(self->fd, MCMGPU_IOCTL_DMA, &big));
	EXPECT_EQ(E2BIG, errno);
	big.future = 0;
	EXPECT_EQ(0, ioctl(self->fd, MCMGPU_IOCTL_DMA, &big));

	EXPECT_EQ(-EINVAL, mt_dma(self->fd, 1U << 5, buf, 0, 16));
	EXPECT_EQ(-EINVAL, mt_dma(self->fd, 0, buf, 0, 0));
	EXPECT_EQ(-EFAULT, mt_dma(self->fd, 0, NULL, 0, 16));
	EXPECT_EQ(-EFAULT, mt_dma(self->fd, MCMGPU_DMA_FROM_GPU, NULL, 0, 16));
	EXPECT_EQ(-ERANGE, mt_dma(self->fd, 0, buf, total, 1));
	EXPECT_EQ(-ERANGE, mt_dma(self->fd, 0, buf, total - 8, 16));
	EXPECT_EQ(-ERANGE, mt_dma(self->fd, MCMGPU_DMA_FROM_GPU, buf, 1ULL << 62, 16));
	EXPECT_EQ(-EOVERFLOW, mt_dma(self->fd, 0, buf, UINT64_MAX - 4, 16));
	EXPECT_EQ(-EOVERFLOW, mt_dma(self->fd, 0, buf, 16, UINT64_MAX));
	/* User range that wraps the address space. */
	EXPECT_EQ(-EFAULT, mt_dma(self->fd, 0, (void *)(UINTPTR_MAX - 8), 0, 64));

	unmapped = mmap(NULL, 8192, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, unmapped);
	ASSERT_EQ(0, munmap(unmapped, 8192));
	EXPECT_EQ(-EFAULT, mt_dma(self->fd, 0, unmapped, 0, 4096));
	EXPECT_EQ(-EFAULT, mt_dma(self->fd, MCMGPU_DMA_FROM_GPU, unmapped, 0, 4096));

	/* A read-only buffer cannot receive data from the GPU. */
	ro = mmap(NULL, 8192, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, ro);
	ASSERT_EQ(0, munmap((uint8_t *)ro + 4096, 4096));
	EXPECT_EQ(-EFAULT, mt_dma(self->fd, MCMGPU_DMA_FROM_GPU, ro, 0, 4096));
	/* Half-mapped: the valid first page is not enough. */
	EXPECT_EQ(-EFAULT, mt_dma(self->fd, 0, ro, 0, 8192));
	munmap(ro, 4096);

	/* Nothing reached the device as a failed command; it still works. */
	ASSERT_EQ(0, mt_get_info(self->fd, &after));
	EXPECT_EQ(self->info.commands_failed, after.commands_failed);
	EXPECT_EQ(0, mt_roundtrip(self->fd, total / 2 + 5, 4096));
}

static uint64_t virt_to_phys(void *p)
{
	uint64_t entry = 0;
	int fd = open("/proc/self/pagemap", O_RDONLY);
	off_t off = (uintptr_t)p / 4096 * sizeof(entry);

	if (fd < 0)
		return 0;
	if (pread(fd, &entry, sizeof(entry), off) != sizeof(entry))
		entry = 0;
	close(fd);
	if (!(entry & (1ULL << 63)))
		return 0;
	return (entry & ((1ULL << 55) - 1)) * 4096 + (uintptr_t)p % 4096;
}

/*
 * Waits up to 10 s of guest time for reg & mask to equal want: the
 * device's worker thread shares two host cores with a TCG guest under a
 * debug kernel, so a bound in iterations of usleep() is not a bound in time.
 */
static void wait_reg(volatile uint8_t *regs, uint32_t reg, uint32_t mask,
		     uint32_t want)
{
	uint64_t end = mt_now_ns() + 10000000000ULL;

	while ((mt_rd(regs, reg) & mask) != want && mt_now_ns() < end)
		usleep(1000);
}

static void wait_head(volatile uint8_t *regs, uint32_t want)
{
	wait_reg(regs, MCMGPU_REG_RING_HEAD, ~0U, want);
}

/*
 * With the driver unloaded, program the device directly through BAR0 with
 * bad rings and bad commands: it must refuse them with a status, never
 * write outside what it was given, and keep working afterwards.
 */
TEST(raw_device_rejects_bad_rings_and_commands)
{
	struct mcmgpu_hw_cmd *ring;
	struct mcmgpu_hw_cmpl *cmpl;
	char slot[NAME_MAX + 1], path[PATH_MAX];
	volatile uint8_t *regs;
	uint64_t phys, total, chiplets, vram;
	uint8_t *page;
	int fd, i;

	ASSERT_EQ(0, mt_find_slot(slot, sizeof(slot)));
	ASSERT_EQ(0, mt_unload_modules());
	regs = mt_map_regs(slot, sizeof(slot), &fd);
	ASSERT_NE(NULL, regs);
	/* The driver disabled bus mastering on unbind: enable it again. */
	snprintf(path, sizeof(path), "setpci -s %s COMMAND=0x6 2>/dev/null || "
		 "printf '\\006' | dd of=/sys/bus/pci/devices/%s/config bs=1 "
		 "seek=4 conv=notrunc 2>/dev/null", slot, slot);
	mt_system(path);

	chiplets = mt_rd(regs, MCMGPU_REG_CHIPLETS);
	vram = mt_rd(regs, MCMGPU_REG_VRAM_PER_CHIPLET_LO) |
	       (uint64_t)mt_rd(regs, MCMGPU_REG_VRAM_PER_CHIPLET_HI) << 32;
	total = chiplets * vram;

	/* A ring size that is not a power of two is refused. */
	mt_wr(regs, MCMGPU_REG_RESET, 1);
	mt_wr(regs, MCMGPU_REG_RING_SIZE, 3);
	mt_wr(regs, MCMGPU_REG_RING_CTRL, MCMGPU_RING_CTRL_ENABLE);
	EXPECT_EQ(0, mt_rd(regs, MCMGPU_REG_RING_CTRL));
	EXPECT_TRUE(mt_rd(regs, MCMGPU_REG_STATUS) & MCMGPU_STATUS_BAD_RING_CONFIG);

	/* A ring outside guest memory stops with a ring error. */
	mt_wr(regs, MCMGPU_REG_RESET, 1);
	mt_wr(regs, MCMGPU_REG_RING_BASE_LO, 0);
	mt_wr(regs, MCMGPU_REG_RING_BASE_HI, 0x40000);
	mt_wr(regs, MCMGPU_REG_CMPL_BASE_LO, 0);
	mt_wr(regs, MCMGPU_REG_CMPL_BASE_HI, 0x40000);
	mt_wr(regs, MCMGPU_REG_RING_SIZE, 16);
	mt_wr(regs, MCMGPU_REG_RING_CTRL, MCMGPU_RING_CTRL_ENABLE);
	EXPECT_EQ(MCMGPU_RING_CTRL_ENABLE, mt_rd(regs, MCMGPU_REG_RING_CTRL));
	mt_wr(regs, MCMGPU_REG_RING_TAIL, 1);
	wait_reg(regs, MCMGPU_REG_STATUS, MCMGPU_STATUS_RING_ERROR,
		 MCMGPU_STATUS_RING_ERROR);
	EXPECT_TRUE(mt_rd(regs, MCMGPU_REG_STATUS) & MCMGPU_STATUS_RING_ERROR);

	/* A real ring in a locked page; commands that must all be refused. */
	page = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_LOCKED, -1, 0);
	ASSERT_NE(MAP_FAILED, page);
	memset(page, 0, 4096);
	phys = virt_to_phys(page);
	ASSERT_NE(0, phys);
	ring = (struct mcmgpu_hw_cmd *)page;
	cmpl = (struct mcmgpu_hw_cmpl *)(page + 2048);

	mt_wr(regs, MCMGPU_REG_RESET, 1);
	mt_wr(regs, MCMGPU_REG_RING_BASE_LO, (uint32_t)phys);
	mt_wr(regs, MCMGPU_REG_RING_BASE_HI, phys >> 32);
	mt_wr(regs, MCMGPU_REG_CMPL_BASE_LO, (uint32_t)(phys + 2048));
	mt_wr(regs, MCMGPU_REG_CMPL_BASE_HI, (phys + 2048) >> 32);
	mt_wr(regs, MCMGPU_REG_RING_SIZE, 16);
	mt_wr(regs, MCMGPU_REG_RING_CTRL, MCMGPU_RING_CTRL_ENABLE);
	ASSERT_EQ(MCMGPU_RING_CTRL_ENABLE, mt_rd(regs, MCMGPU_REG_RING_CTRL));
	/* The geometry cannot change under a running ring. */
	mt_wr(regs, MCMGPU_REG_RING_SIZE, 1);
	mt_wr(regs, MCMGPU_REG_RING_BASE_HI, 0x40000);
	EXPECT_EQ(16, mt_rd(regs, MCMGPU_REG_RING_SIZE));
	EXPECT_EQ(phys >> 32, mt_rd(regs, MCMGPU_REG_RING_BASE_HI));

	struct { uint16_t op, flags; uint32_t ctx; uint64_t a0, a1, a2;
		 uint32_t want; } cases[] = {
		{ 0x77, 0, 0, 0, 0, 0, MCMGPU_CMPL_BAD_OPCODE },
		{ MCMGPU_OP_DMA_COPY, 0x80, 0, phys, 0, 16, MCMGPU_CMPL_BAD_FLAGS },
		{ MCMGPU_OP_DMA_COPY, 0, 0, phys, 0, 0, MCMGPU_CMPL_BAD_LENGTH },
		{ MCMGPU_OP_DMA_COPY, 0, 0, phys, 0, (uint64_t)MCMGPU_DMA_MAX_LEN + 1,
		  MCMGPU_CMPL_BAD_LENGTH },
		{ MCMGPU_OP_DMA_COPY, 0, 0, phys, total, 1, MCMGPU_CMPL_BAD_GPU_ADDR },
		{ MCMGPU_OP_DMA_COPY, 0, 0, phys, UINT64_MAX - 3, 16,
		  MCMGPU_CMPL_BAD_GPU_ADDR },
		{ MCMGPU_OP_DMA_COPY, 0, 0, UINT64_MAX - 3, 0, 16,
		  MCMGPU_CMPL_DMA_FAULT },
		{ MCMGPU_OP_DMA_COPY, MCMGPU_DMA_FLAG_TO_HOST, 0, 1ULL << 50, 0, 64,
		  MCMGPU_CMPL_DMA_FAULT },
		/* Contexts: none named where none is taken, none live. */
		{ MCMGPU_OP_NOP, 0, 5, 0, 0, 0, MCMGPU_CMPL_BAD_CONTEXT },
		{ MCMGPU_OP_CP_LAUNCH, 0, 0, phys, phys, 0, MCMGPU_CMPL_BAD_CONTEXT },
		{ MCMGPU_OP_CP_LAUNCH, 0, 1, phys, phys, 0, MCMGPU_CMPL_BAD_CONTEXT },
		{ MCMGPU_OP_CTX_DESTROY, 0, 64, 0, 0, 0, MCMGPU_CMPL_BAD_CONTEXT },
		{ MCMGPU_OP_PING, 0, 0, MCMGPU_WINDOWS, 0, 0, MCMGPU_CMPL_BAD_ARG },
		/* Copy 16 GPU bytes into the ring page's spare area: accepted. */
		{ MCMGPU_OP_DMA_COPY, MCMGPU_DMA_FLAG_TO_HOST, 0, phys + 3072, 0, 16,
		  MCMGPU_CMPL_OK },
	};
	int n = sizeof(cases) / sizeof(cases[0]);

	for (i = 0; i < n; i++) {
		ring[i].opcode = cases[i].op;
		ring[i].flags = cases[i].flags;
		ring[i].ctx = cases[i].ctx;
		ring[i].seq = 100 + i;
		ring[i].args[0] = cases[i].a0;
		ring[i].args[1] = cases[i].a1;
		ring[i].args[2] = cases[i].a2;
	}
	__sync_synchronize();
	mt_wr(regs, MCMGPU_REG_RING_TAIL, n);
	wait_head(regs, n);
	EXPECT_EQ(n, mt_rd(regs, MCMGPU_REG_RING_HEAD));
	for (i = 0; i < n; i++) {
		EXPECT_EQ(100 + i, cmpl[i].seq);
		EXPECT_EQ(cases[i].want, cmpl[i].status) TH_LOG("case %d", i);
	}
	EXPECT_EQ(n - 1, mt_rd(regs, MCMGPU_REG_ERR_COUNT));

	/* A tail past the ring is refused and stops the ring. */
	mt_wr(regs, MCMGPU_REG_RING_TAIL, 999);
	EXPECT_TRUE(mt_rd(regs, MCMGPU_REG_STATUS) & MCMGPU_STATUS_BAD_TAIL);
	EXPECT_EQ(0, mt_rd(regs, MCMGPU_REG_RING_CTRL));

	mt_wr(regs, MCMGPU_REG_RESET, 1);
	mt_unmap_regs(regs, fd);
	munmap(page, 4096);

	/* The driver binds again and the device moves data. */
	ASSERT_EQ(0, mt_load_modules());
	fd = mt_open_dev();
	ASSERT_LE(0, fd);
	EXPECT_EQ(0, mt_roundtrip(fd, vram + 4095, 8191));
	close(fd);
}

/* A locked page of this process and its physical address. */
static uint8_t *locked_page(uint64_t *phys)
{
	uint8_t *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS | MAP_LOCKED, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	memset(p, 0, 4096);
	*phys = virt_to_phys(p);
	return p;
}

/*
 * Runs ring entry i (the next one) for the context raw_ctx (0 for
 * CTX_CREATE, which makes it) and returns its completion status.
 */
static uint32_t raw_ctx;

static uint32_t raw_cmd(volatile uint8_t *regs, struct mcmgpu_hw_cmd *ring,
			struct mcmgpu_hw_cmpl *cmpl, int i, uint16_t op,
			uint16_t flags, const uint64_t *args)
{
	memset(&ring[i], 0, sizeof(ring[i]));
	ring[i].opcode = op;
	ring[i].flags = flags;
	ring[i].ctx = op == MCMGPU_OP_CTX_CREATE ? 0 : raw_ctx;
	ring[i].seq = 500 + i;
	memcpy(ring[i].args, args, 6 * sizeof(uint64_t));
	__sync_synchronize();
	mt_wr(regs, MCMGPU_REG_RING_TAIL, i + 1);
	wait_head(regs, i + 1);
	return cmpl[i].seq == 500 + (uint64_t)i ? cmpl[i].status : ~0U;
}

/*
 * Barre's device side programmed directly, with no IOMMU on the ATS
 * rings: a phase that ended early (here at its first miss) leaves
 * translations in flight that point into its accesses, so a new phase may
 * not start on them before a reset (an IOMMU that answered the old tags
 * would make QEMU read past the new accesses).
 */
TEST(raw_barre_phase_ended_early_needs_a_reset)
{
	char slot[NAME_MAX + 1], cmd[PATH_MAX];
	uint64_t ph_ring, ph_req, ph_resp, ph_res, ph_acc;
	uint8_t *pg_ring, *pg_req, *pg_resp, *pg_res, *pg_acc;
	struct mcmgpu_barre_access *acc;
	struct mcmgpu_barre_run_result *res;
	struct mcmgpu_hw_cmd *ring;
	struct mcmgpu_hw_cmpl *cmpl;
	volatile uint8_t *regs;
	int fd, i, n = 0;

	ASSERT_EQ(0, mt_find_slot(slot, sizeof(slot)));
	ASSERT_EQ(0, mt_unload_modules());
	regs = mt_map_regs(slot, sizeof(slot), &fd);
	ASSERT_NE(NULL, regs);
	/* Bus mastering (COMMAND = 6) and ATS enable (0x106 bit 15). */
	snprintf(cmd, sizeof(cmd), "printf '\\006' | dd of=/sys/bus/pci/devices/%s/"
		 "config bs=1 seek=4 conv=notrunc 2>/dev/null && printf "
		 "'\\000\\200' | dd of=/sys/bus/pci/devices/%s/config bs=1 "
		 "seek=262 conv=notrunc 2>/dev/null", slot, slot);
	ASSERT_EQ(0, mt_system(cmd));
	pg_ring = locked_page(&ph_ring);
	pg_req = locked_page(&ph_req);
	pg_resp = locked_page(&ph_resp);
	pg_res = locked_page(&ph_res);
	pg_acc = locked_page(&ph_acc);
	ASSERT_TRUE(pg_ring && pg_req && pg_resp && pg_res && pg_acc);
	ASSERT_TRUE(ph_ring && ph_req && ph_resp && ph_res && ph_acc);
	ring = (struct mcmgpu_hw_cmd *)pg_ring;
	cmpl = (struct mcmgpu_hw_cmpl *)(pg_ring + 2048);
	res = (struct mcmgpu_barre_run_result *)pg_res;
	acc = (struct mcmgpu_barre_access *)pg_acc;
	for (i = 0; i < 64; i++)
		acc[i] = (struct mcmgpu_barre_access){
			.va = (0x100000ULL + 8 * i) << 12, .chiplet = i % 2,
		};

	mt_wr(regs, MCMGPU_REG_RESET, 1);
	mt_wr(regs, MCMGPU_REG_RING_BASE_LO, (uint32_t)ph_ring);
	mt_wr(regs, MCMGPU_REG_RING_BASE_HI, ph_ring >> 32);
	mt_wr(regs, MCMGPU_REG_CMPL_BASE_LO, (uint32_t)(ph_ring + 2048));
	mt_wr(regs, MCMGPU_REG_CMPL_BASE_HI, (ph_ring + 2048) >> 32);
	mt_wr(regs, MCMGPU_REG_RING_SIZE, 16);
	mt_wr(regs, MCMGPU_REG_RING_CTRL, MCMGPU_RING_CTRL_ENABLE);
	{
		const uint64_t none[6] = { 0 };
		const uint64_t run[6] = { ph_req, ph_resp, 0, ph_res };
		const uint64_t load64[6] = { ph_acc, 64 };
		const uint64_t load1[6] = { ph_acc, 1 };

		ASSERT_EQ(MCMGPU_CMPL_OK, raw_cmd(regs, ring, cmpl, n,
						  MCMGPU_OP_CTX_CREATE, 0, none));
		raw_ctx = cmpl[n++].result;
		EXPECT_EQ(MCMGPU_CMPL_OK, raw_cmd(regs, ring, cmpl, n++,
						  MCMGPU_OP_BARRE_RUN,
						  MCMGPU_BARRE_RUN_RESET, run));
		EXPECT_EQ(MCMGPU_CMPL_OK, raw_cmd(regs, ring, cmpl, n++,
						  MCMGPU_OP_BARRE_LOAD,
						  MCMGPU_BARRE_LOAD_FIRST, load64));
		/* No IOMMU has turned the ATS rings on: the first miss ends it. */
		EXPECT_EQ(MCMGPU_CMPL_NO_IOMMU, raw_cmd(regs, ring, cmpl, n++,
							MCMGPU_OP_BARRE_RUN,
							MCMGPU_BARRE_RUN_START, run));
		EXPECT_LT(0, res->requests);
		EXPECT_NE(NULL, strstr(res->error.what, "no IOMMU"));
		/* Ended: a new load is taken, but the phase needs a reset. */
		EXPECT_EQ(MCMGPU_CMPL_OK, raw_cmd(regs, ring, cmpl, n++,
						  MCMGPU_OP_BARRE_LOAD,
						  MCMGPU_BARRE_LOAD_FIRST, load1));
		EXPECT_EQ(MCMGPU_CMPL_NO_TRACE,
			  raw_cmd(regs, ring, cmpl, n++, MCMGPU_OP_BARRE_RUN,
				  MCMGPU_BARRE_RUN_START, run));
		/* After a reset the device runs a new phase (to its first miss). */
		EXPECT_EQ(MCMGPU_CMPL_OK, raw_cmd(regs, ring, cmpl, n++,
						  MCMGPU_OP_BARRE_RUN,
						  MCMGPU_BARRE_RUN_RESET, run));
		EXPECT_EQ(MCMGPU_CMPL_OK, raw_cmd(regs, ring, cmpl, n++,
						  MCMGPU_OP_BARRE_LOAD,
						  MCMGPU_BARRE_LOAD_FIRST, load1));
		EXPECT_EQ(MCMGPU_CMPL_NO_IOMMU, raw_cmd(regs, ring, cmpl, n++,
							MCMGPU_OP_BARRE_RUN,
							MCMGPU_BARRE_RUN_START, run));
		EXPECT_EQ(1, res->requests);
	}
	mt_wr(regs, MCMGPU_REG_RESET, 1);
	mt_unmap_regs(regs, fd);
	munmap(pg_ring, 4096);
	munmap(pg_req, 4096);
	munmap(pg_resp, 4096);
	munmap(pg_res, 4096);
	munmap(pg_acc, 4096);
	ASSERT_EQ(0, mt_load_modules());
	fd = mt_open_dev();
	ASSERT_LE(0, fd);
	EXPECT_EQ(0, mt_roundtrip(fd, 4095, 8191));
	close(fd);
}

/*
 * A hung device gives ETIMEDOUT and a failing command EIO; the driver
 * resets the ring and the next command works. The device's fault
 * injection register (BAR0, for tests) makes both happen.
 */
TEST_F(dev, hung_device_times_out_and_device_error_gives_eio)
{
	char slot[NAME_MAX + 1];
	volatile uint8_t *regs;
	struct mcmgpu_cpe_launch_result res;
	struct mcmgpu_info after;
	uint8_t buf[64];
	int rfd;

	regs = mt_map_regs(slot, sizeof(slot), &rfd);
	ASSERT_NE(NULL, regs);
	ASSERT_EQ(0, mt_write_sysfs(TIMEOUT_PARAM, "300"));
	/* A launch sequence in this file's context, before the trouble. */
	ASSERT_EQ(0, mt_launch_reset(self->fd));
	ASSERT_EQ(0, mt_launch_kernel(self->fd, &res));

	mt_wr(regs, MCMGPU_REG_FAULT_INJECT, MCMGPU_FAULT_STALL);
	EXPECT_EQ(-ETIMEDOUT, mt_dma(self->fd, 0, buf, 0, sizeof(buf)));
	/* The reset after the timeout cleared the stall. */
	EXPECT_EQ(0, mt_rd(regs, MCMGPU_REG_FAULT_INJECT));
	EXPECT_EQ(0, mt_roundtrip(self->fd, 4096, 100));
	/* The ring reset kept the file's context and its sequence. */
	ASSERT_EQ(0, mt_launch_kernel(self->fd, &res));
	EXPECT_EQ(2, res.stats.kernels);

	mt_wr(regs, MCMGPU_REG_FAULT_INJECT, MCMGPU_FAULT_FAIL_NEXT);
	EXPECT_EQ(-EIO, mt_dma(self->fd, 0, buf, 0, sizeof(buf)));
	ASSERT_EQ(0, mt_get_info(self->fd, &after));
	EXPECT_EQ(self->info.commands_failed + 1, after.commands_failed);
	EXPECT_EQ(0, mt_roundtrip(self->fd, 8192, 100));

	EXPECT_EQ(0, mt_write_sysfs(TIMEOUT_PARAM, "10000"));
	mt_unmap_regs(regs, rfd);
}

/* Opens files until the device's contexts run out; closes them; the count. */
static int count_free_contexts(void)
{
	int fds[1100], n = 0;

	while (n < 1100 && (fds[n] = mt_open_dev()) >= 0)
		n++;
	for (int i = 0; i < n; i++)
		close(fds[i]);
	return n;
}

/*
 * A release whose CTX_DESTROY times out leaves the context to the driver,
 * which destroys it at the next open: failed releases do not use up the
 * device's contexts.
 */
TEST_F(dev, failed_release_does_not_leak_a_context)
{
	char slot[NAME_MAX + 1];
	volatile uint8_t *regs;
	int rfd, before, fd;

	regs = mt_map_regs(slot, sizeof(slot), &rfd);
	ASSERT_NE(NULL, regs);
	before = count_free_contexts();
	ASSERT_LT(0, before);
	ASSERT_EQ(0, mt_write_sysfs(TIMEOUT_PARAM, "300"));
	fd = mt_open_dev();
	ASSERT_LE(0, fd);
	mt_wr(regs, MCMGPU_REG_FAULT_INJECT, MCMGPU_FAULT_STALL);
	close(fd);	/* the destroy times out; the ring reset clears the stall */
	EXPECT_EQ(0, mt_rd(regs, MCMGPU_REG_FAULT_INJECT));
	EXPECT_EQ(0, mt_write_sysfs(TIMEOUT_PARAM, "10000"));
	EXPECT_EQ(before, count_free_contexts());
	mt_unmap_regs(regs, rfd);
}

static void on_signal(int sig)
{
	(void)sig;
}

static void handle(int sig, int flags)
{
	struct sigaction sa = { .sa_handler = on_signal, .sa_flags = flags };

	sigaction(sig, &sa, NULL);
}

/*
 * Once the device holds a command, only a fatal signal ends the wait, so a
 * handled signal (with or without SA_RESTART) or a stop/continue during a
 * stalled launch neither fails the call nor makes the kernel submit the
 * record again: the device counts one kernel.
 */
TEST_F(dev, signals_during_a_wait_never_repeat_a_launch)
{
	static const int flags[] = { SA_RESTART, 0 };
	char slot[NAME_MAX + 1];
	volatile uint8_t *regs;
	struct mcmgpu_cpe_launch_result res;
	int rfd, status, i, k;
	pid_t pid;

	regs = mt_map_regs(slot, sizeof(slot), &rfd);
	ASSERT_NE(NULL, regs);
	for (i = 0; i < 2; i++) {
		ASSERT_EQ(0, mt_launch_reset(self->fd));
		mt_wr(regs, MCMGPU_REG_FAULT_INJECT, MCMGPU_FAULT_STALL);
		pid = fork();
		ASSERT_LE(0, pid);
		if (pid == 0) {
			handle(SIGUSR1, flags[i]);
			if (mt_launch_kernel(self->fd, &res))
				_exit(2);
			_exit(res.stats.kernels == 1 ? 0 : 1);
		}
		usleep(200000);
		for (k = 0; k < 3; k++) {
			kill(pid, SIGUSR1);
			usleep(50000);
		}
		kill(pid, SIGSTOP);
		usleep(50000);
		kill(pid, SIGCONT);
		usleep(50000);
		mt_wr(regs, MCMGPU_REG_FAULT_INJECT, 0);
		ASSERT_EQ(pid, waitpid(pid, &status, 0));
		EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
			TH_LOG("sa_flags %#x: child exit %d", flags[i],
			       WEXITSTATUS(status));
		ASSERT_EQ(0, mt_launch_kernel(self->fd, &res));
		EXPECT_EQ(2, res.stats.kernels);
	}
	mt_unmap_regs(regs, rfd);
}

/*
 * A child launches while its parent stops and continues it again and
 * again: the device's kernel count equals the number of successful calls.
 */
TEST_F(dev, stop_continue_during_launches_applies_each_once)
{
	int pipefd[2], status, ok_calls = -1;
	struct mcmgpu_cpe_launch_result res;
	pid_t pid;

	ASSERT_EQ(0, mt_launch_reset(self->fd));
	ASSERT_EQ(0, pipe(pipefd));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		int n = 0, i;

		close(pipefd[0]);
		for (i = 0; i < 300; i++)
			n += mt_launch_kernel(self->fd, &res) == 0;
		_exit(write(pipefd[1], &n, sizeof(n)) == sizeof(n) ? 0 : 1);
	}
	close(pipefd[1]);
	while (waitpid(pid, &status, WNOHANG) == 0) {
		kill(pid, SIGSTOP);
		usleep(1000);
		kill(pid, SIGCONT);
		usleep(2000);
	}
	ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	ASSERT_EQ(sizeof(ok_calls), read(pipefd[0], &ok_calls, sizeof(ok_calls)));
	close(pipefd[0]);
	EXPECT_EQ(300, ok_calls);
	ASSERT_EQ(0, mt_launch_kernel(self->fd, &res));
	EXPECT_EQ(ok_calls + 1, res.stats.kernels);
}

/*
 * An 8 MiB copy each way under a 1 kHz SA_RESTART timer: every chunk is
 * submitted once (8 commands each way), and the data arrives intact.
 */
TEST_F(dev, chunked_dma_under_a_1khz_timer_is_never_restarted)
{
	const size_t len = 8 << 20;
	struct itimerval it = { { 0, 1000 }, { 0, 1000 } };
	struct itimerval off = { { 0, 0 }, { 0, 0 } };
	uint8_t *src = malloc(len), *dst = malloc(len);
	struct mcmgpu_info before, after;
	int wr_ret, rd_ret;

	ASSERT_TRUE(src && dst);
	mt_fill_random(src, len);
	ASSERT_EQ(0, mt_get_info(self->fd, &before));
	handle(SIGALRM, SA_RESTART);
	ASSERT_EQ(0, setitimer(ITIMER_REAL, &it, NULL));
	wr_ret = mt_dma(self->fd, 0, src, 4096, len);
	rd_ret = mt_dma(self->fd, MCMGPU_DMA_FROM_GPU, dst, 4096, len);
	setitimer(ITIMER_REAL, &off, NULL);
	EXPECT_EQ(0, wr_ret);
	EXPECT_EQ(0, rd_ret);
	EXPECT_EQ(0, memcmp(src, dst, len));
	ASSERT_EQ(0, mt_get_info(self->fd, &after));
	EXPECT_EQ(before.commands_done + 2 * len / (1 << 20),
		  after.commands_done);
	free(src);
	free(dst);
}

/*
 * A waiter killed by a fatal signal leaves its command in flight; the next
 * caller waits for it before reusing the bounce buffer, and the device
 * completes both.
 */
TEST_F(dev, killed_waiter_command_completes_before_the_next)
{
	char slot[NAME_MAX + 1];
	volatile uint8_t *regs;
	uint32_t count;
	int rfd, status;
	pid_t pid;

	regs = mt_map_regs(slot, sizeof(slot), &rfd);
	ASSERT_NE(NULL, regs);
	count = mt_rd(regs, MCMGPU_REG_CMD_COUNT);
	mt_wr(regs, MCMGPU_REG_FAULT_INJECT, MCMGPU_FAULT_STALL);
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		uint8_t buf[256] = { 0 };

		_exit(mt_dma(self->fd, 0, buf, 0, sizeof(buf)) ? 1 : 0);
	}
	usleep(300000);
	kill(pid, SIGKILL);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	/* The device resumes: the stalled command completes, then ours. */
	mt_wr(regs, MCMGPU_REG_FAULT_INJECT, 0);
	EXPECT_EQ(0, mt_roundtrip(self->fd, 3 * 4096, 512));
	EXPECT_EQ(count + 3, mt_rd(regs, MCMGPU_REG_CMD_COUNT));
	mt_unmap_regs(regs, rfd);
}

TEST(module_unload_reload_keeps_gpu_memory)
{
	uint8_t pattern[8192], back[8192];
	struct mcmgpu_info info;
	int fd, round;

	mt_fill_random(pattern, sizeof(pattern));
	fd = mt_open_dev();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, mt_get_info(fd, &info));
	ASSERT_EQ(0, mt_dma(fd, 0, pattern, info.vram_total - sizeof(pattern),
			    sizeof(pattern)));
	close(fd);

	for (round = 0; round < 3; round++) {
		ASSERT_EQ(0, mt_unload_modules());
		EXPECT_NE(0, access(MT_DEV_PATH, F_OK));
		EXPECT_NE(0, access("/sys/bus/auxiliary/devices/mcmgpu.iommu.0", F_OK));
		ASSERT_EQ(0, mt_load_modules());
		/* Same minor name and aux ids: the previous instance was freed. */
		ASSERT_EQ(0, access(MT_DEV_PATH, F_OK));
		EXPECT_EQ(0, access("/sys/bus/auxiliary/devices/mcmgpu.iommu.0/driver", F_OK));
		EXPECT_EQ(0, access("/sys/bus/auxiliary/devices/mcmgpu.cxl_rc.0/driver", F_OK));
	}
	fd = mt_open_dev();
	ASSERT_LE(0, fd);
	memset(back, 0, sizeof(back));
	ASSERT_EQ(0, mt_dma(fd, MCMGPU_DMA_FROM_GPU, back,
			    info.vram_total - sizeof(back), sizeof(back)));
	EXPECT_EQ(0, memcmp(pattern, back, sizeof(back)));
	close(fd);
}

TEST(open_file_survives_unbind)
{
	char slot[NAME_MAX + 1], path[PATH_MAX];
	struct mcmgpu_info info;
	int fd, ufd;

	ASSERT_EQ(0, mt_find_slot(slot, sizeof(slot)));
	fd = mt_open_dev();
	ASSERT_LE(0, fd);
	ufd = open("/sys/bus/pci/drivers/mcmgpu/unbind", O_WRONLY);
	ASSERT_LE(0, ufd);
	ASSERT_EQ((ssize_t)strlen(slot), write(ufd, slot, strlen(slot)));
	close(ufd);
	/* The device is gone under the open file: ENODEV, no crash. */
	EXPECT_EQ(-ENODEV, mt_get_info(fd, &info));
	close(fd);
	ufd = open("/sys/bus/pci/drivers/mcmgpu/bind", O_WRONLY);
	ASSERT_LE(0, ufd);
	ASSERT_EQ((ssize_t)strlen(slot), write(ufd, slot, strlen(slot)));
	close(ufd);
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/driver", slot);
	EXPECT_EQ(0, access(path, F_OK));
	fd = mt_open_dev();
	ASSERT_LE(0, fd);
	EXPECT_EQ(0, mt_roundtrip(fd, 12345, 777));
	close(fd);
}

/*
 * A stale file keeps the old instance's index until its last close, so a
 * rebind meanwhile comes back as /dev/mcmgpu1; the tools still find the
 * device by its PCI address. After the close a rebind gets index 0 again.
 */
TEST(rebind_with_a_stale_file_is_found_by_pci_address)
{
	char slot[NAME_MAX + 1], cmd[PATH_MAX + 64];
	int fd;

	ASSERT_EQ(0, mt_find_slot(slot, sizeof(slot)));
	fd = mt_open_dev();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, mt_write_sysfs("/sys/bus/pci/drivers/mcmgpu/unbind", slot));
	ASSERT_EQ(0, mt_write_sysfs("/sys/bus/pci/drivers/mcmgpu/bind", slot));
	EXPECT_NE(0, access(MT_DEV_PATH, F_OK));
	EXPECT_EQ(0, access("/dev/mcmgpu1", F_OK));
	snprintf(cmd, sizeof(cmd), "mcmgpu dma roundtrip --size 4K --device %s",
		 slot);
	EXPECT_EQ(0, mt_run_cmd(cmd, NULL, 0)) TH_LOG("%s", cmd);
	/* The short form without the PCI domain works too. */
	snprintf(cmd, sizeof(cmd), "mcmgpu dma roundtrip --size 4K --device %s",
		 slot + 5);
	EXPECT_EQ(0, mt_run_cmd(cmd, NULL, 0)) TH_LOG("%s", cmd);
	EXPECT_EQ(0, mt_run_cmd("mcmgpu dma roundtrip --size 4K --device 1", NULL, 0));
	close(fd);
	ASSERT_EQ(0, mt_write_sysfs("/sys/bus/pci/drivers/mcmgpu/unbind", slot));
	ASSERT_EQ(0, mt_write_sysfs("/sys/bus/pci/drivers/mcmgpu/bind", slot));
	fd = mt_open_dev();
	ASSERT_LE(0, fd);
	EXPECT_EQ(0, mt_roundtrip(fd, 4096, 4096));
	close(fd);
}

TEST_HARNESS_MAIN
