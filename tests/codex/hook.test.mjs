// SPDX-License-Identifier: Apache-2.0
// holdpoint-ctl hook codex inside the real Codex CLI (`codex exec`, pinned in
// package-lock.json), with a real headless console deciding and the model
// replaced by a scripted Responses API server on loopback.
//
// Run by CTest (see tests/CMakeLists.txt) with HOLDPOINT_BIN and
// HOLDPOINT_CTL_BIN pointing at the built binaries.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import { mkdtempSync, mkdirSync, writeFileSync, readFileSync, existsSync, realpathSync, rmSync, copyFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { waitFor, within, Console } from '../common/console.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const CODEX = join(here, 'node_modules', '.bin', 'codex');
const SNIPPET = join(here, '..', '..', 'resources', 'integrations', 'codex', 'hooks.json');
const HOLDPOINT = process.env.HOLDPOINT_BIN;
const CTL = process.env.HOLDPOINT_CTL_BIN;
assert.ok(HOLDPOINT && CTL, 'HOLDPOINT_BIN and HOLDPOINT_CTL_BIN must be set');

const work = realpathSync(mkdtempSync(join(tmpdir(), 'holdpoint-codex-')));
const dataDir = join(work, 'data');
const codexHome = join(work, 'codex-home');
const holdpoint = new Console({ holdpoint: HOLDPOINT, ctl: CTL, dataDir });
const ctl = (...args) => holdpoint.ctl(...args);
const pendingItem = (predicate) => holdpoint.pendingItem(predicate);
let model;

// The scripted model: each test queues the turns it expects; a turn sees the
// request body and returns the output items. Whatever a turn asserts is
// collected and checked by the test.
const turns = [];
const requests = [];
const modelErrors = [];

function startModel() {
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      if (req.method !== 'POST' || !req.url.endsWith('/responses')) {
        res.writeHead(404).end();
        return;
      }
      const request = JSON.parse(body);
      requests.push(request);
      let items;
      try {
        const turn = turns.shift();
        if (!turn) throw new Error('the model was asked more often than the test scripted');
        items = turn(request);
      } catch (e) {
        modelErrors.push(e);
        items = [message('the script failed')];
      }
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const id = `resp_${requests.length}`;
      const event = (type, data) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
      event('response.created', { response: { id } });
      for (const item of items) event('response.output_item.done', { item });
      event('response.completed', { response: { id, usage: { input_tokens: 1, output_tokens: 1, total_tokens: 2 } } });
      res.end();
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

function message(text) {
  return { type: 'message', role: 'assistant', id: `m${requests.length}`, content: [{ type: 'output_text', text }] };
}

function shell(callId, cmd, extra = {}) {
  return { type: 'function_call', id: `fc_${callId}`, call_id: callId, name: 'exec_command', arguments: JSON.stringify({ cmd, ...extra }) };
}

// What Codex sent back to the model for a call.
function outputOf(request, callId) {
  const item = request.input.find((i) => ['function_call_output', 'custom_tool_call_output'].includes(i.type) && i.call_id === callId);
  assert.ok(item, `no function_call_output for ${callId} in the next request`);
  return typeof item.output === 'string' ? item.output : JSON.stringify(item.output);
}

// One `codex exec` run: the model makes one shell call, then sees what came of
// it (checked by `check`) and ends the turn.
async function codexRun(dir, callId, cmd, check, { extra = {}, ...options } = {}) {
  turns.push(() => [shell(callId, cmd, extra)]);
  turns.push((request) => {
    check(outputOf(request, callId));
    return [message('done')];
  });
  return codexExec(dir, options);
}

// `codex exec` in `dir` with whatever turns the test queued.
async function codexExec(dir, { args = [], env = {}, home = codexHome } = {}) {
  const child = spawn(CODEX, ['exec', '--skip-git-repo-check', '--dangerously-bypass-hook-trust', '--color', 'never', ...args, 'do the task'], {
    cwd: dir,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, CODEX_HOME: home, HOLDPOINT_DATA_DIR: dataDir, PATH: `${dirname(CTL)}:${process.env.PATH}`, ...env },
  });
  let stderr = '';
  child.stderr.on('data', (c) => (stderr += c));
  child.stdout.resume();
  const code = await new Promise((resolve) => child.once('exit', resolve));
  return { code, stderr };
}

function freshDir(name) {
  const dir = join(work, name);
  mkdirSync(dir);
  return dir;
}

