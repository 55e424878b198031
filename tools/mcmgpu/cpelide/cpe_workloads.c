// SPDX-License-Identifier: GPL-2.0
/*
 * CPElide workload generators: one launch sequence per workload of the
 * paper's Table II, modeled on the real application's kernels, their
 * arguments (R or R/W), the static in-order work-group partition across
 * chiplets (CPElide §IV-C1) and the application's loop structure.
 *
 * The derivation of every workload (source and input, kernels per
 * iteration and iterations, each argument's object, mode and partition,
 * passes and why, what was scaled down and why) is in WORKLOADS.md next to
 * this file; keep the two in step.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cpe_tool.h"
#include "cli.h"

#define MAXC		MCMGPU_MAX_CHIPLETS
#define MAX_KARGS	8	/* the paper's maximum per kernel (§III-A) */

typedef unsigned long long u64;

struct gen {
	FILE *f;
	unsigned int n;		/* chiplets */
};

/* Bytes [lo, hi) of an object; empty when hi <= lo. */
struct rg {
	u64 lo, hi;
};

static void out(struct gen *g, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(g->f, fmt, ap);
	va_end(ap);
}

static u64 min64(u64 a, u64 b)
{
	return a < b ? a : b;
}

static u64 max64(u64 a, u64 b)
{
	return a > b ? a : b;
}

static u64 sub0(u64 a, u64 b)
{
	return a > b ? a - b : 0;
}

static void alloc(struct gen *g, const char *name, u64 bytes)
{
	out(g, "alloc %s %llu\n", name, (bytes + 3) / 4 * 4);
}

static void host(struct gen *g, const char *op, const char *obj)
{
	out(g, "host_%s %s\n", op, obj);
}

static void host_rg(struct gen *g, const char *op, const char *obj, u64 lo,
		    u64 hi)
{
	out(g, "host_%s %s %llu-%llu\n", op, obj, lo, hi - 1);
}

/*
 * Work-groups [*lo, *hi) of chiplet c when G work-groups are split in
 * index order into chunks of ceil(G/n), as the static kernel-wide
 * partition (and the model's even split) does.
 */
static int chunk(u64 G, unsigned int n, unsigned int c, u64 *lo, u64 *hi)
{
	u64 ch = (G + n - 1) / n;

	*lo = min64(c * ch, G);
	*hi = min64((c + 1) * ch, G);
	return *hi > *lo;
}

/* r[c]: chiplet c's chunk of G work-groups of per bytes from base, up to end. */
static unsigned int wg_rg(struct rg *r, unsigned int n, u64 G, u64 per, u64 base,
			  u64 end)
{
	unsigned int c, mask = 0;
	u64 lo, hi;

	for (c = 0; c < MAXC; c++) {
		r[c].lo = r[c].hi = 0;
		if (c >= n || !chunk(G, n, c, &lo, &hi))
			continue;
		r[c].lo = min64(base + lo * per, end);
		r[c].hi = min64(base + hi * per, end);
		if (r[c].hi > r[c].lo)
			mask |= 1U << c;
	}
	return mask;
}

static void rg_clear(struct rg *r)
{
	memset(r, 0, sizeof(*r) * MAXC);
}

static void rg_all(struct rg *r, unsigned int mask, u64 lo, u64 hi)
{
	unsigned int c;

	for (c = 0; c < MAXC; c++) {
		r[c].lo = mask >> c & 1 ? lo : 0;
		r[c].hi = mask >> c & 1 ? hi : 0;
	}
}

/* dst[c] = src[c] in units of sz bytes; returns dst. */
static struct rg *scale(struct rg *dst, const struct rg *src, u64 sz)
{
	unsigned int c;

	for (c = 0; c < MAXC; c++) {
		dst[c].lo = src[c].lo * sz;
		dst[c].hi = src[c].hi * sz;
	}
	return dst;
}

/* ---- a kernel record, argument by argument -------------------------- */

struct kern {
	struct gen *g;
	char s[16384];
	size_t len;
	unsigned int nargs, mask;
};

static void kput(struct kern *k, const char *fmt, ...)
{
	va_list ap;
	int w;

	va_start(ap, fmt);
	w = vsnprintf(k->s + k->len, sizeof(k->s) - k->len, fmt, ap);
	va_end(ap);
	if (w < 0 || (size_t)w >= sizeof(k->s) - k->len) {
		fprintf(stderr, "cpe_workloads: kernel record too long\n");
		abort();
	}
	k->len += w;
}

static void kbegin(struct kern *k, struct gen *g, const char *name,
		   unsigned int mask, unsigned int passes)
{
	unsigned int all = (1U << g->n) - 1, c;
	int first = 1;

	k->g = g;
	k->len = 0;
	k->nargs = 0;
	k->mask = mask & all;
	kput(k, "kernel %s", name);
	if (k->mask != all) {
		kput(k, " chiplets=");
		for (c = 0; c < g->n; c++) {
			if (k->mask >> c & 1) {
				kput(k, "%s%u", first ? "" : ",", c);
				first = 0;
			}
		}
	}
	if (passes > 1)
		kput(k, " passes=%u", passes);
}

/* One argument: chiplet c of the kernel accesses r[c] (none if empty). */
static void karg(struct kern *k, const char *obj, int rw, const struct rg *r)
{
	unsigned int c;
	int first = 1;

	for (c = 0; c < k->g->n; c++) {
		if (!(k->mask >> c & 1) || r[c].hi <= r[c].lo)
			continue;
		if (r[c].lo % 4 || r[c].hi % 4) {
			fprintf(stderr, "cpe_workloads: %s: %s range not 4-byte "
				"aligned\n", k->s, obj);
			abort();
		}
		if (first)
			kput(k, " %s:%s:", obj, rw ? "rw" : "r");
		kput(k, "%s%u=%llu-%llu", first ? "" : ",", c, r[c].lo, r[c].hi - 1);
		first = 0;
	}
	if (!first)
		k->nargs++;
}

/* The same range on every chiplet of the kernel. */
static void karg_all(struct kern *k, const char *obj, int rw, u64 lo, u64 hi)
{
	struct rg r[MAXC];

	rg_all(r, k->mask, lo, hi);
	karg(k, obj, rw, r);
}

/* Pointer chasing: the range is not known before launch (§III-C). */
static void karg_unknown(struct kern *k, const char *obj, int rw)
{
	kput(k, " %s:%s:unknown", obj, rw ? "rw" : "r");
	k->nargs++;
}

static void kend(struct kern *k)
{
	if (!k->nargs || k->nargs > MAX_KARGS) {
		fprintf(stderr, "cpe_workloads: %s: %u arguments\n", k->s, k->nargs);
		abort();
	}
	out(k->g, "%s\n", k->s);
}

/* ---- small numerics without libm ---------------------------------- */

static double dexp(double x)
{
	double s = 1, term = 1;
	int k = 0, i;

	while (x > 0.5 || x < -0.5) {
		x /= 2;
		k++;
	}
	for (i = 1; i < 20; i++) {
		term *= x / i;
		s += term;
	}
	while (k--)
		s *= s;
	return s;
}

/* Expected distinct lines of L hit by `probes` uniformly random accesses. */
static u64 occ(u64 L, double probes)
{
	double v;
	u64 r;

	if (probes <= 0 || !L)
		return 0;
	v = (double)L * (1 - dexp(-probes / (double)L));
	r = (u64)(v + 0.5);
	return r ? min64(r, L) : 1;
}

/* ---- moderate-to-high inter-kernel reuse ---------------------------- */

/*
 * BabelStream (HIP, TBSIZE 1024, DOT_NUM_BLOCKS 256), 524288 doubles:
 * init, then copy, mul, add, triad and dot per iteration; the host sums
 * the dot kernel's per-block partial sums and finally reads a, b, c.
 */
static void gen_babelstream(FILE *f, unsigned int n)
{
	struct gen gg = { f, n }, *g = &gg;
	const u64 N = 524288, E = 8, TB = 1024, DOTB = 256, B = N * E;
	const unsigned int T = 10;	/* num_times: 100, scaled */
	struct rg r[MAXC], d0[MAXC], d1[MAXC], s[MAXC];
	struct kern k;
	unsigned int m, dm, i;

	alloc(g, "a", B);
	alloc(g, "b", B);
	alloc(g, "c", B);
	alloc(g, "sums", DOTB * E);
	m = wg_rg(r, n, N / TB, TB * E, 0, B);
	/* dot: block w reads elements w*TB + j*DOTB*TB, j = 0, 1 */
	dm = wg_rg(d0, n, DOTB, TB * E, 0, B);
	wg_rg(d1, n, DOTB, TB * E, DOTB * TB * E, B);
	wg_rg(s, n, DOTB, E, 0, DOTB * E);

	kbegin(&k, g, "init", m, 1);
	karg(&k, "a", 1, r);
	karg(&k, "b", 1, r);
	karg(&k, "c", 1, r);
	kend(&k);
	for (i = 0; i < T; i++) {
		kbegin(&k, g, "copy", m, 1);
		karg(&k, "a", 0, r);
		karg(&k, "c", 1, r);
		kend(&k);
		kbegin(&k, g, "mul", m, 1);
		karg(&k, "c", 0, r);
		karg(&k, "b", 1, r);
		kend(&k);
		kbegin(&k, g, "add", m, 1);
		karg(&k, "a", 0, r);
		karg(&k, "b", 0, r);
		karg(&k, "c", 1, r);
		kend(&k);
		kbegin(&k, g, "triad", m, 1);
		karg(&k, "b", 0, r);
		karg(&k, "c", 0, r);
		karg(&k, "a", 1, r);
		kend(&k);
		kbegin(&k, g, "dot", dm, 1);
		karg(&k, "a", 0, d0);
		karg(&k, "a", 0, d1);
		karg(&k, "b", 0, d0);
		karg(&k, "b", 0, d1);
		karg(&k, "sums", 1, s);
		kend(&k);
		host(g, "read", "sums");
	}
	host(g, "read", "a");
	host(g, "read", "b");
	host(g, "read", "c");
}

/* Square (gem5-resources, ITERS 50): C = A*A, 2048 blocks of 256 threads. */
static void gen_square(FILE *f, unsigned int n)
{
	struct gen gg = { f, n }, *g = &gg;
	const u64 N = 524288, B = N * 4;
	struct rg r[MAXC];
	struct kern k;
	unsigned int m, i;

	alloc(g, "A", B);
	alloc(g, "C", B);
	m = wg_rg(r, n, 2048, 256 * 4, 0, B);
	host(g, "write", "A");
	for (i = 0; i < 50; i++) {
		kbegin(&k, g, "vector_square", m, 1);
		karg(&k, "C", 1, r);
		karg(&k, "A", 0, r);
		kend(&k);
	}
	host(g, "read", "C");
}

