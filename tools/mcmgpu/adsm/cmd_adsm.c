// SPDX-License-Identifier: GPL-2.0
/*
 * mcmgpu adsm: ADSM/GMAC runs. A pattern (adsm_patterns.c) runs on the
 * device, its objects mmapped at their GPU virtual addresses and kept
 * coherent by the driver, or with --host on the same cores here; the JSON
 * carries the counters, the notes' expected bytes and the verdict.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "adapt.h"
#include "adsm_rt.h"
#include "adsm_tool.h"
#include "file.h"
#include "device.h"
#include "json.h"
#include "opts.h"

/* ---- mcmgpu adsm run ------------------------------------------------------ */

static void run_usage(FILE *f)
{
	fprintf(f, "usage: mcmgpu adsm run PATTERN [--protocol P] [options]\n\n"
		"Runs an access pattern on shared objects (ADSM/GMAC): the CPU\n"
		"writes and reads them through mappings at their GPU addresses,\n"
		"the device's kernels compute on them, the driver keeps them\n"
		"coherent. PATTERN (notes/adsm.md §4.5):\n"
		"  pc         write all, launch, sync, read all\n"
		"  iter       write all; K x (launch, sync, read one element)\n"
		"  stencil    K Jacobi steps over two grids, a point source each\n"
		"  vadd       c = a + b over three objects\n"
		"  multipass  P passes writing all, then launch (P = K)\n"
		"  io         read(2) a file into an object, launch, write(2) it\n"
		"Options:\n"
		"  --protocol P      batch, lazy, rolling (default) or explicit\n"
		"                    (hand-written copies, the paper's CUDA bar)\n"
		"  --size BYTES      each object (default 1M; a multiple of 4)\n"
		"  --block BYTES     rolling's block (default 256K)\n"
		"  --rolling N       dirty blocks allowed (default 0: 2 more a\n"
		"                    object, the paper's adaptive size)\n"
		"  --iterations K    (default 4)\n"
		"  --seed N          the data (default 1)\n"
		"  --host            the same cores on this machine, no device\n"
		"  -d, --device DEV  (default " DEFAULT_DEVICE ")\n"
		"  --json            counters, expected bytes, verdict as JSON\n"
		"Exit status 1 when the CPU did not read what the GPU computed.\n");
}

static void print_json(const struct adsm_params *p,
		       const struct adsm_outcome *o, bool host, uint64_t other_va,
		       uint64_t wall_ns)
{
	const struct mcmgpu_adsm_stats *s = &o->st;
	struct json j;

	json_begin(&j, stdout);
	json_string(&j, "pattern", adsm_pattern_name(p->pattern));
	json_string(&j, "protocol", adsm_protocol_name(p->protocol));
	json_u64(&j, "size", p->size);
	json_u64(&j, "block", p->block);
	json_u64(&j, "rolling", s->rolling);
	json_u64(&j, "iterations", p->iterations);
	json_break(&j, "  ");
	json_u64(&j, "h2d_bytes", s->h2d_bytes);
	json_u64(&j, "d2h_bytes", s->d2h_bytes);
	json_u64(&j, "expected_h2d", o->exp_h2d);
	json_u64(&j, "expected_d2h", o->exp_d2h);
	json_u64(&j, "h2d_eager", s->h2d_evict);
	json_u64(&j, "h2d_call", s->h2d_call);
	json_u64(&j, "d2h_fault", s->d2h_fault);
	json_u64(&j, "d2h_call", s->d2h_call);
	json_break(&j, "  ");
	json_u64(&j, "faults", s->faults);
	json_u64(&j, "expected_faults",
		 p->protocol == ADSM_EXPLICIT ? 0 : o->exp_faults);
	json_u64(&j, "faults_read_invalid", s->faults_read_invalid);
	json_u64(&j, "faults_write_invalid", s->faults_write_invalid);
	json_u64(&j, "faults_write_readonly", s->faults_write_readonly);
	json_u64(&j, "refaults", s->refaults);
	json_u64(&j, "evictions", s->evictions);
	json_u64(&j, "dirty_peak", s->dirty_peak);
	json_break(&j, "  ");
	json_u64(&j, "launches", s->launches);
	json_u64(&j, "syncs", s->syncs);
	json_u64(&j, "transfers", s->transfers);
	json_u64(&j, "kernel_cycles", s->kernel_cycles);
	json_u64(&j, "xfer_cycles", s->xfer_cycles);
	json_u64(&j, "modeled_cycles", s->modeled_cycles);
	json_string(&j, "verified", o->verified ? "yes" : "no");
	/* Last: what differs between a device run and a host replay. */
	json_break(&j, "  ");
	json_open(&j, "guest", '{');
	json_string(&j, "run", host ? "host" : "device");
	json_u64(&j, "hw_faults", s->hw_faults);
	json_u64(&j, "fault_ns", s->fault_ns);
	json_u64(&j, "dma_wait_ns", s->dma_wait_ns);
	json_u64(&j, "mapped_elsewhere", other_va);
	json_u64(&j, "wall_ns", wall_ns);
	json_close(&j);
	json_end(&j);
}

