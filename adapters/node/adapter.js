#!/usr/bin/env node
// A tch candidate adapter in plain Node.js (no dependencies): the template to copy.
//
// tch talks to a parser under test over JSON lines on stdin/stdout (protocol v1,
// specs/protocol.md). Two parts:
//  1. HermesParser: a small streaming parser for the `hermes` dialect
//     (`<tool_call>{"name": ..., "arguments": {...}}</tool_call>` and `<think>` reasoning,
//     specs/dialects/hermes.md).
//     Replace it with a wrapper around YOUR parser: push(chunk) returns the events that chunk
//     completed, finish() the rest. Events are AI SDK v5 stream parts (specs/events.md).
//     parseComplete(text) returns the events of the parser's non-streaming result for a whole
//     reply (an SDK's generateText path, an engine's extract_tool_calls): wire it to that
//     entry point, or delete it if your parser has none (tch then sends no whole replies;
//     specs/protocol.md P2.11).
//  2. serve(): the protocol loop. Keep it; change NAME and DIALECTS. It honours the request's
//     options (specs/protocol.md section 6) around your parser: tool_choice "none" (the reply
//     is text), parallel_tool_calls false (the first call only) and n (a parser per choice).
//     If your engine does otherwise, change OPTIONS or withOptions to do what your server
//     does, never more.
//
// Run it under tch:   tch run -- node adapters/node/adapter.js
'use strict';

const readline = require('node:readline');

const NAME = 'node-template';
const DIALECTS = ['hermes'];
// The request's options this adapter honours as its engine does (specs/protocol.md P6.1).
const OPTIONS = ['tool_choice', 'parallel_tool_calls', 'n'];
const OPEN = '<tool_call>';
const CLOSE = '</tool_call>';
const THINK = '<think>';
const THINK_END = '</think>';

const text = (delta) => ({ type: 'text-delta', delta });
const reasoning = (delta) => ({ type: 'reasoning-delta', delta });
const error = (errorText) => ({ type: 'error', errorText });
const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);

const MAX_DEPTH = 126; // levels of arrays and objects a call's JSON may nest (specs/streaming.md C8.2)
const LONE_SURROGATE = /\p{Cs}/u; // in a `u` regex a pair is one code point, a half is Cs

// JSON as the reference reads it (specs/streaming.md C8). JSON.parse also accepts any depth
// and `\udf27`, an escaped half of a surrogate pair, which is not Unicode text (JSON.stringify
// would send it back escaped, and tch refuses such a line): both are refused here.
function parseJson(source) {
  const value = JSON.parse(source);
  const pending = [[value, 1]];
  while (pending.length > 0) {
    const [item, depth] = pending.pop();
    if (typeof item === 'string') {
      if (LONE_SURROGATE.test(item)) throw new SyntaxError('half a surrogate pair');
    } else if (item !== null && typeof item === 'object') {
      if (depth > MAX_DEPTH) throw new SyntaxError(`nesting deeper than ${MAX_DEPTH} levels`);
      for (const [key, child] of Object.entries(item)) pending.push([key, depth + 1], [child, depth + 1]);
    }
  }
  return value;
}

class HermesParser {
  constructor() {
    this.pending = ''; // a possible marker prefix, or an open call (starting with OPEN)
    this.inCall = false;
    this.reasoning = false; // inside <think>: only </think> is a marker
    this.scanned = 0; // how far `pending` was searched for CLOSE: never search twice
    // An open call that spans chunks is kept as parts, with its last chars in `carry`: only
    // `carry` + the new chunk is searched for CLOSE, and the parts are joined once, when it
    // closes. (Appending to one string and searching it would make V8 flatten the whole call on
    // every chunk: quadratic time, the `superlinear` verdict.)
    this.parts = [];
    this.carry = '';
    this.calls = 0;
    this.ids = new Set(); // ids of the calls so far: they must stay unique (C7.1)
  }

