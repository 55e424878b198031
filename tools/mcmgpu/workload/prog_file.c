// SPDX-License-Identifier: GPL-2.0
/*
 * Program files in either encoding (prog_file.h). The text form, one
 * record a line ('#' comments and blank lines are skipped):
 *
 *   mcmgpu-program 1
 *   object BASE SIZE NAME
 *   copy h2d|d2h BASE BYTES
 *   kernel ID grid=X,Y,Z block=X,Y,Z shmem=N nregs=N binary=N stream=N
 *          shmem_base=ADDR local_base=ADDR name=NAME       (one line)
 *   block X,Y,Z
 *   warp ID insts=N
 *   PC MASK CLASS OPCODE d=R,.. s=R,.. [@ ADDR ...]
 *   end-block
 *   end-kernel
 *   end
 *
 * CLASS is int, fp, dp, sfu, tensor, branch, barrier or other, or for a
 * memory instruction mem.SPACE.KIND.WIDTH (mem.global.load.4); a memory
 * instruction lists one address for each active lane, lowest lane first.
 * Addresses, PCs and masks are written in hex (0x), other numbers in
 * decimal; either is read anywhere. Names run to the end of the line.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prog_file.h"

#define ERR_MAX		512
#define LINE_MAX_LEN	(64 + 2 * PROG_NAME_MAX + PROG_WARP_SIZE * 20 + \
			 2 * PROG_MAX_REGS * 7 + 64)

struct prog_in {
	FILE *f;
	char *path;
	bool text, own;
	/* binary */
	struct prog_reader *reader;
	u64 records;
	bool same;		/* prog_in_same_record() */
	/* text */
	struct prog_grammar grammar;
	u64 line;
	bool header_done, done;
	char *buf;		/* read buffer */
	size_t pos, len, cap;
	bool eof;
	char err[ERR_MAX];
};

struct prog_out {
	FILE *f;
	char *path;
	bool text, own, failed;
	struct prog_writer *writer;
	struct prog_grammar grammar;
	char err[ERR_MAX];
};

