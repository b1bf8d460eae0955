#!/usr/bin/env python3
"""A tch candidate (specs/protocol.md) wrapping the REAL streaming tool-call and reasoning
parsers of SGLang, as extracted in the PyPI package llm-router-utils 0.8.1: one process for
every tch dialect that one of its `FunctionCallParser` detectors reads (`begin.dialect` picks
the detector, and the reasoning parser a deployment of that model family runs beside it).

Each stream is driven as SGLang's OpenAI server drives a chat completion
(`OpenAIServingChat._generate_stream_content`: `_process_reasoning_stream`, then
`_process_tool_call_stream`, then at the finishing step `_check_for_unstreamed_tool_args`),
producing the OpenAI chat-completion deltas the server would send; the OpenAI-delta bridge
(adapters/bridge/python/openai_deltas.py) reads them as a client (the AI SDK's
openai-compatible model) does. The adapter never fixes the parsers: see README.md for the
mapping and every choice made.

    python3 -m venv adapters/sglang/.venv
    adapters/sglang/.venv/bin/pip install --no-deps -r adapters/sglang/requirements.txt
    tch run -- adapters/sglang/.venv/bin/python adapters/sglang/adapter.py
"""

import functools
import json
import logging
import os
import sys
import types
import uuid

# SGLang logs parse failures with `logging`: keep them on standard error, never stdout.
logging.basicConfig(stream=sys.stderr, level=logging.WARNING)

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "bridge", "python"))
from openai_deltas import serve  # noqa: E402

# `parser/reasoning_parser.py` imports `PreTrainedTokenizerBase` from transformers for one type
# annotation (`get_think_end_token_ids`, never called here); nothing else of transformers is
# used by the parsers. A stand-in module keeps the 500 MB of transformers out of the install.
if "transformers" not in sys.modules:
    _stub = types.ModuleType("transformers")
    _stub.PreTrainedTokenizerBase = object
    sys.modules["transformers"] = _stub

from llm_router_utils.sglang.srt.entrypoints.openai.protocol import (  # noqa: E402
    DeltaMessage,
    Function,
    FunctionResponse,
    Tool,
    ToolCall,
)
from llm_router_utils.sglang.srt.function_call.function_call_parser import (  # noqa: E402
    FunctionCallParser,
)
from llm_router_utils.sglang.srt.parser.reasoning_parser import ReasoningParser  # noqa: E402

NAME = "sglang-llm-router-utils-0.8.1"

# tch dialect -> (`--tool-call-parser`, `--reasoning-parser`): README.md says why each.
PARSERS = {
    "hermes": ("hermes", "qwen3"),
    "qwen3-coder": ("qwen3_coder", "qwen3"),
    "harmony": ("gpt-oss", "gpt-oss"),
    "deepseek-v3": ("deepseekv3", "deepseek-v3"),
    "deepseek-v3.1": ("deepseekv31", "deepseek-v3"),
    "deepseek-v3.2": ("deepseekv32", "deepseek-v3"),
    "deepseek-v4": ("deepseekv4", "deepseek-v4"),
    "deepseek-v4.1": ("deepseekv41", "deepseek-v41"),
    "kimi-k2": ("kimi_k2", "kimi_k2"),
    "kimi-k3": ("kimi_k3", "kimi_k3"),
    "glm-4.5": ("glm45", "glm45"),
    "glm-4.7": ("glm47", "glm45"),
    "gemma4": ("gemma4", "gemma4"),
    "mistral": ("mistral", "mistral"),
    "minimax-m2": ("minimax-m2", "minimax"),
    "llama3-json": ("llama3", None),
    "cohere": ("cohere_command4", "cohere_command4"),
    "step3": ("step3", "step3"),
    "gigachat3": ("gigachat3", None),
    "glimmer": ("muse", "muse"),
    "minimax-m3": ("minimax-m3", "minimax-m3"),
}


def parser_overrides(spec):
    """TCH_SGLANG_PARSERS="DIALECT=TOOL[/REASONING],...": another detector (and reasoning
    parser, or `none`) of the package for a dialect, e.g. `hermes=qwen25/qwen3`."""
    overrides = {}
    for item in filter(None, (part.strip() for part in spec.split(","))):
        dialect, _, parsers = item.partition("=")
        tool, _, reasoning = parsers.partition("/")
        if dialect not in PARSERS or tool not in FunctionCallParser.ToolCallParserEnum:
            raise SystemExit(f"TCH_SGLANG_PARSERS: cannot read {item!r}")
        if reasoning and reasoning != "none" and reasoning not in ReasoningParser.DetectorMap:
            raise SystemExit(f"TCH_SGLANG_PARSERS: unknown reasoning parser in {item!r}")
        overrides[dialect] = (tool, (reasoning or PARSERS[dialect][1]) if reasoning != "none" else None)
    return overrides


