// SPDX-License-Identifier: GPL-2.0
/*
 * Text launch sequences, one record a line, '#' comments:
 *   alloc NAME BYTES
 *   kernel NAME [chiplets=C0,C1,...] [passes=K] ARG...
 *     ARG = OBJ:r|rw[:even|:unknown|:C=START-END[,C=START-END...]]
 *   host_read OBJ [START-END]
 *   host_write OBJ [START-END]
 *   end
 * Offsets are bytes in OBJ, inclusive. Objects are placed page-aligned in
 * GPU memory in the order they are allocated.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpe_seq.h"
#include "file.h"
#include "num.h"

#define MAX_OBJECTS 256

struct object {
	char name[64];
	uint64_t base, size;
};

struct parser {
	struct object obj[MAX_OBJECTS];
	unsigned int nobj, chiplets;
	uint64_t next;
	char *msg;
	size_t msglen;
};

static int __attribute__((format(printf, 2, 3)))
fail(struct parser *p, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(p->msg, p->msglen, fmt, ap);
	va_end(ap);
	return -1;
}

static struct object *find(struct parser *p, const char *name)
{
	unsigned int i;

	for (i = 0; i < p->nobj; i++)
		if (!strcmp(p->obj[i].name, name))
			return &p->obj[i];
	return NULL;
}

static int push(struct cpe_seq *seq, const struct mcmgpu_cpe_record *r,
		unsigned int line)
{
	if (seq->n == seq->cap) {
		size_t cap = seq->cap ? 2 * seq->cap : 64;
		struct mcmgpu_cpe_record *nr = realloc(seq->rec, cap * sizeof(*nr));
		unsigned int *nl = realloc(seq->line, cap * sizeof(*nl));

		if (nr)
			seq->rec = nr;
		if (nl)
			seq->line = nl;
		if (!nr || !nl)
			return -1;
		seq->cap = cap;
	}
	seq->rec[seq->n] = *r;
	seq->line[seq->n++] = line;
	return 0;
}

/* START-END inside the object, into an absolute inclusive range. */
static int parse_range(struct parser *p, const struct object *o, char *s,
		       struct mcmgpu_cpe_range *out)
{
	char *dash = strchr(s, '-');
	uint64_t lo, hi;

	if (!dash)
		return fail(p, "range '%s': want START-END", s);
	*dash = '\0';
	if (str_to_u64(s, false, &lo) || str_to_u64(dash + 1, false, &hi))
		return fail(p, "range '%s': not numbers", s);
	if (lo > hi || hi >= o->size)
		return fail(p, "range: outside object '%s'", o->name);
	out->start = o->base + lo;
	out->end = o->base + hi;
	return 0;
}

static int parse_arg(struct parser *p, char *tok, struct mcmgpu_cpe_arg *a)
{
	char *name = tok, *mode = strchr(tok, ':'), *kind;
	struct object *o;
	unsigned int c;

	if (!mode)
		return fail(p, "argument '%s': want OBJ:r|rw[:...]", tok);
	*mode++ = '\0';
	kind = strchr(mode, ':');
	if (kind)
		*kind++ = '\0';
	o = find(p, name);
	if (!o)
		return fail(p, "unknown object '%s'", name);
	memset(a, 0, sizeof(*a));
	a->base = o->base;
	a->size = o->size;
	if (!strcmp(mode, "r"))
		a->mode = MCMGPU_CPE_MODE_R;
	else if (!strcmp(mode, "rw"))
		a->mode = MCMGPU_CPE_MODE_RW;
	else
		return fail(p, "mode '%s': want r or rw", mode);
	if (!kind || !strcmp(kind, "even")) {
		a->kind = MCMGPU_CPE_ARG_EVEN;
		return 0;
	}
	if (!strcmp(kind, "unknown")) {
		a->kind = MCMGPU_CPE_ARG_UNKNOWN;
		return 0;
	}
	a->kind = MCMGPU_CPE_ARG_EXPLICIT;
	for (c = 0; c < MCMGPU_MAX_CHIPLETS; c++) {
		a->range[c].start = 1;
		a->range[c].end = 0;
	}
	while (kind && *kind) {
		char *next = strchr(kind, ','), *eq = strchr(kind, '=');
		uint64_t chip;

		if (next)
			*next++ = '\0';
		if (!eq)
			return fail(p, "range '%s': want C=START-END", kind);
		*eq = '\0';
		if (str_to_u64(kind, false, &chip) || chip >= MCMGPU_MAX_CHIPLETS)
			return fail(p, "chiplet '%s' does not exist", kind);
		if (parse_range(p, o, eq + 1, &a->range[chip]))
			return -1;
		kind = next;
	}
	return 0;
}

