#!/usr/bin/env bash
# make bench: FinePack replay throughput of the model core on the host, of
# the device seen from the guest, and of a plain memcpy of the same trace
# bytes; CPElide launches per second through the command-processor model on
# the host and in the guest; Barre translations per second on the host
# cores and through the device, and allocation latency Barre vs plain; CXL
# decodes and SR/DS replays, host core and device; ADSM protocol faults and
# bytes through a mapping against copies, and the fault handler's share of
# a run (ADSM Fig 10); workload import against wc -l, the SIMT executor's
# warp instructions per second and the peak memory of a 1 GiB import
# (bench-workloads.py, host only). Measured in one run, reported as ratios
# (results/bench.md).
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
tool=build/tools/mcmgpu
out=results/bench
mkdir -p "$out"
"$tool" finepack gen pagerank-random --iters 2 -o "$out/pagerank.bin"
echo "bench: host core..."
"$tool" finepack bench --host --repeat 5 "$out/pagerank.bin" >"$out/host.json"
echo "bench: device in the guest..."
tools/vm-run --no-build --out "$out" -- sh -c \
	'mcmgpu finepack bench --repeat 5 "$1" >results/bench/device.json' sh "$out/pagerank.bin"
echo "bench: CPElide launches, host core..."
"$tool" cpelide gen gaussian -o "$out/gaussian.seq"
"$tool" cpelide bench --host "$out/gaussian.seq" >"$out/cp-host.json"
echo "bench: CPElide launches, device in the guest..."
tools/vm-run --no-build --out "$out" -- sh -c \
	'mcmgpu cpelide bench "$1" >results/bench/cp-device.json' sh "$out/gaussian.seq"
