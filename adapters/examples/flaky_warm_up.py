#!/usr/bin/env python3
"""BUG: the first time it meets a chunking (of two chunks or more), it ends the stream with a
stray "…" text; every later replay of the same chunks is right.

A warm-up path: what a JIT, a cache or a timer (`@ai-sdk-tool/parser` streams tool-input
progress on a `setTimeout(0)` timer) does to real parsers. The whole stream is always right, so
a chunking's first replay differs from it, and its second replay does not: tch says flaky, not
chunk-dependent.
"""

from _base import HermesParser, serve, text

SEEN = set()


class FlakyWarmUp(HermesParser):
    def __init__(self):
        super().__init__()
        self.chunks = []

    def push(self, chunk):
        self.chunks.append(chunk)
        return super().push(chunk)

    def finish(self):
        events = super().finish()
        key = tuple(self.chunks)
        if len(key) >= 2 and key not in SEEN:
            SEEN.add(key)
            events.append(text("…"))
        return events


serve(FlakyWarmUp, name="bug: flaky warm-up")
