// SPDX-License-Identifier: GPL-2.0
/*
 * Barre in the guest (issue 10): traces replayed through the real ioctls,
 * the device's chiplet TLBs and ATS to barre_iommu.ko give exactly the
 * counters and page tables of the host replay, with the shadow walk clean;
 * writes land in GPU memory at the translated frame; a bad ATS answer is
 * refused and the device keeps working; bad arguments get their errno.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "../lib/mcmgpu_test.h"
#include "../lib/barre_identities.h"
#include "mcmgpu_barre.h"

#define INJECT "/sys/module/barre_iommu/parameters/inject_bad_response"
#define STATS "/sys/kernel/debug/barre_iommu/mcmgpu.iommu.0/stats"
#define IOMMU_DEV "/sys/bus/auxiliary/devices/mcmgpu.iommu.0"

static char out_a[1 << 14], out_b[1 << 14], trace[1 << 20];

/*
 * Two objects; phases of concurrent accesses by every chiplet, a free (a
 * shootdown) between them. pattern 0: each chiplet streams its own part
 * (lockstep), 1: uniform random pages (GUPS-like), 2: a mix with writes.
 */
static void make_trace(const char *path, unsigned int chiplets,
		       unsigned int pattern, uint64_t seed)
{
	uint64_t s = seed | 1, pages = 64ULL * chiplets;
	size_t n = 0;
	unsigned int i, c, ph;

	n += snprintf(trace + n, sizeof(trace) - n,
		      "# barre_test pattern %u\nalloc 1 %llu policy=chunk g=8\n"
		      "alloc 2 %llu policy=rr\n", pattern,
		      (unsigned long long)pages * 4096,
		      (unsigned long long)pages * 4096);
	for (ph = 0; ph < 2; ph++) {
		for (i = 0; i < 400; i++)
			for (c = 0; c < chiplets; c++) {
				uint64_t page = pattern ? mt_xorshift64(&s) % pages :
					(c * (pages / chiplets) + i) % pages;
				uint64_t off = page * 4096 + mt_xorshift64(&s) % 4096;

				n += snprintf(trace + n, sizeof(trace) - n,
					      "access %u %u %llu%s\n", c,
					      i & 1 ? (ph ? 3 : 2) : 1,
					      (unsigned long long)off,
					      pattern == 2 && !(i % 3) ? " w" : "");
			}
		if (!ph)
			n += snprintf(trace + n, sizeof(trace) - n,
				      "free 2\nalloc 3 %llu policy=kwc\n",
				      (unsigned long long)pages * 4096);
	}
	mt_write_text(path, trace);
}

static int replay(const char *opts, bool host, char *out, size_t n)
{
	char cmd[512];

	if (host)
		snprintf(cmd, sizeof(cmd), "mcmgpu barre replay --json --host "
			 "--chiplets %u --vram-per-chiplet %llu %s",
			 mt_expect_chiplets(),
			 (unsigned long long)mt_expect_vram_per_chiplet(), opts);
	else
		snprintf(cmd, sizeof(cmd), "mcmgpu barre replay --json %s", opts);
	return mt_run_cmd(cmd, out, n);
}

static uint64_t json_u64(const char *json, const char *key)
{
	char k[64];
	const char *p;

	snprintf(k, sizeof(k), "\"%s\": ", key);
	p = strstr(json, k);
	return p ? strtoull(p + strlen(k), NULL, 10) : ~0ULL;
}

/* The counters the identities name, from a replay's JSON. */
static void json_stats(const char *json, struct mcmgpu_barre_stats *st)
{
	memset(st, 0, sizeof(*st));
#define J(f) (st->f = json_u64(json, #f))
	J(ats_requests); J(walks); J(coalesced); J(ats_requests_sent);
	J(accesses); J(l1_hits); J(l2_hits); J(mshr_merges); J(l2_misses);
	J(local_hits); J(remote_hits); J(remote_requests);
	J(remote_false_positives); J(lcf_hits); J(lcf_true_positives);
#undef J
}

/*
 * debugfs's counters of address spaces gone (and of live ones, no phase
 * running): walks + coalesced = ats_requests for each block.
 */
static int debugfs_identity_broken(void)
{
	return mt_system("awk '/ats_requests/ { if ($2 != $4 + $6) bad = 1 } "
			 "END { exit bad }' " STATS);
}

/* A fixture only for the timeout: these replays are slow under the debug kernel. */
FIXTURE(slow) {
};

FIXTURE_SETUP(slow)
{
}

FIXTURE_TEARDOWN(slow)
{
}

