#!/usr/bin/env bash
# The GPU core (docs/gpu.md): the applications (tools/mcmgpu/apps/) as
# programs through the timing core with Barre's configuration (Table II),
# translation by a conventional IOMMU (Barre off) and by Barre (on), by
# Barre Chord's baselines Least and Valkyrie (Fig 15), and
# with translation off (the bound: every translation free); one job an
# application on the host core (and F-Barre, FinePack's queue on
# FinePack's configuration, CPElide's policies on CPElide's, ADSM's
# protocols against explicit copies on ADSM's and CXL memory, UVM and
# GDS on CXL-GPU's); one guest job runs two of them on the
# device, whose JSON must equal the host's; the microbenchmarks'
# validation (selftests/host/gpu_validate_test.c) against their formulas.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

# Application and the size it runs at: tools/experiments/gpu-sizes.txt
# (shared with 65-apps.sh).
apps() {
	grep -v '^#' "$top/tools/experiments/gpu-sizes.txt"
}

# FinePack's applications (§V; paper_tables.py's FINEPACK_APPS), each
# under every remote-store scheme (issue 30's comparison), at the size
# tools/experiments/fp-sizes.txt derives: the smallest that fills the
# GPUs, or the largest make run affords (docs/finepack.md, The inputs).
fp_apps() {
	local a s names
	# Assigned first: a failure inside a for's word list would be lost.
	names=$(python3 -c 'import sys; sys.path.insert(0, sys.argv[1]); import paper_tables; print("\n".join(paper_tables.FINEPACK_APPS))' \
		"$top/tools/experiments") || {
		echo "paper_tables.py: cannot list FINEPACK_APPS" >&2
		exit 1
	}
	[ -n "$names" ] || { echo "paper_tables.py: FINEPACK_APPS is empty" >&2; exit 1; }
	for a in $names; do
		s=$(awk -v a="$a" '$1 == a { print $2 }' "$top/tools/experiments/fp-sizes.txt")
		[ -n "$s" ] || { echo "fp-sizes.txt: no size for $a" >&2; exit 1; }
		echo "$a $s"
	done
}

list_jobs() {
	local a s fp
	fp=$(fp_apps)	# not in a process substitution: its failure stops us
	emit validate
	while read -r a s; do emit "host-$a" "$a" "$s"; done < <(apps)
	while read -r a s; do emit "fp-$a" "$a" "$s"; done <<<"$fp"
	emit guest-equal
}

