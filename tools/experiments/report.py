"""What the experiments' report scripts (*_report.py) share: reading the
jobs' JSON, means, Markdown tables, gnuplot figures and writing the
section with the experiment's differences from the paper."""
import json
import math
import os
import re
import subprocess

HERE = os.path.dirname(os.path.abspath(__file__))


def load(path):
    with open(path) as f:
        return json.load(f)


def load_runs(raw, app, runs):
    """{run: RAW/APP-RUN.json} for each of the runs, None where one is
    missing (that application was not run)."""
    r = {}
    for k in runs:
        path = f"{raw}/{app}-{k}.json"
        r[k] = load(path) if os.path.exists(path) else None
    return r if all(r.values()) else None


def cpelide_speedups(cycles, prefix=""):
    """CPElide's speedups over HMG and the baseline and HMG's over the
    baseline, from {policy: cycles}; keys named with prefix."""
    return {f"{prefix}cpelide_over_hmg": cycles["hmg"] / cycles["cpelide"],
            f"{prefix}cpelide_over_baseline":
            cycles["baseline"] / cycles["cpelide"],
            f"{prefix}hmg_over_baseline": cycles["baseline"] / cycles["hmg"]}


def cpelide_syncs(stats):
    """The L2 syncs (flushes + invalidates) under the baseline and CPElide
    and CPElide's kernels, from {policy: the run's "cpelide" stats}."""
    return {"syncs_baseline": stats["baseline"]["l2_flushes"] +
            stats["baseline"]["l2_invalidates"],
            "syncs_cpelide": stats["cpelide"]["l2_flushes"] +
            stats["cpelide"]["l2_invalidates"],
            "kernels": stats["cpelide"]["kernels"]}


def mean(xs):
    xs = list(xs)
    return sum(xs) / len(xs) if xs else 0.0


def gmean(xs):
    xs = list(xs)
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else 0.0


def row(*cells):
    """A Markdown table row; None is a blank cell."""
    return "|" + "|".join(" " if c is None else f" {c} " for c in cells) + "|"


def head(*columns):
    """A Markdown table's header row and its rule."""
    return [row(*columns), "|" + "---|" * len(columns)]


def gnuplot(script):
    subprocess.run(["gnuplot"], input=script, text=True, check=True)


def bars(path, title, size="1000,500"):
    """The gnuplot lines that open a clustered bar chart written to PATH."""
    return (f'set terminal pngcairo size {size} font ",10" noenhanced\n'
            f'set output "{path}"\nset title "{title}"\n'
            "set style data histograms; set style histogram clustered gap 1\n"
            "set style fill solid 0.8 border -1; set boxwidth 0.9")


def differences(name):
    """The "Differences from the paper" section of docs/NAME.md, its links
    made relative to results/ (one text, kept with the mechanism's docs)."""
    with open(os.path.join(HERE, "..", "..", "docs", f"{name}.md")) as f:
        text = f.read()
    start = text.index("\n## Differences from the paper\n")
    body = text[start:].split("\n", 2)[2]
    end = body.find("\n## ")
    body = body[:end + 1] if end >= 0 else body
    body = re.sub(r"\]\((?![a-z]+:|#)([^)]*)\)", r"](../docs/\1)", body)
    return "**Where we differ from the paper, and why:**\n" + body.strip("\n") + "\n"


def write_section(results, stem, lines):
    """results/sections/STEM.md: the lines, one a line."""
    with open(f"{results}/sections/{stem}.md", "w") as f:
        f.write("\n".join(lines) + "\n")
