// SPDX-License-Identifier: GPL-2.0
/*
 * mcmgpu finepack: replay FinePack traces on the device (or the same core
 * on the host), convert text traces, generate workloads, print the
 * analytic efficiency model, and time replays.
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

struct replay_opts {
	const char *devpath;
	uint32_t subheader, overhead, chiplets;
	uint64_t vram;
	bool json, verify, host;
};

static const char * const flush_names[MCMGPU_FP_FLUSH_REASONS] = {
	[MCMGPU_FP_FLUSH_WINDOW] = "window", [MCMGPU_FP_FLUSH_PAYLOAD] = "payload",
	[MCMGPU_FP_FLUSH_ENTRIES] = "entries", [MCMGPU_FP_FLUSH_FENCE] = "fence",
	[MCMGPU_FP_FLUSH_KERNEL_END] = "kernel_end", [MCMGPU_FP_FLUSH_LOAD] = "load",
	[MCMGPU_FP_FLUSH_ATOMIC] = "atomic",
};

static double ratio(uint64_t a, uint64_t b)
{
	return b ? (double)a / b : 0.0;
}

static __u64 fp_wire(const struct mcmgpu_fp_stats *s)
{
	return s->wire_payload + s->wire_subheader + s->wire_overhead +
	       s->wire_padding;
}

struct verify_result {
	bool done;
	__u64 checked, mismatched;
};

static void print_json(const struct mcmgpu_fp_stats *s, const struct replay_opts *o,
		       const struct verify_result *v)
{
	__u64 wire = fp_wire(s), plain_payload = s->store_bytes + s->atomic_bytes;
	int i;

	printf("{\"config\": {\"chiplets\": %u, \"subheader\": %u, \"overhead\": %u},\n",
	       o->chiplets, o->subheader, o->overhead);
	printf(" \"records\": %llu, \"stores\": %llu, \"store_bytes\": %"
	       "llu, \"store_pieces\": %llu, \"loads\": %llu"
	       ", \"atomics\": %llu, \"fences\": %llu, \"kernels\": %"
	       "llu,\n", s->records, s->stores, s->store_bytes, s->store_pieces,
	       s->loads, s->atomics, s->fences, s->kernels);
	printf(" \"packets\": %llu, \"subpackets\": %llu"
	       ", \"stores_per_packet\": %.3f, \"subpackets_per_packet\": %.3f,\n",
	       s->packets, s->subpackets, ratio(s->store_pieces, s->packets),
	       ratio(s->subpackets, s->packets));
	printf(" \"wire_bytes\": {\"total\": %llu, \"payload\": %llu"
	       ", \"subheader\": %llu, \"overhead\": %llu, \"padding\": %"
	       "llu},\n", wire, s->wire_payload, s->wire_subheader,
	       s->wire_overhead, s->wire_padding);
	printf(" \"plain_wire_bytes\": %llu, \"plain_tlps\": %llu"
	       ", \"dma_wire_bytes\": %llu, \"dma_payload\": %llu"
	       ", \"dma_tlps\": %llu,\n", s->plain_wire_bytes, s->plain_tlps,
	       s->dma_wire_bytes, s->dma_payload, s->dma_tlps);
	printf(" \"reduction\": %.4f, \"reduction_vs_dma\": %.4f, \"efficiency\": %.4f,"
	       " \"plain_efficiency\": %.4f, \"dma_efficiency\": %.4f,\n",
	       ratio(s->plain_wire_bytes, wire), ratio(s->dma_wire_bytes, wire),
	       ratio(s->wire_payload, wire), ratio(plain_payload, s->plain_wire_bytes),
	       ratio(s->dma_payload, s->dma_wire_bytes));
	printf(" \"useful_bytes\": %llu, \"wasted_bytes\": {\"p2p\": %llu"
	       ", \"finepack\": %llu, \"dma\": %llu},\n", s->useful_bytes,
	       plain_payload - s->useful_bytes, s->wire_payload - s->useful_bytes,
	       s->dma_payload - s->useful_bytes);
	printf(" \"flushes\": {");
	for (i = 0; i < MCMGPU_FP_FLUSH_REASONS; i++)
		printf("%s\"%s\": %llu", i ? ", " : "", flush_names[i],
		       s->flushes[i]);
	printf("}, \"decode_errors\": %llu", s->decode_errors);
	if (v->done)
		printf(",\n \"verify\": {\"checked_bytes\": %llu"
		       ", \"mismatched_bytes\": %llu}", v->checked, v->mismatched);
	printf("}\n");
}

static void print_text(const struct mcmgpu_fp_stats *s, const struct verify_result *v)
{
	__u64 wire = fp_wire(s);
	int i;

	printf("stores %llu (%llu bytes), packets %llu"
	       ", %.1f stores/packet\n", s->stores, s->store_bytes, s->packets,
	       ratio(s->store_pieces, s->packets));
	printf("wire bytes: FinePack %llu (efficiency %.1f%%), plain P2P %"
	       "llu, DMA %llu\n", wire, 100 * ratio(s->wire_payload, wire),
	       s->plain_wire_bytes, s->dma_wire_bytes);
	printf("reduction vs P2P %.2fx, vs DMA %.2fx\nflushes:",
	       ratio(s->plain_wire_bytes, wire), ratio(s->dma_wire_bytes, wire));
	for (i = 0; i < MCMGPU_FP_FLUSH_REASONS; i++)
		printf(" %s %llu", flush_names[i], s->flushes[i]);
	printf("\n");
	if (v->done)
		printf("verify: %llu bytes checked, %llu differ\n",
		       v->checked, v->mismatched);
}

/* Destination memory access for --verify, on the device or on the host. */
struct memory {
	int fd;			/* device, or -1 for host */
	uint8_t *host;
	uint64_t vram;
};

