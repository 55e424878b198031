// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: CXL-GPU's parsers and cores. The SR/DS text trace
 * parser, then the host replay of what it accepts (a refusal must name its
 * line or record; an accepted trace must replay with every load and store
 * completed and every staged store flushed); and the HDM decoder core on
 * decoder registers taken from the input (a committed decoder must decode
 * every address of its range to one target and a DPA inside the
 * endpoint's capacity). Any broken rule traps.
 *
 * Input: byte 0 SR mode, byte 1 flags (bit 0 DS, bit 1 GC, bit 2 local,
 * bits 3-4 media), bytes 2-65 decoder registers, then the trace text.
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
			hb.d[n].ctrl |= MCMGPU_HDM_CTRL_COMMITTED;
		ep.d[n] = hb.d[n];
		ep.d[n].target = v[4 * n + 3] & 0x30000000ULL;
		ep.d[n].ctrl &= ~MCMGPU_HDM_CTRL_COMMITTED;
		if (!cxl_hdm_commit_check(&ep, n, &lim))
			ep.d[n].ctrl |= MCMGPU_HDM_CTRL_COMMITTED;
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
			if (cxl_hdm_ep_translate(&ep, hpa, &dpa) &&
			    dpa >= lim.capacity)
				__builtin_trap();	/* inside the capacity */
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct srds_config cfg = { .ports = 2, .route = srds_route_default };
	struct mcmgpu_cxl_record *rec;
	struct mcmgpu_cxl_sim_result res;
	struct mcmgpu_record_error err;
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
