// SPDX-License-Identifier: Apache-2.0
// A client for the Holdpoint console's protocol v1 (core/protocol/PROTOCOL.md).
//
// One WebSocket per client; several calls may wait at once. A call never
// resolves as allowed unless the console said allow or modify: an unreachable
// console, a dropped connection or a malformed answer rejects it.

import { randomBytes } from 'node:crypto';
import { userInfo } from 'node:os';
import WebSocket from 'ws';
import { findEndpoint, type Endpoint } from './endpoint.js';
import {
  ClientClosedError,
  ConnectionLostError,
  ConsoleRefusedError,
  ConsoleUnavailableError,
  HoldpointError,
  NoConsoleError,
  ProtocolViolationError,
} from './errors.js';

export type JsonObject = { [key: string]: unknown };

/** What a client can act on; an absent key means supported (PROTOCOL.md, hello). */
export interface Capabilities {
  /** false: this client cannot run a call with edited arguments. */
  modify?: boolean;
  /** false: this client cannot abort its whole turn on `halt` (it denies the call instead). */
  halt?: boolean;
}

export interface ClientOptions {
  /** agent.name in hello (default "js-agent"). */
  agentName?: string;
  /** agent.framework in hello. */
  framework?: string;
  /** Where endpoint.json is; see resolveDataDir(). */
  dataDir?: string;
  /** Use this endpoint instead of reading endpoint.json. */
  endpoint?: Endpoint;
  /** Resume or name a session; absent, the console assigns one. */
  sessionId?: string;
  /** Sent in hello when given. */
  capabilities?: Capabilities;
  /** Connecting plus hello must finish within this (default 10000 ms). */
  connectTimeoutMs?: number;
  /**
   * A console silent this long (no message, no pong to the client's pings)
   * is dropped, and every call waiting on it rejects (default 10000 ms, or
   * HOLDPOINT_SILENCE_MS).
   */
  silenceMs?: number;
}

const DEFAULT_SILENCE_MS = 10000;

function silenceBoundMs(option?: number): number {
  if (option !== undefined && option > 0) return option;
  const env = Number(process.env.HOLDPOINT_SILENCE_MS ?? '');
  return Number.isInteger(env) && env >= 100 && env <= 3600000 ? env : DEFAULT_SILENCE_MS;
}

export interface Warning {
  guardrail: string;
  code: string;
  message: string;
}

export type DecisionKind = 'allow' | 'modify' | 'deny' | 'halt';

/** The console's decision on one call. */
export interface Decision {
  callId: string;
  decision: DecisionKind;
  /** true for allow and modify: run the tool with `args`. */
  allowed: boolean;
  /** What to run with; present for allow and modify only. */
  args?: JsonObject;
  reason: string;
  /** `human:<user>`, `guardrail:<name>`, `policy:default`, `timeout`, `agent`, `audit`. */
  decidedBy: string;
  /** Machine-readable cause when there is one (`timeout`, `cancelled`, `protected_path`, ...). */
  code?: string;
  warnings: Warning[];
  /** The queue item id, when the call waited for a person. */
  pendingId?: string;
  /** The decision message as received. */
  raw: JsonObject;
}

export interface Pending {
  callId: string;
  /** Console-wide queue item id (what `holdpoint-ctl approve|deny|edit` take). */
  id: string;
  reason: string;
}

export interface SubmitOptions {
  callId?: string;
  turnId?: string;
  /** Shown to the reviewer as sent. */
  context?: JsonObject;
  /** MCP tool annotations (readOnlyHint, destructiveHint, idempotentHint, openWorldHint). */
  annotations?: JsonObject;
  /** May shorten the console's timeout, never lengthen it. */
  timeoutS?: number;
  /** Aborting sends `cancel` and rejects the submit with the signal's reason. */
  signal?: AbortSignal;
  /** Called when the call waits for a person. */
  onPending?: (pending: Pending) => void;
}

export interface AfterCall {
  callId: string;
  action: 'allow' | 'warn' | 'halt';
  reason: string;
  warnings: Warning[];
  raw: JsonObject;
}