OVERRIDES = parser_overrides(os.environ.get("TCH_SGLANG_PARSERS", ""))
PARSERS.update(OVERRIDES)

# The tools a request declares: exactly the `begin` tools (specs/protocol.md P2.2: tch's
# registry plus every tool the stream calls, the latter with `inputSchema` `{}`). SGLang's
# streaming parsers drop a call whose name is not one of the request's tools; a client declares
# the tools its model calls, and `begin` says which those are. A tool without a schema, or with
# the empty one, accepts any object (`{"type": "object"}`).
def declared_tools(begin_tools):
    """The request's tools as SGLang `Tool` objects, a fresh list per stream. Converted once per
    distinct `begin` tools (a run sends few: the registry, plus the tools each case calls) and
    shared: the parsers only read them, and the conversion (pydantic validation of every tool)
    cost as much as the rest of a short stream (specs/protocol.md P2.10)."""
    return list(_declared_tools(json.dumps(begin_tools or [], ensure_ascii=False)))


@functools.lru_cache(maxsize=512)
def _declared_tools(begin_tools_json):
    begin_tools = json.loads(begin_tools_json)
    return tuple(
        Tool(
            type="function",
            function=Function(
                name=tool["name"],
                description=tool.get("description") or None,
                parameters=tool.get("inputSchema") or {"type": "object"},
            ),
        )
        for tool in begin_tools or []
    )


@functools.lru_cache(maxsize=None)
def reasoning_markers(reasoning_parser):
    """The reasoning parser's opener (`think_start_token` plus `think_start_self_label`) and
    closer, read once per parser name from a detector made only to read them."""
    probe = ReasoningParser(reasoning_parser).detector
    opener = probe.think_start_token + getattr(probe, "think_start_self_label", "")
    return opener, probe.think_end_token


# specs/protocol.md P2.9: dialects whose chat template opens reasoning in every generation
# prompt, with no switch to leave it closed (README.md § Replies that start in reasoning quotes
# each template). SGLang's reasoning parser for these starts every reply in reasoning whatever
# the server passes (`minimax` is forced in `ReasoningParser.__init__`; `step3` is
# `DeepSeekR1Detector`, which passes `force_reasoning=True` to its base), and these models are
# never prompted with reasoning closed. Templates that may or may not open reasoning (Qwen3's,
# DeepSeek's, Kimi's, GLM's, Cohere's, Muse Glimmer's, ...) are not here, even where SGLang's
# parser ignores the prompt (Cohere's, Muse Glimmer's): the adapter reads their prefill
# (`reasoning_left_open`), and what the parser makes of it is a finding.
TEMPLATE_ALWAYS_OPENS_REASONING = ("minimax-m2", "step3")


def starts_in_reasoning():
    """The dialects the hello lists in `startsInReasoning`: those whose template always opens
    reasoning and whose configured reasoning parser (overrides included: `minimax-m2=…/none`
    starts in text) does start a reply in reasoning when the prompt is read as leaving it
    closed (`force_reasoning=False`)."""
    dialects = []
    for dialect in TEMPLATE_ALWAYS_OPENS_REASONING:
        reasoning_parser = PARSERS[dialect][1]
        if reasoning_parser and ReasoningParser(reasoning_parser, True, False).detector._in_reasoning:
            dialects.append(dialect)
    return dialects


def reasoning_left_open(prefill, start, end):
    """Whether the generation prompt ends inside reasoning: its last opener comes after its
    last closer (as the reasoning detector's `previous_content` check reads a continued
    message). The opener is the detector's `think_start_token` plus its
    `think_start_self_label` (Gemma 4's `<|channel>` + `thought\n`; empty for the others), the
    text the detector strips as one. A partial opener at the end does not count."""
    opened = prefill.rfind(start)
    return opened >= 0 and opened > prefill.rfind(end)


def content_delta(text):
    # `build_sse_content(content=...)` / `DeltaMessage(content=...)`: what the client reads.
    return {"role": None, "content": text, "reasoning_content": None}


