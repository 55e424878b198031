// SPDX-License-Identifier: GPL-2.0
/*
 * Host tests of CXL-GPU's baselines in the GPU timing core (gpu_uvm.c
 * through gpu_core.c): UVM and GDS migrate the objects' pages to GPU
 * memory on faults, in batches that each cost the host runtime's time
 * and their transfers; a second kernel on resident data takes no fault;
 * with GPU memory below the footprint pages are evicted and fault again;
 * the counters' identities; with uvm off nothing changes; every run is
 * the same whatever the epochs.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"
#include "gpu_core.h"
#include "../lib/core_run.h"

#define OBJ_A		0x10000000ULL
#define OBJ_B		0x20000000ULL
#define BYTES		(256u << 10)	/* 64 pages of 4 KiB each */
#define PAGES		(BYTES / 4096)
#define WARPS		16
#define RUNTIME_C	500000		/* 500 us at the preset's 1 GHz */

static struct gpu_config uvm_cfg(uint32_t mode, uint32_t gpu_kib)
{
	struct gpu_config c = gpu_preset_find("cxl")->cfg;

	c.l2_size = 64u << 10;
	c.uvm = mode;
	c.uvm_gpu_kib = gpu_kib;
	return c;
}

/*
 * Objects a and b of BYTES each; kernels kernels of WARPS blocks (a warp
 * each), each streaming its share: loads of a (if load) and stores to b
 * (if store), 128 B an instruction, and an ALU op after each pair.
 */
static void stream(struct tprog *p, bool load, bool store, uint32_t kernels)
{
	uint32_t per = BYTES / WARPS, w, i, k;

	tp_object(p, OBJ_A, BYTES, "a");
	tp_object(p, OBJ_B, BYTES, "b");
	for (k = 0; k < kernels; k++) {
		tp_kernel(p, k + 1, "stream", WARPS, 32, 0);
		for (w = 0; w < WARPS; w++) {
			tp_block(p, w);
			tp_warp(p, 0, (per / 128) * (load + store + 1));
			for (i = 0; i < per / 128; i++) {
				uint64_t off = (uint64_t)w * per + i * 128;

				if (load)
					tp_mem(p, PROG_SPACE_GLOBAL,
					       PROG_KIND_LOAD, 4, 0xffffffff,
					       OBJ_A + off, 4, 1);
				if (store)
					tp_mem(p, PROG_SPACE_GLOBAL,
					       PROG_KIND_STORE, 4, 0xffffffff,
					       OBJ_B + off, 4, 2);
				tp_alu(p, PROG_OP_INT, 3, 3);
			}
			tp_add(p, PROG_REC_BLOCK_END);
		}
		tp_add(p, PROG_REC_KERNEL_END);
	}
	tp_add(p, PROG_REC_END);
}

/* The identities every run's counters keep. */
static void check_identities(struct __test_metadata *_metadata,
			     const struct gpu_uvm_stats *u)
{
	ASSERT_EQ(4096, u->page_bytes);
	ASSERT_EQ(u->pages_migrated, u->faults - u->duplicate_faults);
	ASSERT_EQ(u->pages_migrated * u->page_bytes, u->h2d_bytes);
	ASSERT_EQ(u->dirty_evictions * u->page_bytes, u->d2h_bytes);
	ASSERT_EQ(u->batches * RUNTIME_C, u->runtime_cycles);
	ASSERT_EQ(u->runtime_cycles + u->xfer_cycles + u->storage_cycles,
		  u->batch_cycles);
	ASSERT_GE(u->evictions, u->dirty_evictions);
	ASSERT_LE(u->batch_max, 256);
	ASSERT_LE(u->batch_max * u->batches, u->pages_migrated * u->batches);
	ASSERT_GE(u->batch_max * u->batches, u->pages_migrated);
}

static const struct gpu_uvm_stats zero;

TEST(off_changes_nothing)
{
	struct gpu_config a = uvm_cfg(0, 0), b = uvm_cfg(0, 64);
	struct gpu_core_stats sa, sb;
	char err[GPU_CORE_ERR_MAX];
	struct tprog p = { 0 };

	b.uvm_batch = 3;
	b.uvm_runtime_ns = 7;
	b.uvm_page = 8192;
	stream(&p, true, true, 1);
	ASSERT_EQ(0, tp_run(&a, &p, ~0ULL >> 1, 0, &sa, err)) TH_LOG("%s", err);
	ASSERT_EQ(0, tp_run(&b, &p, ~0ULL >> 1, 0, &sb, err)) TH_LOG("%s", err);
	ASSERT_EQ(0, memcmp(&sa, &sb, sizeof(sa)));
	ASSERT_EQ(0, memcmp(&sa.uvm, &zero, sizeof(zero)));
	tp_free(&p);
}

