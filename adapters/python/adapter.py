#!/usr/bin/env python3
"""A tch candidate adapter in plain Python 3: the template to copy.

tch talks to a parser under test over JSON lines on stdin/stdout (protocol v1,
specs/protocol.md). This file has two parts:

1. `HermesParser`: a small streaming parser for the `hermes` dialect
   (`<tool_call>{"name": ..., "arguments": {...}}</tool_call>` and `<think>` reasoning,
   specs/dialects/hermes.md).
   Replace it with a wrapper around YOUR parser: `push(chunk)` returns the events that
   chunk completed, `finish()` the rest. Events are AI SDK v5 stream parts (specs/events.md).
   `parse_complete(text)` returns the events of the parser's non-streaming result for a
   whole reply (an engine's `extract_tool_calls`, an SDK's `generateText` path): wire it to
   that entry point, or delete it if your parser has none (tch then sends no whole replies;
   specs/protocol.md P2.11).
2. `serve()`: the protocol loop. Keep it as it is; change `NAME` and `DIALECTS`.
   It honours the request's options (specs/protocol.md section 6) around your parser:
   `tool_choice` "none" (the reply is text), `parallel_tool_calls` false (the first call
   only) and `n` (a parser per choice). If your engine does otherwise, change `OPTIONS` or
   `with_options` to do what your server does, never more.

Run it under tch:   tch run -- python3 adapters/python/adapter.py
No dependencies beyond the standard library.
"""

import json
import sys

NAME = "python-template"
DIALECTS = ["hermes"]
# The request's options this adapter honours as its engine does (specs/protocol.md P6.1).
OPTIONS = ["tool_choice", "parallel_tool_calls", "n"]

OPEN, CLOSE = "<tool_call>", "</tool_call>"
THINK, THINK_END = "<think>", "</think>"


def text(delta):
    return {"type": "text-delta", "delta": delta}


def reasoning(delta):
    return {"type": "reasoning-delta", "delta": delta}


def error(error_text):
    return {"type": "error", "errorText": error_text}


def reject_constant(name):
    # Python's json accepts NaN and Infinity; JSON does not.
    raise ValueError(f"{name} is not JSON")


MAX_DEPTH = 126  # levels of arrays and objects a call's JSON may nest (specs/streaming.md C8.2)


def loads(source):
    """JSON as the reference reads it (specs/streaming.md C8). Python's json also accepts NaN,
    any depth its stack allows (and crashes beyond it), and `\\udf27`, an escaped half of a
    surrogate pair, which is not Unicode text: all three are refused here, as ValueError."""
    try:
        value = json.loads(source, parse_constant=reject_constant)
    except RecursionError:
        raise ValueError("nesting too deep") from None
    pending = [(value, 1)]
    while pending:
        item, depth = pending.pop()
        if isinstance(item, str):
            item.encode("utf-8")  # UnicodeEncodeError (a ValueError) on half a surrogate pair
        elif isinstance(item, (list, dict)):
            if depth > MAX_DEPTH:
                raise ValueError(f"nesting deeper than {MAX_DEPTH} levels")
            children = item if isinstance(item, list) else [*item.keys(), *item.values()]
            pending.extend((child, depth + 1) for child in children)
    return value