static void set_err(char *err, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void set_err(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (!err || !len)
		return;
	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
}

/* Input. */

static long file_read(void *ctx, void *buf, size_t len)
{
	struct prog_in *in = ctx;
	size_t n;

	/* The sniffed bytes first. */
	if (in->pos < in->len) {
		n = in->len - in->pos;
		if (n > len)
			n = len;
		memcpy(buf, in->buf + in->pos, n);
		in->pos += n;
		return (long)n;
	}
	n = fread(buf, 1, len, in->f);
	if (!n && ferror(in->f))
		return -EIO;
	return (long)n;
}

static struct prog_in *in_open(FILE *f, bool own, const char *path,
			       char *err, size_t errlen);

struct prog_in *prog_in_open(const char *path, char *err, size_t errlen)
{
	FILE *f;

	if (!strcmp(path, "-"))
		return in_open(stdin, false, path, err, errlen);
	f = fopen(path, "rb");
	if (!f) {
		set_err(err, errlen, "%s: %s", path, strerror(errno));
		return NULL;
	}
	return in_open(f, true, path, err, errlen) ?: (fclose(f), NULL);
}

struct prog_in *prog_in_fdopen(FILE *f, const char *name, char *err,
			       size_t errlen)
{
	return in_open(f, false, name, err, errlen);
}

static struct prog_in *in_open(FILE *f, bool own, const char *path,
			       char *err, size_t errlen)
{
	struct prog_in *in = calloc(1, sizeof(*in));
	int ret;

	if (!in) {
		set_err(err, errlen, "%s: out of memory", path);
		return NULL;
	}
	in->path = strdup(path);
	in->cap = 1 << 20;
	in->buf = malloc(in->cap);
	if (!in->path || !in->buf) {
		set_err(err, errlen, "%s: out of memory", path);
		goto fail;
	}
	in->f = f;
	in->own = own;
	in->len = fread(in->buf, 1, PROG_MAGIC_LEN, in->f);
	if (in->len == PROG_MAGIC_LEN &&
	    !memcmp(in->buf, PROG_MAGIC, PROG_MAGIC_LEN)) {
		in->reader = malloc(sizeof(*in->reader));
		if (!in->reader) {
			set_err(err, errlen, "%s: out of memory", path);
			goto fail;
		}
		ret = prog_reader_init(in->reader, file_read, in);
		if (ret) {
			set_err(err, errlen, "%s: %s: %s", path,
				in->reader->err_field, in->reader->err_why);
			goto fail;
		}
		return in;
	}
	in->text = true;
	prog_grammar_init(&in->grammar);
	return in;
fail:
	in->f = NULL;	/* the caller's */
	prog_in_close(in);
	return NULL;
}

void prog_in_close(struct prog_in *in)
{
	if (!in)
		return;
	if (in->own && in->f)
		fclose(in->f);
	free(in->reader);
	free(in->buf);
	free(in->path);
	free(in);
}

const char *prog_in_error(const struct prog_in *in)
{
	return in->err;
}

bool prog_in_is_text(const struct prog_in *in)
{
	return in->text;
}

/* The next line of the text form, NUL-terminated without its newline;
 * NULL at the end of the input or on an error (in->err set). */
static char *next_line(struct prog_in *in)
{
	char *nl, *line;
	size_t n;

	for (;;) {
		nl = memchr(in->buf + in->pos, '\n', in->len - in->pos);
		if (nl || (in->eof && in->pos < in->len)) {
			line = in->buf + in->pos;
			if (nl) {
				*nl = 0;
				in->pos = nl + 1 - in->buf;
			} else {
				in->buf[in->len] = 0;	/* len < cap */
				in->pos = in->len;
			}
			in->line++;
			return line;
		}
		if (in->eof)
			return NULL;
		/* Keep the partial line, read more after it. */
		memmove(in->buf, in->buf + in->pos, in->len - in->pos);
		in->len -= in->pos;
		in->pos = 0;
		if (in->len >= in->cap - 1) {
			snprintf(in->err, ERR_MAX, "%s:%llu: line: longer than %zu bytes",
				 in->path, (unsigned long long)in->line + 1,
				 in->cap - 1);
			return NULL;
		}
		n = fread(in->buf + in->len, 1, in->cap - 1 - in->len, in->f);
		if (!n) {
			if (ferror(in->f)) {
				snprintf(in->err, ERR_MAX, "%s: %s", in->path,
					 strerror(EIO));
				return NULL;
			}
			in->eof = true;
		}
		in->len += n;
	}
}

/* A text parser's cursor over one line. */
struct cursor {
	char *p;
	const char *field;	/* the field that failed */
	const char *why;
};

static void skip_blanks(struct cursor *c)
{
	while (*c->p == ' ' || *c->p == '\t' || *c->p == '\r')
		c->p++;
}

/* The next blank-separated word, NUL-terminated in place; NULL at the end. */
static char *word(struct cursor *c)
{
	char *w;

	skip_blanks(c);
	if (!*c->p)
		return NULL;
	w = c->p;
	while (*c->p && *c->p != ' ' && *c->p != '\t' && *c->p != '\r')
		c->p++;
	if (*c->p)
		*c->p++ = 0;
	return w;
}

static bool fail(struct cursor *c, const char *field, const char *why)
{
	c->field = field;
	c->why = why;
	return false;
}

/* A whole number in decimal or 0x hex, at most max. */
static bool parse_num(struct cursor *c, const char *s, const char *field,
		      u64 max, u64 *out)
{
	u64 v = 0, d;
	int base = 10;

	if (!s || !*s)
		return fail(c, field, "missing");
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
		if (!*s)
			return fail(c, field, "not a number");
	}
	for (; *s; s++) {
		if (*s >= '0' && *s <= '9')
			d = *s - '0';
		else if (base == 16 && *s >= 'a' && *s <= 'f')
			d = *s - 'a' + 10;
		else if (base == 16 && *s >= 'A' && *s <= 'F')
			d = *s - 'A' + 10;
		else
			return fail(c, field, "not a number");
		if (v > (UINT64_MAX - d) / base)
			return fail(c, field, "too large");
		v = v * base + d;
	}
	if (v > max)
		return fail(c, field, "too large");
	*out = v;
	return true;
}

