// SPDX-License-Identifier: GPL-2.0
/*
 * kselftests of 'mcmgpu workload' (docs/workloads.md) as a user runs it:
 * an application into a program, its statistics, the two encodings'
 * round trip, an Accel-Sim export imported back, the same program twice,
 * --help everywhere, and errors with their exit status (2 usage, 1
 * failure) and what they name: none needs the device, so they also run
 * on the host with build/tools on PATH. And a real program (bfs on an
 * R-MAT graph) adapted to each mechanism's trace and replayed on the
 * device, equal to the --host replay (needs the device: skipped on the
 * host).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "../lib/mcmgpu_test.h"

#define DIR "/tmp/mt-workload"

static char out[65536];

static int sh(const char *cmd)
{
	return mt_run_cmd(cmd, out, sizeof(out));
}

FIXTURE(wl) {
	int unused;
};

FIXTURE_SETUP(wl)
{
	ASSERT_EQ(0, sh("rm -rf " DIR " && mkdir -p " DIR));
}

FIXTURE_TEARDOWN(wl)
{
	sh("rm -rf " DIR);
}

/*
 * vadd at 4096 floats: 16 blocks of 256 threads, 128 warps, each warp 2
 * loads and 1 store of 4 B a lane, all lanes active: 256 global loads,
 * 128 stores, 12 288 lanes; 3 objects of 16 KiB, 32 KiB in, 16 KiB out;
 * a, b and c each 128 lines of 128 B and 4 pages.
 */
TEST_F(wl, gen_stats_vadd)
{
	ASSERT_EQ(0, sh("mcmgpu workload gen vadd -o " DIR "/v.prog 2>&1"))
		TH_LOG("%s", out);
	EXPECT_STREQ("", out);	/* gen prints nothing but errors */
	ASSERT_EQ(0, sh("mcmgpu workload stats --json " DIR "/v.prog"));
	EXPECT_EQ(1, mt_json_number(out, "kernel_launches")) TH_LOG("%s", out);
	EXPECT_EQ(16, mt_json_number(out, "thread_blocks"));
	EXPECT_EQ(128, mt_json_number(out, "warps"));
	EXPECT_EQ(256, mt_json_number(out, "global_loads"));
	EXPECT_EQ(128, mt_json_number(out, "global_stores"));
	EXPECT_EQ(0, mt_json_number(out, "global_atomics"));
	EXPECT_EQ(12288, mt_json_number(out, "global_lanes"));
	EXPECT_EQ(32768, mt_json_number(out, "global_bytes_loaded"));
	EXPECT_EQ(16384, mt_json_number(out, "global_bytes_stored"));
	EXPECT_EQ(384, mt_json_number(out, "global_lines"));
	EXPECT_EQ(12, mt_json_number(out, "global_pages"));
	EXPECT_EQ(32768, mt_json_number(out, "h2d_bytes"));
	EXPECT_EQ(16384, mt_json_number(out, "d2h_bytes"));
	EXPECT_NE(NULL, strstr(out, "\"kernels\": ["));
	EXPECT_NE(NULL, strstr(out, "\"grid\": [16, 1, 1], \"block\": [256, 1, 1]"));
	EXPECT_NE(NULL, strstr(out, "\"size\": 16384, \"name\": \"c\""));
}

/* Binary to text and back gives the same bytes; stats agree on both. */
TEST_F(wl, convert_round_trip)
{
	static char a[65536];

	ASSERT_EQ(0, sh("cd " DIR " && mcmgpu workload gen bfs --size 8 --seed 3 -o b.prog"
			" && mcmgpu workload convert b.prog -o b.txt"
			" && mcmgpu workload convert b.txt -o b2.prog"
			" && cmp b.prog b2.prog && head -1 b.txt 2>&1"))
		TH_LOG("%s", out);
	EXPECT_STREQ("mcmgpu-program 1\n", out);
	ASSERT_EQ(0, sh("mcmgpu workload stats --json " DIR "/b.prog"));
	memcpy(a, out, sizeof(a));
	ASSERT_EQ(0, sh("mcmgpu workload stats --json " DIR "/b.txt"));
	EXPECT_STREQ(a, out);
	/* The same application, size and seed: the same bytes. */
	EXPECT_EQ(0, sh("cd " DIR " && mcmgpu workload gen bfs --size 8 --seed 3"
			" -o - | cmp - b.prog"));
	EXPECT_NE(0, sh("cd " DIR " && mcmgpu workload gen bfs --size 8 --seed 4"
			" -o - | cmp -s - b.prog"));
}

