// SPDX-License-Identifier: GPL-2.0
/*
 * The one replay loop of a Barre trace (barre_replay.h): allocations and
 * frees in trace order, the accesses between two of them as one phase,
 * the page tables dumped and every object freed at the end.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "barre_replay.h"
#include "num.h"
#include "../../../drivers/mcmgpu/gpu_alloc.h"

static int fail(char *err, size_t n, int ret, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, n, fmt, ap);
	va_end(ap);
	return ret;
}

static const char *alloc_error(int ret)
{
	if (ret == -ENOMEM)
		return "out of GPU memory";
	if (ret == -ENOSPC)
		return "no virtual space";
	return strerror(-ret);
}

static void dump_object(FILE *f, const struct barre_obj *o, const uint64_t *pte,
			const char *id, uint64_t frames)
{
	uint64_t i;

	for (i = 0; i < o->pages; i++)
		fprintf(f, "%s 0x%llx 0x%llx %llu 0x%02llx %llu\n", id,
			(unsigned long long)((o->va >> 12) + i),
			(unsigned long long)MCMGPU_PTE_PFN(pte[i]),
			(unsigned long long)(MCMGPU_PTE_PFN(pte[i]) / frames),
			(unsigned long long)MCMGPU_PTE_COAL_BITMAP(pte[i]),
			(unsigned long long)MCMGPU_PTE_COAL_POS(pte[i]));
}

static int dump(struct barre_backend *b, FILE *f, const struct barre_obj *o,
		const char *id, uint64_t frames)
{
	uint64_t *pte = malloc(o->pages * sizeof(*pte));
	int ret;

	if (!pte)
		return -ENOMEM;
	ret = b->ops->ptes(b, o, pte);
	if (!ret)
		dump_object(f, o, pte, id, frames);
	free(pte);
	return ret;
}

/* The accesses from t->rec[*i] to the next alloc or free, run as a phase. */
static int run_phase(struct barre_backend *b, const struct barre_trace *t,
		     const struct barre_replay_cfg *cfg, const struct barre_obj *obj,
		     struct mcmgpu_barre_access *acc, size_t *i, char *err,
		     size_t errlen)
{
	const struct barre_rec *first = &t->rec[*i];
	uint32_t n = 0;
	double t0;
	size_t j;
	int ret;

	for (j = *i; j < t->n && t->rec[j].type == BARRE_REC_ACCESS; j++) {
		const struct barre_rec *a = &t->rec[j];
		const struct barre_obj *o = &obj[a->id];

		ret = barre_access_check(a, cfg->chiplets, o->pages, err, errlen);
		if (ret)
			return ret;
		acc[n++] = (struct mcmgpu_barre_access){
			.va = o->va + a->bytes, .chiplet = a->chiplet,
			.write = a->write,
		};
	}
	t0 = now_seconds();
	ret = b->ops->run(b, acc, n);
	b->run_seconds += now_seconds() - t0;
	if (ret)
		return fail(err, errlen, ret, "line %u: %s", first->line, b->why);
	*i = j;
	return 0;
}

static int alloc(struct barre_backend *b, const struct barre_rec *r,
		 const struct barre_replay_cfg *cfg, struct barre_obj *o,
		 char *err, size_t errlen)
{
	struct gpu_alloc_pools limits = { .chiplets = cfg->chiplets,
				   .frames = cfg->frames };
	struct gpu_alloc_alloc_req req = {
		.pages = r->bytes / 4096, .policy = r->policy, .g = r->g,
		.nmap = r->nmap, .barre = cfg->barre, .writable = true,
		.merge = cfg->barre ? cfg->merge : 1,
	};
	const char *field;
	int ret;

	memcpy(req.map, r->map, sizeof(r->map));
	if (gpu_alloc_alloc_check(&limits, &req, &field))
		return fail(err, errlen, -EINVAL, "line %u: alloc: bad %s",
			    r->line, field);
	ret = b->ops->alloc(b, r->id, &req, o);
	if (ret)
		return fail(err, errlen, ret, "line %u: alloc: %s", r->line,
			    alloc_error(ret));
	o->live = true;
	return 0;
}

int barre_replay(struct barre_backend *b, const struct barre_trace *t,
		 const struct barre_replay_cfg *cfg,
		 struct mcmgpu_barre_stats *st, char *err, size_t errlen)
{
	struct barre_obj *obj = calloc(t->max_id + 1, sizeof(*obj));
	struct mcmgpu_barre_access *acc = malloc((t->n + 1) * sizeof(*acc));
	struct mcmgpu_barre_stats placed = { 0 };
	size_t i = 0, j;
	int ret;

	memset(st, 0, sizeof(*st));
	err[0] = '\0';
	b->why[0] = '\0';
	if (!obj || !acc) {
		free(acc);
		free(obj);
		return -ENOMEM;
	}
	ret = b->ops->open(b, cfg, t);
	if (ret) {
		fail(err, errlen, ret, "%s", b->why);
		goto out;
	}
	while (i < t->n && !ret) {
		const struct barre_rec *r = &t->rec[i];
		struct barre_obj *o = &obj[r->id];

		if (r->type == BARRE_REC_ACCESS) {
			ret = run_phase(b, t, cfg, obj, acc, &i, err, errlen);
			continue;
		}
		if (r->type == BARRE_REC_ALLOC) {
			ret = alloc(b, r, cfg, o, err, errlen);
			if (ret)
				break;
			placed.objects++;
			placed.pages += o->pages;
			placed.groups += o->groups;
			placed.grouped_pages += o->grouped_pages;
			placed.fallback_pages += o->fallback_pages;
			placed.merged_groups += o->merged_groups;
		} else {
			o->live = false;
			ret = b->ops->free(b, o);
			if (ret)
				fail(err, errlen, ret, "line %u: free: %s", r->line,
				     strerror(-ret));
		}
		i++;
	}
	for (j = 0; !ret && cfg->dump_pt && j < t->max_id; j++)
		if (obj[j].live) {
			ret = dump(b, cfg->dump_pt, &obj[j], t->names[j], cfg->frames);
			if (ret)
				fail(err, errlen, ret, "PTE_QUERY: %s", strerror(-ret));
		}
	for (j = 0; j < t->max_id; j++) {
		int freed;

		if (!obj[j].live)
			continue;
		obj[j].live = false;
		freed = b->ops->free(b, &obj[j]);
		if (freed && !ret)
			ret = fail(err, errlen, freed, "FREE: %s", strerror(-freed));
	}
	if (!ret) {
		ret = b->ops->stats(b, st);
		if (ret)
			fail(err, errlen, ret, "%s", b->why);
	}
	b->ops->close(b);
	st->objects = placed.objects;
	st->pages = placed.pages;
	st->groups = placed.groups;
	st->grouped_pages = placed.grouped_pages;
	st->fallback_pages = placed.fallback_pages;
	st->merged_groups = placed.merged_groups;
out:
	free(acc);
	free(obj);
	return ret;
}

int barre_replay_host(const struct barre_trace *t,
		      const struct barre_replay_cfg *cfg,
		      struct mcmgpu_barre_stats *st, char *err, size_t errlen)
{
	struct barre_backend b = { .ops = &barre_host_ops, .fd = -1 };

	return barre_replay(&b, t, cfg, st, err, errlen);
}
