#!/usr/bin/env bash
# QEMU's own device fuzzer (generic-fuzz, libFuzzer with ASan and UBSan)
# against the mcmgpu device: its BARs, PCI config space, DMA into guest
# memory and the command ring. Usage: qemu-fuzz.sh SECONDS. The corpus grows
# in $CACHE/fuzz/qemu-generic-mcmgpu/corpus; a crash input lands in its
# crashes/ (reproduce: see README "Reliability"). The ring is consumed
# synchronously (sync-commands=on): generic-fuzz forks a child per input,
# and a child has no worker thread. The device sits on the root bus, where
# generic-fuzz maps BARs (it does not enumerate behind a root port). Inputs in
# selftests/fuzz/regressions/qemu-generic-mcmgpu/ are replayed first.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
secs=$1
cache=${CACHE:-$HOME/.cache/mcmgpu}
work=$cache/fuzz/qemu-generic-mcmgpu
mkdir -p "$work/corpus" "$work/crashes"
bin=$(bash "$top/tools/scripts/build-qemu.sh" --fuzz) || exit 1

export QEMU_FUZZ_ARGS="-machine q35 -nodefaults -L /usr/share/seabios -L /usr/share/qemu \
-device mcmgpu,bus=pcie.0,addr=04.0,chiplets=4,vram-per-chiplet=1M,sync-commands=on"
export QEMU_FUZZ_OBJECTS="mcmgpu*"
export QEMU_FUZZ_TIMEOUT=${QEMU_FUZZ_TIMEOUT:-2000000}

reg=$top/selftests/fuzz/regressions/qemu-generic-mcmgpu
if [ -d "$reg" ] && [ -n "$(ls -A "$reg")" ]; then
	"$bin" --fuzz-target=generic-fuzz "$reg"/* >"$work/regressions.log" 2>&1 ||
		{ echo "qemu generic-fuzz: a past finding fails again (log $work/regressions.log)"; exit 1; }
fi
# Seeds that program the ring and run one command of each opcode.
python3 "$top/tools/scripts/qemu-fuzz-seeds.py" "$work/seeds" || exit 1
"$bin" --fuzz-target=generic-fuzz -max_total_time="$secs" -rss_limit_mb=4096 \
	-print_final_stats=1 -artifact_prefix="$work/crashes/" "$work/corpus" \
	"$work/seeds" >"$work/last.log" 2>&1
rc=$?
execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/last.log")
cov=$(grep -o 'cov: [0-9]*' "$work/last.log" | tail -n 1)
if [ "$rc" -ne 0 ]; then
	echo "qemu generic-fuzz: FOUND a failure in $secs s (log $work/last.log)"
	ls "$work/crashes"
	exit 1
fi
echo "qemu generic-fuzz: ${execs:-?} executions in $secs s, ${cov:-cov: ?} edges, nothing found"
