// SPDX-License-Identifier: Apache-2.0
// holdpoint-ctl hook gemini under the real Gemini CLI (-p, headless), with a
// real headless console deciding and a scripted Gemini API on loopback in
// place of the model. The CLI's settings are the shipped snippet
// (resources/integrations/gemini/settings.json) plus what keeps it offline.
//
// Run by CTest (see tests/CMakeLists.txt) with HOLDPOINT_BIN and
// HOLDPOINT_CTL_BIN pointing at the built binaries.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { mkdirSync, mkdtempSync, writeFileSync, readFileSync, existsSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FakeGemini } from './fakegemini.mjs';
import { Console, within } from '../common/console.mjs';

const require = createRequire(import.meta.url);
const HOLDPOINT = process.env.HOLDPOINT_BIN;
const CTL = process.env.HOLDPOINT_CTL_BIN;
assert.ok(HOLDPOINT && CTL, 'HOLDPOINT_BIN and HOLDPOINT_CTL_BIN must be set');
const geminiBin = join(dirname(require.resolve('@google/gemini-cli/package.json')), 'bundle', 'gemini.js');
const here = dirname(fileURLToPath(import.meta.url));
const snippet = JSON.parse(readFileSync(join(here, '../../resources/integrations/gemini/settings.json'), 'utf8'));

const work = realpathSync(mkdtempSync(join(tmpdir(), 'holdpoint-gemini-')));
const dataDir = join(work, 'data');
const home = join(work, 'home');
const project = join(work, 'project');
const model = new FakeGemini();

const holdpoint = new Console({ holdpoint: HOLDPOINT, ctl: CTL, dataDir });
const ctl = (...args) => holdpoint.ctl(...args);
const pendingItem = (predicate) => holdpoint.pendingItem(predicate, { timeoutMs: 60000 });

