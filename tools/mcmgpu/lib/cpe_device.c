// SPDX-License-Identifier: GPL-2.0
/*
 * The device backend of the CPElide replay (cpe_replay.h): one LAUNCH
 * ioctl a record, through the device's global command processor.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>

#include "cpe_replay.h"
#include "mcmgpu_ioctl.h"

static int dev_launch(struct cpe_backend *b, const struct mcmgpu_cpe_record *r,
		      struct replay_error *e)
{
	/* The last LAUNCH's answer: its counters are the replay's so far. */
	struct mcmgpu_cpe_launch_result *last = b->priv;
	struct mcmgpu_launch ln = {
		.size = sizeof(ln), .record_ptr = (uintptr_t)r,
		.record_size = sizeof(*r), .result_ptr = (uintptr_t)last,
		.result_size = sizeof(*last),
	};
	int ret;

	memset(last, 0, sizeof(*last));
	if (!ioctl(b->fd, MCMGPU_IOCTL_LAUNCH, &ln))
		return 0;
	ret = -errno;
	if (ret == -EINVAL && last->error.what[0]) {
		last->error.what[sizeof(last->error.what) - 1] = '\0';
		return replay_record(e, ret, last->error.index, last->error.what,
				     last->error.value);
	}
	return replay_fail(e, REPLAY_ERR_CALL, ret, "LAUNCH: %s", strerror(-ret));
}

static int dev_finish(struct cpe_backend *b, bool ended,
		      struct mcmgpu_cpe_stats *st, struct replay_error *e)
{
	static const struct mcmgpu_cpe_record end = {
		.type = MCMGPU_CPE_REC_END,
	};
	struct mcmgpu_cpe_launch_result *last = b->priv;
	int ret = ended ? 0 : dev_launch(b, &end, e);

	if (!ret)
		*st = last->stats;
	return ret;
}

static int dev_start(struct cpe_backend *b, const struct mcmgpu_cpe_record *reset,
		     struct replay_error *e)
{
	b->priv = calloc(1, sizeof(struct mcmgpu_cpe_launch_result));
	if (!b->priv)
		return replay_fail(e, REPLAY_ERR_CALL, -ENOMEM, "out of memory");
	return dev_launch(b, reset, e);
}

/* The fd is the caller's. */
static void dev_close(struct cpe_backend *b)
{
	free(b->priv);
	b->priv = NULL;
}

const struct cpe_backend_ops cpe_device_ops = {
	.start = dev_start, .launch = dev_launch, .finish = dev_finish,
	.close = dev_close,
};
