#!/usr/bin/env bash
# FinePack: efficiency against store size, the workloads under every
# sub-header size (with a verified replay) and the wire-byte breakdown,
# replayed on the device, a few workloads a guest boot; the 16-GPU PCIe 6
# study on the host core (the device stays at its chiplet limit);
# docs/finepack.md derives the proxies.
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
		guest_replays --mem 2G -- traces/lines-*.bin <<<'%.json finepack replay --json' ;;
	guest-*)
		local traces=()
		for w in "$@"; do
			traces+=("traces/$w.bin")
			"$tool" finepack gen "$w" -o "traces/$w.bin"
			python3 "$top/tools/experiments/finepack_mix.py" "traces/$w.bin" \
				>"$JOB_OUT/mix/$w.json"
		done
		# Every sub-header size and a verified replay, one boot for all.
		guest_replays --mem 2G -- "${traces[@]}" <<-'EOF'
			%-h2.json finepack replay --json --subheader 2
			%-h3.json finepack replay --json --subheader 3
			%-h4.json finepack replay --json --subheader 4
			%-h5.json finepack replay --json --subheader 5
			%-h6.json finepack replay --json --subheader 6
			%-verify.json finepack replay --json --verify
		EOF
		;;
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
