// SPDX-License-Identifier: GPL-2.0
/* What a program does, counted as its records stream past (prog_stats.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "prog_stats.h"

#define KEYSET_MIN_CAP	1024

void prog_keyset_init(struct prog_keyset *ks)
{
	memset(ks, 0, sizeof(*ks));
	ks->cur = 1;
}

void prog_keyset_free(struct prog_keyset *ks)
{
	free(ks->e);
	prog_keyset_init(ks);
}

void prog_keyset_clear(struct prog_keyset *ks)
{
	ks->count = 0;
	if (++ks->cur)
		return;
	/* 2^32 clears: the old generations would come back to life. */
	if (ks->e)
		memset(ks->e, 0, ks->cap * sizeof(*ks->e));
	ks->cur = 1;
}

/* Fibonacci hashing: the top bits of key times 2^64 / phi. */
static size_t slot_of(uint64_t key, size_t cap)
{
	return (size_t)((key * 0x9e3779b97f4a7c15ULL) >> 32) & (cap - 1);
}

/*
 * A slot of another generation is free: entries are never removed within
 * a generation, so no probe chain of the current one crosses it.
 */
static size_t find(const struct prog_keyset *ks, uint64_t key, bool *found)
{
	size_t i = slot_of(key, ks->cap);

	for (;; i = (i + 1) & (ks->cap - 1)) {
		if (ks->e[i].gen != ks->cur) {
			*found = false;
			return i;
		}
		if (ks->e[i].key == key) {
			*found = true;
			return i;
		}
	}
}

/* Doubles the table (or makes the first), keeping this generation's keys. */
static int grow(struct prog_keyset *ks)
{
	size_t cap = ks->cap ? ks->cap * 2 : KEYSET_MIN_CAP, i;
	struct prog_keyset n = { .cap = cap, .cur = 1 };
	bool found;

	n.e = calloc(cap, sizeof(*n.e));
	if (!n.e)
		return -ENOMEM;
	for (i = 0; i < ks->cap; i++) {
		size_t at;

		if (ks->e[i].gen != ks->cur)
			continue;
		at = find(&n, ks->e[i].key, &found);
		n.e[at].key = ks->e[i].key;
		n.e[at].gen = n.cur;
		n.count++;
	}
	free(ks->e);
	*ks = n;
	return 0;
}

int prog_keyset_add(struct prog_keyset *ks, uint64_t key)
{
	bool found;
	size_t at;

	/* At most half full: probe chains stay short. */
	if ((ks->count + 1) * 2 > ks->cap && grow(ks))
		return -ENOMEM;
	at = find(ks, key, &found);
	if (found)
		return 0;
	ks->e[at].key = key;
	ks->e[at].gen = ks->cur;
	ks->count++;
	return 1;
}

void prog_stats_init(struct prog_stats *s)
{
	memset(s, 0, sizeof(*s));
	prog_keyset_init(&s->lines);
	prog_keyset_init(&s->pages);
	prog_keyset_init(&s->kernel_lines);
	prog_keyset_init(&s->kernel_pages);
}

void prog_stats_free(struct prog_stats *s)
{
	size_t i;

	for (i = 0; i < s->nkernels; i++)
		free(s->kernels[i].name);
	free(s->kernels);
	free(s->objects);
	prog_keyset_free(&s->lines);
	prog_keyset_free(&s->pages);
	prog_keyset_free(&s->kernel_lines);
	prog_keyset_free(&s->kernel_pages);
	prog_stats_init(s);
}

/* Room for one more of n items of size sz in *arr (capacity *cap). */
static int reserve(void *arr, size_t *cap, size_t n, size_t sz)
{
	void **p = arr;
	size_t ncap;
	void *np;

	if (n < *cap)
		return 0;
	ncap = *cap ? *cap * 2 : 16;
	np = realloc(*p, ncap * sz);
	if (!np)
		return -ENOMEM;
	*p = np;
	*cap = ncap;
	return 0;
}

