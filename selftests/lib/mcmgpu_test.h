/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The helpers every mcmgpu test shares, guest kselftests
 * (selftests/mcmgpu/) and host tests (selftests/host/) alike: a seeded
 * random generator, the expected device properties from the environment,
 * files, commands, the device's ioctls and its BAR0 registers.
 *
 * Header only (static inline), so each test still builds from its one .c
 * file: include it as "../lib/mcmgpu_test.h". Everything here is prefixed
 * mt_ so that it never collides with a test's own names or the tool's.
 * Functions return 0 or -errno unless they say otherwise; none of them
 * asserts, the test does.
 */
#ifndef MCMGPU_SELFTEST_LIB_H
#define MCMGPU_SELFTEST_LIB_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "mcmgpu_hw.h"
#include "mcmgpu_ioctl.h"
#include "mcmgpu_cpelide.h"

/*
 * kselftest's 30 s a test is a guess for real hardware; the guest runs
 * under TCG, in CI under the debug kernel too (KASAN, lockdep), where a
 * device replay that takes seconds under KVM passed 30 s in one run and
 * not the next. Every TEST() and TEST_F() after this header gets 300 s
 * (TEST_F_TIMEOUT still sets its own); a hang still ends.
 */
#ifdef TEST_TIMEOUT_DEFAULT
#undef TEST_TIMEOUT_DEFAULT
#define TEST_TIMEOUT_DEFAULT 300
#endif

#define MT_DEV_PATH	"/dev/mcmgpu0"
#define MT_MOD_DIR	"/lib/modules/mcmgpu"
#define MT_MAX_CMDS	16	/* mt_run_cmds() at once */

/* ---- Random numbers ---------------------------------------------------- */

/* Marsaglia's xorshift64 (13, 7, 17): the next value of *state (not 0). */
static inline uint64_t mt_xorshift64(uint64_t *state)
{
	*state ^= *state << 13;
	*state ^= *state >> 7;
	*state ^= *state << 17;
	return *state;
}

/*
 * The default stream of a test process. The harness forks every test, so
 * each test starts from the same seed and is reproducible on its own.
 */
static inline uint64_t *mt_rng_state(void)
{
	static uint64_t state = 0x9e3779b97f4a7c15ULL;

	return &state;
}

static inline uint64_t mt_rnd(void)
{
	return mt_xorshift64(mt_rng_state());
}

/* n bytes of the default stream, one value's low byte per byte. */
static inline void mt_fill_random(void *buf, size_t n)
{
	uint8_t *p = buf;
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = mt_rnd();
}

/* CLOCK_MONOTONIC in ns: the guest's wall time, for progress lines and waits. */
static inline uint64_t mt_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* ---- Expected device properties (tools/vm-run exports them) ------------ */

static inline uint64_t mt_env_u64(const char *name, uint64_t def)
{
	const char *v = getenv(name);

	return v ? strtoull(v, NULL, 0) : def;
}

/* MCMGPU_EXPECT_CHIPLETS, default MCMGPU_DEFAULT_CHIPLETS (4). */
static inline unsigned int mt_expect_chiplets(void)
{
	return mt_env_u64("MCMGPU_EXPECT_CHIPLETS", MCMGPU_DEFAULT_CHIPLETS);
}

/* MCMGPU_EXPECT_VRAM_PER_CHIPLET, default 64 MiB. */
static inline uint64_t mt_expect_vram_per_chiplet(void)
{
	return mt_env_u64("MCMGPU_EXPECT_VRAM_PER_CHIPLET",
			  MCMGPU_DEFAULT_VRAM_PER_CHIPLET);
}

/* ---- Files ------------------------------------------------------------- */

