// SPDX-License-Identifier: GPL-2.0
/*
 * The program format (qemu-device/model/program.c, the binary form, and
 * tools/mcmgpu/workload/prog_file.c, the text form): a program read from
 * text, written as binary, read back and written as text again is the
 * same text; every record's fields survive; each malformed record is
 * refused with its line (or record) and field; a binary program cut at
 * any byte or with any byte changed is refused or read, never a crash.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"
#include "prog_file.h"
#include "program.h"
#include "../lib/prog_mem.h"

static const char text_prog[] =
	"mcmgpu-program 1\n"
	"# a comment, and a blank line\n"
	"\n"
	"object 0x7f0000000000 4096 A\n"
	"object 0x7f0000200000 8192 out buffer\n"
	"copy h2d 0x7f0000000000 4096\n"
	"kernel 1 grid=2,1,1 block=48,1,1 shmem=256 nregs=16 binary=70 stream=0 shmem_base=0x7e0000000000 local_base=0x7d0000000000 name=saxpy(float*, int)\n"
	"block 1,0,0\n"
	"warp 1 insts=3\n"
	"0x10 0x0000ffff int IADD3 d=1 s=2,3\n"
	"0x20 0x00000005 mem.global.load.4 LDG.E d=4 s=1 @ 0x7f0000000000 0x7f0000000008\n"
	"0x30 0x80000001 mem.shared.atomic.4 ATOMS.ADD d= s=4 @ 0x7e0000000010 0x7e0000000000\n"
	"warp 0 insts=0\n"
	"end-block\n"
	"end-kernel\n"
	"copy d2h 0x7f0000200000 8192\n"
	"end\n";

/* The canonical text (comments and blank lines dropped). */
static const char *canonical(void)
{
	static char buf[sizeof(text_prog)];
	const char *s = text_prog;
	char *o = buf;

	while (*s) {
		const char *nl = strchr(s, '\n') + 1;

		if (*s != '#' && *s != '\n') {
			memcpy(o, s, nl - s);
			o += nl - s;
		}
		s = nl;
	}
	*o = 0;
	return buf;
}

/* Reads text; writes every record to a binary writer into bin. */
static int text_to_bin(const char *text, struct prog_mem *bin, char *err,
		       size_t errlen)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	struct prog_writer *w = malloc(sizeof(*w));
	struct prog_rec rec;
	struct prog_in *in;
	int ret;

	in = prog_in_fdopen(f, "t.txt", err, errlen);
	if (!in) {
		ret = -EINVAL;
		goto out;
	}
	prog_writer_init(w, prog_mem_write, bin);
	while ((ret = prog_in_next(in, &rec)) == 1) {
		ret = prog_write(w, &rec);
		if (ret) {
			snprintf(err, errlen, "write: %s: %s",
				 w->grammar.err_field, w->grammar.err_why);
			break;
		}
	}
	if (ret < 0 && !err[0])
		snprintf(err, errlen, "%s", prog_in_error(in));
	prog_in_close(in);
out:
	free(w);
	fclose(f);
	return ret;
}

/* Reads binary; the text form of every record into out. */
static int bin_to_text(struct prog_mem *bin, char *out, size_t len, char *err,
		       size_t errlen)
{
	struct prog_reader *r = malloc(sizeof(*r));
	struct prog_rec rec;
	size_t used;
	int ret;

	bin->pos = 0;
	used = snprintf(out, len, "mcmgpu-program 1\n");
	ret = prog_reader_init(r, prog_mem_read, bin);
	if (!ret)
		while ((ret = prog_read(r, &rec)) == 1)
			used += prog_text_format(&rec, out + used, len - used);
	if (ret < 0)
		snprintf(err, errlen, "byte %llu: %s: %s",
			 (unsigned long long)r->offset, r->err_field,
			 r->err_why);
	free(r);
	return ret;
}

