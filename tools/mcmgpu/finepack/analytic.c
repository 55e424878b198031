// SPDX-License-Identifier: GPL-2.0
/* mcmgpu finepack analytic: the closed-form efficiency model. */
#include <stdbool.h>
#include <string.h>

#include "fp_tool.h"
#include "json.h"
#include "opts.h"
#include "cli.h"

/* The columns are named after O: 24 without ECRC, 28 with. */
#define O24 MCMGPU_FP_OVERHEAD_NO_ECRC
#define O28 MCMGPU_FP_OVERHEAD_ECRC

/* notes/finepack.md §3: n stores of s bytes, each in its own line. */
static double fp_eff(uint32_t s, uint32_t h, uint32_t o, bool cap64)
{
	uint64_t n = FP_MAX_PAYLOAD / (h + s), payload;

	if (cap64 && n > FP_ENTRIES)
		n = FP_ENTRIES;
	payload = n * (h + s);
	return (double)(n * s) / (o + 4 * ((payload + 3) / 4));
}

static double plain_eff(uint32_t s, uint32_t o)
{
	return (double)s / fp_plain_tlp_bytes(0, s, o);
}

static void usage(FILE *f)
{
	fprintf(f, "usage: mcmgpu finepack analytic [--json] [--subheader H]\n\n"
		"Efficiency of plain P2P stores and of FinePack packets of\n"
		"one store per line (full 4 KiB payload, and capped at 64\n"
		"entries) for O = %d and %d (notes/finepack.md §3).\n", O24, O28);
}

int fp_cmd_analytic(int argc, char **argv)
{
	static const uint32_t sizes[] = { 1, 2, 4, 8, 16, 32, 40, 64, 128 };
	struct common_opts co = COMMON_OPTS(usage, MCMGPU_MIN_CHIPLETS);
	uint32_t h = MCMGPU_FP_SUBHEADER_DEFAULT;
	static const struct option opts[] = {
		{ "subheader", required_argument, NULL, 's' },
		OPTION_JSON, OPTION_HELP, { }
	};
	struct json j;
	size_t i;

	while (common_parse(&co, argc, argv, "h", opts, NULL) == 's')
		h = fp_parse_subheader(optarg);
	if (optind < argc)
		die_usage("finepack analytic: unexpected argument '%s'",
			  argv[optind]);
	if (co.json) {
		json_begin(&j, stdout);
		json_u64(&j, "subheader", h);
		json_open(&j, "rows", '[');
	} else {
		printf("%5s %9s %9s %11s %11s %8s %8s\n", "store", "plain24", "plain28",
		       "fp28_full", "fp28_cap64", "gain28", "gain24");
	}
	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		uint32_t s = sizes[i];
		double p24 = plain_eff(s, O24), p28 = plain_eff(s, O28);
		double f28 = fp_eff(s, h, O28, false), c28 = fp_eff(s, h, O28, true);
		double c24 = fp_eff(s, h, O24, true);

		if (!co.json) {
			printf("%5u %8.1f%% %8.1f%% %10.1f%% %10.1f%% %7.2fx %7.2fx\n",
			       s, 100 * p24, 100 * p28, 100 * f28, 100 * c28,
			       c28 / p28, c24 / p24);
			continue;
		}
		json_break(&j, " ");
		json_open(&j, NULL, '{');
		json_u64(&j, "store", s);
		json_double(&j, "plain24", 4, p24);
		json_double(&j, "plain28", 4, p28);
		json_double(&j, "fp24_cap64", 4, c24);
		json_double(&j, "fp28_full", 4, f28);
		json_double(&j, "fp28_cap64", 4, c28);
		json_double(&j, "gain28_cap64", 4, c28 / p28);
		json_double(&j, "gain24_cap64", 4, c24 / p24);
		json_close(&j);
	}
	if (co.json) {
		json_break(&j, "");
		json_close(&j);
		json_end(&j);
	}
	return 0;
}
