// SPDX-License-Identifier: GPL-2.0
/*
 * The device backend of the FinePack replay (fp_replay.h): the whole
 * trace in one FINEPACK_REPLAY, the chiplets' memories read by DMA.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>

#include "device.h"
#include "fp_replay.h"

/* The device's geometry, not the options'. */
static int dev_open(struct fp_backend *b, struct replay_error *e)
{
	struct mcmgpu_info info;

	if (get_info(b->fd, &info))
		return replay_fail(e, REPLAY_ERR_CALL, -1, "%s", "");
	b->cfg.chiplets = info.chiplets;
	b->cfg.vram_per_chiplet = info.vram_per_chiplet;
	return 0;
}

static int dev_run(struct fp_backend *b, const void *trace, size_t len,
		   const struct fp_trace_view *view,
		   struct mcmgpu_fp_replay_result *res, struct replay_error *e)
{
	struct mcmgpu_finepack_replay rp = {
		.size = sizeof(rp), .trace_ptr = (uintptr_t)trace,
		.trace_len = len, .subheader = b->cfg.subheader,
		.overhead = b->cfg.overhead, .result_ptr = (uintptr_t)res,
		.result_size = sizeof(*res),
	};
	(void)view;
	if (!ioctl(b->fd, MCMGPU_IOCTL_FINEPACK_REPLAY, &rp))
		return 0;
	if (errno == EINVAL && res->error.what[0]) {
		res->error.what[sizeof(res->error.what) - 1] = '\0';
		return replay_record(e, -1, res->error.index, res->error.what,
				     res->error.value);
	}
	return replay_fail(e, REPLAY_ERR_CALL, -1, "FINEPACK_REPLAY: %s",
			   strerror(errno));
}

static int dev_read(struct fp_backend *b, uint32_t dst, uint64_t lo,
		    uint64_t len, uint8_t *out)
{
	return dma_transfer(b->fd, true, out, dst * b->cfg.vram_per_chiplet + lo,
			    len);
}

/* The fd is the caller's. */
static void dev_close(struct fp_backend *b)
{
	(void)b;
}

const struct fp_backend_ops fp_device_ops = {
	.open = dev_open, .run = dev_run, .read = dev_read, .close = dev_close,
	.checks_trace = true,
};
