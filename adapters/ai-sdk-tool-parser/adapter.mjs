#!/usr/bin/env node
// A tch candidate (specs/protocol.md) wrapping the REAL streaming parsers of
// @ai-sdk-tool/parser 4.1.26, driven through the package's own AI SDK middleware stream
// pipeline (`wrapStream`) and composed with the `ai` package (6.0.206) exactly as an AI SDK
// user composes them:
//
//   wrapLanguageModel({ model, middleware: [TOOL_MIDDLEWARE, extractReasoningMiddleware({ tagName: 'think' })] })
//
// One process serves every dialect it maps; `begin.dialect` picks the protocol:
//
//   hermes       hermesToolMiddleware      (hermesProtocol())      + extractReasoningMiddleware
//   qwen3-coder  qwen3CoderToolMiddleware  (qwen3CoderProtocol())  + extractReasoningMiddleware
//   longcat      createToolMiddleware      (hermesProtocol with LongCat's tags)
//                                          + extractReasoningMiddleware({ tagName: 'longcat_think' })
//
// `tag` is not served: the package's yamlXml and morphXml protocols read other formats than
// tch's `tag` dialect (README.md, "Protocols and dialects").
//
// This adapter only translates: tch chunks become `text-delta` stream parts of a model, the
// parts that come out of the wrapped model become tch events. It never fixes the parser.
// See README.md for the driving, the mapping and what each dialect/protocol pair differs in.
//
//   npm ci --prefix adapters/ai-sdk-tool-parser
//   tch run -- node adapters/ai-sdk-tool-parser/adapter.mjs

import { readFileSync } from 'node:fs';
import readline from 'node:readline';
import {
  createToolMiddleware,
  hermesProtocol,
  hermesToolMiddleware,
  qwen3CoderProtocol,
  qwen3CoderToolMiddleware,
  wrapStream,
} from '@ai-sdk-tool/parser';
import { extractReasoningMiddleware, wrapLanguageModel } from 'ai';

const NAME = 'ai-sdk-tool-parser-4.1.26';

// LongCat's markers (specs/dialects/longcat.md LC1.1, LC2.1). The package's hermesProtocol
// takes its call delimiters as options (`HermesProtocolOptions` of the exported
// `hermesProtocol`, dist/index.d.ts; the package's own tests run custom delimiters, streamed
// too), and its README's "Build custom middleware" builds a middleware from a protocol with
// createToolMiddleware: that is how an AI SDK user serves LongCat. The system prompt template
// only encodes the tools into the prompt (transformParams); it is LongCat's instruction.
const LONGCAT = { toolCallStart: '<longcat_tool_call>', toolCallEnd: '</longcat_tool_call>' };
const longcatProtocol = () => hermesProtocol(LONGCAT);
const longcatToolMiddleware = createToolMiddleware({
  protocol: longcatProtocol(),
  toolSystemPromptTemplate: (tools) =>
    `You have access to the following tools:\n${JSON.stringify(tools)}\n` +
    `To call a tool, answer with ${LONGCAT.toolCallStart}{"name": <function-name>, ` +
    `"arguments": <args-dict>}${LONGCAT.toolCallEnd}`,
});

// tch dialect -> the tool middleware (the package's preconfigured one, or LongCat's above), a
// fresh instance of the protocol it was built with (src/preconfigured-middleware.ts:
// `hermesProtocol()`, `qwen3CoderProtocol` resolved by createToolMiddleware), and the model
// family's markers: its reasoning tag (extractReasoningMiddleware's `tagName`; hermes H5,
// specs/dialects/qwen3-coder.md §2, LC2.1) and its call block's, which a prefill is read with.
const DIALECTS = {
  hermes: {
    middleware: hermesToolMiddleware,
    protocol: () => hermesProtocol(),
    markers: { think: 'think', callStart: '<tool_call>', callEnd: '</tool_call>' },
  },
  'qwen3-coder': {
    middleware: qwen3CoderToolMiddleware,
    protocol: () => qwen3CoderProtocol(),
    markers: { think: 'think', callStart: '<tool_call>', callEnd: '</tool_call>' },
  },
  longcat: {
    middleware: longcatToolMiddleware,
    protocol: longcatProtocol,
    markers: { think: 'longcat_think', callStart: LONGCAT.toolCallStart, callEnd: LONGCAT.toolCallEnd },
  },
};

// Standard output carries protocol lines only. The package logs with console.log when
// DEBUG_PARSER_MW is set; send any such logging to standard error instead.
console.log = console.info = console.debug = console.warn = console.error;

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));
const nextTimerTick = () => new Promise((resolve) => setTimeout(resolve, 0));

