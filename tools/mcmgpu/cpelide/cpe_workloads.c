// SPDX-License-Identifier: GPL-2.0
/*
 * CPElide workloads: one launch sequence per workload of the paper's
 * Table II, modeled on the real application's kernels, their arguments
 * (R or R/W), the static in-order work-group partition across chiplets
 * (CPElide §IV-C1) and the application's loop structure.
 *
 * Each workload is a step table (format: cpe_steps.h) of what the
 * application does, in its order, and the geometry functions its GEOM
 * steps call, which compute the bytes each chiplet's work-groups touch
 * (the tables' range sets) for the chiplet count. The derivation of every workload (source and input,
 * kernels per iteration and iterations, each argument's object, mode and
 * partition, passes and why, what was scaled down and why) is in
 * docs/cpelide.md next to this file; keep the two in step.
 *
 * Each workload names, in enums with its prefix, its range sets (from 0),
 * its kernels' chiplet sets (from M_OWN) and the values its table takes
 * from the geometry (sizes, loop counts, passes; from 0).
 */
#include <string.h>

#include "cpe_steps.h"
#include "cpe_tool.h"
#include "cli.h"

/*
 * Rows split by work-groups of `per` rows each (G of them, in chunks):
 * set own gets a chiplet's rows, set halo the same rows and h more on
 * either side, clipped to the rows there are. Returns the chiplets with rows.
 */
static unsigned int row_bands(struct cpe_gen *g, unsigned int own,
			      unsigned int halo, u64 G, u64 per, u64 rows,
			      u64 row_bytes, u64 h)
{
	unsigned int c, m = 0;
	u64 lo, hi;

	rg_clear(g->set[own]);
	rg_clear(g->set[halo]);
	for (c = 0; c < g->n; c++) {
		if (!chunk(G, g->n, c, &lo, &hi))
			continue;
		m |= 1U << c;
		g->set[own][c].lo = lo * per * row_bytes;
		g->set[own][c].hi = min64(hi * per, rows) * row_bytes;
		g->set[halo][c].lo = sub0(lo * per, h) * row_bytes;
		g->set[halo][c].hi = min64(hi * per + h, rows) * row_bytes;
	}
	return m;
}

/* ---- moderate-to-high inter-kernel reuse ---------------------------- */

/*
 * BabelStream (HIP, TBSIZE 1024, DOT_NUM_BLOCKS 256), 524288 doubles:
 * init, then copy, mul, add, triad and dot per iteration; the host sums
 * the dot kernel's per-block partial sums and finally reads a, b, c.
 * num_times 100 is cut to 10 (0.8 M line accesses an iteration).
 */
#define BS_N		524288ULL
#define BS_TB		1024ULL
#define BS_DOTB		256ULL
#define BS_BYTES	(BS_N * 8)

enum { BS_OWN, BS_DOT0, BS_DOT1, BS_SUMS };
enum { BS_M = M_OWN, BS_M_DOT };

static void babelstream_geom(struct cpe_gen *g)
{
	g->mask[BS_M] = wg_rg(g->set[BS_OWN], g->n, BS_N / BS_TB, BS_TB * 8, 0,
			      BS_BYTES);
	/* dot: block w reads elements w*TB + j*DOTB*TB, j = 0, 1 */
	g->mask[BS_M_DOT] = wg_rg(g->set[BS_DOT0], g->n, BS_DOTB, BS_TB * 8, 0,
				  BS_BYTES);
	wg_rg(g->set[BS_DOT1], g->n, BS_DOTB, BS_TB * 8, BS_DOTB * BS_TB * 8,
	      BS_BYTES);
	wg_rg(g->set[BS_SUMS], g->n, BS_DOTB, 8, 0, BS_DOTB * 8);
}

static const struct cpe_step babelstream_steps[] = {
	GEOM(babelstream_geom),
	ALLOC("a", BS_BYTES), ALLOC("b", BS_BYTES), ALLOC("c", BS_BYTES),
	ALLOC("sums", BS_DOTB * 8),
	KERNEL("init", BS_M, RW("a", BS_OWN), RW("b", BS_OWN), RW("c", BS_OWN)),
	LOOP(10),
		KERNEL("copy", BS_M, R("a", BS_OWN), RW("c", BS_OWN)),
		KERNEL("mul", BS_M, R("c", BS_OWN), RW("b", BS_OWN)),
		KERNEL("add", BS_M, R("a", BS_OWN), R("b", BS_OWN), RW("c", BS_OWN)),
		KERNEL("triad", BS_M, R("b", BS_OWN), R("c", BS_OWN), RW("a", BS_OWN)),
		KERNEL("dot", BS_M_DOT, R("a", BS_DOT0), R("a", BS_DOT1),
		       R("b", BS_DOT0), R("b", BS_DOT1), RW("sums", BS_SUMS)),
		READ("sums"),
	LOOP_END,
	READ("a"), READ("b"), READ("c"),
	STEPS_DONE
};

/* Square (gem5-resources, ITERS 50): C = A*A, 2048 blocks of 256 threads. */
#define SQ_BYTES	(524288ULL * 4)

enum { SQ_OWN };
enum { SQ_M = M_OWN };

static void square_geom(struct cpe_gen *g)
{
	g->mask[SQ_M] = wg_rg(g->set[SQ_OWN], g->n, 2048, 256 * 4, 0, SQ_BYTES);
}

static const struct cpe_step square_steps[] = {
	GEOM(square_geom),
	ALLOC("A", SQ_BYTES), ALLOC("C", SQ_BYTES),
	WRITE("A"),
	LOOP(50),
		KERNEL("vector_square", SQ_M, RW("C", SQ_OWN), R("A", SQ_OWN)),
	LOOP_END,
	READ("C"),
	STEPS_DONE
};

/*
 * Hotspot (Rodinia, 512 2 20): ceil(20/2) = 10 calculate_temp launches,
 * temp ping-pong; a 43x43 grid of 16x16 tiles that advance 12x12 cells
 * each, so a chiplet reads 2 (pyramid_height) rows beyond its own.
 * passes 2: (16/12)^2 reads of power and temp per cell, 1 write.
 */
#define HS_ROWS		512ULL
#define HS_ROW_BYTES	(HS_ROWS * 4)
#define HS_PH		2ULL
#define HS_ADVANCE	(16 - 2 * HS_PH)

enum { HS_OWN, HS_HALO };
enum { HS_M = M_OWN };

static void hotspot_geom(struct cpe_gen *g)
{
	g->mask[HS_M] = row_bands(g, HS_OWN, HS_HALO,
				  (HS_ROWS + HS_ADVANCE - 1) / HS_ADVANCE, HS_ADVANCE,
				  HS_ROWS, HS_ROW_BYTES, HS_PH);
}

static const struct cpe_step hotspot_steps[] = {
	GEOM(hotspot_geom),
	ALLOC("power", HS_ROWS * HS_ROW_BYTES),
	ALLOC("temp0", HS_ROWS * HS_ROW_BYTES),
	ALLOC("temp1", HS_ROWS * HS_ROW_BYTES),
	WRITE("power"), WRITE("temp0"),
	LOOP(10),
		KERNEL_PASSES("calculate_temp", HS_M, 2, R("power", HS_HALO),
			      R("temp0|temp1", HS_HALO), RW("temp1|temp0", HS_OWN)),
	LOOP_END,
	READ("temp0"),
	STEPS_DONE
};

/*
 * Hotspot3D (Rodinia, 512 8 20): 20 hotspotOpt1 launches, tIn/tOut
 * swapped; 64x4-thread blocks each walk all 8 layers of a 64x4 column.
 * Modeled y-major (y, then z, then x) so a chiplet's rows of every layer
 * are one range; the lines are the same, only their order differs.
 */
#define H3_NY		512ULL
#define H3_ROW_BYTES	(512ULL * 8 * 4)	/* x by z of one y */

enum { H3_OWN, H3_HALO };
enum { H3_M = M_OWN };

static void hotspot3d_geom(struct cpe_gen *g)
{
	g->mask[H3_M] = row_bands(g, H3_OWN, H3_HALO, H3_NY / 4, 4, H3_NY,
				  H3_ROW_BYTES, 1);
}

static const struct cpe_step hotspot3d_steps[] = {
	GEOM(hotspot3d_geom),
	ALLOC("p", H3_NY * H3_ROW_BYTES),
	ALLOC("tIn", H3_NY * H3_ROW_BYTES),
	ALLOC("tOut", H3_NY * H3_ROW_BYTES),
	WRITE("p"), WRITE("tIn"),
	LOOP(20),
		KERNEL("hotspotOpt1", H3_M, R("p", H3_OWN), R("tIn|tOut", H3_HALO),
		       RW("tOut|tIn", H3_OWN)),
	LOOP_END,
	READ("tIn"),
	STEPS_DONE
};

/*
 * LUD (Rodinia CUDA, BLOCK_SIZE 16, 512.dat): per 16-column step a
 * one-block lud_diagonal, lud_perimeter (one block per perimeter tile
 * pair) and lud_internal (one block per trailing tile, split by tile rows).
 * Modeled with the matrix stored tile by tile (a 16x16 tile is 16 lines
 * in the row-major original too), tile rows in order.
 */
#define LUD_NB		32
#define LUD_TILE	1024ULL

enum { LUD_DIAG, LUD_TOP, LUD_ROW, LUD_COL0, LUD_GRP0 = LUD_COL0 + 6 };
enum { LUD_M = M_OWN };
enum { LUD_PASSES };

static u64 lud_tile(u64 r, u64 c)
{
	return (r * LUD_NB + c) * LUD_TILE;
}

/* Sets first .. first + G - 1: chiplet c's tile rows k + 1 + [lo, hi) cut
 * into G runs, each the hull from tile (first row, k) to (last row, last). */
static void lud_runs(struct cpe_gen *g, unsigned int first, u64 G, u64 k,
		     u64 last, const u64 *lo, const u64 *hi)
{
	unsigned int c;
	u64 j;

	for (j = 0; j < G; j++) {
		rg_clear(g->set[first + j]);
		for (c = 0; c < g->n; c++) {
			u64 cnt = hi[c] - lo[c];
			u64 s = lo[c] + j * cnt / G, e = lo[c] + (j + 1) * cnt / G;

			if (e <= s)
				continue;
			g->set[first + j][c].lo = lud_tile(k + 1 + s, k);
			g->set[first + j][c].hi = lud_tile(k + e, last) + LUD_TILE;
		}
	}
}

