// SPDX-License-Identifier: GPL-2.0
/*
 * rnn-gru and rnn-lstm (CPElide's Table II): DeepBench's inference RNNs,
 * one layer of hidden units H over TS time steps of a batch of BS, the
 * input as wide as the layer (DeepBench's rnn_bench gives both size H).
 * The cell is cuDNN's/MIOpen's: G gates (GRU r, z, n: G = 3; LSTM i, f,
 * g, o: G = 4), input weights W and recurrent weights R (G H x H each,
 * row-major) with a bias each (bW, bR), shared by every step. Each step
 * t the host launches
 *  - rnn_gemm_input: gx = W x_t (G H x BS),
 *  - rnn_gemm_recurrent: gh = R h_{t-1} (h_{-1} = hx),
 *  - gru_elementwise / lstm_elementwise: a thread a (unit, sample)
 *    applies the gate functions to gx + bW and gh + bR and writes h_t
 *    into y[t] (the next step's recurrent GEMM reads it: the producer-
 *    consumer reuse the paper names) and, for LSTM, c in place.
 *      GRU: r = s(x_r + h_r), z = s(x_z + h_z),
 *           n = tanh(x_n + r (h_n)), h' = (1 - z) n + z h;
 *      LSTM: i, f, o = s(.), g = tanh(.), c' = f c + i g,
 *           h' = o tanh(c'),
 *    where x_g and h_g include their biases.
 * Activations are stored unit-major (H x BS, row-major), so both GEMMs
 * are C (M x BS) = A (M x K) B (K x BS), run as a GPU BLAS runs a
 * skinny GEMM: blocks of 256 threads a BS-wide tile of 256 / BS rows,
 * one output a thread, K in steps of 16 through shared memory (the A
 * tile and the B tile loaded, SYNC, 16 FFMAs on tile values read 4 at a
 * time, SYNC).
 *
 * Ours, where DeepBench and the paper are silent: size = H selects Table
 * II's configuration, H <= 256 taking BS 4, TS 2 and larger H BS 16,
 * TS 4 (so 256 and 512 are the paper's two, and the small 64 is a
 * scaled-down first one); both GEMMs run every step, so W and R are
 * reread every third kernel (cuDNN batches the input GEMM over all steps
 * into one launch). DeepBench fills tensors with uniform [0, 1), which
 * saturates every gate; we draw weights and biases uniform in +-1 /
 * sqrt(H) (the usual initialisation) and x, hx, cx in [-1, 1), so a
 * wrong GEMM shows in the result. The kernel and the reference
 * compute every value with the same C expressions (expf, tanhf) in the
 * same order, so they agree bit for bit on x86-64 (checked within
 * APP_FLOAT_TOLERANCE). The OPS are the fast-math forms a GPU runs:
 * sigmoid FP 2, SFU 2 (scale, ex2, add, rcp), tanh FP 3, SFU 2 (as
 * 2 s(2x) - 1).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "app_util.h"
#include "apps.h"

#define RNN_THREADS	256	/* a GEMM or elementwise block */
#define RNN_TK		16	/* the GEMM's K step */
#define RNN_MIN		64
#define RNN_MAX		2048
#define RNN_MAX_GATES	4

struct rnn_gemm_args {
	uint64_t a, b, c;
	uint32_t m, n, k;
};

struct rnn_cell_args {
	uint64_t gx, gh, bw, br, hprev, hout, c;
	uint32_t h, n;
};

static float rnn_sigmoid(float x)
{
	return 1.0f / (1.0f + expf(-x));
}

/*
 * GRU: x, h the G = 3 gate inputs from W x and R h, bias included
 * except for bR's n gate, which r scales with R h.
 */
static float rnn_gru_cell(const float *x, const float *h, float hbn,
			  float hprev)
{
	float r = rnn_sigmoid(x[0] + h[0]);
	float z = rnn_sigmoid(x[1] + h[1]);
	float n = tanhf(x[2] + r * (h[2] + hbn));

	return (1.0f - z) * n + z * hprev;
}

