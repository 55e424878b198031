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

bool common_opt(struct common_opts *o, int c, const char *arg)
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

bool common_arg(struct common_opts *o, unsigned int which, int argc,
		char **argv, int *a)
{
	const char *s = argv[*a];
	bool has_value = *a + 1 < argc;

	if (is_help(s))
		usage_exit(o, 0);
	if ((which & ARG_JSON) && !strcmp(s, "--json"))
		return common_opt(o, OPT_JSON, NULL);
	if ((which & ARG_HOST) && !strcmp(s, "--host"))
		return common_opt(o, OPT_HOST, NULL);
	if ((which & ARG_DEVICE) && has_value &&
	    (!strcmp(s, "-d") || !strcmp(s, "--device")))
		return common_opt(o, OPT_DEVICE, argv[++*a]);
	if ((which & ARG_CHIPLETS) && has_value && !strcmp(s, "--chiplets"))
		return common_opt(o, OPT_CHIPLETS, argv[++*a]);
	return false;
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
