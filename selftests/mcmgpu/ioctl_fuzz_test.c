// SPDX-License-Identifier: GPL-2.0
/*
 * A structured ioctl fuzzer in syzkaller's spirit (issue 9): several
 * processes share and reopen /dev/mcmgpu0 and issue every ioctl of the
 * driver's table, and random ioctl numbers, with valid, mutated and
 * hostile arguments: sizes around each struct's published sizes, unknown
 * non-zero tails, NULL, unmapped, read-only and page-crossing pointers,
 * FinePack traces, CPElide records and Barre phases half valid, ADSM
 * objects mapped (whole, in part, at wrong offsets) and touched while
 * others launch, sync and free them. Siblings send each other
 * signals during waits and one is killed and replaced now and then. Every
 * call must return 0 or a documented errno; every 200 operations a health
 * check (GET_INFO, a DMA round trip) must pass. Now and then a process
 * forks with the device open and the child calls on the shared files.
 * gpu_rc.ko's /dev/mcmgpu_cxl0 gets its ioctls too: layouts half valid
 * (never locked), decodes anywhere, teardowns and hostile replays; after
 * the run the default layout must set up and decode. A kernel report fails the
 * guest run (tools/guest/init). MCMGPU_FUZZ_OPS sets the operations per
 * process (default 2000), MCMGPU_FUZZ_SEED the seed.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <stddef.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "../lib/mcmgpu_test.h"
#include "fp_trace.h"
#include "mcmgpu_adsm.h"
#include "mcmgpu_barre.h"
#include "mcmgpu_cxl.h"
#include "mcmgpu_gpu.h"

#define PROCS 3
#define PAGE 4096
/* GPU memory the health checks own: 8 KiB for each process. */
#define HEALTH_BYTES (8 * 8192)

struct arena {
	uint8_t *rw;		/* 4 pages, read-write */
	uint8_t *ro;		/* 1 page, read-only */
	uint8_t *edge;		/* last page before a PROT_NONE page */
	uint8_t *gone;		/* unmapped */
	uint8_t *trace;		/* a valid FinePack trace */
	size_t trace_len;
};

static uint64_t rng;
/* Each worker's /dev/mcmgpu_cxl0, -1 without gpu_rc.ko. */
static int cxl_fd = -1;

static uint64_t rnd(void)
{
	return mt_xorshift64(&rng);
}

static void on_signal(int sig)
{
	(void)sig;
}

/* A pointer of a random class, for an object of n bytes. */
static uint64_t ptr_for(struct arena *a, size_t n)
{
	switch (rnd() % 8) {
	case 0:
		return 0;
	case 1:
		return (uintptr_t)a->gone;
	case 2:
		return (uintptr_t)a->ro;
	case 3:	/* crosses into the PROT_NONE page */
		return (uintptr_t)a->edge + PAGE - (n > 8 ? n / 2 : 4);
	case 4:	/* kernel space: never ours to hand over */
		return 0xffff800000000000ULL | rnd();
	default:
		return (uintptr_t)a->rw + (rnd() % 2 ? 0 : PAGE);
	}
}

static uint32_t size_near(uint32_t size)
{
	switch (rnd() % 6) {
	case 0:
		return rnd() % 4096;
	case 1:
		return size - 8 + rnd() % 17;
	case 2:
		return UINT32_MAX - rnd() % 4;
	default:
		return size;
	}
}

/*
 * Flips one bit, now and then, outside the struct's pointer fields (their
 * offsets, 8 bytes each, up to two): a flipped user pointer may land in
 * this process's own stack or libc's data, and the kernel would rightly
 * write there. Pointers get their hostile values from ptr_for() instead.
 */
static void mutate_ptrs(void *obj, size_t n, long p1, long p2)
{
	size_t at = rnd() % n;

	if (rnd() % 3)
		return;
	if ((p1 >= 0 && at >= (size_t)p1 && at < (size_t)p1 + 8) ||
	    (p2 >= 0 && at >= (size_t)p2 && at < (size_t)p2 + 8))
		return;
	((uint8_t *)obj)[at] ^= 1 << (rnd() % 8);
}

static void mutate(void *obj, size_t n)
{
	mutate_ptrs(obj, n, -1, -1);
}

/* The struct goes where the ioctl argument pointer says, if it can. */
static void *place(struct arena *a, uint64_t *arg, const void *obj, size_t n)
{
	uint8_t *p = a->rw + 2 * PAGE;

	switch (rnd() % 10) {
	case 0:
		*arg = ptr_for(a, n);
		return NULL;
	case 1:	/* page-crossing: the tail falls into PROT_NONE */
		p = a->edge + PAGE - n / 2;
		memcpy(p, obj, n / 2);
		*arg = (uintptr_t)p;
		return p;
	default:
		memcpy(p, obj, n);
		/* An unknown tail, zero or not, for the size checks. */
		memset(p + n, rnd() % 2 ? 0 : 0xff, 64);
		*arg = (uintptr_t)p;
		return p;
	}
}

/* ADSM objects this process allocated (on any of its files). */
static struct { uint64_t offset, va, bytes; } shared[16];
static sigjmp_buf touch_jmp;

static void on_touch_fault(int sig)
{
	siglongjmp(touch_jmp, 1);
}

/*
 * Maps one of the shared objects (or a wrong range of it) and touches it;
 * a SIGSEGV (freed meanwhile, by us or a sibling sharing the file) or a
 * SIGBUS (its transfer refused) is an answer, not a failure.
 */
static void adsm_touch(int fd)
{
	struct sigaction sa = { .sa_handler = on_touch_fault }, old_segv, old_bus;
	unsigned int k = rnd() % 16;
	uint64_t bytes = shared[k].bytes, off = shared[k].offset;
	volatile uint8_t *p;
	uint64_t i;

	if (!bytes || rnd() % 8 == 0) {
		bytes = (1 + rnd() % 16) * PAGE;
		off = rnd() % 2 ? off + PAGE * (rnd() % 4) : rnd() & ~(PAGE - 1ULL);
	}
	p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, off);
	if (p == MAP_FAILED)
		return;
	sigaction(SIGSEGV, &sa, &old_segv);
	sigaction(SIGBUS, &sa, &old_bus);
	if (!sigsetjmp(touch_jmp, 1)) {
		for (i = 0; i < 1 + rnd() % 8; i++) {
			uint64_t at = rnd() % bytes;

			if (rnd() % 2)
				p[at] ^= 1;
			else
				(void)p[at];
		}
		if (rnd() % 4 == 0)	/* part of it goes, the rest stays */
			munmap((void *)p, PAGE);
	}
	sigaction(SIGSEGV, &old_segv, NULL);
	sigaction(SIGBUS, &old_bus, NULL);
	munmap((void *)p, bytes);
}

