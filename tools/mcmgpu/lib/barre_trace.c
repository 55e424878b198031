// SPDX-License-Identifier: GPL-2.0
/* Barre traces: the text parser and the access check (barre_trace.h). */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "barre_trace.h"

static int fail(char *err, size_t n, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, n, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static int push(struct barre_trace *t, const struct barre_rec *r)
{
	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 1024;
		struct barre_rec *p = realloc(t->rec, cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		t->rec = p;
		t->cap = cap;
	}
	t->rec[t->n++] = *r;
	return 0;
}

static int parse_num(const char *s, uint64_t *v)
{
	char *end;

	if (!*s || *s == '-')
		return -1;
	errno = 0;
	*v = strtoull(s, &end, 0);
	return errno || *end ? -1 : 0;
}

/* The trace's IDs: names by index, and an open-addressing hash of them. */
struct id_table {
	uint32_t *slot;		/* index + 1, 0 empty */
	uint32_t cap;		/* a power of two, at least twice the IDs */
	uint8_t *live;		/* by index */
	uint32_t live_cap;
};

static uint32_t id_hash(const char *s)
{
	uint32_t h = 2166136261u;	/* FNV-1a */

	while (*s)
		h = (h ^ (uint8_t)*s++) * 16777619u;
	return h;
}

static int id_grow(struct barre_trace *t, struct id_table *ids)
{
	uint32_t cap = ids->cap ? ids->cap * 2 : 1024, i, j;
	uint32_t *slot = calloc(cap, sizeof(*slot));
	char (*names)[BARRE_ID_MAX] = realloc(t->names, cap / 2 * sizeof(*names));
	uint8_t *live = realloc(ids->live, cap / 2);

	if (names)
		t->names = names;
	if (live) {
		memset(live + ids->live_cap, 0, cap / 2 - ids->live_cap);
		ids->live = live;
		ids->live_cap = cap / 2;
	}
	if (!slot || !names || !live) {
		free(slot);
		return -ENOMEM;
	}
	for (i = 0; i < t->max_id; i++) {
		for (j = id_hash(t->names[i]) & (cap - 1); slot[j]; j = (j + 1) & (cap - 1))
			;
		slot[j] = i + 1;
	}
	free(ids->slot);
	ids->slot = slot;
	ids->cap = cap;
	return 0;
}

/*
 * The index of ID token s (added if new): a number, written again in
 * decimal, or a name. -EINVAL with the rule in err if it is neither.
 */
static int id_index(struct barre_trace *t, struct id_table *ids,
		    const char *s, uint32_t line, uint32_t *index,
		    char *err, size_t errlen)
{
	char name[BARRE_ID_MAX];
	uint64_t v;
	uint32_t j;
	size_t i;

	if (!parse_num(s, &v)) {
		snprintf(name, sizeof(name), "%llu", (unsigned long long)v);
	} else {
		for (i = 0; s[i]; i++)
			if (!(isalpha((unsigned char)s[i]) || s[i] == '_' ||
			      (i && (isdigit((unsigned char)s[i]) || s[i] == '.' ||
				     s[i] == '-'))))
				break;
		if (s[i] || i >= BARRE_ID_MAX)
			return fail(err, errlen, "line %u: ID '%s': not a number, nor a "
				    "name (a letter or '_', then letters, digits, '_', "
				    "'.' or '-', at most %u characters)", line, s,
				    BARRE_ID_MAX - 1);
		memcpy(name, s, i + 1);
	}
	if (2 * (t->max_id + 1) > ids->cap) {
		if (t->max_id == BARRE_MAX_OBJECTS)
			return fail(err, errlen, "line %u: more than %u distinct IDs",
				    line, BARRE_MAX_OBJECTS);
		if (id_grow(t, ids))
			return -ENOMEM;
	}
	for (j = id_hash(name) & (ids->cap - 1); ids->slot[j];
	     j = (j + 1) & (ids->cap - 1))
		if (!strcmp(t->names[ids->slot[j] - 1], name)) {
			*index = ids->slot[j] - 1;
			return 0;
		}
	memcpy(t->names[t->max_id], name, sizeof(name));
	ids->slot[j] = ++t->max_id;
	*index = t->max_id - 1;
	return 0;
}

int barre_trace_parse(const char *text, size_t len, struct barre_trace *t,
		      char *err, size_t errlen)
{
	struct id_table ids = { 0 };
	const char *p = text, *end = text + len;
	uint32_t line = 0;
	int ret = 0;

	memset(t, 0, sizeof(*t));
	while (p < end && !ret) {
		const char *nl = memchr(p, '\n', end - p);
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		char buf[512], *tok[8], *save, *c;
		struct barre_rec r = { 0 };
		uint64_t v;
		int ntok = 0, i;

		line++;
		if (n >= sizeof(buf)) {
			ret = fail(err, errlen, "line %u: longer than %zu bytes", line,
				   sizeof(buf) - 1);
			break;
		}
		memcpy(buf, p, n);
		buf[n] = '\0';
		p += n + 1;
		c = strchr(buf, '#');
		if (c)
			*c = '\0';
		for (c = strtok_r(buf, " \t\r", &save); c && ntok < 8;
		     c = strtok_r(NULL, " \t\r", &save))
			tok[ntok++] = c;
		if (!ntok)
			continue;
		if (c) {
			ret = fail(err, errlen, "line %u: too many fields", line);
			break;
		}
		r.line = line;
		if (ntok < 2 || (strcmp(tok[0], "alloc") && strcmp(tok[0], "access") &&
				 strcmp(tok[0], "free"))) {
			ret = fail(err, errlen, "line %u: '%s': expected alloc ID ..., "
				   "access CHIPLET ID ... or free ID", line, tok[0]);
			break;
		}
		if (!strcmp(tok[0], "access") && ntok < 3) {
			ret = fail(err, errlen, "line %u: access: expected "
				   "CHIPLET ID BYTE_OFFSET [r|w]", line);
			break;
		}
		ret = id_index(t, &ids, tok[!strcmp(tok[0], "access") ? 2 : 1], line,
			       &r.id, err, errlen);
		if (ret)
			break;
		if (!strcmp(tok[0], "alloc")) {
			r.type = BARRE_REC_ALLOC;
			r.policy = MCMGPU_ALLOC_POLICIES;
			/* Whole pages, as an allocator gives them. */
			if (ntok < 3 || parse_num(tok[2], &r.bytes) || !r.bytes ||
			    r.bytes > UINT64_MAX - 4095) {
				ret = fail(err, errlen, "line %u: alloc: BYTES must be a "
					   "number from 1 to 2^64 - 4096 (rounded up to "
					   "4096-byte pages)", line);
				break;
			}
			r.bytes = (r.bytes + 4095) / 4096 * 4096;
			for (i = 3; i < ntok && !ret; i++) {
				if (!strcmp(tok[i], "policy=chunk"))
					r.policy = MCMGPU_ALLOC_CHUNK;
				else if (!strcmp(tok[i], "policy=rr"))
					r.policy = MCMGPU_ALLOC_RR;
				else if (!strcmp(tok[i], "policy=kwc"))
					r.policy = MCMGPU_ALLOC_KWC;
				else if (!strncmp(tok[i], "g=", 2) && !parse_num(tok[i] + 2, &v) &&
					 v && v < (1ULL << 31))
					r.g = v;
				else if (!strncmp(tok[i], "map=", 4)) {
					char *m = tok[i] + 4, *msave, *e;

					for (e = strtok_r(m, ",", &msave); e && !ret;
					     e = strtok_r(NULL, ",", &msave)) {
						if (r.nmap == MCMGPU_MAX_CHIPLETS ||
						    parse_num(e, &v) || v >= MCMGPU_MAX_CHIPLETS)
							ret = fail(err, errlen, "line %u: alloc: bad map "
								   "'%s'", line, tok[i] + 4);
						else
							r.map[r.nmap++] = v;
					}
					if (!ret && !r.nmap)
						ret = fail(err, errlen, "line %u: alloc: empty map",
							   line);
				} else {
					ret = fail(err, errlen, "line %u: alloc: unknown field "
						   "'%s'", line, tok[i]);
				}
			}
			if (ret)
				break;
			if (r.policy == MCMGPU_ALLOC_POLICIES) {
				ret = fail(err, errlen, "line %u: alloc: policy= missing", line);
				break;
			}
			if (r.policy == MCMGPU_ALLOC_CHUNK && !r.g) {
				ret = fail(err, errlen, "line %u: alloc: policy=chunk needs g=",
					   line);
				break;
			}
			if (ids.live[r.id]) {
				ret = fail(err, errlen, "line %u: alloc: object %s is already "
					   "live", line, t->names[r.id]);
				break;
			}
			ids.live[r.id] = 1;
		} else if (!strcmp(tok[0], "access")) {
			r.type = BARRE_REC_ACCESS;
			if (ntok < 4 || ntok > 5 || parse_num(tok[1], &v) ||
			    v >= MCMGPU_MAX_CHIPLETS || parse_num(tok[3], &r.bytes) ||
			    (ntok == 5 && strcmp(tok[4], "r") && strcmp(tok[4], "w"))) {
				ret = fail(err, errlen, "line %u: access: expected "
					   "CHIPLET ID BYTE_OFFSET [r|w]", line);
				break;
			}
			r.chiplet = v;
			r.write = ntok == 5 && !strcmp(tok[4], "w");
			if (!ids.live[r.id]) {
				ret = fail(err, errlen, "line %u: access: object %s is not "
					   "allocated", line, t->names[r.id]);
				break;
			}
		} else if (!strcmp(tok[0], "free") && ntok == 2) {
			r.type = BARRE_REC_FREE;
			if (!ids.live[r.id]) {
				ret = fail(err, errlen, "line %u: free: object %s is not "
					   "allocated", line, t->names[r.id]);
				break;
			}
			ids.live[r.id] = 0;
		} else {
			ret = fail(err, errlen, "line %u: unknown record '%s'", line, tok[0]);
			break;
		}
		ret = push(t, &r);
	}
	free(ids.slot);
	free(ids.live);
	if (ret)
		barre_trace_free(t);
	return ret;
}

void barre_trace_free(struct barre_trace *t)
{
	free(t->rec);
	free(t->names);
	memset(t, 0, sizeof(*t));
}

int barre_access_check(const struct barre_rec *a, uint32_t chiplets,
		       uint64_t pages, char *err, size_t errlen)
{
	if (a->chiplet >= chiplets)
		return fail(err, errlen, "line %u: access: no such chiplet", a->line);
	if (a->bytes >= pages * 4096)
		return fail(err, errlen, "line %u: access: offset past the object",
			    a->line);
	return 0;
}
