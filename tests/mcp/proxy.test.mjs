// holdpoint-ctl mcp-proxy between the real MCP SDK client and the reference
// filesystem server, with a real headless console deciding.
//
// Run by CTest (see tests/CMakeLists.txt) with HOLDPOINT_BIN and
// HOLDPOINT_CTL_BIN pointing at the built binaries.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { mkdtempSync, mkdirSync, writeFileSync, readFileSync, existsSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { startConsole, controller } from '../common/console.mjs';

const require = createRequire(import.meta.url);
const serverEntry = require.resolve('@modelcontextprotocol/server-filesystem/dist/index.js');
const HOLDPOINT = process.env.HOLDPOINT_BIN;
const CTL = process.env.HOLDPOINT_CTL_BIN;
assert.ok(HOLDPOINT && CTL, 'HOLDPOINT_BIN and HOLDPOINT_CTL_BIN must be set');

const work = realpathSync(mkdtempSync(join(tmpdir(), 'holdpoint-mcp-')));
const dataDir = join(work, 'data');
const root = join(work, 'root');
let holdpoint;
const { ctl, pendingItem } = controller(CTL, dataDir);
let proxied;
let direct;

function connect(command, args) {
  const client = new Client({ name: 'holdpoint-test', version: '1.0.0' });
  return client.connect(new StdioClientTransport({ command, args, stderr: 'inherit' })).then(() => client);
}

function text(result) {
  return result.content.filter((c) => c.type === 'text').map((c) => c.text).join('');
}

before(async () => {
  mkdirSync(root, { recursive: true });
  const policy = join(work, 'policy.json');
  // Reads are read-only by their MCP annotations and pass; writes are
  // destructive and wait for a person.
  writeFileSync(policy, JSON.stringify({ default: 'allow', guardrails: [{ type: 'annotations', destructive: 'ask' }] }));
  holdpoint = await startConsole(HOLDPOINT, dataDir, policy);
  proxied = await connect(CTL, ['--data-dir', dataDir, 'mcp-proxy', '--server-name', 'fs', '--', process.execPath, serverEntry, root]);
  direct = await connect(process.execPath, [serverEntry, root]);
  await proxied.listTools(); // the proxy learns the annotations from this
});

after(async () => {
  await proxied?.close();
  await direct?.close();
  await holdpoint?.stop(); // it removes its own files first
  rmSync(work, { recursive: true, force: true });
});

test('the tool list through the proxy equals the direct one', async () => {
  const through = await proxied.listTools();
  const straight = await direct.listTools();
  assert.deepEqual(through.tools, straight.tools);
  assert.ok(through.tools.some((t) => t.name === 'write_file'));
});

test('an allowed read passes with no person involved', async () => {
  writeFileSync(join(root, 'hello.txt'), 'hello from holdpoint\n');
  const result = await proxied.callTool({ name: 'read_text_file', arguments: { path: join(root, 'hello.txt') } });
  assert.notEqual(result.isError, true);
  assert.equal(text(result), 'hello from holdpoint\n');
});

test('a write approved by a reviewer writes the file', async () => {
  const target = join(root, 'approved.txt');
  const call = proxied.callTool({ name: 'write_file', arguments: { path: target, content: 'approved' } });
  const item = await pendingItem((i) => i.tool_name === 'write_file' && i.args.path === target);
  assert.equal(item.annotations.destructiveHint, true);
  assert.equal(item.context.mcp_server, 'fs');
  await ctl('approve', item.id);
  const result = await call;
  assert.notEqual(result.isError, true);
  assert.equal(readFileSync(target, 'utf8'), 'approved');
});

test('a denied write returns isError with the reason and writes nothing', async () => {
  const target = join(root, 'denied.txt');
  const call = proxied.callTool({ name: 'write_file', arguments: { path: target, content: 'nope' } });
  const item = await pendingItem((i) => i.args.path === target);
  await ctl('deny', item.id, '--reason', 'not in this folder');
  const result = await call;
  assert.equal(result.isError, true);
  assert.equal(text(result), 'Denied by Holdpoint: not in this folder');
  assert.equal(existsSync(target), false);
});

test('an edited write writes to the edited path', async () => {
  const asked = join(root, 'asked.txt');
  const edited = join(root, 'edited.txt');
  const call = proxied.callTool({ name: 'write_file', arguments: { path: asked, content: 'moved' } });
  const item = await pendingItem((i) => i.args.path === asked);
  await ctl('edit', item.id, '--args', JSON.stringify({ path: edited, content: 'moved' }));
  const result = await call;
  assert.notEqual(result.isError, true);
  assert.equal(readFileSync(edited, 'utf8'), 'moved');
  assert.equal(existsSync(asked), false);
});

test('two waiting calls resolve independently while other traffic flows', async () => {
  const first = join(root, 'first.txt');
  const second = join(root, 'second.txt');
  const a = proxied.callTool({ name: 'write_file', arguments: { path: first, content: '1' } });
  const b = proxied.callTool({ name: 'write_file', arguments: { path: second, content: '2' } });
  const itemA = await pendingItem((i) => i.args.path === first);
  const itemB = await pendingItem((i) => i.args.path === second);
  // Both wait; the client can still list and read meanwhile.
  const listing = await proxied.callTool({ name: 'list_directory', arguments: { path: root } });
  assert.match(text(listing), /hello\.txt/);
  await ctl('deny', itemB.id, '--reason', 'second is not needed');
  const resultB = await b;
  assert.equal(resultB.isError, true);
  await ctl('approve', itemA.id);
  const resultA = await a;
  assert.notEqual(resultA.isError, true);
  assert.equal(readFileSync(first, 'utf8'), '1');
  assert.equal(existsSync(second), false);
});

test('a 4 MiB file read passes intact, and the console stays connected', async () => {
  // server-filesystem returns the text twice, so the JSON-RPC line is about 8 MiB.
  const big = 'abcdefghijklmnopqrstuvwxyz0123456789\n'.repeat(Math.ceil((4 * 1024 * 1024) / 37)).slice(0, 4 * 1024 * 1024);
  writeFileSync(join(root, 'big.txt'), big);
  const result = await proxied.callTool({ name: 'read_text_file', arguments: { path: join(root, 'big.txt') } });
  assert.notEqual(result.isError, true);
  assert.equal(text(result).length, big.length);
  assert.equal(text(result), big);
  // The big result went to the console as a digest: the next call is still decided there.
  const target = join(root, 'after-big.txt');
  const call = proxied.callTool({ name: 'write_file', arguments: { path: target, content: 'still here' } });
  const item = await pendingItem((i) => i.args.path === target);
  await ctl('approve', item.id);
  assert.notEqual((await call).isError, true);
});