static bool next_num(struct cursor *c, const char *field, u64 max, u64 *out)
{
	return parse_num(c, word(c), field, max, out);
}

/* KEY=VALUE as the next word; the value's start. */
static char *keyed(struct cursor *c, const char *key)
{
	char *w = word(c);
	size_t n = strlen(key);

	if (!w || strncmp(w, key, n) || w[n] != '=') {
		fail(c, key, "missing (expected KEY=VALUE in order)");
		return NULL;
	}
	return w + n + 1;
}

static bool keyed_num(struct cursor *c, const char *key, u64 max, u64 *out)
{
	char *v = keyed(c, key);

	return v && parse_num(c, v, key, max, out);
}

/* X,Y,Z into three u32s. */
static bool parse_dim3(struct cursor *c, char *s, const char *field,
		       u32 *out)
{
	char *part[3];
	u64 v;
	int i;

	if (!s)
		return fail(c, field, "missing");
	for (i = 0; i < 3; i++) {
		part[i] = s;
		s = strchr(s, ',');
		if (i < 2) {
			if (!s)
				return fail(c, field, "expected X,Y,Z");
			*s++ = 0;
		} else if (s) {
			return fail(c, field, "expected X,Y,Z");
		}
	}
	for (i = 0; i < 3; i++) {
		if (!parse_num(c, part[i], field, UINT32_MAX, &v))
			return false;
		out[i] = (u32)v;
	}
	return true;
}

/* The rest of the line as a name (leading and trailing blanks dropped). */
static bool rest_name(struct cursor *c, const char *field, char *out)
{
	size_t n;

	skip_blanks(c);
	n = strlen(c->p);
	while (n && (c->p[n - 1] == ' ' || c->p[n - 1] == '\t' ||
		     c->p[n - 1] == '\r'))
		n--;
	if (!n)
		return fail(c, field, "missing");
	if (n >= PROG_NAME_MAX)
		return fail(c, field, "longer than 511 characters");
	memcpy(out, c->p, n);
	out[n] = 0;
	c->p += strlen(c->p);
	return true;
}

/* d=R,R,... or s=...; an empty list is "d=". */
static bool parse_regs(struct cursor *c, const char *key, u8 *n, u16 *regs)
{
	char *v = keyed(c, key), *comma;
	u64 r;

	if (!v)
		return false;
	*n = 0;
	while (*v) {
		comma = strchr(v, ',');
		if (comma)
			*comma = 0;
		if (*n >= PROG_MAX_REGS)
			return fail(c, key, "more registers than 16");
		if (!parse_num(c, v, key, 0xffff, &r))
			return false;
		regs[(*n)++] = (u16)r;
		if (!comma)
			break;
		v = comma + 1;
		if (!*v)
			return fail(c, key, "empty register after ','");
	}
	return true;
}

static bool parse_class(struct cursor *c, char *s, struct prog_inst *in)
{
	char *space, *kind, *width;
	int v;
	u64 w;

	if (!s)
		return fail(c, "class", "missing");
	if (strncmp(s, "mem.", 4)) {
		v = prog_op_parse(s);
		if (v < 0 || v == PROG_OP_MEMORY)
			return fail(c, "class", "unknown instruction class");
		in->op = (u8)v;
		return true;
	}
	in->op = PROG_OP_MEMORY;
	space = s + 4;
	kind = strchr(space, '.');
	if (!kind)
		return fail(c, "class", "expected mem.SPACE.KIND.WIDTH");
	*kind++ = 0;
	width = strchr(kind, '.');
	if (!width)
		return fail(c, "class", "expected mem.SPACE.KIND.WIDTH");
	*width++ = 0;
	v = prog_space_parse(space);
	if (v <= 0)
		return fail(c, "space", "unknown memory space");
	in->space = (u8)v;
	v = prog_kind_parse(kind);
	if (v <= 0)
		return fail(c, "kind", "unknown access kind");
	in->kind = (u8)v;
	if (!parse_num(c, width, "width", PROG_MAX_WIDTH, &w))
		return false;
	in->width = (u16)w;
	return true;
}

