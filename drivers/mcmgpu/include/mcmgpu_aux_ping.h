/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The aux drivers' round-trip test, one source for both: writing 1 to the
 * auxiliary device's "ping" attribute submits MCMGPU_OP_PING for the
 * driver's own window and waits for the interrupt on its own vector;
 * reading it gives "pings P irqs I".
 */
#ifndef MCMGPU_AUX_PING_H
#define MCMGPU_AUX_PING_H

#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/device.h>
#include <linux/jiffies.h>
#include <linux/mutex.h>

#include "mcmgpu_aux.h"

struct mcmgpu_aux_ping {
	struct mutex lock;	/* one ping at a time */
	struct completion irq_seen;
	atomic_t pings;
	atomic_t irqs;
};

static inline void mcmgpu_aux_ping_init(struct mcmgpu_aux_ping *p)
{
	mutex_init(&p->lock);
	init_completion(&p->irq_seen);
	atomic_set(&p->pings, 0);
	atomic_set(&p->irqs, 0);
}

/* Call from the driver's vector callback. */
static inline void mcmgpu_aux_ping_irq(struct mcmgpu_aux_ping *p, u32 events)
{
	if (events & MCMGPU_WIN_IRQ_PING) {
		atomic_inc(&p->irqs);
		complete(&p->irq_seen);
	}
}

static inline int mcmgpu_aux_ping(struct mcmgpu_aux_dev *aux,
				  struct mcmgpu_aux_ping *p)
{
	struct mcmgpu_aux_cmd cmd = {
		.opcode = MCMGPU_OP_PING,
		.args = { aux->window_index },
	};
	int ret;

	mutex_lock(&p->lock);
	reinit_completion(&p->irq_seen);
	ret = aux->ops->submit(aux, &cmd);
	if (!ret && cmd.status != MCMGPU_CMPL_OK)
		ret = -EIO;
	if (!ret) {
		atomic_inc(&p->pings);
		if (!wait_for_completion_timeout(&p->irq_seen, HZ))
			ret = -ETIMEDOUT;
	}
	mutex_unlock(&p->lock);
	return ret;
}

static inline ssize_t mcmgpu_aux_ping_show(struct mcmgpu_aux_ping *p,
					   char *buf)
{
	return sysfs_emit(buf, "pings %d irqs %d\n", atomic_read(&p->pings),
			  atomic_read(&p->irqs));
}

#endif /* MCMGPU_AUX_PING_H */