/*
 * Hotspot (Rodinia, 512 2 20): ceil(20/2) = 10 calculate_temp launches,
 * temp ping-pong; a 43x43 grid of 16x16 tiles that advance 12x12 cells
 * each, so a chiplet reads 2 (pyramid_height) rows beyond its own.
 */
static void gen_hotspot(FILE *f, unsigned int n)
{
	struct gen gg = { f, n }, *g = &gg;
	const u64 R = 512, RB = R * 4, PH = 2, ITERS = 20;
	const u64 SMALL = 16 - 2 * PH, G = (R + SMALL - 1) / SMALL;
	struct rg own[MAXC], halo[MAXC];
	struct kern k;
	unsigned int c, m = 0, i;
	const char *tmp[2] = { "temp0", "temp1" };
	u64 lo, hi, t;

	rg_clear(own);
	rg_clear(halo);
	for (c = 0; c < n; c++) {
		if (!chunk(G, n, c, &lo, &hi))
			continue;
		m |= 1U << c;
		own[c].lo = lo * SMALL * RB;
		own[c].hi = min64(hi * SMALL, R) * RB;
		halo[c].lo = sub0(lo * SMALL, PH) * RB;
		halo[c].hi = min64(hi * SMALL + PH, R) * RB;
	}
	alloc(g, "power", R * RB);
	alloc(g, "temp0", R * RB);
	alloc(g, "temp1", R * RB);
	host(g, "write", "power");
	host(g, "write", "temp0");
	for (t = 0, i = 0; t < ITERS; t += PH, i++) {
		/* passes: (16/12)^2 reads of power and temp per cell, 1 write */
		kbegin(&k, g, "calculate_temp", m, 2);
		karg(&k, "power", 0, halo);
		karg(&k, tmp[i % 2], 0, halo);
		karg(&k, tmp[(i + 1) % 2], 1, own);
		kend(&k);
	}
	host(g, "read", tmp[i % 2]);
}

/*
 * Hotspot3D (Rodinia, 512 8 20): 20 hotspotOpt1 launches, tIn/tOut
 * swapped; 64x4-thread blocks each walk all 8 layers of a 64x4 column.
 * Modeled y-major (y, then z, then x) so a chiplet's rows of every layer
 * are one range; the lines are the same, only their order differs.
 */
static void gen_hotspot3d(FILE *f, unsigned int n)
{
	struct gen gg = { f, n }, *g = &gg;
	const u64 NX = 512, NY = 512, NZ = 8, YB = NX * NZ * 4, G = NY / 4;
	struct rg own[MAXC], halo[MAXC];
	struct kern k;
	unsigned int c, m = 0, i;
	const char *t[2] = { "tIn", "tOut" };
	u64 lo, hi;

	rg_clear(own);
	rg_clear(halo);
	for (c = 0; c < n; c++) {
		if (!chunk(G, n, c, &lo, &hi))
			continue;
		m |= 1U << c;
		own[c].lo = lo * 4 * YB;
		own[c].hi = hi * 4 * YB;
		halo[c].lo = sub0(lo * 4, 1) * YB;
		halo[c].hi = min64(hi * 4 + 1, NY) * YB;
	}
	alloc(g, "p", NY * YB);
	alloc(g, "tIn", NY * YB);
	alloc(g, "tOut", NY * YB);
	host(g, "write", "p");
	host(g, "write", "tIn");
	for (i = 0; i < 20; i++) {
		kbegin(&k, g, "hotspotOpt1", m, 1);
		karg(&k, "p", 0, own);
		karg(&k, t[i % 2], 0, halo);
		karg(&k, t[(i + 1) % 2], 1, own);
		kend(&k);
	}
	host(g, "read", t[i % 2]);
}

/*
 * LUD (Rodinia CUDA, BLOCK_SIZE 16, 512.dat): per 16-column step a
 * one-block lud_diagonal, lud_perimeter (one block per perimeter tile
 * pair) and lud_internal (one block per trailing tile, split by tile rows).
 * Modeled with the matrix stored tile by tile (a 16x16 tile is 16 lines
 * in the row-major original too), tile rows in order.
 */
#define LUD_NB		32
#define LUD_TILE	1024ULL

static u64 lud_tile(u64 r, u64 c)
{
	return (r * LUD_NB + c) * LUD_TILE;
}

static void lud_diagonal(struct gen *g, u64 k)
{
	struct kern kk;

	kbegin(&kk, g, "lud_diagonal", 1, 1);
	karg_all(&kk, "m", 1, lud_tile(k, k), lud_tile(k, k) + LUD_TILE);
	kend(&kk);
}

static void gen_lud(FILE *f, unsigned int n)
{
	struct gen gg = { f, n }, *g = &gg;
	const u64 NB = LUD_NB;
	struct rg row[MAXC], grp[MAXC];
	u64 lo[MAXC], hi[MAXC], k, mt, maxc, j, G, real, decl;
	struct kern kk;
	unsigned int c, m;

	alloc(g, "m", NB * NB * LUD_TILE);
	host(g, "write", "m");
	for (k = 0; k + 1 < NB; k++) {
		lud_diagonal(g, k);

		/* lud_perimeter: block b owns tiles (k, k+1+b) and (k+1+b, k) */
		mt = NB - 1 - k;
		m = 0;
		maxc = 0;
		rg_clear(row);
		for (c = 0; c < n; c++) {
			lo[c] = hi[c] = 0;
			if (!chunk(mt, n, c, &lo[c], &hi[c]))
				continue;
			m |= 1U << c;
			maxc = max64(maxc, hi[c] - lo[c]);
			row[c].lo = lud_tile(k, k + 1 + lo[c]);
			row[c].hi = lud_tile(k, k + hi[c]) + LUD_TILE;
		}
		kbegin(&kk, g, "lud_perimeter", m, 1);
		karg_all(&kk, "m", 0, lud_tile(k, k), lud_tile(k, k) + LUD_TILE);
		karg(&kk, "m", 1, row);
		/* column tiles: up to 6 arguments, each the hull of a run */
		G = min64(6, maxc);
		for (j = 0; j < G; j++) {
			rg_clear(grp);
			for (c = 0; c < n; c++) {
				u64 cnt = hi[c] - lo[c];
				u64 s = lo[c] + j * cnt / G, e = lo[c] + (j + 1) * cnt / G;

				if (e <= s)
					continue;
				grp[c].lo = lud_tile(k + 1 + s, k);
				grp[c].hi = lud_tile(k + e, k) + LUD_TILE;
			}
			karg(&kk, "m", 1, grp);
		}
		kend(&kk);

		/* lud_internal: an mt x mt grid, chunks of whole tile rows */
		m = 0;
		maxc = 0;
		real = decl = 0;
		for (c = 0; c < n; c++) {
			lo[c] = hi[c] = 0;
			if (!chunk(mt, n, c, &lo[c], &hi[c]))
				continue;
			m |= 1U << c;
			maxc = max64(maxc, hi[c] - lo[c]);
			/* each block loads tiles (i,k), (k,j) and (i,j) */
			real += 3 * (hi[c] - lo[c]) * mt;
			decl += mt;
		}
		G = min64(7, maxc);
		for (j = 0; j < G; j++) {
			for (c = 0; c < n; c++) {
				u64 cnt = hi[c] - lo[c];
				u64 s = lo[c] + j * cnt / G, e = lo[c] + (j + 1) * cnt / G;

				if (e > s)
					decl += (lud_tile(k + e, NB - 1) + LUD_TILE -
						 lud_tile(k + 1 + s, k)) / LUD_TILE;
			}
		}
		kbegin(&kk, g, "lud_internal", m, (unsigned int)max64(1, (real + decl / 2) / decl));
		karg_all(&kk, "m", 0, lud_tile(k, k + 1), lud_tile(k, NB - 1) + LUD_TILE);
		for (j = 0; j < G; j++) {
			rg_clear(grp);
			for (c = 0; c < n; c++) {
				u64 cnt = hi[c] - lo[c];
				u64 s = lo[c] + j * cnt / G, e = lo[c] + (j + 1) * cnt / G;

				if (e <= s)
					continue;
				grp[c].lo = lud_tile(k + 1 + s, k);
				grp[c].hi = lud_tile(k + e, NB - 1) + LUD_TILE;
			}
			karg(&kk, "m", 1, grp);
		}
		kend(&kk);
	}
	lud_diagonal(g, NB - 1);
	host(g, "read", "m");
}

/*
 * DeepBench RNN forward (MIOpen RNNForwardTraining, one layer), warm-up
 * plus timed repeats: one input GEMM for all timesteps, then per timestep
 * a recurrent GEMM accumulating into that timestep's gates and the
 * elementwise gate/state update. GEMMs are split by 64-unit gate tiles,
 * the elementwise kernel by 256-element blocks of the batch x hidden state.
 * The gate buffer is modeled [t][gate unit][batch] so a GEMM tile's rows
 * are one range.
 */
static void rnn(struct gen *g, unsigned int gates, u64 H, u64 B, unsigned int T,
		int lstm)
{
	const unsigned int REPS = 1 + 20;	/* warm-up + timed (DeepBench: 100) */
	const u64 Gu = gates * H, WROW = H * 4, GT = Gu * B * 4, HB = B * H * 4;
	struct rg rw[MAXC], gt[MAXC], ge[MAXC], tmp[MAXC];
	unsigned int gm, em, rep, t, c;
	struct kern k;

	alloc(g, "W", Gu * WROW);
	alloc(g, "R", Gu * WROW);
	alloc(g, "x", T * HB);
	alloc(g, "hx", HB);
	alloc(g, "y", T * HB);
	alloc(g, "gates", T * GT);
	if (lstm) {
		alloc(g, "cx", HB);
		alloc(g, "cs", T * HB);
	}
	host(g, "write", "W");
	host(g, "write", "R");
	host(g, "write", "x");
	host(g, "write", "hx");
	if (lstm)
		host(g, "write", "cx");
	gm = wg_rg(rw, g->n, Gu / 64, 64 * WROW, 0, Gu * WROW);
	wg_rg(gt, g->n, Gu / 64, 64 * B * 4, 0, GT);
	em = wg_rg(ge, g->n, (B * H + 255) / 256, 256 * 4, 0, HB);
	for (rep = 0; rep < REPS; rep++) {
		kbegin(&k, g, "gemm_x", gm, 1);
		karg(&k, "W", 0, rw);
		karg_all(&k, "x", 0, 0, T * HB);
		for (t = 0; t < T; t++) {
			for (c = 0; c < MAXC; c++) {
				tmp[c].lo = gt[c].lo + t * GT;
				tmp[c].hi = gt[c].hi + t * GT;
			}
			karg(&k, "gates", 1, tmp);
		}
		kend(&k);
		for (t = 0; t < T; t++) {
			kbegin(&k, g, "gemm_h", gm, 1);
			karg(&k, "R", 0, rw);
			if (t)
				karg_all(&k, "y", 0, (t - 1) * HB, t * HB);
			else
				karg_all(&k, "hx", 0, 0, HB);
			for (c = 0; c < MAXC; c++) {
				tmp[c].lo = gt[c].lo + t * GT;
				tmp[c].hi = gt[c].hi + t * GT;
			}
			karg(&k, "gates", 1, tmp);
			kend(&k);

			kbegin(&k, g, lstm ? "lstm_elementwise" : "gru_elementwise", em, 1);
			karg_all(&k, "gates", 0, t * GT, (t + 1) * GT);
			for (c = 0; c < MAXC; c++) {
				tmp[c].lo = ge[c].lo + (t ? (t - 1) * HB : 0);
				tmp[c].hi = ge[c].hi + (t ? (t - 1) * HB : 0);
			}
			karg(&k, t ? "y" : "hx", 0, tmp);
			if (lstm)
				karg(&k, t ? "cs" : "cx", 0, tmp);
			for (c = 0; c < MAXC; c++) {
				tmp[c].lo = ge[c].lo + t * HB;
				tmp[c].hi = ge[c].hi + t * HB;
			}
			if (lstm)
				karg(&k, "cs", 1, tmp);
			karg(&k, "y", 1, tmp);
			kend(&k);
		}
	}
	host(g, "read", "y");
	if (lstm)
		host(g, "read", "cs");
}

