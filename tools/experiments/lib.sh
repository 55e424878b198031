# shellcheck shell=bash
# Sourced by every tools/experiments/NN-NAME.sh. An experiment is three
# functions and this file's dispatch:
#   list_jobs              print the job list (emit JOB ARG... per job)
#   run_job JOB ARG...     one job: runs in a scratch directory, writes its
#                          results under $JOB_OUT (tools/scripts/run-job keeps
#                          them as results/raw/NAME/JOB.json)
#   reduce RAW RESULTS     the report section from RAW (the jobs' files,
#                          unpacked by the runners) alone
# Jobs whose name starts with 'guest-' boot a guest; the runners start them
# first because they are the long ones.
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)
# shellcheck disable=SC2034  # the experiment scripts' tool
tool=$top/build/tools/mcmgpu
exp_script=$(realpath "$0")
exp_script=${exp_script#"$top"/}

emit() {
	printf 'tools/scripts/run-job %s' "$exp_script"
	printf ' %q' "$@"
	printf '\n'
}

# Words N at a time, one group a line: the replays one guest boot runs.
# MCMGPU_GUEST_CHUNK overrides N for every experiment.
chunks() {
	local n=${MCMGPU_GUEST_CHUNK:-$1}
	shift
	printf '%s\n' "$@" | xargs -n "$n" echo
}

dispatch() {
	case "${1:-}" in
	jobs) list_jobs ;;
	job) shift; run_job "$@" ;;
	reduce) reduce "$2" "$3" ;;
	*)
		echo "usage: $exp_script jobs | job JOB [ARG...] | reduce RAW RESULTS" >&2
		echo "(make run and tools/scripts/run-experiments.sh run experiments)" >&2
		exit 2 ;;
	esac
}

# Boots one guest that replays every INPUT (a file or a name) once per line
# of stdin, 'OUT ARG...': runs 'mcmgpu ARG... INPUT' into $JOB_OUT/device/OUT,
# where a % in OUT stands for INPUT's name without directory and extension.
# The options before -- are vm-run's (--mem, --timeout, --prop ...).
#   guest_replays [VM_RUN_OPTION...] -- INPUT... <<EOF
#   %-on.json barre replay --json --barre on
#   EOF
guest_replays() {
	local vm=() replays
	while [ "$1" != -- ]; do
		vm+=("$1")
		shift
	done
	shift
	replays=$(cat)
	# shellcheck disable=SC2016  # the script expands in the guest
	"$top/tools/vm-run" --no-build "${vm[@]}" --out "$JOB_OUT" -- sh -c '
		out=$1/device replays=$2
		shift 2
		mkdir -p "$out"
		for input in "$@"; do
			name=${input##*/}
			name=${name%.*}
			echo "$replays" | while read -r file args; do
				mcmgpu $args "$input" >"$out/${file%%\%*}$name${file#*\%}" || exit 1
			done || exit 1
			echo "replayed $name"
		done' sh "$JOB_OUT" "$replays" "$@" </dev/null
}

# The name of the guest job that replays the workloads given.
chunk_job() {
	local first=$1 last=${!#}
	if [ "$first" = "$last" ]; then echo "guest-$first"; else echo "guest-$first-to-$last"; fi
}

# Drop wall-clock fields (KEY... at any depth) from every JSON file under
# DIR: a result must not depend on how busy the machine was (make bench
# measures time).
drop_wall_clock() {
	local dir=$1
	shift
	python3 - "$dir" "$@" <<'PY'
import json, os, sys
top, keys = sys.argv[1], set(sys.argv[2:])
def strip(x):
    if isinstance(x, dict):
        return {k: strip(v) for k, v in x.items() if k not in keys}
    if isinstance(x, list):
        return [strip(v) for v in x]
    return x
for root, _, names in os.walk(top):
    for n in names:
        if n.endswith(".json"):
            p = os.path.join(root, n)
            d = strip(json.load(open(p)))
            with open(p, "w") as f:
                json.dump(d, f, indent=1)
                f.write("\n")
PY
}
