#!/usr/bin/env python3
"""BUG: parses calls under `tool_choice: "none"`.

Under "none" no tool parser runs (vLLM, SGLang, llama.cpp): a model that writes call markup
anyway wrote a message, and the markup is its text (specs/protocol.md P6.3). This adapter
reads calls whatever the request says. tch: extra-call.
"""

from _base import FirstCallOnly, HermesParser, serve


def parse_always(make_parser, request):
    wrap = FirstCallOnly if request.get("parallel_tool_calls") is False else (lambda p: p)
    return [wrap(make_parser()) for _ in range(request.get("n", 1))]


serve(HermesParser, name="bug: calls parsed under tool_choice none", choices=parse_always)
