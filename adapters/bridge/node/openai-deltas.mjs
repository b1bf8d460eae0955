// OpenAI chat-completion deltas -> tch events, read as a real client reads them.
//
// An engine's server (SGLang, vLLM, ...) turns its tool-call parser's output into OpenAI
// chat-completion chunks; an app sees the calls only as its client library assembles them from
// those chunks. This module is that client: the AI SDK's `@ai-sdk/openai-compatible` chat model
// (vercel/ai, packages/openai-compatible/src/chat/openai-compatible-chat-language-model.ts,
// `OpenAICompatibleChatLanguageModel.doStream`, the AI SDK v5 / LanguageModelV2 version), whose
// reading of `choices[0].delta` this file reproduces rule for rule. See ../README.md for the
// mapping table; the Python twin is ../python/openai_deltas.py (same behaviour, same tests).
//
// No dependencies, Node 18+, ES module.
//
// API
// ---
// new OpenAIDeltas()  -- one per chat-completion stream.
//   .delta(d) -> event[]  d is one chunk's `choices[0].delta` object (`content`,
//                         `reasoning_content` or `reasoning`, `tool_calls`, `role`).
//   .finish() -> event[]  the stream's end (the client's `flush`): every unfinished call
//                         completes with its arguments string as it is.
//   Events are tch events (specs/events.md); `tool-call.input` is the arguments STRING, as the
//   AI SDK hands it on (tch reads a string input as JSON).
//
// serve(name, dialects, onBegin, onChunk, onEnd) -> Promise  -- the candidate protocol loop
// (specs/protocol.md) on stdin/stdout; the callbacks may be async:
//   hello -> {"type":"hello","protocol":1,"name":name,"dialects":dialects}
//   begin -> state = await onBegin(request)   the whole begin request ("stream", "dialect",
//                                             "prefill" if any, "tools"); a fresh OpenAIDeltas
//   chunk -> await onChunk(state, text)       -> delta objects; their events, then sync
//   end   -> await onEnd(state)               -> delta objects; their events, finish()'s,
//                                             then done
//   bye   -> resolves
// An exception thrown by a callback (the engine's parser) is NOT caught into an event: its stack
// goes to stderr and the process exits with status 1, and tch judges `crash`, as the server
// would fail that request. Only what the CLIENT reports (a malformed delta) is an `error` event.

import { createInterface } from "node:readline";

// JavaScript array indexes: only these are visited by `toolCalls.filter(...)` at flush.
const MAX_ARRAY_INDEX = 2 ** 32 - 2;

// provider-utils `isParsableJson`: `secureJsonParse(text)` does not throw, that is `JSON.parse`
// plus the filter of packages/provider-utils/src/secure-json-parse.ts (an own `__proto__` key,
// or a `constructor` key whose value is an object with an own `prototype` key, is refused).
export function isParsableJson(text) {
  let value;
  try {
    value = JSON.parse(text);
  } catch {
    return false;
  }
  let next = value !== null && typeof value === "object" ? [value] : [];
  while (next.length) {
    const nodes = next;
    next = [];
    for (const node of nodes) {
      if (Object.prototype.hasOwnProperty.call(node, "__proto__")) return false;
      if (
        Object.prototype.hasOwnProperty.call(node, "constructor") &&
        node.constructor !== null &&
        typeof node.constructor === "object" &&
        Object.prototype.hasOwnProperty.call(node.constructor, "prototype")
      ) {
        return false;
      }
      for (const key in node) {
        const child = node[key];
        if (child && typeof child === "object") next.push(child);
      }
    }
  }
  return true;
}

const isStrOrNull = (value) => value == null || typeof value === "string";

// The chunk schema of doStream (`createOpenAICompatibleChatChunkSchema`, zod) for the `delta`:
// what is wrong with it, or null.
function schemaProblem(delta) {
  if (delta == null) return null;
  if (typeof delta !== "object" || Array.isArray(delta)) return "delta: expected object";
  if (delta.role != null && delta.role !== "assistant") return "delta.role: expected 'assistant'";
  for (const key of ["content", "reasoning_content", "reasoning"]) {
    if (!isStrOrNull(delta[key])) return `delta.${key}: expected string`;
  }
  const calls = delta.tool_calls;
  if (calls == null) return null;
  if (!Array.isArray(calls)) return "delta.tool_calls: expected array";
  for (let i = 0; i < calls.length; i++) {
    const where = `delta.tool_calls[${i}]`;
    const call = calls[i];
    if (call === null || typeof call !== "object" || Array.isArray(call)) return `${where}: expected object`;
    if (typeof call.index !== "number") return `${where}.index: expected number`;
    if (!isStrOrNull(call.id)) return `${where}.id: expected string`;
    const fn = call.function;
    if (fn === null || typeof fn !== "object" || Array.isArray(fn)) return `${where}.function: expected object`;
    for (const key of ["name", "arguments"]) {
      if (!isStrOrNull(fn[key])) return `${where}.function.${key}: expected string`;
    }
  }
  return null;
}