function checkModel(result) {
  assert.deepEqual(modelErrors.splice(0), [], `the scripted model's checks failed; codex said:\n${result.stderr}`);
  assert.equal(turns.length, 0, `Codex did not ask the model as scripted:\n${result.stderr}`);
}

before(async () => {
  model = await startModel();
  mkdirSync(codexHome);
  // The shipped snippet, as it is.
  copyFileSync(SNIPPET, join(codexHome, 'hooks.json'));
  writeFileSync(join(codexHome, 'config.toml'), [
    'model = "scripted"',
    'model_provider = "scripted"',
    'check_for_update_on_startup = false',
    'sandbox_mode = "danger-full-access"',
    '[analytics]',
    'enabled = false',
    '[model_providers.scripted]',
    'name = "scripted"',
    `base_url = "http://127.0.0.1:${model.address().port}/v1"`,
    'wire_api = "responses"',
    'request_max_retries = 0',
    'stream_max_retries = 0',
    '',
  ].join('\n'));
  const policy = join(work, 'policy.json');
  writeFileSync(policy, JSON.stringify({
    version: 1,
    default: 'ask',
    guardrails: [{
      type: 'rules',
      rules: [
        { match: 'Bash(touch *)', action: 'allow', reason: 'creating empty files is fine' },
        { match: 'Bash(rm *)', action: 'deny', code: 'no_rm', reason: 'no deletes in this project: {args.command}' },
      ],
    }],
  }));
  await holdpoint.start(policy);
});

after(async () => {
  await holdpoint.stop();
  model?.close();
  rmSync(work, { recursive: true, force: true });
});

test('a call the policy allows runs, and its result reaches the console', async () => {
  const dir = freshDir('allowed');
  const result = await codexRun(dir, 'call_allowed', 'touch made-by-codex.txt', (output) => {
    assert.match(output, /Process exited with code 0/);
  });
  checkModel(result);
  assert.equal(existsSync(join(dir, 'made-by-codex.txt')), true, result.stderr);
  // The audit log holds the call, its decision and, from PostToolUse, its result.
  const records = await waitFor('the call\'s result in the audit log', async () => {
    const lines = (await ctl('audit', 'export')).trim().split('\n').map((l) => JSON.parse(l));
    const mine = lines.filter((r) => r.call_id === 'call_allowed');
    return mine.some((r) => r.event === 'after_call') && mine;
  });
  const call = records.find((r) => r.event === 'call');
  assert.equal(call.tool, 'Bash');
  assert.deepEqual(call.args, { command: 'touch made-by-codex.txt' });
  assert.equal(call.context.codex_hook, 'PreToolUse');
  assert.ok(call.turn, 'Codex\'s turn_id becomes the turn');
  const decision = records.find((r) => r.event === 'decision');
  assert.equal(decision.decided_by, 'guardrail:rules');
  assert.equal(decision.decision, 'allow');
  assert.equal(records.find((r) => r.event === 'after_call').ok, true);
});

test("a policy deny reaches the model with the policy's reason, and nothing runs", async () => {
  const dir = freshDir('policy-deny');
  writeFileSync(join(dir, 'keep.txt'), 'keep');
  const result = await codexRun(dir, 'call_rm', 'rm keep.txt', (output) => {
    assert.match(output, /no deletes in this project: rm keep\.txt/);
  });
  checkModel(result);
  assert.equal(readFileSync(join(dir, 'keep.txt'), 'utf8'), 'keep');
});

// A call that waits for a person: the test decides it with holdpoint-ctl,
// checks what the model read, and that the file the command writes is absent.
async function decidedByPerson(name, expected, decide) {
  const dir = freshDir(name);
  const cmd = `echo hi > ${name}.txt`;
  const running = codexRun(dir, `call_${name}`, cmd, (output) => assert.match(output, expected));
  const item = await pendingItem((i) => i.args.command === cmd);
  assert.equal(item.agent.framework, 'codex');
  assert.equal(item.context.codex_hook, 'PreToolUse');
  await decide(item.id);
  checkModel(await running);
  assert.equal(existsSync(join(dir, `${name}.txt`)), false);
  return dir;
}

test("a person's deny reaches the model with the person's reason", async () => {
  await decidedByPerson('human', /not in this sprint/, (id) => ctl('deny', id, '--reason', 'not in this sprint'));
});

test('a halt denies the call and tells the model the run was halted', async () => {
  await decidedByPerson('halted', /Holdpoint halted this run: stop everything\. Stop here: make no more tool calls/,
    (id) => ctl('halt', id, '--reason', 'stop everything'));
});

