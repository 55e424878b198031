// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the adapters from a program to the replays' traces
 * (tools/mcmgpu/workload/adapt.c) and the ADSM object-pattern replay. The
 * input, after two option bytes, is a program in either encoding: it is
 * adapted for the mechanism, chiplet count, CTA policy and placement the
 * option bytes pick; a refusal must say why, and an accepted trace must
 * be accepted by that mechanism's own parser (for ADSM: replayed on the
 * host runtime without an error). Separately, the input itself is
 * replayed as an ADSM pattern; a refusal must name its line. Any broken
 * rule traps.
 *
 * Input: byte 0 mechanism (low 3 bits), CTA policy (bit 3), placement
 * (bits 4-5); byte 1 chiplets (2 + low 3 bits); then the program.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapt.h"
#include "adsm_rt.h"
#include "barre_trace.h"
#include "cpe_seq.h"
#include "cxl_trace.h"
#include "fp_trace.h"
#include "prog_file.h"

static void parse_trace(uint32_t mech, const char *text, size_t len,
			uint32_t chiplets)
{
	struct mcmgpu_cxl_record *rec = NULL;
	struct fp_trace_buf tb = { 0 };
	struct adapt_adsm_result res;
	struct cpe_seq seq = { 0 };
	struct barre_trace t = { 0 };
	struct adsm_rt *rt;
	char err[512];
	size_t n;

	switch (mech) {
	case ADAPT_BARRE:
		if (barre_trace_parse(text, len, &t, err, sizeof(err)))
			__builtin_trap();
		barre_trace_free(&t);
		break;
	case ADAPT_FINEPACK:
		if (fp_text_parse(text, len, &tb, err, sizeof(err)))
			__builtin_trap();
		fp_tb_free(&tb);
		break;
	case ADAPT_CPELIDE:
		if (cpe_seq_parse(text, len, chiplets,
				  MCMGPU_CPE_POLICY_CPELIDE, &seq, err,
				  sizeof(err)))
			__builtin_trap();
		cpe_seq_free(&seq);
		break;
	case ADAPT_CXL:
		if (cxl_trace_parse(text, &rec, &n, err, sizeof(err)))
			__builtin_trap();
		free(rec);
		break;
	case ADAPT_ADSM:
		rt = adsm_host_new(MCMGPU_ADSM_LAZY, 4096, 0, chiplets);
		if (!rt)
			return;
		if (adapt_adsm_run(text, len, rt, chiplets, &res, err,
				   sizeof(err)))
			__builtin_trap();
		adsm_host_free(rt);
		break;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct adapt_opts o = { 0 };
	struct adapt_adsm_result res;
	struct adapt_stats st;
	struct prog_in *in;
	struct adsm_rt *rt;
	char err[512], *text = NULL;
	size_t len = 0;
	FILE *f, *out;
	int ret;

	if (size < 2)
		return 0;
	o.mech = (data[0] & 7) % ADAPT_MECHS;
	o.cta = (data[0] >> 3) & 1;
	o.placement = (data[0] >> 4) & 3;	/* default, ft, interleave, chunk */
	o.chiplets = 2 + (data[1] & 7) % 3;	/* 2..4 */

	/* The whole input as an ADSM pattern. */
	rt = adsm_host_new(MCMGPU_ADSM_LAZY, 4096, 0, 2);
	if (rt) {
		err[0] = 0;
		if (adapt_adsm_run((const char *)data + 2, size - 2, rt, 2,
				   &res, err, sizeof(err)) &&
		    !strstr(err, "line"))
			__builtin_trap();
		adsm_host_free(rt);
	}

	if (adapt_resolve(&o, err, sizeof(err)))
		return 0;
	f = fmemopen((void *)(data + 2), size - 2, "r");
	if (!f)
		return 0;
	in = prog_in_fdopen(f, "fuzz", err, sizeof(err));
	if (!in) {
		fclose(f);
		return 0;
	}
	out = open_memstream(&text, &len);
	if (!out)
		__builtin_trap();
	err[0] = 0;
	ret = adapt_program(&o, prog_in_source, in, out, &st, err,
			    sizeof(err));
	fclose(out);
	if (ret && !st.source_failed && !err[0])
		__builtin_trap();
	if (!ret)
		parse_trace(o.mech, text, len, o.chiplets);
	free(text);
	prog_in_close(in);
	fclose(f);
	return 0;
}
