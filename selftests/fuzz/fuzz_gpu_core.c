// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the GPU timing core (qemu-device/model/gpu_core.c)
 * on a small GPU, with a test IOMMU that misbehaves when told to.
 *
 * Input: HDR header bytes choose the configuration (overrides of the
 * "barre" preset through gpu_config_set: 1-4 chiplets of 1-4 SMs, small
 * caches and TLBs, translation on or off, placements, schedulers, ADSM
 * off, with copies timed, or batch, lazy, rolling), the
 * object mapping and the IOMMU (reply latency, faults, a PFN past
 * memory, a tag never sent, a reply twice, one arriving in the past),
 * and CXL-GPU (on in a quarter of the runs: media, SR, DS, ports, the
 * first object in CXL memory), and its baselines UVM and GDS (when
 * nothing else places the objects: batch, GPU memory, runtime, page),
 * and ACUD's page migration where it may run (a test driver moves a
 * page to a hashed frame of the chiplet, up to 64 pages, then refuses).
 * Byte 0 bit 0 then says what the rest is: a binary program as is, or
 * bytes a generator turns into a valid program (objects, kernels of
 * blocks, warps and instructions with addresses mostly in the objects),
 * which the program writer encodes; either way the core reads it through
 * the binary reader. At most MAX_INSTS instructions an input.
 *
 * The seed bytes also choose a mechanism in the memory path: FinePack
 * (one of its four schemes), CPElide (one of its four policies) or
 * neither (FinePack and CPElide do not run together).
 *
 * The core runs to its end twice, the epochs (or run steps) cut
 * differently; traps when: a run fails without a message, a protocol
 * error (PFN past memory, bad tag, a reply twice or early) is not an
 * error, the two runs differ (result, message or counters, byte for
 * byte), or a successful run breaks a counter identity (accesses = hits
 * + misses for both TLBs and caches, ATS requests = L2 TLB misses - MSHR
 * merges = replies, L2 accesses = local + remote, warp_insts = the
 * program's INST records, kernels done = kernels; FinePack: the homes
 * receive at most the bytes stored remotely, exactly them with P2P
 * stores; CPElide: the oracle finds no stale read and no version going
 * back under any policy).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_config.h"
#include "gpu_core.h"
#include "program.h"
#include "../lib/prog_mem.h"

#define HDR             12
#define MAX_INSTS       3000
#define MAX_PENDING     4096

#define CHECK(cond) do { if (!(cond)) __builtin_trap(); } while (0)

/* ---- The generator: bytes to a valid program ---- */

struct bytes {
	const uint8_t *p;
	size_t n, pos;
};

/* The next byte; 0 once they run out, which ends every list. */
static uint32_t nb(struct bytes *b)
{
	return b->pos < b->n ? b->p[b->pos++] : 0;
}

static uint32_t nb16(struct bytes *b)
{
	return nb(b) << 8 | nb(b);
}

struct gen_obj {
	uint64_t base, size;
};

static struct prog_writer gw;

static void gen_put(const struct prog_rec *rec)
{
	/* The generator writes valid programs only. */
	CHECK(!prog_write(&gw, rec));
}

static void gen_addrs(struct bytes *b, struct prog_inst *in,
		      const struct gen_obj *objs, uint32_t nobjs)
{
	const struct gen_obj *o = &objs[nb(b) % nobjs];
	uint32_t pattern = nb(b) & 3, stride = 1 + nb(b) * 4;
	uint64_t start = nb16(b) % o->size;
	uint32_t lane;

	for (lane = 0; lane < PROG_WARP_SIZE; lane++) {
		uint64_t off;

		if (!(in->mask & (1u << lane)))
			continue;
		switch (pattern) {
		case 0:
			off = start + (uint64_t)lane * in->width;
			break;
		case 1:
			off = start + (uint64_t)lane * stride;
			break;
		case 2:
			off = nb16(b);
			break;
		default:
			off = start;
			break;
		}
		in->addr[lane] = o->base + off % o->size;
	}
	/* Now and then one lane outside every object. */
	if (nb(b) == 0xff)
		in->addr[__builtin_ctz(in->mask)] = o->base + o->size + nb(b);
}

