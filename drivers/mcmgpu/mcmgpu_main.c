// SPDX-License-Identifier: GPL-2.0
/*
 * mcmgpu PCI driver: binds the emulated multi-chiplet GPU, sets up the
 * command ring and MSI-X, exposes /dev/mcmgpuN and creates the auxiliary
 * devices the Barre IOMMU and the CXL root-complex drivers bind to.
 *
 * The top of the driver's files: the one place that names every engine.
 * The core below (mcmgpu_engine.c, mcmgpu_ring.c, mcmgpu_chardev.c,
 * mcmgpu_aux.c) reaches a mechanism only through its engine, and
 * tools/scripts/file-graph.py checks that no file calls back up.
 */
#include <linux/bitfield.h>
#include <linux/dma-mapping.h>
#include <linux/interrupt.h>
#include <linux/io.h>
#include <linux/module.h>
#include <linux/pci.h>

#include "mcmgpu.h"

/*
 * The device's mechanisms; adding one is its file and a line here. Order
 * matters: a hook runs engine by engine, and ADSM's objects are mem's.
 */
static const struct mcmgpu_engine *const mcmgpu_engines[] = {
	&mcmgpu_dma_engine,
	&mcmgpu_finepack_engine,
	&mcmgpu_cpelide_engine,
	&mcmgpu_mem_engine,
	&mcmgpu_barre_engine,
	&mcmgpu_adsm_engine,
	&mcmgpu_gpu_engine,
};

static void mcmgpu_put_action(void *data)
{
	mcmgpu_device_put(data);
}

static int mcmgpu_read_identity(struct mcmgpu_device *mdev)
{
	struct device *dev = &mdev->pdev->dev;
	void __iomem *r = mdev->regs;
	u32 ident = readl(r + MCMGPU_REG_IDENT);

	if (ident != MCMGPU_IDENT_MAGIC) {
		dev_err(dev, "bad identity register %#x (want %#x)\n",
			ident, MCMGPU_IDENT_MAGIC);
		return -ENODEV;
	}
	mdev->hw_version = readl(r + MCMGPU_REG_VERSION);
	if (FIELD_GET(MCMGPU_VERSION_MAJOR_MASK, mdev->hw_version) !=
	    MCMGPU_HW_VERSION_MAJOR) {
		dev_err(dev, "unsupported hardware version %#x\n",
			mdev->hw_version);
		return -ENODEV;
	}
	mdev->features = readl(r + MCMGPU_REG_FEATURES);
	mdev->contexts = readl(r + MCMGPU_REG_CONTEXTS);
	if (mdev->features & MCMGPU_FEAT_ADSM) {
		mdev->adsm_dma_setup = readl(r + MCMGPU_REG_ADSM_DMA_SETUP);
		mdev->adsm_dma_bw = readl(r + MCMGPU_REG_ADSM_DMA_BW);
	}
	mdev->orphans = devm_bitmap_zalloc(dev, mdev->contexts + 1, GFP_KERNEL);
	if (!mdev->orphans)
		return -ENOMEM;
	mdev->chiplets = readl(r + MCMGPU_REG_CHIPLETS);
	mdev->vram_per_chiplet = readl(r + MCMGPU_REG_VRAM_PER_CHIPLET_LO) |
		(u64)readl(r + MCMGPU_REG_VRAM_PER_CHIPLET_HI) << 32;
	if (mdev->chiplets < MCMGPU_MIN_CHIPLETS ||
	    mdev->chiplets > MCMGPU_MAX_CHIPLETS || !mdev->vram_per_chiplet) {
		dev_err(dev, "bad geometry: %u chiplets of %llu bytes\n",
			mdev->chiplets, mdev->vram_per_chiplet);
		return -ENODEV;
	}
	if (pci_resource_len(mdev->pdev, MCMGPU_BAR_VRAM) < mcmgpu_vram_total(mdev)) {
		dev_err(dev, "BAR%d smaller than the chiplet memories\n",
			MCMGPU_BAR_VRAM);
		return -ENODEV;
	}
	return mcmgpu_engines_dev_init(mdev);
}

