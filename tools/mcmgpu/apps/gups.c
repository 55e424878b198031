// SPDX-License-Identifier: GPL-2.0
/*
 * GUPS (MAFIA's, after HPCC RandomAccess): random read-modify-write
 * updates of a table of 64-bit words, T[ran & (size - 1)] ^= ran, with
 * ran stepping through HPCC's stream (ran = ran << 1, XOR-ed with the
 * polynomial 7 when its top bit was set). 4 x size updates (HPCC's
 * NUPDATE) are shared by a fixed grid of 32 blocks of 256 threads,
 * each thread taking a consecutive run of the stream from its own
 * starting value (HPCC_starts' value, computed on the host and copied
 * in as HPCC's GPU versions do). A kernel first sets T[i] = i.
 *
 * The update is a plain load and store, as HPCC allows (its check
 * tolerates 1 % lost updates; the executor runs a thread's updates
 * without interleaving, so none are lost here and the check is exact).
 * The stream's start is taken from the seed, so a seed moves every
 * address.
 */
#include <errno.h>
#include <stdlib.h>

#include "app_util.h"
#include "apps.h"

#define GUPS_BLOCK	256
#define GUPS_THREADS	(32 * GUPS_BLOCK)
#define GUPS_MIN	(GUPS_THREADS / 4)	/* an update a thread */
#define GUPS_MAX	(1ULL << 28)		/* a 2 GiB table */

struct gups_args {
	uint64_t table, ran;
	uint64_t size;			/* a power of two */
	uint64_t updates;		/* a thread */
};

/* T[i] = i. OPS: the index and its bounds (INT 2, BRANCH 1). */
static void gups_init_kernel(struct simt_thread *t, const void *p)
{
	const struct gups_args *a = p;
	uint64_t i = simt_global_x(t);

	OPS(t, PROG_OP_INT, 2);
	OPS(t, PROG_OP_BRANCH, 1);
	if (i >= a->size)
		return;
	ST(t, uint64_t, a->table, i, i);
}

/*
 * OPS: the index (INT 1); an update: the step's shift, sign test, select
 * and XOR and the mask (INT 5), the update's XOR (INT 1), the loop's
 * add and compare (INT 2) and back edge (BRANCH 1).
 */
static void gups_update_kernel(struct simt_thread *t, const void *p)
{
	const struct gups_args *a = p;
	uint64_t j = simt_global_x(t);
	uint64_t ran, i;

	OPS(t, PROG_OP_INT, 1);
	ran = LD(t, uint64_t, a->ran, j);
	for (i = 0; i < a->updates; i++) {
		uint64_t idx, v;

		ran = app_hpcc_step(ran);
		idx = ran & (a->size - 1);
		OPS(t, PROG_OP_INT, 5);
		v = LD(t, uint64_t, a->table, idx);
		OPS(t, PROG_OP_INT, 1);
		ST(t, uint64_t, a->table, idx, v ^ ran);
		OPS(t, PROG_OP_INT, 2);
		OPS(t, PROG_OP_BRANCH, 1);
	}
	ST(t, uint64_t, a->ran, j, ran);
}

static int gups_run(struct simt_gpu *gpu, uint64_t size, uint64_t seed,
		    char *err, size_t errlen)
{
	const char *app = "gups";
	uint64_t *ran = NULL, *got = NULL, *want = NULL;
	uint64_t base, temp, i;
	struct gups_args args = { .size = size };
	int ret;

	ret = app_size_range(size, GUPS_MIN, GUPS_MAX, "the table's words",
			     app, err, errlen);
	if (ret)
		return ret;
	if (size & (size - 1)) {
		app_err(err, errlen, app,
			"size %llu: the table's words must be a power of two",
			(unsigned long long)size);
		return -EINVAL;
	}
	args.updates = 4 * size / GUPS_THREADS;
	ran = malloc(GUPS_THREADS * sizeof(*ran));
	got = malloc(size * sizeof(*got));
	want = malloc(size * sizeof(*want));
	ret = -ENOMEM;
	if (!ran || !got || !want) {
		app_err(err, errlen, app, "out of memory");
		goto out;
	}
	/*
	 * Thread i starts at HPCC_starts(base + i * updates): walking the
	 * stream there is cheaper than 8192 jumps ahead.
	 */
	base = app_mix64(seed) % APP_HPCC_PERIOD;
	temp = app_hpcc_starts(base);
	for (i = 0; i < GUPS_THREADS; i++) {
		uint64_t k;

		ran[i] = temp;
		for (k = 0; k < args.updates; k++)
			temp = app_hpcc_step(temp);
	}

	ret = app_alloc(gpu, size * sizeof(uint64_t), "Table", &args.table,
			app, err, errlen);
	if (!ret)
		ret = app_alloc(gpu, GUPS_THREADS * sizeof(uint64_t), "ran",
				&args.ran, app, err, errlen);
	if (ret)
		goto out;
	simt_h2d(gpu, args.ran, ran, GUPS_THREADS * sizeof(uint64_t));
	ret = app_launch(gpu, "initTable", gups_init_kernel,
			 DIM3(app_blocks(size, GUPS_BLOCK), 1, 1),
			 DIM3(GUPS_BLOCK, 1, 1), 0, &args, app, err, errlen);
	if (!ret)
		ret = app_launch(gpu, "RandomAccessUpdate", gups_update_kernel,
				 DIM3(GUPS_THREADS / GUPS_BLOCK, 1, 1),
				 DIM3(GUPS_BLOCK, 1, 1), 0, &args, app, err,
				 errlen);
	if (ret)
		goto out;
	simt_d2h(gpu, got, args.table, size * sizeof(uint64_t));
	app_test_perturb(got, sizeof(*got), size);

	/* HPCC's verification: the whole stream again, in one sequence. */
	for (i = 0; i < size; i++)
		want[i] = i;
	temp = app_hpcc_starts(base);
	for (i = 0; i < 4 * size; i++) {
		temp = app_hpcc_step(temp);
		want[temp & (size - 1)] ^= temp;
	}
	ret = app_check_u64(got, want, size, app, "Table", err, errlen);
out:
	free(ran);
	free(got);
	free(want);
	return ret;
}

const struct app_desc app_gups = {
	.name = "gups",
	.suite = "MAFIA (GUPS, HPCC RandomAccess)",
	.summary = "4 x size random XOR updates of a 64-bit table by 8192 "
		   "threads, HPCC's stream; a plain load and store an update",
	.input = "size = the table's 64-bit words (a power of two, at least "
		 "2048); the update stream starts at HPCC_starts(hash(seed) "
		 "mod HPCC's period), so the seed moves every address",
	.small_size = 4096,
	.large_size = 1 << 22,
	.paper_sizes = "Barre Table I (gups, MPKI 724.80): input not given",
	.kernels = "initTable, RandomAccessUpdate",
	.run = gups_run,
};
