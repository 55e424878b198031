#!/usr/bin/env bash
# make check: `mcmgpu run --host` on bad input and on a good program. Each
# bad input (a missing file, not a program, a program cut in the middle of
# an instruction, an address in no object, a kernel over kernel_mib, bad
# options, mechanisms not in the core yet, bad --cxl specs, bad --streams) must exit non-zero with a
# message naming the problem; vadd's --json must parse with the counter
# identities holding (ADSM's bytes by cause, its faults by kind, under
# the adsm preset's explicit copies and each protocol, its time breakdown
# adding up to the run) and be the same,
# byte for byte, on a second run; an Accel-Sim trace directory runs as
# the program it imports to, and one without kernelslist.g is refused.
# Usage: tools/scripts/gpu-run-check.sh [MCMGPU]
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
tool=${1:-$top/build/tools/mcmgpu}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
checked=0

# expect_fail 'WORD...' ARGS...: `mcmgpu run --host ARGS` exits non-zero
# and its stderr holds every word (| separates them).
expect_fail() {
	local words=$1 rc=0 w
	shift
	"$tool" run --host "$@" >"$tmp/out" 2>"$tmp/err" || rc=$?
	if [ "$rc" = 0 ]; then
		echo "run $*: exit 0, expected a failure"
		exit 1
	fi
	IFS='|' read -ra ws <<<"$words"
	for w in "${ws[@]}"; do
		if ! grep -qF -- "$w" "$tmp/err"; then
			echo "run $*: exit $rc, message lacks '$w':"
			cat "$tmp/err"
			exit 1
		fi
	done
	checked=$((checked + 1))
}

"$tool" workload gen vadd -o "$tmp/vadd.bin"
"$tool" workload gen gups -o "$tmp/gups.bin"
# A kernel whose decoded instructions need more than 1 MiB.
"$tool" workload gen vadd --size 131072 -o "$tmp/big.bin"
echo 'hello, not a program' >"$tmp/hello.txt"
# Cut at an odd offset inside an instruction record.
head -c 1001 "$tmp/vadd.bin" >"$tmp/cut.bin"
cat >"$tmp/stray.txt" <<'EOF'
mcmgpu-program 1
object 0x10000 4096 a
kernel 1 grid=1,1,1 block=32,1,1 shmem=0 nregs=8 binary=70 stream=0 shmem_base=0 local_base=0 name=stray
block 0,0,0
warp 0 insts=2
0x100 0x1 mem.global.load.4 LDG.E d=1 s=2 @ 0x10010
0x110 0x1 mem.global.load.4 LDG.E d=1 s=2 @ 0x20000
end-block
end-kernel
end
EOF

expect_fail "$tmp/nosuch.bin|No such file" "$tmp/nosuch.bin"
expect_fail "hello.txt:1|not a program" "$tmp/hello.txt"
expect_fail "cut.bin|record 44|byte 1001|ends" "$tmp/cut.bin"
expect_fail "kernel 1 (stray)|warp 0 inst 1|0x20000|in no object" "$tmp/stray.txt"
expect_fail "kernel 1 (stray)|0x20000|in no object" "$tmp/stray.txt" --set translate=0
expect_fail "kernel 1 (vectorAdd)|kernel_mib" "$tmp/big.bin" --set kernel_mib=1
expect_fail "--chiplets|17" "$tmp/vadd.bin" --chiplets 17
expect_fail "vram_mib|65537 MiB x 16 chiplets|268435456 frames" "$tmp/vadd.bin" --chiplets 16 --barre on --set vram_mib=65537
expect_fail "--barre on|translate" "$tmp/vadd.bin" --barre on --set translate=0
expect_fail "nosuch=1|unknown field" "$tmp/vadd.bin" --set nosuch=1
expect_fail "--merge 2 needs --barre on or fbarre" "$tmp/vadd.bin" --merge 2 --barre off
expect_fail "xl_share=least needs Barre off" "$tmp/vadd.bin" --set xl_share=least --barre on
expect_fail "migrate|needs translate on" "$tmp/vadd.bin" --set migrate=acud --set translate=0
expect_fail "migrate_threshold=0|out of range" "$tmp/vadd.bin" --set migrate_threshold=0
expect_fail "mgvm|needs translate on" "$tmp/vadd.bin" --set mgvm=on --set translate=0
expect_fail "mgvm|migrate" "$tmp/vadd.bin" --set mgvm=on --set migrate=acud
expect_fail "mgvm_lat=0|out of range" "$tmp/vadd.bin" --set mgvm=on --set mgvm_lat=0
# MGvm's GMMUs are the host backend's: the device path refuses it by name.
rc=0
"$tool" run --set mgvm=on "$tmp/vadd.bin" >"$tmp/out" 2>"$tmp/err" || rc=$?
{ [ "$rc" != 0 ] && grep -qF -- "mgvm=on runs with --host only" "$tmp/err"; } ||
	{ echo "run --set mgvm=on on the device: exit $rc, not refused by name"; exit 1; }
