/*
 * mcmgpu: an emulated multi-chiplet GPU (PCIe endpoint).
 *
 * BAR0 holds the control registers and the MSI-X table, BAR2 all chiplet
 * memories back to back (GPU physical address = chiplet * vram-per-chiplet
 * + offset). Commands arrive through a ring in guest memory; every
 * guest-supplied index, length and address is checked, and a bad command
 * completes with an error status instead of touching QEMU state.
 *
 * Commands run in a worker thread, never under the BQL: a replay or a
 * launch may take seconds of host time, and the vCPUs keep running
 * meanwhile, as with real hardware. The registers the worker shares with
 * the MMIO handlers are under s->lock; engine state (the trace buffer, the
 * command processor) belongs to the worker alone. Completions are written
 * in order by the worker; the interrupt is raised from a bottom half.
 *
 * The register and descriptor layout is in uapi/mcmgpu_hw.h, shared with
 * the Linux driver. Mechanisms are engines (mcmgpu_engine.h), one file
 * each, listed in mcmgpu_engines[] below; contexts hold their state per
 * client.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/units.h"
#include "qemu/module.h"
#include "qemu/main-loop.h"
#include "qemu/host-utils.h"
#include "qemu/cutils.h"
#include "qemu/thread.h"
#include "qemu/rcu.h"
#include "qemu/log.h"
#include "qemu/timer.h"
#include "sysemu/runstate.h"
#include "exec/memory.h"
#include "qapi/error.h"
#include "hw/pci/pci.h"
#include "hw/pci/pcie.h"
#include "hw/pci/msix.h"
#include "hw/qdev-properties.h"
#include "hw/registerfields.h"
#include "migration/vmstate.h"
#include "qom/object.h"

#include "trace.h"
#include "mcmgpu_engine.h"
#include "mcmgpu_adsm.h"
#include "mcmgpu_cxl.h"
#include "mcmgpu_gpu.h"
#include "mcmgpu_pt.h"

/* Mechanism structures are read from guest memory as they are (mcmgpu_hw.h). */
QEMU_BUILD_BUG_MSG(HOST_BIG_ENDIAN, "mcmgpu needs a little-endian host");

#define TYPE_MCMGPU "mcmgpu"
OBJECT_DECLARE_SIMPLE_TYPE(MCMGPUState, MCMGPU)

#define MCMGPU_REGS_MMIO_SIZE   MCMGPU_WINDOW_BASE
#define MCMGPU_PCIE_CAP_OFFSET  0x80
#define MCMGPU_ATS_CAP_OFFSET   0x100   /* extended capabilities */
#define MCMGPU_PASID_CAP_OFFSET 0x108
#define MCMGPU_PASID_WIDTH      8       /* PASID = context id, below 256 */

/* The PASID Capability register (PCIe 6.0 §7.8.8.2), as QEMU has no name. */
REG16(PASID_CAP, PCI_PASID_CAP)
    FIELD(PASID_CAP, MAX_PASID_WIDTH, 8, 5)
#define MCMGPU_DEFAULT_CONTEXTS 64
#define MCMGPU_MAX_CONTEXTS     1024
#define MCMGPU_DEFAULT_MEM_BUDGET (4 * GiB)

static const MCMGPUCommand mcmgpu_core_commands[];

/* The device's mechanisms; a new one is one line here. */
static const MCMGPUEngine mcmgpu_core_engine = {
    .name = "core",
    .commands = mcmgpu_core_commands,
    .not_migrated = "the context table is in the device's own VMState",
    .window = -1,
};

static const MCMGPUEngine *const mcmgpu_engines[] = {
    &mcmgpu_core_engine,
    &mcmgpu_dma_engine,
    &mcmgpu_finepack_engine,
    &mcmgpu_cpelide_engine,
    &mcmgpu_iommu_engine,
    &mcmgpu_barre_engine,
    &mcmgpu_cxl_rc_engine,
    &mcmgpu_adsm_engine,
    &mcmgpu_gpu_engine,
};
#define MCMGPU_ENGINES ARRAY_SIZE(mcmgpu_engines)

/* One client's state in every engine; worker thread only. */
struct MCMGPUContext {
    uint32_t id;
    void *state[MCMGPU_ENGINES];
};

/* A BAR0 window and its common registers (under s->lock). */
typedef struct MCMGPUWindow {
    MemoryRegion mr;
    MCMGPUState *s;
    const MCMGPUEngine *engine;
    uint32_t irq_status;
    uint32_t irq_mask;
    uint32_t pings;
} MCMGPUWindow;

struct MCMGPUState {
    PCIDevice parent_obj;

    MemoryRegion bar0;
    MemoryRegion regs;
    MemoryRegion bar2;
    MemoryRegion vram;
    uint8_t *vram_ptr;
    struct mcmgpu_geometry geom;

    /* Command execution (see the top of the file). */
    QemuThread worker;
    bool sync_commands;     /* property: no worker, a bottom half */
    QEMUBH *sync_bh;
    QemuMutex lock;         /* registers below, and the flags here */
    QemuCond work_cond;     /* doorbell, reset, resume, quit */
    QemuCond idle_cond;     /* the worker finished a command */
    QemuCond wait_cond;     /* a waiting command may go on (mcmgpu_cmd_wait) */
    QEMUBH *irq_bh;
    VMChangeStateEntry *vm_change;
    bool worker_busy;
    bool worker_quit;
    bool worker_waiting;    /* in mcmgpu_cmd_wait: touches no memory */
    uint32_t cmd_spin_us;   /* property: mcmgpu_cmd_spin's bound */
    uint32_t spin_backoff;  /* worker only: spins not to start */
    uint64_t spin_preempted;    /* worker only: spins that lost the CPU */
    uint32_t job_gen;       /* reset_gen of the command in flight */
    bool paused;            /* VM stopped: start no command */
    uint32_t reset_gen;     /* bumped by every reset: drops a completion */
    uint32_t ctx_gen;       /* bumped by device resets: frees contexts */
    uint32_t engine_gen;    /* worker only: ctx_gen its contexts match */

    /* Contexts, id = index + 1; the worker's alone (see the top). */
    MCMGPUContext **ctx;
    uint8_t *ctx_live;      /* migration: which ids exist */

    MCMGPUWindow window[MCMGPU_WINDOWS];
    void *engine_dev[MCMGPU_ENGINES];   /* engines' dev_realize results */
    MCMGPUCxlConfig cxl;                /* properties */
    MCMGPUAdsmConfig adsm;              /* properties */
    uint32_t gpu_program_max_mib;       /* property */

    /* properties */
    uint32_t chiplets;
    uint64_t vram_per_chiplet;
    uint32_t contexts;
    uint64_t mem_budget;
    uint64_t mem_charged;   /* engines' host allocations, atomic */

    /* register state (migrated) */
    uint64_t ring_base;
    uint32_t ring_size;
    uint32_t ring_ctrl;
    uint32_t ring_head;
    uint32_t ring_tail;
    uint64_t cmpl_base;
    uint32_t irq_status;
    uint32_t irq_mask;
    uint32_t status;
    uint32_t cmd_count;
    uint32_t err_count;
    uint32_t fault_inject;
};

/* A window's vector follows the command vector. */
static unsigned mcmgpu_window_vector(int window)
{
    return MCMGPU_MSIX_VEC_CMD + 1 + window;
}

/* Under the BQL: MSI-X is not thread-safe. */
static void mcmgpu_irq_bh(void *opaque)
{
    MCMGPUState *s = opaque;
    PCIDevice *pdev = PCI_DEVICE(s);
    bool pending[1 + MCMGPU_WINDOWS];
    int w;

    qemu_mutex_lock(&s->lock);
    pending[0] = s->irq_status & s->irq_mask;
    for (w = 0; w < MCMGPU_WINDOWS; w++) {
        pending[1 + w] = s->window[w].irq_status & s->window[w].irq_mask;
    }
    qemu_mutex_unlock(&s->lock);
    if (!msix_enabled(pdev)) {
        return;
    }
    if (pending[0]) {
        msix_notify(pdev, MCMGPU_MSIX_VEC_CMD);
    }
    for (w = 0; w < MCMGPU_WINDOWS; w++) {
        if (pending[1 + w]) {
            msix_notify(pdev, mcmgpu_window_vector(w));
        }
    }
}