TEST(text_binary_text_round_trip)
{
	struct prog_mem bin = { 0 };
	char err[512] = "", *out = malloc(1 << 16);

	ASSERT_EQ(0, text_to_bin(text_prog, &bin, err, sizeof(err)))
		TH_LOG("%s", err);
	ASSERT_EQ(0, memcmp(bin.bytes, PROG_MAGIC, PROG_MAGIC_LEN));
	ASSERT_EQ(0, bin_to_text(&bin, out, 1 << 16, err, sizeof(err)))
		TH_LOG("%s", err);
	EXPECT_STREQ(canonical(), out);
	free(out);
	free(bin.bytes);
}

TEST(fields_survive)
{
	struct prog_mem bin = { 0 };
	struct prog_reader *r = malloc(sizeof(*r));
	struct prog_rec rec;
	char err[512] = "";
	int n = 0;

	ASSERT_EQ(0, text_to_bin(text_prog, &bin, err, sizeof(err)));
	ASSERT_EQ(0, prog_reader_init(r, prog_mem_read, &bin));
	while (prog_read(r, &rec) == 1) {
		n++;
		if (rec.type == PROG_REC_KERNEL) {
			EXPECT_STREQ("saxpy(float*, int)", rec.kernel.name);
			EXPECT_EQ(48, rec.kernel.block[0]);
			EXPECT_EQ(256, rec.kernel.shmem);
			EXPECT_EQ(0x7e0000000000ULL, rec.kernel.shmem_base);
		}
		if (rec.type == PROG_REC_OBJECT && n == 2)
			EXPECT_STREQ("out buffer", rec.object.name);
		if (rec.type == PROG_REC_INST && rec.inst.pc == 0x30) {
			EXPECT_EQ(PROG_OP_MEMORY, rec.inst.op);
			EXPECT_EQ(PROG_SPACE_SHARED, rec.inst.space);
			EXPECT_EQ(PROG_KIND_ATOMIC, rec.inst.kind);
			EXPECT_EQ(0x7e0000000010ULL, rec.inst.addr[0]);
			EXPECT_EQ(0x7e0000000000ULL, rec.inst.addr[31]);
			EXPECT_EQ(0, rec.inst.addr[1]);
			EXPECT_EQ(0, rec.inst.ndst);
			EXPECT_EQ(4, rec.inst.src[0]);
		}
		if (rec.type == PROG_REC_INST && rec.inst.pc == 0x10) {
			EXPECT_EQ(0xffff, rec.inst.mask);
			EXPECT_EQ(2, rec.inst.nsrc);
			EXPECT_EQ(3, rec.inst.src[1]);
			EXPECT_STREQ("IADD3", rec.inst.opcode);
		}
	}
	EXPECT_EQ(14, n);
	EXPECT_EQ(0, prog_read(r, &rec));
	free(r);
	free(bin.bytes);
}

/* Replaces the line that starts with from (to "" deletes it). */
static char *edit(const char *from, const char *to)
{
	const char *at = strstr(text_prog, from), *nl;
	char *s = malloc(sizeof(text_prog) + strlen(to) + 1);

	if (!at)
		abort();
	nl = strchr(at, '\n') + 1;
	sprintf(s, "%.*s%s%s", (int)(at - text_prog), text_prog, to, nl);
	return s;
}

/*
 * prog_read_same() clears only what the last record set: every record
 * must still equal prog_read()'s (zeroed whole), long names included.
 */
TEST(read_same_equals_read)
{
	struct prog_mem a = { 0 }, b;
	struct prog_reader *r1 = malloc(sizeof(*r1)), *r2 = malloc(sizeof(*r2));
	struct prog_rec *x = malloc(sizeof(*x)), *y = malloc(sizeof(*y));
	char err[512] = "", *name = malloc(3001), *line = malloc(3200), *text;
	int n = 0, ret1, ret2;

	/* A kernel name of 3000 bytes before the instructions. */
	memset(name, 'k', 3000);
	name[3000] = 0;
	snprintf(line, 3200, "kernel 1 grid=2,1,1 block=48,1,1 shmem=256 nregs=16 binary=70 stream=0 shmem_base=0x7e0000000000 local_base=0x7d0000000000 name=%s\n",
		 name);
	text = edit("kernel 1", line);
	ASSERT_EQ(0, text_to_bin(text, &a, err, sizeof(err))) TH_LOG("%s", err);
	b = a;
	ASSERT_EQ(0, prog_reader_init(r1, prog_mem_read, &a));
	ASSERT_EQ(0, prog_reader_init(r2, prog_mem_read, &b));
	memset(y, 0xa5, sizeof(*y));	/* the first read clears it whole */
	do {
		ret1 = prog_read(r1, x);
		ret2 = prog_read_same(r2, y);
		ASSERT_EQ(ret1, ret2);
		if (ret1 == 1)
			ASSERT_EQ(0, memcmp(x, y, sizeof(*x))) TH_LOG("record %d", n);
		n++;
	} while (ret1 == 1);
	EXPECT_EQ(15, n);
	free(r1);
	free(r2);
	free(x);
	free(y);
	free(a.bytes);
	free(text);
	free(line);
	free(name);
}

