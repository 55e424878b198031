// SPDX-License-Identifier: GPL-2.0
/*
 * Accel-Sim traces (tools/mcmgpu/workload/accelsim.c): hand-written trace
 * directories of every format variant (tracer 3, 4 and 5, line numbers
 * on and off, each address compression, generic addresses, copies both
 * ways, inferred and sidecar objects, several kernels and streams) with
 * their records checked field by field; every error with its file, line
 * and field; export then import giving a program back record by record;
 * and the classifier over the mnemonics the executor writes.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "accelsim.h"
#include "program.h"

/* --- records collected by a sink, given back by a source -------------- */

struct recs {
	struct prog_rec *r;
	size_t n, cap, pos;
};

static int collect(void *ctx, const struct prog_rec *rec)
{
	struct recs *v = ctx;

	if (v->n == v->cap) {
		v->cap = v->cap ? 2 * v->cap : 64;
		v->r = realloc(v->r, v->cap * sizeof(*v->r));
		if (!v->r)
			return -ENOMEM;
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

static void recs_free(struct recs *v)
{
	free(v->r);
	memset(v, 0, sizeof(*v));
}

/* Records of a program built by a test, zero-filled like a reader's. */
static struct prog_rec *add(struct recs *v, u32 type)
{
	struct prog_rec r;

	memset(&r, 0, sizeof(r));
	r.type = type;
	collect(v, &r);
	return &v->r[v->n - 1];
}

static void add_object(struct recs *v, u64 base, u64 size, const char *name)
{
	struct prog_rec *r = add(v, PROG_REC_OBJECT);

	r->object.base = base;
	r->object.size = size;
	snprintf(r->object.name, sizeof(r->object.name), "%s", name);
}

static void add_copy(struct recs *v, u32 dir, u64 base, u64 bytes)
{
	struct prog_rec *r = add(v, PROG_REC_COPY);

	r->copy.dir = dir;
	r->copy.base = base;
	r->copy.bytes = bytes;
}

static struct prog_kernel *add_kernel(struct recs *v, u32 id, const char *name,
				      u32 gx, u32 bx)
{
	struct prog_rec *r = add(v, PROG_REC_KERNEL);

	r->kernel.id = id;
	snprintf(r->kernel.name, sizeof(r->kernel.name), "%s", name);
	r->kernel.grid[0] = gx;
	r->kernel.grid[1] = r->kernel.grid[2] = 1;
	r->kernel.block[0] = bx;
	r->kernel.block[1] = r->kernel.block[2] = 1;
	return &r->kernel;
}

static void add_block(struct recs *v, u32 x, u32 y, u32 z)
{
	struct prog_rec *r = add(v, PROG_REC_BLOCK);

	r->block.x = x;
	r->block.y = y;
	r->block.z = z;
}

static void add_warp(struct recs *v, u32 id, u32 insts)
{
	struct prog_rec *r = add(v, PROG_REC_WARP);

	r->warp.id = id;
	r->warp.insts = insts;
}

static struct prog_inst *add_inst(struct recs *v, u64 pc, u32 mask,
				  const char *opcode)
{
	struct prog_rec *r = add(v, PROG_REC_INST);

	r->inst.pc = pc;
	r->inst.mask = mask;
	snprintf(r->inst.opcode, sizeof(r->inst.opcode), "%s", opcode);
	accelsim_classify(opcode, &r->inst);
	return &r->inst;
}

/* A memory instruction, lane i of the mask at addr(i). */
static struct prog_inst *add_mem(struct recs *v, u64 pc, u32 mask,
				 const char *opcode, u16 width, u64 base,
				 s64 stride)
{
	struct prog_inst *in = add_inst(v, pc, mask, opcode);
	unsigned int i;

	in->width = width;
	for (i = 0; i < 32; i++)
		if (mask >> i & 1)
			in->addr[i] = base + (u64)(stride * i);
	return in;
}

/* --- trace directories ----------------------------------------------- */

static void write_file(const char *dir, const char *name, const char *text)
{
	char path[4096];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fp = fopen(path, "w");
	if (!fp)
		abort();
	fputs(text, fp);
	fclose(fp);
}

static char *make_dir(void)
{
	char *dir = strdup("/tmp/accelsim_test.XXXXXX");

	if (!dir || !mkdtemp(dir))
		abort();
	return dir;
}

static void remove_dir(char *dir)
{
	char cmd[4200];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd))
		perror(cmd);
	free(dir);
}

/* Imports a directory of (name, text) pairs, NULL-terminated. */
static int import_files(const char *const *files, struct recs *out, char *err,
			size_t errlen)
{
	char *dir = make_dir();
	int ret;

	for (; files[0]; files += 2)
		write_file(dir, files[0], files[1]);
	ret = accelsim_import(dir, collect, out, err, errlen);
	remove_dir(dir);
	return ret;
}

/* A directory of two launches: kernelslist.g naming k1's and k2's files. */
static int import_two(const char *k1, const char *k2, struct recs *out,
		      char *err, size_t errlen)
{
	const char *const files[] = {
		"kernelslist.g", "kernel-1.traceg\nkernel-2.traceg\n",
		"kernel-1.traceg", k1, "kernel-2.traceg", k2, NULL
	};

	return import_files(files, out, err, errlen);
}

/* The same through the in-memory entry: must agree with the directory. */
static int import_mem(const char *const *files, struct recs *out, char *err,
		      size_t errlen)
{
	struct accelsim_mem_file mf[16];
	size_t n = 0;

	for (; files[0]; files += 2, n++) {
		mf[n].name = files[0];
		mf[n].data = files[1];
		mf[n].len = strlen(files[1]);
	}
	return accelsim_import_mem(mf, n, collect, out, err, errlen);
}

#define V5_HEADER(name, id, grid, block, stream) \
	"-kernel name = " name "\n" \
	"-kernel id = " #id "\n" \
	"-grid dim = " grid "\n" \
	"-block dim = " block "\n" \
	"-shmem = 1024\n" \
	"-nregs = 32\n" \
	"-binary version = 70\n" \
	"-cuda stream id = " #stream "\n" \
	"-shmem base_addr = 0x00007f0000000000\n" \
	"-local mem base_addr = 0x00007f0002000000\n" \
	"-nvbit version = 1.5.5\n" \
	"-accelsim tracer version = 5\n" \
	"-enable lineinfo = 0\n" \
	"\n" \
	"#traces format = [line_num] PC mask dest_num [reg_dests] opcode " \
	"src_num [reg_srcs] mem_width [adrrescompress?] [mem_addresses] " \
	"immediate\n\n"

static const char v5_list[] =
	"MemcpyHtoD,0x00007f1000000000,4096\n"
	"MemcpyHtoD,0x00007f1000001000,256\n"
	"kernel-1.traceg\n"
	"MemcpyDtoH,0x00007f1000000000,4096\n";

static const char v5_trace[] =
	V5_HEADER("_Z4vaddPfS_S_i", 1, "(2,1,1)", "(64,1,1)", 0)
	"#BEGIN_TB\n"
	"\n"
	"thread block = 1,0,0\n"
	"\n"
	"warp = 0\n"
	"insts = 5\n"
	"0000 ffffffff 1 R1 IMAD.MOV.U32 2 R255 R255 0 0 \n"
	"0010 0000ffff 1 R2 LDG.E 1 R4 4 1 0x7f1000000000 4 0 \n"
	"0020 80000001 0 STG.E.64 2 R4 R6 8 2 0x7f1000000100 -16 0 \n"
	"0030 00000005 1 R8 ATOMG.E.ADD 1 R4 4 0 0x00007f1000000200 "
	"0x00007f1000000300 0 \n"
	"0040 ffffffff 0 EXIT 0 0 0 \n"
	"\n"
	"warp = 1\n"
	"insts = 0\n"
	"\n"
	"#END_TB\n";

