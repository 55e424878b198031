/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The options several subcommands share (--json, --host, -d/--device,
 * --chiplets, and -h/--help with the subcommand's usage), parsed here so
 * that they mean and check the same everywhere. A subcommand lists the
 * ones it has in its getopt table with the OPTION_* entries and passes
 * every option to common_opt() first; hand-parsed argument lists use
 * common_arg().
 */
#ifndef MCMGPU_TOOL_OPTS_H
#define MCMGPU_TOOL_OPTS_H

#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>

#include "device.h"
#include "mcmgpu_hw.h"

struct common_opts {
	void (*usage)(FILE *f);		/* -h: on stdout; a bad option: stderr */
	const char *device;
	unsigned int chiplets;
	unsigned int min_chiplets;	/* --chiplets takes min..max_chiplets */
	unsigned int max_chiplets;	/* 0: MCMGPU_MAX_CHIPLETS */
	bool json, host, chiplets_given;
};

#define COMMON_OPTS(usage_fn, min) {					\
	.usage = (usage_fn), .device = DEFAULT_DEVICE,			\
	.chiplets = MCMGPU_DEFAULT_CHIPLETS, .min_chiplets = (min),	\
}

/* getopt values; 'j', 'd' and 'h' double as the short options. */
enum {
	OPT_JSON = 'j', OPT_HOST = 'H', OPT_DEVICE = 'd', OPT_CHIPLETS = 'c',
	OPT_HELP = 'h',
};

#define OPTION_JSON	{ "json", no_argument, NULL, OPT_JSON }
#define OPTION_HOST	{ "host", no_argument, NULL, OPT_HOST }
#define OPTION_DEVICE	{ "device", required_argument, NULL, OPT_DEVICE }
#define OPTION_CHIPLETS	{ "chiplets", required_argument, NULL, OPT_CHIPLETS }
#define OPTION_HELP	{ "help", no_argument, NULL, OPT_HELP }

/* The same four for common_arg(), which is told which ones it may take. */
#define ARG_JSON	(1U << 0)
#define ARG_HOST	(1U << 1)
#define ARG_DEVICE	(1U << 2)
#define ARG_CHIPLETS	(1U << 3)

/*
 * Applies getopt's c if it is a common option; -h, --help and an unknown
 * option exit through the usage (0 and 2), so does a bad value (2).
 */
bool common_opt(struct common_opts *o, int c, const char *arg);
/* Consumes argv[*a] (and its value) if it is -h, --help or one in which. */
bool common_arg(struct common_opts *o, unsigned int which, int argc,
		char **argv, int *a);
/* The ACTION or WORKLOAD before the options (or the help asked there). */
const char *common_verb(const struct common_opts *o, int argc, char **argv);
/* The one operand after the options; anything else is a usage error. */
const char *common_operand(const struct common_opts *o, int argc, char **argv);

#endif /* MCMGPU_TOOL_OPTS_H */
