// SPDX-License-Identifier: GPL-2.0
/*
 * The GPU's CXL root complex end to end: gpu_rc.ko's topology and default
 * layout, interleaved layouts set up through /dev/mcmgpu_cxl0 and checked
 * address by address against the spec's arithmetic (written here), the
 * device's decode probe and the data itself (written through BAR4's
 * aperture, read back from the endpoint's media by DPA), the driver's and
 * the device's rejections (notes cxlgpu.md §5.3), lock semantics, and
 * lspci decoding the DVSECs.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "../lib/mcmgpu_test.h"
#include "mcmgpu_cxl.h"

#define MiB (1ULL << 20)
#define CXL_DEV "/dev/mcmgpu_cxl0"
#define WIN(off) (MCMGPU_WINDOW(MCMGPU_WINDOW_CXL_RC) + (off))
#define HDM(k, off) (MCMGPU_CXL_BLOCK(k) + MCMGPU_CXL_CM_OFFSET + \
		     MCMGPU_CXL_HDM_OFFSET + (off))
#define DEC(k, n, reg) HDM(k, MCMGPU_HDM_DECODER(n) + (reg))

FIXTURE(cxl) {
	int fd;
	int regs_fd;
	int bar4_fd;
	volatile uint8_t *regs;
	volatile uint8_t *bar4;
	struct mcmgpu_cxl_info info;
	char slot[NAME_MAX + 1];
};

FIXTURE_SETUP(cxl)
{
	char path[PATH_MAX];

	self->fd = open(CXL_DEV, O_RDWR);
	ASSERT_LE(0, self->fd) TH_LOG("%s: %s", CXL_DEV, strerror(errno));
	ASSERT_EQ(0, ioctl(self->fd, MCMGPU_CXL_IOCTL_INFO, &self->info));
	self->regs = mt_map_regs(self->slot, sizeof(self->slot),
				 &self->regs_fd);
	ASSERT_NE(NULL, self->regs);
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/resource4",
		 self->slot);
	self->bar4_fd = open(path, O_RDWR | O_SYNC);
	ASSERT_LE(0, self->bar4_fd);
	self->bar4 = mmap(NULL, self->info.aperture_size,
			  PROT_READ | PROT_WRITE, MAP_SHARED, self->bar4_fd, 0);
	ASSERT_NE(MAP_FAILED, self->bar4);
}

FIXTURE_TEARDOWN(cxl)
{
	struct mcmgpu_cxl_setup def = { 0 };

	/* Leave the default layout for the next test. */
	ioctl(self->fd, MCMGPU_CXL_IOCTL_SETUP, &def);
	munmap((void *)self->bar4, self->info.aperture_size);
	close(self->bar4_fd);
	mt_unmap_regs(self->regs, self->regs_fd);
	close(self->fd);
}

/* The endpoint's media at dpa, through its own window (not the decoders). */
static uint32_t ep_read(volatile uint8_t *regs, unsigned int port,
			uint64_t dpa)
{
	unsigned int b = MCMGPU_CXL_BLOCK(MCMGPU_CXL_EP_BLOCK(port));

	mt_wr(regs, b + MCMGPU_CXL_EP_DPA_LO, (uint32_t)dpa);
	mt_wr(regs, b + MCMGPU_CXL_EP_DPA_HI, dpa >> 32);
	return mt_rd(regs, b + MCMGPU_CXL_EP_DATA);
}

/* The device's decode of hpa: port index (or MISS) and DPA. */
static uint32_t probe(volatile uint8_t *regs, uint64_t hpa, uint64_t *dpa)
{
	mt_wr(regs, WIN(MCMGPU_CXL_REG_PROBE_HPA_LO), (uint32_t)hpa);
	mt_wr(regs, WIN(MCMGPU_CXL_REG_PROBE_HPA_HI), hpa >> 32);
	*dpa = mt_rd(regs, WIN(MCMGPU_CXL_REG_PROBE_DPA_LO)) |
		(uint64_t)mt_rd(regs, WIN(MCMGPU_CXL_REG_PROBE_DPA_HI)) << 32;
	return mt_rd(regs, WIN(MCMGPU_CXL_REG_PROBE_PORT));
}

/* The 32-bit word at window offset off, through BAR4 slid onto it. */
static volatile uint32_t *window_word(FIXTURE_DATA(cxl) *self, uint64_t off)
{
	uint64_t ap = self->info.aperture_size, at = off / ap * ap;

	mt_wr(self->regs, WIN(MCMGPU_CXL_REG_APERTURE_LO), (uint32_t)at);
	mt_wr(self->regs, WIN(MCMGPU_CXL_REG_APERTURE_HI), at >> 32);
	return (volatile uint32_t *)(self->bar4 + off % ap);
}

static int setup(int fd, struct mcmgpu_cxl_setup *req)
{
	return ioctl(fd, MCMGPU_CXL_IOCTL_SETUP, req) ? -errno : 0;
}

/*
 * The host bridge's decoders as Linux 6.1 reads the Decoder Count (2 x
 * the field): the device's cxl-hb-decoders up to 16, 18..24 for 20..32.
 */
static unsigned int expect_hb_decoders(void)
{
	unsigned int n = mt_env_u64("MCMGPU_EXPECT_CXL_HB_DECODERS",
				    MCMGPU_CXL_HB_DECODERS);

	return n <= 16 ? n : 2 * (9 + (n - 20) / 4);
}

TEST_F(cxl, topology_and_default_layout)
{
	unsigned int p, ports = mt_env_u64("MCMGPU_EXPECT_CXL_PORTS", 4);
	uint64_t base = MCMGPU_CXL_WINDOW_BASE, dpa;

	ASSERT_EQ(ports, self->info.ports);
	EXPECT_EQ(expect_hb_decoders(), self->info.hb_decoders);
	EXPECT_EQ(MCMGPU_CXL_EP_DECODERS, self->info.ep_decoders);
	EXPECT_EQ(MCMGPU_CXL_WINDOW_BASE, self->info.window_base);
	/* The paper's layout: one 1-way region per root port, ascending. */
	EXPECT_EQ(ports, self->info.regions);
	for (p = 0; p < ports; p++) {
		EXPECT_EQ(MCMGPU_CXL_PORT_ID(p), self->info.port[p].id);
		EXPECT_EQ(MCMGPU_CXL_DEFAULT_CAPACITY,
			  self->info.port[p].capacity);
		EXPECT_EQ(1, self->info.port[p].decoders);
		EXPECT_EQ(p, probe(self->regs, base + 4096, &dpa));
		EXPECT_EQ(4096, dpa);
		base += self->info.port[p].capacity;
	}
	EXPECT_EQ(MCMGPU_CXL_PROBE_MISS, probe(self->regs, base, &dpa));
	EXPECT_EQ(MCMGPU_CXL_PROBE_MISS,
		  probe(self->regs, MCMGPU_CXL_WINDOW_BASE - 1, &dpa));
}

/*
 * One region over 'ways' ports: every address the spec's arithmetic, the
 * driver's DECODE, the device's probe and the data agree.
 */
