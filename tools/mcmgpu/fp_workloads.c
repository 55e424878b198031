// SPDX-License-Identifier: GPL-2.0
/*
 * mcmgpu finepack gen|analytic|bench: synthetic workloads standing in for
 * the paper's applications (FinePack §V), the closed-form efficiency model
 * (notes/finepack.md §3), and replay throughput.
 *
 * Every generator is race-free: within a kernel no two sources write the
 * same destination byte, so in-order plain application is the reference
 * for --verify.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "finepack.h"
#include "fp_trace.h"
#include "util.h"

enum gen_kind { GEN_HALO, GEN_VERTEX, GEN_TRANSPOSE, GEN_SCATTER, GEN_LINES };

struct gen_params {
	enum gen_kind kind;
	uint32_t chiplets, iters, store;	/* store 0: random 4..8 B */
	uint64_t bytes;		/* halo bytes, vertex array, scatter span */
	uint64_t count;		/* updates per source per iteration */
	uint32_t rows;		/* transpose rows per chiplet */
	uint64_t seed;
};

static const struct {
	const char *name, *what;
	struct gen_params p;
} presets[] = {
	{ "jacobi", "halo exchange, 128 B stores, 32 KiB halos",
	  { GEN_HALO, 4, 8, 128, 32 << 10, 0, 0, 1 } },
	{ "diffusion", "halo exchange, 128 B stores, 64 KiB halos",
	  { GEN_HALO, 4, 8, 128, 64 << 10, 0, 0, 2 } },
	{ "eqwp", "4th-order halo exchange, 64 B stores, 48 KiB halos",
	  { GEN_HALO, 4, 8, 64, 48 << 10, 0, 0, 3 } },
	{ "pagerank", "random 4 B vertex updates over a 16 MiB array",
	  { GEN_VERTEX, 4, 4, 4, 16 << 20, 20000, 0, 4 } },
	{ "sssp", "random 8 B vertex updates over a 64 MiB array",
	  { GEN_VERTEX, 4, 4, 8, 64 << 20, 20000, 0, 5 } },
	{ "hit", "all-to-all transpose of 16 B elements",
	  { GEN_TRANSPOSE, 4, 2, 16, 0, 0, 64, 6 } },
	{ "als", "all-to-all transpose of 32 B factor rows",
	  { GEN_TRANSPOSE, 4, 2, 32, 0, 0, 64, 7 } },
	{ "ct", "low-locality 4-8 B stores over 2 GiB (two 1 GiB windows)",
	  { GEN_SCATTER, 4, 2, 0, 2ULL << 30, 20000, 0, 8 } },
};

static uint64_t rng;

static uint64_t next(void)
{
	return xorshift64(&rng);
}

/* A random chiplet other than c. */
static uint32_t random_peer(uint32_t c, uint32_t chiplets)
{
	return (c + 1 + next() % (chiplets - 1)) % chiplets;
}

static int add_store(struct fp_trace_buf *tb, uint32_t src, uint32_t dst,
		     uint64_t addr, uint32_t len)
{
	uint8_t data[256];
	uint32_t i;

	for (i = 0; i < len; i++)
		data[i] = next();
	return fp_tb_add(tb, FP_REC_STORE, src, dst, addr, len, data);
}

static int end_kernel(struct fp_trace_buf *tb)
{
	return fp_tb_add(tb, FP_REC_KERNEL_END, 0, 0, 0, 0, NULL);
}

static uint32_t store_len(const struct gen_params *p)
{
	return p->store ? p->store : 4 + next() % 5;
}

