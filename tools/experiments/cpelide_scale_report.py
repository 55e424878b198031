#!/usr/bin/env python3
"""CPElide's chiplet scaling through the GPU core (63-cpelide-scale.sh):
per chiplet count (4, 7, 8, 16) a table of every application's cycles under
baseline, CPElide, HMG and ideal with the speedups beside the paper's, the
geomeans per chiplet count beside the paper's means, a figure, and
results/cpelide_scale.json. Usage: RAW RESULTS."""
import json
import os
import re
import sys

from paper_tables import (CPELIDE_PAPER_7, CPELIDE_PAPER_SPEEDUP,
                          CPELIDE_SCALE_OVERHEAD, CPELIDE_SCALE_PAPER,
                          CPELIDE_TABLE2)
from report import (cpelide_syncs, gmean, gnuplot, head, load, row,
                    write_section)

raw, results = sys.argv[1], sys.argv[2]
POL = ("baseline", "cpelide", "hmg", "ideal")
runs = {}
for f in os.listdir(raw):
    m = re.fullmatch(r"(.+)-(\d+)-(baseline|cpelide|hmg|ideal)\.json", f)
    if m:
        runs.setdefault(int(m[2]), {}).setdefault(m[1], {})[m[3]] = \
            load(f"{raw}/{f}")
sizes = {}
for f in os.listdir(raw):
    if f.endswith("-size.txt"):
        a, s = open(f"{raw}/{f}").read().split()
        sizes[a] = s
NS = sorted(runs)
apps = sorted(a for a in CPELIDE_TABLE2
              if all(len(runs[n].get(a, {})) == len(POL) for n in NS))
# 4 chiplets at the paper's inputs (Table II; --large): "paper-APP" jobs.
paper_runs, paper_size = {}, {}
for f in os.listdir(raw):
    m = re.fullmatch(r"(.+)-paper-(baseline|cpelide|hmg|ideal)\.json", f)
    if m:
        paper_runs.setdefault(m[1], {})[m[2]] = load(f"{raw}/{f}")
    elif f.endswith("-paper.size"):
        paper_size[f[:-len("-paper.size")]] = open(f"{raw}/{f}").read().strip()
papps = sorted(a for a in CPELIDE_TABLE2 if len(paper_runs.get(a, {})) == len(POL))


def fmt(x):
    return f"{x:.3f}" if x is not None else None


def app_table(items):
    """A table's rows: (application, size, its numbers, the paper's pair)."""
    t = head("application", "size", "class (paper)", "cycles, baseline",
             "cycles, CPElide", "cycles, HMG", "cycles, ideal",
             "CPElide over baseline", "paper", "CPElide over HMG", "paper",
             "HMG over baseline", "syncs, baseline", "syncs, CPElide",
             "oracle violations")
    for a, size, d, pp in items:
        c = d["cycles"]
        t.append(row(a, size, CPELIDE_TABLE2[a], c["baseline"], c["cpelide"],
                     c["hmg"], c["ideal"], fmt(d["cpelide_over_baseline"]),
                     fmt(pp[0]), fmt(d["cpelide_over_hmg"]), fmt(pp[1]),
                     fmt(d["hmg_over_baseline"]), d["syncs_baseline"],
                     d["syncs_cpelide"], d["oracle_violations"]))
    return t


out = {"chiplets": {}, "apps": {}}
total_viol = 0
ideal_bad, viol_where = [], []
per = {}    # n -> app -> numbers


def numbers(r, a, n, where):
    """One application's four runs at n chiplets: cycles, ratios, syncs."""
    global total_viol
    cyc = {p: r[p]["gpu"]["cycles"] for p in POL}
    st = {p: r[p]["cpelide"] for p in POL}
    assert all(r[p]["chiplets"] == n for p in POL), (a, n)
    viol = sum(st[p]["oracle_violations"] for p in POL)
    total_viol += viol
    viol_where.extend(f"{a} {p} at {where} ({st[p]['oracle_violations']})"
                      for p in POL if st[p]["oracle_violations"])
    if any(cyc["ideal"] > cyc[p] for p in POL):
        ideal_bad.append(f"{a} at {where}")
    return {
        "cycles": cyc, "oracle_violations": viol,
        "cpelide_over_baseline": cyc["baseline"] / cyc["cpelide"],
        "cpelide_over_hmg": cyc["hmg"] / cyc["cpelide"],
        "hmg_over_baseline": cyc["baseline"] / cyc["hmg"],
        "cpelide_over_ideal": cyc["cpelide"] / cyc["ideal"],
        **cpelide_syncs(st)}


