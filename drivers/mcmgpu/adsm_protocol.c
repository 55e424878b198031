// SPDX-License-Identifier: GPL-2.0
/*
 * ADSM's batch, lazy and rolling update protocols (GMAC §4.3): see
 * adsm_protocol.h. Decisions where the paper is silent (notes §6):
 *  - batch objects start Dirty, lazy and rolling ones Read-only;
 *  - adaptive R starts at 0 and grows by the step with every object, never
 *    shrinks; "oldest" is the order blocks became Dirty (FIFO), one FIFO
 *    per context;
 *  - a write to an Invalid block fetches it first (the paper's
 *    fetch-then-write), also when the write would cover it;
 *  - batch: a CPU touch between a launch and its sync performs the sync's
 *    fetch (the acquire) itself, so nothing stale is ever read;
 *  - time: transfers run one at a time on one DMA engine; a fault or a
 *    launch waits for the transfers it needs, an eviction is issued when
 *    the previous one has finished (one in flight, §5.2) and does not hold
 *    the CPU up otherwise.
 */
#include "adsm_protocol.h"

int adsm_ctx_init(struct adsm_ctx *c, u32 protocol, u32 block_shift,
		  u32 rolling, u32 rolling_step, u32 dma_setup,
		  u32 dma_bytes_per_cycle, const struct adsm_ops *ops,
		  void *priv)
{
	if (protocol >= MCMGPU_ADSM_PROTOCOLS ||
	    block_shift < MCMGPU_ADSM_BLOCK_MIN_SHIFT ||
	    block_shift > MCMGPU_ADSM_BLOCK_MAX_SHIFT ||
	    rolling > MCMGPU_ADSM_ROLLING_MAX ||
	    rolling_step > MCMGPU_ADSM_ROLLING_MAX || !dma_bytes_per_cycle)
		return -EINVAL;
	memset(c, 0, sizeof(*c));
	c->protocol = protocol;
	c->block_shift = block_shift;
	c->rolling = rolling;
	c->rolling_step = rolling ? 0 :
			  rolling_step ? rolling_step : MCMGPU_ADSM_ROLLING_STEP;
	c->dma_setup = dma_setup;
	c->dma_bytes_per_cycle = dma_bytes_per_cycle;
	c->ops = ops;
	c->priv = priv;
	return 0;
}

u64 adsm_units(const struct adsm_ctx *c, u64 bytes)
{
	if (c->protocol != MCMGPU_ADSM_ROLLING)
		return 1;
	return (bytes + (1ULL << c->block_shift) - 1) >> c->block_shift;
}

static u32 adsm_rolling_after(const struct adsm_ctx *c)
{
	u64 r = (u64)c->rolling + c->rolling_step;

	return r > MCMGPU_ADSM_ROLLING_MAX ? MCMGPU_ADSM_ROLLING_MAX : r;
}

u32 adsm_fifo_needed(const struct adsm_ctx *c, u64 bytes)
{
	u64 units = c->total_units + adsm_units(c, bytes);

	if (c->protocol != MCMGPU_ADSM_ROLLING)
		return 0;
	/*
	 * A place for every block: a failed eviction puts its block back
	 * whatever else is Dirty (R, one spared for a store across two
	 * blocks, one overflowing, and the blocks whose evictions failed).
	 */
	return (u32)units;
}

static struct adsm_ref *adsm_fifo_at(const struct adsm_ctx *c, u32 i)
{
	return &c->fifo[(c->fifo_head + i) % c->fifo_cap];
}

/* Keeps, in order, the FIFO's blocks still Dirty and not of object drop. */
static void adsm_fifo_keep(struct adsm_ctx *c, const struct adsm_obj *drop)
{
	u32 i, kept = 0;

	for (i = 0; i < c->fifo_len; i++) {
		struct adsm_ref r = *adsm_fifo_at(c, i);

		if (r.obj != drop &&
		    (r.obj->state[r.unit] & ADSM_STATE_MASK) == MCMGPU_ADSM_DIRTY)
			*adsm_fifo_at(c, kept++) = r;
	}
	c->fifo_len = kept;
}

