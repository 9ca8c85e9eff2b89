import { HoldpointClient, type Capabilities, type ClientOptions, type Decision, type JsonObject, type SubmitOptions } from './client.js';
import { HoldpointError } from './errors.js';
export interface GuardOptions extends ClientOptions {
    /** Use this client instead of creating one; its hello decides the capabilities the console sees. */
    client?: HoldpointClient;
    /** Aborted on `halt`, so a run that takes this controller's signal stops. */
    abortController?: AbortController;
    /** Added to every call's `context` (shown to the reviewer). */
    context?: JsonObject;
    /** Passed as `timeout_s` (may shorten the console's timeout, never lengthen it). */
    timeoutS?: number;
}
/** A halt from the console: the whole turn must stop. Thrown where an SDK lets an error end the run. */
export declare class HoldpointHaltError extends HoldpointError {
    readonly decision?: Decision;
    constructor(reason: string, decision?: Decision);
    /** The message alone: SDKs that show an error to the model use toString(). */
    toString(): string;
}
/** The console denied a call. Thrown by tool wrappers whose SDK reports a tool error to the model. */
export declare class HoldpointDeniedError extends HoldpointError {
    readonly decision?: Decision;
    constructor(reason: string, decision?: Decision);
    /** The message alone: SDKs that show an error to the model use toString(). */
    toString(): string;
}
export declare function deniedText(reason: string): string;
export declare function haltedText(reason: string): string;
/** Why a call could not be asked about: the console is unreachable, the connection dropped, ... */
export declare function unavailableText(error: unknown): string;
/** The text for a `modify` that a path cannot apply. */
export declare const EDIT_NOT_APPLICABLE = "the console changed the arguments, and this integration path cannot run edited arguments; the call did not run";
/** A client, the run's halt state and the texts; each adapter builds on one. */
export declare class Guard {
    readonly client: HoldpointClient;
    /** Set once the console answered `halt`; the adapters stop the run as far as their SDK allows. */
    halted: boolean;
    haltReason: string;
    /** The turn calls are sent in, between startTurn() and endTurn(). */
    turnId?: string;
    private readonly owned;
    private readonly options;
    constructor(options: GuardOptions, capabilities: Capabilities, framework: string);
    /** Asks the console; rejects (never allows) when it cannot. */
    ask(toolName: string, args: JsonObject, extra?: SubmitOptions): Promise<Decision>;
    /** Records a halt and aborts the controller, if one was given. */
    halt(reason: string): void;
    /**
     * Starts a turn for the next run: clears an earlier halt, and sends the
     * run's calls in one console turn (a halt then halts the turn's other
     * waiting calls too, and loop detection counts per turn).
     */
    startTurn(turnId?: string): Promise<string>;
    /** Ends the turn startTurn() began. */
    endTurn(): Promise<void>;
    /** Forgets a halt, so the guard can serve another run. */
    resetHalt(): void;
    /** Closes the client if this guard created it. */
    close(): Promise<void>;
}
export declare function parseArguments(text: string | undefined): JsonObject | undefined;
export declare function isObject(value: unknown): value is JsonObject;
