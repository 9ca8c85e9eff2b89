// The holdpoint package's Claude Agent SDK adapter
// (resources/integrations/js/src/claude-agent-sdk.ts) with the real
// @anthropic-ai/claude-agent-sdk, which spawns the Claude Code CLI it ships
// (@anthropic-ai/claude-agent-sdk-linux-x64/claude, 2.1.330), against a
// real headless console and the scripted model (anthropic-model.mjs).
//
// Run by CTest (see tests/CMakeLists.txt) with HOLDPOINT_BIN and
// HOLDPOINT_CTL_BIN pointing at the built binaries.

import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { query } from '@anthropic-ai/claude-agent-sdk';
import { toolResults } from './anthropic-model.mjs';
import { Harness, bash } from './harness.mjs';
import { HoldpointClaudeAgentSdk } from '../../resources/integrations/js/dist/claude-agent-sdk.js';

const h = new Harness('holdpoint-agent-sdk-');
const { work, dataDir, model } = h;
const home = join(work, 'home');
const ctl = (...args) => h.ctl(...args);
const pendingCommand = (command) => h.pendingCommand(command);
const newDir = () => h.newDir();

// One query in `cwd`, as one console turn; its messages, and the error it
// ended with, if any.
async function runQuery(guard, cwd, prompt, extraOptions = {}) {
  const stderr = [];
  const messages = [];
  let error;
  await guard.startTurn();
  try {
    const q = query({
      prompt,
      options: {
        cwd,
        permissionMode: 'default',
        settingSources: [],
        canUseTool: guard.canUseTool,
        stderr: (d) => stderr.push(d),
        env: {
          PATH: process.env.PATH,
          ...h.claudeEnv(home),
        },
        ...extraOptions,
      },
    });
    for await (const m of q) messages.push(m);
  } catch (e) {
    error = e;
  } finally {
    await guard.endTurn();
  }
  return { messages, error, stderr: stderr.join(''), result: messages.find((m) => m.type === 'result') };
}

before(async () => {
  mkdirSync(join(home, '.claude'), { recursive: true });
  await h.start();
});

after(() => h.stop());

describe('canUseTool', () => {
  let guard;
  before(() => {
    guard = new HoldpointClaudeAgentSdk({ dataDir, agentName: 'sdk-test' });
  });
  after(async () => {
    await guard.close();
  });

  test('a call the policy allows runs', async () => {
    const cwd = newDir();
    model.script([[{ text: 'writing' }, bash('echo allowed > allowed.txt')], [{ text: 'done' }]]);
    const r = await runQuery(guard, cwd, 'write the file');
    assert.equal(r.error, undefined, r.stderr);
    assert.equal(readFileSync(join(cwd, 'allowed.txt'), 'utf8'), 'allowed\n');
    const [result] = toolResults(model.requests).values();
    assert.equal(result.isError, false);
    assert.equal(r.result.result, 'done');
  });

  test("the policy's deny reaches the model with its reason", async () => {
    const cwd = newDir();
    model.script([[bash('echo secret > secret.txt')], [{ text: 'understood' }]]);
    const r = await runQuery(guard, cwd, 'write the secret');
    assert.equal(r.error, undefined, r.stderr);
    assert.equal(existsSync(join(cwd, 'secret.txt')), false);
    const [result] = toolResults(model.requests).values();
    assert.equal(result.isError, true);
    assert.match(result.text, /Denied by Holdpoint: no secrets in files/);
  });

  test("a reviewer's edit runs the edited command", async () => {
    const cwd = newDir();
    model.script([[bash('echo asked > asked.txt')], [{ text: 'done' }]]);
    const running = runQuery(guard, cwd, 'write the file');
    const item = await pendingCommand('echo asked > asked.txt');
    assert.equal(item.turn_id, guard.turnId);
    await ctl('edit', item.id, '--args', JSON.stringify({ command: 'echo edited > edited.txt', description: 'edited' }));
    const r = await running;
    assert.equal(r.error, undefined, r.stderr);
    assert.equal(readFileSync(join(cwd, 'edited.txt'), 'utf8'), 'edited\n');
    assert.equal(existsSync(join(cwd, 'asked.txt')), false);
  });

  test("a reviewer's deny reaches the model with the reason", async () => {
    const cwd = newDir();
    model.script([[bash('echo nope > nope.txt')], [{ text: 'ok, not doing that' }]]);
    const running = runQuery(guard, cwd, 'write the file');
    const item = await pendingCommand('echo nope > nope.txt');
    await ctl('deny', item.id, '--reason', 'not that file, use notes.txt');
    const r = await running;
    assert.equal(r.error, undefined, r.stderr);
    assert.equal(existsSync(join(cwd, 'nope.txt')), false);
    const [result] = toolResults(model.requests).values();
    assert.equal(result.isError, true);
    assert.match(result.text, /Denied by Holdpoint: not that file, use notes\.txt/);
  });

  test('a halt interrupts the query: no later tool call runs', async () => {
    const cwd = newDir();
    model.script([
      [{ text: 'step one' }, bash('echo first > first.txt')],
      [bash('echo allowed after > after.txt')],
      [bash('echo allowed again > again.txt')],
      [{ text: 'finished' }],
    ]);
    const running = runQuery(guard, cwd, 'do the steps');
    const item = await pendingCommand('echo first > first.txt');
    await ctl('halt', item.id, '--reason', 'stop this run');
    const r = await running;
    for (const f of ['first.txt', 'after.txt', 'again.txt']) assert.equal(existsSync(join(cwd, f)), false, f);
    // interrupt: true ends the query; the model is not asked again.
    assert.equal(model.requests.length, 1);
    assert.equal(guard.halted, true);
    assert.equal(guard.haltReason, 'stop this run');
    // The CLI ends the query as aborted, with the call among its denials,
    // and the SDK's iterator throws that error result.
    assert.equal(r.result.subtype, 'error_during_execution');
    assert.equal(r.result.terminal_reason, 'aborted_tools');
    assert.deepEqual(r.result.permission_denials.map((d) => d.tool_input.command), ['echo first > first.txt']);
    assert.match(String(r.error?.message), /error result/);
  });

  test('the next query is a new turn and runs again', async () => {
    const cwd = newDir();
    model.script([[bash('echo allowed > again.txt')], [{ text: 'done' }]]);
    const r = await runQuery(guard, cwd, 'write it');
    assert.equal(r.error, undefined, r.stderr);
    assert.equal(readFileSync(join(cwd, 'again.txt'), 'utf8'), 'allowed\n');
  });
});