static void check_region(struct __test_metadata *_metadata,
			 FIXTURE_DATA(cxl) *self, unsigned int ways,
			 unsigned int gran, uint64_t seed)
{
	struct mcmgpu_cxl_setup req = { .nregions = 2 };
	uint64_t base = MCMGPU_CXL_WINDOW_BASE, size = ways * 256 * MiB;
	uint64_t rng = seed;
	unsigned int k, i;

	/* Ways go to ports in reverse, then a 1-way region above it. */
	req.region[0] = (struct mcmgpu_cxl_region) {
		.base = base, .size = size, .ways = ways, .granularity = gran,
	};
	for (k = 0; k < ways; k++)
		req.region[0].ports[k] = ways - 1 - k;
	req.region[1] = (struct mcmgpu_cxl_region) {
		.base = base + size, .size = 256 * MiB, .ways = 1,
		.granularity = 256, .ports = { ways % self->info.ports },
	};
	if (ways == self->info.ports)
		req.nregions = 1;
	ASSERT_EQ(0, setup(self->fd, &req)) TH_LOG("%s", req.error);
	for (i = 0; i < 48; i++) {
		uint64_t off, g, want_dpa, dpa;
		struct mcmgpu_cxl_decode dec = { 0 };
		unsigned int want_port;
		uint32_t val;

		rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
		off = (rng >> 11) % size & ~3ULL;
		if (i < 4)	/* both ends, a granule's edges */
			off = (uint64_t[]){ 0, size - 4, gran - 4, gran }[i];
		g = off / gran;
		want_port = ways - 1 - g % ways;
		want_dpa = g / ways * gran + off % gran;
		dec.hpa = base + off;
		ASSERT_EQ(0, ioctl(self->fd, MCMGPU_CXL_IOCTL_DECODE, &dec));
		ASSERT_EQ(want_port, dec.port);
		ASSERT_EQ(want_dpa, dec.dpa);
		ASSERT_EQ(want_port, probe(self->regs, base + off, &dpa));
		ASSERT_EQ(want_dpa, dpa);
		/* Data through the aperture lands at that DPA of that port. */
		val = (uint32_t)(rng >> 32) | 1;
		*window_word(self, off) = val;
		ASSERT_EQ(val, ep_read(self->regs, want_port, want_dpa))
			TH_LOG("ways %u gran %u hpa off 0x%llx", ways, gran,
			       (unsigned long long)off);
		ASSERT_EQ(val, *window_word(self, off));
	}
}

TEST_F(cxl, interleave_every_ways_and_granularity)
{
	unsigned int ways, gran;

	for (ways = 1; ways <= self->info.ports; ways *= 2)
		for (gran = 256; gran <= 16384; gran *= 2)
			check_region(_metadata, self, ways, gran,
				     ways * 100000 + gran);
}

/* Each request the driver must refuse, before any register write. */
TEST_F(cxl, driver_rejections)
{
	static const struct {
		const char *field;
		struct mcmgpu_cxl_region r;
	} bad[] = {
		{ "base", { .base = MCMGPU_CXL_WINDOW_BASE + MiB,
			    .size = 256 * MiB, .ways = 1, .granularity = 256 } },
		{ "size", { .base = MCMGPU_CXL_WINDOW_BASE, .size = 256 * MiB,
			    .ways = 2, .granularity = 256, .ports = { 0, 1 } } },
		{ "size", { .base = MCMGPU_CXL_WINDOW_BASE, .size = 0,
			    .ways = 1, .granularity = 256 } },
		{ "base", { .base = MCMGPU_CXL_WINDOW_BASE - 256 * MiB,
			    .size = 256 * MiB, .ways = 1, .granularity = 256 } },
		{ "base", { .base = MCMGPU_CXL_WINDOW_BASE + (1ULL << 40),
			    .size = 256 * MiB, .ways = 1, .granularity = 256 } },
		{ "size", { .base = MCMGPU_CXL_WINDOW_BASE, .size = 512 * MiB,
			    .ways = 1, .granularity = 256 } },
		{ "ways", { .base = MCMGPU_CXL_WINDOW_BASE, .size = 768 * MiB,
			    .ways = 3, .granularity = 256, .ports = { 0, 1, 2 } } },
		{ "ways", { .base = MCMGPU_CXL_WINDOW_BASE, .size = 256 * MiB,
			    .ways = 0, .granularity = 256 } },
		{ "ways", { .base = MCMGPU_CXL_WINDOW_BASE, .size = 4096 * MiB,
			    .ways = 16, .granularity = 256 } },
		{ "granularity", { .base = MCMGPU_CXL_WINDOW_BASE,
				   .size = 256 * MiB, .ways = 1, .granularity = 128 } },
		{ "granularity", { .base = MCMGPU_CXL_WINDOW_BASE,
				   .size = 256 * MiB, .ways = 1, .granularity = 32768 } },
		{ "granularity", { .base = MCMGPU_CXL_WINDOW_BASE,
				   .size = 256 * MiB, .ways = 1, .granularity = 768 } },
		{ "ports", { .base = MCMGPU_CXL_WINDOW_BASE, .size = 512 * MiB,
			     .ways = 2, .granularity = 256, .ports = { 1, 1 } } },
		{ "ports", { .base = MCMGPU_CXL_WINDOW_BASE, .size = 256 * MiB,
			     .ways = 1, .granularity = 256, .ports = { 9 } } },
	};
	char before[8192], after[8192];
	const char *dbg = "/sys/kernel/debug/mcmgpu.cxl_rc.0/decoders";
	unsigned int i;

	mt_system("mount -t debugfs none /sys/kernel/debug 2>/dev/null");
	ASSERT_LT(0, mt_read_file(dbg, before, sizeof(before)));
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		struct mcmgpu_cxl_setup req = { .nregions = 1,
						.region[0] = bad[i].r };

		EXPECT_EQ(-EINVAL, setup(self->fd, &req)) TH_LOG("case %u", i);
		EXPECT_NE(NULL, strstr(req.error, bad[i].field))
			TH_LOG("case %u: '%s' does not name %s", i, req.error,
			       bad[i].field);
	}
	/* Regions out of order, too many, unknown flags. */
	{
		struct mcmgpu_cxl_setup req = { .nregions = 2 };

		req.region[0] = (struct mcmgpu_cxl_region) {
			.base = MCMGPU_CXL_WINDOW_BASE + 256 * MiB,
			.size = 256 * MiB, .ways = 1, .granularity = 256 };
		req.region[1] = (struct mcmgpu_cxl_region) {
			.base = MCMGPU_CXL_WINDOW_BASE, .size = 256 * MiB,
			.ways = 1, .granularity = 256, .ports = { 1 } };
		EXPECT_EQ(-EINVAL, setup(self->fd, &req));
		EXPECT_NE(NULL, strstr(req.error, "region 1: base"));
		/* Past the request's 8 regions, even on a device with more. */
		req.nregions = 9;
		EXPECT_EQ(-EINVAL, setup(self->fd, &req));
		EXPECT_NE(NULL, strstr(req.error, "nregions")) TH_LOG("%s", req.error);
		req.nregions = self->info.hb_decoders;
		if (req.nregions > MCMGPU_CXL_MAX_REGIONS) {
			EXPECT_EQ(-EINVAL, setup(self->fd, &req));
			EXPECT_NE(NULL, strstr(req.error, "nregions"))
				TH_LOG("%s", req.error);
		}
		req.nregions = 0;
		req.flags = 0x80;
		EXPECT_EQ(-EINVAL, setup(self->fd, &req));
	}
	/* Nothing was written: every decoder is as it was. */
	ASSERT_LT(0, mt_read_file(dbg, after, sizeof(after)));
	EXPECT_STREQ(before, after);
}

