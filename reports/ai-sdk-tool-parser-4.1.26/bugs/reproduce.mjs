// A standalone reproduction: @ai-sdk-tool/parser 4.1.26's preconfigured middleware, composed
// with the `ai` package's extractReasoningMiddleware as the package's reasoning examples
// compose it, fed one model reply chunk by chunk as `text-delta` parts of a model stream.
//
//   npm i @ai-sdk-tool/parser@4.1.26 ai@6.0.206     (in this file's folder; Node 18 or later)
//   node reproduce.mjs < input.json
//
// It reads the reply as one JSON object on stdin (tch's specs/protocol.md P2.8):
// {"dialect": tch's dialect name, "prefill": the generation prompt the reply continues (the chat
// template's end), "chunks": the reply's chunks in order, "tools": the tools the request declares,
// [{"name", "description", "inputSchema"}]}; a tch bug page's command gives it.
//
// It prints every part the wrapped model's stream gives after each chunk, and at the end,
// raw (AI SDK LanguageModelV3 stream parts), and every call of the middleware's onError.

import {
  createToolMiddleware,
  hermesProtocol,
  hermesToolMiddleware,
  qwen3CoderToolMiddleware,
} from '@ai-sdk-tool/parser';
import { extractReasoningMiddleware, wrapLanguageModel } from 'ai';

const input = [];
for await (const data of process.stdin) input.push(data);
const { dialect: DIALECT, prefill: PREFILL, chunks: CHUNKS, tools: TOOLS } = JSON.parse(
  Buffer.concat(input).toString('utf8'),
);

// LongCat: the package's hermesProtocol with LongCat's call tags (its HermesProtocolOptions).
const LONGCAT = { toolCallStart: '<longcat_tool_call>', toolCallEnd: '</longcat_tool_call>' };

// The tool middleware per dialect, and the model family's reasoning tag and call tags.
const MIDDLEWARE = {
  hermes: {
    tools: hermesToolMiddleware,
    markers: { think: 'think', callStart: '<tool_call>', callEnd: '</tool_call>' },
  },
  'qwen3-coder': {
    tools: qwen3CoderToolMiddleware,
    markers: { think: 'think', callStart: '<tool_call>', callEnd: '</tool_call>' },
  },
  longcat: {
    tools: createToolMiddleware({
      protocol: hermesProtocol(LONGCAT),
      toolSystemPromptTemplate: (tools) => `Tools: ${JSON.stringify(tools)}`,
    }),
    markers: { think: 'longcat_think', callStart: LONGCAT.toolCallStart, callEnd: LONGCAT.toolCallEnd },
  },
};

// Does the prefill leave the reply inside the reasoning tag (a chat template that opened
// thinking)? Then extractReasoningMiddleware gets startWithReasoning: true.
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

const spec = MIDDLEWARE[DIALECT];
const startWithReasoning = prefillEndsInReasoning(PREFILL, spec.markers);

let source;
const model = {
  specificationVersion: 'v3',
  provider: 'repro',
  modelId: 'repro',
  supportedUrls: {},
  doGenerate: async () => {
    throw new Error('not used');
  },
  doStream: async () => ({
    stream: new ReadableStream({
      start(controller) {
        source = controller;
      },
    }),
  }),
};
// The tool middleware outermost, extractReasoningMiddleware next to the model (it sees the
// model's text first), as the package's reasoning examples order them.
const tagName = spec.markers.think;
const middleware = [spec.tools, extractReasoningMiddleware({ tagName, startWithReasoning })];
console.log(`${DIALECT}: middleware + extractReasoningMiddleware({tagName: '${tagName}', startWithReasoning: ${startWithReasoning}})`);
const wrapped = wrapLanguageModel({ model, middleware });

const show = (part) =>
  JSON.stringify(part, (key, value) => (value instanceof Error ? `Error: ${value.message}` : value));
const { stream } = await wrapped.doStream({
  prompt: [],
  tools: TOOLS.map((tool) => ({
    type: 'function',
    name: tool.name,
    description: tool.description ?? '',
    inputSchema: tool.inputSchema ?? { type: 'object' },
  })),
  providerOptions: {
    toolCallMiddleware: {
      onError: (message, metadata) =>
        console.log(`  onError(${JSON.stringify(message)}${metadata === undefined ? '' : `, ${show(metadata)}`})`),
    },
  },
});
const reader = stream.getReader();
const done = (async () => {
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return;
    console.log(`  part ${show(value)}`);
  }
})();

// Let the pipeline settle: its stages are promise-driven, and the hermes parser streams its
// tool-input progress from a setTimeout(0) (a real model's chunks are a network read apart).
async function settle() {
  for (let i = 0; i < 50; i++) await new Promise((resolve) => setImmediate(resolve));
  await new Promise((resolve) => setTimeout(resolve, 0));
  for (let i = 0; i < 50; i++) await new Promise((resolve) => setImmediate(resolve));
}

source.enqueue({ type: 'text-start', id: 'txt-0' });
for (const [i, delta] of CHUNKS.entries()) {
  console.log(`chunk ${i}: ${JSON.stringify(delta)}`);
  source.enqueue({ type: 'text-delta', id: 'txt-0', delta });
  await settle();
}
console.log('end of stream: text-end, finish, close');
source.enqueue({ type: 'text-end', id: 'txt-0' });
source.enqueue({
  type: 'finish',
  finishReason: { unified: 'stop', raw: 'stop' },
  usage: {
    inputTokens: { total: 0, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
    outputTokens: { total: 0, text: undefined, reasoning: undefined },
  },
});
source.close();
await done;
