// SPDX-License-Identifier: GPL-2.0
/* mcmgpu: user-space front end of the mcmgpu device; one subcommand each. */
#include <stdio.h>
#include <string.h>

#include "util.h"

const char *prog = "mcmgpu";

static const struct subcommand subcommands[] = {
	{ "info", "find mcmgpu devices and show their geometry", cmd_info },
	{ "dma", "copy between files or random data and GPU memory", cmd_dma },
	{ "finepack", "FinePack trace replay, generators and models", cmd_finepack },
	{ "cpelide", "CPElide launch replay through the command processor", cmd_cpelide },
};

static void usage(FILE *f)
{
	size_t i;

	fprintf(f, "usage: mcmgpu <command> [options]\n\ncommands:\n");
	for (i = 0; i < sizeof(subcommands) / sizeof(subcommands[0]); i++)
		fprintf(f, "  %-8s %s\n", subcommands[i].name,
			subcommands[i].summary);
	fprintf(f, "\n'mcmgpu <command> --help' describes one command.\n");
}

int main(int argc, char **argv)
{
	size_t i;

	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
	    !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	for (i = 0; i < sizeof(subcommands) / sizeof(subcommands[0]); i++)
		if (!strcmp(argv[1], subcommands[i].name))
			return subcommands[i].run(argc - 1, argv + 1);
	fprintf(stderr, "%s: unknown command '%s'\n", prog, argv[1]);
	usage(stderr);
	return 2;
}
