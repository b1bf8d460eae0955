#!/usr/bin/env python3
"""A tch candidate (specs/protocol.md) wrapping the REAL streaming tool-call and reasoning
parsers of SGLang, as extracted in the PyPI package llm-router-utils 0.8.1: one process for
every tch dialect that one of its `FunctionCallParser` detectors reads (`begin.dialect` picks
the detector, and the reasoning parser a deployment of that model family runs beside it).

Each stream is driven as SGLang's OpenAI server drives a streamed chat completion
(`OpenAIServingChat._generate_chat_stream` and `_generate_stream_content`:
`_process_reasoning_stream`, then `_process_tool_call_stream`, then at the finishing step
`_check_for_unstreamed_tool_args`, then the finish chunk, the usage chunk and `[DONE]`), and
answers with the OpenAI `chat.completion.chunk` objects the server writes (hello
`"output":"openai-chunks"`, specs/protocol.md §5), built with the package's own chunk code
(`build_sse_content`, the pydantic `ChatCompletionStreamResponse`). tch reads them as a client
does and judges the chunks against specs/wire.md. The non-streaming request (P2.11, hello
`"nonStreaming":true`) goes through the server's non-streaming path (`_build_chat_response`:
`ReasoningParser.parse_non_stream`, `_process_tool_calls`) and is answered with the
`chat.completion` object the server writes (`ChatCompletionResponse`, P5.7). The adapter never fixes the
parsers: see README.md for the mapping and every choice made.

    python3 -m venv adapters/sglang/.venv
    adapters/sglang/.venv/bin/pip install --no-deps -r adapters/sglang/requirements.txt
    tch run -- adapters/sglang/.venv/bin/python adapters/sglang/adapter.py
"""

import functools
import json
import logging
import os
import sys
import time
import types
import uuid

# SGLang logs parse failures with `logging`: keep them on standard error, never stdout.
logging.basicConfig(stream=sys.stderr, level=logging.WARNING)

HERE = os.path.dirname(os.path.abspath(__file__))

# `parser/reasoning_parser.py` imports `PreTrainedTokenizerBase` from transformers for one type
# annotation (`get_think_end_token_ids`, never called here); nothing else of transformers is
# used by the parsers. A stand-in module keeps the 500 MB of transformers out of the install.
if "transformers" not in sys.modules:
    _stub = types.ModuleType("transformers")
    _stub.PreTrainedTokenizerBase = object
    sys.modules["transformers"] = _stub

from llm_router_utils.sglang.srt.entrypoints.openai.protocol import (  # noqa: E402
    ChatCompletionResponse,
    ChatCompletionResponseChoice,
    ChatCompletionResponseStreamChoice,
    ChatMessage,
    ChatCompletionStreamResponse,
    DeltaMessage,
    Function,
    FunctionResponse,
    StreamOptions,
    Tool,
    ToolCall,
)
from llm_router_utils.sglang.srt.entrypoints.openai.sse_utils import build_sse_content  # noqa: E402
from llm_router_utils.sglang.srt.entrypoints.openai.usage_processor import UsageProcessor  # noqa: E402
from llm_router_utils.sglang.srt.entrypoints.openai.utils import should_include_usage  # noqa: E402
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
    "poolside": ("poolside_v1", "poolside_v1"),
    "apertus": ("apertus2509", "apertus2509"),
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


# The request every stream answers, as the server reads it: one choice (`n` = 1), streamed,
# with `stream_options.include_usage` (specs/protocol.md P5.5), `tool_choice` the server's
# default for a request with tools (`auto`), SGLang's default `separate_reasoning=True` and
# `stream_reasoning=True`. `model` is the served model name the chunks echo; the server's
# `stream_response_default_include_usage` is left at its default (False), which the request's
# `include_usage` overrides.
MODEL = "default"
STREAM_OPTIONS = StreamOptions(include_usage=True)
STREAM_RESPONSE_DEFAULT_INCLUDE_USAGE = False


def sse_data(event):
    """One server-sent event `data: …\n\n` as the line the protocol carries (P5.2: the text
    after `data: `)."""
    assert event.startswith("data: ") and event.endswith("\n\n"), event
    return event[len("data: "):-2]


