// SPDX-License-Identifier: GPL-2.0
/* The replays' error (replay.h). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "replay.h"

int replay_fail(struct replay_error *e, int kind, int ret, const char *fmt, ...)
{
	va_list ap;

	memset(e, 0, sizeof(*e));
	e->kind = kind;
	va_start(ap, fmt);
	vsnprintf(e->rec.what, sizeof(e->rec.what), fmt, ap);
	va_end(ap);
	return ret;
}

int replay_record(struct replay_error *e, int ret, uint64_t index,
		  const char *what, uint64_t value)
{
	replay_fail(e, REPLAY_ERR_RECORD, ret, "%s", what);
	e->rec.index = index;
	e->rec.value = value;
	return ret;
}
