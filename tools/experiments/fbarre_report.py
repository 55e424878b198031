#!/usr/bin/env python3
"""F-Barre report section: Barre vs F-Barre (no merge, 2Merge, 4Merge) per
workload, the filters, scheduling alone, message loss and chiplet count,
beside the paper's numbers. Usage: RAW RESULTS."""
import json
import os
import sys

from barre_proxies import read_classes
from report import (differences, gmean, gnuplot, head, load, mean, row,
                    write_section)

raw, results = sys.argv[1], sys.argv[2]
W, CLS, MPKI = read_classes(raw)


def host(w, name, n=4):
    return load(f"{raw}/host/{w}-{n}-{name}.json")


dev = {w: {m: load(f"{raw}/device/{w}-4-{m}.json") for m in ("barre", "merge2")}
       for w in W}
mismatch = [f"{w} {m}" for w in W for m in ("barre", "merge2")
            if dev[w][m] != host(w, m)]
inpkg_bad = sum(host(w, c)["inpackage_mismatches"] for w in W
                for c in ("nomerge", "merge2", "merge4", "drop10"))


def ratio(a, b):
    return a / b if b else 0.0


def speed(base, r):
    return ratio(base["modeled_cycles"], r["modeled_cycles"])


def gmean_positive(xs):
    """Of the speedups there are (a ratio with a zero is 0.0)."""
    return gmean(x for x in xs if x > 0)


def coal_share(r):
    return ratio(r["coalesced"], r["ats_requests"])


def traffic_cut(base, r):
    return 1 - ratio(r["ats_requests"], base["ats_requests"])


rows = {}
for w in W:
    b, s, n1, m2, m4 = (host(w, c) for c in ("barre", "sched", "nomerge",
                                             "merge2", "merge4"))
    rows[w] = {
        "ats_barre": b["ats_requests"], "ats_fbarre": m2["ats_requests"],
        "traffic_cut": traffic_cut(b, m2),
        "coal_share_barre": coal_share(b), "coal_share_fbarre": coal_share(m2),
        "inpackage_share": ratio(m2["local_hits"] + m2["remote_hits"],
                                 m2["l2_misses"]),
        "remote_hit_rate": ratio(m2["remote_hits"], m2["remote_requests"]),
        "remote_requests": m2["remote_requests"],
        "lcf_tp_rate": ratio(m2["lcf_true_positives"], m2["lcf_hits"]),
        "lcf_hits": m2["lcf_hits"],
        "speedup_sched": speed(b, s), "speedup_nomerge": speed(b, n1),
        "speedup_merge2": speed(b, m2), "speedup_merge4": speed(b, m4),
        "merged_share": ratio(m2["merged_groups"], m2["groups"]),
    }


def agg(key, f=mean, only=None):
    return f(rows[w][key] for w in W if only is None or only(w))


def sweep(name, n=4, base="barre"):
    return gmean_positive(speed(host(w, base, n), host(w, name, n)) for w in W)


def rate(name, hits, asked, n=4):
    return ratio(sum(host(w, name, n)[hits] for w in W),
                 sum(host(w, name, n)[asked] for w in W))


sweeps = {
    "rows": {r: gmean_positive(speed(host(w, "merge2"), host(w, c)) for w in W)
             for r, c in ((512, "rows512"), (1024, "rows1024"))},
    "drop10": {"speedup_vs_no_loss": gmean_positive(speed(host(w, "merge2"), host(w, "drop10"))
                                           for w in W),
               "remote_hit_rate": rate("drop10", "remote_hits", "remote_requests"),
               "inpackage_mismatches": sum(host(w, "drop10")["inpackage_mismatches"]
                                           for w in W)},
    "chiplets": {2: sweep("merge2", 2), 4: sweep("merge2", 4), 8: sweep("nomerge", 8)},
}
rem_all = rate("merge2", "remote_hits", "remote_requests")
lcf_all = rate("merge2", "lcf_true_positives", "lcf_hits")

with open(f"{results}/fbarre.json", "w") as f:
    json.dump({"device": dev, "per_workload": rows, "sweeps": sweeps,
               "device_host_mismatches": mismatch,
               "inpackage_mismatches": inpkg_bad,
               "remote_hit_rate": rem_all, "lcf_true_positive_rate": lcf_all},
              f, indent=1)

fig = f"{results}/figures"
os.makedirs(fig, exist_ok=True)
with open(f"{raw}/fbarre.dat", "w") as f:
    for w in W:
        r = rows[w]
        f.write(f"{w} {r['speedup_sched']:.4f} {r['speedup_nomerge']:.4f} "
                f"{r['speedup_merge2']:.4f} {r['speedup_merge4']:.4f} "
                f"{100 * r['traffic_cut']:.2f} {100 * r['coal_share_barre']:.2f} "
                f"{100 * r['coal_share_fbarre']:.2f}\n")