class Stream:
    """One chat completion (one choice, `index` 0): its reasoning parser and its tool-call
    parser, and the state `_generate_chat_stream` keeps for the choice."""

    def __init__(self, begin):
        tool_parser, reasoning_parser = PARSERS[begin["dialect"]]
        self.tool_parser_name = tool_parser
        self.reasoning_parser_name = reasoning_parser
        self.tools = declared_tools(begin.get("tools"))
        # `_tool_call_parsing_active`: request.tool_choice != "none" and tools and a parser.
        self.parser = FunctionCallParser(tools=self.tools, tool_call_parser=tool_parser) if self.tools else None
        self.reasoning = None
        self.force_reasoning = False
        if reasoning_parser:  # `self.reasoning_parser and request.separate_reasoning` (default)
            opener, closer = reasoning_markers(reasoning_parser)
            self.force_reasoning = reasoning_left_open(begin.get("prefill") or "", opener, closer)
            # `_process_reasoning_stream`: ReasoningParser(reasoning_parser,
            # request.stream_reasoning (True), is_force_reasoning, request, tokenizer=...,
            # tool_call_parser_active=...).
            self.reasoning = ReasoningParser(
                reasoning_parser, True, self.force_reasoning, None, tool_call_parser_active=self.parser is not None
            )
        # `content["meta_info"]["id"]`: the request id the tokenizer manager gives a request
        # without `rid` (`uuid.uuid4().hex`), which every chunk of the stream carries as `id`.
        self.chunk_id = uuid.uuid4().hex
        self.first = True  # `is_firsts[index]`
        self.ended = False  # the stream ended on an error chunk and `[DONE]`
        self.has_tool_calls = False  # `has_tool_calls[index]`

    def sse_content(self, **fields):
        # `build_sse_content` (the package's `entrypoints/openai/sse_utils.py`, msgspec): role,
        # content, reasoning and finish chunks.
        return sse_data(
            build_sse_content(chunk_id=self.chunk_id, created=int(time.time()), model=MODEL, index=0, **fields)
        )

    def stream_response(self, delta):
        # `ChatCompletionStreamResponse(...).model_dump_json()` (pydantic): the chunks of
        # `_process_tool_call_stream` and `_check_for_unstreamed_tool_args`.
        choice = ChatCompletionResponseStreamChoice(index=0, delta=delta, finish_reason=None)
        chunk = ChatCompletionStreamResponse(id=self.chunk_id, created=int(time.time()), choices=[choice], model=MODEL)
        return sse_data(f"data: {chunk.model_dump_json()}\n\n")

    def step(self, text, finish):
        """One engine step, as `serve_step` writes it; [] once the stream has ended on an
        error."""
        return [] if self.ended else self.guarded(lambda chunks: self.serve_step(chunks, text, finish))

    def guarded(self, write):
        """`_generate_chat_stream`'s `except ValueError as e: if not stream_started: raise;
        error = self.create_streaming_error_response(str(e)); yield f"data: {error}\\n\\n"`,
        then `data: [DONE]`: the chunks written before the error, the error chunk, `[DONE]`, and
        nothing more of the stream. (The role chunk is the first thing written, so the stream
        has started by the time anything raises.) A `ValueError` is what pydantic's
        `model_dump_json` raises (`PydanticSerializationError`) for a lone surrogate a detector
        put in a call's arguments; any other exception is not caught (a crash)."""
        chunks = []
        try:
            write(chunks)
        except ValueError as e:
            self.ended = True
            chunks.append(streaming_error_response(str(e)))
            chunks.append("[DONE]")
        return chunks

    def serve_step(self, chunks, text, finish):
        """One engine step of `_generate_chat_stream` (its role chunk) and
        `_generate_stream_content`: the chunks the server writes for it, in order, appended to
        `chunks` as they are written."""
        if self.first:
            # "First chunk with role": `build_sse_content(role="assistant", content="")`.
            chunks.append(self.sse_content(role="assistant", content=""))
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
                chunks.append(self.sse_content(reasoning_content=reasoning_text))
        if self.parser is not None:
            chunks.extend(self.tool_call_stream(delta, flush=finish))
            if finish:
                chunks.extend(self.unstreamed_tool_args())
        elif delta:
            # "Regular content".
            chunks.append(self.sse_content(content=delta))

    def finish(self):
        """The finishing step, then what `_generate_chat_stream` writes after its loop: the
        finish chunk, the usage chunk, `[DONE]`."""
        return [] if self.ended else self.guarded(self.serve_finish)

    def serve_finish(self, chunks):
        self.serve_step(chunks, "", finish=True)
        # The model ended its turn: `finish_reason` `{"type": "stop", "matched": <its
        # end-of-turn token id>}`. "Change finish_reason to "tool_calls" if we had tool calls
        # and stopped naturally". `matched_stop` is that token's id, which the adapter does not
        # know (no tokenizer): it writes null; nothing reads it.
        final_finish_reason = "tool_calls" if self.has_tool_calls else "stop"
        chunks.append(self.sse_content(finish_reason=final_finish_reason, matched_stop=None))
        chunks.extend(self.usage_and_done())

    def usage_and_done(self):
        include_usage, _continuous_usage_stats = should_include_usage(
            STREAM_OPTIONS, STREAM_RESPONSE_DEFAULT_INCLUDE_USAGE
        )
        chunks = []
        if include_usage:
            # "Additional usage chunk": `choices=[]`. The token counts are the engine's; the
            # adapter has no tokenizer and counts none (0), which tch does not compare.
            usage = UsageProcessor.calculate_streaming_usage(
                {0: 0}, {0: 0}, {0: 0}, cached_tokens={0: 0}, n_choices=1, enable_cache_report=False
            )
            chunk = ChatCompletionStreamResponse(
                id=self.chunk_id, created=int(time.time()), choices=[], model=MODEL, usage=usage
            )
            chunks.append(sse_data(f"data: {chunk.model_dump_json()}\n\n"))
        chunks.append("[DONE]")  # `data: [DONE]` (P5.3)
        return chunks

    def tool_call_stream(self, delta, flush):
        """`_process_tool_call_stream(delta, flush=...)`: the normal text, then one chunk per
        call item."""
        normal_text, calls = self.parser.parse_stream_chunk(delta)
        if flush:
            end_text, end_calls = self.parser.parse_stream_end()
            normal_text = (normal_text or "") + end_text
            calls = list(calls) + end_calls
        chunks = [self.stream_response(DeltaMessage(content=normal_text))] if normal_text else []
        for item in calls:
            self.has_tool_calls = True
            if item.name:
                # "First chunk: include ID and function name".
                tool_call_id, function_name = self.tool_call_id(item), item.name
            else:
                # "Subsequent chunks: null ID and name for argument deltas".
                tool_call_id = function_name = None
            tool_call = ToolCall(
                id=tool_call_id,
                index=item.tool_index,
                function=FunctionResponse(name=function_name, arguments=item.parameters),
            )
            chunks.append(self.stream_response(DeltaMessage(tool_calls=[tool_call])))
        return chunks

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
        return [self.stream_response(DeltaMessage(tool_calls=[tool_call]))]

    # The non-streaming request (specs/protocol.md P2.11): `_build_chat_response`.

    def non_streaming(self, text):
        """The server's answer to the request without `"stream": true`: the
        `ChatCompletionResponse` of `non_streaming_message`, as the one line of its JSON body
        (P5.7). Serialising it raises a `ValueError` (`PydanticSerializationError`) for a lone
        surrogate a detector put in a call's arguments; upstream the response object is
        serialised by FastAPI after `handle_request` returned it, where nothing catches the
        error: Starlette answers `500 Internal Server Error` (plain text), written here as the
        error object a client reads from it."""
        response = self.non_streaming_message(text)
        try:
            return response.model_dump_json()
        except ValueError:
            return json.dumps({"error": {"message": "Internal Server Error", "type": "InternalServerError", "code": 500}})

    def non_streaming_message(self, text):
        """The whole reply through the server's non-streaming path, `_build_chat_response`:
        the reasoning parser's `parse_non_stream`, then `_process_tool_calls`; the
        `ChatCompletionResponse` it returns (README.md § The non-streaming request)."""
        reasoning_text = None
        if self.reasoning_parser_name:
            # `ReasoningParser(model_type=..., stream_reasoning=False, force_reasoning=...,
            # request=request)`; the same `force_reasoning` as the stream's. Upstream's
            # `_build_chat_response` (002897c2) passes no `tool_call_parser_active`; the
            # package's `MuseGlimmerDetector` (the one detector that reads it) documents its
            # non-streaming `detect_and_parse` for a server that does ("Non-streaming
            # additionally requires…"), so it is passed as for the stream. A raised exception
            # is a 500 response there; here it is not caught (a crash), as in the stream.
            parser = ReasoningParser(
                model_type=self.reasoning_parser_name, stream_reasoning=False,
                force_reasoning=self.force_reasoning, request=None,
                tool_call_parser_active=self.parser is not None,
            )
            reasoning_text, text = parser.parse_non_stream(text)
        tool_calls = None
        finish_reason = {"type": "stop", "matched": None}
        if self.tools:  # request.tool_choice != "none" and request.tools and self.tool_call_parser
            tool_calls, text, finish_reason = self.process_tool_calls(text, finish_reason)
        # `ChatMessage(role="assistant", content=text if text else "", tool_calls=tool_calls,
        # reasoning_content=reasoning_text if reasoning_text else None)`, the choice with the
        # finish reason's type and `matched_stop` (the end-of-turn token's id, unknown here:
        # null), and the response (`usage`: no tokenizer, no counts; `metadata` left out).
        message = ChatMessage(
            role="assistant", content=text if text else "", tool_calls=tool_calls,
            reasoning_content=reasoning_text if reasoning_text else None,
        )
        choice = ChatCompletionResponseChoice(
            index=0, message=message, finish_reason=finish_reason["type"], matched_stop=finish_reason.get("matched"),
        )
        usage = UsageProcessor.calculate_response_usage(
            [{"meta_info": {"prompt_tokens": 0, "completion_tokens": 0, "cached_tokens": 0}}],
            n_choices=1, enable_cache_report=False,
        )
        return ChatCompletionResponse(id=self.chunk_id, created=int(time.time()), model=MODEL, choices=[choice], usage=usage)

    def process_tool_calls(self, text, finish_reason):
        """The package's `OpenAIServingChat._process_tool_calls` for `tool_choice` `auto` (the
        server's default for a request with tools), no tool calls in the history: returns
        (tool_calls, text, finish_reason)."""
        parser = FunctionCallParser(self.tools, self.tool_parser_name, tokenizer=None, tool_choice="auto")
        if parser.has_tool_call(text):
            try:
                text, call_info_list = parser.parse_non_stream(text)
                if not call_info_list:
                    logging.getLogger(__name__).warning(
                        "Tool call marker present but no complete call parsed from %s output; "
                        "dropping the incomplete call", self.tool_parser_name,
                    )
                    return None, text, finish_reason
                tool_calls = []
                for index, call_info in enumerate(call_info_list):
                    # "Call ordinal, as in the streaming deltas; tool_index is the tool's
                    # position in the request."
                    tool_calls.append(ToolCall(
                        id=self.tool_call_id(call_info), index=index,
                        function=FunctionResponse(name=call_info.name, arguments=call_info.parameters),
                    ))
                if finish_reason["type"] == "stop":
                    finish_reason["type"] = "tool_calls"
                    finish_reason["matched"] = None
                return tool_calls, text, finish_reason
            except Exception as e:  # noqa: BLE001 (the server's own `except Exception`)
                logging.getLogger(__name__).error(f"Tool call parsing error: {e}")
                return None, text, finish_reason
        return None, text, finish_reason


