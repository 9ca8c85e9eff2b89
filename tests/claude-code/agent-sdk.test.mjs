// SPDX-License-Identifier: Apache-2.0
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
import { waitFor } from '../common/console.mjs';
import { HoldpointClaudeAgentSdk } from 'holdpoint/claude-agent-sdk';
import { ConsoleUnavailableError } from 'holdpoint';

const h = new Harness('holdpoint-agent-sdk-');
const { work, dataDir, model } = h;
const home = join(work, 'home');
const ctl = (...args) => h.ctl(...args);
const pendingCommand = (command) => h.pendingCommand(command);
const newDir = () => h.newDir();

// One query in `cwd`, as one console turn (`turn: false`: outside any);
// its messages, and the error it ended with, if any.
async function runQuery(guard, cwd, prompt, { turn = true, ...extraOptions } = {}) {
  const stderr = [];
  const messages = [];
  let error;
  if (turn) await guard.startTurn();
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

// Both of the adapter's places in a query.
const PATHS = [
  { name: 'canUseTool', options: () => ({}) },
  { name: 'PreToolUse hook callback', options: (guard) => ({ canUseTool: undefined, hooks: guard.hooks() }) },
];

// The text a call gets when no decision could be obtained.
const UNAVAILABLE = /Denied by Holdpoint: no decision could be obtained, so the call did not run \(/;

// Text that is hard on every layer between the model and the disk: emoji
// (with ZWJ sequences and flags), CJK, Hangul, right-to-left script,
// combining marks (not normalised), JSON's escapes and U+2028.
const LINE = 'emoji 🙂👩‍💻🇯🇵 漢字とかな 한국어 שלום e\u0301 a\u0308 n\u0303 "quoted" back\\slash\ttab \u2028 end\n';

for (const path of PATHS) {
  describe(`failing closed, ${path.name}`, () => {
    const slug = path.name.split(' ')[0];

    test('the console killed while a call waits for a person: that call and the next are denied, neither runs', async () => {
      const doomed = await h.otherConsole(`doomed-${slug}`);
      const guard = new HoldpointClaudeAgentSdk({ dataDir: doomed.dataDir, agentName: 'sdk-doomed' });
      try {
        const cwd = newDir();
        // The second call is one the policy would allow at once.
        model.script([[bash('echo waited > waited.txt')], [bash('echo allowed later > later.txt')], [{ text: 'gave up' }]]);
        const running = runQuery(guard, cwd, 'write the files', path.options(guard));
        await doomed.pendingItem((i) => i.args.command === 'echo waited > waited.txt', { timeoutMs: 30000 });
        await doomed.kill('SIGKILL');
        const r = await running;
        assert.equal(r.error, undefined, r.stderr);
        assert.equal(existsSync(join(cwd, 'waited.txt')), false, 'the waiting call ran');
        assert.equal(existsSync(join(cwd, 'later.txt')), false, 'a call ran after the console died');
        const [waited, later] = toolResults(model.requests).values();
        assert.equal(waited.isError, true);
        assert.match(waited.text, UNAVAILABLE);
        assert.match(waited.text, /the connection to the console was lost/);
        // endpoint.json is still there (SIGKILL), pointing at a dead port.
        assert.equal(later.isError, true);
        assert.match(later.text, UNAVAILABLE);
        assert.match(later.text, /cannot connect to the console/);
        assert.equal(r.result.result, 'gave up');
      } finally {
        await guard.close();
      }
    });

    // The guard on `consoleDir` has no console to reach: the call is denied
    // with `why`, and nothing runs.
    async function deniedWithoutAConsole(consoleDir, agentName, why) {
      const guard = new HoldpointClaudeAgentSdk({ dataDir: consoleDir, agentName });
      try {
        await assert.rejects(guard.startTurn(), ConsoleUnavailableError);
        const cwd = newDir();
        model.script([[bash('echo allowed > allowed.txt')], [{ text: 'ok' }]]);
        const r = await runQuery(guard, cwd, 'write the file', { turn: false, ...path.options(guard) });
        assert.equal(r.error, undefined, r.stderr);
        assert.equal(existsSync(join(cwd, 'allowed.txt')), false);
        const [result] = toolResults(model.requests).values();
        assert.equal(result.isError, true);
        assert.match(result.text, UNAVAILABLE);
        assert.match(result.text, why);
      } finally {
        await guard.close();
      }
    }

    test('no console: a data directory without endpoint.json denies the call', async () => {
      const empty = join(work, `empty-${slug}`);
      mkdirSync(empty, { mode: 0o700 });
      await deniedWithoutAConsole(empty, 'sdk-alone', /no console found/);
    });

    test('a stale endpoint.json (its console killed before the query) denies the call', async () => {
      const gone = await h.otherConsole(`gone-${slug}`);
      await gone.kill('SIGKILL');
      assert.ok(existsSync(join(gone.dataDir, 'endpoint.json')));
      await deniedWithoutAConsole(gone.dataDir, 'sdk-stale', /cannot connect to the console/);
    });
  });

  describe(`large arguments, ${path.name}`, () => {
    let guard;
    before(() => {
      guard = new HoldpointClaudeAgentSdk({ dataDir, agentName: 'sdk-large' });
    });
    after(async () => {
      await guard.close();
    });

    test('a Write of a non-ASCII path and ~600 KB of non-ASCII content: the console sees it exactly, the disk gets it exactly', async () => {
      const cwd = newDir();
      const file = join(cwd, 'naïve-日本語-🙂-e\u0301.txt');
      const content = LINE.repeat(Math.ceil(600 * 1024 / Buffer.byteLength(LINE)));
      model.script([[{ tool: 'Write', input: { file_path: file, content } }], [{ text: 'written' }]]);
      const running = runQuery(guard, cwd, 'write the file', path.options(guard));
      const item = await h.holdpoint.pendingItem((i) => i.tool_name === 'Write' && i.args.file_path === file, { timeoutMs: 30000 });
      assert.ok(item.args.content === content, 'the console saw other content than the model sent');
      await ctl('approve', item.id);
      const r = await running;
      assert.equal(r.error, undefined, r.stderr);
      assert.ok(readFileSync(file).equals(Buffer.from(content, 'utf8')), 'the bytes on disk differ from the content');
      const [result] = toolResults(model.requests).values();
      assert.equal(result.isError, false, result.text);
    });

    test("a call over the console's 1 MiB message cap is denied; the next query is decided again", async () => {
      const cwd = newDir();
      const file = join(cwd, 'huge.txt');
      model.script([[{ tool: 'Write', input: { file_path: file, content: 'x'.repeat(1100 * 1024) } }], [{ text: 'too big then' }]]);
      const r = await runQuery(guard, cwd, 'write the big file', path.options(guard));
      assert.equal(r.error, undefined, r.stderr);
      assert.equal(existsSync(file), false, 'the oversized call ran');
      const [result] = toolResults(model.requests).values();
      assert.equal(result.isError, true);
      assert.match(result.text, UNAVAILABLE);
      // Refused by the client against the welcome's max_message_bytes,
      // never sent.
      assert.match(result.text, /the call is \d+ bytes, more than the console takes \(1048576 bytes/);
      assert.deepEqual((await h.holdpoint.pending()).filter((i) => i.tool_name === 'Write'), []);
      // The guard connects again: the next query's call is decided and runs.
      model.script([[bash('echo allowed > after.txt')], [{ text: 'done' }]]);
      const next = await runQuery(guard, cwd, 'write a small file', path.options(guard));
      assert.equal(next.error, undefined, next.stderr);
      assert.equal(readFileSync(join(cwd, 'after.txt'), 'utf8'), 'allowed\n');
    });
  });
}

test("the hook callback's own timeout passes while a call waits for a person: the call does not run, and the console drops it", async () => {
  const guard = new HoldpointClaudeAgentSdk({ dataDir, agentName: 'sdk-impatient' });
  try {
    const cwd = newDir();
    model.script([[bash('echo waited > waited.txt')], [{ text: 'gave up' }]]);
    // Nobody decides; the SDK gives up on the callback after 2 s.
    const hooks = { PreToolUse: [{ hooks: [guard.preToolUseHook], timeout: 2 }] };
    const r = await runQuery(guard, cwd, 'write the file', { canUseTool: undefined, hooks });
    assert.equal(r.error, undefined, r.stderr);
    assert.equal(existsSync(join(cwd, 'waited.txt')), false, 'the call ran after the hook timed out');
    const [result] = toolResults(model.requests).values();
    assert.equal(result.isError, true);
    assert.match(result.text, /The tool call was not executed/);
    // The SDK aborts the callback's signal, and the adapter cancels the call.
    await waitFor('the call to leave the queue', async () =>
      (await h.holdpoint.pending()).every((i) => i.args.command !== 'echo waited > waited.txt'), 30000);
  } finally {
    await guard.close();
  }
});
