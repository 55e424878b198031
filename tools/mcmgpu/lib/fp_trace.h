/* SPDX-License-Identifier: GPL-2.0 */
/* Building, parsing and loading FinePack traces in user space. */
#ifndef FP_TRACE_H
#define FP_TRACE_H

#include <stddef.h>
#include <stdint.h>

#include "mcmgpu_finepack.h"

struct fp_trace_buf {
	struct mcmgpu_fp_trace_record *rec;
	size_t nrec, rec_cap;
	uint8_t *data;
	size_t ndata, data_cap;
};

int fp_tb_add(struct fp_trace_buf *tb, enum mcmgpu_fp_record_type type, unsigned int src,
	      unsigned int dst, uint64_t addr, uint32_t len, const uint8_t *data);
/* Returns a malloc'd binary trace of *len bytes; the builder is emptied. */
uint8_t *fp_tb_finish(struct fp_trace_buf *tb, size_t *len);
void fp_tb_free(struct fp_trace_buf *tb);

/* Text form; on error fills msg with "line N: ..." and returns -1. */
int fp_text_parse(const char *text, size_t len, struct fp_trace_buf *tb,
		  char *msg, size_t msglen);
/* Reads a binary or text trace file into a binary trace. */
uint8_t *fp_trace_load(const char *path, size_t *len, char *msg, size_t msglen);

#endif /* FP_TRACE_H */
