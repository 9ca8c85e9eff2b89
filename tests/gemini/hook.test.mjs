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
import { Console } from '../common/console.mjs';

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
function gemini(name, { holdpointDataDir = dataDir } = {}) {
  const env = {
    PATH: `${dirname(CTL)}:${process.env.PATH}`,
    HOME: home,
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

before(async () => {
  for (const dir of [home, project, join(home, '.gemini')]) mkdirSync(dir, { recursive: true });
  writeFileSync(join(home, '.gemini', 'settings.json'), JSON.stringify({
    ...snippet,
    security: { auth: { selectedType: 'gemini-api-key' } },
    general: { enableAutoUpdate: false, enableAutoUpdateNotification: false },
    privacy: { usageStatisticsEnabled: false },
    telemetry: { enabled: false },
  }, null, 2));
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

test('the scripted model saw only the calls it expected', () => {
  assert.deepEqual(model.unexpected, []);
});
