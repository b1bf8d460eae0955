#!/usr/bin/env node
// A tch candidate (specs/protocol.md) wrapping the REAL streaming parser of
// @ai-sdk-tool/parser 4.1.26: its `hermesProtocol` (`<tool_call>{json}</tool_call>`), driven
// through the package's own AI SDK middleware stream pipeline (`wrapStream`), exactly as
// `wrapLanguageModel({ model, middleware: hermesToolMiddleware })` + `streamText` would.
//
// This adapter only translates: tch chunks become `text-delta` stream parts, the parts that
// come out become tch events. It never fixes the parser. See README.md for the mapping.
//
//   npm ci --prefix adapters/ai-sdk-tool-parser
//   tch run --dialect hermes -- node adapters/ai-sdk-tool-parser/adapter.mjs

import readline from 'node:readline';
import { hermesProtocol, hermesToolMiddleware, wrapStream } from '@ai-sdk-tool/parser';

const NAME = 'ai-sdk-tool-parser-4.1.26-hermes';
const DIALECTS = ['hermes'];

// Standard output carries protocol lines only. The package logs with console.log when
// DEBUG_PARSER_MW is set; send any such logging to standard error instead.
console.log = console.info = console.debug = console.warn = console.error;

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));
const nextTimerTick = () => new Promise((resolve) => setTimeout(resolve, 0));

// The parser's TransformStream, observed: how many input parts its `transform` has taken and
// how many parts it has enqueued, counted synchronously at the moment it enqueues them (its
// setTimeout(0) progress callback included, since it keeps the controller it was given).
// This changes nothing the parser does; it tells the adapter (1) when a chunk has been
// consumed and (2) where, among the parser's output parts, an onError report falls.
function countingTransformStream(Native, counter) {
  return class CountingTransformStream extends Native {
    constructor(transformer = {}, writableStrategy, readableStrategy) {
      const wrap = (controller) => ({
        enqueue(part) {
          counter.enqueued += 1;
          controller.enqueue(part);
        },
        error(reason) {
          controller.error(reason);
        },
        terminate() {
          controller.terminate();
        },
        get desiredSize() {
          return controller.desiredSize;
        },
      });
      const observed = { ...transformer };
      if (transformer.start) observed.start = (c) => transformer.start.call(transformer, wrap(c));
      observed.transform = (part, c) => {
        counter.transformed += 1;
        return transformer.transform
          ? transformer.transform.call(transformer, part, wrap(c))
          : wrap(c).enqueue(part);
      };
      if (transformer.flush) observed.flush = (c) => transformer.flush.call(transformer, wrap(c));
      super(observed, writableStrategy, readableStrategy);
    }
  };
}

// `hermesProtocol()` (default delimiters, as `hermesToolMiddleware` builds it), its stream
// parser constructed with the counting TransformStream above in place of the global one.
function observedHermesProtocol(counter) {
  const base = hermesProtocol();
  return {
    ...base,
    createStreamParser(args) {
      const Native = globalThis.TransformStream;
      globalThis.TransformStream = countingTransformStream(Native, counter);
      try {
        return base.createStreamParser(args);
      } finally {
        globalThis.TransformStream = Native;
      }
    },
  };
}

// AI SDK LanguageModelV3 function tools from the tools of tch's `begin`.
function functionTools(tools) {
  return (tools ?? []).map((tool) => ({
    type: 'function',
    name: tool.name,
    description: tool.description ?? '',
    inputSchema: tool.inputSchema ?? { type: 'object' },
  }));
}

// Stream parts with no tch counterpart: stream metadata, not parser output.
const METADATA_PARTS = new Set(['stream-start', 'response-metadata', 'finish', 'raw']);

// One part that came out of the middleware's stream, as a tch event (or null).
function toEvent(part) {
  switch (part.type) {
    case 'text-delta':
      return { type: 'text-delta', delta: part.delta };
    case 'tool-input-start':
      return { type: 'tool-input-start', id: part.id, toolName: part.toolName };
    case 'tool-input-delta':
      return { type: 'tool-input-delta', id: part.id, delta: part.delta };
    case 'tool-input-end':
      return { type: 'tool-input-end', id: part.id };
    case 'tool-call':
      // `input` is the AI SDK's JSON string; tch reads a string input as JSON (events.md §2).
      // Any other field of the part (providerExecuted, …) goes along (tch keeps it as extra).
      return { ...part, type: 'tool-call' };
    case 'error':
      return { type: 'error', errorText: errorText(part.error) };
    default:
      if (METADATA_PARTS.has(part.type)) return null;
      return part; // text-start/text-end (ignored by tch) and anything unexpected, verbatim
  }
}