TEST_F_TIMEOUT(slow, device_equals_host, 600)
{
	static const char * const opts[] = {
		"--shadow", "--barre off", "--walkers 8 --shadow",
		"--walkers 32",
	};
	struct mcmgpu_barre_stats st;
	unsigned int pat, o;
	char args[256];

	for (pat = 0; pat < 3; pat++) {
		make_trace("/tmp/b.trace", mt_expect_chiplets(), pat, 7 + pat);
		for (o = 0; o < ARRAY_SIZE(opts); o++) {
			snprintf(args, sizeof(args), "%s /tmp/b.trace", opts[o]);
			ASSERT_EQ(0, replay(args, false, out_a, sizeof(out_a)))
				TH_LOG("pattern %u %s", pat, opts[o]);
			ASSERT_EQ(0, replay(args, true, out_b, sizeof(out_b)));
			EXPECT_STREQ(out_b, out_a) TH_LOG("pattern %u %s", pat, opts[o]);
			EXPECT_EQ(0, json_u64(out_a, "shadow_mismatches"));
			json_stats(out_a, &st);
			EXPECT_BARRE_IDENTITIES(&st);
			EXPECT_LT(0, json_u64(out_a, "ats_requests"));
			if (strstr(opts[o], "off"))
				EXPECT_EQ(0, json_u64(out_a, "coalesced"));
		}
	}
	/* A concurrent random trace coalesces something with one walker. */
	make_trace("/tmp/b.trace", mt_expect_chiplets(), 0, 3);
	ASSERT_EQ(0, replay("--walkers 1 /tmp/b.trace", false, out_a,
			    sizeof(out_a)));
	EXPECT_LT(0, json_u64(out_a, "coalesced")) TH_LOG("%s", out_a);
}

/* Generated proxies, Barre on: device == host, each chiplet's accesses. */
TEST_F_TIMEOUT(slow, generated_workloads_device_equals_host, 600)
{
	static const char * const w[] = { "pagerank", "gesummv", "spmv", "stencil2d" };
	char cmd[512];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(w); i++) {
		snprintf(cmd, sizeof(cmd), "mcmgpu barre gen %s --chiplets %u "
			 "--accesses 1024 -o /tmp/g.trace", w[i], mt_expect_chiplets());
		ASSERT_EQ(0, mt_system(cmd));
		ASSERT_EQ(0, replay("--shadow /tmp/g.trace", false, out_a, sizeof(out_a)));
		ASSERT_EQ(0, replay("--shadow /tmp/g.trace", true, out_b, sizeof(out_b)));
		EXPECT_STREQ(out_b, out_a) TH_LOG("%s", w[i]);
		EXPECT_EQ(1024ULL * mt_expect_chiplets(), json_u64(out_a, "accesses"))
			TH_LOG("%s", w[i]);
	}
}

/*
 * F-Barre: scheduling, in-package translation, expansion and message
 * loss give the same counters on the device as on the host; in-package
 * answers happen and every miss is answered once.
 */
TEST_F_TIMEOUT(slow, fbarre_device_equals_host, 600)
{
	static const char * const opts[] = {
		"--mode sched --shadow", "--mode fbarre --shadow",
		"--mode fbarre --drop 30 --filter-rows 512",
		"--mode fbarre --merge 2 --shadow",
		"--mode fbarre --merge 4 --filter-rows 1024 --sched-moves 2",
	};
	unsigned int pat, o, nopts = mt_expect_chiplets() > 4 ? 3 : 5;
	struct mcmgpu_barre_stats st;
	char args[256];

	for (pat = 0; pat < 3; pat++) {
		make_trace("/tmp/fb.trace", mt_expect_chiplets(), pat, 17 + pat);
		for (o = 0; o < nopts; o++) {
			snprintf(args, sizeof(args), "%s /tmp/fb.trace", opts[o]);
			ASSERT_EQ(0, replay(args, false, out_a, sizeof(out_a)))
				TH_LOG("pattern %u %s: %s", pat, opts[o], out_a);
			ASSERT_EQ(0, replay(args, true, out_b, sizeof(out_b)));
			EXPECT_STREQ(out_b, out_a) TH_LOG("pattern %u %s", pat, opts[o]);
			json_stats(out_a, &st);
			EXPECT_BARRE_IDENTITIES(&st);
			EXPECT_EQ(0, json_u64(out_a, "shadow_mismatches"));
			EXPECT_EQ(0, json_u64(out_a, "inpackage_mismatches"));
			if (strstr(opts[o], "fbarre") && pat)
				EXPECT_LT(0, json_u64(out_a, "local_hits") +
					     json_u64(out_a, "remote_hits"))
					TH_LOG("pattern %u %s", pat, opts[o]);
			if (strstr(opts[o], "merge") && mt_expect_chiplets() <= 4)
				EXPECT_LT(0, json_u64(out_a, "merged_groups"));
		}
	}
}

/*
 * Writes translated inside the package land on the true frames: each
 * chiplet reads its own page of a round-robin group (the walk fills its
 * TLB and the filters), then writes its neighbour's, which a peer's
 * entry translates; the bytes are read back at the PTEs' frames.
 */