TEST(streaming_pays_the_runtime_every_batch)
{
	struct gpu_config c = uvm_cfg(GPU_UVM_ON, 1024), off = uvm_cfg(0, 0);
	struct gpu_core_stats st, base;
	char err[GPU_CORE_ERR_MAX];
	struct tprog p = { 0 };

	stream(&p, true, false, 1);
	ASSERT_EQ(0, tp_run(&c, &p, ~0ULL >> 1, 0, &st, err)) TH_LOG("%s", err);
	ASSERT_EQ(0, tp_run(&off, &p, ~0ULL >> 1, 0, &base, err));
	check_identities(_metadata, &st.uvm);
	/* Every page of a, once; b is never touched. */
	ASSERT_EQ(PAGES, st.uvm.pages_migrated);
	ASSERT_EQ(2 * PAGES, st.uvm.footprint_pages);
	ASSERT_EQ(0, st.uvm.evictions);
	/* One warp a block, one fault each in flight: batches of <= 16. */
	ASSERT_LE(PAGES / WARPS, st.uvm.batches);
	ASSERT_GE(st.cycles, st.uvm.batches * RUNTIME_C);
	ASSERT_GE(st.cycles, base.cycles + st.uvm.batches * RUNTIME_C / 2);
	ASSERT_LT(0, st.uvm.stall_cycles);
	ASSERT_EQ(0, st.uvm.storage_cycles);
	ASSERT_LT(0, st.uvm.xfer_cycles);
	tp_free(&p);
}

TEST(batches_hold_at_most_uvm_batch_faults)
{
	struct gpu_config c = uvm_cfg(GPU_UVM_ON, 1024);
	struct gpu_core_stats st;
	char err[GPU_CORE_ERR_MAX];
	struct tprog p = { 0 };

	/* A warp's instruction touches one page: 16 warps, 16 in flight. */
	stream(&p, true, false, 1);
	c.uvm_batch = 4;
	ASSERT_EQ(0, tp_run(&c, &p, ~0ULL >> 1, 0, &st, err)) TH_LOG("%s", err);
	check_identities(_metadata, &st.uvm);
	ASSERT_EQ(4, st.uvm.batch_max);
	ASSERT_LE(PAGES / 4, st.uvm.batches);
	tp_free(&p);
}

TEST(a_second_kernel_on_resident_data_takes_no_fault)
{
	struct gpu_config c = uvm_cfg(GPU_UVM_ON, 1024);
	struct gpu_core_stats one, two;
	char err[GPU_CORE_ERR_MAX];
	struct tprog p1 = { 0 }, p2 = { 0 };

	stream(&p1, true, true, 1);
	stream(&p2, true, true, 2);
	ASSERT_EQ(0, tp_run(&c, &p1, ~0ULL >> 1, 0, &one, err)) TH_LOG("%s", err);
	ASSERT_EQ(0, tp_run(&c, &p2, ~0ULL >> 1, 0, &two, err)) TH_LOG("%s", err);
	check_identities(_metadata, &two.uvm);
	ASSERT_EQ(2 * PAGES, one.uvm.pages_migrated);
	ASSERT_EQ(one.uvm.faults, two.uvm.faults);
	ASSERT_EQ(one.uvm.batches, two.uvm.batches);
	/* The second kernel runs at GPU memory speed: far below a batch. */
	ASSERT_LT(two.cycles - one.cycles, RUNTIME_C / 10);
	tp_free(&p1);
	tp_free(&p2);
}

TEST(gpu_memory_below_the_footprint_evicts_and_refaults)
{
	struct gpu_config c = uvm_cfg(GPU_UVM_ON, 192);	/* 48 pages */
	struct gpu_core_stats st;
	char err[GPU_CORE_ERR_MAX];
	struct tprog p = { 0 };

	stream(&p, true, true, 2);
	ASSERT_EQ(0, tp_run(&c, &p, ~0ULL >> 1, 0, &st, err)) TH_LOG("%s", err);
	check_identities(_metadata, &st.uvm);
	ASSERT_EQ(48, st.uvm.gpu_pages);
	/*
	 * Sequential over 128 pages, 48 fit: every page faults in both
	 * kernels (more if a batch evicts pages still in use); GPU memory
	 * ends full.
	 */
	ASSERT_LE(2 * 2 * PAGES, st.uvm.pages_migrated);
	ASSERT_EQ(st.uvm.pages_migrated - 48, st.uvm.evictions);
	/* b's pages were written: they go back to the host. */
	ASSERT_LT(0, st.uvm.dirty_evictions);
	ASSERT_GE(2 * PAGES, st.uvm.dirty_evictions);
	tp_free(&p);
}

