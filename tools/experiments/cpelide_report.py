#!/usr/bin/env python3
"""CPElide results: results/cpelide.json, a report section and figures.
Paper numbers are quoted from notes/cpelide.md (CPElide §V)."""
import json
import math
import os
import subprocess
import sys

raw, results = sys.argv[1], sys.argv[2]
classes = dict(line.split() for line in open(f"{raw}/classes.txt"))
W = list(classes)
HIGH = [w for w in W if classes[w] == "moderate-high"]


def load(path):
    with open(path) as f:
        return json.load(f)


dev = {w: {p: load(f"{raw}/device/{w}-{p}.json")
           for p in ("baseline", "cpelide", "ideal")} for w in W}
sweep = {n: {w: {p: load(f"{raw}/host/{w}-{n}-{p}.json")
                 for p in ("baseline", "cpelide")} for w in W} for n in (2, 6, 7)}
sweep[4] = {w: {p: dev[w][p] for p in ("baseline", "cpelide")} for w in W}


def speedup(r, p):
    return r["baseline"]["modeled_cycles"] / r[p]["modeled_cycles"]


def flits(r):
    return r["flits_l1_l2"] + r["flits_l2_l3"] + r["flits_remote"]


def gmean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs))


def amean(xs):
    return sum(xs) / len(xs)


sp = {w: speedup(dev[w], "cpelide") for w in W}
spi = {w: speedup(dev[w], "ideal") for w in W}
traffic = {w: flits(dev[w]["cpelide"]) / flits(dev[w]["baseline"]) for w in W}
ops = {w: (dev[w]["cpelide"]["l2_invalidates"] + dev[w]["cpelide"]["l2_flushes"]) /
       (dev[w]["baseline"]["l2_invalidates"] + dev[w]["baseline"]["l2_flushes"])
       for w in W}
sweep_avg = {n: gmean([speedup(sweep[n][w], "cpelide") for w in W]) for n in (2, 4, 6, 7)}
sweep_high = {n: gmean([speedup(sweep[n][w], "cpelide") for w in HIGH]) for n in (2, 4, 6, 7)}
peak = max(dev[w]["cpelide"]["table_peak_rows"] for w in W)
violations = sum(dev[w][p]["oracle_violations"] for w in W for p in ("baseline", "cpelide"))

with open(f"{results}/cpelide.json", "w") as f:
    json.dump({"device": dev, "speedup": sp, "ideal_speedup": spi,
               "traffic_ratio": traffic, "sweep_geomean": sweep_avg,
               "sweep_geomean_high": sweep_high, "peak_rows": peak}, f, indent=1)

fig = f"{results}/figures"
os.makedirs(fig, exist_ok=True)
with open(f"{raw}/speedup.dat", "w") as f:
    for w in W:
        f.write(f"{w} {sp[w]:.4f} {spi[w]:.4f}\n")
with open(f"{raw}/traffic.dat", "w") as f:
    for w in W:
        b = flits(dev[w]["baseline"])
        for p in ("baseline", "cpelide"):
            r = dev[w][p]
            f.write(f"\"{w} {p[0].upper()}\" {r['flits_l1_l2'] / b:.4f} "
                    f"{r['flits_l2_l3'] / b:.4f} {r['flits_remote'] / b:.4f}\n")
with open(f"{raw}/sweep.dat", "w") as f:
    for n in (2, 4, 6, 7):
        f.write(f"{n} {sweep_avg[n]:.4f} {sweep_high[n]:.4f}\n")
gp = f"""
set terminal pngcairo size 1200,520 font ",10" noenhanced
set output "{fig}/cpelide_speedup.png"
set title "Modeled speedup over baseline, 4 chiplets (device replays)"
set style data histograms; set style histogram clustered gap 1
set style fill solid 0.8 border -1; set boxwidth 0.9
set xtics rotate by -45 scale 0; set ylabel "baseline cycles / policy cycles"
set yrange [0:*]; set grid y; set key top left
plot "{raw}/speedup.dat" u 2:xtic(1) t "CPElide", "" u 3 t "ideal (no L2 sync)", 1 w l lc rgb "black" notitle
set output "{fig}/cpelide_traffic.png"
set title "Traffic in flits by class, normalised to baseline (B = baseline, C = CPElide)"
set style histogram rowstacked
plot "{raw}/traffic.dat" u 2:xtic(1) t "L1-L2", "" u 3 t "L2-L3", "" u 4 t "remote"
set terminal pngcairo size 800,480 font ",11"
set output "{fig}/cpelide_chiplets.png"
set title "CPElide speedup over baseline against chiplet count (geomean)"
set style data linespoints; set xtics 2,1,7 rotate by 0; set xlabel "chiplets"
set yrange [0.9:*]
plot "{raw}/sweep.dat" u 1:2 w lp lw 2 pt 7 t "all 24", "" u 1:3 w lp lw 2 pt 5 t "moderate/high reuse (18)"
"""
subprocess.run(["gnuplot"], input=gp, text=True, check=True)

