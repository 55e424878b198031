// SPDX-License-Identifier: GPL-2.0
/*
 * backprop (CPElide's Table II): Rodinia's backprop, one training step
 * of a network of in inputs, 16 hidden units and one output. The GPU
 * does the two big layers' work in blocks of 16 x 16 threads (WIDTH x
 * HEIGHT), a block 16 input rows, grid (1, in / 16):
 * bpnn_layerforward_CUDA multiplies each weight by its input in shared
 * memory, sums each hidden unit's column by a tree over the 16 rows
 * (writing the products back over the weights, as Rodinia does) and
 * writes a partial sum a block and hidden unit; the host adds the
 * partial sums and the bias weight, squashes them, runs the output
 * layer, output and hidden errors and the hidden weights' adjustment on
 * the CPU, copies the hidden deltas, the previous input weights and
 * (again) the input weights in; bpnn_adjust_weights_cuda then moves
 * every input weight by ETA delta x + MOMENTUM oldw (0.3 each), block
 * 0's first row also the bias row. The host copies the weights back.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "app_util.h"
#include "apps.h"

#define BP_HID		16
#define BP_BLOCK	16	/* WIDTH and HEIGHT */
#define BP_ETA		0.3f
#define BP_MOMENTUM	0.3f
#define BP_TARGET	0.1f
#define BP_MAX		(1ULL << 22)

struct bp_args {
	uint64_t input, weights, partial, delta, prev;
	int32_t in, hid;
};

/*
 * Shared: input_node[16], weight_matrix[16][16]. OPS: the indices (INT
 * 4), tx == 0 (INT 1, BRANCH 1); the product (FP 1); a tree level (of
 * 4): __log2f and __powf (SFU 2), the modulo and test (INT 2, BRANCH 1),
 * the add where taken (FP 1), the loop (INT 2, BRANCH 1); tx == 0 again
 * (INT 1, BRANCH 1).
 */
static void bp_forward(struct simt_thread *t, const void *p)
{
	const struct bp_args *a = p;
	const uint32_t node = 0, wm = BP_BLOCK;
	int32_t tx = (int32_t)simt_thread_idx(t).x;
	int32_t ty = (int32_t)simt_thread_idx(t).y;
	int32_t by = (int32_t)simt_block_idx(t).y;
	int64_t index = (int64_t)(a->hid + 1) * BP_BLOCK * by +
		(a->hid + 1) * ty + tx + 1 + (a->hid + 1);
	int64_t index_in = (int64_t)BP_BLOCK * by + ty + 1;
	uint32_t me = wm + ty * BP_BLOCK + tx;
	int32_t i, pt;

	OPS(t, PROG_OP_INT, 5);
	OPS(t, PROG_OP_BRANCH, 1);
	if (tx == 0)
		STS(t, float, node + ty, LD(t, float, a->input, index_in));
	SYNC(t);
	STS(t, float, me, LD(t, float, a->weights, index));
	SYNC(t);
	OPS(t, PROG_OP_FP, 1);
	STS(t, float, me, LDS(t, float, me) * LDS(t, float, node + ty));
	SYNC(t);
	for (i = 1, pt = 2; pt <= BP_BLOCK; i++, pt *= 2) {
		OPS(t, PROG_OP_SFU, 2);
		OPS(t, PROG_OP_INT, 2);
		OPS(t, PROG_OP_BRANCH, 1);
		if (ty % pt == 0) {
			float x = LDS(t, float, me);
			float y = LDS(t, float, me + pt / 2 * BP_BLOCK);

			OPS(t, PROG_OP_FP, 1);
			STS(t, float, me, x + y);
		}
		SYNC(t);
		OPS(t, PROG_OP_INT, 2);
		OPS(t, PROG_OP_BRANCH, 1);
	}
	ST(t, float, a->weights, index, LDS(t, float, me));
	SYNC(t);
	OPS(t, PROG_OP_INT, 1);
	OPS(t, PROG_OP_BRANCH, 1);
	if (tx == 0)
		ST(t, float, a->partial, (int64_t)by * a->hid + ty,
		   LDS(t, float, wm + tx * BP_BLOCK + ty));
}

