// SPDX-License-Identifier: GPL-2.0
/*
 * mcmgpu run: one program through the GPU timing core, on the device or
 * --host, with the mechanisms the options enable (lib/gpu_run.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../commands.h"
#include "accelsim.h"
#include "cli.h"
#include "gpu_cli.h"
#include "gpu_run.h"
#include "json.h"
#include "opts.h"
#include "prog_file.h"

#define MAX_SETS 256

static void usage(FILE *f)
{
	fprintf(f,
		"usage: %s run PROGRAM|DIR [--host] [-d DEV] [--config NAME] [--set FIELD=VALUE]...\n"
		"          [--chiplets N] [--barre off|on|fbarre|least|valkyrie] [--merge N]\n"
		"          [--shadow]\n"
		"          [--finepack MODE] [--cpelide MODE] [--cxl off|DEVICE-SPEC]\n"
		"          [--adsm MODE] [--streams G] [--timeline CYCLES]\n"
		"          [--progress] [--json]\n"
		"Runs PROGRAM (a program file of either encoding: mcmgpu workload gen,\n"
		"import, convert) or DIR (an Accel-Sim trace directory, imported first as\n"
		"mcmgpu workload import does) through the GPU timing core with every\n"
		"enabled mechanism,\n"
		"and prints cycles per kernel and in total, IPC, hit rates and queue\n"
		"occupancies of every level, and each mechanism's counters.\n"
		"  --host             run in-process instead of on the device\n"
		"  -d, --device DEV   the device (default %s)\n"
		"  --config NAME      a paper's configuration (mcmgpu gpu config lists them;\n"
		"                     default %s)\n"
		"  --set FIELD=VALUE  override one parameter (repeatable)\n"
		"                     (migrate=acud: ACUD page migration, Barre Chord's\n"
		"                     Fig 22 baseline, threshold migrate_threshold; --host)\n"
		"                     (mgvm=on: MGvm, a GMMU a chiplet walking page tables\n"
		"                     spread over the chiplets, Barre Chord's Fig 21\n"
		"                     baseline, GMMU latency mgvm_lat; --host)\n"
		"  --chiplets N       chiplets (1..%u on the host, 1..%u on the device)\n"
		"  --barre MODE       translation: off (TLBs and a conventional IOMMU),\n"
		"                     on (Barre: coalescing allocation and PEC), fbarre\n"
		"                     (F-Barre: Barre, in-package translation between the\n"
		"                     chiplets and coalescing-aware walker scheduling),\n"
		"                     least or valkyrie (Barre off with Barre Chord's\n"
		"                     baselines: peers' L2 TLBs over the link, or peer\n"
		"                     L1 TLB probing and L2 TLB prefetch; the same as\n"
		"                     --set xl_share=MODE)\n"
		"                     (default off; needs translate=1, the default)\n"
		"  --merge N          Barre, F-Barre: a coalescing group may hold up to N\n"
		"                     consecutive pages a chiplet, 1..4 (default 1; the\n"
		"                     paper's F-Barre is --barre fbarre --merge 2)\n"
		"  --shadow           Barre: check every coalesced translation by a true walk\n"
		"  --finepack MODE    remote stores: off (the per-sector path), p2p, wc,\n"
		"                     finepack, dma, gps or alt (the remote write queue;\n"
		"                     gps and alt: FinePack §VI-B's comparisons; docs/gpu.md;\n"
		"                     the same as --set finepack=MODE)\n"
		"  --cpelide MODE     kernel-boundary coherence of remote data: off (an L2\n"
		"                     caches only its own chiplet's memory), baseline,\n"
		"                     cpelide, hmg or ideal (L2s cache remote data;\n"
		"                     docs/gpu.md; the same as --set cpelide=MODE)\n"
		"  --adsm MODE        objects shared with the CPU: off (COPY records are\n"
		"                     explicit copies, timed on PCIe if pcie_copies=1, the\n"
		"                     adsm preset's default), batch, lazy or rolling (every\n"
		"                     object shared, COPY records the CPU's accesses;\n"
		"                     docs/gpu.md; the same as --set adsm=MODE)\n"
		"  --cxl SPEC         CXL-GPU: off (every object in the chiplets' DRAM), or\n"
		"                     MEDIA[:sr=MODE][:ds=on|off][:ports=N][:ctrl=NS]\n"
		"                     [:gc=on|off][:from=K]: objects K.. (default 0: all)\n"
		"                     in CXL memory behind the root complex, endpoints of\n"
		"                     MEDIA dram, optane, znand or nand; sr off, naive,\n"
		"                     dyn, sr or max (default sr), ports 1, 2, 4 or 8\n"
		"                     (default 4), as mcmgpu cxl replay names them; e.g.\n"
		"                     znand:sr=sr:ds=on (--set cxl_*=... says the same);\n"
		"                     or the paper's baselines, every object migrated\n"
		"                     to GPU memory on page faults by the host runtime:\n"
		"                     uvm (from host memory) or gds[:media=MEDIA] (from\n"
		"                     the storage, default znand), each with\n"
		"                     [:batch=N][:page=BYTES][:gpu=KIB][:rt=NS] (--set\n"
		"                     uvm=on|gds, uvm_*=...; docs/gpu.md)\n"
		"  --streams G        run the program's streams concurrently on G\n"
		"                     equal groups of chiplets, stream s >= 1 on group\n"
		"                     (s - 1) %% G, stream 0 alone on every chiplet\n"
		"                     (default: kernels one after another; docs/cpelide.md)\n"
		"  --timeline CYCLES  --host, with --cxl MEDIA: sample the root complex\n"
		"                     every CYCLES cycles (ingress queue, load and store\n"
		"                     latency, GC, DS staging; docs/gpu.md, CXL-GPU in\n"
		"                     the core); the run's timing is the same\n"
		"  --progress         a progress line per kernel on stderr\n"
		"  --json             JSON (the same from the device and --host)\n"
		"  --bench            instead of the result, the run's wall-clock time and\n"
		"                     warp instructions a second, as JSON (make bench)\n",
		prog, DEFAULT_DEVICE, GPU_CONFIG_DEFAULT, GPU_MAX_CHIPLETS,
		MCMGPU_MAX_CHIPLETS);
}

enum {
	OPT_CONFIG = 0x100, OPT_SET, OPT_BARRE, OPT_SHADOW, OPT_PROGRESS,
	OPT_FINEPACK, OPT_CPELIDE, OPT_CXL, OPT_ADSM, OPT_BENCH, OPT_MERGE,
	OPT_STREAMS, OPT_TIMELINE,
};

static const struct option run_options[] = {
	OPTION_JSON, OPTION_HOST, OPTION_DEVICE, OPTION_CHIPLETS, OPTION_HELP,
	{ "config", required_argument, NULL, OPT_CONFIG },
	{ "set", required_argument, NULL, OPT_SET },
	{ "barre", required_argument, NULL, OPT_BARRE },
	{ "merge", required_argument, NULL, OPT_MERGE },
	{ "shadow", no_argument, NULL, OPT_SHADOW },
	{ "progress", no_argument, NULL, OPT_PROGRESS },
	{ "finepack", required_argument, NULL, OPT_FINEPACK },
	{ "cpelide", required_argument, NULL, OPT_CPELIDE },
	{ "streams", required_argument, NULL, OPT_STREAMS },
	{ "timeline", required_argument, NULL, OPT_TIMELINE },
	{ "cxl", required_argument, NULL, OPT_CXL },
	{ "adsm", required_argument, NULL, OPT_ADSM },
	{ "bench", no_argument, NULL, OPT_BENCH },
	{ }
};

static uint32_t parse_barre(const char *s)
{
	if (!strcmp(s, "off"))
		return GPU_RUN_BARRE_OFF;
	if (!strcmp(s, "on"))
		return GPU_RUN_BARRE_ON;
	if (!strcmp(s, "fbarre"))
		return GPU_RUN_BARRE_FBARRE;
	die_usage("--barre: '%s' is not off, on, fbarre, least or valkyrie", s);
	return 0;
}

#define CXL_SETS 8

/*
 * --cxl off|MEDIA[:KEY=VALUE]...: the overrides it stands for, into
 * buf, pointed to from set[]; how many.
 */