/* Any thread, s->lock held. */
static void mcmgpu_raise(MCMGPUState *s, uint32_t bits)
{
    s->irq_status |= bits;
    qemu_bh_schedule(s->irq_bh);
}

static void mcmgpu_ring_fail(MCMGPUState *s, uint32_t why)
{
    s->status |= MCMGPU_STATUS_RING_ERROR | why;
    trace_mcmgpu_ring_error(s->status);
    s->ring_ctrl &= ~MCMGPU_RING_CTRL_ENABLE;
    mcmgpu_raise(s, MCMGPU_IRQ_RING_ERROR);
}

static bool mcmgpu_ring_config_ok(MCMGPUState *s)
{
    return s->ring_size >= MCMGPU_RING_MIN_ENTRIES &&
           s->ring_size <= MCMGPU_RING_MAX_ENTRIES &&
           is_power_of_2(s->ring_size) &&
           !(s->ring_base % MCMGPU_RING_ALIGN) &&
           !(s->cmpl_base % MCMGPU_RING_ALIGN) &&
           s->ring_base && s->cmpl_base;
}

/* A running ring's geometry and indexes, as the worker and migration need. */
static bool mcmgpu_ring_consistent(MCMGPUState *s)
{
    return mcmgpu_ring_config_ok(s) && s->ring_head < s->ring_size &&
           s->ring_tail < s->ring_size;
}

/*
 * Guest RAM access for the worker. The device masters only memory: each
 * piece is looked up and copied through one MemoryRegionCache, which holds
 * its RAM block, so a guest remapping the range meanwhile (PAM, SMRAM, a
 * BAR) cannot turn the copy into an MMIO access that needs the BQL.
 */
static MemTxResult mcmgpu_host_rw(MCMGPUState *s, uint64_t addr, void *buf,
                                  uint64_t len, bool is_write)
{
    AddressSpace *as = pci_get_address_space(PCI_DEVICE(s));
    uint8_t *p = buf;

    if (addr + len < addr) {
        return MEMTX_DECODE_ERROR;
    }
    while (len) {
        MemoryRegionCache cache = MEMORY_REGION_CACHE_INVALID;
        int64_t l = address_space_cache_init(&cache, as, addr, len, is_write);
        MemTxResult r = MEMTX_DECODE_ERROR;

        if (l > 0 && cache.ptr) {
            r = is_write ? address_space_write_cached(&cache, 0, p, l) :
                           address_space_read_cached(&cache, 0, p, l);
        }
        if (r == MEMTX_OK && is_write) {
            /* The cached write is a memcpy: mark it dirty for migration. */
            address_space_cache_invalidate(&cache, 0, l);
        }
        address_space_cache_destroy(&cache);
        if (r != MEMTX_OK) {
            return r;
        }
        addr += l;
        p += l;
        len -= l;
    }
    return MEMTX_OK;
}

MemTxResult mcmgpu_host_read(MCMGPUState *s, uint64_t addr, void *buf,
                             uint64_t len)
{
    return mcmgpu_host_rw(s, addr, buf, len, false);
}

/* An entry of a page table in guest RAM (little-endian); 0 if unreadable. */
static uint64_t mcmgpu_pt_read_entry(void *opaque, uint64_t table,
                                     uint32_t index)
{
    uint64_t e;

    if (mcmgpu_host_read(opaque, table + index * 8ull, &e, 8) != MEMTX_OK) {
        return 0;
    }
    return le64_to_cpu(e);
}

uint64_t mcmgpu_guest_pt_walk(MCMGPUState *s, uint64_t root, uint64_t vpn)
{
    return mcmgpu_pt_walk(root, vpn, mcmgpu_pt_read_entry, s);
}

MemTxResult mcmgpu_host_write(MCMGPUState *s, uint64_t addr,
                              const void *buf, uint64_t len)
{
    return mcmgpu_host_rw(s, addr, (void *)buf, len, true);
}

void *mcmgpu_engine_dev(MCMGPUState *s, const MCMGPUEngine *e)
{
    int i;

    for (i = 0; i < MCMGPU_ENGINES; i++) {
        if (mcmgpu_engines[i] == e) {
            return s->engine_dev[i];
        }
    }
    g_assert_not_reached();
}

const MCMGPUCxlConfig *mcmgpu_cxl_config(MCMGPUState *s)
{
    return &s->cxl;
}

const MCMGPUAdsmConfig *mcmgpu_adsm_config(MCMGPUState *s)
{
    return &s->adsm;
}

uint64_t mcmgpu_gpu_program_max(MCMGPUState *s)
{
    return (uint64_t)s->gpu_program_max_mib << 20;
}

const struct mcmgpu_geometry *mcmgpu_geometry(MCMGPUState *s)
{
    return &s->geom;
}

bool mcmgpu_gpu_write(MCMGPUState *s, uint64_t gpa, const void *buf,
                      uint64_t len)
{
    if (!mcmgpu_gpu_range_ok(&s->geom, gpa, len)) {
        return false;
    }
    memcpy(s->vram_ptr + gpa, buf, len);
    memory_region_set_dirty(&s->vram, gpa, len);
    return true;
}

bool mcmgpu_gpu_write_undirtied(MCMGPUState *s, uint64_t gpa,
                                const void *buf, uint64_t len)
{
    if (!mcmgpu_gpu_range_ok(&s->geom, gpa, len)) {
        return false;
    }
    memcpy(s->vram_ptr + gpa, buf, len);
    return true;
}

void mcmgpu_gpu_dirty(MCMGPUState *s, uint64_t gpa, uint64_t len)
{
    if (mcmgpu_gpu_range_ok(&s->geom, gpa, len)) {
        memory_region_set_dirty(&s->vram, gpa, len);
    }
}

bool mcmgpu_gpu_read(MCMGPUState *s, uint64_t gpa, void *buf, uint64_t len)
{
    if (!mcmgpu_gpu_range_ok(&s->geom, gpa, len)) {
        return false;
    }
    memcpy(buf, s->vram_ptr + gpa, len);
    return true;
}

uint32_t mcmgpu_gpu_host_copy(MCMGPUState *s, uint64_t gpa, uint64_t host,
                              uint64_t len, bool to_host)
{
    MemTxResult r;

    if (!mcmgpu_gpu_range_ok(&s->geom, gpa, len)) {
        return MCMGPU_CMPL_BAD_GPU_ADDR;
    }
    if (to_host) {
        r = mcmgpu_host_write(s, host, s->vram_ptr + gpa, len);
    } else {
        r = mcmgpu_host_read(s, host, s->vram_ptr + gpa, len);
        memory_region_set_dirty(&s->vram, gpa, len);
    }
    return r == MEMTX_OK ? MCMGPU_CMPL_OK : MCMGPU_CMPL_DMA_FAULT;
}

static int mcmgpu_engine_index(const MCMGPUEngine *e)
{
    int i;

    for (i = 0; i < MCMGPU_ENGINES; i++) {
        if (mcmgpu_engines[i] == e) {
            return i;
        }
    }
    g_assert_not_reached();
}

bool mcmgpu_mem_charge(MCMGPUState *s, uint64_t bytes)
{
    uint64_t old = qatomic_read(&s->mem_charged), seen;

    for (;;) {
        if (bytes > s->mem_budget || old > s->mem_budget - bytes) {
            return false;
        }
        seen = qatomic_cmpxchg(&s->mem_charged, old, old + bytes);
        if (seen == old) {
            return true;
        }
        old = seen;
    }
}

void mcmgpu_mem_uncharge(MCMGPUState *s, uint64_t bytes)
{
    qatomic_sub(&s->mem_charged, bytes);
}

