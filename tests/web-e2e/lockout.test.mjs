// SPDX-License-Identifier: Apache-2.0
// Issue 43.4, from the local process's seat, with the phone in Chromium:
// 300 connections from 127.0.0.1, every other one idle and the rest a
// request head trickled and never finished, fill the 64-per-address cap
// (behind the documented loopback proxy, every phone's address). The
// paired page keeps its live feed; the same session opened afresh, by a
// browser with no connection open (a phone back from sleep), loads the
// page, goes live and decides.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { connect as netConnect } from 'node:net';
import {
  launchBrowser, withSetup, newDevice, waitForLive, waitForCard, openCard, tapReview, pageDeviceKey, until, within,
} from './helpers.mjs';

let browser;
before(async () => { browser = await launchBrowser(); });
after(async () => { await browser?.close(); });

/** One connection to the page's port; resolves once it is open (or was closed at once). */
function openConnection(port, trickle) {
  return within('a connection', new Promise((res) => {
    const socket = netConnect(port, '127.0.0.1');
    socket.on('error', () => {});
    socket.once('close', () => res(socket));
    socket.once('connect', () => {
      if (trickle) socket.write(`GET /api/items HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nX-Slow: a`);
      res(socket);
    });
  }));
}

test('300 idle and trickling connections from 127.0.0.1 do not lock the paired phone out', async () => {
  await withSetup(browser, {}, async ({ hp, device, agent, closeLater }) => {
    const paired = await device();
    const { page } = paired;
    const port = Number(new URL(hp.origin).port);
    const flood = [];
    closeLater(async () => { for (const socket of flood) socket.destroy(); });
    for (let i = 0; i < 300; i++) flood.push(await openConnection(port, i % 2 === 1));

    // The open page's feed was kept: a new call reaches it.
    const coder = await agent('coder');
    const callId = coder.client.newCallId();
    const call = coder.writeFile({ path: 'after-the-flood.txt', content: 'written' }, { callId });
    call.catch(() => {}); // awaited below; a failure before that is the test's own
    const item = await hp.pendingItem((i) => i.call_id === callId, `${callId} to wait for a person`);
    await until('the card on the open page', waitForCard(page, item.id));

    // The session opened afresh, in a browser with no connection to the
    // page yet: its files, the API and a new feed are all served.
    const cookies = (await paired.context.cookies()).filter((c) => c.name === '__Host-holdpoint');
    assert.equal(cookies.length, 1);
    const key = await pageDeviceKey(page);
    const phone = await newDevice(browser);
    closeLater(() => phone.context.close());
    await phone.context.setCookie(...cookies);
    await phone.page.evaluateOnNewDocument((k) => localStorage.setItem('holdpoint-device', k), key);
    await phone.page.goto(hp.origin);
    await until('the page, opened afresh, to go live', waitForLive(phone.page));
    await openCard(phone.page, item.id);
    const { status, body } = await tapReview(phone.page, '#approve');
    assert.equal(status, 200, JSON.stringify(body));
    const { decision, wrote } = await call;
    assert.equal(decision.allowed, true);
    assert.ok(wrote);
    assert.deepEqual([...page.errors, ...phone.page.errors], []);
    // The flood made room for itself, not at the phone's expense.
    assert.ok(flood.filter((s) => !s.destroyed && s.readyState === 'open').length <= 64);
  });
});
