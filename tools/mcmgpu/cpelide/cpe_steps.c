// SPDX-License-Identifier: GPL-2.0
/*
 * The interpreter of the workload step tables (cpe_steps.h): walks a
 * table, calls the workload's geometry where it asks, and writes each
 * step as a line of the launch sequence format (cpe_seq.c).
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cpe_steps.h"
#include "cpe_tool.h"

static void out(struct cpe_gen *g, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(g->f, fmt, ap);
	va_end(ap);
}

/*
 * Work-groups [*lo, *hi) of chiplet c when G work-groups are split in
 * index order into chunks of ceil(G/n), as the static kernel-wide
 * partition (and the model's even split) does.
 */
int chunk(u64 G, unsigned int n, unsigned int c, u64 *lo, u64 *hi)
{
	u64 ch = (G + n - 1) / n;

	*lo = min64(c * ch, G);
	*hi = min64((c + 1) * ch, G);
	return *hi > *lo;
}

/* r[c]: chiplet c's chunk of G work-groups of per bytes from base, up to end. */
unsigned int wg_rg(struct rg *r, unsigned int n, u64 G, u64 per, u64 base,
		   u64 end)
{
	unsigned int c, mask = 0;
	u64 lo, hi;

	for (c = 0; c < MAXC; c++) {
		r[c].lo = r[c].hi = 0;
		if (c >= n || !chunk(G, n, c, &lo, &hi))
			continue;
		r[c].lo = min64(base + lo * per, end);
		r[c].hi = min64(base + hi * per, end);
		if (r[c].hi > r[c].lo)
			mask |= 1U << c;
	}
	return mask;
}

void rg_clear(struct rg *r)
{
	memset(r, 0, sizeof(*r) * MAXC);
}

void rg_all(struct rg *r, unsigned int mask, u64 lo, u64 hi)
{
	unsigned int c;

	for (c = 0; c < MAXC; c++) {
		r[c].lo = mask >> c & 1 ? lo : 0;
		r[c].hi = mask >> c & 1 ? hi : 0;
	}
}

/* ---- small numerics without libm ---------------------------------- */

double dexp(double x)
{
	double s = 1, term = 1;
	int k = 0, i;

	while (x > 0.5 || x < -0.5) {
		x /= 2;
		k++;
	}
	for (i = 1; i < 20; i++) {
		term *= x / i;
		s += term;
	}
	while (k--)
		s *= s;
	return s;
}

/* Expected distinct lines of L hit by `probes` uniformly random accesses. */
u64 occ(u64 L, double probes)
{
	double v;
	u64 r;

	if (probes <= 0 || !L)
		return 0;
	v = (double)L * (1 - dexp(-probes / (double)L));
	r = (u64)(v + 0.5);
	return r ? min64(r, L) : 1;
}

/* ---- a kernel record, argument by argument -------------------------- */

struct kern {
	struct cpe_gen *g;
	char s[16384];
	size_t len;
	unsigned int nargs, mask;
};

static void kput(struct kern *k, const char *fmt, ...)
{
	va_list ap;
	int w;

	va_start(ap, fmt);
	w = vsnprintf(k->s + k->len, sizeof(k->s) - k->len, fmt, ap);
	va_end(ap);
	if (w < 0 || (size_t)w >= sizeof(k->s) - k->len) {
		fprintf(stderr, "cpe_steps: kernel record too long\n");
		abort();
	}
	k->len += w;
}

static void kbegin(struct kern *k, struct cpe_gen *g, const char *name,
		   unsigned int mask, u64 passes)
{
	unsigned int all = (1U << g->n) - 1, c;
	int first = 1;

	k->g = g;
	k->len = 0;
	k->nargs = 0;
	k->mask = mask & all;
	kput(k, "kernel %s", name);
	if (k->mask != all) {
		kput(k, " chiplets=");
		for (c = 0; c < g->n; c++) {
			if (k->mask >> c & 1) {
				kput(k, "%s%u", first ? "" : ",", c);
				first = 0;
			}
		}
	}
	if (passes > 1)
		kput(k, " passes=%llu", passes);
}

/* One argument: chiplet c of the kernel accesses r[c] (none if empty). */
static void karg(struct kern *k, const char *obj, int rw, const struct rg *r)
{
	unsigned int c;
	int first = 1;

	for (c = 0; c < k->g->n; c++) {
		if (!(k->mask >> c & 1) || r[c].hi <= r[c].lo)
			continue;
		if (r[c].lo % 4 || r[c].hi % 4) {
			fprintf(stderr, "cpe_steps: %s: %s range not 4-byte "
				"aligned\n", k->s, obj);
			abort();
		}
		if (first)
			kput(k, " %s:%s:", obj, rw ? "rw" : "r");
		kput(k, "%s%u=%llu-%llu", first ? "" : ",", c, r[c].lo, r[c].hi - 1);
		first = 0;
	}
	if (!first)
		k->nargs++;
}

