#!/usr/bin/env python3
"""Every paper's comparison on the traces and programs given to make run
(69-traces.sh): per trace, each paper's headline ratio beside the paper's
mean, the modes a trace could not run under with their errors, and
results/traces.json. Usage: RAW RESULTS."""
import json
import os
import sys

from paper_tables import (BARRE_CORE_FIGS, BARRE_FIG15, CPELIDE_SCALE_PAPER,
                          CXL_FIG9, FINEPACK_PAPER)
from report import gmean, head, load, row, write_section

raw, results = sys.argv[1], sys.argv[2]
traces = sorted(d for d in os.listdir(raw)
                if os.path.exists(f"{raw}/{d}/stats.json"))

# The paper's CPElide means at 4 chiplets over its 24 workloads (§V-B).
CPE_MEANS = dict(zip(("over_baseline", "over_hmg"), CPELIDE_SCALE_PAPER[4]))


widened = {}


def runs(t, prefix, modes):
    """{mode: JSON or None}, {mode: error text} of a trace's runs; the
    SM settings a run needed go to widened."""
    got, err = {}, {}
    for m in modes:
        p = f"{raw}/{t}/{prefix}-{m}"
        if os.path.exists(p + ".widened"):
            w = open(p + ".widened").read().split()
            widened.setdefault((t, prefix), set()).update(
                x for x in w if x != "--set")
        got[m] = load(p + ".json") if os.path.exists(p + ".json") else None
        if got[m] is None:
            err[m] = (open(p + ".err").read().strip()
                      if os.path.exists(p + ".err") else "not run")
    return got, err


def cyc(r):
    return r["gpu"]["cycles"] if r else None


def ratio(a, b):
    """a / b, None where either run is missing."""
    return a / b if a and b else None


def f3(x):
    return f"{x:.3f}" if x is not None else "n/a"


out = {"traces": {}}
errors = []
L = ["## Your traces through every paper's comparison", "",
     "`make run TRACES=DIR` runs each Accel-Sim trace directory and each "
     "program in DIR (`tools/experiments/69-traces.sh`; without TRACES, our "
     "bfs and spmv written out as Accel-Sim traces and imported back "
     "without their objects file) through the GPU core under each paper's "
     "preset and the modes its figures compare. Each ratio is one run's "
     "cycles over another's, beside the paper's mean over its own "
     "applications (the papers print no per-trace numbers for programs "
     "they did not run). A mode a trace cannot run under is named below "
     "with its error.", ""]
L += head("trace", "source", "kernels", "warp instructions", "global loads",
          "global stores", "footprint (pages)")
for t in traces:
    s = load(f"{raw}/{t}/stats.json")
    src = open(f"{raw}/{t}/source.txt").read().strip()
    wi = sum(k["warp_instructions"] for k in s["kernels"])
    out["traces"][t] = {"source": src, "kernels": s["kernel_launches"],
                        "warp_insts": wi}
    L.append(row(t, src, s["kernel_launches"], wi, s["global_loads"],
                 s["global_stores"], s["global_pages"]))

# ---- Barre Chord ---------------------------------------------------------
BM = ("notlb", "off", "on", "fbarre", "least", "valkyrie")
L += ["", "### Barre Chord (`--config barre`: Table II, 4 chiplets)", "",
      "Barre over the conventional IOMMU, over Least and Valkyrie (Fig 15), "
      "F-Barre (NoMerge) over Least, and the share of ATS requests PEC "
      "coalesced (Fig 16b). Shadow mismatches: translations that differ "
      "from a true walk (must be 0).", ""]
L += head("trace", "cycles, no TLB", "IOMMU", "Barre", "Barre / IOMMU",
          "Barre over Least", "Barre over Valkyrie", "F-Barre over Least",
          "coalesced", "shadow mismatches")
bl = {"least": [], "valkyrie": [], "fb": []}
for t in traces:
    r, e = runs(t, "barre", BM)
    errors += [(t, "barre", m, x) for m, x in e.items()]
    c = {m: cyc(r[m]) for m in BM}
    ol, ov, fl = (ratio(c["least"], c["on"]), ratio(c["valkyrie"], c["on"]),
                  ratio(c["least"], c["fbarre"]))
    for k, v in (("least", ol), ("valkyrie", ov), ("fb", fl)):
        if v:
            bl[k].append(v)
    share = r["on"]["barre"]["coalesced_share"] if r["on"] else None
    mism = sum(r[m]["barre"]["shadow_mismatches"]
               for m in ("off", "on", "fbarre", "least", "valkyrie") if r[m])
    out["traces"][t]["barre"] = {"cycles": c, "barre_over_least": ol,
                                 "barre_over_valkyrie": ov,
                                 "fbarre_over_least": fl,
                                 "coalesced_share": share,
                                 "shadow_mismatches": mism}
    L.append(row(t, c["notlb"], c["off"], c["on"],
                 f3(ratio(c["off"], c["on"])), f3(ol), f3(ov), f3(fl),
                 f"{100 * share:.1f} %" if share is not None else "n/a",
                 mism))
