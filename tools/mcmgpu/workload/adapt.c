// SPDX-License-Identifier: GPL-2.0
/*
 * A program as each replay's trace (adapt.h states the mapping). One
 * pass over the records: objects and copies are written as they come;
 * a kernel's warp instructions are spooled per chiplet (tmpfile(), so
 * a kernel never has to fit in memory) and, at its end, issued in the
 * lockstep round-robin that stands in for the timing core.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "adapt.h"
#include "adsm_rt.h"
#include "mcmgpu_cxl.h"

#define PAGE		4096ULL
#define NO_OWNER	0xff
#define CXL_LINE	64ULL
#define LLC_SETS	256		/* 256 KiB: 256 sets x 16 ways x 64 B */
#define LLC_WAYS	16
#define CXL_LANES_NS	64		/* lanes of compute a ns (docs/cxl.md) */
#define CXL_MAX_NS	1000000		/* a `c` record's most */
#define CPE_MAX_ARGS	16		/* MCMGPU_CPE_MAX_ARGS */
#define CPE_MAX_OBJECTS	256		/* cpe_seq.c's */
#define CPE_MAX_BYTES	(64ULL << 20)	/* MCMGPU_CPE_MAX_MEM_BYTES */
#define ADSM_MAX_OBJECTS 16		/* the host runtime's */
#define ADSM_MAX_BYTES	(256ULL << 20)	/* MCMGPU_ADSM_MAX_OBJECT */
#define BARRE_CHIPLETS	8		/* MCMGPU_MAX_CHIPLETS */
#define FP_LINE		128ULL
/* FinePack compute: a GV100 a chiplet (80 SMs x 4 issue x 1.53 GHz). */
#define FP_ISSUE_X10	4896		/* warp instructions per 10 ns */
#define FP_BYTES_NS	900		/* HBM2 */
#define FP_ATOMIC_MAX	16		/* MCMGPU_FP_ATOMIC_MAX_LEN */
#define NELEMS(x)	(sizeof(x) / sizeof((x)[0]))

static const char *const mech_names[ADAPT_MECHS] = {
	"barre", "finepack", "cpelide", "cxl", "adsm",
};
static const char *const cta_names[ADAPT_CTAS] = { "chunk", "rr" };
static const char *const place_names[ADAPT_PLACES] = {
	"default", "first-touch", "interleave", "chunk", "none",
};

static int lookup(const char *const *names, int n, const char *s)
{
	int i;

	for (i = 0; i < n; i++)
		if (!strcmp(names[i], s))
			return i;
	return -1;
}

int adapt_mech_parse(const char *s)
{
	return lookup(mech_names, ADAPT_MECHS, s);
}

const char *adapt_mech_name(uint32_t mech)
{
	return mech < ADAPT_MECHS ? mech_names[mech] : NULL;
}

int adapt_cta_parse(const char *s)
{
	return lookup(cta_names, ADAPT_CTAS, s);
}

const char *adapt_cta_name(uint32_t cta)
{
	return cta < ADAPT_CTAS ? cta_names[cta] : NULL;
}

int adapt_placement_parse(const char *s)
{
	int p = lookup(place_names, ADAPT_PLACES, s);

	/* "default" and "none" are internal. */
	return p == ADAPT_PLACE_FIRST_TOUCH || p == ADAPT_PLACE_INTERLEAVE ||
	       p == ADAPT_PLACE_CHUNK ? p : -1;
}

const char *adapt_placement_name(uint32_t placement)
{
	return placement < ADAPT_PLACES ? place_names[placement] : NULL;
}

static int __attribute__((format(printf, 3, 4)))
fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

int adapt_resolve(struct adapt_opts *o, char *err, size_t errlen)
{
	static const uint32_t max_chiplets[ADAPT_MECHS] = {
		[ADAPT_BARRE] = BARRE_CHIPLETS, [ADAPT_FINEPACK] = 16,
		[ADAPT_CPELIDE] = 8, [ADAPT_CXL] = ADAPT_MAX_CHIPLETS,
		[ADAPT_ADSM] = 8,
	};
	const char *m = adapt_mech_name(o->mech);

	if (!m)
		return fail(err, errlen, "no mechanism %u", o->mech);
	if (o->cta >= ADAPT_CTAS)
		return fail(err, errlen, "--cta-policy: %u is not rr or chunk",
			    o->cta);
	if (!o->chiplets || o->chiplets > max_chiplets[o->mech])
		return fail(err, errlen, "--chiplets: %s traces take 1 to %u "
			    "chiplets, not %u", m, max_chiplets[o->mech],
			    o->chiplets);
	switch (o->mech) {
	case ADAPT_BARRE:
		if (o->placement == ADAPT_PLACE_DEFAULT)
			o->placement = ADAPT_PLACE_CHUNK;
		if (o->placement == ADAPT_PLACE_FIRST_TOUCH)
			return fail(err, errlen, "--placement first-touch: a Barre "
				    "trace fixes each object's layout when it is "
				    "allocated, before any access (policy rr or "
				    "kwc); use interleave or chunk");
		break;
	case ADAPT_FINEPACK:
		if (o->placement == ADAPT_PLACE_DEFAULT)
			o->placement = ADAPT_PLACE_FIRST_TOUCH;
		break;
	case ADAPT_CPELIDE:
		if (o->placement == ADAPT_PLACE_DEFAULT)
			o->placement = ADAPT_PLACE_FIRST_TOUCH;
		if (o->placement != ADAPT_PLACE_FIRST_TOUCH)
			return fail(err, errlen, "--placement %s: the CPElide model "
				    "homes every page where it is first touched; "
				    "only first-touch applies",
				    adapt_placement_name(o->placement));
		break;
	default:
		if (o->placement != ADAPT_PLACE_DEFAULT &&
		    o->placement != ADAPT_PLACE_NONE)
			return fail(err, errlen, "--placement: %s traces have one "
				    "memory, not chiplet memories", m);
		o->placement = ADAPT_PLACE_NONE;
		break;
	}
	if (o->placement < ADAPT_PLACE_FIRST_TOUCH ||
	    o->placement >= ADAPT_PLACES)
		return fail(err, errlen, "--placement: %u is not first-touch, "
			    "interleave or chunk", o->placement);
	return 0;
}

/* ---- Objects ------------------------------------------------------------ */

struct obj {
	uint64_t base, size;		/* the program's */
	uint64_t pages;			/* 4 KiB, from base */
	uint64_t packed;		/* page-aligned, in declaration order */
	uint8_t *owner;			/* first-touch: chiplet a page, lazily */
	char id[ADAPT_ID_MAX];
	/* This kernel's accesses (cpelide, adsm). */
	uint64_t lo[ADAPT_MAX_CHIPLETS], hi[ADAPT_MAX_CHIPLETS]; /* [lo, hi) */
	bool read, written;
};

/* One lane's access, spooled: its object and the offset in it. */
struct lane {
	uint64_t off;
	uint32_t obj;
	uint32_t pad;
};

