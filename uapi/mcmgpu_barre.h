/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * Barre (Barre Chord §IV): the numbers of the translation path, the
 * allocation policies, the PEC buffer entry and PEC's PFN calculation.
 * Shared by the allocator (drivers/mcmgpu/gpu_alloc.c), the walker
 * (drivers/iommu/barre/barre_walk.c), the device and the tool, so that
 * the formula exists once. The page-table format is in mcmgpu_hw.h.
 */
#ifndef _UAPI_MCMGPU_BARRE_H
#define _UAPI_MCMGPU_BARRE_H

#include <linux/types.h>

#include "mcmgpu_hw.h"

/* Table II of the paper; cycles are virtual device cycles. */
#define MCMGPU_BARRE_PWQ_ENTRIES	48	/* IOMMU page-walk queue */
#define MCMGPU_BARRE_WALKERS		16	/* page-table walkers */
#define MCMGPU_BARRE_MAX_WALKERS	32
#define MCMGPU_BARRE_WALK_CYCLES	500	/* one walk */
#define MCMGPU_BARRE_PCIE_CYCLES	150	/* device <-> IOMMU, each way */
#define MCMGPU_BARRE_PEC_ENTRIES	5	/* PEC buffer, per IOMMU */
#define MCMGPU_BARRE_L1_ENTRIES		64	/* per chiplet, fully associative */
#define MCMGPU_BARRE_L2_ENTRIES		512	/* per chiplet */
#define MCMGPU_BARRE_L2_WAYS		16
#define MCMGPU_BARRE_MSHRS		16	/* outstanding L2 misses a chiplet */
#define MCMGPU_BARRE_L2_CYCLES		10	/* L2 TLB lookup */
#define MCMGPU_FBARRE_LINK_CYCLES	32	/* inter-chiplet mesh, each way */
#define MCMGPU_FBARRE_FILTER_ROWS	256	/* cuckoo filter rows (x 4 ways) */
#define MCMGPU_FBARRE_SCHED_MOVES	4	/* times a request may be passed */

/*
 * The translation core's chiplets (allocator, walker, F-Barre's model):
 * the host runs up to 16, the GPU core's most (GPU_MAX_CHIPLETS). The
 * device and its ABI (ATS responses, MCMGPU_ALLOC's map, the ATS queue)
 * stay at MCMGPU_MAX_CHIPLETS, 8.
 */
#define MCMGPU_PEC_MAX_CHIPLETS		16
/*
 * coal_bitmap has a bit a chiplet and "supports up to eight GPUs with
 * eight bits" (§IV-D). On more chiplets §VI makes it "a binary count of
 * consecutive chiplets" (0110: 6), which the paper's 16-chiplet run
 * used: count mode, chosen by the chiplet count of the system, never by
 * the page. Ours (notes §2.4 leaves the details open): a count n means
 * GPU_map positions 0..n-1, since the allocator's groups always start
 * at position 0 and only an object's end shortens them; the count keeps
 * the 8 bits, the position takes 4 (mcmgpu_hw.h), and there is no
 * F-Barre expansion (§VI: at most 4 chiplets). A group with a hole (a
 * member moved away) cannot be written in count mode.
 */
#define MCMGPU_COAL_BITMAP_CHIPLETS	8

/* How an object's pages are spread over GPU_map's chiplets. */
enum mcmgpu_alloc_policy {
	MCMGPU_ALLOC_CHUNK = 0,	/* g pages per chiplet, rounds of n * g (LASP-like) */
	MCMGPU_ALLOC_RR = 1,	/* one page per chiplet: g = 1 */
	MCMGPU_ALLOC_KWC = 2,	/* kernel-wide chunking: g = ceil(pages / n) */
	MCMGPU_ALLOC_POLICIES,
};

/*
 * One object in the IOMMU's PEC buffer (notes §2.5): its address space,
 * first and last VPN (inclusive), g and GPU_map (the chiplet at each
 * position). Plain kernel data: it never crosses the ABI.
 */
struct mcmgpu_pec_entry {
	__u64 start_vpn;
	__u64 end_vpn;
	__u32 pasid;
	__u32 g;
	__u8 nmap;
	__u8 map[MCMGPU_PEC_MAX_CHIPLETS];
	__u8 valid;
	__u8 coal_count;	/* its PTEs are in count mode (> 8 chiplets) */
	__u8 reserved[5];
};