TEST(fbarre_writes_land_on_true_frames)
{
	unsigned int n = mt_expect_chiplets(), c;
	size_t len = 0;
	int fd;

	len += snprintf(trace + len, sizeof(trace) - len,
			"alloc 1 %u policy=rr\n", n * 4096);
	for (c = 0; c < n; c++)
		len += snprintf(trace + len, sizeof(trace) - len,
				"access %u 1 %u r\n", c, c * 4096);
	/* A phase boundary: the reads' fills are done before the writes. */
	len += snprintf(trace + len, sizeof(trace) - len,
			"alloc 2 4096 policy=rr\n");
	for (c = 0; c < n; c++)
		len += snprintf(trace + len, sizeof(trace) - len,
				"access %u 1 %u w\n", c,
				((c + 1) % n) * 4096 + 200 + c);
	ASSERT_EQ(0, mt_write_text("/tmp/fw.trace", trace));
	ASSERT_EQ(0, replay("--mode fbarre --dump-pt /tmp/fw.pt /tmp/fw.trace",
			    false, out_a, sizeof(out_a)));
	EXPECT_EQ(n, json_u64(out_a, "remote_hits") + json_u64(out_a, "local_hits"))
		TH_LOG("%s", out_a);
	fd = mt_open_dev();
	ASSERT_LE(0, fd);
	for (c = 0; c < n; c++) {
		char cmd[128];
		unsigned long long pfn;
		uint8_t byte = 0;

		snprintf(cmd, sizeof(cmd), "awk '$1 == 1 && NR == %u { print $3 }' "
			 "/tmp/fw.pt", (c + 1) % n + 1);
		ASSERT_EQ(0, mt_run_cmd(cmd, out_b, sizeof(out_b)));
		pfn = strtoull(out_b, NULL, 16);
		ASSERT_EQ(0, mt_dma(fd, MCMGPU_DMA_FROM_GPU, &byte,
				    pfn * 4096 + 200 + c, 1));
		EXPECT_EQ(MCMGPU_BARRE_WRITE_BYTE(c), byte) TH_LOG("chiplet %u", c);
	}
	close(fd);
}

/* On the device --chiplets may repeat its geometry, not change it. */
TEST(device_geometry_options)
{
	char cmd[256];

	make_trace("/tmp/b.trace", mt_expect_chiplets(), 1, 13);
	snprintf(cmd, sizeof(cmd), "--chiplets %u /tmp/b.trace", mt_expect_chiplets());
	ASSERT_EQ(0, replay(cmd, false, out_a, sizeof(out_a)));
	ASSERT_EQ(0, replay("/tmp/b.trace", true, out_b, sizeof(out_b)));
	EXPECT_STREQ(out_b, out_a);
	snprintf(cmd, sizeof(cmd), "mcmgpu barre replay --chiplets %u /tmp/b.trace "
		 "2>&1 >/dev/null | grep -q 'must match'",
		 mt_expect_chiplets() == 2 ? 3 : 2);
	EXPECT_EQ(0, mt_system(cmd));
	EXPECT_EQ(2, mt_system("mcmgpu barre replay --fragment 50 /tmp/b.trace "
			       "2>/dev/null"));
}

/* Fig 7a's objects: the device's page tables equal the host's. */
TEST(page_tables_equal_host)
{
	static const char fig7a[] =
		"alloc 1 49152 policy=chunk g=3\nalloc 2 16384 policy=rr\n"
		"alloc 3 12288 policy=rr\naccess 0 1 0\naccess 3 1 45056 w\n";
	char cmd[512];

	if (mt_expect_chiplets() != 4)
		SKIP(return, "Fig 7a has 4 chiplets");
	ASSERT_EQ(0, mt_write_text("/tmp/f7.trace", fig7a));
	ASSERT_EQ(0, mt_system("mcmgpu barre replay --dump-pt /tmp/f7.dev "
			       "/tmp/f7.trace >/dev/null"));
	snprintf(cmd, sizeof(cmd), "mcmgpu barre replay --host --chiplets 4 "
		 "--vram-per-chiplet %llu --dump-pt /tmp/f7.host /tmp/f7.trace "
		 ">/dev/null", (unsigned long long)mt_expect_vram_per_chiplet());
	ASSERT_EQ(0, mt_system(cmd));
	ASSERT_EQ(0, mt_system("cmp /tmp/f7.dev /tmp/f7.host"));
	ASSERT_EQ(0, mt_run_cmd("awk '$5 != \"0x00\"' /tmp/f7.dev | wc -l",
				out_a, sizeof(out_a)));
	EXPECT_EQ(19, atoi(out_a));
}