static void gen_inst(struct bytes *b, struct prog_inst *in, uint64_t pc,
		     const struct gen_obj *objs, uint32_t nobjs)
{
	static const uint8_t widths[] = { 4, 4, 8, 16, 1, 2, 32, 128 };
	uint32_t c = nb(b), i;

	memset(in, 0, sizeof(*in));
	in->pc = pc;
	in->mask = (c & 0x80) ? (uint32_t)nb16(b) << 16 | nb16(b) : 0xffffffffu;
	if (!in->mask)
		in->mask = 1;
	in->op = c % PROG_OP_NR;
	if (c % 3 == 0)
		in->op = PROG_OP_MEMORY;
	in->ndst = nb(b) % 3;
	in->nsrc = nb(b) % 4;
	for (i = 0; i < in->ndst; i++)
		in->dst[i] = nb(b) % 16;
	for (i = 0; i < in->nsrc; i++)
		in->src[i] = nb(b) % 16;
	if (in->op == PROG_OP_MEMORY) {
		uint32_t s = nb(b), k = nb(b);

		in->width = widths[s >> 5];
		switch (s & 7) {
		case 4:
			in->space = PROG_SPACE_SHARED;
			in->kind = PROG_KIND_LOAD + k % 3;
			break;
		case 5:
			in->space = PROG_SPACE_LOCAL;
			in->kind = PROG_KIND_LOAD + k % 2;
			break;
		case 6:
			in->space = (s & 8) ? PROG_SPACE_CONST : PROG_SPACE_TEXTURE;
			in->kind = PROG_KIND_LOAD;
			break;
		default:
			in->space = PROG_SPACE_GLOBAL;
			in->kind = PROG_KIND_LOAD + k % 4;
			break;
		}
		if (in->space == PROG_SPACE_GLOBAL) {
			gen_addrs(b, in, objs, nobjs);
		} else {
			for (i = 0; i < PROG_WARP_SIZE; i++)
				if (in->mask & (1u << i))
					in->addr[i] = 0x1000 + i * in->width;
		}
	}
	snprintf(in->opcode, sizeof(in->opcode), "%s", prog_default_opcode(in));
}

/* Objects, then 1-3 kernels; *insts: the INST records written. */
static void gen_program(struct bytes *b, struct prog_mem *out,
			uint64_t *insts)
{
	static struct prog_rec rec;
	struct gen_obj objs[4];
	uint32_t nobjs = 1 + nb(b) % 4, nk = 1 + nb(b) % 3, i, k;
	uint64_t pc = 0x1000;

	CHECK(!prog_writer_init(&gw, prog_mem_write, out));
	for (i = 0; i < nobjs; i++) {
		memset(&rec, 0, sizeof(rec));
		rec.type = PROG_REC_OBJECT;
		objs[i].base = 0x7f0000000000ULL + (uint64_t)i * 0x100000 +
			       (nb(b) & 3) * 0x40;
		objs[i].size = 1 + nb16(b) % 40000;
		/* Now and then one overlapping its predecessor. */
		if (i && nb(b) == 0xfe)
			objs[i].base = objs[i - 1].base + 8;
		rec.object.base = objs[i].base;
		rec.object.size = objs[i].size;
		snprintf(rec.object.name, sizeof(rec.object.name), "obj%u", i);
		gen_put(&rec);
		if (nb(b) & 1) {
			memset(&rec, 0, sizeof(rec));
			rec.type = PROG_REC_COPY;
			rec.copy.base = objs[i].base;
			rec.copy.bytes = objs[i].size;
			gen_put(&rec);
		}
	}
	for (k = 1; k <= nk; k++) {
		uint32_t threads, nwarps, x, y, gx, gy, c = nb(b);

		memset(&rec, 0, sizeof(rec));
		rec.type = PROG_REC_KERNEL;
		rec.kernel.id = k;
		snprintf(rec.kernel.name, sizeof(rec.kernel.name), "k%u", k);
		gx = 1 + c % 8;
		gy = (c & 0x40) ? 2 : 1;
		rec.kernel.grid[0] = gx;
		rec.kernel.grid[1] = gy;
		rec.kernel.grid[2] = 1;
		threads = 32 * (1 + nb(b) % 8);
		if (c & 0x80)
			threads -= nb(b) % 31;
		rec.kernel.block[0] = threads;
		rec.kernel.block[1] = rec.kernel.block[2] = 1;
		/* Up to 64 KiB; now and then more than an SM has. */
		rec.kernel.shmem = (c & 0x20) ? nb(b) * 256 : 0;
		if (nb(b) == 0xff)
			rec.kernel.shmem = 100000;
		rec.kernel.nregs = nb(b) % 64;
		rec.kernel.binary_version = 70;
		nwarps = (threads + 31) / 32;
		gen_put(&rec);
		for (y = 0; y < gy; y++) {
			for (x = 0; x < gx; x++) {
				uint32_t w, n = 1 + nb(b) % nwarps, rev = nb(b) & 1;

				memset(&rec, 0, sizeof(rec));
				rec.type = PROG_REC_BLOCK;
				rec.block.x = x;
				rec.block.y = y;
				gen_put(&rec);
				for (w = 0; w < n; w++) {
					uint32_t ni = nb(b) % 24, j;

					if (*insts + ni > MAX_INSTS)
						ni = 0;
					memset(&rec, 0, sizeof(rec));
					rec.type = PROG_REC_WARP;
					rec.warp.id = rev ? n - 1 - w : w;
					rec.warp.insts = ni;
					gen_put(&rec);
					for (j = 0; j < ni; j++) {
						rec.type = PROG_REC_INST;
						gen_inst(b, &rec.inst, pc + j * 16, objs, nobjs);
						gen_put(&rec);
					}
					*insts += ni;
				}
				memset(&rec, 0, sizeof(rec));
				rec.type = PROG_REC_BLOCK_END;
				gen_put(&rec);
			}
		}
		memset(&rec, 0, sizeof(rec));
		rec.type = PROG_REC_KERNEL_END;
		gen_put(&rec);
		pc += 0x10000;
	}
	memset(&rec, 0, sizeof(rec));
	rec.type = PROG_REC_END;
	gen_put(&rec);
}

