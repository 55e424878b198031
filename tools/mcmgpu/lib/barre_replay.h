/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The replay of a Barre trace, written once over a backend: the host
 * backend runs the allocator core, the device's TLB core and the IOMMU
 * walker core here in the epoch-synchronous loop the device and the driver
 * run (barre_host.c); the device backend issues ALLOC, FREE, PTE_QUERY and
 * one BARRE_RUN a phase (barre_device.c). Same records in the same order
 * through the same cores: the two report the same counters.
 */
#ifndef BARRE_REPLAY_H
#define BARRE_REPLAY_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "barre_trace.h"
#include "mcmgpu_barre.h"

struct barre_replay_cfg {
	uint32_t chiplets;
	uint64_t frames;	/* per chiplet */
	bool barre;
	uint32_t walkers;
	bool shadow;
	FILE *dump_pt;		/* --dump-pt: mapped pages at the end */
	uint32_t fragment_pct;	/* host: frames taken at random first */
	uint64_t fragment_seed;
	/* F-Barre (§V) */
	uint32_t merge;		/* group expansion: 1 (off), 2 or 4 */
	bool sharing;		/* in-package translation */
	uint32_t sched_moves;	/* coalescing-aware scheduling bound, 0 off */
	uint32_t filter_rows;	/* 256, 512 or 1024 */
	uint32_t drop_ppm;	/* filter messages lost, per million */
};

/* An object the backend allocated, and how it placed the pages. */
struct barre_obj {
	uint32_t handle;
	uint64_t va, pages;
	uint64_t groups, grouped_pages, fallback_pages, merged_groups;
	bool live;
};

struct gpu_alloc_alloc_req;
struct barre_backend;

/* Every operation returns 0 or -errno; b->why says why where it can. */
struct barre_backend_ops {
	/* A fresh GPU for cfg, for a trace of t's size. */
	int (*open)(struct barre_backend *b, const struct barre_replay_cfg *cfg,
		    const struct barre_trace *t);
	/* req is checked; id is the trace's object. */
	int (*alloc)(struct barre_backend *b, uint32_t id,
		     const struct gpu_alloc_alloc_req *req, struct barre_obj *o);
	/* The PEC entry and TLBs first, then the frames. */
	int (*free)(struct barre_backend *b, struct barre_obj *o);
	/* One phase: its accesses, in trace order, run to their end. */
	int (*run)(struct barre_backend *b, const struct mcmgpu_barre_access *acc,
		   uint32_t n);
	/* o's PTEs, one a page. */
	int (*ptes)(struct barre_backend *b, const struct barre_obj *o,
		    uint64_t *pte);
	/* Every counter but the allocation's, which the replay counts. */
	int (*stats)(struct barre_backend *b, struct mcmgpu_barre_stats *st);
	void (*close)(struct barre_backend *b);
};

struct barre_backend {
	const struct barre_backend_ops *ops;
	int fd;			/* device: the open /dev/mcmgpuN */
	void *priv;		/* host: its cores */
	double run_seconds;	/* in ops->run, summed over replays */
	char why[160];
};

extern const struct barre_backend_ops barre_host_ops;	/* barre_host.c */
extern const struct barre_backend_ops barre_device_ops;	/* barre_device.c */

/*
 * Replays t on b; 0, or -errno with err saying why (a record that cannot
 * run: out of memory, an access outside its object).
 */
int barre_replay(struct barre_backend *b, const struct barre_trace *t,
		 const struct barre_replay_cfg *cfg,
		 struct mcmgpu_barre_stats *st, char *err, size_t errlen);
/* barre_replay() on the host backend. */
int barre_replay_host(const struct barre_trace *t,
		      const struct barre_replay_cfg *cfg,
		      struct mcmgpu_barre_stats *st, char *err, size_t errlen);

/* The F-Barre knobs as the device takes them (one config, two users). */
struct fbarre_config;
void barre_fb_config(const struct barre_replay_cfg *cfg, struct fbarre_config *fc);

/*
 * Allocation latency: rounds x (alloc pages with policy chunk g = 16, then
 * free) in fresh pools with pct % of the frames taken at random; the time
 * they took and the pages they grouped. 0 or -ENOMEM.
 */
int barre_alloc_bench(uint32_t chiplets, uint64_t frames, uint32_t pct,
		      bool barre, uint64_t pages, uint32_t rounds,
		      double *seconds, uint64_t *grouped);

#endif /* BARRE_REPLAY_H */
