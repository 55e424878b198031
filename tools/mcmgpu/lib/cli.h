/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What every command does at the command line: its subcommand table and
 * dispatch, the program's name in messages, usage errors (exit 2) and
 * fatal ones (exit 1), option values, and whole files read or written
 * with the error said. The options themselves: opts.h.
 */
#ifndef MCMGPU_TOOL_CLI_H
#define MCMGPU_TOOL_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "num.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* A mechanism's subcommands, in a table that ends with an empty entry. */
struct subcommand {
	const char *name;
	const char *summary;
	int (*run)(int argc, char **argv);
};

extern const char *prog;

void die_usage(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A failure that is not the command line's: the message, exit status 1. */
void fatal(const char *fmt, ...)
	__attribute__((noreturn, format(printf, 1, 2)));
/* Dispatches argv[1] to one of cmds; prints the group's --help. */
int run_subcommand(const char *group, const struct subcommand *cmds,
		   int argc, char **argv);
/* Accepts decimal, 0x hex, and K/M/G suffixes (powers of two). */
int parse_u64(const char *s, const char *what, uint64_t *out);
/* The same for an option's value: a bad one exits with status 2. */
uint64_t parse_arg(const char *s, const char *what);
/* And one that must be in min..max. */
uint64_t parse_arg_range(const char *s, const char *what, uint64_t min,
			 uint64_t max);
/* Whole-file I/O that prints its error; read_file's buffer is malloc'd. */
void *read_file(const char *path, size_t *len);
int write_file(const char *path, const void *buf, size_t len);

#endif /* MCMGPU_TOOL_CLI_H */
