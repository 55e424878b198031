// SPDX-License-Identifier: GPL-2.0
/* The one replay loop of a FinePack trace, and --verify (fp_replay.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fp_replay.h"

struct verify_state {
	uint64_t lo[MCMGPU_FP_MAX_GPUS], hi[MCMGPU_FP_MAX_GPUS];
	uint8_t *golden[MCMGPU_FP_MAX_GPUS];
};

/* Snapshot the written hull of each destination and apply in order. */
static int verify_prepare(struct verify_state *vs, struct fp_backend *b,
			  const struct fp_trace_view *view, uint32_t chiplets)
{
	uint64_t i;
	uint32_t d;

	for (d = 0; d < MCMGPU_FP_MAX_GPUS; d++) {
		vs->lo[d] = UINT64_MAX;
		vs->hi[d] = 0;
		vs->golden[d] = NULL;
	}
	for (i = 0; i < view->hdr->nrecords; i++) {
		const struct mcmgpu_fp_trace_record *r = &view->rec[i];

		if (r->type != MCMGPU_FP_REC_STORE && r->type != MCMGPU_FP_REC_ATOMIC)
			continue;
		if (r->addr < vs->lo[r->dst])
			vs->lo[r->dst] = r->addr;
		if (r->addr + r->len > vs->hi[r->dst])
			vs->hi[r->dst] = r->addr + r->len;
	}
	for (d = 0; d < chiplets; d++) {
		if (vs->hi[d] <= vs->lo[d])
			continue;
		vs->golden[d] = malloc(vs->hi[d] - vs->lo[d]);
		if (!vs->golden[d])
			return -ENOMEM;
		if (b->ops->read(b, d, vs->lo[d], vs->hi[d] - vs->lo[d], vs->golden[d]))
			return -1;
	}
	for (i = 0; i < view->hdr->nrecords; i++) {
		const struct mcmgpu_fp_trace_record *r = &view->rec[i];

		if (r->type == MCMGPU_FP_REC_STORE || r->type == MCMGPU_FP_REC_ATOMIC)
			memcpy(vs->golden[r->dst] + (r->addr - vs->lo[r->dst]),
			       view->data + r->data_off, r->len);
	}
	return 0;
}

static void verify_drop(struct verify_state *vs)
{
	uint32_t d;

	for (d = 0; d < MCMGPU_FP_MAX_GPUS; d++) {
		free(vs->golden[d]);
		vs->golden[d] = NULL;
	}
}

static int verify_finish(struct verify_state *vs, struct fp_backend *b,
			 uint32_t chiplets, struct fp_verify *v)
{
	uint64_t i, len;
	uint8_t *after;
	uint32_t d;
	int ret = 0;

	v->done = true;
	for (d = 0; d < chiplets; d++) {
		if (!vs->golden[d])
			continue;
		len = vs->hi[d] - vs->lo[d];
		after = malloc(len);
		if (!after || b->ops->read(b, d, vs->lo[d], len, after)) {
			free(after);
			ret = -1;
			break;
		}
		for (i = 0; i < len; i++)
			v->mismatched_bytes += after[i] != vs->golden[d][i];
		v->checked_bytes += len;
		free(after);
	}
	verify_drop(vs);
	return ret;
}

int fp_replay_check(const void *trace, size_t len, const struct fp_config *cfg,
		    struct fp_trace_view *view, struct replay_error *e)
{
	struct fp_error err;

	if (!fp_trace_check(trace, len, cfg, view, &err))
		return 0;
	return replay_record(e, -1, err.record, err.what, err.value);
}

int fp_replay(struct fp_backend *b, const void *trace, size_t len,
	      struct fp_config *cfg, bool verify,
	      struct mcmgpu_fp_replay_result *res, struct fp_verify *v,
	      struct replay_error *e)
{
	struct verify_state vs = { 0 };
	struct fp_trace_view view, *checked = NULL;
	int ret = -1;

	memset(e, 0, sizeof(*e));
	memset(v, 0, sizeof(*v));
	memset(res, 0, sizeof(*res));
	b->cfg = *cfg;
	if (b->ops->open(b, e))
		return -1;
	*cfg = b->cfg;
	if (!b->ops->checks_trace || verify) {
		if (fp_replay_check(trace, len, cfg, &view, e))
			goto out;
		checked = &view;
	}
	if (verify) {
		ret = verify_prepare(&vs, b, &view, cfg->chiplets);
		if (ret) {
			replay_fail(e, REPLAY_ERR_CALL, -1, "%s", ret == -ENOMEM ?
				    "--verify: out of memory" : "");
			goto out;
		}
	}
	ret = b->ops->run(b, trace, len, checked, res, e);
	if (ret)
		goto out;
	if (verify && verify_finish(&vs, b, cfg->chiplets, v)) {
		ret = replay_fail(e, REPLAY_ERR_CALL, -1, "%s", "");
		goto out;
	}
out:
	verify_drop(&vs);
	b->ops->close(b);
	return ret ? -1 : 0;
}
