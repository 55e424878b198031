// SPDX-License-Identifier: GPL-2.0
/*
 * The host replay of an ADSM run: the driver's protocol core
 * (adsm_protocol.c) and the device's kernel core (adsm_kernels.c) on plain
 * memory, one buffer for the CPU's copy and one for the GPU's per object.
 * The CPU's page faults are modeled per unit by adsm_cpu_access(), so the
 * counters equal a device run's (hw_faults and the guest times aside).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "adsm_rt.h"
#include "adsm_kernels.h"
#include "../../../drivers/mcmgpu/adsm_protocol.h"

#define HOST_MAX_OBJECTS	16
#define HOST_FIRST_VA		(1ULL << 32)	/* as the driver's first object */

struct host_obj {
	struct adsm_obj core;
	uint8_t *cpu;
	uint8_t *gpu;
	uint64_t va;
	bool shared;
};

struct host_rt {
	struct adsm_rt rt;
	struct adsm_ctx ctx;
	struct adsm_ref *fifo;
	uint32_t chiplets;
	uint64_t next_va;
	struct host_obj *objs[HOST_MAX_OBJECTS];
	struct mcmgpu_adsm_kernel_result res;
	bool launched;
};

static struct host_rt *host(struct adsm_rt *rt)
{
	return (struct host_rt *)rt;
}

static int host_xfer(void *priv, struct adsm_obj *o, u64 off, u64 len,
		     enum adsm_dir dir, enum adsm_cause cause)
{
	struct host_obj *h = o->priv;

	(void)priv;
	(void)cause;
	if (dir == ADSM_H2D)
		memcpy(h->gpu + off, h->cpu + off, len);
	else
		memcpy(h->cpu + off, h->gpu + off, len);
	return 0;	/* evictions land at once */
}

static void host_protect(void *priv, struct adsm_obj *o, u64 off, u64 len,
			 u8 state)
{
	/* No page tables here: the core's unit map is the model. */
	(void)priv;
	(void)o;
	(void)off;
	(void)len;
	(void)state;
}

static const struct adsm_ops host_ops = {
	.xfer = host_xfer,
	.protect = host_protect,
};

static int host_alloc(struct adsm_rt *rt, uint64_t bytes, struct adsm_buf *b)
{
	struct host_rt *hr = host(rt);
	struct host_obj *h;
	int slot;

	for (slot = 0; slot < HOST_MAX_OBJECTS && hr->objs[slot]; slot++)
		;
	if (slot == HOST_MAX_OBJECTS)
		return -ENOSPC;
	h = calloc(1, sizeof(*h));
	if (!h)
		return -ENOMEM;
	h->shared = rt->protocol != ADSM_EXPLICIT;
	h->cpu = calloc(1, bytes);
	h->gpu = calloc(1, bytes);
	h->core.bytes = bytes;
	h->core.priv = h;
	h->core.state = calloc(adsm_units(&hr->ctx, bytes), 1);
	if (!h->cpu || !h->gpu || !h->core.state)
		goto nomem;
	if (h->shared) {
		uint32_t need = adsm_fifo_needed(&hr->ctx, bytes);

		if (need > hr->ctx.fifo_cap) {
			struct adsm_ref *f = calloc(need, sizeof(*f));

			if (!f)
				goto nomem;
			adsm_fifo_move(&hr->ctx, f, need);
			free(hr->fifo);
			hr->fifo = f;
		}
		adsm_obj_add(&hr->ctx, &h->core);
	}
	h->va = hr->next_va;
	hr->next_va += (bytes + 4095) & ~4095ULL;	/* whole pages, as the driver */
	hr->objs[slot] = h;
	b->cpu = h->cpu;
	b->gpu_va = h->va;
	b->bytes = bytes;
	b->handle = slot;
	b->priv = h;
	return 0;
nomem:
	free(h->cpu);
	free(h->gpu);
	free(h->core.state);
	free(h);
	return -ENOMEM;
}

static int host_free(struct adsm_rt *rt, struct adsm_buf *b)
{
	struct host_rt *hr = host(rt);
	struct host_obj *h = b->priv;

	if (h->shared)
		adsm_obj_remove(&hr->ctx, &h->core);
	hr->objs[b->handle] = NULL;
	free(h->cpu);
	free(h->gpu);
	free(h->core.state);
	free(h);
	memset(b, 0, sizeof(*b));
	return 0;
}

/* Unit by unit: each unit's fault, then the CPU's bytes in it. */
static int host_cpu(struct adsm_rt *rt, struct adsm_buf *b, uint64_t off,
		    uint8_t *data, uint64_t len, bool write)
{
	struct host_obj *h = b->priv;
	uint64_t end = off + len, uoff, ulen, n;
	int ret;

	if (off > b->bytes || len > b->bytes - off || !len)
		return -EINVAL;
	while (off < end) {
		adsm_unit_range(&h->core, adsm_unit_of(&h->core, off), &uoff,
				&ulen);
		n = (uoff + ulen < end ? uoff + ulen : end) - off;
		if (h->shared) {
			ret = adsm_cpu_access(&host(rt)->ctx, &h->core, off, n,
					      write);
			if (ret)
				return ret;
		}
		if (write)
			memcpy(h->cpu + off, data, n);
		else
			memcpy(data, h->cpu + off, n);
		data += n;
		off += n;
	}
	return 0;
}

static int host_cpu_write(struct adsm_rt *rt, struct adsm_buf *b, uint64_t off,
			  const void *src, uint64_t len)
{
	return host_cpu(rt, b, off, (uint8_t *)src, len, true);
}