/* LSTM: the gates' sums (biases included); updates *c, returns h'. */
static float rnn_lstm_cell(const float *g, float *c)
{
	float i = rnn_sigmoid(g[0]);
	float f = rnn_sigmoid(g[1]);
	float cand = tanhf(g[2]);
	float o = rnn_sigmoid(g[3]);

	*c = f * *c + i * cand;
	return o * tanhf(*c);
}

/* Four floats in one 16-byte shared load (LDS.128). */
struct rnn_f4 {
	float v[4];
};

/*
 * Shared: the A tile (tm x 16, row-major) and the B tile transposed (n x
 * 16), tm = 256 / n, so a thread reads 4 k of its row and of its column
 * in one LDS.128 each, as BLAS kernels read their tiles. OPS: the
 * thread's linear index, tile sizes and first row (INT 4); a K step: an
 * A element (INT 4: row, column, address, loop step and test; BRANCH
 * 1), the B test (INT 1, BRANCH 1), its address and transposed place
 * (INT 3), 16 FFMAs (FP 16, unrolled), the step and test (INT 2, BRANCH
 * 1); C's index (INT 1). M is a multiple of tm and K of 16: no bounds
 * tests.
 */
static void rnn_gemm(struct simt_thread *t, const void *p)
{
	const struct rnn_gemm_args *a = p;
	struct simt_dim3 l = simt_thread_idx(t);
	const uint32_t tn = a->n, tm = RNN_THREADS / a->n;
	const uint32_t as = 0, bs = tm * RNN_TK;
	uint32_t lin = l.y * tn + l.x;
	uint64_t row0 = (uint64_t)simt_block_idx(t).x * tm;
	float sum = 0.0f;
	uint32_t k0, k, e, j;

	OPS(t, PROG_OP_INT, 4);
	for (k0 = 0; k0 < a->k; k0 += RNN_TK) {
		for (e = lin; e < tm * RNN_TK; e += RNN_THREADS) {
			OPS(t, PROG_OP_INT, 4);
			OPS(t, PROG_OP_BRANCH, 1);
			STS(t, float, as + e,
			    LD(t, float, a->a, (row0 + e / RNN_TK) * a->k +
			       k0 + e % RNN_TK));
		}
		OPS(t, PROG_OP_INT, 1);
		OPS(t, PROG_OP_BRANCH, 1);
		if (lin < RNN_TK * tn) {
			OPS(t, PROG_OP_INT, 3);
			STS(t, float, bs + lin % tn * RNN_TK + lin / tn,
			    LD(t, float, a->b, (uint64_t)k0 * tn + lin));
		}
		SYNC(t);
		for (k = 0; k < RNN_TK; k += 4) {
			struct rnn_f4 x = LDS(t, struct rnn_f4,
					      (as + l.y * RNN_TK + k) / 4);
			struct rnn_f4 y = LDS(t, struct rnn_f4,
					      (bs + l.x * RNN_TK + k) / 4);

			for (j = 0; j < 4; j++)
				sum = sum + x.v[j] * y.v[j];
		}
		OPS(t, PROG_OP_FP, RNN_TK);
		SYNC(t);
		OPS(t, PROG_OP_INT, 2);
		OPS(t, PROG_OP_BRANCH, 1);
	}
	OPS(t, PROG_OP_INT, 1);
	ST(t, float, a->c, (row0 + l.y) * tn + l.x, sum);
}

/*
 * A thread a (unit, sample), i = unit x n + sample. OPS: i and the bounds
 * test (INT 2, BRANCH 1), the unit (INT 1); the gates' indices (INT 3),
 * gx + bW three times and gh + bR twice (FP 5); r and z: the sum and the
 * sigmoid (FP 6, SFU 4); n: h_n + bR_n, r times it plus x_n, tanh (FP 5,
 * SFU 2); (1 - z) n + z h (FP 3).
 */
