// SPDX-License-Identifier: Apache-2.0
// What the real Claude Code CLI (both pinned versions) does with the hook's
// answers beyond one plain call: two tool calls in one model message, each
// decided differently; a Write whose path and content are far from ASCII and
// several hundred KB long; and the PostToolUse answers (a warning the model
// must read, a halt that stops the turn).
//
// Run by CTest (see tests/CMakeLists.txt) with HOLDPOINT_BIN and
// HOLDPOINT_CTL_BIN pointing at the built binaries.

import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { toolResults } from './anthropic-model.mjs';
import { Harness, bash } from './harness.mjs';
import { ClaudeCli, VERSIONS } from './claude-cli.mjs';

const h = new Harness('holdpoint-claude-calls-');
const { model } = h;
const cli = new ClaudeCli(h);
const ctl = (...args) => h.ctl(...args);

// A console whose policy lets every call run and checks what came back:
// loop detection that warns at the first repeated result of a Bash call
// (Bash counted as read-only here, so one result is already a repeat) and
// halts the turn at the first failed one.
let checked;

before(async () => {
  await h.start();
  checked = await h.otherConsole('checked', {
    default: 'allow',
    guardrails: [{
      type: 'loop_detection',
      read_only_tools: ['Bash'],
      no_progress: { warn: 1, block: 1000 },
      same_tool_failure: { warn: 1, halt: 1 },
    }],
  });
});

after(() => h.stop());

// Text that is hard on every layer between the model and the disk: emoji
// (with ZWJ sequences and flags), CJK, Hangul, right-to-left script,
// combining marks (not normalised), JSON's escapes and U+2028.
const LINE = 'emoji 🙂👩‍💻🇯🇵 漢字とかな 한국어 שלום e\u0301 a\u0308 n\u0303 "quoted" back\\slash\ttab \u2028 end\n';
const bytesOf = (s) => Buffer.byteLength(s, 'utf8');

// Whether the model read `text` in this request (anywhere in its messages;
// a failure says so without printing the whole conversation).
function assertModelRead(body, text) {
  assert.ok(JSON.stringify(body.messages).includes(JSON.stringify(text).slice(1, -1)), `the model never read: ${text}`);
}

