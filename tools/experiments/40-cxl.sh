#!/usr/bin/env bash
# CXL-GPU: the six workload traces (docs/cxl.md) replayed
# through the root ports' queue logic and the endpoints: on the device (a
# guest with Z-NAND endpoints, the layout gpu_rc.ko commits at probe; a few
# traces a guest boot) for SR off/on and DS, which must equal the host
# core's replays; the sweeps (SR ablation, media, DS, controller latency,
# DRAM endpoint vs local) on the host core, one job a trace.
# CXL_RECORDS (default 300000) sets the traces' length.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

records=${CXL_RECORDS:-300000}
# name, then the replay's options
configs=(
	"dram-local|--media dram --local"
	"dram|--media dram"
	"dram-250|--media dram --ctrl-ns 250"
	"znand-off|--sr off"
	"znand-naive|--sr naive"
	"znand-dyn|--sr dyn"
	"znand-sr|--sr sr"
	"znand-max|--sr max"
	"znand-sr-ds|--sr sr --ds"
	"znand-off-ds|--sr off --ds"
	"optane-off|--media optane --sr off"
	"optane-sr|--media optane --sr sr"
	"nand-off|--media nand --sr off"
	"nand-sr|--media nand --sr sr"
)

list_jobs() {
	local workloads c
	workloads=$("$tool" cxl gen --list | awk '{print $1}')
	emit workloads
	# shellcheck disable=SC2086
	chunks 3 $workloads | while read -r c; do emit "$(chunk_job $c)" "$records" $c; done
	for w in $workloads; do emit "host-$w" "$records" "$w"; done
}

run_job() {
	local job=$1 w c
	shift
	mkdir -p trace "$JOB_OUT/device" "$JOB_OUT/host"
	case "$job" in
	workloads)
		"$tool" cxl gen --list >"$JOB_OUT/workloads.txt" ;;
	guest-*)
		local n=$1 traces=()
		shift
		for w in "$@"; do
			"$tool" cxl gen "$w" --records "$n" -o "trace/$w.trace"
			traces+=("trace/$w.trace")
		done
		guest_replays --timeout 1800 --prop cxl-media=znand -- "${traces[@]}" <<-'EOF'
			%-znand-off.json cxl replay --json --sr off
			%-znand-sr.json cxl replay --json --sr sr
			%-znand-sr-ds.json cxl replay --json --sr sr --ds
		EOF
		;;
	host-*)
		w=$2
		"$tool" cxl gen "$w" --records "$1" -o "trace/$w.trace"
		for c in "${configs[@]}"; do
			# shellcheck disable=SC2086
			"$tool" cxl replay --host --json ${c#*|} "trace/$w.trace" \
				>"$JOB_OUT/host/$w-${c%%|*}.json"
		done ;;
	*) echo "cxl: no job '$job'" >&2; return 2 ;;
	esac
}

reduce() {
	python3 "$top/tools/experiments/cxl_report.py" "$1" "$2"
}

dispatch "$@"