static int parse_chiplets(struct parser *p, char *s, uint32_t *mask)
{
	char *tok, *save = NULL;
	uint64_t c;

	*mask = 0;
	for (tok = strtok_r(s, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (str_to_u64(tok, false, &c) || c >= p->chiplets)
			return fail(p, "chiplet '%s' does not exist", tok);
		*mask |= 1U << c;
	}
	if (!*mask)
		return fail(p, "empty chiplet set");
	return 0;
}

static int parse_line(struct parser *p, char *line, struct cpe_seq *seq,
		      unsigned int lineno)
{
	char *tok[64], *save = NULL, *t;
	struct mcmgpu_cpe_record r;
	struct object *o;
	unsigned int ntok = 0, i;
	uint64_t v;

	for (t = strtok_r(line, " \t\r", &save); t; t = strtok_r(NULL, " \t\r", &save)) {
		if (ntok == 64)
			return fail(p, "too many fields");
		tok[ntok++] = t;
	}
	if (!ntok)
		return 0;
	memset(&r, 0, sizeof(r));
	if (!strcmp(tok[0], "alloc")) {
		if (ntok != 3)
			return fail(p, "alloc takes NAME BYTES");
		if (find(p, tok[1]))
			return fail(p, "object '%s' allocated twice", tok[1]);
		if (str_to_u64(tok[2], false, &v) || !v || v % 4)
			return fail(p, "alloc: BYTES '%s' must be a multiple of 4", tok[2]);
		if (p->nobj == MAX_OBJECTS || strlen(tok[1]) >= sizeof(p->obj[0].name))
			return fail(p, "alloc '%s': too many objects or name too long",
				    tok[1]);
		o = &p->obj[p->nobj++];
		snprintf(o->name, sizeof(o->name), "%s", tok[1]);
		o->base = p->next;
		o->size = v;
		p->next = (p->next + v + 4095) / 4096 * 4096;
		return 0;
	}
	if (!strcmp(tok[0], "kernel")) {
		if (ntok < 3)
			return fail(p, "kernel takes NAME and at least one ARG");
		r.type = MCMGPU_CPE_REC_KERNEL;
		r.chiplet_mask = (1U << p->chiplets) - 1;
		r.passes = 1;
		r.kernel_id = lineno;
		for (i = 2; i < ntok; i++) {
			if (!strncmp(tok[i], "chiplets=", 9)) {
				if (parse_chiplets(p, tok[i] + 9, &r.chiplet_mask))
					return -1;
			} else if (!strncmp(tok[i], "passes=", 7)) {
				if (str_to_u64(tok[i] + 7, false, &v) || !v ||
				    v > MCMGPU_CPE_MAX_PASSES)
					return fail(p, "passes '%s': want 1..%u", tok[i] + 7,
						    MCMGPU_CPE_MAX_PASSES);
				r.passes = v;
			} else if (r.nargs == MCMGPU_CPE_MAX_ARGS) {
				return fail(p, "more than %d arguments (the descriptor's "
					    "maximum)", MCMGPU_CPE_MAX_ARGS);
			} else if (parse_arg(p, tok[i], &r.args[r.nargs++])) {
				return -1;
			}
		}
		if (!r.nargs)
			return fail(p, "kernel without arguments");
		return push(seq, &r, lineno) ? fail(p, "out of memory") : 0;
	}
	if (!strcmp(tok[0], "host_read") || !strcmp(tok[0], "host_write")) {
		if (ntok < 2 || ntok > 3)
			return fail(p, "%s takes OBJ [START-END]", tok[0]);
		o = find(p, tok[1]);
		if (!o)
			return fail(p, "unknown object '%s'", tok[1]);
		r.type = tok[0][5] == 'r' ? MCMGPU_CPE_REC_HOST_READ : MCMGPU_CPE_REC_HOST_WRITE;
		r.nargs = 1;
		r.args[0].base = o->base;
		r.args[0].size = o->size;
		r.args[0].range[0].start = o->base;
		r.args[0].range[0].end = o->base + o->size - 1;
		if (ntok == 3 && parse_range(p, o, tok[2], &r.args[0].range[0]))
			return -1;
		return push(seq, &r, lineno) ? fail(p, "out of memory") : 0;
	}
	if (!strcmp(tok[0], "end")) {
		if (ntok != 1)
			return fail(p, "end takes nothing");
		r.type = MCMGPU_CPE_REC_END;
		return push(seq, &r, lineno) ? fail(p, "out of memory") : 0;
	}
	return fail(p, "unknown record type '%s'", tok[0]);
}

int cpe_seq_parse(const char *text, size_t len, unsigned int chiplets,
		  unsigned int policy, struct cpe_seq *seq, char *msg,
		  size_t msglen)
{
	struct parser *p = calloc(1, sizeof(*p));
	struct mcmgpu_cpe_record reset = { .type = MCMGPU_CPE_REC_RESET };
	size_t pos = 0;
	unsigned int lineno = 0;
	char sub[256];
	int ret = 0;

	if (!p || push(seq, &reset, 0)) {
		free(p);
		snprintf(msg, msglen, "out of memory");
		return -1;
	}
	p->chiplets = chiplets;
	p->msg = sub;
	p->msglen = sizeof(sub);
	while (pos < len && !ret) {
		const char *nl = memchr(text + pos, '\n', len - pos);
		size_t n = (nl ? (size_t)(nl - text) : len) - pos;
		char *line = strndup(text + pos, n), *hash;

		lineno++;
		if (!line) {
			ret = -1;
			snprintf(sub, sizeof(sub), "out of memory");
			break;
		}
		hash = strchr(line, '#');
		if (hash)
			*hash = '\0';
		ret = parse_line(p, line, seq, lineno);
		free(line);
		pos += n + 1;
	}
	if (ret) {
		snprintf(msg, msglen, "line %u: %s", lineno, sub);
	} else if (p->next > MCMGPU_CPE_MAX_MEM_BYTES) {
		snprintf(msg, msglen, "allocations total %llu bytes, more than %llu MiB",
			 (unsigned long long)p->next,
			 (unsigned long long)MCMGPU_CPE_MAX_MEM_BYTES >> 20);
		ret = -1;
	} else if (!p->next) {
		snprintf(msg, msglen, "no alloc records");
		ret = -1;
	}
	seq->mem_bytes = p->next;
	seq->rec[0].policy = policy;
	seq->rec[0].chiplets = chiplets;
	seq->rec[0].mem_bytes = p->next;
	free(p);
	return ret;
}

int cpe_seq_load(const char *path, unsigned int chiplets, unsigned int policy,
		 struct cpe_seq *seq, char *msg, size_t msglen)
{
	char *buf, sub[256];
	size_t n;
	int ret;

	buf = file_load(path, &n, msg, msglen);
	if (!buf)
		return -1;
	ret = cpe_seq_parse(buf, n, chiplets, policy, seq, sub, sizeof(sub));
	if (ret)
		snprintf(msg, msglen, "%s: %s", path, sub);
	free(buf);
	return ret;
}

void cpe_seq_free(struct cpe_seq *seq)
{
	free(seq->rec);
	free(seq->line);
	memset(seq, 0, sizeof(*seq));
}
