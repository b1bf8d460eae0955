"""Answers hello, then floods stdout with events and never syncs."""
import sys

from _hello import after_hello


def flood():
    while True:
        sys.stdout.write('{"type":"text-delta","delta":"x"}\n' * 1000)


after_hello(flood)