void *mcmgpu_ctx_state(MCMGPUContext *ctx, const MCMGPUEngine *e)
{
    return ctx->state[mcmgpu_engine_index(e)];
}

uint32_t mcmgpu_ctx_id(MCMGPUContext *ctx)
{
    return ctx->id;
}

bool mcmgpu_ats_enabled(MCMGPUState *s)
{
    PCIDevice *pdev = PCI_DEVICE(s);

    /* A config write races only with a guest that changes it mid-run. */
    return pci_get_word(pdev->config + pdev->exp.ats_cap + PCI_ATS_CTRL) &
           PCI_ATS_CTRL_ENABLE;
}

void mcmgpu_window_raise(MCMGPUState *s, int window, uint32_t bits)
{
    qemu_mutex_lock(&s->lock);
    s->window[window].irq_status |= bits;
    qemu_mutex_unlock(&s->lock);
    qemu_bh_schedule(s->irq_bh);
}

/* Worker thread only. */
static MCMGPUContext *mcmgpu_ctx_new(MCMGPUState *s, uint32_t id)
{
    MCMGPUContext *ctx = g_new0(MCMGPUContext, 1);
    int i;

    ctx->id = id;
    for (i = 0; i < MCMGPU_ENGINES; i++) {
        if (mcmgpu_engines[i]->ctx_new) {
            ctx->state[i] = mcmgpu_engines[i]->ctx_new(s);
        }
    }
    s->ctx[id - 1] = ctx;
    return ctx;
}

static void mcmgpu_ctx_free(MCMGPUState *s, uint32_t id)
{
    MCMGPUContext *ctx = s->ctx[id - 1];
    int i;

    for (i = 0; i < MCMGPU_ENGINES; i++) {
        if (mcmgpu_engines[i]->ctx_free) {
            mcmgpu_engines[i]->ctx_free(s, ctx->state[i]);
        }
    }
    g_free(ctx);
    s->ctx[id - 1] = NULL;
}

static MCMGPUContext *mcmgpu_ctx_lookup(MCMGPUState *s, uint32_t id)
{
    return id && id <= s->contexts ? s->ctx[id - 1] : NULL;
}

static uint32_t mcmgpu_nop(MCMGPUState *s, MCMGPUContext *ctx,
                           uint16_t flags, const uint64_t *args,
                           MCMGPUCmdOut *out)
{
    return MCMGPU_CMPL_OK;
}

static uint32_t mcmgpu_ctx_create(MCMGPUState *s, MCMGPUContext *ctx,
                                  uint16_t flags, const uint64_t *args,
                                  MCMGPUCmdOut *out)
{
    uint32_t id;

    for (id = 1; id <= s->contexts; id++) {
        if (!s->ctx[id - 1]) {
            mcmgpu_ctx_new(s, id);
            out->result = id;
            return MCMGPU_CMPL_OK;
        }
    }
    return MCMGPU_CMPL_NO_CONTEXT;
}

static uint32_t mcmgpu_ctx_destroy(MCMGPUState *s, MCMGPUContext *ctx,
                                   uint16_t flags, const uint64_t *args,
                                   MCMGPUCmdOut *out)
{
    mcmgpu_ctx_free(s, ctx->id);
    return MCMGPU_CMPL_OK;
}

/* args[0] a window: raise its PING event, for the aux drivers' test. */
static uint32_t mcmgpu_ping(MCMGPUState *s, MCMGPUContext *ctx,
                            uint16_t flags, const uint64_t *args,
                            MCMGPUCmdOut *out)
{
    if (args[0] >= MCMGPU_WINDOWS || !s->window[args[0]].engine) {
        return MCMGPU_CMPL_BAD_ARG;
    }
    qemu_mutex_lock(&s->lock);
    s->window[args[0]].pings++;
    qemu_mutex_unlock(&s->lock);
    mcmgpu_window_raise(s, args[0], MCMGPU_WIN_IRQ_PING);
    return MCMGPU_CMPL_OK;
}

static const MCMGPUCommand mcmgpu_core_commands[] = {
    { MCMGPU_OP_NOP, "NOP", 0, false, mcmgpu_nop },
    { MCMGPU_OP_CTX_CREATE, "CTX_CREATE", 0, false, mcmgpu_ctx_create },
    { MCMGPU_OP_CTX_DESTROY, "CTX_DESTROY", 0, true, mcmgpu_ctx_destroy },
    { MCMGPU_OP_PING, "PING", 0, false, mcmgpu_ping },
    { 0 }
};

static const MCMGPUCommand *mcmgpu_find_command(uint16_t opcode)
{
    const MCMGPUCommand *c;
    int i;

    for (i = 0; i < MCMGPU_ENGINES; i++) {
        for (c = mcmgpu_engines[i]->commands; c && c->name; c++) {
            if (c->opcode == opcode) {
                return c;
            }
        }
    }
    return NULL;
}

/* Decode, check what every command shares, and run it; worker thread. */
static uint32_t mcmgpu_execute(MCMGPUState *s, const struct mcmgpu_hw_cmd *cmd,
                               MCMGPUCmdOut *out)
{
    uint16_t flags = le16_to_cpu(cmd->flags);
    uint32_t ctx_id = le32_to_cpu(cmd->ctx);
    const MCMGPUCommand *c = mcmgpu_find_command(le16_to_cpu(cmd->opcode));
    uint64_t args[ARRAY_SIZE(cmd->args)];
    MCMGPUContext *ctx = NULL;
    size_t i;

    if (!c) {
        return MCMGPU_CMPL_BAD_OPCODE;
    }
    if (flags & ~c->flags) {
        return MCMGPU_CMPL_BAD_FLAGS;
    }
    if (c->context) {
        ctx = mcmgpu_ctx_lookup(s, ctx_id);
        if (!ctx) {
            return MCMGPU_CMPL_BAD_CONTEXT;
        }
    } else if (ctx_id) {
        return MCMGPU_CMPL_BAD_CONTEXT;
    }
    for (i = 0; i < ARRAY_SIZE(args); i++) {
        args[i] = le64_to_cpu(cmd->args[i]);
    }
    return c->run(s, ctx, flags, args, out);
}

/* Every context goes with a reset; worker only (or with it stopped). */
static void mcmgpu_engines_reset(MCMGPUState *s)
{
    uint32_t id;

    for (id = 1; id <= s->contexts; id++) {
        if (s->ctx[id - 1]) {
            mcmgpu_ctx_free(s, id);
        }
    }
}

/* A command the worker took from the ring, with where it came from. */
struct mcmgpu_job {
    uint32_t gen;
    uint32_t slot;
    uint64_t ring_base;
    uint64_t cmpl_base;
    bool fail;
};

/*
 * Claim the next ring slot (s->lock held): false when there is nothing the
 * device may start now. A ring found inconsistent is stopped, not looped.
 */
static bool mcmgpu_claim(MCMGPUState *s, struct mcmgpu_job *job)
{
    if (!(s->ring_ctrl & MCMGPU_RING_CTRL_ENABLE) || s->paused ||
        (s->fault_inject & MCMGPU_FAULT_STALL) ||
        s->ring_head == s->ring_tail) {
        return false;
    }
    if (!mcmgpu_ring_consistent(s)) {
        qemu_log_mask(LOG_GUEST_ERROR, "mcmgpu: ring geometry inconsistent "
                      "(head %u tail %u size %u), ring stopped\n",
                      s->ring_head, s->ring_tail, s->ring_size);
        mcmgpu_ring_fail(s, MCMGPU_STATUS_BAD_RING_CONFIG);
        return false;
    }
    job->gen = s->reset_gen;
    job->slot = s->ring_head;
    job->ring_base = s->ring_base;
    job->cmpl_base = s->cmpl_base;
    job->fail = s->fault_inject & MCMGPU_FAULT_FAIL_NEXT;
    s->fault_inject &= ~MCMGPU_FAULT_FAIL_NEXT;
    return true;
}

