/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Adapters: a program (program.h) as the trace each of today's replays
 * reads, so every mechanism runs real programs before the timing core
 * exists (`mcmgpu workload to MECH PROG`, cmd_adapt.c). The mapping:
 *
 * Thread blocks to chiplets (--cta-policy). Block i of a kernel is the
 * linear index x + X * (y + Y * z) of its grid X x Y x Z:
 *   chunk (the default): contiguous ranges, block i on chiplet
 *     i / ceil(G / N) for G blocks and N chiplets (MCM-GPU's distributed
 *     CTA scheduling, CPElide's static kernel-wide partition);
 *   rr: block i on chiplet i mod N.
 *
 * Pages to chiplet memories (--placement). Pages are 4 KiB and counted
 * from each object's base (every object starts a page, as the replays'
 * allocators place them; two small objects never share one):
 *   first-touch: the chiplet whose access comes first in the interleaved
 *     order below (host copies do not touch);
 *   interleave: page p of an object on chiplet p mod N (Barre policy=rr);
 *   chunk: an object of P pages split in N parts of ceil(P / N) pages,
 *     page p on chiplet p / ceil(P / N) (Barre policy=kwc).
 * What each trace needs: barre an allocator layout fixed at the alloc,
 * before any access, so interleave or chunk (default chunk; first-touch
 * is refused); finepack any (default first-touch); cpelide only
 * first-touch (its model homes each page where it is first touched);
 * cxl and adsm none (one memory: --placement is refused).
 *
 * The interleaving that stands in for the timing core (which replaces
 * it): within a kernel, each chiplet's warp instructions in program
 * order (its blocks as the program lists them, each block's warps, each
 * warp's instructions), issued in lockstep round-robin: one warp
 * instruction from chiplet 0, then 1, ..., N-1, then 0 again, skipping
 * chiplets that have run out. Every instruction takes a turn, memory or
 * not. Kernels run one after the other. Only global-space memory
 * instructions make accesses; shared, local, constant and texture ones
 * count as other instructions.
 *
 * Per mechanism (docs/workloads.md has the full rules):
 *   barre: `alloc ID BYTES policy=rr|kwc` per object when it is declared;
 *     per warp memory instruction one `access CHIPLET ID OFFSET r|w` per
 *     distinct page its active lanes touch (what the coalescer sends to
 *     the TLB), in lane order, at the first lane's byte in that page; w
 *     for stores, atomics and reductions.
 *   finepack: the accesses whose page lives on another chiplet than the
 *     issuing block's: stores as `store` records, one per maximal run of
 *     contiguous bytes to one destination (the L1 coalescer's warp
 *     store), loads the same as `load` (they flush queued lines), atomics
 *     and reductions one `atomic` a lane; ADDR is the byte offset in the
 *     destination chiplet's memory, which holds the objects packed page-
 *     aligned in declaration order; data bytes are a function of that
 *     offset (writers agree, so --verify holds); `fence SRC` for a
 *     MEMBAR*.SYS; per kernel `compute SRC NS` (a GV100 per chiplet:
 *     max(warp instructions / 489.6 a ns, distinct 128 B lines x 128 /
 *     900 B a ns)), then `kernel_end`.
 *   cpelide: `alloc ID BYTES`, per kernel `kernel NAME chiplets=...` with
 *     one argument per object its global accesses touch (at most 16), r
 *     or rw (any store, atomic or reduction), the hull of bytes each
 *     chiplet touched (4-byte aligned); a written object whose chiplet
 *     hulls overlap cannot be told apart by ranges and is passed as
 *     :unknown (CPElide's fallback); COPY as host_write / host_read.
 *   cxl: per global memory instruction its distinct 64 B lines in lane
 *     order through a 256 KiB 16-way LRU last-level cache: `r` for loads
 *     that miss, `w` for every store (write-through, allocating), atomics
 *     and reductions both; addresses in the window are the objects packed
 *     page-aligned from 0; `c NS` before a line for the other
 *     instructions' active lanes at 64 lanes a ns (the CXL generators'
 *     Vortex rate).
 *   adsm: the object pattern adapt_adsm_run() replays: `object ID
 *     BYTES`, COPY h2d as `cpu_write ID OFFSET LEN` and d2h as `cpu_read`,
 *     each kernel as `kernel NAME chiplets=... [reads=..] [writes=..]`.
 */
#ifndef MCMGPU_TOOL_ADAPT_H
#define MCMGPU_TOOL_ADAPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "mcmgpu_adsm.h"
#include "program.h"

enum adapt_mech {
	ADAPT_BARRE,
	ADAPT_FINEPACK,
	ADAPT_CPELIDE,
	ADAPT_CXL,
	ADAPT_ADSM,
	ADAPT_MECHS
};

enum adapt_cta {
	ADAPT_CTA_CHUNK,
	ADAPT_CTA_RR,
	ADAPT_CTAS
};

enum adapt_placement {
	ADAPT_PLACE_DEFAULT,		/* the mechanism's (adapt_resolve) */
	ADAPT_PLACE_FIRST_TOUCH,
	ADAPT_PLACE_INTERLEAVE,
	ADAPT_PLACE_CHUNK,
	ADAPT_PLACE_NONE,		/* cxl, adsm: one memory */
	ADAPT_PLACES
};

#define ADAPT_MAX_CHIPLETS	16	/* FinePack's; the others take 8 */
#define ADAPT_ID_MAX		64	/* an object's ID, with the NUL */

struct adapt_opts {
	uint32_t mech;			/* enum adapt_mech */
	uint32_t chiplets;
	uint32_t cta;			/* enum adapt_cta */
	uint32_t placement;		/* enum adapt_placement */
};

/* Names as the command line spells them; -1 or NULL when unknown. */
int adapt_mech_parse(const char *s);
const char *adapt_mech_name(uint32_t mech);
int adapt_cta_parse(const char *s);
const char *adapt_cta_name(uint32_t cta);
int adapt_placement_parse(const char *s);
const char *adapt_placement_name(uint32_t placement);

/*
 * Fills in the mechanism's default placement and checks o against what
 * its trace can express: 0, or -EINVAL with why in err.
 */
int adapt_resolve(struct adapt_opts *o, char *err, size_t errlen);

struct adapt_stats {
	uint64_t records;		/* program records read */
	uint64_t kernels;
	uint64_t lines;			/* trace lines written, comments too */
	bool source_failed;		/* the error is the source's own */
};

/*
 * Reads a whole program from src and writes o->mech's trace to out. 0,
 * or a negative errno with err naming the record (kernel, block, warp,
 * instruction) and what the trace cannot take. When the source itself
 * fails, its errno comes back with st->source_failed set (its message is
 * the source's). o must have passed adapt_resolve().
 */
int adapt_program(const struct adapt_opts *o, prog_source_fn src,
		  void *src_ctx, FILE *out, struct adapt_stats *st,
		  char *err, size_t errlen);

/*
 * The replay of an ADSM object pattern (what adapt_program() writes for
 * adsm) on an ADSM runtime (adsm_rt.h: the device or the host's), one
 * record a line, '#' comments:
 *   object ID BYTES            a shared object (ALLOC, mapped)
 *   cpu_write ID OFFSET LEN    the CPU writes the range (a host copy in)
 *   cpu_read ID OFFSET LEN     the CPU reads it (a host copy out)
 *   kernel NAME chiplets=C,... [reads=ID,...] [writes=ID,...]
 * A kernel is a launch (the release) and a sync (the acquire): the
 * protocols' transfers and faults depend on those and on the CPU's
 * accesses only, so the launch runs the identity scale-add
 * (x = x * 1 + 0) over the first object the kernel writes, else the first
 * it reads, else the first object, on its chiplets. Under the explicit
 * "protocol" (ADSM_EXPLICIT: no mapping) cpu_write is followed by a copy
 * to the GPU and cpu_read preceded by one from it, as the program's own
 * copies were. 0, or a negative
 * errno with "line N: ..." in err. The objects are freed at the end,
 * after the runtime's counters were read into res->stats.
 */
struct adsm_rt;

struct adapt_adsm_result {
	uint64_t objects, kernels, cpu_writes, cpu_reads;
	uint64_t cpu_bytes_written, cpu_bytes_read;
	struct mcmgpu_adsm_stats stats;	/* the runtime's, at the end */
};

int adapt_adsm_run(const char *text, size_t len, struct adsm_rt *rt,
		   uint32_t chiplets, struct adapt_adsm_result *res,
		   char *err, size_t errlen);

/* `mcmgpu workload to MECH PROG ...` (cmd_adapt.c): argv[0] is "to". */
int cmd_workload_to(int argc, char **argv);

#endif /* MCMGPU_TOOL_ADAPT_H */
