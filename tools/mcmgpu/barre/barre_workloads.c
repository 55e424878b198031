// SPDX-License-Identifier: GPL-2.0
/*
 * mcmgpu barre gen: Barre traces modeled on the paper's applications
 * (Table I), one per class member we model. Each chiplet runs the thread
 * blocks the LASP-like placement gives it (block b on chiplet b mod n, its
 * rows in that chiplet's memory: policy=chunk with g = a block's pages),
 * its units of work dealt to --warps warps that take turns, and each
 * access is one TLB lookup after the warp's coalescer (one per distinct
 * page a warp instruction touches). --accesses bounds each chiplet's
 * stream: the trace is the kernel's first accesses, not all of them. The derivations are in docs/barre.md; no size or rate here is
 * chosen to produce a class or a paper figure.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "barre_tool.h"
#include "opts.h"
#include "cli.h"

#define PAGE		4096ULL
#define LINE		128ULL		/* a warp's coalesced 32 x 4 B */
#define WARP		32

struct gen {
	FILE *f;
	unsigned int n;			/* chiplets */
	unsigned int warps;		/* per chiplet, interleaved */
	unsigned long long budget;	/* accesses per chiplet */
	unsigned long long *used;	/* per chiplet */
	unsigned long long *wused;	/* per chiplet and warp */
	unsigned int *warp;		/* per chiplet: the warp emitting */
	char **buf;			/* per chiplet and warp: access lines */
	size_t *len, *cap;
	unsigned long long seed;
};

/* The next unit of work on chiplet c goes to its next warp. */
static void next_warp(struct gen *g, unsigned int c)
{
	g->warp[c] = (g->warp[c] + 1) % g->warps;
}

static void __attribute__((noreturn, format(printf, 1, 2)))
die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static unsigned long long rnd(struct gen *g)
{
	g->seed ^= g->seed << 13;
	g->seed ^= g->seed >> 7;
	g->seed ^= g->seed << 17;
	return g->seed;
}

/* Every warp of c has all it can show: the kernel may stop. */
static bool full(const struct gen *g, unsigned int c)
{
	return g->used[c] >= g->budget * g->warps;
}

static void emit(struct gen *g, unsigned int c, unsigned int id,
		 unsigned long long off, bool write)
{
	size_t b = (size_t)c * g->warps + g->warp[c];
	char line[80];
	int k;

	/* No warp can have more than the chiplet's budget in the trace. */
	if (full(g, c) || g->wused[b] >= g->budget)
		return;
	k = snprintf(line, sizeof(line), "access %u %u %llu%s\n", c, id, off,
		     write ? " w" : "");
	if (g->len[b] + k + 1 > g->cap[b]) {
		g->cap[b] = (g->cap[b] + k + 1) * 2;
		g->buf[b] = realloc(g->buf[b], g->cap[b]);
		if (!g->buf[b])
			die("out of memory");
	}
	memcpy(g->buf[b] + g->len[b], line, k + 1);
	g->len[b] += k;
	g->used[c]++;
	g->wused[b]++;
}

/* An object of rows x row_bytes, blocks of block_rows rows per chiplet. */
static void alloc_rows(struct gen *g, unsigned int id, unsigned long long rows,
		       unsigned long long row_bytes, unsigned long long block_rows)
{
	unsigned long long bytes = (rows * row_bytes + PAGE - 1) / PAGE * PAGE;
	unsigned long long gp = (block_rows * row_bytes + PAGE - 1) / PAGE;

	fprintf(g->f, "alloc %u %llu policy=chunk g=%llu\n", id, bytes,
		gp ? gp : 1);
}

static void alloc_rr(struct gen *g, unsigned int id, unsigned long long bytes)
{
	fprintf(g->f, "alloc %u %llu policy=rr\n", id,
		(bytes + PAGE - 1) / PAGE * PAGE);
}

/* Rows owned by chiplet c, in the order it runs them, while it has budget. */
#define FOR_OWN_ROWS(g, c, rows, block_rows, r)				\
	for (unsigned long long _b = (c); _b * (block_rows) < (rows) &&	\
	     !full(g, c); _b += (g)->n)					\
		for ((r) = _b * (block_rows);				\
		     (r) < (_b + 1) * (block_rows) && (r) < (rows) &&	\
		     !full(g, c); (r)++)

