#!/usr/bin/env bash
# QEMU's own device fuzzer (generic-fuzz, libFuzzer with ASan and UBSan)
# against the mcmgpu device: its BARs, PCI config space, DMA into guest
# memory and the command ring. Usage: qemu-fuzz.sh SECONDS. The corpus grows
# in $CACHE/fuzz/qemu-generic-mcmgpu/corpus; a crash input lands in its
# crashes/ (reproduce: see docs/testing.md). The ring is consumed
# synchronously (sync-commands=on): generic-fuzz forks a child per input,
# and a child has no worker thread. The device sits on the root bus, where
# generic-fuzz maps BARs (it does not enumerate behind a root port). Inputs in
# selftests/fuzz/regressions/qemu-generic-mcmgpu/ are replayed first.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
secs=$1
. "$top/tools/scripts/fuzz-lib.sh"
bin=$(bash "$top/tools/scripts/build-qemu.sh" --fuzz) || exit 1

export QEMU_FUZZ_ARGS="-machine q35 -nodefaults -L /usr/share/seabios -L /usr/share/qemu \
-device mcmgpu,bus=pcie.0,addr=04.0,chiplets=4,vram-per-chiplet=1M,sync-commands=on,cxl-aperture=1M"
export QEMU_FUZZ_OBJECTS="mcmgpu*"
export QEMU_FUZZ_TIMEOUT=${QEMU_FUZZ_TIMEOUT:-2000000}

# Seeds that program the ring and run one command of each opcode.
python3 "$top/tools/scripts/qemu-fuzz-seeds.py" "$FUZZ_CACHE/qemu-generic-mcmgpu/seeds" ||
	exit 1
fuzz_target qemu-generic-mcmgpu "$secs" "$bin" --fuzz-target=generic-fuzz
