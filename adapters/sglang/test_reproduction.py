"""The reproduction the adapter's hello carries (specs/protocol.md P2.8): it renders to a
program that runs on the installed package and prints the parsers' own results.

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


def render(template, dialect, prefill, chunks, tools):
    """What tch does with the template: each placeholder replaced by JSON text."""
    for name, value in (("DIALECT", dialect), ("PREFILL", prefill), ("CHUNKS", chunks), ("TOOLS", tools)):
        template = template.replace("{{" + name + "}}", json.dumps(value, ensure_ascii=False))
    return template


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

    def test_the_hello_carries_a_complete_template(self):
        reproduction = self.hello()["reproduction"]
        self.assertEqual(reproduction["language"], "python")
        template = reproduction["template"]
        for placeholder in ("{{DIALECT}}", "{{PREFILL}}", "{{CHUNKS}}", "{{TOOLS}}"):
            self.assertIn(placeholder, template)
        self.assertNotIn("@ADAPTER_", template)

    def test_the_hello_lists_the_templates_that_always_open_reasoning(self):
        # P2.9: MiniMax-M2's and Step3's templates open reasoning in every prompt, and SGLang's
        # `minimax` and `step3` reasoning parsers start every reply in it.
        self.assertEqual(self.hello()["startsInReasoning"], ["minimax-m2", "step3"])

    def test_it_renders_and_runs(self):
        template = self.hello()["reproduction"]["template"]
        # A registry tool, and a tool the stream calls that the registry lacks (P2.2: `{}`).
        tools = [{"name": "get_weather", "description": "Weather.",
                  "inputSchema": {"type": "object", "properties": {"city": {"type": "string"}},
                                  "additionalProperties": False}},
                 {"name": "get_time", "description": "", "inputSchema": {}}]
        program = render(template, "hermes", "<think>\n",
                         ["a plan</think>Sure. <tool_call>{\"name\": \"get_weather\", ",
                          "\"arguments\": {\"city\": \"Par\\\"is\"}}</tool_call>"], tools)
        done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=60)
        self.assertEqual(done.returncode, 0, done.stderr)
        # The request declares exactly the `begin` tools.
        self.assertIn("FunctionCallParser(tool_call_parser='hermes'), 2 tools", done.stdout)
        self.assertIn("force_reasoning=True", done.stdout)
        self.assertIn("reasoning 'a plan'", done.stdout)
        self.assertIn("name='get_weather'", done.stdout)
        self.assertIn("end of stream", done.stdout)

    def test_a_tool_with_the_empty_schema_is_declared(self):
        # P2.2: `begin` declares the tools the stream calls that the registry lacks with
        # `inputSchema` `{}`; the request declares them (any object), so the call is kept.
        template = self.hello()["reproduction"]["template"]
        tools = [{"name": "get_time", "description": "", "inputSchema": {}}]
        program = render(template, "hermes", "",
                         ["<tool_call>", "{\"name\": \"get_time\", ", "\"arguments\": {}}",
                          "</tool_call>"], tools)
        done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=60)
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertIn("FunctionCallParser(tool_call_parser='hermes'), 1 tools", done.stdout)
        self.assertIn("name='get_time'", done.stdout)


if __name__ == "__main__":
    unittest.main()
