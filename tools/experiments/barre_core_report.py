#!/usr/bin/env python3
"""Barre Chord's Figs 16, 17, 18, 20, 23 and 26 through the GPU core
(62-barre-core.sh): per application, and our mean beside the paper's.
Means are arithmetic over the applications measured. Usage: RAW RESULTS."""
import json
import os
import sys

from paper_tables import BARRE_CORE_FIGS as P
from paper_tables import BARRE_FIG15, BARRE_TABLE1
from report import bars, gmean, gnuplot, head, load, mean, row, write_section

raw, results = sys.argv[1], sys.argv[2]

# The jobs' applications: Table I's, in its order.
APPS = tuple(BARRE_TABLE1)
RUNS = ("off", "on", "least", "sched", "fb1", "fb1-nosched", "fb2", "fb2-r512",
        "fb2-r1024", "least-c2", "fb-c2", "least-c8", "fb-c8",
        "least-c16", "fb-c16",
        "least-w8", "fb-w8", "least-w32", "fb-w32", "least-rr",
        "fb-rr")


def pct(x):
    return f"{100 * x:.1f} %"


def x(v):
    return f"{v:.3f}x"


r, missing, ms = {}, [], {}
for a in APPS:
    files = {m: f"{raw}/{a}-{m}.json" for m in RUNS}
    if not all(os.path.exists(f) for f in files.values()):
        missing.append(a)
        continue
    r[a] = {m: load(f) for m, f in files.items()}
    if os.path.exists(f"{raw}/{a}-ms.txt"):
        ms[a] = int(open(f"{raw}/{a}-ms.txt").read().split()[0])
apps = list(r)


def cyc(a, m):
    return r[a][m]["gpu"]["cycles"]


def b(a, m):
    return r[a][m]["barre"]


# transpose thrashes its L2 TLBs (every lookup misses): answers that come
# sooner or in another order evict entries waiting warps still need, and
# its ATS requests multiply. The speedup tables give the mean without it
# beside the mean over all (docs/barre.md, Figures through the GPU core).
ODD = "transpose"


def mean_but(col):
    """The mean of a column (one value an application, in apps' order)
    without ODD."""
    return mean(v for a, v in zip(apps, col) if a != ODD)


def sp(a, base, m):
    """m's speedup over base: base cycles / m cycles."""
    return cyc(a, base) / cyc(a, m) if cyc(a, m) else 0.0


out = {"apps": {a: {} for a in apps}, "missing": missing, "job_ms": ms}
lines = ["## Barre Chord's Figs 16-18, 20, 23 and 26 through the GPU core", "",
         "`tools/experiments/62-barre-core.sh`: Table I's 19 applications "
         "(one job each, sizes in the script) on the `barre` preset (4 chiplets, "
         "16 walkers, 256-row filters, `kwc` placement standing for LASP), "
         "on the host core, every run with `--shadow`. \"F-Barre\" is the "
         "paper's F-Barre-2Merge (`--barre fbarre --merge 2`) except in "
         "Fig 18 (NoMerge) and at 8 and 16 chiplets (group expansion stops "
         "at 4 chiplets, §VI). Means are arithmetic over our applications; "
         "the paper's are over its 19, and it gives per-application numbers "
         "only as bars. Differences: docs/barre.md, \"Figures through the "
         "GPU core\".", ""]

if not apps:
    lines += ["No application measured.", ""]
    write_section(results, "62-barre-core", lines)
    sys.exit(0)

fig = f"{results}/figures"
os.makedirs(fig, exist_ok=True)
LOGTICS = ("set ytics (0.05, 0.1, 0.2, 0.3, 0.5, 0.7, 1, 1.5, 2, 3, 5, 10, "
           "20, 50, 100)")

# ---- Fig 15 (a figure only): Barre and F-Barre over Least ----------------
F15 = (("on", "Barre", ("barre", "least")),
       ("fb1", "F-Barre (NoMerge)", ("fbarre", "least")),
       ("fb2", "F-Barre-2Merge", ("fbarre2", "least")))