class HermesParser:
    """Streams `<tool_call>` blocks and `<think>` reasoning out of text, releasing text (and
    reasoning) as soon as it cannot be a marker."""

    def __init__(self):
        self.pending = ""  # a possible marker prefix, or an open call (starting with OPEN)
        self.in_call = False
        self.reasoning = False  # inside <think>: only </think> is a marker
        self.scanned = 0  # how far `pending` was searched for CLOSE: never search twice
        # An open call that spans chunks is kept as parts, with its last chars in `carry`: only
        # `carry` + the new chunk is searched for CLOSE, and the parts are joined once, when it
        # closes. (`self.pending += chunk` copies the whole call on every chunk: CPython
        # appends in place only to a local variable. Quadratic time, the `superlinear` verdict.)
        self.parts = []
        self.carry = ""
        self.calls = 0
        self.ids = set()  # ids of the calls so far: they must stay unique (C7.1)

    def push(self, chunk):
        events = []
        if self.parts:
            seen = self.carry + chunk
            self.parts.append(chunk)
            if CLOSE not in seen:
                self.carry = seen[-(len(CLOSE) - 1) :]
                return events
            self.pending = "".join(self.parts)
            # Everything before `seen` was searched already.
            self.scanned = len(self.pending) - len(seen) + len(CLOSE) - 1
            self.parts, self.carry = [], ""
        else:
            self.pending += chunk
        while True:
            if self.in_call:
                end = self.pending.find(CLOSE, max(len(OPEN), self.scanned - len(CLOSE) + 1))
                if end < 0:
                    self.parts, self.carry = [self.pending], self.pending[-(len(CLOSE) - 1) :]
                    self.pending = ""
                    break
                block = self.pending[: end + len(CLOSE)]
                self.pending = self.pending[len(block):]
                self.in_call, self.scanned = False, 0
                events.extend(self.call(block[len(OPEN) : end], block))
                continue
            if self.reasoning:
                end = self.pending.find(THINK_END)
                if end >= 0:
                    if end:
                        events.append(reasoning(self.pending[:end]))
                    self.pending = self.pending[end + len(THINK_END) :]
                    self.reasoning = False
                    continue
                events.extend(self.release(reasoning, (THINK_END,)))
                break
            found = [(i, m) for m in (OPEN, THINK) if (i := self.pending.find(m)) >= 0]
            if found:
                start, marker = min(found)
                if start:
                    events.append(text(self.pending[:start]))
                if marker == OPEN:
                    self.pending = self.pending[start:]
                    self.in_call = True
                else:
                    self.pending = self.pending[start + len(THINK) :]
                    self.reasoning = True
                continue
            events.extend(self.release(text, (OPEN, THINK)))
            break
        return events

    def release(self, kind, markers):
        """Releases `pending` as `kind` (text or reasoning) but for a possible marker prefix."""
        keep = marker_prefix_len(self.pending, markers)
        released = self.pending[: len(self.pending) - keep]
        self.pending = self.pending[len(released) :]
        return [kind(released)] if released else []

    def prefill(self, context):
        """The generation prompt the stream continues: only the mode it leaves matters
        (`<think>` left open: the stream starts in reasoning); no events, and a partial marker
        at its end is dropped (specs/streaming.md C9)."""
        self.push(context)
        if not self.in_call:
            self.pending = ""

    def parse_complete(self, text):
        """The non-streaming result of a whole reply. This parser has one path, so it is the
        stream in one chunk; an engine's adapter calls its non-streaming entry point here."""
        return self.push(text) + self.finish()

    def finish(self):
        events = []
        if self.in_call:
            events.append(error("unterminated tool_call"))
        if self.parts:
            self.pending = "".join(self.parts)
        self.parts, self.carry = [], ""
        if self.pending:
            events.append((reasoning if self.reasoning else text)(self.pending))
        self.pending = ""
        return events

    def call(self, content, block):
        """The events of one complete block: a tool-call, or an error and the block as text."""
        try:
            value = loads(content)
        except ValueError:
            value = None
        if not isinstance(value, dict):
            return [error("invalid JSON in tool_call"), text(block)]
        name = value.get("name")
        if not isinstance(name, str):
            return [error('tool_call has no string "name"'), text(block)]
        arguments = value.get("arguments")
        if isinstance(arguments, str):
            try:
                arguments = loads(arguments)
            except ValueError:
                arguments = "not an object"
        if arguments is None:
            arguments = {}
        if not isinstance(arguments, dict):
            return [error('tool_call "arguments" is not an object'), text(block)]
        call_id = value.get("id")
        if isinstance(call_id, str) and call_id in self.ids:
            return [error(f"duplicate tool call id {json.dumps(call_id)}"), text(block)]
        if not isinstance(call_id, str):
            # tool-call-N, stepping aside if an earlier call named that id (C7.2).
            call_id = generated = f"tool-call-{self.calls + 1}"
            k = 2
            while call_id in self.ids:
                call_id, k = f"{generated}-{k}", k + 1
        self.calls += 1
        self.ids.add(call_id)
        event = {"type": "tool-call", "toolCallId": call_id, "toolName": name, "input": arguments}
        extra = {k: v for k, v in value.items() if k not in ("name", "arguments", "id")}
        if extra:
            event["extra"] = extra
        return [event]


