// SPDX-License-Identifier: GPL-2.0
/*
 * mcmgpu cxl gen: SR/DS traces modeled on the paper's workloads (Table
 * 10b, Fig 9d's access-pattern classes); derivations in docs/cxl.md.
 * Each kernel runs for real on generated data and its loads pass through
 * a model of the GPU's last-level cache; the trace is what reaches the
 * CXL root complex: the loads that miss and every store (write-through).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cxl_tool.h"
#include "mcmgpu_cxl.h"
#include "opts.h"

#define LLC_SETS	256	/* 256 KiB: 256 sets x 16 ways x 64 B [A] */
#define LLC_WAYS	16
#define MiB		(1ULL << 20)

struct gen {
	FILE *f;
	uint64_t records, budget;
	uint64_t loads, stores;
	double compute_per_line, compute_owed;	/* ns */
	uint64_t llc_tag[LLC_SETS][LLC_WAYS];	/* line + 1; 0 empty */
	uint32_t llc_age[LLC_SETS][LLC_WAYS];
	uint32_t clock;
	uint64_t seed;
};

static uint64_t rnd(struct gen *g)
{
	g->seed ^= g->seed << 13;
	g->seed ^= g->seed >> 7;
	g->seed ^= g->seed << 17;
	return g->seed;
}

static bool full(const struct gen *g)
{
	return g->records >= g->budget;
}

/* The compute the Table's ratio puts beside each line (docs/cxl.md). */
static void compute(struct gen *g)
{
	g->compute_owed += g->compute_per_line;
	if (g->compute_owed >= 1) {
		fprintf(g->f, "c %llu\n", (unsigned long long)g->compute_owed);
		g->records++;
		g->compute_owed -= (uint64_t)g->compute_owed;
	}
}

/* True when the line is in the LLC (and makes it most recent). */
static bool llc(struct gen *g, uint64_t line)
{
	uint32_t set = (line ^ line >> 8) % LLC_SETS, w, victim = 0;

	g->clock++;
	for (w = 0; w < LLC_WAYS; w++) {
		if (g->llc_tag[set][w] == line + 1) {
			g->llc_age[set][w] = g->clock;
			return true;
		}
		if (g->llc_age[set][w] < g->llc_age[set][victim])
			victim = w;
	}
	g->llc_tag[set][victim] = line + 1;
	g->llc_age[set][victim] = g->clock;
	return false;
}

static void ld(struct gen *g, uint64_t addr)
{
	uint64_t line = addr / MCMGPU_CXL_LINE;

	if (full(g) || llc(g, line))
		return;
	fprintf(g->f, "r 0x%llx\n", (unsigned long long)line * MCMGPU_CXL_LINE);
	g->records++;
	g->loads++;
	compute(g);
}

static void st(struct gen *g, uint64_t addr)
{
	uint64_t line = addr / MCMGPU_CXL_LINE;

	if (full(g))
		return;
	llc(g, line);
	fprintf(g->f, "w 0x%llx\n", (unsigned long long)line * MCMGPU_CXL_LINE);
	g->records++;
	g->stores++;
	compute(g);
}

/* ---- Seq: 1-D vectors ---------------------------------------------------- */

static void gen_vadd(struct gen *g, uint64_t n)
{
	uint64_t a = 0, b = 4 * n, c = 8 * n, i;

	for (i = 0; i < n && !full(g); i += 16) {
		ld(g, a + 4 * i);
		ld(g, b + 4 * i);
		st(g, c + 4 * i);
	}
}

static void gen_saxpy(struct gen *g, uint64_t n)
{
	uint64_t x = 0, y = 4 * n, i;

	for (i = 0; i < n && !full(g); i += 16) {
		ld(g, x + 4 * i);
		ld(g, y + 4 * i);
		st(g, y + 4 * i);
	}
}

/* ---- Around: local, not monotonic --------------------------------------- */

/*
 * sort: lookups in a sorted array of n keys by binary search, keys in
 * increasing order with gaps (a thread block's queries), one result
 * written per 64 lookups.
 */
static void gen_sort(struct gen *g, uint64_t n)
{
	uint64_t keys = 0, out = 4 * n, q = 0, key = 0;

	while (!full(g)) {
		uint64_t lo = 0, hi = n;

		key += 1 + rnd(g) % 64;
		if (key >= n)
			key %= n;
		while (hi - lo > 1) {
			uint64_t mid = lo + (hi - lo) / 2;

			ld(g, keys + 4 * mid);
			if (mid <= key)
				lo = mid;
			else
				hi = mid;
		}
		if (++q % 64 == 0)
			st(g, out + 4 * (q / 64 % n));
	}
}

/*
 * gauss: elimination on an n x n matrix with partial pivoting: the pivot
 * search reads column k down the rows, then each row below is updated
 * from the pivot row.
 */
static void gen_gauss(struct gen *g, uint64_t n)
{
	uint64_t row = 4 * n, k, i, j;

	for (k = 0; k + 1 < n && !full(g); k++) {
		for (i = k; i < n; i++)
			ld(g, i * row + 4 * k);
		for (i = k + 1; i < n && !full(g); i++)
			for (j = k; j < n; j += 16) {
				ld(g, k * row + 4 * j);
				ld(g, i * row + 4 * j);
				st(g, i * row + 4 * j);
			}
	}
}