L.append(row("geomean", "", "", "", "", f3(gmean(bl["least"])),
             f3(gmean(bl["valkyrie"])), f3(gmean(bl["fb"])), "", ""))
L.append(row("paper (mean)", "", "", "", "",
             BARRE_FIG15[("barre", "least")],
             BARRE_FIG15[("barre", "valkyrie")],
             BARRE_FIG15[("fbarre", "least")],
             f"{100 * BARRE_CORE_FIGS['fig16b_barre']:.0f} %", 0))

# ---- FinePack -------------------------------------------------------------
FM = ("p2p", "wc", "finepack", "dma", "gps", "alt")
L += ["", "### FinePack (`--config finepack`: four GV100 GPUs on PCIe 4.0)",
      "", "Speedup over P2P stores of each remote-store scheme (Fig 9, "
      "§VI-B) and P2P's wire bytes over FinePack's (Fig 10). A program "
      "whose kernels store little into other GPUs' memory gains little "
      "whatever the scheme.", ""]
L += head("trace", "remote store bytes", "cycles, P2P", "WC", "FinePack",
          "DMA", "GPS", "alt", "P2P / FinePack wire bytes")
fsp, fby = [], []
for t in traces:
    r, e = runs(t, "fp", FM)
    errors += [(t, "finepack", m, x) for m, x in e.items()]
    c = {m: cyc(r[m]) for m in FM}
    sp = {m: ratio(c["p2p"], c[m]) for m in FM}
    fp = r["finepack"]["finepack"] if r["finepack"] else None
    p2p = r["p2p"]["finepack"] if r["p2p"] else None
    by = ratio(p2p["link_bytes"], fp["link_bytes"]) if fp and p2p else None
    if sp["finepack"]:
        fsp.append(sp["finepack"])
    if by:
        fby.append(by)
    out["traces"][t]["finepack"] = {"cycles": c, "speedup_over_p2p": sp,
                                    "p2p_bytes_over_finepack": by,
                                    "remote_store_bytes":
                                    fp["store_bytes"] if fp else None}
    L.append(row(t, fp["store_bytes"] if fp else "n/a", c["p2p"],
                 *(f3(sp[m]) for m in FM[1:]), f3(by)))
L.append(row("geomean", "", "", "", f3(gmean(fsp)), "", "", "",
             f3(gmean(fby))))
P = FINEPACK_PAPER
L.append(row("paper (mean)", "", "", "", P["finepack_over_p2p"][0],
             P["dma_over_p2p"][0],
             f"{P['finepack_over_p2p'][0] * P['gps_over_finepack'][0]:.2f}",
             "", P["p2p_bytes_over_finepack"][0]))

# ---- CPElide --------------------------------------------------------------
CM = ("baseline", "cpelide", "hmg", "ideal")
L += ["", "### CPElide (`--config cpelide`: 4 chiplets, Table I)", "",
      "CPElide over the baseline and over HMG (§V-B), whether `ideal` is no "
      "slower than every policy, and the coherence oracle's violations "
      "over the four runs (must be 0).", ""]
L += head("trace", "cycles, baseline", "CPElide", "HMG", "ideal",
          "CPElide over baseline", "CPElide over HMG", "ideal a bound",
          "oracle violations")
cb, ch = [], []
for t in traces:
    r, e = runs(t, "cpe", CM)
    errors += [(t, "cpelide", m, x) for m, x in e.items()]
    c = {m: cyc(r[m]) for m in CM}
    ob, oh = ratio(c["baseline"], c["cpelide"]), ratio(c["hmg"], c["cpelide"])
    if ob:
        cb.append(ob)
    if oh:
        ch.append(oh)
    bound = (all(c[m] is not None for m in CM) and
             all(c["ideal"] <= c[m] for m in CM))
    viol = sum(r[m]["cpelide"]["oracle_violations"] for m in CM if r[m])
    out["traces"][t]["cpelide"] = {"cycles": c, "cpelide_over_baseline": ob,
                                   "cpelide_over_hmg": oh,
                                   "ideal_bound": bound,
                                   "oracle_violations": viol}
    L.append(row(t, *(c[m] for m in CM), f3(ob), f3(oh),
                 "yes" if bound else "NO", viol))
L.append(row("geomean", "", "", "", "", f3(gmean(cb)), f3(gmean(ch)), "",
             ""))