static void gen_rnn_gru_small(FILE *f, unsigned int n)
{
	struct gen gg = { f, n };

	rnn(&gg, 3, 256, 4, 2, 0);
}

static void gen_rnn_gru_large(FILE *f, unsigned int n)
{
	struct gen gg = { f, n };

	rnn(&gg, 3, 512, 16, 4, 0);
}

static void gen_rnn_lstm_small(FILE *f, unsigned int n)
{
	struct gen gg = { f, n };

	rnn(&gg, 4, 256, 4, 2, 1);
}

static void gen_rnn_lstm_large(FILE *f, unsigned int n)
{
	struct gen gg = { f, n };

	rnn(&gg, 4, 512, 16, 4, 1);
}

/*
 * Cursor placement of a run of len bytes inside [slo, shi): consecutive
 * runs (nodes expanded at successive BFS levels are distinct), wrapping.
 */
static struct rg place(u64 *cur, u64 slo, u64 shi, u64 len)
{
	struct rg r;

	len = min64(len, shi - slo);
	if (*cur < slo || *cur + len > shi)
		*cur = slo;
	r.lo = *cur;
	r.hi = *cur + len;
	*cur += len;
	return r;
}

/*
 * BFS (Rodinia, graph128k: 131072 nodes, average degree 6 as Rodinia's
 * generator makes them). Per level Kernel (expand the frontier) and
 * Kernel2 (commit the next frontier, set over), 512-thread blocks; the
 * host clears and reads `over` around each level. Levels and frontier
 * sizes follow the random-graph recurrence F' = (N - V)(1 - e^(-dF/N)).
 */
static void gen_bfs(FILE *f, unsigned int n)
{
	struct gen gg = { f, n }, *g = &gg;
	const u64 N = 131072, D = 6, G = N / 512, LINE = 64;
	struct rg nod[MAXC], edg[MAXC], flag[MAXC], cost[MAXC], ov[MAXC];
	u64 curn[MAXC], cure[MAXC], lo, hi;
	double fr[64], F = 1, V = 1, next;
	unsigned int L = 0, l, c, m = 0;
	struct kern k;

	while (F >= 0.5 && L < 64) {
		fr[L++] = F;
		next = ((double)N - V) * (1 - dexp(-(double)D * F / (double)N));
		V += next;
		F = next;
	}
	alloc(g, "nodes", N * 8);
	alloc(g, "edges", N * D * 4);
	alloc(g, "mask", N);
	alloc(g, "updating", N);
	alloc(g, "visited", N);
	alloc(g, "cost", N * 4);
	alloc(g, "over", 4);
	rg_clear(flag);
	rg_clear(cost);
	for (c = 0; c < MAXC; c++) {
		curn[c] = cure[c] = 0;
		if (c >= n || !chunk(G, n, c, &lo, &hi))
			continue;
		m |= 1U << c;
		flag[c].lo = lo * 512;
		flag[c].hi = hi * 512;
		cost[c].lo = lo * 512 * 4;
		cost[c].hi = hi * 512 * 4;
	}
	rg_all(ov, 1, 0, 4);
	host(g, "write", "nodes");
	host(g, "write", "edges");
	host(g, "write", "mask");
	host(g, "write", "updating");
	host(g, "write", "visited");
	host(g, "write", "cost");
	for (l = 0; l < L; l++) {
		rg_clear(nod);
		rg_clear(edg);
		for (c = 0; c < n; c++) {
			double kc;
			u64 a, b, ln, le;

			if (!(m >> c & 1))
				continue;
			/* frontier nodes this chiplet expands */
			kc = fr[l] >= n ? fr[l] / n : (c < (unsigned int)(fr[l] + 0.999) ? 1 : 0);
			if (kc <= 0)
				continue;
			a = flag[c].lo;
			b = flag[c].hi;
			ln = occ((b - a) * 8 / LINE, kc) * LINE;
			le = occ((b - a) * D * 4 / LINE, kc * (1 + (D * 4 - 4) / 64.0)) * LINE;
			nod[c] = place(&curn[c], a * 8, b * 8, ln);
			edg[c] = place(&cure[c], a * D * 4, b * D * 4, le);
		}
		host(g, "write", "over");
		kbegin(&k, g, "Kernel", m, 1);
		karg(&k, "nodes", 0, nod);
		karg(&k, "edges", 0, edg);
		karg(&k, "mask", 1, flag);
		karg(&k, "updating", 1, flag);
		karg_all(&k, "visited", 0, 0, N);
		karg(&k, "cost", 1, cost);
		kend(&k);
		kbegin(&k, g, "Kernel2", m, 1);
		karg(&k, "mask", 1, flag);
		karg(&k, "updating", 1, flag);
		karg(&k, "visited", 1, flag);
		if (l + 1 < L)
			karg(&k, "over", 1, ov);
		kend(&k);
		host(g, "read", "over");
	}
	host(g, "read", "cost");
}

/*
 * AK.gr: the paper gives no size; taken as DIMACS-10 ak2010 (Alaska,
 * 45292 vertices, 108549 undirected edges stored both ways).
 */
#define AK_N	45292ULL
#define AK_E	217098ULL

/* Chiplet c's vertices [a, b) for blocks of bs threads; edges pro rata. */
static unsigned int graph_rg(unsigned int n, u64 bs, u64 *va, u64 *vb)
{
	unsigned int c, m = 0;
	u64 lo, hi;

	for (c = 0; c < MAXC; c++) {
		va[c] = vb[c] = 0;
		if (c >= n || !chunk((AK_N + bs - 1) / bs, n, c, &lo, &hi))
			continue;
		va[c] = lo * bs;
		vb[c] = min64(hi * bs, AK_N);
		m |= 1U << c;
	}
	return m;
}

/*
 * SSSP (Pannotia sssp_csr): vector_init, then per Bellman-Ford round
 * vector_assign, spmv_min_dot_plus_kernel, vector_diff, with the host
 * writing and reading `stop`; 64-thread blocks.
 */
static void gen_sssp(FILE *f, unsigned int n)
{
	struct gen gg = { f, n }, *g = &gg;
	const unsigned int ROUNDS = (510 - 1) / 3;	/* the paper's 510-kernel maximum */
	struct rg v[MAXC], row[MAXC], edg[MAXC], st[MAXC];
	u64 va[MAXC], vb[MAXC];
	unsigned int m, c, r;
	struct kern k;

	m = graph_rg(n, 64, va, vb);
	rg_clear(v);
	rg_clear(row);
	rg_clear(edg);
	for (c = 0; c < n; c++) {
		if (!(m >> c & 1))
			continue;
		v[c].lo = va[c] * 4;
		v[c].hi = vb[c] * 4;
		row[c].lo = va[c] * 4;
		row[c].hi = (vb[c] + 1) * 4;
		edg[c].lo = va[c] * AK_E / AK_N * 4;
		edg[c].hi = vb[c] * AK_E / AK_N * 4;
	}
	rg_all(st, 1, 0, 4);
	alloc(g, "row", (AK_N + 1) * 4);
	alloc(g, "col", AK_E * 4);
	alloc(g, "data", AK_E * 4);
	alloc(g, "stop", 4);
	alloc(g, "vector1", AK_N * 4);
	alloc(g, "vector2", AK_N * 4);
	host(g, "write", "row");
	host(g, "write", "col");
	host(g, "write", "data");
	kbegin(&k, g, "vector_init", m, 1);
	karg(&k, "vector1", 1, v);
	karg(&k, "vector2", 1, v);
	kend(&k);
	for (r = 0; r < ROUNDS; r++) {
		host(g, "write", "stop");
		kbegin(&k, g, "vector_assign", m, 1);
		karg(&k, "vector1", 1, v);
		karg(&k, "vector2", 0, v);
		kend(&k);
		kbegin(&k, g, "spmv_min_dot_plus", m, 1);
		karg(&k, "row", 0, row);
		karg(&k, "col", 0, edg);
		karg(&k, "data", 0, edg);
		karg_all(&k, "vector1", 0, 0, AK_N * 4);
		karg(&k, "vector2", 1, v);
		kend(&k);
		kbegin(&k, g, "vector_diff", m, 1);
		karg(&k, "vector1", 0, v);
		karg(&k, "vector2", 0, v);
		karg(&k, "stop", 1, st);
		kend(&k);
		host(g, "read", "stop");
	}
	host(g, "read", "vector1");
}

/*
 * Color-max (Pannotia coloring_max): per round color1 (uncolored vertices
 * find the largest uncolored neighbour value) and color2 (local maxima take
 * the round's color), 256-thread blocks, `stop` written and read by the
 * host. Uncolored fraction per round from a simulation of the algorithm
 * on a random geometric graph of AK's size and degree (WORKLOADS.md).
 */
