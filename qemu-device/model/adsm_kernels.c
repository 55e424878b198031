/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * ADSM's built-in compute kernels (see adsm_kernels.h). A kernel's n
 * elements are split in equal contiguous shares over its chiplets; the
 * shares run one after the other here, which is the same as running them
 * at once because no kernel reads what another share writes (checked:
 * outputs may not overlap inputs, except an element-wise update in place).
 * Modeled time: the busiest chiplet's element accesses, one cycle each.
 */
#include "adsm_kernels.h"

#define ADSM_CHUNK      1024    /* elements read or written per call */
#define ADSM_TILE       256     /* stencil columns per tile */

static int adsm_fail(struct mcmgpu_record_error *err, u64 index,
                     const char *what, u64 value)
{
    size_t len = strlen(what);

    if (len >= sizeof(err->what)) {
        len = sizeof(err->what) - 1;
    }
    err->index = index;
    err->value = value;
    memcpy(err->what, what, len);
    err->what[len] = '\0';
    return -EINVAL;
}

/* Arguments each kernel uses, and its accesses per element. */
static const struct {
    u8 args;
    u8 accesses;
} adsm_kdesc[MCMGPU_ADSM_KERNELS] = {
    [MCMGPU_ADSM_K_FILL] = { 1, 1 },
    [MCMGPU_ADSM_K_COPY] = { 2, 2 },
    [MCMGPU_ADSM_K_VADD] = { 3, 3 },
    [MCMGPU_ADSM_K_SAXPY] = { 2, 3 },
    [MCMGPU_ADSM_K_STENCIL2D] = { 2, 6 },
    [MCMGPU_ADSM_K_ADD_ELEMENT] = { 2, 2 },
    [MCMGPU_ADSM_K_SCALE_ADD] = { 1, 2 },
};

u64 adsm_kernel_span(const struct mcmgpu_adsm_kernel *k, int arg)
{
    if (k->kernel >= MCMGPU_ADSM_KERNELS || arg >= adsm_kdesc[k->kernel].args) {
        return 0;
    }
    if (k->kernel == MCMGPU_ADSM_K_ADD_ELEMENT && arg == 1) {
        return 4;       /* the one element it reads, at va[1] + 4 * s[0] */
    }
    return k->n * 4;
}

static u64 adsm_arg_va(const struct mcmgpu_adsm_kernel *k, int arg)
{
    if (k->kernel == MCMGPU_ADSM_K_ADD_ELEMENT && arg == 1) {
        return k->va[1] + 4 * k->s[0];
    }
    return k->va[arg];
}

static bool adsm_overlap(u64 a, u64 alen, u64 b, u64 blen)
{
    return a < b + blen && b < a + alen;
}

int adsm_kernel_check(const struct mcmgpu_adsm_kernel *k, u32 chiplets,
                      struct mcmgpu_record_error *err)
{
    u32 all = chiplets >= 32 ? ~0U : (1U << chiplets) - 1;
    int a, nargs;

    memset(err, 0, sizeof(*err));
    if (k->kernel >= MCMGPU_ADSM_KERNELS) {
        return adsm_fail(err, 0, "kernel: no such built-in kernel", k->kernel);
    }
    if (k->chiplet_mask & ~all) {
        return adsm_fail(err, 0, "chiplet_mask: a chiplet the device lacks",
                         k->chiplet_mask);
    }
    if (k->reserved) {
        return adsm_fail(err, 0, "reserved: must be 0", k->reserved);
    }
    if (!k->n || k->n > MCMGPU_ADSM_MAX_OBJECT / 4) {
        return adsm_fail(err, 0, "n: 1 .. 64 Mi elements", k->n);
    }
    if (k->kernel == MCMGPU_ADSM_K_STENCIL2D &&
        (!k->width || !k->height || (u64)k->width * k->height != k->n)) {
        return adsm_fail(err, 0, "width: width * height must equal n",
                         k->width);
    }
    if (k->kernel != MCMGPU_ADSM_K_STENCIL2D && (k->width || k->height)) {
        return adsm_fail(err, 0, "width: only the stencil has a grid",
                         k->width);
    }
    if (k->kernel == MCMGPU_ADSM_K_ADD_ELEMENT && k->s[0] >= k->n) {
        return adsm_fail(err, 2, "s[0]: the element read is past n", k->s[0]);
    }
    nargs = adsm_kdesc[k->kernel].args;
    for (a = 0; a < 3; a++) {
        u64 va = adsm_arg_va(k, a), span = adsm_kernel_span(k, a);

        if (a >= nargs) {
            if (k->va[a]) {
                return adsm_fail(err, a + 1, "va: unused by this kernel, "
                                 "must be 0", k->va[a]);
            }
            continue;
        }
        if (va % 4) {
            return adsm_fail(err, a + 1, "va: not 4-byte aligned", va);
        }
        if (va >= (1ULL << MCMGPU_VA_BITS) ||
            span > (1ULL << MCMGPU_VA_BITS) - va) {
            return adsm_fail(err, a + 1, "va: past the GPU's 48-bit space",
                             va);
        }
    }
    /* The output against the inputs: in place only element by element. */
    for (a = 1; a < nargs; a++) {
        bool same = adsm_arg_va(k, a) == k->va[0] &&
                    k->kernel != MCMGPU_ADSM_K_COPY &&
                    k->kernel != MCMGPU_ADSM_K_STENCIL2D &&
                    k->kernel != MCMGPU_ADSM_K_ADD_ELEMENT;

        if (!same && adsm_overlap(k->va[0], adsm_kernel_span(k, 0),
                                  adsm_arg_va(k, a), adsm_kernel_span(k, a))) {
            if (k->kernel == MCMGPU_ADSM_K_ADD_ELEMENT) {
                continue;       /* its element is read once, first */
            }
            return adsm_fail(err, a + 1, "va: the output overlaps this input",
                             adsm_arg_va(k, a));
        }
    }
    return 0;
}

