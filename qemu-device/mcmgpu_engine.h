/*
 * mcmgpu device engines: how a mechanism plugs into the device.
 *
 * The core (mcmgpu.c) keeps PCI, the BARs, the command ring, interrupts,
 * contexts and migration. Each mechanism is an engine in its own file: its
 * commands, its per-context state, its reset, its migration and optionally
 * a 4 KiB register window of BAR0. Adding one is its file plus one line in
 * the engine table of mcmgpu.c.
 *
 * Commands run in the device's worker thread, never under the BQL; they
 * reach guest RAM and GPU memory only through the accessors below.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef HW_MCMGPU_ENGINE_H
#define HW_MCMGPU_ENGINE_H

#include "exec/memory.h"
#include "hw/pci/pci.h"
#include "migration/vmstate.h"
#include "mcmgpu_hw.h"
#include "mcmgpu_cmd.h"

typedef struct MCMGPUState MCMGPUState;
typedef struct MCMGPUContext MCMGPUContext;
typedef struct MCMGPUEngine MCMGPUEngine;

/* What a command handler returns besides its MCMGPU_CMPL_* status. */
typedef struct MCMGPUCmdOut {
    uint64_t result;        /* opcode specific */
    uint64_t cycles;        /* modeled device cycles */
} MCMGPUCmdOut;

typedef struct MCMGPUCommand {
    uint16_t opcode;
    const char *name;
    uint16_t flags;         /* the flags it accepts; others: BAD_FLAGS */
    bool context;           /* needs a live context in the descriptor */
    /* ctx is NULL for commands without a context. */
    uint32_t (*run)(MCMGPUState *s, MCMGPUContext *ctx, uint16_t flags,
                    const uint64_t *args, MCMGPUCmdOut *out);
} MCMGPUCommand;

struct MCMGPUEngine {
    const char *name;
    uint32_t feature;               /* MCMGPU_FEAT_* bit, 0 for none */
    const MCMGPUCommand *commands;  /* ends with an entry whose name is NULL */
    /* Per-context state, made at CTX_CREATE, freed at destroy or reset. */
    void *(*ctx_new)(MCMGPUState *s);
    void (*ctx_free)(MCMGPUState *s, void *state);
    /* Migration: a VMState subsection, or why the engine needs none. */
    const VMStateDescription *vmsd;
    const char *not_migrated;
    /* Optional BAR0 window MCMGPU_WINDOW(window); -1 for none. */
    int window;
    uint32_t window_ident;          /* 4 ASCII bytes, little-endian */
    /* Registers from MCMGPU_WIN_ENGINE on, under the device lock. */
    uint64_t (*window_read)(MCMGPUState *s, hwaddr off);
    void (*window_write)(MCMGPUState *s, hwaddr off, uint64_t val);
    /*
     * Optional device-wide state (mcmgpu_engine_dev), made at realize
     * after the core's capabilities: it may add BAR0 subregions, BARs and
     * config-space capabilities. Reset with the device (a system reset or
     * MCMGPU_RESET_DEVICE), under the BQL and the device lock.
     */
    void *(*dev_realize)(MCMGPUState *s, PCIDevice *pdev, MemoryRegion *bar0,
                         Error **errp);
    void (*dev_reset)(void *state);
    void (*dev_exit)(void *state);
};

/* The engine's dev_realize result. */
void *mcmgpu_engine_dev(MCMGPUState *s, const MCMGPUEngine *e);

/* The CXL root complex's properties (engine_cxl_rc.c checks them). */
typedef struct MCMGPUCxlConfig {
    uint32_t ports;
    uint32_t hb_decoders;   /* the host bridge's, as the capability says */
    char *media;            /* one name, or one per port, comma separated */
    char *capacity;         /* likewise, sizes */
    uint32_t commit_us;
    uint64_t aperture;      /* BAR4's size at most */
} MCMGPUCxlConfig;
const MCMGPUCxlConfig *mcmgpu_cxl_config(MCMGPUState *s);

/* ADSM's modeled copy engine (properties adsm-dma-setup, adsm-dma-bw). */
typedef struct MCMGPUAdsmConfig {
    uint32_t dma_setup;     /* cycles per transfer */
    uint32_t dma_bw;        /* bytes per cycle, >= 1 */
} MCMGPUAdsmConfig;
const MCMGPUAdsmConfig *mcmgpu_adsm_config(MCMGPUState *s);

/* A GPU program's bytes at most (property gpu-program-max-mib). */
uint64_t mcmgpu_gpu_program_max(MCMGPUState *s);

/* The engine's state in this context (its ctx_new result). */
void *mcmgpu_ctx_state(MCMGPUContext *ctx, const MCMGPUEngine *e);
/* Its id, 1..contexts: also its address space's PASID. */
uint32_t mcmgpu_ctx_id(MCMGPUContext *ctx);
/* ATS Enable in the device's ATS capability: translations may be asked. */
bool mcmgpu_ats_enabled(MCMGPUState *s);

const struct mcmgpu_geometry *mcmgpu_geometry(MCMGPUState *s);

/*
 * Guest RAM, for descriptors, results and data: MEMTX_OK, or an error when
 * the range wraps or is not all RAM (the device masters only memory).
 */
