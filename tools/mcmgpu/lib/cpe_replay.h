/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The replay of a CPElide launch sequence, written once over a backend:
 * the host backend runs the command processor's model core here
 * (cpe_host.c), the device backend sends one LAUNCH a record to the
 * device's global command processor (cpe_device.c). Same records, same
 * order, same core: the two report the same counters.
 */
#ifndef CPE_REPLAY_H
#define CPE_REPLAY_H

#include <stdbool.h>

#include "cpe_seq.h"
#include "replay.h"
#include "mcmgpu_cpelide.h"

struct cpe_backend;

/* Every operation returns 0 or -errno with e filled. */
struct cpe_backend_ops {
	/* A fresh command processor configured by the RESET record. */
	int (*start)(struct cpe_backend *b, const struct mcmgpu_cpe_record *reset,
		     struct replay_error *e);
	int (*launch)(struct cpe_backend *b, const struct mcmgpu_cpe_record *r,
		      struct replay_error *e);
	/* After the last record (ended: it was an END); the counters. */
	int (*finish)(struct cpe_backend *b, bool ended,
		      struct mcmgpu_cpe_stats *st, struct replay_error *e);
	void (*close)(struct cpe_backend *b);
};

struct cpe_backend {
	const struct cpe_backend_ops *ops;
	int fd;			/* device: the open /dev/mcmgpuN */
	void *priv;
};

extern const struct cpe_backend_ops cpe_host_ops;	/* cpe_host.c */
extern const struct cpe_backend_ops cpe_device_ops;	/* cpe_device.c */

/* Replays seq (rec[0] its RESET) on b: 0, or -errno with e saying why. */
int cpe_replay(struct cpe_backend *b, const struct cpe_seq *seq,
	       struct mcmgpu_cpe_stats *st, struct replay_error *e);

#endif /* CPE_REPLAY_H */