/*
 * Run one claimed command, s->lock not held: no DMA is ever done under the
 * lock. Returns false when the ring must stop (descriptor or completion
 * not reachable).
 */
static bool mcmgpu_run_job(MCMGPUState *s, const struct mcmgpu_job *job,
                           uint32_t *st)
{
    struct mcmgpu_hw_cmd cmd;
    struct mcmgpu_hw_cmpl cmpl = { 0 };
    MCMGPUCmdOut out = { 0 };

    if (mcmgpu_host_read(s, job->ring_base +
                         (uint64_t)job->slot * MCMGPU_HW_CMD_SIZE,
                         &cmd, sizeof(cmd)) != MEMTX_OK) {
        qemu_log_mask(LOG_GUEST_ERROR, "mcmgpu: descriptor %u of the ring at"
                      " 0x%" PRIx64 " not readable, ring stopped\n",
                      job->slot, job->ring_base);
        return false;
    }
    trace_mcmgpu_cmd_start(job->slot, le16_to_cpu(cmd.opcode),
                           le64_to_cpu(cmd.seq));
    *st = job->fail ? MCMGPU_CMPL_INJECTED_FAULT :
          mcmgpu_execute(s, &cmd, &out);
    trace_mcmgpu_cmd_done(job->slot, *st, out.result, out.cycles);
    if (*st != MCMGPU_CMPL_OK) {
        qemu_log_mask(LOG_GUEST_ERROR, "mcmgpu: command opcode 0x%x seq %"
                      PRIu64 " refused: status %u\n",
                      le16_to_cpu(cmd.opcode), le64_to_cpu(cmd.seq), *st);
    }
    /* A reset meanwhile: the driver waits for BUSY, not for this record. */
    if (qatomic_read(&s->reset_gen) != job->gen) {
        trace_mcmgpu_cmd_dropped(job->slot);
        return true;
    }
    cmpl.seq = cmd.seq;
    cmpl.status = cpu_to_le32(*st);
    cmpl.result = cpu_to_le64(out.result);
    cmpl.cycles = cpu_to_le64(out.cycles);
    if (mcmgpu_host_write(s, job->cmpl_base +
                          (uint64_t)job->slot * MCMGPU_HW_CMPL_SIZE,
                          &cmpl, sizeof(cmpl)) != MEMTX_OK) {
        qemu_log_mask(LOG_GUEST_ERROR, "mcmgpu: completion %u at 0x%" PRIx64
                      " not writable, ring stopped\n", job->slot,
                      job->cmpl_base);
        return false;
    }
    return true;
}

/*
 * The command processor: one command at a time, in ring order, completion
 * record before HEAD moves. The guest can ring, read HEAD or reset while a
 * command runs; a reset drops the completion of the command in flight.
 * s->lock held (dropped while the command runs). Returns false when there
 * was nothing to do.
 */
static bool mcmgpu_process_one(MCMGPUState *s)
{
    struct mcmgpu_job job;
    uint32_t st = MCMGPU_CMPL_OK;
    bool ok;

    if (s->engine_gen != s->ctx_gen) {
        s->engine_gen = s->ctx_gen;
        mcmgpu_engines_reset(s);
        return true;
    }
    if (!mcmgpu_claim(s, &job)) {
        return false;
    }
    s->worker_busy = true;
    s->job_gen = job.gen;
    qemu_mutex_unlock(&s->lock);
    ok = mcmgpu_run_job(s, &job, &st);
    qemu_mutex_lock(&s->lock);
    s->worker_busy = false;
    if (job.gen == s->reset_gen) {
        if (!ok) {
            mcmgpu_ring_fail(s, MCMGPU_STATUS_BAD_RING_CONFIG);
        } else {
            s->cmd_count++;
            s->err_count += st != MCMGPU_CMPL_OK;
            s->ring_head = (s->ring_head + 1) & (s->ring_size - 1);
            mcmgpu_raise(s, MCMGPU_IRQ_CMD_DONE);
        }
    }
    qemu_cond_broadcast(&s->idle_cond);
    return true;
}

bool mcmgpu_cmd_wait(MCMGPUState *s, bool (*done)(void *opaque),
                     void *opaque)
{
    bool ok;

    qemu_mutex_lock(&s->lock);
    s->worker_waiting = true;
    qemu_cond_broadcast(&s->idle_cond);     /* a VM stop need not wait */
    for (;;) {
        if (s->worker_quit || qatomic_read(&s->reset_gen) != s->job_gen) {
            ok = false;
            break;
        }
        if (!s->paused && done(opaque)) {
            ok = true;
            break;
        }
        if (s->sync_commands) {
            ok = false;         /* no thread to wait in */
            break;
        }
        qemu_cond_wait(&s->wait_cond, &s->lock);
    }
    s->worker_waiting = false;
    qemu_mutex_unlock(&s->lock);
    return ok;
}

int64_t mcmgpu_cmd_spin_ns(MCMGPUState *s)
{
    return s->sync_commands ? 0 : (int64_t)s->cmd_spin_us * SCALE_US;
}

/*
 * A spin is worth it only with a host CPU to spare: one that lost its CPU
 * for SPIN_PREEMPTED_NS (another thread ran, likely the vCPU it waits
 * for) gives up, and the next SPIN_BACKOFF spins do not start.
 */
#define SPIN_PREEMPTED_NS   (100 * SCALE_US)
#define SPIN_BACKOFF        64

bool mcmgpu_cmd_spin(MCMGPUState *s, bool (*peek)(void *opaque),
                     void *opaque)
{
    int64_t now = get_clock(), end = now + mcmgpu_cmd_spin_ns(s), last;

    if (!mcmgpu_cmd_spin_ns(s)) {
        return false;
    }
    if (s->spin_backoff) {
        s->spin_backoff--;
        return false;
    }
    do {
        if (qatomic_read(&s->worker_quit) || qatomic_read(&s->paused) ||
            qatomic_read(&s->reset_gen) != s->job_gen) {
            return false;
        }
        if (peek(opaque)) {
            return true;
        }
        /* A vCPU on this host CPU (the IOMMU's thread) must not wait. */
        sched_yield();
        last = now;
        now = get_clock();
        if (now - last > SPIN_PREEMPTED_NS) {
            s->spin_backoff = SPIN_BACKOFF;
            trace_mcmgpu_cmd_spin_preempted(++s->spin_preempted);
            return false;
        }
    } while (now < end);
    return false;
}

void mcmgpu_cmd_wake(MCMGPUState *s)
{
    qemu_cond_broadcast(&s->wait_cond);
}

static void *mcmgpu_worker(void *opaque)
{
    MCMGPUState *s = opaque;

    rcu_register_thread();
    qemu_mutex_lock(&s->lock);
    while (!s->worker_quit) {
        if (!mcmgpu_process_one(s)) {
            qemu_cond_wait(&s->work_cond, &s->lock);
        }
    }
    qemu_mutex_unlock(&s->lock);
    rcu_unregister_thread();
    return NULL;
}

/*
 * sync-commands=on: the ring is consumed in a bottom half of the main loop
 * instead of the worker thread. QEMU's generic-fuzz forks a child per input
 * and a child has no worker thread; qtests may want the same.
 */
static void mcmgpu_sync_bh(void *opaque)
{
    MCMGPUState *s = opaque;

    qemu_mutex_lock(&s->lock);
    while (mcmgpu_process_one(s)) {
        /* Until the ring is empty, stopped or paused. */
    }
    qemu_mutex_unlock(&s->lock);
}

/* s->lock held. */
static void mcmgpu_kick(MCMGPUState *s)
{
    qemu_cond_broadcast(&s->wait_cond);
    if (s->sync_commands) {
        qemu_bh_schedule(s->sync_bh);
        return;
    }
    qemu_cond_signal(&s->work_cond);
}

