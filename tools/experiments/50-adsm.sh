#!/usr/bin/env bash
# ADSM/GMAC: the six access patterns (notes/adsm.md §4.5) under batch,
# lazy, rolling and hand-written copies on the device (one guest boot),
# which must equal the host replays; the sweeps of Figs 9, 11 and 12 on the
# host cores (equal to the device by the check above).
set -euo pipefail
results=$1
top=$(cd "$(dirname "$0")/../.." && pwd)
tool=$top/build/tools/mcmgpu
raw=raw/adsm
cd "$results"
rm -rf "$raw"
mkdir -p "$raw/device" "$raw/host" "$raw/sweep"

patterns="pc iter stencil vadd multipass io"
protocols="batch lazy rolling explicit"
# S 4 MiB, B 256 KiB, K 16: iterative codes run long enough to show batch.
common="--size 4M --block 256K --iterations 16"

cat >"$raw/guest.sh" <<GUEST
# Runs inside the guest: every pattern under every protocol.
for p in $patterns; do
	for c in $protocols; do
		mcmgpu adsm run \$p --protocol \$c $common --json \
			>"raw/adsm/device/\$p-\$c.json" || exit 1
	done
	echo "  \$p: $protocols"
done
GUEST
echo "  6 patterns x 4 protocols on the device (one guest boot)"
"$top/tools/vm-run" --no-build --timeout 1800 --out "$raw/device" -- \
	sh "$raw/guest.sh"

echo "  the same on the host cores, and the sweeps ($(nproc) at a time)"
{
	for p in $patterns; do
		for c in $protocols; do
			echo "$tool adsm run $p --protocol $c $common --json --host" \
				">$raw/host/$p-$c.json"
		done
	done
	# Fig 11: vector add of 8 Mi elements, blocks 4 KiB .. 32 MiB.
	for b in 4K 8K 16K 32K 64K 128K 256K 512K 1M 2M 4M 8M 16M 32M; do
		echo "$tool adsm run vadd --protocol rolling --size 32M --block $b" \
			"--json --host >$raw/sweep/vadd-rolling-$b.json"
	done
	for c in batch lazy explicit; do
		echo "$tool adsm run vadd --protocol $c --size 32M --json --host" \
			">$raw/sweep/vadd-$c.json"
	done
	# Fig 12: 4 passes over a 4 MiB input, blocks 128 KiB .. 32 MiB,
	# rolling size 1, 2, 4 and the adaptive one.
	for r in 1 2 4 0; do
		for b in 128K 256K 512K 1M 2M 4M 8M 16M 32M; do
			echo "$tool adsm run multipass --protocol rolling --size 4M" \
				"--block $b --rolling $r --iterations 4 --json --host" \
				">$raw/sweep/multipass-r$r-$b.json"
		done
	done
	# Fig 9: the stencil's volumes 64^3 .. 384^3 (4-byte cells), lazy and
	# rolling with 4 KiB, 256 KiB, 1 MiB and 32 MiB blocks.
	for v in 64 128 192 256 384; do
		s=$((v * v * v * 4))
		echo "$tool adsm run stencil --protocol lazy --size $s" \
			"--iterations 8 --json --host >$raw/sweep/stencil-$v-lazy.json"
		for b in 4K 256K 1M 32M; do
			echo "$tool adsm run stencil --protocol rolling --size $s" \
				"--block $b --iterations 8 --json --host" \
				">$raw/sweep/stencil-$v-$b.json"
		done
	done
} >"$raw/jobs"
xargs -P "$(nproc)" -d '\n' -n 1 sh -c <"$raw/jobs" ||
	{ echo "adsm: a host run failed" >&2; exit 1; }

python3 "$top/tools/experiments/adsm_report.py" "$raw" "$results"