/*
 * An Accel-Sim trace directory imported into a temporary binary program
 * (as `mcmgpu workload import DIR` writes it); its path into tmp.
 */
static int import_dir(const char *dir, char *tmp, size_t len, char *err,
		      size_t errlen)
{
	const char *base = getenv("TMPDIR");
	struct prog_out *out;
	int fd, ret;

	snprintf(tmp, len, "%s/mcmgpu-run-XXXXXX", base && *base ? base : "/tmp");
	fd = mkstemp(tmp);
	if (fd < 0) {
		int e = errno;

		snprintf(err, errlen, "a temporary file in %.256s: %s",
			 base && *base ? base : "/tmp", strerror(e));
		return -e;
	}
	close(fd);
	out = prog_out_open(tmp, false, err, errlen);
	if (!out) {
		unlink(tmp);
		return -EIO;
	}
	ret = accelsim_import(dir, prog_out_sink, out, err, errlen);
	if (ret && *prog_out_error(out))
		snprintf(err, errlen, "%s", prog_out_error(out));
	if (ret) {
		char scratch[256];

		prog_out_close(out, scratch, sizeof(scratch));
	} else {
		ret = prog_out_close(out, err, errlen);
	}
	if (ret)
		unlink(tmp);
	return ret;
}

/*
 * The KEY=VALUE settings after a --cxl spec's first word (strtok_r's
 * save), each an override keys[] names, appended to set[0..n).
 */
