// SPDX-License-Identifier: GPL-2.0
/* What every command does at the command line (cli.h). */
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "file.h"
#include "num.h"
#include "cli.h"

static void __attribute__((noreturn))
vdie(int status, const char *fmt, va_list ap)
{
	fprintf(stderr, "%s: ", prog);
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	exit(status);
}

void die_usage(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vdie(2, fmt, ap);
}

void fatal(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vdie(1, fmt, ap);
}

int parse_u64(const char *s, const char *what, uint64_t *out)
{
	if (str_to_u64(s, true, out)) {
		fprintf(stderr, "%s: %s: not a number: '%s'\n", prog, what, s);
		return -1;
	}
	return 0;
}

uint64_t parse_arg(const char *s, const char *what)
{
	uint64_t v;

	if (parse_u64(s, what, &v))
		exit(2);
	return v;
}

uint64_t parse_arg_range(const char *s, const char *what, uint64_t min,
			 uint64_t max)
{
	uint64_t v = parse_arg(s, what);

	if (v < min || v > max)
		die_usage("%s: %" PRIu64 " is not %" PRIu64 "..%" PRIu64, what, v,
			  min, max);
	return v;
}

void *read_file(const char *path, size_t *len)
{
	char msg[512];
	void *buf = file_load(path, len, msg, sizeof(msg));

	if (!buf)
		fprintf(stderr, "%s: %s\n", prog, msg);
	return buf;
}

int write_file(const char *path, const void *buf, size_t len)
{
	char msg[512];

	if (file_store(path, buf, len, msg, sizeof(msg))) {
		fprintf(stderr, "%s: %s\n", prog, msg);
		return -1;
	}
	return 0;
}

int run_subcommand(const char *group, const struct subcommand *cmds,
		   int argc, char **argv)
{
	const struct subcommand *c;

	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		FILE *f = argc < 2 ? stderr : stdout;

		fprintf(f, "usage: mcmgpu %s <command> [options]\n\n", group);
		for (c = cmds; c->name; c++)
			fprintf(f, "  %-9s %s\n", c->name, c->summary);
		fprintf(f, "\n'mcmgpu %s <command> --help' describes one.\n", group);
		return argc < 2 ? 2 : 0;
	}
	for (c = cmds; c->name; c++)
		if (!strcmp(argv[1], c->name))
			return c->run(argc - 1, argv + 1);
	die_usage("%s: unknown command '%s'", group, argv[1]);
	return 2;
}
