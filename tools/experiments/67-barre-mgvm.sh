#!/usr/bin/env bash
# Barre Chord Fig 21 (§VII-F, notes/barre.md §4.3): Barre Chord
# (F-Barre-2Merge) on MGvm [41] against MGvm alone, through the GPU timing
# core on Barre's configuration with a GMMU a chiplet (--set mgvm=on;
# docs/gpu.md, MGvm in the core): speedup and remote page-walk accesses
# (PTE reads of a table on another chiplet). Also the IOMMU baseline
# (Barre off, no GMMU) for MGvm's own effect, and both MGvm runs with 4
# walkers a GMMU (the IOMMU's 16 split over the chiplets) beside the
# default 16 a GMMU, since Barre Chord gives no GMMU configuration. Every
# application of Table I at 62-barre-core.sh's sizes; one job an
# application.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

# 62-barre-core.sh's application sizes (its comment says why).
APPS="gemver:1024 correlation:128 adi:256 fft:1024 pagerank:11
fastwalshtransform:262144 covariance:128 sssp:12 jacobi2d:256 fdtd2d:64
lu:256 nw:1024 atax:1024 stencil2d:512 transpose:2048 gups:262144
bicg:1024 spmv:16384 gesummv:1024"

list_jobs() {
	local as
	for as in $APPS; do emit "mgvm-${as%%:*}" "${as%%:*}" "${as#*:}"; done
}

# One run: OUT NAME, then mcmgpu run's options.
one() {
	local out=$1
	shift
	"$tool" run --host --json --shadow "$@" prog >"$JOB_OUT/$a-$out.json"
}

run_job() {
	local a=$2 s=$3 t0
	mkdir -p "$JOB_OUT"
	t0=$(date +%s%N)
	"$tool" workload gen "$a" --size "$s" -o prog
	one iommu --barre off
	one mgvm --barre off --set mgvm=on
	one mgvm-bc --barre fbarre --merge 2 --set mgvm=on
	# Sensitivity: the IOMMU's 16 walkers split over the 4 GMMUs.
	one mgvm-w4 --barre off --set mgvm=on --set walkers=4
	one mgvm-bc-w4 --barre fbarre --merge 2 --set mgvm=on --set walkers=4
	echo "$(( ($(date +%s%N) - t0) / 1000000 ))" >"$JOB_OUT/$a-ms.txt"
}

reduce() {
	python3 "$(dirname "$0")/barre_mgvm_report.py" "$1" "$2"
}

dispatch "$@"
