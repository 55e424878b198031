/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The GPU timing core as the host tests drive it: its memory from calloc,
 * and a program built with prog_builder.h run to its end in epochs.
 */
#ifndef MCMGPU_TEST_CORE_RUN_H
#define MCMGPU_TEST_CORE_RUN_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "gpu_config.h"
#include "gpu_core.h"
#include "prog_builder.h"

/*
 * CPElide's preset cut down to the tests' small programs: 4 chiplets of
 * 1 SM with a 1 MiB L2 each, chunk scheduling and kwc placement (a
 * block's pages on its chiplet), under CPElide's policy as given.
 */
static inline struct gpu_config tp_cpelide_cfg(uint32_t policy)
{
	struct gpu_config c = gpu_preset_find("cpelide")->cfg;

	c.chiplets = 4;
	c.sms = 1;
	c.l2_size = 1u << 20;
	c.tb_sched = GPU_TB_CHUNK;
	c.placement = GPU_PLACE_KWC;
	c.cpelide = policy;
	return c;
}

static inline void *core_test_alloc(void *priv, size_t bytes)
{
	(void)priv;
	return calloc(1, bytes);
}

static inline void core_test_free(void *priv, void *p)
{
	(void)priv;
	free(p);
}

/*
 * Runs p on cfg in epochs of epoch cycles with no IOMMU (every ATS
 * request would stay unanswered), CPElide's test knobs
 * (gpu_core_cpelide_test) set after init, and streams on groups of
 * chiplets (gpu_core_streams; 0: off); the stats in *st, the core's
 * message in err (GPU_CORE_ERR_MAX bytes).
 */
static inline int tp_run_streams(const struct gpu_config *cfg,
				 struct tprog *p, uint64_t epoch,
				 uint32_t cpe_knobs, uint32_t groups,
				 struct gpu_core_stats *st, char *err)
{
	static const struct gpu_core_ops ops = {
		.alloc = core_test_alloc, .free = core_test_free,
	};
	struct gpu_core *g = calloc(1, gpu_core_size(cfg));
	int ret;

	if (!g)
		return -ENOMEM;
	p->pos = 0;
	ret = gpu_core_init(g, cfg, &ops, NULL, tp_source, p);
	if (!ret)
		gpu_core_cpelide_test(g, cpe_knobs);
	if (!ret && groups)
		ret = gpu_core_streams(g, groups);
	while (!ret && !gpu_core_done(g))
		ret = gpu_core_run(g, gpu_core_now(g) + epoch);
	snprintf(err, GPU_CORE_ERR_MAX, "%s", gpu_core_error(g));
	gpu_core_stats(g, st);
	gpu_core_destroy(g);
	free(g);
	return ret;
}

static inline int tp_run(const struct gpu_config *cfg, struct tprog *p,
			 uint64_t epoch, uint32_t cpe_knobs,
			 struct gpu_core_stats *st, char *err)
{
	return tp_run_streams(cfg, p, epoch, cpe_knobs, 0, st, err);
}

#endif /* MCMGPU_TEST_CORE_RUN_H */
