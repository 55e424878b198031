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
 * bits 1-7 pool fragmentation in %), byte 3 F-Barre (bits 0-1 mode:
 * barre, sched, fbarre; bits 2-3 merge 1, 2, 4; bits 4-5 filter rows 256,
 * 512, 1024; bits 6-7 filter messages lost 0, 10, 50, 100 %), then the
 * trace text. The pools are small (256 frames a chiplet) so allocations
 * fail and fall back too. With F-Barre, every in-package translation must
 * equal the true walk and every L2 miss be answered exactly once.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "barre_replay.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct barre_replay_cfg cfg = { .frames = 256, .shadow = true };
	struct mcmgpu_barre_stats st;
	struct barre_trace t;
	char err[256];

	static const uint32_t merge[] = { 1, 2, 4, 1 };
	static const uint32_t drop[] = { 0, 100000, 500000, 1000000 };

	if (size < 4)
		return 0;
	cfg.chiplets = MCMGPU_MIN_CHIPLETS +
		       data[0] % (MCMGPU_MAX_CHIPLETS - MCMGPU_MIN_CHIPLETS + 1);
	cfg.walkers = 1 + data[1] % MCMGPU_BARRE_MAX_WALKERS;
	cfg.barre = data[2] & 1;
	cfg.fragment_pct = (data[2] >> 1) % 91;
	if (cfg.barre) {
		cfg.sched_moves = (data[3] & 3) ? 1 + data[1] % 8 : 0;
		cfg.sharing = (data[3] & 3) >= 2;
		cfg.merge = merge[(data[3] >> 2) & 3];
		cfg.filter_rows = 256 << ((data[3] >> 4) & 3) % 3;
		cfg.drop_ppm = drop[data[3] >> 6];
	}
	err[0] = '\0';
	if (barre_trace_parse((const char *)data + 4, size - 4, &t, err,
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
			   st.shadow_mismatches || (!cfg.barre && st.coalesced) ||
			   st.inpackage_mismatches ||
			   st.ats_requests_sent != st.ats_requests ||
			   st.l2_misses != st.local_hits + st.remote_hits +
					   st.ats_requests_sent) {
			__builtin_trap();
		}
	}
	barre_trace_free(&t);
	return 0;
}