/* Creates or truncates path and writes len bytes. */
static inline int mt_write_file(const char *path, const void *data, size_t len)
{
	const uint8_t *p = data;
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644), ret = 0;
	ssize_t n;

	if (fd < 0)
		return -errno;
	while (len) {
		n = write(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			ret = n < 0 ? -errno : -EIO;
			break;
		}
		p += n;
		len -= n;
	}
	if (close(fd) && !ret)
		ret = -errno;
	return ret;
}

static inline int mt_write_text(const char *path, const char *text)
{
	return mt_write_file(path, text, strlen(text));
}

/*
 * One write(2) of val to an existing file (a sysfs attribute or a module
 * parameter): the store's errno, or -EIO when it took fewer bytes.
 */
static inline int mt_write_sysfs(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY), ret = 0;
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, val, strlen(val));
	if (n < 0)
		ret = -errno;
	else if (n != (ssize_t)strlen(val))
		ret = -EIO;
	close(fd);
	return ret;
}

/* Reads up to n - 1 bytes of path into buf, NUL-terminated; bytes or -errno. */
static inline ssize_t mt_read_file(const char *path, char *buf, size_t n)
{
	int fd = open(path, O_RDONLY);
	ssize_t got = 0, r;

	if (fd < 0)
		return -errno;
	while ((size_t)got < n - 1) {
		r = read(fd, buf + got, n - 1 - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			got = -errno;
			break;
		}
		if (r == 0)
			break;
		got += r;
	}
	close(fd);
	buf[got < 0 ? 0 : got] = '\0';
	return got;
}

/* ---- Commands ---------------------------------------------------------- */

