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
from report import (bars, differences, gmean, gnuplot, head, load, mean, row,
                    write_section)

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


def fig9b_plot():
    """Fig 9b as the paper draws it: per workload, CXL, CXL-SR and CXL-DS
    cycles over GPU-DRAM's (log y); returns the caption and link."""
    fig = f"{results}/figures"
    os.makedirs(fig, exist_ok=True)
    b = out["fig9b"]
    runs = ("znand-sr-off", "znand-sr-sr", "znand-ds-on")
    with open(f"{raw}/fig9b.dat", "w") as f:
        for a in b:
            c = b[a]["cycles"]
            f.write(f'"{a} ({b[a]["class"]})" '
                    + " ".join(f"{c[m] / c['off']:.4f}" for m in runs) + "\n")
    top = max(b[a]["cycles"][m] / b[a]["cycles"]["off"] for a in b for m in runs)
    gnuplot(f"""
{bars(f"{fig}/cxl_core_fig9b.png", "CXL-GPU Fig 9b through the GPU core: Z-NAND endpoints, cycles over GPU-DRAM's")}
set xtics rotate by -45 scale 0; set grid y
set logscale y; set yrange [0.8:{top * 2.5:.1f}]
set ytics (1, 1.5, 2, 3, 5, 10, 20, 30, 50, 100, 200, 500)
set ylabel "cycles / GPU-DRAM cycles (lower is better)"
set key top right opaque
plot "{raw}/fig9b.dat" u 2:xtic(1) lc rgb "#bbbbbb" t "CXL (no SR)", \
     "" u 3 lc rgb "#9400d3" t "CXL-SR", "" u 4 lc rgb "#009e73" t "CXL-DS (SR + DS)", \
     1 w l lc rgb "black" t "GPU-DRAM"
""")
    s = out["fig9b_summary"]
    return ["Each workload's cycles under CXL, CXL-SR and CXL-DS over its "
            "GPU-DRAM cycles (the table's ratios; log scale, lower is "
            "better; each name's class as in the table). SR over CXL, mean "
            f"of the workloads: ours {x(s['sr_over_cxl_mean'])}, the "
            f"paper's {CXL_FIG9['sr_over_cxl']}x ({CXL_FIG9['sr_over_cxl_seq']}x "
            "on vadd and saxpy"
            + (f", ours {x(s['sr_over_cxl_seq'])}" if seq else "")
            + "); the paper prints no per-workload bar values.", "",
            "![CXL-GPU Fig 9b through the GPU core](figures/cxl_core_fig9b.png)",
            ""]


if apps:
    lines += fig9b_plot()

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
def spans(samples):
    """The runs of consecutive samples with GC: (first, last) indices."""
    out, first = [], None
    for k, smp in enumerate(samples):
        if smp["gc"] and first is None:
            first = k
        if not smp["gc"] and first is not None:
            out.append((first, k - 1))
            first = None
    if first is not None:
        out.append((first, len(samples) - 1))
    return out


def lat(samples, kind):
    """Mean and largest latency (us) of the samples' completions."""
    n = sum(smp[kind + "s"] for smp in samples)
    tot = sum(smp[kind + "_latency_ps"] for smp in samples)
    top = max((smp[kind + "_latency_max_ps"] for smp in samples), default=0)
    return (tot / n / 1e6 if n else 0), top / 1e6


