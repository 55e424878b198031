// SPDX-License-Identifier: GPL-2.0
/*
 * mcmgpu finepack replay|convert: replay FinePack traces on the device (or
 * the same core on the host) and convert text traces.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "device.h"
#include "fp_replay.h"
#include "fp_tool.h"
#include "json.h"
#include "opts.h"
#include "stats.h"
#include "cli.h"

struct replay_opts {
	struct common_opts co;
	uint32_t subheader, overhead;
	uint64_t vram;
	bool verify;
	int dma;		/* DMA_AUTO, DMA_REGION or DMA_HULL */
};

enum { DMA_AUTO, DMA_REGION, DMA_HULL };

/*
 * Paper-literal TLP bytes (Table I, section VI-B): the 4-DW header whose
 * fields Table I lists, plus the "sequence number, ECRC, and LCRC" that
 * section VI-B charges every packet (2 + 4 + 4 B); no framing token.
 */
#define TABLE1_TLP_BYTES	(16 + 10)

/* What a replay prints: its configuration, the counters, what they give. */
struct fp_report {
	__u64 chiplets, subheader, overhead;
	struct mcmgpu_fp_stats s;
	__u64 wire, plain_payload, wasted_p2p, wasted_fp, wasted_dma;
	/* the DMA model the ratios use: the declared regions, or the hull */
	__u64 dma_uses_regions, dma_wire, dma_payload, dma_tlps;
	/* the same packets counted with TABLE1_TLP_BYTES per TLP */
	__u64 t1_tlp, t1_fp, t1_plain, t1_dma, t1_wc;
	__u64 dma_ps[MCMGPU_FP_LINKS];	/* time of the DMA the ratios use */
};

