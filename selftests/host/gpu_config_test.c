// SPDX-License-Identifier: GPL-2.0
/*
 * The GPU timing core's configuration (qemu-device/model/gpu_config.c)
 * and its command line (tools/mcmgpu/lib/gpu_cli.c): every preset valid
 * and sourced field by field, overrides by name refused with the reason
 * (unknown field, bad number, out of range), suffixes and enum names,
 * and gpu_config_check() refusing inconsistent geometry.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "kselftest_harness.h"
#include "gpu_cli.h"
#include "gpu_config.h"

static struct gpu_config barre(void)
{
	return gpu_preset_find("barre")->cfg;
}

static int set(struct gpu_config *c, const char *a, const char **why)
{
	*why = NULL;
	return gpu_config_set(c, a, why);
}

/*
 * A source names the paper's table or section, or says the value is ours
 * (or unused, or a run option) and why: more than the bare value.
 */
static bool is_sourced(const char *s)
{
	if (strstr(s, "Table") || strstr(s, "§"))
		return true;
	/* The paper's simulator's own configuration, its file named. */
	if (!strncmp(s, "gem5 ", 5) && strchr(s, '/') && strchr(s, '('))
		return true;
	if (strncmp(s, "ours: ", 6) && strncmp(s, "unused (", 8) &&
	    strncmp(s, "run option (", 12))
		return false;
	return strchr(s, '(') || strchr(s, ',') || strchr(s, ';');
}

TEST(table_rows_name_their_own_fields)
{
	uint32_t i, j;

	ASSERT_EQ(84, gpu_config_nfields);
	for (i = 0; i < gpu_config_nfields; i++) {
		const struct gpu_config_field *f = &gpu_config_fields[i];

		ASSERT_NE(NULL, f->name) TH_LOG("row %u", i);
		ASSERT_EQ(f, gpu_config_field_find(f->name));
		EXPECT_LE(f->min, f->max) TH_LOG("%s", f->name);
		EXPECT_EQ(0, f->offset % 4);
		EXPECT_LT(f->offset, sizeof(struct gpu_config));
		for (j = 0; j < i; j++)
			EXPECT_NE(f->offset, gpu_config_fields[j].offset);
	}
	/* Every u32 after the name is a row: none forgotten. */
	EXPECT_EQ(sizeof(struct gpu_config),
		  GPU_CONFIG_NAME_MAX + 4 * gpu_config_nfields);
}

TEST(every_preset_is_valid_and_sourced)
{
	const char *field, *why;
	uint32_t i, k;

	ASSERT_EQ(5, gpu_npresets);
	ASSERT_NE(NULL, gpu_preset_find(GPU_CONFIG_DEFAULT));
	for (i = 0; i < gpu_npresets; i++) {
		const struct gpu_preset *p = &gpu_presets[i];

		EXPECT_EQ(p, gpu_preset_find(p->name));
		EXPECT_STREQ(p->name, p->cfg.name);
		ASSERT_NE(NULL, p->title);
		ASSERT_NE(NULL, p->note);
		EXPECT_EQ(0, gpu_config_check(&p->cfg, GPU_MAX_CHIPLETS,
					      &field, &why))
			TH_LOG("%s: %s: %s", p->name, field, why);
		for (k = 0; k < gpu_config_nfields; k++) {
			const char *s = gpu_preset_source(p,
							  &gpu_config_fields[k]);

			EXPECT_NE(NULL, s) TH_LOG("%s: %s has no source",
						  p->name,
						  gpu_config_fields[k].name);
			if (s)
				EXPECT_TRUE(is_sourced(s))
					TH_LOG("%s: %s: '%s'", p->name,
					       gpu_config_fields[k].name, s);
		}
	}
	EXPECT_EQ(NULL, gpu_preset_find("nope"));
}

TEST(presets_follow_the_papers)
{
	const struct gpu_config *c;

	c = &gpu_preset_find("finepack")->cfg;
	EXPECT_EQ(4, c->chiplets);		/* §V: four GPUs */
	EXPECT_EQ(80, c->sms);			/* Table III */
	EXPECT_EQ(2048, c->warps_per_sm * 32);	/* Table III: threads */
	EXPECT_EQ(6u << 20, c->l2_size);	/* Table III */
	c = &gpu_preset_find("cpelide")->cfg;
	EXPECT_EQ(4, c->chiplets);
	EXPECT_EQ(60, c->sms);
	EXPECT_EQ(1801, c->clock_mhz);
	EXPECT_EQ(140, c->l1_lat);
	EXPECT_EQ(269, c->l2_lat);
	EXPECT_EQ(390, c->l2_lat + c->link_lat);	/* remote L2 */
	EXPECT_EQ(GPU_PLACE_FT, c->placement);		/* Table I: first touch */
	EXPECT_EQ(8u << 20, c->l2_size);
	EXPECT_EQ(2560, c->l1_mshrs);		/* gem5 GPU_VIPER's TCP TBEs */
	EXPECT_EQ(64, c->dram_wq);		/* gem5 MemCtrl's default */
	EXPECT_EQ(0, gpu_preset_find("barre")->cfg.dram_wq);
	EXPECT_EQ(1, gpu_preset_find("cxl")->cfg.chiplets);
	EXPECT_EQ(8, gpu_preset_find("cxl")->cfg.sms);
	EXPECT_EQ(1, gpu_preset_find("adsm")->cfg.chiplets);
	/* A source that says "ours" where the paper is silent. */
	EXPECT_NE(NULL, strstr(gpu_preset_source(gpu_preset_find("cxl"),
			gpu_config_field_find("dram_lat")), "not printed"));
}

