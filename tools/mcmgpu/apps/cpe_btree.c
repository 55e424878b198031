// SPDX-License-Identifier: GPL-2.0
/*
 * btree (CPElide's Table II: BTREE): Rodinia's b+tree queries on the
 * tree flattened for the GPU (transform_to_cuda: knodes in breadth-first
 * order, each Rodinia's 2068-byte knode of order 256: location,
 * indices[257], keys[257], is_leaf, num_keys). A block of 256 threads
 * (the order) serves one query, thread i testing keys[i] <= key <
 * keys[i + 1] at each level to pick the child, thread 0 moving the
 * block's current node down, height times; then the leaf's thread
 * holding the key answers. The command file "j 6000 3000, k 10000" runs
 * findRangeK (both ends of a range walked side by side: the start's
 * record and the range's record count) then findK (the key's record);
 * each wrapper allocates its arrays, copies the tree and its queries in
 * and its answers out, as Rodinia's wrappers do.
 *
 * The tree is bulk-loaded from sorted keys, 192 entries a node (3/4 of
 * the order) rather than built by Rodinia's one-by-one insertion of
 * mil.txt; internal keys[0] is INT_MIN, unused keys INT_MAX, so exactly
 * one thread's test holds at each level.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "app_util.h"
#include "apps.h"

#define BT_ORDER	256
#define BT_FILL		192
#define BT_RANGE	3000	/* Table II: j 6000 3000 */
#define BT_MIN		1024
#define BT_MAX		(1ULL << 22)
/* A knode as int32 words: Rodinia's struct layout. */
#define BT_LOC		0
#define BT_IDX		1
#define BT_KEYS		(BT_IDX + BT_ORDER + 1)
#define BT_LEAF		(BT_KEYS + BT_ORDER + 1)
#define BT_NKEYS	(BT_LEAF + 1)
#define BT_WORDS	(BT_NKEYS + 1)	/* 517: 2068 bytes */

struct bt_args {
	uint64_t knodes, records, curr, offset, last, offset2, keys, ans;
	uint64_t start, end, recstart, reclen;
	int64_t height, nknodes;
};

#define KN(node, field, i)	((int64_t)(node) * BT_WORDS + (field) + (i))

/*
 * OPS: a level: the two key tests (INT 3, BRANCH 1), the index's test
 * where they hold (INT 1, BRANCH 1), thid == 0 (INT 1, BRANCH 1), the
 * loop (INT 2, BRANCH 1); the leaf's test (INT 1, BRANCH 1).
 */
static void bt_findk(struct simt_thread *t, const void *p)
{
	const struct bt_args *a = p;
	int32_t thid = (int32_t)simt_thread_idx(t).x;
	uint32_t bid = simt_block_idx(t).x;
	int32_t key = LD(t, int32_t, a->keys, bid);
	int64_t i, cur;

	for (i = 0; i < a->height; i++) {
		cur = LD(t, int64_t, a->curr, bid);
		OPS(t, PROG_OP_INT, 3);
		OPS(t, PROG_OP_BRANCH, 1);
		if (LD(t, int32_t, a->knodes, KN(cur, BT_KEYS, thid)) <= key &&
		    LD(t, int32_t, a->knodes, KN(cur, BT_KEYS, thid + 1)) >
		    key) {
			int64_t off = LD(t, int64_t, a->offset, bid);
			int32_t next = LD(t, int32_t, a->knodes,
					  KN(off, BT_IDX, thid));

			OPS(t, PROG_OP_INT, 1);
			OPS(t, PROG_OP_BRANCH, 1);
			if (next < a->nknodes)
				ST(t, int64_t, a->offset, bid, next);
		}
		SYNC(t);
		OPS(t, PROG_OP_INT, 1);
		OPS(t, PROG_OP_BRANCH, 1);
		if (thid == 0)
			ST(t, int64_t, a->curr, bid,
			   LD(t, int64_t, a->offset, bid));
		SYNC(t);
		OPS(t, PROG_OP_INT, 2);
		OPS(t, PROG_OP_BRANCH, 1);
	}
	cur = LD(t, int64_t, a->curr, bid);
	OPS(t, PROG_OP_INT, 1);
	OPS(t, PROG_OP_BRANCH, 1);
	if (LD(t, int32_t, a->knodes, KN(cur, BT_KEYS, thid)) == key) {
		int32_t rec = LD(t, int32_t, a->knodes, KN(cur, BT_IDX, thid));

		ST(t, int32_t, a->ans, bid, LD(t, int32_t, a->records, rec));
	}
}

