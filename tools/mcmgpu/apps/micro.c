// SPDX-License-Identifier: GPL-2.0
/*
 * The microbenchmarks (suite "micro"): programs whose time on the GPU
 * timing core has a closed form in its configuration, so the core can be
 * checked against an answer known beforehand
 * (selftests/host/gpu_validate_test.c, docs/gpu.md "Validation").
 *
 *  - micro-stream: b[i] = a[i], a thread an element: bandwidth-bound.
 *  - micro-chase: one thread follows a random cyclic chain of cache
 *    lines, twice (cold: every hop from DRAM; warm: from the L2):
 *    latency-bound, a hop a full load latency.
 *  - micro-compute: a dependent chain of FFMAs a thread, by one warp
 *    (latency-bound) and by 256 warps (issue-bound).
 *  - micro-tlb: every warp instruction on a page no other touches:
 *    every access an L1 and L2 TLB miss and one walk.
 *
 * The kernels keep the executor's register model (simt.h) in mind: an
 * OPS after a load waits for the load's data, so loads that must stay
 * independent have no OPS between them (an unrolled loop whose address
 * arithmetic folds into the loads' offsets).
 */
#include <errno.h>
#include <stdlib.h>

#include "app_util.h"
#include "apps.h"

#define MICRO_BLOCK		256
#define MICRO_LINE_BYTES	128
#define MICRO_LINE_WORDS	32		/* u32 in a 128 B line */
#define MICRO_PAGE_FLOATS	1024		/* floats in a 4 KiB page */

/* ---- micro-stream ------------------------------------------------------ */

#define STREAM_MAX	(1ULL << 28)

struct stream_args {
	uint64_t a, b, n;
};

/*
 * b[i] = a[i]. OPS: the global index and i < n (INT 2, BRANCH 1); a
 * warp moves 128 B in and 128 B out with 6 instructions (EXIT included).
 */
static void stream_kernel(struct simt_thread *t, const void *p)
{
	const struct stream_args *a = p;
	uint64_t i = simt_global_x(t);

	OPS(t, PROG_OP_INT, 2);
	OPS(t, PROG_OP_BRANCH, 1);
	if (i >= a->n)
		return;
	ST(t, float, a->b, i, LD(t, float, a->a, i));
}

static int stream_run(struct simt_gpu *gpu, uint64_t n, uint64_t seed,
		      char *err, size_t errlen)
{
	const char *app = "micro-stream";
	struct stream_args args = { .n = n };
	float *a, *got;
	struct app_rng rng;
	int ret;

	ret = app_size_range(n, 1, STREAM_MAX, "the element count", app, err,
			     errlen);
	if (ret)
		return ret;
	a = malloc(n * sizeof(*a));
	got = malloc(n * sizeof(*got));
	ret = -ENOMEM;
	if (!a || !got) {
		app_err(err, errlen, app, "out of memory");
		goto out;
	}
	app_rng_init(&rng, seed, 40);
	app_rng_fill_float(&rng, a, n, 1.0f);
	ret = app_alloc(gpu, n * sizeof(float), "a", &args.a, app, err,
			errlen);
	if (!ret)
		ret = app_alloc(gpu, n * sizeof(float), "b", &args.b, app, err,
				errlen);
	if (ret)
		goto out;
	simt_h2d(gpu, args.a, a, n * sizeof(float));
	ret = app_launch(gpu, "micro_stream", stream_kernel,
			 DIM3(app_blocks(n, MICRO_BLOCK), 1, 1),
			 DIM3(MICRO_BLOCK, 1, 1), 0, &args, app, err, errlen);
	if (ret)
		goto out;
	simt_d2h(gpu, got, args.b, n * sizeof(float));
	app_test_perturb(got, sizeof(*got), n);
	ret = app_check_f32(got, a, n, 0.0f, app, "b", err, errlen);
out:
	free(a);
	free(got);
	return ret;
}

/* ---- micro-chase ------------------------------------------------------- */

#define CHASE_MIN	2
#define CHASE_MAX	(1ULL << 22)	/* 512 MiB of lines */

struct chase_args {
	uint64_t chain, out;
	uint64_t hops;
	uint32_t chaser;		/* the block whose thread chases */
	uint32_t slot;			/* out[slot]: where the walk ends */
};

/*
 * Block `chaser`'s one thread: idx = chain[idx * 32], hops times, from
 * line 0; the other blocks only test whether they chase. OPS: the test
 * (INT 1, BRANCH 1); a hop: its load, then the next address, the loop's
 * add and compare (INT 3, each waiting on the one before, the first on
 * the load) and the back edge (BRANCH 1).
 */
