// SPDX-License-Identifier: Apache-2.0
// Claude Agent SDK (@anthropic-ai/claude-agent-sdk): the console decides
// Claude Code's tool calls, through either of the SDK's two places for it.
//
// - canUseTool: Claude Code asks it about each call it would otherwise
//   prompt a person for. allow -> {behavior: 'allow', updatedInput} with the
//   console's args (the edited ones after a modify); deny -> {behavior:
//   'deny', message}; halt -> the same plus `interrupt: true`, which stops
//   the query. Pass `permissionMode: 'default'`: when it is omitted, Claude
//   Code may start in 'auto' mode, where a classifier decides calls without
//   asking canUseTool (sdk.d.ts, Options.permissionMode).
// - preToolUseHook: a PreToolUse hook callback, called for every tool call
//   whatever the permission mode; answers with permissionDecision (and
//   updatedInput after a modify), and on halt also `continue: false`.
//
// No import of the SDK: the shapes used are declared here, after its
// sdk.d.ts (CanUseTool, PermissionResult, HookCallback, PreToolUseHookInput,
// SyncHookJSONOutput).

import type { Decision, JsonObject } from './client.js';
import { Guard, deniedText, haltedText, isObject, unavailableText, type GuardOptions } from './guard.js';

/** What canUseTool returns (the SDK's PermissionResult, the fields used here). */
export type ClaudePermissionResult =
  | { behavior: 'allow'; updatedInput: Record<string, unknown> }
  | { behavior: 'deny'; message: string; interrupt?: boolean };

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

function optional(fields: Record<string, unknown>): JsonObject {
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(fields)) if (value !== undefined && value !== '') out[key] = value;
  return out;
}

/**
 * The console in front of a Claude Agent SDK query:
 * `query({prompt, options: {permissionMode: 'default', canUseTool: holdpoint.canUseTool}})`,
 * or `hooks: holdpoint.hooks()`. startTurn()/endTurn() around each query
 * make it one console turn (a halt then ends with it).
 */
export class HoldpointClaudeAgentSdk extends Guard {
  constructor(options: GuardOptions = {}) {
    // Both paths can run edited arguments and stop the run on halt.
    super(options, {}, 'claude-agent-sdk');
  }

  /** The SDK's `canUseTool`. Never allows unless the console said allow or modify. */
  readonly canUseTool = async (
    toolName: string,
    input: Record<string, unknown>,
    options: CanUseToolOptions = {},
  ): Promise<ClaudePermissionResult> => {
    if (this.halted) return { behavior: 'deny', message: haltedText(this.haltReason), interrupt: true };
    let decision: Decision;
    try {
      decision = await this.ask(toolName, input as JsonObject, {
        callId: options.toolUseID,
        signal: options.signal,
        context: optional({
          agent_id: options.agentID,
          permission_reason: options.decisionReason,
          blocked_path: options.blockedPath,
        }),
      });
    } catch (error) {
      return { behavior: 'deny', message: unavailableText(error) };
    }
    if (decision.allowed && decision.args) return { behavior: 'allow', updatedInput: decision.args };
    if (decision.decision === 'halt') {
      this.halt(decision.reason);
      return { behavior: 'deny', message: haltedText(decision.reason), interrupt: true };
    }
    return { behavior: 'deny', message: deniedText(decision.reason) };
  };

  /** A PreToolUse hook callback; other events get an empty answer. */
  readonly preToolUseHook = async (
    input: PreToolUseInputLike,
    toolUseID?: string,
    options: { signal?: AbortSignal } = {},
  ): Promise<PreToolUseOutput> => {
    if (input.hook_event_name !== 'PreToolUse') return {};
    const deny = (reason: string): PreToolUseOutput => ({
      hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: reason },
    });
    const halt = (reason: string): PreToolUseOutput => ({ ...deny(haltedText(reason)), continue: false, stopReason: haltedText(reason) });
    if (this.halted) return halt(this.haltReason);
    const toolName = input.tool_name ?? 'unknown_tool';
    if (!isObject(input.tool_input)) return deny(deniedText(`the input of ${toolName} is not a JSON object`));
    let decision: Decision;
    try {
      decision = await this.ask(toolName, input.tool_input, {
        callId: input.tool_use_id ?? toolUseID,
        signal: options.signal,
        // Claude Code's prompt_id is the turn when no console turn was started.
        turnId: this.turnId ?? input.prompt_id,
        context: optional({
          cwd: input.cwd,
          permission_mode: input.permission_mode,
          agent_id: input.agent_id,
          agent_type: input.agent_type,
        }),
      });
    } catch (error) {
      return deny(unavailableText(error));
    }
    if (decision.allowed && decision.args) {
      const specific: NonNullable<PreToolUseOutput['hookSpecificOutput']> = {
        hookEventName: 'PreToolUse',
        permissionDecision: 'allow',
        permissionDecisionReason: decision.reason,
      };
      // Claude Code replaces the whole input with updatedInput.
      if (decision.decision === 'modify') specific.updatedInput = decision.args;
      return { hookSpecificOutput: specific };
    }
    if (decision.decision === 'halt') {
      this.halt(decision.reason);
      return halt(decision.reason);
    }
    return deny(deniedText(decision.reason));
  };

  /** `hooks` for the query's options: the PreToolUse callback for every tool. */
  hooks(): { PreToolUse: { hooks: HoldpointClaudeAgentSdk['preToolUseHook'][] }[] } {
    return { PreToolUse: [{ hooks: [this.preToolUseHook] }] };
  }
}