/*
 * OPS: a level: each end's two key tests (INT 3, BRANCH 1) and index
 * test where they hold (INT 1, BRANCH 1), thid == 0 (INT 1, BRANCH 1),
 * the loop (INT 2, BRANCH 1); the leaves: each end's test (INT 1,
 * BRANCH 1), the length's subtraction and add (INT 2).
 */
static void bt_findrange(struct simt_thread *t, const void *p)
{
	const struct bt_args *a = p;
	int32_t thid = (int32_t)simt_thread_idx(t).x;
	uint32_t bid = simt_block_idx(t).x;
	int32_t start = LD(t, int32_t, a->start, bid);
	int32_t end = LD(t, int32_t, a->end, bid);
	int64_t i, cur, last;

	for (i = 0; i < a->height; i++) {
		cur = LD(t, int64_t, a->curr, bid);
		OPS(t, PROG_OP_INT, 3);
		OPS(t, PROG_OP_BRANCH, 1);
		if (LD(t, int32_t, a->knodes, KN(cur, BT_KEYS, thid)) <=
		    start &&
		    LD(t, int32_t, a->knodes, KN(cur, BT_KEYS, thid + 1)) >
		    start) {
			int32_t next = LD(t, int32_t, a->knodes,
					  KN(cur, BT_IDX, thid));

			OPS(t, PROG_OP_INT, 1);
			OPS(t, PROG_OP_BRANCH, 1);
			if (next < a->nknodes)
				ST(t, int64_t, a->offset, bid, next);
		}
		last = LD(t, int64_t, a->last, bid);
		OPS(t, PROG_OP_INT, 3);
		OPS(t, PROG_OP_BRANCH, 1);
		if (LD(t, int32_t, a->knodes, KN(last, BT_KEYS, thid)) <=
		    end &&
		    LD(t, int32_t, a->knodes, KN(last, BT_KEYS, thid + 1)) >
		    end) {
			int32_t next = LD(t, int32_t, a->knodes,
					  KN(last, BT_IDX, thid));

			OPS(t, PROG_OP_INT, 1);
			OPS(t, PROG_OP_BRANCH, 1);
			if (next < a->nknodes)
				ST(t, int64_t, a->offset2, bid, next);
		}
		SYNC(t);
		OPS(t, PROG_OP_INT, 1);
		OPS(t, PROG_OP_BRANCH, 1);
		if (thid == 0) {
			ST(t, int64_t, a->curr, bid,
			   LD(t, int64_t, a->offset, bid));
			ST(t, int64_t, a->last, bid,
			   LD(t, int64_t, a->offset2, bid));
		}
		SYNC(t);
		OPS(t, PROG_OP_INT, 2);
		OPS(t, PROG_OP_BRANCH, 1);
	}
	cur = LD(t, int64_t, a->curr, bid);
	OPS(t, PROG_OP_INT, 1);
	OPS(t, PROG_OP_BRANCH, 1);
	if (LD(t, int32_t, a->knodes, KN(cur, BT_KEYS, thid)) == start)
		ST(t, int32_t, a->recstart, bid,
		   LD(t, int32_t, a->knodes, KN(cur, BT_IDX, thid)));
	SYNC(t);
	last = LD(t, int64_t, a->last, bid);
	OPS(t, PROG_OP_INT, 1);
	OPS(t, PROG_OP_BRANCH, 1);
	if (LD(t, int32_t, a->knodes, KN(last, BT_KEYS, thid)) == end) {
		int32_t rec = LD(t, int32_t, a->knodes,
				 KN(last, BT_IDX, thid));
		int32_t rs = LD(t, int32_t, a->recstart, bid);

		OPS(t, PROG_OP_INT, 2);
		ST(t, int32_t, a->reclen, bid, rec - rs + 1);
	}
}