/* One access of a phase (MCMGPU_OP_BARRE_LOAD, MCMGPU_IOCTL_BARRE_RUN). */
struct mcmgpu_barre_access {
	__u64 va;		/* GPU virtual address */
	__u8 chiplet;
	__u8 write;		/* 0 read, 1 write */
	__u8 reserved[6];	/* zero */
};

/* What a write access stores at its byte: its chiplet's signature. */
#define MCMGPU_BARRE_WRITE_BYTE(chiplet)	(0xb0 + (chiplet))

/*
 * A Barre replay's counters (the JSON of mcmgpu barre replay). After every
 * replay, and in barre_iommu.ko's debugfs whenever no phase is running
 * (a failed phase's requests that were never walked leave ats_requests):
 *   walks + coalesced = ats_requests
 *   ats_requests_sent = ats_requests
 *   accesses = l1_hits + l2_hits + mshr_merges + l2_misses
 *   l2_misses = local_hits + remote_hits + ats_requests_sent
 *   remote_requests = remote_hits + remote_false_positives
 *   lcf_true_positives <= lcf_hits
 * An in-package answer a shootdown overtakes leaves local_hits or
 * remote_hits (and remote_requests) and goes to the IOMMU instead.
 */
struct mcmgpu_barre_stats {
	/* IOMMU */
	__u64 ats_requests;
	__u64 walks;
	__u64 coalesced;		/* walks + coalesced = ats_requests */
	__u64 pec_hits;
	__u64 pec_misses;
	__u64 pec_evictions;
	__u64 translation_faults;
	__u64 shadow_mismatches;
	__u64 iommu_cycles;		/* sum of arrival-to-answer at the IOMMU */
	/* device */
	__u64 accesses;
	__u64 l1_hits;
	__u64 l2_hits;
	__u64 mshr_merges;
	__u64 stall_cycles;
	__u64 access_faults;
	__u64 shootdowns;
	__u64 ats_round_trip;		/* sum of issue-to-response at the chiplets */
	__u64 modeled_cycles;
	/* allocator */
	__u64 objects;
	__u64 pages;
	__u64 grouped_pages;
	__u64 fallback_pages;
	__u64 groups;
	/* IOMMU: requests that found n requests in the PW-queue, n = 0..48 */
	__u64 pwq_occupancy[MCMGPU_BARRE_PWQ_ENTRIES + 1];
	/* F-Barre (§V): the device's L2 misses and where they were answered */
	__u64 l2_misses;
	__u64 ats_requests_sent;	/* misses the package could not answer */
	__u64 inpackage_lookups;
	__u64 local_hits;
	__u64 remote_requests;
	__u64 remote_hits;
	__u64 remote_false_positives;
	__u64 lcf_hits;
	__u64 lcf_true_positives;
	__u64 filter_messages;
	__u64 filter_messages_dropped;
	__u64 filter_overflows;
	__u64 sibling_tlb_reads;
	__u64 filter_probes;
	__u64 inpackage_mismatches;	/* answers != the true walk (--host) */
	__u64 sched_moves;		/* IOMMU: requests passed by scheduling */
	__u64 merged_groups;		/* allocator */
};

/*
 * What BARRE_RUN writes back: requests the device put in the request
 * queue, whether the phase is done, the horizon up to which the IOMMU
 * must answer (the epoch's end plus the PCIe latency), the device's
 * counters since the last reset, and on BAD_ATS_RESPONSE or BAD_TRACE
 * which response or access.
 */
struct mcmgpu_barre_run_result {
	__u32 requests;
	__u32 done;
	__u64 horizon;
	struct mcmgpu_barre_stats stats;	/* device fields only */
	struct mcmgpu_record_error error;
};

/*
 * The ATS protocol's exact lookahead (device, host replays): chiplets at
 * cycle now may run to the cycle returned without an answer arriving
 * unseen. An answer in flight is done at the IOMMU's next event at the
 * earliest (iommu_next, ~0: nothing in flight) and arrives pcie later; a
 * request sent from now on arrives pcie later, takes a walk (walk cycles;
 * PEC answers only at another walk's end, an IOMMU event) and its answer
 * pcie more. An IOMMU's next event is never before now + pcie (it ran to
 * the last horizon), so never less than 2 x pcie ahead; saturating.
 */