/*
 * gemv (gemver, low): A += u1 v1' + u2 v2', 2-D threads along j, so a
 * warp reads and writes 128 contiguous bytes of a row of A: 32 warps per
 * page. Vectors are small and shared.
 */
static void gen_gemv(struct gen *g, unsigned long long size)
{
	unsigned long long n = size, rb = n * 4, br = 8, r, j;
	unsigned int c;

	alloc_rows(g, 1, n, rb, br);
	alloc_rr(g, 2, 4 * n * 4);	/* u1, v1, u2, v2 */
	for (c = 0; c < g->n; c++)
		FOR_OWN_ROWS(g, c, n, br, r)
			for (j = 0; j < rb && !full(g, c); j += LINE, next_warp(g, c)) {
				emit(g, c, 2, (r * 4) % (4 * n * 4), false);
				emit(g, c, 2, (2 * n * 4 + j) % (4 * n * 4), false);
				emit(g, c, 1, r * rb + j, false);
				emit(g, c, 1, r * rb + j, true);
			}
}

/*
 * pagerank (low, but an IOMMU intensity 10x the class's): CSR pull, one
 * thread per vertex; a warp streams row pointers and neighbour lists and
 * gathers the neighbours' ranks, mostly of a few popular vertices (a
 * power-law graph: neighbour = size * u^3 for u uniform).
 */
static void gen_pagerank(struct gen *g, unsigned long long size)
{
	unsigned long long v = size * 64, deg = 8, br = 256, r, e;
	unsigned int c;

	alloc_rows(g, 1, v, 8, br);		/* row pointers */
	alloc_rows(g, 2, v, deg * 4, br);	/* neighbour ids */
	alloc_rr(g, 3, v * 4);			/* ranks, read by all */
	alloc_rows(g, 4, v, 4, br);		/* new ranks */
	for (c = 0; c < g->n; c++)
		FOR_OWN_ROWS(g, c, v, br, r) {
			if (r % WARP)
				continue;	/* one warp: 32 vertices */
			next_warp(g, c);
			emit(g, c, 1, r * 8, false);
			for (e = 0; e < deg; e++) {
				double u = (double)(rnd(g) % 1000000) / 1e6;

				emit(g, c, 2, r * deg * 4 + e * 4, false);
				emit(g, c, 3, (unsigned long long)(u * u * u * v) * 4, false);
			}
			emit(g, c, 4, r * 4, true);
		}
}

/*
 * stencil2d (mid) and jacobi2d (mid): a 9-point (stencil2d) or 5-point
 * (jacobi2d) sweep over a rows x cols grid of floats, rows in blocks per
 * chiplet, a warp on 32 consecutive points: it reads rows r-1, r and r+1
 * at its 128 bytes and writes the output row.
 */
static void gen_stencil(struct gen *g, unsigned long long size, bool jacobi)
{
	unsigned long long rows = size, rb = size * 4, br = 16, r, j;
	unsigned int c;

	alloc_rows(g, 1, rows, rb, br);
	alloc_rows(g, 2, rows, rb, br);
	for (c = 0; c < g->n; c++)
		FOR_OWN_ROWS(g, c, rows, br, r)
			for (j = 0; j < rb && !full(g, c); j += LINE, next_warp(g, c)) {
				if (r)
					emit(g, c, 1, (r - 1) * rb + j, false);
				emit(g, c, 1, r * rb + j, false);
				if (r + 1 < rows)
					emit(g, c, 1, (r + 1) * rb + j, false);
				if (!jacobi && j + LINE < rb)
					emit(g, c, 1, r * rb + j + LINE, false);
				emit(g, c, 2, r * rb + j, true);
			}
}

/*
 * fdtd2d (mid): per time step, ey from hz (rows r, r-1), ex from hz
 * (columns j, j-1: the same row), hz from ex and ey (rows r, r+1); three
 * grids of rows x cols floats, each warp on 32 points of a row.
 */
