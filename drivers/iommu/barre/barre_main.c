// SPDX-License-Identifier: GPL-2.0
/*
 * Barre Chord IOMMU: binds the "mcmgpu.iommu" auxiliary device and serves
 * the device's ATS requests. It owns the request and response queues the
 * device reads and writes, and one walker model (barre_walk.c: PW-queue,
 * walkers, PEC) per address space, because each context runs in its own
 * virtual time. mcmgpu.ko drives it through struct mcmgpu_iommu. Counters
 * are in debugfs: barre_iommu/<device>/stats.
 *
 * Files reachable after an unbind (mcmgpu's, or ours): the sysfs "ping"
 * attribute goes with mcmgpu's aux device (mcmgpu_aux.c; kernfs answers
 * an open one ENODEV); the debugfs stats file holds a reference to the driver's state, which
 * outlives the unbind, and answers ENODEV once the device has gone.
 * Neither touches the device then.
 */
#include <linux/auxiliary_bus.h>
#include <linux/debugfs.h>
#include <linux/dma-mapping.h>
#include <linux/io.h>
#include <linux/kref.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/pci.h>
#include <linux/pci-ats.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/xarray.h>

#include "mcmgpu_aux.h"
#include "mcmgpu_aux_debugfs.h"
#include "mcmgpu_barre.h"
#include "barre_walk.h"

static unsigned int walkers = MCMGPU_BARRE_WALKERS;

static int walkers_set(const char *val, const struct kernel_param *kp)
{
	unsigned int n;
	int ret = kstrtouint(val, 0, &n);

	if (ret)
		return ret;
	if (!n || n > MCMGPU_BARRE_MAX_WALKERS)
		return -EINVAL;
	return param_set_uint(val, kp);
}

static const struct kernel_param_ops walkers_ops = {
	.set = walkers_set,
	.get = param_get_uint,
};
module_param_cb(walkers, &walkers_ops, &walkers, 0644);
MODULE_PARM_DESC(walkers, "Page-table walkers of a new walker model, 1..32 (default 16)");

static bool shadow;
module_param(shadow, bool, 0644);
MODULE_PARM_DESC(shadow, "Also walk every coalesced translation and count mismatches (default off)");

/*
 * Test hook for the device's checks: 1 answers a request twice, 2 a tag
 * never sent, 3 an answer done past the epoch's horizon, 4 a frame past
 * the GPU's memory (2^52: pfn << 12 would wrap).
 */
static unsigned int inject_bad_response;
module_param(inject_bad_response, uint, 0644);
MODULE_PARM_DESC(inject_bad_response, "Test only: corrupt the next answers (1 duplicate, 2 unknown tag, 3 past the horizon, 4 PFN past memory)");

struct barre_space {
	struct barre_iommu *bi;
	u32 pasid;
	u64 root;		/* page tables, for the serve in progress */
	u32 nresp;
	bool overflow;
	struct barre_walker bw;
};

struct barre_iommu {
	struct kref ref;	/* the binding's, and each open stats file's */
	bool gone;		/* unbound: lock */
	struct mcmgpu_aux_dev *aux;
	struct mcmgpu_iommu iommu;
	struct mcmgpu_ats_request *req;
	struct mcmgpu_ats_response *resp;
	struct mutex lock;	/* spaces and the queues */
	struct xarray spaces;	/* by PASID */
	struct barre_walker_stats retired;	/* of models reset or released */
	struct dentry *debugfs;
};

static struct dentry *barre_debugfs_root;

static u64 barre_root(void *priv, u32 pasid)
{
	struct barre_space *sp = priv;

	return pasid == sp->pasid ? sp->root : 0;
}

/* Page tables are kernel pages of mcmgpu.ko, stable during a serve. */
static u64 barre_read_entry(void *priv, u64 table, u32 index)
{
	return ((u64 *)phys_to_virt(table))[index];
}

