/*
 * F-Barre's in-package translation in the GPU timing core (gpu_fbarre.h).
 * The semantics are chiplet_tlb.c's (Barre Chord §V-A): the package is
 * tried first, a translation found there arrives like an ATS reply after
 * the attempt's cost, a failed attempt delays the request by its cost,
 * and every fill (from the IOMMU or the package) adds its PEC entry first
 * and then updates the filters with the entry evicted and the one added.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "gpu_fbarre.h"

u64 gpu_fbarre_entries(const struct gpu_config *cfg)
{
    return (u64)cfg->chiplets * cfg->l2_tlb_entries;
}

u64 gpu_fbarre_replies(const struct gpu_config *cfg)
{
    return (u64)cfg->chiplets * cfg->l2_tlb_mshrs;
}

int gpu_fbarre_init(struct gpu_fbarre *f, const struct gpu_config *cfg,
                    u64 frames, struct gpu_fbarre_entry *l2,
                    struct gpu_fbarre_reply *reply, gpu_fbarre_walk_fn walk,
                    void *walk_priv)
{
    struct fbarre_config fc = {
        .sharing = true,
        .rows = cfg->fbarre_filter_rows,
        .run = cfg->fbarre_merge,
        .seed = 1,
    };
    int ret = fbarre_init(&f->fb, &fc, cfg->chiplets, frames);

    if (ret) {
        return ret;
    }
    f->chiplets = cfg->chiplets;
    f->ways = cfg->l2_tlb_ways;
    f->sets = cfg->l2_tlb_entries / cfg->l2_tlb_ways;
    f->mshrs = cfg->l2_tlb_mshrs;
    f->l2 = l2;
    f->reply = reply;
    f->walk = walk;
    f->walk_priv = walk_priv;
    f->l2_misses = 0;
    f->mismatches = 0;
    return 0;
}

/* Chiplet c's set for vpn, as the core indexes its L2 TLB. */
static struct gpu_fbarre_entry *gpu_fbarre_set(const struct gpu_fbarre *f,
                                               u32 c, u64 vpn)
{
    return &f->l2[((u64)c * f->sets + (vpn & (f->sets - 1))) * f->ways];
}

/* fbarre.c reads chiplet c's L2 TLB: the entry's PTE, 0 if absent. */
static u64 gpu_fbarre_read(void *priv, u32 c, u64 vpn)
{
    const struct gpu_fbarre *f = priv;
    const struct gpu_fbarre_entry *set = gpu_fbarre_set(f, c, vpn);
    u32 w;

    for (w = 0; w < f->ways; w++) {
        if (set[w].pte && set[w].vpn == vpn) {
            return set[w].pte;
        }
    }
    return 0;
}

bool gpu_fbarre_miss(struct gpu_fbarre *f, u32 c, u32 mi, u64 vpn, u64 now,
                     struct gpu_fbarre_answer *a)
{
    struct gpu_fbarre_reply *rp = &f->reply[mi];
    struct fbarre_result res;

    f->l2_misses++;
    fbarre_lookup(&f->fb, c, vpn, now, gpu_fbarre_read, f, &res);
    memset(a, 0, sizeof(*a));
    a->latency = res.latency;
    memset(rp, 0, sizeof(*rp));
    if (!res.hit) {
        return false;
    }
    if (f->walk) {
        u64 truth = f->walk(f->walk_priv, vpn);

        if (!(truth & MCMGPU_PTE_VALID) ||
            MCMGPU_PTE_PFN(truth) != MCMGPU_PTE_PFN(res.pte) ||
            ((res.pte & MCMGPU_PTE_WRITE) && !(truth & MCMGPU_PTE_WRITE))) {
            f->mismatches++;
        }
    }
    rp->coal = res.pte & MCMGPU_PTE_COAL_MASK;
    rp->pec = res.pec;
    rp->writable = !!(res.pte & MCMGPU_PTE_WRITE);
    a->pfn = MCMGPU_PTE_PFN(res.pte);
    a->hit = true;
    return true;
}

void gpu_fbarre_reply(struct gpu_fbarre *f, u32 mi,
                      const struct chiplet_tlb_reply *r)
{
    struct gpu_fbarre_reply *rp = &f->reply[mi];

    rp->coal = r->coal & MCMGPU_PTE_COAL_MASK;
    rp->pec = r->pec;
    rp->writable = r->writable ? 1 : 0;
}

void gpu_fbarre_fill(struct gpu_fbarre *f, u32 c, u32 mi, u64 index, u64 vpn,
                     u64 pfn, u64 now)
{
    const struct gpu_fbarre_reply *rp = &f->reply[mi];
    struct gpu_fbarre_entry *e = &f->l2[index];

    /* The object's PEC entry first: the filter updates use it. */
    if (rp->pec.valid) {
        fbarre_pec_add(&f->fb, c, &rp->pec);
    }
    if (e->pte) {
        fbarre_tlb_update(&f->fb, c, e->vpn, e->pte, false, now);
    }
    e->vpn = vpn;
    e->pte = MCMGPU_PTE_VALID | MCMGPU_PTE_READ |
             (rp->writable ? MCMGPU_PTE_WRITE : 0) |
             FIELD_PREP(MCMGPU_PTE_PFN_MASK, pfn) | rp->coal;
    fbarre_tlb_update(&f->fb, c, vpn, e->pte, true, now);
}

void gpu_fbarre_export(const struct gpu_fbarre *f, u64 ats_sent,
                       struct gpu_core_fbarre_stats *st)
{
    fbarre_export_stats(&f->fb, f->l2_misses, ats_sent, f->mismatches, st);
}
