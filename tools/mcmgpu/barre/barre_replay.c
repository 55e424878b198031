// SPDX-License-Identifier: GPL-2.0
/*
 * Barre traces and their host replay (see barre_replay.h).
 *
 * The epoch protocol (the same one the device and barre_iommu.ko run):
 * with L = 2 x the PCIe latency, epoch [H, H + L) first runs the chiplets
 * to H + L, then gives the IOMMU every request they sent (arriving a PCIe
 * latency later) and runs it to H + L + PCIe. Every answer it gives by
 * then reaches the chiplets before H + 2L, and every answer they need
 * before H + L was given by the previous epoch, so the result is the same
 * as one simulation of both, whatever the epochs cost in host time.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "barre_replay.h"
#include "barre_dev.h"
#include "../../../drivers/mcmgpu/gpu_alloc.h"
#include "../../../drivers/iommu/barre/barre_walk.h"


static int fail(char *err, size_t n, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, n, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static int push(struct barre_trace *t, const struct barre_rec *r)
{
	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 1024;
		struct barre_rec *p = realloc(t->rec, cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		t->rec = p;
		t->cap = cap;
	}
	t->rec[t->n++] = *r;
	return 0;
}

static int parse_num(const char *s, uint64_t *v)
{
	char *end;

	if (!*s || *s == '-')
		return -1;
	errno = 0;
	*v = strtoull(s, &end, 0);
	return errno || *end ? -1 : 0;
}

/* The trace's IDs: names by index, and an open-addressing hash of them. */
struct id_table {
	uint32_t *slot;		/* index + 1, 0 empty */
	uint32_t cap;		/* a power of two, at least twice the IDs */
	uint8_t *live;		/* by index */
	uint32_t live_cap;
};

static uint32_t id_hash(const char *s)
{
	uint32_t h = 2166136261u;	/* FNV-1a */

	while (*s)
		h = (h ^ (uint8_t)*s++) * 16777619u;
	return h;
}

static int id_grow(struct barre_trace *t, struct id_table *ids)
{
	uint32_t cap = ids->cap ? ids->cap * 2 : 1024, i, j;
	uint32_t *slot = calloc(cap, sizeof(*slot));
	char (*names)[BARRE_ID_MAX] = realloc(t->names, cap / 2 * sizeof(*names));
	uint8_t *live = realloc(ids->live, cap / 2);

	if (names)
		t->names = names;
	if (live) {
		memset(live + ids->live_cap, 0, cap / 2 - ids->live_cap);
		ids->live = live;
		ids->live_cap = cap / 2;
	}
	if (!slot || !names || !live) {
		free(slot);
		return -ENOMEM;
	}
	for (i = 0; i < t->max_id; i++) {
		for (j = id_hash(t->names[i]) & (cap - 1); slot[j]; j = (j + 1) & (cap - 1))
			;
		slot[j] = i + 1;
	}
	free(ids->slot);
	ids->slot = slot;
	ids->cap = cap;
	return 0;
}

/*
 * The index of ID token s (added if new): a number, written again in
 * decimal, or a name. -EINVAL with the rule in err if it is neither.
 */
static int id_index(struct barre_trace *t, struct id_table *ids,
		    const char *s, uint32_t line, uint32_t *index,
		    char *err, size_t errlen)
{
	char name[BARRE_ID_MAX];
	uint64_t v;
	uint32_t j;
	size_t i;

	if (!parse_num(s, &v)) {
		snprintf(name, sizeof(name), "%llu", (unsigned long long)v);
	} else {
		for (i = 0; s[i]; i++)
			if (!(isalpha((unsigned char)s[i]) || s[i] == '_' ||
			      (i && (isdigit((unsigned char)s[i]) || s[i] == '.' ||
				     s[i] == '-'))))
				break;
		if (s[i] || i >= BARRE_ID_MAX)
			return fail(err, errlen, "line %u: ID '%s': not a number, nor a "
				    "name (a letter or '_', then letters, digits, '_', "
				    "'.' or '-', at most %u characters)", line, s,
				    BARRE_ID_MAX - 1);
		memcpy(name, s, i + 1);
	}
	if (2 * (t->max_id + 1) > ids->cap) {
		if (t->max_id == BARRE_MAX_OBJECTS)
			return fail(err, errlen, "line %u: more than %u distinct IDs",
				    line, BARRE_MAX_OBJECTS);
		if (id_grow(t, ids))
			return -ENOMEM;
	}
	for (j = id_hash(name) & (ids->cap - 1); ids->slot[j];
	     j = (j + 1) & (ids->cap - 1))
		if (!strcmp(t->names[ids->slot[j] - 1], name)) {
			*index = ids->slot[j] - 1;
			return 0;
		}
	memcpy(t->names[t->max_id], name, sizeof(name));
	ids->slot[j] = ++t->max_id;
	*index = t->max_id - 1;
	return 0;
}