void adsm_fifo_move(struct adsm_ctx *c, struct adsm_ref *storage, u32 cap)
{
	u32 i;

	for (i = 0; i < c->fifo_len; i++)
		storage[i] = *adsm_fifo_at(c, i);
	c->fifo = storage;
	c->fifo_cap = cap;
	c->fifo_head = 0;
}

static bool adsm_ref_is(struct adsm_ref r, struct adsm_obj *o, u64 unit)
{
	return r.obj == o && r.unit == unit;
}

/* A unit's state and mapping; ADSM_HELD stays (adsm_unhold() clears it). */
static void adsm_set(struct adsm_obj *o, u64 unit, u8 state, u8 map)
{
	o->state[unit] = state | FIELD_PREP(ADSM_MAP_MASK, map) |
			 (o->state[unit] & ADSM_HELD);
}

static void adsm_hold(struct adsm_ctx *c, struct adsm_thread *t, int i,
		      struct adsm_ref r)
{
	t->held[i] = r;
	if (!(r.obj->state[r.unit] & ADSM_HELD)) {
		r.obj->state[r.unit] |= ADSM_HELD;
		c->held++;
	}
}

static void adsm_unhold(struct adsm_ctx *c, struct adsm_thread *t)
{
	int i;

	for (i = 0; i < 2; i++) {
		struct adsm_ref r = t->held[i];

		if (r.obj && r.obj->state[r.unit] & ADSM_HELD) {
			r.obj->state[r.unit] &= ~ADSM_HELD;
			c->held--;
		}
		t->held[i] = (struct adsm_ref){ NULL, 0 };
	}
}

/* Every hold goes, and the threads forget o's blocks (o NULL: all). */
static void adsm_threads_forget(struct adsm_ctx *c, const struct adsm_obj *o)
{
	struct adsm_thread *t;

	for (t = c->threads; t < c->threads + ADSM_THREADS; t++) {
		adsm_unhold(c, t);
		if (!o || t->last.obj == o)
			t->last = (struct adsm_ref){ NULL, 0 };
	}
}

void adsm_thread(struct adsm_ctx *c, const void *key, u64 ip, u64 addr,
		 bool again)
{
	struct adsm_thread *t, *old = c->threads;

	for (t = c->threads; t < c->threads + ADSM_THREADS; t++) {
		if (t->key == key)
			goto found;
		if (t->used < old->used)
			old = t;
	}
	/* The least recently used thread's record is taken over. */
	t = old;
	adsm_unhold(c, t);
	*t = (struct adsm_thread){ .key = key };
found:
	t->used = ++c->thread_clock;
	if (!again) {
		t->retried = t->ip == ip && addr - t->addr + 64 < 128;
		t->ip = ip;
		t->addr = addr;
	}
	c->thread = t;
}

void adsm_obj_add(struct adsm_ctx *c, struct adsm_obj *o)
{
	struct adsm_obj **p = &c->objs;
	u8 init = c->protocol == MCMGPU_ADSM_BATCH ? MCMGPU_ADSM_DIRTY :
		  MCMGPU_ADSM_READONLY;
	u64 u;

	o->unit_shift = c->protocol == MCMGPU_ADSM_ROLLING ? c->block_shift : 0;
	o->units = adsm_units(c, o->bytes);
	for (u = 0; u < o->units; u++)
		o->state[u] = init;
	o->next = NULL;
	while (*p)
		p = &(*p)->next;
	*p = o;
	c->total_units += o->units;
	c->rolling = adsm_rolling_after(c);
	c->st.objects++;
}

void adsm_obj_remove(struct adsm_ctx *c, struct adsm_obj *o)
{
	struct adsm_obj **p;

	for (p = &c->objs; *p; p = &(*p)->next) {
		if (*p == o) {
			*p = o->next;
			break;
		}
	}
	/* Its FIFO entries go (every entry is Dirty); the others keep order. */
	adsm_threads_forget(c, o);
	adsm_fifo_keep(c, o);
	c->total_units -= o->units;
	c->st.objects--;
}