/* The last step: its diagonal tile alone. */
static void lud_last(struct cpe_gen *g)
{
	const u64 k = LUD_NB - 1;

	rg_all(g->set[LUD_DIAG], ~0U, lud_tile(k, k), lud_tile(k, k) + LUD_TILE);
}

/* Step k of the loop. */
static void lud_step(struct cpe_gen *g)
{
	u64 lo[MAXC], hi[MAXC], k = g->it[0], mt, maxc = 0, j, G, real = 0, decl = 0;
	unsigned int c, m = 0;

	rg_all(g->set[LUD_DIAG], ~0U, lud_tile(k, k), lud_tile(k, k) + LUD_TILE);

	/* lud_perimeter: block b owns tiles (k, k+1+b) and (k+1+b, k) */
	mt = LUD_NB - 1 - k;
	rg_clear(g->set[LUD_ROW]);
	for (c = 0; c < g->n; c++) {
		lo[c] = hi[c] = 0;
		if (!chunk(mt, g->n, c, &lo[c], &hi[c]))
			continue;
		m |= 1U << c;
		maxc = max64(maxc, hi[c] - lo[c]);
		g->set[LUD_ROW][c].lo = lud_tile(k, k + 1 + lo[c]);
		g->set[LUD_ROW][c].hi = lud_tile(k, k + hi[c]) + LUD_TILE;
		/* lud_internal: each block loads tiles (i,k), (k,j) and (i,j) */
		real += 3 * (hi[c] - lo[c]) * mt;
		decl += mt;
	}
	g->mask[LUD_M] = m;
	/* column tiles: up to 6 arguments, each the hull of a run */
	for (j = 0; j < 6; j++)
		rg_clear(g->set[LUD_COL0 + j]);
	lud_runs(g, LUD_COL0, min64(6, maxc), k, k, lo, hi);

	/* lud_internal: an mt x mt grid, chunks of whole tile rows in up to 7 runs */
	rg_all(g->set[LUD_TOP], ~0U, lud_tile(k, k + 1), lud_tile(k, LUD_NB - 1) + LUD_TILE);
	for (j = 0; j < 7; j++)
		rg_clear(g->set[LUD_GRP0 + j]);
	G = min64(7, maxc);
	lud_runs(g, LUD_GRP0, G, k, LUD_NB - 1, lo, hi);
	for (j = 0; j < G; j++)
		for (c = 0; c < g->n; c++)
			if (g->set[LUD_GRP0 + j][c].hi > g->set[LUD_GRP0 + j][c].lo)
				decl += (g->set[LUD_GRP0 + j][c].hi -
					 g->set[LUD_GRP0 + j][c].lo) / LUD_TILE;
	/* passes: tiles the blocks load / tiles declared, rounded */
	g->var[LUD_PASSES] = max64(1, (real + decl / 2) / decl);
}

#define LUD_DIAGONAL	KERNEL("lud_diagonal", M_CHIPLET0, RW("m", LUD_DIAG))

static const struct cpe_step lud_steps[] = {
	ALLOC("m", LUD_NB * LUD_NB * LUD_TILE),
	WRITE("m"),
	LOOP(LUD_NB - 1),
		GEOM(lud_step),
		LUD_DIAGONAL,
		KERNEL("lud_perimeter", LUD_M, R("m", LUD_DIAG), RW("m", LUD_ROW),
		       RW("m", LUD_COL0), RW("m", LUD_COL0 + 1), RW("m", LUD_COL0 + 2),
		       RW("m", LUD_COL0 + 3), RW("m", LUD_COL0 + 4), RW("m", LUD_COL0 + 5)),
		KERNEL_PASSES_VAR("lud_internal", LUD_M, LUD_PASSES, R("m", LUD_TOP),
				  RW("m", LUD_GRP0), RW("m", LUD_GRP0 + 1),
				  RW("m", LUD_GRP0 + 2), RW("m", LUD_GRP0 + 3),
				  RW("m", LUD_GRP0 + 4), RW("m", LUD_GRP0 + 5),
				  RW("m", LUD_GRP0 + 6)),
	LOOP_END,
	GEOM(lud_last),
	LUD_DIAGONAL,
	READ("m"),
	STEPS_DONE
};

/*
 * DeepBench RNN forward (MIOpen RNNForwardTraining, one layer), warm-up
 * plus timed repeats: one input GEMM for all timesteps, then per timestep
 * a recurrent GEMM accumulating into that timestep's gates and the
 * elementwise gate/state update. GEMMs are split by 64-unit gate tiles,
 * the elementwise kernel by 256-element blocks of the batch x hidden state.
 * The gate buffer is modeled [t][gate unit][batch] so a GEMM tile's rows
 * are one range. DeepBench's 100 timed repeats are cut to 20.
 */
enum { RNN_ROWS, RNN_X, RNN_GATES_T0, RNN_GATES = RNN_GATES_T0 + 4,
       RNN_HX, RNN_PREV_Y, RNN_GATES_ALL, RNN_E_HX, RNN_E_PREV, RNN_E_CUR };
enum { RNN_M_GEMM = M_OWN, RNN_M_ELT };
enum { RNN_WEIGHTS, RNN_SEQ, RNN_STATE, RNN_GATE_BYTES, RNN_T };

/* to[c] = from[c] moved by off bytes. */
static void rg_shift(struct rg *to, const struct rg *from, u64 off)
{
	unsigned int c;

	for (c = 0; c < MAXC; c++) {
		to[c].lo = from[c].lo + off;
		to[c].hi = from[c].hi + off;
	}
}

/*
 * The workload's parameters (cpe_apps): gates per unit, hidden units H,
 * batch B and timesteps T (at most 4); Gu gate units, GT and HB the bytes
 * of a timestep's gates and state.
 */
static void rnn_init(struct cpe_gen *g)
{
	const u64 H = g->param[1], B = g->param[2], T = g->param[3];
	const u64 Gu = g->param[0] * H, GT = Gu * B * 4, HB = B * H * 4, WROW = H * 4;
	struct rg *gt = g->set[RNN_GATES_T0];
	unsigned int t;

	g->var[RNN_WEIGHTS] = Gu * WROW;
	g->var[RNN_SEQ] = T * HB;
	g->var[RNN_STATE] = HB;
	g->var[RNN_GATE_BYTES] = T * GT;
	g->var[RNN_T] = T;
	g->mask[RNN_M_GEMM] = wg_rg(g->set[RNN_ROWS], g->n, Gu / 64, 64 * WROW, 0,
				    Gu * WROW);
	rg_all(g->set[RNN_X], ~0U, 0, T * HB);
	/* the gates of timestep t: one argument each in gemm_x */
	wg_rg(gt, g->n, Gu / 64, 64 * B * 4, 0, GT);
	for (t = 1; t < 4; t++) {
		if (t < T)
			rg_shift(g->set[RNN_GATES_T0 + t], gt, t * GT);
		else
			rg_clear(g->set[RNN_GATES_T0 + t]);
	}
}

/* Timestep t: h(t-1) is hx at t = 0, else y[t-1]. */
static void rnn_step(struct cpe_gen *g)
{
	const u64 H = g->param[1], B = g->param[2], t = g->it[1];
	const u64 GT = g->param[0] * H * B * 4, HB = B * H * 4;
	struct rg *gt = g->set[RNN_GATES_T0], *ge = g->set[RNN_E_CUR];

	rg_shift(g->set[RNN_GATES], gt, t * GT);
	rg_all(g->set[RNN_GATES_ALL], ~0U, t * GT, (t + 1) * GT);
	rg_clear(g->set[RNN_HX]);
	rg_clear(g->set[RNN_PREV_Y]);
	rg_clear(g->set[RNN_E_HX]);
	rg_clear(g->set[RNN_E_PREV]);
	g->mask[RNN_M_ELT] = wg_rg(ge, g->n, (B * H + 255) / 256, 256 * 4, 0, HB);
	if (t) {
		rg_all(g->set[RNN_PREV_Y], ~0U, (t - 1) * HB, t * HB);
		rg_shift(g->set[RNN_E_PREV], ge, (t - 1) * HB);
	} else {
		rg_all(g->set[RNN_HX], ~0U, 0, HB);
		memcpy(g->set[RNN_E_HX], ge, sizeof(*ge) * MAXC);
	}
	rg_shift(ge, ge, t * HB);
}

#define RNN_ALLOCS \
	GEOM(rnn_init), \
	ALLOC_VAR("W", RNN_WEIGHTS), ALLOC_VAR("R", RNN_WEIGHTS), \
	ALLOC_VAR("x", RNN_SEQ), ALLOC_VAR("hx", RNN_STATE), \
	ALLOC_VAR("y", RNN_SEQ), ALLOC_VAR("gates", RNN_GATE_BYTES)

#define RNN_GEMM_X \
	KERNEL("gemm_x", RNN_M_GEMM, R("W", RNN_ROWS), R("x", RNN_X), \
	       RW("gates", RNN_GATES_T0), RW("gates", RNN_GATES_T0 + 1), \
	       RW("gates", RNN_GATES_T0 + 2), RW("gates", RNN_GATES_T0 + 3))

#define RNN_GEMM_H \
	KERNEL("gemm_h", RNN_M_GEMM, R("R", RNN_ROWS), R("y", RNN_PREV_Y), \
	       R("hx", RNN_HX), RW("gates", RNN_GATES))

/* 1 warm-up + 20 timed forwards (DeepBench: 100) */
static const struct cpe_step rnn_gru_steps[] = {
	RNN_ALLOCS,
	WRITE("W"), WRITE("R"), WRITE("x"), WRITE("hx"),
	LOOP(1 + 20),
		RNN_GEMM_X,
		LOOP_VAR(RNN_T),
			GEOM(rnn_step),
			RNN_GEMM_H,
			KERNEL("gru_elementwise", RNN_M_ELT, R("gates", RNN_GATES_ALL),
			       R("hx", RNN_E_HX), R("y", RNN_E_PREV), RW("y", RNN_E_CUR)),
		LOOP_END,
	LOOP_END,
	READ("y"),
	STEPS_DONE
};

static const struct cpe_step rnn_lstm_steps[] = {
	RNN_ALLOCS, ALLOC_VAR("cx", RNN_STATE), ALLOC_VAR("cs", RNN_SEQ),
	WRITE("W"), WRITE("R"), WRITE("x"), WRITE("hx"), WRITE("cx"),
	LOOP(1 + 20),
		RNN_GEMM_X,
		LOOP_VAR(RNN_T),
			GEOM(rnn_step),
			RNN_GEMM_H,
			KERNEL("lstm_elementwise", RNN_M_ELT, R("gates", RNN_GATES_ALL),
			       R("hx", RNN_E_HX), R("y", RNN_E_PREV),
			       R("cx", RNN_E_HX), R("cs", RNN_E_PREV),
			       RW("cs", RNN_E_CUR), RW("y", RNN_E_CUR)),
		LOOP_END,
	LOOP_END,
	READ("y"), READ("cs"),
	STEPS_DONE
};

