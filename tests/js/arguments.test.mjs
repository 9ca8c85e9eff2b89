// SPDX-License-Identifier: Apache-2.0
// Arguments that are not small ASCII, through every adapter: a few hundred
// KB of emoji, CJK, combining characters and JSON escapes that a person
// approves arrive at the tool exactly as the model sent them; a call over
// the console's 1 MiB message cap is denied and never runs.

import { test, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { generateText, stepCountIs } from 'ai';
import { HoldpointApprovals, HoldpointToolGuard } from 'holdpoint/openai-agents';
import { holdpointToolApproval, guardTools } from 'holdpoint/ai-sdk';
import { HoldpointHITL } from 'holdpoint/langchain';
import { HoldpointClient } from 'holdpoint';
import { Console, within } from './console.mjs';
import { ScriptedChatModel } from './chatmodel.mjs';
import {
  openaiTools, openaiAgent, openaiRunner, aiScriptedModel, aiTools, langchainAgent, runThroughConsole, toolMessages,
} from './frameworks.mjs';

process.env.OPENAI_AGENTS_DISABLE_TRACING = '1';
const hp = new Console();
const model = new ScriptedChatModel();
let runner;
let ran;

// Precomposed and combining forms side by side (no normalisation may
// happen), a ZWJ family, Hangul, kana and kanji, a character outside the
// BMP that is not an emoji, and what JSON must escape.
const UNIT = 'naïve café / cafe\u0301 ñ n\u0303 🧪🚀👩‍👩‍👧 🏳️‍🌈 漢字かな交じり 한국어 𝄞 '
  + 'a\u0308\u0323 "quoted" back\\slash tab\tnew\nline \u2028\u2029 nul\u0000 ';

// `bytes` UTF-8 bytes or a little more, ending on a whole unit.
function text(bytes) {
  const unit = Buffer.byteLength(UNIT);
  return UNIT.repeat(Math.ceil(bytes / unit));
}

const BIG = text(300 * 1024); // well under the cap even escaped
const TOO_BIG = text(1100 * 1024); // one message over 1 MiB
const PATH = 'ノート/été 🧪.txt';
// What the model is told about the oversized message: the client refused
// it against the limit the console's welcome gave, without sending it.
const OVER_CAP = /^Denied by Holdpoint: no decision could be obtained, so the call did not run \(the call is \d+ bytes, more than the console takes \(1048576 bytes, holdpoint --max-message-bytes\)\)/;

function assertExact(actual, expected) {
  // Compared as strings and as UTF-8, without printing 300 KB on failure.
  assert.ok(typeof actual === 'string', `expected a string, got ${typeof actual}`);
  assert.equal(actual.length, expected.length, 'the text changed length');
  assert.ok(actual === expected, 'the text differs');
  assert.ok(Buffer.from(actual, 'utf8').equals(Buffer.from(expected, 'utf8')), 'the text differs as UTF-8');
}

// Waits for the call with path PATH and approves it; checks the console
// got the arguments intact on the way.
async function approveBig() {
  const item = await hp.pendingItem((i) => i.args.path === PATH, { what: 'the large call to wait for a person' });
  assertExact(item.args.text, BIG);
  await hp.ctl('approve', item.id);
}

before(async () => {
  assert.ok(Buffer.byteLength(BIG) > 300 * 1024 && Buffer.byteLength(JSON.stringify(BIG)) < 512 * 1024);
  assert.ok(Buffer.byteLength(TOO_BIG) > 1024 * 1024);
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

test('client: a large non-ASCII call is approved and its decision carries the arguments byte for byte', async () => {
  const client = await within('the connection', HoldpointClient.connect({ dataDir: hp.dataDir }));
  const call = client.submit('send_note', { path: PATH, text: BIG });
  await approveBig();
  const decision = await within('the approval', call);
  assert.equal(decision.decision, 'allow');
  assert.equal(decision.args.path, PATH);
  assertExact(decision.args.text, BIG);
  await client.close();
});

test('client: calls of 700 KB of three-byte characters are listed for the reviewer and approved whole', async () => {
  // More than one 512 KiB WebSocket frame; three calls one byte apart, so a
  // character straddles a frame boundary in at least one of them.
  const client = await within('the connection', HoldpointClient.connect({ dataDir: hp.dataDir }));
  for (const pad of ['', 'x', 'xx']) {
    const path = `cjk${pad}.txt`;
    const body = pad + '漢字仮名'.repeat(60 * 1024);
    const call = client.submit('send_note', { path, text: body });
    const item = await hp.pendingItem((i) => i.args.path === path, { what: `${path} to be listed for the reviewer` });
    assertExact(item.args.text, body);
    await hp.ctl('approve', item.id);
    assertExact((await within('the approval', call)).args.text, body);
  }
  await client.close();
});

test('guardTool: approved, the tool gets the text exactly; over the cap, it does not run', async () => {
  const guard = new HoldpointToolGuard({ dataDir: hp.dataDir });
  const tools = guard.tools(openaiTools(ran, false));
  model.willCall({ name: 'send_note', args: { path: PATH, text: BIG } });
  const running = runner.run(openaiAgent(tools), 'send');
  await approveBig();
  await within('the run', running);
  assert.equal(ran.length, 1);
  assert.equal(ran[0].path, PATH);
  assertExact(ran[0].text, BIG);

  ran = [];
  model.requests = [];
  model.willCall({ name: 'send_note', args: { path: 'too-big.txt', text: TOO_BIG } });
  await within('the oversized run', runner.run(openaiAgent(tools), 'send'));
  assert.deepEqual(ran, []);
  assert.match(model.toolResults()[0], OVER_CAP);
  await guard.close();
});

test('approvals (needsApproval): approved, the tool gets the text exactly; over the cap, it is rejected', async () => {
  const approvals = new HoldpointApprovals({ dataDir: hp.dataDir });
  model.willCall({ name: 'send_note', args: { path: PATH, text: BIG } });
  const running = approvals.run((input) => runner.run(openaiAgent(openaiTools(ran, true)), input), 'send');
  await approveBig();
  await within('the run', running);
  assert.equal(ran.length, 1);
  assertExact(ran[0].text, BIG);

  ran = [];
  model.requests = [];
  model.willCall({ name: 'send_note', args: { path: 'too-big.txt', text: TOO_BIG } });
  await within('the oversized run', approvals.run((input) => runner.run(openaiAgent(openaiTools(ran, true)), input), 'send'));
  assert.deepEqual(ran, []);
  assert.match(model.toolResults()[0], OVER_CAP);
  await approvals.close();
});

test('ai toolApproval: approved, the tool gets the text exactly; over the cap, execution-denied', async () => {
  const approval = holdpointToolApproval({ dataDir: hp.dataDir });
  const first = aiScriptedModel([{ name: 'send_note', args: { path: PATH, text: BIG } }]);
  const running = generateText({ model: first.model, tools: aiTools(ran), toolApproval: approval.toolApproval, stopWhen: stepCountIs(5), prompt: 'send' });
  await approveBig();
  await within('the run', running);
  assert.equal(ran.length, 1);
  assertExact(ran[0].text, BIG);

  ran = [];
  const second = aiScriptedModel([{ name: 'send_note', args: { path: 'too-big.txt', text: TOO_BIG } }]);
  await within('the oversized run', generateText({ model: second.model, tools: aiTools(ran), toolApproval: approval.toolApproval, stopWhen: stepCountIs(5), prompt: 'send' }));
  assert.deepEqual(ran, []);
  assert.equal(second.seen[0].type, 'execution-denied');
  assert.match(second.seen[0].reason, OVER_CAP);
  await approval.close();
});

test('ai guardTools: approved, the tool gets the text exactly; over the cap, a tool error', async () => {
  const { tools, guard } = guardTools(aiTools(ran), { dataDir: hp.dataDir });
  const first = aiScriptedModel([{ name: 'send_note', args: { path: PATH, text: BIG } }]);
  const running = generateText({ model: first.model, tools, stopWhen: stepCountIs(5), prompt: 'send' });
  await approveBig();
  await within('the run', running);
  assert.equal(ran.length, 1);
  assertExact(ran[0].text, BIG);
  assert.deepEqual(first.seen, [{ type: 'text', value: `send_note ran on ${PATH}` }]);

  ran = [];
  const second = aiScriptedModel([{ name: 'send_note', args: { path: 'too-big.txt', text: TOO_BIG } }]);
  await within('the oversized run', generateText({ model: second.model, tools, stopWhen: stepCountIs(5), prompt: 'send' }));
  assert.deepEqual(ran, []);
  assert.equal(second.seen[0].type, 'error-text');
  assert.match(second.seen[0].value, OVER_CAP);
  await guard.close();
});

test('guardTool and guardTools: a person\'s large non-ASCII edit reaches the tool exactly', async () => {
  // One command-line argument holds at most 128 KiB, so holdpoint-ctl edit gets less.
  const edited = `✍️ edited ${text(90 * 1024).replaceAll('café', '咖啡')}`;
  const guard = new HoldpointToolGuard({ dataDir: hp.dataDir });
  model.willCall({ name: 'send_note', args: { path: 'edit-me.txt', text: 'short' } });
  const running = runner.run(openaiAgent(guard.tools(openaiTools(ran, false))), 'send');
  const item = await hp.pendingItem((i) => i.args.path === 'edit-me.txt');
  await hp.ctl('edit', item.id, '--args', JSON.stringify({ path: PATH, text: edited }));
  await within('the run', running);
  assert.equal(ran.length, 1);
  assert.equal(ran[0].path, PATH);
  assertExact(ran[0].text, edited);
  await guard.close();

  ran = [];
  const aiGuard = guardTools(aiTools(ran), { dataDir: hp.dataDir });
  const scripted = aiScriptedModel([{ name: 'send_note', args: { path: 'edit-me-too.txt', text: 'short' } }]);
  const aiRunning = generateText({ model: scripted.model, tools: aiGuard.tools, stopWhen: stepCountIs(5), prompt: 'send' });
  const aiItem = await hp.pendingItem((i) => i.args.path === 'edit-me-too.txt');
  await hp.ctl('edit', aiItem.id, '--args', JSON.stringify({ path: PATH, text: edited }));
  await within('the run', aiRunning);
  assert.equal(ran.length, 1);
  assertExact(ran[0].text, edited);
  await aiGuard.guard.close();
});

test('LangChain HITL: approved, the tool gets the text exactly; over the cap, rejected', async () => {
  const hitl = new HoldpointHITL({ dataDir: hp.dataDir });
  const { result } = await runThroughConsole(hitl, langchainAgent(ran, [{ name: 'send_note', args: { path: PATH, text: BIG } }]), approveBig);
  assert.equal(ran.length, 1);
  assertExact(ran[0].text, BIG);
  assert.deepEqual(toolMessages(result), [{ name: 'send_note', content: `send_note ran on ${PATH}`, status: 'success' }]);

  ran = [];
  const over = await runThroughConsole(hitl, langchainAgent(ran, [{ name: 'send_note', args: { path: 'too-big.txt', text: TOO_BIG } }]));
  assert.deepEqual(ran, []);
  const [told] = toolMessages(over.result);
  assert.equal(told.status, 'error');
  assert.match(told.content, OVER_CAP);
  await hitl.close();
});