static inline __u64 mcmgpu_ats_lookahead(__u64 now, __u64 iommu_next,
					 __u32 pcie, __u32 walk)
{
	__u64 least = now + 2ULL * pcie, fresh = least + walk, inflight;

	if (least < now)
		return ~0ULL;
	if (fresh < least)
		fresh = ~0ULL;
	inflight = iommu_next + pcie < iommu_next ? ~0ULL : iommu_next + pcie;
	if (inflight < least)
		inflight = least;
	return inflight < fresh ? inflight : fresh;
}

/*
 * A Barre phase ends, as when epochs were a fixed 2 x PCIe, at the first
 * cycle after its last event on the grid of such epochs from its start:
 * the next phase starts there, so the counters do not depend on how the
 * epochs were cut. The first grid cycle after t (t >= start).
 */
static inline __u64 mcmgpu_barre_grid_next(__u64 start, __u64 t, __u32 pcie)
{
	__u64 L = 2ULL * pcie;

	return start + ((t - start) / L + 1) * L;
}

static inline unsigned int mcmgpu_popcount8(unsigned int v)
{
	unsigned int n = 0;

	for (v &= 0xff; v; v &= v - 1)
		n++;
	return n;
}

static inline int mcmgpu_coal_count_mode(unsigned int chiplets)
{
	return chiplets > MCMGPU_COAL_BITMAP_CHIPLETS;
}

/* A leaf PTE's coalescing fields, read in either mode. */
struct mcmgpu_coal {
	unsigned int n;		/* members; a coalescing source only if >= 2 */
	unsigned int pos;	/* this page's GPU_map position */
	unsigned int intra;	/* F-Barre: its place in its chiplet's run */
	unsigned int run;	/* F-Barre: pages a chiplet, 1 + merged */
	unsigned int field;	/* bits 40-47: the bitmap, or the count */
	int count;		/* count mode */
};

static inline void mcmgpu_coal_decode(__u64 pte, int count,
				      struct mcmgpu_coal *c)
{
	c->count = count;
	c->field = MCMGPU_PTE_COAL_BITMAP(pte);
	if (count) {
		c->n = c->field;
		c->pos = FIELD_GET(MCMGPU_PTE_COAL_POS16_MASK, pte);
		c->intra = 0;
		c->run = 1;
		return;
	}
	c->n = mcmgpu_popcount8(c->field);
	c->pos = MCMGPU_PTE_COAL_POS(pte);
	c->intra = MCMGPU_PTE_COAL_INTRA(pte);
	c->run = 1 + MCMGPU_PTE_COAL_MERGED(pte);
}

/* Whether GPU_map position k, which holds chiplet, is in the group. */
static inline int mcmgpu_coal_member(const struct mcmgpu_coal *c,
				     unsigned int k, unsigned int chiplet)
{
	return c->count ? k < c->n : (c->field >> chiplet) & 1;
}

/*
 * A member's coalescing bits: field is the chiplets' bitmap, or in count
 * mode the count; intra and run are F-Barre's (0 and 1 in count mode).
 */
static inline __u64 mcmgpu_coal_bits(int count, unsigned int field,
				     unsigned int pos, unsigned int intra,
				     unsigned int run)
{
	if (count)
		return FIELD_PREP(MCMGPU_PTE_COAL_BITMAP_MASK, field) |
		       FIELD_PREP(MCMGPU_PTE_COAL_POS16_MASK, pos);
	return FIELD_PREP(MCMGPU_PTE_COAL_BITMAP_MASK, field) |
	       FIELD_PREP(MCMGPU_PTE_COAL_POS_MASK, pos) |
	       FIELD_PREP(MCMGPU_PTE_COAL_INTRA_MASK, intra) |
	       FIELD_PREP(MCMGPU_PTE_COAL_MERGED_MASK, run - 1);
}

/*
 * PEC's calculation (notes §2.6), in the general form of §3.2 so that
 * F-Barre's merged groups use it unchanged (plain Barre: intra = 0, one
 * page per chiplet). v_t and pte_t: a VPN whose leaf PTE is known (just
 * walked, or in a chiplet's TLB). v_p: another VPN of the same address
 * space. base[c]: chiplet c's first global PFN. Returns 1 and v_p's leaf
 * PTE in *pte_p (its PFN, its own group coordinates, pte_t's permission)
 * when v_p is in v_t's group, else 0. A position counts only if its
 * chiplet's bit is in the bitmap (groups with holes, notes §6.3), in
 * count mode (e->coal_count) only if it is below the count.
 */