/*
 * BFS (Rodinia, graph128k: 131072 nodes, average degree 6 as Rodinia's
 * generator makes them). Per level Kernel (expand the frontier) and
 * Kernel2 (commit the next frontier, set over), 512-thread blocks; the
 * host clears and reads `over` around each level. Levels and frontier
 * sizes follow the random-graph recurrence F' = (N - V)(1 - e^(-dF/N)).
 */
#define BFS_N		131072ULL
#define BFS_D		6ULL
#define BFS_LINE	64ULL

enum { BFS_FLAG, BFS_COST, BFS_NODES, BFS_EDGES, BFS_OVER };
enum { BFS_M = M_OWN };
enum { BFS_LEVELS };

struct bfs_state {
	double frontier[64];	/* nodes expanded at each level */
	u64 node_cur[MAXC], edge_cur[MAXC];
};

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

static void bfs_init(struct cpe_gen *g)
{
	struct bfs_state *s = g->priv;
	struct rg *flag = g->set[BFS_FLAG];
	double F = 1, V = 1, next;
	unsigned int c, L = 0;
	u64 lo, hi;

	while (F >= 0.5 && L < 64) {
		s->frontier[L++] = F;
		next = ((double)BFS_N - V) * (1 - dexp(-(double)BFS_D * F / (double)BFS_N));
		V += next;
		F = next;
	}
	g->var[BFS_LEVELS] = L;
	for (c = 0; c < g->n; c++) {
		if (!chunk(BFS_N / 512, g->n, c, &lo, &hi))
			continue;
		g->mask[BFS_M] |= 1U << c;
		flag[c].lo = lo * 512;
		flag[c].hi = hi * 512;
		g->set[BFS_COST][c].lo = lo * 512 * 4;
		g->set[BFS_COST][c].hi = hi * 512 * 4;
	}
}

static void bfs_level(struct cpe_gen *g)
{
	struct bfs_state *s = g->priv;
	struct rg *flag = g->set[BFS_FLAG];
	unsigned int c, n = g->n, l = g->it[0];
	double fr = s->frontier[l];

	rg_clear(g->set[BFS_NODES]);
	rg_clear(g->set[BFS_EDGES]);
	for (c = 0; c < n; c++) {
		double kc;
		u64 a, b, ln, le;

		if (!(g->mask[BFS_M] >> c & 1))
			continue;
		/* frontier nodes this chiplet expands */
		kc = fr >= n ? fr / n : (c < (unsigned int)(fr + 0.999) ? 1 : 0);
		if (kc <= 0)
			continue;
		a = flag[c].lo;
		b = flag[c].hi;
		ln = occ((b - a) * 8 / BFS_LINE, kc) * BFS_LINE;
		le = occ((b - a) * BFS_D * 4 / BFS_LINE,
			 kc * (1 + (BFS_D * 4 - 4) / 64.0)) * BFS_LINE;
		g->set[BFS_NODES][c] = place(&s->node_cur[c], a * 8, b * 8, ln);
		g->set[BFS_EDGES][c] = place(&s->edge_cur[c], a * BFS_D * 4,
					     b * BFS_D * 4, le);
	}
	/* the last level finds no new node: Kernel2 sets no `over` */
	if (l + 1 < g->var[BFS_LEVELS])
		rg_all(g->set[BFS_OVER], 1, 0, 4);
	else
		rg_clear(g->set[BFS_OVER]);
}

static const struct cpe_step bfs_steps[] = {
	GEOM(bfs_init),
	ALLOC("nodes", BFS_N * 8), ALLOC("edges", BFS_N * BFS_D * 4),
	ALLOC("mask", BFS_N), ALLOC("updating", BFS_N), ALLOC("visited", BFS_N),
	ALLOC("cost", BFS_N * 4), ALLOC("over", 4),
	WRITE("nodes"), WRITE("edges"), WRITE("mask"), WRITE("updating"),
	WRITE("visited"), WRITE("cost"),
	LOOP_VAR(BFS_LEVELS),
		GEOM(bfs_level),
		WRITE("over"),
		KERNEL("Kernel", BFS_M, R("nodes", BFS_NODES), R("edges", BFS_EDGES),
		       RW("mask", BFS_FLAG), RW("updating", BFS_FLAG),
		       R_EVERY("visited", 0, BFS_N), RW("cost", BFS_COST)),
		KERNEL("Kernel2", BFS_M, RW("mask", BFS_FLAG), RW("updating", BFS_FLAG),
		       RW("visited", BFS_FLAG), RW("over", BFS_OVER)),
		READ("over"),
	LOOP_END,
	READ("cost"),
	STEPS_DONE
};

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
 * writing and reading `stop`; 64-thread blocks. (510 - 1) / 3 rounds:
 * the paper's 510-kernel maximum.
 */
enum { SSSP_V, SSSP_ROW, SSSP_EDGES };
enum { SSSP_M = M_OWN };

static void sssp_geom(struct cpe_gen *g)
{
	struct rg *v = g->set[SSSP_V], *row = g->set[SSSP_ROW], *edg = g->set[SSSP_EDGES];
	u64 va[MAXC], vb[MAXC];
	unsigned int m, c;

	m = graph_rg(g->n, 64, va, vb);
	g->mask[SSSP_M] = m;
	for (c = 0; c < g->n; c++) {
		if (!(m >> c & 1))
			continue;
		v[c].lo = va[c] * 4;
		v[c].hi = vb[c] * 4;
		row[c].lo = va[c] * 4;
		row[c].hi = (vb[c] + 1) * 4;
		edg[c].lo = va[c] * AK_E / AK_N * 4;
		edg[c].hi = vb[c] * AK_E / AK_N * 4;
	}
}

static const struct cpe_step sssp_steps[] = {
	GEOM(sssp_geom),
	ALLOC("row", (AK_N + 1) * 4), ALLOC("col", AK_E * 4), ALLOC("data", AK_E * 4),
	ALLOC("stop", 4), ALLOC("vector1", AK_N * 4), ALLOC("vector2", AK_N * 4),
	WRITE("row"), WRITE("col"), WRITE("data"),
	KERNEL("vector_init", SSSP_M, RW("vector1", SSSP_V), RW("vector2", SSSP_V)),
	LOOP((510 - 1) / 3),
		WRITE("stop"),
		KERNEL("vector_assign", SSSP_M, RW("vector1", SSSP_V), R("vector2", SSSP_V)),
		KERNEL("spmv_min_dot_plus", SSSP_M, R("row", SSSP_ROW),
		       R("col", SSSP_EDGES), R("data", SSSP_EDGES),
		       R_EVERY("vector1", 0, AK_N * 4), RW("vector2", SSSP_V)),
		KERNEL("vector_diff", SSSP_M, R("vector1", SSSP_V), R("vector2", SSSP_V),
		       RW_FIRST("stop", 0, 4)),
		READ("stop"),
	LOOP_END,
	READ("vector1"),
	STEPS_DONE
};

/*
 * Color-max (Pannotia coloring_max): per round color1 (uncolored vertices
 * find the largest uncolored neighbour value) and color2 (local maxima take
 * the round's color), 256-thread blocks, `stop` written and read by the
 * host. Uncolored fraction per round from a simulation of the algorithm
 * on a random geometric graph of AK's size and degree (docs/cpelide.md).
 */
static const double color_uncolored[] = { 1.000, 0.790, 0.611, 0.455, 0.320,
	0.210, 0.127, 0.070, 0.036, 0.017, 0.007, 0.003, 0.001, 0.0003, 0.0001,
	0.00005, 0 };

/* ACTIVE_*: while vertices are uncolored; DONE: the last round, which
 * finds none and only reads color */
enum { COLOR_OWN, COLOR_ROWS, COLOR_EDGES, COLOR_ACTIVE_ALL, COLOR_ACTIVE_OWN,
       COLOR_ACTIVE_STOP, COLOR_DONE };
enum { COLOR_M = M_OWN };

