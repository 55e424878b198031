// SPDX-License-Identifier: GPL-2.0
/*
 * The host backend of the CPElide replay (cpe_replay.h): the command
 * processor's model core, each record checked as the device checks it.
 */
#include <errno.h>
#include <stdlib.h>

#include "cpe_replay.h"
#include "cpelide.h"

struct cpe_host {
	struct cpe_model model;
	void *arena;
};

static int host_start(struct cpe_backend *b, const struct mcmgpu_cpe_record *reset,
		      struct replay_error *e)
{
	struct cpe_host *h;
	struct cpe_config cfg;
	const char *why;

	cpe_config_of_reset(&cfg, reset);
	if (!cpe_config_valid(&cfg, &why))
		return replay_fail(e, REPLAY_ERR_TRACE, -EINVAL, "%s", why);
	h = calloc(1, sizeof(*h));
	b->priv = h;
	if (h)
		h->arena = calloc(1, cpe_arena_bytes(&cfg));
	if (!h || !h->arena)
		return replay_fail(e, REPLAY_ERR_CALL, -ENOMEM, "out of memory");
	cpe_model_init(&h->model, &cfg, h->arena);
	return 0;
}

static int host_launch(struct cpe_backend *b, const struct mcmgpu_cpe_record *r,
		       struct replay_error *e)
{
	struct cpe_host *h = b->priv;
	struct cpe_error err;

	if (cpe_record_check(&h->model, r, &err))
		return replay_record(e, -EINVAL, err.arg, err.what, err.value);
	cpe_model_record(&h->model, r);
	return 0;
}

static int host_finish(struct cpe_backend *b, bool ended,
		       struct mcmgpu_cpe_stats *st, struct replay_error *e)
{
	struct cpe_host *h = b->priv;

	(void)ended;
	(void)e;
	cpe_model_finish(&h->model);
	*st = h->model.stats;
	return 0;
}

static void host_close(struct cpe_backend *b)
{
	struct cpe_host *h = b->priv;

	if (h)
		free(h->arena);
	free(h);
	b->priv = NULL;
}

const struct cpe_backend_ops cpe_host_ops = {
	.start = host_start, .launch = host_launch, .finish = host_finish,
	.close = host_close,
};