static inline int mt_exit_status(int st)
{
	return st != -1 && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/*
 * Runs cmd through sh, keeps up to n - 1 bytes of its stdout in out (or
 * drains it when out is NULL), and returns its exit status, -1 if it did
 * not exit normally.
 */
static inline int mt_run_cmd(const char *cmd, char *out, size_t n)
{
	FILE *p = popen(cmd, "r");
	char sink[4096];
	size_t got;

	if (!p)
		return -1;
	if (out) {
		got = fread(out, 1, n - 1, p);
		out[got] = '\0';
	}
	while (fread(sink, 1, sizeof(sink), p))
		;
	return mt_exit_status(pclose(p));
}

/* The number after the first "key": in a JSON text; NaN if none. */
static inline double mt_json_number(const char *json, const char *key)
{
	char pat[96];
	const char *at;

	snprintf(pat, sizeof(pat), "\"%s\":", key);
	at = strstr(json, pat);
	return at ? strtod(at + strlen(pat), NULL) : __builtin_nan("");
}

/* system(cmd): its exit status, -1 if it did not exit normally. */
static inline int mt_system(const char *cmd)
{
	return mt_exit_status(system(cmd));
}

/*
 * Starts the n (<= MT_MAX_CMDS) commands at once, then collects their
 * stdout concurrently, so that no command waits for another's reader: up
 * to size - 1 bytes of each into outs[i], NUL-terminated (outs NULL:
 * drain all), and the exit statuses as mt_run_cmd gives them in
 * status[i]. Returns 0, or -1 if one could not start (its status is -1;
 * the others still run to the end).
 */
static inline int mt_run_cmds(int n, const char *const *cmds, char **outs,
			      size_t size, int *status)
{
	FILE *p[MT_MAX_CMDS];
	struct pollfd pfd[MT_MAX_CMDS];
	size_t got[MT_MAX_CMDS];
	char sink[4096];
	int i, live = 0, ret = 0;

	if (n < 0 || n > MT_MAX_CMDS)
		return -1;
	for (i = 0; i < n; i++) {
		got[i] = 0;
		if (outs)
			outs[i][0] = '\0';
		p[i] = popen(cmds[i], "r");
		pfd[i].fd = p[i] ? fileno(p[i]) : -1;
		pfd[i].events = POLLIN;
		live += !!p[i];
		if (!p[i])
			ret = -1;
	}
	while (live) {
		if (poll(pfd, n, -1) < 0) {
			if (errno == EINTR)
				continue;
			ret = -1;
			break;
		}
		for (i = 0; i < n; i++) {
			char *dst = sink;
			size_t room = sizeof(sink);
			ssize_t r;

			if (pfd[i].fd < 0 || !pfd[i].revents)
				continue;
			if (outs && got[i] < size - 1) {
				dst = outs[i] + got[i];
				room = size - 1 - got[i];
			}
			r = read(pfd[i].fd, dst, room);
			if (r < 0 && errno == EINTR)
				continue;
			if (r <= 0) {
				pfd[i].fd = -1;	/* EOF: poll ignores it now */
				live--;
				continue;
			}
			if (dst != sink) {
				got[i] += r;
				outs[i][got[i]] = '\0';
			}
		}
	}
	for (i = 0; i < n; i++)
		status[i] = p[i] ? mt_exit_status(pclose(p[i])) : -1;
	return ret;
}

/* The three modules, unloaded and loaded in their order. */
static inline int mt_unload_modules(void)
{
	return mt_system("rmmod gpu_rc barre_iommu mcmgpu");
}

static inline int mt_load_modules(void)
{
	return mt_system("for m in $(cat " MT_MOD_DIR "/load-order); do "
			 "insmod " MT_MOD_DIR "/$m.ko || exit 1; done");
}

/* ---- The device through its ioctls ------------------------------------- */

static inline int mt_open_dev(void)
{
	return open(MT_DEV_PATH, O_RDWR);
}

static inline int mt_get_info(int fd, struct mcmgpu_info *info)
{
	memset(info, 0, sizeof(*info));
	info->size = sizeof(*info);
	return ioctl(fd, MCMGPU_IOCTL_GET_INFO, info) ? -errno : 0;
}

/* MCMGPU_IOCTL_DMA; flags MCMGPU_DMA_FROM_GPU reads GPU memory into buf. */
static inline int mt_dma(int fd, uint32_t flags, void *buf, uint64_t gpu,
			 uint64_t len)
{
	struct mcmgpu_dma d = {
		.size = sizeof(d), .flags = flags, .user_ptr = (uintptr_t)buf,
		.gpu_addr = gpu, .length = len,
	};

	return ioctl(fd, MCMGPU_IOCTL_DMA, &d) ? -errno : 0;
}

/* Writes then reads back len random bytes at gpu; -EILSEQ if they differ. */
static inline int mt_roundtrip(int fd, uint64_t gpu, size_t len)
{
	uint8_t *src = malloc(len), *dst = malloc(len);
	int ret;

	if (!src || !dst) {
		free(src);
		free(dst);
		return -ENOMEM;
	}
	mt_fill_random(src, len);
	memset(dst, 0xa5, len);
	ret = mt_dma(fd, 0, src, gpu, len);
	if (!ret)
		ret = mt_dma(fd, MCMGPU_DMA_FROM_GPU, dst, gpu, len);
	if (!ret && memcmp(src, dst, len))
		ret = -EILSEQ;
	free(src);
	free(dst);
	return ret;
}

/*
 * One launch record through MCMGPU_IOCTL_LAUNCH with an explicit
 * record_size (for the size checks); *res is zeroed first and holds the
 * counters, or on -EINVAL the argument and field the device refused.
 */
static inline int mt_launch_sized(int fd, const struct mcmgpu_cpe_record *rec,
				  uint32_t record_size,
				  struct mcmgpu_cpe_launch_result *res)
{
	struct mcmgpu_launch ln = {
		.size = sizeof(ln), .record_size = record_size,
		.record_ptr = (uintptr_t)rec, .result_size = sizeof(*res),
		.result_ptr = (uintptr_t)res,
	};

	memset(res, 0, sizeof(*res));
	return ioctl(fd, MCMGPU_IOCTL_LAUNCH, &ln) ? -errno : 0;
}

static inline int mt_launch(int fd, const struct mcmgpu_cpe_record *rec,
			    struct mcmgpu_cpe_launch_result *res)
{
	return mt_launch_sized(fd, rec, sizeof(*rec), res);
}

/* RESET: a new CPElide sequence on 2 chiplets with 1 MiB. */
static inline int mt_launch_reset(int fd)
{
	struct mcmgpu_cpe_record r = {
		.type = MCMGPU_CPE_REC_RESET, .chiplets = 2,
		.policy = MCMGPU_CPE_POLICY_CPELIDE, .mem_bytes = 1 << 20,
	};
	struct mcmgpu_cpe_launch_result res;

	return mt_launch(fd, &r, &res);
}

/* A one-argument kernel reading [0, 4096) on chiplet 0. */
static inline int mt_launch_kernel(int fd, struct mcmgpu_cpe_launch_result *res)
{
	struct mcmgpu_cpe_record r = {
		.type = MCMGPU_CPE_REC_KERNEL, .nargs = 1, .chiplet_mask = 1,
		.passes = 1,
	};

	r.args[0].size = 4096;
	r.args[0].mode = MCMGPU_CPE_MODE_R;
	r.args[0].kind = MCMGPU_CPE_ARG_EVEN;
	return mt_launch(fd, &r, res);
}

/* ---- The device through sysfs and BAR0 --------------------------------- */

static inline int mt_read_hex(const char *path, unsigned int *v)
{
	FILE *f = fopen(path, "r");
	int ok;

	if (!f)
		return -1;
	ok = fscanf(f, "%x", v) == 1;
	fclose(f);
	return ok ? 0 : -1;
}

/* PCI slot ("0000:01:00.0") of the first mcmgpu device, from sysfs; 0 or -1. */
static inline int mt_find_slot(char *slot, size_t n)
{
	struct dirent *de;
	DIR *d = opendir("/sys/bus/pci/devices");
	int found = -1;

	if (!d)
		return -1;
	while (found && (de = readdir(d))) {
		char path[PATH_MAX];
		unsigned int ven, dev;

		snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/vendor",
			 de->d_name);
		if (mt_read_hex(path, &ven))
			continue;
		snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/device",
			 de->d_name);
		if (mt_read_hex(path, &dev))
			continue;
		if (ven == MCMGPU_PCI_VENDOR_ID && dev == MCMGPU_PCI_DEVICE_ID) {
			snprintf(slot, n, "%s", de->d_name);
			found = 0;
		}
	}
	closedir(d);
	return found;
}

