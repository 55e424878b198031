#!/usr/bin/env bash
# CPElide: the 24 workload sequences replayed through the device's global
# command processor at 4 chiplets (a few sequences a guest boot) under
# baseline, cpelide, ideal and hmg with the paper's remote-data policy, and
# baseline and cpelide with remote data cached (the first pass's model);
# the chiplet sweep 2/6/7 under baseline, cpelide and hmg on the same core
# on the host (identical counters to the device:
# selftests/mcmgpu/cpelide_test.c), one job a workload.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

list_jobs() {
	local workloads c
	workloads=$("$tool" cpelide gen --list | awk '{print $1}')
	emit classes
	# shellcheck disable=SC2086
	chunks 6 $workloads | while read -r c; do emit "$(chunk_job $c)" $c; done
	for w in $workloads; do emit "host-$w" "$w"; done
}

run_job() {
	local job=$1 w n p
	shift
	mkdir -p seq "$JOB_OUT/device" "$JOB_OUT/host"
	case "$job" in
	classes)
		"$tool" cpelide gen --list >"$JOB_OUT/classes.txt" ;;
	guest-*)
		local seqs=()
		for w in "$@"; do
			"$tool" cpelide gen "$w" --chiplets 4 -o "seq/$w.seq"
			seqs+=("seq/$w.seq")
		done
		guest_replays -- "${seqs[@]}" <<-'EOF'
			%-baseline.json cpelide replay --json --policy baseline
			%-cpelide.json cpelide replay --json --policy cpelide
			%-ideal.json cpelide replay --json --policy ideal
			%-hmg.json cpelide replay --json --policy hmg
			%-baseline-cache.json cpelide replay --json --policy baseline --remote cache
			%-cpelide-cache.json cpelide replay --json --policy cpelide --remote cache
		EOF
		;;
	host-*)
		w=$1
		for n in 2 6 7; do
			"$tool" cpelide gen "$w" --chiplets "$n" -o "seq/$w-$n.seq"
			for p in baseline cpelide hmg; do
				"$tool" cpelide replay --host --json --chiplets "$n" --policy "$p" \
					"seq/$w-$n.seq" >"$JOB_OUT/host/$w-$n-$p.json"
			done
		done ;;
	*) echo "cpelide: no job '$job'" >&2; return 2 ;;
	esac
}

reduce() {
	python3 "$top/tools/experiments/cpelide_report.py" "$1" "$2"
}

dispatch "$@"