/* Each source writes its ghost slot in each neighbour, in store-sized runs. */
static int gen_halo(struct fp_trace_buf *tb, const struct gen_params *p)
{
	uint32_t it, c, side;
	uint64_t off;

	for (it = 0; it < p->iters; it++) {
		for (c = 0; c < p->chiplets; c++) {
			for (side = 0; side < 2; side++) {
				uint32_t nb = (c + (side ? p->chiplets - 1 : 1)) %
					      p->chiplets;
				uint64_t base = (2ULL * c + side) << 20;

				if (side && nb == (c + 1) % p->chiplets)
					continue;	/* two chiplets: one neighbour */
				for (off = 0; off < p->bytes; off += p->store)
					if (add_store(tb, c, nb, base + off, p->store))
						return -1;
			}
		}
		if (end_kernel(tb))
			return -1;
	}
	return 0;
}

/* Each source updates replicas of the vertices it owns, at random. */
static int gen_vertex(struct fp_trace_buf *tb, const struct gen_params *p)
{
	uint64_t slice = p->bytes / p->chiplets / 8 * 8, n;
	uint32_t it, c;

	for (it = 0; it < p->iters; it++) {
		for (n = 0; n < p->count; n++) {
			for (c = 0; c < p->chiplets; c++) {
				uint32_t dst = random_peer(c, p->chiplets);
				uint64_t addr = c * slice + next() % (slice / 8) * 8;

				if (add_store(tb, c, dst, addr, store_len(p)))
					return -1;
			}
		}
		if (end_kernel(tb))
			return -1;
	}
	return 0;
}

/* Rows are distributed; element (i, j) goes to (j, i) on j's owner. */
static int gen_transpose(struct fp_trace_buf *tb, const struct gen_params *p)
{
	uint64_t pitch = (uint64_t)p->rows * p->chiplets * p->store;
	uint32_t it, c, d, i, j;

	for (it = 0; it < p->iters; it++) {
		for (c = 0; c < p->chiplets; c++) {
			for (d = 0; d < p->chiplets; d++) {
				if (d == c)
					continue;
				for (i = 0; i < p->rows; i++)
					for (j = 0; j < p->rows; j++)
						if (add_store(tb, c, d, j * pitch +
							      ((uint64_t)c * p->rows + i) *
							      p->store, p->store))
							return -1;
			}
		}
		if (end_kernel(tb))
			return -1;
	}
	return 0;
}

/* Random lines over the span; line index mod chiplets picks the writer. */
static int gen_scatter(struct fp_trace_buf *tb, const struct gen_params *p)
{
	uint64_t lines = p->bytes / FP_LINE_BYTES / p->chiplets, n;
	uint32_t it, c;

	for (it = 0; it < p->iters; it++) {
		for (n = 0; n < p->count; n++) {
			for (c = 0; c < p->chiplets; c++) {
				uint32_t dst = random_peer(c, p->chiplets);
				uint64_t line = (next() % lines) * p->chiplets + c;

				if (add_store(tb, c, dst, line * FP_LINE_BYTES +
					      next() % 15 * 8, store_len(p)))
					return -1;
			}
		}
		if (end_kernel(tb))
			return -1;
	}
	return 0;
}

/* count stores of one size, one per line, chiplet 0 to 1 (notes B2). */
static int gen_lines(struct fp_trace_buf *tb, const struct gen_params *p)
{
	uint64_t n, off = p->store <= 120 ? 8 : 0;

	for (n = 0; n < p->count; n++)
		if (add_store(tb, 0, 1, n * FP_LINE_BYTES + off, p->store))
			return -1;
	return end_kernel(tb);
}

static void gen_usage(FILE *f)
{
	size_t i;

	fprintf(f,
		"usage: mcmgpu finepack gen WORKLOAD -o FILE [options]\n\n"
		"workloads (presets):\n");
	for (i = 0; i < sizeof(presets) / sizeof(presets[0]); i++)
		fprintf(f, "  %-10s %s\n", presets[i].name, presets[i].what);
	fprintf(f,
		"  halo, vertex, transpose, scatter, lines: the generic kinds\n\n"
		"  -o, --output FILE  binary trace to write\n"
		"  --chiplets N       chiplets (default 4)\n"
		"  --iters N          kernels (iterations)\n"
		"  --store S          bytes per store (0: random 4..8)\n"
		"  --bytes B          halo bytes, vertex array, scatter span\n"
		"  --count N          updates per source per iteration (lines: stores)\n"
		"  --rows N           transpose rows per chiplet\n"
		"  --seed S           random seed\n"
		"  -h, --help         this text\n");
}

