#!/usr/bin/env python3
"""Count an Accel-Sim trace directory's statistics straight from its text.

Usage:
  tools/scripts/accelsim-stats.py DIR               print the counts as JSON
  tools/scripts/accelsim-stats.py --tool MCMGPU DIR...
                                                    compare each DIR's counts
                                                    with `MCMGPU workload
                                                    stats DIR --json`

An independent reimplementation, written from the trace format (the NVBit
tracer's post-processed kernelslist.g and kernel-N.traceg, as
docs/workloads.md "Importing Accel-Sim traces" describes them) and the
statistics' definitions (docs/workloads.md "Statistics"), not from the
importer's C. Comparing the two is how a disagreement between the C and
the format's own meaning shows up. With --tool the exit status is 0 when
every field agrees, 1 when one does not (each named on stdout).

A directory may hold `xcheck-expect`, lines `FIELD VALUE` (a top-level
field) or `K.FIELD VALUE` (kernel K, from 1): counts derived by hand that
this script must give too (so a mistake here does not hide one in C).
"""
import argparse
import json
import lzma
import os
import subprocess
import sys

LINE = 128
PAGE = 4096
SHARED_WINDOW = 16 << 20    # shared window when local is not above it
LOCAL_WINDOW = 512 << 10    # CUDA's maximum local memory a thread
MALLOC_ALIGN = 256          # cudaMalloc's alignment
MALLOC_CHUNK = 2 << 20      # and its chunk

# Memory mnemonics (the part before the first '.'): (space, kind).
# Space None is generic: resolved by the first active lane's address.
MEM_OPS = {
    "LDG": ("global", "load"),
    "STG": ("global", "store"),
    "ATOMG": ("global", "atomic"),
    "RED": ("global", "red"),
    "REDG": ("global", "red"),      # Hopper on: RED's global form
    "LDGSTS": ("global", "load"),   # the post-processor keeps the global line
    "LDS": ("shared", "load"),
    "LDSM": ("shared", "load"),
    "STS": ("shared", "store"),
    "ATOMS": ("shared", "atomic"),
    "LDL": ("local", "load"),
    "STL": ("local", "store"),
    "LD": (None, "load"),
    "ST": (None, "store"),
    "ATOM": (None, "atomic"),
}

COUNTS = ["thread_blocks", "warps", "warp_instructions",
          "global_loads", "global_stores", "global_atomics",
          "global_reductions", "shared_accesses", "local_accesses",
          "global_lanes", "global_bytes_loaded", "global_bytes_stored",
          "global_bytes_atomic", "global_lines", "global_pages"]


class TraceError(Exception):
    pass


def read_lines(path):
    """A file's lines without their line ends (LF or CRLF); a name ending
    in .xz (the tracer's default) is decompressed, unless its decompressed
    copy is beside it."""
    if path.endswith(".xz") and os.path.exists(path[:-3]):
        path = path[:-3]
    opener = lzma.open if path.endswith(".xz") else open
    with opener(path, "rb") as f:
        data = f.read().decode("ascii", errors="replace")
    return [ln.rstrip("\r") for ln in data.split("\n")]


def num(tok, base, where):
    try:
        return int(tok, base)
    except ValueError:
        raise TraceError(f"{where}: not a number: {tok!r}")


class Kernel:
    def __init__(self):
        self.hdr = {}
        self.c = dict.fromkeys(COUNTS, 0)
        self.lines = set()
        self.pages = set()
        self.touched = []       # (addr, width) of global lanes


def parse_header(kern, line, where):
    key, eq, val = line[1:].partition("=")
    if not eq:
        return
    key = " ".join(key.split())
    kern.hdr[key] = val.strip()


def dims(val, where):
    v = val.strip().strip("()")
    parts = [p.strip() for p in v.split(",")]
    if len(parts) != 3:
        raise TraceError(f"{where}: dims: {val!r}")
    return [num(p, 10, where) for p in parts]