/* A region near the window, each field now and then wild. */
static void cxl_region(struct mcmgpu_cxl_region *r, unsigned int i)
{
	const uint64_t unit = 256ULL << 20;
	unsigned int k;

	r->ways = rnd() % 8 ? 1u << rnd() % 4 : (uint32_t)rnd();
	r->granularity = rnd() % 8 ? 256u << rnd() % 7 : (uint32_t)rnd();
	r->base = rnd() % 8 ? MCMGPU_CXL_WINDOW_BASE + (i + rnd() % 4) * unit :
		  rnd() % 2 ? MCMGPU_CXL_WINDOW_BASE + rnd() % (1ULL << 32) : rnd();
	r->size = rnd() % 8 ? (1 + rnd() % 2) * unit * (r->ways % 16) :
		  rnd() % 2 ? rnd() % (4ULL << 30) : rnd();
	for (k = 0; k < MCMGPU_CXL_MAX_PORTS; k++)
		r->ports[k] = rnd() % 8 ? (k + i + rnd() % 2) % 4 : (uint8_t)rnd();
}

/* One call on gpu_rc's control device: 0, or a documented refusal. */
static int cxl_op(struct arena *a)
{
	union {
		struct mcmgpu_cxl_info info;
		struct mcmgpu_cxl_setup setup;
		struct mcmgpu_cxl_decode decode;
		struct mcmgpu_cxl_replay replay;
	} u;
	struct mcmgpu_cxl_decoders *decs;
	uint64_t arg;
	unsigned long cmd;
	unsigned int i;

	memset(&u, 0, sizeof(u));
	switch (rnd() % 7) {
	case 0:
		cmd = MCMGPU_CXL_IOCTL_INFO;
		arg = ptr_for(a, sizeof(u.info));
		break;
	case 1:
		/* Too large for the arena: its own buffer, or a bad pointer. */
		decs = malloc(sizeof(*decs));
		if (!decs)
			return 0;
		i = ioctl(cxl_fd, MCMGPU_CXL_IOCTL_DECODERS,
			  rnd() % 4 ? (void *)decs : (void *)(uintptr_t)ptr_for(a, 64));
		free(decs);
		return i && errno != EFAULT && errno != EINTR ? -errno : 0;
	case 2:
	case 3:
		u.setup.flags = rnd() % 16 ? 0 : (uint32_t)rnd() & ~MCMGPU_CXL_SETUP_LOCK;
		u.setup.nregions = rnd() % 8 ? rnd() % 5 :
			rnd() % 2 ? 9 + rnd() % 24 : (uint32_t)rnd();
		for (i = 0; i < MCMGPU_CXL_MAX_REGIONS; i++)
			cxl_region(&u.setup.region[i], i);
		if (rnd() % 4 == 0)
			mutate(&u.setup, sizeof(u.setup));
		u.setup.flags &= ~MCMGPU_CXL_SETUP_LOCK;	/* until a reset */
		/*
		 * Our struct, whole or cut by PROT_NONE, or a pointer to no
		 * struct: never to the arena's leftovers, which could lock.
		 */
		if (!place(a, &arg, &u.setup, sizeof(u.setup)) &&
		    arg >= (uintptr_t)a->rw && arg < (uintptr_t)a->rw + 4 * PAGE)
			arg = (uintptr_t)a->gone;
		cmd = MCMGPU_CXL_IOCTL_SETUP;
		break;
	case 4:
		u.decode.hpa = rnd() % 4 ? MCMGPU_CXL_WINDOW_BASE + rnd() % (1ULL << 32) :
			       rnd();
		place(a, &arg, &u.decode, sizeof(u.decode));
		cmd = MCMGPU_CXL_IOCTL_DECODE;
		break;
	case 5:
		cmd = MCMGPU_CXL_IOCTL_TEARDOWN;
		arg = 0;
		break;
	default:
		/* Records from the arena: mostly refused, short when not. */
		u.replay.records_ptr = ptr_for(a, 64 * sizeof(struct mcmgpu_cxl_record));
		u.replay.count = rnd() % 8 ? rnd() % 64 : rnd();
		u.replay.result_ptr = ptr_for(a, sizeof(struct mcmgpu_cxl_sim_result));
		u.replay.config.sr_mode = rnd() % 8 ? rnd() % MCMGPU_CXL_SR_MODES :
					  (uint32_t)rnd();
		u.replay.config.ds = rnd() % 3;
		u.replay.config.ctrl_ns = rnd() % 2 ? 80 : (uint32_t)rnd();
		place(a, &arg, &u.replay, sizeof(u.replay));
		cmd = MCMGPU_CXL_IOCTL_REPLAY;
		break;
	}
	if (ioctl(cxl_fd, cmd, (void *)(uintptr_t)arg) == 0)
		return 0;
	switch (errno) {
	case EINVAL: case EFAULT: case EINTR: case EBUSY: case E2BIG:
	case ENOMEM: case ERANGE:
		return 0;
	default:
		fprintf(stderr, "cxl ioctl %#lx: %s\n", cmd, strerror(errno));
		return -errno;
	}
}

