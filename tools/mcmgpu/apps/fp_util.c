// SPDX-License-Identifier: GPL-2.0
/* FinePack's P2P replicas (fp_util.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "app_util.h"
#include "fp_util.h"

#define FP_PAGE		4096

uint64_t fp_stride(uint64_t n, size_t elem)
{
	uint64_t bytes = (n * elem + FP_PAGE - 1) / FP_PAGE * FP_PAGE;

	return bytes / elem;
}

int fp_alloc(struct simt_gpu *gpu, uint64_t n, size_t elem, const void *host,
	     const char *name, uint64_t *addr, const char *app, char *err,
	     size_t errlen)
{
	uint64_t stride = fp_stride(n, elem);
	int ret, g;

	ret = app_alloc(gpu, FP_GPUS * stride * elem, name, addr, app, err,
			errlen);
	if (ret || !host)
		return ret;
	for (g = 0; g < FP_GPUS; g++)
		simt_h2d(gpu, *addr + g * stride * elem, host, n * elem);
	return 0;
}

void *fp_fetch(struct simt_gpu *gpu, uint64_t addr, uint64_t n, size_t elem)
{
	uint64_t total = FP_GPUS * fp_stride(n, elem);
	void *got = malloc(total * elem);

	if (!got)
		return NULL;
	simt_d2h(gpu, got, addr, total * elem);
	app_test_perturb(got, elem, total);
	return got;
}

int fp_check_f32(const float *got, uint64_t n, const float *want,
		 const float *init, const uint64_t *lo, const uint64_t *hi,
		 const char *app, const char *what, char *err, size_t errlen)
{
	uint64_t stride = fp_stride(n, sizeof(float)), i;
	int g;

	for (g = 0; g < FP_GPUS; g++) {
		const float *rep = got + g * stride;

		for (i = 0; i < n; i++) {
			bool held = !lo || (i >= lo[g] && i < hi[g]);
			float w = held ? want[i] : init[i];
			float mag = w < 0 ? -w : w;
			float diff = rep[i] - w;

			if (diff < 0)
				diff = -diff;
			/* Exact where nothing may store; a NaN fails. */
			if (held ? diff <= APP_FLOAT_TOLERANCE * mag :
			    !memcmp(&rep[i], &w, sizeof(w)))
				continue;
			app_err(err, errlen, app,
				"%s (GPU %d's replica)[%llu] = %.9g, the reference says %.9g%s",
				what, g, (unsigned long long)i, rep[i], w,
				held ? "" : " (not its to hold: the start)");
			return -EIO;
		}
	}
	return 0;
}

int fp_check_i32(const int32_t *got, uint64_t n, const int32_t *want,
		 const char *app, const char *what, char *err, size_t errlen)
{
	uint64_t stride = fp_stride(n, sizeof(int32_t)), i;
	int g;

	for (g = 0; g < FP_GPUS; g++) {
		for (i = 0; i < n; i++) {
			if (got[g * stride + i] == want[i])
				continue;
			app_err(err, errlen, app,
				"%s (GPU %d's replica)[%llu] = %d, the reference says %d",
				what, g, (unsigned long long)i,
				got[g * stride + i], want[i]);
			return -EIO;
		}
	}
	return 0;
}
