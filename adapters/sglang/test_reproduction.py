"""The reproduction the adapter's hello carries (specs/protocol.md P2.8): a program that reads
one reply as JSON on stdin, runs on the installed package and prints the parsers' own results. And the
adapter's answers: OpenAI chunks (`specs/protocol.md` §5) for a stream, the `chat.completion` object for the
non-streaming request (P2.11, P5.7).

    adapters/sglang/.venv/bin/python -m unittest discover -s adapters/sglang -p 'test_*.py'
"""

import json
import os
import subprocess
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))

try:
    import llm_router_utils  # noqa: F401

    INSTALLED = True
except ImportError:
    INSTALLED = False


def run_program(program, dialect, prefill, chunks, tools):
    """What a bug page's command does: the program run on one JSON object on stdin."""
    reply = {"dialect": dialect, "prefill": prefill, "chunks": chunks, "tools": tools}
    return subprocess.run([sys.executable, "-c", program], input=json.dumps(reply, ensure_ascii=False),
                          capture_output=True, text=True, encoding="utf-8", timeout=60)


@unittest.skipUnless(INSTALLED, "llm-router-utils is not installed (run with adapters/sglang/.venv/bin/python)")
class Reproduction(unittest.TestCase):
    def hello(self):
        done = subprocess.run(
            [sys.executable, os.path.join(HERE, "adapter.py")],
            input='{"op":"hello","protocol":1}\n{"op":"bye"}\n',
            capture_output=True, text=True, timeout=60,
        )
        self.assertEqual(done.returncode, 0, done.stderr)
        lines = done.stdout.splitlines()
        self.assertEqual(len(lines), 1, "the hello is one line")
        return json.loads(lines[0])

    def test_the_hello_carries_a_complete_program(self):
        reproduction = self.hello()["reproduction"]
        self.assertEqual(sorted(reproduction), ["language", "program"])
        self.assertEqual(reproduction["language"], "python")
        program = reproduction["program"]
        self.assertNotIn("{{", program)  # no placeholder: it reads its input on stdin
        self.assertNotIn("@ADAPTER_", program)

    def test_the_hello_lists_the_templates_that_always_open_reasoning(self):
        # P2.9: MiniMax-M2's and Step3's templates open reasoning in every prompt, and SGLang's
        # `minimax` and `step3` reasoning parsers start every reply in it.
        self.assertEqual(self.hello()["startsInReasoning"], ["minimax-m2", "step3"])

    def test_the_hello_says_chunks_and_non_streaming(self):
        hello = self.hello()
        self.assertEqual(hello["output"], "openai-chunks")
        self.assertIs(hello["nonStreaming"], True)

    def run_adapter(self, requests):
        done = subprocess.run(
            [sys.executable, os.path.join(HERE, "adapter.py")],
            input="".join(json.dumps(r) + "\n" for r in requests) + '{"op":"bye"}\n',
            capture_output=True, text=True, timeout=60,
        )
        self.assertEqual(done.returncode, 0, done.stderr)
        return done.stdout.splitlines()

    TOOLS = [{"name": "get_weather", "description": "Weather.",
              "inputSchema": {"type": "object", "properties": {"city": {"type": "string"}}}}]
    REPLY = ["a plan</think>Sure. <tool_call>{\"name\": \"get_weather\", ",
             "\"arguments\": {\"city\": \"Paris\"}}</tool_call>"]

    def test_a_stream_is_answered_in_the_servers_chunks(self):
        begin = {"op": "begin", "stream": "s", "dialect": "hermes", "prefill": "<think>\n", "tools": self.TOOLS}
        lines = self.run_adapter([begin] + [{"op": "chunk", "stream": "s", "text": t} for t in self.REPLY]
                                 + [{"op": "end", "stream": "s"}])
        self.assertEqual(lines[-2:], ["[DONE]", '{"type":"done"}'])
        self.assertEqual(sum(line == '{"type":"sync"}' for line in lines), 2)
        chunks = [json.loads(line) for line in lines if line.startswith('{"id"')]
        self.assertTrue(all(c["object"] == "chat.completion.chunk" for c in chunks))
        self.assertEqual(chunks[0]["choices"][0]["delta"]["role"], "assistant")
        self.assertEqual(chunks[1]["choices"][0]["delta"]["reasoning_content"], "a plan")
        calls = [c["choices"][0]["delta"]["tool_calls"][0] for c in chunks
                 if c["choices"] and c["choices"][0]["delta"].get("tool_calls")]
        self.assertEqual(calls[0]["function"]["name"], "get_weather")
        self.assertTrue(calls[0]["id"].startswith("call_"))
        self.assertEqual("".join(c["function"]["arguments"] for c in calls), '{"city": "Paris"}')
        # The finish chunk (tool_calls: the stream had calls), then the usage chunk.
        self.assertEqual(chunks[-2]["choices"][0]["finish_reason"], "tool_calls")
        self.assertEqual(chunks[-1]["choices"], [])
        self.assertIn("usage", chunks[-1])

    def test_the_non_streaming_request_is_answered_with_the_completion_object(self):
        # P5.7: `_build_chat_response`'s ChatCompletionResponse, one line, then done.
        begin = {"op": "begin", "stream": "s", "dialect": "hermes", "prefill": "<think>\n", "tools": self.TOOLS}
        lines = self.run_adapter([begin, {"op": "non-streaming", "stream": "s", "text": "".join(self.REPLY)}])
        self.assertEqual(len(lines), 2, lines)  # the object, done
        self.assertEqual(lines[-1], '{"type":"done"}')
        response = json.loads(lines[0])
        self.assertEqual(response["object"], "chat.completion")
        choice = response["choices"][0]
        self.assertEqual((choice["index"], choice["finish_reason"]), (0, "tool_calls"))
        message = choice["message"]
        self.assertEqual((message["role"], message["reasoning_content"]), ("assistant", "a plan"))
        self.assertEqual(message["content"], "Sure.")
        call = message["tool_calls"][0]
        self.assertEqual((call["index"], call["type"], call["function"]["name"]), (0, "function", "get_weather"))
        self.assertEqual(json.loads(call["function"]["arguments"]), {"city": "Paris"})

    def test_a_response_pydantic_cannot_write_is_the_servers_500(self):
        begin = {"op": "begin", "stream": "s", "dialect": "hermes", "prefill": "", "tools": self.TOOLS}
        reply = '<tool_call>{"name": "get_weather", "arguments": {"city": "\\ud800"}}</tool_call>'
        lines = self.run_adapter([begin, {"op": "non-streaming", "stream": "s", "text": reply}])
        self.assertEqual(json.loads(lines[0]), {"error": {
            "message": "Internal Server Error", "type": "InternalServerError", "code": 500}})
        self.assertEqual(lines[1:], ['{"type":"done"}'])

    def test_a_value_pydantic_cannot_write_ends_the_stream_as_the_server_does(self):
        # A lone surrogate in a call's arguments: `model_dump_json` raises a ValueError, and
        # `_generate_chat_stream` writes an error chunk and `[DONE]`; nothing follows.
        begin = {"op": "begin", "stream": "s", "dialect": "hermes", "prefill": "", "tools": self.TOOLS}
        reply = '<tool_call>{"name": "get_weather", "arguments": {"city": "\\ud800"}}</tool_call>'
        lines = self.run_adapter([begin, {"op": "chunk", "stream": "s", "text": reply},
                                  {"op": "chunk", "stream": "s", "text": "more"}, {"op": "end", "stream": "s"}])
        self.assertEqual(lines[-2:], ["[DONE]", '{"type":"done"}'])
        self.assertIn("surrogates not allowed", json.loads(lines[-3])["error"]["message"])
        self.assertEqual(lines.count("[DONE]"), 1)

    def test_it_runs_on_its_input(self):
        program = self.hello()["reproduction"]["program"]
        # A registry tool, and a tool the stream calls that the registry lacks (P2.2: `{}`).
        tools = [{"name": "get_weather", "description": "Weather.",
                  "inputSchema": {"type": "object", "properties": {"city": {"type": "string"}},
                                  "additionalProperties": False}},
                 {"name": "get_time", "description": "", "inputSchema": {}}]
        done = run_program(program, "hermes", "<think>\n",
                           ["a plan</think>Sure. <tool_call>{\"name\": \"get_weather\", ",
                            "\"arguments\": {\"city\": \"Par\\\"is\"}}</tool_call>"], tools)
        self.assertEqual(done.returncode, 0, done.stderr)
        # The request declares exactly the `begin` tools.
        self.assertIn("FunctionCallParser(tool_call_parser='hermes'), 2 tools", done.stdout)
        self.assertIn("force_reasoning=True", done.stdout)
        self.assertIn("reasoning 'a plan'", done.stdout)
        self.assertIn("name='get_weather'", done.stdout)
        self.assertIn("end of stream", done.stdout)
        self.assertIn("parser.parse_non_stream", done.stdout)

    def test_a_tool_with_the_empty_schema_is_declared(self):
        # P2.2: `begin` declares the tools the stream calls that the registry lacks with
        # `inputSchema` `{}`; the request declares them (any object), so the call is kept.
        program = self.hello()["reproduction"]["program"]
        tools = [{"name": "get_time", "description": "", "inputSchema": {}}]
        done = run_program(program, "hermes", "",
                           ["<tool_call>", "{\"name\": \"get_time\", ", "\"arguments\": {}}",
                            "</tool_call>"], tools)
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertIn("FunctionCallParser(tool_call_parser='hermes'), 1 tools", done.stdout)
        self.assertIn("name='get_time'", done.stdout)


if __name__ == "__main__":
    unittest.main()
