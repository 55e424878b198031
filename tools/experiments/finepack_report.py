#!/usr/bin/env python3
"""Turn the FinePack replay JSON into results/finepack.json, a report
section and gnuplot figures. Paper numbers are quoted from
notes/finepack.md (FinePack §VI)."""
import json
import struct
import math
import os
import subprocess
import sys

raw, results = sys.argv[1], sys.argv[2]
WORKLOADS = ["jacobi", "diffusion", "eqwp", "pagerank", "sssp", "hit", "als", "ct"]
LIKE = {"jacobi": "Jacobi", "diffusion": "Diffusion", "eqwp": "EQWP",
        "pagerank": "PageRank", "sssp": "SSSP", "hit": "HIT", "als": "ALS",
        "ct": "CT"}
SIZES = [1, 2, 4, 8, 16, 32, 64, 128]


def load(path):
    with open(path) as f:
        return json.load(f)


def run(w, h):
    return load(f"{raw}/device/{w}-h{h}.json")


BUCKETS = (4, 8, 16, 32, 64, 128)


def store_mix(path):
    """Share of store records by size bucket (<= 4 B, <= 8 B, ...)."""
    with open(path, "rb") as f:
        b = f.read()
    n = struct.unpack_from("<Q", b, 16)[0]
    count = {k: 0 for k in BUCKETS}
    for i in range(n):
        t, length = struct.unpack_from("<B3xI", b, 32 + 24 * i)
        if t == 1:
            count[next(k for k in BUCKETS if length <= k or k == 128)] += 1
    total = sum(count.values()) or 1
    return {k: count[k] / total for k in BUCKETS}


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs))


analytic = {r["store"]: r for r in load(f"{raw}/analytic.json")["rows"]}
lines = {s: load(f"{raw}/device/lines-{s}.json") for s in SIZES}
main = {w: run(w, 5) for w in WORKLOADS}
sweep = {w: {h: run(w, h) for h in range(2, 7)} for w in WORKLOADS}
verify = {w: load(f"{raw}/device/{w}-verify.json")["verify"]
          for w in WORKLOADS}
mix = {w: store_mix(f"{raw}/traces/{w}.bin") for w in WORKLOADS}

summary = {
    "efficiency_vs_store_size": [
        {"store": s, "plain": analytic[s]["plain28"],
         "finepack_analytic": analytic[s]["fp28_cap64"],
         "finepack_measured": lines[s]["efficiency"],
         "gain_analytic": analytic[s]["gain28_cap64"],
         "gain_measured": lines[s]["reduction"]} for s in SIZES],
    "workloads": {w: main[w] for w in WORKLOADS},
    "subheader_sweep": {w: {h: sweep[w][h]["reduction"] for h in range(2, 7)}
                        for w in WORKLOADS},
    "verify": verify,
    "store_size_mix": mix,
}
with open(f"{results}/finepack.json", "w") as f:
    json.dump(summary, f, indent=1)

fig = f"{results}/figures"
os.makedirs(fig, exist_ok=True)
with open(f"{raw}/eff.dat", "w") as f:
    for s in SIZES:
        f.write(f"{s} {100 * analytic[s]['plain28']:.2f} "
                f"{100 * analytic[s]['fp28_cap64']:.2f} "
                f"{100 * lines[s]['efficiency']:.2f}\n")
with open(f"{raw}/sweep.dat", "w") as f:
    for h in range(2, 7):
        f.write(f"{h} " + " ".join(f"{sweep[w][h]['reduction']:.4f}"
                                   for w in WORKLOADS) + "\n")
with open(f"{raw}/breakdown.dat", "w") as f:
    for w in WORKLOADS:
        m = main[w]
        top = max(m["dma_wire_bytes"], m["plain_wire_bytes"], m["wire_bytes"]["total"])
        useful = m["useful_bytes"]
        p2p_payload = m["store_bytes"]
        rows = [("P2P", m["plain_wire_bytes"], p2p_payload),
                ("FinePack", m["wire_bytes"]["total"], m["wire_bytes"]["payload"]),
                ("DMA", m["dma_wire_bytes"], m["dma_payload"])]
        for name, wire, payload in rows:
            f.write(f"\"{LIKE[w]} {name}\" {useful / top:.4f} "
                    f"{(wire - payload) / top:.4f} {(payload - useful) / top:.4f}\n")

