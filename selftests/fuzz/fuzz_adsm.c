// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: ADSM's cores. The input drives a program of CPU reads
 * and writes (unaligned, any length), kernels, syncs, allocations and
 * frees through the protocol core (drivers/mcmgpu/adsm_protocol.c) with a
 * protocol, block and rolling size taken from it, the kernels running in
 * the kernel core (qemu-device/model/adsm_kernels.c) on the GPU's copies. After
 * every step the CPU-visible memory must equal a reference model, no
 * mapping may be writable unless its unit is Dirty, at most R blocks may
 * be Dirty, and a refused kernel must name its field. Any broken rule
 * traps.
 *
 * Input: byte 0 protocol, byte 1 block shift, byte 2 rolling size, then
 * 8-byte operations.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "adsm_kernels.h"
#include "../../drivers/mcmgpu/adsm_protocol.h"

#define OBJS	3
#define BYTES	(24 * 1024)
#define VA0	(1ULL << 32)

struct fobj {
	struct adsm_obj core;
	uint8_t cpu[BYTES];
	uint8_t gpu[BYTES];
	uint8_t ref[BYTES];
	uint8_t state[BYTES / 4096 + 1];
	uint64_t va;
	uint64_t bytes;
	int live;
};

static struct fobj objs[OBJS];
static struct adsm_ctx ctx;
static struct adsm_ref fifo[64];

static int fx_xfer(void *priv, struct adsm_obj *o, u64 off, u64 len,
		   enum adsm_dir dir, enum adsm_cause cause)
{
	struct fobj *f = o->priv;

	if (off + len > f->bytes || !len)
		__builtin_trap();
	if (dir == ADSM_H2D)
		memcpy(f->gpu + off, f->cpu + off, len);
	else
		memcpy(f->cpu + off, f->gpu + off, len);
	return 0;
}

static void fx_protect(void *priv, struct adsm_obj *o, u64 off, u64 len,
		       u8 state)
{
	if (off + len > ((struct fobj *)o->priv)->bytes)
		__builtin_trap();
}

static const struct adsm_ops fx_ops = { fx_xfer, fx_protect };

static uint8_t *gpu_at(u64 va, u32 len)
{
	int i;

	for (i = 0; i < OBJS; i++) {
		struct fobj *f = &objs[i];

		if (f->live && va >= f->va && va - f->va <= f->bytes &&
		    len <= f->bytes - (va - f->va))
			return f->gpu + (va - f->va);
	}
	return NULL;
}

static int m_read(void *p, u64 va, void *buf, u32 len)
{
	uint8_t *g = gpu_at(va, len);

	if (!g)
		return -EFAULT;
	memcpy(buf, g, len);
	return 0;
}

static int m_write(void *p, u64 va, const void *buf, u32 len)
{
	uint8_t *g = gpu_at(va, len);

	if (!g)
		return -EFAULT;
	memcpy(g, buf, len);
	return 0;
}

static const struct adsm_mem_ops fx_mem = { m_read, m_write };

/* Unit by unit, as the MMU would: each unit's fault, then its bytes. */
static void cpu_access(struct fobj *f, u64 off, u64 len, int write,
		       const uint8_t *data)
{
	u64 end = off + len, uoff, ulen, n;

	while (off < end) {
		adsm_unit_range(&f->core, adsm_unit_of(&f->core, off), &uoff, &ulen);
		n = (uoff + ulen < end ? uoff + ulen : end) - off;
		if (adsm_cpu_access(&ctx, &f->core, off, n, write))
			__builtin_trap();
		if (write) {
			memcpy(f->cpu + off, data, n);
			memcpy(f->ref + off, data, n);
			data += n;
		} else if (memcmp(f->cpu + off, f->ref + off, n)) {
			__builtin_trap();	/* a stale read (I1) */
		}
		off += n;
	}
}

static void check(void)
{
	u64 dirty = 0, u;
	int i;

	for (i = 0; i < OBJS; i++) {
		struct fobj *f = &objs[i];

		if (!f->live)
			continue;
		for (u = 0; u < f->core.units; u++) {
			u8 s = adsm_state(&f->core, u), m = adsm_map(&f->core, u);

			if (s != MCMGPU_ADSM_DIRTY && m == ADSM_MAP_RW)
				__builtin_trap();	/* I3 */
			if (s == MCMGPU_ADSM_INVALID && m != ADSM_MAP_NONE)
				__builtin_trap();
			dirty += s == MCMGPU_ADSM_DIRTY;
		}
	}
	if (ctx.protocol == MCMGPU_ADSM_ROLLING && dirty > ctx.rolling)
		__builtin_trap();	/* I5 */
}