interface Waiter {
  resolve: (message: JsonObject) => void;
  reject: (error: Error) => void;
  onPending?: (pending: Pending) => void;
  pendingId?: string;
}

const DECISIONS = new Set(['allow', 'modify', 'deny', 'halt']);
const AFTER_ACTIONS = new Set(['allow', 'warn', 'halt']);
// Errors about a tool_result; the rest that name a call are about its tool_call.
const RESULT_ERRORS = new Set(['call_pending', 'unknown_call']);
const MAX_DEPTH = 64;

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function depth(value: unknown): number {
  if (typeof value !== 'object' || value === null) return 0;
  let deepest = 0;
  for (const child of Object.values(value)) deepest = Math.max(deepest, depth(child));
  return deepest + 1;
}

/** The OS user this process runs as (hello's agent.user). */
function osUser(): string {
  try {
    return userInfo().username;
  } catch {
    return process.env.USER ?? `uid${process.getuid?.() ?? ''}`;
  }
}

/** One agent connection to the console. */
export class HoldpointClient {
  readonly options: ClientOptions;
  /** The session, once welcomed (or as given). */
  sessionId?: string;
  private ws?: WebSocket;
  private connecting?: Promise<void>;
  private closed = false;
  private lost?: ConnectionLostError;
  private maxMessageBytes?: number;
  private keepalive?: NodeJS.Timeout;
  private heardAt = 0;
  private readonly decisions = new Map<string, Waiter[]>();
  private readonly results = new Map<string, Waiter[]>();
  private readonly prefix = randomBytes(4).toString('hex');
  private nextId = 1;

  constructor(options: ClientOptions = {}) {
    this.options = options;
    this.sessionId = options.sessionId;
  }

  /** Creates a client and connects it. */
  static async connect(options: ClientOptions = {}): Promise<HoldpointClient> {
    const client = new HoldpointClient(options);
    await client.connect();
    return client;
  }

  /** true while a connection is open and welcomed. */
  get connected(): boolean {
    return this.ws !== undefined && this.ws.readyState === WebSocket.OPEN && this.lost === undefined;
  }

  /**
   * Connects and says hello. Calls connect on their own when needed, so this
   * is only to fail early. After a lost connection it connects again, in the
   * same session.
   */
  async connect(): Promise<void> {
    if (this.closed) throw new ClientClosedError();
    if (this.connected) return;
    this.connecting ??= this.open().finally(() => {
      this.connecting = undefined;
    });
    return this.connecting;
  }

  private async open(): Promise<void> {
    const endpoint = this.options.endpoint ?? findEndpoint(this.options.dataDir);
    const timeoutMs = this.options.connectTimeoutMs ?? 10000;
    const ws = new WebSocket(endpoint.url, { handshakeTimeout: timeoutMs, maxPayload: 64 * 1024 * 1024 });
    try {
      await new Promise<void>((resolve, reject) => {
        let failure: Error | undefined;
        const timer = setTimeout(() => {
          reject(new ConsoleUnavailableError(`the console at ${endpoint.url} did not answer hello within ${timeoutMs} ms`));
        }, timeoutMs);
        ws.on('open', () => {
          // user: who started the agent, for rules that exclude the requester.
          const agent: JsonObject = { name: this.options.agentName ?? 'js-agent', user: osUser() };
          if (this.options.framework) agent.framework = this.options.framework;
          const hello: JsonObject = { type: 'hello', protocol: 1, token: endpoint.agent_token, agent };
          if (this.sessionId) hello.session_id = this.sessionId;
          if (this.options.capabilities) hello.capabilities = { ...this.options.capabilities };
          ws.send(JSON.stringify(hello));
        });
        ws.on('message', (data, isBinary) => {
          const message = isBinary ? undefined : parse(data.toString());
          if (message?.type === 'welcome' && message.protocol === 1 && typeof message.session_id === 'string') {
            clearTimeout(timer);
            this.attach(ws, message.session_id);
            // The console's limit on one message (older consoles do not say).
            this.maxMessageBytes = Number.isSafeInteger(message.max_message_bytes)
              && (message.max_message_bytes as number) > 0 ? message.max_message_bytes as number : undefined;
            resolve();
          } else if (message?.type === 'error') {
            // Refused: at once, whether or not the console closes after it.
            clearTimeout(timer);
            reject(new ConsoleRefusedError(String(message.code ?? ''), String(message.message ?? '')));
          } else {
            // Anything else before the welcome (binary, not JSON, another
            // protocol): not a console this client can speak to.
            clearTimeout(timer);
            reject(new ProtocolViolationError(`the console at ${endpoint.url} broke the protocol: expected a welcome `
              + `for protocol 1, got ${isBinary ? 'a binary frame' : data.toString().slice(0, 200)}`));
          }
        });
        ws.on('error', (error) => {
          failure = error; // 'close' follows
        });
        ws.on('close', (code, reason) => {
          clearTimeout(timer);
          const detail = failure ? failure.message : `closed ${code} ${reason.toString()}`.trim();
          // Nothing listening is "no console"; anything else answered.
          const none = (failure as NodeJS.ErrnoException | undefined)?.code === 'ECONNREFUSED';
          reject(new (none ? NoConsoleError : ConsoleUnavailableError)(
            `cannot connect to the console at ${endpoint.url}: ${detail}`, { cause: failure }));
        });
      });
    } catch (error) {
      ws.removeAllListeners();
      ws.on('error', () => {});
      if (ws.readyState !== WebSocket.CLOSED) ws.terminate();
      throw error;
    }
  }

