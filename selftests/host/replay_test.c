// SPDX-License-Identifier: GPL-2.0
/*
 * The tool's replay loops (tools/mcmgpu/lib/, <mechanism>_replay.c) on the host
 * backend against the model cores called directly, record by record as
 * the loops did before they were shared; and the Barre loop on a backend
 * that records what it is asked. The guest tests compare device and host
 * replays, which share the loop: these check the loop itself.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"
#include "barre_replay.h"
#include "cpe_replay.h"
#include "cpelide.h"
#include "cxl_replay.h"
#include "fp_replay.h"
#include "fp_trace.h"
#include "../../drivers/mcmgpu/gpu_alloc.h"

static const char cpe_text[] =
	"alloc A 65536\n"
	"alloc B 131072\n"
	"kernel k1 A:r B:rw\n"
	"kernel k2 chiplets=0,1 B:r A:rw\n"
	"host_read A\n"
	"kernel k3 A:r B:rw:unknown\n"
	"host_write B\n"
	"kernel k4 B:r A:rw\n"
	"end\n";

/* The CPElide core run on seq as the tool's host replay ran it. */
static void cpe_direct(const struct cpe_seq *seq, struct mcmgpu_cpe_stats *st)
{
	struct cpe_model *m = calloc(1, sizeof(*m));
	struct cpe_config cfg;
	void *arena;
	size_t i;

	cpe_config_of_reset(&cfg, &seq->rec[0]);
	arena = calloc(1, cpe_arena_bytes(&cfg));
	cpe_model_init(m, &cfg, arena);
	for (i = 1; i < seq->n; i++)
		cpe_model_record(m, &seq->rec[i]);
	cpe_model_finish(m);
	*st = m->stats;
	free(arena);
	free(m);
}

TEST(cpelide_replay_is_the_core_record_by_record)
{
	unsigned int policy;

	for (policy = 0; policy < MCMGPU_CPE_POLICIES; policy++) {
		struct cpe_backend b = { .ops = &cpe_host_ops, .fd = -1 };
		struct mcmgpu_cpe_stats got, want;
		struct cpe_seq seq = { 0 };
		struct replay_error e;
		char msg[256];

		ASSERT_EQ(0, cpe_seq_parse(cpe_text, strlen(cpe_text), 4, policy,
					   &seq, msg, sizeof(msg))) TH_LOG("%s", msg);
		ASSERT_EQ(0, cpe_replay(&b, &seq, &got, &e)) TH_LOG("%s", e.rec.what);
		cpe_direct(&seq, &want);
		EXPECT_EQ(0, memcmp(&got, &want, sizeof(got)));
		EXPECT_LT(0, got.kernels);
		EXPECT_EQ(NULL, b.priv);	/* closed */
		cpe_seq_free(&seq);
	}
}

TEST(cpelide_replay_names_the_refused_record_line)
{
	struct cpe_backend b = { .ops = &cpe_host_ops, .fd = -1 };
	struct mcmgpu_cpe_stats st;
	struct cpe_seq seq = { 0 };
	struct replay_error e;
	char msg[256];

	ASSERT_EQ(0, cpe_seq_parse(cpe_text, strlen(cpe_text), 4,
				   MCMGPU_CPE_POLICY_CPELIDE, &seq, msg,
				   sizeof(msg)));
	ASSERT_LT(4, seq.n);
	seq.rec[4].type = 0xee;
	EXPECT_EQ(-EINVAL, cpe_replay(&b, &seq, &st, &e));
	EXPECT_EQ(REPLAY_ERR_RECORD, e.kind);
	EXPECT_EQ(seq.line[4], e.line);
	EXPECT_NE(0, e.rec.what[0]);
	cpe_seq_free(&seq);
}

static const char fp_text[] =
	"region 0 1 0x100 64\n"
	"store 0 1 0x100 8 0102030405060708\n"
	"store 1 0 0x200 4 aabbccdd\n"
	"atomic 2 3 0x300 4 01020304\n"
	"store 3 2 0x1000 2 5a5a\n"
	"fence 0\n"
	"store 0 1 0x104 8 1112131415161718\n"
	"kernel_end\n"
	"store 2 1 0x100 1 ff\n"
	"kernel_end\n";

static void fp_sink_write(void *ctx, u32 dst, u64 addr, const u8 *data, u32 len)
{
	memcpy((uint8_t *)ctx + dst * (16ULL << 20) + addr, data, len);
}

