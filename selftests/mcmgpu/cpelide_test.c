// SPDX-License-Identifier: GPL-2.0
/*
 * CPElide kselftests in the guest: launch sequences replayed through the
 * device's global command processor give the same counters as the host
 * core, the coherence oracle stays clean, the directed sequences give
 * their exact operation counts, and bad sequences and bad launch records
 * are refused with the line or argument named.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "../lib/mcmgpu_test.h"

static char out_a[1 << 15], out_b[1 << 15];

/* /tmp/w.seq under every policy and remote mode: device == host. */
static void seq_device_equals_host(struct __test_metadata *_metadata)
{
	static const char * const runs[] = {
		"--policy baseline", "--policy cpelide", "--policy ideal",
		"--policy hmg", "--policy baseline --remote cache",
		"--policy cpelide --remote cache",
	};
	char cmd[512];
	unsigned int p;

	for (p = 0; p < ARRAY_SIZE(runs); p++) {
		snprintf(cmd, sizeof(cmd), "mcmgpu cpelide replay --json %s "
			 "/tmp/w.seq", runs[p]);
		ASSERT_EQ(0, mt_run_cmd(cmd, out_a, sizeof(out_a))) TH_LOG("%s", cmd);
		snprintf(cmd, sizeof(cmd), "mcmgpu cpelide replay --json --host "
			 "--chiplets %u %s /tmp/w.seq", mt_expect_chiplets(),
			 runs[p]);
		ASSERT_EQ(0, mt_run_cmd(cmd, out_b, sizeof(out_b)));
		EXPECT_STREQ(out_a, out_b) TH_LOG("%s", runs[p]);
		if (!strstr(runs[p], "ideal"))
			EXPECT_NE(NULL, strstr(out_a, "\"oracle_violations\": 0,"))
				TH_LOG("%s", runs[p]);
	}
}

static void device_equals_host(struct __test_metadata *_metadata,
			       const char *workload)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd), "mcmgpu cpelide gen %s --chiplets %u -o /tmp/w.seq",
		 workload, mt_expect_chiplets());
	ASSERT_EQ(0, mt_run_cmd(cmd, NULL, 0));
	seq_device_equals_host(_metadata);
}

/* Six replays on the device and six on the host core under TCG. */
FIXTURE(replay) {
	int unused;
};

FIXTURE_SETUP(replay)
{
}

FIXTURE_TEARDOWN(replay)
{
}

TEST_F_TIMEOUT(replay, square_device_equals_host, 300)
{
	device_equals_host(_metadata, "square");
}

TEST_F_TIMEOUT(replay, lud_device_equals_host, 300)
{
	device_equals_host(_metadata, "lud");
}

TEST_F_TIMEOUT(replay, rnn_device_equals_host, 300)
{
	device_equals_host(_metadata, "rnn_gru_small");
}

TEST_F_TIMEOUT(replay, unknown_ranges_device_equals_host, 300)
{
	device_equals_host(_metadata, "btree");
}

/* Ten arguments a kernel: the CP coarsens them into eight rows. */
TEST_F_TIMEOUT(replay, coarsened_arguments_device_equals_host, 300)
{
	FILE *f = fopen("/tmp/w.seq", "w");
	int i, k;

	ASSERT_NE(NULL, f);
	for (i = 0; i < 10; i++)
		fprintf(f, "alloc x%d 262144\n", i);
	for (k = 0; k < 12; k++) {
		fprintf(f, "kernel k%d", k % 3);
		for (i = 0; i < 10; i++)
			fprintf(f, " x%d:%s", i, (i + k) % 3 ? "r" : "rw");
		fprintf(f, "\n");
	}
	fprintf(f, "host_read x0\n");
	fclose(f);
	seq_device_equals_host(_metadata);
	ASSERT_EQ(0, mt_run_cmd("mcmgpu cpelide replay --json /tmp/w.seq",
				out_a, sizeof(out_a)));
	EXPECT_EQ(NULL, strstr(out_a, "\"coarsened_args\": 0,"));
}

