#!/usr/bin/env python3
"""BUG: parses each chunk on its own, as if every chunk were a whole message.

A call split across chunks is never seen: its markup comes out as text. Right for the whole
stream, wrong for most splittings. tch: chunk-dependent, leaked-markup, missing-call.
"""

from _base import HermesParser, serve


class PerChunk:
    def push(self, chunk):
        parser = HermesParser()
        return parser.push(chunk) + parser.finish()

    def finish(self):
        return []


serve(PerChunk, name="bug: per-chunk parser")