/* A spooled warp instruction; MEM ones are followed by their lanes. */
enum { EV_OTHER, EV_MEM, EV_FENCE };

struct ev {
	uint8_t type, kind;
	uint16_t width;
	uint32_t mask;
};

struct spool {
	FILE *f;
	uint64_t events, insts;
};

struct adapt {
	const struct adapt_opts *o;
	FILE *out;
	struct adapt_stats *st;
	char *err;
	size_t errlen;
	struct prog_grammar grammar;

	struct obj *obj;
	uint32_t nobj, capobj;
	uint32_t *by_base;		/* indices sorted by base */
	uint64_t packed_end;

	/* Where we are, for errors. */
	struct prog_kernel kernel;
	uint64_t blocks;		/* of the kernel's grid */
	struct prog_block block;
	uint32_t chiplet;		/* the current block's */
	struct prog_warp warp;
	uint32_t inst;			/* within the warp */
	uint32_t kernel_mask;		/* chiplets that ran blocks */

	struct spool spool[ADAPT_MAX_CHIPLETS];

	/* finepack */
	uint64_t fp_insts[ADAPT_MAX_CHIPLETS], fp_lines[ADAPT_MAX_CHIPLETS];
	uint64_t *lineset;		/* (line << 4 | chiplet) + 1, 0 empty */
	uint64_t lineset_cap, lineset_used;

	/* cxl */
	uint64_t cxl_records, cxl_lanes;
	uint64_t llc_tag[LLC_SETS][LLC_WAYS];	/* line + 1; 0 empty */
	uint64_t llc_used[LLC_SETS][LLC_WAYS];
	uint64_t llc_clock;
};