/* A write access stores its chiplet's byte at the frame its PTE names. */
TEST(writes_reach_gpu_memory)
{
	unsigned int n = mt_expect_chiplets(), c;
	uint64_t frames = mt_expect_vram_per_chiplet() / 4096;
	size_t len = 0;
	int fd;

	len += snprintf(trace + len, sizeof(trace) - len,
			"alloc 1 %u policy=rr\n", n * 4096);
	for (c = 0; c < n; c++)
		len += snprintf(trace + len, sizeof(trace) - len,
				"access %u 1 %u w\n", c, c * 4096 + 100 + c);
	ASSERT_EQ(0, mt_write_text("/tmp/w.trace", trace));
	ASSERT_EQ(0, mt_system("mcmgpu barre replay --dump-pt /tmp/w.pt "
			       "/tmp/w.trace >/dev/null"));
	fd = mt_open_dev();
	ASSERT_LE(0, fd);
	for (c = 0; c < n; c++) {
		char cmd[128];
		unsigned long long pfn;
		uint8_t byte = 0;

		snprintf(cmd, sizeof(cmd), "awk 'NR == %u { print $3 }' /tmp/w.pt",
			 c + 1);
		ASSERT_EQ(0, mt_run_cmd(cmd, out_a, sizeof(out_a)));
		pfn = strtoull(out_a, NULL, 16);
		EXPECT_EQ(c, pfn / frames);	/* round-robin: page c on chiplet c */
		ASSERT_EQ(0, mt_dma(fd, MCMGPU_DMA_FROM_GPU, &byte, pfn * 4096 + 100 + c,
				    1));
		EXPECT_EQ(MCMGPU_BARRE_WRITE_BYTE(c), byte);
	}
	close(fd);
}

static int barre_run(int fd, struct mcmgpu_barre_run *r)
{
	r->size = sizeof(*r);
	return ioctl(fd, MCMGPU_IOCTL_BARRE_RUN, r) ? -errno : 0;
}

/*
 * The device refuses an answer it did not ask for, and keeps working; so
 * it does with rings a buggy IOMMU left (5-7: resp_tail past the end, a
 * stale sequence number, a next event near 2^64 that lets answers arrive
 * after their time), and the IOMMU with a batch a buggy device posted
 * (8-11: req_tail past the end, unknown flags, a wrong resp_head, more
 * requests than a queue): the run fails with EPROTO either way.
 */
TEST(bad_ats_response_refused)
{
	unsigned int how;

	make_trace("/tmp/b.trace", mt_expect_chiplets(), 1, 5);
	ASSERT_EQ(0, replay("/tmp/b.trace", true, out_b, sizeof(out_b)));
	/* 4: a PFN of 2^52, past the GPU's memory (issue 32 item 12). */
	for (how = 1; how <= 11; how++) {
		char v[3];

		snprintf(v, sizeof(v), "%u", how);

		ASSERT_EQ(0, mt_write_sysfs(INJECT, v));
		EXPECT_EQ(1, mt_system("mcmgpu barre replay /tmp/b.trace 2>/tmp/b.err"))
			TH_LOG("injection %u", how);
		EXPECT_EQ(0, mt_system("grep -q 'Protocol error' /tmp/b.err"));
		/* The failed phase's requests left no hole in the counts. */
		EXPECT_EQ(0, debugfs_identity_broken()) TH_LOG("injection %u", how);
		ASSERT_EQ(0, replay("/tmp/b.trace", false, out_a, sizeof(out_a)));
		EXPECT_STREQ(out_b, out_a);
	}
	ASSERT_EQ(0, mt_write_sysfs(INJECT, "0"));
}

#define SLOW "/sys/module/barre_iommu/parameters/slow_answer_us"

/* The rings line's batches and doorbells so far. */
static void ring_counts(struct __test_metadata *_metadata, unsigned long long *batches,
			unsigned long long *doorbells)
{
	ASSERT_EQ(0, mt_run_cmd("awk '/^rings:/ { print $3, $9 }' " STATS,
				out_a, sizeof(out_a)));
	ASSERT_EQ(2, sscanf(out_a, "%llu %llu", batches, doorbells));
}

/*
 * The device polls answered_seq for its cmd-spin-us (100 us) and marks
 * the ring so; the IOMMU rings the doorbell only when it is not marked.
 * A fast IOMMU is polled for (fewer doorbells than batches); one slower
 * than the poll (slow_answer_us) finds the mark cleared and rings every
 * batch, and the run still ends with the host's counters, not a hang.
 */