/* An Accel-Sim export imports back to the same bytes; stats reads DIR. */
TEST_F(wl, export_import_round_trip)
{
	static char a[65536];

	ASSERT_EQ(0, sh("cd " DIR " && mcmgpu workload gen transpose -o t.prog"
			" && mcmgpu workload export t.prog -o t.trace"
			" && mcmgpu workload import t.trace -o t2.prog"
			" && cmp t.prog t2.prog 2>&1")) TH_LOG("%s", out);
	ASSERT_EQ(0, sh("mcmgpu workload stats --json " DIR "/t.prog"));
	memcpy(a, out, sizeof(a));
	EXPECT_LT(0, mt_json_number(a, "shared_accesses")) TH_LOG("%s", a);
	ASSERT_EQ(0, sh("mcmgpu workload stats --json " DIR "/t.trace"));
	EXPECT_STREQ(a, out);
}

TEST(every_workload_command_has_help)
{
	static const char *const cmds[] = {
		"import", "export", "gen", "list", "stats", "convert", "to",
	};
	char cmd[128];
	const char *bfs;
	unsigned int i;

	EXPECT_EQ(0, mt_run_cmd("mcmgpu workload --help", NULL, 0));
	for (i = 0; i < ARRAY_SIZE(cmds); i++) {
		snprintf(cmd, sizeof(cmd), "mcmgpu workload %s --help", cmds[i]);
		EXPECT_EQ(0, mt_run_cmd(cmd, NULL, 0)) TH_LOG("%s", cmd);
	}
	EXPECT_EQ(0, sh("mcmgpu workload list --json"));
	EXPECT_NE(NULL, strstr(out, "{\"name\": \"vadd\""));
	/* Each application names its kernels and the papers' inputs. */
	bfs = strstr(out, "{\"name\": \"bfs\"");
	ASSERT_NE(NULL, bfs) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(bfs, "\"kernels\": \"Kernel, Kernel2\""));
	EXPECT_NE(NULL, strstr(bfs, "\"paper_sizes\": \"CPElide Table II: "
			       "graph128k.txt"));
}

TEST_F(wl, errors_say_what_and_exit_status)
{
	EXPECT_EQ(2, sh("mcmgpu workload gen nosuch -o " DIR "/x 2>&1"));
	EXPECT_NE(NULL, strstr(out, "no application 'nosuch'")) TH_LOG("%s", out);
	EXPECT_EQ(2, sh("mcmgpu workload gen vadd 2>&1"));
	EXPECT_NE(NULL, strstr(out, "-o PROG is required"));
	EXPECT_EQ(2, sh("mcmgpu workload gen gups --size 3 -o " DIR "/g 2>&1"));
	EXPECT_EQ(0, sh("test -e " DIR "/g || echo gone"));
	EXPECT_STREQ("gone\n", out);	/* no half program left */
	EXPECT_EQ(2, sh("mcmgpu workload stats 2>/dev/null"));
	EXPECT_EQ(2, sh("mcmgpu workload convert x --text --binary -o y 2>&1"));
	/* A bad line: the file, the line and the field. */
	ASSERT_EQ(0, sh("cd " DIR " && mcmgpu workload gen vadd -o v.txt &&"
			" sed '10s/ int / intx /' v.txt > bad.txt"));
	EXPECT_EQ(1, sh("mcmgpu workload stats " DIR "/bad.txt 2>&1"));
	EXPECT_NE(NULL, strstr(out, DIR "/bad.txt:10: class:")) TH_LOG("%s", out);
	EXPECT_EQ(1, sh("mcmgpu workload convert " DIR "/bad.txt -o " DIR
			"/bad.prog 2>&1"));
	EXPECT_EQ(0, sh("test -e " DIR "/bad.prog || echo gone"));
	EXPECT_STREQ("gone\n", out);
	EXPECT_EQ(1, sh("mcmgpu workload import " DIR "/nosuch -o " DIR
			"/i.prog 2>&1"));
}