/*
 * The INST records of a binary program (up to a refusal), -1 if over
 * MAX_INSTS, -2 if it is not a program.
 */
static int64_t count_insts(struct prog_mem *prog)
{
	static struct prog_reader r;
	static struct prog_rec rec;
	int64_t n = 0;

	prog->pos = 0;
	if (prog_reader_init(&r, prog_mem_read, prog))
		return -2;
	while (prog_read(&r, &rec) == 1) {
		if (rec.type == PROG_REC_INST && ++n > MAX_INSTS)
			return -1;
	}
	return n;
}

/* ---- The configuration ---- */

static int set(struct gpu_config *c, const char *fmt, uint32_t v)
{
	char a[64];
	const char *why;

	snprintf(a, sizeof(a), fmt, v);
	CHECK(!gpu_config_set(c, a, &why));	/* every override in range */
	return 0;
}

static uint32_t min_u32(uint32_t a, uint32_t b)
{
	return a < b ? a : b;
}

static void make_config(const uint8_t *h, struct gpu_config *c)
{
	static const uint32_t warps[] = { 1, 2, 4, 8, 16, 24, 32, 64 };
	uint32_t e, l;

	*c = gpu_preset_find("barre")->cfg;
	set(c, "chiplets=%u", 1 + (h[1] & 3));
	set(c, "sms=%u", 1 + ((h[1] >> 2) & 3));
	set(c, "tb_sched=%u", (h[1] >> 4) & 1);
	set(c, "warp_sched=%u", (h[1] >> 5) & 1);
	set(c, "translate=%u", !((h[1] >> 6) & 1));
	set(c, "vram_mib=%u", 1 + (h[1] >> 7));
	set(c, "placement=%u", h[2] % 3);
	set(c, "place_g=%u", 1 + ((h[2] >> 2) & 3));
	set(c, "warps_per_sm=%u", warps[(h[2] >> 4) & 7]);
	set(c, "blocks_per_sm=%u", 1 + (h[3] & 7));
	set(c, "l1_mshrs=%u", 1 + ((h[3] >> 3) & 7));
	set(c, "l2_tlb_mshrs=%u", 1 + ((h[3] >> 6) & 3) * 2);
	e = 1u << (h[4] & 7);
	set(c, "l1_tlb_entries=%u", e);
	set(c, "l1_tlb_ways=%u", e >> min_u32((h[4] >> 3) & 3, h[4] & 7));
	e = 4u << (h[4] >> 5);
	set(c, "l2_tlb_entries=%u", e);
	set(c, "l2_tlb_ways=%u", e >> min_u32(h[5] & 3, 2));
	l = 1u << ((h[5] >> 2) & 7);		/* lines */
	set(c, "l1_size=%u", l * GPU_LINE_BYTES);
	set(c, "l1_ways=%u", min_u32(l, 1u << ((h[5] >> 5) & 3)));
	l = 4u << (h[6] & 7);
	set(c, "l2_size=%u", l * GPU_LINE_BYTES);
	set(c, "l2_ways=%u", min_u32(l, 1u << ((h[6] >> 3) & 3)));
	set(c, "l1_lat=%u", 1 + (h[6] >> 5) * 4);
	set(c, "l2_lat=%u", 1 + (h[7] & 15) * 4);
	set(c, "dram_lat=%u", 1 + (h[7] >> 4) * 8);
	set(c, "link_lat=%u", 1 + (h[8] & 3) * 16);
	set(c, "l2_bw=%u", 1000u << ((h[8] >> 2) & 7));
	set(c, "link_bw=%u", 1000u << ((h[8] >> 5) & 7));
	set(c, "dram_bw=%u", 4000u << (h[9] & 7));
	/* ADSM (the two bits left): off with copies timed or not, or on. */
	set(c, "adsm=%u", h[2] >> 7 | (h[5] >> 7) << 1);
	set(c, "pcie_copies=%u", !c->adsm && (h[11] & 1));
	set(c, "adsm_rolling=%u", h[10] & 3);
	set(c, "adsm_block=%u", 4096u << ((h[11] >> 6) & 3));
	set(c, "pcie_dma_lat=%u", (h[11] >> 1) & 31);
	/* CXL-GPU in a quarter of the runs (bits shared with the seed). */
	set(c, "cxl=%u", (h[11] & 3) == 3);
	set(c, "cxl_media=%u", (h[11] >> 2) & 3);
	set(c, "cxl_sr=%u", ((h[11] >> 4) & 7) % 5);
	set(c, "cxl_ds=%u", h[11] >> 7);
	set(c, "cxl_ports=%u", 1u << (h[10] & 3));
	set(c, "cxl_first_object=%u", (h[10] >> 2) & 3);
	/*
	 * UVM or GDS when no other mechanism places the objects (bits
	 * shared): small GPU memories so pages are evicted, short runtimes.
	 */
	if (!c->cxl && !c->adsm && !c->pcie_copies) {
		set(c, "uvm=%u", ((h[10] >> 4) & 3) % 3);
		set(c, "uvm_batch=%u", 1 + ((h[10] >> 6) & 3) * 5);
		set(c, "uvm_gpu_kib=%u", ((h[9] >> 3) & 3) * 8);
		set(c, "uvm_runtime_ns=%u", (h[9] >> 5) * 100);
		set(c, "uvm_page=%u", 4096u << ((h[7] >> 2) & 1));
	}
}