/* The adjustment both the kernel and the reference make. */
static inline float bp_dw(float delta, float ly, float oldw)
{
	return BP_ETA * delta * ly + BP_MOMENTUM * oldw;
}

/*
 * OPS: the indices (INT 5); the step, twice as Rodinia writes it (FP 6),
 * the add (FP 1); ty == 0 && by == 0 (INT 2, BRANCH 1) and there the
 * bias row's step twice and its add (FP 5).
 */
static void bp_adjust(struct simt_thread *t, const void *p)
{
	const struct bp_args *a = p;
	int32_t tx = (int32_t)simt_thread_idx(t).x;
	int32_t ty = (int32_t)simt_thread_idx(t).y;
	int32_t by = (int32_t)simt_block_idx(t).y;
	int64_t index = (int64_t)(a->hid + 1) * BP_BLOCK * by +
		(a->hid + 1) * ty + tx + 1 + (a->hid + 1);
	int64_t index_y = (int64_t)BP_BLOCK * by + ty + 1;
	int32_t index_x = tx + 1;
	float d, ly, old, w;

	OPS(t, PROG_OP_INT, 5);
	d = LD(t, float, a->delta, index_x);
	ly = LD(t, float, a->input, index_y);
	old = LD(t, float, a->prev, index);
	w = LD(t, float, a->weights, index);
	OPS(t, PROG_OP_FP, 7);
	ST(t, float, a->weights, index, w + bp_dw(d, ly, old));
	d = LD(t, float, a->delta, index_x);
	ly = LD(t, float, a->input, index_y);
	old = LD(t, float, a->prev, index);
	ST(t, float, a->prev, index, bp_dw(d, ly, old));
	SYNC(t);
	OPS(t, PROG_OP_INT, 2);
	OPS(t, PROG_OP_BRANCH, 1);
	if (ty == 0 && by == 0) {
		d = LD(t, float, a->delta, index_x);
		old = LD(t, float, a->prev, index_x);
		w = LD(t, float, a->weights, index_x);
		OPS(t, PROG_OP_FP, 5);
		ST(t, float, a->weights, index_x, w + bp_dw(d, 1.0f, old));
		d = LD(t, float, a->delta, index_x);
		old = LD(t, float, a->prev, index_x);
		ST(t, float, a->prev, index_x, bp_dw(d, 1.0f, old));
	}
}

static float bp_squash(float x)
{
	return 1.0f / (1.0f + expf(-x));
}

/*
 * The host's part between the kernels (Rodinia's bpnn_train_cuda): the
 * hidden units from the partial sums, the output layer, the errors, the
 * hidden weights' adjustment; fills hidden_delta[1..16].
 */
static void bp_host(const float *partial, uint32_t nblocks, const float *w0,
		    float *hw, float *hprev, float *hidden_delta)
{
	float hidden[BP_HID + 1], out, sum, out_delta;
	uint32_t j, k;

	hidden[0] = 1.0f;
	for (j = 1; j <= BP_HID; j++) {
		sum = 0.0f;
		for (k = 0; k < nblocks; k++)
			sum += partial[k * BP_HID + j - 1];
		sum += w0[j];
		hidden[j] = bp_squash(sum);
	}
	/* bpnn_layerforward to the one output; hw is (hid + 1) x 2. */
	sum = 0.0f;
	for (k = 0; k <= BP_HID; k++)
		sum += hw[k * 2 + 1] * hidden[k];
	out = bp_squash(sum);
	out_delta = out * (1.0f - out) * (BP_TARGET - out);
	for (j = 1; j <= BP_HID; j++)
		hidden_delta[j] = hidden[j] * (1.0f - hidden[j]) *
			(out_delta * hw[j * 2 + 1]);
	hidden_delta[0] = 0.0f;
	/* bpnn_adjust_weights on the hidden layer. */
	for (k = 0; k <= BP_HID; k++) {
		float dw = BP_ETA * out_delta * hidden[k] +
			BP_MOMENTUM * hprev[k * 2 + 1];

		hw[k * 2 + 1] += dw;
		hprev[k * 2 + 1] = dw;
	}
}