/* The device's replay and the host's print the same JSON. */
static void same_replay(struct __test_metadata *_metadata, const char *mech,
			const char *dev_opts, const char *host_opts)
{
	static char dev[1 << 16], host[1 << 16];
	char cmd[512];

	snprintf(cmd, sizeof(cmd), "mcmgpu %s replay --json %s " DIR "/bfs.%s",
		 mech, dev_opts, mech);
	ASSERT_EQ(0, mt_run_cmd(cmd, dev, sizeof(dev))) TH_LOG("%s: %s", cmd, dev);
	snprintf(cmd, sizeof(cmd), "mcmgpu %s replay --json --host %s %s "
		 DIR "/bfs.%s", mech, host_opts, dev_opts, mech);
	ASSERT_EQ(0, mt_run_cmd(cmd, host, sizeof(host))) TH_LOG("%s: %s", cmd, host);
	EXPECT_STREQ(host, dev) TH_LOG("%s", mech);
}

/*
 * A real program through every mechanism: bfs (Rodinia's two kernels, a
 * host loop, R-MAT scale 10) adapted by 'workload to' and replayed on the
 * device equals the host replay, FinePack's bytes verified.
 */
TEST_F_TIMEOUT(wl, adapted_program_replays_on_device_as_on_host, 600)
{
	static const char *const mechs[] = {
		"barre", "finepack", "cpelide", "cxl", "adsm",
	};
	static const char *const protocols[] = {
		"batch", "lazy", "rolling", "explicit",
	};
	char cmd[512], host_opts[128];
	unsigned int i, n = mt_expect_chiplets();

	if (access("/dev/mcmgpu0", F_OK))
		SKIP(return, "no mcmgpu device");
	ASSERT_EQ(0, sh("mcmgpu workload gen bfs --seed 3 -o " DIR "/bfs.prog"))
		TH_LOG("%s", out);
	for (i = 0; i < sizeof(mechs) / sizeof(mechs[0]); i++) {
		snprintf(cmd, sizeof(cmd), "mcmgpu workload to %s " DIR
			 "/bfs.prog --chiplets %u -o " DIR "/bfs.%s",
			 mechs[i], n, mechs[i]);
		ASSERT_EQ(0, sh(cmd)) TH_LOG("%s: %s", cmd, out);
	}
	snprintf(host_opts, sizeof(host_opts),
		 "--chiplets %u --vram-per-chiplet %llu", n,
		 (unsigned long long)mt_expect_vram_per_chiplet());
	same_replay(_metadata, "barre", "", host_opts);
	snprintf(host_opts, sizeof(host_opts), "--chiplets %u", n);
	same_replay(_metadata, "finepack", "--verify", host_opts);
	same_replay(_metadata, "cpelide", "", host_opts);
	for (i = 0; i < sizeof(protocols) / sizeof(protocols[0]); i++) {
		snprintf(cmd, sizeof(cmd), "--protocol %s", protocols[i]);
		same_replay(_metadata, "adsm", cmd, host_opts);
	}
	/* The device's default decoders: every port, DRAM endpoints. */
	ASSERT_EQ(0, sh("mcmgpu cxl setup")) TH_LOG("%s", out);
	same_replay(_metadata, "cxl", "", "--media dram");
}

