// A real headless console for the tests, in its own data directory, and
// holdpoint-ctl against it. HOLDPOINT_BIN and HOLDPOINT_CTL_BIN point at the
// built binaries (CTest sets them; see tests/CMakeLists.txt).

import assert from 'node:assert/strict';
import { spawn, execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtempSync, writeFileSync, existsSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const run = promisify(execFile);
export const HOLDPOINT = process.env.HOLDPOINT_BIN;
export const CTL = process.env.HOLDPOINT_CTL_BIN;
assert.ok(HOLDPOINT && CTL, 'HOLDPOINT_BIN and HOLDPOINT_CTL_BIN must be set');

// One tool per decision kind; any other tool waits for a person.
export const POLICY = {
  default: 'ask',
  guardrails: [
    { type: 'rules', rules: [
      { when: { tool: 'read_note' }, action: 'allow', reason: 'reads are fine' },
      { when: { tool: 'delete_note' }, action: 'deny', reason: 'notes are never deleted' },
      { when: { tool: 'write_note' }, action: 'modify', set: { path: 'sandbox/out.txt' }, reason: 'sandboxed' },
      { when: { tool: 'shutdown' }, action: 'halt', reason: 'stop everything now' },
    ] },
    { type: 'rules', name: 'writes-ok', rules: [
      { when: { tool: 'write_note' }, action: 'allow', reason: 'writes are fine once sandboxed' },
    ] },
  ],
};

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

/** What within() and waitFor() reject with when the deadline passes. */
export class DeadlineError extends Error {
  constructor(what, timeoutMs) {
    super(`timed out after ${timeoutMs} ms waiting for ${what}`);
    this.name = 'DeadlineError';
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
  constructor(policy = POLICY) {
    this.work = realpathSync(mkdtempSync(join(tmpdir(), 'holdpoint-js-')));
    this.dataDir = join(this.work, 'data');
    this.policyPath = join(this.work, 'policy.json');
    writeFileSync(this.policyPath, JSON.stringify(policy));
  }

  async start() {
    this.process = spawn(HOLDPOINT, ['--headless', '--port', '0', '--data-dir', this.dataDir, '--policy', this.policyPath],
      { stdio: ['ignore', 'inherit', 'inherit'] });
    this.exited = new Promise((resolve) => this.process.once('exit', resolve));
    await waitFor('the console', () => {
      if (this.process.exitCode !== null) throw new Error(`the console exited with ${this.process.exitCode}`);
      return existsSync(join(this.dataDir, 'endpoint.json'));
    });
    return this;
  }

  async ctl(...args) {
    const { stdout } = await run(CTL, ['--data-dir', this.dataDir, ...args], { timeout: CTL_TIMEOUT_MS });
    return stdout;
  }

  /** Runs holdpoint-ctl expecting it to refuse; returns its exit code and stderr. */
  async ctlRefused(...args) {
    try {
      await run(CTL, ['--data-dir', this.dataDir, ...args], { timeout: CTL_TIMEOUT_MS });
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
  async pendingItem(predicate, what = 'a pending call') {
    return waitFor(what, async () => (await this.pending()).find(predicate));
  }

  async kill(signal = 'SIGKILL') {
    if (!this.process || this.process.exitCode !== null || this.process.signalCode !== null) return;
    this.process.kill(signal);
    await within(`the console to exit on ${signal}`, this.exited);
  }

  async stop() {
    await this.kill('SIGTERM'); // it removes its own files first
    rmSync(this.work, { recursive: true, force: true });
  }
}
