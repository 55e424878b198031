// SPDX-License-Identifier: GPL-2.0
/*
 * The applications (tools/mcmgpu/apps/) on the SIMT executor at their
 * small sizes: each runs and its result matches its reference; the
 * program it writes reads back whole and is the same bytes every run;
 * a seed changes the program of the applications whose addresses
 * depend on data, and only the values of the others; a corrupted
 * result is caught by every check; bad sizes are refused by name; each
 * names the kernels it launches, in order, and the papers' sizes. And
 * the shared generators: HPCC's jump-ahead and Graph500's R-MAT graph.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"
#include "app_util.h"
#include "apps.h"
#include "program.h"
#include "simt.h"
#include "../lib/prog_mem.h"

/* FNV-1a over the program's bytes. */
static uint64_t buf_hash(const struct prog_mem *b)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	size_t i;

	for (i = 0; i < b->len; i++)
		h = (h ^ b->bytes[i]) * 0x100000001b3ULL;
	return h;
}

/* Runs app into b: its run()'s result, or the writer's. */
static int run_app(const struct app_desc *app, uint64_t size, uint64_t seed,
		   struct prog_mem *b, char *err, size_t errlen)
{
	struct prog_writer *w = calloc(1, sizeof(*w));
	struct simt_gpu *gpu;
	int ret;

	memset(b, 0, sizeof(*b));
	err[0] = 0;
	if (!w)
		return -ENOMEM;
	ret = prog_writer_init(w, prog_mem_write, b);
	gpu = ret ? NULL : simt_gpu_new(w);
	if (!gpu) {
		free(w);
		return ret ? ret : -ENOMEM;
	}
	ret = app->run(gpu, size, seed, err, errlen);
	if (!ret)
		ret = simt_gpu_finish(gpu);
	simt_gpu_free(gpu);
	free(w);
	return ret;
}

struct prog_counts {
	uint64_t kernels, blocks, warps, insts, copies, objects;
};

/* Reads b back through the grammar to END: 0 or the reader's error. */
static int read_back(struct prog_mem *b, struct prog_counts *c)
{
	struct prog_reader *r = calloc(1, sizeof(*r));
	struct prog_rec *rec = calloc(1, sizeof(*rec));
	int ret;

	memset(c, 0, sizeof(*c));
	b->pos = 0;
	ret = r && rec ? prog_reader_init(r, prog_mem_read, b) : -ENOMEM;
	while (!ret && (ret = prog_read(r, rec)) == 1) {
		c->kernels += rec->type == PROG_REC_KERNEL;
		c->blocks += rec->type == PROG_REC_BLOCK;
		c->warps += rec->type == PROG_REC_WARP;
		c->insts += rec->type == PROG_REC_INST;
		c->copies += rec->type == PROG_REC_COPY;
		c->objects += rec->type == PROG_REC_OBJECT;
		ret = 0;
	}
	free(r);
	free(rec);
	return ret;
}

/*
 * The distinct kernel names of b's launches, in first-launch order,
 * ", "-separated into names: 0, -ENOSPC, or the reader's error.
 */
static int kernel_names(struct prog_mem *b, char *names, size_t len)
{
	struct prog_reader *r = calloc(1, sizeof(*r));
	struct prog_rec *rec = calloc(1, sizeof(*rec));
	size_t used = 0, n;
	char *seen;
	int ret;

	names[0] = 0;
	b->pos = 0;
	ret = r && rec ? prog_reader_init(r, prog_mem_read, b) : -ENOMEM;
	while (!ret && (ret = prog_read(r, rec)) == 1) {
		ret = 0;
		if (rec->type != PROG_REC_KERNEL)
			continue;
		/* Already listed: a whole entry, between separators. */
		n = strlen(rec->kernel.name);
		for (seen = strstr(names, rec->kernel.name); seen;
		     seen = strstr(seen + 1, rec->kernel.name))
			if ((seen == names || seen[-1] == ' ') &&
			    (!seen[n] || seen[n] == ','))
				break;
		if (seen)
			continue;
		if (used + n + 3 > len) {
			ret = -ENOSPC;
			break;
		}
		used += snprintf(names + used, len - used, "%s%s",
				 used ? ", " : "", rec->kernel.name);
	}
	free(r);
	free(rec);
	return ret;
}