checked=$((checked + 1))
expect_fail "--barre valkyrie needs translation" "$tmp/vadd.bin" --barre valkyrie --set translate=0
expect_fail "--barre: 'lest' is not" "$tmp/vadd.bin" --barre lest
expect_fail "cxl_media=on|bad value" "$tmp/vadd.bin" --cxl on
expect_fail "--cxl|unknown key 'speed'" "$tmp/vadd.bin" --cxl znand:speed=9
expect_fail "cxl_sr=fast|bad value" "$tmp/vadd.bin" --cxl znand:sr=fast
expect_fail "cxl_ports|1, 2, 4 or 8" "$tmp/vadd.bin" --cxl znand:ports=3
expect_fail "--cxl|unknown key 'speed'" "$tmp/vadd.bin" --cxl uvm:speed=9
expect_fail "--cxl|unknown key 'media'" "$tmp/vadd.bin" --cxl uvm:media=nand
expect_fail "uvm|not with cxl, adsm" "$tmp/vadd.bin" --cxl gds --adsm batch
expect_fail "uvm_page|power of two" "$tmp/vadd.bin" --cxl uvm:page=12288
expect_fail "cpelide=sometimes|bad value" "$tmp/vadd.bin" --cpelide sometimes
expect_fail "adsm=eager|bad value" "$tmp/vadd.bin" --adsm eager
expect_fail "adsm_block|power of two" "$tmp/vadd.bin" --adsm rolling --set adsm_block=12288
# Concurrent streams (docs/cpelide.md, Multi-stream in the core).
expect_fail "streams|must divide the chiplets" "$tmp/vadd.bin" --streams 3 --chiplets 4
expect_fail "streams|not with finepack" "$tmp/vadd.bin" --streams 2 --finepack p2p
expect_fail "--streams|is not 1..16" "$tmp/vadd.bin" --streams 99

# The good program: JSON, identities, the same twice.
nw=$("$tool" workload stats "$tmp/vadd.bin" --json |
	python3 -c 'import json, sys; print(json.load(sys.stdin)["warp_instructions"])')
for args in "" "--barre on" "--set translate=0 --chiplets 2" "--cpelide cpelide" \
	"--cpelide cpelide --streams 2" \
	"--cpelide cpelide --finepack p2p" "--cpelide hmg --finepack finepack" \
	"--config adsm" "--config adsm --adsm batch" "--config adsm --adsm lazy" \
	"--config adsm --adsm rolling" "--adsm lazy --barre on" \
	"--barre least" "--barre valkyrie" \
	"--config cxl --set translate=0 --cxl znand:sr=sr:ds=on" \
	"--config cxl --set translate=0 --cxl nand:sr=off:ports=1" \
	"--config cxl --set translate=0 --cxl uvm" \
	"--config cxl --set translate=0 --cxl gds:media=nand:gpu=8" \
	"--cxl uvm:batch=4:rt=1000" \
	"--barre on --set migrate=acud --set migrate_threshold=1 --prog gups" \
	"--set mgvm=on --prog gups" "--barre fbarre --merge 2 --set mgvm=on --prog gups"; do
	prog=$tmp/vadd.bin
	case "$args" in *"--prog gups") prog=$tmp/gups.bin args=${args% --prog gups} ;; esac
	# shellcheck disable=SC2086
	"$tool" run --host --json "$prog" $args >"$tmp/a.json"
	# shellcheck disable=SC2086
	"$tool" run --host --json "$prog" $args >"$tmp/b.json"
	cmp -s "$tmp/a.json" "$tmp/b.json" || { echo "run $args: two runs differ"; exit 1; }
	n=$nw
	[ "$prog" = "$tmp/vadd.bin" ] || n=$("$tool" workload stats "$prog" --json |
		python3 -c 'import json, sys; print(json.load(sys.stdin)["warp_instructions"])')
	python3 - "$tmp/a.json" "$n" "$args" <<'EOF'