TEST(default_gpu_memory_is_a_tenth_of_the_footprint)
{
	struct gpu_config c = uvm_cfg(GPU_UVM_ON, 0);
	struct gpu_core_stats st;
	char err[GPU_CORE_ERR_MAX];
	struct tprog p = { 0 };

	stream(&p, true, false, 1);
	ASSERT_EQ(0, tp_run(&c, &p, ~0ULL >> 1, 0, &st, err)) TH_LOG("%s", err);
	check_identities(_metadata, &st.uvm);
	ASSERT_EQ((2 * PAGES + 9) / 10, st.uvm.gpu_pages);
	ASSERT_LE(PAGES, st.uvm.pages_migrated);
	ASSERT_EQ(st.uvm.pages_migrated - st.uvm.gpu_pages, st.uvm.evictions);
	tp_free(&p);
}

TEST(gds_reads_the_storage_slower_media_more_cycles)
{
	/* Reads: Z-NAND's tR (3 us) is below NAND's (50 us), cxl_srds.c. */
	static const uint32_t media[] = {
		MCMGPU_CXL_MEDIA_ZNAND, MCMGPU_CXL_MEDIA_NAND,
	};
	struct gpu_config c = uvm_cfg(GPU_UVM_ON, 1024);
	struct gpu_core_stats uvm, st[2];
	char err[GPU_CORE_ERR_MAX];
	struct tprog p = { 0 };
	uint32_t i;

	stream(&p, true, false, 1);
	ASSERT_EQ(0, tp_run(&c, &p, ~0ULL >> 1, 0, &uvm, err)) TH_LOG("%s", err);
	c.uvm = GPU_UVM_GDS;
	for (i = 0; i < 2; i++) {
		c.cxl_media = media[i];
		ASSERT_EQ(0, tp_run(&c, &p, ~0ULL >> 1, 0, &st[i], err))
			TH_LOG("%s", err);
		check_identities(_metadata, &st[i].uvm);
		ASSERT_LT(0, st[i].uvm.storage_cycles);
		ASSERT_EQ(uvm.uvm.pages_migrated, st[i].uvm.pages_migrated);
		ASSERT_LT(uvm.cycles, st[i].cycles);
		if (i)
			ASSERT_LT(st[i - 1].cycles, st[i].cycles);
	}
	tp_free(&p);
}

TEST(deterministic_whatever_the_epochs)
{
	static const uint64_t epochs[] = { ~0ULL >> 1, 1, 7, 1000, 123457 };
	struct gpu_config c = uvm_cfg(GPU_UVM_GDS, 192);
	struct gpu_core_stats first, st;
	char err[GPU_CORE_ERR_MAX];
	struct tprog p = { 0 };
	uint32_t i;

	c.uvm_runtime_ns = 5000;	/* short runs for one-cycle epochs */
	c.cxl_gc = 0;
	stream(&p, true, true, 2);
	ASSERT_EQ(0, tp_run(&c, &p, epochs[0], 0, &first, err)) TH_LOG("%s", err);
	ASSERT_LT(0, first.uvm.evictions);
	for (i = 1; i < sizeof(epochs) / sizeof(epochs[0]); i++) {
		ASSERT_EQ(0, tp_run(&c, &p, epochs[i], 0, &st, err));
		ASSERT_EQ(0, memcmp(&first, &st, sizeof(st)))
			TH_LOG("epoch %llu", (unsigned long long)epochs[i]);
	}
	tp_free(&p);
}

TEST(config_rejects_uvm_with_cxl_or_adsm)
{
	struct gpu_config c = uvm_cfg(GPU_UVM_ON, 0);
	const char *field = NULL, *why = NULL;

	ASSERT_EQ(0, gpu_config_check(&c, 1, &field, &why));
	c.cxl = 1;
	ASSERT_EQ(-EINVAL, gpu_config_check(&c, 1, &field, &why));
	ASSERT_STREQ("uvm", field);
	c.cxl = 0;
	c.adsm = GPU_ADSM_BATCH;
	ASSERT_EQ(-EINVAL, gpu_config_check(&c, 1, &field, &why));
	c.adsm = 0;
	c.uvm_page = 12288;
	ASSERT_EQ(-EINVAL, gpu_config_check(&c, 1, &field, &why));
	ASSERT_STREQ("uvm_page", field);
	c = uvm_cfg(0, 0);
	ASSERT_EQ(0, gpu_config_set(&c, "uvm=gds", &why));
	ASSERT_EQ(GPU_UVM_GDS, c.uvm);
	ASSERT_EQ(500000, c.uvm_runtime_ns);
	ASSERT_EQ(31507, c.uvm_pcie_bw);
}

TEST_HARNESS_MAIN