test('the console refuses an edit for Codex, which said in hello that it cannot take one', async () => {
  const dir = await decidedByPerson('original', /deny it as sent/, async (id) => {
    await assert.rejects(ctl('edit', id, '--args', JSON.stringify({ command: 'echo hi > edited.txt' })),
      (e) => /cannot take edited arguments/.test(e.stderr));
    await ctl('deny', id, '--reason', 'deny it as sent');
  });
  assert.equal(existsSync(join(dir, 'edited.txt')), false);
});

test('a request to leave the sandbox is asked again through PermissionRequest', async () => {
  // codex exec never asks for approval unless automatic review is on; then
  // PermissionRequest hooks answer before the reviewer model is asked.
  const dir = freshDir('escalate');
  const cmd = 'echo hi > escalated.txt';
  const running = codexRun(dir, 'call_escalate', cmd, (output) => {
    assert.match(output, /only inside the sandbox/);
  }, { args: ['--approve-for-me'], extra: { sandbox_permissions: 'require_escalated', justification: 'write outside' } });
  const first = await pendingItem((i) => i.args.command === cmd && i.context.codex_hook === 'PreToolUse');
  await ctl('approve', first.id);
  const second = await pendingItem((i) => i.args.command === cmd && i.context.codex_hook === 'PermissionRequest');
  assert.equal(second.args.description, 'write outside');
  await ctl('deny', second.id, '--reason', 'only inside the sandbox');
  const result = await running;
  checkModel(result);
  assert.equal(existsSync(join(dir, 'escalated.txt')), false);
});

test('without a console the call is blocked, not run', async () => {
  const dir = freshDir('no-console');
  const result = await codexRun(dir, 'call_down', 'touch unreachable.txt', (output) => {
    assert.match(output, /Holdpoint blocked this call: .*endpoint\.json/);
  }, { env: { HOLDPOINT_DATA_DIR: join(work, 'no-console-here') } });
  checkModel(result);
  assert.equal(existsSync(join(dir, 'unreachable.txt')), false);
});

test("no holdpoint-ctl on PATH: the call is blocked, not run", async () => {
  // Codex runs the call when a hook fails (exit 127 from the shell here), so
  // the snippet's `|| exit 2` is what blocks it.
  const dir = freshDir('no-ctl');
  const result = await codexRun(dir, 'call_no_ctl', 'touch no-ctl.txt', (output) => {
    assert.match(output, /holdpoint-ctl: (command )?not found/);
  }, { env: { PATH: process.env.PATH } });
  checkModel(result);
  assert.equal(existsSync(join(dir, 'no-ctl.txt')), false, 'the call ran without its hook');
});

// A console of its own, for a test that kills it or changes its options.
async function ownConsole(name, args = []) {
  const own = new Console({ holdpoint: HOLDPOINT, ctl: CTL, dataDir: join(work, `${name}-data`), args });
  await own.start(join(work, 'policy.json'));
  return own;
}

test('a console killed while a call waits: the call is blocked, not run', async () => {
  const own = await ownConsole('killed');
  try {
    const dir = freshDir('killed');
    const cmd = 'echo hi > killed.txt';
    const running = codexRun(dir, 'call_killed', cmd, (output) => {
      assert.match(output, /Holdpoint blocked this call: /);
    }, { env: { HOLDPOINT_DATA_DIR: own.dataDir } });
    await own.pendingItem((i) => i.args.command === cmd);
    await own.kill('SIGKILL');
    const result = await within('codex to finish after the console died', running, 60000);
    checkModel(result);
    assert.equal(existsSync(join(dir, 'killed.txt')), false, 'the call ran without a console');
  } finally {
    await own.kill('SIGKILL');
  }
});

