/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ADSM's coherence protocols (GMAC §4.3, Fig. 6; notes/adsm.md §2.4-§2.6,
 * §4.3): the state of every block of every shared object of one context,
 * what a CPU fault, a launch (release) and a sync (acquire) do to them,
 * rolling's dirty FIFO with eager eviction, the counters and the modeled
 * time. Freestanding C: built into mcmgpu.ko (mcmgpu_adsm.c moves the data
 * and the CPU mappings), the tool's --host replay and the host tests, so
 * that a device run and a host replay count the same bytes and faults.
 *
 * Units: rolling tracks blocks of 2^block_shift bytes (the last one may be
 * short); batch and lazy track whole objects, one unit each.
 *
 * The caller serialises every call on one context. It also waits, before
 * calling adsm_fault(), adsm_release() or adsm_copy_begin(), for a running
 * kernel, and before adsm_release() and adsm_copy_begin() for the
 * evictions in flight (adsm_evicting()); an object removed with evictions
 * in flight still gets their adsm_evict_done().
 */
#ifndef MCMGPU_ADSM_PROTOCOL_H
#define MCMGPU_ADSM_PROTOCOL_H

#include "mcmgpu_compat.h"
#include "mcmgpu_adsm.h"

/* A unit's byte: state (MCMGPU_ADSM_*, with EVICTING) and its CPU mapping. */
#define ADSM_STATE_MASK		0x03
#define ADSM_MAP_MASK		0x30	/* ADSM_MAP_* */
#define ADSM_MAP_NONE		0	/* no PTE */
#define ADSM_MAP_RO		1	/* read-only PTEs */
#define ADSM_MAP_RW		2	/* writable PTEs */
#define ADSM_HELD		0x8	/* half of a split store: not evicted */
#define ADSM_THREADS		8	/* threads whose progress is kept */

enum adsm_dir { ADSM_H2D, ADSM_D2H };
enum adsm_cause { ADSM_CAUSE_CALL, ADSM_CAUSE_FAULT, ADSM_CAUSE_EVICT };

struct adsm_obj {
	struct adsm_obj *next;	/* the context's objects, oldest first */
	u64 bytes;		/* a multiple of 4 KiB */
	u64 units;
	u32 unit_shift;		/* 0: one unit, the object */
	u8 *state;		/* units bytes */
	void *priv;		/* the caller's object */
};

struct adsm_ref {
	struct adsm_obj *obj;
	u64 unit;
};

/*
 * Forward progress of one CPU thread (rolling, adsm_thread()): one store
 * may span two blocks, which with R = 1 would push each other out for
 * ever, more so when other threads' faults come between its two halves.
 */
struct adsm_thread {
	const void *key;	/* the caller's thread, compared only */
	u64 used;
	u64 ip, addr;		/* its previous fault: instruction, byte */
	bool retried;		/* the fault now is that access again */
	struct adsm_ref last;	/* the block its previous fault dirtied */
	struct adsm_ref held[2];
};

struct adsm_ops {
	/*
	 * Copy bytes [off, off + len) of o between the CPU's copy and the
	 * GPU's. 0 done, 1 an eviction still in flight (the caller calls
	 * adsm_evict_done() when it lands), or -errno (nothing was copied).
	 * The core charges the modeled cost, mcmgpu_adsm_xfer_cycles().
	 */
	int (*xfer)(void *priv, struct adsm_obj *o, u64 off, u64 len,
		    enum adsm_dir dir, enum adsm_cause cause);
	/*
	 * Take CPU access to [off, off + len) of o down to state: INVALID no
	 * PTE, READONLY no writable PTE (removing the PTEs is enough).
	 */
	void (*protect)(void *priv, struct adsm_obj *o, u64 off, u64 len,
			u8 state);
};

struct adsm_ctx {
	u32 protocol;		/* enum mcmgpu_adsm_protocol */
	u32 block_shift;
	u32 rolling;		/* R: dirty blocks allowed */
	u32 rolling_step;	/* added per object; 0 = R fixed */
	struct adsm_obj *objs;
	struct adsm_ref *fifo;	/* rolling: dirty blocks, oldest first */
	u32 fifo_cap;
	u32 fifo_head;
	u32 fifo_len;
	/* Forward progress: the faulting thread (or NULL), all threads. */
	struct adsm_thread *thread;
	struct adsm_thread threads[ADSM_THREADS];
	u64 thread_clock;
	u32 held;		/* Dirty blocks with ADSM_HELD */
	u64 total_units;
	u32 evicting;		/* evictions in flight */
	bool acquire_owed;	/* batch: launched, not yet fetched back */
	u64 clock;		/* modeled cycles on the CPU's path */
	u64 dma_free;		/* when the DMA engine is next idle */
	u32 dma_setup;
	u32 dma_bytes_per_cycle;
	struct mcmgpu_adsm_stats st;
	const struct adsm_ops *ops;
	void *priv;
};

/*
 * rolling 0: adaptive, R grows by rolling_step (0: the default step) with
 * each object from 0; else R fixed. -EINVAL a bad protocol, block size or R.
 */
