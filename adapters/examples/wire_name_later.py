#!/usr/bin/env python3
"""BUG: the server sends a call's `function.name` in its second delta, not its first.

The AI SDK v5 throws on a call's first delta without a name ("Expected 'function.name' to be
a string."): the stream errors and the call, and everything after it, are lost. The OpenAI
Python SDK sets the name when it comes.
tch: wire (W4.1, critical), and missing-call (the AI SDK's reading loses the call).
"""

from _wire_base import ChunkServer, serve


class NameLater(ChunkServer):
    def call(self, index, call_id, name, arguments):
        first, rest = super().call(index, call_id, name, arguments)
        del first["choices"][0]["delta"]["tool_calls"][0]["function"]["name"]
        rest["choices"][0]["delta"]["tool_calls"][0]["function"]["name"] = name
        return [first, rest]


serve(NameLater, name="bug: sends the function name in a later delta")
