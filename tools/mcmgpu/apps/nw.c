// SPDX-License-Identifier: GPL-2.0
/*
 * Rodinia's nw (Needleman-Wunsch): the global alignment score matrix of
 * two sequences of N residues, score[i][j] = max(score[i - 1][j - 1] +
 * ref[i][j], score[i][j - 1] - penalty, score[i - 1][j] - penalty), over
 * an (N + 1) x (N + 1) int matrix whose first row and column hold -k x
 * penalty. ref[i][j] is BLOSUM62's entry for residue i of one sequence
 * and residue j of the other; the penalty is 10 (Rodinia's runs).
 *
 * Rodinia's CUDA version cuts the matrix into 16 x 16 tiles and sweeps
 * their anti-diagonals: needle_cuda_shared_1 for the upper-left half
 * (launch i of N / 16 has i blocks), needle_cuda_shared_2 for the rest
 * (N / 16 - 1 launches, shrinking), one block of 16 threads a tile. A
 * block copies the tile's reference scores and its north, west and
 * north-west borders into shared memory, fills the tile's 31
 * anti-diagonals there (a barrier after each) and writes the tile back,
 * a row at a time.
 */
#include <errno.h>
#include <stdlib.h>

#include "app_util.h"
#include "apps.h"

#define NW_BS		16	/* Rodinia's BLOCK_SIZE */
#define NW_PENALTY	10
#define NW_MAX		16384
/* Shared memory: temp[17][17], then ref[16][16]. */
#define NW_TEMP(r, c)	((r) * (NW_BS + 1) + (c))
#define NW_REF(r, c)	((NW_BS + 1) * (NW_BS + 1) + (r) * NW_BS + (c))
#define NW_SHMEM	(((NW_BS + 1) * (NW_BS + 1) + NW_BS * NW_BS) * 4)

/*
 * BLOSUM62 in NCBI's order A R N D C Q E G H I L K M F P S T W Y V B Z X
 * *, the table Rodinia carries. Rodinia draws each residue as rand() %
 * 10 + 1, so only R .. L (1 .. 10) are used.
 */
