#!/usr/bin/env bash
# make run: every experiment's job list, run by GNU parallel, then the
# reducers and results/report.md. See --help.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd -P)
results=$(realpath -m "${MCMGPU_RESULTS:-$top/results}")
. "$top/tools/scripts/runner-lib.sh"

usage() {
	# The experiments' list, from tools/experiments/NN-NAME.sh.
	local names
	names=$(experiment_names | tr '\n' ' ' | fold -s -w 56 |
		sed 's/ *$//; s/^/                    /')
	cat <<'USAGE' | awk -v names="$names" '$0 == "EXPERIMENTS" { print names; next } { print }'
usage: tools/scripts/run-experiments.sh [options]
       (make run [JOBS=...] [WORKERS=N] [FRESH=1] [TRACES=DIR])

Writes each experiment's job list (results/jobs/NAME.jobs; one line a job,
a self-contained command run from the repository's top directory), runs the
jobs with GNU parallel, then each experiment's reducer builds its report
section from the jobs' JSON (results/raw/NAME/JOB.json) and the sections
make results/report.md.

An interrupted run continues where it stopped: finished jobs keep their
results (parallel's --joblog/--resume-failed and the results themselves),
so only unfinished and failed jobs run again. A new build or a changed job
list starts the experiments it affects afresh.

options:
  -j, --workers N   jobs at a time (default: the cores, at most one per
                    3 GiB of available memory, since a guest job takes 1-2 GiB)
  --only LIST       only these experiments (comma separated):
EXPERIMENTS
  --traces DIR      the traces experiment runs every paper's comparison on
                    DIR's Accel-Sim trace directories (each holding
                    kernelslist.g; or DIR itself) and programs (*.prog,
                    *.txt) instead of its two round-tripped applications;
                    with --only traces (make run JOBS=traces TRACES=DIR)
                    nothing else runs
  --fresh           forget the selected experiments' earlier results
  --list            print the job list and exit
  --reduce-only     rebuild the report from the results there are
  -h, --help        this text

Failed jobs are named at the end with their log's tail; the others' results
stand and the exit status is 1. MCMGPU_RESULTS moves the results directory;
MCMGPU_GUEST_CHUNK sets how many workloads one guest boot replays.
USAGE
}

workers="" only="" list=0 reduce_only=0 traces=""
while [ $# -gt 0 ]; do
	case "$1" in
	-j|--workers) workers=${2:?$1 needs a number}; shift 2 ;;
	-j*) workers=${1#-j}; shift ;;
	--workers=*) workers=${1#*=}; shift ;;
	--only) only=${2?--only needs a list}; shift 2 ;;
	--only=*) only=${1#*=}; shift ;;
	--fresh) export FRESH=1; shift ;;
	--traces) traces=${2?--traces needs a directory}; shift 2 ;;
	--traces=*) traces=${1#*=}; shift ;;
	--list) list=1; shift ;;
	--reduce-only) reduce_only=1; shift ;;
	-h|--help) usage; exit 0 ;;
	*) echo "run-experiments: unknown option '$1' (see --help)" >&2; exit 2 ;;
	esac
done
if [ -z "$workers" ]; then
	mem_gib=$(awk '/^MemAvailable:/ { print int($2 / 1048576) }' /proc/meminfo)
	workers=$(nproc)
	[ $((mem_gib / 3)) -lt "$workers" ] && workers=$((mem_gib / 3))
	[ "$workers" -ge 1 ] || workers=1
fi
case "$workers" in
''|*[!0-9]*|0) echo "run-experiments: --workers must be a positive number, got '$workers'" >&2; exit 2 ;;
esac

if [ -n "$traces" ]; then
	use_traces run-experiments "$traces" || exit 2
fi
exps=$(select_experiments "$only") || exit 2
# shellcheck disable=SC2086
set -- $exps
cd "$top" || exit 1

if [ "$reduce_only" = 1 ]; then
	rc=0
	reduce_experiments "$@" || rc=1
	write_report
	exit "$rc"
fi

