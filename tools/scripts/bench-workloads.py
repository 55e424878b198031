#!/usr/bin/env python3
"""make bench's workload part (issue 27, item 7), on the host, one run.

Usage: tools/scripts/bench-workloads.py [--tool PATH] [--import-mib N]
       [--big-mib N] [--keep-dir DIR]

Prints one JSON object:
- import speed: `mcmgpu workload import` of a generated Accel-Sim trace
  directory (tools/scripts/accelsim-gen.py, --import-mib MiB) into
  /dev/null against `wc -l` over the same files, both from the page cache,
  best of 3 each (goal: import within 3x of wc -l);
- executor speed: warp instructions a second of `mcmgpu workload gen` of
  two applications (bfs on an R-MAT graph, gups), the count from `stats`;
- peak resident memory of importing a --big-mib trace (default 1 GiB; goal
  under 256 MiB: the import streams), from wait4()'s rusage of that one
  process.
The generated traces live in a temporary directory beside the output and
are removed however the script ends.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

TOP = os.path.realpath(os.path.join(os.path.dirname(__file__), "..", ".."))
GEN = os.path.join(TOP, "tools", "scripts", "accelsim-gen.py")
APPS = [("bfs", ["--size", "16"]), ("gups", ["--size", "1048576"])]


def run(cmd, **kw):
    """Runs cmd; (seconds, peak RSS in KiB) of that one process."""
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, **kw)
    _, status, ru = os.wait4(p.pid, 0)
    secs = time.perf_counter() - t0
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode:
        sys.exit(f"bench-workloads: {' '.join(cmd)}: exit {p.returncode}")
    return secs, ru.ru_maxrss


def best(n, cmd, **kw):
    return min(run(cmd, **kw)[0] for _ in range(n))


def dir_bytes(d):
    return sum(os.path.getsize(os.path.join(d, f)) for f in os.listdir(d))


def warm(d):
    for f in sorted(os.listdir(d)):
        with open(os.path.join(d, f), "rb") as fh:
            while fh.read(1 << 24):
                pass


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tool", default=os.path.join(TOP, "build/tools/mcmgpu"))
    ap.add_argument("--import-mib", type=int, default=256)
    ap.add_argument("--big-mib", type=int, default=1024)
    ap.add_argument("--tmp", default=os.path.join(TOP, "results", "bench"))
    a = ap.parse_args()
    os.makedirs(a.tmp, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix="workloads-", dir=a.tmp)
    res = {}
    null = subprocess.DEVNULL
    try:
        # Import against wc -l, the files in the page cache.
        d = os.path.join(tmp, "trace")
        subprocess.run([sys.executable, GEN, d, "--mib", str(a.import_mib)],
                       check=True)
        files = [os.path.join(d, f) for f in sorted(os.listdir(d))]
        warm(d)
        res["import_trace_bytes"] = dir_bytes(d)
        res["wc_s"] = best(3, ["wc", "-l"] + files, stdout=null)
        res["import_s"] = best(3, [a.tool, "workload", "import", d, "-o",
                                   "/dev/null"])
        res["import_over_wc"] = res["import_s"] / res["wc_s"]
        res["import_mb_per_s"] = res["import_trace_bytes"] / res["import_s"] / 1e6
        res["wc_mb_per_s"] = res["import_trace_bytes"] / res["wc_s"] / 1e6
        shutil.rmtree(d)

        # The executor.
        res["executor"] = []
        for app, args in APPS:
            prog = os.path.join(tmp, app + ".prog")
            secs, rss = run([a.tool, "workload", "gen", app] + args +
                            ["-o", prog])
            st = json.loads(subprocess.run(
                [a.tool, "workload", "stats", "--json", prog], check=True,
                capture_output=True, text=True).stdout)
            res["executor"].append({
                "app": app, "args": " ".join(args), "s": secs,
                "warp_instructions": st["warp_instructions"],
                "kernel_launches": st["kernel_launches"],
                "warp_instructions_per_s": st["warp_instructions"] / secs,
                "peak_rss_kib": rss, "program_bytes": os.path.getsize(prog)})
            os.unlink(prog)

        # Peak memory of a big import.
        d = os.path.join(tmp, "big")
        subprocess.run([sys.executable, GEN, d, "--mib", str(a.big_mib),
                        "--seed", "2"], check=True)
        res["big_trace_bytes"] = dir_bytes(d)
        secs, rss = run([a.tool, "workload", "import", d, "-o", "/dev/null"])
        res["big_import_s"] = secs
        res["big_import_peak_rss_kib"] = rss
        shutil.rmtree(d)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    json.dump(res, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
