// SPDX-License-Identifier: GPL-2.0
/*
 * FinePack workload generators: synthetic traces standing in for the
 * paper's applications (FinePack §V).
 *
 * Every generator is race-free: within a kernel no two sources write the
 * same destination byte, so in-order plain application is the reference
 * for --verify.
 */
#include <stdlib.h>

#include "fp_tool.h"
#include "cli.h"

/* Chiplets come from --chiplets. */
const struct fp_preset fp_presets[] = {
	{ "jacobi", "halo exchange, 128 B stores, 32 KiB halos",
	  { .kind = FP_GEN_HALO, .iters = 8, .store = 128, .bytes = 32 << 10,
	    .seed = 1, .compute = FP_COMPUTE_STENCIL2D, .depth = 1 } },
	{ "diffusion", "halo exchange, 128 B stores, 64 KiB halos",
	  { .kind = FP_GEN_HALO, .iters = 8, .store = 128, .bytes = 64 << 10,
	    .seed = 2, .compute = FP_COMPUTE_STENCIL3D, .depth = 1 } },
	{ "eqwp", "4th-order halo exchange, 64 B stores, 48 KiB strided faces",
	  { .kind = FP_GEN_HALO, .iters = 8, .store = 64, .bytes = 48 << 10,
	    .seed = 3, .compute = FP_COMPUTE_STENCIL3D, .depth = 2,
	    .planes = 48 } },
	{ "pagerank", "PageRank on a banded cage-like graph, 4 B ranks",
	  { .kind = FP_GEN_PAGERANK, .iters = 4, .store = 4, .count = 1 << 20,
	    .graph = FP_GRAPH_BAND, .degree = 19, .band = 16, .seed = 4,
	    .compute = FP_COMPUTE_GRAPH } },
	{ "sssp", "Bellman-Ford on a power-law R-MAT graph, 4 B distances",
	  { .kind = FP_GEN_SSSP, .iters = 16, .store = 4, .count = 1 << 19,
	    .graph = FP_GRAPH_RMAT, .degree = 16, .seed = 5,
	    .compute = FP_COMPUTE_GRAPH } },
	{ "pagerank-random", "random 4 B vertex updates over a 16 MiB array",
	  { .kind = FP_GEN_VERTEX, .iters = 4, .store = 4, .bytes = 16 << 20,
	    .count = 20000, .seed = 4, .compute = FP_COMPUTE_GATHER,
	    .degree = 19 } },
	{ "sssp-random", "random 8 B vertex updates over a 64 MiB array",
	  { .kind = FP_GEN_VERTEX, .iters = 4, .store = 8, .bytes = 64 << 20,
	    .count = 20000, .seed = 5, .compute = FP_COMPUTE_GATHER,
	    .degree = 16 } },
	{ "hit", "all-to-all transpose of 16 B elements",
	  { .kind = FP_GEN_TRANSPOSE, .iters = 2, .store = 16, .rows = 64,
	    .seed = 6, .compute = FP_COMPUTE_FFT } },
	{ "als", "all-to-all transpose of 32 B factor rows",
	  { .kind = FP_GEN_TRANSPOSE, .iters = 2, .store = 32, .rows = 64,
	    .seed = 7, .compute = FP_COMPUTE_STREAM } },
	{ "ct", "every voxel of a 512 KiB volume once, in random order, to all",
	  { .kind = FP_GEN_VOXELS, .iters = 2, .store = 4, .bytes = 512 << 10,
	    .seed = 8, .compute = FP_COMPUTE_CT } },
	{ "ct-windows", "low-locality 4-8 B stores over 2 GiB (two 1 GiB windows)",
	  { .kind = FP_GEN_SCATTER, .iters = 2, .store = 0, .bytes = 2ULL << 30,
	    .count = 20000, .seed = 8, .compute = FP_COMPUTE_GATHER,
	    .degree = 16 } },
};

const size_t fp_npresets = ARRAY_SIZE(fp_presets);

const char * const fp_gen_kinds[FP_GEN_KINDS] = {
	[FP_GEN_HALO] = "halo", [FP_GEN_VERTEX] = "vertex",
	[FP_GEN_TRANSPOSE] = "transpose", [FP_GEN_SCATTER] = "scatter",
	[FP_GEN_LINES] = "lines", [FP_GEN_PAGERANK] = "pagerank-graph",
	[FP_GEN_SSSP] = "sssp-graph", [FP_GEN_VOXELS] = "voxels",
};

