// SPDX-License-Identifier: GPL-2.0
/*
 * What the applications share (app_util.h): the generator, the R-MAT
 * graph, HPCC's stream, allocation, launches and the result checks.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app_util.h"
#include "apps.h"

bool app_test_corrupt;

/* splitmix64 (Steele, Lea and Flood): a Weyl sequence through a mixer. */
#define APP_GOLDEN	0x9e3779b97f4a7c15ULL

uint64_t app_mix64(uint64_t x)
{
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

void app_rng_init(struct app_rng *r, uint64_t seed, uint64_t stream)
{
	/* Streams start far apart: the stream number hashed into the seed. */
	r->state = seed ^ app_mix64(stream * APP_GOLDEN + 1);
}

uint64_t app_rng_next(struct app_rng *r)
{
	r->state += APP_GOLDEN;
	return app_mix64(r->state);
}

uint64_t app_rng_below(struct app_rng *r, uint64_t n)
{
	return (uint64_t)(((__uint128_t)app_rng_next(r) * n) >> 64);
}

double app_rng_unit(struct app_rng *r)
{
	return (double)(app_rng_next(r) >> 11) * 0x1.0p-53;
}

float app_rng_float(struct app_rng *r)
{
	return (float)(app_rng_next(r) >> 40) * 0x1.0p-24f;
}

void app_rng_fill_float(struct app_rng *r, float *v, size_t n, float scale)
{
	size_t i;

	for (i = 0; i < n; i++)
		v[i] = app_rng_float(r) * scale;
}

char *app_err(char *err, size_t errlen, const char *app, const char *fmt, ...)
{
	va_list ap;
	int len;

	if (!errlen)
		return err;
	len = snprintf(err, errlen, "%s: ", app);
	if (len < 0 || (size_t)len >= errlen)
		return err;
	va_start(ap, fmt);
	vsnprintf(err + len, errlen - len, fmt, ap);
	va_end(ap);
	return err;
}

int app_size_range(uint64_t size, uint64_t lo, uint64_t hi, const char *what,
		   const char *app, char *err, size_t errlen)
{
	if (size >= lo && size <= hi)
		return 0;
	app_err(err, errlen, app, "size %llu: %s must be %llu to %llu",
		(unsigned long long)size, what, (unsigned long long)lo,
		(unsigned long long)hi);
	return -EINVAL;
}

int app_alloc(struct simt_gpu *gpu, uint64_t bytes, const char *name,
	      uint64_t *addr, const char *app, char *err, size_t errlen)
{
	*addr = simt_malloc(gpu, bytes, name);
	if (!*addr) {
		app_err(err, errlen, app, "cannot allocate %llu bytes for %s: %s",
			(unsigned long long)bytes, name, simt_gpu_error(gpu));
		return -ENOMEM;
	}
	return 0;
}

int app_launch(struct simt_gpu *gpu, const char *kernel, simt_kernel_fn fn,
	       struct simt_dim3 grid, struct simt_dim3 block, uint32_t shmem,
	       const void *args, const char *app, char *err, size_t errlen)
{
	int ret = simt_launch(gpu, kernel, fn, grid, block, shmem, args);

	if (ret < 0)
		app_err(err, errlen, app, "launch of %s failed: %s", kernel,
			simt_gpu_error(gpu)[0] ? simt_gpu_error(gpu) :
			strerror(-ret));
	return ret;
}

/* The first index where two arrays of n elements of size bytes differ. */
static size_t app_first_diff(const void *got, const void *want, size_t n,
			     size_t size)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (memcmp((const char *)got + i * size,
			   (const char *)want + i * size, size))
			break;
	return i;
}

int app_check_u32(const uint32_t *got, const uint32_t *want, size_t n,
		  const char *app, const char *what, char *err, size_t errlen)
{
	size_t i = app_first_diff(got, want, n, sizeof(*got));

	if (i == n)
		return 0;
	app_err(err, errlen, app, "%s[%zu] = %u, the reference says %u",
		what, i, got[i], want[i]);
	return -EIO;
}

int app_check_i32(const int32_t *got, const int32_t *want, size_t n,
		  const char *app, const char *what, char *err, size_t errlen)
{
	size_t i = app_first_diff(got, want, n, sizeof(*got));

	if (i == n)
		return 0;
	app_err(err, errlen, app, "%s[%zu] = %d, the reference says %d",
		what, i, got[i], want[i]);
	return -EIO;
}

