/* SPDX-License-Identifier: GPL-2.0 */
/* Helpers shared by the mcmgpu subcommands. */
#ifndef MCMGPU_TOOL_UTIL_H
#define MCMGPU_TOOL_UTIL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "mcmgpu_ioctl.h"
#include "finepack.h"

struct subcommand {
	const char *name;
	const char *summary;
	int (*run)(int argc, char **argv);
};

extern const char *prog;

void die_usage(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Dispatches argv[1] to one of cmds; prints the group's --help. */
int run_subcommand(const char *group, const struct subcommand *cmds, size_t n,
		   int argc, char **argv);
int parse_u64(const char *s, const char *what, uint64_t *out);
/* DEV: a path, an index (0) or a PCI address (0000:01:00.0). */
int resolve_device(const char *dev, char *path, size_t n);
int open_device(const char *dev);
/* Writes len bytes to path; prints the error and returns -1 on failure. */
int write_file(const char *path, const void *buf, uint64_t len);
int get_info(int fd, struct mcmgpu_info *info);
int dma_transfer(int fd, bool from_gpu, void *buf, uint64_t gpu_addr,
		 uint64_t length);
void json_str(FILE *f, const char *s);
uint64_t xorshift64(uint64_t *state);
double now_seconds(void);

int cmd_info(int argc, char **argv);
int cmd_dma(int argc, char **argv);
int cmd_finepack(int argc, char **argv);
int cmd_cpelide(int argc, char **argv);
/* Runs a checked trace through the FinePack core into mem (host memory). */
int fp_host_run(const struct fp_config *cfg, const struct fp_trace_view *view,
		uint8_t *mem, struct fp_stats *out);

#endif /* MCMGPU_TOOL_UTIL_H */
