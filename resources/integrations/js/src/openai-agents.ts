// SPDX-License-Identifier: Apache-2.0
// OpenAI Agents JS (@openai/agents): two ways to put the console in front
// of function tools.
//
// - HoldpointApprovals: tools declare `needsApproval: true`; the run pauses
//   with `result.interruptions`, and each is approved (`state.approve`) or
//   rejected with the console's reason (`state.reject(item, {message})`).
//   The SDK cannot run an approved call with other arguments, so this path
//   says `capabilities: {modify: false}` in hello.
// - guardTool(): wraps a FunctionTool's `invoke`; the console is asked
//   before the tool's own parsing and `execute`, and an edited call runs
//   with the edited arguments, validated by the tool's own schema.
//
// No import of @openai/agents: the shapes used are declared here.

import type { Decision, JsonObject } from './client.js';
import {
  EDIT_NOT_APPLICABLE,
  Guard,
  HoldpointHaltError,
  deniedText,
  haltedText,
  parseArguments,
  unavailableText,
  type GuardOptions,
} from './guard.js';

/** The parts of a RunToolApprovalItem used here. */
export interface ApprovalItemLike {
  readonly name?: string;
  readonly arguments?: string;
  rawItem: { callId?: string; type?: string };
}

/** The parts of a RunState used here. */
export interface RunStateLike<Item> {
  approve(item: Item, options?: { alwaysApprove?: boolean }): void;
  reject(item: Item, options?: { alwaysReject?: boolean; message?: string }): void;
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
export class HoldpointApprovals extends Guard {
  constructor(options: GuardOptions = {}) {
    super(options, { modify: false }, 'openai-agents');
  }

  /**
   * Asks the console about each of `result.interruptions` and approves or
   * rejects it on `result.state`. Resume with `run(agent, result.state)`
   * unless `halted`. A `modify` is rejected (this path cannot run edited
   * arguments); an unreachable console rejects with the error as the message.
   * On `halt`, every item of the batch is rejected, those approved before it too.
   */
  async resolve<Item extends ApprovalItemLike>(result: RunResultLike<Item>): Promise<ResolvedInterruptions> {
    const items = result.interruptions ?? [];
    const decisions: (Decision | undefined)[] = [];
    for (const item of items) {
      const name = item.name ?? 'unknown_tool';
      const args = parseArguments(item.arguments);
      if (this.halted) {
        result.state.reject(item, { message: haltedText(this.haltReason) });
        decisions.push(undefined);
        continue;
      }
      if (!args) {
        result.state.reject(item, { message: deniedText(`the arguments of ${name} are not a JSON object`) });
        decisions.push(undefined);
        continue;
      }
      let decision: Decision;
      try {
        decision = await this.ask(name, args, { context: { tool_call_id: item.rawItem.callId ?? '' } });
      } catch (error) {
        result.state.reject(item, { message: unavailableText(error) });
        decisions.push(undefined);
        continue;
      }
      decisions.push(decision);
      if (decision.decision === 'allow') {
        result.state.approve(item);
      } else if (decision.decision === 'modify') {
        result.state.reject(item, { message: deniedText(EDIT_NOT_APPLICABLE) });
      } else if (decision.decision === 'halt') {
        this.halt(decision.reason);
        result.state.reject(item, { message: haltedText(decision.reason) });
      } else {
        result.state.reject(item, { message: deniedText(decision.reason) });
      }
    }
    if (this.halted) {
      // A halt stops the whole turn: a call of this batch approved before it
      // is rejected too, so the state runs nothing even if it is resumed.
      decisions.forEach((decision, i) => {
        if (decision?.allowed) result.state.reject(items[i], { message: haltedText(this.haltReason) });
      });
    }
    return { decisions, halted: this.halted, haltReason: this.haltReason };
  }

  /**
   * Runs until no interruptions are left, resolving each batch through the
   * console: `run` is called with the input first, then with the paused
   * state (e.g. `(input) => run(agent, input)`). Stops without resuming on
   * `halt`. The run is one console turn (startTurn/endTurn).
   */
  async run<Item extends ApprovalItemLike, Result extends RunResultLike<Item>>(
    run: (input: unknown) => Promise<Result>, input: unknown, maxResumes = 100,
  ): Promise<{ result: Result; halted: boolean; haltReason: string }> {
    await this.startTurn();
    try {
      let result = await run(input);
      for (let i = 0; (result.interruptions?.length ?? 0) > 0; i++) {
        if (i >= maxResumes) throw new Error(`still interrupted after ${maxResumes} resumes`);
        const resolved = await this.resolve(result);
        if (resolved.halted) return { result, halted: true, haltReason: resolved.haltReason };
        result = await run(result.state);
      }
      return { result, halted: false, haltReason: '' };
    } finally {
      await this.endTurn().catch(() => {});
    }
  }
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
export function guardTool<T extends FunctionToolLike>(tool: T, guard: HoldpointToolGuard | GuardOptions = {}): T {
  const holdpoint = guard instanceof HoldpointToolGuard ? guard : new HoldpointToolGuard(guard);
  const invoke = tool.invoke;
  const wrapped = async (runContext: unknown, input: string, details?: { toolCall?: { callId?: string }; signal?: AbortSignal }) => {
    const args = parseArguments(input);
    if (!args) return deniedText(`the arguments of ${tool.name} are not a JSON object`);
    if (holdpoint.halted) throw new HoldpointHaltError(holdpoint.haltReason);
    let decision: Decision;
    try {
      decision = await holdpoint.ask(tool.name, args, {
        signal: details?.signal,
        context: { tool_call_id: details?.toolCall?.callId ?? '' },
      });
    } catch (error) {
      if (details?.signal?.aborted) throw error;
      return unavailableText(error);
    }
    if (decision.decision === 'halt') {
      holdpoint.halt(decision.reason);
      throw new HoldpointHaltError(decision.reason, decision);
    }
    if (!decision.allowed) return deniedText(decision.reason);
    return invoke.call(tool, runContext, JSON.stringify(decision.args as JsonObject), details);
  };
  return { ...tool, invoke: wrapped };
}

/** The console client and halt state shared by guarded tools; edited arguments are supported. */
export class HoldpointToolGuard extends Guard {
  constructor(options: GuardOptions = {}) {
    super(options, {}, 'openai-agents');
  }

  /** guardTool() for each tool, all sharing this guard. */
  tools<T extends FunctionToolLike>(tools: T[]): T[] {
    return tools.map((t) => guardTool(t, this));
  }
}
