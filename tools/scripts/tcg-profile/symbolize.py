#!/usr/bin/env python3
"""Guest instructions by symbol: a profiled run minus a baseline run.

Each run is a directory with tb_insns.txt (the tb_insns plugin's output)
and kallsyms (the guest's /proc/kallsyms). KASLR moves the kernel at
every boot, so each run's addresses map through its own symbols.
"""
import argparse
import bisect
import collections
import sys


def load(run):
    syms = []
    with open(f'{run}/kallsyms') as f:
        for line in f:
            p = line.split()
            if len(p) >= 3 and p[1] in 'tT':
                syms.append((int(p[0], 16), p[2] + (' ' + p[3] if len(p) > 3 else '')))
    if not syms:
        sys.exit(f'symbolize: {run}/kallsyms has no text symbols (not root?)')
    syms.sort()
    addrs = [a for a, _ in syms]
    insns = collections.Counter()
    with open(f'{run}/tb_insns.txt') as f:
        for n, line in enumerate(f, 1):
            try:
                v, c, _ = line.split()
                v, c = int(v, 16), int(c)
            except ValueError:
                sys.exit(f'symbolize: {run}/tb_insns.txt:{n}: not "VADDR INSNS EXECS"')
            if v < 1 << 47:
                name = '[user space]'
            else:
                i = bisect.bisect_right(addrs, v) - 1
                name = syms[i][1] if i >= 0 else '[unknown]'
            insns[name] += c
    return insns


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument('base', help='the baseline run directory')
    ap.add_argument('run', help='the profiled run directory')
    ap.add_argument('-n', '--units', type=float, default=1,
                    help='divide by this (e.g. the repetitions), default 1')
    ap.add_argument('--top', type=int, default=30, help='symbols listed, default 30')
    a = ap.parse_args()
    base, run = load(a.base), load(a.run)
    diff = {k: run[k] - base[k] for k in set(run) | set(base)}
    total = sum(diff.values())
    if total <= 0:
        sys.exit('symbolize: the profiled run executed no more than the baseline')
    groups = collections.Counter()
    for k, v in diff.items():
        groups[k.split()[1] if ' [' in k else ('user space' if k == '[user space]' else 'kernel')] += v
    per = a.units
    print(f'guest instructions: {total / per:,.0f}' + (f' per unit ({a.units:g} units)' if per != 1 else ''))
    print('\nby module:')
    for k, v in groups.most_common():
        print(f'{v / per:14,.0f} {100 * v / total:5.1f} %  {k}')
    print(f'\ntop {a.top} symbols:')
    for k, v in sorted(diff.items(), key=lambda x: -x[1])[:a.top]:
        print(f'{v / per:14,.0f} {100 * v / total:5.1f} %  {k}')


if __name__ == '__main__':
    main()
