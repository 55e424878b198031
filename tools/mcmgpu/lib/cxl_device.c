// SPDX-License-Identifier: GPL-2.0
/*
 * The device backend of the SR/DS replay (cxl_replay.h): one REPLAY on
 * gpu_rc.ko's control device, which runs the records through the
 * device's root ports, its endpoints and its committed decoders.
 */
#include <errno.h>
#include <string.h>
#include <sys/ioctl.h>

#include "cxl_replay.h"

static int dev_run(struct cxl_backend *b, const struct srds_config *cfg,
		   const struct mcmgpu_cxl_record *rec, uint64_t n,
		   struct mcmgpu_cxl_sim_result *res, struct replay_error *e)
{
	struct mcmgpu_cxl_replay req = {
		.records_ptr = (uintptr_t)rec, .count = n,
		.result_ptr = (uintptr_t)res, .config = cfg->sim,
	};

	if (!n)
		return replay_fail(e, REPLAY_ERR_TRACE, -EINVAL, "no records");
	if (!ioctl(b->fd, MCMGPU_CXL_IOCTL_REPLAY, &req))
		return 0;
	if (errno == EINVAL && req.error.what[0])
		return replay_record(e, -EINVAL, req.error.index, req.error.what,
				     req.error.value);
	return replay_fail(e, REPLAY_ERR_CALL, -errno, "cxl replay: %s",
			   strerror(errno));
}

const struct cxl_backend_ops cxl_device_ops = { .run = dev_run };