TEST(v5_records_field_by_field)
{
	const char *const files[] = {
		"kernelslist.g", v5_list, "kernel-1.traceg", v5_trace, NULL
	};
	struct recs v = { 0 };
	const struct prog_inst *in;
	char err[512];
	size_t i = 0;

	ASSERT_EQ(0, import_files(files, &v, err, sizeof(err))) TH_LOG("%s", err);
	ASSERT_EQ(16, v.n);
	/* The copied ranges are objects (adjacent ones merged), first. */
	EXPECT_EQ(PROG_REC_OBJECT, v.r[i].type);
	EXPECT_EQ(0x7f1000000000ull, v.r[i].object.base);
	EXPECT_EQ(4096 + 256, v.r[i].object.size);
	EXPECT_STREQ("copied_0", v.r[i].object.name);
	i++;
	EXPECT_EQ(PROG_REC_COPY, v.r[i].type);
	EXPECT_EQ(PROG_COPY_H2D, v.r[i].copy.dir);
	EXPECT_EQ(0x7f1000000000ull, v.r[i].copy.base);
	EXPECT_EQ(4096, v.r[i].copy.bytes);
	i++;
	EXPECT_EQ(PROG_REC_COPY, v.r[i].type);
	EXPECT_EQ(0x7f1000001000ull, v.r[i].copy.base);
	EXPECT_EQ(256, v.r[i].copy.bytes);
	i++;
	EXPECT_EQ(PROG_REC_KERNEL, v.r[i].type);
	EXPECT_EQ(1, v.r[i].kernel.id);
	EXPECT_STREQ("_Z4vaddPfS_S_i", v.r[i].kernel.name);
	EXPECT_EQ(2, v.r[i].kernel.grid[0]);
	EXPECT_EQ(1, v.r[i].kernel.grid[1]);
	EXPECT_EQ(1, v.r[i].kernel.grid[2]);
	EXPECT_EQ(64, v.r[i].kernel.block[0]);
	EXPECT_EQ(1, v.r[i].kernel.block[1]);
	EXPECT_EQ(1, v.r[i].kernel.block[2]);
	EXPECT_EQ(1024, v.r[i].kernel.shmem);
	EXPECT_EQ(32, v.r[i].kernel.nregs);
	EXPECT_EQ(70, v.r[i].kernel.binary_version);
	EXPECT_EQ(0, v.r[i].kernel.stream);
	EXPECT_EQ(0x7f0000000000ull, v.r[i].kernel.shmem_base);
	EXPECT_EQ(0x7f0002000000ull, v.r[i].kernel.local_base);
	i++;
	EXPECT_EQ(PROG_REC_BLOCK, v.r[i].type);
	EXPECT_EQ(1, v.r[i].block.x);
	EXPECT_EQ(0, v.r[i].block.y);
	EXPECT_EQ(0, v.r[i].block.z);
	i++;
	EXPECT_EQ(PROG_REC_WARP, v.r[i].type);
	EXPECT_EQ(0, v.r[i].warp.id);
	EXPECT_EQ(5, v.r[i].warp.insts);
	i++;
	in = &v.r[i++].inst;
	EXPECT_EQ(0, in->pc);
	EXPECT_EQ(0xffffffffu, in->mask);
	EXPECT_EQ(PROG_OP_INT, in->op);
	EXPECT_EQ(PROG_SPACE_NONE, in->space);
	EXPECT_EQ(1, in->ndst);
	EXPECT_EQ(1, in->dst[0]);
	EXPECT_EQ(2, in->nsrc);
	EXPECT_EQ(255, in->src[0]);
	EXPECT_EQ(255, in->src[1]);
	EXPECT_EQ(0, in->width);
	EXPECT_STREQ("IMAD.MOV.U32", in->opcode);
	/* Mode 1: base and stride over the 16 contiguous lanes. */
	in = &v.r[i++].inst;
	EXPECT_EQ(0x10, in->pc);
	EXPECT_EQ(0xffffu, in->mask);
	EXPECT_EQ(PROG_OP_MEMORY, in->op);
	EXPECT_EQ(PROG_SPACE_GLOBAL, in->space);
	EXPECT_EQ(PROG_KIND_LOAD, in->kind);
	EXPECT_EQ(4, in->width);
	EXPECT_EQ(4, in->src[0]);
	EXPECT_EQ(0x7f1000000000ull, in->addr[0]);
	EXPECT_EQ(0x7f1000000004ull, in->addr[1]);
	EXPECT_EQ(0x7f100000003cull, in->addr[15]);
	EXPECT_EQ(0, in->addr[16]);
	/* Mode 2: lane 31's delta from lane 0. */
	in = &v.r[i++].inst;
	EXPECT_EQ(PROG_KIND_STORE, in->kind);
	EXPECT_EQ(8, in->width);
	EXPECT_EQ(0, in->ndst);
	EXPECT_EQ(2, in->nsrc);
	EXPECT_EQ(6, in->src[1]);
	EXPECT_EQ(0x7f1000000100ull, in->addr[0]);
	EXPECT_EQ(0x7f10000000f0ull, in->addr[31]);
	EXPECT_EQ(0, in->addr[1]);
	/* Mode 0: one address per active lane (0 and 2). */
	in = &v.r[i++].inst;
	EXPECT_EQ(PROG_KIND_ATOMIC, in->kind);
	EXPECT_EQ(0x7f1000000200ull, in->addr[0]);
	EXPECT_EQ(0, in->addr[1]);
	EXPECT_EQ(0x7f1000000300ull, in->addr[2]);
	in = &v.r[i++].inst;
	EXPECT_EQ(PROG_OP_BRANCH, in->op);
	EXPECT_STREQ("EXIT", in->opcode);
	EXPECT_EQ(PROG_REC_WARP, v.r[i].type);
	EXPECT_EQ(1, v.r[i].warp.id);
	EXPECT_EQ(0, v.r[i].warp.insts);
	i++;
	EXPECT_EQ(PROG_REC_BLOCK_END, v.r[i++].type);
	EXPECT_EQ(PROG_REC_KERNEL_END, v.r[i++].type);
	EXPECT_EQ(PROG_REC_COPY, v.r[i].type);
	EXPECT_EQ(PROG_COPY_D2H, v.r[i].copy.dir);
	EXPECT_EQ(4096, v.r[i].copy.bytes);
	i++;
	EXPECT_EQ(PROG_REC_END, v.r[i++].type);
	recs_free(&v);
}

/* The records two imports give, compared type by type. */
static int recs_cmp(const struct recs *a, const struct recs *b, char *why,
		    size_t len)
{
	size_t i;

	if (a->n != b->n) {
		snprintf(why, len, "%zu records against %zu", a->n, b->n);
		return -1;
	}
	for (i = 0; i < a->n; i++) {
		const struct prog_rec *x = &a->r[i], *y = &b->r[i];
		size_t sz = 0;

		if (x->type != y->type) {
			snprintf(why, len, "record %zu: type %u against %u", i + 1,
				 x->type, y->type);
			return -1;
		}
		switch (x->type) {
		case PROG_REC_OBJECT:
			sz = sizeof(x->object);
			break;
		case PROG_REC_COPY:
			sz = sizeof(x->copy);
			break;
		case PROG_REC_KERNEL:
			sz = sizeof(x->kernel);
			break;
		case PROG_REC_BLOCK:
			sz = sizeof(x->block);
			break;
		case PROG_REC_WARP:
			sz = sizeof(x->warp);
			break;
		case PROG_REC_INST:
			sz = sizeof(x->inst);
			break;
		}
		if (sz && memcmp(&x->object, &y->object, sz)) {
			snprintf(why, len, "record %zu (type %u) differs", i + 1,
				 x->type);
			return -1;
		}
	}
	return 0;
}

TEST(memory_entry_agrees_with_the_directory)
{
	const char *const files[] = {
		"kernelslist.g", v5_list, "kernel-1.traceg", v5_trace, NULL
	};
	struct recs a = { 0 }, b = { 0 };
	char err[512];

	ASSERT_EQ(0, import_files(files, &a, err, sizeof(err))) TH_LOG("%s", err);
	ASSERT_EQ(0, import_mem(files, &b, err, sizeof(err))) TH_LOG("%s", err);
	EXPECT_EQ(0, recs_cmp(&a, &b, err, sizeof(err))) TH_LOG("%s", err);
	recs_free(&a);
	recs_free(&b);
}

/*
 * The tracer compresses its traces with xz by default (kernelslist.g
 * names kernel-N.traceg.xz): they are decompressed as they are read and
 * give the same records; a corrupt one is an error naming it.
 */
TEST(xz_compressed_traces)
{
	static const char list_xz[] =
		"MemcpyHtoD,0x00007f1000000000,4096\n"
		"MemcpyHtoD,0x00007f1000001000,256\n"
		"kernel-1.traceg.xz\n"
		"MemcpyDtoH,0x00007f1000000000,4096\n";
	const char *const files[] = {
		"kernelslist.g", v5_list, "kernel-1.traceg", v5_trace, NULL
	};
	struct recs a = { 0 }, b = { 0 };
	char err[512], cmd[4200], *dir;

	if (system("xz --version >/dev/null 2>&1"))
		SKIP(return, "no xz to compress with");
	ASSERT_EQ(0, import_files(files, &a, err, sizeof(err))) TH_LOG("%s", err);
	dir = make_dir();
	write_file(dir, "kernelslist.g", list_xz);
	write_file(dir, "kernel-1.traceg", v5_trace);
	snprintf(cmd, sizeof(cmd), "xz '%s/kernel-1.traceg'", dir);
	ASSERT_EQ(0, system(cmd));
	ASSERT_EQ(0, accelsim_import(dir, collect, &b, err, sizeof(err)))
		TH_LOG("%s", err);
	EXPECT_EQ(0, recs_cmp(&a, &b, err, sizeof(err))) TH_LOG("%s", err);
	recs_free(&b);
	/* Cut short: xz's failure, not the text's truncation. */
	snprintf(cmd, sizeof(cmd), "truncate -s 60 '%s/kernel-1.traceg.xz'", dir);
	ASSERT_EQ(0, system(cmd));
	EXPECT_EQ(-EINVAL, accelsim_import(dir, collect, &b, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "/kernel-1.traceg.xz: xz -dc failed"))
		TH_LOG("%s", err);
	recs_free(&b);
	/* Not xz at all. */
	write_file(dir, "kernel-1.traceg.xz", v5_trace);
	EXPECT_EQ(-EINVAL, accelsim_import(dir, collect, &b, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "/kernel-1.traceg.xz: xz -dc failed"))
		TH_LOG("%s", err);
	recs_free(&b);
	/* No xz to run. */
	{
		char *path = strdup(getenv("PATH") ? getenv("PATH") : "");

		setenv("PATH", "/nonexistent", 1);
		EXPECT_EQ(-ENOENT, accelsim_import(dir, collect, &b, err,
						   sizeof(err)));
		setenv("PATH", path, 1);
		free(path);
	}
	EXPECT_NE(NULL, strstr(err, "/kernel-1.traceg.xz: cannot run xz"))
		TH_LOG("%s", err);
	remove_dir(dir);
	recs_free(&a);
	recs_free(&b);
}

/* Tracer 4 with line numbers: the first token of a line is dropped. */
TEST(v4_line_numbers)
{
	const char *const files[] = {
		"kernelslist.g", "kernel-1.traceg\n",
		"kernel-1.traceg",
		"-kernel name = k\n-kernel id = 1\n-grid dim = (1,1,1)\n"
		"-block dim = (32,1,1)\n-accelsim tracer version = 4\n"
		"-enable lineinfo = 1\n\n"
		"#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 2\n"
		"17 00f0 00000003 1 R3 LDS.U.128 1 R2 16 1 0x100 16\n"
		"18 0100 00000001 0 BAR.SYNC 0 0\n"
		"#END_TB\n",
		NULL
	};
	struct recs v = { 0 };
	char err[512];

	ASSERT_EQ(0, import_files(files, &v, err, sizeof(err))) TH_LOG("%s", err);
	ASSERT_EQ(8, v.n);
	EXPECT_EQ(PROG_REC_INST, v.r[3].type);
	EXPECT_EQ(0xf0, v.r[3].inst.pc);
	EXPECT_EQ(3, v.r[3].inst.mask);
	EXPECT_EQ(PROG_SPACE_SHARED, v.r[3].inst.space);
	EXPECT_EQ(PROG_KIND_LOAD, v.r[3].inst.kind);
	EXPECT_EQ(16, v.r[3].inst.width);
	EXPECT_EQ(0x100, v.r[3].inst.addr[0]);
	EXPECT_EQ(0x110, v.r[3].inst.addr[1]);
	EXPECT_EQ(0x100, v.r[4].inst.pc);
	EXPECT_EQ(PROG_OP_BARRIER, v.r[4].inst.op);
	/* No copies and a shared access only: no object. */
	EXPECT_EQ(PROG_REC_KERNEL, v.r[0].type);
	recs_free(&v);
}