test('a console stopped (SIGSTOP) while a call waits: blocked within the silence bound, before Codex\'s hook timeout; the late approval runs nothing', async () => {
  // Codex runs a call whose PreToolUse hook times out; here that is 10 s.
  // The hook pings the stopped console, hears nothing for 1 s
  // (HOLDPOINT_SILENCE_MS) and blocks the call first.
  const home = join(work, 'codex-home-stopped');
  mkdirSync(home);
  copyFileSync(join(codexHome, 'config.toml'), join(home, 'config.toml'));
  const hooks = JSON.parse(readFileSync(SNIPPET, 'utf8'));
  hooks.hooks.PreToolUse[0].hooks[0].timeout = 10;
  writeFileSync(join(home, 'hooks.json'), JSON.stringify(hooks));
  const own = await ownConsole('stopped');
  try {
    const dir = freshDir('stopped');
    const cmd = 'echo hi > stopped.txt';
    const running = codexRun(dir, 'call_stopped', cmd, (output) => {
      assert.match(output, /Holdpoint blocked this call: .*went silent/);
    }, { home, env: { HOLDPOINT_DATA_DIR: own.dataDir, HOLDPOINT_SILENCE_MS: '1000' } });
    const item = await own.pendingItem((i) => i.args.command === cmd);
    own.process.kill('SIGSTOP');
    const result = await within('codex to finish while the console is stopped', running, 60000);
    own.process.kill('SIGCONT');
    checkModel(result);
    assert.doesNotMatch(result.stderr, /hook timed out/);
    assert.equal(existsSync(join(dir, 'stopped.txt')), false, 'the call ran while the console was stopped');
    await own.ctl('approve', item.id);
    assert.equal(existsSync(join(dir, 'stopped.txt')), false, 'the late approval ran the call');
  } finally {
    own.process.kill('SIGCONT');
    await own.stop();
  }
});

test("a call nobody decides is denied by the console's --timeout before Codex's hook timeout lets it run", async () => {
  // Codex runs the call when a PreToolUse hook times out (hook.timeout,
  // seconds, default 600). Here it is 10 s, the console's 2 s: the console's
  // deny must arrive first. Were the console's timeout ignored, Codex would
  // run the command after 10 s and the file would be there.
  const home = join(work, 'codex-home-timeout');
  mkdirSync(home);
  copyFileSync(join(codexHome, 'config.toml'), join(home, 'config.toml'));
  const hooks = JSON.parse(readFileSync(SNIPPET, 'utf8'));
  hooks.hooks.PreToolUse[0].hooks[0].timeout = 10;
  writeFileSync(join(home, 'hooks.json'), JSON.stringify(hooks));
  const own = await ownConsole('timeout', ['--timeout', '2']);
  try {
    const dir = freshDir('timeout');
    const result = await codexRun(dir, 'call_timeout', 'echo hi > timed-out.txt', (output) => {
      assert.match(output, /timed out after 2 s waiting for a reviewer/);
    }, { home, env: { HOLDPOINT_DATA_DIR: own.dataDir } });
    checkModel(result);
    assert.doesNotMatch(result.stderr, /hook timed out/);
    assert.equal(existsSync(join(dir, 'timed-out.txt')), false, 'the call ran');
  } finally {
    await own.stop();
  }
});

test('after a halt, a model that ignores it gets its next call in the turn denied at once', async () => {
  const dir = freshDir('halt-again');
  const first = 'echo one > first.txt';
  const second = 'echo two > second.txt';
  turns.push(() => [shell('call_halt_1', first)]);
  turns.push((request) => {
    assert.match(outputOf(request, 'call_halt_1'), /Holdpoint halted this run: stop now\. Stop here/);
    return [shell('call_halt_2', second)]; // the model carries on regardless
  });
  turns.push((request) => {
    assert.match(outputOf(request, 'call_halt_2'),
      /Holdpoint halted this run: the run was halted \(stop now\); no tool call runs for the rest of this turn/);
    return [message('done')];
  });
  const running = codexExec(dir);
  const item = await pendingItem((i) => i.args.command === first);
  await ctl('halt', item.id, '--reason', 'stop now');
  // Nobody decides the second call: the run ends only if the console
  // answers it by itself.
  const result = await within('codex to finish without anyone deciding the second call', running, 60000);
  checkModel(result);
  assert.equal(existsSync(join(dir, 'first.txt')), false);
  assert.equal(existsSync(join(dir, 'second.txt')), false, 'the call after the halt ran');
  const records = (await ctl('audit', 'export')).trim().split('\n').map((l) => JSON.parse(l));
  const decision = records.find((r) => r.event === 'decision' && r.call_id === 'call_halt_2');
  assert.equal(decision.decision, 'halt');
  assert.equal(decision.code, 'turn_halted');
  const halt = records.find((r) => r.event === 'decision' && r.call_id === 'call_halt_1');
  assert.equal(decision.decided_by, halt.decided_by, 'the halt of the turn, not a person, decided it');
  assert.equal(records.some((r) => r.event === 'escalated' && r.call_id === 'call_halt_2'), false,
    'the second call went to a person');
});