/* ---- The test IOMMU and the run ---- */

struct pending {
	uint64_t tag, vpn, issue;
};

#define MAX_MOVED	64		/* then the driver has no frame: -ENOMEM */
/*
 * The test driver's frames: vram_mib <= 2 (512 a chiplet), 4 chiplets.
 * A page of an object gets a frame no other page has (a driver never
 * maps two allocations onto one frame; CPElide's table, virtual as the
 * paper's, could not see such an alias: docs/cpelide.md).
 */
#define MAX_FRAMES	2048
#define PAGE_SLOTS	4096		/* > MAX_FRAMES, a power of two */

struct run {
	struct gpu_config cfg;
	uint8_t flags;			/* header byte 0 */
	uint32_t lat_min, lat_range;	/* reply latency */
	uint32_t cut;			/* epoch or step length */
	uint64_t seed;
	struct gpu_core *core;
	struct pending pend[MAX_PENDING];
	uint32_t npend;
	uint64_t kernels_done, objects, next_va, requests;
	uint32_t fail_object;		/* object index to refuse, or ~0 */
	bool protocol_error;		/* an error the IOMMU caused on purpose */
	bool pfn_errors_only;		/* ... and each a PFN out of memory */
	/* migrate=acud: pages moved off their hashed frame, and where to. */
	uint64_t mig_vpn[MAX_MOVED], mig_pfn[MAX_MOVED];
	uint32_t nmoved;
	/* translate: each object page's frame (pg_vpn: vpn + 1, 0 free) */
	uint64_t pg_vpn[PAGE_SLOTS];
	uint32_t pg_pfn[PAGE_SLOTS];
	uint8_t frame_used[MAX_FRAMES];
	uint32_t frames_used;
	int ret;
	char msg[GPU_CORE_ERR_MAX];
	struct gpu_core_stats st;
};

static uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

static void *t_alloc(void *priv, size_t bytes)
{
	(void)priv;
	return calloc(1, bytes);
}

static void t_free(void *priv, void *p)
{
	(void)priv;
	free(p);
}

/* vpn's slot in the page table: its own, or the free one to take. */
static uint32_t t_slot(const struct run *r, uint64_t vpn)
{
	uint32_t i = mix(vpn) & (PAGE_SLOTS - 1);

	while (r->pg_vpn[i] && r->pg_vpn[i] != vpn + 1)
		i = (i + 1) & (PAGE_SLOTS - 1);
	return i;
}