// Runs `gemini -p` for one scripted case; resolves with its exit code and output.
function gemini(name, { holdpointDataDir = dataDir, homeDir = home, extraEnv = {} } = {}) {
  const env = {
    ...extraEnv,
    PATH: `${dirname(CTL)}:${process.env.PATH}`,
    HOME: homeDir,
    LANG: 'C.UTF-8',
    GEMINI_API_KEY: 'test-key-not-secret',
    GOOGLE_GEMINI_BASE_URL: model.url,
    GEMINI_CLI_TRUST_WORKSPACE: 'true',
    GEMINI_TELEMETRY_ENABLED: 'false',
    HOLDPOINT_DATA_DIR: holdpointDataDir,
  };
  const child = spawn(process.execPath, [geminiBin, '-p', `holdpoint-case:${name}`, '-m', 'gemini-2.5-flash',
    '--approval-mode', 'yolo', '-o', 'text'], { cwd: project, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

function shell(command) {
  return { functionCall: { name: 'run_shell_command', args: { command, description: 'a scripted call' } } };
}

// What the CLI sent the model for the case's first call.
function firstResponse(name) {
  const [response] = model.functionResponses(name);
  assert.ok(response, `the CLI sent no function response for ${name}`);
  return response.response;
}

// A HOME whose Gemini CLI settings are the snippet with `hooks` changed by `edit`.
function makeHome(dir, edit = () => {}) {
  const hooks = structuredClone(snippet.hooks);
  edit(hooks);
  mkdirSync(join(dir, '.gemini'), { recursive: true });
  writeFileSync(join(dir, '.gemini', 'settings.json'), JSON.stringify({
    ...snippet,
    hooks,
    security: { auth: { selectedType: 'gemini-api-key' } },
    general: { enableAutoUpdate: false, enableAutoUpdateNotification: false },
    privacy: { usageStatisticsEnabled: false },
    telemetry: { enabled: false },
  }, null, 2));
}

before(async () => {
  for (const dir of [home, project]) mkdirSync(dir, { recursive: true });
  makeHome(home);
  const policy = join(work, 'policy.json');
  writeFileSync(policy, JSON.stringify({
    default: 'ask',
    guardrails: [
      { type: 'rules', name: 'shell', rules: [
        { when: { tool: 'run_shell_command', args: { command: { prefix: 'echo allowed' } } }, action: 'allow' },
        { when: { tool: 'run_shell_command', args: { command: { prefix: 'ls ' } } }, action: 'allow' },
        { when: { tool: 'run_shell_command', args: { command: { prefix: 'rm ' } } }, action: 'deny', code: 'no_rm',
          reason: 'no rm here: {args.command}' },
        { when: { tool: 'run_shell_command', args: { command: { prefix: 'echo halt' } } }, action: 'halt',
          reason: 'stop the whole run' },
      ] },
      { type: 'rules', name: 'sanitize', rules: [
        { when: { tool: 'write_file', args: { file_path: { glob: '**/guarded/*' } } }, action: 'modify',
          set: { content: 'sanitized\n' }, reason: 'content replaced' },
      ] },
      { type: 'rules', name: 'files', rules: [
        { when: { tool: 'write_file', args: { file_path: { glob: '**/guarded/*' } } }, action: 'allow' },
      ] },
      { type: 'loop_detection', exact_failure: { warn: 2, block: 5 } },
    ],
  }));
  await model.start();
  await holdpoint.start(policy);
});

after(async () => {
  await model.stop();
  await holdpoint.stop();
  rmSync(work, { recursive: true, force: true });
});

test('a call the policy allows runs', async () => {
  const out = join(project, 'allowed.txt');
  model.script('allow', [[shell(`echo allowed > ${out}`)]]);
  const r = await gemini('allow');
  assert.equal(r.code, 0, r.stderr);
  assert.equal(readFileSync(out, 'utf8'), 'allowed\n');
  assert.equal(firstResponse('allow').error, undefined);
});

test('a policy deny reaches the model with its reason and nothing runs', async () => {
  const victim = join(project, 'keep.txt');
  writeFileSync(victim, 'keep');
  model.script('policy-deny', [[shell(`rm ${victim}`)]]);
  const r = await gemini('policy-deny');
  assert.equal(r.code, 0, r.stderr);
  assert.ok(existsSync(victim), 'the denied rm ran');
  assert.match(firstResponse('policy-deny').error, new RegExp(`no rm here: rm ${victim}`));
});

test('a person denies with a reason the model reads', async () => {
  const out = join(project, 'human-denied.txt');
  model.script('human-deny', [[shell(`echo nope > ${out}`)]]);
  const running = gemini('human-deny');
  const item = await pendingItem((i) => i.args.command === `echo nope > ${out}`);
  assert.equal(item.agent.framework, 'gemini-cli');
  assert.equal(item.context.cwd, project);
  await ctl('deny', item.id, '--reason', 'not on a Friday');
  const r = await running;
  assert.equal(r.code, 0, r.stderr);
  assert.equal(existsSync(out), false);
  assert.match(firstResponse('human-deny').error, /not on a Friday/);
});

test('a call a person edits runs as edited', async () => {
  const asked = join(project, 'asked.txt');
  const edited = join(project, 'edited.txt');
  model.script('human-edit', [[shell(`echo asked > ${asked}`)]]);
  const running = gemini('human-edit');
  const item = await pendingItem((i) => i.args.command === `echo asked > ${asked}`);
  await ctl('edit', item.id, '--args', JSON.stringify({ command: `echo edited > ${edited}`, description: 'edited' }));
  const r = await running;
  assert.equal(r.code, 0, r.stderr);
  assert.equal(existsSync(asked), false, 'the original command ran');
  assert.equal(readFileSync(edited, 'utf8'), 'edited\n');
});

test('an edit that drops an argument is denied, not run with it', async () => {
  const out = join(project, 'dropped.txt');
  model.script('drop-key', [[shell(`echo dropped > ${out}`)]]);
  const running = gemini('drop-key');
  const item = await pendingItem((i) => i.args.command === `echo dropped > ${out}`);
  await ctl('edit', item.id, '--args', JSON.stringify({ command: `echo dropped > ${out}` }));
  const r = await running;
  assert.equal(r.code, 0, r.stderr);
  assert.equal(existsSync(out), false);
  assert.match(firstResponse('drop-key').error, /leave out "description"/);
});

test('a guardrail rewrite runs with the rewritten arguments', async () => {
  const target = join(project, 'guarded', 'notes.txt');
  model.script('policy-modify', [[{ functionCall: { name: 'write_file', args: { file_path: target, content: 'api_key=abc\n' } } }]]);
  const r = await gemini('policy-modify');
  assert.equal(r.code, 0, r.stderr);
  assert.equal(readFileSync(target, 'utf8'), 'sanitized\n');
});

test('a halt stops the run', async () => {
  const after = join(project, 'after-halt.txt');
  model.script('halt', [[shell('echo halt now')], [shell(`echo allowed > ${after}`)]]);
  const r = await gemini('halt');
  assert.match(r.stderr, /Agent execution stopped: .*stop the whole run/);
  assert.equal(model.requests.get('halt').length, 1, 'the CLI asked the model again after the halt');
  assert.equal(existsSync(after), false);
});

test('a repeated failure comes back with the console\'s loop warning', async () => {
  const cmd = `ls ${join(project, 'missing')}`;
  model.script('loop', [[shell(cmd)], [shell(cmd)]]);
  const r = await gemini('loop');
  assert.equal(r.code, 0, r.stderr);
  const responses = model.functionResponses('loop');
  assert.equal(responses.length, 2);
  assert.doesNotMatch(responses[0].response.output, /hook_context/);
  assert.match(responses[1].response.output, /<hook_context>.*failed.*<\/hook_context>/s);
});

test('with no console the call is blocked', async () => {
  const out = join(project, 'no-console.txt');
  model.script('no-console', [[shell(`echo allowed > ${out}`)]]);
  const r = await gemini('no-console', { holdpointDataDir: join(work, 'nowhere') });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(existsSync(out), false);
  assert.match(firstResponse('no-console').error, /Holdpoint blocked this call/);
});

function write(file_path, content) {
  return { functionCall: { name: 'write_file', args: { file_path, content } } };
}

// A console of its own, for a test that kills it or changes its options.
async function ownConsole(name, args = []) {
  const own = new Console({ holdpoint: HOLDPOINT, ctl: CTL, dataDir: join(work, `${name}-data`), args });
  await own.start(join(work, 'policy.json'));
  return own;
}

test('a console killed while a call waits: the call is blocked, not run', async () => {
  const own = await ownConsole('killed');
  try {
    const out = join(project, 'killed.txt');
    model.script('killed', [[shell(`echo killed > ${out}`)]]);
    const running = gemini('killed', { holdpointDataDir: own.dataDir });
    await own.pendingItem((i) => i.args.command === `echo killed > ${out}`, { timeoutMs: 60000 });
    await own.kill('SIGKILL');
    const r = await within('gemini to finish after the console died', running, 60000);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(existsSync(out), false, 'the call ran without a console');
    assert.match(firstResponse('killed').error, /Holdpoint blocked this call: /);
  } finally {
    await own.kill('SIGKILL');
  }
});

test("a console stopped (SIGSTOP) while a call waits: blocked within the silence bound, before Gemini CLI's hook timeout; the late approval runs nothing", async () => {
  // Gemini CLI runs a tool whose BeforeTool hook times out; here that is
  // 10 s. The hook pings the stopped console, hears nothing for 1 s
  // (HOLDPOINT_SILENCE_MS) and blocks the call first.
  const stoppedHome = join(work, 'home-stopped');
  makeHome(stoppedHome, (hooks) => { hooks.BeforeTool[0].hooks[0].timeout = 10000; });
  const own = await ownConsole('stopped');
  try {
    const out = join(project, 'stopped.txt');
    model.script('stopped', [[shell(`echo stopped > ${out}`)]]);
    const running = gemini('stopped', { holdpointDataDir: own.dataDir, homeDir: stoppedHome,
      extraEnv: { HOLDPOINT_SILENCE_MS: '1000' } });
    const item = await own.pendingItem((i) => i.args.command === `echo stopped > ${out}`, { timeoutMs: 60000 });
    own.process.kill('SIGSTOP');
    const r = await within('gemini to finish while the console is stopped', running, 60000);
    own.process.kill('SIGCONT');
    assert.equal(r.code, 0, r.stderr);
    assert.equal(existsSync(out), false, 'the call ran while the console was stopped');
    assert.match(firstResponse('stopped').error, /Holdpoint blocked this call: .*went silent/);
    await own.ctl('approve', item.id);
    assert.equal(existsSync(out), false, 'the late approval ran the call');
  } finally {
    own.process.kill('SIGCONT');
    await own.stop();
  }
});

test("a call nobody decides is denied by the console's --timeout before Gemini CLI's hook timeout lets it run", async () => {
  // Gemini CLI runs the tool when a BeforeTool hook times out (the hook's
  // `timeout`, milliseconds, default 60000). Here it is 10 s, the console's
  // 2 s: the console's deny must come first. Were it ignored, Gemini CLI
  // would run the command after 10 s and the file would be there.
  const timeoutHome = join(work, 'home-timeout');
  makeHome(timeoutHome, (hooks) => { hooks.BeforeTool[0].hooks[0].timeout = 10000; });
  const own = await ownConsole('timeout', ['--timeout', '2']);
  try {
    const out = join(project, 'timed-out.txt');
    model.script('timeout', [[shell(`echo late > ${out}`)]]);
    const r = await gemini('timeout', { holdpointDataDir: own.dataDir, homeDir: timeoutHome });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(existsSync(out), false, 'the call ran');
    assert.match(firstResponse('timeout').error, /timed out after 2 s waiting for a reviewer/);
  } finally {
    await own.stop();
  }
});

test('a person halts a waiting call: it does not run, nor does the next call of the turn', async () => {
  const first = join(project, 'halt-first.txt');
  const second = join(project, 'halt-second.txt');
  const later = join(project, 'halt-later.txt');
  model.script('ctl-halt', [[write(first, 'one\n'), write(second, 'two\n')], [write(later, 'three\n')]]);
  const running = gemini('ctl-halt');
  const item = await pendingItem((i) => i.args.file_path === first);
  await ctl('halt', item.id, '--reason', 'a person stopped it');
  // Nobody decides the second call: the run ends only if the console
  // halts it by itself.
  const r = await within('gemini to finish without anyone deciding the second call', running, 60000);
  assert.match(r.stderr, /Agent execution stopped: .*a person stopped it/);
  assert.equal(existsSync(first), false, 'the halted call ran');
  assert.equal(existsSync(second), false, 'the call after the halt ran');
  assert.equal(existsSync(later), false);
  assert.equal(model.requests.get('ctl-halt').length, 1, 'the CLI asked the model again after the halt');
  // The console halted the second call itself, as part of the halted turn
  // (the BeforeAgent hook started it), without asking anyone.
  const records = (await ctl('audit', 'export')).trim().split('\n').map((l) => JSON.parse(l));
  const callOf = (file) => records.find((rec) => rec.event === 'call' && rec.args?.file_path === file);
  const [a, b] = [callOf(first), callOf(second)];
  assert.ok(a.turn && a.turn === b.turn, 'both calls belong to the prompt\'s turn');
  const decision = records.find((rec) => rec.event === 'decision' && rec.call_id === b.call_id);
  assert.equal(decision.decision, 'halt');
  assert.equal(decision.code, 'turn_halted');
  assert.equal(records.some((rec) => rec.event === 'escalated' && rec.call_id === b.call_id), false,
    'the second call went to a person');
});

test('a prompt whose turn cannot be noted is blocked before the model is asked', async () => {
  // The hook keeps its notes in <data dir>/gemini-hook/; a file in its way
  // makes the BeforeAgent hook fail.
  const broken = join(work, 'broken-data');
  mkdirSync(broken);
  writeFileSync(join(broken, 'gemini-hook'), 'not a directory');
  const out = join(project, 'no-turn.txt');
  model.script('no-turn', [[shell(`echo allowed > ${out}`)]]);
  const r = await gemini('no-turn', { holdpointDataDir: broken });
  assert.match(r.stdout + r.stderr, /Holdpoint blocked this call: /);
  assert.equal(model.requests.get('no-turn').length, 0, 'the model was asked');
  assert.equal(existsSync(out), false);
});

test('two calls in one response: each runs or not as decided for it', async () => {
  const one = join(project, 'par-one.txt');
  const two = join(project, 'par-two.txt');
  model.script('parallel', [[write(one, 'one\n'), write(two, 'two\n')]]);
  const running = gemini('parallel');
  // Gemini CLI asks its hook for one call at a time, in the model's order.
  const first = await pendingItem((i) => i.args.file_path === one);
  assert.equal((await holdpoint.pending()).some((i) => i.args.file_path === two), false);
  await ctl('approve', first.id);
  const second = await pendingItem((i) => i.args.file_path === two);
  await ctl('deny', second.id, '--reason', 'not the second one');
  const r = await running;
  assert.equal(r.code, 0, r.stderr);
  assert.equal(readFileSync(one, 'utf8'), 'one\n');
  assert.equal(existsSync(two), false, 'the denied call ran');
  const [a, b] = model.functionResponses('parallel');
  assert.equal(a.response.error, undefined);
  assert.match(a.response.output, /par-one\.txt/);
  assert.match(b.response.error, /not the second one/);
});

// Emoji with a skin tone, CJK, a combining accent (e + U+0301, not é), RTL.
const UNICODE = 'héllo e\u0301 世界 👋🏽 🚀 مرحبا\n';

test('non-ASCII and large arguments reach the console and run byte for byte', async () => {
  const out = join(project, 'e\u0301té-日本語-🚀.txt');
  const content = UNICODE.repeat(Math.floor(300_000 / Buffer.byteLength(UNICODE)));
  model.script('unicode', [[write(out, content)]]);
  const running = gemini('unicode');
  const item = await pendingItem((i) => i.args.file_path === out);
  assert.equal(item.args.content, content);
  await ctl('approve', item.id);
  const r = await running;
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(readFileSync(out), Buffer.from(content, 'utf8'));
});

test("a call over the console's message cap is blocked, not run", async () => {
  const out = join(project, 'too-large.txt');
  model.script('too-large', [[write(out, 'x'.repeat(1_200_000))]]);
  const r = await gemini('too-large');
  assert.equal(r.code, 0, r.stderr);
  assert.equal(existsSync(out), false, 'the call ran');
  assert.match(firstResponse('too-large').error, /Holdpoint blocked this call: the message is \d+ bytes, more than the console takes/);
});

test('the scripted model saw only the calls it expected', () => {
  assert.deepEqual(model.unexpected, []);
});
