// SPDX-License-Identifier: Apache-2.0
// Issue 43.2 on the page: a call that hides characters from the reviewer
// who approves it. The card and the detail warn, the tool, the arguments
// and the edit box show the characters escaped, and an edit of another
// field sends the agent's own text back exactly. The page's twin of
// core/common/visibletext.h answers the console's own table; the names that
// mix scripts it marks from the item's `mixed_script`, which the console
// finds with ICU (the table holds what the console gives for each text).

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import {
  SOURCE_DIR, launchBrowser, withSetup, openCard, openPanel, tapReview, text, until, within, waitFor,
  waitForCard, cardSelector,
} from './helpers.mjs';

const WebSocket = createRequire(fileURLToPath(import.meta.resolve('holdpoint')))('ws');
const here = dirname(fileURLToPath(import.meta.url));
const CASES = JSON.parse(readFileSync(join(here, '..', 'common', 'visibletext_cases.json'), 'utf8'));

const TOOL = 'deploy_report\u202Efdp.exe'; // draws as "deploy_reportexe.pdf"
const ARGS = { command: 'rm\u200B -rf /tmp/x', url: 'https://p\u0430ypal.com/login', note: 'before' };

// HOLDPOINT_SCREENSHOTS=1 also writes the README's picture of the detail.
const WRITE = process.env.HOLDPOINT_SCREENSHOTS === '1';

let browser;
before(async () => { browser = await launchBrowser(); });
after(async () => { await browser?.close(); });

async function agent(hp) {
  const { url, agent_token: token } = JSON.parse(readFileSync(join(hp.dataDir, 'endpoint.json'), 'utf8'));
  const ws = new WebSocket(url);
  const messages = [];
  const rawMessages = [];
  ws.on('message', (data) => { rawMessages.push(data.toString()); messages.push(JSON.parse(data.toString())); });
  await within('the agent to connect', new Promise((res, rej) => { ws.once('open', res); ws.once('error', rej); }));
  ws.send(JSON.stringify({ type: 'hello', protocol: 1, token, agent: { name: 'hider' } }));
  await waitFor('welcome', () => messages.some((m) => m.type === 'welcome'));
  return {
    call: (callId, tool = TOOL, args = ARGS) => ws.send(JSON.stringify({ type: 'tool_call', call_id: callId, tool_name: tool, args })),
    raw: (callId) => waitFor(`the raw decision for ${callId}`,
      () => rawMessages.find((m) => m.includes('"decision"') && m.includes(`"call_id":"${callId}"`))),
    decision: (callId) => waitFor(`the decision for ${callId}`,
      () => messages.find((m) => m.type === 'decision' && m.call_id === callId)),
    close: () => ws.close(),
  };
}

test('the page shows the console\'s table of hidden characters as the console does', async () => {
  await withSetup(browser, {}, async ({ device }) => {
    const { page } = await device();
    /* eslint-disable no-undef */
    const shown = await page.evaluate((cases) => cases.map((c) => {
      MIXED_NAMES.clear();
      learnMixedScript({ mixed_script: c.mixed_script });
      return visibleText(c.text);
    }), CASES);
    /* eslint-enable no-undef */
    CASES.forEach((c, i) => assert.equal(shown[i], c.shown, c.name));
    // JSON escapes each string on its own: the n of a \n is no letter of the word after it.
    const json = await page.evaluate(() => stringifyJson({ text: 'x\nпривет', rlo: '\u202E' })); // eslint-disable-line no-undef
    assert.equal(json, '{"text":"x\\nпривет","rlo":"\\u202E"}');
  });
});