  // Called synchronously on welcome, so no message after it is missed.
  private attach(ws: WebSocket, sessionId: string): void {
    ws.removeAllListeners();
    this.sessionId = sessionId;
    this.ws = ws;
    this.lost = undefined;
    ws.on('error', () => {}); // 'close' follows and says what happened
    ws.on('message', (data, isBinary) => {
      this.heardAt = Date.now();
      this.onMessage(isBinary ? undefined : parse(data.toString()));
    });
    ws.on('pong', () => {
      this.heardAt = Date.now();
    });
    ws.on('close', (code, reason) => this.onClose(ws, code, reason.toString()));
    // Pings keep a live console talking; one silent for the bound (stopped,
    // hung) is dropped, and every call waiting on it rejects.
    const silenceMs = silenceBoundMs(this.options.silenceMs);
    this.heardAt = Date.now();
    clearInterval(this.keepalive);
    this.keepalive = setInterval(() => {
      if (ws !== this.ws) return;
      if (Date.now() - this.heardAt >= silenceMs) {
        this.lost = new ConnectionLostError(`the console went silent (no answer to pings for ${silenceMs} ms); `
          + 'no decision was received', 1006);
        clearInterval(this.keepalive);
        ws.terminate();
        this.failAll(this.lost);
        return;
      }
      ws.ping();
    }, Math.max(25, Math.floor(silenceMs / 4)));
    this.keepalive.unref();
  }

  /** A fresh call id, unique to this client. */
  newCallId(): string {
    return `js-${this.prefix}-${this.nextId++}`;
  }

