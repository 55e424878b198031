// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the program format's two readers
 * (qemu-device/model/program.c, tools/mcmgpu/workload/prog_file.c). The
 * input is read as a program (binary if it starts with the magic, else
 * text); every record it yields is written again in binary, read back
 * and must come out equal, field by field (memcmp of zeroed records);
 * a refusal must name its field. Any broken rule traps.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prog_file.h"
#include "program.h"

struct mem {
	uint8_t *buf;
	size_t len, cap, pos;
};

static int mem_write(void *ctx, const void *buf, size_t len)
{
	struct mem *m = ctx;

	if (m->len + len > m->cap) {
		m->cap = (m->len + len) * 2;
		m->buf = realloc(m->buf, m->cap);
		if (!m->buf)
			__builtin_trap();
	}
	memcpy(m->buf + m->len, buf, len);
	m->len += len;
	return 0;
}

static long mem_read(void *ctx, void *buf, size_t len)
{
	struct mem *m = ctx;
	size_t n = m->len - m->pos;

	if (n > len)
		n = len;
	memcpy(buf, m->buf + m->pos, n);
	m->pos += n;
	return (long)n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct prog_writer w;
	static struct prog_reader r;
	static struct prog_rec rec, back;
	struct mem bin = { 0 };
	struct prog_in *in;
	char err[512];
	FILE *f;
	int ret;

	if (!size)
		return 0;
	f = fmemopen((void *)data, size, "r");
	if (!f)
		return 0;
	in = prog_in_fdopen(f, "fuzz", err, sizeof(err));
	if (!in) {
		fclose(f);
		return 0;
	}
	prog_writer_init(&w, mem_write, &bin);
	while ((ret = prog_in_next(in, &rec)) == 1) {
		if (prog_write(&w, &rec))
			__builtin_trap();	/* read, so writable */
		if (prog_writer_flush(&w))
			__builtin_trap();
		if (bin.pos == 0 && prog_reader_init(&r, mem_read, &bin))
			__builtin_trap();
		if (prog_read(&r, &back) != 1 ||
		    memcmp(&rec, &back, sizeof(rec)))
			__builtin_trap();
	}
	if (ret < 0 && !strchr(prog_in_error(in), ':'))
		__builtin_trap();
	prog_in_close(in);
	fclose(f);
	free(bin.buf);
	return 0;
}
