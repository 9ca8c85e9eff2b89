import type { Decision } from './client.js';
import { Guard, type GuardOptions } from './guard.js';
/** The parts of a RunToolApprovalItem used here. */
export interface ApprovalItemLike {
    readonly name?: string;
    readonly arguments?: string;
    rawItem: {
        callId?: string;
        type?: string;
    };
}
/** The parts of a RunState used here. */
export interface RunStateLike<Item> {
    approve(item: Item, options?: {
        alwaysApprove?: boolean;
    }): void;
    reject(item: Item, options?: {
        alwaysReject?: boolean;
        message?: string;
    }): void;
}
/** The parts of a RunResult used here. */
export interface RunResultLike<Item extends ApprovalItemLike = ApprovalItemLike> {
    readonly interruptions?: Item[];
    readonly state: RunStateLike<Item>;
}
export interface ResolvedInterruptions {
    /** One decision per interruption, in order (undefined where the console could not be asked). */
    decisions: (Decision | undefined)[];
    /** The console answered `halt`: do not resume the run. */
    halted: boolean;
    haltReason: string;
}
/** The `needsApproval` path: interruptions resolved through the console. */
export declare class HoldpointApprovals extends Guard {
    constructor(options?: GuardOptions);
    /**
     * Asks the console about each of `result.interruptions` and approves or
     * rejects it on `result.state`. Resume with `run(agent, result.state)`
     * unless `halted`. A `modify` is rejected (this path cannot run edited
     * arguments); an unreachable console rejects with the error as the message.
     * On `halt`, every item of the batch is rejected, those approved before it too.
     */
    resolve<Item extends ApprovalItemLike>(result: RunResultLike<Item>): Promise<ResolvedInterruptions>;
    /**
     * Runs until no interruptions are left, resolving each batch through the
     * console: `run` is called with the input first, then with the paused
     * state (e.g. `(input) => run(agent, input)`). Stops without resuming on
     * `halt`. The run is one console turn (startTurn/endTurn).
     */
    run<Item extends ApprovalItemLike, Result extends RunResultLike<Item>>(run: (input: unknown) => Promise<Result>, input: unknown, maxResumes?: number): Promise<{
        result: Result;
        halted: boolean;
        haltReason: string;
    }>;
}
/** The parts of a FunctionTool used here. */
export interface FunctionToolLike {
    type: 'function';
    name: string;
    invoke: (runContext: any, input: string, details?: any) => Promise<unknown>;
}
/**
 * Wraps a function tool so that the console decides each call before it
 * runs: allow runs it, modify runs it with the edited arguments (checked by
 * the tool's own schema), deny returns the reason to the model, halt throws
 * HoldpointHaltError, which the SDK does not turn into tool output, so the
 * run rejects (as a ToolCallError whose `error` is the halt).
 */
export declare function guardTool<T extends FunctionToolLike>(tool: T, guard?: HoldpointToolGuard | GuardOptions): T;
/** The console client and halt state shared by guarded tools; edited arguments are supported. */
export declare class HoldpointToolGuard extends Guard {
    constructor(options?: GuardOptions);
    /** guardTool() for each tool, all sharing this guard. */
    tools<T extends FunctionToolLike>(tools: T[]): T[];
}
