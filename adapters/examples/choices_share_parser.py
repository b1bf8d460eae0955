#!/usr/bin/env python3
"""BUG: one parser object serves every choice of a request with `n` > 1.

vLLM's `chat_completion_stream_generator` builds its tool parsers as
`[self.tool_parser(tokenizer)] * num_choices`: the list holds one object n times. Each
choice's text then lands in the same buffer, interleaved with the others'. Right when `n`
is 1, wrong for every choice when the choices are fed chunk by chunk in turn
(specs/protocol.md P6.7). tch: choices-share-state.
"""

from _base import HermesParser, serve, with_options


def one_parser_for_all(make_parser, request):
    return [with_options(make_parser(), request)] * request.get("n", 1)


serve(HermesParser, name="bug: choices share a parser", choices=one_parser_for_all)