class Stream:
    """One chat completion (one choice): its reasoning parser and its tool-call parser."""

    def __init__(self, begin):
        tool_parser, reasoning_parser = PARSERS[begin["dialect"]]
        self.tool_parser_name = tool_parser
        self.tools = declared_tools(begin.get("tools"))
        # `_tool_call_parsing_active`: request.tool_choice != "none" and tools and a parser.
        self.parser = FunctionCallParser(tools=self.tools, tool_call_parser=tool_parser) if self.tools else None
        self.reasoning = None
        if reasoning_parser:  # `self.reasoning_parser and request.separate_reasoning` (default)
            opener, closer = reasoning_markers(reasoning_parser)
            force = reasoning_left_open(begin.get("prefill") or "", opener, closer)
            # `_process_reasoning_stream`: ReasoningParser(reasoning_parser,
            # request.stream_reasoning (True), is_force_reasoning, request, tokenizer=...,
            # tool_call_parser_active=...).
            self.reasoning = ReasoningParser(
                reasoning_parser, True, force, None, tool_call_parser_active=self.parser is not None
            )
        self.first = True

    def step(self, text, finish):
        """One engine step of `_generate_chat_stream` / `_generate_stream_content`: the OpenAI
        deltas the server sends for it, in order."""
        deltas = []
        if self.first:
            # The first chunk of a choice: role "assistant", content "".
            deltas.append({"reasoning_content": None, "role": "assistant", "content": ""})
            self.first = False
        delta = text
        if self.reasoning is not None:
            reasoning_text, delta = self.reasoning.parse_stream_chunk(delta)
            if finish:
                end_reasoning, end_normal = self.reasoning.parse_stream_end()
                if end_reasoning:
                    reasoning_text = (reasoning_text or "") + end_reasoning
                if end_normal:
                    delta = (delta or "") + end_normal
            if reasoning_text:
                deltas.append({"reasoning_content": reasoning_text, "role": None, "content": None})
        if self.parser is not None:
            deltas.extend(self.tool_call_stream(delta, flush=finish))
            if finish:
                deltas.extend(self.unstreamed_tool_args())
        elif delta:
            deltas.append(content_delta(delta))
        return deltas

    def tool_call_stream(self, delta, flush):
        """`_process_tool_call_stream(delta, flush=...)`: the normal text, then one delta per
        call item."""
        normal_text, calls = self.parser.parse_stream_chunk(delta)
        if flush:
            end_text, end_calls = self.parser.parse_stream_end()
            normal_text = (normal_text or "") + end_text
            calls = list(calls) + end_calls
        deltas = [content_delta(normal_text)] if normal_text else []
        for item in calls:
            if item.name:
                tool_call_id, function_name = self.tool_call_id(item), item.name
            else:
                tool_call_id = function_name = None
            tool_call = ToolCall(
                id=tool_call_id,
                index=item.tool_index,
                function=FunctionResponse(name=function_name, arguments=item.parameters),
            )
            deltas.append(tool_call_delta(tool_call))
        return deltas

    def tool_call_id(self, item):
        """`_process_tool_call_id`, with no tool calls in the request's history."""
        history_tool_calls_cnt = 0
        if self.tool_parser_name == "kimi_k3":
            return f"{item.name}:{history_tool_calls_cnt + item.tool_index}"
        if self.tool_parser_name != "kimi_k2":
            return f"call_{uuid.uuid4().hex[:24]}"
        return f"functions.{item.name}:{history_tool_calls_cnt + item.tool_index}"

    def unstreamed_tool_args(self):
        """`_check_for_unstreamed_tool_args`, line for line."""
        detector = self.parser.detector if hasattr(self.parser, "detector") else self.parser
        if not hasattr(detector, "prev_tool_call_arr") or not detector.prev_tool_call_arr:
            return []
        if not hasattr(detector, "streamed_args_for_tool") or not detector.streamed_args_for_tool:
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
        if not remaining_call:
            return []
        tool_call = ToolCall(id=None, index=tool_index, function=FunctionResponse(name=None, arguments=remaining_call))
        return [tool_call_delta(tool_call)]


def tool_call_delta(tool_call):
    # `DeltaMessage(tool_calls=[tool_call])` as the server serialises it.
    return DeltaMessage(tool_calls=[tool_call]).model_dump(mode="json")


def reproduction():
    """P2.8: the standalone reproduction, `reproduction.py.tmpl` with this adapter's own
    choices filled in (the dialect -> parsers table); tch fills `{{DIALECT}}`, `{{PREFILL}}`,
    `{{CHUNKS}}` and `{{TOOLS}}`."""
    with open(os.path.join(HERE, "reproduction.py.tmpl"), encoding="utf-8") as f:
        template = f.read()
    template = template.replace("@ADAPTER_PARSERS@", json.dumps(PARSERS, ensure_ascii=False))
    return {"language": "python", "template": template}


def on_begin(begin):
    return Stream(begin)


def on_chunk(stream, text):
    return stream.step(text, finish=False)


def on_end(stream):
    # The finishing engine step carries no new text here: tch sent all of it in chunks (the
    # model's last step is its end-of-turn token, which the server does not stream).
    return stream.step("", finish=True)


if __name__ == "__main__":
    name = NAME
    if OVERRIDES:
        name += " " + ",".join(f"{d}={t}/{r or 'none'}" for d, (t, r) in sorted(OVERRIDES.items()))
    hello = {"reproduction": reproduction(), "startsInReasoning": starts_in_reasoning()}
    serve(name, list(PARSERS), on_begin, on_chunk, on_end, hello=hello)
