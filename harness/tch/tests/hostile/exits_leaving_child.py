"""Answers hello, then exits with status 3 at the first chunk, leaving a child that still holds
its stdout open (so the output never closes)."""
import subprocess
import sys

from _hello import after_hello


def leave():
    subprocess.Popen(["sleep", "60"])
    sys.exit(3)


after_hello(leave)
