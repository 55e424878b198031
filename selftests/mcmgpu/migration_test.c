// SPDX-License-Identifier: GPL-2.0
/*
 * Migration (issue 9, item 6): the guest is migrated through a file while
 * it runs (tools/vm-run --migrate, QMP 'migrate' then a new QEMU with
 * -incoming) and checks that GPU memory, the registers, the ring and the
 * engines' state survive or are refused as documented (docs/device.md,
 * "Migration"), that commands after the restore complete correctly, and
 * that a migration started while a long command and DMA copies are in
 * flight lets them complete with the right result.
 *
 * Each test prints @@MCMGPU-MIGRATE@@ and goes on working until the line
 * "migrated" arrives on its console input; without MCMGPU_MIGRATE=1 in the
 * environment (a plain vm-run has no one to answer) the tests skip.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "../lib/mcmgpu_test.h"

#define PATTERN_BYTES	(64 << 10)
#define BUSY_BYTES	(16 << 10)
#define BIG_BYTES	(8 << 20)

static bool migrating(void)
{
	return mt_env_u64("MCMGPU_MIGRATE", 0) == 1;
}

static void ask_migration(void)
{
	printf("@@MCMGPU-MIGRATE@@\n");
	fflush(stdout);
}

/* True once the line "migrated" is on the console; wait_ms as in poll(2). */
static bool migrated(int wait_ms)
{
	struct pollfd p = { .fd = STDIN_FILENO, .events = POLLIN };
	char line[64];
	ssize_t n;

	if (poll(&p, 1, wait_ms) != 1)
		return false;
	n = read(STDIN_FILENO, line, sizeof(line) - 1);
	if (n <= 0)
		return false;
	line[n] = '\0';
	return strstr(line, "migrated") != NULL;
}

/* The registers that must come back exactly as they were. */
static const unsigned int kept_regs[] = {
	MCMGPU_REG_IDENT, MCMGPU_REG_VERSION, MCMGPU_REG_CHIPLETS,
	MCMGPU_REG_FEATURES, MCMGPU_REG_VRAM_PER_CHIPLET_LO,
	MCMGPU_REG_VRAM_PER_CHIPLET_HI, MCMGPU_REG_RING_BASE_LO,
	MCMGPU_REG_RING_BASE_HI, MCMGPU_REG_RING_SIZE, MCMGPU_REG_RING_CTRL,
	MCMGPU_REG_CMPL_BASE_LO, MCMGPU_REG_CMPL_BASE_HI, MCMGPU_REG_IRQ_MASK,
	MCMGPU_REG_CONTEXTS, MCMGPU_REG_ERR_COUNT, MCMGPU_REG_FAULT_INJECT,
};

#define NKEPT (sizeof(kept_regs) / sizeof(kept_regs[0]))

static void read_kept(volatile uint8_t *regs, uint32_t *v)
{
	unsigned int i;

	for (i = 0; i < NKEPT; i++)
		v[i] = mt_rd(regs, kept_regs[i]);
}

/* A two-kernel CPElide sequence: reset, a writer on chiplet 0, a reader on 1. */
static int cpelide_sequence(int fd, bool reset, struct mcmgpu_cpe_launch_result *res)
{
	struct mcmgpu_cpe_record r = {
		.type = MCMGPU_CPE_REC_RESET, .chiplets = 2,
		.policy = MCMGPU_CPE_POLICY_CPELIDE, .mem_bytes = 1 << 20,
	};
	int ret;

	if (reset) {
		ret = mt_launch(fd, &r, res);
		if (ret)
			return ret;
	}
	memset(&r, 0, sizeof(r));
	r.type = MCMGPU_CPE_REC_KERNEL;
	r.nargs = 1;
	r.passes = 1;
	r.chiplet_mask = 1;
	r.args[0].size = 256 << 10;
	r.args[0].mode = MCMGPU_CPE_MODE_RW;
	r.args[0].kind = MCMGPU_CPE_ARG_EVEN;
	ret = mt_launch(fd, &r, res);
	if (ret)
		return ret;
	r.chiplet_mask = 2;
	r.args[0].mode = MCMGPU_CPE_MODE_R;
	return mt_launch(fd, &r, res);
}

