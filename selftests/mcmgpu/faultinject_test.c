// SPDX-License-Identifier: GPL-2.0
/*
 * Allocation failures (issue 9, item 5), systematically: for n = 1, 2, ...
 * the n-th slab or page allocation of one operation fails
 * (/proc/thread-self/fail-nth, with failslab and fail_page_alloc set to
 * count every allocation), until the operation makes fewer than n. Each
 * run must end in 0 or a clean errno, and the device must work afterwards
 * (open, GET_INFO, a DMA round trip, a CPElide launch). Operations: bind
 * (the probe of mcmgpu and of the two auxiliary drivers), open, DMA,
 * CPElide launch, FinePack replay, ALLOC and FREE, a Barre phase. Module loading itself is the kernel's
 * (600-odd allocations before our init runs) and is not swept: its error
 * paths warn in driver-core code (a duplicate sysfs link). The debug kernel has fault injection
 * (tools/vm-run --debug-kernel); Debian's does not, and the tests skip.
 * MCMGPU_FAULT_MAX bounds n per operation (default 2000).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/klog.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "../lib/mcmgpu_test.h"
#include "mcmgpu_finepack.h"
#include "mcmgpu_barre.h"

#define FAIL_NTH	"/proc/thread-self/fail-nth"
#define DBG		"/sys/kernel/debug/"
#define DMA_BYTES	(64 << 10)

static bool have_fault_injection(void)
{
	return access(FAIL_NTH, W_OK) == 0 &&
	       access(DBG "failslab/ignore-gfp-wait", W_OK) == 0;
}

/* Every allocation counts (sleeping ones too, order 0 too); no log spam. */
static int setup_injection(void)
{
	static const char *const set[][2] = {
		{ DBG "failslab/ignore-gfp-wait", "N" },
		{ DBG "failslab/verbose", "0" },
		{ DBG "failslab/probability", "0" },
		{ DBG "fail_page_alloc/ignore-gfp-wait", "N" },
		{ DBG "fail_page_alloc/ignore-gfp-highmem", "N" },
		{ DBG "fail_page_alloc/min-order", "0" },
		{ DBG "fail_page_alloc/verbose", "0" },
		{ DBG "fail_page_alloc/probability", "0" },
	};
	unsigned int i;
	int ret;

	for (i = 0; i < sizeof(set) / sizeof(set[0]); i++) {
		ret = mt_write_sysfs(set[i][0], set[i][1]);
		if (ret)
			return ret;
	}
	return 0;
}

/* What every operation shares, prepared outside the injection. */
struct op_ctx {
	int fd;
	int bind_fd;
	char slot[NAME_MAX + 1];
	uint8_t *src, *dst;
	void *trace;
	size_t trace_len;
	struct mcmgpu_fp_replay_result fp_res;
	struct mcmgpu_cpe_launch_result cpe_res;
};