test('two calls in one response: each runs or not as decided for it', async () => {
  const dir = freshDir('parallel');
  const one = 'echo one > one.txt';
  const two = 'echo two > two.txt';
  turns.push(() => [shell('call_par_1', one), shell('call_par_2', two)]);
  turns.push((request) => {
    assert.match(outputOf(request, 'call_par_1'), /not this one/);
    assert.match(outputOf(request, 'call_par_2'), /Process exited with code 0/);
    return [message('done')];
  });
  const running = codexExec(dir);
  // Codex asks its hooks for both at once: both wait together.
  const [first, second] = await waitFor('both calls pending', async () => {
    const p = await holdpoint.pending();
    const a = p.find((i) => i.args.command === one);
    const b = p.find((i) => i.args.command === two);
    return a && b && [a, b];
  }, 30000);
  await ctl('approve', second.id);
  await waitFor('the second call to run', () => existsSync(join(dir, 'two.txt')), 30000);
  assert.ok((await holdpoint.pending()).some((i) => i.id === first.id), 'the first call still waits');
  await ctl('deny', first.id, '--reason', 'not this one');
  const result = await within('codex to finish', running, 60000);
  checkModel(result);
  assert.equal(readFileSync(join(dir, 'two.txt'), 'utf8'), 'two\n');
  assert.equal(existsSync(join(dir, 'one.txt')), false, 'the denied call ran');
});

// Emoji with a skin tone, CJK, a combining accent (e + U+0301, not é), RTL.
const UNICODE = 'héllo e\u0301 世界 👋🏽 🚀 مرحبا ';

test('non-ASCII arguments reach the console and run byte for byte', async () => {
  const dir = freshDir('unicode');
  const name = 'e\u0301té-日本語-🚀.txt';
  const content = UNICODE.repeat(500);
  const cmd = `printf '%s' '${content}' > '${name}'`;
  const running = codexRun(dir, 'call_unicode', cmd, (output) => assert.match(output, /Process exited with code 0/));
  const item = await pendingItem((i) => i.args.command === cmd);
  await ctl('approve', item.id);
  checkModel(await within('codex to finish', running, 60000));
  assert.deepEqual(readFileSync(join(dir, name)), Buffer.from(content, 'utf8'));
});

// A patch that adds `name` with `lines`, as the model sends apply_patch (a
// freeform tool, offered for models in Codex's catalog such as gpt-5.5;
// PreToolUse sees it as {"command": <patch>}). A shell command could not
// carry this much: Linux caps one argv string at 128 KiB.
function addFilePatch(callId, name, lines) {
  const input = `*** Begin Patch\n*** Add File: ${name}\n${lines.map((l) => `+${l}\n`).join('')}*** End Patch`;
  return { type: 'custom_tool_call', id: `ctc_${callId}`, call_id: callId, name: 'apply_patch', input };
}

test('a patch of a few hundred KB, in Unicode, runs byte for byte once approved', async () => {
  const dir = freshDir('large');
  const name = '大きい-🚀-e\u0301.txt';
  const lines = Array.from({ length: Math.floor(300_000 / Buffer.byteLength(UNICODE)) }, (_, i) => `${i} ${UNICODE}`);
  const patch = addFilePatch('call_patch', name, lines);
  turns.push(() => [patch]);
  turns.push((request) => {
    assert.match(outputOf(request, 'call_patch'), /Success/);
    return [message('done')];
  });
  const running = codexExec(dir, { args: ['-m', 'gpt-5.5'] });
  const item = await pendingItem((i) => i.args.command === patch.input);
  assert.ok(Buffer.byteLength(item.args.command) > 300_000);
  await ctl('approve', item.id);
  checkModel(await within('codex to finish', running, 60000));
  assert.deepEqual(readFileSync(join(dir, name)), Buffer.from(lines.map((l) => `${l}\n`).join(''), 'utf8'));
});

test("a call over the console's message cap is blocked, not run", async () => {
  // A patch (unlike a shell command) of this size would run if let through.
  const dir = freshDir('too-large');
  const patch = addFilePatch('call_large', 'too-large.txt', Array.from({ length: 12_000 }, () => 'x'.repeat(100)));
  turns.push(() => [patch]);
  turns.push((request) => {
    assert.match(outputOf(request, 'call_large'), /Holdpoint blocked this call: the message is \d+ bytes, more than the console takes/);
    assert.doesNotMatch(outputOf(request, 'call_large'), /device not open/);
    return [message('done')];
  });
  checkModel(await within('codex to finish', codexExec(dir, { args: ['-m', 'gpt-5.5'] }), 60000));
  assert.equal(existsSync(join(dir, 'too-large.txt')), false, 'the call ran');
});
