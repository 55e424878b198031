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
#include "../lib/prog_mem.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct prog_writer w;
	static struct prog_reader r;
	static struct prog_rec rec, back;
	struct prog_mem bin = { 0 };
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
	prog_writer_init(&w, prog_mem_write, &bin);
	while ((ret = prog_in_next(in, &rec)) == 1) {
		if (prog_write(&w, &rec))
			__builtin_trap();	/* read, so writable */
		if (prog_writer_flush(&w))
			__builtin_trap();
		if (bin.pos == 0 && prog_reader_init(&r, prog_mem_read, &bin))
			__builtin_trap();
		if (prog_read(&r, &back) != 1 ||
		    memcmp(&rec, &back, sizeof(rec)))
			__builtin_trap();
	}
	if (ret < 0 && !strchr(prog_in_error(in), ':'))
		__builtin_trap();
	prog_in_close(in);
	fclose(f);
	free(bin.bytes);
	return 0;
}
