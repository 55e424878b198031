/*
 * GPU programs: the record grammar both encodings share, and the binary
 * encoding (program.h; docs/workloads.md).
 *
 * Binary layout: PROG_MAGIC, one version byte, then records. A record is
 * its type byte and its fields; numbers are unsigned LEB128 ("u") or
 * zigzag LEB128 ("s"), strings a u length and the bytes (no NUL):
 *   OBJECT      u base, u size, name
 *   COPY        byte dir, u base, u bytes
 *   KERNEL      u id, name, u grid[3], u block[3], u shmem, u nregs,
 *               u binary_version, u stream, u shmem_base, u local_base
 *   BLOCK       u x, u y, u z
 *   WARP        u id, u insts
 *   INST        u opcode index (the next unused index: a new mnemonic,
 *               whose string follows), s pc (from the warp's previous
 *               PC, 0 at the warp's start), u ~mask, byte op; memory:
 *               byte space, byte kind, u width; byte ndst, u dst[ndst],
 *               byte nsrc, u src[nsrc]; memory: the first active lane's
 *               address as u, the next active lanes' as s from the lane
 *               before them
 *   *_END, END  nothing
 * The inverse of the mask and the deltas keep a full warp's coalesced
 * access to a few bytes an address.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "program.h"

enum grammar_state {
    G_TOP,          /* objects, copies, kernels, END */
    G_KERNEL,       /* blocks, KERNEL_END */
    G_BLOCK,        /* warps, BLOCK_END */
    G_INSTS,        /* the current warp's instructions */
    G_DONE,
};

static const char *const rec_names[PROG_REC_NR] = {
    [PROG_REC_OBJECT] = "object", [PROG_REC_COPY] = "copy",
    [PROG_REC_KERNEL] = "kernel", [PROG_REC_BLOCK] = "block",
    [PROG_REC_WARP] = "warp", [PROG_REC_INST] = "inst",
    [PROG_REC_BLOCK_END] = "end-block",
    [PROG_REC_KERNEL_END] = "end-kernel", [PROG_REC_END] = "end",
};

static const char *const op_names[PROG_OP_NR] = {
    [PROG_OP_INT] = "int", [PROG_OP_FP] = "fp", [PROG_OP_DP] = "dp",
    [PROG_OP_SFU] = "sfu", [PROG_OP_TENSOR] = "tensor",
    [PROG_OP_BRANCH] = "branch", [PROG_OP_BARRIER] = "barrier",
    [PROG_OP_MEMORY] = "mem", [PROG_OP_OTHER] = "other",
};

static const char *const space_names[PROG_SPACE_NR] = {
    [PROG_SPACE_NONE] = "none", [PROG_SPACE_GLOBAL] = "global",
    [PROG_SPACE_SHARED] = "shared", [PROG_SPACE_LOCAL] = "local",
    [PROG_SPACE_CONST] = "const", [PROG_SPACE_TEXTURE] = "texture",
};

static const char *const kind_names[PROG_KIND_NR] = {
    [PROG_KIND_NONE] = "none", [PROG_KIND_LOAD] = "load",
    [PROG_KIND_STORE] = "store", [PROG_KIND_ATOMIC] = "atomic",
    [PROG_KIND_REDUCTION] = "red",
};

const char *prog_rec_name(u32 type)
{
    return type < PROG_REC_NR ? rec_names[type] : NULL;
}

const char *prog_op_name(u32 op)
{
    return op < PROG_OP_NR ? op_names[op] : NULL;
}

const char *prog_space_name(u32 space)
{
    return space < PROG_SPACE_NR ? space_names[space] : NULL;
}

const char *prog_kind_name(u32 kind)
{
    return kind < PROG_KIND_NR ? kind_names[kind] : NULL;
}

static int name_index(const char *const *names, int n, const char *s)
{
    int i;

    for (i = 0; i < n; i++) {
        if (names[i] && !strcmp(names[i], s)) {
            return i;
        }
    }
    return -1;
}

int prog_op_parse(const char *s)
{
    return name_index(op_names, PROG_OP_NR, s);
}

int prog_space_parse(const char *s)
{
    return name_index(space_names, PROG_SPACE_NR, s);
}

int prog_kind_parse(const char *s)
{
    return name_index(kind_names, PROG_KIND_NR, s);
}

/* Which kinds each space has: SASS has no local atomics, no shared RED. */
static bool space_has_kind(u32 space, u32 kind)
{
    switch (space) {
    case PROG_SPACE_GLOBAL:
        return true;
    case PROG_SPACE_SHARED:
        return kind != PROG_KIND_REDUCTION;
    case PROG_SPACE_LOCAL:
        return kind == PROG_KIND_LOAD || kind == PROG_KIND_STORE;
    default:
        return kind == PROG_KIND_LOAD;
    }
}

