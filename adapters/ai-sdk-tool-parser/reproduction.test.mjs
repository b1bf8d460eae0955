// The reproduction the adapter's hello carries (specs/protocol.md P2.8): it renders to a
// program that runs on the installed package and prints the parsers' own stream parts.
//
//   npm ci --prefix adapters/ai-sdk-tool-parser
//   node --test adapters/ai-sdk-tool-parser/

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';

const here = (name) => fileURLToPath(new URL(name, import.meta.url));

function hello() {
  const done = spawnSync('node', [here('./adapter.mjs')], {
    input: '{"op":"hello","protocol":1}\n{"op":"bye"}\n',
    encoding: 'utf8',
  });
  assert.equal(done.status, 0, done.stderr);
  const lines = done.stdout.split('\n').filter(Boolean);
  assert.equal(lines.length, 1, 'the hello is one line');
  return JSON.parse(lines[0]);
}

// What tch does with the template: each placeholder replaced by JSON text.
function render(template, values) {
  return Object.entries(values).reduce(
    (text, [name, value]) => text.replaceAll(`{{${name}}}`, () => JSON.stringify(value)),
    template,
  );
}

test('the hello serves hermes, qwen3-coder and longcat and carries a complete template', () => {
  const reply = hello();
  assert.deepEqual(reply.dialects, ['hermes', 'qwen3-coder', 'longcat']);
  assert.equal(reply.reproduction.language, 'js');
  for (const name of ['DIALECT', 'PREFILL', 'CHUNKS', 'TOOLS']) {
    assert.ok(reply.reproduction.template.includes(`{{${name}}}`), name);
  }
  assert.ok(!reply.reproduction.template.includes('@ADAPTER_'));
});

const TOOLS = [{ name: 'get_weather', description: 'Weather.', inputSchema: { type: 'object', properties: { city: { type: 'string' } }, additionalProperties: false } }];

// The rendered program's output for one reply.
function runReproduction(values) {
  const program = render(hello().reproduction.template, { ...values, TOOLS });
  // Next to node_modules, so that its imports resolve as in a maintainer's project.
  const file = here(`./.reproduction-test-${process.pid}.mjs`);
  writeFileSync(file, program);
  try {
    const done = spawnSync('node', [file], { encoding: 'utf8', timeout: 60000 });
    assert.equal(done.status, 0, done.stderr);
    return done.stdout;
  } finally {
    rmSync(file, { force: true });
  }
}

const PARIS_CALL = /"type":"tool-call","toolCallId":"[^"]*","toolName":"get_weather","input":"\{\\"city\\":\\"Paris\\"\}"/;

test('it renders and runs', () => {
  const stdout = runReproduction({
    DIALECT: 'hermes',
    PREFILL: '<think>\n',
    CHUNKS: ['a plan</think>Sure. <tool_call>{"name": "get_weather", ', '"arguments": {"city": "Paris"}}</tool_call>'],
  });
  assert.match(stdout, /startWithReasoning: true/);
  assert.match(stdout, /"type":"reasoning-delta","delta":"a plan"/);
  assert.match(stdout, PARIS_CALL);
  assert.match(stdout, /end of stream/);
});

test('it renders and runs for longcat, with LongCat\'s tags', () => {
  const stdout = runReproduction({
    DIALECT: 'longcat',
    PREFILL: '<longcat_assistant><longcat_think>\n',
    CHUNKS: ['a plan</longcat_think>Sure. <longcat_tool_call>{"name": "get_weather", ', '"arguments": {"city": "Paris"}}</longcat_tool_call>'],
  });
  assert.match(stdout, /tagName: 'longcat_think', startWithReasoning: true/);
  assert.match(stdout, /"type":"reasoning-delta","delta":"a plan"/);
  assert.match(stdout, PARIS_CALL);
  assert.doesNotMatch(stdout, /part .*longcat_tool_call/); // no markup comes out as text
});