static int op_open(struct op_ctx *c)
{
	int fd = open(MT_DEV_PATH, O_RDWR);

	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

static int op_dma(struct op_ctx *c)
{
	int ret = mt_dma(c->fd, 0, c->src, 1 << 20, DMA_BYTES);

	if (!ret)
		ret = mt_dma(c->fd, MCMGPU_DMA_FROM_GPU, c->dst, 1 << 20, DMA_BYTES);
	if (!ret && memcmp(c->src, c->dst, DMA_BYTES))
		ret = -EILSEQ;
	return ret;
}

static int op_launch(struct op_ctx *c)
{
	int ret = mt_launch_reset(c->fd);

	return ret ? ret : mt_launch_kernel(c->fd, &c->cpe_res);
}

static int op_replay(struct op_ctx *c)
{
	struct mcmgpu_finepack_replay rp = {
		.size = sizeof(rp), .trace_ptr = (uintptr_t)c->trace,
		.trace_len = c->trace_len, .subheader = 5, .overhead = 28,
		.result_ptr = (uintptr_t)&c->fp_res,
		.result_size = sizeof(c->fp_res),
	};

	return ioctl(c->fd, MCMGPU_IOCTL_FINEPACK_REPLAY, &rp) ? -errno : 0;
}

static int op_bind(struct op_ctx *c)
{
	ssize_t n = pwrite(c->bind_fd, c->slot, strlen(c->slot), 0);

	return n < 0 ? -errno : 0;
}

/* ALLOC of 64 pages with Barre (its page tables, objects) and FREE. */
static int op_alloc(struct op_ctx *c)
{
	struct mcmgpu_alloc a = { .size = sizeof(a), .bytes = 64 * 4096,
				  .policy = MCMGPU_ALLOC_CHUNK, .g = 4,
				  .flags = MCMGPU_ALLOC_F_BARRE };
	struct mcmgpu_free f = { .size = sizeof(f) };

	if (ioctl(c->fd, MCMGPU_IOCTL_ALLOC, &a))
		return -errno;
	f.handle = a.handle;
	return ioctl(c->fd, MCMGPU_IOCTL_FREE, &f) ? -errno : 0;
}

/* A Barre phase over a fresh object: reset, 64 accesses, counters, FREE. */
static int op_barre(struct op_ctx *c)
{
	struct mcmgpu_alloc a = { .size = sizeof(a), .bytes = 64 * 4096,
				  .policy = MCMGPU_ALLOC_RR,
				  .flags = MCMGPU_ALLOC_F_BARRE | MCMGPU_ALLOC_F_WRITE };
	struct mcmgpu_barre_access acc[64];
	struct mcmgpu_barre_stats st;
	struct mcmgpu_barre_run r = {
		.size = sizeof(r), .flags = MCMGPU_BARRE_RUN_F_RESET |
		MCMGPU_BARRE_RUN_F_SHADOW, .accesses_ptr = (uintptr_t)acc,
		.count = 64, .stats_ptr = (uintptr_t)&st, .stats_size = sizeof(st),
	};
	struct mcmgpu_free f = { .size = sizeof(f) };
	int i, ret = 0;

	if (ioctl(c->fd, MCMGPU_IOCTL_ALLOC, &a))
		return -errno;
	for (i = 0; i < 64; i++)
		acc[i] = (struct mcmgpu_barre_access){
			.va = a.gpu_va + (uint64_t)i * 4096, .chiplet = i % 2,
			.write = i % 3 == 0,
		};
	if (ioctl(c->fd, MCMGPU_IOCTL_BARRE_RUN, &r))
		ret = -errno;
	else if (st.accesses != 64 || st.shadow_mismatches || st.access_faults)
		ret = -EILSEQ;
	f.handle = a.handle;
	if (ioctl(c->fd, MCMGPU_IOCTL_FREE, &f) && !ret)
		ret = -errno;
	return ret;
}

/* The device works: open, GET_INFO, a DMA round trip, a launch. */
static int healthy(void)
{
	struct mcmgpu_cpe_launch_result res;
	struct mcmgpu_info info;
	int fd = mt_open_dev(), ret;

	if (fd < 0)
		return -errno;
	ret = mt_get_info(fd, &info);
	if (!ret)
		ret = mt_roundtrip(fd, 2 << 20, 8192);
	if (!ret)
		ret = mt_launch_reset(fd);
	if (!ret)
		ret = mt_launch_kernel(fd, &res);
	close(fd);
	return ret;
}

static int bound(const char *slot)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "/sys/bus/pci/drivers/mcmgpu/%s", slot);
	return access(path, F_OK) == 0;
}

/*
 * What an injected failure provokes in the kernel's own code, not ours:
 * warn_alloc()'s report of a failed vmalloc or page allocation, and one
 * warning: register_irq_proc() ignores a failed /proc/irq entry and the
 * teardown's remove_proc_entry() then warns that it is missing.
 */
static const char *const core_warnings[] = { "unregister_irq_proc" };

static bool kernel_problem(const char *line)
{
	static const char *const problem[] = {
		"WARNING:", "BUG:", "INFO:", "Oops", "general protection",
		"UBSAN", "KASAN", "ODEBUG", "DEBUG_LOCKS_WARN_ON",
		"suspected memory leak", "Call Trace",
	};
	unsigned int i;

	for (i = 0; i < sizeof(problem) / sizeof(problem[0]); i++)
		if (strstr(line, problem[i]))
			return true;
	return false;
}

/*
 * Reads the kernel log: 0 if clean, 1 if its only reports are the known
 * kernel-core ones above (the log is then cleared and *known counts them),
 * -1 if anything else is there (the log stays for the guest init to show).
 */
