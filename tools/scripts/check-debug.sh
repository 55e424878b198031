#!/usr/bin/env bash
# make check-debug: the guest tests under the debug kernel (KASAN, lockdep,
# kmemleak, UBSAN, fault injection). Any kernel report, kmemleak finding or
# failed test fails the run. The last line is "N passed, N failed".
# CHECK_DEBUG_FUZZ_OPS (operations per fuzzing process, three processes;
# default 33334, so 100 002 in all) and CHECK_DEBUG_CYCLES (default 100)
# size the ioctl fuzzer and the lifecycle runs.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
logdir=$top/build/check-debug
mkdir -p "$logdir"
pass=0 fail=0
ops=${CHECK_DEBUG_FUZZ_OPS:-33334}
cycles=${CHECK_DEBUG_CYCLES:-100}

# shellcheck source=tools/scripts/check-lib.sh
. "$top/tools/scripts/check-lib.sh"

# run NAME TIMEOUT CMD...: one debug-kernel boot.
run() {
	local name=$1 timeout=$2 log=$logdir/$1.log start rc
	shift 2
	echo "debug kernel: $name..."
	start=$(date +%s)
	local opts=()
	if [ "$1" = --migrate ]; then
		opts+=(--migrate)
		shift
	fi
	tools/vm-run --no-build --debug-kernel ${opts[@]+"${opts[@]}"} \
		--timeout "$timeout" -- "$@" >"$log" 2>&1
	rc=$?
	count "$name" "$log" "$rc" ", $(( $(date +%s) - start )) s"
	failures "$log"
	sed -n '/kernel problem during the run/,$p' "$log" | head -n 40
}

run selftests 5400 run-selftests
run ioctl-fuzz-3x$ops 5400 env MCMGPU_FUZZ_OPS="$ops" \
	/opt/mcmgpu/selftests/ioctl_fuzz_test
run lifecycle-$cycles 5400 env MCMGPU_LIFECYCLE_CYCLES="$cycles" \
	/opt/mcmgpu/selftests/lifecycle_test
run migration 1800 --migrate env MCMGPU_MIGRATE=1 \
	/opt/mcmgpu/selftests/migration_test

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