int app_check_u64(const uint64_t *got, const uint64_t *want, size_t n,
		  const char *app, const char *what, char *err, size_t errlen)
{
	size_t i = app_first_diff(got, want, n, sizeof(*got));

	if (i == n)
		return 0;
	app_err(err, errlen, app, "%s[%zu] = %#llx, the reference says %#llx",
		what, i, (unsigned long long)got[i],
		(unsigned long long)want[i]);
	return -EIO;
}

int app_check_f32(const float *got, const float *want, size_t n, float rel,
		  const char *app, const char *what, char *err, size_t errlen)
{
	size_t i;

	for (i = 0; i < n; i++) {
		float mag = want[i] < 0 ? -want[i] : want[i];
		float diff = got[i] - want[i];

		if (diff < 0)
			diff = -diff;
		/* Written so that a NaN fails too. */
		if (diff <= rel * mag)
			continue;
		app_err(err, errlen, app,
			"%s[%zu] = %.9g, the reference says %.9g", what, i,
			got[i], want[i]);
		return -EIO;
	}
	return 0;
}

void app_test_perturb(void *v, size_t elem_bytes, size_t n)
{
	uint8_t *top;

	if (!app_test_corrupt || !n)
		return;
	/* Little-endian: an element's last byte holds its top bits. */
	top = (uint8_t *)v + (n / 2) * elem_bytes + elem_bytes - 1;
	*top ^= 0x40;
}

/*
 * HPCC_starts: the n-th value of the stream that starts at 1, by
 * repeated squaring in GF(2)[x] modulo the polynomial: m2[j] is x^(2j)
 * reduced, so squaring a value is XOR-ing m2[] over its set bits.
 */
uint64_t app_hpcc_starts(uint64_t n)
{
	uint64_t m2[64], temp = 1, ran = 2;
	int i, j;

	n %= APP_HPCC_PERIOD;
	if (n == 0)
		return 1;
	for (i = 0; i < 64; i++) {
		m2[i] = temp;
		temp = app_hpcc_step(app_hpcc_step(temp));
	}
	for (i = 62; i >= 0; i--)
		if ((n >> i) & 1)
			break;
	while (i > 0) {
		temp = 0;
		for (j = 0; j < 64; j++)
			if ((ran >> j) & 1)
				temp ^= m2[j];
		ran = temp;
		i--;
		if ((n >> i) & 1)
			ran = app_hpcc_step(ran);
	}
	return ran;
}

static int app_cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

void app_graph_free(struct app_graph *g)
{
	free(g->row);
	free(g->col);
	free(g->weight);
	memset(g, 0, sizeof(*g));
}

/* An undirected edge's weight: the same from either end. */
static uint32_t app_edge_weight(uint32_t u, uint32_t v, uint64_t seed)
{
	uint64_t lo = u < v ? u : v, hi = u < v ? v : u;

	return 1 + (uint32_t)(app_mix64(seed ^ app_mix64(lo << 32 | hi)) % 255);
}

/* Graph500's initiator probabilities, as its reference code uses them. */
#define RMAT_A	0.57
#define RMAT_B	0.19
#define RMAT_C	0.19
#define RMAT_EDGE_FACTOR 16

