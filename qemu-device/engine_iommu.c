/*
 * mcmgpu IOMMU window: the ATS rings between the chiplets and the IOMMU
 * (barre_iommu.ko), as a device trades ATS requests with its IOMMU's
 * queues. The IOMMU owns the rings (struct mcmgpu_ats_ring, in guest
 * memory) and gives their address in the window; the engines that run
 * chiplets (engine_barre.c, engine_gpu.c) call mcmgpu_ats_exchange() after
 * each epoch: the epoch's requests go out as one batch, the window's ATS
 * event is raised unless the IOMMU polls, and the command waits for the
 * IOMMU's doorbell. Everything the IOMMU writes is checked here before an
 * engine sees it; a bad index or status fails the command, and the next
 * START batch begins the rings again at 0.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/log.h"
#include "qemu/cutils.h"
#include "qemu/thread.h"
#include "qapi/error.h"
#include "mcmgpu_engine.h"
#include "mcmgpu_barre.h"
#include "trace.h"

#define ATS_RING_MASK   (MCMGPU_ATS_RING_ENTRIES - 1)

typedef struct MCMGPUIommu {
    MCMGPUState *s;
    QemuMutex lock;         /* below; taken inside the device lock */
    uint64_t ring;          /* guest-physical struct mcmgpu_ats_ring */
    uint32_t ctrl;          /* MCMGPU_IOMMU_CTRL_ENABLE */
    uint64_t batch_seq;     /* batches posted since the enable */
    uint32_t rung;          /* the IOMMU's last doorbell value */
    bool busy;              /* a command is reading or writing the rings */
    uint32_t req_tail;      /* the device's indices */
    uint32_t resp_head;
} MCMGPUIommu;

QEMU_BUILD_BUG_ON(MCMGPU_ATS_RING_ENTRIES & ATS_RING_MASK);
QEMU_BUILD_BUG_ON(MCMGPU_ATS_QUEUE_ENTRIES >= MCMGPU_ATS_RING_ENTRIES);

static void *iommu_realize(MCMGPUState *s, PCIDevice *pdev, MemoryRegion *bar0,
                           Error **errp)
{
    MCMGPUIommu *im = g_new0(MCMGPUIommu, 1);

    im->s = s;
    qemu_mutex_init(&im->lock);
    return im;
}

static void iommu_dev_reset(void *state)
{
    MCMGPUIommu *im = state;

    qemu_mutex_lock(&im->lock);
    im->ring = 0;
    im->ctrl = 0;
    im->batch_seq = 0;
    im->rung = 0;
    im->req_tail = 0;
    im->resp_head = 0;
    qemu_mutex_unlock(&im->lock);
}

static void iommu_dev_exit(void *state)
{
    MCMGPUIommu *im = state;

    qemu_mutex_destroy(&im->lock);
    g_free(im);
}

static MCMGPUIommu *iommu_of(MCMGPUState *s)
{
    return mcmgpu_engine_dev(s, &mcmgpu_iommu_engine);
}

/* Device lock held. */
static uint64_t iommu_window_read(MCMGPUState *s, hwaddr off)
{
    MCMGPUIommu *im = iommu_of(s);
    uint64_t val = 0;

    qemu_mutex_lock(&im->lock);
    switch (off) {
    case MCMGPU_IOMMU_RING_LO:
        val = (uint32_t)im->ring;
        break;
    case MCMGPU_IOMMU_RING_HI:
        val = im->ring >> 32;
        break;
    case MCMGPU_IOMMU_CTRL:
        val = im->ctrl | (im->busy ? MCMGPU_IOMMU_CTRL_BUSY : 0);
        break;
    case MCMGPU_IOMMU_BATCHES:
        val = (uint32_t)im->batch_seq;
        break;
    default:
        qemu_log_mask(LOG_GUEST_ERROR, "mcmgpu: read of unknown IOMMU "
                      "register 0x%" HWADDR_PRIx "\n", off);
        break;
    }
    qemu_mutex_unlock(&im->lock);
    return val;
}

