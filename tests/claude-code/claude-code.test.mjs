// SPDX-License-Identifier: Apache-2.0
// The shipped Claude Code hook (resources/integrations/claude-code/
// settings.json, which runs `holdpoint-ctl hook claude-code`) inside the
// real Claude Code CLI, current and older release, against a real headless
// console. The model is a scripted one on loopback (anthropic-model.mjs).
//
// Run by CTest (see tests/CMakeLists.txt) with HOLDPOINT_BIN and
// HOLDPOINT_CTL_BIN pointing at the built binaries.

import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { toolResults } from './anthropic-model.mjs';
import { Harness, bash } from './harness.mjs';
import { ClaudeCli, VERSIONS, claudeBinary } from './claude-cli.mjs';

const run = promisify(execFile);

const h = new Harness('holdpoint-claude-');
const { model } = h;
const cli = new ClaudeCli(h);
const ctl = (...args) => h.ctl(...args);
const pendingCommand = (command) => h.pendingCommand(command);
const runClaude = (...args) => cli.run(...args);

before(() => h.start());

after(() => h.stop());

for (const version of VERSIONS) {
  describe(`Claude Code ${version}`, () => {
    let home;
    before(() => {
      home = cli.home(`home-${version}`);
    });

    test('the binary is this version', async () => {
      const { stdout } = await run(claudeBinary(version), ['--version']);
      assert.match(stdout, new RegExp(`^${version.replaceAll('.', '\\.')} `));
    });

    test('a call the policy allows runs', async () => {
      const cwd = h.newDir();
      model.script([[{ text: 'writing' }, bash('echo allowed > allowed.txt')], [{ text: 'done' }]]);
      const r = await runClaude(version, home, cwd, 'write the file');
      assert.equal(r.code, 0, r.stderr);
      assert.equal(readFileSync(join(cwd, 'allowed.txt'), 'utf8'), 'allowed\n');
      assert.equal(model.requests.length, 2);
      const [result] = toolResults(model.requests).values();
      assert.equal(result.isError, false);
      assert.equal(r.result.result, 'done');
    });

    test("the policy's deny reaches the model with its reason", async () => {
      const cwd = h.newDir();
      model.script([[bash('echo secret > secret.txt')], [{ text: 'understood' }]]);
      const r = await runClaude(version, home, cwd, 'write the secret');
      assert.equal(r.code, 0, r.stderr);
      assert.equal(existsSync(join(cwd, 'secret.txt')), false);
      assert.equal(model.requests.length, 2);
      const [result] = toolResults(model.requests).values();
      assert.equal(result.isError, true);
      assert.match(result.text, /no secrets in files/);
    });

    test("a reviewer's edit runs the edited command", async () => {
      const cwd = h.newDir();
      model.script([[bash('echo asked > asked.txt')], [{ text: 'done' }]]);
      const running = runClaude(version, home, cwd, 'write the file');
      const item = await pendingCommand('echo asked > asked.txt');
      assert.equal(item.context.permission_mode, 'default');
      assert.ok(item.turn_id, 'the hook passes prompt_id as the turn');
      await ctl('edit', item.id, '--args', JSON.stringify({ command: 'echo edited > edited.txt', description: 'edited' }));
      const r = await running;
      assert.equal(r.code, 0, r.stderr);
      assert.equal(readFileSync(join(cwd, 'edited.txt'), 'utf8'), 'edited\n');
      assert.equal(existsSync(join(cwd, 'asked.txt')), false);
      // The model's own transcript keeps its call; only what ran changed.
      const [result] = toolResults(model.requests).values();
      assert.equal(result.isError, false);
    });

    test("a reviewer's deny reaches the model with the reason", async () => {
      const cwd = h.newDir();
      model.script([[bash('echo nope > nope.txt')], [{ text: 'ok, not doing that' }]]);
      const running = runClaude(version, home, cwd, 'write the file');
      const item = await pendingCommand('echo nope > nope.txt');
      await ctl('deny', item.id, '--reason', 'not that file, use notes.txt');
      const r = await running;
      assert.equal(r.code, 0, r.stderr);
      assert.equal(existsSync(join(cwd, 'nope.txt')), false);
      const [result] = toolResults(model.requests).values();
      assert.equal(result.isError, true);
      assert.match(result.text, /not that file, use notes\.txt/);
    });

    test('a halt stops the run: no later tool call runs', async () => {
      const cwd = h.newDir();
      // After the halted call the model asks for another one, then one more
      // after that, each of which the policy alone would allow; none may run.
      model.script([
        [{ text: 'step one' }, bash('echo first > first.txt')],
        [bash('echo allowed after > after.txt')],
        [bash('echo allowed again > again.txt')],
        [{ text: 'finished' }],
      ]);
      const running = runClaude(version, home, cwd, 'do the steps');
      const item = await pendingCommand('echo first > first.txt');
      await ctl('halt', item.id, '--reason', 'stop this run');
      const r = await running;
      assert.equal(r.signal, null, r.stderr);
      for (const f of ['first.txt', 'after.txt', 'again.txt']) assert.equal(existsSync(join(cwd, f)), false, f);
      // Whatever the version did after the halt, the console never asked a
      // person about a later call: each was halted at once.
      assert.deepEqual(JSON.parse(await ctl('pending', '--json')).filter((i) => i.session_id === r.sessionId), []);
      const results = [...toolResults(model.requests).values()];
      for (const later of results.slice(1)) {
        assert.equal(later.isError, true);
        assert.match(later.text, /the run was halted \(stop this run\)/);
      }
      if (version === '2.1.330') {
        // Stops at the hook's continue:false: the model is not asked again.
        assert.equal(model.requests.length, 1);
      } else {
        // 2.1.197 ignores continue:false and goes on asking the model;
        // it hears that the run was halted, each time.
        assert.match(results[0].text, /Holdpoint halted the run: stop this run/);
        assert.ok(results.length >= 2, 'the older release sent the next call');
      }
    });
  });
}
