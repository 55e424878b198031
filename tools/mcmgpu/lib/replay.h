/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What every mechanism's replay (lib/<mechanism>_replay.h) shares: each is
 * one loop over a backend, the host's (the model cores in this process)
 * or the device's (its ioctls), and stops for one of three reasons.
 */
#ifndef MCMGPU_TOOL_REPLAY_H
#define MCMGPU_TOOL_REPLAY_H

#include <stdint.h>

#include "mcmgpu_hw.h"

/* Why a replay stopped. */
struct replay_error {
	enum {
		REPLAY_ERR_RECORD,	/* a record refused: rec */
		REPLAY_ERR_TRACE,	/* the trace as a whole: rec.what */
		REPLAY_ERR_CALL,	/* a call failed: rec.what ("": said) */
	} kind;
	unsigned int line;	/* RECORD in a text trace: its line */
	struct mcmgpu_record_error rec;
};

/* Fills e with kind and the message; returns ret. */
int replay_fail(struct replay_error *e, int kind, int ret, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* A record refused: index, what and value; returns ret. */
int replay_record(struct replay_error *e, int ret, uint64_t index,
		  const char *what, uint64_t value);

#endif /* MCMGPU_TOOL_REPLAY_H */
