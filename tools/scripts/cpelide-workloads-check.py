#!/usr/bin/env python3
"""Host-side check of the CPElide workload generators (no guest, no QEMU).

For each workload and chiplet count: `mcmgpu cpelide gen`, static checks of
the sequence text (at most 8 arguments per kernel, allocations within the
model's 64 MiB, the last record a host_read), then `mcmgpu cpelide replay
--host` under each policy; a replay must exit 0 and, under baseline and
cpelide, report no oracle violation. Prints one row per workload: kernels,
line accesses, baseline L2 hit rate, CPElide and ideal speedup over
baseline (modeled cycles), and the wall time of the replays.

  tools/scripts/cpelide-workloads-check.py [--chiplets 2,4,7]
      [--policies baseline,cpelide,ideal] [--workloads bfs,lud] [--md]
      [--tool build/tools/mcmgpu] [--budget 30e6]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

MAX_ARGS = 8
MAX_MEM = 64 << 20
PAGE = 4096


def static_checks(path):
    """Problems with the sequence text, as strings."""
    errs, mem, last = [], 0, ""
    with open(path) as f:
        for no, line in enumerate(f, 1):
            line = line.split("#", 1)[0].split()
            if not line:
                continue
            last = line[0]
            if line[0] == "alloc":
                mem += (int(line[2]) + PAGE - 1) // PAGE * PAGE
            elif line[0] == "kernel":
                args = [t for t in line[2:] if not t.startswith(("chiplets=", "passes="))]
                if len(args) > MAX_ARGS:
                    errs.append(f"line {no}: {len(args)} arguments")
    if mem > MAX_MEM:
        errs.append(f"allocations {mem} bytes > 64 MiB")
    if last != "host_read":
        errs.append(f"last record is {last!r}, not host_read")
    return errs


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--chiplets", default="2,4,7")
    ap.add_argument("--policies", default="baseline,cpelide,ideal")
    ap.add_argument("--workloads", default="")
    ap.add_argument("--tool", default=os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "../../build/tools/mcmgpu"))
    ap.add_argument("--budget", type=float, default=30e6,
                    help="warn above this many line accesses per sequence")
    ap.add_argument("--md", action="store_true", help="markdown table")
    a = ap.parse_args()

    listing = subprocess.run([a.tool, "cpelide", "gen", "--list"], check=True,
                             capture_output=True, text=True).stdout.split("\n")
    classes = dict(l.split() for l in listing if l.strip())
    names = a.workloads.split(",") if a.workloads else list(classes)
    policies = a.policies.split(",")
    failures, total_wall = 0, 0.0
    tmp = tempfile.mkdtemp(prefix="cpe-check-")

    for n in (int(x) for x in a.chiplets.split(",")):
        if a.md:
            print(f"\n{n} chiplets\n")
            print("| workload | reuse | kernels | line accesses | baseline L2 hit rate "
                  "| CPElide speedup | ideal speedup | wall (s) |")
            print("|---|---|---|---|---|---|---|---|")
        else:
            print(f"{n} chiplets: workload kernels lines(M) base-L2-hit "
                  "cpelide-speedup ideal-speedup wall(s)")
        for w in names:
            seq = os.path.join(tmp, f"{w}-{n}.seq")
            subprocess.run([a.tool, "cpelide", "gen", w, "--chiplets", str(n),
                            "-o", seq], check=True)
            errs = static_checks(seq)
            res, wall = {}, 0.0
            for p in policies:
                t0 = time.monotonic()
                r = subprocess.run([a.tool, "cpelide", "replay", "--host", "--json",
                                    "--chiplets", str(n), "--policy", p, seq],
                                   capture_output=True, text=True)
                wall += time.monotonic() - t0
                if r.returncode:
                    errs.append(f"{p}: exit {r.returncode}: {r.stderr.strip()}")
                    continue
                res[p] = json.loads(r.stdout)
                if p != "ideal" and res[p]["oracle_violations"]:
                    errs.append(f"{p}: {res[p]['oracle_violations']} oracle violations")
            total_wall += wall
            b = res.get("baseline")
            row = [w, classes.get(w, "?")]
            if b:
                lines = b["l1_hits"] + b["l2_hits"] + b["l2_misses"]
                if lines > a.budget:
                    print(f"warning: {w} at {n} chiplets: {lines} line accesses",
                          file=sys.stderr)
                hit = b["l2_hits"] / max(1, b["l2_hits"] + b["l2_misses"])
                sp = {p: b["modeled_cycles"] / res[p]["modeled_cycles"]
                      for p in ("cpelide", "ideal") if p in res}
                row += [str(b["kernels"]), f"{lines / 1e6:.2f} M", f"{hit:.3f}",
                        f"{sp['cpelide']:.3f}" if "cpelide" in sp else "-",
                        f"{sp['ideal']:.3f}" if "ideal" in sp else "-"]
            else:
                row += ["-"] * 5
            row.append(f"{wall:.2f}")
            print(("| " + " | ".join(row) + " |") if a.md else "  " + " ".join(row))
            for e in errs:
                failures += 1
                print(f"FAIL {w} at {n} chiplets: {e}", file=sys.stderr)
    print(f"\ntotal replay wall time {total_wall:.1f} s, {failures} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
