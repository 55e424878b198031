#!/usr/bin/env python3
"""The call graph of a kernel module's files, which must have no cycle.

Usage: file-graph.py [--print] [--includes DIR]... MODULE.mod...

Each MODULE.mod (written by Kbuild next to the module) lists the module's
object files. An object depends on another when one of its undefined
symbols (nm) is defined there; a symbol from outside the module (the
kernel, another module) is no edge. A cycle fails with the files in it and
the symbols that close it, so the layering stays: the core at the bottom,
the mechanisms above it, the module's entry at the top. --includes also
checks the #include "..." graph of the sources under DIR (a header named
by its file name, as the -I paths find it). --print prints the edges.
"""
import os
import re
import subprocess
import sys


def symbols(obj):
    """(defined, undefined) global symbol names of one object file."""
    out = subprocess.run(["nm", obj], check=True, capture_output=True,
                         text=True).stdout
    defined, undefined = set(), set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[0] == "U":
            undefined.add(parts[1])
        elif len(parts) == 3 and parts[1].isupper():
            defined.add(parts[2])
    return defined, undefined


def graph(objs):
    """{object: {object it calls: [symbols]}} over one module's objects."""
    defs, undefs, owner = {}, {}, {}
    for o in objs:
        defs[o], undefs[o] = symbols(o)
        for s in defs[o]:
            owner[s] = o
    edges = {o: {} for o in objs}
    for o in objs:
        for s in sorted(undefs[o]):
            d = owner.get(s)
            if d is not None and d != o:
                edges[o].setdefault(d, []).append(s)
    return edges


def cycles(edges):
    """The strongly connected components of more than one node (Tarjan)."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found


def include_graph(dirs):
    """{source: {header it includes: ["#include"]}} under dirs."""
    paths = {}
    for top in dirs:
        for root, _, files in os.walk(top):
            for f in files:
                if f.endswith((".c", ".h")):
                    paths.setdefault(f, os.path.join(root, f))
    edges = {p: {} for p in paths.values()}
    for p in paths.values():
        with open(p, errors="replace") as f:
            for m in re.finditer(r'^#\s*include\s+"([^"]+)"', f.read(), re.M):
                h = paths.get(os.path.basename(m.group(1)))
                if h is not None and h != p:
                    edges[p][h] = ["#include"]
    return edges


def name(obj):
    return obj.rsplit("/", 1)[-1]


def main(argv):
    show, mods, dirs = False, [], []
    args = iter(argv)
    for a in args:
        if a == "--print":
            show = True
        elif a == "--includes":
            dirs.append(next(args, ""))
        else:
            mods.append(a)
    if not mods and not dirs:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    graphs = []
    for mod in mods:
        with open(mod) as f:
            graphs.append((mod, graph(f.read().split())))
    if dirs:
        graphs.append((" ".join(dirs) + " (includes)", include_graph(dirs)))
    status = 0
    for mod, edges in graphs:
        if show:
            for o in sorted(edges):
                for d in sorted(edges[o]):
                    print(f"{name(o)} -> {name(d)}: {' '.join(edges[o][d])}")
        for comp in cycles(edges):
            status = 1
            members = set(comp)
            print(f"{mod}: files in a cycle:")
            for o in comp:
                for d in sorted(edges[o]):
                    if d in members:
                        print(f"  {name(o)} -> {name(d)}: "
                              f"{' '.join(edges[o][d])}")
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