static int finepack_replay(char *out, size_t n)
{
	if (mt_run_cmd("mcmgpu finepack gen pagerank --iters 1 --count 2000 "
		       "-o /tmp/migration.bin", NULL, 0))
		return -1;
	return mt_run_cmd("mcmgpu finepack replay --json /tmp/migration.bin",
			  out, n);
}

/* The CXL aperture (BAR4) of the device in slot; NULL on failure. */
static volatile uint32_t *map_cxl_window(const char *slot, int *fd)
{
	char path[PATH_MAX];
	void *p;

	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/resource4", slot);
	*fd = open(path, O_RDWR | O_SYNC);
	if (*fd < 0)
		return NULL;
	p = mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE, MAP_SHARED, *fd, 0);
	return p == MAP_FAILED ? NULL : p;
}

FIXTURE(migration) {
	char slot[NAME_MAX + 1];
	int fd;
	int regs_fd;
	volatile uint8_t *regs;
	struct mcmgpu_info info;
};

FIXTURE_SETUP(migration)
{
	char *slot = self->slot;

	if (!migrating())
		SKIP(return, "run under 'tools/vm-run --migrate' with MCMGPU_MIGRATE=1");
	self->fd = mt_open_dev();
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, mt_get_info(self->fd, &self->info));
	self->regs = mt_map_regs(slot, sizeof(self->slot), &self->regs_fd);
	ASSERT_NE(NULL, self->regs);
}

FIXTURE_TEARDOWN(migration)
{
	if (!migrating())
		return;
	mt_unmap_regs(self->regs, self->regs_fd);
	close(self->fd);
}

/*
 * Memory, registers and engines across a live migration during which the
 * guest keeps making DMA round trips.
 */
