#!/usr/bin/env python3
"""The Python template, but its non-streaming path (specs/protocol.md P2.11) exits: the
streamed replays of a case must all have run before it (specs/runner.md §1)."""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "..", "adapters", "python"))

from adapter import HermesParser, serve  # noqa: E402


class CrashesWhenWhole(HermesParser):
    def parse_complete(self, text):
        sys.exit(3)


serve(CrashesWhenWhole, name="crashes when whole")
