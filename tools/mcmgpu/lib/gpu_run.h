/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One program through the GPU timing core (qemu-device/model/gpu_core.h)
 * with the mechanisms the options enable: `mcmgpu run`. Two backends
 * give the same result: the host one runs the core, the allocator and
 * the IOMMU walker in-process (gpu_run_host.c); the device one sends the
 * program to the device, which runs the core, while mcmgpu.ko and
 * barre_iommu.ko allocate and translate (gpu_run_device.c). Both
 * allocate the program's objects in program order with the same
 * allocator and serve ATS requests by the same epoch protocol, so their
 * results are equal field for field and the JSON (gpu_run_json) byte
 * for byte.
 */
#ifndef MCMGPU_TOOL_GPU_RUN_H
#define MCMGPU_TOOL_GPU_RUN_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "gpu_core.h"
#include "json.h"
#include "mcmgpu_barre.h"

enum gpu_run_barre {
	GPU_RUN_BARRE_OFF = 0,	/* TLBs and a conventional IOMMU (no PEC) */
	GPU_RUN_BARRE_ON,	/* Barre: coalescing allocation and PEC */
	GPU_RUN_BARRE_FBARRE,	/* F-Barre: Barre and in-package translation */
};

struct gpu_run_opts {
	struct gpu_config cfg;
	uint32_t barre;		/* enum gpu_run_barre (cfg.translate on) */
	bool shadow;		/* Barre: check every walk against a true one */
	bool progress;		/* a progress line on stderr */
	/*
	 * Tests, --host: run the core at most cut cycles a call inside each
	 * epoch (0: an epoch a call); the result must not change.
	 */
	uint32_t cut;
	/*
	 * Concurrent streams on this many chiplet groups
	 * (gpu_core_streams(); 0: off, kernels one after another).
	 */
	uint32_t streams;
	/*
	 * --host, cfg.cxl on: sample the root complex every timeline cycles
	 * (gpu_core_cxl_timeline(); 0: off). The run's timing is the same.
	 */
	uint64_t timeline;
};

/*
 * mgvm on (docs/gpu.md, MGvm in the core): the GMMUs' page walks, summed
 * over the chiplets (their requests, walks and PEC are in barre).
 */
struct gpu_run_mgvm_stats {
	uint64_t pt_pages;		/* page-table pages placed */
	uint64_t pte_reads;		/* a walk's reads, one a level */
	uint64_t remote_pte_reads;	/* ... of a table on another chiplet */
	uint64_t remote_walks;		/* walks with at least one of them */
	uint64_t walk_cycles;		/* summed over walks */
};

struct gpu_run_result {
	struct gpu_core_stats core;
	struct mcmgpu_barre_stats barre;	/* the IOMMU's (GMMUs'), translate on */
	struct gpu_run_mgvm_stats mgvm;		/* mgvm on */
	struct gpu_kernel_stats *kernels;	/* malloc'ed; nkernels of them */
	uint32_t nkernels;
	uint64_t objects;			/* mapped */
	/* o->timeline: the samples (malloc'ed) and what came after the run */
	struct gpu_cxl_sample *timeline;
	uint64_t ntimeline;
	struct gpu_cxl_sample timeline_after;
};

/*
 * Runs the program in path (either encoding). 0, or a negative errno
 * with the message in err (the program's file and record, the core's
 * kernel/block/warp/instruction, or the backend's).
 */
int gpu_run_host(const char *path, const struct gpu_run_opts *o,
		 struct gpu_run_result *r, char *err, size_t errlen);
/* The same on the device behind fd (an open /dev/mcmgpuN). */
int gpu_run_device(int fd, const char *path, const struct gpu_run_opts *o,
		   struct gpu_run_result *r, char *err, size_t errlen);
void gpu_run_result_free(struct gpu_run_result *r);
/* F-Barre's counters (the core's) into r->barre, with --barre fbarre. */
void gpu_run_fbarre_stats(const struct gpu_run_opts *o,
			  struct gpu_run_result *r);

/* The result as the items of the object j has open (see docs/gpu.md). */
void gpu_run_json(struct json *j, const struct gpu_run_opts *o,
		  const struct gpu_run_result *r);
void gpu_run_text(FILE *f, const struct gpu_run_opts *o,
		  const struct gpu_run_result *r);

#endif /* MCMGPU_TOOL_GPU_RUN_H */
