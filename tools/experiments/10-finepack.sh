#!/usr/bin/env bash
# FinePack: efficiency against store size, stores per packet per workload,
# the sub-header sweep and the wire-byte breakdown, replayed on the device
# in one guest boot (tools/mcmgpu/finepack/WORKLOADS.md derives the
# proxies).
set -euo pipefail
results=$1
top=$(cd "$(dirname "$0")/../.." && pwd)
tool=$top/build/tools/mcmgpu
raw=raw/finepack
cd "$results"
rm -rf "$raw"
mkdir -p "$raw/traces" "$raw/device" "$raw/host"

workloads="jacobi diffusion eqwp pagerank sssp hit als ct"
sizes="1 2 4 8 16 32 64 128"
echo "  generating traces"
for w in $workloads; do
	"$tool" finepack gen "$w" -o "$raw/traces/$w.bin"
done
for s in $sizes; do
	"$tool" finepack gen lines --store "$s" --count 64 -o "$raw/traces/lines-$s.bin"
done
"$tool" finepack analytic --json >"$raw/analytic.json"

cat >"$raw/guest.sh" <<'GUEST'
# Runs inside the guest: every trace given, every sub-header size.
out=raw/finepack/device
for t in "$@"; do
	name=$(basename "$t" .bin)
	case "$name" in
	lines-*)
		mcmgpu finepack replay --json "$t" >"$out/$name.json" || exit 1
		continue ;;
	esac
	for h in 2 3 4 5 6; do
		mcmgpu finepack replay --json --subheader "$h" "$t" >"$out/$name-h$h.json" || exit 1
	done
	mcmgpu finepack replay --json --verify "$t" >"$out/$name-verify.json" || exit 1
	echo "  $name: replayed for h = 2..6 and verified"
done
GUEST
echo "  replaying on the device (one guest boot)"
traces=()
for w in $workloads; do traces+=("$raw/traces/$w.bin"); done
for s in $sizes; do traces+=("$raw/traces/lines-$s.bin"); done
"$top/tools/vm-run" --no-build --mem 2G --out "$raw/device" -- \
	sh "$raw/guest.sh" "${traces[@]}"

# The 16-GPU PCIe 6 study (FinePack section VI-B) runs on the host core:
# the device stays at its chiplet limit (MCMGPU_MAX_CHIPLETS).
echo "  16 GPUs: generating and replaying on the host core"
for w in $workloads; do
	"$tool" finepack gen "$w" --chiplets 16 -o "$raw/traces/$w-g16.bin"
	"$tool" finepack replay --host --chiplets 16 --json "$raw/traces/$w-g16.bin" \
		>"$raw/host/$w-g16.json"
	rm -f "$raw/traces/$w-g16.bin"
done

python3 "$top/tools/experiments/finepack_report.py" "$raw" "$results"