static const int8_t nw_blosum62[24][24] = {
	{ 4, -1, -2, -2, 0, -1, -1, 0, -2, -1, -1, -1, -1, -2, -1, 1, 0, -3,
	  -2, 0, -2, -1, 0, -4 },
	{ -1, 5, 0, -2, -3, 1, 0, -2, 0, -3, -2, 2, -1, -3, -2, -1, -1, -3,
	  -2, -3, -1, 0, -1, -4 },
	{ -2, 0, 6, 1, -3, 0, 0, 0, 1, -3, -3, 0, -2, -3, -2, 1, 0, -4, -2,
	  -3, 3, 0, -1, -4 },
	{ -2, -2, 1, 6, -3, 0, 2, -1, -1, -3, -4, -1, -3, -3, -1, 0, -1, -4,
	  -3, -3, 4, 1, -1, -4 },
	{ 0, -3, -3, -3, 9, -3, -4, -3, -3, -1, -1, -3, -1, -2, -3, -1, -1,
	  -2, -2, -1, -3, -3, -2, -4 },
	{ -1, 1, 0, 0, -3, 5, 2, -2, 0, -3, -2, 1, 0, -3, -1, 0, -1, -2, -1,
	  -2, 0, 3, -1, -4 },
	{ -1, 0, 0, 2, -4, 2, 5, -2, 0, -3, -3, 1, -2, -3, -1, 0, -1, -3, -2,
	  -2, 1, 4, -1, -4 },
	{ 0, -2, 0, -1, -3, -2, -2, 6, -2, -4, -4, -2, -3, -3, -2, 0, -2, -2,
	  -3, -3, -1, -2, -1, -4 },
	{ -2, 0, 1, -1, -3, 0, 0, -2, 8, -3, -3, -1, -2, -1, -2, -1, -2, -2,
	  2, -3, 0, 0, -1, -4 },
	{ -1, -3, -3, -3, -1, -3, -3, -4, -3, 4, 2, -3, 1, 0, -3, -2, -1, -3,
	  -1, 3, -3, -3, -1, -4 },
	{ -1, -2, -3, -4, -1, -2, -3, -4, -3, 2, 4, -2, 2, 0, -3, -2, -1, -2,
	  -1, 1, -4, -3, -1, -4 },
	{ -1, 2, 0, -1, -3, 1, 1, -2, -1, -3, -2, 5, -1, -3, -1, 0, -1, -3,
	  -2, -2, 0, 1, -1, -4 },
	{ -1, -1, -2, -3, -1, 0, -2, -3, -2, 1, 2, -1, 5, 0, -2, -1, -1, -1,
	  -1, 1, -3, -1, -1, -4 },
	{ -2, -3, -3, -3, -2, -3, -3, -3, -1, 0, 0, -3, 0, 6, -4, -2, -2, 1,
	  3, -1, -3, -3, -1, -4 },
	{ -1, -2, -2, -1, -3, -1, -1, -2, -2, -3, -3, -1, -2, -4, 7, -1, -1,
	  -4, -3, -2, -2, -1, -2, -4 },
	{ 1, -1, 1, 0, -1, 0, 0, 0, -1, -2, -2, 0, -1, -2, -1, 4, 1, -3, -2,
	  -2, 0, 0, 0, -4 },
	{ 0, -1, 0, -1, -1, -1, -1, -2, -2, -1, -1, -1, -1, -2, -1, 1, 5, -2,
	  -2, 0, -1, -1, 0, -4 },
	{ -3, -3, -4, -4, -2, -2, -3, -2, -2, -3, -2, -3, -1, 1, -4, -3, -2,
	  11, 2, -3, -4, -3, -2, -4 },
	{ -2, -2, -2, -3, -2, -1, -2, -3, 2, -1, -1, -2, -1, 3, -3, -2, -2, 2,
	  7, -1, -3, -2, -1, -4 },
	{ 0, -3, -3, -3, -1, -2, -2, -3, -3, 3, 1, -2, 1, -1, -2, -2, 0, -3,
	  -1, 4, -3, -2, -1, -4 },
	{ -2, -1, 3, 4, -3, 0, 1, -1, 0, -3, -4, 0, -3, -3, -2, 0, -1, -4, -3,
	  -3, 4, 1, -1, -4 },
	{ -1, 0, 0, 1, -3, 3, 4, -2, 0, -3, -3, 1, -1, -3, -1, 0, -1, -3, -2,
	  -2, 1, 4, -1, -4 },
	{ 0, -1, -1, -1, -2, -1, -1, -1, -1, -1, -1, -1, -1, -1, -2, 0, 0, -2,
	  -1, -1, -1, -1, -1, -4 },
	{ -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4,
	  -4, -4, -4, -4, -4, -4, 1 },
};

struct nw_args {
	uint64_t ref, score;
	uint32_t cols;		/* N + 1 */
	uint32_t diag;		/* the launch's i */
	uint32_t tiles;		/* N / 16: Rodinia's block_width */
	bool second;		/* needle_cuda_shared_2 */
};

/* Rodinia's maximum(): two compare-and-selects (INT 2 at the caller). */
static inline int32_t nw_max3(int32_t a, int32_t b, int32_t c)
{
	int32_t k = a <= b ? b : a;

	return k <= c ? c : k;
}

/*
 * One cell of the tile in shared memory, (y, x) counted from its
 * borders. OPS: the three sources' sums (INT 3) and maximum (INT 2).
 */
static void nw_cell(struct simt_thread *t, uint32_t y, uint32_t x)
{
	int32_t nw = LDS(t, int32_t, NW_TEMP(y - 1, x - 1));
	int32_t r = LDS(t, int32_t, NW_REF(y - 1, x - 1));
	int32_t w = LDS(t, int32_t, NW_TEMP(y, x - 1));
	int32_t n = LDS(t, int32_t, NW_TEMP(y - 1, x));

	OPS(t, PROG_OP_INT, 5);
	STS(t, int32_t, NW_TEMP(y, x),
	    nw_max3(nw + r, w - NW_PENALTY, n - NW_PENALTY));
}

/*
 * Both kernels: they differ only in which tile block bx takes. OPS: the
 * tile's coordinates (INT 2) and the four base indices (INT 4); the tx
 * == 0 test (INT 1, BRANCH 1); a row of the reference: its index (INT
 * 1), the loop (INT 2, BRANCH 1); the west border's index (INT 1); an
 * anti-diagonal: tx <= m (INT 1, BRANCH 1), the cell's coordinates for
 * those in it (INT 2), the loop (INT 2, BRANCH 1); the write-back as the
 * reference's loop.
 */
