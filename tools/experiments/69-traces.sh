#!/usr/bin/env bash
# Every paper's comparison on programs you bring (issue 30: "the same
# experiments run from real traces"; docs/experiments.md, Your own
# traces): `make run TRACES=DIR` runs each Accel-Sim trace directory in DIR
# (one holding kernelslist.g, or DIR itself) and each program (*.prog,
# *.txt) through the GPU core on the host under each paper's preset and
# every mode its figures compare: Barre Chord (translation off, a
# conventional IOMMU, Barre, F-Barre, Least, Valkyrie), FinePack (P2P,
# write combining, FinePack, bulk DMA, GPS, §VI-B's design), CPElide
# (baseline, CPElide, HMG, ideal), CXL-GPU (GPU-DRAM, CXL, CXL-SR,
# CXL-SR + DS, UVM, GDS on Z-NAND) and ADSM (CUDA's copies, batch, lazy,
# rolling). A mode a program cannot run under (blocks larger than a
# preset's cores, say) keeps its error and the others go on.
#
# Without TRACES the same runs go to two of our applications written out
# as Accel-Sim traces by `mcmgpu workload export` and imported back
# without the objects file (so their objects are what the copies in
# kernelslist.g imply, as for a tracer's output): the path a real trace
# takes, end to end. One job a trace.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

# The round trips make run does without TRACES: APP SIZE (small sizes;
# bfs writes 16-warp blocks, which CXL-GPU's Vortex cores refuse).
ROUND_TRIPS="bfs:12 spmv:4096"

# A trace's key for the job list: its files' names and sizes, so a trace
# changed in place starts the experiment afresh.
fingerprint() {
	if [ -d "$1" ]; then
		(cd "$1" && find . -maxdepth 1 -type f -printf '%P %s\n' | LC_ALL=C sort)
	else
		stat -c '%s' "$1"
	fi | sha256sum | cut -c1-12
}

# Whether DIR is an Accel-Sim trace directory (kernelslist.g, plain or xz).
is_trace_dir() {
	[ -d "$1" ] && { [ -e "$1/kernelslist.g" ] || [ -e "$1/kernelslist.g.xz" ]; }
}