static void color_round(struct cpe_gen *g)
{
	struct rg *own = g->set[COLOR_OWN], *rsub = g->set[COLOR_ROWS];
	struct rg *esub = g->set[COLOR_EDGES];
	double unc = color_uncolored[g->it[0]];
	unsigned int m, c, n = g->n;
	u64 va[MAXC], vb[MAXC];

	m = graph_rg(n, 256, va, vb);
	g->mask[COLOR_M] = m;
	for (c = 0; c < n; c++) {
		own[c].lo = va[c] * 4;
		own[c].hi = vb[c] * 4;
	}
	rg_clear(rsub);
	rg_clear(esub);
	for (c = 0; c < n; c++) {
		u64 nv = vb[c] - va[c], e0 = va[c] * AK_E / AK_N * 4;
		u64 e1 = vb[c] * AK_E / AK_N * 4;
		double probes = unc * (double)nv;

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
	rg_clear(g->set[COLOR_ACTIVE_ALL]);
	rg_clear(g->set[COLOR_ACTIVE_OWN]);
	rg_clear(g->set[COLOR_ACTIVE_STOP]);
	rg_clear(g->set[COLOR_DONE]);
	if (unc > 0) {
		rg_all(g->set[COLOR_ACTIVE_ALL], ~0U, 0, AK_N * 4);
		memcpy(g->set[COLOR_ACTIVE_OWN], own, sizeof(*own) * MAXC);
		rg_all(g->set[COLOR_ACTIVE_STOP], 1, 0, 4);
	} else {
		memcpy(g->set[COLOR_DONE], own, sizeof(*own) * MAXC);
	}
}

static const struct cpe_step color_steps[] = {
	ALLOC("row", AK_N * 4), ALLOC("col", AK_E * 4), ALLOC("stop", 4),
	ALLOC("color", AK_N * 4), ALLOC("node_value", AK_N * 4), ALLOC("max", AK_N * 4),
	WRITE("color"), WRITE("max"), WRITE("row"), WRITE("col"), WRITE("node_value"),
	LOOP(ARRAY_SIZE(color_uncolored)),
		GEOM(color_round),
		WRITE("stop"),
		KERNEL("color1", COLOR_M, R("row", COLOR_ROWS), R("col", COLOR_EDGES),
		       R("node_value", COLOR_ACTIVE_ALL), R("color", COLOR_ACTIVE_ALL),
		       R("color", COLOR_DONE), RW("max", COLOR_ROWS),
		       RW("stop", COLOR_ACTIVE_STOP)),
		KERNEL("color2", COLOR_M, R("node_value", COLOR_ROWS),
		       RW("color", COLOR_ACTIVE_OWN), R("max", COLOR_ROWS),
		       R("color", COLOR_DONE)),
		READ("stop"),
	LOOP_END,
	READ("color"),
	STEPS_DONE
};

/*
 * Floyd-Warshall (Pannotia, 512_65536.gr, gem5 build: k < MAX_ITERS 192):
 * one 32x32-block launch per k. Thread x is the row, so in index order a
 * chiplet gets a band of columns; dist and next are modeled transposed
 * so the band is one range. Nothing writes column k in iteration k.
 */
#define FW_DIM		512ULL
#define FW_COL		(FW_DIM * 4)

enum { FW_BAND, FW_BEFORE_K, FW_AFTER_K, FW_COL_K };
enum { FW_M = M_OWN };

static void fw_init(struct cpe_gen *g)
{
	g->mask[FW_M] = wg_rg(g->set[FW_BAND], g->n, FW_DIM / 16, 16 * FW_COL, 0,
			      FW_DIM * FW_COL);
}

static void fw_step(struct cpe_gen *g)
{
	struct rg *band = g->set[FW_BAND], *a = g->set[FW_BEFORE_K];
	struct rg *b = g->set[FW_AFTER_K];
	u64 k = g->it[0] + 1;
	unsigned int c;

	for (c = 0; c < MAXC; c++) {
		a[c] = band[c];
		b[c].lo = b[c].hi = 0;
		if (band[c].hi > band[c].lo && band[c].lo <= k * FW_COL &&
		    k * FW_COL < band[c].hi) {
			a[c].hi = k * FW_COL;
			b[c].lo = (k + 1) * FW_COL;
			b[c].hi = band[c].hi;
		}
	}
	rg_all(g->set[FW_COL_K], ~0U, k * FW_COL, (k + 1) * FW_COL);
}

static const struct cpe_step fw_steps[] = {
	GEOM(fw_init),
	ALLOC("dist", FW_DIM * FW_COL), ALLOC("next", FW_DIM * FW_COL),
	WRITE("dist"),
	LOOP(192 - 1),		/* k = 1 .. 191 */
		GEOM(fw_step),
		KERNEL("floydwarshall", FW_M, RW("dist", FW_BEFORE_K),
		       RW("dist", FW_AFTER_K), R("dist", FW_COL_K), RW("next", FW_BAND)),
	LOOP_END,
	READ("dist"),
	STEPS_DONE
};

/*
 * PENNANT (gem5-resources HIP port, noh.pnt: pie mesh 30x100, 10 cycles):
 * gpuMain1..5 per cycle, 64-wide point/side/zone chunks. The ~60 arrays
 * behind __constant__ pointers are grouped, per entity and per kernel
 * that writes them, into arrays of structs (docs/cpelide.md); a chunk of
 * sides touches the points and zones of its rings plus one ring.
 */
#define PN_NZX	30ULL
#define PN_NZ	3000ULL
#define PN_NP	3101ULL
#define PN_NS	11970ULL

/* bytes per point, zone and side of each group */
#define P_STATE	32
#define P_OLD	32
#define P_HALF	16
#define P_ACC	40
#define P_MAP	8
#define Z_STATE	56
#define Z_HALF	96
#define Z_FULL	32
#define S_MAP	32
#define S_HALF	200
#define S_FULL	16

/* In points, sides or zones: own points; points of own sides; own sides;
 * sides around own points; zones of own sides; own zones. */
enum { PN_PTS, PN_SIDE_PTS, PN_SIDES, PN_PT_SIDES, PN_SIDE_ZONES, PN_ZONES };
enum { PN_MP = M_OWN, PN_MS, PN_MZ };

static u64 pn_pts_of_zones(u64 z0, u64 z1, u64 *hi)
{
	*hi = min64(PN_NP, 1 + ((z1 - 1) / PN_NZX + 2) * (PN_NZX + 1));
	return z0 < PN_NZX ? 0 : 1 + (z0 / PN_NZX - 1) * (PN_NZX + 1);
}

static void pennant_geom(struct cpe_gen *g)
{
	struct rg *ps = g->set[PN_PTS], *pz = g->set[PN_SIDE_PTS];
	struct rg *ss = g->set[PN_SIDES], *sp = g->set[PN_PT_SIDES];
	struct rg *sz = g->set[PN_SIDE_ZONES], *zz = g->set[PN_ZONES];
	unsigned int c;
	u64 lo, hi, a, b;

	for (c = 0; c < g->n; c++) {
		if (chunk((PN_NP + 63) / 64, g->n, c, &lo, &hi)) {
			u64 j0, j1;

			g->mask[PN_MP] |= 1U << c;
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
		if (chunk((PN_NS + 63) / 64, g->n, c, &lo, &hi)) {
			g->mask[PN_MS] |= 1U << c;
			ss[c].lo = lo * 64;
			ss[c].hi = min64(hi * 64, PN_NS);
			sz[c].lo = ss[c].lo * PN_NZ / PN_NS;
			sz[c].hi = ss[c].hi * PN_NZ / PN_NS;
			pz[c].lo = pn_pts_of_zones(sz[c].lo, sz[c].hi, &pz[c].hi);
		}
		if (chunk((PN_NZ + 63) / 64, g->n, c, &lo, &hi)) {
			g->mask[PN_MZ] |= 1U << c;
			zz[c].lo = lo * 64;
			zz[c].hi = min64(hi * 64, PN_NZ);
		}
	}
}

static const struct cpe_step pennant_steps[] = {
	GEOM(pennant_geom),
	ALLOC("P_state", PN_NP * P_STATE), ALLOC("P_old", PN_NP * P_OLD),
	ALLOC("P_half", PN_NP * P_HALF), ALLOC("P_acc", PN_NP * P_ACC),
	ALLOC("P_map", PN_NP * P_MAP), ALLOC("Z_state", PN_NZ * Z_STATE),
	ALLOC("Z_half", PN_NZ * Z_HALF), ALLOC("Z_full", PN_NZ * Z_FULL),
	ALLOC("S_map", PN_NS * S_MAP), ALLOC("S_half", PN_NS * S_HALF),
	ALLOC("S_full", PN_NS * S_FULL), ALLOC("dt", 8), ALLOC("dtnext", 16),
	ALLOC("numsbad", 4),
	WRITE("P_state"), WRITE("P_map"), WRITE("Z_state"), WRITE("S_map"),
	WRITE("numsbad"),
	LOOP(10),
		WRITE("dt"),
		KERNEL("gpuMain1", PN_MP, R_UNITS("P_state", PN_PTS, P_STATE),
		       RW_UNITS("P_old", PN_PTS, P_OLD),
		       RW_UNITS("P_half", PN_PTS, P_HALF), R_EVERY("dt", 0, 8)),
		KERNEL("gpuMain2", PN_MS, R_UNITS("S_map", PN_SIDES, S_MAP),
		       R_UNITS("P_half", PN_SIDE_PTS, P_HALF),
		       R_UNITS("P_state", PN_SIDE_PTS, P_STATE),
		       R_UNITS("Z_state", PN_SIDE_ZONES, Z_STATE),
		       RW_UNITS("Z_half", PN_SIDE_ZONES, Z_HALF),
		       RW_UNITS("S_half", PN_SIDES, S_HALF), R_EVERY("dt", 0, 8)),
		READ("numsbad"),
		KERNEL("gpuMain3", PN_MP, R_UNITS("P_map", PN_PTS, P_MAP),
		       R_UNITS("S_map", PN_PT_SIDES, S_MAP),
		       R_UNITS("S_half", PN_PT_SIDES, S_HALF),
		       R_UNITS("P_half", PN_PTS, P_HALF),
		       RW_UNITS("P_old", PN_PTS, P_OLD),
		       RW_UNITS("P_acc", PN_PTS, P_ACC),
		       RW_UNITS("P_state", PN_PTS, P_STATE), R_EVERY("dt", 0, 8)),
		WRITE("dtnext"),
		KERNEL("gpuMain4", PN_MS, R_UNITS("S_map", PN_SIDES, S_MAP),
		       R_UNITS("P_state", PN_SIDE_PTS, P_STATE),
		       R_UNITS("P_old", PN_SIDE_PTS, P_OLD),
		       R_UNITS("P_half", PN_SIDE_PTS, P_HALF),
		       R_UNITS("S_half", PN_SIDES, S_HALF),
		       RW_UNITS("S_full", PN_SIDES, S_FULL),
		       RW_UNITS("Z_full", PN_SIDE_ZONES, Z_FULL),
		       RW_UNITS("Z_state", PN_SIDE_ZONES, Z_STATE)),
		/* dtnext: atomicMin, one chiplet */
		KERNEL("gpuMain5", PN_MZ, RW_UNITS("Z_state", PN_ZONES, Z_STATE),
		       R_UNITS("Z_half", PN_ZONES, Z_HALF),
		       R_UNITS("Z_full", PN_ZONES, Z_FULL),
		       RW_FIRST("dtnext", 0, 16), R_EVERY("dt", 0, 8)),
		READ("numsbad"), READ("dtnext"),
	LOOP_END,
	READ("P_state"), READ("Z_state"),
	STEPS_DONE
};

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
#define LU_EN	(LU_E + 1)
#define LU_NE	(LU_E * LU_E * LU_E)
#define LU_NN	(LU_EN * LU_EN * LU_EN)
#define LU_GE	((LU_NE + 255) / 256)

/* bytes per node or element of each group */
#define LU_X	24
#define LU_NM	8
#define LU_NC	40
#define LU_NL	32
#define LU_NB	32
#define LU_FE	192
#define LU_ES	72
#define LU_EV	56
#define LU_EG	48

/* In elements or nodes: own elements, own nodes, the nodes of own
 * elements, the elements around own nodes, own elements and a plane
 * either side; in bytes: the reductions and the symmetry planes. */
enum { LU_EL, LU_ND, LU_EL_NODES, LU_ND_ELEMS, LU_EL_PLANES, LU_RED, LU_SYM };
enum { LU_ME = M_OWN, LU_MN };

static void lu_xyz(u64 i, u64 w, u64 *x, u64 *y, u64 *z)
{
	*x = i % w;
	*y = i / w % w;
	*z = i / (w * w);
}

static void lulesh_geom(struct cpe_gen *g)
{
	struct rg *el = g->set[LU_EL], *nd = g->set[LU_ND];
	struct rg *ndx = g->set[LU_EL_NODES], *elx = g->set[LU_ND_ELEMS];
	struct rg *elq = g->set[LU_EL_PLANES];
	const u64 E = LU_E, EN = LU_EN;
	unsigned int em, nm, c, n = g->n;
	u64 i;

	em = g->mask[LU_ME] = wg_rg(el, n, LU_GE, 256, 0, LU_NE);
	nm = g->mask[LU_MN] = wg_rg(nd, n, (LU_NN + 255) / 256, 256, 0, LU_NN);
	wg_rg(g->set[LU_RED], n, LU_GE, 8, 0, LU_GE * 8);
	wg_rg(g->set[LU_SYM], n, (EN * EN + 255) / 256, 256 * 12, 0, EN * EN * 12);
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
			elq[c].hi = min64(el[c].hi + E * E, LU_NE);
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
}

static const struct cpe_step lulesh_steps[] = {
	GEOM(lulesh_geom),
	ALLOC("X", LU_NN * LU_X), ALLOC("XD", LU_NN * LU_X), ALLOC("XDD", LU_NN * LU_X),
	ALLOC("F", LU_NN * LU_X), ALLOC("NM", LU_NN * LU_NM), ALLOC("NC", LU_NN * LU_NC),
	ALLOC("symm", LU_EN * LU_EN * 12), ALLOC("NL", LU_NE * LU_NL),
	ALLOC("NB", LU_NE * LU_NB), ALLOC("FES", LU_NE * LU_FE),
	ALLOC("FEH", LU_NE * LU_FE), ALLOC("ES", LU_NE * LU_ES),
	ALLOC("EV", LU_NE * LU_EV), ALLOC("EG", LU_NE * LU_EG),
	ALLOC("redc", LU_GE * 8), ALLOC("redh", LU_GE * 8),
	WRITE("X"), WRITE("XD"), WRITE("NM"), WRITE("NC"), WRITE("symm"),
	WRITE("NL"), WRITE("NB"), WRITE("ES"),
	LOOP(10),
		KERNEL("IntegrateStressForElems", LU_ME, R_UNITS("NL", LU_EL, LU_NL),
		       R_UNITS("X", LU_EL_NODES, LU_X), R_UNITS("ES", LU_EL, LU_ES),
		       RW_UNITS("FES", LU_EL, LU_FE)),
		KERNEL("CalcHourglassControlForElems", LU_ME, R_UNITS("NL", LU_EL, LU_NL),
		       R_UNITS("X", LU_EL_NODES, LU_X), R_UNITS("XD", LU_EL_NODES, LU_X),
		       R_UNITS("ES", LU_EL, LU_ES), RW_UNITS("FEH", LU_EL, LU_FE)),
		KERNEL("AddNodeForcesFromElems", LU_MN, R_UNITS("NC", LU_ND, LU_NC),
		       R_UNITS("FES", LU_ND_ELEMS, LU_FE),
		       R_UNITS("FEH", LU_ND_ELEMS, LU_FE), RW_UNITS("F", LU_ND, LU_X)),
		KERNEL("CalcAccelerationForNodes", LU_MN, R_UNITS("F", LU_ND, LU_X),
		       R_UNITS("NM", LU_ND, LU_NM), RW_UNITS("XDD", LU_ND, LU_X)),
		KERNEL("ApplyAccelerationBoundaryConditions", LU_MN, R("symm", LU_SYM),
		       RW_UNITS("XDD", LU_ND, LU_X)),
		KERNEL("CalcVelocityForNodes", LU_MN, R_UNITS("XDD", LU_ND, LU_X),
		       RW_UNITS("XD", LU_ND, LU_X)),
		KERNEL("CalcPositionForNodes", LU_MN, R_UNITS("XD", LU_ND, LU_X),
		       RW_UNITS("X", LU_ND, LU_X)),
		KERNEL("CalcKinematicsForElems", LU_ME, R_UNITS("NL", LU_EL, LU_NL),
		       R_UNITS("X", LU_EL_NODES, LU_X), R_UNITS("XD", LU_EL_NODES, LU_X),
		       R_UNITS("ES", LU_EL, LU_ES), RW_UNITS("EV", LU_EL, LU_EV)),
		KERNEL("CalcLagrangeElementsPart2", LU_ME, RW_UNITS("EV", LU_EL, LU_EV)),
		KERNEL("CalcMonotonicQGradientsForElems", LU_ME,
		       R_UNITS("NL", LU_EL, LU_NL), R_UNITS("X", LU_EL_NODES, LU_X),
		       R_UNITS("XD", LU_EL_NODES, LU_X), R_UNITS("ES", LU_EL, LU_ES),
		       R_UNITS("EV", LU_EL, LU_EV), RW_UNITS("EG", LU_EL, LU_EG)),
		KERNEL("CalcMonotonicQRegionForElems", LU_ME, R_UNITS("NB", LU_EL, LU_NB),
		       R_UNITS("EG", LU_EL_PLANES, LU_EG), R_UNITS("EV", LU_EL, LU_EV),
		       RW_UNITS("ES", LU_EL, LU_ES)),
		KERNEL("EvalEOSForElems", LU_ME, R_UNITS("EV", LU_EL, LU_EV),
		       RW_UNITS("ES", LU_EL, LU_ES)),
		KERNEL("UpdateVolumesForElems", LU_ME, R_UNITS("EV", LU_EL, LU_EV),
		       RW_UNITS("ES", LU_EL, LU_ES)),
		KERNEL("CalcCourantConstraintForElems", LU_ME, R_UNITS("ES", LU_EL, LU_ES),
		       R_UNITS("EV", LU_EL, LU_EV), RW("redc", LU_RED)),
		READ("redc"),
		KERNEL("CalcHydroConstraintForElems", LU_ME, R_UNITS("EV", LU_EL, LU_EV),
		       RW("redh", LU_RED)),
		READ("redh"),
	LOOP_END,
	READ("X"), READ("ES"),
	STEPS_DONE
};

/*
 * Backprop (Rodinia, 65536 inputs, 16 hidden): one training step is
 * bpnn_layerforward_CUDA and bpnn_adjust_weights_cuda over 4096 blocks of
 * 16x16 (16 input rows each); the host reads the partial sums in between
 * and uploads the deltas, previous weights and the weights again.
 */
#define BP_IN		65536ULL
#define BP_HID		16ULL
#define BP_ROW		((BP_HID + 1) * 4)
#define BP_G		(BP_IN / 16)
#define BP_WEIGHTS	((BP_IN + 1) * BP_ROW)

enum { BP_INPUT, BP_W, BP_PSUM };
enum { BP_M = M_OWN };

static void backprop_geom(struct cpe_gen *g)
{
	struct rg *in = g->set[BP_INPUT], *w = g->set[BP_W];
	unsigned int m, c;

	/* input_units[1 + 16by + ty] */
	m = g->mask[BP_M] = wg_rg(in, g->n, BP_G, 16 * 4, 4, (BP_IN + 1) * 4);
	wg_rg(w, g->n, BP_G, 16 * BP_ROW, BP_ROW, BP_WEIGHTS);
	wg_rg(g->set[BP_PSUM], g->n, BP_G, BP_HID * 4, 0, BP_G * BP_HID * 4);
	for (c = 0; c < g->n; c++) {
		if (!(m >> c & 1))
			continue;
		/* the first block also updates the bias row 0 in adjust */
		if (w[c].lo == BP_ROW)
			w[c].lo = 0;
		if (in[c].lo == 4)
			in[c].lo = 0;
	}
}

static const struct cpe_step backprop_steps[] = {
	GEOM(backprop_geom),
	ALLOC("input", (BP_IN + 1) * 4), ALLOC("weights", BP_WEIGHTS),
	ALLOC("partial_sum", BP_G * BP_HID * 4), ALLOC("delta", (BP_HID + 1) * 4),
	ALLOC("prev_weights", BP_WEIGHTS),
	WRITE("input"), WRITE("weights"),
	KERNEL("bpnn_layerforward", BP_M, R("input", BP_INPUT), RW("weights", BP_W),
	       RW("partial_sum", BP_PSUM)),
	READ("partial_sum"),
	WRITE("delta"), WRITE("prev_weights"), WRITE("weights"),
	KERNEL("bpnn_adjust_weights", BP_M, R_EVERY("delta", 0, (BP_HID + 1) * 4),
	       R("input", BP_INPUT), RW("weights", BP_W), RW("prev_weights", BP_W)),
	READ("input"), READ("weights"),
	STEPS_DONE
};

/*
 * Gaussian (Rodinia, 256x256): per column t Fan1 (one 512-thread block:
 * the multipliers of column t) and Fan2 (a 64x64 grid of 4x4 blocks;
 * thread x is the row, so in index order a chiplet gets a band of 4-column
 * blocks of the trailing matrix). a and m are modeled column-major so a
 * band is one range.
 */
#define GPU_ALLOC_S	256ULL
#define GPU_ALLOC_COL	(GPU_ALLOC_S * 4)

enum { GPU_ALLOC_A, GPU_ALLOC_B, GPU_ALLOC_M_COL, GPU_ALLOC_A_COL };
enum { GPU_ALLOC_M = M_OWN };

static void gaussian_step(struct cpe_gen *g)
{
	struct rg *a = g->set[GPU_ALLOC_A], *b = g->set[GPU_ALLOC_B];
	unsigned int c, m = 0;
	u64 t = g->it[0], lo, hi;

	rg_all(g->set[GPU_ALLOC_M_COL], ~0U, t * GPU_ALLOC_COL + (t + 1) * 4, (t + 1) * GPU_ALLOC_COL);
	rg_all(g->set[GPU_ALLOC_A_COL], ~0U, t * GPU_ALLOC_COL + t * 4, (t + 1) * GPU_ALLOC_COL);
	rg_clear(a);
	rg_clear(b);
	for (c = 0; c < g->n; c++) {
		u64 c0, c1;

		if (!chunk(GPU_ALLOC_S / 4, g->n, c, &lo, &hi))
			continue;
		c0 = t + 4 * lo;
		c1 = min64(t + 4 * hi, GPU_ALLOC_S);
		if (c0 >= c1)
			continue;
		m |= 1U << c;
		/* rows t (read) to S-1 of columns c0..c1-1 */
		a[c].lo = c0 * GPU_ALLOC_COL + t * 4;
		a[c].hi = (c1 - 1) * GPU_ALLOC_COL + GPU_ALLOC_COL;
		if (!lo) {
			b[c].lo = t * 4;
			b[c].hi = GPU_ALLOC_S * 4;
		}
	}
	g->mask[GPU_ALLOC_M] = m;
}

static const struct cpe_step gaussian_steps[] = {
	ALLOC("a", GPU_ALLOC_S * GPU_ALLOC_COL), ALLOC("m", GPU_ALLOC_S * GPU_ALLOC_COL), ALLOC("b", GPU_ALLOC_S * 4),
	WRITE("a"), WRITE("b"), WRITE("m"),
	LOOP(GPU_ALLOC_S - 1),
		GEOM(gaussian_step),
		KERNEL("Fan1", M_CHIPLET0, RW("m", GPU_ALLOC_M_COL), R("a", GPU_ALLOC_A_COL)),
		KERNEL("Fan2", GPU_ALLOC_M, RW("a", GPU_ALLOC_A), R("m", GPU_ALLOC_M_COL), RW("b", GPU_ALLOC_B)),
	LOOP_END,
	READ("a"), READ("b"), READ("m"),
	STEPS_DONE
};

/*
 * HACC (CORAL-2 ForceTreeTest "0.5 0.1 512 0.1 2 N 12 rcb"): 2 trials of
 * a 513-particle sphere, an RCB tree with leaves of at most 12 (64 leaves
 * of 8), one Step10_cuda_kernel per leaf on its interaction list (all 513
 * particles: the 0.1 opening angle opens every node). The host uploads
 * the list and the leaf and reads the leaf's velocities back around each.
 */
#define HACC_CNT	8ULL		/* particles in a leaf */
#define HACC_CNT1	513ULL		/* particles in its interaction list */
#define HACC_VMAX	16384ULL

enum { HACC_LIST, HACC_LEAF, HACC_LEAFV };
enum { HACC_M = M_OWN };

static void hacc_geom(struct cpe_gen *g)
{
	const u64 BX = (HACC_CNT1 + 31) / 32, BY = (HACC_CNT + 3) / 4;
	struct rg *il = g->set[HACC_LIST], *lf = g->set[HACC_LEAF];
	unsigned int m = 0, c, writer = MAXC;
	u64 lo, hi, w;

	for (c = 0; c < g->n; c++) {
		u64 b0 = ~0ULL, b1 = 0;

		if (!chunk(BX * BY, g->n, c, &lo, &hi))
			continue;
		for (w = lo; w < hi; w++) {
			u64 bx = w % BX, by = w / BX;

			/* a block works if its x tiles (4 particles) and its y
			 * tiles fall inside the counts */
			if (by * 4 >= HACC_CNT / 4 || bx * 32 >= HACC_CNT1 / 4)
				continue;
			b0 = min64(b0, bx);
			b1 = max64(b1, bx + 1);
		}
		if (b1 <= b0)
			continue;
		m |= 1U << c;
		il[c].lo = b0 * 128 * 16;
		il[c].hi = (b0 ? min64(b1 * 128, HACC_CNT1) : HACC_CNT1) * 16;
		lf[c].lo = 0;
		lf[c].hi = HACC_CNT * 16;
		if (writer == MAXC)
			writer = c;	/* atomics: one chiplet owns the leaf */
	}
	if (writer < MAXC) {
		g->set[HACC_LEAFV][writer].lo = 0;
		g->set[HACC_LEAFV][writer].hi = HACC_CNT * 12;
	}
	g->mask[HACC_M] = m;
}

static const struct cpe_step hacc_steps[] = {
	GEOM(hacc_geom),
	ALLOC("ilist", HACC_VMAX * 16), ALLOC("leaf", 12 * 16), ALLOC("leafv", 12 * 12),
	LOOP(2),		/* trials */
		LOOP(64),	/* leaves */
			WRITE_RANGE("ilist", 0, HACC_CNT1 * 16),
			WRITE_RANGE("leaf", 0, HACC_CNT * 16),
			WRITE_RANGE("leafv", 0, HACC_CNT * 12),
			KERNEL("Step10_cuda_kernel", HACC_M, R("leaf", HACC_LEAF),
			       R("ilist", HACC_LIST), RW("leafv", HACC_LEAFV)),
			READ_RANGE("leafv", 0, HACC_CNT * 12),
		LOOP_END,
	LOOP_END,
	STEPS_DONE
};

/* ---- low inter-kernel reuse ------------------------------------------ */

/*
 * B+tree (Rodinia, mil.txt, command.txt "j 6000 3000" then "k 10000"):
 * findRangeK then findK, one 256-thread block per query walking the tree
 * (order 256, about 5716 knodes of 2068 B, height 3). knodes and records
 * are reached by pointer chasing: unknown ranges, the paper's fallback.
 */
#define BT_KN		5716ULL		/* knodes */
#define BT_KB		2068ULL		/* bytes per knode */
#define BT_REC		1000000ULL
#define BT_HEIGHT	3ULL
#define BT_QJ		6000ULL
#define BT_QK		10000ULL
#define BT_KNL		((BT_KN * BT_KB + 63) / 64)
#define BT_KNODE_LINES	((BT_KB + 63) / 64)
#define ROUND_DIV(a, b)	(((a) + (b) / 2) / (b))

/* passes: knode lines each query's walks read / lines declared */
#define BT_J_PASSES	ROUND_DIV(BT_QJ * BT_HEIGHT * 2 * BT_KNODE_LINES, \
				  BT_KNL + BT_QJ * (8 * 5 + 4 * 2) / 64)
#define BT_K_PASSES	ROUND_DIV(BT_QK * (BT_HEIGHT * BT_KNODE_LINES + 1), \
				  BT_KNL + BT_REC * 4 / 64 + BT_QK * (8 * 2 + 4 * 2) / 64)