TEST(set_accepts_numbers_suffixes_and_names)
{
	struct gpu_config c = barre();
	const char *why;

	ASSERT_EQ(0, set(&c, "l2_tlb_entries=1024", &why));
	EXPECT_EQ(1024, c.l2_tlb_entries);
	ASSERT_EQ(0, set(&c, "l2_size=4M", &why));
	EXPECT_EQ(4u << 20, c.l2_size);
	ASSERT_EQ(0, set(&c, "l1_size=32k", &why));
	EXPECT_EQ(32768, c.l1_size);
	ASSERT_EQ(0, set(&c, "l1_size=32K", &why));
	EXPECT_EQ(32768, c.l1_size);
	ASSERT_EQ(0, set(&c, "l2_size=1G", &why));
	EXPECT_EQ(1u << 30, c.l2_size);
	ASSERT_EQ(0, set(&c, "tb_sched=rr", &why));
	EXPECT_EQ(GPU_TB_RR, c.tb_sched);
	ASSERT_EQ(0, set(&c, "tb_sched=chunk", &why));
	EXPECT_EQ(GPU_TB_CHUNK, c.tb_sched);
	ASSERT_EQ(0, set(&c, "warp_sched=lrr", &why));
	EXPECT_EQ(GPU_WS_LRR, c.warp_sched);
	ASSERT_EQ(0, set(&c, "warp_sched=gto", &why));
	EXPECT_EQ(GPU_WS_GTO, c.warp_sched);
	ASSERT_EQ(0, set(&c, "placement=kwc", &why));
	EXPECT_EQ(GPU_PLACE_KWC, c.placement);
	ASSERT_EQ(0, set(&c, "placement=rr", &why));
	EXPECT_EQ(GPU_PLACE_RR, c.placement);
	ASSERT_EQ(0, set(&c, "placement=chunk", &why));
	EXPECT_EQ(GPU_PLACE_CHUNK, c.placement);
	ASSERT_EQ(0, set(&c, "translate=off", &why));
	EXPECT_EQ(0, c.translate);
	ASSERT_EQ(0, set(&c, "translate=on", &why));
	EXPECT_EQ(1, c.translate);
	ASSERT_EQ(0, set(&c, "translate=0", &why));	/* a number too */
	EXPECT_EQ(0, c.translate);
	ASSERT_EQ(0, set(&c, "chiplets=16", &why));
	EXPECT_EQ(16, c.chiplets);
}

TEST(set_refuses_with_the_reason_and_leaves_the_config)
{
	static const struct {
		const char *assignment, *why;
	} bad[] = {
		{ "x", "not FIELD=VALUE" },
		{ "=4", "not FIELD=VALUE" },
		{ "nosuch=4", "unknown field" },
		{ "chiplet=4", "unknown field" },	/* a prefix */
		{ "chiplets4=4", "unknown field" },
		{ "l2_tlb_ways=0", "out of range" },
		{ "chiplets=17", "out of range" },
		{ "chiplets=0", "out of range" },
		{ "l2_size=2G", "out of range" },	/* above 1 GiB */
		{ "l2_size=4294967296", "out of range" },
		{ "l2_size=99999999999999999999999", "out of range" },
		{ "l2_size=4096G", "out of range" },
		{ "lat_int=", "bad number" },
		{ "lat_int=x", "bad number" },
		{ "lat_int=-1", "bad number" },
		{ "lat_int=4 ", "bad number" },
		{ "lat_int=0x10", "bad number" },
		{ "l2_size=4MB", "bad number" },
		{ "l2_size=4T", "bad number" },
		{ "warp_sched=foo", "bad value" },
		{ "warp_sched=", "bad value" },
		{ "warp_sched=gt", "bad value" },
		{ "warp_sched=2", "out of range" },
		{ "translate=yes", "bad value" },
	};
	struct gpu_config c = barre(), orig = barre();
	const char *why;
	uint32_t i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		EXPECT_EQ(-EINVAL, set(&c, bad[i].assignment, &why))
			TH_LOG("'%s' accepted", bad[i].assignment);
		ASSERT_NE(NULL, why);
		EXPECT_EQ(0, strncmp(why, bad[i].why, strlen(bad[i].why)))
			TH_LOG("'%s': '%s', not '%s'", bad[i].assignment, why,
			       bad[i].why);
		EXPECT_EQ(0, memcmp(&c, &orig, sizeof(c)));
	}
}

