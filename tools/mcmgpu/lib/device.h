/* SPDX-License-Identifier: GPL-2.0 */
/* Opening an mcmgpu device and the ioctls every subcommand may need. */
#ifndef MCMGPU_TOOL_DEVICE_H
#define MCMGPU_TOOL_DEVICE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mcmgpu_ioctl.h"

/* What -d, --device means when it is not given. */
#define DEFAULT_DEVICE "/dev/mcmgpu0"

/* The char device of a bound PCI function (its sysfs name); 0 or -1. */
int chardev_of_slot(const char *slot, char *path, size_t n);
/* DEV: a path, an index (0) or a PCI address (0000:01:00.0). */
int resolve_device(const char *dev, char *path, size_t n);
int open_device(const char *dev);
int get_info(int fd, struct mcmgpu_info *info);
int dma_transfer(int fd, bool from_gpu, void *buf, uint64_t gpu_addr,
		 uint64_t length);

#endif /* MCMGPU_TOOL_DEVICE_H */
