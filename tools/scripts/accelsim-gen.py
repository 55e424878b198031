#!/usr/bin/env python3
"""Write a synthetic Accel-Sim trace directory of about a given size.

Usage: tools/scripts/accelsim-gen.py DIR --mib N [--seed S] [--kernels K]

For make bench (tools/scripts/bench.sh): the importer's speed and memory
on a trace as large as asked, in the NVBit tracer's post-processed format
(tracer version 4, no line numbers): kernelslist.g with host copies and K
kernel-N.traceg files, each a grid of 256-thread blocks whose 8 warps run
a loop-shaped mix of ALU lines and memory lines in every address
compression (mode 1 coalesced loads and stores, mode 0 gathers, mode 2
strided deltas, shared loads, a diverged branch with a partial mask) over
two copied buffers and one never copied (the importer infers it). The
same arguments give the same bytes.
"""
import argparse
import os
import random

WARPS = 8           # 256 threads a block
BUF = 1 << 26       # each buffer's bytes
A_BASE = 0x7f0000000000
B_BASE = A_BASE + BUF
C_BASE = B_BASE + BUF + (4 << 20)   # not copied: inferred
SHMEM_BASE = 0x7e0000000000
LOCAL_BASE = 0x7d0000000000

# ALU lines that do not depend on the block: formatted once.
ALU = [
    "0010 ffffffff 1 R1 IMAD.MOV.U32 1 R255 0",
    "0020 ffffffff 1 R0 S2R 0 0",
    "0030 ffffffff 1 R3 S2R 0 0",
    "0040 ffffffff 1 R0 IMAD 3 R0 R3 R1 0",
    "0050 ffffffff 1 R2 IMAD.WIDE 2 R0 R5 0",
    "0060 ffffffff 0 ISETP.GE.AND 2 R0 R4 0",
]
LOOP_ALU = [
    "0100 ffffffff 1 R8 FFMA 3 R6 R7 R8 0",
    "0110 ffffffff 1 R9 FADD 2 R8 R9 0",
    "0120 ffffffff 1 R10 IADD3 3 R10 R11 R255 0",
    "0130 ffffffff 1 R12 LOP3.LUT 3 R10 R12 R13 0",
    "0140 ffffffff 0 ISETP.NE.AND 2 R10 R14 0",
]
TAIL = [
    "0300 ffffffff 0 BAR.SYNC 0 0",
    "0310 ffffffff 0 EXIT 0 0",
]
ITERS = 4           # loop iterations a warp


def header(kid, grid):
    return (f"-kernel name = synthetic_kernel_{kid}\n"
            f"-kernel id = {kid}\n"
            f"-grid dim = ({grid},1,1)\n"
            "-block dim = (256,1,1)\n"
            "-shmem = 4096\n"
            "-nregs = 32\n"
            "-binary version = 70\n"
            "-cuda stream id = 0\n"
            f"-shmem base_addr = {SHMEM_BASE:#018x}\n"
            f"-local mem base_addr = {LOCAL_BASE:#018x}\n"
            "-nvbit version = 1.5.5\n"
            "-accelsim tracer version = 4\n\n"
            "#traces format = PC mask dest_num [reg_dests] opcode src_num "
            "[reg_srcs] mem_width [adrrescompress?] [mem_addresses]\n\n")


def warp_text(rng, block, warp):
    """One warp's instruction lines (without the warp = / insts = lines)."""
    lines = list(ALU)
    tid = (block * WARPS + warp) * 32
    for it in range(ITERS):
        off = ((tid + it * 7919 * 32) * 4) % (BUF - 128)
        # Coalesced load of a, 4 B a lane (mode 1: base, stride).
        lines.append(f"0080 ffffffff 1 R6 LDG.E.SYS 1 R2 4 1 "
                     f"{A_BASE + off:#x} 4")
        # A gather from b: one address a lane (mode 0).
        addrs = " ".join(f"{B_BASE + (rng.getrandbits(24) << 2):#x}"
                         for _ in range(32))
        lines.append(f"0090 ffffffff 1 R7 LDG.E.SYS 1 R4 4 0 {addrs}")
        lines += LOOP_ALU
        # A strided access to c, 8 B a lane 64 B apart (mode 2: deltas).
        base = C_BASE + ((tid * 64 + it * 4096) % (BUF - 4096))
        lines.append(f"00a0 ffffffff 1 R16 LDG.E.64.SYS 1 R12 8 2 {base:#x} "
                     + " ".join(["64"] * 31))
        # Shared memory, through its window.
        lines.append(f"00b0 ffffffff 1 R18 LDS.U.32 1 R17 4 1 "
                     f"{SHMEM_BASE + warp * 128:#x} 4")
        lines.append("00c0 ffffffff 0 BRA 0 0")
    # A diverged tail: half the lanes store.
    lines.append("0200 0000ffff 0 ISETP.LT.AND 2 R0 R4 0")
    lines.append(f"0210 0000ffff 0 STG.E.SYS 2 R2 R8 4 1 "
                 f"{A_BASE + (tid * 4) % (BUF - 128):#x} 4")
    lines += TAIL
    return lines


def block_text(rng, block):
    parts = [f"\n#BEGIN_TB\n\nthread block = {block},0,0\n"]
    for w in range(WARPS):
        lines = warp_text(rng, block, w)
        parts.append(f"\nwarp = {w}\ninsts = {len(lines)}\n")
        parts.append("\n".join(lines))
        parts.append("\n")
    parts.append("\n#END_TB\n")
    return "".join(parts)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("dir")
    ap.add_argument("--mib", type=int, required=True)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--kernels", type=int, default=4)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    os.makedirs(a.dir, exist_ok=True)
    per_kernel = (a.mib << 20) // a.kernels
    names = []
    for k in range(1, a.kernels + 1):
        name = f"kernel-{k}.traceg"
        names.append(name)
        # The grid from one block's size (all blocks are about as long).
        blocks = max(1, -(-per_kernel // len(block_text(random.Random(0), 0))))
        with open(os.path.join(a.dir, name), "w") as out:
            out.write(header(k, blocks))
            for b in range(blocks):
                out.write(block_text(rng, b))
    with open(os.path.join(a.dir, "kernelslist.g"), "w") as f:
        f.write(f"MemcpyHtoD,{A_BASE:#018x},{BUF}\n")
        f.write(f"MemcpyHtoD,{B_BASE:#018x},{BUF}\n")
        for n in names:
            f.write(n + "\n")
        f.write(f"MemcpyDtoH,{A_BASE:#018x},{BUF}\n")


if __name__ == "__main__":
    main()