static inline int mcmgpu_pec_calc_pte(const struct mcmgpu_pec_entry *e,
				      const __u64 *base, __u64 v_t,
				      __u64 pte_t, __u64 v_p, __u64 *pte_p)
{
	struct mcmgpu_coal c;
	__u64 walked = MCMGPU_PTE_PFN(pte_t);
	__u64 first, d, k, x, pfn;

	mcmgpu_coal_decode(pte_t, e->coal_count, &c);
	if (c.n < 2 || !e->g || c.pos >= e->nmap ||
	    !mcmgpu_coal_member(&c, c.pos, e->map[c.pos]))
		return 0;
	if (v_p < e->start_vpn || v_p > e->end_vpn ||
	    v_t < c.intra + (__u64)e->g * c.pos)
		return 0;
	first = v_t - c.intra - (__u64)e->g * c.pos;
	if (v_p < first)
		return 0;
	d = v_p - first;
	k = d / e->g;
	x = d % e->g;
	if (x >= c.run || k >= e->nmap || !mcmgpu_coal_member(&c, k, e->map[k]))
		return 0;
	pfn = walked - base[e->map[c.pos]] - c.intra + base[e->map[k]] + x;
	*pte_p = (pte_t & (MCMGPU_PTE_VALID | MCMGPU_PTE_READ |
			   MCMGPU_PTE_WRITE)) |
		 FIELD_PREP(MCMGPU_PTE_PFN_MASK, pfn) |
		 mcmgpu_coal_bits(c.count, c.field, k, x, c.run);
	return 1;
}

/* The same, the pending page's global PFN only (the IOMMU's PEC logic). */
static inline int mcmgpu_pec_calc(const struct mcmgpu_pec_entry *e,
				  const __u64 *base, __u64 v_t, __u64 pte_t,
				  __u64 v_p, __u64 *pfn)
{
	__u64 pte;

	if (!mcmgpu_pec_calc_pte(e, base, v_t, pte_t, v_p, &pte))
		return 0;
	*pfn = MCMGPU_PTE_PFN(pte);
	return 1;
}

/*
 * A PEC buffer's replacement (§IV-E: "a new data overwrites an entry
 * having smaller data's information"), for the IOMMU's buffer and each
 * F-Barre chiplet's: an object already there stays; a free slot takes it;
 * when full the smallest object (in pages) goes, and only for a larger
 * one (ties keep the older). Returns 0 entered or present, 1 entered in
 * place of another, -1 not entered.
 */
static inline int mcmgpu_pec_insert(struct mcmgpu_pec_entry *buf,
				    unsigned int n,
				    const struct mcmgpu_pec_entry *e)
{
	unsigned int i, free_slot = n, victim = n;

	for (i = 0; i < n; i++) {
		if (!buf[i].valid) {
			if (free_slot == n)
				free_slot = i;
			continue;
		}
		if (buf[i].pasid == e->pasid && buf[i].start_vpn == e->start_vpn &&
		    buf[i].end_vpn == e->end_vpn)
			return 0;
		if (victim == n || buf[i].end_vpn - buf[i].start_vpn <
				   buf[victim].end_vpn - buf[victim].start_vpn)
			victim = i;
	}
	if (free_slot < n) {
		buf[free_slot] = *e;
		buf[free_slot].valid = 1;
		return 0;
	}
	if (victim == n || e->end_vpn - e->start_vpn <=
			   buf[victim].end_vpn - buf[victim].start_vpn)
		return -1;
	buf[victim] = *e;
	buf[victim].valid = 1;
	return 1;
}

/* A free: every entry of pasid overlapping [start, end] leaves the buffer. */
static inline void mcmgpu_pec_drop(struct mcmgpu_pec_entry *buf,
				   unsigned int n, __u32 pasid, __u64 start,
				   __u64 end)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (buf[i].valid && buf[i].pasid == pasid &&
		    buf[i].start_vpn <= end && start <= buf[i].end_vpn)
			buf[i].valid = 0;
}

#endif /* _UAPI_MCMGPU_BARRE_H */
