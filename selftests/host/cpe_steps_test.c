// SPDX-License-Identifier: GPL-2.0
/*
 * Host tests of the CPElide workload step tables (tools/mcmgpu/cpelide/
 * cpe_steps.c): what each kind of step and argument writes, and every
 * workload at every chiplet count written and parsed back by the
 * sequence parser (cpe_seq.c) under the sanitizers.
 */
#include <stdlib.h>
#include <string.h>

/* The tool's sources, not in the host tests' library list. */
#include "../../tools/mcmgpu/cpelide/cpe_steps.c"
#include "../../tools/mcmgpu/cpelide/cpe_workloads.c"
#include "cpe_seq.h"
#undef ARRAY_SIZE	/* util.h's; kselftest.h has its own */
#include "kselftest_harness.h"

enum { T_OWN, T_LAST_ONLY, T_NEVER };
enum { T_M = M_OWN, T_M_NONE };

/* Chiplet c owns [64c, 64c + 64); the last iteration alone gets T_LAST_ONLY. */
static void t_geom(struct cpe_gen *g)
{
	unsigned int c;

	g->mask[T_M] = wg_rg(g->set[T_OWN], g->n, g->n, 64, 0, 64 * g->n);
	g->mask[T_M_NONE] = 0;
	rg_clear(g->set[T_LAST_ONLY]);
	if (g->it[0] == 1)
		for (c = 0; c < g->n; c++)
			g->set[T_LAST_ONLY][c] = g->set[T_OWN][c];
	rg_clear(g->set[T_NEVER]);
}

static const struct cpe_step t_steps[] = {
	ALLOC("a", 130), ALLOC("b", 128),
	WRITE_RANGE("a", 4, 8),
	LOOP(2),
		GEOM(t_geom),
		KERNEL("k", T_M, R("a|b", T_OWN), RW("b|a", T_OWN),
		       RW("a", T_LAST_ONLY), R("a", T_NEVER),
		       R_EVERY("b", 0, 8), RW_FIRST("a", 8, 12)),
		KERNEL_PASSES("skipped", T_M_NONE, 2, R("a", T_OWN)),
		LOOP(3),
			KERNEL_PASSES("u", M_CHIPLET0, 3, R_UNKNOWN("b"),
				      R_UNITS("a", T_OWN, 2)),
		LOOP_END,
	LOOP_END,
	READ("b"),
	STEPS_DONE
};

static const char t_want[] =
	"alloc a 132\n"
	"alloc b 128\n"
	"host_write a 4-7\n"
	"kernel k a:r:0=0-63,1=64-127 b:rw:0=0-63,1=64-127 b:r:0=0-7,1=0-7 "
	"a:rw:0=8-11\n"
	"kernel u chiplets=0 passes=3 b:r:unknown a:r:0=0-127\n"
	"kernel u chiplets=0 passes=3 b:r:unknown a:r:0=0-127\n"
	"kernel u chiplets=0 passes=3 b:r:unknown a:r:0=0-127\n"
	"kernel k b:r:0=0-63,1=64-127 a:rw:0=0-63,1=64-127 a:rw:0=0-63,1=64-127 "
	"b:r:0=0-7,1=0-7 a:rw:0=8-11\n"
	"kernel u chiplets=0 passes=3 b:r:unknown a:r:0=0-127\n"
	"kernel u chiplets=0 passes=3 b:r:unknown a:r:0=0-127\n"
	"kernel u chiplets=0 passes=3 b:r:unknown a:r:0=0-127\n"
	"host_read b\n";

/* A workload's sequence for n chiplets, in memory. */
static char *emit(const struct cpe_app *app, unsigned int n, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);

	if (!f)
		return NULL;
	cpe_app_emit(app, f, n);
	fclose(f);
	return buf;
}

/*
 * Alternatives follow the outer loop's index, a slot whose set is empty
 * prints nothing, a kernel with no chiplet is not launched, units scale a
 * set, allocations round up to 4 bytes.
 */
TEST(each_kind_of_step)
{
	const struct cpe_app app = { "t", false, t_steps, { 0 }, 0 };
	size_t len;
	char *s = emit(&app, 2, &len);

	ASSERT_NE(NULL, s);
	EXPECT_STREQ(t_want, s);
	free(s);
}

/* Every workload, 1 to 8 chiplets: a sequence the replay parser takes. */
TEST(every_workload_parses)
{
	unsigned int n;
	size_t i;

	ASSERT_EQ(24, cpe_napps);
	for (i = 0; i < cpe_napps; i++) {
		for (n = 1; n <= MCMGPU_MAX_CHIPLETS; n++) {
			struct cpe_seq seq = { 0 };
			char msg[256] = "";
			size_t len;
			char *s = emit(&cpe_apps[i], n, &len);

			ASSERT_NE(NULL, s);
			EXPECT_EQ(0, cpe_seq_parse(s, len, n, MCMGPU_CPE_POLICY_CPELIDE,
						   &seq, msg, sizeof(msg)))
				TH_LOG("%s at %u chiplets: %s", cpe_apps[i].name, n, msg);
			EXPECT_LT(1, seq.n);
			cpe_seq_free(&seq);
			free(s);
		}
	}
}

TEST_HARNESS_MAIN