/* notes §4.3.2: producer -> consumer and write after remote read. */
TEST(directed_sequences_exact_counts)
{
	mt_write_text("/tmp/pc.seq",
		      "alloc A 65536\n"
		      "kernel produce chiplets=0 A:rw:0=0-16383\n"
		      "kernel consume chiplets=1 A:r:1=0-16383\n"
		      "end\n");
	ASSERT_EQ(0, mt_run_cmd("mcmgpu cpelide replay --json /tmp/pc.seq", out_a,
			        sizeof(out_a)));
	EXPECT_NE(NULL, strstr(out_a, "\"l2_invalidates\": 0, \"l2_flushes\": 1,"))
		TH_LOG("%s", out_a);

	mt_write_text("/tmp/war.seq",
		      "alloc X 65536\n"
		      "kernel read chiplets=1 X:r:1=0-4095\n"
		      "kernel write chiplets=0 X:rw:0=0-4095\n"
		      "kernel reread chiplets=1 X:r:1=0-4095\n");
	ASSERT_EQ(0, mt_run_cmd("mcmgpu cpelide replay --json /tmp/war.seq", out_a,
			        sizeof(out_a)));
	EXPECT_NE(NULL, strstr(out_a, "\"l2_invalidates\": 1, \"l2_flushes\": 1,"))
		TH_LOG("%s", out_a);
	EXPECT_NE(NULL, strstr(out_a, "\"oracle_violations\": 0,"));
}

TEST(bad_sequences_name_the_line)
{
	static const struct { const char *text, *want; } bad[] = {
		{ "alloc A 4096\nkernel k chiplets=0,1 A:rw:0=0-2047,1=1024-4095\n",
		  "line 2: argument 1: race" },
		{ "alloc A 4096\nkernel k chiplets= A:r\n", "line 2: empty chiplet set" },
		{ "alloc A 4096\nkernel k chiplets=9 A:r\n", "line 2: chiplet '9' does not exist" },
		{ "alloc A 4096\nkernel k A:r:0=0-5000\n", "line 2: range: outside object 'A'" },
		{ "alloc A 4096\nkernel k B:r\n", "line 2: unknown object 'B'" },
		{ "alloc A 4096\nkernal k A:r\n", "line 2: unknown record type 'kernal'" },
		{ "alloc A 4096\nkernel k A:w\n", "line 2: mode 'w': want r or rw" },
		{ "alloc A 4096\nkernel k A:r A:r A:r A:r A:r A:r A:r A:r A:r A:r "
		  "A:r A:r A:r A:r A:r A:r A:r\n",
		  "line 2: more than 16 arguments" },
	};
	char cmd[256];
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		mt_write_text("/tmp/bad.seq", bad[i].text);
		EXPECT_EQ(1, mt_run_cmd("mcmgpu cpelide replay /tmp/bad.seq 2>&1", out_a,
				        sizeof(out_a)));
		EXPECT_NE(NULL, strstr(out_a, bad[i].want)) TH_LOG("%zu: %s", i, out_a);
	}
	/* Twelve arguments are coarsened, not refused. */
	mt_write_text("/tmp/ok.seq", "alloc A 4096\nalloc B 4096\nalloc C 4096\n"
		      "kernel k A:r B:r C:rw A:r B:r C:rw A:r B:r A:r B:r A:r B:r\n");
	snprintf(cmd, sizeof(cmd), "mcmgpu cpelide replay --json /tmp/ok.seq");
	EXPECT_EQ(0, mt_run_cmd(cmd, out_a, sizeof(out_a))) TH_LOG("%s", out_a);
	EXPECT_EQ(0, mt_run_cmd("mcmgpu cpelide replay --help", NULL, 0));
	EXPECT_EQ(0, mt_run_cmd("mcmgpu cpelide gen --help", NULL, 0));
	EXPECT_EQ(2, mt_run_cmd("mcmgpu cpelide replay --policy magic /tmp/ok.seq 2>&1",
			        out_a, sizeof(out_a)));
}

