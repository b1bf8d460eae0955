#!/usr/bin/env python3
"""BUG: re-reads everything it has seen on every chunk: it appends the chunk to a buffer,
re-tokenizes and re-parses the whole buffer from the start (a Python loop over every char),
and emits only what is new, as parsers that re-parse their whole `current_text` on every
delta do.

Its events are right under every chunking, but each chunk costs time in proportion to the
stream so far: quadratic in the stream's length (one 128 KiB call in 64-byte chunks takes
about 4 s, the template 0.1 s; doubling the call quadruples it). tch: superlinear.
"""

from _base import HermesParser, serve

DELTAS = ("text-delta", "reasoning-delta")


def tokens(buffer):
    """The buffer cut before every `<`, where a marker may start: a loop over every char."""
    start = 0
    for i, char in enumerate(buffer):
        if char == "<" and i > start:
            yield buffer[start:i]
            start = i
    if start < len(buffer):
        yield buffer[start:]


def merged(events):
    """`events` with consecutive deltas of one kind joined: the same for any chunking."""
    out = []
    for event in events:
        if out and event["type"] in DELTAS and out[-1]["type"] == event["type"]:
            out[-1] = {**out[-1], "delta": out[-1]["delta"] + event["delta"]}
        else:
            out.append(event)
    return out


class RescansBuffer:
    def __init__(self):
        self.context = None
        self.seen = ""  # every chunk so far
        self.sent = []  # what was emitted, merged: always a prefix of a re-parse's events

    def prefill(self, context):
        self.context = context

    def push(self, chunk):
        self.seen += chunk
        return self.news(self.reparse(final=False))

    def finish(self):
        return self.news(self.reparse(final=True))

    def reparse(self, final):
        """The template's events for the whole buffer, from a fresh parser."""
        parser = HermesParser()
        if self.context:
            parser.prefill(self.context)
        events = []
        for token in tokens(self.seen):
            events.extend(parser.push(token))
        if final:
            events.extend(parser.finish())
        return merged(events)

    def news(self, events):
        """What `events` add to what was sent: the rest of the last delta, then what follows."""
        new = events[len(self.sent) :]
        if self.sent and self.sent[-1]["type"] in DELTAS:
            last, now = self.sent[-1]["delta"], events[len(self.sent) - 1]["delta"]
            if len(now) > len(last):
                new.insert(0, {**self.sent[-1], "delta": now[len(last) :]})
        self.sent = events
        return new


serve(RescansBuffer, name="bug: re-scans its whole buffer on every chunk")
