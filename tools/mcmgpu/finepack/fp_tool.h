/* SPDX-License-Identifier: GPL-2.0 */
/* mcmgpu finepack: the subcommands and what they share. */
#ifndef FP_TOOL_H
#define FP_TOOL_H

#include <stddef.h>
#include <stdint.h>

#include "finepack.h"
#include "fp_trace.h"
#include "cli.h"

/* The subcommands of mcmgpu finepack, for the mechanism table. */
extern const struct subcommand fp_commands[];

int fp_cmd_replay(int argc, char **argv);
int fp_cmd_convert(int argc, char **argv);
int fp_cmd_gen(int argc, char **argv);
int fp_cmd_analytic(int argc, char **argv);
int fp_cmd_bench(int argc, char **argv);

/* --subheader H: MCMGPU_FP_SUBHEADER_MIN..MAX, or exit 2. */
uint32_t fp_parse_subheader(const char *arg);

/* Generators (fp_workloads.c) */
enum fp_gen_kind {
	FP_GEN_HALO, FP_GEN_VERTEX, FP_GEN_TRANSPOSE, FP_GEN_SCATTER,
	FP_GEN_LINES, FP_GEN_PAGERANK, FP_GEN_SSSP, FP_GEN_VOXELS,
	FP_GEN_KINDS,
};

/*
 * What a kernel computes, for the timing model's compute records
 * (fp_compute.c, docs/finepack.md "Compute per kernel").
 */
enum fp_compute_kind {
	FP_COMPUTE_NONE, FP_COMPUTE_STENCIL2D, FP_COMPUTE_STENCIL3D,
	FP_COMPUTE_FFT, FP_COMPUTE_STREAM, FP_COMPUTE_GATHER, FP_COMPUTE_GRAPH,
	FP_COMPUTE_CT,
};

/* The graphs of the pagerank and sssp kinds (fp_graph.c, docs/finepack.md). */
enum fp_graph_kind { FP_GRAPH_BAND, FP_GRAPH_RMAT };

struct fp_gen_params {
	enum fp_gen_kind kind;
	uint32_t chiplets, iters, store;	/* store 0: random 4..8 B */
	uint64_t bytes;		/* halo bytes, vertex array, scatter span */
	uint64_t count;		/* updates per source per iteration */
	uint32_t rows;		/* transpose rows per chiplet */
	uint64_t seed;
	/* pagerank, sssp: a CSR graph of 'count' vertices */
	enum fp_graph_kind graph;
	uint32_t degree;	/* in-edges per vertex, on average */
	uint32_t band;		/* band graphs: neighbours within +-count/band */
	enum fp_compute_kind compute;
	uint32_t depth;		/* halo layers in a face (stencil order / 2) */
	/*
	 * halo: 0, a face is contiguous (the domain cut across its slowest
	 * axis); N, a 3-D domain cut across its middle axis, so a face is N
	 * planes' runs of depth rows each, a plane apart (fp_workloads.c).
	 */
	uint32_t planes;
};

/* The local array of a strided-halo chiplet; false if it does not fit. */
bool fp_halo_layout(const struct fp_gen_params *p, uint64_t *run,
		    uint64_t *plane, uint64_t *high);

/* GV100 (FinePack Table III): the roofline that prices a kernel. */
#define FP_GPU_HBM_GBPS		900	/* HBM2, bytes per ns */
#define FP_GPU_GFLOPS		15667	/* 80 SMs x 64 lanes x 2 x 1.53 GHz */
uint64_t fp_roofline_ns(double bytes, double flops);
/* One kernel's compute on chiplet c: a COMPUTE record (none for 0 ns). */
int fp_add_compute(struct fp_trace_buf *tb, uint32_t c, uint64_t ns);
/* The per-chiplet compute of the halo, transpose, vertex and voxel kinds. */
uint64_t fp_kernel_compute_ns(const struct fp_gen_params *p);

/* pagerank and sssp traces from a CSR graph (fp_graph.c). */
int fp_gen_graph(struct fp_trace_buf *tb, const struct fp_gen_params *p,
		 uint64_t *rng);

struct fp_preset {
	const char *name, *what;
	struct fp_gen_params p;
};

extern const struct fp_preset fp_presets[];
extern const size_t fp_npresets;
extern const char * const fp_gen_kinds[FP_GEN_KINDS];
extern const enum fp_compute_kind fp_kind_compute[FP_GEN_KINDS];
/* What a generic kind starts from before its options. */
extern const struct fp_gen_params fp_gen_defaults;

int fp_generate(struct fp_trace_buf *tb, const struct fp_gen_params *p);

#endif /* FP_TOOL_H */
