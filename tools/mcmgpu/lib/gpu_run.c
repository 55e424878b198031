// SPDX-License-Identifier: GPL-2.0
/*
 * `mcmgpu run`'s result as JSON and text, the same for both backends:
 * the core's counters (cycles, IPC, hit rates of every level, queue
 * occupancies), then each kernel, then each enabled mechanism's counters
 * under its name with the names its replay's JSON uses.
 */
#include <stdlib.h>

#include "gpu_run.h"
#include "stats.h"

#define CS(field) STAT(struct gpu_core_stats, field)
#define CQ(q) \
	STAT_OPEN(#q "_queue"), \
	STAT_AT("requests", struct gpu_core_stats, q.requests), \
	STAT_AT("bytes", struct gpu_core_stats, q.bytes), \
	STAT_AT("busy_cycles", struct gpu_core_stats, q.busy_cycles), \
	STAT_AT("wait_cycles", struct gpu_core_stats, q.wait_cycles), \
	STAT_AT("max_wait", struct gpu_core_stats, q.max_wait), \
	STAT_RATIO("utilization", STAT_SHARE, struct gpu_core_stats, \
		   q.busy_cycles, cycles), \
	STAT_RATIO("mean_occupancy", STAT_MEAN, struct gpu_core_stats, \
		   q.wait_cycles, cycles), \
	STAT_RATIO("mean_wait", STAT_MEAN, struct gpu_core_stats, \
		   q.wait_cycles, q.requests), \
	STAT_CLOSE

/* A TLB's or a cache's first rows: its p_accesses, p_hits and p_misses. */
#define CHITS(p) \
	STAT_AT("accesses", struct gpu_core_stats, p##_accesses), \
	STAT_AT("hits", struct gpu_core_stats, p##_hits), \
	STAT_AT("misses", struct gpu_core_stats, p##_misses), \
	STAT_RATIO("hit_rate", STAT_SPLIT, struct gpu_core_stats, p##_hits, \
		   p##_misses)

static const struct stat_row core_rows[] = {
	CS(cycles), CS(kernels), CS(blocks), CS(warps),
	CS(warp_insts), CS(thread_insts),
	STAT_RATIO("ipc", STAT_MEAN, struct gpu_core_stats, warp_insts, cycles),
	STAT_NEWLINE,
	CS(mem_insts), CS(global_loads), CS(global_stores), CS(global_atomics),
	CS(shared_insts), CS(barriers), CS(sectors), CS(lines),
	CS(bytes_loaded), CS(bytes_stored),
	STAT_NEWLINE,
	STAT_OPEN("stalls"),
	CS(stall_scoreboard), CS(stall_memory), CS(stall_translation),
	CS(stall_barrier), CS(stall_mshr), CS(idle_sm_cycles),
	STAT_CLOSE,
	STAT_NEWLINE,
	STAT_OPEN("l1_tlb"), CHITS(l1_tlb), STAT_CLOSE,
	STAT_OPEN("l2_tlb"), CHITS(l2_tlb),
	STAT_AT("mshr_merges", struct gpu_core_stats, l2_tlb_mshr_merges),
	STAT_AT("ats_requests", struct gpu_core_stats, ats_requests),
	STAT_AT("ats_replies", struct gpu_core_stats, ats_replies),
	STAT_RATIO("mean_ats_cycles", STAT_MEAN, struct gpu_core_stats,
		   ats_round_trip, ats_replies),
	STAT_AT("translation_faults", struct gpu_core_stats, translation_faults),
	STAT_CLOSE,
	STAT_NEWLINE,
	STAT_OPEN("l1"), CHITS(l1), STAT_CLOSE,
	STAT_OPEN("l2"), CHITS(l2),
	STAT_AT("local", struct gpu_core_stats, l2_local),
	STAT_AT("remote", struct gpu_core_stats, l2_remote),
	STAT_AT("writebacks", struct gpu_core_stats, l2_writebacks),
	STAT_CLOSE,
	STAT_NEWLINE,
	CQ(link), CQ(l2), CQ(dram),
};

static const struct stat_table core_table = STAT_TABLE(core_rows,
	"{cycles} cycles, {kernels} kernels, {warp_insts} warp instructions, IPC {ipc}\n"
	"L1 TLB hit rate {l1_tlb.hit_rate}, L2 TLB hit rate {l2_tlb.hit_rate}, "
	"{l2_tlb.ats_requests} ATS requests ({l2_tlb.mean_ats_cycles} cycles each)\n"
	"L1 hit rate {l1.hit_rate}, L2 hit rate {l2.hit_rate} "
	"({l2.local} local, {l2.remote} remote accesses)\n"
	"link {link_queue.bytes} bytes, utilization {link_queue.utilization}, "
	"mean wait {link_queue.mean_wait}; DRAM {dram_queue.bytes} bytes, "
	"utilization {dram_queue.utilization}\n");

/* The IOMMU's and the allocator's, named as `mcmgpu barre replay` names them. */
#define BS(field) STAT(struct mcmgpu_barre_stats, field)
static const struct stat_row barre_rows[] = {
	BS(ats_requests), BS(walks), BS(coalesced),
	STAT_RATIO("coalesced_share", STAT_SHARE, struct mcmgpu_barre_stats,
		   coalesced, ats_requests),
	BS(pec_hits), BS(pec_misses), BS(pec_evictions), BS(shadow_mismatches),
	BS(translation_faults),
	STAT_RATIO("mean_iommu_cycles", STAT_MEAN, struct mcmgpu_barre_stats,
		   iommu_cycles, ats_requests),
	BS(sched_moves),
	STAT_NEWLINE,
	BS(objects), BS(pages), BS(grouped_pages), BS(fallback_pages), BS(groups),
};

static const struct stat_table barre_table = STAT_TABLE(barre_rows,
	"barre: {ats_requests} ATS requests: {walks} walks, {coalesced} coalesced "
	"({coalesced_share}); {grouped_pages} of {pages} pages grouped\n");

/* Group expansion (--merge 2..4): the allocator's. */
static const struct stat_row merge_rows[] = {
	STAT_NEWLINE,
	BS(merged_groups),
};

static const struct stat_table merge_table = STAT_TABLE(merge_rows,
	"merge: {merged_groups} merged groups\n");

/* F-Barre's in-package translation (the core's), as the replay's JSON. */
static const struct stat_row fbarre_rows[] = {
	STAT_NEWLINE,
	BS(l2_misses), BS(ats_requests_sent), BS(inpackage_lookups),
	BS(local_hits), BS(remote_requests), BS(remote_hits),
	BS(remote_false_positives),
	STAT_RATIO("remote_hit_rate", STAT_SHARE, struct mcmgpu_barre_stats,
		   remote_hits, remote_requests),
	BS(lcf_hits), BS(lcf_true_positives),
	STAT_RATIO("lcf_true_positive_rate", STAT_SHARE,
		   struct mcmgpu_barre_stats, lcf_true_positives, lcf_hits),
	BS(filter_messages), BS(filter_messages_dropped), BS(filter_overflows),
	BS(sibling_tlb_reads), BS(filter_probes), BS(inpackage_mismatches),
};

static const struct stat_table fbarre_table = STAT_TABLE(fbarre_rows,
	"fbarre: {l2_misses} L2 TLB misses: {local_hits} local and {remote_hits} "
	"remote in-package answers, {ats_requests_sent} ATS requests sent; "
	"{inpackage_mismatches} mismatches\n");

static const char *const barre_modes[] = { "off", "on", "fbarre" };

/* Least's and Valkyrie's counters (--barre least|valkyrie; the core's). */
#define XS(field) STAT(struct gpu_core_share_stats, field)

static const struct stat_row least_rows[] = {
	STAT_NEWLINE,
	XS(filter_probes), XS(remote_tlb_lookups), XS(remote_tlb_hits),
	XS(remote_tlb_gone),
	STAT_AT("share_mismatches", struct gpu_core_share_stats, mismatches),
};

static const struct stat_table least_table = STAT_TABLE(least_rows,
	"least: {filter_probes} filter probes, {remote_tlb_hits} remote L2 TLB "
	"hits of {remote_tlb_lookups} lookups; {share_mismatches} mismatches\n");

static const struct stat_row valkyrie_rows[] = {
	STAT_NEWLINE,
	XS(l1_probes), XS(l1_peer_hits), XS(prefetches), XS(prefetch_hits),
	XS(prefetch_late),
	STAT_AT("share_mismatches", struct gpu_core_share_stats, mismatches),
};

static const struct stat_table valkyrie_table = STAT_TABLE(valkyrie_rows,
	"valkyrie: {l1_peer_hits} peer L1 TLB hits of {l1_probes} probes, "
	"{prefetches} prefetches, {prefetch_hits} hit, {prefetch_late} late; "
	"{share_mismatches} mismatches\n");

static const char *const xl_share_modes[] = { "off", "least", "valkyrie" };

/* ACUD's migrations (migrate=acud; the core's). */
#define MS(field) STAT(struct gpu_core_migrate_stats, field)

static const struct stat_row migrate_rows[] = {
	MS(remote_accesses), MS(migrations), MS(migrated_bytes), MS(shootdowns),
	MS(group_ptes),
	MS(tlb_entries_shot), MS(refused), MS(stale_fills), MS(held_fills),
};

static const struct stat_table migrate_table = STAT_TABLE(migrate_rows,
	"migrate: {migrations} pages migrated ({migrated_bytes} bytes) after "
	"{remote_accesses} remote accesses, {shootdowns} pages shot down "
	"({tlb_entries_shot} TLB entries), {group_ptes} group PTEs changed, "
	"{refused} refused; {stale_fills} "
	"answers asked again, {held_fills} held\n");

/* MGvm's GMMUs' page walks (mgvm on; the host backend's). */
#define MG(field) STAT(struct gpu_run_mgvm_stats, field)

static const struct stat_row mgvm_rows[] = {
	MG(pt_pages), MG(pte_reads), MG(remote_pte_reads), MG(remote_walks),
	MG(walk_cycles),
};

static const struct stat_table mgvm_table = STAT_TABLE(mgvm_rows,
	"mgvm: {pte_reads} PTE reads in GMMU walks, {remote_pte_reads} "
	"remote ({remote_walks} walks with one), {walk_cycles} walk cycles; "
	"{pt_pages} page-table pages\n");

static const char *barre_mode(const struct gpu_run_opts *o)
{
	if (!o->cfg.translate)
		return "off";
	if (o->cfg.xl_share)
		return xl_share_modes[o->cfg.xl_share % GPU_XLS_NR];
	return barre_modes[o->barre];
}

static const struct stat_table *xl_share_table(const struct gpu_run_opts *o)
{
	if (!o->cfg.translate || !o->cfg.xl_share)
		return NULL;
	return o->cfg.xl_share == GPU_XLS_LEAST ? &least_table : &valkyrie_table;
}

void gpu_run_fbarre_stats(const struct gpu_run_opts *o,
			  struct gpu_run_result *r)
{
	if (o->cfg.translate && o->barre == GPU_RUN_BARRE_FBARRE)
		fbarre_stats_to_barre(&r->core.fbarre, &r->barre);
}

/*
 * FinePack's, named as `mcmgpu finepack replay` names them; the last
 * group is what the mode sent and what the home L2s received.
 */
struct fp_core_report {
	struct gpu_finepack_stats s;
	uint64_t wire;		/* FinePack's packets' wire bytes */
};

#define FR(name, field)	STAT_AT(name, struct fp_core_report, field)
#define FS(field)	FR(#field, s.field)
#define FFLUSH(name, reason) FR(#name, s.flushes[MCMGPU_FP_FLUSH_##reason])
#define FRATIO(name, unit, a, b) STAT_RATIO(name, unit, struct fp_core_report, a, b)
static const struct stat_row fp_rows[] = {
	FS(stores), FS(store_bytes), FS(store_pieces), FS(stores_under_32b),
	FRATIO("share_under_32b", STAT_SHARE, s.stores_under_32b, s.stores),
	FS(loads), FS(atomics), FS(fences), FS(kernels),
	STAT_NEWLINE,
	FS(packets), FS(subpackets),
	FRATIO("stores_per_packet", STAT_MEAN, s.store_pieces, s.packets),
	FRATIO("subpackets_per_packet", STAT_MEAN, s.subpackets, s.packets),
	STAT_NEWLINE,
	STAT_OPEN("wire_bytes"),
	FR("total", wire),
	FR("payload", s.wire_payload),
	FR("subheader", s.wire_subheader),
	FR("overhead", s.wire_overhead),
	FR("padding", s.wire_padding),
	STAT_CLOSE,
	STAT_NEWLINE,
	FS(plain_wire_bytes), FS(plain_tlps), FS(wc_wire_bytes), FS(wc_tlps),
	FS(dma_wire_bytes), FS(dma_payload), FS(dma_tlps),
	STAT_NEWLINE,
	FRATIO("reduction", STAT_FACTOR, s.plain_wire_bytes, wire),
	FRATIO("reduction_vs_dma", STAT_FACTOR, s.dma_wire_bytes, wire),
	FRATIO("reduction_vs_wc", STAT_FACTOR, s.wc_wire_bytes, wire),
	FRATIO("efficiency", STAT_SHARE, s.wire_payload, wire),
	STAT_NEWLINE,
	STAT_OPEN("flushes"),
	FFLUSH(window, WINDOW),
	FFLUSH(payload, PAYLOAD),
	FFLUSH(entries, ENTRIES),
	FFLUSH(fence, FENCE),
	FFLUSH(kernel_end, KERNEL_END),
	FFLUSH(load, LOAD),
	FFLUSH(atomic, ATOMIC),
	STAT_CLOSE,
	STAT_NEWLINE,
	FS(link_messages), FS(link_bytes), FS(delivered_bytes),
	FS(delivered_sectors),
};

static const struct stat_table fp_table = STAT_TABLE(fp_rows,
	"finepack: {stores} stores ({store_bytes} bytes), {link_messages} "
	"messages of {link_bytes} wire bytes on the links; FinePack "
	"{wire_bytes.total}, plain P2P {plain_wire_bytes}, write combining "
	"{wc_wire_bytes}, DMA {dma_wire_bytes}; {delivered_bytes} bytes "
	"delivered\n");

/*
 * FinePack §VI-B's comparisons (docs/gpu.md, "GPS and §VI-B's design"):
 * only under --finepack gps or alt, so the other modes' output is as it
 * was.
 */
static const struct stat_row fp_alt_rows[] = {
	FS(alt_wire_bytes), FS(alt_tlps),
	FRATIO("alt_over_finepack", STAT_FACTOR, s.alt_wire_bytes, wire),
};

static const struct stat_table fp_alt_table = STAT_TABLE(fp_alt_rows,
	"alt: {alt_wire_bytes} wire bytes in {alt_tlps} TLPs, "
	"{alt_over_finepack} FinePack's bytes\n");

static const struct stat_row fp_gps_rows[] = {
	FS(gps_wire_bytes), FS(gps_tlps), FS(gps_profiling_kernels),
	FS(gps_subscribed_pages), FS(gps_dropped_stores), FS(gps_dropped_bytes),
};

static const struct stat_table fp_gps_table = STAT_TABLE(fp_gps_rows,
	"gps: {gps_wire_bytes} wire bytes in {gps_tlps} line TLPs; "
	"{gps_dropped_bytes} bytes to unsubscribed pages dropped\n");

static const struct stat_table *fp_extra_table(uint32_t mode)
{
	return mode == GPU_FP_ALT ? &fp_alt_table :
	       mode == GPU_FP_GPS ? &fp_gps_table : NULL;
}

static const char *const fp_modes[] = {
	"off", "p2p", "wc", "finepack", "dma", "gps", "alt",
};

/* CPElide's, named as `mcmgpu cpelide replay` names its own. */
#define CPE(field) STAT(struct gpu_cpelide_stats, field)
static const struct stat_row cpe_rows[] = {
	CPE(kernels), CPE(launches), CPE(l2_invalidates), CPE(l2_flushes),
	CPE(baseline_invalidates), CPE(baseline_flushes),
	CPE(elided_invalidates), CPE(elided_flushes), CPE(l1_invalidates),
	STAT_NEWLINE,
	CPE(remote_hits), CPE(remote_misses), CPE(remote_accesses),
	CPE(sectors_invalidated), CPE(sectors_written_back),
	CPE(bytes_written_back), CPE(writes_through), CPE(dir_invalidations),
	CPE(dir_evictions),
	STAT_NEWLINE,
	CPE(sync_cycles), CPE(cp_cycles), CPE(table_peak_rows),
	STAT_NEWLINE,
	CPE(oracle_violations), CPE(oracle_read_violations),
	CPE(oracle_order_violations),
	STAT_NEWLINE,
	CPE(l3_accesses), CPE(l3_hits), CPE(l3_misses), CPE(l3_writebacks),
	CPE(memory_writes),
};

static const struct stat_table cpe_table = STAT_TABLE(cpe_rows,
	"cpelide: {l2_invalidates} L2 invalidates and {l2_flushes} flushes "
	"(baseline {baseline_invalidates} + {baseline_flushes}), remote hits "
	"{remote_hits} misses {remote_misses}, {sectors_written_back} sectors "
	"written back, {sync_cycles} sync cycles, oracle violations "
	"{oracle_violations}\n");

static const char *const cpe_modes[] = {
	"off", "baseline", "cpelide", "hmg", "ideal"
};

/* The memories' write queues (cfg.dram_wq; not shown when unbounded). */
#define WQ(field) STAT(struct gpu_core_wq_stats, field)
static const struct stat_row wq_rows[] = {
	WQ(writes), WQ(waited), WQ(wait_cycles), WQ(max_wait),
};

static const struct stat_table wq_table = STAT_TABLE(wq_rows,
	"dram_wq: {writes} sector writes, {waited} waited for room "
	"({wait_cycles} cycles)\n");

/* ADSM's and the host link's, named as `mcmgpu adsm` names its own. */
#define AS(field) STAT(struct gpu_adsm_stats, field)
static const struct stat_row adsm_rows[] = {
	STAT_AT("block", struct gpu_adsm_stats, block_bytes), AS(rolling),
	AS(objects), AS(copies), AS(cpu_bytes_written), AS(cpu_bytes_read),
	STAT_NEWLINE,
	AS(h2d_bytes), AS(d2h_bytes), AS(h2d_eager), AS(h2d_call),
	AS(d2h_fault), AS(d2h_call),
	STAT_NEWLINE,
	AS(faults), AS(faults_read_invalid), AS(faults_write_invalid),
	AS(faults_write_readonly), AS(refaults), AS(evictions), AS(dirty_peak),
	STAT_NEWLINE,
	AS(launches), AS(syncs), AS(transfers), AS(kernel_cycles),
	AS(xfer_cycles), AS(fault_cycles), AS(launch_wait_cycles),
	AS(xfer_wait_cycles), AS(modeled_cycles),
};

static const struct stat_table adsm_table = STAT_TABLE(adsm_rows,
	"adsm: H2D {h2d_bytes} bytes ({h2d_eager} eager), D2H {d2h_bytes}, "
	"{transfers} transfers ({xfer_cycles} cycles), {faults} protocol "
	"faults, launches waited {launch_wait_cycles} cycles\n");

/* cfg.adsm's names; off with pcie_copies: the replay's "explicit". */
static const char *const adsm_modes[] = {
	"explicit", "batch", "lazy", "rolling"
};
/* CXL-GPU's, named as `mcmgpu cxl replay --json` names its own. */
#define CXLS(field) STAT(struct mcmgpu_cxl_sim_result, field)
static const struct stat_row cxl_rows[] = {
	CXLS(runtime_ps), CXLS(loads), CXLS(stores), CXLS(load_latency_ps),
	CXLS(store_latency_ps), CXLS(load_latency_max_ps),
	CXLS(store_latency_max_ps),
	STAT_NEWLINE,
	CXLS(dram_hits), CXLS(dram_misses), CXLS(dram_joins),
	STAT_RATIO("dram_hit_rate", STAT_SPLIT, struct mcmgpu_cxl_sim_result,
		   dram_hits, dram_misses),
	CXLS(specrd_sent), CXLS(specrd_dropped), CXLS(specrd_bytes),
	CXLS(media_reads), CXLS(media_programs), CXLS(gc_runs), STAT_NEWLINE,
	CXLS(ds_staged), CXLS(ds_flushed), CXLS(ds_read_hits),
	CXLS(ingress_max), CXLS(devload_so), CXLS(flits),
};
#undef CXLS

static const struct stat_table cxl_table = STAT_TABLE(cxl_rows,
	"cxl: {loads} loads, {stores} stores; SSD DRAM hits {dram_hits}, "
	"misses {dram_misses}; MemSpecRd {specrd_sent} ({specrd_dropped} "
	"dropped); GC {gc_runs}; DS staged {ds_staged}, flushed {ds_flushed}\n");

static const char *const cxl_sr_modes[] = { "off", "naive", "dyn", "sr", "max" };
static const char *const cxl_media[] = { "dram", "optane", "znand", "nand" };

static void cxl_head_json(struct json *j, const struct gpu_config *c)
{
	json_string(j, "media", cxl_media[c->cxl_media % 4]);
	json_string(j, "sr", cxl_sr_modes[c->cxl_sr % 5]);
	json_u64(j, "ds", c->cxl_ds);
	json_u64(j, "ports", c->cxl_ports);
	json_u64(j, "ctrl_ns", c->cxl_ctrl_ns);
	json_u64(j, "gc", c->cxl_gc);
	json_u64(j, "first_object", c->cxl_first_object);
}

/* UVM's and GDS's (gpu_uvm.h): CXL-GPU's baselines. */
#define UVS(field) STAT(struct gpu_uvm_stats, field)
static const struct stat_row uvm_rows[] = {
	UVS(page_bytes), UVS(gpu_pages), UVS(footprint_pages), STAT_NEWLINE,
	UVS(faults), UVS(duplicate_faults), UVS(batches), UVS(batch_max),
	UVS(pages_migrated), UVS(evictions), UVS(dirty_evictions),
	STAT_NEWLINE,
	UVS(h2d_bytes), UVS(d2h_bytes), UVS(runtime_cycles), UVS(xfer_cycles),
	UVS(storage_cycles), UVS(batch_cycles), UVS(stall_cycles),
};
#undef UVS

static const struct stat_table uvm_table = STAT_TABLE(uvm_rows,
	"uvm: {faults} faults in {batches} batches, {pages_migrated} pages "
	"migrated, {evictions} evicted; servicer busy {batch_cycles} cycles\n");

static const char *const uvm_modes[] = { "off", "uvm", "gds" };

static void uvm_head_json(struct json *j, const struct gpu_config *c)
{
	json_string(j, "mode", uvm_modes[c->uvm % 3]);
	if (c->uvm == GPU_UVM_GDS)
		json_string(j, "media", cxl_media[c->cxl_media % 4]);
	json_u64(j, "batch", c->uvm_batch);
	json_u64(j, "runtime_ns", c->uvm_runtime_ns);
	json_u64(j, "pcie_bw", c->uvm_pcie_bw);
}

static void fp_report(struct fp_core_report *fr, const struct gpu_run_result *r)
{
	const struct gpu_finepack_stats *s = &r->core.finepack;

	fr->s = *s;
	fr->wire = s->wire_payload + s->wire_subheader + s->wire_overhead +
		   s->wire_padding;
}

void gpu_run_result_free(struct gpu_run_result *r)
{
	free(r->kernels);
	r->kernels = NULL;
	r->nkernels = 0;
	free(r->timeline);
	r->timeline = NULL;
	r->ntimeline = 0;
}

/* One --timeline sample's items. */
static void timeline_sample_json(struct json *j, const struct gpu_cxl_sample *e)
{
	json_u64(j, "ingress_max", e->ingress_max);
	json_u64(j, "loads", e->loads);
	json_u64(j, "load_latency_ps", e->load_latency_ps);
	json_u64(j, "load_latency_mean_ps",
		 e->loads ? e->load_latency_ps / e->loads : 0);
	json_u64(j, "load_latency_max_ps", e->load_latency_max_ps);
	json_u64(j, "stores", e->stores);
	json_u64(j, "store_latency_ps", e->store_latency_ps);
	json_u64(j, "store_latency_mean_ps",
		 e->stores ? e->store_latency_ps / e->stores : 0);
	json_u64(j, "store_latency_max_ps", e->store_latency_max_ps);
	json_u64(j, "gc", e->gc);
	json_u64(j, "ds_staged", e->ds_staged);
	json_u64(j, "ds_held_max", e->ds_held_max);
}

/*
 * --timeline: sample k ends at cycle (k + 1) x every (the last at the
 * run's last cycle); "after" is what the drain past that cycle did.
 */
static void timeline_json(struct json *j, const struct gpu_run_opts *o,
			  const struct gpu_run_result *r)
{
	uint64_t k;

	json_break(j, " ");
	json_open(j, "cxl_timeline", '{');
	json_u64(j, "cycles_per_sample", o->timeline);
	json_break(j, "  ");
	json_open(j, "samples", '[');
	for (k = 0; k < r->ntimeline; k++) {
		uint64_t end = (k + 1) * o->timeline;

		json_break(j, "   ");
		json_open(j, NULL, '{');
		json_u64(j, "end", end < r->core.cycles ? end : r->core.cycles);
		timeline_sample_json(j, &r->timeline[k]);
		json_close(j);
	}
	json_close(j);
	json_break(j, "  ");
	json_open(j, "after", '{');
	timeline_sample_json(j, &r->timeline_after);
	json_close(j);
	json_close(j);
}

void gpu_run_json(struct json *j, const struct gpu_run_opts *o,
		  const struct gpu_run_result *r)
{
	uint32_t i;

	json_string(j, "config", o->cfg.name);
	json_u64(j, "chiplets", o->cfg.chiplets);
	json_string(j, "barre_mode", barre_mode(o));
	json_break(j, " ");
	json_open(j, "gpu", '{');
	stats_json(j, &core_table, &r->core);
	json_close(j);
	json_break(j, " ");
	json_open(j, "kernels", '[');
	for (i = 0; i < r->nkernels; i++) {
		const struct gpu_kernel_stats *k = &r->kernels[i];

		json_break(j, "  ");
		json_open(j, NULL, '{');
		json_u64(j, "id", k->id);
		json_string(j, "name", k->name);
		json_u64(j, "start", k->start);
		json_u64(j, "end", k->end);
		json_u64(j, "cycles", k->end - k->start);
		json_u64(j, "blocks", k->blocks);
		json_u64(j, "warp_insts", k->warp_insts);
		json_double(j, "ipc", 3, k->end > k->start ?
			    (double)k->warp_insts / (k->end - k->start) : 0.0);
		json_u64(j, "l1_tlb_misses", k->l1_tlb_misses);
		json_u64(j, "l2_tlb_misses", k->l2_tlb_misses);
		json_u64(j, "l1_misses", k->l1_misses);
		json_u64(j, "l2_misses", k->l2_misses);
		json_close(j);
	}
	json_close(j);
	if (o->cfg.translate) {
		json_break(j, " ");
		json_open(j, "barre", '{');
		stats_json(j, &barre_table, &r->barre);
		if (o->barre != GPU_RUN_BARRE_OFF && o->cfg.fbarre_merge > 1)
			stats_json(j, &merge_table, &r->barre);
		if (o->barre == GPU_RUN_BARRE_FBARRE)
			stats_json(j, &fbarre_table, &r->barre);
		if (xl_share_table(o))
			stats_json(j, xl_share_table(o), &r->core.share);
		json_close(j);
	}
	if (o->cfg.migrate) {
		json_break(j, " ");
		json_open(j, "migrate", '{');
		json_string(j, "mode", "acud");
		json_u64(j, "threshold", o->cfg.migrate_threshold);
		stats_json(j, &migrate_table, &r->core.migrate);
		json_close(j);
	}
	if (o->cfg.mgvm) {
		json_break(j, " ");
		json_open(j, "mgvm", '{');
		json_u64(j, "gmmu_lat", o->cfg.mgvm_lat);
		stats_json(j, &mgvm_table, &r->mgvm);
		json_close(j);
	}
	if (o->cfg.finepack) {
		struct fp_core_report fr;

		fp_report(&fr, r);
		json_break(j, " ");
		json_open(j, "finepack", '{');
		json_string(j, "mode", fp_modes[o->cfg.finepack % GPU_FP_NR]);
		stats_json(j, &fp_table, &fr);
		if (fp_extra_table(o->cfg.finepack))
			stats_json(j, fp_extra_table(o->cfg.finepack), &fr);
		json_close(j);
	}
	if (o->cfg.cpelide) {
		json_break(j, " ");
		json_open(j, "cpelide", '{');
		json_string(j, "policy", cpe_modes[o->cfg.cpelide % GPU_CPE_NR]);
		json_string(j, "remote", o->cfg.cpe_remote ? "cache" : "forward");
		stats_json(j, &cpe_table, &r->core.cpelide);
		if (o->streams) {
			/* Concurrent streams only: every other run unchanged. */
			json_u64(j, "streams", o->streams);
			json_u64(j, "stream_races", r->core.cpelide.stream_races);
		}
		json_close(j);
	}
	if (o->cfg.dram_wq) {
		json_break(j, " ");
		json_open(j, "dram_wq", '{');
		json_u64(j, "entries", o->cfg.dram_wq);
		stats_json(j, &wq_table, &r->core.wq);
		json_close(j);
	}
	if (o->cfg.adsm || o->cfg.pcie_copies) {
		json_break(j, " ");
		json_open(j, "adsm", '{');
		json_string(j, "protocol", adsm_modes[o->cfg.adsm % GPU_ADSM_NR]);
		stats_json(j, &adsm_table, &r->core.adsm);
		json_close(j);
	}
	if (o->cfg.cxl) {
		json_break(j, " ");
		json_open(j, "cxl", '{');
		cxl_head_json(j, &o->cfg);
		stats_json(j, &cxl_table, &r->core.cxl);
		json_close(j);
		if (o->timeline)
			timeline_json(j, o, r);
	}
	if (o->cfg.uvm) {
		json_break(j, " ");
		json_open(j, "uvm", '{');
		uvm_head_json(j, &o->cfg);
		stats_json(j, &uvm_table, &r->core.uvm);
		json_close(j);
	}
}

/* --timeline as a table: latencies in ns. */
static void timeline_row(FILE *f, const char *end,
			 const struct gpu_cxl_sample *e)
{
	fprintf(f, "%12s %7llu %8llu %10.1f %10.1f %8llu %10.1f %10.1f %3llu %8llu %8llu\n",
		end, (unsigned long long)e->ingress_max,
		(unsigned long long)e->loads,
		e->loads ? e->load_latency_ps / 1e3 / e->loads : 0.0,
		e->load_latency_max_ps / 1e3, (unsigned long long)e->stores,
		e->stores ? e->store_latency_ps / 1e3 / e->stores : 0.0,
		e->store_latency_max_ps / 1e3, (unsigned long long)e->gc,
		(unsigned long long)e->ds_staged,
		(unsigned long long)e->ds_held_max);
}

static void timeline_text(FILE *f, const struct gpu_run_opts *o,
			  const struct gpu_run_result *r)
{
	char end[24];
	uint64_t k;

	fprintf(f, "cxl timeline, %llu cycles a sample (latencies in ns)\n",
		(unsigned long long)o->timeline);
	fprintf(f, "%12s %7s %8s %10s %10s %8s %10s %10s %3s %8s %8s\n",
		"end", "ingress", "loads", "load_mean", "load_max", "stores",
		"st_mean", "st_max", "gc", "staged", "held");
	for (k = 0; k < r->ntimeline; k++) {
		uint64_t e = (k + 1) * o->timeline;

		snprintf(end, sizeof(end), "%llu", (unsigned long long)
			 (e < r->core.cycles ? e : r->core.cycles));
		timeline_row(f, end, &r->timeline[k]);
	}
	timeline_row(f, "after", &r->timeline_after);
}

void gpu_run_text(FILE *f, const struct gpu_run_opts *o,
		  const struct gpu_run_result *r)
{
	fprintf(f, "config %s, %u chiplets x %u SMs\n", o->cfg.name,
		o->cfg.chiplets, o->cfg.sms);
	stats_text(f, &core_table, &r->core);
	if (o->cfg.translate) {
		stats_text(f, &barre_table, &r->barre);
		if (o->barre != GPU_RUN_BARRE_OFF && o->cfg.fbarre_merge > 1)
			stats_text(f, &merge_table, &r->barre);
		if (o->barre == GPU_RUN_BARRE_FBARRE)
			stats_text(f, &fbarre_table, &r->barre);
		if (xl_share_table(o))
			stats_text(f, xl_share_table(o), &r->core.share);
	}
	if (o->cfg.migrate)
		stats_text(f, &migrate_table, &r->core.migrate);
	if (o->cfg.mgvm)
		stats_text(f, &mgvm_table, &r->mgvm);
	if (o->cfg.finepack) {
		struct fp_core_report fr;

		fp_report(&fr, r);
		fprintf(f, "finepack mode %s\n", fp_modes[o->cfg.finepack % GPU_FP_NR]);
		stats_text(f, &fp_table, &fr);
		if (fp_extra_table(o->cfg.finepack))
			stats_text(f, fp_extra_table(o->cfg.finepack), &fr);
	}
	if (o->cfg.cpelide) {
		fprintf(f, "cpelide policy %s\n",
			cpe_modes[o->cfg.cpelide % GPU_CPE_NR]);
		stats_text(f, &cpe_table, &r->core.cpelide);
	}
	if (o->cfg.dram_wq)
		stats_text(f, &wq_table, &r->core.wq);
	if (o->cfg.adsm || o->cfg.pcie_copies) {
		fprintf(f, "adsm protocol %s\n",
			adsm_modes[o->cfg.adsm % GPU_ADSM_NR]);
		stats_text(f, &adsm_table, &r->core.adsm);
	}
	if (o->cfg.cxl) {
		fprintf(f, "cxl media %s, sr %s, ds %s, %u ports\n",
			cxl_media[o->cfg.cxl_media % 4],
			cxl_sr_modes[o->cfg.cxl_sr % 5],
			o->cfg.cxl_ds ? "on" : "off", o->cfg.cxl_ports);
		stats_text(f, &cxl_table, &r->core.cxl);
		if (o->timeline)
			timeline_text(f, o, r);
	}
	if (o->cfg.uvm) {
		fprintf(f, "uvm mode %s\n", uvm_modes[o->cfg.uvm % 3]);
		stats_text(f, &uvm_table, &r->core.uvm);
	}
}