static void kend(struct kern *k)
{
	if (!k->nargs || k->nargs > MAX_KARGS) {
		fprintf(stderr, "cpe_steps: %s: %u arguments\n", k->s, k->nargs);
		abort();
	}
	out(k->g, "%s\n", k->s);
}

/* ---- the interpreter ---------------------------------------------- */

/* The i-th of the names in "a|b|c", counting round. */
static const char *pick(const char *names, u64 i, char *buf, size_t len)
{
	const char *p = names, *bar;
	u64 count = 1;

	if (!strchr(names, '|'))
		return names;
	for (bar = names; (bar = strchr(bar, '|')); bar++)
		count++;
	for (i %= count; i; i--)
		p = strchr(p, '|') + 1;
	bar = strchr(p, '|');
	snprintf(buf, len, "%.*s", bar ? (int)(bar - p) : (int)strlen(p), p);
	return buf;
}

static u64 value(const struct cpe_gen *g, const struct cpe_step *s)
{
	return s->var ? g->var[s->var - 1] : s->n;
}

static void kernel(struct cpe_gen *g, const struct cpe_step *s)
{
	struct kern *k = malloc(sizeof(*k));
	unsigned int i, c, mask = g->mask[s->mask] & ((1U << g->n) - 1);
	struct rg r[MAXC];
	char buf[64];

	if (!k) {
		fprintf(stderr, "cpe_steps: out of memory\n");
		abort();
	}
	if (!mask)
		goto done;
	kbegin(k, g, s->name, mask, value(g, s));
	for (i = 0; i < MAX_SLOTS && s->arg[i].obj; i++) {
		const struct cpe_slot *a = &s->arg[i];
		const char *obj = pick(a->obj, g->it[0], buf, sizeof(buf));
		u64 unit = a->unit ? a->unit : 1;

		switch (a->kind) {
		case IN_SET:
			for (c = 0; c < MAXC; c++) {
				r[c].lo = g->set[a->set][c].lo * unit;
				r[c].hi = g->set[a->set][c].hi * unit;
			}
			break;
		case EVERY:
			rg_all(r, k->mask, a->lo, a->hi);
			break;
		case FIRST:
			rg_all(r, 1, a->lo, a->hi);
			break;
		case UNKNOWN:
			kput(k, " %s:%s:unknown", obj, a->rw ? "rw" : "r");
			k->nargs++;
			continue;
		}
		karg(k, obj, a->rw, r);
	}
	kend(k);
done:
	free(k);
}

/* The S_LOOP_END of the loop whose body starts at s. */
static const struct cpe_step *loop_end(const struct cpe_step *s)
{
	unsigned int depth = 0;

	for (;; s++) {
		if (s->op == S_LOOP)
			depth++;
		else if (s->op == S_LOOP_END && !depth--)
			return s;
	}
}

static void run(struct cpe_gen *g, const struct cpe_step *s, unsigned int depth)
{
	u64 i, count;

	for (; s->op != STEPS_END && s->op != S_LOOP_END; s++) {
		switch (s->op) {
		case S_ALLOC:
			out(g, "alloc %s %llu\n", s->name, (value(g, s) + 3) / 4 * 4);
			break;
		case S_WRITE:
		case S_READ:
			out(g, "host_%s %s", s->op == S_READ ? "read" : "write", s->name);
			if (s->hi)
				out(g, " %llu-%llu", s->lo, s->hi - 1);
			out(g, "\n");
			break;
		case S_KERNEL:
			kernel(g, s);
			break;
		case S_GEOM:
			s->geom(g);
			break;
		case S_LOOP:
			if (depth == MAX_DEPTH) {
				fprintf(stderr, "cpe_steps: loops nested too deep\n");
				abort();
			}
			count = value(g, s);
			for (i = 0; i < count; i++) {
				g->it[depth] = i;
				run(g, s + 1, depth + 1);
			}
			s = loop_end(s + 1);
			break;
		}
	}
}

void cpe_app_emit(const struct cpe_app *app, FILE *f, unsigned int n)
{
	struct cpe_gen *g = calloc(1, sizeof(*g));

	if (!g || (app->priv_size && !(g->priv = calloc(1, app->priv_size)))) {
		fprintf(stderr, "cpe_steps: out of memory\n");
		abort();
	}
	g->f = f;
	g->n = n;
	g->mask[M_ALL] = (1U << n) - 1;
	g->mask[M_CHIPLET0] = 1;
	g->param = app->param;
	run(g, app->steps, 0);
	free(g->priv);
	free(g);
}