/* ---- Rand: graphs ------------------------------------------------------ */

/* A random graph: n vertices, out-degree 1..2d-1 (mean d), CSR. */
struct graph {
	uint64_t n, m;
	uint64_t *start;
	uint32_t *edge;
};

static void graph_make(struct gen *g, struct graph *gr, uint64_t n, uint32_t d)
{
	uint64_t v, e = 0;

	gr->n = n;
	gr->start = malloc((n + 1) * sizeof(*gr->start));
	gr->edge = malloc(n * 2 * d * sizeof(*gr->edge));
	if (!gr->start || !gr->edge)
		fatal("out of memory");
	for (v = 0; v < n; v++) {
		uint64_t deg = 1 + rnd(g) % (2 * d - 1), k;

		gr->start[v] = e;
		for (k = 0; k < deg; k++)
			gr->edge[e++] = rnd(g) % n;
	}
	gr->start[n] = e;
	gr->m = e;
}

/*
 * Rodinia's bfs: kernel 1 expands every vertex in the mask, writing cost
 * and the updating mask of each unvisited neighbor; kernel 2 turns the
 * updating mask into the next mask. Arrays: mask, updating, visited (1 B),
 * cost (4 B), nodes (8 B: start and degree), edges (4 B).
 */
static void gen_bfs(struct gen *g, uint64_t n)
{
	struct graph gr;
	uint64_t mask, upd, vis, cost, nodes, edges, v, e;
	uint8_t *m, *u, *seen;
	bool more = true;

	graph_make(g, &gr, n, 8);
	mask = 0;
	upd = mask + n;
	vis = upd + n;
	cost = (vis + n + 63) & ~63ULL;
	nodes = cost + 4 * n;
	edges = nodes + 8 * n;
	m = calloc(n, 1);
	u = calloc(n, 1);
	seen = calloc(n, 1);
	if (!m || !u || !seen)
		fatal("out of memory");
	m[0] = seen[0] = 1;
	while (more && !full(g)) {
		more = false;
		for (v = 0; v < n && !full(g); v++) {
			ld(g, mask + v);
			if (!m[v])
				continue;
			m[v] = 0;
			st(g, mask + v);
			ld(g, nodes + 8 * v);
			for (e = gr.start[v]; e < gr.start[v + 1]; e++) {
				uint32_t w = gr.edge[e];

				ld(g, edges + 4 * e);
				ld(g, vis + w);
				if (seen[w])
					continue;
				ld(g, cost + 4 * v);
				st(g, cost + 4 * w);
				st(g, upd + w);
				u[w] = 1;
			}
		}
		for (v = 0; v < n && !full(g); v++) {
			ld(g, upd + v);
			if (!u[v])
				continue;
			m[v] = seen[v] = 1;
			u[v] = 0;
			st(g, mask + v);
			st(g, vis + v);
			st(g, upd + v);
			more = true;
		}
	}
	free(m);
	free(u);
	free(seen);
	free(gr.start);
	free(gr.edge);
}

/*
 * path: shortest paths by rounds of relaxation (Pannotia's sssp): every
 * vertex whose distance changed reads its edges and each neighbor's
 * distance, writing it when the path through this vertex is shorter.
 */
static void gen_path(struct gen *g, uint64_t n)
{
	struct graph gr;
	uint64_t dist, nodes, edges, wt, v, e;
	uint32_t *d, *next;
	bool more = true;

	graph_make(g, &gr, n, 8);
	dist = 0;
	nodes = 4 * n;
	edges = nodes + 8 * n;
	wt = edges + 4 * gr.m;
	d = malloc(n * sizeof(*d));
	next = malloc(n * sizeof(*next));
	if (!d || !next)
		fatal("out of memory");
	for (v = 0; v < n; v++)
		d[v] = UINT32_MAX;
	d[0] = 0;
	while (more && !full(g)) {
		more = false;
		memcpy(next, d, n * sizeof(*d));
		for (v = 0; v < n && !full(g); v++) {
			ld(g, dist + 4 * v);
			if (d[v] == UINT32_MAX)
				continue;
			ld(g, nodes + 8 * v);
			for (e = gr.start[v]; e < gr.start[v + 1]; e++) {
				uint32_t w = gr.edge[e], len = 1 + (e * 2654435761U) % 16;

				ld(g, edges + 4 * e);
				ld(g, wt + 4 * e);
				ld(g, dist + 4 * w);
				if (d[v] + len < next[w]) {
					next[w] = d[v] + len;
					st(g, dist + 4 * w);
					more = true;
				}
			}
		}
		memcpy(d, next, n * sizeof(*d));
	}
	free(d);
	free(next);
	free(gr.start);
	free(gr.edge);
}

