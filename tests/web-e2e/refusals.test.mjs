// SPDX-License-Identifier: Apache-2.0
// What the page's server refuses (core/web/WEB.md "Refusals"), each with a
// call waiting: the status, the error code, and that nothing was decided
// (the item is still pending in `holdpoint-ctl pending --json`, and the
// agent is still waiting). Plain requests from node where that is simpler.
//
// Not here: a pairing link used after its 5 minutes. That needs the clock
// moved on, which only the C++ suite can do (tests/web/tst_web.cpp runs the
// server with a manual clock); waiting 5 minutes here is not worth it.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  launchBrowser, withSetup, newDevice, pairDevice, apiSession, api, rawUpgrade, rawPost, until, text,
} from './helpers.mjs';

let browser;
before(async () => { browser = await launchBrowser(); });
after(async () => { await browser?.close(); });

/** A call waiting for a person; returns its item, the review path and a check that it is untouched. */
async function waitingCall(hp, agent) {
  const coder = await agent('coder');
  const callId = coder.client.newCallId();
  let settled = false;
  const call = coder.writeFile({ path: 'refused.txt', content: 'never' }, { callId });
  call.then(() => { settled = true; }, () => { settled = true; });
  const item = await hp.pendingItem((i) => i.call_id === callId, `${callId} to wait for a person`);
  return {
    item,
    path: `/api/items/${item.id}/review`,
    /** Nothing was decided: still pending, the agent still waiting, no file. */
    async untouched() {
      const pending = await hp.pending();
      assert.deepEqual(pending.filter((i) => i.call_id === callId).map((i) => [i.id, i.state]), [[item.id, 'pending']]);
      assert.equal(settled, false, 'the agent got a decision');
      assert.deepEqual(coder.decisionsFor(callId), []);
      assert.equal(coder.file('refused.txt'), null);
      const decisions = (await hp.auditOf(callId)).filter((r) => r.event === 'decision');
      assert.deepEqual(decisions, []);
    },
  };
}

/** The refusal's status and `{"error": CODE, "message": "a sentence"}`. */
function assertRefused(response, status, code) {
  assert.equal(response.status, status, JSON.stringify(response.body));
  assert.equal(response.body.error, code, JSON.stringify(response.body));
  assert.equal(typeof response.body.message, 'string');
  assert.ok(response.body.message.length > 0);
}

test('no session: a review without a cookie is 401 no_session', async () => {
  await withSetup(browser, {}, async ({ hp, agent }) => {
    const call = await waitingCall(hp, agent);
    const body = { action: 'approve', version: 'x', scope: 'call' };
    assertRefused(await api(hp, 'POST', call.path, { body }), 401, 'no_session');
    assertRefused(await api(hp, 'POST', call.path, { body, cookie: '__Host-holdpoint=0000', csrf: 'x' }), 401, 'no_session');
    assertRefused(await api(hp, 'GET', '/api/items'), 401, 'no_session');
    await call.untouched();
  });
});

test('a cross-origin POST with a valid cookie and CSRF token is 403 bad_origin', async () => {
  await withSetup(browser, {}, async ({ hp, agent }) => {
    const call = await waitingCall(hp, agent);
    const session = await apiSession(hp);
    const items = await api(hp, 'GET', '/api/items', session);
    assert.equal(items.status, 200);
    const { version } = items.body.items.find((i) => i.id === call.item.id);
    const body = { action: 'approve', version, scope: 'call' };

    assertRefused(await api(hp, 'POST', call.path, { ...session, body, origin: 'https://evil.example' }), 403, 'bad_origin');
    assertRefused(await api(hp, 'POST', call.path, { ...session, body, origin: null }), 403, 'bad_origin');
    // The same request from the page's own origin without the token.
    assertRefused(await api(hp, 'POST', call.path, { cookie: session.cookie, device: session.device, body }), 403, 'bad_csrf');
    await call.untouched();
  });
});

test('a WebSocket upgrade with a foreign Origin is refused with 403 before the upgrade', async () => {
  await withSetup(browser, {}, async ({ hp, agent }) => {
    const call = await waitingCall(hp, agent);
    const { cookie } = await apiSession(hp);
    assert.equal((await rawUpgrade(hp, { cookie, origin: 'https://evil.example' })).status, 403);
    assert.equal((await rawUpgrade(hp, { cookie })).status, 403, 'no Origin');
    assert.equal((await rawUpgrade(hp, { origin: hp.origin })).status, 403, 'no session');
    // The same upgrade from the page's own origin goes through.
    assert.equal((await rawUpgrade(hp, { cookie, origin: hp.origin })).status, 101);
    await call.untouched();
  });
});