/* Tracer 3: no lineinfo key, no immediate; CRLF ends, blanks, comments. */
TEST(v3_crlf_and_comments)
{
	const char *const files[] = {
		"kernelslist.g", "\r\nMemcpyHtoD,0x1000,64\r\nkernel-1.traceg\r\n",
		"kernel-1.traceg",
		"-kernel name = old\r\n-kernel id = 1\r\n-grid dim = (1,1,1)\r\n"
		"-block dim = (40,1,1)\r\n-shmem = 0\r\n-nregs = 8\r\n"
		"-binary version = 61\r\n-cuda stream id = 0\r\n"
		"-shmem base_addr = 0x00007efeb0000000\r\n"
		"-local mem base_addr = 0x00007efeb2000000\r\n"
		"-nvbit version = 1.4\r\n-accelsim tracer version = 3\r\n\r\n"
		"#traces format = PC mask dest_num [reg_dests] opcode src_num "
		"[reg_srcs] mem_width [adrrescompress?] [mem_addresses]\r\n\r\n"
		"#BEGIN_TB\r\n\r\nthread block = 0,0,0\r\n\r\n"
		"warp = 1\r\ninsts = 1\r\n"
		"0008 000000ff 1 R0 LDG.E.U8 1 R2 1 2 0x1000 1 1 1 1 1 1 1 \r\n"
		"\r\n#END_TB\r\n",
		NULL
	};
	struct recs v = { 0 };
	char err[512];
	unsigned int i;

	ASSERT_EQ(0, import_files(files, &v, err, sizeof(err))) TH_LOG("%s", err);
	ASSERT_EQ(9, v.n);
	EXPECT_EQ(PROG_REC_OBJECT, v.r[0].type);
	EXPECT_EQ(0x1000, v.r[0].object.base);
	EXPECT_EQ(64, v.r[0].object.size);
	EXPECT_EQ(61, v.r[2].kernel.binary_version);
	EXPECT_EQ(40, v.r[2].kernel.block[0]);
	EXPECT_EQ(1, v.r[4].warp.id);
	EXPECT_EQ(1, v.r[5].inst.width);
	for (i = 0; i < 8; i++)
		EXPECT_EQ(0x1000 + i, v.r[5].inst.addr[i]);
	recs_free(&v);
}

/* LD, ST and ATOM resolved by the first active lane; no window: global. */
TEST(generic_addresses_resolve_by_window)
{
	static const char trace[] =
		"-kernel name = g\n-grid dim = (1,1,1)\n-block dim = (32,1,1)\n"
		"-shmem base_addr = 0x00007f0000000000\n"
		"-local mem base_addr = 0x00007f0002000000\n"
		"#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 6\n"
		"0000 00000001 1 R1 LD.E 1 R2 4 0 0x00007f0000000010\n"
		"0010 00000002 0 ST.E 2 R2 R3 4 0 0x00007f0001fffffc\n"
		"0020 00000001 1 R1 LD.E.64 1 R2 8 0 0x00007f0002000000\n"
		"0030 00000001 0 ST.E 2 R2 R3 4 0 0x00007f000207fffc\n"
		"0040 00000001 1 R1 ATOM.E.ADD 2 R2 R3 4 0 0x00007f0002080000\n"
		"0050 00000003 1 R1 LD.E 1 R2 4 1 0x00007eff00000000 4\n"
		"#END_TB\n";
	static const char nowin[] =
		"-kernel name = g\n-grid dim = (1,1,1)\n-block dim = (32,1,1)\n"
		"#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 1\n"
		"0000 00000001 1 R1 LD.E 1 R2 4 0 0x00007f0000000010\n"
		"#END_TB\n";
	static const u8 want[] = {
		PROG_SPACE_SHARED, PROG_SPACE_SHARED, PROG_SPACE_LOCAL,
		PROG_SPACE_LOCAL, PROG_SPACE_GLOBAL, PROG_SPACE_GLOBAL,
	};
	struct recs v = { 0 };
	char err[512];
	size_t i, k = 0;

	ASSERT_EQ(0, import_two(trace, nowin, &v, err, sizeof(err))) TH_LOG("%s", err);
	for (i = 0; i < v.n; i++) {
		if (v.r[i].type != PROG_REC_INST)
			continue;
		if (k < 6) {
			EXPECT_EQ(want[k], v.r[i].inst.space) TH_LOG("inst %zu", k);
		} else {
			EXPECT_EQ(PROG_SPACE_GLOBAL, v.r[i].inst.space);
		}
		k++;
	}
	EXPECT_EQ(7, k);
	/* Kernel 2 has no "-kernel id": its place in the list. */
	for (i = 0, k = 0; i < v.n; i++) {
		if (v.r[i].type == PROG_REC_KERNEL) {
			EXPECT_EQ(++k, v.r[i].kernel.id);
		}
	}
	recs_free(&v);
}

static size_t count_type(const struct recs *v, u32 type)
{
	size_t i, n = 0;

	for (i = 0; i < v->n; i++)
		n += v->r[i].type == type;
	return n;
}

/*
 * Inferred objects: blocks touched outside the copies, runs across gaps
 * under 2 MiB, never across a copy, clipped to the copies.
 */
TEST(objects_inferred_from_touched_blocks)
{
	static const char list[] =
		"MemcpyHtoD,0x10000000,0x804\n"		/* 2052 bytes */
		"MemcpyHtoD,0x10000400,0x100\n"		/* inside: merged */
		"MemcpyHtoD,0x10300000,4096\n"
		"kernel-1.traceg\n";
	static const char trace[] =
		"-kernel name = t\n-grid dim = (1,1,1)\n-block dim = (32,1,1)\n"
		"#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 6\n"
		/* in copied_0: nothing inferred */
		"0000 00000003 1 R1 LDG.E 1 R2 4 1 0x10000000 4\n"
		/* just past copied_0: block 0x10000800 clipped at 0x10000804 */
		"0010 00000001 0 STG.E 2 R2 R3 4 0 0x10000810\n"
		/* 256 B short of 2 MiB further: the same run */
		"0020 00000001 0 STG.E 2 R2 R3 4 0 0x10200800\n"
		/* past copied_1 at 0x10300000: a new run, crossing a block */
		"0030 00000001 0 STG.E.128 2 R2 R3 16 0 0x103010f8\n"
		/* 2 MiB further exactly: a third run */
		"0040 00000001 1 R1 LDG.E 1 R2 4 0 0x10501200\n"
		/* shared: no object */
		"0050 00000001 1 R1 LDS 1 R2 4 0 0x10900000\n"
		"#END_TB\n";
	const char *const files[] = {
		"kernelslist.g", list, "kernel-1.traceg", trace, NULL
	};
	static const struct { u64 base, size; const char *name; } want[] = {
		{ 0x10000000, 0x804, "copied_0" },
		{ 0x10000804, 0x10200900 - 0x10000804, "inferred_0" },
		{ 0x10300000, 0x1000, "copied_1" },
		{ 0x10301000, 0x200, "inferred_1" },
		{ 0x10501200, 0x100, "inferred_2" },
	};
	struct recs v = { 0 };
	char err[512];
	size_t i;

	ASSERT_EQ(0, import_files(files, &v, err, sizeof(err))) TH_LOG("%s", err);
	ASSERT_EQ(5, count_type(&v, PROG_REC_OBJECT));
	for (i = 0; i < 5; i++) {
		EXPECT_EQ(PROG_REC_OBJECT, v.r[i].type);
		EXPECT_EQ(want[i].base, v.r[i].object.base) TH_LOG("object %zu", i);
		EXPECT_EQ(want[i].size, v.r[i].object.size) TH_LOG("object %zu", i);
		EXPECT_STREQ(want[i].name, v.r[i].object.name);
	}
	recs_free(&v);
}

/*
 * Shapes the tracer and its post-processor really write, together:
 * a kernelslist.g with a comment and a blank line, context-named trace
 * files, a demangled name with blanks and '=', lines
 * ending in a blank, blocks out of the grid's order, a negative immediate
 * (the tracer prints its 64 bits with %d), predicated-off lines (mask 0),
 * a memory mnemonic with width 0, several sources and no destination,
 * two destinations (Accel-Sim's tracer writes at most one; others more),
 * negative strides and deltas, one-lane deltas, addresses at 0 and near
 * 2^64 that wrap, line numbers with the immediate, and no newline at
 * either file's end.
 */
