// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: CXL-GPU's parsers and cores. The SR/DS text trace
 * parser, then the host replay of what it accepts (a refusal must name its
 * line or record; an accepted trace must replay with every load and store
 * completed and every staged store flushed); and the HDM decoder core on
 * decoder registers taken from the input (a committed decoder must decode
 * every address of its range to one target and a DPA inside the
 * endpoint's capacity); and the host model's layouts (regions from the
 * input committed by cxl_hdm_tree_commit: every line of a committed
 * region goes to one of its ports inside the capacity, nothing else
 * decodes), which the replay then routes through when bit 5 asks.
 * Any broken rule traps.
 *
 * Input: byte 0 SR mode, byte 1 flags (bit 0 DS, bit 1 GC, bit 2 local,
 * bits 3-4 media, bit 5 replay through the fuzzed layout), bytes 2-65
 * decoder registers (bytes 2-18 also the layout), then the trace text.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cxl_hdm.h"
#include "cxl_srds.h"
#include "cxl_trace.h"

static void fuzz_hdm(const uint8_t *d)
{
	static const uint8_t ids[4] = { 0x10, 0x11, 0x12, 0x13 };
	struct cxl_hdm_limits lim = { .port_ids = ids, .ports = 4,
				      .window_base = 1ULL << 36,
				      .window_size = 1ULL << 32,
				      .capacity = 1ULL << 30 };
	struct cxl_hdm hb = { .host_bridge = true, .decoders = 2, .targets = 4 };
	struct cxl_hdm ep = { .decoders = 2,
			      .global_ctrl = MCMGPU_HDM_GLOBAL_ENABLE };
	uint64_t v[8], dpa, k;
	unsigned int n;
	uint8_t id;

	memcpy(v, d, sizeof(v));
	for (n = 0; n < 2; n++) {
		hb.d[n].base = v[4 * n] & ~0xfffffffULL;
		hb.d[n].size = (v[4 * n + 1] & 0x3ULL << 28) * 4;
		hb.d[n].ctrl = v[4 * n + 2] & 0xff;
		hb.d[n].target = v[4 * n + 3];
		if (!cxl_hdm_commit_check(&hb, n, &lim))
			cxl_hdm_set_committed(&hb, n);
		ep.d[n] = hb.d[n];
		/* A small skip mostly; now and then one just below 2^64. */
		ep.d[n].target = (v[4 * n + 3] >> 60) == 0xf ?
				 0 - (v[4 * n + 3] & 0xf0000000ULL) :
				 v[4 * n + 3] & 0x30000000ULL;
		ep.d[n].ctrl &= ~MCMGPU_HDM_CTRL_COMMITTED;
		if (!cxl_hdm_commit_check(&ep, n, &lim))
			cxl_hdm_set_committed(&ep, n);
	}
	for (n = 0; n < 2; n++) {
		if (!(hb.d[n].ctrl & MCMGPU_HDM_CTRL_COMMITTED) || !hb.d[n].size)
			continue;
		for (k = 0; k < 64; k++) {
			uint64_t hpa = hb.d[n].base + (v[k % 8] ^ k * 0x9e3779b9) %
				       hb.d[n].size;

			if (!cxl_hdm_hb_route(&hb, hpa, &id))
				__builtin_trap();	/* its own range */
			if (id < 0x10 || id > 0x13)
				__builtin_trap();	/* a checked target */
			if (cxl_hdm_ep_translate(&ep, hpa, &dpa)) {
				int m = cxl_hdm_find(&ep, hpa);
				uint64_t lo = ep.d[m].dpa_base;

				if (dpa >= lim.capacity)
					__builtin_trap();	/* in the capacity */
				if (dpa < lo || dpa - lo >= ep.d[m].size /
				    cxl_hdm_ways(ep.d[m].ctrl))
					__builtin_trap();	/* its own DPAs */
			}
		}
	}
}

/* Up to two regions over two 256 MiB endpoints; true when committed. */
static bool fuzz_tree(const uint8_t *d, struct cxl_hdm_tree *t)
{
	static const uint64_t cap[2] = { MCMGPU_CXL_UNIT, MCMGPU_CXL_UNIT };
	struct mcmgpu_cxl_region r[2] = { 0 };
	unsigned int k, j, nr = 1 + d[16] % 2, bad, port;
	uint64_t window, hpa, dpa;

	cxl_hdm_tree_init(t, 2, cap, &window);
	for (k = 0; k < nr; k++) {
		r[k].base = MCMGPU_CXL_WINDOW_BASE + (d[8 * k] % 4) * MCMGPU_CXL_UNIT;
		r[k].ways = 1u << d[8 * k + 1] % 3;
		r[k].size = (d[8 * k + 2] % 4) * MCMGPU_CXL_UNIT;
		r[k].granularity = 256u << d[8 * k + 3] % 8;
		for (j = 0; j < r[k].ways; j++)
			r[k].ports[j] = d[8 * k + 4 + j] % 3;
	}
	if (cxl_hdm_tree_commit(t, r, nr, window, &bad)) {
		if (bad >= nr)
			__builtin_trap();	/* names a region */
		return false;
	}
	for (hpa = MCMGPU_CXL_WINDOW_BASE - MCMGPU_CXL_UNIT;
	     hpa < MCMGPU_CXL_WINDOW_BASE + 5 * MCMGPU_CXL_UNIT;
	     hpa += (1 << 18) + 64 * (hpa >> 18 & 63)) {
		bool in = false, ok = cxl_hdm_tree_route(t, hpa, 64, &port, &dpa);

		for (k = 0; k < nr; k++) {
			if (hpa < r[k].base || hpa - r[k].base >= r[k].size)
				continue;
			in = true;
			for (j = 0; ok && j < r[k].ways && r[k].ports[j] != port; j++)
				;
			if (ok && (j == r[k].ways || dpa + 64 > cap[port]))
				__builtin_trap();	/* its ports, its capacity */
		}
		if (in != ok)
			__builtin_trap();	/* exactly the regions decode */
	}
	return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct srds_config cfg = { .ports = 2, .route = srds_route_default };
	struct mcmgpu_cxl_record *rec;
	struct mcmgpu_cxl_sim_result res;
	struct mcmgpu_record_error err;
	struct cxl_hdm_tree tree;
	char msg[256], *text;
	uint64_t n, i, loads = 0, stores = 0;
	void *mem;

	if (size < 66)
		return 0;
	fuzz_hdm(data + 2);
	cfg.sim.sr_mode = data[0] % (MCMGPU_CXL_SR_MODES + 1);
	cfg.sim.ds = data[1] & 1;
	cfg.sim.gc = data[1] >> 1 & 1;
	cfg.sim.local = data[1] >> 2 & 1;
	cfg.sim.ctrl_ns = data[1] & 0x80 ? 250 : 80;
	cfg.media[0] = cfg.media[1] = data[1] >> 3 & 3;
	cfg.capacity[0] = cfg.capacity[1] = MCMGPU_CXL_UNIT;
	cfg.route_priv = &cfg;
	if (fuzz_tree(data + 2, &tree) && data[1] & 0x20) {
		cfg.route = srds_route_tree;
		cfg.route_priv = &tree;
	}
	text = malloc(size - 66 + 1);
	if (!text)
		return 0;
	memcpy(text, data + 66, size - 66);
	text[size - 66] = 0;
	msg[0] = 0;
	if (cxl_trace_parse(text, &rec, &n, msg, sizeof(msg))) {
		if (strncmp(msg, "line ", 5) && strcmp(msg, "out of memory"))
			__builtin_trap();	/* an error names its line */
		free(text);
		return 0;
	}
	free(text);
	if (srds_check(&cfg, rec, n, &err)) {
		if (!err.what[0] || err.index > n)
			__builtin_trap();
	} else if (n <= 2000) {
		mem = malloc(srds_state_size(&cfg));
		if (mem) {
			srds_run(&cfg, mem, rec, n, &res);
			free(mem);
			for (i = 0; i < n; i++) {
				loads += rec[i].kind == MCMGPU_CXL_REC_LOAD;
				stores += rec[i].kind == MCMGPU_CXL_REC_STORE;
			}
			if (res.loads != loads || res.stores != stores ||
			    res.ds_staged != res.ds_flushed)
				__builtin_trap();
		}
	}
	free(rec);
	return 0;
}
