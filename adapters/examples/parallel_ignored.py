#!/usr/bin/env python3
"""BUG: declares `parallel_tool_calls` and ignores it: every call is handed on.

A server that relies on constrained decoding to keep the model to one call, and so parses
every call the model wrote anyway, hands the agent calls the request ruled out
(specs/protocol.md P6.6). tch: extra-call.
"""

from _base import HermesParser, NoTools, serve


def every_call(make_parser, request):
    parsers = []
    for _ in range(request.get("n", 1)):
        parsers.append(NoTools() if request.get("tool_choice") == "none" else make_parser())
    return parsers


serve(HermesParser, name="bug: parallel_tool_calls ignored", choices=every_call)
