// The reproduction the adapter's hello carries (specs/protocol.md P2.8): a program that reads one
// reply as JSON on stdin, runs on the installed package and prints the parsers' own stream parts.
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

test('the hello serves hermes, qwen3-coder and longcat and carries a complete program', () => {
  const reply = hello();
  assert.deepEqual(reply.dialects, ['hermes', 'qwen3-coder', 'longcat']);
  assert.deepEqual(Object.keys(reply.reproduction).sort(), ['language', 'program']);
  assert.equal(reply.reproduction.language, 'js');
  assert.ok(!reply.reproduction.program.includes('{{'), 'no placeholder: it reads stdin');
  assert.ok(!reply.reproduction.program.includes('@ADAPTER_'));
});

const TOOLS = [{ name: 'get_weather', description: 'Weather.', inputSchema: { type: 'object', properties: { city: { type: 'string' } }, additionalProperties: false } }];

// The program's output for one reply, given on stdin as a bug page's command gives it.
function runReproduction(reply) {
  const program = hello().reproduction.program;
  // Next to node_modules, so that its imports resolve as in a maintainer's project.
  const file = here(`./.reproduction-test-${process.pid}.mjs`);
  writeFileSync(file, program);
  try {
    const input = JSON.stringify({ ...reply, tools: TOOLS });
    const done = spawnSync('node', [file], { input, encoding: 'utf8', timeout: 60000 });
    assert.equal(done.status, 0, done.stderr);
    return done.stdout;
  } finally {
    rmSync(file, { force: true });
  }
}

const PARIS_CALL = /"type":"tool-call","toolCallId":"[^"]*","toolName":"get_weather","input":"\{\\"city\\":\\"Paris\\"\}"/;

test('it renders and runs', () => {
  const stdout = runReproduction({
    dialect: 'hermes',
    prefill: '<think>\n',
    chunks: ['a plan</think>Sure. <tool_call>{"name": "get_weather", ', '"arguments": {"city": "Paris"}}</tool_call>'],
  });
  assert.match(stdout, /startWithReasoning: true/);
  assert.match(stdout, /"type":"reasoning-delta","delta":"a plan"/);
  assert.match(stdout, PARIS_CALL);
  assert.match(stdout, /end of stream/);
});

test('it renders and runs for longcat, with LongCat\'s tags', () => {
  const stdout = runReproduction({
    dialect: 'longcat',
    prefill: '<longcat_assistant><longcat_think>\n',
    chunks: ['a plan</longcat_think>Sure. <longcat_tool_call>{"name": "get_weather", ', '"arguments": {"city": "Paris"}}</longcat_tool_call>'],
  });
  assert.match(stdout, /tagName: 'longcat_think', startWithReasoning: true/);
  assert.match(stdout, /"type":"reasoning-delta","delta":"a plan"/);
  assert.match(stdout, PARIS_CALL);
  assert.doesNotMatch(stdout, /part .*longcat_tool_call/); // no markup comes out as text
});