/* Poll a decoder's control until the device answers (spec: 10 ms). */
static uint32_t wait_commit(volatile uint8_t *regs, unsigned int k,
			    unsigned int n)
{
	uint32_t ctrl;
	int i;

	for (i = 0; i < 200; i++) {
		ctrl = mt_rd(regs, DEC(k, n, MCMGPU_HDM_CTRL));
		if (ctrl & (MCMGPU_HDM_CTRL_COMMITTED | MCMGPU_HDM_CTRL_ERROR))
			break;
		usleep(1000);
	}
	return ctrl;
}

static void program(volatile uint8_t *regs, unsigned int k, unsigned int n,
		    uint64_t base, uint64_t size, uint64_t target)
{
	mt_wr(regs, DEC(k, n, MCMGPU_HDM_BASE_LO), (uint32_t)base);
	mt_wr(regs, DEC(k, n, MCMGPU_HDM_BASE_HI), base >> 32);
	mt_wr(regs, DEC(k, n, MCMGPU_HDM_SIZE_LO), (uint32_t)size);
	mt_wr(regs, DEC(k, n, MCMGPU_HDM_SIZE_HI), size >> 32);
	mt_wr(regs, DEC(k, n, MCMGPU_HDM_TARGET_LO), (uint32_t)target);
	mt_wr(regs, DEC(k, n, MCMGPU_HDM_TARGET_HI), target >> 32);
}

/* Commit through the registers: true when Committed, false on Error. */
static bool commit(volatile uint8_t *regs, unsigned int k, unsigned int n,
		   uint32_t ctrl)
{
	uint32_t got;

	mt_wr(regs, DEC(k, n, MCMGPU_HDM_CTRL), ctrl | MCMGPU_HDM_CTRL_COMMIT);
	got = wait_commit(regs, k, n);
	if (!(got & MCMGPU_HDM_CTRL_COMMITTED))
		mt_wr(regs, DEC(k, n, MCMGPU_HDM_CTRL), ctrl);
	return got & MCMGPU_HDM_CTRL_COMMITTED;
}

TEST_F(cxl, device_rejections)
{
	const uint64_t w = MCMGPU_CXL_WINDOW_BASE, u = 256 * MiB;
	const unsigned int hb = MCMGPU_CXL_HB_BLOCK;
	uint64_t dpa;

	ASSERT_EQ(0, ioctl(self->fd, MCMGPU_CXL_IOCTL_TEARDOWN));
	/* RsvdP: bits 27:0 of a base read back as 0. */
	program(self->regs, hb, 0, w + 0x1234567, u, 0x10);
	EXPECT_EQ((uint32_t)w, mt_rd(self->regs, DEC(hb, 0, MCMGPU_HDM_BASE_LO)));
	/* Out of order: decoder 1 while decoder 0 is not committed. */
	program(self->regs, hb, 1, w + u, u, 0x11);
	EXPECT_FALSE(commit(self->regs, hb, 1, 0));
	ASSERT_TRUE(commit(self->regs, hb, 0, 0));
	/* Overlap, wraparound, duplicate and unknown targets, reserved fields. */
	program(self->regs, hb, 1, w, u, 0x11);
	EXPECT_FALSE(commit(self->regs, hb, 1, 0));
	program(self->regs, hb, 1, ~0ULL << 28, u, 0x11);
	EXPECT_FALSE(commit(self->regs, hb, 1, 0));
	program(self->regs, hb, 1, w + u, 2 * u, 0x1111);
	EXPECT_FALSE(commit(self->regs, hb, 1, 1 << 4));
	program(self->regs, hb, 1, w + u, 2 * u, 0x5511);
	EXPECT_FALSE(commit(self->regs, hb, 1, 1 << 4));
	program(self->regs, hb, 1, w + u, u, 0x11);
	EXPECT_FALSE(commit(self->regs, hb, 1, 7));
	EXPECT_FALSE(commit(self->regs, hb, 1, 8 << 4));
	/* More ways than the Target Count. */
	program(self->regs, hb, 1, w + u, 8 * u, 0x1716151413121110ULL);
	EXPECT_FALSE(commit(self->regs, hb, 1, 3 << 4));
	/* Outside the CXL window. */
	program(self->regs, hb, 1, w + (1ULL << 40), u, 0x11);
	EXPECT_FALSE(commit(self->regs, hb, 1, 0));
	/* Zero size commits and decodes nothing, whatever its target list. */
	program(self->regs, hb, 1, w + u, 0, 0);
	EXPECT_TRUE(commit(self->regs, hb, 1, 0));
	EXPECT_EQ(MCMGPU_CXL_PROBE_MISS, probe(self->regs, w + u, &dpa));
	/*
	 * Decoder 0 may drop Commit under a committed decoder 1 (the spec
	 * sets no order), but not commit again until decoder 1 has gone.
	 */
	mt_wr(self->regs, DEC(hb, 0, MCMGPU_HDM_CTRL), 0);
	EXPECT_FALSE(mt_rd(self->regs, DEC(hb, 0, MCMGPU_HDM_CTRL)) &
		     MCMGPU_HDM_CTRL_COMMITTED);
	EXPECT_EQ(MCMGPU_CXL_PROBE_MISS, probe(self->regs, w, &dpa));
	EXPECT_FALSE(commit(self->regs, hb, 0, 0));
	mt_wr(self->regs, DEC(hb, 1, MCMGPU_HDM_CTRL), 0);
	ASSERT_TRUE(commit(self->regs, hb, 0, 0));
	/* A DPA skip near 2^64 must not wrap past the capacity check. */
	program(self->regs, MCMGPU_CXL_EP_BLOCK(0), 0, w, 2 * u, -u);
	EXPECT_FALSE(commit(self->regs, MCMGPU_CXL_EP_BLOCK(0), 0, 0));
	program(self->regs, MCMGPU_CXL_EP_BLOCK(0), 0, w, 0, 0);
	/* Commit 1 → 0 clears Committed; the endpoint beyond its capacity. */
	mt_wr(self->regs, DEC(hb, 1, MCMGPU_HDM_CTRL), 0);
	EXPECT_EQ(0, mt_rd(self->regs, DEC(hb, 1, MCMGPU_HDM_CTRL)) &
		  MCMGPU_HDM_CTRL_COMMITTED);
	program(self->regs, MCMGPU_CXL_EP_BLOCK(0), 0, w, 2 * u, 0);
	EXPECT_FALSE(commit(self->regs, MCMGPU_CXL_EP_BLOCK(0), 0, 0));
	/* HB decoder 0 routes to port 0 whose endpoint decodes nothing. */
	EXPECT_EQ(MCMGPU_CXL_PROBE_MISS, probe(self->regs, w, &dpa));
	/* Unmapped: reads all 1s, writes dropped. */
	EXPECT_EQ(0xffffffffU, *(volatile uint32_t *)(self->bar4 + 64));
	*(volatile uint32_t *)(self->bar4 + 64) = 0x1234;
	EXPECT_EQ(0xffffffffU, *(volatile uint32_t *)(self->bar4 + 64));
	EXPECT_EQ(0, ioctl(self->fd, MCMGPU_CXL_IOCTL_TEARDOWN));
}