static u32 adsm_le32(const u8 *p)
{
    return p[0] | p[1] << 8 | p[2] << 16 | (u32)p[3] << 24;
}

static void adsm_put_le32(u8 *p, u32 v)
{
    p[0] = v;
    p[1] = v >> 8;
    p[2] = v >> 16;
    p[3] = v >> 24;
}

struct adsm_run {
    const struct mcmgpu_adsm_kernel *k;
    const struct adsm_mem_ops *mem;
    void *priv;
    struct mcmgpu_adsm_kernel_result *res;
};

static int adsm_rd(struct adsm_run *r, int arg, u64 va, void *buf, u32 len)
{
    if (r->mem->read(r->priv, va, buf, len)) {
        adsm_fail(&r->res->error, arg + 1, "va: an address does not "
                  "translate", va);
        return -EFAULT;
    }
    r->res->bytes_read += len;
    return 0;
}

static int adsm_wr(struct adsm_run *r, u64 va, const void *buf, u32 len)
{
    if (r->mem->write(r->priv, va, buf, len)) {
        adsm_fail(&r->res->error, 1, "va: an address does not translate "
                  "for writing", va);
        return -EFAULT;
    }
    r->res->bytes_written += len;
    return 0;
}

/* Element-wise kernels over elements [first, first + count). */
static int adsm_run_elementwise(struct adsm_run *r, u64 first, u64 count,
                                u32 element)
{
    const struct mcmgpu_adsm_kernel *k = r->k;
    u8 out[ADSM_CHUNK * 4], in1[ADSM_CHUNK * 4], in2[ADSM_CHUNK * 4];
    u64 i;
    u32 j, m;
    int ret;

    for (i = first; i < first + count; i += m) {
        m = first + count - i < ADSM_CHUNK ? first + count - i : ADSM_CHUNK;
        switch (k->kernel) {
        case MCMGPU_ADSM_K_COPY:
        case MCMGPU_ADSM_K_VADD:
        case MCMGPU_ADSM_K_SAXPY:
            ret = adsm_rd(r, 1, k->va[1] + 4 * i, in1, 4 * m);
            if (ret) {
                return ret;
            }
            break;
        }
        switch (k->kernel) {
        case MCMGPU_ADSM_K_VADD:
            ret = adsm_rd(r, 2, k->va[2] + 4 * i, in2, 4 * m);
            break;
        case MCMGPU_ADSM_K_SAXPY:
        case MCMGPU_ADSM_K_ADD_ELEMENT:
        case MCMGPU_ADSM_K_SCALE_ADD:
            ret = adsm_rd(r, 0, k->va[0] + 4 * i, out, 4 * m);
            break;
        default:
            ret = 0;
        }
        if (ret) {
            return ret;
        }
        for (j = 0; j < m; j++) {
            u32 v;

            switch (k->kernel) {
            case MCMGPU_ADSM_K_FILL:
                v = k->s[0];
                break;
            case MCMGPU_ADSM_K_COPY:
                v = adsm_le32(in1 + 4 * j);
                break;
            case MCMGPU_ADSM_K_VADD:
                v = adsm_le32(in1 + 4 * j) + adsm_le32(in2 + 4 * j);
                break;
            case MCMGPU_ADSM_K_SAXPY:
                v = (u32)k->s[0] * adsm_le32(in1 + 4 * j) +
                    adsm_le32(out + 4 * j);
                break;
            case MCMGPU_ADSM_K_ADD_ELEMENT:
                v = adsm_le32(out + 4 * j) + element;
                break;
            default:    /* SCALE_ADD */
                v = adsm_le32(out + 4 * j) * (u32)k->s[0] + (u32)k->s[1];
                break;
            }
            adsm_put_le32(out + 4 * j, v);
        }
        ret = adsm_wr(r, k->va[0] + 4 * i, out, 4 * m);
        if (ret) {
            return ret;
        }
    }
    return 0;
}

