#!/usr/bin/env bash
# Barre Chord Fig 22 (§VII-G, notes/barre.md §2.8): Barre Chord
# (F-Barre-2Merge) with ACUD page migration [7] (migrate=acud, threshold
# 16) against ACUD alone (Barre off), through the GPU timing core on
# Barre's configuration (docs/gpu.md, Migration (ACUD) in the core). Per
# application of Table I at its small size (make run's budget): Barre off
# and Barre Chord without migration, both with ACUD, and Barre Chord with
# ACUD but no coalescing-aware walker scheduling (fbarre_sched_moves=0),
# which shows where the difference comes from. One job a few applications.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

tables=$top/tools/experiments/paper_tables.py

list_jobs() {
	local have apps=() a
	have=$("$tool" workload list --json | python3 -c \
		'import json, sys; print(" ".join(a["name"] for a in json.load(sys.stdin)["apps"]))')
	for a in $(python3 -c 'import sys; sys.path.insert(0, sys.argv[1]); from paper_tables import BARRE_TABLE1; print(" ".join(BARRE_TABLE1))' "$(dirname "$tables")"); do
		case " $have " in *" $a "*) apps+=("$a") ;; esac
	done
	# Four applications a job: each takes well under a second.
	printf '%s\n' "${apps[@]}" | xargs -n 4 echo | while read -r group; do
		# shellcheck disable=SC2086  # the group's words are the arguments
		emit "host-${group%% *}" $group
	done
}

run_job() {
	local a
	shift
	mkdir -p "$JOB_OUT"
	for a in "$@"; do
		"$tool" workload gen "$a" -o "$a.prog"
		"$tool" run --host --json --config barre --barre off "$a.prog" \
			>"$JOB_OUT/$a-off.json"
		"$tool" run --host --json --config barre --barre fbarre --merge 2 \
			"$a.prog" >"$JOB_OUT/$a-fbarre.json"
		"$tool" run --host --json --config barre --barre off \
			--set migrate=acud "$a.prog" >"$JOB_OUT/$a-acud.json"
		"$tool" run --host --json --config barre --barre fbarre --merge 2 \
			--set migrate=acud "$a.prog" >"$JOB_OUT/$a-fbarre-acud.json"
		"$tool" run --host --json --config barre --barre fbarre --merge 2 \
			--set migrate=acud --set fbarre_sched_moves=0 "$a.prog" \
			>"$JOB_OUT/$a-fbarre-nosched-acud.json"
	done
}

reduce() {
	python3 "$(dirname "$0")/barre_migrate_report.py" "$1" "$2"
}

dispatch "$@"