static void rnn_gru_kernel(struct simt_thread *t, const void *p)
{
	const struct rnn_cell_args *a = p;
	uint64_t i = simt_global_x(t), hn = (uint64_t)a->h * a->n;
	uint64_t unit = i / a->n;
	float x[3], h[3], hbn = 0.0f, hprev;
	unsigned int g;

	OPS(t, PROG_OP_INT, 2);
	OPS(t, PROG_OP_BRANCH, 1);
	if (i >= hn)
		return;
	OPS(t, PROG_OP_INT, 1);
	for (g = 0; g < 3; g++) {
		float bw, br;

		x[g] = LD(t, float, a->gx, g * hn + i);
		bw = LD(t, float, a->bw, g * a->h + unit);
		x[g] = x[g] + bw;
		h[g] = LD(t, float, a->gh, g * hn + i);
		br = LD(t, float, a->br, g * a->h + unit);
		if (g < 2)
			h[g] = h[g] + br;
		else
			hbn = br;
	}
	hprev = LD(t, float, a->hprev, i);
	OPS(t, PROG_OP_INT, 3);
	OPS(t, PROG_OP_FP, 5 + 6 + 5 + 3);
	OPS(t, PROG_OP_SFU, 6);
	ST(t, float, a->hout, i, rnn_gru_cell(x, h, hbn, hprev));
}

/*
 * As the GRU's: a gate's sums (FP 3) and index (INT 1) four times;
 * three sigmoids and two tanh (FP 12, SFU 10), f c + i g (FP 2), o
 * tanh(c') (FP 1).
 */
static void rnn_lstm_kernel(struct simt_thread *t, const void *p)
{
	const struct rnn_cell_args *a = p;
	uint64_t i = simt_global_x(t), hn = (uint64_t)a->h * a->n;
	uint64_t unit = i / a->n;
	float gate[4], c;
	unsigned int g;

	OPS(t, PROG_OP_INT, 2);
	OPS(t, PROG_OP_BRANCH, 1);
	if (i >= hn)
		return;
	OPS(t, PROG_OP_INT, 1);
	for (g = 0; g < 4; g++) {
		float gx = LD(t, float, a->gx, g * hn + i);
		float bw = LD(t, float, a->bw, g * a->h + unit);
		float gh = LD(t, float, a->gh, g * hn + i);
		float br = LD(t, float, a->br, g * a->h + unit);

		gate[g] = gx + bw + gh + br;
	}
	OPS(t, PROG_OP_INT, 4);
	OPS(t, PROG_OP_FP, 12 + 12 + 2 + 1);
	OPS(t, PROG_OP_SFU, 10);
	c = LD(t, float, a->c, i);
	ST(t, float, a->hout, i, rnn_lstm_cell(gate, &c));
	ST(t, float, a->c, i, c);
}

/* The reference GEMM: each element's products added in k order. */
static void rnn_gemm_ref(const float *a, const float *b, float *c,
			 uint32_t m, uint32_t n, uint32_t k)
{
	uint32_t i, j, q;

	for (i = 0; i < m; i++)
		for (j = 0; j < n; j++) {
			float sum = 0.0f;

			for (q = 0; q < k; q++)
				sum = sum + a[(size_t)i * k + q] *
					b[(size_t)q * n + j];
			c[(size_t)i * n + j] = sum;
		}
}