static int add_object(struct prog_stats *s, const struct prog_object *o)
{
	if (reserve(&s->objects, &s->objects_cap, s->nobjects, sizeof(*o)))
		return -ENOMEM;
	s->objects[s->nobjects++] = *o;
	return 0;
}

static int open_kernel(struct prog_stats *s, const struct prog_kernel *k)
{
	struct prog_stats_kernel *sk;

	if (reserve(&s->kernels, &s->kernels_cap, s->nkernels, sizeof(*sk)))
		return -ENOMEM;
	sk = &s->kernels[s->nkernels];
	memset(sk, 0, sizeof(*sk));
	sk->name = strndup(k->name, PROG_NAME_MAX - 1);
	if (!sk->name)
		return -ENOMEM;
	sk->id = k->id;
	memcpy(sk->grid, k->grid, sizeof(sk->grid));
	memcpy(sk->block, k->block, sizeof(sk->block));
	sk->shmem = k->shmem;
	sk->stream = k->stream;
	s->cur = sk;
	s->nkernels++;
	prog_keyset_clear(&s->kernel_lines);
	prog_keyset_clear(&s->kernel_pages);
	return 0;
}

/*
 * Adds key to the kernel's set and the program's, counting the new ones.
 * The program's set holds every kernel's keys, so a key the kernel has
 * seen needs no second look-up.
 */
static int add_key(struct prog_keyset *prog_set, struct prog_keyset *kern_set,
		   uint64_t key, uint64_t *total, uint64_t *kernel)
{
	int r;

	if (kernel) {
		r = prog_keyset_add(kern_set, key);
		if (r <= 0)
			return r;
		*kernel += r;
	}
	r = prog_keyset_add(prog_set, key);
	if (r < 0)
		return r;
	*total += r;
	return 0;
}

/* The lines and pages of a global instruction's active lanes. */
static int touch(struct prog_stats *s, const struct prog_inst *in)
{
	struct prog_stats_counts *k = s->cur ? &s->cur->c : NULL;
	uint64_t last_line = 0, last_page = 0;
	bool have_line = false, have_page = false;
	unsigned int lane;
	int r;

	for (lane = 0; lane < PROG_WARP_SIZE; lane++) {
		uint64_t first, end, key;

		if (!(in->mask & (1u << lane)))
			continue;
		/* A lane's bytes may straddle a line (misaligned): each counts. */
		first = in->addr[lane];
		end = first + (in->width ? in->width - 1 : 0);
		if (end < first)	/* wraps at 2^64: the last line */
			end = UINT64_MAX;
		for (key = first >> PROG_STATS_LINE_SHIFT;
		     key <= end >> PROG_STATS_LINE_SHIFT; key++) {
			/* Coalesced lanes share a line: skip the repeats. */
			if (!have_line || key != last_line) {
				r = add_key(&s->lines, &s->kernel_lines, key,
					    &s->total.global_lines,
					    k ? &k->global_lines : NULL);
				if (r)
					return r;
			}
			last_line = key;
			have_line = true;
			if (key == UINT64_MAX >> PROG_STATS_LINE_SHIFT)
				break;
		}
		for (key = first >> PROG_STATS_PAGE_SHIFT;
		     key <= end >> PROG_STATS_PAGE_SHIFT; key++) {
			if (!have_page || key != last_page) {
				r = add_key(&s->pages, &s->kernel_pages, key,
					    &s->total.global_pages,
					    k ? &k->global_pages : NULL);
				if (r)
					return r;
			}
			last_page = key;
			have_page = true;
			if (key == UINT64_MAX >> PROG_STATS_PAGE_SHIFT)
				break;
		}
	}
	return 0;
}

