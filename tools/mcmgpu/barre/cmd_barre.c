// SPDX-License-Identifier: GPL-2.0
/*
 * mcmgpu barre replay: replay a Barre trace (allocations and per-chiplet
 * accesses) through the chiplets' TLBs and the IOMMU's walkers with PEC.
 * The replay is lib/barre_replay.c's, on the host backend (--host) or the
 * device's; this file reads the options and prints the counters.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "barre_replay.h"
#include "barre_tool.h"
#include "device.h"
#include "fbarre.h"
#include "json.h"
#include "opts.h"
#include "stats.h"
#include "cli.h"

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
	BS(merged_groups),
	STAT_NEWLINE,
	BS(l2_misses),
	BS(ats_requests_sent),
	BS(inpackage_lookups),
	BS(local_hits),
	BS(remote_requests),
	BS(remote_hits),
	BS(remote_false_positives),
	STAT_RATIO("remote_hit_rate", STAT_SHARE, struct mcmgpu_barre_stats,
		   remote_hits, remote_requests),
	BS(lcf_hits),
	BS(lcf_true_positives),
	STAT_RATIO("lcf_true_positive_rate", STAT_SHARE,
		   struct mcmgpu_barre_stats, lcf_true_positives, lcf_hits),
	BS(filter_messages),
	BS(filter_messages_dropped),
	BS(filter_overflows),
	BS(sibling_tlb_reads),
	BS(filter_probes),
	BS(inpackage_mismatches),
	BS(sched_moves),
};

static const struct stat_table barre_table = STAT_TABLE(barre_rows,
	"{ats_requests} ATS requests: {walks} walks, {coalesced} coalesced "
	"({coalesced_share}), mean ATS {mean_ats_cycles} cycles, "
	"{modeled_cycles} modeled cycles; {groups} groups over "
	"{grouped_pages} of {pages} pages, shadow mismatches "
	"{shadow_mismatches}\n");

/* The device's chiplets and frames into cfg: its fd, or -1 (said why). */
static int open_for_replay(const char *dev, struct barre_replay_cfg *cfg)
{
	struct mcmgpu_info info;
	int fd = open_device(dev);

	if (fd < 0)
		return -1;
	if (get_info(fd, &info)) {
		close(fd);
		return -1;
	}
	cfg->chiplets = info.chiplets;
	cfg->frames = info.vram_per_chiplet / 4096;
	return fd;
}

