// SPDX-License-Identifier: GPL-2.0
/*
 * The GPU's CXL root complex, host side (CXL-GPU paper §II-B; notes
 * cxlgpu.md §1.2, §4, §5.2): find the host bridge and endpoint component
 * blocks through the Register Locator with the kernel's own CXL parsers
 * (cxl_find_regblock, cxl_probe_component_regs, namespace CXL), read each
 * endpoint's capacity and media from its DVSEC, and commit HDM decoder
 * layouts: endpoints first, then the host bridge, each decoder in id order
 * and polled as Linux's CXL core does. A request is checked whole before
 * any register is written.
 */
#include <linux/bitfield.h>
#include <linux/delay.h>
#include <linux/io.h>
#include <linux/math64.h>
#include <linux/slab.h>
#include <linux/sizes.h>

#include "cxl.h"
#include "cxlpci.h"
#include "gpu_rc.h"

#define GPU_RC_COMMIT_POLLS	20	/* 1 ms each, as Linux's CXL core */

static int gpu_rc_map_block(struct gpu_rc *rc, struct gpu_rc_block *blk,
			    int bar, u64 offset)
{
	struct cxl_component_reg_map map;
	u32 cap;

	blk->regs = pci_iomap_range(rc->pdev, bar, offset,
				    MCMGPU_CXL_BLOCK_SIZE);
	if (!blk->regs)
		return -ENOMEM;
	cxl_probe_component_regs(&rc->pdev->dev, blk->regs, &map);
	if (!map.hdm_decoder.valid) {
		dev_err(&rc->aux->adev.dev, "component block at BAR%d+0x%llx has no HDM decoder capability\n",
			bar, offset);
		return -ENODEV;
	}
	blk->hdm = blk->regs + map.hdm_decoder.offset;
	cap = readl(blk->hdm + CXL_HDM_DECODER_CAP_OFFSET);
	blk->decoders = cxl_hdm_decoder_count(cap);
	blk->targets = FIELD_GET(CXL_HDM_DECODER_TARGET_COUNT_MASK, cap);
	return 0;
}

/* The endpoint's DVSEC for CXL devices, in the image of its config space. */
static int gpu_rc_read_endpoint(struct gpu_rc *rc, struct gpu_rc_port *port)
{
	void __iomem *cfg = port->blk.regs + MCMGPU_CXL_EP_CONFIG;
	unsigned int pos = PCI_CFG_SPACE_SIZE, hops = 0;
	u32 hdr;

	while (pos && pos < MCMGPU_CXL_EP_CONFIG_SIZE && hops++ < 64) {
		hdr = readl(cfg + pos);
		if (PCI_EXT_CAP_ID(hdr) == PCI_EXT_CAP_ID_DVSEC &&
		    PCI_DVSEC_HEADER1_VID(readl(cfg + pos + PCI_DVSEC_HEADER1)) ==
		    PCI_DVSEC_VENDOR_ID_CXL &&
		    readw(cfg + pos + PCI_DVSEC_HEADER2) == CXL_DVSEC_PCIE_DEVICE)
			break;
		pos = PCI_EXT_CAP_NEXT(hdr);
	}
	if (!pos || pos >= MCMGPU_CXL_EP_CONFIG_SIZE || hops > 64)
		return -ENODEV;
	port->capacity = (u64)readl(cfg + pos + CXL_DVSEC_RANGE_SIZE_HIGH(0)) << 32 |
		(readl(cfg + pos + CXL_DVSEC_RANGE_SIZE_LOW(0)) &
		 CXL_DVSEC_MEM_SIZE_LOW_MASK);
	port->media = readl(port->blk.regs + MCMGPU_CXL_EP_MEDIA);
	port->id = readl(port->blk.regs + MCMGPU_CXL_EP_PORT_ID);
	return 0;
}

