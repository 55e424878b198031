#!/usr/bin/env bash
# CPElide: the 24 workload sequences replayed through the device's global
# command processor under baseline, cpelide and ideal (one guest boot), and
# the chiplet sweep 2/4/6/7 on the same core on the host (identical
# counters to the device: selftests/mcmgpu/cpelide_test.c).
set -euo pipefail
results=$1
top=$(cd "$(dirname "$0")/../.." && pwd)
tool=$top/build/tools/mcmgpu
raw=raw/cpelide
cd "$results"
rm -rf "$raw"
mkdir -p "$raw/seq" "$raw/device" "$raw/host"

workloads=$("$tool" cpelide gen --list | awk '{print $1}')
"$tool" cpelide gen --list >"$raw/classes.txt"
for w in $workloads; do
	"$tool" cpelide gen "$w" --chiplets 4 -o "$raw/seq/$w.seq"
done

cat >"$raw/guest.sh" <<'GUEST'
# Runs inside the guest: every sequence given, every policy.
for s in "$@"; do
	name=$(basename "$s" .seq)
	for p in baseline cpelide ideal; do
		mcmgpu cpelide replay --json --policy "$p" "$s" \
			>"raw/cpelide/device/$name-$p.json" || exit 1
	done
	echo "  $name: baseline, cpelide, ideal"
done
GUEST
echo "  replaying 24 sequences on the device (one guest boot)"
seqs=()
for w in $workloads; do seqs+=("$raw/seq/$w.seq"); done
"$top/tools/vm-run" --no-build --out "$raw/device" -- sh "$raw/guest.sh" "${seqs[@]}"

echo "  chiplet sweep 2/6/7 on the host core"
for n in 2 6 7; do
	for w in $workloads; do
		"$tool" cpelide gen "$w" --chiplets "$n" -o "$raw/seq/$w-$n.seq"
		for p in baseline cpelide; do
			"$tool" cpelide replay --host --json --chiplets "$n" --policy "$p" \
				"$raw/seq/$w-$n.seq" >"$raw/host/$w-$n-$p.json"
		done
	done
	echo "  $n chiplets done"
done

python3 "$top/tools/experiments/cpelide_report.py" "$raw" "$results"
