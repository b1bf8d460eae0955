"""Answers hello, then writes one 3 MiB line."""
import sys

from _hello import after_hello


def huge():
    sys.stdout.write("x" * (3 << 20))
    sys.stdout.flush()
    sys.stdin.read()


after_hello(huge)