/*
 * The leaf PTE of vpn in the GPU page table (uapi/mcmgpu_hw.h) whose root
 * is at guest-physical root; 0 when none or a table is not readable.
 */
uint64_t mcmgpu_guest_pt_walk(MCMGPUState *s, uint64_t root, uint64_t vpn);
MemTxResult mcmgpu_host_read(MCMGPUState *s, uint64_t addr, void *buf,
                             uint64_t len);
MemTxResult mcmgpu_host_write(MCMGPUState *s, uint64_t addr,
                              const void *buf, uint64_t len);

/*
 * GPU memory, the one way engines reach it: the range is checked here
 * against the chiplet memories; false when it does not fit.
 */
bool mcmgpu_gpu_write(MCMGPUState *s, uint64_t gpa, const void *buf,
                      uint64_t len);
bool mcmgpu_gpu_read(MCMGPUState *s, uint64_t gpa, void *buf, uint64_t len);
/*
 * For many small writes in one command: mcmgpu_gpu_write without the
 * dirty marking, which the caller does once with mcmgpu_gpu_dirty over
 * what it wrote before the command completes.
 */
bool mcmgpu_gpu_write_undirtied(MCMGPUState *s, uint64_t gpa,
                                const void *buf, uint64_t len);
void mcmgpu_gpu_dirty(MCMGPUState *s, uint64_t gpa, uint64_t len);
/* Between guest RAM and GPU memory; a MCMGPU_CMPL_* status. */
uint32_t mcmgpu_gpu_host_copy(MCMGPUState *s, uint64_t gpa, uint64_t host,
                              uint64_t len, bool to_host);

/*
 * Host memory an engine allocates for the guest (traces, models) is charged
 * against the device's budget (property mem-budget): false when it would
 * pass it, and the command then fails with NO_MEMORY instead of letting a
 * guest grow QEMU until the host kills it.
 */
bool mcmgpu_mem_charge(MCMGPUState *s, uint64_t bytes);
void mcmgpu_mem_uncharge(MCMGPUState *s, uint64_t bytes);

/*
 * From a command: wait until done(opaque) holds (called under the device
 * lock, at each mcmgpu_cmd_wake). False when a reset, the device's exit,
 * or sync-commands=on (no thread to wait in) ends the wait first. While a
 * command waits, a VM stop does not wait for it, and it does not go on
 * before the VM runs again, so guest memory does not change while stopped.
 */
bool mcmgpu_cmd_wait(MCMGPUState *s, bool (*done)(void *opaque),
                     void *opaque);
/*
 * From a command, before mcmgpu_cmd_wait: poll peek(opaque) (no lock held)
 * for up to mcmgpu_cmd_spin_ns() of host time (property cmd-spin-us), for
 * an answer that comes sooner than a thread wake-up. True when it held;
 * false at the deadline, or when a reset, the device's exit, a VM stop or
 * sync-commands=on ends it first. A VM stop waits for it, at most that.
 */
#define MCMGPU_DEFAULT_CMD_SPIN_US 100
int64_t mcmgpu_cmd_spin_ns(MCMGPUState *s);
bool mcmgpu_cmd_spin(MCMGPUState *s, bool (*peek)(void *opaque),
                     void *opaque);
/* Wake waiting commands: from window_write (the device lock is held). */
void mcmgpu_cmd_wake(MCMGPUState *s);

/*
 * One batch over the IOMMU's ATS rings (engine_iommu.c): post nreq
 * requests of pasid with the horizon and flags (MCMGPU_ATS_BATCH_*), wait
 * for the IOMMU, and take its answers (at most MCMGPU_ATS_QUEUE_ENTRIES)
 * into rsp and its next event into *next_event. A MCMGPU_CMPL_* status;
 * on an error, why says what was wrong.
 */
uint32_t mcmgpu_ats_exchange(MCMGPUState *s, uint32_t pasid, uint32_t flags,
                             uint64_t horizon,
                             const struct mcmgpu_ats_request *req,
                             uint32_t nreq, struct mcmgpu_ats_response *rsp,
                             uint32_t *nresp, uint64_t *next_event,
                             char *why, size_t why_len);

/* Raise window events and its vector; from handlers (lock not held). */
void mcmgpu_window_raise(MCMGPUState *s, int window, uint32_t bits);

/*
 * An ATS response (uapi/mcmgpu_barre.h) as the chiplet TLBs' reply
 * (model/chiplet_tlb.h), for the engines that run chiplets (engine_barre.c).
 */
struct mcmgpu_ats_response;
struct chiplet_tlb_reply;
void mcmgpu_ats_reply(struct chiplet_tlb_reply *r,
                      const struct mcmgpu_ats_response *rsp,
                      uint64_t pcie_cycles, uint32_t pasid);

extern const MCMGPUEngine mcmgpu_dma_engine;
extern const MCMGPUEngine mcmgpu_finepack_engine;
extern const MCMGPUEngine mcmgpu_cpelide_engine;
extern const MCMGPUEngine mcmgpu_iommu_engine;
extern const MCMGPUEngine mcmgpu_barre_engine;
extern const MCMGPUEngine mcmgpu_cxl_rc_engine;
extern const MCMGPUEngine mcmgpu_adsm_engine;
extern const MCMGPUEngine mcmgpu_gpu_engine;

#endif /* HW_MCMGPU_ENGINE_H */
