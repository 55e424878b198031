// SPDX-License-Identifier: GPL-2.0
/*
 * The GPU timing core (qemu-device/model/gpu_core.c) against answers
 * known beforehand: the microbenchmarks (tools/mcmgpu/apps/micro.c) each
 * bound by one thing - DRAM or link bandwidth, load latency, FP latency,
 * issue rate, TLB misses - whose time is a formula in the configuration
 * (docs/gpu.md, "Validation"). Each program is generated in memory
 * through the executor's sink and run by a small driver here: the
 * "barre" preset with the case's overrides, objects mapped at their
 * addresses, and with translation an IOMMU that answers every ATS
 * request 2 x pcie_lat + walk_lat after it left, with an identity-like
 * PFN, run epoch by epoch as tools/mcmgpu/lib/barre_host.c does.
 *
 * Every expected value is computed from the config's fields and the
 * program's shape, never from the core's output; each tolerance says
 * what its formula leaves out.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"
#include "apps.h"
#include "gpu_config.h"
#include "gpu_core.h"
#include "program.h"
#include "simt.h"
#include "../lib/app_prog.h"

#define PAGE		4096ULL
#define MAX_KERNELS	4

/* ---- the program, in memory -------------------------------------------- */

struct mem_source {
	struct prog_reader r;
	struct prog_mem *m;
};

static int mem_source(void *ctx, struct prog_rec *rec)
{
	struct mem_source *s = ctx;

	return prog_read(&s->r, rec);
}

/* ---- the driver -------------------------------------------------------- */

struct driver {
	struct gpu_config cfg;
	/* Objects: -1 keeps the configuration's placement. */
	int policy;
	uint32_t place_g;
	/* The test IOMMU: requests waiting for their reply. */
	struct chiplet_tlb_request *pending;
	size_t npending, cap;
	uint64_t walks;
	int error;
	struct gpu_kernel_stats kernel[MAX_KERNELS];
	uint32_t nkernels;
	struct gpu_core_stats st;
};

static void *drv_alloc(void *priv, size_t bytes)
{
	(void)priv;
	return calloc(1, bytes);
}

static void drv_free(void *priv, void *p)
{
	(void)priv;
	free(p);
}

static int drv_object(void *priv, struct gpu_object *o, char *why,
		      size_t len)
{
	struct driver *d = priv;

	(void)why;
	(void)len;
	o->gpu_va = o->base & ~(PAGE - 1);
	if (d->policy >= 0) {
		o->policy = (uint32_t)d->policy;
		o->g = d->place_g;
	}
	return 0;
}

static void drv_ats_request(void *priv, const struct chiplet_tlb_request *r)
{
	struct driver *d = priv;

	if (d->npending == d->cap) {
		size_t cap = d->cap ? d->cap * 2 : 64;
		void *p = realloc(d->pending, cap * sizeof(*d->pending));

		if (!p) {
			d->error = -ENOMEM;
			return;
		}
		d->pending = p;
		d->cap = cap;
	}
	d->pending[d->npending++] = *r;
	d->walks++;
}

static void drv_kernel_done(void *priv, const struct gpu_kernel_stats *k)
{
	struct driver *d = priv;

	if (d->nkernels < MAX_KERNELS)
		d->kernel[d->nkernels] = *k;
	d->nkernels++;
}

/*
 * The identity-like mapping: frames counted from the executor's first
 * object (0x7f0000000000), on chiplet 0 onwards, so a page's home is
 * chiplet (vpn - first) / frames a chiplet.
 */
static uint64_t drv_pfn(const struct driver *d, uint64_t vpn)
{
	uint64_t frames = (uint64_t)d->cfg.vram_mib << 8;

	return (vpn - (0x7f0000000000ULL >> 12)) %
	       (frames * d->cfg.chiplets);
}

/*
 * The program in m through the core. The epoch: L = 2 x pcie_lat, at most
 * the round trip, so a request that left in [H, H + L) is answered at or
 * after H + L, never before the core's current cycle.
 */