static const struct cxl_workload {
	const char *name, *pattern, *cls;
	double compute, load;		/* Table 10b, % */
	uint64_t size;			/* elements, matrix side or vertices */
	void (*gen)(struct gen *g, uint64_t size);
} workloads[] = {
	{ "vadd", "Seq", "load", 15.6, 69.1, 4 * MiB, gen_vadd },
	{ "saxpy", "Seq", "load", 16.2, 69.2, 4 * MiB, gen_saxpy },
	{ "sort", "Around", "compute", 38.1, 98.7, 16 * MiB, gen_sort },
	{ "gauss", "Around", "store", 23.5, 48.5, 2048, gen_gauss },
	{ "path", "Rand", "load", 27.0, 92.7, 4 * MiB, gen_path },
	{ "bfs", "Rand", "store", 29.3, 43.2, 4 * MiB, gen_bfs },
};

static void gen_usage(FILE *f)
{
	size_t i;

	fprintf(f, "usage: mcmgpu cxl gen WORKLOAD [--records R] [--size S]\n"
		"                      [--seed X] -o FILE\n"
		"       mcmgpu cxl gen --list\n\n"
		"Writes an SR/DS trace of one of the paper's workloads: the\n"
		"kernel runs on generated data behind a 256 KiB LLC model and\n"
		"the trace is what reaches the CXL root complex, R records at\n"
		"most (default 1M). Derivations: docs/cxl.md.\n"
		"  --size S   elements (vectors, sorted keys), the matrix side\n"
		"             (gauss) or vertices (graphs)\n\nworkloads:");
	for (i = 0; i < sizeof(workloads) / sizeof(workloads[0]); i++)
		fprintf(f, " %s", workloads[i].name);
	fprintf(f, "\n");
}

int cxl_cmd_gen(int argc, char **argv)
{
	struct common_opts co = COMMON_OPTS(gen_usage, MCMGPU_MIN_CHIPLETS);
	const struct cxl_workload *w = NULL;
	const char *name = NULL, *path = NULL;
	uint64_t size = 0;
	struct gen *g;
	enum { O_LIST = 256, O_RECORDS, O_SIZE, O_SEED };
	static const struct option opts[] = {
		{ "list", no_argument, NULL, O_LIST },
		{ "records", required_argument, NULL, O_RECORDS },
		{ "size", required_argument, NULL, O_SIZE },
		{ "seed", required_argument, NULL, O_SEED },
		OPTION_HELP, { }
	};
	size_t k;
	int c;

	g = calloc(1, sizeof(*g));
	if (!g)
		fatal("out of memory");
	g->budget = 1 << 20;
	g->seed = 1;
	while ((c = common_parse(&co, argc, argv, "o:h", opts, NULL)) != -1) {
		switch (c) {
		case O_LIST:
			for (k = 0; k < sizeof(workloads) / sizeof(workloads[0]); k++)
				printf("%s %s %s %.1f %.1f\n", workloads[k].name,
				       workloads[k].pattern, workloads[k].cls,
				       workloads[k].compute, workloads[k].load);
			free(g);
			return 0;
		case 'o':
			path = optarg;
			break;
		case O_RECORDS:
			g->budget = parse_arg_range(optarg, "--records", 1,
						    MCMGPU_CXL_MAX_RECORDS);
			break;
		case O_SIZE:
			size = parse_arg_range(optarg, "--size", 64, 1ULL << 26);
			break;
		case O_SEED:
			g->seed = parse_arg(optarg, "--seed") | 1;
			break;
		}
	}
	if (optind + 1 < argc)
		die_usage("cxl gen: unexpected argument '%s'", argv[optind + 1]);
	if (optind == argc)
		die_usage("cxl gen: which WORKLOAD? (--list)");
	name = argv[optind];
	for (k = 0; k < sizeof(workloads) / sizeof(workloads[0]); k++)
		if (!strcmp(workloads[k].name, name))
			w = &workloads[k];
	if (!w)
		die_usage("cxl gen: unknown workload '%s' (--list)", name);
	if (!path)
		die_usage("cxl gen: -o FILE is required");
	g->f = fopen(path, "w");
	if (!g->f)
		fatal("%s: %s", path, strerror(errno));
	/* 16 lanes of a line's loads, cr/(1 - cr) compute each, 64 lanes a ns. */
	g->compute_per_line = 16 * (w->compute / (100 - w->compute)) / 64;
	fprintf(g->f, "# mcmgpu cxl gen %s --records %llu --size %llu --seed %llu"
		" (%s; Table 10b: %s-intensive, compute %.1f%%, loads %.1f%%)\n",
		w->name, (unsigned long long)g->budget,
		(unsigned long long)(size ? size : w->size),
		(unsigned long long)g->seed, w->pattern, w->cls, w->compute,
		w->load);
	w->gen(g, size ? size : w->size);
	fprintf(g->f, "# %llu loads, %llu stores: %.1f%% loads\n",
		(unsigned long long)g->loads, (unsigned long long)g->stores,
		100.0 * g->loads / (g->loads + g->stores ? g->loads + g->stores : 1));
	if (fclose(g->f))
		fatal("%s: %s", path, strerror(errno));
	free(g);
	return 0;
}
