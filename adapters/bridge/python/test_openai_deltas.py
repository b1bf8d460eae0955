"""Unit tests of openai_deltas: hand-reasoned delta sequences and the events the AI SDK's
openai-compatible client (doStream) makes of them. The Node tests
(../node/openai-deltas.test.mjs) hold the same cases.

    python3 -m unittest discover -s adapters/bridge/python      # from the repository root
"""

import io
import json
import os
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from openai_deltas import OpenAIDeltas, is_parsable_json  # noqa: E402


def text(delta):
    return {"type": "text-delta", "delta": delta}


def reasoning(delta):
    return {"type": "reasoning-delta", "delta": delta}


def start(call_id, name):
    return {"type": "tool-input-start", "id": call_id, "toolName": name}


def delta(call_id, fragment):
    return {"type": "tool-input-delta", "id": call_id, "delta": fragment}


def end(call_id):
    return {"type": "tool-input-end", "id": call_id}


def call(call_id, name, arguments):
    return {"type": "tool-call", "toolCallId": call_id, "toolName": name, "input": arguments}


def tool(index, call_id=None, name=None, arguments=None):
    function = {}
    if name is not None:
        function["name"] = name
    if arguments is not None:
        function["arguments"] = arguments
    item = {"index": index, "function": function}
    if call_id is not None:
        item["id"] = call_id
    return item


def run(*deltas):
    """Every delta in order, then finish: the events, one list per delta, and finish's last."""
    client = OpenAIDeltas()
    return [client.delta(d) for d in deltas] + [client.finish()]


class Text(unittest.TestCase):
    def test_content_is_text(self):
        self.assertEqual(
            run({"role": "assistant", "content": "Hel"}, {"content": "lo"}),
            [[text("Hel")], [text("lo")], []],
        )

    def test_empty_and_null_content_give_nothing(self):
        self.assertEqual(run({"content": ""}, {"content": None}, {}), [[], [], [], []])

    def test_reasoning_content_is_reasoning(self):
        self.assertEqual(
            run({"reasoning_content": "think"}, {"content": "answer"}),
            [[reasoning("think")], [text("answer")], []],
        )

    def test_reasoning_field_is_reasoning_too(self):
        # `delta.reasoning_content ?? delta.reasoning`: gpt-oss servers send `reasoning`.
        self.assertEqual(run({"reasoning": "hmm"}), [[reasoning("hmm")], []])

    def test_reasoning_content_wins_over_reasoning_unless_null(self):
        # `??` falls through only on null: an empty reasoning_content hides `reasoning`.
        self.assertEqual(
            run({"reasoning_content": "a", "reasoning": "b"}, {"reasoning_content": "", "reasoning": "c"}),
            [[reasoning("a")], [], []],
        )

    def test_reasoning_comes_before_content_of_the_same_delta(self):
        self.assertEqual(
            run({"content": "text", "reasoning_content": "why"}),
            [[reasoning("why"), text("text")], []],
        )


