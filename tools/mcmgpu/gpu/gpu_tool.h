/* SPDX-License-Identifier: GPL-2.0 */
/* mcmgpu gpu: the GPU timing core's subcommands. */
#ifndef GPU_TOOL_H
#define GPU_TOOL_H

#include "cli.h"

extern const struct subcommand gpu_commands[];

#endif /* GPU_TOOL_H */