static void mcmgpu_doorbell(MCMGPUState *s, uint32_t tail)
{
    if (!(s->ring_ctrl & MCMGPU_RING_CTRL_ENABLE)) {
        return;
    }
    if (tail >= s->ring_size) {
        qemu_log_mask(LOG_GUEST_ERROR, "mcmgpu: tail %u past the ring of %u,"
                      " ring stopped\n", tail, s->ring_size);
        mcmgpu_ring_fail(s, MCMGPU_STATUS_BAD_TAIL);
        return;
    }
    trace_mcmgpu_doorbell(tail);
    s->ring_tail = tail;
    mcmgpu_kick(s);
}

static void mcmgpu_ring_ctrl_write(MCMGPUState *s, uint32_t val)
{
    if (!(val & MCMGPU_RING_CTRL_ENABLE)) {
        s->ring_ctrl = 0;
        return;
    }
    /* Enabling a running ring would rewind HEAD under the worker. */
    if (s->ring_ctrl & MCMGPU_RING_CTRL_ENABLE) {
        return;
    }
    if (!mcmgpu_ring_config_ok(s)) {
        qemu_log_mask(LOG_GUEST_ERROR, "mcmgpu: bad ring configuration (base"
                      " 0x%" PRIx64 " size %u completions 0x%" PRIx64 ")\n",
                      s->ring_base, s->ring_size, s->cmpl_base);
        mcmgpu_ring_fail(s, MCMGPU_STATUS_BAD_RING_CONFIG);
        return;
    }
    s->ring_ctrl = MCMGPU_RING_CTRL_ENABLE;
    s->ring_head = 0;
    s->ring_tail = 0;
    s->status = 0;
}

/*
 * s->lock held. The worker drops the completion of a command in flight
 * and, for a device reset, every context.
 */
static void mcmgpu_reset_regs(MCMGPUState *s, bool contexts)
{
    int w;

    /* The windows belong to the aux drivers: only a device reset. */
    for (w = 0; contexts && w < MCMGPU_WINDOWS; w++) {
        s->window[w].irq_status = 0;
        s->window[w].irq_mask = 0;
        s->window[w].pings = 0;
    }
    qatomic_inc(&s->reset_gen);
    if (contexts) {
        s->ctx_gen++;
        for (w = 0; w < MCMGPU_ENGINES; w++) {
            if (mcmgpu_engines[w]->dev_reset && s->engine_dev[w]) {
                mcmgpu_engines[w]->dev_reset(s->engine_dev[w]);
            }
        }
    }
    trace_mcmgpu_reset(s->reset_gen, contexts);
    mcmgpu_kick(s);
    s->ring_base = 0;
    s->ring_size = 0;
    s->ring_ctrl = 0;
    s->ring_head = 0;
    s->ring_tail = 0;
    s->cmpl_base = 0;
    s->irq_status = 0;
    s->irq_mask = 0;
    s->status = 0;
    s->cmd_count = 0;
    s->err_count = 0;
    s->fault_inject = 0;
}

static uint64_t mcmgpu_chiplet_reg(MCMGPUState *s, hwaddr addr)
{
    hwaddr off = addr - MCMGPU_REG_CHIPLET_BASE;
    uint32_t c = off / MCMGPU_REG_CHIPLET_STRIDE;
    uint64_t v;

    if (c >= s->chiplets) {
        return 0;
    }
    switch (off % MCMGPU_REG_CHIPLET_STRIDE) {
    case MCMGPU_CHIPLET_MEM_BASE_LO:
    case MCMGPU_CHIPLET_MEM_BASE_HI:
        v = (uint64_t)c * s->vram_per_chiplet;
        break;
    default:
        v = s->vram_per_chiplet;
        break;
    }
    return (off % 8) ? v >> 32 : (uint32_t)v;
}

static uint32_t mcmgpu_features(void)
{
    uint32_t f = 0;
    int i;

    for (i = 0; i < MCMGPU_ENGINES; i++) {
        f |= mcmgpu_engines[i]->feature;
    }
    return f;
}

static uint64_t mcmgpu_reg_read(MCMGPUState *s, hwaddr addr)
{
    switch (addr) {
    case MCMGPU_REG_IDENT:
        return MCMGPU_IDENT_MAGIC;
    case MCMGPU_REG_VERSION:
        return MCMGPU_HW_VERSION;
    case MCMGPU_REG_CHIPLETS:
        return s->chiplets;
    case MCMGPU_REG_FEATURES:
        return mcmgpu_features();
    case MCMGPU_REG_CONTEXTS:
        return s->contexts;
    case MCMGPU_REG_ADSM_DMA_SETUP:
        return s->adsm.dma_setup;
    case MCMGPU_REG_ADSM_DMA_BW:
        return s->adsm.dma_bw;
    case MCMGPU_REG_VRAM_PER_CHIPLET_LO:
        return (uint32_t)s->vram_per_chiplet;
    case MCMGPU_REG_VRAM_PER_CHIPLET_HI:
        return s->vram_per_chiplet >> 32;
    case MCMGPU_REG_RING_BASE_LO:
        return (uint32_t)s->ring_base;
    case MCMGPU_REG_RING_BASE_HI:
        return s->ring_base >> 32;
    case MCMGPU_REG_RING_SIZE:
        return s->ring_size;
    case MCMGPU_REG_RING_CTRL:
        return s->ring_ctrl;
    case MCMGPU_REG_RING_HEAD:
        return s->ring_head;
    case MCMGPU_REG_CMPL_BASE_LO:
        return (uint32_t)s->cmpl_base;
    case MCMGPU_REG_CMPL_BASE_HI:
        return s->cmpl_base >> 32;
    case MCMGPU_REG_IRQ_STATUS:
        return s->irq_status;
    case MCMGPU_REG_IRQ_MASK:
        return s->irq_mask;
    case MCMGPU_REG_STATUS:
        return s->status | (s->worker_busy ? MCMGPU_STATUS_BUSY : 0);
    case MCMGPU_REG_CMD_COUNT:
        return s->cmd_count;
    case MCMGPU_REG_ERR_COUNT:
        return s->err_count;
    case MCMGPU_REG_FAULT_INJECT:
        return s->fault_inject;
    }
    if (addr >= MCMGPU_REG_CHIPLET_BASE &&
        addr < MCMGPU_REG_CHIPLET(MCMGPU_MAX_CHIPLETS, 0)) {
        return mcmgpu_chiplet_reg(s, addr);
    }
    qemu_log_mask(LOG_GUEST_ERROR, "mcmgpu: read of unknown register 0x%"
                  HWADDR_PRIx "\n", addr);
    return 0;
}

static uint64_t mcmgpu_mmio_read(void *opaque, hwaddr addr, unsigned size)
{
    MCMGPUState *s = opaque;
    uint64_t val;

    qemu_mutex_lock(&s->lock);
    val = mcmgpu_reg_read(s, addr);
    qemu_mutex_unlock(&s->lock);
    trace_mcmgpu_mmio_read(addr, val);
    return val;
}

