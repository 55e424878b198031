// SPDX-License-Identifier: GPL-2.0
/*
 * GPU-side CXL root complex: binds the "mcmgpu.cxl_rc" auxiliary device,
 * finds the host bridge and the endpoints behind its root ports
 * (gpu_rc_hdm.c) and, like the paper's firmware core at start-up, maps
 * each endpoint's memory into the CXL window with one 1-way region per
 * root port. /dev/mcmgpu_cxlN reports the topology and replaces the
 * layout (interleaved regions too); debugfs shows every decoder.
 */
#include <linux/auxiliary_bus.h>
#include <linux/bitfield.h>
#include <linux/debugfs.h>
#include <linux/dma-mapping.h>
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "cxl.h"
#include "gpu_rc.h"
#include "mcmgpu_aux_debugfs.h"
#include "mcmgpu_ioctl_desc.h"

static bool lock;
module_param(lock, bool, 0444);
MODULE_PARM_DESC(lock, "Lock On Commit for the layout set up at probe");

static bool default_layout = true;
module_param(default_layout, bool, 0444);
MODULE_PARM_DESC(default_layout, "Map every endpoint at probe (default: yes)");

/* ---- /dev/mcmgpu_cxlN -------------------------------------------------- */

static void gpu_rc_free(struct kref *ref)
{
	kfree(container_of(ref, struct gpu_rc, ref));
}

static int gpu_rc_ioctl_info(void *owner, void *arg, u32 usize)
{
	struct mcmgpu_cxl_info *info = arg;
	struct gpu_rc *rc = owner;
	unsigned int p;

	mutex_lock(&rc->lock);
	info->ports = rc->ports;
	info->regions = rc->regions;
	info->hb_decoders = rc->hb.decoders;
	info->ep_decoders = rc->ports ? rc->port[0].blk.decoders : 0;
	info->window_base = rc->window_base;
	info->window_size = rc->window_size;
	info->aperture_size = rc->aperture_size;
	info->locked = rc->locked;
	for (p = 0; p < rc->ports; p++) {
		info->port[p].id = rc->port[p].id;
		info->port[p].media = rc->port[p].media;
		info->port[p].decoders = rc->port[p].committed;
		info->port[p].capacity = rc->port[p].capacity;
	}
	mutex_unlock(&rc->lock);
	return 0;
}

static void gpu_rc_read_decoder(const struct gpu_rc_block *blk, unsigned int n,
				bool hb, struct mcmgpu_cxl_decoder *d)
{
	void __iomem *h = blk->hdm;
	u64 tl = readl(h + CXL_HDM_DECODER0_TL_LOW(n)) |
		(u64)readl(h + CXL_HDM_DECODER0_TL_HIGH(n)) << 32;
	unsigned int ways = 0, gran = 0, k;

	d->base = readl(h + CXL_HDM_DECODER0_BASE_LOW_OFFSET(n)) |
		(u64)readl(h + CXL_HDM_DECODER0_BASE_HIGH_OFFSET(n)) << 32;
	d->size = readl(h + CXL_HDM_DECODER0_SIZE_LOW_OFFSET(n)) |
		(u64)readl(h + CXL_HDM_DECODER0_SIZE_HIGH_OFFSET(n)) << 32;
	d->ctrl = readl(h + CXL_HDM_DECODER0_CTRL_OFFSET(n));
	if (!cxl_to_ways(FIELD_GET(CXL_HDM_DECODER0_CTRL_IW_MASK, d->ctrl), &ways))
		d->ways = ways;
	if (!cxl_to_granularity(FIELD_GET(CXL_HDM_DECODER0_CTRL_IG_MASK, d->ctrl),
				&gran))
		d->granularity = gran;
	for (k = 0; hb && k < 8; k++)
		d->targets[k] = tl >> (8 * k);
	d->skip = hb ? 0 : tl;
	d->committed = !!(d->ctrl & CXL_HDM_DECODER0_CTRL_COMMITTED);
	d->error = !!(d->ctrl & CXL_HDM_DECODER0_CTRL_COMMIT_ERROR);
	d->locked = d->committed && (d->ctrl & CXL_HDM_DECODER0_CTRL_LOCK);
}