int cmd_finepack_gen(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "chiplets", required_argument, NULL, 'c' },
		{ "iters", required_argument, NULL, 'i' },
		{ "store", required_argument, NULL, 's' },
		{ "bytes", required_argument, NULL, 'b' },
		{ "count", required_argument, NULL, 'n' },
		{ "rows", required_argument, NULL, 'r' },
		{ "seed", required_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	static const char * const kinds[] = { "halo", "vertex", "transpose",
					      "scatter", "lines" };
	struct gen_params p = { GEN_HALO, 4, 4, 128, 32 << 10, 1000, 64, 1 };
	struct fp_trace_buf tb = { 0 };
	const char *out = NULL, *name;
	uint8_t *trace;
	uint64_t v;
	size_t i, len;
	int c, ret, idx = 0;

	if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		gen_usage(stdout);
		return 0;
	}
	if (argc < 2) {
		gen_usage(stderr);
		return 2;
	}
	name = argv[1];
	for (i = 0; i < sizeof(presets) / sizeof(presets[0]); i++)
		if (!strcmp(name, presets[i].name))
			break;
	if (i < sizeof(presets) / sizeof(presets[0])) {
		p = presets[i].p;
	} else {
		for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
			if (!strcmp(name, kinds[i]))
				break;
		if (i == sizeof(kinds) / sizeof(kinds[0]))
			die_usage("finepack gen: unknown workload '%s'", name);
		p.kind = i;
	}
	argc--, argv++;
	while ((c = getopt_long(argc, argv, "o:h", opts, &idx)) != -1) {
		if (c == 'o') {
			out = optarg;
			continue;
		}
		if (c == 'h') {
			gen_usage(stdout);
			return 0;
		}
		if (c == '?') {
			gen_usage(stderr);
			return 2;
		}
		/* The numeric options are long-only, so idx names the one given. */
		if (parse_u64(optarg, opts[idx].name, &v))
			return 2;
		switch (c) {
		case 'c':
			if (v < 2 || v > FP_MAX_CHIPLETS)
				die_usage("--chiplets: %" PRIu64 " is not 2..8", v);
			p.chiplets = v;
			break;
		case 'i':
			p.iters = v;
			break;
		case 's':
			if (v > FP_LINE_BYTES)
				die_usage("--store: %" PRIu64 " is over 128", v);
			p.store = v;
			break;
		case 'b':
			p.bytes = v;
			break;
		case 'n':
			p.count = v;
			break;
		case 'r':
			p.rows = v;
			break;
		case 'S':
			p.seed = v;
			break;
		}
	}
	if (!out || optind != argc)
		die_usage("finepack gen: -o FILE is required (and nothing else)");
	if (!p.store && p.kind != GEN_VERTEX && p.kind != GEN_SCATTER)
		die_usage("--store 0 (random 4..8 B) is for vertex and scatter");
	if (p.kind == GEN_HALO && (p.bytes > (1 << 20) || p.bytes % p.store))
		die_usage("--bytes: a halo is at most 1 MiB, a multiple of --store");
	if ((p.kind == GEN_VERTEX || p.kind == GEN_SCATTER) &&
	    p.bytes < (uint64_t)p.chiplets * FP_LINE_BYTES * 2)
		die_usage("--bytes: %" PRIu64 " too small", p.bytes);
	rng = p.seed ? p.seed : 1;
	switch (p.kind) {
	case GEN_HALO:
		ret = gen_halo(&tb, &p);
		break;
	case GEN_VERTEX:
		ret = gen_vertex(&tb, &p);
		break;
	case GEN_TRANSPOSE:
		ret = gen_transpose(&tb, &p);
		break;
	case GEN_SCATTER:
		ret = gen_scatter(&tb, &p);
		break;
	default:
		ret = gen_lines(&tb, &p);
		break;
	}
	if (ret) {
		fprintf(stderr, "%s: out of memory\n", prog);
		fp_tb_free(&tb);
		return 1;
	}
	trace = fp_tb_finish(&tb, &len);
	if (!trace || len > FP_TRACE_MAX_BYTES) {
		fprintf(stderr, "%s: trace of %zu bytes is too large\n", prog, len);
		free(trace);
		return 1;
	}
	ret = write_file(out, trace, len) ? 1 : 0;
	free(trace);
	return ret;
}

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

