#!/usr/bin/env python3
"""BUG: the server ends a reply with tool calls with `finish_reason: "stop"`.

The AI SDK maps it to `stop`, not `tool-calls`: an agent loop that runs the tools on
`tool_calls` (the API's function-calling guide does) thinks there is nothing to run.
tch: wire (W6.2, high), on every case with a call; text-only cases pass.
"""

from _wire_base import ChunkServer, serve


class StopAfterCalls(ChunkServer):
    def finish_chunk(self):
        return self.chunk({}, finish_reason="stop")


serve(StopAfterCalls, name="bug: stop after tool calls")
