// SPDX-License-Identifier: GPL-2.0
/*
 * FinePack kselftests in the guest: device replay equals the host core
 * (identical JSON counters), delivered bytes equal in-order plain
 * application (--verify) for every sub-header size, and bad traces and bad
 * ioctl arguments are refused before anything is applied.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "../lib/mcmgpu_test.h"
#include "mcmgpu_finepack.h"
#include "fp_trace.h"

static char out_a[1 << 16], out_b[1 << 16];

/* Device and host replays of one trace print the same JSON; verify clean. */
static void same_on_device_and_host(struct __test_metadata *_metadata,
				    const char *gen, const char *flags)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd), "mcmgpu finepack gen %s --chiplets %u "
		 "-o /tmp/fp.bin", gen, mt_expect_chiplets());
	ASSERT_EQ(0, mt_run_cmd(cmd, NULL, 0)) TH_LOG("%s", cmd);
	snprintf(cmd, sizeof(cmd), "mcmgpu finepack replay --json --verify %s "
		 "/tmp/fp.bin", flags);
	ASSERT_EQ(0, mt_run_cmd(cmd, out_a, sizeof(out_a))) TH_LOG("%s: %s", cmd, out_a);
	snprintf(cmd, sizeof(cmd), "mcmgpu finepack replay --json --verify --host "
		 "--chiplets %u %s /tmp/fp.bin", mt_expect_chiplets(), flags);
	ASSERT_EQ(0, mt_run_cmd(cmd, out_b, sizeof(out_b))) TH_LOG("%s", cmd);
	EXPECT_STREQ(out_a, out_b);
	EXPECT_NE(NULL, strstr(out_a, "\"mismatched_bytes\": 0}"));
	EXPECT_NE(NULL, strstr(out_a, "\"decode_errors\": 0"));
}

/*
 * Every generic generator writes race-free traces: replayed with --verify
 * they equal in-order plain application (scatter's 128 B stores once
 * crossed into the next writer's line).
 */
TEST(generic_generators_are_race_free)
{
	static const char * const kinds[] = {
		"halo", "vertex", "transpose", "scatter", "lines",
		"pagerank-graph --count 5000", "sssp-graph --count 5000",
		"pagerank-graph --graph band --band 4 --count 5000",
		"voxels --bytes 64K",
		"halo --planes 40 --bytes 40K --depth 2 --store 48",
	};
	char cmd[256];

	for (unsigned int i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		snprintf(cmd, sizeof(cmd), "mcmgpu finepack gen %s --chiplets %u "
			 "-o /tmp/g.bin && mcmgpu finepack replay --json --verify "
			 "--host --chiplets %u /tmp/g.bin", kinds[i],
			 mt_expect_chiplets(), mt_expect_chiplets());
		ASSERT_EQ(0, mt_run_cmd(cmd, out_a, sizeof(out_a))) TH_LOG("%s", cmd);
		EXPECT_NE(NULL, strstr(out_a, "\"mismatched_bytes\": 0}"))
			TH_LOG("%s: %s", kinds[i], out_a);
	}
}

TEST(halo_device_equals_host)
{
	char want[64];

	same_on_device_and_host(_metadata, "jacobi --iters 2", "");
	/* EQWP's strided faces: a run per plane, a plane apart. */
	same_on_device_and_host(_metadata, "eqwp --iters 2", "");
	snprintf(want, sizeof(want), "\"regions\": %u,",
		 48 * mt_expect_chiplets() * (mt_expect_chiplets() > 2 ? 2 : 1));
	EXPECT_NE(NULL, strstr(out_a, want)) TH_LOG("%s", out_a);
}

TEST(vertex_updates_device_equals_host)
{
	same_on_device_and_host(_metadata, "pagerank --iters 1 --count 3000",
				"--overhead 24");
}

/* The graph proxies (fp_graph.c) and CT's voxel sweep. */
TEST(graph_and_voxel_proxies_device_equals_host)
{
	same_on_device_and_host(_metadata, "sssp --count 8192 --iters 6", "");
	same_on_device_and_host(_metadata, "ct --bytes 64K --iters 1",
				"--subheader 3");
}

TEST(transpose_device_equals_host)
{
	same_on_device_and_host(_metadata, "hit --iters 1 --rows 32", "");
}

/* More than one 4 MiB window per destination at h = 4. */
TEST(scatter_over_windows_device_equals_host)
{
	same_on_device_and_host(_metadata,
				"scatter --bytes 16M --count 2000 --store 0 --iters 1",
				"--subheader 4");
	EXPECT_EQ(NULL, strstr(out_a, "\"window\": 0,"));
}

