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
 * the Linux driver.
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
#include "sysemu/runstate.h"
#include "exec/memory.h"
#include "qapi/error.h"
#include "hw/pci/pci.h"
#include "hw/pci/pcie.h"
#include "hw/pci/msix.h"
#include "hw/qdev-properties.h"
#include "migration/vmstate.h"
#include "qom/object.h"

#include "trace.h"
#include "mcmgpu_hw.h"
#include "mcmgpu_cmd.h"
#include "finepack.h"
#include "cpelide.h"

#define TYPE_MCMGPU "mcmgpu"
OBJECT_DECLARE_SIMPLE_TYPE(MCMGPUState, MCMGPU)

#define MCMGPU_REGS_MMIO_SIZE   MCMGPU_MSIX_TABLE_OFFSET
#define MCMGPU_PCIE_CAP_OFFSET  0x80

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
    QemuMutex lock;         /* registers below, and the flags here */
    QemuCond work_cond;     /* doorbell, reset, resume, quit */
    QemuCond idle_cond;     /* the worker finished a command */
    QEMUBH *irq_bh;
    VMChangeStateEntry *vm_change;
    bool worker_busy;
    bool worker_quit;
    bool paused;            /* VM stopped: start no command */
    uint32_t reset_gen;     /* bumped by every reset */
    uint32_t engine_gen;    /* worker only: reset_gen its engines match */

    /* Engine state, worker only. Trace buffer of TRACE_LOAD; not migrated. */
    uint8_t *trace;
    uint64_t trace_total;
    uint64_t trace_loaded;

    /* Global command processor of the launch sequence (not migrated). */
    struct cpe_model *cp;
    void *cp_arena;

    /* properties */
    uint32_t chiplets;
    uint64_t vram_per_chiplet;

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

