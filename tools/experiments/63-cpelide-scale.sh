#!/usr/bin/env bash
# CPElide's chiplet scaling through the GPU core (issue 30 item 2,
# docs/cpelide.md "Chiplet scaling through the GPU core"): the 22
# applications of CPElide's Table II on CPElide's configuration
# (--config cpelide) at 4, 7, 8 and 16 chiplets under each policy
# (baseline, cpelide, hmg, ideal). 4 is the paper's headline, 7 the largest
# it simulates (§V-C); 8 and 16 its §VI scaling study, which the paper
# imitates on 4 chiplets by serializing 2 and 4 sets of acquires and
# releases a boundary; the core runs 8 and 16 chiplets directly (strong
# scaling: the same program over more chiplets). One job an application;
# and at 4 chiplets, the headline's, one more job an application at the
# paper's input (Table II, --large; each job 2-165 s of CPU).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

CHIPLETS="4 7 8 16"
POLICIES="baseline cpelide hmg ideal"

# Each application and its size here: between make check's small size and
# the paper's (--large), chosen so that all sixteen runs of a job take about
# 10 s of CPU (the large sizes take 1-29 s a run; make run's budget).
sizes() {
	cat <<-'EOS'
	babelstream 32768
	backprop 32768
	bfs 14
	btree 200000
	cnn 64
	color 213
	dwt2d 512
	fw 128
	gauss 128
	hacc 8192
	hotspot 256
	hotspot3d 128
	lud 256
	lulesh 6
	nw 1024
	path 32768
	pennant 64
	rnn-gru 256
	rnn-lstm 256
	square 131072
	srad 256
	sssp 11
	EOS
}

list_jobs() {
	local a s
	while read -r a s; do emit "scale-$a" "$a" "$s"; done < <(sizes)
	while read -r a s; do emit "paper-$a" "$a"; done < <(sizes)
}

run_job() {
	local a=$2 s=${3:-} n m
	mkdir -p "$JOB_OUT"
	case "$1" in
	paper-*)
		# Table II's input: 4 chiplets, every policy.
		"$tool" workload gen "$a" --large -o "$a.prog"
		"$tool" workload list --json | python3 -c \
			'import json, sys; print(next(x["large_size"] for x in json.load(sys.stdin)["apps"] if x["name"] == sys.argv[1]))' \
			"$a" >"$JOB_OUT/$a-paper.size"
		for m in $POLICIES; do
			"$tool" run --host --json --config cpelide --chiplets 4 \
				--cpelide "$m" "$a.prog" >"$JOB_OUT/$a-paper-$m.json"
		done
		return ;;
	esac
	"$tool" workload gen "$a" --size "$s" -o "$a.prog"
	echo "$a $s" >"$JOB_OUT/$a-size.txt"
	for n in $CHIPLETS; do
		for m in $POLICIES; do
			"$tool" run --host --json --config cpelide --chiplets "$n" \
				--cpelide "$m" "$a.prog" >"$JOB_OUT/$a-$n-$m.json"
		done
	done
}

reduce() {
	python3 "$(dirname "$0")/cpelide_scale_report.py" "$1" "$2"
}

dispatch "$@"