int barre_trace_parse(const char *text, size_t len, struct barre_trace *t,
		      char *err, size_t errlen)
{
	struct id_table ids = { 0 };
	const char *p = text, *end = text + len;
	uint32_t line = 0;
	int ret = 0;

	memset(t, 0, sizeof(*t));
	while (p < end && !ret) {
		const char *nl = memchr(p, '\n', end - p);
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		char buf[512], *tok[8], *save, *c;
		struct barre_rec r = { 0 };
		uint64_t v;
		int ntok = 0, i;

		line++;
		if (n >= sizeof(buf)) {
			ret = fail(err, errlen, "line %u: longer than %zu bytes", line,
				   sizeof(buf) - 1);
			break;
		}
		memcpy(buf, p, n);
		buf[n] = '\0';
		p += n + 1;
		c = strchr(buf, '#');
		if (c)
			*c = '\0';
		for (c = strtok_r(buf, " \t\r", &save); c && ntok < 8;
		     c = strtok_r(NULL, " \t\r", &save))
			tok[ntok++] = c;
		if (!ntok)
			continue;
		if (c) {
			ret = fail(err, errlen, "line %u: too many fields", line);
			break;
		}
		r.line = line;
		if (ntok < 2 || (strcmp(tok[0], "alloc") && strcmp(tok[0], "access") &&
				 strcmp(tok[0], "free"))) {
			ret = fail(err, errlen, "line %u: '%s': expected alloc ID ..., "
				   "access CHIPLET ID ... or free ID", line, tok[0]);
			break;
		}
		if (!strcmp(tok[0], "access") && ntok < 3) {
			ret = fail(err, errlen, "line %u: access: expected "
				   "CHIPLET ID BYTE_OFFSET [r|w]", line);
			break;
		}
		ret = id_index(t, &ids, tok[!strcmp(tok[0], "access") ? 2 : 1], line,
			       &r.id, err, errlen);
		if (ret)
			break;
		if (!strcmp(tok[0], "alloc")) {
			r.type = BARRE_REC_ALLOC;
			r.policy = MCMGPU_ALLOC_POLICIES;
			/* Whole pages, as an allocator gives them. */
			if (ntok < 3 || parse_num(tok[2], &r.bytes) || !r.bytes ||
			    r.bytes > UINT64_MAX - 4095) {
				ret = fail(err, errlen, "line %u: alloc: BYTES must be a "
					   "number from 1 to 2^64 - 4096 (rounded up to "
					   "4096-byte pages)", line);
				break;
			}
			r.bytes = (r.bytes + 4095) / 4096 * 4096;
			for (i = 3; i < ntok && !ret; i++) {
				if (!strcmp(tok[i], "policy=chunk"))
					r.policy = MCMGPU_ALLOC_CHUNK;
				else if (!strcmp(tok[i], "policy=rr"))
					r.policy = MCMGPU_ALLOC_RR;
				else if (!strcmp(tok[i], "policy=kwc"))
					r.policy = MCMGPU_ALLOC_KWC;
				else if (!strncmp(tok[i], "g=", 2) && !parse_num(tok[i] + 2, &v) &&
					 v && v < (1ULL << 31))
					r.g = v;
				else if (!strncmp(tok[i], "map=", 4)) {
					char *m = tok[i] + 4, *msave, *e;

					for (e = strtok_r(m, ",", &msave); e && !ret;
					     e = strtok_r(NULL, ",", &msave)) {
						if (r.nmap == MCMGPU_MAX_CHIPLETS ||
						    parse_num(e, &v) || v >= MCMGPU_MAX_CHIPLETS)
							ret = fail(err, errlen, "line %u: alloc: bad map "
								   "'%s'", line, tok[i] + 4);
						else
							r.map[r.nmap++] = v;
					}
					if (!ret && !r.nmap)
						ret = fail(err, errlen, "line %u: alloc: empty map",
							   line);
				} else {
					ret = fail(err, errlen, "line %u: alloc: unknown field "
						   "'%s'", line, tok[i]);
				}
			}
			if (ret)
				break;
			if (r.policy == MCMGPU_ALLOC_POLICIES) {
				ret = fail(err, errlen, "line %u: alloc: policy= missing", line);
				break;
			}
			if (r.policy == MCMGPU_ALLOC_CHUNK && !r.g) {
				ret = fail(err, errlen, "line %u: alloc: policy=chunk needs g=",
					   line);
				break;
			}
			if (ids.live[r.id]) {
				ret = fail(err, errlen, "line %u: alloc: object %s is already "
					   "live", line, t->names[r.id]);
				break;
			}
			ids.live[r.id] = 1;
		} else if (!strcmp(tok[0], "access")) {
			r.type = BARRE_REC_ACCESS;
			if (ntok < 4 || ntok > 5 || parse_num(tok[1], &v) ||
			    v >= MCMGPU_MAX_CHIPLETS || parse_num(tok[3], &r.bytes) ||
			    (ntok == 5 && strcmp(tok[4], "r") && strcmp(tok[4], "w"))) {
				ret = fail(err, errlen, "line %u: access: expected "
					   "CHIPLET ID BYTE_OFFSET [r|w]", line);
				break;
			}
			r.chiplet = v;
			r.write = ntok == 5 && !strcmp(tok[4], "w");
			if (!ids.live[r.id]) {
				ret = fail(err, errlen, "line %u: access: object %s is not "
					   "allocated", line, t->names[r.id]);
				break;
			}
		} else if (!strcmp(tok[0], "free") && ntok == 2) {
			r.type = BARRE_REC_FREE;
			if (!ids.live[r.id]) {
				ret = fail(err, errlen, "line %u: free: object %s is not "
					   "allocated", line, t->names[r.id]);
				break;
			}
			ids.live[r.id] = 0;
		} else {
			ret = fail(err, errlen, "line %u: unknown record '%s'", line, tok[0]);
			break;
		}
		ret = push(t, &r);
	}
	free(ids.slot);
	free(ids.live);
	if (ret)
		barre_trace_free(t);
	return ret;
}

