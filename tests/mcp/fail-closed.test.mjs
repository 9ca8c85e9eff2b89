// SPDX-License-Identifier: Apache-2.0
// holdpoint-ctl mcp-proxy fails closed, with the real MCP SDK client and the
// reference filesystem server: the console killed (SIGKILL) while calls
// wait for a person, a console whose endpoint.json outlived it, no console
// at all, a console stopped (SIGSTOP) or full, and one restarted. Every
// tools/call without a decision is answered isError and nothing is
// written; everything else still passes; --fail-open forwards only when no
// console can be reached.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { mkdirSync, mkdtempSync, writeFileSync, existsSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { Console, within } from '../common/console.mjs';

const require = createRequire(import.meta.url);
const serverEntry = require.resolve('@modelcontextprotocol/server-filesystem/dist/index.js');
const HOLDPOINT = process.env.HOLDPOINT_BIN;
const CTL = process.env.HOLDPOINT_CTL_BIN;
assert.ok(HOLDPOINT && CTL, 'HOLDPOINT_BIN and HOLDPOINT_CTL_BIN must be set');

const work = realpathSync(mkdtempSync(join(tmpdir(), 'holdpoint-mcp-fc-')));
const root = join(work, 'root');
const policy = join(work, 'policy.json');
const clients = [];

// The proxy in front of the filesystem server, its console found in `dataDir`.
async function proxy(dataDir, { options = [], env } = {}) {
  const client = new Client({ name: 'holdpoint-test', version: '1.0.0' });
  await client.connect(new StdioClientTransport({
    command: CTL, args: ['--data-dir', dataDir, 'mcp-proxy', '--server-name', 'fs', ...options, '--', process.execPath, serverEntry, root],
    stderr: 'pipe', ...(env ? { env: { ...process.env, ...env } } : {}),
  }));
  clients.push(client);
  return client;
}

function text(result) {
  return result.content.filter((c) => c.type === 'text').map((c) => c.text).join('');
}

// A refused call: isError, the proxy's text, and the file not written.
async function assertRefused(client, path, why) {
  const result = await within(`the answer for ${path}`, client.callTool({ name: 'write_file', arguments: { path, content: 'must not be written' } }));
  assert.equal(result.isError, true, `${path}: ${text(result)}`);
  assert.match(text(result), why);
  assert.equal(existsSync(path), false, `${path} was written`);
}

const LOST = /^Holdpoint console unreachable \(the console closed the connection.*\); the call was not run$/;
const REFUSED = /^Holdpoint console unreachable \(cannot connect to the console at ws:\/\/127\.0\.0\.1:\d+\/?: .*\); the call was not run$/;
const NO_ENDPOINT = /^Holdpoint console unreachable \(.*endpoint\.json.*\); the call was not run$/;

before(() => {
  mkdirSync(root);
  // Reads pass by their MCP annotations; writes wait for a person.
  writeFileSync(policy, JSON.stringify({ default: 'allow', guardrails: [{ type: 'annotations', destructive: 'ask' }] }));
});

after(async () => {
  for (const c of clients) await c.close().catch(() => {});
  rmSync(work, { recursive: true, force: true });
});

test('the console killed while two writes wait: both are refused, nothing is written, and later calls are refused too', async () => {
  const doomed = new Console({ holdpoint: HOLDPOINT, ctl: CTL, dataDir: join(work, 'killed') });
  await doomed.start(policy);
  try {
    const client = await proxy(doomed.dataDir);
    await client.listTools(); // the annotations the policy asks by
    const first = join(root, 'killed-1.txt');
    const second = join(root, 'killed-2.txt');
    const calls = [first, second].map((path) => client.callTool({ name: 'write_file', arguments: { path, content: 'must not be written' } }));
    await doomed.pendingItem((i) => i.args.path === first);
    await doomed.pendingItem((i) => i.args.path === second);
    await doomed.kill('SIGKILL');
    for (const [i, result] of (await within('the waiting calls to be answered', Promise.all(calls))).entries()) {
      assert.equal(result.isError, true, text(result));
      assert.match(text(result), LOST);
      assert.equal(existsSync([first, second][i]), false);
    }
    // The proxy tries the console again at the next call; it is gone.
    await assertRefused(client, join(root, 'after-kill.txt'), REFUSED);
    // A read is a tools/call too: refused, though the policy would pass it.
    const read = await within('the read', client.callTool({ name: 'list_directory', arguments: { path: root } }));
    assert.equal(read.isError, true);
    assert.match(text(read), REFUSED);
    // What is not a tools/call still passes.
    assert.ok((await client.listTools()).tools.some((t) => t.name === 'write_file'));

    // A proxy started now finds the dead console's endpoint.json.
    const late = await proxy(doomed.dataDir);
    await assertRefused(late, join(root, 'stale-endpoint.txt'), REFUSED);
  } finally {
    await doomed.stop();
  }
});