static const struct bad_text {
	const char *from, *to, *msg;
} bad_texts[] = {
	{ "mcmgpu-program", "mcmgpu-program 2\n", "t.txt:1: version" },
	{ "mcmgpu-program", "hello\n", "t.txt:1: header" },
	{ "object 0x7f0000000000", "object 0x7f0000000000 0 A\n",
	  "t.txt:4: size: zero" },
	{ "object 0x7f0000000000", "object 0x7f0000000000 4096\n",
	  "t.txt:4: name: missing" },
	{ "copy h2d", "copy up 0x1 4\n", "t.txt:6: dir" },
	{ "kernel 1", "kernel 0 grid=2,1,1 block=48,1,1 shmem=256 nregs=16 binary=70 stream=0 shmem_base=0x0 local_base=0x0 name=k\n",
	  "t.txt:7: id" },
	{ "kernel 1", "kernel 1 grid=2,1 block=48,1,1 shmem=256 nregs=16 binary=70 stream=0 shmem_base=0x0 local_base=0x0 name=k\n",
	  "t.txt:7: grid: expected X,Y,Z" },
	{ "kernel 1", "kernel 1 grid=2,1,1 block=2048,1,1 shmem=256 nregs=16 binary=70 stream=0 shmem_base=0x0 local_base=0x0 name=k\n",
	  "t.txt:7: block: more than 1024" },
	{ "kernel 1", "kernel 1 grid=2,1,1 block=48,1,1 nregs=16 binary=70 stream=0 shmem_base=0x0 local_base=0x0 name=k\n",
	  "t.txt:7: shmem: missing" },
	{ "block 1,0,0", "block 2,0,0\n", "t.txt:8: block: x outside" },
	{ "warp 1", "warp 2 insts=3\n", "t.txt:9: warp: outside" },
	{ "warp 0", "warp 1 insts=0\n", "t.txt:13: warp: twice" },
	{ "warp 1", "warp 1 insts=4\n", "t.txt:13: warp: fewer instructions" },
	{ "warp 1", "warp 1 insts=2\n", "t.txt:12: inst: a block holds warps" },
	{ "0x10", "0x10 0xffff int IADD3 d=1 s=2,3 @ 0x1\n",
	  "t.txt:10: @: addresses on a non-memory" },
	{ "0x10", "0x10 0xffff alu IADD3 d=1 s=2,3\n",
	  "t.txt:10: class: unknown" },
	{ "0x10", "0x10 0xffff int IADD3 s=2,3\n", "t.txt:10: d: missing" },
	{ "0x10", "0x10 0x1ffffffff int IADD3 d=1 s=2\n",
	  "t.txt:10: mask: too large" },
	{ "0x20", "0x20 0x5 mem.global.load.4 LDG.E d=4 s=1 @ 0x1\n",
	  "t.txt:11: @: fewer addresses" },
	{ "0x20", "0x20 0x5 mem.global.load.4 LDG.E d=4 s=1 @ 0x1 0x2 0x3\n",
	  "t.txt:11: @: more addresses" },
	{ "0x20", "0x20 0x5 mem.global.load.0 LDG.E d=4 s=1 @ 0x1 0x2\n",
	  "t.txt:11: width" },
	{ "0x20", "0x20 0x5 mem.local.atomic.4 ATOML d=4 s=1 @ 0x1 0x2\n",
	  "t.txt:11: kind: not an access" },
	{ "0x20", "0x20 0x5 mem.heap.load.4 LDG.E d=4 s=1 @ 0x1 0x2\n",
	  "t.txt:11: space" },
	{ "0x20", "0x20 0x5 mem.global.load.4 LDG.E d=4 s=1 0x1 0x2\n",
	  "t.txt:11: @: a memory instruction needs" },
	{ "0x20", "0x20 0x5 mem.global.load.4 LDG.E d=4 s=1 @ 0x1 0xg\n",
	  "t.txt:11: @: not a number" },
	{ "end-kernel", "", "t.txt:15: copy: a kernel holds blocks" },
	{ "end\n", "", "t.txt:16: end: the program ends before" },
	{ "end-block", "end-block extra\n", "t.txt:14: line: extra fields" },
};