void barre_trace_free(struct barre_trace *t)
{
	free(t->rec);
	free(t->names);
	memset(t, 0, sizeof(*t));
}

int barre_access_check(const struct barre_rec *a, uint32_t chiplets,
		       uint64_t pages, char *err, size_t errlen)
{
	if (a->chiplet >= chiplets)
		return fail(err, errlen, "line %u: access: no such chiplet", a->line);
	if (a->bytes >= pages * 4096)
		return fail(err, errlen, "line %u: access: offset past the object",
			    a->line);
	return 0;
}

/* ---- Host replay ------------------------------------------------------ */

struct host {
	struct ga_pools pools;
	struct ga_space as;
	struct ga_pt_ops pt;
	struct bw_iommu iommu;
	struct bd_device dev;
	struct bd_reply replies[MCMGPU_MAX_CHIPLETS * MCMGPU_BARRE_MSHRS];
	struct ga_object *obj;		/* by ID */
	uint8_t *live;
	uint32_t pcie;
	int error;
};

static u64 host_table_alloc(void *priv)
{
	void *p = aligned_alloc(4096, 4096);

	(void)priv;
	if (p)
		memset(p, 0, 4096);
	return (u64)(uintptr_t)p;
}

static void host_table_free(void *priv, u64 table)
{
	(void)priv;
	free((void *)(uintptr_t)table);
}