static void mcmgpu_mmio_write(void *opaque, hwaddr addr, uint64_t val,
                              unsigned size)
{
    MCMGPUState *s = opaque;
    bool running;

    trace_mcmgpu_mmio_write(addr, val);
    QEMU_LOCK_GUARD(&s->lock);
    running = s->ring_ctrl & MCMGPU_RING_CTRL_ENABLE;
    /* The ring geometry is fixed while the ring runs. */
    if (running && (addr == MCMGPU_REG_RING_SIZE ||
                    addr == MCMGPU_REG_RING_BASE_LO ||
                    addr == MCMGPU_REG_RING_BASE_HI ||
                    addr == MCMGPU_REG_CMPL_BASE_LO ||
                    addr == MCMGPU_REG_CMPL_BASE_HI)) {
        qemu_log_mask(LOG_GUEST_ERROR, "mcmgpu: ring geometry register 0x%"
                      HWADDR_PRIx " written while the ring runs\n", addr);
        return;
    }
    switch (addr) {
    case MCMGPU_REG_RING_BASE_LO:
        s->ring_base = deposit64(s->ring_base, 0, 32, val);
        break;
    case MCMGPU_REG_RING_BASE_HI:
        s->ring_base = deposit64(s->ring_base, 32, 32, val);
        break;
    case MCMGPU_REG_RING_SIZE:
        s->ring_size = val;
        break;
    case MCMGPU_REG_RING_CTRL:
        mcmgpu_ring_ctrl_write(s, val);
        break;
    case MCMGPU_REG_RING_TAIL:
        mcmgpu_doorbell(s, val);
        break;
    case MCMGPU_REG_CMPL_BASE_LO:
        s->cmpl_base = deposit64(s->cmpl_base, 0, 32, val);
        break;
    case MCMGPU_REG_CMPL_BASE_HI:
        s->cmpl_base = deposit64(s->cmpl_base, 32, 32, val);
        break;
    case MCMGPU_REG_IRQ_STATUS:
        s->irq_status &= ~val;
        break;
    case MCMGPU_REG_IRQ_MASK:
        s->irq_mask = val;
        qemu_bh_schedule(s->irq_bh);
        break;
    case MCMGPU_REG_RESET:
        if (val & (MCMGPU_RESET_DEVICE | MCMGPU_RESET_RING)) {
            mcmgpu_reset_regs(s, val & MCMGPU_RESET_DEVICE);
        }
        break;
    case MCMGPU_REG_FAULT_INJECT:
        s->fault_inject = val & (MCMGPU_FAULT_STALL | MCMGPU_FAULT_FAIL_NEXT);
        mcmgpu_kick(s);
        break;
    default:
        qemu_log_mask(LOG_GUEST_ERROR, "mcmgpu: write of 0x%" PRIx64
                      " to read-only or unknown register 0x%" HWADDR_PRIx
                      "\n", val, addr);
        break;
    }
}

static const MemoryRegionOps mcmgpu_mmio_ops = {
    .read = mcmgpu_mmio_read,
    .write = mcmgpu_mmio_write,
    .endianness = DEVICE_LITTLE_ENDIAN,
    .valid = {
        .min_access_size = 4,
        .max_access_size = 4,
    },
    .impl = {
        .min_access_size = 4,
        .max_access_size = 4,
    },
};

/* The common registers of a window; the rest is its engine's. */
static uint64_t mcmgpu_window_read(void *opaque, hwaddr off, unsigned size)
{
    MCMGPUWindow *w = opaque;
    MCMGPUState *s = w->s;
    const MCMGPUEngine *e = w->engine;
    uint64_t val = 0;

    qemu_mutex_lock(&s->lock);
    switch (off) {
    case MCMGPU_WIN_IDENT:
        val = e->window_ident;
        break;
    case MCMGPU_WIN_VECTOR:
        val = mcmgpu_window_vector(e->window);
        break;
    case MCMGPU_WIN_IRQ_STATUS:
        val = w->irq_status;
        break;
    case MCMGPU_WIN_IRQ_MASK:
        val = w->irq_mask;
        break;
    case MCMGPU_WIN_PINGS:
        val = w->pings;
        break;
    default:
        if (off >= MCMGPU_WIN_ENGINE && e->window_read) {
            val = e->window_read(s, off);
        } else {
            qemu_log_mask(LOG_GUEST_ERROR, "mcmgpu: read of unknown %s "
                          "window register 0x%" HWADDR_PRIx "\n", e->name,
                          off);
        }
        break;
    }
    qemu_mutex_unlock(&s->lock);
    trace_mcmgpu_mmio_read(MCMGPU_WINDOW(e->window) + off, val);
    return val;
}

static void mcmgpu_window_write(void *opaque, hwaddr off, uint64_t val,
                                unsigned size)
{
    MCMGPUWindow *w = opaque;
    MCMGPUState *s = w->s;
    const MCMGPUEngine *e = w->engine;

    trace_mcmgpu_mmio_write(MCMGPU_WINDOW(e->window) + off, val);
    qemu_mutex_lock(&s->lock);
    switch (off) {
    case MCMGPU_WIN_IRQ_STATUS:
        w->irq_status &= ~val;
        break;
    case MCMGPU_WIN_IRQ_MASK:
        w->irq_mask = val;
        qemu_bh_schedule(s->irq_bh);
        break;
    default:
        if (off >= MCMGPU_WIN_ENGINE && e->window_write) {
            e->window_write(s, off, val);
        } else {
            qemu_log_mask(LOG_GUEST_ERROR, "mcmgpu: write of 0x%" PRIx64
                          " to read-only or unknown %s window register 0x%"
                          HWADDR_PRIx "\n", val, e->name, off);
        }
        break;
    }
    qemu_mutex_unlock(&s->lock);
}

static const MemoryRegionOps mcmgpu_window_ops = {
    .read = mcmgpu_window_read,
    .write = mcmgpu_window_write,
    .endianness = DEVICE_LITTLE_ENDIAN,
    .valid = {
        .min_access_size = 4,
        .max_access_size = 4,
    },
    .impl = {
        .min_access_size = 4,
        .max_access_size = 4,
    },
};

static void mcmgpu_windows_init(MCMGPUState *s)
{
    int i;

    for (i = 0; i < MCMGPU_ENGINES; i++) {
        const MCMGPUEngine *e = mcmgpu_engines[i];
        MCMGPUWindow *w;
        g_autofree char *name = NULL;

        if (e->window < 0) {
            continue;
        }
        w = &s->window[e->window];
        w->s = s;
        w->engine = e;
        name = g_strdup_printf("mcmgpu-%s", e->name);
        memory_region_init_io(&w->mr, OBJECT(s), &mcmgpu_window_ops, w, name,
                              MCMGPU_WINDOW_SIZE);
        memory_region_add_subregion(&s->bar0, MCMGPU_WINDOW(e->window),
                                    &w->mr);
    }
}

/*
 * A stopped VM must not see its memory change (migration saves it), so
 * the worker finishes the command in flight and starts no other.
 */
static void mcmgpu_vm_change(void *opaque, bool running, RunState state)
{
    MCMGPUState *s = opaque;

    trace_mcmgpu_vm_pause(!running);
    qemu_mutex_lock(&s->lock);
    s->paused = !running;
    while (!running && s->worker_busy && !s->worker_waiting) {
        qemu_cond_wait(&s->idle_cond, &s->lock);
    }
    mcmgpu_kick(s);
    qemu_mutex_unlock(&s->lock);
    /* An event raised while stopped (or before a migration) fires now. */
    if (running) {
        qemu_bh_schedule(s->irq_bh);
    }
}

static void mcmgpu_msix_use(PCIDevice *pdev)
{
    unsigned v;

    for (v = 0; v < MCMGPU_MSIX_VECTORS; v++) {
        msix_vector_use(pdev, v);
    }
}

static void mcmgpu_engines_exit(MCMGPUState *s)
{
    int i;

    for (i = MCMGPU_ENGINES - 1; i >= 0; i--) {
        if (s->engine_dev[i]) {
            mcmgpu_engines[i]->dev_exit(s->engine_dev[i]);
            s->engine_dev[i] = NULL;
        }
    }
}

static bool mcmgpu_engines_realize(MCMGPUState *s, PCIDevice *pdev,
                                   Error **errp)
{
    int i;

    for (i = 0; i < MCMGPU_ENGINES; i++) {
        if (!mcmgpu_engines[i]->dev_realize) {
            continue;
        }
        s->engine_dev[i] = mcmgpu_engines[i]->dev_realize(s, pdev, &s->bar0,
                                                          errp);
        if (!s->engine_dev[i]) {
            mcmgpu_engines_exit(s);
            return false;
        }
    }
    return true;
}