/* Loads, atomics and fences, for every sub-header size. */
TEST(mixed_records_every_subheader)
{
	static const char text[] =
		"# what DMA copies each kernel, and the kernel's compute\n"
		"region 0 1 0 0x20000\n"
		"compute 0 3000\n"
		"compute 1 1500\n"
		"# queued stores, then a load and an atomic to queued lines\n"
		"store 0 1 0x100 4 11223344\n"
		"store 0 1 0x104 8 5566778899aabbcc\n"
		"load 0 1 0x100 4\n"
		"store 0 1 0x180 2 dead\n"
		"atomic 0 1 0x180 4 01020304\n"
		"store 1 0 0x40 4 cafef00d\n"
		"fence 1\n"
		"store 1 0 0x44 4 0badf00d\n"
		"store 0 1 0x10000 16 000102030405060708090a0b0c0d0e0f\n"
		"kernel_end\n"
		"store 1 0 0x48 3 aabbcc\n";
	char cmd[256];
	int h;

	ASSERT_EQ(0, mt_write_text("/tmp/mixed.txt", text));
	for (h = 2; h <= 6; h++) {
		snprintf(cmd, sizeof(cmd), "mcmgpu finepack replay --json --verify "
			 "--subheader %d /tmp/mixed.txt", h);
		ASSERT_EQ(0, mt_run_cmd(cmd, out_a, sizeof(out_a))) TH_LOG("h %d", h);
		snprintf(cmd, sizeof(cmd), "mcmgpu finepack replay --json --verify "
			 "--host --chiplets %u --subheader %d /tmp/mixed.txt",
			 mt_expect_chiplets(), h);
		ASSERT_EQ(0, mt_run_cmd(cmd, out_b, sizeof(out_b)));
		EXPECT_STREQ(out_a, out_b);
		EXPECT_NE(NULL, strstr(out_a, "\"load\": 1, \"atomic\": 1}"))
			TH_LOG("%s", out_a);
		EXPECT_NE(NULL, strstr(out_a, "\"kernels\": 2"));
		/* Two copies of the region and the atomic; compute 3 + 1.5 us. */
		EXPECT_NE(NULL, strstr(out_a, "\"regions\": 1, \"dma_uses_regions\": 1"));
		EXPECT_NE(NULL, strstr(out_a, "\"dma_region\": {\"wire_bytes\": 263968,"));
		EXPECT_NE(NULL, strstr(out_a, "\"compute_records\": 2, \"one_gpu_ps\": 4500000,"))
			TH_LOG("%s", out_a);
	}
}

static int replay_ioctl(int fd, const void *trace, size_t len, uint32_t h,
			uint32_t o, struct mcmgpu_fp_replay_result *res)
{
	struct mcmgpu_finepack_replay rp = {
		.size = sizeof(rp), .trace_ptr = (uintptr_t)trace,
		.trace_len = len, .subheader = h, .overhead = o,
		.result_ptr = (uintptr_t)res, .result_size = sizeof(*res),
	};

	memset(res, 0, sizeof(*res));
	return ioctl(fd, MCMGPU_IOCTL_FINEPACK_REPLAY, &rp) ? -errno : 0;
}

/*
 * The device validates the whole trace first: a bad record anywhere means
 * nothing is applied, and the result names the record and the field.
 */
TEST(device_rejects_bad_traces_before_applying_anything)
{
	static const uint8_t four[4] = { 1, 2, 3, 4 };
	struct fp_trace_buf tb = { 0 };
	struct mcmgpu_fp_replay_result res;
	struct mcmgpu_fp_trace_record *rec;
	struct mcmgpu_fp_trace_header *hdr;
	struct mcmgpu_info info;
	uint8_t before[256], after[256], *t;
	size_t len;
	int fd = mt_open_dev();

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, mt_get_info(fd, &info));
	memset(before, 0x3c, sizeof(before));
	ASSERT_EQ(0, mt_dma(fd, 0, before, info.vram_per_chiplet, sizeof(before)));

	fp_tb_add(&tb, MCMGPU_FP_REC_STORE, 0, 1, 0, 4, four);
	fp_tb_add(&tb, MCMGPU_FP_REC_STORE, 0, 1, 64, 4, four);
	fp_tb_add(&tb, MCMGPU_FP_REC_STORE, 1, 0, 128, 4, four);
	t = fp_tb_finish(&tb, &len);
	ASSERT_NE(NULL, t);
	hdr = (struct mcmgpu_fp_trace_header *)t;
	rec = (struct mcmgpu_fp_trace_record *)(hdr + 1);