TEST(bad_text_is_refused_with_line_and_field)
{
	unsigned int i;

	for (i = 0; i < sizeof(bad_texts) / sizeof(bad_texts[0]); i++) {
		const struct bad_text *b = &bad_texts[i];
		char *s = edit(b->from, b->to), err[512] = "";
		struct prog_mem bin = { 0 };

		EXPECT_GT(0, text_to_bin(s, &bin, err, sizeof(err)))
			TH_LOG("case %u accepted", i);
		EXPECT_NE(NULL, strstr(err, b->msg))
			TH_LOG("case %u: '%s' lacks '%s'", i, err, b->msg);
		free(s);
		free(bin.bytes);
	}
}

TEST(binary_cut_or_changed_anywhere_never_crashes)
{
	struct prog_mem bin = { 0 }, cut;
	struct prog_reader *r = malloc(sizeof(*r));
	struct prog_rec rec;
	char err[512] = "";
	size_t i, j;
	int ret;

	ASSERT_EQ(0, text_to_bin(text_prog, &bin, err, sizeof(err)));
	for (i = 0; i < bin.len; i++) {
		cut = bin;
		cut.len = i;
		cut.pos = 0;
		ret = prog_reader_init(r, prog_mem_read, &cut);
		if (!ret)
			while ((ret = prog_read(r, &rec)) == 1)
				;
		EXPECT_GT(0, ret) TH_LOG("cut at %zu accepted", i);
		EXPECT_NE(NULL, r->err_field);
	}
	for (i = PROG_MAGIC_LEN + 1; i < bin.len; i++) {
		for (j = 0; j < 8; j++) {
			bin.bytes[i] ^= 1 << j;
			bin.pos = 0;
			ret = prog_reader_init(r, prog_mem_read, &bin);
			if (!ret)
				while ((ret = prog_read(r, &rec)) == 1)
					;
			if (ret < 0)
				EXPECT_NE(NULL, r->err_why);
			bin.bytes[i] ^= 1 << j;
		}
	}
	free(r);
	free(bin.bytes);
}

/* Every default mnemonic passes the grammar, for each class and access. */
TEST(default_opcodes)
{
	struct prog_inst in;
	unsigned int op, sp, k, w;
	static const unsigned int widths[] = { 1, 2, 4, 8, 16 };

	for (op = 0; op < PROG_OP_NR; op++) {
		memset(&in, 0, sizeof(in));
		in.op = op;
		if (op != PROG_OP_MEMORY)
			EXPECT_NE(0, strlen(prog_default_opcode(&in)));
	}
	/* The accesses each space has (the grammar's rule). */
	for (sp = 1; sp < PROG_SPACE_NR; sp++)
		for (k = 1; k < PROG_KIND_NR; k++)
			for (w = 0; w < 5; w++) {
				if ((sp == PROG_SPACE_SHARED &&
				     k == PROG_KIND_REDUCTION) ||
				    (sp == PROG_SPACE_LOCAL &&
				     k > PROG_KIND_STORE) ||
				    (sp > PROG_SPACE_LOCAL &&
				     k != PROG_KIND_LOAD))
					continue;
				memset(&in, 0, sizeof(in));
				in.op = PROG_OP_MEMORY;
				in.space = sp;
				in.kind = k;
				in.width = widths[w];
				EXPECT_NE(0, strcmp("NOP",
						    prog_default_opcode(&in)));
			}
	memset(&in, 0, sizeof(in));
	in.op = PROG_OP_MEMORY;
	in.space = PROG_SPACE_GLOBAL;
	in.kind = PROG_KIND_LOAD;
	in.width = 8;
	EXPECT_STREQ("LDG.E.64", prog_default_opcode(&in));
	in.kind = PROG_KIND_REDUCTION;
	EXPECT_STREQ("RED.E.ADD.64", prog_default_opcode(&in));
	in.space = PROG_SPACE_SHARED;
	in.kind = PROG_KIND_STORE;
	in.width = 1;
	EXPECT_STREQ("STS.U8", prog_default_opcode(&in));
}