static int host_cpu_read(struct adsm_rt *rt, struct adsm_buf *b, uint64_t off,
			 void *dst, uint64_t len)
{
	return host_cpu(rt, b, off, dst, len, false);
}

static int host_copy(struct adsm_rt *rt, struct adsm_buf *b, uint64_t off,
		     uint64_t len, bool to_gpu)
{
	struct host_obj *h = b->priv;

	if (off > b->bytes || len > b->bytes - off || !len)
		return -EINVAL;
	if (to_gpu)
		memcpy(h->gpu + off, h->cpu + off, len);
	else
		memcpy(h->cpu + off, h->gpu + off, len);
	adsm_charge_copy(&host(rt)->ctx, len, to_gpu ? ADSM_H2D : ADSM_D2H);
	return 0;
}

/* The kernel's view of GPU memory: the objects by virtual address. */
static uint8_t *host_gpu_at(struct host_rt *hr, u64 va, u32 len)
{
	int i;

	for (i = 0; i < HOST_MAX_OBJECTS; i++) {
		struct host_obj *h = hr->objs[i];

		if (h && va >= h->va && va - h->va <= h->core.bytes &&
		    len <= h->core.bytes - (va - h->va))
			return h->gpu + (va - h->va);
	}
	return NULL;
}

static int host_mem_read(void *priv, u64 va, void *buf, u32 len)
{
	uint8_t *p = host_gpu_at(priv, va, len);

	if (!p)
		return -EFAULT;
	memcpy(buf, p, len);
	return 0;
}

static int host_mem_write(void *priv, u64 va, const void *buf, u32 len)
{
	uint8_t *p = host_gpu_at(priv, va, len);

	if (!p)
		return -EFAULT;
	memcpy(p, buf, len);
	return 0;
}

static const struct adsm_mem_ops host_mem = {
	.read = host_mem_read,
	.write = host_mem_write,
};

static int host_launch(struct adsm_rt *rt, const struct mcmgpu_adsm_kernel *k)
{
	struct host_rt *hr = host(rt);
	int ret;

	if (hr->launched)
		return -EBUSY;
	if (adsm_kernel_check(k, hr->chiplets, &hr->res.error)) {
		snprintf(rt->err, sizeof(rt->err), "kernel: %s",
			 hr->res.error.what);
		return -EINVAL;
	}
	ret = adsm_release(&hr->ctx);
	if (ret)
		return ret;
	/* It runs now; its time counts at the sync, as on the device. */
	if (adsm_kernel_run(k, hr->chiplets, &host_mem, hr, &hr->res)) {
		snprintf(rt->err, sizeof(rt->err), "kernel: %s",
			 hr->res.error.what);
		return -EIO;
	}
	hr->launched = true;
	return 0;
}

static int host_sync(struct adsm_rt *rt, struct mcmgpu_adsm_kernel_result *res)
{
	struct host_rt *hr = host(rt);

	if (hr->launched) {
		adsm_kernel_done(&hr->ctx, hr->res.cycles);
		hr->launched = false;
	}
	*res = hr->res;
	return adsm_acquire(&hr->ctx);
}

static int host_file_read(struct adsm_rt *rt, int fd, struct adsm_buf *b,
			  uint64_t off, uint64_t len)
{
	uint8_t *buf = malloc(len);
	int ret = -EIO;

	if (!buf)
		return -ENOMEM;
	if (read(fd, buf, len) == (ssize_t)len)
		ret = host_cpu(rt, b, off, buf, len, true);
	free(buf);
	return ret;
}

static int host_file_write(struct adsm_rt *rt, int fd, struct adsm_buf *b,
			   uint64_t off, uint64_t len)
{
	uint8_t *buf = malloc(len);
	int ret;

	if (!buf)
		return -ENOMEM;
	ret = host_cpu(rt, b, off, buf, len, false);
	if (!ret && write(fd, buf, len) != (ssize_t)len)
		ret = -EIO;
	free(buf);
	return ret;
}

static int host_stats(struct adsm_rt *rt, struct mcmgpu_adsm_stats *st)
{
	adsm_stats(&host(rt)->ctx, st);
	return 0;
}

static const struct adsm_rt_ops host_rt_ops = {
	.alloc = host_alloc,
	.free = host_free,
	.cpu_write = host_cpu_write,
	.cpu_read = host_cpu_read,
	.copy = host_copy,
	.launch = host_launch,
	.sync = host_sync,
	.file_read = host_file_read,
	.file_write = host_file_write,
	.stats = host_stats,
};

struct adsm_rt *adsm_host_new(uint32_t protocol, uint64_t block,
			      uint32_t rolling, uint32_t chiplets)
{
	struct host_rt *hr = calloc(1, sizeof(*hr));
	uint32_t shift = 0;

	if (!hr)
		return NULL;
	while (shift < 63 && (1ULL << shift) < block)
		shift++;
	if (adsm_ctx_init(&hr->ctx, protocol == ADSM_EXPLICIT ?
			  MCMGPU_ADSM_BATCH : protocol, shift, rolling, 0,
			  MCMGPU_ADSM_DMA_SETUP_CYCLES,
			  MCMGPU_ADSM_DMA_BYTES_PER_CYCLE, &host_ops, hr)) {
		free(hr);
		return NULL;
	}
	hr->rt.ops = &host_rt_ops;
	hr->rt.protocol = protocol;
	hr->chiplets = chiplets;
	hr->next_va = HOST_FIRST_VA;
	return &hr->rt;
}

void adsm_host_free(struct adsm_rt *rt)
{
	struct host_rt *hr = host(rt);

	free(hr->fifo);
	free(hr);
}
