#!/usr/bin/env bash
# make check: the traces experiment (tools/experiments/69-traces.sh, make run
# TRACES=DIR) on a directory shaped like a user's: a real-shaped Accel-Sim
# trace (selftests/accelsim-xcheck/v5-real: a CUTLASS GEMM whose blocks
# need 48 KiB of shared memory), an exported application with one kernel
# file xz-compressed and no objects file, and a text program. Checks that
# every trace is reduced, that the report's ratios are the runs' own
# (recomputed from a run made here by hand), that the safety columns hold
# (true walks, the oracle, ideal's bound), that a block too large for a
# preset widens the SM and says so, and that bad directories are refused
# by name. Prints "ok" lines; fails with a reason.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd -P)
tool=${1:-$top/build/tools/mcmgpu}
mkdir -p "$top/build"
work=$(mktemp -d "$top/build/traces-check.XXXXXX")
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

tr=$work/traces
mkdir -p "$tr"
cp -r "$top/selftests/accelsim-xcheck/v5-real" "$tr/"
"$tool" workload gen bfs --size 8 -o "$work/bfs.prog" || fail "workload gen bfs"
"$tool" workload export "$work/bfs.prog" -o "$tr/bfs-at" || fail "workload export"
rm "$tr/bfs-at/mcmgpu-objects"
xz "$tr/bfs-at/kernel-2.traceg" || fail "xz"
sed -i 's/kernel-2.traceg$/kernel-2.traceg.xz/' "$tr/bfs-at/kernelslist.g"
"$tool" workload gen spmv --size 512 -o "$work/spmv.prog" || fail "workload gen spmv"
"$tool" workload convert "$work/spmv.prog" -o "$tr/spmv.txt" || fail "workload convert"
echo "not a trace" >"$tr/README"
mkdir "$tr/not-a-trace"

res=$work/results
MCMGPU_RESULTS=$res bash "$top/tools/scripts/run-experiments.sh" --only traces \
	--traces "$tr" -j 2 >"$work/run.log" 2>&1 ||
	{ tail -n 20 "$work/run.log"; fail "run-experiments --only traces --traces failed"; }
grep -q "^reduced traces" "$work/run.log" || fail "traces was not reduced"
echo "ok: three traces (Accel-Sim with .xz, real-shaped, text program) run and reduced"

python3 - "$res/traces.json" "$res/report.md" <<'PY' || exit 1
import json, sys
d = json.load(open(sys.argv[1]))
rep = open(sys.argv[2]).read()
def fail(m):
    print("FAIL:", m)
    sys.exit(1)
want = {"bfs-at", "spmv", "v5-real"}
if set(d["traces"]) != want:
    fail(f"traces {sorted(d['traces'])}, want {sorted(want)}")
for t, v in d["traces"].items():
    if f"| {t} |" not in rep:
        fail(f"{t} has no row in the report")
    if v["barre"]["shadow_mismatches"]:
        fail(f"{t}: {v['barre']['shadow_mismatches']} translations differ from a true walk")
    c = v["cpelide"]
    if c["oracle_violations"] or not c["ideal_bound"]:
        fail(f"{t}: oracle {c['oracle_violations']}, ideal bound {c['ideal_bound']}")
    for paper in ("barre", "finepack", "cpelide"):
        if any(x is None for x in v[paper]["cycles"].values()):
            fail(f"{t}: a {paper} mode did not run: {v[paper]['cycles']}")
w = {(x["trace"], x["paper"]): x["settings"] for x in d["widened"]}
if w.get(("v5-real", "CXL-GPU")) != ["shmem_per_sm=49152"]:
    fail(f"v5-real's CXL-GPU runs: widened {w.get(('v5-real', 'CXL-GPU'))}, want shmem_per_sm=49152")
if ("spmv", "Barre Chord") in w:
    fail("spmv was widened on Barre's preset, whose SMs hold its blocks")
if "shmem_per_sm=49152" not in rep:
    fail("the report does not name the widened setting")
if d["errors"]:
    fail(f"runs failed: {d['errors']}")
PY
echo "ok: no translation differs from a true walk, the oracle is clean, ideal bounds every policy"

# The report's ratio is the runs' own: CPElide over HMG for spmv by hand.
for m in cpelide hmg; do
	"$tool" run --host --json --config cpelide --cpelide "$m" "$tr/spmv.txt" >"$work/$m.json" ||
		fail "mcmgpu run --cpelide $m"
done
python3 - "$res/traces.json" "$work/cpelide.json" "$work/hmg.json" <<'PY' || exit 1
import json, sys
d = json.load(open(sys.argv[1]))["traces"]["spmv"]["cpelide"]
c, h = (json.load(open(p))["gpu"]["cycles"] for p in sys.argv[2:4])
if (d["cycles"]["cpelide"], d["cycles"]["hmg"]) != (c, h) or \
        abs(d["cpelide_over_hmg"] - h / c) > 1e-12:
    print(f"FAIL: spmv CPElide over HMG {d['cpelide_over_hmg']}, by hand {h}/{c}")
    sys.exit(1)
PY
echo "ok: the report's CPElide over HMG equals a run made by hand"

# Refusals, each naming what is wrong.
mkdir "$work/empty"
out=$(MCMGPU_RESULTS=$work/r2 bash "$top/tools/scripts/run-experiments.sh" --only traces \
	--traces "$work/empty" --list 2>&1) && fail "an empty TRACES directory was accepted"
grep -q "holds no Accel-Sim trace directory" <<<"$out" || fail "empty directory: $out"
out=$(MCMGPU_RESULTS=$work/r2 bash "$top/tools/scripts/run-experiments.sh" --only traces \
	--traces "$work/missing" --list 2>&1)
[ $? = 2 ] || fail "a missing TRACES directory did not exit 2"
grep -q "missing' is not a directory" <<<"$out" || fail "missing directory: $out"
cp "$tr/spmv.txt" "$tr/spmv.prog"
out=$(MCMGPU_RESULTS=$work/r2 bash "$top/tools/scripts/run-experiments.sh" --only traces \
	--traces "$tr" --list 2>&1) && fail "two traces named spmv were accepted"
grep -q "would both be job trace-spmv" <<<"$out" || fail "duplicate names: $out"
echo "ok: empty, missing and ambiguous trace directories refused by name"

# Without TRACES: the two round trips.
n=$(bash "$top/tools/experiments/69-traces.sh" jobs | grep -c 'roundtrip app ')
[ "$n" = 2 ] || fail "without TRACES the job list has $n round trips, not 2"
echo "ok: without TRACES, two applications round-tripped through Accel-Sim's format"
