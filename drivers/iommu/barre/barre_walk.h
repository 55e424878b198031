/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The Barre IOMMU's page-walk side (Barre Chord §IV-B, §IV-E, §IV-F): a
 * PW-queue, a pool of page-table walkers and PEC, all in virtual cycles.
 * Freestanding C: built into barre_iommu.ko, the tool's --host replay and
 * the host tests.
 *
 * Time: a request carries the cycle it reaches the IOMMU. barre_walker_advance(t)
 * runs every event before cycle t. At one cycle, in this order: walks that
 * end give their responses (walker order) and PEC completes the pending
 * requests of the walked page's group; then arrivals join the PW-queue (in
 * arrival order, while it has room; the rest wait outside it, where PEC
 * cannot see them); then idle walkers take requests from the queue's head.
 */
#ifndef BARRE_WALK_H
#define BARRE_WALK_H

#include "mcmgpu_compat.h"
#include "mcmgpu_barre.h"

/* Requests in flight at once: every chiplet's MSHRs (16 chiplets on the host). */
#define BARRE_WALKER_MAX_INFLIGHT		(MCMGPU_PEC_MAX_CHIPLETS * MCMGPU_BARRE_MSHRS)
#define BARRE_WALKER_MAX_PEC		8
#define BARRE_WALKER_MAX_SCHED_MOVES	255	/* a request's count is a u8 */

#define BARRE_WALKER_STATUS_OK		0
#define BARRE_WALKER_STATUS_FAULT		1	/* no valid PTE, or not writable */

struct barre_walker_request {
	u64 tag;
	u64 vpn;
	u64 arrive;		/* cycle it reaches the IOMMU */
	u32 pasid;
	u8 chiplet;
	u8 write;
	u8 moves;		/* times scheduling let others pass it */
};

struct barre_walker_response {
	u64 tag;
	u64 pfn;
	u64 done;		/* cycle the IOMMU answers */
	u32 status;		/* BARRE_WALKER_STATUS_* */
	u8 coalesced;		/* completed by PEC, without a walk */
	u8 writable;
	/* F-Barre's ATS extension: group bits, and the object if pec.valid. */
	u64 coal;
	struct mcmgpu_pec_entry pec;
};

/* How the walker reads page tables: the root of an address space, then entries. */
struct barre_walker_pt_ops {
	u64 (*root)(void *priv, u32 pasid);		/* 0: no such space */
	u64 (*read_entry)(void *priv, u64 table, u32 index);
	void *priv;
	/*
	 * Optional: the cycles of req's walk, fixed when a walker takes it
	 * (MGvm's GMMUs: local and remote PTE reads); NULL: walk_cycles.
	 */
	u32 (*walk_cycles)(void *priv, const struct barre_walker_request *req);
};

struct barre_walker_config {
	u32 walkers;		/* 1..MCMGPU_BARRE_MAX_WALKERS */
	u32 pwq_entries;	/* 1..MCMGPU_BARRE_PWQ_ENTRIES */
	u32 walk_cycles;
	u32 pec_entries;	/* 0..BARRE_WALKER_MAX_PEC; 0 = Barre off */
	bool shadow;		/* walk every coalesced page too and compare */
	/*
	 * F-Barre's coalescing-aware scheduling (§V-C): a walker passes over
	 * a request an in-flight walk will likely complete by PEC, at most
	 * sched_moves times a request (0: off, the queue is FIFO).
	 */
	u32 sched_moves;
	u32 chiplets;
	__u64 base[MCMGPU_PEC_MAX_CHIPLETS];	/* global PFN map of the chiplets */
};

struct barre_walker_stats {
	u64 ats_requests;
	u64 walks;
	u64 coalesced;
	u64 faults;
	u64 pec_hits;		/* a walked group page found its object */
	u64 pec_misses;		/* ... did not (evicted or never registered) */
	u64 pec_evictions;
	u64 shadow_mismatches;
	u64 sched_moves;	/* requests passed over by scheduling */
	u64 service_cycles;	/* sum over requests of done - arrive */
	u64 pwq_hist[MCMGPU_BARRE_PWQ_ENTRIES + 1];	/* occupancy seen on arrival */
};

/*
 * A request's place in the PEC object that holds it (the first entry of
 * its address space whose range has it, as PEC finds it): the entry's
 * slot + 1 (0: none, or an entry with g or nmap 0), its chunk (vpn -
 * start_vpn) / g, its offset in the chunk and its round, chunk / nmap;
 * the queue counts its requests by bucket, a hash of these three.
 * Computed when the request joins the PW-queue and again for every
 * request in the walker after any change of the PEC buffer, so that PEC
 * and scheduling compare these instead of dividing.
 */
struct barre_walker_place {
	u64 chunk;
	u64 round;
	u32 offset;
	u16 slot;
	u16 bucket;		/* hash of (slot, round, offset) */
};

