/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The replay of a FinePack trace, written once over a backend: the host
 * backend runs the FinePack core here into memory of its own (fp_host.c),
 * the device backend hands the whole trace to FINEPACK_REPLAY and reads
 * the chiplets' memories by DMA (fp_device.c). --verify compares the
 * destination memory with an in-order plain application of the stores,
 * on either.
 */
#ifndef FP_REPLAY_H
#define FP_REPLAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "finepack.h"
#include "mcmgpu_finepack.h"
#include "replay.h"

struct fp_backend;

/* open and run return 0, or -1 with e saying why. */
struct fp_backend_ops {
	/* Ready for b->cfg; the device sets its geometry to its own. */
	int (*open)(struct fp_backend *b, struct replay_error *e);
	/* One replay of the trace (view: it, checked); runs may repeat. */
	int (*run)(struct fp_backend *b, const void *trace, size_t len,
		   const struct fp_trace_view *view,
		   struct mcmgpu_fp_replay_result *res, struct replay_error *e);
	/* len bytes of chiplet dst's memory from lo (--verify). */
	int (*read)(struct fp_backend *b, uint32_t dst, uint64_t lo, uint64_t len,
		    uint8_t *out);
	void (*close)(struct fp_backend *b);
	/* It refuses a bad trace itself: checked here only for --verify. */
	bool checks_trace;
};

struct fp_backend {
	const struct fp_backend_ops *ops;
	int fd;			/* device: the open /dev/mcmgpuN */
	void *priv;
	struct fp_config cfg;
};

extern const struct fp_backend_ops fp_host_ops;		/* fp_host.c */
extern const struct fp_backend_ops fp_device_ops;	/* fp_device.c */

struct fp_verify {
	bool done;
	uint64_t checked_bytes, mismatched_bytes;
};

/*
 * Replays trace on b under cfg (which the device's geometry replaces):
 * 0, or -1 with e saying why. verify: v compares the memory after with
 * the stores applied in order.
 */
int fp_replay(struct fp_backend *b, const void *trace, size_t len,
	      struct fp_config *cfg, bool verify,
	      struct mcmgpu_fp_replay_result *res, struct fp_verify *v,
	      struct replay_error *e);
/* The host's check, as fp_replay() makes it: 0 or -1 with e. */
int fp_replay_check(const void *trace, size_t len, const struct fp_config *cfg,
		    struct fp_trace_view *view, struct replay_error *e);

#endif /* FP_REPLAY_H */
