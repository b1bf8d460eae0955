// Unit tests of openai-deltas.mjs: hand-reasoned delta sequences and the events the AI SDK's
// openai-compatible client (doStream) makes of them. The Python tests
// (../python/test_openai_deltas.py) hold the same cases.
//
//     node --test adapters/bridge/node/      # from the repository root

import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, it } from "node:test";
import { OpenAIDeltas, isParsableJson } from "./openai-deltas.mjs";

const text = (delta) => ({ type: "text-delta", delta });
const reasoning = (delta) => ({ type: "reasoning-delta", delta });
const start = (id, toolName) => ({ type: "tool-input-start", id, toolName });
const delta = (id, d) => ({ type: "tool-input-delta", id, delta: d });
const end = (id) => ({ type: "tool-input-end", id });
const call = (toolCallId, toolName, input) => ({ type: "tool-call", toolCallId, toolName, input });

function tool(index, id, name, args) {
  const fn = {};
  if (name != null) fn.name = name;
  if (args != null) fn.arguments = args;
  const item = { index, function: fn };
  if (id != null) item.id = id;
  return item;
}

// Every delta in order, then finish: the events, one list per delta, and finish's last.
function run(...deltas) {
  const client = new OpenAIDeltas();
  return [...deltas.map((d) => client.delta(d)), client.finish()];
}

describe("text", () => {
  it("content is text", () => {
    assert.deepEqual(run({ role: "assistant", content: "Hel" }, { content: "lo" }), [[text("Hel")], [text("lo")], []]);
  });
  it("empty and null content give nothing", () => {
    assert.deepEqual(run({ content: "" }, { content: null }, {}), [[], [], [], []]);
  });
  it("reasoning_content is reasoning", () => {
    assert.deepEqual(run({ reasoning_content: "think" }, { content: "answer" }), [
      [reasoning("think")],
      [text("answer")],
      [],
    ]);
  });
  it("the reasoning field is reasoning too", () => {
    assert.deepEqual(run({ reasoning: "hmm" }), [[reasoning("hmm")], []]);
  });
  it("reasoning_content wins over reasoning unless null", () => {
    assert.deepEqual(
      run({ reasoning_content: "a", reasoning: "b" }, { reasoning_content: "", reasoning: "c" }),
      [[reasoning("a")], [], []],
    );
  });
  it("reasoning comes before content of the same delta", () => {
    assert.deepEqual(run({ content: "text", reasoning_content: "why" }), [[reasoning("why"), text("text")], []]);
  });
});

