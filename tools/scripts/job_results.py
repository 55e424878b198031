#!/usr/bin/env python3
"""Experiment job results: one JSON file per job (tools/scripts/run-job).

  job_results.py bundle NAME OUTDIR DEST CMD...   OUTDIR's files -> DEST (atomic)
  job_results.py unpack RAWDIR BUNDLE...          bundles -> RAWDIR/<path>
  job_results.py missing JOBLIST RESULTS          jobs of the list without a result
  job_results.py order JOBLIST DURATIONS          the list, longest expected first
  job_results.py estimates JOBLIST DURATIONS      NAME SECONDS expected, a line a job
  job_results.py joblog-ok JOBLIST JOBLOG RESULTS exit 1 if GNU parallel's job
                                                  log calls a job done that has
                                                  no result

A bundle is {"job": NAME, "command": CMD, "files": {PATH: CONTENT}}: JSON
files are kept parsed, text files as strings. It holds no time stamps, so
the same job gives the same bytes wherever and whenever it runs."""
import json
import os
import shlex
import sys


def die(msg):
    sys.exit(f"job_results.py: {msg}")


def bundle(name, outdir, dest, cmd):
    files = {}
    for root, dirs, names in os.walk(outdir):
        dirs.sort()
        for n in sorted(names):
            path = os.path.join(root, n)
            rel = os.path.relpath(path, outdir)
            with open(path, "rb") as f:
                data = f.read()
            try:
                text = data.decode()
            except UnicodeDecodeError:
                die(f"{name}: {rel} is binary; a job keeps JSON or text only")
            if rel.endswith(".json"):
                try:
                    files[rel] = json.loads(text)
                except ValueError as e:
                    die(f"{name}: {rel} is not valid JSON ({e})")
            else:
                files[rel] = text
    if not files:
        die(f"{name}: the job wrote nothing under its JOB_OUT")
    tmp = f"{dest}.tmp{os.getpid()}"
    with open(tmp, "w") as f:
        json.dump({"job": name, "command": cmd, "files": files}, f,
                  indent=1, sort_keys=True)
        f.write("\n")
    os.rename(tmp, dest)


def unpack(rawdir, bundles):
    seen = {}
    for b in sorted(bundles):
        with open(b) as f:
            doc = json.load(f)
        for rel, content in doc["files"].items():
            if os.path.isabs(rel) or ".." in rel.split("/"):
                die(f"{b}: bad path {rel}")
            if rel in seen:
                if seen[rel][1] != content:
                    die(f"{rel} differs between {seen[rel][0]} and {b}")
                continue
            seen[rel] = (b, content)
            path = os.path.join(rawdir, rel)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as f:
                if isinstance(content, str):
                    f.write(content)
                else:
                    json.dump(content, f, indent=1)


def job_name(line):
    """EXP/JOB of a job list line: tools/scripts/run-job SCRIPT JOB ARG..."""
    words = shlex.split(line)
    exp = os.path.basename(words[1])[:-len(".sh")]
    if exp[:2].isdigit() and exp[2:3] == "-":
        exp = exp[3:]
    return f"{exp}/{words[2]}"


def missing(joblist, results):
    with open(joblist) as f:
        for line in f:
            if line.strip():
                name = job_name(line)
                if not os.path.exists(f"{results}/raw/{name}.json"):
                    print(name)


# Without a measured duration: a guest boot with its replays, or a host job.
GUEST_GUESS, HOST_GUESS = 60, 5


def estimates(joblist, durations):
    """NAME -> expected seconds: the last measured run (DURATIONS holds
    'NAME SECONDS' lines that tools/scripts/run-job appends), else a guess."""
    known = {}
    if os.path.exists(durations):
        with open(durations) as f:
            for line in f:
                w = line.split()
                if len(w) == 2 and w[1].isdigit():
                    known[w[0]] = int(w[1])
    out = []
    with open(joblist) as f:
        for line in f:
            if line.strip():
                name = job_name(line)
                guess = GUEST_GUESS if "/guest-" in name else HOST_GUESS
                out.append((line, name, known.get(name, guess)))
    return out


def order(joblist, durations):
    """Longest first (LPT): the workers finish close together."""
    jobs = estimates(joblist, durations)
    for line, _, _ in sorted(jobs, key=lambda j: -j[2]):
        print(line, end="")


def joblog_ok(joblist, joblog, results):
    """parallel --resume-failed skips what its log calls done (by line
    number); that must still have its result."""
    if not os.path.exists(joblog):
        return True
    with open(joblist) as f:
        lines = [l for l in f if l.strip()]
    with open(joblog) as f:
        for row in f.read().splitlines()[1:]:
            col = row.split("\t")
            if len(col) < 9 or not col[0].isdigit():
                return False
            seq = int(col[0])
            if seq < 1 or seq > len(lines) or col[8] != lines[seq - 1].rstrip("\n"):
                return False
            if col[6] == "0" and col[7] == "0" and not os.path.exists(
                    f"{results}/raw/{job_name(lines[seq - 1])}.json"):
                return False
    return True


def main():
    if len(sys.argv) < 2:
        die("usage: job_results.py bundle|unpack|missing ...")
    cmd, args = sys.argv[1], sys.argv[2:]
    if cmd == "bundle" and len(args) >= 3:
        bundle(args[0], args[1], args[2], args[3:])
    elif cmd == "unpack" and len(args) >= 1:
        unpack(args[0], args[1:])
    elif cmd == "missing" and len(args) == 2:
        missing(args[0], args[1])
    elif cmd == "order" and len(args) == 2:
        order(args[0], args[1])
    elif cmd == "joblog-ok" and len(args) == 3:
        sys.exit(0 if joblog_ok(args[0], args[1], args[2]) else 1)
    elif cmd == "estimates" and len(args) == 2:
        for _, name, secs in estimates(args[0], args[1]):
            print(name, secs)
    else:
        die(f"bad arguments for '{cmd}'")


if __name__ == "__main__":
    main()
