#!/usr/bin/env bash
# ADSM/GMAC: the six access patterns (notes/adsm.md §4.5) under batch,
# lazy, rolling and hand-written copies on the device (a few patterns a
# guest boot), which must equal the host replays; the sweeps of Figs 9, 11
# and 12 on the host cores (equal to the device by the check above).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

patterns="pc iter stencil vadd multipass io"
protocols="batch lazy rolling explicit"
# S 4 MiB, B 256 KiB, K 16: iterative codes run long enough to show batch.
common="--size 4M --block 256K --iterations 16"

list_jobs() {
	local c
	# shellcheck disable=SC2086
	chunks 3 $patterns | while read -r c; do emit "$(chunk_job $c)" $c; done
	for p in $patterns; do emit "host-$p" "$p"; done
	emit fig11-vadd
	for r in 1 2 4 0; do emit "fig12-multipass-r$r" "$r"; done
	for v in 64 128 192 256 384; do emit "fig9-stencil-$v" "$v"; done
}

run_job() {
	local job=$1 p c b r v s
	shift
	mkdir -p "$JOB_OUT/device" "$JOB_OUT/host" "$JOB_OUT/sweep"
	case "$job" in
	guest-*)
		# The pattern's name comes last: adsm run takes it anywhere.
		for c in $protocols; do
			echo "%-$c.json adsm run --protocol $c $common --json"
		done | guest_replays --timeout 1800 -- "$@" ;;
	host-*)
		p=$1
		for c in $protocols; do
			# shellcheck disable=SC2086
			"$tool" adsm run "$p" --protocol "$c" $common --json --host \
				>"$JOB_OUT/host/$p-$c.json"
		done ;;
	fig11-vadd)
		# Vector add of 8 Mi elements, blocks 4 KiB .. 32 MiB.
		for b in 4K 8K 16K 32K 64K 128K 256K 512K 1M 2M 4M 8M 16M 32M; do
			"$tool" adsm run vadd --protocol rolling --size 32M --block "$b" \
				--json --host >"$JOB_OUT/sweep/vadd-rolling-$b.json"
		done
		for c in batch lazy explicit; do
			"$tool" adsm run vadd --protocol "$c" --size 32M --json --host \
				>"$JOB_OUT/sweep/vadd-$c.json"
		done ;;
	fig12-*)
		# 4 passes over a 4 MiB input, blocks 128 KiB .. 32 MiB, rolling
		# size 1, 2, 4 and the adaptive one (0).
		r=$1
		for b in 128K 256K 512K 1M 2M 4M 8M 16M 32M; do
			"$tool" adsm run multipass --protocol rolling --size 4M \
				--block "$b" --rolling "$r" --iterations 4 --json --host \
				>"$JOB_OUT/sweep/multipass-r$r-$b.json"
		done ;;
	fig9-*)
		# The stencil's volume v^3 (4-byte cells), lazy and rolling with
		# 4 KiB, 256 KiB, 1 MiB and 32 MiB blocks.
		v=$1
		s=$((v * v * v * 4))
		"$tool" adsm run stencil --protocol lazy --size "$s" \
			--iterations 8 --json --host >"$JOB_OUT/sweep/stencil-$v-lazy.json"
		for b in 4K 256K 1M 32M; do
			"$tool" adsm run stencil --protocol rolling --size "$s" \
				--block "$b" --iterations 8 --json --host \
				>"$JOB_OUT/sweep/stencil-$v-$b.json"
		done ;;
	*) echo "adsm: no job '$job'" >&2; return 2 ;;
	esac
	# The guest's handler and wait times are wall clock (Fig 10's share is
	# in make bench); the fault counts stay.
	drop_wall_clock "$JOB_OUT" fault_ns dma_wait_ns wall_ns
}

reduce() {
	python3 "$top/tools/experiments/adsm_report.py" "$1" "$2"
}

dispatch "$@"