/* One Jacobi step over rows [y0, y1) of the grid, in column tiles. */
static int adsm_run_stencil(struct adsm_run *r, u64 y0, u64 y1)
{
    const struct mcmgpu_adsm_kernel *k = r->k;
    u64 w = k->width, h = k->height, y, x0;
    u8 row[3][(ADSM_TILE + 2) * 4], out[ADSM_TILE * 4];
    int ret;

    for (y = y0; y < y1; y++) {
        for (x0 = 0; x0 < w; x0 += ADSM_TILE) {
            u64 m = w - x0 < ADSM_TILE ? w - x0 : ADSM_TILE;
            u64 lo = x0 ? x0 - 1 : 0;
            u64 hi = x0 + m < w ? x0 + m + 1 : w;    /* exclusive */
            bool border_row = y == 0 || y == h - 1;
            u64 j;
            int d;

            for (d = 0; d < 3; d++) {
                if (border_row && d != 1) {
                    continue;
                }
                ret = adsm_rd(r, 1, k->va[1] + 4 * ((y + d - 1) * w + lo),
                              row[d], 4 * (hi - lo));
                if (ret) {
                    return ret;
                }
            }
            for (j = 0; j < m; j++) {
                u64 x = x0 + j, c = x - lo;
                u32 v = adsm_le32(row[1] + 4 * c);

                if (!border_row && x > 0 && x < w - 1) {
                    v = (v + adsm_le32(row[1] + 4 * (c - 1)) +
                         adsm_le32(row[1] + 4 * (c + 1)) +
                         adsm_le32(row[0] + 4 * c) +
                         adsm_le32(row[2] + 4 * c)) / 5;
                }
                adsm_put_le32(out + 4 * j, v);
            }
            ret = adsm_wr(r, k->va[0] + 4 * (y * w + x0), out, 4 * m);
            if (ret) {
                return ret;
            }
        }
    }
    return 0;
}

int adsm_kernel_run(const struct mcmgpu_adsm_kernel *k, u32 chiplets,
                    const struct adsm_mem_ops *mem, void *priv,
                    struct mcmgpu_adsm_kernel_result *res)
{
    struct adsm_run r = { k, mem, priv, res };
    u32 mask = k->chiplet_mask ? k->chiplet_mask :
               (chiplets >= 32 ? ~0U : (1U << chiplets) - 1);
    u32 n_chip = 0, c;
    u64 share, first = 0, busiest = 0, element = 0;
    u8 e[4];
    int ret;

    memset(res, 0, sizeof(*res));
    for (c = 0; c < 32; c++) {
        n_chip += (mask >> c) & 1;
    }
    if (k->kernel == MCMGPU_ADSM_K_ADD_ELEMENT) {
        ret = adsm_rd(&r, 1, adsm_arg_va(k, 1), e, 4);
        if (ret) {
            return ret;
        }
        element = adsm_le32(e);
    }
    if (k->kernel == MCMGPU_ADSM_K_STENCIL2D) {
        /* Shares of whole rows: a chiplet owns a band of the grid. */
        share = (k->height + n_chip - 1) / n_chip;
        for (c = 0; c < n_chip && first < k->height; c++, first += share) {
            u64 rows = k->height - first < share ? k->height - first : share;

            ret = adsm_run_stencil(&r, first, first + rows);
            if (ret) {
                return ret;
            }
            if (rows * k->width > busiest) {
                busiest = rows * k->width;
            }
        }
    } else {
        share = (k->n + n_chip - 1) / n_chip;
        for (c = 0; c < n_chip && first < k->n; c++, first += share) {
            u64 count = k->n - first < share ? k->n - first : share;

            ret = adsm_run_elementwise(&r, first, count, element);
            if (ret) {
                return ret;
            }
            if (count > busiest) {
                busiest = count;
            }
        }
    }
    res->elements = k->n;
    res->cycles = busiest * adsm_kdesc[k->kernel].accesses *
                  MCMGPU_ADSM_CYCLES_PER_ACCESS;
    return 0;
}
