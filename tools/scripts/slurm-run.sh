#!/usr/bin/env bash
# The experiments' job lists on a Slurm cluster: one array task per job (or
# per chunk of jobs), then the same reducers as make run. See --help.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd -P)
results=$(realpath -m "${MCMGPU_RESULTS:-$top/results}")
. "$top/tools/scripts/runner-lib.sh"

usage() {
	cat <<'USAGE'
usage: tools/scripts/slurm-run.sh [options] [-- SBATCH_OPTION...]

Builds (make guest), writes the same job lists as make run, submits the jobs
without a result as one job array (tools/scripts/slurm-task.sh: a task runs
CHUNK lines of the list), waits for it with a progress line, then runs the
reducers and writes results/report.md, exactly as the local runner does.
The repository, its build and the QEMU cache (~/.cache/mcmgpu, or
MCMGPU_CACHE) must be on a file system every node sees, at the same path;
results go to results/ (or MCMGPU_RESULTS), also shared. Every node also
needs what tools/vm-run takes from the system: the guest kernel
/boot/vmlinuz-VERSION (tools/scripts/kver.sh), /usr/share/seabios and
/usr/share/qemu, the same Debian versions as the submitting machine
(tools/scripts/install-deps.sh on each node). Rerunning it submits only the
jobs that still have no result; it refuses while an earlier array runs.

options:
  --only LIST     only these experiments (comma separated), as make run JOBS=
  --traces DIR    the traces experiment's traces, as make run TRACES=
  --chunk K       jobs per array task (default 1; more amortizes start-up;
                  a task takes every T-th job of the longest-first list)
  --fresh         forget the selected experiments' earlier results
  --no-wait       submit, plus a reduce job that runs after the array
                  (sbatch --dependency=afterany), and return
  --no-build      do not run 'make guest' first
  --timeout SECS  give up waiting after SECS seconds: cancel the array
                  (scancel) and exit 1 (default: wait as long as it takes)
  -h, --help      this text

Anything after -- goes to sbatch, e.g. -- --partition=gpu --time=1:00:00.
Task logs: results/logs/slurm/ARRAYID_TASK.out; each job's own log is
results/logs/EXP/JOB.log. Exit status 1 if a job has no result.
USAGE
}

only="" chunk=1 wait=1 build=1 timeout=0 traces=""
extra=()
while [ $# -gt 0 ]; do
	case "$1" in
	--only) only=${2?--only needs a list}; shift 2 ;;
	--only=*) only=${1#*=}; shift ;;
	--traces) traces=${2?--traces needs a directory}; shift 2 ;;
	--traces=*) traces=${1#*=}; shift ;;
	--chunk) chunk=${2:?--chunk needs a number}; shift 2 ;;
	--chunk=*) chunk=${1#*=}; shift ;;
	--fresh) export FRESH=1; shift ;;
	--no-wait) wait=0; shift ;;
	--no-build) build=0; shift ;;
	--timeout) timeout=${2:?--timeout needs seconds}; shift 2 ;;
	--timeout=*) timeout=${1#*=}; shift ;;
	-h|--help) usage; exit 0 ;;
	--) shift; extra=("$@"); break ;;
	*) echo "slurm-run: unknown option '$1' (see --help)" >&2; exit 2 ;;
	esac
done
case "$chunk" in
''|*[!0-9]*|0) echo "slurm-run: --chunk must be a positive number, got '$chunk'" >&2; exit 2 ;;
esac
case "$timeout" in
''|*[!0-9]*) echo "slurm-run: --timeout must be seconds, got '$timeout'" >&2; exit 2 ;;
esac
command -v sbatch >/dev/null ||
	{ echo "slurm-run: sbatch not found (tools/scripts/slurm-localhost.sh sets up a one-node cluster)" >&2; exit 1; }

if [ -n "$traces" ]; then
	use_traces slurm-run "$traces" || exit 2
fi
exps=$(select_experiments "$only") || exit 2
# shellcheck disable=SC2086
set -- $exps
cd "$top" || exit 1
if [ "$build" = 1 ]; then
	make -s guest >&2 || { echo "slurm-run: make guest failed" >&2; exit 1; }
