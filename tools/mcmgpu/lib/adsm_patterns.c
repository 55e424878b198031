// SPDX-License-Identifier: GPL-2.0
/*
 * The ADSM access patterns (notes/adsm.md §4.5) and the bytes each must
 * move under each protocol, derived from the protocols' rules (GMAC §4.3)
 * by hand, not from the protocol core: the host tests and the guest tests
 * hold the core and the driver to these formulas. Elements are u32; every
 * pattern checks what the CPU reads against a CPU-side model of the
 * kernels (the verdict).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "adsm_rt.h"

static const char *const pattern_names[ADSM_PATTERNS] = {
	[ADSM_PAT_PC] = "pc",
	[ADSM_PAT_ITER] = "iter",
	[ADSM_PAT_STENCIL] = "stencil",
	[ADSM_PAT_VADD] = "vadd",
	[ADSM_PAT_MULTIPASS] = "multipass",
	[ADSM_PAT_IO] = "io",
};

static const char *const protocol_names[ADSM_EXPLICIT + 1] = {
	[MCMGPU_ADSM_BATCH] = "batch",
	[MCMGPU_ADSM_LAZY] = "lazy",
	[MCMGPU_ADSM_ROLLING] = "rolling",
	[ADSM_EXPLICIT] = "explicit",
};

const char *adsm_pattern_name(uint32_t pattern)
{
	return pattern < ADSM_PATTERNS ? pattern_names[pattern] : "?";
}

int adsm_pattern_parse(const char *name)
{
	int i;

	for (i = 0; i < ADSM_PATTERNS; i++)
		if (!strcmp(name, pattern_names[i]))
			return i;
	return -1;
}

const char *adsm_protocol_name(uint32_t protocol)
{
	return protocol <= ADSM_EXPLICIT ? protocol_names[protocol] : "?";
}

int adsm_protocol_parse(const char *name)
{
	int i;

	for (i = 0; i <= ADSM_EXPLICIT; i++)
		if (!strcmp(name, protocol_names[i]))
			return i;
	return -1;
}

uint32_t adsm_pattern_objects(uint32_t pattern)
{
	switch (pattern) {
	case ADSM_PAT_STENCIL:
		return 2;
	case ADSM_PAT_VADD:
		return 3;
	default:
		return 1;
	}
}

/* The stencil's grid: rows of 1024 elements (4 KiB). */
#define STENCIL_WIDTH	1024U

const char *adsm_params_check(const struct adsm_params *p)
{
	if (p->pattern >= ADSM_PATTERNS)
		return "pattern: unknown";
	if (p->protocol > ADSM_EXPLICIT)
		return "protocol: unknown";
	if (p->size < 4 || p->size % 4 || p->size > MCMGPU_ADSM_MAX_OBJECT)
		return "size: a multiple of 4 bytes (u32 elements) up to 256 MiB";
	if (p->block < 4096 || p->block > (1ULL << MCMGPU_ADSM_BLOCK_MAX_SHIFT) ||
	    (p->block & (p->block - 1)))
		return "block: a power of two from 4096 to 32 MiB";
	if (p->rolling > MCMGPU_ADSM_ROLLING_MAX)
		return "rolling: at most 65536 blocks";
	if (!p->iterations || p->iterations > 100000)
		return "iterations: 1..100000";
	return NULL;
}

/* ---- the formulas ------------------------------------------------------- */

/*
 * S object bytes, B block, n = ceil(S / B) blocks, b0 the first block's
 * bytes, bl the last one's, R the rolling size (adaptive: 2 per object,
 * every object is allocated before the first access), K iterations (P
 * passes for multipass).
 */
