// SPDX-License-Identifier: Apache-2.0
// holdpoint-ctl mcp-proxy between the real MCP SDK client and the reference
// filesystem server, with a real headless console deciding.
//
// Run by CTest (see tests/CMakeLists.txt) with HOLDPOINT_BIN and
// HOLDPOINT_CTL_BIN pointing at the built binaries.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { createRequire } from 'node:module';
import { mkdtempSync, writeFileSync, readFileSync, existsSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { Console } from '../common/console.mjs';

const run = promisify(execFile);
const require = createRequire(import.meta.url);
const serverEntry = require.resolve('@modelcontextprotocol/server-filesystem/dist/index.js');
const HOLDPOINT = process.env.HOLDPOINT_BIN;
const CTL = process.env.HOLDPOINT_CTL_BIN;
assert.ok(HOLDPOINT && CTL, 'HOLDPOINT_BIN and HOLDPOINT_CTL_BIN must be set');

const work = realpathSync(mkdtempSync(join(tmpdir(), 'holdpoint-mcp-')));
const dataDir = join(work, 'data');
const root = join(work, 'root');
const holdpoint = new Console({ holdpoint: HOLDPOINT, ctl: CTL, dataDir });
let proxied;
let direct;

const ctl = (...args) => holdpoint.ctl(...args);
const pendingItem = (predicate) => holdpoint.pendingItem(predicate);

// Waits for `call` to wait for a person; fails at once, with the answer, if
// the client is answered first (a refusal instead of a question).
async function pendingFor(call, predicate) {
  const answered = call.then((result) => { throw new Error(`answered before any person was asked: ${text(result)}`); });
  return Promise.race([pendingItem(predicate), answered]);
}

function connect(command, args) {
  const client = new Client({ name: 'holdpoint-test', version: '1.0.0' });
  return client.connect(new StdioClientTransport({ command, args, stderr: 'inherit' })).then(() => client);
}

function text(result) {
  return result.content.filter((c) => c.type === 'text').map((c) => c.text).join('');
}

before(async () => {
  await run('mkdir', ['-p', root]);
  const policy = join(work, 'policy.json');
  // Reads are read-only by their MCP annotations and pass; writes are
  // destructive and wait for a person.
  writeFileSync(policy, JSON.stringify({ default: 'allow', guardrails: [{ type: 'annotations', destructive: 'ask' }] }));
  await holdpoint.start(policy);
  proxied = await connect(CTL, ['--data-dir', dataDir, 'mcp-proxy', '--server-name', 'fs', '--', process.execPath, serverEntry, root]);
  direct = await connect(process.execPath, [serverEntry, root]);
  await proxied.listTools(); // the proxy learns the annotations from this
});

after(async () => {
  await proxied?.close();
  await direct?.close();
  await holdpoint.stop();
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

test('a halted write returns isError, writes nothing, and the session\'s other calls are decided as usual', async () => {
  const target = join(root, 'halted.txt');
  const other = join(root, 'waits-through-the-halt.txt');
  const later = join(root, 'after-the-halt.txt');
  const call = proxied.callTool({ name: 'write_file', arguments: { path: target, content: 'halted' } });
  const otherCall = proxied.callTool({ name: 'write_file', arguments: { path: other, content: 'other' } });
  const item = await pendingItem((i) => i.args.path === target);
  const otherItem = await pendingItem((i) => i.args.path === other);
  await ctl('halt', item.id, '--reason', 'stop the run');
  const result = await call;
  assert.equal(result.isError, true);
  assert.equal(text(result), 'Denied by Holdpoint: stop the run');
  assert.equal(existsSync(target), false);
  // MCP has no turns: the proxy sends each call outside any, and a halt
  // outside a turn stops that call only (PROTOCOL.md, "Halting"). The other
  // waiting call still waits, and a later one is asked about as usual.
  assert.ok((await holdpoint.pending()).some((i) => i.id === otherItem.id), 'the halt took the other waiting call too');
  const laterCall = proxied.callTool({ name: 'write_file', arguments: { path: later, content: 'later' } });
  const laterItem = await pendingItem((i) => i.args.path === later);
  await ctl('approve', otherItem.id);
  await ctl('deny', laterItem.id, '--reason', 'not after a halt');
  assert.notEqual((await otherCall).isError, true);
  assert.equal(readFileSync(other, 'utf8'), 'other');
  const laterResult = await laterCall;
  assert.equal(laterResult.isError, true);
  assert.equal(text(laterResult), 'Denied by Holdpoint: not after a halt');
  assert.equal(existsSync(later), false);
});

// Precomposed and combining forms side by side (no normalisation may
// happen), a ZWJ family, Hangul, kana and kanji, a character outside the
// BMP, and what JSON must escape.
const UNIT = 'naïve café / cafe\u0301 ñ n\u0303 🧪🚀👩‍👩‍👧 🏳️‍🌈 漢字かな交じり 한국어 𝄞 '
  + 'a\u0308\u0323 "quoted" back\\slash tab\tnew\nline \u2028\u2029 ';
const repeatTo = (unit, bytes) => unit.repeat(Math.ceil(bytes / Buffer.byteLength(unit)));

test('a large non-ASCII write approved by a reviewer is written byte for byte, to a non-ASCII path', async () => {
  const target = join(root, 'ノート été 🧪.txt');
  const content = repeatTo(UNIT, 300 * 1024);
  const call = proxied.callTool({ name: 'write_file', arguments: { path: target, content } });
  const item = await pendingFor(call, (i) => i.args.path === target);
  assert.ok(item.args.content === content, 'the console got other text than the client sent');
  await ctl('approve', item.id);
  const result = await call;
  assert.notEqual(result.isError, true, text(result));
  assert.ok(readFileSync(target).equals(Buffer.from(content, 'utf8')), 'the file differs from what the client sent');
});

test('a reviewer\'s non-ASCII edit is written byte for byte', async () => {
  const asked = join(root, 'ask-edit.txt');
  const edited = join(root, '編集済み é.txt');
  // One command-line argument holds at most 128 KiB, so holdpoint-ctl edit gets less.
  const content = repeatTo(UNIT, 90 * 1024);
  const call = proxied.callTool({ name: 'write_file', arguments: { path: asked, content: 'short' } });
  const item = await pendingItem((i) => i.args.path === asked);
  await ctl('edit', item.id, '--args', JSON.stringify({ path: edited, content }));
  const result = await call;
  assert.notEqual(result.isError, true, text(result));
  assert.ok(readFileSync(edited).equals(Buffer.from(content, 'utf8')), 'the file differs from the edit');
  assert.equal(existsSync(asked), false);
});

test('writes of 700 KB of three-byte characters, more than one WebSocket frame each way, arrive whole', async () => {
  // Three calls one byte apart: whatever the frame size, a character
  // straddles the boundary between two frames in at least one of them.
  for (const pad of ['', 'x', 'xx']) {
    const target = join(root, `cjk${pad}.txt`);
    const content = pad + '漢字仮名'.repeat(60 * 1024);
    const call = proxied.callTool({ name: 'write_file', arguments: { path: target, content } });
    const item = await pendingFor(call, (i) => i.args.path === target);
    await ctl('approve', item.id);
    const result = await call;
    assert.notEqual(result.isError, true, text(result));
    assert.ok(readFileSync(target).equals(Buffer.from(content, 'utf8')), `cjk${pad}.txt differs from what the client sent`);
  }
});

test('a write over the console\'s 1 MiB message cap is refused and writes nothing; the next call reaches the console again', async () => {
  const target = join(root, 'too-big.txt');
  const content = repeatTo(UNIT, 1100 * 1024);
  const result = await proxied.callTool({ name: 'write_file', arguments: { path: target, content } });
  assert.equal(result.isError, true);
  // Refused by the proxy against the welcome's max_message_bytes; its
  // connection to the console stays up for the next call.
  assert.match(text(result), /^Holdpoint refused the call: the message is \d+ bytes, more than the console takes \(1048576 bytes, holdpoint --max-message-bytes\); the call was not run$/);
  assert.equal(existsSync(target), false);
  const next = join(root, 'after-too-big.txt');
  const call = proxied.callTool({ name: 'write_file', arguments: { path: next, content: 'small' } });
  const item = await pendingItem((i) => i.args.path === next);
  await ctl('approve', item.id);
  assert.notEqual((await call).isError, true);
  assert.equal(readFileSync(next, 'utf8'), 'small');
});
