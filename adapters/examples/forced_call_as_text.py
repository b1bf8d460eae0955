#!/usr/bin/env python3
"""BUG: runs the tool parser only when `tool_choice` is "auto" (or absent).

vLLM's `_should_stream_with_auto_tool_parsing` decides so, because its forced calls come
from guided decoding as JSON. A server whose model writes a forced call in the dialect's own
markup (llama.cpp's grammar, SGLang's structural tags) then streams it as content
(specs/protocol.md P6.4, P6.5). tch: leaked-markup, missing-call.
"""

from _base import HermesParser, NoTools, serve, with_options


def parse_only_auto(make_parser, request):
    forced = request.get("tool_choice", "auto") not in ("auto", "none")
    return [
        NoTools() if forced else with_options(make_parser(), request)
        for _ in range(request.get("n", 1))
    ]


serve(HermesParser, name="bug: forced call streamed as content", choices=parse_only_auto)
