// SPDX-License-Identifier: Apache-2.0
// Every adapter fails closed: the console process killed (SIGKILL) while a
// call waits for a person, and no console at all when the run starts. The
// tool never runs, and the model's next request carries the deny.

import { test, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { generateText, stepCountIs } from 'ai';
import { HoldpointApprovals, HoldpointToolGuard } from 'holdpoint/openai-agents';
import { holdpointToolApproval, guardTools } from 'holdpoint/ai-sdk';
import { HoldpointHITL } from 'holdpoint/langchain';
import { Console, within } from './console.mjs';
import { ScriptedChatModel } from './chatmodel.mjs';
import {
  openaiTools, openaiAgent, openaiRunner, aiScriptedModel, aiTools, langchainAgent, runThroughConsole, toolMessages,
} from './frameworks.mjs';

process.env.OPENAI_AGENTS_DISABLE_TRACING = '1';
const model = new ScriptedChatModel();
let runner;
let ran;

// What an adapter tells the model when the connection dropped under a
// waiting call, and when no console answers at all.
const LOST = /^Denied by Holdpoint: no decision could be obtained, so the call did not run \(the connection to the console was lost \(1006\); no decision was received\)$/;
const UNREACHABLE = /^Denied by Holdpoint: no decision could be obtained, so the call did not run \(cannot connect to the console at ws:\/\/127\.0\.0\.1:\d+\/?: .*ECONNREFUSED/;
const NO_ENDPOINT = /^Denied by Holdpoint: no decision could be obtained, so the call did not run \(.*endpoint\.json/;

before(async () => {
  await model.start();
  runner = openaiRunner(model);
});
after(async () => { await model.stop(); });
beforeEach(() => {
  ran = [];
  model.requests = [];
});

// A console of its own, killed with SIGKILL once `path`'s call waits for a
// person (`start` starts the run and returns its promise). Its endpoint.json
// stays behind, as after a crash.
async function killWhileWaiting(path, start) {
  const doomed = await new Console().start();
  try {
    const running = start(doomed.dataDir);
    running.catch(() => {}); // awaited below; a rejection before then is not unhandled
    await doomed.pendingItem((i) => i.args.path === path, { what: `${path} to wait for a person` });
    assert.deepEqual(ran, [], 'the tool ran before anyone decided');
    await doomed.kill('SIGKILL');
    assert.equal(existsSync(join(doomed.dataDir, 'endpoint.json')), true, 'a killed console leaves its endpoint.json');
    return { result: await within('the run after the kill', running), dataDir: doomed.dataDir, doomed };
  } catch (e) {
    await doomed.stop();
    throw e;
  }
}

test('guardTool: the console killed while a call waits; the tool does not run, the model is told, and the next call finds no console', async () => {
  let guard;
  const { result, doomed } = await killWhileWaiting('killed-guard.txt', (dataDir) => {
    guard = new HoldpointToolGuard({ dataDir });
    model.willCall({ name: 'send_note', args: { path: 'killed-guard.txt', text: 'x' } });
    return runner.run(openaiAgent(guard.tools(openaiTools(ran, false))), 'send');
  });
  try {
    assert.deepEqual(ran, []);
    assert.equal(model.requests.length, 2);
    assert.match(model.toolResults()[0], LOST);
    assert.equal(result.finalOutput, `done: ${model.toolResults()[0]}`);
    // The same guard, the stale endpoint.json: connecting fails, the call is denied.
    model.willCall({ name: 'send_note', args: { path: 'after-kill.txt', text: 'x' } });
    await within('the next run', runner.run(openaiAgent(guard.tools(openaiTools(ran, false))), 'send again'));
    assert.deepEqual(ran, []);
    assert.match(model.toolResults()[1], UNREACHABLE);
  } finally {
    await guard.close();
    await doomed.stop();
  }
});

test('approvals (needsApproval): the console killed while a call waits; the interruption is rejected and the resumed run tells the model', async () => {
  let approvals;
  const { result: { result, halted }, doomed } = await killWhileWaiting('killed-approvals.txt', (dataDir) => {
    approvals = new HoldpointApprovals({ dataDir });
    model.willCall({ name: 'send_note', args: { path: 'killed-approvals.txt', text: 'x' } });
    return approvals.run((input) => runner.run(openaiAgent(openaiTools(ran, true)), input), 'send');
  });
  try {
    assert.equal(halted, false);
    assert.deepEqual(ran, []);
    assert.equal(model.requests.length, 2, 'the run was resumed once, with the rejection');
    assert.match(model.toolResults()[0], LOST);
    assert.equal(result.finalOutput, `done: ${model.toolResults()[0]}`);
  } finally {
    await approvals.close();
    await doomed.stop();
  }
});

test('ai toolApproval: the console killed while a call waits; execution-denied reaches the model, and the next run finds no console', async () => {
  let approval;
  let first;
  const { doomed, dataDir } = await killWhileWaiting('killed-approval.txt', (dir) => {
    approval = holdpointToolApproval({ dataDir: dir });
    first = aiScriptedModel([{ name: 'send_note', args: { path: 'killed-approval.txt' } }]);
    return generateText({ model: first.model, tools: aiTools(ran), toolApproval: approval.toolApproval, stopWhen: [stepCountIs(5), approval.stopWhen], prompt: 'send' });
  });
  try {
    assert.deepEqual(ran, []);
    assert.equal(first.seen.length, 1);
    assert.equal(first.seen[0].type, 'execution-denied');
    assert.match(first.seen[0].reason, LOST);
    // A new run, a new guard, the stale endpoint.json of the killed console.
    const later = holdpointToolApproval({ dataDir });
    const second = aiScriptedModel([{ name: 'send_note', args: { path: 'after-kill.txt' } }]);
    await within('the next run', generateText({ model: second.model, tools: aiTools(ran), toolApproval: later.toolApproval, stopWhen: stepCountIs(5), prompt: 'send' }));
    assert.deepEqual(ran, []);
    assert.equal(second.seen[0].type, 'execution-denied');
    assert.match(second.seen[0].reason, UNREACHABLE);
    await later.close();
  } finally {
    await approval.close();
    await doomed.stop();
  }
});

test('ai toolApproval: no console when the run starts; execution-denied reaches the model, the tool does not run', async () => {
  const approval = holdpointToolApproval({ dataDir: '/nonexistent-holdpoint-dir' });
  const { model: m, seen } = aiScriptedModel([{ name: 'read_note', args: { path: 'no-console.txt' } }, { name: 'send_note', args: { path: 'no-console-2.txt' } }]);
  const result = await within('the run', generateText({ model: m, tools: aiTools(ran), toolApproval: approval.toolApproval, stopWhen: [stepCountIs(5), approval.stopWhen], prompt: 'read' }));
  assert.deepEqual(ran, []);
  assert.equal(seen.length, 2);
  for (const output of seen) {
    assert.equal(output.type, 'execution-denied');
    assert.match(output.reason, NO_ENDPOINT);
  }
  assert.equal(result.text, 'done');
  await approval.close();
});

test('ai guardTools: the console killed while a call waits; a tool error with the reason reaches the model', async () => {
  let guarded;
  let scripted;
  const { doomed } = await killWhileWaiting('killed-tools.txt', (dataDir) => {
    guarded = guardTools(aiTools(ran), { dataDir });
    scripted = aiScriptedModel([{ name: 'send_note', args: { path: 'killed-tools.txt' } }]);
    return generateText({ model: scripted.model, tools: guarded.tools, stopWhen: [stepCountIs(5), guarded.guard.stopWhen], prompt: 'send' });
  });
  try {
    assert.deepEqual(ran, []);
    assert.equal(scripted.seen.length, 1);
    assert.equal(scripted.seen[0].type, 'error-text');
    assert.match(scripted.seen[0].value, LOST);
  } finally {
    await guarded.guard.close();
    await doomed.stop();
  }
});

test('ai guardTools: no console when the run starts; the tools do not run', async () => {
  const { tools, guard } = guardTools(aiTools(ran), { dataDir: '/nonexistent-holdpoint-dir' });
  const { model: m, seen } = aiScriptedModel([{ name: 'read_note', args: { path: 'no-console.txt' } }]);
  await within('the run', generateText({ model: m, tools, stopWhen: stepCountIs(5), prompt: 'read' }));
  assert.deepEqual(ran, []);
  assert.equal(seen[0].type, 'error-text');
  assert.match(seen[0].value, NO_ENDPOINT);
  await guard.close();
});

test('LangChain HITL: the console killed while a batch waits; the waiting action is rejected and the resumed graph runs nothing', async () => {
  const doomed = await new Console().start();
  const hitl = new HoldpointHITL({ dataDir: doomed.dataDir });
  try {
    const agent = langchainAgent(ran, [{ name: 'read_note', args: { path: 'lc-allowed.txt' } }, { name: 'send_note', args: { path: 'killed-lc.txt' } }]);
    const { result, rounds } = await runThroughConsole(hitl, agent, async () => {
      await doomed.pendingItem((i) => i.args.path === 'killed-lc.txt');
      await doomed.kill('SIGKILL');
    });
    // The read was allowed before the kill; the waiting send was not.
    assert.equal(rounds[0].decided.resume.decisions[0].type, 'approve');
    assert.equal(rounds[0].decided.resume.decisions[1].type, 'reject');
    assert.match(rounds[0].decided.resume.decisions[1].message, LOST);
    // humanInTheLoopMiddleware (langchain 1.5) runs no call of a batch with a
    // rejection in it: it goes back to the model with the rejections.
    assert.deepEqual(ran, []);
    const told = toolMessages(result);
    assert.equal(told.length, 1);
    assert.equal(told[0].name, 'send_note');
    assert.equal(told[0].status, 'error');
    assert.match(told[0].content, LOST);
  } finally {
    await hitl.close();
    await doomed.stop();
  }
});

test('LangChain HITL: no console when the run starts; the graph resumes with every action rejected', async () => {
  const hitl = new HoldpointHITL({ dataDir: '/nonexistent-holdpoint-dir' });
  const { result } = await runThroughConsole(hitl, langchainAgent(ran, [{ name: 'read_note', args: { path: 'lc-none.txt' } }]));
  assert.deepEqual(ran, []);
  const [told] = toolMessages(result);
  assert.equal(told.status, 'error');
  assert.match(told.content, NO_ENDPOINT);
  await hitl.close();
});
