#!/usr/bin/env bash
# CPElide's multi-stream result through the GPU core (issue 30 item 2,
# CPElide §VI; docs/cpelide.md "Multi-stream in the core"): CPElide over
# HMG (the paper: +12 % on average) on `streams`, gem5-resources' one
# multi-stream benchmark (src/gpu/hip-samples/src/stream.cpp: two 32 x 32
# matrix transposes, each on its own stream; ours: two of our transposes,
# at its 32 and scaled to 1024), and on
# applications of Table II extended to parallel streams to mimic
# concurrent jobs (two copies of the application, one a stream, merged by
# `mcmgpu workload streams`). Each runs with `--streams 2` (stream i on
# chiplets {2(i-1), 2(i-1)+1}) under baseline, CPElide, HMG and ideal on
# CPElide's configuration (4 chiplets), and under baseline, CPElide and
# HMG with the streams one after another (streams off) for the
# single-stream comparison of the same work (the paper: with streams the
# baseline's synchronization costs more). One job an application.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

POLICIES="baseline cpelide hmg ideal"
SERIAL="baseline cpelide hmg"

# NAME APP SIZE: the paper does not name its subset of Table II; ours
# spans its classes (iterative and uniform: babelstream, square; stencils:
# hotspot3d, srad; tiles: lud; producer-consumer: rnn-gru; irregular,
# little reuse: bfs) at the sizes 63-cpelide-scale.sh uses, each job a few
# seconds of CPU (make run's budget).
apps() {
	cat <<-'EOS'
	streams transpose 32
	streams-1024 transpose 1024
	babelstream babelstream 32768
	square square 131072
	hotspot3d hotspot3d 128
	srad srad 256
	lud lud 256
	rnn-gru rnn-gru 256
	bfs bfs 14
	EOS
}

list_jobs() {
	local n a s
	while read -r n a s; do emit "streams-$n" "$n" "$a" "$s"; done < <(apps)
}

run_job() {
	local n=$2 a=$3 s=$4 m
	mkdir -p "$JOB_OUT"
	"$tool" workload gen "$a" --size "$s" -o "$a.prog"
	"$tool" workload streams "$a.prog" "$a.prog" -o "$n-2.prog"
	echo "$n $a $s 2" >"$JOB_OUT/$n-size.txt"
	for m in $POLICIES; do
		"$tool" run --host --json --config cpelide --cpelide "$m" \
			--streams 2 "$n-2.prog" >"$JOB_OUT/$n-$m.json"
	done
	for m in $SERIAL; do
		"$tool" run --host --json --config cpelide --cpelide "$m" \
			"$n-2.prog" >"$JOB_OUT/$n-serial-$m.json"
	done
}

reduce() {
	python3 "$(dirname "$0")/cpelide_streams_report.py" "$1" "$2"
}

dispatch "$@"
