// SPDX-License-Identifier: GPL-2.0
/*
 * mcmgpu workload to MECH PROG: a program as the trace MECH's replay
 * reads (adapt.h has the mapping; docs/workloads.md explains it).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "adapt.h"
#include "cli.h"
#include "opts.h"
#include "prog_file.h"

static void to_usage(FILE *f)
{
	fprintf(f,
		"usage: mcmgpu workload to MECH PROG [--chiplets N] "
		"[--cta-policy chunk|rr]\n"
		"                          [--placement first-touch|interleave|chunk] "
		"[-o OUT]\n\n"
		"Writes program PROG (text or binary, '-' for stdin) as the trace "
		"MECH's\nreplay reads, to OUT (default stdout):\n"
		"  barre     an access trace     (mcmgpu barre replay OUT --host "
		"--chiplets N)\n"
		"  finepack  a store trace       (mcmgpu finepack replay OUT --host "
		"--chiplets N)\n"
		"  cpelide   a launch sequence   (mcmgpu cpelide replay OUT --host "
		"--chiplets N)\n"
		"  cxl       an SR/DS trace      (mcmgpu cxl replay OUT --host)\n"
		"  adsm      an object pattern   (the ADSM runtime: "
		"adapt_adsm_run())\n\n"
		"  --chiplets N       chiplets (default %u; barre, cpelide and adsm "
		"take\n"
		"                     at most 8, finepack and cxl 16)\n"
		"  --cta-policy P     thread block i on chiplet i / ceil(blocks / N) "
		"(chunk,\n"
		"                     the default) or i mod N (rr)\n"
		"  --placement P      4 KiB page p of an object on the chiplet that "
		"touches\n"
		"                     it first (first-touch), on p mod N "
		"(interleave), or\n"
		"                     objects split in N parts (chunk). Default: "
		"chunk for\n"
		"                     barre (which cannot take first-touch), "
		"first-touch for\n"
		"                     finepack and cpelide (which takes only that); "
		"cxl and\n"
		"                     adsm have one memory\n"
		"  -o, --output OUT   the trace's file\n\n"
		"Each chiplet's warp instructions issue in lockstep round-robin "
		"across the\nchiplets, one at a time; docs/workloads.md gives "
		"every rule.\n", MCMGPU_DEFAULT_CHIPLETS);
}

int cmd_workload_to(int argc, char **argv)
{
	struct common_opts co = COMMON_OPTS(to_usage, 1);
	enum { O_CTA = 0x100, O_PLACEMENT };
	static const struct option opts[] = {
		OPTION_CHIPLETS, OPTION_HELP,
		{ "cta-policy", required_argument, NULL, O_CTA },
		{ "placement", required_argument, NULL, O_PLACEMENT },
		{ "output", required_argument, NULL, 'o' },
		{ }
	};
	struct adapt_opts o = { .cta = ADAPT_CTA_CHUNK,
				.placement = ADAPT_PLACE_DEFAULT };
	const char *out_path = NULL, *prog_path;
	struct adapt_stats st;
	struct prog_in *in;
	char err[512];
	FILE *out;
	int c, v, ret;

	co.max_chiplets = ADAPT_MAX_CHIPLETS;
	while ((c = common_parse(&co, argc, argv, "o:h", opts, NULL)) != -1) {
		switch (c) {
		case O_CTA:
			v = adapt_cta_parse(optarg);
			if (v < 0)
				die_usage("--cta-policy: '%s' is not chunk or rr",
					  optarg);
			o.cta = v;
			break;
		case O_PLACEMENT:
			v = adapt_placement_parse(optarg);
			if (v < 0)
				die_usage("--placement: '%s' is not first-touch, "
					  "interleave or chunk", optarg);
			o.placement = v;
			break;
		case 'o':
			out_path = optarg;
			break;
		}
	}
	if (argc - optind != 2) {
		to_usage(stderr);
		return 2;
	}
	v = adapt_mech_parse(argv[optind]);
	if (v < 0)
		die_usage("workload to: '%s' is not barre, finepack, cpelide, cxl "
			  "or adsm", argv[optind]);
	o.mech = v;
	o.chiplets = co.chiplets;
	prog_path = argv[optind + 1];
	if (adapt_resolve(&o, err, sizeof(err)))
		die_usage("workload to %s: %s", argv[optind], err);

	in = prog_in_open(prog_path, err, sizeof(err));
	if (!in) {
		fprintf(stderr, "%s: %s\n", prog, err);
		return 1;
	}
	out = out_path && strcmp(out_path, "-") ? fopen(out_path, "w") : stdout;
	if (!out) {
		fprintf(stderr, "%s: %s: %s\n", prog, out_path, strerror(errno));
		prog_in_close(in);
		return 1;
	}
	ret = adapt_program(&o, prog_in_source, in, out, &st, err, sizeof(err));
	if (ret && st.source_failed)	/* names the file and the line */
		fprintf(stderr, "%s: %s\n", prog, prog_in_error(in));
	else if (ret)
		fprintf(stderr, "%s: %s: %s\n", prog, prog_path, err);
	prog_in_close(in);
	if (out != stdout && fclose(out) && !ret) {
		fprintf(stderr, "%s: %s: %s\n", prog, out_path, strerror(errno));
		ret = -EIO;
	}
	/* No half trace left behind to be replayed by mistake. */
	if (ret && out != stdout)
		unlink(out_path);
	return ret ? 1 : 0;
}
