// SPDX-License-Identifier: Apache-2.0
// Issue 43.3: numbers the page must not change. An agent that sends JSON
// text of its own (not through JSON.stringify, which cannot write these)
// puts numbers past 2^53, the 64-bit extremes, 1e308, -0, a decimal longer
// than a double and 1.0 in a call. The reviewer edits another field on the
// page; what the agent then receives is compared, byte for byte, with what
// it receives for the same arguments approved unedited.
//
// The console keeps numbers as nlohmann_json holds them (PROTOCOL.md
// "Messages"): integers in 64 bits exactly, any other number as the nearest
// double in its shortest form. So 1e308 comes back as 1e+308, -0 (an
// integer) as 0, and 0.1000000000000000055511151231257827 (that double) as
// 0.1, whichever way the call is decided; the page must add no change of
// its own.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import {
  launchBrowser, withSetup, openCard, openPanel, tapReview, text, until, within, waitFor,
} from './helpers.mjs';

const WebSocket = createRequire(fileURLToPath(import.meta.resolve('holdpoint')))('ws');

// As the agent writes it.
const ARGS = '{"path":"numbers.txt","note":"before","build_id":9007199254740993,"min":-9223372036854775808,'
  + '"max":18446744073709551615,"huge":1e308,"negzero":-0,"tenth":0.1000000000000000055511151231257827,"one":1.0}';
// As the console holds and sends them (keys sorted, numbers as above).
const HELD = {
  build_id: '9007199254740993', min: '-9223372036854775808', max: '18446744073709551615',
  huge: '1e+308', negzero: '0', tenth: '0.1', one: '1.0',
};

let browser;
before(async () => { browser = await launchBrowser(); });
after(async () => { await browser?.close(); });

/** An agent speaking the protocol in raw text; keeps every message as the text it arrived in. */
async function rawAgent(hp) {
  const { url, agent_token: token } = JSON.parse(readFileSync(join(hp.dataDir, 'endpoint.json'), 'utf8'));
  const ws = new WebSocket(url);
  const texts = [];
  ws.on('message', (data) => texts.push(data.toString()));
  await within('the agent to connect', new Promise((res, rej) => { ws.once('open', res); ws.once('error', rej); }));
  ws.send(JSON.stringify({ type: 'hello', protocol: 1, token, agent: { name: 'raw-agent' } }));
  await waitFor('welcome', () => texts.some((t) => JSON.parse(t).type === 'welcome'));
  return {
    call: (callId) => ws.send(`{"type":"tool_call","call_id":"${callId}","tool_name":"write_file","args":${ARGS}}`),
    /** The `args` of the decision for `callId`, as the text the console sent. */
    async decidedArgs(callId) {
      const decision = await waitFor(`the decision for ${callId}`,
        () => texts.find((t) => t.includes('"type":"decision"') && t.includes(`"call_id":"${callId}"`)));
      const args = /"args":(\{[^{}]*\})/.exec(decision);
      assert.ok(args, decision);
      return args[1];
    },
    close: () => ws.close(),
  };
}

