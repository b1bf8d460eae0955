"""Answers hello, then exits with status 7 and a message on stderr at the first chunk."""
import sys

from _hello import after_hello


def leave():
    sys.stderr.write("fatal: out of cheese\n")
    sys.exit(7)


after_hello(leave)