def lane_addrs(mask, mode, toks, where):
    """The active lanes' addresses, lowest lane first."""
    lanes = bin(mask).count("1")
    if mode == 0:
        if len(toks) < lanes:
            raise TraceError(f"{where}: addresses missing")
        return [num(t, 16, where) for t in toks[:lanes]], toks[lanes:]
    if mode == 1:
        if len(toks) < 2:
            raise TraceError(f"{where}: base/stride missing")
        base = num(toks[0], 16, where)
        stride = num(toks[1], 10, where)
        # The format's meaning: the k-th active lane at base + k stride.
        return [base + k * stride for k in range(lanes)], toks[2:]
    if mode == 2:
        if lanes == 0:
            return [], toks[1:]
        if len(toks) < lanes:
            raise TraceError(f"{where}: deltas missing")
        out = [num(toks[0], 16, where)]
        for t in toks[1:lanes]:
            out.append(out[-1] + num(t, 10, where))
        return out, toks[lanes:]
    raise TraceError(f"{where}: unknown compression {mode}")


def resolve_generic(kern, addr):
    sh = int(kern.hdr.get("shmem base_addr", "0"), 16)
    lo = int(kern.hdr.get("local mem base_addr", "0"), 16)
    if addr is None:
        return "global"
    if sh and lo:
        sh_end = lo if lo > sh else sh + SHARED_WINDOW
        if sh <= addr < sh_end:
            return "shared"
        if lo <= addr < lo + LOCAL_WINDOW:
            return "local"
    return "global"


