/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ADSM runs: the access patterns of notes/adsm.md §4.5 written once over a
 * small runtime, which is either the device (objects mmapped from
 * /dev/mcmgpuN, the driver's protocols, the device's kernels:
 * adsm_device.c) or the host replay (the same protocol and kernel cores on plain memory:
 * adsm_host.c). Both report the same counters for the same run; the
 * expected bytes of each pattern are computed here from the protocols'
 * rules, independently of the cores.
 */
#ifndef MCMGPU_TOOL_ADSM_RT_H
#define MCMGPU_TOOL_ADSM_RT_H

#include <stdbool.h>
#include <stdint.h>

#include "mcmgpu_adsm.h"

/* "Protocol" 3: no shared mapping, hand-written copies (the CUDA bar). */
#define ADSM_EXPLICIT		MCMGPU_ADSM_PROTOCOLS

struct adsm_buf {
	uint8_t *cpu;		/* where the CPU reads and writes it */
	uint64_t gpu_va;
	uint64_t bytes;
	uint32_t handle;
	void *priv;
};

struct adsm_rt {
	const struct adsm_rt_ops *ops;
	uint32_t protocol;	/* MCMGPU_ADSM_* or ADSM_EXPLICIT */
	char err[160];		/* why the last call failed */
};

struct adsm_rt_ops {
	int (*alloc)(struct adsm_rt *rt, uint64_t bytes, struct adsm_buf *b);
	int (*free)(struct adsm_rt *rt, struct adsm_buf *b);
	/*
	 * The CPU's loads and stores through b->cpu: on the device plain
	 * memcpy (the MMU faults), in the host replay unit by unit, each
	 * after its modeled fault.
	 */
	int (*cpu_write)(struct adsm_rt *rt, struct adsm_buf *b, uint64_t off,
			 const void *src, uint64_t len);
	int (*cpu_read)(struct adsm_rt *rt, struct adsm_buf *b, uint64_t off,
			void *dst, uint64_t len);
	/* Explicit copies between b->cpu and the GPU's copy. */
	int (*copy)(struct adsm_rt *rt, struct adsm_buf *b, uint64_t off,
		    uint64_t len, bool to_gpu);
	int (*launch)(struct adsm_rt *rt, const struct mcmgpu_adsm_kernel *k);
	int (*sync)(struct adsm_rt *rt, struct mcmgpu_adsm_kernel_result *res);
	/* read(2) of len bytes of fd (at its offset) into b at off. */
	int (*file_read)(struct adsm_rt *rt, int fd, struct adsm_buf *b,
			 uint64_t off, uint64_t len);
	int (*file_write)(struct adsm_rt *rt, int fd, struct adsm_buf *b,
			  uint64_t off, uint64_t len);
	int (*stats)(struct adsm_rt *rt, struct mcmgpu_adsm_stats *st);
};

enum adsm_pattern {
	ADSM_PAT_PC,		/* produce, launch, consume */
	ADSM_PAT_ITER,		/* K launches, one element read after each */
	ADSM_PAT_STENCIL,	/* K Jacobi steps, a point source each */
	ADSM_PAT_VADD,		/* c = a + b */
	ADSM_PAT_MULTIPASS,	/* P passes over the input, then a launch */
	ADSM_PAT_IO,		/* read(2) into an object, write(2) it back */
	ADSM_PATTERNS,
};

struct adsm_params {
	uint32_t pattern;
	uint32_t protocol;
	uint64_t size;		/* S: bytes of each object */
	uint64_t block;		/* B: rolling's block */
	uint32_t rolling;	/* R fixed, 0 adaptive */
	uint32_t iterations;	/* K, or P for multipass */
	uint64_t seed;
};

struct adsm_outcome {
	struct mcmgpu_adsm_stats st;
	uint64_t exp_h2d, exp_d2h;	/* the pattern's formula */
	uint64_t exp_faults;		/* protocol faults expected */
	uint64_t kernels;
	bool verified;			/* the CPU read what the GPU computed */
	uint64_t bad_index;		/* first wrong element, if not */
};

const char *adsm_pattern_name(uint32_t pattern);
int adsm_pattern_parse(const char *name);
const char *adsm_protocol_name(uint32_t protocol);
int adsm_protocol_parse(const char *name);
/* Checks p; returns NULL or what is wrong ("size: ..."). */
const char *adsm_params_check(const struct adsm_params *p);
/* The rolling size a pattern ends up with (adaptive: 2 per object). */
uint32_t adsm_pattern_objects(uint32_t pattern);
/* Runs p on rt; 0 or -errno (rt->err says why). */
int adsm_run(struct adsm_rt *rt, const struct adsm_params *p,
	     struct adsm_outcome *out);
/* The bytes the pattern must move under its protocol (notes §4.5). */
void adsm_expected(const struct adsm_params *p, uint64_t *h2d, uint64_t *d2h,
		   uint64_t *faults);

/* The host replay's runtime; adsm_host_free() when done. */
struct adsm_rt *adsm_host_new(uint32_t protocol, uint64_t block,
			      uint32_t rolling, uint32_t chiplets);
void adsm_host_free(struct adsm_rt *rt);

/* The device's runtime (adsm_device.c), on one open file of it. */
struct adsm_device {
	struct adsm_rt rt;
	int fd;
	uint64_t other_va;	/* objects mapped away from their GPU VA */
};

extern const struct adsm_rt_ops adsm_device_ops;
/* A fresh file of the device, its protocol set before any object; -errno. */
int adsm_device_open(struct adsm_device *d, const char *device,
		     const struct adsm_params *p);
/* memcpy in address order, a page at a time, as a CPU's program stores. */
void adsm_copy_in_order(uint8_t *dst, const uint8_t *src, uint64_t len,
			uintptr_t addr);

#endif /* MCMGPU_TOOL_ADSM_RT_H */
