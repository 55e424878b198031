// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "file.h"

void *file_load(const char *path, size_t *len, char *msg, size_t msglen)
{
	FILE *f = fopen(path, "rb");
	size_t cap = 0, n = 0, got;
	char *buf = NULL, *nb;

	if (!f) {
		snprintf(msg, msglen, "%s: %s", path, strerror(errno));
		return NULL;
	}
	do {
		if (n == cap) {
			cap = cap ? cap * 2 : 1 << 16;
			nb = realloc(buf, cap + 1);
			if (!nb) {
				snprintf(msg, msglen, "%s: out of memory", path);
				goto fail;
			}
			buf = nb;
		}
		got = fread(buf + n, 1, cap - n, f);
		n += got;
	} while (got);
	/* A directory opens but does not read: say so, not "empty". */
	if (ferror(f)) {
		snprintf(msg, msglen, "%s: %s", path, strerror(errno));
		goto fail;
	}
	fclose(f);
	buf[n] = '\0';
	*len = n;
	return buf;
fail:
	free(buf);
	fclose(f);
	return NULL;
}

int file_store(const char *path, const void *buf, size_t len, char *msg,
	       size_t msglen)
{
	FILE *f = fopen(path, "wb");
	bool ok = f && fwrite(buf, 1, len, f) == len;
	int err = errno;

	if (f && fclose(f) && ok) {
		ok = false;
		err = errno;
	}
	if (!ok)
		snprintf(msg, msglen, "%s: %s", path, strerror(err));
	return ok ? 0 : -1;
}
