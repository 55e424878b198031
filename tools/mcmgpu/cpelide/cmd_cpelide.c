// SPDX-License-Identifier: GPL-2.0
/*
 * mcmgpu cpelide replay: replay a launch sequence through the device's
 * global command processor (one launch ioctl per record) or through the
 * same model core on the host.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "cpe_seq.h"
#include "cpe_tool.h"
#include "cpelide.h"
#include "device.h"
#include "json.h"
#include "opts.h"
#include "stats.h"
#include "util.h"

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

static void record_error(const char *path, unsigned int line, unsigned int arg,
			 const char *what, unsigned long long value)
{
	fprintf(stderr, "%s: %s: line %u: ", prog, path, line);
	if (arg)
		fprintf(stderr, "argument %u: ", arg);
	fprintf(stderr, "%s (value %llu)\n", what, value);
}

/* Same records, same order, same core: host and device counters match. */
static int replay_host(struct cpe_seq *seq, const char *path,
		       struct mcmgpu_cpe_stats *out)
{
	struct cpe_model *m = calloc(1, sizeof(*m));
	const struct mcmgpu_cpe_record *reset = &seq->rec[0];
	struct cpe_config cfg;
	struct cpe_error err;
	void *arena = NULL;
	const char *why;
	size_t i;
	int ret = 1;

	cpe_config_of_reset(&cfg, reset);
	if (!cpe_config_valid(&cfg, &why)) {
		fprintf(stderr, "%s: %s: %s\n", prog, path, why);
		goto out;
	}
	arena = calloc(1, cpe_arena_bytes(&cfg));
	if (!m || !arena) {
		fprintf(stderr, "%s: out of memory\n", prog);
		goto out;
	}
	cpe_model_init(m, &cfg, arena);
	for (i = 1; i < seq->n; i++) {
		if (cpe_record_check(m, &seq->rec[i], &err)) {
			record_error(path, seq->line[i], err.arg, err.what, err.value);
			goto out;
		}
		cpe_model_record(m, &seq->rec[i]);
	}
	cpe_model_finish(m);
	*out = m->stats;
	ret = 0;
out:
	free(arena);
	free(m);
	return ret;
}

int cpe_launch(int fd, const struct mcmgpu_cpe_record *r,
	       struct mcmgpu_cpe_launch_result *res)
{
	struct mcmgpu_launch ln = {
		.size = sizeof(ln), .record_ptr = (uintptr_t)r,
		.record_size = sizeof(*r), .result_ptr = (uintptr_t)res,
		.result_size = sizeof(*res),
	};

	memset(res, 0, sizeof(*res));
	return ioctl(fd, MCMGPU_IOCTL_LAUNCH, &ln) ? -errno : 0;
}

static int replay_device(struct cpe_seq *seq, const char *path, int fd,
			 struct mcmgpu_cpe_stats *out)
{
	struct mcmgpu_cpe_launch_result res;
	struct mcmgpu_cpe_record end = { .type = MCMGPU_CPE_REC_END };
	size_t i;
	int ret = 0;

	for (i = 0; i < seq->n && !ret; i++)
		ret = cpe_launch(fd, &seq->rec[i], &res);
	if (!ret && seq->rec[seq->n - 1].type != MCMGPU_CPE_REC_END)
		ret = cpe_launch(fd, &end, &res);
	if (ret == -EINVAL && res.error.what[0]) {
		res.error.what[sizeof(res.error.what) - 1] = '\0';
		record_error(path, i ? seq->line[i - 1] : 0, res.error.index,
			     res.error.what, res.error.value);
		return 1;
	}
	if (ret) {
		fprintf(stderr, "%s: LAUNCH: %s\n", prog, strerror(-ret));
		return 1;
	}
	*out = res.stats;
	return 0;
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
	struct mcmgpu_cpe_stats stats;
	struct mcmgpu_info info;
	const char *path;
	char msg[512];
	int c, fd = -1, ret;

	while ((c = getopt_long(argc, argv, "d:h", opts, NULL)) != -1) {
		if (common_opt(&co, c, optarg))
			continue;
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
	ret = co.host ? replay_host(&seq, path, &stats) :
			replay_device(&seq, path, fd, &stats);
	if (!ret) {
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