  push(chunk) {
    const events = [];
    if (this.parts.length > 0) {
      const seen = this.carry + chunk;
      this.parts.push(chunk);
      if (seen.indexOf(CLOSE) < 0) {
        this.carry = seen.slice(-(CLOSE.length - 1));
        return events;
      }
      this.pending = this.parts.join('');
      // Everything before `seen` was searched already.
      this.scanned = this.pending.length - seen.length + CLOSE.length - 1;
      this.parts = [];
      this.carry = '';
    } else {
      this.pending += chunk;
    }
    for (;;) {
      if (this.inCall) {
        const end = this.pending.indexOf(CLOSE, Math.max(OPEN.length, this.scanned - CLOSE.length + 1));
        if (end < 0) {
          this.parts = [this.pending];
          this.carry = this.pending.slice(-(CLOSE.length - 1));
          this.pending = '';
          break;
        }
        const block = this.pending.slice(0, end + CLOSE.length);
        this.pending = this.pending.slice(block.length);
        this.inCall = false;
        this.scanned = 0;
        events.push(...this.call(block.slice(OPEN.length, end), block));
        continue;
      }
      if (this.reasoning) {
        const end = this.pending.indexOf(THINK_END);
        if (end >= 0) {
          if (end > 0) events.push(reasoning(this.pending.slice(0, end)));
          this.pending = this.pending.slice(end + THINK_END.length);
          this.reasoning = false;
          continue;
        }
        events.push(...this.release(reasoning, [THINK_END]));
        break;
      }
      const found = [OPEN, THINK]
        .map((marker) => [this.pending.indexOf(marker), marker])
        .filter(([start]) => start >= 0)
        .sort((a, b) => a[0] - b[0]);
      if (found.length > 0) {
        const [start, marker] = found[0];
        if (start > 0) events.push(text(this.pending.slice(0, start)));
        if (marker === OPEN) {
          this.pending = this.pending.slice(start);
          this.inCall = true;
        } else {
          this.pending = this.pending.slice(start + THINK.length);
          this.reasoning = true;
        }
        continue;
      }
      events.push(...this.release(text, [OPEN, THINK]));
      break;
    }
    return events;
  }

  // Releases `pending` as `kind` (text or reasoning) but for a possible marker prefix.
  release(kind, markers) {
    const keep = markerPrefixLength(this.pending, markers);
    const released = this.pending.slice(0, this.pending.length - keep);
    this.pending = this.pending.slice(released.length);
    return released ? [kind(released)] : [];
  }

  // The generation prompt the stream continues: only the mode it leaves matters (`<think>`
  // left open: the stream starts in reasoning); no events, and a partial marker at its end is
  // dropped (specs/streaming.md C9).
  prefill(context) {
    this.push(context);
    if (!this.inCall) this.pending = '';
  }

  // The non-streaming result of a whole reply. This parser has one path, so it is the stream
  // in one chunk; an engine's adapter calls its non-streaming entry point here.
  parseComplete(text) {
    return [...this.push(text), ...this.finish()];
  }

  finish() {
    const events = [];
    if (this.inCall) events.push(error('unterminated tool_call'));
    if (this.parts.length > 0) this.pending = this.parts.join('');
    this.parts = [];
    this.carry = '';
    if (this.pending) events.push((this.reasoning ? reasoning : text)(this.pending));
    this.pending = '';
    return events;
  }

  // The events of one complete block: a tool-call, or an error and the block as text.
  call(content, block) {
    let value;
    try {
      value = parseJson(content);
    } catch {
      value = null;
    }
    if (!isObject(value)) return [error('invalid JSON in tool_call'), text(block)];
    if (typeof value.name !== 'string') return [error('tool_call has no string "name"'), text(block)];
    let args = value.arguments;
    if (typeof args === 'string') {
      try {
        args = parseJson(args);
      } catch {
        args = 'not an object';
      }
    }
    if (args === undefined || args === null) args = {};
    if (!isObject(args)) return [error('tool_call "arguments" is not an object'), text(block)];
    let id = value.id;
    if (typeof id === 'string' && this.ids.has(id)) {
      return [error(`duplicate tool call id ${JSON.stringify(id)}`), text(block)];
    }
    if (typeof id !== 'string') {
      // tool-call-N, stepping aside if an earlier call named that id (C7.2).
      const generated = `tool-call-${this.calls + 1}`;
      id = generated;
      for (let k = 2; this.ids.has(id); k += 1) id = `${generated}-${k}`;
    }
    this.calls += 1;
    this.ids.add(id);
    const event = { type: 'tool-call', toolCallId: id, toolName: value.name, input: args };
    // fromEntries defines keys as data: `extra[key] = v` would lose a "__proto__" field.
    const extra = Object.fromEntries(
      Object.entries(value).filter(([key]) => !['name', 'arguments', 'id'].includes(key)),
    );
    if (Object.keys(extra).length > 0) event.extra = extra;
    return [event];
  }
}