const char *prog_default_opcode(const struct prog_inst *in)
{
    static const char *const alu[PROG_OP_NR] = {
        [PROG_OP_INT] = "IADD3", [PROG_OP_FP] = "FFMA",
        [PROG_OP_DP] = "DFMA", [PROG_OP_SFU] = "MUFU.EX2",
        [PROG_OP_TENSOR] = "HMMA.16816.F32", [PROG_OP_BRANCH] = "BRA",
        [PROG_OP_BARRIER] = "BAR.SYNC", [PROG_OP_OTHER] = "NOP",
    };
    /* [space][kind], then the width's suffix (table below). */
    static const char *const mem[PROG_SPACE_NR][PROG_KIND_NR] = {
        [PROG_SPACE_GLOBAL] = { NULL, "LDG.E", "STG.E", "ATOMG.E.ADD",
                                "RED.E.ADD" },
        [PROG_SPACE_SHARED] = { NULL, "LDS", "STS", "ATOMS.ADD" },
        [PROG_SPACE_LOCAL] = { NULL, "LDL", "STL" },
        [PROG_SPACE_CONST] = { NULL, "LDC" },
        [PROG_SPACE_TEXTURE] = { NULL, "TEX" },
    };
    /* Every combination spelled out, so no buffer is needed. */
    static const char *const sized[][6] = {
        /* base, .U8, .U16, (32), .64, .128 */
        { "LDG.E", "LDG.E.U8", "LDG.E.U16", "LDG.E", "LDG.E.64",
          "LDG.E.128" },
        { "STG.E", "STG.E.U8", "STG.E.U16", "STG.E", "STG.E.64",
          "STG.E.128" },
        { "ATOMG.E.ADD", "ATOMG.E.ADD", "ATOMG.E.ADD", "ATOMG.E.ADD",
          "ATOMG.E.ADD.64", "ATOMG.E.ADD.64" },
        { "RED.E.ADD", "RED.E.ADD", "RED.E.ADD", "RED.E.ADD",
          "RED.E.ADD.64", "RED.E.ADD.64" },
        { "LDS", "LDS.U8", "LDS.U16", "LDS", "LDS.64", "LDS.128" },
        { "STS", "STS.U8", "STS.U16", "STS", "STS.64", "STS.128" },
        { "ATOMS.ADD", "ATOMS.ADD", "ATOMS.ADD", "ATOMS.ADD",
          "ATOMS.ADD.64", "ATOMS.ADD.64" },
        { "LDL", "LDL.U8", "LDL.U16", "LDL", "LDL.64", "LDL.128" },
        { "STL", "STL.U8", "STL.U16", "STL", "STL.64", "STL.128" },
        { "LDC", "LDC.U8", "LDC.U16", "LDC", "LDC.64", "LDC.64" },
        { "TEX", "TEX", "TEX", "TEX", "TEX", "TEX" },
    };
    const char *base;
    unsigned int i, w;

    if (in->op != PROG_OP_MEMORY) {
        return in->op < PROG_OP_NR ? alu[in->op] : "NOP";
    }
    if (in->space >= PROG_SPACE_NR || in->kind >= PROG_KIND_NR ||
        !mem[in->space][in->kind]) {
        return "NOP";
    }
    base = mem[in->space][in->kind];
    switch (in->width) {
    case 1:
        w = 1;
        break;
    case 2:
        w = 2;
        break;
    case 8:
        w = 4;
        break;
    case 16:
        w = 5;
        break;
    default:
        w = 3;
    }
    for (i = 0; i < sizeof(sized) / sizeof(sized[0]); i++) {
        if (!strcmp(sized[i][0], base)) {
            return sized[i][w];
        }
    }
    return base;
}

/* Printable, no blank at either end: names are the text form's last field. */
static bool name_ok(const char *s, size_t max, bool spaces)
{
    size_t n = 0;

    for (n = 0; n < max && s[n]; n++) {
        if (s[n] < 0x20 || s[n] > 0x7e || (!spaces && s[n] == ' ')) {
            return false;
        }
    }
    return n > 0 && n < max && s[0] != ' ' && s[n - 1] != ' ';
}

void prog_grammar_init(struct prog_grammar *g)
{
    memset(g, 0, sizeof(*g));
    g->state = G_TOP;
}

bool prog_grammar_done(const struct prog_grammar *g)
{
    return g->state == G_DONE;
}

static int bad(struct prog_grammar *g, const char *field, const char *why)
{
    g->err_field = field;
    g->err_why = why;
    return -EINVAL;
}

/*
 * The register slots from used on ORed together (every instruction of a
 * program passes here, twice on import): one at a time up to a multiple
 * of four, then four in one 64-bit word.
 */
