// SPDX-License-Identifier: GPL-2.0
/*
 * The SIMT executor (simt.h): each thread of a block is a coroutine on
 * its own stack; the threads run one after the other up to each barrier
 * (or their end), recording one small op per macro use; then each warp's
 * 32 per-thread op lists of that phase are merged into warp instructions
 * by min-PC reconvergence. Warps are written as soon as they are whole
 * (at once for blocks without barriers), so a block never has to be kept
 * in full unless it synchronizes.
 *
 * The model's decisions (docs/workloads.md repeats them):
 *  - A barrier is reached once every live thread of the block has
 *    arrived at one (any SYNC: each thread's k-th barrier matches the
 *    others' k-th) or has exited: threads that exited count as arrived,
 *    as on hardware, where a barrier waits for the warps still running.
 *  - Within a phase, BAR and EXIT are issued after every other
 *    instruction the warp's lanes have before them: first one EXIT for
 *    the lanes that ended, then one BAR for the lanes that wait (its mask
 *    is the warp's live lanes). A thread's return is its EXIT, so each
 *    warp ends with an EXIT (PC SIMT_EXIT_PC).
 *  - PCs: a macro's SIMT_PC (line << 8 | counter) shifted left by 8; the
 *    i-th instruction of an OPS adds i (saturating at 255). EXIT's is
 *    0xffffff0000 (line 0xffffff).
 *  - Registers (nregs 32): R1 holds what a thread starts with (its
 *    indices, its arguments), R2 the latest integer result, R3 the latest
 *    floating-point result, R8..R31 rotate as load destinations. A memory
 *    instruction's address is R2 once the warp did integer OPS (addresses
 *    are integer arithmetic), else R1. A load writes the next rotating
 *    register. The first instruction of an OPS reads every register
 *    loaded since the previous OPS (the last 14) and its own class's
 *    previous result; the others chain on that result. A store, atomic
 *    or reduction also reads the most recently written register (its
 *    data). BRANCH OPS read it, and write nothing; BAR and EXIT neither.
 *  - GPU objects start at SIMT_GLOBAL_BASE; each kernel's shared window
 *    is at SIMT_SHMEM_BASE and its local window at SIMT_LOCAL_BASE.
 *  - Accesses are checked against the objects (or the block's shared
 *    bytes) and must be naturally aligned and 1, 2, 4, 8 or 16 bytes
 *    wide; a bad one stops the launch with -EFAULT (-EINVAL for a bad
 *    width) and a message. After any error the program is left
 *    incomplete and the GPU refuses further work with the same error.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "simt.h"

#if defined(__SANITIZE_ADDRESS__)
#define SIMT_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SIMT_ASAN 1
#endif
#endif
#ifdef SIMT_ASAN
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#endif

/* Our own switch on x86-64; ucontext elsewhere (or with SIMT_UCONTEXT). */
#if defined(__x86_64__) && !defined(SIMT_UCONTEXT)
#define SIMT_ASM_SWITCH 1
#else
#include <ucontext.h>
#endif

#define SIMT_GLOBAL_BASE	0x7f0000000000ull
#define SIMT_SHMEM_BASE		0x7e0000000000ull
#define SIMT_LOCAL_BASE		0x7d0000000000ull
#define SIMT_EXIT_PC		((u64)0xffffff << 8)	/* as SIMT_PC gives */
#define SIMT_NREGS		32
#define SIMT_BINARY_VERSION	70
#define SIMT_MAX_THREADS	1024	/* a block, as CUDA allows */
#define SIMT_MAX_WARPS		(SIMT_MAX_THREADS / PROG_WARP_SIZE)
#define SIMT_MAX_SHMEM		(96u << 10)	/* Volta's per-block limit */
#define SIMT_STACK_BYTES	(128u << 10)	/* ASan frames are large */

#define SIMT_REG_START		1	/* indices and arguments */
#define SIMT_REG_INT		2
#define SIMT_REG_FP		3
#define SIMT_REG_POOL		8	/* R8..R31: load destinations */
#define SIMT_REG_POOL_N		(SIMT_NREGS - SIMT_REG_POOL)

/* Flags the atomic macros add to the op (simt.h). */
#define SIMT_AOP_MASK		0xff

/* Private ops: the end of a thread (EXIT). */
#define SIMT_OP_EXIT		0xff

/*
 * One macro use by one thread: 16 bytes, as merging a warp streams
 * through 32 threads' lists of them.
 */
struct simt_op {
	u64 addr;		/* memory: GPU address; OPS: count */
	u32 pc;			/* SIMT_PC: lines up to 2^24 */
	u8 op;			/* enum prog_op or SIMT_OP_EXIT */
	u8 space_kind;		/* space | kind << 4 */
	u8 width;
	u8 aop;			/* atomics: op | flags >> 4 */
};

/* One warp instruction (or a run of count OPS instructions). */
struct simt_winst {
	u64 pc;
	u32 mask;
	u32 count;		/* OPS: instructions; else 1 */
	u32 first;		/* OPS: index of the first of them */
	u8 op, space, kind, width;
	u16 aop;
};

/* A warp's instructions so far in the block, and its lanes' addresses. */
struct simt_wbuf {
	struct simt_winst *in;
	size_t n, cap;
	u64 *addr;
	size_t naddr, addrcap;
	u64 insts;		/* warp instructions, OPS expanded */
	bool done;		/* every lane exited */
};

struct simt_stack {
	void *map;		/* guard page first */
	size_t len;
	void *lo;		/* usable bytes: [lo, lo + SIMT_STACK_BYTES) */
	void *top;		/* where frames start (below the end) */
};

enum simt_tstate {
	SIMT_T_NEW,		/* not started this block */
	SIMT_T_RUNNABLE,	/* past a barrier, to be resumed */
	SIMT_T_BARRIER,		/* waits at a barrier */
	SIMT_T_EXITED,
	SIMT_T_ABORTED,		/* stopped by an error */
};

struct simt_run;

struct simt_thread {
	struct simt_run *run;
	struct simt_dim3 idx;
	u32 linear;
	u8 state;
	struct simt_op *ops;	/* this phase's */
	u32 nops, cap;
	void *sp;		/* saved while switched out */
	struct simt_stack *stack;
#ifdef SIMT_ASAN
	void *fake;
#endif
#ifndef SIMT_ASM_SWITCH
	ucontext_t uc;
#endif
};

struct simt_run {
	struct simt_gpu *gpu;
	simt_kernel_fn fn;
	const void *args;
	const char *name;
	struct simt_dim3 grid, block, bidx;
	u32 nthreads, nwarps;
	u8 *shared;
	u32 shmem;
	struct simt_thread *threads;	/* SIMT_MAX_THREADS */
	struct simt_wbuf warps[SIMT_MAX_WARPS];
	u32 next_emit;			/* first warp not yet written */
	void *main_sp;
#ifdef SIMT_ASAN
	void *main_fake;
	const void *main_bottom;
	size_t main_size;
#endif
#ifndef SIMT_ASM_SWITCH
	ucontext_t main_uc;
	struct simt_thread *starting;
#endif
};