u64 adsm_unit_of(const struct adsm_obj *o, u64 off)
{
	return o->unit_shift ? off >> o->unit_shift : 0;
}

void adsm_unit_range(const struct adsm_obj *o, u64 unit, u64 *off, u64 *len)
{
	u64 start = o->unit_shift ? unit << o->unit_shift : 0;
	u64 end = o->unit_shift ? start + (1ULL << o->unit_shift) : o->bytes;

	*off = start;
	*len = (end > o->bytes ? o->bytes : end) - start;
}

static u64 adsm_max(u64 a, u64 b)
{
	return a > b ? a : b;
}

/* Accounts one transfer: bytes by direction and cause, modeled time. */
static void adsm_charge(struct adsm_ctx *c, u64 len, enum adsm_dir dir,
			enum adsm_cause cause)
{
	u64 cycles = mcmgpu_adsm_xfer_cycles(len, c->dma_setup,
					     c->dma_bytes_per_cycle);

	c->st.transfers++;
	c->st.xfer_cycles += cycles;
	if (dir == ADSM_H2D) {
		c->st.h2d_bytes += len;
		if (cause == ADSM_CAUSE_EVICT)
			c->st.h2d_evict += len;
		else
			c->st.h2d_call += len;
	} else {
		c->st.d2h_bytes += len;
		if (cause == ADSM_CAUSE_FAULT)
			c->st.d2h_fault += len;
		else
			c->st.d2h_call += len;
	}
	if (cause == ADSM_CAUSE_EVICT) {
		/* Issued once the previous transfer is done; off the CPU's path. */
		c->clock = adsm_max(c->clock, c->dma_free);
		c->dma_free = c->clock + cycles;
	} else {
		c->clock = adsm_max(c->clock, c->dma_free) + cycles;
		c->dma_free = c->clock;
	}
}

static int adsm_xfer(struct adsm_ctx *c, struct adsm_obj *o, u64 off, u64 len,
		     enum adsm_dir dir, enum adsm_cause cause)
{
	int ret = c->ops->xfer(c->priv, o, off, len, dir, cause);

	if (ret >= 0)
		adsm_charge(c, len, dir, cause);
	return ret;
}

/* A block Dirty again, as the oldest: its data is not on the GPU. */
static void adsm_fifo_push_front(struct adsm_ctx *c, struct adsm_obj *o,
				 u64 unit)
{
	c->fifo_head = (c->fifo_head + c->fifo_cap - 1) % c->fifo_cap;
	c->fifo_len++;
	*adsm_fifo_at(c, 0) = (struct adsm_ref){ o, unit };
	adsm_set(o, unit, MCMGPU_ADSM_DIRTY, ADSM_MAP_NONE);
}

/*
 * Rolling: the oldest dirty block goes to the GPU early and turns R. A
 * transfer that fails leaves it Dirty and the oldest, and is returned.
 */
static int adsm_evict_oldest(struct adsm_ctx *c)
{
	struct adsm_ref victim = *adsm_fifo_at(c, 0);
	u64 off, len;
	int ret;

	/* Held blocks go to the tail: the caller leaves an unheld one. */
	while (victim.obj->state[victim.unit] & ADSM_HELD) {
		c->fifo_head = (c->fifo_head + 1) % c->fifo_cap;
		*adsm_fifo_at(c, c->fifo_len - 1) = victim;
		victim = *adsm_fifo_at(c, 0);
	}
	c->fifo_head = (c->fifo_head + 1) % c->fifo_cap;
	c->fifo_len--;
	adsm_unit_range(victim.obj, victim.unit, &off, &len);
	c->ops->protect(c->priv, victim.obj, off, len, MCMGPU_ADSM_READONLY);
	adsm_set(victim.obj, victim.unit,
		 MCMGPU_ADSM_READONLY | MCMGPU_ADSM_EVICTING, ADSM_MAP_NONE);
	c->evicting++;
	c->st.evictions++;
	ret = adsm_xfer(c, victim.obj, off, len, ADSM_H2D, ADSM_CAUSE_EVICT);
	if (ret == 0) {
		adsm_evict_done(c, victim.obj, victim.unit);
	} else if (ret < 0) {
		c->evicting--;
		c->st.evictions--;
		adsm_fifo_push_front(c, victim.obj, victim.unit);
		return ret;
	}
	return 0;
}