static void barre_respond(void *priv, const struct barre_walker_response *rsp)
{
	struct barre_space *sp = priv;
	struct mcmgpu_ats_response *r;

	if (sp->nresp == MCMGPU_ATS_QUEUE_ENTRIES) {
		sp->overflow = true;	/* one answer per request: cannot */
		return;
	}
	r = &sp->bi->resp[sp->nresp++];
	r->tag = cpu_to_le64(rsp->tag);
	r->pfn = cpu_to_le64(rsp->pfn);
	r->done = cpu_to_le64(rsp->done);
	r->status = cpu_to_le32(rsp->status == BARRE_WALKER_STATUS_OK ? MCMGPU_ATS_OK :
				MCMGPU_ATS_FAULT);
	r->writable = rsp->writable;
	r->coalesced = rsp->coalesced;
	r->reserved = 0;
	/* F-Barre's extension: the page's group and its object's PEC entry. */
	r->has_group = rsp->pec.valid;
	r->coal = cpu_to_le64(rsp->coal);
	r->start_vpn = cpu_to_le64(rsp->pec.start_vpn);
	r->end_vpn = cpu_to_le64(rsp->pec.end_vpn);
	r->g = cpu_to_le32(rsp->pec.g);
	r->nmap = rsp->pec.nmap;
	memcpy(r->map, rsp->pec.map, sizeof(r->map));
	memset(r->reserved2, 0, sizeof(r->reserved2));
}

/* A model's counters go into the device's totals before they go. */
static void barre_retire(struct barre_iommu *bi, const struct barre_walker_stats *s)
{
	struct barre_walker_stats *t = &bi->retired;
	u32 i;

	t->ats_requests += s->ats_requests;
	t->walks += s->walks;
	t->coalesced += s->coalesced;
	t->faults += s->faults;
	t->pec_hits += s->pec_hits;
	t->pec_misses += s->pec_misses;
	t->pec_evictions += s->pec_evictions;
	t->shadow_mismatches += s->shadow_mismatches;
	t->sched_moves += s->sched_moves;
	t->service_cycles += s->service_cycles;
	for (i = 0; i <= MCMGPU_BARRE_PWQ_ENTRIES; i++)
		t->pwq_hist[i] += s->pwq_hist[i];
}

static void barre_space_config(struct barre_iommu *bi, struct barre_walker_config *cfg,
			       u32 nwalkers, bool shadow_walk, u32 sched_moves)
{
	barre_walker_default_config(cfg, bi->aux->chiplets,
				    bi->aux->vram_per_chiplet >> MCMGPU_PAGE_SHIFT);
	cfg->walkers = nwalkers ? nwalkers : READ_ONCE(walkers);
	cfg->shadow = shadow_walk;
	cfg->sched_moves = sched_moves;
}

static int barre_space_init(struct barre_iommu *bi, struct barre_space *sp,
			    u32 pasid)
{
	struct barre_walker_config cfg;

	barre_space_config(bi, &cfg, 0, READ_ONCE(shadow), 0);
	sp->bi = bi;
	sp->pasid = pasid;
	return barre_walker_init(&sp->bw, &cfg,
		       &(struct barre_walker_pt_ops){ barre_root, barre_read_entry, sp, NULL },
		       barre_respond, sp);
}

/* pasid's model, made with the module's defaults if it has none; lock held. */
static struct barre_space *barre_space_get(struct barre_iommu *bi, u32 pasid)
{
	struct barre_space *sp = xa_load(&bi->spaces, pasid);

	if (sp)
		return sp;
	sp = kzalloc(sizeof(*sp), GFP_KERNEL);
	if (!sp)
		return NULL;
	if (barre_space_init(bi, sp, pasid) ||
	    xa_err(xa_store(&bi->spaces, pasid, sp, GFP_KERNEL))) {
		kfree(sp);
		return NULL;
	}
	return sp;
}

static struct barre_iommu *to_barre(struct mcmgpu_iommu *iommu)
{
	return container_of(iommu, struct barre_iommu, iommu);
}

static int barre_reset(struct mcmgpu_iommu *iommu, u32 pasid, u32 nwalkers,
		       bool shadow_walk, u32 sched_moves)
{
	struct barre_iommu *bi = to_barre(iommu);
	struct barre_space *sp;
	struct barre_walker_config cfg;
	int ret = -ENOMEM;

	barre_space_config(bi, &cfg, nwalkers, shadow_walk, sched_moves);
	mutex_lock(&bi->lock);
	sp = barre_space_get(bi, pasid);
	if (sp) {
		barre_retire(bi, &sp->bw.stats);
		/* Walkers and queues only: live objects keep their PEC entries. */
		ret = barre_walker_reset(&sp->bw, &cfg);
	}
	mutex_unlock(&bi->lock);
	return ret;
}

static void barre_pec_add(struct mcmgpu_iommu *iommu,
			  const struct mcmgpu_pec_entry *e)
{
	struct barre_iommu *bi = to_barre(iommu);
	struct barre_space *sp;

	mutex_lock(&bi->lock);
	sp = barre_space_get(bi, e->pasid);
	if (sp)
		barre_walker_pec_add(&sp->bw, e);
	mutex_unlock(&bi->lock);
}

