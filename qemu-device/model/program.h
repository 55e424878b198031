/*
 * GPU programs, the one input of the workloads (docs/workloads.md): the
 * GPU objects and host copies of a program and its kernel launches, each
 * kernel its thread blocks, each block its warps, each warp its dynamic
 * instruction stream with one address per active lane for memory
 * instructions. Accel-Sim traces are imported into it and the SIMT
 * executor writes it; the adapters and the timing core read it.
 *
 * A program is a stream of records, never whole in memory:
 *
 *   header (OBJECT | COPY | KERNEL BLOCK* KERNEL_END)* END
 *   BLOCK  := BLOCK (WARP INST{warp.insts})* BLOCK_END
 *
 * Two encodings of the same records, convertible both ways losslessly:
 * a compact binary one (this file: freestanding, so the device reads it
 * too) and a line-oriented text one (tools/mcmgpu/lib/prog_text.c).
 * struct prog_grammar checks the order and every field for both, so a
 * reader and a writer accept exactly the same programs.
 *
 * Freestanding: included by the QEMU device, the tool and the tests.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef MCMGPU_PROGRAM_H
#define MCMGPU_PROGRAM_H

#include "mcmgpu_compat.h"

#define PROG_VERSION            1
#define PROG_WARP_SIZE          32
#define PROG_MAX_REGS           16      /* destination or source registers */
#define PROG_NAME_MAX           4096    /* kernel and object names, with NUL */
#define PROG_OPCODE_MAX         64      /* SASS mnemonic, with NUL */
#define PROG_MAX_OPCODES        4096    /* distinct mnemonics in one program */
#define PROG_MAX_WIDTH          128     /* bytes one lane accesses */
#define PROG_MAX_BLOCK_THREADS  1024    /* CUDA's limit: 32 warps */

enum prog_rec_type {
    PROG_REC_OBJECT = 1,    /* a GPU allocation */
    PROG_REC_COPY,          /* a host copy in or out */
    PROG_REC_KERNEL,        /* a launch; its blocks follow */
    PROG_REC_BLOCK,         /* a thread block; its warps follow */
    PROG_REC_WARP,          /* a warp; its insts instructions follow */
    PROG_REC_INST,
    PROG_REC_BLOCK_END,
    PROG_REC_KERNEL_END,
    PROG_REC_END,           /* the program's last record */
    PROG_REC_NR
};

/* What an instruction does, for the timing core's functional units. */
enum prog_op {
    PROG_OP_INT = 0,        /* integer and logic ALU, moves */
    PROG_OP_FP,             /* single and half precision */
    PROG_OP_DP,             /* double precision */
    PROG_OP_SFU,            /* special functions (MUFU) */
    PROG_OP_TENSOR,         /* matrix units (HMMA, IMMA) */
    PROG_OP_BRANCH,         /* branches, calls, returns, EXIT */
    PROG_OP_BARRIER,        /* thread-block barriers (BAR), warp sync */
    PROG_OP_MEMORY,         /* has space, kind, width and addresses */
    PROG_OP_OTHER,          /* NOP, fences, special registers, ... */
    PROG_OP_NR
};

enum prog_space {
    PROG_SPACE_NONE = 0,    /* not a memory instruction */
    PROG_SPACE_GLOBAL,
    PROG_SPACE_SHARED,
    PROG_SPACE_LOCAL,
    PROG_SPACE_CONST,
    PROG_SPACE_TEXTURE,
    PROG_SPACE_NR
};

enum prog_kind {
    PROG_KIND_NONE = 0,
    PROG_KIND_LOAD,
    PROG_KIND_STORE,
    PROG_KIND_ATOMIC,       /* read-modify-write returning the old value */
    PROG_KIND_REDUCTION,    /* read-modify-write returning nothing (RED) */
    PROG_KIND_NR
};

enum prog_copy_dir {
    PROG_COPY_H2D = 0,
    PROG_COPY_D2H,
};

struct prog_object {
    u64 base, size;                 /* GPU virtual addresses */
    char name[PROG_NAME_MAX];
};

struct prog_copy {
    u32 dir;                        /* enum prog_copy_dir */
    u64 base, bytes;
};

struct prog_kernel {
    u32 id;                         /* 1, 2, ... in launch order */
    char name[PROG_NAME_MAX];
    u32 grid[3], block[3];          /* thread blocks; threads a block */
    u32 shmem;                      /* dynamic + static shared bytes */
    u32 nregs;                      /* registers a thread; 0 unknown */
    u32 binary_version;             /* SM version the kernel was built for */
    /* CUDA stream; launches on one stream are ordered, others may overlap */
    u64 stream;
    u64 shmem_base, local_base;     /* generic-address windows; 0 none */
};

struct prog_block {
    u32 x, y, z;                    /* index in the grid */
};

struct prog_warp {
    u32 id;                         /* warp in its block: threads id*32.. */
    u32 insts;                      /* INST records that follow */
};

struct prog_inst {
    u64 pc;
    u32 mask;                       /* active lanes: bit i = lane i */
    u8 op;                          /* enum prog_op */
    u8 space, kind;                 /* PROG_OP_MEMORY only, else NONE */
    u8 ndst, nsrc;
    u16 width;                      /* bytes a lane; memory only, else 0 */
    u16 dst[PROG_MAX_REGS], src[PROG_MAX_REGS];
    char opcode[PROG_OPCODE_MAX];   /* SASS mnemonic, never empty */
    u64 addr[PROG_WARP_SIZE];       /* memory: active lanes' (others 0) */
};

struct prog_rec {
    u32 type;                       /* enum prog_rec_type */
    union {
        struct prog_object object;
        struct prog_copy copy;
        struct prog_kernel kernel;
        struct prog_block block;
        struct prog_warp warp;
        struct prog_inst inst;
    };
};

