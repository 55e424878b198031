// SPDX-License-Identifier: GPL-2.0
/*
 * mcmgpu gpu: the GPU timing core (qemu-device/model/gpu_core.h). `gpu
 * config` shows a preset's parameters, each with its unit and source,
 * after any --set overrides: what `mcmgpu run --config NAME --set ...`
 * would run with.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_cli.h"
#include "gpu_tool.h"
#include "json.h"
#include "opts.h"

/* ---- mcmgpu gpu config ---------------------------------------------------- */

static void config_usage(FILE *f)
{
	fprintf(f, "usage: mcmgpu gpu config [NAME] [--json] [--set FIELD=VALUE ...]\n\n"
		"Shows a configuration of the GPU timing core: every parameter,\n"
		"its value, unit and source (the paper's table or section, or\n"
		"\"ours: ...\" where the paper is silent). Without NAME: the\n"
		"presets, then the default (" GPU_CONFIG_DEFAULT ").\n"
		"Options:\n"
		"  --set FIELD=VALUE  override a parameter (repeatable, in order):\n"
		"                     decimal with an optional k, M or G (x 1024),\n"
		"                     or a name: tb_sched=rr|chunk,\n"
		"                     warp_sched=lrr|gto, placement=chunk|rr|kwc|ft,\n"
		"                     translate=off|on\n"
		"  --json             {\"preset\", \"title\", \"config\", \"sources\"}\n"
		"Units: latencies in cycles, bandwidths in bytes a 1000 cycles,\n"
		"sizes in bytes (docs/gpu.md). Exit status 2 for an unknown\n"
		"preset, a bad --set or an inconsistent result.\n");
}

/* An enum field's value as its name ("gto"), else as a number. */
static void value_text(const struct gpu_config_field *f, uint32_t v,
		       char *buf, size_t len)
{
	const char *name;
	uint32_t n;

	if (!gpu_config_value_name(f, v, &name, &n))
		snprintf(buf, len, "%.*s", (int)n, name);
	else
		snprintf(buf, len, "%u", v);
}

/* What set field f last, or NULL. */
static const char *override_of(const struct gpu_config_field *f,
			       char *const *sets, int nsets)
{
	size_t n = strlen(f->name);
	int i;

	for (i = nsets - 1; i >= 0; i--)
		if (!strncmp(sets[i], f->name, n) && sets[i][n] == '=')
			return sets[i];
	return NULL;
}

static void print_text(const struct gpu_preset *p, struct gpu_config *c,
		       char *const *sets, int nsets)
{
	uint32_t i;

	printf("%s: %s\n", p->name, p->title);
	if (p->note)
		printf("%s\n", p->note);
	printf("\n%-15s %10s  %-18s %s\n", "field", "value", "unit", "source");
	for (i = 0; i < gpu_config_nfields; i++) {
		const struct gpu_config_field *f = &gpu_config_fields[i];
		const char *set = override_of(f, sets, nsets);
		char value[32];

		value_text(f, *gpu_config_u32(c, f), value, sizeof(value));
		printf("%-15s %10s  %-18s ", f->name, value, f->unit);
		if (set)
			printf("--set %s\n", set);
		else
			printf("%s\n", gpu_preset_source(p, f));
	}
}

static void print_json(const struct gpu_preset *p, struct gpu_config *c,
		       char *const *sets, int nsets, bool list)
{
	struct json j;
	char src[256];
	uint32_t i;

	json_begin(&j, stdout);
	json_string(&j, "preset", p->name);
	json_string(&j, "title", p->title);
	json_string(&j, "note", p->note);
	json_break(&j, " ");
	json_open(&j, "config", '{');
	for (i = 0; i < gpu_config_nfields; i++) {
		const struct gpu_config_field *f = &gpu_config_fields[i];

		json_break(&j, "  ");
		json_u64(&j, f->name, *gpu_config_u32(c, f));
	}
	json_break(&j, " ");
	json_close(&j);
	json_break(&j, " ");
	json_open(&j, "sources", '{');
	for (i = 0; i < gpu_config_nfields; i++) {
		const struct gpu_config_field *f = &gpu_config_fields[i];
		const char *set = override_of(f, sets, nsets);

		if (set)
			snprintf(src, sizeof(src), "--set %s", set);
		json_break(&j, "  ");
		json_string(&j, f->name, set ? src : gpu_preset_source(p, f));
	}
	json_break(&j, " ");
	json_close(&j);
	if (list) {
		json_break(&j, " ");
		json_open(&j, "presets", '[');
		for (i = 0; i < gpu_npresets; i++) {
			json_break(&j, "  ");
			json_open(&j, NULL, '{');
			json_string(&j, "name", gpu_presets[i].name);
			json_string(&j, "title", gpu_presets[i].title);
			json_close(&j);
		}
		json_break(&j, " ");
		json_close(&j);
	}
	json_break(&j, "");
	json_end(&j);
}

static int gpu_cmd_config(int argc, char **argv)
{
	struct common_opts co = COMMON_OPTS(config_usage, 1);
	enum { O_SET = 256 };
	static const struct option opts[] = {
		{ "set", required_argument, NULL, O_SET },
		OPTION_JSON, OPTION_HELP, { }
	};
	const struct gpu_preset *p;
	const char *name = NULL;
	struct gpu_config c;
	char **sets = NULL;
	int nsets = 0, ch;
	char err[512];
	uint32_t i;

	while ((ch = common_parse(&co, argc, argv, "h", opts, NULL)) != -1) {
		switch (ch) {
		case O_SET:
			sets = realloc(sets, (nsets + 1) * sizeof(*sets));
			if (!sets)
				fatal("out of memory");
			sets[nsets++] = optarg;
			break;
		}
	}
	if (optind + 1 < argc)
		die_usage("gpu config: unexpected argument '%s'",
			  argv[optind + 1]);
	if (optind < argc)
		name = argv[optind];
	if (gpu_config_from_args(&c, name, sets, nsets, err, sizeof(err)))
		die_usage("gpu config: %s", err);
	p = gpu_preset_find(name ? name : GPU_CONFIG_DEFAULT);
	if (co.json) {
		print_json(p, &c, sets, nsets, !name);
	} else {
		if (!name) {
			printf("presets:\n");
			for (i = 0; i < gpu_npresets; i++)
				printf("  %-9s %s\n", gpu_presets[i].name,
				       gpu_presets[i].title);
			printf("\nthe default, %s:\n\n", GPU_CONFIG_DEFAULT);
		}
		print_text(p, &c, sets, nsets);
	}
	free(sets);
	return 0;
}

const struct subcommand gpu_commands[] = {
	{ "config", "a preset's parameters, units and sources, with overrides",
	  gpu_cmd_config },
	{ }
};
