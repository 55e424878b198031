#!/usr/bin/env bash
# CPElide: the 24 workload sequences replayed through the device's global
# command processor at 4 chiplets (one guest boot) under baseline, cpelide,
# ideal and hmg with the paper's remote-data policy, and baseline and
# cpelide with remote data cached (the first pass's model); the chiplet
# sweep 2/6/7 under baseline, cpelide and hmg on the same core on the host
# (identical counters to the device: selftests/mcmgpu/cpelide_test.c).
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
# Runs inside the guest: every sequence given, every configuration.
for s in "$@"; do
	name=$(basename "$s" .seq)
	for p in baseline cpelide ideal hmg; do
		mcmgpu cpelide replay --json --policy "$p" "$s" \
			>"raw/cpelide/device/$name-$p.json" || exit 1
	done
	for p in baseline cpelide; do
		mcmgpu cpelide replay --json --policy "$p" --remote cache "$s" \
			>"raw/cpelide/device/$name-$p-cache.json" || exit 1
	done
	echo "  $name: baseline, cpelide, ideal, hmg; baseline, cpelide caching remote data"
done
GUEST
echo "  replaying 24 sequences on the device (one guest boot)"
seqs=()
for w in $workloads; do seqs+=("$raw/seq/$w.seq"); done
"$top/tools/vm-run" --no-build --out "$raw/device" -- sh "$raw/guest.sh" "${seqs[@]}"

echo "  chiplet sweep 2/6/7 on the host core ($(nproc) at a time)"
for n in 2 6 7; do
	for w in $workloads; do
		"$tool" cpelide gen "$w" --chiplets "$n" -o "$raw/seq/$w-$n.seq"
		for p in baseline cpelide hmg; do
			echo "$n $w $p"
		done
	done
done | xargs -P "$(nproc)" -L 1 sh -c 'o=$1/host/$3-$2-$4.json
	"$0" cpelide replay --host --json --chiplets "$2" --policy "$4" \
		"$1/seq/$3-$2.seq" >"$o" || { rm -f "$o"; echo "FAILED $3 $2 $4"; }
	echo done' "$tool" "$raw" |
	awk '/FAILED/ { print "  " $0 >"/dev/stderr"; next }
	     { n++ } n % 24 == 0 { print "  " n " of 216 host replays" }'
[ "$(ls "$raw/host" | wc -l)" -eq 216 ] || { echo "chiplet sweep: replays failed" >&2; exit 1; }

python3 "$top/tools/experiments/cpelide_report.py" "$raw" "$results"
