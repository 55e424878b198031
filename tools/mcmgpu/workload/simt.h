/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The SIMT executor: GPU kernels written in C, run on real data for
 * every thread of their grid, recorded as a program (program.h) the way
 * a traced GPU would record them. docs/workloads.md describes the model;
 * in short:
 *
 *  - A kernel is a function run once per thread. It reads and writes GPU
 *    objects only through the macros below, which compute on the real
 *    bytes and record one access each; it states its arithmetic with
 *    OPS(). Everything else it does is free and unrecorded.
 *  - Each macro use is one static instruction: its PC comes from its
 *    source line and position, so PCs follow the source text.
 *  - A block's threads run one after the other up to each barrier (CUDA
 *    lets them run in any order between barriers); then each warp's 32
 *    per-thread records are merged into warp instructions by always
 *    issuing the smallest PC that some thread waits at (min-PC
 *    reconvergence, exact for structured code): the threads waiting
 *    there form the active mask, and a memory instruction gets one
 *    address per active lane.
 *  - Blocks run one after the other in linear order; the program lists
 *    them in that order. Same kernel, input and seed: same bytes.
 */
#ifndef MCMGPU_TOOL_SIMT_H
#define MCMGPU_TOOL_SIMT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "program.h"

struct simt_gpu;
struct simt_thread;

struct simt_dim3 {
	uint32_t x, y, z;
};

#define DIM3(x, y, z) ((struct simt_dim3){ (x), (y), (z) })

typedef void (*simt_kernel_fn)(struct simt_thread *t, const void *args);

/*
 * A GPU: its objects' backing memory and the program being written to
 * out (its header already written; NULL: only to the sink below). NULL
 * on allocation failure.
 */
struct simt_gpu *simt_gpu_new(struct prog_writer *out);
/*
 * Every record the GPU writes also goes to sink (before out), e.g. the
 * timing core's or a test's. A sink's error stops the GPU like a write's.
 */
void simt_gpu_set_sink(struct simt_gpu *gpu, prog_sink_fn sink, void *ctx);
/*
 * Writes END; the first error of the GPU (a failed write, a launch's
 * error, a bad copy or allocation), or 0. After an error the program is
 * left incomplete and every later call fails with the same error.
 */
int simt_gpu_finish(struct simt_gpu *gpu);
/* The message of the GPU's first error ("" while there is none). */
const char *simt_gpu_error(const struct simt_gpu *gpu);
void simt_gpu_free(struct simt_gpu *gpu);

/*
 * cudaMalloc: a zeroed object named name (an OBJECT record). Addresses
 * are deterministic: 256 B aligned, and 2 MiB aligned from 1 MiB up,
 * the first at 0x7f0000000000. 0 on error (simt_gpu_error()).
 */
uint64_t simt_malloc(struct simt_gpu *gpu, uint64_t bytes, const char *name);
/* The object's bytes at a GPU address, for host code between launches. */
void *simt_host(struct simt_gpu *gpu, uint64_t addr);
/*
 * cudaMemcpy both ways: moves the bytes and writes a COPY record. A range
 * not inside one object is the GPU's error (-EFAULT), and copies nothing.
 */
void simt_h2d(struct simt_gpu *gpu, uint64_t dst, const void *src,
	      uint64_t bytes);
void simt_d2h(struct simt_gpu *gpu, void *dst, uint64_t src, uint64_t bytes);

/*
 * A launch: runs fn for every thread of grid x block, writing a KERNEL,
 * its blocks and warps. shmem: shared bytes a block (simt_shared()).
 * args is passed to every thread unchanged. 0 or a negative errno (the
 * program's writer failed, or a kernel touched memory outside every
 * object: the message names the kernel, thread and address).
 */
int simt_launch(struct simt_gpu *gpu, const char *name, simt_kernel_fn fn,
		struct simt_dim3 grid, struct simt_dim3 block, uint32_t shmem,
		const void *args);

/* Inside a kernel: CUDA's threadIdx, blockIdx, blockDim and gridDim. */
struct simt_dim3 simt_thread_idx(const struct simt_thread *t);
struct simt_dim3 simt_block_idx(const struct simt_thread *t);
struct simt_dim3 simt_block_dim(const struct simt_thread *t);
struct simt_dim3 simt_grid_dim(const struct simt_thread *t);
/* blockIdx.x * blockDim.x + threadIdx.x, and the grid's x extent. */
uint64_t simt_global_x(const struct simt_thread *t);
uint64_t simt_global_threads_x(const struct simt_thread *t);

/* The executor's entry points behind the macros; pc from SIMT_PC. */
void simt_access(struct simt_thread *t, uint64_t pc, unsigned int space,
		 unsigned int kind, uint64_t addr, void *val,
		 unsigned int width);
uint64_t simt_atomic(struct simt_thread *t, uint64_t pc, unsigned int space,
		     unsigned int kind, int atomic_op, uint64_t addr,
		     uint64_t val, uint64_t cmp, unsigned int width);
void simt_ops(struct simt_thread *t, uint64_t pc, unsigned int op,
	      unsigned int count);
void simt_barrier(struct simt_thread *t, uint64_t pc);
/* The block's shared memory (shmem bytes, zeroed at block start). */
void *simt_shared_base(struct simt_thread *t);