/*
 * An endpoint decoder dropped out of order and rewritten (a new skip)
 * does not move the committed decoder above it: that one decodes from
 * the DPA base it latched at its commit.
 */
TEST_F(cxl, uncommit_out_of_order_keeps_upper_dpas)
{
	const uint64_t w = MCMGPU_CXL_WINDOW_BASE, u = 256 * MiB;
	const unsigned int hb = MCMGPU_CXL_HB_BLOCK;
	const unsigned int ep = MCMGPU_CXL_EP_BLOCK(0);
	uint64_t dpa;

	ASSERT_LE(u, self->info.port[0].capacity);
	ASSERT_EQ(0, ioctl(self->fd, MCMGPU_CXL_IOCTL_TEARDOWN));
	mt_wr(self->regs, HDM(ep, MCMGPU_HDM_GLOBAL_CTRL),
	      MCMGPU_HDM_GLOBAL_ENABLE);
	/* EP decoder 0 empty, decoder 1 all of u from DPA 0; HB to port 0. */
	program(self->regs, ep, 0, w, 0, 0);
	ASSERT_TRUE(commit(self->regs, ep, 0, 0));
	program(self->regs, ep, 1, w, u, 0);
	ASSERT_TRUE(commit(self->regs, ep, 1, 0));
	program(self->regs, hb, 0, w, u, self->info.port[0].id);
	ASSERT_TRUE(commit(self->regs, hb, 0, 0));
	EXPECT_EQ(0, probe(self->regs, w + 4100, &dpa));
	EXPECT_EQ(4100, dpa);
	/* Decoder 0 drops Commit and takes a skip of half the range. */
	mt_wr(self->regs, DEC(ep, 0, MCMGPU_HDM_CTRL), 0);
	EXPECT_FALSE(mt_rd(self->regs, DEC(ep, 0, MCMGPU_HDM_CTRL)) &
		     MCMGPU_HDM_CTRL_COMMITTED);
	program(self->regs, ep, 0, w, 0, u / 2);
	EXPECT_TRUE(mt_rd(self->regs, DEC(ep, 1, MCMGPU_HDM_CTRL)) &
		    MCMGPU_HDM_CTRL_COMMITTED);
	EXPECT_EQ(0, probe(self->regs, w + 4100, &dpa));
	EXPECT_EQ(4100, dpa);
	EXPECT_FALSE(commit(self->regs, ep, 0, 0));
	EXPECT_EQ(0, ioctl(self->fd, MCMGPU_CXL_IOCTL_TEARDOWN));
}

/*
 * Each HDM register's write mask, as the spec has it: all-ones written to
 * every register of decoder n leave the RO and RsvdP bits (27:0 of the
 * addresses, an endpoint's Target Range Type and DPA Skip 27:0, Committed,
 * Error Not Committed), and with Commit set, only clearing Commit is taken.
 */
static void check_write_masks(struct __test_metadata *_metadata,
			      volatile uint8_t *regs, unsigned int k,
			      unsigned int n)
{
	const uint64_t w = MCMGPU_CXL_WINDOW_BASE;
	const bool hb = k == MCMGPU_CXL_HB_BLOCK;
	const uint32_t lo = MCMGPU_HDM_ADDR_LO_MASK, ones = 0xffffffffU;
	const uint32_t type = hb ? 0 : MCMGPU_HDM_CTRL_HOSTONLY;
	const uint32_t rw = MCMGPU_HDM_CTRL_IG_MASK | MCMGPU_HDM_CTRL_IW_MASK |
			    MCMGPU_HDM_CTRL_LOCK | MCMGPU_HDM_CTRL_COMMIT |
			    (hb ? MCMGPU_HDM_CTRL_HOSTONLY : 0);
	unsigned int reg;
	uint32_t cap, global, ctrl;

	cap = mt_rd(regs, HDM(k, MCMGPU_HDM_CAP));
	global = mt_rd(regs, HDM(k, MCMGPU_HDM_GLOBAL_CTRL));
	mt_wr(regs, HDM(k, MCMGPU_HDM_CAP), ones);
	EXPECT_EQ(cap, mt_rd(regs, HDM(k, MCMGPU_HDM_CAP)));
	mt_wr(regs, HDM(k, MCMGPU_HDM_GLOBAL_CTRL), ones);
	EXPECT_EQ(hb ? global : MCMGPU_HDM_GLOBAL_ENABLE,
		  mt_rd(regs, HDM(k, MCMGPU_HDM_GLOBAL_CTRL)));
	mt_wr(regs, HDM(k, MCMGPU_HDM_GLOBAL_CTRL), global);

	for (reg = MCMGPU_HDM_BASE_LO; reg < 0x20; reg += 4)
		if (reg != MCMGPU_HDM_CTRL)
			mt_wr(regs, DEC(k, n, reg), ones);
	EXPECT_EQ(lo, mt_rd(regs, DEC(k, n, MCMGPU_HDM_BASE_LO)));
	EXPECT_EQ(ones, mt_rd(regs, DEC(k, n, MCMGPU_HDM_BASE_HI)));
	EXPECT_EQ(lo, mt_rd(regs, DEC(k, n, MCMGPU_HDM_SIZE_LO)));
	EXPECT_EQ(ones, mt_rd(regs, DEC(k, n, MCMGPU_HDM_SIZE_HI)));
	EXPECT_EQ(hb ? ones : lo, mt_rd(regs, DEC(k, n, MCMGPU_HDM_TARGET_LO)));
	EXPECT_EQ(ones, mt_rd(regs, DEC(k, n, MCMGPU_HDM_TARGET_HI)));
	EXPECT_EQ(0, mt_rd(regs, DEC(k, n, 0x1c)));
	/* Control: all but Commit, then nothing; Type is RO on an endpoint. */
	mt_wr(regs, DEC(k, n, MCMGPU_HDM_CTRL), ones & ~MCMGPU_HDM_CTRL_COMMIT);
	EXPECT_EQ((rw & ~MCMGPU_HDM_CTRL_COMMIT) | type,
		  mt_rd(regs, DEC(k, n, MCMGPU_HDM_CTRL)));
	mt_wr(regs, DEC(k, n, MCMGPU_HDM_CTRL), 0);
	EXPECT_EQ(type, mt_rd(regs, DEC(k, n, MCMGPU_HDM_CTRL)));
	/* All-ones commits a reserved IG: Error; nothing else sticks then. */
	mt_wr(regs, DEC(k, n, MCMGPU_HDM_CTRL), ones);
	ctrl = wait_commit(regs, k, n);
	EXPECT_EQ(rw | type | MCMGPU_HDM_CTRL_ERROR, ctrl);
	for (reg = MCMGPU_HDM_BASE_LO; reg < 0x20; reg += 4)
		mt_wr(regs, DEC(k, n, reg), reg == MCMGPU_HDM_CTRL ? ones : 0);
	EXPECT_EQ(ctrl, mt_rd(regs, DEC(k, n, MCMGPU_HDM_CTRL)));
	EXPECT_EQ(ones, mt_rd(regs, DEC(k, n, MCMGPU_HDM_BASE_HI)));
	EXPECT_EQ(ones, mt_rd(regs, DEC(k, n, MCMGPU_HDM_TARGET_HI)));
	/* Clearing Commit takes the RW bits and clears Error. */
	mt_wr(regs, DEC(k, n, MCMGPU_HDM_CTRL), MCMGPU_HDM_CTRL_ERROR |
	      MCMGPU_HDM_CTRL_COMMITTED);
	EXPECT_EQ(type, mt_rd(regs, DEC(k, n, MCMGPU_HDM_CTRL)));
	/* Committed (an empty decoder, in order): the same, Committed RO. */
	if (!n) {
		program(regs, k, n, w, 0, 0);
		ASSERT_TRUE(commit(regs, k, n, 0));
		for (reg = MCMGPU_HDM_BASE_LO; reg < 0x20; reg += 4)
			mt_wr(regs, DEC(k, n, reg), ones);
		EXPECT_EQ(MCMGPU_HDM_CTRL_COMMIT | MCMGPU_HDM_CTRL_COMMITTED |
			  type, mt_rd(regs, DEC(k, n, MCMGPU_HDM_CTRL)));
		EXPECT_EQ((uint32_t)w,
			  mt_rd(regs, DEC(k, n, MCMGPU_HDM_BASE_LO)));
		EXPECT_EQ(w >> 32, mt_rd(regs, DEC(k, n, MCMGPU_HDM_BASE_HI)));
		EXPECT_EQ(0, mt_rd(regs, DEC(k, n, MCMGPU_HDM_SIZE_LO)));
		EXPECT_EQ(0, mt_rd(regs, DEC(k, n, MCMGPU_HDM_TARGET_LO)));
		mt_wr(regs, DEC(k, n, MCMGPU_HDM_CTRL), 0);
		EXPECT_EQ(type, mt_rd(regs, DEC(k, n, MCMGPU_HDM_CTRL)));
	}
	program(regs, k, n, 0, 0, 0);
}