/* The reference step's cells, as the kernels compute them. */
static void rnn_cells_ref(bool lstm, const float *gx, const float *gh,
			  const float *bw, const float *br, const float *hprev,
			  float *hout, float *c, uint32_t h, uint32_t n)
{
	const size_t hn = (size_t)h * n;
	float x[RNN_MAX_GATES], hh[RNN_MAX_GATES];
	size_t i, unit;
	unsigned int g;

	for (i = 0; i < hn; i++) {
		unit = i / n;
		if (lstm) {
			for (g = 0; g < 4; g++)
				x[g] = gx[g * hn + i] + bw[g * h + unit] +
					gh[g * hn + i] + br[g * h + unit];
			hout[i] = rnn_lstm_cell(x, &c[i]);
			continue;
		}
		for (g = 0; g < 3; g++) {
			x[g] = gx[g * hn + i] + bw[g * h + unit];
			hh[g] = gh[g * hn + i];
			if (g < 2)
				hh[g] = hh[g] + br[g * h + unit];
		}
		hout[i] = rnn_gru_cell(x, hh, br[2 * h + unit], hprev[i]);
	}
}

/* n floats uniform in [-scale, scale). */
static void rnn_fill(struct app_rng *rng, float *v, size_t n, float scale)
{
	size_t i;

	for (i = 0; i < n; i++)
		v[i] = (app_rng_float(rng) * 2.0f - 1.0f) * scale;
}

struct rnn_bufs {
	float *w, *r, *bw, *br, *x, *hx, *cx, *y, *c, *gx, *gh, *want_y;
	float *want_c;
};

static void rnn_free(struct rnn_bufs *b)
{
	free(b->w);
	free(b->r);
	free(b->bw);
	free(b->br);
	free(b->x);
	free(b->hx);
	free(b->cx);
	free(b->y);
	free(b->c);
	free(b->gx);
	free(b->gh);
	free(b->want_y);
	free(b->want_c);
}

