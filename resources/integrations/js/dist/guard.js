// SPDX-License-Identifier: Apache-2.0
// What every adapter shares: one client per capability set, the halt state
// of a run, and the texts a model sees.
import { HoldpointClient } from './client.js';
import { HoldpointError } from './errors.js';
/** A halt from the console: the whole turn must stop. Thrown where an SDK lets an error end the run. */
export class HoldpointHaltError extends HoldpointError {
    decision;
    constructor(reason, decision) {
        super('halted', `Halted by Holdpoint: ${reason}`);
        this.name = 'HoldpointHaltError';
        this.decision = decision;
    }
    /** The message alone: SDKs that show an error to the model use toString(). */
    toString() {
        return this.message;
    }
}
/** The console denied a call. Thrown by tool wrappers whose SDK reports a tool error to the model. */
export class HoldpointDeniedError extends HoldpointError {
    decision;
    constructor(reason, decision) {
        super('denied', `Denied by Holdpoint: ${reason}`);
        this.name = 'HoldpointDeniedError';
        this.decision = decision;
    }
    /** The message alone: SDKs that show an error to the model use toString(). */
    toString() {
        return this.message;
    }
}
export function deniedText(reason) {
    return `Denied by Holdpoint: ${reason}`;
}
export function haltedText(reason) {
    return `Halted by Holdpoint: ${reason}`;
}
/** Why a call could not be asked about: the console is unreachable, the connection dropped, ... */
export function unavailableText(error) {
    const message = error instanceof Error ? error.message : String(error);
    return `Denied by Holdpoint: no decision could be obtained, so the call did not run (${message})`;
}
/** The text for a `modify` that a path cannot apply. */
export const EDIT_NOT_APPLICABLE = 'the console changed the arguments, and this integration path cannot run edited arguments; the call did not run';
/** A client, the run's halt state and the texts; each adapter builds on one. */
export class Guard {
    client;
    /** Set once the console answered `halt`; the adapters stop the run as far as their SDK allows. */
    halted = false;
    haltReason = '';
    /** The turn calls are sent in, between startTurn() and endTurn(). */
    turnId;
    owned;
    options;
    constructor(options, capabilities, framework) {
        this.options = options;
        this.owned = !options.client;
        this.client = options.client ?? new HoldpointClient({
            ...options,
            agentName: options.agentName ?? framework,
            framework: options.framework ?? framework,
            capabilities: options.capabilities ?? capabilities,
        });
    }
    /** Asks the console; rejects (never allows) when it cannot. */
    ask(toolName, args, extra = {}) {
        const context = this.options.context || extra.context ? { ...this.options.context, ...extra.context } : undefined;
        return this.client.submit(toolName, args, {
            timeoutS: this.options.timeoutS,
            turnId: this.turnId,
            ...extra,
            context,
        });
    }
    /** Records a halt and aborts the controller, if one was given. */
    halt(reason) {
        if (!this.halted) {
            this.halted = true;
            this.haltReason = reason;
        }
        this.options.abortController?.abort(new HoldpointHaltError(reason));
    }
    /**
     * Starts a turn for the next run: clears an earlier halt, and sends the
     * run's calls in one console turn (a halt then halts the turn's other
     * waiting calls too, and loop detection counts per turn).
     */
    async startTurn(turnId) {
        this.resetHalt();
        this.turnId = await this.client.turnStart(turnId);
        return this.turnId;
    }
    /** Ends the turn startTurn() began. */
    async endTurn() {
        const turnId = this.turnId;
        this.turnId = undefined;
        if (turnId !== undefined && this.client.connected)
            await this.client.turnEnd(turnId);
    }
    /** Forgets a halt, so the guard can serve another run. */
    resetHalt() {
        this.halted = false;
        this.haltReason = '';
    }
    /** Closes the client if this guard created it. */
    async close() {
        if (this.owned)
            await this.client.close();
    }
}
export function parseArguments(text) {
    if (text === undefined)
        return undefined;
    try {
        const value = JSON.parse(text);
        return typeof value === 'object' && value !== null && !Array.isArray(value) ? value : undefined;
    }
    catch {
        return undefined;
    }
}
export function isObject(value) {
    return typeof value === 'object' && value !== null && !Array.isArray(value);
}