test('an edit of one field on the page sends every number back as the agent got it unedited', async () => {
  await withSetup(browser, {}, async ({ hp, device, closeLater }) => {
    const { page } = await device();
    const agent = await rawAgent(hp);
    closeLater(async () => agent.close());
    agent.call('as-is');
    agent.call('edited');
    const asIs = await hp.pendingItem((i) => i.call_id === 'as-is');
    const edited = await hp.pendingItem((i) => i.call_id === 'edited');

    // The page shows the numbers as the console holds them.
    await openCard(page, edited.id);
    const shown = await text(page, '#detail-body');
    for (const [key, value] of Object.entries(HELD)) {
      assert.ok(shown.includes(`"${key}": ${value}\n`) || shown.includes(`"${key}": ${value},`),
        `the page shows ${key} as something else than ${value}:\n${shown}`);
    }
    // The edit starts from the same text; the reviewer changes the note.
    await openPanel(page, 'edit');
    const before = await page.$eval('#edit-args', (t) => t.value);
    for (const [key, value] of Object.entries(HELD)) assert.ok(before.includes(`"${key}": ${value}`), before);
    const after = before.replace('"note": "before"', '"note": "after"');
    assert.notEqual(after, before);
    await page.keyboard.down('Control');
    await page.keyboard.press('KeyA');
    await page.keyboard.up('Control');
    await page.keyboard.type(after);
    assert.equal(await page.$eval('#edit-args', (t) => t.value), after);
    await until('the edit to be taken', page.waitForSelector('#edit-confirm:not([disabled])'));
    const sent = await tapReview(page, '#edit-confirm');
    assert.equal(sent.status, 200, JSON.stringify(sent.body));
    // The request itself carries each number's text unchanged.
    assert.equal(sent.request.action, 'edit');
    for (const [key, value] of Object.entries(HELD)) assert.ok(sent.raw.includes(`"${key}":${value}`), sent.raw);

    // The same arguments approved as they are, for comparison.
    await until('the queue', page.waitForSelector('#queue-view:not([hidden])'));
    await openCard(page, asIs.id);
    assert.equal((await tapReview(page, '#approve')).status, 200);

    const unedited = await agent.decidedArgs('as-is');
    const afterEdit = await agent.decidedArgs('edited');
    for (const [key, value] of Object.entries(HELD)) {
      assert.ok(unedited.includes(`"${key}":${value},`) || unedited.includes(`"${key}":${value}}`), unedited);
    }
    assert.equal(afterEdit, unedited.replace('"note":"before"', '"note":"after"'));
  });
});

test('the page reads and writes JSON without rounding a number', async () => {
  await withSetup(browser, {}, async ({ device }) => {
    const { page } = await device();
    const roundTrip = await page.evaluate((args) => stringifyJson(parseJson(args)), ARGS); // eslint-disable-line no-undef
    assert.equal(roundTrip, ARGS);
    // What the page sends for a review's args is that text, not JSON.stringify's.
    const body = await page.evaluate((args) => stringifyJson({ action: 'edit', args: parseJson(args) }), ARGS); // eslint-disable-line no-undef
    assert.equal(body, `{"action":"edit","args":${ARGS}}`);
  });
});

test('the page reads strings, keys and mistakes as JSON has them', async () => {
  await withSetup(browser, {}, async ({ device }) => {
    const { page } = await device();
    const read = (text) => page.evaluate((t) => {
      try {
        const v = parseJson(t); // eslint-disable-line no-undef
        return { ok: true, own: Object.keys(v), plain: Object.getPrototypeOf(v) === Object.prototype, json: JSON.stringify(v) };
      } catch (error) {
        return { ok: false, message: error.message };
      }
    }, text);
    // "__proto__" is a key like any other, never the object's prototype.
    const proto = await read('{"__proto__": {"polluted": 1},\t"constructor":\r\n2, "s": "a\\"b\\\\c\\u0041\\n", "t": "plain é😀"}');
    assert.deepEqual(proto, { ok: true, own: ['__proto__', 'constructor', 's', 't'], plain: true,
      json: '{"__proto__":{"polluted":1},"constructor":2,"s":"a\\"b\\\\cA\\n","t":"plain é😀"}' });
    assert.equal(await page.evaluate(() => ({}).polluted), undefined);
    assert.match((await read('{"a": 1, "a": 2}')).message, /^the key "a" twice/);
    assert.match((await read('{"a": "x\u0001"}')).message, /^a control character in a string/);
    assert.match((await read('{"a": "\\x"}')).message, /^a bad escape in a string/);
    assert.match((await read('{"a": "never ends}')).message, /^a string that never ends/);
    assert.match((await read('{"a": tru}')).message, /^unexpected character/);
  });
});
