// SPDX-License-Identifier: GPL-2.0
/*
 * Barre Chord IOMMU: binds the "mcmgpu.iommu" auxiliary device and serves
 * the device's ATS requests. It owns the ATS rings (struct mcmgpu_ats_ring
 * in mcmgpu_hw.h, in its coherent memory) and gives their address in its
 * register window; the device posts a batch of requests after each epoch
 * and raises the window's ATS event on the shared vector, unless this
 * driver's thread is polling the batch sequence word. The thread answers
 * each batch on the response ring and rings the window's doorbell. One
 * walker model (barre_walk.c: PW-queue, walkers, PEC) per address space,
 * because each context runs in its own virtual time; its settings, page
 * tables and PEC buffer come from mcmgpu.ko's PASID table (pasid_entry),
 * so a reload finds every live object's PEC entry there. Counters are in
 * debugfs: barre_iommu/<device>/stats.
 *
 * Files reachable after an unbind (mcmgpu's, or ours): the sysfs "ping"
 * attribute goes with mcmgpu's aux device (mcmgpu_aux.c; kernfs answers
 * an open one ENODEV); the debugfs stats file holds a reference to the
 * driver's state, which outlives the unbind, and answers ENODEV once the
 * device has gone. Neither touches the device then.
 */
#include <linux/auxiliary_bus.h>
#include <linux/debugfs.h>
#include <linux/dma-mapping.h>
#include <linux/interrupt.h>
#include <linux/io.h>
#include <linux/iopoll.h>
#include <linux/kref.h>
#include <linux/kthread.h>
#include <linux/delay.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/pci.h>
#include <linux/pci-ats.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/wait.h>
#include <linux/xarray.h>

#include "mcmgpu_aux.h"
#include "mcmgpu_aux_debugfs.h"
#include "mcmgpu_barre.h"
#include "barre_walk.h"

#define BARRE_RING_MASK		(MCMGPU_ATS_RING_ENTRIES - 1)
#define BARRE_BATCH_FLAGS	(MCMGPU_ATS_BATCH_START | MCMGPU_ATS_BATCH_END | \
				 MCMGPU_ATS_BATCH_ABANDON)

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
MODULE_PARM_DESC(inject_bad_response, "Test only: corrupt the next answers (1 duplicate, 2 unknown tag, 3 past the horizon, 4 PFN past memory), the rings (5 resp_tail past the end, 6 a stale answered_seq, 7 a next event near 2^64), or take the next batch as a buggy device's (8 req_tail past the end, 9 unknown flags, 10 a wrong resp_head, 11 more requests than a queue)");

/* The test hook's value how, taken once. */
static bool barre_inject_take(unsigned int lo, unsigned int hi, unsigned int *how)
{
	*how = READ_ONCE(inject_bad_response);
	return *how >= lo && *how <= hi &&
	       cmpxchg(&inject_bad_response, *how, 0) == *how;
}

static unsigned int poll_us = 200;
module_param(poll_us, uint, 0644);
MODULE_PARM_DESC(poll_us, "Microseconds the ring thread polls for the next batch before it sleeps until the ATS interrupt (default 200; 0: interrupt every batch)");

/* Test hook: an IOMMU slower than the device's poll (the doorbell path). */
static unsigned int slow_answer_us;
module_param(slow_answer_us, uint, 0644);
MODULE_PARM_DESC(slow_answer_us, "Test only: answer each batch this many microseconds late (at most 10000)");

struct barre_space {
	struct barre_iommu *bi;
	u32 pasid;
	u64 root;		/* page tables, for the batch in progress */
	u64 config_gen;		/* of the PASID entry the model follows */
	u64 pec_gen;
	u32 nresp;		/* answers of the batch in progress */
	bool overflow;
	struct barre_walker bw;
};

struct barre_iommu {
	struct kref ref;	/* the binding's, and each open stats file's */
	bool gone;		/* unbound: lock */
	struct mcmgpu_aux_dev *aux;
	struct mcmgpu_ats_ring *ring;
	dma_addr_t ring_dma;
	/* The ring thread's own. */
	struct task_struct *thread;
	wait_queue_head_t wait;
	u64 answered_seq;
	u32 req_head, resp_tail;
	struct mcmgpu_barre_stats export;
	struct mutex lock;	/* spaces, retired and the counters below */
	struct xarray spaces;	/* by PASID */
	struct barre_walker_stats retired;	/* of models reset or released */
	u64 batches, interrupts, refused;
	u64 serve_ns, idle_ns;	/* the thread's time at batches, between them */
	u64 doorbells;		/* answers the device did not poll for */
	struct dentry *debugfs;
};

