// Shared by the node tests: a real headless console and holdpoint-ctl
// against it. No dependencies, so each test directory can import it.

import { spawn, execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

const run = promisify(execFile);

// Waits for a condition, checking on every turn of a short poll; fails after
// a deadline instead of sleeping a fixed time.
export async function waitFor(what, check, timeoutMs = 15000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

// Starts `holdpoint --headless` on a free port; resolves once its endpoint
// file is written. stop() ends it with SIGTERM and waits (it removes its files).
export async function startConsole(holdpoint, dataDir, policy) {
  const child = spawn(holdpoint, ['--headless', '--port', '0', '--data-dir', dataDir, '--policy', policy], { stdio: 'inherit' });
  await waitFor('the console', () => existsSync(join(dataDir, 'endpoint.json')));
  return {
    async stop() {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

// holdpoint-ctl against the console in dataDir: ctl(...args) resolves to its
// stdout; pendingItem(predicate) waits for a matching queue item.
export function controller(ctlBin, dataDir) {
  const ctl = async (...args) => (await run(ctlBin, ['--data-dir', dataDir, ...args])).stdout;
  const pendingItem = (predicate) =>
    waitFor('a pending call', async () => JSON.parse(await ctl('pending', '--json')).find(predicate));
  return { ctl, pendingItem };
}
