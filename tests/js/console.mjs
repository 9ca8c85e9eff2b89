// SPDX-License-Identifier: Apache-2.0
// The console the JS adapter tests share (tests/common/console.mjs), in a
// data directory of its own, with a policy that has one tool per decision
// kind. HOLDPOINT_BIN and HOLDPOINT_CTL_BIN point at the built binaries
// (CTest sets them; see tests/CMakeLists.txt).

import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { Console as HeadlessConsole } from '../common/console.mjs';

export { waitFor, within, DeadlineError } from '../common/console.mjs';

export const HOLDPOINT = process.env.HOLDPOINT_BIN;
export const CTL = process.env.HOLDPOINT_CTL_BIN;
assert.ok(HOLDPOINT && CTL, 'HOLDPOINT_BIN and HOLDPOINT_CTL_BIN must be set');

// One tool per decision kind; any other tool waits for a person.
export const POLICY = {
  default: 'ask',
  guardrails: [
    { type: 'rules', rules: [
      { when: { tool: 'read_note' }, action: 'allow', reason: 'reads are fine' },
      { when: { tool: 'delete_note' }, action: 'deny', reason: 'notes are never deleted' },
      { when: { tool: 'write_note' }, action: 'modify', set: { path: 'sandbox/out.txt' }, reason: 'sandboxed' },
      { when: { tool: 'shutdown' }, action: 'halt', reason: 'stop everything now' },
    ] },
    { type: 'rules', name: 'writes-ok', rules: [
      { when: { tool: 'write_note' }, action: 'allow', reason: 'writes are fine once sandboxed' },
    ] },
  ],
};

export class Console extends HeadlessConsole {
  constructor(policy = POLICY) {
    const work = realpathSync(mkdtempSync(join(tmpdir(), 'holdpoint-js-')));
    super({ holdpoint: HOLDPOINT, ctl: CTL, dataDir: join(work, 'data') });
    this.work = work;
    this.policyPath = join(work, 'policy.json');
    writeFileSync(this.policyPath, JSON.stringify(policy));
  }

  start() {
    return super.start(this.policyPath);
  }

  async stop() {
    await super.stop();
    rmSync(this.work, { recursive: true, force: true });
  }
}

// For a client that takes no edits (hello capabilities modify:false), the
// policy's rewrite of write_note cannot run: the call waits for a person as
// the model sent it (`args`), with no rewrite offered, and an edit of it is
// refused. Returns the queue item.
export async function awaitRewriteAsSent(hp, agentName, args) {
  const item = await hp.pendingItem((i) => i.args.path === args.path, { what: 'the rewritten call to wait for a person' });
  assert.deepEqual(item.agent.capabilities, { modify: false });
  // hello names the OS user who started the agent (exclude_requester).
  assert.equal(item.agent.user, userInfo().username);
  assert.deepEqual(item.args, args);
  assert.equal(item.reason, `a guardrail would rewrite the arguments (rules: sandboxed), but agent "${agentName}" `
    + 'cannot take edited arguments: approve or deny the call as sent');
  assert.equal('proposed_args' in item, false, 'the item offers a rewrite this path cannot run');
  const edit = await hp.ctlRefused('edit', item.id, '--args', JSON.stringify({ ...args, path: 'sandbox/out.txt' }));
  assert.equal(edit.code, 2);
  assert.match(edit.stderr, /cannot take edited arguments/);
  return item;
}