int cmd_finepack_analytic(int argc, char **argv)
{
	static const uint32_t sizes[] = { 1, 2, 4, 8, 16, 32, 40, 64, 128 };
	bool json = argc > 1 && !strcmp(argv[1], "--json");
	uint64_t h = FP_DEFAULT_SUBHEADER;
	size_t i;
	int a;

	for (a = 1; a < argc; a++) {
		if (!strcmp(argv[a], "--help") || !strcmp(argv[a], "-h")) {
			printf("usage: mcmgpu finepack analytic [--json] [--subheader H]\n\n"
			       "Efficiency of plain P2P stores and of FinePack packets of\n"
			       "one store per line (full 4 KiB payload, and capped at 64\n"
			       "entries) for O = 24 and 28 (notes/finepack.md §3).\n");
			return 0;
		} else if (!strcmp(argv[a], "--json")) {
			json = true;
		} else if (!strcmp(argv[a], "--subheader") && a + 1 < argc) {
			if (parse_u64(argv[++a], "--subheader", &h))
				return 2;
			if (h < FP_MIN_SUBHEADER || h > FP_MAX_SUBHEADER)
				die_usage("--subheader: %" PRIu64 " is not 2..6", h);
		} else {
			die_usage("finepack analytic: unexpected argument '%s'", argv[a]);
		}
	}
	if (json)
		printf("{\"subheader\": %" PRIu64 ", \"rows\": [", h);
	else
		printf("%5s %9s %9s %11s %11s %8s %8s\n", "store", "plain24", "plain28",
		       "fp28_full", "fp28_cap64", "gain28", "gain24");
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		uint32_t s = sizes[i];
		double p24 = plain_eff(s, 24), p28 = plain_eff(s, 28);
		double f28 = fp_eff(s, h, 28, false), c28 = fp_eff(s, h, 28, true);
		double c24 = fp_eff(s, h, 24, true);

		if (json)
			printf("%s\n {\"store\": %u, \"plain24\": %.4f, \"plain28\": %.4f, "
			       "\"fp24_cap64\": %.4f, \"fp28_full\": %.4f, "
			       "\"fp28_cap64\": %.4f, \"gain28_cap64\": %.4f, "
			       "\"gain24_cap64\": %.4f}", i ? "," : "", s, p24, p28, c24,
			       f28, c28, c28 / p28, c24 / p24);
		else
			printf("%5u %8.1f%% %8.1f%% %10.1f%% %10.1f%% %7.2fx %7.2fx\n",
			       s, 100 * p24, 100 * p28, 100 * f28, 100 * c28,
			       c28 / p28, c24 / p24);
	}
	if (json)
		printf("\n]}\n");
	return 0;
}

