/* SPDX-License-Identifier: GPL-2.0 */
/* mcmgpu cxl: the subcommands. */
#ifndef CXL_TOOL_H
#define CXL_TOOL_H

#include "cli.h"

extern const struct subcommand cxl_commands[];

int cxl_cmd_gen(int argc, char **argv);

#endif /* CXL_TOOL_H */
