/* SPDX-License-Identifier: GPL-2.0 */
/* The commands every mechanism builds on: discovery and DMA. */
#ifndef MCMGPU_TOOL_CORE_H
#define MCMGPU_TOOL_CORE_H

int cmd_info(int argc, char **argv);
int cmd_dma(int argc, char **argv);

#endif /* MCMGPU_TOOL_CORE_H */