static u64 unused_slots(const u16 *slot, unsigned int used)
{
    unsigned int i = used;
    u64 any = 0, word;

    for (; i < PROG_MAX_REGS && (i & 3); i++) {
        any |= slot[i];
    }
    for (; i < PROG_MAX_REGS; i += 4) {
        memcpy(&word, &slot[i], sizeof(word));
        any |= word;
    }
    return any;
}

/*
 * built: the record comes from prog_read*(), whose unused register slots,
 * inactive lanes and non-memory fields are zero by construction, so those
 * scans are skipped; opcode_known: its mnemonic passed the check before.
 */
static int check_inst(struct prog_grammar *g, const struct prog_inst *in,
                      bool built, bool opcode_known)
{
    u32 inactive;
    u64 addr_any = 0;
    unsigned int i;

    if (in->op >= PROG_OP_NR) {
        return bad(g, "class", "unknown instruction class");
    }
    if (!opcode_known && !name_ok(in->opcode, PROG_OPCODE_MAX, false)) {
        return bad(g, "opcode", "empty, too long or not printable");
    }
    if (in->ndst > PROG_MAX_REGS) {
        return bad(g, "d", "more destination registers than 16");
    }
    if (in->nsrc > PROG_MAX_REGS) {
        return bad(g, "s", "more source registers than 16");
    }
    if (!built && unused_slots(in->dst, in->ndst)) {
        return bad(g, "d", "unused register slot not zero");
    }
    if (!built && unused_slots(in->src, in->nsrc)) {
        return bad(g, "s", "unused register slot not zero");
    }
    if (in->op != PROG_OP_MEMORY) {
        if (built) {
            return 0;
        }
        if (in->space || in->kind || in->width) {
            return bad(g, "class",
                       "space, kind or width on a non-memory instruction");
        }
        /* ORed four at a time: no branch a lane, no chain of 32 ORs. */
        for (i = 0; i < PROG_WARP_SIZE; i += 4) {
            addr_any |= (in->addr[i] | in->addr[i + 1]) |
                        (in->addr[i + 2] | in->addr[i + 3]);
        }
        if (addr_any) {
            return bad(g, "@", "addresses on a non-memory instruction");
        }
        return 0;
    }
    if (!in->space || in->space >= PROG_SPACE_NR) {
        return bad(g, "space", "unknown memory space");
    }
    if (!in->kind || in->kind >= PROG_KIND_NR) {
        return bad(g, "kind", "unknown access kind");
    }
    if (!space_has_kind(in->space, in->kind)) {
        return bad(g, "kind", "not an access this space has");
    }
    if (!in->width || in->width > PROG_MAX_WIDTH) {
        return bad(g, "width", "not 1..128 bytes");
    }
    if (built) {
        return 0;
    }
    /* Only the inactive lanes, usually none. */
    for (inactive = ~in->mask; inactive; inactive &= inactive - 1) {
        addr_any |= in->addr[__builtin_ctz(inactive)];
    }
    if (addr_any) {
        return bad(g, "@", "address for an inactive lane");
    }
    return 0;
}

