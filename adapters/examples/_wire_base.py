"""Shared by the wire examples: the Python template's parser behind an OpenAI-compatible
server's chunk writer, answering in OpenAI chunks (specs/protocol.md section 5).

`ChunkServer` writes chunks as a correct server does (specs/wire.md: role first, a call's
first delta with id, type and name and empty arguments, its arguments after, index from 0,
one finish chunk with `tool_calls` after calls, the usage chunk, `[DONE]`; and, for an example
with a non-streaming path, the `chat.completion` object of P5.7), the same as
`tch serve --output openai-chunks`. Each wire example overrides one method to plant one bug
of an engine's server; `tch run` must give it the verdict `wire` naming the rule.
"""

import json
import sys

from _base import HermesParser

ID = "chatcmpl-example"


class ChunkServer:
    """One stream's chunk writer."""

    def __init__(self):
        self.started = False
        self.calls = []  # the ids written, by index

    def chunk(self, delta, finish_reason=None, usage=None):
        if not self.started:
            self.started = True
            delta = {"role": "assistant", **delta}
        return {
            "id": ID,
            "object": "chat.completion.chunk",
            "created": 0,
            "model": "example",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}],
            "usage": usage,
        }

    def events(self, events):
        """The chunks for a parser's events."""
        chunks = []
        for event in events:
            kind = event["type"]
            if kind == "text-delta" and event["delta"]:
                chunks.append(self.chunk({"content": event["delta"]}))
            elif kind == "reasoning-delta" and event["delta"]:
                chunks.append(self.chunk({"reasoning_content": event["delta"]}))
            elif kind == "tool-call":
                index = len(self.calls)
                self.calls.append(event["toolCallId"])
                arguments = json.dumps(event["input"], ensure_ascii=False)
                chunks.extend(self.call(index, event["toolCallId"], event["toolName"], arguments))
        return chunks

    def call(self, index, call_id, name, arguments):
        """A call's deltas: its first (id, type, name, no arguments), then its arguments."""
        return [
            self.chunk({"tool_calls": [
                {"index": index, "id": call_id, "type": "function", "function": {"name": name, "arguments": ""}}
            ]}),
            self.chunk({"tool_calls": [{"index": index, "function": {"arguments": arguments}}]}),
        ]

    def finish(self):
        """The stream's last lines: the finish chunk, the usage chunk, [DONE]."""
        return [self.finish_chunk(), self.usage_chunk(), "[DONE]"]

    def finish_chunk(self):
        return self.chunk({}, finish_reason="tool_calls" if self.calls else "stop")

    def completion(self, events):
        """The non-streaming answer for the whole reply's events: one `chat.completion`."""
        message = {"role": "assistant", "content": "".join(
            e["delta"] for e in events if e["type"] == "text-delta")}
        calls = [self.completion_call(e) for e in events if e["type"] == "tool-call"]
        if calls:
            message["tool_calls"] = calls
        return {
            "id": ID, "object": "chat.completion", "created": 0, "model": "example",
            "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls" if calls else "stop"}],
            "usage": {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0},
        }

    def completion_call(self, event):
        arguments = json.dumps(event["input"], ensure_ascii=False)
        return {"id": event["toolCallId"], "type": "function",
                "function": {"name": event["toolName"], "arguments": arguments}}

    def usage_chunk(self):
        return {
            "id": ID,
            "object": "chat.completion.chunk",
            "created": 0,
            "model": "example",
            "choices": [],
            "usage": {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0},
        }


def serve(make_server, name, dialects=("hermes",), non_streaming=False):
    """The protocol loop, answering `chunk` and `end` with the server's chunks, and with
    `non_streaming` the `non-streaming` request with its `chat.completion` object."""
    out = sys.stdout

    def send(line):
        out.write((line if isinstance(line, str) else json.dumps(line, separators=(",", ":"))) + "\n")

    parser = server = None
    for line in sys.stdin:
        if not line.strip():
            continue
        request = json.loads(line)
        op = request.get("op")
        if op == "hello":
            send({"type": "hello", "protocol": 1, "name": name, "dialects": list(dialects),
                  "output": "openai-chunks", "nonStreaming": non_streaming})
        elif op == "begin":
            parser, server = HermesParser(), make_server()
            if request.get("prefill") and hasattr(parser, "prefill"):
                parser.prefill(request["prefill"])
        elif op == "chunk":
            for chunk in server.events(parser.push(request["text"])):
                send(chunk)
            send({"type": "sync"})
        elif op == "end":
            for chunk in server.events(parser.finish()) + server.finish():
                send(chunk)
            send({"type": "done"})
        elif op == "non-streaming":
            send(server.completion(parser.push(request["text"]) + parser.finish()))
            send({"type": "done"})
        elif op == "bye":
            break
        out.flush()
