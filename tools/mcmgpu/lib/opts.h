/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Options, declared one way: every command has a getopt_long table of
 * its options, the ones several commands share (--json, --host,
 * -d/--device, --chiplets, -h/--help with the command's usage) as the
 * OPTION_* entries, parsed here so that they mean and check the same
 * everywhere. The loop: while ((c = common_parse(...)) != -1), a switch
 * on the command's own; then its operands from argv[optind].
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

/*
 * The next option of argv (getopt_long with shortopts, opts and
 * longindex, which may be NULL) that is not a common one, which it
 * applies: -h, --help and an unknown option exit through the usage (0
 * and 2), so does a bad value (2). -1 after the last.
 */
int common_parse(struct common_opts *o, int argc, char **argv,
		 const char *shortopts, const struct option *opts, int *longindex);
/* The ACTION or WORKLOAD before the options (or the help asked there). */
const char *common_verb(const struct common_opts *o, int argc, char **argv);
/* The one operand after the options; anything else is a usage error. */
const char *common_operand(const struct common_opts *o, int argc, char **argv);

#endif /* MCMGPU_TOOL_OPTS_H */
