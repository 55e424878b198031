// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the Barre trace parser, then the host replay of every
 * trace it accepts (the allocator, the device's TLB core and the IOMMU
 * walker with PEC, shadow walk on). A refusal must name its line; an
 * accepted trace must replay without a crash, with walks + coalesced =
 * ATS requests and no coalesced translation that differs from the walk
 * (any of these is a finding: trap).
 *
 * Input: byte 0 chiplets, byte 1 walkers, byte 2 flags (bit 0 Barre on,
 * bits 1-7 pool fragmentation in %), then the trace text. The pools are
 * small (256 frames a chiplet) so allocations fail and fall back too.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "barre_replay.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct barre_host_cfg cfg = { .frames = 256, .shadow = true };
	struct mcmgpu_barre_stats st;
	struct barre_trace t;
	char err[256];

	if (size < 3)
		return 0;
	cfg.chiplets = MCMGPU_MIN_CHIPLETS +
		       data[0] % (MCMGPU_MAX_CHIPLETS - MCMGPU_MIN_CHIPLETS + 1);
	cfg.walkers = 1 + data[1] % MCMGPU_BARRE_MAX_WALKERS;
	cfg.barre = data[2] & 1;
	cfg.fragment_pct = (data[2] >> 1) % 91;
	err[0] = '\0';
	if (barre_trace_parse((const char *)data + 3, size - 3, &t, err,
			      sizeof(err))) {
		if (strncmp(err, "line ", 5))
			__builtin_trap();	/* an error names its line */
		return 0;
	}
	/* Keep an execution short: at most 4096 records. */
	if (t.n <= 4096) {
		err[0] = '\0';
		if (barre_replay_host(&t, &cfg, &st, err, sizeof(err))) {
			if (strncmp(err, "line ", 5))
				__builtin_trap();
		} else if (st.walks + st.coalesced != st.ats_requests ||
			   st.shadow_mismatches || (!cfg.barre && st.coalesced)) {
			__builtin_trap();
		}
	}
	barre_trace_free(&t);
	return 0;
}