static int mem_read(struct memory *m, uint32_t dst, uint64_t lo, uint64_t len,
		    uint8_t *out)
{
	uint64_t gpu = dst * m->vram + lo;

	if (m->fd < 0) {
		memcpy(out, m->host + gpu, len);
		return 0;
	}
	return dma_transfer(m->fd, true, out, gpu, len);
}

static void host_write(void *ctx, u32 dst, u64 addr, const u8 *data, u32 len)
{
	struct memory *m = ctx;

	memcpy(m->host + dst * m->vram + addr, data, len);
}

int fp_host_run(const struct fp_config *cfg, const struct fp_trace_view *view,
		uint8_t *mem, struct mcmgpu_fp_stats *out)
{
	struct memory ctx = { .fd = -1, .host = mem, .vram = cfg->vram_per_chiplet };
	struct fp_sink sink = { .ctx = &ctx, .write = host_write };
	struct fp_model *model = calloc(1, sizeof(*model));
	uint8_t *written = calloc(1, fp_bitmap_bytes(cfg));
	int ret = -1;

	if (model && written) {
		fp_model_init(model, cfg, &sink, written);
		fp_model_run(model, view);
		*out = model->stats;
		ret = 0;
	}
	free(model);
	free(written);
	return ret;
}

struct verify_state {
	uint64_t lo[MCMGPU_MAX_CHIPLETS], hi[MCMGPU_MAX_CHIPLETS];
	uint8_t *golden[MCMGPU_MAX_CHIPLETS];
};

/* Snapshot the written hull of each destination and apply in order. */
static int verify_prepare(struct verify_state *vs, struct memory *m,
			  const struct fp_trace_view *view, uint32_t chiplets)
{
	uint64_t i;
	uint32_t d;

	for (d = 0; d < MCMGPU_MAX_CHIPLETS; d++) {
		vs->lo[d] = UINT64_MAX;
		vs->hi[d] = 0;
		vs->golden[d] = NULL;
	}
	for (i = 0; i < view->hdr->nrecords; i++) {
		const struct mcmgpu_fp_trace_record *r = &view->rec[i];

		if (r->type != MCMGPU_FP_REC_STORE && r->type != MCMGPU_FP_REC_ATOMIC)
			continue;
		if (r->addr < vs->lo[r->dst])
			vs->lo[r->dst] = r->addr;
		if (r->addr + r->len > vs->hi[r->dst])
			vs->hi[r->dst] = r->addr + r->len;
	}
	for (d = 0; d < chiplets; d++) {
		if (vs->hi[d] <= vs->lo[d])
			continue;
		vs->golden[d] = malloc(vs->hi[d] - vs->lo[d]);
		if (!vs->golden[d]) {
			fprintf(stderr, "%s: --verify: out of memory\n", prog);
			return -1;
		}
		if (mem_read(m, d, vs->lo[d], vs->hi[d] - vs->lo[d], vs->golden[d]))
			return -1;
	}
	for (i = 0; i < view->hdr->nrecords; i++) {
		const struct mcmgpu_fp_trace_record *r = &view->rec[i];

		if (r->type == MCMGPU_FP_REC_STORE || r->type == MCMGPU_FP_REC_ATOMIC)
			memcpy(vs->golden[r->dst] + (r->addr - vs->lo[r->dst]),
			       view->data + r->data_off, r->len);
	}
	return 0;
}