static u64 *host_table_map(void *priv, u64 table)
{
	(void)priv;
	return (u64 *)(uintptr_t)table;
}

static u64 host_root(void *priv, u32 pasid)
{
	struct host *h = priv;

	return pasid == h->as.pasid ? h->as.root : 0;
}

static u64 host_read(void *priv, u64 table, u32 index)
{
	(void)priv;
	return ((u64 *)(uintptr_t)table)[index];
}

/* Device -> IOMMU: a PCIe latency later. */
static void host_request(void *priv, const struct bd_request *r)
{
	struct host *h = priv;
	struct bw_request q = {
		.tag = r->tag, .vpn = r->vpn, .arrive = r->issue + h->pcie,
		.pasid = h->as.pasid, .chiplet = r->chiplet, .write = r->write,
	};

	if (bw_submit(&h->iommu, &q))
		h->error = -EPROTO;
}

/* IOMMU -> device. */
static void host_respond(void *priv, const struct bw_response *rsp)
{
	struct host *h = priv;
	struct bd_reply r = {
		.tag = rsp->tag, .pfn = rsp->pfn, .arrive = rsp->done + h->pcie,
		.fault = rsp->status != BW_STATUS_OK, .writable = rsp->writable,
		.coal = rsp->coal, .pec = rsp->pec,
	};

	if (bd_deliver(&h->dev, &r))
		h->error = -EPROTO;
}

/* F-Barre's check: the true walk of a page translated in the package. */
static u64 host_walk(void *priv, u64 vpn)
{
	struct host *h = priv;

	return ga_pte_get(&h->as, vpn);
}

void barre_fb_config(const struct barre_host_cfg *cfg, struct fb_config *fc)
{
	memset(fc, 0, sizeof(*fc));
	fc->sharing = cfg->sharing;
	fc->rows = cfg->filter_rows ? cfg->filter_rows : MCMGPU_FBARRE_FILTER_ROWS;
	fc->drop_ppm = cfg->drop_ppm;
	fc->run = cfg->merge ? cfg->merge : 1;
	fc->seed = 1;
}

/* Runs the phase's accesses to the end, epoch by epoch. */
static void host_run_phase(struct host *h)
{
	u64 L = 2ULL * h->pcie;

	while (!h->error && (!bd_done(&h->dev) || bw_inflight(&h->iommu))) {
		u64 H = h->dev.now;

		/* Nothing in flight: skip to the next epoch with work. */
		if (!bw_inflight(&h->iommu)) {
			u64 t = bd_next_event(&h->dev);

			if (t != ~0ULL && t >= H + L)
				H = t - (t - H) % L;
			bw_advance(&h->iommu, H + h->pcie);
		}
		bd_run(&h->dev, H + L);
		bw_advance(&h->iommu, H + L + h->pcie);
	}
}

static void dump_object(FILE *f, const struct ga_space *as,
			const struct ga_object *o, const char *id, u32 frames)
{
	u64 i;

	for (i = 0; i < o->pages; i++) {
		u64 pte = ga_pte_get(as, o->vpn + i);

		fprintf(f, "%s 0x%llx 0x%llx %llu 0x%02llx %llu\n", id,
			(unsigned long long)(o->vpn + i),
			(unsigned long long)MCMGPU_PTE_PFN(pte),
			(unsigned long long)(MCMGPU_PTE_PFN(pte) / frames),
			(unsigned long long)MCMGPU_PTE_COAL_BITMAP(pte),
			(unsigned long long)MCMGPU_PTE_COAL_POS(pte));
	}
}

static void host_free(struct host *h, uint32_t id)
{
	struct ga_object *o = &h->obj[id];

	/* PEC entry and TLBs first, then the frames (issue 10, item 3). */
	bw_pec_drop(&h->iommu, h->as.pasid, o->vpn, o->vpn + o->pages - 1);
	bd_shootdown(&h->dev);
	ga_free(&h->pools, &h->as, o);
	free(o->pfn);
	h->live[id] = 0;
}

