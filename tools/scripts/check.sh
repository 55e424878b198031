#!/usr/bin/env bash
# make check: static checks, host unit tests, the fuzzers, the kselftests
# inside the guest for 4, 2 and 8 chiplets, the migration, and the guest
# tests under the debug kernel (check-debug.sh). The last line is
# "N passed, N failed".
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
logdir=$top/build/check
mkdir -p "$logdir"
pass=0 fail=0

# shellcheck source=tools/scripts/check-lib.sh
. "$top/tools/scripts/check-lib.sh"

# A static check is one test.
lint() {
	local name=$1 log=$logdir/$1.log
	shift
	if "$@" >"$log" 2>&1; then
		pass=$((pass + 1))
		printf '%-28s    1 passed, 0 failed\n' "$name"
	else
		fail=$((fail + 1))
		printf '%-28s    0 passed, 1 failed (log %s)\n' "$name" "$log"
		tail -n 20 "$log"
	fi
}

# README.md and docs/: links resolve, named paths, make targets and tool
# commands exist.
lint docs python3 tools/scripts/check-docs.py --tool build/tools/mcmgpu
lint checkpatch make -s checkpatch
lint sparse make -s sparse
lint "driver file graph" bash tools/scripts/lint.sh file-graph
# The 24 CPElide proxies: at most 8 arguments a kernel, within the model's
# memory, and a clean oracle under baseline, cpelide and hmg (host core).
# libFuzzer on the parsers and checkers (selftests/fuzz/), 20 s each.
for f in build/fuzz/fuzz_*; do
	[ -x "$f" ] || continue
	lint "libFuzzer $(basename "$f")" bash tools/scripts/fuzz.sh 20 "$f"
done
# QEMU's own device fuzzer against mcmgpu (builds qemu-fuzz-x86_64 once).
lint "qemu generic-fuzz" bash tools/scripts/qemu-fuzz.sh 120
lint "cpelide proxies" python3 tools/scripts/cpelide-workloads-check.py \
	--chiplets 4 --policies baseline,cpelide,hmg --tool build/tools/mcmgpu

# The Accel-Sim importer's statistics against counts taken independently
# from the trace text, on hand-written, generated and exported traces.
lint "accelsim stats xcheck" bash tools/scripts/accelsim-xcheck.sh build/tools/mcmgpu

# The GPU timing core's configurations: every preset's JSON parses, with a
# source for each parameter; bad names and overrides are usage errors.
lint "gpu config" bash tools/scripts/gpu-config-check.sh build/tools/mcmgpu
# mcmgpu run --host: bad programs and options fail naming the problem; a
# good run's JSON holds the counter identities and is the same twice.
lint "gpu run" bash tools/scripts/gpu-run-check.sh build/tools/mcmgpu

# FinePack's inputs in make run (fp-sizes.txt) follow their rule: the
# smallest that fills the GPUs, or "budget" where none affordable does.
lint "finepack sizes" python3 tools/scripts/fp-sizes-check.py build/tools/mcmgpu
# The report's headline table: means, spreads and the 25 % verdict on
# results written by hand.
lint "report headlines" python3 tools/scripts/headlines-check.py

# make run TRACES=DIR: every paper's comparison on a user's traces (a
# real-shaped Accel-Sim trace, an exported one with an .xz kernel, a text
# program); bad directories refused by name.
lint "traces experiment" bash tools/scripts/traces-check.sh build/tools/mcmgpu

# make run's runners on two small experiments: GNU parallel with 1 vs 2
# workers, interrupt and resume, a failing job; then the same lists as a
# Slurm job array on a one-node cluster this machine runs (as root:
# slurm-localhost.sh installs and starts it; it stays up afterwards).
slurm_test=0
[ "$(id -u)" = 0 ] && slurm_test=1
lint "experiment runners" env MCMGPU_TEST_SLURM=$slurm_test bash tools/scripts/runner-test.sh

for t in build/host/*_test; do
	[ -x "$t" ] || continue
	log=$logdir/host-$(basename "$t").log
	"$t" >"$log" 2>&1
	count "host $(basename "$t")" "$log" $?
done

# The guest harness itself: exit status, files in and out, kernel warnings.
harness_test() {
	local tmp rc=0
	tmp=$(mktemp -d)
	(
		cd "$tmp" || exit 1
		mkdir -p in
		head -c 5000 /dev/urandom >in/data.bin
		"$top/tools/vm-run" --no-build --out out -- \
			sh -c 'cp "$1" out/copy.bin; exit 3' sh in/data.bin
		[ $? = 3 ] || { echo "exit status not passed through"; exit 1; }
		cmp in/data.bin out/copy.bin || { echo "--out file differs"; exit 1; }
		"$top/tools/vm-run" --no-build -- \
			sh -c 'echo "WARNING: CPU: 0 PID: 1 at selftest" >/dev/kmsg'
		[ $? = 125 ] || { echo "kernel warning not detected"; exit 1; }
	) || rc=1
	rm -rf "$tmp"
	return $rc
}
echo "testing the guest harness (two boots)..."
lint vm-run-harness harness_test

for n in 4 2 8; do
	log=$logdir/guest-chiplets-$n.log
	echo "booting the guest with $n chiplets (TCG)..."
	# The 8-chiplet guest has 8 CXL root ports: 8-way interleave too. The
	# 2-chiplet one's host bridge reports 32 decoders, more than a SETUP
	# request holds (gpu_rc must bound by both).
	ports=4 hbdec=8
	[ "$n" = 8 ] && ports=8
	[ "$n" = 2 ] && hbdec=32
	tools/vm-run --no-build --chiplets "$n" --prop cxl-ports=$ports \
		--prop cxl-hb-decoders=$hbdec --timeout 900 -- \
		run-selftests >"$log" 2>&1
	count "guest selftests, $n chiplets" "$log" $?
	failures "$log"
done

# Migration through a file and back, live, twice (issue 9, item 6).
log=$logdir/guest-migration.log
echo "migrating the guest twice (TCG)..."
tools/vm-run --no-build --migrate --timeout 900 -- \
	env MCMGPU_MIGRATE=1 /opt/mcmgpu/selftests/migration_test >"$log" 2>&1
count "guest migration" "$log" $?
failures "$log"

# The debug kernel: selftests, 100 002 fuzzed ioctls, 100 lifecycle
# cycles and the migration under KASAN, lockdep, kmemleak and UBSAN.
bash tools/scripts/check-debug.sh | tee "$logdir/check-debug.log"
dp=$(tail -n 1 "$logdir/check-debug.log" | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\1/p')
df=$(tail -n 1 "$logdir/check-debug.log" | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\2/p')
[ -n "$dp" ] || { dp=0 df=1; }
pass=$((pass + dp)) fail=$((fail + df))

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