describe("calls", () => {
  it("a call in one delta is complete at once", () => {
    assert.deepEqual(run({ tool_calls: [tool(0, "call_1", "get_weather", '{"city": "Paris"}')] }, { content: "after" }), [
      [
        start("call_1", "get_weather"),
        delta("call_1", '{"city": "Paris"}'),
        end("call_1"),
        call("call_1", "get_weather", '{"city": "Paris"}'),
      ],
      [text("after")],
      [],
    ]);
  });
  it("a call streamed in fragments completes when its JSON parses", () => {
    assert.deepEqual(
      run(
        { tool_calls: [tool(0, "call_1", "f")] },
        { tool_calls: [tool(0, null, null, '{"a": ')] },
        { tool_calls: [tool(0, null, null, "1")] },
        { tool_calls: [tool(0, null, null, "}")] },
      ),
      [
        [start("call_1", "f")],
        [delta("call_1", '{"a": ')],
        [delta("call_1", "1")],
        [delta("call_1", "}"), end("call_1"), call("call_1", "f", '{"a": 1}')],
        [],
      ],
    );
  });
  it("arguments after completion are ignored", () => {
    assert.deepEqual(
      run(
        { tool_calls: [tool(0, "call_1", "f", "{}")] },
        { tool_calls: [tool(0, null, null, ', "late": 1}')] },
        { tool_calls: [tool(0, "call_2", "g", "{}")] },
      ),
      [[start("call_1", "f"), delta("call_1", "{}"), end("call_1"), call("call_1", "f", "{}")], [], [], []],
    );
  });
  it("a number completes a call early", () => {
    assert.deepEqual(
      run(
        { tool_calls: [tool(0, "c", "f", "")] },
        { tool_calls: [tool(0, null, null, "1")] },
        { tool_calls: [tool(0, null, null, "2")] },
      ),
      [[start("c", "f")], [delta("c", "1"), end("c"), call("c", "f", "1")], [], []],
    );
  });
  it("two calls by index", () => {
    assert.deepEqual(
      run(
        { tool_calls: [tool(0, "a", "f", '{"x":')] },
        { tool_calls: [tool(1, "b", "g", '{"y":')] },
        { tool_calls: [tool(1, null, null, "2}"), tool(0, null, null, "1}")] },
      ),
      [
        [start("a", "f"), delta("a", '{"x":')],
        [start("b", "g"), delta("b", '{"y":')],
        [delta("b", "2}"), end("b"), call("b", "g", '{"y":2}'), delta("a", "1}"), end("a"), call("a", "f", '{"x":1}')],
        [],
      ],
    );
  });
  it("a later delta of an open call reads arguments only", () => {
    assert.deepEqual(run({ tool_calls: [tool(0, "a", "f", "{")] }, { tool_calls: [tool(0, "other", "g", "}")] }), [
      [start("a", "f"), delta("a", "{")],
      [delta("a", "}"), end("a"), call("a", "f", "{}")],
      [],
    ]);
  });
  it("a delta without arguments streams an empty input delta", () => {
    assert.deepEqual(run({ tool_calls: [tool(0, "a", "f")] }, { tool_calls: [tool(0)] }), [
      [start("a", "f")],
      [delta("a", "")],
      [end("a"), call("a", "f", "")],
    ]);
  });
  it("ids are kept exactly", () => {
    const events = run({ tool_calls: [tool(0, "functions.get_weather:0", "get_weather", "{}")] });
    assert.equal(events[0].at(-1).toolCallId, "functions.get_weather:0");
    assert.equal(events[0][0].id, "functions.get_weather:0");
  });
  it("an empty id or name is a string", () => {
    assert.deepEqual(run({ tool_calls: [tool(0, "", "", "{}")] }), [
      [start("", ""), delta("", "{}"), end(""), call("", "", "{}")],
      [],
    ]);
  });
});

describe("finish", () => {
  it("an unfinished call without arguments finishes with empty input", () => {
    assert.deepEqual(run({ tool_calls: [tool(0, "a", "f")] }), [[start("a", "f")], [end("a"), call("a", "f", "")]]);
  });
  it("an unfinished call finishes with its non-JSON prefix", () => {
    assert.deepEqual(run({ tool_calls: [tool(0, "a", "f", '{"city": "Par')] }), [
      [start("a", "f"), delta("a", '{"city": "Par')],
      [end("a"), call("a", "f", '{"city": "Par')],
    ]);
  });
  it("unfinished calls finish in index order", () => {
    assert.deepEqual(run({ tool_calls: [tool(2, "c", "h", "{")] }, { tool_calls: [tool(0, "a", "f", "[")] }).at(-1), [
      end("a"),
      call("a", "f", "["),
      end("c"),
      call("c", "h", "{"),
    ]);
  });
  it("finished calls are not finished again", () => {
    assert.deepEqual(run({ tool_calls: [tool(0, "a", "f", "{}"), tool(1, "b", "g", "{")] }).at(-1), [
      end("b"),
      call("b", "g", "{"),
    ]);
  });
});

describe("client errors", () => {
  it("a first delta without id is an error and ends the stream", () => {
    const client = new OpenAIDeltas();
    const events = client.delta({ content: "hi", tool_calls: [tool(0, null, "f", "{}")] });
    assert.deepEqual(events[0], text("hi"));
    assert.equal(events.length, 2);
    assert.equal(events[1].type, "error");
    assert.match(events[1].errorText, /Expected 'id' to be a string\./);
    assert.deepEqual(client.delta({ content: "more" }), []);
    assert.deepEqual(client.finish(), []);
  });
  it("a first delta without name is an error", () => {
    const client = new OpenAIDeltas();
    const events = client.delta({ tool_calls: [tool(0, "a", null, "{}")] });
    assert.deepEqual(
      events.map((e) => e.type),
      ["error"],
    );
    assert.match(events[0].errorText, /Expected 'function\.name' to be a string\./);
    assert.deepEqual(client.finish(), []);
  });
  it("an error after a started call leaves it unfinished", () => {
    const client = new OpenAIDeltas();
    assert.deepEqual(client.delta({ tool_calls: [tool(0, "a", "f", "{")] }), [start("a", "f"), delta("a", "{")]);
    assert.deepEqual(
      client.delta({ tool_calls: [tool(1, null, null, "{}")] }).map((e) => e.type),
      ["error"],
    );
    assert.deepEqual(client.finish(), []);
  });
  it("a delta that fails the schema is skipped with an error", () => {
    const client = new OpenAIDeltas();
    const events = client.delta({ content: "lost", tool_calls: [{ id: "a", function: { name: "f" } }] });
    assert.deepEqual(
      events.map((e) => e.type),
      ["error"],
    );
    assert.match(events[0].errorText, /index/);
    assert.deepEqual(client.delta({ content: "kept" }), [text("kept")]);
  });
});