static int afail(struct adapt *a, int ret, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int afail(struct adapt *a, int ret, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(a->err, a->errlen, fmt, ap);
	va_end(ap);
	return ret;
}

/* "kernel 2 'vadd' block (1,0,0) warp 3 instruction 7 (pc 0x40)" */
static int inst_fail(struct adapt *a, const struct prog_inst *in,
		     const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int inst_fail(struct adapt *a, const struct prog_inst *in,
		     const char *fmt, ...)
{
	char what[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	return afail(a, -EINVAL, "kernel %u '%.64s' block (%u,%u,%u) warp %u "
		     "instruction %u (pc 0x%llx): %s", a->kernel.id,
		     a->kernel.name, a->block.x, a->block.y, a->block.z,
		     a->warp.id, a->inst, (unsigned long long)in->pc, what);
}

static bool id_char(char c, bool first)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
	       (!first && ((c >= '0' && c <= '9') || c == '.' || c == '-'));
}

static bool id_taken(const struct adapt *a, const char *id)
{
	uint32_t i;

	for (i = 0; i < a->nobj; i++)
		if (!strcmp(a->obj[i].id, id))
			return true;
	return false;
}

/*
 * An ID every trace takes (Barre's rule, the strictest: a letter or '_',
 * then letters, digits, '_', '.', '-'): the name with other characters
 * as '_', at most 40 of them, and ".N" (N the object's index) added
 * while another object has it.
 */
static void make_id(const struct adapt *a, const char *name, uint32_t index,
		    char *id)
{
	size_t i, n = 0;

	if (!id_char(name[0], true))
		id[n++] = '_';
	for (i = 0; name[i] && n < 40; i++)
		id[n++] = id_char(name[i], false) ? name[i] : '_';
	if (n == 1 && id[0] == '_' && !name[0])
		n = snprintf(id, ADAPT_ID_MAX, "obj%u", index);
	id[n] = '\0';
	while (id_taken(a, id) && n < ADAPT_ID_MAX - 12)
		n += snprintf(id + n, ADAPT_ID_MAX - n, ".%u", index);
}

/* The object holding [addr, addr + len), or -1. */
static int64_t find_obj(const struct adapt *a, uint64_t addr, uint64_t len)
{
	uint32_t lo = 0, hi = a->nobj;
	const struct obj *o;

	/* The last object whose base is at most addr. */
	while (lo < hi) {
		uint32_t mid = (lo + hi) / 2;

		if (a->obj[a->by_base[mid]].base <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return -1;
	o = &a->obj[a->by_base[lo - 1]];
	if (addr - o->base >= o->size || len > o->size - (addr - o->base))
		return -1;
	return a->by_base[lo - 1];
}

static int out_line(struct adapt *a, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int out_line(struct adapt *a, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vfprintf(a->out, fmt, ap);
	va_end(ap);
	a->st->lines++;
	return n < 0 ? afail(a, -EIO, "writing the trace: %s",
			     strerror(errno)) : 0;
}

static int add_object(struct adapt *a, const struct prog_object *po)
{
	const struct adapt_opts *o = a->o;
	struct obj *ob;
	uint32_t i, pos;

	if (!po->size)
		return afail(a, -EINVAL, "object '%.64s' at 0x%llx: size 0",
			     po->name, (unsigned long long)po->base);
	for (i = 0; i < a->nobj; i++) {
		const struct obj *x = &a->obj[i];

		if (po->base < x->base + x->size && x->base < po->base + po->size)
			return afail(a, -EINVAL, "object '%.64s' [0x%llx, +0x%llx) "
				     "overlaps object '%.64s'", po->name,
				     (unsigned long long)po->base,
				     (unsigned long long)po->size, x->id);
	}
	if (o->mech == ADAPT_CPELIDE && a->nobj == CPE_MAX_OBJECTS)
		return afail(a, -E2BIG, "object '%.64s': a CPElide sequence "
			     "takes at most %u objects", po->name,
			     CPE_MAX_OBJECTS);
	if (o->mech == ADAPT_ADSM && a->nobj == ADSM_MAX_OBJECTS)
		return afail(a, -E2BIG, "object '%.64s': an ADSM pattern takes at "
			     "most %u objects (the runtime's)", po->name,
			     ADSM_MAX_OBJECTS);
	if (o->mech == ADAPT_ADSM && po->size > ADSM_MAX_BYTES)
		return afail(a, -E2BIG, "object '%.64s': %llu bytes, more than "
			     "ADSM's %llu MiB an object", po->name,
			     (unsigned long long)po->size,
			     (unsigned long long)(ADSM_MAX_BYTES >> 20));
	if (a->nobj == a->capobj) {
		uint32_t cap = a->capobj ? 2 * a->capobj : 16;
		struct obj *no = realloc(a->obj, cap * sizeof(*no));
		uint32_t *nb;

		if (!no)
			return afail(a, -ENOMEM, "out of memory");
		a->obj = no;
		nb = realloc(a->by_base, cap * sizeof(*nb));
		if (!nb)
			return afail(a, -ENOMEM, "out of memory");
		a->by_base = nb;
		a->capobj = cap;
	}
	ob = &a->obj[a->nobj];
	memset(ob, 0, sizeof(*ob));
	ob->base = po->base;
	ob->size = po->size;
	ob->pages = (po->size + PAGE - 1) / PAGE;
	ob->packed = a->packed_end;
	for (i = 0; i < ADAPT_MAX_CHIPLETS; i++)
		ob->lo[i] = UINT64_MAX;
	make_id(a, po->name, a->nobj, ob->id);
	a->packed_end += ob->pages * PAGE;
	if (o->mech == ADAPT_CPELIDE && a->packed_end > CPE_MAX_BYTES)
		return afail(a, -E2BIG, "object '%.64s': the objects take %llu "
			     "bytes, more than a CPElide sequence's %llu MiB",
			     po->name, (unsigned long long)a->packed_end,
			     (unsigned long long)(CPE_MAX_BYTES >> 20));
	for (pos = a->nobj; pos && a->obj[a->by_base[pos - 1]].base > po->base;
	     pos--)
		a->by_base[pos] = a->by_base[pos - 1];
	a->by_base[pos] = a->nobj++;

	switch (o->mech) {
	case ADAPT_BARRE:
		return out_line(a, "alloc %s %llu policy=%s\n", ob->id,
				(unsigned long long)ob->size,
				o->placement == ADAPT_PLACE_INTERLEAVE ?
				"rr" : "kwc");
	case ADAPT_CPELIDE:
		return out_line(a, "alloc %s %llu\n", ob->id,
				(unsigned long long)(ob->size + 3) / 4 * 4);
	case ADAPT_ADSM:
		return out_line(a, "object %s %llu\n", ob->id,
				(unsigned long long)ob->size);
	}
	return 0;
}

/* The chiplet whose memory holds page p of object i, for chiplet c's access. */
static int page_owner(struct adapt *a, uint32_t i, uint64_t p, uint32_t c)
{
	struct obj *ob = &a->obj[i];
	uint64_t part;

	switch (a->o->placement) {
	case ADAPT_PLACE_INTERLEAVE:
		return p % a->o->chiplets;
	case ADAPT_PLACE_CHUNK:
		part = (ob->pages + a->o->chiplets - 1) / a->o->chiplets;
		return p / part;
	}
	if (!ob->owner) {
		ob->owner = malloc(ob->pages);
		if (!ob->owner)
			return -ENOMEM;
		memset(ob->owner, NO_OWNER, ob->pages);
	}
	if (ob->owner[p] == NO_OWNER)
		ob->owner[p] = c;
	return ob->owner[p];
}

/* ---- Copies --------------------------------------------------------------- */

static int add_copy(struct adapt *a, const struct prog_copy *cp)
{
	uint64_t addr = cp->base, end = cp->base + cp->bytes;
	bool h2d = cp->dir == PROG_COPY_H2D;
	int ret = 0;

	if (a->o->mech != ADAPT_CPELIDE && a->o->mech != ADAPT_ADSM)
		return 0;	/* the GPU's traces: copies are the host's */
	while (addr < end && !ret) {
		int64_t i = find_obj(a, addr, 1);
		const struct obj *ob;
		uint64_t off, n;

		if (i < 0)
			return afail(a, -EINVAL, "copy %s 0x%llx +%llu: byte 0x%llx "
				     "is in no object", h2d ? "h2d" : "d2h",
				     (unsigned long long)cp->base,
				     (unsigned long long)cp->bytes,
				     (unsigned long long)addr);
		ob = &a->obj[i];
		off = addr - ob->base;
		n = ob->size - off < end - addr ? ob->size - off : end - addr;
		if (a->o->mech == ADAPT_ADSM)
			ret = out_line(a, "%s %s %llu %llu\n", h2d ? "cpu_write" :
				       "cpu_read", ob->id, (unsigned long long)off,
				       (unsigned long long)n);
		else	/* inclusive, 4-byte aligned, within the rounded size */
			ret = out_line(a, "%s %s %llu-%llu\n", h2d ? "host_write" :
				       "host_read", ob->id,
				       (unsigned long long)(off & ~3ULL),
				       (unsigned long long)((off + n + 3) / 4 * 4 - 1));
		addr += n;
	}
	return ret;
}

/* ---- Kernels and blocks -------------------------------------------------- */

static bool spools_needed(const struct adapt *a)
{
	return a->o->mech == ADAPT_BARRE || a->o->mech == ADAPT_FINEPACK ||
	       a->o->mech == ADAPT_CXL;
}

static int start_kernel(struct adapt *a, const struct prog_kernel *k)
{
	uint32_t i, c;

	a->kernel = *k;
	a->blocks = (uint64_t)k->grid[0] * k->grid[1] * k->grid[2];
	a->kernel_mask = 0;
	for (i = 0; i < a->nobj; i++) {
		a->obj[i].read = a->obj[i].written = false;
		for (c = 0; c < ADAPT_MAX_CHIPLETS; c++) {
			a->obj[i].lo[c] = UINT64_MAX;
			a->obj[i].hi[c] = 0;
		}
	}
	memset(a->fp_insts, 0, sizeof(a->fp_insts));
	memset(a->fp_lines, 0, sizeof(a->fp_lines));
	if (a->lineset)
		memset(a->lineset, 0, a->lineset_cap * sizeof(*a->lineset));
	a->lineset_used = 0;
	return 0;
}

static int start_block(struct adapt *a, const struct prog_block *b)
{
	const struct prog_kernel *k = &a->kernel;
	uint64_t i, chunk;

	if (b->x >= k->grid[0] || b->y >= k->grid[1] || b->z >= k->grid[2])
		return afail(a, -EINVAL, "kernel %u '%.64s': block (%u,%u,%u) is "
			     "outside its grid (%u,%u,%u)", k->id, k->name, b->x,
			     b->y, b->z, k->grid[0], k->grid[1], k->grid[2]);
	a->block = *b;
	i = b->x + (uint64_t)k->grid[0] * (b->y + (uint64_t)k->grid[1] * b->z);
	if (a->o->cta == ADAPT_CTA_RR) {
		a->chiplet = i % a->o->chiplets;
	} else {
		chunk = (a->blocks + a->o->chiplets - 1) / a->o->chiplets;
		a->chiplet = i / chunk;
	}
	a->kernel_mask |= 1U << a->chiplet;
	return 0;
}

static int spool_write(struct adapt *a, const void *p, size_t len)
{
	struct spool *s = &a->spool[a->chiplet];

	if (!s->f) {
		s->f = tmpfile();
		if (!s->f)
			return afail(a, -errno, "a spool file for chiplet %u: %s",
				     a->chiplet, strerror(errno));
	}
	if (fwrite(p, 1, len, s->f) != len)
		return afail(a, -EIO, "writing the spool of chiplet %u: %s",
			     a->chiplet, strerror(errno));
	return 0;
}

static bool is_sys_fence(const struct prog_inst *in)
{
	return !strncmp(in->opcode, "MEMBAR", 6) && strstr(in->opcode, ".SYS");
}

/* cpelide and adsm: what this kernel's chiplets touch, object by object. */
static void note_access(struct adapt *a, uint32_t i, uint64_t off,
			uint32_t width, uint32_t kind)
{
	struct obj *ob = &a->obj[i];
	uint32_t c = a->chiplet;

	if (off < ob->lo[c])
		ob->lo[c] = off;
	if (off + width > ob->hi[c])
		ob->hi[c] = off + width;
	if (kind == PROG_KIND_LOAD)
		ob->read = true;
	else
		ob->written = true;
}

static int add_inst(struct adapt *a, const struct prog_inst *in)
{
	struct lane lanes[PROG_WARP_SIZE];
	struct ev ev = { .type = EV_OTHER, .mask = in->mask };
	unsigned int l, n = 0;
	int ret;

	if (prog_inst_is_mem(in) && in->space == PROG_SPACE_GLOBAL) {
		if (!in->width)
			return inst_fail(a, in, "a global access of width 0");
		ev.type = EV_MEM;
		ev.kind = in->kind;
		ev.width = in->width;
		for (l = 0; l < PROG_WARP_SIZE; l++) {
			int64_t i;

			if (!(in->mask >> l & 1))
				continue;
			i = find_obj(a, in->addr[l], in->width);
			if (i < 0)
				return inst_fail(a, in, "lane %u: [0x%llx, +%u) is "
						 "not inside one object", l,
						 (unsigned long long)in->addr[l],
						 in->width);
			lanes[n].obj = i;
			lanes[n].off = in->addr[l] - a->obj[i].base;
			lanes[n].pad = 0;
			if (a->o->mech == ADAPT_CPELIDE || a->o->mech == ADAPT_ADSM)
				note_access(a, i, lanes[n].off, in->width, in->kind);
			n++;
		}
	} else if (a->o->mech == ADAPT_FINEPACK && is_sys_fence(in)) {
		ev.type = EV_FENCE;
	}
	a->inst++;
	if (!spools_needed(a))
		return 0;
	ret = spool_write(a, &ev, sizeof(ev));
	if (!ret && n)
		ret = spool_write(a, lanes, n * sizeof(lanes[0]));
	a->spool[a->chiplet].insts++;
	return ret;
}

/* ---- The interleaved issue: barre ------------------------------------------ */

static int barre_inst(struct adapt *a, uint32_t c, const struct ev *ev,
		      const struct lane *lanes, unsigned int n)
{
	struct { uint32_t obj; uint64_t page; } seen[2 * PROG_WARP_SIZE];
	unsigned int nseen = 0, l, k;
	int ret = 0;

	for (l = 0; l < n && !ret; l++) {
		uint64_t p, last = (lanes[l].off + ev->width - 1) / PAGE;

		for (p = lanes[l].off / PAGE; p <= last && !ret; p++) {
			for (k = 0; k < nseen; k++)
				if (seen[k].obj == lanes[l].obj && seen[k].page == p)
					break;
			if (k < nseen)
				continue;
			if (nseen < NELEMS(seen)) {
				seen[nseen].obj = lanes[l].obj;
				seen[nseen++].page = p;
			}
			ret = out_line(a, "access %u %s %llu %c\n", c,
				       a->obj[lanes[l].obj].id,
				       (unsigned long long)(p == lanes[l].off / PAGE ?
							    lanes[l].off : p * PAGE),
				       ev->kind == PROG_KIND_LOAD ? 'r' : 'w');
		}
	}
	return ret;
}

/* ---- finepack ----------------------------------------------------------- */

struct piece {
	uint32_t dst;
	uint64_t addr, end;		/* in dst's memory */
};

static int piece_cmp(const void *x, const void *y)
{
	const struct piece *p = x, *q = y;

	if (p->dst != q->dst)
		return p->dst < q->dst ? -1 : 1;
	return p->addr < q->addr ? -1 : p->addr > q->addr;
}

/* The bytes a store writes: a function of where they land, so every writer agrees. */
static uint8_t fp_byte(uint64_t addr)
{
	return (uint8_t)(addr ^ addr >> 8 ^ addr >> 16 ^ 0xa5);
}

static int fp_data(struct adapt *a, const char *what, uint32_t src,
		   uint32_t dst, uint64_t addr, uint64_t len)
{
	char hex[2 * PROG_WARP_SIZE * PROG_MAX_WIDTH + 1];
	uint64_t i;

	for (i = 0; i < len && i < sizeof(hex) / 2; i++)
		snprintf(hex + 2 * i, 3, "%02x", fp_byte(addr + i));
	return out_line(a, "%s %u %u %llu %llu %s\n", what, src, dst,
			(unsigned long long)addr, (unsigned long long)len, hex);
}

/* Distinct 128 B lines of this kernel, per chiplet: compulsory bytes. */
static int fp_note_line(struct adapt *a, uint32_t c, uint64_t line)
{
	uint64_t key = (line << 4 | c) + 1, h, mask;

	if (2 * (a->lineset_used + 1) > a->lineset_cap) {
		uint64_t cap = a->lineset_cap ? 2 * a->lineset_cap : 1 << 12, i;
		uint64_t *ns = calloc(cap, sizeof(*ns));

		if (!ns)
			return afail(a, -ENOMEM, "out of memory");
		for (i = 0; i < a->lineset_cap; i++) {
			if (!a->lineset[i])
				continue;
			for (h = a->lineset[i] * 0x9e3779b97f4a7c15ULL >> 20 &
				 (cap - 1); ns[h]; h = (h + 1) & (cap - 1))
				;
			ns[h] = a->lineset[i];
		}
		free(a->lineset);
		a->lineset = ns;
		a->lineset_cap = cap;
	}
	mask = a->lineset_cap - 1;
	for (h = key * 0x9e3779b97f4a7c15ULL >> 20 & mask; a->lineset[h];
	     h = (h + 1) & mask)
		if (a->lineset[h] == key)
			return 0;
	a->lineset[h] = key;
	a->lineset_used++;
	a->fp_lines[c]++;
	return 0;
}

static int fp_inst(struct adapt *a, uint32_t c, const struct ev *ev,
		   const struct lane *lanes, unsigned int n)
{
	struct piece pc[2 * PROG_WARP_SIZE];
	unsigned int np = 0, l, k;
	int ret = 0, owner;

	for (l = 0; l < n; l++) {
		const struct obj *ob = &a->obj[lanes[l].obj];
		uint64_t off = lanes[l].off, end = off + ev->width, line;

		for (line = (ob->packed + off) / FP_LINE;
		     line <= (ob->packed + end - 1) / FP_LINE; line++) {
			ret = fp_note_line(a, c, line);
			if (ret)
				return ret;
		}
		/* Split at pages: each part goes where its page lives. */
		while (off < end) {
			uint64_t next = (off / PAGE + 1) * PAGE;
			uint64_t stop = next < end ? next : end;

			owner = page_owner(a, lanes[l].obj, off / PAGE, c);
			if (owner < 0)
				return afail(a, -ENOMEM, "out of memory");
			if ((uint32_t)owner != c && np < NELEMS(pc))
				pc[np++] = (struct piece){ .dst = owner,
					.addr = ob->packed + off,
					.end = ob->packed + stop };
			off = stop;
		}
	}
	if (ev->kind == PROG_KIND_ATOMIC || ev->kind == PROG_KIND_REDUCTION) {
		/* Never coalesced: one a lane (checked whole at the spool). */
		for (k = 0; k < np && !ret; k++)
			ret = fp_data(a, "atomic", c, pc[k].dst, pc[k].addr,
				      pc[k].end - pc[k].addr);
		return ret;
	}
	/* The L1 coalescer's warp access: maximal runs a destination. */
	qsort(pc, np, sizeof(pc[0]), piece_cmp);
	for (k = 0; k < np && !ret; ) {
		struct piece run = pc[k++];

		while (k < np && pc[k].dst == run.dst && pc[k].addr <= run.end) {
			if (pc[k].end > run.end)
				run.end = pc[k].end;
			k++;
		}
		if (ev->kind == PROG_KIND_LOAD)
			ret = out_line(a, "load %u %u %llu %llu\n", c, run.dst,
				       (unsigned long long)run.addr,
				       (unsigned long long)(run.end - run.addr));
		else
			ret = fp_data(a, "store", c, run.dst, run.addr,
				      run.end - run.addr);
	}
	return ret;
}

static int fp_kernel_end(struct adapt *a)
{
	uint32_t c;
	int ret = 0;

	for (c = 0; c < a->o->chiplets && !ret; c++) {
		uint64_t issue = (a->fp_insts[c] * 10 + FP_ISSUE_X10 - 1) /
				 FP_ISSUE_X10;
		uint64_t mem = (a->fp_lines[c] * FP_LINE + FP_BYTES_NS - 1) /
			       FP_BYTES_NS;
		uint64_t ns = issue > mem ? issue : mem;

		if (ns)
			ret = out_line(a, "compute %u %llu\n", c,
				       (unsigned long long)ns);
	}
	return ret ? ret : out_line(a, "kernel_end\n");
}

/* ---- cxl ------------------------------------------------------------------ */

/* True when the line is in the LLC; either way it is the most recent now. */
static bool llc_hit(struct adapt *a, uint64_t line)
{
	uint32_t set = (line ^ line >> 8) % LLC_SETS, w, victim = 0;

	a->llc_clock++;
	for (w = 0; w < LLC_WAYS; w++) {
		if (a->llc_tag[set][w] == line + 1) {
			a->llc_used[set][w] = a->llc_clock;
			return true;
		}
		if (a->llc_used[set][w] < a->llc_used[set][victim])
			victim = w;
	}
	a->llc_tag[set][victim] = line + 1;
	a->llc_used[set][victim] = a->llc_clock;
	return false;
}

static int cxl_record(struct adapt *a, const char *fmt, uint64_t v)
{
	if (a->cxl_records == MCMGPU_CXL_MAX_RECORDS)
		return afail(a, -E2BIG, "kernel %u '%.64s': the trace passes %u "
			     "records, the CXL replay's most", a->kernel.id,
			     a->kernel.name, MCMGPU_CXL_MAX_RECORDS);
	a->cxl_records++;
	return out_line(a, fmt, (unsigned long long)v);
}

/* The compute owed so far, before the next line (whole ns; the rest waits). */
static int cxl_compute(struct adapt *a)
{
	uint64_t ns = a->cxl_lanes / CXL_LANES_NS;
	int ret = 0;

	a->cxl_lanes %= CXL_LANES_NS;
	while (ns && !ret) {
		uint64_t n = ns < CXL_MAX_NS ? ns : CXL_MAX_NS;

		ret = cxl_record(a, "c %llu\n", n);
		ns -= n;
	}
	return ret;
}

static int cxl_inst(struct adapt *a, const struct ev *ev,
		    const struct lane *lanes, unsigned int n)
{
	uint64_t lines[2 * PROG_WARP_SIZE * (PROG_MAX_WIDTH / CXL_LINE + 1)];
	unsigned int nl = 0, l, k;
	int ret;

	for (l = 0; l < n; l++) {
		const struct obj *ob = &a->obj[lanes[l].obj];
		uint64_t first = (ob->packed + lanes[l].off) / CXL_LINE;
		uint64_t last = (ob->packed + lanes[l].off + ev->width - 1) /
				CXL_LINE, x;

		for (x = first; x <= last; x++) {
			for (k = 0; k < nl && lines[k] != x; k++)
				;
			if (k == nl && nl < NELEMS(lines))
				lines[nl++] = x;
		}
	}
	ret = cxl_compute(a);
	for (k = 0; k < nl && !ret; k++) {
		bool hit = llc_hit(a, lines[k]);

		if (ev->kind != PROG_KIND_STORE && !hit)
			ret = cxl_record(a, "r 0x%llx\n", lines[k] * CXL_LINE);
		if (!ret && ev->kind != PROG_KIND_LOAD)
			ret = cxl_record(a, "w 0x%llx\n", lines[k] * CXL_LINE);
	}
	return ret;
}

/* ---- The round-robin issue at a kernel's end ------------------------------ */

static int issue(struct adapt *a, uint32_t c, const struct ev *ev,
		 const struct lane *lanes, unsigned int n)
{
	switch (a->o->mech) {
	case ADAPT_BARRE:
		return ev->type == EV_MEM ? barre_inst(a, c, ev, lanes, n) : 0;
	case ADAPT_FINEPACK:
		a->fp_insts[c]++;
		if (ev->type == EV_FENCE)
			return out_line(a, "fence %u\n", c);
		return ev->type == EV_MEM ? fp_inst(a, c, ev, lanes, n) : 0;
	case ADAPT_CXL:
		if (ev->type == EV_MEM)
			return cxl_inst(a, ev, lanes, n);
		a->cxl_lanes += prog_lanes(ev->mask);
		return 0;
	}
	return 0;
}

static int interleave(struct adapt *a)
{
	struct lane lanes[PROG_WARP_SIZE];
	uint32_t c, live = 0;
	int ret = 0;

	for (c = 0; c < a->o->chiplets; c++) {
		struct spool *s = &a->spool[c];

		if (!s->insts)
			continue;
		if (fflush(s->f) || fseek(s->f, 0, SEEK_SET))
			return afail(a, -EIO, "the spool of chiplet %u: %s", c,
				     strerror(errno));
		live |= 1U << c;
	}
	while (live && !ret) {
		for (c = 0; c < a->o->chiplets && !ret; c++) {
			struct spool *s = &a->spool[c];
			unsigned int n = 0;
			struct ev ev;

			if (!(live >> c & 1))
				continue;
			if (fread(&ev, sizeof(ev), 1, s->f) != 1)
				return afail(a, -EIO, "reading the spool of "
					     "chiplet %u", c);
			if (ev.type == EV_MEM) {
				n = prog_lanes(ev.mask);
				if (n && fread(lanes, sizeof(lanes[0]), n, s->f) != n)
					return afail(a, -EIO, "reading the spool "
						     "of chiplet %u", c);
			}
			ret = issue(a, c, &ev, lanes, n);
			if (!--s->insts)
				live &= ~(1U << c);
		}
	}
	for (c = 0; c < a->o->chiplets && !ret; c++) {
		struct spool *s = &a->spool[c];

		s->insts = 0;
		if (s->f && (fseek(s->f, 0, SEEK_SET) ||
			     ftruncate(fileno(s->f), 0)))
			return afail(a, -EIO, "the spool of chiplet %u: %s", c,
				     strerror(errno));
	}
	return ret;
}

/* ---- cpelide and adsm kernels ------------------------------------------ */

static void chiplet_list(uint32_t mask, char *buf, size_t len)
{
	size_t n = 0;
	uint32_t c;

	buf[0] = '\0';
	for (c = 0; c < ADAPT_MAX_CHIPLETS && n < len; c++)
		if (mask >> c & 1)
			n += snprintf(buf + n, len - n, "%s%u", n ? "," : "", c);
}

/* A kernel name as one token: no blanks, '#', ':' or ','. */
static void kernel_token(const char *name, char *tok, size_t len)
{
	size_t i;

	for (i = 0; name[i] && i + 1 < len; i++)
		tok[i] = name[i] <= ' ' || strchr("#:,=", name[i]) ? '_' : name[i];
	if (!i && len > 1)
		tok[i++] = '_';
	tok[i] = '\0';
}

/* Chiplet c's hull as CPElide takes it: inclusive, 4-byte aligned. */
static void cpe_hull(const struct obj *ob, uint32_t c, uint64_t *lo,
		     uint64_t *hi)
{
	*lo = ob->lo[c] & ~3ULL;
	*hi = (ob->hi[c] + 3) / 4 * 4 - 1;
}

static int cpe_kernel(struct adapt *a)
{
	char line[8192], tok[128], chips[64];
	uint32_t i, c, d, nargs = 0;
	size_t n;

	kernel_token(a->kernel.name, tok, sizeof(tok));
	chiplet_list(a->kernel_mask, chips, sizeof(chips));
	n = snprintf(line, sizeof(line), "kernel %s chiplets=%s", tok, chips);
	for (i = 0; i < a->nobj; i++) {
		const struct obj *ob = &a->obj[i];
		bool overlap = false, first = true;
		uint64_t lo, hi, lo2, hi2;

		if (!ob->read && !ob->written)
			continue;
		if (++nargs > CPE_MAX_ARGS)
			return afail(a, -E2BIG, "kernel %u '%.64s': it touches more "
				     "than %u objects, a CPElide launch's most",
				     a->kernel.id, a->kernel.name, CPE_MAX_ARGS);
		for (c = 0; c < a->o->chiplets && ob->written; c++) {
			if (ob->lo[c] == UINT64_MAX)
				continue;
			cpe_hull(ob, c, &lo, &hi);
			for (d = c + 1; d < a->o->chiplets; d++) {
				if (ob->lo[d] == UINT64_MAX)
					continue;
				cpe_hull(ob, d, &lo2, &hi2);
				overlap |= lo <= hi2 && lo2 <= hi;
			}
		}
		n += snprintf(line + n, sizeof(line) - n, " %s:%s", ob->id,
			      ob->written ? "rw" : "r");
		if (overlap) {
			n += snprintf(line + n, sizeof(line) - n, ":unknown");
			continue;
		}
		for (c = 0; c < a->o->chiplets; c++) {
			if (ob->lo[c] == UINT64_MAX)
				continue;
			cpe_hull(ob, c, &lo, &hi);
			n += snprintf(line + n, sizeof(line) - n, "%c%u=%llu-%llu",
				      first ? ':' : ',', c, (unsigned long long)lo,
				      (unsigned long long)hi);
			first = false;
		}
	}
	if (!nargs)	/* the format has no launch without arguments */
		return out_line(a, "# kernel %u %s: no global accesses, no "
				"launch\n", a->kernel.id, tok);
	return out_line(a, "%s\n", line);
}

static int adsm_kernel(struct adapt *a)
{
	char line[4096], tok[128], chips[64];
	size_t n;
	int pass;

	kernel_token(a->kernel.name, tok, sizeof(tok));
	chiplet_list(a->kernel_mask, chips, sizeof(chips));
	n = snprintf(line, sizeof(line), "kernel %s chiplets=%s", tok, chips);
	for (pass = 0; pass < 2; pass++) {
		bool first = true;
		uint32_t i;

		for (i = 0; i < a->nobj; i++) {
			const struct obj *ob = &a->obj[i];

			if (pass ? !ob->written : !ob->read)
				continue;
			n += snprintf(line + n, sizeof(line) - n, "%s%s",
				      first ? (pass ? " writes=" : " reads=") : ",",
				      ob->id);
			first = false;
		}
	}
	return out_line(a, "%s\n", line);
}

static int end_kernel(struct adapt *a)
{
	int ret;

	a->st->kernels++;
	switch (a->o->mech) {
	case ADAPT_CPELIDE:
		return a->kernel_mask ? cpe_kernel(a) : 0;
	case ADAPT_ADSM:
		return a->kernel_mask ? adsm_kernel(a) : 0;
	}
	ret = interleave(a);
	if (ret)
		return ret;
	if (a->o->mech == ADAPT_FINEPACK)
		return fp_kernel_end(a);
	if (a->o->mech == ADAPT_CXL)
		return cxl_compute(a);
	return 0;
}

/* ---- The program ---------------------------------------------------------- */

static int header(struct adapt *a)
{
	const struct adapt_opts *o = a->o;

	return out_line(a, "# mcmgpu workload to %s: %u chiplets, cta-policy "
			"%s, placement %s\n", adapt_mech_name(o->mech),
			o->chiplets, adapt_cta_name(o->cta),
			adapt_placement_name(o->placement));
}

static int finepack_check(struct adapt *a, const struct prog_inst *in)
{
	unsigned int l;

	if (a->o->mech != ADAPT_FINEPACK || !prog_inst_is_mem(in) ||
	    in->space != PROG_SPACE_GLOBAL ||
	    (in->kind != PROG_KIND_ATOMIC && in->kind != PROG_KIND_REDUCTION))
		return 0;
	for (l = 0; l < PROG_WARP_SIZE; l++) {
		int64_t i;

		if (!(in->mask >> l & 1))
			continue;
		i = find_obj(a, in->addr[l], in->width);
		if (i >= 0 && (in->width > FP_ATOMIC_MAX ||
			       (in->addr[l] - a->obj[i].base) % FP_LINE +
			       in->width > FP_LINE))
			return inst_fail(a, in, "lane %u: a %u-byte atomic at "
					 "0x%llx: FinePack's atomics are 1 to %u "
					 "bytes within one 128 B line", l,
					 in->width,
					 (unsigned long long)in->addr[l],
					 FP_ATOMIC_MAX);
	}
	return 0;
}

static int record(struct adapt *a, const struct prog_rec *r)
{
	int ret;

	switch (r->type) {
	case PROG_REC_OBJECT:
		return add_object(a, &r->object);
	case PROG_REC_COPY:
		return add_copy(a, &r->copy);
	case PROG_REC_KERNEL:
		return start_kernel(a, &r->kernel);
	case PROG_REC_BLOCK:
		return start_block(a, &r->block);
	case PROG_REC_WARP:
		a->warp = r->warp;
		a->inst = 0;
		return 0;
	case PROG_REC_INST:
		ret = finepack_check(a, &r->inst);
		return ret ? ret : add_inst(a, &r->inst);
	case PROG_REC_KERNEL_END:
		return end_kernel(a);
	case PROG_REC_END:
		if (a->o->mech != ADAPT_CPELIDE)
			return 0;
		/* A CPElide sequence describes its structures: none, no sequence. */
		if (!a->nobj)
			return afail(a, -EINVAL, "the program has no OBJECT record; "
				     "a CPElide launch sequence needs one");
		return out_line(a, "end\n");
	}
	return 0;
}

int adapt_program(const struct adapt_opts *o, prog_source_fn src,
		  void *src_ctx, FILE *out, struct adapt_stats *st,
		  char *err, size_t errlen)
{
	struct adapt *a = calloc(1, sizeof(*a));
	struct prog_rec *r = malloc(sizeof(*r));
	int ret;
	uint32_t i;

	memset(st, 0, sizeof(*st));
	if (!a || !r) {
		free(a);
		free(r);
		fail(err, errlen, "out of memory");
		return -ENOMEM;
	}
	a->o = o;
	a->out = out;
	a->st = st;
	a->err = err;
	a->errlen = errlen;
	prog_grammar_init(&a->grammar);
	ret = header(a);
	while (!ret) {
		ret = src(src_ctx, r);
		if (ret < 0) {
			st->source_failed = true;
			snprintf(err, errlen, "reading the program: %s",
				 strerror(-ret));
			break;
		}
		if (!ret) {
			if (!prog_grammar_done(&a->grammar))
				ret = afail(a, -EINVAL, "the program ends before "
					    "its END record");
			break;
		}
		st->records++;
		ret = prog_grammar_check(&a->grammar, r);
		if (ret) {
			afail(a, ret, "record %llu (%s): %s: %s",
			      (unsigned long long)st->records,
			      prog_rec_name(r->type) ? prog_rec_name(r->type) :
			      "?", a->grammar.err_field, a->grammar.err_why);
			break;
		}
		ret = record(a, r);
		if (!ret && r->type == PROG_REC_END)
			break;
	}
	if (!ret && fflush(out))
		ret = afail(a, -EIO, "writing the trace: %s", strerror(errno));
	for (i = 0; i < ADAPT_MAX_CHIPLETS; i++)
		if (a->spool[i].f)
			fclose(a->spool[i].f);
	for (i = 0; i < a->nobj; i++)
		free(a->obj[i].owner);
	free(a->obj);
	free(a->by_base);
	free(a->lineset);
	free(a);
	free(r);
	return ret;
}

/* ---- The ADSM pattern's replay -------------------------------------------- */

#define ADSM_RUN_OBJECTS	64
#define ADSM_CHUNK		(1U << 20)

struct adsm_run {
	struct adsm_rt *rt;
	uint32_t chiplets;
	struct adsm_buf buf[ADSM_RUN_OBJECTS];
	char id[ADSM_RUN_OBJECTS][ADAPT_ID_MAX];
	uint32_t nobj;
	uint8_t *chunk;
	struct adapt_adsm_result *res;
	char *err;
	size_t errlen;
	unsigned int line;
};

static int run_fail(struct adsm_run *r, int ret, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int run_fail(struct adsm_run *r, int ret, const char *fmt, ...)
{
	char what[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	snprintf(r->err, r->errlen, "line %u: %s", r->line, what);
	return ret;
}

static int run_num(struct adsm_run *r, const char *s, const char *field,
		   uint64_t *v)
{
	char *end;

	errno = 0;
	*v = s && *s != '-' ? strtoull(s, &end, 0) : 0;
	if (!s || *s == '-' || errno || *end || end == s)
		return run_fail(r, -EINVAL, "%s: not a number: '%s'", field,
				s ? s : "");
	return 0;
}

static int run_find(const struct adsm_run *r, const char *id)
{
	uint32_t i;

	for (i = 0; i < r->nobj; i++)
		if (!strcmp(r->id[i], id))
			return i;
	return -1;
}

static int run_obj(struct adsm_run *r, const char *id)
{
	int i = run_find(r, id);

	return i >= 0 ? i : run_fail(r, -EINVAL, "no object '%s'", id);
}

static int run_cpu(struct adsm_run *r, char **tok, int ntok, bool write)
{
	uint64_t off, len, done, n;
	struct adsm_buf *b;
	int i, ret;

	if (ntok != 4)
		return run_fail(r, -EINVAL, "%s takes ID OFFSET LEN", tok[0]);
	i = run_obj(r, tok[1]);
	if (i < 0)
		return i;
	b = &r->buf[i];
	if (run_num(r, tok[2], "OFFSET", &off) || run_num(r, tok[3], "LEN", &len))
		return -EINVAL;
	if (!len || off > b->bytes || len > b->bytes - off)
		return run_fail(r, -EINVAL, "%s: [%llu, +%llu) is not inside "
				"object '%s' (%llu bytes)", tok[0],
				(unsigned long long)off, (unsigned long long)len,
				tok[1], (unsigned long long)b->bytes);
	/* Explicit: the program's own copies, by hand (the CUDA bar). */
	if (!write && r->rt->protocol == ADSM_EXPLICIT) {
		ret = r->rt->ops->copy(r->rt, b, off, len, false);
		if (ret)
			return run_fail(r, ret, "copy: %s", r->rt->err[0] ?
					r->rt->err : strerror(-ret));
	}
	/* The data does not matter to the protocols: zeros, a chunk at a time. */
	for (done = 0; done < len; done += n) {
		n = len - done < ADSM_CHUNK ? len - done : ADSM_CHUNK;
		ret = write ? r->rt->ops->cpu_write(r->rt, b, off + done, r->chunk, n) :
		      r->rt->ops->cpu_read(r->rt, b, off + done, r->chunk, n);
		if (ret)
			return run_fail(r, ret, "%s: %s", tok[0], r->rt->err[0] ?
					r->rt->err : strerror(-ret));
	}
	if (write && r->rt->protocol == ADSM_EXPLICIT) {
		ret = r->rt->ops->copy(r->rt, b, off, len, true);
		if (ret)
			return run_fail(r, ret, "copy: %s", r->rt->err[0] ?
					r->rt->err : strerror(-ret));
	}
	if (write) {
		r->res->cpu_writes++;
		r->res->cpu_bytes_written += len;
	} else {
		r->res->cpu_reads++;
		r->res->cpu_bytes_read += len;
	}
	return 0;
}

/* The first object of a "reads=" or "writes=" list, checking them all. */
static int run_list(struct adsm_run *r, char *list, int *first)
{
	char *save = NULL, *id;
	int i;

	for (id = strtok_r(list, ",", &save); id; id = strtok_r(NULL, ",", &save)) {
		i = run_obj(r, id);
		if (i < 0)
			return i;
		if (*first < 0)
			*first = i;
	}
	return 0;
}

static int run_kernel(struct adsm_run *r, char **tok, int ntok)
{
	struct mcmgpu_adsm_kernel_result kres;
	struct mcmgpu_adsm_kernel k = { .kernel = MCMGPU_ADSM_K_SCALE_ADD,
					.s = { 1, 0 } };
	int i, reads = -1, writes = -1, target;
	uint32_t mask = 0;
	int ret;

	if (ntok < 3 || strncmp(tok[2], "chiplets=", 9))
		return run_fail(r, -EINVAL, "kernel takes NAME chiplets=C,... "
				"[reads=ID,...] [writes=ID,...]");
	for (i = 2; i < ntok; i++) {
		if (!strncmp(tok[i], "chiplets=", 9) && i == 2) {
			char *save = NULL, *c;
			uint64_t v;

			for (c = strtok_r(tok[i] + 9, ",", &save); c;
			     c = strtok_r(NULL, ",", &save)) {
				if (run_num(r, c, "chiplets", &v))
					return -EINVAL;
				if (v >= r->chiplets)
					return run_fail(r, -EINVAL, "chiplets: no "
							"chiplet %llu of %u",
							(unsigned long long)v,
							r->chiplets);
				mask |= 1U << v;
			}
		} else if (!strncmp(tok[i], "reads=", 6)) {
			ret = run_list(r, tok[i] + 6, &reads);
			if (ret)
				return ret;
		} else if (!strncmp(tok[i], "writes=", 7)) {
			ret = run_list(r, tok[i] + 7, &writes);
			if (ret)
				return ret;
		} else {
			return run_fail(r, -EINVAL, "kernel: unknown field '%s'",
					tok[i]);
		}
	}
	if (!mask)
		return run_fail(r, -EINVAL, "kernel: empty chiplet set");
	target = writes >= 0 ? writes : reads >= 0 ? reads : 0;
	if (!r->nobj || r->buf[target].bytes < 4)
		return run_fail(r, -EINVAL, "kernel: no object of 4 bytes or more "
				"to run on");
	k.chiplet_mask = mask;
	k.n = r->buf[target].bytes / 4;
	k.va[0] = r->buf[target].gpu_va;
	r->rt->err[0] = '\0';
	ret = r->rt->ops->launch(r->rt, &k);
	if (!ret)
		ret = r->rt->ops->sync(r->rt, &kres);
	if (ret)
		return run_fail(r, ret, "kernel %s: %s", tok[1], r->rt->err[0] ?
				r->rt->err : strerror(-ret));
	r->res->kernels++;
	return 0;
}

static int run_line(struct adsm_run *r, char *text)
{
	char *tok[16], *save = NULL, *t;
	uint64_t bytes;
	int ntok = 0, ret;

	for (t = strtok_r(text, " \t\r", &save); t; t = strtok_r(NULL, " \t\r", &save)) {
		if (ntok == (int)NELEMS(tok))
			return run_fail(r, -EINVAL, "too many fields");
		tok[ntok++] = t;
	}
	if (!ntok)
		return 0;
	if (!strcmp(tok[0], "object")) {
		if (ntok != 3)
			return run_fail(r, -EINVAL, "object takes ID BYTES");
		if (strlen(tok[1]) >= ADAPT_ID_MAX)
			return run_fail(r, -EINVAL, "object: ID longer than %u",
					ADAPT_ID_MAX - 1);
		if (run_find(r, tok[1]) >= 0)
			return run_fail(r, -EINVAL, "object '%s' twice", tok[1]);
		if (run_num(r, tok[2], "BYTES", &bytes))
			return -EINVAL;
		if (!bytes || bytes > ADSM_MAX_BYTES)
			return run_fail(r, -EINVAL, "BYTES: %llu is not 1 to %llu",
					(unsigned long long)bytes,
					(unsigned long long)ADSM_MAX_BYTES);
		if (r->nobj == ADSM_RUN_OBJECTS)
			return run_fail(r, -E2BIG, "more than %u objects",
					ADSM_RUN_OBJECTS);
		r->rt->err[0] = '\0';
		ret = r->rt->ops->alloc(r->rt, bytes, &r->buf[r->nobj]);
		if (ret)
			return run_fail(r, ret, "object %s: %s", tok[1],
					r->rt->err[0] ? r->rt->err : ret == -ENOSPC ?
					"the runtime has no room for another object" :
					strerror(-ret));
		snprintf(r->id[r->nobj++], ADAPT_ID_MAX, "%s", tok[1]);
		r->res->objects++;
		return 0;
	}
	if (!strcmp(tok[0], "cpu_write") || !strcmp(tok[0], "cpu_read"))
		return run_cpu(r, tok, ntok, tok[0][4] == 'w');
	if (!strcmp(tok[0], "kernel"))
		return run_kernel(r, tok, ntok);
	return run_fail(r, -EINVAL, "unknown record '%s' (object, cpu_write, "
			"cpu_read or kernel)", tok[0]);
}

int adapt_adsm_run(const char *text, size_t len, struct adsm_rt *rt,
		   uint32_t chiplets, struct adapt_adsm_result *res,
		   char *err, size_t errlen)
{
	struct adsm_run *r = calloc(1, sizeof(*r));
	size_t pos = 0;
	int ret = 0;

	memset(res, 0, sizeof(*res));
	if (r)
		r->chunk = calloc(1, ADSM_CHUNK);
	if (!r || !r->chunk) {
		free(r);
		fail(err, errlen, "out of memory");
		return -ENOMEM;
	}
	r->rt = rt;
	r->chiplets = chiplets;
	r->res = res;
	r->err = err;
	r->errlen = errlen;
	while (pos < len && !ret) {
		const char *nl = memchr(text + pos, '\n', len - pos);
		size_t n = (nl ? (size_t)(nl - text) : len) - pos;
		char *line = malloc(n + 1), *hash;

		r->line++;
		if (!line) {
			ret = run_fail(r, -ENOMEM, "out of memory");
			break;
		}
		memcpy(line, text + pos, n);
		line[n] = '\0';
		hash = strchr(line, '#');
		if (hash)
			*hash = '\0';
		ret = run_line(r, line);
		free(line);
		pos += n + 1;
	}
	if (!ret && rt->ops->stats(rt, &res->stats))
		ret = run_fail(r, -EIO, "the runtime's counters: %s", rt->err);
	/* The objects go with the run: their counters are in res. */
	while (r->nobj--)
		rt->ops->free(rt, &r->buf[r->nobj]);
	free(r->chunk);
	free(r);
	return ret;
}
