#!/usr/bin/env bash
# Records the --host replay JSON of every workload generator and preset,
# under the options each mechanism's experiments use, into OUTDIR (one
# file a replay), so a refactoring can be checked byte for byte:
#   tools/scripts/record-replays.sh OUTDIR [TOOL]
#   diff -r OLD NEW
set -euo pipefail
out=${1:?usage: record-replays.sh OUTDIR [TOOL]}
tool=${2:-build/tools/mcmgpu}
mkdir -p "$out/traces"
t="$out/traces"
n=0
rec() {	# rec NAME CMD...: stdout and exit status of CMD into OUTDIR/NAME
	local name=$1 rc=0
	shift
	"$@" >"$out/$name.json" 2>"$out/$name.err" || rc=$?
	# Wall-clock times are the only numbers allowed to differ.
	sed -i -E 's/"(wall_ns)": [0-9]+/"\1": -/g' "$out/$name.json"
	echo "exit $rc" >>"$out/$name.json"
	n=$((n + 1))
	[ -t 2 ] && printf '\r  %d replays recorded' "$n" >&2
	return 0
}

for w in jacobi diffusion eqwp pagerank sssp pagerank-random sssp-random hit als ct; do
	for c in 2 4; do
		"$tool" finepack gen "$w" --chiplets "$c" -o "$t/fp-$w-$c.bin" >/dev/null
		rec "finepack-$w-$c" "$tool" finepack replay "$t/fp-$w-$c.bin" --host --chiplets "$c" --json --verify
	done
	rec "finepack-$w-4-o24" "$tool" finepack replay "$t/fp-$w-4.bin" --host --json --overhead 24 --subheader 3
done
rec finepack-analytic "$tool" finepack analytic --json

for w in $("$tool" cpelide gen --list | awk '{print $1}'); do
	"$tool" cpelide gen "$w" --chiplets 4 -o "$t/cpe-$w.seq" >/dev/null
	for p in baseline cpelide ideal hmg; do
		rec "cpelide-$w-$p" "$tool" cpelide replay "$t/cpe-$w.seq" --host --policy "$p" --json
	done
	rec "cpelide-$w-cache" "$tool" cpelide replay "$t/cpe-$w.seq" --host --remote cache --json
done

for w in $("$tool" barre gen --list | awk '{print $1}'); do
	for c in 4 8; do
		"$tool" barre gen "$w" --chiplets "$c" --accesses 1024 -o "$t/barre-$w-$c.trace" >/dev/null
		for opt in "--barre off" "--barre on" "--mode sched" "--mode fbarre" \
			"--mode fbarre --merge 2" "--mode fbarre --drop 30"; do
			[ "$c" = 8 ] && [[ $opt == *merge* ]] && continue
			rec "barre-$w-$c-${opt//[ -]/}" "$tool" barre replay "$t/barre-$w-$c.trace" \
				--host --chiplets "$c" --vram-per-chiplet 256M $opt
		done
	done
done

for w in $("$tool" cxl gen --list | awk '{print $1}'); do
	"$tool" cxl gen "$w" --records 20000 -o "$t/cxl-$w.trace" >/dev/null
	for opt in "--sr off" "--sr naive" "--sr dyn" "--sr sr" "--sr max" "--ds on" \
		"--ds on --no-gc" "--ctrl-ns 250" "--local" "--media optane" \
		"--ways 2 --granularity 4096"; do
		rec "cxl-$w-${opt//[ -]/}" "$tool" cxl replay "$t/cxl-$w.trace" --host --json $opt
	done
done

for p in pc iter stencil vadd multipass io; do
	for proto in batch lazy rolling explicit; do
		rec "adsm-$p-$proto" "$tool" adsm run "$p" --host --protocol "$proto" --size 256K --json
	done
done
echo >&2
echo "$n replays in $out"
