// SPDX-License-Identifier: Apache-2.0
// The console dies in the middle of a decision from the page: the approve
// is on its way when the console is SIGKILLed. Nothing is lost and nothing
// is decided twice: the page says the review failed (not that it was
// approved), the agent is told it got no decision, and after a restart on
// the same data directory (and the same page port) the call is back pending
// exactly once, the agent's re-sent call re-attaches to it, the page's
// session still works without pairing again, one approve gives the agent
// exactly one decision, and the audit log verifies.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { ConnectionLostError } from 'holdpoint';
import {
  REVIEWER, launchBrowser, withSetup, freePort, openCard, tap, tapReview, toastText, bannerText, pageItems, api,
  waitForLive, until, within, waitFor, pageDeviceKey,
} from './helpers.mjs';

let browser;
before(async () => { browser = await launchBrowser(); });
after(async () => { await browser?.close(); });

const HUMAN = `human:${REVIEWER}`;
const REVIEW_URL = /\/api\/items\/[^/]+\/review$/;

test('SIGKILL while an approve is on its way: nothing lost, nothing decided twice', async () => {
  // A fixed page port, so the page (and its cookie) reach the console again
  // at the same origin after the restart.
  const webPort = await freePort();
  await withSetup(browser, { webPort }, async ({ hp, device, agent }) => {
    const { page, context } = await device();
    const coder = await agent('coder');
    const args = { path: 'survives.txt', content: 'approved once, after a crash\n' };
    const callId = coder.client.newCallId();
    const first = coder.writeFile(args, { callId });
    first.catch(() => {});
    const item = await hp.pendingItem((i) => i.call_id === callId, 'the call to wait for a person');
    await openCard(page, item.id);

    // Hold the page's approve before it reaches the console.
    await page.setRequestInterception(true);
    let held;
    let hold;
    const holding = new Promise((resolve) => {
      hold = (request) => {
        if (request.isInterceptResolutionHandled()) return;
        if (request.method() === 'POST' && REVIEW_URL.test(request.url())) {
          held = request;
          resolve();
        } else {
          request.continue().catch(() => {});
        }
      };
    });
    page.on('request', hold);
    await tap(page, '#approve');
    await within('the approve POST to be held', holding);

    await hp.kill('SIGKILL');
    await assert.rejects(within('the agent to hear the connection drop', first), ConnectionLostError);

    // Let the POST go on to the dead console: it fails, and the page says so.
    const failed = new Promise((resolve) => {
      page.on('requestfailed', (r) => { if (REVIEW_URL.test(r.url())) resolve(r.failure()?.errorText); });
    });
    await held.continue();
    assert.equal(await within('the POST to fail', failed), 'net::ERR_CONNECTION_REFUSED');
    assert.equal(await bannerText(page), 'Holdpoint cannot be reached. Check your connection and try again.');
    assert.equal(await page.$eval('#toast', (t) => t.hidden), true, 'the page showed a success');
    assert.equal(await page.$eval('#detail', (d) => d.hidden), false, 'the detail closed as if decided');
    page.off('request', hold);
    await page.setRequestInterception(false);
    assert.equal(coder.file('survives.txt'), null);

    // Restart on the same data directory and page port.
    await hp.start();
    assert.equal(hp.webPort, webPort);
    const back = await hp.pending();
    assert.deepEqual(back.filter((i) => i.call_id === callId).map((i) => [i.id, i.state]), [[item.id, 'pending']]);
    assert.equal(back.length, 1);

    // The agent comes back in the same session and sends the same call
    // again (PROTOCOL.md "Disconnects and resuming"): it re-attaches.
    const sessionId = coder.client.sessionId;
    const seen = [];
    const again = coder.writeFile(args, { callId, onPending: (p) => seen.push(p.id) });
    again.catch(() => {});
    await waitFor('the re-sent call to be told it waits', () => seen.length > 0);
    assert.equal(coder.client.sessionId, sessionId);
    assert.deepEqual(seen, [item.id]);
    const resent = await hp.pending();
    assert.deepEqual(resent.map((i) => [i.id, i.call_id, i.state]), [[item.id, callId, 'pending']]);
    assert.notEqual(resent[0].agent_connected, false);

    // Sessions survive a restart: the page's cookie and device key still sign in ...
    const cookies = await context.cookies();
    const cookie = cookies.find((c) => c.name === '__Host-holdpoint');
    assert.ok(cookie, JSON.stringify(cookies.map((c) => c.name)));
    const key = await pageDeviceKey(page);
    const me = await api(hp, 'GET', '/api/me', { cookie: `${cookie.name}=${cookie.value}`, device: key });
    assert.equal(me.status, 200, JSON.stringify(me.body));
    assert.equal(me.body.reviewer, REVIEWER);
    // ... and the page reconnects by itself, without pairing again.
    await until('the page to reconnect', waitForLive(page, 20000));
    assert.equal(await page.$eval('#gate', (g) => g.hidden), true, 'the page asks to pair again');
    const listed = await pageItems(page);
    assert.equal(listed.status, 200);
    assert.deepEqual(listed.body.items.map((i) => i.id), [item.id]);
    await until('the detail to show the call again',
      page.waitForFunction((want) => state.openId === want && state.shown?.id === want, {}, item.id)); // eslint-disable-line no-undef

    // One approve now, from the same page: the agent runs the call once.
    const review = await tapReview(page, '#approve');
    assert.equal(review.status, 200, JSON.stringify(review.body));
    assert.deepEqual(review.body, { outcome: 'decided', decided_by: HUMAN });
    assert.equal(await toastText(page), `Approved — ${REVIEWER}`);
    const { decision, wrote } = await within('the decision', again);
    assert.equal(decision.decision, 'allow');
    assert.equal(decision.decidedBy, HUMAN);
    assert.equal(decision.pendingId, item.id);
    assert.ok(wrote);
    assert.equal(coder.file('survives.txt'), args.content);
    assert.equal(coder.decisionsFor(callId).length, 1, JSON.stringify(coder.received));
    assert.deepEqual(await hp.pending(), []);

    const decisions = (await hp.auditOf(callId)).filter((r) => r.event === 'decision');
    assert.equal(decisions.length, 1, JSON.stringify(decisions));
    assert.equal(decisions[0].decided_by, HUMAN);
    assert.equal(decisions[0].decision, 'allow');
    await hp.auditVerify(); // exits 0, or throws with its output
  });
});