enum { BT_J8, BT_J4, BT_K8, BT_K4 };	/* 8- and 4-byte values per query */
enum { BT_MJ = M_OWN, BT_MK };

static void btree_geom(struct cpe_gen *g)
{
	g->mask[BT_MJ] = wg_rg(g->set[BT_J8], g->n, BT_QJ, 8, 0, BT_QJ * 8);
	wg_rg(g->set[BT_J4], g->n, BT_QJ, 4, 0, BT_QJ * 4);
	g->mask[BT_MK] = wg_rg(g->set[BT_K8], g->n, BT_QK, 8, 0, BT_QK * 8);
	wg_rg(g->set[BT_K4], g->n, BT_QK, 4, 0, BT_QK * 4);
}

static const struct cpe_step btree_steps[] = {
	GEOM(btree_geom),
	ALLOC("knodes", BT_KN * BT_KB), ALLOC("records", BT_REC * 4),
	ALLOC("j_currKnode", BT_QJ * 8), ALLOC("j_offset", BT_QJ * 8),
	ALLOC("j_lastKnode", BT_QJ * 8), ALLOC("j_offset_2", BT_QJ * 8),
	ALLOC("j_startend", BT_QJ * 8), ALLOC("j_recstart", BT_QJ * 4),
	ALLOC("j_reclength", BT_QJ * 4), ALLOC("k_currKnode", BT_QK * 8),
	ALLOC("k_offset", BT_QK * 8), ALLOC("k_keys", BT_QK * 4),
	ALLOC("k_ans", BT_QK * 4),
	WRITE("knodes"), WRITE("j_currKnode"), WRITE("j_offset"),
	WRITE("j_lastKnode"), WRITE("j_offset_2"), WRITE("j_startend"),
	KERNEL_PASSES("findRangeK", BT_MJ, BT_J_PASSES, R_UNKNOWN("knodes"),
		      RW("j_currKnode", BT_J8), RW("j_offset", BT_J8),
		      RW("j_lastKnode", BT_J8), RW("j_offset_2", BT_J8),
		      R("j_startend", BT_J8), RW("j_recstart", BT_J4),
		      RW("j_reclength", BT_J4)),
	READ("j_recstart"), READ("j_reclength"),
	/* findK's wrapper allocates and uploads the tree again */
	WRITE("knodes"), WRITE("records"), WRITE("k_currKnode"), WRITE("k_offset"),
	WRITE("k_keys"),
	KERNEL_PASSES("findK", BT_MK, BT_K_PASSES, R_UNKNOWN("records"),
		      R_UNKNOWN("knodes"), RW("k_currKnode", BT_K8),
		      RW("k_offset", BT_K8), R("k_keys", BT_K4), RW("k_ans", BT_K4)),
	READ("k_ans"),
	STEPS_DONE
};

