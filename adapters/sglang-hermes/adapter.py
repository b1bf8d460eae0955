#!/usr/bin/env python3
"""A tch candidate (specs/protocol.md) wrapping the REAL streaming hermes tool-call parser of
SGLang, as extracted in the PyPI package llm-router-utils 0.8.1: `FunctionCallParser` with
`tool_call_parser="hermes"` (its `HermesDetector`, `<tool_call>{json}</tool_call>`).

It is driven as SGLang's OpenAI server drives it (`OpenAIServingChat._process_tool_call_stream`
and `_check_for_unstreamed_tool_args` in
llm_router_utils/sglang/srt/entrypoints/openai/serving_chat.py, mirrored here because that
module cannot be imported without `transformers`), and what the server would send as OpenAI
chat-completion deltas is translated to tch events. The adapter never fixes the parser: see
README.md for the mapping and every choice made.

    python3 -m venv adapters/sglang-hermes/.venv
    adapters/sglang-hermes/.venv/bin/pip install --no-deps -r adapters/sglang-hermes/requirements.txt
    tch run --dialect hermes -- adapters/sglang-hermes/.venv/bin/python adapters/sglang-hermes/adapter.py
"""

import json
import logging
import os
import sys
import uuid

# SGLang logs parse failures with `logging`: keep them on standard error, never stdout.
logging.basicConfig(stream=sys.stderr, level=logging.WARNING)

# The template's protocol loop (adapters/python/adapter.py), and its event helpers.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
from adapter import error, serve, text  # noqa: E402

from llm_router_utils.sglang.srt.entrypoints.openai.protocol import Function, Tool  # noqa: E402
from llm_router_utils.sglang.srt.function_call.function_call_parser import (  # noqa: E402
    FunctionCallParser,
)

NAME = "llm-router-utils-0.8.1-hermes"
DIALECTS = ["hermes"]
TOOL_CALL_PARSER = "hermes"  # `--tool-call-parser hermes`

# The tools a request declares. SGLang's streaming parser drops a call whose name is not one of
# the request's tools (and keeps no text of it); tch's hermes dialect does not consult the
# registry (specs/dialects/hermes.md H2.2), and its corpus calls tools that the registry sent in
# `begin` does not have. A real client declares the tools its model calls, so by default the
# request declares the `begin` tools plus the tools the hermes corpus calls (any parameters).
# TCH_SGLANG_TOOLS=begin declares the `begin` tools only.
CORPUS_TOOL_NAMES = [
    "get_weather", "get_time", "list_files", "create_event", "set_role",
    "echo", "deep", "f", "g", "a", "天気",
]


def declared_tools(begin_tools):
    tools = [
        Tool(
            type="function",
            function=Function(
                name=tool["name"],
                description=tool.get("description") or None,
                parameters=tool.get("inputSchema") or {"type": "object"},
            ),
        )
        for tool in begin_tools or []
    ]
    if os.environ.get("TCH_SGLANG_TOOLS", "begin+corpus") != "begin":
        known = {tool.function.name for tool in tools}
        tools += [
            Tool(type="function", function=Function(name=name, parameters={"type": "object"}))
            for name in CORPUS_TOOL_NAMES
            if name not in known
        ]
    return tools


class Stream:
    """One chat-completion stream: SGLang's parser, and the OpenAI tool-call deltas it gave,
    read back as an OpenAI client accumulates them (calls told apart by their `id`, argument
    deltas without an id appended to the latest call of their `index`)."""

    def begin(self, begin_tools):
        """The template's loop calls this with the `begin` request's tools."""
        tools = declared_tools(begin_tools)
        # serving_chat: tool parsing runs only when the request has tools
        # (`request.tool_choice != "none" and request.tools and self.tool_call_parser`).
        self.parser = FunctionCallParser(tools=tools, tool_call_parser=TOOL_CALL_PARSER) if tools else None
        self.calls = []  # started calls, in order: {"id", "name", "index", "arguments"}
        self.latest = {}  # tool_index -> the call its argument deltas go to

    def push(self, delta):
        return self.chunk(delta)

    def finish(self):
        return self.end()

    def chunk(self, delta, flush=False):
        """serving_chat `_process_tool_call_stream(delta, flush=...)`: the normal text, then one
        OpenAI delta per call item, as tch events."""
        if self.parser is None:
            return [text(delta)] if delta else []
        normal_text, calls = self.parser.parse_stream_chunk(delta)
        if flush:
            end_text, end_calls = self.parser.parse_stream_end()
            normal_text = (normal_text or "") + end_text
            calls = list(calls) + end_calls
        events = [text(normal_text)] if normal_text else []
        for item in calls:
            if item.name:
                # `_process_tool_call_id`: a fresh id, once per call (any parser but kimi_k2/k3).
                call = {
                    "id": f"call_{uuid.uuid4().hex[:24]}",
                    "name": item.name,
                    "index": item.tool_index,
                    "arguments": "",
                }
                self.calls.append(call)
                self.latest[item.tool_index] = call
                events.append({"type": "tool-input-start", "id": call["id"], "toolName": call["name"]})
            events.extend(self.arguments(item.tool_index, item.parameters))
        return events

    def arguments(self, index, fragment):
        if not fragment:
            return []
        call = self.latest.get(index)
        if call is None:
            # An OpenAI delta with arguments for an index no call started: a client has no call
            # to put them in. Never seen; reported rather than invented.
            return [error(f"SGLang streamed arguments for tool_index {index}, which no call started: {fragment!r}")]
        call["arguments"] += fragment
        return [{"type": "tool-input-delta", "id": call["id"], "delta": fragment}]

    def end(self):
        """The terminal delta (empty: tch sent all text in chunks) with flush=True, then
        `_check_for_unstreamed_tool_args`, then the stream is over: every started call is complete
        with the concatenation of its streamed arguments as its input."""
        events = self.chunk("", flush=True)
        events.extend(self.unstreamed_tool_args())
        for call in self.calls:
            events.append({"type": "tool-input-end", "id": call["id"]})
            # The arguments string exactly as an OpenAI client holds it; tch reads a string input
            # as JSON: "" (arguments never streamed) as {}, as the AI SDK does, and a text that
            # is not JSON as a marked input (specs/protocol.md P1.2).
            events.append(
                {"type": "tool-call", "toolCallId": call["id"], "toolName": call["name"], "input": call["arguments"]}
            )
        return events

    def unstreamed_tool_args(self):
        """serving_chat `_check_for_unstreamed_tool_args`, line for line, for the hermes detector."""
        if self.parser is None:
            return []
        detector = self.parser.detector
        if not getattr(detector, "prev_tool_call_arr", None):
            return []
        if not getattr(detector, "streamed_args_for_tool", None):
            return []
        tool_index = len(detector.prev_tool_call_arr) - 1
        if tool_index < 0 or tool_index >= len(detector.streamed_args_for_tool):
            return []
        expected_args = detector.prev_tool_call_arr[tool_index].get("arguments", {})
        if isinstance(expected_args, str):
            expected_call = expected_args
        else:
            expected_call = json.dumps(expected_args, ensure_ascii=False)
        actual_call = detector.streamed_args_for_tool[tool_index]
        remaining_call = expected_call[len(actual_call):] if expected_call.startswith(actual_call) else ""
        return self.arguments(tool_index, remaining_call)


if __name__ == "__main__":
    serve(Stream, name=NAME, dialects=DIALECTS)
