/* SPDX-License-Identifier: GPL-2.0 */
/* mcmgpu adsm: the subcommands. */
#ifndef ADSM_TOOL_H
#define ADSM_TOOL_H

#include "cli.h"

extern const struct subcommand adsm_commands[];

#endif /* ADSM_TOOL_H */