TEST(finepack_replay_is_the_core_and_verifies)
{
	struct fp_config cfg = {
		.chiplets = 4, .subheader = MCMGPU_FP_SUBHEADER_DEFAULT,
		.overhead = MCMGPU_FP_OVERHEAD_ECRC, .vram_per_chiplet = 16 << 20,
	};
	struct fp_backend b = { .ops = &fp_host_ops, .fd = -1 };
	struct fp_model *m = calloc(1, sizeof(*m));
	uint8_t *mem = calloc(4, 16 << 20), *trace;
	struct mcmgpu_fp_replay_result res;
	struct fp_trace_buf tb = { 0 };
	struct fp_trace_view view;
	struct replay_error e;
	struct fp_verify v;
	void *written;
	char msg[256];
	size_t len;

	ASSERT_EQ(0, fp_text_parse(fp_text, strlen(fp_text), &tb, msg,
				   sizeof(msg))) TH_LOG("%s", msg);
	trace = fp_tb_finish(&tb, &len);
	ASSERT_NE(NULL, trace);
	ASSERT_EQ(0, fp_replay(&b, trace, len, &cfg, true, &res, &v, &e))
		TH_LOG("%s", e.rec.what);
	EXPECT_TRUE(v.done);
	/* The written hulls: 0x100..0x10c in 1, 4 B in 0 and 3, 2 B in 2. */
	EXPECT_EQ(12 + 4 + 4 + 2, v.checked_bytes);
	EXPECT_EQ(0, v.mismatched_bytes);
	EXPECT_EQ(NULL, b.priv);	/* closed */

	written = calloc(1, fp_bitmap_bytes(&cfg));
	ASSERT_EQ(0, fp_trace_check(trace, len, &cfg, &view, &(struct fp_error){ 0 }));
	fp_model_init(m, &cfg, &(struct fp_sink){ .ctx = mem, .write = fp_sink_write },
		      written);
	fp_model_run(m, &view);
	EXPECT_EQ(0, memcmp(&res.stats, &m->stats, sizeof(res.stats)));
	EXPECT_LT(0, res.stats.kernels);
	free(written);
	free(trace);
	free(mem);
	free(m);
}

TEST(finepack_replay_refuses_a_bad_record_by_number)
{
	struct fp_config cfg = {
		.chiplets = 2, .subheader = MCMGPU_FP_SUBHEADER_DEFAULT,
		.overhead = MCMGPU_FP_OVERHEAD_ECRC, .vram_per_chiplet = 16 << 20,
	};
	struct fp_backend b = { .ops = &fp_host_ops, .fd = -1 };
	struct mcmgpu_fp_replay_result res;
	struct fp_trace_buf tb = { 0 };
	struct replay_error e;
	struct fp_verify v;
	char msg[256];
	uint8_t *trace;
	size_t len;

	/* Record 3 comes from chiplet 2 of 2: refused before the core runs. */
	ASSERT_EQ(0, fp_text_parse(fp_text, strlen(fp_text), &tb, msg,
				   sizeof(msg)));
	trace = fp_tb_finish(&tb, &len);
	EXPECT_EQ(-1, fp_replay(&b, trace, len, &cfg, false, &res, &v, &e));
	EXPECT_EQ(REPLAY_ERR_RECORD, e.kind);
	EXPECT_EQ(3 + 1, e.rec.index);	/* 1-based, as the uapi's */
	EXPECT_NE(0, e.rec.what[0]);
	EXPECT_EQ(NULL, b.priv);
	free(trace);
}

TEST(cxl_replay_is_the_core)
{
	struct srds_config cfg = {
		.sim = { .sr_mode = MCMGPU_CXL_SR_FULL, .ds = 1, .ctrl_ns = 80,
			 .gc = 1 },
		.ports = 2,
		.media = { MCMGPU_CXL_MEDIA_ZNAND, MCMGPU_CXL_MEDIA_ZNAND },
		.capacity = { 256ULL << 20, 256ULL << 20 },
		.route = srds_route_default,
	};
	struct cxl_backend b = { .ops = &cxl_host_ops, .fd = -1 };
	struct mcmgpu_cxl_sim_result got, want;
	struct mcmgpu_cxl_record rec[512];
	struct mcmgpu_record_error err;
	struct replay_error e;
	void *state;
	int i;

	cfg.route_priv = &cfg;
	for (i = 0; i < 512; i++)
		rec[i] = (struct mcmgpu_cxl_record){
			.addr = (uint64_t)i * 4160 % (512ULL << 20) & ~63ULL,
			.kind = i % 5 ? MCMGPU_CXL_REC_LOAD : MCMGPU_CXL_REC_STORE,
		};
	ASSERT_EQ(0, cxl_replay(&b, &cfg, rec, 512, &got, &e)) TH_LOG("%s", e.rec.what);
	ASSERT_EQ(0, srds_check(&cfg, rec, 512, &err));
	state = malloc(srds_state_size(&cfg));
	srds_run(&cfg, state, rec, 512, &want);
	EXPECT_EQ(0, memcmp(&got, &want, sizeof(got)));
	EXPECT_EQ(512, got.loads + got.stores);
	free(state);

	rec[7].kind = 0x77;
	EXPECT_EQ(-EINVAL, cxl_replay(&b, &cfg, rec, 512, &got, &e));
	EXPECT_EQ(REPLAY_ERR_RECORD, e.kind);
	EXPECT_EQ(7 + 1, e.rec.index);	/* 1-based, as the uapi's */
}

/* ---- The Barre loop on a backend that records what it is asked. ---- */

