#!/usr/bin/env python3
"""Run a QEMU guest and migrate it through a file whenever it asks.

usage: vm-migrate.py [--live] STATE_FILE QEMU [ARG...]

Runs QEMU ARG... with a QMP socket and copies its stdout (the serial
console) to ours. Each time the guest prints a line @@MCMGPU-MIGRATE@@, the
running QEMU is stopped ('stop'), migrated over QMP ('migrate' to
"exec:cat > STATE_FILE") and told to quit; a new QEMU with the same
arguments plus '-incoming defer' loads the state ('migrate-incoming' from
"exec:cat STATE_FILE") and continues ('cont'). With --live the guest keeps
running while its RAM is copied (no 'stop', the new QEMU starts by itself):
see docs/testing.md ("Migration") for why the tests do not use it. After each
migration the line @@MCMGPU-MIGRATED n=N bytes=B ...@@ goes into the console
stream and the line "migrated" to the guest's console input, so the guest
knows it now runs on the new QEMU. Exit status: the last QEMU's, or 3 if a
migration failed. Used by tools/vm-run --migrate (issue 9, item 6).
"""
import json
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time

MARKER = b"@@MCMGPU-MIGRATE@@"


def log(msg):
    print(f"vm-migrate: {msg}", file=sys.stderr, flush=True)


class QMP:
    """The smallest QMP client: commands in order, events skipped."""

    def __init__(self, path, timeout=60):
        deadline = time.monotonic() + timeout
        while True:
            try:
                self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                self.sock.connect(path)
                break
            except OSError:
                self.sock.close()
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)
        self.file = self.sock.makefile("rwb")
        self._read()  # greeting
        self.cmd("qmp_capabilities")

    def _read(self):
        while True:
            line = self.file.readline()
            if not line:
                raise EOFError("QMP connection closed")
            msg = json.loads(line)
            if "event" not in msg:
                return msg

    def cmd(self, name, **args):
        req = {"execute": name}
        if args:
            req["arguments"] = args
        self.file.write(json.dumps(req).encode() + b"\n")
        self.file.flush()
        reply = self._read()
        if "error" in reply:
            raise RuntimeError(f"{name}: {reply['error'].get('desc')}")
        return reply.get("return")

    def close(self):
        try:
            self.file.close()
            self.sock.close()
        except OSError:
            pass


def wait_migration(qmp, what, timeout=300):
    """Polls query-migrate until completed; the final info, or raises."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        info = qmp.cmd("query-migrate")
        status = info.get("status", "none")
        if status == "completed":
            return info
        if status in ("failed", "cancelled"):
            raise RuntimeError(f"{what}: {status}: "
                               f"{info.get('error-desc', 'no reason given')}")
        time.sleep(0.05)
    raise RuntimeError(f"{what}: not done after {timeout} s")


class Guest:
    """One QEMU process whose console is copied to stdout by a thread."""

    def __init__(self, argv, qmp_path, want):
        self.proc = subprocess.Popen(
            argv + ["-qmp", f"unix:{qmp_path},server=on,wait=off"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self.want = want
        self.thread = threading.Thread(target=self._copy, daemon=True)
        self.thread.start()
        self.qmp = QMP(qmp_path)

    def _copy(self):
        out = sys.stdout.buffer
        for line in iter(self.proc.stdout.readline, b""):
            out.write(line)
            out.flush()
            if line.rstrip(b"\r\n") == MARKER:
                self.want.set()

    def finish(self):
        self.thread.join()
        return self.proc.wait()

    def abandon(self, err):
        """A failed migration: say why, kill this QEMU, exit status 3."""
        log(f"{type(err).__name__}: {err}")
        self.proc.kill()
        self.finish()
        return 3


def main():
    if len(sys.argv) < 3 or sys.argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if len(sys.argv) > 1 else 2
    live = False
    if sys.argv[1] == "--live":
        live = True
        del sys.argv[1]
    state, argv = sys.argv[1], sys.argv[2:]
    tmp = tempfile.mkdtemp(prefix="vm-migrate-")
    want = threading.Event()
    n = 0
    guest = Guest(argv, os.path.join(tmp, "qmp0"), want)
    while True:
        # Wait for a request or for the guest to end.
        while not want.wait(0.1):
            if guest.proc.poll() is not None:
                rc = guest.finish()
                guest.qmp.close()
                return rc
        want.clear()
        n += 1
        try:
            if not live:
                guest.qmp.cmd("stop")
            guest.qmp.cmd("migrate", uri=f"exec:cat > {state}")
            info = wait_migration(guest.qmp, f"migration {n} (save)")
            guest.qmp.cmd("quit")
        except (RuntimeError, OSError, EOFError) as e:
            return guest.abandon(e)
        guest.qmp.close()
        guest.finish()
        size = os.path.getsize(state)
        ram = info.get("ram", {})
        guest = Guest(argv + ["-incoming", "defer"],
                      os.path.join(tmp, f"qmp{n}"), want)
        try:
            guest.qmp.cmd("migrate-incoming", uri=f"exec:cat {state}")
            wait_migration(guest.qmp, f"migration {n} (load)")
            if not live:
                # The stream says the source was stopped: start it here.
                guest.qmp.cmd("cont")
        except (RuntimeError, OSError, EOFError) as e:
            return guest.abandon(e)
        sys.stdout.buffer.write(
            f"@@MCMGPU-MIGRATED n={n} bytes={size} "
            f"downtime_ms={info.get('downtime', 0)} "
            f"ram_bytes={ram.get('transferred', 0)}@@\n".encode())
        sys.stdout.buffer.flush()
        # Tell the guest: one line on its console.
        guest.proc.stdin.write(b"migrated\n")
        guest.proc.stdin.flush()


if __name__ == "__main__":
    sys.exit(main())