int gpu_rc_discover(struct gpu_rc *rc)
{
	struct device *dev = &rc->aux->adev.dev;
	struct cxl_register_map map;
	u32 len, lo, hi;
	int loc, ret;
	unsigned int i;

	/* The host bridge: the first component block the locator lists. */
	ret = cxl_find_regblock(rc->pdev, CXL_REGLOC_RBI_COMPONENT, &map);
	if (ret) {
		dev_err(dev, "no CXL component registers in the Register Locator (%d)\n",
			ret);
		return ret;
	}
	ret = gpu_rc_map_block(rc, &rc->hb, map.barno, map.block_offset);
	if (ret)
		return ret;

	rc->ports = readl(rc->aux->window + MCMGPU_CXL_REG_PORTS);
	rc->window_base = readl(rc->aux->window + MCMGPU_CXL_REG_WINDOW_BASE_LO) |
		(u64)readl(rc->aux->window + MCMGPU_CXL_REG_WINDOW_BASE_HI) << 32;
	rc->window_size = readl(rc->aux->window + MCMGPU_CXL_REG_WINDOW_SIZE_LO) |
		(u64)readl(rc->aux->window + MCMGPU_CXL_REG_WINDOW_SIZE_HI) << 32;
	rc->aperture_size = pci_resource_len(rc->pdev, MCMGPU_BAR_CXL);

	/* The endpoints: the blocks after it, one per root port. */
	loc = pci_find_dvsec_capability(rc->pdev, PCI_DVSEC_VENDOR_ID_CXL,
					CXL_DVSEC_REG_LOCATOR);
	pci_read_config_dword(rc->pdev, loc + PCI_DVSEC_HEADER1, &len);
	len = FIELD_GET(PCI_DVSEC_HEADER1_LENGTH_MASK, len);
	if (!rc->ports || rc->ports > MCMGPU_CXL_MAX_PORTS ||
	    (len - CXL_DVSEC_REG_LOCATOR_BLOCK1_OFFSET) / 8 != rc->ports + 1 ||
	    rc->hb.targets != rc->ports) {
		dev_err(dev, "%u root ports, but the locator has %u blocks and the host bridge %u targets\n",
			rc->ports, (len - CXL_DVSEC_REG_LOCATOR_BLOCK1_OFFSET) / 8,
			rc->hb.targets);
		return -ENODEV;
	}
	for (i = 0; i < rc->ports; i++) {
		struct gpu_rc_port *port = &rc->port[i];
		int at = loc + CXL_DVSEC_REG_LOCATOR_BLOCK1_OFFSET + 8 * (i + 1);

		pci_read_config_dword(rc->pdev, at, &lo);
		pci_read_config_dword(rc->pdev, at + 4, &hi);
		if (FIELD_GET(CXL_DVSEC_REG_LOCATOR_BLOCK_ID_MASK, lo) !=
		    CXL_REGLOC_RBI_COMPONENT)
			return -ENODEV;
		ret = gpu_rc_map_block(rc, &port->blk,
				       FIELD_GET(CXL_DVSEC_REG_LOCATOR_BIR_MASK, lo),
				       (u64)hi << 32 |
				       (lo & CXL_DVSEC_REG_LOCATOR_BLOCK_OFF_LOW_MASK));
		if (!ret)
			ret = gpu_rc_read_endpoint(rc, port);
		if (ret) {
			dev_err(dev, "endpoint behind root port %u: %d\n", i, ret);
			return ret;
		}
	}
	return 0;
}

void gpu_rc_unmap(struct gpu_rc *rc)
{
	unsigned int i;

	if (rc->hb.regs)
		pci_iounmap(rc->pdev, rc->hb.regs);
	for (i = 0; i < rc->ports; i++)
		if (rc->port[i].blk.regs)
			pci_iounmap(rc->pdev, rc->port[i].blk.regs);
}

/* ---- Checking a layout ------------------------------------------------- */

#define bad(fmt, ...) ({ snprintf(error, len, fmt, ##__VA_ARGS__); -EINVAL; })

