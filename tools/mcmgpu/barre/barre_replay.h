/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Barre traces (text) and their replay on the host: the allocator core,
 * the device's TLB core and the IOMMU walker core in the same
 * epoch-synchronous loop the device and the driver run.
 *
 * Trace, one record a line, '#' starts a comment:
 *   alloc ID BYTES policy=chunk|rr|kwc [g=PAGES] [map=C0,C1,...]
 *   access CHIPLET ID BYTE_OFFSET [r|w]
 *   free ID
 * ID names an object: a number (0x1 and 1 are one object) or a name of
 * letters, digits, '_', '.' and '-' that starts with a letter or '_' (at
 * most BARRE_ID_MAX - 1 characters). BYTES is rounded up to whole 4 KiB
 * pages, as an allocator does; accesses may use the whole last page.
 */
#ifndef BARRE_REPLAY_H
#define BARRE_REPLAY_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "mcmgpu_barre.h"

enum barre_rec_type { BARRE_REC_ALLOC, BARRE_REC_ACCESS, BARRE_REC_FREE };

struct barre_rec {
	uint8_t type;
	uint8_t chiplet;	/* access */
	uint8_t write;		/* access */
	uint8_t policy;		/* alloc */
	uint8_t nmap;		/* alloc; 0 = chiplets 0..n-1 */
	uint8_t map[MCMGPU_MAX_CHIPLETS];
	uint32_t g;		/* alloc; 0 = policy's default */
	uint32_t id;		/* the object: index into barre_trace.names */
	uint32_t line;		/* in the trace file */
	uint64_t bytes;		/* alloc: size; access: byte offset */
};

#define BARRE_ID_MAX	64	/* an ID's characters, with the NUL */
#define BARRE_MAX_OBJECTS	(1U << 20)	/* distinct IDs in a trace */

struct barre_trace {
	struct barre_rec *rec;
	size_t n, cap;
	uint32_t max_id;	/* distinct IDs: rec[].id < max_id */
	char (*names)[BARRE_ID_MAX];	/* by id, as first written (numbers in decimal) */
};

/*
 * Parses text; on error returns -EINVAL with "line N: ..." in err. An
 * object must be allocated before use and not twice live.
 */
int barre_trace_parse(const char *text, size_t len, struct barre_trace *t,
		      char *err, size_t errlen);
void barre_trace_free(struct barre_trace *t);
/* An access record against its object (pages) and the chiplets: -EINVAL
 * with "line N: ..." in err if it cannot run. */
int barre_access_check(const struct barre_rec *a, uint32_t chiplets,
		       uint64_t pages, char *err, size_t errlen);

struct barre_host_cfg {
	uint32_t chiplets;
	uint64_t frames;	/* per chiplet */
	bool barre;
	uint32_t walkers;
	bool shadow;
	FILE *dump_pt;		/* --dump-pt: mapped pages at the end */
	uint32_t fragment_pct;	/* frames taken at random before the trace */
	uint64_t fragment_seed;
	/* F-Barre (§V) */
	uint32_t merge;		/* group expansion: 1 (off), 2 or 4 */
	bool sharing;		/* in-package translation */
	uint32_t sched_moves;	/* coalescing-aware scheduling bound, 0 off */
	uint32_t filter_rows;	/* 256, 512 or 1024 */
	uint32_t drop_ppm;	/* filter messages lost, per million */
};

/* The F-Barre knobs as the device takes them (one config, two users). */
struct fb_config;
void barre_fb_config(const struct barre_host_cfg *cfg, struct fb_config *fc);

/*
 * Replays t; 0, or -errno with err saying why (a record that cannot run:
 * out of memory, an access outside its object).
 */
int barre_replay_host(const struct barre_trace *t,
		      const struct barre_host_cfg *cfg,
		      struct mcmgpu_barre_stats *st, char *err, size_t errlen);

/*
 * Allocation latency: rounds x (alloc pages with policy chunk g = 16, then
 * free) in fresh pools with pct % of the frames taken at random; the time
 * they took and the pages they grouped. 0 or -ENOMEM.
 */
int barre_alloc_bench(uint32_t chiplets, uint64_t frames, uint32_t pct,
		      bool barre, uint64_t pages, uint32_t rounds,
		      double *seconds, uint64_t *grouped);

#endif /* BARRE_REPLAY_H */