def count_inst(kern, toks, lineinfo, where, opts):
    c = kern.c
    c["warp_instructions"] += 1
    i = 1 if lineinfo else 0
    try:
        mask = num(toks[i + 1], 16, where)
        ndst = num(toks[i + 2], 10, where)
        op = toks[i + 3 + ndst]
        nsrc = num(toks[i + 4 + ndst], 10, where)
        width = num(toks[i + 5 + ndst + nsrc], 10, where)
        rest = toks[i + 6 + ndst + nsrc:]
    except IndexError:
        raise TraceError(f"{where}: truncated")
    if width == 0:
        return
    if not rest:
        raise TraceError(f"{where}: mode missing")
    addrs, _ = lane_addrs(mask, num(rest[0], 10, where), rest[1:], where)
    base = op.split(".")[0]
    if base not in MEM_OPS:
        return
    space, kind = MEM_OPS[base]
    if space is None:
        space = resolve_generic(kern, addrs[0] if addrs else None)
    if space == "shared":
        c["shared_accesses"] += 1
        return
    if space == "local":
        c["local_accesses"] += 1
        return
    if opts.opcode_width:
        width = opcode_width(op)
    n = len(addrs)
    c["global_lanes"] += n
    if kind == "load":
        c["global_loads"] += 1
        c["global_bytes_loaded"] += n * width
    elif kind == "store":
        c["global_stores"] += 1
        c["global_bytes_stored"] += n * width
    else:
        c["global_atomics"] += 1
        c["global_bytes_atomic"] += n * width
        if kind == "red":
            c["global_reductions"] += 1
    for a in addrs:
        kern.touched.append((a, width))
        for ln in range(a // LINE, (a + width - 1) // LINE + 1):
            kern.lines.add(ln)
        for pg in range(a // PAGE, (a + width - 1) // PAGE + 1):
            kern.pages.add(pg)


def opcode_width(op):
    """Accel-Sim's width from the mnemonic (its parser ignores the field)."""
    for t in op.split(".")[1:]:
        if t.isdigit():
            return int(t) // 8
        if t[:1] == "U" and t[1:].isdigit():
            return int(t[1:]) // 8
    return 4


def parse_kernel(path, opts):
    kern = Kernel()
    name = os.path.basename(path)
    lineinfo = 0
    in_tb = False
    left = 0                # instruction lines the current warp still owes
    for no, raw in enumerate(read_lines(path), 1):
        where = f"{name}:{no}"
        line = raw.strip()
        if left:
            if not line:
                raise TraceError(f"{where}: blank inside a warp")
            count_inst(kern, line.split(), lineinfo, where, opts)
            left -= 1
            continue
        if not line:
            continue
        if line.startswith("-"):
            parse_header(kern, line, where)
            if "enable lineinfo" in kern.hdr:
                lineinfo = int(kern.hdr["enable lineinfo"] or "0")
            continue
        if line.startswith("#BEGIN_TB"):
            in_tb = True
            kern.c["thread_blocks"] += 1
            continue
        if line.startswith("#END_TB"):
            in_tb = False
            continue
        if line.startswith("#"):
            continue
        key, _, val = line.partition("=")
        key = " ".join(key.split())
        if key in ("thread block", "cluster id", "cluster cta",
                   "cluster rank"):
            continue
        if key == "warp":
            kern.c["warps"] += 1
            continue
        if key == "insts":
            left = num(val.strip(), 10, where)
            continue
        raise TraceError(f"{where}: unexpected line {line!r}")
    if left:
        raise TraceError(f"{name}: end of file inside a warp")
    if in_tb:
        raise TraceError(f"{name}: end of file inside a block")
    ver = int(kern.hdr.get("accelsim tracer version", "0") or 0)
    if ver < 3:
        raise TraceError(f"{name}: tracer version {ver} refused")
    return kern


def read_objects_file(path):
    objs = []
    for ln in read_lines(path):
        t = ln.split()
        if not t or t[0].startswith("#"):
            continue
        if t[0] != "object":
            continue
        # object BASE SIZE NAME [@N]; the name may hold spaces.
        rest = ln.split(None, 3)
        name = rest[3] if len(rest) > 3 else ""
        if " @" in name and name.rsplit(" @", 1)[1].isdigit():
            name = name.rsplit(" @", 1)[0]
        objs.append({"base": int(t[1], 0), "size": int(t[2], 0),
                     "name": name.strip()})
    return objs


def infer_objects(copies, kernels):
    """Copied ranges merged, then the uncopied buffers from the accesses."""
    # Copies either way are objects: a buffer only read back was still
    # allocated.
    rng = sorted((b, b + n) for _, b, n in copies)
    merged = []
    for lo, hi in rng:
        if hi <= lo:
            continue
        if merged and lo <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], hi)
        else:
            merged.append([lo, hi])

    def inside(a):
        return any(lo <= a < hi for lo, hi in merged)

    blocks = set()
    for k in kernels:
        for a, w in k.touched:
            if inside(a):
                continue
            for b in range(a // MALLOC_ALIGN, (a + w - 1) // MALLOC_ALIGN + 1):
                blocks.add(b * MALLOC_ALIGN)
    runs = []
    for b in sorted(blocks):
        if runs:
            end = runs[-1][1]
            between = any(lo < b and hi > end for lo, hi in merged)
            if b - end < MALLOC_CHUNK and not between:
                runs[-1][1] = b + MALLOC_ALIGN
                continue
        runs.append([b, b + MALLOC_ALIGN])
    pieces = []
    for lo, hi in runs:
        cur = [(lo, hi)]
        for clo, chi in merged:
            nxt = []
            for plo, phi in cur:
                if chi <= plo or clo >= phi:
                    nxt.append((plo, phi))
                    continue
                if plo < clo:
                    nxt.append((plo, clo))
                if chi < phi:
                    nxt.append((chi, phi))
            cur = nxt
        pieces += cur
    objs = [{"base": lo, "size": hi - lo, "name": f"copied_{i}"}
            for i, (lo, hi) in enumerate(merged)]
    objs += [{"base": lo, "size": hi - lo, "name": f"inferred_{i}"}
             for i, (lo, hi) in enumerate(sorted(pieces))]
    return sorted(objs, key=lambda o: o["base"])


def dir_stats(d, opts):
    copies = []
    kernels = []
    for no, raw in enumerate(read_lines(os.path.join(d, "kernelslist.g")), 1):
        line = raw.strip()
        if not line:
            continue
        if line.startswith("MemcpyHtoD") or line.startswith("MemcpyDtoH"):
            f = line.split(",")
            if len(f) != 3:
                raise TraceError(f"kernelslist.g:{no}: copy fields")
            copies.append(("h2d" if line[6:10] == "HtoD" else "d2h",
                           int(f[1], 16), int(f[2], 10)))
            continue
        kernels.append(parse_kernel(os.path.join(d, line), opts))
    out = {"kernel_launches": len(kernels)}
    for key in COUNTS:
        out[key] = sum(k.c[key] for k in kernels)
    all_lines, all_pages = set(), set()
    for k in kernels:
        all_lines |= k.lines
        all_pages |= k.pages
    out["global_lines"] = len(all_lines)
    out["global_pages"] = len(all_pages)
    for way in ("h2d", "d2h"):
        out[f"{way}_bytes"] = sum(n for w, _, n in copies if w == way)
        out[f"{way}_copies"] = sum(1 for w, _, _ in copies if w == way)
    side = os.path.join(d, "mcmgpu-objects")
    if os.path.exists(side):
        out["objects"] = read_objects_file(side)
    else:
        out["objects"] = infer_objects(copies, kernels)
    out["kernels"] = []
    for i, k in enumerate(kernels, 1):
        h = k.hdr
        kj = {"id": i, "name": h.get("kernel name", ""),
              "grid": dims(h.get("grid dim", "(1,1,1)"), "grid"),
              "block": dims(h.get("block dim", "(1,1,1)"), "block"),
              "shmem": int(h.get("shmem", "0") or 0),
              "stream": int(h.get("cuda stream id", "0") or 0)}
        for key in COUNTS:
            kj[key] = k.c[key]
        kj["global_lines"] = len(k.lines)
        kj["global_pages"] = len(k.pages)
        out["kernels"].append(kj)
    return out


def diff(mine, theirs, where=""):
    """Every field on which two stats objects disagree, named."""
    bad = []
    if isinstance(mine, dict):
        for key in mine:
            if key not in theirs:
                bad.append(f"{where}{key}: missing from the tool's")
                continue
            bad += diff(mine[key], theirs[key], f"{where}{key}.")
        return bad
    if isinstance(mine, list) and mine and isinstance(mine[0], dict):
        if len(mine) != len(theirs):
            return [f"{where[:-1]}: {len(mine)} here, {len(theirs)} tool"]
        for i, (a, b) in enumerate(zip(mine, theirs)):
            bad += diff(a, b, f"{where}{i}.")
        return bad
    if mine != theirs:
        bad.append(f"{where[:-1]}: {mine!r} here, {theirs!r} tool")
    return bad


def check_expect(d, mine):
    path = os.path.join(d, "xcheck-expect")
    bad = []
    if not os.path.exists(path):
        return bad
    for ln in read_lines(path):
        t = ln.split()
        if not t or t[0].startswith("#"):
            continue
        key, want = t[0], int(t[1], 0)
        obj = mine
        if "." in key:
            k, key = key.split(".", 1)
            obj = mine["kernels"][int(k) - 1]
        if obj.get(key) != want:
            bad.append(f"{key}: hand-derived {want}, script {obj.get(key)}")
    return bad


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("dirs", nargs="+")
    ap.add_argument("--tool", help="compare with MCMGPU workload stats")
    ap.add_argument("--opcode-width", action="store_true",
                    help="take the width from the mnemonic, as Accel-Sim's "
                    "parser does, not from the line's width field")
    opts = ap.parse_args()
    status = 0
    for d in opts.dirs:
        try:
            mine = dir_stats(d, opts)
        except (TraceError, OSError, lzma.LZMAError) as e:
            print(f"{d}: {e}")
            status = 1
            continue
        if not opts.tool:
            print(json.dumps(mine, indent=1))
            continue
        bad = check_expect(d, mine)
        r = subprocess.run([opts.tool, "workload", "stats", d, "--json"],
                           capture_output=True, text=True)
        if r.returncode:
            bad.append(f"tool failed ({r.returncode}): {r.stderr.strip()}")
        else:
            bad += diff(mine, json.loads(r.stdout))
        for b in bad:
            print(f"{d}: {b}")
        if bad:
            status = 1
        else:
            print(f"{d}: agree")
    return status


if __name__ == "__main__":
    sys.exit(main())
