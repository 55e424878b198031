// SPDX-License-Identifier: GPL-2.0
/*
 * kselftests of the mcmgpu command inside the guest: discovery with and
 * without the driver, --help everywhere, errors for bad arguments, and a
 * file round trip through 'mcmgpu dma'.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "../lib/mcmgpu_test.h"

static int count(const char *hay, const char *needle)
{
	int n = 0;

	while ((hay = strstr(hay, needle))) {
		n++;
		hay += strlen(needle);
	}
	return n;
}

TEST(info_json_reports_the_device_properties)
{
	static char out[16384];
	char want[64];

	ASSERT_EQ(0, mt_run_cmd("mcmgpu info --json", out, sizeof(out)));
	snprintf(want, sizeof(want), "\"chiplets\": %u,", mt_expect_chiplets());
	/* Once from the BAR0 registers, once from GET_INFO. */
	EXPECT_EQ(2, count(out, want)) TH_LOG("%s", out);
	EXPECT_EQ(1, count(out, "\"driver\": \"mcmgpu\""));
	EXPECT_EQ(1, count(out, "\"char_device\": \"/dev/mcmgpu0\""));
}

TEST(info_works_without_the_driver)
{
	static char out[16384];

	ASSERT_EQ(0, mt_unload_modules());
	EXPECT_EQ(0, mt_run_cmd("mcmgpu info --json", out, sizeof(out)));
	EXPECT_EQ(1, count(out, "\"driver\": null")) TH_LOG("%s", out);
	EXPECT_EQ(0, count(out, "get_info"));
	ASSERT_EQ(0, mt_load_modules());
	EXPECT_EQ(0, mt_run_cmd("mcmgpu info", out, sizeof(out)));
	EXPECT_EQ(1, count(out, "GET_INFO:"));
}

TEST(every_subcommand_has_help)
{
	EXPECT_EQ(0, mt_run_cmd("mcmgpu --help", NULL, 0));
	EXPECT_EQ(0, mt_run_cmd("mcmgpu info --help", NULL, 0));
	EXPECT_EQ(0, mt_run_cmd("mcmgpu dma --help", NULL, 0));
	EXPECT_EQ(0, mt_run_cmd("mcmgpu dma roundtrip --help", NULL, 0));
}

TEST(bad_arguments_are_refused)
{
	static char out[4096];

	EXPECT_EQ(2, mt_run_cmd("mcmgpu frobnicate 2>&1", out, sizeof(out)));
	EXPECT_NE(NULL, strstr(out, "unknown command 'frobnicate'"));
	EXPECT_EQ(2, mt_run_cmd("mcmgpu info --bogus 2>/dev/null", NULL, 0));
	EXPECT_EQ(2, mt_run_cmd("mcmgpu dma read --gpu-addr 12x /tmp/x 2>&1", out, sizeof(out)));
	EXPECT_NE(NULL, strstr(out, "--gpu-addr")) TH_LOG("%s", out);
	EXPECT_EQ(2, mt_run_cmd("mcmgpu dma write /tmp/x 2>&1", out, sizeof(out)));
	EXPECT_NE(NULL, strstr(out, "--gpu-addr is required"));
	/* Past the end of GPU memory: the ioctl's errno reaches the user. */
	EXPECT_EQ(1, mt_run_cmd("head -c 100 /dev/urandom >/tmp/t.bin && "
			 "mcmgpu dma write --gpu-addr 0x7fffffffffff /tmp/t.bin 2>&1",
			 out, sizeof(out)));
	EXPECT_NE(NULL, strstr(out, "Numerical result out of range")) TH_LOG("%s", out);
	/* A device that is not there is named in the error. */
	EXPECT_EQ(1, mt_run_cmd("mcmgpu dma roundtrip --device 0000:7f:1f.7 2>&1",
			        out, sizeof(out)));
	EXPECT_NE(NULL, strstr(out, "no mcmgpu char device at PCI address "
			       "0000:7f:1f.7")) TH_LOG("%s", out);
	EXPECT_EQ(1, mt_run_cmd("mcmgpu dma roundtrip --device 1:2 2>&1", out,
			        sizeof(out)));
	EXPECT_NE(NULL, strstr(out, "device '1:2'")) TH_LOG("%s", out);
}

TEST(dma_file_roundtrip)
{
	static char out[4096];

	ASSERT_EQ(0, mt_run_cmd("head -c 300001 /dev/urandom >/tmp/in.bin && "
			 "mcmgpu dma write --gpu-addr 0x4000123 /tmp/in.bin && "
			 "mcmgpu dma read --gpu-addr 0x4000123 --length 300001 /tmp/out.bin && "
			 "cmp /tmp/in.bin /tmp/out.bin", out, sizeof(out)));
	EXPECT_EQ(0, mt_run_cmd("mcmgpu dma roundtrip --size 64K --seed 7 --json", out,
			 sizeof(out)));
	EXPECT_NE(NULL, strstr(out, "\"mismatched_bytes\": 0,")) TH_LOG("%s", out);
}

TEST_HARNESS_MAIN