static int drive(struct driver *d, struct prog_mem *m, char *err,
		 size_t errlen)
{
	const struct gpu_core_ops ops = {
		.alloc = drv_alloc, .free = drv_free, .object = drv_object,
		.ats_request = drv_ats_request,
		.kernel_done = drv_kernel_done,
	};
	uint64_t rtt = 2ULL * d->cfg.pcie_lat + d->cfg.walk_lat;
	uint64_t L = d->cfg.translate ? 2ULL * d->cfg.pcie_lat : 1ULL << 40;
	struct mem_source *src = calloc(1, sizeof(*src));
	size_t bytes = gpu_core_size(&d->cfg);
	struct gpu_core *g = NULL;
	int ret;

	err[0] = 0;
	if (!src || !bytes) {
		free(src);
		snprintf(err, errlen, "gpu_core_size: %zu", bytes);
		return -EINVAL;
	}
	g = aligned_alloc(8, (bytes + 7) & ~(size_t)7);
	if (!g) {
		free(src);
		return -ENOMEM;
	}
	memset(g, 0, bytes);
	m->pos = 0;
	src->m = m;
	ret = prog_reader_init(&src->r, prog_mem_read, m);
	if (!ret)
		ret = gpu_core_init(g, &d->cfg, &ops, d, mem_source, src);
	if (ret) {
		snprintf(err, errlen, "init: %s", gpu_core_error(g));
		free(g);
		free(src);
		return ret;
	}
	while (!ret && !d->error && !gpu_core_done(g)) {
		uint64_t H = gpu_core_now(g), next = gpu_core_next_event(g);
		size_t i;

		if (!d->npending && next == ~0ULL) {
			snprintf(err, errlen, "stuck at cycle %llu",
				 (unsigned long long)H);
			ret = -EDEADLK;
			break;
		}
		/* Nothing in flight: skip to the next epoch with work. */
		if (!d->npending && next >= H + L)
			H = next - (next - H) % L;
		ret = gpu_core_run(g, H + L);
		for (i = 0; !ret && i < d->npending; i++) {
			const struct chiplet_tlb_request *q = &d->pending[i];
			struct chiplet_tlb_reply r = {
				.tag = q->tag, .pfn = drv_pfn(d, q->vpn),
				.arrive = q->issue + rtt, .writable = 1,
			};

			ret = gpu_core_deliver(g, &r);
		}
		d->npending = 0;
	}
	if (ret)
		snprintf(err, errlen, "%s", gpu_core_error(g));
	gpu_core_stats(g, &d->st);
	gpu_core_destroy(g);
	free(g);
	free(src);
	return ret ? ret : d->error;
}

/* The "barre" preset with overrides "name=value", NULL-terminated. */
static void config(struct driver *d, const char *const *overrides)
{
	const struct gpu_preset *p = gpu_preset_find("barre");
	const char *field = NULL, *why = NULL;
	const char *const *o;

	memset(d, 0, sizeof(*d));
	d->policy = -1;
	d->cfg = p->cfg;
	for (o = overrides; *o; o++) {
		char name[64];
		const char *eq = strchr(*o, '=');
		const struct gpu_config_field *f;

		snprintf(name, sizeof(name), "%.*s", (int)(eq - *o), *o);
		f = gpu_config_field_find(name);
		if (!f) {
			fprintf(stderr, "no field %s\n", name);
			abort();
		}
		*gpu_config_u32(&d->cfg, f) = (u32)strtoul(eq + 1, NULL, 0);
	}
	if (gpu_config_check(&d->cfg, GPU_MAX_CHIPLETS, &field, &why)) {
		fprintf(stderr, "the overrides: %s: %s\n", field, why);
		abort();
	}
}

static uint64_t kernel_cycles(const struct driver *d, uint32_t i)
{
	return d->kernel[i].end - d->kernel[i].start;
}

