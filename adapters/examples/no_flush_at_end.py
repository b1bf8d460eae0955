#!/usr/bin/env python3
"""BUG: line-buffers its text and never flushes the held text at the end of the stream.

Whatever follows the last newline is lost. tch: lost-text.
"""

from _base import HermesParser, serve, text


class NoFlushAtEnd(HermesParser):
    def __init__(self):
        super().__init__()
        self.line = ""

    def push(self, chunk):
        events = []
        for event in super().push(chunk):
            if event["type"] != "text-delta":
                events.append(event)
                continue
            self.line += event["delta"]
            cut = self.line.rfind("\n") + 1
            if cut:
                events.append(text(self.line[:cut]))
                self.line = self.line[cut:]
        return events

    def finish(self):
        return [e for e in super().finish() if e["type"] != "text-delta"]


serve(NoFlushAtEnd, name="bug: no flush at end")