static int spec_settings(const char *spec, char **save,
			 const char *const keys[][2], size_t nkeys,
			 const char *names, char buf[][64], char **set, int n)
{
	char *tok;
	size_t k;

	while ((tok = strtok_r(NULL, ":", save))) {
		char *eq = strchr(tok, '=');

		if (!eq)
			die_usage("--cxl: '%s' is not KEY=VALUE", tok);
		*eq = 0;
		for (k = 0; k < nkeys; k++)
			if (!strcmp(tok, keys[k][0]))
				break;
		if (k == nkeys)
			die_usage("--cxl: unknown key '%s' (%s)", tok, names);
		if (n == CXL_SETS)
			die_usage("--cxl: '%s' has too many settings", spec);
		snprintf(buf[n], 64, "%s=%s", keys[k][1], eq + 1);
		set[n] = buf[n];
		n++;
	}
	return n;
}

/*
 * --cxl uvm|gds[:KEY=VALUE]...: CXL-GPU's baselines (docs/gpu.md, UVM and
 * GDS in the core), as overrides.
 */
static int parse_uvm(const char *spec, char buf[][64], char **set)
{
	static const char *const keys[][2] = {
		{ "batch", "uvm_batch" }, { "page", "uvm_page" },
		{ "gpu", "uvm_gpu_kib" }, { "rt", "uvm_runtime_ns" },
		{ "media", "cxl_media" },
	};
	char copy[256], *tok, *save = NULL;
	bool gds = !strncmp(spec, "gds", 3);
	int n = 0;

	if (strlen(spec) >= sizeof(copy))
		die_usage("--cxl: '%s' is too long", spec);
	strcpy(copy, spec);
	tok = strtok_r(copy, ":", &save);
	if (strcmp(tok, "uvm") && strcmp(tok, "gds"))
		die_usage("--cxl: '%s' does not start with off, uvm, gds or a medium (dram, optane, znand, nand)",
			  spec);
	snprintf(buf[n], 64, "uvm=%s", gds ? "gds" : "on");
	set[n] = buf[n];
	n++;
	/* media (the last key) is GDS's storage only. */
	return spec_settings(spec, &save, keys, ARRAY_SIZE(keys) - !gds,
			     gds ? "batch, page, gpu, rt, media" :
				   "batch, page, gpu, rt", buf, set, n);
}

static int parse_cxl(const char *spec, char buf[][64], char **set)
{
	static const char *const keys[][2] = {
		{ "sr", "cxl_sr" }, { "ds", "cxl_ds" }, { "ports", "cxl_ports" },
		{ "ctrl", "cxl_ctrl_ns" }, { "gc", "cxl_gc" },
		{ "from", "cxl_first_object" },
	};
	char copy[256], *tok, *save = NULL;
	int n = 0;

	if (!strcmp(spec, "off")) {
		snprintf(buf[0], 64, "cxl=off");
		set[0] = buf[0];
		return 1;
	}
	if (!strncmp(spec, "uvm", 3) || !strncmp(spec, "gds", 3))
		return parse_uvm(spec, buf, set);
	if (strlen(spec) >= sizeof(copy))
		die_usage("--cxl: '%s' is too long", spec);
	strcpy(copy, spec);
	tok = strtok_r(copy, ":", &save);
	if (!tok || strchr(tok, '='))
		die_usage("--cxl: '%s' does not start with off or a medium (dram, optane, znand, nand)",
			  spec);
	snprintf(buf[n], 64, "cxl=on");
	set[n] = buf[n];
	n++;
	snprintf(buf[n], 64, "cxl_media=%s", tok);
	set[n] = buf[n];
	n++;
	return spec_settings(spec, &save, keys, ARRAY_SIZE(keys),
			     "sr, ds, ports, ctrl, gc, from", buf, set, n);
}