static void barre_pec_drop(struct mcmgpu_iommu *iommu, u32 pasid, u64 start,
			   u64 end)
{
	struct barre_iommu *bi = to_barre(iommu);
	struct barre_space *sp;

	mutex_lock(&bi->lock);
	sp = xa_load(&bi->spaces, pasid);
	if (sp)
		barre_walker_pec_drop(&sp->bw, pasid, start, end);
	mutex_unlock(&bi->lock);
}

static void barre_pec_restore(struct mcmgpu_iommu *iommu, u32 pasid,
			      const struct mcmgpu_pec_entry *buf, u32 n)
{
	struct barre_iommu *bi = to_barre(iommu);
	struct barre_space *sp;

	mutex_lock(&bi->lock);
	sp = barre_space_get(bi, pasid);
	if (sp)
		barre_walker_pec_restore(&sp->bw, buf, n);
	mutex_unlock(&bi->lock);
}

/* The test hook: spoil this epoch's answers once. */
static void barre_inject(struct barre_space *sp)
{
	struct mcmgpu_ats_response *r = sp->bi->resp;
	unsigned int how = xchg(&inject_bad_response, 0);

	if (!how || sp->nresp == MCMGPU_ATS_QUEUE_ENTRIES ||
	    (how != 2 && !sp->nresp)) {
		if (how)
			inject_bad_response = how;	/* next epoch */
		return;
	}
	if (how == 3) {		/* an answer from the far future */
		r[0].done = cpu_to_le64(~0ULL - 400);
		return;
	}
	if (how == 4) {		/* a frame no chiplet has */
		r[0].status = cpu_to_le32(MCMGPU_ATS_OK);
		r[0].pfn = cpu_to_le64(1ULL << 52);
		return;
	}
	r[sp->nresp] = how == 1 ? r[0] : (struct mcmgpu_ats_response){
		.tag = cpu_to_le64(~0ULL),
	};
	sp->nresp++;
}

static int barre_serve(struct mcmgpu_iommu *iommu, u32 pasid, u64 root,
		       u32 nreq, u64 horizon)
{
	struct barre_iommu *bi = to_barre(iommu);
	struct barre_space *sp;
	int ret = 0;
	u32 i;

	if (nreq > MCMGPU_ATS_QUEUE_ENTRIES)
		return -EPROTO;
	mutex_lock(&bi->lock);
	sp = barre_space_get(bi, pasid);
	if (!sp) {
		ret = -ENOMEM;
		goto unlock;
	}
	sp->root = root;
	sp->nresp = 0;
	/*
	 * The whole batch or none of it: a model left with part of a batch
	 * would count requests it never serves.
	 */
	if (horizon < sp->bw.now ||	/* time cannot go back */
	    barre_walker_can_submit(&sp->bw, sp->bw.now, nreq))
		ret = -EPROTO;
	for (i = 0; i < nreq && !ret; i++) {
		const struct mcmgpu_ats_request *q = &bi->req[i];

		/* Each as barre_walker_submit() will take it (the room is checked above). */
		if (le32_to_cpu(q->pasid) != pasid ||
		    q->chiplet >= bi->aux->chiplets ||
		    barre_walker_can_submit(&sp->bw, le64_to_cpu(q->issue) +
				  MCMGPU_BARRE_PCIE_CYCLES, 0)) {
			dev_dbg(&bi->aux->adev.dev, "ATS request %u of PASID %u refused\n",
				i, pasid);
			ret = -EPROTO;
		}
	}
	for (i = 0; i < nreq && !ret; i++) {
		const struct mcmgpu_ats_request *q = &bi->req[i];
		struct barre_walker_request r = {
			.tag = le64_to_cpu(q->tag),
			.vpn = le64_to_cpu(q->vpn),
			.arrive = le64_to_cpu(q->issue) + MCMGPU_BARRE_PCIE_CYCLES,
			.pasid = pasid,
			.chiplet = q->chiplet,
			.write = q->write,
		};

		ret = barre_walker_submit(&sp->bw, &r);	/* checked above: cannot fail */
	}
	if (!ret) {
		barre_walker_advance(&sp->bw, horizon);
		barre_inject(sp);
		ret = sp->overflow ? -EPROTO : sp->nresp;
	}
	/* The phase ends here: no request of it stays in the counts. */
	if (ret < 0) {
		ret = -EPROTO;
		barre_walker_abandon(&sp->bw);
	}
unlock:
	mutex_unlock(&bi->lock);
	return ret;
}

