/*
 * mcmgpu ADSM engine: the copy engine the driver's coherence protocols use
 * (ADSM_XFER, GPU virtual pages <-> guest pages) and the built-in compute
 * kernels (ADSM_KERNEL, adsm_kernels.c), both addressed through a
 * context's GPU page table (mcmgpu_hw.h), which the device walks in guest
 * memory: the GPU's own MMU, so that one pointer works for the CPU and
 * the GPU (ADSM §4.2, "accelerator virtual memory").
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/log.h"
#include "mcmgpu_engine.h"
#include "adsm_kernels.h"
#include "trace.h"

#define ADSM_LIST_CHUNK 512     /* page-list entries read at once */

/* A walk of one address space, remembering the last page it found. */
typedef struct AdsmWalk {
    MCMGPUState *s;
    uint64_t root;
    uint64_t vpn;           /* cached translation, ~0 for none */
    uint64_t pte;
} AdsmWalk;

/* The leaf PTE of va's page, 0 when none (or a table is not readable). */
static uint64_t adsm_walk(AdsmWalk *w, uint64_t va)
{
    uint64_t vpn = va >> MCMGPU_PAGE_SHIFT, e;

    if (vpn == w->vpn) {
        return w->pte;
    }
    if (va >> MCMGPU_VA_BITS) {
        return 0;
    }
    e = mcmgpu_guest_pt_walk(w->s, w->root, vpn);
    if (!e) {
        return 0;
    }
    w->vpn = vpn;
    w->pte = e;
    return e;
}

static uint64_t adsm_gpa(const AdsmWalk *w, uint64_t pte, uint64_t va)
{
    return (MCMGPU_PTE_PFN(pte) << MCMGPU_PAGE_SHIFT) |
           (va & ((1ULL << MCMGPU_PAGE_SHIFT) - 1));
}

/* Page by page through the table; the kernel's view: READ or WRITE needed. */
static int adsm_access(AdsmWalk *w, uint64_t va, void *buf, uint32_t len,
                       bool write)
{
    uint8_t *p = buf;

    while (len) {
        uint64_t pte = adsm_walk(w, va);
        uint32_t in_page = (1U << MCMGPU_PAGE_SHIFT) -
                           (va & ((1U << MCMGPU_PAGE_SHIFT) - 1));
        uint32_t n = MIN(len, in_page);
        bool ok;

        if (!(pte & (write ? MCMGPU_PTE_WRITE : MCMGPU_PTE_READ))) {
            return -EFAULT;
        }
        ok = write ? mcmgpu_gpu_write(w->s, adsm_gpa(w, pte, va), p, n) :
                     mcmgpu_gpu_read(w->s, adsm_gpa(w, pte, va), p, n);
        if (!ok) {
            return -EFAULT;
        }
        va += n;
        p += n;
        len -= n;
    }
    return 0;
}

static int adsm_mem_read(void *priv, uint64_t va, void *buf, uint32_t len)
{
    return adsm_access(priv, va, buf, len, false);
}

static int adsm_mem_write(void *priv, uint64_t va, const void *buf,
                          uint32_t len)
{
    return adsm_access(priv, va, (void *)buf, len, true);
}

static const struct adsm_mem_ops adsm_mem = {
    .read = adsm_mem_read,
    .write = adsm_mem_write,
};

/*
 * args[0] root, args[1] GPU VA, args[2] length, args[3] the page list,
 * args[4] where the data starts in the list's first page. Copied in pieces
 * that cross neither a GPU page nor a host page. The copy engine needs a
 * valid PTE, not the kernel's permissions.
 */