o = ["## CPElide: eliding kernel-boundary L2 flushes and invalidations\n",
     "The device's global command processor keeps the Chiplet Coherence Table "
     "(64 rows, 2-bit state per chiplet, per-chiplet range hulls) and issues an "
     "L2 release only when another chiplet will access a Dirty range and an "
     "acquire only where a kernel would find a Stale copy; baseline invalidates "
     "every L2 at launch and flushes every L2 at completion; ideal never syncs "
     "the L2s (the reuse bound). A cache model (per-chiplet 8 MiB L2, 16 KiB L1, "
     "16 MiB L3, first-touch homes) turns the decisions into hits, flits and "
     "modeled cycles, and a version-per-word oracle checks every read. The 24 "
     "sequences come from `mcmgpu cpelide gen` (argument counts and R/RW "
     "patterns of the paper's workloads, not their real traces) and were "
     "replayed on the device in the guest (`mcmgpu cpelide replay --json`).\n",
     f"Oracle violations over all 48 baseline and CPElide replays: **{violations}**.\n",
     "| workload | reuse | kernels | CPElide speedup | ideal speedup | L2 ops vs baseline | traffic vs baseline | peak rows |",
     "|---|---|---|---|---|---|---|---|"]
for w in W:
    c = dev[w]["cpelide"]
    o.append(f"| {w} | {classes[w]} | {c['kernels']} | {sp[w]:.3f} | {spi[w]:.3f} | "
             f"{100 * ops[w]:.0f}% | {100 * traffic[w]:.0f}% | {c['table_peak_rows']} |")
o.append("\n| measure | paper | here (geomean; arithmetic) |")
o.append("|---|---|---|")
o.append(f"| speedup over baseline, all 24 | +13% | "
         f"{100 * (gmean(list(sp.values())) - 1):+.1f}%; {100 * (amean(list(sp.values())) - 1):+.1f}% |")
o.append(f"| speedup, moderate/high reuse (18) | +17% | "
         f"{100 * (gmean([sp[w] for w in HIGH]) - 1):+.1f}%; {100 * (amean([sp[w] for w in HIGH]) - 1):+.1f}% |")
o.append(f"| speedup, low reuse (6) | about 0% | "
         f"{100 * (gmean([sp[w] for w in W if w not in HIGH]) - 1):+.1f}% |")
o.append(f"| ideal (no L2 sync) over baseline | +54% lost reuse (Fig. 2) | "
         f"{100 * (gmean(list(spi.values())) - 1):+.1f}% |")
o.append(f"| network traffic (flits) | -14% | "
         f"{100 * (gmean(list(traffic.values())) - 1):+.1f}% |")
o.append(f"| peak table rows | at most 11 | {peak} |")
o.append(f"| speedup at 7 chiplets | +17% | {100 * (sweep_avg[7] - 1):+.1f}% |")
o.append("\n![speedup](figures/cpelide_speedup.png)\n")
o.append("![traffic](figures/cpelide_traffic.png)\n")
o.append("| chiplets | 2 | 4 | 6 | 7 |\n|---|---|---|---|---|")
o.append("| all 24 (geomean) | " + " | ".join(f"{100 * (sweep_avg[n] - 1):+.1f}%" for n in (2, 4, 6, 7)) + " |")
o.append("| moderate/high reuse | " + " | ".join(f"{100 * (sweep_high[n] - 1):+.1f}%" for n in (2, 4, 6, 7)) + " |")
o.append("\n![chiplet sweep](figures/cpelide_chiplets.png)\n")
o.append(f"The peak of {peak} rows comes from the pathfinder-like pipeline, "
         "whose 21 buffers each stay Valid somewhere; the paper's workloads "
         "never needed more than 11.\n")
o.append("Where we differ: one state per (row, chiplet) over a range hull (notes "
         "A1) makes halo stencils (Hotspot, Hotspot3D) and many-argument "
         "kernels that coarsen into shared rows (Pennant, Lulesh) sync as often "
         "as baseline, where the paper gains 37-38% on Hotspot3D and Pennant; "
         "pipelines with a rotated partition (our low-reuse proxies) still "
         "gain from skipping syncs on chiplets with nothing to sync. Time comes "
         "from our latency and cost model (notes A11), not from gem5.\n")
with open(f"{results}/sections/20-cpelide.md", "w") as f:
    f.write("\n".join(o) + "\n")