gp = f"""
set terminal pngcairo size 900,540 font ",11"
set output "{fig}/finepack_efficiency.png"
set title "Link efficiency against store size (O = 28 B, h = 5 B, one store per 128 B line)"
set xlabel "store size (bytes)"; set ylabel "payload / wire bytes (%)"
set logscale x 2; set key top left; set grid
plot "{raw}/eff.dat" u 1:2 w lp lw 2 t "plain P2P", \\
     "{raw}/eff.dat" u 1:3 w lp lw 2 t "FinePack, analytic (64-entry cap)", \\
     "{raw}/eff.dat" u 1:4 w p pt 7 ps 1.5 t "FinePack, measured on the device"
unset logscale x
set output "{fig}/finepack_subheader.png"
set title "Sub-header sweep: wire-byte reduction over plain P2P"
set xlabel "sub-header bytes h"; set ylabel "plain / FinePack wire bytes"
set xtics 2,1,6; set key outside right
plot """ + ", ".join(
    f'"{raw}/sweep.dat" u 1:{i + 2} w lp lw 2 t "{LIKE[w]}-like"'
    for i, w in enumerate(WORKLOADS)) + f"""
set output "{fig}/finepack_breakdown.png"
set terminal pngcairo size 1200,560 font ",10"
set title "Wire bytes by scheme, normalised to the largest of the three per workload"
unset xlabel
set style data histograms; set style histogram rowstacked; set style fill solid 0.8 border -1
set boxwidth 0.8; set ylabel "share of the largest scheme's wire bytes"
set xtics rotate by -45 scale 0; set yrange [0:1.05]; set key outside right
plot "{raw}/breakdown.dat" u 2:xtic(1) t "useful", "" u 3 t "overhead", "" u 4 t "wasted"
"""
subprocess.run(["gnuplot"], input=gp, text=True, check=True)

sp = [main[w]["stores_per_packet"] for w in WORKLOADS]
r_p2p = [main[w]["reduction"] for w in WORKLOADS]
r_dma = [main[w]["reduction_vs_dma"] for w in WORKLOADS]
r_wc = [main[w]["reduction_vs_wc"] for w in WORKLOADS]
tot = {k: sum(main[w][k] if k != "wire" else main[w]["wire_bytes"]["total"]
              for w in WORKLOADS) for k in ("plain_wire_bytes", "dma_wire_bytes", "wire")}
best_h = {w: max(range(2, 7), key=lambda h: sweep[w][h]["reduction"]) for w in WORKLOADS}

o = []
o.append("## FinePack: coalescing fine-grained remote stores\n")
o.append("Each chiplet keeps one remote write queue partition per destination "
         "(64 entries of 128 B + byte mask, aligned 2^(8h-10) B window, 4096 B "
         "payload); a flush sends one packet of h-byte sub-headers and data, "
         "which the destination's de-packetizer writes into its memory. "
         "Defaults: h = 5 B (1 GiB window), O = 28 B per TLP, 4 chiplets. "
         "Traces come from `mcmgpu finepack gen` (derivations in "
         "`tools/mcmgpu/finepack/WORKLOADS.md`); every replay below ran on the "
         "device in the guest (`mcmgpu finepack replay --json`), each workload "
         "also once with `--verify` (bytes in the destination memories equal an "
         "in-order plain application).\n")
o.append("### Efficiency against store size\n")
o.append("One store per 128 B line, 64 stores, chiplet 0 to 1 "
         "(`gen lines --store S --count 64`).\n")
o.append("| store B | plain P2P | FinePack analytic | FinePack measured | gain analytic | gain measured |")
o.append("|---|---|---|---|---|---|")
for s in SIZES:
    o.append(f"| {s} | {100 * analytic[s]['plain28']:.1f}% | "
             f"{100 * analytic[s]['fp28_cap64']:.1f}% | {100 * lines[s]['efficiency']:.1f}% | "
             f"{analytic[s]['gain28_cap64']:.2f}x | {lines[s]['reduction']:.2f}x |")
o.append(f"\nPaper: about 3x better efficiency for small stores (abstract); the "
         f"notes' model gives 3.39x at 4 B with the 64-entry cap. Measured here: "
         f"**{lines[4]['reduction']:.2f}x at 4 B**.\n")
o.append("![efficiency](figures/finepack_efficiency.png)\n")
o.append("### Workloads (h = 5 B, O = 28 B)\n")
o.append("| workload | stores | packets | stores/packet | sub-packets/packet | FinePack eff. | plain / FP | write comb. / FP | DMA / FP | main flush reason | verify |")
o.append("|---|---|---|---|---|---|---|---|---|---|---|")
for w in WORKLOADS:
    m = main[w]
    fl = max(m["flushes"], key=lambda k: m["flushes"][k])
    v = verify.get(w)
    vs = (f"{v['mismatched_bytes']} of {v['checked_bytes']} B differ" if v
          else "host core")
    o.append(f"| {LIKE[w]}-like | {m['stores']} | {m['packets']} | "
             f"{m['stores_per_packet']:.1f} | {m['subpackets_per_packet']:.1f} | "
             f"{100 * m['efficiency']:.1f}% | "
             f"{m['reduction']:.2f}x | {m['reduction_vs_wc']:.2f}x | "
             f"{m['reduction_vs_dma']:.2f}x | {fl} | {vs} |")