static void chase_kernel(struct simt_thread *t, const void *p)
{
	const struct chase_args *a = p;
	uint32_t idx = 0;
	uint64_t h;

	OPS(t, PROG_OP_INT, 1);
	OPS(t, PROG_OP_BRANCH, 1);
	if (simt_block_idx(t).x != a->chaser)
		return;
	for (h = 0; h < a->hops; h++) {
		idx = LD(t, uint32_t, a->chain, (uint64_t)idx * MICRO_LINE_WORDS);
		OPS(t, PROG_OP_INT, 3);
		OPS(t, PROG_OP_BRANCH, 1);
	}
	ST(t, uint32_t, a->out, a->slot, idx);
}

/*
 * size lines of 128 B in one cycle visiting every line (Sattolo's
 * shuffle from the seed), next index in each line's first word. Two
 * launches of 2 blocks of one thread, the last block chasing (so a
 * two-chiplet GPU runs it on chiplet 1 while the data may live on 0):
 * size - 1 hops from line 0, touching size - 1 distinct lines; the first
 * launch finds them in no cache, the second in the L2 if they fit (the
 * L1 cannot keep them: the walk touches every line once before coming
 * back).
 */
static int chase_run(struct simt_gpu *gpu, uint64_t lines, uint64_t seed,
		     char *err, size_t errlen)
{
	const char *app = "micro-chase";
	struct chase_args args = { .hops = lines - 1, .chaser = 1 };
	uint32_t *chain = NULL, *perm = NULL, got[2], want[2];
	struct app_rng rng;
	uint64_t i, idx;
	int ret;

	ret = app_size_range(lines, CHASE_MIN, CHASE_MAX, "the chain's lines",
			     app, err, errlen);
	if (ret)
		return ret;
	chain = calloc(lines * MICRO_LINE_WORDS, sizeof(*chain));
	perm = malloc(lines * sizeof(*perm));
	ret = -ENOMEM;
	if (!chain || !perm) {
		app_err(err, errlen, app, "out of memory");
		goto out;
	}
	/* Sattolo: a uniformly random permutation of one cycle. */
	app_rng_init(&rng, seed, 41);
	for (i = 0; i < lines; i++)
		perm[i] = (uint32_t)i;
	for (i = lines - 1; i > 0; i--) {
		uint64_t j = app_rng_below(&rng, i);
		uint32_t v = perm[i];

		perm[i] = perm[j];
		perm[j] = v;
	}
	for (i = 0; i < lines; i++)
		chain[i * MICRO_LINE_WORDS] = perm[i];

	ret = app_alloc(gpu, lines * MICRO_LINE_BYTES, "chain", &args.chain, app, err,
			errlen);
	if (!ret)
		ret = app_alloc(gpu, sizeof(got), "out", &args.out, app, err,
				errlen);
	if (ret)
		goto out;
	simt_h2d(gpu, args.chain, chain, lines * MICRO_LINE_BYTES);
	for (args.slot = 0; args.slot < 2 && !ret; args.slot++)
		ret = app_launch(gpu, args.slot ? "micro_chase_warm" :
				 "micro_chase_cold", chase_kernel, DIM3(2, 1, 1),
				 DIM3(1, 1, 1), 0, &args, app, err, errlen);
	if (ret)
		goto out;
	simt_d2h(gpu, got, args.out, sizeof(got));
	app_test_perturb(got, sizeof(*got), 2);
	for (idx = 0, i = 0; i < args.hops; i++)
		idx = perm[idx];
	want[0] = want[1] = (uint32_t)idx;
	ret = app_check_u32(got, want, 2, app, "out", err, errlen);
out:
	free(chain);
	free(perm);
	return ret;
}

/* ---- micro-compute ----------------------------------------------------- */

#define COMPUTE_MAX		(1ULL << 20)
#define COMPUTE_WIDE_BLOCKS	32	/* 256 warps */
#define COMPUTE_MUL		0.5f
#define COMPUTE_ADD		1.0f

struct compute_args {
	uint64_t out;
	uint64_t fmas;
};

/*
 * x = (i & 7) then x = 0.5 x + 1, fmas times (unrolled), out[i] = x.
 * OPS: the index and its mask (INT 2), the conversion (FP 1), the FFMAs
 * (FP fmas, each on the one before): fmas + 5 warp instructions with the
 * store and EXIT.
 */
static void compute_kernel(struct simt_thread *t, const void *p)
{
	const struct compute_args *a = p;
	uint64_t i = simt_global_x(t), k;
	float x;

	OPS(t, PROG_OP_INT, 2);
	OPS(t, PROG_OP_FP, 1);
	x = (float)(i & 7);
	for (k = 0; k < a->fmas; k++)
		x = x * COMPUTE_MUL + COMPUTE_ADD;
	OPS(t, PROG_OP_FP, (unsigned int)a->fmas);
	ST(t, float, a->out, i, x);
}

