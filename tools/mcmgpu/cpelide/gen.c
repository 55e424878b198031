// SPDX-License-Identifier: GPL-2.0
/* mcmgpu cpelide gen: write a workload's launch sequence (cpe_workloads.c). */
#include <errno.h>
#include <string.h>

#include "cpe_tool.h"
#include "opts.h"
#include "cli.h"

static void usage(FILE *f)
{
	fprintf(f, "usage: mcmgpu cpelide gen WORKLOAD [--chiplets N] -o FILE\n"
		"       mcmgpu cpelide gen --list\n\n"
		"Writes the launch sequence of a workload modeled on one of\n"
		"the paper's %zu applications (Table II).\n", cpe_napps);
}

int cpe_cmd_gen(int argc, char **argv)
{
	struct common_opts co = COMMON_OPTS(usage, 1);
	const char *name = NULL, *path = NULL;
	static const struct option opts[] = {
		{ "list", no_argument, NULL, 'l' },
		OPTION_CHIPLETS, OPTION_HELP, { }
	};
	size_t i;
	FILE *f;
	int c;

	while ((c = common_parse(&co, argc, argv, "o:h", opts, NULL)) != -1) {
		if (c == 'l') {
			for (i = 0; i < cpe_napps; i++)
				printf("%s %s\n", cpe_apps[i].name,
				       cpe_apps[i].low_reuse ? "low" : "moderate-high");
			return 0;
		}
		if (c == 'o')
			path = optarg;
	}
	if (optind + 1 < argc)
		die_usage("cpelide gen: unexpected argument '%s'", argv[optind + 1]);
	if (optind < argc)
		name = argv[optind];
	if (!name || !path)
		die_usage("cpelide gen: WORKLOAD and -o FILE are required");
	for (i = 0; i < cpe_napps; i++)
		if (!strcmp(name, cpe_apps[i].name))
			break;
	if (i == cpe_napps)
		die_usage("cpelide gen: unknown workload '%s' (see --list)", name);
	f = fopen(path, "w");
	if (!f) {
		fprintf(stderr, "%s: %s: %s\n", prog, path, strerror(errno));
		return 1;
	}
	fprintf(f, "# %s-like launch sequence, %u chiplets (mcmgpu cpelide gen)\n",
		name, co.chiplets);
	cpe_app_emit(&cpe_apps[i], f, co.chiplets);
	if (fclose(f)) {
		fprintf(stderr, "%s: %s: %s\n", prog, path, strerror(errno));
		return 1;
	}
	return 0;
}
