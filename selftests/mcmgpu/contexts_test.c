// SPDX-License-Identifier: GPL-2.0
/*
 * Device contexts, one per open file: two processes replaying FinePack
 * traces or CPElide sequences at the same time each get the result they
 * get alone; the device's bounded number of contexts runs out with ENOSPC
 * and a close frees one; closing or resetting other files leaves a file's
 * sequence alone; and each auxiliary driver's PING comes back on its own
 * MSI-X vector.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "../lib/mcmgpu_test.h"
#include "mcmgpu_finepack.h"
#include "fp_trace.h"

#define ROUNDS		3	/* concurrent replays of each pair */
#define OUT_BYTES	(1 << 16)

static char solo[2][OUT_BYTES], both[2][OUT_BYTES];

/*
 * Runs each command alone, then both at once (both started before either
 * is read) ROUNDS times: each concurrent output equals its solo output
 * byte for byte. want is a string every solo output must contain.
 */
static void concurrent_equals_solo(struct __test_metadata *_metadata,
				   const char *const cmds[2], const char *want)
{
	char *outs[2] = { both[0], both[1] };
	int status[2], i, round;

	for (i = 0; i < 2; i++) {
		ASSERT_EQ(0, mt_run_cmd(cmds[i], solo[i], OUT_BYTES))
			TH_LOG("%s: %s", cmds[i], solo[i]);
		ASSERT_GT((size_t)OUT_BYTES - 1, strlen(solo[i]));
		EXPECT_NE(NULL, strstr(solo[i], want)) TH_LOG("%s", solo[i]);
	}
	/* Different results, so output of one in the other would show. */
	ASSERT_STRNE(solo[0], solo[1]);
	for (round = 0; round < ROUNDS; round++) {
		ASSERT_EQ(0, mt_run_cmds(2, cmds, outs, OUT_BYTES, status));
		for (i = 0; i < 2; i++) {
			EXPECT_EQ(0, status[i]) TH_LOG("round %d: %s", round, cmds[i]);
			EXPECT_EQ(strlen(solo[i]), strlen(both[i]));
			EXPECT_STREQ(solo[i], both[i])
				TH_LOG("round %d: %s", round, cmds[i]);
		}
	}
}

/* Replays at 8 chiplets under TCG can pass the harness's 30 s default. */
FIXTURE(replays) {
	int unused;
};

FIXTURE_SETUP(replays)
{
}

FIXTURE_TEARDOWN(replays)
{
}

TEST_F_TIMEOUT(replays, concurrent_cpelide_replays_equal_solo, 300)
{
	static const char *const seqs[2] = { "/tmp/ctx-square.seq", "/tmp/ctx-lud.seq" };
	static const char *const gens[2] = { "square", "lud" };
	char cmd[2][256];
	const char *cmds[2];
	int i;

	for (i = 0; i < 2; i++) {
		snprintf(cmd[i], sizeof(cmd[i]), "mcmgpu cpelide gen %s --chiplets %u -o %s",
			 gens[i], mt_expect_chiplets(), seqs[i]);
		ASSERT_EQ(0, mt_run_cmd(cmd[i], NULL, 0)) TH_LOG("%s", cmd[i]);
		snprintf(cmd[i], sizeof(cmd[i]),
			 "mcmgpu cpelide replay --json --policy cpelide %s", seqs[i]);
		cmds[i] = cmd[i];
	}
	concurrent_equals_solo(_metadata, cmds, "\"oracle_violations\": 0,");
	for (i = 0; i < 2; i++)
		unlink(seqs[i]);
}

/*
 * Moves every access of the binary trace at path by delta bytes (0: only
 * measures) and gives the span [*lo, *hi) its accesses cover afterwards,
 * in any destination.
 */
