/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Programs as concurrent streams of one program (mcmgpu workload streams;
 * CPElide §VI's applications "extended to run multiple parallel streams
 * to mimic concurrent jobs"; docs/cpelide.md, Multi-stream in the core).
 */
#ifndef MCMGPU_TOOL_PROG_STREAMS_H
#define MCMGPU_TOOL_PROG_STREAMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PROG_STREAMS_MAX	16
/* Program i's objects move up by i << PROG_STREAMS_SHIFT (64 GiB apart). */
#define PROG_STREAMS_SHIFT	36

/*
 * Writes to out_path one program running in[0..n) (2..PROG_STREAMS_MAX)
 * at once: program i's kernels on stream i + 1, launches interleaved one
 * each in turn (each program's objects and copies before its kernel),
 * its objects and every address inside them moved up by i << 36, kernel
 * ids renumbered in launch order, one END. 0, or -EINVAL with the
 * reason in err (out_path is then removed).
 */
int prog_streams_merge(const char *const *in, uint32_t n,
		       const char *out_path, bool text, char *err,
		       size_t errlen);

#endif /* MCMGPU_TOOL_PROG_STREAMS_H */
