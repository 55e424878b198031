/* SPDX-License-Identifier: GPL-2.0 */
/* CPElide launch sequences: the text form parsed into launch records. */
#ifndef CPE_SEQ_H
#define CPE_SEQ_H

#include <stddef.h>
#include <stdint.h>

#include "mcmgpu_cpelide.h"

struct cpe_seq {
	struct mcmgpu_cpe_record *rec;		/* rec[0] is the RESET record */
	unsigned int *line;		/* source line of each record */
	size_t n, cap;
	uint64_t mem_bytes;		/* page-aligned sum of the allocations */
};

/* Parses text; on error fills msg with "line N: ..." and returns -1. */
int cpe_seq_parse(const char *text, size_t len, unsigned int chiplets,
		  unsigned int policy, struct cpe_seq *seq, char *msg,
		  size_t msglen);
int cpe_seq_load(const char *path, unsigned int chiplets, unsigned int policy,
		 struct cpe_seq *seq, char *msg, size_t msglen);
void cpe_seq_free(struct cpe_seq *seq);

#endif /* CPE_SEQ_H */
