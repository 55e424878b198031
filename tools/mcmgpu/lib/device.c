// SPDX-License-Identifier: GPL-2.0
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "device.h"
#include "cli.h"

/* The char device of the PCI function SLOT (sysfs name), if bound. */
int chardev_of_slot(const char *slot, char *path, size_t n)
{
	char dir[PATH_MAX];
	struct dirent *de;
	int ret = -1;
	DIR *d;

	snprintf(dir, sizeof(dir), "/sys/bus/pci/devices/%s/misc", slot);
	d = opendir(dir);
	if (!d)
		return -1;
	while ((de = readdir(d))) {
		if (!strncmp(de->d_name, "mcmgpu", 6)) {
			snprintf(path, n, "/dev/%.*s", NAME_MAX, de->d_name);
			ret = 0;
			break;
		}
	}
	closedir(d);
	return ret;
}

/*
 * DEV names a device three ways: a path (/dev/mcmgpu0), an index (0), or
 * a PCI address (0000:01:00.0 or 01:00.0). After an unbind and rebind with
 * a stale file open the index changes but the PCI address does not.
 */
int resolve_device(const char *dev, char *path, size_t n)
{
	unsigned int dom, bus, slot, fn;
	char sysname[32], tail;

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
	snprintf(sysname, sizeof(sysname), "%04x:%02x:%02x.%x", dom, bus, slot,
		 fn);
	if (!chardev_of_slot(sysname, path, n))
		return 0;
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
