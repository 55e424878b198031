#!/usr/bin/env python3
"""ADSM/GMAC report section: the patterns under every protocol on the
device (equal to the host replays and to the notes' byte formulas), and the
host sweeps beside the paper's Figs 7-12. Usage: RAW RESULTS."""
import json
import os
import sys

from report import differences, gnuplot, head, load, row, write_section

raw, results = sys.argv[1], sys.argv[2]
PATS = ["pc", "iter", "stencil", "vadd", "multipass", "io"]
PROTOS = ["batch", "lazy", "rolling", "explicit"]
BLOCKS = ["4K", "8K", "16K", "32K", "64K", "128K", "256K", "512K", "1M", "2M",
          "4M", "8M", "16M", "32M"]
MP_BLOCKS = ["128K", "256K", "512K", "1M", "2M", "4M", "8M", "16M", "32M"]
VOLS = [64, 128, 192, 256, 384]


def counters(r):
    return {k: v for k, v in r.items() if k != "guest"}


def ms(cycles):
    return cycles / 1e6  # 1 GHz modeled clock


dev = {(p, c): load(f"{raw}/device/{p}-{c}.json") for p in PATS for c in PROTOS}
host = {(p, c): load(f"{raw}/host/{p}-{c}.json") for p in PATS for c in PROTOS}
mismatch = [f"{p} {c}" for p in PATS for c in PROTOS
            if counters(dev[(p, c)]) != counters(host[(p, c)])]
formula = [f"{p} {c}" for p in PATS for c in PROTOS
           if dev[(p, c)]["h2d_bytes"] != dev[(p, c)]["expected_h2d"]
           or dev[(p, c)]["d2h_bytes"] != dev[(p, c)]["expected_d2h"]
           or (c != "explicit" and dev[(p, c)]["faults"] != dev[(p, c)]["expected_faults"])]
wrong = [f"{p} {c}" for p in PATS for c in PROTOS
         if dev[(p, c)]["verified"] != "yes"]
elsewhere = sum(dev[k]["guest"]["mapped_elsewhere"] for k in dev)
n = len(dev)
s0 = dev[("pc", "batch")]

out = {"device_host_mismatches": mismatch, "formula_mismatches": formula,
       "unverified": wrong, "patterns": {}, "fig11": {}, "fig12": {}, "fig9": {}}
o = ["## ADSM/GMAC: one pointer, coherence by the driver\n",
     "Each pattern of `notes/adsm.md` §4.5 runs in a guest on shared objects "
     "that user space maps at their GPU virtual addresses; the CPU reads and "
     "writes them through the mapping, the device's kernels compute on them "
     "through the file's GPU page table, and `mcmgpu.ko` keeps them coherent "
     "with the protocol named (batch, lazy, rolling; \"explicit\" is the "
     "paper's hand-written CUDA baseline, copy ioctls and no mapping). "
     f"Objects of {s0['size'] >> 20} MiB, rolling blocks of "
     f"{s0['block'] >> 10} KiB with the adaptive rolling size (2 blocks more "
     f"an object), {s0['iterations']} iterations; transfers cost "
     "a 500-cycle setup plus bytes at 8 B/cycle (PCIe 2.0 x16 at a 1 GHz "
     "modeled clock), a kernel one cycle per element access of the busiest "
     "chiplet.\n",
     f"- Bytes and protocol faults equal to the notes' formulas: **{n - len(formula)} of {n}** runs"
     + (f" (differ: {', '.join(formula)})" if formula else "") + ".",
     f"- Device counters equal to the host replay of the same cores: **{n - len(mismatch)} of {n}**"
     + (f" (differ: {', '.join(mismatch)})" if mismatch else "") + ".",
     f"- The CPU read what the device computed: **{n - len(wrong)} of {n}**; "
     f"objects mapped away from their GPU address: {elsewhere}.\n"]

# Figs 7 and 8: time against the hand-written copies, bytes against batch.
o.append("### Protocols against hand-written copies (Figs 7, 8)\n")
o.append("Modeled time over the explicit-copy run (the paper's \"slow-down "
         "against CUDA\"), and bytes moved (H2D + D2H) over batch's:\n")
