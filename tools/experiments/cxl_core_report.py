#!/usr/bin/env python3
"""CXL-GPU's Figs 9b-9e through the GPU core (64-cxl-core.sh): each
figure's measurement beside the paper's numbers, per application where
the paper names one. Cycles are the core's (deterministic, 1 ns a cycle
on the cxl preset). Usage: RAW RESULTS."""
import json
import os
import sys

from paper_tables import (CXL_FIG9, CXL_FIG9B_GRAPH_SR_PCT, CXL_FIG9C,
                          CXL_FIG9C_SR_GAIN, CXL_FIG9D, CXL_FIG9D_HITS,
                          CXL_FIG9D_PATTERNS, CXL_TABLE, cxl_class)
from report import differences, gmean, head, load, mean, row, write_section

raw, results = sys.argv[1], sys.argv[2]
MEDIA = ("optane", "znand", "nand")


def get(app, what):
    path = f"{raw}/{app}-{what}.json"
    return load(path) if os.path.exists(path) else None


def cyc(app, what):
    r = get(app, what)
    return r["gpu"]["cycles"] if r else None


def hit(app, what):
    r = get(app, what)
    return 100 * r["cxl"]["dram_hit_rate"] if r else None


def x(v):
    return f"{v:.2f}x"


def pct(v):
    return f"{v:+.1f} %"


out = {"fig9b": {}, "fig9c": {}, "fig9d": {}, "fig9e": {}}
lines = ["## CXL-GPU's Figs 9b-9e through the GPU core", "",
         "The paper's workloads (its workload table) as programs on `--config "
         "cxl`, every object in CXL memory behind the root complex "
         "(`tools/experiments/64-cxl-core.sh`; sizes and the 16-warp cores of "
         "bfs, gauss and mri there). CXL = no SR (`znand:sr=off`), CXL-SR = "
         "SR (`znand`), CXL-DS = SR and DS (`znand:ds=on`); GPU-DRAM = every "
         "object in GPU memory (`--cxl off`). The paper prints averages only "
         "(its bars' values are not in the text), so each row's paper cell "
         "is the average it gives for that row's group.", ""]

# ---- Fig 9b -------------------------------------------------------------
apps = [a for a in CXL_TABLE if get(a, "off")]
missing = [a for a in CXL_TABLE if a not in apps]
sr_gain, ds_by_class = {}, {}
lines += ["### Fig 9b: Z-NAND, CXL against CXL-SR and CXL-DS", "",
          *head("application", "class (ours)", "GPU-DRAM cycles",
                "CXL / GPU-DRAM", "CXL-SR / GPU-DRAM", "CXL-DS / GPU-DRAM",
                "SR over CXL", "DS over SR", "SSD DRAM hits CXL",
                "SSD DRAM hits CXL-SR")]
for a in apps:
    c = {m: cyc(a, m) for m in ("off", "znand-sr-off", "znand-sr-sr",
                                "znand-ds-on")}
    cls = CXL_TABLE[a][2]
    if cls != "real-world":
        cls = cxl_class(*CXL_TABLE[a][:2])
    sr = c["znand-sr-off"] / c["znand-sr-sr"]
    ds = 100 * (c["znand-sr-sr"] / c["znand-ds-on"] - 1)
    sr_gain[a] = sr
    ds_by_class.setdefault(cls, []).append(ds)
    out["fig9b"][a] = {"cycles": c, "class": cls, "sr_over_cxl": sr,
                       "ds_over_sr_pct": ds,
                       "hits_cxl": hit(a, "znand-sr-off"),
                       "hits_sr": hit(a, "znand-sr-sr")}
    lines.append(row(a, cls, c["off"], x(c["znand-sr-off"] / c["off"]),
                     x(c["znand-sr-sr"] / c["off"]),
                     x(c["znand-ds-on"] / c["off"]), x(sr), pct(ds),
                     f"{hit(a, 'znand-sr-off'):.1f} %",
                     f"{hit(a, 'znand-sr-sr'):.1f} %"))
seq = [sr_gain[a] for a in ("vadd", "saxpy") if a in sr_gain]
graph = [sr_gain[a] for a in ("path", "bfs") if a in sr_gain]
lines += ["", *head("Fig 9b", "ours", "paper"),
          row("SR over CXL, mean of the workloads",
              f"{x(mean(sr_gain.values()))} (geomean "
              f"{x(gmean(sr_gain.values()))})", f"{CXL_FIG9['sr_over_cxl']}x"),
          row("SR over CXL, vadd and saxpy", x(mean(seq)),
              f"{CXL_FIG9['sr_over_cxl_seq']}x"),
          row("SR over CXL, path and bfs", pct(100 * (mean(graph) - 1)),
              f"+{CXL_FIG9B_GRAPH_SR_PCT} % (\"only 67.6%\")")]
for cls in ("compute", "load", "store"):
    if cls in ds_by_class:
        lines.append(row(f"DS over SR, {cls}-intensive (mean)",
                         pct(mean(ds_by_class[cls])),
                         f"+{CXL_FIG9['ds_over_sr_pct'][cls]} %"))
