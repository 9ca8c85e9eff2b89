// SPDX-License-Identifier: Apache-2.0
// Vercel AI SDK (ai v7) with the holdpoint adapters, the SDK's own
// MockLanguageModelV4 (ai/test) as the model, and a real headless console.

import { test, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { generateText, stepCountIs } from 'ai';
import { holdpointToolApproval, guardTools } from 'holdpoint/ai-sdk';
import { HoldpointHaltError } from 'holdpoint';
import { Console, within, awaitRewriteAsSent } from './console.mjs';
import { aiScriptedModel, aiTools } from './frameworks.mjs';

const hp = new Console();
let ran;

before(async () => { await hp.start(); });
after(async () => { await hp.stop(); });
beforeEach(() => { ran = []; });

// toolApproval

test('toolApproval: an allowed call runs', async () => {
  const approval = holdpointToolApproval({ dataDir: hp.dataDir });
  const { model, seen } = aiScriptedModel([{ name: 'read_note', args: { path: 'a.txt' } }]);
  await within('the run', generateText({ model, tools: aiTools(ran), toolApproval: approval.toolApproval, stopWhen: [stepCountIs(5), approval.stopWhen], prompt: 'read' }));
  assert.deepEqual(ran, [{ name: 'read_note', path: 'a.txt', text: undefined }]);
  assert.deepEqual(seen, [{ type: 'text', value: 'read_note ran on a.txt' }]);
  await approval.close();
});

test('toolApproval: a policy deny and a person deny reach the model as execution-denied with the reason', async () => {
  const approval = holdpointToolApproval({ dataDir: hp.dataDir });
  const first = aiScriptedModel([{ name: 'delete_note', args: { path: 'a.txt' } }]);
  await within('the run', generateText({ model: first.model, tools: aiTools(ran), toolApproval: approval.toolApproval, stopWhen: stepCountIs(5), prompt: 'delete' }));
  assert.deepEqual(first.seen, [{ type: 'execution-denied', reason: 'notes are never deleted' }]);

  const second = aiScriptedModel([{ name: 'send_note', args: { path: 'ai-deny.txt' } }]);
  const running = generateText({ model: second.model, tools: aiTools(ran), toolApproval: approval.toolApproval, stopWhen: stepCountIs(5), prompt: 'send' });
  const item = await hp.pendingItem((i) => i.args.path === 'ai-deny.txt');
  assert.equal(item.agent.framework, 'ai-sdk');
  await hp.ctl('deny', item.id, '--reason', 'ask the owner first');
  await within('the run', running);
  assert.deepEqual(second.seen, [{ type: 'execution-denied', reason: 'ask the owner first' }]);
  assert.deepEqual(ran, []);
  await approval.close();
});

test('toolApproval: a policy modify goes to a person as sent; an edit is refused, and approving runs the original input', async () => {
  const approval = holdpointToolApproval({ dataDir: hp.dataDir });
  const { model, seen } = aiScriptedModel([{ name: 'write_note', args: { path: 'as-sent.txt', text: 'hi' } }]);
  const running = generateText({ model, tools: aiTools(ran), toolApproval: approval.toolApproval, stopWhen: [stepCountIs(5), approval.stopWhen], prompt: 'write' });
  // An approval cannot change the input, so a person decides on the call as sent.
  const item = await awaitRewriteAsSent(hp, 'ai-sdk', { path: 'as-sent.txt', text: 'hi' });
  assert.deepEqual(ran, []);
  await hp.ctl('approve', item.id);
  await within('the approved run', running);
  assert.deepEqual(ran, [{ name: 'write_note', path: 'as-sent.txt', text: 'hi' }]);
  assert.deepEqual(seen, [{ type: 'text', value: 'write_note ran on as-sent.txt' }]);
  await approval.close();
});

test('toolApproval: a halt denies the call and stopWhen ends the run without asking the model again', async () => {
  const approval = holdpointToolApproval({ dataDir: hp.dataDir });
  const { model, seen } = aiScriptedModel([{ name: 'shutdown', args: { path: 'all' } }]);
  const result = await within('the run', generateText({ model, tools: aiTools(ran), toolApproval: approval.toolApproval, stopWhen: [stepCountIs(5), approval.stopWhen], prompt: 'stop' }));
  assert.equal(approval.halted, true);
  assert.equal(result.steps.length, 1);
  assert.equal(model.doGenerateCalls.length, 1);
  assert.deepEqual(seen, []);
  assert.deepEqual(ran, []);
  await approval.close();
});

// guardTools: the console inside execute

test('guardTools: allow runs, a policy modify runs with the edited input', async () => {
  const { tools, guard } = guardTools(aiTools(ran), { dataDir: hp.dataDir });
  const { model } = aiScriptedModel([{ name: 'read_note', args: { path: 'b.txt' } }, { name: 'write_note', args: { path: 'notes.txt', text: 'hi' } }]);
  await within('the run', generateText({ model, tools, stopWhen: [stepCountIs(5), guard.stopWhen], prompt: 'go' }));
  assert.deepEqual(ran.sort((a, b) => a.name.localeCompare(b.name)), [
    { name: 'read_note', path: 'b.txt', text: undefined },
    { name: 'write_note', path: 'sandbox/out.txt', text: 'hi' },
  ]);
  await guard.close();
});

test('guardTools: a person edits with holdpoint-ctl; the edited call runs', async () => {
  const { tools, guard } = guardTools(aiTools(ran), { dataDir: hp.dataDir });
  const { model } = aiScriptedModel([{ name: 'send_note', args: { path: 'asked.txt', text: 'x' } }]);
  const running = generateText({ model, tools, stopWhen: stepCountIs(5), prompt: 'send' });
  const item = await hp.pendingItem((i) => i.args.path === 'asked.txt');
  await hp.ctl('edit', item.id, '--args', JSON.stringify({ path: 'edited.txt', text: 'y' }));
  await within('the run', running);
  assert.deepEqual(ran, [{ name: 'send_note', path: 'edited.txt', text: 'y' }]);
  await guard.close();
});

test('guardTools: an edit that breaks the schema does not run', async () => {
  const { tools, guard } = guardTools(aiTools(ran), { dataDir: hp.dataDir });
  const { model, seen } = aiScriptedModel([{ name: 'send_note', args: { path: 'schema.txt' } }]);
  const running = generateText({ model, tools, stopWhen: stepCountIs(5), prompt: 'send' });
  const item = await hp.pendingItem((i) => i.args.path === 'schema.txt');
  await hp.ctl('edit', item.id, '--args', JSON.stringify({ path: 42 }));
  await within('the run', running);
  assert.deepEqual(ran, []);
  assert.equal(seen[0].type, 'error-text');
  assert.match(seen[0].value, /do not fit the tool's schema/);
  await guard.close();
});

test('guardTools: a policy deny and a person deny reach the model as a tool error with the reason', async () => {
  const { tools, guard } = guardTools(aiTools(ran), { dataDir: hp.dataDir });
  const first = aiScriptedModel([{ name: 'delete_note', args: { path: 'c.txt' } }]);
  await within('the run', generateText({ model: first.model, tools, stopWhen: stepCountIs(5), prompt: 'delete' }));
  assert.deepEqual(first.seen, [{ type: 'error-text', value: 'Denied by Holdpoint: notes are never deleted' }]);
  const second = aiScriptedModel([{ name: 'send_note', args: { path: 'guard-deny.txt' } }]);
  const running = generateText({ model: second.model, tools, stopWhen: stepCountIs(5), prompt: 'send' });
  const item = await hp.pendingItem((i) => i.args.path === 'guard-deny.txt');
  await hp.ctl('deny', item.id, '--reason', 'no mail today');
  await within('the run', running);
  assert.deepEqual(second.seen, [{ type: 'error-text', value: 'Denied by Holdpoint: no mail today' }]);
  assert.deepEqual(ran, []);
  await guard.close();
});

test('guardTools: a halt denies the call; stopWhen ends the run, or the aborted controller rejects it', async () => {
  const { tools, guard } = guardTools(aiTools(ran), { dataDir: hp.dataDir });
  const first = aiScriptedModel([{ name: 'shutdown', args: { path: 'all' } }]);
  const result = await within('the run', generateText({ model: first.model, tools, stopWhen: [stepCountIs(5), guard.stopWhen], prompt: 'stop' }));
  assert.equal(guard.halted, true);
  assert.equal(guard.haltReason, 'stop everything now');
  assert.equal(result.steps.length, 1);
  assert.equal(first.model.doGenerateCalls.length, 1);
  await guard.close();

  // Without stopWhen: the controller whose signal the run took is aborted.
  const abortController = new AbortController();
  const aborting = guardTools(aiTools(ran), { dataDir: hp.dataDir, abortController });
  const second = aiScriptedModel([{ name: 'shutdown', args: { path: 'all' } }]);
  await assert.rejects(within('the run', generateText({ model: second.model, tools: aborting.tools, stopWhen: stepCountIs(5), abortSignal: abortController.signal, prompt: 'stop' })), 
    (e) => e instanceof HoldpointHaltError && e.message === 'Halted by Holdpoint: stop everything now');
  assert.equal(abortController.signal.aborted, true);
  assert.equal(second.model.doGenerateCalls.length, 1);
  assert.deepEqual(ran, []);
  await aborting.guard.close();
});