/*
 * A program through the GPU timing core on the device, with translation
 * off, a conventional IOMMU, Barre, F-Barre (in-package translation,
 * 2-page groups), FinePack (and P2P, GPS, §VI-B's alternative), CPElide
 * (and HMG), ADSM, CXL memory (and UVM, GDS), Barre's baselines Least
 * and Valkyrie, and all five at once: the same JSON as --host; and the program as an Accel-Sim
 * trace directory. The binary file goes to the device as it is, the text
 * form re-encoded: both give --host's JSON.
 */
TEST_F_TIMEOUT(wl, program_runs_on_device_as_on_host, 600)
{
	static const char *const modes[] = {
		"--set translate=0", "--barre off", "--barre on --shadow",
		"--barre fbarre --merge 2",
		"--set translate=0 --finepack finepack",
		"--set translate=0 --finepack p2p",
		"--set translate=0 --finepack gps",
		"--set translate=0 --finepack alt",
		"--set translate=0 --cxl uvm", "--cxl gds",
		"--barre least --shadow", "--barre valkyrie --shadow",
		"--barre on --cpelide cpelide", "--set translate=0 --cpelide hmg",
		"--set translate=0 --adsm lazy", "--set translate=0 --cxl znand:ds=on",
		"--barre on --adsm rolling --cxl dram:sr=dyn",
		/* All five mechanisms in one run. */
		"--barre on --finepack finepack --cpelide cpelide "
		"--adsm rolling --cxl znand:ds=on",
	};
	/* The text form: re-encoded by the tool, objects listed the same. */
	static const char *const text_modes[] = {
		"--set translate=0", "--barre on",
	};
	static char dev[1 << 16], host[1 << 16];
	unsigned int i, n = mt_expect_chiplets();
	char cmd[512];

	if (access("/dev/mcmgpu0", F_OK))
		SKIP(return, "no mcmgpu device");
	ASSERT_EQ(0, sh("mcmgpu workload gen bfs --seed 3 -o " DIR "/bfs.prog"))
		TH_LOG("%s", out);
	ASSERT_EQ(0, sh("mcmgpu workload convert " DIR "/bfs.prog -o " DIR
			"/bfs.txt --text")) TH_LOG("%s", out);
	for (i = 0; i < ARRAY_SIZE(modes) + ARRAY_SIZE(text_modes); i++) {
		bool text = i >= ARRAY_SIZE(modes);
		const char *mode = text ? text_modes[i - ARRAY_SIZE(modes)] :
				   modes[i];
		const char *file = text ? DIR "/bfs.txt" : DIR "/bfs.prog";

		/* Group expansion is for at most 4 chiplets (§VI). */
		if (n > 4 && strstr(mode, "--merge"))
			continue;
		snprintf(cmd, sizeof(cmd), "mcmgpu run --json --chiplets %u "
			 "--set vram_mib=%llu %s %s", n,
			 (unsigned long long)(mt_expect_vram_per_chiplet() >> 20),
			 mode, file);
		ASSERT_EQ(0, mt_run_cmd(cmd, dev, sizeof(dev))) TH_LOG("%s: %s", cmd, dev);
		snprintf(cmd, sizeof(cmd), "mcmgpu run --json --host --chiplets %u "
			 "--set vram_mib=%llu %s %s", n,
			 (unsigned long long)(mt_expect_vram_per_chiplet() >> 20),
			 mode, file);
		ASSERT_EQ(0, mt_run_cmd(cmd, host, sizeof(host))) TH_LOG("%s: %s", cmd, host);
		EXPECT_STREQ(host, dev) TH_LOG("%s %s", mode, file);
		EXPECT_NE(NULL, strstr(dev, "\"warp_insts\"")) TH_LOG("%s", dev);
	}
	/* An Accel-Sim trace directory: imported, then the same run. */
	ASSERT_EQ(0, sh("mcmgpu workload export " DIR "/bfs.prog -o " DIR
			"/bfs")) TH_LOG("%s", out);
	snprintf(cmd, sizeof(cmd), "mcmgpu run --json --chiplets %u "
		 "--set vram_mib=%llu --barre on " DIR "/bfs", n,
		 (unsigned long long)(mt_expect_vram_per_chiplet() >> 20));
	ASSERT_EQ(0, mt_run_cmd(cmd, dev, sizeof(dev))) TH_LOG("%s: %s", cmd, dev);
	snprintf(cmd, sizeof(cmd), "mcmgpu run --json --host --chiplets %u "
		 "--set vram_mib=%llu --barre on " DIR "/bfs", n,
		 (unsigned long long)(mt_expect_vram_per_chiplet() >> 20));
	ASSERT_EQ(0, mt_run_cmd(cmd, host, sizeof(host))) TH_LOG("%s: %s", cmd, host);
	EXPECT_STREQ(host, dev);
}