/* The applications whose addresses depend on their generated data. */
static bool app_randomized(const struct app_desc *app)
{
	static const char *const names[] = {
		"gups", "spmv", "bfs", "sssp", "pagerank", "micro-chase",
		"btree",
		"cfd", "gnn", "pns", "tpacf", "adsm-stencil", "color", "fw",
		"hacc", "fp-pagerank", "fp-sssp", "als", "ct", NULL
	};
	const char *const *n;

	for (n = names; *n; n++)
		if (!strcmp(*n, app->name))
			return true;
	return false;
}

/*
 * The tests that run every application: a fixture only for its timeout
 * (kselftest's 30 s default is too short for 60 applications under the
 * sanitizers on a loaded machine).
 */
FIXTURE(all_apps) {
};

FIXTURE_SETUP(all_apps)
{
}

FIXTURE_TEARDOWN(all_apps)
{
}

TEST_F_TIMEOUT(all_apps, every_app_passes_its_check_and_writes_one_program, 900)
{
	const struct app_desc *const *a;
	struct prog_mem b1, b2;
	struct prog_counts c;
	char err[512];

	for (a = apps; *a; a++) {
		ASSERT_EQ(0, run_app(*a, (*a)->small_size, 1, &b1, err,
				     sizeof(err))) TH_LOG("%s", err);
		ASSERT_EQ(0, read_back(&b1, &c)) TH_LOG("%s", (*a)->name);
		EXPECT_LT(0, c.kernels);
		EXPECT_LT(0, c.insts);
		EXPECT_LT(0, c.copies);
		TH_LOG("%-10s size %llu: %llu launches, %llu blocks, %llu warps, %llu warp instructions, %zu bytes",
		       (*a)->name, (unsigned long long)(*a)->small_size,
		       (unsigned long long)c.kernels,
		       (unsigned long long)c.blocks,
		       (unsigned long long)c.warps,
		       (unsigned long long)c.insts, b1.len);
		/* Determinism: the same size and seed, the same bytes. */
		ASSERT_EQ(0, run_app(*a, (*a)->small_size, 1, &b2, err,
				     sizeof(err))) TH_LOG("%s", err);
		EXPECT_EQ(b1.len, b2.len) TH_LOG("%s", (*a)->name);
		EXPECT_EQ(buf_hash(&b1), buf_hash(&b2)) TH_LOG("%s", (*a)->name);
		free(b1.bytes);
		free(b2.bytes);
	}
}

TEST_F_TIMEOUT(all_apps, a_seed_moves_the_addresses_of_data_dependent_apps_only, 900)
{
	const struct app_desc *const *a;
	struct prog_mem b1, b2;
	char err[512];

	for (a = apps; *a; a++) {
		ASSERT_EQ(0, run_app(*a, (*a)->small_size, 1, &b1, err,
				     sizeof(err))) TH_LOG("%s", err);
		ASSERT_EQ(0, run_app(*a, (*a)->small_size, 2, &b2, err,
				     sizeof(err))) TH_LOG("%s", err);
		if (app_randomized(*a)) {
			EXPECT_NE(buf_hash(&b1), buf_hash(&b2))
				TH_LOG("%s: seeds 1 and 2 wrote the same program",
				       (*a)->name);
		} else {
			EXPECT_EQ(buf_hash(&b1), buf_hash(&b2))
				TH_LOG("%s: the values changed the program",
				       (*a)->name);
		}
		free(b1.bytes);
		free(b2.bytes);
	}
}