test('a pairing link used twice: the second device shows why in #pair-error', async () => {
  await withSetup(browser, {}, async ({ hp, agent, closeLater }) => {
    const call = await waitingCall(hp, agent);
    const link = await hp.pairLink();
    const first = await newDevice(browser);
    closeLater(() => first.context.close());
    await pairDevice(first.page, link);
    const second = await newDevice(browser);
    closeLater(() => second.context.close());

    const [answer] = await Promise.all([
      second.page.waitForResponse((r) => r.url().endsWith('/api/pair')),
      second.page.goto(link),
    ]);
    assert.equal(answer.status(), 410);
    assert.equal((await answer.json()).error, 'pairing_used');
    await until('#pair-error', second.page.waitForSelector('#pair-error:not([hidden])'));
    assert.equal(await text(second.page, '#gate-title'), 'Pairing failed');
    assert.equal(await text(second.page, '#pair-error'), 'This pairing link was used already; each link works once.');
    assert.equal(await second.page.$eval('#queue-view', (q) => q.hidden), true);
    // The code is gone from the address bar either way.
    assert.equal(new URL(second.page.url()).hash, '');
    // And the second device has no session of its own.
    const me = await second.page.evaluate(async () => (await fetch('/api/me')).status);
    assert.equal(me, 401);
    assert.equal(JSON.parse(await hp.ctl('web', 'sessions', '--json')).length, 1);
    await call.untouched();
  });
});

test('a trusted header from a peer not listed as a proxy is ignored: 401', async () => {
  const options = { args: ['--web-auth-header', 'X-Forwarded-User', '--web-trusted-proxy', '10.9.9.9'] };
  await withSetup(browser, options, async ({ hp, agent }) => {
    const call = await waitingCall(hp, agent);
    const headers = { 'X-Forwarded-User': 'alice' };
    assertRefused(await api(hp, 'GET', '/api/me', { headers }), 401, 'no_session');
    assertRefused(await api(hp, 'GET', '/api/items', { headers }), 401, 'no_session');
    const body = { action: 'approve', version: 'x', scope: 'call' };
    assertRefused(await api(hp, 'POST', call.path, { headers, body }), 401, 'no_session');
    assert.equal((await rawUpgrade(hp, { origin: hp.origin, cookie: undefined })).status, 403);
    await call.untouched();
  });
  // The control: with 127.0.0.1 listed, the same request signs in, once it
  // also carries the proxy's secret (a proxy on loopback must prove itself,
  // as every local process connects from loopback too).
  const dir = mkdtempSync(join(tmpdir(), 'holdpoint-proxy-'));
  try {
    const secret = randomBytes(24).toString('hex');
    const secretFile = join(dir, 'proxy-secret');
    writeFileSync(secretFile, `${secret}\n`, { mode: 0o600 });
    const trusted = { args: ['--web-auth-header', 'X-Forwarded-User', '--web-trusted-proxy', '127.0.0.1',
      '--web-proxy-secret-file', secretFile] };
    await withSetup(browser, trusted, async ({ hp }) => {
      const me = await api(hp, 'GET', '/api/me', { headers: { 'X-Forwarded-User': 'alice', 'X-Holdpoint-Proxy-Secret': secret } });
      assert.equal(me.status, 200, JSON.stringify(me.body));
      assert.equal(me.body.reviewer, 'alice');
      assertRefused(await api(hp, 'GET', '/api/me', { headers: { 'X-Forwarded-User': 'alice' } }), 401, 'no_session');
      assertRefused(await api(hp, 'GET', '/api/me',
        { headers: { 'X-Forwarded-User': 'alice', 'X-Holdpoint-Proxy-Secret': `${secret.slice(1)}x` } }), 401, 'no_session');
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a body over 64 KiB is 413 too_large', async () => {
  await withSetup(browser, {}, async ({ hp, agent }) => {
    const call = await waitingCall(hp, agent);
    const session = await apiSession(hp);
    const items = await api(hp, 'GET', '/api/items', session);
    const { version } = items.body.items.find((i) => i.id === call.item.id);
    // A valid deny in every way but its size: 100 KB.
    const body = JSON.stringify({ action: 'deny', version, scope: 'call', reason: 'x'.repeat(100 * 1024) });
    const headers = {
      Origin: hp.origin, Cookie: session.cookie, 'X-Holdpoint-Device': session.device, 'X-CSRF-Token': session.csrf,
      'Content-Type': 'application/json',
    };
    assertRefused(await rawPost(hp, call.path, { headers, body }), 413, 'too_large');
    await call.untouched();
  });
});