void adsm_evict_done(struct adsm_ctx *c, struct adsm_obj *o, u64 unit)
{
	o->state[unit] &= ~MCMGPU_ADSM_EVICTING;
	c->evicting--;
}

void adsm_evict_failed(struct adsm_ctx *c, struct adsm_obj *o, u64 unit)
{
	adsm_evict_done(c, o, unit);
	adsm_fifo_push_front(c, o, unit);
}

/*
 * A block turns Dirty: rolling queues it and evicts beyond R (held blocks
 * apart). A failed eviction leaves the block as it was (Read-only,
 * unmapped).
 */
static int adsm_make_dirty(struct adsm_ctx *c, struct adsm_thread *t,
			   struct adsm_obj *o, u64 unit)
{
	struct adsm_ref r = { o, unit };
	int ret = 0;

	adsm_set(o, unit, MCMGPU_ADSM_DIRTY, ADSM_MAP_RW);
	if (c->protocol != MCMGPU_ADSM_ROLLING)
		return 0;
	*adsm_fifo_at(c, c->fifo_len++) = r;
	/*
	 * Forward progress: the other half of a split store is held with
	 * this one while still Dirty (not pushed out by this fault nor by
	 * another thread's), this one alone else, so that the thread's next
	 * try finds its first half still writable.
	 */
	if (t && t->retried) {
		adsm_hold(c, t, 0, r);
		if (t->last.obj && !adsm_ref_is(t->last, o, unit) &&
		    adsm_state(t->last.obj, t->last.unit) == MCMGPU_ADSM_DIRTY)
			adsm_hold(c, t, 1, t->last);
	}
	while (!ret && c->fifo_len - c->held > c->rolling)
		ret = adsm_evict_oldest(c);
	if (ret) {
		/* Undone: the others beyond R were sent. */
		if (t)
			adsm_unhold(c, t);
		/* Held blocks may have rotated behind it: drop it wherever. */
		adsm_set(o, unit, MCMGPU_ADSM_READONLY, ADSM_MAP_NONE);
		adsm_fifo_keep(c, NULL);
		return ret;
	}
	if (t)
		t->last = r;
	c->st.dirty_peak = adsm_max(c->st.dirty_peak, c->fifo_len);
	return 0;
}

/* Batch: every object back from the GPU, if a launch left them there. */
static int adsm_fetch_back(struct adsm_ctx *c)
{
	struct adsm_obj *o;
	int ret;

	if (!c->acquire_owed)
		return 0;
	for (o = c->objs; o; o = o->next) {
		if (adsm_state(o, 0) != MCMGPU_ADSM_INVALID)
			continue;	/* fetched before a failure */
		ret = adsm_xfer(c, o, 0, o->bytes, ADSM_D2H, ADSM_CAUSE_CALL);
		if (ret < 0)
			return ret;
		adsm_set(o, 0, MCMGPU_ADSM_DIRTY, ADSM_MAP_NONE);
	}
	c->acquire_owed = false;
	return 0;
}

int adsm_acquire(struct adsm_ctx *c)
{
	c->st.syncs++;
	return adsm_fetch_back(c);
}