fi
# A second array on the same results would race the first (and a new
# build would wipe what the first still writes).
if [ -n "$(squeue -h -u "$(id -un)" -n mcmgpu-run -o %i 2>/dev/null)" ]; then
	echo "slurm-run: an mcmgpu-run array is still queued or running (squeue -n mcmgpu-run);" \
		"wait for it or scancel it first" >&2
	exit 1
fi
prepare_jobs "$@" || exit 1
mkdir -p "$results/logs/slurm"
pending=$results/jobs/slurm-$(date +%Y%m%d-%H%M%S)-$$.jobs
missing_jobs "$results/jobs/run.jobs" >"$pending.names"
# The lines of run.jobs whose job has no result, in run.jobs' order.
python3 - "$results/jobs/run.jobs" "$pending.names" "$top/tools/scripts" >"$pending" <<'PY'
import sys
sys.path.insert(0, sys.argv[3])
from job_results import job_name
want = set(open(sys.argv[2]).read().split())
for line in open(sys.argv[1]):
    if line.strip() and job_name(line) in want:
        print(line, end="")
PY
rm -f "$pending.names"
n=$(grep -c . "$pending")
total=$(grep -c . "$results/jobs/run.jobs")
reduce_cmd=(bash tools/scripts/run-experiments.sh --reduce-only ${only:+--only "$only"})

if [ "$n" -eq 0 ]; then
	echo "all $total jobs have results; reducing"
	rm -f "$pending"
	"${reduce_cmd[@]}"
	exit
fi
tasks=$(( (n + chunk - 1) / chunk ))
array=$(sbatch --parsable --chdir="$top" --array="1-$tasks" --comment="$results" \
	--output="$results/logs/slurm/%A_%a.out" \
	--time=$((30 * chunk + 30)) \
	--export="ALL,MCMGPU_RESULTS=$results" "${extra[@]}" \
	tools/scripts/slurm-task.sh "$pending" "$tasks") ||
	{ echo "slurm-run: sbatch failed" >&2; exit 1; }
array=${array%%;*}
echo "submitted job array $array: $n of $total jobs in $tasks task(s), up to $chunk a task"

if [ "$wait" = 0 ]; then
	red=$(sbatch --parsable --chdir="$top" --dependency="afterany:$array" \
		--job-name=mcmgpu-reduce --output="$results/logs/slurm/%j-reduce.out" \
		--export="ALL,MCMGPU_RESULTS=$results" "${extra[@]}" \
		--wrap "$(printf '%q ' "${reduce_cmd[@]}")") ||
		{ echo "slurm-run: submitting the reduce job failed" >&2; exit 1; }
	echo "submitted reduce job ${red%%;*} (after the array); the report will be $results/report.md"
	exit 0
fi

start=$(date +%s) last=""
while :; do
	if [ "$timeout" -gt 0 ] && [ $(( $(date +%s) - start )) -ge "$timeout" ]; then
		scancel "$array" 2>/dev/null
		echo "slurm-run: array $array not done after $timeout s; cancelled" \
			"(squeue -j $array; a down or drained node never starts tasks)" >&2
		rm -f "$pending"
		exit 1
	fi
	# A failed squeue (a busy controller) is not an empty queue.
	if ! q=$(squeue -h -r -j "$array" -o %i 2>/dev/null); then
		sleep 5
		continue
	fi
	left=$(printf '%s' "$q" | grep -c .)
	have=$((total - $(missing_jobs "$results/jobs/run.jobs" | wc -l)))
	line="$have/$total jobs have results, $left task(s) queued or running"
	if [ "$line" != "$last" ]; then
		echo "[$(date -u +%H:%M:%S), $(( $(date +%s) - start )) s] $line"
		last=$line
	fi
	[ "$left" -eq 0 ] && break
	sleep 5
done

rc=0
failed=$(missing_jobs "$results/jobs/run.jobs")
if [ -n "$failed" ]; then
	rc=1
	echo "$(echo "$failed" | wc -l) job(s) have no result:"
	for f in $failed; do
		echo "  $f   (log: $results/logs/$f.log)"
		[ -f "$results/logs/$f.log" ] && tail -n 8 "$results/logs/$f.log" | sed 's/^/      /'
	done
	echo "task logs: $results/logs/slurm/${array}_*.out"
fi
rm -f "$pending"
"${reduce_cmd[@]}" || rc=1
exit "$rc"