struct simt_object {
	u64 base, size;
	u8 *mem;
};

struct simt_gpu {
	struct prog_writer *out;
	prog_sink_fn sink;
	void *sink_ctx;
	struct simt_object *objs;
	size_t nobjs, objcap;
	size_t last_obj;		/* lookup cache for host calls */
	u32 pc_obj[64];			/* an instruction's last object + 1 */
	u64 next_addr;
	u32 kernels;
	bool running;
	int error;			/* sticky: the first error */
	char msg[640];
	struct simt_run *run;		/* allocated on first launch */
	struct simt_stack **free_stacks;
	size_t nfree, nstacks;		/* free, and ever made */
	struct prog_rec rec;		/* scratch for records */
};

/* ---- context switches ---- */

#ifdef SIMT_ASM_SWITCH
/*
 * simt_ctx_switch(save, to): saves the callee-saved registers and the
 * SSE and x87 control words on the current stack, stores the stack
 * pointer in *save, and continues on the stack to (as saved by an
 * earlier switch, or built by simt_stack_prepare()). simt_ctx_start is
 * where a new coroutine first returns to: r12 is its argument, r13 its
 * function, which never returns.
 */
void simt_ctx_switch(void **save, void *to);
void simt_ctx_start(void);
__asm__(
	".pushsection .text\n"
	".globl simt_ctx_switch\n"
	".hidden simt_ctx_switch\n"
	".type simt_ctx_switch, @function\n"
	"simt_ctx_switch:\n"
	"	pushq %rbp\n"
	"	pushq %rbx\n"
	"	pushq %r12\n"
	"	pushq %r13\n"
	"	pushq %r14\n"
	"	pushq %r15\n"
	"	subq $8, %rsp\n"
	"	stmxcsr (%rsp)\n"
	"	fnstcw 4(%rsp)\n"
	"	movq %rsp, (%rdi)\n"
	"	movq %rsi, %rsp\n"
	"	ldmxcsr (%rsp)\n"
	"	fldcw 4(%rsp)\n"
	"	addq $8, %rsp\n"
	"	popq %r15\n"
	"	popq %r14\n"
	"	popq %r13\n"
	"	popq %r12\n"
	"	popq %rbx\n"
	"	popq %rbp\n"
	"	ret\n"
	".size simt_ctx_switch, .-simt_ctx_switch\n"
	".globl simt_ctx_start\n"
	".hidden simt_ctx_start\n"
	".type simt_ctx_start, @function\n"
	"simt_ctx_start:\n"
	"	movq %r12, %rdi\n"
	"	callq *%r13\n"
	"	ud2\n"
	".size simt_ctx_start, .-simt_ctx_start\n"
	".popsection\n");
#endif

static void simt_thread_main(struct simt_thread *t);

#ifndef SIMT_ASM_SWITCH
static void simt_uc_entry(void);
#endif

/* Builds the first frame of a coroutine running t on its stack. */
static void simt_stack_prepare(struct simt_thread *t)
{
#ifdef SIMT_ASM_SWITCH
	u64 *sp = t->stack->top;

	*--sp = (u64)(uintptr_t)simt_ctx_start;	/* ret lands here */
	*--sp = 0;				/* rbp: ends backtraces */
	*--sp = 0;				/* rbx */
	*--sp = (u64)(uintptr_t)t;		/* r12 */
	*--sp = (u64)(uintptr_t)simt_thread_main;	/* r13 */
	*--sp = 0;				/* r14 */
	*--sp = 0;				/* r15 */
	*--sp = 0x1f80 | (u64)0x37f << 32;	/* MXCSR, x87 CW defaults */
	t->sp = sp;
#else
	getcontext(&t->uc);
	t->uc.uc_stack.ss_sp = t->stack->lo;
	t->uc.uc_stack.ss_size = (size_t)((u8 *)t->stack->top -
					  (u8 *)t->stack->lo);
	t->uc.uc_link = NULL;
	makecontext(&t->uc, simt_uc_entry, 0);
#endif
}

/* From the scheduler into thread t, until it waits, exits or fails. */
static void simt_resume(struct simt_run *run, struct simt_thread *t)
{
#ifdef SIMT_ASAN
	__sanitizer_start_switch_fiber(&run->main_fake, t->stack->lo,
				       SIMT_STACK_BYTES);
#endif
#ifdef SIMT_ASM_SWITCH
	simt_ctx_switch(&run->main_sp, t->sp);
#else
	run->starting = t;
	swapcontext(&run->main_uc, &t->uc);
#endif
#ifdef SIMT_ASAN
	__sanitizer_finish_switch_fiber(run->main_fake, NULL, NULL);
#endif
}

/* From thread t back to the scheduler; returns when resumed (unless final). */
static void simt_yield(struct simt_thread *t, bool final)
{
	struct simt_run *run = t->run;

#ifdef SIMT_ASAN
	__sanitizer_start_switch_fiber(final ? NULL : &t->fake,
				       run->main_bottom, run->main_size);
#else
	(void)final;
#endif
#ifdef SIMT_ASM_SWITCH
	simt_ctx_switch(&t->sp, run->main_sp);
#else
	swapcontext(&t->uc, &run->main_uc);
#endif
#ifdef SIMT_ASAN
	__sanitizer_finish_switch_fiber(t->fake, &run->main_bottom,
					&run->main_size);
#endif
}

#ifndef SIMT_ASM_SWITCH
static struct simt_run *simt_uc_run;

static void simt_uc_entry(void)
{
	simt_thread_main(simt_uc_run->starting);
}
#endif

/* ---- stacks ---- */

static struct simt_stack *simt_stack_get(struct simt_gpu *gpu)
{
	struct simt_stack *s;
	long page;