function errorText(error) {
  if (typeof error === 'string') return error;
  if (error instanceof Error) return error.message;
  try {
    return JSON.stringify(error) ?? String(error);
  } catch {
    return String(error);
  }
}

class Session {
  constructor(tools) {
    this.counter = { transformed: 0, enqueued: 0 };
    this.written = 0; // parts written into the model stream
    this.read = 0; // parts read out of the middleware's stream
    this.events = []; // tch events not yet sent
    this.reports = []; // onError reports not yet placed: { after: n parser parts, message }
    this.dead = false; // the stream errored: nothing more will come out
    this.source = null;
    this.ready = this.open(tools);
  }

  async open(tools) {
    const counter = this.counter;
    const model = new ReadableStream({
      start: (controller) => {
        this.source = controller;
      },
    });
    // An AI SDK user's middleware onError (providerOptions.toolCallMiddleware.onError): the
    // parser's only report of a malformed or unfinished block. Placed among the output parts
    // at the position the parser had reached when it called it.
    const onError = (message) => {
      this.reports.push({ after: counter.enqueued, message });
    };
    const params = await hermesToolMiddleware.transformParams({
      type: 'stream',
      params: {
        prompt: [],
        tools: functionTools(tools),
        providerOptions: { toolCallMiddleware: { onError } },
      },
    });
    const { stream } = await wrapStream({
      protocol: observedHermesProtocol(counter),
      doStream: async () => ({ stream: model }),
      doGenerate: async () => {
        throw new Error('doGenerate is not used when streaming without toolChoice');
      },
      params,
    });
    this.finished = this.pump(stream.getReader());
  }

  async pump(reader) {
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        this.read += 1;
        const event = toEvent(value);
        if (event) this.events.push(event);
        this.placeReports();
      }
    } catch (error) {
      // A stream that errors reaches an AI SDK consumer as an `error` part, then ends.
      this.placeReports(true);
      this.events.push({ type: 'error', errorText: errorText(error) });
      this.dead = true;
    }
    this.placeReports(true);
  }

  placeReports(all = false) {
    while (this.reports.length > 0 && (all || this.reports[0].after <= this.read)) {
      this.events.push({ type: 'error', errorText: this.reports.shift().message });
    }
  }

  // Let the pipeline settle after a chunk:
  //  1. turns of the event loop until the parser's `transform` has taken the part (the pipes
  //     between the model stream and the parser are promise-driven);
  //  2. one setTimeout(0): inside a call, `transform` schedules its tool-input progress on a
  //     setTimeout(0); ours is registered after it with the same delay, and Node runs timers
  //     of one delay in the order they were set, so the parser's callback has run when ours
  //     does (this is what a real model stream, whose chunks are a network read apart, gives
  //     it);
  //  3. turns of the event loop until every part the parser enqueued (counted when enqueued)
  //     has come out of the middleware's last stage to us.
  async settle() {
    while (!this.dead && this.counter.transformed < this.written) await nextTurn();
    await nextTimerTick();
    while (!this.dead && this.read < this.counter.enqueued) await nextTurn();
    this.placeReports();
  }

  async chunk(text) {
    await this.ready;
    if (!this.dead) {
      this.source.enqueue({ type: 'text-delta', id: 'txt-0', delta: text });
      this.written += 1;
      await this.settle();
    }
    return this.events.splice(0);
  }

  async end() {
    await this.ready;
    if (!this.dead) {
      // A model stream ends with a `finish` part, then closes: the hermes parser flushes its
      // buffer (text held back, an unfinished call) only on `finish`.
      this.source.enqueue({
        type: 'finish',
        finishReason: { unified: 'stop', raw: 'stop' },
        usage: {
          inputTokens: { total: 0, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
          outputTokens: { total: 0, text: undefined, reasoning: undefined },
        },
      });
      this.source.close();
    }
    await this.finished;
    return this.events.splice(0);
  }
}

async function serve() {
  const send = (lines, message) => lines.push(JSON.stringify(message));
  const input = readline.createInterface({ input: process.stdin, terminal: false });
  let session = null;
  for await (const line of input) {
    if (!line.trim()) continue;
    const request = JSON.parse(line);
    const out = [];
    switch (request.op) {
      case 'hello':
        send(out, { type: 'hello', protocol: 1, name: NAME, dialects: DIALECTS });
        break;
      case 'begin':
        session = new Session(request.tools);
        break;
      case 'chunk':
        for (const event of await session.chunk(request.text)) send(out, event);
        send(out, { type: 'sync' });
        break;
      case 'end':
        for (const event of await session.end()) send(out, event);
        send(out, { type: 'done' });
        session = null;
        break;
      case 'bye':
        input.close();
        process.exit(0);
    }
    if (out.length > 0) process.stdout.write(out.join('\n') + '\n');
  }
}

serve();
