// SPDX-License-Identifier: GPL-2.0
/*
 * mcmgpu barre replay: replay a Barre trace (allocations and per-chiplet
 * accesses) through the chiplets' TLBs and the IOMMU's walkers with PEC.
 * --host runs the three cores here in the epoch-synchronous loop; the
 * device path (ATS through barre_iommu.ko) is not built yet.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "barre_replay.h"
#include "barre_tool.h"
#include "json.h"
#include "opts.h"
#include "stats.h"
#include "util.h"

#define BS(field) STAT(struct mcmgpu_barre_stats, field)

static const struct stat_row barre_rows[] = {
	BS(ats_requests),
	BS(walks),
	BS(coalesced),
	STAT_RATIO("coalesced_share", STAT_SHARE, struct mcmgpu_barre_stats,
		   coalesced, ats_requests),
	BS(pec_hits),
	BS(pec_misses),
	BS(pec_evictions),
	BS(shadow_mismatches),
	BS(translation_faults),
	STAT_RATIO("mean_ats_cycles", STAT_MEAN, struct mcmgpu_barre_stats,
		   ats_round_trip, ats_requests),
	STAT_RATIO("mean_iommu_cycles", STAT_MEAN, struct mcmgpu_barre_stats,
		   iommu_cycles, ats_requests),
	STAT_NEWLINE,
	BS(accesses),
	BS(l1_hits),
	BS(l2_hits),
	BS(mshr_merges),
	BS(stall_cycles),
	BS(access_faults),
	BS(shootdowns),
	BS(modeled_cycles),
	STAT_NEWLINE,
	BS(objects),
	BS(pages),
	BS(grouped_pages),
	BS(fallback_pages),
	BS(groups),
};

static const struct stat_table barre_table = STAT_TABLE(barre_rows,
	"{ats_requests} ATS requests: {walks} walks, {coalesced} coalesced "
	"({coalesced_share}), mean ATS {mean_ats_cycles} cycles, "
	"{modeled_cycles} modeled cycles; {groups} groups over "
	"{grouped_pages} of {pages} pages, shadow mismatches "
	"{shadow_mismatches}\n");

static void replay_usage(FILE *f)
{
	fprintf(f,
		"usage: mcmgpu barre replay TRACE --host [options]\n\n"
		"Replays a Barre trace: each chiplet runs its accesses in trace\n"
		"order through its L1 TLB (64 entries), L2 TLB (512, 16-way) and 16\n"
		"MSHRs; misses go to the IOMMU as ATS requests (150 cycles each way),\n"
		"which walks them (16 walkers, 500 cycles, 48-entry queue) and with\n"
		"Barre on completes the pending requests of a walked page's\n"
		"coalescing group by calculation (PEC). Allocations place each group\n"
		"at one local frame in every chiplet (Barre on) or page by page.\n\n"
		"TRACE, one record a line, '#' comments:\n"
		"  alloc ID BYTES policy=chunk|rr|kwc [g=PAGES] [map=C0,C1,...]\n"
		"  access CHIPLET ID BYTE_OFFSET [r|w]\n"
		"  free ID\n\n"
		"  --host             run the cores here (required for now: the\n"
		"                     device path through barre_iommu.ko is to come)\n"
		"  --chiplets N       chiplets (default %d)\n"
		"  --vram-per-chiplet S  memory per chiplet (default 64M)\n"
		"  --barre on|off     coalescing groups and PEC (default on)\n"
		"  --walkers N        page-table walkers, 1..%d (default %d)\n"
		"  --shadow           walk every coalesced page too; exit 1 on a\n"
		"                     mismatch\n"
		"  --fragment PCT     take PCT %% of every pool's frames at random\n"
		"                     first (--seed S, default 1)\n"
		"  --dump-pt FILE     every mapped page at the end of the trace:\n"
		"                     ID 0xVPN 0xPFN CHIPLET 0xCOAL_BITMAP POSITION\n"
		"  --json             machine-readable counters\n"
		"  -h, --help         this text\n",
		MCMGPU_DEFAULT_CHIPLETS, MCMGPU_BARRE_MAX_WALKERS,
		MCMGPU_BARRE_WALKERS);
}

int barre_cmd_replay(int argc, char **argv)
{
	enum { O_BARRE = 256, O_WALKERS, O_SHADOW, O_DUMP, O_VRAM, O_FRAG, O_SEED };
	static const struct option opts[] = {
		{ "barre", required_argument, NULL, O_BARRE },
		{ "walkers", required_argument, NULL, O_WALKERS },
		{ "shadow", no_argument, NULL, O_SHADOW },
		{ "dump-pt", required_argument, NULL, O_DUMP },
		{ "vram-per-chiplet", required_argument, NULL, O_VRAM },
		{ "fragment", required_argument, NULL, O_FRAG },
		{ "seed", required_argument, NULL, O_SEED },
		OPTION_CHIPLETS,
		OPTION_JSON,
		OPTION_HOST,
		OPTION_DEVICE,
		OPTION_HELP,
		{ }
	};
	struct common_opts co = COMMON_OPTS(replay_usage, MCMGPU_MIN_CHIPLETS);
	struct barre_host_cfg cfg = { .barre = true,
				      .walkers = MCMGPU_BARRE_WALKERS,
				      .fragment_seed = 1 };
	uint64_t vram = MCMGPU_DEFAULT_VRAM_PER_CHIPLET;
	struct mcmgpu_barre_stats st;
	const char *path, *dump = NULL;
	struct barre_trace t;
	char err[256];
	size_t len;
	char *text;
	int c, ret;

	while ((c = getopt_long(argc, argv, "d:h", opts, NULL)) != -1) {
		if (common_opt(&co, c, optarg))
			continue;
		switch (c) {
		case O_BARRE:
			if (strcmp(optarg, "on") && strcmp(optarg, "off"))
				die_usage("--barre: '%s' is not on or off", optarg);
			cfg.barre = !strcmp(optarg, "on");
			break;
		case O_WALKERS:
			cfg.walkers = parse_arg_range(optarg, "--walkers", 1,
						      MCMGPU_BARRE_MAX_WALKERS);
			break;
		case O_SHADOW:
			cfg.shadow = true;
			break;
		case O_DUMP:
			dump = optarg;
			break;
		case O_VRAM:
			vram = parse_arg_range(optarg, "--vram-per-chiplet",
					       MCMGPU_MIN_VRAM_PER_CHIPLET,
					       MCMGPU_MAX_VRAM_PER_CHIPLET);
			if (vram % 4096)
				die_usage("--vram-per-chiplet: not a multiple of 4096");
			break;
		case O_FRAG:
			cfg.fragment_pct = parse_arg_range(optarg, "--fragment", 0, 99);
			break;
		case O_SEED:
			cfg.fragment_seed = parse_arg(optarg, "--seed");
			break;
		}
	}
	path = common_operand(&co, argc, argv);
	if (!co.host) {
		fprintf(stderr, "%s: barre replay: the device path (ATS through "
			"barre_iommu.ko) is not built yet; use --host\n", prog);
		return 1;
	}
	cfg.chiplets = co.chiplets;
	cfg.frames = vram / 4096;
	text = read_file(path, &len);
	if (!text)
		return 1;
	ret = barre_trace_parse(text, len, &t, err, sizeof(err));
	free(text);
	if (ret) {
		fprintf(stderr, "%s: %s: %s\n", prog, path,
			ret == -ENOMEM ? "out of memory" : err);
		return 1;
	}
	if (dump) {
		cfg.dump_pt = fopen(dump, "w");
		if (!cfg.dump_pt) {
			fprintf(stderr, "%s: %s: %s\n", prog, dump, strerror(errno));
			barre_trace_free(&t);
			return 1;
		}
	}
	ret = barre_replay_host(&t, &cfg, &st, err, sizeof(err));
	barre_trace_free(&t);
	if (cfg.dump_pt && fclose(cfg.dump_pt) && !ret) {
		fprintf(stderr, "%s: %s: %s\n", prog, dump, strerror(errno));
		return 1;
	}
	if (ret) {
		fprintf(stderr, "%s: %s: %s\n", prog, path,
			ret == -ENOMEM && !err[0] ? "out of memory" : err);
		return 1;
	}
	if (co.json) {
		struct json j;

		json_begin(&j, stdout);
		json_u64(&j, "chiplets", cfg.chiplets);
		json_string(&j, "barre", cfg.barre ? "on" : "off");
		json_u64(&j, "walkers", cfg.walkers);
		json_break(&j, " ");
		stats_json(&j, &barre_table, &st);
		json_end(&j);
	} else {
		printf("barre %s: ", cfg.barre ? "on" : "off");
		stats_text(stdout, &barre_table, &st);
	}
	if (cfg.shadow && st.shadow_mismatches) {
		fprintf(stderr, "%s: %llu coalesced translations differ from the walk\n",
			prog, (unsigned long long)st.shadow_mismatches);
		return 1;
	}
	return 0;
}

const struct subcommand barre_commands[] = {
	{ "replay", "replay a Barre trace through the TLBs and the IOMMU",
	  barre_cmd_replay },
	{ }
};
