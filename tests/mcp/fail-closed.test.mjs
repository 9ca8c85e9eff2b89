// SPDX-License-Identifier: Apache-2.0
// holdpoint-ctl mcp-proxy fails closed, with the real MCP SDK client and the
// reference filesystem server: the console killed (SIGKILL) while calls
// wait for a person, a console whose endpoint.json outlived it, and no
// console at all. Every tools/call is answered isError and nothing is
// written; everything else still passes.

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
async function proxy(dataDir) {
  const client = new Client({ name: 'holdpoint-test', version: '1.0.0' });
  await client.connect(new StdioClientTransport({
    command: CTL, args: ['--data-dir', dataDir, 'mcp-proxy', '--server-name', 'fs', '--', process.execPath, serverEntry, root], stderr: 'pipe',
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