int prog_grammar_check(struct prog_grammar *g, const struct prog_rec *rec)
{
    const struct prog_kernel *k = &rec->kernel;
    u32 type = rec->type;
    u64 threads;
    int i, ret;

    g->err_field = g->err_why = NULL;
    if (!type || type >= PROG_REC_NR) {
        return bad(g, "type", "unknown record type");
    }
    switch (g->state) {
    case G_TOP:
        if (type != PROG_REC_OBJECT && type != PROG_REC_COPY &&
            type != PROG_REC_KERNEL && type != PROG_REC_END) {
            return bad(g, prog_rec_name(type),
                       "outside a kernel's thread block");
        }
        break;
    case G_KERNEL:
        if (type != PROG_REC_BLOCK && type != PROG_REC_KERNEL_END) {
            return bad(g, prog_rec_name(type),
                       "a kernel holds blocks and ends with end-kernel");
        }
        break;
    case G_BLOCK:
        if (type != PROG_REC_WARP && type != PROG_REC_BLOCK_END) {
            return bad(g, prog_rec_name(type),
                       "a block holds warps and ends with end-block");
        }
        break;
    case G_INSTS:
        if (type != PROG_REC_INST) {
            return bad(g, prog_rec_name(type),
                       "fewer instructions than the warp's insts");
        }
        break;
    default:
        return bad(g, prog_rec_name(type), "after the program's end");
    }

    switch (type) {
    case PROG_REC_OBJECT:
        if (!rec->object.size) {
            return bad(g, "size", "zero");
        }
        if (rec->object.base + rec->object.size < rec->object.base) {
            return bad(g, "size", "past the end of the address space");
        }
        if (!name_ok(rec->object.name, PROG_NAME_MAX, true)) {
            return bad(g, "name", "empty, too long or not printable");
        }
        break;
    case PROG_REC_COPY:
        if (rec->copy.dir > PROG_COPY_D2H) {
            return bad(g, "dir", "not h2d or d2h");
        }
        if (!rec->copy.bytes) {
            return bad(g, "bytes", "zero");
        }
        if (rec->copy.base + rec->copy.bytes < rec->copy.base) {
            return bad(g, "bytes", "past the end of the address space");
        }
        break;
    case PROG_REC_KERNEL:
        if (!k->id || k->id <= g->last_kernel_id) {
            return bad(g, "id", "kernel ids must increase from 1");
        }
        if (!name_ok(k->name, PROG_NAME_MAX, true)) {
            return bad(g, "name", "empty, too long or not printable");
        }
        for (i = 0; i < 3; i++) {
            if (!k->grid[i]) {
                return bad(g, "grid", "a zero dimension");
            }
            if (!k->block[i]) {
                return bad(g, "block", "a zero dimension");
            }
        }
        threads = (u64)k->block[0] * k->block[1] * k->block[2];
        if (threads > PROG_MAX_BLOCK_THREADS) {
            return bad(g, "block", "more than 1024 threads");
        }
        g->last_kernel_id = k->id;
        memcpy(g->grid, k->grid, sizeof(g->grid));
        g->warps_in_block = (threads + PROG_WARP_SIZE - 1) / PROG_WARP_SIZE;
        g->kernels++;
        g->state = G_KERNEL;
        break;
    case PROG_REC_BLOCK:
        if (rec->block.x >= g->grid[0]) {
            return bad(g, "block", "x outside the grid");
        }
        if (rec->block.y >= g->grid[1]) {
            return bad(g, "block", "y outside the grid");
        }
        if (rec->block.z >= g->grid[2]) {
            return bad(g, "block", "z outside the grid");
        }
        g->warp_mask = 0;
        g->state = G_BLOCK;
        break;
    case PROG_REC_WARP:
        if (rec->warp.id >= g->warps_in_block) {
            return bad(g, "warp", "outside the block's threads");
        }
        if (g->warp_mask & (1U << rec->warp.id)) {
            return bad(g, "warp", "twice in one block");
        }
        g->warp_mask |= 1U << rec->warp.id;
        g->insts_left = rec->warp.insts;
        g->state = g->insts_left ? G_INSTS : G_BLOCK;
        break;
    case PROG_REC_INST:
        ret = check_inst(g, &rec->inst, false, false);
        if (ret) {
            return ret;
        }
        if (!--g->insts_left) {
            g->state = G_BLOCK;
        }
        break;
    case PROG_REC_BLOCK_END:
        g->state = G_KERNEL;
        break;
    case PROG_REC_KERNEL_END:
        g->state = G_TOP;
        break;
    case PROG_REC_END:
        g->state = G_DONE;
        break;
    }
    g->records++;
    return 0;
}

/* Mnemonics by number, in order of first use. */
static void opcodes_init(struct prog_opcode_table *t)
{
    t->count = 0;
    memset(t->hash, 0, sizeof(t->hash));
}

static u32 opcode_hash(const char *s)
{
    u32 h = 2166136261u;

    while (*s) {
        h = (h ^ (u8)(*s++)) * 16777619u;
    }
    return h;
}

#define HASH_SLOTS      (PROG_MAX_OPCODES * 2)

/* The mnemonic's index, or the table's count if it is not there. */
static u32 opcode_find(const struct prog_opcode_table *t, const char *s,
                       u32 *slot)
{
    u32 h = opcode_hash(s) % HASH_SLOTS;

    while (t->hash[h]) {
        if (!strcmp(t->name[t->hash[h] - 1], s)) {
            break;
        }
        h = (h + 1) % HASH_SLOTS;
    }
    *slot = h;
    return t->hash[h] ? t->hash[h] - 1 : t->count;
}

static int opcode_add(struct prog_opcode_table *t, const char *s, u32 slot)
{
    if (t->count >= PROG_MAX_OPCODES) {
        return -E2BIG;
    }
    /* Whole entry: readers copy it out whole, so no stale tail bytes. */
    memset(t->name[t->count], 0, PROG_OPCODE_MAX);
    memcpy(t->name[t->count], s, strlen(s) + 1);
    t->hash[slot] = ++t->count;
    return 0;
}

/* Writer. */

int prog_writer_flush(struct prog_writer *w)
{
    int ret = 0;

    if (w->used) {
        ret = w->write(w->ctx, w->buf, w->used);
    }
    w->used = 0;
    return ret;
}