static double seconds_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Takes pct % of every pool's frames, at random (seeded). */
static void fragment(struct ga_pools *p, uint32_t pct, uint64_t seed)
{
	uint64_t s = seed | 1;
	u32 c, f;

	for (c = 0; pct && c < p->chiplets; c++)
		for (f = 0; f < p->frames; f++) {
			s ^= s << 13;
			s ^= s >> 7;
			s ^= s << 17;
			if (s % 100 < pct)
				ga_frame_take(p, c, f);
		}
}

int barre_alloc_bench(uint32_t chiplets, uint64_t frames, uint32_t pct,
		      bool barre, uint64_t pages, uint32_t rounds,
		      double *seconds, uint64_t *grouped)
{
	struct host *h = calloc(1, sizeof(*h));
	u64 *storage = calloc((size_t)chiplets * ga_pool_words(frames), 8);
	u64 *pfn = malloc(pages * sizeof(*pfn));
	struct ga_alloc_req req = {
		.pages = pages, .policy = MCMGPU_ALLOC_CHUNK, .g = 16,
		.barre = barre, .writable = true,
	};
	struct ga_object o;
	uint32_t r;
	double t0;
	int ret = -ENOMEM;

	*grouped = 0;
	if (!h || !storage || !pfn)
		goto out;
	h->pt = (struct ga_pt_ops){ host_table_alloc, host_table_free,
				    host_table_map, h };
	ga_pools_init(&h->pools, chiplets, frames, storage);
	fragment(&h->pools, pct, 1);
	ret = ga_space_init(&h->as, 1, &h->pt);
	if (ret)
		goto out;
	t0 = seconds_now();
	for (r = 0; r < rounds && !ret; r++) {
		ret = ga_alloc(&h->pools, &h->as, &req, &o, pfn);
		if (!ret) {
			*grouped += o.grouped_pages;
			ga_free(&h->pools, &h->as, &o);
		}
	}
	*seconds = seconds_now() - t0;
	ga_space_destroy(&h->as);
out:
	free(pfn);
	free(storage);
	free(h);
	return ret;
}

int barre_replay_host(const struct barre_trace *t,
		      const struct barre_host_cfg *cfg,
		      struct mcmgpu_barre_stats *st, char *err, size_t errlen)
{
	struct host *h = calloc(1, sizeof(*h));
	struct bd_access *acc = NULL;
	u64 *storage = NULL;
	u32 *order = NULL;
	struct bw_config bc;
	size_t i = 0, j;
	int ret = 0;

	memset(st, 0, sizeof(*st));
	if (!h)
		return -ENOMEM;
	h->pcie = MCMGPU_BARRE_PCIE_CYCLES;
	h->pt = (struct ga_pt_ops){ host_table_alloc, host_table_free,
				    host_table_map, h };
	storage = calloc((size_t)cfg->chiplets * ga_pool_words(cfg->frames), 8);
	h->obj = calloc(t->max_id + 1, sizeof(*h->obj));
	h->live = calloc(t->max_id + 1, 1);
	acc = malloc((t->n + 1) * sizeof(*acc));
	order = malloc((t->n + 1) * sizeof(*order));
	if (!storage || !h->obj || !h->live || !acc || !order) {
		ret = -ENOMEM;
		goto out;
	}
	ga_pools_init(&h->pools, cfg->chiplets, cfg->frames, storage);
	fragment(&h->pools, cfg->fragment_pct, cfg->fragment_seed);
	ret = ga_space_init(&h->as, 1, &h->pt);
	if (ret)
		goto out;
	bw_default_config(&bc, cfg->chiplets, cfg->frames);
	bc.walkers = cfg->walkers ? cfg->walkers : MCMGPU_BARRE_WALKERS;
	bc.shadow = cfg->shadow;
	bc.sched_moves = cfg->barre ? cfg->sched_moves : 0;
	if (!cfg->barre)
		bc.pec_entries = 0;
	ret = bw_init(&h->iommu, &bc,
		      &(struct bw_pt_ops){ host_root, host_read, h },
		      host_respond, h);
	if (ret) {
		fail(err, errlen, "walkers: %u out of 1..%u", bc.walkers,
		     MCMGPU_BARRE_MAX_WALKERS);
		goto out;
	}
	bd_init(&h->dev, cfg->chiplets, h->replies, host_request, NULL, h);
	{
		struct fb_config fc;

		barre_fb_config(cfg, &fc);
		fc.sharing = fc.sharing && cfg->barre;
		if (bd_fbarre(&h->dev, &fc, cfg->frames, host_walk)) {
			ret = fail(err, errlen, "F-Barre: filter rows %u not 256, 512 "
				   "or 1024, or merge %u not 1..4", fc.rows, fc.run);
			goto out;
		}
	}

