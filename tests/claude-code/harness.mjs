// SPDX-License-Identifier: Apache-2.0
// What the Claude Code and Claude Agent SDK suites share: a work directory,
// a real headless console whose policy allows `echo allowed…`, denies
// `echo secret…` and asks a person about every other call, and the scripted
// model on loopback (anthropic-model.mjs). HOLDPOINT_BIN and
// HOLDPOINT_CTL_BIN point at the built binaries (CTest sets them).

import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, writeFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ScriptedModel } from './anthropic-model.mjs';
import { Console } from '../common/console.mjs';

export const HOLDPOINT = process.env.HOLDPOINT_BIN;
export const CTL = process.env.HOLDPOINT_CTL_BIN;
assert.ok(HOLDPOINT && CTL, 'HOLDPOINT_BIN and HOLDPOINT_CTL_BIN must be set');

// A scripted model turn that runs a shell command.
export function bash(command) {
  return { tool: 'Bash', input: { command, description: 'scripted' } };
}

export class Harness {
  constructor(prefix) {
    this.work = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
    this.dataDir = join(this.work, 'data');
    this.holdpoint = new Console({ holdpoint: HOLDPOINT, ctl: CTL, dataDir: this.dataDir });
    this.model = new ScriptedModel();
    this.policy = join(this.work, 'policy.json');
    this.consoles = [];
    this.runs = 0;
  }

  // Another real console, in its own data directory under the work
  // directory, with `policy` (a policy object; the harness's policy when
  // absent). Stopped with the harness unless a test killed it.
  async otherConsole(name, policy) {
    let file = this.policy;
    if (policy) {
      file = join(this.work, `${name}-policy.json`);
      writeFileSync(file, JSON.stringify(policy));
    }
    const c = new Console({ holdpoint: HOLDPOINT, ctl: CTL, dataDir: join(this.work, name) });
    this.consoles.push(c);
    return c.start(file);
  }

  ctl(...args) {
    return this.holdpoint.ctl(...args);
  }

  // The queue item of the Bash call `command`, once it waits for a person.
  pendingCommand(command) {
    return this.holdpoint.pendingItem((i) => i.tool_name === 'Bash' && i.args.command === command, { timeoutMs: 30000 });
  }

  // The Claude Code CLI's environment with its config in `home`, the
  // scripted model as its API, and nothing leaving the machine: no
  // telemetry, error reports, update checks or other non-essential traffic.
  claudeEnv(home) {
    return {
      HOME: home,
      CLAUDE_CONFIG_DIR: join(home, '.claude'),
      ANTHROPIC_BASE_URL: this.model.url,
      ANTHROPIC_API_KEY: '',
      ANTHROPIC_AUTH_TOKEN: 'holdpoint-test-dummy',
      DISABLE_TELEMETRY: '1',
      DISABLE_ERROR_REPORTING: '1',
      DISABLE_AUTOUPDATER: '1',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    };
  }

  // A fresh directory for one run.
  newDir() {
    const dir = join(this.work, `run-${++this.runs}`);
    mkdirSync(dir);
    return dir;
  }

  async start() {
    writeFileSync(this.policy, JSON.stringify({
      default: 'ask',
      guardrails: [{ type: 'rules', rules: [
        { match: 'Bash(echo allowed*)', action: 'allow', reason: 'echo is fine' },
        { match: 'Bash(echo secret*)', action: 'deny', reason: 'no secrets in files' },
      ] }],
    }));
    await this.holdpoint.start(this.policy);
    await this.model.start();
  }

  async stop() {
    await this.model.close();
    for (const c of [this.holdpoint, ...this.consoles]) await c.stop();
    rmSync(this.work, { recursive: true, force: true });
  }
}
