/* SPDX-License-Identifier: GPL-2.0 */
/*
 * How `mcmgpu run` allocates a program's objects, shared by the host and
 * device backends so both get the same pages at the same addresses.
 */
#ifndef MCMGPU_TOOL_GPU_RUN_OBJECTS_H
#define MCMGPU_TOOL_GPU_RUN_OBJECTS_H

#include "gpu_run.h"
#include "../../../drivers/mcmgpu/gpu_alloc.h"

/*
 * The allocation of obj: its pages from the page holding its first byte
 * to the one holding its last, with the configuration's placement
 * (GPU_PLACE_* are MCMGPU_ALLOC_CHUNK, _RR and _KWC), Barre's coalescing
 * when Barre is on, writable.
 */
void gpu_run_object_req(const struct gpu_run_opts *o,
			const struct gpu_object *obj,
			struct gpu_alloc_alloc_req *req);

#endif
