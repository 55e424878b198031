// SPDX-License-Identifier: GPL-2.0
/*
 * Foundation kselftests, run inside the guest by tools/vm-run: the device
 * is found and bound, GET_INFO matches the device properties, DMA round
 * trips are byte-exact in every chiplet, bad ioctl input gets the
 * documented errno and leaves the device usable, the device itself rejects
 * bad rings and commands, and the modules unload and reload.
 */
#include <dirent.h>
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
#include <unistd.h>

#include "kselftest_harness.h"
#include "run_cmd.h"
#include "mcmgpu_hw.h"
#include "mcmgpu_ioctl.h"
#include "mcmgpu_cpelide.h"

#define DEV_PATH	"/dev/mcmgpu0"
#define MOD_DIR		"/lib/modules/mcmgpu"

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static uint64_t rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

static void fill_random(uint8_t *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = rnd();
}

static uint64_t env_u64(const char *name, uint64_t def)
{
	const char *v = getenv(name);

	return v ? strtoull(v, NULL, 0) : def;
}

/* Returns 0 or -errno. */
static int dma(int fd, uint32_t flags, void *buf, uint64_t gpu, uint64_t len)
{
	struct mcmgpu_dma d = {
		.size = sizeof(d), .flags = flags, .user_ptr = (uintptr_t)buf,
		.gpu_addr = gpu, .length = len,
	};

	return ioctl(fd, MCMGPU_IOCTL_DMA, &d) ? -errno : 0;
}

static int get_info(int fd, struct mcmgpu_info *info)
{
	memset(info, 0, sizeof(*info));
	info->size = sizeof(*info);
	return ioctl(fd, MCMGPU_IOCTL_GET_INFO, info) ? -errno : 0;
}

/* Write then read back len random bytes at gpu; 0 when byte-exact. */
static int roundtrip(int fd, uint64_t gpu, size_t len)
{
	uint8_t *src = malloc(len), *dst = malloc(len);
	int ret;

	if (!src || !dst)
		return -ENOMEM;
	fill_random(src, len);
	memset(dst, 0xa5, len);
	ret = dma(fd, 0, src, gpu, len);
	if (!ret)
		ret = dma(fd, MCMGPU_DMA_FROM_GPU, dst, gpu, len);
	if (!ret && memcmp(src, dst, len))
		ret = -EILSEQ;
	free(src);
	free(dst);
	return ret;
}

/* PCI slot of the first mcmgpu device, from sysfs. */
static int find_slot(char *slot, size_t n)
{
	struct dirent *de;
	DIR *d = opendir("/sys/bus/pci/devices");
	int found = -1;

	if (!d)
		return -1;
	while (found && (de = readdir(d))) {
		char path[PATH_MAX];
		unsigned int ven = 0, dev = 0;
		FILE *f;

		snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/vendor",
			 de->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fscanf(f, "%x", &ven) != 1)
			ven = 0;
		fclose(f);
		snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/device",
			 de->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fscanf(f, "%x", &dev) != 1)
			dev = 0;
		fclose(f);
		if (ven == MCMGPU_PCI_VENDOR_ID && dev == MCMGPU_PCI_DEVICE_ID) {
			snprintf(slot, n, "%s", de->d_name);
			found = 0;
		}
	}
	closedir(d);
	return found;
}