  /**
   * Sends a tool call and resolves with the console's decision (allow,
   * modify, deny or halt). Rejects, never resolves as allowed, when the
   * console cannot be reached, the connection drops, or the answer is bad.
   */
  async submit(toolName: string, args: JsonObject, options: SubmitOptions = {}): Promise<Decision> {
    if (typeof toolName !== 'string' || toolName === '') throw new TypeError('toolName: expected a non-empty string');
    if (!isObject(args)) throw new TypeError('args: expected an object');
    if (depth(args) > MAX_DEPTH - 2) {
      throw new HoldpointError('too_deep', `args: nested deeper than the protocol's ${MAX_DEPTH} levels`);
    }
    options.signal?.throwIfAborted();
    const callId = options.callId ?? this.newCallId();
    const message: JsonObject = { type: 'tool_call', call_id: callId, tool_name: toolName, args };
    if (options.turnId) message.turn_id = options.turnId;
    if (options.context) message.context = options.context;
    if (options.annotations) message.annotations = options.annotations;
    if (options.timeoutS !== undefined) message.timeout_s = options.timeoutS;
    await this.connect();
    // Larger than the console takes: refused here, with the sizes, rather
    // than sent and cut off mid-send (close 1009 or a bare 1006). The
    // connection stays up for the calls after it.
    const text = JSON.stringify(message);
    const bytes = Buffer.byteLength(text, 'utf8');
    if (this.maxMessageBytes !== undefined && bytes > this.maxMessageBytes) {
      throw new HoldpointError('too_large', `the call is ${bytes} bytes, more than the console takes `
        + `(${this.maxMessageBytes} bytes, holdpoint --max-message-bytes)`);
    }
    const { promise, waiter } = this.wait(this.decisions, callId);
    waiter.onPending = options.onPending;
    const onAbort = () => {
      this.drop(this.decisions, callId, waiter);
      waiter.reject(options.signal!.reason instanceof Error ? options.signal!.reason
        : new HoldpointError('aborted', 'the call was aborted'));
      this.cancel(callId).catch(() => {});
    };
    options.signal?.addEventListener('abort', onAbort, { once: true });
    try {
      this.sendText(text);
      const raw = await promise;
      return toDecision(raw, callId, waiter.pendingId);
    } finally {
      options.signal?.removeEventListener('abort', onAbort);
    }
  }

  /** Gives up on a waiting call; its submit resolves with the console's `deny` (code `cancelled`). */
  async cancel(callId: string): Promise<void> {
    this.send({ type: 'cancel', call_id: callId });
  }

  /** Reports what the tool returned; resolves with the after-call verdict (allow, warn or halt). */
  async toolResult(callId: string, ok: boolean, result?: unknown): Promise<AfterCall> {
    await this.connect();
    const { promise } = this.wait(this.results, callId);
    const message: JsonObject = { type: 'tool_result', call_id: callId, ok };
    if (result !== undefined) message.result = result;
    this.send(message);
    const raw = await promise;
    if (typeof raw.action !== 'string' || !AFTER_ACTIONS.has(raw.action)) {
      throw new ProtocolViolationError(`after_call for ${callId}: unknown action ${JSON.stringify(raw.action)}`);
    }
    return {
      callId,
      action: raw.action as AfterCall['action'],
      reason: typeof raw.reason === 'string' ? raw.reason : '',
      warnings: Array.isArray(raw.warnings) ? (raw.warnings as Warning[]) : [],
      raw,
    };
  }

  /** Starts a turn; calls without a turnId belong to it. Returns the turn id. */
  async turnStart(turnId?: string): Promise<string> {
    const id = turnId ?? `turn-${this.prefix}-${this.nextId++}`;
    await this.connect();
    this.send({ type: 'turn_start', turn_id: id });
    return id;
  }

  /** Ends a turn (resets loop detection for it). */
  async turnEnd(turnId: string): Promise<void> {
    await this.connect();
    this.send({ type: 'turn_end', turn_id: turnId });
  }

  /** Closes the connection; waiting calls reject with ClientClosedError. */
  async close(): Promise<void> {
    this.closed = true;
    await this.connecting?.catch(() => {});
    this.failAll(new ClientClosedError());
    const ws = this.ws;
    if (!ws || ws.readyState === WebSocket.CLOSED) return;
    const closed = new Promise<void>((resolve) => ws.once('close', () => resolve()));
    ws.close(1000);
    const timer = setTimeout(() => ws.terminate(), 2000);
    await closed;
    clearTimeout(timer);
  }

  private send(message: JsonObject): void {
    this.sendText(JSON.stringify(message));
  }

  private sendText(text: string): void {
    if (this.closed) throw new ClientClosedError();
    if (this.lost) throw this.lost;
    if (!this.ws || this.ws.readyState !== WebSocket.OPEN) {
      throw new ConnectionLostError('not connected to the console', 1006);
    }
    this.ws.send(text);
  }

