#!/usr/bin/env python3
"""BUG: hangs when a chunk ends in the middle of `<tool_call>` (waits for more input it
never asks for, as a blocking read would). tch: timeout.
"""

import time

from _base import HermesParser, serve


class HangOnSplitTag(HermesParser):
    def push(self, chunk):
        if chunk.endswith("<tool_"):
            time.sleep(3600)
        return super().push(chunk)


serve(HangOnSplitTag, name="bug: hang on a split tag")
