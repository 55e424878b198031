// SPDX-License-Identifier: GPL-2.0
/* mcmgpu finepack gen: write a generated workload trace (fp_workloads.c). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "fp_tool.h"
#include "opts.h"
#include "cli.h"

static void gen_usage(FILE *f)
{
	size_t i;

	fprintf(f,
		"usage: mcmgpu finepack gen WORKLOAD -o FILE [options]\n\n"
		"workloads (presets):\n");
	for (i = 0; i < fp_npresets; i++)
		fprintf(f, "  %-16s %s\n", fp_presets[i].name, fp_presets[i].what);
	for (i = 0; i < FP_GEN_KINDS; i++)
		fprintf(f, "%s%s", i ? ", " : "  ", fp_gen_kinds[i]);
	fprintf(f,
		": the generic kinds\n\n"
		"  -o, --output FILE  binary trace to write\n"
		"  --chiplets N       chiplets (default %d)\n"
		"  --iters N          kernels (iterations)\n"
		"  --store S          bytes per store (0: random 4..8)\n"
		"  --bytes B          halo bytes, vertex array, scatter span\n"
		"  --count N          updates per source per iteration (lines: stores)\n"
		"  --rows N           transpose rows per chiplet\n"
		"  --graph G          pagerank, sssp: band or rmat\n"
		"  --degree D         pagerank, sssp: in-edges per vertex (1..64)\n"
		"  --band B           band graphs: neighbours within +-vertices/B\n"
		"                     (pagerank, sssp: --count is the vertices)\n"
		"  --seed S           random seed\n"
		"  --compute K        compute per kernel for the timing model:\n"
		"                     none, stencil2d, stencil3d, fft, stream,\n"
		"                     gather, graph, ct (default: the workload's)\n"
		"  --depth L          halo: layers in a face (stencil order / 2)\n"
		"  --planes N         halo: a 3-D domain cut across y, so a face\n"
		"                     is N strided runs, a plane apart (0: one\n"
		"                     contiguous run; eqwp: 48)\n"
		"  -h, --help         this text\n", MCMGPU_DEFAULT_CHIPLETS);
}

static const char * const compute_kinds[] = {
	[FP_COMPUTE_NONE] = "none", [FP_COMPUTE_STENCIL2D] = "stencil2d",
	[FP_COMPUTE_STENCIL3D] = "stencil3d", [FP_COMPUTE_FFT] = "fft",
	[FP_COMPUTE_STREAM] = "stream", [FP_COMPUTE_GATHER] = "gather",
	[FP_COMPUTE_GRAPH] = "graph", [FP_COMPUTE_CT] = "ct",
};

static enum fp_compute_kind compute_kind(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(compute_kinds); i++)
		if (!strcmp(name, compute_kinds[i]))
			return i;
	die_usage("--compute: '%s' is not one of none, stencil2d, stencil3d, "
		  "fft, stream, gather, graph, ct", name);
	return FP_COMPUTE_NONE;
}

/* WORKLOAD: a preset, or a generic kind with the defaults. */
static void workload(const char *name, struct fp_gen_params *p)
{
	size_t i;

	for (i = 0; i < fp_npresets; i++) {
		if (!strcmp(name, fp_presets[i].name)) {
			*p = fp_presets[i].p;
			return;
		}
	}
	for (i = 0; i < FP_GEN_KINDS; i++) {
		if (!strcmp(name, fp_gen_kinds[i])) {
			*p = fp_gen_defaults;
			p->kind = i;
			p->compute = fp_kind_compute[i];
			/* 4 B vertex values and voxels; a small volume. */
			if (i == FP_GEN_PAGERANK || i == FP_GEN_SSSP ||
			    i == FP_GEN_VOXELS)
				p->store = 4;
			if (i == FP_GEN_VOXELS)
				p->bytes = 64 << 10;
			return;
		}
	}
	die_usage("finepack gen: unknown workload '%s'", name);
}

