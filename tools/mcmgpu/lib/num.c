// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <time.h>

#include "num.h"

int str_to_u64(const char *s, bool sizes, uint64_t *out)
{
	unsigned long long v;
	unsigned int shift = 0;
	const char *digits = s;
	char *end;

	/* strtoull would negate "-1" into a large number */
	if (!s || *s == '-')
		return -1;
	errno = 0;
	/* Hex with 0x, else decimal: a leading 0 is not octal here. */
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		digits = s + 2;
		v = strtoull(digits, &end, 16);
	} else {
		v = strtoull(digits, &end, 10);
	}
	/*
	 * strtoull skips blanks, takes a sign and, in base 16, a second 0x:
	 * none of them is a number here.
	 */
	if (errno || end == digits || *digits < '0' || *digits > 'f' ||
	    (digits != s && digits[0] == '0' && (digits[1] | 0x20) == 'x'))
		return -1;
	if (sizes) {
		switch (*end) {
		case 'K': case 'k':
			shift = 10;
			break;
		case 'M': case 'm':
			shift = 20;
			break;
		case 'G': case 'g':
			shift = 30;
			break;
		}
		if (shift) {
			end++;
			if (end[0] == 'i' && end[1] == 'B')
				end += 2;
			if (v > ~0ULL >> shift)
				return -1;
			v <<= shift;
		}
	}
	if (*end)
		return -1;
	*out = v;
	return 0;
}

uint64_t xorshift64(uint64_t *state)
{
	uint64_t x = *state;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	*state = x;
	return x;
}

double now_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}