v15 = {a: [sp(a, "least", m) for m, _, _ in F15] for a in apps}
with open(f"{raw}/fig15.dat", "w") as f:
    for a in apps:
        f.write(f"{a} " + " ".join(f"{v:.4f}" for v in v15[a]) + "\n")
lo = min((v for vs in v15.values() for v in vs if v > 0), default=1.0)
hi = max(max(max(v) for v in v15.values()), *(BARRE_FIG15[k] for *_, k in F15))
log15 = hi / lo > 4      # a slowdown or outlier would flatten the rest
odd15 = ", ".join(f"{n} {v15[ODD][k]:.2f}x" for k, (_, n, _) in enumerate(F15)) \
    if ODD in v15 and len(apps) > 1 else None
gnuplot(f"""
{bars(f"{fig}/barre_core_fig15.png", "Barre Chord Fig 15 through the GPU core: speedup over Least, 4 chiplets", "1100,500")}
set xtics rotate by -45 scale 0; set grid y
set ylabel "speedup over Least (Least cycles / cycles)"
{"set logscale y; set yrange [%g:%g]; %s" % (lo / 1.25, hi * 1.6, LOGTICS) if log15 else "set yrange [0:%g]" % (hi * 1.15)}
set key top left horizontal maxcols 3 opaque
plot "{raw}/fig15.dat" u 2:xtic(1) lc rgb "#4477aa" t "Barre", \
     "" u 3 lc rgb "#66ccee" t "F-Barre (NoMerge)", \
     "" u 4 lc rgb "#ee6677" t "F-Barre-2Merge", \
     {BARRE_FIG15["barre", "least"]} w l dt 2 lw 2 lc rgb "#4477aa" t "paper mean: Barre", \
     {BARRE_FIG15["fbarre", "least"]} w l dt 2 lw 2 lc rgb "#33aacc" t "paper mean: NoMerge", \
     {BARRE_FIG15["fbarre2", "least"]} w l dt 2 lw 2 lc rgb "#ee6677" t "paper mean: 2Merge (derived)", \
     1 w l lc rgb "black" notitle
""")
m15 = [mean(v[k] for v in v15.values()) for k in range(len(F15))]
lines += ["### Fig 15: Barre and F-Barre over Least", "",
          "Each application's speedup over Least (`--barre least`) at the "
          "default point, Barre (`on`), F-Barre-NoMerge (`fb1`) and "
          "F-Barre-2Merge (`fb2`, also Fig 20's 4-chiplet column); the "
          "dashed lines are the paper's means (Fig 15; 2Merge derived as "
          f"1.36 x 1.34). Ours, mean over {len(apps)} applications: "
          + ", ".join(f"{n} {x(m)} (paper {x(BARRE_FIG15[k])})"
                      for m, (_, n, k) in zip(m15, F15)) + "."
          + (" The y axis is logarithmic." if log15 else "")
          + (f" {ODD} is the outlier ({odd15}): its L2 TLBs thrash, "
             "so answers that come sooner evict entries waiting warps still "
             "need (docs/barre.md, \"Figures through the GPU core\")."
             if odd15 else ""), "",
          "![Barre Chord Fig 15 through the GPU core](figures/barre_core_fig15.png)",
          ""]

# ---- Fig 16 --------------------------------------------------------------
lines += ["### Fig 16: ATS processing time, coalesced share, ATS traffic", "",
          "(a) the cut in mean IOMMU cycles an ATS request "
          "(`barre.mean_iommu_cycles`) against Barre off; (b) the share of "
          "ATS requests the IOMMU completed by coalescing "
          "(`coalesced_share`); (c) the cut in ATS requests F-Barre sends "
          "against Barre's.", ""]
lines += head("application", "class (Table I)", "(a) Barre", "(a) F-Barre",
              "(b) Barre", "(b) F-Barre", "ATS requests, Barre",
              "ATS requests, F-Barre", "(c) F-Barre")