TEST(real_shapes_with_their_addresses)
{
	static const char list[] =
		"# traced on an RTX 3070\n"
		"MemcpyHtoD,0x0000000502000000,800000\n"
		"\n"
		"kernel-1-ctx_0x6165bdd7ec90.traceg";
	static const char trace[] =
		"-kernel name = void k<int, 3>(float*, int) [with T = int]\n"
		"-kernel id = 1\n-grid dim = (2,1,1)\n-block dim = (64,1,1)\n"
		"-shmem = 0\n-nregs = 24\n-binary version = 86\n"
		"-cuda stream id = 0\n"
		"-shmem base_addr = 0x00007f0000000000\n"
		"-local mem base_addr = 0x00007f0002000000\n"
		"-nvbit version = 1.5.5\n-accelsim tracer version = 5\n"
		"-enable lineinfo = 1\n\n"
		"#traces format = [line_num] PC mask dest_num [reg_dests] opcode "
		"src_num [reg_srcs] mem_width [adrrescompress?] [mem_addresses] "
		"immediate\n\n"
		"#BEGIN_TB\n\nthread block = 1,0,0\n\nwarp = 0\ninsts = 1\n"
		"12 0000 ffffffff 0 EXIT 0 0 0 \n\nwarp = 1\ninsts = 0\n\n#END_TB\n\n"
		"#BEGIN_TB\n\nthread block = 0,0,0\n\nwarp = 0\ninsts = 9\n"
		/* predicated off: no lane, the tracer's mode 1 base 0 */
		"7 0010 00000000 0 STG.E 2 R2 R255 4 1 0x0 0 0 \n"
		"7 0020 00000000 2 R5 R6 IMAD.WIDE.U32 2 R255 R255 0 -1 \n"
		/* four sources, no destination, width 0 on a memory mnemonic */
		"8 0030 ffffffff 0 LDG.E 4 R1 R2 R3 R255 0 0 \n"
		/* negative stride over lanes 4..7 */
		"9 0040 000000f0 1 R6 LDG.E 1 R2 4 1 0x502000100 -4 0 \n"
		/* one lane: a base and no delta */
		"9 0050 00010000 0 STG.E.64 2 R2 R4 8 2 0x502000200 0 \n"
		/*
		 * deltas across the top of the address space and the
		 * lowest a delta can be, then the immediate
		 */
		"10 0060 80000003 1 R8 LDG.E 1 R2 4 2 0xfffffffffffffffc 8 "
		"-9223372036854775808 -2147483648 \n"
		/* a list: addresses 0 and 2^64 - 1 */
		"11 0070 00000005 1 R9 LDG.E.U8 1 R2 1 0 0x0000000000000000 "
		"0xffffffffffffffff 0 \n"
		/* a generic store into the shared window */
		"11 0080 00000001 0 ST.E 2 R2 R3 4 0 0x00007f0000000040 0 \n"
		"12 0090 ffffffff 0 EXIT 0 0 0 \n"
		"\nwarp = 1\ninsts = 0\n\n#END_TB";
	const char *const files[] = {
		"kernelslist.g", list,
		"kernel-1-ctx_0x6165bdd7ec90.traceg", trace, NULL
	};
	struct recs v = { 0 };
	const struct prog_inst *in;
	char err[512];
	size_t i, k = 0;

	ASSERT_EQ(0, import_files(files, &v, err, sizeof(err))) TH_LOG("%s", err);
	for (i = 0; i < v.n && v.r[i].type != PROG_REC_KERNEL; i++)
		;
	ASSERT_LT(i, v.n);
	EXPECT_STREQ("void k<int, 3>(float*, int) [with T = int]",
		     v.r[i].kernel.name);
	EXPECT_EQ(86, v.r[i].kernel.binary_version);
	i++;
	EXPECT_EQ(PROG_REC_BLOCK, v.r[i].type);
	EXPECT_EQ(1, v.r[i].block.x);
	for (; i < v.n && !(v.r[i].type == PROG_REC_BLOCK && !v.r[i].block.x); i++)
		;
	ASSERT_LT(i + 2, v.n);
	EXPECT_EQ(PROG_REC_WARP, v.r[i + 1].type);
	EXPECT_EQ(9, v.r[i + 1].warp.insts);
	i += 2;
	in = &v.r[i++].inst;
	EXPECT_EQ(0x10, in->pc);
	EXPECT_EQ(0, in->mask);
	EXPECT_EQ(PROG_OP_MEMORY, in->op);
	EXPECT_EQ(PROG_KIND_STORE, in->kind);
	EXPECT_EQ(4, in->width);
	in = &v.r[i++].inst;
	EXPECT_EQ(PROG_OP_INT, in->op);
	EXPECT_EQ(0, in->mask);
	EXPECT_EQ(2, in->ndst);
	EXPECT_EQ(5, in->dst[0]);
	EXPECT_EQ(6, in->dst[1]);
	in = &v.r[i++].inst;
	EXPECT_EQ(PROG_OP_OTHER, in->op);
	EXPECT_EQ(0, in->width);
	EXPECT_EQ(0, in->ndst);
	EXPECT_EQ(4, in->nsrc);
	EXPECT_EQ(3, in->src[2]);
	EXPECT_EQ(255, in->src[3]);
	in = &v.r[i++].inst;
	EXPECT_EQ(0xf0, in->mask);
	EXPECT_EQ(0, in->addr[3]);
	EXPECT_EQ(0x502000100ull, in->addr[4]);
	EXPECT_EQ(0x5020000fcull, in->addr[5]);
	EXPECT_EQ(0x5020000f4ull, in->addr[7]);
	EXPECT_EQ(0, in->addr[8]);
	in = &v.r[i++].inst;
	EXPECT_EQ(8, in->width);
	EXPECT_EQ(0x502000200ull, in->addr[16]);
	EXPECT_EQ(0, in->addr[0]);
	in = &v.r[i++].inst;
	EXPECT_EQ(0xfffffffffffffffcull, in->addr[0]);
	EXPECT_EQ(0x4ull, in->addr[1]);
	EXPECT_EQ(0x8000000000000004ull, in->addr[31]);
	in = &v.r[i++].inst;
	EXPECT_EQ(1, in->width);
	EXPECT_EQ(0, in->addr[0]);
	EXPECT_EQ(UINT64_MAX, in->addr[2]);
	in = &v.r[i++].inst;
	EXPECT_EQ(PROG_SPACE_SHARED, in->space);
	EXPECT_EQ(0x7f0000000040ull, in->addr[0]);
	in = &v.r[i++].inst;
	EXPECT_EQ(0x90, in->pc);
	EXPECT_EQ(PROG_OP_BRANCH, in->op);
	EXPECT_EQ(PROG_REC_WARP, v.r[i].type);
	EXPECT_EQ(0, v.r[i].warp.insts);
	for (i = 0; i < v.n; i++)
		k += v.r[i].type == PROG_REC_INST;
	EXPECT_EQ(10, k);
	EXPECT_EQ(PROG_REC_END, v.r[v.n - 1].type);
	recs_free(&v);
}

/* Kernels on two streams, a cluster line, an unknown header key. */
TEST(kernels_and_streams)
{
	static const char k1[] =
		"-kernel name = first\n-kernel id = 1\n-grid dim = (2,2,1)\n"
		"-block dim = (8,8,1)\n-cuda stream id = 93847561234\n"
		"-future key = whatever\n"
		"-kernel name = first after a longer name\n-kernel name = first\n"
		"#BEGIN_TB\nthread block = 1,1,0\ncluster id = 0,0,0\n"
		"cluster cta = 0,0,0\ncluster rank = 0\nwarp = 1\ninsts = 1\n"
		"0000 ffffffff 0 NOP 0 0\n#END_TB\n"
		"#BEGIN_TB\nthread block = 0,1,0\nwarp = 0\ninsts = 1\n"
		"0000 ffffffff 1 R4 FFMA 3 R1 R2 R3 0\n#END_TB\n";
	static const char k2[] =
		"-kernel name = second\n-kernel id = 2\n-grid dim = (1,1,1)\n"
		"-block dim = (32,1,1)\n-cuda stream id = 7\n"
		"#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 1\n"
		"0000 ffffffff 1 R4 DFMA 3 R1 R2 R3 0\n#END_TB\n";
	struct recs v = { 0 };
	char err[512];

	ASSERT_EQ(0, import_two(k1, k2, &v, err, sizeof(err))) TH_LOG("%s", err);
	ASSERT_EQ(17, v.n);
	EXPECT_STREQ("first", v.r[0].kernel.name);
	EXPECT_EQ(0, v.r[0].kernel.name[6]);	/* the longer name is gone */
	EXPECT_EQ(93847561234ull, v.r[0].kernel.stream);
	EXPECT_EQ(2, v.r[0].kernel.grid[1]);
	EXPECT_EQ(1, v.r[1].block.x);
	EXPECT_EQ(1, v.r[1].block.y);
	EXPECT_EQ(PROG_OP_OTHER, v.r[3].inst.op);
	EXPECT_EQ(PROG_OP_FP, v.r[7].inst.op);
	EXPECT_EQ(3, v.r[7].inst.nsrc);
	EXPECT_EQ(PROG_REC_KERNEL, v.r[10].type);
	EXPECT_STREQ("second", v.r[10].kernel.name);
	EXPECT_EQ(7, v.r[10].kernel.stream);
	EXPECT_EQ(2, v.r[10].kernel.id);
	EXPECT_EQ(PROG_OP_DP, v.r[13].inst.op);
	recs_free(&v);
}

/*
 * No addresses for a memory mnemonic (NVBit gives none for LDC): OTHER.
 * Addresses for a non-memory one (CCTL): dropped.
 */
TEST(addresses_and_memory_mnemonics)
{
	static const char trace[] =
		"-kernel name = t\n-grid dim = (1,1,1)\n-block dim = (32,1,1)\n"
		"#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 3\n"
		"0000 ffffffff 1 R1 LDC 1 R2 0 0\n"
		"0010 00000001 0 CCTL.IVALL 1 R2 4 0 0x5000 0\n"
		"0020 00000000 1 R1 LDG.E 1 R2 4 1 0x0 0 0\n"
		"#END_TB\n";
	const char *const files[] = {
		"kernelslist.g", "kernel-1.traceg\n", "kernel-1.traceg", trace,
		NULL
	};
	struct recs v = { 0 };
	char err[512];

	ASSERT_EQ(0, import_files(files, &v, err, sizeof(err))) TH_LOG("%s", err);
	ASSERT_EQ(9, v.n);
	EXPECT_EQ(PROG_OP_OTHER, v.r[3].inst.op);
	EXPECT_EQ(PROG_SPACE_NONE, v.r[3].inst.space);
	EXPECT_EQ(0, v.r[3].inst.width);
	EXPECT_EQ(PROG_OP_OTHER, v.r[4].inst.op);
	EXPECT_EQ(0, v.r[4].inst.width);
	EXPECT_EQ(0, v.r[4].inst.addr[0]);
	/* The tracer's no-lane memory instruction: mode 1, base 0. */
	EXPECT_EQ(PROG_OP_MEMORY, v.r[5].inst.op);
	EXPECT_EQ(0, v.r[5].inst.mask);
	recs_free(&v);
}

/*
 * Real traces carry mnemonics longer than 31 characters (a float
 * atomicAdd whose old value is used, Ampere's zero-filling async copy)
 * and kernel names of thousands (CUTLASS templates, mangled): both are
 * imported whole.
 */
TEST(real_long_mnemonics_and_names)
{
	static const char atom[] = "ATOMG.E.ADD.F32.FTZ.RN.STRONG.GPU";
	static const char cp[] = "LDGSTS.E.BYPASS.LTC128B.128.ZFILL";
	char trace[4096 + 512], name[3001];
	const char *const files[] = {
		"kernelslist.g", "kernel-1.traceg\n", "kernel-1.traceg", trace,
		NULL
	};
	struct recs v = { 0 };
	char err[512];
	int i;

	/* _ZN7cutlass6KernelI... then a repeated template argument */
	for (i = 0; i < 3000; i++)
		name[i] = "_ZN7cutlass6KernelINS_4gemm"[i % 27];
	name[3000] = '\0';
	snprintf(trace, sizeof(trace),
		 "-kernel name = %s\n-grid dim = (1,1,1)\n"
		 "-block dim = (32,1,1)\n-accelsim tracer version = 5\n"
		 "#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 4\n"
		 "0000 ffffffff 0 NOP 0 0 0\n"
		 "0010 00000001 1 R4 %s 2 R2 R5 4 2 0x7f0000000000 0\n"
		 "0020 ffffffff 0 %s 2 R2 R4 16 1 0x7f0000000000 16 0\n"
		 "0030 ffffffff 0 EXIT 0 0 0\n"
		 "#END_TB\n", name, atom, cp);
	ASSERT_EQ(0, import_files(files, &v, err, sizeof(err))) TH_LOG("%s", err);
	/* the touched block inferred, then the kernel */
	ASSERT_EQ(11, v.n);
	EXPECT_EQ(PROG_REC_KERNEL, v.r[1].type);
	EXPECT_STREQ(name, v.r[1].kernel.name);
	/*
	 * The name shares the record's storage with an instruction's
	 * addresses: the first instruction, which has none, must not
	 * inherit the name's bytes as addresses.
	 */
	EXPECT_STREQ("NOP", v.r[4].inst.opcode);
	for (i = 0; i < PROG_WARP_SIZE; i++)
		EXPECT_EQ(0, v.r[4].inst.addr[i]);
	EXPECT_STREQ(atom, v.r[5].inst.opcode);
	EXPECT_EQ(PROG_SPACE_GLOBAL, v.r[5].inst.space);
	EXPECT_EQ(PROG_KIND_ATOMIC, v.r[5].inst.kind);
	EXPECT_STREQ(cp, v.r[6].inst.opcode);
	EXPECT_EQ(PROG_SPACE_GLOBAL, v.r[6].inst.space);
	EXPECT_EQ(PROG_KIND_LOAD, v.r[6].inst.kind);
	EXPECT_EQ(16, v.r[6].inst.width);
	recs_free(&v);
}