class Calls(unittest.TestCase):
    def test_call_in_one_delta_is_complete_at_once(self):
        self.assertEqual(
            run({"tool_calls": [tool(0, "call_1", "get_weather", '{"city": "Paris"}')]}, {"content": "after"}),
            [
                [
                    start("call_1", "get_weather"),
                    delta("call_1", '{"city": "Paris"}'),
                    end("call_1"),
                    call("call_1", "get_weather", '{"city": "Paris"}'),
                ],
                [text("after")],
                [],
            ],
        )

    def test_call_streamed_in_fragments_completes_when_json_parses(self):
        self.assertEqual(
            run(
                {"tool_calls": [tool(0, "call_1", "f")]},  # no arguments yet: "" is not JSON
                {"tool_calls": [tool(0, arguments='{"a": ')]},
                {"tool_calls": [tool(0, arguments="1")]},  # '{"a": 1' still open
                {"tool_calls": [tool(0, arguments="}")]},  # '{"a": 1}' parses: complete
            ),
            [
                [start("call_1", "f")],
                [delta("call_1", '{"a": ')],
                [delta("call_1", "1")],
                [delta("call_1", "}"), end("call_1"), call("call_1", "f", '{"a": 1}')],
                [],
            ],
        )

    def test_arguments_after_completion_are_ignored(self):
        # '{}' parses at once; the rest of the engine's arguments never reach the app.
        self.assertEqual(
            run(
                {"tool_calls": [tool(0, "call_1", "f", "{}")]},
                {"tool_calls": [tool(0, arguments=', "late": 1}')]},
                {"tool_calls": [tool(0, "call_2", "g", "{}")]},  # same index, new id: still ignored
            ),
            [
                [start("call_1", "f"), delta("call_1", "{}"), end("call_1"), call("call_1", "f", "{}")],
                [],
                [],
                [],
            ],
        )

    def test_a_number_completes_a_call_early(self):
        # "1" is JSON: a client completes the call with input "1" before "2" arrives.
        self.assertEqual(
            run({"tool_calls": [tool(0, "c", "f", "")]}, {"tool_calls": [tool(0, arguments="1")]},
                {"tool_calls": [tool(0, arguments="2")]}),
            [[start("c", "f")], [delta("c", "1"), end("c"), call("c", "f", "1")], [], []],
        )

    def test_two_calls_by_index(self):
        self.assertEqual(
            run(
                {"tool_calls": [tool(0, "a", "f", '{"x":')]},
                {"tool_calls": [tool(1, "b", "g", '{"y":')]},
                {"tool_calls": [tool(1, arguments="2}"), tool(0, arguments="1}")]},
            ),
            [
                [start("a", "f"), delta("a", '{"x":')],
                [start("b", "g"), delta("b", '{"y":')],
                [
                    delta("b", "2}"), end("b"), call("b", "g", '{"y":2}'),
                    delta("a", "1}"), end("a"), call("a", "f", '{"x":1}'),
                ],
                [],
            ],
        )

    def test_later_delta_of_an_open_call_reads_arguments_only(self):
        # An existing index: `id` and `name` of the delta are not read, arguments are appended.
        self.assertEqual(
            run({"tool_calls": [tool(0, "a", "f", "{")]}, {"tool_calls": [tool(0, "other", "g", "}")]}),
            [[start("a", "f"), delta("a", "{")], [delta("a", "}"), end("a"), call("a", "f", "{}")], []],
        )

    def test_a_delta_without_arguments_streams_an_empty_input_delta(self):
        # doStream sends `delta: toolCallDelta.function.arguments ?? ''` for an open call.
        self.assertEqual(
            run({"tool_calls": [tool(0, "a", "f")]}, {"tool_calls": [tool(0)]}),
            [[start("a", "f")], [delta("a", "")], [end("a"), call("a", "f", "")]],
        )

    def test_ids_are_kept_exactly(self):
        events = run({"tool_calls": [tool(0, "functions.get_weather:0", "get_weather", "{}")]})
        self.assertEqual(events[0][-1]["toolCallId"], "functions.get_weather:0")
        self.assertEqual(events[0][0]["id"], "functions.get_weather:0")

    def test_an_empty_id_or_name_is_a_string(self):
        self.assertEqual(
            run({"tool_calls": [tool(0, "", "", "{}")]}),
            [[start("", ""), delta("", "{}"), end(""), call("", "", "{}")], []],
        )


class Finish(unittest.TestCase):
    def test_unfinished_call_without_arguments_finishes_with_empty_input(self):
        self.assertEqual(
            run({"tool_calls": [tool(0, "a", "f")]}),
            [[start("a", "f")], [end("a"), call("a", "f", "")]],
        )

    def test_unfinished_call_finishes_with_its_non_json_prefix(self):
        self.assertEqual(
            run({"tool_calls": [tool(0, "a", "f", '{"city": "Par')]}),
            [[start("a", "f"), delta("a", '{"city": "Par')], [end("a"), call("a", "f", '{"city": "Par')]],
        )

    def test_unfinished_calls_finish_in_index_order(self):
        self.assertEqual(
            run({"tool_calls": [tool(2, "c", "h", "{")]}, {"tool_calls": [tool(0, "a", "f", "[")]})[-1],
            [end("a"), call("a", "f", "["), end("c"), call("c", "h", "{")],
        )

    def test_finished_calls_are_not_finished_again(self):
        self.assertEqual(
            run({"tool_calls": [tool(0, "a", "f", "{}"), tool(1, "b", "g", "{")]})[-1],
            [end("b"), call("b", "g", "{")],
        )


class ClientErrors(unittest.TestCase):
    def test_first_delta_without_id_is_an_error_and_ends_the_stream(self):
        client = OpenAIDeltas()
        events = client.delta({"content": "hi", "tool_calls": [tool(0, name="f", arguments="{}")]})
        self.assertEqual(events[0], text("hi"))
        self.assertEqual(len(events), 2)
        self.assertEqual(events[1]["type"], "error")
        self.assertIn("Expected 'id' to be a string.", events[1]["errorText"])
        # The client's stream is errored: nothing more comes out, not even at finish.
        self.assertEqual(client.delta({"content": "more"}), [])
        self.assertEqual(client.finish(), [])

    def test_first_delta_without_name_is_an_error(self):
        client = OpenAIDeltas()
        events = client.delta({"tool_calls": [tool(0, "a", arguments="{}")]})
        self.assertEqual([e["type"] for e in events], ["error"])
        self.assertIn("Expected 'function.name' to be a string.", events[0]["errorText"])
        self.assertEqual(client.finish(), [])

    def test_an_error_after_a_started_call_leaves_it_unfinished(self):
        client = OpenAIDeltas()
        self.assertEqual(client.delta({"tool_calls": [tool(0, "a", "f", "{")]}), [start("a", "f"), delta("a", "{")])
        events = client.delta({"tool_calls": [tool(1, arguments="{}")]})
        self.assertEqual([e["type"] for e in events], ["error"])
        self.assertEqual(client.finish(), [])

    def test_a_delta_that_fails_the_schema_is_skipped_with_an_error(self):
        # `!chunk.success`: an error part, the chunk's fields unread, the stream goes on.
        client = OpenAIDeltas()
        events = client.delta({"content": "lost", "tool_calls": [{"id": "a", "function": {"name": "f"}}]})
        self.assertEqual([e["type"] for e in events], ["error"])
        self.assertIn("index", events[0]["errorText"])
        self.assertEqual(client.delta({"content": "kept"}), [text("kept")])


