// SPDX-License-Identifier: GPL-2.0
/*
 * CPElide workload generators: launch sequences modeled on the paper's 24
 * workloads (CPElide Table II), from their argument counts and R/RW
 * patterns (notes/cpelide.md §3.3, §3.5).
 */
#include <stdarg.h>

#include "cpe_tool.h"
#include "util.h"

struct gen {
	FILE *f;
	unsigned int n;		/* chiplets */
};

static void out(struct gen *g, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(g->f, fmt, ap);
	va_end(ap);
}

/* Chiplet c reads rows [c*rows - halo, (c+1)*rows + halo) of a 2D array. */
static void halo_arg(struct gen *g, const char *name, unsigned long rows_total,
		     unsigned long row_bytes, unsigned int halo)
{
	unsigned long rows = rows_total / g->n, lo, hi;
	unsigned int c;

	out(g, " %s:r:", name);
	for (c = 0; c < g->n; c++) {
		lo = c * rows >= halo ? c * rows - halo : 0;
		hi = (c + 1) * rows + halo;
		if (hi > rows_total || c == g->n - 1)
			hi = c == g->n - 1 ? rows_total : hi;
		out(g, "%s%u=%lu-%lu", c ? "," : "", c, lo * row_bytes,
		    hi * row_bytes - 1);
	}
}

/* Streaming kernels over arrays that each chiplet always touches alike. */
static void babelstream(struct gen *g, unsigned long elems, int iters)
{
	int i;

	out(g, "alloc a %lu\nalloc b %lu\nalloc c %lu\nalloc sum %u\n", elems * 8,
	    elems * 8, elems * 8, 64 * g->n);
	for (i = 0; i < iters; i++) {
		out(g, "kernel copy a:r c:rw\nkernel mul c:r b:rw\n"
		    "kernel add a:r b:r c:rw\nkernel triad b:r c:r a:rw\n"
		    "kernel dot a:r b:r sum:rw\n");
	}
	out(g, "host_read sum\n");
}

static void square(struct gen *g, unsigned long elems, int iters)
{
	int i;

	out(g, "alloc in %lu\nalloc out %lu\n", elems * 4, elems * 4);
	for (i = 0; i < iters; i++)
		out(g, "kernel square in:r out:rw\n");
	out(g, "host_read out\n");
}

/* Ping-pong stencil: halo reads of the neighbours' rows. */
static void stencil(struct gen *g, unsigned long rows, unsigned long row_bytes,
		    int extra_ro, int iters)
{
	int i;

	out(g, "alloc t0 %lu\nalloc t1 %lu\n", rows * row_bytes, rows * row_bytes);
	for (i = 0; i < extra_ro; i++)
		out(g, "alloc p%d %lu\n", i, rows * row_bytes);
	for (i = 0; i < iters; i++) {
		int j;

		out(g, "kernel stencil");
		halo_arg(g, i % 2 ? "t1" : "t0", rows, row_bytes, 1);
		out(g, " %s:rw", i % 2 ? "t0" : "t1");
		for (j = 0; j < extra_ro; j++)
			out(g, " p%d:r", j);
		out(g, "\n");
	}
	out(g, "host_read %s\n", iters % 2 ? "t1" : "t0");
}

/*
 * Each step reads all of the previous step's state and writes its slice of
 * the next step's, as an RNN storing every timestep's output or a graph
 * step writing a new frontier; read-only weights or graph arrays beside.
 */
static void allread(struct gen *g, const char *what, unsigned long state_bytes,
		    unsigned long ro_bytes, int n_ro, int steps, int passes)
{
	int i, j;

	out(g, "alloc state %lu\n", state_bytes * (steps + 1));
	for (j = 0; j < n_ro; j++)
		out(g, "alloc w%d %lu\n", j, ro_bytes);
	out(g, "host_write state 0-%lu\n", state_bytes - 1);
	for (i = 0; i < steps; i++) {
		unsigned long in = i * state_bytes, o = (i + 1) * state_bytes;
		unsigned long slice = state_bytes / g->n / 64 * 64;

		out(g, "kernel %s passes=%d state:r:", what, passes);
		for (j = 0; j < (int)g->n; j++)
			out(g, "%s%d=%lu-%lu", j ? "," : "", j, in, in + state_bytes - 1);
		for (j = 0; j < n_ro; j++)
			out(g, " w%d:r", j);
		out(g, " state:rw:");
		for (j = 0; j < (int)g->n; j++)
			out(g, "%s%d=%lu-%lu", j ? "," : "", j, o + j * slice,
			    j == (int)g->n - 1 ? o + state_bytes - 1 :
			    o + (j + 1) * slice - 1);
		out(g, "\n");
	}
	out(g, "host_read state %lu-%lu\n", steps * state_bytes,
	    (steps + 1) * state_bytes - 1);
}

/* Factorisation steps: one chiplet updates the pivot block, all the rest. */
static void factor(struct gen *g, unsigned long n_rows, unsigned long row_bytes,
		   int steps)
{
	unsigned long blk = n_rows / steps;
	int k;

	out(g, "alloc m %lu\nalloc piv %lu\n", n_rows * row_bytes, n_rows * 4);
	for (k = 0; k < steps; k++) {
		unsigned long lo = k * blk * row_bytes;
		unsigned long hi = (k + 1) * blk * row_bytes - 1;

		out(g, "kernel diag chiplets=%u m:rw:%u=%lu-%lu\n", k % g->n, k % g->n,
		    lo, hi);
		out(g, "kernel perimeter m:r:");
		{
			unsigned int c;

			for (c = 0; c < g->n; c++)
				out(g, "%s%u=%lu-%lu", c ? "," : "", c, lo, hi);
		}
		out(g, " piv:rw\n");
		if ((k + 1) * blk < n_rows)
			out(g, "kernel internal m:rw:%u=%lu-%lu piv:r\n",
			    (k + 1) % g->n, hi + 1, n_rows * row_bytes - 1);
	}
	out(g, "host_read m\n");
}

