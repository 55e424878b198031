// SPDX-License-Identifier: GPL-2.0
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"

static unsigned long long count(const void *stats, size_t off)
{
	return *(const uint64_t *)((const char *)stats + off);
}

static double ratio(const struct stat_row *r, const void *stats)
{
	unsigned long long a = count(stats, r->off), b = count(stats, r->per);

	if (r->unit == STAT_SPLIT)
		b += a;
	return b ? (double)a / b : 0.0;
}

void stats_json(struct json *j, const struct stat_table *t, const void *stats)
{
	const struct stat_row *r;

	for (r = t->rows; r < t->rows + t->n; r++) {
		switch (r->unit) {
		case STAT_COUNT:
			json_u64(j, r->name, count(stats, r->off));
			break;
		case STAT_MEAN:
			json_double(j, r->name, 3, ratio(r, stats));
			break;
		case STAT_FACTOR:
		case STAT_SHARE:
		case STAT_SPLIT:
			json_double(j, r->name, 4, ratio(r, stats));
			break;
		case STAT_GROUP:
			json_open(j, r->name, '{');
			break;
		case STAT_END:
			json_close(j);
			break;
		case STAT_LINE:
			json_break(j, " ");
			break;
		}
	}
}

static void text_value(FILE *f, const struct stat_row *r, const void *stats)
{
	switch (r->unit) {
	case STAT_MEAN:
		fprintf(f, "%.1f", ratio(r, stats));
		break;
	case STAT_FACTOR:
		fprintf(f, "%.2fx", ratio(r, stats));
		break;
	case STAT_SHARE:
	case STAT_SPLIT:
		fprintf(f, "%.1f%%", 100 * ratio(r, stats));
		break;
	default:
		fprintf(f, "%llu", count(stats, r->off));
		break;
	}
}

static bool named(const char *name, const char *key, size_t len)
{
	return strlen(name) == len && !memcmp(name, key, len);
}

/* The row a placeholder names: "name" at the top, "group.name" inside. */
static const struct stat_row *find(const struct stat_table *t, const char *key,
				   size_t len)
{
	const struct stat_row *r, *group = NULL;
	size_t glen;

	for (r = t->rows; r < t->rows + t->n; r++) {
		if (r->unit == STAT_END) {
			group = NULL;
		} else if (r->name && group) {
			glen = strlen(group->name);
			if (len > glen && key[glen] == '.' &&
			    !memcmp(key, group->name, glen) &&
			    named(r->name, key + glen + 1, len - glen - 1))
				return r;
		} else if (r->name && named(r->name, key, len)) {
			return r;
		}
		if (r->unit == STAT_GROUP)
			group = r;
	}
	return NULL;
}

void stats_text(FILE *f, const struct stat_table *t, const void *stats)
{
	const char *s = t->text, *end;
	const struct stat_row *r;

	while (*s) {
		if (*s != '{') {
			fputc(*s++, f);
			continue;
		}
		end = strchr(s, '}');
		r = end ? find(t, s + 1, end - s - 1) : NULL;
		if (!r) {
			fprintf(stderr, "stats: no row for %s\n", s);
			abort();	/* a wrong template is a bug, not input */
		}
		if (r->unit == STAT_GROUP) {
			for (r++; r->unit != STAT_END; r++) {
				fprintf(f, " %s ", r->name);
				text_value(f, r, stats);
			}
		} else {
			text_value(f, r, stats);
		}
		s = end + 1;
	}
}