/*
 * A name past what the program keeps (CuTe's mangled names run to many
 * KiB) labels the kernel only: cut to its first PROG_NAME_MAX - 1 bytes,
 * the trace imported.
 */
TEST(kernel_names_longer_than_kept_are_cut)
{
	static char trace[PROG_NAME_MAX * 2 + 512];
	static char name[PROG_NAME_MAX * 2];
	const char *const files[] = {
		"kernelslist.g", "kernel-1.traceg\n", "kernel-1.traceg", trace,
		NULL
	};
	struct recs v = { 0 };
	char err[512];
	size_t i;

	for (i = 0; i < sizeof(name) - 1; i++)
		name[i] = "_ZN4cute6TensorI"[i % 16];
	snprintf(trace, sizeof(trace),
		 "-kernel name = %s\n-grid dim = (1,1,1)\n"
		 "-block dim = (32,1,1)\n-accelsim tracer version = 5\n"
		 "#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 1\n"
		 "0000 ffffffff 0 EXIT 0 0 0\n#END_TB\n", name);
	ASSERT_EQ(0, import_mem(files, &v, err, sizeof(err))) TH_LOG("%s", err);
	ASSERT_EQ(7, v.n);
	EXPECT_EQ(PROG_NAME_MAX - 1, strlen(v.r[0].kernel.name));
	EXPECT_EQ(0, memcmp(name, v.r[0].kernel.name, PROG_NAME_MAX - 1));
	for (i = 0; i < PROG_WARP_SIZE; i++)
		EXPECT_EQ(0, v.r[3].inst.addr[i]);
	recs_free(&v);
}

/* The sidecar gives the objects exactly, at their places in the list. */
TEST(sidecar_objects)
{
	static const char trace[] =
		"-kernel name = t\n-grid dim = (1,1,1)\n-block dim = (32,1,1)\n"
		"#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 1\n"
		"0000 00000001 0 STG.E 2 R2 R3 4 0 0x9000\n#END_TB\n";
	const char *const files[] = {
		"kernelslist.g", "MemcpyHtoD,0x1000,16\nkernel-1.traceg\n",
		"kernel-1.traceg", trace,
		"mcmgpu-objects", "# objects\nobject 0x1000 4096 in\n"
		"at 2\nobject 0x9000 64 the output\n",
		NULL
	};
	struct recs v = { 0 };
	char err[512];

	ASSERT_EQ(0, import_files(files, &v, err, sizeof(err))) TH_LOG("%s", err);
	ASSERT_EQ(10, v.n);
	EXPECT_EQ(PROG_REC_OBJECT, v.r[0].type);
	EXPECT_EQ(4096, v.r[0].object.size);
	EXPECT_STREQ("in", v.r[0].object.name);
	EXPECT_EQ(PROG_REC_COPY, v.r[1].type);
	EXPECT_EQ(PROG_REC_KERNEL_END, v.r[7].type);
	EXPECT_EQ(PROG_REC_OBJECT, v.r[8].type);
	EXPECT_STREQ("the output", v.r[8].object.name);
	EXPECT_EQ(0x9000, v.r[8].object.base);
	EXPECT_EQ(PROG_REC_END, v.r[9].type);
	recs_free(&v);
}

/* --- errors ----------------------------------------------------------- */

#define HDR "-kernel name = t\n-grid dim = (1,1,1)\n-block dim = (64,1,1)\n" \
	"-accelsim tracer version = 5\n"	/* lines 1-4 */
#define TB0 "#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\n" /* lines 5-7 */