/* A record is at most this long: room is made before each one. */
#define REC_MAX (16 + 2 * PROG_NAME_MAX + PROG_OPCODE_MAX + \
                 2 * PROG_MAX_REGS * 3 + PROG_WARP_SIZE * 10 + 16 * 10)

static void put_byte(struct prog_writer *w, u8 b)
{
    w->buf[w->used++] = b;
}

static void put_u(struct prog_writer *w, u64 v)
{
    while (v >= 0x80) {
        w->buf[w->used++] = (u8)v | 0x80;
        v >>= 7;
    }
    w->buf[w->used++] = (u8)v;
}

static void put_s(struct prog_writer *w, s64 v)
{
    put_u(w, ((u64)v << 1) ^ (u64)(v >> 63));
}

static void put_str(struct prog_writer *w, const char *s)
{
    size_t n = strlen(s);

    put_u(w, n);
    memcpy(w->buf + w->used, s, n);
    w->used += n;
}

int prog_writer_init(struct prog_writer *w, prog_write_fn write, void *ctx)
{
    w->write = write;
    w->ctx = ctx;
    w->used = 0;
    w->pc = 0;
    prog_grammar_init(&w->grammar);
    opcodes_init(&w->opcodes);
    memcpy(w->buf, PROG_MAGIC, PROG_MAGIC_LEN);
    w->used = PROG_MAGIC_LEN;
    put_byte(w, PROG_VERSION);
    return 0;
}

static int put_inst(struct prog_writer *w, const struct prog_inst *in)
{
    u64 prev = 0;
    bool first = true;
    u32 slot, idx;
    unsigned int i;

    idx = opcode_find(&w->opcodes, in->opcode, &slot);
    put_u(w, idx);
    if (idx == w->opcodes.count) {
        if (opcode_add(&w->opcodes, in->opcode, slot)) {
            return -E2BIG;
        }
        put_str(w, in->opcode);
    }
    put_s(w, (s64)(in->pc - w->pc));
    w->pc = in->pc;
    put_u(w, (u32)~in->mask);
    put_byte(w, in->op);
    if (in->op == PROG_OP_MEMORY) {
        put_byte(w, in->space);
        put_byte(w, in->kind);
        put_u(w, in->width);
    }
    put_byte(w, in->ndst);
    for (i = 0; i < in->ndst; i++) {
        put_u(w, in->dst[i]);
    }
    put_byte(w, in->nsrc);
    for (i = 0; i < in->nsrc; i++) {
        put_u(w, in->src[i]);
    }
    if (in->op != PROG_OP_MEMORY) {
        return 0;
    }
    for (i = 0; i < PROG_WARP_SIZE; i++) {
        if (!(in->mask & (1U << i))) {
            continue;
        }
        if (first) {
            put_u(w, in->addr[i]);
        } else {
            put_s(w, (s64)(in->addr[i] - prev));
        }
        prev = in->addr[i];
        first = false;
    }
    return 0;
}

int prog_write(struct prog_writer *w, const struct prog_rec *rec)
{
    const struct prog_kernel *k = &rec->kernel;
    int i, ret;

    ret = prog_grammar_check(&w->grammar, rec);
    if (ret) {
        return ret;
    }
    if (w->used > sizeof(w->buf) - REC_MAX) {
        ret = prog_writer_flush(w);
        if (ret) {
            return ret;
        }
    }
    put_byte(w, rec->type);
    switch (rec->type) {
    case PROG_REC_OBJECT:
        put_u(w, rec->object.base);
        put_u(w, rec->object.size);
        put_str(w, rec->object.name);
        break;
    case PROG_REC_COPY:
        put_byte(w, rec->copy.dir);
        put_u(w, rec->copy.base);
        put_u(w, rec->copy.bytes);
        break;
    case PROG_REC_KERNEL:
        put_u(w, k->id);
        put_str(w, k->name);
        for (i = 0; i < 3; i++) {
            put_u(w, k->grid[i]);
        }
        for (i = 0; i < 3; i++) {
            put_u(w, k->block[i]);
        }
        put_u(w, k->shmem);
        put_u(w, k->nregs);
        put_u(w, k->binary_version);
        put_u(w, k->stream);
        put_u(w, k->shmem_base);
        put_u(w, k->local_base);
        break;
    case PROG_REC_BLOCK:
        put_u(w, rec->block.x);
        put_u(w, rec->block.y);
        put_u(w, rec->block.z);
        break;
    case PROG_REC_WARP:
        put_u(w, rec->warp.id);
        put_u(w, rec->warp.insts);
        w->pc = 0;
        break;
    case PROG_REC_INST:
        ret = put_inst(w, &rec->inst);
        if (ret) {
            w->grammar.err_field = "opcode";
            w->grammar.err_why = "more than 4096 distinct mnemonics";
            return ret;
        }
        break;
    case PROG_REC_END:
        return prog_writer_flush(w);
    }
    return 0;
}

