// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the FinePack trace parsers (the text form the tool
 * reads, the binary form the device checks) and the model on every trace
 * the device's check accepts. The check promises that every store lands
 * inside its destination chiplet's memory: the sink traps otherwise.
 *
 * Input: byte 0 chiplets, byte 1 sub-header, byte 2 overhead (bit 7: the
 * rest is a binary trace, else trace text); 1 MiB per chiplet.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "finepack.h"
#include "fp_trace.h"

#define FUZZ_VRAM (1 << 20)

static void sink_write(void *ctx, u32 dst, u64 addr, const u8 *data, u32 len)
{
	const struct fp_config *cfg = ctx;
	static u8 vram[MCMGPU_FP_MAX_GPUS][FUZZ_VRAM];

	if (dst >= cfg->chiplets || addr > FUZZ_VRAM || len > FUZZ_VRAM - addr)
		__builtin_trap();
	memcpy(&vram[dst][addr], data, len);
}

static void run(const void *buf, u64 len, const struct fp_config *cfg)
{
	struct fp_sink sink = { .ctx = (void *)cfg, .write = sink_write };
	struct fp_trace_view view;
	struct fp_error err;
	struct fp_model *m;
	void *written;

	if (fp_trace_check(buf, len, cfg, &view, &err)) {
		if (!err.what)
			__builtin_trap();
		return;
	}
	m = calloc(1, sizeof(*m));
	written = calloc(1, fp_bitmap_bytes(cfg));
	fp_model_init(m, cfg, &sink, written);
	fp_model_run(m, &view);
	free(written);
	free(m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fp_config cfg = { .vram_per_chiplet = FUZZ_VRAM };
	const char *why;
	bool binary;

	if (size < 3)
		return 0;
	cfg.chiplets = 1 + data[0] % MCMGPU_FP_MAX_GPUS;
	cfg.subheader = data[1] % 8;
	cfg.overhead = data[2] & 0x40 ? 28 : 24;
	binary = data[2] & 0x80;
	data += 3;
	size -= 3;
	if (!fp_config_valid(&cfg, &why))
		return 0;
	if (binary) {
		void *buf = malloc(size + 1);	/* aligned, as the device's copy */

		memcpy(buf, data, size);
		run(buf, size, &cfg);
		free(buf);
	} else {
		struct fp_trace_buf tb = { 0 };
		char msg[256] = "";
		size_t len;
		u8 *buf;

		if (fp_text_parse((const char *)data, size, &tb, msg, sizeof(msg))) {
			if (!msg[0])
				__builtin_trap();
			fp_tb_free(&tb);
			return 0;
		}
		buf = fp_tb_finish(&tb, &len);
		if (buf)
			run(buf, len, &cfg);
		free(buf);
		fp_tb_free(&tb);
	}
	return 0;
}