static const struct bad_case {
	const char *list, *trace, *want;
} bad_cases[] = {
	/* truncated lines */
	{ NULL, HDR TB0 "insts = 1\n0000\n#END_TB\n",
	  "kernel-1.traceg:9: mask: missing" },
	{ NULL, HDR TB0 "insts = 1\n0000 ffffffff 1 R1 IADD3\n#END_TB\n",
	  "kernel-1.traceg:9: src_num: missing" },
	{ NULL, HDR TB0 "insts = 1\n0000 ffffffff 1 R1 IADD3 2 R1\n#END_TB\n",
	  "kernel-1.traceg:9: src: register 2 of 2 missing" },
	{ NULL, HDR TB0 "insts = 1\n0000 ffffffff 0 LDG.E 1 R2 4\n#END_TB\n",
	  "kernel-1.traceg:9: address_mode: missing" },
	/* counts that disagree with insts */
	{ NULL, HDR TB0 "insts = 2\n0000 ffffffff 0 NOP 0 0\n#END_TB\n",
	  "kernel-1.traceg:10: insts: warp 0 declares 2 instructions, 1 follow" },
	{ NULL, HDR TB0 "insts = 2\n0000 ffffffff 0 NOP 0 0\nwarp = 1\n",
	  "kernel-1.traceg:10: insts: warp 0 declares 2" },
	{ NULL, HDR TB0 "insts = 1\n0000 ffffffff 0 NOP 0 0\n0010 ffffffff 0 NOP 0 0\n#END_TB\n",
	  "kernel-1.traceg:10: insts: an instruction beyond the 1 of warp 0" },
	/* addresses missing for active lanes */
	{ NULL, HDR TB0 "insts = 1\n0000 00000007 0 STG.E 2 R1 R2 4 0 0x10 0x14\n#END_TB\n",
	  "kernel-1.traceg:9: address: lane 2 has no address" },
	{ NULL, HDR TB0 "insts = 1\n0000 00000007 0 STG.E 2 R1 R2 4 2 0x10 4\n#END_TB\n",
	  "kernel-1.traceg:9: delta: lane 2 has no delta" },
	{ NULL, HDR TB0 "insts = 1\n0000 00000007 0 STG.E 2 R1 R2 4 1 0x10\n#END_TB\n",
	  "kernel-1.traceg:9: stride: missing" },
	{ NULL, HDR TB0 "insts = 1\n0000 00000005 0 STG.E 2 R1 R2 4 1 0x10 4\n#END_TB\n",
	  "kernel-1.traceg:9: address: stride compression needs contiguous" },
	/* unknown compression */
	{ NULL, HDR TB0 "insts = 1\n0000 00000001 0 STG.E 2 R1 R2 4 3 0x10\n#END_TB\n",
	  "kernel-1.traceg:9: address_mode: unknown compression '3'" },
	/* a mask wider than 32 lanes */
	{ NULL, HDR TB0 "insts = 1\n0000 1ffffffff 0 NOP 0 0\n#END_TB\n",
	  "kernel-1.traceg:9: mask: 1ffffffff is wider than 32 lanes" },
	/* bad numbers */
	{ NULL, HDR TB0 "insts = 1\n00g0 ffffffff 0 NOP 0 0\n#END_TB\n",
	  "kernel-1.traceg:9: pc: '00g0' is not hex" },
	{ NULL, HDR TB0 "insts = 1\n0000 ffffffff x NOP 0 0\n#END_TB\n",
	  "kernel-1.traceg:9: dest_num: 'x' is not a number" },
	{ NULL, HDR TB0 "insts = 1\n0000 00000001 0 STG.E 2 R1 R2 4 0 0x1g\n#END_TB\n",
	  "kernel-1.traceg:9: address: '0x1g' is not hex" },
	{ NULL, HDR TB0 "insts = 1\n0000 00000003 0 STG.E 2 R1 R2 4 2 0x10 4z\n#END_TB\n",
	  "kernel-1.traceg:9: delta: '4z' is not a decimal number" },
	{ NULL, HDR TB0 "insts = 1\n0000 ffffffff 0 NOP 0 0 7 8\n#END_TB\n",
	  "kernel-1.traceg:9: line: '8' after the end" },
	{ NULL, HDR TB0 "insts = 1\n0000 ffffffff 0 NOP 0 0 0x7\n#END_TB\n",
	  "kernel-1.traceg:9: immediate: '0x7' is not a decimal number" },
	{ NULL, HDR TB0 "insts = 1\n0000 ffffffff 1 X1 NOP 0 0\n#END_TB\n",
	  "kernel-1.traceg:9: dest: 'X1' is not a register" },
	{ NULL, HDR TB0 "insts = 1\n0000 ffffffff 1 R70000 NOP 0 0\n#END_TB\n",
	  "kernel-1.traceg:9: dest: 'R70000' is not a register" },
	{ NULL, HDR TB0 "insts = 1\n0000 ffffffff 0 NOP 0 999\n#END_TB\n",
	  "kernel-1.traceg:9: mem_width: 999 is more than 128" },
	{ NULL, HDR TB0 "insts = x\n", "kernel-1.traceg:8: insts: not a 32-bit number" },
	{ NULL, HDR TB0 "insts = 4294967296\n",
	  "kernel-1.traceg:8: insts: not a 32-bit number" },
	/* a huge count that lies */
	{ NULL, HDR TB0 "insts = 4294967295\n0000 ffffffff 0 EXIT 0 0 0\n#END_TB\n",
	  "kernel-1.traceg:10: insts: warp 0 declares 4294967295 instructions, 1 follow" },
	/* a mask written as '-' */
	{ NULL, HDR TB0 "insts = 1\n0000 - 0 EXIT 0 0 0\n#END_TB\n",
	  "kernel-1.traceg:9: mask: '-' is not hex" },
	{ NULL, HDR "#BEGIN_TB\nthread block = 0,0\n",
	  "kernel-1.traceg:6: thread block: x,y,z expected" },
	/* more registers than the program keeps */
	{ NULL, HDR TB0 "insts = 1\n0000 ffffffff 17 NOP 0 0\n#END_TB\n",
	  "kernel-1.traceg:9: dest_num: 17 is more than 16" },
	{ NULL, HDR TB0 "insts = 1\n0000 ffffffff 0 NOP 20 0\n#END_TB\n",
	  "kernel-1.traceg:9: src_num: 20 is more than 16" },
	{ NULL, HDR TB0 "insts = 1\n0000 ffffffff 0 "
	  "ABCDEFGHIJKLMNOPQRSTUVWXYZ.ABCDEFGHIJKLMNOPQRSTUVWXYZ.0123456789 0 0\n#END_TB\n",
	  "kernel-1.traceg:9: opcode: 'ABCDEFGHIJKLMNOPQRSTUVWXYZ.ABCDEFGHIJKLMNOPQRSTUVWXYZ.012345' is longer than 63" },
	/* the header */
	{ NULL, "-kernel name = t\n-grid dim = 1,1,1\n",
	  "kernel-1.traceg:2: -grid dim: (x,y,z) expected" },
	{ NULL, "-kernel name = t\n-block dim = (1,1,1)\n#BEGIN_TB\n",
	  "kernel-1.traceg:3: -grid dim: missing from the header" },
	{ NULL, "-kernel name = t\n-oops\n",
	  "kernel-1.traceg:2: header: '-key = value' expected" },
	{ NULL, "-kernel name = t\n-accelsim tracer version = 2\n",
	  "kernel-1.traceg:2: -accelsim tracer version: 2 is before 3" },
	/* no version: a tracer's before 3 has block ids first, said so */
	{ NULL, "-kernel name = t\n-grid dim = (1,1,1)\n-block dim = (32,1,1)\n"
	  TB0 "insts = 1\n0 0 0 0 0000 ffffffff 0 EXIT 0 0\n#END_TB\n",
	  "kernel-1.traceg:8: mem_width: 'ffffffff' is not a number (no -accelsim tracer version in the header: a trace before version 3" },
	/* a later tracer's lines carry more fields: refused at the header */
	{ NULL, "-kernel name = t\n-accelsim tracer version = 6\n",
	  "kernel-1.traceg:2: -accelsim tracer version: 6 is after 5" },
	{ NULL, "", "kernel-1.traceg: empty file" },
	{ NULL, "\n\n", "kernel-1.traceg:2: -grid dim: missing from the header" },
	{ NULL, "-kernel name = t\n-grid dim = (1,1,1)\n#traces format = x\n",
	  "kernel-1.traceg:3: -block dim: missing from the header" },
	{ NULL, "-kernel name = t\n-enable lineinfo = yes\n",
	  "kernel-1.traceg:2: -enable lineinfo: 0 or 1 expected" },
	{ NULL, "-kernel name = t\n-cuda stream id = -1\n",
	  "kernel-1.traceg:2: -cuda stream id: not a number" },
	{ NULL, "-kernel name = t\nthread block = 0,0,0\n",
	  "kernel-1.traceg:2: header: '-key = value' or #BEGIN_TB expected" },
	{ NULL, HDR "-enable lineinfo = 1\n#BEGIN_TB\nthread block = 0,0,0\n"
	  "warp = 0\ninsts = 1\n0000 ffffffff 0 NOP 0 0\n",
	  "kernel-1.traceg:10: dest_num: 'NOP' is not a number" },
	/* block structure */
	{ NULL, HDR TB0 "insts = 0\n", "kernel-1.traceg:8: #END_TB: missing at the end" },
	{ NULL, HDR TB0 "insts = 0\n#BEGIN_TB\n",
	  "kernel-1.traceg:9: #BEGIN_TB: inside a thread block" },
	{ NULL, HDR "#BEGIN_TB\nwarp = 0\n",
	  "kernel-1.traceg:6: thread block: 'thread block = x,y,z' expected first" },
	{ NULL, HDR TB0 "warp = 1\n",
	  "kernel-1.traceg:8: insts: 'insts =' expected after 'warp ='" },
	{ NULL, HDR "#BEGIN_TB\nthread block = 0,0,0\ninsts = 1\n",
	  "kernel-1.traceg:7: insts: no 'warp =' before it" },
	{ NULL, HDR "#BEGIN_TB\nthread block = 0,0,0\n#END_TB\n#END_TB\n",
	  "kernel-1.traceg:8: #END_TB: outside a thread block" },
	{ NULL, HDR "#BEGIN_TB\nthread block = 0,0,0\n0000 ffffffff 0 NOP 0 0\n",
	  "kernel-1.traceg:7: insts: an instruction beyond the 0 of warp 0" },
	/* the first error in the file, though the first pass skips ALU lines */
	{ NULL, HDR TB0 "insts = 2\n0000 ffffffff 1 X1 NOP 0 0\n"
	  "0010 00000001 0 STG.E 2 R1 R2 4 0 0xzz\n#END_TB\n",
	  "kernel-1.traceg:9: dest: 'X1' is not a register" },
	/* what the program's grammar refuses, with its field */
	{ NULL, HDR "#BEGIN_TB\nthread block = 1,0,0\n",
	  "kernel-1.traceg:6: block: x outside the grid" },
	{ NULL, HDR TB0 "insts = 0\nwarp = 2\ninsts = 0\n",
	  "kernel-1.traceg:10: warp: outside the block's threads" },
	{ NULL, HDR TB0 "insts = 0\nwarp = 0\ninsts = 0\n",
	  "kernel-1.traceg:10: warp: twice in one block" },
	{ NULL, "-kernel name = t\n-grid dim = (1,1,1)\n-block dim = (33,32,1)\n#BEGIN_TB\n",
	  "kernel-1.traceg:4: block: more than 1024 threads" },
	{ NULL, "-kernel name = t\n-kernel id = 0\n-grid dim = (1,1,1)\n-block dim = (1,1,1)\n#BEGIN_TB\n",
	  "kernel-1.traceg:5: id: kernel ids must increase from 1" },
	{ NULL, "-kernel name = t\n-shmem base_addr = 0x1000\n"
	  "-local mem base_addr = 0x2000\n-grid dim = (1,1,1)\n-block dim = (1,1,1)\n"
	  "#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 1\n"
	  "0000 00000001 1 R1 ATOM.E.ADD 1 R2 4 0 0x2010\n#END_TB\n",
	  "kernel-1.traceg:10: kind: not an access this space has" },
	{ NULL, "-kernel name = t \x01\n-grid dim = (1,1,1)\n-block dim = (1,1,1)\n#BEGIN_TB\n",
	  "kernel-1.traceg:4: name: empty, too long or not printable" },
	/* kernelslist.g and files */
	{ "kernel-1.traceg\nkernel-2.traceg\n", HDR TB0 "insts = 0\n#END_TB\n",
	  "kernel-2.traceg: No such file" },
	{ "MemcpyHtoD\n", NULL,
	  "kernelslist.g:1: MemcpyHtoD: ',ADDR,BYTES' expected" },
	{ "MemcpyHtoD,0x10\n", NULL,
	  "kernelslist.g:1: MemcpyHtoD: 'MemcpyHtoD,ADDR,BYTES' expected" },
	{ "\nMemcpyDtoH,0xzz,16\n", NULL,
	  "kernelslist.g:2: MemcpyDtoH: address: not hex" },
	{ "MemcpyHtoD,0x10,many\n", NULL,
	  "kernelslist.g:1: MemcpyHtoD: bytes: not a number" },
	/* a missing file before a bad line: the first error, with its errno */
	{ "kernel-7.traceg\nnonsense\n", NULL, "kernel-7.traceg: No such file" },
	{ "cudaFree,0x10\n", NULL,
	  "kernelslist.g:1: command: 'cudaFree,0x10' is not MemcpyHtoD" },
	/* the tracer's output before post-processing */
	{ "kernel-1.trace\n", NULL,
	  "kernelslist.g:1: kernel: kernel-1.trace is the tracer's raw trace" },
	{ "MemcpyHtoD,0x10,16\nkernel-2.trace.xz\n", NULL,
	  "kernelslist.g:2: kernel: kernel-2.trace.xz is the tracer's raw trace" },
	{ "kernel-9.traceg.xz\n", NULL,
	  "kernelslist.g:1: kernel: kernel-9.traceg.xz is compressed" },
};

TEST(every_error_names_file_line_and_field)
{
	size_t i;

	for (i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++) {
		const struct bad_case *c = &bad_cases[i];
		const char *const files[] = {
			"kernelslist.g", c->list ? c->list : "kernel-1.traceg\n",
			"kernel-1.traceg", c->trace ? c->trace : "",
			NULL
		};
		struct recs v = { 0 };
		char err[512];
		int ret;

		err[0] = '\0';
		ret = import_mem(files, &v, err, sizeof(err));
		if (strstr(c->want, "No such file")) {
			EXPECT_EQ(-ENOENT, ret) TH_LOG("case %zu: %s", i, err);
		} else {
			EXPECT_EQ(-EINVAL, ret) TH_LOG("case %zu: %s", i, err);
		}
		EXPECT_NE(NULL, strstr(err, c->want))
			TH_LOG("case %zu: got '%s', want '%s'", i, err, c->want);
		recs_free(&v);
	}
}

/*
 * A header and no block (the tracer recorded nothing of the launch, as
 * when INSTR_BEGIN/INSTR_END leave its code out): a kernel without
 * blocks, between the others.
 */
TEST(a_kernel_with_no_block)
{
	static const char k1[] =
		"-kernel name = empty\n-kernel id = 1\n-grid dim = (4,1,1)\n"
		"-block dim = (64,1,1)\n-accelsim tracer version = 5\n\n"
		"#traces format = [line_num] PC mask dest_num [reg_dests] "
		"opcode src_num [reg_srcs] mem_width [adrrescompress?] "
		"[mem_addresses] immediate\n\n";
	static const char k2[] =
		"-kernel name = full\n-kernel id = 2\n-grid dim = (1,1,1)\n"
		"-block dim = (32,1,1)\n-accelsim tracer version = 5\n"
		"#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 1\n"
		"0000 ffffffff 0 EXIT 0 0 0\n#END_TB\n";
	struct recs v = { 0 };
	char err[512];

	ASSERT_EQ(0, import_two(k1, k2, &v, err, sizeof(err))) TH_LOG("%s", err);
	ASSERT_EQ(9, v.n);
	EXPECT_EQ(PROG_REC_KERNEL, v.r[0].type);
	EXPECT_STREQ("empty", v.r[0].kernel.name);
	EXPECT_EQ(4, v.r[0].kernel.grid[0]);
	EXPECT_EQ(PROG_REC_KERNEL_END, v.r[1].type);
	EXPECT_EQ(PROG_REC_KERNEL, v.r[2].type);
	EXPECT_EQ(2, v.r[2].kernel.id);
	EXPECT_EQ(PROG_REC_BLOCK, v.r[3].type);
	EXPECT_EQ(PROG_REC_END, v.r[8].type);
	recs_free(&v);
}