command -v parallel >/dev/null ||
	{ echo "run-experiments: GNU parallel is missing (make deps installs it)" >&2; exit 1; }
[ "$list" = 1 ] && export LIST_ONLY=1
# A Slurm array writing to these results would race this run (and lose
# its scratch directories below); slurm-run.sh names them in the comment.
if [ "$list" != 1 ] && command -v squeue >/dev/null &&
   squeue -h -u "$(id -un)" -n mcmgpu-run -o %k 2>/dev/null | grep -qxF "$results"; then
	echo "run-experiments: an mcmgpu-run Slurm array writing to $results is" \
		"queued or running (squeue -n mcmgpu-run); wait for it or scancel it first" >&2
	exit 1
fi
prepare_jobs "$@" || exit 1
jobs=$results/jobs/run.jobs
if [ "$list" = 1 ]; then
	cat "$jobs"
	exit 0
fi

# Scratch directories a killed job could not remove (no job runs now).
rm -rf "$results/tmp"
total=$(grep -c . "$jobs")
pending=$(missing_jobs "$jobs" | wc -l)
echo "$total jobs in $# experiment(s), $((total - pending)) done already;" \
	"running $pending on $workers worker(s)"

# parallel's job log resumes the same list (--resume-failed skips what it
# logged as done); a log that does not match the list and the results (a
# new list, a result deleted by hand) is started anew.
joblog=$results/jobs/joblog
python3 "$top/tools/scripts/job_results.py" joblog-ok "$jobs" "$joblog" "$results" ||
	rm -f "$joblog"

# Interrupted: finished jobs keep their results; no half report.
trap 'echo "interrupted; run it again to continue where it stopped" >&2; exit 130' INT TERM
bar=()
[ -t 2 ] && bar=(--bar)
start=$(date +%s)
clock() { printf '%d:%02d' $(($1 / 60)) $(($1 % 60)); }
# ETA: the expected seconds of the jobs not yet done (earlier runs'
# durations, else a guess) over the workers.
declare -A est
left=0
while read -r name secs; do
	est[$name]=$secs
done < <(python3 "$top/tools/scripts/job_results.py" estimates "$jobs" "$results/jobs/durations")
for name in $(missing_jobs "$jobs"); do
	left=$((left + est[$name]))
done
n=0
# Ctrl-C: each job gets SIGINT and 5 s to clean up (vm-run removes its
# guest's files) before harder signals.
parallel --jobs "$workers" --joblog "$joblog" --resume-failed --line-buffer \
	--termseq INT,5000,TERM,2000,KILL,25 \
	"${bar[@]}" <"$jobs" |
	while read -r word name rest; do
		[ "$word" = kept ] && continue
		n=$((n + 1))
		left=$((left - ${est[$name]:-0}))
		[ "$left" -gt 0 ] || left=0
		[ "${#bar[@]}" = 0 ] || [ "$word" = failed ] || continue
		el=$(($(date +%s) - start)) eta=""
		[ "$n" -lt "$pending" ] && eta=", about $(clock $((left / workers))) left"
		echo "[$((total - pending + n))/$total] $word $name${rest:+ $rest}, $(clock "$el") elapsed$eta"
	done
# parallel exits 255 when a signal stopped it (Ctrl-C reaches it even where
# this script's own SIGINT is ignored, as in a background job).
[ "${PIPESTATUS[0]}" -eq 255 ] && {
	echo "interrupted; run it again to continue where it stopped" >&2
	exit 130
}

rc=0
failed=$(missing_jobs "$jobs")
if [ -n "$failed" ]; then
	rc=1
	echo
	echo "$(echo "$failed" | wc -l) job(s) have no result:"
	for f in $failed; do
		echo "  $f   (log: $results/logs/$f.log)"
		[ -f "$results/logs/$f.log" ] && tail -n 8 "$results/logs/$f.log" | sed 's/^/      /'
	done
fi
echo "jobs took $(( $(date +%s) - start )) s on $workers worker(s)"
reduce_experiments "$@" || rc=1
write_report
exit "$rc"