import json, sys
def unique(pairs):
	keys = [k for k, _ in pairs]
	assert len(keys) == len(set(keys)), f"a key twice in an object: {keys}"
	return dict(pairs)
d = json.load(open(sys.argv[1]), object_pairs_hook=unique)
g, nw, args = d["gpu"], int(sys.argv[2]), sys.argv[3]
def eq(a, b, what):
	assert a == b, f"run {args}: {what}: {a} != {b}"
eq(g["warp_insts"], nw, "warp_insts vs the program's instructions")
eq(g["kernels"], len(d["kernels"]), "kernels")
for k in ("l1", "l2"):
	eq(g[k]["accesses"], g[k]["hits"] + g[k]["misses"], k + " accesses")
eq(g["l2"]["accesses"], g["l2"]["local"] + g["l2"]["remote"], "l2 local + remote")
eq("barre" in d, "translate=0" not in args and "--config adsm" not in args,
   "the IOMMU's counters with translation")
# ADSM: the adsm preset times its copies; every byte by its cause.
eq("adsm" in d, "adsm" in args, "the adsm group")
# ACUD at threshold 1 on gups: pages move, and answers are asked again.
if "migrate=acud" in args:
	m = d["migrate"]
	assert m["migrations"] > 0 and m["stale_fills"] > 0, f"run {args}: {m}"
	eq(m["migrated_bytes"], m["migrations"] * 4096, "migrated bytes")
# MGvm: a GMMU walk reads one PTE a level; some are remote on gups.
eq("mgvm" in d, "mgvm=on" in args, "the mgvm group")
if "mgvm" in d:
	m = d["mgvm"]
	eq(m["pte_reads"], 4 * d["barre"]["walks"], "mgvm PTE reads vs walks")
	assert 0 < m["remote_pte_reads"] <= m["pte_reads"], f"run {args}: {m}"
	assert m["remote_walks"] <= d["barre"]["walks"], f"run {args}: {m}"
if "adsm" in d:
	a = d["adsm"]
	eq(a["h2d_bytes"], a["h2d_call"] + a["h2d_eager"], "adsm h2d by cause")
	eq(a["d2h_bytes"], a["d2h_call"] + a["d2h_fault"], "adsm d2h by cause")
	eq(a["faults"], a["faults_read_invalid"] + a["faults_write_invalid"] +
	   a["faults_write_readonly"], "adsm faults by kind")
	eq(a["launches"], g["kernels"], "adsm launches")
	eq(a["modeled_cycles"], g["cycles"], "adsm modeled_cycles vs cycles")
	# Fig. 10's breakdown: the host's time is kernels, faults and waits.
	eq(a["kernel_cycles"] + a["fault_cycles"] + a["xfer_wait_cycles"],
	   g["cycles"], "adsm breakdown vs cycles")
	assert a["transfers"] > 0, f"run {args}: no transfer"
	if a["protocol"] == "explicit":
		eq(a["h2d_bytes"], a["cpu_bytes_written"], "explicit h2d = copies")
		eq(a["d2h_bytes"], a["cpu_bytes_read"], "explicit d2h = copies")
	if a["protocol"] == "batch":
		eq(a["h2d_bytes"], a["d2h_bytes"], "batch: both ways alike")
if "barre" in d:
	for k in ("l1_tlb", "l2_tlb"):
		eq(g[k]["accesses"], g[k]["hits"] + g[k]["misses"], k + " accesses")
	t = g["l2_tlb"]
	b = d["barre"]
	# Least answers some misses from peers; Valkyrie prefetches; ACUD
	# asks again what was answered before its page's shootdown; F-Barre
	# answers some in the package.
	eq(t["ats_requests"], t["misses"] - t["mshr_merges"] -
	   b.get("remote_tlb_hits", 0) + b.get("prefetches", 0) -
	   b.get("local_hits", 0) - b.get("remote_hits", 0) +
	   d.get("migrate", {}).get("stale_fills", 0), "ats_requests")
	eq(g["l2_tlb"]["accesses"], g["l1_tlb"]["misses"] - b.get("l1_peer_hits", 0),
	   "L2 TLB accesses vs L1 TLB misses")
	eq(d["barre_mode"] in ("least", "valkyrie"), "share_mismatches" in b,
	   "the sharing counters with --barre least|valkyrie")
	eq(b.get("share_mismatches", 0), 0, "share_mismatches")
	eq(t["ats_replies"], t["ats_requests"], "ats_replies")
	eq(d["barre"]["ats_requests"], t["ats_requests"], "the IOMMU's requests")
	assert t["ats_requests"] > 0, f"run {args}: no ATS request"