TEST_F(cxl, register_write_masks)
{
	unsigned int k, decoders;

	ASSERT_EQ(0, ioctl(self->fd, MCMGPU_CXL_IOCTL_TEARDOWN));
	for (k = 0; k <= self->info.ports; k++) {
		decoders = k == MCMGPU_CXL_HB_BLOCK ? self->info.hb_decoders :
			self->info.ep_decoders;
		check_write_masks(_metadata, self->regs, k, 0);
		check_write_masks(_metadata, self->regs, k, decoders - 1);
	}
	EXPECT_EQ(0, ioctl(self->fd, MCMGPU_CXL_IOCTL_TEARDOWN));
}

/* A commit the device answers too late: ETIMEDOUT, rolled back. */
TEST_F(cxl, slow_commit_times_out)
{
	struct mcmgpu_cxl_setup req = { 0 };
	uint64_t dpa;

	unsigned int k, n;

	mt_wr(self->regs, WIN(MCMGPU_CXL_REG_COMMIT_US), 40000);
	EXPECT_EQ(-ETIMEDOUT, setup(self->fd, &req));
	EXPECT_NE(NULL, strstr(req.error, "no answer")) TH_LOG("%s", req.error);
	/* Past the late answer: the rollback left no decoder programmed. */
	usleep(60000);
	for (k = 0; k <= self->info.ports; k++)
		for (n = 0; n < (k ? self->info.ep_decoders :
				 self->info.hb_decoders); n++) {
			EXPECT_EQ(0, mt_rd(self->regs, DEC(k, n, MCMGPU_HDM_CTRL)) &
				  ~MCMGPU_HDM_CTRL_HOSTONLY)
				TH_LOG("block %u decoder %u", k, n);
			EXPECT_EQ(0, mt_rd(self->regs,
					   DEC(k, n, MCMGPU_HDM_SIZE_LO)));
		}
	mt_wr(self->regs, WIN(MCMGPU_CXL_REG_COMMIT_US),
	      MCMGPU_CXL_DEFAULT_COMMIT_US);
	memset(&req, 0, sizeof(req));
	ASSERT_EQ(0, setup(self->fd, &req)) TH_LOG("%s", req.error);
	EXPECT_EQ(0, probe(self->regs, MCMGPU_CXL_WINDOW_BASE, &dpa));
}

/* lspci decodes the Register Locator and each endpoint's CXL DVSEC. */
TEST_F(cxl, lspci_decodes_the_dvsecs)
{
	char cmd[NAME_MAX + 32], out[16384];
	unsigned int i;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "lspci -vvv -s %s 2>/dev/null", self->slot);
	ASSERT_EQ(0, mt_run_cmd(cmd, out, sizeof(out)));
	EXPECT_NE(NULL, strstr(out, "Vendor=1e98 ID=0008")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "offset: 0000000000010000"));
	/* Endpoint 0's config space image, as lspci -x prints one. */
	f = fopen("/tmp/cxl-ep0.txt", "w");
	ASSERT_NE(NULL, f);
	fprintf(f, "00:00.0 Memory controller: endpoint 0\n");
	for (i = 0; i < MCMGPU_CXL_EP_CONFIG_SIZE; i += 16) {
		unsigned int j;

		fprintf(f, "%02x:", i);
		for (j = 0; j < 16; j++)	/* registers are read 4 bytes whole */
			fprintf(f, " %02x", mt_rd(self->regs, MCMGPU_CXL_BLOCK(1) +
						  MCMGPU_CXL_EP_CONFIG + i +
						  j / 4 * 4) >> (8 * (j % 4)) & 0xff);
		fprintf(f, "\n");
	}
	fprintf(f, "\n");
	fclose(f);
	ASSERT_EQ(0, mt_run_cmd("lspci -F /tmp/cxl-ep0.txt -vvv 2>/dev/null",
				out, sizeof(out)));
	EXPECT_NE(NULL, strstr(out, "Vendor=1e98 ID=0000")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "CXL")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "Mem+")) TH_LOG("%s", out);
}

/*
 * Requests shaped like real ones with one field off, several regions at
 * once, then random writes into every decoder register: each answer is 0
 * or a clean errno, and afterwards the default layout decodes again.
 */