static int one_op(struct arena *a, int fd, const struct mcmgpu_info *info)
{
	uint64_t arg;
	unsigned long cmd;
	struct mcmgpu_alloc *placed_alloc = NULL;
	bool adsm_refusal = false, free_busy = false, gpu_refusal = false;

	switch (rnd() % 15) {
	case 0: {
		struct mcmgpu_info in = { .size = size_near(sizeof(in)) };

		mutate(&in, sizeof(in));
		place(a, &arg, &in, sizeof(in));
		cmd = MCMGPU_IOCTL_GET_INFO;
		break;
	}
	case 1: {
		struct mcmgpu_dma d = {
			.size = size_near(sizeof(d)),
			.flags = rnd() % 4 ? rnd() % 2 : rnd(),
			.user_ptr = ptr_for(a, 4096),
			.gpu_addr = rnd() % 2 ?
				    HEALTH_BYTES + rnd() % (info->vram_total - HEALTH_BYTES) :
				    info->vram_total - rnd() % 8192,
			.length = rnd() % 3 ? 1 + rnd() % 8192 : rnd(),
		};

		mutate_ptrs(&d, sizeof(d), offsetof(struct mcmgpu_dma, user_ptr), -1);
		place(a, &arg, &d, sizeof(d));
		cmd = MCMGPU_IOCTL_DMA;
		break;
	}
	case 2: {
		struct mcmgpu_finepack_replay r = {
			.size = size_near(sizeof(r)),
			.trace_ptr = rnd() % 2 ? (uintptr_t)a->trace : ptr_for(a, 256),
			.trace_len = rnd() % 2 ? a->trace_len : rnd() % 65536,
			.subheader = 2 + rnd() % 6, .overhead = rnd() % 2 ? 24 : 28,
			.result_ptr = ptr_for(a, sizeof(struct mcmgpu_fp_replay_result)),
			.result_size = size_near(sizeof(struct mcmgpu_fp_replay_result)),
		};

		if (rnd() % 4 == 0)	/* a half-valid trace */
			a->trace[rnd() % a->trace_len] ^= 1 << (rnd() % 8);
		mutate_ptrs(&r, sizeof(r),
			    offsetof(struct mcmgpu_finepack_replay, trace_ptr),
			    offsetof(struct mcmgpu_finepack_replay, result_ptr));
		place(a, &arg, &r, sizeof(r));
		cmd = MCMGPU_IOCTL_FINEPACK_REPLAY;
		break;
	}
	case 3: {
		struct mcmgpu_cpe_record *rec = (void *)(a->rw + PAGE);
		struct mcmgpu_launch ln = {
			.size = size_near(sizeof(ln)),
			.record_ptr = rnd() % 4 ? (uintptr_t)rec :
				      ptr_for(a, sizeof(*rec)),
			.record_size = size_near(sizeof(*rec)),
			.result_size = size_near(sizeof(struct mcmgpu_cpe_launch_result)),
			.result_ptr = ptr_for(a, sizeof(struct mcmgpu_cpe_launch_result)),
		};

		memset(rec, 0, sizeof(*rec));
		rec->type = 1 + rnd() % 5;
		rec->chiplets = 1 + rnd() % info->chiplets;
		rec->policy = rnd() % MCMGPU_CPE_POLICIES;
		rec->mem_bytes = (1 + rnd() % 64) * 4096;
		rec->nargs = 1 + rnd() % 3;
		rec->chiplet_mask = 1 + rnd() % ((1U << info->chiplets) - 1);
		rec->passes = 1 + rnd() % 2;
		for (unsigned int i = 0; i < rec->nargs; i++) {
			rec->args[i].base = (rnd() % 16) * 4096;
			rec->args[i].size = 4096;
			rec->args[i].mode = 1 + rnd() % 2;
			rec->args[i].kind = rnd() % 2;
			rec->args[i].range[0].start = rec->args[i].base;
			rec->args[i].range[0].end = rec->args[i].base + 4095;
		}
		mutate(rec, sizeof(*rec));
		mutate_ptrs(&ln, sizeof(ln), offsetof(struct mcmgpu_launch, record_ptr),
			    offsetof(struct mcmgpu_launch, result_ptr));
		place(a, &arg, &ln, sizeof(ln));
		cmd = MCMGPU_IOCTL_LAUNCH;
		break;
	}
	case 5: {	/* GPU memory objects: mostly small, now and then huge */
		struct mcmgpu_alloc al = {
			.size = size_near(sizeof(al)),
			.flags = rnd() % 4 ? rnd() % 4 : rnd(),
			.bytes = rnd() % 8 ? (1 + rnd() % 64) * 4096 :
				 rnd() % 2 ? info->vram_total : rnd(),
			.policy = rnd() % 4,
			.g = rnd() % 8,
			.nmap = rnd() % 10,
			/* F-Barre's expansion: 0..4 valid with Barre, more not. */
			.merge = rnd() % 4 ? rnd() % 5 : rnd(),
		};

		for (unsigned int i = 0; i < 8; i++)
			al.map[i] = rnd() % (info->chiplets + 1);
		if (rnd() % 2) {	/* ADSM: shared, small */
			al.flags = MCMGPU_ALLOC_F_SHARED;
			al.bytes = (1 + rnd() % 64) * 4096;
			al.policy = MCMGPU_ALLOC_CHUNK;
			al.g = 1 + rnd() % 4;
			al.nmap = 0;
		}
		mutate(&al, sizeof(al));
		placed_alloc = place(a, &arg, &al, sizeof(al));
		cmd = MCMGPU_IOCTL_ALLOC;
		break;
	}
	case 6: {
		struct mcmgpu_free fr = {
			.size = size_near(sizeof(fr)),
			.handle = rnd() % 8 ? 1 + rnd() % 64 : rnd(),
		};

		mutate(&fr, sizeof(fr));
		place(a, &arg, &fr, sizeof(fr));
		cmd = MCMGPU_IOCTL_FREE;
		free_busy = true;	/* EBUSY: the file's ADSM kernel runs */
		break;
	}
	case 7: {	/* a Barre phase near the file's objects, or anywhere */
		struct mcmgpu_barre_access *acc = (void *)(a->rw + 2 * PAGE);
		unsigned int n = rnd() % (PAGE / sizeof(*acc)), i;
		struct mcmgpu_barre_run br = {
			.size = size_near(sizeof(br)),
			.flags = rnd() % 4 ? rnd() % 4 : rnd(),
			.accesses_ptr = rnd() % 4 ? (uintptr_t)acc :
					ptr_for(a, n * sizeof(*acc)),
			.count = rnd() % 8 ? n : rnd(),
			.stats_ptr = rnd() % 2 ? 0 :
				     ptr_for(a, sizeof(struct mcmgpu_barre_stats)),
			.stats_size = size_near(sizeof(struct mcmgpu_barre_stats)),
			.walkers = rnd() % 2 ? 0 : rnd() % 40,
		};

		/* F-Barre's knobs, mostly with a reset and in range. */
		if (rnd() % 2) {
			br.fbarre_flags = rnd() % 8 ? rnd() % 2 : rnd();
			br.filter_rows = rnd() % 8 ? (rnd() % 2 ? 0 : 256 << rnd() % 3) :
					 rnd();
			br.drop_ppm = rnd() % 8 ? rnd() % 1000001 : rnd();
			br.merge = rnd() % 8 ? rnd() % 5 : rnd();
			br.sched_moves = rnd() % 8 ? rnd() % 9 : rnd();
		}

		for (i = 0; i < n; i++) {
			acc[i] = (struct mcmgpu_barre_access){
				.va = rnd() % 4 ? (0x100000ULL << 12) +
				      rnd() % (1ULL << 20) : rnd(),
				.chiplet = rnd() % (info->chiplets + (rnd() % 8 == 0)),
				.write = rnd() % 2,
			};
			if (rnd() % 64 == 0)
				mutate(&acc[i], sizeof(acc[i]));
		}
		mutate_ptrs(&br, sizeof(br),
			    offsetof(struct mcmgpu_barre_run, accesses_ptr),
			    offsetof(struct mcmgpu_barre_run, stats_ptr));
		place(a, &arg, &br, sizeof(br));
		/* The three operations on the same argument shapes. */
		cmd = rnd() % 4 ? MCMGPU_IOCTL_BARRE_RUN :
		      rnd() % 2 ? MCMGPU_IOCTL_BARRE_RESET :
				  MCMGPU_IOCTL_BARRE_STATS;
		break;
	}
	case 8: {
		struct mcmgpu_pte_query q = {
			.size = size_near(sizeof(q)),
			.handle = rnd() % 8 ? 1 + rnd() % 64 : rnd(),
			.first = rnd() % 4 ? rnd() % 64 : rnd(),
			.count = rnd() % 4 ? rnd() % 64 : rnd(),
			.ptes_ptr = ptr_for(a, 64 * 8),
		};

		mutate_ptrs(&q, sizeof(q), offsetof(struct mcmgpu_pte_query, ptes_ptr),
			    -1);
		place(a, &arg, &q, sizeof(q));
		cmd = MCMGPU_IOCTL_PTE_QUERY;
		break;
	}
	case 9: {	/* ADSM configuration, before or after objects */
		struct mcmgpu_adsm_config c = {
			.size = size_near(sizeof(c)),
			.protocol = rnd() % 5,
			.rolling = rnd() % 4 ? rnd() % 8 : rnd(),
			.block_bytes = rnd() % 4 ? 4096ULL << (rnd() % 14) : rnd(),
			.rolling_step = rnd() % 4,
		};

		mutate(&c, sizeof(c));
		place(a, &arg, &c, sizeof(c));
		cmd = MCMGPU_IOCTL_ADSM_CONFIG;
		adsm_refusal = true;	/* EBUSY, EOPNOTSUPP */
		break;
	}
	case 10: {	/* ADSM launches: mostly on the objects, now and then wild */
		struct mcmgpu_adsm_kernel *k = (void *)(a->rw + PAGE);
		unsigned int o = rnd() % 16;
		struct mcmgpu_launch ln = {
			.size = size_near(sizeof(ln)),
			.flags = MCMGPU_LAUNCH_F_ADSM | (rnd() % 2 ? MCMGPU_LAUNCH_F_WAIT : 0),
			.record_ptr = rnd() % 4 ? (uintptr_t)k : ptr_for(a, sizeof(*k)),
			.record_size = size_near(sizeof(*k)),
			.result_size = size_near(sizeof(struct mcmgpu_adsm_kernel_result)),
			.result_ptr = rnd() % 2 ? 0 :
				      ptr_for(a, sizeof(struct mcmgpu_adsm_kernel_result)),
		};

		memset(k, 0, sizeof(*k));
		k->kernel = rnd() % (MCMGPU_ADSM_KERNELS + 1);
		k->n = shared[o].bytes ? shared[o].bytes / 4 - rnd() % 2 : 1 + rnd() % 1024;
		k->va[0] = shared[o].va;
		k->va[1] = shared[(o + 1) % 16].va;
		k->va[2] = shared[(o + 2) % 16].va;
		k->s[0] = rnd() % 4;
		mutate(k, sizeof(*k));
		mutate_ptrs(&ln, sizeof(ln), offsetof(struct mcmgpu_launch, record_ptr),
			    offsetof(struct mcmgpu_launch, result_ptr));
		place(a, &arg, &ln, sizeof(ln));
		cmd = MCMGPU_IOCTL_LAUNCH;
		adsm_refusal = true;	/* EIO: the device refused the kernel */
		break;
	}
	case 11: {	/* ADSM sync, counters, block states */
		struct mcmgpu_adsm_sync sy = {
			.size = size_near(sizeof(sy)),
			.result_ptr = rnd() % 2 ? 0 :
				      ptr_for(a, sizeof(struct mcmgpu_adsm_kernel_result)),
			.result_size = size_near(sizeof(struct mcmgpu_adsm_kernel_result)),
		};
		struct mcmgpu_adsm_stats st = { .size = size_near(sizeof(st)) };
		struct mcmgpu_adsm_query q = {
			.size = size_near(sizeof(q)),
			.handle = rnd() % 8 ? 1 + rnd() % 64 : rnd(),
			.first = rnd() % 4 ? rnd() % 64 : rnd(),
			.count = rnd() % 4 ? rnd() % 64 : rnd(),
			.states_ptr = ptr_for(a, 64),
		};

		switch (rnd() % 3) {
		case 0:
			mutate_ptrs(&sy, sizeof(sy),
				    offsetof(struct mcmgpu_adsm_sync, result_ptr), -1);
			place(a, &arg, &sy, sizeof(sy));
			cmd = MCMGPU_IOCTL_ADSM_SYNC;
			break;
		case 1:
			mutate(&st, sizeof(st));
			place(a, &arg, &st, sizeof(st));
			cmd = MCMGPU_IOCTL_ADSM_STATS;
			break;
		default:
			mutate_ptrs(&q, sizeof(q),
				    offsetof(struct mcmgpu_adsm_query, states_ptr), -1);
			place(a, &arg, &q, sizeof(q));
			cmd = MCMGPU_IOCTL_ADSM_QUERY;
			break;
		}
		adsm_refusal = true;
		break;
	}
	case 12: {	/* explicit copies between user memory and any object */
		struct mcmgpu_adsm_copy cp = {
			.size = size_near(sizeof(cp)),
			.flags = rnd() % 4 ? rnd() % 2 : rnd(),
			.handle = rnd() % 8 ? 1 + rnd() % 64 : rnd(),
			.offset = rnd() % 4 ? rnd() % 65536 : rnd(),
			.length = rnd() % 4 ? 1 + rnd() % 4096 : rnd(),
			.user_ptr = ptr_for(a, 4096),
		};

		mutate_ptrs(&cp, sizeof(cp), offsetof(struct mcmgpu_adsm_copy, user_ptr),
			    -1);
		place(a, &arg, &cp, sizeof(cp));
		cmd = MCMGPU_IOCTL_ADSM_COPY;
		adsm_refusal = true;
		break;
	}
	case 14: {	/* the GPU core: program bytes, runs, counters */
		static uint32_t fields[MCMGPU_GPU_CONFIG_MAX_FIELDS];
		static uint64_t va[4];
		static char msg[MCMGPU_GPU_MSG_MAX];

		if (rnd() % 3 == 0) {
			struct mcmgpu_gpu_load ld = {
				.size = size_near(sizeof(ld)),
				.flags = rnd() % 4 ? rnd() % 2 : rnd(),
				.program_ptr = ptr_for(a, 4096),
				.length = rnd() % 8 ? 1 + rnd() % 4096 : rnd(),
			};

			/* Now and then a real header, so the reader goes on. */
			if (ld.program_ptr == (uintptr_t)a->rw && rnd() % 2)
				memcpy(a->rw, "MCMGPROG\x01", 9);
			mutate_ptrs(&ld, sizeof(ld),
				    offsetof(struct mcmgpu_gpu_load, program_ptr), -1);
			place(a, &arg, &ld, sizeof(ld));
			cmd = MCMGPU_IOCTL_GPU_LOAD;
		} else if (rnd() % 4 == 0) {
			struct mcmgpu_gpu_objects go = {
				.size = size_near(sizeof(go)),
				.flags = rnd() % 8 ? 0 : rnd(),
				.objects_ptr = ptr_for(a, 4096),
				.count = rnd() % 4 ? rnd() % 256 : rnd(),
				.msg_ptr = ptr_for(a, MCMGPU_GPU_MSG_MAX),
				.msg_size = rnd() % 512,
				.pad = rnd() % 8 ? 0 : rnd(),
			};

			mutate_ptrs(&go, sizeof(go),
				    offsetof(struct mcmgpu_gpu_objects, objects_ptr),
				    offsetof(struct mcmgpu_gpu_objects, msg_ptr));
			place(a, &arg, &go, sizeof(go));
			cmd = MCMGPU_IOCTL_GPU_OBJECTS;
		} else if (rnd() % 2) {
			struct mcmgpu_gpu_run run = {
				.size = size_near(sizeof(run)),
				.flags = rnd() % 4 ? rnd() % 2 : rnd(),
				.config_ptr = rnd() % 4 ? (uintptr_t)fields :
					      ptr_for(a, sizeof(fields)),
				.nfields = rnd() % 4 ? 1 + rnd() % 64 : rnd(),
				.objects_ptr = rnd() % 4 ? (uintptr_t)va :
					       ptr_for(a, sizeof(va)),
				.nobjects = rnd() % 4 ? rnd() % 4 : rnd(),
				.msg_ptr = (uintptr_t)msg,
				.msg_size = rnd() % 4 ? sizeof(msg) : rnd() % 8,
				.streams = rnd() % 2 ? 0 : rnd() % 4 ? rnd() % 10 :
					   rnd(),
				.reserved = rnd() % 8 ? 0 : rnd(),
			};
			unsigned int i;

			for (i = 0; i < MCMGPU_GPU_CONFIG_MAX_FIELDS; i++)
				fields[i] = rnd() % 4 ? 1 + rnd() % 64 : rnd();
			for (i = 0; i < 4; i++)
				va[i] = rnd() % 2 ? (rnd() % 4096) << 12 : rnd();
			place(a, &arg, &run, sizeof(run));
			cmd = MCMGPU_IOCTL_GPU_RUN;
		} else {
			struct mcmgpu_gpu_stats gs = {
				.size = size_near(sizeof(gs)),
				.flags = rnd() % 8 ? 0 : rnd(),
				.stats_ptr = ptr_for(a, 1024),
				.stats_size = rnd() % 4 ? rnd() % 1024 : rnd(),
				.kernel_size = rnd() % 4 ? rnd() % 256 : rnd(),
				.kernels_ptr = ptr_for(a, 4096),
				.first = rnd() % 4 ? rnd() % 4 : rnd(),
				.count = rnd() % 4 ? rnd() % 16 : rnd(),
				.barre_ptr = rnd() % 2 ? 0 : ptr_for(a, 1024),
				.barre_size = rnd() % 1024,
				.msg_ptr = ptr_for(a, MCMGPU_GPU_MSG_MAX),
				.msg_size = rnd() % 512,
			};

			place(a, &arg, &gs, sizeof(gs));
			cmd = MCMGPU_IOCTL_GPU_STATS;
		}
		gpu_refusal = true;
		break;
	}
	case 13:
		if (rnd() % 2 || cxl_fd < 0) {
			adsm_touch(fd);
			return 0;
		}
		return cxl_op(a);
	case 4:	/* a random command number of our magic, or any */
		cmd = rnd() % 2 ? _IOC(rnd() % 4, MCMGPU_IOCTL_MAGIC, rnd() % 16,
				       rnd() % 512) : (unsigned long)rnd();
		arg = ptr_for(a, 512);
		break;
	default: {	/* the health of the others' device */
		int ret = mt_roundtrip(fd, HEALTH_BYTES + rnd() %
				       (info->vram_total - HEALTH_BYTES - 4096), 4096);

		/* Other processes write this memory too: no data check here. */
		return ret == -EINTR || ret == -EILSEQ ? 0 : ret;
	}
	}
	if (ioctl(fd, cmd, (void *)(uintptr_t)arg) == 0) {
		if (placed_alloc && placed_alloc->mmap_offset) {
			unsigned int k = rnd() % 16;

			shared[k].offset = placed_alloc->mmap_offset;
			shared[k].va = placed_alloc->gpu_va;
			shared[k].bytes = placed_alloc->bytes;
		}
		return 0;
	}

	if (adsm_refusal && (errno == EIO || errno == EBUSY ||
			     errno == EOPNOTSUPP))
		return 0;
	if (free_busy && errno == EBUSY)
		return 0;
	/* No barre_iommu answer for a translated run; the device's limits. */
	if (gpu_refusal && (errno == ENODEV || errno == EPROTO ||
			    errno == EIO))
		return 0;
	if ((errno == EIO || errno == ETIMEDOUT))
		fprintf(stderr, "ioctl %#lx: %s\n", cmd, strerror(errno));
	switch (errno) {
	case EINVAL: case E2BIG: case EFAULT: case ENOTTY: case ERANGE:
	case EOVERFLOW: case ENOSPC: case ENOMEM: case EINTR: case ENOENT:
	case EBADFD:	/* a Barre run after a failed one, without reset */
		return 0;
	default:
		return -errno;
	}
}

