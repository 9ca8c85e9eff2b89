// SPDX-License-Identifier: Apache-2.0
// Issue 43.1, from the attacker's seat: an agent serves a dev page on
// another port of 127.0.0.1 and gets the reviewer to open it in the browser
// the page is paired in. Browsers do not keep cookies apart by port, so the
// agent's server receives __Host-holdpoint. With it, from node, with the
// page's own Origin forged, it tries every read and every action. The
// session's other half, the device key, lives in the page origin's storage
// (scheme, host and port), which the agent's page cannot read: every try is
// refused, the call stays pending, and the audit holds no decision.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import {
  launchBrowser, withSetup, api, rawUpgrade, openCard, tapReview, pageDeviceKey, within, waitFor,
} from './helpers.mjs';

// The ws package the holdpoint client depends on.
const WebSocket = createRequire(fileURLToPath(import.meta.resolve('holdpoint')))('ws');

let browser;
before(async () => { browser = await launchBrowser(); });
after(async () => { await browser?.close(); });

/** An agent's dev server on 127.0.0.1 (another port): it keeps the Cookie header of every visit. */
async function devServer() {
  const cookies = [];
  const server = createServer((request, response) => {
    cookies.push(request.headers.cookie ?? '');
    response.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
    response.end('<!doctype html><title>dev server</title><p>Hot reload ready.</p>');
  });
  await new Promise((res, rej) => server.once('error', rej).listen(0, '127.0.0.1', res));
  return {
    origin: `http://127.0.0.1:${server.address().port}`,
    cookies,
    close: () => new Promise((res) => server.close(res)),
  };
}

/**
 * /api/live opened from node with `headers`; sends `hello` (if given) once
 * open. Resolves when the server closes it, with every message it sent and
 * the close code.
 */
function liveFeed(hp, headers, hello) {
  return within('the live feed to end', new Promise((res, rej) => {
    const ws = new WebSocket(`${hp.origin.replace('http:', 'ws:')}/api/live`, { headers });
    const messages = [];
    ws.on('open', () => {
      if (hello) ws.send(JSON.stringify(hello));
    });
    ws.on('message', (data) => messages.push(data.toString()));
    ws.on('close', (code) => res({ messages, code }));
    ws.on('unexpected-response', (request, response) => res({ messages, status: response.statusCode }));
    ws.on('error', rej);
  }), 20000);
}

test('a process on another loopback port with the session cookie reads nothing and decides nothing', async () => {
  await withSetup(browser, {}, async ({ hp, agent, device, closeLater }) => {
    const { context, page } = await device();
    const coder = await agent('coder');
    const callId = coder.client.newCallId();
    let settled = false;
    const call = coder.writeFile({ path: 'owned.txt', content: 'the agent approved its own call' }, { callId });
    call.then(() => { settled = true; }, () => { settled = true; });
    const item = await hp.pendingItem((i) => i.call_id === callId, `${callId} to wait for a person`);

    // The reviewer opens the agent's dev page in a tab of the paired browser.
    const dev = await devServer();
    closeLater(dev.close);
    const tab = await context.newPage();
    await tab.goto(`${dev.origin}/`);
    const cookie = dev.cookies.map((c) => /(?:^|;\s*)(__Host-holdpoint=[^;]+)/.exec(c)?.[1]).find(Boolean);
    assert.ok(cookie, `the browser did not send the session cookie to another port (${JSON.stringify(dev.cookies)}); `
      + 'the attack this test plays needs it');
    // The agent's page cannot read the key from there: its storage is its own origin's.
    assert.equal(await tab.evaluate(() => localStorage.getItem('holdpoint-device')), null);

    // node, with the cookie and the page's own Origin forged on every request.
    const forged = { cookie, origin: hp.origin, headers: { Origin: hp.origin, Referer: `${hp.origin}/` } };
    const refused = (response, what) => {
      assert.equal(response.status, 401, `${what}: ${JSON.stringify(response.body)}`);
      assert.equal(response.body.error, 'no_session', what);
      assert.equal(response.body.csrf, undefined, `${what} handed out a CSRF token`);
    };
    refused(await api(hp, 'GET', '/api/me', forged), 'GET /api/me');
    refused(await api(hp, 'GET', '/api/items', forged), 'GET /api/items');
    // Guessing the key, or sending none, or an empty one.
    refused(await api(hp, 'GET', '/api/me', { ...forged, device: 'f'.repeat(64) }), 'GET /api/me with a guessed key');
    refused(await api(hp, 'GET', '/api/me', { ...forged, headers: { ...forged.headers, 'X-Holdpoint-Device': '' } }),
      'GET /api/me with an empty key');
    const reviews = [
      { action: 'approve', version: item.version ?? 'x', scope: 'call' },
      { action: 'approve', version: 'x', scope: 'session' },
      { action: 'edit', version: 'x', scope: 'call', args: { path: 'owned.txt', content: 'edited' } },
      { action: 'deny', version: 'x', scope: 'call', reason: 'no' },
      { action: 'halt', version: 'x', scope: 'call' },
    ];
    for (const body of reviews) {
      refused(await api(hp, 'POST', `/api/items/${item.id}/review`, { ...forged, body, csrf: 'guessed' }),
        `POST review ${body.action}`);
    }
    refused(await api(hp, 'POST', '/api/logout', forged), 'POST /api/logout');

    // The live feed: a browser cannot put a header on an upgrade, so the
    // cookie opens the socket, but nothing is sent on it before the device
    // key, and a wrong or missing key closes it (1008).
    const upgrade = { Cookie: cookie, Origin: hp.origin };
    for (const hello of [{ type: 'hello', device: 'f'.repeat(64) }, { type: 'hello' }, { type: 'ping' }]) {
      const feed = await liveFeed(hp, upgrade, hello);
      assert.deepEqual(feed.messages, [], `the feed told ${JSON.stringify(hello)} something`);
      assert.equal(feed.code, 1008, JSON.stringify(feed));
    }

    // Nothing was decided: still pending, the agent still waiting, no file,
    // no decision in the audit; the console's log names the refusals.
    assert.deepEqual((await hp.pending()).filter((i) => i.call_id === callId).map((i) => i.state), ['pending']);
    assert.equal(settled, false, 'the agent got a decision');
    assert.deepEqual(coder.decisionsFor(callId), []);
    assert.equal(coder.file('owned.txt'), null);
    const records = await hp.auditOf(callId);
    assert.ok(records.length > 0, 'the call is in the audit');
    assert.deepEqual(records.filter((r) => r.event === 'decision' || r.decided_by), [], JSON.stringify(records));
    await waitFor('the refusals in the console log',
      () => /refused 127\.0\.0\.1: a session's cookie without its device key/.test(hp.log)
        && /refused 127\.0\.0\.1: live feed: a session's cookie without its device key/.test(hp.log));
    // The session itself is untouched: the upgrade with cookie and no
    // key is admitted (as a browser's is) and the paired page decides.
    assert.match(await pageDeviceKey(page), /^[0-9a-f]{64}$/);
    assert.equal((await rawUpgrade(hp, { cookie, origin: hp.origin })).status, 101);
    await tab.close();
    await page.bringToFront();
    await openCard(page, item.id);
    const { status, body } = await tapReview(page, '#approve');
    assert.equal(status, 200, JSON.stringify(body));
    assert.equal(body.outcome, 'decided');
    const { decision } = await call;
    assert.equal(decision.allowed, true);
    assert.equal(decision.decidedBy, 'human:alice');
  });
});