static int gpu_rc_check(const struct gpu_rc *rc,
			const struct mcmgpu_cxl_setup *req, char *error,
			size_t len)
{
	u64 end = rc->window_base, dpa[MCMGPU_CXL_MAX_PORTS] = { 0 };
	unsigned int used[MCMGPU_CXL_MAX_PORTS] = { 0 };
	unsigned int i, k, j;
	u16 ig;
	u8 iw;

	if (req->flags & ~MCMGPU_CXL_SETUP_LOCK)
		return bad("flags: unknown bits 0x%x", req->flags);
	/* req->region[] has MAX_REGIONS; a device may report more decoders. */
	if (req->nregions > min_t(unsigned int, rc->hb.decoders,
				  MCMGPU_CXL_MAX_REGIONS))
		return bad("nregions: %u, above %u (host bridge decoders %u)",
			   req->nregions, min_t(unsigned int, rc->hb.decoders,
						MCMGPU_CXL_MAX_REGIONS),
			   rc->hb.decoders);
	for (i = 0; i < req->nregions; i++) {
		const struct mcmgpu_cxl_region *r = &req->region[i];

		if (ways_to_cxl(r->ways, &iw) || !is_power_of_2(r->ways) ||
		    r->ways > rc->hb.targets)
			return bad("region %u: ways: %u is not 1, 2, 4 or 8 up to Target Count %u",
				   i, r->ways, rc->hb.targets);
		if (granularity_to_cxl(r->granularity, &ig))
			return bad("region %u: granularity: %u is not a power of 2 in 256..16384",
				   i, r->granularity);
		if (r->base % SZ_256M)
			return bad("region %u: base: 0x%llx is not 256 MiB aligned",
				   i, r->base);
		if (!r->size || r->size % (SZ_256M * (u64)r->ways))
			return bad("region %u: size: 0x%llx is not a multiple of 256 MiB x %u ways",
				   i, r->size, r->ways);
		if (r->base < end || r->base - rc->window_base >= rc->window_size ||
		    r->size > rc->window_size - (r->base - rc->window_base))
			return bad("region %u: base: 0x%llx+0x%llx outside the window or below",
				   i, r->base, r->size);
		end = r->base + r->size;
		for (k = 0; k < r->ways; k++) {
			unsigned int p = r->ports[k];

			if (p >= rc->ports)
				return bad("region %u: ports[%u]: %u is not a root port (0..%u)",
					   i, k, p, rc->ports - 1);
			for (j = 0; j < k; j++)
				if (r->ports[j] == p)
					return bad("region %u: ports[%u]: port %u twice",
						   i, k, p);
			dpa[p] += div_u64(r->size, r->ways);
			if (++used[p] > rc->port[p].blk.decoders)
				return bad("region %u: ports[%u]: port %u has %u decoders",
					   i, k, p, rc->port[p].blk.decoders);
			if (dpa[p] > rc->port[p].capacity)
				return bad("region %u: size: port %u holds 0x%llx, asked 0x%llx",
					   i, p, rc->port[p].capacity, dpa[p]);
		}
	}
	return 0;
}

#undef bad

/* ---- Programming decoders ---------------------------------------------- */

static void gpu_rc_write_decoder(void __iomem *hdm, unsigned int n, u64 base,
				 u64 size, u64 target)
{
	writel(lower_32_bits(base), hdm + CXL_HDM_DECODER0_BASE_LOW_OFFSET(n));
	writel(upper_32_bits(base), hdm + CXL_HDM_DECODER0_BASE_HIGH_OFFSET(n));
	writel(lower_32_bits(size), hdm + CXL_HDM_DECODER0_SIZE_LOW_OFFSET(n));
	writel(upper_32_bits(size), hdm + CXL_HDM_DECODER0_SIZE_HIGH_OFFSET(n));
	writel(lower_32_bits(target), hdm + CXL_HDM_DECODER0_TL_LOW(n));
	writel(upper_32_bits(target), hdm + CXL_HDM_DECODER0_TL_HIGH(n));
}

static void gpu_rc_reset_decoder(void __iomem *hdm, unsigned int n)
{
	writel(0, hdm + CXL_HDM_DECODER0_CTRL_OFFSET(n));
	gpu_rc_write_decoder(hdm, n, 0, 0, 0);
}