enum simt_atomic_op {
	SIMT_ATOMIC_ADD, SIMT_ATOMIC_MIN, SIMT_ATOMIC_MAX, SIMT_ATOMIC_EXCH,
	SIMT_ATOMIC_CAS, SIMT_ATOMIC_OR, SIMT_ATOMIC_AND, SIMT_ATOMIC_FADD,
};
/*
 * Flags the macros add to the op from T: MIN and MAX compare signed
 * (int32_t, int64_t) or as floats, ADD adds floats (float: 4 bytes,
 * double: 8).
 */
#define SIMT_ATOMIC_SIGNED	0x100
#define SIMT_ATOMIC_FLOAT	0x200
#define simt_atomic_flags_(T)						\
	(((T)0.5 != (T)0) ? SIMT_ATOMIC_FLOAT :				\
	 ((T)-1 < (T)1) ? SIMT_ATOMIC_SIGNED : 0)

/* A static instruction's PC: its line, and its place among the macros. */
#define SIMT_PC ((uint64_t)__LINE__ << 8 | (__COUNTER__ & 0xff))

/*
 * Global memory: element i of type T of the array at GPU address base.
 * LD returns it; ST stores v. Each use is one memory instruction.
 */
#define LD(t, T, base, i) ({						\
	T simt_v_;							\
	simt_access((t), SIMT_PC, PROG_SPACE_GLOBAL, PROG_KIND_LOAD,	\
		    (base) + (uint64_t)(i) * sizeof(T), &simt_v_,	\
		    sizeof(T));						\
	simt_v_; })
#define ST(t, T, base, i, v) do {					\
	T simt_v_ = (v);						\
	simt_access((t), SIMT_PC, PROG_SPACE_GLOBAL, PROG_KIND_STORE,	\
		    (base) + (uint64_t)(i) * sizeof(T), &simt_v_,	\
		    sizeof(T));						\
} while (0)

/*
 * Shared memory, by byte offset in the block's shmem: LDS/STS. The
 * kernel may also read simt_shared_base() directly for unrecorded host
 * bookkeeping, but its real accesses go through these.
 */
#define LDS(t, T, i) ({							\
	T simt_v_;							\
	simt_access((t), SIMT_PC, PROG_SPACE_SHARED, PROG_KIND_LOAD,	\
		    (uint64_t)(i) * sizeof(T), &simt_v_, sizeof(T));	\
	simt_v_; })
#define STS(t, T, i, v) do {						\
	T simt_v_ = (v);						\
	simt_access((t), SIMT_PC, PROG_SPACE_SHARED, PROG_KIND_STORE,	\
		    (uint64_t)(i) * sizeof(T), &simt_v_, sizeof(T));	\
} while (0)

/*
 * Atomics on global memory (ATOMG: returns the old value) and
 * reductions (RED: returns nothing). T is uint32_t, uint64_t, int32_t,
 * int64_t, float or double (ADD or FADD adds them as floats). CAS stores
 * v where the old value equals cmp (bit for bit). The atomics of a block
 * take effect in the order its threads run (thread by thread between
 * barriers), on the real bytes.
 */
#define ATOMIC(t, T, op, base, i, v) simt_from_bits_(T, simt_atomic((t),	\
	SIMT_PC, PROG_SPACE_GLOBAL, PROG_KIND_ATOMIC,			\
	(op) | simt_atomic_flags_(T),					\
	(base) + (uint64_t)(i) * sizeof(T), simt_bits_(T, v), 0,	\
	sizeof(T)))
#define ATOMIC_CAS(t, T, base, i, cmp, v) simt_from_bits_(T,		\
	simt_atomic((t), SIMT_PC, PROG_SPACE_GLOBAL, PROG_KIND_ATOMIC,	\
	SIMT_ATOMIC_CAS, (base) + (uint64_t)(i) * sizeof(T),		\
	simt_bits_(T, v), simt_bits_(T, cmp), sizeof(T)))
#define RED(t, T, op, base, i, v) ((void)simt_atomic((t), SIMT_PC,	\
	PROG_SPACE_GLOBAL, PROG_KIND_REDUCTION, (op) | simt_atomic_flags_(T), \
	(base) + (uint64_t)(i) * sizeof(T), simt_bits_(T, v), 0,	\
	sizeof(T)))
/* Atomics on shared memory (ATOMS), by byte offset / sizeof(T). */
#define ATOMIC_SHARED(t, T, op, i, v) simt_from_bits_(T,		\
	simt_atomic((t), SIMT_PC, PROG_SPACE_SHARED, PROG_KIND_ATOMIC,	\
	(op) | simt_atomic_flags_(T), (uint64_t)(i) * sizeof(T),	\
	simt_bits_(T, v), 0,						\
	sizeof(T)))

/* A value's bits in a u64 (floats by their representation). */
#define simt_bits_(T, v) ({						\
	union { T v_; uint64_t u_; } simt_b_ = { .u_ = 0 };		\
	simt_b_.v_ = (v);						\
	simt_b_.u_; })
#define simt_from_bits_(T, bits) ({					\
	union { T v_; uint64_t u_; } simt_b_ = { .u_ = (bits) };	\
	simt_b_.v_; })

/*
 * Arithmetic the kernel does here: count instructions of class op
 * (PROG_OP_INT, _FP, _DP, _SFU, _BRANCH), each one warp instruction for
 * the threads that reach this line together.
 */
#define OPS(t, op, count) simt_ops((t), SIMT_PC, (op), (count))

/* __syncthreads(): every thread of the block reaches it, or none. */
#define SYNC(t) simt_barrier((t), SIMT_PC)

#endif /* MCMGPU_TOOL_SIMT_H */