const struct fp_gen_params fp_gen_defaults = {
	.kind = FP_GEN_HALO, .iters = 4, .store = 128, .bytes = 32 << 10,
	.count = 1000, .rows = 64, .seed = 1, .graph = FP_GRAPH_RMAT,
	.degree = 16, .band = 16, .depth = 1,
};

/* Each kind's compute unless --compute says otherwise. */
const enum fp_compute_kind fp_kind_compute[FP_GEN_KINDS] = {
	[FP_GEN_HALO] = FP_COMPUTE_STENCIL2D, [FP_GEN_VERTEX] = FP_COMPUTE_GATHER,
	[FP_GEN_TRANSPOSE] = FP_COMPUTE_STREAM, [FP_GEN_SCATTER] = FP_COMPUTE_GATHER,
	[FP_GEN_LINES] = FP_COMPUTE_NONE, [FP_GEN_PAGERANK] = FP_COMPUTE_GRAPH,
	[FP_GEN_SSSP] = FP_COMPUTE_GRAPH, [FP_GEN_VOXELS] = FP_COMPUTE_CT,
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
	return fp_tb_add(tb, MCMGPU_FP_REC_STORE, src, dst, addr, len, data);
}

/* What the application copies by DMA at every kernel end (REGION). */
static int add_region(struct fp_trace_buf *tb, uint32_t src, uint32_t dst,
		      uint64_t addr, uint64_t len)
{
	return fp_tb_add(tb, MCMGPU_FP_REC_REGION, src, dst, addr, len, NULL);
}

/* Every chiplet's compute for the kernel that starts here. */
static int start_kernel(struct fp_trace_buf *tb, const struct fp_gen_params *p)
{
	uint64_t ns = fp_kernel_compute_ns(p);
	uint32_t c;

	for (c = 0; c < p->chiplets; c++)
		if (fp_add_compute(tb, c, ns))
			return -1;
	return 0;
}

static int end_kernel(struct fp_trace_buf *tb)
{
	return fp_tb_add(tb, MCMGPU_FP_REC_KERNEL_END, 0, 0, 0, 0, NULL);
}

static uint32_t store_len(const struct fp_gen_params *p)
{
	return p->store ? p->store : 4 + next() % 5;
}

/*
 * Each source writes its ghost slot in each neighbour, in store-sized runs;
 * with regions, it declares the slots first instead.
 */
static int halo_pass(struct fp_trace_buf *tb, const struct fp_gen_params *p,
		     bool regions)
{
	uint32_t c, side;
	uint64_t off;

	for (c = 0; c < p->chiplets; c++) {
		for (side = 0; side < 2; side++) {
			uint32_t nb = (c + (side ? p->chiplets - 1 : 1)) % p->chiplets;
			uint64_t base = (2ULL * c + side) << 20;

			if (side && nb == (c + 1) % p->chiplets)
				continue;	/* two chiplets: one neighbour */
			if (regions) {
				if (add_region(tb, c, nb, base, p->bytes))
					return -1;
				continue;
			}
			for (off = 0; off < p->bytes; off += p->store)
				if (add_store(tb, c, nb, base + off, p->store))
					return -1;
		}
	}
	return 0;
}

/*
 * A 3-D domain (x fastest, then y, then z) cut across y among the
 * chiplets: each chiplet's array is z planes of (depth + ny/P + depth)
 * rows of x, ghost rows first and last in every plane. A face is depth
 * rows of every plane: 'planes' runs, one a plane apart. ny follows the
 * compute model's cube: sqrt of a face layer's values (fp_compute.c).
 */
bool fp_halo_layout(const struct fp_gen_params *p, uint64_t *run,
		    uint64_t *plane, uint64_t *high)
{
	uint64_t row, ny, local, depth = p->depth ? p->depth : 1;

	if (!p->planes || p->bytes % p->planes || p->bytes / p->planes % depth)
		return false;
	*run = p->bytes / p->planes;
	row = *run / depth;
	for (ny = 1; (ny + 1) * (ny + 1) <= p->bytes / 8 / depth; ny++)
		;
	local = (ny + p->chiplets - 1) / p->chiplets;
	if (local < depth)
		local = depth;
	*plane = (local + 2 * depth) * row;
	*high = (local + depth) * row;
	return *plane * p->planes <= (64ULL << 20);
}