int cmd_finepack_bench(int argc, char **argv)
{
	struct fp_config cfg = { 4, FP_DEFAULT_SUBHEADER, FP_DEFAULT_OVERHEAD,
				 64ULL << 20 };
	const char *path = NULL, *devpath = "/dev/mcmgpu0";
	struct fp_replay_result res;
	struct fp_trace_view view;
	struct fp_error err;
	double t0, t_replay, t_copy;
	uint64_t repeat = 3, r, vram_arg = 0;
	bool host = false;
	uint8_t *trace, *copy;
	size_t len;
	char msg[512];
	int a, fd = -1;

	for (a = 1; a < argc; a++) {
		if (!strcmp(argv[a], "--help") || !strcmp(argv[a], "-h")) {
			printf("usage: mcmgpu finepack bench TRACE [--host] [--repeat N]\n"
			       "       [--vram-per-chiplet S] [-d DEV]\n\n"
			       "Replays TRACE N times (device, or the core with --host) and\n"
			       "copies its bytes N times with memcpy; prints JSON with the\n"
			       "stores per second of each and their ratio.\n");
			return 0;
		} else if (!strcmp(argv[a], "--host")) {
			host = true;
		} else if (!strcmp(argv[a], "--repeat") && a + 1 < argc) {
			if (parse_u64(argv[++a], "--repeat", &repeat) || !repeat)
				return 2;
		} else if (!strcmp(argv[a], "--vram-per-chiplet") && a + 1 < argc) {
			if (parse_u64(argv[++a], "--vram-per-chiplet", &vram_arg))
				return 2;
		} else if (!strcmp(argv[a], "-d") && a + 1 < argc) {
			devpath = argv[++a];
		} else if (!path && argv[a][0] != '-') {
			path = argv[a];
		} else {
			die_usage("finepack bench: unexpected argument '%s'", argv[a]);
		}
	}
	if (!path)
		die_usage("finepack bench: TRACE expected");
	if (vram_arg)
		cfg.vram_per_chiplet = vram_arg;
	trace = fp_trace_load(path, &len, msg, sizeof(msg));
	if (!trace) {
		fprintf(stderr, "%s: %s\n", prog, msg);
		return 1;
	}
	if (fp_trace_check(trace, len, &cfg, &view, &err)) {
		fprintf(stderr, "%s: %s: record %" PRIu64 ": %s\n", prog, path,
			err.record, err.what);
		return 1;
	}
	if (!host) {
		fd = open_device(devpath);
		if (fd < 0)
			return 1;
	}
	t0 = now_seconds();
	for (r = 0; r < repeat; r++) {
		if (host) {
			uint8_t *mem = calloc(cfg.chiplets, cfg.vram_per_chiplet);

			if (!mem || fp_host_run(&cfg, &view, mem, &res.stats)) {
				fprintf(stderr, "%s: out of memory\n", prog);
				free(mem);
				return 1;
			}
			free(mem);
		} else {
			struct mcmgpu_finepack_replay rp = {
				.size = sizeof(rp), .trace_ptr = (uintptr_t)trace,
				.trace_len = len, .subheader = cfg.subheader,
				.overhead = cfg.overhead,
				.result_ptr = (uintptr_t)&res,
				.result_size = sizeof(res),
			};

			if (ioctl(fd, MCMGPU_IOCTL_FINEPACK_REPLAY, &rp)) {
				fprintf(stderr, "%s: FINEPACK_REPLAY: %s\n", prog,
					strerror(errno));
				return 1;
			}
		}
	}
	t_replay = now_seconds() - t0;
	copy = malloc(len);
	t0 = now_seconds();
	for (r = 0; r < repeat; r++) {
		memcpy(copy, trace, len);
		__asm__ volatile("" : : "r"(copy) : "memory");
	}
	t_copy = now_seconds() - t0;
	printf("{\"path\": \"%s\", \"stores\": %llu, \"trace_bytes\": %zu, "
	       "\"repeat\": %" PRIu64 ", \"replay_stores_per_s\": %.0f, "
	       "\"memcpy_stores_per_s\": %.0f, \"replay_over_memcpy\": %.6f}\n",
	       host ? "host" : "device", view.hdr->nrecords, len, repeat,
	       view.hdr->nrecords * repeat / t_replay,
	       view.hdr->nrecords * repeat / t_copy, t_copy / t_replay);
	free(copy);
	free(trace);
	if (fd >= 0)
		close(fd);
	return 0;
}
