// SPDX-License-Identifier: GPL-2.0
/* The allocation request of a program's object (gpu_run_objects.h). */
#include <string.h>

#include "gpu_run_objects.h"

#define GPU_RUN_PAGE	(1ULL << GPU_PAGE_SHIFT)

_Static_assert((int)GPU_PLACE_CHUNK == (int)MCMGPU_ALLOC_CHUNK &&
	       (int)GPU_PLACE_RR == (int)MCMGPU_ALLOC_RR &&
	       (int)GPU_PLACE_KWC == (int)MCMGPU_ALLOC_KWC,
	       "the core's placements are the allocator's policies");

void gpu_run_object_req(const struct gpu_run_opts *o,
			const struct gpu_object *obj,
			struct gpu_alloc_alloc_req *req)
{
	uint64_t pages = (obj->base % GPU_RUN_PAGE + obj->size +
			  GPU_RUN_PAGE - 1) / GPU_RUN_PAGE;

	memset(req, 0, sizeof(*req));
	req->pages = pages;
	req->policy = o->cfg.placement;
	if (req->policy == GPU_PLACE_CHUNK)
		req->g = o->cfg.place_g < pages ? o->cfg.place_g : pages;
	req->barre = o->barre != GPU_RUN_BARRE_OFF;
	/* F-Barre's contiguity-aware expansion (Fig 14); 0: none. */
	if (req->barre && o->cfg.fbarre_merge > 1)
		req->merge = o->cfg.fbarre_merge;
	req->writable = true;
}