o += head("pattern", "batch", "lazy", "rolling", "bytes lazy / batch",
          "bytes rolling / batch", "faults lazy / rolling")
for p in PATS:
    e = dev[(p, "explicit")]["modeled_cycles"]
    b = dev[(p, "batch")]
    tot = lambda r: r["h2d_bytes"] + r["d2h_bytes"]
    slow = {c: dev[(p, c)]["modeled_cycles"] / e for c in ("batch", "lazy", "rolling")}
    out["patterns"][p] = {c: {k: dev[(p, c)][k] for k in
                              ("h2d_bytes", "d2h_bytes", "faults", "modeled_cycles",
                               "h2d_eager")} for c in PROTOS}
    o.append(row(p, *(f"{slow[c]:.2f}×" for c in ("batch", "lazy", "rolling")),
                 f"{tot(dev[(p, 'lazy')]) / tot(b):.2f}",
                 f"{tot(dev[(p, 'rolling')]) / tot(b):.2f}",
                 f"{dev[(p, 'lazy')]['faults']} / {dev[(p, 'rolling')]['faults']}"))
o.append("\nPaper: batch is always the slowest, up to 65.18× (pns) and 18.64× "
         "(rpes) on iterative codes; lazy and rolling run on par with CUDA; "
         "every lazy and rolling bar of Fig 8 is under 0.5 of batch.\n")

# Fig 10: the fault handler's share is wall-clock time in the guest, so
# make bench measures it; the report keeps the deterministic fault counts.
o.append("### Faults under rolling (Fig 10's runs)\n")
o += head("pattern", "protocol faults", "hardware faults")
for p in PATS:
    r = dev[(p, "rolling")]
    o.append(row(p, r["faults"], r["guest"]["hw_faults"]))
o.append("\nThe time the fault handler takes is wall-clock time in a TCG guest, "
         "not a modeled figure, so `make bench` measures its share of each run "
         "(`results/bench.md`; paper: below 2 % always).\n")

# Fig 11: block size on a vector add of 8 Mi elements.
o.append("### Block size, vector add of 8 Mi elements (Fig 11)\n")
o += head("block", "modeled time", "transfers", "protocol faults", "eager H2D",
          "link use (bytes / transfer cycle)")
fig11 = []
for b in BLOCKS:
    r = load(f"{raw}/sweep/vadd-rolling-{b}.json")
    bw = (r["h2d_bytes"] + r["d2h_bytes"]) / r["xfer_cycles"]
    eager = r["h2d_eager"] / r["h2d_bytes"]
    fig11.append((b, ms(r["modeled_cycles"]), bw))
    out["fig11"][b] = {k: r[k] for k in ("modeled_cycles", "transfers", "faults", "h2d_eager")}
    o.append(row(b, f"{ms(r['modeled_cycles']):.2f} ms", r["transfers"], r["faults"],
                 f"{100 * eager:.0f} %", f"{bw:.2f}"))
for c in ("lazy", "batch", "explicit"):
    r = load(f"{raw}/sweep/vadd-{c}.json")
    out["fig11"][c] = r["modeled_cycles"]
    o.append(row(c, f"{ms(r['modeled_cycles']):.2f} ms", r["transfers"], r["faults"], "—",
                 f"{(r['h2d_bytes'] + r['d2h_bytes']) / r['xfer_cycles']:.2f}"))
o.append("\nPaper: bandwidth rises with the block size and peaks at 32 MB; "
         "from 4 to 16 KB the time saved exceeds the bandwidth gain (faults "
         "and the block search); 64 KB is an anomaly of eager overlap.\n")

# Fig 12: rolling size on a multi-pass input.
o.append("### Rolling size, 4 passes over a 4 MiB input (Fig 12)\n")
o.append("H2D bytes (in input sizes) and modeled time by block and rolling size:\n")
o += head("block", "R = 1", "R = 2", "R = 4", "adaptive (R = 2)")
fig12 = {}
for b in MP_BLOCKS:
    cells = []
    for rr in ("1", "2", "4", "0"):
        r = load(f"{raw}/sweep/multipass-r{rr}-{b}.json")
        fig12[(b, rr)] = ms(r["modeled_cycles"])
        out["fig12"][f"{b}-r{rr}"] = {"h2d_bytes": r["h2d_bytes"],
                                      "modeled_cycles": r["modeled_cycles"]}
        cells.append(f"{r['h2d_bytes'] / r['size']:.0f}× S, {ms(r['modeled_cycles']):.2f} ms")
    o.append(row(b, *cells))
