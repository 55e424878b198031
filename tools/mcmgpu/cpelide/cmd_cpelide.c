// SPDX-License-Identifier: GPL-2.0
/*
 * mcmgpu cpelide: replay a launch sequence through the device's global
 * command processor (one launch ioctl per record) or through the same
 * model core on the host; generate workload sequences; time launches.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "cpelide.h"
#include "cpe_seq.h"
#include "util.h"

static const char * const policy_names[MCMGPU_CPE_POLICIES] = {
	[MCMGPU_CPE_POLICY_BASELINE] = "baseline",
	[MCMGPU_CPE_POLICY_CPELIDE] = "cpelide",
	[MCMGPU_CPE_POLICY_IDEAL] = "ideal",
};

struct cpe_opts {
	const char *devpath;
	unsigned int policy, chiplets;
	bool json, host, chiplets_given;
};

static void print_stats(const struct mcmgpu_cpe_stats *s, const struct cpe_opts *o)
{
	if (!o->json) {
		printf("%s: %llu kernels, %llu L2 invalidates and %llu flushes "
		       "(baseline %llu + %llu), %llu modeled cycles, "
		       "L2 hits %llu misses %llu, peak table rows %llu, "
		       "oracle violations %llu\n", policy_names[o->policy],
		       s->kernels, s->l2_invalidates, s->l2_flushes,
		       s->baseline_invalidates, s->baseline_flushes,
		       s->modeled_cycles, s->l2_hits, s->l2_misses,
		       s->table_peak_rows, s->oracle_violations);
		return;
	}
	printf("{\"policy\": \"%s\", \"chiplets\": %u,\n", policy_names[o->policy],
	       o->chiplets);
	printf(" \"kernels\": %llu, \"launches\": %llu, \"l2_invalidates\": %llu, "
	       "\"l2_flushes\": %llu, \"baseline_invalidates\": %llu, "
	       "\"baseline_flushes\": %llu, \"l1_invalidates\": %llu,\n",
	       s->kernels, s->launches, s->l2_invalidates, s->l2_flushes,
	       s->baseline_invalidates, s->baseline_flushes, s->l1_invalidates);
	printf(" \"l1_hits\": %llu, \"l2_hits\": %llu, \"l2_misses\": %llu, "
	       "\"remote_accesses\": %llu, \"flits_l1_l2\": %llu, "
	       "\"flits_l2_l3\": %llu, \"flits_remote\": %llu, "
	       "\"bytes_written_back\": %llu,\n", s->l1_hits, s->l2_hits,
	       s->l2_misses, s->remote_accesses, s->flits_l1_l2, s->flits_l2_l3,
	       s->flits_remote, s->bytes_written_back);
	printf(" \"modeled_cycles\": %llu, \"sync_cycles\": %llu, \"cp_cycles\": %llu, "
	       "\"table_peak_rows\": %llu, \"coarsened_args\": %llu, "
	       "\"overflow_evictions\": %llu, \"conservative_launches\": %llu,\n",
	       s->modeled_cycles, s->sync_cycles, s->cp_cycles, s->table_peak_rows,
	       s->coarsened_args, s->overflow_evictions, s->conservative_launches);
	printf(" \"oracle_violations\": %llu, \"oracle_read_violations\": %llu, "
	       "\"oracle_order_violations\": %llu, \"oracle_final_violations\": %llu}\n",
	       s->oracle_violations, s->oracle_read_violations,
	       s->oracle_order_violations, s->oracle_final_violations);
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

	cpe_config_defaults(&cfg, reset->chiplets, reset->policy, reset->mem_bytes);
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

static int launch(int fd, const struct mcmgpu_cpe_record *r,
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
		ret = launch(fd, &seq->rec[i], &res);
	if (!ret && seq->rec[seq->n - 1].type != MCMGPU_CPE_REC_END)
		ret = launch(fd, &end, &res);
	if (ret == -EINVAL && res.error.what[0]) {
		res.error.what[sizeof(res.error.what) - 1] = '\0';
		record_error(path, i ? seq->line[i - 1] : 0, res.error.index, res.error.what,
			     res.error.value);
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
		"  --policy P         baseline, cpelide (default) or ideal\n"
		"  --chiplets N       chiplets the sequence uses (default: all the\n"
		"                     device has; 4 with --host)\n"
		"  --json             machine-readable counters\n"
		"  --host             run the same model core here, no device\n"
		"  -d, --device DEV   /dev path, index or PCI address (default 0)\n"
		"  -h, --help         this text\n"
		"Exit status 1 when the oracle saw a violation (baseline, cpelide).\n");
}

static int cmd_replay(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "policy", required_argument, NULL, 'p' },
		{ "chiplets", required_argument, NULL, 'c' },
		{ "json", no_argument, NULL, 'j' },
		{ "host", no_argument, NULL, 'H' },
		{ "device", required_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	struct cpe_opts o = { .devpath = "/dev/mcmgpu0", .policy = MCMGPU_CPE_POLICY_CPELIDE,
			      .chiplets = 4 };
	struct cpe_seq seq = { 0 };
	struct mcmgpu_cpe_stats stats;
	struct mcmgpu_info info;
	char msg[512];
	uint64_t v;
	int c, fd = -1, ret;

	while ((c = getopt_long(argc, argv, "d:h", opts, NULL)) != -1) {
		switch (c) {
		case 'p':
			for (v = 0; v < MCMGPU_CPE_POLICIES; v++)
				if (!strcmp(optarg, policy_names[v]))
					break;
			if (v == MCMGPU_CPE_POLICIES)
				die_usage("--policy: '%s' is not baseline, cpelide or ideal",
					  optarg);
			o.policy = v;
			break;
		case 'c':
			if (parse_u64(optarg, "--chiplets", &v))
				return 2;
			if (v < 1 || v > MCMGPU_MAX_CHIPLETS)
				die_usage("--chiplets: %" PRIu64 " is not 1..8", v);
			o.chiplets = v;
			o.chiplets_given = true;
			break;
		case 'j':
			o.json = true;
			break;
		case 'H':
			o.host = true;
			break;
		case 'd':
			o.devpath = optarg;
			break;
		case 'h':
			replay_usage(stdout);
			return 0;
		default:
			replay_usage(stderr);
			return 2;
		}
	}
	if (optind + 1 != argc) {
		replay_usage(stderr);
		return 2;
	}
	if (!o.host) {
		fd = open_device(o.devpath);
		if (fd < 0 || get_info(fd, &info))
			return 1;
		if (!o.chiplets_given)
			o.chiplets = info.chiplets;
	}
	if (cpe_seq_load(argv[optind], o.chiplets, o.policy, &seq, msg, sizeof(msg))) {
		fprintf(stderr, "%s: %s\n", prog, msg);
		ret = 1;
		goto out;
	}
	ret = o.host ? replay_host(&seq, argv[optind], &stats) :
		       replay_device(&seq, argv[optind], fd, &stats);
	if (!ret) {
		print_stats(&stats, &o);
		if (stats.oracle_violations && o.policy != MCMGPU_CPE_POLICY_IDEAL) {
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

int cmd_cpelide_gen(int argc, char **argv);
int cmd_cpelide_bench(int argc, char **argv);

static const struct subcommand cpe_cmds[] = {
	{ "replay", "replay a launch sequence on the device or the host", cmd_replay },
	{ "gen", "write a workload's launch sequence", cmd_cpelide_gen },
	{ "bench", "launches per second through the CP model", cmd_cpelide_bench },
};

int cmd_cpelide(int argc, char **argv)
{
	return run_subcommand("cpelide", cpe_cmds, sizeof(cpe_cmds) / sizeof(cpe_cmds[0]), argc, argv);
}