f16 = {k: [] for k in ("a_on", "a_fb", "b_on", "b_fb", "c_fb")}
for a in apps:
    off = b(a, "off")["mean_iommu_cycles"]
    a_on = 1 - b(a, "on")["mean_iommu_cycles"] / off if off else 0.0
    a_fb = 1 - b(a, "fb2")["mean_iommu_cycles"] / off if off else 0.0
    b_on, b_fb = b(a, "on")["coalesced_share"], b(a, "fb2")["coalesced_share"]
    req_on, req_fb = b(a, "on")["ats_requests"], b(a, "fb2")["ats_requests"]
    c_fb = 1 - req_fb / req_on if req_on else 0.0
    for k, v in zip(f16, (a_on, a_fb, b_on, b_fb, c_fb)):
        f16[k].append(v)
    out["apps"][a]["fig16"] = {"ats_time_cut_barre": a_on,
                               "ats_time_cut_fbarre": a_fb,
                               "coalesced_barre": b_on, "coalesced_fbarre": b_fb,
                               "ats_requests_barre": req_on,
                               "ats_requests_fbarre": req_fb,
                               "ats_traffic_cut_fbarre": c_fb}
    lines.append(row(a, BARRE_TABLE1[a][1], pct(a_on), pct(a_fb), pct(b_on),
                     pct(b_fb), req_on, req_fb, pct(c_fb)))
m16 = {k: mean(v) for k, v in f16.items()}
out["fig16_mean"] = m16
lines.append(row("**mean**", None, pct(m16["a_on"]), pct(m16["a_fb"]),
                 pct(m16["b_on"]), pct(m16["b_fb"]), None, None,
                 pct(m16["c_fb"])))
lines.append(row("paper (19 apps)", None, pct(P["fig16a_barre"]),
                 pct(P["fig16a_fbarre"]), pct(P["fig16b_barre"]),
                 pct(P["fig16b_fbarre"]), None, None, pct(P["fig16c_fbarre"])))
lines.append("")

# ---- Fig 17 --------------------------------------------------------------
lines += ["### Fig 17: the filters", "",
          "(a) F-Barre's remote hit rate (peer answers over requests sent to "
          "a peer whose RCF hit) and LCF true-positive rate; n/a where no "
          "request went to a peer. (b) F-Barre with 512- and 1024-row "
          "filters over 256 rows (`fbarre_filter_rows`).", ""]
lines += head("application", "peer requests", "remote hit rate",
              "LCF true positives", "filter overflows (256 rows)",
              "512 rows", "1024 rows")
hit, tp, s512, s1024 = [], [], [], []
for a in apps:
    f = b(a, "fb2")
    rh = f["remote_hit_rate"] if f["remote_requests"] else None
    lt = f["lcf_true_positive_rate"] if f["lcf_hits"] else None
    if rh is not None:
        hit.append(rh)
    if lt is not None:
        tp.append(lt)
    x512, x1024 = sp(a, "fb2", "fb2-r512"), sp(a, "fb2", "fb2-r1024")
    s512.append(x512)
    s1024.append(x1024)
    out["apps"][a]["fig17"] = {"remote_requests": f["remote_requests"],
                               "remote_hit_rate": rh, "lcf_tp_rate": lt,
                               "rows512": x512, "rows1024": x1024}
    lines.append(row(a, f["remote_requests"],
                     pct(rh) if rh is not None else "n/a",
                     pct(lt) if lt is not None else "n/a",
                     f["filter_overflows"], x(x512), x(x1024)))
out["fig17_mean"] = {"remote_hit_rate": mean(hit), "lcf_tp_rate": mean(tp),
                     "rows512": mean(s512), "rows1024": mean(s1024)}
lines.append(row("**mean**", None, f"{pct(mean(hit))} ({len(hit)} apps)",
                 f"{pct(mean(tp))} ({len(tp)} apps)", None, x(mean(s512)),
                 x(mean(s1024))))
lines.append(row("paper", None, pct(P["fig17a_remote_hit"]),
                 pct(P["fig17a_lcf_tp"]), None, x(P["fig17b"][512]),
                 x(P["fig17b"][1024])))
lines.append("")

# ---- Fig 18 --------------------------------------------------------------
lines += ["### Fig 18: where F-Barre's speedup comes from", "",
          "Speedups over Barre (`--barre on`): PTW scheduling alone "
          "(`--barre on --set barre_sched=1`: F-Barre's coalescing-aware "
          "walker scheduling, no in-package translation), peer sharing "
          "alone (`--barre fbarre --set fbarre_sched_moves=0`, which the "
          "paper does not show), both (`--barre fbarre`, NoMerge), and "
          "2Merge.", ""]