static int verify_finish(struct verify_state *vs, struct memory *m,
			 uint32_t chiplets, struct verify_result *v)
{
	uint64_t i, len;
	uint8_t *after;
	uint32_t d;
	int ret = 0;

	v->done = true;
	for (d = 0; d < chiplets; d++) {
		if (!vs->golden[d])
			continue;
		len = vs->hi[d] - vs->lo[d];
		after = malloc(len);
		if (!after || mem_read(m, d, vs->lo[d], len, after)) {
			free(after);
			ret = -1;
			break;
		}
		for (i = 0; i < len; i++)
			v->mismatched += after[i] != vs->golden[d][i];
		v->checked += len;
		free(after);
	}
	for (d = 0; d < MCMGPU_MAX_CHIPLETS; d++)
		free(vs->golden[d]);
	return ret;
}

static int replay(const char *path, struct replay_opts *o)
{
	struct fp_config cfg = { 0 };
	struct verify_state vs = { 0 };
	struct verify_result v = { 0 };
	struct mcmgpu_fp_replay_result res;
	struct memory mem = { .fd = -1 };
	struct fp_trace_view view;
	struct fp_error err;
	struct mcmgpu_info info;
	uint8_t *trace;
	size_t len;
	char msg[512];
	int ret = 1;

	trace = fp_trace_load(path, &len, msg, sizeof(msg));
	if (!trace) {
		fprintf(stderr, "%s: %s\n", prog, msg);
		return 1;
	}
	if (!o->host) {
		mem.fd = open_device(o->devpath);
		if (mem.fd < 0 || get_info(mem.fd, &info))
			goto out;
		o->chiplets = info.chiplets;
		o->vram = info.vram_per_chiplet;
	}
	cfg.chiplets = o->chiplets;
	cfg.subheader = o->subheader;
	cfg.overhead = o->overhead;
	cfg.vram_per_chiplet = o->vram;
	mem.vram = o->vram;
	/* The host checks first only when it runs the core itself or needs the
	 * records for --verify; the device validates on its own. */
	if ((o->host || o->verify) && fp_trace_check(trace, len, &cfg, &view, &err)) {
		fprintf(stderr, "%s: %s: record %" PRIu64 ": %s (value %" PRIu64 ")\n",
			prog, path, err.record, err.what, err.value);
		goto out;
	}
	if (o->host) {
		mem.host = calloc(o->chiplets, o->vram);
		if (!mem.host) {
			fprintf(stderr, "%s: out of memory\n", prog);
			goto out;
		}
	}
	if (o->verify && verify_prepare(&vs, &mem, &view, o->chiplets))
		goto out;

	memset(&res, 0, sizeof(res));
	if (o->host) {
		if (fp_host_run(&cfg, &view, mem.host, &res.stats)) {
			fprintf(stderr, "%s: out of memory\n", prog);
			goto out;
		}
	} else {
		struct mcmgpu_finepack_replay rp = {
			.size = sizeof(rp), .trace_ptr = (uintptr_t)trace,
			.trace_len = len, .subheader = o->subheader,
			.overhead = o->overhead, .result_ptr = (uintptr_t)&res,
			.result_size = sizeof(res),
		};

		if (ioctl(mem.fd, MCMGPU_IOCTL_FINEPACK_REPLAY, &rp)) {
			if (errno == EINVAL && res.error.what[0])
				fprintf(stderr, "%s: %s: record %llu: %.*s (value %llu)\n",
					prog, path,
					(unsigned long long)res.error.index,
					(int)sizeof(res.error.what), res.error.what,
					(unsigned long long)res.error.value);
			else
				fprintf(stderr, "%s: FINEPACK_REPLAY: %s\n", prog,
					strerror(errno));
			goto out;
		}
	}
	if (o->verify && verify_finish(&vs, &mem, o->chiplets, &v))
		goto out;
	if (o->json)
		print_json(&res.stats, o, &v);
	else
		print_text(&res.stats, &v);
	ret = v.mismatched || res.stats.decode_errors ? 1 : 0;
	if (v.mismatched)
		fprintf(stderr, "%s: verify: %llu bytes differ from in-order "
			"plain application\n", prog, v.mismatched);
out:
	if (mem.fd >= 0)
		close(mem.fd);
	free(mem.host);
	free(trace);
	return ret;
}

