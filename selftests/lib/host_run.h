/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A program file run through gpu_run_host() (tools/mcmgpu/lib/
 * gpu_run_host.c: the GPU core with the allocator and the Barre walker
 * in-process), as the host tests that compare whole runs use it. Include
 * after kselftest_harness.h (host_same_result() expects).
 */
#ifndef MCMGPU_TEST_HOST_RUN_H
#define MCMGPU_TEST_HOST_RUN_H

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gpu_run.h"

/*
 * Writes a program with writer into a new file /tmp/TEST.XXXXXX, TEST the
 * test binary's name; its path in path (len bytes). 0, or -errno.
 */
static inline int host_gen(void (*writer)(FILE *f), char *path, size_t len)
{
	FILE *f;
	int fd;

	snprintf(path, len, "/tmp/%s.XXXXXX", program_invocation_short_name);
	fd = mkstemp(path);
	if (fd < 0)
		return -errno;
	f = fdopen(fd, "w");
	if (!f) {
		close(fd);
		return -EIO;
	}
	writer(f);
	return fclose(f) ? -EIO : 0;
}

/*
 * The "barre" preset with Barre mode barre (F-Barre's in-package
 * translation on with GPU_RUN_BARRE_FBARRE), every other option zero.
 */
static inline void host_barre_opts(struct gpu_run_opts *o, int barre)
{
	memset(o, 0, sizeof(*o));
	o->cfg = gpu_preset_find("barre")->cfg;
	o->barre = barre;
	o->cfg.fbarre = barre == GPU_RUN_BARRE_FBARRE;
}

/* gpu_config_set() of "FIELD=VALUE" (printf's fmt), or abort. */
static inline void __attribute__((format(printf, 2, 3)))
host_set(struct gpu_config *cfg, const char *fmt, ...)
{
	const char *why;
	char set[64];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(set, sizeof(set), fmt, ap);
	va_end(ap);
	if (gpu_config_set(cfg, set, &why))
		abort();
}

/* gpu_run_host() with its error, if any, on stderr. */
static inline int host_run(const char *path, const struct gpu_run_opts *o,
			   struct gpu_run_result *r)
{
	char err[512];
	int ret = gpu_run_host(path, o, r, err, sizeof(err));

	if (ret)
		fprintf(stderr, "run %s: %s\n", path, err);
	return ret;
}

/* A kernel's header line: grid blocks of 32 threads, stream 0. */
static inline void host_kernel_head(FILE *f, unsigned int id,
				    unsigned int grid, const char *name)
{
	fprintf(f, "kernel %u grid=%u,1,1 block=32,1,1 shmem=0 nregs=32 "
		"binary=70 stream=0 shmem_base=0x7e0000000000 "
		"local_base=0x7d0000000000 name=%s\n", id, grid, name);
}

/* Two runs' core and Barre stats and every kernel's record are the same. */
static inline void host_same_result(struct __test_metadata *_metadata,
				    const struct gpu_run_result *a,
				    const struct gpu_run_result *b)
{
	uint32_t i;

	EXPECT_EQ(0, memcmp(&a->core, &b->core, sizeof(a->core)));
	EXPECT_EQ(0, memcmp(&a->barre, &b->barre, sizeof(a->barre)));
	ASSERT_EQ(a->nkernels, b->nkernels);
	for (i = 0; i < a->nkernels; i++)
		EXPECT_EQ(0, memcmp(&a->kernels[i], &b->kernels[i],
				    sizeof(a->kernels[i])));
}

/*
 * Runs path again with o, the core in steps of 1, 7 and 61 cycles inside
 * the epochs (o->cut, left at 61): each result the same as r0.
 */
static inline void host_same_across_cuts(struct __test_metadata *_metadata,
					 const char *path,
					 struct gpu_run_opts *o,
					 const struct gpu_run_result *r0)
{
	static const uint32_t cuts[] = { 1, 7, 61 };
	struct gpu_run_result r1;
	uint32_t i;

	for (i = 0; i < sizeof(cuts) / sizeof(cuts[0]); i++) {
		o->cut = cuts[i];
		ASSERT_EQ(0, host_run(path, o, &r1));
		host_same_result(_metadata, r0, &r1);
		gpu_run_result_free(&r1);
	}
}

#endif /* MCMGPU_TEST_HOST_RUN_H */