static void gen_fdtd(struct gen *g, unsigned long long size)
{
	unsigned long long rows = size, rb = size * 4, br = 16, r, j;
	unsigned int c;

	alloc_rows(g, 1, rows, rb, br);		/* ex */
	alloc_rows(g, 2, rows, rb, br);		/* ey */
	alloc_rows(g, 3, rows, rb, br);		/* hz */
	for (c = 0; c < g->n; c++)
		FOR_OWN_ROWS(g, c, rows, br, r)
			for (j = 0; j < rb && !full(g, c); j += LINE, next_warp(g, c)) {
				emit(g, c, 3, r * rb + j, false);
				if (r)
					emit(g, c, 3, (r - 1) * rb + j, false);
				emit(g, c, 2, r * rb + j, true);
				emit(g, c, 1, r * rb + j, true);
				if (r + 1 < rows) {
					emit(g, c, 1, (r + 1) * rb + j, false);
					emit(g, c, 2, (r + 1) * rb + j, false);
				}
				emit(g, c, 3, r * rb + j, true);
			}
}

/*
 * Column walks: one thread per row i, a loop over j, so at each j a warp
 * touches 32 rows, 32 pages when a row is a page or more. atax's first
 * kernel (tmp = A x) and gesummv (A and B at once) walk like this; atax's
 * second (y = A' tmp, one thread per column) streams rows instead.
 */
static void walk_columns(struct gen *g, unsigned int c, unsigned int id,
			 unsigned long long rows, unsigned long long rb,
			 unsigned long long br, unsigned int id2)
{
	unsigned long long b, j, t;

	for (b = c; b * br < rows && !full(g, c); b += g->n)
		for (t = b * br; t < (b + 1) * br && t < rows && !full(g, c);
		     t += WARP, next_warp(g, c))
			for (j = 0; j < rb && !full(g, c); j += 4)
				for (unsigned long long i = t;
				     i < t + WARP && i < rows; i++) {
					emit(g, c, id, i * rb + j, false);
					if (id2)
						emit(g, c, id2, i * rb + j, false);
				}
}

static void gen_atax(struct gen *g, unsigned long long size)
{
	unsigned long long rows = size, rb = size * 4, br = 64;
	unsigned int c;

	/* The two kernels in turn would need a barrier; we keep the first. */
	alloc_rows(g, 1, rows, rb, br);
	alloc_rr(g, 2, rb);
	for (c = 0; c < g->n; c++)
		walk_columns(g, c, 1, rows, rb, br, 0);
}

static void gen_gesummv(struct gen *g, unsigned long long size)
{
	unsigned long long rows = size, rb = size * 4, br = 64;
	unsigned int c;

	alloc_rows(g, 1, rows, rb, br);
	alloc_rows(g, 2, rows, rb, br);
	for (c = 0; c < g->n; c++)
		walk_columns(g, c, 1, rows, rb, br, 2);
}

/*
 * matrix transpose (high): out[j][i] = in[i][j]; a warp reads 128 bytes
 * of one row of in and writes one element in each of 32 rows of out.
 */
static void gen_transpose(struct gen *g, unsigned long long size)
{
	unsigned long long n = size, rb = n * 4, br = 32, r, j, k;
	unsigned int c;

	alloc_rows(g, 1, n, rb, br);
	alloc_rows(g, 2, n, rb, br);
	for (c = 0; c < g->n; c++)
		FOR_OWN_ROWS(g, c, n, br, r)
			for (j = 0; j < rb && !full(g, c); j += LINE, next_warp(g, c)) {
				emit(g, c, 1, r * rb + j, false);
				for (k = 0; k < WARP; k++)
					emit(g, c, 2, (j / 4 + k) * rb + r * 4, true);
			}
}

/* gups (high): read-modify-write of 8 B at uniform random places. */
static void gen_gups(struct gen *g, unsigned long long size)
{
	unsigned long long bytes = size * size * 4, i, off;
	unsigned int c;

	alloc_rows(g, 1, bytes / PAGE, PAGE, bytes / PAGE / g->n);
	for (c = 0; c < g->n; c++)
		for (i = 0; !full(g, c); i++, next_warp(g, c)) {
			off = rnd(g) % (bytes / 8) * 8;
			emit(g, c, 1, off, false);
			emit(g, c, 1, off, true);
		}
}