/* Within tol (a fraction) of want: logs both, and the error. */
static bool near(const char *what, double got, double want, double tol)
{
	double err = (got - want) / want;

	fprintf(stderr, "# %-28s measured %10.0f expected %10.0f (%+.1f %%, tolerance %.0f %%)\n",
		what, got, want, 100.0 * err, 100.0 * tol);
	return err <= tol && err >= -tol;
}

/* Generates and runs one case; the test fails on any error. */
#define RUN(d, app, size, m) do {					\
	char err_[512];							\
	ASSERT_EQ(0, app_prog_gen(app, size, m, err_, sizeof(err_)))	\
		TH_LOG("%s: %s", app, err_);				\
	ASSERT_EQ(0, drive(d, m, err_, sizeof(err_)))			\
		TH_LOG("%s: %s", app, err_);				\
} while (0)

/* Bytes a cycle of a bandwidth in B / 1000 cycles. */
static double per_cycle(uint32_t bw)
{
	return bw / 1000.0;
}

/* ---- micro-stream ------------------------------------------------------ */

#define STREAM_N	(1u << 18)	/* 1 MiB an array */
#define LINK_HDR	8		/* gpu_core.c: a link message's header */

/*
 * One chiplet, DRAM the narrowest server (32 B a cycle against the L2's
 * 1000 and 8 SMs issuing 8 warp instructions a cycle, a warp moving 256
 * B in 6), enough L1 MSHRs to cover its latency (Little: 32 B x ~230
 * cycles = 230 sectors over 8 SMs), and an L2 of 64 KiB so b's dirty
 * sectors are written back while the kernel runs: DRAM moves a (4n B
 * read) and b (4n B written back), expected 8n / dram_bw.
 * Tolerance 10 %: the formula ignores the dirty sectors still in the L2
 * at the end (at most l2_size = 3 % of 8n) and the first load's latency
 * and the last store's (a few hundred cycles of ~65000).
 */
TEST(stream_is_bound_by_dram_bandwidth)
{
	static const char *const ov[] = {
		"chiplets=1", "sms=8", "translate=0", "l1_mshrs=256",
		"dram_bw=32000", "l2_size=65536", NULL
	};
	struct driver d;
	struct prog_mem m;
	double want;

	config(&d, ov);
	RUN(&d, "micro-stream", STREAM_N, &m);
	want = 8.0 * STREAM_N / per_cycle(d.cfg.dram_bw);
	EXPECT_TRUE(near("stream, DRAM-bound", kernel_cycles(&d, 0), want,
			 0.10));
	/* What the DRAM moved: a's sectors in, b's out, less what stays. */
	EXPECT_TRUE(near("stream, DRAM bytes", d.st.dram.bytes,
			 8.0 * STREAM_N, 0.10));
	free(m.bytes);
	free(d.pending);
}

/*
 * Two chiplets, pages round-robin (placement rr) and blocks in two
 * halves (tb_sched chunk): half of each chiplet's loads and stores go to
 * the other's L2. A chiplet runs n / 2 elements, so n / 32 of its loaded
 * sectors and n / 32 of its stored ones are remote, and as many of the
 * other's come to it. Out of its port go its remote loads' requests (a
 * header), its remote stores (32 B and a header), the replies to the
 * other's loads (32 B and a header) and the acknowledgements of the
 * other's stores (a header); into it the mirror image. So each port
 * moves n / 32 x (2 x 32 + 4 x hdr) B each way (gpu_core.c's message
 * sizes: an 8 B header); with the link the narrowest server (16 B a
 * cycle; DRAM 1000 B a chiplet), expected that over link_bw.
 * Tolerance 10 %: the formula ignores the first access's latency and the
 * last's (~300 cycles of ~49000) and the ends of the halves, where one
 * chiplet's port idles while the other's still drains.
 */
TEST(stream_across_chiplets_is_bound_by_the_link)
{
	static const char *const ov[] = {
		"chiplets=2", "sms=8", "translate=0", "l1_mshrs=256",
		"placement=1", "tb_sched=1", "link_bw=16000", NULL
	};
	struct driver d;
	struct prog_mem m;
	double want;

	config(&d, ov);
	RUN(&d, "micro-stream", STREAM_N, &m);
	want = STREAM_N / 32.0 * (2 * 32 + 4 * LINK_HDR) /
	       per_cycle(d.cfg.link_bw);
	EXPECT_TRUE(near("stream, link-bound", kernel_cycles(&d, 0), want,
			 0.10));
	free(m.bytes);
	free(d.pending);
}

