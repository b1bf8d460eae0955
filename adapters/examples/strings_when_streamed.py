#!/usr/bin/env python3
"""BUG: streamed calls carry their argument values as strings; the non-streaming path (the
whole reply at once, specs/protocol.md P2.11) types them. vLLM's kimi_k2 tool parser did
this: `extract_tool_calls` typed the values, `extract_tool_calls_streaming` left them text,
so the same reply gave other calls streamed than whole.

tch: wrong-call (the streamed whole stream), non-streaming-differs (its non-streaming
result, the expected one, differs from it).
"""

import json

from _base import HermesParser, serve


class StringsWhenStreamed(HermesParser):
    def __init__(self):
        super().__init__()
        self.whole = False

    def parse_complete(self, text):
        self.whole = True
        return super().parse_complete(text)

    def call(self, content, block):
        events = super().call(content, block)
        if self.whole:
            return events
        for event in events:
            if event["type"] == "tool-call":
                event["input"] = {
                    key: value if isinstance(value, str) else json.dumps(value)
                    for key, value in event["input"].items()
                }
        return events


serve(StringsWhenStreamed, name="bug: strings when streamed")