lines += head("application", "scheduling alone", "sharing alone",
              "scheduling + sharing", "2Merge")
F18 = ("sched", "sharing", "sched_sharing", "merge2")
c18 = {k: [] for k in F18}
for a in apps:
    v = (sp(a, "on", "sched"), sp(a, "on", "fb1-nosched"), sp(a, "on", "fb1"),
         sp(a, "on", "fb2"))
    for k, s in zip(F18, v):
        c18[k].append(s)
    out["apps"][a]["fig18"] = dict(zip(F18, v))
    lines.append(row(a, *map(x, v)))
out["fig18_mean"] = {k: mean(c18[k]) for k in F18}
out["fig18_mean_without_" + ODD] = {k: mean_but(c18[k]) for k in F18}
lines.append(row("**mean**", *[x(mean(c18[k])) for k in F18]))
lines.append(row(f"mean without {ODD}", *[x(mean_but(c18[k])) for k in F18]))
lines.append(row("paper", x(P["fig18_sched"]), "not shown",
                 x(P["fig18_sched_sharing"]), "1.34x over NoMerge"))
lines.append("")


# ---- Figs 20, 23, 26: F-Barre over Least at each point --------------------
def sweep(title, text, points, runs, paper, key):
    global lines
    lines += [title, "", text, ""]
    lines += head("application", *[str(p) for p in points])
    cols = {p: [] for p in points}
    for a in apps:
        v = [sp(a, lr, fr) for lr, fr in (runs[p] for p in points)]
        for p, s in zip(points, v):
            cols[p].append(s)
        out["apps"][a][key] = dict(zip(map(str, points), v))
        lines.append(row(a, *map(x, v)))
    out[key + "_mean"] = {str(p): mean(cols[p]) for p in points}
    lines.append(row("**mean**", *[x(mean(cols[p])) for p in points]))
    lines.append(row(f"mean without {ODD}",
                     *[x(mean_but(cols[p])) for p in points]))
    out[key + "_mean_without_" + ODD] = {str(p): mean_but(cols[p])
                                         for p in points}
    lines.append(row("paper", *[x(paper[p]) if p in paper else "n/a"
                                for p in points]))
    lines.append("")


sweep("### Fig 20: chiplets",
      "F-Barre's speedup over Least on the same number of chiplets "
      "(2Merge at 2 and 4, NoMerge at 8 and 16). At 16 chiplets "
      "coal_bitmap is a count of consecutive chiplets (§VI, "
      "docs/barre.md).",
      (2, 4, 8, 16),
      {2: ("least-c2", "fb-c2"), 4: ("least", "fb2"),
       8: ("least-c8", "fb-c8"), 16: ("least-c16", "fb-c16")},
      P["fig20"], "fig20")


