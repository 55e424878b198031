/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Whole-file I/O reporting into a message buffer instead of stderr, so the
 * trace and sequence parsers can share it with the host tests.
 */
#ifndef MCMGPU_TOOL_FILE_H
#define MCMGPU_TOOL_FILE_H

#include <stddef.h>

/*
 * Reads all of path into a malloc'd buffer with a NUL after the last byte
 * (text parsers may rely on it); on error fills msg with "PATH: why".
 */
void *file_load(const char *path, size_t *len, char *msg, size_t msglen);
int file_store(const char *path, const void *buf, size_t len, char *msg,
	       size_t msglen);

#endif /* MCMGPU_TOOL_FILE_H */
