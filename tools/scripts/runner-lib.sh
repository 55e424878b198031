# shellcheck shell=bash disable=SC2154  # $top and $results come from the runner
# What the local runner (run-experiments.sh) and the Slurm runner
# (slurm-run.sh) share: choosing experiments, writing their job lists,
# forgetting results a new build made stale, reducing and the report.
# Sourced; needs $top and $results. MCMGPU_EXPERIMENTS names another
# directory of experiment scripts (the runners' own tests use one).
expdir=${MCMGPU_EXPERIMENTS:-$top/tools/experiments}

# The experiment scripts named by a comma or space separated list of names
# (finepack, cxl, ...), or all of them for an empty list.
# --traces DIR (make run TRACES=DIR): the traces experiment's directory,
# exported as an absolute MCMGPU_TRACES; WHO names the runner in the error.
use_traces() {
	local who=$1 dir=$2
	[ -d "$dir" ] ||
		{ echo "$who: --traces: '$dir' is not a directory" >&2; return 2; }
	MCMGPU_TRACES=$(realpath "$dir")
	export MCMGPU_TRACES
}

select_experiments() {
	local want=${1//,/ } e name found
	for w in $want; do
		found=0
		for e in "$expdir"/[0-9][0-9]-*.sh; do
			name=$(basename "$e" .sh)
			[ "${name#[0-9][0-9]-}" = "$w" ] && found=1
		done
		[ "$found" = 1 ] || {
			echo "unknown experiment '$w'; there are:" \
				"$(experiment_names | tr '\n' ' ')" >&2
			return 2
		}
	done
	for e in "$expdir"/[0-9][0-9]-*.sh; do
		name=$(basename "$e" .sh)
		name=${name#[0-9][0-9]-}
		if [ -z "$want" ] || [[ " $want " == *" $name "* ]]; then
			echo "$e"
		fi
	done
}

experiment_names() {
	local e
	for e in "$expdir"/[0-9][0-9]-*.sh; do
		e=$(basename "$e" .sh)
		echo "${e#[0-9][0-9]-}"
	done
}

exp_name() {
	local e
	e=$(basename "$1" .sh)
	echo "${e#[0-9][0-9]-}"
}

# What a result depends on besides its job line: the experiment's script and
# everything a job runs (tool, guest image with the modules, guest kernel,
# QEMU, the harness and the job machinery). The guest image is reproducible
# (mkinitramfs.sh), so an unchanged build keeps its results.
build_identity() {
	local qemu=${MCMGPU_QEMU:-${MCMGPU_CACHE:-$HOME/.cache/mcmgpu}/qemu-system-x86_64}
	local kernel f
	kernel=/boot/vmlinuz-$("$top/tools/scripts/kver.sh" 2>/dev/null)
	for f in "$top/build/tools/mcmgpu" "$top/build/initramfs.cpio.gz" "$qemu" \
		"$kernel" "$top/tools/vm-run" "$top/tools/scripts/run-job" \
		"$top/tools/scripts/job_results.py" "$top/tools/experiments/lib.sh" \
		"$top/tools/experiments/finepack_mix.py"; do
		if [ -e "$f" ]; then sha256sum <"$f"; else echo "missing $f"; fi
	done
}

# Write results/jobs/EXP.jobs for each experiment script given and
# results/jobs/run.jobs, the longest expected first (the durations of
# earlier runs; without them guest jobs first, they are the long ones). An
# experiment whose job list, script or build changed loses its old results.
# FRESH=1 forgets every selected experiment's results; LIST_ONLY=1 writes
# the lists and touches no result.
prepare_jobs() {
	local e name list stamp build
	mkdir -p "$results/jobs" "$results/raw" "$results/sections"
	build=$(build_identity)
	: >"$results/jobs/run.jobs.new"
	for e in "$@"; do
		name=$(exp_name "$e")
		list=$results/jobs/$name.jobs
		(cd "$top" && bash "$e" jobs) >"$list.new" ||
			{ echo "$name: its job list failed" >&2; return 1; }
		mv "$list.new" "$list"
		stamp=$( { cat "$list" "$e"; echo "$build"; } | sha256sum | cut -c1-16)
		if [ "${LIST_ONLY:-0}" = 1 ]; then
			:
		elif [ "${FRESH:-0}" = 1 ] ||
		   [ "$(cat "$results/raw/$name/.stamp" 2>/dev/null)" != "$stamp" ]; then
			[ -d "$results/raw/$name" ] &&
				echo "$name: job list or build changed, starting it afresh" >&2
			rm -rf "$results/raw/$name" "$results/logs/$name" "$results/tmp/$name"
			mkdir -p "$results/raw/$name"
			echo "$stamp" >"$results/raw/$name/.stamp"
		fi
		cat "$list" >>"$results/jobs/run.jobs.new"
	done
	python3 "$top/tools/scripts/job_results.py" order "$results/jobs/run.jobs.new" \
		"$results/jobs/durations" >"$results/jobs/run.jobs"
	rm -f "$results/jobs/run.jobs.new"
}

# The jobs of LIST without a result yet, by name.
missing_jobs() {
	python3 "$top/tools/scripts/job_results.py" missing "$1" "$results"
}

# Reduce each experiment whose jobs all have results; for the others, a
# section that names the missing jobs. Returns 1 if any was incomplete.
reduce_experiments() {
	local e name miss raw rc=0
	for e in "$@"; do
		name=$(exp_name "$e")
		miss=$(missing_jobs "$results/jobs/$name.jobs")
		rm -f "$results/sections/"[0-9][0-9]-"$name.md"
		if [ -n "$miss" ]; then
			{
				echo "## $name: not reduced"
				echo
				echo "These jobs have no result (see results/logs/$name/):"
				echo
				# shellcheck disable=SC2086  # one line per job name
				printf -- '- %s\n' $miss
			} >"$results/sections/$(basename "$e" .sh).md"
			rc=1
			continue
		fi
		raw=$(mktemp -d)
		if python3 "$top/tools/scripts/job_results.py" unpack "$raw" "$results/raw/$name/"*.json &&
			(cd "$results" && bash "$e" reduce "$raw" "$results"); then
			echo "reduced $name"
		else
			echo "$name: the reducer failed" >&2
			printf '## %s: not reduced\n\nIts reducer failed (run %s).\n' \
				"$name" "tools/scripts/run-experiments.sh --reduce-only --only $name" \
				>"$results/sections/$(basename "$e" .sh).md"
			rc=1
		fi
		rm -rf "$raw"
	done
	return "$rc"
}

write_report() {
	local s
	{
		echo "# mcmgpu results"
		echo
		echo "Written by \`make run\` from commit" \
			"$(git -C "$top" rev-parse --short HEAD 2>/dev/null || echo unknown)." \
			"Every figure comes from a guest booted under QEMU (TCG) with the"
		echo "mcmgpu device, or from the host core the device's replays equal;"
		echo "each job's raw JSON is in \`results/raw/\`."
		# Each paper's headlines beside ours, from the results/*.json the
		# reducers wrote (tools/experiments/headlines.py).
		echo
		(cd "$top/tools/experiments" && python3 headlines.py "$results") ||
			echo "(the headline table failed: python3 tools/experiments/headlines.py $results)"
		for s in "$results"/sections/*.md; do
			[ -e "$s" ] || continue
			echo
			cat "$s"
		done
	} >"$results/report.md"
	echo "wrote $results/report.md"
}