/*
 * Frames for o's pages not yet mapped (pages shared with an overlapping
 * object keep theirs): the page's hash, or the next free frame after
 * it. Objects come in program order, so both runs map alike.
 */
static int t_frames(struct run *r, const struct gpu_object *o)
{
	uint64_t frames = (uint64_t)r->cfg.vram_mib << 8;
	uint64_t total = frames * r->cfg.chiplets, vpn, pfn;
	uint32_t i;

	CHECK(total <= MAX_FRAMES);
	if (!o->size)
		return 0;
	for (vpn = o->gpu_va >> 12; vpn <= (o->gpu_va + o->size - 1) >> 12;
	     vpn++) {
		i = t_slot(r, vpn);
		if (r->pg_vpn[i])
			continue;
		if (r->frames_used == total)
			return -ENOMEM;
		for (pfn = mix(r->seed + vpn) % total; r->frame_used[pfn];
		     pfn = (pfn + 1) % total)
			;
		r->frame_used[pfn] = 1;
		r->frames_used++;
		r->pg_vpn[i] = vpn + 1;
		r->pg_pfn[i] = (uint32_t)pfn;
	}
	return 0;
}

static int t_object(void *priv, struct gpu_object *o, char *why, size_t len)
{
	struct run *r = priv;

	CHECK(o->index == r->objects);
	r->objects++;
	if (o->index == r->fail_object) {
		snprintf(why, len, "refused by the test");
		return -ENOSPC;
	}
	if (r->flags & 6) {
		/* Compact: objects one after another from 1 MiB, a page apart. */
		o->gpu_va = r->next_va;
		r->next_va += ((o->size + 4095) & ~4095ULL) + 4096;
	} else {
		o->gpu_va = o->base & ~4095ULL;	/* the core's own */
	}
	if (r->cfg.translate && t_frames(r, o)) {
		snprintf(why, len, "the test driver has no frame left");
		return -ENOMEM;
	}
	return 0;
}

static void t_ats_request(void *priv, const struct chiplet_tlb_request *q)
{
	struct run *r = priv;

	CHECK(r->cfg.translate);
	CHECK(q->chiplet < r->cfg.chiplets);
	CHECK(q->issue >= gpu_core_now(r->core));
	CHECK(r->npend < MAX_PENDING);
	r->pend[r->npend++] = (struct pending){ q->tag, q->vpn, q->issue };
	r->requests++;
}

static void t_kernel_done(void *priv, const struct gpu_kernel_stats *k)
{
	struct run *r = priv;

	CHECK(k->end >= k->start);
	r->kernels_done++;
}

/* The page's frame (t_frames()), unless it moved; else its hash. */
static uint64_t t_pfn(const struct run *r, uint64_t vpn)
{
	uint64_t frames = (uint64_t)r->cfg.vram_mib << 8;
	uint32_t i;

	for (i = 0; i < r->nmoved; i++)
		if (r->mig_vpn[i] == vpn)
			return r->mig_pfn[i];
	i = t_slot(r, vpn);
	if (r->pg_vpn[i])
		return r->pg_pfn[i];
	return mix(r->seed + vpn) % (frames * r->cfg.chiplets);
}

/* ACUD moves vpn to a frame of chiplet dest, as a driver would. */
static int t_migrate(void *priv, uint64_t vpn, uint32_t dest, uint64_t *pfn,
		     uint64_t *vpns, uint32_t *n)
{
	struct run *r = priv;
	uint64_t frames = (uint64_t)r->cfg.vram_mib << 8, cur = t_pfn(r, vpn);
	uint64_t f, np = 0;
	uint32_t i;

	*n = 0;
	if (cur != *pfn)
		return -ESTALE;	/* the access used a translation shot down */
	CHECK(dest < r->cfg.chiplets && cur / frames != dest);
	for (i = 0; i < r->nmoved && r->mig_vpn[i] != vpn; i++)
		;
	if (i == MAX_MOVED)
		return -ENOMEM;
	/* A free frame of dest (its hash, or the next); the old one is freed. */
	for (f = 0; f < frames; f++) {
		np = dest * frames + (mix(vpn ^ dest) + f) % frames;
		if (!r->frame_used[np])
			break;
	}
	if (f == frames)
		return -ENOMEM;
	r->frame_used[cur] = 0;
	r->frame_used[np] = 1;
	r->nmoved += i == r->nmoved;
	r->mig_vpn[i] = vpn;
	r->mig_pfn[i] = *pfn = np;
	vpns[(*n)++] = vpn;
	return 0;
}

