#!/usr/bin/env bash
# Barre Chord's Figs 16, 17, 18, 20, 23 and 26 through the GPU core
# (issue 30 item 2; docs/barre.md "Figures through the GPU core"): on the
# barre preset (Table II; kwc placement for LASP), Barre off, Barre, Barre
# with F-Barre's walker scheduling, Least and F-Barre's variants at the
# default point (4 chiplets, 16 walkers, 256-row filters), then F-Barre
# against Least over chiplets 2/8/16, walkers 8/32 and round-robin pages.
# All 19 of Table I's applications, at sizes that keep the experiment
# within its CPU share of make run. One job an application.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

# Application and size: gpu-sizes.txt's, smaller where a job's 19 runs
# would take more than about 30 s of CPU there (gups at 1048576 takes
# 14-21 s a run, docs/gpu.md; at 2048 atax's job took 99 s, one F-Barre
# run of bicg 20 s and of gesummv 60 s). The 19 jobs: 241 s of CPU
# before the 16-chiplet pair, which adds about 86 s.
APPS="gemver:1024 correlation:128 adi:256 fft:1024 pagerank:11
fastwalshtransform:262144 covariance:128 sssp:12 jacobi2d:256 fdtd2d:64
lu:256 nw:1024 atax:1024 stencil2d:512 transpose:2048 gups:262144
bicg:1024 spmv:16384 gesummv:1024"

list_jobs() {
	local as
	for as in $APPS; do emit "core-${as%%:*}" "${as%%:*}" "${as#*:}"; done
}

# One run: OUT NAME, then mcmgpu run's options.
one() {
	local out=$1
	shift
	"$tool" run --host --json --shadow "$@" prog >"$JOB_OUT/$a-$out.json"
}

run_job() {
	local a=$2 s=$3 t0 c w
	mkdir -p "$JOB_OUT"
	t0=$(date +%s%N)
	"$tool" workload gen "$a" --size "$s" -o prog
	# The default point: Figs 16, 17 and 18.
	one off --barre off
	one on --barre on
	one least --barre least
	one sched --barre on --set barre_sched=1
	one fb1 --barre fbarre
	one fb1-nosched --barre fbarre --set fbarre_sched_moves=0
	one fb2 --barre fbarre --merge 2
	one fb2-r512 --barre fbarre --merge 2 --set fbarre_filter_rows=512
	one fb2-r1024 --barre fbarre --merge 2 --set fbarre_filter_rows=1024
	# Fig 20: chiplets (group expansion stops at 4 chiplets, §VI; at 16
	# coal_bitmap is a count of consecutive chiplets, docs/barre.md).
	for c in 2 8 16; do
		one "least-c$c" --barre least --chiplets "$c"
		if [ "$c" -le 4 ]; then
			one "fb-c$c" --barre fbarre --merge 2 --chiplets "$c"
		else
			one "fb-c$c" --barre fbarre --chiplets "$c"
		fi
	done
	# Fig 23: walkers.
	for w in 8 32; do
		one "least-w$w" --barre least --set walkers="$w"
		one "fb-w$w" --barre fbarre --merge 2 --set walkers="$w"
	done
	# Fig 26: page round-robin instead of kernel-wide chunking.
	one least-rr --barre least --set placement=rr
	one fb-rr --barre fbarre --merge 2 --set placement=rr
	echo "$(( ($(date +%s%N) - t0) / 1000000 ))" >"$JOB_OUT/$a-ms.txt"
}

reduce() {
	python3 "$(dirname "$0")/barre_core_report.py" "$1" "$2"
}

dispatch "$@"
