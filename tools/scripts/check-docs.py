#!/usr/bin/env python3
"""Check that README.md and docs/*.md name only what exists.

Usage: tools/scripts/check-docs.py [--tool PATH] [FILE.md...]
(make check runs it; without FILE arguments it checks README.md and docs/*.md)

What is checked, in the text outside and inside code (inline `spans` and
fenced blocks):
- every relative link [text](target) resolves to a file or directory, and
  its #anchor, if any, to a heading of the target (GitHub's slugs);
- every repository path named in code exists. A token is a path when its
  first component is a top-level entry of the repository (drivers/,
  tools/, uapi/, Makefile, ...), or when it ends in .c .sh .py .md and is
  either a bare file name (found anywhere in the repository) or a relative
  name such as lib/opts.c (found as the end of a repository path). Paths
  are relative to the repository root, wherever the file that names them.
  A trailing / requires a directory. Globs (* ? [) must match something;
  placeholders (<mech>, or an upper-case word such as NN or NAME in a
  component) become * when the literal name does not exist;
- every `make TARGET` names a target of the Makefile;
- every `mcmgpu COMMAND [SUBCOMMAND]` names a command of the tool (and a
  subcommand of a mechanism), from `build/tools/mcmgpu --help`, which is
  built with `make -s tools` when missing. A fenced block marked ```text
  is a picture: its paths are checked, its words are not commands.

Not checked: absolute paths, ~/..., git-ignored build products (build/,
results/, the extracted kernel headers), paths created at run time
(CREATED below), code that is the text of a link to a URL (another
project's files: link them), and words with no path shape (cxl.h).
Links and paths that leave the repository must go to ../shared/ beside it
(the papers and the notes): they are checked when that directory exists
and skipped otherwise (a fresh clone has no ../shared/).

Prints FILE:LINE: what is wrong, and exits 1 if anything is.
"""
import fnmatch
import glob
import os
import re
import subprocess
import sys

TOP = os.path.realpath(os.path.join(os.path.dirname(__file__), "..", ".."))
SHARED = os.path.realpath(os.path.join(TOP, "..", "shared"))
EXTS = (".c", ".sh", ".py", ".md")
# Paths that exist only once something has run (a fuzzer's kept crash).
CREATED = ("selftests/fuzz/regressions/",)

errors = []
skipped_shared = 0


def err(path, line, msg):
    errors.append(f"{os.path.relpath(path, TOP)}:{line}: {msg}")


def git_files():
    try:
        out = subprocess.run(["git", "-C", TOP, "ls-files", "-co",
                              "--exclude-standard"], capture_output=True,
                             text=True, check=True).stdout.split("\n")
    except (OSError, subprocess.CalledProcessError):
        # Not a git checkout: every file but the build products.
        out = []
        for d, subdirs, names in os.walk(TOP):
            rel = os.path.relpath(d, TOP)
            subdirs[:] = [s for s in subdirs if rel != "." or
                          s not in (".git", "build", "results")]
            out += [os.path.normpath(os.path.join(rel, n)) for n in names]
    files = [f for f in out if f and os.path.exists(os.path.join(TOP, f))]
    dirs = set()
    for f in files:
        d = os.path.dirname(f)
        while d:
            dirs.add(d)
            d = os.path.dirname(d)
    return files, dirs


FILES, DIRS = git_files()
ALL = set(FILES) | DIRS
TOPLEVEL = {p.split("/")[0] for p in ALL}
BASENAMES = {os.path.basename(f) for f in FILES}


def ignored(rel):
    try:
        return subprocess.run(["git", "-C", TOP, "check-ignore", "-q", rel],
                              capture_output=True).returncode == 0
    except OSError:
        return False


def make_targets():
    targets = set()
    with open(os.path.join(TOP, "Makefile")) as f:
        for line in f:
            m = re.match(r"^([A-Za-z0-9_.$()/ -]+?)\s*:(?![=])", line)
            if m and not line.startswith("\t"):
                targets.update(m.group(1).split())
    return targets