TEST_F_TIMEOUT(all_apps, every_check_catches_a_corrupted_result, 900)
{
	const struct app_desc *const *a;
	struct prog_mem b;
	char err[512];
	int ret;

	app_test_corrupt = true;
	for (a = apps; *a; a++) {
		ret = run_app(*a, (*a)->small_size, 1, &b, err, sizeof(err));
		EXPECT_EQ(-EIO, ret) TH_LOG("%s", (*a)->name);
		EXPECT_EQ(0, strncmp(err, (*a)->name, strlen((*a)->name)))
			TH_LOG("%s", err);
		EXPECT_NE(NULL, strstr(err, "the reference says"))
			TH_LOG("%s", err);
		free(b.bytes);
	}
	app_test_corrupt = false;
}

TEST(bad_sizes_are_refused_by_name)
{
	static const struct {
		const char *app;
		uint64_t size;
	} bad[] = {
		{ "gups", 0 }, { "gups", 3000 }, { "gups", 1024 },
		{ "atax", 0 }, { "gesummv", 1 << 20 }, { "bicg", 0 },
		{ "transpose", 0 }, { "transpose", 100 },
		{ "spmv", 5 }, { "bfs", 0 }, { "sssp", 40 },
		{ "pagerank", 0 }, { "vadd", 0 }, { "saxpy", 1ULL << 40 },
		{ "micro-stream", 0 }, { "micro-chase", 1 },
		{ "micro-compute", 0 }, { "micro-tlb", 100 },
		{ "gemver", 0 }, { "covariance", 1 }, { "correlation", 1 },
		{ "jacobi2d", 2 }, { "fdtd2d", 0 }, { "lu", 0 }, { "adi", 2 },
		{ "rsum", 0 }, { "gnn", 0 }, { "cfd", 200 }, { "mri", 4 },
		{ "sort", 3000 }, { "conv3", 2 }, { "stencil", 10 },
		{ "path", 0 }, { "gauss", 1 }, { "gemm", 100 },
		{ "rnn-gru", 100 }, { "rnn-lstm", 4096 }, { "cnn", 120 },
		{ "color", 1 }, { "fw", 1 }, { "hacc", 23 }, { "lulesh", 1 },
		{ "pennant", 1 },
		{ "jacobi", 100 }, { "diffusion", 32 }, { "eqwp", 48 },
		{ "fp-pagerank", 0 }, { "fp-sssp", 40 }, { "als", 1 },
		{ "hit", 24 }, { "ct", 8 },
	};
	struct prog_mem b;
	char err[512];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		const struct app_desc *app = app_find(bad[i].app);

		ASSERT_NE(NULL, app);
		EXPECT_EQ(-EINVAL, run_app(app, bad[i].size, 1, &b, err,
					   sizeof(err)))
			TH_LOG("%s %llu", bad[i].app,
			       (unsigned long long)bad[i].size);
		EXPECT_NE(NULL, strstr(err, "size")) TH_LOG("%s", err);
		EXPECT_EQ(0, strncmp(err, bad[i].app, strlen(bad[i].app)))
			TH_LOG("%s", err);
		free(b.bytes);
	}
	EXPECT_EQ(NULL, app_find("nosuchapp"));
}

TEST(apps_describe_themselves)
{
	const struct app_desc *const *a;
	size_t n = 0;

	for (a = apps; *a; a++, n++) {
		EXPECT_EQ(*a, app_find((*a)->name));
		EXPECT_NE(NULL, (*a)->suite);
		EXPECT_NE(NULL, (*a)->summary);
		EXPECT_NE(NULL, strstr((*a)->input, "size"));
		EXPECT_LT((*a)->small_size, (*a)->large_size);
	}
	EXPECT_EQ(69, n);
}

