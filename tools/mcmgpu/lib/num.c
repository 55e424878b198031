// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>

#include "num.h"

int str_to_u64(const char *s, bool sizes, uint64_t *out)
{
	unsigned long long v;
	char *end;

	/* strtoull would negate "-1" into a large number */
	if (!s || *s == '-')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s)
		return -1;
	if (sizes) {
		switch (*end) {
		case 'K': case 'k':
			v <<= 10, end++;
			break;
		case 'M': case 'm':
			v <<= 20, end++;
			break;
		case 'G': case 'g':
			v <<= 30, end++;
			break;
		}
	}
	if (*end)
		return -1;
	*out = v;
	return 0;
}