for n in NS:
    per[n] = {}
    for a in apps:
        per[n][a] = numbers(runs[n][a], a, n, n)
        out["apps"].setdefault(a, {})[str(n)] = per[n][a]
pper = {}
for a in papps:
    pper[a] = numbers(paper_runs[a], a, 4, "4 (Table II's input)")
    pper[a]["size"] = paper_size.get(a)
    out["apps"].setdefault(a, {})["4-paper"] = pper[a]
if papps:
    out["paper_inputs"] = {
        k: gmean(pper[a][k] for a in papps)
        for k in ("cpelide_over_baseline", "cpelide_over_hmg",
                  "hmg_over_baseline", "cpelide_over_ideal")}

# CPElide's cost against ideal (syncs at no cost) relative to 4 chiplets:
# the nearest thing to the paper's §VI study, which measures only the
# slowdown the extra syncs of 8 and 16 chiplets cause CPElide.
summary = {}
for n in NS:
    g = lambda k: gmean(per[n][a][k] for a in apps)
    s = {"cpelide_over_baseline": g("cpelide_over_baseline"),
         "cpelide_over_hmg": g("cpelide_over_hmg"),
         "hmg_over_baseline": g("hmg_over_baseline"),
         "cpelide_over_ideal": g("cpelide_over_ideal"),
         "syncs_cpelide_per_kernel": sum(per[n][a]["syncs_cpelide"] for a in apps) /
         sum(per[n][a]["kernels"] for a in apps),
         "syncs_baseline_per_kernel": sum(per[n][a]["syncs_baseline"] for a in apps) /
         sum(per[n][a]["kernels"] for a in apps)}
    if 4 in per:
        s["overhead_vs_4"] = gmean(per[n][a]["cpelide_over_ideal"] /
                                   per[4][a]["cpelide_over_ideal"] for a in apps) - 1
    summary[n] = s
    out["chiplets"][str(n)] = s
out["oracle_violations"] = total_viol
out["ideal_not_fastest"] = ideal_bad
out["oracle_violations_where"] = viol_where
with open(f"{results}/cpelide_scale.json", "w") as f:
    json.dump(out, f, indent=1)

L = ["## CPElide: chiplet scaling through the GPU core", "",
     "The 22 applications of CPElide's Table II (`tools/mcmgpu/apps/`, at the "
     "sizes in `tools/experiments/63-cpelide-scale.sh`, between make check's "
     "and the paper's) through the GPU timing core on CPElide's configuration "
     "(`mcmgpu run --host --config cpelide --chiplets N --cpelide POLICY`), "
     "at 4 chiplets (the paper's headline), 7 (the most the paper simulates, "
     "§V-C) and 8 and 16 (its §VI scaling study). Strong scaling: the same "
     "program at every count; each chiplet keeps Table I's 60 CUs and 8 MB "
     "L2, the 16 MB L3 is split over the chiplets. The paper imitates 8 and "
     "16 chiplets on its 4-chiplet system by serializing 2 and 4 sets of "
     "acquires and releases at each kernel boundary and gives only "
     "CPElide's slowdown from that (1 % and 2 %); the core runs 8 and 16 "
     "chiplets directly (docs/cpelide.md, Chiplet scaling through the GPU "
     "core). Speedups are cycle ratios; means are geometric over the "
     "applications. At 4 chiplets each application also runs at the "
     "paper's input (Table II; `mcmgpu workload gen APP --large`), which "
     "the headline table takes. "
     f"Oracle violations over all {(len(NS) * len(apps) + len(papps)) * len(POL)} "
     f"runs: **{total_viol}**"
     + (f" ({', '.join(viol_where)}; docs/cpelide.md, Differences)" if viol_where else "")
     + "; ideal no slower than every policy "
     + ("everywhere." if not ideal_bad else
        f"except **{', '.join(ideal_bad)}**."), ""]
L += head("chiplets", "CPElide over baseline", "paper", "CPElide over HMG",
          "paper", "HMG over baseline", "paper", "CPElide over ideal",
          "CPElide's cost over ideal vs 4 chiplets", "paper (§VI, 8 and 16)",
          "syncs a kernel, baseline", "syncs a kernel, CPElide")
for n in NS:
    s, p = summary[n], CPELIDE_SCALE_PAPER.get(n, (None, None, None))
    ov = CPELIDE_SCALE_OVERHEAD.get(n)
    L.append(row(n, fmt(s["cpelide_over_baseline"]), fmt(p[0]),
                 fmt(s["cpelide_over_hmg"]), fmt(p[1]),
                 fmt(s["hmg_over_baseline"]), fmt(p[2]),
                 fmt(s["cpelide_over_ideal"]),
                 f"{100 * s['overhead_vs_4']:+.1f} %" if "overhead_vs_4" in s else None,
                 f"+{100 * ov:.0f} % slowdown" if ov else None,
                 f"{s['syncs_baseline_per_kernel']:.1f}",
                 f"{s['syncs_cpelide_per_kernel']:.1f}"))