static void gen_color(FILE *f, unsigned int n)
{
	struct gen gg = { f, n }, *g = &gg;
	static const double unc[] = { 1.000, 0.790, 0.611, 0.455, 0.320, 0.210,
		0.127, 0.070, 0.036, 0.017, 0.007, 0.003, 0.001, 0.0003, 0.0001,
		0.00005, 0 };
	struct rg own[MAXC], rsub[MAXC], esub[MAXC], st[MAXC];
	u64 va[MAXC], vb[MAXC];
	unsigned int m, c, r;
	struct kern k;

	m = graph_rg(n, 256, va, vb);
	rg_clear(own);
	for (c = 0; c < n; c++) {
		own[c].lo = va[c] * 4;
		own[c].hi = vb[c] * 4;
	}
	rg_all(st, 1, 0, 4);
	alloc(g, "row", AK_N * 4);
	alloc(g, "col", AK_E * 4);
	alloc(g, "stop", 4);
	alloc(g, "color", AK_N * 4);
	alloc(g, "node_value", AK_N * 4);
	alloc(g, "max", AK_N * 4);
	host(g, "write", "color");
	host(g, "write", "max");
	host(g, "write", "row");
	host(g, "write", "col");
	host(g, "write", "node_value");
	for (r = 0; r < ARRAY_SIZE(unc); r++) {
		rg_clear(rsub);
		rg_clear(esub);
		for (c = 0; c < n; c++) {
			u64 nv = vb[c] - va[c], e0 = va[c] * AK_E / AK_N * 4;
			u64 e1 = vb[c] * AK_E / AK_N * 4;
			double probes = unc[r] * (double)nv;

			if (!(m >> c & 1) || probes <= 0)
				continue;
			/* the still-uncolored vertices, a shrinking nested set */
			rsub[c].lo = own[c].lo;
			rsub[c].hi = min64(own[c].lo + occ(nv * 4 / 64 + 1, probes) * 64,
					   own[c].hi);
			esub[c].lo = e0;
			esub[c].hi = min64(e0 + occ((e1 - e0) / 64 + 1,
						    probes * (1 + (AK_E * 4 / AK_N - 4) / 64.0)) * 64, e1);
		}
		host(g, "write", "stop");
		kbegin(&k, g, "color1", m, 1);
		if (unc[r] > 0) {
			karg(&k, "row", 0, rsub);
			karg(&k, "col", 0, esub);
			karg_all(&k, "node_value", 0, 0, AK_N * 4);
			karg_all(&k, "color", 0, 0, AK_N * 4);
			karg(&k, "max", 1, rsub);
			karg(&k, "stop", 1, st);
		} else {
			karg(&k, "color", 0, own);
		}
		kend(&k);
		kbegin(&k, g, "color2", m, 1);
		if (unc[r] > 0) {
			karg(&k, "node_value", 0, rsub);
			karg(&k, "color", 1, own);
			karg(&k, "max", 0, rsub);
		} else {
			karg(&k, "color", 0, own);
		}
		kend(&k);
		host(g, "read", "stop");
	}
	host(g, "read", "color");
}

/*
 * Floyd-Warshall (Pannotia, 512_65536.gr, gem5 build: k < MAX_ITERS 192):
 * one 32x32-block launch per k. Thread x is the row, so in index order a
 * chiplet gets a band of columns; dist and next are modeled transposed
 * so the band is one range. Nothing writes column k in iteration k.
 */
static void gen_fw(FILE *f, unsigned int n)
{
	struct gen gg = { f, n }, *g = &gg;
	const u64 DIM = 512, COL = DIM * 4, G = DIM / 16;
	struct rg band[MAXC], a[MAXC], b[MAXC];
	unsigned int m, c;
	struct kern kk;
	u64 k;

	m = wg_rg(band, n, G, 16 * COL, 0, DIM * COL);
	alloc(g, "dist", DIM * COL);
	alloc(g, "next", DIM * COL);
	host(g, "write", "dist");
	for (k = 1; k < 192; k++) {
		for (c = 0; c < MAXC; c++) {
			a[c] = band[c];
			b[c].lo = b[c].hi = 0;
			if (band[c].hi > band[c].lo && band[c].lo <= k * COL &&
			    k * COL < band[c].hi) {
				a[c].hi = k * COL;
				b[c].lo = (k + 1) * COL;
				b[c].hi = band[c].hi;
			}
		}
		kbegin(&kk, g, "floydwarshall", m, 1);
		karg(&kk, "dist", 1, a);
		karg(&kk, "dist", 1, b);
		karg_all(&kk, "dist", 0, k * COL, (k + 1) * COL);
		karg(&kk, "next", 1, band);
		kend(&kk);
	}
	host(g, "read", "dist");
}

/*
 * PENNANT (gem5-resources HIP port, noh.pnt: pie mesh 30x100, 10 cycles):
 * gpuMain1..5 per cycle, 64-wide point/side/zone chunks. The ~60 arrays
 * behind __constant__ pointers are grouped, per entity and per kernel
 * that writes them, into arrays of structs (WORKLOADS.md); a chunk of
 * sides touches the points and zones of its rings plus one ring.
 */
#define PN_NZX	30ULL
#define PN_NZ	3000ULL
#define PN_NP	3101ULL
#define PN_NS	11970ULL

static u64 pn_pts_of_zones(u64 z0, u64 z1, u64 *hi)
{
	*hi = min64(PN_NP, 1 + ((z1 - 1) / PN_NZX + 2) * (PN_NZX + 1));
	return z0 < PN_NZX ? 0 : 1 + (z0 / PN_NZX - 1) * (PN_NZX + 1);
}

static void gen_pennant(FILE *f, unsigned int n)
{
	struct gen gg = { f, n }, *g = &gg;
	/* bytes per point, zone, side of each group */
	const u64 P_STATE = 32, P_OLD = 32, P_HALF = 16, P_ACC = 40, P_MAP = 8;
	const u64 Z_STATE = 56, Z_HALF = 96, Z_FULL = 32;
	const u64 S_MAP = 32, S_HALF = 200, S_FULL = 16;
	struct rg p[2][MAXC], s[2][MAXC], z[2][MAXC], sp[MAXC];
	struct rg ps[MAXC], pz[MAXC], ss[MAXC], sz[MAXC], zz[MAXC];
	unsigned int pm = 0, sm = 0, zm = 0, c, cyc;
	u64 lo, hi, a, b;
	struct kern k;

	/* point, side and zone chunks of 64 */
	rg_clear(ps);
	rg_clear(pz);
	rg_clear(ss);
	rg_clear(sz);
	rg_clear(zz);
	rg_clear(sp);
	for (c = 0; c < n; c++) {
		if (chunk((PN_NP + 63) / 64, n, c, &lo, &hi)) {
			u64 j0, j1;

			pm |= 1U << c;
			ps[c].lo = lo * 64;
			ps[c].hi = min64(hi * 64, PN_NP);
			/* sides around these points: the zones of their rings */
			j0 = ps[c].lo ? (ps[c].lo - 1) / (PN_NZX + 1) : 0;
			j1 = (ps[c].hi - 1) ? (ps[c].hi - 2) / (PN_NZX + 1) : 0;
			a = sub0(j0, 1) * PN_NZX;
			b = min64((j1 + 1) * PN_NZX, PN_NZ);
			sp[c].lo = a * PN_NS / PN_NZ;
			sp[c].hi = min64((b * PN_NS + PN_NZ - 1) / PN_NZ, PN_NS);
		}
		if (chunk((PN_NS + 63) / 64, n, c, &lo, &hi)) {
			sm |= 1U << c;
			ss[c].lo = lo * 64;
			ss[c].hi = min64(hi * 64, PN_NS);
			sz[c].lo = ss[c].lo * PN_NZ / PN_NS;
			sz[c].hi = ss[c].hi * PN_NZ / PN_NS;
			pz[c].lo = pn_pts_of_zones(sz[c].lo, sz[c].hi, &pz[c].hi);
		}
		if (chunk((PN_NZ + 63) / 64, n, c, &lo, &hi)) {
			zm |= 1U << c;
			zz[c].lo = lo * 64;
			zz[c].hi = min64(hi * 64, PN_NZ);
		}
	}
	alloc(g, "P_state", PN_NP * P_STATE);
	alloc(g, "P_old", PN_NP * P_OLD);
	alloc(g, "P_half", PN_NP * P_HALF);
	alloc(g, "P_acc", PN_NP * P_ACC);
	alloc(g, "P_map", PN_NP * P_MAP);
	alloc(g, "Z_state", PN_NZ * Z_STATE);
	alloc(g, "Z_half", PN_NZ * Z_HALF);
	alloc(g, "Z_full", PN_NZ * Z_FULL);
	alloc(g, "S_map", PN_NS * S_MAP);
	alloc(g, "S_half", PN_NS * S_HALF);
	alloc(g, "S_full", PN_NS * S_FULL);
	alloc(g, "dt", 8);
	alloc(g, "dtnext", 16);
	alloc(g, "numsbad", 4);
	host(g, "write", "P_state");
	host(g, "write", "P_map");
	host(g, "write", "Z_state");
	host(g, "write", "S_map");
	host(g, "write", "numsbad");
	/* p[0]: own points, p[1]: points of own sides; s[0]: own sides,
	 * s[1]: sides around own points; z[0]: zones of own sides, z[1]: own
	 * zone chunk, all as bytes of each group. */
	for (cyc = 0; cyc < 10; cyc++) {
		host(g, "write", "dt");
		kbegin(&k, g, "gpuMain1", pm, 1);
		scale(p[0], ps, P_STATE);
		karg(&k, "P_state", 0, p[0]);
		scale(p[0], ps, P_OLD);
		karg(&k, "P_old", 1, p[0]);
		scale(p[0], ps, P_HALF);
		karg(&k, "P_half", 1, p[0]);
		karg_all(&k, "dt", 0, 0, 8);
		kend(&k);

		kbegin(&k, g, "gpuMain2", sm, 1);
		scale(s[0], ss, S_MAP);
		karg(&k, "S_map", 0, s[0]);
		scale(p[1], pz, P_HALF);
		karg(&k, "P_half", 0, p[1]);
		scale(p[1], pz, P_STATE);
		karg(&k, "P_state", 0, p[1]);
		scale(z[0], sz, Z_STATE);
		karg(&k, "Z_state", 0, z[0]);
		scale(z[0], sz, Z_HALF);
		karg(&k, "Z_half", 1, z[0]);
		scale(s[0], ss, S_HALF);
		karg(&k, "S_half", 1, s[0]);
		karg_all(&k, "dt", 0, 0, 8);
		kend(&k);
		host(g, "read", "numsbad");

		kbegin(&k, g, "gpuMain3", pm, 1);
		scale(p[0], ps, P_MAP);
		karg(&k, "P_map", 0, p[0]);
		scale(s[1], sp, S_MAP);
		karg(&k, "S_map", 0, s[1]);
		scale(s[1], sp, S_HALF);
		karg(&k, "S_half", 0, s[1]);
		scale(p[0], ps, P_HALF);
		karg(&k, "P_half", 0, p[0]);
		scale(p[0], ps, P_OLD);
		karg(&k, "P_old", 1, p[0]);
		scale(p[0], ps, P_ACC);
		karg(&k, "P_acc", 1, p[0]);
		scale(p[0], ps, P_STATE);
		karg(&k, "P_state", 1, p[0]);
		karg_all(&k, "dt", 0, 0, 8);
		kend(&k);
		host(g, "write", "dtnext");

		kbegin(&k, g, "gpuMain4", sm, 1);
		scale(s[0], ss, S_MAP);
		karg(&k, "S_map", 0, s[0]);
		scale(p[1], pz, P_STATE);
		karg(&k, "P_state", 0, p[1]);
		scale(p[1], pz, P_OLD);
		karg(&k, "P_old", 0, p[1]);
		scale(p[1], pz, P_HALF);
		karg(&k, "P_half", 0, p[1]);
		scale(s[0], ss, S_HALF);
		karg(&k, "S_half", 0, s[0]);
		scale(s[0], ss, S_FULL);
		karg(&k, "S_full", 1, s[0]);
		scale(z[0], sz, Z_FULL);
		karg(&k, "Z_full", 1, z[0]);
		scale(z[0], sz, Z_STATE);
		karg(&k, "Z_state", 1, z[0]);
		kend(&k);

		kbegin(&k, g, "gpuMain5", zm, 1);
		scale(z[1], zz, Z_STATE);
		karg(&k, "Z_state", 1, z[1]);
		scale(z[1], zz, Z_HALF);
		karg(&k, "Z_half", 0, z[1]);
		scale(z[1], zz, Z_FULL);
		karg(&k, "Z_full", 0, z[1]);
		{
			struct rg d[MAXC];

			rg_all(d, 1, 0, 16);	/* atomicMin: one chiplet */
			karg(&k, "dtnext", 1, d);
		}
		karg_all(&k, "dt", 0, 0, 8);
		kend(&k);
		host(g, "read", "numsbad");
		host(g, "read", "dtnext");
	}
	host(g, "read", "P_state");
	host(g, "read", "Z_state");
}

