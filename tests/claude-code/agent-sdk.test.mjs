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
import { mkdtempSync, mkdirSync, writeFileSync, existsSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { query } from '@anthropic-ai/claude-agent-sdk';
import { ScriptedModel, toolResults } from './anthropic-model.mjs';
import { Console } from '../common/console.mjs';
import { HoldpointClaudeAgentSdk } from '../../resources/integrations/js/dist/claude-agent-sdk.js';

const HOLDPOINT = process.env.HOLDPOINT_BIN;
const CTL = process.env.HOLDPOINT_CTL_BIN;
assert.ok(HOLDPOINT && CTL, 'HOLDPOINT_BIN and HOLDPOINT_CTL_BIN must be set');

const work = realpathSync(mkdtempSync(join(tmpdir(), 'holdpoint-agent-sdk-')));
const dataDir = join(work, 'data');
const home = join(work, 'home');
const holdpoint = new Console({ holdpoint: HOLDPOINT, ctl: CTL, dataDir });
const ctl = (...args) => holdpoint.ctl(...args);
const model = new ScriptedModel();

function pendingCommand(command) {
  return holdpoint.pendingItem((i) => i.tool_name === 'Bash' && i.args.command === command, 30000);
}

function bash(command) {
  return { tool: 'Bash', input: { command, description: 'scripted' } };
}

let n = 0;
function newDir() {
  const dir = join(work, `run-${++n}`);
  mkdirSync(dir);
  return dir;
}

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
          HOME: home,
          CLAUDE_CONFIG_DIR: join(home, '.claude'),
          ANTHROPIC_BASE_URL: model.url,
          ANTHROPIC_API_KEY: '',
          ANTHROPIC_AUTH_TOKEN: 'holdpoint-test-dummy',
          DISABLE_TELEMETRY: '1',
          DISABLE_ERROR_REPORTING: '1',
          DISABLE_AUTOUPDATER: '1',
          CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
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
  const policy = join(work, 'policy.json');
  writeFileSync(policy, JSON.stringify({
    default: 'ask',
    guardrails: [{ type: 'rules', rules: [
      { match: 'Bash(echo allowed*)', action: 'allow', reason: 'echo is fine' },
      { match: 'Bash(echo secret*)', action: 'deny', reason: 'no secrets in files' },
    ] }],
  }));
  await holdpoint.start(policy);
  await model.start();
});

after(async () => {
  await model.close();
  await holdpoint.stop();
  rmSync(work, { recursive: true, force: true });
});

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