gp = f"""
set terminal pngcairo size 1100,900 font ",10" noenhanced
set output "{fig}/fbarre_workloads.png"
set multiplot layout 2,1
set style data histograms; set style histogram clustered gap 1
set style fill solid 0.8 border -1; set boxwidth 0.9
set xtics rotate by -45 scale 0; set grid y; set key top left
set title "Speedup over Barre (modeled cycles), 4 chiplets, 16 walkers"
set ylabel "x"; set logscale y 2
plot "{raw}/fbarre.dat" u 2:xtic(1) t "scheduling alone", "" u 3 t "F-Barre no merge", "" u 4 t "F-Barre-2Merge", "" u 5 t "F-Barre-4Merge", 1 w l lc rgb "black" notitle
unset logscale y
set title "ATS requests saved by F-Barre-2Merge (paper: 53 % mean), and the IOMMU's coalesced share (paper: Barre 58 %, F-Barre 32 %)"
set ylabel "%"; set yrange [0:100]
plot "{raw}/fbarre.dat" u 6:xtic(1) t "ATS requests saved vs Barre (= misses answered in the package)", "" u 7 t "coalesced share at the IOMMU, Barre", "" u 8 t "coalesced share at the IOMMU, F-Barre-2Merge"
unset multiplot
"""
gnuplot(gp)

o = ["## F-Barre: translation inside the package, merged groups, scheduling\n",
     "The ten proxies of the Barre section, 4 chiplets, as Barre and as "
     "F-Barre-2Merge through the device; device JSON equal to the host "
     f"core's: **{2 * len(W) - len(mismatch)} of {2 * len(W)}** replays"
     + (f" (differ: {', '.join(mismatch)})" if mismatch else "") + ". "
     "Every translation made in the package was checked against the true "
     f"walk on the host: **{inpkg_bad} mismatches**. The rest runs on the "
     "host core. Speedups are modeled cycles of the same trace, geometric "
     "means; shares are arithmetic means over the proxies.\n",
     *head("workload", "class (MPKI)", "ATS requests Barre → F-Barre",
           "traffic saved", "IOMMU coalesced share Barre → F-Barre",
           "misses answered in package", "remote hit rate", "LCF true positives",
           "speedup: sched / F-Barre / 2Merge / 4Merge")]
SPEEDUPS = ("speedup_sched", "speedup_nomerge", "speedup_merge2", "speedup_merge4")
for w in W:
    r = rows[w]
    rh = f"{100 * r['remote_hit_rate']:.1f} % ({r['remote_requests']})" \
        if r["remote_requests"] else "– (0)"
    lt = f"{100 * r['lcf_tp_rate']:.1f} %" if r["lcf_hits"] else "–"
    o.append(row(w, f"{CLS[w]} ({MPKI[w]:g})", f"{r['ats_barre']} → {r['ats_fbarre']}",
                 f"{100 * r['traffic_cut']:.1f} %",
                 f"{100 * r['coal_share_barre']:.1f} → {100 * r['coal_share_fbarre']:.1f} %",
                 f"{100 * r['inpackage_share']:.1f} %", rh, lt,
                 " / ".join(f"{r[k]:.2f}" for k in SPEEDUPS)))
o.append(row("**mean**", None, None,
             f"**{100 * agg('traffic_cut'):.1f} %** (paper 53 %, up to 99 %)",
             f"**{100 * agg('coal_share_barre'):.1f} → "
             f"{100 * agg('coal_share_fbarre'):.1f} %** (paper 58 → 32 %)",
             f"{100 * agg('inpackage_share'):.1f} %",
             f"**{100 * rem_all:.1f} %** (paper 75.3 %)",
             f"**{100 * lcf_all:.1f} %** (paper 98.4 %)",
             " / ".join(f"{agg(k, gmean_positive):.2f}" for k in SPEEDUPS)) + "\n")
o.append("![F-Barre per workload](figures/fbarre_workloads.png)\n")
n1, m2, m4 = (agg(k, gmean_positive) for k in ("speedup_nomerge", "speedup_merge2",
                                      "speedup_merge4"))
d = sweeps["drop10"]
o += head("comparison", "measured", "paper")
o += [row("F-Barre (no merge) over Barre", f"{n1:.2f}×", "1.24× (Fig 15)"),
      row("2Merge over no merge", f"{ratio(m2, n1):.2f}×", "1.34× (Fig 15)"),
      row("4Merge over no merge", f"{ratio(m4, n1):.2f}×", "1.53× (Fig 15)"),
      row("scheduling alone over Barre", f"{agg('speedup_sched', gmean_positive):.2f}×",
          "1.34× (Fig 18)"),
      row("scheduling and peer sharing (2Merge) over Barre", f"{m2:.2f}×",
          "1.80× (Fig 18)"),
      row("512-row filters over 256 (2Merge)", f"{sweeps['rows'][512]:.3f}×",
          "1.03× (Fig 17b)"),
      row("1024-row filters over 256 (2Merge)", f"{sweeps['rows'][1024]:.3f}×",
          "1.06× (Fig 17b)"),
      row("10 % of filter messages lost (2Merge)",
          f"{d['speedup_vs_no_loss']:.3f}× of no loss, "
          f"remote hit rate {100 * d['remote_hit_rate']:.1f} %, "
          f"{d['inpackage_mismatches']} wrong translations", "not studied")]
for n, s in sweeps["chiplets"].items():
    what = "F-Barre (no merge: expansion is for 4 chiplets at most)" if n == 8 \
        else "F-Barre-2Merge"
    paper = {2: "1.54×", 4: "1.86×", 8: "2.04×"}[n]
    o.append(row(f"{n} chiplets, {what} over Barre", f"{s:.2f}×",
                 f"{paper} (Fig 20, baseline unstated)"))
o.append("\n" + differences("fbarre"))
write_section(results, "35-fbarre", o)