int adsm_fault(struct adsm_ctx *c, struct adsm_obj *o, u64 off, bool write,
	       bool *writable, u64 *uoff, u64 *ulen)
{
	u64 unit = adsm_unit_of(o, off);
	struct adsm_thread *t = c->thread;
	u8 s = adsm_state(o, unit);
	int ret;

	c->thread = NULL;
	/*
	 * A write waiting for its block's eviction is the same try again:
	 * the half of a split store it holds stays held, or other threads'
	 * faults evict it meanwhile and the two halves chase each other.
	 * (Batch has no evictions.)
	 */
	if (write && (s & MCMGPU_ADSM_EVICTING))
		return -EAGAIN;
	/* The thread's previous store is done, or this is its next try. */
	if (t)
		adsm_unhold(c, t);
	adsm_unit_range(o, unit, uoff, ulen);
	if (c->protocol == MCMGPU_ADSM_BATCH) {
		/*
		 * No detection: Dirty and writable, once the sync is done, or
		 * once this object is back after a copy to the GPU.
		 */
		if (s == MCMGPU_ADSM_INVALID) {
			ret = c->acquire_owed ? adsm_fetch_back(c) :
			      adsm_xfer(c, o, 0, o->bytes, ADSM_D2H,
					ADSM_CAUSE_FAULT);
			if (ret < 0)
				return ret;
		}
		c->st.refaults++;
		adsm_set(o, unit, MCMGPU_ADSM_DIRTY, ADSM_MAP_RW);
		*writable = true;
		return 0;
	}
	s &= ADSM_STATE_MASK;
	*writable = false;
	switch (s) {
	case MCMGPU_ADSM_INVALID:
		ret = adsm_xfer(c, o, *uoff, *ulen, ADSM_D2H, ADSM_CAUSE_FAULT);
		if (ret < 0)
			return ret;
		c->st.faults++;
		if (write) {
			c->st.faults_write_invalid++;
			ret = adsm_make_dirty(c, t, o, unit);
			if (ret)
				return ret;
			*writable = true;
		} else {
			c->st.faults_read_invalid++;
			adsm_set(o, unit, MCMGPU_ADSM_READONLY, ADSM_MAP_RO);
		}
		return 0;
	case MCMGPU_ADSM_READONLY:
		if (write) {
			c->st.faults++;
			c->st.faults_write_readonly++;
			ret = adsm_make_dirty(c, t, o, unit);
			if (ret)
				return ret;
			*writable = true;
		} else {
			c->st.refaults++;
			adsm_set(o, unit, adsm_state(o, unit), ADSM_MAP_RO);
		}
		return 0;
	default:
		c->st.refaults++;
		adsm_set(o, unit, MCMGPU_ADSM_DIRTY, ADSM_MAP_RW);
		*writable = true;
		return 0;
	}
}

int adsm_release(struct adsm_ctx *c)
{
	struct adsm_obj *o;
	int ret = 0;
	u64 u;

	/* Batch, two launches without a sync: the CPU's copy is stale. */
	ret = adsm_fetch_back(c);
	if (ret)
		return ret;
	adsm_threads_forget(c, NULL);
	c->st.launches++;
	for (o = c->objs; o; o = o->next) {
		/* No CPU store may race the transfers: every PTE goes first. */
		c->ops->protect(c->priv, o, 0, o->bytes, MCMGPU_ADSM_INVALID);
		for (u = 0; u < o->units; u++) {
			u8 s = adsm_state(o, u);
			u64 off, len;

			adsm_set(o, u, s, ADSM_MAP_NONE);
			if (ret)
				continue;
			/* Batch's objects are all Dirty, but after a copy to the GPU. */
			if (s == MCMGPU_ADSM_DIRTY) {
				adsm_unit_range(o, u, &off, &len);
				ret = adsm_xfer(c, o, off, len, ADSM_H2D,
						ADSM_CAUSE_CALL);
				if (ret < 0)
					continue;
			}
			adsm_set(o, u, MCMGPU_ADSM_INVALID, ADSM_MAP_NONE);
		}
	}
	if (ret < 0) {
		/* Blocks left Dirty stay queued; the rest is Invalid already. */
		adsm_fifo_keep(c, NULL);
		return ret;
	}
	c->fifo_len = 0;
	c->fifo_head = 0;
	c->acquire_owed = c->protocol == MCMGPU_ADSM_BATCH;
	return 0;
}

/* The units of o an explicit copy of [off, off + len) touches. */
static void adsm_copy_units(const struct adsm_obj *o, u64 off, u64 len,
			    u64 *first, u64 *last)
{
	u64 end = off + len - 1;

	/* Past the true size: the last page, so the last unit's. */
	*first = adsm_unit_of(o, off < o->bytes ? off : o->bytes - 1);
	*last = adsm_unit_of(o, end < o->bytes ? end : o->bytes - 1);
}