/* A full warp's coalesced load takes about a byte an address. */
TEST(binary_is_compact)
{
	struct prog_writer *w = malloc(sizeof(*w));
	struct prog_mem bin = { 0 };
	struct prog_rec rec;
	size_t before;
	int i;

	prog_writer_init(w, prog_mem_write, &bin);
	memset(&rec, 0, sizeof(rec));
	rec.type = PROG_REC_KERNEL;
	rec.kernel.id = 1;
	strcpy(rec.kernel.name, "k");
	rec.kernel.grid[0] = rec.kernel.grid[1] = rec.kernel.grid[2] = 1;
	rec.kernel.block[0] = 32;
	rec.kernel.block[1] = rec.kernel.block[2] = 1;
	ASSERT_EQ(0, prog_write(w, &rec));
	memset(&rec, 0, sizeof(rec));
	rec.type = PROG_REC_BLOCK;
	ASSERT_EQ(0, prog_write(w, &rec));
	rec.type = PROG_REC_WARP;
	rec.warp.insts = 2;
	ASSERT_EQ(0, prog_write(w, &rec));
	ASSERT_EQ(0, prog_writer_flush(w));
	for (i = 0; i < 2; i++) {
		memset(&rec, 0, sizeof(rec));
		rec.type = PROG_REC_INST;
		rec.inst.pc = 0x100 + 16 * i;
		rec.inst.mask = 0xffffffff;
		rec.inst.op = PROG_OP_MEMORY;
		rec.inst.space = PROG_SPACE_GLOBAL;
		rec.inst.kind = PROG_KIND_LOAD;
		rec.inst.width = 4;
		strcpy(rec.inst.opcode, "LDG.E");
		for (int l = 0; l < 32; l++)
			rec.inst.addr[l] = 0x7f0000000000ULL + 4 * l;
		before = bin.len + w->used;
		ASSERT_EQ(0, prog_write(w, &rec));
	}
	/* the second: index, pc, mask, op, space, kind, width, 0, 0, 6+31 */
	EXPECT_GE(48, bin.len + w->used - before);
	free(w);
	free(bin.bytes);
}

/*
 * A record read back is zero past every string's end, whatever memory the
 * reader was given: records compare with memcmp (the fuzzer's rule).
 */
TEST(records_read_are_zero_padded)
{
	struct prog_reader *r = malloc(sizeof(*r));
	struct prog_mem bin = { 0 };
	struct prog_rec rec;
	char err[512] = "";
	size_t i, n;

	/* A mnemonic used twice: the second comes from the reader's table. */
	char *text = edit("0x30", "0x30 0x0000ffff int IADD3 d=1 s=2,3\n");

	ASSERT_EQ(0, text_to_bin(text, &bin, err, sizeof(err))) TH_LOG("%s", err);
	free(text);
	memset(r, 0xa5, sizeof(*r));
	ASSERT_EQ(0, prog_reader_init(r, prog_mem_read, &bin));
	while (prog_read(r, &rec) == 1) {
		if (rec.type != PROG_REC_INST)
			continue;
		n = strlen(rec.inst.opcode);
		for (i = n; i < PROG_OPCODE_MAX; i++)
			ASSERT_EQ(0, rec.inst.opcode[i])
				TH_LOG("%s: byte %zu", rec.inst.opcode, i);
	}
	free(r);
	free(bin.bytes);
}

