/* SPDX-License-Identifier: GPL-2.0 */
/* mcmgpu barre: the subcommands. */
#ifndef BARRE_TOOL_H
#define BARRE_TOOL_H

#include "cli.h"

/* The subcommands of mcmgpu barre, for the mechanism table. */
extern const struct subcommand barre_commands[];

int barre_cmd_replay(int argc, char **argv);
int barre_cmd_gen(int argc, char **argv);

#endif /* BARRE_TOOL_H */
