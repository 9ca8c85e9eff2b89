// SPDX-License-Identifier: Apache-2.0
// Errors the client raises. Every one is a HoldpointError with a `code`, so
// callers can tell "the console said no" from "there is no console".
/** Base class: `code` is a protocol error code (PROTOCOL.md, "Errors") or one of the client's own. */
export class HoldpointError extends Error {
    code;
    constructor(code, message, options) {
        super(message, options);
        this.name = 'HoldpointError';
        this.code = code;
    }
}
/** No console could be found or reached: no or bad endpoint.json, nothing listening, handshake failed. */
export class ConsoleUnavailableError extends HoldpointError {
    constructor(message, options) {
        super('console_unavailable', message, options);
        this.name = 'ConsoleUnavailableError';
    }
}
/**
 * No console can be reached at all: no endpoint.json, or nothing listens on
 * its port. The one failure that fail-open may let a call through for
 * (failsOpen()).
 */
export class NoConsoleError extends ConsoleUnavailableError {
    constructor(message, options) {
        super(message, options);
        this.name = 'NoConsoleError';
    }
}
/**
 * The fail-open rule (PROTOCOL.md, "When the console cannot be asked"),
 * named once for TypeScript: a call may run without a decision only when no
 * console could be reached for it at all. A refusal of any kind, a listener
 * that is not a console, silence, and a connection lost after the call was
 * sent all deny. The adapters in this package always fail closed; code
 * that offers a fail-open mode on top of the client asks this.
 */
export function failsOpen(error) {
    return error instanceof NoConsoleError;
}
/** The connection ended while something waited on it (the console quit or was killed). */
export class ConnectionLostError extends HoldpointError {
    /** WebSocket close code (1006: dropped without a close frame). */
    closeCode;
    constructor(message, closeCode) {
        super('connection_lost', message);
        this.name = 'ConnectionLostError';
        this.closeCode = closeCode;
    }
}
/**
 * The console answered with an `error` message: `code` is its protocol code,
 * e.g. `auth_failed` (wrong token), `call_id_conflict`, `invalid_field`.
 */
export class ConsoleRefusedError extends HoldpointError {
    callId;
    constructor(code, message, callId) {
        super(code, `the console refused: ${code}: ${message}`);
        this.name = 'ConsoleRefusedError';
        this.callId = callId;
    }
}
/** A message from the console that breaks the protocol (e.g. a decision without a valid `decision`). */
export class ProtocolViolationError extends HoldpointError {
    constructor(message) {
        super('protocol_violation', message);
        this.name = 'ProtocolViolationError';
    }
}
/** The client was closed with close(); it takes no more calls. */
export class ClientClosedError extends HoldpointError {
    constructor() {
        super('closed', 'this Holdpoint client was closed');
        this.name = 'ClientClosedError';
    }
}