/* Reads and parses TRACE: 0, or 1 after saying why. */
static int load_trace(const char *path, struct barre_trace *t)
{
	char err[256];
	size_t len;
	char *text = read_file(path, &len);
	int ret;

	if (!text)
		return 1;
	ret = barre_trace_parse(text, len, t, err, sizeof(err));
	free(text);
	if (ret) {
		fprintf(stderr, "%s: %s: %s\n", prog, path,
			ret == -ENOMEM ? "out of memory" : err);
		return 1;
	}
	return 0;
}

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
		"at one local frame in every chiplet (Barre on) or page by page.\n"
		"F-Barre (§V) adds coalescing-aware walker scheduling, translation\n"
		"inside the package (filters, peer chiplets' TLBs) and groups of\n"
		"several pages a chiplet (--merge); the paper's F-Barre is\n"
		"--mode fbarre --merge 2.\n\n"
		"TRACE, one record a line, '#' comments:\n"
		"  alloc ID BYTES policy=chunk|rr|kwc [g=PAGES] [map=C0,C1,...]\n"
		"  access CHIPLET ID BYTE_OFFSET [r|w]\n"
		"  free ID\n"
		"ID: a number (0x1 is 1) or a name such as A or matrix_b (a letter\n"
		"or '_', then letters, digits, '_', '.' or '-'; up to 63). BYTES is\n"
		"rounded up to whole 4096-byte pages, as an allocator does; an\n"
		"access may use all of the last page. An error names its line.\n\n"
		"  --host             run the same cores here, no device\n"
		"  -d, --device DEV   /dev path, index or PCI address (default 0);\n"
		"                     needs barre_iommu.ko\n"
		"  --chiplets N       chiplets (--host: default %d; on the device it\n"
		"                     must match the device's)\n"
		"  --vram-per-chiplet S  memory per chiplet (--host: default 64M; on\n"
		"                     the device it must match)\n"
		"  --barre on|off     coalescing groups and PEC (default on)\n"
		"  --walkers N        page-table walkers, 1..%d (default %d)\n"
		"  --mode M           barre: PEC only (default); sched: and\n"
		"                     coalescing-aware scheduling; fbarre: and\n"
		"                     in-package translation\n"
		"  --merge N          pages a chiplet a group may merge: 1 (default),\n"
		"                     2 or 4 (at most 4 chiplets)\n"
		"  --filter-rows N    F-Barre's cuckoo filter rows: 256 (default),\n"
		"                     512 or 1024 (x 4 ways, 9-bit fingerprints)\n"
		"  --drop PCT         lose PCT %% of filter-update messages (0..100)\n"
		"  --sched-moves N    times scheduling may pass a request, 1..255\n"
		"                     (default %d)\n"
		"  --shadow           walk every coalesced page too; exit 1 on a\n"
		"                     mismatch\n"
		"  --fragment PCT     take PCT %% of every pool's frames at random\n"
		"                     first (--host; --seed S, default 1)\n"
		"  --dump-pt FILE     every mapped page at the end of the trace:\n"
		"                     ID 0xVPN 0xPFN CHIPLET 0xCOAL_BITMAP POSITION\n"
		"                     (objects in the order their IDs first appear)\n"
		"  --json             machine-readable counters\n"
		"  -h, --help         this text\n",
		MCMGPU_DEFAULT_CHIPLETS, MCMGPU_BARRE_MAX_WALKERS,
		MCMGPU_BARRE_WALKERS, MCMGPU_FBARRE_SCHED_MOVES);
}