TEST_F_TIMEOUT(slow, answers_polled_or_rung, 300)
{
	unsigned long long b0 = 0, d0 = 0, b1 = 0, d1 = 0, b2, d2;
	int tries;

	make_trace("/tmp/p.trace", mt_expect_chiplets(), 1, 11);
	ASSERT_EQ(0, replay("/tmp/p.trace", true, out_b, sizeof(out_b)));
	/* The device stops polling for a while when its host is busy. */
	for (tries = 0; tries < 3 && d1 - d0 == b1 - b0; tries++) {
		ring_counts(_metadata, &b0, &d0);
		ASSERT_EQ(0, replay("/tmp/p.trace", false, out_a, sizeof(out_a)));
		EXPECT_STREQ(out_b, out_a);
		ring_counts(_metadata, &b1, &d1);
		TH_LOG("%llu doorbells in %llu batches", d1 - d0, b1 - b0);
	}
	EXPECT_LT(d1 - d0, b1 - b0);
	ASSERT_EQ(0, mt_write_sysfs(SLOW, "2000"));
	ASSERT_EQ(0, replay("/tmp/p.trace", false, out_a, sizeof(out_a)));
	ASSERT_EQ(0, mt_write_sysfs(SLOW, "0"));
	ASSERT_EQ(0, replay("/tmp/p.trace", true, out_b, sizeof(out_b)));
	EXPECT_STREQ(out_b, out_a);
	ring_counts(_metadata, &b2, &d2);
	EXPECT_LT(0, b2 - b1);
	EXPECT_EQ(b2 - b1, d2 - d1);
	EXPECT_EQ(0, debugfs_identity_broken());
}

/*
 * Step i's byte for chiplet c: with chunk g = 8 over n chiplets, the n
 * chiplets' pages of one step are one coalescing group (same round, same
 * offset in their chunks), so PEC coalesces at every chiplet count.
 */
static uint64_t phase_offset(unsigned int c, unsigned int i, unsigned int n,
			     uint64_t pages)
{
	uint64_t rounds = pages / (8ULL * n);

	return ((i / 8 % rounds) * 8 * n + c * 8 + i % 8) * 4096 + 8 * i;
}

/* One Barre object and a lockstep phase on it: coalescing with one walker. */
static size_t phase_trace(char *buf, size_t cap, unsigned int chiplets,
			  uint64_t pages)
{
	size_t n = 0;
	unsigned int i, c;

	n += snprintf(buf + n, cap - n, "alloc 1 %llu policy=chunk g=8\n",
		      (unsigned long long)pages * 4096);
	for (i = 0; i < 200; i++)
		for (c = 0; c < chiplets; c++)
			n += snprintf(buf + n, cap - n, "access %u 1 %llu\n", c,
				      (unsigned long long)phase_offset(c, i, chiplets,
								       pages));
	return n;
}

/*
 * Issue 32 item 9: an object allocated before a BARRE_RUN reset (and with
 * reload, before barre_iommu.ko is unloaded and loaded again) keeps its
 * PEC entry: the phase's counters equal the host replay of the same
 * trace, where nothing resets.
 */
static void alloc_then_run(struct __test_metadata *_metadata, bool reload)
{
	unsigned int n = mt_expect_chiplets(), c, i;
	uint64_t pages = 64ULL * n;
	struct mcmgpu_alloc a = { .size = sizeof(a), .bytes = pages * 4096,
				  .policy = MCMGPU_ALLOC_CHUNK, .g = 8,
				  .flags = MCMGPU_ALLOC_F_BARRE | MCMGPU_ALLOC_F_WRITE };
	static struct mcmgpu_barre_access acc[200 * MCMGPU_MAX_CHIPLETS];
	struct mcmgpu_barre_stats st, host;
	struct mcmgpu_barre_run r;
	int fd;

	phase_trace(trace, sizeof(trace), n, pages);
	ASSERT_EQ(0, mt_write_text("/tmp/p.trace", trace));
	ASSERT_EQ(0, replay("--walkers 1 /tmp/p.trace", true, out_b, sizeof(out_b)));
	json_stats(out_b, &host);
	fd = mt_open_dev();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ioctl(fd, MCMGPU_IOCTL_ALLOC, &a));
	if (reload) {
		ASSERT_EQ(0, mt_system("rmmod barre_iommu"));
		ASSERT_EQ(0, mt_system("insmod " MT_MOD_DIR "/barre_iommu.ko"));
	}
	r = (struct mcmgpu_barre_run){ .flags = MCMGPU_BARRE_RUN_F_RESET,
				       .walkers = 1 };
	ASSERT_EQ(0, barre_run(fd, &r));
	for (i = 0; i < 200; i++)
		for (c = 0; c < n; c++)
			acc[i * n + c] = (struct mcmgpu_barre_access){
				.va = a.gpu_va + phase_offset(c, i, n, pages),
				.chiplet = c,
			};
	r = (struct mcmgpu_barre_run){ .accesses_ptr = (uintptr_t)acc,
				       .count = 200 * n,
				       .stats_ptr = (uintptr_t)&st,
				       .stats_size = sizeof(st) };
	ASSERT_EQ(0, barre_run(fd, &r));
	EXPECT_LT(0, st.coalesced);
	EXPECT_EQ(host.coalesced, st.coalesced);
	EXPECT_EQ(host.walks, st.walks);
	EXPECT_EQ(host.ats_requests, st.ats_requests);
	EXPECT_EQ(json_u64(out_b, "pec_hits"), st.pec_hits);
	EXPECT_EQ(0, st.pec_misses);
	EXPECT_EQ(host.l1_hits, st.l1_hits);
	EXPECT_EQ(json_u64(out_b, "modeled_cycles"), st.modeled_cycles);
	EXPECT_EQ(host.l2_hits, st.l2_hits);
	EXPECT_BARRE_IDENTITIES(&st);
	close(fd);
}