/* Adds one instruction's counts to c. */
static void count_inst(struct prog_stats_counts *c, const struct prog_inst *in)
{
	uint64_t lanes = prog_lanes(in->mask);

	c->warp_instructions++;
	if (!prog_inst_is_mem(in))
		return;
	switch (in->space) {
	case PROG_SPACE_GLOBAL:
		c->global_lanes += lanes;
		switch (in->kind) {
		case PROG_KIND_LOAD:
			c->global_loads++;
			c->global_bytes_loaded += lanes * in->width;
			break;
		case PROG_KIND_STORE:
			c->global_stores++;
			c->global_bytes_stored += lanes * in->width;
			break;
		case PROG_KIND_ATOMIC:
		case PROG_KIND_REDUCTION:
			/* A RED is a global atomic that returns nothing. */
			c->global_reductions += in->kind == PROG_KIND_REDUCTION;
			c->global_atomics++;
			c->global_bytes_atomic += lanes * in->width;
			break;
		}
		break;
	case PROG_SPACE_SHARED:
		c->shared_accesses++;
		break;
	case PROG_SPACE_LOCAL:
		c->local_accesses++;
		break;
	}
}

int prog_stats_sink(void *stats, const struct prog_rec *rec)
{
	struct prog_stats *s = stats;

	s->records++;
	switch (rec->type) {
	case PROG_REC_OBJECT:
		return add_object(s, &rec->object);
	case PROG_REC_COPY:
		if (rec->copy.dir == PROG_COPY_H2D) {
			s->h2d_bytes += rec->copy.bytes;
			s->h2d_copies++;
		} else {
			s->d2h_bytes += rec->copy.bytes;
			s->d2h_copies++;
		}
		return 0;
	case PROG_REC_KERNEL:
		return open_kernel(s, &rec->kernel);
	case PROG_REC_BLOCK:
		s->total.thread_blocks++;
		if (s->cur)
			s->cur->c.thread_blocks++;
		return 0;
	case PROG_REC_WARP:
		s->total.warps++;
		if (s->cur)
			s->cur->c.warps++;
		return 0;
	case PROG_REC_INST:
		count_inst(&s->total, &rec->inst);
		if (s->cur)
			count_inst(&s->cur->c, &rec->inst);
		if (prog_inst_is_mem(&rec->inst) &&
		    rec->inst.space == PROG_SPACE_GLOBAL)
			return touch(s, &rec->inst);
		return 0;
	case PROG_REC_KERNEL_END:
		s->cur = NULL;
		return 0;
	case PROG_REC_END:
		s->ended = true;
		return 0;
	}
	return 0;
}

/*
 * The counts, in the order the issue lists them, as JSON members: one
 * line each for the instructions, the memory instructions, the bytes and
 * the footprint, indented by indent.
 */
static void counts_json(struct json *j, const struct prog_stats_counts *c,
			const char *indent)
{
	json_u64(j, "thread_blocks", c->thread_blocks);
	json_u64(j, "warps", c->warps);
	json_u64(j, "warp_instructions", c->warp_instructions);
	json_break(j, indent);
	json_u64(j, "global_loads", c->global_loads);
	json_u64(j, "global_stores", c->global_stores);
	json_u64(j, "global_atomics", c->global_atomics);
	json_u64(j, "global_reductions", c->global_reductions);
	json_u64(j, "shared_accesses", c->shared_accesses);
	json_u64(j, "local_accesses", c->local_accesses);
	json_break(j, indent);
	json_u64(j, "global_lanes", c->global_lanes);
	json_u64(j, "global_bytes_loaded", c->global_bytes_loaded);
	json_u64(j, "global_bytes_stored", c->global_bytes_stored);
	json_u64(j, "global_bytes_atomic", c->global_bytes_atomic);
	json_break(j, indent);
	json_u64(j, "global_lines", c->global_lines);
	json_u64(j, "global_pages", c->global_pages);
}

static void dim3_json(struct json *j, const char *key, const uint32_t d[3])
{
	json_open(j, key, '[');
	json_u64(j, NULL, d[0]);
	json_u64(j, NULL, d[1]);
	json_u64(j, NULL, d[2]);
	json_close(j);
}

