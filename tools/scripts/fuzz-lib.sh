# Sourced by fuzz.sh and qemu-fuzz.sh: one libFuzzer target's run.
# fuzz_target NAME SECONDS CMD...: replays the past findings in
# selftests/fuzz/regressions/NAME/, then fuzzes CMD for SECONDS with the
# corpus (grown across runs) and the seeds the caller wrote, both under
# $FUZZ_CACHE/NAME/; a crash input lands in its crashes/. Prints one line;
# returns 0 when nothing was found.
FUZZ_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
FUZZ_CACHE=${CACHE:-$HOME/.cache/mcmgpu}/fuzz

fuzz_target() {
	local name=$1 secs=$2 work=$FUZZ_CACHE/$1
	local reg=$FUZZ_TOP/selftests/fuzz/regressions/$1 rc execs cov
	shift 2
	mkdir -p "$work/corpus" "$work/crashes" "$work/seeds"
	if [ -d "$reg" ] && [ -n "$(ls -A "$reg")" ] &&
	   ! "$@" "$reg"/* >"$work/regressions.log" 2>&1; then
		echo "$name: a past finding fails again (log $work/regressions.log)"
		return 1
	fi
	"$@" -max_total_time="$secs" -rss_limit_mb=4096 -print_final_stats=1 \
		-artifact_prefix="$work/crashes/" "$work/corpus" "$work/seeds" \
		>"$work/last.log" 2>&1
	rc=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/last.log")
	cov=$(grep -o 'cov: [0-9]*' "$work/last.log" | tail -n 1)
	if [ "$rc" -ne 0 ]; then
		echo "$name: FOUND a failure in $secs s (log $work/last.log):"
		ls "$work/crashes"
		return 1
	fi
	echo "$name: ${execs:-?} executions in $secs s, ${cov:-cov: ?} edges, nothing found"
}
