// SPDX-License-Identifier: GPL-2.0
/*
 * The host backend of the FinePack replay (fp_replay.h): the FinePack
 * core, its chiplets' memories and written-bytes bitmap here.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "fp_replay.h"

struct fp_host {
	struct fp_model model;
	uint8_t *mem;		/* chiplets x vram_per_chiplet, zeroed */
	void *written;
	size_t mem_len, written_len;
};

/*
 * Large zeroed buffers in huge pages where the kernel gives them (the
 * model's memory and written-bytes bitmap are touched at random: 4 KiB
 * pages would cost a TLB miss and a fault per page).
 */
static void *big_zalloc(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	madvise(p, len, MADV_HUGEPAGE);
	return p;
}

static void host_close(struct fp_backend *b)
{
	struct fp_host *h = b->priv;

	if (!h)
		return;
	if (h->mem)
		munmap(h->mem, h->mem_len);
	if (h->written)
		munmap(h->written, h->written_len);
	free(h);
	b->priv = NULL;
}

static int host_open(struct fp_backend *b, struct replay_error *e)
{
	struct fp_host *h = calloc(1, sizeof(*h));

	b->priv = h;
	if (!h)
		return replay_fail(e, REPLAY_ERR_CALL, -1, "out of memory");
	h->mem_len = (size_t)b->cfg.chiplets * b->cfg.vram_per_chiplet;
	h->written_len = fp_bitmap_bytes(&b->cfg);
	h->mem = big_zalloc(h->mem_len);
	h->written = big_zalloc(h->written_len);
	if (!h->mem || !h->written) {
		host_close(b);
		return replay_fail(e, REPLAY_ERR_CALL, -1, "out of memory");
	}
	return 0;
}

static void host_write(void *ctx, u32 dst, u64 addr, const u8 *data, u32 len)
{
	struct fp_backend *b = ctx;
	struct fp_host *h = b->priv;

	fp_copy(h->mem + dst * b->cfg.vram_per_chiplet + addr, data, len);
}

/*
 * The bitmap is zero again after every run (each ends with a kernel end,
 * which clears what the kernel set), so runs reuse it; so is the memory,
 * which keeps what earlier runs delivered, as a device's does.
 */
static int host_run(struct fp_backend *b, const void *trace, size_t len,
		    const struct fp_trace_view *view,
		    struct mcmgpu_fp_replay_result *res, struct replay_error *e)
{
	struct fp_host *h = b->priv;
	struct fp_sink sink = { .ctx = b, .write = host_write };

	(void)trace;
	(void)len;
	(void)e;
	fp_model_init(&h->model, &b->cfg, &sink, h->written);
	fp_model_run(&h->model, view);
	res->stats = h->model.stats;
	return 0;
}

static int host_read(struct fp_backend *b, uint32_t dst, uint64_t lo,
		     uint64_t len, uint8_t *out)
{
	struct fp_host *h = b->priv;

	memcpy(out, h->mem + dst * b->cfg.vram_per_chiplet + lo, len);
	return 0;
}

const struct fp_backend_ops fp_host_ops = {
	.open = host_open, .run = host_run, .read = host_read,
	.close = host_close, .checks_trace = false,
};
