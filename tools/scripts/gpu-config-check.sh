#!/usr/bin/env bash
# make check: `mcmgpu gpu config` on the host. Every preset's --json
# parses, with a value and a source for each parameter; --set overrides
# show up as such; an unknown preset, a bad --set and an inconsistent
# result are usage errors (exit 2).
# Usage: tools/scripts/gpu-config-check.sh [MCMGPU]
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
tool=${1:-$top/build/tools/mcmgpu}

"$tool" gpu config barre --json | python3 -c 'import json, sys; json.load(sys.stdin)'
presets=$("$tool" gpu config --json |
	python3 -c 'import json, sys; print(" ".join(p["name"] for p in json.load(sys.stdin)["presets"]))')
[ -n "$presets" ] || { echo "no presets listed"; exit 1; }
for p in $presets; do
	"$tool" gpu config "$p" --json | python3 -c '
import json, sys
d = json.load(sys.stdin)
name = sys.argv[1]
assert d["preset"] == name and d["title"], name
assert d["config"] and d["config"].keys() == d["sources"].keys(), name
for k, v in d["config"].items():
	assert isinstance(v, int), (name, k)
	assert d["sources"][k], (name, k)
' "$p"
	"$tool" gpu config "$p" >/dev/null
done
"$tool" gpu config cpelide --json --set l2_size=4M --set warp_sched=lrr | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["config"]["l2_size"] == 4 << 20 and d["config"]["warp_sched"] == 0
assert d["sources"]["l2_size"] == "--set l2_size=4M"
'
for bad in "nosuch" "--set l2_tlb_ways=0" "--set chiplets=17" "--set x" \
	"--set warp_sched=foo" "--set l1_ways=3"; do
	rc=0
	# shellcheck disable=SC2086
	"$tool" gpu config $bad >/dev/null 2>&1 || rc=$?
	[ "$rc" = 2 ] || { echo "gpu config $bad: exit $rc, not 2"; exit 1; }
done
echo "gpu config: $(echo "$presets" | wc -w) presets checked"