def fig20_plot():
    """Fig 20 as a figure: F-Barre over Least against chiplets, geomean
    with and without ODD, the table's arithmetic means, the paper's."""
    ns = (2, 4, 8, 16)
    # A run without cycles has no ratio (sp gives 0): left out of the
    # geomeans.
    col = {n: [out["apps"][a]["fig20"][str(n)] for a in apps] for n in ns}
    pos = {n: [v for v in col[n] if v > 0] for n in ns}
    but = {n: [v for a, v in zip(apps, col[n]) if a != ODD and v > 0]
           for n in ns}
    with open(f"{raw}/fig20.dat", "w") as f:
        f.write("# chiplets geomean geomean_without mean mean_without paper\n")
        for n in ns:
            f.write(" ".join([str(n), f"{gmean(pos[n]):.4f}",
                              f"{gmean(but[n]):.4f}" if but[n] else "?",
                              f"{out['fig20_mean'][str(n)]:.4f}",
                              f"{mean_but(col[n]):.4f}" if but[n] else "?",
                              str(P["fig20"].get(n, "?"))]) + "\n")
    gnuplot(f"""
set terminal pngcairo size 800,480 font ",11" noenhanced
set output "{fig}/barre_core_fig20.png"
set title "Barre Chord Fig 20 through the GPU core: F-Barre over Least"
set xlabel "chiplets"; set logscale x 2; set xtics (2, 4, 8, 16)
set xrange [1.7:19]; set grid y; set key top left opaque
set ylabel "speedup over Least (Least cycles / F-Barre cycles)"
set datafile missing "?"; set yrange [0:*]
plot "{raw}/fig20.dat" u 1:2 w lp lw 2 pt 7 lc rgb "#4477aa" t "geomean, {len(apps)} applications", \
     "" u 1:3 w lp lw 2 pt 5 lc rgb "#228833" t "geomean without {ODD}", \
     "" u 1:4 w lp lw 1 dt 2 pt 6 lc rgb "#4477aa" t "arithmetic mean (the table's)", \
     "" u 1:5 w lp lw 1 dt 2 pt 4 lc rgb "#228833" t "arithmetic mean without {ODD}", \
     "" u 1:6 w lp lw 2 pt 9 ps 1.6 lc rgb "#ee6677" t "paper (mean of 19)", \
     "" u 1:6:(sprintf("%.2f", $6)) w labels offset 0,1 tc rgb "#ee6677" notitle, \
     1 w l lc rgb "black" notitle
""")
    g = ", ".join(f"{n}: {gmean(pos[n]):.3f}x" for n in ns)
    t = ", ".join(f"{n}: {out['apps'][ODD]['fig20'][str(n)]:.2f}x"
                  for n in ns) if ODD in out["apps"] and len(apps) > 1 else None
    return ["Geomean F-Barre over Least by chiplets " + g + " (paper " +
            ", ".join(f"{n}: {P['fig20'][n]}x" for n in ns if n in P["fig20"])
            + "; the paper does not say which mean)."
            + (f" {ODD} is the outlier ({t}; its L2 TLBs thrash, "
               "docs/barre.md, \"Figures through the GPU core\"): it pulls "
               "the arithmetic means up at 8 and 16 chiplets; the geomeans "
               "and the lines without it show the rest." if t else ""), "",
            "![Barre Chord Fig 20 through the GPU core]"
            "(figures/barre_core_fig20.png)", ""]


lines += fig20_plot()
sweep("### Fig 23: page-table walkers",
      "F-Barre-2Merge's speedup over Least with the same number of "
      "walkers.", (8, 16, 32),
      {8: ("least-w8", "fb-w8"), 16: ("least", "fb2"),
       32: ("least-w32", "fb-w32")}, P["fig23"], "fig23")
sweep("### Fig 26: page mappings",
      "F-Barre-2Merge's speedup over Least under the same mapping: page "
      "round-robin (`placement=rr`) and kernel-wide chunking (`kwc`, the "
      "preset's, which also stands for LASP). The core has no CODA.",
      ("rr", "kwc"), {"rr": ("least-rr", "fb-rr"), "kwc": ("least", "fb2")},
      P["fig26"], "fig26")
lines += [f"Paper's Fig 26 also: CODA {x(P['fig26']['coda'])}, LASP "
          f"{x(P['fig26']['lasp'])} (our `kwc` column stands for both "
          f"kernel-wide chunking and LASP).", ""]

# ---- Checks and cost ----------------------------------------------------
bad = sum(b(a, m).get(k, 0) for a in apps for m in RUNS
          for k in ("shadow_mismatches", "inpackage_mismatches",
                    "share_mismatches"))
out["mismatches"] = bad
lines += [f"Translations checked against the true walk in {len(apps) * len(RUNS)}"
          f" runs: {bad} wrong."]
if ms:
    lines += [f"Job wall time ({len(RUNS)} runs each): " + ", ".join(
        f"{a} {ms[a] / 1000:.1f} s" for a in apps if a in ms) + "."]
if missing:
    lines += ["Not measured (a run missing): " + ", ".join(missing) + "."]
lines.append("")
json.dump(out, open(f"{results}/barre-core.json", "w"), indent=1)
write_section(results, "62-barre-core", lines)