TEST_F_TIMEOUT(migration, state_survives, 300)
{
	unsigned int c, chiplets = self->info.chiplets;
	uint64_t per = self->info.vram_per_chiplet;
	uint8_t *pattern, *back;
	uint32_t before[NKEPT], after[NKEPT], cmds0, cmds1;
	struct mcmgpu_cpe_launch_result res0, res1;
	struct mcmgpu_info info1;
	/* show --json of 8 ports is about 10 KiB; a cut would hide a difference. */
	static char cxl0[32768], cxl1[32768];
	char fp0[4096], fp1[4096];
	volatile uint32_t *win;
	int win_fd;
	long trips = 0;

	/* A skip in the setup does not stop the body. */
	if (!migrating())
		return;

	pattern = malloc(PATTERN_BYTES * chiplets);
	back = malloc(PATTERN_BYTES * chiplets);
	ASSERT_TRUE(pattern && back);
	/* The replays write GPU memory: they go before the patterns. */
	ASSERT_EQ(0, cpelide_sequence(self->fd, true, &res0))
		TH_LOG("%s", res0.error.what);
	ASSERT_EQ(0, finepack_replay(fp0, sizeof(fp0)));
	/* The CXL root complex: an interleaved layout and data behind it. */
	ASSERT_EQ(0, mt_run_cmd("mcmgpu cxl setup +0:512M:2:1K:1,0", NULL, 0));
	ASSERT_EQ(0, mt_run_cmd("mcmgpu cxl show --json", cxl0, sizeof(cxl0)));
	win = map_cxl_window(self->slot, &win_fd);
	ASSERT_NE(NULL, win);
	for (c = 0; c < 4096; c++)
		win[c * 61] = 0x5a000000 + c;
	mt_fill_random(pattern, PATTERN_BYTES * chiplets);
	/* One pattern per chiplet, the last one cut unaligned at the top. */
	for (c = 0; c < chiplets; c++) {
		uint64_t at = c + 1 < chiplets ? c * per + (1 << 20) + 4097 :
			      (c + 1) * per - PATTERN_BYTES;

		ASSERT_EQ(0, mt_dma(self->fd, 0, pattern + c * PATTERN_BYTES,
				    at, PATTERN_BYTES));
	}

	/* Every round trip is two commands; measured, not assumed. */
	cmds0 = mt_rd(self->regs, MCMGPU_REG_CMD_COUNT);
	ASSERT_EQ(0, mt_roundtrip(self->fd, 2 << 20, BUSY_BYTES));
	ASSERT_EQ(cmds0 + 2, mt_rd(self->regs, MCMGPU_REG_CMD_COUNT));
	read_kept(self->regs, before);
	cmds0 = mt_rd(self->regs, MCMGPU_REG_CMD_COUNT);

	ask_migration();
	do {
		ASSERT_EQ(0, mt_roundtrip(self->fd, 2 << 20, BUSY_BYTES))
			TH_LOG("round trip %ld", trips);
		trips++;
	} while (!migrated(0));
	TH_LOG("%ld DMA round trips during the migration", trips);

	read_kept(self->regs, after);
	for (c = 0; c < NKEPT; c++)
		EXPECT_EQ(before[c], after[c])
			TH_LOG("register 0x%03x", kept_regs[c]);
	cmds1 = mt_rd(self->regs, MCMGPU_REG_CMD_COUNT);
	EXPECT_EQ(cmds0 + 2 * trips, cmds1);
	EXPECT_EQ(0, mt_rd(self->regs, MCMGPU_REG_STATUS) & MCMGPU_STATUS_BUSY);
	ASSERT_EQ(0, mt_get_info(self->fd, &info1));
	EXPECT_EQ(cmds1, info1.commands_done);
	info1.commands_done = self->info.commands_done;
	info1.commands_failed = self->info.commands_failed;
	EXPECT_EQ(0, memcmp(&self->info, &info1, sizeof(info1)));

	for (c = 0; c < chiplets; c++) {
		uint64_t at = c + 1 < chiplets ? c * per + (1 << 20) + 4097 :
			      (c + 1) * per - PATTERN_BYTES;

		ASSERT_EQ(0, mt_dma(self->fd, MCMGPU_DMA_FROM_GPU,
				    back + c * PATTERN_BYTES, at, PATTERN_BYTES));
	}
	for (c = 0; c < chiplets; c++)
		EXPECT_EQ(0, memcmp(pattern + c * PATTERN_BYTES,
				    back + c * PATTERN_BYTES, PATTERN_BYTES))
			TH_LOG("GPU memory of chiplet %u", c);

	/* CPElide keeps no sequence across a migration (documented)... */
	EXPECT_EQ(-EINVAL, cpelide_sequence(self->fd, false, &res1));
	EXPECT_NE(NULL, strstr(res1.error.what, "no sequence"))
		TH_LOG("%s", res1.error.what);
	/* ...and a new one gives the same counters as before. */
	ASSERT_EQ(0, cpelide_sequence(self->fd, true, &res1))
		TH_LOG("%s", res1.error.what);
	EXPECT_EQ(0, memcmp(&res0.stats, &res1.stats, sizeof(res0.stats)));
	ASSERT_EQ(0, finepack_replay(fp1, sizeof(fp1)));
	EXPECT_STREQ(fp0, fp1);
	/* The decoders and the endpoints' media came along. */
	ASSERT_EQ(0, mt_run_cmd("mcmgpu cxl show --json", cxl1, sizeof(cxl1)));
	EXPECT_STREQ(cxl0, cxl1);
	EXPECT_NE(NULL, strstr(cxl1, "\"decoders\": [{")) TH_LOG("%s", cxl1);
	for (c = 0; c < 4096; c++)
		ASSERT_EQ(0x5a000000 + c, win[c * 61]) TH_LOG("word %u", c * 61);
	munmap((void *)win, 1 << 20);
	close(win_fd);
	EXPECT_EQ(0, mt_run_cmd("mcmgpu cxl setup", NULL, 0));
	EXPECT_EQ(0, mt_roundtrip(self->fd, 3 << 20, 1 << 20));
	free(pattern);
	free(back);
}