// The length of the longest suffix of `pending` that could still grow into a marker.
function markerPrefixLength(pending, markers) {
  const longest = Math.max(...markers.map((m) => m.length)) - 1;
  for (let size = Math.min(longest, pending.length); size > 0; size--) {
    const suffix = pending.slice(-size);
    if (markers.some((m) => m.startsWith(suffix))) return size;
  }
  return 0;
}

// tool_choice "none" (specs/protocol.md P6.3): no tool parser runs; the reply is text.
class NoTools {
  push(chunk) {
    return chunk ? [text(chunk)] : [];
  }
  finish() {
    return [];
  }
  parseComplete(whole) {
    return this.push(whole);
  }
}

// parallel_tool_calls false (specs/protocol.md P6.6): the parser's events, with every call
// after the first left out.
class FirstCallOnly {
  constructor(parser) {
    this.parser = parser;
    this.first = null;
  }
  keep(events) {
    return events.filter((event) => {
      const id = event.toolCallId ?? event.id;
      if (!event.type.startsWith('tool-') || id === undefined) return true;
      if (this.first === null) this.first = id;
      return id === this.first;
    });
  }
  push(chunk) {
    return this.keep(this.parser.push(chunk));
  }
  finish() {
    return this.keep(this.parser.finish());
  }
  prefill(context) {
    if (typeof this.parser.prefill === 'function') this.parser.prefill(context);
  }
  parseComplete(whole) {
    return this.keep(this.parser.parseComplete(whole));
  }
}

// A choice's parser as the request's options leave it (specs/protocol.md P6.3-P6.6).
function withOptions(parser, request) {
  if (request.tool_choice === 'none') return new NoTools();
  if (request.parallel_tool_calls === false) return new FirstCallOnly(parser);
  return parser;
}

// The protocol loop: one request per line in, replies out, until `bye` or end of input.
function serve(makeParser) {
  // One parser per choice of the request (n, specs/protocol.md P6.7): nothing is shared.
  let parsers = [];
  const out = [];
  const send = (message) => out.push(JSON.stringify(message));
  const lines = readline.createInterface({ input: process.stdin, terminal: false });
  lines.on('line', (line) => {
    if (!line.trim()) return;
    const request = JSON.parse(line);
    switch (request.op) {
      case 'hello': {
        const hello = { type: 'hello', protocol: 1, name: NAME, dialects: DIALECTS };
        // Whole replies (the `non-streaming` request) only for a parser that has a
        // non-streaming entry point (specs/protocol.md P2.11).
        if (typeof makeParser().parseComplete === 'function') hello.nonStreaming = true;
        hello.options = OPTIONS;
        send(hello);
        break;
      }
      case 'begin':
        // Per stream: only what holds this stream's state. tch sends thousands of streams to
        // this one process; build what they share (a tokenizer, a chat template and its
        // rendering with the tools, tools in your parser's types) once, outside this handler,
        // and cache what depends on `dialect`, `tools` or `prefill` keyed by them: a template
        // re-rendered here on every begin once cost 17x the run (P2.10 of specs/protocol.md).
        parsers = Array.from({ length: request.n ?? 1 }, () => withOptions(makeParser(), request));
        // The generation prompt the stream continues (specs/protocol.md P2.7): a parser with
        // reasoning or headers starts in the state it leaves, emitting nothing for it.
        for (const parser of parsers) {
          if (request.prefill && typeof parser.prefill === 'function') parser.prefill(request.prefill);
        }
        break;
      case 'chunk':
        // The choice the chunk belongs to (n > 1); absent: the only one.
        parsers[request.choice ?? 0].push(request.text).forEach(send);
        send({ type: 'sync' });
        break;
      case 'end':
        parsers[request.choice ?? 0].finish().forEach(send);
        send({ type: 'done' });
        break;
      case 'non-streaming':
        // After `begin`: the whole reply at once, answered by the parser's non-streaming
        // result (text, reasoning and tool-call events; no tool-input-* parts needed).
        parsers[0].parseComplete(request.text).forEach(send);
        send({ type: 'done' });
        break;
      case 'bye':
        lines.close();
        return;
    }
    if (out.length > 0) process.stdout.write(out.splice(0).join('\n') + '\n');
  });
}

serve(() => new HermesParser());
