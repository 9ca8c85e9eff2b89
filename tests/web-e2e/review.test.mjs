// SPDX-License-Identifier: Apache-2.0
// Reviewing from the page at a phone's viewport: approve, deny, edit and
// halt, each with a real agent that acts on the decision it gets.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import {
  REVIEWER, launchBrowser, withSetup, openCard, openPanel, tapReview, toastText, text, until, within, cardSelector,
} from './helpers.mjs';

let browser;
before(async () => { browser = await launchBrowser(); });
after(async () => { await browser?.close(); });

const HUMAN = `human:${REVIEWER}`;

/** The agent's write_file call, waiting in the page's queue: returns the call in flight and its item. */
async function callWaiting(hp, agent, args) {
  const callId = agent.client.newCallId();
  const call = agent.writeFile(args, { callId });
  call.catch(() => {}); // awaited by the test; a failure elsewhere must not go unhandled meanwhile
  const item = await hp.pendingItem((i) => i.call_id === callId, `${callId} to wait for a person`);
  assert.deepEqual(item.args, args);
  return { call, item, callId };
}

/** The card leaves the queue once decided, and the queue says so. */
async function assertQueueEmpty(page, id) {
  await until('the queue', page.waitForSelector('#queue-view:not([hidden])'));
  await until(`the card of ${id} to go`, page.waitForFunction((sel) => !document.querySelector(sel), {}, cardSelector(id)));
  await until('the empty queue', page.waitForSelector('#empty:not([hidden])'));
}

test('approve: the agent writes the file it asked to', async () => {
  await withSetup(browser, {}, async ({ hp, device, agent }) => {
    const { page } = await device();
    const coder = await agent('coder');
    const args = { path: 'notes/approved.txt', content: 'approved from a phone\n' };
    const { call, item, callId } = await callWaiting(hp, coder, args);

    const shown = await openCard(page, item.id);
    assert.equal(await text(page, '#detail-tool'), 'write_file');
    assert.match(await text(page, '#detail-body'), /approved from a phone/);
    const review = await tapReview(page, '#approve');
    assert.equal(review.status, 200);
    assert.deepEqual(review.body, { outcome: 'decided', decided_by: HUMAN });
    assert.deepEqual(review.request, { action: 'approve', version: shown.version, scope: 'call' });
    assert.equal(await toastText(page), `Approved — ${REVIEWER}`);

    const { decision, wrote } = await within('the decision', call);
    assert.equal(decision.decision, 'allow');
    assert.equal(decision.decidedBy, HUMAN);
    assert.deepEqual(decision.args, args);
    assert.ok(wrote);
    assert.equal(coder.file('notes/approved.txt'), args.content);
    assert.equal(coder.decisionsFor(callId).length, 1);
    await assertQueueEmpty(page, item.id);
    assert.deepEqual(await hp.pending(), []);
    assert.deepEqual(page.errors, []);
  });
});

test('deny with a reason: the agent gets exactly that reason and writes nothing', async () => {
  await withSetup(browser, {}, async ({ hp, device, agent }) => {
    const { page } = await device();
    const coder = await agent('coder');
    const args = { path: 'denied.txt', content: 'should never be written' };
    const { call, item, callId } = await callWaiting(hp, coder, args);
    const reason = 'Not in the repo root — use the scratch directory';

    const shown = await openCard(page, item.id);
    await openPanel(page, 'deny');
    assert.equal(await page.$eval('#deny-confirm', (b) => b.disabled), true, 'Deny is enabled with no reason');
    assert.equal(await page.$eval('#approve', (b) => b.disabled), true, 'Approve is one tap away while a reason is written');
    await page.type('#deny-reason', reason);
    await until('Deny to be enabled', page.waitForFunction(() => !document.getElementById('deny-confirm').disabled));
    const review = await tapReview(page, '#deny-confirm');
    assert.equal(review.status, 200);
    assert.deepEqual(review.request, { action: 'deny', version: shown.version, scope: 'call', reason });
    assert.equal(await toastText(page), `Denied — ${REVIEWER}`);

    const { decision, wrote } = await within('the decision', call);
    assert.equal(decision.decision, 'deny');
    assert.equal(decision.reason, reason);
    assert.equal(decision.decidedBy, HUMAN);
    assert.equal(decision.args, undefined);
    assert.equal(wrote, null);
    assert.equal(coder.file('denied.txt'), null);
    assert.equal(coder.decisionsFor(callId).length, 1);
    await assertQueueEmpty(page, item.id);
    assert.deepEqual(page.errors, []);
  });
});