def fig9e_series(e):
    """Fig 9e as the paper draws it: the --timeline samples of each run
    (ingress queue, load and store latency, GC, DS staging) as a figure,
    and what they show beside the paper's description."""
    tl = {m: e[m].get("cxl_timeline") for m in e}
    if not all(tl.values()):
        return ["Fig 9e's time series: not measured (no `cxl_timeline` in "
                "the results; run the fig9e-bfs job with `--timeline`).", ""]
    every = tl["sr"]["cycles_per_sample"]
    fig = f"{results}/figures"
    os.makedirs(fig, exist_ok=True)
    for m in tl:
        with open(f"{raw}/bfs9e-{m}.dat", "w") as f:
            f.write("# end_Mcycles ingress_max load_mean_us load_max_us "
                    "store_mean_us store_max_us gc ds_held_max\n")
            for smp in tl[m]["samples"]:
                lm, lx = lat([smp], "load")
                sm, sx = lat([smp], "store")
                f.write(" ".join([f"{smp['end'] / 1e6:.3f}",
                                  str(smp["ingress_max"]),
                                  *(f"{v:.4f}" if v else "NaN"
                                    for v in (lm, lx, sm, sx)),
                                  str(smp["gc"]), str(smp["ds_held_max"])])
                        + "\n")
    d = {m: f'"{raw}/bfs9e-{m}.dat"' for m in tl}
    xmax = max(e[m]["gpu"]["cycles"] for m in e) / 1e6
    gp = f"""
set terminal pngcairo size 1000,1100 font ",10" noenhanced
set output "{fig}/cxl_fig9e.png"
set style line 1 lc rgb "#9400d3" lw 2
set style line 2 lc rgb "#009e73" lw 2
set style line 3 lc rgb "#c080e0" pt 7 ps 0.35
set style line 4 lc rgb "#60c0a0" pt 7 ps 0.35
set multiplot layout 4,1 title "Fig 9e through the GPU core: bfs (scale 17), Z-NAND, 4 endpoints; a sample every {every} cycles (ours: 1 ns each)"
set grid; set key top left opaque; set xrange [0:{xmax:.3f}]
set format x ""
set ylabel "ingress queue (max)"; set yrange [0:*]
plot {d['sr']} u 1:2 w fsteps ls 1 t "CXL-SR", {d['ds']} u 1:2 w fsteps ls 2 dt 2 t "CXL-DS"
set logscale y; set yrange [*:*]
set ylabel "load latency (us)"
plot {d['sr-nogc']} u 1:3 w l lc rgb "gray" t "CXL-SR, no GC, mean", \\
     {d['sr']} u 1:4 w p ls 3 t "CXL-SR max", {d['ds']} u 1:4 w p ls 4 t "CXL-DS max", \\
     {d['sr']} u 1:3 w l ls 1 t "CXL-SR mean", {d['ds']} u 1:3 w l ls 2 t "CXL-DS mean"
set ylabel "store latency (us)"
plot {d['sr']} u 1:6 w p ls 3 t "CXL-SR max", {d['ds']} u 1:6 w p ls 4 t "CXL-DS max", \\
     {d['sr']} u 1:5 w l ls 1 t "CXL-SR mean", {d['ds']} u 1:5 w l ls 2 t "CXL-DS mean"
unset logscale y; set yrange [0:*]
set format x "%g"; set xlabel "M cycles"
set ylabel "GC runs holding channels"; set y2label "DS lines staged (max)"
set y2tics; set ytics nomirror
plot {d['sr']} u 1:7 w fsteps ls 1 t "CXL-SR GC", {d['ds']} u 1:7 w fsteps ls 2 dt 2 t "CXL-DS GC", \\
     {d['ds']} u 1:8 axes x1y2 w l lc rgb "gray" t "CXL-DS staged lines"
unset multiplot
"""
    gnuplot(gp)
    out["fig9e"]["timeline"] = {}
    rows = []
    for m, n in E:
        smp = tl[m]["samples"]
        gc = [s_ for s_ in smp if s_["gc"]]
        quiet = [s_ for s_ in smp if not s_["gc"]]
        sp = spans(smp)
        g_l, g_s = lat(gc, "load"), lat(gc, "store")
        q_l, q_s = lat(quiet, "load"), lat(quiet, "store")
        win = ", ".join(f"{smp[a]['end'] / 1e6 - every / 1e6:.1f}-"
                        f"{smp[b]['end'] / 1e6:.1f}" for a, b in sp) or "none"
        out["fig9e"]["timeline"][m] = {
            "samples": len(smp), "gc_windows_mcycles": win,
            "ingress_max_gc": max((s_["ingress_max"] for s_ in gc), default=0),
            "ingress_max_other": max((s_["ingress_max"] for s_ in quiet),
                                     default=0),
            "load_us_gc": g_l[0], "load_us_max_gc": g_l[1],
            "load_us_other": q_l[0], "load_us_max_other": q_l[1],
            "store_us_gc": g_s[0], "store_us_max_gc": g_s[1],
            "store_us_other": q_s[0], "store_us_max_other": q_s[1],
            "loads_per_sample_gc": (sum(s_["loads"] for s_ in gc) / len(gc)
                                    if gc else 0),
            "loads_per_sample_other": sum(s_["loads"] for s_ in quiet)
            / max(len(quiet), 1),
            "ds_held_max": max(s_["ds_held_max"] for s_ in smp)}
        t = out["fig9e"]["timeline"][m]
        rows.append(row(n, win, f"{t['ingress_max_gc']} / "
                        f"{t['ingress_max_other']}",
                        f"{g_l[0]:.3g} / {g_l[1]:.4g}" if gc else "-",
                        f"{q_l[0]:.3g} / {q_l[1]:.4g}",
                        f"{g_s[0]:.3g} / {g_s[1]:.4g}" if gc else "-",
                        f"{q_s[0]:.3g} / {q_s[1]:.4g}",
                        f"{t['loads_per_sample_gc']:.0f} / "
                        f"{t['loads_per_sample_other']:.0f}",
                        t["ds_held_max"]))
    T = out["fig9e"]["timeline"]
    return [f"**Time series** (`--timeline {every}`: each run sampled every "
            f"{every} cycles; the samples change no cycle, and sum to the "
            "counters above). \"GC\" samples are those in which some "
            "endpoint's garbage collection held its channels.", "",
            *head("run", "GC windows (M cycles)",
                  "ingress max, GC / other samples",
                  "load latency in GC samples, mean / max (us)",
                  "other samples", "store latency in GC samples (us)",
                  "other samples", "loads a sample, GC / other",
                  "DS lines staged (max)"),
            *rows, "",
            *head("Fig 9e", "paper (qualitative)", "ours (the series)"),
            row("ingress queue, CXL-SR", "fills once GC starts (write "
                "latency rises)", f"at most {T['sr']['ingress_max_gc']} in "
                f"GC samples, {T['sr']['ingress_max_other']} in the others"),
            row("ingress queue, CXL-DS", "stays free",
                f"at most {T['ds']['ingress_max_gc']} in GC samples, "
                f"{T['ds']['ingress_max_other']} in the others"),
            row("load and store latency, CXL-SR", "both rise during GC",
                f"loads {T['sr']['load_us_gc']:.1f} us mean in GC samples, "
                f"{T['sr']['load_us_other']:.1f} us in the others; stores "
                f"{T['sr']['store_us_gc']:.1f} us against "
                f"{T['sr']['store_us_other']:.1f} us"),
            row("latency, CXL-DS", "stores at GPU-memory speed; lower read "
                "latency, no read tail",
                f"stores {1000 * T['ds']['store_us_gc']:.0f} ns mean in GC "
                f"samples ({1000 * T['ds']['store_us_other']:.0f} ns in the "
                f"others); loads {T['ds']['load_us_gc']:.1f} us mean in GC "
                f"samples, max {T['ds']['load_us_max_gc']:.0f} us (SR: "
                f"{T['sr']['load_us_max_gc']:.0f} us)"),
            row("GC recurrence", "SR: the backlog after a GC triggers the "
                "next; DS stops GC from recurring",
                f"GC windows (M cycles) SR: {T['sr']['gc_windows_mcycles']}; "
                f"DS: {T['ds']['gc_windows_mcycles']}; GC runs "
                f"{e['sr']['cxl']['gc_runs']} and {e['ds']['cxl']['gc_runs']}"),
            "", "![Fig 9e time series](figures/cxl_fig9e.png)", ""]


E = (("sr", "CXL-SR"), ("ds", "CXL-DS"), ("sr-nogc", "CXL-SR, no GC"))
e = {m: get("bfs9e", m) for m, _ in E}
if all(e.values()):
    lines += ["### Fig 9e: bfs on Z-NAND with garbage collection", "",
              "bfs at its large size (scale 17), whose write-backs start the "
              "endpoints' garbage collection. End-of-run counters first: "
              "the deepest ingress queue, the responses that carried severe "
              "overload, and the latencies' means and maxima; the time "
              "series (`--timeline`) below.", "",
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
    lines += fig9e_series(e)
else:
    lines += ["Fig 9e: not measured (the fig9e-bfs job has no result).", ""]

lines.append(differences("cxl"))
json.dump(out, open(f"{results}/cxl_core.json", "w"), indent=1)
write_section(results, "64-cxl-core", lines)