/* The device checks every record itself; the driver checks the call. */
TEST(device_refuses_bad_launch_records)
{
	struct mcmgpu_cpe_record *r = calloc(1, sizeof(*r));
	struct mcmgpu_cpe_launch_result res;
	int fd = mt_open_dev();

	ASSERT_LE(0, fd);
	ASSERT_NE(NULL, r);
	/* Impossible resets are refused, an unknown flag too. */
	r->type = MCMGPU_CPE_REC_RESET;
	r->chiplets = 9;
	r->mem_bytes = 1 << 20;
	EXPECT_EQ(-EINVAL, mt_launch_sized(fd, r, sizeof(*r), &res));
	EXPECT_NE(NULL, strstr(res.error.what, "chiplets"));
	r->chiplets = 2;
	r->policy = MCMGPU_CPE_POLICY_CPELIDE;
	r->flags = 2;
	EXPECT_EQ(-EINVAL, mt_launch_sized(fd, r, sizeof(*r), &res));
	EXPECT_NE(NULL, strstr(res.error.what, "flags")) TH_LOG("%s", res.error.what);
	r->flags = 0;
	ASSERT_EQ(0, mt_launch_sized(fd, r, sizeof(*r), &res));
	memset(r, 0, sizeof(*r));
	r->type = MCMGPU_CPE_REC_KERNEL;
	r->chiplet_mask = 0x3;
	r->passes = 1;
	r->nargs = 1;
	r->args[0].base = 0;
	r->args[0].size = 8192;
	r->args[0].mode = MCMGPU_CPE_MODE_RW;
	r->args[0].kind = MCMGPU_CPE_ARG_EXPLICIT;
	for (int c = 2; c < MCMGPU_MAX_CHIPLETS; c++)
		r->args[0].range[c] = (struct mcmgpu_cpe_range){ 1, 0 };	/* none */
	r->args[0].range[0] = (struct mcmgpu_cpe_range){ 0, 4095 };
	r->args[0].range[1] = (struct mcmgpu_cpe_range){ 4000, 8191 };
	EXPECT_EQ(-EINVAL, mt_launch_sized(fd, r, sizeof(*r), &res));
	EXPECT_EQ(1, res.error.index);
	EXPECT_EQ(0, strncmp("race", res.error.what, 4)) TH_LOG("%s", res.error.what);
	r->chiplet_mask = 0;
	EXPECT_EQ(-EINVAL, mt_launch_sized(fd, r, sizeof(*r), &res));
	EXPECT_NE(NULL, strstr(res.error.what, "empty chiplet set"));
	r->chiplet_mask = 0x3;
	r->args[0].range[1] = (struct mcmgpu_cpe_range){ 4096, 8191 };
	EXPECT_EQ(-EINVAL, mt_launch_sized(fd, r, sizeof(*r) - 8, &res));
	EXPECT_EQ(-EFAULT, mt_launch_sized(fd, NULL, sizeof(*r), &res));
	/* The repaired record is accepted and counted. */
	ASSERT_EQ(0, mt_launch_sized(fd, r, sizeof(*r), &res));
	EXPECT_EQ(1, res.stats.kernels);
	/* A refused reset leaves the running sequence as it was. */
	r->type = MCMGPU_CPE_REC_RESET;
	r->chiplets = 9;
	EXPECT_EQ(-EINVAL, mt_launch_sized(fd, r, sizeof(*r), &res));
	r->type = MCMGPU_CPE_REC_KERNEL;
	r->chiplets = 0;
	r->flags = MCMGPU_CPE_FLAG_CACHE_REMOTE;
	EXPECT_EQ(-EINVAL, mt_launch_sized(fd, r, sizeof(*r), &res));
	EXPECT_NE(NULL, strstr(res.error.what, "flags")) TH_LOG("%s", res.error.what);
	r->flags = 0;
	ASSERT_EQ(0, mt_launch_sized(fd, r, sizeof(*r), &res));
	EXPECT_EQ(2, res.stats.kernels);
	r->type = MCMGPU_CPE_REC_END;
	ASSERT_EQ(0, mt_launch_sized(fd, r, sizeof(*r), &res));
	EXPECT_EQ(2, res.stats.l2_flushes);
	EXPECT_EQ(0, res.stats.oracle_violations);
	free(r);
	close(fd);
}

/*
 * Sequences belong to the open file: a new file has none, even while
 * another file's sequence runs, so its first KERNEL (no RESET) is refused.
 */
TEST(fresh_file_has_no_sequence)
{
	struct mcmgpu_cpe_launch_result res;
	int other = mt_open_dev(), fd;

	ASSERT_LE(0, other);
	ASSERT_EQ(0, mt_launch_reset(other));
	fd = mt_open_dev();
	ASSERT_LE(0, fd);
	EXPECT_EQ(-EINVAL, mt_launch_kernel(fd, &res));
	EXPECT_NE(NULL, strstr(res.error.what, "no sequence")) TH_LOG("'%s'", res.error.what);
	/* The other file's sequence is still there and takes the kernel. */
	ASSERT_EQ(0, mt_launch_kernel(other, &res)) TH_LOG("%s", res.error.what);
	EXPECT_EQ(1, res.stats.kernels);
	close(fd);
	close(other);
}

TEST_HARNESS_MAIN