/*
 * CNN (DNNMark composed model conv -> pool -> fc, 128x128x3, batch 4):
 * conv 32 5x5 filters pad 2, max pool 3x3 stride 2 (63x63), fc to 32;
 * one forward and backward iteration. Elementwise-style kernels use
 * 256-output blocks; GEMMs 64-row tiles; the fc forward GEMM (32x4 output)
 * is one tile, so one block on chiplet 0.
 */
#define CNN_NI	4ULL		/* images */
#define CNN_HW	128ULL
#define CNN_K	32ULL		/* filters */
#define CNN_P	63ULL		/* pooled rows and columns */
#define CNN_XI	(3 * CNN_HW * CNN_HW)		/* elements per image */
#define CNN_Y1I	(CNN_K * CNN_HW * CNN_HW)
#define CNN_Y2I	(CNN_K * CNN_P * CNN_P)
#define CNN_KF	CNN_Y2I			/* fc features */
#define CNN_OUT	32ULL
#define CNN_CRS	(3 * 25ULL)

enum { CNN_CONV_OUT, CNN_CONV_IN, CNN_POOL_OUT, CNN_POOL_IN, CNN_FC_ROWS,
       CNN_FC_IMG0, CNN_POOLB_OUT = CNN_FC_IMG0 + CNN_NI, CNN_POOLB_IN,
       CNN_POOLB_IDX, CNN_CONVB_OUT, CNN_CONVB_IN, CNN_CONVW_ROWS };
enum { CNN_M_CONV = M_OWN, CNN_M_POOL, CNN_M_FC, CNN_M_POOLB, CNN_M_CONVB,
       CNN_M_CONVW };