/* ---- micro-chase ------------------------------------------------------- */

#define CHASE_LINES	4096		/* 512 KiB: fits the 2 MiB L2 */
#define CHASE_INT_OPS	3		/* a hop's INT OPS, each on the last */

/*
 * A hop: the load's latency (the L1's lookup, the L2's, DRAM's when
 * cold, the link both ways when remote) then the hop's 3 dependent INT
 * instructions before the next address is known.
 * Tolerance 10 %: the formula ignores the issue cycles (the load and the
 * back edge, ~2 cycles a hop of 140-300), each server's transfer (32-40
 * B at 768-1000 B a cycle, rounded up to a whole cycle: 1 cycle a server
 * on the way), and the first test and last store (~200 cycles of 4095
 * hops): at most ~4 % a hop.
 */
static double chase_hop(const struct gpu_config *c, bool dram, bool remote)
{
	return c->l1_lat + c->l2_lat + (dram ? c->dram_lat : 0) +
	       (remote ? 2.0 * c->link_lat : 0) + CHASE_INT_OPS * c->lat_int;
}

TEST(chase_costs_a_full_load_latency_a_hop)
{
	static const char *const ov[] = {
		"chiplets=1", "sms=4", "translate=0", NULL
	};
	struct driver d;
	struct prog_mem m;
	const double hops = CHASE_LINES - 1;

	config(&d, ov);
	RUN(&d, "micro-chase", CHASE_LINES, &m);
	ASSERT_EQ(2, d.nkernels);
	EXPECT_TRUE(near("chase, cold (DRAM)", kernel_cycles(&d, 0),
			 hops * chase_hop(&d.cfg, true, false), 0.10));
	EXPECT_TRUE(near("chase, warm (L2)", kernel_cycles(&d, 1),
			 hops * chase_hop(&d.cfg, false, false), 0.10));
	/* Every hop missed the L1; the warm pass hit the L2 every time. */
	EXPECT_LE(2 * hops, d.st.l1_misses);
	free(m.bytes);
	free(d.pending);
}

/*
 * The same across the link: every page on chiplet 0 (chunk placement,
 * all of an object's pages in the first round), the chasing block (the
 * second of two) on chiplet 1.
 */
TEST(remote_chase_adds_the_link_both_ways)
{
	static const char *const ov[] = {
		"chiplets=2", "sms=4", "translate=0", "tb_sched=1", NULL
	};
	struct driver d;
	struct prog_mem m;
	const double hops = CHASE_LINES - 1;

	config(&d, ov);
	d.policy = GPU_PLACE_CHUNK;
	d.place_g = 1u << 20;
	RUN(&d, "micro-chase", CHASE_LINES, &m);
	ASSERT_EQ(2, d.nkernels);
	EXPECT_TRUE(near("chase remote, cold (DRAM)", kernel_cycles(&d, 0),
			 hops * chase_hop(&d.cfg, true, true), 0.10));
	EXPECT_TRUE(near("chase remote, warm (L2)", kernel_cycles(&d, 1),
			 hops * chase_hop(&d.cfg, false, true), 0.10));
	EXPECT_LE(2 * hops, d.st.l2_remote);
	free(m.bytes);
	free(d.pending);
}

/* ---- micro-compute ----------------------------------------------------- */

#define COMPUTE_FMAS	1024
#define COMPUTE_WARPS	256		/* the throughput kernel's */
#define COMPUTE_INSTS	(COMPUTE_FMAS + 5)	/* a warp's, with EXIT */

