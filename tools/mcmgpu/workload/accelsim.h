/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Accel-Sim traces (the NVBit tracer's output after post-processing) in
 * and out of the program format (program.h). docs/workloads.md has the
 * format with its sources; in short:
 *
 * A trace directory holds kernelslist.g, one command a line:
 *   MemcpyHtoD,0xADDR,BYTES     a host-to-device copy
 *   MemcpyDtoH,0xADDR,BYTES     a device-to-host copy (some tracers)
 *   kernel-N.traceg             a launch: its trace file, relative to DIR
 *                               (ending in .xz: read through "xz -dc",
 *                               unless DIR holds the decompressed copy)
 * and one trace file per launch: a header of "-key = value" lines (kernel
 * name, id, grid dim = (x,y,z), block dim, shmem, nregs, binary version,
 * cuda stream id, shmem base_addr, local mem base_addr, nvbit version,
 * accelsim tracer version, enable lineinfo; other keys are ignored), '#'
 * comments, then per thread block
 *   #BEGIN_TB / thread block = x,y,z / (warp = N / insts = M / M lines)*
 *   / #END_TB
 * (a header and no block: a launch without blocks)
 * and an instruction line
 *   [line] PC MASK NDST [Rd..] OPCODE NSRC [Rs..] WIDTH [MODE ADDRS] [IMM]
 * where WIDTH > 0 makes it a memory instruction with addresses for the
 * active lanes in MODE 0 (one hex address each), 1 (hex base and decimal
 * stride: the active lanes must be contiguous, lane k of them at base +
 * k * stride) or 2 (hex base for the first active lane, then one decimal
 * delta for each further active lane, from the previous active lane).
 * Tracer versions 3 to 5 share this line; 5 appends the immediate (read
 * and dropped); with "-enable lineinfo = 1" a line number comes first
 * (dropped too). Versions before 3 (block ids on every line) and after 5
 * (more fields a line) are refused at the header. A kernel name longer
 * than PROG_NAME_MAX - 1 bytes is cut to that (it only labels the kernel).
 *
 * Classes: accelsim_classify() maps the mnemonic's part before the first
 * '.' to a class, and for memory instructions a space and kind. Generic
 * LD, ST and ATOM are resolved by the first active lane's address, as
 * Accel-Sim does: shared in [shmem base, local base) (or, when the local
 * window is not above the shared one, [shmem base, shmem base + 16 MiB)),
 * local in [local base, local base + 512 KiB) (CUDA's maximum local
 * memory a thread), global elsewhere or when a base is 0. An instruction
 * the trace gives no addresses for (NVBit reports none for LDC, ULDC and
 * texture fetches) is of class OTHER; the addresses of a mnemonic that is
 * not a memory access (CCTL and the like) are checked and dropped.
 *
 * Objects: if DIR holds "mcmgpu-objects" (export writes it: lines
 * "object BASE SIZE NAME", NAME the rest of the line, and "at N" lines
 * placing the objects after them behind kernelslist.g's first N entries),
 * the objects are exactly those. Otherwise every copy range
 * (overlapping or adjacent ranges merged) is an object "copied_I", and
 * the rest are inferred from the global accesses of every kernel (a first
 * pass over the traces): each active lane touches the 256 B blocks of
 * [addr, addr + width) unless addr lies in a copied object; touched
 * blocks closer than 2 MiB with no copied object between them form one
 * run, and a run minus the copied objects it overlaps is an object
 * "inferred_I" (256 B being cudaMalloc's alignment, 2 MiB its chunk).
 * Objects come first, in address order, then the copies and kernels in
 * kernelslist.g order.
 *
 * Errors: "FILE:LINE: FIELD: why" in err and a negative errno (-EINVAL
 * for bad content, the system's errno for a file), never an abort. The
 * records are checked by prog_grammar_check() before the sink sees them.
 */
#ifndef MCMGPU_TOOL_ACCELSIM_H
#define MCMGPU_TOOL_ACCELSIM_H

#include <stddef.h>

#include "program.h"

#define ACCELSIM_KERNELSLIST	"kernelslist.g"
#define ACCELSIM_OBJECTS	"mcmgpu-objects"

/* Imports the trace directory dir, giving each record to sink. */
int accelsim_import(const char *dir, prog_sink_fn sink, void *ctx, char *err,
		    size_t errlen);

/* A file held in memory, for accelsim_import_mem(). */
struct accelsim_mem_file {
	const char *name;		/* as kernelslist.g names it */
	const char *data;
	size_t len;
};

/*
 * The same import over files in memory (the fuzzer's entry): files must
 * include ACCELSIM_KERNELSLIST; a name not among them is a missing file.
 */
int accelsim_import_mem(const struct accelsim_mem_file *files, size_t nfiles,
			prog_sink_fn sink, void *ctx, char *err, size_t errlen);

/*
 * Writes the program src gives into dir (created if missing): kernelslist.g,
 * kernel-N.traceg (tracer version 5 headers, N the launch's place from 1)
 * and mcmgpu-objects. Addresses are compressed as the tracer does: mode 1
 * when two or more active lanes are contiguous with one stride that fits
 * in 32 bits (and for no active lane, base 0 stride 0), else mode 2. A
 * record a trace cannot carry (a class the mnemonic does not give back,
 * a generic access its windows resolve elsewhere) is an error naming the
 * record. import(export(p)) gives p's records back.
 */
int accelsim_export(prog_source_fn src, void *ctx, const char *dir, char *err,
		    size_t errlen);

/*
 * Sets in->op, in->space and in->kind from the SASS mnemonic (its part
 * before the first '.'): 1 if the space is generic (LD, ST, ATOM: space
 * set to GLOBAL until an address resolves it), 0 otherwise (unknown
 * mnemonics are OTHER), -EINVAL for an empty or over-long mnemonic.
 */
int accelsim_classify(const char *opcode, struct prog_inst *in);

#endif /* MCMGPU_TOOL_ACCELSIM_H */
