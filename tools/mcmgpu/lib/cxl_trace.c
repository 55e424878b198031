// SPDX-License-Identifier: GPL-2.0
/*
 * SR/DS traces as text, one record a line ('#' starts a comment):
 *   r OFFSET     a 64 B load at OFFSET into the CXL window
 *   w OFFSET     a 64 B store
 *   c NS         NS nanoseconds of compute before the next record
 * OFFSET is 64 B aligned; numbers take 0x and K/M/G. The device and the
 * host replay the binary records this makes (uapi/mcmgpu_cxl.h).
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cxl_trace.h"
#include "num.h"

int cxl_trace_parse(const char *text, struct mcmgpu_cxl_record **out,
		    uint64_t *n, char *msg, size_t msglen)
{
	const char *p = text;
	uint64_t cap = 0, len = 0, line = 0;
	struct mcmgpu_cxl_record *rec = NULL, *grown;

	while (*p) {
		const char *eol = strchr(p, '\n');
		size_t l = eol ? (size_t)(eol - p) : strlen(p);
		char buf[1024], kind[8], num[64], extra[8];
		uint64_t v;
		int got;

		line++;
		if (l >= sizeof(buf)) {
			snprintf(msg, msglen, "line %llu: longer than %zu bytes",
				 (unsigned long long)line, sizeof(buf) - 1);
			goto fail;
		}
		memcpy(buf, p, l);
		buf[l] = 0;
		p += l + (eol ? 1 : 0);
		if (strchr(buf, '#'))
			*strchr(buf, '#') = 0;
		got = sscanf(buf, "%7s %63s %7s", kind, num, extra);
		if (got <= 0)
			continue;
		if (got != 2 || strlen(kind) != 1 || !strchr("rwc", kind[0])) {
			snprintf(msg, msglen, "line %llu: want 'r OFFSET', 'w OFFSET' or 'c NS'",
				 (unsigned long long)line);
			goto fail;
		}
		if (str_to_u64(num, true, &v)) {
			snprintf(msg, msglen, "line %llu: '%s' is not a number",
				 (unsigned long long)line, num);
			goto fail;
		}
		if (kind[0] != 'c' && v % MCMGPU_CXL_LINE) {
			snprintf(msg, msglen, "line %llu: offset 0x%llx is not 64 B aligned",
				 (unsigned long long)line, (unsigned long long)v);
			goto fail;
		}
		if (kind[0] == 'c' && v > 1000000) {
			snprintf(msg, msglen, "line %llu: compute %llu ns above 1 ms",
				 (unsigned long long)line, (unsigned long long)v);
			goto fail;
		}
		if (len == MCMGPU_CXL_MAX_RECORDS) {
			snprintf(msg, msglen, "line %llu: more than %u records",
				 (unsigned long long)line, MCMGPU_CXL_MAX_RECORDS);
			goto fail;
		}
		if (len == cap) {
			cap = cap ? 2 * cap : 4096;
			grown = realloc(rec, cap * sizeof(*rec));
			if (!grown) {
				snprintf(msg, msglen, "out of memory");
				goto fail;
			}
			rec = grown;
		}
		rec[len].kind = kind[0] == 'r' ? MCMGPU_CXL_REC_LOAD :
			kind[0] == 'w' ? MCMGPU_CXL_REC_STORE :
			MCMGPU_CXL_REC_COMPUTE;
		rec[len].addr = kind[0] == 'c' ? 0 : v;
		rec[len].arg = kind[0] == 'c' ? v : 0;
		len++;
	}
	*out = rec;
	*n = len;
	return 0;
fail:
	free(rec);
	return -1;
}