// A TransformStream, observed: how many parts its `transform` has taken (`stage.in`) and how
// many parts it has enqueued (`stage.out`), counted synchronously at the moment it enqueues
// them (a deferred callback that kept the controller included). It passes everything through
// unchanged and changes nothing the stage does; it tells the adapter (1) when a part has been
// consumed and (2) where, among the output parts, an onError report falls.
function countingTransformStream(Native, stage) {
  return class CountingTransformStream extends Native {
    constructor(transformer = {}, writableStrategy, readableStrategy) {
      const wrap = (controller) => ({
        enqueue(part) {
          stage.out += 1;
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
        stage.in += 1;
        return transformer.transform
          ? transformer.transform.call(transformer, part, wrap(c))
          : wrap(c).enqueue(part);
      };
      if (transformer.flush) observed.flush = (c) => transformer.flush.call(transformer, wrap(c));
      super(observed, writableStrategy, readableStrategy);
    }
  };
}

// Run `fn` with the global TransformStream replaced, for its FIRST construction only, by the
// counting subclass above; every later construction gets the native class.
async function observingFirstTransformStream(stage, fn) {
  const Native = globalThis.TransformStream;
  const Counting = countingTransformStream(Native, stage);
  globalThis.TransformStream = class extends Native {
    constructor(...args) {
      globalThis.TransformStream = Native;
      return new Counting(...args);
    }
  };
  try {
    return await fn();
  } finally {
    globalThis.TransformStream = Native;
  }
}

// The dialect's protocol, its stream parser constructed with the counting TransformStream in
// place of the global one (`createStreamParser` builds exactly one, synchronously).
function observedProtocol(base, stage) {
  return {
    ...base,
    createStreamParser(args) {
      const Native = globalThis.TransformStream;
      globalThis.TransformStream = countingTransformStream(Native, stage);
      try {
        return base.createStreamParser(args);
      } finally {
        globalThis.TransformStream = Native;
      }
    },
  };
}

// The package's preconfigured middleware, unchanged (its transformParams, its wrapGenerate),
// but for one thing: its wrapStream is the package's exported `wrapStream` called exactly as
// createToolMiddleware calls it (src/tool-call-middleware.ts), with the observed protocol.
function observedToolMiddleware(spec, stage) {
  const protocol = observedProtocol(spec.protocol(), stage);
  return {
    ...spec.middleware,
    wrapStream: ({ doStream, doGenerate, params }) =>
      wrapStream({ protocol, doStream, doGenerate, params }),
  };
}

// The ai package's extractReasoningMiddleware, its one TransformStream observed.
function observedReasoningMiddleware(options, stage) {
  const middleware = extractReasoningMiddleware(options);
  return {
    ...middleware,
    wrapStream: (args) => observingFirstTransformStream(stage, () => middleware.wrapStream(args)),
  };
}

// Does the prefill leave the stream inside reasoning? Read as hermes H6.1 / specs/dialects/qwen3-coder.md §2
// / LC2.1 read it, with the dialect's `markers`: in text, `<think>` opens reasoning and
// `<tool_call>` a call block (inside which neither think marker means anything, up to
// `</tool_call>`); in reasoning only `</think>` is a marker. A partial marker at the end
// counts for nothing (C9.1).
function prefillEndsInReasoning(prefill, markers) {
  const opener = `<${markers.think}>`;
  let mode = 'text';
  let at = 0;
  for (;;) {
    if (mode === 'text') {
      const think = prefill.indexOf(opener, at);
      const call = prefill.indexOf(markers.callStart, at);
      if (think < 0 && call < 0) return false;
      if (call < 0 || (think >= 0 && think < call)) {
        mode = 'reasoning';
        at = think + opener.length;
      } else {
        mode = 'call';
        at = call + markers.callStart.length;
      }
    } else {
      const closer = mode === 'reasoning' ? `</${markers.think}>` : markers.callEnd;
      const end = prefill.indexOf(closer, at);
      if (end < 0) return mode === 'reasoning';
      mode = 'text';
      at = end + closer.length;
    }
  }
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

// One part that came out of the wrapped model's stream, as a tch event (or null).
function toEvent(part) {
  switch (part.type) {
    case 'text-delta':
      return { type: 'text-delta', delta: part.delta };
    case 'reasoning-delta':
      return { type: 'reasoning-delta', delta: part.delta };
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
      // text-start/-end, reasoning-start/-end (ignored by tch) and anything unexpected, verbatim
      return part;
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
  constructor(request) {
    const spec = DIALECTS[request.dialect];
    if (!spec) throw new Error(`dialect ${request.dialect} is not served`);
    this.parser = { in: 0, out: 0 }; // the protocol's stream parser
    this.reasoning = { in: 0, out: 0 }; // extractReasoningMiddleware's stage
    this.startWithReasoning = prefillEndsInReasoning(request.prefill ?? '', spec.markers);
    this.written = 0; // parts written into the model stream
    this.read = 0; // parts read out of the wrapped model's stream
    this.events = []; // tch events not yet sent
    this.reports = []; // onError reports not yet placed: { after: n parser parts, message }
    this.dead = false; // the stream errored: nothing more will come out
    this.textStarted = false;
    this.source = null;
    this.ready = this.open(spec, request.tools);
  }

  async open(spec, tools) {
    const source = new ReadableStream({
      start: (controller) => {
        this.source = controller;
      },
    });
    // The provider model: its doStream returns the stream the adapter writes into.
    const model = {
      specificationVersion: 'v3',
      provider: 'tch',
      modelId: 'tch-stream',
      supportedUrls: {},
      doGenerate: async () => {
        throw new Error('doGenerate is not used when streaming without toolChoice');
      },
      doStream: async () => ({ stream: source }),
    };
    // As the package's examples compose a reasoning model (README.md, "Reasoning"): the tool
    // middleware first in the array (outermost), extractReasoningMiddleware last (it wraps
    // the model, so it sees the model's text first).
    const middleware = [
      observedToolMiddleware(spec, this.parser),
      observedReasoningMiddleware(
        { tagName: spec.markers.think, startWithReasoning: this.startWithReasoning },
        this.reasoning,
      ),
    ];
    const wrapped = wrapLanguageModel({ model, middleware });
    // An AI SDK user's middleware onError (providerOptions.toolCallMiddleware.onError): the
    // parser's only report of a malformed or unfinished block. Placed among the output parts
    // at the position the parser had reached when it called it.
    const onError = (message) => {
      this.reports.push({ after: this.parser.out, message });
    };
    // What streamText hands the model: the call options, tools as function tools, no
    // toolChoice (so the streaming parser is used, not doGenerate).
    const { stream } = await wrapped.doStream({
      prompt: [],
      tools: functionTools(tools),
      providerOptions: { toolCallMiddleware: { onError } },
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

  // Let the pipeline settle after parts were written:
  //  1. turns of the event loop until the reasoning stage has taken every part written, then
  //     until the parser's `transform` has taken every part that stage gave it (the pipes
  //     between stages are promise-driven);
  //  2. one setTimeout(0): inside a call, hermes' `transform` schedules its tool-input
  //     progress on a setTimeout(0); ours is registered after it with the same delay, and
  //     Node runs timers of one delay in the order they were set, so the parser's callback
  //     has run when ours does (what a real model stream, whose chunks are a network read
  //     apart, gives it);
  //  3. turns of the event loop until every part the parser enqueued (counted when enqueued)
  //     has come out of the middleware's last stage to us.
  async settle() {
    while (!this.dead && this.reasoning.in < this.written) await nextTurn();
    while (!this.dead && this.parser.in < this.reasoning.out) await nextTurn();
    await nextTimerTick();
    while (!this.dead && this.read < this.parser.out) await nextTurn();
    this.placeReports();
  }

  write(part) {
    this.source.enqueue(part);
    this.written += 1;
  }

  async chunk(text) {
    await this.ready;
    if (!this.dead) {
      // An AI SDK provider opens its text part before the first content delta.
      if (!this.textStarted) {
        this.write({ type: 'text-start', id: 'txt-0' });
        this.textStarted = true;
      }
      this.write({ type: 'text-delta', id: 'txt-0', delta: text });
      await this.settle();
    }
    return this.events.splice(0);
  }

  async end() {
    await this.ready;
    if (!this.dead) {
      // A provider stream ends its text part, then sends `finish`, then closes: the parsers
      // flush what they hold (text, an unfinished call) on `finish`.
      if (this.textStarted) this.write({ type: 'text-end', id: 'txt-0' });
      this.write({
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

// P2.8: the standalone reproduction, reproduction.mjs.tmpl with the adapter's own prefill
// reading written in: a complete program that reads the dialect, prefill, chunks and tools as
// one JSON object on stdin.
function reproduction() {
  const program = readFileSync(new URL('./reproduction.mjs.tmpl', import.meta.url), 'utf8');
  return {
    language: 'js',
    program: program.replace('@ADAPTER_PREFILL_FUNCTION@', () => prefillEndsInReasoning.toString()),
  };
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
        send(out, {
          type: 'hello',
          protocol: 1,
          name: NAME,
          dialects: Object.keys(DIALECTS),
          reproduction: reproduction(),
        });
        break;
      case 'begin':
        session = new Session(request);
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