echo "bench: Barre translations, host core..."
"$tool" barre gen gups -o "$out/gups.trace"
"$tool" barre bench --host --repeat 3 "$out/gups.trace" >"$out/barre-host.json"
echo "bench: Barre translations, device (ATS through barre_iommu.ko) from the guest..."
tools/vm-run --no-build --out "$out" -- sh -c \
	'mcmgpu barre bench --repeat 3 "$1" >results/bench/barre-device.json &&
	 grep -h "^rings" /sys/kernel/debug/barre_iommu/*/stats \
		>results/bench/barre-rings.txt' sh "$out/gups.trace"
echo "bench: Barre translations on every proxy, host core and device..."
mkdir -p "$out/proxies"
for w in $("$tool" barre gen --list | awk '{ print $1 }'); do
	"$tool" barre gen "$w" --accesses 2048 -o "$out/proxies/$w.trace"
	"$tool" barre bench --host --repeat 3 "$out/proxies/$w.trace" \
		>"$out/proxies/$w-host.json"
done
tools/vm-run --no-build --out "$out" -- sh -c \
	'mkdir -p results/bench/proxies && for t in "$@"; do
		mcmgpu barre bench --repeat 3 "$t" \
			>"results/bench/proxies/$(basename "$t" .trace)-device.json" || exit 1
	 done' sh "$out"/proxies/*.trace
echo "bench: F-Barre in-package translations and filter probes, host core and device..."
"$tool" barre bench --host --repeat 3 --mode fbarre --merge 2 "$out/gups.trace" \
	>"$out/fbarre-host.json"
"$tool" barre bench --filter >"$out/fbarre-filter.json"
tools/vm-run --no-build --out "$out" -- sh -c \
	'mcmgpu barre bench --repeat 3 --mode fbarre --merge 2 "$1" \
		>results/bench/fbarre-device.json' sh "$out/gups.trace"
echo "bench: Barre allocation latency..."
"$tool" barre bench --alloc >"$out/barre-alloc.json"
echo "bench: CXL decode and SR/DS replay, host core..."
"$tool" cxl gen bfs --records 100000 --size 262144 -o "$out/cxl-bfs.trace"
"$tool" cxl bench --host --decode --count 2000000 >"$out/cxl-decode-host.json"
"$tool" cxl bench --host --repeat 3 "$out/cxl-bfs.trace" >"$out/cxl-replay-host.json"
echo "bench: CXL decode probe and SR/DS replay, device from the guest (Z-NAND endpoints)..."
tools/vm-run --no-build --prop cxl-media=znand --out "$out" -- sh -c \
	'mcmgpu cxl bench --decode --count 200000 >results/bench/cxl-decode-device.json &&
	 mcmgpu cxl bench --repeat 3 "$1" >results/bench/cxl-replay-device.json' sh "$out/cxl-bfs.trace"
echo "bench: ADSM faults and bytes through a mapping vs copies, device from the guest..."
tools/vm-run --no-build --out "$out" -- sh -c \
	'mcmgpu adsm bench --json >results/bench/adsm-device.json &&
	 for p in pc iter stencil vadd multipass io; do
		mcmgpu adsm run $p --protocol rolling --size 4M --block 256K \
			--iterations 16 --json >results/bench/adsm-share-$p.json || exit 1
	 done'
echo "bench: workloads: Accel-Sim import vs wc -l, the SIMT executor, a 1 GiB import's memory..."
python3 tools/scripts/bench-workloads.py --tool "$tool" --tmp "$out" >"$out/workloads.json"
echo "bench: the GPU core, device from the guest and host..."
python3 tools/scripts/bench-gpu.py --tool "$tool" --tmp "$out" --gen-only
# The programs as arguments: vm-run copies the files its arguments name.
tools/vm-run --no-build --out "$out" -- sh -c '
	for p in bfs gups; do
		f="$1/gpu-$p.prog"
		mcmgpu run --bench --set translate=0 "$f" >"$1/gpu-dev-$p-notlb.json" &&
		mcmgpu run --bench --barre off "$f" >"$1/gpu-dev-$p-off.json" &&
		mcmgpu run --bench --barre on "$f" >"$1/gpu-dev-$p-on.json" || exit 1
	done' sh "$out" "$out/gpu-bfs.prog" "$out/gpu-gups.prog"
python3 tools/scripts/bench-gpu.py --tool "$tool" --tmp "$out" \
	--device-json "$out"/gpu-dev-*.json >"$out/gpu.json"
python3 - "$out" <<'PY'
import glob, json, math, os, sys
out = sys.argv[1]
h = json.load(open(f"{out}/host.json"))
d = json.load(open(f"{out}/device.json"))
ch = json.load(open(f"{out}/cp-host.json"))
cd = json.load(open(f"{out}/cp-device.json"))
rows = [
    ("host core replay", h["replay_stores_per_s"]),
    ("device replay (from the guest, incl. upload)", d["replay_stores_per_s"]),
    ("memcpy of the trace bytes (host)", h["memcpy_stores_per_s"]),
    ("memcpy of the trace bytes (guest, TCG)", d["memcpy_stores_per_s"]),
]
lines = ["# FinePack replay throughput", "",
         f"Trace: PageRank-like with random updates (`pagerank-random`, the proxy issue 14 measured), {h['stores']} records, {h['trace_bytes']} bytes, "
         f"5 repetitions each, one run of `make bench`.", "",
         "| what | stores/s |", "|---|---|"]
lines += [f"| {n} | {v:,.0f} |" for n, v in rows]
lines += ["", "| ratio | value |", "|---|---|",
          f"| host core / host memcpy | {h['replay_stores_per_s'] / h['memcpy_stores_per_s']:.4f} |",
          f"| device / host core | {d['replay_stores_per_s'] / h['replay_stores_per_s']:.4f} |",
          f"| device / guest memcpy | {d['replay_stores_per_s'] / d['memcpy_stores_per_s']:.4f} |"]
lines += ["", "# CPElide launches through the command processor model", "",
          f"Sequence: Gaussian-like, {ch['launches']} launch records (CPElide policy).", "",
          "| path | launches/s |", "|---|---|",
          f"| host core | {ch['launches_per_s']:,.0f} |",
          f"| device, one launch ioctl each, from the guest | {cd['launches_per_s']:,.0f} |",
          "", f"Ratio device / host: {cd['launches_per_s'] / ch['launches_per_s']:.4f}"]
bh = json.load(open(f"{out}/barre-host.json"))
bd = json.load(open(f"{out}/barre-device.json"))
ba = json.load(open(f"{out}/barre-alloc.json"))
lines += ["", "# Barre: translations through the walker and PEC", "",
          f"Trace: `barre gen gups` (4 chiplets, {bh['accesses']} accesses, "
          f"{bh['ats_requests']} ATS requests), 3 repetitions after one untimed "
          f"(under TCG the first replay also translates the guest's code). "
          f"Whole replays, and their phases alone (`BARRE_RUN`: the chiplets, "
          f"the ATS rings and the walker, without the allocations around them).", "",
          "| path | translations/s, replay | translations/s, phases | accesses/s |",
          "|---|---|---|---|",
          f"| host cores | {bh['translations_per_s']:,.0f} | "
          f"{bh['run_translations_per_s']:,.0f} | {bh['accesses_per_s']:,.0f} |",
          f"| device from the guest (ATS rings to barre_iommu.ko) | "
          f"{bd['translations_per_s']:,.0f} | {bd['run_translations_per_s']:,.0f} | "
          f"{bd['accesses_per_s']:,.0f} |"]
ratio = bh['translations_per_s'] / bd['translations_per_s']
pratio = bh['run_translations_per_s'] / bd['run_translations_per_s']
lines += ["", f"Ratio host / device: {ratio:.2f} whole replays, {pratio:.2f} phases "
          f"(issue 31's goal, within 4x under TCG: "
          f"{'met' if ratio <= 4 else 'not met'} on whole replays)."]
rings = open(f"{out}/barre-rings.txt").read().split()
kv = dict(zip(rings[1::2], rings[2::2]))
if kv.get("batches") and int(kv["batches"]):
    nb = int(kv["batches"])
    lines += ["", f"Where the device path's time goes: {nb} ATS batches "
              f"({kv['interrupts']} took an interrupt, {kv.get('doorbells', '?')} a "
              f"doorbell: otherwise the device polled the answer); barre_iommu.ko's ring "
              f"thread spent {int(kv['serve_ns']) / nb / 1000:.1f} us serving "
              f"a batch (the walker model and the rings, run by TCG in the "
              f"guest) and {int(kv['wait_ns']) / nb / 1000:.1f} us from its "
              f"answer to the next batch (the device's epoch and the next post; "
              f"between runs too)."]
prox = []
for hf in sorted(glob.glob(f"{out}/proxies/*-host.json")):
    w = os.path.basename(hf)[:-len("-host.json")]
    h = json.load(open(hf))
    d = json.load(open(f"{out}/proxies/{w}-device.json"))
    prox.append((w, h, d, h['translations_per_s'] / d['translations_per_s'],
                 h['run_translations_per_s'] / d['run_translations_per_s']))
if prox:
    lines += ["", "Every Barre proxy (`barre gen W --accesses 2048`, 3 repetitions after "
              "one untimed; each replay allocates the proxy's objects, up to 48 MiB, "
              "in the guest's kernel on the device path):", "",
              "| proxy | ATS requests | host translations/s | device translations/s | "
              "host / device, replay | host / device, phases |",
              "|---|---|---|---|---|---|"]
    for w, h, d, r, pr in prox:
        lines.append(f"| {w} | {h['ats_requests']} | {h['translations_per_s']:,.0f} | "
                     f"{d['translations_per_s']:,.0f} | {r:.2f} | {pr:.2f} |")
    for k, what in ((3, "whole replays"), (4, "phases alone")):
        rs = [p[k] for p in prox]
        gm = math.exp(sum(math.log(r) for r in rs) / len(rs))
        lines += ["", f"Geometric mean host / device, {what}: {gm:.2f}, "
                  f"{sum(r <= 4 for r in rs)} of {len(rs)} proxies within issue 31's 4x."]
lines += ["",
          "# Barre: allocation latency (allocator core, host)", "",
          f"{ba['what']}; 200 rounds each.", "",
          "| frames taken | plain µs | Barre µs | Barre / plain | pages grouped (of 256) |",
          "|---|---|---|---|---|"]
for f in (0, 25, 50, 75, 90):
    p_, b_ = ba[f"plain_f{f}_us"], ba[f"barre_f{f}_us"]
    lines.append(f"| {f} % | {p_:.1f} | {b_:.1f} | {b_ / p_:.2f} | {ba[f'barre_f{f}_grouped']} |")
fh = json.load(open(f"{out}/fbarre-host.json"))
fd = json.load(open(f"{out}/fbarre-device.json"))
ff = json.load(open(f"{out}/fbarre-filter.json"))
lines += ["", "# F-Barre: translations in the package and filter probes", "",
          f"Trace: `barre gen gups`, `--mode fbarre --merge 2`, 3 repetitions: "
          f"{fh['inpackage_translations']} in-package translations, "
          f"{fh['filter_probes']} filter probes and {fh['ats_requests']} ATS "
          "requests a replay.", "",
          "| what | host cores /s | device from the guest /s | host / device |",
          "|---|---|---|---|",
          f"| in-package translations | {fh['inpackage_translations_per_s']:,.0f} | "
          f"{fd['inpackage_translations_per_s']:,.0f} | "
          f"{fh['inpackage_translations_per_s'] / fd['inpackage_translations_per_s']:.2f} |",
          f"| filter probes | {fh['filter_probes_per_s']:,.0f} | "
          f"{fd['filter_probes_per_s']:,.0f} | "
          f"{fh['filter_probes_per_s'] / fd['filter_probes_per_s']:.2f} |",
          f"| accesses | {fh['accesses_per_s']:,.0f} | {fd['accesses_per_s']:,.0f} | "
          f"{fh['accesses_per_s'] / fd['accesses_per_s']:.2f} |",
          "", f"One filter alone ({ff['what']}): {ff['lookups_per_s']:,.0f} lookups/s "
          "on the host; a replay's probes ride on its TLB and IOMMU model, hence "
          "the lower rates above."]
xdh = json.load(open(f"{out}/cxl-decode-host.json"))
xdd = json.load(open(f"{out}/cxl-decode-device.json"))
xrh = json.load(open(f"{out}/cxl-replay-host.json"))
xrd = json.load(open(f"{out}/cxl-replay-device.json"))
lines += ["", "# CXL-GPU: HDM decode and SR/DS replays", "",
          "Decode: random HPAs of a 4-way 1 GiB region (host: the HDM core; device: "
          "the decode probe register, two writes and three reads each, from the "
          "guest). Replay: `cxl gen bfs --records 100000` with SR and DS on, Z-NAND, "
          "3 repetitions (device: upload and replay through gpu_rc.ko).", "",
          "| what | host core /s | device from the guest /s | host / device |",
          "|---|---|---|---|",
          f"| HPA decodes | {xdh['per_second']:,.0f} | {xdd['per_second']:,.0f} | "
          f"{xdh['per_second'] / xdd['per_second']:.0f} |",
          f"| replayed records | {xrh['per_second']:,.0f} | {xrd['per_second']:,.0f} | "
          f"{xrh['per_second'] / xrd['per_second']:.2f} |"]
ad = json.load(open(f"{out}/adsm-device.json"))
lines += ["", "# ADSM: faults and bytes through a mapping", "",
          f"A {ad['bytes'] >> 20} MiB object, best of {ad['repeat']}, in the guest (TCG). "
          "Protocol faults: a write to each Read-only 4 KiB block (no transfer). "
          "Bytes: CPU stores through a lazy mapping and the launch that flushes "
          "them, then the fetch on the first touch, against a private buffer "
          "and ADSM_COPY of the same bytes.", "",
          "| what | mapping /s | reference /s | mapping / reference |", "|---|---|---|---|",
          f"| faults (reference: anonymous first touches) | {ad['protocol_faults_per_s']:,.0f} | "
          f"{ad['anon_faults_per_s']:,.0f} | {ad['protocol_faults_per_s'] / ad['anon_faults_per_s']:.2f} |",
          f"| bytes to the GPU (reference: copies) | {ad['h2d_mapping_bytes_per_s']:,.0f} | "
          f"{ad['h2d_copy_bytes_per_s']:,.0f} | {ad['h2d_mapping_bytes_per_s'] / ad['h2d_copy_bytes_per_s']:.2f} |",
          f"| bytes from the GPU (reference: copies) | {ad['d2h_mapping_bytes_per_s']:,.0f} | "
          f"{ad['d2h_copy_bytes_per_s']:,.0f} | {ad['d2h_mapping_bytes_per_s'] / ad['d2h_copy_bytes_per_s']:.2f} |"]
lines += ["", "# ADSM: the fault handler's share of a run (Fig 10)", "",
          "Guest time in `mcmgpu.ko`'s fault handler (transfers excluded, as "
          "GMAC's \"Signal\") over the run's wall time, rolling, the report's "
          "runs (S 4 MiB, B 256 KiB, 16 iterations) on the device in the guest "
          "(TCG slows the CPU code and the handler alike).", "",
          "| pattern | faults (protocol / hardware) | handler time | share of the run |",
          "|---|---|---|---|"]
shares = []
for p in ("pc", "iter", "stencil", "vadd", "multipass", "io"):
    r = json.load(open(f"{out}/adsm-share-{p}.json"))
    g = r["guest"]
    sh = g["fault_ns"] / g["wall_ns"] if g["wall_ns"] else 0
    shares.append(sh)
    lines.append(f"| {p} | {r['faults']} / {g['hw_faults']} | "
                 f"{g['fault_ns'] / 1e6:.2f} ms | {100 * sh:.2f} % |")
lines += ["", f"Max {100 * max(shares):.2f} % (paper: below 2 % always)."]
wl = json.load(open(f"{out}/workloads.json"))
lines += ["", "# Workloads: import, executor, memory (host)", "",
          f"Import: `workload import` of a generated Accel-Sim trace "
          f"(`tools/scripts/accelsim-gen.py`, {wl['import_trace_bytes'] / 2**20:.0f} MiB, "
          "tracer version 4, every address compression) into /dev/null, "
          "against `wc -l` over the same files, both from the page cache, "
          "best of 3.", "",
          "| what | s | MB/s |", "|---|---|---|",
          f"| `wc -l` | {wl['wc_s']:.3f} | {wl['wc_mb_per_s']:,.0f} |",
          f"| `workload import` | {wl['import_s']:.3f} | {wl['import_mb_per_s']:,.0f} |",
          "", f"Ratio import / wc -l: {wl['import_over_wc']:.1f} (the issue's goal: within 3)",
          "", "| executor: `workload gen` | kernels | warp instructions | s | "
          "warp instructions/s | peak RSS MiB |", "|---|---|---|---|---|---|"]
for e in wl["executor"]:
    lines.append(f"| {e['app']} {e['args']} | {e['kernel_launches']} | "
                 f"{e['warp_instructions']:,} | {e['s']:.2f} | "
                 f"{e['warp_instructions_per_s']:,.0f} | {e['peak_rss_kib'] / 1024:.0f} |")
lines += ["", f"Peak resident memory of importing a {wl['big_trace_bytes'] / 2**30:.2f} GiB "
          f"trace: {wl['big_import_peak_rss_kib'] / 1024:.1f} MiB in "
          f"{wl['big_import_s']:.1f} s (the issue's goal: under 256 MiB)."]
gb = json.load(open(f"{out}/gpu.json"))
lines += ["", "# The GPU core: warp instructions a second", "",
          "`mcmgpu run --bench` of two programs (bfs scale 13, mostly coalesced; "
          "gups 2^18 words, a sector a lane) with Barre's configuration; "
          "the device's time is seen from the guest (upload included).", "",
          "| program | translation | where | warp instructions | s | "
          "warp instructions/s | device / host |", "|---|---|---|---|---|---|---|"]
for k, r in sorted(gb["host"].items()):
    lines.append(f"| {k.split('-')[0]} | {k.split('-')[1]} | host | {r['warp_insts']:,} | "
                 f"{r['seconds']:.2f} | {r['warp_insts_per_s']:,.0f} | |")
for k, r in sorted(gb["device"].items()):
    lines.append(f"| {k.split('-')[0]} | {k.split('-')[1]} | device | {r['warp_insts']:,} | "
                 f"{r['seconds']:.2f} | {r['warp_insts_per_s']:,.0f} | "
                 f"{r.get('device_over_host', 0):.2f} |")
lines += ["", "Goals (issue 28): at least 5 M warp instructions a second on the "
          "host with translation off; the device within 2x of the host where "
          "no guest walker is involved (translation off)."]
bfs = gb["host"].get("bfs-notlb")
if bfs:
    # A busy machine slows the wall clock, not the core: say which it was.
    lines += ["", f"This run: bfs without translation {bfs['warp_insts_per_s'] / 1e6:.2f} M/s "
              f"on the host, goal {'met' if bfs['warp_insts_per_s'] >= 5e6 else 'not met'} "
              f"(load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores: "
              "other work on the machine lowers it)."]
dev = gb["device"].get("bfs-notlb")
if dev and dev.get("device_over_host"):
    lines += [f"Device over host, bfs without translation: {dev['device_over_host']:.2f} "
              f"(goal {'met' if dev['device_over_host'] <= 2 else 'not met'})."]
open(f"{out}/../bench.md", "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
PY