static int64_t bt_pow(int64_t l)
{
	int64_t r = 1;

	while (l-- > 0)
		r *= BT_FILL;
	return r;
}

/*
 * Bulk-loads n sorted keys: leaves of BT_FILL keys, then levels of
 * BT_FILL children up to one root, numbered breadth-first from the root.
 * Returns the node count; *height the internal levels.
 */
static int64_t bt_build(int32_t *kn, const int32_t *keys, int64_t n,
			int64_t *height)
{
	int64_t level_n[32], level_first[32], levels = 0, total = 0;
	int64_t cnt = (n + BT_FILL - 1) / BT_FILL, l, i, j, first;

	/* Node counts level by level, leaves first. */
	for (;;) {
		level_n[levels++] = cnt;
		total += cnt;
		if (cnt == 1)
			break;
		cnt = (cnt + BT_FILL - 1) / BT_FILL;
	}
	/* Breadth-first numbering: the root level first. */
	first = 0;
	for (l = levels - 1; l >= 0; l--) {
		level_first[l] = first;
		first += level_n[l];
	}
	for (i = 0; i < total * BT_WORDS; i++)
		kn[i] = 0;
	for (l = 0; l < levels; l++) {
		for (i = 0; i < level_n[l]; i++) {
			int64_t node = level_first[l] + i;
			int32_t *k = kn + node * BT_WORDS;
			int64_t span = l ? level_n[l - 1] : n;
			int64_t lo = i * BT_FILL;
			int64_t hi = lo + BT_FILL < span ? lo + BT_FILL : span;

			k[BT_LOC] = (int32_t)node;
			k[BT_LEAF] = !l;
			k[BT_NKEYS] = (int32_t)(hi - lo);
			for (j = 0; j <= BT_ORDER; j++)
				k[BT_KEYS + j] = INT_MAX;
			for (j = lo; j < hi; j++) {
				if (!l) {
					k[BT_KEYS + j - lo] = keys[j];
					k[BT_IDX + j - lo] = (int32_t)j;
					continue;
				}
				/* Child j's first key: its leftmost leaf's. */
				k[BT_KEYS + j - lo] = j == lo ? INT_MIN :
					keys[j * BT_FILL * bt_pow(l - 1)];
				k[BT_IDX + j - lo] =
					(int32_t)(level_first[l - 1] + j);
			}
		}
	}
	*height = levels - 1;
	return total;
}