/* Answers every request so far; false once the core took an error. */
static bool t_answer(struct run *r)
{
	uint64_t frames = (uint64_t)r->cfg.vram_mib << 8;
	uint32_t i, n = r->npend;

	r->npend = 0;
	for (i = 0; i < n; i++) {
		const struct pending *p = &r->pend[i];
		uint64_t h = mix(r->seed ^ p->tag * 0x9e3779b97f4a7c15ULL);
		struct chiplet_tlb_reply rep = {
			.tag = p->tag,
			.arrive = p->issue + r->lat_min + h % (r->lat_range + 1),
			.pfn = t_pfn(r, p->vpn),
			.writable = 1,
		};
		bool bad = false, twice = false;
		int ret;

		if ((r->flags & 0x08) && ((h >> 16) & 3) == 0)
			rep.fault = 1;
		if ((r->flags & 0x10) && ((h >> 24) & 7) == 0 && !rep.fault) {
			rep.pfn = frames * r->cfg.chiplets + ((h >> 32) & 0xff);
			bad = true;
		}
		if ((r->flags & 0x20) && ((h >> 40) & 7) == 0) {
			rep.tag += 1ULL << 40;	/* never sent */
			bad = true;
			r->pfn_errors_only = false;
		}
		if ((r->flags & 0x40) && ((h >> 48) & 7) == 0)
			twice = true;
		if ((r->flags & 0x80) && ((h >> 56) & 7) == 0 &&
		    gpu_core_now(r->core)) {
			rep.arrive = gpu_core_now(r->core) - 1;
			bad = true;
			r->pfn_errors_only = false;
		}
		r->protocol_error |= bad;
		ret = gpu_core_deliver(r->core, &rep);
		/* A bad PFN is refused when it is used, not when it comes. */
		if (bad && rep.pfn < frames * r->cfg.chiplets) {
			CHECK(ret == -EINVAL && *gpu_core_error(r->core));
			return false;
		}
		if (ret)
			return false;
		if (twice) {
			r->protocol_error = true;
			r->pfn_errors_only = false;
			CHECK(gpu_core_deliver(r->core, &rep) == -EINVAL);
			CHECK(strstr(gpu_core_error(r->core), "already answered"));
			return false;
		}
	}
	return true;
}

static int source(void *rd, struct prog_rec *rec)
{
	return prog_read(rd, rec);
}

/* Runs the core to its end; epoch: r->cut cycles, aligned or not. */
static void run_once(struct run *r, struct prog_mem *prog, bool aligned)
{
	static struct prog_reader rd;
	struct gpu_core_ops ops = {
		.alloc = t_alloc, .free = t_free,
		.object = t_object,
		.ats_request = t_ats_request, .kernel_done = t_kernel_done,
		.migrate = r->cfg.migrate ? t_migrate : NULL,
	};
	size_t size = gpu_core_size(&r->cfg);
	int ret;

	r->npend = 0;
	r->kernels_done = r->objects = r->requests = 0;
	r->next_va = 1 << 20;
	r->protocol_error = false;
	r->pfn_errors_only = true;
	r->nmoved = 0;
	memset(r->pg_vpn, 0, sizeof(r->pg_vpn));
	memset(r->frame_used, 0, sizeof(r->frame_used));
	r->frames_used = 0;
	prog->pos = 0;
	CHECK(!prog_reader_init(&rd, prog_mem_read, prog));
	CHECK(size);
	r->core = aligned_alloc(64, (size + 63) & ~(size_t)63);
	CHECK(r->core);
	ret = gpu_core_init(r->core, &r->cfg, &ops, r, source, &rd);
	CHECK(!ret);
	while (!ret && !gpu_core_done(r->core)) {
		uint64_t now = gpu_core_now(r->core), t, until;

		if (!r->cfg.translate) {
			t = gpu_core_next_event(r->core);
			if (t == ~0ULL) {
				ret = gpu_core_run(r->core, ~0ULL);
				/* Nothing to wait for: it ends or fails. */
				CHECK(ret || gpu_core_done(r->core));
				break;
			}
			ret = gpu_core_run(r->core, (t > now ? t : now) + r->cut);
			continue;
		}
		until = now + r->cut;
		if (!r->npend) {
			t = gpu_core_next_event(r->core);
			if (t == ~0ULL) {
				/* No request out: it ends, fails or is stuck. */
				ret = gpu_core_run(r->core, until);
				CHECK(ret || gpu_core_done(r->core));
				break;
			}
			if (t > now)
				until = aligned ? t - (t - now) % r->cut + r->cut :
						  t + r->cut;
		}
		ret = gpu_core_run(r->core, until);
		if (!ret && !t_answer(r))
			ret = -1;
	}
	if (ret) {
		r->ret = gpu_core_run(r->core, ~0ULL);
		CHECK(r->ret < 0);
		CHECK(memchr(gpu_core_error(r->core), 0, GPU_CORE_ERR_MAX));
		CHECK(*gpu_core_error(r->core));
		snprintf(r->msg, sizeof(r->msg), "%s", gpu_core_error(r->core));
	} else {
		r->ret = 0;
		r->msg[0] = 0;
		gpu_core_stats(r->core, &r->st);
		CHECK(!r->npend);
	}
	gpu_core_destroy(r->core);
	free(r->core);
	r->core = NULL;
}

