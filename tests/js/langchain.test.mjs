// SPDX-License-Identifier: Apache-2.0
// LangChain JS (langchain v1) with humanInTheLoopMiddleware, its own
// FakeToolCallingModel, and the holdpoint adapter answering the interrupts
// through a real headless console.

import { test, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { HoldpointHITL } from 'holdpoint/langchain';
import { Console, within } from './console.mjs';
import { langchainAgent, runThroughConsole, toolMessages } from './frameworks.mjs';

const hp = new Console();
let ran;

before(async () => { await hp.start(); });
after(async () => { await hp.stop(); });
beforeEach(() => { ran = []; });

const makeAgent = (calls) => langchainAgent(ran, calls);

test('an allowed call is approved and runs', async () => {
  const hitl = new HoldpointHITL({ dataDir: hp.dataDir });
  const { result, rounds } = await runThroughConsole(hitl, makeAgent([{ name: 'read_note', args: { path: 'a.txt' } }]));
  assert.deepEqual(rounds[0].decided.resume, { decisions: [{ type: 'approve' }] });
  assert.deepEqual(ran, [{ name: 'read_note', path: 'a.txt', text: undefined }]);
  assert.deepEqual(toolMessages(result), [{ name: 'read_note', content: 'read_note ran on a.txt', status: 'success' }]);
  await hitl.close();
});

test('a batch is answered in order: approve, edit with the edited action, and a person approving', async () => {
  const hitl = new HoldpointHITL({ dataDir: hp.dataDir });
  const agent = makeAgent([
    { name: 'read_note', args: { path: 'b.txt' } },
    { name: 'write_note', args: { path: 'notes.txt', text: 'hi' } },
    { name: 'send_note', args: { path: 'batch.txt' } },
  ]);
  const { rounds } = await runThroughConsole(hitl, agent, async () => {
    const item = await hp.pendingItem((i) => i.args.path === 'batch.txt');
    assert.equal(item.agent.framework, 'langchain');
    await hp.ctl('approve', item.id);
  });
  assert.equal(rounds[0].request.actionRequests.length, 3);
  assert.deepEqual(rounds[0].decided.resume, { decisions: [
    { type: 'approve' },
    { type: 'edit', editedAction: { name: 'write_note', args: { path: 'sandbox/out.txt', text: 'hi' } } },
    { type: 'approve' },
  ] });
  assert.deepEqual(ran.sort((a, b) => a.name.localeCompare(b.name)), [
    { name: 'read_note', path: 'b.txt', text: undefined },
    { name: 'send_note', path: 'batch.txt', text: undefined },
    { name: 'write_note', path: 'sandbox/out.txt', text: 'hi' },
  ]);
  await hitl.close();
});

test('a person edits with holdpoint-ctl; the edited call runs', async () => {
  const hitl = new HoldpointHITL({ dataDir: hp.dataDir });
  await runThroughConsole(hitl, makeAgent([{ name: 'send_note', args: { path: 'asked.txt', text: 'x' } }]), async () => {
    const item = await hp.pendingItem((i) => i.args.path === 'asked.txt');
    await hp.ctl('edit', item.id, '--args', JSON.stringify({ path: 'edited.txt', text: 'y' }));
  });
  assert.deepEqual(ran, [{ name: 'send_note', path: 'edited.txt', text: 'y' }]);
  await hitl.close();
});

test('a policy deny and a person deny are rejected with the reason as the message the model sees', async () => {
  const hitl = new HoldpointHITL({ dataDir: hp.dataDir });
  const agent = makeAgent([{ name: 'delete_note', args: { path: 'c.txt' } }, { name: 'send_note', args: { path: 'lc-deny.txt' } }]);
  const { result, rounds } = await runThroughConsole(hitl, agent, async () => {
    const item = await hp.pendingItem((i) => i.args.path === 'lc-deny.txt');
    await hp.ctl('deny', item.id, '--reason', 'not this one');
  });
  assert.deepEqual(rounds[0].decided.resume, { decisions: [
    { type: 'reject', message: 'Denied by Holdpoint: notes are never deleted' },
    { type: 'reject', message: 'Denied by Holdpoint: not this one' },
  ] });
  assert.deepEqual(ran, []);
  assert.deepEqual(toolMessages(result), [
    { name: 'delete_note', content: 'Denied by Holdpoint: notes are never deleted', status: 'error' },
    { name: 'send_note', content: 'Denied by Holdpoint: not this one', status: 'error' },
  ]);
  await hitl.close();
});

test('a halt rejects the whole batch; not resumed, the graph stays at the interrupt and nothing runs', async () => {
  const hitl = new HoldpointHITL({ dataDir: hp.dataDir });
  const agent = makeAgent([{ name: 'read_note', args: { path: 'd.txt' } }, { name: 'shutdown', args: { path: 'all' } }]);
  const { halted, rounds, config } = await runThroughConsole(hitl, agent);
  assert.equal(halted, true);
  assert.equal(hitl.haltReason, 'stop everything now');
  // The read was allowed before the shutdown halted the turn; it is rejected too.
  assert.equal(rounds[0].decided.halted, true);
  assert.deepEqual(rounds[0].decided.resume, { decisions: [
    { type: 'reject', message: 'Halted by Holdpoint: stop everything now' },
    { type: 'reject', message: 'Halted by Holdpoint: stop everything now' },
  ] });
  assert.deepEqual(ran, []);
  const state = await agent.graph.getState(config);
  assert.ok(state.tasks.some((t) => t.interrupts.length > 0), 'the graph is not waiting at the interrupt');
  await hitl.close();
});

test('a halt: an application that resumes anyway with the adapter\'s answer runs no call, and the model is told', async () => {
  // This is what keeps a halt from failing open: the answer itself rejects
  // every call, so the graph runs none of them whatever the caller does.
  const hitl = new HoldpointHITL({ dataDir: hp.dataDir });
  const agent = makeAgent([{ name: 'read_note', args: { path: 'resumed.txt' } }, { name: 'shutdown', args: { path: 'all' } }]);
  const { result, rounds } = await runThroughConsole(hitl, agent, undefined, { resumeAfterHalt: true });
  assert.equal(rounds.length, 1);
  assert.equal(rounds[0].decided.halted, true);
  assert.deepEqual(ran, []);
  assert.deepEqual(toolMessages(result), [
    { name: 'read_note', content: 'Halted by Holdpoint: stop everything now', status: 'error' },
    { name: 'shutdown', content: 'Halted by Holdpoint: stop everything now', status: 'error' },
  ]);
  await hitl.close();
});

test('a person halts a waiting call: the batch is rejected, and resumed anyway nothing runs', async () => {
  const hitl = new HoldpointHITL({ dataDir: hp.dataDir });
  const agent = makeAgent([{ name: 'read_note', args: { path: 'e.txt' } }, { name: 'send_note', args: { path: 'lc-halt.txt' } }]);
  const { result, rounds } = await runThroughConsole(hitl, agent, async () => {
    const item = await hp.pendingItem((i) => i.args.path === 'lc-halt.txt');
    await hp.ctl('halt', item.id, '--reason', 'enough');
  }, { resumeAfterHalt: true });
  assert.equal(rounds[0].decided.halted, true);
  assert.deepEqual(rounds[0].decided.resume.decisions.map((d) => d.type), ['reject', 'reject']);
  assert.deepEqual(ran, []);
  assert.deepEqual(toolMessages(result).map((m) => [m.name, m.status]), [['read_note', 'error'], ['send_note', 'error']]);
  for (const m of toolMessages(result)) assert.match(m.content, /^Halted by Holdpoint: .*enough/);
  await hitl.close();
});
