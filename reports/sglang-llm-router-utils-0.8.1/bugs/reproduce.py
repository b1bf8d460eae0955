# A standalone reproduction: SGLang's parsers (PyPI llm-router-utils 0.8.1) fed one model reply
# chunk by chunk, the way SGLang's OpenAI server feeds them for one streamed chat completion.
#
#     python3 -m venv venv && venv/bin/pip install llm-router-utils==0.8.1
#     venv/bin/python reproduce.py < input.json
#
# It reads the reply as one JSON object on stdin (tch's specs/protocol.md P2.8):
# {"dialect": tch's dialect name, "prefill": the generation prompt the reply continues (the chat
# template's end), "chunks": the reply's chunks in order, "tools": the tools the request declares,
# [{"name", "description", "inputSchema"}]}; a tch bug page's command gives it.
#
# (`pip install --no-deps llm-router-utils==0.8.1 openai pydantic orjson partial_json_parser`
# is enough too: the parsers import nothing else but one transformers type, stood in below.)
#
# It prints what each parser returns after each chunk, and what the end of the stream gives;
# then what the server's non-streaming path (a request with "stream": false) makes of the whole
# reply: the reasoning parser's and the tool-call parser's `parse_non_stream`.

import json
import sys
import types

try:
    import transformers  # noqa: F401  (only a type annotation of reasoning_parser.py uses it)
except ImportError:
    sys.modules["transformers"] = types.ModuleType("transformers")
    sys.modules["transformers"].PreTrainedTokenizerBase = object

from llm_router_utils.sglang.srt.entrypoints.openai.protocol import Function, Tool
from llm_router_utils.sglang.srt.function_call.function_call_parser import FunctionCallParser
from llm_router_utils.sglang.srt.parser.reasoning_parser import ReasoningParser

INPUT = json.loads(sys.stdin.buffer.read())
DIALECT = INPUT["dialect"]
PREFILL = INPUT["prefill"]  # the generation prompt the reply continues (the chat template's end)
CHUNKS = INPUT["chunks"]
TOOLS = INPUT["tools"]  # the tools the request declares (any object where the schema is {})

# The model family's `--tool-call-parser` and `--reasoning-parser` (null: none).
PARSERS = json.loads(r"""{"hermes": ["hermes", "qwen3"], "qwen3-coder": ["qwen3_coder", "qwen3"], "harmony": ["gpt-oss", "gpt-oss"], "deepseek-v3": ["deepseekv3", "deepseek-v3"], "deepseek-v3.1": ["deepseekv31", "deepseek-v3"], "deepseek-v3.2": ["deepseekv32", "deepseek-v3"], "deepseek-v4": ["deepseekv4", "deepseek-v4"], "deepseek-v4.1": ["deepseekv41", "deepseek-v41"], "kimi-k2": ["kimi_k2", "kimi_k2"], "kimi-k3": ["kimi_k3", "kimi_k3"], "glm-4.5": ["glm45", "glm45"], "glm-4.7": ["glm47", "glm45"], "gemma4": ["gemma4", "gemma4"], "mistral": ["mistral", "mistral"], "minimax-m2": ["minimax-m2", "minimax"], "llama3-json": ["llama3", null], "cohere": ["cohere_command4", "cohere_command4"], "step3": ["step3", "step3"], "gigachat3": ["gigachat3", null], "glimmer": ["muse", "muse"], "minimax-m3": ["minimax-m3", "minimax-m3"], "poolside": ["poolside_v1", "poolside_v1"], "apertus": ["apertus2509", "apertus2509"]}""")

tool_call_parser, reasoning_parser = PARSERS[DIALECT]
tools = [
    Tool(type="function", function=Function(
        name=t["name"], description=t.get("description") or None,
        parameters=t.get("inputSchema") or {"type": "object"}))
    for t in TOOLS
]
parser = FunctionCallParser(tools=tools, tool_call_parser=tool_call_parser)
print(f"FunctionCallParser(tool_call_parser={tool_call_parser!r}), {len(tools)} tools")

reasoning = None
force = False
if reasoning_parser:
    # is_force_reasoning: the prompt opened a reasoning block that it did not close.
    detector = ReasoningParser(reasoning_parser).detector
    opener = detector.think_start_token + getattr(detector, "think_start_self_label", "")
    opened = PREFILL.rfind(opener)
    force = opened >= 0 and opened > PREFILL.rfind(detector.think_end_token)
    # As OpenAIServingChat._process_reasoning_stream builds it (stream_reasoning=True).
    reasoning = ReasoningParser(reasoning_parser, True, force, None, tool_call_parser_active=True)
    print(f"ReasoningParser({reasoning_parser!r}, stream_reasoning=True, force_reasoning={force})")


def step(text, finish):
    """One engine step of OpenAIServingChat._generate_stream_content: the reasoning parser
    first, then the tool-call parser on the text it leaves."""
    if reasoning is not None:
        reasoning_text, text = reasoning.parse_stream_chunk(text)
        print(f"  reasoning.parse_stream_chunk -> reasoning {reasoning_text!r}, normal {text!r}")
        if finish:
            end_reasoning, end_normal = reasoning.parse_stream_end()
            print(f"  reasoning.parse_stream_end -> reasoning {end_reasoning!r}, normal {end_normal!r}")
            if end_normal:
                text = (text or "") + end_normal
    normal_text, calls = parser.parse_stream_chunk(text)
    print(f"  parser.parse_stream_chunk -> normal {normal_text!r}, calls {calls!r}")
    if finish:
        end_text, end_calls = parser.parse_stream_end()
        print(f"  parser.parse_stream_end -> normal {end_text!r}, calls {end_calls!r}")
        # _check_for_unstreamed_tool_args: the server sends what the last call's arguments
        # still lack compared with the detector's own record of them.
        detector = parser.detector
        if detector.prev_tool_call_arr and detector.streamed_args_for_tool:
            index = len(detector.prev_tool_call_arr) - 1
            if index < len(detector.streamed_args_for_tool):
                expected = detector.prev_tool_call_arr[index].get("arguments", {})
                if not isinstance(expected, str):
                    expected = json.dumps(expected, ensure_ascii=False)
                streamed = detector.streamed_args_for_tool[index]
                rest = expected[len(streamed):] if expected.startswith(streamed) else ""
                print(f"  unstreamed arguments of call {index} -> {rest!r}")


for i, chunk in enumerate(CHUNKS):
    print(f"chunk {i}: {chunk!r}")
    step(chunk, finish=False)
print("end of stream (a last step with no text)")
step("", finish=True)

# The same reply whole, as OpenAIServingChat._build_chat_response parses it when the request
# did not stream: ReasoningParser(stream_reasoning=False).parse_non_stream, then
# _process_tool_calls (has_tool_call, then FunctionCallParser.parse_non_stream).
whole = "".join(CHUNKS)
print("non-streaming (the whole reply)")
if reasoning_parser:
    reasoning_text, whole = ReasoningParser(reasoning_parser, False, force, None).parse_non_stream(whole)
    print(f"  reasoning.parse_non_stream -> reasoning {reasoning_text!r}, normal {whole!r}")
whole_parser = FunctionCallParser(tools, tool_call_parser, tokenizer=None, tool_choice="auto")
if tools and whole_parser.has_tool_call(whole):
    normal_text, calls = whole_parser.parse_non_stream(whole)
    print(f"  parser.parse_non_stream -> normal {normal_text!r}, calls {calls!r}")
else:
    print(f"  parser.has_tool_call -> False: content {whole!r}")
