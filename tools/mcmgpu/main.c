// SPDX-License-Identifier: GPL-2.0
/*
 * mcmgpu: user-space front end of the mcmgpu device. The commands on the
 * device itself sit beside this file (cmd_info.c, cmd_dma.c), each
 * mechanism's in its own directory, the GPU programs they all run in
 * workload/, and what they share (trace formats, replays over the host
 * and device backends, the command line) in lib/; this table names them
 * all.
 */
#include <stdio.h>
#include <string.h>

#include "adsm_tool.h"
#include "barre_tool.h"
#include "commands.h"
#include "cpe_tool.h"
#include "cxl_tool.h"
#include "fp_tool.h"
#include "gpu_tool.h"
#include "workload_tool.h"
#include "cli.h"

const char *prog = "mcmgpu";

enum section { DEVICE, MECHANISM, PROGRAMS };

static const struct command {
	const char *name, *summary;
	int (*run)(int argc, char **argv);	/* a command on the device itself */
	const struct subcommand *sub;		/* a group's subcommands */
	enum section section;
} commands[] = {
	{ "info", "find mcmgpu devices and show their geometry", cmd_info, NULL,
	  DEVICE },
	{ "dma", "copy between files or random data and GPU memory", cmd_dma, NULL,
	  DEVICE },
	{ "finepack", "FinePack trace replay, generators and models", NULL,
	  fp_commands, MECHANISM },
	{ "cpelide", "CPElide launch replay through the command processor", NULL,
	  cpe_commands, MECHANISM },
	{ "barre", "Barre allocation, TLBs and the IOMMU walker with PEC", NULL,
	  barre_commands, MECHANISM },
	{ "cxl", "the GPU's CXL root complex: endpoints and HDM decoders", NULL,
	  cxl_commands, MECHANISM },
	{ "adsm", "ADSM/GMAC: shared objects kept coherent by the driver", NULL,
	  adsm_commands, MECHANISM },
	{ "run", "run a program through the GPU timing core, every mechanism on",
	  cmd_run, NULL, PROGRAMS },
	{ "workload", "GPU programs: Accel-Sim traces, applications, statistics",
	  NULL, workload_commands, PROGRAMS },
	{ "gpu", "the GPU timing core: its configurations", NULL,
	  gpu_commands, PROGRAMS },
	{ }
};

static void list(FILE *f, enum section section)
{
	const struct subcommand *s;
	const struct command *c;

	for (c = commands; c->name; c++) {
		if (c->section != section)
			continue;
		fprintf(f, "  %-8s %s\n", c->name, c->summary);
		if (!c->sub)
			continue;
		fprintf(f, "  %-8s", "");
		for (s = c->sub; s->name; s++)
			fprintf(f, " %s", s->name);
		fprintf(f, "\n");
	}
}

static void usage(FILE *f)
{
	fprintf(f, "usage: mcmgpu <command> [options]\n"
		"       mcmgpu <mechanism> <command> [options]\n"
		"       mcmgpu workload <command> [options]\n\ncommands:\n");
	list(f, DEVICE);
	fprintf(f, "\nmechanisms:\n");
	list(f, MECHANISM);
	fprintf(f, "\nthe programs they run:\n");
	list(f, PROGRAMS);
	fprintf(f, "\n'mcmgpu <command> --help' describes one command.\n");
}

int main(int argc, char **argv)
{
	const struct command *c;

	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
	    !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	for (c = commands; c->name; c++) {
		if (strcmp(argv[1], c->name))
			continue;
		if (c->sub)
			return run_subcommand(c->name, c->sub, argc - 1, argv + 1);
		return c->run(argc - 1, argv + 1);
	}
	fprintf(stderr, "%s: unknown command '%s'\n", prog, argv[1]);
	usage(stderr);
	return 2;
}
