#!/usr/bin/env bash
# make run: every experiment in tools/experiments/ (in name order) boots the
# guest, runs its tools, writes results/<name>.json and a report section
# results/sections/<name>.md; the sections make results/report.md.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
mkdir -p results/sections
rm -f results/sections/*.md

for e in tools/experiments/*.sh; do
	name=$(basename "$e" .sh)
	echo "experiment $name..."
	bash "$e" "$top/results" || { echo "experiment $name failed" >&2; exit 1; }
done

{
	echo "# mcmgpu results"
	echo
	echo "Written by \`make run\` on $(date -u +%Y-%m-%d) from commit" \
		"$(git rev-parse --short HEAD 2>/dev/null || echo unknown)." \
		"Every figure comes from a guest booted under QEMU (TCG) with the"
	echo "mcmgpu device; raw numbers are in \`results/*.json\`."
	for s in results/sections/*.md; do
		echo
		cat "$s"
	done
} >results/report.md
echo "wrote results/report.md"