static void cnn_geom(struct cpe_gen *g)
{
	const u64 HW = CNN_HW, P = CNN_P, Y1I = CNN_Y1I, Y2I = CNN_Y2I, XI = CNN_XI;
	struct rg *o, *in, *r2, *wr;
	unsigned int m, c, i, n = g->n;
	u64 lo, hi;

	/* conv forward: outputs in blocks of 256; each needs its whole image */
	o = g->set[CNN_CONV_OUT];
	in = g->set[CNN_CONV_IN];
	m = g->mask[CNN_M_CONV] = wg_rg(o, n, CNN_NI * Y1I / 256, 256 * 4, 0,
					CNN_NI * Y1I * 4);
	for (c = 0; c < n; c++) {
		if (!(m >> c & 1))
			continue;
		in[c].lo = o[c].lo / 4 / Y1I * XI * 4;
		in[c].hi = ((o[c].hi / 4 - 1) / Y1I + 1) * XI * 4;
	}

	/* pool forward (in elements): pooled rows py read conv rows 2py..2py+2 */
	o = g->set[CNN_POOL_OUT];
	r2 = g->set[CNN_POOL_IN];
	m = g->mask[CNN_M_POOL] = wg_rg(o, n, (CNN_NI * Y2I + 255) / 256, 256, 0,
					CNN_NI * Y2I);
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

	/* fc backward data and weights: 64-row tiles along the features */
	wr = g->set[CNN_FC_ROWS];
	m = g->mask[CNN_M_FC] = wg_rg(wr, n, (CNN_KF + 63) / 64, 64 * CNN_OUT * 4, 0,
				      CNN_KF * CNN_OUT * 4);
	for (i = 0; i < CNN_NI; i++) {
		struct rg *per = g->set[CNN_FC_IMG0 + i];

		for (c = 0; c < n; c++) {
			if (!(m >> c & 1))
				continue;
			per[c].lo = (i * CNN_KF + wr[c].lo / (CNN_OUT * 4)) * 4;
			per[c].hi = (i * CNN_KF + wr[c].hi / (CNN_OUT * 4)) * 4;
		}
	}

	/* pool backward: conv-output rows y gather pooled rows (y-2)/2..y/2 */
	o = g->set[CNN_POOLB_OUT];
	r2 = g->set[CNN_POOLB_IN];
	in = g->set[CNN_POOLB_IDX];
	m = g->mask[CNN_M_POOLB] = wg_rg(o, n, CNN_NI * Y1I / 256, 256 * 4, 0,
					 CNN_NI * Y1I * 4);
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
		in[c].hi = min64((hi + 3) / 4 * 4, CNN_NI * Y2I);
	}

	/* conv backward data: each input block needs its image's 32 planes */
	o = g->set[CNN_CONVB_OUT];
	in = g->set[CNN_CONVB_IN];
	m = g->mask[CNN_M_CONVB] = wg_rg(o, n, (CNN_NI * XI + 255) / 256, 256 * 4, 0,
					 CNN_NI * XI * 4);
	for (c = 0; c < n; c++) {
		if (!(m >> c & 1))
			continue;
		in[c].lo = o[c].lo / 4 / XI * Y1I * 4;
		in[c].hi = ((o[c].hi / 4 - 1) / XI + 1) * Y1I * 4;
	}

	/* conv backward weights: dWc (75 x 32) in two 64-row tiles */
	g->mask[CNN_M_CONVW] = wg_rg(g->set[CNN_CONVW_ROWS], n, (CNN_CRS + 63) / 64,
				     64 * CNN_K * 4, 0, CNN_CRS * CNN_K * 4);
}

static const struct cpe_step cnn_steps[] = {
	GEOM(cnn_geom),
	ALLOC("X", CNN_NI * CNN_XI * 4), ALLOC("Wc", CNN_K * CNN_CRS * 4),
	ALLOC("Y1", CNN_NI * CNN_Y1I * 4), ALLOC("Y2", CNN_NI * CNN_Y2I * 4),
	ALLOC("Pidx", CNN_NI * CNN_Y2I), ALLOC("Wf", CNN_KF * CNN_OUT * 4),
	ALLOC("Y3", CNN_NI * CNN_OUT * 4), ALLOC("dY3", CNN_NI * CNN_OUT * 4),
	ALLOC("dWf", CNN_KF * CNN_OUT * 4), ALLOC("dY2", CNN_NI * CNN_Y2I * 4),
	ALLOC("dY1", CNN_NI * CNN_Y1I * 4), ALLOC("dX", CNN_NI * CNN_XI * 4),
	ALLOC("dWc", CNN_CRS * CNN_K * 4),
	WRITE("X"), WRITE("Wc"), WRITE("Wf"), WRITE("dY3"),
	KERNEL("conv_fwd", CNN_M_CONV, R("X", CNN_CONV_IN),
	       R_EVERY("Wc", 0, CNN_K * CNN_CRS * 4), RW("Y1", CNN_CONV_OUT)),
	KERNEL("pool_fwd", CNN_M_POOL, R("Y1", CNN_POOL_IN),
	       RW_UNITS("Y2", CNN_POOL_OUT, 4), RW("Pidx", CNN_POOL_OUT)),
	/* Y3 (32 x 4) = Wf' Y2, one tile */
	KERNEL("fc_fwd", M_CHIPLET0, R_EVERY("Wf", 0, CNN_KF * CNN_OUT * 4),
	       R_EVERY("Y2", 0, CNN_NI * CNN_Y2I * 4),
	       RW_EVERY("Y3", 0, CNN_NI * CNN_OUT * 4)),
	KERNEL("fc_bwd_data", CNN_M_FC, R_EVERY("dY3", 0, CNN_NI * CNN_OUT * 4),
	       R("Wf", CNN_FC_ROWS), RW("dY2", CNN_FC_IMG0),
	       RW("dY2", CNN_FC_IMG0 + 1), RW("dY2", CNN_FC_IMG0 + 2),
	       RW("dY2", CNN_FC_IMG0 + 3)),
	KERNEL("fc_bwd_weights", CNN_M_FC, R_EVERY("dY3", 0, CNN_NI * CNN_OUT * 4),
	       R("Y2", CNN_FC_IMG0), R("Y2", CNN_FC_IMG0 + 1),
	       R("Y2", CNN_FC_IMG0 + 2), R("Y2", CNN_FC_IMG0 + 3),
	       RW("dWf", CNN_FC_ROWS)),
	KERNEL("pool_bwd", CNN_M_POOLB, R("dY2", CNN_POOLB_IN),
	       R("Pidx", CNN_POOLB_IDX), RW("dY1", CNN_POOLB_OUT)),
	KERNEL("conv_bwd_data", CNN_M_CONVB, R("dY1", CNN_CONVB_IN),
	       R_EVERY("Wc", 0, CNN_K * CNN_CRS * 4), RW("dX", CNN_CONVB_OUT)),
	KERNEL("conv_bwd_weights", CNN_M_CONVW, R_EVERY("X", 0, CNN_NI * CNN_XI * 4),
	       R_EVERY("dY1", 0, CNN_NI * CNN_Y1I * 4), RW("dWc", CNN_CONVW_ROWS)),
	READ("Y3"), READ("dWf"), READ("dWc"), READ("dX"),
	STEPS_DONE
};

/*
 * DWT2D (Rodinia, forward 5/3 on ints, 3 levels) on a 1024x1024 RGB image
 * (4096x4096 needs ~500 MB): c_CopySrcToComponents, then per component a
 * device-to-device backup copy and per level fdwt53 (column strips x row
 * groups of 8*steps rows, steps = ceil(sy / 120)), which writes the four
 * subbands LL, HL, LH, HH one after another, and between levels memCopy
 * of the LL band (the band block at the start of out) back into in; the
 * next level's four bands then replace that LL band.
 */
#define DWT_S		1024ULL
#define DWT_PX		(DWT_S * DWT_S)
#define DWT_LEVELS	3

enum { DWT_SRC, DWT_COMP, DWT_BACKUP, DWT_IN, DWT_BAND0, DWT_LL = DWT_BAND0 + 4 };
enum { DWT_M_SRC = M_OWN, DWT_M_BACKUP, DWT_M_LEVEL, DWT_M_LL };

static void dwt2d_init(struct cpe_gen *g)
{
	g->mask[DWT_M_SRC] = wg_rg(g->set[DWT_SRC], g->n, DWT_PX / 256, 256 * 3, 0,
				   DWT_PX * 3);
	wg_rg(g->set[DWT_COMP], g->n, DWT_PX / 256, 256 * 4, 0, DWT_PX * 4);
	g->mask[DWT_M_BACKUP] = wg_rg(g->set[DWT_BACKUP], g->n, DWT_PX * 4 / 64, 64,
				      0, DWT_PX * 4);
}

static void dwt2d_level(struct cpe_gen *g)
{
	const u64 l = g->it[1], sx = DWT_S >> l, sy = DWT_S >> l, rb = sx * 4;
	const u64 steps = (sy + 119) / 120, grp = 8 * steps;
	const u64 G = (sy + grp - 1) / grp, bb = sx / 2 * 4, bsz = sy / 2 * bb;
	struct rg *in = g->set[DWT_IN];
	unsigned int m = 0, c, b, n = g->n;
	u64 lo, hi;

	rg_clear(in);
	for (b = 0; b < 4; b++)
		rg_clear(g->set[DWT_BAND0 + b]);
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
			g->set[DWT_BAND0 + b][c].lo = b * bsz + r0 / 2 * bb;
			g->set[DWT_BAND0 + b][c].hi = b * bsz + r1 / 2 * bb;
		}
	}
	g->mask[DWT_M_LEVEL] = m;
	/* no LL copy after the last level */
	g->mask[DWT_M_LL] = l + 1 == DWT_LEVELS ? 0 :
		wg_rg(g->set[DWT_LL], n, bsz / 64, 64, 0, bsz);
}

static const struct cpe_step dwt2d_steps[] = {
	GEOM(dwt2d_init),
	ALLOC("src", DWT_PX * 3),
	ALLOC("c_r", DWT_PX * 4), ALLOC("c_r_out", DWT_PX * 4),
	ALLOC("c_g", DWT_PX * 4), ALLOC("c_g_out", DWT_PX * 4),
	ALLOC("c_b", DWT_PX * 4), ALLOC("c_b_out", DWT_PX * 4),
	ALLOC("backup", DWT_PX * 4),
	WRITE("src"),
	KERNEL("c_CopySrcToComponents", DWT_M_SRC, R("src", DWT_SRC),
	       RW("c_r", DWT_COMP), RW("c_g", DWT_COMP), RW("c_b", DWT_COMP)),
	LOOP(3),		/* components */
		KERNEL("copy_backup", DWT_M_BACKUP, R("c_r|c_g|c_b", DWT_BACKUP),
		       RW("backup", DWT_BACKUP)),
		LOOP(DWT_LEVELS),
			GEOM(dwt2d_level),
			KERNEL("fdwt53", DWT_M_LEVEL, R("c_r|c_g|c_b", DWT_IN),
			       RW("c_r_out|c_g_out|c_b_out", DWT_BAND0),
			       RW("c_r_out|c_g_out|c_b_out", DWT_BAND0 + 1),
			       RW("c_r_out|c_g_out|c_b_out", DWT_BAND0 + 2),
			       RW("c_r_out|c_g_out|c_b_out", DWT_BAND0 + 3)),
			KERNEL("memCopy_ll", DWT_M_LL, R("c_r_out|c_g_out|c_b_out", DWT_LL),
			       RW("c_r|c_g|c_b", DWT_LL)),
		LOOP_END,
	LOOP_END,
	READ("c_r_out"), READ("c_g_out"), READ("c_b_out"),
	STEPS_DONE
};

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
#define NW_COLS	(NW_NB * 16 + 1)

