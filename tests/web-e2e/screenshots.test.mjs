// SPDX-License-Identifier: Apache-2.0
// The README's pictures of the reviewer page on a phone (390×844 at 3×):
// the queue with three calls from two agents, one of them in a turn with a
// loop, the detail of that call, and the deny sheet.
//
// The scene is built and checked on every run; the PNGs are written to
// resources/screenshots/ only with HOLDPOINT_SCREENSHOTS=1, so a test run
// never rewrites them.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import {
  SOURCE_DIR, launchBrowser, withSetup, openCard, openPanel, settled, text, until, within, cardSelector,
} from './helpers.mjs';

const WRITE = process.env.HOLDPOINT_SCREENSHOTS === '1';
const OUT = join(SOURCE_DIR, 'resources/screenshots');

// Tests run in a sandbox; the same failing run three times is a loop.
const POLICY = {
  default: 'ask',
  guardrails: [
    { type: 'loop_detection', exact_failure: { warn: 2, block: 5 } },
    { type: 'rules', rules: [{ when: { tool: 'run_tests' }, action: 'allow', reason: 'tests run in a sandbox' }] },
  ],
};

let browser;
before(async () => { browser = await launchBrowser(); });
after(async () => { await browser?.close(); });

/** A screenshot of what the phone's screen shows, when asked for. */
async function shoot(page, name) {
  if (!WRITE) return;
  // The clock and the live status settle with each tick: shoot between them.
  await page.screenshot({ path: join(OUT, name), type: 'png', captureBeyondViewport: false });
}

test(`the page on a phone: queue, detail, deny sheet${WRITE ? ` (writing ${OUT}/web-*.png)` : ''}`, async () => {
  await withSetup(browser, { policy: POLICY }, async ({ hp, device, agent }) => {
    const { page } = await device();
    const coder = await agent('coder');
    const deployer = await agent('deploy-bot');
    const context = { cwd: '/home/dev/shop' };
    const waiting = [];
    const send = (who, tool, args, options = {}) => {
      const call = who.client.submit(tool, args, { context, ...options });
      call.catch(() => {});
      waiting.push(call);
    };

    // 1. coder wants to write a file.
    send(coder, 'write_file', { path: 'src/api/orders.ts', content: 'export const PAGE_SIZE = 100;\n' });
    await hp.pendingItem((i) => i.tool_name === 'write_file');
    // 2. deploy-bot wants to ship to production.
    send(deployer, 'deploy', { service: 'billing-api', environment: 'production', version: '2.14.0' });
    await hp.pendingItem((i) => i.tool_name === 'deploy');
    // 3. coder, in a turn whose tests failed the same way three times, asks
    //    to wipe and reinstall: the call carries the turn's loop.
    const turn = await coder.client.turnStart();
    for (let n = 0; n < 3; n++) {
      const run = await within('run_tests', coder.client.submit('run_tests', { suite: 'api' }, { context }));
      assert.equal(run.decision, 'allow');
      await within('the result', coder.client.toolResult(run.callId, false, { error: '3 failing: orders.test.ts' }));
    }
    send(coder, 'bash', { command: 'rm -rf node_modules && npm ci' });
    const looped = await hp.pendingItem((i) => i.tool_name === 'bash');
    assert.equal(looped.turn_id, turn);
    // exact_failure (3 of 5) and, at its default warn of 3, same_tool_failure (3 of 8).
    const exact = looped.turn_findings.find((f) => f.pattern === 'exact_failure');
    assert.ok(exact, JSON.stringify(looped.turn_findings));
    assert.deepEqual([exact.tool_name, exact.count, exact.stop_at, exact.level], ['run_tests', 3, 5, 'warn']);
    const items = await hp.pending();
    assert.equal(items.length, 3);
    assert.deepEqual(new Set(items.map((i) => i.agent.name)), new Set(['coder', 'deploy-bot']));

    // The queue: three cards, oldest first, the loop marked on its card.
    await until('three cards', page.waitForFunction(() => document.querySelectorAll('.card').length === 3));
    assert.equal(await text(page, '#queue-count'), '3');
    assert.deepEqual(await page.$$eval('.card .tool', (t) => t.map((e) => e.textContent)), ['write_file', 'deploy', 'bash']);
    assert.equal(await text(page, `${cardSelector(looped.id)} .chip`), '⟲ 3/5');
    await shoot(page, 'web-queue.png');

    // The detail of the looping call.
    await openCard(page, looped.id);
    assert.match(await text(page, '#detail-body'), /Loop in this turn/);
    assert.match(await text(page, '#detail-body'), /rm -rf node_modules && npm ci/);
    await shoot(page, 'web-detail.png');

    // The deny sheet, with a reason typed.
    await openPanel(page, 'deny');
    await page.type('#deny-reason', 'Fix the failing test first; a clean install will not help.');
    await settled(page, '#deny-confirm', { enabled: true });
    await shoot(page, 'web-deny.png');

    assert.deepEqual(page.errors, []);
    // Let every call go, so nothing is left waiting.
    for (const item of await hp.pending()) await hp.ctl('deny', item.id, '--reason', 'screenshots taken');
    await within('the calls to be decided', Promise.allSettled(waiting));
  });
});
