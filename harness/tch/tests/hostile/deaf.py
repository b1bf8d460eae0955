"""Answers hello, then never reads its input again."""
import json
import sys
import time

sys.stdin.readline()
print(json.dumps({"type": "hello", "protocol": 1, "name": "deaf", "dialects": ["hermes"]}), flush=True)
time.sleep(600)
