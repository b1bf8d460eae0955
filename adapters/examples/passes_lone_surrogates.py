#!/usr/bin/env python3
"""BUG: reads call JSON with Python's `json` as it is, which accepts an escaped half of a
surrogate pair (`"\\udf27"`), and passes the half on in the call's input.

specs/streaming.md C8.4: such JSON is invalid, so the reference gives an error and the block as
text. The half travels escaped on the protocol (`json.dumps` escapes it); tch reads it as
U+FFFD and judges the call: extra-call (the block's text became a call) and missing-error,
conformance, with the candidate still running (specs/protocol.md P1.2).
"""

import json

from _base import HermesParser, serve

import adapter  # found through _base's path

template_loads = adapter.loads


def loads(source):
    try:
        return template_loads(source)
    except UnicodeEncodeError:  # the template's check for halves of surrogate pairs
        return json.loads(source)


adapter.loads = loads

serve(HermesParser, name="bug: passes lone surrogates")