/*
 * LULESH 1.0 (gem5-resources HIP port, "1.0e-2 10": 10 iterations) on a
 * 30^3 mesh (45^3 needs ~70 MB here, over the model's 64 MiB; 30^3 keeps
 * the sequence near 11 M line accesses): per iteration the
 * nodal phase (stress and hourglass forces per element, gathered to nodes,
 * acceleration, boundary conditions, velocity, position) and the element
 * phase (kinematics, Q gradients and regions, EOS, volumes, the two time
 * constraint reductions read by the host); 256-thread blocks.
 */
#define LU_E	30ULL

static void lu_xyz(u64 i, u64 w, u64 *x, u64 *y, u64 *z)
{
	*x = i % w;
	*y = i / w % w;
	*z = i / (w * w);
}

static void gen_lulesh(FILE *f, unsigned int n)
{
	struct gen gg = { f, n }, *g = &gg;
	const u64 E = LU_E, EN = E + 1, NE = E * E * E, NN = EN * EN * EN;
	/* bytes per node / element of each group */
	const u64 X = 24, NM = 8, NC = 40;
	const u64 NL = 32, NB = 32, FE = 192, ES = 72, EV = 56, EG = 48;
	const u64 GE = (NE + 255) / 256, GN = (NN + 255) / 256;
	struct rg el[MAXC], nd[MAXC], ndx[MAXC], elx[MAXC], elq[MAXC];
	struct rg t[MAXC], red[MAXC], sym[MAXC];
	unsigned int em, nm, c, it;
	struct kern k;
	u64 i;

	em = wg_rg(el, n, GE, 256, 0, NE);		/* element indices */
	nm = wg_rg(nd, n, GN, 256, 0, NN);		/* node indices */
	wg_rg(red, n, GE, 8, 0, GE * 8);
	wg_rg(sym, n, (EN * EN + 255) / 256, 256 * 12, 0, EN * EN * 12);
	rg_clear(ndx);
	rg_clear(elx);
	rg_clear(elq);
	for (c = 0; c < n; c++) {
		u64 x, y, z, lo = ~0ULL, hi = 0;

		if (em >> c & 1) {
			/* the 8 nodes of each own element */
			lu_xyz(el[c].lo, E, &x, &y, &z);
			ndx[c].lo = x + y * EN + z * EN * EN;
			lu_xyz(el[c].hi - 1, E, &x, &y, &z);
			ndx[c].hi = x + y * EN + z * EN * EN + EN * EN + EN + 2;
			/* elements a plane either side (Q region neighbours) */
			elq[c].lo = sub0(el[c].lo, E * E);
			elq[c].hi = min64(el[c].hi + E * E, NE);
		}
		if (!(nm >> c & 1))
			continue;
		/* the elements around each own node */
		for (i = nd[c].lo; i < nd[c].hi; i++) {
			u64 e0, e1;

			lu_xyz(i, EN, &x, &y, &z);
			e0 = sub0(x, 1) + sub0(y, 1) * E + sub0(z, 1) * E * E;
			e1 = min64(x, E - 1) + min64(y, E - 1) * E + min64(z, E - 1) * E * E;
			lo = min64(lo, e0);
			hi = max64(hi, e1 + 1);
		}
		elx[c].lo = lo;
		elx[c].hi = hi;
	}
	alloc(g, "X", NN * X);
	alloc(g, "XD", NN * X);
	alloc(g, "XDD", NN * X);
	alloc(g, "F", NN * X);
	alloc(g, "NM", NN * NM);
	alloc(g, "NC", NN * NC);
	alloc(g, "symm", EN * EN * 12);
	alloc(g, "NL", NE * NL);
	alloc(g, "NB", NE * NB);
	alloc(g, "FES", NE * FE);
	alloc(g, "FEH", NE * FE);
	alloc(g, "ES", NE * ES);
	alloc(g, "EV", NE * EV);
	alloc(g, "EG", NE * EG);
	alloc(g, "redc", GE * 8);
	alloc(g, "redh", GE * 8);
	host(g, "write", "X");
	host(g, "write", "XD");
	host(g, "write", "NM");
	host(g, "write", "NC");
	host(g, "write", "symm");
	host(g, "write", "NL");
	host(g, "write", "NB");
	host(g, "write", "ES");
	for (it = 0; it < 10; it++) {
		kbegin(&k, g, "IntegrateStressForElems", em, 1);
		karg(&k, "NL", 0, scale(t, el, NL));
		karg(&k, "X", 0, scale(t, ndx, X));
		karg(&k, "ES", 0, scale(t, el, ES));
		karg(&k, "FES", 1, scale(t, el, FE));
		kend(&k);
		kbegin(&k, g, "CalcHourglassControlForElems", em, 1);
		karg(&k, "NL", 0, scale(t, el, NL));
		karg(&k, "X", 0, scale(t, ndx, X));
		karg(&k, "XD", 0, scale(t, ndx, X));
		karg(&k, "ES", 0, scale(t, el, ES));
		karg(&k, "FEH", 1, scale(t, el, FE));
		kend(&k);
		kbegin(&k, g, "AddNodeForcesFromElems", nm, 1);
		karg(&k, "NC", 0, scale(t, nd, NC));
		karg(&k, "FES", 0, scale(t, elx, FE));
		karg(&k, "FEH", 0, scale(t, elx, FE));
		karg(&k, "F", 1, scale(t, nd, X));
		kend(&k);
		kbegin(&k, g, "CalcAccelerationForNodes", nm, 1);
		karg(&k, "F", 0, scale(t, nd, X));
		karg(&k, "NM", 0, scale(t, nd, NM));
		karg(&k, "XDD", 1, scale(t, nd, X));
		kend(&k);
		kbegin(&k, g, "ApplyAccelerationBoundaryConditions", nm, 1);
		karg(&k, "symm", 0, sym);
		karg(&k, "XDD", 1, scale(t, nd, X));
		kend(&k);
		kbegin(&k, g, "CalcVelocityForNodes", nm, 1);
		karg(&k, "XDD", 0, scale(t, nd, X));
		karg(&k, "XD", 1, scale(t, nd, X));
		kend(&k);
		kbegin(&k, g, "CalcPositionForNodes", nm, 1);
		karg(&k, "XD", 0, scale(t, nd, X));
		karg(&k, "X", 1, scale(t, nd, X));
		kend(&k);
		kbegin(&k, g, "CalcKinematicsForElems", em, 1);
		karg(&k, "NL", 0, scale(t, el, NL));
		karg(&k, "X", 0, scale(t, ndx, X));
		karg(&k, "XD", 0, scale(t, ndx, X));
		karg(&k, "ES", 0, scale(t, el, ES));
		karg(&k, "EV", 1, scale(t, el, EV));
		kend(&k);
		kbegin(&k, g, "CalcLagrangeElementsPart2", em, 1);
		karg(&k, "EV", 1, scale(t, el, EV));
		kend(&k);
		kbegin(&k, g, "CalcMonotonicQGradientsForElems", em, 1);
		karg(&k, "NL", 0, scale(t, el, NL));
		karg(&k, "X", 0, scale(t, ndx, X));
		karg(&k, "XD", 0, scale(t, ndx, X));
		karg(&k, "ES", 0, scale(t, el, ES));
		karg(&k, "EV", 0, scale(t, el, EV));
		karg(&k, "EG", 1, scale(t, el, EG));
		kend(&k);
		kbegin(&k, g, "CalcMonotonicQRegionForElems", em, 1);
		karg(&k, "NB", 0, scale(t, el, NB));
		karg(&k, "EG", 0, scale(t, elq, EG));
		karg(&k, "EV", 0, scale(t, el, EV));
		karg(&k, "ES", 1, scale(t, el, ES));
		kend(&k);
		kbegin(&k, g, "EvalEOSForElems", em, 1);
		karg(&k, "EV", 0, scale(t, el, EV));
		karg(&k, "ES", 1, scale(t, el, ES));
		kend(&k);
		kbegin(&k, g, "UpdateVolumesForElems", em, 1);
		karg(&k, "EV", 0, scale(t, el, EV));
		karg(&k, "ES", 1, scale(t, el, ES));
		kend(&k);
		kbegin(&k, g, "CalcCourantConstraintForElems", em, 1);
		karg(&k, "ES", 0, scale(t, el, ES));
		karg(&k, "EV", 0, scale(t, el, EV));
		karg(&k, "redc", 1, red);
		kend(&k);
		host(g, "read", "redc");
		kbegin(&k, g, "CalcHydroConstraintForElems", em, 1);
		karg(&k, "EV", 0, scale(t, el, EV));
		karg(&k, "redh", 1, red);
		kend(&k);
		host(g, "read", "redh");
	}
	host(g, "read", "X");
	host(g, "read", "ES");
}

/*
 * Backprop (Rodinia, 65536 inputs, 16 hidden): one training step is
 * bpnn_layerforward_CUDA and bpnn_adjust_weights_cuda over 4096 blocks of
 * 16x16 (16 input rows each); the host reads the partial sums in between
 * and uploads the deltas, previous weights and the weights again.
 */