static int kernel_log_verdict(int *known)
{
	int size = klogctl(10 /* SYSLOG_ACTION_SIZE_BUFFER */, NULL, 0);
	bool block = false, block_known = false, other = false;
	bool alloc_report = false;
	int found = 0, len;
	char *buf, *line, *save;
	unsigned int i;

	if (size <= 0)
		return -1;
	buf = malloc(size + 1);
	if (!buf)
		return -1;
	len = klogctl(3 /* SYSLOG_ACTION_READ_ALL */, buf, size);
	if (len < 0) {
		free(buf);
		return -1;
	}
	buf[len] = '\0';
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (strstr(line, "[ cut here ]")) {
			block = true;
			block_known = false;
		} else if (strstr(line, "vmalloc error:") ||
			   strstr(line, "page allocation failure:")) {
			/* warn_alloc() reporting the failure we injected. */
			alloc_report = true;
		} else if (alloc_report) {
			if (strstr(line, "</TASK>")) {
				alloc_report = false;
				found++;
			}
		} else if (block && strstr(line, "---[ end trace")) {
			if (block_known)
				found++;
			else
				other = true;
			block = false;
		} else if (block) {
			for (i = 0; i < sizeof(core_warnings) / sizeof(core_warnings[0]); i++)
				if (strstr(line, core_warnings[i]))
					block_known = true;
		} else if (kernel_problem(line)) {
			other = true;
		}
	}
	free(buf);
	if (other || block || alloc_report)
		return -1;
	if (!found)
		return 0;
	*known += found;
	klogctl(5 /* SYSLOG_ACTION_CLEAR */, NULL, 0);
	return 1;
}

enum op_kind { OP_DEVICE, OP_BIND };

struct sweep {
	int points;	/* allocations the operation makes */
	int core_warnings;	/* known kernel-core warnings (see above) */
	int failed;	/* runs that ended in an errno */
	int ok;		/* runs that succeeded anyway */
	int errnos[8];	/* distinct errnos seen */
	int nerrnos;
};

static void note_errno(struct sweep *s, int e)
{
	int i;

	for (i = 0; i < s->nerrnos; i++)
		if (s->errnos[i] == e)
			return;
	if (s->nerrnos < 8)
		s->errnos[s->nerrnos++] = e;
}

/* Errnos an allocation failure may end in; anything else is a bug. */
static bool clean_errno(int e)
{
	return e == ENOMEM || e == ENOSPC || e == EAGAIN || e == ENODEV ||
	       e == EIO || e == EBUSY || e == EINTR;
}

/*
 * Fail the n-th allocation of op for n = 1.. until op makes fewer than n
 * (fail-nth still non-zero after it), checking health after each.
 */
static void sweep(struct __test_metadata *_metadata, struct op_ctx *c,
		  const char *name, int (*op)(struct op_ctx *),
		  enum op_kind kind, struct sweep *s)
{
	int max = mt_env_u64("MCMGPU_FAULT_MAX", 2000), n;
	char buf[32];

	memset(s, 0, sizeof(*s));
	for (n = 1; n <= max; n++) {
		int nth, ret, left;

		if (kind == OP_BIND)
			ASSERT_EQ(0, mt_write_sysfs("/sys/bus/pci/drivers/mcmgpu/unbind",
						    c->slot));
		nth = open(FAIL_NTH, O_RDWR);
		ASSERT_LE(0, nth);
		snprintf(buf, sizeof(buf), "%d", n);
		ASSERT_EQ((ssize_t)strlen(buf), write(nth, buf, strlen(buf)));
		ret = op(c);
		ASSERT_LT(0, pread(nth, buf, sizeof(buf) - 1, 0));
		left = atoi(buf);
		ASSERT_EQ(1, write(nth, "0", 1));
		close(nth);

		if (ret) {
			s->failed++;
			note_errno(s, -ret);
			EXPECT_TRUE(clean_errno(-ret))
				TH_LOG("%s, allocation %d failed: %s", name, n,
				       strerror(-ret));
		} else {
			s->ok++;
		}
		if (kind == OP_BIND && !bound(c->slot))
			ASSERT_EQ(0, op_bind(c)) TH_LOG("%s n=%d rebind", name, n);
		ASSERT_EQ(0, healthy()) TH_LOG("%s, after allocation %d failed", name, n);
		ASSERT_LE(0, kernel_log_verdict(&s->core_warnings))
			TH_LOG("%s, allocation %d failed: a kernel report", name, n);
		if (left) {
			s->points = n - 1;
			break;
		}
	}
	EXPECT_LT(n, max + 1) TH_LOG("%s: more than %d allocations", name, max);
	TH_LOG("%s: %d allocation points; %d runs ended in an errno, %d succeeded anyway (errnos: %s%s%s); %d known kernel-core warnings",
	       name, s->points, s->failed, s->ok,
	       s->nerrnos ? strerror(s->errnos[0]) : "none",
	       s->nerrnos > 1 ? ", " : "",
	       s->nerrnos > 1 ? strerror(s->errnos[1]) : "",
	       s->core_warnings);
}