/* Reader. */

static int rbad(struct prog_reader *r, const char *field, const char *why,
                int err)
{
    r->err_field = field;
    r->err_why = why;
    return err;
}

/* Refills the buffer; 0, or the callback's error. */
static int refill(struct prog_reader *r)
{
    long n;

    if (r->pos < r->len) {
        return 0;
    }
    r->pos = r->len = 0;
    if (r->eof) {
        return 0;
    }
    n = r->read(r->ctx, r->buf, sizeof(r->buf));
    if (n < 0) {
        return (int)n;
    }
    if (!n) {
        r->eof = true;
    }
    r->len = (size_t)n;
    return 0;
}

/* The next byte after a refill; the error if there is none. */
static int get_byte_refill(struct prog_reader *r, const char *field, u8 *b)
{
    int ret = refill(r);

    if (ret) {
        return rbad(r, field, "read failed", ret);
    }
    if (r->pos >= r->len) {
        return rbad(r, field, "truncated", -EINVAL);
    }
    *b = r->buf[r->pos++];
    r->offset++;
    return 0;
}

/* The next byte, or -ENODATA at the end of the input. */
static inline int get_byte(struct prog_reader *r, const char *field, u8 *b)
{
    if (r->pos >= r->len) {
        return get_byte_refill(r, field, b);
    }
    *b = r->buf[r->pos++];
    r->offset++;
    return 0;
}

/* LEB128 byte by byte, across refills. */
static int get_u_slow(struct prog_reader *r, const char *field, u64 *v)
{
    unsigned int shift = 0;
    u8 b;
    int ret;

    *v = 0;
    do {
        ret = get_byte(r, field, &b);
        if (ret) {
            return ret;
        }
        if (shift > 63 || (shift == 63 && (b & 0x7e))) {
            return rbad(r, field, "number over 64 bits", -EINVAL);
        }
        *v |= (u64)(b & 0x7f) << shift;
        shift += 7;
    } while (b & 0x80);
    return 0;
}

/*
 * Most numbers are read here, straight from the buffer when the longest
 * one (10 bytes) is there; the same checks, offsets and errors as
 * get_u_slow().
 */
static inline int get_u(struct prog_reader *r, const char *field, u64 *v)
{
    const u8 *p = r->buf + r->pos;
    unsigned int shift = 0, n = 0;
    u64 x = 0;
    u8 b;

    /* Most numbers (registers, deltas, counts) fit in one byte. */
    if (r->pos < r->len && !(*p & 0x80)) {
        r->pos++;
        r->offset++;
        *v = *p;
        return 0;
    }
    if (r->len - r->pos < 10) {
        return get_u_slow(r, field, v);
    }
    do {
        b = p[n++];
        if (shift > 63 || (shift == 63 && (b & 0x7e))) {
            r->pos += n;
            r->offset += n;
            *v = x;
            return rbad(r, field, "number over 64 bits", -EINVAL);
        }
        x |= (u64)(b & 0x7f) << shift;
        shift += 7;
    } while (b & 0x80);
    r->pos += n;
    r->offset += n;
    *v = x;
    return 0;
}

static inline int get_u32(struct prog_reader *r, const char *field, u32 *v)
{
    u64 x;
    int ret = get_u(r, field, &x);

    if (ret) {
        return ret;
    }
    if (x > 0xffffffffu) {
        return rbad(r, field, "number over 32 bits", -EINVAL);
    }
    *v = (u32)x;
    return 0;
}

static int get_s(struct prog_reader *r, const char *field, s64 *v)
{
    u64 x;
    int ret = get_u(r, field, &x);

    if (ret) {
        return ret;
    }
    *v = (s64)(x >> 1) ^ -(s64)(x & 1);
    return 0;
}

static int get_str(struct prog_reader *r, const char *field, char *s,
                   size_t max)
{
    u64 n, i;
    int ret;

    ret = get_u(r, field, &n);
    if (ret) {
        return ret;
    }
    if (n >= max) {
        return rbad(r, field, "too long", -EINVAL);
    }
    for (i = 0; i < n; i++) {
        ret = get_byte(r, field, (u8 *)&s[i]);
        if (ret) {
            return ret;
        }
        /* The text form and the writer end a name at its first NUL. */
        if (!s[i]) {
            return rbad(r, field, "a NUL byte inside", -EINVAL);
        }
    }
    s[n] = 0;
    return 0;
}