static int gpu_rc_ioctl_decoders(void *owner, void *arg, u32 usize)
{
	struct mcmgpu_cxl_decoders *all = arg;
	struct gpu_rc *rc = owner;
	unsigned int p, n;

	mutex_lock(&rc->lock);
	for (n = 0; n < rc->hb.decoders && n < MCMGPU_CXL_HB_DECODERS; n++)
		gpu_rc_read_decoder(&rc->hb, n, true, &all->hb[n]);
	for (p = 0; p < rc->ports; p++)
		for (n = 0; n < rc->port[p].blk.decoders &&
		     n < MCMGPU_CXL_EP_DECODERS; n++)
			gpu_rc_read_decoder(&rc->port[p].blk, n, false,
					    &all->ep[p][n]);
	mutex_unlock(&rc->lock);
	return 0;
}

/* The device's own decode of hpa, through its probe registers. */
static int gpu_rc_ioctl_decode(void *owner, void *arg, u32 usize)
{
	struct mcmgpu_cxl_decode *dec = arg;
	struct gpu_rc *rc = owner;
	void __iomem *w = rc->aux->window;

	if (dec->reserved)
		return -EINVAL;
	mutex_lock(&rc->lock);
	writel(lower_32_bits(dec->hpa), w + MCMGPU_CXL_REG_PROBE_HPA_LO);
	writel(upper_32_bits(dec->hpa), w + MCMGPU_CXL_REG_PROBE_HPA_HI);
	dec->port = readl(w + MCMGPU_CXL_REG_PROBE_PORT);
	dec->dpa = readl(w + MCMGPU_CXL_REG_PROBE_DPA_LO) |
		(u64)readl(w + MCMGPU_CXL_REG_PROBE_DPA_HI) << 32;
	mutex_unlock(&rc->lock);
	return 0;
}

static int gpu_rc_ioctl_setup(void *owner, void *arg, u32 usize)
{
	struct mcmgpu_cxl_setup *req = arg;
	struct gpu_rc *rc = owner;
	int ret;

	memset(req->error, 0, sizeof(req->error));
	mutex_lock(&rc->lock);
	ret = gpu_rc_setup(rc, req, req->error, sizeof(req->error));
	mutex_unlock(&rc->lock);
	if (ret)
		dev_dbg(&rc->aux->adev.dev, "setup: %s\n", req->error);
	return ret;
}

/*
 * Records go to the device a bounce buffer at a time, then one replay. A
 * refused record is named in req->error, which goes back on a failure.
 */
