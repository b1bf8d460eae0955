#!/usr/bin/env python3
"""BUG: drops the text that follows a call in the same chunk (several servers do).

tch: lost-text.
"""

from _base import HermesParser, serve


class DropsTextAfterCall(HermesParser):
    def push(self, chunk):
        events = super().push(chunk)
        for i, event in enumerate(events):
            if event["type"] == "tool-call":
                return [e for e in events[: i + 1]] + [e for e in events[i + 1 :] if e["type"] != "text-delta"]
        return events


serve(DropsTextAfterCall, name="bug: drops text after a call")