run_job() {
	local job=$1 a s m
	shift
	mkdir -p prog "$JOB_OUT/host" "$JOB_OUT/device"
	case "$job" in
	validate)
		# The microbenchmarks against their formulas (docs/gpu.md#validation).
		make -s -C "$top" "$top/build/host/gpu_validate_test" >/dev/null
		"$top/build/host/gpu_validate_test" 2>&1 | grep -E '^# .* measured |^# (PASSED|FAILED)' \
			>"$JOB_OUT/validate.txt" ;;
	host-*)
		a=$1 s=$2
		"$tool" workload gen "$a" --size "$s" -o "prog/$a.prog"
		"$tool" workload stats --json "prog/$a.prog" >"$JOB_OUT/host/$a-stats.json"
		"$tool" run --host --json --set translate=0 "prog/$a.prog" \
			>"$JOB_OUT/host/$a-notlb.json"
		for m in off on fbarre; do
			"$tool" run --host --json --barre "$m" --shadow "prog/$a.prog" \
				>"$JOB_OUT/host/$a-$m.json"
		done
		# Barre Chord's baselines (§VII-A, Fig 15): Least and Valkyrie,
		# each run's wall time kept for the report.
		for m in least valkyrie; do
			t0=$(date +%s%N)
			"$tool" run --host --json --barre "$m" --shadow "prog/$a.prog" \
				>"$JOB_OUT/host/$a-$m.json"
			echo "$m $(( ($(date +%s%N) - t0) / 1000000 ))" \
				>>"$JOB_OUT/host/$a-share-ms.txt"
		done
		# FinePack's configuration: the per-sector path and FinePack's queue.
		for m in off finepack; do
			"$tool" run --host --json --config finepack --finepack "$m" \
				"prog/$a.prog" >"$JOB_OUT/host/$a-fp-$m.json"
		done
		# CPElide's configuration: its command processor's policies.
		for m in baseline cpelide hmg ideal; do
			"$tool" run --host --json --config cpelide --cpelide "$m" \
				"prog/$a.prog" >"$JOB_OUT/host/$a-cpe-$m.json"
		done
		# ADSM's configuration: CUDA's explicit copies, then each protocol.
		for m in off batch lazy rolling; do
			"$tool" run --host --json --config adsm --adsm "$m" \
				"prog/$a.prog" >"$JOB_OUT/host/$a-adsm-$m.json"
		done
		# CXL-GPU's configuration: GPU memory, then every object in CXL
		# memory (Z-NAND) without SR, with SR, with SR and DS. Its Vortex
		# cores hold 8 warps: an application with larger blocks does not
		# fit (the error is kept, the report says so).
		for m in off znand:sr=off znand znand:ds=on; do
			if "$tool" run --host --json --config cxl --cxl "$m" \
				"prog/$a.prog" >cxl.json 2>"$JOB_OUT/host/$a-cxl.err"; then
				mv cxl.json "$JOB_OUT/host/$a-cxl-${m//[:=]/-}.json"
			fi
		done
		# CXL-GPU's Fig 9: its baselines UVM (pages migrated from host
		# memory on faults) and GDS (from the Z-NAND storage), CXL on a
		# DRAM endpoint (Fig 9a), and there the commercial controller's
		# 250 ns round trip beside the paper's 80 ns (on the DRAM
		# endpoint the controller is on every access's path; on Z-NAND
		# the media hide it). UVM and GDS take seconds; each DRAM
		# endpoint run as long as a Z-NAND one (docs/gpu.md, UVM and GDS
		# in the core). Only where the application fits the cores.
		if [ -e "$JOB_OUT/host/$a-cxl-off.json" ]; then
			for m in uvm gds dram dram:ctrl=250; do
				"$tool" run --host --json --config cxl --cxl "$m" \
					"prog/$a.prog" >"$JOB_OUT/host/$a-cxl-${m//[:=]/-}.json"
			done
		fi ;;
	fp-*)
		# FinePack §VI: P2P stores, write combining, FinePack, bulk DMA,
		# GPS [31] and §VI-B's config-packet design on FinePack's
		# configuration (docs/gpu.md, FinePack in the core).
		a=$1 s=$2
		mkdir -p "$JOB_OUT/fp"
		"$tool" workload gen "$a" --size "$s" -o "prog/$a.prog"
		for m in p2p wc finepack dma gps alt; do
			"$tool" run --host --json --config finepack --finepack "$m" \
				"prog/$a.prog" >"$JOB_OUT/fp/$a-$m.json"
		done ;;
	guest-equal)
		# The host's runs of the same small programs, beside the device's.
		mkdir -p "$JOB_OUT/equal-host"
		for a in gups spmv; do
			"$tool" workload gen "$a" -o "prog/$a.prog"
			for m in off on fbarre; do
				"$tool" run --host --json --barre "$m" "prog/$a.prog" \
					>"$JOB_OUT/equal-host/$a-$m.json"
			done
			"$tool" run --host --json --config finepack --finepack finepack \
				"prog/$a.prog" >"$JOB_OUT/equal-host/$a-fp-finepack.json"
			"$tool" run --host --json --config cpelide --cpelide cpelide \
				"prog/$a.prog" >"$JOB_OUT/equal-host/$a-cpe-cpelide.json"
			for m in least valkyrie; do
				"$tool" run --host --json --barre "$m" "prog/$a.prog" \
					>"$JOB_OUT/equal-host/$a-$m.json"
			done
		done
		guest_replays --timeout 1800 -- prog/gups.prog prog/spmv.prog <<-'EOF2'
			%-off.json run --json --barre off
			%-on.json run --json --barre on
			%-fbarre.json run --json --barre fbarre
			%-fp-finepack.json run --json --config finepack --finepack finepack
			%-cpe-cpelide.json run --json --config cpelide --cpelide cpelide
			%-least.json run --json --barre least
			%-valkyrie.json run --json --barre valkyrie
		EOF2
		;;
	esac
}

reduce() {
	python3 "$(dirname "$0")/gpu_report.py" "$1" "$2"
}

dispatch "$@"
