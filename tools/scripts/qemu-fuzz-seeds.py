#!/usr/bin/env python3
"""Seed inputs for QEMU's generic-fuzz against mcmgpu: each programs the
command ring (base, size, completion array, enable) in every fuzzable
region (generic-fuzz picks a region by index, and the index of the
register window depends on the address map), adds a DMA pattern that reads
as one command descriptor, and rings the doorbell. One seed per opcode, so
the fuzzer starts inside each engine instead of at the register file.
Usage: qemu-fuzz-seeds.py DIR"""
import os
import struct
import sys

SEP = b"FUZZ"
OP_WRITE, OP_ADD_DMA_PATTERN = 3, 7
REGS = {"RING_BASE_LO": 0x20, "RING_BASE_HI": 0x24, "RING_SIZE": 0x28,
        "RING_CTRL": 0x2C, "RING_TAIL": 0x34, "CMPL_BASE_LO": 0x38,
        "CMPL_BASE_HI": 0x3C}
RING, CMPL = 0x100000, 0x200000


def write(base, offset, value):
    # struct { u8 size; u8 base; u32 offset; u64 value; } with C padding;
    # size 2 = a 32-bit write
    return bytes([OP_WRITE]) + struct.pack("<BBxxIQ", 2, base, offset, value)


def descriptor(opcode, ctx, args, flags=0):
    args = list(args) + [0] * (6 - len(args))
    return struct.pack("<HHIQ6Q", opcode, flags, ctx, 1, *args)


def seed(opcode, ctx, args, flags=0, regions=16):
    ops = []
    for base in range(regions):
        ops += [write(base, REGS["RING_BASE_LO"], RING),
                write(base, REGS["RING_BASE_HI"], 0),
                write(base, REGS["RING_SIZE"], 16),
                write(base, REGS["CMPL_BASE_LO"], CMPL),
                write(base, REGS["CMPL_BASE_HI"], 0),
                write(base, REGS["RING_CTRL"], 1)]
    ops.append(bytes([OP_ADD_DMA_PATTERN, 0, 0]) +
               descriptor(opcode, ctx, args, flags))
    for base in range(regions):
        ops.append(write(base, REGS["RING_TAIL"], 4))
    return SEP.join(ops)


out = sys.argv[1]
os.makedirs(out, exist_ok=True)
seeds = {
    "nop": (0x0, 0, []),
    "dma_to_gpu": (0x1, 0, [0x300000, 0x1000, 4096]),
    "dma_to_host": (0x1, 0, [0x300000, 0x2000, 4096]),
    "ctx_create": (0x5, 1, []),
    "ctx_destroy": (0x6, 1, []),
    "ping": (0x7, 0, [0]),
    "trace_load": (0x2, 1, [0x300000, 0, 4096]),
    # TRACE_LOAD from a page list (flag 1), starting 16 B into page one
    "trace_load_pages": (0x2, 1, [0x300000, 0, 8192, 8192, 16], 1),
    "finepack_run": (0x3, 1, [4096, 4, 24, 0x400000]),
    "cp_launch": (0x4, 1, [0x300000, 0x400000]),
    "barre_load": (0x8, 1, [0x300000, 16]),
    "barre_run": (0x9, 1, [0, 0, 0, 0x400000]),
    "tlb_invalidate": (0xa, 1, []),
    "cxl_load": (0xb, 0, [0x300000, 16]),
    "cxl_replay": (0xc, 0, [0x300000, 0x400000]),
    "adsm_xfer": (0xd, 1, [0x300000, 0x1000, 4096, 0x301000, 0]),
    "adsm_kernel": (0xe, 1, [0x300000, 0x301000, 0x302000]),
    # The GPU core: a load (FIRST), a start, a run to the end, the stats
    "gpu_load": (0xf, 1, [0x300000, 4096], 1),
    "gpu_start": (0x10, 1, [0x300000, 0x301000, 2, 0x400000]),
    "gpu_run": (0x11, 1, [0, 0, 0, 0x400000, 2**64 - 1]),
    "gpu_stats": (0x12, 1, [0x400000, 0x401000, 512, 0x402000, 0,
                            144 | 4 << 32]),
    # GPU_OBJECTS: the result, room for 4 objects from the first one
    "gpu_objects": (0x13, 1, [0x400000, 0x401000, 0, 4]),
    # BARRE_RUN with RESET and F-Barre on: merge 2, 256 rows, 10 % loss
    "barre_reset_fbarre": (0x9, 1, [0, 0, 0, 0x400000,
                                    1 | 2 << 8 | 256 << 16, 100000], 1),
}
for name, (op, ctx, args, *flags) in seeds.items():
    with open(os.path.join(out, name), "wb") as f:
        f.write(seed(op, ctx, args, *flags))

# The IOMMU window's ATS rings (window 0 at 0x1000 of BAR0: ring address,
# enable), then a Barre reset, load and start that posts its first batch
# there; with sync-commands the device cannot wait, so the run ends at the
# first batch, but the ring writes and the window's registers are reached.
iommu = 0x1000
ats_ring = 0x500000
with open(os.path.join(out, "barre_ats_ring"), "wb") as f:
    ops = [op for base in range(16) for op in (
        write(base, iommu + 0x100, ats_ring), write(base, iommu + 0x104, 0),
        write(base, iommu + 0x108, 1))]
    f.write(SEP.join(ops) + SEP + seed(0x9, 1, [0, 0, 0, 0x400000], 1) + SEP +
            seed(0x8, 1, [0x300000, 16], 1) + SEP +
            seed(0x9, 1, [0, 0, 0, 0x400000], 2) + SEP +
            b"".join(write(base, iommu + 0x10C, 1) for base in range(16)))

# HDM decoder 0 of every region that may be a CXL component block:
# base, size, then Commit (CXL.cache/mem at 0x1000, the capability at +0x100).
hdm = 0x1000 + 0x100 + 0x10
with open(os.path.join(out, "hdm_commit"), "wb") as f:
    f.write(SEP.join(op for base in range(16) for op in (
        write(base, hdm + 0x4, 0x10), write(base, hdm + 0x8, 0x10000000),
        write(base, hdm + 0x14, 0x10), write(base, hdm + 0x10, 0x200))))
