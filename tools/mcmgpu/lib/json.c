// SPDX-License-Identifier: GPL-2.0
#include <stdlib.h>

#include "json.h"

static void line_break(struct json *j)
{
	if (j->brk)
		fprintf(j->f, "\n%s", j->brk);
	j->brk = NULL;
}

/* The separator before an item and its key. */
static void item(struct json *j, const char *key)
{
	bool first = j->first[j->depth - 1];

	if (!first)
		fputc(',', j->f);
	if (j->brk)
		line_break(j);
	else if (!first)
		fputc(' ', j->f);
	j->first[j->depth - 1] = false;
	if (key) {
		json_str(j->f, key);
		fputs(": ", j->f);
	}
}

static void push(struct json *j, char bracket)
{
	if (j->depth == JSON_MAX_DEPTH)
		abort();	/* a table nests deeper than any output does */
	fputc(bracket, j->f);
	j->close[j->depth] = bracket == '{' ? '}' : ']';
	j->first[j->depth++] = true;
}

void json_begin(struct json *j, FILE *f)
{
	j->f = f;
	j->depth = 0;
	j->brk = NULL;
	push(j, '{');
}

void json_end(struct json *j)
{
	json_close(j);
	fputc('\n', j->f);
}

void json_open(struct json *j, const char *key, char bracket)
{
	item(j, key);
	push(j, bracket);
}

void json_close(struct json *j)
{
	line_break(j);
	fputc(j->close[--j->depth], j->f);
}

void json_break(struct json *j, const char *indent)
{
	j->brk = indent;
}

void json_u64(struct json *j, const char *key, unsigned long long v)
{
	item(j, key);
	fprintf(j->f, "%llu", v);
}

void json_bool(struct json *j, const char *key, bool v)
{
	item(j, key);
	fputs(v ? "true" : "false", j->f);
}

void json_double(struct json *j, const char *key, int decimals, double v)
{
	item(j, key);
	fprintf(j->f, "%.*f", decimals, v);
}

void json_string(struct json *j, const char *key, const char *s)
{
	item(j, key);
	if (s)
		json_str(j->f, s);
	else
		fputs("null", j->f);
}

void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(f, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			fprintf(f, "\\u%04x", *s);
		else
			fputc(*s, f);
	}
	fputc('"', f);
}