int barre_cmd_replay(int argc, char **argv)
{
	enum { O_BARRE = 256, O_WALKERS, O_SHADOW, O_DUMP, O_VRAM, O_FRAG, O_SEED,
	       O_MODE, O_MERGE, O_ROWS, O_DROP, O_MOVES };
	static const struct option opts[] = {
		{ "mode", required_argument, NULL, O_MODE },
		{ "merge", required_argument, NULL, O_MERGE },
		{ "filter-rows", required_argument, NULL, O_ROWS },
		{ "drop", required_argument, NULL, O_DROP },
		{ "sched-moves", required_argument, NULL, O_MOVES },
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
	struct barre_replay_cfg cfg = { .barre = true,
				      .walkers = MCMGPU_BARRE_WALKERS,
				      .fragment_seed = 1, .merge = 1,
				      .filter_rows = MCMGPU_FBARRE_FILTER_ROWS };
	uint32_t moves = MCMGPU_FBARRE_SCHED_MOVES;
	const char *mode = "barre";
	uint64_t vram = MCMGPU_DEFAULT_VRAM_PER_CHIPLET;
	bool vram_given = false;
	int fd = -1;
	struct mcmgpu_barre_stats st;
	const char *path, *dump = NULL;
	struct barre_backend backend;
	struct barre_trace t;
	char err[256];
	int c, ret;

	while ((c = common_parse(&co, argc, argv, "d:h", opts, NULL)) != -1) {
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
			vram_given = true;
			break;
		case O_FRAG:
			cfg.fragment_pct = parse_arg_range(optarg, "--fragment", 0, 99);
			break;
		case O_SEED:
			cfg.fragment_seed = parse_arg(optarg, "--seed");
			break;
		case O_MODE:
			if (strcmp(optarg, "barre") && strcmp(optarg, "sched") &&
			    strcmp(optarg, "fbarre"))
				die_usage("--mode: '%s' is not barre, sched or fbarre",
					  optarg);
			mode = optarg;
			break;
		case O_MERGE:
			cfg.merge = parse_arg_range(optarg, "--merge", 1, 4);
			if (cfg.merge == 3)
				die_usage("--merge: 3 is not 1, 2 or 4");
			break;
		case O_ROWS:
			cfg.filter_rows = parse_arg_range(optarg, "--filter-rows",
							  256, 1024);
			if (cfg.filter_rows & (cfg.filter_rows - 1))
				die_usage("--filter-rows: %u is not 256, 512 or 1024",
					  cfg.filter_rows);
			break;
		case O_DROP:
			cfg.drop_ppm = parse_arg_range(optarg, "--drop", 0, 100) *
				       10000;
			break;
		case O_MOVES:
			moves = parse_arg_range(optarg, "--sched-moves", 1, 255);
			break;
		}
	}
	cfg.sched_moves = strcmp(mode, "barre") ? moves : 0;
	cfg.sharing = !strcmp(mode, "fbarre");
	if (!cfg.barre && (strcmp(mode, "barre") || cfg.merge > 1))
		die_usage("--mode %s and --merge need --barre on", mode);
	if (cfg.merge > 1 && co.chiplets > 4 && co.host)
		die_usage("--merge %u: group expansion is for at most 4 chiplets "
			  "(§VI), not %u", cfg.merge, co.chiplets);
	path = common_operand(&co, argc, argv);
	cfg.chiplets = co.chiplets;
	cfg.frames = vram / 4096;
	if (!co.host) {
		if (cfg.fragment_pct)
			die_usage("--fragment is for --host (the device's pools "
				  "are the device's)");
		fd = open_for_replay(co.device, &cfg);
		if (fd < 0)
			return 1;
		/* The device has its own geometry: a different one is an error. */
		if ((co.chiplets_given && co.chiplets != cfg.chiplets) ||
		    (vram_given && vram / 4096 != cfg.frames)) {
			fprintf(stderr, "%s: barre replay: the device has %u chiplets "
				"of %llu MiB; --chiplets and --vram-per-chiplet must "
				"match it (or use --host)\n", prog, cfg.chiplets,
				(unsigned long long)(cfg.frames * 4096 >> 20));
			close(fd);
			return 2;
		}
	}
	if (load_trace(path, &t)) {
		if (fd >= 0)
			close(fd);
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
	backend = (struct barre_backend){
		.ops = co.host ? &barre_host_ops : &barre_device_ops, .fd = fd,
	};
	ret = barre_replay(&backend, &t, &cfg, &st, err, sizeof(err));
	barre_trace_free(&t);
	if (fd >= 0)
		close(fd);
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
		json_string(&j, "mode", mode);
		json_u64(&j, "merge", cfg.merge);
		json_u64(&j, "walkers", cfg.walkers);
		json_u64(&j, "filter_rows", cfg.filter_rows);
		json_u64(&j, "drop_ppm", cfg.drop_ppm);
		json_u64(&j, "sched_moves_bound", cfg.sched_moves);
		json_break(&j, " ");
		stats_json(&j, &barre_table, &st);
		json_break(&j, " ");
		json_open(&j, "pwq_occupancy", '[');
		for (c = 0; c <= MCMGPU_BARRE_PWQ_ENTRIES; c++)
			json_u64(&j, NULL, st.pwq_occupancy[c]);
		json_close(&j);
		json_end(&j);
	} else {
		printf("barre %s, mode %s, merge %u: ", cfg.barre ? "on" : "off",
		       mode, cfg.merge);
		stats_text(stdout, &barre_table, &st);
	}
	if (st.inpackage_mismatches) {
		fprintf(stderr, "%s: %llu in-package translations differ from the "
			"walk\n", prog, (unsigned long long)st.inpackage_mismatches);
		return 1;
	}
	if (cfg.shadow && st.shadow_mismatches) {
		fprintf(stderr, "%s: %llu coalesced translations differ from the walk\n",
			prog, (unsigned long long)st.shadow_mismatches);
		return 1;
	}
	return 0;
}