#define BAD(change, undo, want_rec, want_msg) do { \
	change; \
	EXPECT_EQ(-EINVAL, replay_ioctl(fd, t, len, 5, 28, &res)); \
	EXPECT_EQ(want_rec, res.error.index); \
	EXPECT_EQ(0, strncmp(want_msg, res.error.what, strlen(want_msg))) \
		TH_LOG("'%s'", res.error.what); \
	undo; \
} while (0)

	BAD(rec[2].dst = rec[2].src, rec[2].dst = 0, 3, "dst: equals src");
	BAD(rec[2].dst = info.chiplets, rec[2].dst = 0, 3, "dst: no such chiplet");
	BAD(rec[2].len = 0, rec[2].len = 4, 3, "len: must not be 0");
	BAD(rec[1].type = 42, rec[1].type = MCMGPU_FP_REC_STORE, 2, "type: unknown");
	BAD(rec[2].addr = info.vram_per_chiplet - 2, rec[2].addr = 128, 3, "addr");
	BAD(rec[0].src = 9, rec[0].src = 0, 1, "src: no such chiplet");
	BAD(hdr->version = 7, hdr->version = MCMGPU_FP_TRACE_VERSION, 0, "version");
	BAD(len -= 3, len += 3, 0, "data_size");
	BAD(hdr->nrecords = 1000, hdr->nrecords = 3, 0, "nrecords");
	/* Regions and compute records are checked as the host checks them. */
	BAD((rec[1].type = MCMGPU_FP_REC_REGION, rec[1].addr = 4096,
	     rec[1].len = info.vram_per_chiplet),
	    (rec[1].type = MCMGPU_FP_REC_STORE, rec[1].addr = 64, rec[1].len = 4),
	    2, "addr: past the end");
	BAD((rec[1].type = MCMGPU_FP_REC_COMPUTE, rec[1].addr = 1000),
	    (rec[1].type = MCMGPU_FP_REC_STORE, rec[1].addr = 64), 2,
	    "dst, len, data_off: must be 0 for compute");

	/* Nothing was applied by any of the rejected replays. */
	ASSERT_EQ(0, mt_dma(fd, MCMGPU_DMA_FROM_GPU, after, info.vram_per_chiplet,
			    sizeof(after)));
	EXPECT_EQ(0, memcmp(before, after, sizeof(before)));

	/* Bad arguments. */
	EXPECT_EQ(-EINVAL, replay_ioctl(fd, t, len, 7, 28, &res));
	EXPECT_EQ(-EINVAL, replay_ioctl(fd, t, len, 5, 20, &res));
	EXPECT_EQ(-EINVAL, replay_ioctl(fd, t, 0, 5, 28, &res));
	EXPECT_EQ(-EFAULT, replay_ioctl(fd, NULL, len, 5, 28, &res));
	EXPECT_EQ(-EFAULT, replay_ioctl(fd, (void *)16, len, 5, 28, &res));

	/* The same trace, repaired, is applied. */
	ASSERT_EQ(0, replay_ioctl(fd, t, len, 5, 28, &res));
	EXPECT_EQ(3, res.stats.stores);
	ASSERT_EQ(0, mt_dma(fd, MCMGPU_DMA_FROM_GPU, after, info.vram_per_chiplet,
			    sizeof(after)));
	EXPECT_EQ(0, memcmp(four, after, 4));
	EXPECT_EQ(0, memcmp(four, after + 64, 4));
	free(t);
	close(fd);
}

/*
 * Traces of 256 KiB and more go to the device from the caller's pinned
 * pages: every byte arrives wherever the trace starts in its first page,
 * from a read-only mapping too; a trace running into unmapped or
 * inaccessible memory is -EFAULT and applies nothing.
 */
