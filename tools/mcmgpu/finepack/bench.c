// SPDX-License-Identifier: GPL-2.0
/* mcmgpu finepack bench: replay throughput against memcpy of the trace. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "device.h"
#include "fp_replay.h"
#include "fp_tool.h"
#include "json.h"
#include "opts.h"
#include "cli.h"

static void usage(FILE *f)
{
	fprintf(f, "usage: mcmgpu finepack bench TRACE [--host] [--repeat N]\n"
		"       [--vram-per-chiplet S] [-d DEV]\n\n"
		"Replays TRACE N times (device, or the core with --host) and\n"
		"copies its bytes N times with memcpy; prints JSON with the\n"
		"stores per second of each and their ratio.\n");
}

int fp_cmd_bench(int argc, char **argv)
{
	struct fp_config cfg = {
		.chiplets = MCMGPU_DEFAULT_CHIPLETS,
		.subheader = MCMGPU_FP_SUBHEADER_DEFAULT,
		.overhead = MCMGPU_FP_OVERHEAD_ECRC,
		.vram_per_chiplet = MCMGPU_DEFAULT_VRAM_PER_CHIPLET,
	};
	struct common_opts co = COMMON_OPTS(usage, MCMGPU_MIN_CHIPLETS);
	struct mcmgpu_fp_replay_result res;
	struct fp_backend backend = { .ops = &fp_host_ops, .fd = -1 };
	struct fp_trace_view view;
	struct replay_error err;
	const char *path = NULL;
	double t0, t_replay, t_copy;
	uint64_t repeat = 3, r, vram_arg = 0;
	uint8_t *trace, *copy;
	struct json j;
	size_t len;
	char msg[512];
	static const struct option opts[] = {
		{ "repeat", required_argument, NULL, 'r' },
		{ "vram-per-chiplet", required_argument, NULL, 'm' },
		OPTION_HOST, OPTION_DEVICE, OPTION_HELP, { }
	};
	int c;

	while ((c = common_parse(&co, argc, argv, "d:h", opts, NULL)) != -1) {
		if (c == 'r' && (parse_u64(optarg, "--repeat", &repeat) || !repeat))
			return 2;
		if (c == 'm')
			vram_arg = parse_arg(optarg, "--vram-per-chiplet");
	}
	if (optind + 1 < argc)
		die_usage("finepack bench: unexpected argument '%s'",
			  argv[optind + 1]);
	if (optind == argc)
		die_usage("finepack bench: TRACE expected");
	path = argv[optind];
	if (vram_arg)
		cfg.vram_per_chiplet = vram_arg;
	trace = fp_trace_load(path, &len, msg, sizeof(msg));
	if (!trace) {
		fprintf(stderr, "%s: %s\n", prog, msg);
		return 1;
	}
	if (fp_replay_check(trace, len, &cfg, &view, &err)) {
		fprintf(stderr, "%s: %s: record %llu: %s\n", prog, path,
			(unsigned long long)err.rec.index, err.rec.what);
		return 1;
	}
	if (!co.host) {
		backend.ops = &fp_device_ops;
		backend.fd = open_device(co.device);
		if (backend.fd < 0)
			return 1;
	}
	backend.cfg = cfg;
	if (backend.ops->open(&backend, &err)) {
		fprintf(stderr, "%s: %s\n", prog, err.rec.what);
		return 1;
	}
	/*
	 * One replay first, not timed, on either path: it faults in the
	 * memory the trace touches, which the device's memory already is.
	 */
	t0 = 0;
	for (r = 0; r <= repeat; r++) {
		if (r == 1)
			t0 = now_seconds();
		if (backend.ops->run(&backend, trace, len, &view, &res, &err)) {
			fprintf(stderr, "%s: %s\n", prog, err.rec.what);
			return 1;
		}
	}
	t_replay = now_seconds() - t0;
	copy = malloc(len);
	if (!copy)
		fatal("out of memory");
	/* Faulted in first too, as the replay's memory was. */
	memcpy(copy, trace, len);
	t0 = now_seconds();
	for (r = 0; r < repeat; r++) {
		memcpy(copy, trace, len);
		__asm__ volatile("" : : "r"(copy) : "memory");
	}
	t_copy = now_seconds() - t0;
	json_begin(&j, stdout);
	json_string(&j, "path", co.host ? "host" : "device");
	json_u64(&j, "stores", view.hdr->nrecords);
	json_u64(&j, "trace_bytes", len);
	json_u64(&j, "repeat", repeat);
	json_double(&j, "replay_stores_per_s", 0, view.hdr->nrecords * repeat / t_replay);
	json_double(&j, "memcpy_stores_per_s", 0, view.hdr->nrecords * repeat / t_copy);
	json_double(&j, "replay_over_memcpy", 6, t_copy / t_replay);
	json_end(&j);
	backend.ops->close(&backend);
	free(copy);
	free(trace);
	if (backend.fd >= 0)
		close(backend.fd);
	return 0;
}
