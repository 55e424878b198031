// SPDX-License-Identifier: GPL-2.0
/*
 * mcmgpu cpelide replay: replay a launch sequence through the device's
 * global command processor (one launch ioctl per record) or through the
 * same model core on the host: lib/cpe_replay.c's loop on either backend.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cpe_replay.h"
#include "cpe_tool.h"
#include "cpelide.h"
#include "device.h"
#include "json.h"
#include "opts.h"
#include "stats.h"
#include "cli.h"

static const char * const policy_names[MCMGPU_CPE_POLICIES] = {
	[MCMGPU_CPE_POLICY_BASELINE] = "baseline",
	[MCMGPU_CPE_POLICY_CPELIDE] = "cpelide",
	[MCMGPU_CPE_POLICY_IDEAL] = "ideal",
	[MCMGPU_CPE_POLICY_HMG] = "hmg",
};

#define CPE(field) STAT(struct mcmgpu_cpe_stats, field)

static const struct stat_row cpe_rows[] = {
	CPE(kernels),
	CPE(launches),
	CPE(l2_invalidates),
	CPE(l2_flushes),
	CPE(baseline_invalidates),
	CPE(baseline_flushes),
	CPE(l1_invalidates),
	STAT_NEWLINE,
	CPE(l1_hits),
	CPE(l2_hits),
	CPE(l2_misses),
	CPE(remote_accesses),
	CPE(flits_l1_l2),
	CPE(flits_l2_l3),
	CPE(flits_remote),
	CPE(bytes_written_back),
	CPE(remote_uncached),
	CPE(writes_through),
	CPE(dram_lines),
	STAT_NEWLINE,
	CPE(modeled_cycles),
	CPE(sync_cycles),
	CPE(cp_cycles),
	CPE(table_peak_rows),
	CPE(coarsened_args),
	CPE(overflow_evictions),
	CPE(conservative_launches),
	CPE(bandwidth_cycles),
	CPE(dir_evictions),
	CPE(dir_invalidations),
	STAT_NEWLINE,
	CPE(oracle_violations),
	CPE(oracle_read_violations),
	CPE(oracle_order_violations),
	CPE(oracle_final_violations),
};

/* After "POLICY: ". */
static const struct stat_table cpe_table = STAT_TABLE(cpe_rows,
	"{kernels} kernels, {l2_invalidates} L2 invalidates and {l2_flushes} "
	"flushes (baseline {baseline_invalidates} + {baseline_flushes}), "
	"{modeled_cycles} modeled cycles, L2 hits {l2_hits} misses {l2_misses}, "
	"peak table rows {table_peak_rows}, oracle violations "
	"{oracle_violations}\n");

static void print_stats(const struct mcmgpu_cpe_stats *s,
			const struct common_opts *co, unsigned int policy,
			unsigned int flags)
{
	struct json j;

	if (!co->json) {
		printf("%s: ", policy_names[policy]);
		stats_text(stdout, &cpe_table, s);
		return;
	}
	json_begin(&j, stdout);
	json_string(&j, "policy", policy_names[policy]);
	json_u64(&j, "chiplets", co->chiplets);
	json_string(&j, "remote",
		    flags & MCMGPU_CPE_FLAG_CACHE_REMOTE ? "cache" : "home");
	json_break(&j, " ");
	stats_json(&j, &cpe_table, s);
	json_end(&j);
}

static void replay_error(const char *path, const struct replay_error *e)
{
	if (e->kind == REPLAY_ERR_TRACE) {
		fprintf(stderr, "%s: %s: %s\n", prog, path, e->rec.what);
	} else if (e->kind == REPLAY_ERR_CALL) {
		fprintf(stderr, "%s: %s\n", prog, e->rec.what);
	} else {
		fprintf(stderr, "%s: %s: line %u: ", prog, path, e->line);
		if (e->rec.index)
			fprintf(stderr, "argument %llu: ",
				(unsigned long long)e->rec.index);
		fprintf(stderr, "%s (value %llu)\n", e->rec.what,
			(unsigned long long)e->rec.value);
	}
}