test('edit: the agent runs with the edited arguments', async () => {
  await withSetup(browser, {}, async ({ hp, device, agent }) => {
    const { page } = await device();
    const coder = await agent('coder');
    const args = { path: 'prod/config.yaml', content: 'replicas: 50\n' };
    const { call, item, callId } = await callWaiting(hp, coder, args);
    const edited = { path: 'staging/config.yaml', content: 'replicas: 2\n' };

    const shown = await openCard(page, item.id);
    await openPanel(page, 'edit');
    // The editor starts with the call's own arguments, which are no edit.
    assert.deepEqual(JSON.parse(await page.$eval('#edit-args', (t) => t.value)), args);
    assert.equal(await page.$eval('#edit-confirm', (b) => b.disabled), true);

    // Replace the JSON as a person would: select it all, type over it.
    const json = JSON.stringify(edited);
    const cut = json.indexOf('"content"');
    await page.$eval('#edit-args', (t) => t.select());
    await page.keyboard.type(json.slice(0, cut)); // {"path":"staging/config.yaml",
    await until('the edit to be called invalid',
      page.waitForFunction(() => document.getElementById('edit-error').textContent.startsWith('Not valid JSON')));
    assert.equal(await page.$eval('#edit-confirm', (b) => b.disabled), true, 'Approve with edits is enabled on invalid JSON');
    await page.keyboard.type(json.slice(cut));
    await until('Approve with edits to be enabled', page.waitForFunction(() => !document.getElementById('edit-confirm').disabled));
    assert.equal(await text(page, '#edit-error'), '');
    assert.match(await text(page, '#edit-diff'), /\+ {3}"path": "staging\/config.yaml"/);

    const review = await tapReview(page, '#edit-confirm');
    assert.equal(review.status, 200);
    assert.deepEqual(review.request, { action: 'edit', version: shown.version, scope: 'call', args: edited });
    assert.equal(await toastText(page), `Approved with edits — ${REVIEWER}`);

    const { decision, wrote } = await within('the decision', call);
    assert.equal(decision.decision, 'modify');
    assert.equal(decision.decidedBy, HUMAN);
    assert.deepEqual(decision.args, edited);
    assert.ok(wrote);
    assert.equal(coder.file('staging/config.yaml'), edited.content);
    assert.equal(coder.file('prod/config.yaml'), null, 'the call ran with its own arguments');
    assert.equal(coder.decisionsFor(callId).length, 1);
    await assertQueueEmpty(page, item.id);
    assert.deepEqual(page.errors, []);
  });
});

test('halt: the agent gets halt, and its next call in the turn is halted without reaching the queue', async () => {
  await withSetup(browser, {}, async ({ hp, device, agent }) => {
    const { page } = await device();
    const coder = await agent('coder');
    // The holdpoint client supports turns: calls after turnStart belong to it.
    const turn = await coder.client.turnStart();
    const args = { path: 'halted.txt', content: 'never' };
    const { call, item, callId } = await callWaiting(hp, coder, args);
    assert.equal(item.turn_id, turn);

    const shown = await openCard(page, item.id);
    await openPanel(page, 'halt');
    const review = await tapReview(page, '#halt-confirm');
    assert.equal(review.status, 200);
    assert.deepEqual(review.request, { action: 'halt', version: shown.version, scope: 'call' });
    assert.equal(await toastText(page), `Turn halted — ${REVIEWER}`);

    const { decision, wrote } = await within('the decision', call);
    assert.equal(decision.decision, 'halt');
    assert.equal(decision.decidedBy, HUMAN);
    assert.equal(wrote, null);
    assert.equal(coder.file('halted.txt'), null);
    assert.equal(coder.decisionsFor(callId).length, 1);

    // PROTOCOL.md "Halting": the turn's later calls are answered halt at
    // once (code turn_halted), by whoever halted it, without a person.
    const next = await within('the second call', coder.writeFile({ path: 'second.txt', content: 'also never' }));
    assert.equal(next.decision.decision, 'halt');
    assert.equal(next.decision.code, 'turn_halted');
    assert.equal(next.decision.decidedBy, HUMAN);
    assert.equal(next.decision.pendingId, undefined, 'the second call waited for a person');
    assert.equal(next.wrote, null);
    assert.equal(coder.file('second.txt'), null);
    const audit = await hp.auditOf(next.decision.callId);
    assert.equal(audit.some((r) => r.event === 'escalated' || r.item), false, JSON.stringify(audit));
    assert.deepEqual(await hp.pending(), []);
    await assertQueueEmpty(page, item.id);
    assert.deepEqual(page.errors, []);
  });
});
