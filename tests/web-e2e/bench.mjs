// SPDX-License-Identifier: Apache-2.0
// holdpoint-bench's page scenario: the reviewer page in Debian's Chromium
// against a real headless console and a real agent, each figure next to a
// baseline measured in the same run, in the same page. Prints one JSON
// object; run by holdpoint-bench with HOLDPOINT_BIN, HOLDPOINT_CTL_BIN and
// BENCH_QUICK set (tests/bench/README.md).
//
// - burst: an agent sends BURST calls at once to an open page on a CPU
//   throttled 4×. The figure is the page's longest task (from the browser's
//   own trace: what a tap would have waited behind) until every card shows.
//   The baseline is the same cards made, put on the page and laid out in one
//   task, as the page did before it made them a few milliseconds' worth at
//   a time. Until every card shows, next to until the console has them all
//   waiting (GET /api/items from here).
// - load: the same page loaded afresh with BURST + 1 calls waiting: its
//   longest task until every card shows. The baseline is the browser's own
//   JSON.parse of the same queue (GET /api/items), once, in the same page;
//   until every card shows, next to the same page loaded with one call
//   waiting.
// - clear: a decision on one device until the other device's card is gone,
//   from the moment the deciding device has its POST answer. The baseline is
//   that POST's own round trip, from the tap.

import {
  withSetup, launchBrowser, openCard, tapReview, waitForCard, cardSelector, until, waitFor,
} from './helpers.mjs';

const quick = process.env.BENCH_QUICK === '1';
const BURST = 500;
const DECISIONS = quick ? 5 : 30;
const THROTTLE = 4;

function percentile(values, p) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
}

// Runs `action` with the browser tracing, and returns the page's tasks:
// every task the renderer's main thread ran for the page's frame, longest
// first, in milliseconds (CPU throttling stretches them as it does the page).
async function tasksDuring(page, action) {
  await page.tracing.start({ categories: ['devtools.timeline', 'disabled-by-default-devtools.timeline'] });
  let out;
  try {
    out = await action();
  } finally {
    const trace = JSON.parse(Buffer.from(await page.tracing.stop()).toString('utf8'));
    const events = trace.traceEvents ?? trace;
    const pids = new Set(events.filter((e) => e.name === 'TracingStartedInBrowser')
      .flatMap((e) => e.args.data.frames.filter((f) => f.isOutermostMainFrame).map((f) => f.processId)));
    const main = new Set(events.filter((e) => e.name === 'thread_name' && pids.has(e.pid) && e.args.name === 'CrRendererMain')
      .map((e) => `${e.pid}:${e.tid}`));
    const tasks = events.filter((e) => e.name === 'RunTask' && e.ph === 'X' && main.has(`${e.pid}:${e.tid}`))
      .map((e) => e.dur / 1000).sort((a, b) => b - a);
    if (!tasks.length) throw new Error('the trace has no task of the page\'s renderer');
    out = { ...out, tasks };
  }
  return out;
}

async function callWaiting(hp, agent, args) {
  const callId = agent.client.newCallId();
  const call = agent.writeFile(args, { callId });
  call.catch(() => {});
  const item = await hp.pendingItem((i) => i.call_id === callId, `${callId} to wait for a person`);
  return { call, item };
}

const cardsShown = (page, want) => page.evaluate((n) => document.querySelectorAll('#queue .card').length === n
  && document.getElementById('status').textContent === 'Live', want);

