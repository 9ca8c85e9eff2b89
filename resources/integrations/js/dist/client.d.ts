import { type Endpoint } from './endpoint.js';
export type JsonObject = {
    [key: string]: unknown;
};
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
/** One agent connection to the console. */
export declare class HoldpointClient {
    readonly options: ClientOptions;
    /** The session, once welcomed (or as given). */
    sessionId?: string;
    private ws?;
    private connecting?;
    private closed;
    private lost?;
    private maxMessageBytes?;
    private keepalive?;
    private heardAt;
    private readonly decisions;
    private readonly results;
    private readonly prefix;
    private nextId;
    constructor(options?: ClientOptions);
    /** Creates a client and connects it. */
    static connect(options?: ClientOptions): Promise<HoldpointClient>;
    /** true while a connection is open and welcomed. */
    get connected(): boolean;
    /**
     * Connects and says hello. Calls connect on their own when needed, so this
     * is only to fail early. After a lost connection it connects again, in the
     * same session.
     */
    connect(): Promise<void>;
    private open;
    private attach;
    /** A fresh call id, unique to this client. */
    newCallId(): string;
    /**
     * Sends a tool call and resolves with the console's decision (allow,
     * modify, deny or halt). Rejects, never resolves as allowed, when the
     * console cannot be reached, the connection drops, or the answer is bad.
     */
    submit(toolName: string, args: JsonObject, options?: SubmitOptions): Promise<Decision>;
    /** Gives up on a waiting call; its submit resolves with the console's `deny` (code `cancelled`). */
    cancel(callId: string): Promise<void>;
    /** Reports what the tool returned; resolves with the after-call verdict (allow, warn or halt). */
    toolResult(callId: string, ok: boolean, result?: unknown): Promise<AfterCall>;
    /** Starts a turn; calls without a turnId belong to it. Returns the turn id. */
    turnStart(turnId?: string): Promise<string>;
    /** Ends a turn (resets loop detection for it). */
    turnEnd(turnId: string): Promise<void>;
    /** Closes the connection; waiting calls reject with ClientClosedError. */
    close(): Promise<void>;
    private send;
    private sendText;
    private wait;
    private drop;
    private onMessage;
    private onClose;
    private failAll;
}
