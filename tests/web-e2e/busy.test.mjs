// SPDX-License-Identifier: Apache-2.0
// Issue 43.5, the page under a busy queue, in Chromium: the confirmation
// toast never covers an action, a burst of 500 calls (on a CPU throttled 4×)
// shows every card, made a few at a time, and "Approve with edits" stays in
// view and uncovered while an edit is typed.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import {
  PHONE_VIEWPORT, launchBrowser, withSetup, openCard, openPanel, tapReview, toastText, cardSelector, waitForCard,
  text, until, within, waitFor,
} from './helpers.mjs';

let browser;
before(async () => { browser = await launchBrowser(); });
after(async () => { await browser?.close(); });

const DESKTOP_VIEWPORT = { width: 1280, height: 800, deviceScaleFactor: 1, isMobile: false, hasTouch: true };

/** The agent's write_file call, waiting for a person: returns the call in flight and its queue item. */
async function callWaiting(hp, agent, args) {
  const callId = agent.client.newCallId();
  const call = agent.writeFile(args, { callId });
  call.catch(() => {}); // settled when the console stops; nobody awaits most of them
  const item = await hp.pendingItem((i) => i.call_id === callId, `${callId} to wait for a person`);
  return { call, item };
}

/**
 * Where the toast stands against everything a person can tap: the toast's
 * box, and each visible control whose box meets it.
 */
function toastOverlaps(page) {
  return page.evaluate(() => {
    const toast = document.getElementById('toast');
    if (toast.hidden) return { shown: false };
    const t = toast.getBoundingClientRect();
    const hits = [];
    for (const node of document.querySelectorAll('button, a[href], select, textarea, input')) {
      if (node.closest('[hidden]')) continue;
      const r = node.getBoundingClientRect();
      if (!r.width || !r.height) continue;
      if (r.left < t.right && t.left < r.right && r.top < t.bottom && t.top < r.bottom) {
        hits.push(node.id || node.className || node.tagName);
      }
    }
    return { shown: true, box: [t.left, t.top, t.right, t.bottom].map(Math.round), hits };
  });
}

/** The centre of `selector` and what a tap there would reach (its id, or its tag). */
function hitAtCentre(page, selector) {
  return page.$eval(selector, (node) => {
    const r = node.getBoundingClientRect();
    const x = r.left + r.width / 2;
    const y = r.top + r.height / 2;
    const hit = document.elementFromPoint(x, y);
    return {
      x, y, inViewport: r.top >= 0 && r.bottom <= window.innerHeight && r.left >= 0 && r.right <= window.innerWidth,
      reaches: hit !== null && (hit === node || node.contains(hit)), hit: hit ? hit.id || hit.className || hit.tagName : null,
    };
  });
}

for (const [name, viewport] of [['a phone', PHONE_VIEWPORT], ['a desktop', DESKTOP_VIEWPORT]]) {
  test(`on ${name}: the toast after a decision covers no action, and a tap on Deny at once reaches Deny`, async () => {
    await withSetup(browser, {}, async ({ hp, device, agent }) => {
      const { page } = await device();
      await page.setViewport(viewport);
      const coder = await agent('coder');
      const first = await callWaiting(hp, coder, { path: 'first.txt', content: 'one' });
      const second = await callWaiting(hp, coder, { path: 'second.txt', content: 'two' });

      await openCard(page, first.item.id);
      const review = await tapReview(page, '#approve');
      assert.equal(review.status, 200);
      assert.match(await toastText(page), /^Approved — /);
      await until('the queue', page.waitForSelector('#queue-view:not([hidden])'));
      const onQueue = await toastOverlaps(page);
      assert.equal(onQueue.shown, true, 'the toast went before it could be looked at');
      assert.deepEqual(onQueue.hits, [], `the toast ${onQueue.box} covers ${onQueue.hits} on the queue`);

      // The next call, opened while the toast still shows.
      await waitForCard(page, second.item.id);
      const card = await hitAtCentre(page, cardSelector(second.item.id));
      assert.ok(card.reaches, `the card of the next call is under ${card.hit}`);
      await page.touchscreen.tap(card.x, card.y);
      await until('the detail of the next call', page.waitForFunction((want) => state.openId === want // eslint-disable-line no-undef
        && !document.getElementById('detail').hidden, {}, second.item.id));
      const onDetail = await toastOverlaps(page);
      assert.equal(onDetail.shown, true, 'the toast went before the next call was open');
      assert.deepEqual(onDetail.hits, [], `the toast ${onDetail.box} covers ${onDetail.hits} on the detail`);

      // A tap on Deny right away reaches Deny (it opens the reason panel).
      const deny = await hitAtCentre(page, '#deny');
      assert.ok(deny.reaches, `a tap at Deny's centre reaches ${deny.hit}`);
      await page.touchscreen.tap(deny.x, deny.y);
      await until('the deny panel', page.waitForSelector('#deny-panel:not([hidden])'));
      assert.equal(await page.$eval('#deny', (b) => b.getAttribute('aria-expanded')), 'true');
      assert.equal((await toastOverlaps(page)).shown, true, 'the toast was gone by the time Deny was tapped');
      assert.deepEqual(page.errors, []);
    });
  });
}