int adsm_copy_begin(struct adsm_ctx *c, struct adsm_obj *o, u64 off, u64 len)
{
	u64 u, first, last, uoff, ulen;
	int ret = 0;

	adsm_threads_forget(c, o);
	adsm_copy_units(o, off, len, &first, &last);
	for (u = first; u <= last && !ret; u++) {
		if (adsm_state(o, u) != MCMGPU_ADSM_DIRTY)
			continue;
		adsm_unit_range(o, u, &uoff, &ulen);
		/* Batch's blocks stay Dirty: no detection, sent at the launch. */
		if (c->protocol != MCMGPU_ADSM_BATCH)
			c->ops->protect(c->priv, o, uoff, ulen,
					MCMGPU_ADSM_READONLY);
		ret = adsm_xfer(c, o, uoff, ulen, ADSM_H2D, ADSM_CAUSE_CALL);
		if (ret >= 0 && c->protocol != MCMGPU_ADSM_BATCH)
			adsm_set(o, u, MCMGPU_ADSM_READONLY, ADSM_MAP_NONE);
	}
	if (c->protocol == MCMGPU_ADSM_ROLLING)
		adsm_fifo_keep(c, NULL);
	return ret < 0 ? ret : 0;
}

void adsm_copy_to_gpu_done(struct adsm_ctx *c, struct adsm_obj *o, u64 off,
			   u64 len)
{
	u64 u, first, last, uoff, ulen;

	adsm_copy_units(o, off, len, &first, &last);
	for (u = first; u <= last; u++) {
		adsm_unit_range(o, u, &uoff, &ulen);
		c->ops->protect(c->priv, o, uoff, ulen, MCMGPU_ADSM_INVALID);
		adsm_set(o, u, MCMGPU_ADSM_INVALID, ADSM_MAP_NONE);
	}
	if (c->protocol == MCMGPU_ADSM_ROLLING)
		adsm_fifo_keep(c, NULL);
}

void adsm_kernel_done(struct adsm_ctx *c, u64 cycles)
{
	c->st.kernel_cycles += cycles;
	c->clock = adsm_max(c->clock, c->dma_free) + cycles;
	c->dma_free = c->clock;
}

void adsm_charge_copy(struct adsm_ctx *c, u64 len, enum adsm_dir dir)
{
	adsm_charge(c, len, dir, ADSM_CAUSE_CALL);
}

void adsm_stats(struct adsm_ctx *c, struct mcmgpu_adsm_stats *st)
{
	c->st.protocol = c->protocol;
	c->st.block_bytes = c->protocol == MCMGPU_ADSM_ROLLING ?
			    1ULL << c->block_shift : 0;
	c->st.rolling = c->protocol == MCMGPU_ADSM_ROLLING ? c->rolling : 0;
	c->st.dma_setup = c->dma_setup;
	c->st.dma_bytes_per_cycle = c->dma_bytes_per_cycle;
	c->st.modeled_cycles = adsm_max(c->clock, c->dma_free);
	*st = c->st;
	st->size = sizeof(*st);
}

int adsm_cpu_access(struct adsm_ctx *c, struct adsm_obj *o, u64 off, u64 len,
		    bool write)
{
	u64 end = off + len, uoff, ulen;
	bool writable;
	int ret;

	if (!len || end > o->bytes || end < off)
		return -EINVAL;
	while (off < end) {
		u64 unit = adsm_unit_of(o, off);
		u8 map = adsm_map(o, unit);

		if (!(map == ADSM_MAP_RW || (map == ADSM_MAP_RO && !write))) {
			ret = adsm_fault(c, o, off, write, &writable, &uoff,
					 &ulen);
			if (ret)
				return ret;
			c->st.hw_faults++;
		}
		adsm_unit_range(o, unit, &uoff, &ulen);
		off = uoff + ulen;
	}
	return 0;
}
