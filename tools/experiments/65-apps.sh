#!/usr/bin/env bash
# The applications' characterization beside the papers' (issue 29 item 3,
# docs/workloads.md "Characterization"): each application a paper's table
# names, generated at the GPU experiment's size (gpu-sizes.txt), FinePack's
# applications at fp-sizes.txt's, or else its large size, and measured on
# that paper's configuration of the GPU core:
# L2 TLB misses per kilo warp instruction on Barre's (a conventional IOMMU,
# Barre off; Table I), the share of remote stores under 32 B on
# FinePack's (§I), the L2 miss-rate reduction inter-kernel reuse gives on
# CPElide's (baseline against ideal; Table II's classes) and the compute
# and load shares of the instructions (CXL-GPU's workload table, from the
# program itself); ADSM's protocols against CUDA's explicit copies on
# ADSM's (Figs. 7 and 8, the Parboil programs). One job an application.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

tables=$top/tools/experiments/paper_tables.py

list_jobs() {
	local a s have
	have=$("$tool" workload list --json | python3 -c \
		'import json, sys; print(" ".join(a["name"] for a in json.load(sys.stdin)["apps"]))')
	for a in $(python3 "$tables"); do
		# An application not written yet is reported as such.
		case " $have " in *" $a "*) ;; *) continue ;; esac
		s=$(awk -v a="$a" '$1 == a { print $2 }' "$top/tools/experiments/gpu-sizes.txt")
		# FinePack's applications at the size its comparison runs them.
		[ -n "$s" ] || s=$(awk -v a="$a" '$1 == a { print $2 }' \
			"$top/tools/experiments/fp-sizes.txt")
		emit "host-$a" "$a" "${s:-large}"
	done
	# ADSM's sweeps through the core: Fig. 9's stencil volumes (64^3 and
	# 128^3: 192^3 and up take minutes a run) and Fig. 11's vector add.
	emit adsm-fig9-64 64
	emit adsm-fig9-128 128
	emit adsm-fig11
	# Fig. 12's multi-pass initialisation, a job a rolling size. Fig. 10
	# (rolling's time breakdown) needs no job of its own: it reads each
	# Parboil program's host-APP run under --adsm rolling.
	emit adsm-fig12-1 1
	emit adsm-fig12-2 2
	emit adsm-fig12-4 4
}

# Fig. 9's blocks (4 KiB, 256 KiB, 1 MiB, 32 MiB) and Fig. 11's (4 KiB to
# 32 MiB, doubling).
FIG9_BLOCKS="4096 262144 1048576 33554432"
FIG11_BLOCKS="4096 8192 16384 32768 65536 131072 262144 524288 1048576 2097152 4194304 8388608 16777216 33554432"
# Fig. 12's blocks: 128 KiB to 32 MiB, doubling.
FIG12_BLOCKS="131072 262144 524288 1048576 2097152 4194304 8388608 16777216 33554432"

run_job() {
	local a=${2:-} s=${3:-} p size_opt b
	mkdir -p "$JOB_OUT"
	case "$1" in
	adsm-fig9-*)
		"$tool" workload gen adsm-stencil --size "$2" -o st.prog
		"$tool" run --host --json --config adsm --adsm lazy st.prog \
			>"$JOB_OUT/fig9-$2-lazy.json"
		for b in $FIG9_BLOCKS; do
			"$tool" run --host --json --config adsm --adsm rolling \
				--set adsm_block="$b" st.prog >"$JOB_OUT/fig9-$2-$b.json"
		done
		return ;;
	adsm-fig11)
		# Two vectors of 8 million elements (notes/adsm.md §3.4).
		"$tool" workload gen vadd --size 8000000 -o vadd.prog
		for b in $FIG11_BLOCKS; do
			"$tool" run --host --json --config adsm --adsm rolling \
				--set adsm_block="$b" vadd.prog >"$JOB_OUT/fig11-$b.json"
		done
		return ;;
	adsm-fig12-*)
		# The notes' multi-pass pattern (4 passes over 4 MiB), R fixed.
		"$tool" workload gen adsm-multipass --large -o mp.prog
		for b in $FIG12_BLOCKS; do
			"$tool" run --host --json --config adsm --adsm rolling \
				--set adsm_rolling="$2" --set adsm_block="$b" \
				mp.prog >"$JOB_OUT/fig12-$2-$b.json"
		done
		return ;;
	esac
	if [ "$s" = large ]; then size_opt=(--large); else size_opt=(--size "$s"); fi
	"$tool" workload gen "$a" "${size_opt[@]}" -o "$a.prog"
	"$tool" workload stats --json "$a.prog" >"$JOB_OUT/$a-stats.json"
	for p in $(python3 "$tables" "$a"); do
		case "$p" in
		barre)
			"$tool" run --host --json --config barre --barre off "$a.prog" \
				>"$JOB_OUT/$a-barre.json" ;;
		finepack)
			"$tool" run --host --json --config finepack --finepack finepack \
				"$a.prog" >"$JOB_OUT/$a-finepack.json" ;;
		cpelide)
			# Only the boundary syncs differ: ideal keeps remote
			# lines, so the baseline keeps them too (cpe_remote).
			for m in baseline ideal; do
				"$tool" run --host --json --config cpelide --cpelide "$m" \
					--set cpe_remote=cache "$a.prog" \
					>"$JOB_OUT/$a-cpe-$m.json"
			done ;;
		adsm)
			# Fig. 7 and 8: CUDA's explicit copies, then each protocol.
			for m in off batch lazy rolling; do
				"$tool" run --host --json --config adsm --adsm "$m" \
					"$a.prog" >"$JOB_OUT/$a-adsm-$m.json"
			done ;;
		esac
	done
}

reduce() {
	python3 "$(dirname "$0")/apps_report.py" "$1" "$2"
}

dispatch "$@"