static void alloc(int i, u64 bytes)
{
	struct fobj *f = &objs[i];

	memset(f, 0, sizeof(*f));
	f->bytes = bytes;
	f->va = VA0 + (u64)i * BYTES * 2;
	f->core.bytes = bytes;
	f->core.state = f->state;
	f->core.priv = f;
	if (adsm_fifo_needed(&ctx, bytes) > 64)
		__builtin_trap();
	adsm_obj_add(&ctx, &f->core);
	f->live = 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t pos;
	int i;

	if (size < 3)
		return 0;
	if (adsm_ctx_init(&ctx, data[0] % 3, 12 + data[1] % 3, data[2] % 5, 0,
			  100, 8, &fx_ops, NULL))
		__builtin_trap();
	adsm_fifo_move(&ctx, fifo, 64);
	/* Sizes of 4 KiB .. 24 KiB; the second one a block shorter, maybe. */
	for (i = 0; i < OBJS; i++)
		alloc(i, 4096 * (2 + (data[2] >> 3) % (BYTES / 4096 - 1)) -
			 (i == 1 ? 4096 * ((data[1] >> 4) % 2) : 0));
	for (pos = 3; pos + 8 <= size; pos += 8) {
		const uint8_t *op = data + pos;
		struct fobj *f = &objs[op[1] % OBJS];
		u64 off = (op[2] | op[3] << 8) % BYTES;
		u64 len = 1 + (op[4] | op[5] << 8) % BYTES;
		struct mcmgpu_adsm_kernel k = { 0 };
		struct mcmgpu_adsm_kernel_result res;
		struct mcmgpu_record_error err;

		if (!f->live) {
			if (op[0] % 16 == 15)
				alloc(op[1] % OBJS, f->bytes);
			continue;
		}
		if (off >= f->bytes)
			off %= f->bytes;
		if (len > f->bytes - off)
			len = f->bytes - off;
		switch (op[0] % 16) {
		case 0 ... 4: {
			uint8_t buf[BYTES];

			memset(buf, op[6], len);
			cpu_access(f, off, len, 1, buf);
			break;
		}
		case 5 ... 8:
			cpu_access(f, off, len, 0, NULL);
			break;
		case 9 ... 12: {
			struct fobj *g = &objs[(op[1] + 1) % OBJS];

			k.kernel = op[6] % (MCMGPU_ADSM_KERNELS + 1);
			k.n = 1 + (op[7] | (op[3] << 8)) % (f->bytes / 4);
			k.va[0] = f->va + (op[5] % 2) * 4 * (op[2] % 8);
			k.va[1] = g->va;
			k.va[2] = objs[(op[1] + 2) % OBJS].va;
			k.s[0] = op[4] % 8;
			k.s[1] = op[5];
			if (k.kernel == MCMGPU_ADSM_K_STENCIL2D) {
				k.width = 1 + op[4] % 32;
				k.height = k.n / k.width;
				k.n = (u64)k.width * k.height;
			}
			if (adsm_kernel_check(&k, 4, &err)) {
				if (!err.what[0])
					__builtin_trap();	/* unnamed refusal */
				break;
			}
			if (adsm_release(&ctx))
				__builtin_trap();
			check();
			if (adsm_kernel_run(&k, 4, &fx_mem, NULL, &res)) {
				if (!res.error.what[0])
					__builtin_trap();
			}
			adsm_kernel_done(&ctx, res.cycles);
			if (adsm_acquire(&ctx))
				__builtin_trap();
			/* The model: the GPU's copies are now the truth. */
			for (i = 0; i < OBJS; i++)
				if (objs[i].live)
					memcpy(objs[i].ref, objs[i].gpu, objs[i].bytes);
			break;
		}
		case 13:
			if (adsm_acquire(&ctx))
				__builtin_trap();
			break;
		case 14:
			adsm_obj_remove(&ctx, &f->core);
			f->live = 0;
			break;
		default:
			break;
		}
		check();
	}
	/* Everything the CPU wrote reaches the GPU at a release (I2). */
	if (adsm_release(&ctx))
		__builtin_trap();
	for (i = 0; i < OBJS; i++)
		if (objs[i].live && memcmp(objs[i].gpu, objs[i].ref, objs[i].bytes))
			__builtin_trap();
	return 0;
}