void adsm_expected(const struct adsm_params *p, uint64_t *h2d, uint64_t *d2h,
		   uint64_t *faults)
{
	uint64_t S = p->size, B = p->block, K = p->iterations;
	uint64_t n = (S + B - 1) / B, b0 = S < B ? S : B;
	uint64_t bl = S - (n - 1) * B;
	uint64_t R = p->rolling ? p->rolling :
		     (uint64_t)MCMGPU_ADSM_ROLLING_STEP * adsm_pattern_objects(p->pattern);
	uint64_t objs = adsm_pattern_objects(p->pattern);
	uint32_t proto = p->protocol;

	*h2d = *d2h = *faults = 0;
	switch (p->pattern) {
	case ADSM_PAT_PC:
		/* Write all, launch, sync, read all. */
		*h2d = S;
		*d2h = S;
		*faults = proto == MCMGPU_ADSM_LAZY ? 2 :
			  proto == MCMGPU_ADSM_ROLLING ? 2 * n : 0;
		break;
	case ADSM_PAT_ITER:
		/* Write all; K x (launch, sync, read element 0). */
		switch (proto) {
		case MCMGPU_ADSM_BATCH:
			*h2d = K * S;
			*d2h = K * S;
			break;
		case MCMGPU_ADSM_LAZY:
			*h2d = S;
			*d2h = K * S;
			*faults = 1 + K;
			break;
		case MCMGPU_ADSM_ROLLING:
			*h2d = S;
			*d2h = K * b0;
			*faults = n + K;
			break;
		default:
			*h2d = S;
			*d2h = 4 * K;
		}
		break;
	case ADSM_PAT_STENCIL:
		/*
		 * Write all of A; K x (read-modify-write the last element of
		 * the source, launch source -> the other grid, sync); read all
		 * of the last output. Step 1's source is A, still Dirty.
		 */
		switch (proto) {
		case MCMGPU_ADSM_BATCH:
			*h2d = K * 2 * S;
			*d2h = K * 2 * S;
			break;
		case MCMGPU_ADSM_LAZY:
			*h2d = K * S;
			*d2h = (K - 1) * S + S;
			*faults = 1 + 2 * (K - 1) + 1;
			break;
		case MCMGPU_ADSM_ROLLING:
			*h2d = S + (K - 1) * bl;
			*d2h = (K - 1) * bl + S;
			*faults = n + 2 * (K - 1) + n;
			break;
		default:
			*h2d = S + 4 * K;
			*d2h = 4 * K + S;
		}
		break;
	case ADSM_PAT_VADD:
		/* Write all of a and b, launch c = a + b, sync, read all of c. */
		*h2d = proto == MCMGPU_ADSM_BATCH ? objs * S : 2 * S;
		*d2h = proto == MCMGPU_ADSM_BATCH ? objs * S : S;
		*faults = proto == MCMGPU_ADSM_LAZY ? 3 :
			  proto == MCMGPU_ADSM_ROLLING ? 3 * n : 0;
		break;
	case ADSM_PAT_MULTIPASS:
		/* P passes writing all, launch, sync, read element 0. */
		switch (proto) {
		case MCMGPU_ADSM_BATCH:
			*h2d = S;
			*d2h = S;
			break;
		case MCMGPU_ADSM_LAZY:
			*h2d = S;
			*d2h = S;
			*faults = 2;
			break;
		case MCMGPU_ADSM_ROLLING:
			/* Each time a block turns Dirty it is sent once. */
			*h2d = R >= n ? S : K * S;
			*d2h = b0;
			*faults = (R >= n ? n : K * n) + 1;
			break;
		default:
			*h2d = S;
			*d2h = 4;
		}
		break;
	case ADSM_PAT_IO:
		/* read(2) all into the object, launch, sync, write(2) all. */
		*h2d = S;
		*d2h = S;
		*faults = proto == MCMGPU_ADSM_LAZY ? 2 :
			  proto == MCMGPU_ADSM_ROLLING ? 2 * n : 0;
		break;
	}
}

/* ---- the runs ------------------------------------------------------------ */

struct run {
	struct adsm_rt *rt;
	const struct adsm_params *p;
	struct adsm_outcome *out;
	bool explicit_copies;
};