void prog_stats_json(const struct prog_stats *s, FILE *f)
{
	struct json j;
	size_t i;

	json_begin(&j, f);
	json_break(&j, " ");
	json_u64(&j, "kernel_launches", s->nkernels);
	counts_json(&j, &s->total, " ");
	json_break(&j, " ");
	json_u64(&j, "h2d_bytes", s->h2d_bytes);
	json_u64(&j, "d2h_bytes", s->d2h_bytes);
	json_u64(&j, "h2d_copies", s->h2d_copies);
	json_u64(&j, "d2h_copies", s->d2h_copies);
	json_break(&j, " ");
	json_open(&j, "objects", '[');
	for (i = 0; i < s->nobjects; i++) {
		json_break(&j, "  ");
		json_open(&j, NULL, '{');
		json_u64(&j, "base", s->objects[i].base);
		json_u64(&j, "size", s->objects[i].size);
		json_string(&j, "name", s->objects[i].name);
		json_close(&j);
	}
	if (s->nobjects)
		json_break(&j, " ");
	json_close(&j);
	json_break(&j, " ");
	json_open(&j, "kernels", '[');
	for (i = 0; i < s->nkernels; i++) {
		const struct prog_stats_kernel *k = &s->kernels[i];

		json_break(&j, "  ");
		json_open(&j, NULL, '{');
		json_u64(&j, "id", k->id);
		json_string(&j, "name", k->name);
		dim3_json(&j, "grid", k->grid);
		dim3_json(&j, "block", k->block);
		json_u64(&j, "shmem", k->shmem);
		json_u64(&j, "stream", k->stream);
		json_break(&j, "   ");
		counts_json(&j, &k->c, "   ");
		json_close(&j);
	}
	if (s->nkernels)
		json_break(&j, " ");
	json_close(&j);
	json_break(&j, "");
	json_end(&j);
}

static void counts_text(FILE *f, const struct prog_stats_counts *c)
{
	fprintf(f, "  thread blocks %" PRIu64 ", warps %" PRIu64
		", warp instructions %" PRIu64 "\n", c->thread_blocks, c->warps,
		c->warp_instructions);
	fprintf(f, "  global: loads %" PRIu64 ", stores %" PRIu64
		", atomics %" PRIu64 " (reductions %" PRIu64 "), lanes %" PRIu64
		"\n", c->global_loads, c->global_stores, c->global_atomics,
		c->global_reductions, c->global_lanes);
	fprintf(f, "  global bytes: loaded %" PRIu64 ", stored %" PRIu64
		", by atomics %" PRIu64 "\n", c->global_bytes_loaded,
		c->global_bytes_stored, c->global_bytes_atomic);
	fprintf(f, "  global footprint: lines (128 B) %" PRIu64
		", pages (4 KiB) %" PRIu64 "\n", c->global_lines,
		c->global_pages);
	fprintf(f, "  shared accesses %" PRIu64 ", local accesses %" PRIu64
		"\n", c->shared_accesses, c->local_accesses);
}

void prog_stats_text(const struct prog_stats *s, FILE *f)
{
	size_t i;

	fprintf(f, "program: objects %zu, kernel launches %zu\n"
		"copies: host to device %" PRIu64 " (%" PRIu64 " B), "
		"device to host %" PRIu64 " (%" PRIu64 " B)\n", s->nobjects,
		s->nkernels, s->h2d_copies, s->h2d_bytes, s->d2h_copies,
		s->d2h_bytes);
	for (i = 0; i < s->nobjects; i++)
		fprintf(f, "  object 0x%" PRIx64 " + %" PRIu64 " %s\n",
			s->objects[i].base, s->objects[i].size,
			s->objects[i].name);
	fprintf(f, "totals:\n");
	counts_text(f, &s->total);
	for (i = 0; i < s->nkernels; i++) {
		const struct prog_stats_kernel *k = &s->kernels[i];

		fprintf(f, "kernel %u %s: grid %u,%u,%u block %u,%u,%u, shmem %u,"
			" stream %" PRIu64 "\n", k->id, k->name, k->grid[0],
			k->grid[1], k->grid[2], k->block[0], k->block[1],
			k->block[2], k->shmem, k->stream);
		counts_text(f, &k->c);
	}
}
