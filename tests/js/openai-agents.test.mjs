// SPDX-License-Identifier: Apache-2.0
// OpenAI Agents JS (@openai/agents) with the holdpoint adapters, a scripted
// Chat Completions model on loopback, and a real headless console.

import { test, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { HoldpointApprovals, HoldpointToolGuard, guardTool } from 'holdpoint/openai-agents';
import { HoldpointHaltError } from 'holdpoint';
import { Console, within, waitFor, awaitRewriteAsSent } from './console.mjs';
import { ScriptedChatModel } from './chatmodel.mjs';
import { openaiAgent, openaiRunner, openaiTools } from './frameworks.mjs';

process.env.OPENAI_AGENTS_DISABLE_TRACING = '1';
const hp = new Console();
const model = new ScriptedChatModel();
let runner;
let ran;

before(async () => {
  await hp.start();
  await model.start();
  runner = openaiRunner(model);
});

after(async () => {
  await model.stop();
  await hp.stop();
});

beforeEach(() => {
  ran = [];
  model.requests = [];
});

// needsApproval + result.interruptions

test('approvals: an allowed call runs, and the model sees its result', async () => {
  const approvals = new HoldpointApprovals({ dataDir: hp.dataDir });
  model.willCall({ name: 'read_note', args: { path: 'a.txt', text: null } });
  const { result, halted } = await within('the run', approvals.run((input) => runner.run(openaiAgent(openaiTools(ran, true)), input), 'read a.txt'));
  assert.equal(halted, false);
  assert.deepEqual(ran, [{ name: 'read_note', path: 'a.txt', text: null }]);
  assert.equal(result.finalOutput, 'done: read_note ran on a.txt');
  await approvals.close();
});

test('approvals: a policy deny is rejected with the console reason as the message', async () => {
  const approvals = new HoldpointApprovals({ dataDir: hp.dataDir });
  model.willCall({ name: 'delete_note', args: { path: 'a.txt', text: null } });
  const { result } = await within('the run', approvals.run((input) => runner.run(openaiAgent(openaiTools(ran, true)), input), 'delete a.txt'));
  assert.deepEqual(ran, []);
  assert.deepEqual(model.toolResults(), ['Denied by Holdpoint: notes are never deleted']);
  assert.equal(result.finalOutput, 'done: Denied by Holdpoint: notes are never deleted');
  await approvals.close();
});

test('approvals: a person denies with holdpoint-ctl; the model gets that reason', async () => {
  const approvals = new HoldpointApprovals({ dataDir: hp.dataDir });
  model.willCall({ name: 'send_note', args: { path: 'human-deny.txt', text: 'x' } });
  const running = approvals.run((input) => runner.run(openaiAgent(openaiTools(ran, true)), input), 'send it');
  const item = await hp.pendingItem((i) => i.args.path === 'human-deny.txt');
  assert.equal(item.agent.framework, 'openai-agents');
  assert.equal(item.turn_id, approvals.turnId); // the run is one console turn
  assert.ok(item.turn_id);
  await hp.ctl('deny', item.id, '--reason', 'not today');
  await within('the run', running);
  assert.deepEqual(ran, []);
  assert.deepEqual(model.toolResults(), ['Denied by Holdpoint: not today']);
  await approvals.close();
});

test('approvals: a policy modify goes to a person as sent; an edit is refused, and approving runs the original arguments', async () => {
  const approvals = new HoldpointApprovals({ dataDir: hp.dataDir });
  model.willCall({ name: 'write_note', args: { path: 'as-sent.txt', text: 'hi' } });
  const running = approvals.run((input) => runner.run(openaiAgent(openaiTools(ran, true)), input), 'write');
  // The guardrail's rewrite would be dropped by an approval, so a person decides on the call as sent.
  const item = await awaitRewriteAsSent(hp, 'openai-agents', { path: 'as-sent.txt', text: 'hi' });
  assert.deepEqual(ran, []);
  await hp.ctl('approve', item.id);
  const { result, halted } = await within('the approved run', running);
  assert.equal(halted, false);
  assert.deepEqual(ran, [{ name: 'write_note', path: 'as-sent.txt', text: 'hi' }]);
  assert.equal(result.finalOutput, 'done: write_note ran on as-sent.txt');
  await approvals.close();
});

test('approvals: a halt rejects the call and the run is not resumed', async () => {
  const approvals = new HoldpointApprovals({ dataDir: hp.dataDir });
  model.willCall({ name: 'shutdown', args: { path: 'all', text: null } });
  const { halted, haltReason, result } = await within('the run', approvals.run((input) => runner.run(openaiAgent(openaiTools(ran, true)), input), 'stop'));
  assert.equal(halted, true);
  assert.equal(haltReason, 'stop everything now');
  assert.equal(result.interruptions.length, 1);
  assert.deepEqual(ran, []);
  assert.equal(model.requests.length, 1); // the model was not asked again
  await approvals.close();
});

test('approvals: a halt in a batch rejects every call of it, so even an application that resumes anyway runs none', async () => {
  const approvals = new HoldpointApprovals({ dataDir: hp.dataDir });
  const agentWithTools = openaiAgent(openaiTools(ran, true));
  // The read is allowed before the shutdown halts the turn.
  model.willCall({ name: 'read_note', args: { path: 'before-halt.txt', text: null } }, { name: 'shutdown', args: { path: 'all', text: null } });
  const { result, halted, haltReason } = await within('the run', approvals.run((input) => runner.run(agentWithTools, input), 'read, then stop'));
  assert.equal(halted, true);
  assert.equal(haltReason, 'stop everything now');
  assert.equal(model.requests.length, 1);
  // Resumed as if `halted` were ignored: the state the adapter left runs nothing.
  const resumed = await within('the resumed run', runner.run(agentWithTools, result.state));
  assert.deepEqual(ran, []);
  assert.deepEqual(model.toolResults(), ['Halted by Holdpoint: stop everything now', 'Halted by Holdpoint: stop everything now']);
  assert.equal(resumed.interruptions?.length ?? 0, 0);
  await approvals.close();
});

// The tool results of the model's last request, by the path its call asked for.
function resultsByPath() {
  const request = model.requests[model.requests.length - 1];
  const asked = request.messages.find((m) => m.role === 'assistant' && m.tool_calls?.length);
  const pathOf = Object.fromEntries(asked.tool_calls.map((c) => [c.id, JSON.parse(c.function.arguments).path]));
  return Object.fromEntries(request.messages.filter((m) => m.role === 'tool').map((m) => [pathOf[m.tool_call_id], m.content]));
}

test('approvals: two calls in one response are decided one by one, each as decided for it', async () => {
  const approvals = new HoldpointApprovals({ dataDir: hp.dataDir });
  model.willCall({ name: 'send_note', args: { path: 'pair-a.txt', text: 'a' } }, { name: 'send_note', args: { path: 'pair-b.txt', text: 'b' } });
  const running = approvals.run((input) => runner.run(openaiAgent(openaiTools(ran, true)), input), 'send both');
  const first = await hp.pendingItem((i) => i.args.path === 'pair-a.txt');
  await hp.ctl('deny', first.id, '--reason', 'not a');
  const second = await hp.pendingItem((i) => i.args.path === 'pair-b.txt');
  assert.equal(second.turn_id, first.turn_id);
  await hp.ctl('approve', second.id);
  const { halted } = await within('the run', running);
  assert.equal(halted, false);
  assert.deepEqual(ran, [{ name: 'send_note', path: 'pair-b.txt', text: 'b' }]);
  assert.deepEqual(resultsByPath(), { 'pair-a.txt': 'Denied by Holdpoint: not a', 'pair-b.txt': 'send_note ran on pair-b.txt' });
  await approvals.close();
});

// guardTool: the console inside invoke

test('guardTool: an allowed call runs as asked', async () => {
  const guard = new HoldpointToolGuard({ dataDir: hp.dataDir });
  model.willCall({ name: 'read_note', args: { path: 'b.txt', text: null } });
  const result = await within('the run', runner.run(openaiAgent(guard.tools(openaiTools(ran, false))), 'read b.txt'));
  assert.deepEqual(ran, [{ name: 'read_note', path: 'b.txt', text: null }]);
  assert.equal(result.finalOutput, 'done: read_note ran on b.txt');
  await guard.close();
});

test('guardTool: a policy modify runs the tool with the edited arguments', async () => {
  const guard = new HoldpointToolGuard({ dataDir: hp.dataDir });
  model.willCall({ name: 'write_note', args: { path: 'notes.txt', text: 'hi' } });
  await within('the run', runner.run(openaiAgent(guard.tools(openaiTools(ran, false))), 'write'));
  assert.deepEqual(ran, [{ name: 'write_note', path: 'sandbox/out.txt', text: 'hi' }]);
  await guard.close();
});

test('guardTool: a person edits with holdpoint-ctl; the edited call runs', async () => {
  const guard = new HoldpointToolGuard({ dataDir: hp.dataDir });
  model.willCall({ name: 'send_note', args: { path: 'asked.txt', text: 'x' } });
  const running = runner.run(openaiAgent(guard.tools(openaiTools(ran, false))), 'send');
  const item = await hp.pendingItem((i) => i.args.path === 'asked.txt');
  await hp.ctl('edit', item.id, '--args', JSON.stringify({ path: 'edited.txt', text: 'y' }));
  await within('the run', running);
  assert.deepEqual(ran, [{ name: 'send_note', path: 'edited.txt', text: 'y' }]);
  await guard.close();
});

test('guardTool: a policy deny and a person deny reach the model with the reason', async () => {
  const guard = new HoldpointToolGuard({ dataDir: hp.dataDir });
  const tools = guard.tools(openaiTools(ran, false));
  model.willCall({ name: 'delete_note', args: { path: 'c.txt', text: null } });
  await within('the run', runner.run(openaiAgent(tools), 'delete'));
  model.willCall({ name: 'send_note', args: { path: 'deny-me.txt', text: null } });
  const running = runner.run(openaiAgent(tools), 'send');
  const item = await hp.pendingItem((i) => i.args.path === 'deny-me.txt');
  await hp.ctl('deny', item.id, '--reason', 'wrong recipient');
  await within('the run', running);
  assert.deepEqual(ran, []);
  assert.deepEqual(model.toolResults(), ['Denied by Holdpoint: notes are never deleted', 'Denied by Holdpoint: wrong recipient']);
  await guard.close();
});

test('guardTool: a halt rejects the run and the tool does not run', async () => {
  const guard = new HoldpointToolGuard({ dataDir: hp.dataDir });
  model.willCall({ name: 'shutdown', args: { path: 'all', text: null } });
  await assert.rejects(within('the run', runner.run(openaiAgent(guard.tools(openaiTools(ran, false))), 'stop')), (e) => {
    const cause = e.error ?? e.cause;
    return cause instanceof HoldpointHaltError && /stop everything now/.test(cause.message);
  });
  assert.deepEqual(ran, []);
  assert.equal(guard.halted, true);
  await guard.close();
});

test('guardTool: two calls in one response wait together; one is edited and runs while the other waits, then that one is denied', async () => {
  const guard = new HoldpointToolGuard({ dataDir: hp.dataDir });
  model.willCall({ name: 'send_note', args: { path: 'par-1.txt', text: 'one' } }, { name: 'send_note', args: { path: 'par-2.txt', text: 'two' } });
  const running = runner.run(openaiAgent(guard.tools(openaiTools(ran, false))), 'send both');
  const first = await hp.pendingItem((i) => i.args.path === 'par-1.txt');
  const second = await hp.pendingItem((i) => i.args.path === 'par-2.txt');
  // The second is decided first.
  await hp.ctl('edit', second.id, '--args', JSON.stringify({ path: 'par-2-edited.txt', text: 'two, edited' }));
  await waitFor('the edited call to run', () => ran.length > 0);
  assert.deepEqual(ran, [{ name: 'send_note', path: 'par-2-edited.txt', text: 'two, edited' }]);
  assert.ok((await hp.pending()).some((i) => i.id === first.id), 'the first call stopped waiting');
  assert.equal(model.requests.length, 1);
  await hp.ctl('deny', first.id, '--reason', 'one note is enough');
  await within('the run', running);
  assert.deepEqual(ran, [{ name: 'send_note', path: 'par-2-edited.txt', text: 'two, edited' }]);
  assert.equal(model.requests.length, 2);
  assert.deepEqual(resultsByPath(), { 'par-1.txt': 'Denied by Holdpoint: one note is enough', 'par-2.txt': 'send_note ran on par-2-edited.txt' });
  await guard.close();
});

test('guardTool: no console means the tool does not run', async () => {
  const guard = guardTool(openaiTools(ran, false)[0], { dataDir: '/nonexistent-holdpoint-dir' });
  model.willCall({ name: 'read_note', args: { path: 'd.txt', text: null } });
  await within('the run', runner.run(openaiAgent([guard]), 'read'));
  assert.deepEqual(ran, []);
  assert.match(model.toolResults()[0], /^Denied by Holdpoint: no decision could be obtained/);
});
