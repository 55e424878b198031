// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the CPElide sequence parser (text) and the device's
 * launch-record checks (binary records, as the LAUNCH ioctl hands them to
 * the device), then the model on every record the checks accept. A record
 * the checks accept must never crash the model, and under baseline,
 * cpelide and hmg the coherence oracle must stay clean: any violation is a
 * finding (trap).
 *
 * Input: byte 0 chiplets, byte 1 policy, byte 2 flags (bit 7: the rest is
 * binary records, else sequence text). To keep executions fast the harness
 * skips sequences of more than 256 KiB and kernels of more than 2 passes;
 * the checks themselves see every record.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cpe_seq.h"
#include "cpelide.h"

#define FUZZ_MEM_BYTES (256 << 10)

static void replay(const struct mcmgpu_cpe_record *rec, size_t n)
{
	const struct mcmgpu_cpe_record *reset = &rec[0];
	static void *arena;
	struct cpe_model *m;
	struct cpe_config cfg;
	struct cpe_error err;
	const char *why;
	size_t i;

	if (!cpe_reset_check(reset, &why) || reset->mem_bytes > FUZZ_MEM_BYTES)
		return;
	cpe_config_of_reset(&cfg, reset);
	/* Small caches and directory: evictions on small inputs. */
	cfg.l2_sets = 64;
	cfg.l2_ways = 16;
	cfg.l3_sets = 512;
	cfg.dir_sets = 4;
	if (!cpe_config_valid(&cfg, &why))
		__builtin_trap();
	if (!arena) {
		struct cpe_config big = cfg;

		big.chiplets = MCMGPU_MAX_CHIPLETS;
		big.mem_bytes = FUZZ_MEM_BYTES;
		arena = malloc(cpe_arena_bytes(&big));
	}
	m = calloc(1, sizeof(*m));
	memset(arena, 0, cpe_arena_bytes(&cfg));
	cpe_model_init(m, &cfg, arena);
	for (i = 1; i < n; i++) {
		if (cpe_record_check(m, &rec[i], &err)) {
			if (!err.what)
				__builtin_trap();	/* a refusal names its field */
			continue;
		}
		if (rec[i].type == MCMGPU_CPE_REC_KERNEL && rec[i].passes > 2)
			continue;
		cpe_model_record(m, &rec[i]);
	}
	cpe_model_finish(m);
	if (cfg.policy != MCMGPU_CPE_POLICY_IDEAL && m->stats.oracle_violations)
		__builtin_trap();
	free(m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned int chiplets, policy, flags;
	char msg[256];

	if (size < 3)
		return 0;
	chiplets = 1 + data[0] % MCMGPU_MAX_CHIPLETS;
	policy = data[1] % (MCMGPU_CPE_POLICIES + 1);	/* one invalid */
	flags = data[2];
	data += 3;
	size -= 3;
	if (flags & 0x80) {
		size_t n = size / sizeof(struct mcmgpu_cpe_record);
		struct mcmgpu_cpe_record *rec;

		if (!n)
			return 0;
		rec = malloc(n * sizeof(*rec));
		memcpy(rec, data, n * sizeof(*rec));
		replay(rec, n);
		free(rec);
	} else {
		struct cpe_seq seq = { 0 };

		if (!cpe_seq_parse((const char *)data, size, chiplets, policy,
				   &seq, msg, sizeof(msg))) {
			seq.rec[0].flags = flags & 0x7f;
			replay(seq.rec, seq.n);
		} else if (!msg[0]) {
			__builtin_trap();	/* an error names its line */
		}
		cpe_seq_free(&seq);
	}
	return 0;
}
