#!/usr/bin/env bash
# F-Barre: the ten workload proxies at 4 chiplets replayed through the
# device as Barre and as F-Barre (--mode fbarre --merge 2), a few proxies a
# guest boot, each checked against the host core's JSON; then on the host
# core (equal to the device by that check), one job a proxy: scheduling
# alone, F-Barre with merge 1/2/4, filter rows 256/512/1024, 10 % of filter
# messages lost, and 2/8 chiplets.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

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

list_jobs() {
	local workloads c
	workloads=$("$tool" barre gen --list | awk '{print $1}')
	emit classes
	# shellcheck disable=SC2086
	chunks 5 $workloads | while read -r c; do emit "$(chunk_job $c)" $c; done
	for w in $workloads; do emit "host-$w" "$w"; done
}

run_job() {
	local job=$1 w n name opts
	shift
	mkdir -p trace "$JOB_OUT/device" "$JOB_OUT/host"
	case "$job" in
	classes)
		"$tool" barre gen --list >"$JOB_OUT/classes.txt" ;;
	guest-*)
		local traces=()
		for w in "$@"; do
			"$tool" barre gen "$w" --chiplets 4 -o "trace/$w-4.trace"
			traces+=("trace/$w-4.trace")
		done
		guest_replays --timeout 1800 -- "${traces[@]}" <<-'EOF'
			%-barre.json barre replay --json --mode barre
			%-merge2.json barre replay --json --mode fbarre --merge 2
		EOF
		;;
	host-*)
		w=$1
		for n in 2 4 8; do
			"$tool" barre gen "$w" --chiplets "$n" -o "trace/$w-$n.trace"
		done
		configs | while read -r name n opts; do
			# shellcheck disable=SC2086
			"$tool" barre replay --host --json --chiplets "$n" $opts \
				"trace/$w-$n.trace" >"$JOB_OUT/host/$w-$n-$name.json"
		done ;;
	*) echo "fbarre: no job '$job'" >&2; return 2 ;;
	esac
}

reduce() {
	python3 "$top/tools/experiments/fbarre_report.py" "$1" "$2"
}

dispatch "$@"
