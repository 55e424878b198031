/* SPDX-License-Identifier: GPL-2.0 */
/* mcmgpu workload: GPU programs (docs/workloads.md), the subcommands. */
#ifndef MCMGPU_WORKLOAD_TOOL_H
#define MCMGPU_WORKLOAD_TOOL_H

#include "cli.h"

extern const struct subcommand workload_commands[];

/* mcmgpu workload to MECH PROG ...: the adapters (cmd_adapt.c). */
int cmd_workload_to(int argc, char **argv);

#endif /* MCMGPU_WORKLOAD_TOOL_H */
