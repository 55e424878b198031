/* SPDX-License-Identifier: GPL-2.0 */
/* Number parsing shared by the options and the trace and sequence parsers. */
#ifndef MCMGPU_TOOL_NUM_H
#define MCMGPU_TOOL_NUM_H

#include <stdbool.h>
#include <stdint.h>

/*
 * Decimal or 0x hex, the whole string, not negative; with sizes a K, M or
 * G suffix multiplies by 2^10, 2^20 or 2^30. Returns 0 or -1.
 */
int str_to_u64(const char *s, bool sizes, uint64_t *out);

#endif /* MCMGPU_TOOL_NUM_H */
