/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The GPU timing core's configuration at the command line: a preset
 * (--config NAME) with overrides (--set FIELD=VALUE, repeated), as
 * `mcmgpu gpu config` and `mcmgpu run` take them (docs/gpu.md).
 */
#ifndef MCMGPU_TOOL_GPU_CLI_H
#define MCMGPU_TOOL_GPU_CLI_H

#include <stddef.h>

#include "gpu_config.h"

/*
 * c = the preset called preset (NULL: GPU_CONFIG_DEFAULT) with sets[0..
 * nsets) applied in order, then checked with gpu_config_check() for the
 * host's GPU_MAX_CHIPLETS. 0; -ENOENT for no such preset (err lists the
 * names); -EINVAL for a bad assignment or an inconsistent result (err
 * names the assignment or the field and says why).
 */
int gpu_config_from_args(struct gpu_config *c, const char *preset,
			 char *const *sets, int nsets, char *err, size_t errlen);
/* "barre, finepack, ..." into buf. */
void gpu_preset_names(char *buf, size_t len);

#endif /* MCMGPU_TOOL_GPU_CLI_H */
