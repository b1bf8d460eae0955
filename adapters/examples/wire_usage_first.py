#!/usr/bin/env python3
"""BUG: the server writes its usage chunk (`choices: []`) before the finish chunk.

Both reference clients read it, but the chunk with no choice is not the last one with data,
so client code that reads `chunk.choices[0]` on every chunk but the last (the API reference's
own examples do) breaks on it.
tch: wire (W7.1, medium).
"""

from _wire_base import ChunkServer, serve


class UsageFirst(ChunkServer):
    def finish(self):
        return [self.usage_chunk(), self.finish_chunk(), "[DONE]"]


serve(UsageFirst, name="bug: usage chunk before the finish")