/*
 * kernelslist.g's names are paths relative to DIR (Accel-Sim prefixes
 * the directory to any line starting "kernel"): a subdirectory works, and
 * a kernel without "-kernel name" is named by its path up to the first
 * '.'.
 */
TEST(kernel_files_in_a_subdirectory)
{
	static const char k[] =
		"-grid dim = (1,1,1)\n-block dim = (32,1,1)\n"
		"#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 1\n"
		"0000 ffffffff 0 EXIT 0 0 0\n#END_TB\n";
	char err[512], sub[256], *dir = make_dir();
	struct recs v = { 0 };

	snprintf(sub, sizeof(sub), "%s/kernels", dir);
	ASSERT_EQ(0, mkdir(sub, 0755));
	write_file(dir, "kernelslist.g", "kernels/kernel-1.traceg\n");
	write_file(sub, "kernel-1.traceg", k);
	ASSERT_EQ(0, accelsim_import(dir, collect, &v, err, sizeof(err)))
		TH_LOG("%s", err);
	ASSERT_EQ(7, v.n);
	EXPECT_STREQ("kernels/kernel-1", v.r[0].kernel.name);
	EXPECT_EQ(1, v.r[0].kernel.id);
	remove_dir(dir);
	recs_free(&v);
}

/* Kernel ids from the headers must increase; an empty copy is dropped. */
TEST(kernel_ids_increase_and_empty_copies)
{
	static const char k[] =
		"-kernel name = t\n-kernel id = 3\n-grid dim = (1,1,1)\n"
		"-block dim = (1,1,1)\n#BEGIN_TB\nthread block = 0,0,0\n#END_TB\n";
	const char *const twice[] = {
		"kernelslist.g", "kernel-1.traceg\nkernel-1.traceg\n",
		"kernel-1.traceg", k, NULL
	};
	const char *const empty_copy[] = {
		"kernelslist.g", "MemcpyHtoD,0x10,0\nkernel-1.traceg\n",
		"kernel-1.traceg", k, NULL
	};
	struct recs v = { 0 };
	char err[512];

	EXPECT_EQ(-EINVAL, import_mem(twice, &v, err, sizeof(err)));
	EXPECT_STREQ("kernel-1.traceg:5: id: kernel ids must increase from 1", err);
	recs_free(&v);
	ASSERT_EQ(0, import_mem(empty_copy, &v, err, sizeof(err))) TH_LOG("%s", err);
	ASSERT_EQ(5, v.n);
	EXPECT_EQ(PROG_REC_KERNEL, v.r[0].type);
	EXPECT_EQ(3, v.r[0].kernel.id);
	recs_free(&v);
}

/* A NUL byte would cut a name or mnemonic short: refused. */
TEST(nul_bytes_are_refused)
{
	static const char list[] = "kernel-1.traceg\n";
	static const char name[] = "-kernel name = ab\0cd\n";
	static const char opc[] = "-kernel name = k\n-grid dim = (1,1,1)\n"
		"-block dim = (1,1,1)\n-accelsim tracer version = 5\n"
		"#BEGIN_TB\nthread block = 0,0,0\n"
		"warp = 0\ninsts = 1\n0000 00000001 0 NO\0P 0 0\n#END_TB\n";
	struct accelsim_mem_file f[2] = {
		{ "kernelslist.g", list, sizeof(list) - 1 },
		{ "kernel-1.traceg", name, sizeof(name) - 1 },
	};
	struct recs v = { 0 };
	char err[512];

	EXPECT_EQ(-EINVAL, accelsim_import_mem(f, 2, collect, &v, err, sizeof(err)));
	EXPECT_STREQ("kernel-1.traceg:1: -kernel name: a NUL byte", err);
	f[1].data = opc;
	f[1].len = sizeof(opc) - 1;
	EXPECT_EQ(-EINVAL, accelsim_import_mem(f, 2, collect, &v, err, sizeof(err)));
	EXPECT_STREQ("kernel-1.traceg:9: opcode: a NUL byte", err);
	recs_free(&v);
}

TEST(missing_directory_and_sidecar_errors)
{
	const char *const bad_side[] = {
		"kernelslist.g", "MemcpyHtoD,0x10,16\n",
		"mcmgpu-objects", "at 5\nobject 0x10 16 a\n", NULL
	};
	const char *const bad_side2[] = {
		"kernelslist.g", "MemcpyHtoD,0x10,16\n",
		"mcmgpu-objects", "object 0x10 sixteen a\n", NULL
	};
	const char *const raw_dir[] = {
		"kernelslist", "kernel-1.trace\n", "kernel-1.trace", "-kernel id = 1\n",
		NULL
	};
	struct recs v = { 0 };
	char err[512];

	EXPECT_EQ(-ENOENT, accelsim_import("/nonexistent/accelsim", collect, &v,
					   err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "/nonexistent/accelsim/kernelslist.g: "));
	EXPECT_EQ(NULL, strstr(err, "post-process")) TH_LOG("%s", err);
	/* The tracer's directory before post-processing: said so. */
	EXPECT_EQ(-ENOENT, import_mem(raw_dir, &v, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "kernelslist.g: No such file or directory (the directory holds the tracer's kernelslist: post-process it first"))
		TH_LOG("%s", err);
	EXPECT_EQ(-EINVAL, import_mem(bad_side, &v, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "mcmgpu-objects: position: object a"))
		TH_LOG("%s", err);
	EXPECT_EQ(-EINVAL, import_mem(bad_side2, &v, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "mcmgpu-objects:1: size:")) TH_LOG("%s", err);
	recs_free(&v);
}

/* --- export and round trip -------------------------------------------- */

static void build_program(struct recs *p)
{
	struct prog_kernel *k;
	struct prog_inst *in;

	add_object(p, 0x7f0000100000ull, 1 << 20, "a");
	add_copy(p, PROG_COPY_H2D, 0x7f0000100000ull, 1 << 20);
	k = add_kernel(p, 1, "_Z6kernelPfi", 2, 96);
	k->grid[1] = 3;
	k->shmem = 4096;
	k->nregs = 40;
	k->binary_version = 80;
	k->stream = 0xdeadbeef;
	k->shmem_base = 0x7e0000000000ull;
	k->local_base = 0x7e0001000000ull;
	add_block(p, 1, 2, 0);
	add_warp(p, 2, 9);
	in = add_inst(p, 0x10, 0xffffffff, "IADD3");
	in->ndst = 1;
	in->dst[0] = 255;
	in->nsrc = 3;
	in->src[0] = 1;
	in->src[1] = 2;
	in->src[2] = 65535;
	/* stride: contiguous lanes, one stride */
	add_mem(p, 0x20, 0x00ffff00, "LDG.E.64", 8, 0x7f0000100000ull, 8);
	/* stride over 32 bits: deltas */
	add_mem(p, 0x30, 0x3, "STG.E", 4, 0x7f0000100000ull, 1ll << 33);
	/* non-contiguous lanes, negative stride: deltas */
	add_mem(p, 0x40, 0x80000005, "ATOMG.E.ADD", 4, 0x7f0000180000ull, -4);
	/* one lane; no lane */
	add_mem(p, 0x50, 0x10, "RED.E.ADD", 4, 0x7f0000100040ull, 0);
	add_mem(p, 0x60, 0, "LDS", 4, 0, 0);
	/* generic accesses that resolve to what the record says */
	in = add_mem(p, 0x70, 0xf, "LD.E", 4, 0x7e0000000100ull, 4);
	in->space = PROG_SPACE_SHARED;
	in = add_mem(p, 0x80, 0x1, "ST.E", 4, 0x7e0001000010ull, 0);
	in->space = PROG_SPACE_LOCAL;
	/* wrap-around address deltas */
	in = add_mem(p, 0x1ffffffff0ull, 0x3, "LDG.E.U8", 1, 0, 0);
	in->addr[0] = UINT64_MAX;
	in->addr[1] = 0;
	add(p, PROG_REC_BLOCK_END);
	add(p, PROG_REC_KERNEL_END);
	/* an object after a kernel: the sidecar keeps its place */
	add_object(p, 0x7f0000300000ull, 4096, "a late one");
	add_copy(p, PROG_COPY_D2H, 0x7f0000100000ull, 64);
	k = add_kernel(p, 2, "second", 1, 32);
	k->stream = 1;
	add_block(p, 0, 0, 0);
	add_warp(p, 0, 2);
	add_inst(p, 0, 0xffffffff, "BAR.SYNC");
	add_inst(p, 0x10, 0x1, "EXIT");
	add(p, PROG_REC_BLOCK_END);
	add(p, PROG_REC_KERNEL_END);
	add(p, PROG_REC_END);
}

static char *read_text(const char *dir, const char *name)
{
	char path[4096], *buf;
	long n;
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fp = fopen(path, "r");
	if (!fp)
		return NULL;
	fseek(fp, 0, SEEK_END);
	n = ftell(fp);
	rewind(fp);
	buf = calloc(1, n + 1);
	if (fread(buf, 1, n, fp) != (size_t)n)
		buf[0] = '\0';
	fclose(fp);
	return buf;
}