static int trace_move(const char *path, uint64_t delta, uint64_t *lo, uint64_t *hi)
{
	struct mcmgpu_fp_trace_header *hdr;
	struct mcmgpu_fp_trace_record *rec;
	char msg[256];
	uint8_t *t;
	size_t len;
	uint64_t i;
	int ret = 0;

	t = fp_trace_load(path, &len, msg, sizeof(msg));
	if (!t)
		return -1;
	hdr = (struct mcmgpu_fp_trace_header *)t;
	rec = (struct mcmgpu_fp_trace_record *)(t + hdr->header_size);
	*lo = UINT64_MAX;
	*hi = 0;
	for (i = 0; i < hdr->nrecords; i++) {
		if (rec[i].type != MCMGPU_FP_REC_STORE && rec[i].type != MCMGPU_FP_REC_LOAD &&
		    rec[i].type != MCMGPU_FP_REC_ATOMIC)
			continue;
		rec[i].addr += delta;
		if (rec[i].addr < *lo)
			*lo = rec[i].addr;
		if (rec[i].addr + rec[i].len > *hi)
			*hi = rec[i].addr + rec[i].len;
	}
	if (delta)
		ret = mt_write_file(path, t, len);
	free(t);
	return ret;
}

/*
 * Device memory is shared by every context, and --verify reads back the
 * whole span a trace writes: the two traces are kept apart (the second
 * moved to the top of each chiplet's memory) so that one replay's stores
 * cannot show in the other's verify.
 */
TEST_F_TIMEOUT(replays, concurrent_finepack_replays_equal_solo, 300)
{
	static const char *const traces[2] = { "/tmp/ctx-jacobi.bin",
					       "/tmp/ctx-pagerank.bin" };
	static const char *const gens[2] = { "jacobi --iters 2",
					     "pagerank --iters 1 --count 3000" };
	uint64_t lo[2], hi[2], delta;
	struct mcmgpu_info info;
	char cmd[2][256];
	const char *cmds[2];
	int fd, i;

	fd = mt_open_dev();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, mt_get_info(fd, &info));
	close(fd);
	for (i = 0; i < 2; i++) {
		snprintf(cmd[i], sizeof(cmd[i]), "mcmgpu finepack gen %s --chiplets %u -o %s",
			 gens[i], mt_expect_chiplets(), traces[i]);
		ASSERT_EQ(0, mt_run_cmd(cmd[i], NULL, 0)) TH_LOG("%s", cmd[i]);
		ASSERT_EQ(0, trace_move(traces[i], 0, &lo[i], &hi[i]));
	}
	delta = (info.vram_per_chiplet - hi[1]) & ~4095ULL;	/* keeps line offsets */
	if (hi[1] > info.vram_per_chiplet || lo[1] + delta < hi[0])
		SKIP(return, "%llu bytes per chiplet cannot keep the traces apart",
		     (unsigned long long)info.vram_per_chiplet);
	ASSERT_EQ(0, trace_move(traces[1], delta, &lo[1], &hi[1]));
	ASSERT_LE(hi[0], lo[1]);
	ASSERT_GE(info.vram_per_chiplet, hi[1]);

	for (i = 0; i < 2; i++) {
		snprintf(cmd[i], sizeof(cmd[i]), "mcmgpu finepack replay --json --verify %s",
			 traces[i]);
		cmds[i] = cmd[i];
	}
	concurrent_equals_solo(_metadata, cmds, "\"mismatched_bytes\": 0}");
	for (i = 0; i < 2; i++)
		unlink(traces[i]);
}

/*
 * Every open takes one of the device's CONTEXTS contexts; when none is
 * left, open fails with ENOSPC and the files already open keep working.
 * A close gives its context back to the next open.
 */