TEST(reset_after_alloc_keeps_pec_entries)
{
	alloc_then_run(_metadata, false);
}

TEST(iommu_reload_keeps_pec_entries)
{
	alloc_then_run(_metadata, true);
}

/*
 * Issue 32 item 10 through the tool: names as IDs and sizes that are not
 * whole pages replay on the device as on the host; bad ones name the line.
 */
TEST(trace_names_and_odd_sizes)
{
	size_t n = 0;
	unsigned int c;

	n += snprintf(trace + n, sizeof(trace) - n,
		      "alloc matrix_a 10000 policy=chunk g=1\nalloc B 1 policy=rr\n");
	for (c = 0; c < mt_expect_chiplets(); c++)
		n += snprintf(trace + n, sizeof(trace) - n,
			      "access %u matrix_a %u w\naccess %u B 4095\n", c,
			      (c * 4096 + 12000) % 12288, c);
	n += snprintf(trace + n, sizeof(trace) - n, "free B\nalloc c.1 5 policy=kwc\n"
		      "access 0 c.1 4000\n");
	ASSERT_EQ(0, mt_write_text("/tmp/n.trace", trace));
	ASSERT_EQ(0, replay("--shadow /tmp/n.trace", false, out_a, sizeof(out_a)));
	ASSERT_EQ(0, replay("--shadow /tmp/n.trace", true, out_b, sizeof(out_b)));
	EXPECT_STREQ(out_b, out_a);
	EXPECT_EQ(5, json_u64(out_a, "pages"));
	ASSERT_EQ(0, mt_system("mcmgpu barre replay --dump-pt /tmp/n.pt /tmp/n.trace "
			       ">/dev/null && awk '$1 == \"matrix_a\"' /tmp/n.pt | "
			       "wc -l | grep -qx 3"));
	ASSERT_EQ(0, mt_write_text("/tmp/bad.trace",
				   "alloc A 4096 policy=rr\n# ok\naccess 0 9z 0\n"));
	EXPECT_EQ(1, mt_system("mcmgpu barre replay /tmp/bad.trace 2>/tmp/bad.err"));
	EXPECT_EQ(0, mt_system("grep -q \"line 3: ID '9z'\" /tmp/bad.err"));
}

/*
 * Issue 32 item 0: barre_iommu.ko's files held open across an unbind of
 * mcmgpu answer ENODEV and touch nothing (debugfs stats, the sysfs ping),
 * as mcmgpu.ko's own file does; after a bind everything works again and
 * the kernel logged no oops or warning.
 */
TEST(aux_files_after_unbind_answer_enodev)
{
	struct mcmgpu_alloc a = { .size = sizeof(a), .bytes = 8 * 4096,
				  .policy = MCMGPU_ALLOC_RR,
				  .flags = MCMGPU_ALLOC_F_BARRE };
	struct mcmgpu_barre_run r = { .flags = MCMGPU_BARRE_RUN_F_RESET };
	char slot[NAME_MAX + 1], buf[4096], oops_before[32], oops_after[32];
	const char *oops = "dmesg | grep -cE 'Oops|BUG:|WARNING:|general protection'";
	int fd, sfd, pfd;

	ASSERT_EQ(0, mt_find_slot(slot, sizeof(slot)));
	mt_run_cmd(oops, oops_before, sizeof(oops_before));
	fd = mt_open_dev();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ioctl(fd, MCMGPU_IOCTL_ALLOC, &a));
	ASSERT_EQ(0, barre_run(fd, &r));
	sfd = open(STATS, O_RDONLY);
	ASSERT_LE(0, sfd);
	EXPECT_LT(0, read(sfd, buf, sizeof(buf)));
	pfd = open(IOMMU_DEV "/ping", O_RDWR);
	ASSERT_LE(0, pfd);
	EXPECT_EQ(1, write(pfd, "1", 1));

	ASSERT_EQ(0, mt_write_sysfs("/sys/bus/pci/drivers/mcmgpu/unbind", slot));
	EXPECT_EQ(0, lseek(sfd, 0, SEEK_SET));
	EXPECT_EQ(-1, read(sfd, buf, sizeof(buf)));
	EXPECT_EQ(ENODEV, errno);
	EXPECT_EQ(-1, pread(pfd, buf, sizeof(buf), 0));
	EXPECT_EQ(ENODEV, errno);
	EXPECT_EQ(-1, write(pfd, "1", 1));
	EXPECT_EQ(ENODEV, errno);
	EXPECT_EQ(-ENODEV, barre_run(fd, &r));
	EXPECT_EQ(-1, ioctl(fd, MCMGPU_IOCTL_ALLOC, &a));
	EXPECT_EQ(ENODEV, errno);
	close(pfd);
	close(sfd);
	close(fd);

	ASSERT_EQ(0, mt_write_sysfs("/sys/bus/pci/drivers/mcmgpu/bind", slot));
	EXPECT_EQ(0, access(IOMMU_DEV "/driver", F_OK));
	make_trace("/tmp/b.trace", mt_expect_chiplets(), 1, 23);
	ASSERT_EQ(0, replay("/tmp/b.trace", false, out_a, sizeof(out_a)));
	ASSERT_EQ(0, replay("/tmp/b.trace", true, out_b, sizeof(out_b)));
	EXPECT_STREQ(out_b, out_a);
	EXPECT_LT(0, mt_read_file(STATS, buf, sizeof(buf)));
	mt_run_cmd(oops, oops_after, sizeof(oops_after));
	EXPECT_STREQ(oops_before, oops_after);
}