/*
 * Records flow between stages (importer, executor, writers, statistics,
 * adapters) through these: a sink takes one record (0 or a negative
 * errno); a source gives the next one (1, END included; 0 after END; or
 * a negative errno, its message kept by the source).
 */
typedef int (*prog_sink_fn)(void *ctx, const struct prog_rec *rec);
typedef int (*prog_source_fn)(void *ctx, struct prog_rec *rec);

/*
 * A mnemonic for an instruction that was not traced (the executor's):
 * what a GPU of binary version 70 would run for its class, space, kind
 * and width (IADD3, FFMA, LDG.E.64, ATOMG.E.ADD, ...). The importer
 * classifies every one of them back to the same class, space and kind.
 */
const char *prog_default_opcode(const struct prog_inst *in);

/*
 * The order of the records and the range of every field. A reader or
 * writer feeds it each record; on an error, the field (its name as the
 * text form spells it) and the reason say what was wrong.
 */
struct prog_grammar {
    u32 state;                      /* what may come next */
    u64 records;                    /* records accepted, header excluded */
    u32 kernels;                    /* kernels so far */
    u32 last_kernel_id;
    u32 grid[3];                    /* the current kernel's */
    u32 insts_left;                 /* of the current warp */
    u32 warp_mask;                  /* warp ids seen in the current block */
    u32 warps_in_block;             /* per-block warp limit from the kernel */
    const char *err_field, *err_why;
};

void prog_grammar_init(struct prog_grammar *g);
/* 0, or -EINVAL with g->err_field and g->err_why set. */
int prog_grammar_check(struct prog_grammar *g, const struct prog_rec *rec);
/* True once END was accepted. */
bool prog_grammar_done(const struct prog_grammar *g);

/* Names the text form uses; NULL for an out-of-range value. */
const char *prog_rec_name(u32 type);
const char *prog_op_name(u32 op);
const char *prog_space_name(u32 space);
const char *prog_kind_name(u32 kind);
/* The value of a name, or -1. */
int prog_op_parse(const char *s);
int prog_space_parse(const char *s);
int prog_kind_parse(const char *s);

/*
 * The binary form: "MCMGPROG", a version byte, then each record as a
 * type byte and LEB128 fields (docs/workloads.md gives the layout).
 * Mnemonics are numbered on first use. The writer and reader move bytes
 * through callbacks, so files, pipes and guest memory all stream.
 */
#define PROG_MAGIC              "MCMGPROG"
#define PROG_MAGIC_LEN          8

/* Writes len bytes; 0 or a negative errno. */
typedef int (*prog_write_fn)(void *ctx, const void *buf, size_t len);
/* Reads up to len bytes; the count (0 at the end) or a negative errno. */
typedef long (*prog_read_fn)(void *ctx, void *buf, size_t len);

struct prog_opcode_table {
    u32 count;
    char name[PROG_MAX_OPCODES][PROG_OPCODE_MAX];
    u32 hash[PROG_MAX_OPCODES * 2]; /* open addressing: index + 1 */
};

struct prog_writer {
    prog_write_fn write;
    void *ctx;
    struct prog_grammar grammar;
    struct prog_opcode_table opcodes;
    u64 pc;                         /* the warp's previous PC */
    size_t used;
    u8 buf[65536];
};

struct prog_reader {
    prog_read_fn read;
    void *ctx;
    struct prog_grammar grammar;
    struct prog_opcode_table opcodes;
    u64 offset;                     /* bytes consumed, for errors */
    u64 pc;                         /* the warp's previous PC */
    size_t pos, len;
    bool eof;
    const char *err_field, *err_why;
    /* prog_read_same(): the record last read into and the bytes it set */
    const struct prog_rec *last_rec;
    size_t last_extent;
    /* Mnemonics 0.. below this passed the check; the last one read */
    u32 opcodes_checked, opcode_idx;
    u8 buf[65536];
};

/* Writes the header. 0 or a negative errno. */
int prog_writer_init(struct prog_writer *w, prog_write_fn write, void *ctx);
/*
 * Checks and encodes one record: -EINVAL (w->grammar says why) or the
 * callback's error. END flushes.
 */
int prog_write(struct prog_writer *w, const struct prog_rec *rec);
int prog_writer_flush(struct prog_writer *w);

/*
 * Reads and checks the header: 0, -EINVAL (not a program) or
 * -EPROTONOSUPPORT (another version).
 */
int prog_reader_init(struct prog_reader *r, prog_read_fn read, void *ctx);
/*
 * The next record: 1 (END included), 0 after END, or a negative errno
 * with r->err_field and r->err_why set (r->offset: where it stopped).
 */
int prog_read(struct prog_reader *r, struct prog_rec *rec);
/*
 * prog_read() for a caller that reads every record into one struct it
 * never writes: only the bytes the previous record set are cleared (not
 * a kernel name's 4 KiB each instruction), and rec reads as if zeroed
 * whole. Another struct than the last one is zeroed whole.
 */
int prog_read_same(struct prog_reader *r, struct prog_rec *rec);

/* Helpers for both encodings and their users. */
static inline unsigned int prog_lanes(u32 mask)
{
    /* Bit tricks: without -mpopcnt the builtin is a libgcc call. */
    mask = mask - ((mask >> 1) & 0x55555555u);
    mask = (mask & 0x33333333u) + ((mask >> 2) & 0x33333333u);
    return (((mask + (mask >> 4)) & 0x0f0f0f0fu) * 0x01010101u) >> 24;
}

static inline bool prog_inst_is_mem(const struct prog_inst *in)
{
    return in->op == PROG_OP_MEMORY;
}

#endif /* MCMGPU_PROGRAM_H */
