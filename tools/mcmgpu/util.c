// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <limits.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "util.h"

void die_usage(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
	exit(2);
}

/* Accepts decimal, 0x hex, and K/M/G suffixes (powers of two). */
int parse_u64(const char *s, const char *what, uint64_t *out)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s || *s == '-')
		goto bad;
	switch (*end) {
	case 'K': case 'k':
		v <<= 10, end++;
		break;
	case 'M': case 'm':
		v <<= 20, end++;
		break;
	case 'G': case 'g':
		v <<= 30, end++;
		break;
	}
	if (*end)
		goto bad;
	*out = v;
	return 0;
bad:
	fprintf(stderr, "%s: %s: not a number: '%s'\n", prog, what, s);
	return -1;
}

int write_file(const char *path, const void *buf, uint64_t len)
{
	FILE *f = fopen(path, "wb");

	if (!f || fwrite(buf, 1, len, f) != len || fclose(f)) {
		fprintf(stderr, "%s: %s: %s\n", prog, path, strerror(errno));
		return -1;
	}
	return 0;
}

int run_subcommand(const char *group, const struct subcommand *cmds, size_t n,
		   int argc, char **argv)
{
	size_t i;

	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		FILE *f = argc < 2 ? stderr : stdout;

		fprintf(f, "usage: mcmgpu %s <command> [options]\n\n", group);
		for (i = 0; i < n; i++)
			fprintf(f, "  %-9s %s\n", cmds[i].name, cmds[i].summary);
		fprintf(f, "\n'mcmgpu %s <command> --help' describes one.\n", group);
		return argc < 2 ? 2 : 0;
	}
	for (i = 0; i < n; i++)
		if (!strcmp(argv[1], cmds[i].name))
			return cmds[i].run(argc - 1, argv + 1);
	die_usage("%s: unknown command '%s'", group, argv[1]);
	return 2;
}

/*
 * DEV names a device three ways: a path (/dev/mcmgpu0), an index (0), or
 * a PCI address (0000:01:00.0 or 01:00.0). After an unbind and rebind with
 * a stale file open the index changes but the PCI address does not.
 */
int resolve_device(const char *dev, char *path, size_t n)
{
	char dir[PATH_MAX];
	struct dirent *de;
	unsigned int dom, bus, slot, fn;
	char tail;
	DIR *d;

	if (strchr(dev, '/')) {
		snprintf(path, n, "%s", dev);
		return 0;
	}
	if (dev[0] && strspn(dev, "0123456789") == strlen(dev)) {
		snprintf(path, n, "/dev/mcmgpu%s", dev);
		return 0;
	}
	if (sscanf(dev, "%x:%x:%x.%x%c", &dom, &bus, &slot, &fn, &tail) != 4) {
		dom = 0;
		if (sscanf(dev, "%x:%x.%x%c", &bus, &slot, &fn, &tail) != 3) {
			fprintf(stderr, "%s: device '%s': want a path, an index or a "
				"PCI address (0000:01:00.0)\n", prog, dev);
			return -1;
		}
	}
	snprintf(dir, sizeof(dir), "/sys/bus/pci/devices/%04x:%02x:%02x.%x/misc",
		 dom, bus, slot, fn);
	d = opendir(dir);
	if (d) {
		while ((de = readdir(d))) {
			if (!strncmp(de->d_name, "mcmgpu", 6)) {
				snprintf(path, n, "/dev/%s", de->d_name);
				closedir(d);
				return 0;
			}
		}
		closedir(d);
	}
	fprintf(stderr, "%s: device '%s': no mcmgpu char device at PCI address "
		"%04x:%02x:%02x.%x (driver not bound?)\n", prog, dev, dom, bus,
		slot, fn);
	return -1;
}

int open_device(const char *dev)
{
	char path[PATH_MAX];
	int fd;

	if (resolve_device(dev, path, sizeof(path)))
		return -1;
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		fprintf(stderr, "%s: cannot open %s: %s\n", prog, path,
			strerror(errno));
	return fd;
}

int get_info(int fd, struct mcmgpu_info *info)
{
	memset(info, 0, sizeof(*info));
	info->size = sizeof(*info);
	if (ioctl(fd, MCMGPU_IOCTL_GET_INFO, info)) {
		fprintf(stderr, "%s: GET_INFO: %s\n", prog, strerror(errno));
		return -1;
	}
	return 0;
}

int dma_transfer(int fd, bool from_gpu, void *buf, uint64_t gpu_addr,
		 uint64_t length)
{
	struct mcmgpu_dma dma = {
		.size = sizeof(dma),
		.flags = from_gpu ? MCMGPU_DMA_FROM_GPU : 0,
		.user_ptr = (uintptr_t)buf,
		.gpu_addr = gpu_addr,
		.length = length,
	};

	if (ioctl(fd, MCMGPU_IOCTL_DMA, &dma)) {
		fprintf(stderr, "%s: DMA %s GPU address 0x%" PRIx64
			" length %" PRIu64 ": %s\n", prog,
			from_gpu ? "from" : "to", gpu_addr, length,
			strerror(errno));
		return -1;
	}
	return 0;
}

void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(f, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			fprintf(f, "\\u%04x", *s);
		else
			fputc(*s, f);
	}
	fputc('"', f);
}

uint64_t xorshift64(uint64_t *state)
{
	uint64_t x = *state;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	*state = x;
	return x;
}

double now_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}