#define REPORT(name, field)	STAT_AT(name, struct fp_report, field)
#define FP(field)		REPORT(#field, s.field)
#define FLUSH(name, reason)	REPORT(#name, s.flushes[MCMGPU_FP_FLUSH_##reason])
#define RATIO(name, unit, a, b)	STAT_RATIO(name, unit, struct fp_report, a, b)
#define T(l, k)			s.time_ps[MCMGPU_FP_LINK_##l][MCMGPU_FP_T_##k]
/* One link's modeled times (ps) and what they give. */
#define LINK_ROWS(name, l)						\
	STAT_OPEN(name),						\
	REPORT("infinite_ps", T(l, INFINITE)),				\
	REPORT("p2p_ps", T(l, P2P)),					\
	REPORT("wc_ps", T(l, WC)),					\
	REPORT("finepack_ps", T(l, FINEPACK)),				\
	REPORT("dma_ps", dma_ps[MCMGPU_FP_LINK_##l]),			\
	REPORT("dma_region_ps", T(l, DMA_REGION)),			\
	REPORT("dma_hull_ps", T(l, DMA_HULL)),				\
	RATIO("finepack_over_p2p", STAT_FACTOR, T(l, P2P), T(l, FINEPACK)), \
	RATIO("finepack_over_dma", STAT_FACTOR, dma_ps[MCMGPU_FP_LINK_##l], \
	      T(l, FINEPACK)),						\
	RATIO("finepack_over_wc", STAT_FACTOR, T(l, WC), T(l, FINEPACK)), \
	RATIO("speedup_infinite", STAT_FACTOR, s.one_gpu_ps, T(l, INFINITE)), \
	RATIO("speedup_p2p", STAT_FACTOR, s.one_gpu_ps, T(l, P2P)),	\
	RATIO("speedup_finepack", STAT_FACTOR, s.one_gpu_ps, T(l, FINEPACK)), \
	RATIO("speedup_dma", STAT_FACTOR, s.one_gpu_ps,			\
	      dma_ps[MCMGPU_FP_LINK_##l]),				\
	STAT_CLOSE

static const struct stat_row fp_rows[] = {
	STAT_OPEN("config"),
	REPORT("chiplets", chiplets),
	REPORT("subheader", subheader),
	REPORT("overhead", overhead),
	STAT_CLOSE,
	STAT_NEWLINE,
	FP(records),
	FP(stores),
	FP(store_bytes),
	FP(store_pieces),
	FP(loads),
	FP(atomics),
	FP(fences),
	FP(kernels),
	STAT_NEWLINE,
	FP(packets),
	FP(subpackets),
	RATIO("stores_per_packet", STAT_MEAN, s.store_pieces, s.packets),
	RATIO("subpackets_per_packet", STAT_MEAN, s.subpackets, s.packets),
	STAT_NEWLINE,
	STAT_OPEN("wire_bytes"),
	REPORT("total", wire),
	REPORT("payload", s.wire_payload),
	REPORT("subheader", s.wire_subheader),
	REPORT("overhead", s.wire_overhead),
	REPORT("padding", s.wire_padding),
	STAT_CLOSE,
	STAT_NEWLINE,
	FP(plain_wire_bytes),
	FP(plain_tlps),
	FP(regions),
	REPORT("dma_uses_regions", dma_uses_regions),
	REPORT("dma_wire_bytes", dma_wire),
	REPORT("dma_payload", dma_payload),
	REPORT("dma_tlps", dma_tlps),
	FP(wc_wire_bytes),
	FP(wc_tlps),
	STAT_NEWLINE,
	STAT_OPEN("dma_region"),
	REPORT("wire_bytes", s.region_dma_wire_bytes),
	REPORT("payload", s.region_dma_payload),
	REPORT("tlps", s.region_dma_tlps),
	STAT_CLOSE,
	STAT_OPEN("dma_hull"),
	REPORT("wire_bytes", s.dma_wire_bytes),
	REPORT("payload", s.dma_payload),
	REPORT("tlps", s.dma_tlps),
	STAT_CLOSE,
	STAT_NEWLINE,
	RATIO("reduction", STAT_FACTOR, s.plain_wire_bytes, wire),
	RATIO("reduction_vs_dma", STAT_FACTOR, dma_wire, wire),
	RATIO("reduction_vs_wc", STAT_FACTOR, s.wc_wire_bytes, wire),
	RATIO("efficiency", STAT_SHARE, s.wire_payload, wire),
	RATIO("plain_efficiency", STAT_SHARE, plain_payload, s.plain_wire_bytes),
	RATIO("dma_efficiency", STAT_SHARE, dma_payload, dma_wire),
	STAT_NEWLINE,
	STAT_OPEN("table1"),
	REPORT("tlp_bytes", t1_tlp),
	REPORT("finepack", t1_fp),
	REPORT("plain", t1_plain),
	REPORT("dma", t1_dma),
	REPORT("wc", t1_wc),
	RATIO("reduction", STAT_FACTOR, t1_plain, t1_fp),
	RATIO("reduction_vs_dma", STAT_FACTOR, t1_dma, t1_fp),
	RATIO("reduction_vs_wc", STAT_FACTOR, t1_wc, t1_fp),
	STAT_CLOSE,
	STAT_NEWLINE,
	FP(useful_bytes),
	STAT_OPEN("wasted_bytes"),
	REPORT("p2p", wasted_p2p),
	REPORT("finepack", wasted_fp),
	REPORT("dma", wasted_dma),
	STAT_CLOSE,
	STAT_NEWLINE,
	STAT_OPEN("flushes"),
	FLUSH(window, WINDOW),
	FLUSH(payload, PAYLOAD),
	FLUSH(entries, ENTRIES),
	FLUSH(fence, FENCE),
	FLUSH(kernel_end, KERNEL_END),
	FLUSH(load, LOAD),
	FLUSH(atomic, ATOMIC),
	STAT_CLOSE,
	FP(decode_errors),
	STAT_NEWLINE,
	STAT_OPEN("time"),
	REPORT("compute_records", s.compute_records),
	REPORT("one_gpu_ps", s.one_gpu_ps),
	REPORT("depack_bound_kernels", s.depack_bound_kernels),
	STAT_CLOSE,
	STAT_NEWLINE,
	LINK_ROWS("time_pcie4", PCIE4),
	STAT_NEWLINE,
	LINK_ROWS("time_pcie5", PCIE5),
	STAT_NEWLINE,
	LINK_ROWS("time_pcie6", PCIE6),
	STAT_NEWLINE,
	LINK_ROWS("time_chiplet", CHIPLET),
};

static const struct stat_table fp_table = STAT_TABLE(fp_rows,
	"stores {stores} ({store_bytes} bytes), packets {packets}, "
	"{stores_per_packet} stores/packet\n"
	"wire bytes: FinePack {wire_bytes.total} (efficiency {efficiency}), "
	"plain P2P {plain_wire_bytes}, DMA {dma_wire_bytes}, write combining "
	"{wc_wire_bytes}\n"
	"DMA of the {regions} declared regions {dma_region.wire_bytes}, of the "
	"written hulls {dma_hull.wire_bytes}; the ratios use the regions: "
	"{dma_uses_regions}\n"
	"reduction vs P2P {reduction}, vs DMA {reduction_vs_dma}, vs write "
	"combining {reduction_vs_wc}\n"
	"with Table I's {table1.tlp_bytes} B per TLP: vs P2P "
	"{table1.reduction}, vs DMA {table1.reduction_vs_dma}, vs write "
	"combining {table1.reduction_vs_wc}\n"
	"flushes:{flushes}\n"
	"modeled time on PCIe 4 (ps): FinePack {time_pcie4.finepack_ps}, P2P "
	"{time_pcie4.p2p_ps}, DMA {time_pcie4.dma_ps}, compute alone "
	"{time_pcie4.infinite_ps}; FinePack {time_pcie4.finepack_over_p2p} "
	"faster than P2P, {time_pcie4.finepack_over_dma} than DMA\n");

static const struct stat_row verify_rows[] = {
	STAT(struct fp_verify, checked_bytes),
	STAT(struct fp_verify, mismatched_bytes),
};

static const struct stat_table verify_table = STAT_TABLE(verify_rows,
	"verify: {checked_bytes} bytes checked, {mismatched_bytes} differ\n");

static void print_report(const struct mcmgpu_fp_stats *s,
			 const struct replay_opts *o,
			 const struct fp_verify *v)
{
	struct fp_report r = {
		.chiplets = o->co.chiplets, .subheader = o->subheader,
		.overhead = o->overhead, .s = *s,
		.wire = s->wire_payload + s->wire_subheader + s->wire_overhead +
			s->wire_padding,
		.plain_payload = s->store_bytes + s->atomic_bytes,
	};
	struct json j;
	__u64 o_tlp = o->overhead;
	unsigned int l;

	r.dma_uses_regions = o->dma == DMA_REGION ||
			     (o->dma == DMA_AUTO && s->regions);
	r.dma_wire = r.dma_uses_regions ? s->region_dma_wire_bytes :
		     s->dma_wire_bytes;
	r.dma_payload = r.dma_uses_regions ? s->region_dma_payload :
			s->dma_payload;
	r.dma_tlps = r.dma_uses_regions ? s->region_dma_tlps : s->dma_tlps;
	for (l = 0; l < MCMGPU_FP_LINKS; l++)
		r.dma_ps[l] = s->time_ps[l][r.dma_uses_regions ?
					    MCMGPU_FP_T_DMA_REGION :
					    MCMGPU_FP_T_DMA_HULL];
	r.wasted_p2p = r.plain_payload - s->useful_bytes;
	r.wasted_fp = s->wire_payload - s->useful_bytes;
	/* Regions that miss written bytes may copy less than is useful. */
	r.wasted_dma = r.dma_payload > s->useful_bytes ?
		       r.dma_payload - s->useful_bytes : 0;
	/* Every TLP's O bytes become TABLE1_TLP_BYTES; nothing else changes. */
	r.t1_tlp = TABLE1_TLP_BYTES;
	r.t1_fp = r.wire - s->wire_overhead +
		  s->wire_overhead / o_tlp * TABLE1_TLP_BYTES;
	r.t1_plain = s->plain_wire_bytes - s->plain_tlps * o_tlp +
		     s->plain_tlps * TABLE1_TLP_BYTES;
	r.t1_dma = r.dma_wire - r.dma_tlps * o_tlp +
		   r.dma_tlps * TABLE1_TLP_BYTES;
	r.t1_wc = s->wc_wire_bytes - s->wc_tlps * o_tlp +
		  s->wc_tlps * TABLE1_TLP_BYTES;
	if (!o->co.json) {
		stats_text(stdout, &fp_table, &r);
		if (v->done)
			stats_text(stdout, &verify_table, v);
		return;
	}
	json_begin(&j, stdout);
	stats_json(&j, &fp_table, &r);
	if (v->done) {
		json_break(&j, " ");
		json_open(&j, "verify", '{');
		stats_json(&j, &verify_table, v);
		json_close(&j);
	}
	json_end(&j);
}

uint32_t fp_parse_subheader(const char *arg)
{
	return parse_arg_range(arg, "--subheader", MCMGPU_FP_SUBHEADER_MIN,
			       MCMGPU_FP_SUBHEADER_MAX);
}

static int replay(const char *path, struct replay_opts *o)
{
	struct fp_config cfg = {
		.chiplets = o->co.chiplets, .subheader = o->subheader,
		.overhead = o->overhead, .vram_per_chiplet = o->vram,
	};
	struct fp_backend backend = { .ops = &fp_host_ops, .fd = -1 };
	struct mcmgpu_fp_replay_result res;
	struct replay_error err;
	struct fp_verify v;
	uint8_t *trace;
	size_t len;
	char msg[512];
	int ret = 1;

	trace = fp_trace_load(path, &len, msg, sizeof(msg));
	if (!trace) {
		fprintf(stderr, "%s: %s\n", prog, msg);
		return 1;
	}
	if (!o->co.host) {
		backend.ops = &fp_device_ops;
		backend.fd = open_device(o->co.device);
		if (backend.fd < 0)
			goto out;
	}
	if (fp_replay(&backend, trace, len, &cfg, o->verify, &res, &v, &err)) {
		if (err.kind == REPLAY_ERR_RECORD)
			fprintf(stderr, "%s: %s: record %llu: %s (value %llu)\n",
				prog, path, (unsigned long long)err.rec.index,
				err.rec.what, (unsigned long long)err.rec.value);
		else if (err.rec.what[0])
			fprintf(stderr, "%s: %s\n", prog, err.rec.what);
		goto out;
	}
	o->co.chiplets = cfg.chiplets;
	o->vram = cfg.vram_per_chiplet;
	if (o->dma == DMA_REGION && !res.stats.regions) {
		fprintf(stderr, "%s: %s: --dma region: the trace declares no "
			"region (add 'region SRC DST ADDR LEN' records)\n", prog,
			path);
		goto out;
	}
	print_report(&res.stats, o, &v);
	ret = v.mismatched_bytes || res.stats.decode_errors ? 1 : 0;
	if (v.mismatched_bytes)
		fprintf(stderr, "%s: verify: %llu bytes differ from in-order "
			"plain application\n", prog,
			(unsigned long long)v.mismatched_bytes);
out:
	if (backend.fd >= 0)
		close(backend.fd);
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
		"counts the link bytes of FinePack, plain P2P, write combining and\n"
		"two DMA models: the trace's declared regions copied at every\n"
		"kernel end, and the hull each source wrote in each destination.\n\n"
		"  --subheader H      sub-header bytes, %d..%d (default %d)\n"
		"  --overhead O       TLP overhead bytes, %d or %d (default %d)\n"
		"  --dma MODEL        DMA the ratios compare with: region, hull, or\n"
		"                     auto (default: region if the trace declares\n"
		"                     regions, else hull)\n"
		"  --json             machine-readable counters\n"
		"  --verify           compare destination memory with an in-order\n"
		"                     plain application of the stores (exit 1 on a\n"
		"                     difference)\n"
		"  --host             run the same model core here, no device\n"
		"  --chiplets N       with --host: chiplets (default %d)\n"
		"  --vram-per-chiplet S  with --host: bytes per chiplet (default %lluM)\n"
		"  -d, --device DEV   /dev path, index or PCI address (default 0)\n"
		"  -h, --help         this text\n",
		MCMGPU_FP_SUBHEADER_MIN, MCMGPU_FP_SUBHEADER_MAX,
		MCMGPU_FP_SUBHEADER_DEFAULT, MCMGPU_FP_OVERHEAD_NO_ECRC,
		MCMGPU_FP_OVERHEAD_ECRC, MCMGPU_FP_OVERHEAD_ECRC,
		MCMGPU_DEFAULT_CHIPLETS, MCMGPU_DEFAULT_VRAM_PER_CHIPLET >> 20);
}

int fp_cmd_replay(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "subheader", required_argument, NULL, 's' },
		{ "overhead", required_argument, NULL, 'o' },
		OPTION_JSON,
		{ "verify", no_argument, NULL, 'v' },
		OPTION_HOST,
		OPTION_CHIPLETS,
		{ "vram-per-chiplet", required_argument, NULL, 'm' },
		{ "dma", required_argument, NULL, 'D' },
		OPTION_DEVICE,
		OPTION_HELP,
		{ }
	};
	struct replay_opts o = {
		.co = COMMON_OPTS(replay_usage, MCMGPU_MIN_CHIPLETS),
		.subheader = MCMGPU_FP_SUBHEADER_DEFAULT,
		.overhead = MCMGPU_FP_OVERHEAD_ECRC,
		.vram = MCMGPU_DEFAULT_VRAM_PER_CHIPLET,
	};
	uint64_t v;
	int c;

	o.co.max_chiplets = MCMGPU_FP_MAX_GPUS;	/* with --host */
	while ((c = common_parse(&o.co, argc, argv, "d:h", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			o.subheader = fp_parse_subheader(optarg);
			break;
		case 'o':
			v = parse_arg(optarg, "--overhead");
			if (v != MCMGPU_FP_OVERHEAD_ECRC && v != MCMGPU_FP_OVERHEAD_NO_ECRC)
				die_usage("--overhead: %" PRIu64 " is not %d or %d", v,
					  MCMGPU_FP_OVERHEAD_NO_ECRC,
					  MCMGPU_FP_OVERHEAD_ECRC);
			o.overhead = v;
			break;
		case 'v':
			o.verify = true;
			break;
		case 'm':
			v = parse_arg(optarg, "--vram-per-chiplet");
			if (!v || v > (1ULL << 40))
				die_usage("--vram-per-chiplet: bad size %s", optarg);
			o.vram = v;
			break;
		case 'D':
			if (!strcmp(optarg, "region"))
				o.dma = DMA_REGION;
			else if (!strcmp(optarg, "hull"))
				o.dma = DMA_HULL;
			else if (!strcmp(optarg, "auto"))
				o.dma = DMA_AUTO;
			else
				die_usage("--dma: '%s' is not region, hull or auto",
					  optarg);
			break;
		}
	}
	return replay(common_operand(&o.co, argc, argv), &o);
}

int fp_cmd_convert(int argc, char **argv)
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
		       "  region SRC DST ADDR LEN   (what the DMA baseline copies\n"
		       "                             from SRC at every kernel end)\n"
		       "  compute SRC NS            (SRC computes NS ns in this kernel,\n"
		       "                             for the timing model)\n"
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

const struct subcommand fp_commands[] = {
	{ "replay", "replay a trace on the device or the host", fp_cmd_replay },
	{ "convert", "convert a text trace to the binary format", fp_cmd_convert },
	{ "gen", "generate a workload trace", fp_cmd_gen },
	{ "analytic", "print the analytic efficiency model", fp_cmd_analytic },
	{ "bench", "time replay against memcpy of the trace", fp_cmd_bench },
	{ }
};