crit = {}
for rr in ("1", "2", "4"):
    for b in MP_BLOCKS:
        if load(f"{raw}/sweep/multipass-r{rr}-{b}.json")["h2d_bytes"] == 4 << 20:
            crit[rr] = b
            break
o.append(f"\nThe input is sent once from a block of **{crit.get('1', '—')}** "
         f"at R = 1, **{crit.get('2', '—')}** at R = 2 and **{crit.get('4', '—')}** "
         "at R = 4 (R × B ≥ S). Paper: the critical block is 4 MB at R = 1 "
         "and 2 MB at R = 2, and R = 4 is almost flat; its input size is "
         "not given, 4 MiB is the one those two thresholds imply (notes "
         "§3.4). With that input our R = 4 still re-sends it below 1 MiB "
         "blocks, where the paper's curve stays almost flat: its tpacf "
         "input, or its passes, must differ from this proxy's.\n")

# Fig 9: the stencil's volume.
o.append("### 3-D stencil volume, lazy against rolling (Fig 9)\n")
o.append("Modeled time of 8 steps with a point source injected each step:\n")
o += head("volume", "lazy", "rolling 4 KiB", "256 KiB", "1 MiB", "32 MiB",
          "best rolling over lazy")
for v in VOLS:
    lz = load(f"{raw}/sweep/stencil-{v}-lazy.json")["modeled_cycles"]
    rs = [load(f"{raw}/sweep/stencil-{v}-{b}.json")["modeled_cycles"]
          for b in ("4K", "256K", "1M", "32M")]
    out["fig9"][str(v)] = {"lazy": lz, "rolling": rs}
    o.append(row(f"{v}³", f"{ms(lz):.1f} ms", *(f"{ms(x):.1f} ms" for x in rs),
                 f"{lz / min(rs):.1f}×"))
o.append("\nPaper: rolling's advantage grows with the volume (lazy moves the "
         "whole volume each step, rolling only the touched blocks); 32 MB "
         "blocks are slower than 256 KB and 1 MB.\n")

with open(f"{results}/adsm.json", "w") as f:
    json.dump(out, f, indent=1)

fig = f"{results}/figures"
os.makedirs(fig, exist_ok=True)
with open(f"{raw}/fig11.dat", "w") as f:
    for i, (b, t, bw) in enumerate(fig11):
        f.write(f"{i} {b} {t:.4f} {bw:.4f}\n")
with open(f"{raw}/fig12.dat", "w") as f:
    for i, b in enumerate(MP_BLOCKS):
        f.write(f"{i} {b} " + " ".join(f"{fig12[(b, r)]:.4f}" for r in ("1", "2", "4")) + "\n")
gp = f"""
set terminal pngcairo size 1000,420 font ",10" noenhanced
set output "{fig}/adsm_blocks.png"
set multiplot layout 1,2
set title "Fig 11: vector add, 8 Mi elements, rolling"
set xlabel "block"; set ylabel "modeled ms"; set y2label "bytes / transfer cycle"
set ytics nomirror; set y2tics; set grid
plot "{raw}/fig11.dat" u 1:3:xtic(2) w lp t "time", "" u 1:4 axes x1y2 w lp t "link use"
set title "Fig 12: 4 passes over 4 MiB"
set ylabel "modeled ms"; unset y2label; unset y2tics; set logscale y
plot "{raw}/fig12.dat" u 1:3:xtic(2) w lp t "R = 1", "" u 1:4 w lp t "R = 2", "" u 1:5 w lp t "R = 4"
unset multiplot
"""
gnuplot(gp)
o.append("![ADSM block and rolling size](figures/adsm_blocks.png)\n")

o.append(differences("adsm"))
write_section(results, "50-adsm", o)