TEST(export_then_import_gives_the_program_back)
{
	struct recs p = { 0 }, q = { 0 };
	char err[512], *dir = make_dir();
	char *text;

	build_program(&p);
	ASSERT_EQ(0, accelsim_export(give, &p, dir, err, sizeof(err)))
		TH_LOG("%s", err);
	ASSERT_EQ(0, accelsim_import(dir, collect, &q, err, sizeof(err)))
		TH_LOG("%s", err);
	EXPECT_EQ(0, recs_cmp(&p, &q, err, sizeof(err))) TH_LOG("%s", err);

	/* What the files say, as the tracer writes them. */
	text = read_text(dir, "kernelslist.g");
	ASSERT_NE(NULL, text);
	EXPECT_STREQ("MemcpyHtoD,0x00007f0000100000,1048576\n"
		     "kernel-1.traceg\n"
		     "MemcpyDtoH,0x00007f0000100000,64\n"
		     "kernel-2.traceg\n", text);
	free(text);
	text = read_text(dir, "mcmgpu-objects");
	ASSERT_NE(NULL, text);
	EXPECT_STREQ("object 0x7f0000100000 1048576 a\n"
		     "at 2\nobject 0x7f0000300000 4096 a late one\n", text);
	free(text);
	text = read_text(dir, "kernel-1.traceg");
	ASSERT_NE(NULL, text);
	EXPECT_NE(NULL, strstr(text, "-accelsim tracer version = 5\n"));
	EXPECT_NE(NULL, strstr(text, "-cuda stream id = 3735928559\n"));
	EXPECT_NE(NULL, strstr(text, "\nthread block = 1,2,0\n"));
	EXPECT_NE(NULL, strstr(text, "\nwarp = 2\ninsts = 9\n"));
	EXPECT_NE(NULL, strstr(text, "\n0010 ffffffff 1 R255 IADD3 3 R1 R2 R65535 0 0\n"));
	EXPECT_NE(NULL, strstr(text, "\n0020 00ffff00 0 LDG.E.64 0 8 1 0x7f0000100040 8 0\n"));
	EXPECT_NE(NULL, strstr(text, "\n0030 00000003 0 STG.E 0 4 2 0x7f0000100000 8589934592 0\n"));
	EXPECT_NE(NULL, strstr(text, "\n0040 80000005 0 ATOMG.E.ADD 0 4 2 0x7f0000180000 -8 -116 0\n"));
	EXPECT_NE(NULL, strstr(text, "\n0050 00000010 0 RED.E.ADD 0 4 2 0x7f0000100040 0\n"));
	EXPECT_NE(NULL, strstr(text, "\n0060 00000000 0 LDS 0 4 1 0x0 0 0\n"));
	EXPECT_NE(NULL, strstr(text, "\n1ffffffff0 00000003 0 LDG.E.U8 0 1 1 0xffffffffffffffff 1 0\n"));
	free(text);
	recs_free(&p);
	recs_free(&q);
	remove_dir(dir);
}

TEST(export_refuses_what_a_trace_cannot_carry)
{
	static const struct {
		const char *opcode;
		u8 op, space;
		const char *want;
	} cases[] = {
		{ "IADD3", PROG_OP_FP, 0, "record 5: op: IADD3 is int" },
		{ "LD.E", PROG_OP_MEMORY, PROG_SPACE_SHARED,
		  "record 5: space: LD.E at 0x7f0000100000 is global" },
		{ "IADD3 X", PROG_OP_INT, 0, "record 5: opcode: empty, too long or not printable" },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct recs p = { 0 };
		char err[512], *dir = make_dir();
		struct prog_inst *in;

		add_object(&p, 0x7f0000100000ull, 4096, "a");
		add_kernel(&p, 1, "k", 1, 32);
		add_block(&p, 0, 0, 0);
		add_warp(&p, 0, 1);
		if (cases[i].op == PROG_OP_MEMORY) {
			in = add_mem(&p, 0, 1, cases[i].opcode, 4,
				     0x7f0000100000ull, 0);
		} else {
			in = add_inst(&p, 0, 1, "NOP");
			snprintf(in->opcode, sizeof(in->opcode), "%s",
				 cases[i].opcode);
		}
		in->op = cases[i].op;
		if (cases[i].space)
			in->space = cases[i].space;
		add(&p, PROG_REC_BLOCK_END);
		add(&p, PROG_REC_KERNEL_END);
		add(&p, PROG_REC_END);
		EXPECT_EQ(-EINVAL, accelsim_export(give, &p, dir, err, sizeof(err)));
		EXPECT_NE(NULL, strstr(err, cases[i].want))
			TH_LOG("case %zu: got '%s'", i, err);
		recs_free(&p);
		remove_dir(dir);
	}
}

/* --- the classifier --------------------------------------------------- */

TEST(classify_mnemonics)
{
	static const struct {
		const char *opcode;
		u8 op, space, kind;
		int generic;
	} cases[] = {
		{ "IMAD.MOV.U32", PROG_OP_INT, 0, 0, 0 },
		{ "UIADD3", PROG_OP_INT, 0, 0, 0 },
		{ "UMOV", PROG_OP_INT, 0, 0, 0 },
		{ "FFMA.FTZ", PROG_OP_FP, 0, 0, 0 },
		{ "HFMA2.MMA", PROG_OP_FP, 0, 0, 0 },
		{ "DADD", PROG_OP_DP, 0, 0, 0 },
		{ "MUFU.RSQ", PROG_OP_SFU, 0, 0, 0 },
		{ "HMMA.16816.F32", PROG_OP_TENSOR, 0, 0, 0 },
		{ "BRA.DIV", PROG_OP_BRANCH, 0, 0, 0 },
		{ "BSYNC", PROG_OP_BRANCH, 0, 0, 0 },
		{ "RET.REL.NODEC", PROG_OP_BRANCH, 0, 0, 0 },
		{ "BAR.SYNC.DEFER_BLOCKING", PROG_OP_BARRIER, 0, 0, 0 },
		{ "WARPSYNC", PROG_OP_BARRIER, 0, 0, 0 },
		{ "MEMBAR.GL", PROG_OP_OTHER, 0, 0, 0 },
		{ "S2R", PROG_OP_OTHER, 0, 0, 0 },
		{ "UNHEARD.OF", PROG_OP_OTHER, 0, 0, 0 },
		{ "LDG.E.128.CONSTANT.SYS", PROG_OP_MEMORY, PROG_SPACE_GLOBAL, PROG_KIND_LOAD, 0 },
		{ "LDGSTS.E.BYPASS.128", PROG_OP_MEMORY, PROG_SPACE_GLOBAL, PROG_KIND_LOAD, 0 },
		{ "STG.E.STRONG.GPU", PROG_OP_MEMORY, PROG_SPACE_GLOBAL, PROG_KIND_STORE, 0 },
		{ "ATOMG.E.CAS.STRONG.GPU", PROG_OP_MEMORY, PROG_SPACE_GLOBAL, PROG_KIND_ATOMIC, 0 },
		{ "RED.E.ADD.F32.FTZ.RN", PROG_OP_MEMORY, PROG_SPACE_GLOBAL, PROG_KIND_REDUCTION, 0 },
		{ "REDG.E.ADD.F32.FTZ.RN.STRONG.GPU", PROG_OP_MEMORY, PROG_SPACE_GLOBAL, PROG_KIND_REDUCTION, 0 },
		{ "LDS.U.128", PROG_OP_MEMORY, PROG_SPACE_SHARED, PROG_KIND_LOAD, 0 },
		{ "LDSM.16.M88.4", PROG_OP_MEMORY, PROG_SPACE_SHARED, PROG_KIND_LOAD, 0 },
		{ "STS.64", PROG_OP_MEMORY, PROG_SPACE_SHARED, PROG_KIND_STORE, 0 },
		{ "ATOMS.ADD", PROG_OP_MEMORY, PROG_SPACE_SHARED, PROG_KIND_ATOMIC, 0 },
		{ "LDL.LU", PROG_OP_MEMORY, PROG_SPACE_LOCAL, PROG_KIND_LOAD, 0 },
		{ "STL.128", PROG_OP_MEMORY, PROG_SPACE_LOCAL, PROG_KIND_STORE, 0 },
		{ "LDC.64", PROG_OP_MEMORY, PROG_SPACE_CONST, PROG_KIND_LOAD, 0 },
		{ "TEX.B.LL", PROG_OP_MEMORY, PROG_SPACE_TEXTURE, PROG_KIND_LOAD, 0 },
		{ "LD.E.64", PROG_OP_MEMORY, PROG_SPACE_GLOBAL, PROG_KIND_LOAD, 1 },
		{ "ST.E", PROG_OP_MEMORY, PROG_SPACE_GLOBAL, PROG_KIND_STORE, 1 },
		{ "ATOM.E.EXCH", PROG_OP_MEMORY, PROG_SPACE_GLOBAL, PROG_KIND_ATOMIC, 1 },
	};
	struct prog_inst in;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		memset(&in, 0, sizeof(in));
		EXPECT_EQ(cases[i].generic, accelsim_classify(cases[i].opcode, &in))
			TH_LOG("%s", cases[i].opcode);
		EXPECT_EQ(cases[i].op, in.op) TH_LOG("%s", cases[i].opcode);
		EXPECT_EQ(cases[i].space, in.space) TH_LOG("%s", cases[i].opcode);
		EXPECT_EQ(cases[i].kind, in.kind) TH_LOG("%s", cases[i].opcode);
	}
	EXPECT_EQ(-EINVAL, accelsim_classify("", &in));
	EXPECT_EQ(-EINVAL, accelsim_classify(
		  "ABCDEFGHIJKLMNOPQRSTUVWXYZ.ABCDEFGHIJKLMNOPQRSTUVWXYZ.0123456789",
		  &in));
}

/* Every mnemonic the executor writes classifies back to its record. */
TEST(classify_inverts_prog_default_opcode)
{
	static const u16 widths[] = { 1, 2, 4, 8, 16 };
	unsigned int op, space, kind, w, n = 0;

	for (op = 0; op < PROG_OP_NR; op++) {
		for (space = 0; space < PROG_SPACE_NR; space++) {
			for (kind = 0; kind < PROG_KIND_NR; kind++) {
				for (w = 0; w < 5; w++) {
					struct prog_inst in, got;
					const char *name;
					bool mem = op == PROG_OP_MEMORY;

					if (mem != (space != PROG_SPACE_NONE) ||
					    mem != (kind != PROG_KIND_NONE))
						continue;
					if (!mem && w)
						continue;
					memset(&in, 0, sizeof(in));
					in.op = op;
					in.space = space;
					in.kind = kind;
					in.width = mem ? widths[w] : 0;
					name = prog_default_opcode(&in);
					if (mem && !strcmp(name, "NOP"))
						continue;	/* no such access */
					memset(&got, 0, sizeof(got));
					EXPECT_LE(0, accelsim_classify(name, &got));
					EXPECT_EQ(op, got.op) TH_LOG("%s", name);
					EXPECT_EQ(space, got.space) TH_LOG("%s", name);
					EXPECT_EQ(kind, got.kind) TH_LOG("%s", name);
					n++;
				}
			}
		}
	}
	EXPECT_LT(20, n);
}

TEST_HARNESS_MAIN
