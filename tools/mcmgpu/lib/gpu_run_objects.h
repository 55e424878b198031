/* SPDX-License-Identifier: GPL-2.0 */
/*
 * How `mcmgpu run` allocates a program's objects, the one definition both
 * backends use (gpu_run_host.c with drivers/mcmgpu/gpu_alloc.c in a fresh
 * address space, gpu_run_device.c through MCMGPU_IOCTL_ALLOC), so that
 * the objects get the same VAs and frames on both.
 */
#ifndef MCMGPU_TOOL_GPU_RUN_OBJECTS_H
#define MCMGPU_TOOL_GPU_RUN_OBJECTS_H

#include "gpu_run.h"
#include "../../../drivers/mcmgpu/gpu_alloc.h"

/*
 * The request for obj (its base and size): the pages its bytes touch,
 * the configuration's placement and (chunk) place_g, at most the
 * object's pages, so a small object is one chunk rather than refused;
 * Barre's coalescing placement unless opts.barre is off; writable.
 */
void gpu_run_object_req(const struct gpu_run_opts *o,
			const struct gpu_object *obj,
			struct gpu_alloc_alloc_req *req);

#endif /* MCMGPU_TOOL_GPU_RUN_OBJECTS_H */