def tool_commands(tool):
    if not os.access(tool, os.X_OK):
        subprocess.run(["make", "-s", "-C", TOP, "tools"], check=False)
    if not os.access(tool, os.X_OK):
        sys.exit(f"check-docs: no tool at {tool} (make tools failed)")
    out = subprocess.run([tool, "--help"], capture_output=True,
                         text=True).stdout
    cmds, last = {}, None
    for line in out.split("\n"):
        m = re.match(r"^  (\S+)\s+\S", line)
        if m:
            last = m.group(1)
            cmds[last] = set()
        elif last and re.match(r"^\s{6,}\S", line):
            cmds[last] = set(line.split())
    return cmds


def slug(heading):
    s = heading.strip().lower()
    s = re.sub(r"[^\w\- ]", "", s)
    return s.replace(" ", "-")


def anchors(path):
    with open(path) as f:
        text = f.read()
    text = re.sub(r"```.*?```", "", text, flags=re.S)
    return {slug(m.group(1)) for m in re.finditer(r"^#+\s+(.*)$", text,
                                                   flags=re.M)}


def outside(real):
    return not (real == TOP or real.startswith(TOP + os.sep))


def check_shared(path, line, real, name):
    """A name outside the repository: only ../shared/, checked if present."""
    global skipped_shared
    if not (real == SHARED or real.startswith(SHARED + os.sep)):
        err(path, line, f"'{name}' leaves the repository (only ../shared/ may)")
    elif not os.path.isdir(SHARED):
        skipped_shared += 1
    elif not os.path.exists(real):
        err(path, line, f"'{name}' does not exist")


def check_link(path, line, target):
    if re.match(r"^[a-z][a-z0-9+.-]*:", target) or target.startswith("#") \
            and not target[1:]:
        return
    target, _, anchor = target.partition("#")
    base = os.path.dirname(path)
    real = os.path.realpath(os.path.join(base, target)) if target else path
    if outside(real):
        check_shared(path, line, real, target)
        return
    if not os.path.exists(real):
        err(path, line, f"link '{target}' does not resolve")
        return
    if anchor and real.endswith(".md") and anchor not in anchors(real):
        err(path, line, f"link '{target}#{anchor}': no such heading")


def is_path(tok):
    first = tok.split("/")[0]
    if tok.startswith("../shared/"):
        return True
    if "/" in tok.rstrip("/") or tok.endswith("/"):
        if first in TOPLEVEL:
            return True
        return tok.endswith(EXTS)
    # A bare name: a stem, then the extension (".c" alone is no file).
    return tok.endswith(EXTS) and re.match(r"^[\w*?\[\]<>-][\w.*?\[\]<>-]*$",
                                           tok)


def placeholders(tok):
    tok = re.sub(r"<[^>/]*>", "*", tok)
    return re.sub(r"(?<![a-z])[A-Z][A-Z0-9]+(?![a-z])", "*", tok)


def exists(tok):
    """tok as a repository path, a relative tail, or a bare name."""
    want_dir = tok.endswith("/")
    t = tok.rstrip("/")
    first = t.split("/")[0]
    is_glob = any(c in t for c in "*?[")
    if first in TOPLEVEL or t in ALL:
        pool = DIRS if want_dir else ALL
        if is_glob:
            return any(fnmatch.fnmatchcase(p, t) for p in pool)
        return t in pool
    if "/" not in t:
        if is_glob:
            return any(fnmatch.fnmatchcase(b, t) for b in BASENAMES)
        return t in BASENAMES
    pool = DIRS if want_dir else ALL
    return any(fnmatch.fnmatchcase(p, "*/" + t) for p in pool)


def check_path(path, line, tok):
    if tok.startswith("../shared/"):
        check_shared(path, line, os.path.realpath(os.path.join(TOP, tok)), tok)
        return
    if any(tok.startswith(c) for c in CREATED):
        return
    t = tok.rstrip("/")
    if t.split("/")[0] in TOPLEVEL and ignored(tok):
        return
    if t.split("/")[0] not in TOPLEVEL and t.split("/")[0] in ("build",
                                                              "results"):
        return
    if exists(tok):
        return
    p = placeholders(tok)
    if p != tok and exists(p):
        return
    err(path, line, f"path '{tok}' does not exist")