TEST_F(cxl, random_requests_and_register_writes)
{
	static const uint32_t grans[] = { 256, 1024, 4096, 16384, 100, 0 };
	uint64_t rng = 0x5eed, dpa;
	struct mcmgpu_cxl_setup req;
	unsigned int i, r, k, ok = 0;
	int ret;

	for (i = 0; i < 200; i++) {
		uint64_t base = MCMGPU_CXL_WINDOW_BASE;

		memset(&req, 0, sizeof(req));
		rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
		req.nregions = 1 + (rng >> 40) % 4;
		for (r = 0; r < req.nregions; r++) {
			struct mcmgpu_cxl_region *g = &req.region[r];

			rng = rng * 6364136223846793005ULL + 1;
			g->ways = 1u << ((rng >> 20) % 3);
			g->granularity = grans[(rng >> 24) % 4];
			g->base = base;
			g->size = g->ways * 256 * MiB;
			for (k = 0; k < g->ways; k++)
				g->ports[k] = ((rng >> 28) + k) % self->info.ports;
			switch ((rng >> 33) % 8) {	/* one field off */
			case 0: g->base += 4096; break;
			case 1: g->size += 256 * MiB; break;
			case 2: g->ways = 3; break;
			case 3: g->granularity = grans[4 + (rng >> 36) % 2]; break;
			case 4: g->ports[0] = (rng >> 37) % 16; break;
			}
			base = g->base + g->size;
		}
		ret = setup(self->fd, &req);
		ASSERT_TRUE(ret == 0 || ret == -EINVAL)
			TH_LOG("request %u: %d %s", i, ret, req.error);
		ok += !ret;
		if (ret)
			ASSERT_NE(0, req.error[0]);
	}
	EXPECT_LT(0, ok);
	ASSERT_EQ(0, ioctl(self->fd, MCMGPU_CXL_IOCTL_TEARDOWN));
	for (i = 0; i < 2000; i++) {
		unsigned int k = (rng >> 40) % (1 + self->info.ports);
		unsigned int n = (rng >> 44) % MCMGPU_CXL_EP_DECODERS;
		unsigned int reg = 4 * ((rng >> 52) % 7);	/* base .. target */
		uint32_t val = rng >> 13;

		rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
		if ((rng >> 50) % 7 == 0)
			val = (val & 0xff) | MCMGPU_HDM_CTRL_COMMIT;
		/* No Lock On Commit here: that needs a reset to undo. */
		if (reg == MCMGPU_HDM_CTRL)
			val &= ~MCMGPU_HDM_CTRL_LOCK;
		mt_wr(self->regs, DEC(k, n, reg), val);
		probe(self->regs, MCMGPU_CXL_WINDOW_BASE + (rng >> 30) % (1ULL << 31),
		      &dpa);
		(void)*(volatile uint32_t *)(self->bar4 + ((rng >> 17) % 4096) * 4);
	}
	usleep(20000);
	memset(&req, 0, sizeof(req));
	ASSERT_EQ(0, setup(self->fd, &req)) TH_LOG("%s", req.error);
	EXPECT_EQ(0, probe(self->regs, MCMGPU_CXL_WINDOW_BASE + 64, &dpa));
	EXPECT_EQ(64, dpa);
}

/* The tool: a 4-way region set up, decoded, refused with the field named. */
TEST_F(cxl, tool_setup_and_decode)
{
	char out[4096], want[128];
	uint64_t hpa = MCMGPU_CXL_WINDOW_BASE + 3 * 4096 + 8;

	if (self->info.ports < 4)
		SKIP(return, "needs 4 root ports");
	ASSERT_EQ(0, mt_run_cmd("mcmgpu cxl setup +0:1G:4:4K:3,2,1,0", out,
				sizeof(out))) TH_LOG("%s", out);
	snprintf(out, sizeof(out), "mcmgpu cxl decode 0x%llx 0x%llx 2>&1",
		 (unsigned long long)hpa,
		 (unsigned long long)MCMGPU_CXL_WINDOW_BASE + (1ULL << 30));
	/* The unmapped one is an error naming it; the other still answers. */
	ASSERT_EQ(1, mt_run_cmd(out, out, sizeof(out)));
	/* Granule 3 of 4 KiB: way 3 → port 0, DPA 0 + 8. */
	snprintf(want, sizeof(want), "0x%llx port 0 dpa 0x8",
		 (unsigned long long)hpa);
	EXPECT_NE(NULL, strstr(out, want)) TH_LOG("%s", out);
	snprintf(want, sizeof(want), "HPA 0x%llx: no decoder maps it",
		 (unsigned long long)MCMGPU_CXL_WINDOW_BASE + (1ULL << 30));
	EXPECT_NE(NULL, strstr(out, want)) TH_LOG("%s", out);
	EXPECT_EQ(0, mt_run_cmd("mcmgpu cxl show --json", out, sizeof(out)));
	EXPECT_NE(NULL, strstr(out, "\"regions\": 1")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "\"ways\": 4, \"granularity\": 4096, "
			       "\"targets\": [19, 18, 17, 16], \"committed\": true"))
		TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "\"endpoints\": [")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "\"media\": \"")) TH_LOG("%s", out);
	/* One HPA: a flat object; +OFFSET is from the window's base. */
	ASSERT_EQ(0, mt_run_cmd("mcmgpu cxl decode --json +12296", out,
				sizeof(out))) TH_LOG("%s", out);
	snprintf(want, sizeof(want), "{\"hpa\": %llu, \"port\": 0, "
		 "\"port_id\": 16, \"dpa\": 8}", (unsigned long long)hpa);
	EXPECT_NE(NULL, strstr(out, want)) TH_LOG("%s", out);
	/* Interleave sets: two 2-way regions of 512 MiB at 1 KiB. */
	ASSERT_EQ(0, mt_run_cmd("mcmgpu cxl setup --ways 2 --granularity 1K",
				out, sizeof(out))) TH_LOG("%s", out);
	snprintf(out, sizeof(out), "mcmgpu cxl decode 0x%llx 0x%llx",
		 (unsigned long long)MCMGPU_CXL_WINDOW_BASE + 1024 + 4,
		 (unsigned long long)MCMGPU_CXL_WINDOW_BASE + (512ULL << 20) + 64);
	ASSERT_EQ(0, mt_run_cmd(out, out, sizeof(out))) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "port 1 dpa 0x4")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "port 2 dpa 0x40")) TH_LOG("%s", out);
	EXPECT_EQ(0, mt_run_cmd("mcmgpu cxl show", out, sizeof(out)));
	EXPECT_NE(NULL, strstr(out, "2 ways x 1024 B, targets 0x12 0x13, committed"))
		TH_LOG("%s", out);
	EXPECT_EQ(1, mt_run_cmd("mcmgpu cxl setup +0:256M:2:4K:0,1 2>&1", out,
				sizeof(out)));
	EXPECT_NE(NULL, strstr(out, "region 0: size")) TH_LOG("%s", out);
	EXPECT_EQ(2, mt_run_cmd("mcmgpu cxl setup +0:1G:4 2>/dev/null", NULL, 0));
	EXPECT_EQ(0, mt_run_cmd("mcmgpu cxl setup --help", NULL, 0));
}

/* dram_hit_rate is the hits' share of the reads the SSD saw (0: none). */
static void expect_dram_hit_rate(struct __test_metadata *_metadata,
				 const char *json)
{
	double hits = mt_json_number(json, "dram_hits");
	double misses = mt_json_number(json, "dram_misses");
	double rate = mt_json_number(json, "dram_hit_rate");

	EXPECT_TRUE(rate >= 0 && rate <= 1) TH_LOG("%s", json);
	EXPECT_TRUE(__builtin_fabs(rate - (hits + misses ?
					   hits / (hits + misses) : 0)) < 1e-4)
		TH_LOG("%s", json);
}

/*
 * SR/DS replays on the device equal the host core's (the guest's
 * endpoints are DRAM unless MT_CXL_MEDIA says otherwise), and a record
 * the device refuses is named.
 */
