#!/usr/bin/env bash
# The applications' characterization beside the papers' (issue 29 item 3,
# docs/workloads.md "Characterization"): each application a paper's table
# names, generated at the GPU experiment's size (gpu-sizes.txt) or else its
# large size, and measured on that paper's configuration of the GPU core:
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
		emit "host-$a" "$a" "${s:-large}"
	done
}

run_job() {
	local a=$2 s=$3 p size_opt
	mkdir -p "$JOB_OUT"
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
			for m in baseline ideal; do
				"$tool" run --host --json --config cpelide --cpelide "$m" \
					"$a.prog" >"$JOB_OUT/$a-cpe-$m.json"
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