int app_rmat(struct app_graph *g, unsigned int scale, uint64_t seed,
	     bool weights, const char *app, char *err, size_t errlen)
{
	const double ab = RMAT_A + RMAT_B;
	const double a_norm = RMAT_A / ab, c_norm = RMAT_C / (1.0 - ab);
	uint32_t *src = NULL, *dst = NULL, *perm = NULL, *fill = NULL;
	uint32_t n, v, out;
	uint64_t m, e;
	struct app_rng rng;
	int ret = -ENOMEM;

	memset(g, 0, sizeof(*g));
	if (scale < 1 || scale > APP_RMAT_MAX_SCALE) {
		app_err(err, errlen, app, "size %u: the scale must be 1 to %u",
			scale, APP_RMAT_MAX_SCALE);
		return -EINVAL;
	}
	n = 1u << scale;
	m = (uint64_t)RMAT_EDGE_FACTOR * n;
	src = malloc(m * sizeof(*src));
	dst = malloc(m * sizeof(*dst));
	perm = malloc((size_t)n * sizeof(*perm));
	fill = calloc((size_t)n + 1, sizeof(*fill));
	g->row = calloc((size_t)n + 1, sizeof(*g->row));
	if (!src || !dst || !perm || !fill || !g->row)
		goto out;

	/* The tuples: one quadrant choice a bit, from the top level down. */
	app_rng_init(&rng, seed, 1);
	for (e = 0; e < m; e++) {
		uint32_t u = 0, w = 0;
		unsigned int ib;

		for (ib = 0; ib < scale; ib++) {
			unsigned int ii = app_rng_unit(&rng) > ab;
			unsigned int jj = app_rng_unit(&rng) >
					  (ii ? c_norm : a_norm);

			u |= ii << ib;
			w |= jj << ib;
		}
		src[e] = u;
		dst[e] = w;
	}
	/* Graph500 permutes the vertex labels (Fisher-Yates). */
	app_rng_init(&rng, seed, 2);
	for (v = 0; v < n; v++)
		perm[v] = v;
	for (v = n - 1; v > 0; v--) {
		uint32_t j = (uint32_t)app_rng_below(&rng, (uint64_t)v + 1);
		uint32_t tmp = perm[v];

		perm[v] = perm[j];
		perm[j] = tmp;
	}

	/* Both directions of each tuple but self loops, bucketed by row. */
	for (e = 0; e < m; e++) {
		src[e] = perm[src[e]];
		dst[e] = perm[dst[e]];
		if (src[e] == dst[e])
			continue;
		g->row[src[e] + 1]++;
		g->row[dst[e] + 1]++;
	}
	for (v = 0; v < n; v++)
		g->row[v + 1] += g->row[v];
	if (g->row[n] > UINT32_MAX / 2) {
		ret = -EINVAL;
		app_err(err, errlen, app, "size %u: too many edges", scale);
		goto out;
	}
	g->col = malloc(((size_t)g->row[n] + 1) * sizeof(*g->col));
	if (!g->col)
		goto out;
	memcpy(fill, g->row, (size_t)n * sizeof(*fill));
	for (e = 0; e < m; e++) {
		if (src[e] == dst[e])
			continue;
		g->col[fill[src[e]]++] = dst[e];
		g->col[fill[dst[e]]++] = src[e];
	}

	/* Sorted rows without duplicates, compacted in place. */
	out = 0;
	for (v = 0; v < n; v++) {
		uint32_t begin = g->row[v], end = g->row[v + 1], i;

		qsort(g->col + begin, end - begin, sizeof(*g->col),
		      app_cmp_u32);
		g->row[v] = out;
		for (i = begin; i < end; i++)
			if (i == begin || g->col[i] != g->col[i - 1])
				g->col[out++] = g->col[i];
	}
	g->row[n] = out;
	g->nodes = n;
	g->edges = out;
	if (weights) {
		g->weight = malloc(((size_t)out + 1) * sizeof(*g->weight));
		if (!g->weight)
			goto out;
		for (v = 0; v < n; v++) {
			uint32_t i;

			for (i = g->row[v]; i < g->row[v + 1]; i++)
				g->weight[i] = app_edge_weight(v, g->col[i],
							       seed);
		}
	}
	ret = 0;
out:
	if (ret == -ENOMEM)
		app_err(err, errlen, app, "size %u: out of memory for the graph",
			scale);
	if (ret)
		app_graph_free(g);
	free(src);
	free(dst);
	free(perm);
	free(fill);
	return ret;
}

uint32_t app_graph_root(const struct app_graph *g, uint64_t seed)
{
	struct app_rng rng;
	uint32_t v;
	int tries;

	app_rng_init(&rng, seed, 3);
	for (tries = 0; tries < 1024; tries++) {
		v = (uint32_t)app_rng_below(&rng, g->nodes);
		if (g->row[v + 1] > g->row[v])
			return v;
	}
	for (v = 0; v < g->nodes; v++)
		if (g->row[v + 1] > g->row[v])
			return v;
	return 0;
}

void app_block_min2(struct simt_thread *t, uint32_t tx, uint32_t n,
		    double a, double b)
{
	uint32_t s;

	STS(t, double, tx, a);
	STS(t, double, n + tx, b);
	SYNC(t);
	for (s = n / 2; s; s >>= 1) {
		OPS(t, PROG_OP_INT, 1);
		OPS(t, PROG_OP_BRANCH, 1);
		if (tx < s) {
			double x = LDS(t, double, tx + s);
			double y = LDS(t, double, n + tx + s);

			OPS(t, PROG_OP_DP, 2);
			if (x < LDS(t, double, tx))
				STS(t, double, tx, x);
			if (y < LDS(t, double, n + tx))
				STS(t, double, n + tx, y);
		}
		SYNC(t);
		OPS(t, PROG_OP_INT, 2);
		OPS(t, PROG_OP_BRANCH, 1);
	}
}
