/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The replay of an SR/DS trace over a backend: the host backend runs the
 * root ports' queue logic and the endpoints' media core here
 * (cxl_replay.c), the device backend hands the records to gpu_rc.ko's
 * REPLAY, which runs the same core in the device (cxl_device.c). Either
 * takes the whole trace in one call.
 */
#ifndef CXL_REPLAY_H
#define CXL_REPLAY_H

#include <stdint.h>

#include "cxl_srds.h"
#include "mcmgpu_cxl.h"
#include "replay.h"

struct cxl_backend;

struct cxl_backend_ops {
	/* The n records under cfg: 0, or -errno with e saying why. */
	int (*run)(struct cxl_backend *b, const struct srds_config *cfg,
		   const struct mcmgpu_cxl_record *rec, uint64_t n,
		   struct mcmgpu_cxl_sim_result *res, struct replay_error *e);
};

struct cxl_backend {
	const struct cxl_backend_ops *ops;
	int fd;			/* device: the open /dev/mcmgpu_cxlN */
};

extern const struct cxl_backend_ops cxl_host_ops;	/* cxl_replay.c */
extern const struct cxl_backend_ops cxl_device_ops;	/* cxl_device.c */

/* Replays rec on b under cfg (the device: under its own endpoints). */
int cxl_replay(struct cxl_backend *b, const struct srds_config *cfg,
	       const struct mcmgpu_cxl_record *rec, uint64_t n,
	       struct mcmgpu_cxl_sim_result *res, struct replay_error *e);

#endif /* CXL_REPLAY_H */