/* The reference's forward partial sums: each block's tree, in order. */
static void bp_partial_ref(const float *input, const float *w, float *partial,
			   uint32_t nblocks)
{
	float col[BP_BLOCK];
	uint32_t by, tx, ty, pt;

	for (by = 0; by < nblocks; by++) {
		for (tx = 0; tx < BP_HID; tx++) {
			for (ty = 0; ty < BP_BLOCK; ty++) {
				uint64_t r = (uint64_t)by * BP_BLOCK + ty + 1;

				col[ty] = w[r * (BP_HID + 1) + tx + 1] *
					input[r];
			}
			for (pt = 2; pt <= BP_BLOCK; pt *= 2)
				for (ty = 0; ty < BP_BLOCK; ty += pt)
					col[ty] = col[ty] + col[ty + pt / 2];
			partial[by * BP_HID + tx] = col[0];
		}
	}
}

static int bp_run(struct simt_gpu *gpu, uint64_t size, uint64_t seed,
		  char *err, size_t errlen)
{
	const char *app = "backprop";
	const uint32_t nblocks = (uint32_t)(size / BP_BLOCK);
	const uint64_t nw = (size + 1) * (BP_HID + 1);
	const uint64_t wbytes = nw * sizeof(float);
	const struct simt_dim3 grid = DIM3(1, nblocks, 1);
	const struct simt_dim3 block = DIM3(BP_BLOCK, BP_BLOCK, 1);
	float *input = NULL, *w = NULL, *got = NULL, *want = NULL;
	float *partial = NULL, *zero = NULL;
	float hw[(BP_HID + 1) * 2], hprev[(BP_HID + 1) * 2];
	float hw2[(BP_HID + 1) * 2], hprev2[(BP_HID + 1) * 2];
	float delta[BP_HID + 1], delta2[BP_HID + 1];
	struct bp_args args = { .in = (int32_t)size, .hid = BP_HID };
	struct app_rng rng;
	uint64_t i, r;
	uint32_t j;
	int ret;

	ret = app_size_range(size, BP_BLOCK, BP_MAX, "the input units", app,
			     err, errlen);
	if (ret)
		return ret;
	if (size % BP_BLOCK) {
		app_err(err, errlen, app,
			"size %llu: the input units must be a multiple of 16",
			(unsigned long long)size);
		return -EINVAL;
	}
	input = malloc((size + 1) * sizeof(float));
	w = malloc(wbytes);
	got = malloc(wbytes);
	want = malloc(wbytes);
	zero = calloc(nw, sizeof(float));
	partial = malloc((size_t)nblocks * BP_HID * sizeof(float));
	ret = -ENOMEM;
	if (!input || !w || !got || !want || !zero || !partial) {
		app_err(err, errlen, app, "out of memory");
		goto out;
	}
	/* Rodinia: inputs and both weight layers rand() / RAND_MAX. */
	app_rng_init(&rng, seed, 80);
	app_rng_fill_float(&rng, input, size + 1, 1.0f);
	input[0] = 1.0f;	/* the bias unit */
	app_rng_fill_float(&rng, w, nw, 1.0f);
	app_rng_fill_float(&rng, hw, (BP_HID + 1) * 2, 1.0f);
	memset(hprev, 0, sizeof(hprev));
	memcpy(hw2, hw, sizeof(hw));
	memcpy(hprev2, hprev, sizeof(hprev));

	ret = app_alloc(gpu, (size + 1) * sizeof(float), "input_cuda",
			&args.input, app, err, errlen);
	if (!ret)
		ret = app_alloc(gpu, wbytes, "input_hidden_cuda",
				&args.weights, app, err, errlen);
	if (!ret)
		ret = app_alloc(gpu, (uint64_t)nblocks * BP_HID *
				sizeof(float), "hidden_partial_sum",
				&args.partial, app, err, errlen);
	if (!ret)
		ret = app_alloc(gpu, (BP_HID + 1) * sizeof(float),
				"hidden_delta_cuda", &args.delta, app, err,
				errlen);
	if (!ret)
		ret = app_alloc(gpu, wbytes, "input_prev_weights_cuda",
				&args.prev, app, err, errlen);
	if (ret)
		goto out;
	simt_h2d(gpu, args.input, input, (size + 1) * sizeof(float));
	simt_h2d(gpu, args.weights, w, wbytes);
	ret = app_launch(gpu, "bpnn_layerforward_CUDA", bp_forward, grid,
			 block, (BP_BLOCK + BP_BLOCK * BP_BLOCK) *
			 sizeof(float), &args, app, err, errlen);
	if (ret)
		goto out;
	simt_d2h(gpu, partial, args.partial,
		 (uint64_t)nblocks * BP_HID * sizeof(float));
	bp_host(partial, nblocks, w, hw, hprev, delta);
	simt_h2d(gpu, args.delta, delta, sizeof(delta));
	simt_h2d(gpu, args.prev, zero, wbytes);
	simt_h2d(gpu, args.weights, w, wbytes);
	ret = app_launch(gpu, "bpnn_adjust_weights_cuda", bp_adjust, grid,
			 block, 0, &args, app, err, errlen);
	if (ret)
		goto out;
	simt_d2h(gpu, input, args.input, (size + 1) * sizeof(float));
	simt_d2h(gpu, got, args.weights, wbytes);
	app_test_perturb(got, sizeof(*got), nw);

	/* The reference: the same step on the CPU. */
	bp_partial_ref(input, w, partial, nblocks);
	bp_host(partial, nblocks, w, hw2, hprev2, delta2);
	memcpy(want, w, wbytes);
	for (r = 1; r <= size; r++)
		for (j = 1; j <= BP_HID; j++) {
			i = r * (BP_HID + 1) + j;
			want[i] = w[i] + bp_dw(delta2[j], input[r], 0.0f);
		}
	for (j = 1; j <= BP_HID; j++)
		want[j] = w[j] + bp_dw(delta2[j], 1.0f, 0.0f);
	ret = app_check_f32(got, want, nw, APP_FLOAT_TOLERANCE, app,
			    "input_weights", err, errlen);
out:
	free(input);
	free(w);
	free(got);
	free(want);
	free(zero);
	free(partial);
	return ret;
}

const struct app_desc app_backprop = {
	.name = "backprop",
	.suite = "Rodinia (backprop)",
	.summary = "one training step of an in x 16 x 1 network: "
		   "bpnn_layerforward_CUDA (products and a shared-memory tree "
		   "a hidden unit) and bpnn_adjust_weights_cuda in 16 x 16 "
		   "blocks of 16 input rows, the small layers on the host "
		   "between",
	.input = "size = input units (a multiple of 16; Table II: 65536), "
		 "16 hidden, 1 output; inputs and weights uniform in [0, 1) "
		 "from the seed as Rodinia's rand() / RAND_MAX, target 0.1, "
		 "previous weights zero. Large: the paper's 65536 (4.5 MiB "
		 "of weights)",
	.small_size = 1024,
	.large_size = 65536,
	.paper_sizes = "CPElide Table II: 65536 = size 65536 (--large)",
	.kernels = "bpnn_layerforward_CUDA, bpnn_adjust_weights_cuda",
	.run = bp_run,
};
