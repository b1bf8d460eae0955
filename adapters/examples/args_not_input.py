#!/usr/bin/env python3
"""BUG: the classic mistake of seed 002: a tool-call carries "args" instead of "input".

tch: grammar (the transport names the misnamed field).
"""

from _base import HermesParser, serve


class ArgsNotInput(HermesParser):
    def call(self, content, block):
        events = super().call(content, block)
        for event in events:
            if event["type"] == "tool-call":
                event["args"] = event.pop("input")
        return events


serve(ArgsNotInput, name="bug: args instead of input")