/*
 * spmv (high): CSR, one thread per row (SHOC's scalar kernel): a warp
 * streams its rows' values and column ids and gathers x at uniform random
 * columns of a large vector.
 */
static void gen_spmv(struct gen *g, unsigned long long size)
{
	unsigned long long rows = size * 16, nnz = 16, br = 256, r, e;
	unsigned long long xbytes = size * size * 2;
	unsigned int c;

	alloc_rows(g, 1, rows, nnz * 8, br);	/* values and column ids */
	alloc_rr(g, 2, xbytes);			/* x */
	alloc_rows(g, 3, rows, 4, br);		/* y */
	for (c = 0; c < g->n; c++)
		FOR_OWN_ROWS(g, c, rows, br, r) {
			if (r % WARP)
				continue;
			next_warp(g, c);
			for (e = 0; e < nnz; e++) {
				unsigned int k;

				emit(g, c, 1, r * nnz * 8 + e * 8, false);
				for (k = 0; k < WARP; k++)
					emit(g, c, 2, rnd(g) % (xbytes / 4) * 4, false);
			}
			emit(g, c, 3, r * 4, true);
		}
}

struct barre_workload {
	const char *name;
	const char *cls;	/* Table I class */
	double mpki;		/* Table I */
	void (*gen)(struct gen *g, unsigned long long size);
	unsigned long long size;	/* default problem size */
};

static void gen_stencil2d(struct gen *g, unsigned long long s)
{
	gen_stencil(g, s, false);
}

static void gen_jacobi2d(struct gen *g, unsigned long long s)
{
	gen_stencil(g, s, true);
}

static const struct barre_workload workloads[] = {
	{ "gemv", "low", 0.015, gen_gemv, 2048 },
	{ "pagerank", "low", 0.828, gen_pagerank, 2048 },
	{ "jacobi2d", "mid", 4.78, gen_jacobi2d, 2048 },
	{ "fdtd2d", "mid", 10.12, gen_fdtd, 2048 },
	{ "atax", "mid", 34.28, gen_atax, 2048 },
	{ "stencil2d", "mid", 46.90, gen_stencil2d, 2048 },
	{ "transpose", "high", 174.99, gen_transpose, 2048 },
	{ "gups", "high", 724.80, gen_gups, 2048 },
	{ "spmv", "high", 3835.95, gen_spmv, 2048 },
	{ "gesummv", "high", 4762.86, gen_gesummv, 2048 },
};

static void gen_usage(FILE *f)
{
	size_t i;

	fprintf(f,
		"usage: mcmgpu barre gen WORKLOAD [--chiplets N] [--accesses A]\n"
		"                        [--warps K] [--size S] [--seed X] -o FILE\n"
		"       mcmgpu barre gen --list\n\n"
		"Writes a Barre trace modeled on one of the paper's applications\n"
		"(Table I; derivations in docs/barre.md): each\n"
		"chiplet runs the thread blocks placed on it, A accesses each\n"
		"(default 4096), one per page a warp instruction touches, from K\n"
		"warps taking turns (default 64: one per CU of the paper's 64 CUs\n"
		"a chiplet).\n"
		"  --size S   the problem's dimension (default 2048: matrices of\n"
		"             S x S floats)\n\nworkloads:");
	for (i = 0; i < ARRAY_SIZE(workloads); i++)
		fprintf(f, " %s", workloads[i].name);
	fprintf(f, "\n");
}