def streaming_error_response(message, err_type="BadRequestError", status_code=400):
    """Upstream `OpenAIServingBase.create_streaming_error_response` (not in the package):
    `json.dumps({"error": ErrorResponse(message, type, code).model_dump()})`."""
    error = {"object": "error", "message": message, "type": err_type, "param": None, "code": status_code}
    return json.dumps({"error": error})


def reproduction():
    """P2.8: the standalone reproduction, `reproduction.py.tmpl` with this adapter's own
    choices filled in (the dialect -> parsers table): a complete program that reads the
    dialect, prefill, chunks and tools as one JSON object on stdin."""
    with open(os.path.join(HERE, "reproduction.py.tmpl"), encoding="utf-8") as f:
        program = f.read()
    # The table as JSON in a raw triple-quoted string: no name or parser holds `"""` or `\`.
    program = program.replace("@ADAPTER_PARSERS@", json.dumps(PARSERS, ensure_ascii=False))
    return {"language": "python", "program": program}


def serve(hello):
    """The candidate protocol loop (specs/protocol.md, §5 for chunks), until `bye` or end of
    input. An exception in SGLang's code is not caught: the process dies with the traceback on
    stderr and tch judges `crash`, as the request fails on the server."""
    if hasattr(sys.stdin, "reconfigure"):
        sys.stdin.reconfigure(encoding="utf-8")
    out = sys.stdout

    def send_line(line):
        out.write(line + "\n")

    def send(message):
        send_line(json.dumps(message, separators=(",", ":")))

    stream = None
    for line in sys.stdin:
        if not line.strip():
            continue
        request = json.loads(line)
        op = request.get("op")
        if op == "hello":
            send(hello)
        elif op == "begin":
            stream = Stream(request)
        elif op == "chunk":
            for chunk in stream.step(request["text"], finish=False):
                send_line(chunk)
            send({"type": "sync"})
        elif op == "end":
            # The finishing engine step carries no new text here: tch sent all of it in chunks
            # (the model's last step is its end-of-turn token, which the server does not stream).
            for chunk in stream.finish():
                send_line(chunk)
            send({"type": "done"})
            stream = None
        elif op == "non-streaming":
            send_line(stream.non_streaming(request["text"]))
            send({"type": "done"})
            stream = None
        elif op == "bye":
            out.flush()
            return
        else:
            send({"type": "error", "errorText": f"unsupported request {op!r}"})
        out.flush()


if __name__ == "__main__":
    name = NAME
    if OVERRIDES:
        name += " " + ",".join(f"{d}={t}/{r or 'none'}" for d, (t, r) in sorted(OVERRIDES.items()))
    serve({
        "type": "hello", "protocol": 1, "name": name, "dialects": list(PARSERS),
        "output": "openai-chunks", "nonStreaming": True,
        "reproduction": reproduction(), "startsInReasoning": starts_in_reasoning(),
    })