static struct dentry *barre_debugfs_root;

static u64 barre_root(void *priv, u32 pasid)
{
	struct barre_space *sp = priv;

	return pasid == sp->pasid ? sp->root : 0;
}

/* Page tables are kernel pages of mcmgpu.ko, stable during a batch. */
static u64 barre_read_entry(void *priv, u64 table, u32 index)
{
	return ((u64 *)phys_to_virt(table))[index];
}

static void barre_respond(void *priv, const struct barre_walker_response *rsp)
{
	struct barre_space *sp = priv;
	struct barre_iommu *bi = sp->bi;
	struct mcmgpu_ats_response *r;

	if (sp->nresp == MCMGPU_ATS_QUEUE_ENTRIES) {
		sp->overflow = true;	/* one answer per request: cannot */
		return;
	}
	r = &bi->ring->resp[(bi->resp_tail + sp->nresp++) & BARRE_RING_MASK];
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

/* pasid's model, made with the module's defaults if it has none; lock held. */
static struct barre_space *barre_space_get(struct barre_iommu *bi, u32 pasid)
{
	struct barre_space *sp = xa_load(&bi->spaces, pasid);
	struct barre_walker_config cfg;
	struct barre_walker_pt_ops ops = { barre_root, barre_read_entry };

	if (sp)
		return sp;
	sp = kvzalloc(sizeof(*sp), GFP_KERNEL);
	if (!sp)
		return NULL;
	sp->bi = bi;
	sp->pasid = pasid;
	barre_space_config(bi, &cfg, 0, READ_ONCE(shadow), 0);
	ops.priv = sp;
	if (barre_walker_init(&sp->bw, &cfg, &ops, barre_respond, sp) ||
	    xa_err(xa_store(&bi->spaces, pasid, sp, GFP_KERNEL))) {
		kvfree(sp);
		return NULL;
	}
	return sp;
}

/*
 * The model follows pasid's entry in mcmgpu.ko's PASID table: its PEC
 * buffer as ALLOC and FREE left it, and a new model (walkers and queues
 * empty, counters zero, PEC entries kept) at each new config_gen. Lock held.
 */
static int barre_space_sync(struct barre_iommu *bi, struct barre_space *sp)
{
	struct mcmgpu_pasid_entry e;
	struct barre_walker_config cfg;
	int ret;

	ret = bi->aux->ops->pasid_entry(bi->aux, sp->pasid, &e);
	if (ret)
		return ret;
	sp->root = e.root;
	if (e.pec_gen != sp->pec_gen) {
		barre_walker_pec_restore(&sp->bw, e.pec, ARRAY_SIZE(e.pec));
		sp->pec_gen = e.pec_gen;
	}
	if (e.config_gen != sp->config_gen) {
		barre_space_config(bi, &cfg, e.walkers, e.shadow, e.sched_moves);
		barre_retire(bi, &sp->bw.stats);
		if (barre_walker_reset(&sp->bw, &cfg))
			return -EINVAL;
		sp->config_gen = e.config_gen;
	}
	sp->bw.stats.pec_evictions = e.pec_evictions;
	return 0;
}

/* Models of PASIDs no open file has any more; lock held. */
static void barre_spaces_sweep(struct barre_iommu *bi, u32 keep)
{
	struct mcmgpu_pasid_entry e;
	struct barre_space *sp;
	unsigned long pasid;

	xa_for_each(&bi->spaces, pasid, sp) {
		if (pasid == keep ||
		    bi->aux->ops->pasid_entry(bi->aux, pasid, &e) != -ENOENT)
			continue;
		xa_erase(&bi->spaces, pasid);
		barre_retire(bi, &sp->bw.stats);
		kvfree(sp);
	}
}

/* The test hook: spoil this batch's answers once. */
static void barre_inject(struct barre_space *sp)
{
	struct barre_iommu *bi = sp->bi;
	struct mcmgpu_ats_response *r = &bi->ring->resp[bi->resp_tail];
	unsigned int how;

	if (!barre_inject_take(1, 4, &how))
		return;
	if (sp->nresp == MCMGPU_ATS_QUEUE_ENTRIES || (how != 2 && !sp->nresp)) {
		inject_bad_response = how;	/* next batch */
		return;
	}
	if (how == 3) {		/* an answer from the far future */
		r->done = cpu_to_le64(~0ULL - 400);
		return;
	}
	if (how == 4) {		/* a frame no chiplet has */
		r->status = cpu_to_le32(MCMGPU_ATS_OK);
		r->pfn = cpu_to_le64(1ULL << 52);
		return;
	}
	bi->ring->resp[(bi->resp_tail + sp->nresp) & BARRE_RING_MASK] =
		how == 1 ? *r : (struct mcmgpu_ats_response){
			.tag = cpu_to_le64(~0ULL),
		};
	sp->nresp++;
}

/*
 * One batch of pasid: nreq requests from req_head on, answered at
 * resp_tail on up to the horizon. The number of answers, or -EPROTO for
 * a batch the walker cannot take (then nothing of the run stays in the
 * counts). Lock held.
 */
static int barre_serve(struct barre_iommu *bi, struct barre_space *sp,
		       u32 flags, u32 nreq, u64 horizon, u64 *next)
{
	u32 i;
	int ret;

	sp->nresp = 0;
	sp->overflow = false;
	ret = barre_space_sync(bi, sp);
	if (ret)
		goto abandon;
	/* A new run: what an earlier, failed one left in flight goes. */
	if (flags & MCMGPU_ATS_BATCH_START)
		barre_walker_abandon(&sp->bw);
	/*
	 * The whole batch or none of it: a model left with part of a batch
	 * would count requests it never serves.
	 */
	if (horizon < sp->bw.now ||	/* time cannot go back */
	    barre_walker_can_submit(&sp->bw, sp->bw.now, nreq)) {
		ret = -EPROTO;
		goto abandon;
	}
	for (i = 0; i < nreq; i++) {
		const struct mcmgpu_ats_request *q =
			&bi->ring->req[(bi->req_head + i) & BARRE_RING_MASK];

		/* Each as barre_walker_submit() will take it (the room is checked above). */
		if (le32_to_cpu(q->pasid) != sp->pasid ||
		    q->chiplet >= bi->aux->chiplets ||
		    barre_walker_can_submit(&sp->bw, le64_to_cpu(q->issue) +
				  MCMGPU_BARRE_PCIE_CYCLES, 0)) {
			dev_dbg(&bi->aux->adev.dev, "ATS request %u of PASID %u refused\n",
				i, sp->pasid);
			ret = -EPROTO;
			goto abandon;
		}
	}
	for (i = 0; i < nreq; i++) {
		const struct mcmgpu_ats_request *q =
			&bi->ring->req[(bi->req_head + i) & BARRE_RING_MASK];
		struct barre_walker_request r = {
			.tag = le64_to_cpu(q->tag),
			.vpn = le64_to_cpu(q->vpn),
			.arrive = le64_to_cpu(q->issue) + MCMGPU_BARRE_PCIE_CYCLES,
			.pasid = sp->pasid,
			.chiplet = q->chiplet,
			.write = q->write,
		};

		barre_walker_submit(&sp->bw, &r);	/* checked above: cannot fail */
	}
	if (flags & MCMGPU_ATS_BATCH_ABANDON)
		barre_walker_abandon(&sp->bw);
	else if (!(flags & MCMGPU_ATS_BATCH_END))
		barre_walker_advance(&sp->bw, horizon);
	barre_inject(sp);
	if (sp->overflow) {
		ret = -EPROTO;
		goto abandon;
	}
	*next = barre_walker_next_event(&sp->bw);
	return sp->nresp;

abandon:
	/* The run ends here: no request of it stays in the counts. */
	barre_walker_abandon(&sp->bw);
	sp->nresp = 0;
	return ret == -ENOENT || ret == -EINVAL ? ret : -EPROTO;
}

/* The run is over: its counters go to the PASID's entry. Lock held. */
static void barre_export(struct barre_iommu *bi, struct barre_space *sp)
{
	barre_walker_export_stats(&sp->bw.stats, &bi->export);
	bi->aux->ops->pasid_stats(bi->aux, sp->pasid, sp->config_gen,
				  &bi->export);
}

/* pasid's run is over: nothing of it stays in flight or counted. Lock held. */
static void barre_drop_run(struct barre_iommu *bi, u32 pasid)
{
	struct barre_space *sp = xa_load(&bi->spaces, pasid);

	if (sp) {
		barre_walker_abandon(&sp->bw);
		barre_export(bi, sp);
	}
}

/* The batch posted after the last one answered. */
static bool barre_batch_pending(struct barre_iommu *bi)
{
	return le64_to_cpu(READ_ONCE(bi->ring->batch_seq)) != bi->answered_seq;
}

/*
 * Takes the posted batch, answers it on the response ring and rings the
 * doorbell. A ring the device left inconsistent (an index past the end, a
 * batch larger than a queue, unknown flags) is refused with -EPROTO, as a
 * bad request is; the device then fails its run.
 */
static void barre_serve_batch(struct barre_iommu *bi)
{
	struct mcmgpu_ats_ring *r = bi->ring;
	u64 seq = le64_to_cpu(READ_ONCE(r->batch_seq)), horizon, next = ~0ULL;
	u32 pasid, flags, req_tail, resp_head, n;
	struct barre_space *sp;
	unsigned int how;
	int ret;

	smp_rmb();	/* the batch's fields and requests after its seq */
	horizon = le64_to_cpu(r->horizon);
	pasid = le32_to_cpu(r->pasid);
	flags = le32_to_cpu(r->flags);
	req_tail = le32_to_cpu(r->req_tail);
	resp_head = le32_to_cpu(r->resp_head);
	if (flags & MCMGPU_ATS_BATCH_START) {
		bi->req_head = 0;
		bi->resp_tail = 0;
	}
	if (barre_inject_take(8, 11, &how)) {
		if (how == 8)
			req_tail = MCMGPU_ATS_RING_ENTRIES + 3;
		else if (how == 9)
			flags |= 1U << 7;
		else if (how == 10)
			resp_head = (bi->resp_tail + 1) & BARRE_RING_MASK;
		else
			req_tail = (bi->req_head + MCMGPU_ATS_QUEUE_ENTRIES + 1) &
				   BARRE_RING_MASK;
	}
	n = (req_tail - bi->req_head) & BARRE_RING_MASK;
	mutex_lock(&bi->lock);
	bi->batches++;
	if (flags & MCMGPU_ATS_BATCH_ABANDON && !(flags & ~BARRE_BATCH_FLAGS)) {
		/* The device gave the run up: whatever its indices, drop it. */
		barre_drop_run(bi, pasid);
		bi->req_head = 0;
		bi->resp_tail = 0;
		req_tail = 0;
		ret = 0;
	} else if (flags & ~BARRE_BATCH_FLAGS ||
		   req_tail >= MCMGPU_ATS_RING_ENTRIES ||
		   resp_head != bi->resp_tail || n > MCMGPU_ATS_QUEUE_ENTRIES ||
		   ((flags & MCMGPU_ATS_BATCH_END) && n)) {
		dev_dbg(&bi->aux->adev.dev,
			"ATS batch %llu refused: flags 0x%x req_tail %u (head %u) resp_head %u (tail %u)\n",
			seq, flags, req_tail, bi->req_head, resp_head,
			bi->resp_tail);
		barre_drop_run(bi, pasid);
		ret = -EPROTO;
	} else {
		if (flags & MCMGPU_ATS_BATCH_START)
			barre_spaces_sweep(bi, pasid);
		sp = barre_space_get(bi, pasid);
		ret = sp ? barre_serve(bi, sp, flags, n, horizon, &next) :
		      -ENOMEM;
		if (sp && (ret < 0 || flags & MCMGPU_ATS_BATCH_END))
			barre_export(bi, sp);
	}
	if (ret < 0) {
		bi->refused++;
		ret = -EPROTO;
	} else {
		bi->req_head = req_tail;
		bi->resp_tail = (bi->resp_tail + ret) & BARRE_RING_MASK;
	}
	mutex_unlock(&bi->lock);
	r->req_head = cpu_to_le32(bi->req_head);
	r->resp_tail = cpu_to_le32(bi->resp_tail);
	r->next_event = cpu_to_le64(next);
	r->status = cpu_to_le32(ret < 0 ? ret : 0);
	/* The test hook: rings as a buggy IOMMU might leave them. */
	if (ret > 0 && barre_inject_take(5, 7, &how)) {
		if (how == 5)
			r->resp_tail = cpu_to_le32(MCMGPU_ATS_RING_ENTRIES + 1);
		else if (how == 6)
			seq--;
		else
			r->next_event = cpu_to_le64(~0ULL - 5);
	}
	how = min(READ_ONCE(slow_answer_us), 10000U);
	if (how)
		usleep_range(how, how + 10);
	dma_wmb();	/* the answers before the batch is marked answered */
	WRITE_ONCE(r->answered_seq, cpu_to_le64(seq));
	bi->answered_seq = le64_to_cpu(READ_ONCE(r->batch_seq));
	/*
	 * Pairs with the device's barrier between clearing polling and a
	 * look; a device, not a CPU, is the other side.
	 */
	mb();
	/* It reads answered_seq: no exit, unless the answer is not its batch's. */
	if (READ_ONCE(r->device_polling) && seq == bi->answered_seq)
		return;
	bi->doorbells++;
	writel(lower_32_bits(bi->answered_seq),
	       bi->aux->window + MCMGPU_IOMMU_DOORBELL);
}

/*
 * The ring thread: serves every batch; between batches it polls the
 * sequence word for poll_us (the device's next epoch is usually that
 * close) and only then sleeps until the ATS event. polling tells the
 * device whether to raise it.
 */
static int barre_ring_thread(void *data)
{
	struct barre_iommu *bi = data;
	u64 last = ktime_get_ns();

	while (!kthread_should_stop()) {
		if (barre_batch_pending(bi)) {
			/* The device's next batch will find us polling. */
			u64 t0 = ktime_get_ns();

			WRITE_ONCE(bi->ring->polling, cpu_to_le32(READ_ONCE(poll_us) > 0));
			bi->idle_ns += t0 - last;
			barre_serve_batch(bi);
			bi->serve_ns += ktime_get_ns() - t0;
			last = ktime_get_ns();
			continue;
		}
		if (ktime_get_ns() - last < (u64)READ_ONCE(poll_us) * 1000) {
			WRITE_ONCE(bi->ring->polling, cpu_to_le32(1));
			cpu_relax();
			cond_resched();
			continue;
		}
		WRITE_ONCE(bi->ring->polling, 0);
		/* Pairs with the device's barrier between the seq and polling. */
		mb();
		if (barre_batch_pending(bi))
			continue;
		wait_event_interruptible(bi->wait, barre_batch_pending(bi) ||
					 kthread_should_stop());
		last = ktime_get_ns();
	}
	return 0;
}

static irqreturn_t barre_irq(int irq, void *data)
{
	struct barre_iommu *bi = data;
	u32 events = readl(bi->aux->window + MCMGPU_WIN_IRQ_STATUS);

	if (!(events & MCMGPU_WIN_IRQ_ATS))
		return IRQ_NONE;	/* mcmgpu.ko's ping, on the same vector */
	writel(MCMGPU_WIN_IRQ_ATS, bi->aux->window + MCMGPU_WIN_IRQ_STATUS);
	bi->interrupts++;
	wake_up(&bi->wait);
	return IRQ_HANDLED;
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
	barre_spaces_sweep(bi, 0);	/* PASIDs are 1 on: none kept */
	xa_for_each(&bi->spaces, pasid, sp) {
		seq_printf(m, "pasid %lu walkers %u shadow %u\n", pasid,
			   sp->bw.cfg.walkers, sp->bw.cfg.shadow);
		barre_stats_print(m, &sp->bw.stats);
	}
	seq_puts(m, "retired (reset or released address spaces)\n");
	barre_stats_print(m, &bi->retired);
	seq_printf(m, "rings: batches %llu refused %llu interrupts %llu doorbells %llu serve_ns %llu wait_ns %llu\n",
		   bi->batches, bi->refused, bi->interrupts, bi->doorbells, bi->serve_ns,
		   bi->idle_ns);
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

/* The device stops using the rings before they go. */
static void barre_rings_off(struct barre_iommu *bi)
{
	u32 ctrl;

	writel(0, bi->aux->window + MCMGPU_IOMMU_CTRL);
	if (readl_poll_timeout(bi->aux->window + MCMGPU_IOMMU_CTRL, ctrl,
			       !(ctrl & MCMGPU_IOMMU_CTRL_BUSY), 10, USEC_PER_SEC))
		dev_warn(&bi->aux->adev.dev, "the device still uses the ATS rings\n");
}

static void barre_iommu_teardown(struct barre_iommu *bi)
{
	struct device *dma = bi->aux->adev.dev.parent;
	u32 mask;

	if (bi->thread)
		kthread_stop(bi->thread);
	mask = readl(bi->aux->window + MCMGPU_WIN_IRQ_MASK);
	writel(mask & ~MCMGPU_WIN_IRQ_ATS, bi->aux->window + MCMGPU_WIN_IRQ_MASK);
	free_irq(bi->aux->irq, bi);
	dma_free_coherent(dma, sizeof(*bi->ring), bi->ring, bi->ring_dma);
	pci_disable_ats(to_pci_dev(dma));
}

static int barre_iommu_probe(struct auxiliary_device *adev,
			     const struct auxiliary_device_id *id)
{
	struct mcmgpu_aux_dev *aux = to_mcmgpu_aux_dev(adev);
	struct device *dma = adev->dev.parent;	/* the PCI function */
	struct barre_iommu *bi;
	u32 mask;
	int ret;

	bi = kzalloc(sizeof(*bi), GFP_KERNEL);
	if (!bi)
		return -ENOMEM;
	kref_init(&bi->ref);
	bi->aux = aux;
	mutex_init(&bi->lock);
	xa_init(&bi->spaces);
	init_waitqueue_head(&bi->wait);
	/* The chiplets ask us for translations: the IOMMU turns ATS on. */
	ret = pci_enable_ats(to_pci_dev(dma), PAGE_SHIFT);
	if (ret) {
		dev_err(&adev->dev, "cannot enable ATS on the device: %d\n", ret);
		kfree(bi);
		return ret;
	}
	bi->ring = dma_alloc_coherent(dma, sizeof(*bi->ring), &bi->ring_dma,
				      GFP_KERNEL);
	if (!bi->ring) {
		pci_disable_ats(to_pci_dev(dma));
		kfree(bi);
		return -ENOMEM;
	}
	ret = request_irq(aux->irq, barre_irq, IRQF_SHARED, "barre-iommu-ats", bi);
	if (ret) {
		dma_free_coherent(dma, sizeof(*bi->ring), bi->ring, bi->ring_dma);
		pci_disable_ats(to_pci_dev(dma));
		kfree(bi);
		return ret;
	}
	mask = readl(aux->window + MCMGPU_WIN_IRQ_MASK);
	writel(mask | MCMGPU_WIN_IRQ_ATS, aux->window + MCMGPU_WIN_IRQ_MASK);
	bi->thread = kthread_run(barre_ring_thread, bi, "barre-ats/%u", aux->adev.id);
	if (IS_ERR(bi->thread)) {
		ret = PTR_ERR(bi->thread);
		bi->thread = NULL;
		barre_iommu_teardown(bi);
		kfree(bi);
		return ret;
	}
	writel(lower_32_bits(bi->ring_dma), aux->window + MCMGPU_IOMMU_RING_LO);
	writel(upper_32_bits(bi->ring_dma), aux->window + MCMGPU_IOMMU_RING_HI);
	writel(MCMGPU_IOMMU_CTRL_ENABLE, aux->window + MCMGPU_IOMMU_CTRL);
	dev_set_drvdata(&adev->dev, bi);
	bi->debugfs = debugfs_create_dir(dev_name(&adev->dev), barre_debugfs_root);
	/* Unsafe: mcmgpu_aux_debugfs.h, not debugfs's proxy, keeps bi. */
	debugfs_create_file_unsafe("stats", 0444, bi->debugfs, bi,
				   &barre_stats_fops);
	dev_info(&adev->dev, "Barre IOMMU bound: %u chiplets, window %u, vector %u, %u walkers\n",
		 aux->chiplets, aux->window_index, aux->vector, walkers);
	return 0;
}

static void barre_iommu_remove(struct auxiliary_device *adev)
{
	struct barre_iommu *bi = dev_get_drvdata(&adev->dev);
	struct barre_space *sp;
	unsigned long pasid;

	/* A run waiting for us fails; nothing reads the rings after this. */
	barre_rings_off(bi);
	barre_iommu_teardown(bi);
	debugfs_remove_recursive(bi->debugfs);
	/* Open stats files keep bi, and from now on answer ENODEV. */
	mutex_lock(&bi->lock);
	bi->gone = true;
	xa_for_each(&bi->spaces, pasid, sp)
		kvfree(sp);
	xa_destroy(&bi->spaces);
	mutex_unlock(&bi->lock);
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
