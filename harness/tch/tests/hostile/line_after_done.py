"""Answers every request right, then writes one more event after each `done`: a line that
would otherwise land in the next stream (specs/protocol.md P2.6)."""

import json
import sys

for line in sys.stdin:
    request = json.loads(line)
    op = request["op"]
    if op == "hello":
        print(json.dumps({"type": "hello", "protocol": 1, "name": "hostile", "dialects": ["hermes"]}), flush=True)
    elif op == "begin":
        text = ""
    elif op == "chunk":
        text += request["text"]
        print('{"type":"sync"}', flush=True)
    elif op == "end":
        print(json.dumps({"type": "text-delta", "delta": text}))
        print('{"type":"done"}')
        print(json.dumps({"type": "text-delta", "delta": "late"}), flush=True)
    elif op == "bye":
        break
