/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Programs built in memory, record by record, for the host tests of the
 * GPU timing core, and a prog_source_fn that feeds them back.
 */
#ifndef MCMGPU_TEST_PROG_BUILDER_H
#define MCMGPU_TEST_PROG_BUILDER_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "program.h"

struct tprog {
	struct prog_rec *recs;
	size_t n, cap, pos;
};

static struct prog_rec *tp_add(struct tprog *p, uint32_t type)
{
	struct prog_rec *r;

	if (p->n == p->cap) {
		p->cap = p->cap ? p->cap * 2 : 64;
		p->recs = realloc(p->recs, p->cap * sizeof(*p->recs));
		if (!p->recs)
			abort();
	}
	r = &p->recs[p->n++];
	memset(r, 0, sizeof(*r));
	r->type = type;
	return r;
}

static void tp_object(struct tprog *p, uint64_t base, uint64_t size,
		      const char *name)
{
	struct prog_rec *r = tp_add(p, PROG_REC_OBJECT);

	r->object.base = base;
	r->object.size = size;
	snprintf(r->object.name, sizeof(r->object.name), "%s", name);
}

static void tp_kernel(struct tprog *p, uint32_t id, const char *name,
		      uint32_t blocks, uint32_t threads, uint32_t shmem)
{
	struct prog_rec *r = tp_add(p, PROG_REC_KERNEL);

	r->kernel.id = id;
	snprintf(r->kernel.name, sizeof(r->kernel.name), "%s", name);
	r->kernel.grid[0] = blocks;
	r->kernel.grid[1] = r->kernel.grid[2] = 1;
	r->kernel.block[0] = threads;
	r->kernel.block[1] = r->kernel.block[2] = 1;
	r->kernel.shmem = shmem;
	r->kernel.binary_version = 70;
}

static void tp_block(struct tprog *p, uint32_t x)
{
	tp_add(p, PROG_REC_BLOCK)->block.x = x;
}

static void tp_warp(struct tprog *p, uint32_t id, uint32_t insts)
{
	struct prog_rec *r = tp_add(p, PROG_REC_WARP);

	r->warp.id = id;
	r->warp.insts = insts;
}

static void inst_finish(struct prog_inst *in)
{
	snprintf(in->opcode, sizeof(in->opcode), "%s", prog_default_opcode(in));
}

/* An ALU instruction: dst (0: none) from src (0: none). */
static void tp_alu(struct tprog *p, uint32_t op, uint16_t dst, uint16_t src)
{
	struct prog_inst *in = &tp_add(p, PROG_REC_INST)->inst;

	in->pc = 0x100 + 16 * (p->n % 4096);
	in->mask = 0xffffffff;
	in->op = op;
	if (dst)
		in->dst[in->ndst++] = dst;
	if (src)
		in->src[in->nsrc++] = src;
	inst_finish(in);
}

/* A memory instruction: lane i at base + i * stride, width bytes. */
static void tp_mem(struct tprog *p, uint32_t space, uint32_t kind,
		   uint32_t width, uint32_t mask, uint64_t base,
		   uint64_t stride, uint16_t reg)
{
	struct prog_inst *in = &tp_add(p, PROG_REC_INST)->inst;
	int i;

	in->pc = 0x100 + 16 * (p->n % 4096);
	in->mask = mask;
	in->op = PROG_OP_MEMORY;
	in->space = space;
	in->kind = kind;
	in->width = width;
	if (kind == PROG_KIND_LOAD || kind == PROG_KIND_ATOMIC)
		in->dst[in->ndst++] = reg;
	else
		in->src[in->nsrc++] = reg;
	for (i = 0; i < 32; i++)
		if (mask & (1u << i))
			in->addr[i] = base + i * stride;
	inst_finish(in);
}

static void tp_free(struct tprog *p)
{
	free(p->recs);
	memset(p, 0, sizeof(*p));
}

static int tp_source(void *ctx, struct prog_rec *rec)
{
	struct tprog *p = ctx;

	if (p->pos == p->n)
		return 0;
	*rec = p->recs[p->pos++];
	return 1;
}

#endif /* MCMGPU_TEST_PROG_BUILDER_H */