static int rnn_run(bool lstm, struct simt_gpu *gpu, uint64_t size,
		   uint64_t seed, char *err, size_t errlen)
{
	const char *app = lstm ? "rnn-lstm" : "rnn-gru";
	const char *cell = lstm ? "lstm_elementwise" : "gru_elementwise";
	simt_kernel_fn cell_fn = lstm ? rnn_lstm_kernel : rnn_gru_kernel;
	const uint32_t h = (uint32_t)size, gates = lstm ? 4 : 3;
	const uint32_t bs = size <= 256 ? 4 : 16, ts = size <= 256 ? 2 : 4;
	const uint32_t m = gates * h, tm = RNN_THREADS / bs;
	const size_t wn = (size_t)m * h, hn = (size_t)h * bs;
	const size_t gn = (size_t)m * bs, yn = hn * ts;
	const float scale = 1.0f / sqrtf((float)h);
	struct rnn_gemm_args in = { .m = m, .n = bs, .k = h };
	struct rnn_gemm_args rec = { .m = m, .n = bs, .k = h };
	struct rnn_cell_args ca = { .h = h, .n = bs };
	uint64_t dw, dr, dx, dhx, dy;
	struct rnn_bufs b = { 0 };
	struct app_rng rng;
	const float *hprev;
	uint32_t step;
	int ret;

	ret = app_size_range(size, RNN_MIN, RNN_MAX, "the hidden units", app,
			     err, errlen);
	if (ret)
		return ret;
	if (size % 64) {
		app_err(err, errlen, app,
			"size %llu: the hidden units must be a multiple of 64",
			(unsigned long long)size);
		return -EINVAL;
	}
	b.w = malloc(wn * sizeof(float));
	b.r = malloc(wn * sizeof(float));
	b.bw = malloc(m * sizeof(float));
	b.br = malloc(m * sizeof(float));
	b.x = malloc(yn * sizeof(float));
	b.hx = malloc(hn * sizeof(float));
	b.cx = malloc(hn * sizeof(float));
	b.y = malloc(yn * sizeof(float));
	b.c = malloc(hn * sizeof(float));
	b.gx = malloc(gn * sizeof(float));
	b.gh = malloc(gn * sizeof(float));
	b.want_y = malloc(yn * sizeof(float));
	b.want_c = malloc(hn * sizeof(float));
	ret = -ENOMEM;
	if (!b.w || !b.r || !b.bw || !b.br || !b.x || !b.hx || !b.cx ||
	    !b.y || !b.c || !b.gx || !b.gh || !b.want_y || !b.want_c) {
		app_err(err, errlen, app, "out of memory");
		goto out;
	}
	app_rng_init(&rng, seed, lstm ? 101 : 100);
	rnn_fill(&rng, b.w, wn, scale);
	rnn_fill(&rng, b.r, wn, scale);
	rnn_fill(&rng, b.bw, m, scale);
	rnn_fill(&rng, b.br, m, scale);
	rnn_fill(&rng, b.x, yn, 1.0f);
	rnn_fill(&rng, b.hx, hn, 1.0f);
	rnn_fill(&rng, b.cx, hn, 1.0f);

	ret = app_alloc(gpu, wn * sizeof(float), "w", &dw, app, err, errlen);
	if (!ret)
		ret = app_alloc(gpu, wn * sizeof(float), "r", &dr, app, err,
				errlen);
	if (!ret)
		ret = app_alloc(gpu, m * sizeof(float), "bw", &ca.bw, app, err,
				errlen);
	if (!ret)
		ret = app_alloc(gpu, m * sizeof(float), "br", &ca.br, app, err,
				errlen);
	if (!ret)
		ret = app_alloc(gpu, yn * sizeof(float), "x", &dx, app, err,
				errlen);
	if (!ret)
		ret = app_alloc(gpu, hn * sizeof(float), "hx", &dhx, app, err,
				errlen);
	if (!ret && lstm)
		ret = app_alloc(gpu, hn * sizeof(float), "c", &ca.c, app, err,
				errlen);
	if (!ret)
		ret = app_alloc(gpu, yn * sizeof(float), "y", &dy, app, err,
				errlen);
	if (!ret)
		ret = app_alloc(gpu, gn * sizeof(float), "gates_x", &ca.gx,
				app, err, errlen);
	if (!ret)
		ret = app_alloc(gpu, gn * sizeof(float), "gates_h", &ca.gh,
				app, err, errlen);
	if (ret)
		goto out;
	simt_h2d(gpu, dw, b.w, wn * sizeof(float));
	simt_h2d(gpu, dr, b.r, wn * sizeof(float));
	simt_h2d(gpu, ca.bw, b.bw, m * sizeof(float));
	simt_h2d(gpu, ca.br, b.br, m * sizeof(float));
	simt_h2d(gpu, dx, b.x, yn * sizeof(float));
	simt_h2d(gpu, dhx, b.hx, hn * sizeof(float));
	if (lstm)
		simt_h2d(gpu, ca.c, b.cx, hn * sizeof(float));

	in.a = dw;
	in.c = ca.gx;
	rec.a = dr;
	rec.c = ca.gh;
	for (step = 0; step < ts; step++) {
		in.b = dx + step * hn * sizeof(float);
		rec.b = step ? dy + (step - 1) * hn * sizeof(float) : dhx;
		ca.hprev = rec.b;
		ca.hout = dy + step * hn * sizeof(float);
		ret = app_launch(gpu, "rnn_gemm_input", rnn_gemm,
				 DIM3(m / tm, 1, 1), DIM3(bs, tm, 1),
				 (tm + bs) * RNN_TK * sizeof(float), &in, app,
				 err, errlen);
		if (!ret)
			ret = app_launch(gpu, "rnn_gemm_recurrent", rnn_gemm,
					 DIM3(m / tm, 1, 1), DIM3(bs, tm, 1),
					 (tm + bs) * RNN_TK * sizeof(float),
					 &rec, app, err, errlen);
		if (!ret)
			ret = app_launch(gpu, cell, cell_fn,
					 DIM3(app_blocks(hn, RNN_THREADS), 1,
					      1),
					 DIM3(RNN_THREADS, 1, 1), 0, &ca, app,
					 err, errlen);
		if (ret)
			goto out;
	}
	simt_d2h(gpu, b.y, dy, yn * sizeof(float));
	if (lstm)
		simt_d2h(gpu, b.c, ca.c, hn * sizeof(float));
	app_test_perturb(b.y, sizeof(float), yn);

	/* The reference: the same steps on the CPU. */
	memcpy(b.want_c, b.cx, hn * sizeof(float));
	for (step = 0; step < ts; step++) {
		hprev = step ? b.want_y + (step - 1) * hn : b.hx;
		rnn_gemm_ref(b.w, b.x + step * hn, b.gx, m, bs, h);
		rnn_gemm_ref(b.r, hprev, b.gh, m, bs, h);
		rnn_cells_ref(lstm, b.gx, b.gh, b.bw, b.br, hprev,
			      b.want_y + step * hn, b.want_c, h, bs);
	}
	ret = app_check_f32(b.y, b.want_y, yn, APP_FLOAT_TOLERANCE, app, "y",
			    err, errlen);
	if (!ret && lstm)
		ret = app_check_f32(b.c, b.want_c, hn, APP_FLOAT_TOLERANCE,
				    app, "cy", err, errlen);
out:
	rnn_free(&b);
	return ret;
}