static bool parse_inst(struct cursor *c, char *pc, struct prog_inst *in)
{
	char *w;
	u64 v;
	int i;

	if (!parse_num(c, pc, "pc", UINT64_MAX, &in->pc) ||
	    !next_num(c, "mask", UINT32_MAX, &v))
		return false;
	in->mask = (u32)v;
	if (!parse_class(c, word(c), in))
		return false;
	w = word(c);
	if (!w)
		return fail(c, "opcode", "missing");
	if (strlen(w) >= PROG_OPCODE_MAX)
		return fail(c, "opcode", "longer than 31 characters");
	strcpy(in->opcode, w);
	if (!parse_regs(c, "d", &in->ndst, in->dst) ||
	    !parse_regs(c, "s", &in->nsrc, in->src))
		return false;
	w = word(c);
	if (in->op != PROG_OP_MEMORY) {
		if (w)
			return fail(c, "@", "addresses on a non-memory instruction");
		return true;
	}
	if (!w || strcmp(w, "@"))
		return fail(c, "@", "a memory instruction needs '@' and its addresses");
	for (i = 0; i < PROG_WARP_SIZE; i++) {
		if (!(in->mask & (1U << i)))
			continue;
		w = word(c);
		if (!w)
			return fail(c, "@", "fewer addresses than active lanes");
		if (!parse_num(c, w, "@", UINT64_MAX, &in->addr[i]))
			return false;
	}
	if (word(c))
		return fail(c, "@", "more addresses than active lanes");
	return true;
}

static bool parse_line(struct cursor *c, struct prog_rec *rec)
{
	struct prog_kernel *k = &rec->kernel;
	char *w = word(c);
	u64 v;

	if (!strcmp(w, "object")) {
		rec->type = PROG_REC_OBJECT;
		return next_num(c, "base", UINT64_MAX, &rec->object.base) &&
		       next_num(c, "size", UINT64_MAX, &rec->object.size) &&
		       rest_name(c, "name", rec->object.name);
	}
	if (!strcmp(w, "copy")) {
		rec->type = PROG_REC_COPY;
		w = word(c);
		if (!w || (strcmp(w, "h2d") && strcmp(w, "d2h")))
			return fail(c, "dir", "not h2d or d2h");
		rec->copy.dir = !strcmp(w, "d2h") ? PROG_COPY_D2H : PROG_COPY_H2D;
		return next_num(c, "base", UINT64_MAX, &rec->copy.base) &&
		       next_num(c, "bytes", UINT64_MAX, &rec->copy.bytes);
	}
	if (!strcmp(w, "kernel")) {
		char *name;

		rec->type = PROG_REC_KERNEL;
		if (!next_num(c, "id", UINT32_MAX, &v))
			return false;
		k->id = (u32)v;
		if (!parse_dim3(c, keyed(c, "grid"), "grid", k->grid) ||
		    !parse_dim3(c, keyed(c, "block"), "block", k->block) ||
		    !keyed_num(c, "shmem", UINT32_MAX, &v))
			return false;
		k->shmem = (u32)v;
		if (!keyed_num(c, "nregs", UINT32_MAX, &v))
			return false;
		k->nregs = (u32)v;
		if (!keyed_num(c, "binary", UINT32_MAX, &v))
			return false;
		k->binary_version = (u32)v;
		if (!keyed_num(c, "stream", UINT64_MAX, &k->stream) ||
		    !keyed_num(c, "shmem_base", UINT64_MAX, &k->shmem_base) ||
		    !keyed_num(c, "local_base", UINT64_MAX, &k->local_base))
			return false;
		skip_blanks(c);
		if (strncmp(c->p, "name=", 5))
			return fail(c, "name", "missing (name=NAME ends the line)");
		c->p += 5;
		name = k->name;
		return rest_name(c, "name", name);
	}
	if (!strcmp(w, "block")) {
		u32 d[3];

		rec->type = PROG_REC_BLOCK;
		if (!parse_dim3(c, word(c), "block", d))
			return false;
		rec->block.x = d[0];
		rec->block.y = d[1];
		rec->block.z = d[2];
		return true;
	}
	if (!strcmp(w, "warp")) {
		rec->type = PROG_REC_WARP;
		if (!next_num(c, "warp", UINT32_MAX, &v))
			return false;
		rec->warp.id = (u32)v;
		if (!keyed_num(c, "insts", UINT32_MAX, &v))
			return false;
		rec->warp.insts = (u32)v;
		return true;
	}
	if (!strcmp(w, "end-block")) {
		rec->type = PROG_REC_BLOCK_END;
		return true;
	}
	if (!strcmp(w, "end-kernel")) {
		rec->type = PROG_REC_KERNEL_END;
		return true;
	}
	if (!strcmp(w, "end")) {
		rec->type = PROG_REC_END;
		return true;
	}
	if (w[0] >= '0' && w[0] <= '9') {
		rec->type = PROG_REC_INST;
		return parse_inst(c, w, &rec->inst);
	}
	return fail(c, "record", "unknown record");
}

