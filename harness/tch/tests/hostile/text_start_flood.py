"""Answers hello, then sends bracketing lines (which carry nothing) forever, each well within
the reply timeout."""
import sys

from _hello import after_hello


def flood():
    while True:
        sys.stdout.write('{"type":"text-start","id":"0"}\n')
        sys.stdout.flush()


after_hello(flood)
