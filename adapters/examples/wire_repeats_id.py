#!/usr/bin/env python3
"""BUG: the server repeats a call's `id` and `function.name` on every delta of the call.

The AI SDK ignores them; the OpenAI Python SDK concatenates strings (`accumulate_delta`): the
call's id reads `tool-call-1tool-call-1` and its name `get_weatherget_weather`.
tch: wire (W4.3, critical); the events the AI SDK reads are right.
"""

from _wire_base import ChunkServer, serve


class RepeatsId(ChunkServer):
    def call(self, index, call_id, name, arguments):
        first, rest = super().call(index, call_id, name, arguments)
        later = rest["choices"][0]["delta"]["tool_calls"][0]
        later["id"] = call_id
        later["function"]["name"] = name
        return [first, rest]


serve(RepeatsId, name="bug: repeats the call id on every delta")