struct call_log {
	char calls[512];
	uint32_t handles;
};

static void log_call(struct barre_backend *b, const char *fmt, uint64_t v)
{
	struct call_log *l = b->priv;
	size_t n = strlen(l->calls);

	snprintf(l->calls + n, sizeof(l->calls) - n, fmt, (unsigned long long)v);
}

static int log_open(struct barre_backend *b, const struct barre_replay_cfg *cfg,
		    const struct barre_trace *t)
{
	(void)cfg;
	log_call(b, "open%llu ", t->n);
	return 0;
}

static int log_alloc(struct barre_backend *b, uint32_t id,
		     const struct gpu_alloc_alloc_req *req, struct barre_obj *o)
{
	struct call_log *l = b->priv;

	log_call(b, "alloc%llu ", req->pages);
	*o = (struct barre_obj){ .handle = ++l->handles, .va = (uint64_t)(id + 1) << 32,
				 .pages = req->pages, .groups = 1 };
	return 0;
}

static int log_free(struct barre_backend *b, struct barre_obj *o)
{
	log_call(b, "free%llu ", o->handle);
	return 0;
}

static int log_run(struct barre_backend *b, const struct mcmgpu_barre_access *acc,
		   uint32_t n)
{
	(void)acc;
	log_call(b, "run%llu ", n);
	return 0;
}

static int log_ptes(struct barre_backend *b, const struct barre_obj *o,
		    uint64_t *pte)
{
	memset(pte, 0, o->pages * sizeof(*pte));
	log_call(b, "ptes%llu ", o->handle);
	return 0;
}

static int log_stats(struct barre_backend *b, struct mcmgpu_barre_stats *st)
{
	st->walks = 42;
	log_call(b, "stats%llu ", 0);
	return 0;
}

static void log_close(struct barre_backend *b)
{
	log_call(b, "close%llu", 0);
}

static const struct barre_backend_ops log_ops = {
	.open = log_open, .alloc = log_alloc, .free = log_free, .run = log_run,
	.ptes = log_ptes, .stats = log_stats, .close = log_close,
};

TEST(barre_replay_phases_frees_and_dumps_through_the_backend)
{
	static const char text[] =
		"alloc A 8192 policy=rr\n"
		"alloc B 4096 policy=chunk g=1\n"
		"access 0 A 0\naccess 1 A 4096 w\naccess 2 B 100\n"
		"free A\n"
		"access 3 B 0\n"
		"alloc C 12288 policy=kwc\n";
	struct barre_replay_cfg cfg = { .chiplets = 4, .frames = 1024,
					 .barre = true, .merge = 1 };
	struct call_log l = { { 0 } };
	struct barre_backend b = { .ops = &log_ops, .priv = &l };
	struct mcmgpu_barre_stats st;
	struct barre_trace t;
	char err[256];
	FILE *dump = tmpfile();
	int c, lines = 0;

	ASSERT_NE(NULL, dump);
	cfg.dump_pt = dump;
	ASSERT_EQ(0, barre_trace_parse(text, strlen(text), &t, err, sizeof(err)))
		TH_LOG("%s", err);
	ASSERT_EQ(0, barre_replay(&b, &t, &cfg, &st, err, sizeof(err))) TH_LOG("%s", err);
	/* Live objects dumped then freed in ID order; stats after the frees. */
	EXPECT_STREQ("open8 alloc2 alloc1 run3 free1 run1 alloc3 ptes2 ptes3 "
		     "free2 free3 stats0 close0", l.calls);
	EXPECT_EQ(42, st.walks);
	EXPECT_EQ(3, st.objects);
	EXPECT_EQ(6, st.pages);
	EXPECT_EQ(3, st.groups);
	/* A line a page: B's one and C's three. */
	rewind(dump);
	while ((c = fgetc(dump)) != EOF)
		lines += c == '\n';
	EXPECT_EQ(4, lines);
	fclose(dump);
	barre_trace_free(&t);
}

TEST(barre_replay_stops_at_an_access_past_its_object)
{
	static const char text[] =
		"alloc A 4096 policy=rr\n"
		"access 0 A 0\n"
		"access 1 A 4096\n";
	struct barre_replay_cfg cfg = { .chiplets = 4, .frames = 1024,
					 .barre = true, .merge = 1 };
	struct call_log l = { { 0 } };
	struct barre_backend b = { .ops = &log_ops, .priv = &l };
	struct mcmgpu_barre_stats st;
	struct barre_trace t;
	char err[256];

	ASSERT_EQ(0, barre_trace_parse(text, strlen(text), &t, err, sizeof(err)));
	EXPECT_EQ(-EINVAL, barre_replay(&b, &t, &cfg, &st, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "line 3:")) TH_LOG("%s", err);
	/* Nothing of the phase ran; the object is still freed. */
	EXPECT_STREQ("open3 alloc1 free1 close0", l.calls);
	barre_trace_free(&t);
}

TEST_HARNESS_MAIN
