#!/usr/bin/env python3
"""BUG: seed 001's ChatWrapper detector for the `signature` dialect.

It starts tool mode only "when textDelta === '###'", that is when one chunk is exactly
`###`, then swallows every later delta until the stream completes and parses the whole
response text. Any other chunking of `###: {...}` is never detected (the call leaks as text);
and when it is detected, the text after the call is swallowed.
tch: chunk-dependent, leaked-markup, missing-call, lost-text.
"""

import json

from _base import error, serve, text


class HashDetector:
    def __init__(self):
        self.tool_mode = False
        self.response = ""

    def push(self, chunk):
        self.response += chunk
        if chunk == "###":
            self.tool_mode = True
        return [] if self.tool_mode else [text(chunk)]

    def finish(self):
        if not self.tool_mode:
            return []
        _, _, payload = self.response.partition("###:")
        try:
            call = json.loads(payload[: payload.rfind("}") + 1])
            return [{"type": "tool-call", "toolCallId": "tool-call-1", "toolName": call["toolName"], "input": call.get("input", {})}]
        except (ValueError, KeyError, TypeError):
            return [error("Invalid tool call format")]


serve(HashDetector, name="bug: seed 001 '###' detector", dialects=["signature"])
