/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Program files (program.h) in either encoding: the text form, one
 * record a line, and the binary form. An input is sniffed by its first
 * bytes; "-" is stdin or stdout. Errors name the file and the line (text)
 * or the record and byte offset (binary) and the field.
 */
#ifndef MCMGPU_TOOL_PROG_FILE_H
#define MCMGPU_TOOL_PROG_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "program.h"

struct prog_in;
struct prog_out;

/* NULL with the reason in err. */
struct prog_in *prog_in_open(const char *path, char *err, size_t errlen);
/* The same over an open stream, which stays the caller's (name: for
 * messages). */
struct prog_in *prog_in_fdopen(FILE *f, const char *name, char *err,
			       size_t errlen);
/* 1 and the next record, 0 after END, or a negative errno (prog_in_error). */
int prog_in_next(struct prog_in *in, struct prog_rec *rec);
const char *prog_in_error(const struct prog_in *in);
/* The caller reads into one record it never writes: prog_read_same(). */
void prog_in_same_record(struct prog_in *in);
bool prog_in_is_text(const struct prog_in *in);
void prog_in_close(struct prog_in *in);
/* A prog_source_fn over a prog_in. */
int prog_in_source(void *in, struct prog_rec *rec);

struct prog_out *prog_out_open(const char *path, bool text, char *err,
			       size_t errlen);
/* 0 or a negative errno (prog_out_error): a bad record or a write. */
int prog_out_write(struct prog_out *out, const struct prog_rec *rec);
const char *prog_out_error(const struct prog_out *out);
/* Flushes and closes: 0 or a negative errno, the message in err. Closing
 * before END is an error (the file is left incomplete and says so). */
int prog_out_close(struct prog_out *out, char *err, size_t errlen);
/* A prog_sink_fn over a prog_out. */
int prog_out_sink(void *out, const struct prog_rec *rec);

/* The text form of one record, one line with its newline (no header). */
int prog_text_format(const struct prog_rec *rec, char *buf, size_t len);

#endif /* MCMGPU_TOOL_PROG_FILE_H */