TEST(large_traces_from_pinned_pages)
{
	static const size_t offsets[] = { 0, 1, 16, 4093 };
	const uint32_t n = 24000;
	struct fp_trace_buf tb = { 0 };
	struct mcmgpu_fp_replay_result res;
	struct mcmgpu_info info;
	uint32_t i, *got, v, bad;
	size_t len, k, span;
	uint8_t *t, *map;
	int fd = mt_open_dev();

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, mt_get_info(fd, &info));
	for (i = 0; i < n; i++) {
		v = i * 2654435761u;
		fp_tb_add(&tb, MCMGPU_FP_REC_STORE, i % 2, 1 - i % 2, 4 * i, 4,
			  (const uint8_t *)&v);
	}
	t = fp_tb_finish(&tb, &len);
	ASSERT_NE(NULL, t);
	ASSERT_LE(256 << 10, len);
	span = (len + 3 * 4096 + 4095) & ~4095UL;
	got = malloc(4 * n);
	ASSERT_NE(NULL, got);
	for (k = 0; k < sizeof(offsets) / sizeof(offsets[0]); k++) {
		map = mmap(NULL, span, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		ASSERT_NE(MAP_FAILED, map);
		memcpy(map + offsets[k], t, len);
		if (k == 1)	/* read-only is enough */
			ASSERT_EQ(0, mprotect(map, span, PROT_READ));
		ASSERT_EQ(0, replay_ioctl(fd, map + offsets[k], len, 5, 28, &res))
			TH_LOG("offset %zu", offsets[k]);
		EXPECT_EQ(n, res.stats.stores);
		/* Chiplet 1 got the even stores, chiplet 0 the odd ones. */
		ASSERT_EQ(0, mt_dma(fd, MCMGPU_DMA_FROM_GPU, got,
				    info.vram_per_chiplet, 4 * n));
		for (bad = 0, i = 0; i < n; i += 2)
			bad += got[i] != i * 2654435761u;
		ASSERT_EQ(0, mt_dma(fd, MCMGPU_DMA_FROM_GPU, got, 0, 4 * n));
		for (i = 1; i < n; i += 2)
			bad += got[i] != i * 2654435761u;
		EXPECT_EQ(0, bad) TH_LOG("offset %zu", offsets[k]);
		munmap(map, span);
	}

	/* A hole in the middle, then a page nobody may read: nothing lands. */
	memset(got, 0x5a, 4 * n);
	ASSERT_EQ(0, mt_dma(fd, 0, got, 0, 4 * n));
	map = mmap(NULL, span, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, map);
	memcpy(map, t, len);
	munmap(map + (len / 2 & ~4095UL), 4096);
	EXPECT_EQ(-EFAULT, replay_ioctl(fd, map, len, 5, 28, &res));
	ASSERT_EQ(0, munmap(map, span));
	map = mmap(NULL, span, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, map);
	memcpy(map, t, len);
	ASSERT_EQ(0, mprotect(map + (len / 3 & ~4095UL), 4096, PROT_NONE));
	EXPECT_EQ(-EFAULT, replay_ioctl(fd, map, len, 5, 28, &res));
	munmap(map, span);
	ASSERT_EQ(0, mt_dma(fd, MCMGPU_DMA_FROM_GPU, got, 0, 4 * n));
	for (bad = 0, i = 0; i < n; i++)
		bad += got[i] != 0x5a5a5a5au;
	EXPECT_EQ(0, bad);
	free(got);
	free(t);
	close(fd);
}

/* The tool names the bad line or record and changes nothing. */
TEST(tool_errors_name_the_record)
{
	ASSERT_EQ(0, mt_write_text("/tmp/bad.txt",
				   "store 0 1 0 4 01020304\nstore 0 1 8 4 0102\n"));
	EXPECT_EQ(1, mt_run_cmd("mcmgpu finepack replay /tmp/bad.txt 2>&1", out_a,
			 sizeof(out_a)));
	EXPECT_NE(NULL, strstr(out_a, "line 2: HEXDATA: 4 hex digits for LEN 4"))
		TH_LOG("%s", out_a);

	ASSERT_EQ(0, mt_write_text("/tmp/bad.txt", "store 0 1 0 4 01020304\n"
				   "fence 0\nstore 1 1 8 2 0102\n"));
	EXPECT_EQ(1, mt_run_cmd("mcmgpu finepack replay /tmp/bad.txt 2>&1", out_a,
			 sizeof(out_a)));
	EXPECT_NE(NULL, strstr(out_a, "record 3: dst: equals src")) TH_LOG("%s", out_a);
	EXPECT_EQ(1, mt_run_cmd("mcmgpu finepack replay --host /tmp/bad.txt 2>&1", out_a,
			 sizeof(out_a)));
	EXPECT_NE(NULL, strstr(out_a, "record 3: dst: equals src"));

	EXPECT_EQ(1, mt_run_cmd("head -c 40 /tmp/fp.bin >/tmp/trunc.bin; "
			 "mcmgpu finepack replay /tmp/trunc.bin 2>&1", out_a,
			 sizeof(out_a)));
	EXPECT_NE(NULL, strstr(out_a, "record 0: nrecords: trace truncated"))
		TH_LOG("%s", out_a);
	EXPECT_EQ(2, mt_run_cmd("mcmgpu finepack replay --subheader 9 /tmp/fp.bin 2>&1",
			 out_a, sizeof(out_a)));
	EXPECT_EQ(0, mt_run_cmd("mcmgpu finepack replay --help", NULL, 0));
	EXPECT_EQ(0, mt_run_cmd("mcmgpu finepack gen --help", NULL, 0));
	EXPECT_EQ(0, mt_run_cmd("mcmgpu finepack --help", NULL, 0));
	/* Still working. */
	EXPECT_EQ(0, mt_run_cmd("mcmgpu finepack replay --verify /tmp/mixed.txt", NULL, 0));
}

TEST_HARNESS_MAIN
