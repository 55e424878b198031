#!/usr/bin/env bash
# Tests of the experiment runners on two small experiments of their own
# (deterministic host jobs that take a moment): a run gives the same report
# with 1 and 2 workers; an interrupted run, restarted, redoes no finished
# job and ends with the same report; a failing job is named with its log,
# the other experiment's section still stands, and the rerun runs only the
# failed job; a stale result goes when the job list changes. With
# MCMGPU_TEST_SLURM=1 (or a cluster answering sinfo) the Slurm runner must
# give the same report too; MCMGPU_TEST_SLURM=1 as root first sets up the
# one-node cluster (tools/scripts/slurm-localhost.sh). Prints "ok" lines
# and fails with a reason.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd -P)
# In the repository, not /tmp: a cluster's nodes share it.
mkdir -p "$top/build"
work=$(mktemp -d "$top/build/runner-test.XXXXXX")
trap 'rm -rf "$work"' EXIT
export MCMGPU_EXPERIMENTS=$work/exp RUNNER_TEST_RUNS=$work/runs
mkdir -p "$MCMGPU_EXPERIMENTS"
fail() { echo "FAIL: $*"; exit 1; }

# alpha: six jobs, each a square and a sum; beta: three jobs and a text file,
# one of which fails while RUNNER_TEST_FAIL is set.
cat >"$MCMGPU_EXPERIMENTS/10-alpha.sh" <<EOF
#!/usr/bin/env bash
set -euo pipefail
. "$top/tools/experiments/lib.sh"
list_jobs() { for n in 1 2 3 4 5 6; do emit "host-\$n" "\$n"; done; }
run_job() {
	echo "alpha/\$1" >>"\$RUNNER_TEST_RUNS"
	sleep "\${RUNNER_TEST_SLEEP:-0.3}"
	echo "{\"n\": \$2, \"square\": \$((\$2 * \$2))}" >"\$JOB_OUT/v-\$2.json"
}
reduce() {
	python3 - "\$1" "\$2" <<'PY'
import json, sys
raw, results = sys.argv[1], sys.argv[2]
v = [json.load(open(f"{raw}/v-{n}.json")) for n in range(1, 7)]
with open(f"{results}/sections/10-alpha.md", "w") as f:
    f.write("## alpha\n\n" + " ".join(str(x["square"]) for x in v) +
            f"\n\nsum {sum(x['square'] for x in v)}\n")
PY
}
dispatch "\$@"
EOF
cat >"$MCMGPU_EXPERIMENTS/20-beta.sh" <<EOF
#!/usr/bin/env bash
set -euo pipefail
. "$top/tools/experiments/lib.sh"
list_jobs() { emit names; for w in x y; do emit "guest-\$w" "\$w"; done; }
run_job() {
	echo "beta/\$1" >>"\$RUNNER_TEST_RUNS"
	case "\$1" in
	names) printf 'x one\ny two\n' >"\$JOB_OUT/names.txt" ;;
	guest-*)
		if [ "\$2" = y ] && [ -n "\${RUNNER_TEST_FAIL:-}" ]; then
			echo "beta: y cannot be replayed today" >&2
			exit 3
		fi
		mkdir -p "\$JOB_OUT/device"
		echo "{\"w\": \"\$2\", \"len\": \${#2}}" >"\$JOB_OUT/device/\$2.json" ;;
	esac
}
reduce() {
	python3 - "\$1" "\$2" <<'PY'
import json, sys
raw, results = sys.argv[1], sys.argv[2]
names = dict(l.split() for l in open(f"{raw}/names.txt"))
with open(f"{results}/sections/20-beta.md", "w") as f:
    f.write("## beta\n\n")
    for w in "xy":
        f.write(f"{w} {names[w]} {json.load(open(f'{raw}/device/{w}.json'))['len']}\n")
PY
}
dispatch "\$@"
EOF

run=$top/tools/scripts/run-experiments.sh
runs() {
	local n
	n=$(grep -c "$1" "$RUNNER_TEST_RUNS" 2>/dev/null)
	echo "${n:-0}"
}

