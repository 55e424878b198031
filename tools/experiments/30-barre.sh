#!/usr/bin/env bash
# Barre: the ten workload proxies (docs/barre.md) at 4
# chiplets replayed through the device (chiplet TLBs, ATS to
# barre_iommu.ko, shadow walk on) with Barre off and on, a few proxies a
# guest boot; the same replays on the host core must give the same JSON.
# The sweeps (walkers 8/16/32, chiplets 2/4/8, mapping policies, pool
# fragmentation) run on the host core, which the device equals, one job a
# proxy.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

list_jobs() {
	local workloads c
	workloads=$("$tool" barre gen --list | awk '{print $1}')
	emit classes
	# shellcheck disable=SC2086
	chunks 5 $workloads | while read -r c; do emit "$(chunk_job $c)" $c; done
	for w in $workloads; do emit "host-$w" "$w"; done
}

# TRACE BARRE WALKERS CHIPLETS FRAGMENT VRAM: one host replay.
host_replay() {
	"$tool" barre replay --host --json --shadow --barre "$2" --walkers "$3" \
		--chiplets "$4" --fragment "$5" --vram-per-chiplet "$6" \
		"trace/$1.trace" >"$JOB_OUT/host/$1-$2-w$3-f$5-$6.json"
}

run_job() {
	local job=$1 w n b k p f
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
			%-off.json barre replay --json --shadow --barre off
			%-on.json barre replay --json --shadow --barre on
		EOF
		;;
	host-*)
		w=$1
		for n in 2 4 8; do
			"$tool" barre gen "$w" --chiplets "$n" -o "trace/$w-$n.trace"
		done
		# Fig 26's mappings: the same accesses, every object placed by one policy.
		for p in rr kwc; do
			sed -E "s/policy=(chunk g=[0-9]+|rr)/policy=$p/" "trace/$w-4.trace" \
				>"trace/$w-4-$p.trace"
		done
		for b in off on; do
			host_replay "$w-4" $b 16 4 0 64M
			for k in 8 32; do host_replay "$w-4" $b $k 4 0 64M; done
			for n in 2 8; do host_replay "$w-$n" $b 16 $n 0 64M; done
			for p in rr kwc; do host_replay "$w-4-$p" $b 16 4 0 64M; done
		done
		# Fragmentation runs use 1 GiB pools, so that 90 % taken still leaves room.
		for f in 0 25 50 75 90; do host_replay "$w-4" on 16 4 $f 1G; done ;;
	*) echo "barre: no job '$job'" >&2; return 2 ;;
	esac
}

reduce() {
	python3 "$top/tools/experiments/barre_report.py" "$1" "$2"
}

dispatch "$@"