const errorEvent = (errorText) => ({ type: "error", errorText });

function complete(call) {
  call.finished = true;
  return [
    { type: "tool-input-end", id: call.id },
    { type: "tool-call", toolCallId: call.id, toolName: call.name, input: call.arguments },
  ];
}

// One stream's client state: `toolCalls` of doStream, keyed by `index`.
export class OpenAIDeltas {
  constructor() {
    this.calls = new Map(); // index -> {id, name, arguments, finished}
    this.dead = false; // the client threw: its stream is errored, nothing more comes out
  }

  delta(d) {
    if (this.dead) return [];
    const problem = schemaProblem(d);
    if (problem !== null) {
      // `!chunk.success`: an `error` part, the chunk is skipped, the stream goes on.
      return [errorEvent(`Type validation failed: ${problem}. Value: ${JSON.stringify(d)}`)];
    }
    if (d == null) return [];
    const events = [];
    // "enqueue reasoning before text deltas"
    const reasoning = d.reasoning_content ?? d.reasoning;
    if (reasoning) events.push({ type: "reasoning-delta", delta: reasoning });
    if (d.content) events.push({ type: "text-delta", delta: d.content });
    for (const toolDelta of d.tool_calls ?? []) {
      const index = toolDelta.index;
      const fn = toolDelta.function;
      let call = this.calls.get(index);
      if (call === undefined) {
        // A new call: doStream throws InvalidResponseDataError without `id` or
        // `function.name`; the throw errors the TransformStream, so the app gets the error and
        // nothing after it (no later part, no flush).
        if (toolDelta.id == null) return this.#die(events, "Expected 'id' to be a string.", toolDelta);
        if (fn.name == null) return this.#die(events, "Expected 'function.name' to be a string.", toolDelta);
        call = { id: toolDelta.id, name: fn.name, arguments: fn.arguments ?? "", finished: false };
        this.calls.set(index, call);
        events.push({ type: "tool-input-start", id: call.id, toolName: call.name });
        // "send delta if the argument text has already started"
        if (call.arguments.length > 0) events.push({ type: "tool-input-delta", id: call.id, delta: call.arguments });
        // "some providers send the full tool call in one chunk"
        if (isParsableJson(call.arguments)) events.push(...complete(call));
        continue;
      }
      // An existing call: merged if not finished; `id` and `name` of this delta unread.
      if (call.finished) continue;
      if (fn.arguments != null) call.arguments += fn.arguments;
      events.push({ type: "tool-input-delta", id: call.id, delta: fn.arguments ?? "" });
      if (isParsableJson(call.arguments)) events.push(...complete(call));
    }
    return events;
  }

  // `flush`: every unfinished call, in array (index) order, completes as it is.
  finish() {
    if (this.dead) return [];
    const indexes = [...this.calls.keys()]
      .filter((i) => Number.isInteger(i) && i >= 0 && i <= MAX_ARRAY_INDEX)
      .sort((a, b) => a - b);
    const events = [];
    for (const index of indexes) {
      const call = this.calls.get(index);
      if (!call.finished) events.push(...complete(call));
    }
    return events;
  }

  #die(events, message, toolDelta) {
    this.dead = true;
    return [...events, errorEvent(`InvalidResponseDataError: ${message} Data: ${JSON.stringify(toolDelta)}`)];
  }
}

// The candidate protocol loop (specs/protocol.md), until `bye` or end of input.
export async function serve(name, dialects, onBegin, onChunk, onEnd) {
  const send = (message) => process.stdout.write(JSON.stringify(message) + "\n");
  const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
  let state = null;
  let deltas = null;
  try {
    for await (const line of lines) {
      if (!line.trim()) continue;
      const request = JSON.parse(line);
      const op = request.op;
      if (op === "hello") {
        send({ type: "hello", protocol: 1, name, dialects: [...dialects] });
      } else if (op === "begin") {
        deltas = new OpenAIDeltas();
        state = await onBegin(request);
      } else if (op === "chunk") {
        for (const d of (await onChunk(state, request.text)) ?? []) {
          for (const event of deltas.delta(d)) send(event);
        }
        send({ type: "sync" });
      } else if (op === "end") {
        for (const d of (await onEnd(state)) ?? []) {
          for (const event of deltas.delta(d)) send(event);
        }
        for (const event of deltas.finish()) send(event);
        send({ type: "done" });
        state = deltas = null;
      } else if (op === "bye") {
        break;
      } else {
        send(errorEvent(`unsupported request ${JSON.stringify(op)}`));
      }
    }
  } catch (err) {
    // The engine failed: die as its server would fail the request (tch judges `crash`).
    process.stderr.write(`${err?.stack ?? err}\n`);
    process.exit(1);
  }
  lines.close();
}