FIXTURE(faults) {
	struct op_ctx c;
};

FIXTURE_SETUP(faults)
{
	struct op_ctx *c = &self->c;
	ssize_t n;
	int t;

	memset(c, 0, sizeof(*c));
	c->fd = c->bind_fd = -1;
	if (!have_fault_injection())
		SKIP(return, "no fault injection in this kernel (tools/vm-run --debug-kernel)");
	ASSERT_EQ(0, setup_injection());
	ASSERT_EQ(0, mt_find_slot(c->slot, sizeof(c->slot)));
	c->fd = mt_open_dev();
	ASSERT_LE(0, c->fd);
	/* Touched now, so no page fault allocates during an injection. */
	c->src = malloc(DMA_BYTES);
	c->dst = malloc(DMA_BYTES);
	ASSERT_TRUE(c->src && c->dst);
	mt_fill_random(c->src, DMA_BYTES);
	memset(c->dst, 0, DMA_BYTES);
	ASSERT_EQ(0, mt_run_cmd("mcmgpu finepack gen jacobi --iters 1 --chiplets 2 "
				"-o /tmp/fault.bin", NULL, 0));
	c->trace = malloc(1 << 20);
	ASSERT_NE(NULL, c->trace);
	t = open("/tmp/fault.bin", O_RDONLY);
	ASSERT_LE(0, t);
	n = read(t, c->trace, 1 << 20);
	close(t);
	ASSERT_LT(0, n);
	ASSERT_GT(1 << 20, n);
	c->trace_len = n;
}

FIXTURE_TEARDOWN(faults)
{
	struct op_ctx *c = &self->c;

	if (c->fd >= 0)
		close(c->fd);
	if (c->bind_fd >= 0)
		close(c->bind_fd);
	free(c->src);
	free(c->dst);
	free(c->trace);
}

TEST_F_TIMEOUT(faults, open_dma_launch_replay, 3600)
{
	struct sweep s;

	/* A skip in the setup does not stop the body. */
	if (!have_fault_injection())
		return;
	sweep(_metadata, &self->c, "open", op_open, OP_DEVICE, &s);
	EXPECT_LT(0, s.points);
	sweep(_metadata, &self->c, "DMA round trip", op_dma, OP_DEVICE, &s);
	sweep(_metadata, &self->c, "CPElide launch", op_launch, OP_DEVICE, &s);
	EXPECT_LT(0, s.points);
	sweep(_metadata, &self->c, "FinePack replay", op_replay, OP_DEVICE, &s);
	EXPECT_LT(0, s.points);
	sweep(_metadata, &self->c, "ALLOC and FREE", op_alloc, OP_DEVICE, &s);
	sweep(_metadata, &self->c, "Barre phase", op_barre, OP_DEVICE, &s);
	EXPECT_LT(0, s.points);
}

TEST_F_TIMEOUT(faults, probe, 3600)
{
	struct op_ctx *c = &self->c;
	struct sweep s;

	if (!have_fault_injection())
		return;
	close(c->fd);
	c->fd = -1;
	c->bind_fd = open("/sys/bus/pci/drivers/mcmgpu/bind", O_WRONLY);
	ASSERT_LE(0, c->bind_fd);
	sweep(_metadata, c, "bind (probe)", op_bind, OP_BIND, &s);
	EXPECT_LT(0, s.points);
	EXPECT_LT(0, s.failed);
}

TEST_HARNESS_MAIN