/*
 * Each source writes its boundary rows into each neighbour's ghost rows,
 * plane by plane in store-sized runs (the last of a run may be shorter):
 * into the low ghost rows of the chiplet above, the high ones of the one
 * below. With regions, it declares each plane's run (a strided copy).
 */
static int strided_halo_pass(struct fp_trace_buf *tb,
			     const struct fp_gen_params *p, bool regions)
{
	uint64_t run, plane, high, off, z, at;
	uint32_t c, side, n;

	if (!fp_halo_layout(p, &run, &plane, &high))
		return -1;
	for (c = 0; c < p->chiplets; c++) {
		for (side = 0; side < 2; side++) {
			uint32_t nb = (c + (side ? p->chiplets - 1 : 1)) % p->chiplets;

			if (side && nb == (c + 1) % p->chiplets)
				continue;	/* two chiplets: one neighbour */
			for (z = 0; z < p->planes; z++) {
				at = z * plane + (side ? high : 0);
				if (regions) {
					if (add_region(tb, c, nb, at, run))
						return -1;
					continue;
				}
				for (off = 0; off < run; off += n) {
					n = run - off < p->store ? run - off : p->store;
					if (add_store(tb, c, nb, at + off, n))
						return -1;
				}
			}
		}
	}
	return 0;
}

static int gen_halo(struct fp_trace_buf *tb, const struct fp_gen_params *p)
{
	int (*pass)(struct fp_trace_buf *, const struct fp_gen_params *, bool) =
		p->planes ? strided_halo_pass : halo_pass;
	uint32_t it;

	if (pass(tb, p, true))
		return -1;
	for (it = 0; it < p->iters; it++)
		if (start_kernel(tb, p) || pass(tb, p, false) || end_kernel(tb))
			return -1;
	return 0;
}

/* Each source updates replicas of the vertices it owns, at random. */
static int gen_vertex(struct fp_trace_buf *tb, const struct fp_gen_params *p)
{
	uint64_t slice = p->bytes / p->chiplets / 8 * 8, n;
	uint32_t it, c, d;

	/* The replicated array: each owner's slice, to every peer. */
	for (c = 0; c < p->chiplets; c++)
		for (d = 0; d < p->chiplets; d++)
			if (d != c && add_region(tb, c, d, c * slice, slice))
				return -1;
	for (it = 0; it < p->iters; it++) {
		if (start_kernel(tb, p))
			return -1;
		for (n = 0; n < p->count; n++) {
			for (c = 0; c < p->chiplets; c++) {
				uint32_t dst = random_peer(c, p->chiplets);
				uint64_t addr = c * slice + next() % (slice / 8) * 8;
				uint32_t len = store_len(p);

				/* Stay in the slice: the next one is another writer's. */
				if (addr + len > (c + 1) * slice)
					addr = (c + 1) * slice - len;
				if (add_store(tb, c, dst, addr, len))
					return -1;
			}
		}
		if (end_kernel(tb))
			return -1;
	}
	return 0;
}