test('a call that hides characters: warned on the card and the detail, escaped, and an edit keeps them exact', async () => {
  await withSetup(browser, {}, async ({ hp, device, closeLater }) => {
    const { page } = await device();
    const hider = await agent(hp);
    closeLater(async () => hider.close());
    hider.call('c1');
    const item = await hp.pendingItem((i) => i.call_id === 'c1');
    assert.deepEqual(item.hidden_characters, ['invisible', 'mixed_script']);
    assert.deepEqual(item.mixed_script.map((n) => n.name), ['p\u0430ypal.com']);

    await openCard(page, item.id);
    const tool = await text(page, '#detail-tool');
    assert.equal(tool, 'deploy_report⟨U+202E⟩fdp.exe');
    const banner = await text(page, '#hidden-characters');
    assert.match(banner, /^⚠ HIDDEN CHARACTERS: invisible or control characters, look-alike letters of another script in a name/);
    assert.ok(banner.includes('Look-alike names: p⟨\u0430 U+0430 CYRILLIC⟩ypal.com.'), banner);
    const body = await text(page, '#detail-body');
    assert.ok(body.includes('"rm\\u200B -rf /tmp/x"') && body.includes('"https://p\\u0430ypal.com/login"'), body);
    assert.ok(!body.includes('\u200B') && !body.includes('\u202E'), `a raw hidden character on the page: ${body}`);
    // The look-alike а shows only inside its mark.
    assert.ok(!body.replaceAll('⟨\u0430 U+0430 CYRILLIC⟩', '').includes('\u0430'), `an unmarked look-alike on the page: ${body}`);
    if (WRITE) await page.screenshot({ path: join(SOURCE_DIR, 'resources/screenshots/web-hidden.png'), type: 'png' });

    // The edit box: the same escapes; the reviewer changes only the note.
    await openPanel(page, 'edit');
    const before = await page.$eval('#edit-args', (t) => t.value);
    assert.ok(before.includes('"rm\\u200B -rf /tmp/x"'), before);
    const after = before.replace('"note": "before"', '"note": "after"');
    assert.notEqual(after, before);
    await page.keyboard.down('Control');
    await page.keyboard.press('KeyA');
    await page.keyboard.up('Control');
    await page.keyboard.type(after);
    await until('the edit to be taken', page.waitForSelector('#edit-confirm:not([disabled])'));
    const sent = await tapReview(page, '#edit-confirm');
    assert.equal(sent.status, 200, JSON.stringify(sent.body));
    const decision = await hider.decision('c1');
    assert.equal(decision.decision, 'modify');
    assert.deepEqual(decision.args, { ...ARGS, note: 'after' });
  });
});

// Look-alike names, found by the console with ICU and marked on the page from
// the item's `mixed_script`: a Cyrillic е in the tool's name, a Greek ο in a
// path, an all-Cyrillic label before `.com`. A Russian note is no name that
// mixes scripts and shows as written. Approved as it stands, the agent gets
// its own bytes back.
test('look-alike names: the card and the detail mark their letters, and an approval returns the bytes', async () => {
  await withSetup(browser, {}, async ({ hp, device, closeLater }) => {
    const { page } = await device();
    const hider = await agent(hp);
    closeLater(async () => hider.close());
    const tool = 'r\u0435ad_file';
    const args = { path: '/etc/passw\u03bfrd', mirror: 'https://\u0430\u0440\u0440\u04cf\u0435.com/x', note: 'Исправлена ошибка в парсере' };
    hider.call('c2', tool, args);
    const item = await hp.pendingItem((i) => i.call_id === 'c2');
    assert.deepEqual(item.hidden_characters, ['mixed_script']);
    assert.deepEqual(item.mixed_script.map((n) => n.name),
      ['r\u0435ad_file', '\u0430\u0440\u0440\u04cf\u0435.com', 'passw\u03bfrd']); // args' keys in order

    await waitForCard(page, item.id);
    const card = await text(page, cardSelector(item.id));
    assert.ok(card.includes('⚠ Hidden characters'), card);
    assert.ok(card.includes('r⟨\u0435 U+0435 CYRILLIC⟩ad_file'), card);
    await openCard(page, item.id);
    assert.equal(await text(page, '#detail-tool'), 'r⟨\u0435 U+0435 CYRILLIC⟩ad_file');
    const banner = await text(page, '#hidden-characters');
    assert.match(banner, /^⚠ HIDDEN CHARACTERS: look-alike letters of another script in a name, shown as ⟨…⟩\. Look-alike names: /);
    const body = await text(page, '#detail-body');
    assert.ok(body.includes('"/etc/passw\\u03BFrd"'), body);
    assert.ok(body.includes('"https://\\u0430\\u0440\\u0440\\u04CF\\u0435.com/x"'), body);
    assert.ok(body.includes('"Исправлена ошибка в парсере"'), body);

    const sent = await tapReview(page, '#approve');
    assert.equal(sent.status, 200, JSON.stringify(sent.body));
    const raw = await hider.raw('c2');
    const decision = JSON.parse(raw);
    assert.equal(decision.decision, 'allow');
    assert.deepEqual(decision.args, args);
    // Each string as the agent wrote it, byte for byte, in the decision's own bytes.
    for (const value of [...Object.values(args)]) assert.ok(Buffer.from(raw).includes(Buffer.from(JSON.stringify(value))), value);
  });
});
