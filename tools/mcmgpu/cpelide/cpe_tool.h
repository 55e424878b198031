/* SPDX-License-Identifier: GPL-2.0 */
/* mcmgpu cpelide: the subcommands and what they share. */
#ifndef CPE_TOOL_H
#define CPE_TOOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "mcmgpu_cpelide.h"
#include "cli.h"

/* The subcommands of mcmgpu cpelide, for the mechanism table. */
extern const struct subcommand cpe_commands[];

int cpe_cmd_replay(int argc, char **argv);
int cpe_cmd_gen(int argc, char **argv);
int cpe_cmd_bench(int argc, char **argv);

/* Generators (cpe_workloads.c): a workload's sequence for n chiplets. */
struct cpe_app {
	const char *name;
	void (*emit)(FILE *f, unsigned int n);
	bool low_reuse;		/* the paper's low-reuse group (Table II) */
};

extern const struct cpe_app cpe_apps[];
extern const size_t cpe_napps;

#endif /* CPE_TOOL_H */