int fp_cmd_gen(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		OPTION_CHIPLETS,
		{ "iters", required_argument, NULL, 'i' },
		{ "store", required_argument, NULL, 's' },
		{ "bytes", required_argument, NULL, 'b' },
		{ "count", required_argument, NULL, 'n' },
		{ "rows", required_argument, NULL, 'r' },
		{ "graph", required_argument, NULL, 'g' },
		{ "degree", required_argument, NULL, 'D' },
		{ "band", required_argument, NULL, 'B' },
		{ "seed", required_argument, NULL, 'S' },
		{ "compute", required_argument, NULL, 'C' },
		{ "depth", required_argument, NULL, 'L' },
		{ "planes", required_argument, NULL, 'P' },
		OPTION_HELP,
		{ }
	};
	struct common_opts co = COMMON_OPTS(gen_usage, MCMGPU_MIN_CHIPLETS);
	struct fp_trace_buf tb = { 0 };
	struct fp_gen_params p;
	const char *out = NULL;
	char what[32];
	uint8_t *trace;
	uint64_t v;
	size_t len;
	int c, ret, idx = 0;

	co.max_chiplets = MCMGPU_FP_MAX_GPUS;
	workload(common_verb(&co, argc, argv), &p);
	argc--, argv++;
	while ((c = common_parse(&co, argc, argv, "o:h", opts, &idx)) != -1) {
		if (c == 'o') {
			out = optarg;
			continue;
		}
		if (c == 'C') {
			p.compute = compute_kind(optarg);
			continue;
		}
		if (c == 'g') {
			if (!strcmp(optarg, "band"))
				p.graph = FP_GRAPH_BAND;
			else if (!strcmp(optarg, "rmat"))
				p.graph = FP_GRAPH_RMAT;
			else
				die_usage("--graph: '%s' is not band or rmat", optarg);
			continue;
		}
		/* The numeric options are long-only, so idx names the one given. */
		snprintf(what, sizeof(what), "--%s", opts[idx].name);
		v = parse_arg(optarg, what);
		switch (c) {
		case 'i':
			p.iters = v;
			break;
		case 's':
			if (v > FP_LINE_BYTES)
				die_usage("--store: %" PRIu64 " is over %d", v,
					  FP_LINE_BYTES);
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
		case 'D':
			p.degree = v;
			break;
		case 'B':
			p.band = v;
			break;
		case 'L':
			if (!v || v > 8)
				die_usage("--depth: %" PRIu64 ", want 1..8 layers", v);
			p.depth = v;
			break;
		case 'P':
			if (v > 4096)
				die_usage("--planes: %" PRIu64 ", want 0..4096", v);
			p.planes = v;
			break;
		}
	}
	p.chiplets = co.chiplets;
	if (!out || optind != argc)
		die_usage("finepack gen: -o FILE is required (and nothing else)");
	if (!p.store && p.kind != FP_GEN_VERTEX && p.kind != FP_GEN_SCATTER)
		die_usage("--store 0 (random 4..8 B) is for vertex and scatter");
	if (p.kind == FP_GEN_HALO && !p.planes &&
	    (p.bytes > (1 << 20) || p.bytes % p.store))
		die_usage("--bytes: a halo is at most 1 MiB, a multiple of --store");
	if (p.kind == FP_GEN_HALO && p.planes) {
		uint64_t run, plane, high;

		if (p.bytes > (1 << 20) || !fp_halo_layout(&p, &run, &plane, &high))
			die_usage("--planes: %u planes of a %" PRIu64 " B face: "
				  "want the face (at most 1 MiB) in equal runs of "
				  "--depth rows, the array within 64 MiB",
				  p.planes, p.bytes);
	}
	if ((p.kind == FP_GEN_VERTEX || p.kind == FP_GEN_SCATTER) &&
	    p.bytes < (uint64_t)p.chiplets * FP_LINE_BYTES * 2)
		die_usage("--bytes: %" PRIu64 " too small", p.bytes);
	if (p.kind == FP_GEN_PAGERANK || p.kind == FP_GEN_SSSP) {
		if (!p.store || p.store > 8)
			die_usage("--store: a vertex value is 1..8 B");
		if (p.count < p.chiplets || p.count > (1U << 26))
			die_usage("--count: %" PRIu64 " vertices, want %u..%u",
				  p.count, p.chiplets, 1U << 26);
		if (!p.degree || p.degree > 64)
			die_usage("--degree: %u, want 1..64", p.degree);
		if (p.graph == FP_GRAPH_BAND && (p.band < 2 || p.band > p.count))
			die_usage("--band: %u, want 2..vertices", p.band);
	}
	if (p.kind == FP_GEN_VOXELS &&
	    (!p.store || p.bytes < (uint64_t)p.chiplets * p.store ||
	     p.bytes / p.chiplets / p.store > (1U << 24)))
		die_usage("--bytes: a volume of 1..16 Mi voxels a slab, "
			  "--store bytes each");
	if (fp_generate(&tb, &p)) {
		fprintf(stderr, "%s: out of memory\n", prog);
		fp_tb_free(&tb);
		return 1;
	}
	trace = fp_tb_finish(&tb, &len);
	if (!trace || len > MCMGPU_FP_TRACE_MAX_BYTES) {
		fprintf(stderr, "%s: trace of %zu bytes is too large\n", prog, len);
		free(trace);
		return 1;
	}
	ret = write_file(out, trace, len) ? 1 : 0;
	free(trace);
	return ret;
}