/* The reference answers: a binary search a key, -1 when absent. */
static int64_t bt_find(const int32_t *keys, int64_t n, int32_t key)
{
	int64_t lo = 0, hi = n;

	while (lo < hi) {
		int64_t mid = lo + (hi - lo) / 2;

		if (keys[mid] < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && keys[lo] == key ? lo : -1;
}

/* Allocations of one wrapper, names as Rodinia's. */
static int bt_allocs(struct simt_gpu *gpu, const char *const *names,
		     uint64_t *const *addrs, const uint64_t *bytes, int n,
		     const char *app, char *err, size_t errlen)
{
	int i, ret = 0;

	for (i = 0; !ret && i < n; i++)
		ret = app_alloc(gpu, bytes[i], names[i], addrs[i], app, err,
				errlen);
	return ret;
}

static int bt_run(struct simt_gpu *gpu, uint64_t size, uint64_t seed,
		  char *err, size_t errlen)
{
	const char *app = "btree";
	const int64_t n = (int64_t)size;
	const uint32_t nk = (uint32_t)(size / 100);
	const uint32_t nj = (uint32_t)(size * 6 / 1000);
	const struct simt_dim3 block = DIM3(BT_ORDER, 1, 1);
	int32_t *keys = NULL, *kn = NULL, *qk = NULL, *qs = NULL, *qe = NULL;
	int32_t *ans = NULL, *rs = NULL, *rl = NULL, *want = NULL;
	int64_t *zero = NULL, nodes, height, maxkey, i;
	uint64_t kbytes;
	struct bt_args args;
	struct app_rng rng;
	int ret;

	ret = app_size_range(size, BT_MIN, BT_MAX, "the keys", app, err,
			     errlen);
	if (ret)
		return ret;
	keys = malloc(size * sizeof(*keys));
	/* A generous bound on the nodes: every level at least 1/192. */
	kn = malloc((size / BT_FILL + 16) * 2 * BT_WORDS * sizeof(*kn));
	qk = malloc(nk * sizeof(*qk));
	qs = malloc(nj * sizeof(*qs));
	qe = malloc(nj * sizeof(*qe));
	ans = malloc(nk * sizeof(*ans));
	rs = calloc(nj, sizeof(*rs));
	rl = calloc(nj, sizeof(*rl));
	want = malloc((nk + 2 * (size_t)nj) * sizeof(*want));
	zero = calloc(nk > nj ? nk : nj, sizeof(*zero));
	ret = -ENOMEM;
	if (!keys || !kn || !qk || !qs || !qe || !ans || !rs || !rl ||
	    !want || !zero) {
		app_err(err, errlen, app, "out of memory");
		goto out;
	}
	/* Distinct sorted keys, on average two apart; records = keys. */
	app_rng_init(&rng, seed, 110);
	for (i = 0; i < n; i++)
		keys[i] = (int32_t)(2 * i + 1 + app_rng_below(&rng, 2));
	maxkey = keys[n - 1] + 1;
	/* Rodinia's queries: uniform over the key range. */
	for (i = 0; i < nk; i++)
		qk[i] = (int32_t)app_rng_below(&rng, (uint64_t)maxkey);
	for (i = 0; i < nj; i++) {
		qs[i] = (int32_t)app_rng_below(&rng, (uint64_t)maxkey);
		qe[i] = qs[i] + BT_RANGE;
		if (qe[i] >= maxkey) {
			qs[i] -= (int32_t)(qe[i] - maxkey);
			qe[i] = (int32_t)maxkey - 1;
		}
	}
	nodes = bt_build(kn, keys, n, &height);
	kbytes = (uint64_t)nodes * BT_WORDS * sizeof(int32_t);
	memset(&args, 0, sizeof(args));
	args.height = height;
	args.nknodes = nodes;

	/* findRangeK's wrapper. */
	{
		const char *const names[] = {
			"knodesD", "currKnodeD", "offsetD", "lastKnodeD",
			"offset_2D", "startD", "endD", "ansDStart",
			"ansDLength",
		};
		uint64_t *const addrs[] = {
			&args.knodes, &args.curr, &args.offset, &args.last,
			&args.offset2, &args.start, &args.end, &args.recstart,
			&args.reclen,
		};
		const uint64_t bytes[] = {
			kbytes, nj * 8ULL, nj * 8ULL, nj * 8ULL, nj * 8ULL,
			nj * 4ULL, nj * 4ULL, nj * 4ULL, nj * 4ULL,
		};

		ret = bt_allocs(gpu, names, addrs, bytes, 9, app, err, errlen);
		if (ret)
			goto out;
		simt_h2d(gpu, args.knodes, kn, kbytes);
		for (i = 1; i < 5; i++)
			simt_h2d(gpu, *addrs[i], zero, bytes[i]);
		simt_h2d(gpu, args.start, qs, nj * 4ULL);
		simt_h2d(gpu, args.end, qe, nj * 4ULL);
		simt_h2d(gpu, args.recstart, rs, nj * 4ULL);
		simt_h2d(gpu, args.reclen, rl, nj * 4ULL);
		ret = app_launch(gpu, "findRangeK", bt_findrange,
				 DIM3(nj, 1, 1), block, 0, &args, app, err,
				 errlen);
		if (ret)
			goto out;
		simt_d2h(gpu, rs, args.recstart, nj * 4ULL);
		simt_d2h(gpu, rl, args.reclen, nj * 4ULL);
	}
	/* findK's wrapper. */
	{
		const char *const names[] = {
			"recordsD", "knodesD", "currKnodeD", "offsetD",
			"keysD", "ansD",
		};
		uint64_t *const addrs[] = {
			&args.records, &args.knodes, &args.curr,
			&args.offset, &args.keys, &args.ans,
		};
		const uint64_t bytes[] = {
			size * 4, kbytes, nk * 8ULL, nk * 8ULL, nk * 4ULL,
			nk * 4ULL,
		};

		ret = bt_allocs(gpu, names, addrs, bytes, 6, app, err, errlen);
		if (ret)
			goto out;
		simt_h2d(gpu, args.records, keys, size * 4);
		simt_h2d(gpu, args.knodes, kn, kbytes);
		simt_h2d(gpu, args.curr, zero, nk * 8ULL);
		simt_h2d(gpu, args.offset, zero, nk * 8ULL);
		simt_h2d(gpu, args.keys, qk, nk * 4ULL);
		for (i = 0; i < nk; i++)
			ans[i] = -1;
		simt_h2d(gpu, args.ans, ans, nk * 4ULL);
		ret = app_launch(gpu, "findK", bt_findk, DIM3(nk, 1, 1),
				 block, 0, &args, app, err, errlen);
		if (ret)
			goto out;
		simt_d2h(gpu, ans, args.ans, nk * 4ULL);
	}
	app_test_perturb(ans, sizeof(*ans), nk);

	for (i = 0; i < nk; i++) {
		int64_t r = bt_find(keys, n, qk[i]);

		want[i] = r < 0 ? -1 : keys[r];
	}
	ret = app_check_i32(ans, want, nk, app, "ans", err, errlen);
	for (i = 0; i < nj; i++) {
		int64_t s = bt_find(keys, n, qs[i]);
		int64_t e = bt_find(keys, n, qe[i]);

		want[i] = s < 0 ? 0 : (int32_t)s;
		want[nj + i] = e < 0 ? 0 : (int32_t)(e - want[i] + 1);
	}
	if (!ret)
		ret = app_check_i32(rs, want, nj, app, "recstart", err,
				    errlen);
	if (!ret)
		ret = app_check_i32(rl, want + nj, nj, app, "reclength", err,
				    errlen);
out:
	free(keys);
	free(kn);
	free(qk);
	free(qs);
	free(qe);
	free(ans);
	free(rs);
	free(rl);
	free(want);
	free(zero);
	return ret;
}

const struct app_desc app_btree = {
	.name = "btree",
	.suite = "Rodinia (b+tree)",
	.summary = "B+ tree of order 256 flattened for the GPU: findRangeK "
		   "(a range's two ends walked together) then findK, a block "
		   "of 256 threads a query, a level a step with thread 0 "
		   "moving the block down",
	.input = "size = keys (Table II: mil.txt, 10^6), distinct and "
		 "sorted, on average two apart, from the seed; the tree "
		 "bulk-loaded 192 entries a node (Rodinia builds it by "
		 "inserting mil.txt one key at a time); size / 100 findK "
		 "and 6 size / 1000 findRangeK queries of width 3000, "
		 "uniform over the keys (Table II's command file: k 10000, "
		 "j 6000 3000). Large: the paper's 10^6 keys",
	.small_size = 16384,
	.large_size = 1000000,
	.paper_sizes = "CPElide Table II: mil.txt (10^6 keys) = size 1000000 "
		       "(--large; generated keys, 10000 findK and 6000 "
		       "findRangeK queries of width 3000 as the command file)",
	.kernels = "findRangeK, findK",
	.run = bt_run,
};