static int rnn_gru_run(struct simt_gpu *gpu, uint64_t size, uint64_t seed,
		       char *err, size_t errlen)
{
	return rnn_run(false, gpu, size, seed, err, errlen);
}

static int rnn_lstm_run(struct simt_gpu *gpu, uint64_t size, uint64_t seed,
			char *err, size_t errlen)
{
	return rnn_run(true, gpu, size, seed, err, errlen);
}

#define RNN_INPUT							\
	"size = H hidden units (a multiple of 64), the input as wide; H "\
	"<= 256 runs Table II's batch 4 for 2 steps, larger H batch 16 "\
	"for 4 steps; weights and biases uniform in +-1 / sqrt(H), x, hx "\
	"(and cx) in [-1, 1), from the seed (the values do not change the "\
	"program; DeepBench fills [0, 1)). Large: the paper's second "	\
	"configuration, H 512, BS 16, TS 4; size 256 is its first"
#define RNN_PAPER							\
	"CPElide Table II: BS 4, TS 2, hidden 256 = size 256; BS 16, TS " \
	"4, hidden 512 = size 512"

const struct app_desc app_rnn_gru = {
	.name = "rnn-gru",
	.suite = "DeepBench (inference RNN, GRU)",
	.summary = "a GRU layer (cuDNN's gates r, z, n): each time step "
		   "gx = W x_t and gh = R h_{t-1} by a tiled shared-memory "
		   "GEMM (256-thread blocks a BS-wide tile, K steps of 16), "
		   "then an elementwise kernel a (unit, sample) applying "
		   "the gates into h_t; W and R shared by every step",
	.input = RNN_INPUT,
	.small_size = 64,
	.large_size = 512,
	.kernels = "rnn_gemm_input, rnn_gemm_recurrent, gru_elementwise",
	.paper_sizes = RNN_PAPER,
	.run = rnn_gru_run,
};

const struct app_desc app_rnn_lstm = {
	.name = "rnn-lstm",
	.suite = "DeepBench (inference RNN, LSTM)",
	.summary = "an LSTM layer (gates i, f, g, o): each time step gx = "
		   "W x_t and gh = R h_{t-1} by a tiled shared-memory GEMM "
		   "(256-thread blocks a BS-wide tile, K steps of 16), then "
		   "an elementwise kernel a (unit, sample) updating c in "
		   "place and writing h_t; W and R shared by every step",
	.input = RNN_INPUT,
	.small_size = 64,
	.large_size = 512,
	.kernels = "rnn_gemm_input, rnn_gemm_recurrent, lstm_elementwise",
	.paper_sizes = RNN_PAPER,
	.run = rnn_lstm_run,
};