describe("isParsableJson", () => {
  it("follows JSON.parse", () => {
    for (const good of ["{}", ' {"a": [1, 2.5e3, null, true]} ', '"s"', "1", "-0", "[]", '"\\ud800"']) {
      assert.ok(isParsableJson(good), good);
    }
    for (const bad of ["", " ", "{", "NaN", "[Infinity]", "-Infinity", "{'a': 1}", "\ufeff{}", "{} x", "01", '{"a": 1,}', "\u00a0{}"]) {
      assert.ok(!isParsableJson(bad), bad);
    }
  });
  it("refuses prototype keys as secureJsonParse does", () => {
    assert.ok(!isParsableJson('{"__proto__": {}}'));
    assert.ok(!isParsableJson('{"a": [{"\\u005f_proto__": 1}]}'));
    assert.ok(!isParsableJson('{"constructor": {"prototype": {}}}'));
    assert.ok(isParsableJson('{"constructor": {"name": "x"}}'));
    assert.ok(isParsableJson('{"constructor": "prototype"}'));
    assert.ok(isParsableJson('{"constructor": {"prototype": 1}, "constructor": 2}'));
  });
});

describe("serve", () => {
  const module = fileURLToPath(new URL("./openai-deltas.mjs", import.meta.url));
  const engine = `
import { serve } from ${JSON.stringify(module)};
await serve("test-engine", ["hermes", "kimi-k2"],
  (request) => ({ dialect: request.dialect, prefill: request.prefill }),
  async (state, text) => {
    if (text === "boom") throw new Error("the engine's parser failed");
    if (text.startsWith("call")) return [{ tool_calls: [{ index: 0, id: "c1", function: { name: "f", arguments: "{" } }] }];
    return [{ content: state.dialect + ":" + text }];
  },
  (state) => [{ tool_calls: [{ index: 0, function: { arguments: "}" } }] }, { content: String(state.prefill) }]);
`;
  const converse = (requests) =>
    spawnSync(process.execPath, ["--input-type=module", "-e", engine], {
      input: requests.map((r) => JSON.stringify(r) + "\n").join(""),
      encoding: "utf8",
      timeout: 30000,
    });

  it("answers a stream", () => {
    const done = converse([
      { op: "hello", protocol: 1 },
      { op: "begin", stream: "s1", dialect: "kimi-k2", prefill: "<think>", tools: [] },
      { op: "chunk", stream: "s1", text: "hi" },
      { op: "chunk", stream: "s1", text: "call" },
      { op: "end", stream: "s1" },
      { op: "bye" },
    ]);
    assert.equal(done.status, 0, done.stderr);
    assert.deepEqual(
      done.stdout
        .split("\n")
        .filter(Boolean)
        .map((line) => JSON.parse(line)),
      [
        { type: "hello", protocol: 1, name: "test-engine", dialects: ["hermes", "kimi-k2"] },
        text("kimi-k2:hi"),
        { type: "sync" },
        start("c1", "f"),
        delta("c1", "{"),
        { type: "sync" },
        delta("c1", "}"),
        end("c1"),
        call("c1", "f", "{}"),
        text("<think>"),
        { type: "done" },
      ],
    );
  });
  it("crashes on an engine exception", () => {
    const done = converse([
      { op: "hello", protocol: 1 },
      { op: "begin", stream: "s1", dialect: "hermes", tools: [] },
      { op: "chunk", stream: "s1", text: "boom" },
      { op: "end", stream: "s1" },
    ]);
    assert.notEqual(done.status, 0);
    assert.match(done.stderr, /the engine's parser failed/);
    assert.doesNotMatch(done.stdout, /sync/);
  });
});