static int text_next(struct prog_in *in, struct prog_rec *rec)
{
	struct cursor c = { 0 };
	char *line;

	for (;;) {
		line = next_line(in);
		if (!line) {
			if (in->err[0])
				return -EINVAL;
			if (!in->line)
				snprintf(in->err, ERR_MAX,
					 "%s: empty (not a program)", in->path);
			else
				snprintf(in->err, ERR_MAX,
					 "%s:%llu: end: the program ends before its end record",
					 in->path, (unsigned long long)in->line);
			return -EINVAL;
		}
		c.p = line;
		skip_blanks(&c);
		if (*c.p && *c.p != '#')
			break;
	}
	if (!in->header_done) {
		char *w1 = word(&c), *w2 = word(&c);

		in->header_done = true;
		if (!w1 || strcmp(w1, "mcmgpu-program")) {
			snprintf(in->err, ERR_MAX,
				 "%s:%llu: header: not a program (expected 'mcmgpu-program 1' or the binary form)",
				 in->path, (unsigned long long)in->line);
			return -EINVAL;
		}
		if (!w2 || strcmp(w2, "1") || word(&c)) {
			snprintf(in->err, ERR_MAX,
				 "%s:%llu: version: not version 1",
				 in->path, (unsigned long long)in->line);
			return -EPROTONOSUPPORT;
		}
		return text_next(in, rec);
	}
	memset(rec, 0, sizeof(*rec));
	if (parse_line(&c, rec) && word(&c))
		fail(&c, "line", "extra fields at the end");
	if (c.field) {
		snprintf(in->err, ERR_MAX, "%s:%llu: %s: %s", in->path,
			 (unsigned long long)in->line, c.field, c.why);
		return -EINVAL;
	}
	if (prog_grammar_check(&in->grammar, rec)) {
		snprintf(in->err, ERR_MAX, "%s:%llu: %s: %s", in->path,
			 (unsigned long long)in->line, in->grammar.err_field,
			 in->grammar.err_why);
		return -EINVAL;
	}
	return 1;
}

int prog_in_next(struct prog_in *in, struct prog_rec *rec)
{
	int ret;

	if (in->done)
		return 0;
	if (in->text) {
		ret = text_next(in, rec);
	} else {
		ret = in->same ? prog_read_same(in->reader, rec) :
				 prog_read(in->reader, rec);
		if (ret < 0)
			snprintf(in->err, ERR_MAX,
				 "%s: record %llu (byte %llu): %s: %s",
				 in->path,
				 (unsigned long long)in->records + 1,
				 (unsigned long long)in->reader->offset,
				 in->reader->err_field ?: "?",
				 in->reader->err_why ?: "?");
		else
			in->records++;
	}
	if (ret == 1 && rec->type == PROG_REC_END)
		in->done = true;
	return ret;
}

