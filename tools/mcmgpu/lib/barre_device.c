// SPDX-License-Identifier: GPL-2.0
/*
 * The device backend of the Barre replay (barre_replay.h): BARRE_RESET,
 * ALLOC and FREE, one BARRE_RUN a phase (the device's TLBs, ATS to
 * barre_iommu.ko), BARRE_STATS, and PTE_QUERY for the dump.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>

#include "barre_replay.h"
#include "mcmgpu_ioctl.h"
#include "../../../drivers/mcmgpu/gpu_alloc.h"

static int dev_fail(struct barre_backend *b, const char *fmt, ...)
{
	int ret = -errno;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(b->why, sizeof(b->why), fmt, ap);
	va_end(ap);
	return ret;
}

/* Resets the device's TLBs, walkers and counters to cfg. */
static int dev_open(struct barre_backend *b, const struct barre_replay_cfg *cfg,
		    const struct barre_trace *t)
{
	struct mcmgpu_barre_run run = {
		.size = sizeof(run),
		.flags = cfg->shadow ? MCMGPU_BARRE_RUN_F_SHADOW : 0,
		.walkers = cfg->walkers,
		.fbarre_flags = cfg->sharing ? MCMGPU_BARRE_FBARRE_F_SHARING : 0,
		.filter_rows = cfg->filter_rows, .drop_ppm = cfg->drop_ppm,
		.merge = cfg->merge, .sched_moves = cfg->sched_moves,
	};

	(void)t;
	if (ioctl(b->fd, MCMGPU_IOCTL_BARRE_RESET, &run))
		return dev_fail(b, "BARRE_RESET: %s", strerror(errno));
	return 0;
}

static int dev_alloc(struct barre_backend *b, uint32_t id,
		     const struct gpu_alloc_alloc_req *req, struct barre_obj *o)
{
	struct mcmgpu_alloc a = {
		.size = sizeof(a), .bytes = req->pages * 4096,
		.policy = req->policy, .g = req->g, .nmap = req->nmap,
		.flags = MCMGPU_ALLOC_F_WRITE |
			 (req->barre ? MCMGPU_ALLOC_F_BARRE : 0),
		.merge = req->barre ? req->merge : 0,
	};

	(void)id;
	memcpy(a.map, req->map, sizeof(a.map));
	if (ioctl(b->fd, MCMGPU_IOCTL_ALLOC, &a))
		return -errno;
	*o = (struct barre_obj){
		.handle = a.handle, .va = a.gpu_va, .pages = a.pages,
		.groups = a.groups, .grouped_pages = a.grouped_pages,
		.fallback_pages = a.fallback_pages,
		.merged_groups = a.merged_groups,
	};
	return 0;
}

static int dev_free(struct barre_backend *b, struct barre_obj *o)
{
	struct mcmgpu_free f = { .size = sizeof(f), .handle = o->handle };

	return ioctl(b->fd, MCMGPU_IOCTL_FREE, &f) ? -errno : 0;
}

static int dev_run(struct barre_backend *b,
		   const struct mcmgpu_barre_access *acc, uint32_t n)
{
	struct mcmgpu_barre_run run = {
		.size = sizeof(run), .accesses_ptr = (uintptr_t)acc, .count = n,
	};

	if (ioctl(b->fd, MCMGPU_IOCTL_BARRE_RUN, &run))
		return dev_fail(b, "BARRE_RUN: %s%s", strerror(errno),
				errno == ENODEV ? " (is barre_iommu.ko loaded?)" : "");
	return 0;
}

static int dev_ptes(struct barre_backend *b, const struct barre_obj *o,
		    uint64_t *pte)
{
	struct mcmgpu_pte_query q = {
		.size = sizeof(q), .handle = o->handle, .count = o->pages,
		.ptes_ptr = (uintptr_t)pte,
	};

	return ioctl(b->fd, MCMGPU_IOCTL_PTE_QUERY, &q) ? -errno : 0;
}

static int dev_stats(struct barre_backend *b, struct mcmgpu_barre_stats *st)
{
	struct mcmgpu_barre_run run = {
		.size = sizeof(run), .stats_ptr = (uintptr_t)st,
		.stats_size = sizeof(*st),
	};

	if (ioctl(b->fd, MCMGPU_IOCTL_BARRE_STATS, &run))
		return dev_fail(b, "BARRE_STATS: %s", strerror(errno));
	return 0;
}

static void dev_close(struct barre_backend *b)
{
	(void)b;	/* the caller owns the fd */
}

const struct barre_backend_ops barre_device_ops = {
	.open = dev_open, .alloc = dev_alloc, .free = dev_free,
	.run = dev_run, .ptes = dev_ptes, .stats = dev_stats,
	.close = dev_close,
};