static uint64_t rng_next(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void fill_random(uint32_t *v, uint64_t n, uint64_t seed)
{
	uint64_t s = seed * 0x9e3779b97f4a7c15ULL + 1, i;

	for (i = 0; i < n; i++)
		v[i] = (uint32_t)rng_next(&s);
}

static int cpu_write(struct run *r, struct adsm_buf *b, uint64_t off,
		     const void *src, uint64_t len)
{
	if (r->explicit_copies) {
		memcpy(b->cpu + off, src, len);
		return 0;
	}
	return r->rt->ops->cpu_write(r->rt, b, off, src, len);
}

static int cpu_read(struct run *r, struct adsm_buf *b, uint64_t off, void *dst,
		    uint64_t len)
{
	if (r->explicit_copies) {
		memcpy(dst, b->cpu + off, len);
		return 0;
	}
	return r->rt->ops->cpu_read(r->rt, b, off, dst, len);
}

/* Hand-written copies: only in the explicit baseline. */
static int copy(struct run *r, struct adsm_buf *b, uint64_t off, uint64_t len,
		bool to_gpu)
{
	if (!r->explicit_copies)
		return 0;
	return r->rt->ops->copy(r->rt, b, off, len, to_gpu);
}

static int kernel(struct run *r, const struct mcmgpu_adsm_kernel *k)
{
	struct mcmgpu_adsm_kernel_result res;
	int ret = r->rt->ops->launch(r->rt, k);

	if (!ret)
		ret = r->rt->ops->sync(r->rt, &res);
	if (!ret)
		r->out->kernels++;
	return ret;
}

static void verify(struct run *r, const uint32_t *got, const uint32_t *want,
		   uint64_t n, uint64_t base)
{
	uint64_t i;

	for (i = 0; i < n && r->out->verified; i++) {
		if (got[i] != want[i]) {
			r->out->verified = false;
			r->out->bad_index = base + i;
		}
	}
}

static struct mcmgpu_adsm_kernel scale_add(const struct adsm_buf *b,
					   uint32_t a, uint32_t c)
{
	struct mcmgpu_adsm_kernel k = {
		.kernel = MCMGPU_ADSM_K_SCALE_ADD, .n = b->bytes / 4,
		.va = { b->gpu_va }, .s = { a, c },
	};
	return k;
}

static void model_scale_add(uint32_t *v, uint64_t n, uint32_t a, uint32_t c)
{
	uint64_t i;

	for (i = 0; i < n; i++)
		v[i] = v[i] * a + c;
}

static int run_pc(struct run *r, struct adsm_buf *o, uint32_t *model,
		  uint32_t *tmp)
{
	uint64_t S = r->p->size, n = S / 4;
	struct mcmgpu_adsm_kernel k = scale_add(o, 3, 1);
	int ret;

	ret = cpu_write(r, o, 0, model, S);
	if (!ret)
		ret = copy(r, o, 0, S, true);
	if (!ret)
		ret = kernel(r, &k);
	model_scale_add(model, n, 3, 1);
	if (!ret)
		ret = copy(r, o, 0, S, false);
	if (!ret)
		ret = cpu_read(r, o, 0, tmp, S);
	if (!ret)
		verify(r, tmp, model, n, 0);
	return ret;
}

static int run_iter(struct run *r, struct adsm_buf *o, uint32_t *model)
{
	struct mcmgpu_adsm_kernel k = scale_add(o, 5, 7);
	uint32_t e;
	uint64_t i;
	int ret;

	ret = cpu_write(r, o, 0, model, r->p->size);
	if (!ret)
		ret = copy(r, o, 0, r->p->size, true);
	for (i = 0; !ret && i < r->p->iterations; i++) {
		ret = kernel(r, &k);
		model[0] = model[0] * 5 + 7;
		if (!ret)
			ret = copy(r, o, 0, 4, false);
		if (!ret)
			ret = cpu_read(r, o, 0, &e, 4);
		if (!ret)
			verify(r, &e, &model[0], 1, 0);
	}
	return ret;
}

static void model_stencil(uint32_t *dst, const uint32_t *src, uint32_t w,
			  uint32_t h)
{
	uint32_t x, y;

	for (y = 0; y < h; y++) {
		for (x = 0; x < w; x++) {
			uint64_t i = (uint64_t)y * w + x;

			if (y == 0 || y == h - 1 || x == 0 || x == w - 1)
				dst[i] = src[i];
			else
				dst[i] = (src[i] + src[i - 1] + src[i + 1] +
					  src[i - w] + src[i + w]) / 5;
		}
	}
}

static int run_stencil(struct run *r, struct adsm_buf *g, uint32_t *model,
		       uint32_t *tmp)
{
	uint64_t S = r->p->size, n = S / 4, last = n - 1, k;
	uint32_t w = STENCIL_WIDTH, h = n / STENCIL_WIDTH, e;
	uint32_t *m[2] = { model, tmp };
	int ret, cur = 0;

	if (n % STENCIL_WIDTH) {	/* no whole rows: one row of n */
		w = n;
		h = 1;
	}
	ret = cpu_write(r, &g[0], 0, model, S);
	if (!ret)
		ret = copy(r, &g[0], 0, S, true);
	for (k = 0; !ret && k < r->p->iterations; k++) {
		struct mcmgpu_adsm_kernel kd = {
			.kernel = MCMGPU_ADSM_K_STENCIL2D, .n = n,
			.va = { g[!cur].gpu_va, g[cur].gpu_va },
			.width = w, .height = h,
		};

		/* The point source: read, add, write back. */
		ret = copy(r, &g[cur], last * 4, 4, false);
		if (!ret)
			ret = cpu_read(r, &g[cur], last * 4, &e, 4);
		if (!ret && e != m[cur][last]) {
			r->out->verified = false;
			r->out->bad_index = last;
		}
		e += 1000;
		m[cur][last] = e;
		if (!ret)
			ret = cpu_write(r, &g[cur], last * 4, &e, 4);
		if (!ret)
			ret = copy(r, &g[cur], last * 4, 4, true);
		if (!ret)
			ret = kernel(r, &kd);
		model_stencil(m[!cur], m[cur], w, h);
		cur = !cur;
	}
	if (ret)
		return ret;
	ret = copy(r, &g[cur], 0, S, false);
	if (!ret) {
		uint32_t *got = malloc(S);

		if (!got)
			return -ENOMEM;
		ret = cpu_read(r, &g[cur], 0, got, S);
		if (!ret)
			verify(r, got, m[cur], n, 0);
		free(got);
	}
	return ret;
}

static int run_vadd(struct run *r, struct adsm_buf *v, uint32_t *a,
		    uint32_t *b)
{
	uint64_t S = r->p->size, n = S / 4, i;
	struct mcmgpu_adsm_kernel k = {
		.kernel = MCMGPU_ADSM_K_VADD, .n = n,
		.va = { v[2].gpu_va, v[0].gpu_va, v[1].gpu_va },
	};
	int ret;

	ret = cpu_write(r, &v[0], 0, a, S);
	if (!ret)
		ret = cpu_write(r, &v[1], 0, b, S);
	if (!ret)
		ret = copy(r, &v[0], 0, S, true);
	if (!ret)
		ret = copy(r, &v[1], 0, S, true);
	if (!ret)
		ret = kernel(r, &k);
	if (!ret)
		ret = copy(r, &v[2], 0, S, false);
	for (i = 0; i < n; i++)
		a[i] += b[i];
	if (!ret)
		ret = cpu_read(r, &v[2], 0, b, S);
	if (!ret)
		verify(r, b, a, n, 0);
	return ret;
}

static int run_multipass(struct run *r, struct adsm_buf *o, uint32_t *model)
{
	struct mcmgpu_adsm_kernel k = scale_add(o, 3, 1);
	uint64_t S = r->p->size, pass, i;
	uint32_t e;
	int ret = 0;

	for (pass = 0; !ret && pass < r->p->iterations; pass++) {
		for (i = 0; i < S / 4; i++)
			model[i] += (uint32_t)pass;
		ret = cpu_write(r, o, 0, model, S);
	}
	if (!ret)
		ret = copy(r, o, 0, S, true);
	if (!ret)
		ret = kernel(r, &k);
	model_scale_add(model, S / 4, 3, 1);
	if (!ret)
		ret = copy(r, o, 0, 4, false);
	if (!ret)
		ret = cpu_read(r, o, 0, &e, 4);
	if (!ret)
		verify(r, &e, model, 1, 0);
	return ret;
}

/* A temporary file of S bytes: the model's data, for read(2). */
static int temp_file(const void *data, uint64_t len)
{
	char path[] = "/tmp/mcmgpu-adsm-XXXXXX";
	int fd = mkstemp(path);

	if (fd < 0)
		return -errno;
	unlink(path);
	if (data && pwrite(fd, data, len, 0) != (ssize_t)len) {
		close(fd);
		return -EIO;
	}
	return fd;
}

static int run_io(struct run *r, struct adsm_buf *o, uint32_t *model,
		  uint32_t *tmp)
{
	uint64_t S = r->p->size;
	struct mcmgpu_adsm_kernel k = scale_add(o, 3, 1);
	int in = temp_file(model, S), outfd = temp_file(NULL, 0), ret;

	if (in < 0 || outfd < 0) {
		snprintf(r->rt->err, sizeof(r->rt->err),
			 "io: cannot make a temporary file in /tmp");
		ret = in < 0 ? in : outfd;
		goto out;
	}
	ret = r->rt->ops->file_read(r->rt, in, o, 0, S);
	if (!ret)
		ret = copy(r, o, 0, S, true);
	if (!ret)
		ret = kernel(r, &k);
	model_scale_add(model, S / 4, 3, 1);
	if (!ret)
		ret = copy(r, o, 0, S, false);
	if (!ret)
		ret = r->rt->ops->file_write(r->rt, outfd, o, 0, S);
	if (!ret && pread(outfd, tmp, S, 0) != (ssize_t)S)
		ret = -EIO;
	if (!ret)
		verify(r, tmp, model, S / 4, 0);
out:
	if (in >= 0)
		close(in);
	if (outfd >= 0)
		close(outfd);
	return ret;
}

int adsm_run(struct adsm_rt *rt, const struct adsm_params *p,
	     struct adsm_outcome *out)
{
	struct run r = { rt, p, out, p->protocol == ADSM_EXPLICIT };
	struct adsm_buf bufs[3] = { 0 };
	uint32_t nobj = adsm_pattern_objects(p->pattern), i;
	uint32_t *model = malloc(p->size), *tmp = malloc(p->size);
	const char *why = adsm_params_check(p);
	int ret = 0;

	memset(out, 0, sizeof(*out));
	out->verified = true;
	adsm_expected(p, &out->exp_h2d, &out->exp_d2h, &out->exp_faults);
	if (why) {
		snprintf(rt->err, sizeof(rt->err), "%s", why);
		ret = -EINVAL;
		goto free;
	}
	if (!model || !tmp) {
		ret = -ENOMEM;
		goto free;
	}
	fill_random(model, p->size / 4, p->seed);
	fill_random(tmp, p->size / 4, p->seed + 1);
	for (i = 0; i < nobj && !ret; i++)
		ret = rt->ops->alloc(rt, p->size, &bufs[i]);
	if (ret)
		goto release;
	switch (p->pattern) {
	case ADSM_PAT_PC:
		ret = run_pc(&r, &bufs[0], model, tmp);
		break;
	case ADSM_PAT_ITER:
		ret = run_iter(&r, &bufs[0], model);
		break;
	case ADSM_PAT_STENCIL:
		ret = run_stencil(&r, bufs, model, tmp);
		break;
	case ADSM_PAT_VADD:
		ret = run_vadd(&r, bufs, model, tmp);
		break;
	case ADSM_PAT_MULTIPASS:
		ret = run_multipass(&r, &bufs[0], model);
		break;
	case ADSM_PAT_IO:
		ret = run_io(&r, &bufs[0], model, tmp);
		break;
	}
	if (!ret)
		ret = rt->ops->stats(rt, &out->st);
release:
	for (i = 0; i < nobj; i++)
		if (bufs[i].cpu || bufs[i].priv)
			rt->ops->free(rt, &bufs[i]);
free:
	free(model);
	free(tmp);
	return ret;
}