static void replay_usage(FILE *f)
{
	fprintf(f,
		"usage: mcmgpu finepack replay TRACE [options]\n\n"
		"Replays a FinePack trace (binary, or the text form) through\n"
		"/dev/mcmgpuN: the device coalesces the remote stores, packs and\n"
		"de-packetizes them into the destination chiplets' memories and\n"
		"counts the link bytes of FinePack, plain P2P and a DMA model.\n\n"
		"  --subheader H      sub-header bytes, 2..6 (default 5)\n"
		"  --overhead O       TLP overhead bytes, 24 or 28 (default 28)\n"
		"  --json             machine-readable counters\n"
		"  --verify           compare destination memory with an in-order\n"
		"                     plain application of the stores (exit 1 on a\n"
		"                     difference)\n"
		"  --host             run the same model core here, no device\n"
		"  --chiplets N       with --host: chiplets (default 4)\n"
		"  --vram-per-chiplet S  with --host: bytes per chiplet (default 64M)\n"
		"  -d, --device DEV   /dev path, index or PCI address (default 0)\n"
		"  -h, --help         this text\n");
}

static int cmd_replay(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "subheader", required_argument, NULL, 's' },
		{ "overhead", required_argument, NULL, 'o' },
		{ "json", no_argument, NULL, 'j' },
		{ "verify", no_argument, NULL, 'v' },
		{ "host", no_argument, NULL, 'H' },
		{ "chiplets", required_argument, NULL, 'c' },
		{ "vram-per-chiplet", required_argument, NULL, 'm' },
		{ "device", required_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	struct replay_opts o = {
		.devpath = "/dev/mcmgpu0", .subheader = MCMGPU_FP_SUBHEADER_DEFAULT,
		.overhead = MCMGPU_FP_OVERHEAD_ECRC, .chiplets = 4, .vram = 64ULL << 20,
	};
	uint64_t v;
	int c;

	while ((c = getopt_long(argc, argv, "d:h", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			if (parse_u64(optarg, "--subheader", &v))
				return 2;
			if (v < MCMGPU_FP_SUBHEADER_MIN || v > MCMGPU_FP_SUBHEADER_MAX)
				die_usage("--subheader: %" PRIu64 " is not 2..6", v);
			o.subheader = v;
			break;
		case 'o':
			if (parse_u64(optarg, "--overhead", &v))
				return 2;
			if (v != MCMGPU_FP_OVERHEAD_ECRC && v != MCMGPU_FP_OVERHEAD_NO_ECRC)
				die_usage("--overhead: %" PRIu64 " is not 24 or 28", v);
			o.overhead = v;
			break;
		case 'j':
			o.json = true;
			break;
		case 'v':
			o.verify = true;
			break;
		case 'H':
			o.host = true;
			break;
		case 'c':
			if (parse_u64(optarg, "--chiplets", &v))
				return 2;
			if (v < 2 || v > MCMGPU_MAX_CHIPLETS)
				die_usage("--chiplets: %" PRIu64 " is not 2..8", v);
			o.chiplets = v;
			break;
		case 'm':
			if (parse_u64(optarg, "--vram-per-chiplet", &v))
				return 2;
			if (!v || v > (1ULL << 40))
				die_usage("--vram-per-chiplet: bad size %s", optarg);
			o.vram = v;
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
	return replay(argv[optind], &o);
}

static int cmd_convert(int argc, char **argv)
{
	uint8_t *trace;
	size_t len;
	char msg[512];
	int ret;

	if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		printf("usage: mcmgpu finepack convert TEXT_TRACE BINARY_TRACE\n\n"
		       "Text form, one record a line, '#' starts a comment:\n"
		       "  store SRC DST ADDR LEN HEXDATA\n"
		       "  load SRC DST ADDR LEN\n"
		       "  atomic SRC DST ADDR LEN HEXDATA\n"
		       "  fence SRC\n"
		       "  kernel_end\n"
		       "ADDR is the byte offset in the destination chiplet's memory.\n");
		return 0;
	}
	if (argc != 3)
		die_usage("finepack convert: TEXT_TRACE and BINARY_TRACE expected");
	trace = fp_trace_load(argv[1], &len, msg, sizeof(msg));
	if (!trace) {
		fprintf(stderr, "%s: %s\n", prog, msg);
		return 1;
	}
	ret = write_file(argv[2], trace, len) ? 1 : 0;
	free(trace);
	return ret;
}

int cmd_finepack_gen(int argc, char **argv);
int cmd_finepack_analytic(int argc, char **argv);
int cmd_finepack_bench(int argc, char **argv);

static const struct subcommand fp_cmds[] = {
	{ "replay", "replay a trace on the device or the host", cmd_replay },
	{ "convert", "convert a text trace to the binary format", cmd_convert },
	{ "gen", "generate a workload trace", cmd_finepack_gen },
	{ "analytic", "print the analytic efficiency model", cmd_finepack_analytic },
	{ "bench", "time replay against memcpy of the trace", cmd_finepack_bench },
};

int cmd_finepack(int argc, char **argv)
{
	return run_subcommand("finepack", fp_cmds, sizeof(fp_cmds) / sizeof(fp_cmds[0]), argc, argv);
}