/*
 * 8 SMs of 32 warp slots: the 32 blocks of 8 warps fit 4 an SM, all at
 * once, however the blocks are spread. The latency kernel: one warp,
 * (fmas + 1) FP instructions and 2 INT each on the one before, expected
 * (fmas + 1) lat_fp + 2 lat_int. Tolerance 10 %: it ignores the final
 * store (one L2 write, l1_lat + l2_lat ~ 3 % of ~4100).
 * The throughput kernel: 32 warps an SM, each a dependent chain but 32
 * > lat_fp of them, so each SM issues one a cycle: expected warps x
 * insts / SMs. Tolerance 5 %: it ignores the last warp's latency and its
 * store (~130 cycles of ~33000).
 */
TEST(fma_chain_is_latency_bound_alone_and_issue_bound_with_many_warps)
{
	static const char *const ov[] = {
		"chiplets=1", "sms=8", "warps_per_sm=32", "translate=0", NULL
	};
	struct driver d;
	struct prog_mem m;
	double sms;

	config(&d, ov);
	RUN(&d, "micro-compute", COMPUTE_FMAS, &m);
	ASSERT_EQ(2, d.nkernels);
	sms = (double)d.cfg.chiplets * d.cfg.sms;
	EXPECT_TRUE(near("compute, one warp (latency)", kernel_cycles(&d, 0),
			 (COMPUTE_FMAS + 1.0) * d.cfg.lat_fp +
			 2.0 * d.cfg.lat_int, 0.10));
	EXPECT_TRUE(near("compute, 256 warps (issue)", kernel_cycles(&d, 1),
			 (double)COMPUTE_WARPS * COMPUTE_INSTS / sms, 0.05));
	EXPECT_EQ(COMPUTE_INSTS * (COMPUTE_WARPS + 1.0), d.st.warp_insts);
	free(m.bytes);
	free(d.pending);
}

/* ---- micro-tlb --------------------------------------------------------- */

#define TLB_PAGES	2048		/* 4 x the L2 TLB's 512 entries */

/*
 * Every load's page is new: every access misses both TLBs and sends one
 * ATS request (no merge: no two share a page), and the store on the last
 * page finds it in the L1 TLB. So walks = ATS requests = pages exactly.
 * Time: the chiplet keeps l2_tlb_mshrs walks in flight, each held a
 * round trip (2 pcie_lat + walk_lat): expected pages / mshrs x round
 * trip. Tolerance 15 %: the formula ignores the TLB lookups a round
 * (l1_tlb_lat + l2_tlb_lat, 1.4 %), the last loads' data (l1 + l2 + DRAM
 * latency once), and an MSHR's idle cycles between its reply and the
 * next miss reaching it.
 */
TEST(tlb_misses_walk_once_an_access)
{
	static const char *const ov[] = {
		"chiplets=1", "sms=4", "translate=1", NULL
	};
	struct driver d;
	struct prog_mem m;
	double rtt, want;

	config(&d, ov);
	RUN(&d, "micro-tlb", TLB_PAGES, &m);
	ASSERT_EQ(1, d.nkernels);
	EXPECT_EQ(TLB_PAGES, d.st.ats_requests);
	EXPECT_EQ(d.walks, d.st.ats_requests);
	EXPECT_EQ(d.st.ats_requests, d.st.ats_replies);
	EXPECT_EQ(0, d.st.l2_tlb_mshr_merges);
	EXPECT_EQ(d.st.l2_tlb_misses - d.st.l2_tlb_mshr_merges,
		  d.st.ats_requests);
	EXPECT_LE(TLB_PAGES, d.st.l1_tlb_misses);
	rtt = 2.0 * d.cfg.pcie_lat + d.cfg.walk_lat;
	want = (double)TLB_PAGES / d.cfg.l2_tlb_mshrs * rtt;
	EXPECT_TRUE(near("tlb, MSHR-bound walks", kernel_cycles(&d, 0), want,
			 0.15));
	/* Every round trip as the IOMMU here gives it. */
	EXPECT_EQ(d.st.ats_requests * (uint64_t)rtt, d.st.ats_round_trip);
	free(m.bytes);
	free(d.pending);
}

TEST_HARNESS_MAIN
