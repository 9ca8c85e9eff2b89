import { withSetup, launchBrowser, waitForCard, waitFor } from '/work/main/tests/web-e2e/helpers.mjs';
const browser = await launchBrowser();
const BURST = Number(process.env.N || 200);
await withSetup(browser, {}, async ({ hp, device, agent }) => {
  const { page } = await device();
  const coder = await agent('coder');
  const cdp = await page.createCDPSession();
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: 4 });
  await page.evaluate(() => {
    const ch = new MessageChannel(); let last = performance.now(); window.gaps = [];
    ch.port1.onmessage = () => { const now = performance.now(); if (now - last > 20) window.gaps.push([Math.round(now - last), document.querySelectorAll('#queue .card').length]); last = now; ch.port2.postMessage(0); };
    ch.port2.postMessage(0);
  });
  if (process.env.TRACE) await page.tracing.start({ path: '/tmp/trace.json', categories: ['devtools.timeline', 'disabled-by-default-devtools.timeline'] });
  for (let i = 0; i < BURST; i++) coder.client.submit('write_file', { path: `burst/${i}.txt`, content: `call ${i}` }).catch(() => {});
  await waitFor('cards', () => page.evaluate((n) => document.querySelectorAll('#queue .card').length === n, BURST), 60000);
  if (process.env.TRACE) await page.tracing.stop();
  console.log(JSON.stringify(await page.evaluate(() => window.gaps)));
});
await browser.close();
