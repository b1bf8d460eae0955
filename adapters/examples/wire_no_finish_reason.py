#!/usr/bin/env python3
"""BUG: the server never sends a `finish_reason` (no finish chunk).

The AI SDK reports the finish reason `unknown`, the OpenAI Python SDK leaves it `None`; an
agent loop that runs the tools on `tool_calls` stops.
tch: wire (W6.1, high; and W7.1: the usage chunk then comes before any finish).
"""

from _wire_base import ChunkServer, serve


class NoFinishReason(ChunkServer):
    def finish(self):
        return [self.usage_chunk(), "[DONE]"]


serve(NoFinishReason, name="bug: no finish_reason")
