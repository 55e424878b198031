#!/usr/bin/env bash
# CXL-GPU: the six workload traces (tools/mcmgpu/cxl/WORKLOADS.md) replayed
# through the root ports' queue logic and the endpoints: on the device (a
# guest with Z-NAND endpoints, the layout gpu_rc.ko commits at probe) for
# SR off/on and DS, which must equal the host core's replays; the sweeps
# (SR ablation, media, DS, controller latency, DRAM endpoint vs local) on
# the host core.
set -euo pipefail
results=$1
top=$(cd "$(dirname "$0")/../.." && pwd)
tool=$top/build/tools/mcmgpu
raw=raw/cxl
records=${CXL_RECORDS:-300000}
cd "$results"
rm -rf "$raw"
mkdir -p "$raw/trace" "$raw/device" "$raw/host"

workloads=$("$tool" cxl gen --list | awk '{print $1}')
"$tool" cxl gen --list >"$raw/workloads.txt"
for w in $workloads; do
	"$tool" cxl gen "$w" --records "$records" -o "$raw/trace/$w.trace"
done

cat >"$raw/guest.sh" <<'GUEST'
# Runs inside the guest: every trace, SR off and on, and DS.
for t in "$@"; do
	w=$(basename "$t" .trace)
	mcmgpu cxl replay --json --sr off "$t" >"raw/cxl/device/$w-znand-off.json" &&
	mcmgpu cxl replay --json --sr sr "$t" >"raw/cxl/device/$w-znand-sr.json" &&
	mcmgpu cxl replay --json --sr sr --ds "$t" >"raw/cxl/device/$w-znand-sr-ds.json" ||
		exit 1
	echo "  $w: SR off, SR, SR + DS"
done
GUEST
echo "  replaying $(echo "$workloads" | wc -w) traces on the device (one guest boot)"
traces=()
for w in $workloads; do traces+=("$raw/trace/$w.trace"); done
"$top/tools/vm-run" --no-build --timeout 1800 --prop cxl-media=znand \
	--out "$raw/device" -- sh "$raw/guest.sh" "${traces[@]}"

echo "  sweeps on the host core ($(nproc) at a time)"
# name, then the replay's options
configs=(
	"dram-local|--media dram --local"
	"dram|--media dram"
	"dram-250|--media dram --ctrl-ns 250"
	"znand-off|--sr off"
	"znand-naive|--sr naive"
	"znand-dyn|--sr dyn"
	"znand-sr|--sr sr"
	"znand-max|--sr max"
	"znand-sr-ds|--sr sr --ds"
	"znand-off-ds|--sr off --ds"
	"optane-off|--media optane --sr off"
	"optane-sr|--media optane --sr sr"
	"nand-off|--media nand --sr off"
	"nand-sr|--media nand --sr sr"
)
for w in $workloads; do
	for c in "${configs[@]}"; do
		o=$raw/host/$w-${c%%|*}.json
		echo "$tool cxl replay --host --json ${c#*|} $raw/trace/$w.trace >$o ||" \
			"{ rm -f $o; echo 'FAILED $w ${c%%|*}' >&2; }"
	done
done >"$raw/jobs"
xargs -P "$(nproc)" -d '\n' -n 1 sh -c <"$raw/jobs"
want=$(( $(echo "$workloads" | wc -w) * ${#configs[@]} ))
[ "$(ls "$raw/host" | wc -l)" -eq "$want" ] ||
	{ echo "cxl sweeps: replays failed" >&2; exit 1; }

python3 "$top/tools/experiments/cxl_report.py" "$raw" "$results"
