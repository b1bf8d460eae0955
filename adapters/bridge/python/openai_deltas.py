"""OpenAI chat-completion deltas -> tch events, read as a real client reads them.

An engine's server (SGLang, vLLM, ...) turns its tool-call parser's output into OpenAI
chat-completion chunks; an app sees the calls only as its client library assembles them from
those chunks. This module is that client: the AI SDK's `@ai-sdk/openai-compatible` chat model
(vercel/ai, packages/openai-compatible/src/chat/openai-compatible-chat-language-model.ts,
`OpenAICompatibleChatLanguageModel.doStream`, the AI SDK v5 / LanguageModelV2 version), whose
reading of `choices[0].delta` this file reproduces rule for rule. See ../README.md for the
mapping table; the Node twin is ../node/openai-deltas.mjs (same behaviour, same tests).

Standard library only, Python 3.10+.

API
---
`OpenAIDeltas()` -- one per chat-completion stream.
    `.delta(d) -> list[event]`  d is one chunk's `choices[0].delta` dict (`content`,
                                `reasoning_content` or `reasoning`, `tool_calls`, `role`).
    `.finish() -> list[event]`  the stream's end (the client's `flush`): every unfinished call
                                completes with its arguments string as it is.
    Events are tch events (specs/events.md) as dicts; `tool-call.input` is the arguments
    STRING, as the AI SDK hands it on (tch reads a string input as JSON).

`serve(name, dialects, on_begin, on_chunk, on_end, hello=None)` -- the candidate protocol
loop (specs/protocol.md) on stdin/stdout:
    hello -> {"type":"hello","protocol":1,"name":name,"dialects":dialects, **hello}
    begin -> state = on_begin(request)   request: the whole begin request (dict: "stream",
                                         "dialect", "prefill" if any, "tools"); a fresh
                                         OpenAIDeltas is made for the stream
    chunk -> on_chunk(state, text)       -> list of delta dicts; their events, then sync
    end   -> on_end(state)               -> list of delta dicts; their events, the
                                         OpenAIDeltas' finish() events, then done
    bye   -> return
Exceptions raised by the callbacks (the engine's parser) are NOT caught: the process dies
and tch judges `crash`, as the server would fail that request. Only what the CLIENT reports
(a malformed delta) becomes an `error` event.
"""

import json
import sys

__all__ = ["OpenAIDeltas", "serve", "is_parsable_json"]

# JavaScript array indexes (`toolCalls[index]` in doStream is an array): only these are
# visited by `toolCalls.filter(...)` at flush.
_MAX_ARRAY_INDEX = 2**32 - 2


def _reject_constant(name):
    raise ValueError(f"{name} is not JSON")


def _check_prototype_keys(pairs):
    """secureJsonParse's filter (packages/provider-utils/src/secure-json-parse.ts): an object
    with an own `__proto__` key, or a `constructor` key whose (last) value is an object with a
    `prototype` key, is refused."""
    obj = {}
    for key, value in pairs:
        if key == "__proto__":
            raise ValueError("Object contains forbidden prototype property")
        obj[key] = value
    constructor = obj.get("constructor")
    if isinstance(constructor, dict) and "prototype" in constructor:
        raise ValueError("Object contains forbidden prototype property")
    return obj


def is_parsable_json(text):
    """provider-utils `isParsableJson`: `secureJsonParse(text)` does not throw. That is
    `JSON.parse` (no NaN/Infinity, JSON whitespace only, no BOM, which Python's json also
    refuses) plus the prototype-key filter. One divergence: Python's parser recurses and gives up
    past about 1000 levels of nesting, which V8's JSON.parse accepts; such text counts as not
    parsable here."""
    try:
        json.loads(text, parse_constant=_reject_constant, object_pairs_hook=_check_prototype_keys)
    except (ValueError, RecursionError):
        return False
    return True


def _is_str_or_null(value):
    return value is None or isinstance(value, str)


def _is_number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _schema_problem(delta):
    """The chunk schema of doStream (`createOpenAICompatibleChatChunkSchema`, zod) for the
    `delta`: what is wrong with it, or None."""
    if delta is None:
        return None
    if not isinstance(delta, dict):
        return "delta: expected object"
    if delta.get("role") not in (None, "assistant"):
        return "delta.role: expected 'assistant'"
    for key in ("content", "reasoning_content", "reasoning"):
        if not _is_str_or_null(delta.get(key)):
            return f"delta.{key}: expected string"
    calls = delta.get("tool_calls")
    if calls is None:
        return None
    if not isinstance(calls, list):
        return "delta.tool_calls: expected array"
    for i, call in enumerate(calls):
        where = f"delta.tool_calls[{i}]"
        if not isinstance(call, dict):
            return f"{where}: expected object"
        if not _is_number(call.get("index")):
            return f"{where}.index: expected number"
        if not _is_str_or_null(call.get("id")):
            return f"{where}.id: expected string"
        function = call.get("function")
        if not isinstance(function, dict):
            return f"{where}.function: expected object"
        for key in ("name", "arguments"):
            if not _is_str_or_null(function.get(key)):
                return f"{where}.function.{key}: expected string"
    return None


