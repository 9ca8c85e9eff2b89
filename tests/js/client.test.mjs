// SPDX-License-Identifier: Apache-2.0
// The holdpoint client against a real headless console.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import {
  HoldpointClient, ConsoleUnavailableError, ConsoleRefusedError, ConnectionLostError, HoldpointError,
} from 'holdpoint';
import { Console, waitFor, within } from './console.mjs';

const hp = new Console();
let client;

before(async () => {
  await hp.start();
  client = await within('the connection', HoldpointClient.connect({ dataDir: hp.dataDir, agentName: 'js-tests', framework: 'node-test' }));
});

after(async () => {
  await client?.close();
  await hp.stop();
});

test('a call the policy allows resolves allow with its own arguments', async () => {
  const decision = await within('the decision', client.submit('read_note', { path: 'a.txt' }));
  assert.equal(decision.decision, 'allow');
  assert.equal(decision.allowed, true);
  assert.deepEqual(decision.args, { path: 'a.txt' });
  assert.equal(decision.decidedBy, 'guardrail:rules');
  const after = await within('the answer to tool_result', client.toolResult(decision.callId, true, { text: 'hello' }));
  assert.equal(after.action, 'allow');
});

test('a policy deny resolves deny with the reason and no arguments', async () => {
  const decision = await within('the decision', client.submit('delete_note', { path: 'a.txt' }));
  assert.equal(decision.decision, 'deny');
  assert.equal(decision.allowed, false);
  assert.equal(decision.args, undefined);
  assert.equal(decision.reason, 'notes are never deleted');
});

test('a policy modify resolves with the edited arguments', async () => {
  const decision = await within('the decision', client.submit('write_note', { path: 'notes.txt', text: 'hi' }));
  assert.equal(decision.decision, 'modify');
  assert.deepEqual(decision.args, { path: 'sandbox/out.txt', text: 'hi' });
});

test("a call over the console's message limit is refused before it is sent; the connection goes on", async () => {
  const big = { text: '界'.repeat(400 * 1024) }; // 1.2 MB as UTF-8
  await assert.rejects(client.submit('read_note', big), (e) => {
    assert.ok(e instanceof HoldpointError);
    assert.equal(e.code, 'too_large');
    assert.match(e.message, /^the call is \d+ bytes, more than the console takes \(1048576 bytes, holdpoint --max-message-bytes\)$/);
    return true;
  });
  assert.equal(client.connected, true, 'the connection was dropped');
  const next = await within('the next decision', client.submit('read_note', { path: 'after-too-large.txt' }));
  assert.equal(next.decision, 'allow');
});

test('a call waits for a person: pending, then approve, edit, deny and halt from holdpoint-ctl', async () => {
  const seen = [];
  const approve = client.submit('send_mail', { to: 'a@example.org' }, { onPending: (p) => seen.push(p) });
  const item = await hp.pendingItem((i) => i.args.to === 'a@example.org');
  // user: the OS user who started the agent, for rules that exclude the requester.
  assert.deepEqual(item.agent, { name: 'js-tests', framework: 'node-test', user: userInfo().username });
  await hp.ctl('approve', item.id);
  const approved = await within('the approval', approve);
  assert.equal(approved.decision, 'allow');
  assert.equal(approved.pendingId, item.id);
  assert.equal(seen.length, 1);
  assert.equal(seen[0].id, item.id);

  const edit = client.submit('send_mail', { to: 'b@example.org' });
  const editItem = await hp.pendingItem((i) => i.args.to === 'b@example.org');
  await hp.ctl('edit', editItem.id, '--args', JSON.stringify({ to: 'c@example.org' }));
  const edited = await within('the edit', edit);
  assert.equal(edited.decision, 'modify');
  assert.deepEqual(edited.args, { to: 'c@example.org' });

  const deny = client.submit('send_mail', { to: 'd@example.org' });
  const denyItem = await hp.pendingItem((i) => i.args.to === 'd@example.org');
  await hp.ctl('deny', denyItem.id, '--reason', 'not to this address');
  const denied = await within('the deny', deny);
  assert.equal(denied.decision, 'deny');
  assert.equal(denied.reason, 'not to this address');
  assert.match(denied.decidedBy, /^human:/);

  const halt = client.submit('send_mail', { to: 'e@example.org' });
  const haltItem = await hp.pendingItem((i) => i.args.to === 'e@example.org');
  await hp.ctl('halt', haltItem.id);
  assert.equal((await within('the halt', halt)).decision, 'halt');
});

test('cancel resolves the waiting call as a deny, code cancelled', async () => {
  const callId = client.newCallId();
  const call = client.submit('send_mail', { to: 'cancel@example.org' }, { callId });
  await hp.pendingItem((i) => i.call_id === callId);
  await within('the cancel', client.cancel(callId));
  const decision = await within('the cancelled decision', call);
  assert.equal(decision.decision, 'deny');
  assert.equal(decision.code, 'cancelled');
  assert.equal((await hp.pending()).some((i) => i.call_id === callId), false);
});

test('aborting a submit rejects it and cancels the call at the console', async () => {
  const callId = client.newCallId();
  const controller = new AbortController();
  const call = client.submit('send_mail', { to: 'abort@example.org' }, { callId, signal: controller.signal });
  await hp.pendingItem((i) => i.call_id === callId);
  controller.abort(new Error('the user gave up'));
  await assert.rejects(within('the aborted submit', call), /the user gave up/);
  await waitFor('the call to leave the queue',
    async () => !(await hp.pending()).some((i) => i.call_id === callId));
});

