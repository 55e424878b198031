/* SPDX-License-Identifier: GPL-2.0 */
/* SR/DS traces: text to records (cxl_trace.c), the workload generators. */
#ifndef CXL_TRACE_H
#define CXL_TRACE_H

#include <stddef.h>
#include <stdint.h>

#include "mcmgpu_cxl.h"

/* 0 and a malloc'd array, or -1 with msg naming the line. */
int cxl_trace_parse(const char *text, struct mcmgpu_cxl_record **out,
		    uint64_t *n, char *msg, size_t msglen);

#endif /* CXL_TRACE_H */