static void gen_backprop(FILE *f, unsigned int n)
{
	struct gen gg = { f, n }, *g = &gg;
	const u64 IN = 65536, HID = 16, ROW = (HID + 1) * 4, G = IN / 16;
	const u64 WB = (IN + 1) * ROW;
	struct rg in[MAXC], w[MAXC], ps[MAXC];
	unsigned int m, c;
	struct kern k;

	m = wg_rg(in, n, G, 16 * 4, 4, (IN + 1) * 4);	/* input_units[1 + 16by + ty] */
	wg_rg(w, n, G, 16 * ROW, ROW, WB);
	wg_rg(ps, n, G, HID * 4, 0, G * HID * 4);
	for (c = 0; c < n; c++) {
		if (!(m >> c & 1))
			continue;
		/* the first block also updates the bias row 0 in adjust */
		if (w[c].lo == ROW)
			w[c].lo = 0;
		if (in[c].lo == 4)
			in[c].lo = 0;
	}
	alloc(g, "input", (IN + 1) * 4);
	alloc(g, "weights", WB);
	alloc(g, "partial_sum", G * HID * 4);
	alloc(g, "delta", (HID + 1) * 4);
	alloc(g, "prev_weights", WB);
	host(g, "write", "input");
	host(g, "write", "weights");
	kbegin(&k, g, "bpnn_layerforward", m, 1);
	karg(&k, "input", 0, in);
	karg(&k, "weights", 1, w);
	karg(&k, "partial_sum", 1, ps);
	kend(&k);
	host(g, "read", "partial_sum");
	host(g, "write", "delta");
	host(g, "write", "prev_weights");
	host(g, "write", "weights");
	kbegin(&k, g, "bpnn_adjust_weights", m, 1);
	karg_all(&k, "delta", 0, 0, (HID + 1) * 4);
	karg(&k, "input", 0, in);
	karg(&k, "weights", 1, w);
	karg(&k, "prev_weights", 1, w);
	kend(&k);
	host(g, "read", "input");
	host(g, "read", "weights");
}

/*
 * Gaussian (Rodinia, 256x256): per column t Fan1 (one 512-thread block:
 * the multipliers of column t) and Fan2 (a 64x64 grid of 4x4 blocks;
 * thread x is the row, so in index order a chiplet gets a band of 4-column
 * blocks of the trailing matrix). a and m are modeled column-major so a
 * band is one range.
 */
static void gen_gaussian(FILE *f, unsigned int n)
{
	struct gen gg = { f, n }, *g = &gg;
	const u64 S = 256, COL = S * 4, G = S / 4;
	struct rg a[MAXC], b[MAXC];
	unsigned int m, c;
	struct kern k;
	u64 t, lo, hi;

	alloc(g, "a", S * COL);
	alloc(g, "m", S * COL);
	alloc(g, "b", S * 4);
	host(g, "write", "a");
	host(g, "write", "b");
	host(g, "write", "m");
	for (t = 0; t + 1 < S; t++) {
		kbegin(&k, g, "Fan1", 1, 1);
		karg_all(&k, "m", 1, t * COL + (t + 1) * 4, (t + 1) * COL);
		karg_all(&k, "a", 0, t * COL + t * 4, (t + 1) * COL);
		kend(&k);

		m = 0;
		rg_clear(a);
		rg_clear(b);
		for (c = 0; c < n; c++) {
			u64 c0, c1;

			if (!chunk(G, n, c, &lo, &hi))
				continue;
			c0 = t + 4 * lo;
			c1 = min64(t + 4 * hi, S);
			if (c0 >= c1)
				continue;
			m |= 1U << c;
			/* rows t (read) to S-1 of columns c0..c1-1 */
			a[c].lo = c0 * COL + t * 4;
			a[c].hi = (c1 - 1) * COL + COL;
			if (!lo) {
				b[c].lo = t * 4;
				b[c].hi = S * 4;
			}
		}
		kbegin(&k, g, "Fan2", m, 1);
		karg(&k, "a", 1, a);
		karg_all(&k, "m", 0, t * COL + (t + 1) * 4, (t + 1) * COL);
		karg(&k, "b", 1, b);
		kend(&k);
	}
	host(g, "read", "a");
	host(g, "read", "b");
	host(g, "read", "m");
}

/*
 * HACC (CORAL-2 ForceTreeTest "0.5 0.1 512 0.1 2 N 12 rcb"): 2 trials of
 * a 513-particle sphere, an RCB tree with leaves of at most 12 (64 leaves
 * of 8), one Step10_cuda_kernel per leaf on its interaction list (all 513
 * particles: the 0.1 opening angle opens every node). The host uploads
 * the list and the leaf and reads the leaf's velocities back around each.
 */
static void gen_hacc(FILE *f, unsigned int n)
{
	struct gen gg = { f, n }, *g = &gg;
	const u64 CNT = 8, CNT1 = 513, VMAX = 16384;
	const u64 BX = (CNT1 + 31) / 32, BY = (CNT + 3) / 4;
	struct rg il[MAXC], lf[MAXC], lv[MAXC];
	unsigned int m = 0, c, trial, leaf, writer = MAXC;
	struct kern k;
	u64 lo, hi, w;

	rg_clear(il);
	rg_clear(lf);
	rg_clear(lv);
	for (c = 0; c < n; c++) {
		u64 b0 = ~0ULL, b1 = 0;

		if (!chunk(BX * BY, n, c, &lo, &hi))
			continue;
		for (w = lo; w < hi; w++) {
			u64 bx = w % BX, by = w / BX;

			/* a block works if its x tiles (4 particles) and its y
			 * tiles fall inside the counts */
			if (by * 4 >= CNT / 4 || bx * 32 >= CNT1 / 4)
				continue;
			b0 = min64(b0, bx);
			b1 = max64(b1, bx + 1);
		}
		if (b1 <= b0)
			continue;
		m |= 1U << c;
		il[c].lo = b0 * 128 * 16;
		il[c].hi = (b0 ? min64(b1 * 128, CNT1) : CNT1) * 16;
		lf[c].lo = 0;
		lf[c].hi = CNT * 16;
		if (writer == MAXC)
			writer = c;	/* atomics: one chiplet owns the leaf */
	}
	if (writer < MAXC) {
		lv[writer].lo = 0;
		lv[writer].hi = CNT * 12;
	}
	alloc(g, "ilist", VMAX * 16);
	alloc(g, "leaf", 12 * 16);
	alloc(g, "leafv", 12 * 12);
	for (trial = 0; trial < 2; trial++) {
		for (leaf = 0; leaf < 64; leaf++) {
			host_rg(g, "write", "ilist", 0, CNT1 * 16);
			host_rg(g, "write", "leaf", 0, CNT * 16);
			host_rg(g, "write", "leafv", 0, CNT * 12);
			kbegin(&k, g, "Step10_cuda_kernel", m, 1);
			karg(&k, "leaf", 0, lf);
			karg(&k, "ilist", 0, il);
			karg(&k, "leafv", 1, lv);
			kend(&k);
			host_rg(g, "read", "leafv", 0, CNT * 12);
		}
	}
}

/* ---- low inter-kernel reuse ------------------------------------------ */

/*
 * B+tree (Rodinia, mil.txt, command.txt "j 6000 3000" then "k 10000"):
 * findRangeK then findK, one 256-thread block per query walking the tree
 * (order 256, about 5716 knodes of 2068 B, height 3). knodes and records
 * are reached by pointer chasing: unknown ranges, the paper's fallback.
 */
static void gen_btree(FILE *f, unsigned int n)
{
	struct gen gg = { f, n }, *g = &gg;
	const u64 KN = 5716, KB = 2068, REC = 1000000, HEIGHT = 3;
	const u64 QJ = 6000, QK = 10000, KNL = (KN * KB + 63) / 64;
	struct rg q8[MAXC], q4[MAXC], q2[MAXC];
	unsigned int mj, mk;
	struct kern k;
	u64 real, decl;

	alloc(g, "knodes", KN * KB);
	alloc(g, "records", REC * 4);
	alloc(g, "j_currKnode", QJ * 8);
	alloc(g, "j_offset", QJ * 8);
	alloc(g, "j_lastKnode", QJ * 8);
	alloc(g, "j_offset_2", QJ * 8);
	alloc(g, "j_startend", QJ * 8);
	alloc(g, "j_recstart", QJ * 4);
	alloc(g, "j_reclength", QJ * 4);
	alloc(g, "k_currKnode", QK * 8);
	alloc(g, "k_offset", QK * 8);
	alloc(g, "k_keys", QK * 4);
	alloc(g, "k_ans", QK * 4);

	host(g, "write", "knodes");
	host(g, "write", "j_currKnode");
	host(g, "write", "j_offset");
	host(g, "write", "j_lastKnode");
	host(g, "write", "j_offset_2");
	host(g, "write", "j_startend");
	mj = wg_rg(q8, n, QJ, 8, 0, QJ * 8);
	wg_rg(q4, n, QJ, 4, 0, QJ * 4);
	/* passes: knode lines each query's two walks read / lines declared */
	real = QJ * HEIGHT * 2 * ((KB + 63) / 64);
	decl = KNL + QJ * (8 * 5 + 4 * 2) / 64;
	kbegin(&k, g, "findRangeK", mj, (unsigned int)((real + decl / 2) / decl));
	karg_unknown(&k, "knodes", 0);
	karg(&k, "j_currKnode", 1, q8);
	karg(&k, "j_offset", 1, q8);
	karg(&k, "j_lastKnode", 1, q8);
	karg(&k, "j_offset_2", 1, q8);
	karg(&k, "j_startend", 0, q8);
	karg(&k, "j_recstart", 1, q4);
	karg(&k, "j_reclength", 1, q4);
	kend(&k);
	host(g, "read", "j_recstart");
	host(g, "read", "j_reclength");

	/* findK's wrapper allocates and uploads the tree again */
	host(g, "write", "knodes");
	host(g, "write", "records");
	host(g, "write", "k_currKnode");
	host(g, "write", "k_offset");
	host(g, "write", "k_keys");
	mk = wg_rg(q8, n, QK, 8, 0, QK * 8);
	wg_rg(q2, n, QK, 4, 0, QK * 4);
	real = QK * (HEIGHT * ((KB + 63) / 64) + 1);
	decl = KNL + REC * 4 / 64 + QK * (8 * 2 + 4 * 2) / 64;
	kbegin(&k, g, "findK", mk, (unsigned int)((real + decl / 2) / decl));
	karg_unknown(&k, "records", 0);
	karg_unknown(&k, "knodes", 0);
	karg(&k, "k_currKnode", 1, q8);
	karg(&k, "k_offset", 1, q8);
	karg(&k, "k_keys", 0, q2);
	karg(&k, "k_ans", 1, q2);
	kend(&k);
	host(g, "read", "k_ans");
}

