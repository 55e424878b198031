/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Numbers: the parsing the options and the trace parsers share, the
 * generators' random sequence and the benchmarks' clock.
 */
#ifndef MCMGPU_TOOL_NUM_H
#define MCMGPU_TOOL_NUM_H

#include <stdbool.h>
#include <stdint.h>

/*
 * Decimal or 0x hex, the whole string, not negative; with sizes a K, M or
 * G suffix multiplies by 2^10, 2^20 or 2^30. Returns 0 or -1.
 */
int str_to_u64(const char *s, bool sizes, uint64_t *out);
/* The next of a xorshift64 sequence (state must not be 0). */
uint64_t xorshift64(uint64_t *state);
/* CLOCK_MONOTONIC in seconds, for the benchmarks. */
double now_seconds(void);

#endif /* MCMGPU_TOOL_NUM_H */
