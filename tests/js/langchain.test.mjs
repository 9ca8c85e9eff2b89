// LangChain JS (langchain v1) with humanInTheLoopMiddleware, its own
// FakeToolCallingModel, and the holdpoint adapter answering the interrupts
// through a real headless console.

import { test, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { createAgent, humanInTheLoopMiddleware, tool, FakeToolCallingModel, ToolMessage } from 'langchain';
import { Command, MemorySaver } from '@langchain/langgraph';
import { z } from 'zod';
import { HoldpointHITL } from 'holdpoint/langchain';
import { Console, within } from './console.mjs';

const hp = new Console();
let ran;
let threads = 0;

before(async () => { await hp.start(); });
after(async () => { await hp.stop(); });
beforeEach(() => { ran = []; });

const NAMES = ['read_note', 'write_note', 'delete_note', 'send_note', 'shutdown'];

function makeAgent(calls) {
  const tools = NAMES.map((name) => tool(async ({ path, text }) => {
    ran.push({ name, path, text });
    return `${name} ran on ${path}`;
  }, { name, description: `${name} a note`, schema: z.object({ path: z.string(), text: z.string().optional() }) }));
  const model = new FakeToolCallingModel({
    toolCalls: [calls.map((c, i) => ({ id: `lc-${i + 1}`, name: c.name, args: c.args })), []],
  });
  return createAgent({
    model,
    tools,
    middleware: [humanInTheLoopMiddleware({ interruptOn: Object.fromEntries(NAMES.map((n) => [n, true])) })],
    checkpointer: new MemorySaver(),
  });
}

// Runs the agent, answering each interrupt through the console, until it
// ends or the console halts it.
async function runThroughConsole(hitl, agent, onInterrupt = async () => {}) {
  const config = { configurable: { thread_id: `t-${++threads}` } };
  let result = await within('the run', agent.invoke({ messages: [{ role: 'user', content: 'go' }] }, config));
  const rounds = [];
  while (result.__interrupt__?.length) {
    const running = hitl.decideInterrupts(result.__interrupt__);
    await onInterrupt(result.__interrupt__);
    const decided = await within('the decisions', running);
    rounds.push({ request: result.__interrupt__[0].value, decided });
    if (decided.halted) return { result, rounds, halted: true };
    result = await within('the resumed run', agent.invoke(new Command({ resume: decided.resume }), config));
  }
  return { result, rounds, halted: false };
}

function toolMessages(result) {
  return result.messages.filter((m) => ToolMessage.isInstance(m)).map((m) => ({ name: m.name, content: m.content, status: m.status }));
}

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

test('a halt rejects the whole batch and the run is not resumed', async () => {
  const hitl = new HoldpointHITL({ dataDir: hp.dataDir });
  const agent = makeAgent([{ name: 'read_note', args: { path: 'd.txt' } }, { name: 'shutdown', args: { path: 'all' } }]);
  const { halted, rounds } = await runThroughConsole(hitl, agent);
  assert.equal(halted, true);
  assert.equal(hitl.haltReason, 'stop everything now');
  assert.deepEqual(rounds[0].decided.resume, { decisions: [
    { type: 'reject', message: 'Halted by Holdpoint: stop everything now' },
    { type: 'reject', message: 'Halted by Holdpoint: stop everything now' },
  ] });
  assert.deepEqual(ran, []);
  await hitl.close();
});

test('no console: every action is rejected, none approved', async () => {
  const hitl = new HoldpointHITL({ dataDir: '/nonexistent-holdpoint-dir' });
  const decided = await within('the decision', hitl.decide({ actionRequests: [{ name: 'read_note', args: { path: 'e.txt' } }], reviewConfigs: [] }));
  assert.equal(decided.response.decisions[0].type, 'reject');
  assert.match(decided.response.decisions[0].message, /no decision could be obtained/);
});