/*
 * CNN (DNNMark composed model conv -> pool -> fc, 128x128x3, batch 4):
 * conv 32 5x5 filters pad 2, max pool 3x3 stride 2 (63x63), fc to 32;
 * one forward and backward iteration. Elementwise-style kernels use
 * 256-output blocks; GEMMs 64-row tiles; the fc forward GEMM (32x4 output)
 * is one tile, so one block on chiplet 0.
 */
static void gen_cnn(FILE *f, unsigned int n)
{
	struct gen gg = { f, n }, *g = &gg;
	const u64 NI = 4, C = 3, HW = 128, K = 32, P = 63;
	const u64 XI = C * HW * HW, Y1I = K * HW * HW, Y2I = K * P * P;	/* per image */
	const u64 KF = Y2I, OUT = 32, CRS = C * 25;
	struct rg o[MAXC], in[MAXC], r2[MAXC], per[4][MAXC], wr[MAXC];
	unsigned int m, c, i;
	struct kern k;
	u64 lo, hi;

	alloc(g, "X", NI * XI * 4);
	alloc(g, "Wc", K * CRS * 4);
	alloc(g, "Y1", NI * Y1I * 4);
	alloc(g, "Y2", NI * Y2I * 4);
	alloc(g, "Pidx", NI * Y2I);
	alloc(g, "Wf", KF * OUT * 4);
	alloc(g, "Y3", NI * OUT * 4);
	alloc(g, "dY3", NI * OUT * 4);
	alloc(g, "dWf", KF * OUT * 4);
	alloc(g, "dY2", NI * Y2I * 4);
	alloc(g, "dY1", NI * Y1I * 4);
	alloc(g, "dX", NI * XI * 4);
	alloc(g, "dWc", CRS * K * 4);
	host(g, "write", "X");
	host(g, "write", "Wc");
	host(g, "write", "Wf");
	host(g, "write", "dY3");

	/* conv forward: outputs in blocks of 256; each needs its whole image */
	m = wg_rg(o, n, NI * Y1I / 256, 256 * 4, 0, NI * Y1I * 4);
	rg_clear(in);
	for (c = 0; c < n; c++) {
		if (!(m >> c & 1))
			continue;
		in[c].lo = o[c].lo / 4 / Y1I * XI * 4;
		in[c].hi = ((o[c].hi / 4 - 1) / Y1I + 1) * XI * 4;
	}
	kbegin(&k, g, "conv_fwd", m, 1);
	karg(&k, "X", 0, in);
	karg_all(&k, "Wc", 0, 0, K * CRS * 4);
	karg(&k, "Y1", 1, o);
	kend(&k);

	/* pool forward: pooled rows py read conv rows 2py..2py+2 */
	m = wg_rg(o, n, (NI * Y2I + 255) / 256, 256, 0, NI * Y2I);
	rg_clear(r2);
	for (c = 0; c < n; c++) {
		u64 p0, p1;

		if (!(m >> c & 1))
			continue;
		p0 = o[c].lo;
		p1 = o[c].hi - 1;
		r2[c].lo = (p0 / (P * P) * HW * HW + p0 % (P * P) / P * 2 * HW) * 4;
		r2[c].hi = (p1 / (P * P) * HW * HW +
			    min64(p1 % (P * P) / P * 2 + 3, HW) * HW) * 4;
	}
	for (c = 0; c < MAXC; c++) {
		per[0][c].lo = o[c].lo * 4;
		per[0][c].hi = o[c].hi * 4;
	}
	kbegin(&k, g, "pool_fwd", m, 1);
	karg(&k, "Y1", 0, r2);
	karg(&k, "Y2", 1, per[0]);
	karg(&k, "Pidx", 1, o);
	kend(&k);

	/* fc forward: Y3 (32 x 4) = Wf' Y2, one tile */
	kbegin(&k, g, "fc_fwd", 1, 1);
	karg_all(&k, "Wf", 0, 0, KF * OUT * 4);
	karg_all(&k, "Y2", 0, 0, NI * Y2I * 4);
	karg_all(&k, "Y3", 1, 0, NI * OUT * 4);
	kend(&k);

	/* fc backward data and weights: 64-row tiles along the features */
	m = wg_rg(wr, n, (KF + 63) / 64, 64 * OUT * 4, 0, KF * OUT * 4);
	for (i = 0; i < NI; i++) {
		for (c = 0; c < MAXC; c++) {
			per[i][c].lo = per[i][c].hi = 0;
			if (!(m >> c & 1))
				continue;
			per[i][c].lo = (i * KF + wr[c].lo / (OUT * 4)) * 4;
			per[i][c].hi = (i * KF + wr[c].hi / (OUT * 4)) * 4;
		}
	}
	kbegin(&k, g, "fc_bwd_data", m, 1);
	karg_all(&k, "dY3", 0, 0, NI * OUT * 4);
	karg(&k, "Wf", 0, wr);
	for (i = 0; i < NI; i++)
		karg(&k, "dY2", 1, per[i]);
	kend(&k);
	kbegin(&k, g, "fc_bwd_weights", m, 1);
	karg_all(&k, "dY3", 0, 0, NI * OUT * 4);
	for (i = 0; i < NI; i++)
		karg(&k, "Y2", 0, per[i]);
	karg(&k, "dWf", 1, wr);
	kend(&k);

	/* pool backward: conv-output rows y gather pooled rows (y-2)/2..y/2 */
	m = wg_rg(o, n, NI * Y1I / 256, 256 * 4, 0, NI * Y1I * 4);
	rg_clear(r2);
	rg_clear(in);
	for (c = 0; c < n; c++) {
		u64 i0, i1, y0, y1;

		if (!(m >> c & 1))
			continue;
		i0 = o[c].lo / 4;
		i1 = o[c].hi / 4 - 1;
		y0 = i0 % (HW * HW) / HW;
		y1 = i1 % (HW * HW) / HW;
		lo = i0 / (HW * HW) * P * P + min64(sub0(y0, 1) / 2, P - 1) * P;
		hi = i1 / (HW * HW) * P * P + min64(y1 / 2 + 1, P) * P;
		r2[c].lo = lo * 4;
		r2[c].hi = hi * 4;
		in[c].lo = lo / 4 * 4;
		in[c].hi = min64((hi + 3) / 4 * 4, NI * Y2I);
	}
	kbegin(&k, g, "pool_bwd", m, 1);
	karg(&k, "dY2", 0, r2);
	karg(&k, "Pidx", 0, in);
	karg(&k, "dY1", 1, o);
	kend(&k);

	/* conv backward data: each input block needs its image's 32 planes */
	m = wg_rg(o, n, (NI * XI + 255) / 256, 256 * 4, 0, NI * XI * 4);
	rg_clear(in);
	for (c = 0; c < n; c++) {
		if (!(m >> c & 1))
			continue;
		in[c].lo = o[c].lo / 4 / XI * Y1I * 4;
		in[c].hi = ((o[c].hi / 4 - 1) / XI + 1) * Y1I * 4;
	}
	kbegin(&k, g, "conv_bwd_data", m, 1);
	karg(&k, "dY1", 0, in);
	karg_all(&k, "Wc", 0, 0, K * CRS * 4);
	karg(&k, "dX", 1, o);
	kend(&k);

	/* conv backward weights: dWc (75 x 32) in two 64-row tiles */
	m = wg_rg(wr, n, (CRS + 63) / 64, 64 * K * 4, 0, CRS * K * 4);
	kbegin(&k, g, "conv_bwd_weights", m, 1);
	karg_all(&k, "X", 0, 0, NI * XI * 4);
	karg_all(&k, "dY1", 0, 0, NI * Y1I * 4);
	karg(&k, "dWc", 1, wr);
	kend(&k);
	host(g, "read", "Y3");
	host(g, "read", "dWf");
	host(g, "read", "dWc");
	host(g, "read", "dX");
}

/*
 * DWT2D (Rodinia, forward 5/3 on ints, 3 levels) on a 1024x1024 RGB image
 * (4096x4096 needs ~500 MB): c_CopySrcToComponents, then per component a
 * device-to-device backup copy and per level fdwt53 (column strips x row
 * groups of 8*steps rows, steps = ceil(sy / 120)), which writes the four
 * subbands LL, HL, LH, HH one after another, and between levels memCopy
 * of the LL band (the band block at the start of out) back into in; the
 * next level's four bands then replace that LL band.
 */
static void gen_dwt2d(FILE *f, unsigned int n)
{
	struct gen gg = { f, n }, *g = &gg;
	const u64 S = 1024, PX = S * S, LEVELS = 3;
	static const char *const comp[3][2] = {
		{ "c_r", "c_r_out" }, { "c_g", "c_g_out" }, { "c_b", "c_b_out" },
	};
	struct rg src[MAXC], cm[MAXC], in[MAXC], band[4][MAXC];
	unsigned int m, c, i, b;
	struct kern k;
	u64 l, lo, hi;

	alloc(g, "src", PX * 3);
	for (i = 0; i < 3; i++) {
		alloc(g, comp[i][0], PX * 4);
		alloc(g, comp[i][1], PX * 4);
	}
	alloc(g, "backup", PX * 4);
	host(g, "write", "src");
	m = wg_rg(src, n, PX / 256, 256 * 3, 0, PX * 3);
	wg_rg(cm, n, PX / 256, 256 * 4, 0, PX * 4);
	kbegin(&k, g, "c_CopySrcToComponents", m, 1);
	karg(&k, "src", 0, src);
	karg(&k, "c_r", 1, cm);
	karg(&k, "c_g", 1, cm);
	karg(&k, "c_b", 1, cm);
	kend(&k);
	for (i = 0; i < 3; i++) {
		m = wg_rg(cm, n, PX * 4 / 64, 64, 0, PX * 4);
		kbegin(&k, g, "copy_backup", m, 1);
		karg(&k, comp[i][0], 0, cm);
		karg(&k, "backup", 1, cm);
		kend(&k);
		for (l = 0; l < LEVELS; l++) {
			u64 sx = S >> l, sy = S >> l, rb = sx * 4;
			u64 steps = (sy + 119) / 120, grp = 8 * steps;
			u64 G = (sy + grp - 1) / grp, bb = sx / 2 * 4, bsz = sy / 2 * bb;

			m = 0;
			rg_clear(in);
			for (b = 0; b < 4; b++)
				rg_clear(band[b]);
			for (c = 0; c < n; c++) {
				u64 r0, r1;

				if (!chunk(G, n, c, &lo, &hi))
					continue;
				r0 = lo * grp;
				r1 = min64(hi * grp, sy);
				m |= 1U << c;
				in[c].lo = sub0(r0, 2) * rb;
				in[c].hi = min64(r1 + 2, sy) * rb;
				for (b = 0; b < 4; b++) {
					band[b][c].lo = b * bsz + r0 / 2 * bb;
					band[b][c].hi = b * bsz + r1 / 2 * bb;
				}
			}
			kbegin(&k, g, "fdwt53", m, 1);
			karg(&k, comp[i][0], 0, in);
			for (b = 0; b < 4; b++)
				karg(&k, comp[i][1], 1, band[b]);
			kend(&k);
			if (l + 1 == LEVELS)
				break;
			m = wg_rg(cm, n, bsz / 64, 64, 0, bsz);
			kbegin(&k, g, "memCopy_ll", m, 1);
			karg(&k, comp[i][1], 0, cm);
			karg(&k, comp[i][0], 1, cm);
			kend(&k);
		}
	}
	for (i = 0; i < 3; i++)
		host(g, "read", comp[i][1]);
}