/* A grammar inside a warp of many instructions, ready for INST records. */
static void grammar_in_warp(struct prog_grammar *g)
{
	struct prog_rec rec;

	prog_grammar_init(g);
	memset(&rec, 0, sizeof(rec));
	rec.type = PROG_REC_KERNEL;
	rec.kernel.id = 1;
	strcpy(rec.kernel.name, "k");
	rec.kernel.grid[0] = rec.kernel.grid[1] = rec.kernel.grid[2] = 1;
	rec.kernel.block[0] = 32;
	rec.kernel.block[1] = rec.kernel.block[2] = 1;
	prog_grammar_check(g, &rec);
	memset(&rec, 0, sizeof(rec));
	rec.type = PROG_REC_BLOCK;
	prog_grammar_check(g, &rec);
	rec.type = PROG_REC_WARP;
	rec.warp.insts = 1000000;
	prog_grammar_check(g, &rec);
}

/* The INST's field the grammar refuses it for, or "" if it takes it. */
static const char *inst_refused(const struct prog_grammar *in_warp,
				const struct prog_rec *rec)
{
	struct prog_grammar g = *in_warp;

	if (!prog_grammar_check(&g, rec))
		return "";
	return g.err_field ? g.err_field : "?";
}

/*
 * Unused register slots and the addresses of inactive lanes (of every
 * lane on a non-memory instruction) must be zero: each slot and lane on
 * its own is refused, whatever the counts and the mask.
 */
TEST(grammar_checks_every_slot_and_lane)
{
	static const u32 masks[] = {
		0xffffffff, 0, 1, 0x80000000, 0x0000ffff, 0xaaaaaaaa, 0x7ffffffe,
	};
	struct prog_grammar g;
	struct prog_rec rec, mem, alu;
	unsigned int n, i, m, l;

	grammar_in_warp(&g);
	memset(&alu, 0, sizeof(alu));
	alu.type = PROG_REC_INST;
	alu.inst.op = PROG_OP_INT;
	strcpy(alu.inst.opcode, "IADD3");
	mem = alu;
	mem.inst.op = PROG_OP_MEMORY;
	mem.inst.space = PROG_SPACE_GLOBAL;
	mem.inst.kind = PROG_KIND_LOAD;
	mem.inst.width = 4;
	strcpy(mem.inst.opcode, "LDG.E");
	EXPECT_STREQ("", inst_refused(&g, &alu));
	for (n = 0; n <= PROG_MAX_REGS; n++) {
		for (i = 0; i < PROG_MAX_REGS; i++) {
			rec = alu;
			rec.inst.ndst = rec.inst.nsrc = n;
			rec.inst.dst[i] = 7;
			EXPECT_STREQ(i < n ? "" : "d", inst_refused(&g, &rec))
				TH_LOG("ndst %u, slot %u", n, i);
			rec.inst.dst[i] = 0;
			rec.inst.src[i] = 0x8000;
			EXPECT_STREQ(i < n ? "" : "s", inst_refused(&g, &rec))
				TH_LOG("nsrc %u, slot %u", n, i);
		}
	}
	for (l = 0; l < PROG_WARP_SIZE; l++) {
		rec = alu;
		rec.inst.mask = 1u << l;
		rec.inst.addr[l] = 1;
		EXPECT_STREQ("@", inst_refused(&g, &rec)) TH_LOG("lane %u", l);
	}
	for (m = 0; m < sizeof(masks) / sizeof(masks[0]); m++) {
		for (l = 0; l < PROG_WARP_SIZE; l++) {
			rec = mem;
			rec.inst.mask = masks[m];
			rec.inst.addr[l] = 1ull << 63;
			EXPECT_STREQ(masks[m] >> l & 1 ? "" : "@",
				     inst_refused(&g, &rec))
				TH_LOG("mask %08x, lane %u", masks[m], l);
		}
	}
}

TEST_HARNESS_MAIN
