// SPDX-License-Identifier: GPL-2.0
#include <stdlib.h>
#include <string.h>

#include "opts.h"
#include "cli.h"

static void __attribute__((noreturn))
usage_exit(const struct common_opts *o, int status)
{
	o->usage(status ? stderr : stdout);
	exit(status);
}

static bool is_help(const char *s)
{
	return !strcmp(s, "--help") || !strcmp(s, "-h");
}

/*
 * Applies getopt's c if it is a common option; -h, --help and an unknown
 * option exit through the usage (0 and 2), so does a bad value (2).
 */
static bool common_opt(struct common_opts *o, int c, const char *arg)
{
	switch (c) {
	case OPT_HELP:
		usage_exit(o, 0);
	case '?':	/* getopt has said what is wrong */
		usage_exit(o, 2);
	case OPT_JSON:
		o->json = true;
		return true;
	case OPT_HOST:
		o->host = true;
		return true;
	case OPT_DEVICE:
		o->device = arg;
		return true;
	case OPT_CHIPLETS:
		o->chiplets = parse_arg_range(arg, "--chiplets", o->min_chiplets,
					      o->max_chiplets ? o->max_chiplets :
					      MCMGPU_MAX_CHIPLETS);
		o->chiplets_given = true;
		return true;
	}
	return false;
}

int common_parse(struct common_opts *o, int argc, char **argv,
		 const char *shortopts, const struct option *opts, int *longindex)
{
	int c;

	while ((c = getopt_long(argc, argv, shortopts, opts, longindex)) != -1)
		if (!common_opt(o, c, optarg))
			return c;
	return -1;
}

const char *common_verb(const struct common_opts *o, int argc, char **argv)
{
	if (argc >= 2 && is_help(argv[1]))
		usage_exit(o, 0);
	if (argc < 2)
		usage_exit(o, 2);
	return argv[1];
}

const char *common_operand(const struct common_opts *o, int argc, char **argv)
{
	if (optind + 1 != argc)
		usage_exit(o, 2);
	return argv[optind];
}
