// SPDX-License-Identifier: GPL-2.0
/* The SR/DS replay (cxl_replay.h) and its host backend. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cxl_replay.h"

/* Every record checked as the device checks them, then the core. */
static int host_run(struct cxl_backend *b, const struct srds_config *cfg,
		    const struct mcmgpu_cxl_record *rec, uint64_t n,
		    struct mcmgpu_cxl_sim_result *res, struct replay_error *e)
{
	struct mcmgpu_record_error err;
	void *mem;

	(void)b;
	if (srds_check(cfg, rec, n, &err))
		return replay_record(e, -EINVAL, err.index, err.what, err.value);
	mem = malloc(srds_state_size(cfg));
	if (!mem)
		return replay_fail(e, REPLAY_ERR_CALL, -ENOMEM, "out of memory");
	srds_run(cfg, mem, rec, n, res);
	free(mem);
	return 0;
}

const struct cxl_backend_ops cxl_host_ops = { .run = host_run };

int cxl_replay(struct cxl_backend *b, const struct srds_config *cfg,
	       const struct mcmgpu_cxl_record *rec, uint64_t n,
	       struct mcmgpu_cxl_sim_result *res, struct replay_error *e)
{
	memset(e, 0, sizeof(*e));
	return b->ops->run(b, cfg, rec, n, res, e);
}
