#!/usr/bin/env bash
# libFuzzer runs of the targets in selftests/fuzz/ (make fuzz; a short run
# in make check). Usage: fuzz.sh SECONDS_PER_TARGET FUZZER...
# Each target keeps its corpus in $CACHE/fuzz/NAME/corpus (grown across
# runs) and writes any crash input to $CACHE/fuzz/NAME/crashes/. Seeds come
# from the tool's generators and from selftests/fuzz/seeds/NAME/; the
# inputs in selftests/fuzz/regressions/NAME/ (past findings) are replayed
# first. Exit status: 0 when no target found anything.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
secs=$1
shift
cache=${CACHE:-$HOME/.cache/mcmgpu}/fuzz
tool=$top/build/tools/mcmgpu
status=0

# Seed inputs: 3 configuration bytes, then a text sequence or trace.
seed() {
	local dir=$1 name=$2 prefix=$3 src=$4
	{ printf "$prefix"; cat "$src"; } >"$dir/$name"
}

make_seeds() {
	local name=$1 dir=$2 tmp w
	tmp=$(mktemp -d)
	mkdir -p "$dir"
	cp "$top/selftests/fuzz/seeds/$name/"* "$dir/" 2>/dev/null
	case $name in
	fuzz_cpelide)
		for w in backprop btree pathfinder srad_v2 square; do
			"$tool" cpelide gen "$w" --chiplets 4 -o "$tmp/$w.seq" &&
				seed "$dir" "$w" '\003\001\000' "$tmp/$w.seq"
		done ;;
	fuzz_finepack)
		for w in halo vertex transpose scatter lines; do
			"$tool" finepack gen "$w" --chiplets 4 --iters 1 --count 8 --bytes 4096 --rows 4 \
				-o "$tmp/$w.bin" >/dev/null 2>&1 &&
				seed "$dir" "$w" '\003\004\200' "$tmp/$w.bin"
		done ;;
	esac
	rm -rf "$tmp"
}

for f in "$@"; do
	name=$(basename "$f")
	work=$cache/$name
	mkdir -p "$work/corpus" "$work/crashes"
	make_seeds "$name" "$work/seeds"
	reg=$top/selftests/fuzz/regressions/$name
	if [ -d "$reg" ] && [ -n "$(ls -A "$reg")" ]; then
		if ! "$f" "$reg"/* >"$work/regressions.log" 2>&1; then
			echo "$name: a past finding fails again (log $work/regressions.log)"
			status=1
			continue
		fi
	fi
	"$f" -max_total_time="$secs" -max_len=65536 -timeout=20 -rss_limit_mb=4096 \
		-print_final_stats=1 -artifact_prefix="$work/crashes/" \
		"$work/corpus" "$work/seeds" >"$work/last.log" 2>&1
	rc=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/last.log")
	cov=$(grep -o 'cov: [0-9]*' "$work/last.log" | tail -n 1)
	if [ "$rc" -ne 0 ]; then
		echo "$name: FOUND a failure in ${secs} s (log $work/last.log):"
		ls "$work/crashes"
		status=1
	else
		echo "$name: ${execs:-?} executions in ${secs} s, ${cov:-cov: ?} edges, nothing found"
	fi
done
exit $status
