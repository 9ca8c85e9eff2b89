// SPDX-License-Identifier: Apache-2.0
// The JS client against a console that hangs, restarts, or is not a console
// (PROTOCOL.md, "When the console cannot be asked"): a console stopped with
// SIGSTOP while a call waits denies it within the silence bound, and the
// person's approval after SIGCONT runs nothing; anything before the welcome
// that is not a welcome for protocol 1 is refused at once; only "no console
// reachable" counts for failsOpen().

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WebSocketServer } from 'ws';
import {
  HoldpointClient, ConnectionLostError, ConsoleRefusedError, ProtocolViolationError, NoConsoleError, failsOpen,
} from 'holdpoint';
import { Console, within } from './console.mjs';

const SILENCE_MS = 1000;

function endpointDir(port) {
  const dir = mkdtempSync(join(tmpdir(), 'holdpoint-js-hang-'));
  writeFileSync(join(dir, 'endpoint.json'), JSON.stringify({ url: `ws://127.0.0.1:${port}/`, agent_token: 't' }));
  return dir;
}

test('a console stopped while a call waits: the call is denied within the silence bound; the late approval runs nothing', async () => {
  const hp = await new Console().start();
  const ran = [];
  const client = new HoldpointClient({ dataDir: hp.dataDir, silenceMs: SILENCE_MS });
  try {
    const waiting = client.submit('send_note', { path: 'stopped.txt' }).then((d) => {
      if (d.allowed) ran.push(d.args);
      return d;
    });
    waiting.catch(() => {});
    const item = await hp.pendingItem((i) => i.args.path === 'stopped.txt', { what: 'the call to wait' });
    const stoppedAt = Date.now();
    hp.process.kill('SIGSTOP');
    let error;
    try {
      await within('the denial', waiting);
    } catch (e) {
      error = e;
    }
    const took = Date.now() - stoppedAt;
    hp.process.kill('SIGCONT');
    assert.ok(error instanceof ConnectionLostError, String(error));
    assert.match(error.message, /went silent/);
    assert.equal(failsOpen(error), false);
    // The message names the bound; this only rules out another end, with room for a loaded machine.
    assert.ok(took < SILENCE_MS * 10, `took ${took} ms`);
    await hp.ctl('approve', item.id);
    // The next call connects anew and is decided as usual.
    const next = await within('the next call', client.submit('read_note', { path: 'after.txt' }));
    assert.equal(next.allowed, true);
    assert.deepEqual(ran, []);
  } finally {
    hp.process.kill('SIGCONT');
    await client.close();
    await hp.stop();
  }
});

test('the console restarts (a new token): the next call reads endpoint.json again and is decided', async () => {
  const hp = await new Console().start();
  const client = new HoldpointClient({ dataDir: hp.dataDir });
  try {
    assert.equal((await client.submit('read_note', { path: 'a' })).allowed, true);
    await hp.kill('SIGTERM');
    await hp.start();
    assert.equal((await within('the call after the restart', client.submit('read_note', { path: 'b' }))).allowed, true);
  } finally {
    await client.close();
    await hp.stop();
  }
});

// A WebSocket server that answers hello with `greeting` (a string, or a
// Buffer sent as a binary frame) and does not close.
async function scripted(greeting) {
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await new Promise((resolve) => wss.once('listening', resolve));
  wss.on('connection', (ws) => ws.once('message', () => ws.send(greeting)));
  return { wss, dir: endpointDir(wss.address().port) };
}

for (const [name, greeting, kind] of [
  ['a welcome for protocol 2', JSON.stringify({ type: 'welcome', protocol: 2, session_id: 's' }), ProtocolViolationError],
  ['a binary frame', Buffer.from('{"type":"welcome","protocol":1,"session_id":"s"}'), ProtocolViolationError],
  ['not JSON', '{nope', ProtocolViolationError],
  ['connection_limit, without a close', JSON.stringify({ type: 'error', code: 'connection_limit', message: 'full' }), ConsoleRefusedError],
]) {
  test(`before the welcome, ${name}: refused at once, and fail-open would not open`, async () => {
    const { wss, dir } = await scripted(greeting);
    try {
      const error = await HoldpointClient.connect({ dataDir: dir }).then(() => undefined, (e) => e);
      assert.ok(error instanceof kind, String(error));
      assert.equal(failsOpen(error), false);
    } finally {
      wss.close();
      for (const c of wss.clients) c.terminate();
    }
  });
}

test('a port squatter that says nothing: refused after the connect timeout, not "no console"', async () => {
  const server = createServer(() => {});
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const sockets = [];
  server.on('connection', (s) => sockets.push(s));
  try {
    const dir = endpointDir(server.address().port);
    const error = await HoldpointClient.connect({ dataDir: dir, connectTimeoutMs: 1000 }).then(() => undefined, (e) => e);
    assert.ok(error, 'connected to a squatter');
    assert.equal(failsOpen(error), false);
  } finally {
    for (const s of sockets) s.destroy();
    server.close();
  }
});

test('no endpoint.json, or nothing listening: NoConsoleError, the one failure fail-open may open for', async () => {
  const empty = mkdtempSync(join(tmpdir(), 'holdpoint-js-none-'));
  const absent = await HoldpointClient.connect({ dataDir: empty }).then(() => undefined, (e) => e);
  assert.ok(absent instanceof NoConsoleError, String(absent));
  assert.equal(failsOpen(absent), true);
  const server = createServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = server.address().port;
  await new Promise((resolve) => server.close(resolve));
  const refused = await HoldpointClient.connect({ dataDir: endpointDir(port) }).then(() => undefined, (e) => e);
  assert.ok(refused instanceof NoConsoleError, String(refused));
  assert.equal(failsOpen(refused), true);
});