TEST(bad_arguments)
{
	struct mcmgpu_alloc a = { .size = sizeof(a), .bytes = 8 * 4096,
				  .policy = MCMGPU_ALLOC_RR,
				  .flags = MCMGPU_ALLOC_F_BARRE };
	struct mcmgpu_barre_access acc[2] = { { 0 } };
	struct mcmgpu_barre_stats st;
	struct mcmgpu_pte_query q = { .size = sizeof(q), .count = 1 };
	struct mcmgpu_barre_run r;
	uint64_t pte;
	int fd = mt_open_dev();

	ASSERT_LE(0, fd);
	r = (struct mcmgpu_barre_run){ .flags = 1U << 7 };
	EXPECT_EQ(-EINVAL, barre_run(fd, &r));
	r = (struct mcmgpu_barre_run){ .flags = MCMGPU_BARRE_RUN_F_RESET,
				       .walkers = 33 };
	EXPECT_EQ(-EINVAL, barre_run(fd, &r));
	r = (struct mcmgpu_barre_run){ .walkers = 8 };	/* without RESET */
	EXPECT_EQ(-EINVAL, barre_run(fd, &r));
	r = (struct mcmgpu_barre_run){ .count = 1 };
	EXPECT_EQ(-EFAULT, barre_run(fd, &r));
	r = (struct mcmgpu_barre_run){ .stats_ptr = (uintptr_t)&st,
				       .stats_size = 8 };
	EXPECT_EQ(-EINVAL, barre_run(fd, &r));
	/* F-Barre's knobs: only with a reset, each in its range. */
	r = (struct mcmgpu_barre_run){ .merge = 2 };
	EXPECT_EQ(-EINVAL, barre_run(fd, &r));
	r = (struct mcmgpu_barre_run){ .flags = MCMGPU_BARRE_RUN_F_RESET,
				       .filter_rows = 300 };
	EXPECT_EQ(-EINVAL, barre_run(fd, &r));
	r.filter_rows = 0;
	r.drop_ppm = 1000001;
	EXPECT_EQ(-EINVAL, barre_run(fd, &r));
	r.drop_ppm = 0;
	r.merge = 5;
	EXPECT_EQ(-EINVAL, barre_run(fd, &r));
	r.merge = 0;
	r.sched_moves = 256;
	EXPECT_EQ(-EINVAL, barre_run(fd, &r));
	r.sched_moves = 0;
	r.fbarre_flags = 2;
	EXPECT_EQ(-EINVAL, barre_run(fd, &r));
	/* Expansion: Barre only, at most 4 pages a chiplet. */
	a.merge = 5;
	EXPECT_EQ(-1, ioctl(fd, MCMGPU_IOCTL_ALLOC, &a));
	EXPECT_EQ(EINVAL, errno);
	a.merge = 2;
	a.flags = 0;
	EXPECT_EQ(-1, ioctl(fd, MCMGPU_IOCTL_ALLOC, &a));
	EXPECT_EQ(EINVAL, errno);
	a.flags = MCMGPU_ALLOC_F_BARRE;
	a.merge = 0;

	ASSERT_EQ(0, ioctl(fd, MCMGPU_IOCTL_ALLOC, &a));
	acc[0].va = a.gpu_va;
	r = (struct mcmgpu_barre_run){ .accesses_ptr = (uintptr_t)acc, .count = 1 };
	EXPECT_EQ(-EBADFD, barre_run(fd, &r));	/* no reset since the open */
	r = (struct mcmgpu_barre_run){ .flags = MCMGPU_BARRE_RUN_F_RESET };
	ASSERT_EQ(0, barre_run(fd, &r));
	/* A chiplet the device lacks; reserved bytes: refused, then a reset. */
	acc[0].va = a.gpu_va;
	acc[1].va = a.gpu_va;
	acc[1].chiplet = MCMGPU_MAX_CHIPLETS;
	r = (struct mcmgpu_barre_run){ .accesses_ptr = (uintptr_t)acc, .count = 2 };
	EXPECT_EQ(-EINVAL, barre_run(fd, &r));
	acc[1].chiplet = 0;
	EXPECT_EQ(-EBADFD, barre_run(fd, &r));
	acc[1].reserved[5] = 1;
	r.flags = MCMGPU_BARRE_RUN_F_RESET;
	EXPECT_EQ(-EINVAL, barre_run(fd, &r));
	acc[1].reserved[5] = 0;
	/* An unmapped page and a write to a read-only one: faults, counted. */
	acc[1].va = a.gpu_va + (1ULL << 30);
	acc[0].write = 1;
	r = (struct mcmgpu_barre_run){ .flags = MCMGPU_BARRE_RUN_F_RESET,
				       .accesses_ptr = (uintptr_t)acc, .count = 2,
				       .stats_ptr = (uintptr_t)&st,
				       .stats_size = sizeof(st) };
	ASSERT_EQ(0, barre_run(fd, &r));
	EXPECT_EQ(2, st.access_faults);
	EXPECT_EQ(2, st.translation_faults);
	EXPECT_EQ(2, st.ats_requests);

	q.handle = a.handle;
	q.ptes_ptr = (uintptr_t)&pte;
	EXPECT_EQ(0, ioctl(fd, MCMGPU_IOCTL_PTE_QUERY, &q));
	EXPECT_EQ(MCMGPU_PTE_VALID, pte & MCMGPU_PTE_VALID);
	q.first = 8;
	EXPECT_EQ(-1, ioctl(fd, MCMGPU_IOCTL_PTE_QUERY, &q));
	EXPECT_EQ(ERANGE, errno);
	q.first = 0;
	q.handle = a.handle + 100;
	EXPECT_EQ(-1, ioctl(fd, MCMGPU_IOCTL_PTE_QUERY, &q));
	EXPECT_EQ(ENOENT, errno);
	close(fd);
}