static void mcmgpu_realize(PCIDevice *pdev, Error **errp)
{
    ERRP_GUARD();
    MCMGPUState *s = MCMGPU(pdev);
    uint64_t total;

    if (s->chiplets < MCMGPU_MIN_CHIPLETS ||
        s->chiplets > MCMGPU_MAX_CHIPLETS) {
        error_setg(errp, "mcmgpu: chiplets=%u out of range %d..%d",
                   s->chiplets, MCMGPU_MIN_CHIPLETS, MCMGPU_MAX_CHIPLETS);
        return;
    }
    if (s->contexts < 1 || s->contexts > MCMGPU_MAX_CONTEXTS) {
        error_setg(errp, "mcmgpu: contexts=%u out of range 1..%d",
                   s->contexts, MCMGPU_MAX_CONTEXTS);
        return;
    }
    if (s->vram_per_chiplet < MCMGPU_MIN_VRAM_PER_CHIPLET ||
        s->vram_per_chiplet > MCMGPU_MAX_VRAM_PER_CHIPLET ||
        s->vram_per_chiplet % MCMGPU_MIN_VRAM_PER_CHIPLET) {
        error_setg(errp, "mcmgpu: vram-per-chiplet=%" PRIu64
                   " must be a multiple of 1 MiB in 1 MiB..1 GiB",
                   s->vram_per_chiplet);
        return;
    }
    if (!s->adsm.dma_bw || s->adsm.dma_setup > MCMGPU_ADSM_DMA_SETUP_MAX) {
        error_setg(errp, "mcmgpu: adsm-dma-bw=%u must be at least 1 byte a "
                   "cycle, adsm-dma-setup=%u at most %u cycles",
                   s->adsm.dma_bw, s->adsm.dma_setup,
                   MCMGPU_ADSM_DMA_SETUP_MAX);
        return;
    }
    if (s->gpu_program_max_mib < 1 || s->gpu_program_max_mib > 4096) {
        error_setg(errp, "mcmgpu: gpu-program-max-mib=%u out of range "
                   "1..4096", s->gpu_program_max_mib);
        return;
    }
    if (s->cmd_spin_us > 10000) {
        error_setg(errp, "mcmgpu: cmd-spin-us=%u out of range 0..10000 "
                   "(a VM stop waits for a spin)", s->cmd_spin_us);
        return;
    }
    s->geom.chiplets = s->chiplets;
    s->geom.vram_per_chiplet = s->vram_per_chiplet;
    total = mcmgpu_geometry_total(&s->geom);

    pdev->config[PCI_INTERRUPT_PIN] = 0;
    pci_config_set_revision(pdev->config, MCMGPU_PCI_REVISION);

    memory_region_init(&s->bar0, OBJECT(s), "mcmgpu-bar0",
                       MCMGPU_BAR_REGS_SIZE);
    memory_region_init_io(&s->regs, OBJECT(s), &mcmgpu_mmio_ops, s,
                          "mcmgpu-regs", MCMGPU_REGS_MMIO_SIZE);
    memory_region_add_subregion(&s->bar0, 0, &s->regs);
    mcmgpu_windows_init(s);
    pci_register_bar(pdev, MCMGPU_BAR_REGS, PCI_BASE_ADDRESS_SPACE_MEMORY |
                     PCI_BASE_ADDRESS_MEM_TYPE_64, &s->bar0);

    memory_region_init(&s->bar2, OBJECT(s), "mcmgpu-bar2", pow2ceil(total));
    memory_region_init_ram(&s->vram, OBJECT(s), "mcmgpu-vram", total, errp);
    if (*errp) {
        return;
    }
    s->vram_ptr = memory_region_get_ram_ptr(&s->vram);
    memory_region_add_subregion(&s->bar2, 0, &s->vram);
    pci_register_bar(pdev, MCMGPU_BAR_VRAM, PCI_BASE_ADDRESS_SPACE_MEMORY |
                     PCI_BASE_ADDRESS_MEM_TYPE_64 |
                     PCI_BASE_ADDRESS_MEM_PREFETCH, &s->bar2);

    if (msix_init(pdev, MCMGPU_MSIX_VECTORS, &s->bar0, MCMGPU_BAR_REGS,
                  MCMGPU_MSIX_TABLE_OFFSET, &s->bar0, MCMGPU_BAR_REGS,
                  MCMGPU_MSIX_PBA_OFFSET, 0, errp)) {
        return;
    }
    mcmgpu_msix_use(pdev);

    if (pcie_endpoint_cap_init(pdev, MCMGPU_PCIE_CAP_OFFSET) < 0) {
        error_setg(errp, "mcmgpu: cannot add the PCIe capability");
        msix_uninit(pdev, &s->bar0, &s->bar0);
        return;
    }
    /*
     * Barre's chiplets translate through ATS (barre_iommu.ko enables it);
     * the requests carry the context's PASID.
     */
    pcie_ats_init(pdev, MCMGPU_ATS_CAP_OFFSET, true);
    pcie_add_capability(pdev, PCI_EXT_CAP_ID_PASID, 1,
                        MCMGPU_PASID_CAP_OFFSET, PCI_EXT_CAP_PASID_SIZEOF);
    pci_set_word(pdev->config + MCMGPU_PASID_CAP_OFFSET + A_PASID_CAP,
                 FIELD_DP16(0, PASID_CAP, MAX_PASID_WIDTH,
                            MCMGPU_PASID_WIDTH));
    pci_set_word(pdev->wmask + MCMGPU_PASID_CAP_OFFSET + PCI_PASID_CTRL,
                 PCI_PASID_CTRL_ENABLE);
    if (!mcmgpu_engines_realize(s, pdev, errp)) {
        pcie_cap_exit(pdev);
        msix_uninit(pdev, &s->bar0, &s->bar0);
        return;
    }

    s->ctx = g_new0(MCMGPUContext *, s->contexts);
    s->ctx_live = g_new0(uint8_t, s->contexts);
    s->irq_bh = qemu_bh_new_guarded(mcmgpu_irq_bh, s,
                                    &DEVICE(s)->mem_reentrancy_guard);
    qemu_mutex_init(&s->lock);
    qemu_cond_init(&s->work_cond);
    qemu_cond_init(&s->idle_cond);
    qemu_cond_init(&s->wait_cond);
    s->paused = !runstate_is_running();
    s->vm_change = qemu_add_vm_change_state_handler(mcmgpu_vm_change, s);
    if (s->sync_commands) {
        s->sync_bh = qemu_bh_new_guarded(mcmgpu_sync_bh, s,
                                         &DEVICE(s)->mem_reentrancy_guard);
        return;
    }
    qemu_thread_create(&s->worker, "mcmgpu", mcmgpu_worker, s,
                       QEMU_THREAD_JOINABLE);
}

static void mcmgpu_exit(PCIDevice *pdev)
{
    MCMGPUState *s = MCMGPU(pdev);

    if (s->sync_commands) {
        qemu_bh_delete(s->sync_bh);
    } else {
        qemu_mutex_lock(&s->lock);
        s->worker_quit = true;
        mcmgpu_kick(s);
        qemu_mutex_unlock(&s->lock);
        qemu_thread_join(&s->worker);
    }
    qemu_del_vm_change_state_handler(s->vm_change);
    qemu_bh_delete(s->irq_bh);
    qemu_cond_destroy(&s->idle_cond);
    qemu_cond_destroy(&s->wait_cond);
    qemu_cond_destroy(&s->work_cond);
    qemu_mutex_destroy(&s->lock);
    mcmgpu_engines_reset(s);
    mcmgpu_engines_exit(s);
    g_free(s->ctx);
    g_free(s->ctx_live);
    pcie_cap_exit(pdev);
    msix_uninit(pdev, &s->bar0, &s->bar0);
}

static void mcmgpu_reset(DeviceState *dev)
{
    MCMGPUState *s = MCMGPU(dev);

    qemu_mutex_lock(&s->lock);
    mcmgpu_reset_regs(s, true);
    qemu_mutex_unlock(&s->lock);
    msix_reset(PCI_DEVICE(s));
    mcmgpu_msix_use(PCI_DEVICE(s));
}