TEST_F(cxl, replay_device_equals_host)
{
	static const char *const modes[] = { "--sr off", "--sr sr",
					     "--sr sr --ds", "--sr naive --no-gc" };
	static const struct {
		const char *device, *host;
	} layouts[] = {
		{ "--ways 2 --granularity 1K", "--ways 2 --granularity 1K" },
		{ "+0:512M:2:4K:1,0 +512M:256M:1:256:2",
		  "--region +0:512M:2:4K:1,0 --region +512M:256M:1:256:2" },
	};
	const char *media = getenv("MT_CXL_MEDIA") ? : "dram";
	char cmd[512], dev[8192], host[8192];
	struct mcmgpu_cxl_setup def = { 0 };
	unsigned int i;
	FILE *f;

	ASSERT_EQ(0, setup(self->fd, &def)) TH_LOG("%s", def.error);
	ASSERT_EQ(0, mt_run_cmd("mcmgpu cxl gen bfs --records 20000 --size 65536 "
				"-o /tmp/cxl-bfs.trace", NULL, 0));
	for (i = 0; i < ARRAY_SIZE(modes); i++) {
		snprintf(cmd, sizeof(cmd), "mcmgpu cxl replay --json %s "
			 "/tmp/cxl-bfs.trace", modes[i]);
		ASSERT_EQ(0, mt_run_cmd(cmd, dev, sizeof(dev))) TH_LOG("%s", dev);
		snprintf(cmd, sizeof(cmd), "mcmgpu cxl replay --json --host "
			 "--ports %u --media %s %s /tmp/cxl-bfs.trace",
			 self->info.ports, media, modes[i]);
		ASSERT_EQ(0, mt_run_cmd(cmd, host, sizeof(host)));
		EXPECT_STREQ(host, dev) TH_LOG("%s", modes[i]);
		EXPECT_NE(NULL, strstr(dev, "\"loads\"")) TH_LOG("%s", dev);
		expect_dram_hit_rate(_metadata, dev);
	}
	/* An SSD endpoint: its DRAM sees reads, hits and misses both. */
	snprintf(cmd, sizeof(cmd), "mcmgpu cxl replay --json --host --ports %u "
		 "--media znand --sr off /tmp/cxl-bfs.trace", self->info.ports);
	ASSERT_EQ(0, mt_run_cmd(cmd, host, sizeof(host)));
	EXPECT_LT(0, mt_json_number(host, "dram_hits")) TH_LOG("%s", host);
	EXPECT_LT(0, mt_json_number(host, "dram_misses")) TH_LOG("%s", host);
	expect_dram_hit_rate(_metadata, host);
	/*
	 * Interleaved layouts: the device replays through what it committed,
	 * the host through the same layout named on its command line.
	 */
	for (i = 0; i < ARRAY_SIZE(layouts); i++) {
		snprintf(cmd, sizeof(cmd), "mcmgpu cxl setup %s",
			 layouts[i].device);
		ASSERT_EQ(0, mt_run_cmd(cmd, dev, sizeof(dev))) TH_LOG("%s", dev);
		ASSERT_EQ(0, mt_run_cmd("mcmgpu cxl replay --json --sr sr --ds "
					"/tmp/cxl-bfs.trace", dev, sizeof(dev)))
			TH_LOG("%s", dev);
		snprintf(cmd, sizeof(cmd), "mcmgpu cxl replay --json --host "
			 "--ports %u --media %s --sr sr --ds %s /tmp/cxl-bfs.trace",
			 self->info.ports, media, layouts[i].host);
		ASSERT_EQ(0, mt_run_cmd(cmd, host, sizeof(host))) TH_LOG("%s", cmd);
		EXPECT_STREQ(host, dev) TH_LOG("%s", layouts[i].device);
	}
	ASSERT_EQ(0, setup(self->fd, &def)) TH_LOG("%s", def.error);
	/* An offset no decoder maps, on line 3 of the trace. */
	f = fopen("/tmp/cxl-bad.trace", "w");
	ASSERT_NE(NULL, f);
	fprintf(f, "r 0\nc 5\nw 0x%llx\n",
		(unsigned long long)self->info.window_size * 4);
	fclose(f);
	EXPECT_EQ(1, mt_run_cmd("mcmgpu cxl replay /tmp/cxl-bad.trace 2>&1",
				dev, sizeof(dev)));
	EXPECT_NE(NULL, strstr(dev, "record 3: addr: no decoder maps it"))
		TH_LOG("%s", dev);
}

/*
 * Every ioctl of /dev/mcmgpu_cxl0 with hostile pointers, unknown numbers
 * and bad replays: a clean errno each time, and the layout survives.
 */
TEST_F(cxl, hostile_ioctls)
{
	static const unsigned long cmds[] = {
		MCMGPU_CXL_IOCTL_INFO, MCMGPU_CXL_IOCTL_SETUP,
		MCMGPU_CXL_IOCTL_DECODE, MCMGPU_CXL_IOCTL_REPLAY,
		MCMGPU_CXL_IOCTL_DECODERS,
	};
	static const uintptr_t ptrs[] = {
		0, 1, 0xdead0000, 0xffffffff81000000UL, 0xfffffffffffff000UL,
	};
	struct mcmgpu_cxl_record rec[2] = {
		{ 0, MCMGPU_CXL_REC_LOAD, 0 }, { 3, MCMGPU_CXL_REC_STORE, 0 },
	};
	struct mcmgpu_cxl_sim_result res;
	struct mcmgpu_cxl_replay rp = {
		.records_ptr = (uintptr_t)rec, .count = 2,
		.result_ptr = (uintptr_t)&res,
		.config = { .sr_mode = MCMGPU_CXL_SR_FULL, .ctrl_ns = 80 },
	};
	unsigned int i, j;
	uint64_t dpa;

	for (i = 0; i < ARRAY_SIZE(cmds); i++)
		for (j = 0; j < ARRAY_SIZE(ptrs); j++) {
			EXPECT_EQ(-1, ioctl(self->fd, cmds[i], ptrs[j]));
			EXPECT_EQ(EFAULT, errno) TH_LOG("cmd %u ptr %u", i, j);
		}
	for (i = 0; i < 64; i++) {
		unsigned long nr = _IOC(_IOC_READ | _IOC_WRITE,
					MCMGPU_CXL_IOCTL_MAGIC, 6 + i, 8 * i);

		EXPECT_EQ(-1, ioctl(self->fd, nr, &res));
		EXPECT_EQ(ENOTTY, errno);
	}
	/* A record the device refuses, then a config it refuses. */
	EXPECT_EQ(-1, ioctl(self->fd, MCMGPU_CXL_IOCTL_REPLAY, &rp));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(2, rp.error.index);
	EXPECT_NE(NULL, strstr(rp.error.what, "aligned")) TH_LOG("%s", rp.error.what);
	rec[1].addr = 64;
	rp.config.sr_mode = 77;
	EXPECT_EQ(-1, ioctl(self->fd, MCMGPU_CXL_IOCTL_REPLAY, &rp));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_NE(NULL, strstr(rp.error.what, "sr_mode")) TH_LOG("%s", rp.error.what);
	rp.config.sr_mode = 0;
	rp.config.reserved[1] = 1;
	EXPECT_EQ(-1, ioctl(self->fd, MCMGPU_CXL_IOCTL_REPLAY, &rp));
	EXPECT_EQ(EINVAL, errno);
	rp.config.reserved[1] = 0;
	rp.count = 0;
	EXPECT_EQ(-1, ioctl(self->fd, MCMGPU_CXL_IOCTL_REPLAY, &rp));
	EXPECT_EQ(EINVAL, errno);
	rp.count = 2;
	rp.records_ptr = 0xdead0000;
	EXPECT_EQ(-1, ioctl(self->fd, MCMGPU_CXL_IOCTL_REPLAY, &rp));
	EXPECT_EQ(EFAULT, errno);
	rp.records_ptr = (uintptr_t)rec;
	ASSERT_EQ(0, ioctl(self->fd, MCMGPU_CXL_IOCTL_REPLAY, &rp));
	EXPECT_EQ(1, res.loads);
	EXPECT_EQ(1, res.stores);
	/* The default layout is still there. */
	EXPECT_EQ(1, probe(self->regs, MCMGPU_CXL_WINDOW_BASE +
			   self->info.port[0].capacity, &dpa));
	EXPECT_EQ(0, dpa);
}