test('no console at all: every tools/call is refused with isError, and other requests pass', async () => {
  const empty = join(work, 'no-console');
  mkdirSync(empty);
  const client = await proxy(empty);
  assert.ok((await client.listTools()).tools.some((t) => t.name === 'write_file'));
  await assertRefused(client, join(root, 'no-console.txt'), NO_ENDPOINT);
  const read = await within('the read', client.callTool({ name: 'list_directory', arguments: { path: root } }));
  assert.equal(read.isError, true);
  assert.match(text(read), NO_ENDPOINT);
});

test('--fail-open, the console stopped (SIGSTOP) while a write waits: refused within the silence bound, nothing written, the late approval runs nothing, and the next call is asked again', async () => {
  const own = new Console({ holdpoint: HOLDPOINT, ctl: CTL, dataDir: join(work, 'stopped') });
  await own.start(policy);
  try {
    const client = await proxy(own.dataDir, { options: ['--fail-open'], env: { HOLDPOINT_SILENCE_MS: '1000' } });
    await client.listTools();
    const path = join(root, 'stopped.txt');
    const call = client.callTool({ name: 'write_file', arguments: { path, content: 'must not be written' } });
    const item = await own.pendingItem((i) => i.args.path === path);
    const stoppedAt = Date.now();
    own.process.kill('SIGSTOP');
    const result = await within('the answer while the console is stopped', call);
    const took = Date.now() - stoppedAt;
    own.process.kill('SIGCONT');
    assert.equal(result.isError, true, text(result));
    assert.match(text(result), /went silent/);
    // The message names the 1 s bound; this only rules out another end, with room for a loaded machine.
    assert.ok(took < 10000, `took ${took} ms`);
    await own.ctl('approve', item.id);
    assert.equal(existsSync(path), false, 'the late approval wrote the file');
    // Asked again, and a person decides it.
    const next = join(root, 'after-stop.txt');
    const again = client.callTool({ name: 'write_file', arguments: { path: next, content: 'approved' } });
    await own.ctl('approve', (await own.pendingItem((i) => i.args.path === next)).id);
    assert.equal((await within('the approved write', again)).isError, undefined);
    assert.equal(existsSync(next), true);
  } finally {
    own.process.kill('SIGCONT');
    await own.stop();
  }
});

test('--fail-open and a full console (connection_limit, which an agent can cause): the write is refused, not forwarded', async () => {
  const own = new Console({ holdpoint: HOLDPOINT, ctl: CTL, dataDir: join(work, 'full'), args: ['--max-connections', '1'] });
  await own.start(policy);
  try {
    const holder = await proxy(own.dataDir); // connects at start and holds the one connection
    await holder.listTools();
    const client = await proxy(own.dataDir, { options: ['--fail-open'] });
    await client.listTools();
    await assertRefused(client, join(root, 'full.txt'), /connection_limit/);
  } finally {
    await own.stop();
  }
});

for (const failOpen of [false, true]) {
  test(`${failOpen ? '--fail-open' : 'fail-closed'}: after a console restart (a new token) the next call reaches the new console`, async () => {
    const own = new Console({ holdpoint: HOLDPOINT, ctl: CTL, dataDir: join(work, `restart-${failOpen}`) });
    await own.start(policy);
    try {
      const client = await proxy(own.dataDir, { options: failOpen ? ['--fail-open'] : [] });
      await client.listTools();
      await own.kill('SIGTERM');
      await own.start(policy);
      const path = join(root, `restarted-${failOpen}.txt`);
      const call = client.callTool({ name: 'write_file', arguments: { path, content: 'denied' } });
      await own.ctl('deny', (await own.pendingItem((i) => i.args.path === path)).id, '--reason', 'not now');
      const result = await within('the denied write', call);
      assert.equal(result.isError, true);
      assert.match(text(result), /^Denied by Holdpoint: not now/);
      assert.equal(existsSync(path), false);
    } finally {
      await own.stop();
    }
  });
}