/* Rows are distributed; element (i, j) goes to (j, i) on j's owner. */
static int gen_transpose(struct fp_trace_buf *tb, const struct fp_gen_params *p)
{
	uint64_t pitch = (uint64_t)p->rows * p->chiplets * p->store;
	uint32_t it, c, d, i, j;

	/* c's block of d's rows: a strided copy, one region per row. */
	for (c = 0; c < p->chiplets; c++)
		for (d = 0; d < p->chiplets; d++)
			for (j = 0; j < p->rows && d != c; j++)
				if (add_region(tb, c, d, j * pitch + (uint64_t)c *
					       p->rows * p->store,
					       (uint64_t)p->rows * p->store))
					return -1;
	for (it = 0; it < p->iters; it++) {
		if (start_kernel(tb, p))
			return -1;
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
static int gen_scatter(struct fp_trace_buf *tb, const struct fp_gen_params *p)
{
	uint64_t lines = p->bytes / FP_LINE_BYTES / p->chiplets, n;
	uint32_t it, c, d;

	/* Writers interleave line by line: DMA copies the whole span. */
	for (c = 0; c < p->chiplets; c++)
		for (d = 0; d < p->chiplets; d++)
			if (d != c && add_region(tb, c, d, 0,
						 lines * p->chiplets * FP_LINE_BYTES))
				return -1;
	for (it = 0; it < p->iters; it++) {
		if (start_kernel(tb, p))
			return -1;
		for (n = 0; n < p->count; n++) {
			for (c = 0; c < p->chiplets; c++) {
				uint32_t dst = random_peer(c, p->chiplets);
				uint64_t line = (next() % lines) * p->chiplets + c;
				/* The draws in the order the traces always used. */
				uint32_t len = store_len(p);
				uint64_t off = next() % 15 * 8;

				/* Stay in the line: the next one is another writer's. */
				if (off + len > FP_LINE_BYTES)
					off = FP_LINE_BYTES - len;
				if (add_store(tb, c, dst, line * FP_LINE_BYTES + off,
					      len))
					return -1;
			}
		}
		if (end_kernel(tb))
			return -1;
	}
	return 0;
}

/*
 * CT (MBIR by iterative coordinate descent): the volume is split into
 * slabs, one per chiplet; each iteration a chiplet updates every voxel of
 * its slab once, in random order, and sends each new value to every peer
 * (all-to-all). Every byte is written, with little locality in order.
 */
static int gen_voxels(struct fp_trace_buf *tb, const struct fp_gen_params *p)
{
	uint64_t slab = p->bytes / p->chiplets / p->store, i, j, t;
	uint32_t *perm = malloc(slab * sizeof(*perm)), it, c, d;
	int ret = -1;

	if (!perm)
		return -1;
	/* The replicated volume: each chiplet's slab, to every peer. */
	for (c = 0; c < p->chiplets; c++)
		for (d = 0; d < p->chiplets; d++)
			if (d != c && add_region(tb, c, d, c * slab * p->store,
						 slab * p->store))
				goto out;
	for (it = 0; it < p->iters; it++) {
		if (start_kernel(tb, p))
			goto out;
		for (c = 0; c < p->chiplets; c++) {
			for (i = 0; i < slab; i++)
				perm[i] = i;
			for (i = slab - 1; i > 0; i--) {	/* Fisher-Yates */
				j = next() % (i + 1);
				t = perm[i];
				perm[i] = perm[j];
				perm[j] = t;
			}
			for (i = 0; i < slab; i++)
				for (d = 0; d < p->chiplets; d++)
					if (d != c &&
					    add_store(tb, c, d, (c * slab + perm[i]) *
						      p->store, p->store))
						goto out;
		}
		if (end_kernel(tb))
			goto out;
	}
	ret = 0;
out:
	free(perm);
	return ret;
}

/* count stores of one size, one per line, chiplet 0 to 1 (notes B2). */
static int gen_lines(struct fp_trace_buf *tb, const struct fp_gen_params *p)
{
	uint64_t n, off = p->store <= 120 ? 8 : 0;

	if (add_region(tb, 0, 1, 0, p->count * FP_LINE_BYTES))
		return -1;
	for (n = 0; n < p->count; n++)
		if (add_store(tb, 0, 1, n * FP_LINE_BYTES + off, p->store))
			return -1;
	return end_kernel(tb);
}

int fp_generate(struct fp_trace_buf *tb, const struct fp_gen_params *p)
{
	rng = p->seed ? p->seed : 1;
	switch (p->kind) {
	case FP_GEN_HALO:
		return gen_halo(tb, p);
	case FP_GEN_VERTEX:
		return gen_vertex(tb, p);
	case FP_GEN_TRANSPOSE:
		return gen_transpose(tb, p);
	case FP_GEN_SCATTER:
		return gen_scatter(tb, p);
	case FP_GEN_PAGERANK:
	case FP_GEN_SSSP:
		return fp_gen_graph(tb, p, &rng);
	case FP_GEN_VOXELS:
		return gen_voxels(tb, p);
	default:
		return gen_lines(tb, p);
	}
}