/*
 * Two programs as two streams (mcmgpu workload streams), run concurrently
 * on two chiplet groups (--streams 2) under CPElide, HMG and Barre: the
 * device's JSON equals --host's, and differs from the streams run one
 * after another (so the option reached the device's core).
 */
TEST_F_TIMEOUT(wl, streams_run_on_device_as_on_host, 600)
{
	static const char *const modes[] = {
		"--config cpelide --cpelide cpelide",
		"--config cpelide --cpelide hmg",
		"--barre on",
	};
	static char dev[1 << 16], host[1 << 16], serial[1 << 16];
	unsigned int i, n = mt_expect_chiplets();
	unsigned long long vram = mt_expect_vram_per_chiplet() >> 20;
	char cmd[512];

	if (access("/dev/mcmgpu0", F_OK))
		SKIP(return, "no mcmgpu device");
	ASSERT_EQ(0, sh("mcmgpu workload gen bfs --size 10 -o " DIR "/s1.prog &&"
			" mcmgpu workload gen transpose --size 64 -o " DIR
			"/s2.prog && mcmgpu workload streams " DIR "/s1.prog "
			DIR "/s2.prog -o " DIR "/two.prog")) TH_LOG("%s", out);
	for (i = 0; i < ARRAY_SIZE(modes); i++) {
		snprintf(cmd, sizeof(cmd), "mcmgpu run --json --chiplets %u "
			 "--set vram_mib=%llu %s --streams 2 " DIR "/two.prog",
			 n, vram, modes[i]);
		ASSERT_EQ(0, mt_run_cmd(cmd, dev, sizeof(dev))) TH_LOG("%s: %s", cmd, dev);
		snprintf(cmd, sizeof(cmd), "mcmgpu run --json --host --chiplets %u "
			 "--set vram_mib=%llu %s --streams 2 " DIR "/two.prog",
			 n, vram, modes[i]);
		ASSERT_EQ(0, mt_run_cmd(cmd, host, sizeof(host))) TH_LOG("%s: %s", cmd, host);
		EXPECT_STREQ(host, dev) TH_LOG("%s", modes[i]);
		snprintf(cmd, sizeof(cmd), "mcmgpu run --json --chiplets %u "
			 "--set vram_mib=%llu %s " DIR "/two.prog", n, vram,
			 modes[i]);
		ASSERT_EQ(0, mt_run_cmd(cmd, serial, sizeof(serial)))
			TH_LOG("%s: %s", cmd, serial);
		EXPECT_STRNE(serial, dev) TH_LOG("%s", modes[i]);
	}
	/* Groups that do not divide the chiplets: refused by name. */
	snprintf(cmd, sizeof(cmd), "mcmgpu run --json --chiplets %u "
		 "--set vram_mib=%llu --set translate=0 --streams 3 " DIR
		 "/two.prog 2>&1", n, vram);
	EXPECT_NE(0, mt_run_cmd(cmd, dev, sizeof(dev)));
	EXPECT_NE(NULL, strstr(dev, "streams")) TH_LOG("%s", dev);
}

TEST_HARNESS_MAIN