int prog_reader_init(struct prog_reader *r, prog_read_fn read, void *ctx)
{
    u8 magic[PROG_MAGIC_LEN], version;
    int i, ret;

    r->read = read;
    r->ctx = ctx;
    r->offset = 0;
    r->pos = r->len = 0;
    r->eof = false;
    r->pc = 0;
    r->err_field = r->err_why = NULL;
    r->last_rec = NULL;
    r->last_extent = 0;
    r->opcodes_checked = 0;
    prog_grammar_init(&r->grammar);
    opcodes_init(&r->opcodes);
    for (i = 0; i < PROG_MAGIC_LEN; i++) {
        ret = get_byte(r, "magic", &magic[i]);
        if (ret) {
            return ret;
        }
    }
    if (memcmp(magic, PROG_MAGIC, PROG_MAGIC_LEN)) {
        return rbad(r, "magic", "not a binary program", -EINVAL);
    }
    ret = get_byte(r, "version", &version);
    if (ret) {
        return ret;
    }
    if (version != PROG_VERSION) {
        return rbad(r, "version", "not version 1", -EPROTONOSUPPORT);
    }
    return 0;
}

static int get_regs(struct prog_reader *r, const char *field, u8 *n,
                    u16 *regs)
{
    u64 v;
    int i, ret;

    ret = get_byte(r, field, n);
    if (ret) {
        return ret;
    }
    if (*n > PROG_MAX_REGS) {
        return rbad(r, field, "more registers than 16", -EINVAL);
    }
    for (i = 0; i < *n; i++) {
        ret = get_u(r, field, &v);
        if (ret) {
            return ret;
        }
        if (v > 0xffff) {
            return rbad(r, field, "register over 65535", -EINVAL);
        }
        regs[i] = (u16)v;
    }
    return 0;
}

static int get_inst(struct prog_reader *r, struct prog_inst *in)
{
    u32 idx, slot, mask;
    u64 v, prev = 0;
    bool first = true;
    s64 d;
    int i, ret;

    ret = get_u32(r, "opcode", &idx);
    if (ret) {
        return ret;
    }
    if (idx > r->opcodes.count) {
        return rbad(r, "opcode", "undefined mnemonic number", -EINVAL);
    }
    r->opcode_idx = idx;
    if (idx == r->opcodes.count) {
        ret = get_str(r, "opcode", in->opcode, PROG_OPCODE_MAX);
        if (ret) {
            return ret;
        }
        if (opcode_find(&r->opcodes, in->opcode, &slot) !=
            r->opcodes.count) {
            return rbad(r, "opcode", "mnemonic defined twice", -EINVAL);
        }
        if (opcode_add(&r->opcodes, in->opcode, slot)) {
            return rbad(r, "opcode",
                        "more than 4096 distinct mnemonics", -EINVAL);
        }
    } else {
        memcpy(in->opcode, r->opcodes.name[idx], PROG_OPCODE_MAX);
    }
    ret = get_s(r, "pc", &d);
    if (ret) {
        return ret;
    }
    in->pc = r->pc + (u64)d;
    r->pc = in->pc;
    ret = get_u32(r, "mask", &mask);
    if (ret) {
        return ret;
    }
    in->mask = ~mask;
    ret = get_byte(r, "class", &in->op);
    if (ret) {
        return ret;
    }
    if (in->op == PROG_OP_MEMORY) {
        ret = get_byte(r, "space", &in->space);
        if (!ret) {
            ret = get_byte(r, "kind", &in->kind);
        }
        if (!ret) {
            ret = get_u(r, "width", &v);
        }
        if (ret) {
            return ret;
        }
        if (v > PROG_MAX_WIDTH) {
            return rbad(r, "width", "not 1..128 bytes", -EINVAL);
        }
        in->width = (u16)v;
    }
    ret = get_regs(r, "d", &in->ndst, in->dst);
    if (!ret) {
        ret = get_regs(r, "s", &in->nsrc, in->src);
    }
    if (ret || in->op != PROG_OP_MEMORY) {
        return ret;
    }
    /* The active lanes in ascending order; masks are often sparse. */
    for (mask = in->mask; mask; mask &= mask - 1) {
        i = __builtin_ctz(mask);
        if (first) {
            ret = get_u(r, "@", &v);
        } else {
            ret = get_s(r, "@", &d);
            v = prev + (u64)d;
        }
        if (ret) {
            return ret;
        }
        in->addr[i] = v;
        prev = v;
        first = false;
    }
    return 0;
}

/*
 * prog_grammar_check() of an instruction the reader built, in its warp:
 * the scans for bytes that are zero by construction left out.
 */
static int grammar_inst_built(struct prog_reader *r, const struct prog_inst *in)
{
    struct prog_grammar *g = &r->grammar;
    int ret;

    g->err_field = g->err_why = NULL;
    ret = check_inst(g, in, true, r->opcode_idx < r->opcodes_checked);
    if (ret) {
        return ret;
    }
    /* Marked in order, so a mnemonic that failed is never marked. */
    if (r->opcode_idx == r->opcodes_checked) {
        r->opcodes_checked++;
    }
    if (!--g->insts_left) {
        g->state = G_BLOCK;
    }
    g->records++;
    return 0;
}

