// SPDX-License-Identifier: GPL-2.0
/*
 * The device runtime of the ADSM runs (adsm_rt.h): objects allocated on
 * /dev/mcmgpuN and mmapped at their GPU virtual addresses, kept coherent
 * by the driver's protocols; the device's kernels through LAUNCH.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "adsm_rt.h"
#include "device.h"
#include "mcmgpu_barre.h"
#include "mcmgpu_ioctl.h"
#include "cli.h"

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif

static struct adsm_device *dev(struct adsm_rt *rt)
{
	return (struct adsm_device *)rt;
}

static int dev_err(struct adsm_rt *rt, const char *what)
{
	int e = errno;

	snprintf(rt->err, sizeof(rt->err), "%s: %s", what, strerror(e));
	return -e;
}

static int dev_alloc(struct adsm_rt *rt, uint64_t bytes, struct adsm_buf *b)
{
	bool shared = rt->protocol != ADSM_EXPLICIT;
	/* A shared object keeps its true size; a plain one has whole pages. */
	struct mcmgpu_alloc a = {
		.size = sizeof(a), .policy = MCMGPU_ALLOC_CHUNK,
		.bytes = shared ? bytes : (bytes + 4095) & ~4095ULL,
		.g = 1, .flags = shared ? MCMGPU_ALLOC_F_SHARED :
				 MCMGPU_ALLOC_F_WRITE,
	};
	void *p;

	if (ioctl(dev(rt)->fd, MCMGPU_IOCTL_ALLOC, &a))
		return dev_err(rt, "ALLOC");
	b->gpu_va = a.gpu_va;
	b->bytes = bytes;
	b->handle = a.handle;
	b->priv = b;
	if (!shared) {
		if (posix_memalign(&p, 4096, bytes))
			return -ENOMEM;
		memset(p, 0, bytes);
		b->cpu = p;
		return 0;
	}
	/* One pointer: the CPU maps it where the GPU has it (ADSM §4.2). */
	p = mmap((void *)(uintptr_t)a.gpu_va, bytes, PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_FIXED_NOREPLACE, dev(rt)->fd, a.mmap_offset);
	if (p != MAP_FAILED && (uintptr_t)p != a.gpu_va) {
		munmap(p, bytes);	/* an old kernel took it as a hint */
		p = MAP_FAILED;
		errno = EEXIST;
	}
	if (p == MAP_FAILED && errno == EEXIST) {
		/* Taken: anywhere, and the GPU VA stays what kernels use. */
		p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED,
			 dev(rt)->fd, a.mmap_offset);
		dev(rt)->other_va++;
	}
	if (p == MAP_FAILED)
		return dev_err(rt, "mmap");
	b->cpu = p;
	return 0;
}

static int dev_free(struct adsm_rt *rt, struct adsm_buf *b)
{
	struct mcmgpu_free f = { .size = sizeof(f), .handle = b->handle };

	if (rt->protocol == ADSM_EXPLICIT)
		free(b->cpu);
	else if (b->cpu)
		munmap(b->cpu, b->bytes);
	b->cpu = NULL;
	b->priv = NULL;
	return ioctl(dev(rt)->fd, MCMGPU_IOCTL_FREE, &f) ? dev_err(rt, "FREE") : 0;
}

/*
 * The CPU's loads and stores go in address order, a page at a time: a
 * large memcpy() stores its head and tail last (glibc), which would touch
 * an evicted block again and move bytes no sequential program moves.
 */
void adsm_copy_in_order(uint8_t *dst, const uint8_t *src, uint64_t len,
			  uintptr_t addr)
{
	while (len) {
		uint64_t n = 4096 - addr % 4096;

		n = n < len ? n : len;
		memcpy(dst, src, n);
		dst += n;
		src += n;
		addr += n;
		len -= n;
	}
}

static int dev_cpu_write(struct adsm_rt *rt, struct adsm_buf *b, uint64_t off,
			 const void *src, uint64_t len)
{
	(void)rt;
	adsm_copy_in_order(b->cpu + off, src, len, (uintptr_t)(b->cpu + off));
	return 0;
}

static int dev_cpu_read(struct adsm_rt *rt, struct adsm_buf *b, uint64_t off,
			void *dst, uint64_t len)
{
	(void)rt;
	adsm_copy_in_order(dst, b->cpu + off, len, (uintptr_t)(b->cpu + off));
	return 0;
}