	if (gpu->nfree)
		return gpu->free_stacks[--gpu->nfree];
	page = sysconf(_SC_PAGESIZE);
	/* The pool holds every stack ever made, so putting never fails. */
	if (!(gpu->nstacks & (gpu->nstacks - 1))) {
		size_t cap = gpu->nstacks ? gpu->nstacks * 2 : 1;
		struct simt_stack **n = realloc(gpu->free_stacks,
						cap * sizeof(*n));

		if (!n)
			return NULL;
		gpu->free_stacks = n;
	}
	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->len = SIMT_STACK_BYTES + (size_t)page;
	s->map = mmap(NULL, s->len, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (s->map == MAP_FAILED) {
		free(s);
		return NULL;
	}
	/* A guard page below, so an overflow faults instead of corrupting. */
	mprotect(s->map, (size_t)page, PROT_NONE);
	s->lo = (u8 *)s->map + page;
	/*
	 * Stacks are page aligned: their hot top lines would all compete
	 * for the same cache sets. Start each at its own 64-byte colour.
	 */
	s->top = (u8 *)s->lo + SIMT_STACK_BYTES - (gpu->nstacks % 63) * 64;
	gpu->nstacks++;
	return s;
}

/* The pool has room for every stack made (simt_stack_get()). */
static void simt_stack_put(struct simt_gpu *gpu, struct simt_stack *s)
{
	gpu->free_stacks[gpu->nfree++] = s;
}

/* ---- errors and records ---- */

static int simt_fail(struct simt_gpu *gpu, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int simt_fail(struct simt_gpu *gpu, int err, const char *fmt, ...)
{
	va_list ap;

	if (gpu->error)
		return gpu->error;
	gpu->error = err;
	va_start(ap, fmt);
	vsnprintf(gpu->msg, sizeof(gpu->msg), fmt, ap);
	va_end(ap);
	return err;
}

static int simt_put(struct simt_gpu *gpu, const struct prog_rec *rec)
{
	int ret;

	if (gpu->error)
		return gpu->error;
	if (gpu->sink) {
		ret = gpu->sink(gpu->sink_ctx, rec);
		if (ret)
			return simt_fail(gpu, ret < 0 ? ret : -EIO,
					 "record sink refused a %s record",
					 prog_rec_name(rec->type) ?: "?");
	}
	if (gpu->out) {
		ret = prog_write(gpu->out, rec);
		if (ret)
			return simt_fail(gpu, ret,
					 "writing a %s record: %s%s%s",
					 prog_rec_name(rec->type) ?: "?",
					 gpu->out->grammar.err_field ?: "",
					 gpu->out->grammar.err_field ? ": " : "",
					 gpu->out->grammar.err_why ?:
					 strerror(-ret));
	}
	return 0;
}

static struct prog_rec *simt_rec(struct simt_gpu *gpu, u32 type)
{
	memset(&gpu->rec, 0, sizeof(gpu->rec));
	gpu->rec.type = type;
	return &gpu->rec;
}

/* ---- the GPU ---- */

struct simt_gpu *simt_gpu_new(struct prog_writer *out)
{
	struct simt_gpu *gpu = calloc(1, sizeof(*gpu));

	if (!gpu)
		return NULL;
	gpu->out = out;
	gpu->next_addr = SIMT_GLOBAL_BASE;
	return gpu;
}

void simt_gpu_set_sink(struct simt_gpu *gpu, prog_sink_fn sink, void *ctx)
{
	gpu->sink = sink;
	gpu->sink_ctx = ctx;
}

const char *simt_gpu_error(const struct simt_gpu *gpu)
{
	return gpu->error ? gpu->msg : "";
}

int simt_gpu_finish(struct simt_gpu *gpu)
{
	if (gpu->error)
		return gpu->error;
	return simt_put(gpu, simt_rec(gpu, PROG_REC_END));
}

static void simt_run_free(struct simt_run *run)
{
	u32 i;

	if (!run)
		return;
	for (i = 0; i < SIMT_MAX_THREADS; i++)
		free(run->threads[i].ops);
	for (i = 0; i < SIMT_MAX_WARPS; i++) {
		free(run->warps[i].in);
		free(run->warps[i].addr);
	}
	free(run->threads);
	free(run->shared);
	free(run);
}

void simt_gpu_free(struct simt_gpu *gpu)
{
	size_t i;

	if (!gpu)
		return;
	for (i = 0; i < gpu->nobjs; i++)
		free(gpu->objs[i].mem);
	free(gpu->objs);
	for (i = 0; i < gpu->nfree; i++) {
		munmap(gpu->free_stacks[i]->map, gpu->free_stacks[i]->len);
		free(gpu->free_stacks[i]);
	}
	free(gpu->free_stacks);
	simt_run_free(gpu->run);
	free(gpu);
}

static u64 simt_align_up(u64 v, u64 a)
{
	return (v + a - 1) & ~(a - 1);
}

uint64_t simt_malloc(struct simt_gpu *gpu, uint64_t bytes, const char *name)
{
	struct simt_object *o;
	struct prog_rec *rec;
	u64 base;

	if (gpu->error)
		return 0;
	if (!bytes || bytes > (1ull << 40)) {
		simt_fail(gpu, -EINVAL, "simt_malloc of %llu bytes (%s)",
			  (unsigned long long)bytes, name ?: "unnamed");
		return 0;
	}
	if (gpu->nobjs == gpu->objcap) {
		size_t cap = gpu->objcap ? gpu->objcap * 2 : 16;
		struct simt_object *n = realloc(gpu->objs, cap * sizeof(*n));

		if (!n) {
			simt_fail(gpu, -ENOMEM, "simt_malloc: no memory");
			return 0;
		}
		gpu->objs = n;
		gpu->objcap = cap;
	}
	base = simt_align_up(gpu->next_addr,
			     bytes >= (1u << 20) ? 2u << 20 : 256);
	o = &gpu->objs[gpu->nobjs];
	o->mem = calloc(1, bytes);
	if (!o->mem) {
		simt_fail(gpu, -ENOMEM, "simt_malloc of %llu bytes (%s): no memory",
			  (unsigned long long)bytes, name ?: "unnamed");
		return 0;
	}
	o->base = base;
	o->size = bytes;
	gpu->nobjs++;
	gpu->next_addr = base + bytes;

	rec = simt_rec(gpu, PROG_REC_OBJECT);
	rec->object.base = base;
	rec->object.size = bytes;
	if (name)
		snprintf(rec->object.name, sizeof(rec->object.name), "%s",
			 name);
	else
		snprintf(rec->object.name, sizeof(rec->object.name),
			 "object%zu", gpu->nobjs);
	if (simt_put(gpu, rec))
		return 0;
	return base;
}

/* The object holding [addr, addr + len), or NULL. */
static struct simt_object *simt_find(struct simt_gpu *gpu, u64 addr, u64 len)
{
	struct simt_object *o;
	size_t lo = 0, hi = gpu->nobjs;

	if (gpu->last_obj < gpu->nobjs) {
		o = &gpu->objs[gpu->last_obj];
		if (addr >= o->base && addr - o->base < o->size &&
		    len <= o->size - (addr - o->base))
			return o;
	}
	/* Objects are in address order: the last one starting at or below. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (gpu->objs[mid].base <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	o = &gpu->objs[lo - 1];
	if (addr - o->base >= o->size || len > o->size - (addr - o->base))
		return NULL;
	gpu->last_obj = lo - 1;
	return o;
}

void *simt_host(struct simt_gpu *gpu, uint64_t addr)
{
	struct simt_object *o = simt_find(gpu, addr, 1);

	return o ? o->mem + (addr - o->base) : NULL;
}

static void *simt_copy_range(struct simt_gpu *gpu, const char *what,
			     u64 addr, u64 bytes)
{
	struct simt_object *o;

	if (gpu->error)
		return NULL;
	o = simt_find(gpu, addr, bytes ? bytes : 1);
	if (!o || !bytes) {
		simt_fail(gpu, -EFAULT,
			  "%s of %llu bytes at 0x%llx: not inside one object",
			  what, (unsigned long long)bytes,
			  (unsigned long long)addr);
		return NULL;
	}
	return o->mem + (addr - o->base);
}

static void simt_copy_rec(struct simt_gpu *gpu, u32 dir, u64 base, u64 bytes)
{
	struct prog_rec *rec = simt_rec(gpu, PROG_REC_COPY);

	rec->copy.dir = dir;
	rec->copy.base = base;
	rec->copy.bytes = bytes;
	simt_put(gpu, rec);
}

void simt_h2d(struct simt_gpu *gpu, uint64_t dst, const void *src,
	      uint64_t bytes)
{
	void *p = simt_copy_range(gpu, "simt_h2d", dst, bytes);

	if (!p)
		return;
	memcpy(p, src, bytes);
	simt_copy_rec(gpu, PROG_COPY_H2D, dst, bytes);
}

void simt_d2h(struct simt_gpu *gpu, void *dst, uint64_t src, uint64_t bytes)
{
	void *p = simt_copy_range(gpu, "simt_d2h", src, bytes);

	if (!p)
		return;
	memcpy(dst, p, bytes);
	simt_copy_rec(gpu, PROG_COPY_D2H, src, bytes);
}

/* ---- inside a kernel ---- */

struct simt_dim3 simt_thread_idx(const struct simt_thread *t)
{
	return t->idx;
}

struct simt_dim3 simt_block_idx(const struct simt_thread *t)
{
	return t->run->bidx;
}

struct simt_dim3 simt_block_dim(const struct simt_thread *t)
{
	return t->run->block;
}

struct simt_dim3 simt_grid_dim(const struct simt_thread *t)
{
	return t->run->grid;
}

uint64_t simt_global_x(const struct simt_thread *t)
{
	return (u64)t->run->bidx.x * t->run->block.x + t->idx.x;
}

uint64_t simt_global_threads_x(const struct simt_thread *t)
{
	return (u64)t->run->grid.x * t->run->block.x;
}

void *simt_shared_base(struct simt_thread *t)
{
	return t->run->shared;
}

static const char *simt_space_word(unsigned int space)
{
	return space == PROG_SPACE_SHARED ? "shared" : "global";
}

static const char *simt_kind_word(unsigned int kind)
{
	switch (kind) {
	case PROG_KIND_LOAD:
		return "load";
	case PROG_KIND_STORE:
		return "store";
	case PROG_KIND_ATOMIC:
		return "atomic";
	default:
		return "reduction";
	}
}

/* Stops the thread for good: the launch fails with the GPU's error. */
static void __attribute__((noreturn)) simt_abort(struct simt_thread *t)
{
	t->state = SIMT_T_ABORTED;
	simt_yield(t, true);
	__builtin_unreachable();
}

static void __attribute__((noreturn, format(printf, 3, 4)))
simt_thread_fail(struct simt_thread *t, int err, const char *fmt, ...)
{
	struct simt_run *run = t->run;
	char what[384];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	simt_fail(run->gpu, err, "kernel %s block (%u,%u,%u) thread (%u,%u,%u): %s",
		  run->name, run->bidx.x, run->bidx.y, run->bidx.z,
		  t->idx.x, t->idx.y, t->idx.z, what);
	simt_abort(t);
}

static void __attribute__((noinline)) simt_grow(struct simt_thread *t)
{
	u32 cap = t->cap ? t->cap * 2 : 64;
	struct simt_op *n = NULL;

	if (cap <= (1u << 30))
		n = realloc(t->ops, (size_t)cap * sizeof(*n));
	if (!n)
		simt_thread_fail(t, -ENOMEM,
				 "no memory for %u instructions between barriers",
				 t->nops);
	t->ops = n;
	t->cap = cap;
}

static inline struct simt_op *simt_push(struct simt_thread *t, u64 pc, u8 op)
{
	struct simt_op *o;

	if (t->nops == t->cap)
		simt_grow(t);
	o = &t->ops[t->nops++];
	o->pc = (u32)pc;
	o->op = op;
	o->space_kind = 0;
	o->width = 0;
	o->aop = 0;
	o->addr = 0;
	return o;
}

/*
 * Checks one access and returns the host bytes behind it, recording it
 * as a memory op; the recorded address is the GPU's (global) or the
 * shared window's.
 */
static u8 *simt_mem(struct simt_thread *t, u64 pc, unsigned int space,
		    unsigned int kind, u64 addr, unsigned int width, u16 aop)
{
	struct simt_run *run = t->run;
	struct simt_op *o;
	u8 *host;
	u64 gaddr;

	if (width == 0 || width > 16 || (width & (width - 1)))
		simt_thread_fail(t, -EINVAL, "%s %s of %u bytes: width not 1, 2, 4, 8 or 16",
				 simt_space_word(space), simt_kind_word(kind),
				 width);
	if (addr & (width - 1))
		simt_thread_fail(t, -EFAULT, "%s %s of %u bytes at 0x%llx: misaligned",
				 simt_space_word(space), simt_kind_word(kind),
				 width, (unsigned long long)(space == PROG_SPACE_SHARED ?
				 SIMT_SHMEM_BASE + addr : addr));
	if (space == PROG_SPACE_GLOBAL) {
		struct simt_gpu *gpu = run->gpu;
		u32 *hint = &gpu->pc_obj[(pc ^ pc >> 8) & 63];
		struct simt_object *obj = NULL;

		/* A static instruction mostly touches one object. */
		if (*hint) {
			obj = &gpu->objs[*hint - 1];
			if (addr - obj->base >= obj->size ||
			    width > obj->size - (addr - obj->base))
				obj = NULL;
		}
		if (!obj) {
			obj = simt_find(gpu, addr, width);
			if (obj)
				*hint = (u32)(obj - gpu->objs) + 1;
		}

		if (!obj)
			simt_thread_fail(t, -EFAULT,
					 "global %s of %u bytes at 0x%llx: outside every object",
					 simt_kind_word(kind), width,
					 (unsigned long long)addr);
		host = obj->mem + (addr - obj->base);
		gaddr = addr;
	} else if (space == PROG_SPACE_SHARED) {
		if (addr >= run->shmem || width > run->shmem - addr)
			simt_thread_fail(t, -EFAULT,
					 "shared %s of %u bytes at offset 0x%llx: outside the block's %u shared bytes",
					 simt_kind_word(kind), width,
					 (unsigned long long)addr, run->shmem);
		host = run->shared + addr;
		gaddr = SIMT_SHMEM_BASE + addr;
	} else {
		simt_thread_fail(t, -EINVAL, "memory space %u not supported",
				 space);
	}
	o = simt_push(t, pc, PROG_OP_MEMORY);
	o->space_kind = (u8)(space | kind << 4);
	o->width = (u8)width;
	o->aop = (u8)((aop & SIMT_AOP_MASK) | aop >> 4);
	o->addr = gaddr;
	return host;
}

void simt_access(struct simt_thread *t, uint64_t pc, unsigned int space,
		 unsigned int kind, uint64_t addr, void *val,
		 unsigned int width)
{
	u8 *host;

	if (kind != PROG_KIND_LOAD && kind != PROG_KIND_STORE)
		simt_thread_fail(t, -EINVAL, "access kind %u is not a load or store",
				 kind);
	host = simt_mem(t, pc, space, kind, addr, width, 0);
	if (kind == PROG_KIND_LOAD)
		memcpy(val, host, width);
	else
		memcpy(host, val, width);
}

static bool simt_aop_valid(unsigned int aop, unsigned int width)
{
	unsigned int op = aop & SIMT_AOP_MASK;

	if (width != 4 && width != 8)
		return false;
	if (aop & ~(SIMT_AOP_MASK | SIMT_ATOMIC_SIGNED | SIMT_ATOMIC_FLOAT))
		return false;
	return op <= SIMT_ATOMIC_FADD;
}

/* The new value of an atomic on a 4- or 8-byte word. */
static u64 simt_aop_apply(unsigned int aop, unsigned int width, u64 old,
			  u64 val, u64 cmp)
{
	unsigned int op = aop & SIMT_AOP_MASK;
	bool fl = (aop & SIMT_ATOMIC_FLOAT) || op == SIMT_ATOMIC_FADD;
	bool sg = aop & SIMT_ATOMIC_SIGNED;
	union { float f; u32 u; } f32a, f32b;
	union { double d; u64 u; } f64a, f64b;
	bool less;

	switch (op) {
	case SIMT_ATOMIC_ADD:
	case SIMT_ATOMIC_FADD:
		if (!fl)
			return old + val;
		if (width == 4) {
			f32a.u = (u32)old;
			f32b.u = (u32)val;
			f32a.f += f32b.f;
			return f32a.u;
		}
		f64a.u = old;
		f64b.u = val;
		f64a.d += f64b.d;
		return f64a.u;
	case SIMT_ATOMIC_MIN:
	case SIMT_ATOMIC_MAX:
		if (fl && width == 4) {
			f32a.u = (u32)old;
			f32b.u = (u32)val;
			less = f32b.f < f32a.f;
		} else if (fl) {
			f64a.u = old;
			f64b.u = val;
			less = f64b.d < f64a.d;
		} else if (sg && width == 4) {
			less = (int32_t)val < (int32_t)old;
		} else if (sg) {
			less = (int64_t)val < (int64_t)old;
		} else {
			less = val < old;
		}
		if (op == SIMT_ATOMIC_MIN)
			return less ? val : old;
		return less || val == old ? old : val;
	case SIMT_ATOMIC_EXCH:
		return val;
	case SIMT_ATOMIC_CAS:
		return old == cmp ? val : old;
	case SIMT_ATOMIC_OR:
		return old | val;
	default:
		return old & val;
	}
}

uint64_t simt_atomic(struct simt_thread *t, uint64_t pc, unsigned int space,
		     unsigned int kind, int atomic_op, uint64_t addr,
		     uint64_t val, uint64_t cmp, unsigned int width)
{
	unsigned int aop = (unsigned int)atomic_op;
	u64 old = 0, nv;
	u8 *host;

	if (kind != PROG_KIND_ATOMIC && kind != PROG_KIND_REDUCTION)
		simt_thread_fail(t, -EINVAL, "atomic kind %u is not an atomic or reduction",
				 kind);
	if (atomic_op < 0 || !simt_aop_valid(aop, width))
		simt_thread_fail(t, -EINVAL, "atomic op %d on %u bytes not supported",
				 atomic_op, width);
	host = simt_mem(t, pc, space, kind, addr, width, (u16)aop);
	if (width == 4) {
		u32 w;

		memcpy(&w, host, 4);
		old = w;
		val &= 0xffffffffu;
		cmp &= 0xffffffffu;
	} else {
		memcpy(&old, host, 8);
	}
	nv = simt_aop_apply(aop, width, old, val, cmp);
	if (width == 4) {
		u32 w = (u32)nv;

		memcpy(host, &w, 4);
	} else {
		memcpy(host, &nv, 8);
	}
	return old;
}

void simt_ops(struct simt_thread *t, uint64_t pc, unsigned int op,
	      unsigned int count)
{
	struct simt_op *o;

	if (op >= PROG_OP_NR || op == PROG_OP_MEMORY || op == PROG_OP_BARRIER)
		simt_thread_fail(t, -EINVAL, "OPS of class %u: not an ALU, branch or other class",
				 op);
	if (!count)
		return;
	o = simt_push(t, pc, op);
	o->addr = count;
}

void simt_barrier(struct simt_thread *t, uint64_t pc)
{
	simt_push(t, pc, PROG_OP_BARRIER);
	t->state = SIMT_T_BARRIER;
	simt_yield(t, false);
}

static void simt_thread_main(struct simt_thread *t)
{
	struct simt_run *run = t->run;

#ifdef SIMT_ASAN
	__sanitizer_finish_switch_fiber(NULL, &run->main_bottom,
					&run->main_size);
#endif
	run->fn(t, run->args);
	simt_push(t, SIMT_EXIT_PC, SIMT_OP_EXIT);
	t->state = SIMT_T_EXITED;
	simt_yield(t, true);
	__builtin_unreachable();
}

/* ---- merging a warp's threads ---- */

static int simt_wbuf_push(struct simt_wbuf *wb, const struct simt_winst *w)
{
	if (wb->n == wb->cap) {
		size_t cap = wb->cap ? wb->cap * 2 : 256;
		struct simt_winst *n = realloc(wb->in, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		wb->in = n;
		wb->cap = cap;
	}
	wb->in[wb->n++] = *w;
	wb->insts += w->count;
	return 0;
}

static int simt_wbuf_addrs(struct simt_wbuf *wb, unsigned int lanes)
{
	if (wb->naddr + lanes > wb->addrcap) {
		size_t cap = wb->addrcap ? wb->addrcap * 2 : 1024;
		u64 *n;

		while (cap < wb->naddr + lanes)
			cap *= 2;
		n = realloc(wb->addr, cap * sizeof(*n));
		if (!n)
			return -ENOMEM;
		wb->addr = n;
		wb->addrcap = cap;
	}
	return 0;
}

/*
 * A lane's place in the merge: its op's PC, or past every PC at its
 * barrier or exit, which end its phase (they are issued last).
 */
static inline u64 simt_key(const struct simt_op *o)
{
	return o->op == PROG_OP_BARRIER || o->op == SIMT_OP_EXIT ?
	       UINT64_MAX : o->pc;
}

/* What must agree for lanes at one PC to share a warp instruction. */
static inline u32 simt_shape(const struct simt_op *o)
{
	return (u32)o->op | (u32)o->space_kind << 8 | (u32)o->width << 16;
}

/*
 * Merges warp w's phase (each lane's ops up to its barrier or exit) into
 * its warp instructions by min-PC reconvergence, and clears the ops.
 */
static int simt_merge_warp(struct simt_run *run, u32 w)
{
	struct simt_wbuf *wb = &run->warps[w];
	struct simt_thread *th = &run->threads[w * PROG_WARP_SIZE];
	u32 nl = run->nthreads - w * PROG_WARP_SIZE;
	u32 cur[PROG_WARP_SIZE] = { 0 };
	u64 key[PROG_WARP_SIZE];
	u32 live = 0, waiting = 0, exited = 0, l, m;
	struct simt_winst wi;

	if (nl > PROG_WARP_SIZE)
		nl = PROG_WARP_SIZE;
	for (l = 0; l < nl; l++)
		if (th[l].nops) {
			live |= 1u << l;
			key[l] = simt_key(&th[l].ops[0]);
		}

	for (;;) {
		u32 mask = 0, shape;
		u64 minpc = UINT64_MAX;
		const struct simt_op *first;

		/* The smallest PC a lane waits at, and the lanes there. */
		for (m = live; m; m &= m - 1) {
			l = __builtin_ctz(m);
			if (key[l] < minpc) {
				minpc = key[l];
				mask = 1u << l;
			} else if (key[l] == minpc) {
				mask |= 1u << l;
			}
		}
		if (minpc == UINT64_MAX)
			break;
		/*
		 * Ops at one PC come from one macro use, so they agree; if
		 * two sources' PCs collide, the others wait their turn.
		 */
		l = __builtin_ctz(mask);
		first = &th[l].ops[cur[l]];
		shape = simt_shape(first);
		for (m = mask & (mask - 1); m; m &= m - 1) {
			l = __builtin_ctz(m);
			if (simt_shape(&th[l].ops[cur[l]]) != shape)
				mask &= ~(1u << l);
		}

		memset(&wi, 0, sizeof(wi));
		wi.pc = minpc;
		wi.op = first->op;
		if (first->op == PROG_OP_MEMORY) {
			unsigned int k = 0;

			wi.mask = mask;
			wi.count = 1;
			wi.space = first->space_kind & 0xf;
			wi.kind = first->space_kind >> 4;
			wi.width = first->width;
			wi.aop = (first->aop & 0xf) | (first->aop & 0xf0) << 4;
			if (simt_wbuf_addrs(wb, prog_lanes(mask)))
				return -ENOMEM;
			for (m = mask; m; m &= m - 1) {
				l = __builtin_ctz(m);
				wb->addr[wb->naddr + k++] = th[l].ops[cur[l]].addr;
			}
			wb->naddr += k;
			if (simt_wbuf_push(wb, &wi))
				return -ENOMEM;
		} else {
			/*
			 * OPS: lanes may count differently; the i-th
			 * instruction is active for lanes with more than i.
			 */
			u64 done = 0;

			for (;;) {
				u64 next = UINT64_MAX;
				u32 gm = 0;

				for (m = mask; m; m &= m - 1) {
					u64 c;

					l = __builtin_ctz(m);
					c = th[l].ops[cur[l]].addr;
					if (c > done) {
						gm |= 1u << l;
						if (c < next)
							next = c;
					}
				}
				if (!gm)
					break;
				if (next - done > UINT32_MAX)
					return -E2BIG;
				wi.mask = gm;
				wi.first = (u32)done;
				wi.count = (u32)(next - done);
				if (simt_wbuf_push(wb, &wi))
					return -ENOMEM;
				done = next;
			}
		}
		for (m = mask; m; m &= m - 1) {
			l = __builtin_ctz(m);
			key[l] = simt_key(&th[l].ops[++cur[l]]);
		}
	}

	/* Every live lane is at its barrier or exit. */
	for (m = live; m; m &= m - 1) {
		l = __builtin_ctz(m);
		if (th[l].ops[cur[l]].op == SIMT_OP_EXIT)
			exited |= 1u << l;
		else
			waiting |= 1u << l;
	}
	if (exited) {
		memset(&wi, 0, sizeof(wi));
		wi.pc = SIMT_EXIT_PC;
		wi.mask = exited;
		wi.count = 1;
		wi.op = SIMT_OP_EXIT;
		if (simt_wbuf_push(wb, &wi))
			return -ENOMEM;
	}
	if (waiting) {
		memset(&wi, 0, sizeof(wi));
		wi.pc = th[__builtin_ctz(waiting)].ops[cur[__builtin_ctz(waiting)]].pc;
		wi.mask = waiting;
		wi.count = 1;
		wi.op = PROG_OP_BARRIER;
		if (simt_wbuf_push(wb, &wi))
			return -ENOMEM;
	}
	if (!waiting)
		wb->done = true;
	for (l = 0; l < nl; l++)
		th[l].nops = 0;
	return 0;
}

/* ---- writing a warp ---- */

static const char *simt_aop_name(unsigned int aop)
{
	static const char *const names[] = {
		[SIMT_ATOMIC_ADD] = "ADD", [SIMT_ATOMIC_MIN] = "MIN",
		[SIMT_ATOMIC_MAX] = "MAX", [SIMT_ATOMIC_EXCH] = "EXCH",
		[SIMT_ATOMIC_CAS] = "CAS", [SIMT_ATOMIC_OR] = "OR",
		[SIMT_ATOMIC_AND] = "AND", [SIMT_ATOMIC_FADD] = "ADD",
	};

	return names[aop & SIMT_AOP_MASK];
}

/* The SASS mnemonic of a warp instruction (sm_70 spelling). */
static void simt_opcode(const struct simt_winst *w, struct prog_inst *in)
{
	char *s = in->opcode;
	size_t n = sizeof(in->opcode);

	if (w->op == SIMT_OP_EXIT) {
		snprintf(s, n, "EXIT");
		return;
	}
	if (w->op == PROG_OP_MEMORY &&
	    (w->kind == PROG_KIND_ATOMIC || w->kind == PROG_KIND_REDUCTION)) {
		unsigned int op = w->aop & SIMT_AOP_MASK;
		bool fl = (w->aop & SIMT_ATOMIC_FLOAT) || op == SIMT_ATOMIC_FADD;
		const char *type = "";

		if (fl)
			type = w->width == 8 ? ".F64.RN" : ".F32.FTZ.RN";
		else if ((w->aop & SIMT_ATOMIC_SIGNED) &&
			 (op == SIMT_ATOMIC_MIN || op == SIMT_ATOMIC_MAX))
			type = w->width == 8 ? ".S64" : ".S32";
		else if (w->width == 8)
			type = ".64";
		if (w->space == PROG_SPACE_SHARED)
			snprintf(s, n, "ATOMS.%s%s", simt_aop_name(w->aop), type);
		else
			snprintf(s, n, "%s.E.%s%s",
				 w->kind == PROG_KIND_ATOMIC ? "ATOMG" : "RED",
				 simt_aop_name(w->aop), type);
		return;
	}
	strncpy(s, prog_default_opcode(in), n - 1);
}

struct simt_regs {
	u32 next_pool;
	u16 pending[PROG_MAX_REGS];
	u32 npending;
	u16 last;		/* most recently written; 0 none */
	bool have_int, have_fp;
};

static void simt_src(struct prog_inst *in, u16 r)
{
	u32 i;

	for (i = 0; i < in->nsrc; i++)
		if (in->src[i] == r)
			return;
	if (in->nsrc < PROG_MAX_REGS)
		in->src[in->nsrc++] = r;
}

static void simt_load_dst(struct simt_regs *rg, struct prog_inst *in)
{
	u16 r = SIMT_REG_POOL + rg->next_pool;

	rg->next_pool = (rg->next_pool + 1) % SIMT_REG_POOL_N;
	in->dst[in->ndst++] = r;
	if (rg->npending == PROG_MAX_REGS - 2) {
		memmove(rg->pending, rg->pending + 1,
			(rg->npending - 1) * sizeof(rg->pending[0]));
		rg->npending--;
	}
	rg->pending[rg->npending++] = r;
	rg->last = r;
}

/* The registers of the i-th instruction of w (simt.c's header says why). */
static void simt_regs(struct simt_regs *rg, const struct simt_winst *w,
		      u32 i, struct prog_inst *in)
{
	u16 addr = rg->have_int ? SIMT_REG_INT : SIMT_REG_START;
	u16 data = rg->last ? rg->last : SIMT_REG_START;
	u16 res;
	u32 k;

	switch (w->op) {
	case PROG_OP_MEMORY:
		simt_src(in, addr);
		if (w->kind != PROG_KIND_LOAD)
			simt_src(in, data);
		if (w->kind == PROG_KIND_LOAD || w->kind == PROG_KIND_ATOMIC)
			simt_load_dst(rg, in);
		return;
	case PROG_OP_BRANCH:
		simt_src(in, data);
		return;
	case PROG_OP_BARRIER:
	case PROG_OP_OTHER:
	case SIMT_OP_EXIT:
		return;
	case PROG_OP_INT:
		res = SIMT_REG_INT;
		break;
	default:
		res = SIMT_REG_FP;
		break;
	}
	if (i == 0 && w->first == 0) {
		for (k = 0; k < rg->npending; k++)
			simt_src(in, rg->pending[k]);
		rg->npending = 0;
		if (res == SIMT_REG_INT ? rg->have_int : rg->have_fp)
			simt_src(in, res);
		if (!in->nsrc)
			simt_src(in, SIMT_REG_START);
	} else {
		simt_src(in, res);
	}
	in->dst[in->ndst++] = res;
	if (res == SIMT_REG_INT)
		rg->have_int = true;
	else
		rg->have_fp = true;
	rg->last = res;
}

static int simt_emit_warp(struct simt_run *run, u32 w)
{
	struct simt_gpu *gpu = run->gpu;
	struct simt_wbuf *wb = &run->warps[w];
	struct simt_regs rg;
	struct prog_rec *rec;
	size_t k, a = 0;
	int ret;

	if (wb->insts > UINT32_MAX)
		return simt_fail(gpu, -E2BIG,
				 "kernel %s block (%u,%u,%u) warp %u: %llu instructions, more than a warp record holds",
				 run->name, run->bidx.x, run->bidx.y,
				 run->bidx.z, w,
				 (unsigned long long)wb->insts);
	rec = simt_rec(gpu, PROG_REC_WARP);
	rec->warp.id = w;
	rec->warp.insts = (u32)wb->insts;
	ret = simt_put(gpu, rec);
	if (ret)
		return ret;
	memset(&rg, 0, sizeof(rg));
	for (k = 0; k < wb->n; k++) {
		const struct simt_winst *wi = &wb->in[k];
		u32 i;

		for (i = 0; i < wi->count; i++) {
			struct prog_inst *in;
			u32 idx = wi->first + i;

			rec = simt_rec(gpu, PROG_REC_INST);
			in = &rec->inst;
			in->pc = wi->pc << 8 | (idx > 0xff ? 0xff : idx);
			in->mask = wi->mask;
			in->op = wi->op == SIMT_OP_EXIT ? PROG_OP_BRANCH : wi->op;
			if (wi->op == PROG_OP_MEMORY) {
				u32 m;

				in->space = wi->space;
				in->kind = wi->kind;
				in->width = wi->width;
				for (m = wi->mask; m; m &= m - 1)
					in->addr[__builtin_ctz(m)] = wb->addr[a++];
			}
			simt_regs(&rg, wi, i, in);
			simt_opcode(wi, in);
			ret = simt_put(gpu, rec);
			if (ret)
				return ret;
		}
	}
	wb->n = 0;
	wb->naddr = 0;
	wb->insts = 0;
	return 0;
}

/* Writes the warps from run->next_emit on that are whole, in order. */
static int simt_emit_ready(struct simt_run *run)
{
	int ret;

	while (run->next_emit < run->nwarps &&
	       run->warps[run->next_emit].done) {
		ret = simt_emit_warp(run, run->next_emit);
		if (ret)
			return ret;
		run->next_emit++;
	}
	return 0;
}

/* ---- a launch ---- */

/* Returns every stack the block's threads hold to the pool. */
static void simt_release_stacks(struct simt_run *run)
{
	u32 i;

	for (i = 0; i < run->nthreads; i++) {
		struct simt_thread *t = &run->threads[i];

		if (!t->stack)
			continue;
#ifdef SIMT_ASAN
		/* Abandoned frames leave poisoned redzones behind. */
		if (t->state != SIMT_T_EXITED)
			ASAN_UNPOISON_MEMORY_REGION(t->stack->lo,
						    SIMT_STACK_BYTES);
#endif
		simt_stack_put(run->gpu, t->stack);
		t->stack = NULL;
	}
}

static int simt_run_block(struct simt_run *run)
{
	struct simt_gpu *gpu = run->gpu;
	struct prog_rec *rec;
	bool again;
	u32 i, w;
	int ret;

	if (run->shmem)
		memset(run->shared, 0, run->shmem);
	for (i = 0; i < run->nthreads; i++) {
		struct simt_thread *t = &run->threads[i];

		t->state = SIMT_T_NEW;
		t->nops = 0;
	}
	for (w = 0; w < run->nwarps; w++) {
		run->warps[w].n = 0;
		run->warps[w].naddr = 0;
		run->warps[w].insts = 0;
		run->warps[w].done = false;
	}
	run->next_emit = 0;
	rec = simt_rec(gpu, PROG_REC_BLOCK);
	rec->block.x = run->bidx.x;
	rec->block.y = run->bidx.y;
	rec->block.z = run->bidx.z;
	ret = simt_put(gpu, rec);
	if (ret)
		return ret;

	do {
		again = false;
		for (w = 0; w < run->nwarps; w++) {
			u32 end = (w + 1) * PROG_WARP_SIZE;

			if (run->warps[w].done)
				continue;
			if (end > run->nthreads)
				end = run->nthreads;
			for (i = w * PROG_WARP_SIZE; i < end; i++) {
				struct simt_thread *t = &run->threads[i];

				if (t->state == SIMT_T_EXITED)
					continue;
				if (t->state == SIMT_T_NEW) {
					t->stack = simt_stack_get(gpu);
					if (!t->stack) {
						simt_fail(gpu, -ENOMEM,
							  "kernel %s: no memory for a thread's stack",
							  run->name);
						goto fail;
					}
					simt_stack_prepare(t);
				}
				simt_resume(run, t);
				if (t->state == SIMT_T_ABORTED || gpu->error)
					goto fail;
				if (t->state == SIMT_T_EXITED) {
					simt_stack_put(gpu, t->stack);
					t->stack = NULL;
				} else {
					t->state = SIMT_T_RUNNABLE;
					again = true;
				}
			}
			ret = simt_merge_warp(run, w);
			if (ret) {
				simt_fail(gpu, ret,
					  "kernel %s block (%u,%u,%u) warp %u: %s",
					  run->name, run->bidx.x, run->bidx.y,
					  run->bidx.z, w, strerror(-ret));
				goto fail;
			}
			ret = simt_emit_ready(run);
			if (ret)
				goto fail;
		}
	} while (again);

	rec = simt_rec(gpu, PROG_REC_BLOCK_END);
	return simt_put(gpu, rec);
fail:
	simt_release_stacks(run);
	return gpu->error;
}

static struct simt_run *simt_run_get(struct simt_gpu *gpu)
{
	struct simt_run *run = gpu->run;

	if (run)
		return run;
	run = calloc(1, sizeof(*run));
	if (!run)
		return NULL;
	run->threads = calloc(SIMT_MAX_THREADS, sizeof(*run->threads));
	if (!run->threads) {
		free(run);
		return NULL;
	}
	run->gpu = gpu;
	gpu->run = run;
	return run;
}

int simt_launch(struct simt_gpu *gpu, const char *name, simt_kernel_fn fn,
		struct simt_dim3 grid, struct simt_dim3 block, uint32_t shmem,
		const void *args)
{
	struct simt_run *run;
	struct prog_rec *rec;
	u64 nblocks, b;
	u32 i, x, y, z;
	int ret;

	if (gpu->error)
		return gpu->error;
	if (gpu->running)
		return simt_fail(gpu, -EBUSY, "kernel %s launched from a kernel",
				 name ?: "?");
	if (!name || !*name || strlen(name) >= PROG_NAME_MAX || !fn)
		return simt_fail(gpu, -EINVAL, "kernel launch without a name (shorter than %u bytes) or a function",
				 PROG_NAME_MAX);
	if (!grid.x || !grid.y || !grid.z || grid.x > INT32_MAX ||
	    grid.y > 65535 || grid.z > 65535)
		return simt_fail(gpu, -EINVAL, "kernel %s: grid (%u,%u,%u) is not 1..2^31-1 x 1..65535 x 1..65535",
				 name, grid.x, grid.y, grid.z);
	if (!block.x || !block.y || !block.z || block.x > SIMT_MAX_THREADS ||
	    block.y > SIMT_MAX_THREADS || block.z > 64 ||
	    (u64)block.x * block.y * block.z > SIMT_MAX_THREADS)
		return simt_fail(gpu, -EINVAL, "kernel %s: block (%u,%u,%u) is not 1..%u threads (z at most 64)",
				 name, block.x, block.y, block.z,
				 SIMT_MAX_THREADS);
	if (shmem > SIMT_MAX_SHMEM)
		return simt_fail(gpu, -EINVAL, "kernel %s: %u shared bytes, more than %u",
				 name, shmem, SIMT_MAX_SHMEM);
	run = simt_run_get(gpu);
	if (!run)
		return simt_fail(gpu, -ENOMEM, "kernel %s: no memory", name);
	if (shmem > run->shmem || (shmem && !run->shared)) {
		u8 *n = realloc(run->shared, shmem);

		if (!n)
			return simt_fail(gpu, -ENOMEM, "kernel %s: no memory",
					 name);
		run->shared = n;
	}
	run->shmem = shmem;
	run->fn = fn;
	run->args = args;
	run->name = name;
	run->grid = grid;
	run->block = block;
	run->nthreads = block.x * block.y * block.z;
	run->nwarps = (run->nthreads + PROG_WARP_SIZE - 1) / PROG_WARP_SIZE;
	for (i = 0, z = 0; z < block.z; z++)
		for (y = 0; y < block.y; y++)
			for (x = 0; x < block.x; x++, i++) {
				struct simt_thread *t = &run->threads[i];

				t->run = run;
				t->idx = DIM3(x, y, z);
				t->linear = i;
				t->stack = NULL;
			}

	rec = simt_rec(gpu, PROG_REC_KERNEL);
	rec->kernel.id = ++gpu->kernels;
	snprintf(rec->kernel.name, sizeof(rec->kernel.name), "%s", name);
	rec->kernel.grid[0] = grid.x;
	rec->kernel.grid[1] = grid.y;
	rec->kernel.grid[2] = grid.z;
	rec->kernel.block[0] = block.x;
	rec->kernel.block[1] = block.y;
	rec->kernel.block[2] = block.z;
	rec->kernel.shmem = shmem;
	rec->kernel.nregs = SIMT_NREGS;
	rec->kernel.binary_version = SIMT_BINARY_VERSION;
	rec->kernel.stream = 0;
	rec->kernel.shmem_base = SIMT_SHMEM_BASE;
	rec->kernel.local_base = SIMT_LOCAL_BASE;
	ret = simt_put(gpu, rec);
	if (ret)
		return ret;

	gpu->running = true;
#ifndef SIMT_ASM_SWITCH
	simt_uc_run = run;
#endif
	nblocks = (u64)grid.x * grid.y * grid.z;
	for (b = 0; b < nblocks; b++) {
		run->bidx.x = (u32)(b % grid.x);
		run->bidx.y = (u32)(b / grid.x % grid.y);
		run->bidx.z = (u32)(b / grid.x / grid.y);
		ret = simt_run_block(run);
		if (ret)
			break;
	}
	gpu->running = false;
	if (ret)
		return ret;
	return simt_put(gpu, simt_rec(gpu, PROG_REC_KERNEL_END));
}