static void replay_usage(FILE *f)
{
	fprintf(f,
		"usage: mcmgpu cpelide replay SEQ [options]\n\n"
		"Replays a launch sequence through the device's global command\n"
		"processor (one launch ioctl per record), which elides L2 flushes\n"
		"and invalidations under --policy cpelide, and checks every read\n"
		"with its coherence oracle.\n\n"
		"SEQ, one record a line, '#' comments:\n"
		"  alloc NAME BYTES\n"
		"  kernel NAME [chiplets=C0,C1,...] [passes=K] ARG...\n"
		"    ARG = OBJ:r|rw[:even|:unknown|:C=START-END[,C=START-END...]]\n"
		"  host_read OBJ [START-END]\n"
		"  host_write OBJ [START-END]\n"
		"  end\n\n"
		"  --policy P         baseline, cpelide (default), ideal or hmg\n"
		"  --remote R         where remote-homed data lives: home (default;\n"
		"                     served at the home, stores written through, as\n"
		"                     the paper's baseline) or cache (every L2 caches\n"
		"                     it, write-back); hmg always caches it\n"
		"  --chiplets N       chiplets the sequence uses (default: all the\n"
		"                     device has; %d with --host)\n"
		"  --json             machine-readable counters\n"
		"  --host             run the same model core here, no device\n"
		"  -d, --device DEV   /dev path, index or PCI address (default 0)\n"
		"  -h, --help         this text\n"
		"Exit status 1 when the oracle saw a violation (baseline, cpelide).\n",
		MCMGPU_DEFAULT_CHIPLETS);
}

int cpe_cmd_replay(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "policy", required_argument, NULL, 'p' },
		{ "remote", required_argument, NULL, 'r' },
		OPTION_CHIPLETS,
		OPTION_JSON,
		OPTION_HOST,
		OPTION_DEVICE,
		OPTION_HELP,
		{ }
	};
	struct common_opts co = COMMON_OPTS(replay_usage, 1);
	unsigned int policy = MCMGPU_CPE_POLICY_CPELIDE, flags = 0;
	struct cpe_seq seq = { 0 };
	struct cpe_backend backend;
	struct replay_error err;
	struct mcmgpu_cpe_stats stats;
	struct mcmgpu_info info;
	const char *path;
	char msg[512];
	int c, fd = -1, ret;

	while ((c = common_parse(&co, argc, argv, "d:h", opts, NULL)) != -1) {
		switch (c) {
		case 'p':
			for (policy = 0; policy < MCMGPU_CPE_POLICIES; policy++)
				if (!strcmp(optarg, policy_names[policy]))
					break;
			if (policy == MCMGPU_CPE_POLICIES)
				die_usage("--policy: '%s' is not baseline, cpelide, ideal or hmg",
					  optarg);
			break;
		case 'r':
			if (!strcmp(optarg, "cache"))
				flags = MCMGPU_CPE_FLAG_CACHE_REMOTE;
			else if (!strcmp(optarg, "home"))
				flags = 0;
			else
				die_usage("--remote: '%s' is not home or cache", optarg);
			break;
		}
	}
	path = common_operand(&co, argc, argv);
	if (!co.host) {
		fd = open_device(co.device);
		if (fd < 0 || get_info(fd, &info))
			return 1;
		if (!co.chiplets_given)
			co.chiplets = info.chiplets;
	}
	if (cpe_seq_load(path, co.chiplets, policy, &seq, msg, sizeof(msg))) {
		fprintf(stderr, "%s: %s\n", prog, msg);
		ret = 1;
		goto out;
	}
	seq.rec[0].flags = flags;
	backend = (struct cpe_backend){
		.ops = co.host ? &cpe_host_ops : &cpe_device_ops, .fd = fd,
	};
	ret = cpe_replay(&backend, &seq, &stats, &err) ? 1 : 0;
	if (ret) {
		replay_error(path, &err);
	} else {
		print_stats(&stats, &co, policy, flags);
		if (stats.oracle_violations && policy != MCMGPU_CPE_POLICY_IDEAL) {
			fprintf(stderr, "%s: %llu coherence oracle violations\n", prog,
				(unsigned long long)stats.oracle_violations);
			ret = 1;
		}
	}
out:
	cpe_seq_free(&seq);
	if (fd >= 0)
		close(fd);
	return ret;
}

const struct subcommand cpe_commands[] = {
	{ "replay", "replay a launch sequence on the device or the host",
	  cpe_cmd_replay },
	{ "gen", "write a workload's launch sequence", cpe_cmd_gen },
	{ "bench", "launches per second through the CP model", cpe_cmd_bench },
	{ }
};