async function burstAndLoad(browser) {
  return withSetup(browser, {}, async ({ hp, device, agent }) => {
    const { page } = await device();
    const coder = await agent('coder');
    const { item: first } = await callWaiting(hp, coder, { path: 'first.txt', content: 'first' });
    await waitForCard(page, first.id);
    const cdp = await page.createCDPSession();
    await cdp.send('Emulation.setCPUThrottlingRate', { rate: THROTTLE });
    // The load's baseline: the same page loaded with one call waiting.
    const loadedWithOne = performance.now();
    await page.reload();
    await waitFor('the card after a reload', () => cardsShown(page, 1), 120000);
    const oneShown = performance.now() - loadedWithOne;

    const burst = await tasksDuring(page, async () => {
      const started = performance.now();
      for (let i = 0; i < BURST; i++) {
        coder.client.submit('write_file', { path: `burst/${i}.txt`, content: `call ${i}` }).catch(() => {});
      }
      // The baseline: the console has them all waiting.
      const atConsole = waitFor(`${BURST + 1} calls waiting`, async () => (await hp.pending()).length === BURST + 1, 120000)
        .then(() => performance.now() - started);
      await waitFor(`${BURST + 1} cards`, () => cardsShown(page, BURST + 1), 120000);
      return { shown: performance.now() - started, atConsole: await atConsole };
    });

    // The baseline: the same cards made by the page's own fillCard, put on
    // the page and laid out, all in one task.
    const oneTask = await page.evaluate(() => {
      const t0 = performance.now();
      const now = serverNow(); // eslint-disable-line no-undef
      const list = document.createElement('ol');
      list.className = 'queue';
      for (const item of state.items.values()) { // eslint-disable-line no-undef
        list.append(h('li', null, fillCard(document.createElement('a'), item, now))); // eslint-disable-line no-undef
      }
      document.getElementById('queue').after(list);
      const height = list.offsetHeight;
      const took = performance.now() - t0;
      list.remove();
      return { took, height };
    });

    const load = await tasksDuring(page, async () => {
      const started = performance.now();
      await page.reload();
      await waitFor(`${BURST + 1} cards after a reload`, () => cardsShown(page, BURST + 1), 120000);
      return { shown: performance.now() - started };
    });
    const parse = await page.evaluate(async () => {
      const response = await fetch('/api/items',
        { headers: { Accept: 'application/json', 'X-Holdpoint-Device': localStorage.getItem('holdpoint-device') ?? '' } });
      const body = await response.text();
      const t0 = performance.now();
      JSON.parse(body);
      return { took: performance.now() - t0, bytes: body.length };
    });
    await cdp.send('Emulation.setCPUThrottlingRate', { rate: 1 });
    const over50 = (tasks) => tasks.filter((t) => t > 50).length;
    return {
      burst: { calls: BURST, longest_task_ms: burst.tasks[0], tasks_over_50ms: over50(burst.tasks), all_shown_ms: burst.shown,
        one_task_ms: oneTask.took, all_waiting_ms: burst.atConsole },
      load: { calls: BURST + 1, longest_task_ms: load.tasks[0], tasks_over_50ms: over50(load.tasks), all_shown_ms: load.shown,
        json_parse_ms: parse.took, bytes: parse.bytes, one_shown_ms: oneShown },
    };
  });
}

async function clear(browser) {
  return withSetup(browser, {}, async ({ hp, device, agent }) => {
    const a = await device();
    const b = await device();
    const coder = await agent('coder');
    const cleared = [];
    const posted = [];
    for (let i = 0; i < DECISIONS; i++) {
      const { call, item } = await callWaiting(hp, coder, { path: `clear/${i}.txt`, content: `call ${i}` });
      await until(`the card of ${item.id} on the other device`, waitForCard(b.page, item.id));
      await openCard(a.page, item.id);
      const tapped = performance.now();
      const review = await tapReview(a.page, '#approve');
      const answered = performance.now();
      if (review.status !== 200) throw new Error(`the approval was refused: ${review.status} ${JSON.stringify(review.body)}`);
      await until(`the card of ${item.id} to leave the other device`, b.page.waitForFunction((sel) => !document.querySelector(sel),
        { polling: 'mutation', timeout: 30000 }, cardSelector(item.id)));
      cleared.push(performance.now() - answered);
      posted.push(answered - tapped);
      await call;
    }
    return {
      clear: { decisions: DECISIONS, p50: percentile(cleared, 0.5), p99: percentile(cleared, 0.99),
        post_p50: percentile(posted, 0.5), post_p99: percentile(posted, 0.99) },
    };
  });
}

const browser = await launchBrowser();
try {
  const result = { ...(await burstAndLoad(browser)), ...(await clear(browser)), throttle: THROTTLE };
  process.stdout.write(`${JSON.stringify(result)}\n`);
} finally {
  await browser.close();
}