test('turns: a call in a turn carries its turn id to the reviewer', async () => {
  const turn = await within('turn_start', client.turnStart());
  const call = client.submit('send_mail', { to: 'turn@example.org' });
  const item = await hp.pendingItem((i) => i.args.to === 'turn@example.org');
  assert.equal(item.turn_id, turn);
  await hp.ctl('approve', item.id);
  assert.equal((await within('the approval', call)).decision, 'allow');
  await within('turn_end', client.turnEnd(turn));
});

test('a reused call id with other arguments is refused with call_id_conflict', async () => {
  const callId = client.newCallId();
  await within('the decision', client.submit('read_note', { path: 'x' }, { callId }));
  await assert.rejects(within('the refusal', client.submit('read_note', { path: 'y' }, { callId })),
    (e) => e instanceof ConsoleRefusedError && e.code === 'call_id_conflict');
});

test('HOLDPOINT_DATA_DIR finds the console when no dataDir is given', async () => {
  const saved = process.env.HOLDPOINT_DATA_DIR;
  process.env.HOLDPOINT_DATA_DIR = hp.dataDir;
  try {
    const other = await within('the connection', HoldpointClient.connect());
    assert.equal((await within('the decision', other.submit('read_note', { path: 'env' }))).decision, 'allow');
    await other.close();
  } finally {
    if (saved === undefined) delete process.env.HOLDPOINT_DATA_DIR;
    else process.env.HOLDPOINT_DATA_DIR = saved;
  }
});

test('no endpoint.json: ConsoleUnavailableError saying where it looked', async () => {
  const empty = mkdtempSync(join(tmpdir(), 'holdpoint-none-'));
  try {
    const lonely = new HoldpointClient({ dataDir: empty });
    await assert.rejects(within('the refusal', lonely.submit('read_note', { path: 'a' })), (e) =>
      e instanceof ConsoleUnavailableError && e.code === 'console_unavailable' && e.message.includes(join(empty, 'endpoint.json')));
  } finally {
    rmSync(empty, { recursive: true, force: true });
  }
});

test('an endpoint where nothing listens: ConsoleUnavailableError, never allow', async () => {
  // A port that was just free: bind, read it, close.
  const port = await new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
  const dir = mkdtempSync(join(tmpdir(), 'holdpoint-dead-'));
  try {
    writeFileSync(join(dir, 'endpoint.json'), JSON.stringify({ url: `ws://127.0.0.1:${port}/`, agent_token: 'a'.repeat(64), protocol: 1 }));
    const dead = new HoldpointClient({ dataDir: dir });
    await assert.rejects(within('the refusal', dead.submit('read_note', { path: 'a' })), (e) =>
      e instanceof ConsoleUnavailableError && /ECONNREFUSED/.test(e.message));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a non-loopback endpoint url is refused before connecting', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'holdpoint-far-'));
  try {
    writeFileSync(join(dir, 'endpoint.json'), JSON.stringify({ url: 'ws://192.0.2.1:4000/', agent_token: 'x' }));
    await assert.rejects(within('the refusal', new HoldpointClient({ dataDir: dir }).connect()), (e) =>
      e instanceof ConsoleUnavailableError && /not a loopback/.test(e.message));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a wrong token: ConsoleRefusedError auth_failed, and the token is not in the message', async () => {
  const endpoint = JSON.parse(readFileSync(join(hp.dataDir, 'endpoint.json'), 'utf8'));
  const wrong = 'f'.repeat(64);
  const impostor = new HoldpointClient({ endpoint: { url: endpoint.url, agent_token: wrong } });
  await assert.rejects(within('the refusal', impostor.submit('read_note', { path: 'a' })), (e) =>
    e instanceof ConsoleRefusedError && e.code === 'auth_failed' && !e.message.includes(wrong) && !e.message.includes(endpoint.agent_token));
});

test('arguments nested deeper than the protocol allows are refused by the client', async () => {
  let deep = {};
  for (let i = 0; i < 70; i++) deep = { d: deep };
  await assert.rejects(within('the refusal', client.submit('read_note', deep)), (e) => e instanceof HoldpointError && e.code === 'too_deep');
});

test('the console killed while calls wait: every waiting submit rejects, none resolves as allow', async () => {
  const doomed = await new Console().start();
  try {
    const victim = await within('the connection', HoldpointClient.connect({ dataDir: doomed.dataDir }));
    const first = victim.submit('send_mail', { to: 'one@example.org' });
    const second = victim.submit('send_mail', { to: 'two@example.org' });
    await doomed.pendingItem((i) => i.args.to === 'two@example.org');
    const outcomes = Promise.allSettled([first, second]);
    await doomed.kill('SIGKILL');
    for (const outcome of await within('the waiting submits to end', outcomes)) {
      assert.equal(outcome.status, 'rejected', 'a call resolved after the console died');
      assert.ok(outcome.reason instanceof ConnectionLostError, String(outcome.reason));
      assert.equal(outcome.reason.code, 'connection_lost');
    }
    // Later calls find no console either.
    await assert.rejects(within('the refusal', victim.submit('read_note', { path: 'a' })), (e) => e instanceof HoldpointError);
    await victim.close();
  } finally {
    await doomed.stop();
  }
});