TEST(context_exhaustion_gives_enospc_and_close_frees)
{
	char slot[NAME_MAX + 1];
	struct mcmgpu_info info;
	volatile uint8_t *regs;
	struct rlimit rl;
	int64_t contexts;
	int rfd, max, n = 0, err, fd, i;
	int *fds;

	regs = mt_map_regs(slot, sizeof(slot), &rfd);
	ASSERT_NE(NULL, regs);
	contexts = mt_rd(regs, MCMGPU_REG_CONTEXTS);
	mt_unmap_regs(regs, rfd);
	ASSERT_LT(0, contexts);
	ASSERT_GT(1 << 20, contexts);

	/* Room for more files than contexts, so that EMFILE cannot come first. */
	max = contexts + 16;
	ASSERT_EQ(0, getrlimit(RLIMIT_NOFILE, &rl));
	if (rl.rlim_cur < (rlim_t)max + 64) {
		rl.rlim_cur = rl.rlim_max < (rlim_t)max + 64 ? rl.rlim_max : (rlim_t)max + 64;
		ASSERT_EQ(0, setrlimit(RLIMIT_NOFILE, &rl));
	}
	ASSERT_LE((rlim_t)max + 64, rl.rlim_cur);
	fds = calloc(max, sizeof(*fds));
	ASSERT_NE(NULL, fds);

	for (err = 0; n < max; n++) {
		fds[n] = mt_open_dev();
		if (fds[n] < 0) {
			err = errno;
			break;
		}
	}
	ASSERT_GT(max, n) TH_LOG("%d opens and none failed (CONTEXTS %lld)", n,
				 (long long)contexts);
	EXPECT_EQ(ENOSPC, err) TH_LOG("open %d: %s", n + 1, strerror(err));
	EXPECT_GE(contexts, n);
	EXPECT_LE(contexts - 4, n) TH_LOG("%d of %lld contexts", n, (long long)contexts);
	ASSERT_LT(0, n);
	/* Still full: a second try fails the same way and leaks nothing. */
	EXPECT_EQ(-1, mt_open_dev());
	EXPECT_EQ(ENOSPC, errno);
	/* The open files work. */
	EXPECT_EQ(0, mt_get_info(fds[0], &info));
	ASSERT_EQ(0, mt_get_info(fds[n - 1], &info));

	/* A close frees a context for the next open, which moves data. */
	close(fds[--n]);
	fds[n] = mt_open_dev();
	ASSERT_LE(0, fds[n]) TH_LOG("open after a close: %s", strerror(errno));
	n++;
	EXPECT_EQ(0, mt_roundtrip(fds[n - 1], info.vram_per_chiplet + 4093, 8195));

	for (i = 0; i < n; i++)
		close(fds[i]);
	free(fds);
	fd = mt_open_dev();
	ASSERT_LE(0, fd) TH_LOG("open after closing all: %s", strerror(errno));
	close(fd);
}

/*
 * A file's launch sequence outlives everything other files do: one opened
 * and closed, another process's sequence started and dropped with its
 * exit, a third file's RESET and kernels in between.
 */
TEST(a_context_survives_others_closing)
{
	struct mcmgpu_cpe_launch_result res;
	int a, b, c, status;
	pid_t pid;

	a = mt_open_dev();
	ASSERT_LE(0, a);
	ASSERT_EQ(0, mt_launch_reset(a));
	ASSERT_EQ(0, mt_launch_kernel(a, &res)) TH_LOG("%s", res.error.what);
	ASSERT_EQ(1, res.stats.kernels);

	b = mt_open_dev();
	ASSERT_LE(0, b);
	ASSERT_EQ(0, close(b));		/* destroys b's context */

	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		int fd = mt_open_dev();

		if (fd < 0 || mt_launch_reset(fd))
			_exit(1);
		if (mt_launch_kernel(fd, &res) || res.stats.kernels != 1)
			_exit(2);
		_exit(0);		/* the exit closes fd */
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
		TH_LOG("child status %#x", status);

	c = mt_open_dev();
	ASSERT_LE(0, c);
	ASSERT_EQ(0, mt_launch_reset(c));

	ASSERT_EQ(0, mt_launch_kernel(a, &res)) TH_LOG("%s", res.error.what);
	EXPECT_EQ(2, res.stats.kernels);
	/* And c's sequence is its own. */
	ASSERT_EQ(0, mt_launch_kernel(c, &res)) TH_LOG("%s", res.error.what);
	EXPECT_EQ(1, res.stats.kernels);
	close(c);
	ASSERT_EQ(0, mt_launch_kernel(a, &res)) TH_LOG("%s", res.error.what);
	EXPECT_EQ(3, res.stats.kernels);
	close(a);
}

struct aux {
	const char *name;	/* mcmgpu.NAME.0 */
	unsigned int window, vector;
	const char *irq;	/* its handler in /proc/interrupts */
};

static const struct aux auxes[2] = {
	{ "iommu", MCMGPU_WINDOW_IOMMU, MCMGPU_MSIX_VEC_IOMMU, "mcmgpu-iommu" },
	{ "cxl_rc", MCMGPU_WINDOW_CXL_RC, MCMGPU_MSIX_VEC_CXL_RC, "mcmgpu-cxl-rc" },
};

