/* SPDX-License-Identifier: GPL-2.0 */
/* Helpers shared by the mcmgpu subcommands. */
#ifndef MCMGPU_TOOL_UTIL_H
#define MCMGPU_TOOL_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/*
 * A command of the tool. A mechanism is one with subcommands (sub), which
 * run_subcommand() dispatches; the others run themselves.
 */
struct subcommand {
	const char *name;
	const char *summary;
	int (*run)(int argc, char **argv);
	const struct subcommand *sub;
	size_t nsub;
};

extern const char *prog;

void die_usage(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Dispatches argv[1] to one of cmds; prints the group's --help. */
int run_subcommand(const char *group, const struct subcommand *cmds, size_t n,
		   int argc, char **argv);
/* Accepts decimal, 0x hex, and K/M/G suffixes (powers of two). */
int parse_u64(const char *s, const char *what, uint64_t *out);
/* The same for an option's value: a bad one exits with status 2. */
uint64_t parse_arg(const char *s, const char *what);
/* Whole-file I/O that prints its error; read_file's buffer is malloc'd. */
void *read_file(const char *path, size_t *len);
int write_file(const char *path, const void *buf, size_t len);
uint64_t xorshift64(uint64_t *state);
double now_seconds(void);

#endif /* MCMGPU_TOOL_UTIL_H */