	while (i < t->n && !ret) {
		const struct barre_rec *r = &t->rec[i];

		if (r->type == BARRE_REC_ACCESS) {
			size_t n = 0;

			/* A phase: every access up to the next alloc or free. */
			for (j = i; j < t->n && t->rec[j].type == BARRE_REC_ACCESS; j++) {
				const struct barre_rec *a = &t->rec[j];
				struct ga_object *o = &h->obj[a->id];

				ret = barre_access_check(a, cfg->chiplets, o->pages, err,
							 errlen);
				if (ret)
					break;
				acc[n++] = (struct bd_access){
					.vpn = o->vpn + a->bytes / 4096,
					.offset = a->bytes % 4096, .chiplet = a->chiplet,
					.write = a->write,
				};
			}
			if (ret)
				break;
			bd_phase(&h->dev, acc, n, order);
			host_run_phase(h);
			if (h->error) {
				ret = fail(err, errlen, "line %u: the replay lost a request",
					   r->line);
				break;
			}
			i = j;
			continue;
		}
		if (r->type == BARRE_REC_ALLOC) {
			struct ga_alloc_req req = {
				.pages = r->bytes / 4096, .policy = r->policy, .g = r->g,
				.nmap = r->nmap, .barre = cfg->barre, .writable = true,
				.merge = cfg->barre ? cfg->merge : 1,
			};
			struct ga_object *o = &h->obj[r->id];
			const char *field;
			u64 *pfn;

			memcpy(req.map, r->map, sizeof(req.map));
			if (ga_alloc_check(&h->pools, &req, &field)) {
				ret = fail(err, errlen, "line %u: alloc: bad %s", r->line, field);
				break;
			}
			pfn = malloc(req.pages * sizeof(*pfn));
			ret = pfn ? ga_alloc(&h->pools, &h->as, &req, o, pfn) : -ENOMEM;
			if (ret) {
				free(pfn);
				fail(err, errlen, "line %u: alloc: %s", r->line,
				     ret == -ENOMEM ? "out of GPU memory" : "no virtual space");
				break;
			}
			h->live[r->id] = 1;
			st->objects++;
			st->pages += o->pages;
			st->groups += o->groups;
			st->grouped_pages += o->grouped_pages;
			st->fallback_pages += o->fallback_pages;
			st->merged_groups += o->merged_groups;
			if (cfg->barre) {
				struct mcmgpu_pec_entry pe;

				ga_pec_entry(&h->as, o, &pe);
				bw_pec_add(&h->iommu, &pe);
			}
		} else {
			host_free(h, r->id);
		}
		i++;
	}
	if (!ret && cfg->dump_pt)
		for (j = 0; j < t->max_id; j++)
			if (h->live[j])
				dump_object(cfg->dump_pt, &h->as, &h->obj[j], t->names[j],
					    cfg->frames);
	for (j = 0; j < t->max_id; j++)
		if (h->live[j])
			host_free(h, j);

	bw_export_stats(&h->iommu.stats, st);
	bd_export_stats(&h->dev, st);
	ga_space_destroy(&h->as);
out:
	free(order);
	free(acc);
	free(storage);
	free(h->live);
	free(h->obj);
	free(h);
	return ret;
}