/* The VM is stopped, so the worker is idle (mcmgpu_vm_change). */
static int mcmgpu_pre_save(void *opaque)
{
    MCMGPUState *s = opaque;
    uint32_t i;

    qemu_mutex_lock(&s->lock);
    for (i = 0; i < s->contexts; i++) {
        s->ctx_live[i] = s->ctx[i] != NULL;
    }
    qemu_mutex_unlock(&s->lock);
    return 0;
}

/* Contexts come back empty: engines keep nothing across migration. */
static int mcmgpu_post_load(void *opaque, int version_id)
{
    MCMGPUState *s = opaque;
    uint32_t id;

    if ((s->ring_ctrl & MCMGPU_RING_CTRL_ENABLE) &&
        !mcmgpu_ring_consistent(s)) {
        return -EINVAL;
    }
    qemu_mutex_lock(&s->lock);
    if (s->engine_gen != s->ctx_gen) {
        s->engine_gen = s->ctx_gen;
        mcmgpu_engines_reset(s);
    }
    for (id = 1; id <= s->contexts; id++) {
        if (s->ctx_live[id - 1] && !s->ctx[id - 1]) {
            mcmgpu_ctx_new(s, id);
        } else if (!s->ctx_live[id - 1] && s->ctx[id - 1]) {
            mcmgpu_ctx_free(s, id);
        }
    }
    mcmgpu_kick(s);
    qemu_mutex_unlock(&s->lock);
    return 0;
}

static const VMStateDescription vmstate_mcmgpu_window = {
    .name = "mcmgpu/window",
    .version_id = 1,
    .minimum_version_id = 1,
    .fields = (VMStateField[]) {
        VMSTATE_UINT32(irq_status, MCMGPUWindow),
        VMSTATE_UINT32(irq_mask, MCMGPUWindow),
        VMSTATE_UINT32(pings, MCMGPUWindow),
        VMSTATE_END_OF_LIST()
    },
};

/* Engines with a VMState of their own, as subsections (class init). */
static const VMStateDescription *
mcmgpu_engine_vmsds[ARRAY_SIZE(mcmgpu_engines) + 1];

static const VMStateDescription vmstate_mcmgpu = {
    .name = "mcmgpu",
    .version_id = 2,
    .minimum_version_id = 2,
    .pre_save = mcmgpu_pre_save,
    .post_load = mcmgpu_post_load,
    .subsections = mcmgpu_engine_vmsds,
    .fields = (VMStateField[]) {
        VMSTATE_PCI_DEVICE(parent_obj, MCMGPUState),
        VMSTATE_MSIX(parent_obj, MCMGPUState),
        VMSTATE_UINT64(ring_base, MCMGPUState),
        VMSTATE_UINT32(ring_size, MCMGPUState),
        VMSTATE_UINT32(ring_ctrl, MCMGPUState),
        VMSTATE_UINT32(ring_head, MCMGPUState),
        VMSTATE_UINT32(ring_tail, MCMGPUState),
        VMSTATE_UINT64(cmpl_base, MCMGPUState),
        VMSTATE_UINT32(irq_status, MCMGPUState),
        VMSTATE_UINT32(irq_mask, MCMGPUState),
        VMSTATE_UINT32(status, MCMGPUState),
        VMSTATE_UINT32(cmd_count, MCMGPUState),
        VMSTATE_UINT32(err_count, MCMGPUState),
        VMSTATE_UINT32(fault_inject, MCMGPUState),
        VMSTATE_UINT32_EQUAL(contexts, MCMGPUState, NULL),
        VMSTATE_VBUFFER_UINT32(ctx_live, MCMGPUState, 2, NULL, contexts),
        VMSTATE_STRUCT_ARRAY(window, MCMGPUState, MCMGPU_WINDOWS, 2,
                             vmstate_mcmgpu_window, MCMGPUWindow),
        VMSTATE_END_OF_LIST()
    },
};

static Property mcmgpu_properties[] = {
    DEFINE_PROP_UINT32("chiplets", MCMGPUState, chiplets,
                       MCMGPU_DEFAULT_CHIPLETS),
    DEFINE_PROP_SIZE("vram-per-chiplet", MCMGPUState, vram_per_chiplet,
                     MCMGPU_DEFAULT_VRAM_PER_CHIPLET),
    DEFINE_PROP_UINT32("contexts", MCMGPUState, contexts,
                       MCMGPU_DEFAULT_CONTEXTS),
    DEFINE_PROP_SIZE("mem-budget", MCMGPUState, mem_budget,
                     MCMGPU_DEFAULT_MEM_BUDGET),
    DEFINE_PROP_BOOL("sync-commands", MCMGPUState, sync_commands, false),
    DEFINE_PROP_UINT32("cmd-spin-us", MCMGPUState, cmd_spin_us,
                       MCMGPU_DEFAULT_CMD_SPIN_US),
    DEFINE_PROP_UINT32("cxl-ports", MCMGPUState, cxl.ports,
                       MCMGPU_CXL_DEFAULT_PORTS),
    DEFINE_PROP_UINT32("cxl-hb-decoders", MCMGPUState, cxl.hb_decoders,
                       MCMGPU_CXL_HB_DECODERS),
    DEFINE_PROP_STRING("cxl-media", MCMGPUState, cxl.media),
    DEFINE_PROP_STRING("cxl-capacity", MCMGPUState, cxl.capacity),
    DEFINE_PROP_UINT32("cxl-commit-us", MCMGPUState, cxl.commit_us,
                       MCMGPU_CXL_DEFAULT_COMMIT_US),
    DEFINE_PROP_SIZE("cxl-aperture", MCMGPUState, cxl.aperture,
                     MCMGPU_CXL_DEFAULT_APERTURE),
    DEFINE_PROP_UINT32("adsm-dma-setup", MCMGPUState, adsm.dma_setup,
                       MCMGPU_ADSM_DMA_SETUP_CYCLES),
    DEFINE_PROP_UINT32("adsm-dma-bw", MCMGPUState, adsm.dma_bw,
                       MCMGPU_ADSM_DMA_BYTES_PER_CYCLE),
    DEFINE_PROP_UINT32("gpu-program-max-mib", MCMGPUState,
                       gpu_program_max_mib, MCMGPU_GPU_PROGRAM_MAX_MIB),
    DEFINE_PROP_END_OF_LIST(),
};

static void mcmgpu_class_init(ObjectClass *klass, void *data)
{
    DeviceClass *dc = DEVICE_CLASS(klass);
    PCIDeviceClass *k = PCI_DEVICE_CLASS(klass);
    int i, n = 0;

    for (i = 0; i < MCMGPU_ENGINES; i++) {
        /* Each engine says how it migrates, or why it need not. */
        assert(mcmgpu_engines[i]->vmsd || mcmgpu_engines[i]->not_migrated);
        if (mcmgpu_engines[i]->vmsd) {
            mcmgpu_engine_vmsds[n++] = mcmgpu_engines[i]->vmsd;
        }
    }

    k->realize = mcmgpu_realize;
    k->exit = mcmgpu_exit;
    k->vendor_id = MCMGPU_PCI_VENDOR_ID;
    k->device_id = MCMGPU_PCI_DEVICE_ID;
    k->revision = MCMGPU_PCI_REVISION;
    k->class_id = PCI_CLASS_PROCESSOR_CO;
    dc->desc = "Multi-chiplet GPU research device";
    dc->reset = mcmgpu_reset;
    dc->vmsd = &vmstate_mcmgpu;
    device_class_set_props(dc, mcmgpu_properties);
    set_bit(DEVICE_CATEGORY_MISC, dc->categories);
}

static const TypeInfo mcmgpu_info = {
    .name = TYPE_MCMGPU,
    .parent = TYPE_PCI_DEVICE,
    .instance_size = sizeof(MCMGPUState),
    .class_init = mcmgpu_class_init,
    .interfaces = (InterfaceInfo[]) {
        { INTERFACE_PCIE_DEVICE },
        { }
    },
};

static void mcmgpu_register_types(void)
{
    type_register_static(&mcmgpu_info);
}

type_init(mcmgpu_register_types)
