/*
 * CXL-GPU speculative read (SR) and deterministic store (DS): the queue
 * logic under each of the GPU's CXL root ports (paper §III, Fig 8) and the
 * Type-3 endpoints behind them (DRAM, or an SSD with an internal DRAM
 * cache, garbage collection and DevLoad), in virtual picoseconds.
 * Freestanding: shared by the QEMU device, the tool (--host) and the host
 * tests, so a device replay equals a host replay.
 *
 * The model, and what we decided where the paper is silent (notes
 * cxlgpu.md §2, §5.1, §6; [A] = our assumption):
 *  - The GPU's LLC issues the trace in order, one record a nanosecond;
 *    COMPUTE records add their time. A load waits in its port's SR queue
 *    (32) and then the memory queue (32); the GPU stalls while the queue a
 *    record needs is full. A load completes when its data returns.
 *  - Link: x8 PCIe 5.0, one 68 B flit per 2.1 ns each way [paper Table
 *    10a]; requests and NDRs take one flit, data-carrying messages two.
 *    The controller round trip (80 ns, or the 250 ns preset) is split
 *    evenly between the two directions.
 *  - SR reader: every load in the SR queue gets its MemSpecRd as soon as
 *    the memory queue has a free slot; a MemSpecRd has no completion and
 *    frees its slot as it is sent (notes D4). A load inside a range the
 *    ring buffer (32 entries [A]) remembers sends no MemSpecRd. NAIVE: 64 B
 *    at the load. DYN: granularity G from DevLoad (ll: 1 KiB; ol: keep;
 *    mo: G − 256 B, at least 256 B [A]; so: none until ll again), 256 B
 *    aligned at the load. SR: the address window [A − G, A + G], each
 *    queued request within it moving one end 64 B, away from where the
 *    scan has been (a memory-queue request below A raises the start, one
 *    above lowers the end) and toward where it goes (an SR-queue request
 *    above A raises the start, one below lowers the end) [A: the paper's
 *    rule counts every queued request, which cannot tell a forward scan
 *    from a reverse one], rounded outward to 256 B and cut to 1 KiB.
 *    MAX: always 1 KiB (Fig 9d's "largest possible" ablation).
 *  - Endpoint: an ingress FIFO (DevLoad from its depth: < 8 ll, < 16 ol,
 *    < 24 mo, else so [A]; so also while garbage collection is imminent
 *    or running, "advertised before"), a controller taking one request a
 *    nanosecond. DRAM endpoints: 32 channels. SSD endpoints: an internal
 *    DRAM cache of 256 B sectors (2 MiB, LRU [A]) before 32 media
 *    channels with FIFO service; a demand read that misses reads its
 *    sector (the MemSpecRd unit), a MemSpecRd reads its whole range with
 *    one media read per 4 KiB page: tR (unless the page is still in the
 *    die's register), then the missing sectors one by one in address
 *    order, each ready when its own transfer ends [A]; a read that finds
 *    its sector still being filled waits for that sector only and counts
 *    as a miss (a join). Writes are buffered in the DRAM
 *    (write-back, 1024 dirty sectors at most [A]) and programmed 16
 *    sectors (one 4 KiB page) at a time; each program uses a free page;
 *    at 256 free pages garbage collection holds every channel for the
 *    media's GC time and frees 2048 pages [A]. A write that finds the
 *    dirty budget spent stalls the controller (the ingress queue grows:
 *    Fig 9e). A MemSpecRd that arrives in severe overload is dropped.
 *  - DS (SSD ports): a store is written to GPU memory and sent to the
 *    SSD at once and completes for the GPU after the GPU-memory write; if
 *    the port's previous write is still unacknowledged, or DevLoad rose to
 *    mo or so (writes suspended), the store is only staged in GPU memory
 *    (an index keyed by the line, notes D7; 65536 lines [A]), and staged
 *    lines are flushed in the background (4 in flight) once DevLoad is
 *    back to ll or ol, polled every microsecond while suspended. Loads
 *    check the staged lines first.
 *  - Media latencies (notes §5.1.10, [A], not the paper's: Table 10a lost
 *    its values): see srds_media[] in cxl_srds.c.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef CXL_SRDS_H
#define CXL_SRDS_H

#include "mcmgpu_compat.h"
#include "mcmgpu_hw.h"
#include "mcmgpu_cxl.h"

#define SRDS_MAX_PORTS          MCMGPU_CXL_MAX_PORTS

/* HPA offset in the window → the port index and DPA, as the decoders do. */
typedef bool (*srds_route_fn)(void *priv, u64 hpa, u32 *port, u64 *dpa);

