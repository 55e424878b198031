// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the Accel-Sim trace importer and exporter
 * (tools/mcmgpu/workload/accelsim.c). The input is split at lines
 * "=====" into kernelslist.g, kernel-1.traceg, kernel-2.traceg and
 * mcmgpu-objects (missing parts are missing files) and imported from
 * memory. A refusal must name one of the files; an accepted program is
 * exported to a directory and imported back, and must come out equal,
 * record by record. Any broken rule traps. FUZZ_ACCELSIM_VERBOSE set in
 * the environment prints each import's outcome.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "accelsim.h"
#include "program.h"

#define MAX_RECS	20000

struct recs {
	struct prog_rec *r;
	size_t n, cap, pos;
};

static int collect(void *ctx, const struct prog_rec *rec)
{
	struct recs *v = ctx;

	if (v->n == MAX_RECS)
		return -E2BIG;
	if (v->n == v->cap) {
		v->cap = v->cap ? 2 * v->cap : 256;
		v->r = realloc(v->r, v->cap * sizeof(*v->r));
		if (!v->r)
			__builtin_trap();
	}
	v->r[v->n++] = *rec;
	return 0;
}

static int give(void *ctx, struct prog_rec *rec)
{
	struct recs *v = ctx;

	if (v->pos == v->n)
		return 0;
	*rec = v->r[v->pos++];
	return 1;
}

/* The bytes of a record's own fields (the union's member). */
static size_t rec_size(u32 type)
{
	switch (type) {
	case PROG_REC_OBJECT:
		return sizeof(struct prog_object);
	case PROG_REC_COPY:
		return sizeof(struct prog_copy);
	case PROG_REC_KERNEL:
		return sizeof(struct prog_kernel);
	case PROG_REC_BLOCK:
		return sizeof(struct prog_block);
	case PROG_REC_WARP:
		return sizeof(struct prog_warp);
	case PROG_REC_INST:
		return sizeof(struct prog_inst);
	}
	return 0;
}

static const char *const names[] = {
	ACCELSIM_KERNELSLIST, "kernel-1.traceg", "kernel-2.traceg",
	ACCELSIM_OBJECTS,
};

static char dir[64];

/* Removes the export directory when the fuzzer exits. */
static void cleanup(void)
{
	char path[128];
	int i;

	snprintf(path, sizeof(path), "%s/%s", dir, ACCELSIM_KERNELSLIST);
	unlink(path);
	snprintf(path, sizeof(path), "%s/%s", dir, ACCELSIM_OBJECTS);
	unlink(path);
	for (i = 1;; i++) {
		snprintf(path, sizeof(path), "%s/kernel-%d.traceg", dir, i);
		if (unlink(path))
			break;
	}
	rmdir(dir);
}

/* The next line "=====" (ended by a newline) from p, or NULL. */
static const char *next_sep(const char *p, const char *end)
{
	const char *line = p;

	while (line && end - line >= 6) {
		if (!memcmp(line, "=====\n", 6))
			return line;
		line = memchr(line, '\n', end - line);
		if (line)
			line++;
	}
	return NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct accelsim_mem_file files[4];
	struct recs a = { 0 }, b = { 0 };
	const char *p = (const char *)data, *end = p + size;
	size_t n = 0, i;
	char err[512];
	int ret;

	if (!dir[0]) {
		snprintf(dir, sizeof(dir), "/tmp/fuzz_accelsim.%d", (int)getpid());
		atexit(cleanup);
	}
	while (n < 4) {
		const char *sep = next_sep(p, end);

		files[n].name = names[n];
		files[n].data = p;
		files[n].len = (sep ? sep : end) - p;
		n++;
		if (!sep)
			break;
		p = sep + 6;
	}
	ret = accelsim_import_mem(files, n, collect, &a, err, sizeof(err));
	if (getenv("FUZZ_ACCELSIM_VERBOSE"))
		fprintf(stderr, "import: %d %s (%zu records)\n", ret, err, a.n);
	if (ret) {
		bool named = false;

		for (i = 0; i < 4; i++)
			if (!strncmp(err, names[i], strlen(names[i])))
				named = true;
		/* A missing file names itself; the sink's refusal is ours. */
		if (!named && ret != -ENOENT && ret != -E2BIG && ret != -ENOMEM)
			__builtin_trap();
		if (!err[0] || !strstr(err, ": "))
			__builtin_trap();
		free(a.r);
		return 0;
	}
	if (!a.n || a.r[a.n - 1].type != PROG_REC_END)
		__builtin_trap();
	/* Export, import again: the same records. */
	ret = accelsim_export(give, &a, dir, err, sizeof(err));
	if (ret)
		__builtin_trap();
	ret = accelsim_import(dir, collect, &b, err, sizeof(err));
	if (getenv("FUZZ_ACCELSIM_VERBOSE"))
		fprintf(stderr, "again: %d %s (%zu records)\n", ret, err, b.n);
	if (ret || a.n != b.n)
		__builtin_trap();
	for (i = 0; i < a.n; i++) {
		if (a.r[i].type != b.r[i].type ||
		    memcmp(&a.r[i].object, &b.r[i].object, rec_size(a.r[i].type))) {
			if (getenv("FUZZ_ACCELSIM_VERBOSE"))
				fprintf(stderr, "record %zu (type %u) differs\n",
					i + 1, a.r[i].type);
			__builtin_trap();
		}
	}
	free(a.r);
	free(b.r);
	return 0;
}