  private wait(map: Map<string, Waiter[]>, callId: string): { promise: Promise<JsonObject>; waiter: Waiter } {
    let waiter!: Waiter;
    const promise = new Promise<JsonObject>((resolve, reject) => {
      waiter = {
        resolve: (m) => { this.drop(map, callId, waiter); resolve(m); },
        reject: (e) => { this.drop(map, callId, waiter); reject(e); },
      };
    });
    const list = map.get(callId) ?? [];
    list.push(waiter);
    map.set(callId, list);
    return { promise, waiter };
  }

  private drop(map: Map<string, Waiter[]>, callId: string, waiter: Waiter): void {
    const list = map.get(callId);
    if (!list) return;
    const rest = list.filter((w) => w !== waiter);
    if (rest.length) map.set(callId, rest);
    else map.delete(callId);
  }

  private onMessage(message: JsonObject | undefined): void {
    if (!message) {
      this.failAll(new ProtocolViolationError('the console sent a frame that is not a JSON object'));
      return;
    }
    const callId = typeof message.call_id === 'string' ? message.call_id : undefined;
    switch (message.type) {
      case 'decision':
        for (const w of [...(this.decisions.get(callId ?? '') ?? [])]) w.resolve(message);
        break;
      case 'after_call':
        for (const w of [...(this.results.get(callId ?? '') ?? [])]) w.resolve(message);
        break;
      case 'pending':
        for (const w of this.decisions.get(callId ?? '') ?? []) {
          w.pendingId = typeof message.id === 'string' ? message.id : undefined;
          w.onPending?.({ callId: callId!, id: w.pendingId ?? '', reason: String(message.reason ?? '') });
        }
        break;
      case 'error': {
        const code = String(message.code ?? '');
        const error = new ConsoleRefusedError(code, String(message.message ?? ''), callId);
        if (code === 'already_resolved') break; // a cancel came too late; the decision is on its way
        if (callId === undefined) {
          // Not attributable to one call: fail every waiting call rather than let one hang.
          this.failAll(error);
          break;
        }
        const first = RESULT_ERRORS.has(code) ? this.results : this.decisions;
        const second = first === this.results ? this.decisions : this.results;
        const list = first.get(callId) ?? second.get(callId) ?? [];
        for (const w of [...list]) w.reject(error);
        break;
      }
      default:
        break; // fields and types not named in the protocol are ignored
    }
  }

  private onClose(ws: WebSocket, code: number, reason: string): void {
    if (ws !== this.ws) return;
    clearInterval(this.keepalive);
    if (this.lost) return; // went silent: already said
    const detail = reason ? `${code} ${reason}` : `${code}`;
    this.lost = new ConnectionLostError(`the connection to the console was lost (${detail}); no decision was received`, code);
    this.failAll(this.closed ? new ClientClosedError() : this.lost);
  }

  private failAll(error: Error): void {
    for (const map of [this.decisions, this.results]) {
      for (const list of [...map.values()]) for (const w of [...list]) w.reject(error);
      map.clear();
    }
  }
}

function parse(text: string): JsonObject | undefined {
  try {
    const value = JSON.parse(text);
    return isObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

function toDecision(raw: JsonObject, callId: string, pendingId?: string): Decision {
  const kind = raw.decision;
  if (typeof kind !== 'string' || !DECISIONS.has(kind)) {
    throw new ProtocolViolationError(`decision for ${callId}: unknown decision ${JSON.stringify(kind)}`);
  }
  const allowed = kind === 'allow' || kind === 'modify';
  if (allowed && !isObject(raw.args)) {
    throw new ProtocolViolationError(`decision for ${callId}: ${kind} without args`);
  }
  return {
    callId,
    decision: kind as DecisionKind,
    allowed,
    args: allowed ? (raw.args as JsonObject) : undefined,
    reason: typeof raw.reason === 'string' ? raw.reason : '',
    decidedBy: typeof raw.decided_by === 'string' ? raw.decided_by : '',
    code: typeof raw.code === 'string' ? raw.code : undefined,
    warnings: Array.isArray(raw.warnings) ? (raw.warnings as Warning[]) : [],
    pendingId,
    raw,
  };
}