/*
 * Commit decoder n and poll for the device's answer (spec: 10 ms). On a
 * refusal or no answer the decoder is cleared, so teardown finds nothing.
 */
static int gpu_rc_commit(struct gpu_rc *rc, void __iomem *hdm, unsigned int n,
			 u32 ctrl)
{
	int i;

	ctrl |= CXL_HDM_DECODER0_CTRL_COMMIT;
	writel(ctrl, hdm + CXL_HDM_DECODER0_CTRL_OFFSET(n));
	for (i = 0; i <= GPU_RC_COMMIT_POLLS; i++) {
		u32 now = readl(hdm + CXL_HDM_DECODER0_CTRL_OFFSET(n));

		if (now & CXL_HDM_DECODER0_CTRL_COMMIT_ERROR) {
			gpu_rc_reset_decoder(hdm, n);
			return -EIO;
		}
		if (now & CXL_HDM_DECODER0_CTRL_COMMITTED)
			return 0;
		if (i < GPU_RC_COMMIT_POLLS)
			usleep_range(1000, 1100);
	}
	/* Clearing Commit cancels the device's check: nothing half-set stays. */
	gpu_rc_reset_decoder(hdm, n);
	return -ETIMEDOUT;
}

static bool gpu_rc_block_locked(const struct gpu_rc_block *blk)
{
	u32 both = CXL_HDM_DECODER0_CTRL_LOCK | CXL_HDM_DECODER0_CTRL_COMMITTED;
	unsigned int n;

	for (n = 0; n < blk->decoders; n++)
		if ((readl(blk->hdm + CXL_HDM_DECODER0_CTRL_OFFSET(n)) & both) == both)
			return true;
	return false;
}

/* Locked decoders ignore writes until a reset: ask the registers. */
static bool gpu_rc_locked(struct gpu_rc *rc)
{
	unsigned int p;
	bool locked = gpu_rc_block_locked(&rc->hb);

	for (p = 0; p < rc->ports; p++)
		locked |= gpu_rc_block_locked(&rc->port[p].blk);
	rc->locked = locked;
	return locked;
}

/* Every decoder with Commit set, host bridge first, newest first. */
int gpu_rc_teardown(struct gpu_rc *rc)
{
	unsigned int p;
	int n;

	if (gpu_rc_locked(rc))
		return -EBUSY;
	for (n = rc->hb.decoders - 1; n >= 0; n--)
		if (readl(rc->hb.hdm + CXL_HDM_DECODER0_CTRL_OFFSET(n)) &
		    CXL_HDM_DECODER0_CTRL_COMMIT)
			gpu_rc_reset_decoder(rc->hb.hdm, n);
	for (p = 0; p < rc->ports; p++) {
		struct gpu_rc_port *port = &rc->port[p];

		for (n = port->blk.decoders - 1; n >= 0; n--)
			if (readl(port->blk.hdm + CXL_HDM_DECODER0_CTRL_OFFSET(n)) &
			    CXL_HDM_DECODER0_CTRL_COMMIT)
				gpu_rc_reset_decoder(port->blk.hdm, n);
		port->committed = 0;
	}
	rc->regions = 0;
	return 0;
}

/* One 1-way region per root port, ascending: the paper's setup. */
static void gpu_rc_default_layout(const struct gpu_rc *rc,
				  struct mcmgpu_cxl_setup *req)
{
	u64 base = rc->window_base;
	unsigned int p;

	req->nregions = rc->ports;
	for (p = 0; p < rc->ports; p++) {
		req->region[p] = (struct mcmgpu_cxl_region) {
			.base = base, .size = rc->port[p].capacity, .ways = 1,
			.granularity = 256, .ports = { p },
		};
		base += rc->port[p].capacity;
	}
}

/* The Control bits of a region's decoders (checked: the encodings exist). */
static u32 gpu_rc_region_ctrl(const struct mcmgpu_cxl_region *r, u32 lock)
{
	u16 ig = 0;
	u8 iw = 0;

	granularity_to_cxl(r->granularity, &ig);
	ways_to_cxl(r->ways, &iw);
	return FIELD_PREP(CXL_HDM_DECODER0_CTRL_IG_MASK, ig) |
		FIELD_PREP(CXL_HDM_DECODER0_CTRL_IW_MASK, iw) |
		CXL_HDM_DECODER0_CTRL_TYPE | lock;
}

