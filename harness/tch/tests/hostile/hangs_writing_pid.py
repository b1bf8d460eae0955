"""Answers hello, writes its process id to the file named by its first argument, then hangs
at the first chunk: what Ctrl-C on tch must not leave behind (specs/runner.md R1.3)."""

import os
import sys
import time

from _hello import after_hello

with open(sys.argv[1], "w") as pid_file:
    pid_file.write(str(os.getpid()))


def hang():
    while True:
        time.sleep(60)


after_hello(hang)