# 1. One worker and two workers: the same report, every job run once.
MCMGPU_RESULTS=$work/r1 "$run" -j 1 >"$work/r1.log" 2>&1 || { cat "$work/r1.log"; fail "-j 1 run"; }
[ "$(wc -l <"$RUNNER_TEST_RUNS")" = 9 ] || fail "-j 1 ran $(wc -l <"$RUNNER_TEST_RUNS") jobs, want 9"
grep -q "sum 91" "$work/r1/report.md" || fail "alpha's section is wrong"
grep -q "^y two 1" "$work/r1/report.md" || fail "beta's section is wrong"
grep -q '^\[9/9\] ok ' "$work/r1.log" || fail "no progress line [9/9]"
rm -f "$RUNNER_TEST_RUNS"
MCMGPU_RESULTS=$work/r2 "$run" -j 2 >"$work/r2.log" 2>&1 || fail "-j 2 run"
cmp -s "$work/r1/report.md" "$work/r2/report.md" || fail "-j 1 and -j 2 reports differ"
for f in "$work"/r1/raw/*/*.json; do
	cmp -s "$f" "$work/r2/raw/${f#"$work"/r1/raw/}" || fail "$f differs between -j 1 and -j 2"
done
echo "ok 1 and 2 workers give the same report and the same job results"

# 2. Interrupted after some jobs, then restarted: finished jobs stay done.
rm -f "$RUNNER_TEST_RUNS"
(
	export MCMGPU_RESULTS=$work/ri RUNNER_TEST_SLEEP=1
	# Job control: the runner gets its own process group, as under a
	# terminal's Ctrl-C, and SIGINT is not ignored in it.
	set -m
	"$run" -j 1 >"$work/ri.log" 2>&1 &
	pid=$!
	# Up to 60 s: the runner hashes the build first, slow on a busy host.
	for _ in $(seq 600); do
		[ "$(ls "$work"/ri/raw/*/*.json 2>/dev/null | wc -l)" -ge 3 ] && break
		sleep 0.1
	done
	kill -INT -- -"$pid"
	wait "$pid"
	echo $? >"$work/ri.rc"
)
[ "$(cat "$work/ri.rc")" = 130 ] || fail "the interrupted runner exited $(cat "$work/ri.rc"), want 130"
grep -q "interrupted; run it again" "$work/ri.log" || fail "the interrupted runner did not say so"
[ ! -e "$work/ri/report.md" ] || fail "the interrupted runner wrote a report"
finished_before=$(ls "$work"/ri/raw/*/*.json 2>/dev/null)
done_before=$(printf '%s' "$finished_before" | grep -c .)
ran_before=$(wc -l <"$RUNNER_TEST_RUNS")
[ "$done_before" -ge 3 ] && [ "$done_before" -lt 9 ] ||
	fail "interrupt came too late or too early ($done_before results)"
left=$(find "$work/ri/tmp" -mindepth 1 2>/dev/null)
[ -z "$left" ] || fail "an interrupted job left its scratch directory: $left"
MCMGPU_RESULTS=$work/ri "$run" -j 1 >"$work/ri2.log" 2>&1 || fail "the restarted run"
grep -q "$done_before done already" "$work/ri2.log" || fail "the restart did not count $done_before done jobs"
# A job finished before the interrupt runs once; the one in flight then
# (killed before its result) may run again, which the count below allows.
for f in $finished_before; do
	[ "$(runs "$(basename "$(dirname "$f")")/$(basename "$f" .json)\$")" = 1 ] ||
		fail "$f's job ran twice"
done
[ "$(wc -l <"$RUNNER_TEST_RUNS")" -le $((9 + ran_before - done_before)) ] ||
	fail "the restart redid finished jobs"
cmp -s "$work/r1/report.md" "$work/ri/report.md" || fail "the resumed report differs"
echo "ok interrupted after $done_before jobs, the restart ran only the other $((9 - done_before))"

# 3. A failing job: named with its log, the rest stands, the rerun runs it only.
rm -f "$RUNNER_TEST_RUNS"
RUNNER_TEST_FAIL=1 MCMGPU_RESULTS=$work/rf "$run" -j 2 >"$work/rf.log" 2>&1 &&
	fail "a failed job did not fail the run"
grep -q "beta/guest-y .*log: $work/rf/logs/beta/guest-y.log" "$work/rf.log" ||
	fail "the failed job is not named with its log"
grep -q "y cannot be replayed today" "$work/rf.log" || fail "the failed job's log tail is not shown"
grep -q "sum 91" "$work/rf/report.md" || fail "alpha's section is missing after beta failed"
grep -q "beta: not reduced" "$work/rf/report.md" || fail "beta's section does not say it is incomplete"
rm -f "$RUNNER_TEST_RUNS"
MCMGPU_RESULTS=$work/rf "$run" -j 2 >"$work/rf2.log" 2>&1 || fail "the rerun after the fix"
[ "$(cat "$RUNNER_TEST_RUNS")" = "beta/guest-y" ] ||
	fail "the rerun ran $(tr '\n' ' ' <"$RUNNER_TEST_RUNS"), want beta/guest-y only"
cmp -s "$work/r1/report.md" "$work/rf/report.md" || fail "the report after the rerun differs"
echo "ok a failed job is named with its log, the others stand, the rerun runs it alone"

# 4. A changed job list starts that experiment afresh, and only that one.
rm -f "$RUNNER_TEST_RUNS"
sed -i 's/for n in 1 2 3 4 5 6;/for n in 1 2 3 4 5 6 ;/; s/list_jobs() { for n/list_jobs() { true; for n/' \
	"$MCMGPU_EXPERIMENTS/10-alpha.sh"
MCMGPU_RESULTS=$work/r1 "$run" -j 2 >"$work/r1b.log" 2>&1 || fail "the run after a change"
[ "$(runs alpha/)" = 6 ] && [ "$(runs beta/)" = 0 ] ||
	fail "a changed experiment: alpha ran $(runs alpha/), beta $(runs beta/), want 6 and 0"
echo "ok a changed experiment runs afresh, the others are kept"

# 5. The Slurm runner on the same lists gives the same report.
# A cluster counts when a node is idle: a down or drained one (or a real
# cluster's busy queue) would keep the array waiting.
slurm_idle() { [ -n "$(sinfo -h -t idle,mixed -o %n 2>/dev/null)" ]; }
if [ "${MCMGPU_TEST_SLURM:-0}" = 1 ] && [ "$(id -u)" = 0 ] && ! slurm_idle; then
	"$top/tools/scripts/slurm-localhost.sh" >"$work/slurm-setup.log" 2>&1 ||
		{ cat "$work/slurm-setup.log"; fail "slurm-localhost.sh could not set up the one-node cluster"; }
fi
if command -v sinfo >/dev/null && slurm_idle; then
	rm -f "$RUNNER_TEST_RUNS"
	MCMGPU_RESULTS=$work/rs "$top/tools/scripts/slurm-run.sh" --no-build --chunk 2 \
		--timeout 600 >"$work/rs.log" 2>&1 || { cat "$work/rs.log"; fail "slurm-run.sh"; }
	grep -q "in 5 task(s), up to 2 a task" "$work/rs.log" || fail "slurm-run did not submit 9 jobs as 5 tasks"
	cmp -s "$work/r2/report.md" "$work/rs/report.md" || fail "the Slurm report differs from the local one"
	[ "$(wc -l <"$RUNNER_TEST_RUNS")" = 9 ] || fail "Slurm ran $(wc -l <"$RUNNER_TEST_RUNS") jobs, want 9"
	echo "ok the Slurm job array gives the same report as the local runner"
elif [ "${MCMGPU_TEST_SLURM:-0}" = 1 ]; then
	fail "MCMGPU_TEST_SLURM=1 but no Slurm node is idle (sinfo)"
else
	echo "skip the Slurm runner: no idle Slurm node (tools/scripts/slurm-localhost.sh makes one)"
fi