static uint32_t adsm_xfer(MCMGPUState *s, MCMGPUContext *ctx, uint16_t flags,
                          const uint64_t *args, MCMGPUCmdOut *out)
{
    const uint64_t page = 1ULL << MCMGPU_PAGE_SHIFT;
    AdsmWalk w = { .s = s, .root = args[0], .vpn = ~0ULL };
    const MCMGPUAdsmConfig *cfg = mcmgpu_adsm_config(s);
    uint64_t va = args[1], len = args[2], first = args[4], pos;
    bool to_host = flags & MCMGPU_ADSM_XFER_TO_HOST;
    uint64_t list[ADSM_LIST_CHUNK], loaded = ~0ULL;

    if (!len || len > MCMGPU_ADSM_MAX_OBJECT || first >= page ||
        va >= (1ULL << MCMGPU_VA_BITS) ||
        len > (1ULL << MCMGPU_VA_BITS) - va) {
        qemu_log_mask(LOG_GUEST_ERROR, "mcmgpu: ADSM_XFER of 0x%" PRIx64
                      " bytes at 0x%" PRIx64 " (host offset 0x%" PRIx64
                      "): out of range\n", len, va, first);
        return MCMGPU_CMPL_BAD_LENGTH;
    }
    for (pos = 0; pos < len;) {
        uint64_t gva = va + pos, h = first + pos, idx = h / page;
        uint64_t n = MIN(len - pos, MIN(page - gva % page, page - h % page));
        uint64_t pte;
        uint32_t st;

        if (idx / ADSM_LIST_CHUNK != loaded) {
            uint64_t base = idx / ADSM_LIST_CHUNK * ADSM_LIST_CHUNK;
            uint64_t entries = (first + len + page - 1) / page - base;

            entries = MIN(entries, ADSM_LIST_CHUNK);
            if (mcmgpu_host_read(s, args[3] + base * 8, list, entries * 8) !=
                MEMTX_OK) {
                qemu_log_mask(LOG_GUEST_ERROR, "mcmgpu: ADSM_XFER page list"
                              " at 0x%" PRIx64 " not readable\n", args[3]);
                return MCMGPU_CMPL_DMA_FAULT;
            }
            loaded = idx / ADSM_LIST_CHUNK;
        }
        pte = adsm_walk(&w, gva);
        if (!(pte & MCMGPU_PTE_VALID)) {
            qemu_log_mask(LOG_GUEST_ERROR, "mcmgpu: ADSM_XFER: GPU VA 0x%"
                          PRIx64 " not mapped\n", gva);
            out->result = gva;
            return MCMGPU_CMPL_BAD_GPU_ADDR;
        }
        st = mcmgpu_gpu_host_copy(s, adsm_gpa(&w, pte, gva),
                                  le64_to_cpu(list[idx % ADSM_LIST_CHUNK]) +
                                  h % page, n, to_host);
        if (st != MCMGPU_CMPL_OK) {
            return st;
        }
        pos += n;
    }
    out->cycles = mcmgpu_adsm_xfer_cycles(len, cfg->dma_setup, cfg->dma_bw);
    out->result = out->cycles;
    trace_mcmgpu_adsm_xfer(va, len, to_host, out->cycles);
    return MCMGPU_CMPL_OK;
}

/* args[0] root, args[1] the kernel's host address, args[2] the result's. */
static uint32_t adsm_kernel(MCMGPUState *s, MCMGPUContext *ctx,
                            uint16_t flags, const uint64_t *args,
                            MCMGPUCmdOut *out)
{
    AdsmWalk w = { .s = s, .root = args[0], .vpn = ~0ULL };
    struct mcmgpu_adsm_kernel k;
    struct mcmgpu_adsm_kernel_result res = { 0 };
    uint32_t st = MCMGPU_CMPL_OK;

    if (mcmgpu_host_read(s, args[1], &k, sizeof(k)) != MEMTX_OK) {
        return MCMGPU_CMPL_DMA_FAULT;
    }
    /* The device is little-endian like every guest we run. */
    if (adsm_kernel_check(&k, mcmgpu_geometry(s)->chiplets, &res.error)) {
        st = MCMGPU_CMPL_BAD_LAUNCH;
    } else if (adsm_kernel_run(&k, mcmgpu_geometry(s)->chiplets, &adsm_mem,
                               &w, &res)) {
        st = MCMGPU_CMPL_BAD_LAUNCH;
    }
    if (st != MCMGPU_CMPL_OK) {
        qemu_log_mask(LOG_GUEST_ERROR, "mcmgpu: ADSM kernel %u refused: %s "
                      "(0x%" PRIx64 ")\n", k.kernel, res.error.what,
                      (uint64_t)res.error.value);
    }
    if (mcmgpu_host_write(s, args[2], &res, sizeof(res)) != MEMTX_OK) {
        return MCMGPU_CMPL_DMA_FAULT;
    }
    out->cycles = res.cycles;
    out->result = res.cycles;
    trace_mcmgpu_adsm_kernel(k.kernel, k.n, res.cycles, st);
    return st;
}

static const MCMGPUCommand adsm_commands[] = {
    { MCMGPU_OP_ADSM_XFER, "ADSM_XFER", MCMGPU_ADSM_XFER_TO_HOST, true,
      adsm_xfer },
    { MCMGPU_OP_ADSM_KERNEL, "ADSM_KERNEL", 0, true, adsm_kernel },
    { 0 }
};

const MCMGPUEngine mcmgpu_adsm_engine = {
    .name = "adsm",
    .feature = MCMGPU_FEAT_ADSM,
    .commands = adsm_commands,
    .not_migrated = "stateless: the page tables and data are in guest and "
                    "GPU memory",
    .window = -1,
};
