#!/usr/bin/env python3
"""make check: the FinePack inputs' rule (tools/experiments/fp-sizes.txt,
docs/finepack.md "The inputs"). A GPU is full when its blocks of a kernel
reach what its SMs hold at once: sms x the blocks an SM takes (block
slots, warps, registers, shared memory: block_fits() in gpu_core.c), on
the finepack preset. Each application's size must be the smallest that
fills every GPU for every kernel (and the size the file names below it
must not), or, where marked "budget", must not fill (the largest make
run affords). Usage: fp-sizes-check.py TOOL [SIZES] (SIZES: another
file than fp-sizes.txt, for the tests of this check). Prints "ok" lines;
exits 1 with a reason."""
import json
import os
import re
import subprocess
import sys
import tempfile

top = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
exp = os.path.join(top, "tools", "experiments")
sys.path.insert(0, exp)
from paper_tables import FINEPACK_APPS  # noqa: E402


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def sh(*args):
    p = subprocess.run(args, capture_output=True, text=True)
    if p.returncode:
        fail(f"{' '.join(args)}: exit {p.returncode}: {p.stderr.strip()}")
    return p.stdout


def nregs():
    src = open(os.path.join(top, "tools", "mcmgpu", "workload", "simt.c")).read()
    return int(re.search(r"#define SIMT_NREGS\s+(\d+)", src).group(1))


def capacity(cfg, k, regs):
    """Blocks of kernel k one GPU (chiplet) holds at once."""
    threads = k["block"][0] * k["block"][1] * k["block"][2]
    warps = (threads + 31) // 32
    fit = [cfg["blocks_per_sm"], cfg["warps_per_sm"] // warps,
           cfg["regs_per_sm"] // (regs * threads)]
    if k["shmem"]:
        fit.append(cfg["shmem_per_sm"] // k["shmem"])
    return cfg["sms"] * min(fit)


def fills(tool, cfg, regs, app, size, tmp):
    """(every kernel fills every GPU, the emptiest kernel's blocks a GPU
    over its capacity)."""
    prog = os.path.join(tmp, f"{app}-{size}.prog")
    sh(tool, "workload", "gen", app, "--size", str(size), "-o", prog)
    st = json.loads(sh(tool, "workload", "stats", "--json", prog))
    os.unlink(prog)
    worst = None
    for k in st["kernels"]:
        per_gpu = k["thread_blocks"] // cfg["chiplets"]
        cap = capacity(cfg, k, regs)
        if worst is None or per_gpu / cap < worst[1] / worst[2]:
            worst = (k["name"], per_gpu, cap)
    return worst[1] >= worst[2], worst


def main():
    if len(sys.argv) not in (2, 3):
        fail("usage: fp-sizes-check.py TOOL [SIZES]")
    tool = sys.argv[1]
    cfg = json.loads(sh(tool, "gpu", "config", "finepack", "--json"))["config"]
    regs = nregs()
    rows = []
    sizes = sys.argv[2] if len(sys.argv) == 3 else \
        os.path.join(exp, "fp-sizes.txt")
    for line in open(sizes):
        line = line.split("#")[0].split()
        if line:
            rows.append(line)
    if [r[0] for r in rows] != list(FINEPACK_APPS):
        fail(f"fp-sizes.txt's applications {[r[0] for r in rows]} are not "
             f"FINEPACK_APPS {list(FINEPACK_APPS)}")
    with tempfile.TemporaryDirectory() as tmp:
        for r in rows:
            if len(r) != 3:
                fail(f"{r}: want APP SIZE BELOW|budget")
            app, size, below = r
            ok, w = fills(tool, cfg, regs, app, size, tmp)
            what = f"{app} {size}: {w[0]} {w[1]} blocks a GPU of {w[2]}"
            if below == "budget":
                if ok:
                    fail(f"{what}: fills, so it is not the largest "
                         "affordable; name the size below it")
                print(f"ok {what} (budget: does not fill)")
                continue
            if not ok:
                fail(f"{what}: does not fill")
            # below is the next size the generator takes.
            for s in range(int(below) + 1, int(size)):
                if subprocess.run([tool, "workload", "gen", app, "--size",
                                   str(s), "-o", os.devnull],
                                  capture_output=True).returncode == 0:
                    fail(f"{app}: {s} lies between {below} and {size}")
            ok2, w2 = fills(tool, cfg, regs, app, below, tmp)
            if ok2:
                fail(f"{what}, but {below} fills too ({w2[1]} of {w2[2]})")
            print(f"ok {what}; {below}: {w2[1]}")


main()