/*
 * How the descriptor table copies each ioctl's struct (gpu_rc.ko through
 * mcmgpu.ko's dispatcher): the number is matched whole, size included;
 * SETUP writes back only its error, on success too; a REPLAY that
 * succeeds writes back nothing; DECODE comes back whole; TEARDOWN needs
 * no argument.
 */
TEST_F(cxl, ioctl_table_copies_what_each_ioctl_says)
{
	struct mcmgpu_cxl_setup req = { .nregions = 1 };
	struct mcmgpu_cxl_record rec = { 0, MCMGPU_CXL_REC_LOAD, 0 };
	struct mcmgpu_cxl_sim_result res;
	struct mcmgpu_cxl_replay rp = {
		.records_ptr = (uintptr_t)&rec, .count = 1,
		.result_ptr = (uintptr_t)&res,
		.config = { .sr_mode = MCMGPU_CXL_SR_FULL, .ctrl_ns = 80 },
	};
	struct mcmgpu_cxl_decode dec = { .hpa = MCMGPU_CXL_WINDOW_BASE };
	struct mcmgpu_cxl_info info;

	/* INFO's nr with another size or direction is no ioctl of ours. */
	EXPECT_EQ(-1, ioctl(self->fd, _IOR(MCMGPU_CXL_IOCTL_MAGIC, 0x00,
					   uint64_t), &info));
	EXPECT_EQ(ENOTTY, errno);
	EXPECT_EQ(-1, ioctl(self->fd, _IOC(_IOC_WRITE, MCMGPU_CXL_IOCTL_MAGIC,
					   0x00, sizeof(info)), &info));
	EXPECT_EQ(ENOTTY, errno);

	/* A good layout: the error goes back emptied, the regions as given. */
	req.region[0] = (struct mcmgpu_cxl_region){
		.base = MCMGPU_CXL_WINDOW_BASE,
		.size = self->info.port[0].capacity, .ways = 1,
		.granularity = 256, .ports = { 0 },
	};
	memset(req.error, 'x', sizeof(req.error));
	ASSERT_EQ(0, setup(self->fd, &req)) TH_LOG("%s", req.error);
	EXPECT_EQ('\0', req.error[0]);
	EXPECT_EQ(self->info.port[0].capacity, req.region[0].size);
	/* A bad one: named in the error. */
	req.region[0].ways = 0;
	EXPECT_EQ(-EINVAL, setup(self->fd, &req));
	EXPECT_NE(NULL, strstr(req.error, "ways")) TH_LOG("%s", req.error);

	/* The decode of a mapped address comes back whole. */
	req.region[0].ways = 1;
	ASSERT_EQ(0, setup(self->fd, &req));
	dec.port = 99;
	dec.dpa = ~0ULL;
	ASSERT_EQ(0, ioctl(self->fd, MCMGPU_CXL_IOCTL_DECODE, &dec));
	EXPECT_EQ(0, dec.port);
	EXPECT_EQ(0, dec.dpa);
	EXPECT_EQ(MCMGPU_CXL_WINDOW_BASE, dec.hpa);
	dec.reserved = 1;
	EXPECT_EQ(-1, ioctl(self->fd, MCMGPU_CXL_IOCTL_DECODE, &dec));
	EXPECT_EQ(EINVAL, errno);

	/* A replay that succeeds leaves the caller's error bytes alone. */
	memset(&rp.error, 0x5a, sizeof(rp.error));
	ASSERT_EQ(0, ioctl(self->fd, MCMGPU_CXL_IOCTL_REPLAY, &rp));
	EXPECT_EQ(1, res.loads);
	EXPECT_EQ(0x5a, ((uint8_t *)&rp.error)[0]);
	EXPECT_EQ(0x5a, ((uint8_t *)&rp.error)[sizeof(rp.error) - 1]);

	/* TEARDOWN takes no argument; INFO then sees no region. */
	ASSERT_EQ(0, ioctl(self->fd, MCMGPU_CXL_IOCTL_TEARDOWN, 0));
	ASSERT_EQ(0, ioctl(self->fd, MCMGPU_CXL_IOCTL_INFO, &info));
	EXPECT_EQ(0, info.regions);
}

/* Locked decoders ignore writes until a reset (a module reload here). */
TEST_F(cxl, lock_on_commit)
{
	struct mcmgpu_cxl_setup req = { .flags = MCMGPU_CXL_SETUP_LOCK };
	struct mcmgpu_cxl_info info;
	uint32_t ctrl, was;
	unsigned int reg;

	ASSERT_EQ(0, setup(self->fd, &req)) TH_LOG("%s", req.error);
	ASSERT_EQ(0, ioctl(self->fd, MCMGPU_CXL_IOCTL_INFO, &info));
	EXPECT_EQ(1, info.locked);
	EXPECT_EQ(-1, ioctl(self->fd, MCMGPU_CXL_IOCTL_TEARDOWN));
	EXPECT_EQ(EBUSY, errno);
	memset(&req, 0, sizeof(req));
	EXPECT_EQ(-EBUSY, setup(self->fd, &req));
	ctrl = mt_rd(self->regs, DEC(MCMGPU_CXL_HB_BLOCK, 0, MCMGPU_HDM_CTRL));
	mt_wr(self->regs, DEC(MCMGPU_CXL_HB_BLOCK, 0, MCMGPU_HDM_CTRL), 0);
	mt_wr(self->regs, DEC(MCMGPU_CXL_HB_BLOCK, 0, MCMGPU_HDM_BASE_HI), 0);
	EXPECT_EQ(ctrl, mt_rd(self->regs,
			      DEC(MCMGPU_CXL_HB_BLOCK, 0, MCMGPU_HDM_CTRL)));
	EXPECT_EQ(MCMGPU_CXL_WINDOW_BASE >> 32,
		  mt_rd(self->regs, DEC(MCMGPU_CXL_HB_BLOCK, 0,
					MCMGPU_HDM_BASE_HI)));
	/* Every register of a locked decoder is RO, all-ones included. */
	for (reg = MCMGPU_HDM_BASE_LO; reg < 0x20; reg += 4) {
		was = mt_rd(self->regs, DEC(MCMGPU_CXL_HB_BLOCK, 0, reg));
		mt_wr(self->regs, DEC(MCMGPU_CXL_HB_BLOCK, 0, reg), 0xffffffffU);
		EXPECT_EQ(was, mt_rd(self->regs,
				     DEC(MCMGPU_CXL_HB_BLOCK, 0, reg)));
	}
	/* A device reset (mcmgpu.ko's probe) unlocks. */
	munmap((void *)self->bar4, self->info.aperture_size);
	close(self->bar4_fd);
	mt_unmap_regs(self->regs, self->regs_fd);
	close(self->fd);
	ASSERT_EQ(0, mt_unload_modules());
	ASSERT_EQ(0, mt_load_modules());
	cxl_setup(_metadata, self, NULL);
	EXPECT_EQ(0, self->info.locked);
	memset(&req, 0, sizeof(req));
	EXPECT_EQ(0, setup(self->fd, &req)) TH_LOG("%s", req.error);
}

TEST_HARNESS_MAIN
