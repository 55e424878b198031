#!/usr/bin/env python3
"""make bench's GPU core part (issue 28, item 6), one run.

Usage: tools/scripts/bench-gpu.py [--tool PATH] [--tmp DIR] [--device-json FILE...]

Generates two programs (bfs on an R-MAT graph of scale 13: mostly
coalesced; gups on 2^18 words: every lane its own sector) and times
`mcmgpu run --host --bench` on each with translation off (the goal:
>= 5 M warp instructions a second), with a conventional IOMMU (Barre off),
with Barre, with F-Barre, and with FinePack's queue or CPElide's table
(translation off). --device-json: the same runs' `mcmgpu run --bench` from
the guest (bench.sh runs them), to report device / host time. Prints one
JSON object.
"""
import argparse
import json
import os
import subprocess
import sys

TOP = os.path.realpath(os.path.join(os.path.dirname(__file__), "..", ".."))
PROGS = [("bfs", "13"), ("gups", "262144")]
MODES = [("notlb", ["--set", "translate=0"]), ("off", ["--barre", "off"]),
         ("on", ["--barre", "on"]), ("fbarre", ["--barre", "fbarre"]),
         ("finepack", ["--set", "translate=0", "--finepack", "finepack"]),
         ("cpelide", ["--set", "translate=0", "--cpelide", "cpelide"])]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tool", default=os.path.join(TOP, "build/tools/mcmgpu"))
    ap.add_argument("--tmp", default="/tmp")
    ap.add_argument("--gen-only", action="store_true",
                    help="only write the programs into --tmp")
    ap.add_argument("--device-json", nargs="*", default=[])
    a = ap.parse_args()
    out = {"host": {}, "device": {}}
    for name, size in PROGS:
        path = os.path.join(a.tmp, f"gpu-{name}.prog")
        if not os.path.exists(path):
            subprocess.run([a.tool, "workload", "gen", name, "--size", size,
                            "-o", path], check=True)
        if a.gen_only:
            continue
        for mode, args in MODES:
            print(f"bench-gpu: {name} {mode} on the host...", file=sys.stderr)
            r = subprocess.run([a.tool, "run", "--host", "--bench", *args, path],
                               check=True, capture_output=True, text=True)
            out["host"][f"{name}-{mode}"] = json.loads(r.stdout)
    for f in a.device_json:
        d = json.load(open(f))
        key = os.path.basename(f)[len("gpu-dev-"):-len(".json")]
        out["device"][key] = d
        h = out["host"].get(key)
        if h:
            d["device_over_host"] = d["seconds"] / h["seconds"] if h["seconds"] else 0
    json.dump(out, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
