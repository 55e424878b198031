/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The tool's commands on the device itself, beside main.c's table (each
 * mechanism's commands live in its directory): discovery and DMA.
 */
#ifndef MCMGPU_TOOL_COMMANDS_H
#define MCMGPU_TOOL_COMMANDS_H

int cmd_info(int argc, char **argv);
int cmd_dma(int argc, char **argv);
/* gpu/cmd_run.c: a program through the GPU timing core */
int cmd_run(int argc, char **argv);

#endif /* MCMGPU_TOOL_COMMANDS_H */