test('after an edit is typed, "Approve with edits" is in view and uncovered', async () => {
  await withSetup(browser, {}, async ({ hp, device, agent }) => {
    const { page } = await device();
    const coder = await agent('coder');
    const args = {
      path: 'deploy/config.yaml', content: 'replicas: 50\nregion: eu-west-1\n', mode: 'overwrite', owner: 'ops',
      notify: 'release-channel', reason: 'weekly rollout',
    };
    const { call, item } = await callWaiting(hp, coder, args);
    const edited = { ...args, path: 'staging/config.yaml', content: 'replicas: 2\nregion: eu-west-1\n', owner: 'qa' };

    await openCard(page, item.id);
    await openPanel(page, 'edit');
    await page.$eval('#edit-args', (t) => t.select());
    await page.keyboard.type(JSON.stringify(edited));
    await until('Approve with edits to be enabled', page.waitForFunction(() => !document.getElementById('edit-confirm').disabled));
    // The page reacts to each keystroke at once: two frames later it has settled.
    await page.evaluate(() => new Promise((r) => { requestAnimationFrame(() => requestAnimationFrame(r)); }));
    const button = await hitAtCentre(page, '#edit-confirm');
    assert.ok(button.inViewport, `Approve with edits is out of view at ${button.x},${button.y}`);
    assert.ok(button.reaches, `Approve with edits is under ${button.hit}`);
    const field = await hitAtCentre(page, '#edit-args');
    assert.ok(field.reaches, `the edit box is under ${field.hit}`);

    // And it is the button that decides.
    const review = await tapReview(page, '#edit-confirm');
    assert.equal(review.status, 200);
    assert.deepEqual(review.request.args, edited);
    const { decision } = await within('the decision', call);
    assert.deepEqual(decision.args, edited);
    assert.deepEqual(page.errors, []);
  });
});

const BURST = 500;

// Installed in the page: window.cardBatches gets, per mutation callback
// (one per task that changed the queue), how many cards it added.
function countCardBatches() {
  window.cardBatches = [];
  new MutationObserver((records) => {
    let added = 0;
    for (const r of records) {
      for (const node of r.addedNodes) {
        if (node.nodeType === Node.ELEMENT_NODE && node.matches('#queue > li')) added += 1;
      }
    }
    if (added) window.cardBatches.push(added);
  }).observe(document, { childList: true, subtree: true });
}

// How long the page's tasks take is a figure of holdpoint-bench's page
// scenario (tests/web-e2e/bench.mjs); here, what a person sees: every card,
// in order, made over many tasks rather than one, the countdowns moving and
// the focus where it was.
test(`a burst of ${BURST} calls on a CPU throttled 4×: every card, made a few at a time, the focus kept`, async () => {
  await withSetup(browser, {}, async ({ hp, device, agent }) => {
    const { page } = await device();
    const coder = await agent('coder');
    // A call already waiting, its card focused as a keyboard user leaves it.
    const { item: before } = await callWaiting(hp, coder, { path: 'before.txt', content: 'first' });
    await waitForCard(page, before.id);
    await page.focus(cardSelector(before.id));

    const cdp = await page.createCDPSession();
    await cdp.send('Emulation.setCPUThrottlingRate', { rate: 4 });
    await page.evaluate(countCardBatches);

    // The agent sends them all at once, each a call of its own.
    for (let i = 0; i < BURST; i++) {
      coder.client.submit('write_file', { path: `burst/${i}.txt`, content: `call ${i}` }).catch(() => {});
    }
    // Polled from here, a short look each time.
    await waitFor(`${BURST + 1} cards`, () => page.evaluate((want) => document.querySelectorAll('#queue .card').length === want
      && document.getElementById('queue-count').textContent === String(want), BURST + 1), 60000);
    // Two ticks of the countdowns over every card, still throttled: the
    // newest card's countdown moves on twice.
    for (let i = 0; i < 2; i++) {
      const shown = await text(page, '#queue li:last-child .countdown');
      await until('the countdowns to tick', page.waitForFunction((was) => document.querySelector('#queue li:last-child .countdown')
        .textContent.trim() !== was, { polling: 100, timeout: 10000 }, shown));
    }
    const batches = await page.evaluate(() => window.cardBatches);
    assert.equal(batches.reduce((a, b) => a + b, 0), BURST, `cards added per task: ${batches}`);
    assert.ok(batches.length > 1 && Math.max(...batches) < BURST, `the cards were made in one task: ${batches}`);
    assert.equal(await page.evaluate(() => document.activeElement?.dataset?.id), before.id, 'the focused card lost the focus');

    // The same page loaded afresh, still throttled: the snapshot brings all
    // of them in one message, and their cards come a few at a time too.
    await page.evaluateOnNewDocument(countCardBatches);
    await page.reload();
    await waitFor(`${BURST + 1} cards after a reload`, () => page.evaluate((want) => document.querySelectorAll('#queue .card').length
      === want && document.getElementById('status').textContent === 'Live', BURST + 1), 60000);
    const onLoad = await page.evaluate(() => window.cardBatches);
    await cdp.send('Emulation.setCPUThrottlingRate', { rate: 1 });
    assert.equal(onLoad.reduce((a, b) => a + b, 0), BURST + 1, `cards added per task on load: ${onLoad}`);
    assert.ok(onLoad.length > 1 && Math.max(...onLoad) < BURST + 1, `on load, the cards were made in one task: ${onLoad}`);
    // Every call has its card, in the order they came.
    const pending = await waitFor('every call pending', async () => {
      const items = await hp.pending();
      return items.length === BURST + 1 && items;
    });
    const shown = await page.$$eval('#queue .card', (cards) => cards.map((c) => c.dataset.id));
    assert.deepEqual(shown, pending.map((i) => i.id));
    assert.deepEqual(page.errors, []);
  });
});
