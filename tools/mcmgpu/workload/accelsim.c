// SPDX-License-Identifier: GPL-2.0
/*
 * Accel-Sim trace directories in and out of the program format: the
 * format, the rules for classes, generic addresses and objects are in
 * accelsim.h. The importer streams: each file is read in large blocks
 * and scanned line by line by hand (no sscanf), one record at a time;
 * only the objects (copy ranges and the touched pages of a first pass)
 * are kept in memory.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "accelsim.h"

extern char **environ;		/* xz's, as ours */

#define READ_CHUNK	(1u << 20)	/* bytes a read() asks for */
#define LINE_MAX_LEN	(1u << 20)	/* longer lines are refused */
#define BLOCK_SHIFT	8		/* 256 B: cudaMalloc's alignment */
#define PAGE_SHIFT_4K	12
#define RUN_GAP		(2ull << 20)	/* 2 MiB: cudaMalloc's chunk */
#define SHARED_WINDOW	(16ull << 20)	/* if the local window is not above */
#define LOCAL_WINDOW	(512ull << 10)	/* CUDA's local memory a thread */
#define MIN_TRACER	3
#define MAX_TRACER	5		/* later ones add fields to a line */
#define OPC_CACHE	1024		/* classified mnemonics kept */

/* ---------------------------------------------------------------------
 * The classifier: the mnemonic's part before the first '.'.
 */
struct sass_class {
	const char *name;
	u8 op, space, kind, generic;
};

#define C(n, o)		{ n, PROG_OP_##o, PROG_SPACE_NONE, PROG_KIND_NONE, 0 }
#define M(n, s, k)	{ n, PROG_OP_MEMORY, PROG_SPACE_##s, PROG_KIND_##k, 0 }
#define G(n, k)		{ n, PROG_OP_MEMORY, PROG_SPACE_GLOBAL, PROG_KIND_##k, 1 }

/*
 * SASS of Kepler to Hopper (NVIDIA's CUDA binary utilities list, and
 * Accel-Sim's ISA_Def tables for the groups). Sorted by name (strcmp):
 * the table is searched by bisection.
 */
static const struct sass_class sass_classes[] = {
	C("ARRIVES", BARRIER),
	G("ATOM", ATOMIC),
	M("ATOMG", GLOBAL, ATOMIC),
	M("ATOMS", SHARED, ATOMIC),
	C("B2R", INT),
	C("BAR", BARRIER),
	C("BFE", INT),
	C("BFI", INT),
	C("BGMMA", TENSOR),
	C("BMMA", TENSOR),
	C("BMOV", OTHER),
	C("BMSK", INT),
	C("BPT", OTHER),
	C("BRA", BRANCH),
	C("BREAK", BRANCH),
	C("BREV", INT),
	C("BRK", BRANCH),
	C("BRX", BRANCH),
	C("BRXU", BRANCH),
	C("BSSY", BRANCH),
	C("BSYNC", BRANCH),
	C("CAL", BRANCH),
	C("CALL", BRANCH),
	C("CCTL", OTHER),
	C("CCTLL", OTHER),
	C("CCTLT", OTHER),
	C("CGAERRBAR", OTHER),
	C("CONT", BRANCH),
	C("CS2R", OTHER),
	C("CSET", INT),
	C("CSETP", INT),
	C("CSMTEST", OTHER),
	C("DADD", DP),
	C("DEPBAR", OTHER),
	C("DFMA", DP),
	C("DMMA", TENSOR),
	C("DMNMX", DP),
	C("DMUL", DP),
	C("DSET", DP),
	C("DSETP", DP),
	C("ELECT", INT),
	C("ERRBAR", OTHER),
	C("EXIT", BRANCH),
	C("F2F", FP),
	C("F2FP", FP),
	C("F2I", INT),
	C("F2IP", INT),
	C("FADD", FP),
	C("FADD32I", FP),
	C("FCHK", FP),
	C("FCMP", FP),
	C("FENCE", OTHER),
	C("FFMA", FP),
	C("FFMA32I", FP),
	C("FLO", INT),
	C("FMNMX", FP),
	C("FMUL", FP),
	C("FMUL32I", FP),
	C("FRND", FP),
	C("FSEL", FP),
	C("FSET", FP),
	C("FSETP", FP),
	C("FSWZADD", FP),
	C("GETLMEMBASE", OTHER),
	C("HADD2", FP),
	C("HADD2_32I", FP),
	C("HFMA2", FP),
	C("HFMA2_32I", FP),
	C("HGMMA", TENSOR),
	C("HMMA", TENSOR),
	C("HMNMX2", FP),
	C("HMUL2", FP),
	C("HMUL2_32I", FP),
	C("HSET2", FP),
	C("HSETP2", FP),
	C("I2F", FP),
	C("I2FP", FP),
	C("I2I", INT),
	C("I2IP", INT),
	C("IABS", INT),
	C("IADD", INT),
	C("IADD3", INT),
	C("IADD32I", INT),
	C("ICMP", INT),
	C("IDP", INT),
	C("IDP4A", INT),
	C("IGMMA", TENSOR),
	C("IMAD", INT),
	C("IMADSP", INT),
	C("IMMA", TENSOR),
	C("IMNMX", INT),
	C("IMUL", INT),
	C("IMUL32I", INT),
	C("ISCADD", INT),
	C("ISCADD32I", INT),
	C("ISET", INT),
	C("ISETP", INT),
	C("JCAL", BRANCH),
	C("JMP", BRANCH),
	C("JMX", BRANCH),
	C("JMXU", BRANCH),
	C("KILL", BRANCH),
	G("LD", LOAD),
	M("LDC", CONST, LOAD),
	M("LDG", GLOBAL, LOAD),
	C("LDGDEPBAR", OTHER),
	M("LDGSTS", GLOBAL, LOAD),
	M("LDL", LOCAL, LOAD),
	M("LDS", SHARED, LOAD),
	M("LDSM", SHARED, LOAD),
	G("LDU", LOAD),
	C("LEA", INT),
	C("LEPC", OTHER),
	C("LOP", INT),
	C("LOP3", INT),
	C("LOP32I", INT),
	C("MATCH", INT),
	C("MEMBAR", OTHER),
	C("MOV", INT),
	C("MOV32I", INT),
	C("MOVM", INT),
	C("MUFU", SFU),
	C("NANOSLEEP", OTHER),
	C("NOP", OTHER),
	C("P2R", INT),
	C("PBK", BRANCH),
	C("PCNT", BRANCH),
	C("PEXIT", BRANCH),
	C("PLOP3", INT),
	C("PMTRIG", OTHER),
	C("POPC", INT),
	C("PRET", BRANCH),
	C("PRMT", INT),
	C("PSET", INT),
	C("PSETP", INT),
	C("QGMMA", TENSOR),
	C("QSPC", INT),
	C("R2B", OTHER),
	C("R2P", INT),
	C("R2UR", INT),
	M("RED", GLOBAL, REDUCTION),
	M("REDG", GLOBAL, REDUCTION),	/* Hopper on: RED's global form */
	C("REDUX", INT),
	C("RET", BRANCH),
	C("RPCMOV", OTHER),
	C("RRO", FP),
	C("RTT", BRANCH),
	C("S2R", OTHER),
	C("S2UR", OTHER),
	C("SEL", INT),
	C("SETCTAID", OTHER),
	C("SETLMEMBASE", OTHER),
	C("SGXT", INT),
	C("SHF", INT),
	C("SHFL", INT),
	C("SHL", INT),
	C("SHR", INT),
	C("SSY", BRANCH),
	G("ST", STORE),
	M("STG", GLOBAL, STORE),
	M("STL", LOCAL, STORE),
	M("STS", SHARED, STORE),
	M("STSM", SHARED, STORE),
	C("SUATOM", OTHER),
	M("SULD", TEXTURE, LOAD),
	C("SUQUERY", OTHER),
	C("SURED", OTHER),
	C("SUST", OTHER),
	C("SYNC", BRANCH),
	C("SYNCS", BARRIER),
	M("TEX", TEXTURE, LOAD),
	M("TEXS", TEXTURE, LOAD),
	M("TLD", TEXTURE, LOAD),
	M("TLD4", TEXTURE, LOAD),
	M("TLD4S", TEXTURE, LOAD),
	M("TLDS", TEXTURE, LOAD),
	C("TMML", OTHER),
	M("TXD", TEXTURE, LOAD),
	C("TXQ", OTHER),
	C("UCGABAR_ARV", BARRIER),
	C("UCGABAR_WAIT", BARRIER),
	M("ULDC", CONST, LOAD),
	C("UP2UR", INT),
	C("UR2UP", INT),
	C("VABSDIFF", INT),
	C("VABSDIFF4", INT),
	C("VADD", INT),
	C("VIADD", INT),
	C("VIADDMNMX", INT),
	C("VIMNMX", INT),
	C("VIMNMX3", INT),
	C("VMNMX", INT),
	C("VOTE", INT),
	C("VOTEU", INT),
	C("VOTE_VTG", INT),
	C("WARPSYNC", BARRIER),
	C("XMAD", INT),
	C("YIELD", OTHER),
};

#undef C
#undef M
#undef G