struct in_flight {
	int fd;
	int ret;
	struct mcmgpu_cpe_launch_result res;
};

/* One kernel sweeping 32 MiB 15 times on two chiplets: seconds of work. */
static const struct mcmgpu_cpe_record long_reset = {
	.type = MCMGPU_CPE_REC_RESET, .chiplets = 2,
	.policy = MCMGPU_CPE_POLICY_CPELIDE, .mem_bytes = 32 << 20,
};

static struct mcmgpu_cpe_record long_kernel(void)
{
	struct mcmgpu_cpe_record k = {
		.type = MCMGPU_CPE_REC_KERNEL, .nargs = 1, .chiplet_mask = 3,
		.passes = 15,
	};

	k.args[0].size = 32 << 20;
	k.args[0].mode = MCMGPU_CPE_MODE_RW;
	k.args[0].kind = MCMGPU_CPE_ARG_EVEN;
	return k;
}

static void *launch_long(void *arg)
{
	struct in_flight *f = arg;
	struct mcmgpu_cpe_record k = long_kernel();

	f->ret = mt_launch(f->fd, &k, &f->res);
	return NULL;
}

/* 8 MiB out and back (16 commands), on its own file, during the migration. */
static void *copy_big(void *arg)
{
	struct in_flight *f = arg;

	f->ret = mt_roundtrip(f->fd, 8 << 20, BIG_BYTES);
	return NULL;
}

TEST_F_TIMEOUT(migration, command_in_flight_completes, 300)
{
	struct in_flight launch = { .fd = self->fd }, copy = { .fd = -1 };
	struct mcmgpu_cpe_launch_result again;
	struct mcmgpu_cpe_record k = long_kernel();
	pthread_t t_launch, t_copy;
	int spins = 0;

	if (!migrating())
		return;

	ASSERT_EQ(0, mt_launch(self->fd, &long_reset, &again));
	copy.fd = mt_open_dev();
	ASSERT_LE(0, copy.fd);
	ASSERT_EQ(0, pthread_create(&t_launch, NULL, launch_long, &launch));
	while (!(mt_rd(self->regs, MCMGPU_REG_STATUS) & MCMGPU_STATUS_BUSY) &&
	       spins++ < 5000)
		usleep(1000);
	ASSERT_NE(0, mt_rd(self->regs, MCMGPU_REG_STATUS) & MCMGPU_STATUS_BUSY);
	ASSERT_EQ(0, pthread_create(&t_copy, NULL, copy_big, &copy));
	ask_migration();
	while (!migrated(1000))
		;
	pthread_join(t_launch, NULL);
	pthread_join(t_copy, NULL);
	EXPECT_EQ(0, launch.ret) TH_LOG("%s", launch.res.error.what);
	EXPECT_EQ(0, copy.ret);
	EXPECT_EQ(15ULL * (32 << 20) / 64, launch.res.stats.l1_hits +
		  launch.res.stats.l2_hits + launch.res.stats.l2_misses);
	/* The same sequence after the restore counts exactly the same. */
	ASSERT_EQ(0, mt_launch(self->fd, &long_reset, &again));
	ASSERT_EQ(0, mt_launch(self->fd, &k, &again));
	EXPECT_EQ(0, memcmp(&launch.res.stats, &again.stats, sizeof(again.stats)));
	EXPECT_EQ(0, mt_roundtrip(copy.fd, 8 << 20, 1 << 20));
	close(copy.fd);
}

TEST_HARNESS_MAIN