static void barre_abandon(struct mcmgpu_iommu *iommu, u32 pasid)
{
	struct barre_iommu *bi = to_barre(iommu);
	struct barre_space *sp;

	mutex_lock(&bi->lock);
	sp = xa_load(&bi->spaces, pasid);
	if (sp)
		barre_walker_abandon(&sp->bw);
	mutex_unlock(&bi->lock);
}

static void barre_stats(struct mcmgpu_iommu *iommu, u32 pasid,
			struct mcmgpu_barre_stats *st)
{
	struct barre_iommu *bi = to_barre(iommu);
	struct barre_space *sp;

	mutex_lock(&bi->lock);
	sp = xa_load(&bi->spaces, pasid);
	if (sp)
		barre_walker_export_stats(&sp->bw.stats, st);
	mutex_unlock(&bi->lock);
}

static void barre_release(struct mcmgpu_iommu *iommu, u32 pasid)
{
	struct barre_iommu *bi = to_barre(iommu);

	struct barre_space *sp;

	mutex_lock(&bi->lock);
	sp = xa_erase(&bi->spaces, pasid);
	if (sp)
		barre_retire(bi, &sp->bw.stats);
	kfree(sp);
	mutex_unlock(&bi->lock);
}

static void barre_stats_print(struct seq_file *m, const struct barre_walker_stats *s)
{
	u32 i;

	seq_printf(m, "  ats_requests %llu walks %llu coalesced %llu faults %llu\n",
		   s->ats_requests, s->walks, s->coalesced, s->faults);
	seq_printf(m, "  pec_hits %llu pec_misses %llu pec_evictions %llu shadow_mismatches %llu\n",
		   s->pec_hits, s->pec_misses, s->pec_evictions,
		   s->shadow_mismatches);
	seq_printf(m, "  sched_moves %llu service_cycles %llu\n  pwq_occupancy",
		   s->sched_moves, s->service_cycles);
	for (i = 0; i <= MCMGPU_BARRE_PWQ_ENTRIES; i++)
		seq_printf(m, " %llu", s->pwq_hist[i]);
	seq_putc(m, '\n');
}

static void barre_iommu_free(struct kref *ref)
{
	kfree(container_of(ref, struct barre_iommu, ref));
}

/* Each live address space's model, then the totals of those gone. */
static int barre_stats_show(struct seq_file *m, void *unused)
{
	struct barre_iommu *bi = m->private;
	struct barre_space *sp;
	unsigned long pasid;

	mutex_lock(&bi->lock);
	if (bi->gone) {		/* as mcmgpu.ko's files after an unbind */
		mutex_unlock(&bi->lock);
		return -ENODEV;
	}
	xa_for_each(&bi->spaces, pasid, sp) {
		seq_printf(m, "pasid %lu walkers %u shadow %u\n", pasid,
			   sp->bw.cfg.walkers, sp->bw.cfg.shadow);
		barre_stats_print(m, &sp->bw.stats);
	}
	seq_puts(m, "retired (reset or released address spaces)\n");
	barre_stats_print(m, &bi->retired);
	mutex_unlock(&bi->lock);
	return 0;
}

static int barre_stats_open(struct inode *inode, struct file *file)
{
	struct barre_iommu *bi = inode->i_private;

	return mcmgpu_aux_debugfs_open(file, barre_stats_show, bi, &bi->ref);
}

static int barre_stats_release(struct inode *inode, struct file *file)
{
	struct barre_iommu *bi = mcmgpu_aux_debugfs_data(file);

	return mcmgpu_aux_debugfs_release(inode, file, &bi->ref,
					  barre_iommu_free);
}

static const struct file_operations barre_stats_fops = {
	.owner = THIS_MODULE,
	.open = barre_stats_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = barre_stats_release,
};

static void barre_iommu_free_queues(struct barre_iommu *bi)
{
	struct device *dma = bi->aux->adev.dev.parent;

	if (bi->req)
		dma_free_coherent(dma, MCMGPU_ATS_QUEUE_ENTRIES * sizeof(*bi->req),
				  bi->req, bi->iommu.req_dma);
	if (bi->resp)
		dma_free_coherent(dma, MCMGPU_ATS_QUEUE_ENTRIES * sizeof(*bi->resp),
				  bi->resp, bi->iommu.resp_dma);
}

