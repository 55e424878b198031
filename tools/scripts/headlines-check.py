#!/usr/bin/env python3
"""make check: the report's headline table (tools/experiments/headlines.py)
on results written here by hand: ours is the geometric mean of the
per-application ratios and the arithmetic mean of shares, the spread names
the lowest, median and highest application, the +-25 % verdict follows
the paper's value, and an experiment without results is "not run", not an
error. Prints "ok" lines; exits 1 with a reason."""
import json
import os
import subprocess
import sys
import tempfile

top = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
exp = os.path.join(top, "tools", "experiments")


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def run(results):
    p = subprocess.run([sys.executable, "headlines.py", results], cwd=exp,
                       capture_output=True, text=True)
    if p.returncode:
        fail(f"headlines.py exited {p.returncode}: {p.stderr.strip()}")
    return p.stdout, json.load(open(os.path.join(results, "headlines.json")))


def line(text, what):
    rows = [ln for ln in text.splitlines() if f"| {what} |" in ln]
    if len(rows) != 1:
        fail(f"{len(rows)} rows for {what!r}")
    return [c.strip() for c in rows[0].strip("|").split("|")]


with tempfile.TemporaryDirectory() as d:
    text, js = run(d)
    if js["measured"] != 0 or "not run" not in text:
        fail("with no results every headline must be 'not run'")
    print("ok: no results, every headline not run")

    # Barre over Least 0.5, 1, 2 (geomean 1.0: within 25 % of 1.128),
    # F-Barre over Least 4, 4, 4 (4.0 against 1.36: not within).
    gpu = {"apps": {a: {"fig15": {"barre_over_least": b,
                                  "barre_over_valkyrie": 1.0,
                                  "fbarre_over_least": 4.0}}
                    for a, b in (("x", 0.5), ("y", 1.0), ("z", 2.0))}}
    # r coalesces nothing: a share of 0 is a result and counts.
    # (s sends no ATS request at all: it has no share.)
    core = {"apps": {"p": {"fig16": {"coalesced_barre": 0.1,
                                     "ats_requests_barre": 10}},
                     "q": {"fig16": {"coalesced_barre": 0.4,
                                     "ats_requests_barre": 10}},
                     "r": {"fig16": {"coalesced_barre": 0.0,
                                     "ats_requests_barre": 10}},
                     "s": {"fig16": {"coalesced_barre": 0.0,
                                     "ats_requests_barre": 0}}}}
    json.dump(gpu, open(os.path.join(d, "gpu.json"), "w"))
    json.dump(core, open(os.path.join(d, "barre-core.json"), "w"))
    text, js = run(d)
    c = line(text, "Barre over Least (Fig 15)")
    if c[3] != "**1.000x**" or c[4] != "0.500x x / 1.000x y / 2.000x z (3)" \
            or c[6] != "yes":
        fail(f"Barre over Least row {c}")
    c = line(text, "F-Barre-NoMerge over Least (Fig 15)")
    if c[3] != "**4.000x**" or c[6] != "no":
        fail(f"F-Barre row {c}")
    c = line(text, "coalesced share of ATS requests, Barre (Fig 16b)")
    if c[3] != "**16.7 %**" or c[4] != "0.0 % r / 10.0 % p / 40.0 % q (3)" \
            or c[6] != "no":
        fail(f"share row {c} (mean of 10 %, 40 % and 0 %)")
    c = line(text, "FinePack over P2P stores (Fig 9)")
    if c[3] != "not run":
        fail(f"FinePack without results: {c}")
    # Fig 8's rows take the runs at Table II's inputs, not the scaling
    # study's sizes ("4").
    scale = {"apps": {a: {"4": {"cpelide_over_baseline": 3.0,
                                "cpelide_over_hmg": 3.0},
                          "4-paper": {"cpelide_over_baseline": x,
                                      "cpelide_over_hmg": 1.0}}
                      for a, x in (("u", 1.0), ("v", 1.21))}}
    json.dump(scale, open(os.path.join(d, "cpelide_scale.json"), "w"))
    text, js = run(d)
    c = line(text, "CPElide over baseline, 4 chiplets, Table II's inputs (Fig 8)")
    if c[3] != "**1.100x**":
        fail(f"Fig 8 row {c}: not the Table II inputs' runs (geomean 1.1)")
    os.remove(os.path.join(d, "cpelide_scale.json"))
    text, js = run(d)
    if js["measured"] != 4 or js["within_25pct"] != 2:
        fail(f"measured {js['measured']}, within {js['within_25pct']}")
    print("ok: geometric mean, spread, share mean and the 25 % verdict")