int adsm_ctx_init(struct adsm_ctx *c, u32 protocol, u32 block_shift,
		  u32 rolling, u32 rolling_step, u32 dma_setup,
		  u32 dma_bytes_per_cycle, const struct adsm_ops *ops,
		  void *priv);
/* Units an object of bytes has under c's protocol. */
u64 adsm_units(const struct adsm_ctx *c, u64 bytes);
/* The FIFO capacity c needs once an object of bytes is added. */
u32 adsm_fifo_needed(const struct adsm_ctx *c, u64 bytes);
/* Moves the FIFO into storage of cap entries (cap >= its length). */
void adsm_fifo_move(struct adsm_ctx *c, struct adsm_ref *storage, u32 cap);
/*
 * Adds o (bytes set, state: adsm_units() bytes) in its initial state:
 * batch Dirty (the CPU's copy is the one), lazy and rolling Read-only.
 * The FIFO must have adsm_fifo_needed() entries.
 */
void adsm_obj_add(struct adsm_ctx *c, struct adsm_obj *o);
/* Forgets o (its dirty blocks are dropped, not sent). */
void adsm_obj_remove(struct adsm_ctx *c, struct adsm_obj *o);

u64 adsm_unit_of(const struct adsm_obj *o, u64 off);
void adsm_unit_range(const struct adsm_obj *o, u64 unit, u64 *off, u64 *len);
static inline u8 adsm_state(const struct adsm_obj *o, u64 unit)
{
	return o->state[unit] & (ADSM_STATE_MASK | MCMGPU_ADSM_EVICTING);
}

static inline u8 adsm_map(const struct adsm_obj *o, u64 unit)
{
	return FIELD_GET(ADSM_MAP_MASK, o->state[unit]);
}

/*
 * The next adsm_fault() is thread key's, at instruction ip on byte addr;
 * again: the same fault once more (after the caller waited), not a new
 * one. The same instruction a few bytes from its thread's previous fault
 * is a store split over two blocks: rolling holds that block and the one
 * the previous fault dirtied (ADSM_HELD, not evicted) until the thread's
 * next fault, so at most R + 2 * ADSM_THREADS blocks are Dirty.
 */
void adsm_thread(struct adsm_ctx *c, const void *key, u64 ip, u64 addr,
		 bool again);

/*
 * A CPU access to byte off of o that its PTEs do not allow. 0: map the
 * unit's range (*uoff, *ulen), writable if *writable. -EAGAIN: a write to
 * a block whose eviction is in flight: wait for it, then call again.
 * -errno: a transfer failed (the block stays Invalid, or Read-only when
 * an eviction it needed failed).
 */
int adsm_fault(struct adsm_ctx *c, struct adsm_obj *o, u64 off, bool write,
	       bool *writable, u64 *uoff, u64 *ulen);
/* The eviction of o's unit landed on the GPU. */
void adsm_evict_done(struct adsm_ctx *c, struct adsm_obj *o, u64 unit);
/*
 * The eviction of o's unit failed: Dirty again and the oldest, so the
 * next fault that dirties a block sends it first, or the launch does.
 */
void adsm_evict_failed(struct adsm_ctx *c, struct adsm_obj *o, u64 unit);
static inline u32 adsm_evicting(const struct adsm_ctx *c)
{
	return c->evicting;
}

/*
 * Launch (the release): every CPU write reaches the GPU and every CPU copy
 * is invalidated. On a failed transfer the blocks not yet sent stay Dirty
 * (nothing is lost) and the error is returned.
 */
int adsm_release(struct adsm_ctx *c);
/* The launched kernel finished after cycles (modeled). */
void adsm_kernel_done(struct adsm_ctx *c, u64 cycles);
/* Sync (the acquire): batch fetches every object back. */
int adsm_acquire(struct adsm_ctx *c);
/*
 * An explicit copy of [off, off + len) of a shared object o (the caller
 * waits first for a running kernel and the evictions in flight): the
 * Dirty units it touches go to the GPU before (a copy from the GPU reads
 * the CPU's writes; a copy to it keeps the unit's other bytes); lazy and
 * rolling units turn Read-only. -errno: a transfer failed.
 */
int adsm_copy_begin(struct adsm_ctx *c, struct adsm_obj *o, u64 off, u64 len);
/*
 * After a copy to the GPU: the CPU copies of the units it touched are
 * stale, Invalid (batch too: the launch does not send it over the copy).
 */
void adsm_copy_to_gpu_done(struct adsm_ctx *c, struct adsm_obj *o, u64 off,
			   u64 len);
/* An explicit copy (no protocol: the hand-written baseline) is charged. */
void adsm_charge_copy(struct adsm_ctx *c, u64 len, enum adsm_dir dir);
/* The counters the core keeps, modeled_cycles brought up to date. */
void adsm_stats(struct adsm_ctx *c, struct mcmgpu_adsm_stats *st);

/*
 * The CPU touches [off, off + len) of o as a process with one mapping of
 * o would: each unit whose (modeled) PTEs do not allow the access takes
 * a fault. For the host replay; evictions complete at once there.
 */
int adsm_cpu_access(struct adsm_ctx *c, struct adsm_obj *o, u64 off, u64 len,
		    bool write);

#endif /* MCMGPU_ADSM_PROTOCOL_H */