class ParsableJson(unittest.TestCase):
    def test_json_parse_rules(self):
        for good in ['{}', ' {"a": [1, 2.5e3, null, true]} ', '"s"', "1", "-0", "[]", '"\\ud800"']:
            self.assertTrue(is_parsable_json(good), good)
        for bad in ["", " ", "{", "NaN", "[Infinity]", "-Infinity", "{'a': 1}", "\ufeff{}", "{} x", "01",
                    '{"a": 1,}', "\u00a0{}"]:
            self.assertFalse(is_parsable_json(bad), bad)

    def test_secure_json_parse_refuses_prototype_keys(self):
        self.assertFalse(is_parsable_json('{"__proto__": {}}'))
        self.assertFalse(is_parsable_json('{"a": [{"\\u005f_proto__": 1}]}'))
        self.assertFalse(is_parsable_json('{"constructor": {"prototype": {}}}'))
        self.assertTrue(is_parsable_json('{"constructor": {"name": "x"}}'))
        self.assertTrue(is_parsable_json('{"constructor": "prototype"}'))
        self.assertTrue(is_parsable_json('{"constructor": {"prototype": 1}, "constructor": 2}'))


class Serve(unittest.TestCase):
    """The protocol loop, in a child process: its replies, and a crash for an engine exception."""

    ENGINE = r"""
import sys
sys.path.insert(0, {here!r})
from openai_deltas import serve

def on_begin(request):
    return {{"dialect": request["dialect"], "prefill": request.get("prefill"), "n": 0}}

def on_chunk(state, text):
    if text == "boom":
        raise RuntimeError("the engine's parser failed")
    state["n"] += 1
    if text.startswith("call"):
        return [{{"tool_calls": [{{"index": 0, "id": "c1", "function": {{"name": "f", "arguments": "{{"}}}}]}}]
    return [{{"content": state["dialect"] + ":" + text}}]

def on_end(state):
    return [{{"tool_calls": [{{"index": 0, "function": {{"arguments": "}}"}}}}]}}, {{"content": str(state["prefill"])}}]

serve("test-engine", ["hermes", "kimi-k2"], on_begin, on_chunk, on_end)
"""

    def converse(self, requests, engine=None):
        here = os.path.dirname(os.path.abspath(__file__))
        stdin = "".join(json.dumps(r) + "\n" for r in requests)
        return subprocess.run(
            [sys.executable, "-c", (engine or self.ENGINE).format(here=here)],
            input=stdin, capture_output=True, text=True, timeout=30,
        )

    def test_a_stream(self):
        done = self.converse([
            {"op": "hello", "protocol": 1},
            {"op": "begin", "stream": "s1", "dialect": "kimi-k2", "prefill": "<think>", "tools": []},
            {"op": "chunk", "stream": "s1", "text": "hi"},
            {"op": "chunk", "stream": "s1", "text": "call"},
            {"op": "end", "stream": "s1"},
            {"op": "bye"},
        ])
        self.assertEqual(done.returncode, 0, done.stderr)
        lines = [json.loads(line) for line in done.stdout.splitlines()]
        self.assertEqual(lines, [
            {"type": "hello", "protocol": 1, "name": "test-engine", "dialects": ["hermes", "kimi-k2"]},
            text("kimi-k2:hi"), {"type": "sync"},
            start("c1", "f"), delta("c1", "{"), {"type": "sync"},
            delta("c1", "}"), end("c1"), call("c1", "f", "{}"), text("<think>"), {"type": "done"},
        ])

    def test_hello_fields(self):
        engine = self.ENGINE.replace(
            'on_chunk, on_end)',
            'on_chunk, on_end, hello={{"reproduction": {{"language": "python", "template": "x\\n"}}}})')
        done = self.converse([{"op": "hello", "protocol": 1}, {"op": "bye"}], engine)
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertEqual(done.stdout.splitlines(), [json.dumps({
            "type": "hello", "protocol": 1, "name": "test-engine", "dialects": ["hermes", "kimi-k2"],
            "reproduction": {"language": "python", "template": "x\n"}}, separators=(",", ":"))])

    def test_an_engine_exception_crashes_the_process(self):
        done = self.converse([
            {"op": "hello", "protocol": 1},
            {"op": "begin", "stream": "s1", "dialect": "hermes", "tools": []},
            {"op": "chunk", "stream": "s1", "text": "boom"},
            {"op": "end", "stream": "s1"},
        ])
        self.assertNotEqual(done.returncode, 0)
        self.assertIn("the engine's parser failed", done.stderr)
        self.assertNotIn("sync", done.stdout)  # no reply to the chunk: tch judges `crash`


if __name__ == "__main__":
    unittest.main()