static void ping_path(const struct aux *a, char *path, size_t n)
{
	snprintf(path, n, "/sys/bus/auxiliary/devices/mcmgpu.%s.0/ping", a->name);
}

/* The aux driver's "pings P irqs I"; 0 or -1. */
static int read_ping(const struct aux *a, unsigned long long *pings,
		     unsigned long long *irqs)
{
	char path[PATH_MAX], buf[256];

	ping_path(a, path, sizeof(path));
	if (mt_read_file(path, buf, sizeof(buf)) <= 0)
		return -1;
	return sscanf(buf, "pings %llu irqs %llu", pings, irqs) == 2 ? 0 : -1;
}

/* Interrupts on all CPUs of the /proc/interrupts lines naming name; -1: none. */
static long long irq_count(const char *name)
{
	FILE *f = fopen("/proc/interrupts", "r");
	long long total = -1;
	char line[8192];

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char *p = strchr(line, ':'), *end;

		if (!p || !strstr(line, name))
			continue;
		if (total < 0)
			total = 0;
		for (p++;; p = end) {
			unsigned long long v = strtoull(p, &end, 10);

			if (end == p)
				break;
			total += v;
		}
	}
	fclose(f);
	return total;
}

struct ping_counts {
	unsigned long long pings, irqs;	/* the aux driver's */
	uint32_t win_pings;		/* the device's window register */
	long long interrupts;		/* /proc/interrupts */
};

static int ping_counts(volatile uint8_t *regs, const struct aux *a,
		       struct ping_counts *c)
{
	c->win_pings = mt_rd(regs, MCMGPU_WINDOW(a->window) + MCMGPU_WIN_PINGS);
	c->interrupts = irq_count(a->irq);
	return read_ping(a, &c->pings, &c->irqs);
}

/*
 * Writing 1 to an aux driver's ping makes it submit a PING for its own
 * window and wait for its own vector: its counters, the window's PINGS
 * register and its /proc/interrupts line each go up, the other's do not.
 */
TEST(each_aux_driver_pings_on_its_own_vector)
{
	struct ping_counts before, after, other0, other1;
	char slot[NAME_MAX + 1], path[PATH_MAX];
	volatile uint8_t *regs;
	int rfd, i, ret;

	regs = mt_map_regs(slot, sizeof(slot), &rfd);
	ASSERT_NE(NULL, regs);
	for (i = 0; i < 2; i++) {
		const struct aux *a = &auxes[i], *o = &auxes[1 - i];

		EXPECT_EQ(a->vector, mt_rd(regs, MCMGPU_WINDOW(a->window) +
					   MCMGPU_WIN_VECTOR));
		ASSERT_EQ(0, ping_counts(regs, a, &before)) TH_LOG("%s: ping", a->name);
		ASSERT_EQ(0, ping_counts(regs, o, &other0)) TH_LOG("%s: ping", o->name);
		ASSERT_LE(0, before.interrupts)
			TH_LOG("no '%s' in /proc/interrupts", a->irq);

		ping_path(a, path, sizeof(path));
		ret = mt_write_sysfs(path, "1");
		ASSERT_EQ(0, ret) TH_LOG("write 1 to %s: %s", path, strerror(-ret));

		ASSERT_EQ(0, ping_counts(regs, a, &after));
		EXPECT_EQ(before.pings + 1, after.pings) TH_LOG("%s", a->name);
		EXPECT_EQ(before.irqs + 1, after.irqs) TH_LOG("%s", a->name);
		EXPECT_EQ(before.win_pings + 1, after.win_pings) TH_LOG("%s", a->name);
		EXPECT_LT(before.interrupts, after.interrupts)
			TH_LOG("%s: %lld interrupts", a->irq, after.interrupts);

		/* Nothing reached the other driver or its vector. */
		ASSERT_EQ(0, ping_counts(regs, o, &other1));
		EXPECT_EQ(other0.pings, other1.pings) TH_LOG("%s", o->name);
		EXPECT_EQ(other0.irqs, other1.irqs) TH_LOG("%s", o->name);
		EXPECT_EQ(other0.win_pings, other1.win_pings) TH_LOG("%s", o->name);
		EXPECT_EQ(other0.interrupts, other1.interrupts) TH_LOG("%s", o->irq);
	}
	mt_unmap_regs(regs, rfd);
}

TEST_HARNESS_MAIN