void prog_in_same_record(struct prog_in *in)
{
	in->same = true;
}

int prog_in_source(void *in, struct prog_rec *rec)
{
	return prog_in_next(in, rec);
}

/* Output. */

static int file_write(void *ctx, const void *buf, size_t len)
{
	struct prog_out *out = ctx;

	if (fwrite(buf, 1, len, out->f) != len)
		return -errno ?: -EIO;
	return 0;
}

struct prog_out *prog_out_open(const char *path, bool text, char *err,
			       size_t errlen)
{
	struct prog_out *out = calloc(1, sizeof(*out));

	if (!out || !(out->path = strdup(path))) {
		set_err(err, errlen, "%s: out of memory", path);
		free(out);
		return NULL;
	}
	out->text = text;
	if (!strcmp(path, "-")) {
		out->f = stdout;
	} else {
		out->f = fopen(path, "wb");
		out->own = true;
		if (!out->f) {
			set_err(err, errlen, "%s: %s", path, strerror(errno));
			free(out->path);
			free(out);
			return NULL;
		}
	}
	if (text) {
		prog_grammar_init(&out->grammar);
		fputs("mcmgpu-program 1\n", out->f);
		return out;
	}
	out->writer = malloc(sizeof(*out->writer));
	if (!out->writer) {
		set_err(err, errlen, "%s: out of memory", path);
		prog_out_close(out, NULL, 0);
		return NULL;
	}
	prog_writer_init(out->writer, file_write, out);
	return out;
}

static const char *class_text(const struct prog_inst *in, char *buf,
			      size_t len)
{
	if (in->op != PROG_OP_MEMORY)
		return prog_op_name(in->op) ?: "?";
	snprintf(buf, len, "mem.%s.%s.%u", prog_space_name(in->space) ?: "?",
		 prog_kind_name(in->kind) ?: "?", in->width);
	return buf;
}

static int put_regs(char *buf, size_t len, const char *key, u8 n,
		    const u16 *regs)
{
	int used = snprintf(buf, len, " %s=", key), i;

	for (i = 0; i < n && (size_t)used < len; i++)
		used += snprintf(buf + used, len - used, "%s%u", i ? "," : "",
				 regs[i]);
	return used;
}