static int gpu_rc_ioctl_replay(void *owner, void *arg, u32 usize)
{
	const size_t chunk = MCMGPU_CXL_LOAD_MAX * sizeof(struct mcmgpu_cxl_record);
	struct gpu_rc *rc = owner;
	struct device *dma = rc->aux->adev.dev.parent;
	struct mcmgpu_cxl_replay_out *res;
	struct mcmgpu_cxl_replay *req = arg;
	struct mcmgpu_aux_cmd cmd = { };
	dma_addr_t bus;
	u64 done = 0;
	void *buf;
	int ret;

	if (!req->count || req->count > MCMGPU_CXL_MAX_RECORDS)
		return -EINVAL;
	buf = dma_alloc_coherent(dma, chunk + PAGE_SIZE, &bus, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	mutex_lock(&rc->replay_lock);
	while (done < req->count) {
		u64 n = min_t(u64, req->count - done, MCMGPU_CXL_LOAD_MAX);
		const void __user *from = u64_to_user_ptr(req->records_ptr) +
			done * sizeof(struct mcmgpu_cxl_record);

		if (copy_from_user(buf, from, n * sizeof(struct mcmgpu_cxl_record))) {
			ret = -EFAULT;
			goto out;
		}
		cmd = (struct mcmgpu_aux_cmd) {
			.opcode = MCMGPU_OP_CXL_LOAD,
			.flags = done ? 0 : MCMGPU_CXL_LOAD_FIRST,
			.args = { bus, n },
		};
		ret = rc->aux->ops->submit(rc->aux, &cmd);
		if (!ret)
			ret = mcmgpu_status_errno(cmd.status);
		if (ret)
			goto out;
		done += n;
	}
	/* The configuration, then the answer, in the buffer's last page. */
	memcpy(buf + chunk, &req->config, sizeof(req->config));
	res = buf + chunk + sizeof(req->config);
	memset(res, 0, sizeof(*res));
	cmd = (struct mcmgpu_aux_cmd) {
		.opcode = MCMGPU_OP_CXL_REPLAY,
		.args = { bus + chunk, bus + chunk + sizeof(req->config) },
	};
	ret = rc->aux->ops->submit(rc->aux, &cmd);
	if (!ret)
		ret = mcmgpu_status_errno(cmd.status);
	if (cmd.status == MCMGPU_CMPL_BAD_TRACE)
		req->error = res->error;
	if (!ret && copy_to_user(u64_to_user_ptr(req->result_ptr), &res->result,
				 sizeof(res->result)))
		ret = -EFAULT;
out:
	mutex_unlock(&rc->replay_lock);
	dma_free_coherent(dma, chunk + PAGE_SIZE, buf, bus);
	return ret;
}

static int gpu_rc_ioctl_teardown(void *owner, void *arg, u32 usize)
{
	struct gpu_rc *rc = owner;
	int ret;

	mutex_lock(&rc->lock);
	ret = gpu_rc_teardown(rc);
	mutex_unlock(&rc->lock);
	return ret;
}

static const struct mcmgpu_ioctl_desc gpu_rc_ioctls[] = {
	MCMGPU_IOCTL_DEF_FIXED(MCMGPU_CXL_IOCTL_INFO, gpu_rc_ioctl_info,
			       MCMGPU_IOCTL_OUT),
	{	/* The error goes back whatever the outcome. */
		.cmd = MCMGPU_CXL_IOCTL_SETUP,
		.name = "MCMGPU_CXL_IOCTL_SETUP",
		.handler = gpu_rc_ioctl_setup,
		.flags = MCMGPU_IOCTL_OUT | MCMGPU_IOCTL_OUT_ERROR,
		.out_off = offsetof(struct mcmgpu_cxl_setup, error),
		.out_len = sizeof_field(struct mcmgpu_cxl_setup, error),
	},
	MCMGPU_IOCTL_DEF_FIXED(MCMGPU_CXL_IOCTL_DECODE, gpu_rc_ioctl_decode,
			       MCMGPU_IOCTL_OUT),
	MCMGPU_IOCTL_DEF_FIXED(MCMGPU_CXL_IOCTL_TEARDOWN, gpu_rc_ioctl_teardown,
			       0),
	{	/* Only the refused record comes back, and only on a failure. */
		.cmd = MCMGPU_CXL_IOCTL_REPLAY,
		.name = "MCMGPU_CXL_IOCTL_REPLAY",
		.handler = gpu_rc_ioctl_replay,
		.flags = MCMGPU_IOCTL_OUT_ERROR,
		.out_off = offsetof(struct mcmgpu_cxl_replay, error),
		.out_len = sizeof_field(struct mcmgpu_cxl_replay, error),
	},
	MCMGPU_IOCTL_DEF_FIXED(MCMGPU_CXL_IOCTL_DECODERS, gpu_rc_ioctl_decoders,
			       MCMGPU_IOCTL_OUT),
};

static struct gpu_rc *file_to_rc(struct file *file)
{
	return container_of(file->private_data, struct gpu_rc, misc);
}

/* misc_open holds misc_mtx, so gpu_rc_remove's misc_deregister waits. */
static int gpu_rc_open(struct inode *inode, struct file *file)
{
	kref_get(&file_to_rc(file)->ref);
	return 0;
}

static int gpu_rc_release(struct inode *inode, struct file *file)
{
	kref_put(&file_to_rc(file)->ref, gpu_rc_free);
	return 0;
}

/*
 * A file may outlive the device (an unbind with the file open): then
 * every ioctl gets ENODEV before anything else, and no register or aux
 * call is touched, since both went with the device.
 */
static long gpu_rc_ioctl(struct file *file, unsigned int cmd,
			 unsigned long arg)
{
	struct gpu_rc *rc = file_to_rc(file);
	long ret;

	down_read(&rc->remove_lock);
	ret = rc->removed ? -ENODEV :
		mcmgpu_ioctl_call(mcmgpu_ioctl_lookup(gpu_rc_ioctls,
						      ARRAY_SIZE(gpu_rc_ioctls),
						      cmd), rc, arg);
	up_read(&rc->remove_lock);
	return ret;
}

static const struct file_operations gpu_rc_fops = {
	.owner = THIS_MODULE,
	.open = gpu_rc_open,
	.release = gpu_rc_release,
	.unlocked_ioctl = gpu_rc_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.llseek = noop_llseek,
};

/* ---- debugfs ----------------------------------------------------------- */

static void gpu_rc_show_block(struct seq_file *m, const char *name,
			      const struct gpu_rc_block *blk, bool hb)
{
	struct mcmgpu_cxl_decoder d;
	unsigned int n, k;
	u64 tl;

	for (n = 0; n < blk->decoders; n++) {
		memset(&d, 0, sizeof(d));
		gpu_rc_read_decoder(blk, n, hb, &d);
		if (!d.ctrl || d.ctrl == CXL_HDM_DECODER0_CTRL_TYPE)
			continue;
		for (k = 0, tl = d.skip; hb && k < 8; k++)
			tl |= (u64)d.targets[k] << (8 * k);
		seq_printf(m, "%s decoder %u: base 0x%016llx size 0x%016llx ctrl 0x%04x target/skip 0x%016llx%s%s%s\n",
			   name, n, d.base, d.size, d.ctrl, tl,
			   d.committed ? " committed" : "",
			   d.error ? " error" : "",
			   d.ctrl & CXL_HDM_DECODER0_CTRL_LOCK ? " locked" : "");
	}
}

static int decoders_show(struct seq_file *m, void *unused)
{
	struct gpu_rc *rc = m->private;
	unsigned int p;
	char name[16];

	down_read(&rc->remove_lock);
	if (rc->removed) {	/* as the char device's files */
		up_read(&rc->remove_lock);
		return -ENODEV;
	}
	mutex_lock(&rc->lock);
	seq_printf(m, "window 0x%llx size 0x%llx aperture 0x%llx ports %u regions %u\n",
		   rc->window_base, rc->window_size, rc->aperture_size,
		   rc->ports, rc->regions);
	gpu_rc_show_block(m, "hb", &rc->hb, true);
	for (p = 0; p < rc->ports; p++) {
		seq_printf(m, "port %u: id 0x%02x media %u capacity 0x%llx\n", p,
			   rc->port[p].id, rc->port[p].media,
			   rc->port[p].capacity);
		snprintf(name, sizeof(name), "ep%u", p);
		gpu_rc_show_block(m, name, &rc->port[p].blk, false);
	}
	mutex_unlock(&rc->lock);
	up_read(&rc->remove_lock);
	return 0;
}

static int decoders_open(struct inode *inode, struct file *file)
{
	struct gpu_rc *rc = inode->i_private;

	return mcmgpu_aux_debugfs_open(file, decoders_show, rc, &rc->ref);
}

static int decoders_release(struct inode *inode, struct file *file)
{
	struct gpu_rc *rc = mcmgpu_aux_debugfs_data(file);

	return mcmgpu_aux_debugfs_release(inode, file, &rc->ref, gpu_rc_free);
}

static const struct file_operations decoders_fops = {
	.owner = THIS_MODULE,
	.open = decoders_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = decoders_release,
};

/* ---- Binding ----------------------------------------------------------- */

static int gpu_rc_probe(struct auxiliary_device *adev,
			const struct auxiliary_device_id *id)
{
	struct mcmgpu_aux_dev *aux = to_mcmgpu_aux_dev(adev);
	struct mcmgpu_cxl_setup *req;
	struct gpu_rc *rc;
	int ret;

	/* Not devm: an open file keeps it past the unbind. */
	rc = kzalloc(sizeof(*rc), GFP_KERNEL);
	req = kzalloc(sizeof(*req), GFP_KERNEL);
	if (!rc || !req) {
		kfree(req);
		kfree(rc);
		return -ENOMEM;
	}
	kref_init(&rc->ref);
	init_rwsem(&rc->remove_lock);
	rc->aux = aux;
	rc->pdev = to_pci_dev(adev->dev.parent);
	mutex_init(&rc->lock);
	mutex_init(&rc->replay_lock);
	dev_set_drvdata(&adev->dev, rc);
	ret = gpu_rc_discover(rc);
	if (ret)
		goto fail;
	if (default_layout) {
		req->flags = lock ? MCMGPU_CXL_SETUP_LOCK : 0;
		mutex_lock(&rc->lock);
		ret = gpu_rc_setup(rc, req, req->error, sizeof(req->error));
		mutex_unlock(&rc->lock);
		if (ret)
			dev_warn(&adev->dev, "default layout not set up (%d): %s\n",
				 ret, req->error);
	}
	snprintf(rc->name, sizeof(rc->name), "mcmgpu_cxl%u", adev->id);
	rc->misc.minor = MISC_DYNAMIC_MINOR;
	rc->misc.name = rc->name;
	rc->misc.fops = &gpu_rc_fops;
	rc->misc.parent = &adev->dev;
	ret = misc_register(&rc->misc);
	if (ret)
		goto fail;
	rc->debugfs = debugfs_create_dir(dev_name(&adev->dev), NULL);
	/* Unsafe: mcmgpu_aux_debugfs.h, not debugfs's proxy, keeps rc. */
	debugfs_create_file_unsafe("decoders", 0444, rc->debugfs, rc,
				   &decoders_fops);
	dev_info(&adev->dev, "GPU CXL root complex: %u root ports, window 0x%llx+0x%llx, %u regions mapped\n",
		 rc->ports, rc->window_base, rc->window_size, rc->regions);
	kfree(req);
	return 0;
fail:
	gpu_rc_unmap(rc);
	kfree(req);
	kfree(rc);
	return ret;
}

static void gpu_rc_remove(struct auxiliary_device *adev)
{
	struct gpu_rc *rc = dev_get_drvdata(&adev->dev);

	debugfs_remove_recursive(rc->debugfs);
	misc_deregister(&rc->misc);
	/* Wait for running ioctls; files still open get ENODEV from now on. */
	down_write(&rc->remove_lock);
	rc->removed = true;
	/* Newest first; locked decoders stay until the device resets. */
	mutex_lock(&rc->lock);
	if (gpu_rc_teardown(rc))
		dev_info(&adev->dev, "decoders locked: left committed\n");
	mutex_unlock(&rc->lock);
	gpu_rc_unmap(rc);
	up_write(&rc->remove_lock);
	kref_put(&rc->ref, gpu_rc_free);
}

static const struct auxiliary_device_id gpu_rc_ids[] = {
	{ .name = "mcmgpu." MCMGPU_AUX_CXL_RC_NAME },
	{ }
};
MODULE_DEVICE_TABLE(auxiliary, gpu_rc_ids);

static struct auxiliary_driver gpu_rc_driver = {
	.name = "gpu_rc",
	.probe = gpu_rc_probe,
	.remove = gpu_rc_remove,
	.id_table = gpu_rc_ids,
};
module_auxiliary_driver(gpu_rc_driver);

MODULE_DESCRIPTION("GPU-side CXL root complex for the mcmgpu device");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(CXL);
MODULE_IMPORT_NS(MCMGPU);