eq(sum(k["warp_insts"] for k in d["kernels"]), nw, "kernels' warp_insts")
# FinePack and CPElide, alone or together: each its group; with both,
# remote stores leave through FinePack's queues, nothing dirty is flushed.
eq("finepack" in d, "--finepack" in args, "the finepack group")
eq("cpelide" in d, "--cpelide" in args, "the cpelide group")
if "cpelide" in d:
	eq(d["cpelide"]["oracle_violations"], 0, "cpelide oracle_violations")
	eq(d["cpelide"]["kernels"], g["kernels"], "cpelide kernels")
	c = d["cpelide"]
	eq(c["l3_hits"] + c["l3_misses"], c["l3_accesses"], "L3 slices' hits + misses")
	eq(c["sectors_written_back"] * 32, c["bytes_written_back"], "cpelide bytes written back")
if "finepack" in d:
	f = d["finepack"]
	eq(f["kernels"], g["kernels"], "finepack kernels")
	if f["mode"] == "p2p":
		eq(f["delivered_bytes"], f["store_bytes"], "p2p delivered vs stored")
	assert f["delivered_bytes"] <= f["store_bytes"], f"run {args}: {f}"
uvm_args = "--cxl uvm" in args or "--cxl gds" in args
eq("cxl" in d, "--cxl" in args and not uvm_args, "the root complex's counters with --cxl")
if "cxl" in d:
	c = d["cxl"]
	# Every object in CXL memory: no DRAM traffic; a load is served by
	# the SSD's DRAM (hit or miss) or DS's staging; a 64 B store a half
	# line written back.
	eq(g["dram_queue"]["requests"], 0, "DRAM requests with every object in CXL")
	eq(c["loads"], c["dram_hits"] + c["dram_misses"] + c["ds_read_hits"],
	   "cxl loads vs SSD DRAM hits + misses + DS read hits")
	wb = g["l2"]["writebacks"]
	assert c["loads"] > 0 and (wb + 1) // 2 <= c["stores"] <= wb, f"run {args}: cxl {c}"
eq("uvm" in d, uvm_args, "the uvm group with --cxl uvm|gds")
if "uvm" in d:
	u = d["uvm"]
	# Each fault on a page in host memory migrates it once; a batch pays
	# the runtime; the servicer's time is its three parts.
	eq(u["pages_migrated"], u["faults"] - u["duplicate_faults"], "uvm pages vs faults")
	eq(u["h2d_bytes"], u["pages_migrated"] * u["page_bytes"], "uvm h2d bytes")
	eq(u["d2h_bytes"], u["dirty_evictions"] * u["page_bytes"], "uvm d2h bytes")
	eq(u["batch_cycles"], u["runtime_cycles"] + u["xfer_cycles"] + u["storage_cycles"],
	   "uvm batch cycles")
	assert u["batches"] > 0 and u["batch_max"] <= u["batch"], f"run {args}: uvm {u}"
	assert g["cycles"] >= u["runtime_cycles"], f"run {args}: uvm {u}"
	eq(u["storage_cycles"] > 0, u["mode"] == "gds", "storage cycles only with gds")
EOF
	checked=$((checked + 1))
done

# An Accel-Sim trace directory runs as the program it imports to.
"$tool" workload export "$tmp/vadd.bin" -o "$tmp/vadd-trace"
"$tool" run --host --json --barre on "$tmp/vadd-trace" | sed 's/"program": "[^"]*"//' >"$tmp/a.json"
"$tool" run --host --json --barre on "$tmp/vadd.bin" | sed 's/"program": "[^"]*"//' >"$tmp/b.json"
cmp -s "$tmp/a.json" "$tmp/b.json" || { echo "run DIR: not the program's result"; exit 1; }
ls "${TMPDIR:-/tmp}"/mcmgpu-run-* >/dev/null 2>&1 && { echo "run DIR: temporary left"; exit 1; }
checked=$((checked + 1))
mkdir "$tmp/empty"
expect_fail "import|kernelslist.g" "$tmp/empty"
echo "gpu run: $checked cases checked"