/*
 * Buckets of the PW-queue by place: how many queued requests hash there.
 * A false hit costs a scan of the whole queue: 4096 buckets take gups'
 * scans from 1059 to 263 a replay (256: a full queue of 48 hit often).
 */
#define BARRE_WALKER_BUCKETS	4096

/* A request in the PW-queue. */
struct barre_walker_queued {
	struct barre_walker_request req;
	struct barre_walker_place place;
};

struct barre_walker_unit {
	bool busy;
	u64 done;
	struct barre_walker_request req;
	struct barre_walker_place place;
};

struct barre_walker {
	struct barre_walker_config cfg;
	struct barre_walker_pt_ops ops;
	struct mcmgpu_pec_entry pec[BARRE_WALKER_MAX_PEC];
	bool pec_overlap;	/* two entries of an address space overlap */
	u64 now;				/* every event before it is done */
	/*
	 * Outside the queue: waiting[whead .. whead + nwaiting), sorted by
	 * arrival, then tag, then submission.
	 */
	struct barre_walker_request waiting[BARRE_WALKER_MAX_INFLIGHT];
	u32 whead;
	u32 nwaiting;
	/* The PW-queue: queue[qhead .. qhead + nqueue), twice its room to slide in. */
	struct barre_walker_queued queue[2 * MCMGPU_BARRE_PWQ_ENTRIES];
	u32 qhead;
	u32 nqueue;
	u8 bucket[BARRE_WALKER_BUCKETS];
	struct barre_walker_unit walker[MCMGPU_BARRE_MAX_WALKERS];
	/* The busy walkers, a min-heap on (done, walker index). */
	u8 heap[MCMGPU_BARRE_MAX_WALKERS];
	u32 nbusy;
	struct barre_walker_stats stats;
	void (*respond)(void *priv, const struct barre_walker_response *rsp);
	void *respond_priv;
};

/* Defaults of Table II, Barre on (5 PEC entries), shadow off. */
void barre_walker_default_config(struct barre_walker_config *cfg, u32 chiplets, u64 frames);
/* -EINVAL if cfg is out of range. */
int barre_walker_init(struct barre_walker *b, const struct barre_walker_config *cfg,
		      const struct barre_walker_pt_ops *ops,
	    void (*respond)(void *priv, const struct barre_walker_response *rsp),
	    void *respond_priv);
/*
 * Empties the walkers, the queues and the counters for cfg, keeping the
 * PEC entries (objects stay registered across a reset); -EINVAL as barre_walker_init.
 * b must have been through barre_walker_init.
 */
int barre_walker_reset(struct barre_walker *b, const struct barre_walker_config *cfg);
/*
 * Registers an object (replacing the smallest entry when full, only if
 * the new object is larger; ties keep the older). Returns 1 if it is in
 * the buffer now.
 */
int barre_walker_pec_add(struct barre_walker *b, const struct mcmgpu_pec_entry *e);
/* The buffer becomes buf's n entries, slot by slot (a reloaded IOMMU). */
void barre_walker_pec_restore(struct barre_walker *b, const struct mcmgpu_pec_entry *buf,
			      u32 n);
/* Drops every entry of pasid overlapping [start, end] (a free). */
void barre_walker_pec_drop(struct barre_walker *b, u32 pasid, u64 start, u64 end);
/*
 * A new request; -EINVAL if it arrives before now, -ENOSPC past
 * BARRE_WALKER_MAX_INFLIGHT requests in flight.
 */
int barre_walker_submit(struct barre_walker *b, const struct barre_walker_request *req);
/*
 * Whether count more requests, none arriving before cycle arrive, would
 * be taken: 0, -EINVAL (arrive is in the past) or -ENOSPC (too many in
 * flight), as barre_walker_submit() would answer.
 */
int barre_walker_can_submit(const struct barre_walker *b, u64 arrive, u32 count);
/*
 * A phase that failed: its requests in flight go unanswered. Those not
 * walked yet leave ats_requests, so walks + coalesced = ats_requests
 * holds again.
 */
void barre_walker_abandon(struct barre_walker *b);
/* Runs every event before cycle until; responses go to respond(). */
void barre_walker_advance(struct barre_walker *b, u64 until);
/* Requests submitted and not answered. */
u32 barre_walker_inflight(const struct barre_walker *b);
/* The next cycle something happens, or ~0 if idle. */
u64 barre_walker_next_event(const struct barre_walker *b);
/* A full walk of vpn: the leaf PTE, or 0. */
u64 barre_walker_walk(const struct barre_walker *b, u32 pasid, u64 vpn);
/* The IOMMU's fields of a replay's counters. */
void barre_walker_export_stats(const struct barre_walker_stats *s, struct mcmgpu_barre_stats *st);

#endif /* BARRE_WALK_H */