# The job name of a trace: its file name without extension, in the
# characters a job name may hold.
trace_name() {
	local n=${1%/}
	n=${n##*/}
	n=${n%.prog}
	n=${n%.txt}
	n=${n//[^A-Za-z0-9_.-]/_}
	echo "${n:-trace}"
}

list_jobs() {
	local dir=${MCMGPU_TRACES:-} e as n t kind
	local -A seen=()
	if [ -z "$dir" ]; then
		for as in $ROUND_TRIPS; do
			emit "trace-${as%%:*}-roundtrip" app "${as%%:*}" "${as#*:}"
		done
		return
	fi
	[ -d "$dir" ] || { echo "traces: TRACES=$dir is not a directory" >&2; return 2; }
	dir=$(realpath "$dir")
	n=0
	if is_trace_dir "$dir"; then
		emit "trace-$(trace_name "$dir")" accelsim "$dir" "$(fingerprint "$dir")"
		return
	fi
	for e in "$dir"/*; do
		if is_trace_dir "$e"; then
			kind=accelsim
		elif [ -f "$e" ] && [[ "$e" == *.prog || "$e" == *.txt ]]; then
			kind=prog
		else
			continue
		fi
		t=$(trace_name "$e")
		if [ -n "${seen[$t]:-}" ]; then
			echo "traces: ${seen[$t]##*/} and ${e##*/} in TRACES=$dir would both be job trace-$t; rename one" >&2
			return 2
		fi
		seen[$t]=$e
		emit "trace-$t" "$kind" "$e" "$(fingerprint "$e")"
		n=$((n + 1))
	done
	[ "$n" -gt 0 ] || {
		echo "traces: TRACES=$dir holds no Accel-Sim trace directory (with kernelslist.g) and no .prog or .txt program" >&2
		return 2
	}
}

# One run: OUT, then mcmgpu run's options. A block larger than the
# preset's SM (warps, shared memory, registers: real traces' blocks often
# are, CXL-GPU's Vortex cores hold 8 warps and 16 KiB) gets an SM just
# large enough, as 64-cxl-core.sh runs bfs, gauss and mri; the settings
# go to OUT.widened. A run that fails otherwise keeps its error in
# OUT.err; the job goes on.
one() {
	local out=$1 try field wide=()
	shift
	runs=$((runs + 1))
	echo "traces: $name: run $runs of $RUNS: $out" >&2
	for try in 1 2 3 4; do
		if "$tool" run --host --json "$@" "${wide[@]}" prog.prog >run.json 2>run.err; then
			mv run.json "$out_dir/$out.json"
			[ "${#wide[@]}" = 0 ] || echo "${wide[*]}" >"$out_dir/$out.widened"
			return
		fi
		field=$(sed -n 's/.*a block needs \([0-9]*\), more than \([a-z_]*\) (.*/\2=\1/p' run.err | tail -n 1)
		if [ -z "$field" ] || [ "$try" = 4 ]; then
			break
		fi
		wide+=(--set "$field")
	done
	echo "mcmgpu run $*${wide[*]:+ ${wide[*]}}: $(tail -n 3 run.err | tr '\n' ' ')" >"$out_dir/$out.err"
}

# Each paper's modes, in the order the report reads them.
BARRE_MODES=(off on fbarre least valkyrie)
FP_MODES=(p2p wc finepack dma gps alt)
CPE_MODES=(baseline cpelide hmg ideal)
CXL_MODES=(off znand:sr=off znand znand:ds=on uvm gds dram)
ADSM_MODES=(off batch lazy rolling)
# The progress line's total: translation off, then every mode.
RUNS=$((1 + ${#BARRE_MODES[@]} + ${#FP_MODES[@]} + ${#CPE_MODES[@]} +
	${#CXL_MODES[@]} + ${#ADSM_MODES[@]}))

run_job() {
	local job=$1 kind=$2 src=$3 m
	# Every job's files in one directory of its own (the reducer sees
	# the jobs' files merged).
	name=${job#trace-}
	out_dir=$JOB_OUT/$name
	runs=0
	mkdir -p "$out_dir"
	case "$kind" in
	app)
		"$tool" workload gen "$src" --size "$4" -o gen.prog
		"$tool" workload export gen.prog -o at
		rm at/mcmgpu-objects
		"$tool" workload import at -o prog.prog
		echo "our $src at size $4, exported as Accel-Sim traces and imported without its objects file" \
			>"$out_dir/source.txt" ;;
	accelsim)
		"$tool" workload import "$src" -o prog.prog
		echo "Accel-Sim trace directory ${src##*/}" >"$out_dir/source.txt" ;;
	prog)
		"$tool" workload convert "$src" -o prog.prog --binary
		echo "program ${src##*/}" >"$out_dir/source.txt" ;;
	*) echo "traces: no kind '$kind'" >&2; return 2 ;;
	esac
	"$tool" workload stats --json prog.prog >"$out_dir/stats.json"
	# Barre Chord (Table II's preset; Fig 15's baselines).
	one barre-notlb --set translate=0
	for m in "${BARRE_MODES[@]}"; do
		one "barre-$m" --barre "$m" --shadow
	done
	# FinePack (§VI, §VI-B).
	for m in "${FP_MODES[@]}"; do
		one "fp-$m" --config finepack --finepack "$m"
	done
	# CPElide (§V: its three policies and the ideal bound).
	for m in "${CPE_MODES[@]}"; do
		one "cpe-$m" --config cpelide --cpelide "$m"
	done
	# CXL-GPU (Fig 9b on Z-NAND; Fig 9a's UVM, GDS and the DRAM endpoint).
	for m in "${CXL_MODES[@]}"; do
		one "cxl-${m//[:=]/-}" --config cxl --cxl "$m"
	done
	# ADSM (Fig 7: CUDA's explicit copies, then each protocol).
	for m in "${ADSM_MODES[@]}"; do
		one "adsm-$m" --config adsm --adsm "$m"
	done
}

reduce() {
	python3 "$(dirname "$0")/traces_report.py" "$1" "$2"
}

dispatch "$@"
