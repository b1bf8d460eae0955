#!/usr/bin/env python3
"""BUG: the server's non-streaming answer writes a call's `function.arguments` as a JSON
object, not as the JSON text of one (its chunks are right).

The API types `arguments` as a string; the AI SDK's response schema refuses the body, and
`generateText` throws: the whole message is lost (the OpenAI Python SDK hands the dict on, and
`json.loads` on it raises). The streamed replies are read right, so the two paths differ.
tch: wire (W8.1, critical) and non-streaming-differs (missing-call, lost-text: nothing of the
message is read).
"""

from _wire_base import ChunkServer, serve


class ArgumentsObject(ChunkServer):
    def completion_call(self, event):
        call = super().completion_call(event)
        call["function"]["arguments"] = event["input"]
        return call


serve(ArgumentsObject, name="bug: non-streaming arguments as an object", non_streaming=True)