static int mcmgpu_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	struct device *dev = &pdev->dev;
	struct mcmgpu_device *mdev;
	int ret;

	mdev = mcmgpu_device_create(pdev, mcmgpu_engines,
				    ARRAY_SIZE(mcmgpu_engines));
	if (IS_ERR(mdev))
		return PTR_ERR(mdev);
	/* Runs after every devm resource below is released, IRQ included. */
	ret = devm_add_action_or_reset(dev, mcmgpu_put_action, mdev);
	if (ret)
		return ret;
	pci_set_drvdata(pdev, mdev);

	ret = pcim_enable_device(pdev);
	if (ret)
		return dev_err_probe(dev, ret, "cannot enable the device\n");
	ret = pcim_iomap_regions(pdev, BIT(MCMGPU_BAR_REGS), KBUILD_MODNAME);
	if (ret)
		return dev_err_probe(dev, ret, "cannot map BAR%d\n",
				     MCMGPU_BAR_REGS);
	mdev->regs = pcim_iomap_table(pdev)[MCMGPU_BAR_REGS];
	ret = mcmgpu_read_identity(mdev);
	if (ret)
		return ret;

	ret = dma_set_mask_and_coherent(dev, DMA_BIT_MASK(64));
	if (ret)
		return dev_err_probe(dev, ret, "no usable DMA mask\n");
	pci_set_master(pdev);

	ret = pci_alloc_irq_vectors(pdev, MCMGPU_MSIX_VECTORS,
				    MCMGPU_MSIX_VECTORS, PCI_IRQ_MSIX);
	if (ret < 0)
		return dev_err_probe(dev, ret, "cannot allocate MSI-X vectors\n");
	ret = devm_request_irq(dev, pci_irq_vector(pdev, MCMGPU_MSIX_VEC_CMD),
			       mcmgpu_irq, 0, KBUILD_MODNAME, mdev);
	if (ret)
		return dev_err_probe(dev, ret, "cannot request the IRQ\n");

	ret = mcmgpu_ring_init(mdev);
	if (ret)
		goto err_stop;
	ret = mcmgpu_aux_create(mdev);
	if (ret)
		goto err_stop;
	/* Last: once the node exists, files can outlive a failed probe. */
	ret = mcmgpu_chardev_register(mdev);
	if (ret)
		goto err_aux;

	dev_info(dev, "%s: %u chiplets x %llu MiB, hw version %u.%u\n",
		 mdev->name, mdev->chiplets, mdev->vram_per_chiplet >> 20,
		 mdev->hw_version >> 16, mdev->hw_version & 0xffff);
	return 0;

err_aux:
	mcmgpu_aux_destroy(mdev);
err_stop:
	mcmgpu_ring_stop(mdev, MCMGPU_RESET_DEVICE);
	return ret;
}

static void mcmgpu_remove(struct pci_dev *pdev)
{
	struct mcmgpu_device *mdev = pci_get_drvdata(pdev);

	mcmgpu_aux_destroy(mdev);
	mcmgpu_chardev_unregister(mdev);
	/* Wait for running ioctls; later ones see 'removed' and fail. */
	down_write(&mdev->remove_lock);
	mdev->removed = true;
	up_write(&mdev->remove_lock);
	mcmgpu_ring_stop(mdev, MCMGPU_RESET_DEVICE);
	/* devm frees the IRQ and memory, then drops the probe reference. */
}

static const struct pci_device_id mcmgpu_pci_ids[] = {
	{ PCI_DEVICE(MCMGPU_PCI_VENDOR_ID, MCMGPU_PCI_DEVICE_ID) },
	{ }
};
MODULE_DEVICE_TABLE(pci, mcmgpu_pci_ids);

static struct pci_driver mcmgpu_pci_driver = {
	.name = KBUILD_MODNAME,
	.id_table = mcmgpu_pci_ids,
	.probe = mcmgpu_probe,
	.remove = mcmgpu_remove,
};
module_pci_driver(mcmgpu_pci_driver);

MODULE_DESCRIPTION("mcmgpu multi-chiplet GPU research device driver");
MODULE_LICENSE("GPL");