int cmd_run(int argc, char **argv)
{
	struct common_opts co = COMMON_OPTS(usage, 1);
	struct gpu_run_opts o = { 0 };
	struct gpu_run_result r;
	const char *preset = GPU_CONFIG_DEFAULT, *path, *file;
	char tmp[4096];
	struct stat st;
	char *sets[MAX_SETS + 2 + CXL_SETS], merge[32];
	char cxl_sets[CXL_SETS][64];
	int nsets = 0, c, ret = -EIO, fd = -1;
	char err[512], chip[32], fp_set[64], cpe_set[64], adsm_set[64];
	char xls_set[64];
	bool bench = false, barre_given = false;
	int cxl_given = 0;
	uint32_t merge_n = 0;
	double t0;

	co.max_chiplets = GPU_MAX_CHIPLETS;
	while ((c = common_parse(&co, argc, argv, "", run_options, NULL)) != -1) {
		switch (c) {
		case OPT_CONFIG:
			preset = optarg;
			break;
		case OPT_SET:
			if (nsets == MAX_SETS)
				die_usage("--set: at most %d overrides", MAX_SETS);
			sets[nsets++] = optarg;
			break;
		case OPT_BARRE:
			barre_given = true;
			/* Least and Valkyrie: Barre off and an override. */
			if (!strcmp(optarg, "least") ||
			    !strcmp(optarg, "valkyrie")) {
				if (nsets == MAX_SETS)
					die_usage("--set: at most %d overrides",
						  MAX_SETS);
				snprintf(xls_set, sizeof(xls_set),
					 "xl_share=%s", optarg);
				sets[nsets++] = xls_set;
				o.barre = GPU_RUN_BARRE_OFF;
				break;
			}
			o.barre = parse_barre(optarg);
			break;
		case OPT_MERGE:
			merge_n = parse_arg_range(optarg, "--merge", 1, 4);
			break;
		case OPT_SHADOW:
			o.shadow = true;
			break;
		case OPT_PROGRESS:
			o.progress = true;
			break;
		case OPT_FINEPACK:
			/* An override, so --set finepack=... says the same. */
			if (nsets == MAX_SETS)
				die_usage("--set: at most %d overrides", MAX_SETS);
			snprintf(fp_set, sizeof(fp_set), "finepack=%s", optarg);
			sets[nsets++] = fp_set;
			break;
		case OPT_CPELIDE:
			if (nsets == MAX_SETS)
				die_usage("--set: at most %d overrides", MAX_SETS);
			snprintf(cpe_set, sizeof(cpe_set), "cpelide=%s", optarg);
			sets[nsets++] = cpe_set;
			break;
		case OPT_CXL:
			if (cxl_given++)
				die_usage("--cxl: give it once");
			if (nsets + CXL_SETS > MAX_SETS)
				die_usage("--set: at most %d overrides", MAX_SETS);
			nsets += parse_cxl(optarg, cxl_sets, &sets[nsets]);
			break;
		case OPT_ADSM:
			if (nsets == MAX_SETS)
				die_usage("--set: at most %d overrides", MAX_SETS);
			snprintf(adsm_set, sizeof(adsm_set), "adsm=%s", optarg);
			sets[nsets++] = adsm_set;
			break;
		case OPT_BENCH:
			bench = true;
			break;
		case OPT_STREAMS:
			o.streams = parse_arg_range(optarg, "--streams", 1,
						    GPU_MAX_CHIPLETS);
			break;
		case OPT_TIMELINE:
			o.timeline = parse_arg_range(optarg, "--timeline", 1,
						     UINT64_MAX / 2);
			break;
		}
	}
	if (o.timeline && !co.host)
		die_usage("--timeline runs with --host only (the device's result "
			  "has no room for samples)");
	path = common_operand(&co, argc, argv);
	file = path;
	/* --chiplets is one more override, applied last. */
	if (co.chiplets_given) {
		snprintf(chip, sizeof(chip), "chiplets=%u", co.chiplets);
		sets[nsets++] = chip;
	}
	/* --merge is fbarre_merge, and --barre fbarre sets fbarre=1. */
	if (merge_n) {
		snprintf(merge, sizeof(merge), "fbarre_merge=%u", merge_n);
		sets[nsets++] = merge;
	}
	if (gpu_config_from_args(&o.cfg, preset, sets, nsets, err, sizeof(err)))
		die_usage("%s", err);
	if (o.cfg.fbarre && !barre_given)
		o.barre = GPU_RUN_BARRE_FBARRE;
	if (o.cfg.fbarre && o.barre != GPU_RUN_BARRE_FBARRE)
		die_usage("fbarre=1 needs --barre fbarre, not --barre %s",
			  o.barre == GPU_RUN_BARRE_ON ? "on" : "off");
	o.cfg.fbarre = o.barre == GPU_RUN_BARRE_FBARRE;
	if (o.cfg.fbarre_merge > 1 && o.barre == GPU_RUN_BARRE_OFF)
		die_usage("--merge %u needs --barre on or fbarre", o.cfg.fbarre_merge);
	if (o.cfg.fbarre_merge > 1 && o.cfg.chiplets > 4)
		die_usage("--merge %u: group expansion is for at most 4 chiplets "
			  "(§VI), not %u", o.cfg.fbarre_merge, o.cfg.chiplets);
	if (o.cfg.xl_share && o.barre != GPU_RUN_BARRE_OFF)
		die_usage("xl_share=%s needs Barre off, not --barre %s",
			  o.cfg.xl_share == GPU_XLS_LEAST ? "least" : "valkyrie",
			  o.barre == GPU_RUN_BARRE_ON ? "on" : "fbarre");
	/* barre_sched: Barre's walkers with F-Barre's scheduling (Fig 18). */
	if (o.cfg.barre_sched && o.barre != GPU_RUN_BARRE_ON &&
	    o.barre != GPU_RUN_BARRE_FBARRE)
		die_usage("barre_sched=1 needs --barre on (or fbarre, which "
			  "schedules anyway)");
	if (o.cfg.xl_share && !o.cfg.translate)
		die_usage("--barre %s needs translation (translate=1)",
			  o.cfg.xl_share == GPU_XLS_LEAST ? "least" : "valkyrie");
	if (o.barre != GPU_RUN_BARRE_OFF && !o.cfg.translate)
		die_usage("--barre %s needs translation (translate=1)",
			  o.barre == GPU_RUN_BARRE_ON ? "on" : "fbarre");
	if (o.timeline && !o.cfg.cxl)
		die_usage("--timeline samples CXL memory: it needs --cxl MEDIA");
	if (o.cfg.migrate && !co.host)
		die_usage("migrate=acud runs with --host only (the device's page "
			  "tables belong to mcmgpu.ko)");
	if (o.cfg.mgvm && !co.host)
		die_usage("mgvm=on runs with --host only (the device translates "
			  "through barre_iommu.ko, which has no GMMUs)");
	t0 = now_seconds();
	if (!stat(path, &st) && S_ISDIR(st.st_mode)) {
		if (import_dir(path, tmp, sizeof(tmp), err, sizeof(err))) {
			fprintf(stderr, "%s: run %s: import: %s\n", prog, path, err);
			return 1;
		}
		file = tmp;
	}
	if (co.host) {
		ret = gpu_run_host(file, &o, &r, err, sizeof(err));
	} else {
		fd = open_device(co.device);
		if (fd >= 0) {
			ret = gpu_run_device(fd, file, &o, &r, err, sizeof(err));
			close(fd);
		}
	}
	if (file == tmp)
		unlink(tmp);
	if (fd < 0 && !co.host)
		return 1;
	if (ret) {
		fprintf(stderr, "%s: run %s: %s\n", prog, path, err);
		return 1;
	}
	if (bench) {
		double secs = now_seconds() - t0;
		struct json j;

		json_begin(&j, stdout);
		json_string(&j, "program", path);
		json_string(&j, "where", co.host ? "host" : "device");
		json_u64(&j, "warp_insts", r.core.warp_insts);
		json_double(&j, "seconds", 3, secs);
		json_double(&j, "warp_insts_per_s", 0, secs > 0 ? r.core.warp_insts / secs : 0);
		json_end(&j);
	} else if (co.json) {
		struct json j;

		json_begin(&j, stdout);
		/* Its name only: the device's and the host's paths may differ. */
		json_string(&j, "program", strrchr(path, '/') ? strrchr(path, '/') + 1 : path);
		gpu_run_json(&j, &o, &r);
		json_end(&j);
	} else {
		gpu_run_text(stdout, &o, &r);
	}
	gpu_run_result_free(&r);
	return 0;
}
