#!/usr/bin/env python3
"""The call graph of a kernel module's files, which must have no cycle.

Usage: file-graph.py [--print] MODULE.mod...

Each MODULE.mod (written by Kbuild next to the module) lists the module's
object files. An object depends on another when one of its undefined
symbols (nm) is defined there; a symbol from outside the module (the
kernel, another module) is no edge. A cycle fails with the files in it and
the symbols that close it, so the layering stays: the core at the bottom,
the mechanisms above it, the module's entry at the top. --print also
prints the edges.
"""
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


def name(obj):
    return obj.rsplit("/", 1)[-1]


def main(argv):
    show = "--print" in argv
    mods = [a for a in argv if a != "--print"]
    if not mods:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    status = 0
    for mod in mods:
        with open(mod) as f:
            objs = f.read().split()
        edges = graph(objs)
        if show:
            for o in sorted(edges):
                for d in sorted(edges[o]):
                    print(f"{name(o)} -> {name(d)}: {' '.join(edges[o][d])}")
        for comp in cycles(edges):
            status = 1
            members = set(comp)
            print(f"{mod}: files that call each other in a cycle:")
            for o in comp:
                for d in sorted(edges[o]):
                    if d in members:
                        print(f"  {name(o)} -> {name(d)}: "
                              f"{' '.join(edges[o][d])}")
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