static int barre_iommu_probe(struct auxiliary_device *adev,
			     const struct auxiliary_device_id *id)
{
	struct mcmgpu_aux_dev *aux = to_mcmgpu_aux_dev(adev);
	struct device *dma = adev->dev.parent;	/* the PCI function */
	struct barre_iommu *bi;
	int ret;

	bi = kzalloc(sizeof(*bi), GFP_KERNEL);
	if (!bi)
		return -ENOMEM;
	kref_init(&bi->ref);
	/* The chiplets ask us for translations: the IOMMU turns ATS on. */
	ret = pci_enable_ats(to_pci_dev(dma), PAGE_SHIFT);
	if (ret) {
		dev_err(&adev->dev, "cannot enable ATS on the device: %d\n", ret);
		kfree(bi);
		return ret;
	}
	bi->aux = aux;
	mutex_init(&bi->lock);
	xa_init(&bi->spaces);
	bi->req = dma_alloc_coherent(dma, MCMGPU_ATS_QUEUE_ENTRIES *
				     sizeof(*bi->req), &bi->iommu.req_dma,
				     GFP_KERNEL);
	bi->resp = dma_alloc_coherent(dma, MCMGPU_ATS_QUEUE_ENTRIES *
				      sizeof(*bi->resp), &bi->iommu.resp_dma,
				      GFP_KERNEL);
	if (!bi->req || !bi->resp) {
		barre_iommu_free_queues(bi);
		pci_disable_ats(to_pci_dev(dma));
		kfree(bi);
		return -ENOMEM;
	}
	bi->iommu.reset = barre_reset;
	bi->iommu.pec_add = barre_pec_add;
	bi->iommu.pec_drop = barre_pec_drop;
	bi->iommu.pec_restore = barre_pec_restore;
	bi->iommu.serve = barre_serve;
	bi->iommu.abandon = barre_abandon;
	bi->iommu.stats = barre_stats;
	bi->iommu.release = barre_release;
	dev_set_drvdata(&adev->dev, bi);
	bi->debugfs = debugfs_create_dir(dev_name(&adev->dev), barre_debugfs_root);
	/* Unsafe: mcmgpu_aux_debugfs.h, not debugfs's proxy, keeps bi. */
	debugfs_create_file_unsafe("stats", 0444, bi->debugfs, bi,
				   &barre_stats_fops);
	aux->ops->set_iommu(aux, &bi->iommu);
	dev_info(&adev->dev, "Barre IOMMU bound: %u chiplets, window %u, vector %u, %u walkers\n",
		 aux->chiplets, aux->window_index, aux->vector, walkers);
	return 0;
}

static void barre_iommu_remove(struct auxiliary_device *adev)
{
	struct mcmgpu_aux_dev *aux = to_mcmgpu_aux_dev(adev);
	struct barre_iommu *bi = dev_get_drvdata(&adev->dev);
	struct barre_space *sp;
	unsigned long pasid;

	/* Waits for every caller: nothing serves after this. */
	aux->ops->set_iommu(aux, NULL);
	debugfs_remove_recursive(bi->debugfs);
	/* Open stats files keep bi, and from now on answer ENODEV. */
	mutex_lock(&bi->lock);
	bi->gone = true;
	xa_for_each(&bi->spaces, pasid, sp)
		kfree(sp);
	xa_destroy(&bi->spaces);
	mutex_unlock(&bi->lock);
	barre_iommu_free_queues(bi);
	pci_disable_ats(to_pci_dev(adev->dev.parent));
	kref_put(&bi->ref, barre_iommu_free);
}

static const struct auxiliary_device_id barre_iommu_ids[] = {
	{ .name = "mcmgpu." MCMGPU_AUX_IOMMU_NAME },
	{ }
};
MODULE_DEVICE_TABLE(auxiliary, barre_iommu_ids);

static struct auxiliary_driver barre_iommu_driver = {
	.name = "barre_iommu",
	.probe = barre_iommu_probe,
	.remove = barre_iommu_remove,
	.id_table = barre_iommu_ids,
};

static int __init barre_iommu_init(void)
{
	int ret;

	barre_debugfs_root = debugfs_create_dir("barre_iommu", NULL);
	ret = auxiliary_driver_register(&barre_iommu_driver);
	if (ret)
		debugfs_remove_recursive(barre_debugfs_root);
	return ret;
}

static void __exit barre_iommu_exit(void)
{
	auxiliary_driver_unregister(&barre_iommu_driver);
	debugfs_remove_recursive(barre_debugfs_root);
}
module_init(barre_iommu_init);
module_exit(barre_iommu_exit);

MODULE_DESCRIPTION("Barre Chord IOMMU for the mcmgpu device");
MODULE_LICENSE("GPL");
