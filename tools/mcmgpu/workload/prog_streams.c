// SPDX-License-Identifier: GPL-2.0
/* Programs as concurrent streams of one program (prog_streams.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "prog_file.h"
#include "prog_streams.h"

struct streams_in {
	struct prog_in *in;
	uint64_t off;
	uint64_t (*obj)[2];	/* its objects: base, end (moved) */
	uint32_t nobj;
	bool done;
};

/* a moved by program s's offset if it lies in one of s's objects. */
static uint64_t streams_move(const struct streams_in *s, uint64_t a)
{
	uint32_t i;

	for (i = 0; i < s->nobj; i++) {
		if (a + s->off >= s->obj[i][0] && a + s->off < s->obj[i][1])
			return a + s->off;
	}
	return a;
}

/* Program s's records to out through its next KERNEL_END (or its END). */
static int streams_pump(struct streams_in *s, uint32_t stream, uint32_t *kid,
			struct prog_rec *rec, struct prog_out *out, char *err,
			size_t errlen)
{
	uint32_t l;
	int ret;

	while ((ret = prog_in_next(s->in, rec)) > 0) {
		switch (rec->type) {
		case PROG_REC_END:
			s->done = true;
			return 0;
		case PROG_REC_OBJECT: {
			uint64_t (*o)[2] = realloc(s->obj, (s->nobj + 1) *
						   sizeof(*s->obj));

			if (!o) {
				snprintf(err, errlen, "out of memory");
				return -ENOMEM;
			}
			s->obj = o;
			rec->object.base += s->off;
			s->obj[s->nobj][0] = rec->object.base;
			s->obj[s->nobj][1] = rec->object.base + rec->object.size;
			s->nobj++;
			break;
		}
		case PROG_REC_COPY:
			rec->copy.base = streams_move(s, rec->copy.base);
			break;
		case PROG_REC_KERNEL:
			rec->kernel.id = ++*kid;
			rec->kernel.stream = stream;
			break;
		case PROG_REC_INST:
			if (rec->inst.op != PROG_OP_MEMORY)
				break;
			for (l = 0; l < PROG_WARP_SIZE; l++) {
				if (rec->inst.mask >> l & 1)
					rec->inst.addr[l] =
						streams_move(s, rec->inst.addr[l]);
			}
			break;
		}
		if (prog_out_write(out, rec)) {
			snprintf(err, errlen, "%s", prog_out_error(out));
			return -EINVAL;
		}
		if (rec->type == PROG_REC_KERNEL_END)
			return 0;
	}
	snprintf(err, errlen, "%s", ret < 0 ? prog_in_error(s->in) :
		 "a program ends without END");
	return -EINVAL;
}

int prog_streams_merge(const char *const *in, uint32_t n,
		       const char *out_path, bool text, char *err,
		       size_t errlen)
{
	struct streams_in s[PROG_STREAMS_MAX];
	struct prog_rec *rec = NULL;
	struct prog_out *out = NULL;
	uint32_t i, kid = 0, left;
	char cerr[256];
	int ret = 0;

	*err = 0;
	if (n < 2 || n > PROG_STREAMS_MAX) {
		snprintf(err, errlen, "2..%d programs, not %u", PROG_STREAMS_MAX,
			 n);
		return -EINVAL;
	}
	memset(s, 0, sizeof(s));
	for (i = 0; i < n && !ret; i++) {
		s[i].in = prog_in_open(in[i], err, errlen);
		s[i].off = (uint64_t)i << PROG_STREAMS_SHIFT;
		if (!s[i].in)
			ret = -EINVAL;
	}
	if (!ret) {
		rec = malloc(sizeof(*rec));
		out = rec ? prog_out_open(out_path, text, err, errlen) : NULL;
		if (!out) {
			if (!rec)
				snprintf(err, errlen, "out of memory");
			ret = -EINVAL;
		}
	}
	for (left = n; left && !ret;) {
		for (i = 0; i < n && !ret; i++) {
			if (s[i].done)
				continue;
			ret = streams_pump(&s[i], i + 1, &kid, rec, out, err,
					   errlen);
			left -= s[i].done;
		}
	}
	if (!ret) {
		memset(rec, 0, sizeof(*rec));
		rec->type = PROG_REC_END;
		if (prog_out_write(out, rec)) {
			snprintf(err, errlen, "%s", prog_out_error(out));
			ret = -EINVAL;
		}
	}
	if (out && prog_out_close(out, cerr, sizeof(cerr)) && !ret) {
		snprintf(err, errlen, "%s", cerr);
		ret = -EINVAL;
	}
	if (ret && out)
		unlink(out_path);
	for (i = 0; i < n; i++) {
		if (s[i].in)
			prog_in_close(s[i].in);
		free(s[i].obj);
	}
	free(rec);
	return ret;
}