static void bench_usage(FILE *f)
{
	fprintf(f,
		"usage: mcmgpu barre bench TRACE [--host] [--repeat R] [--warmup W]\n"
		"                        [-d DEV] [--mode barre|sched|fbarre] [--merge N]\n"
		"       mcmgpu barre bench --alloc\n"
		"       mcmgpu barre bench --filter\n\n"
		"Translations (ATS requests served, and with --mode fbarre those\n"
		"made in the package and the filter probes) per second of TRACE's\n"
		"replay through the device from here, or the same cores here\n"
		"(--host), R times (default 3) after W untimed replays (default 1:\n"
		"under TCG the first replay also translates the guest's code);\n"
		"--alloc: allocation latency of the allocator core, Barre on and\n"
		"off, in pools 0/25/50/75/90 %% taken; --filter: lookups per second\n"
		"of one F-Barre cuckoo filter (256 rows x 4 ways, 900\n"
		"fingerprints). JSON.\n");
}

static int bench_alloc(void)
{
	static const uint32_t pct[] = { 0, 25, 50, 75, 90 };
	const uint32_t rounds = 200;
	struct json j;
	size_t i;

	json_begin(&j, stdout);
	json_string(&j, "what", "alloc 1 MiB (256 pages, chunk g=16) and free, 4 x 1 GiB pools");
	for (i = 0; i < ARRAY_SIZE(pct); i++) {
		char key[32];
		int b;

		for (b = 0; b < 2; b++) {
			double s;
			uint64_t grouped;
			int ret = barre_alloc_bench(4, 262144, pct[i], b, 256, rounds,
						    &s, &grouped);

			if (ret) {
				fprintf(stderr, "%s: barre bench --alloc: %s\n", prog,
					strerror(-ret));
				return 1;
			}
			snprintf(key, sizeof(key), "%s_f%u_us", b ? "barre" : "plain",
				 pct[i]);
			json_break(&j, " ");
			json_double(&j, key, 2, s / rounds * 1e6);
			snprintf(key, sizeof(key), "%s_f%u_grouped", b ? "barre" : "plain",
				 pct[i]);
			json_u64(&j, key, grouped / rounds);
		}
	}
	json_end(&j);
	return 0;
}

/* Lookups a second of one cuckoo filter as F-Barre fills it. */
static int bench_filter(void)
{
	static struct fbarre_filter f;
	const uint64_t probes = 20000000;
	uint64_t i, hits = 0;
	double t0, dt;
	struct json j;

	fbarre_filter_clear(&f);
	for (i = 0; i < 900; i++)
		fbarre_filter_add(&f, 256, 0x100000 + i * 7);
	t0 = now_seconds();
	for (i = 0; i < probes; i++)
		hits += fbarre_filter_has(&f, 256, 0x100000 + i % 4096);
	dt = now_seconds() - t0;
	json_begin(&j, stdout);
	json_string(&j, "what", "cuckoo filter lookups, 256 rows x 4 ways, 900 items");
	json_u64(&j, "probes", probes);
	json_u64(&j, "hits", hits);
	json_double(&j, "seconds", 3, dt);
	json_double(&j, "lookups_per_s", 0, probes / dt);
	json_end(&j);
	return 0;
}