enum { NW_OWN, NW_HALO, NW_CORNER, NW_TOP, NW_LEFT };
enum { NW_M = M_OWN };

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

/* Diagonal d of `blocks` blocks, the first in tile column coff. */
static void nw_diag(struct cpe_gen *g, u64 d, u64 blocks, u64 coff)
{
	unsigned int m = 0, c, s;
	u64 lo, hi;

	for (s = NW_OWN; s <= NW_LEFT; s++)
		rg_clear(g->set[s]);
	for (c = 0; c < g->n; c++) {
		long long c0, c1;

		if (!chunk(blocks, g->n, c, &lo, &hi))
			continue;
		m |= 1U << c;
		c0 = (long long)(coff + lo);
		c1 = (long long)(coff + hi - 1);
		g->set[NW_OWN][c] = nw_tiles(d, c0, c1);
		if (d >= 1)
			g->set[NW_HALO][c] = nw_tiles(d - 1, c0 - 1, c1);
		if (d >= 2)
			g->set[NW_CORNER][c] = nw_tiles(d - 2, c0 - 1, c1 - 1);
		/* row 0 above the tile with R = 0 (C = d), column 0 left of C = 0 */
		if (d < NW_NB && (long long)d >= c0 && (long long)d <= c1) {
			g->set[NW_TOP][c].lo = 16 * d * 4;
			g->set[NW_TOP][c].hi = (16 * d + 17) * 4;
		}
		if (c0 == 0) {
			g->set[NW_LEFT][c].lo = (NW_COLS + 16 * d) * 4;
			g->set[NW_LEFT][c].hi = (NW_COLS + 16 * d + 17) * 4;
		}
	}
	g->mask[NW_M] = m;
}

/* Diagonals of 1 .. NB blocks, then of NB - 1 .. 1. */
static void nw_upper(struct cpe_gen *g)
{
	nw_diag(g, g->it[0], g->it[0] + 1, 0);
}

static void nw_lower(struct cpe_gen *g)
{
	const u64 blocks = NW_NB - 1 - g->it[0];

	nw_diag(g, 2 * NW_NB - 1 - blocks, blocks, NW_NB - blocks);
}

#define NW_ARGS \
	R("reference", NW_OWN), R("itemsets", NW_HALO), R("itemsets", NW_CORNER), \
	R("border", NW_TOP), R("border", NW_LEFT), RW("itemsets", NW_OWN)

static const struct cpe_step nw_steps[] = {
	ALLOC("reference", NW_NB * NW_NB * NW_TILE),
	ALLOC("itemsets", NW_NB * NW_NB * NW_TILE),
	ALLOC("border", 2 * NW_COLS * 4),
	WRITE("reference"), WRITE("itemsets"), WRITE("border"),
	LOOP(NW_NB),		/* diagonals of 1 .. 128 blocks */
		GEOM(nw_upper),
		KERNEL("needle_cuda_shared_1", NW_M, NW_ARGS),
	LOOP_END,
	LOOP(NW_NB - 1),	/* diagonals of 127 .. 1 blocks */
		GEOM(nw_lower),
		KERNEL("needle_cuda_shared_2", NW_M, NW_ARGS),
	LOOP_END,
	READ("itemsets"),
	STEPS_DONE
};

/*
 * Pathfinder (Rodinia, 256-thread blocks, HALO 1; 100 rows, pyramid 20)
 * on 100000 columns (200000 needs 80 MB): dynproc_kernel for t = 0, 20,
 * 40, 60, 80, each reading a 20-row slab of gpuWall and gpuResult[src]
 * with 20 columns of halo per side and writing gpuResult[dst]. The wall
 * is modeled slab by slab, column-major within a slab, so a chiplet's
 * columns of a slab are one range.
 */
#define PF_COLS		100000ULL
#define PF_ROWS		100ULL
#define PF_PH		20ULL
#define PF_ADVANCE	(256 - 2 * PF_PH)

enum { PF_WALL, PF_SRC, PF_DST };
enum { PF_M = M_OWN };

static void pathfinder_step(struct cpe_gen *g)
{
	const u64 G = (PF_COLS + PF_ADVANCE - 1) / PF_ADVANCE, t = g->it[0] * PF_PH;
	const u64 rows = min64(PF_PH, PF_ROWS - 1 - t), base = t * PF_COLS * 4;
	unsigned int m = 0, c;
	u64 lo, hi;

	rg_clear(g->set[PF_WALL]);
	rg_clear(g->set[PF_SRC]);
	rg_clear(g->set[PF_DST]);
	for (c = 0; c < g->n; c++) {
		u64 c0, c1;

		if (!chunk(G, g->n, c, &lo, &hi))
			continue;
		m |= 1U << c;
		c0 = sub0(lo * PF_ADVANCE, PF_PH);
		c1 = min64(hi * PF_ADVANCE + PF_PH, PF_COLS);
		g->set[PF_WALL][c].lo = base + c0 * rows * 4;
		g->set[PF_WALL][c].hi = base + c1 * rows * 4;
		g->set[PF_SRC][c].lo = c0 * 4;
		g->set[PF_SRC][c].hi = c1 * 4;
		g->set[PF_DST][c].lo = lo * PF_ADVANCE * 4;
		g->set[PF_DST][c].hi = min64(hi * PF_ADVANCE, PF_COLS) * 4;
	}
	g->mask[PF_M] = m;
}

static const struct cpe_step pathfinder_steps[] = {
	ALLOC("wall", (PF_ROWS - 1) * PF_COLS * 4),
	ALLOC("result0", PF_COLS * 4), ALLOC("result1", PF_COLS * 4),
	WRITE("wall"), WRITE("result0"),
	LOOP((PF_ROWS - 1 + PF_PH - 1) / PF_PH),	/* t = 0, 20, .. 80 */
		GEOM(pathfinder_step),
		KERNEL("dynproc_kernel", PF_M, R("wall", PF_WALL),
		       R("result0|result1", PF_SRC), RW("result1|result0", PF_DST)),
	LOOP_END,
	READ("result1"),
	STEPS_DONE
};

/*
 * SRAD_v2 (Rodinia, 2 iterations, lambda 0.5, ROI 0..127) on 1024x1024
 * (2048x2048 needs 96 MB): per iteration the host uploads J, srad_cuda_1
 * (derivatives and diffusion coefficient, 16x16 blocks reading one row of
 * halo) and srad_cuda_2 (divergence, reading c of the row below), then
 * the host reads J back for the next ROI statistics.
 */
#define SR_S		1024ULL
#define SR_ROW_BYTES	(SR_S * 4)

enum { SR_OWN, SR_HALO, SR_SOUTH };
enum { SR_M = M_OWN };

static void srad_v2_geom(struct cpe_gen *g)
{
	unsigned int c;

	g->mask[SR_M] = row_bands(g, SR_OWN, SR_HALO, SR_S / 16, 16, SR_S,
				  SR_ROW_BYTES, 1);
	for (c = 0; c < MAXC; c++) {
		g->set[SR_SOUTH][c].lo = g->set[SR_OWN][c].lo;
		g->set[SR_SOUTH][c].hi = g->set[SR_HALO][c].hi;
	}
}

static const struct cpe_step srad_v2_steps[] = {
	GEOM(srad_v2_geom),
	ALLOC("J", SR_S * SR_ROW_BYTES), ALLOC("c", SR_S * SR_ROW_BYTES),
	ALLOC("dN", SR_S * SR_ROW_BYTES), ALLOC("dS", SR_S * SR_ROW_BYTES),
	ALLOC("dW", SR_S * SR_ROW_BYTES), ALLOC("dE", SR_S * SR_ROW_BYTES),
	LOOP(2),
		WRITE("J"),
		KERNEL("srad_cuda_1", SR_M, R("J", SR_HALO), RW("c", SR_OWN),
		       RW("dN", SR_OWN), RW("dS", SR_OWN), RW("dW", SR_OWN),
		       RW("dE", SR_OWN)),
		KERNEL("srad_cuda_2", SR_M, R("c", SR_SOUTH), R("dN", SR_OWN),
		       R("dS", SR_OWN), R("dW", SR_OWN), R("dE", SR_OWN),
		       RW("J", SR_OWN)),
		READ("J"),
	LOOP_END,
	STEPS_DONE
};

/* In the paper's order: moderate-high reuse, then low reuse (Table II). */
const struct cpe_app cpe_apps[] = {
#define APP(n, low) { #n, low, n##_steps, { 0 }, 0 }
#define RNN(n, cell, ...) { #n, false, rnn_##cell##_steps, { __VA_ARGS__ }, 0 }
	APP(babelstream, false), APP(square, false), APP(hotspot, false),
	APP(hotspot3d, false), APP(lud, false),
	/* gates per unit, hidden units, batch, timesteps */
	RNN(rnn_gru_small, gru, 3, 256, 4, 2), RNN(rnn_gru_large, gru, 3, 512, 16, 4),
	RNN(rnn_lstm_small, lstm, 4, 256, 4, 2), RNN(rnn_lstm_large, lstm, 4, 512, 16, 4),
	{ "bfs", false, bfs_steps, { 0 }, sizeof(struct bfs_state) },
	APP(sssp, false), APP(color, false), APP(fw, false), APP(pennant, false),
	APP(lulesh, false), APP(backprop, false), APP(gaussian, false),
	APP(hacc, false),
	APP(btree, true), APP(cnn, true), APP(dwt2d, true), APP(nw, true),
	APP(pathfinder, true), APP(srad_v2, true),
#undef APP
#undef RNN
};

const size_t cpe_napps = ARRAY_SIZE(cpe_apps);
