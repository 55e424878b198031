/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A mechanism's counters as a table: one row per counter names it, says
 * where it is (offsetof a __u64 in the mechanism's stats struct) and how
 * it reads. The JSON output prints every row in order; the text output
 * is a summary whose {name} placeholders take their values from the rows.
 */
#ifndef MCMGPU_TOOL_STATS_H
#define MCMGPU_TOOL_STATS_H

#include <stddef.h>
#include <stdio.h>

#include "json.h"

enum stat_unit {
	STAT_COUNT,	/* the counter itself */
	STAT_MEAN,	/* off / per: JSON %.3f, text %.1f */
	STAT_FACTOR,	/* off / per: JSON %.4f, text %.2fx */
	STAT_SHARE,	/* off / per: JSON %.4f, text as a percentage */
	STAT_SPLIT,	/* off / (off + per), as STAT_SHARE: hits of hits + misses */
	STAT_GROUP,	/* a JSON object of the rows up to STAT_END */
	STAT_END,
	STAT_LINE,	/* JSON: the next row starts a new line */
};

struct stat_row {
	const char *name;	/* JSON key; "group.name" in the text */
	size_t off;
	enum stat_unit unit;
	size_t per;		/* divisor of the ratios */
};

#define STAT_AT(name, type, field) \
	{ name, offsetof(type, field), STAT_COUNT, 0 }
#define STAT(type, field)	STAT_AT(#field, type, field)
#define STAT_RATIO(name, unit, type, a, b) \
	{ name, offsetof(type, a), unit, offsetof(type, b) }
#define STAT_OPEN(name)		{ name, 0, STAT_GROUP, 0 }
#define STAT_CLOSE		{ NULL, 0, STAT_END, 0 }
#define STAT_NEWLINE		{ NULL, 0, STAT_LINE, 0 }

struct stat_table {
	const struct stat_row *rows;
	size_t n;
	const char *text;	/* the text form; {group} lists its rows */
};

#define STAT_TABLE(rows, text) { rows, sizeof(rows) / sizeof((rows)[0]), text }

/* The rows as items of the object j has open. */
void stats_json(struct json *j, const struct stat_table *t, const void *stats);
void stats_text(FILE *f, const struct stat_table *t, const void *stats);

#endif /* MCMGPU_TOOL_STATS_H */
