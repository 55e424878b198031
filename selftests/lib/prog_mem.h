/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A program's encoded bytes in memory, for the host tests and the fuzzers:
 * prog_mem_write is a prog_writer's sink (it appends), prog_mem_read a
 * prog_reader's source (from pos on).
 */
#ifndef MCMGPU_TEST_PROG_MEM_H
#define MCMGPU_TEST_PROG_MEM_H

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct prog_mem {
	uint8_t *bytes;
	size_t len, cap, pos;
};

static inline int prog_mem_write(void *ctx, const void *buf, size_t len)
{
	struct prog_mem *m = ctx;

	if (m->len + len > m->cap) {
		size_t cap = m->cap ? m->cap : 1 << 16;
		uint8_t *p;

		while (cap < m->len + len)
			cap *= 2;
		p = realloc(m->bytes, cap);
		if (!p)
			return -ENOMEM;
		m->bytes = p;
		m->cap = cap;
	}
	memcpy(m->bytes + m->len, buf, len);
	m->len += len;
	return 0;
}

static inline long prog_mem_read(void *ctx, void *buf, size_t len)
{
	struct prog_mem *m = ctx;

	if (len > m->len - m->pos)
		len = m->len - m->pos;
	memcpy(buf, m->bytes + m->pos, len);
	m->pos += len;
	return (long)len;
}

#endif /* MCMGPU_TEST_PROG_MEM_H */
