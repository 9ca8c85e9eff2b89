// SPDX-License-Identifier: Apache-2.0
// The real Claude Code CLI for the node --test files in this directory: the
// pinned versions, a home with the shipped hook settings, and one headless
// run (`claude -p`) against the harness's scripted model and a console's
// data directory.

import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { mkdirSync, readFileSync, writeFileSync, symlinkSync, existsSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CTL } from './harness.mjs';

const require = createRequire(import.meta.url);
const here = dirname(fileURLToPath(import.meta.url));
export const shippedSettings = join(here, '../../resources/integrations/claude-code/settings.json');

// Both ship a native binary: bin/claude.exe, which the package's postinstall
// replaces with the one from the platform's optional dependency.
export const VERSIONS = ['2.1.330', '2.1.197'];
export function claudeBinary(version) {
  return join(dirname(require.resolve(`claude-code-${version}/package.json`)), 'bin', 'claude.exe');
}

export class ClaudeCli {
  // `h` is a Harness; holdpoint-ctl goes on PATH from a bin directory in its work directory.
  constructor(h) {
    this.h = h;
    this.bin = join(h.work, 'bin');
  }

  // A Claude Code home with the shipped settings and nothing else.
  home(name) {
    if (!existsSync(this.bin)) {
      mkdirSync(this.bin);
      symlinkSync(CTL, join(this.bin, 'holdpoint-ctl'));
    }
    const home = join(this.h.work, name);
    mkdirSync(join(home, '.claude'), { recursive: true });
    writeFileSync(join(home, '.claude', 'settings.json'), readFileSync(shippedSettings));
    return home;
  }

  // Runs `claude -p` in `cwd` until it exits, with the hook finding the
  // console in `dataDir` (the harness's console unless given); its
  // stream-json events. `ctlOnPath: false` leaves holdpoint-ctl off PATH.
  run(version, home, cwd, prompt, { dataDir = this.h.dataDir, permissionMode = 'default', ctlOnPath = true, extraEnv = {} } = {}) {
    const env = {
      ...extraEnv,
      PATH: ctlOnPath ? `${this.bin}:${process.env.PATH}`
        : process.env.PATH.split(':').filter((d) => d && !existsSync(join(d, 'holdpoint-ctl'))).join(':'),
      HOLDPOINT_DATA_DIR: dataDir,
      ...this.h.claudeEnv(home),
    };
    const args = ['-p', prompt, '--output-format', 'stream-json', '--verbose', '--permission-mode', permissionMode];
    const child = spawn(claudeBinary(version), args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 90000);
    // 'close', not 'exit': the events of a large call may still be in the pipe when it exits.
    return new Promise((resolve) => {
      child.on('close', (code, signal) => {
        clearTimeout(timer);
        // A line may be cut: the CLI can exit before a very long one (an
        // event that repeats a call of a megabyte) is written out.
        const events = [];
        const unparsed = [];
        for (const line of stdout.split('\n').filter(Boolean)) {
          try {
            events.push(JSON.parse(line));
          } catch {
            unparsed.push(line.slice(0, 200));
          }
        }
        const init = events.find((e) => e.type === 'system' && e.subtype === 'init');
        resolve({ code, signal, stderr, events, unparsed, sessionId: init?.session_id, result: events.find((e) => e.type === 'result') });
      });
    });
  }
}
