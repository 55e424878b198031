#!/usr/bin/env bash
# Barre: the ten workload proxies (tools/mcmgpu/barre/WORKLOADS.md) at 4
# chiplets replayed through the device (chiplet TLBs, ATS to
# barre_iommu.ko, shadow walk on) with Barre off and on, in one guest
# boot; the same replays on the host core must give the same JSON. The
# sweeps (walkers 8/16/32, chiplets 2/4/8, mapping policies, pool
# fragmentation) run on the host core, which the device equals.
set -euo pipefail
results=$1
top=$(cd "$(dirname "$0")/../.." && pwd)
tool=$top/build/tools/mcmgpu
raw=raw/barre
cd "$results"
rm -rf "$raw"
mkdir -p "$raw/trace" "$raw/device" "$raw/host"

workloads=$("$tool" barre gen --list | awk '{print $1}')
"$tool" barre gen --list >"$raw/classes.txt"
for w in $workloads; do
	for n in 2 4 8; do
		"$tool" barre gen "$w" --chiplets "$n" -o "$raw/trace/$w-$n.trace"
	done
	# Fig 26's mappings: the same accesses, every object placed by one policy.
	for p in rr kwc; do
		sed -E "s/policy=(chunk g=[0-9]+|rr)/policy=$p/" "$raw/trace/$w-4.trace" \
			>"$raw/trace/$w-4-$p.trace"
	done
done

cat >"$raw/guest.sh" <<'GUEST'
# Runs inside the guest: every trace given, Barre off and on.
for t in "$@"; do
	name=$(basename "$t" .trace)
	for b in off on; do
		mcmgpu barre replay --json --shadow --barre "$b" "$t" \
			>"raw/barre/device/$name-$b.json" || exit 1
	done
	echo "  $name: Barre off and on"
done
GUEST
echo "  replaying $(echo "$workloads" | wc -w) traces on the device (one guest boot)"
traces=()
for w in $workloads; do traces+=("$raw/trace/$w-4.trace"); done
"$top/tools/vm-run" --no-build --timeout 1800 --out "$raw/device" -- \
	sh "$raw/guest.sh" "${traces[@]}"

echo "  sweeps on the host core ($(nproc) at a time)"
# Fragmentation runs use 1 GiB pools, so that 90 % taken still leaves room.
for w in $workloads; do
	for b in off on; do
		echo "$w-4 $b 16 4 0 64M"
		for k in 8 32; do echo "$w-4 $b $k 4 0 64M"; done
		for n in 2 8; do echo "$w-$n $b 16 $n 0 64M"; done
		for p in rr kwc; do echo "$w-4-$p $b 16 4 0 64M"; done
	done
	for f in 0 25 50 75 90; do echo "$w-4 on 16 4 $f 1G"; done
done | xargs -P "$(nproc)" -L 1 sh -c 'o=$1/host/$2-$3-w$4-f$6-$7.json
	"$0" barre replay --host --json --shadow --barre "$3" --walkers "$4" \
		--chiplets "$5" --fragment "$6" --vram-per-chiplet "$7" \
		"$1/trace/$2.trace" >"$o" || { rm -f "$o"; echo "FAILED $2 $3 $4 $6 $7"; }
	echo done' "$tool" "$raw" |
	awk '/FAILED/ { print "  " $0 >"/dev/stderr"; next }
	     { n++ } n % 40 == 0 { print "  " n " host replays" }'
want=$(( $(echo "$workloads" | wc -w) * 19 ))
[ "$(ls "$raw/host" | wc -l)" -eq "$want" ] ||
	{ echo "barre sweeps: replays failed" >&2; exit 1; }

python3 "$top/tools/experiments/barre_report.py" "$raw" "$results"