out["fig9b_summary"] = {"sr_over_cxl_mean": mean(sr_gain.values()),
                        "sr_over_cxl_seq": mean(seq),
                        "sr_over_cxl_graph": mean(graph),
                        "ds_over_sr_pct": {k: mean(v) for k, v in
                                           ds_by_class.items()}}
if missing:
    lines += ["", "Not measured: " + ", ".join(missing) + "."]
lines.append("")

# ---- Fig 9c -------------------------------------------------------------
lines += ["### Fig 9c: the media (Optane, Z-NAND, NAND) on vadd, path, bfs", "",
          "Each endpoint's media latencies are notes §5.1.10's datasheet-class "
          "values (cxl_srds.c, `srds_media[]`): Table 10(a)'s values are lost.",
          "",
          *head("application", "medium", "CXL / GPU-DRAM", "CXL-SR / GPU-DRAM",
                "CXL-DS / GPU-DRAM", "SR over CXL", "DS over SR",
                "SSD DRAM hits CXL-SR")]
gain9c = {m: [] for m in MEDIA}
for a in ("vadd", "path", "bfs"):
    for med in MEDIA:
        c = {m: cyc(a, f"{med}-{m}") for m in ("sr-off", "sr-sr", "ds-on")}
        base = cyc(a, "off")
        if base is None or None in c.values():
            continue
        g = c["sr-off"] / c["sr-sr"]
        gain9c[med].append(g)
        out["fig9c"].setdefault(a, {})[med] = {"cycles": c, "sr_over_cxl": g}
        lines.append(row(a, med, x(c["sr-off"] / base), x(c["sr-sr"] / base),
                         x(c["ds-on"] / base), x(g),
                         pct(100 * (c["sr-sr"] / c["ds-on"] - 1)),
                         f"{hit(a, f'{med}-sr-sr'):.1f} %"))
lines += ["", *head("Fig 9c", "ours", "paper")]
for med in MEDIA:
    if gain9c[med]:
        lines.append(row(f"SR over CXL, {med}, mean of vadd, path, bfs",
                         x(mean(gain9c[med])), f"{CXL_FIG9C_SR_GAIN[med]}x"))
f9c = out["fig9c"]
if "vadd" in f9c and "nand" in f9c["vadd"]:
    lines.append(row("vadd on NAND, CXL-SR / GPU-DRAM",
                     x(f9c["vadd"]["nand"]["cycles"]["sr-sr"] / cyc("vadd", "off")),
                     f"{CXL_FIG9C['vadd_nand_vs_gpu_dram']}x"))
for a in ("path", "bfs"):
    if a in f9c:
        lines.append(row(f"SR over CXL, {a} (Optane / Z-NAND / NAND)",
                         " / ".join(x(f9c[a][m]["sr_over_cxl"]) for m in MEDIA
                                    if m in f9c[a]),
                         f"{CXL_FIG9C[f'sr_gain_{a}']}x"))
if "bfs" in f9c:
    best = max(f9c["bfs"][m]["cycles"]["sr-sr"] / f9c["bfs"][m]["cycles"]["ds-on"]
               for m in f9c["bfs"])
    lines.append(row("DS over SR, bfs, best medium", x(best),
                     f"up to {CXL_FIG9C['ds_bfs_max']}x"))
lines.append("")

# ---- Fig 9d -------------------------------------------------------------
MODES = (("sr-off", "CXL"), ("sr-naive", "NAIVE"), ("sr-dyn", "DYN"),
         ("sr-sr", "SR"), ("sr-max", "always-max"))
lines += ["### Fig 9d: SR's ablation on Z-NAND (Seq, Around, Rand)", "",
          "NAIVE: a 64 B MemSpecRd for every load; DYN: DevLoad-sized "
          "(256 B-1 KiB) at the load's own address; SR: DYN with the address "
          "window; always-max: 1 KiB at every load (the paper's \"largest "
          "possible\" ablation). Speed-ups over CXL (no SR).", "",
          *head("pattern", "application", *(f"{n} over CXL" for _, n in MODES[1:]),
                "NAIVE / GPU-DRAM",
                *(f"hits {n}" for _, n in MODES))]
pat_hits = {}
pat_speed = {}
for pat, pa in CXL_FIG9D_PATTERNS.items():
    for a in pa:
        c = {m: cyc(a, f"znand-{m}") for m, _ in MODES}
        if None in c.values() or cyc(a, "off") is None:
            continue
        h = {m: hit(a, f"znand-{m}") for m, _ in MODES}
        sp = {m: c["sr-off"] / c[m] for m, _ in MODES}
        out["fig9d"][a] = {"pattern": pat, "cycles": c, "hits": h}
        for m, _ in MODES:
            pat_hits.setdefault(pat, {}).setdefault(m, []).append(h[m])
            pat_speed.setdefault(pat, {}).setdefault(m, []).append(sp[m])
        lines.append(row(pat, a, *(x(sp[m]) for m, _ in MODES[1:]),
                         x(c["sr-naive"] / cyc(a, "off")),
                         *(f"{h[m]:.1f} %" for m, _ in MODES)))


