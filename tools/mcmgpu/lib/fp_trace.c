// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "file.h"
#include "fp_trace.h"
#include "num.h"

static int grow(void **p, size_t *cap, size_t need, size_t elem)
{
	size_t ncap = *cap ? *cap : 64;
	void *np;

	if (need <= *cap)
		return 0;
	while (ncap < need)
		ncap *= 2;
	np = realloc(*p, ncap * elem);
	if (!np)
		return -1;
	*p = np;
	*cap = ncap;
	return 0;
}

int fp_tb_add(struct fp_trace_buf *tb, enum mcmgpu_fp_record_type type, unsigned int src,
	      unsigned int dst, uint64_t addr, uint32_t len, const uint8_t *data)
{
	struct mcmgpu_fp_trace_record *r;

	if (grow((void **)&tb->rec, &tb->rec_cap, tb->nrec + 1, sizeof(*r)))
		return -1;
	r = &tb->rec[tb->nrec++];
	memset(r, 0, sizeof(*r));
	r->type = type;
	r->src = src;
	r->dst = dst;
	r->len = len;
	r->addr = addr;
	if (data) {
		if (grow((void **)&tb->data, &tb->data_cap, tb->ndata + len, 1))
			return -1;
		r->data_off = tb->ndata;
		memcpy(tb->data + tb->ndata, data, len);
		tb->ndata += len;
	}
	return 0;
}

uint8_t *fp_tb_finish(struct fp_trace_buf *tb, size_t *len)
{
	struct mcmgpu_fp_trace_header hdr = {
		.magic = MCMGPU_FP_TRACE_MAGIC,
		.version = MCMGPU_FP_TRACE_VERSION,
		.header_size = sizeof(hdr),
		.record_size = sizeof(struct mcmgpu_fp_trace_record),
		.nrecords = tb->nrec,
		.data_size = tb->ndata,
	};
	size_t rbytes = tb->nrec * sizeof(struct mcmgpu_fp_trace_record);
	uint8_t *out;

	*len = sizeof(hdr) + rbytes + tb->ndata;
	out = malloc(*len);
	if (out) {
		memcpy(out, &hdr, sizeof(hdr));
		if (rbytes)
			memcpy(out + sizeof(hdr), tb->rec, rbytes);
		if (tb->ndata)
			memcpy(out + sizeof(hdr) + rbytes, tb->data, tb->ndata);
	}
	fp_tb_free(tb);
	return out;
}

