// SPDX-License-Identifier: Apache-2.0
// A real headless console for node --test files, and holdpoint-ctl as the
// reviewer. No npm packages: each test directory imports this file.

import { spawn, execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

const run = promisify(execFile);

/** What within() and waitFor() reject with when the deadline passes. */
export class DeadlineError extends Error {
  constructor(what, timeoutMs) {
    super(`timed out after ${timeoutMs} ms waiting for ${what}`);
    this.name = 'DeadlineError';
  }
}

// Waits for a condition, checking on every turn of a short poll; fails after
// a deadline instead of sleeping a fixed time.
export async function waitFor(what, check, timeoutMs = 15000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new DeadlineError(what, timeoutMs);
    await new Promise((r) => setTimeout(r, 25));
  }
}

// Awaits `promise`, failing after a deadline with what was awaited, so a run
// whose call nobody decides fails the test instead of hanging it.
export async function within(what, promise, timeoutMs = 20000) {
  let timer;
  const deadline = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new DeadlineError(what, timeoutMs)), timeoutMs);
  });
  try {
    return await Promise.race([promise, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

// holdpoint-ctl never gets longer than this.
const CTL_TIMEOUT_MS = 15000;

export class Console {
  // `args`: more options for the console, e.g. ['--timeout', '2'].
  constructor({ holdpoint, ctl, dataDir, args = [] }) {
    Object.assign(this, { holdpoint, ctlBin: ctl, dataDir, args });
  }

  // `holdpoint --headless` on a free port with `policy`; resolves once its
  // endpoint.json is there, and fails at once if it exits instead.
  async start(policy) {
    this.process = spawn(this.holdpoint,
      ['--headless', '--port', '0', '--data-dir', this.dataDir, '--policy', policy, ...this.args],
      { stdio: ['ignore', 'inherit', 'inherit'] });
    this.exited = new Promise((resolve) => this.process.once('exit', resolve));
    await waitFor('the console', () => {
      if (this.process.exitCode !== null) throw new Error(`the console exited with ${this.process.exitCode}`);
      return existsSync(join(this.dataDir, 'endpoint.json'));
    });
    return this;
  }

  async kill(signal = 'SIGKILL') {
    if (!this.process || this.process.exitCode !== null || this.process.signalCode !== null) return;
    this.process.kill(signal);
    await within(`the console to exit on ${signal}`, this.exited);
  }

  async stop() {
    await this.kill('SIGTERM'); // it removes its own files first
  }

  async ctl(...args) {
    const { stdout } = await run(this.ctlBin, ['--data-dir', this.dataDir, ...args], { timeout: CTL_TIMEOUT_MS });
    return stdout;
  }

  /** Runs holdpoint-ctl expecting it to refuse; returns its exit code and stderr. */
  async ctlRefused(...args) {
    try {
      await run(this.ctlBin, ['--data-dir', this.dataDir, ...args], { timeout: CTL_TIMEOUT_MS });
    } catch (e) {
      if (e.killed) throw new Error(`holdpoint-ctl ${args[0]} did not finish within ${CTL_TIMEOUT_MS} ms`);
      return { code: e.code, stderr: e.stderr };
    }
    throw new Error(`holdpoint-ctl ${args.join(' ')} succeeded; it should have been refused`);
  }

  async pending() {
    return JSON.parse(await this.ctl('pending', '--json'));
  }

  /** Waits until a call matching `predicate` waits for a person; returns its queue item. */
  pendingItem(predicate, { what = 'a pending call', timeoutMs } = {}) {
    return waitFor(what, async () => (await this.pending()).find(predicate), timeoutMs);
  }
}