def paper_hit(mode, pat):
    key = {"sr-off": "off", "sr-naive": "naive", "sr-dyn": "dyn",
           "sr-sr": "sr", "sr-max": "max"}[mode]
    v = CXL_FIG9D_HITS[key].get(pat)
    return "-" if v is None else f"{v} %"


lines += ["", "SSD DRAM hit rate of demand loads, mean of the pattern's two "
          "applications, ours / paper:", "",
          *head("pattern", *(n for _, n in MODES))]
for pat in CXL_FIG9D_PATTERNS:
    if pat in pat_hits:
        lines.append(row(pat, *(f"{mean(pat_hits[pat][m]):.1f} % / "
                                f"{paper_hit(m, pat)}" for m, _ in MODES)))
naive_all = [s for p in pat_speed.values() for s in p["sr-naive"]]
lines += ["", *head("Fig 9d", "ours", "paper"),
          row("NAIVE over CXL (mean)", x(mean(naive_all)),
              f"{CXL_FIG9D['naive_over_cxl']}x")]
nv = [out["fig9d"][a]["cycles"]["sr-naive"] / cyc(a, "off") for a in out["fig9d"]]
lines.append(row("NAIVE / GPU-DRAM (mean)", x(mean(nv)),
                 f"{CXL_FIG9D['naive_vs_gpu_dram']}x"))
for pat in CXL_FIG9D_PATTERNS:
    if pat in pat_speed:
        d = mean(pat_speed[pat]["sr-dyn"]) / mean(pat_speed[pat]["sr-naive"])
        lines.append(row(f"DYN over NAIVE, {pat}", f"{x(d)} ({pct(100 * (d - 1))})",
                         CXL_FIG9D["dyn_over_naive"][pat]))
if "around" in pat_speed:
    d = mean(pat_speed["around"]["sr-sr"]) / mean(pat_speed["around"]["sr-dyn"])
    lines.append(row("SR over DYN, around", x(d),
                     f"{CXL_FIG9D['sr_over_dyn_around']}x"))
out["fig9d_hits"] = {p: {m: mean(v) for m, v in h.items()}
                     for p, h in pat_hits.items()}
lines.append("")

# ---- Fig 9e -------------------------------------------------------------
E = (("sr", "CXL-SR"), ("ds", "CXL-DS"), ("sr-nogc", "CXL-SR, no GC"))
e = {m: get("bfs9e", m) for m, _ in E}
if all(e.values()):
    lines += ["### Fig 9e: bfs on Z-NAND with garbage collection", "",
              "bfs at its large size (scale 17), whose write-backs start the "
              "endpoints' garbage collection. The paper plots the ingress "
              "queue's occupancy and the load and store latencies over time; "
              "the core keeps no time series, so these are end-of-run "
              "counters: the deepest ingress queue, the responses that "
              "carried severe overload, and the latencies' means and maxima "
              "(docs/cxl.md, Differences).", "",
              *head("run", "cycles", "GC runs", "ingress max",
                    "DevLoad so responses", "load latency mean / max (ns)",
                    "store latency mean / max (ns)", "DS staged")]
    for m, n in E:
        c = e[m]["cxl"]
        lm = c["load_latency_ps"] / max(c["loads"], 1) / 1000
        sm = c["store_latency_ps"] / max(c["stores"], 1) / 1000
        out["fig9e"][m] = {"cycles": e[m]["gpu"]["cycles"],
                           "gc_runs": c["gc_runs"],
                           "ingress_max": c["ingress_max"],
                           "devload_so": c["devload_so"],
                           "load_latency_mean_ns": lm,
                           "load_latency_max_ns": c["load_latency_max_ps"] / 1000,
                           "store_latency_mean_ns": sm,
                           "store_latency_max_ns": c["store_latency_max_ps"] / 1000,
                           "ds_staged": c["ds_staged"]}
        lines.append(row(n, e[m]["gpu"]["cycles"], c["gc_runs"], c["ingress_max"],
                         c["devload_so"],
                         f"{lm:.0f} / {c['load_latency_max_ps'] / 1000:.0f}",
                         f"{sm:.0f} / {c['store_latency_max_ps'] / 1000:.0f}",
                         c["ds_staged"]))
    lines += ["", f"DS over SR on bfs with GC: "
              f"{x(e['sr']['gpu']['cycles'] / e['ds']['gpu']['cycles'])} "
              f"(paper: DS \"up to 4x\" on bfs, Fig 9c; Fig 9e: DS keeps the "
              f"ingress queue free and GC from recurring).", ""]
else:
    lines += ["Fig 9e: not measured (the fig9e-bfs job has no result).", ""]

lines.append(differences("cxl"))
json.dump(out, open(f"{results}/cxl_core.json", "w"), indent=1)
write_section(results, "64-cxl-core", lines)
