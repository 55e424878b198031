/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A small JSON writer: it places the commas, and a line break goes where
 * json_break() asks for one, so the outputs keep their hand-made layout.
 */
#ifndef MCMGPU_TOOL_JSON_H
#define MCMGPU_TOOL_JSON_H

#include <stdbool.h>
#include <stdio.h>

#define JSON_MAX_DEPTH 8

struct json {
	FILE *f;
	int depth;
	char close[JSON_MAX_DEPTH];
	bool first[JSON_MAX_DEPTH];
	const char *brk;	/* indent of a pending line break */
};

/* Opens the top-level object on f; json_end() closes it and the line. */
void json_begin(struct json *j, FILE *f);
void json_end(struct json *j);
/* An object ('{') or array ('['); key is NULL inside an array. */
void json_open(struct json *j, const char *key, char bracket);
void json_close(struct json *j);
/* The next item, or closing bracket, starts a new line with indent. */
void json_break(struct json *j, const char *indent);
void json_u64(struct json *j, const char *key, unsigned long long v);
void json_double(struct json *j, const char *key, int decimals, double v);
void json_bool(struct json *j, const char *key, bool v);
/* s NULL: null. */
void json_string(struct json *j, const char *key, const char *s);
void json_str(FILE *f, const char *s);

#endif /* MCMGPU_TOOL_JSON_H */