/* Device lock held. */
static void iommu_window_write(MCMGPUState *s, hwaddr off, uint64_t val)
{
    MCMGPUIommu *im = iommu_of(s);

    qemu_mutex_lock(&im->lock);
    switch (off) {
    case MCMGPU_IOMMU_RING_LO:
    case MCMGPU_IOMMU_RING_HI:
        if (im->ctrl & MCMGPU_IOMMU_CTRL_ENABLE) {
            qemu_log_mask(LOG_GUEST_ERROR, "mcmgpu: IOMMU ring address "
                          "written while enabled, ignored\n");
        } else if (off == MCMGPU_IOMMU_RING_LO) {
            im->ring = deposit64(im->ring, 0, 32, val);
        } else {
            im->ring = deposit64(im->ring, 32, 32, val);
        }
        break;
    case MCMGPU_IOMMU_CTRL:
        if ((val & MCMGPU_IOMMU_CTRL_ENABLE) &&
            !(im->ctrl & MCMGPU_IOMMU_CTRL_ENABLE)) {
            im->batch_seq = 0;
            im->rung = 0;
            im->req_tail = 0;
            im->resp_head = 0;
        }
        im->ctrl = val & MCMGPU_IOMMU_CTRL_ENABLE;
        mcmgpu_cmd_wake(s);     /* a disable ends a wait */
        break;
    case MCMGPU_IOMMU_DOORBELL:
        im->rung = val;
        mcmgpu_cmd_wake(s);
        break;
    default:
        qemu_log_mask(LOG_GUEST_ERROR, "mcmgpu: write of unknown IOMMU "
                      "register 0x%" HWADDR_PRIx "\n", off);
        break;
    }
    qemu_mutex_unlock(&im->lock);
}

/* The rings' address for one access, or 0 (and busy unchanged) if off. */
static uint64_t iommu_claim(MCMGPUIommu *im)
{
    uint64_t ring = 0;

    qemu_mutex_lock(&im->lock);
    if (im->ctrl & MCMGPU_IOMMU_CTRL_ENABLE) {
        ring = im->ring;
        im->busy = true;
    }
    qemu_mutex_unlock(&im->lock);
    return ring;
}

static void iommu_release(MCMGPUIommu *im)
{
    qemu_mutex_lock(&im->lock);
    im->busy = false;
    qemu_mutex_unlock(&im->lock);
}

typedef struct IommuWait {
    MCMGPUIommu *im;
    uint64_t ring;
    uint64_t seq;
    uint64_t before;        /* answered_seq when the batch was posted */
    bool polling;           /* device_polling is set in the ring */
} IommuWait;

#define RING_FIELD(ring, f) ((ring) + offsetof(struct mcmgpu_ats_ring, f))

/*
 * No lock held: the IOMMU wrote answered_seq since the batch was posted
 * (a wrong value too: the header's check then refuses it).
 */
static bool iommu_answer_written(void *opaque)
{
    IommuWait *w = opaque;
    uint64_t seq;

    if (mcmgpu_host_read(w->im->s, RING_FIELD(w->ring, answered_seq), &seq,
                         sizeof(seq)) != MEMTX_OK) {
        return false;   /* the wait that follows says why */
    }
    seq = le64_to_cpu(seq);
    return seq == w->seq || seq != w->before;
}

/*
 * Device lock held, the VM running: the batch answered, or the rings
 * turned off. The IOMMU rings the doorbell only when device_polling is
 * clear; so the first look clears it, then reads answered_seq: either the
 * IOMMU saw it cleared and rings, or this read sees its answer.
 */
static bool iommu_answered(void *opaque)
{
    IommuWait *w = opaque;
    uint32_t zero = 0;
    bool done;

    /* Rings turned off or moved (under the device lock, as here) end it. */
    qemu_mutex_lock(&w->im->lock);
    done = !(w->im->ctrl & MCMGPU_IOMMU_CTRL_ENABLE) ||
           w->im->ring != w->ring || w->im->rung == (uint32_t)w->seq;
    qemu_mutex_unlock(&w->im->lock);
    if (done || !w->polling) {
        return done;
    }
    w->polling = false;
    mcmgpu_host_write(w->im->s, RING_FIELD(w->ring, device_polling), &zero,
                      sizeof(zero));
    /* Pairs with the IOMMU's barrier between answered_seq and a look. */
    smp_mb();
    return iommu_answer_written(w);
}

