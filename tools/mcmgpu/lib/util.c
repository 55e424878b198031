// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "file.h"
#include "util.h"

void die_usage(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
	exit(2);
}

int parse_u64(const char *s, const char *what, uint64_t *out)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s || *s == '-')
		goto bad;
	switch (*end) {
	case 'K': case 'k':
		v <<= 10, end++;
		break;
	case 'M': case 'm':
		v <<= 20, end++;
		break;
	case 'G': case 'g':
		v <<= 30, end++;
		break;
	}
	if (*end)
		goto bad;
	*out = v;
	return 0;
bad:
	fprintf(stderr, "%s: %s: not a number: '%s'\n", prog, what, s);
	return -1;
}

uint64_t parse_arg(const char *s, const char *what)
{
	uint64_t v;

	if (parse_u64(s, what, &v))
		exit(2);
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

int run_subcommand(const char *group, const struct subcommand *cmds, size_t n,
		   int argc, char **argv)
{
	size_t i;

	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		FILE *f = argc < 2 ? stderr : stdout;

		fprintf(f, "usage: mcmgpu %s <command> [options]\n\n", group);
		for (i = 0; i < n; i++)
			fprintf(f, "  %-9s %s\n", cmds[i].name, cmds[i].summary);
		fprintf(f, "\n'mcmgpu %s <command> --help' describes one.\n", group);
		return argc < 2 ? 2 : 0;
	}
	for (i = 0; i < n; i++)
		if (!strcmp(argv[1], cmds[i].name))
			return cmds[i].run(argc - 1, argv + 1);
	die_usage("%s: unknown command '%s'", group, argv[1]);
	return 2;
}

uint64_t xorshift64(uint64_t *state)
{
	uint64_t x = *state;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	*state = x;
	return x;
}

double now_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}