int barre_cmd_gen(int argc, char **argv)
{
	struct common_opts co = COMMON_OPTS(gen_usage, MCMGPU_MIN_CHIPLETS);
	unsigned long long accesses = 4096, size = 0, seed = 1;
	unsigned int warps = 64, *next;
	size_t nb, *at;
	bool more;
	const struct barre_workload *w = NULL;
	const char *name = NULL, *path = NULL;
	struct gen g = { 0 };
	enum { O_LIST = 256, O_ACCESSES, O_WARPS, O_SIZE, O_SEED };
	static const struct option opts[] = {
		{ "list", no_argument, NULL, O_LIST },
		{ "accesses", required_argument, NULL, O_ACCESSES },
		{ "warps", required_argument, NULL, O_WARPS },
		{ "size", required_argument, NULL, O_SIZE },
		{ "seed", required_argument, NULL, O_SEED },
		OPTION_CHIPLETS, OPTION_HELP, { }
	};
	unsigned int c;
	size_t k;
	int o;

	while ((o = common_parse(&co, argc, argv, "o:h", opts, NULL)) != -1) {
		switch (o) {
		case O_LIST:
			for (k = 0; k < ARRAY_SIZE(workloads); k++)
				printf("%s %s %g\n", workloads[k].name,
				       workloads[k].cls, workloads[k].mpki);
			return 0;
		case 'o':
			path = optarg;
			break;
		case O_ACCESSES:
			accesses = parse_arg_range(optarg, "--accesses", 1, 1ULL << 24);
			break;
		case O_WARPS:
			warps = parse_arg_range(optarg, "--warps", 1, 1024);
			break;
		case O_SIZE:
			size = parse_arg_range(optarg, "--size", 64, 16384);
			break;
		case O_SEED:
			seed = parse_arg(optarg, "--seed");
			break;
		}
	}
	if (optind + 1 < argc)
		die_usage("barre gen: unexpected argument '%s'", argv[optind + 1]);
	if (optind == argc)
		die_usage("barre gen: which WORKLOAD? (--list)");
	name = argv[optind];
	for (k = 0; k < ARRAY_SIZE(workloads); k++)
		if (!strcmp(workloads[k].name, name))
			w = &workloads[k];
	if (!w)
		die_usage("barre gen: unknown workload '%s' (--list)", name);
	if (!path)
		die_usage("barre gen: -o FILE is required");
	g.f = fopen(path, "w");
	if (!g.f)
		die("%s: %s", path, strerror(errno));
	g.n = co.chiplets;
	g.warps = warps;
	g.budget = accesses;
	g.seed = seed | 1;
	nb = (size_t)g.n * g.warps;
	g.used = calloc(g.n, sizeof(*g.used));
	g.warp = calloc(g.n, sizeof(*g.warp));
	g.wused = calloc(nb, sizeof(*g.wused));
	g.buf = calloc(nb, sizeof(*g.buf));
	g.len = calloc(nb, sizeof(*g.len));
	g.cap = calloc(nb, sizeof(*g.cap));
	at = calloc(nb, sizeof(*at));
	next = calloc(g.n, sizeof(*next));
	if (!g.used || !g.warp || !g.wused || !g.buf || !g.len || !g.cap ||
	    !at || !next)
		die("out of memory");
	fprintf(g.f, "# mcmgpu barre gen %s --chiplets %u --accesses %llu "
		"--warps %u --size %llu --seed %llu (Table I: %s, MPKI %g)\n",
		w->name, g.n, accesses, warps, size ? size : w->size, seed,
		w->cls, w->mpki);
	w->gen(&g, size ? size : w->size);
	/*
	 * A chiplet's warps take turns (one access each, as its CUs issue
	 * side by side); chiplets run concurrently: their streams interleave.
	 */
	memset(g.used, 0, g.n * sizeof(*g.used));
	for (more = true; more;) {
		more = false;
		for (c = 0; c < g.n; c++) {
			unsigned int tries;

			for (tries = 0; tries < g.warps && g.used[c] < g.budget;
			     tries++) {
				size_t k = (size_t)c * g.warps + next[c];
				char *nl;

				next[c] = (next[c] + 1) % g.warps;
				if (at[k] >= g.len[k])
					continue;
				nl = memchr(g.buf[k] + at[k], '\n', g.len[k] - at[k]);
				fwrite(g.buf[k] + at[k], 1, nl - (g.buf[k] + at[k]) + 1, g.f);
				at[k] = nl - g.buf[k] + 1;
				g.used[c]++;
				more = true;
				break;
			}
		}
	}
	for (k = 0; k < nb; k++)
		free(g.buf[k]);
	free(g.buf);
	free(g.len);
	free(g.cap);
	free(g.used);
	free(g.wused);
	free(g.warp);
	free(at);
	free(next);
	if (fclose(g.f))
		die("%s: %s", path, strerror(errno));
	return 0;
}