TEST_F_TIMEOUT(all_apps, apps_name_the_kernels_they_launch_in_order, 900)
{
	const struct app_desc *const *a;
	struct prog_mem b;
	char err[512], names[1024];

	for (a = apps; *a; a++) {
		ASSERT_EQ(0, run_app(*a, (*a)->small_size, 1, &b, err,
				     sizeof(err))) TH_LOG("%s", err);
		ASSERT_EQ(0, kernel_names(&b, names, sizeof(names)))
			TH_LOG("%s", (*a)->name);
		EXPECT_STREQ(names, (*a)->kernels ? (*a)->kernels : "")
			TH_LOG("%s launches: %s", (*a)->name, names);
		EXPECT_NE(NULL, (*a)->paper_sizes) TH_LOG("%s", (*a)->name);
		free(b.bytes);
	}
}

/*
 * pns launches a full wave of ADSM's GTX 280 at a time (120 blocks of 256
 * threads: 30 SMs x 1024 threads), as Parboil's launch fills its device
 * memory with trajectories: 250 trajectories are 120 + 120 + 10.
 */
TEST(pns_launches_a_full_wave_of_the_gtx280)
{
	const struct app_desc *app = app_find("pns");
	struct prog_counts c;
	struct prog_mem b;
	char err[256];

	ASSERT_NE(NULL, app);
	ASSERT_EQ(0, run_app(app, 250, 1, &b, err, sizeof(err))) TH_LOG("%s", err);
	ASSERT_EQ(0, read_back(&b, &c));
	EXPECT_EQ(3, c.kernels);
	EXPECT_EQ(250, c.blocks);
	free(b.bytes);
}

TEST(hpcc_starts_jumps_ahead_along_the_stream)
{
	uint64_t ran = 1, n;

	for (n = 0; n < 5000; n++) {
		ASSERT_EQ(ran, app_hpcc_starts(n)) TH_LOG("n = %llu",
							  (unsigned long long)n);
		ran = app_hpcc_step(ran);
	}
	/* The stream has HPCC's period. */
	EXPECT_EQ(app_hpcc_starts(12345),
		  app_hpcc_starts(12345 + APP_HPCC_PERIOD));
}

TEST(rmat_graph_is_graph500s_undirected_and_skewed)
{
	struct app_graph g, h;
	uint32_t v, j, k, maxdeg = 0;
	char err[256];

	ASSERT_EQ(0, app_rmat(&g, 12, 7, true, "test", err, sizeof(err)))
		TH_LOG("%s", err);
	EXPECT_EQ(4096, g.nodes);
	/* At most 16 x 4096 tuples, both ways; duplicates and loops gone. */
	EXPECT_GE(2u * 16 * 4096, g.edges);
	EXPECT_LT(16u * 4096, g.edges);
	for (v = 0; v < g.nodes; v++) {
		uint32_t deg = g.row[v + 1] - g.row[v];

		if (deg > maxdeg)
			maxdeg = deg;
		for (j = g.row[v]; j < g.row[v + 1]; j++) {
			uint32_t u = g.col[j];
			bool back = false;

			ASSERT_NE(v, u);
			if (j > g.row[v])
				ASSERT_LT(g.col[j - 1], u);
			for (k = g.row[u]; k < g.row[u + 1]; k++)
				if (g.col[k] == v) {
					back = true;
					ASSERT_EQ(g.weight[j], g.weight[k]);
				}
			ASSERT_TRUE(back);
			ASSERT_LE(1, g.weight[j]);
			ASSERT_GE(255, g.weight[j]);
		}
	}
	/* R-MAT's skew: hubs far above the mean degree (about 30). */
	EXPECT_LT(300, maxdeg);
	ASSERT_EQ(0, app_rmat(&h, 12, 7, true, "test", err, sizeof(err)));
	EXPECT_EQ(g.edges, h.edges);
	EXPECT_EQ(0, memcmp(g.col, h.col, g.edges * sizeof(*g.col)));
	app_graph_free(&h);
	ASSERT_EQ(0, app_rmat(&h, 12, 8, true, "test", err, sizeof(err)));
	EXPECT_FALSE(g.edges == h.edges &&
		     !memcmp(g.col, h.col, g.edges * sizeof(*g.col)));
	app_graph_free(&h);
	app_graph_free(&g);
}

TEST_HARNESS_MAIN
