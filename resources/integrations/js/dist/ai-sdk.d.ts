import { Guard, type GuardOptions } from './guard.js';
/** ai's ToolApprovalStatus, object form. */
export type ApprovalStatus = {
    type: 'approved';
    reason?: string;
} | {
    type: 'denied';
    reason?: string;
};
/** The part of the toolApproval function's argument used here. */
export interface ToolApprovalInput {
    toolCall: {
        toolName: string;
        toolCallId: string;
        input: unknown;
        providerExecuted?: boolean;
    };
}
declare abstract class AISDKGuard extends Guard {
    /** A StopCondition: true once the console answered `halt`. Pass as (or among) `stopWhen`. */
    readonly stopWhen: () => boolean;
}
/** The `toolApproval` path. Use `approval.toolApproval` and `approval.stopWhen`. */
export declare class HoldpointToolApproval extends AISDKGuard {
    constructor(options?: GuardOptions);
    /** The generic toolApproval function (bound; pass it as is). */
    readonly toolApproval: ({ toolCall }: ToolApprovalInput) => Promise<ApprovalStatus>;
}
/** The parts of an ai Tool used here. */
export interface ToolLike {
    execute?: (input: any, options: any) => unknown;
    inputSchema?: unknown;
}
/** The tool-wrapper path; edited input is supported. */
export declare class HoldpointToolGuard extends AISDKGuard {
    constructor(options?: GuardOptions);
    /** Wraps one tool's execute; `name` is its key in the tool set. */
    tool<T extends ToolLike>(name: string, tool: T): T;
    /** Wraps every tool of a tool set. */
    tools<S extends Record<string, ToolLike>>(tools: S): S;
}
/** A toolApproval guard: `{toolApproval, stopWhen}` plus the client. */
export declare function holdpointToolApproval(options?: GuardOptions): HoldpointToolApproval;
/** Wraps a tool set; returns the wrapped tools and their guard (for `stopWhen` and `close`). */
export declare function guardTools<S extends Record<string, ToolLike>>(tools: S, options?: GuardOptions): {
    tools: S;
    guard: HoldpointToolGuard;
};
export {};