static void nw_kernel(struct simt_thread *t, const void *p)
{
	const struct nw_args *a = p;
	uint32_t bx = simt_block_idx(t).x, tx = simt_thread_idx(t).x;
	uint32_t tile_x, tile_y, ty;
	uint64_t corner, index, index_n, index_w;
	int32_t m;

	if (!a->second) {
		tile_x = bx;
		tile_y = a->diag - 1 - bx;
	} else {
		tile_x = bx + a->tiles - a->diag;
		tile_y = a->tiles - bx - 1;
	}
	corner = (uint64_t)a->cols * NW_BS * tile_y + NW_BS * tile_x;
	index = corner + tx + a->cols + 1;
	index_n = corner + tx + 1;
	index_w = corner + a->cols;
	OPS(t, PROG_OP_INT, 6);

	OPS(t, PROG_OP_INT, 1);
	OPS(t, PROG_OP_BRANCH, 1);
	if (tx == 0)
		STS(t, int32_t, NW_TEMP(0, 0),
		    LD(t, int32_t, a->score, corner));
	for (ty = 0; ty < NW_BS; ty++) {
		int32_t v = LD(t, int32_t, a->ref, index + (uint64_t)a->cols * ty);

		OPS(t, PROG_OP_INT, 1);
		STS(t, int32_t, NW_REF(ty, tx), v);
		OPS(t, PROG_OP_INT, 2);
		OPS(t, PROG_OP_BRANCH, 1);
	}
	SYNC(t);
	OPS(t, PROG_OP_INT, 1);
	STS(t, int32_t, NW_TEMP(tx + 1, 0),
	    LD(t, int32_t, a->score, index_w + (uint64_t)a->cols * tx));
	SYNC(t);
	STS(t, int32_t, NW_TEMP(0, tx + 1), LD(t, int32_t, a->score, index_n));
	SYNC(t);

	/* The upper-left triangle's anti-diagonals, growing. */
	for (m = 0; m < NW_BS; m++) {
		OPS(t, PROG_OP_INT, 1);
		OPS(t, PROG_OP_BRANCH, 1);
		if ((int32_t)tx <= m) {
			OPS(t, PROG_OP_INT, 2);
			nw_cell(t, m - tx + 1, tx + 1);
		}
		SYNC(t);
		OPS(t, PROG_OP_INT, 2);
		OPS(t, PROG_OP_BRANCH, 1);
	}
	/* The lower-right ones, shrinking. */
	for (m = NW_BS - 2; m >= 0; m--) {
		OPS(t, PROG_OP_INT, 1);
		OPS(t, PROG_OP_BRANCH, 1);
		if ((int32_t)tx <= m) {
			OPS(t, PROG_OP_INT, 2);
			nw_cell(t, NW_BS - tx, tx + NW_BS - m);
		}
		SYNC(t);
		OPS(t, PROG_OP_INT, 2);
		OPS(t, PROG_OP_BRANCH, 1);
	}

	for (ty = 0; ty < NW_BS; ty++) {
		int32_t v = LDS(t, int32_t, NW_TEMP(ty + 1, tx + 1));

		OPS(t, PROG_OP_INT, 1);
		ST(t, int32_t, a->score, index + (uint64_t)a->cols * ty, v);
		OPS(t, PROG_OP_INT, 2);
		OPS(t, PROG_OP_BRANCH, 1);
	}
}

/* The plain dynamic programme, row by row. */
static void nw_ref(int32_t *score, const int32_t *ref, uint32_t cols)
{
	uint32_t i, j;

	for (i = 1; i < cols; i++)
		for (j = 1; j < cols; j++) {
			size_t k = (size_t)i * cols + j;

			score[k] = nw_max3(score[k - cols - 1] + ref[k],
					   score[k - 1] - NW_PENALTY,
					   score[k - cols] - NW_PENALTY);
		}
}