def _array_key(index):
    """`toolCalls[index]` of a JavaScript array: 1.0 and 1 are the same slot."""
    if isinstance(index, float) and index.is_integer():
        return int(index)
    return index


def _dumps(value):
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


class OpenAIDeltas:
    """One stream's client state: `toolCalls` of doStream, keyed by `index`."""

    def __init__(self):
        self.calls = {}  # index -> {"id", "name", "arguments", "finished"}
        self.dead = False  # the client threw: its stream is errored, nothing more comes out

    def delta(self, d):
        if self.dead:
            return []
        problem = _schema_problem(d)
        if problem is not None:
            # `!chunk.success`: the chunk failed validation; an `error` part, the chunk is
            # skipped (none of its fields are read), the stream goes on.
            return [_error(f"Type validation failed: {problem}. Value: {_dumps(d)}")]
        if d is None:
            return []
        events = []
        # "enqueue reasoning before text deltas"
        reasoning = d.get("reasoning_content")
        if reasoning is None:
            reasoning = d.get("reasoning")
        if reasoning:
            events.append({"type": "reasoning-delta", "delta": reasoning})
        if d.get("content"):
            events.append({"type": "text-delta", "delta": d["content"]})
        for tool_delta in d.get("tool_calls") or []:
            index = _array_key(tool_delta["index"])
            function = tool_delta["function"]
            call = self.calls.get(index)
            if call is None:
                # A new call: doStream throws InvalidResponseDataError without `id` or
                # `function.name`; the throw errors the TransformStream, so the app gets the
                # error and nothing after it (no later part, no flush).
                if tool_delta.get("id") is None:
                    return self._die(events, "Expected 'id' to be a string.", tool_delta)
                if function.get("name") is None:
                    return self._die(events, "Expected 'function.name' to be a string.", tool_delta)
                call = {
                    "id": tool_delta["id"],
                    "name": function["name"],
                    "arguments": function.get("arguments") or "",
                    "finished": False,
                }
                self.calls[index] = call
                events.append({"type": "tool-input-start", "id": call["id"], "toolName": call["name"]})
                # "send delta if the argument text has already started"
                if call["arguments"]:
                    events.append({"type": "tool-input-delta", "id": call["id"], "delta": call["arguments"]})
                # "some providers send the full tool call in one chunk"
                if is_parsable_json(call["arguments"]):
                    events.extend(self._complete(call))
                continue
            # An existing call: merged if not finished; `id` and `name` of this delta unread.
            if call["finished"]:
                continue
            fragment = function.get("arguments")
            if fragment is not None:
                call["arguments"] += fragment
            events.append({"type": "tool-input-delta", "id": call["id"], "delta": fragment or ""})
            if is_parsable_json(call["arguments"]):
                events.extend(self._complete(call))
        return events

    def finish(self):
        """`flush`: every unfinished call, in array (index) order, completes as it is."""
        if self.dead:
            return []
        events = []
        indexes = sorted(
            i for i in self.calls if isinstance(i, int) and not isinstance(i, bool) and 0 <= i <= _MAX_ARRAY_INDEX
        )
        for index in indexes:
            call = self.calls[index]
            if not call["finished"]:
                events.extend(self._complete(call))
        return events

    @staticmethod
    def _complete(call):
        call["finished"] = True
        return [
            {"type": "tool-input-end", "id": call["id"]},
            {"type": "tool-call", "toolCallId": call["id"], "toolName": call["name"], "input": call["arguments"]},
        ]

    def _die(self, events, message, tool_delta):
        self.dead = True
        return events + [_error(f"InvalidResponseDataError: {message} Data: {_dumps(tool_delta)}")]


def _error(text):
    return {"type": "error", "errorText": text}


def serve(name, dialects, on_begin, on_chunk, on_end, hello=None):
    """The candidate protocol loop (specs/protocol.md), until `bye` or end of input. See the
    module docstring for the callbacks. `hello`: optional fields added to the hello reply
    (`reproduction`, P2.8)."""
    if hasattr(sys.stdin, "reconfigure"):
        sys.stdin.reconfigure(encoding="utf-8")
    out = sys.stdout

    def send(message):
        out.write(json.dumps(message, separators=(",", ":")) + "\n")

    state = None
    deltas = None
    for line in sys.stdin:
        if not line.strip():
            continue
        request = json.loads(line)
        op = request.get("op")
        if op == "hello":
            send({"type": "hello", "protocol": 1, "name": name, "dialects": list(dialects), **(hello or {})})
        elif op == "begin":
            deltas = OpenAIDeltas()
            state = on_begin(request)
        elif op == "chunk":
            for d in on_chunk(state, request["text"]) or []:
                for event in deltas.delta(d):
                    send(event)
            send({"type": "sync"})
        elif op == "end":
            for d in on_end(state) or []:
                for event in deltas.delta(d):
                    send(event)
            for event in deltas.finish():
                send(event)
            send({"type": "done"})
            state = deltas = None
        elif op == "bye":
            out.flush()
            return
        else:
            send(_error(f"unsupported request {op!r}"))
        out.flush()
