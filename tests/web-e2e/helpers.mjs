// SPDX-License-Identifier: Apache-2.0
// What the reviewer page's browser tests share: a real headless console with
// the page on (`holdpoint --headless --web`), holdpoint-ctl, Debian's
// Chromium driven by puppeteer-core at a phone's viewport, plain HTTP
// requests to the page's API from node, and a real agent (the holdpoint npm
// package) that acts on what it is told.
//
// HOLDPOINT_BIN and HOLDPOINT_CTL_BIN point at the built binaries (CTest sets
// them; see tests/CMakeLists.txt); without them the release build's are used.
// HOLDPOINT_CHROMIUM overrides /usr/bin/chromium.

import assert from 'node:assert/strict';
import { spawn, execFile } from 'node:child_process';
import { mkdtempSync, mkdirSync, writeFileSync, readFileSync, existsSync, realpathSync, rmSync } from 'node:fs';
import { createServer, connect as netConnect } from 'node:net';
import { request as httpRequest } from 'node:http';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { dirname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import puppeteer from 'puppeteer-core';
import { HoldpointClient } from 'holdpoint';
import { waitFor, within, DeadlineError } from '../common/console.mjs';

export { waitFor, within, DeadlineError };

const run = promisify(execFile);
const HERE = dirname(fileURLToPath(import.meta.url));
export const SOURCE_DIR = resolve(HERE, '../..');
export const HOLDPOINT = process.env.HOLDPOINT_BIN || join(SOURCE_DIR, 'build/release/app/holdpoint');
export const CTL = process.env.HOLDPOINT_CTL_BIN || join(SOURCE_DIR, 'build/release/app/holdpoint-ctl');
export const CHROMIUM = process.env.HOLDPOINT_CHROMIUM || '/usr/bin/chromium';
for (const [what, path] of [['holdpoint', HOLDPOINT], ['holdpoint-ctl', CTL], ['Chromium', CHROMIUM]]) {
  assert.ok(existsSync(path), `${what} is not at ${path} (build it, or set HOLDPOINT_BIN / HOLDPOINT_CTL_BIN / HOLDPOINT_CHROMIUM)`);
}

/** Who decides at every console here: decided_by is "human:alice". */
export const REVIEWER = 'alice';
/** Every call waits for a person. */
export const ASK_ALL = { default: 'ask' };

const CTL_TIMEOUT_MS = 15000;
const START_TIMEOUT_MS = 15000;

// ---- the console -------------------------------------------------------------

/** A free TCP port on 127.0.0.1 (bound to port 0, then closed). */
export async function freePort() {
  const server = createServer();
  await new Promise((res, rej) => server.once('error', rej).listen(0, '127.0.0.1', res));
  const { port } = server.address();
  await new Promise((res) => server.close(res));
  return port;
}

/**
 * `holdpoint --headless --web 127.0.0.1:PORT` in a data directory of its own
 * (mode 0700), deciding as REVIEWER. The agent's files go to `filesDir`.
 */
export class WebConsole {
  constructor({ policy = ASK_ALL, webPort = 0, args = [] } = {}) {
    this.work = realpathSync(mkdtempSync(join(tmpdir(), 'holdpoint-web-'))); // 0700
    this.dataDir = join(this.work, 'data');
    this.filesDir = join(this.work, 'files');
    mkdirSync(this.dataDir, { mode: 0o700 });
    mkdirSync(this.filesDir);
    this.policyPath = join(this.work, 'policy.json');
    writeFileSync(this.policyPath, JSON.stringify(policy));
    this.webPort = webPort;
    this.args = args;
    this.log = '';
    this.process = null;
  }

  /**
   * Starts the console; resolves once it printed both its agent endpoint and
   * the page's origin (`holdpoint: reviewer page at http://127.0.0.1:NNNNN`),
   * and fails at once if it exits first. Called again after kill(), it
   * restarts on the same data directory (and the same --web port, when one
   * was given).
   */
  async start() {
    const args = ['--headless', '--data-dir', this.dataDir, '--port', '0', '--web', `127.0.0.1:${this.webPort}`,
      '--policy', this.policyPath, '--reviewer', REVIEWER, ...this.args];
    const child = spawn(HOLDPOINT, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    this.process = child;
    this.exited = new Promise((res) => {
      child.once('exit', res);
      child.once('error', res); // never started: nothing to wait for
    });
    let text = '';
    child.stderr.setEncoding('utf8');
    const ready = new Promise((res, rej) => {
      child.stderr.on('data', (chunk) => {
        text += chunk;
        this.log += chunk;
        const page = /holdpoint: reviewer page at (http:\/\/127\.0\.0\.1:\d+)/.exec(text);
        const agents = /listening on (ws:\/\/127\.0\.0\.1:\d+\/)/.exec(text);
        if (page && agents) res({ origin: page[1], agentUrl: agents[1] });
      });
      child.once('exit', (code, signal) => rej(new Error(`the console exited (${code ?? signal}) before it was ready:\n${text}`)));
      child.once('error', (error) => rej(new Error(`cannot start ${HOLDPOINT}: ${error.message}`)));
    });
    const { origin, agentUrl } = await within('the console to start', ready, START_TIMEOUT_MS);
    this.origin = origin;
    this.webPort = Number(new URL(origin).port);
    // endpoint.json names this run's agent port (not a killed run's).
    await waitFor('endpoint.json of this run', () => {
      try {
        return JSON.parse(readFileSync(join(this.dataDir, 'endpoint.json'), 'utf8')).url === agentUrl;
      } catch {
        return false;
      }
    });
    return this;
  }

  get running() {
    const p = this.process;
    return p !== null && p.pid !== undefined && p.exitCode === null && p.signalCode === null;
  }

  async kill(signal = 'SIGKILL') {
    if (!this.running) return;
    this.process.kill(signal);
    await within(`the console to exit on ${signal}`, this.exited);
  }

  /** Stops the console and removes its files. */
  async dispose() {
    await this.kill('SIGTERM').catch(() => this.kill('SIGKILL'));
    rmSync(this.work, { recursive: true, force: true });
  }

  async ctl(...args) {
    const { stdout } = await run(CTL, ['--data-dir', this.dataDir, ...args], { timeout: CTL_TIMEOUT_MS });
    return stdout;
  }

  async pending() {
    return JSON.parse(await this.ctl('pending', '--json'));
  }

  /** Waits until a call matching `predicate` waits for a person; returns its queue item. */
  pendingItem(predicate, what = 'a pending call') {
    return waitFor(what, async () => (await this.pending()).find(predicate));
  }

  /** A pairing link for REVIEWER: the last line `holdpoint-ctl web pair --no-qr` prints. */
  async pairLink() {
    const lines = (await this.ctl('web', 'pair', '--no-qr')).trim().split('\n');
    const link = lines.at(-1).trim();
    assert.match(link, new RegExp(`^${this.origin.replace(/\./g, '\\.')}/pair#[A-Za-z0-9_-]+$`));
    return link;
  }

  /** The audit records of one call (`holdpoint-ctl audit query --json`, one a line), oldest first. */
  async auditOf(callId) {
    const lines = (await this.ctl('audit', 'query', '--json', '--limit', '100000')).split('\n').filter(Boolean);
    return lines.map((line) => JSON.parse(line)).filter((r) => r.call_id === callId).reverse();
  }

  /** `holdpoint-ctl audit verify` exits 0. */
  async auditVerify() {
    return this.ctl('audit', 'verify');
  }
}

// ---- the page's API from node ------------------------------------------------------

/**
 * A session made the way the page makes one: pair with a fresh link, keep
 * the cookie and the device key, read the CSRF token from /api/me.
 */
export async function apiSession(hp) {
  const code = new URL(await hp.pairLink()).hash.slice(1);
  const paired = await api(hp, 'POST', '/api/pair', { body: { code } });
  assert.equal(paired.status, 200, JSON.stringify(paired.body));
  const setCookie = paired.headers.get('set-cookie');
  const cookie = /^(__Host-holdpoint=[^;]+)/.exec(setCookie)?.[1];
  assert.ok(cookie, `no session cookie in ${setCookie}`);
  const { device } = paired.body;
  assert.match(device, /^[0-9a-f]{64}$/, 'no device key in the pairing answer');
  const me = await api(hp, 'GET', '/api/me', { cookie, device });
  assert.equal(me.status, 200, JSON.stringify(me.body));
  assert.equal(me.body.reviewer, REVIEWER);
  return { cookie, device, csrf: me.body.csrf };
}

/** The device key a paired page keeps in its origin's storage (WEB.md "Who gets in"). */
export const DEVICE_KEY_HEADER = 'X-Holdpoint-Device';
export const pageDeviceKey = (page) => page.evaluate(() => localStorage.getItem('holdpoint-device'));

/**
 * One request to the page's API. POSTs carry the page's own Origin unless
 * `origin` says otherwise (null: none); `device` is the session's device
 * key. Resolves with the status, headers and parsed body.
 */
export async function api(hp, method, path, { body, raw, cookie, device, csrf, origin = hp.origin, headers = {} } = {}) {
  const h = { Accept: 'application/json', ...headers };
  if (cookie) h.Cookie = cookie;
  if (device) h[DEVICE_KEY_HEADER] = device;
  if (csrf) h['X-CSRF-Token'] = csrf;
  if (method !== 'GET') {
    h['Content-Type'] = 'application/json';
    if (origin) h.Origin = origin;
  }
  const response = await fetch(`${hp.origin}${path}`, {
    method, headers: h, body: method === 'GET' ? undefined : (raw ?? JSON.stringify(body ?? {})),
  });
  const text = await response.text();
  let parsed;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = text;
  }
  return { status: response.status, headers: response.headers, body: parsed };
}

/**
 * A WebSocket upgrade of /api/live sent by hand; resolves with the status
 * the server answered (101 when it upgraded; the socket is then closed).
 */
export function rawUpgrade(hp, { origin, cookie }) {
  return within('the answer to a WebSocket upgrade', new Promise((res, rej) => {
    const headers = {
      Connection: 'Upgrade', Upgrade: 'websocket', 'Sec-WebSocket-Version': '13',
      'Sec-WebSocket-Key': randomBytes(16).toString('base64'),
    };
    if (origin) headers.Origin = origin;
    if (cookie) headers.Cookie = cookie;
    const req = httpRequest(`${hp.origin}/api/live`, { headers, agent: false });
    req.on('upgrade', (response, socket) => {
      socket.destroy();
      res({ status: response.statusCode });
    });
    req.on('response', (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (c) => { text += c; });
      response.on('end', () => res({ status: response.statusCode, body: text }));
    });
    req.on('error', rej);
    req.end();
  }));
}

