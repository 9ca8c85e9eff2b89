/** Base class: `code` is a protocol error code (PROTOCOL.md, "Errors") or one of the client's own. */
export declare class HoldpointError extends Error {
    readonly code: string;
    constructor(code: string, message: string, options?: {
        cause?: unknown;
    });
}
/** No console could be found or reached: no or bad endpoint.json, nothing listening, handshake failed. */
export declare class ConsoleUnavailableError extends HoldpointError {
    constructor(message: string, options?: {
        cause?: unknown;
    });
}
/**
 * No console can be reached at all: no endpoint.json, or nothing listens on
 * its port. The one failure that fail-open may let a call through for
 * (failsOpen()).
 */
export declare class NoConsoleError extends ConsoleUnavailableError {
    constructor(message: string, options?: {
        cause?: unknown;
    });
}
/**
 * The fail-open rule (PROTOCOL.md, "When the console cannot be asked"),
 * named once for TypeScript: a call may run without a decision only when no
 * console could be reached for it at all. A refusal of any kind, a listener
 * that is not a console, silence, and a connection lost after the call was
 * sent all deny. The adapters in this package always fail closed; code
 * that offers a fail-open mode on top of the client asks this.
 */
export declare function failsOpen(error: unknown): boolean;
/** The connection ended while something waited on it (the console quit or was killed). */
export declare class ConnectionLostError extends HoldpointError {
    /** WebSocket close code (1006: dropped without a close frame). */
    readonly closeCode: number;
    constructor(message: string, closeCode: number);
}
/**
 * The console answered with an `error` message: `code` is its protocol code,
 * e.g. `auth_failed` (wrong token), `call_id_conflict`, `invalid_field`.
 */
export declare class ConsoleRefusedError extends HoldpointError {
    readonly callId?: string;
    constructor(code: string, message: string, callId?: string);
}
/** A message from the console that breaks the protocol (e.g. a decision without a valid `decision`). */
export declare class ProtocolViolationError extends HoldpointError {
    constructor(message: string);
}
/** The client was closed with close(); it takes no more calls. */
export declare class ClientClosedError extends HoldpointError {
    constructor();
}