o.append(f"\n| measure | paper | here |")
o.append("|---|---|---|")
sub = [main[w]["subpackets_per_packet"] for w in WORKLOADS]
o.append(f"| stores per packet, mean | 42 | {sum(sp) / len(sp):.1f} (store "
         f"records: coalesced warp stores) |")
o.append(f"| sub-packets per packet, mean | (42, if the paper counts "
         f"sub-packets) | {sum(sub) / len(sub):.1f} |")
o.append(f"| P2P / FinePack wire bytes | 2.7x | {geomean(r_p2p):.2f}x geomean, "
         f"{tot['plain_wire_bytes'] / tot['wire']:.2f}x over all bytes |")
o.append(f"| DMA / FinePack wire bytes | 1.3x | {geomean(r_dma):.2f}x geomean |")
o.append(f"| write combining / FinePack wire bytes | 1.32x (FinePack sends 24 % "
         f"less) | {geomean(r_wc):.2f}x geomean |")
o.append("\nWrite combining alone (the paper does not define it; our "
         "decision): the same queues and flush triggers, but each contiguous "
         "run of a flushed 128 B line goes out as its own plain MWr TLP, so "
         "it gains over P2P only where separate stores meet in a line before "
         "a flush (EQWP's two-deep faces, the transposes' elements), and "
         "FinePack's gain over it is the packing of many lines into one TLP. "
         "In the graph and CT proxies a warp's stores to a line already come "
         "as one coalesced record, so write combining sends what P2P sends.")
o.append("\nDMA copies, per kernel and source-destination pair, the hull of "
         "what the source wrote there (the notes pin the whole replicated "
         "structure instead; that needs the trace to declare it, still to "
         "come). The halos and PageRank's band edges are dense, so DMA and "
         "FinePack are even; CT writes every voxel of a small volume, so DMA "
         "wins (0.43x: the paper's CT \"does not outperform bulk DMA\"); "
         "SSSP's frontier and the transposes' blocks leave most of the hull "
         "unwritten, so DMA sends 3.6-6.2x more.\n")
o.append("### Store sizes per proxy\n")
o.append("Share of store records (L1-coalesced warp stores) by size; the "
         "derivation of each proxy is in `tools/mcmgpu/finepack/WORKLOADS.md`. "
         "The paper (§III) says per-thread stores are 1-8 B and that "
         "irregular applications coalesce poorly; its Fig 4 gives the mix per "
         "application, which we could not read from the text.\n")
o.append("| workload | " + " | ".join(f"<= {k} B" if k < 128 else "> 64 B"
                                      for k in BUCKETS) + " |")
o.append("|---|" + "---|" * len(BUCKETS))
for w in WORKLOADS:
    o.append(f"| {LIKE[w]}-like | " +
             " | ".join(f"{100 * mix[w][k]:.0f} %" for k in BUCKETS) + " |")
o.append("")
o.append("### Sub-header sweep\n")
o.append("| workload | " + " | ".join(f"h={h}" for h in range(2, 7)) + " | best |")
o.append("|---|" + "---|" * 6)
for w in WORKLOADS:
    o.append(f"| {LIKE[w]}-like | " +
             " | ".join(f"{sweep[w][h]['reduction']:.2f}x" for h in range(2, 7)) +
             f" | h={best_h[w]} |")
peak45 = sum(1 for w in WORKLOADS if best_h[w] in (4, 5))
at3 = [LIKE[w] for w in WORKLOADS if best_h[w] == 3]
o.append(f"\nPaper: performance rises up to 4 B, is flat at 5 B and falls beyond. "
         f"Here {peak45} of {len(WORKLOADS)} workloads peak at 4-5 B"
         + (f", and {', '.join(at3)} at 3 B" if at3 else "") + ". A small "
         f"sub-header loses whenever the stores do not fit its window (window "
         f"flushes; h = 2 is a 64 B window and always loses to plain P2P). "
         f"Where a workload's stores to one peer stay within 16 KiB until "
         f"the packet fills (the halos, PageRank's band edges, SSSP's "
         f"neighbouring vertices), h = 3 already holds a whole packet and "
         f"the shorter header wins; these are bytes, not the paper's "
         f"performance, which also counts the transfers' timing.\n")
o.append("![sub-header sweep](figures/finepack_subheader.png)\n")
o.append("### Wire-byte breakdown\n")
o.append("Per workload, bars are normalised to the scheme with the most wire "
         "bytes. Useful = distinct destination bytes written per kernel; overhead = "
         "TLP overhead, sub-headers and padding; wasted = payload bytes that "
         "were overwritten in the same kernel (P2P, FinePack) or never written "
         "(DMA copies the hull).\n")
o.append("![breakdown](figures/finepack_breakdown.png)\n")
with open(f"{results}/sections/10-finepack.md", "w") as f:
    f.write("\n".join(o) + "\n")