static const struct sass_class *sass_find(const char *base, size_t len)
{
	size_t lo = 0, hi = sizeof(sass_classes) / sizeof(sass_classes[0]);

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		const char *n = sass_classes[mid].name;
		int c = strncmp(n, base, len);

		if (!c)
			c = n[len] ? 1 : 0;
		if (!c)
			return &sass_classes[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

int accelsim_classify(const char *opcode, struct prog_inst *in)
{
	const struct sass_class *cls;
	size_t len, base;

	len = strnlen(opcode, PROG_OPCODE_MAX);
	if (!len || len >= PROG_OPCODE_MAX)
		return -EINVAL;
	for (base = 0; base < len && opcode[base] != '.'; base++)
		;
	cls = sass_find(opcode, base);
	/*
	 * The uniform datapath (Turing on) repeats integer ALU names with a
	 * 'U' in front: UIADD3, UMOV, ULOP3, USHF, ...
	 */
	if (!cls && base > 1 && opcode[0] == 'U') {
		cls = sass_find(opcode + 1, base - 1);
		if (cls && cls->op != PROG_OP_INT)
			cls = NULL;
	}
	if (!cls) {
		in->op = PROG_OP_OTHER;
		in->space = PROG_SPACE_NONE;
		in->kind = PROG_KIND_NONE;
		return 0;
	}
	in->op = cls->op;
	in->space = cls->space;
	in->kind = cls->kind;
	return cls->generic;
}

/* The generic window an address falls in (accelsim.h states the rule). */
static u8 resolve_generic(const struct prog_kernel *k, u64 a)
{
	if (k->shmem_base && k->local_base) {
		u64 shared_end = k->local_base > k->shmem_base ?
				 k->local_base : k->shmem_base + SHARED_WINDOW;

		if (a >= k->shmem_base && a < shared_end)
			return PROG_SPACE_SHARED;
		if (a >= k->local_base && a - k->local_base < LOCAL_WINDOW)
			return PROG_SPACE_LOCAL;
	}
	return PROG_SPACE_GLOBAL;
}

static u64 first_lane_addr(const struct prog_inst *in)
{
	return in->mask ? in->addr[__builtin_ctz(in->mask)] : 0;
}

/*
 * What the importer makes of a mnemonic with or without addresses: the
 * export checks a record against the same function, so both agree.
 */
static void class_of(const struct prog_kernel *k, bool has_addr,
		     struct prog_inst *in, int generic)
{
	if (in->op == PROG_OP_MEMORY && !has_addr) {
		in->op = PROG_OP_OTHER;
		in->space = PROG_SPACE_NONE;
		in->kind = PROG_KIND_NONE;
	} else if (generic > 0 && in->op == PROG_OP_MEMORY) {
		in->space = resolve_generic(k, first_lane_addr(in));
	}
}

/* ---------------------------------------------------------------------
 * Input: a file read in large blocks, or a buffer; one line at a time.
 */
struct in_file {
	char path[4096];		/* for messages */
	int fd;				/* -1: in memory */
	pid_t xz;			/* the decompressor fd reads, or 0 */
	const char *mem;
	size_t memlen;
	char *buf;
	size_t cap, pos, len;
	bool eof;
	unsigned long long line;	/* of the line last returned */
};

struct imp;
static int imp_fail(struct imp *im, const struct in_file *f,
		    const char *field, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/*
 * Reaps the decompressor: 0 if it ended well, else a negative errno with
 * the message in err. Stopped early (an error in the text), it is killed
 * first and its end is no error.
 */
static int xz_reap(struct in_file *f, bool kill_it, char *err, size_t errlen)
{
	int status = 0;
	pid_t r;

	if (f->xz <= 0)
		return 0;
	if (kill_it)
		kill(f->xz, SIGKILL);
	do {
		r = waitpid(f->xz, &status, 0);
	} while (r < 0 && errno == EINTR);
	f->xz = 0;
	if (kill_it || (r > 0 && WIFEXITED(status) && !WEXITSTATUS(status)))
		return 0;
	if (r > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 127) {
		snprintf(err, errlen, "%s: cannot run xz to decompress it (is xz installed?)",
			 f->path);
		return -ENOENT;
	}
	snprintf(err, errlen, "%s: xz -dc failed (status %d): not xz data, or corrupt or truncated",
		 f->path, r > 0 && WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	return -EINVAL;
}

static void in_close(struct in_file *f)
{
	if (f->fd >= 0)
		close(f->fd);
	f->fd = -1;
	xz_reap(f, true, NULL, 0);
	free(f->buf);
	f->buf = NULL;
}

/*
 * The next line without its end (\n or \r\n) in *s, *e: 1, 0 at the end,
 * or a negative errno with the message in err.
 */
static int in_getline(struct in_file *f, const char **s, const char **e,
		      char *err, size_t errlen)
{
	const char *p, *nl;

	if (f->fd < 0) {
		if (f->pos >= f->memlen)
			return 0;
		p = f->mem + f->pos;
		nl = memchr(p, '\n', f->memlen - f->pos);
		if (!nl)
			nl = f->mem + f->memlen;
		f->pos = nl - f->mem + 1;
		goto found;
	}
	for (;;) {
		ssize_t n;

		p = f->buf + f->pos;
		nl = memchr(p, '\n', f->len - f->pos);
		if (nl) {
			f->pos = nl - f->buf + 1;
			goto found;
		}
		if (f->eof) {
			if (f->pos == f->len)
				return 0;
			nl = f->buf + f->len;
			f->pos = f->len;
			goto found;
		}
		if (f->len - f->pos > LINE_MAX_LEN) {
			snprintf(err, errlen, "%s:%llu: line: longer than %u bytes",
				 f->path, f->line + 1, LINE_MAX_LEN);
			return -EINVAL;
		}
		/* Keep the partial line, make room for a block. */
		memmove(f->buf, f->buf + f->pos, f->len - f->pos);
		f->len -= f->pos;
		f->pos = 0;
		if (f->cap - f->len < READ_CHUNK) {
			size_t cap = f->len + READ_CHUNK;
			char *nb = realloc(f->buf, cap);

			if (!nb) {
				snprintf(err, errlen, "%s: out of memory", f->path);
				return -ENOMEM;
			}
			f->buf = nb;
			f->cap = cap;
		}
		do {
			n = read(f->fd, f->buf + f->len, f->cap - f->len);
		} while (n < 0 && errno == EINTR);
		if (n < 0) {
			int e2 = errno;

			snprintf(err, errlen, "%s: %s", f->path, strerror(e2));
			return -e2;
		}
		if (!n) {
			int ret = xz_reap(f, false, err, errlen);

			if (ret)
				return ret;
			f->eof = true;
		}
		f->len += n;
	}
found:
	f->line++;
	if (nl > p && nl[-1] == '\r')
		nl--;
	*s = p;
	*e = nl;
	return 1;
}

/* ---------------------------------------------------------------------
 * Tokens and numbers.
 */
struct span {
	const char *p, *end;
};

/* Each byte's class: a hex digit's value plus one, a blank, or 0. */
#define CH_BLANK	0x40

static const u8 ch_class[256] = {
	[' '] = CH_BLANK, ['\t'] = CH_BLANK, ['\r'] = CH_BLANK,
	['\v'] = CH_BLANK, ['\f'] = CH_BLANK,
	['0'] = 1, ['1'] = 2, ['2'] = 3, ['3'] = 4, ['4'] = 5,
	['5'] = 6, ['6'] = 7, ['7'] = 8, ['8'] = 9, ['9'] = 10,
	['a'] = 11, ['b'] = 12, ['c'] = 13, ['d'] = 14, ['e'] = 15, ['f'] = 16,
	['A'] = 11, ['B'] = 12, ['C'] = 13, ['D'] = 14, ['E'] = 15, ['F'] = 16,
};

static inline unsigned int hex_digit(char c)
{
	return ch_class[(unsigned char)c] - 1u;	/* above 15 if not one */
}

static inline bool is_blank(char c)
{
	return ch_class[(unsigned char)c] == CH_BLANK;
}

static inline bool next_tok(struct span *c, struct span *t)
{
	const char *p = c->p;

	while (p < c->end && is_blank(*p))
		p++;
	if (p == c->end) {
		c->p = p;
		return false;
	}
	t->p = p;
	while (p < c->end && !is_blank(*p))
		p++;
	t->end = p;
	c->p = p;
	return true;
}

static void trim(struct span *s)
{
	while (s->p < s->end && is_blank(*s->p))
		s->p++;
	while (s->end > s->p && is_blank(s->end[-1]))
		s->end--;
}

static bool tok_is(const struct span *t, const char *word)
{
	size_t n = strlen(word);

	return (size_t)(t->end - t->p) == n && !memcmp(t->p, word, n);
}

/* Hex with an optional 0x, at most 16 digits. */
static bool parse_hex(const struct span *t, u64 *v)
{
	const char *p = t->p;
	u64 x = 0;

	if (t->end - p > 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
		p += 2;
	if (p == t->end)
		return false;
	for (; p < t->end; p++) {
		unsigned int d = hex_digit(*p);

		if (d > 15 || x >> 60)
			return false;	/* not hex, or more than 64 bits */
		x = x << 4 | d;
	}
	*v = x;
	return true;
}

static bool parse_udec(const struct span *t, u64 *v)
{
	const char *p = t->p;
	u64 x = 0;

	if (p == t->end)
		return false;
	for (; p < t->end; p++) {
		unsigned int d = (unsigned char)*p - '0';

		if (d > 9 || __builtin_mul_overflow(x, 10, &x) ||
		    __builtin_add_overflow(x, d, &x))
			return false;
	}
	*v = x;
	return true;
}

/*
 * The scanners of instruction lines: the next token of c parsed as it is
 * read (one pass over its bytes, not one to find its end and another to
 * parse it), the same numbers accepted as by parse_hex() and parse_udec()
 * of the token; signed decimals (the tracer's %lld) kept as their two's
 * complement. 1 with the token in *t and the cursor after
 * it, 0 if no token is left, -1 with the whole token in *t (for the
 * message) if it is not a number of that kind.
 */
static int scan_fail(struct span *c, const char *start, struct span *t)
{
	const char *p = start;

	while (p < c->end && !is_blank(*p))
		p++;
	t->p = start;
	t->end = p;
	c->p = p;
	return -1;
}

static inline int scan_done(struct span *c, const char *start,
			    const char *digits, const char *p, struct span *t)
{
	if (p == digits || (p < c->end && !is_blank(*p)))
		return scan_fail(c, start, t);
	t->p = start;
	t->end = p;
	c->p = p;
	return 1;
}

static inline const char *skip_blanks(const char *p, const char *end)
{
	while (p < end && is_blank(*p))
		p++;
	return p;
}

static int scan_hex(struct span *c, struct span *t, u64 *v)
{
	const char *end = c->end, *p = skip_blanks(c->p, end);
	const char *start = p, *digits;
	u64 x = 0;

	if (p == end) {
		c->p = p;
		return 0;
	}
	/* 0x only before a digit, as parse_hex() of a token longer than 2 */
	if (end - p > 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X') &&
	    !is_blank(p[2]))
		p += 2;
	digits = p;
	for (; p < end; p++) {
		unsigned int d = hex_digit(*p);

		if (d > 15)
			break;
		if (x >> 60)
			return scan_fail(c, start, t);	/* over 64 bits */
		x = x << 4 | d;
	}
	*v = x;
	return scan_done(c, start, digits, p, t);
}

static int scan_udec(struct span *c, struct span *t, u64 *v)
{
	const char *end = c->end, *p = skip_blanks(c->p, end);
	const char *start = p;
	u64 x = 0;

	if (p == end) {
		c->p = p;
		return 0;
	}
	for (; p < end; p++) {
		unsigned int d = (unsigned char)*p - '0';

		if (d > 9)
			break;
		if (__builtin_mul_overflow(x, 10, &x) ||
		    __builtin_add_overflow(x, d, &x))
			return scan_fail(c, start, t);
	}
	*v = x;
	return scan_done(c, start, start, p, t);
}

static int scan_sdec(struct span *c, struct span *t, u64 *v)
{
	const char *end = c->end, *p = skip_blanks(c->p, end);
	const char *start = p, *digits;
	bool neg = false;
	u64 x = 0;
	int ret;

	if (p == end) {
		c->p = p;
		return 0;
	}
	if (*p == '-' || *p == '+') {
		neg = *p == '-';
		p++;
	}
	digits = p;
	for (; p < end; p++) {
		unsigned int d = (unsigned char)*p - '0';

		if (d > 9)
			break;
		if (__builtin_mul_overflow(x, 10, &x) ||
		    __builtin_add_overflow(x, d, &x))
			return scan_fail(c, start, t);
	}
	ret = scan_done(c, start, digits, p, t);
	if (ret < 0)
		return ret;
	if (x > (neg ? 1ull << 63 : (1ull << 63) - 1))
		return scan_fail(c, start, t);
	*v = neg ? -x : x;
	return 1;
}

/* Decimal, or hex with 0x. */
static bool parse_num(const struct span *t, u64 *v)
{
	if (t->end - t->p > 2 && t->p[0] == '0' &&
	    (t->p[1] == 'x' || t->p[1] == 'X'))
		return parse_hex(t, v);
	return parse_udec(t, v);
}

static bool parse_u32(const struct span *t, u32 *v)
{
	u64 x;

	if (!parse_num(t, &x) || x > UINT32_MAX)
		return false;
	*v = x;
	return true;
}

/* "(x,y,z)" or "x,y,z", blanks allowed around the numbers. */
static bool parse_dim3(struct span s, bool parens, u32 out[3])
{
	int i;

	trim(&s);
	if (parens) {
		if (s.end - s.p < 2 || *s.p != '(' || s.end[-1] != ')')
			return false;
		s.p++;
		s.end--;
	}
	for (i = 0; i < 3; i++) {
		const char *comma = s.p;
		struct span n;

		while (comma < s.end && *comma != ',')
			comma++;
		if ((i < 2) != (comma < s.end))
			return false;
		n.p = s.p;
		n.end = comma;
		trim(&n);
		if (!parse_u32(&n, &out[i]))
			return false;
		s.p = comma + 1;
	}
	return true;
}

/* Up to 60 characters of a token, printable, for messages. */
static const char *show(const struct span *t, char *buf, size_t len)
{
	size_t n = t->end - t->p, i;

	if (n > 60)
		n = 60;
	if (n >= len)
		n = len - 1;
	for (i = 0; i < n; i++) {
		unsigned char c = t->p[i];

		buf[i] = c >= 0x20 && c < 0x7f ? c : '?';
	}
	buf[n] = '\0';
	return buf;
}

/* ---------------------------------------------------------------------
 * The importer.
 */
struct range {
	u64 base, end;			/* [base, end) */
};

struct side_obj {
	u64 base, size, pos;
	char name[PROG_NAME_MAX];
};

struct page_ent {
	u64 page;			/* address >> 12, plus one: 0 empty */
	u32 blocks;			/* bit b: block b of 16 touched */
};

struct opc_ent {
	char name[PROG_OPCODE_MAX];
	u8 len;				/* 0: empty */
	u8 op, space, kind;
	s8 generic;			/* accelsim_classify()'s answer */
};

struct kstate {
	unsigned int version;
	bool lineinfo;
	bool seen_name, seen_id, seen_grid, seen_block;
};

enum pass {
	PASS_COPIES,	/* kernelslist.g's copies, for the objects */
	PASS_TOUCH,	/* the kernels' global addresses, for the objects */
	PASS_CHECK,	/* the records checked, given to no one */
	PASS_EMIT,	/* the records */
};

struct imp {
	enum pass pass;
	const char *dir;
	const struct accelsim_mem_file *files;
	size_t nfiles;
	prog_sink_fn sink;
	void *ctx;
	char *err;
	size_t errlen;
	struct prog_grammar g;
	struct prog_rec rec;
	struct prog_kernel kernel;	/* of the kernel being read */
	struct kstate ks;
	/* copies, sorted and merged */
	struct range *copied;
	size_t ncopied, capcopied;
	/* objects from the sidecar, or computed */
	struct side_obj *objs;
	size_t nobjs, capobjs, next_obj;
	bool sidecar;
	/* touched 256 B blocks outside copied objects, by 4 KiB page */
	struct page_ent *pages;
	size_t npages, cappages;
	struct page_ent *last_page;
	size_t copied_hint;
	u64 entries;			/* kernelslist.g entries so far */
	u32 launches;
	bool addr_dirty;		/* rec.inst.addr written since zeroed */
	struct opc_ent *opc;
};

static int imp_fail(struct imp *im, const struct in_file *f,
		    const char *field, const char *fmt, ...)
{
	char why[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	snprintf(im->err, im->errlen, "%s:%llu: %s: %s", f->path, f->line,
		 field, why);
	return -EINVAL;
}

static bool has_xz_suffix(const char *name)
{
	size_t n = strlen(name);

	return n > 3 && !strcmp(name + n - 3, ".xz");
}

/*
 * Replaces f->fd, the compressed file, by a pipe from "xz -dc" reading it
 * (Accel-Sim reads .xz traces the same way): the text streams through, and
 * xz's end is checked when the pipe ends (in_getline()). posix_spawn, not
 * fork: the importer may hold much memory by then.
 */
static int xz_spawn(struct in_file *f)
{
	static char *const argv[] = { "xz", "-dc", NULL };
	posix_spawn_file_actions_t fa;
	int p[2], ret;
	pid_t pid;

	if (pipe(p))
		return -errno;
	fcntl(p[0], F_SETFD, FD_CLOEXEC);
	fcntl(p[1], F_SETFD, FD_CLOEXEC);
	ret = posix_spawn_file_actions_init(&fa);
	if (!ret)
		ret = posix_spawn_file_actions_adddup2(&fa, f->fd, STDIN_FILENO);
	if (!ret)
		ret = posix_spawn_file_actions_adddup2(&fa, p[1], STDOUT_FILENO);
	/* xz's own message would be a second one: ours names the file. */
	if (!ret)
		ret = posix_spawn_file_actions_addopen(&fa, STDERR_FILENO,
						       "/dev/null", O_WRONLY, 0);
	if (!ret)
		ret = posix_spawnp(&pid, "xz", &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(p[1]);
	if (ret) {
		close(p[0]);
		return -ret;
	}
	close(f->fd);
	f->fd = p[0];
	f->xz = pid;
	return 0;
}

/* Whether the directory (or the files in memory) holds name. */
static bool has_file(const struct imp *im, const char *name)
{
	char path[4096];
	struct stat st;
	size_t i;

	if (!im->dir) {
		for (i = 0; i < im->nfiles; i++)
			if (!strcmp(im->files[i].name, name))
				return true;
		return false;
	}
	snprintf(path, sizeof(path), "%s/%s", im->dir, name);
	return !stat(path, &st);
}

/* kernel-N.trace[.xz]: the tracer's output before post-processing. */
static bool is_raw_trace(const char *name)
{
	size_t n = strlen(name);

	if (has_xz_suffix(name))
		n -= 3;
	return n >= 6 && !memcmp(name + n - 6, ".trace", 6);
}

static int imp_open(struct imp *im, struct in_file *f, const char *name,
		    bool optional)
{
	memset(f, 0, sizeof(*f));
	f->fd = -1;
	if (!im->dir) {
		size_t i;

		snprintf(f->path, sizeof(f->path), "%s", name);
		for (i = 0; i < im->nfiles; i++) {
			if (!strcmp(im->files[i].name, name)) {
				f->mem = im->files[i].data;
				f->memlen = im->files[i].len;
				return 0;
			}
		}
		if (!optional)
			snprintf(im->err, im->errlen, "%s: %s", name,
				 strerror(ENOENT));
		return -ENOENT;
	}
	snprintf(f->path, sizeof(f->path), "%s/%s", im->dir, name);
	f->fd = open(f->path, O_RDONLY | O_CLOEXEC);
	if (f->fd < 0) {
		int e = errno;

		if (!optional || e != ENOENT)
			snprintf(im->err, im->errlen, "%s: %s", f->path,
				 strerror(e));
		return -e;
	}
#ifdef POSIX_FADV_SEQUENTIAL
	posix_fadvise(f->fd, 0, 0, POSIX_FADV_SEQUENTIAL);
#endif
	if (has_xz_suffix(name)) {
		int ret = xz_spawn(f);

		if (ret) {
			close(f->fd);
			f->fd = -1;
			snprintf(im->err, im->errlen, "%s: cannot run xz to decompress it: %s",
				 f->path, strerror(-ret));
			return ret;
		}
	}
	f->buf = malloc(READ_CHUNK);
	if (!f->buf) {
		close(f->fd);
		f->fd = -1;
		snprintf(im->err, im->errlen, "%s: out of memory", f->path);
		return -ENOMEM;
	}
	f->cap = READ_CHUNK;
	return 0;
}

/* Checks a record against the grammar and gives it to the sink. */
static int emit(struct imp *im, const struct in_file *f, u32 type)
{
	int ret;

	/*
	 * Every other record shares the union with inst.addr (a kernel's
	 * or an object's name reaches into it): the next instruction must
	 * zero the addresses, not trust them to be zero.
	 */
	if (type != PROG_REC_INST)
		im->addr_dirty = true;
	if (im->pass < PASS_CHECK)
		return 0;
	im->rec.type = type;
	if (prog_grammar_check(&im->g, &im->rec))
		return imp_fail(im, f, im->g.err_field ? im->g.err_field : "record",
				"%s", im->g.err_why ? im->g.err_why : "refused");
	if (im->pass != PASS_EMIT)
		return 0;
	ret = im->sink(im->ctx, &im->rec);
	if (ret < 0) {
		snprintf(im->err, im->errlen, "%s:%llu: %s: the program sink failed: %s",
			 f->path, f->line, prog_rec_name(type) ?
			 prog_rec_name(type) : "record", strerror(-ret));
		return ret;
	}
	return 0;
}

/* --- objects ---------------------------------------------------------- */

static int add_copied(struct imp *im, u64 base, u64 bytes)
{
	if (!bytes)
		return 0;
	if (im->ncopied == im->capcopied) {
		size_t cap = im->capcopied ? 2 * im->capcopied : 64;
		struct range *r = realloc(im->copied, cap * sizeof(*r));

		if (!r)
			return -ENOMEM;
		im->copied = r;
		im->capcopied = cap;
	}
	im->copied[im->ncopied].base = base;
	/* A copy running past the end of the address space stops there. */
	im->copied[im->ncopied].end = base + bytes < base ? UINT64_MAX :
				      base + bytes;
	im->ncopied++;
	return 0;
}

static int cmp_range(const void *a, const void *b)
{
	const struct range *x = a, *y = b;

	if (x->base != y->base)
		return x->base < y->base ? -1 : 1;
	return (x->end > y->end) - (x->end < y->end);
}

/* Sorts the copy ranges and merges overlapping or adjacent ones. */
static void merge_copied(struct imp *im)
{
	size_t i, n = 0;

	if (!im->ncopied)
		return;
	qsort(im->copied, im->ncopied, sizeof(*im->copied), cmp_range);
	for (i = 1; i < im->ncopied; i++) {
		struct range *cur = &im->copied[n];

		if (im->copied[i].base <= cur->end) {
			if (im->copied[i].end > cur->end)
				cur->end = im->copied[i].end;
		} else {
			im->copied[++n] = im->copied[i];
		}
	}
	im->ncopied = n + 1;
}

/* The first copied range whose end is above a, or ncopied. */
static size_t copied_after(const struct imp *im, u64 a)
{
	size_t lo = 0, hi = im->ncopied;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (im->copied[mid].end <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static bool in_copied(struct imp *im, u64 a)
{
	size_t i = im->copied_hint;

	if (i < im->ncopied && a >= im->copied[i].base && a < im->copied[i].end)
		return true;
	i = copied_after(im, a);
	if (i < im->ncopied && a >= im->copied[i].base) {
		im->copied_hint = i;
		return true;
	}
	return false;
}

static inline size_t page_hash(u64 key, size_t cap)
{
	return (size_t)((key * 0x9e3779b97f4a7c15ull) >> 17) & (cap - 1);
}

static int pages_grow(struct imp *im)
{
	size_t cap = im->cappages ? 2 * im->cappages : 4096, i;
	struct page_ent *t = calloc(cap, sizeof(*t));

	if (!t)
		return -ENOMEM;
	for (i = 0; i < im->cappages; i++) {
		struct page_ent *e = &im->pages[i];
		size_t h;

		if (!e->page)
			continue;
		for (h = page_hash(e->page, cap); t[h].page; h = (h + 1) & (cap - 1))
			;
		t[h] = *e;
	}
	free(im->pages);
	im->pages = t;
	im->cappages = cap;
	im->last_page = NULL;
	return 0;
}

static int touch_block(struct imp *im, u64 block)
{
	u64 key = (block >> 4) + 1;
	struct page_ent *e = im->last_page;
	size_t h;

	if (e && e->page == key) {
		e->blocks |= 1u << (block & 15);
		return 0;
	}
	if ((im->npages + 1) * 2 > im->cappages) {
		int ret = pages_grow(im);

		if (ret)
			return ret;
	}
	for (h = page_hash(key, im->cappages); im->pages[h].page;
	     h = (h + 1) & (im->cappages - 1)) {
		if (im->pages[h].page == key)
			goto hit;
	}
	im->pages[h].page = key;
	im->npages++;
hit:
	e = &im->pages[h];
	e->blocks |= 1u << (block & 15);
	im->last_page = e;
	return 0;
}

/* A lane's global access in the first pass. */
static int touch(struct imp *im, u64 a, u32 width)
{
	u64 last = a + width - 1 < a ? UINT64_MAX : a + width - 1;
	u64 b;
	int ret;

	if (in_copied(im, a))
		return 0;
	for (b = a >> BLOCK_SHIFT; b <= last >> BLOCK_SHIFT; b++) {
		ret = touch_block(im, b);
		if (ret)
			return ret;
		if (b == UINT64_MAX >> BLOCK_SHIFT)
			break;
	}
	return 0;
}

static int add_obj(struct imp *im, u64 base, u64 size, u64 pos,
		   const char *name)
{
	struct side_obj *o;

	if (im->nobjs == im->capobjs) {
		size_t cap = im->capobjs ? 2 * im->capobjs : 16;
		struct side_obj *t = realloc(im->objs, cap * sizeof(*t));

		if (!t)
			return -ENOMEM;
		im->objs = t;
		im->capobjs = cap;
	}
	o = &im->objs[im->nobjs++];
	memset(o, 0, sizeof(*o));	/* names are compared whole */
	o->base = base;
	o->size = size;
	o->pos = pos;
	snprintf(o->name, sizeof(o->name), "%s", name);
	return 0;
}

static int cmp_page(const void *a, const void *b)
{
	const struct page_ent *x = a, *y = b;

	return (x->page > y->page) - (x->page < y->page);
}

static int cmp_obj(const void *a, const void *b)
{
	const struct side_obj *x = a, *y = b;

	return (x->base > y->base) - (x->base < y->base);
}

/* [lo, hi) minus the copied ranges: the inferred objects of one run. */
static int flush_run(struct imp *im, u64 lo, u64 hi, unsigned int *count)
{
	size_t i = copied_after(im, lo);
	char name[32];
	int ret;

	while (lo < hi) {
		u64 end = hi;

		if (i < im->ncopied && im->copied[i].base < hi) {
			if (im->copied[i].base <= lo) {
				lo = im->copied[i].end;
				i++;
				continue;
			}
			end = im->copied[i].base;
		}
		snprintf(name, sizeof(name), "inferred_%u", (*count)++);
		ret = add_obj(im, lo, end - lo, 0, name);
		if (ret)
			return ret;
		lo = end;
	}
	return 0;
}

/* The objects: the copied ranges, and runs of the touched blocks. */
static int infer_objects(struct imp *im)
{
	unsigned int inferred = 0;
	bool run = false;
	u64 lo = 0, hi = 0;
	size_t i, n = 0;
	char name[32];
	int ret;

	for (i = 0; i < im->ncopied; i++) {
		snprintf(name, sizeof(name), "copied_%zu", i);
		ret = add_obj(im, im->copied[i].base,
			      im->copied[i].end - im->copied[i].base, 0, name);
		if (ret)
			return ret;
	}
	/* Compact the table's entries and sort them by page. */
	for (i = 0; i < im->cappages; i++)
		if (im->pages[i].page)
			im->pages[n++] = im->pages[i];
	if (n)
		qsort(im->pages, n, sizeof(*im->pages), cmp_page);
	for (i = 0; i < n; i++) {
		u64 page = im->pages[i].page - 1;
		u32 blocks = im->pages[i].blocks;

		while (blocks) {
			unsigned int bit = __builtin_ctz(blocks);
			u64 b = (page << 4 | bit) << BLOCK_SHIFT;
			u64 e = b + (1u << BLOCK_SHIFT);
			size_t c;

			blocks &= blocks - 1;
			if (e < b)
				e = UINT64_MAX;
			if (run) {
				c = copied_after(im, hi);
				if (b - hi < RUN_GAP &&
				    !(c < im->ncopied && im->copied[c].base < b)) {
					hi = e;
					continue;
				}
				ret = flush_run(im, lo, hi, &inferred);
				if (ret)
					return ret;
			}
			run = true;
			lo = b;
			hi = e;
		}
	}
	if (run) {
		ret = flush_run(im, lo, hi, &inferred);
		if (ret)
			return ret;
	}
	if (im->nobjs)
		qsort(im->objs, im->nobjs, sizeof(*im->objs), cmp_obj);
	return 0;
}

/* Emits the objects placed before kernelslist.g entry im->entries. */
static int emit_objects(struct imp *im, const struct in_file *f)
{
	while (im->next_obj < im->nobjs &&
	       im->objs[im->next_obj].pos <= im->entries) {
		const struct side_obj *o = &im->objs[im->next_obj++];
		int ret;

		memset(&im->rec.object, 0, sizeof(im->rec.object));
		im->rec.object.base = o->base;
		im->rec.object.size = o->size;
		memcpy(im->rec.object.name, o->name, sizeof(o->name));
		ret = emit(im, f, PROG_REC_OBJECT);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * The sidecar: "object BASE SIZE NAME" lines (NAME the rest of the line,
 * as in the text form) and "at N" lines placing the objects that follow
 * after kernelslist.g's first N entries. 1 if there is none.
 */
static int read_sidecar(struct imp *im)
{
	struct in_file f;
	const char *s, *e;
	char buf[64], nm[PROG_NAME_MAX];
	u64 pos = 0;
	int ret;

	ret = imp_open(im, &f, ACCELSIM_OBJECTS, true);
	if (ret == -ENOENT)
		return 1;
	if (ret)
		return ret;
	while ((ret = in_getline(&f, &s, &e, im->err, im->errlen)) > 0) {
		struct span c = { s, e }, t;
		u64 base, size, at;

		if (!next_tok(&c, &t) || *t.p == '#')
			continue;
		if (tok_is(&t, "at")) {
			if (!next_tok(&c, &t) || !parse_udec(&t, &at)) {
				ret = imp_fail(im, &f, "at", "missing or not a number");
				break;
			}
			if (at < pos) {
				ret = imp_fail(im, &f, "at", "%llu comes after %llu",
					       (unsigned long long)at,
					       (unsigned long long)pos);
				break;
			}
			if (next_tok(&c, &t)) {
				ret = imp_fail(im, &f, "at", "'%s' after the number",
					       show(&t, buf, sizeof(buf)));
				break;
			}
			pos = at;
			continue;
		}
		if (!tok_is(&t, "object")) {
			ret = imp_fail(im, &f, "object",
				       "'%s' is not an object or at line",
				       show(&t, buf, sizeof(buf)));
			break;
		}
		if (!next_tok(&c, &t) || !parse_num(&t, &base)) {
			ret = imp_fail(im, &f, "base", "missing or not a number");
			break;
		}
		if (!next_tok(&c, &t) || !parse_num(&t, &size)) {
			ret = imp_fail(im, &f, "size", "missing or not a number");
			break;
		}
		trim(&c);
		if (c.p == c.end) {
			ret = imp_fail(im, &f, "name", "missing");
			break;
		}
		if (c.end - c.p >= PROG_NAME_MAX) {
			ret = imp_fail(im, &f, "name", "longer than %d bytes",
				       PROG_NAME_MAX - 1);
			break;
		}
		if (memchr(c.p, '\0', c.end - c.p)) {
			ret = imp_fail(im, &f, "name", "a NUL byte");
			break;
		}
		memcpy(nm, c.p, c.end - c.p);
		nm[c.end - c.p] = '\0';
		ret = add_obj(im, base, size, pos, nm);
		if (ret) {
			snprintf(im->err, im->errlen, "%s: out of memory", f.path);
			break;
		}
	}
	in_close(&f);
	im->sidecar = true;
	return ret;
}

/* --- kernel traces ---------------------------------------------------- */

static const struct opc_ent *classify_cached(struct imp *im,
					     const struct span *t)
{
	size_t n = t->end - t->p;
	u32 h = 2166136261u;
	struct prog_inst cls;
	size_t i, slot;
	struct opc_ent *e;

	for (i = 0; i < n; i++)
		h = (h ^ (unsigned char)t->p[i]) * 16777619u;
	for (i = 0; i < 8; i++) {
		slot = (h + i) & (OPC_CACHE - 1);
		e = &im->opc[slot];
		if (!e->len)
			break;
		if (e->len == n && !memcmp(e->name, t->p, n))
			return e;
	}
	if (i == 8)
		slot = h & (OPC_CACHE - 1);	/* replace */
	e = &im->opc[slot];
	memcpy(e->name, t->p, n);
	e->name[n] = '\0';
	e->len = n;
	memset(&cls, 0, sizeof(cls));
	e->generic = accelsim_classify(e->name, &cls);
	e->op = cls.op;
	e->space = cls.space;
	e->kind = cls.kind;
	return e;
}

/*
 * Rn (n below 65536, at most 5 digits) or RZ, which the tracer writes as
 * R255: scanned as scan_hex() is, 0 if no token is left, -1 if it is
 * not one.
 */
static int scan_reg(struct span *c, struct span *t, u16 *r)
{
	const char *end = c->end, *p = skip_blanks(c->p, end);
	const char *start = p, *digits;
	u32 v = 0;

	if (p == end) {
		c->p = p;
		return 0;
	}
	if (*p++ != 'R')
		return scan_fail(c, start, t);
	if (p < end && *p == 'Z') {
		*r = 255;
		return scan_done(c, start, p, p + 1, t);
	}
	for (digits = p; p < end; p++) {
		unsigned int d = (unsigned char)*p - '0';

		if (d > 9)
			break;
		if (p - digits == 5)
			return scan_fail(c, start, t);
		v = v * 10 + d;
	}
	if (v > UINT16_MAX)
		return scan_fail(c, start, t);
	*r = v;
	return scan_done(c, start, digits, p, t);
}

/* The addresses of the active lanes in one of the three compressions. */
static int parse_addrs(struct imp *im, const struct in_file *f, struct span *c,
		       u32 mask, u64 *addr)
{
	u32 active = mask;
	struct span t;
	char buf[64];
	u64 mode, base;
	unsigned int i;
	int ret;

	ret = scan_udec(c, &t, &mode);
	if (!ret)
		return imp_fail(im, f, "address_mode", "missing (truncated line)");
	if (ret < 0 || mode > 2)
		return imp_fail(im, f, "address_mode",
				"unknown compression '%s' (0, 1 or 2)",
				show(&t, buf, sizeof(buf)));
	if (mode == 0) {
		while (active) {
			unsigned int lane = __builtin_ctz(active);

			active &= active - 1;
			ret = scan_hex(c, &t, &addr[lane]);
			if (!ret)
				return imp_fail(im, f, "address",
						"lane %u has no address (mask %08x)",
						lane, mask);
			if (ret < 0)
				return imp_fail(im, f, "address", "'%s' is not hex",
						show(&t, buf, sizeof(buf)));
		}
		return 0;
	}
	ret = scan_hex(c, &t, &base);
	if (!ret)
		return imp_fail(im, f, "address", "the base address is missing");
	if (ret < 0)
		return imp_fail(im, f, "address", "'%s' is not hex",
				show(&t, buf, sizeof(buf)));
	if (mode == 1) {
		u64 stride, lanes = active ? active >> __builtin_ctz(active) : 0;

		ret = scan_sdec(c, &t, &stride);
		if (!ret)
			return imp_fail(im, f, "stride", "missing (truncated line)");
		if (ret < 0)
			return imp_fail(im, f, "stride", "'%s' is not a decimal number",
					show(&t, buf, sizeof(buf)));
		/* The tracer's rule: a run of lanes from the first active. */
		if (lanes & (lanes + 1))
			return imp_fail(im, f, "address",
					"stride compression needs contiguous active lanes, mask %08x",
					mask);
		for (i = 0; active; i++) {
			unsigned int lane = __builtin_ctz(active);

			active &= active - 1;
			addr[lane] = base + i * stride;
		}
		return 0;
	}
	/* Mode 2: each further active lane's delta from the one before. */
	if (active) {
		addr[__builtin_ctz(active)] = base;
		active &= active - 1;
	}
	while (active) {
		unsigned int lane = __builtin_ctz(active);
		u64 delta;

		active &= active - 1;
		ret = scan_sdec(c, &t, &delta);
		if (!ret)
			return imp_fail(im, f, "delta", "lane %u has no delta (mask %08x)",
					lane, mask);
		if (ret < 0)
			return imp_fail(im, f, "delta", "'%s' is not a decimal number",
					show(&t, buf, sizeof(buf)));
		base += delta;
		addr[lane] = base;
	}
	return 0;
}

/* A count of registers, then the registers. */
static int parse_regs(struct imp *im, const struct in_file *f, struct span *c,
		      const char *count_field, const char *field, u8 *n,
		      u16 *regs, bool light)
{
	struct span t;
	char buf[64];
	unsigned int i;
	int ret;
	u64 v;

	ret = scan_udec(c, &t, &v);
	if (!ret)
		return imp_fail(im, f, count_field, "missing (truncated line)");
	if (ret < 0)
		return imp_fail(im, f, count_field, "'%s' is not a number",
				show(&t, buf, sizeof(buf)));
	if (v > PROG_MAX_REGS)
		return imp_fail(im, f, count_field, "%llu is more than %d",
				(unsigned long long)v, PROG_MAX_REGS);
	*n = v;
	for (i = 0; i < v; i++) {
		ret = light ? next_tok(c, &t) : scan_reg(c, &t, &regs[i]);
		if (!ret)
			return imp_fail(im, f, field, "register %u of %u missing",
					i + 1, *n);
		if (ret < 0)
			return imp_fail(im, f, field, "'%s' is not a register",
					show(&t, buf, sizeof(buf)));
	}
	return 0;
}

/*
 * An instruction line into im->rec.inst. The first pass (light) reads
 * only what the objects need: the global addresses.
 */
static int parse_inst(struct imp *im, const struct in_file *f,
		      const char *s, const char *e)
{
	bool light = im->pass == PASS_TOUCH;
	struct prog_inst *in = &im->rec.inst;
	struct span c = { s, e }, t;
	const struct opc_ent *cls;
	u32 width, active;
	char buf[64];
	u64 v;
	int ret;

	/* Zero as a reader would; the addresses only when written. */
	memset(in, 0, offsetof(struct prog_inst, addr));
	if (im->addr_dirty) {
		memset(in->addr, 0, sizeof(in->addr));
		im->addr_dirty = false;
	}
	if (im->ks.lineinfo) {
		if (scan_udec(&c, &t, &v) <= 0)
			return imp_fail(im, f, "line_num", "missing or not a number");
	}
	ret = scan_hex(&c, &t, &in->pc);
	if (!ret)
		return imp_fail(im, f, "pc", "missing");
	if (ret < 0)
		return imp_fail(im, f, "pc", "'%s' is not hex",
				show(&t, buf, sizeof(buf)));
	ret = scan_hex(&c, &t, &v);
	if (!ret)
		return imp_fail(im, f, "mask", "missing (truncated line)");
	if (ret < 0)
		return imp_fail(im, f, "mask", "'%s' is not hex",
				show(&t, buf, sizeof(buf)));
	if (v > UINT32_MAX)
		return imp_fail(im, f, "mask", "%s is wider than 32 lanes",
				show(&t, buf, sizeof(buf)));
	in->mask = v;
	ret = parse_regs(im, f, &c, "dest_num", "dest", &in->ndst, in->dst,
			 light);
	if (ret)
		return ret;
	if (!next_tok(&c, &t))
		return imp_fail(im, f, "opcode", "missing (truncated line)");
	if (t.end - t.p >= PROG_OPCODE_MAX)
		return imp_fail(im, f, "opcode", "'%s' is longer than %d characters",
				show(&t, buf, sizeof(buf)), PROG_OPCODE_MAX - 1);
	if (memchr(t.p, '\0', t.end - t.p))
		return imp_fail(im, f, "opcode", "a NUL byte");
	memcpy(in->opcode, t.p, t.end - t.p);
	cls = classify_cached(im, &t);
	/* Only global (or generic) accesses make objects. */
	if (light && (cls->op != PROG_OP_MEMORY ||
		      (cls->space != PROG_SPACE_GLOBAL && cls->generic <= 0)))
		return 0;
	ret = parse_regs(im, f, &c, "src_num", "src", &in->nsrc, in->src, light);
	if (ret)
		return ret;
	ret = scan_udec(&c, &t, &v);
	if (!ret)
		return imp_fail(im, f, "mem_width", "missing (truncated line)");
	if (ret < 0)
		return imp_fail(im, f, "mem_width", "'%s' is not a number",
				show(&t, buf, sizeof(buf)));
	if (v > PROG_MAX_WIDTH)
		return imp_fail(im, f, "mem_width", "%llu is more than %d bytes",
				(unsigned long long)v, PROG_MAX_WIDTH);
	width = v;
	if (width) {
		im->addr_dirty = true;
		ret = parse_addrs(im, f, &c, in->mask, in->addr);
		if (ret)
			return ret;
	}
	in->op = cls->op;
	in->space = cls->space;
	in->kind = cls->kind;
	class_of(&im->kernel, width > 0, in, cls->generic);
	if (light) {
		if (in->op != PROG_OP_MEMORY || in->space != PROG_SPACE_GLOBAL)
			return 0;
		for (active = in->mask; active; active &= active - 1) {
			ret = touch(im, in->addr[__builtin_ctz(active)], width);
			if (ret) {
				snprintf(im->err, im->errlen, "%s: out of memory",
					 f->path);
				return ret;
			}
		}
		return 0;
	}
	/* Tracer 5's immediate, then nothing. */
	if (scan_sdec(&c, &t, &v) < 0)
		return imp_fail(im, f, "immediate", "'%s' is not a decimal number",
				show(&t, buf, sizeof(buf)));
	if (next_tok(&c, &t))
		return imp_fail(im, f, "line", "'%s' after the end of the instruction",
				show(&t, buf, sizeof(buf)));
	if (in->op == PROG_OP_MEMORY)
		in->width = width;
	else if (width)
		memset(in->addr, 0, sizeof(in->addr));	/* dropped */
	return 0;
}

/*
 * parse_inst(), and when the header names no tracer version (Accel-Sim
 * then reads the lines as a tracer's before 3, block ids first), a hint
 * that the trace may be one of those.
 */
static int parse_inst_hint(struct imp *im, const struct in_file *f,
			   const char *s, const char *e)
{
	int ret = parse_inst(im, f, s, e);
	size_t n;

	if (ret != -EINVAL || im->ks.version)
		return ret;
	n = strlen(im->err);
	snprintf(im->err + n, im->errlen - n,
		 " (no -accelsim tracer version in the header: a trace before version 3, block ids on every line, is not supported)");
	return ret;
}

/* A "-key = value" header line. */
static int parse_header(struct imp *im, const struct in_file *f,
			const char *s, const char *e)
{
	struct prog_kernel *k = &im->kernel;
	struct span key = { s + 1, e }, val;
	const char *eq = memchr(s, '=', e - s);
	u64 v;

	if (!eq)
		return imp_fail(im, f, "header", "'-key = value' expected");
	key.end = eq;
	val.p = eq + 1;
	val.end = e;
	trim(&key);
	trim(&val);
	if (tok_is(&key, "kernel name")) {
		if (val.p == val.end)
			return imp_fail(im, f, "-kernel name", "empty");
		if (memchr(val.p, '\0', val.end - val.p))
			return imp_fail(im, f, "-kernel name", "a NUL byte");
		/*
		 * Mangled template names (CUTLASS, CuTe) can run past what
		 * the program keeps: the name only labels the kernel, so it
		 * is cut rather than the trace refused.
		 */
		if (val.end - val.p >= PROG_NAME_MAX)
			val.end = val.p + PROG_NAME_MAX - 1;
		/* A second name replaces the first, all of it. */
		memset(k->name, 0, sizeof(k->name));
		memcpy(k->name, val.p, val.end - val.p);
		k->name[val.end - val.p] = '\0';
		im->ks.seen_name = true;
	} else if (tok_is(&key, "kernel id")) {
		if (!parse_u32(&val, &k->id))
			return imp_fail(im, f, "-kernel id", "not a number");
		im->ks.seen_id = true;
	} else if (tok_is(&key, "grid dim")) {
		if (!parse_dim3(val, true, k->grid))
			return imp_fail(im, f, "-grid dim", "(x,y,z) expected");
		im->ks.seen_grid = true;
	} else if (tok_is(&key, "block dim")) {
		if (!parse_dim3(val, true, k->block))
			return imp_fail(im, f, "-block dim", "(x,y,z) expected");
		im->ks.seen_block = true;
	} else if (tok_is(&key, "shmem")) {
		if (!parse_u32(&val, &k->shmem))
			return imp_fail(im, f, "-shmem", "not a 32-bit number");
	} else if (tok_is(&key, "nregs")) {
		if (!parse_u32(&val, &k->nregs))
			return imp_fail(im, f, "-nregs", "not a 32-bit number");
	} else if (tok_is(&key, "binary version")) {
		if (!parse_u32(&val, &k->binary_version))
			return imp_fail(im, f, "-binary version", "not a 32-bit number");
	} else if (tok_is(&key, "cuda stream id")) {
		if (!parse_num(&val, &k->stream))
			return imp_fail(im, f, "-cuda stream id", "not a number");
	} else if (tok_is(&key, "shmem base_addr")) {
		if (!parse_hex(&val, &k->shmem_base))
			return imp_fail(im, f, "-shmem base_addr", "not hex");
	} else if (tok_is(&key, "local mem base_addr")) {
		if (!parse_hex(&val, &k->local_base))
			return imp_fail(im, f, "-local mem base_addr", "not hex");
	} else if (tok_is(&key, "accelsim tracer version")) {
		if (!parse_udec(&val, &v) || v > UINT32_MAX)
			return imp_fail(im, f, "-accelsim tracer version",
					"not a number");
		if (v < MIN_TRACER)
			return imp_fail(im, f, "-accelsim tracer version",
					"%llu is before %d (block ids on every line): not supported",
					(unsigned long long)v, MIN_TRACER);
		if (v > MAX_TRACER)
			return imp_fail(im, f, "-accelsim tracer version",
					"%llu is after %d (lines with fields this importer does not know): not supported",
					(unsigned long long)v, MAX_TRACER);
		im->ks.version = v;
	} else if (tok_is(&key, "enable lineinfo")) {
		if (!parse_udec(&val, &v) || v > 1)
			return imp_fail(im, f, "-enable lineinfo", "0 or 1 expected");
		im->ks.lineinfo = v;
	} else if (key.p == key.end) {
		return imp_fail(im, f, "header", "'-key = value' expected");
	}
	/* Other keys (-nvbit version, later tracers' additions): ignored. */
	return 0;
}

enum tb_state {
	TB_OUT,		/* between blocks */
	TB_HEAD,	/* after #BEGIN_TB, before "thread block =" */
	TB_IN,		/* in a block, between warps */
	TB_WARP,	/* after "warp =", before "insts =" */
	TB_INSTS,	/* instructions of a warp left */
};

/* "key = value" lines inside a block; 1 if the line is not one. */
static int tb_keyword(const char *s, const char *e, struct span *key,
		      struct span *val)
{
	const char *eq = memchr(s, '=', e - s);

	if (!eq)
		return 1;
	key->p = s;
	key->end = eq;
	val->p = eq + 1;
	val->end = e;
	trim(key);
	trim(val);
	if (tok_is(key, "thread block") || tok_is(key, "warp") ||
	    tok_is(key, "insts") || tok_is(key, "cluster id") ||
	    tok_is(key, "cluster cta") || tok_is(key, "cluster rank"))
		return 0;
	return 1;
}

/*
 * Instruction lines start with a hex digit (the PC, or the decimal line
 * number); of the keywords only "cluster" does.
 */
static inline bool is_inst_line(const char *s, const char *e)
{
	return hex_digit(*s) <= 15 &&
	       !(e - s >= 7 && !memcmp(s, "cluster", 7));
}

/* The kernel record, once its header is read. */
static int end_header(struct imp *im, const struct in_file *f,
		      const char *name)
{
	if (!im->ks.seen_grid || !im->ks.seen_block)
		return imp_fail(im, f, im->ks.seen_grid ? "-block dim" : "-grid dim",
				"missing from the header");
	if (!im->ks.seen_name) {
		/* Accel-Sim names it by its file. */
		snprintf(im->kernel.name, sizeof(im->kernel.name), "%.*s",
			 (int)strcspn(name, "."), name);
	}
	if (!im->ks.seen_id)
		im->kernel.id = im->launches;
	im->rec.kernel = im->kernel;
	return emit(im, f, PROG_REC_KERNEL);
}

static int read_kernel(struct imp *im, const char *name)
{
	enum tb_state st = TB_OUT;
	u32 warp_id = 0, insts = 0, left = 0;
	bool header = true;
	struct in_file f;
	const char *s, *e;
	char buf[64];
	int ret;

	ret = imp_open(im, &f, name, false);
	if (ret)
		return ret;
	memset(&im->kernel, 0, sizeof(im->kernel));
	memset(&im->ks, 0, sizeof(im->ks));
	im->launches++;
	while ((ret = in_getline(&f, &s, &e, im->err, im->errlen)) > 0) {
		struct span line = { s, e }, key, val;

		trim(&line);
		if (line.p == line.end)
			continue;
		s = line.p;
		e = line.end;
		if (!header && im->pass == PASS_TOUCH) {
			/* The first pass: instruction lines only, unchecked. */
			if (is_inst_line(s, e)) {
				ret = parse_inst_hint(im, &f, s, e);
				if (ret)
					break;
			}
			continue;
		}
		if (header) {
			if (*s == '-') {
				ret = parse_header(im, &f, s, e);
				if (ret)
					break;
				continue;
			}
			if (*s == '#' && !tok_is(&line, "#BEGIN_TB"))
				continue;	/* "#traces format = ..." */
			if (*s != '#') {
				ret = imp_fail(im, &f, "header",
					       "'-key = value' or #BEGIN_TB expected");
				break;
			}
			/* The first block: the header is complete. */
			header = false;
			ret = end_header(im, &f, name);
			if (ret)
				break;
		}
		if (*s == '#') {
			if (tok_is(&line, "#BEGIN_TB")) {
				if (st != TB_OUT) {
					ret = imp_fail(im, &f, "#BEGIN_TB",
						       "inside a thread block");
					break;
				}
				st = TB_HEAD;
				continue;
			}
			if (tok_is(&line, "#END_TB")) {
				if (st == TB_INSTS) {
					ret = imp_fail(im, &f, "insts",
						       "warp %u declares %u instructions, %u follow",
						       warp_id, insts, insts - left);
					break;
				}
				if (st != TB_IN) {
					ret = imp_fail(im, &f, "#END_TB", st == TB_OUT ?
						       "outside a thread block" :
						       st == TB_HEAD ?
						       "before 'thread block ='" :
						       "before 'insts =' of the warp");
					break;
				}
				ret = emit(im, &f, PROG_REC_BLOCK_END);
				if (ret)
					break;
				st = TB_OUT;
				continue;
			}
			continue;	/* a comment */
		}
		if (st == TB_INSTS && !is_inst_line(s, e) &&
		    !tb_keyword(s, e, &key, &val)) {
			ret = imp_fail(im, &f, "insts",
				       "warp %u declares %u instructions, %u follow",
				       warp_id, insts, insts - left);
			break;
		}
		if (st == TB_INSTS) {
			ret = parse_inst_hint(im, &f, s, e);
			if (ret)
				break;
			ret = emit(im, &f, PROG_REC_INST);
			if (ret)
				break;
			if (!--left)
				st = TB_IN;
			continue;
		}
		if (tb_keyword(s, e, &key, &val)) {
			if (st == TB_OUT)
				ret = imp_fail(im, &f, "line", "outside a thread block");
			else if (st == TB_IN)
				ret = imp_fail(im, &f, "insts",
					       "an instruction beyond the %u of warp %u",
					       insts, warp_id);
			else
				ret = imp_fail(im, &f, st == TB_HEAD ?
					       "thread block" : "insts",
					       "'%s' where it is expected",
					       show(&line, buf, sizeof(buf)));
			break;
		}
		if (tok_is(&key, "thread block")) {
			if (st != TB_HEAD) {
				ret = imp_fail(im, &f, "thread block",
					       st == TB_OUT ? "outside #BEGIN_TB" :
					       "a second one in the block");
				break;
			}
			{
				u32 xyz[3];

				if (!parse_dim3(val, false, xyz)) {
					ret = imp_fail(im, &f, "thread block",
						       "x,y,z expected");
					break;
				}
				memset(&im->rec.block, 0, sizeof(im->rec.block));
				im->rec.block.x = xyz[0];
				im->rec.block.y = xyz[1];
				im->rec.block.z = xyz[2];
			}
			ret = emit(im, &f, PROG_REC_BLOCK);
			if (ret)
				break;
			st = TB_IN;
			continue;
		}
		if (st == TB_HEAD) {
			ret = imp_fail(im, &f, "thread block",
				       "'thread block = x,y,z' expected first");
			break;
		}
		if (!strncmp(key.p, "cluster", 7)) {
			if (st != TB_IN) {
				ret = imp_fail(im, &f, "insts",
					       "'insts =' expected after 'warp ='");
				break;
			}
			continue;	/* Hopper's clusters: not kept */
		}
		if (tok_is(&key, "warp")) {
			if (st != TB_IN) {
				ret = imp_fail(im, &f, "insts",
					       "'insts =' expected after 'warp ='");
				break;
			}
			if (!parse_u32(&val, &warp_id)) {
				ret = imp_fail(im, &f, "warp", "not a 32-bit number");
				break;
			}
			st = TB_WARP;
			continue;
		}
		/* "insts =" */
		if (st != TB_WARP) {
			ret = imp_fail(im, &f, "insts", "no 'warp =' before it");
			break;
		}
		if (!parse_u32(&val, &insts)) {
			ret = imp_fail(im, &f, "insts", "not a 32-bit number");
			break;
		}
		memset(&im->rec.warp, 0, sizeof(im->rec.warp));
		im->rec.warp.id = warp_id;
		im->rec.warp.insts = insts;
		ret = emit(im, &f, PROG_REC_WARP);
		if (ret)
			break;
		left = insts;
		st = left ? TB_INSTS : TB_IN;
	}
	if (!ret && im->pass == PASS_TOUCH) {
		/* Structure is the full passes' business. */
	} else if (!ret) {
		if (header && !f.line) {
			snprintf(im->err, im->errlen, "%s: empty file", f.path);
			ret = -EINVAL;
		} else if (header) {
			/*
			 * A header and no block: the tracer recorded no
			 * instruction of the launch (INSTR_BEGIN/INSTR_END
			 * left its code out), and the post-processor wrote
			 * no block. A launch without blocks, as Accel-Sim
			 * reads it.
			 */
			ret = end_header(im, &f, name);
			if (!ret)
				ret = emit(im, &f, PROG_REC_KERNEL_END);
		} else if (st != TB_OUT) {
			ret = imp_fail(im, &f, "#END_TB",
				       "missing at the end of the file (truncated)");
		} else {
			ret = emit(im, &f, PROG_REC_KERNEL_END);
		}
	}
	in_close(&f);
	return ret;
}

/* --- kernelslist.g ---------------------------------------------------- */

static int copy_line(struct imp *im, const struct in_file *f, struct span line,
		     u32 dir)
{
	const char *field = dir == PROG_COPY_H2D ? "MemcpyHtoD" : "MemcpyDtoH";
	const char *c1, *c2;
	struct span a, b;
	u64 base, bytes;

	c1 = memchr(line.p, ',', line.end - line.p);
	if (!c1)
		return imp_fail(im, f, field, "',ADDR,BYTES' expected");
	c2 = memchr(c1 + 1, ',', line.end - c1 - 1);
	if (!c2 || memchr(c2 + 1, ',', line.end - c2 - 1))
		return imp_fail(im, f, field, "'%s,ADDR,BYTES' expected", field);
	a.p = c1 + 1;
	a.end = c2;
	b.p = c2 + 1;
	b.end = line.end;
	trim(&a);
	trim(&b);
	if (!parse_hex(&a, &base))
		return imp_fail(im, f, field, "address: not hex");
	if (!parse_num(&b, &bytes))
		return imp_fail(im, f, field, "bytes: not a number");
	/* An empty copy moves nothing: the program has no such record. */
	if (!bytes || im->pass == PASS_TOUCH)
		return 0;
	if (im->pass == PASS_COPIES) {
		if (add_copied(im, base, bytes)) {
			snprintf(im->err, im->errlen, "%s: out of memory", f->path);
			return -ENOMEM;
		}
		return 0;
	}
	memset(&im->rec.copy, 0, sizeof(im->rec.copy));
	im->rec.copy.dir = dir;
	im->rec.copy.base = base;
	im->rec.copy.bytes = bytes;
	return emit(im, f, PROG_REC_COPY);
}

/* One pass over kernelslist.g: the first collects, the second emits. */
static int read_list(struct imp *im)
{
	struct in_file f;
	const char *s, *e;
	char name[4096];
	int ret;

	ret = imp_open(im, &f, ACCELSIM_KERNELSLIST, false);
	if (ret == -ENOENT && has_file(im, "kernelslist")) {
		/* The tracer's own list: the directory is not post-processed. */
		size_t n = strlen(im->err);

		snprintf(im->err + n, im->errlen - n,
			 " (the directory holds the tracer's kernelslist: post-process it first with Accel-Sim's post-traces-processing)");
	}
	if (ret)
		return ret;
	im->entries = 0;
	im->launches = 0;
	while ((ret = in_getline(&f, &s, &e, im->err, im->errlen)) > 0) {
		struct span line = { s, e };
		size_t n;

		trim(&line);
		if (line.p == line.end || *line.p == '#')
			continue;
		if (im->pass == PASS_EMIT) {
			ret = emit_objects(im, &f);
			if (ret)
				break;
		}
		n = line.end - line.p;
		if (n >= 10 && !memcmp(line.p, "MemcpyHtoD", 10)) {
			ret = copy_line(im, &f, line, PROG_COPY_H2D);
		} else if (n >= 10 && !memcmp(line.p, "MemcpyDtoH", 10)) {
			ret = copy_line(im, &f, line, PROG_COPY_D2H);
		} else if (n >= 6 && !memcmp(line.p, "kernel", 6)) {
			if (n >= sizeof(name) - 8) {
				ret = imp_fail(im, &f, "kernel", "file name too long");
				break;
			}
			memcpy(name, line.p, n);
			name[n] = '\0';
			if (is_raw_trace(name)) {
				ret = imp_fail(im, &f, "kernel",
					       "%s is the tracer's raw trace (block ids on every line): post-process it first with Accel-Sim's post-traces-processing",
					       name);
				break;
			}
			/*
			 * A compressed trace: its decompressed copy if there
			 * is one, else decompressed as it is read (from a
			 * directory; in memory, there is no xz to run).
			 */
			if (has_xz_suffix(name)) {
				struct in_file probe;

				name[n - 3] = '\0';
				ret = imp_open(im, &probe, name, true);
				in_close(&probe);
				if (ret && im->dir)
					name[n - 3] = '.';
				else if (ret) {
					ret = imp_fail(im, &f, "kernel",
						       "%s.xz is compressed: decompress it first (xz -dk)",
						       name);
					break;
				}
			}
			ret = im->pass == PASS_COPIES ? 0 : read_kernel(im, name);
		} else {
			char buf[64];

			ret = imp_fail(im, &f, "command",
				       "'%s' is not MemcpyHtoD, MemcpyDtoH or a kernel trace",
				       show(&line, buf, sizeof(buf)));
		}
		if (ret)
			break;
		im->entries++;
	}
	if (!ret && im->pass == PASS_EMIT) {
		ret = emit_objects(im, &f);
		if (!ret && im->next_obj < im->nobjs) {
			snprintf(im->err, im->errlen,
				 "%s: position: object %s is placed after entry %llu of %llu",
				 ACCELSIM_OBJECTS, im->objs[im->next_obj].name,
				 (unsigned long long)im->objs[im->next_obj].pos,
				 (unsigned long long)im->entries);
			ret = -EINVAL;
		}
		if (!ret) {
			memset(&im->rec, 0, sizeof(im->rec));
			ret = emit(im, &f, PROG_REC_END);
		}
	}
	in_close(&f);
	return ret;
}

static int import(struct imp *im, prog_sink_fn sink, void *ctx)
{
	int ret;

	im->opc = calloc(OPC_CACHE, sizeof(*im->opc));
	if (!im->opc) {
		snprintf(im->err, im->errlen, "out of memory");
		return -ENOMEM;
	}
	ret = read_sidecar(im);
	if (ret == 1) {
		/* No sidecar: the copies, then the blocks the kernels touch. */
		im->pass = PASS_COPIES;
		ret = read_list(im);
		if (!ret) {
			merge_copied(im);
			im->pass = PASS_TOUCH;
			ret = read_list(im);
		}
		if (ret == -EINVAL) {
			/*
			 * The light passes found an error, not necessarily the
			 * first: a checking pass finds that one.
			 */
			char *first = malloc(im->errlen);
			int check;

			if (first)
				memcpy(first, im->err, im->errlen);
			prog_grammar_init(&im->g);
			im->pass = PASS_CHECK;
			check = read_list(im);
			if (check)
				ret = check;
			else if (first)
				memcpy(im->err, first, im->errlen);
			free(first);
		}
		if (!ret)
			ret = infer_objects(im);
	}
	if (!ret) {
		prog_grammar_init(&im->g);
		im->pass = PASS_EMIT;
		im->sink = sink;
		im->ctx = ctx;
		im->next_obj = 0;
		ret = read_list(im);
	}
	free(im->opc);
	free(im->copied);
	free(im->objs);
	free(im->pages);
	return ret;
}

int accelsim_import(const char *dir, prog_sink_fn sink, void *ctx, char *err,
		    size_t errlen)
{
	struct imp *im = calloc(1, sizeof(*im));
	int ret;

	if (!im) {
		snprintf(err, errlen, "%s: out of memory", dir);
		return -ENOMEM;
	}
	im->dir = dir;
	im->err = err;
	im->errlen = errlen;
	err[0] = '\0';
	ret = import(im, sink, ctx);
	free(im);
	return ret;
}

int accelsim_import_mem(const struct accelsim_mem_file *files, size_t nfiles,
			prog_sink_fn sink, void *ctx, char *err, size_t errlen)
{
	struct imp *im = calloc(1, sizeof(*im));
	int ret;

	if (!im) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	im->files = files;
	im->nfiles = nfiles;
	im->err = err;
	im->errlen = errlen;
	err[0] = '\0';
	ret = import(im, sink, ctx);
	free(im);
	return ret;
}

/* ---------------------------------------------------------------------
 * The export.
 */
struct out_file {
	FILE *fp;
	char path[4096];
};

struct exp {
	const char *dir;
	char *err;
	size_t errlen;
	struct prog_grammar g;
	struct prog_kernel kernel;
	struct out_file list, objs, trace;
	u64 recno;			/* records read, for messages */
	u64 entries;			/* kernelslist.g entries written */
	u64 objs_at;			/* the sidecar's last "at" */
	u32 launches;
	char line[8192];
};

static int exp_fail(struct exp *ex, const char *field, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int exp_fail(struct exp *ex, const char *field, const char *fmt, ...)
{
	char why[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	snprintf(ex->err, ex->errlen, "record %llu: %s: %s",
		 (unsigned long long)ex->recno, field, why);
	return -EINVAL;
}

static int out_open(struct exp *ex, struct out_file *o, const char *name)
{
	snprintf(o->path, sizeof(o->path), "%s/%s", ex->dir, name);
	o->fp = fopen(o->path, "w");
	if (!o->fp) {
		int e = errno;

		snprintf(ex->err, ex->errlen, "%s: %s", o->path, strerror(e));
		return -e;
	}
	setvbuf(o->fp, NULL, _IOFBF, READ_CHUNK);
	return 0;
}

/* Closes o: 0 or the write's errno, with the message. */
static int out_close(struct exp *ex, struct out_file *o, int ret)
{
	if (!o->fp)
		return ret;
	if (ferror(o->fp) || fclose(o->fp)) {
		int e = errno ? errno : EIO;

		if (!ret) {
			snprintf(ex->err, ex->errlen, "%s: %s", o->path,
				 strerror(e));
			ret = -e;
		}
	}
	o->fp = NULL;
	return ret;
}

static int out_write(struct exp *ex, struct out_file *o, const char *buf,
		     size_t len)
{
	if (fwrite(buf, 1, len, o->fp) != len) {
		int e = errno ? errno : EIO;

		snprintf(ex->err, ex->errlen, "%s: %s", o->path, strerror(e));
		return -e;
	}
	return 0;
}

static char *put_str(char *p, const char *s)
{
	while (*s)
		*p++ = *s++;
	return p;
}

static char *put_udec(char *p, u64 v)
{
	char tmp[24];
	int n = 0;

	do {
		tmp[n++] = '0' + v % 10;
		v /= 10;
	} while (v);
	while (n)
		*p++ = tmp[--n];
	return p;
}

static char *put_sdec(char *p, u64 v)
{
	if ((int64_t)v < 0) {
		*p++ = '-';
		return put_udec(p, -v);
	}
	return put_udec(p, v);
}

/* At least min hex digits, lower case. */
static char *put_hex(char *p, u64 v, int min)
{
	static const char digits[] = "0123456789abcdef";
	char tmp[16];
	int n = 0;

	do {
		tmp[n++] = digits[v & 15];
		v >>= 4;
	} while (v);
	while (n < min)
		tmp[n++] = '0';
	while (n)
		*p++ = tmp[--n];
	return p;
}

static int write_kernel_header(struct exp *ex, const struct prog_kernel *k)
{
	char name[64];
	int n;

	/* The grammar checked the name: printable, no blank at either end. */
	ex->launches++;
	snprintf(name, sizeof(name), "kernel-%u.traceg", ex->launches);
	n = out_open(ex, &ex->trace, name);
	if (n)
		return n;
	n = fprintf(ex->trace.fp,
		    "-kernel name = %s\n"
		    "-kernel id = %u\n"
		    "-grid dim = (%u,%u,%u)\n"
		    "-block dim = (%u,%u,%u)\n"
		    "-shmem = %u\n"
		    "-nregs = %u\n"
		    "-binary version = %u\n"
		    "-cuda stream id = %llu\n"
		    "-shmem base_addr = 0x%016llx\n"
		    "-local mem base_addr = 0x%016llx\n"
		    "-nvbit version = mcmgpu\n"
		    "-accelsim tracer version = 5\n"
		    "-enable lineinfo = 0\n"
		    "\n"
		    "#traces format = [line_num] PC mask dest_num [reg_dests] "
		    "opcode src_num [reg_srcs] mem_width [adrrescompress?] "
		    "[mem_addresses] immediate\n"
		    "\n",
		    k->name, k->id, k->grid[0], k->grid[1], k->grid[2],
		    k->block[0], k->block[1], k->block[2], k->shmem, k->nregs,
		    k->binary_version, (unsigned long long)k->stream,
		    (unsigned long long)k->shmem_base,
		    (unsigned long long)k->local_base);
	if (n < 0)
		return out_write(ex, &ex->trace, "", 1);
	n = fprintf(ex->list.fp, "%s\n", name);
	ex->entries++;
	return n < 0 ? out_write(ex, &ex->list, "", 1) : 0;
}

/* Checks that an import gives the record's class back. */
static int check_class(struct exp *ex, const struct prog_inst *in)
{
	struct prog_inst want = *in;
	int generic;

	generic = accelsim_classify(in->opcode, &want);
	if (generic < 0)
		return exp_fail(ex, "opcode", "'%s' is not a mnemonic",
				in->opcode);
	class_of(&ex->kernel, in->op == PROG_OP_MEMORY, &want, generic);
	if (want.op != in->op)
		return exp_fail(ex, "op", "%s is %s in a trace, the record says %s",
				in->opcode, prog_op_name(want.op) ?: "?",
				prog_op_name(in->op) ?: "?");
	if (want.space != in->space)
		return exp_fail(ex, "space", "%s at 0x%llx is %s in a trace, the record says %s",
				in->opcode,
				(unsigned long long)first_lane_addr(in),
				prog_space_name(want.space) ?: "?",
				prog_space_name(in->space) ?: "?");
	if (want.kind != in->kind)
		return exp_fail(ex, "kind", "%s is %s in a trace, the record says %s",
				in->opcode, prog_kind_name(want.kind) ?: "?",
				prog_kind_name(in->kind) ?: "?");
	return 0;
}

static int write_inst(struct exp *ex, const struct prog_inst *in)
{
	char *p = ex->line;
	unsigned int i;
	int ret;

	ret = check_class(ex, in);
	if (ret)
		return ret;
	p = put_hex(p, in->pc, 4);
	*p++ = ' ';
	p = put_hex(p, in->mask, 8);
	*p++ = ' ';
	p = put_udec(p, in->ndst);
	for (i = 0; i < in->ndst && i < PROG_MAX_REGS; i++) {
		p = put_str(p, " R");
		p = put_udec(p, in->dst[i]);
	}
	*p++ = ' ';
	p = put_str(p, in->opcode);
	*p++ = ' ';
	p = put_udec(p, in->nsrc);
	for (i = 0; i < in->nsrc && i < PROG_MAX_REGS; i++) {
		p = put_str(p, " R");
		p = put_udec(p, in->src[i]);
	}
	*p++ = ' ';
	if (in->op != PROG_OP_MEMORY) {
		*p++ = '0';
	} else {
		u32 m = in->mask, lanes = m ? m >> __builtin_ctz(m) : 0;
		unsigned int first = m ? __builtin_ctz(m) : 0;
		unsigned int n = prog_lanes(m);
		bool stride_ok = n >= 2 && !(lanes & (lanes + 1));
		int64_t stride = 0;

		p = put_udec(p, in->width);
		if (stride_ok) {
			stride = (int64_t)(in->addr[first + 1] - in->addr[first]);
			if (stride != (int32_t)stride)
				stride_ok = false;
			for (i = first + 2; stride_ok && i < first + n; i++)
				if (in->addr[i] - in->addr[i - 1] != (u64)stride)
					stride_ok = false;
		}
		if (!m) {
			/* No active lane: what the tracer writes. */
			p = put_str(p, " 1 0x0 0");
		} else if (stride_ok) {
			p = put_str(p, " 1 0x");
			p = put_hex(p, in->addr[first], 1);
			*p++ = ' ';
			p = put_sdec(p, (u64)stride);
		} else {
			u64 prev = in->addr[first];

			p = put_str(p, " 2 0x");
			p = put_hex(p, prev, 1);
			m &= m - 1;
			while (m) {
				unsigned int lane = __builtin_ctz(m);

				m &= m - 1;
				*p++ = ' ';
				p = put_sdec(p, in->addr[lane] - prev);
				prev = in->addr[lane];
			}
		}
	}
	/* The immediate, which the program does not keep. */
	p = put_str(p, " 0\n");
	return out_write(ex, &ex->trace, ex->line, p - ex->line);
}

static int export_rec(struct exp *ex, const struct prog_rec *rec)
{
	char *p = ex->line;
	int n;

	switch (rec->type) {
	case PROG_REC_OBJECT:
		n = 0;
		if (ex->entries != ex->objs_at) {
			n = fprintf(ex->objs.fp, "at %llu\n",
				    (unsigned long long)ex->entries);
			ex->objs_at = ex->entries;
		}
		if (n >= 0)
			n = fprintf(ex->objs.fp, "object 0x%llx %llu %s\n",
				    (unsigned long long)rec->object.base,
				    (unsigned long long)rec->object.size,
				    rec->object.name);
		return n < 0 ? out_write(ex, &ex->objs, "", 1) : 0;
	case PROG_REC_COPY:
		n = fprintf(ex->list.fp, "%s,0x%016llx,%llu\n",
			    rec->copy.dir == PROG_COPY_D2H ? "MemcpyDtoH" :
			    "MemcpyHtoD", (unsigned long long)rec->copy.base,
			    (unsigned long long)rec->copy.bytes);
		ex->entries++;
		return n < 0 ? out_write(ex, &ex->list, "", 1) : 0;
	case PROG_REC_KERNEL:
		ex->kernel = rec->kernel;
		return write_kernel_header(ex, &rec->kernel);
	case PROG_REC_BLOCK:
		p = put_str(p, "\n#BEGIN_TB\n\nthread block = ");
		p = put_udec(p, rec->block.x);
		*p++ = ',';
		p = put_udec(p, rec->block.y);
		*p++ = ',';
		p = put_udec(p, rec->block.z);
		*p++ = '\n';
		return out_write(ex, &ex->trace, ex->line, p - ex->line);
	case PROG_REC_WARP:
		p = put_str(p, "\nwarp = ");
		p = put_udec(p, rec->warp.id);
		p = put_str(p, "\ninsts = ");
		p = put_udec(p, rec->warp.insts);
		*p++ = '\n';
		return out_write(ex, &ex->trace, ex->line, p - ex->line);
	case PROG_REC_INST:
		return write_inst(ex, &rec->inst);
	case PROG_REC_BLOCK_END:
		return out_write(ex, &ex->trace, "\n#END_TB\n", 9);
	case PROG_REC_KERNEL_END:
		return out_close(ex, &ex->trace, 0);
	default:
		return 0;
	}
}

int accelsim_export(prog_source_fn src, void *ctx, const char *dir, char *err,
		    size_t errlen)
{
	struct exp *ex = calloc(1, sizeof(*ex));
	struct prog_rec *rec = malloc(sizeof(*rec));
	bool done = false;
	int ret;

	err[0] = '\0';
	if (!ex || !rec) {
		free(ex);
		free(rec);
		snprintf(err, errlen, "%s: out of memory", dir);
		return -ENOMEM;
	}
	ex->dir = dir;
	ex->err = err;
	ex->errlen = errlen;
	prog_grammar_init(&ex->g);
	if (mkdir(dir, 0777) && errno != EEXIST) {
		ret = -errno;
		snprintf(err, errlen, "%s: %s", dir, strerror(-ret));
		goto out;
	}
	ret = out_open(ex, &ex->list, ACCELSIM_KERNELSLIST);
	if (!ret)
		ret = out_open(ex, &ex->objs, ACCELSIM_OBJECTS);
	while (!ret && !done) {
		ex->recno++;
		ret = src(ctx, rec);
		if (ret < 0) {
			snprintf(err, errlen, "record %llu: the program source failed: %s",
				 (unsigned long long)ex->recno, strerror(-ret));
			break;
		}
		if (!ret) {
			ret = exp_fail(ex, "end", "the program stops before END");
			break;
		}
		ret = prog_grammar_check(&ex->g, rec);
		if (ret) {
			ret = exp_fail(ex, ex->g.err_field ? ex->g.err_field : "record",
				       "%s", ex->g.err_why ? ex->g.err_why : "refused");
			break;
		}
		ret = export_rec(ex, rec);
		done = rec->type == PROG_REC_END;
	}
	ret = out_close(ex, &ex->trace, ret);
	ret = out_close(ex, &ex->objs, ret);
	ret = out_close(ex, &ex->list, ret);
out:
	free(rec);
	free(ex);
	return ret;
}