/* Under the BQL: MSI-X is not thread-safe. */
static void mcmgpu_irq_bh(void *opaque)
{
    MCMGPUState *s = opaque;
    PCIDevice *pdev = PCI_DEVICE(s);
    bool pending;

    qemu_mutex_lock(&s->lock);
    pending = s->irq_status & s->irq_mask;
    qemu_mutex_unlock(&s->lock);
    if (pending && msix_enabled(pdev)) {
        msix_notify(pdev, MCMGPU_MSIX_VEC_CMD);
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

/*
 * True when [addr, addr + len) of the device's DMA address space is all
 * RAM. The device masters only memory: a command that named another
 * device's registers would make the worker wait for the BQL.
 */
static bool mcmgpu_host_is_ram(MCMGPUState *s, uint64_t addr, uint64_t len,
                               bool is_write)
{
    AddressSpace *as = pci_get_address_space(PCI_DEVICE(s));

    if (addr + len < addr) {
        return false;
    }
    RCU_READ_LOCK_GUARD();
    while (len) {
        hwaddr xlat, l = len;
        MemoryRegion *mr = address_space_translate(as, addr, &xlat, &l,
                                                   is_write,
                                                   MEMTXATTRS_UNSPECIFIED);

        if (!l || !memory_access_is_direct(mr, is_write)) {
            return false;
        }
        addr += l;
        len -= l;
    }
    return true;
}

/* The one way engines reach guest memory (bounds checked here, once). */
static MemTxResult mcmgpu_host_read(MCMGPUState *s, uint64_t addr, void *buf,
                                    uint64_t len)
{
    if (!mcmgpu_host_is_ram(s, addr, len, false)) {
        return MEMTX_DECODE_ERROR;
    }
    return pci_dma_read(PCI_DEVICE(s), addr, buf, len);
}

static MemTxResult mcmgpu_host_write(MCMGPUState *s, uint64_t addr,
                                     const void *buf, uint64_t len)
{
    if (!mcmgpu_host_is_ram(s, addr, len, true)) {
        return MEMTX_DECODE_ERROR;
    }
    return pci_dma_write(PCI_DEVICE(s), addr, buf, len);
}

static uint32_t mcmgpu_do_dma(MCMGPUState *s, uint16_t flags,
                              const uint64_t *args, uint64_t *result,
                              uint64_t *cycles)
{
    uint64_t host = args[0], gpu = args[1], len = args[2];
    uint32_t st;
    MemTxResult r;

    st = mcmgpu_check_dma(&s->geom, flags, host, gpu, len);
    if (st != MCMGPU_CMPL_OK) {
        return st;
    }
    if (flags & MCMGPU_DMA_FLAG_TO_HOST) {
        r = mcmgpu_host_write(s, host, s->vram_ptr + gpu, len);
    } else {
        r = mcmgpu_host_read(s, host, s->vram_ptr + gpu, len);
        memory_region_set_dirty(&s->vram, gpu, len);
    }
    if (r != MEMTX_OK) {
        return MCMGPU_CMPL_DMA_FAULT;
    }
    *result = len;
    *cycles = mcmgpu_dma_cycles(len);
    return MCMGPU_CMPL_OK;
}

static void mcmgpu_trace_free(MCMGPUState *s)
{
    g_free(s->trace);
    s->trace = NULL;
    s->trace_total = 0;
    s->trace_loaded = 0;
}

static uint32_t mcmgpu_trace_load(MCMGPUState *s, const uint64_t *args)
{
    uint64_t host = args[0], off = args[1], len = args[2], total = args[3];

    if (off == 0) {
        mcmgpu_trace_free(s);
        if (total == 0 || total > FP_TRACE_MAX_BYTES) {
            return MCMGPU_CMPL_BAD_LENGTH;
        }
        s->trace = g_try_malloc(total);
        if (!s->trace) {
            return MCMGPU_CMPL_NO_MEMORY;
        }
        s->trace_total = total;
    }
    if (!s->trace || total != s->trace_total || off != s->trace_loaded ||
        len == 0 || len > MCMGPU_DMA_MAX_LEN || len > total - off) {
        return MCMGPU_CMPL_BAD_LENGTH;
    }
    if (mcmgpu_host_read(s, host, s->trace + off, len) != MEMTX_OK) {
        return MCMGPU_CMPL_DMA_FAULT;
    }
    s->trace_loaded += len;
    return MCMGPU_CMPL_OK;
}

/* De-packetized FinePack sub-packets land in the destination chiplet. */
static void mcmgpu_fp_write(void *ctx, u32 dst, u64 addr, const u8 *data,
                            u32 len)
{
    MCMGPUState *s = ctx;
    uint64_t gpu = dst * s->vram_per_chiplet + addr;

    memcpy(s->vram_ptr + gpu, data, len);
    memory_region_set_dirty(&s->vram, gpu, len);
}

static uint32_t mcmgpu_finepack_run(MCMGPUState *s, const uint64_t *args,
                                    uint64_t *result, uint64_t *cycles)
{
    struct fp_config cfg = {
        .chiplets = s->chiplets,
        .subheader = MCMGPU_FP_CFG_SUBHEADER(args[1]),
        .overhead = MCMGPU_FP_CFG_OVERHEAD(args[1]),
        .vram_per_chiplet = s->vram_per_chiplet,
    };
    struct fp_sink sink = { .ctx = s, .write = mcmgpu_fp_write };
    g_autofree struct fp_replay_result *res = g_new0(struct fp_replay_result,
                                                     1);
    g_autofree struct fp_model *model = NULL;
    g_autofree uint8_t *written = NULL;
    struct fp_trace_view view;
    struct fp_error err;
    uint32_t st = MCMGPU_CMPL_OK;

    if (!s->trace || args[0] != s->trace_total ||
        s->trace_loaded != s->trace_total) {
        return MCMGPU_CMPL_NO_TRACE;
    }
    if (fp_trace_check(s->trace, s->trace_total, &cfg, &view, &err)) {
        res->error_record = err.record;
        res->error_value = err.value;
        pstrcpy(res->error, sizeof(res->error), err.what);
        *result = err.record;
        st = MCMGPU_CMPL_BAD_TRACE;
    } else {
        model = g_try_malloc0(sizeof(*model));
        written = g_try_malloc0(fp_bitmap_bytes(&cfg));
        if (!model || !written) {
            mcmgpu_trace_free(s);
            return MCMGPU_CMPL_NO_MEMORY;
        }
        fp_model_init(model, &cfg, &sink, written);
        fp_model_run(model, &view);
        res->stats = model->stats;
        /* Link time at 16 B per device cycle (PCIe 4.0 x16 at 2 GHz). */
        *cycles = (res->stats.wire_payload + res->stats.wire_subheader +
                   res->stats.wire_overhead + res->stats.wire_padding) / 16;
        *result = res->stats.records;
    }
    mcmgpu_trace_free(s);
    if (mcmgpu_host_write(s, args[2], res, sizeof(*res)) != MEMTX_OK) {
        return MCMGPU_CMPL_DMA_FAULT;
    }
    return st;
}

static void mcmgpu_cp_free(MCMGPUState *s)
{
    g_free(s->cp);
    g_free(s->cp_arena);
    s->cp = NULL;
    s->cp_arena = NULL;
}

/* A refused reset changes nothing: the running sequence stays. */
static uint32_t mcmgpu_cp_reset(MCMGPUState *s, const struct cpe_record *r,
                                struct cpe_launch_result *res)
{
    struct cpe_config cfg;
    const char *why;

    if (!cpe_reset_check(r, &why)) {
        pstrcpy(res->error, sizeof(res->error), why);
        return MCMGPU_CMPL_BAD_LAUNCH;
    }
    if (r->chiplets > s->chiplets) {
        pstrcpy(res->error, sizeof(res->error),
                "chiplets: more than the device has");
        return MCMGPU_CMPL_BAD_LAUNCH;
    }
    mcmgpu_cp_free(s);
    cpe_config_defaults(&cfg, r->chiplets, r->policy, r->mem_bytes);
    s->cp = g_try_malloc0(sizeof(*s->cp));
    s->cp_arena = g_try_malloc0(cpe_arena_bytes(&cfg));
    if (!s->cp || !s->cp_arena) {
        mcmgpu_cp_free(s);
        return MCMGPU_CMPL_NO_MEMORY;
    }
    cpe_model_init(s->cp, &cfg, s->cp_arena);
    return MCMGPU_CMPL_OK;
}

/* One launch record through the global command processor model. */
static uint32_t mcmgpu_cp_launch(MCMGPUState *s, const uint64_t *args,
                                 uint64_t *cycles)
{
    g_autofree struct cpe_record *r = g_new0(struct cpe_record, 1);
    g_autofree struct cpe_launch_result *res =
        g_new0(struct cpe_launch_result, 1);
    uint64_t before = s->cp ? s->cp->stats.modeled_cycles : 0;
    struct cpe_error err;
    uint32_t st = MCMGPU_CMPL_OK;

    if (mcmgpu_host_read(s, args[0], r, sizeof(*r)) != MEMTX_OK) {
        return MCMGPU_CMPL_DMA_FAULT;
    }
    if (r->type == CPE_REC_RESET) {
        st = mcmgpu_cp_reset(s, r, res);
    } else if (!s->cp) {
        pstrcpy(res->error, sizeof(res->error),
                "type: no sequence (send a reset record first)");
        st = MCMGPU_CMPL_BAD_LAUNCH;
    } else if (cpe_record_check(s->cp, r, &err)) {
        res->error_arg = err.arg;
        res->error_value = err.value;
        pstrcpy(res->error, sizeof(res->error), err.what);
        st = MCMGPU_CMPL_BAD_LAUNCH;
    } else if (r->type == CPE_REC_END) {
        cpe_model_finish(s->cp);
    } else {
        cpe_model_record(s->cp, r);
    }
    if (s->cp) {
        res->stats = s->cp->stats;
        *cycles = s->cp->stats.modeled_cycles - before;
    }
    if (mcmgpu_host_write(s, args[1], res, sizeof(*res)) != MEMTX_OK) {
        return MCMGPU_CMPL_DMA_FAULT;
    }
    return st;
}

static uint32_t mcmgpu_execute(MCMGPUState *s, const struct mcmgpu_hw_cmd *cmd,
                               uint64_t *result, uint64_t *cycles)
{
    uint16_t opcode = le16_to_cpu(cmd->opcode);
    uint16_t flags = le16_to_cpu(cmd->flags);
    uint64_t args[ARRAY_SIZE(cmd->args)];
    size_t i;

    if (cmd->reserved) {
        return MCMGPU_CMPL_BAD_RESERVED;
    }
    for (i = 0; i < ARRAY_SIZE(args); i++) {
        args[i] = le64_to_cpu(cmd->args[i]);
    }
    switch (opcode) {
    case MCMGPU_OP_NOP:
        return flags ? MCMGPU_CMPL_BAD_FLAGS : MCMGPU_CMPL_OK;
    case MCMGPU_OP_DMA_COPY:
        return mcmgpu_do_dma(s, flags, args, result, cycles);
    case MCMGPU_OP_TRACE_LOAD:
        return flags ? MCMGPU_CMPL_BAD_FLAGS : mcmgpu_trace_load(s, args);
    case MCMGPU_OP_FINEPACK_RUN:
        return flags ? MCMGPU_CMPL_BAD_FLAGS :
               mcmgpu_finepack_run(s, args, result, cycles);
    case MCMGPU_OP_CP_LAUNCH:
        return flags ? MCMGPU_CMPL_BAD_FLAGS :
               mcmgpu_cp_launch(s, args, cycles);
    default:
        return MCMGPU_CMPL_BAD_OPCODE;
    }
}

/* Engine state of the previous reset generation goes; worker only. */
static void mcmgpu_engines_reset(MCMGPUState *s)
{
    mcmgpu_trace_free(s);
    mcmgpu_cp_free(s);
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
    if (!mcmgpu_ring_config_ok(s) || s->ring_head >= s->ring_size ||
        s->ring_tail >= s->ring_size) {
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
    uint64_t result = 0, cycles = 0;

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
          mcmgpu_execute(s, &cmd, &result, &cycles);
    trace_mcmgpu_cmd_done(job->slot, *st, result, cycles);
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
    cmpl.result = cpu_to_le64(result);
    cmpl.cycles = cpu_to_le64(cycles);
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
 */
static void *mcmgpu_worker(void *opaque)
{
    MCMGPUState *s = opaque;

    rcu_register_thread();
    qemu_mutex_lock(&s->lock);
    while (!s->worker_quit) {
        struct mcmgpu_job job;
        uint32_t st = MCMGPU_CMPL_OK;
        bool ok;

        if (s->engine_gen != s->reset_gen) {
            s->engine_gen = s->reset_gen;
            mcmgpu_engines_reset(s);
            continue;
        }
        if (!mcmgpu_claim(s, &job)) {
            qemu_cond_wait(&s->work_cond, &s->lock);
            continue;
        }
        s->worker_busy = true;
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
    }
    qemu_mutex_unlock(&s->lock);
    rcu_unregister_thread();
    return NULL;
}

/* s->lock held. */
static void mcmgpu_kick(MCMGPUState *s)
{
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

/* s->lock held. The worker drops engine state and any command in flight. */
static void mcmgpu_reset_regs(MCMGPUState *s)
{
    qatomic_inc(&s->reset_gen);
    trace_mcmgpu_reset(s->reset_gen);
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
        return MCMGPU_FEAT_DMA_COPY | MCMGPU_FEAT_FINEPACK |
               MCMGPU_FEAT_CPELIDE;
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
        if (val & 1) {
            mcmgpu_reset_regs(s);
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
    while (!running && s->worker_busy) {
        qemu_cond_wait(&s->idle_cond, &s->lock);
    }
    mcmgpu_kick(s);
    qemu_mutex_unlock(&s->lock);
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
    if (s->vram_per_chiplet < MCMGPU_MIN_VRAM_PER_CHIPLET ||
        s->vram_per_chiplet > MCMGPU_MAX_VRAM_PER_CHIPLET ||
        s->vram_per_chiplet % MCMGPU_MIN_VRAM_PER_CHIPLET) {
        error_setg(errp, "mcmgpu: vram-per-chiplet=%" PRIu64
                   " must be a multiple of 1 MiB in 1 MiB..1 GiB",
                   s->vram_per_chiplet);
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
    msix_vector_use(pdev, MCMGPU_MSIX_VEC_CMD);

    if (pcie_endpoint_cap_init(pdev, MCMGPU_PCIE_CAP_OFFSET) < 0) {
        error_setg(errp, "mcmgpu: cannot add the PCIe capability");
        msix_uninit(pdev, &s->bar0, &s->bar0);
        return;
    }

    s->irq_bh = qemu_bh_new_guarded(mcmgpu_irq_bh, s,
                                    &DEVICE(s)->mem_reentrancy_guard);
    qemu_mutex_init(&s->lock);
    qemu_cond_init(&s->work_cond);
    qemu_cond_init(&s->idle_cond);
    s->paused = !runstate_is_running();
    s->vm_change = qemu_add_vm_change_state_handler(mcmgpu_vm_change, s);
    qemu_thread_create(&s->worker, "mcmgpu", mcmgpu_worker, s,
                       QEMU_THREAD_JOINABLE);
}

static void mcmgpu_exit(PCIDevice *pdev)
{
    MCMGPUState *s = MCMGPU(pdev);

    qemu_mutex_lock(&s->lock);
    s->worker_quit = true;
    mcmgpu_kick(s);
    qemu_mutex_unlock(&s->lock);
    qemu_thread_join(&s->worker);
    qemu_del_vm_change_state_handler(s->vm_change);
    qemu_bh_delete(s->irq_bh);
    qemu_cond_destroy(&s->idle_cond);
    qemu_cond_destroy(&s->work_cond);
    qemu_mutex_destroy(&s->lock);
    mcmgpu_engines_reset(s);
    pcie_cap_exit(pdev);
    msix_uninit(pdev, &s->bar0, &s->bar0);
}

static void mcmgpu_reset(DeviceState *dev)
{
    MCMGPUState *s = MCMGPU(dev);

    qemu_mutex_lock(&s->lock);
    mcmgpu_reset_regs(s);
    qemu_mutex_unlock(&s->lock);
    msix_reset(PCI_DEVICE(s));
    msix_vector_use(PCI_DEVICE(s), MCMGPU_MSIX_VEC_CMD);
}

static int mcmgpu_post_load(void *opaque, int version_id)
{
    MCMGPUState *s = opaque;

    if ((s->ring_ctrl & MCMGPU_RING_CTRL_ENABLE) &&
        (!mcmgpu_ring_config_ok(s) || s->ring_head >= s->ring_size ||
         s->ring_tail >= s->ring_size)) {
        return -EINVAL;
    }
    qemu_mutex_lock(&s->lock);
    mcmgpu_kick(s);
    qemu_mutex_unlock(&s->lock);
    return 0;
}

static const VMStateDescription vmstate_mcmgpu = {
    .name = "mcmgpu",
    .version_id = 1,
    .minimum_version_id = 1,
    .post_load = mcmgpu_post_load,
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
        VMSTATE_END_OF_LIST()
    },
};

static Property mcmgpu_properties[] = {
    DEFINE_PROP_UINT32("chiplets", MCMGPUState, chiplets,
                       MCMGPU_DEFAULT_CHIPLETS),
    DEFINE_PROP_SIZE("vram-per-chiplet", MCMGPUState, vram_per_chiplet,
                     MCMGPU_DEFAULT_VRAM_PER_CHIPLET),
    DEFINE_PROP_END_OF_LIST(),
};

static void mcmgpu_class_init(ObjectClass *klass, void *data)
{
    DeviceClass *dc = DEVICE_CLASS(klass);
    PCIDeviceClass *k = PCI_DEVICE_CLASS(klass);

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