static void check_counters(const struct run *r, uint64_t insts)
{
	const struct gpu_core_stats *s = &r->st;

	CHECK(s->l1_tlb_accesses == s->l1_tlb_hits + s->l1_tlb_misses);
	CHECK(s->l2_tlb_accesses == s->l2_tlb_hits + s->l2_tlb_misses);
	/*
	 * Least answers some misses from peers; Valkyrie prefetches; ACUD
	 * asks again what was answered before its page's shootdown.
	 */
	CHECK(s->ats_requests == s->l2_tlb_misses - s->l2_tlb_mshr_merges -
	      s->share.remote_tlb_hits + s->share.prefetches +
	      s->migrate.stale_fills);
	CHECK(s->l2_tlb_accesses == s->l1_tlb_misses - s->share.l1_peer_hits);
	CHECK(s->share.remote_tlb_lookups ==
	      s->share.remote_tlb_hits + s->share.remote_tlb_gone);
	CHECK(s->share.prefetch_hits <= s->share.prefetches);
	if (!r->cfg.xl_share)
		CHECK(!s->share.filter_probes && !s->share.l1_probes &&
		      !s->share.prefetches);
	CHECK(s->ats_replies == s->ats_requests);
	CHECK(s->ats_requests == r->requests);
	CHECK(s->l1_accesses == s->l1_hits + s->l1_misses);
	CHECK(s->l2_accesses == s->l2_hits + s->l2_misses);
	CHECK(s->l2_accesses == s->l2_local + s->l2_remote);
	CHECK(s->warp_insts == insts);
	CHECK(s->kernels == r->kernels_done);
	if (!r->cfg.translate)
		CHECK(!s->l1_tlb_accesses && !s->ats_requests);
	if (r->cfg.chiplets == 1)
		CHECK(!s->l2_remote);
	if (r->cfg.finepack) {
		CHECK(s->finepack.delivered_bytes <= s->finepack.store_bytes);
		if (r->cfg.finepack == GPU_FP_P2P)
			CHECK(s->finepack.delivered_bytes ==
			      s->finepack.store_bytes);
	}
	/* The memories' write queues: a write waits at most once. */
	CHECK(s->wq.waited <= s->wq.writes);
	if (r->cfg.cpelide) {
		CHECK(!s->cpelide.oracle_violations);
		/* The L3 slices are the homes: every L2 miss reaches one. */
		CHECK(s->cpelide.l3_hits + s->cpelide.l3_misses ==
		      s->cpelide.l3_accesses);
	}
}

/*
 * FinePack, CPElide, both or neither, from the seed (header bytes 10,
 * 11); half of CPElide's seeds take FinePack too; half of all seeds a
 * bounded memory write queue; a third of the seeds without translation
 * first-touch placement. Independently, Least, Valkyrie (a prefetch
 * degree of 0 to 3) or neither.
 */