int barre_cmd_bench(int argc, char **argv)
{
	struct common_opts co = COMMON_OPTS(bench_usage, MCMGPU_MIN_CHIPLETS);
	struct barre_replay_cfg cfg = { .barre = true, .walkers = MCMGPU_BARRE_WALKERS,
				      .chiplets = MCMGPU_DEFAULT_CHIPLETS,
				      .frames = MCMGPU_DEFAULT_VRAM_PER_CHIPLET / 4096 };
	struct mcmgpu_barre_stats st;
	const char *path = NULL, *mode = "barre";
	unsigned int repeat = 3, warmup = 1, r;
	struct barre_backend backend;
	struct barre_trace t;
	double t0, dt;
	struct json j;
	enum { O_ALLOC = 256, O_FILTER, O_REPEAT, O_WARMUP, O_MODE, O_MERGE };
	static const struct option opts[] = {
		{ "alloc", no_argument, NULL, O_ALLOC },
		{ "filter", no_argument, NULL, O_FILTER },
		{ "repeat", required_argument, NULL, O_REPEAT },
		{ "warmup", required_argument, NULL, O_WARMUP },
		{ "mode", required_argument, NULL, O_MODE },
		{ "merge", required_argument, NULL, O_MERGE },
		OPTION_HOST, OPTION_DEVICE, OPTION_HELP, { }
	};
	char err[256];
	int c, fd = -1, ret = 0;

	while ((c = common_parse(&co, argc, argv, "d:h", opts, NULL)) != -1) {
		switch (c) {
		case O_ALLOC:
			return bench_alloc();
		case O_FILTER:
			return bench_filter();
		case O_REPEAT:
			repeat = parse_arg_range(optarg, "--repeat", 1, 1000);
			break;
		case O_WARMUP:
			warmup = parse_arg_range(optarg, "--warmup", 0, 1000);
			break;
		case O_MODE:
			mode = optarg;
			if (strcmp(mode, "barre") && strcmp(mode, "sched") &&
			    strcmp(mode, "fbarre"))
				die_usage("--mode: '%s' is not barre, sched or fbarre",
					  mode);
			break;
		case O_MERGE:
			cfg.merge = parse_arg_range(optarg, "--merge", 1, 4);
			if (cfg.merge == 3)
				die_usage("--merge: 3 is not 1, 2 or 4");
			break;
		}
	}
	if (optind + 1 < argc)
		die_usage("barre bench: unexpected argument '%s'", argv[optind + 1]);
	if (optind == argc)
		die_usage("barre bench: which TRACE?");
	path = argv[optind];
	cfg.sharing = !strcmp(mode, "fbarre");
	cfg.sched_moves = strcmp(mode, "barre") ? MCMGPU_FBARRE_SCHED_MOVES : 0;
	cfg.filter_rows = MCMGPU_FBARRE_FILTER_ROWS;
	if (!co.host) {
		fd = open_for_replay(co.device, &cfg);
		if (fd < 0)
			return 1;
	}
	if (load_trace(path, &t)) {
		if (fd >= 0)
			close(fd);
		return 1;
	}
	backend = (struct barre_backend){
		.ops = co.host ? &barre_host_ops : &barre_device_ops, .fd = fd,
	};
	for (r = 0; r < warmup && !ret; r++)
		ret = barre_replay(&backend, &t, &cfg, &st, err, sizeof(err));
	backend.run_seconds = 0;
	t0 = now_seconds();
	for (r = 0; r < repeat && !ret; r++)
		ret = barre_replay(&backend, &t, &cfg, &st, err, sizeof(err));
	dt = now_seconds() - t0;
	barre_trace_free(&t);
	if (fd >= 0)
		close(fd);
	if (ret) {
		fprintf(stderr, "%s: %s: %s\n", prog, path, err);
		return 1;
	}
	json_begin(&j, stdout);
	json_string(&j, "path", co.host ? "host" : "device");
	json_string(&j, "mode", mode);
	json_u64(&j, "merge", cfg.merge ? cfg.merge : 1);
	json_u64(&j, "inpackage_translations", st.local_hits + st.remote_hits);
	json_u64(&j, "filter_probes", st.filter_probes);
	json_double(&j, "inpackage_translations_per_s", 0,
		    (st.local_hits + st.remote_hits) * repeat / dt);
	json_double(&j, "filter_probes_per_s", 0, st.filter_probes * repeat / dt);
	json_u64(&j, "ats_requests", st.ats_requests);
	json_u64(&j, "accesses", st.accesses);
	json_u64(&j, "repeat", repeat);
	json_u64(&j, "warmup", warmup);
	json_double(&j, "seconds", 3, dt);
	json_double(&j, "translations_per_s", 0, st.ats_requests * repeat / dt);
	json_double(&j, "accesses_per_s", 0, st.accesses * repeat / dt);
	/* The phases alone: without the allocations and frees around them. */
	json_double(&j, "run_seconds", 4, backend.run_seconds);
	json_double(&j, "run_translations_per_s", 0,
		    st.ats_requests * repeat / backend.run_seconds);
	json_end(&j);
	return 0;
}

const struct subcommand barre_commands[] = {
	{ "bench", "translations per second, host or device; allocation latency",
	  barre_cmd_bench },
	{ "replay", "replay a Barre trace through the TLBs and the IOMMU",
	  barre_cmd_replay },
	{ "gen", "write a trace modeled on one of the paper's applications",
	  barre_cmd_gen },
	{ }
};
