// SPDX-License-Identifier: Apache-2.0
// The Claude Code hook fails closed inside the real Claude Code CLI (both
// pinned versions): a console killed while a call waits for a person, no
// console at all, a console whose endpoint file points at a dead port, a
// call too large for the console's message cap, and no holdpoint-ctl to
// run. Each time the call must not run, and the model must hear that it
// was blocked.
//
// Run by CTest (see tests/CMakeLists.txt) with HOLDPOINT_BIN and
// HOLDPOINT_CTL_BIN pointing at the built binaries.

import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { toolResults } from './anthropic-model.mjs';
import { Harness, bash } from './harness.mjs';
import { ClaudeCli, VERSIONS } from './claude-cli.mjs';

const h = new Harness('holdpoint-claude-fc-');
const { model } = h;
const cli = new ClaudeCli(h);

before(() => h.start());

after(() => h.stop());

// Every tool_result the model got, in the order of the script's calls.
function resultsInOrder() {
  return [...toolResults(model.requests).values()];
}

// The hook's blocking error reaches the model as the tool's error result.
function assertBlocked(result, why) {
  assert.ok(result, 'the model got a tool_result for the call');
  assert.equal(result.isError, true, result.text);
  assert.match(result.text, /Holdpoint blocked this call/);
  if (why) assert.match(result.text, why);
}

for (const version of VERSIONS) {
  describe(`Claude Code ${version}`, () => {
    let home;
    before(() => {
      home = cli.home(`home-${version}`);
    });

    test('the console killed while a call waits for a person: the call is blocked, and so is the next one', async () => {
      const doomed = await h.otherConsole(`doomed-${version}`);
      const cwd = h.newDir();
      // The second call is one the policy would allow at once.
      model.script([[bash('echo waited > waited.txt')], [bash('echo allowed later > later.txt')], [{ text: 'gave up' }]]);
      const running = cli.run(version, home, cwd, 'write the files', { dataDir: doomed.dataDir });
      await doomed.pendingItem((i) => i.args.command === 'echo waited > waited.txt', { timeoutMs: 30000 });
      await doomed.kill('SIGKILL');
      const r = await running;
      assert.equal(r.code, 0, r.stderr);
      assert.equal(existsSync(join(cwd, 'waited.txt')), false, 'the waiting call ran');
      assert.equal(existsSync(join(cwd, 'later.txt')), false, 'a call ran after the console died');
      const [waited, later] = resultsInOrder();
      assertBlocked(waited, /the console closed the connection/);
      // endpoint.json is still there (SIGKILL), pointing at a dead port.
      assertBlocked(later, /cannot connect to the console/);
      assert.equal(model.requests.length, 3);
      assert.equal(r.result.result, 'gave up');
    });

    test('the console stopped (SIGSTOP) while a call waits: blocked within the silence bound; the late approval runs nothing', async () => {
      const stopped = await h.otherConsole(`stopped-${version}`);
      try {
        const cwd = h.newDir();
        model.script([[bash('echo stopped > stopped.txt')], [{ text: 'gave up' }]]);
        const running = cli.run(version, home, cwd, 'write the file',
          { dataDir: stopped.dataDir, extraEnv: { HOLDPOINT_SILENCE_MS: '1000' } });
        const item = await stopped.pendingItem((i) => i.args.command === 'echo stopped > stopped.txt', { timeoutMs: 30000 });
        stopped.process.kill('SIGSTOP');
        const r = await running;
        stopped.process.kill('SIGCONT');
        assert.equal(r.code, 0, r.stderr);
        assert.equal(existsSync(join(cwd, 'stopped.txt')), false, 'the call ran while the console was stopped');
        assertBlocked(resultsInOrder()[0], /went silent/);
        await stopped.ctl('approve', item.id);
        assert.equal(existsSync(join(cwd, 'stopped.txt')), false, 'the late approval ran the call');
      } finally {
        stopped.process.kill('SIGCONT');
        await stopped.stop();
      }
    });

    test('no console: a data directory without endpoint.json blocks the call', async () => {
      const empty = join(h.work, `empty-${version}`);
      mkdirSync(empty, { mode: 0o700 });
      const cwd = h.newDir();
      model.script([[bash('echo allowed > allowed.txt')], [{ text: 'ok' }]]);
      const r = await cli.run(version, home, cwd, 'write the file', { dataDir: empty });
      assert.equal(r.code, 0, r.stderr);
      assert.equal(existsSync(join(cwd, 'allowed.txt')), false);
      assertBlocked(resultsInOrder()[0], /no console found/);
    });

    test('a stale endpoint.json (its console killed before the run) blocks the call', async () => {
      const gone = await h.otherConsole(`gone-${version}`);
      await gone.kill('SIGKILL');
      assert.ok(existsSync(join(gone.dataDir, 'endpoint.json')));
      const cwd = h.newDir();
      model.script([[bash('echo allowed > allowed.txt')], [{ text: 'ok' }]]);
      const r = await cli.run(version, home, cwd, 'write the file', { dataDir: gone.dataDir });
      assert.equal(r.code, 0, r.stderr);
      assert.equal(existsSync(join(cwd, 'allowed.txt')), false);
      assertBlocked(resultsInOrder()[0], /cannot connect to the console/);
    });

    test("no holdpoint-ctl on PATH: the call is blocked, even where Claude Code's own permissions allow it", async () => {
      const cwd = h.newDir();
      const file = join(cwd, 'edited.txt');
      // acceptEdits lets Claude Code write files in its working directory
      // without asking: only the hook stands in the way.
      model.script([[{ tool: 'Write', input: { file_path: file, content: 'unchecked' } }], [{ text: 'ok' }]]);
      const r = await cli.run(version, home, cwd, 'write the file', { permissionMode: 'acceptEdits', ctlOnPath: false });
      assert.equal(r.code, 0, r.stderr);
      assert.equal(existsSync(file), false, 'the call ran without the hook');
      const [result] = resultsInOrder();
      assert.equal(result.isError, true, result.text);
      assert.match(result.text, /holdpoint-ctl: not found/);
    });

    test("a call over the console's 1 MiB message cap is blocked, and the console goes on", async () => {
      const cwd = h.newDir();
      const file = join(cwd, 'huge.txt');
      const content = 'x'.repeat(1100 * 1024);
      model.script([[{ tool: 'Write', input: { file_path: file, content } }], [{ text: 'too big then' }]]);
      const r = await cli.run(version, home, cwd, 'write the big file');
      assert.equal(r.code, 0, r.stderr);
      assert.equal(existsSync(file), false, 'the oversized call ran');
      // The whole input reached the hook (a cut one would be refused as
      // invalid JSON), and the hook refused it against the limit the
      // console's welcome gave, with a reason the model can act on.
      assertBlocked(resultsInOrder()[0], /the message is \d+ bytes, more than the console takes \(1048576 bytes/);
      assert.doesNotMatch(resultsInOrder()[0].text, /not valid JSON|device not open/);
      // The console dropped that connection only: it still answers, and
      // nothing of the call waits in its queue.
      assert.deepEqual((await h.holdpoint.pending()).filter((i) => i.tool_name === 'Write'), []);
    });
  });
}
