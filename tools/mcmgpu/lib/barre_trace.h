/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Barre traces (text): the records of a replay (barre_replay.h).
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
#ifndef BARRE_TRACE_H
#define BARRE_TRACE_H

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

#endif /* BARRE_TRACE_H */