static int run(const char *cmd)
{
	int st = system(cmd);

	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static int unload_modules(void)
{
	return run("rmmod gpu_rc barre_iommu mcmgpu");
}

static int load_modules(void)
{
	return run("for m in $(cat " MOD_DIR "/load-order); do "
		   "insmod " MOD_DIR "/$m.ko || exit 1; done");
}

FIXTURE(dev) {
	int fd;
	struct mcmgpu_info info;
};

FIXTURE_SETUP(dev)
{
	self->fd = open(DEV_PATH, O_RDWR);
	ASSERT_LE(0, self->fd) TH_LOG("open %s: %s", DEV_PATH, strerror(errno));
	ASSERT_EQ(0, get_info(self->fd, &self->info));
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

	ASSERT_EQ(0, find_slot(slot, sizeof(slot)));
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/driver", slot);
	n = readlink(path, target, sizeof(target) - 1);
	ASSERT_LT(0, n);
	target[n] = '\0';
	EXPECT_STREQ("mcmgpu", strrchr(target, '/') + 1);
	EXPECT_EQ(0, stat(DEV_PATH, &st));
	EXPECT_TRUE(S_ISCHR(st.st_mode));
	/* The auxiliary devices exist and their drivers are bound. */
	EXPECT_EQ(0, access("/sys/bus/auxiliary/devices/mcmgpu.iommu.0/driver", F_OK));
	EXPECT_EQ(0, access("/sys/bus/auxiliary/devices/mcmgpu.cxl_rc.0/driver", F_OK));
}

TEST_F(dev, get_info_matches_device_properties)
{
	uint64_t chiplets = env_u64("MCMGPU_EXPECT_CHIPLETS", MCMGPU_DEFAULT_CHIPLETS);
	uint64_t vram = env_u64("MCMGPU_EXPECT_VRAM_PER_CHIPLET",
				MCMGPU_DEFAULT_VRAM_PER_CHIPLET);

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

TEST_F(dev, dma_roundtrip_every_chiplet)
{
	uint64_t vram = self->info.vram_per_chiplet;
	uint32_t c;
	int i;

	for (c = 0; c < self->info.chiplets; c++) {
		for (i = 0; i < 4; i++) {
			size_t len = 1 + rnd() % (256 << 10);
			uint64_t off = rnd() % (vram - len + 1);

			ASSERT_EQ(0, roundtrip(self->fd, c * vram + off, len))
				TH_LOG("chiplet %u offset %#llx len %zu", c,
				       (unsigned long long)off, len);
		}
	}
	/* Larger than the driver's bounce buffer, across a chiplet boundary. */
	ASSERT_EQ(0, roundtrip(self->fd, vram - (1 << 20) - 333, (2 << 20) + 777));
	/* The very first and the very last byte of GPU memory. */
	ASSERT_EQ(0, roundtrip(self->fd, 0, 1));
	ASSERT_EQ(0, roundtrip(self->fd, self->info.vram_total - 1, 1));
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

	EXPECT_EQ(-EINVAL, dma(self->fd, 1U << 5, buf, 0, 16));
	EXPECT_EQ(-EINVAL, dma(self->fd, 0, buf, 0, 0));
	EXPECT_EQ(-EFAULT, dma(self->fd, 0, NULL, 0, 16));
	EXPECT_EQ(-EFAULT, dma(self->fd, MCMGPU_DMA_FROM_GPU, NULL, 0, 16));
	EXPECT_EQ(-ERANGE, dma(self->fd, 0, buf, total, 1));
	EXPECT_EQ(-ERANGE, dma(self->fd, 0, buf, total - 8, 16));
	EXPECT_EQ(-ERANGE, dma(self->fd, MCMGPU_DMA_FROM_GPU, buf, 1ULL << 62, 16));
	EXPECT_EQ(-EOVERFLOW, dma(self->fd, 0, buf, UINT64_MAX - 4, 16));
	EXPECT_EQ(-EOVERFLOW, dma(self->fd, 0, buf, 16, UINT64_MAX));
	/* User range that wraps the address space. */
	EXPECT_EQ(-EFAULT, dma(self->fd, 0, (void *)(UINTPTR_MAX - 8), 0, 64));

	unmapped = mmap(NULL, 8192, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, unmapped);
	ASSERT_EQ(0, munmap(unmapped, 8192));
	EXPECT_EQ(-EFAULT, dma(self->fd, 0, unmapped, 0, 4096));
	EXPECT_EQ(-EFAULT, dma(self->fd, MCMGPU_DMA_FROM_GPU, unmapped, 0, 4096));

	/* A read-only buffer cannot receive data from the GPU. */
	ro = mmap(NULL, 8192, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, ro);
	ASSERT_EQ(0, munmap((uint8_t *)ro + 4096, 4096));
	EXPECT_EQ(-EFAULT, dma(self->fd, MCMGPU_DMA_FROM_GPU, ro, 0, 4096));
	/* Half-mapped: the valid first page is not enough. */
	EXPECT_EQ(-EFAULT, dma(self->fd, 0, ro, 0, 8192));
	munmap(ro, 4096);

	/* Nothing reached the device as a failed command; it still works. */
	ASSERT_EQ(0, get_info(self->fd, &after));
	EXPECT_EQ(self->info.commands_failed, after.commands_failed);
	EXPECT_EQ(0, roundtrip(self->fd, total / 2 + 5, 4096));
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

static uint32_t rd(volatile uint8_t *regs, unsigned int off)
{
	return *(volatile uint32_t *)(regs + off);
}

static void wr(volatile uint8_t *regs, unsigned int off, uint32_t v)
{
	*(volatile uint32_t *)(regs + off) = v;
}

static void wait_head(volatile uint8_t *regs, uint32_t want)
{
	int i;

	for (i = 0; i < 1000 && rd(regs, MCMGPU_REG_RING_HEAD) != want; i++)
		usleep(1000);
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

	ASSERT_EQ(0, find_slot(slot, sizeof(slot)));
	ASSERT_EQ(0, unload_modules());
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/resource0", slot);
	fd = open(path, O_RDWR | O_SYNC);
	ASSERT_LE(0, fd);
	regs = mmap(NULL, MCMGPU_BAR_REGS_SIZE, PROT_READ | PROT_WRITE,
		    MAP_SHARED, fd, 0);
	ASSERT_NE(MAP_FAILED, regs);
	/* The driver disabled bus mastering on unbind: enable it again. */
	snprintf(path, sizeof(path), "setpci -s %s COMMAND=0x6 2>/dev/null || "
		 "printf '\\006' | dd of=/sys/bus/pci/devices/%s/config bs=1 "
		 "seek=4 conv=notrunc 2>/dev/null", slot, slot);
	run(path);

	chiplets = rd(regs, MCMGPU_REG_CHIPLETS);
	vram = rd(regs, MCMGPU_REG_VRAM_PER_CHIPLET_LO) |
	       (uint64_t)rd(regs, MCMGPU_REG_VRAM_PER_CHIPLET_HI) << 32;
	total = chiplets * vram;

	/* A ring size that is not a power of two is refused. */
	wr(regs, MCMGPU_REG_RESET, 1);
	wr(regs, MCMGPU_REG_RING_SIZE, 3);
	wr(regs, MCMGPU_REG_RING_CTRL, MCMGPU_RING_CTRL_ENABLE);
	EXPECT_EQ(0, rd(regs, MCMGPU_REG_RING_CTRL));
	EXPECT_TRUE(rd(regs, MCMGPU_REG_STATUS) & MCMGPU_STATUS_BAD_RING_CONFIG);

	/* A ring outside guest memory stops with a ring error. */
	wr(regs, MCMGPU_REG_RESET, 1);
	wr(regs, MCMGPU_REG_RING_BASE_LO, 0);
	wr(regs, MCMGPU_REG_RING_BASE_HI, 0x40000);
	wr(regs, MCMGPU_REG_CMPL_BASE_LO, 0);
	wr(regs, MCMGPU_REG_CMPL_BASE_HI, 0x40000);
	wr(regs, MCMGPU_REG_RING_SIZE, 16);
	wr(regs, MCMGPU_REG_RING_CTRL, MCMGPU_RING_CTRL_ENABLE);
	EXPECT_EQ(MCMGPU_RING_CTRL_ENABLE, rd(regs, MCMGPU_REG_RING_CTRL));
	wr(regs, MCMGPU_REG_RING_TAIL, 1);
	for (i = 0; i < 1000 && !rd(regs, MCMGPU_REG_STATUS); i++)
		usleep(1000);
	EXPECT_TRUE(rd(regs, MCMGPU_REG_STATUS) & MCMGPU_STATUS_RING_ERROR);

	/* A real ring in a locked page; commands that must all be refused. */
	page = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_LOCKED, -1, 0);
	ASSERT_NE(MAP_FAILED, page);
	memset(page, 0, 4096);
	phys = virt_to_phys(page);
	ASSERT_NE(0, phys);
	ring = (struct mcmgpu_hw_cmd *)page;
	cmpl = (struct mcmgpu_hw_cmpl *)(page + 2048);

	wr(regs, MCMGPU_REG_RESET, 1);
	wr(regs, MCMGPU_REG_RING_BASE_LO, (uint32_t)phys);
	wr(regs, MCMGPU_REG_RING_BASE_HI, phys >> 32);
	wr(regs, MCMGPU_REG_CMPL_BASE_LO, (uint32_t)(phys + 2048));
	wr(regs, MCMGPU_REG_CMPL_BASE_HI, (phys + 2048) >> 32);
	wr(regs, MCMGPU_REG_RING_SIZE, 16);
	wr(regs, MCMGPU_REG_RING_CTRL, MCMGPU_RING_CTRL_ENABLE);
	ASSERT_EQ(MCMGPU_RING_CTRL_ENABLE, rd(regs, MCMGPU_REG_RING_CTRL));
	/* The geometry cannot change under a running ring. */
	wr(regs, MCMGPU_REG_RING_SIZE, 1);
	wr(regs, MCMGPU_REG_RING_BASE_HI, 0x40000);
	EXPECT_EQ(16, rd(regs, MCMGPU_REG_RING_SIZE));
	EXPECT_EQ(phys >> 32, rd(regs, MCMGPU_REG_RING_BASE_HI));

	struct { uint16_t op, flags; uint32_t rsvd; uint64_t a0, a1, a2;
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
		{ MCMGPU_OP_NOP, 0, 5, 0, 0, 0, MCMGPU_CMPL_BAD_RESERVED },
		/* Copy 16 GPU bytes into the ring page's spare area: accepted. */
		{ MCMGPU_OP_DMA_COPY, MCMGPU_DMA_FLAG_TO_HOST, 0, phys + 3072, 0, 16,
		  MCMGPU_CMPL_OK },
	};
	int n = sizeof(cases) / sizeof(cases[0]);

	for (i = 0; i < n; i++) {
		ring[i].opcode = cases[i].op;
		ring[i].flags = cases[i].flags;
		ring[i].reserved = cases[i].rsvd;
		ring[i].seq = 100 + i;
		ring[i].args[0] = cases[i].a0;
		ring[i].args[1] = cases[i].a1;
		ring[i].args[2] = cases[i].a2;
	}
	__sync_synchronize();
	wr(regs, MCMGPU_REG_RING_TAIL, n);
	wait_head(regs, n);
	EXPECT_EQ(n, rd(regs, MCMGPU_REG_RING_HEAD));
	for (i = 0; i < n; i++) {
		EXPECT_EQ(100 + i, cmpl[i].seq);
		EXPECT_EQ(cases[i].want, cmpl[i].status) TH_LOG("case %d", i);
	}
	EXPECT_EQ(n - 1, rd(regs, MCMGPU_REG_ERR_COUNT));

	/* A tail past the ring is refused and stops the ring. */
	wr(regs, MCMGPU_REG_RING_TAIL, 999);
	EXPECT_TRUE(rd(regs, MCMGPU_REG_STATUS) & MCMGPU_STATUS_BAD_TAIL);
	EXPECT_EQ(0, rd(regs, MCMGPU_REG_RING_CTRL));

	wr(regs, MCMGPU_REG_RESET, 1);
	munmap((void *)regs, MCMGPU_BAR_REGS_SIZE);
	munmap(page, 4096);
	close(fd);

	/* The driver binds again and the device moves data. */
	ASSERT_EQ(0, load_modules());
	fd = open(DEV_PATH, O_RDWR);
	ASSERT_LE(0, fd);
	EXPECT_EQ(0, roundtrip(fd, vram + 4095, 8191));
	close(fd);
}

static volatile uint8_t *map_regs(char *slot, size_t n, int *fd)
{
	char path[PATH_MAX];
	void *p;

	if (find_slot(slot, n))
		return NULL;
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/resource0", slot);
	*fd = open(path, O_RDWR | O_SYNC);
	if (*fd < 0)
		return NULL;
	p = mmap(NULL, MCMGPU_BAR_REGS_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED,
		 *fd, 0);
	return p == MAP_FAILED ? NULL : p;
}

static int set_timeout_ms(const char *ms)
{
	int fd = open("/sys/module/mcmgpu/parameters/cmd_timeout_ms", O_WRONLY);
	int ok;

	if (fd < 0)
		return -1;
	ok = write(fd, ms, strlen(ms)) == (ssize_t)strlen(ms);
	close(fd);
	return ok ? 0 : -1;
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
	struct mcmgpu_info after;
	uint8_t buf[64];
	int rfd;

	regs = map_regs(slot, sizeof(slot), &rfd);
	ASSERT_NE(NULL, regs);
	ASSERT_EQ(0, set_timeout_ms("300"));

	wr(regs, MCMGPU_REG_FAULT_INJECT, MCMGPU_FAULT_STALL);
	EXPECT_EQ(-ETIMEDOUT, dma(self->fd, 0, buf, 0, sizeof(buf)));
	/* The reset after the timeout cleared the stall. */
	EXPECT_EQ(0, rd(regs, MCMGPU_REG_FAULT_INJECT));
	EXPECT_EQ(0, roundtrip(self->fd, 4096, 100));

	wr(regs, MCMGPU_REG_FAULT_INJECT, MCMGPU_FAULT_FAIL_NEXT);
	EXPECT_EQ(-EIO, dma(self->fd, 0, buf, 0, sizeof(buf)));
	ASSERT_EQ(0, get_info(self->fd, &after));
	EXPECT_EQ(self->info.commands_failed + 1, after.commands_failed);
	EXPECT_EQ(0, roundtrip(self->fd, 8192, 100));

	EXPECT_EQ(0, set_timeout_ms("10000"));
	munmap((void *)regs, MCMGPU_BAR_REGS_SIZE);
	close(rfd);
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

/* One CPElide launch record; 0 or -errno, the result in *res. */
static int launch(int fd, const struct cpe_record *rec,
		  struct cpe_launch_result *res)
{
	struct mcmgpu_launch ln = {
		.size = sizeof(ln), .record_size = sizeof(*rec),
		.record_ptr = (uintptr_t)rec, .result_size = sizeof(*res),
		.result_ptr = (uintptr_t)res,
	};

	memset(res, 0, sizeof(*res));
	return ioctl(fd, MCMGPU_IOCTL_LAUNCH, &ln) ? -errno : 0;
}

static int launch_reset(int fd)
{
	struct cpe_record r = { .type = CPE_REC_RESET, .chiplets = 2,
				.policy = CPE_POLICY_CPELIDE, .mem_bytes = 1 << 20 };
	struct cpe_launch_result res;

	return launch(fd, &r, &res);
}

/* A one-argument kernel on chiplet 0; *kernels is the device's count. */
static int launch_kernel(int fd, uint64_t *kernels)
{
	struct cpe_record r = { .type = CPE_REC_KERNEL, .nargs = 1,
				.chiplet_mask = 1, .passes = 1 };
	struct cpe_launch_result res;
	int ret;

	r.args[0].size = 4096;
	r.args[0].mode = CPE_MODE_R;
	r.args[0].kind = CPE_ARG_EVEN;
	ret = launch(fd, &r, &res);
	*kernels = res.stats.kernels;
	return ret;
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
	uint64_t kernels;
	int rfd, status, i, k;
	pid_t pid;

	regs = map_regs(slot, sizeof(slot), &rfd);
	ASSERT_NE(NULL, regs);
	for (i = 0; i < 2; i++) {
		ASSERT_EQ(0, launch_reset(self->fd));
		wr(regs, MCMGPU_REG_FAULT_INJECT, MCMGPU_FAULT_STALL);
		pid = fork();
		ASSERT_LE(0, pid);
		if (pid == 0) {
			handle(SIGUSR1, flags[i]);
			if (launch_kernel(self->fd, &kernels))
				_exit(2);
			_exit(kernels == 1 ? 0 : 1);
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
		wr(regs, MCMGPU_REG_FAULT_INJECT, 0);
		ASSERT_EQ(pid, waitpid(pid, &status, 0));
		EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
			TH_LOG("sa_flags %#x: child exit %d", flags[i],
			       WEXITSTATUS(status));
		ASSERT_EQ(0, launch_kernel(self->fd, &kernels));
		EXPECT_EQ(2, kernels);
	}
	munmap((void *)regs, MCMGPU_BAR_REGS_SIZE);
	close(rfd);
}

/*
 * A child launches while its parent stops and continues it again and
 * again: the device's kernel count equals the number of successful calls.
 */
TEST_F(dev, stop_continue_during_launches_applies_each_once)
{
	int pipefd[2], status, ok_calls = -1;
	uint64_t kernels;
	pid_t pid;

	ASSERT_EQ(0, launch_reset(self->fd));
	ASSERT_EQ(0, pipe(pipefd));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		int n = 0, i;

		close(pipefd[0]);
		for (i = 0; i < 300; i++)
			n += launch_kernel(self->fd, &kernels) == 0;
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
	ASSERT_EQ(0, launch_kernel(self->fd, &kernels));
	EXPECT_EQ(ok_calls + 1, kernels);
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
	fill_random(src, len);
	ASSERT_EQ(0, get_info(self->fd, &before));
	handle(SIGALRM, SA_RESTART);
	ASSERT_EQ(0, setitimer(ITIMER_REAL, &it, NULL));
	wr_ret = dma(self->fd, 0, src, 4096, len);
	rd_ret = dma(self->fd, MCMGPU_DMA_FROM_GPU, dst, 4096, len);
	setitimer(ITIMER_REAL, &off, NULL);
	EXPECT_EQ(0, wr_ret);
	EXPECT_EQ(0, rd_ret);
	EXPECT_EQ(0, memcmp(src, dst, len));
	ASSERT_EQ(0, get_info(self->fd, &after));
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

	regs = map_regs(slot, sizeof(slot), &rfd);
	ASSERT_NE(NULL, regs);
	count = rd(regs, MCMGPU_REG_CMD_COUNT);
	wr(regs, MCMGPU_REG_FAULT_INJECT, MCMGPU_FAULT_STALL);
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		uint8_t buf[256] = { 0 };

		_exit(dma(self->fd, 0, buf, 0, sizeof(buf)) ? 1 : 0);
	}
	usleep(300000);
	kill(pid, SIGKILL);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	/* The device resumes: the stalled command completes, then ours. */
	wr(regs, MCMGPU_REG_FAULT_INJECT, 0);
	EXPECT_EQ(0, roundtrip(self->fd, 3 * 4096, 512));
	EXPECT_EQ(count + 3, rd(regs, MCMGPU_REG_CMD_COUNT));
	munmap((void *)regs, MCMGPU_BAR_REGS_SIZE);
	close(rfd);
}

TEST(module_unload_reload_keeps_gpu_memory)
{
	uint8_t pattern[8192], back[8192];
	struct mcmgpu_info info;
	int fd, round;

	fill_random(pattern, sizeof(pattern));
	fd = open(DEV_PATH, O_RDWR);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, get_info(fd, &info));
	ASSERT_EQ(0, dma(fd, 0, pattern, info.vram_total - sizeof(pattern),
			 sizeof(pattern)));
	close(fd);

	for (round = 0; round < 3; round++) {
		ASSERT_EQ(0, unload_modules());
		EXPECT_NE(0, access(DEV_PATH, F_OK));
		EXPECT_NE(0, access("/sys/bus/auxiliary/devices/mcmgpu.iommu.0", F_OK));
		ASSERT_EQ(0, load_modules());
		/* Same minor name and aux ids: the previous instance was freed. */
		ASSERT_EQ(0, access(DEV_PATH, F_OK));
		EXPECT_EQ(0, access("/sys/bus/auxiliary/devices/mcmgpu.iommu.0/driver", F_OK));
		EXPECT_EQ(0, access("/sys/bus/auxiliary/devices/mcmgpu.cxl_rc.0/driver", F_OK));
	}
	fd = open(DEV_PATH, O_RDWR);
	ASSERT_LE(0, fd);
	memset(back, 0, sizeof(back));
	ASSERT_EQ(0, dma(fd, MCMGPU_DMA_FROM_GPU, back,
			 info.vram_total - sizeof(back), sizeof(back)));
	EXPECT_EQ(0, memcmp(pattern, back, sizeof(back)));
	close(fd);
}

TEST(open_file_survives_unbind)
{
	char slot[NAME_MAX + 1], path[PATH_MAX];
	struct mcmgpu_info info;
	int fd, ufd;

	ASSERT_EQ(0, find_slot(slot, sizeof(slot)));
	fd = open(DEV_PATH, O_RDWR);
	ASSERT_LE(0, fd);
	ufd = open("/sys/bus/pci/drivers/mcmgpu/unbind", O_WRONLY);
	ASSERT_LE(0, ufd);
	ASSERT_EQ((ssize_t)strlen(slot), write(ufd, slot, strlen(slot)));
	close(ufd);
	/* The device is gone under the open file: ENODEV, no crash. */
	EXPECT_EQ(-ENODEV, get_info(fd, &info));
	close(fd);
	ufd = open("/sys/bus/pci/drivers/mcmgpu/bind", O_WRONLY);
	ASSERT_LE(0, ufd);
	ASSERT_EQ((ssize_t)strlen(slot), write(ufd, slot, strlen(slot)));
	close(ufd);
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/driver", slot);
	EXPECT_EQ(0, access(path, F_OK));
	fd = open(DEV_PATH, O_RDWR);
	ASSERT_LE(0, fd);
	EXPECT_EQ(0, roundtrip(fd, 12345, 777));
	close(fd);
}

static int write_sysfs(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, val, strlen(val));
	close(fd);
	return n == (ssize_t)strlen(val) ? 0 : -1;
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

	ASSERT_EQ(0, find_slot(slot, sizeof(slot)));
	fd = open(DEV_PATH, O_RDWR);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, write_sysfs("/sys/bus/pci/drivers/mcmgpu/unbind", slot));
	ASSERT_EQ(0, write_sysfs("/sys/bus/pci/drivers/mcmgpu/bind", slot));
	EXPECT_NE(0, access(DEV_PATH, F_OK));
	EXPECT_EQ(0, access("/dev/mcmgpu1", F_OK));
	snprintf(cmd, sizeof(cmd), "mcmgpu dma roundtrip --size 4K --device %s",
		 slot);
	EXPECT_EQ(0, run_cmd(cmd, NULL, 0)) TH_LOG("%s", cmd);
	/* The short form without the PCI domain works too. */
	snprintf(cmd, sizeof(cmd), "mcmgpu dma roundtrip --size 4K --device %s",
		 slot + 5);
	EXPECT_EQ(0, run_cmd(cmd, NULL, 0)) TH_LOG("%s", cmd);
	EXPECT_EQ(0, run_cmd("mcmgpu dma roundtrip --size 4K --device 1", NULL, 0));
	close(fd);
	ASSERT_EQ(0, write_sysfs("/sys/bus/pci/drivers/mcmgpu/unbind", slot));
	ASSERT_EQ(0, write_sysfs("/sys/bus/pci/drivers/mcmgpu/bind", slot));
	fd = open(DEV_PATH, O_RDWR);
	ASSERT_LE(0, fd);
	EXPECT_EQ(0, roundtrip(fd, 4096, 4096));
	close(fd);
}

TEST_HARNESS_MAIN