/* n entries of size bytes from index i on, wrapping at the ring's end. */
static MemTxResult ring_copy(MCMGPUState *s, uint64_t base, uint32_t i,
                             void *buf, uint32_t n, size_t size, bool write)
{
    uint32_t first = MIN(n, MCMGPU_ATS_RING_ENTRIES - i);
    MemTxResult r;

    r = write ? mcmgpu_host_write(s, base + i * size, buf, first * size) :
                mcmgpu_host_read(s, base + i * size, buf, first * size);
    if (r != MEMTX_OK || first == n) {
        return r;
    }
    buf = (uint8_t *)buf + first * size;
    return write ? mcmgpu_host_write(s, base, buf, (n - first) * size) :
                   mcmgpu_host_read(s, base, buf, (n - first) * size);
}

static uint32_t ats_fail(char *why, size_t len, uint32_t st, const char *msg)
{
    qemu_log_mask(LOG_GUEST_ERROR, "mcmgpu: ATS rings: %s\n", msg);
    pstrcpy(why, len, msg);
    return st;
}

uint32_t mcmgpu_ats_exchange(MCMGPUState *s, uint32_t pasid, uint32_t flags,
                             uint64_t horizon,
                             const struct mcmgpu_ats_request *req,
                             uint32_t nreq, struct mcmgpu_ats_response *rsp,
                             uint32_t *nresp, uint64_t *next_event,
                             char *why, size_t why_len)
{
    MCMGPUIommu *im = iommu_of(s);
    struct mcmgpu_ats_ring hdr;
    IommuWait w = { .im = im };
    uint32_t tail, head, n, polling = 0;
    uint64_t ring;
    int32_t status;

    *nresp = 0;
    if (nreq > MCMGPU_ATS_QUEUE_ENTRIES) {
        return ats_fail(why, why_len, MCMGPU_CMPL_NO_MEMORY,
                        "more requests than a batch holds");
    }
    ring = iommu_claim(im);
    if (!ring) {
        return ats_fail(why, why_len, MCMGPU_CMPL_NO_IOMMU,
                        "no IOMMU: the rings are not enabled "
                        "(barre_iommu.ko not bound)");
    }
    if (flags & MCMGPU_ATS_BATCH_START) {
        im->req_tail = 0;       /* worker only, like busy's owner */
        im->resp_head = 0;
    }
    tail = (im->req_tail + nreq) & ATS_RING_MASK;
    memset(&hdr, 0, sizeof(hdr));
    hdr.batch_seq = cpu_to_le64(++im->batch_seq);
    hdr.horizon = cpu_to_le64(horizon);
    hdr.pasid = cpu_to_le32(pasid);
    hdr.flags = cpu_to_le32(flags);
    hdr.req_tail = cpu_to_le32(tail);
    hdr.resp_head = cpu_to_le32(im->resp_head);
    w.polling = mcmgpu_cmd_spin_ns(s) > 0;
    hdr.device_polling = cpu_to_le32(w.polling);
    w.seq = im->batch_seq;
    w.ring = ring;
    if (mcmgpu_host_read(s, RING_FIELD(ring, answered_seq), &w.before,
                         sizeof(w.before)) != MEMTX_OK) {
        iommu_release(im);
        return ats_fail(why, why_len, MCMGPU_CMPL_DMA_FAULT,
                        "the ring header is not readable");
    }
    w.before = le64_to_cpu(w.before);
    /* The requests, then the batch, then its sequence number. */
    if (ring_copy(s, RING_FIELD(ring, req), im->req_tail, (void *)req, nreq,
                  sizeof(*req), true) != MEMTX_OK ||
        mcmgpu_host_write(s, RING_FIELD(ring, horizon), &hdr.horizon,
                          offsetof(struct mcmgpu_ats_ring, answered_seq) -
                          offsetof(struct mcmgpu_ats_ring, horizon))
        != MEMTX_OK) {
        iommu_release(im);
        return ats_fail(why, why_len, MCMGPU_CMPL_DMA_FAULT,
                        "the request ring is not writable");
    }
    smp_wmb();      /* the batch before its sequence number */
    if (mcmgpu_host_write(s, RING_FIELD(ring, batch_seq), &hdr.batch_seq,
                          sizeof(hdr.batch_seq)) != MEMTX_OK) {
        iommu_release(im);
        return ats_fail(why, why_len, MCMGPU_CMPL_DMA_FAULT,
                        "the request ring is not writable");
    }
    im->req_tail = tail;
    /* Pairs with the IOMMU's barrier between clearing polling and a look. */
    smp_mb();
    if (mcmgpu_host_read(s, RING_FIELD(ring, polling), &polling,
                         sizeof(polling)) != MEMTX_OK || !polling) {
        mcmgpu_window_raise(s, MCMGPU_WINDOW_IOMMU, MCMGPU_WIN_IRQ_ATS);
    }
    iommu_release(im);
    trace_mcmgpu_ats_batch(pasid, w.seq, nreq, flags, horizon);

    /*
     * Poll for an answer that comes sooner than a thread wake-up, but
     * only while the IOMMU polls too: one that sleeps answers after an
     * interrupt, and on a busy host a spin here would take the CPU its
     * vCPU needs. See iommu_answered for the mark's end.
     */
    if (!(polling && mcmgpu_cmd_spin(s, iommu_answer_written, &w)) &&
        !mcmgpu_cmd_wait(s, iommu_answered, &w)) {
        return ats_fail(why, why_len, MCMGPU_CMPL_NO_IOMMU,
                        "no answer from the IOMMU (a reset, or "
                        "sync-commands=on)");
    }
    ring = iommu_claim(im);
    if (!ring) {
        return ats_fail(why, why_len, MCMGPU_CMPL_NO_IOMMU,
                        "the IOMMU turned the rings off before answering");
    }
    if (mcmgpu_host_read(s, ring, &hdr, offsetof(struct mcmgpu_ats_ring, req))
        != MEMTX_OK) {
        iommu_release(im);
        return ats_fail(why, why_len, MCMGPU_CMPL_DMA_FAULT,
                        "the ring header is not readable");
    }
    smp_rmb();      /* the answers after the header that names them */
    head = le32_to_cpu(hdr.req_head);
    tail = le32_to_cpu(hdr.resp_tail);
    status = le32_to_cpu(hdr.status);
    if (le64_to_cpu(hdr.answered_seq) != w.seq || head != im->req_tail ||
        tail >= MCMGPU_ATS_RING_ENTRIES) {
        iommu_release(im);
        snprintf(why, why_len, "answered_seq %" PRIu64 " (batch %" PRIu64
                 "), req_head %u (req_tail %u) or resp_tail %u (ring of %u)"
                 " wrong", le64_to_cpu(hdr.answered_seq), w.seq, head,
                 im->req_tail, tail, MCMGPU_ATS_RING_ENTRIES);
        qemu_log_mask(LOG_GUEST_ERROR, "mcmgpu: ATS rings: %s\n", why);
        return MCMGPU_CMPL_BAD_ATS_RESPONSE;
    }
    if (status) {
        iommu_release(im);
        snprintf(why, why_len, "status: the IOMMU refused batch %" PRIu64
                 " (%d)", w.seq, status);
        qemu_log_mask(LOG_GUEST_ERROR, "mcmgpu: ATS rings: %s\n", why);
        return MCMGPU_CMPL_BAD_ATS_RESPONSE;
    }
    n = (tail - im->resp_head) & ATS_RING_MASK;
    if (n > MCMGPU_ATS_QUEUE_ENTRIES) {
        iommu_release(im);
        return ats_fail(why, why_len, MCMGPU_CMPL_BAD_ATS_RESPONSE,
                        "resp_tail: more answers than a batch holds");
    }
    if (ring_copy(s, RING_FIELD(ring, resp), im->resp_head, rsp, n,
                  sizeof(*rsp), false) != MEMTX_OK) {
        iommu_release(im);
        return ats_fail(why, why_len, MCMGPU_CMPL_DMA_FAULT,
                        "the response ring is not readable");
    }
    im->resp_head = tail;
    iommu_release(im);
    *nresp = n;
    *next_event = le64_to_cpu(hdr.next_event);
    return MCMGPU_CMPL_OK;
}

/*
 * The window barre_iommu.ko binds to, with its own MSI-X vector: the
 * common registers and the ATS rings'.
 */
const MCMGPUEngine mcmgpu_iommu_engine = {
    .name = "iommu",
    .not_migrated = "the rings start again at the next START batch; a run "
                    "in flight fails",
    .window = MCMGPU_WINDOW_IOMMU,
    .window_ident = 0x554d4f49,     /* "IOMU", little-endian */
    .window_read = iommu_window_read,
    .window_write = iommu_window_write,
    .dev_realize = iommu_realize,
    .dev_reset = iommu_dev_reset,
    .dev_exit = iommu_dev_exit,
};
