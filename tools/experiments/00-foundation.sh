#!/usr/bin/env bash
# Foundation: device discovery for 2, 4 and 8 chiplets and a byte-exact DMA
# round trip through every chiplet, one guest boot per chiplet count.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

list_jobs() {
	for n in 2 4 8; do emit "guest-$n" "$n"; done
}

run_job() {
	local n=$2
	"$top/tools/vm-run" --no-build --chiplets "$n" --out "$JOB_OUT" -- \
		sh -c "mcmgpu info --json >$JOB_OUT/info-$n.json &&
		       mcmgpu dma roundtrip --size 4M --seed $n --json >$JOB_OUT/dma-$n.json"
	# Wall-clock throughput in a TCG guest is not a result.
	drop_wall_clock "$JOB_OUT" write_seconds read_seconds write_mib_s read_mib_s
}

reduce() {
	python3 - "$1" "$2" <<'PY'
import json, sys
raw, results = sys.argv[1], sys.argv[2]
runs = []
for n in (2, 4, 8):
    info = json.load(open(f"{raw}/info-{n}.json"))["devices"][0]
    dma = json.load(open(f"{raw}/dma-{n}.json"))
    runs.append({"chiplets_requested": n, "info": info, "dma": dma})
json.dump({"runs": runs}, open(f"{results}/foundation.json", "w"), indent=1)
with open(f"{results}/sections/00-foundation.md", "w") as f:
    f.write("## Foundation: discovery and DMA\n\n")
    f.write("`tools/vm-run --chiplets N -- mcmgpu info --json` and "
            "`mcmgpu dma roundtrip --size 4M --json` (random data at a random "
            "offset of every chiplet, written and read back).\n\n")
    f.write("| chiplets asked | found (BAR0) | GET_INFO | MiB/chiplet | BAR2 MiB "
            "| bytes round-tripped | mismatched |\n")
    f.write("|---|---|---|---|---|---|---|\n")
    for r in runs:
        i, d = r["info"], r["dma"]
        bar2 = [b for b in i["bars"] if b["index"] == 2][0]["size"] >> 20
        f.write(f"| {r['chiplets_requested']} | {i['chiplets']} | "
                f"{i['get_info']['chiplets']} | {i['vram_per_chiplet'] >> 20} | "
                f"{bar2} | {d['bytes']} | {d['mismatched_bytes']} |\n")
    f.write("\nDMA throughput is wall-clock time in a TCG guest, not a "
            "modeled figure, so the results leave it out (`mcmgpu dma "
            "roundtrip` in the guest prints it).\n")
PY
}

dispatch "$@"