void fp_tb_free(struct fp_trace_buf *tb)
{
	free(tb->rec);
	free(tb->data);
	memset(tb, 0, sizeof(*tb));
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static const struct {
	const char *name;
	enum mcmgpu_fp_record_type type;
	int nargs;	/* after the keyword */
} kinds[] = {
	{ "store", MCMGPU_FP_REC_STORE, 5 },
	{ "load", MCMGPU_FP_REC_LOAD, 4 },
	{ "atomic", MCMGPU_FP_REC_ATOMIC, 5 },
	{ "fence", MCMGPU_FP_REC_FENCE, 1 },
	{ "kernel_end", MCMGPU_FP_REC_KERNEL_END, 0 },
	{ "region", MCMGPU_FP_REC_REGION, 4 },
	{ "compute", MCMGPU_FP_REC_COMPUTE, 2 },
};

/* One line; returns 0, or -1 with msg set (without the line number). */
static int parse_line(char *line, struct fp_trace_buf *tb, uint8_t **hexbuf,
		      size_t *hexcap, char *msg, size_t msglen)
{
	static const char * const field[] = { "SRC", "DST", "ADDR", "LEN" };
	char *tok[8], *save = NULL, *t;
	uint64_t v[4] = { 0 };
	size_t k, i, ntok = 0, hexlen;

	for (t = strtok_r(line, " \t\r", &save); t; t = strtok_r(NULL, " \t\r", &save)) {
		if (ntok == 8) {
			snprintf(msg, msglen, "too many fields");
			return -1;
		}
		tok[ntok++] = t;
	}
	if (!ntok)
		return 0;
	for (k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++)
		if (!strcmp(tok[0], kinds[k].name))
			break;
	if (k == sizeof(kinds) / sizeof(kinds[0])) {
		snprintf(msg, msglen, "unknown record type '%s'", tok[0]);
		return -1;
	}
	if (ntok - 1 != (size_t)kinds[k].nargs) {
		snprintf(msg, msglen, "%s takes %d fields, got %zu", tok[0],
			 kinds[k].nargs, ntok - 1);
		return -1;
	}
	for (i = 0; i < 4 && i < (size_t)kinds[k].nargs; i++) {
		if (str_to_u64(tok[1 + i], false, &v[i])) {
			snprintf(msg, msglen, "%s: not a number: '%s'",
				 kinds[k].type == MCMGPU_FP_REC_COMPUTE && i ? "NS" :
				 field[i], tok[1 + i]);
			return -1;
		}
	}
	if (kinds[k].type == MCMGPU_FP_REC_COMPUTE) {	/* compute SRC NS */
		v[2] = v[1];
		v[1] = 0;
	}
	if (v[0] > 255 || v[1] > 255) {
		snprintf(msg, msglen, "%s: chiplet %llu out of range",
			 v[0] > 255 ? "SRC" : "DST",
			 (unsigned long long)(v[0] > 255 ? v[0] : v[1]));
		return -1;
	}
	if (v[3] > UINT32_MAX) {
		snprintf(msg, msglen, "LEN: %llu too large", (unsigned long long)v[3]);
		return -1;
	}
	if (kinds[k].nargs != 5)
		return fp_tb_add(tb, kinds[k].type, v[0], v[1], v[2], v[3], NULL) ?
		       (snprintf(msg, msglen, "out of memory"), -1) : 0;

	t = tok[5];
	if (!strncmp(t, "0x", 2))
		t += 2;
	hexlen = strlen(t);
	if (hexlen != 2 * v[3]) {
		snprintf(msg, msglen, "HEXDATA: %zu hex digits for LEN %llu (want %llu)",
			 hexlen, (unsigned long long)v[3],
			 (unsigned long long)(2 * v[3]));
		return -1;
	}
	if (*hexcap < v[3]) {
		uint8_t *nb = realloc(*hexbuf, v[3]);

		if (!nb) {
			snprintf(msg, msglen, "out of memory");
			return -1;
		}
		*hexbuf = nb;
		*hexcap = v[3];
	}
	for (i = 0; i < v[3]; i++) {
		int hi = hexval(t[2 * i]), lo = hexval(t[2 * i + 1]);

		if (hi < 0 || lo < 0) {
			snprintf(msg, msglen, "HEXDATA: bad hex digit at byte %zu", i);
			return -1;
		}
		(*hexbuf)[i] = hi << 4 | lo;
	}
	if (fp_tb_add(tb, kinds[k].type, v[0], v[1], v[2], v[3], *hexbuf)) {
		snprintf(msg, msglen, "out of memory");
		return -1;
	}
	return 0;
}

int fp_text_parse(const char *text, size_t len, struct fp_trace_buf *tb,
		  char *msg, size_t msglen)
{
	uint8_t *hexbuf = NULL;
	size_t hexcap = 0, lineno = 0, pos = 0;
	char sub[256];
	int ret = 0;

	while (pos < len && !ret) {
		const char *nl = memchr(text + pos, '\n', len - pos);
		size_t n = (nl ? (size_t)(nl - text) : len) - pos;
		char *line = malloc(n + 1), *hash;

		lineno++;
		if (!line) {
			snprintf(msg, msglen, "out of memory");
			return -1;
		}
		memcpy(line, text + pos, n);
		line[n] = '\0';
		hash = strchr(line, '#');
		if (hash)
			*hash = '\0';
		if (parse_line(line, tb, &hexbuf, &hexcap, sub, sizeof(sub))) {
			snprintf(msg, msglen, "line %zu: %s", lineno, sub);
			ret = -1;
		}
		free(line);
		pos += n + 1;
	}
	free(hexbuf);
	return ret;
}

uint8_t *fp_trace_load(const char *path, size_t *len, char *msg, size_t msglen)
{
	struct fp_trace_buf tb = { 0 };
	uint8_t *buf;
	size_t n;
	uint32_t magic;

	buf = file_load(path, &n, msg, msglen);
	if (!buf)
		return NULL;
	if (n >= sizeof(magic)) {
		memcpy(&magic, buf, sizeof(magic));
		if (magic == MCMGPU_FP_TRACE_MAGIC) {
			*len = n;
			return buf;
		}
	}
	if (fp_text_parse((const char *)buf, n, &tb, msg, msglen)) {
		char sub[256];

		snprintf(sub, sizeof(sub), "%s", msg);
		snprintf(msg, msglen, "%s: %s", path, sub);
		free(buf);
		fp_tb_free(&tb);
		return NULL;
	}
	free(buf);
	buf = fp_tb_finish(&tb, len);
	if (!buf)
		snprintf(msg, msglen, "%s: out of memory", path);
	return buf;
}
