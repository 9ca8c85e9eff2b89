// A real headless console for node --test files, and holdpoint-ctl as the
// reviewer. No npm packages: each test directory imports this file.

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

export class Console {
  constructor({ holdpoint, ctl, dataDir }) {
    Object.assign(this, { holdpoint, ctlBin: ctl, dataDir });
  }

  // `holdpoint --headless` on a free port with `policy`; resolves once its
  // endpoint.json is there.
  async start(policy) {
    this.process = spawn(this.holdpoint, ['--headless', '--port', '0', '--data-dir', this.dataDir, '--policy', policy],
      { stdio: 'inherit' });
    await waitFor('the console', () => existsSync(join(this.dataDir, 'endpoint.json')));
  }

  async stop() {
    if (!this.process) return;
    const exited = new Promise((resolve) => this.process.once('exit', resolve));
    this.process.kill('SIGTERM');
    await exited; // it removes its own files first
  }

  async ctl(...args) {
    const { stdout } = await run(this.ctlBin, ['--data-dir', this.dataDir, ...args]);
    return stdout;
  }

  // The first pending item `predicate` accepts, once there is one.
  pendingItem(predicate, timeoutMs) {
    return waitFor('a pending call', async () => JSON.parse(await this.ctl('pending', '--json')).find(predicate), timeoutMs);
  }
}
