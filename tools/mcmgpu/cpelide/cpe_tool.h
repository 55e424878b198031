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

/* Workloads (cpe_workloads.c): step tables and their geometry (cpe_steps.h). */
struct cpe_gen;
struct cpe_step;

struct cpe_app {
	const char *name;
	bool low_reuse;		/* the paper's low-reuse group (Table II) */
	const struct cpe_step *steps;
	unsigned long long param[4];	/* of workloads that share a table */
	size_t priv_size;	/* bytes of the geometry's own state */
};

extern const struct cpe_app cpe_apps[];
extern const size_t cpe_napps;

/* Writes a workload's launch sequence for n chiplets (cpe_steps.c). */
void cpe_app_emit(const struct cpe_app *app, FILE *f, unsigned int n);

#endif /* CPE_TOOL_H */