/**
 * A POST sent over a raw socket, for a body a fetch might not finish
 * sending once the server answers early. Resolves with the status and
 * parsed body as soon as the answer is complete.
 */
export function rawPost(hp, path, { headers, body }) {
  return within(`the answer to POST ${path}`, new Promise((res, rej) => {
    const { hostname, port } = new URL(hp.origin);
    const socket = netConnect(Number(port), hostname);
    let received = Buffer.alloc(0);
    const answer = () => {
      const end = received.indexOf('\r\n\r\n');
      if (end < 0) return null;
      const head = received.subarray(0, end).toString('latin1');
      const status = /^HTTP\/1\.[01] (\d{3})/.exec(head);
      const length = /\r\ncontent-length: *(\d+)/i.exec(head);
      const rest = received.subarray(end + 4);
      if (!status || !length || rest.length < Number(length[1])) return null;
      const text = rest.subarray(0, Number(length[1])).toString('utf8');
      let parsed;
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = text;
      }
      return { status: Number(status[1]), body: parsed };
    };
    socket.on('data', (chunk) => {
      received = Buffer.concat([received, chunk]);
      const done = answer();
      if (done) {
        socket.destroy();
        res(done);
      }
    });
    // The server may close (or reset) once it has answered, before all of
    // the body was sent: only a close without an answer is a failure.
    socket.on('error', () => {});
    socket.on('close', () => rej(new Error(`no complete HTTP answer: ${JSON.stringify(received.toString('latin1').slice(0, 300))}`)));
    const head = [`POST ${path} HTTP/1.1`, `Host: ${hostname}:${port}`, 'Connection: close',
      `Content-Length: ${Buffer.byteLength(body)}`, ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`)];
    socket.write(`${head.join('\r\n')}\r\n\r\n`);
    socket.end(body);
  }));
}

// ---- the agent -------------------------------------------------------------------

/**
 * A real agent: the holdpoint package's client. Its one tool, write_file,
 * runs only when the console allows it, with the arguments the console
 * gives back (edited ones included), inside the console's filesDir. Every
 * decision message that reaches it is counted per call.
 */
export class Agent {
  constructor(hp, name) {
    this.hp = hp;
    this.client = new HoldpointClient({ dataDir: hp.dataDir, agentName: name, framework: 'web-e2e' });
    this.received = []; // every `decision` message, on any connection
    this.watched = new WeakSet();
  }

  static async connect(hp, name = 'coder') {
    const agent = new Agent(hp, name);
    await within('the agent to connect', agent.connect());
    return agent;
  }

  /** Connects (again) and counts what the new connection receives. */
  async connect() {
    await this.client.connect();
    // The client keeps its socket to itself; a listener beside its own only
    // counts the decisions that reached this process.
    const ws = this.client.ws;
    if (ws && !this.watched.has(ws)) {
      this.watched.add(ws);
      ws.on('message', (data) => {
        try {
          const message = JSON.parse(data.toString());
          if (message.type === 'decision') this.received.push(message);
        } catch { /* not JSON: the client reports it */ }
      });
    }
  }

  /** The decision messages this agent received for `callId`. */
  decisionsFor(callId) {
    return this.received.filter((m) => m.call_id === callId);
  }

  /**
   * Submits write_file(args) and waits for the decision; writes the file
   * when allowed. Resolves with the decision and the path written (or null).
   */
  async writeFile(args, options = {}) {
    await this.connect();
    const decision = await this.client.submit('write_file', args, options);
    if (!decision.allowed) return { decision, wrote: null };
    const path = resolve(this.hp.filesDir, String(decision.args.path));
    assert.ok(path.startsWith(this.hp.filesDir + sep), `the agent would write outside its directory: ${path}`);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, String(decision.args.content ?? ''));
    return { decision, wrote: path };
  }

  /** The file `relative` in filesDir: its text, or null when it is not there. */
  file(relative) {
    const path = join(this.hp.filesDir, relative);
    return existsSync(path) ? readFileSync(path, 'utf8') : null;
  }

  async close() {
    await this.client.close();
  }
}

// ---- the browser ------------------------------------------------------------------

// Needed on this machine: without the background-networking flags Chromium's
// own connections get refused in bursts.
const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/** A phone: 390×844 CSS pixels at 3×, touch. */
export const PHONE_VIEWPORT = { width: 390, height: 844, deviceScaleFactor: 3, isMobile: true, hasTouch: true };

/** One headless Chromium per test file, with a fresh profile removed on close. */
export async function launchBrowser() {
  const profile = mkdtempSync(join(tmpdir(), 'holdpoint-chromium-'));
  const browser = await puppeteer.launch({
    executablePath: CHROMIUM,
    headless: true, // --headless=new
    userDataDir: profile,
    args: CHROMIUM_ARGS,
    protocolTimeout: 30000,
  });
  const version = (await browser.version()).replace(/^.*\//, '');
  const userAgent = `Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/${version} Mobile Safari/537.36`;
  const close = browser.close.bind(browser);
  browser.close = async () => {
    await close().catch(() => browser.process()?.kill('SIGKILL'));
    rmSync(profile, { recursive: true, force: true });
  };
  browser.phoneUserAgent = userAgent;
  return browser;
}

/**
 * A device: a browser context of its own (its own cookies) with one page at
 * the phone's viewport. `page.errors` collects the page's uncaught errors
 * and console errors.
 */
export async function newDevice(browser) {
  const context = await browser.createBrowserContext();
  const page = await context.newPage();
  await page.emulate({ userAgent: browser.phoneUserAgent, viewport: PHONE_VIEWPORT });
  page.setDefaultTimeout(10000);
  page.errors = [];
  page.on('pageerror', (e) => page.errors.push(String(e)));
  page.on('console', (m) => {
    if (m.type() === 'error') page.errors.push(m.text());
  });
  return { context, page };
}

/**
 * page.waitForFunction / waitForSelector with `what` in the error when it
 * times out (puppeteer's own says only how long it waited).
 */
export async function until(what, waiting) {
  try {
    return await waiting;
  } catch (error) {
    if (error?.name === 'TimeoutError') error.message = `waiting for ${what}: ${error.message}`;
    throw error;
  }
}

/**
 * Waits until `selector` stands still (the page scrolls its panels into
 * view smoothly) with its centre on screen and uncovered (the action bar is
 * sticky); returns that centre. With `scroll`, an element that stopped
 * moving off screen or under something is scrolled to the middle of the
 * screen, as a person would scroll to it; without, the page must bring it
 * into view itself. With `enabled`, it must not be disabled either.
 */
export async function settled(page, selector, { scroll = false, enabled = false } = {}) {
  const handle = await until(`${selector} to stand still in view`, page.waitForFunction((sel, opts) => {
    const el = document.querySelector(sel);
    if (!el || (opts.enabled && el.disabled) || el.closest('[hidden]')) return false;
    const r = el.getBoundingClientRect();
    if (!r.width || !r.height) return false;
    const x = r.left + r.width / 2;
    const y = r.top + r.height / 2;
    const seen = (window.__settledSeen ??= new Map());
    const still = seen.get(sel) === `${x},${y}`;
    seen.set(sel, `${x},${y}`);
    if (!still) return false;
    const hit = document.elementFromPoint(x, y);
    if (hit && (hit === el || el.contains(hit))) {
      seen.delete(sel);
      return { x, y };
    }
    if (opts.scroll) el.scrollIntoView({ block: 'center', behavior: 'instant' });
    return false;
  }, { polling: 50 }, selector, { scroll, enabled }));
  return handle.jsonValue();
}

/** Taps `selector` where a person would: see settled(). */
export async function tap(page, selector) {
  const { x, y } = await settled(page, selector, { scroll: true, enabled: true });
  await page.touchscreen.tap(x, y);
}

/**
 * Taps the button that opens a panel (#deny, #edit, #halt) and waits for
 * the page to bring the panel's field in view and focus it: a person
 * types once the sheet has arrived.
 */
export async function openPanel(page, name) {
  await tap(page, `#${name}`);
  const field = { deny: '#deny-reason', edit: '#edit-args', halt: '#halt-confirm' }[name];
  await until(`#${name}-panel`, page.waitForSelector(`#${name}-panel:not([hidden])`));
  await settled(page, field);
  await until(`${field} to have the focus`,
    page.waitForFunction((sel) => document.activeElement === document.querySelector(sel), {}, field));
}

/** Opens a pairing link on the device; resolves once the queue shows, live. */
export async function pairDevice(page, link) {
  await page.goto(link);
  await until('the queue after pairing', page.waitForSelector('#queue-view:not([hidden])'));
  await until('the live feed', waitForLive(page));
  assert.equal(await text(page, '#whoami'), `Deciding as ${REVIEWER}`);
  assert.equal(new URL(page.url()).hash, '', 'the pairing code stays in the address');
}

/** Waits until the page's live feed is up (its status says Live). */
export function waitForLive(page, timeout = 10000) {
  return page.waitForFunction(() => document.getElementById('status').textContent === 'Live', { timeout });
}

export const text = (page, selector) => page.$eval(selector, (e) => e.textContent.trim());
export const cardSelector = (id) => `.card[data-id="${id}"]`;

/** Waits for the card of queue item `id`. */
export function waitForCard(page, id) {
  return page.waitForSelector(cardSelector(id), { visible: true });
}

/** The queue as `GET /api/items` gives it to this page (with its cookie). */
export function pageItems(page) {
  return page.evaluate(async () => {
    const response = await fetch('/api/items',
      { headers: { Accept: 'application/json', 'X-Holdpoint-Device': localStorage.getItem('holdpoint-device') ?? '' } });
    return { status: response.status, body: await response.json() };
  });
}

/**
 * Taps the card of `id` and waits for its detail; returns the item as the
 * API has it (with its `version`). The page ignores a review tapped within
 * 600 ms of the detail opening (SETTLE_MS in app.js, against the second tap
 * of a double tap landing on Approve); this waits that out, as a person's
 * next tap would, by the page's own clock.
 */
export async function openCard(page, id) {
  await until(`the card of ${id}`, waitForCard(page, id));
  await tap(page, cardSelector(id));
  await until(`the detail of ${id}`, page.waitForFunction((want) => state.openId === want // eslint-disable-line no-undef
    && !document.getElementById('detail').hidden, {}, id));
  await until('the detail to settle', settle(page));
  const { status, body } = await pageItems(page);
  assert.equal(status, 200);
  const item = body.items.find((i) => i.id === id);
  assert.ok(item, `${id} is not in GET /api/items`);
  assert.match(item.version, /^[0-9a-f]+$/);
  return item;
}

/** Waits until a review tapped now counts (see openCard). */
export function settle(page) {
  return page.waitForFunction(() => performance.now() - state.openedAt >= 650); // eslint-disable-line no-undef
}

/**
 * Taps `selector` and resolves with the review POST it sends: its status and
 * JSON body, and the request's body parsed and as sent (`raw`).
 */
export async function tapReview(page, selector) {
  const [response] = await Promise.all([
    until(`the review POST after tapping ${selector}`,
      page.waitForResponse((r) => r.request().method() === 'POST' && /\/api\/items\/[^/]+\/review$/.test(r.url()))),
    tap(page, selector),
  ]);
  const raw = response.request().postData();
  return { status: response.status(), body: await response.json(), request: JSON.parse(raw), raw };
}

/** Waits for the banner and returns its text. */
export async function bannerText(page) {
  await until('the banner', page.waitForSelector('#banner:not([hidden])'));
  return text(page, '#banner-text');
}

/** Waits for the toast and returns its text. */
export async function toastText(page) {
  await until('the toast', page.waitForSelector('#toast:not([hidden])'));
  return text(page, '#toast');
}

/**
 * Runs `fn(ctx)` with a fresh console, a device paired with it and an agent
 * connected to it; stops them all whatever happens.
 */
export async function withSetup(browser, options, fn) {
  const hp = new WebConsole(options);
  const closers = [];
  try {
    await hp.start();
    const ctx = { hp, devices: [], agents: [] };
    ctx.device = async () => {
      const device = await newDevice(browser);
      closers.push(() => device.context.close());
      await pairDevice(device.page, await hp.pairLink());
      ctx.devices.push(device);
      return device;
    };
    ctx.agent = async (name) => {
      const agent = await Agent.connect(hp, name);
      closers.push(() => agent.close());
      ctx.agents.push(agent);
      return agent;
    };
    ctx.closeLater = (closer) => closers.push(closer);
    return await fn(ctx);
  } catch (error) {
    if (hp.log) error.message += `\n--- console stderr ---\n${hp.log}`;
    throw error;
  } finally {
    for (const close of closers.reverse()) await close().catch(() => {});
    await hp.dispose();
  }
}

// ---- team mode --------------------------------------------------------------------

/**
 * A gateway: `holdpoint --headless --team URL` without the page, in a data
 * directory of its own, its agents' files in `filesDir` (an Agent connects
 * to it as to a WebConsole). Nobody reviews here: its calls go to the team
 * database.
 */
export class TeamGateway extends WebConsole {
  constructor({ team, policy = ASK_ALL, args = [] }) {
    super({ policy, args });
    this.team = team;
  }

  /** Starts it; resolves once this run has written its endpoint.json, fails at once if it exits first. */
  async start() {
    const args = ['--headless', '--data-dir', this.dataDir, '--port', '0', '--team', this.team,
      '--policy', this.policyPath, ...this.args];
    const child = spawn(HOLDPOINT, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    this.process = child;
    this.exited = new Promise((res) => {
      child.once('exit', res);
      child.once('error', res);
    });
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk) => { this.log += chunk; });
    let failed = null;
    child.once('error', (error) => { failed = `cannot start ${HOLDPOINT}: ${error.message}`; });
    await waitFor('the gateway to start', () => {
      if (failed) throw new Error(failed);
      if (child.exitCode !== null || child.signalCode !== null) {
        throw new Error(`the gateway exited (${child.exitCode ?? child.signalCode}) before it was ready:\n${this.log}`);
      }
      try {
        return JSON.parse(readFileSync(join(this.dataDir, 'endpoint.json'), 'utf8')).pid === child.pid;
      } catch {
        return false;
      }
    }, START_TIMEOUT_MS);
    return this;
  }
}

/** `holdpoint-ctl --team URL ARGS...`; resolves with stdout, rejects with its stderr in the message. */
export async function teamCtl(url, ...args) {
  try {
    const { stdout } = await run(CTL, ['--team', url, ...args], { timeout: CTL_TIMEOUT_MS });
    return stdout;
  } catch (error) {
    error.message += `\n${error.stderr ?? ''}${error.stdout ?? ''}`;
    throw error;
  }
}