int prog_text_format(const struct prog_rec *rec, char *buf, size_t len)
{
	const struct prog_kernel *k = &rec->kernel;
	const struct prog_inst *in = &rec->inst;
	char cls[64];
	int used, i;

	switch (rec->type) {
	case PROG_REC_OBJECT:
		return snprintf(buf, len, "object 0x%llx %llu %s\n",
				(unsigned long long)rec->object.base,
				(unsigned long long)rec->object.size,
				rec->object.name);
	case PROG_REC_COPY:
		return snprintf(buf, len, "copy %s 0x%llx %llu\n",
				rec->copy.dir == PROG_COPY_D2H ? "d2h" : "h2d",
				(unsigned long long)rec->copy.base,
				(unsigned long long)rec->copy.bytes);
	case PROG_REC_KERNEL:
		return snprintf(buf, len,
				"kernel %u grid=%u,%u,%u block=%u,%u,%u shmem=%u nregs=%u binary=%u stream=%llu shmem_base=0x%llx local_base=0x%llx name=%s\n",
				k->id, k->grid[0], k->grid[1], k->grid[2],
				k->block[0], k->block[1], k->block[2],
				k->shmem, k->nregs, k->binary_version,
				(unsigned long long)k->stream,
				(unsigned long long)k->shmem_base,
				(unsigned long long)k->local_base, k->name);
	case PROG_REC_BLOCK:
		return snprintf(buf, len, "block %u,%u,%u\n", rec->block.x,
				rec->block.y, rec->block.z);
	case PROG_REC_WARP:
		return snprintf(buf, len, "warp %u insts=%u\n", rec->warp.id,
				rec->warp.insts);
	case PROG_REC_INST:
		used = snprintf(buf, len, "0x%llx 0x%08x %s %s",
				(unsigned long long)in->pc, in->mask,
				class_text(in, cls, sizeof(cls)), in->opcode);
		if ((size_t)used < len)
			used += put_regs(buf + used, len - used, "d",
					 in->ndst, in->dst);
		if ((size_t)used < len)
			used += put_regs(buf + used, len - used, "s",
					 in->nsrc, in->src);
		if (in->op == PROG_OP_MEMORY && (size_t)used < len)
			used += snprintf(buf + used, len - used, " @");
		for (i = 0; in->op == PROG_OP_MEMORY && i < PROG_WARP_SIZE &&
		     (size_t)used < len; i++)
			if (in->mask & (1U << i))
				used += snprintf(buf + used, len - used,
						 " 0x%llx",
						 (unsigned long long)in->addr[i]);
		if ((size_t)used < len)
			used += snprintf(buf + used, len - used, "\n");
		return used;
	case PROG_REC_BLOCK_END:
		return snprintf(buf, len, "end-block\n");
	case PROG_REC_KERNEL_END:
		return snprintf(buf, len, "end-kernel\n");
	case PROG_REC_END:
		return snprintf(buf, len, "end\n");
	}
	return snprintf(buf, len, "# unknown record %u\n", rec->type);
}

int prog_out_write(struct prog_out *out, const struct prog_rec *rec)
{
	struct prog_grammar *g = out->text ? &out->grammar :
				 &out->writer->grammar;
	char line[LINE_MAX_LEN];
	int ret, n;

	if (out->text) {
		ret = prog_grammar_check(g, rec);
		if (!ret) {
			n = prog_text_format(rec, line, sizeof(line));
			if (fwrite(line, 1, n, out->f) != (size_t)n)
				ret = -EIO;
		}
	} else {
		ret = prog_write(out->writer, rec);
	}
	if (ret == -EINVAL || ret == -E2BIG)
		snprintf(out->err, ERR_MAX, "%s: record %llu (%s): %s: %s",
			 out->path, (unsigned long long)g->records + 1,
			 prog_rec_name(rec->type) ?: "?",
			 g->err_field ?: "?", g->err_why ?: "?");
	else if (ret)
		snprintf(out->err, ERR_MAX, "%s: %s", out->path,
			 strerror(-ret));
	if (ret)
		out->failed = true;
	return ret;
}

const char *prog_out_error(const struct prog_out *out)
{
	return out->err;
}

int prog_out_sink(void *out, const struct prog_rec *rec)
{
	return prog_out_write(out, rec);
}

int prog_out_close(struct prog_out *out, char *err, size_t errlen)
{
	const struct prog_grammar *g;
	int ret = 0;

	if (!out)
		return 0;
	g = out->text ? &out->grammar : &out->writer->grammar;
	if (out->failed) {
		set_err(err, errlen, "%s", out->err);
		ret = -EIO;
	} else if (!prog_grammar_done(g)) {
		set_err(err, errlen, "%s: incomplete: closed before its end record",
			out->path);
		ret = -EINVAL;
	}
	if (out->writer && prog_writer_flush(out->writer) && !ret) {
		set_err(err, errlen, "%s: %s", out->path, strerror(EIO));
		ret = -EIO;
	}
	if (fflush(out->f) && !ret) {
		set_err(err, errlen, "%s: %s", out->path, strerror(errno));
		ret = -errno;
	}
	if (out->own && fclose(out->f) && !ret) {
		set_err(err, errlen, "%s: %s", out->path, strerror(errno));
		ret = -errno;
	}
	free(out->writer);
	free(out->path);
	free(out);
	return ret;
}
