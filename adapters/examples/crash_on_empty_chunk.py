#!/usr/bin/env python3
"""BUG: crashes on an empty chunk (an index error on chunk[0], as written in a hurry).

Streams can carry empty deltas; tch's `empty` splitting sends them. tch: crash.
"""

import sys

from _base import HermesParser, serve


class CrashOnEmptyChunk(HermesParser):
    def push(self, chunk):
        if chunk[0] == "<":  # IndexError on ""
            sys.stderr.write("looking at a tag\n")
        return super().push(chunk)


serve(CrashOnEmptyChunk, name="bug: crash on empty chunk")