L.append(row("paper (mean)", "", "", "", "", CPE_MEANS["over_baseline"],
             CPE_MEANS["over_hmg"], "by definition", 0))

# ---- CXL-GPU --------------------------------------------------------------
XM = ("off", "znand-sr-off", "znand", "znand-ds-on", "uvm", "gds", "dram")
L += ["", "### CXL-GPU (`--config cxl`: 8 Vortex cores, Z-NAND endpoints)",
      "", "GPU-DRAM (every object in GPU memory), CXL, CXL-SR and CXL-SR + "
      "DS on Z-NAND (Fig 9b), UVM and GDS (Fig 9a's baselines) and CXL on a "
      "DRAM endpoint: CXL (DRAM endpoint) over UVM, SR over CXL, DS over "
      "SR.", ""]
L += head("trace", "cycles, GPU-DRAM", "CXL", "CXL-SR",
          "CXL-SR + DS", "UVM", "GDS", "CXL (DRAM EP)",
          "CXL (DRAM EP) over UVM", "SR over CXL", "DS over SR")
xu, xs, xd = [], [], []
DS = CXL_FIG9["ds_over_sr_pct"]
for t in traces:
    r, e = runs(t, "cxl", XM)
    errors += [(t, "cxl", m, x) for m, x in e.items()]
    c = {m: cyc(r[m]) for m in XM}
    ou, osr, ods = (ratio(c["uvm"], c["dram"]),
                    ratio(c["znand-sr-off"], c["znand"]),
                    ratio(c["znand"], c["znand-ds-on"]))
    for lst, v in ((xu, ou), (xs, osr), (xd, ods)):
        if v:
            lst.append(v)
    out["traces"][t]["cxl"] = {"cycles": c,
                               "cxl_over_uvm": ou, "sr_over_cxl": osr,
                               "ds_over_sr": ods}
    L.append(row(t, *(c[m] if c[m] is not None else "n/a" for m in XM),
                 f3(ou), f3(osr), f3(ods)))
L.append(row("geomean", "", "", "", "", "", "", "", f3(gmean(xu)),
             f3(gmean(xs)), f3(gmean(xd))))
L.append(row("paper (mean)", "", "", "", "", "", "", "",
             CXL_FIG9["cxl_over_uvm"], CXL_FIG9["sr_over_cxl"],
             "{:.2f}-{:.2f} by class".format(
                 *(1 + x / 100 for x in (min(DS.values()), max(DS.values()))))))

# ---- ADSM -----------------------------------------------------------------
AM = ("off", "batch", "lazy", "rolling")
L += ["", "### ADSM (`--config adsm`)", "",
      "Each protocol's cycles over CUDA's explicit copies (`--adsm off`) of "
      "the same program (Fig 7: lazy and rolling about equal to CUDA; "
      "batch up to 65x slower, on pns).", ""]
L += head("trace", "cycles, CUDA", "batch / CUDA", "lazy / CUDA",
          "rolling / CUDA")
for t in traces:
    r, e = runs(t, "adsm", AM)
    errors += [(t, "adsm", m, x) for m, x in e.items()]
    c = {m: cyc(r[m]) for m in AM}
    sl = {m: ratio(c[m], c["off"]) for m in AM[1:]}
    out["traces"][t]["adsm"] = {"cycles": c, "slowdown_vs_cuda": sl}
    L.append(row(t, c["off"], *(f3(sl[m]) for m in AM[1:])))

PAPER = {"barre": "Barre Chord", "fp": "FinePack", "cpe": "CPElide",
         "cxl": "CXL-GPU", "adsm": "ADSM"}
out["widened"] = [{"trace": t, "paper": PAPER[p], "settings": sorted(w)}
                  for (t, p), w in sorted(widened.items())]
if widened:
    L += ["", "Traces whose blocks are larger than a preset's SM ran on SMs "
          "just large enough for their largest block (as 64-cxl-core.sh "
          "runs bfs, gauss and mri on CXL-GPU's 8-warp cores):", ""]
    L += [f"- {t}, {PAPER[p]}: `{' '.join(sorted(w))}`"
          for (t, p), w in sorted(widened.items())]
out["errors"] = [{"trace": t, "paper": p, "mode": m, "error": x}
                 for t, p, m, x in errors]
if errors:
    L += ["", "Runs a trace could not make (each keeps its error; the "
          "ratios that need it are n/a):", ""]
    L += [f"- {t}, {p} `{m}`: {x}" for t, p, m, x in errors]
L += ["", "The per-application comparisons with the papers' own "
      "applications are in the sections above; this section only runs "
      "the same comparisons on whatever it is given."]
with open(f"{results}/traces.json", "w") as f:
    json.dump(out, f, indent=1)
    f.write("\n")
write_section(results, "69-traces", L)