def marker_prefix_len(pending, markers):
    """The length of the longest suffix of `pending` that could still grow into a marker."""
    longest = max(len(m) for m in markers) - 1
    for size in range(min(longest, len(pending)), 0, -1):
        if any(m.startswith(pending[-size:]) for m in markers):
            return size
    return 0


class NoTools:
    """`tool_choice: "none"` (specs/protocol.md P6.3): no tool parser runs; the reply is
    text, as it comes."""

    def push(self, chunk):
        return [text(chunk)] if chunk else []

    def finish(self):
        return []

    def parse_complete(self, whole):
        return self.push(whole)


class FirstCallOnly:
    """`parallel_tool_calls: false` (specs/protocol.md P6.6): the parser's events, with every
    call after the first left out."""

    def __init__(self, parser):
        self.parser = parser
        self.first = None

    def keep(self, events):
        kept = []
        for event in events:
            call_id = event.get("toolCallId", event.get("id"))
            if event["type"].startswith("tool-") and call_id is not None:
                if self.first is None:
                    self.first = call_id
                if call_id != self.first:
                    continue
            kept.append(event)
        return kept

    def push(self, chunk):
        return self.keep(self.parser.push(chunk))

    def finish(self):
        return self.keep(self.parser.finish())

    def prefill(self, context):
        self.parser.prefill(context)

    def parse_complete(self, whole):
        return self.keep(self.parser.parse_complete(whole))


def with_options(parser, request):
    """A choice's parser as the request's options leave it (specs/protocol.md P6.3-P6.6)."""
    if request.get("tool_choice") == "none":
        return NoTools()
    if request.get("parallel_tool_calls") is False:
        return FirstCallOnly(parser)
    return parser


def choices_for(make_parser, request):
    """One parser per choice of the request (`n`, specs/protocol.md P6.7): nothing is shared
    between choices."""
    return [with_options(make_parser(), request) for _ in range(request.get("n", 1))]


def serve(make_parser, name=NAME, dialects=DIALECTS, options=OPTIONS, choices=choices_for):
    """The protocol loop: one request per line in, replies out, until `bye` or end of input."""
    out = sys.stdout

    def send(message):
        out.write(json.dumps(message, separators=(",", ":")) + "\n")

    parsers = []
    for line in sys.stdin:
        if not line.strip():
            continue
        request = json.loads(line)
        op = request.get("op")
        if op == "hello":
            hello = {"type": "hello", "protocol": 1, "name": name, "dialects": dialects}
            # Whole replies (the `non-streaming` request) only for a parser that has a
            # non-streaming entry point (specs/protocol.md P2.11).
            if hasattr(make_parser, "parse_complete"):
                hello["nonStreaming"] = True
            if options:
                hello["options"] = options
            send(hello)
        elif op == "begin":
            # Per stream: only what holds this stream's state. tch sends thousands of streams
            # to this one process; build what they share (a tokenizer, a chat template and its
            # rendering with the tools, tools in your parser's types) once, outside this loop,
            # and cache what depends on `dialect`, `tools` or `prefill` keyed by them: a
            # template re-rendered here on every begin once cost 17x the run (P2.10 of
            # specs/protocol.md).
            parsers = choices(make_parser, request)
            for parser in parsers:
                # A parser that needs the tools the request declares takes them here.
                if hasattr(parser, "begin"):
                    parser.begin(request.get("tools") or [])
                # The generation prompt the stream continues (specs/protocol.md P2.7): a parser
                # with reasoning or headers starts in the state it leaves, emitting nothing.
                if request.get("prefill") and hasattr(parser, "prefill"):
                    parser.prefill(request["prefill"])
        elif op == "chunk":
            # The choice the chunk belongs to (`n` > 1); absent: the only one.
            for event in parsers[request.get("choice", 0)].push(request["text"]):
                send(event)
            send({"type": "sync"})
        elif op == "end":
            for event in parsers[request.get("choice", 0)].finish():
                send(event)
            send({"type": "done"})
        elif op == "non-streaming":
            # After `begin`: the whole reply at once, answered by the parser's non-streaming
            # result (text, reasoning and tool-call events; no tool-input-* parts needed).
            for event in parsers[0].parse_complete(request["text"]):
                send(event)
            send({"type": "done"})
        elif op == "bye":
            break
        out.flush()


if __name__ == "__main__":
    serve(HermesParser)
