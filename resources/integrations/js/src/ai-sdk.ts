// SPDX-License-Identifier: Apache-2.0
// Vercel AI SDK (ai v7): the console behind `toolApproval`, or inside each
// tool's `execute`.
//
// - holdpointToolApproval(): a generic `toolApproval` function for
//   generateText/streamText/ToolLoopAgent. It answers `approved` or
//   `denied` with the console's reason, which the SDK hands to the model as
//   an `execution-denied` tool result. It cannot change a call's input, so
//   it says `capabilities: {modify: false}` in hello.
// - guardTools(): wraps each tool's `execute`; an edited call runs with the
//   edited input (checked by the tool's schema when it is a Standard Schema
//   such as zod's), a denied one throws, which the SDK reports to the model
//   as a tool error with the reason.
//
// Halt: the call is denied; `stopWhen` of either guard ends the loop after
// the current step, and an `abortController` passed in the options is
// aborted, which ends the run at once if its signal was given to the SDK.
//
// No import of `ai`: the shapes used are declared here.

import type { Decision, JsonObject } from './client.js';
import {
  EDIT_NOT_APPLICABLE,
  Guard,
  HoldpointDeniedError,
  HoldpointHaltError,
  isObject,
  unavailableText,
  type GuardOptions,
} from './guard.js';

/** ai's ToolApprovalStatus, object form. */
export type ApprovalStatus = { type: 'approved'; reason?: string } | { type: 'denied'; reason?: string };

/** The part of the toolApproval function's argument used here. */
export interface ToolApprovalInput {
  toolCall: { toolName: string; toolCallId: string; input: unknown; providerExecuted?: boolean };
}

abstract class AISDKGuard extends Guard {
  /** A StopCondition: true once the console answered `halt`. Pass as (or among) `stopWhen`. */
  readonly stopWhen = (): boolean => this.halted;
}

/** The `toolApproval` path. Use `approval.toolApproval` and `approval.stopWhen`. */
export class HoldpointToolApproval extends AISDKGuard {
  constructor(options: GuardOptions = {}) {
    super(options, { modify: false }, 'ai-sdk');
  }

  /** The generic toolApproval function (bound; pass it as is). */
  readonly toolApproval = async ({ toolCall }: ToolApprovalInput): Promise<ApprovalStatus> => {
    if (this.halted) return { type: 'denied', reason: `Halted by Holdpoint: ${this.haltReason}` };
    if (!isObject(toolCall.input)) {
      return { type: 'denied', reason: `the input of ${toolCall.toolName} is not a JSON object` };
    }
    let decision: Decision;
    try {
      decision = await this.ask(toolCall.toolName, toolCall.input, { context: { tool_call_id: toolCall.toolCallId } });
    } catch (error) {
      return { type: 'denied', reason: unavailableText(error) };
    }
    switch (decision.decision) {
      case 'allow':
        return { type: 'approved', reason: decision.reason };
      case 'modify':
        return { type: 'denied', reason: EDIT_NOT_APPLICABLE };
      case 'halt':
        this.halt(decision.reason);
        return { type: 'denied', reason: `Halted by Holdpoint: ${decision.reason}` };
      default:
        return { type: 'denied', reason: decision.reason };
    }
  };
}

/** The parts of an ai Tool used here. */
export interface ToolLike {
  execute?: (input: any, options: any) => unknown;
  inputSchema?: unknown;
}

interface StandardSchema {
  '~standard': { validate: (value: unknown) => unknown };
}

async function validateEdited(schema: unknown, value: JsonObject): Promise<{ ok: true; value: unknown } | { ok: false; message: string }> {
  const standard = (schema as Partial<StandardSchema> | undefined)?.['~standard'];
  if (!standard || typeof standard.validate !== 'function') return { ok: true, value };
  const result = (await standard.validate(value)) as { value?: unknown; issues?: { message: string }[] };
  if (result.issues) return { ok: false, message: result.issues.map((i) => i.message).join('; ') };
  return { ok: true, value: result.value };
}

/** The tool-wrapper path; edited input is supported. */
export class HoldpointToolGuard extends AISDKGuard {
  constructor(options: GuardOptions = {}) {
    super(options, {}, 'ai-sdk');
  }

  /** Wraps one tool's execute; `name` is its key in the tool set. */
  tool<T extends ToolLike>(name: string, tool: T): T {
    const execute = tool.execute;
    if (!execute) return tool; // no execute: the SDK never runs it here
    const guarded = async (input: unknown, options: { toolCallId?: string; abortSignal?: AbortSignal }) => {
      if (this.halted) throw new HoldpointHaltError(this.haltReason);
      if (!isObject(input)) throw new HoldpointDeniedError(`the input of ${name} is not a JSON object`);
      let decision: Decision;
      try {
        decision = await this.ask(name, input, { signal: options?.abortSignal, context: { tool_call_id: options?.toolCallId ?? '' } });
      } catch (error) {
        if (options?.abortSignal?.aborted) throw error;
        throw new HoldpointDeniedError(unavailableText(error).replace(/^Denied by Holdpoint: /, ''));
      }
      if (decision.decision === 'halt') {
        this.halt(decision.reason);
        throw new HoldpointHaltError(decision.reason, decision);
      }
      if (!decision.allowed) throw new HoldpointDeniedError(decision.reason, decision);
      let runWith: unknown = decision.args;
      if (decision.decision === 'modify') {
        const checked = await validateEdited(tool.inputSchema, decision.args as JsonObject);
        if (!checked.ok) throw new HoldpointDeniedError(`the edited arguments do not fit the tool's schema: ${checked.message}`, decision);
        runWith = checked.value;
      }
      return execute.call(tool, runWith, options);
    };
    return { ...tool, execute: guarded };
  }

  /** Wraps every tool of a tool set. */
  tools<S extends Record<string, ToolLike>>(tools: S): S {
    const out: Record<string, ToolLike> = {};
    for (const [name, t] of Object.entries(tools)) out[name] = this.tool(name, t);
    return out as S;
  }
}

/** A toolApproval guard: `{toolApproval, stopWhen}` plus the client. */
export function holdpointToolApproval(options: GuardOptions = {}): HoldpointToolApproval {
  return new HoldpointToolApproval(options);
}

/** Wraps a tool set; returns the wrapped tools and their guard (for `stopWhen` and `close`). */
export function guardTools<S extends Record<string, ToolLike>>(tools: S, options: GuardOptions = {}): { tools: S; guard: HoldpointToolGuard } {
  const guard = new HoldpointToolGuard(options);
  return { tools: guard.tools(tools), guard };
}