TOKEN = re.compile(r"[^\s`'\"=(),;|]+")


def check_code(path, line, code, targets, cmds, commands=True):
    for raw in TOKEN.finditer(code):
        tok = raw.group(0).rstrip(".:")
        if tok.startswith(("/", "~", "$", "-", "http")):
            continue
        if is_path(tok):
            check_path(path, line, tok)
    if not commands:
        return
    # Commands: words as the shell splits them (quotes aside).
    toks = [t.strip("'\"()") for t in code.split()]
    for i, tok in enumerate(toks):
        if tok == "make":
            for t in toks[i + 1:]:
                if t.startswith("-"):
                    continue
                if t in ("#", "&&", "[") or "=" in t or t.startswith("["):
                    break
                if re.match(r"^[a-z][a-z0-9-]*$", t):
                    if t not in targets:
                        err(path, line, f"'make {t}': no such Makefile target")
                break
        if tok == "mcmgpu" or tok.endswith("/tools/mcmgpu"):
            rest = toks[i + 1:i + 3]
            if not rest or not re.match(r"^[a-z][a-z0-9-]*$", rest[0]):
                continue
            if rest[0] not in cmds:
                err(path, line, f"'mcmgpu {rest[0]}': no such command")
            elif cmds[rest[0]] and len(rest) > 1 and \
                    re.match(r"^[a-z][a-z0-9-]*$", rest[1]) and \
                    rest[1] not in cmds[rest[0]]:
                err(path, line,
                    f"'mcmgpu {rest[0]} {rest[1]}': no such subcommand")


def check_file(path, targets, cmds):
    with open(path) as f:
        lines = f.read().split("\n")
    fence, diagram = False, False
    prose = []  # (line number, text) outside fenced blocks
    for n, text in enumerate(lines, 1):
        if text.lstrip().startswith("```"):
            fence = not fence
            diagram = fence and text.strip()[3:].strip() == "text"
            continue
        if fence:
            # A ```text block is a picture: its words are not commands.
            check_code(path, n, text, targets, cmds, commands=not diagram)
        else:
            prose.append((n, text))
    # Inline code may run over a line break: join each paragraph.
    para, start = [], None
    for n, text in prose + [(0, "")]:
        if text.strip():
            if start is None:
                start = n
            para.append(text)
            continue
        if para:
            block = "\n".join(para)
            linkspans = []
            for m in re.finditer(r"\[((?:[^\]\\]|\\.)*)\]\(([^)\s]+)\)", block):
                ln = start + block.count("\n", 0, m.start())
                check_link(path, ln, m.group(2))
                if re.match(r"^[a-z][a-z0-9+.-]*:", m.group(2)):
                    linkspans.append((m.start(), m.end()))
            for m in re.finditer(r"`([^`]+)`", block):
                if any(a <= m.start() < b for a, b in linkspans):
                    continue
                ln = start + block.count("\n", 0, m.start())
                check_code(path, ln, m.group(1), targets, cmds)
        para, start = [], None


def main():
    args = sys.argv[1:]
    tool = os.path.join(TOP, "build/tools/mcmgpu")
    if args[:1] == ["--tool"]:
        tool, args = os.path.abspath(args[1]), args[2:]
    files = args or [os.path.join(TOP, "README.md")] + \
        sorted(glob.glob(os.path.join(TOP, "docs", "*.md")))
    targets, cmds = make_targets(), tool_commands(tool)
    for f in files:
        check_file(os.path.realpath(f), targets, cmds)
    for e in errors:
        print(e)
    note = f", {skipped_shared} names in ../shared/ skipped (absent)" \
        if skipped_shared else ""
    print(f"check-docs: {len(files)} files, {len(errors)} problems{note}")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
