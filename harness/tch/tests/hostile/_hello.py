"""Shared by the hostile fixtures: answer hello properly, then misbehave on the first chunk."""

import json
import sys


def after_hello(misbehave):
    for line in sys.stdin:
        request = json.loads(line)
        if request["op"] == "hello":
            print(json.dumps({"type": "hello", "protocol": 1, "name": "hostile", "dialects": ["hermes"]}), flush=True)
        elif request["op"] == "chunk":
            misbehave()