/*
 * size FFMAs a thread: "micro_fma_latency" by one warp, then
 * "micro_fma_throughput" by 32 blocks of 256 threads.
 */
static int compute_run(struct simt_gpu *gpu, uint64_t fmas, uint64_t seed,
		       char *err, size_t errlen)
{
	const char *app = "micro-compute";
	const uint64_t n = COMPUTE_WIDE_BLOCKS * MICRO_BLOCK;
	struct compute_args lat = { .fmas = fmas }, wide = { .fmas = fmas };
	float *got, *want;
	uint64_t i, k;
	int ret;

	(void)seed;	/* the values come from the thread index alone */
	ret = app_size_range(fmas, 1, COMPUTE_MAX, "the FFMAs a thread", app,
			     err, errlen);
	if (ret)
		return ret;
	got = malloc((n + PROG_WARP_SIZE) * sizeof(*got));
	want = malloc((n + PROG_WARP_SIZE) * sizeof(*want));
	ret = -ENOMEM;
	if (!got || !want) {
		app_err(err, errlen, app, "out of memory");
		goto out;
	}
	ret = app_alloc(gpu, PROG_WARP_SIZE * sizeof(float), "lat_out",
			&lat.out, app, err, errlen);
	if (!ret)
		ret = app_alloc(gpu, n * sizeof(float), "wide_out", &wide.out,
				app, err, errlen);
	if (!ret)
		ret = app_launch(gpu, "micro_fma_latency", compute_kernel,
				 DIM3(1, 1, 1), DIM3(PROG_WARP_SIZE, 1, 1), 0,
				 &lat, app, err, errlen);
	if (!ret)
		ret = app_launch(gpu, "micro_fma_throughput", compute_kernel,
				 DIM3(COMPUTE_WIDE_BLOCKS, 1, 1),
				 DIM3(MICRO_BLOCK, 1, 1), 0, &wide, app, err,
				 errlen);
	if (ret)
		goto out;
	simt_d2h(gpu, got, lat.out, PROG_WARP_SIZE * sizeof(float));
	simt_d2h(gpu, got + PROG_WARP_SIZE, wide.out, n * sizeof(float));
	app_test_perturb(got, sizeof(*got), n + PROG_WARP_SIZE);
	for (i = 0; i < n + PROG_WARP_SIZE; i++) {
		uint64_t tid = i < PROG_WARP_SIZE ? i : i - PROG_WARP_SIZE;
		float x = (float)(tid & 7);

		for (k = 0; k < fmas; k++)
			x = x * COMPUTE_MUL + COMPUTE_ADD;
		want[i] = x;
	}
	ret = app_check_f32(got, want, n + PROG_WARP_SIZE, APP_FLOAT_TOLERANCE,
			    app, "out", err, errlen);
out:
	free(got);
	free(want);
	return ret;
}

/* ---- micro-tlb --------------------------------------------------------- */

#define TLB_ACCESSES	8		/* a thread, each on its own page */
#define TLB_MIN		(TLB_ACCESSES * MICRO_BLOCK / PROG_WARP_SIZE)
#define TLB_MAX		(1ULL << 20)	/* 4 GiB of pages */

struct tlb_args {
	uint64_t buf;
	uint64_t warps;
};

/*
 * Warp w's access j reads one 128 B line of page j * warps + w (lane l
 * its float l), so no two warp instructions share a page; then the
 * thread stores the sum of its 8 floats at float 32 + l of its last
 * page, whose translation it just got. OPS: the index and the base
 * address (INT 2), before the 8 loads (unrolled: their offsets fold into
 * them, so none waits for another), the sum (FP 8), then the store.
 */
static void tlb_kernel(struct simt_thread *t, const void *p)
{
	const struct tlb_args *a = p;
	uint64_t g = simt_global_x(t);
	uint64_t w = g / PROG_WARP_SIZE, lane = g % PROG_WARP_SIZE;
	float v[TLB_ACCESSES], sum = 0.0f;
	uint64_t page = 0;
	unsigned int j;

	OPS(t, PROG_OP_INT, 2);
	for (j = 0; j < TLB_ACCESSES; j++) {
		page = j * a->warps + w;
		v[j] = LD(t, float, a->buf, page * MICRO_PAGE_FLOATS + lane);
	}
	for (j = 0; j < TLB_ACCESSES; j++)
		sum += v[j];
	OPS(t, PROG_OP_FP, TLB_ACCESSES);
	ST(t, float, a->buf, page * MICRO_PAGE_FLOATS + PROG_WARP_SIZE + lane,
	   sum);
}

