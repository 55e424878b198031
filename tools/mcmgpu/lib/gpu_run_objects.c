// SPDX-License-Identifier: GPL-2.0
#include <string.h>

#include "gpu_run_objects.h"

_Static_assert((int)GPU_PLACE_CHUNK == (int)MCMGPU_ALLOC_CHUNK &&
	       (int)GPU_PLACE_RR == (int)MCMGPU_ALLOC_RR &&
	       (int)GPU_PLACE_KWC == (int)MCMGPU_ALLOC_KWC,
	       "the core's placements are the allocator's policies");

void gpu_run_object_req(const struct gpu_run_opts *o,
			const struct gpu_object *obj,
			struct gpu_alloc_alloc_req *req)
{
	uint64_t first = obj->base >> GPU_PAGE_SHIFT;
	uint64_t last = (obj->base + (obj->size ? obj->size : 1) - 1) >> GPU_PAGE_SHIFT;

	memset(req, 0, sizeof(*req));
	req->pages = last - first + 1;
	req->policy = obj->policy;
	req->g = obj->policy == GPU_PLACE_CHUNK ? obj->g : 1;
	req->barre = o->barre != GPU_RUN_BARRE_OFF;
	req->writable = true;
}