/* Many arguments (coarsened above 8), all split evenly, iterated. */
static void manyargs(struct gen *g, int nargs, unsigned long bytes, int iters,
		     int rw_every)
{
	int i, j;

	for (j = 0; j < nargs; j++)
		out(g, "alloc x%d %lu\n", j, bytes);
	for (i = 0; i < iters; i++) {
		out(g, "kernel k%d", i % 3);
		for (j = 0; j < nargs; j++)
			out(g, " x%d:%s", j, (j + i) % rw_every ? "r" : "rw");
		out(g, "\n");
	}
	out(g, "host_read x0\n");
}

/*
 * Low reuse: a chain of buffers, each read once by the next kernel on a
 * rotated partition, so what one chiplet wrote another reads.
 */
static void pipeline(struct gen *g, int stages, unsigned long bytes, int rounds)
{
	unsigned long slice = bytes / g->n / 64 * 64;
	unsigned int c;
	int i, r;

	for (i = 0; i <= stages; i++)
		out(g, "alloc b%d %lu\n", i, bytes);
	out(g, "host_write b0\n");
	for (r = 0; r < rounds; r++) {
		for (i = 0; i < stages; i++) {
			out(g, "kernel stage%d b%d:r:", i, i);
			for (c = 0; c < g->n; c++) {
				unsigned int src = (c + i + 1) % g->n;

				out(g, "%s%u=%lu-%lu", c ? "," : "", c, src * slice,
				    src == g->n - 1 ? bytes - 1 : (src + 1) * slice - 1);
			}
			out(g, " b%d:rw\n", i + 1);
		}
	}
	out(g, "host_read b%d\n", stages);
}

/* Pointer chasing: ranges unknown, so the CP falls back to baseline sync. */
static void unknown(struct gen *g, unsigned long bytes, int iters)
{
	int i;

	out(g, "alloc tree %lu\nalloc keys %lu\nalloc res %lu\n", bytes, bytes / 4,
	    bytes / 4);
	for (i = 0; i < iters; i++)
		out(g, "kernel find tree:r:unknown keys:r res:rw\n");
	out(g, "host_read res\n");
}

/* Wavefront: diagonals of blocks on a rotating chiplet subset. */
static void wavefront(struct gen *g, unsigned long rows, unsigned long row_bytes,
		      int diags)
{
	unsigned long blk = rows / diags;
	int d;

	out(g, "alloc score %lu\nalloc ref %lu\n", rows * row_bytes, rows * row_bytes);
	for (d = 0; d < diags; d++)
		out(g, "kernel diag chiplets=%u score:rw:%u=%lu-%lu ref:r:%u=%lu-%lu\n",
		    d % g->n, d % g->n, d * blk * row_bytes,
		    (d + 1) * blk * row_bytes - 1, d % g->n, d * blk * row_bytes,
		    (d + 1) * blk * row_bytes - 1);
	out(g, "host_read score\n");
}

#define APP(name, body)						\
	static void gen_##name(FILE *f, unsigned int n)			\
	{								\
		struct gen gen = { .f = f, .n = n }, *g = &gen;		\
		body;							\
	}

APP(babelstream, babelstream(g, 524288, 10))
APP(square, square(g, 524288, 20))
APP(hotspot, stencil(g, 512, 512 * 4, 1, 20))
APP(hotspot3d, stencil(g, 512 * 8, 512 * 4, 1, 10))
APP(lud, factor(g, 512, 512 * 4, 16))
APP(rnn_gru_small, allread(g, "gru", 4 * 256 * 4, 3 * 256 * 256 * 4, 2, 2 * 3, 1))
APP(rnn_gru_large, allread(g, "gru", 16 * 512 * 4, 3 * 512 * 512 * 4, 2, 4 * 3, 1))
APP(rnn_lstm_small, allread(g, "lstm", 4 * 256 * 4, 4 * 256 * 256 * 4, 2, 2 * 4, 1))
APP(rnn_lstm_large, allread(g, "lstm", 16 * 512 * 4, 4 * 512 * 512 * 4, 2, 4 * 4, 1))
APP(bfs, allread(g, "bfs", 128 * 1024 * 4, 1024 * 1024 * 4, 2, 12, 1))
APP(sssp, allread(g, "sssp", 256 * 1024 * 4, 2 * 1024 * 1024 * 4, 2, 16, 1))
APP(color, allread(g, "color", 256 * 1024 * 4, 2 * 1024 * 1024 * 4, 2, 16, 1))
APP(fw, allread(g, "fw", 512 * 512 * 4, 4096, 1, 24, 1))
APP(pennant, manyargs(g, 12, 512 * 1024, 30, 4))
APP(lulesh, manyargs(g, 10, 512 * 1024, 30, 3))
APP(backprop, allread(g, "layer", 64 * 1024 * 4, 2 * 1024 * 1024, 2, 8, 1))
APP(gaussian, factor(g, 256, 256 * 4, 64))
APP(hacc, manyargs(g, 8, 1024 * 1024, 12, 2))
APP(btree, unknown(g, 4 * 1024 * 1024, 10))
APP(cnn, pipeline(g, 6, 1024 * 1024, 1))
APP(dwt2d, pipeline(g, 3, 4 * 1024 * 1024, 1))
APP(nw, wavefront(g, 8192, 1024, 64))
APP(pathfinder, pipeline(g, 20, 256 * 1024, 1))
APP(srad_v2, pipeline(g, 4, 4 * 1024 * 1024, 2))

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