/* Bytes of a record of type the reader may set (type and its member). */
static size_t rec_extent(u32 type)
{
    size_t at = offsetof(struct prog_rec, object);

    switch (type) {
    case PROG_REC_OBJECT:
        return at + sizeof(struct prog_object);
    case PROG_REC_COPY:
        return at + sizeof(struct prog_copy);
    case PROG_REC_KERNEL:
        return at + sizeof(struct prog_kernel);
    case PROG_REC_BLOCK:
        return at + sizeof(struct prog_block);
    case PROG_REC_WARP:
        return at + sizeof(struct prog_warp);
    case PROG_REC_INST:
        return at + sizeof(struct prog_inst);
    default:
        return at;
    }
}

/* The next record into rec, its first clear bytes zeroed first. */
static int read_rec(struct prog_reader *r, struct prog_rec *rec,
                    size_t clear)
{
    struct prog_kernel *k = &rec->kernel;
    u8 type;
    int i, ret = 0;

    if (prog_grammar_done(&r->grammar)) {
        return 0;
    }
    memset(rec, 0, clear);
    r->last_rec = rec;
    r->last_extent = offsetof(struct prog_rec, object);
    r->err_field = r->err_why = NULL;
    ret = get_byte(r, "type", &type);
    if (ret) {
        return ret == -EINVAL ?
               rbad(r, "end", "the program ends before its end record",
                    -EINVAL) : ret;
    }
    rec->type = type;
    r->last_extent = rec_extent(type);
    switch (type) {
    case PROG_REC_OBJECT:
        ret = get_u(r, "base", &rec->object.base);
        if (!ret) {
            ret = get_u(r, "size", &rec->object.size);
        }
        if (!ret) {
            ret = get_str(r, "name", rec->object.name, PROG_NAME_MAX);
        }
        break;
    case PROG_REC_COPY: {
        u8 dir;

        ret = get_byte(r, "dir", &dir);
        rec->copy.dir = dir;
        if (!ret) {
            ret = get_u(r, "base", &rec->copy.base);
        }
        if (!ret) {
            ret = get_u(r, "bytes", &rec->copy.bytes);
        }
        break;
    }
    case PROG_REC_KERNEL:
        ret = get_u32(r, "id", &k->id);
        if (!ret) {
            ret = get_str(r, "name", k->name, PROG_NAME_MAX);
        }
        for (i = 0; i < 3 && !ret; i++) {
            ret = get_u32(r, "grid", &k->grid[i]);
        }
        for (i = 0; i < 3 && !ret; i++) {
            ret = get_u32(r, "block", &k->block[i]);
        }
        if (!ret) {
            ret = get_u32(r, "shmem", &k->shmem);
        }
        if (!ret) {
            ret = get_u32(r, "nregs", &k->nregs);
        }
        if (!ret) {
            ret = get_u32(r, "binary", &k->binary_version);
        }
        if (!ret) {
            ret = get_u(r, "stream", &k->stream);
        }
        if (!ret) {
            ret = get_u(r, "shmem_base", &k->shmem_base);
        }
        if (!ret) {
            ret = get_u(r, "local_base", &k->local_base);
        }
        break;
    case PROG_REC_BLOCK:
        ret = get_u32(r, "block", &rec->block.x);
        if (!ret) {
            ret = get_u32(r, "block", &rec->block.y);
        }
        if (!ret) {
            ret = get_u32(r, "block", &rec->block.z);
        }
        break;
    case PROG_REC_WARP:
        ret = get_u32(r, "warp", &rec->warp.id);
        if (!ret) {
            ret = get_u32(r, "insts", &rec->warp.insts);
        }
        r->pc = 0;
        break;
    case PROG_REC_INST:
        ret = get_inst(r, &rec->inst);
        break;
    }
    if (ret) {
        return ret;
    }
    if (type == PROG_REC_INST && r->grammar.state == G_INSTS) {
        ret = grammar_inst_built(r, &rec->inst);
    } else {
        ret = prog_grammar_check(&r->grammar, rec);
    }
    if (ret) {
        return rbad(r, r->grammar.err_field, r->grammar.err_why, ret);
    }
    return 1;
}

int prog_read(struct prog_reader *r, struct prog_rec *rec)
{
    return read_rec(r, rec, sizeof(*rec));
}

int prog_read_same(struct prog_reader *r, struct prog_rec *rec)
{
    return read_rec(r, rec, rec == r->last_rec ? r->last_extent :
                    sizeof(*rec));
}