static const char *gpu_rc_commit_error(int ret)
{
	return ret == -EIO ? "the device refused the commit" :
		"no answer to the commit in 20 ms";
}

static int gpu_rc_program(struct gpu_rc *rc, const struct mcmgpu_cxl_setup *req,
			  char *error, size_t len)
{
	u32 lock = req->flags & MCMGPU_CXL_SETUP_LOCK ?
		CXL_HDM_DECODER0_CTRL_LOCK : 0;
	unsigned int i, k, p;
	int ret;

	for (p = 0; p < rc->ports; p++)
		writel(CXL_HDM_DECODER_ENABLE,
		       rc->port[p].blk.hdm + CXL_HDM_DECODER_CTRL_OFFSET);
	/* Endpoints first: a host bridge decoder never routes to nothing. */
	for (i = 0; i < req->nregions; i++) {
		const struct mcmgpu_cxl_region *r = &req->region[i];

		for (k = 0; k < r->ways; k++) {
			struct gpu_rc_port *port = &rc->port[r->ports[k]];
			unsigned int n = port->committed;

			gpu_rc_write_decoder(port->blk.hdm, n, r->base, r->size, 0);
			ret = gpu_rc_commit(rc, port->blk.hdm, n,
					    gpu_rc_region_ctrl(r, lock));
			if (ret) {
				snprintf(error, len, "region %u: port %u's endpoint decoder %u: %s",
					 i, r->ports[k], n, gpu_rc_commit_error(ret));
				return ret;
			}
			port->committed++;
		}
	}
	for (i = 0; i < req->nregions; i++) {
		const struct mcmgpu_cxl_region *r = &req->region[i];
		u64 targets = 0;

		for (k = 0; k < r->ways; k++)
			targets |= (u64)rc->port[r->ports[k]].id << (8 * k);
		gpu_rc_write_decoder(rc->hb.hdm, i, r->base, r->size, targets);
		ret = gpu_rc_commit(rc, rc->hb.hdm, i, gpu_rc_region_ctrl(r, lock));
		if (ret) {
			snprintf(error, len, "region %u: host bridge decoder %u: %s",
				 i, i, gpu_rc_commit_error(ret));
			return ret;
		}
		rc->regions++;
	}
	return 0;
}

int gpu_rc_setup(struct gpu_rc *rc, const struct mcmgpu_cxl_setup *req,
		 char *error, size_t len)
{
	struct mcmgpu_cxl_setup def, *old;
	int ret;

	if (!req->nregions) {
		def = *req;
		gpu_rc_default_layout(rc, &def);
		req = &def;
	}
	ret = gpu_rc_check(rc, req, error, len);
	if (ret)
		return ret;
	old = kzalloc(sizeof(*old), GFP_KERNEL);
	if (!old)
		return -ENOMEM;
	old->nregions = rc->regions;
	memcpy(old->region, rc->layout, sizeof(old->region));
	ret = gpu_rc_teardown(rc);
	if (ret) {
		snprintf(error, len, "the current decoders are locked until a reset");
		goto out;
	}
	/* Decode follows the host bridge decoders as they commit. */
	memcpy(rc->layout, req->region, sizeof(rc->layout));
	ret = gpu_rc_program(rc, req, error, len);
	if (ret && !gpu_rc_teardown(rc) && old->nregions) {
		char again[64];

		/* The new layout rolled back; the old one (unlocked) comes back. */
		memcpy(rc->layout, old->region, sizeof(rc->layout));
		if (gpu_rc_program(rc, old, again, sizeof(again))) {
			dev_warn(&rc->pdev->dev,
				 "the previous CXL layout did not come back (%s); none is set up\n",
				 again);
			gpu_rc_teardown(rc);
		}
	}
	gpu_rc_locked(rc);
out:
	kfree(old);
	return ret;
}
