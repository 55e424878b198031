#!/usr/bin/env bash
# CXL-GPU's Figs 9b-9e through the GPU core (issue 30 item 2,
# docs/cxl.md "Figs 9b-9e through the GPU core"): the paper's workloads
# (its workload table) as programs on `--config cxl`, every object in CXL
# memory behind the root complex (cxl_srds.c, event by event). One job an
# application:
#   9b  every workload on Z-NAND: GPU-DRAM, CXL (no SR), CXL-SR, CXL-DS;
#   9c  vadd, path, bfs: the same on Optane and NAND;
#   9d  Seq (vadd, saxpy), Around (sort, gauss), Rand (path, bfs) on Z-NAND
#       with SR's ablations NAIVE, DYN and always-max;
# and one job for 9e: bfs at its large size (the size whose write-backs
# start garbage collection) on Z-NAND, CXL-SR against CXL-DS, and CXL-SR
# without garbage collection, each sampled every 100000 cycles (100 us,
# `--timeline`) for the paper's time series.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

# Application, size, and whether its blocks need 16 warps (w16): the
# preset's 8 warps a core are ours (gpu_config.c: Table 10(a)'s 8 threads
# are a core's lanes), and bfs, gauss and mri launch blocks of 16 warps,
# so they run with 16 warps a core and the registers for them (docs/cxl.md,
# Differences). Sizes: each job a few seconds, make run's budget; the
# footprints are 0.06-12 MiB, and stencil, sort, gemm, gauss and mri fit
# in the preset's 1 MiB LLC (the paper's inputs are 10x GPU memory;
# mcmgpu workload stats).
sizes() {
	cat <<-'EOF'
		rsum 1048576 -
		stencil 32 -
		sort 65536 -
		gemm 256 -
		vadd 1048576 -
		saxpy 1048576 -
		conv3 64 -
		path 25000 -
		cfd 9984 -
		gauss 128 w16
		bfs 15 w16
		gnn 12 -
		mri 4096 w16
	EOF
}

W16=(--set warps_per_sm=16 --set regs_per_sm=32768)

list_jobs() {
	local a s w
	while read -r a s w; do emit "cxl-$a" "$a" "$s" "$w"; done < <(sizes)
	emit fig9e-bfs
}

# run NAME SPEC: one run of prog.prog into $JOB_OUT/APP-NAME.json.
run() {
	"$tool" run --host --json --config cxl "${extra[@]}" --cxl "$2" prog.prog \
		>"$JOB_OUT/$app-$1.json"
}

run_job() {
	local job=$1 m
	mkdir -p "$JOB_OUT"
	extra=()
	case "$job" in
	fig9e-bfs)
		# bfs's large size (scale 17): its write-backs program enough
		# pages to start the Z-NAND endpoints' garbage collection.
		# --timeline: the root complex sampled every 100 us (Fig 9e's
		# time series); it changes no cycle.
		app=bfs9e
		extra=("${W16[@]}" --timeline 100000)
		"$tool" workload gen bfs --large -o prog.prog
		run sr znand
		run ds znand:ds=on
		run sr-nogc znand:gc=off
		return ;;
	esac
	app=$2
	[ "$4" = w16 ] && extra=("${W16[@]}")
	"$tool" workload gen "$app" --size "$3" -o prog.prog
	# Fig 9b: GPU-DRAM, CXL, CXL-SR, CXL-DS on Z-NAND.
	run off off
	for m in sr=off sr=sr ds=on; do run "znand-${m//=/-}" "znand:$m"; done
	case "$app" in
	vadd|path|bfs)
		# Fig 9c: the media.
		for med in optane nand; do
			for m in sr=off sr=sr ds=on; do
				run "$med-${m//=/-}" "$med:$m"
			done
		done ;;
	esac
	case "$app" in
	vadd|saxpy|sort|gauss|path|bfs)
		# Fig 9d: SR's ablation.
		for m in naive dyn max; do run "znand-sr-$m" "znand:sr=$m"; done ;;
	esac
}

reduce() {
	python3 "$(dirname "$0")/cxl_core_report.py" "$1" "$2"
}

dispatch "$@"
