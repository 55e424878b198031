/* SPDX-License-Identifier: GPL-2.0 */
/*
 * An application (tools/mcmgpu/apps/) run on the SIMT executor, its
 * program encoded in memory, for the host tests that run the GPU core on
 * real programs without files.
 */
#ifndef MCMGPU_TEST_APP_PROG_H
#define MCMGPU_TEST_APP_PROG_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "apps.h"
#include "program.h"
#include "simt.h"
#include "prog_mem.h"

/* The executor's sink: each record encoded by the writer ctx. */
static inline int app_prog_sink(void *ctx, const struct prog_rec *rec)
{
	return prog_write(ctx, rec);
}

/*
 * Runs application name at size (seed 1) into m, its reference check
 * included: 0, or an error with the reason in err.
 */
static inline int app_prog_gen(const char *name, uint64_t size,
			       struct prog_mem *m, char *err, size_t errlen)
{
	const struct app_desc *app = app_find(name);
	struct prog_writer *w = calloc(1, sizeof(*w));
	struct simt_gpu *gpu = NULL;
	int ret;

	memset(m, 0, sizeof(*m));
	err[0] = 0;
	if (!app || !w) {
		free(w);
		return app ? -ENOMEM : -ENOENT;
	}
	ret = prog_writer_init(w, prog_mem_write, m);
	if (!ret) {
		gpu = simt_gpu_new(NULL);
		ret = gpu ? 0 : -ENOMEM;
	}
	if (!ret) {
		simt_gpu_set_sink(gpu, app_prog_sink, w);
		ret = app->run(gpu, size, 1, err, errlen);
	}
	if (!ret)
		ret = simt_gpu_finish(gpu);
	if (ret && !err[0] && gpu)
		snprintf(err, errlen, "%s", simt_gpu_error(gpu));
	simt_gpu_free(gpu);
	free(w);
	return ret;
}

/*
 * Application name at size (0: its small size) as a new program file:
 * path gets "/tmp/TEST.NAME.XXXXXX" made unique. 0 or a negative errno.
 */
static inline int app_prog_file(const char *test, const char *name,
				uint64_t size, char *path, size_t len)
{
	const struct app_desc *app = app_find(name);
	struct prog_mem m = { 0 };
	char err[256];
	int ret = app ? app_prog_gen(name, size ? size : app->small_size, &m,
				     err, sizeof(err)) : -ENOENT;
	int fd;

	if (!ret) {
		snprintf(path, len, "/tmp/%s.%s.XXXXXX", test, name);
		fd = mkstemp(path);
		ret = fd >= 0 && write(fd, m.bytes, m.len) == (ssize_t)m.len ?
		      0 : -EIO;
		if (fd >= 0)
			close(fd);
	}
	free(m.bytes);
	return ret;
}

#endif /* MCMGPU_TEST_APP_PROG_H */