struct srds_config {
    struct mcmgpu_cxl_sim_config sim;
    u32 ports;
    u32 media[SRDS_MAX_PORTS];      /* MCMGPU_CXL_MEDIA_* */
    u64 capacity[SRDS_MAX_PORTS];
    srds_route_fn route;
    void *route_priv;
};

/* Bytes of state a replay with this configuration needs. */
u64 srds_state_size(const struct srds_config *cfg);

/*
 * Check every record (kind, a 64 B aligned address the decoders map, a
 * compute time of at most 1 ms): 0, or -EINVAL with err naming the record.
 */
int srds_check(const struct srds_config *cfg,
               const struct mcmgpu_cxl_record *rec, u64 n,
               struct mcmgpu_record_error *err);

/* Replay n checked records with srds_state_size() bytes of state at mem. */
void srds_run(const struct srds_config *cfg, void *mem,
              const struct mcmgpu_cxl_record *rec, u64 n,
              struct mcmgpu_cxl_sim_result *res);

/*
 * Event by event, for a caller that keeps its own time (the GPU core):
 * srds_start() takes the state (srds_state_size() bytes at mem, the
 * counters at res); srds_submit() runs every model event up to t, then
 * issues one load or store (MCMGPU_CXL_REC_LOAD/STORE) of the 64 B line
 * at HPA offset addr (checked by the caller: aligned, routed) at t; false
 * when the queue it needs is full (nothing changed: retry after
 * srds_next_event()). Every completion the GPU sees (a load's data; a
 * store's acknowledgement, or with DS its GPU-memory write) calls done
 * with the submit's tag and the time, during srds_submit() or
 * srds_advance(), possibly with a time after the call's t (GPU-memory
 * completions are known at once). t never goes back. srds_run() is
 * srds_start() plus the trace's own issue loop.
 */
struct srds;
typedef void (*srds_done_fn)(void *priv, u64 tag, u64 t_ps);

struct srds *srds_start(const struct srds_config *cfg, void *mem,
                        struct mcmgpu_cxl_sim_result *res,
                        srds_done_fn done, void *priv);
bool srds_submit(struct srds *s, u64 t, u32 kind, u64 addr, u64 tag);
/* Runs every event at or before t. */
void srds_advance(struct srds *s, u64 t);
/* The next event's time, UINT64_MAX if none. */
u64 srds_next_event(const struct srds *s);
u64 srds_now(const struct srds *s);

/*
 * An observer of the model's state (the GPU core's --timeline, gpu_cxl.h),
 * told each change at its time t_ps; it only reads, so timing is the same
 * with or without one. SRDS_PROBE_INGRESS: endpoint a's ingress FIFO now
 * holds b requests. SRDS_PROBE_LOAD, _STORE: a completion the GPU sees,
 * of latency a (as load_latency_ps counts it). SRDS_PROBE_GC: an
 * endpoint's garbage collection will hold its channels over [a, b).
 * SRDS_PROBE_STAGED: DS staging holds a lines over every port, b of them
 * just staged (0 when a flush took one).
 */
enum {
    SRDS_PROBE_INGRESS,
    SRDS_PROBE_LOAD,
    SRDS_PROBE_STORE,
    SRDS_PROBE_GC,
    SRDS_PROBE_STAGED,
};
typedef void (*srds_probe_fn)(void *priv, u32 what, u64 t_ps, u64 a, u64 b);
/* Before the first srds_submit(); fn NULL: none (the default). */
void srds_probe(struct srds *s, srds_probe_fn fn, void *priv);

/*
 * GDS in the GPU core (gpu_uvm.c): the time one endpoint of media takes to
 * read (or, program, write) pages 4 KiB pages spread over its dies, each
 * die one page after another, with this model's media values; 0 for none.
 */
u64 srds_media_pages_ps(u32 media, bool program, u64 pages);

/* One layout for the host: one 1-way region per port (the paper's). */
bool srds_route_default(void *priv, u64 hpa, u32 *port, u64 *dpa);

/*
 * Any layout: priv is a struct cxl_hdm_tree (cxl_hdm.h) with committed
 * decoders, the trace's offsets taken from the CXL window's base. The
 * device replays with its own decoders' copy through this function.
 */
bool srds_route_tree(void *priv, u64 off, u32 *port, u64 *dpa);

#endif /* CXL_SRDS_H */