/* size pages, a warp instruction each: size / 8 warps, blocks of 256. */
static int tlb_run(struct simt_gpu *gpu, uint64_t pages, uint64_t seed,
		   char *err, size_t errlen)
{
	const char *app = "micro-tlb";
	struct tlb_args args = { .warps = pages / TLB_ACCESSES };
	uint64_t floats = pages * MICRO_PAGE_FLOATS, threads, i;
	float *buf = NULL, *res = NULL, *got = NULL, *want = NULL;
	struct app_rng rng;
	unsigned int j;
	int ret;

	ret = app_size_range(pages, TLB_MIN, TLB_MAX, "the pages", app, err,
			     errlen);
	if (!ret && pages % TLB_MIN) {
		app_err(err, errlen, app,
			"size %llu: the pages must be a multiple of %u",
			(unsigned long long)pages, (unsigned int)TLB_MIN);
		ret = -EINVAL;
	}
	if (ret)
		return ret;
	threads = args.warps * PROG_WARP_SIZE;
	buf = malloc(floats * sizeof(*buf));
	res = malloc(floats * sizeof(*res));
	got = malloc(threads * sizeof(*got));
	want = malloc(threads * sizeof(*want));
	ret = -ENOMEM;
	if (!buf || !res || !got || !want) {
		app_err(err, errlen, app, "out of memory");
		goto out;
	}
	app_rng_init(&rng, seed, 42);
	app_rng_fill_float(&rng, buf, floats, 1.0f);
	ret = app_alloc(gpu, floats * sizeof(float), "pages", &args.buf, app,
			err, errlen);
	if (ret)
		goto out;
	simt_h2d(gpu, args.buf, buf, floats * sizeof(float));
	ret = app_launch(gpu, "micro_tlb", tlb_kernel,
			 DIM3(app_blocks(threads, MICRO_BLOCK), 1, 1),
			 DIM3(MICRO_BLOCK, 1, 1), 0, &args, app, err, errlen);
	if (ret)
		goto out;
	simt_d2h(gpu, res, args.buf, floats * sizeof(float));
	for (i = 0; i < threads; i++) {
		uint64_t w = i / PROG_WARP_SIZE, lane = i % PROG_WARP_SIZE;
		uint64_t last = (TLB_ACCESSES - 1) * args.warps + w;
		float sum = 0.0f;

		for (j = 0; j < TLB_ACCESSES; j++)
			sum += buf[(j * args.warps + w) * MICRO_PAGE_FLOATS +
				   lane];
		got[i] = res[last * MICRO_PAGE_FLOATS + PROG_WARP_SIZE + lane];
		want[i] = sum;
	}
	app_test_perturb(got, sizeof(*got), threads);
	ret = app_check_f32(got, want, threads, APP_FLOAT_TOLERANCE, app,
			    "sum", err, errlen);
out:
	free(buf);
	free(res);
	free(got);
	free(want);
	return ret;
}

const struct app_desc app_micro_stream = {
	.name = "micro-stream",
	.suite = "micro",
	.summary = "b[i] = a[i], one thread an element, blocks of 256: "
		   "bandwidth-bound (6 warp instructions a warp)",
	.input = "size = elements (floats) a vector; a uniform in [0, 1) "
		 "from the seed (the values do not change the program)",
	.small_size = 4096,
	.large_size = 1 << 22,
	.paper_sizes = "",
	.kernels = "micro_stream",
	.run = stream_run,
};

const struct app_desc app_micro_chase = {
	.name = "micro-chase",
	.suite = "micro",
	.summary = "one thread follows a random cycle of 128 B lines for "
		   "size - 1 hops, twice (cold, then warm): latency-bound",
	.input = "size = the chain's lines (128 B each); the cycle is "
		 "Sattolo's shuffle from the seed, so the seed moves every "
		 "address",
	.small_size = 256,
	.large_size = 1 << 16,
	.paper_sizes = "",
	.kernels = "micro_chase_cold, micro_chase_warm",
	.run = chase_run,
};

const struct app_desc app_micro_compute = {
	.name = "micro-compute",
	.suite = "micro",
	.summary = "a dependent chain of FFMAs a thread, by 1 warp "
		   "(latency-bound) then by 256 warps (issue-bound)",
	.input = "size = FFMAs a thread; values from the thread index (the "
		 "seed changes nothing)",
	.small_size = 64,
	.large_size = 4096,
	.paper_sizes = "",
	.kernels = "micro_fma_latency, micro_fma_throughput",
	.run = compute_run,
};

const struct app_desc app_micro_tlb = {
	.name = "micro-tlb",
	.suite = "micro",
	.summary = "8 loads a thread, each warp instruction on a page no "
		   "other touches, then a store on the last: a walk an access",
	.input = "size = pages (a multiple of 64; size / 8 warps); floats "
		 "uniform in [0, 1) from the seed (the values do not change "
		 "the program)",
	.small_size = 256,
	.large_size = 1 << 14,
	.paper_sizes = "",
	.kernels = "micro_tlb",
	.run = tlb_run,
};