static int dev_copy(struct adsm_rt *rt, struct adsm_buf *b, uint64_t off,
		    uint64_t len, bool to_gpu)
{
	struct mcmgpu_adsm_copy c = {
		.size = sizeof(c), .handle = b->handle, .offset = off,
		.length = len, .user_ptr = (uintptr_t)(b->cpu + off),
		.flags = to_gpu ? 0 : MCMGPU_ADSM_COPY_FROM_GPU,
	};

	return ioctl(dev(rt)->fd, MCMGPU_IOCTL_ADSM_COPY, &c) ?
	       dev_err(rt, "ADSM_COPY") : 0;
}

static int dev_launch(struct adsm_rt *rt, const struct mcmgpu_adsm_kernel *k)
{
	struct mcmgpu_launch ln = {
		.size = sizeof(ln), .flags = MCMGPU_LAUNCH_F_ADSM,
		.record_ptr = (uintptr_t)k, .record_size = sizeof(*k),
	};

	return ioctl(dev(rt)->fd, MCMGPU_IOCTL_LAUNCH, &ln) ?
	       dev_err(rt, "LAUNCH") : 0;
}

static int dev_sync(struct adsm_rt *rt, struct mcmgpu_adsm_kernel_result *res)
{
	struct mcmgpu_adsm_sync s = {
		.size = sizeof(s), .result_ptr = (uintptr_t)res,
		.result_size = sizeof(*res),
	};

	memset(res, 0, sizeof(*res));
	if (!ioctl(dev(rt)->fd, MCMGPU_IOCTL_ADSM_SYNC, &s))
		return 0;
	if (errno == EIO) {
		snprintf(rt->err, sizeof(rt->err), "the kernel failed: %s (0x%llx)",
			 res->error.what, (unsigned long long)res->error.value);
		return -EIO;
	}
	return dev_err(rt, "ADSM_SYNC");
}

static int dev_file_read(struct adsm_rt *rt, int fd, struct adsm_buf *b,
			 uint64_t off, uint64_t len)
{
	/* One read(2) across many blocks: the kernel takes the faults. */
	ssize_t n = read(fd, b->cpu + off, len);

	if (n < 0)
		return dev_err(rt, "read");
	return n == (ssize_t)len ? 0 : -EIO;
}

static int dev_file_write(struct adsm_rt *rt, int fd, struct adsm_buf *b,
			  uint64_t off, uint64_t len)
{
	ssize_t n = write(fd, b->cpu + off, len);

	if (n < 0)
		return dev_err(rt, "write");
	return n == (ssize_t)len ? 0 : -EIO;
}

static int dev_stats(struct adsm_rt *rt, struct mcmgpu_adsm_stats *st)
{
	memset(st, 0, sizeof(*st));
	st->size = sizeof(*st);
	return ioctl(dev(rt)->fd, MCMGPU_IOCTL_ADSM_STATS, st) ?
	       dev_err(rt, "ADSM_STATS") : 0;
}

const struct adsm_rt_ops adsm_device_ops = {
	.alloc = dev_alloc,
	.free = dev_free,
	.cpu_write = dev_cpu_write,
	.cpu_read = dev_cpu_read,
	.copy = dev_copy,
	.launch = dev_launch,
	.sync = dev_sync,
	.file_read = dev_file_read,
	.file_write = dev_file_write,
	.stats = dev_stats,
};

int adsm_device_open(struct adsm_device *d, const char *device,
		     const struct adsm_params *p)
{
	struct mcmgpu_adsm_config cf = {
		.size = sizeof(cf),
		.protocol = p->protocol == ADSM_EXPLICIT ? MCMGPU_ADSM_BATCH :
			    p->protocol,
		.block_bytes = p->block, .rolling = p->rolling,
	};

	memset(d, 0, sizeof(*d));
	d->rt.ops = &adsm_device_ops;
	d->rt.protocol = p->protocol;
	d->fd = open_device(device);
	if (d->fd < 0)
		return -errno;
	if (ioctl(d->fd, MCMGPU_IOCTL_ADSM_CONFIG, &cf)) {
		int e = errno;

		fprintf(stderr, "%s: ADSM_CONFIG: %s%s\n", prog, strerror(e),
			e == EOPNOTSUPP ? " (the device has no ADSM engine)" : "");
		close(d->fd);
		return -e;
	}
	return 0;
}

