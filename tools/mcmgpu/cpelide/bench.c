// SPDX-License-Identifier: GPL-2.0
/* mcmgpu cpelide bench: launches per second through the CP model. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cpe_replay.h"
#include "cpe_tool.h"
#include "cpelide.h"
#include "device.h"
#include "json.h"
#include "opts.h"
#include "cli.h"

static void usage(FILE *f)
{
	fprintf(f, "usage: mcmgpu cpelide bench SEQ [--host] [-d DEV]\n\n"
		"Launches per second of SEQ through the device's command\n"
		"processor, or the same core on the host; JSON.\n\n"
		"  -d, --device DEV   /dev path, index or PCI address (default 0)\n");
}

int cpe_cmd_bench(int argc, char **argv)
{
	struct common_opts co = COMMON_OPTS(usage, 1);
	struct cpe_seq seq = { 0 };
	struct mcmgpu_cpe_stats stats;
	struct replay_error err;
	struct cpe_backend backend;
	const char *path = NULL;
	double t0, dt;
	struct json j;
	char msg[512];
	static const struct option opts[] = {
		OPTION_HOST, OPTION_DEVICE, OPTION_HELP, { }
	};
	int fd = -1;

	common_parse(&co, argc, argv, "d:h", opts, NULL);
	if (optind + 1 < argc)
		die_usage("cpelide bench: unexpected argument '%s'",
			  argv[optind + 1]);
	if (optind == argc)
		die_usage("cpelide bench: SEQ expected");
	path = argv[optind];
	if (cpe_seq_load(path, co.chiplets, MCMGPU_CPE_POLICY_CPELIDE, &seq, msg,
			 sizeof(msg))) {
		fprintf(stderr, "%s: %s\n", prog, msg);
		return 1;
	}
	if (!co.host) {
		fd = open_device(co.device);
		if (fd < 0)
			return 1;
	}
	backend = (struct cpe_backend){
		.ops = co.host ? &cpe_host_ops : &cpe_device_ops, .fd = fd,
	};
	t0 = now_seconds();
	if (cpe_replay(&backend, &seq, &stats, &err)) {
		fprintf(stderr, "%s: %s: %s\n", prog, path, err.rec.what);
		return 1;
	}
	dt = now_seconds() - t0;
	json_begin(&j, stdout);
	json_string(&j, "path", co.host ? "host" : "device");
	json_u64(&j, "launches", seq.n);
	json_double(&j, "seconds", 6, dt);
	json_double(&j, "launches_per_s", 1, seq.n / dt);
	json_end(&j);
	cpe_seq_free(&seq);
	if (fd >= 0)
		close(fd);
	return 0;
}
