#!/usr/bin/env bash
# F-Barre: the ten workload proxies at 4 chiplets replayed through the
# device as Barre and as F-Barre (--mode fbarre --merge 2), in one guest
# boot, each checked against the host core's JSON; then on the host core
# (equal to the device by that check): scheduling alone, F-Barre with
# merge 1/2/4, filter rows 256/512/1024, 10 % of filter messages lost,
# and 2/8 chiplets.
set -euo pipefail
results=$1
top=$(cd "$(dirname "$0")/../.." && pwd)
tool=$top/build/tools/mcmgpu
raw=raw/fbarre
cd "$results"
rm -rf "$raw"
mkdir -p "$raw/trace" "$raw/device" "$raw/host"

workloads=$("$tool" barre gen --list | awk '{print $1}')
"$tool" barre gen --list >"$raw/classes.txt"
for w in $workloads; do
	for n in 2 4 8; do
		"$tool" barre gen "$w" --chiplets "$n" -o "$raw/trace/$w-$n.trace"
	done
done

cat >"$raw/guest.sh" <<'GUEST'
# Runs inside the guest: every trace given, as Barre and as F-Barre.
for t in "$@"; do
	name=$(basename "$t" .trace)
	mcmgpu barre replay --json --mode barre "$t" \
		>"raw/fbarre/device/$name-barre.json" || exit 1
	mcmgpu barre replay --json --mode fbarre --merge 2 "$t" \
		>"raw/fbarre/device/$name-merge2.json" || exit 1
	echo "  $name: Barre and F-Barre"
done
GUEST
echo "  replaying $(echo "$workloads" | wc -w) traces on the device (one guest boot)"
traces=()
for w in $workloads; do traces+=("$raw/trace/$w-4.trace"); done
"$top/tools/vm-run" --no-build --timeout 1800 --out "$raw/device" -- \
	sh "$raw/guest.sh" "${traces[@]}"

# name, chiplets, options: one host replay each.
configs() {
	cat <<'CONFIGS'
barre 4 --mode barre
sched 4 --mode sched
nomerge 4 --mode fbarre
merge2 4 --mode fbarre --merge 2
merge4 4 --mode fbarre --merge 4
rows512 4 --mode fbarre --merge 2 --filter-rows 512
rows1024 4 --mode fbarre --merge 2 --filter-rows 1024
drop10 4 --mode fbarre --merge 2 --drop 10
barre 2 --mode barre
merge2 2 --mode fbarre --merge 2
barre 8 --mode barre
nomerge 8 --mode fbarre
CONFIGS
}
echo "  host core: $(configs | wc -l) configurations x $(echo "$workloads" | wc -w) proxies"
for w in $workloads; do
	configs | while read -r name n opts; do echo "$w $name $n $opts"; done
done | xargs -P "$(nproc)" -L 1 sh -c 'r=$1 w=$2 name=$3 n=$4; shift 4
	o=$r/host/$w-$n-$name.json
	"$0" barre replay --host --json --chiplets "$n" "$@" \
		"$r/trace/$w-$n.trace" >"$o" || { rm -f "$o"; echo "FAILED $w $n $name"; }
	echo done' "$tool" "$raw" |
	awk '/FAILED/ { print "  " $0 >"/dev/stderr"; next }
	     { n++ } n % 40 == 0 { print "  " n " host replays" }'
want=$(( $(echo "$workloads" | wc -w) * $(configs | wc -l) ))
[ "$(ls "$raw/host" | wc -l)" -eq "$want" ] ||
	{ echo "fbarre: host replays failed" >&2; exit 1; }

python3 "$top/tools/experiments/fbarre_report.py" "$raw" "$results"
