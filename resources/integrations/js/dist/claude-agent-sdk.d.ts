import { Guard, type GuardOptions } from './guard.js';
/** What canUseTool returns (the SDK's PermissionResult, the fields used here). */
export type ClaudePermissionResult = {
    behavior: 'allow';
    updatedInput: Record<string, unknown>;
} | {
    behavior: 'deny';
    message: string;
    interrupt?: boolean;
};
/** canUseTool's third argument (the fields used here). */
export interface CanUseToolOptions {
    signal?: AbortSignal;
    /** The tool_use id of the call; sent as the console's call_id. */
    toolUseID?: string;
    /** Set when a sub-agent makes the call. */
    agentID?: string;
    /** Why Claude Code asks. */
    decisionReason?: string;
    blockedPath?: string;
}
/** A PreToolUse hook input (the fields used here). */
export interface PreToolUseInputLike {
    hook_event_name: string;
    session_id?: string;
    prompt_id?: string;
    cwd?: string;
    permission_mode?: string;
    agent_id?: string;
    agent_type?: string;
    tool_name?: string;
    tool_input?: unknown;
    tool_use_id?: string;
}
/** A PreToolUse hook's answer (the SDK's SyncHookJSONOutput, the fields used here). */
export interface PreToolUseOutput {
    continue?: boolean;
    stopReason?: string;
    hookSpecificOutput?: {
        hookEventName: 'PreToolUse';
        permissionDecision: 'allow' | 'deny';
        permissionDecisionReason: string;
        updatedInput?: Record<string, unknown>;
    };
}
/**
 * The console in front of a Claude Agent SDK query:
 * `query({prompt, options: {permissionMode: 'default', canUseTool: holdpoint.canUseTool}})`,
 * or `hooks: holdpoint.hooks()`. startTurn()/endTurn() around each query
 * make it one console turn (a halt then ends with it).
 */
export declare class HoldpointClaudeAgentSdk extends Guard {
    constructor(options?: GuardOptions);
    /** The SDK's `canUseTool`. Never allows unless the console said allow or modify. */
    readonly canUseTool: (toolName: string, input: Record<string, unknown>, options?: CanUseToolOptions) => Promise<ClaudePermissionResult>;
    /** A PreToolUse hook callback; other events get an empty answer. */
    readonly preToolUseHook: (input: PreToolUseInputLike, toolUseID?: string, options?: {
        signal?: AbortSignal;
    }) => Promise<PreToolUseOutput>;
    /** `hooks` for the query's options: the PreToolUse callback for every tool. */
    hooks(): {
        PreToolUse: {
            hooks: HoldpointClaudeAgentSdk['preToolUseHook'][];
        }[];
    };
}