/* Each process's own 8 KiB at the bottom of chiplet 0: no one else's. */
static int health(int fd, unsigned int id)
{
	struct mcmgpu_info info;
	int ret = mt_get_info(fd, &info);

	if (!ret)
		ret = mt_roundtrip(fd, id * 8192, 8192);
	return ret == -EINTR ? 0 : ret;
}

/* One process: 0 on success, else the first bad errno (positive). */
static int worker(unsigned int id, uint64_t seed, uint64_t ops, pid_t *peers)
{
	struct sigaction sa = { .sa_handler = on_signal };
	struct arena a;
	struct fp_trace_buf tb = { 0 };
	struct mcmgpu_info info;
	uint8_t data[16] = { 1, 2, 3, 4 };
	uint64_t i, forks = 0;
	int fd[3], ret = 0;

	rng = seed * 2654435761u + id + 1;
	sa.sa_flags = id % 2 ? SA_RESTART : 0;
	sigaction(SIGUSR1, &sa, NULL);
	/* Guard pages around rw: a long copy stops there, not in libc. */
	a.rw = mmap(NULL, 6 * PAGE, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	a.ro = mmap(NULL, PAGE, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	a.edge = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	a.gone = mmap(NULL, PAGE, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (a.rw == MAP_FAILED || a.ro == MAP_FAILED || a.edge == MAP_FAILED ||
	    a.gone == MAP_FAILED)
		return ENOMEM;
	mprotect(a.rw, PAGE, PROT_NONE);
	mprotect(a.rw + 5 * PAGE, PAGE, PROT_NONE);
	a.rw += PAGE;
	mprotect(a.edge + PAGE, PAGE, PROT_NONE);
	munmap(a.gone, PAGE);
	for (i = 0; i < 32; i++)
		fp_tb_add(&tb, i % 7 ? MCMGPU_FP_REC_STORE : MCMGPU_FP_REC_KERNEL_END,
			  0, 1, (i * 24) % 4096, 1 + i % 16, data);
	a.trace = fp_tb_finish(&tb, &a.trace_len);
	for (i = 0; i < 3; i++)
		fd[i] = mt_open_dev();
	cxl_fd = open("/dev/mcmgpu_cxl0", O_RDWR);
	if (fd[0] < 0 || mt_get_info(fd[0], &info))
		return ENODEV;
	for (i = 0; i < ops && !ret; i++) {
		unsigned int k = rnd() % 3;

		if (rnd() % 100 == 0) {		/* reopen: a new context */
			close(fd[k]);
			fd[k] = mt_open_dev();
		}
		pid_t peer = peers[rnd() % PROCS];

		if (rnd() % 50 == 0 && peer > 0)
			kill(peer, SIGUSR1);
		if (rnd() % 500 == 0) {
			/*
			 * Fork with the device open: the child shares the open
			 * files, calls on them and exits without closing, maybe
			 * with a command in flight; the parent carries on.
			 */
			pid_t child = fork();

			if (child == 0) {
				uint64_t j;

				for (j = 0; j < 20; j++) {
					int cr = fd[j % 3] >= 0 ?
						 one_op(&a, fd[j % 3], &info) : 0;

					if (cr) {
						fprintf(stderr, "forked child, operation %llu: %s\n",
							(unsigned long long)j, strerror(-cr));
						_exit(1);
					}
				}
				_exit(0);
			}
			forks += child > 0;
		}
		if (fd[k] >= 0) {
			ret = one_op(&a, fd[k], &info);
			if (ret)
				fprintf(stderr, "process %u, operation %llu: %s\n",
					id, (unsigned long long)i, strerror(-ret));
		}
		if (!ret && i % 200 == 199) {
			ret = health(fd[0], id);
			if (ret)
				fprintf(stderr, "process %u, health check after %llu: %s\n",
					id, (unsigned long long)i, strerror(-ret));
		}
	}
	for (i = 0; i < 3; i++)
		close(fd[i]);
	if (cxl_fd >= 0)
		close(cxl_fd);
	free(a.trace);
	/* The forked children must have seen only documented errnos too. */
	while (forks--) {
		pid_t w;
		int st;

		/* The peers still signal: wait(2) returns EINTR then. */
		while ((w = wait(&st)) < 0 && errno == EINTR)
			;
		if (w < 0 || !WIFEXITED(st) || WEXITSTATUS(st))
			return ret ? (ret < 0 ? -ret : ret) : EPROTO;
	}
	return ret < 0 ? -ret : ret;
}

/* A fixture only for the timeout: 100 000 operations under KASAN take minutes. */
FIXTURE(fuzz) {
	int unused;
};

FIXTURE_SETUP(fuzz)
{
}

FIXTURE_TEARDOWN(fuzz)
{
}

TEST_F_TIMEOUT(fuzz, hostile_ioctls_from_several_processes, 3600)
{
	uint64_t ops = mt_env_u64("MCMGPU_FUZZ_OPS", 2000);
	uint64_t seed = mt_env_u64("MCMGPU_FUZZ_SEED", 1);
	struct mcmgpu_alloc guard = {
		.size = sizeof(guard), .bytes = HEALTH_BYTES,
		.policy = MCMGPU_ALLOC_CHUNK, .g = HEALTH_BYTES / PAGE, .nmap = 1,
		.flags = MCMGPU_ALLOC_F_WRITE,
	};
	struct mcmgpu_pte_query q = { .size = sizeof(q),
				      .count = HEALTH_BYTES / PAGE };
	uint64_t pte[HEALTH_BYTES / PAGE];
	pid_t pid[PROCS] = { 0 };
	unsigned int i, killed = 0;
	int fd, st, gfd;

	/*
	 * The health checks' memory (the bottom of chiplet 0) belongs to an
	 * object of a file no worker uses: the workers' objects, which ADSM
	 * zeroes and kernels write, get other frames.
	 */
	gfd = mt_open_dev();
	ASSERT_LE(0, gfd);
	ASSERT_EQ(0, ioctl(gfd, MCMGPU_IOCTL_ALLOC, &guard));
	q.handle = guard.handle;
	q.ptes_ptr = (uintptr_t)pte;
	ASSERT_EQ(0, ioctl(gfd, MCMGPU_IOCTL_PTE_QUERY, &q));
	for (i = 0; i < HEALTH_BYTES / PAGE; i++)
		ASSERT_EQ(i, MCMGPU_PTE_PFN(pte[i])) TH_LOG("frame %u taken", i);

	signal(SIGUSR1, SIG_IGN);	/* only the workers take it */
	for (i = 0; i < PROCS; i++) {
		pid[i] = fork();
		ASSERT_LE(0, pid[i]);
		if (!pid[i])
			_exit(worker(i, seed, ops, pid));
	}
	/* A killed process's commands must finish and its contexts go. */
	for (i = 0; i < 2; i++) {
		pid_t victim;

		usleep(300000 + mt_rnd() % 700000);
		victim = fork();
		ASSERT_LE(0, victim);
		if (!victim)
			_exit(worker(PROCS + i, seed, ops, pid));
		usleep(100000);
		kill(victim, SIGKILL);
		waitpid(victim, &st, 0);
		killed += WIFSIGNALED(st);
	}
	for (i = 0; i < PROCS; i++) {
		ASSERT_EQ(pid[i], waitpid(pid[i], &st, 0));
		EXPECT_TRUE(WIFEXITED(st)) TH_LOG("process %u: signal %d", i,
						  WTERMSIG(st));
		EXPECT_EQ(0, WEXITSTATUS(st)) TH_LOG("process %u: errno %d", i,
						     WEXITSTATUS(st));
	}
	fd = mt_open_dev();
	ASSERT_LE(0, fd);
	EXPECT_EQ(0, health(fd, 0));
	close(fd);
	close(gfd);
	/* The root complex takes the default layout again and decodes. */
	fd = open("/dev/mcmgpu_cxl0", O_RDWR);
	if (fd >= 0) {
		struct mcmgpu_cxl_setup req = { 0 };
		struct mcmgpu_cxl_decode dec = {
			.hpa = MCMGPU_CXL_WINDOW_BASE + 4096,
		};

		EXPECT_EQ(0, ioctl(fd, MCMGPU_CXL_IOCTL_SETUP, &req))
			TH_LOG("%s", req.error);
		EXPECT_EQ(0, ioctl(fd, MCMGPU_CXL_IOCTL_DECODE, &dec));
		EXPECT_EQ(0, dec.port);
		EXPECT_EQ(4096, dec.dpa);
		close(fd);
	}
	TH_LOG("%u processes x %llu operations, %u killed mid-run", PROCS,
	       (unsigned long long)ops, killed);
}

/*
 * Unbinds with files open on every char device of the project (each
 * /dev/mcmgpu* node, its debugfs files and the aux devices' sysfs files),
 * objects allocated and ADSM objects mapped: afterwards every ioctl number,
 * known or not, with any argument, gets ENODEV; mmap fails; a mapping
 * touched keeps the bytes it had or gives SIGBUS, never a kernel report;
 * the debugfs
 * and sysfs files fail cleanly. Then the device binds again and works.
 */
#define UNBIND_FILES 32

static int open_node(const char *dir, const char *prefix, int *fds,
		     unsigned int *n, int flags)
{
	struct dirent *de;
	char path[PATH_MAX];
	DIR *d = opendir(dir);

	if (!d)
		return 0;
	while ((de = readdir(d)) && *n < UNBIND_FILES) {
		if (strncmp(de->d_name, prefix, strlen(prefix)))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		fds[*n] = open(path, flags);
		if (fds[*n] >= 0)
			(*n)++;
	}
	closedir(d);
	return 0;
}

static unsigned int open_debugfs(int *fds, unsigned int n)
{
	static const char *const dirs[] = {
		"/sys/kernel/debug/barre_iommu", "/sys/kernel/debug",
	};
	struct dirent *de, *fe;
	char path[PATH_MAX];
	unsigned int i;
	DIR *d, *sub;

	mt_system("mount -t debugfs none /sys/kernel/debug 2>/dev/null");
	for (i = 0; i < 2; i++) {
		d = opendir(dirs[i]);
		if (!d)
			continue;
		while ((de = readdir(d)) && n < UNBIND_FILES) {
			if (strncmp(de->d_name, "mcmgpu.", 7))
				continue;
			snprintf(path, sizeof(path), "%s/%s", dirs[i], de->d_name);
			sub = opendir(path);
			while (sub && (fe = readdir(sub)) && n < UNBIND_FILES) {
				char file[PATH_MAX + 256];

				if (fe->d_name[0] == '.')
					continue;
				snprintf(file, sizeof(file), "%s/%s", path,
					 fe->d_name);
				fds[n] = open(file, O_RDONLY);
				if (fds[n] >= 0)
					n++;
			}
			if (sub)
				closedir(sub);
		}
		closedir(d);
	}
	return n;
}

static volatile uint8_t *touch_at;

/* Flips the byte at p: 0, or 1 when that faulted (SIGBUS, SIGSEGV). */
static int touch_gone_mapping(volatile uint8_t *p)
{
	struct sigaction sa = { .sa_handler = on_touch_fault }, old_segv, old_bus;
	int faulted = 1;

	touch_at = p;
	sigaction(SIGSEGV, &sa, &old_segv);
	sigaction(SIGBUS, &sa, &old_bus);
	if (!sigsetjmp(touch_jmp, 1)) {
		touch_at[0] ^= 1;
		faulted = 0;
	}
	sigaction(SIGSEGV, &old_segv, NULL);
	sigaction(SIGBUS, &old_bus, NULL);
	return faulted;
}

TEST(unbind_with_open_files_of_every_char_device)
{
	unsigned int rounds = mt_env_u64("MCMGPU_UNBIND_ROUNDS", 3);
	struct arena a = { 0 };
	char slot[NAME_MAX + 1], buf[256];
	unsigned int r, i, k, nodes, files, refused;
	int fds[UNBIND_FILES], fd;

	rng = mt_env_u64("MCMGPU_FUZZ_SEED", 1) * 0x9e3779b97f4a7c15ULL | 1;
	ASSERT_EQ(0, mt_find_slot(slot, sizeof(slot)));
	a.rw = mmap(NULL, 8 * PAGE, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, a.rw);
	a.ro = a.rw + 4 * PAGE;
	a.edge = a.rw + 5 * PAGE;
	a.gone = a.rw + 7 * PAGE;
	mprotect(a.ro, PAGE, PROT_READ);
	mprotect(a.edge + PAGE, PAGE, PROT_NONE);
	munmap(a.gone, PAGE);
	for (r = 0; r < rounds; r++) {
		struct mcmgpu_alloc al = {
			.size = sizeof(al), .bytes = 2 * PAGE + r * 100,
			.policy = MCMGPU_ALLOC_RR,
			.flags = MCMGPU_ALLOC_F_SHARED,
		};
		volatile uint8_t *map = MAP_FAILED;

		nodes = 0;
		open_node("/dev", "mcmgpu", fds, &nodes, O_RDWR);
		open_node("/dev", "barre", fds, &nodes, O_RDWR);
		ASSERT_LE(1, nodes);
		/* Several files on one node, one with a mapped ADSM object. */
		fds[nodes] = mt_open_dev();
		ASSERT_LE(0, fds[nodes]);
		fd = fds[nodes++];
		ASSERT_EQ(0, ioctl(fd, MCMGPU_IOCTL_ALLOC, &al));
		map = mmap(NULL, al.bytes, PROT_READ | PROT_WRITE, MAP_SHARED,
			   fd, al.mmap_offset);
		ASSERT_NE(MAP_FAILED, map);
		map[0] = 0x5a;
		files = open_debugfs(fds, nodes);
		for (k = 0; k < 2 && files < UNBIND_FILES; k++) {
			static const char *const ping[] = {
				"/sys/bus/auxiliary/devices/mcmgpu.iommu.0/ping",
				"/sys/bus/auxiliary/devices/mcmgpu.cxl_rc.0/ping",
			};

			fds[files] = open(ping[k], O_RDWR);
			if (fds[files] >= 0)
				files++;
		}
		ASSERT_EQ(0, mt_write_sysfs("/sys/bus/pci/drivers/mcmgpu/unbind",
					    slot));
		/* Every ioctl number of both ABIs and random ones: ENODEV. */
		refused = 0;
		for (i = 0; i < nodes; i++) {
			for (k = 0; k < 200; k++) {
				uint8_t type = k % 3 == 0 ? MCMGPU_IOCTL_MAGIC : k % 3 == 1 ?
					MCMGPU_CXL_IOCTL_MAGIC : rnd();
				unsigned long cmd = _IOC(rnd() % 4, type,
							 k < 100 ? k % 16 : rnd(),
							 rnd() % 512);
				uint64_t arg = ptr_for(&a, 64);

				if (k % 7 == 0)
					arg = (uintptr_t)a.rw;
				errno = 0;
				EXPECT_EQ(-1, ioctl(fds[i], cmd, (unsigned long)arg));
				EXPECT_EQ(ENODEV, errno)
					TH_LOG("file %u ioctl 0x%lx", i, cmd);
				refused++;
			}
			EXPECT_EQ(MAP_FAILED, mmap(NULL, PAGE, PROT_READ,
						   MAP_SHARED, fds[i], 0));
		}
		/*
		 * A page mapped before keeps the CPU copy's bytes, or faults;
		 * one never touched faults (its fault finds the device gone)
		 * unless the protocol mapped it with the first.
		 */
		if (!touch_gone_mapping(map))
			EXPECT_EQ(0x5a ^ 1, map[0]);
		touch_gone_mapping(map + PAGE);
		if (!touch_gone_mapping(map + PAGE))
			EXPECT_EQ(0, map[PAGE]);
		/* debugfs and sysfs files of the gone device: ENODEV too. */
		for (i = nodes; i < files; i++) {
			errno = 0;
			EXPECT_EQ(-1, read(fds[i], buf, sizeof(buf)))
				TH_LOG("file %u: %.40s", i, buf);
			EXPECT_EQ(ENODEV, errno) TH_LOG("file %u", i);
		}
		munmap((void *)map, al.bytes);
		for (i = 0; i < files; i++)
			close(fds[i]);
		ASSERT_EQ(0, mt_write_sysfs("/sys/bus/pci/drivers/mcmgpu/bind",
					    slot));
		fd = mt_open_dev();
		ASSERT_LE(0, fd);
		EXPECT_EQ(0, mt_roundtrip(fd, 4096 * (1 + r), 777));
		close(fd);
		TH_LOG("round %u: %u nodes, %u files, %u ioctls refused", r,
		       nodes, files, refused);
	}
}

TEST_HARNESS_MAIN