if papps:
    s = out["paper_inputs"]
    p = CPELIDE_SCALE_PAPER.get(4, (None, None, None))
    L.append(row("4, Table II's inputs", fmt(s["cpelide_over_baseline"]),
                 fmt(p[0]), fmt(s["cpelide_over_hmg"]), fmt(p[1]),
                 fmt(s["hmg_over_baseline"]), fmt(p[2]),
                 fmt(s["cpelide_over_ideal"]), None, None, None, None))
L += ["", "Paper at 7 chiplets: CPElide over HMG is the 4-chiplet +19 % plus "
      "the text's \"increases by 2 %\" (the two stated 7-chiplet means would "
      "give 1.17 / 0.94 = 1.245). \"CPElide's cost over ideal vs 4 chiplets\" "
      "is our nearest measure to the paper's §VI figure: how much CPElide's "
      "distance from ideal (every sync free) grows over its distance at 4 "
      "chiplets (geomean of the per-application ratios).", ""]

fig = f"{results}/figures"
os.makedirs(fig, exist_ok=True)
with open(f"{raw}/scale.dat", "w") as f:
    for n in NS:
        s = summary[n]
        f.write(f"{n} {s['cpelide_over_baseline']:.4f} {s['cpelide_over_hmg']:.4f} "
                f"{s['hmg_over_baseline']:.4f}\n")
with open(f"{raw}/scale_paper.dat", "w") as f:
    for n in NS:
        p = CPELIDE_SCALE_PAPER.get(n, (None, None, None))
        if p[0] is not None:
            f.write(f"{n} {p[0]} {p[1]} {'?' if p[2] is None else p[2]}\n")
gnuplot(f"""
set terminal pngcairo size 800,480 font ",11" noenhanced
set output "{fig}/cpelide_scale.png"
set title "CPElide through the GPU core: geomean speedup against chiplet count"
set xlabel "chiplets"; set xtics (4, 7, 8, 16); set grid y; set key top left
set ylabel "cycle ratio"; set datafile missing "?"
plot "{raw}/scale.dat" u 1:2 w lp lw 2 pt 7 t "CPElide over baseline", \
     "" u 1:3 w lp lw 2 pt 5 t "CPElide over HMG", \
     "" u 1:4 w lp lw 2 pt 9 t "HMG over baseline", \
     "{raw}/scale_paper.dat" u 1:2 w p pt 6 ps 2 t "paper: CPElide over baseline", \
     "" u 1:3 w p pt 4 ps 2 t "paper: CPElide over HMG", \
     "" u 1:4 w p pt 8 ps 2 t "paper: HMG over baseline", \
     1 w l lc rgb "black" notitle
""")
L += ["![CPElide scaling](figures/cpelide_scale.png)", ""]

if papps:
    L += ["### 4 chiplets at the paper's inputs (Table II)", "",
          "Each application at its large size (`mcmgpu workload list`: "
          "Table II's input, or the nearest the executor affords), 4 "
          "chiplets, every policy; the headline table's CPElide rows at 4 "
          "chiplets come from here.", ""]
    L += app_table((a, pper[a]["size"], pper[a],
                    CPELIDE_PAPER_SPEEDUP.get(a, (None, None))) for a in papps)
    s = out["paper_inputs"]
    L += ["", f"Geomean at 4 chiplets, Table II's inputs: CPElide over "
          f"baseline {s['cpelide_over_baseline']:.3f}, over HMG "
          f"{s['cpelide_over_hmg']:.3f}.", ""]
for n in NS:
    L += [f"### {n} chiplets", ""]
    paper = CPELIDE_PAPER_SPEEDUP if n == 4 else CPELIDE_PAPER_7 if n == 7 else {}
    L += app_table((a, sizes.get(a), per[n][a], paper.get(a, (None, None)))
                   for a in apps)
    s = summary[n]
    L += ["", f"Geomean at {n} chiplets: CPElide over baseline "
          f"{s['cpelide_over_baseline']:.3f}, over HMG {s['cpelide_over_hmg']:.3f}.",
          ""]
L += ["The remaining differences from the paper are in docs/cpelide.md, "
      "Differences from the paper.", ""]
write_section(results, "63-cpelide-scale", L)