static int nw_run(struct simt_gpu *gpu, uint64_t size, uint64_t seed,
		  char *err, size_t errlen)
{
	const char *app = "nw";
	const uint32_t cols = (uint32_t)size + 1;
	const uint64_t elems = (uint64_t)cols * cols;
	const uint64_t bytes = elems * sizeof(int32_t);
	int32_t *ref = NULL, *score = NULL, *got = NULL;
	uint8_t *seq_a = NULL, *seq_b = NULL;
	struct nw_args args = { .cols = cols };
	struct app_rng rng;
	uint32_t i, j;
	int ret;

	ret = app_size_range(size, NW_BS, NW_MAX, "N (residues a sequence)",
			     app, err, errlen);
	if (ret)
		return ret;
	if (size % NW_BS) {
		app_err(err, errlen, app,
			"size %llu: N must be a multiple of %u (the tile)",
			(unsigned long long)size, NW_BS);
		return -EINVAL;
	}
	args.tiles = (uint32_t)size / NW_BS;
	ref = calloc(elems, sizeof(*ref));
	score = calloc(elems, sizeof(*score));
	got = malloc(bytes);
	seq_a = malloc(cols);
	seq_b = malloc(cols);
	ret = -ENOMEM;
	if (!ref || !score || !got || !seq_a || !seq_b) {
		app_err(err, errlen, app, "out of memory");
		goto out;
	}
	/* Rodinia's residues: rand() % 10 + 1, the rows' then the columns'. */
	app_rng_init(&rng, seed, 60);
	for (i = 1; i < cols; i++)
		seq_a[i] = (uint8_t)(app_rng_below(&rng, 10) + 1);
	for (j = 1; j < cols; j++)
		seq_b[j] = (uint8_t)(app_rng_below(&rng, 10) + 1);
	for (i = 1; i < cols; i++)
		for (j = 1; j < cols; j++)
			ref[(size_t)i * cols + j] =
				nw_blosum62[seq_a[i]][seq_b[j]];
	for (i = 1; i < cols; i++) {
		score[(size_t)i * cols] = -(int32_t)i * NW_PENALTY;
		score[i] = -(int32_t)i * NW_PENALTY;
	}

	/* Named as Rodinia names them. */
	ret = app_alloc(gpu, bytes, "referrence_cuda", &args.ref, app, err,
			errlen);
	if (!ret)
		ret = app_alloc(gpu, bytes, "matrix_cuda", &args.score, app,
				err, errlen);
	if (ret)
		goto out;
	simt_h2d(gpu, args.ref, ref, bytes);
	simt_h2d(gpu, args.score, score, bytes);
	for (i = 1; i <= args.tiles; i++) {
		args.diag = i;
		ret = app_launch(gpu, "needle_cuda_shared_1", nw_kernel,
				 DIM3(i, 1, 1), DIM3(NW_BS, 1, 1), NW_SHMEM,
				 &args, app, err, errlen);
		if (ret)
			goto out;
	}
	args.second = true;
	for (i = args.tiles - 1; i >= 1; i--) {
		args.diag = i;
		ret = app_launch(gpu, "needle_cuda_shared_2", nw_kernel,
				 DIM3(i, 1, 1), DIM3(NW_BS, 1, 1), NW_SHMEM,
				 &args, app, err, errlen);
		if (ret)
			goto out;
	}
	simt_d2h(gpu, got, args.score, bytes);
	app_test_perturb(got, sizeof(*got), elems);

	nw_ref(score, ref, cols);
	ret = app_check_i32(got, score, elems, app, "matrix", err, errlen);
out:
	free(ref);
	free(score);
	free(got);
	free(seq_a);
	free(seq_b);
	return ret;
}

const struct app_desc app_nw = {
	.name = "nw",
	.suite = "Rodinia (nw)",
	.summary = "Needleman-Wunsch scores, penalty 10: 16 x 16 tiles swept "
		   "by anti-diagonals, 2 N / 16 - 1 launches of 16-thread "
		   "blocks, each tile's diagonals in shared memory",
	.input = "size = N: residues in each of two sequences (a multiple "
		 "of 16), each residue uniform in 1 .. 10 from the seed as "
		 "Rodinia draws them; scores from BLOSUM62 (the values do not "
		 "change the program; Rodinia's runs use 2048)",
	.small_size = 256,
	.large_size = 2048,
	.paper_sizes = "Barre Table I (nw, MPKI 21.56): input not given; "
		       "CPElide Table II: 8192 10 = size 8192 (penalty 10 as "
		       "given; --large is 2048)",
	.kernels = "needle_cuda_shared_1, needle_cuda_shared_2",
	.run = nw_run,
};