for (const version of VERSIONS) {
  describe(`Claude Code ${version}`, () => {
    let home;
    before(() => {
      home = cli.home(`home-${version}`);
    });

    test('two calls in one message: the approved one runs, the denied one does not', async () => {
      const cwd = h.newDir();
      const one = { ...bash('echo one > one.txt'), id: `toolu_one_${version.replaceAll('.', '')}` };
      const two = { ...bash('echo two > two.txt'), id: `toolu_two_${version.replaceAll('.', '')}` };
      model.script([[{ text: 'both' }, one, two], [{ text: 'done' }]]);
      const running = cli.run(version, home, cwd, 'write both files');
      const first = await h.pendingCommand('echo one > one.txt');
      await ctl('approve', first.id);
      // Claude Code runs calls that write one after another: the second is
      // asked about once the first has run, while it waits.
      const second = await h.pendingCommand('echo two > two.txt');
      assert.equal(readFileSync(join(cwd, 'one.txt'), 'utf8'), 'one\n');
      assert.equal(existsSync(join(cwd, 'two.txt')), false);
      assert.equal(second.turn_id, first.turn_id, 'one model message, one turn');
      await ctl('deny', second.id, '--reason', 'only the first file');
      const r = await running;
      assert.equal(r.code, 0, r.stderr);
      assert.equal(readFileSync(join(cwd, 'one.txt'), 'utf8'), 'one\n');
      assert.equal(existsSync(join(cwd, 'two.txt')), false);
      // Each result answers its own call, in the one request that follows.
      assert.equal(model.requests.length, 2);
      const results = toolResults(model.requests);
      assert.equal(results.get(one.id).isError, false);
      assert.equal(results.get(two.id).isError, true);
      assert.match(results.get(two.id).text, /only the first file/);
    });

    test('two calls in one message: the first denied, the second approved', async () => {
      const cwd = h.newDir();
      const one = { ...bash('echo one > one.txt'), id: `toolu_den_${version.replaceAll('.', '')}` };
      const two = { ...bash('echo two > two.txt'), id: `toolu_app_${version.replaceAll('.', '')}` };
      model.script([[one, two], [{ text: 'done' }]]);
      const running = cli.run(version, home, cwd, 'write both files');
      const first = await h.pendingCommand('echo one > one.txt');
      await ctl('deny', first.id, '--reason', 'not the first file');
      const second = await h.pendingCommand('echo two > two.txt');
      assert.equal(existsSync(join(cwd, 'one.txt')), false);
      await ctl('approve', second.id);
      const r = await running;
      assert.equal(r.code, 0, r.stderr);
      assert.equal(existsSync(join(cwd, 'one.txt')), false);
      assert.equal(readFileSync(join(cwd, 'two.txt'), 'utf8'), 'two\n');
      const results = toolResults(model.requests);
      assert.equal(results.get(one.id).isError, true);
      assert.match(results.get(one.id).text, /not the first file/);
      assert.equal(results.get(two.id).isError, false);
    });

    test('two read-only calls wait at once: the one approved first runs, the other, denied later, does not', async () => {
      const cwd = h.newDir();
      writeFileSync(join(cwd, 'a.txt'), 'alpha\n');
      writeFileSync(join(cwd, 'b.txt'), 'beta\n');
      const a = { ...bash('cat a.txt'), id: `toolu_cata_${version.replaceAll('.', '')}` };
      const b = { ...bash('cat b.txt'), id: `toolu_catb_${version.replaceAll('.', '')}` };
      model.script([[a, b], [{ text: 'done' }]]);
      const running = cli.run(version, home, cwd, 'read both files');
      // Calls that only read run side by side: both wait for a person.
      const first = await h.pendingCommand('cat a.txt');
      const second = await h.pendingCommand('cat b.txt');
      assert.deepEqual((await h.holdpoint.pending()).map((i) => i.id).sort(), [first.id, second.id].sort());
      await ctl('approve', second.id);
      // The other still waits, undecided.
      const still = await h.holdpoint.pending();
      assert.deepEqual(still.map((i) => i.id), [first.id]);
      await ctl('deny', first.id, '--reason', 'not that one');
      const r = await running;
      assert.equal(r.code, 0, r.stderr);
      assert.equal(model.requests.length, 2);
      const results = toolResults(model.requests);
      assert.deepEqual(results.get(b.id), { text: 'beta', isError: false });
      assert.equal(results.get(a.id).isError, true);
      assert.match(results.get(a.id).text, /not that one/);
      assert.doesNotMatch(results.get(a.id).text, /alpha/);
    });

    test('a Write of a non-ASCII path and ~600 KB of non-ASCII content: the console sees it exactly, the disk gets it exactly', async () => {
      const cwd = h.newDir();
      const file = join(cwd, 'naïve-日本語-🙂-e\u0301.txt');
      const content = LINE.repeat(Math.ceil(600 * 1024 / bytesOf(LINE)));
      assert.ok(bytesOf(content) > 600 * 1024 && bytesOf(content) < 700 * 1024);
      model.script([[{ tool: 'Write', input: { file_path: file, content } }], [{ text: 'written' }]]);
      const running = cli.run(version, home, cwd, 'write the file');
      const item = await h.holdpoint.pendingItem((i) => i.tool_name === 'Write', { timeoutMs: 30000 });
      assert.equal(item.args.file_path, file);
      assert.ok(item.args.content === content, 'the console saw other content than the model sent');
      await ctl('approve', item.id);
      const r = await running;
      assert.equal(r.code, 0, r.stderr);
      assert.ok(readFileSync(file).equals(Buffer.from(content, 'utf8')), 'the bytes on disk differ from the content');
      const [result] = toolResults(model.requests).values();
      assert.equal(result.isError, false, result.text);
    });

    test("PostToolUse: the console's warning reaches the model with the result", async () => {
      const cwd = h.newDir();
      model.script([[bash('echo checked')], [{ text: 'noted' }]]);
      const r = await cli.run(version, home, cwd, 'check', { dataDir: checked.dataDir });
      assert.equal(r.code, 0, r.stderr);
      assert.equal(model.requests.length, 2);
      const [result] = toolResults(model.requests).values();
      assert.equal(result.isError, false);
      assert.match(result.text, /checked/);
      // The warning comes as the hook's additional context, after the result.
      assertModelRead(model.requests[1], 'PostToolUse:Bash hook additional context: Bash returned the same result 1 times in this turn');
    });

    test('PostToolUseFailure: a halt reaches the model, and no later call of the turn runs', async () => {
      const cwd = h.newDir();
      // The later call is one the policy would let run.
      model.script([[bash('exit 3')], [bash('echo after > after.txt')], [{ text: 'stopped' }]]);
      const r = await cli.run(version, home, cwd, 'run it', { dataDir: checked.dataDir });
      assert.equal(r.code, 0, r.stderr);
      assert.equal(existsSync(join(cwd, 'after.txt')), false, 'a call ran after the turn was halted');
      const [failed, later] = [...toolResults(model.requests).values()];
      assert.equal(failed.isError, true);
      assert.match(failed.text, /Exit code 3/);
      // The hook's block, with the console's reason, is the next thing the model reads.
      assertModelRead(model.requests[1],
        'PostToolUseFailure:Bash hook blocking error from command: "holdpoint-ctl hook claude-code || exit 2": Bash failed 1 times in this turn; halting the turn');
      // The console holds the turn halted: the model's next call is halted at once.
      if (version === '2.1.330') {
        // continue:false stops the run at that call; the model is not asked again.
        assert.equal(model.requests.length, 2);
        assert.equal(later, undefined);
      } else {
        assert.equal(later.isError, true);
        assert.match(later.text, /the run was halted \(Bash failed 1 times in this turn; halting the turn\)/);
      }
      assert.deepEqual((await checked.pending()).filter((i) => i.session_id === r.sessionId), []);
    });
  });
}