TEST(value_names_round_trip)
{
	const struct gpu_config_field *f = gpu_config_field_find("placement");
	const char *name;
	uint32_t len;

	ASSERT_EQ(0, gpu_config_value_name(f, GPU_PLACE_KWC, &name, &len));
	EXPECT_EQ(3, len);
	EXPECT_EQ(0, strncmp(name, "kwc", 3));
	ASSERT_EQ(0, gpu_config_value_name(f, GPU_PLACE_CHUNK, &name, &len));
	EXPECT_EQ(0, strncmp(name, "chunk", len));
	EXPECT_EQ(-1, gpu_config_value_name(f, 7, &name, &len));
	EXPECT_EQ(-1, gpu_config_value_name(gpu_config_field_find("sms"), 4,
					    &name, &len));
}

TEST(check_refuses_inconsistent_geometry)
{
	static const struct {
		const char *set, *field;
	} bad[] = {
		{ "l1_tlb_ways=3", "l1_tlb_ways" },	/* 64 / 3 */
		{ "l1_tlb_ways=48", "l1_tlb_ways" },	/* not a power of two */
		{ "l2_tlb_ways=24", "l2_tlb_ways" },	/* 512 / 24 */
		{ "l2_tlb_entries=768", "l2_tlb_ways" },	/* 48 sets */
		{ "l1_ways=3", "l1_ways" },
		{ "l1_size=24k", "l1_ways" },		/* 48 sets */
		{ "l2_ways=12", "l2_ways" },
		{ "l2_size=3M", "l2_ways" },
		{ "regs_per_sm=1024", "regs_per_sm" },	/* < 40 warps x 32 */
	};
	const char *field, *why;
	uint32_t i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		struct gpu_config c = barre();

		ASSERT_EQ(0, set(&c, bad[i].set, &why)) TH_LOG("%s", why);
		field = NULL;
		EXPECT_EQ(-EINVAL, gpu_config_check(&c, GPU_MAX_CHIPLETS,
						    &field, &why))
			TH_LOG("%s passed", bad[i].set);
		if (field)
			EXPECT_STREQ(bad[i].field, field);
	}
	/* The device's limit, tighter than the host's. */
	{
		struct gpu_config c = barre();

		ASSERT_EQ(0, set(&c, "chiplets=16", &why));
		EXPECT_EQ(0, gpu_config_check(&c, GPU_MAX_CHIPLETS, &field,
					      &why));
		EXPECT_EQ(-EINVAL, gpu_config_check(&c, 8, &field, &why));
		EXPECT_STREQ("chiplets", field);
	}
}

TEST(from_args_builds_checks_and_names_what_is_wrong)
{
	static char *const good[] = { "l2_tlb_entries=1024",
		"l2_tlb_ways=32", "translate=off", "l2_size=4M" };
	static char *const unknown[] = { "l2_tlb_entries=1024", "bogus=1" };
	static char *const range[] = { "l2_tlb_ways=0" };
	static char *const number[] = { "lat_int=fast" };
	static char *const name[] = { "warp_sched=foo" };
	static char *const inconsistent[] = { "l1_ways=3" };
	struct gpu_config c;
	char err[256];

	ASSERT_EQ(0, gpu_config_from_args(&c, NULL, NULL, 0, err,
					  sizeof(err)));
	EXPECT_EQ(0, memcmp(&c, &gpu_preset_find("barre")->cfg, sizeof(c)));
	ASSERT_EQ(0, gpu_config_from_args(&c, "cpelide", good, 4, err,
					  sizeof(err))) TH_LOG("%s", err);
	EXPECT_STREQ("cpelide", c.name);
	EXPECT_EQ(1024, c.l2_tlb_entries);
	EXPECT_EQ(32, c.l2_tlb_ways);
	EXPECT_EQ(0, c.translate);
	EXPECT_EQ(4u << 20, c.l2_size);
	EXPECT_EQ(60, c.sms);

	EXPECT_EQ(-ENOENT, gpu_config_from_args(&c, "nope", NULL, 0, err,
						sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "'nope'"));
	EXPECT_NE(NULL, strstr(err, "barre, finepack, cpelide, cxl, adsm"));
	EXPECT_EQ(-EINVAL, gpu_config_from_args(&c, NULL, unknown, 2, err,
						sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "bogus=1: unknown field")) TH_LOG("%s", err);
	EXPECT_EQ(-EINVAL, gpu_config_from_args(&c, NULL, range, 1, err,
						sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "l2_tlb_ways out of range 1..")) TH_LOG("%s", err);
	EXPECT_EQ(-EINVAL, gpu_config_from_args(&c, NULL, number, 1, err,
						sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "lat_int: bad number")) TH_LOG("%s", err);
	EXPECT_EQ(-EINVAL, gpu_config_from_args(&c, NULL, name, 1, err,
						sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "warp_sched: bad value")) TH_LOG("%s", err);
	EXPECT_NE(NULL, strstr(err, "lrr=0 gto=1")) TH_LOG("%s", err);
	EXPECT_EQ(-EINVAL, gpu_config_from_args(&c, "adsm", inconsistent, 1,
						err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "l1_ways:")) TH_LOG("%s", err);
}

TEST_HARNESS_MAIN
