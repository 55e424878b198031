/* SPDX-License-Identifier: GPL-2.0 */
/* Shared by the guest selftests that drive the mcmgpu command. */
#ifndef MCMGPU_SELFTEST_RUN_CMD_H
#define MCMGPU_SELFTEST_RUN_CMD_H

#include <stdio.h>
#include <sys/wait.h>

/* Runs cmd, keeps up to n - 1 bytes of stdout in out (or drains it), and
 * returns the exit status, -1 if it did not exit normally. */
static inline int run_cmd(const char *cmd, char *out, size_t n)
{
	FILE *p = popen(cmd, "r");
	char sink[4096];
	size_t got;
	int st;

	if (!p)
		return -1;
	if (out) {
		got = fread(out, 1, n - 1, p);
		out[got] = '\0';
	}
	while (fread(sink, 1, sizeof(sink), p))
		;
	st = pclose(p);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

#endif /* MCMGPU_SELFTEST_RUN_CMD_H */