/*
 * NW (Rodinia, BLOCK_SIZE 16, penalty 10) on 2048x2048 (8192x8192 needs
 * 512 MB): needle_cuda_shared_1 for the 128 upper-left anti-diagonals of
 * 16x16 blocks, then needle_cuda_shared_2 for the 127 lower-right ones;
 * block bx of a diagonal has column C = bx + offset, so a chiplet gets a
 * run of a diagonal's blocks. The matrices are modeled tile by tile in
 * anti-diagonal order (a tile is 16 lines in the original too), so a run
 * is one range and its halo (the diagonal before: tiles above and left,
 * the one before that: corners) too; row 0 and column 0 in `border`.
 */
#define NW_NB	128ULL
#define NW_TILE	1024ULL

static u64 nw_cmin(u64 d)
{
	return d >= NW_NB ? d - (NW_NB - 1) : 0;
}

static u64 nw_cmax(u64 d)
{
	return min64(d, NW_NB - 1);
}

static u64 nw_start(u64 d)
{
	u64 s = 0, i;

	for (i = 0; i < d; i++)
		s += nw_cmax(i) - nw_cmin(i) + 1;
	return s;
}

/* Bytes of tiles C in [c0, c1] of diagonal d (clipped; empty if none). */
static struct rg nw_tiles(u64 d, long long c0, long long c1)
{
	struct rg r = { 0, 0 };
	long long lo = (long long)nw_cmin(d), hi = (long long)nw_cmax(d);

	if (c0 < lo)
		c0 = lo;
	if (c1 > hi)
		c1 = hi;
	if (c1 < c0)
		return r;
	r.lo = (nw_start(d) + (u64)(c0 - lo)) * NW_TILE;
	r.hi = (nw_start(d) + (u64)(c1 - lo) + 1) * NW_TILE;
	return r;
}

static void nw_diag(struct gen *g, const char *name, u64 d, u64 blocks, u64 coff)
{
	struct rg own[MAXC], halo[MAXC], corner[MAXC], top[MAXC], left[MAXC];
	const u64 COLS = NW_NB * 16 + 1;
	unsigned int m = 0, c;
	struct kern k;
	u64 lo, hi;

	rg_clear(own);
	rg_clear(halo);
	rg_clear(corner);
	rg_clear(top);
	rg_clear(left);
	for (c = 0; c < g->n; c++) {
		long long c0, c1;

		if (!chunk(blocks, g->n, c, &lo, &hi))
			continue;
		m |= 1U << c;
		c0 = (long long)(coff + lo);
		c1 = (long long)(coff + hi - 1);
		own[c] = nw_tiles(d, c0, c1);
		if (d >= 1)
			halo[c] = nw_tiles(d - 1, c0 - 1, c1);
		if (d >= 2)
			corner[c] = nw_tiles(d - 2, c0 - 1, c1 - 1);
		/* row 0 above the tile with R = 0 (C = d), column 0 left of C = 0 */
		if (d < NW_NB && (long long)d >= c0 && (long long)d <= c1) {
			top[c].lo = 16 * d * 4;
			top[c].hi = (16 * d + 17) * 4;
		}
		if (c0 == 0) {
			left[c].lo = (COLS + 16 * d) * 4;
			left[c].hi = (COLS + 16 * d + 17) * 4;
		}
	}
	kbegin(&k, g, name, m, 1);
	karg(&k, "reference", 0, own);
	karg(&k, "itemsets", 0, halo);
	karg(&k, "itemsets", 0, corner);
	karg(&k, "border", 0, top);
	karg(&k, "border", 0, left);
	karg(&k, "itemsets", 1, own);
	kend(&k);
}

static void gen_nw(FILE *f, unsigned int n)
{
	struct gen gg = { f, n }, *g = &gg;
	const u64 NB = NW_NB, COLS = NB * 16 + 1;
	u64 i;

	alloc(g, "reference", NB * NB * NW_TILE);
	alloc(g, "itemsets", NB * NB * NW_TILE);
	alloc(g, "border", 2 * COLS * 4);
	host(g, "write", "reference");
	host(g, "write", "itemsets");
	host(g, "write", "border");
	for (i = 1; i <= NB; i++)
		nw_diag(g, "needle_cuda_shared_1", i - 1, i, 0);
	for (i = NB - 1; i >= 1; i--)
		nw_diag(g, "needle_cuda_shared_2", 2 * NB - 1 - i, i, NB - i);
	host(g, "read", "itemsets");
}

/*
 * Pathfinder (Rodinia, 256-thread blocks, HALO 1; 100 rows, pyramid 20)
 * on 100000 columns (200000 needs 80 MB): dynproc_kernel for t = 0, 20,
 * 40, 60, 80, each reading a 20-row slab of gpuWall and gpuResult[src]
 * with 20 columns of halo per side and writing gpuResult[dst]. The wall
 * is modeled slab by slab, column-major within a slab, so a chiplet's
 * columns of a slab are one range.
 */
static void gen_pathfinder(FILE *f, unsigned int n)
{
	struct gen gg = { f, n }, *g = &gg;
	const u64 COLS = 100000, ROWS = 100, PH = 20, SMALL = 256 - 2 * PH;
	const u64 G = (COLS + SMALL - 1) / SMALL;
	struct rg wall[MAXC], src[MAXC], dst[MAXC];
	const char *res[2] = { "result0", "result1" };
	unsigned int m = 0, c, i;
	struct kern k;
	u64 t, lo, hi;

	alloc(g, "wall", (ROWS - 1) * COLS * 4);
	alloc(g, "result0", COLS * 4);
	alloc(g, "result1", COLS * 4);
	host(g, "write", "wall");
	host(g, "write", "result0");
	for (t = 0, i = 0; t < ROWS - 1; t += PH, i++) {
		u64 rows = min64(PH, ROWS - 1 - t), base = t * COLS * 4;

		rg_clear(wall);
		rg_clear(src);
		rg_clear(dst);
		for (c = 0; c < n; c++) {
			u64 c0, c1;

			if (!chunk(G, n, c, &lo, &hi))
				continue;
			m |= 1U << c;
			c0 = sub0(lo * SMALL, PH);
			c1 = min64(hi * SMALL + PH, COLS);
			wall[c].lo = base + c0 * rows * 4;
			wall[c].hi = base + c1 * rows * 4;
			src[c].lo = c0 * 4;
			src[c].hi = c1 * 4;
			dst[c].lo = lo * SMALL * 4;
			dst[c].hi = min64(hi * SMALL, COLS) * 4;
		}
		kbegin(&k, g, "dynproc_kernel", m, 1);
		karg(&k, "wall", 0, wall);
		karg(&k, res[i % 2], 0, src);
		karg(&k, res[(i + 1) % 2], 1, dst);
		kend(&k);
	}
	host(g, "read", res[i % 2]);
}

/*
 * SRAD_v2 (Rodinia, 2 iterations, lambda 0.5, ROI 0..127) on 1024x1024
 * (2048x2048 needs 96 MB): per iteration the host uploads J, srad_cuda_1
 * (derivatives and diffusion coefficient, 16x16 blocks reading one row of
 * halo) and srad_cuda_2 (divergence, reading c of the row below), then
 * the host reads J back for the next ROI statistics.
 */
static void gen_srad_v2(FILE *f, unsigned int n)
{
	struct gen gg = { f, n }, *g = &gg;
	const u64 S = 1024, RB = S * 4, G = S / 16;
	static const char *const d[4] = { "dN", "dS", "dW", "dE" };
	struct rg own[MAXC], halo[MAXC], south[MAXC];
	unsigned int m = 0, c, it, i;
	struct kern k;
	u64 lo, hi;

	rg_clear(own);
	rg_clear(halo);
	rg_clear(south);
	for (c = 0; c < n; c++) {
		if (!chunk(G, n, c, &lo, &hi))
			continue;
		m |= 1U << c;
		own[c].lo = lo * 16 * RB;
		own[c].hi = hi * 16 * RB;
		halo[c].lo = sub0(lo * 16, 1) * RB;
		halo[c].hi = min64(hi * 16 + 1, S) * RB;
		south[c].lo = own[c].lo;
		south[c].hi = halo[c].hi;
	}
	alloc(g, "J", S * RB);
	alloc(g, "c", S * RB);
	for (i = 0; i < 4; i++)
		alloc(g, d[i], S * RB);
	for (it = 0; it < 2; it++) {
		host(g, "write", "J");
		kbegin(&k, g, "srad_cuda_1", m, 1);
		karg(&k, "J", 0, halo);
		karg(&k, "c", 1, own);
		for (i = 0; i < 4; i++)
			karg(&k, d[i], 1, own);
		kend(&k);
		kbegin(&k, g, "srad_cuda_2", m, 1);
		karg(&k, "c", 0, south);
		for (i = 0; i < 4; i++)
			karg(&k, d[i], 0, own);
		karg(&k, "J", 1, own);
		kend(&k);
		host(g, "read", "J");
	}
}

/* In the paper's order: moderate-high reuse, then low reuse (Table II). */
const struct cpe_app cpe_apps[] = {
#define A(n) { #n, gen_##n, false }
#define LOW(n) { #n, gen_##n, true }
	A(babelstream), A(square), A(hotspot), A(hotspot3d), A(lud),
	A(rnn_gru_small), A(rnn_gru_large), A(rnn_lstm_small), A(rnn_lstm_large),
	A(bfs), A(sssp), A(color), A(fw), A(pennant), A(lulesh), A(backprop),
	A(gaussian), A(hacc), LOW(btree), LOW(cnn), LOW(dwt2d), LOW(nw),
	LOW(pathfinder), LOW(srad_v2),
#undef A
#undef LOW
};

const size_t cpe_napps = ARRAY_SIZE(cpe_apps);
