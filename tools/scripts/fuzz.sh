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
. "$top/tools/scripts/fuzz-lib.sh"
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
	fuzz_cxl)
		for w in vadd sort bfs; do
			"$tool" cxl gen "$w" --records 300 --size 4096 -o "$tmp/$w.trace" &&
				seed "$dir" "$w" '\003\003\000\000\000\000\020\000\000\000\000\000\000\020\000\000\000\000\040\000\000\000\000\000\000\000\020\021\022\023\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000' "$tmp/$w.trace"
			# replayed through a 2-way 1 KiB layout (flag bit 5)
			seed "$dir" "$w-2way" '\003\043\000\001\002\002\000\001\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000' "$tmp/$w.trace"
		done ;;
	esac
	rm -rf "$tmp"
}

for f in "$@"; do
	name=$(basename "$f")
	make_seeds "$name" "$FUZZ_CACHE/$name/seeds"
	fuzz_target "$name" "$secs" "$f" -max_len=65536 -timeout=20 || status=1
done
exit $status
