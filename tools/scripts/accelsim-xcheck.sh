#!/usr/bin/env bash
# make check: `mcmgpu workload stats DIR --json` against counts taken
# independently from the trace text (tools/scripts/accelsim-stats.py) on
# the hand-written directories in selftests/accelsim-xcheck/ (each with
# hand-derived counts), two generated ones (accelsim-gen.py) and the
# Accel-Sim exports of two applications, with and without the objects
# sidecar (so the inferred objects are compared too), and one directory
# again with its traces xz-compressed as the tracer writes them.
# Usage: tools/scripts/accelsim-xcheck.sh [MCMGPU]
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
tool=${1:-$top/build/tools/mcmgpu}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

python3 "$top/tools/scripts/accelsim-gen.py" "$tmp/gen1" --mib 1 --seed 1 --kernels 1
python3 "$top/tools/scripts/accelsim-gen.py" "$tmp/gen2" --mib 1 --seed 7 --kernels 3
for app in spmv bfs; do
	"$tool" workload gen "$app" -o "$tmp/$app.prog"
	"$tool" workload export "$tmp/$app.prog" -o "$tmp/$app"
	cp -r "$tmp/$app" "$tmp/$app-inferred"
	rm "$tmp/$app-inferred/mcmgpu-objects"
done
# The tracer's default output: every kernel trace compressed with xz.
cp -r "$top/selftests/accelsim-xcheck/v5-real" "$tmp/v5-real-xz"
xz "$tmp"/v5-real-xz/kernel-*.traceg
sed -i 's/\.traceg$/.traceg.xz/' "$tmp/v5-real-xz/kernelslist.g"
python3 "$top/tools/scripts/accelsim-stats.py" --tool "$tool" \
	"$top"/selftests/accelsim-xcheck/*/ "$tmp"/gen1 "$tmp"/gen2 \
	"$tmp"/spmv "$tmp"/spmv-inferred "$tmp"/bfs "$tmp"/bfs-inferred \
	"$tmp"/v5-real-xz
