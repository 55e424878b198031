#!/usr/bin/env bash
# FinePack: efficiency against store size, the workloads under every
# sub-header size (with a verified replay) and the wire-byte breakdown,
# replayed on the device, a few workloads a guest boot; the 16-GPU PCIe 6
# study on the host core (the device stays at its chiplet limit);
# tools/mcmgpu/finepack/WORKLOADS.md derives the proxies.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

workloads="jacobi diffusion eqwp pagerank sssp hit als ct"
sizes="1 2 4 8 16 32 64 128"

list_jobs() {
	local c
	emit guest-lines
	# shellcheck disable=SC2086
	chunks 4 $workloads | while read -r c; do emit "$(chunk_job $c)" $c; done
	emit analytic
	for w in $workloads; do emit "host16-$w" "$w"; done
}

run_job() {
	local job=$1 w s
	shift
	mkdir -p traces "$JOB_OUT/device" "$JOB_OUT/mix" "$JOB_OUT/host"
	case "$job" in
	analytic)
		"$tool" finepack analytic --json >"$JOB_OUT/analytic.json" ;;
	guest-lines)
		for s in $sizes; do
			"$tool" finepack gen lines --store "$s" --count 64 -o "traces/lines-$s.bin"
		done
		"$top/tools/vm-run" --no-build --mem 2G --out "$JOB_OUT" -- sh -c '
			out=$1; shift; mkdir -p "$out/device"
			for t in "$@"; do
				mcmgpu finepack replay --json "$t" \
					>"$out/device/$(basename "$t" .bin).json" || exit 1
			done' sh "$JOB_OUT" traces/lines-*.bin ;;
	guest-*)
		local traces=()
		for w in "$@"; do
			traces+=("traces/$w.bin")
			"$tool" finepack gen "$w" -o "traces/$w.bin"
			python3 "$top/tools/experiments/finepack_mix.py" "traces/$w.bin" \
				>"$JOB_OUT/mix/$w.json"
		done
		# Every sub-header size and a verified replay, one boot for all.
		"$top/tools/vm-run" --no-build --mem 2G --out "$JOB_OUT" -- sh -c '
			out=$1; shift; mkdir -p "$out/device"
			for t in "$@"; do
				name=$(basename "$t" .bin)
				for h in 2 3 4 5 6; do
					mcmgpu finepack replay --json --subheader $h "$t" \
						>"$out/device/$name-h$h.json" || exit 1
				done
				mcmgpu finepack replay --json --verify "$t" \
					>"$out/device/$name-verify.json" || exit 1
				echo "$name: replayed for h = 2..6 and verified"
			done' sh "$JOB_OUT" "${traces[@]}" ;;
	host16-*)
		w=$1
		"$tool" finepack gen "$w" --chiplets 16 -o "traces/$w-g16.bin"
		"$tool" finepack replay --host --chiplets 16 --json "traces/$w-g16.bin" \
			>"$JOB_OUT/host/$w-g16.json" ;;
	*) echo "finepack: no job '$job'" >&2; return 2 ;;
	esac
}

reduce() {
	python3 "$top/tools/experiments/finepack_report.py" "$1" "$2"
}

dispatch "$@"