static int adsm_cmd_run(int argc, char **argv)
{
	struct common_opts co = COMMON_OPTS(run_usage, MCMGPU_MIN_CHIPLETS);
	struct adsm_params p = {
		.protocol = MCMGPU_ADSM_ROLLING, .size = 1 << 20,
		.block = 256 << 10, .iterations = 4, .seed = 1,
	};
	const char *pattern = NULL, *why;
	struct adsm_outcome o;
	struct timespec t0, t1;
	struct adsm_device d;
	enum { O_PROTOCOL = 256, O_SIZE, O_BLOCK, O_ROLLING, O_ITERATIONS,
	       O_SEED };
	static const struct option opts[] = {
		{ "protocol", required_argument, NULL, O_PROTOCOL },
		{ "size", required_argument, NULL, O_SIZE },
		{ "block", required_argument, NULL, O_BLOCK },
		{ "rolling", required_argument, NULL, O_ROLLING },
		{ "iterations", required_argument, NULL, O_ITERATIONS },
		{ "seed", required_argument, NULL, O_SEED },
		OPTION_JSON, OPTION_HOST, OPTION_DEVICE, OPTION_CHIPLETS,
		OPTION_HELP, { }
	};
	struct adsm_rt *rt;
	int c, ret, v;

	while ((c = common_parse(&co, argc, argv, "d:h", opts, NULL)) != -1) {
		switch (c) {
		case O_PROTOCOL:
			v = adsm_protocol_parse(optarg);
			if (v < 0)
				die_usage("--protocol: '%s' is not batch, lazy, "
					  "rolling or explicit", optarg);
			p.protocol = v;
			break;
		case O_SIZE:
			p.size = parse_arg(optarg, "--size");
			break;
		case O_BLOCK:
			p.block = parse_arg(optarg, "--block");
			break;
		case O_ROLLING:
			p.rolling = parse_arg_range(optarg, "--rolling", 0,
						    MCMGPU_ADSM_ROLLING_MAX);
			break;
		case O_ITERATIONS:
			p.iterations = parse_arg_range(optarg, "--iterations", 1,
						       100000);
			break;
		case O_SEED:
			p.seed = parse_arg(optarg, "--seed");
			break;
		}
	}
	if (optind + 1 < argc)
		die_usage("adsm run: unexpected argument '%s'", argv[optind + 1]);
	if (optind == argc)
		die_usage("adsm run: which PATTERN?");
	pattern = argv[optind];
	v = adsm_pattern_parse(pattern);
	if (v < 0)
		die_usage("adsm run: no pattern '%s' (pc, iter, stencil, vadd, "
			  "multipass, io)", pattern);
	p.pattern = v;
	why = adsm_params_check(&p);
	if (why)
		die_usage("adsm run: %s", why);
	if (co.host) {
		rt = adsm_host_new(p.protocol, p.block, p.rolling, co.chiplets);
		if (!rt)
			fatal("out of memory");
	} else {
		if (co.chiplets_given)
			die_usage("adsm run: --chiplets is for --host (the "
				  "device has its own)");
		ret = adsm_device_open(&d, co.device, &p);
		if (ret)
			return 1;
		rt = &d.rt;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ret = adsm_run(rt, &p, &o);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (ret)
		fatal("adsm run %s (%s): %s", pattern,
		      adsm_protocol_name(p.protocol),
		      rt->err[0] ? rt->err : strerror(-ret));
	if (co.json) {
		print_json(&p, &o, co.host, co.host ? 0 : d.other_va,
			   (t1.tv_sec - t0.tv_sec) * 1000000000ULL +
			   t1.tv_nsec - t0.tv_nsec);
	} else {
		printf("%s, %s: H2D %llu bytes (expected %llu), D2H %llu "
		       "(expected %llu), %llu protocol faults, %llu modeled "
		       "cycles, %s\n", pattern, adsm_protocol_name(p.protocol),
		       (unsigned long long)o.st.h2d_bytes,
		       (unsigned long long)o.exp_h2d,
		       (unsigned long long)o.st.d2h_bytes,
		       (unsigned long long)o.exp_d2h,
		       (unsigned long long)o.st.faults,
		       (unsigned long long)o.st.modeled_cycles,
		       o.verified ? "verified" : "WRONG DATA");
	}
	if (co.host)
		adsm_host_free(rt);
	else
		close(d.fd);
	return o.verified ? 0 : 1;
}

/* ---- mcmgpu adsm replay ---------------------------------------------------- */

static void replay_usage(FILE *f)
{
	fprintf(f, "usage: mcmgpu adsm replay PATTERN-FILE [--protocol P] "
		"[--block B] [--rolling R]\n"
		"                         [--host [--chiplets N]] [-d DEV] "
		"[--json]\n\n"
		"Replays an object pattern, as 'mcmgpu workload to adsm' writes "
		"it from a\nprogram: objects, the CPU's writes and reads (the "
		"program's copies) and\nkernels, on the device or with --host on "
		"the same cores. The protocol\n(batch, lazy, rolling or explicit: "
		"the copies by hand; default rolling),\nits block and R as in "
		"'mcmgpu adsm run'.\n");
}

static int adsm_cmd_replay(int argc, char **argv)
{
	struct common_opts co = COMMON_OPTS(replay_usage, MCMGPU_MIN_CHIPLETS);
	struct adsm_params p = { .protocol = MCMGPU_ADSM_ROLLING,
				 .block = 256 << 10 };
	enum { O_PROTOCOL = 256, O_BLOCK, O_ROLLING };
	static const struct option opts[] = {
		{ "protocol", required_argument, NULL, O_PROTOCOL },
		{ "block", required_argument, NULL, O_BLOCK },
		{ "rolling", required_argument, NULL, O_ROLLING },
		OPTION_JSON, OPTION_HOST, OPTION_DEVICE, OPTION_CHIPLETS,
		OPTION_HELP, { }
	};
	struct adapt_adsm_result res;
	const struct mcmgpu_adsm_stats *s = &res.stats;
	struct adsm_device d;
	struct adsm_rt *rt;
	const char *path;
	char err[512];
	size_t len;
	char *text;
	int c, ret, v;

	while ((c = common_parse(&co, argc, argv, "d:h", opts, NULL)) != -1) {
		switch (c) {
		case O_PROTOCOL:
			v = adsm_protocol_parse(optarg);
			if (v < 0)
				die_usage("--protocol: '%s' is not batch, lazy, "
					  "rolling or explicit", optarg);
			p.protocol = v;
			break;
		case O_BLOCK:
			p.block = parse_arg_range(optarg, "--block",
					1ULL << MCMGPU_ADSM_BLOCK_MIN_SHIFT,
					1ULL << MCMGPU_ADSM_BLOCK_MAX_SHIFT);
			if (p.block & (p.block - 1))
				die_usage("--block: %llu is not a power of two",
					  (unsigned long long)p.block);
			break;
		case O_ROLLING:
			p.rolling = parse_arg_range(optarg, "--rolling", 0,
						    MCMGPU_ADSM_ROLLING_MAX);
			break;
		}
	}
	path = common_operand(&co, argc, argv);
	text = file_load(path, &len, err, sizeof(err));
	if (!text)
		fatal("%s", err);
	if (co.host) {
		rt = adsm_host_new(p.protocol, p.block, p.rolling, co.chiplets);
		if (!rt)
			fatal("out of memory");
	} else {
		if (co.chiplets_given)
			die_usage("adsm replay: --chiplets is for --host (the "
				  "device has its own)");
		if (adsm_device_open(&d, co.device, &p))
			return 1;
		rt = &d.rt;
	}
	/* The device checks its kernels' chiplets itself. */
	ret = adapt_adsm_run(text, len, rt, co.host ? co.chiplets :
			     MCMGPU_MAX_CHIPLETS, &res, err, sizeof(err));
	if (co.host)
		adsm_host_free(rt);
	else
		close(d.fd);
	free(text);
	if (ret)
		fatal("adsm replay: %s: %s", path, err);
	if (co.json) {
		struct json j;

		json_begin(&j, stdout);
		json_string(&j, "protocol", adsm_protocol_name(p.protocol));
		json_u64(&j, "block", s->block_bytes);
		json_u64(&j, "rolling", s->rolling);
		json_u64(&j, "objects", res.objects);
		json_u64(&j, "kernels", res.kernels);
		json_u64(&j, "cpu_bytes_written", res.cpu_bytes_written);
		json_u64(&j, "cpu_bytes_read", res.cpu_bytes_read);
		json_break(&j, "  ");
		json_u64(&j, "h2d_bytes", s->h2d_bytes);
		json_u64(&j, "d2h_bytes", s->d2h_bytes);
		json_u64(&j, "h2d_eager", s->h2d_evict);
		json_u64(&j, "faults", s->faults);
		json_u64(&j, "evictions", s->evictions);
		json_u64(&j, "launches", s->launches);
		json_u64(&j, "transfers", s->transfers);
		json_u64(&j, "modeled_cycles", s->modeled_cycles);
		json_end(&j);
	} else {
		printf("%s: %llu objects, %llu kernels: H2D %llu bytes, D2H %llu, "
		       "%llu protocol faults, %llu modeled cycles\n",
		       adsm_protocol_name(p.protocol),
		       (unsigned long long)res.objects,
		       (unsigned long long)res.kernels,
		       (unsigned long long)s->h2d_bytes,
		       (unsigned long long)s->d2h_bytes,
		       (unsigned long long)s->faults,
		       (unsigned long long)s->modeled_cycles);
	}
	return 0;
}

/* ---- mcmgpu adsm bench ----------------------------------------------------- */

static void bench_usage(FILE *f)
{
	fprintf(f, "usage: mcmgpu adsm bench [--size BYTES] [--repeat N] [--json]\n\n"
		"Measures, on the device: protocol faults per second (writes to\n"
		"Read-only 4 KiB blocks, no transfer) against first touches of\n"
		"anonymous memory, and bytes per second into and out of the GPU\n"
		"through a lazy mapping (CPU stores + launch; fetch on touch)\n"
		"against hand-written copies (ADSM_COPY) of the same bytes.\n"
		"  --size BYTES   the object (default 16M)\n"
		"  --repeat N     best of N (default 3)\n"
		"  -d, --device DEV, --json\n");
}

static double best(double a, double b)
{
	return a < b || b == 0 ? a : b;
}

/* One file with a protocol: a shared object of bytes and a scratch one. */
static void bench_open(struct adsm_device *d, const char *device, uint32_t protocol,
		       uint64_t block, uint32_t rolling, uint64_t bytes,
		       struct adsm_buf *obj, struct adsm_buf *scratch)
{
	struct adsm_params p = {
		.protocol = protocol, .block = block, .rolling = rolling,
	};

	if (adsm_device_open(d, device, &p))
		exit(1);
	if (d->rt.ops->alloc(&d->rt, bytes, obj) ||
	    d->rt.ops->alloc(&d->rt, 4096, scratch))
		fatal("adsm bench: %s", d->rt.err);
}

static void bench_close(struct adsm_device *d, struct adsm_buf *obj,
			struct adsm_buf *scratch)
{
	d->rt.ops->free(&d->rt, obj);
	d->rt.ops->free(&d->rt, scratch);
	close(d->fd);
}

static void bench_launch(struct adsm_device *d, struct adsm_buf *scratch)
{
	struct mcmgpu_adsm_kernel k = {
		.kernel = MCMGPU_ADSM_K_FILL, .n = 1, .va = { scratch->gpu_va },
	};
	struct mcmgpu_adsm_kernel_result res;

	if (d->rt.ops->launch(&d->rt, &k) || d->rt.ops->sync(&d->rt, &res))
		fatal("adsm bench: %s", d->rt.err);
}

static int adsm_cmd_bench(int argc, char **argv)
{
	struct common_opts co = COMMON_OPTS(bench_usage, MCMGPU_MIN_CHIPLETS);
	uint64_t bytes = 16 << 20, repeat = 3, r, i;
	double t_fault = 0, t_anon = 0, t_h2d = 0, t_h2d_copy = 0, t_d2h = 0,
	       t_d2h_copy = 0, t;
	struct adsm_buf o, sc;
	struct adsm_device d;
	static const struct option opts[] = {
		{ "size", required_argument, NULL, 's' },
		{ "repeat", required_argument, NULL, 'r' },
		OPTION_JSON, OPTION_DEVICE, OPTION_HELP, { }
	};
	uint8_t *buf, *anon;
	int c;

	while ((c = common_parse(&co, argc, argv, "d:h", opts, NULL)) != -1) {
		if (c == 's')
			bytes = parse_arg_range(optarg, "--size", 1 << 20,
						MCMGPU_ADSM_MAX_OBJECT);
		else if (c == 'r')
			repeat = parse_arg_range(optarg, "--repeat", 1, 100);
	}
	if (optind < argc)
		die_usage("adsm bench: unexpected argument '%s'", argv[optind]);
	bytes &= ~4095ULL;
	buf = malloc(bytes);
	if (!buf)
		fatal("out of memory");
	memset(buf, 0x5a, bytes);
	for (r = 0; r < repeat; r++) {
		/* Protocol faults: a write to each Read-only 4 KiB block. */
		bench_open(&d, co.device, MCMGPU_ADSM_ROLLING, 4096,
			   MCMGPU_ADSM_ROLLING_MAX, bytes, &o, &sc);
		t = now_seconds();
		for (i = 0; i < bytes; i += 4096)
			o.cpu[i] = 1;
		t_fault = best(now_seconds() - t, t_fault);
		bench_close(&d, &o, &sc);
		anon = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (anon == MAP_FAILED)
			fatal("mmap: %s", strerror(errno));
		t = now_seconds();
		for (i = 0; i < bytes; i += 4096)
			anon[i] = 1;
		t_anon = best(now_seconds() - t, t_anon);
		munmap(anon, bytes);

		/* Bytes through a lazy mapping: stores, the launch's flush... */
		bench_open(&d, co.device, MCMGPU_ADSM_LAZY, 0, 0, bytes, &o, &sc);
		t = now_seconds();
		adsm_copy_in_order(o.cpu, buf, bytes, (uintptr_t)o.cpu);
		bench_launch(&d, &sc);
		t_h2d = best(now_seconds() - t, t_h2d);
		/* ... and the fetch on the first touch after it. */
		t = now_seconds();
		adsm_copy_in_order(buf, o.cpu, bytes, (uintptr_t)o.cpu);
		t_d2h = best(now_seconds() - t, t_d2h);
		bench_close(&d, &o, &sc);

		/* The same bytes by hand: a private buffer and two copies. */
		bench_open(&d, co.device, ADSM_EXPLICIT, 0, 0, bytes, &o, &sc);
		t = now_seconds();
		memcpy(o.cpu, buf, bytes);
		if (d.rt.ops->copy(&d.rt, &o, 0, bytes, true))
			fatal("adsm bench: %s", d.rt.err);
		bench_launch(&d, &sc);
		t_h2d_copy = best(now_seconds() - t, t_h2d_copy);
		t = now_seconds();
		if (d.rt.ops->copy(&d.rt, &o, 0, bytes, false))
			fatal("adsm bench: %s", d.rt.err);
		memcpy(buf, o.cpu, bytes);
		t_d2h_copy = best(now_seconds() - t, t_d2h_copy);
		bench_close(&d, &o, &sc);
	}
	free(buf);
	if (co.json) {
		struct json j;

		json_begin(&j, stdout);
		json_u64(&j, "bytes", bytes);
		json_u64(&j, "repeat", repeat);
		json_double(&j, "protocol_faults_per_s", 0, bytes / 4096 / t_fault);
		json_double(&j, "anon_faults_per_s", 0, bytes / 4096 / t_anon);
		json_double(&j, "h2d_mapping_bytes_per_s", 0, bytes / t_h2d);
		json_double(&j, "h2d_copy_bytes_per_s", 0, bytes / t_h2d_copy);
		json_double(&j, "d2h_mapping_bytes_per_s", 0, bytes / t_d2h);
		json_double(&j, "d2h_copy_bytes_per_s", 0, bytes / t_d2h_copy);
		json_end(&j);
	} else {
		printf("protocol faults: %.0f/s (anonymous first touches %.0f/s)\n"
		       "to the GPU: mapping %.1f MB/s, copies %.1f MB/s\n"
		       "from the GPU: mapping %.1f MB/s, copies %.1f MB/s\n",
		       bytes / 4096 / t_fault, bytes / 4096 / t_anon,
		       bytes / t_h2d / 1e6, bytes / t_h2d_copy / 1e6,
		       bytes / t_d2h / 1e6, bytes / t_d2h_copy / 1e6);
	}
	return 0;
}

const struct subcommand adsm_commands[] = {
	{ "run", "an access pattern on shared objects under a protocol",
	  adsm_cmd_run },
	{ "replay", "an object pattern (mcmgpu workload to adsm) under a "
	  "protocol", adsm_cmd_replay },
	{ "bench", "protocol faults and bytes per second, mapping vs copies",
	  adsm_cmd_bench },
	{ }
};