/*
 * Maps BAR0 of the first mcmgpu device (sysfs resource0, with or without
 * the driver): its slot in slot, the open file in *fd; NULL on failure.
 * Undo with mt_unmap_regs().
 */
static inline volatile uint8_t *mt_map_regs(char *slot, size_t n, int *fd)
{
	char path[PATH_MAX];
	void *p;

	*fd = -1;
	if (mt_find_slot(slot, n))
		return NULL;
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/resource0", slot);
	*fd = open(path, O_RDWR | O_SYNC);
	if (*fd < 0)
		return NULL;
	p = mmap(NULL, MCMGPU_BAR_REGS_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED,
		 *fd, 0);
	if (p == MAP_FAILED) {
		close(*fd);
		*fd = -1;
		return NULL;
	}
	return p;
}

static inline void mt_unmap_regs(volatile uint8_t *regs, int fd)
{
	if (regs)
		munmap((void *)regs, MCMGPU_BAR_REGS_SIZE);
	if (fd >= 0)
		close(fd);
}

/* 32-bit BAR0 register access. */
static inline uint32_t mt_rd(volatile uint8_t *regs, unsigned int off)
{
	return *(volatile uint32_t *)(regs + off);
}

static inline void mt_wr(volatile uint8_t *regs, unsigned int off, uint32_t v)
{
	*(volatile uint32_t *)(regs + off) = v;
}

#endif /* MCMGPU_SELFTEST_LIB_H */