static void pick_mechanism(struct run *r)
{
	uint64_t m = mix(r->seed ^ 0x5eedULL);
	uint64_t q = mix(r->seed ^ 0xd7a3ULL);
	uint64_t f = mix(r->seed ^ 0xf1a7ULL);

	/* A third of the seeds without translation: first-touch homes. */
	if (!r->cfg.translate && f % 3 == 0)
		set(&r->cfg, "placement=%u", GPU_PLACE_FT);

	/*
	 * Half the seeds: a bounded write queue at each memory (1-32), from
	 * bits of its own (q), independent of the choices below.
	 */
	if (q & 1)
		set(&r->cfg, "dram_wq=%u", 1 + (unsigned int)((q >> 1) & 31));
	switch ((m >> 16) % 3) {
	case 0:
		set(&r->cfg, "finepack=%u", 1 + m % (GPU_FP_NR - 1));
		break;
	case 1:
		set(&r->cfg, "cpelide=%u", 1 + m % (GPU_CPE_NR - 1));
		/* The L3: from one line a slice to Table I's and more. */
		set(&r->cfg, "l3_size=%u", GPU_LINE_BYTES << ((m >> 44) & 15));
		set(&r->cfg, "l3_ways=%u", 1u << ((m >> 48) & 3));
		set(&r->cfg, "l3_lat=%u", 1 + ((m >> 50) & 15) * 8);
		/* Remote lines forwarded (the paper's) or cached. */
		set(&r->cfg, "cpe_remote=%u", (unsigned int)((m >> 41) & 1));
		if ((m >> 40) & 1)
			set(&r->cfg, "finepack=%u",
			    1 + (m >> 24) % (GPU_FP_NR - 1));
		break;
	}
	/*
	 * Half of the seeds with neither and translation on: ACUD's page
	 * migration, from the 1st to the 16th remote access, alone (it
	 * runs with no other mechanism). The rest: Barre Chord's baselines
	 * on the translation path, a third each.
	 */
	if ((m >> 16) % 3 == 2 && r->cfg.translate && ((m >> 60) & 1)) {
		set(&r->cfg, "adsm=%u", 0);
		set(&r->cfg, "cxl=%u", 0);
		set(&r->cfg, "uvm=%u", 0);
		set(&r->cfg, "migrate=%u", GPU_MIG_ACUD);
		set(&r->cfg, "migrate_threshold=%u",
		    1 + (unsigned int)((m >> 56) & 15));
		return;
	}
	if ((m >> 48) % 3)
		set(&r->cfg, "xl_share=%u", (unsigned int)((m >> 48) % 3));
	set(&r->cfg, "xl_prefetch=%u", (unsigned int)((m >> 52) % 4));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct run a, b;
	struct prog_mem prog = { 0 };
	uint64_t insts = 0;

	if (size < HDR)
		return 0;
	memset(&a, 0, sizeof(a));
	make_config(data, &a.cfg);
	a.flags = data[0];
	a.lat_min = 8 + (data[9] >> 3) * 4;
	a.lat_range = (data[9] >> 7) ? data[10] : 0;
	a.seed = (uint64_t)data[10] << 8 | data[11];
	a.fail_object = (data[0] & 6) == 6 ? data[11] % 4 : ~0u;
	a.cut = a.lat_min;
	pick_mechanism(&a);
	if (data[0] & 1) {
		struct bytes in = { data + HDR, size - HDR, 0 };

		gen_program(&in, &prog, &insts);
	} else {
		int64_t n;

		prog.bytes = (uint8_t *)data + HDR;
		prog.len = size - HDR;
		n = count_insts(&prog);
		if (n < 0)
			return 0;
		insts = (uint64_t)n;
	}
	b = a;
	/* The second run cuts its epochs at half the latency, aligned. */
	b.cut = a.cfg.translate ? 1 + (a.lat_min - 1) / 2 : 97;
	run_once(&a, &prog, false);
	run_once(&b, &prog, true);
	/*
	 * Which of several injected IOMMU errors the core sees first
	 * depends on the cut (a bad tag at delivery, a bad PFN at its
	 * arrival): then both runs just fail. A PFN out of memory fails a
	 * run only when it is used, and only a Valkyrie prefetch's may never
	 * be: there, if the only errors were such, both may also succeed.
	 */
	if (a.protocol_error || b.protocol_error) {
		CHECK((a.ret && b.ret) ||
		      (!a.ret && !b.ret && a.pfn_errors_only &&
		       b.pfn_errors_only &&
		       a.cfg.xl_share == GPU_XLS_VALKYRIE && a.cfg.xl_prefetch));
	} else {
		CHECK(a.ret == b.ret);
		CHECK(!strcmp(a.msg, b.msg));
	}
	/* FUZZ_GPU_CORE_VERBOSE=1: each input's outcome on stderr. */
	if (getenv("FUZZ_GPU_CORE_VERBOSE"))
		fprintf(stderr, "translate %u insts %llu cycles %llu ats %llu faults %llu: %s\n",
			a.cfg.translate, (unsigned long long)insts,
			(unsigned long long)a.st.cycles, (unsigned long long)a.st.ats_requests,
			(unsigned long long)a.st.translation_faults, a.ret ? a.msg : "ok");
	if (!a.ret) {
		CHECK(!memcmp(&a.st, &b.st, sizeof(a.st)));
		check_counters(&a, insts);
	}
	if (data[0] & 1)
		free(prog.bytes);
	return 0;
}