describe('PreToolUse hook callback', () => {
  let guard;
  before(() => {
    guard = new HoldpointClaudeAgentSdk({ dataDir, agentName: 'sdk-hook-test' });
  });
  after(async () => {
    await guard.close();
  });
  const viaHook = () => ({ canUseTool: undefined, hooks: guard.hooks() });

  test('a call the policy allows runs', async () => {
    const cwd = newDir();
    model.script([[bash('echo allowed > allowed.txt')], [{ text: 'done' }]]);
    const r = await runQuery(guard, cwd, 'write the file', viaHook());
    assert.equal(r.error, undefined, r.stderr);
    assert.equal(readFileSync(join(cwd, 'allowed.txt'), 'utf8'), 'allowed\n');
  });

  test("a reviewer's edit runs the edited command", async () => {
    const cwd = newDir();
    model.script([[bash('echo asked > asked.txt')], [{ text: 'done' }]]);
    const running = runQuery(guard, cwd, 'write the file', viaHook());
    const item = await pendingCommand('echo asked > asked.txt');
    assert.equal(item.context.permission_mode, 'default');
    await ctl('edit', item.id, '--args', JSON.stringify({ command: 'echo edited > edited.txt', description: 'edited' }));
    const r = await running;
    assert.equal(r.error, undefined, r.stderr);
    assert.equal(readFileSync(join(cwd, 'edited.txt'), 'utf8'), 'edited\n');
    assert.equal(existsSync(join(cwd, 'asked.txt')), false);
  });

  test("the policy's deny reaches the model with its reason", async () => {
    const cwd = newDir();
    model.script([[bash('echo secret > secret.txt')], [{ text: 'understood' }]]);
    const r = await runQuery(guard, cwd, 'write the secret', viaHook());
    assert.equal(r.error, undefined, r.stderr);
    assert.equal(existsSync(join(cwd, 'secret.txt')), false);
    const [result] = toolResults(model.requests).values();
    assert.equal(result.isError, true);
    assert.match(result.text, /Denied by Holdpoint: no secrets in files/);
  });

  test('a halt stops the query: no later tool call runs', async () => {
    const cwd = newDir();
    model.script([
      [bash('echo first > first.txt')],
      [bash('echo allowed after > after.txt')],
      [{ text: 'finished' }],
    ]);
    const running = runQuery(guard, cwd, 'do the steps', viaHook());
    const item = await pendingCommand('echo first > first.txt');
    await ctl('halt', item.id, '--reason', 'stop this run');
    await running;
    for (const f of ['first.txt', 'after.txt']) assert.equal(existsSync(join(cwd, f)), false, f);
    assert.equal(model.requests.length, 1); // continue:false: the model is not asked again
    assert.equal(guard.halted, true);
  });
});
