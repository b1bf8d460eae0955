"""Starts a helper process that detaches itself, as wrappers, language servers and `npm exec`
shims do, then serves or hangs: what no candidate may leave behind (specs/runner.md R1.3).

    leaves_helper.py FILE MODE THEN

MODE, how the helper (a `sleep`) detaches:
  session           it starts a session of its own (setsid) and lets go of the candidate's
                    standard streams
  session-stdout    it starts a session of its own and keeps the candidate's standard output
                    (so that output never closes while it lives)
  double-fork       a daemon's double fork (fork, setsid, fork, the middle process exits): an
                    orphan, no longer below the candidate
  double-fork-bare  the same, with its environment cleared (no TCH_CANDIDATE marker)
THEN: `serve` echoes each chunk as text; `hang` hangs at the first chunk.

Each start appends its helper's process id and start time (`PID START`, /proc/PID/stat's 22nd
field, which tells it from a later process given the same id) to FILE before it answers
hello. Before that it checks that the helpers of earlier starts listed in FILE are gone,
killed and reaped (a restart comes after the last process ended with its helpers, and tch
waits for the orphans it kills), waiting for them generously, and appends each one still
there to FILE.leaked, `PID START running` or `PID START zombie` (dead, never reaped).
"""

import json
import os
import sys
import time

path, mode, then = sys.argv[1:4]


def state(pid):
    """The state and start time of `pid` (`("Z", "123")` for a zombie), or None once it is gone."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
    except (FileNotFoundError, ProcessLookupError, IndexError):
        return None
    return fields[0], fields[19]


def check_earlier_helpers_gone():
    try:
        with open(path) as listed:
            helpers = [line.split() for line in listed if line.strip()]
    except FileNotFoundError:
        return
    for pid, started in helpers:
        still = lambda: (state(pid) or ("", None))[1] == started
        waited = time.monotonic()
        while still() and time.monotonic() - waited < 20:
            time.sleep(0.05)
        if still():
            how = "zombie" if state(pid)[0] == "Z" else "running"
            with open(path + ".leaked", "a") as leaked:
                leaked.write(f"{pid} {started} {how}\n")


def become_helper(report):
    """In the helper process: report its id and start time, then sleep for good."""
    pid = os.getpid()
    os.write(report, f"{pid} {state(pid)[1]}\n".encode())
    os.close(report)
    if mode != "session-stdout":
        null = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(null, fd)
    environment = {"PATH": os.environ.get("PATH", "/usr/bin:/bin")} if mode.endswith("-bare") else os.environ
    os.execvpe("sleep", ["sleep", "600"], environment)


def start_helper():
    """Starts the helper; returns its `PID START` line once it has reported it."""
    reading, report = os.pipe()
    if os.fork() == 0:
        os.close(reading)
        os.setsid()
        if mode.startswith("double-fork") and os.fork() != 0:
            os._exit(0)
        become_helper(report)
    os.close(report)
    line = b""
    while chunk := os.read(reading, 100):
        line += chunk
    os.close(reading)
    if mode.startswith("double-fork"):
        os.wait()  # the middle process, which exited at once
    return line.decode()


check_earlier_helpers_gone()
helper = start_helper()
with open(path, "a") as listed:
    listed.write(helper)

for line in sys.stdin:
    request = json.loads(line)
    op = request["op"]
    if op == "hello":
        print(json.dumps({"type": "hello", "protocol": 1, "name": "leaves-helper", "dialects": ["hermes"]}), flush=True)
    elif op == "chunk":
        while then == "hang":
            time.sleep(60)
        print(json.dumps({"type": "text-delta", "delta": request["text"]}))
        print('{"type":"sync"}', flush=True)
    elif op == "end":
        print('{"type":"done"}', flush=True)
    elif op == "bye":
        break