/*
 * Without barre_iommu.ko there is no ATS: a phase that misses fails with
 * ENODEV (the reset alone, a PASID-table setting, works), and works again
 * after a reload.
 */
TEST(needs_the_iommu)
{
	struct mcmgpu_barre_access acc = { .va = 0x10000, .chiplet = 0 };
	struct mcmgpu_barre_run r = { .flags = MCMGPU_BARRE_RUN_F_RESET,
				      .accesses_ptr = (uintptr_t)&acc,
				      .count = 1 };
	struct mcmgpu_barre_run reset = { .size = sizeof(reset) };
	int fd;

	ASSERT_EQ(0, mt_system("rmmod barre_iommu"));
	fd = mt_open_dev();
	ASSERT_LE(0, fd);
	EXPECT_EQ(0, ioctl(fd, MCMGPU_IOCTL_BARRE_RESET, &reset));
	EXPECT_EQ(-ENODEV, barre_run(fd, &r));
	close(fd);
	ASSERT_EQ(0, mt_system("insmod " MT_MOD_DIR "/barre_iommu.ko"));
	fd = mt_open_dev();
	ASSERT_LE(0, fd);
	EXPECT_EQ(0, barre_run(fd, &r));
	close(fd);
}

/* debugfs keeps the counters of the address spaces that are gone. */
TEST(debugfs_totals_grow)
{
	const char *cat = "cat /sys/kernel/debug/barre_iommu/*/stats | "
			  "awk '/^retired/ { r = 1 } r && /ats_requests/ { print $2 }'";
	uint64_t before, after;

	ASSERT_EQ(0, mt_run_cmd(cat, out_a, sizeof(out_a)));
	before = strtoull(out_a, NULL, 10);
	make_trace("/tmp/b.trace", mt_expect_chiplets(), 1, 11);
	ASSERT_EQ(0, replay("/tmp/b.trace", false, out_b, sizeof(out_b)));
	ASSERT_EQ(0, mt_run_cmd(cat, out_a, sizeof(out_a)));
	after = strtoull(out_a, NULL, 10);
	EXPECT_EQ(json_u64(out_b, "ats_requests"), after - before) TH_LOG("%s", out_a);
}

/* lspci decodes the ATS (enabled by barre_iommu.ko) and PASID capabilities. */
TEST(lspci_shows_ats_and_pasid)
{
	char slot[NAME_MAX + 1], cmd[NAME_MAX + 32];

	ASSERT_EQ(0, mt_find_slot(slot, sizeof(slot)));
	snprintf(cmd, sizeof(cmd), "lspci -vvv -s %s 2>/dev/null", slot);
	ASSERT_EQ(0, mt_run_cmd(cmd, out_a, sizeof(out_a)));
	EXPECT_NE(NULL, strstr(out_a, "Address Translation Service (ATS)"))
		TH_LOG("%s", out_a);
	EXPECT_NE(NULL, strstr(out_a, "ATSCtl:\tEnable+")) TH_LOG("%s", out_a);
	EXPECT_NE(NULL, strstr(out_a, "Process Address Space ID (PASID)"));
}

TEST_HARNESS_MAIN
