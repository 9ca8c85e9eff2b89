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
import { EDIT_NOT_APPLICABLE, Guard, HoldpointDeniedError, HoldpointHaltError, isObject, unavailableText, } from './guard.js';
class AISDKGuard extends Guard {
    /** A StopCondition: true once the console answered `halt`. Pass as (or among) `stopWhen`. */
    stopWhen = () => this.halted;
}
/** The `toolApproval` path. Use `approval.toolApproval` and `approval.stopWhen`. */
export class HoldpointToolApproval extends AISDKGuard {
    constructor(options = {}) {
        super(options, { modify: false }, 'ai-sdk');
    }
    /** The generic toolApproval function (bound; pass it as is). */
    toolApproval = async ({ toolCall }) => {
        if (this.halted)
            return { type: 'denied', reason: `Halted by Holdpoint: ${this.haltReason}` };
        if (!isObject(toolCall.input)) {
            return { type: 'denied', reason: `the input of ${toolCall.toolName} is not a JSON object` };
        }
        let decision;
        try {
            decision = await this.ask(toolCall.toolName, toolCall.input, { context: { tool_call_id: toolCall.toolCallId } });
        }
        catch (error) {
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
async function validateEdited(schema, value) {
    const standard = schema?.['~standard'];
    if (!standard || typeof standard.validate !== 'function')
        return { ok: true, value };
    const result = (await standard.validate(value));
    if (result.issues)
        return { ok: false, message: result.issues.map((i) => i.message).join('; ') };
    return { ok: true, value: result.value };
}
/** The tool-wrapper path; edited input is supported. */
export class HoldpointToolGuard extends AISDKGuard {
    constructor(options = {}) {
        super(options, {}, 'ai-sdk');
    }
    /** Wraps one tool's execute; `name` is its key in the tool set. */
    tool(name, tool) {
        const execute = tool.execute;
        if (!execute)
            return tool; // no execute: the SDK never runs it here
        const guarded = async (input, options) => {
            if (this.halted)
                throw new HoldpointHaltError(this.haltReason);
            if (!isObject(input))
                throw new HoldpointDeniedError(`the input of ${name} is not a JSON object`);
            let decision;
            try {
                decision = await this.ask(name, input, { signal: options?.abortSignal, context: { tool_call_id: options?.toolCallId ?? '' } });
            }
            catch (error) {
                if (options?.abortSignal?.aborted)
                    throw error;
                throw new HoldpointDeniedError(unavailableText(error).replace(/^Denied by Holdpoint: /, ''));
            }
            if (decision.decision === 'halt') {
                this.halt(decision.reason);
                throw new HoldpointHaltError(decision.reason, decision);
            }
            if (!decision.allowed)
                throw new HoldpointDeniedError(decision.reason, decision);
            let runWith = decision.args;
            if (decision.decision === 'modify') {
                const checked = await validateEdited(tool.inputSchema, decision.args);
                if (!checked.ok)
                    throw new HoldpointDeniedError(`the edited arguments do not fit the tool's schema: ${checked.message}`, decision);
                runWith = checked.value;
            }
            return execute.call(tool, runWith, options);
        };
        return { ...tool, execute: guarded };
    }
    /** Wraps every tool of a tool set. */
    tools(tools) {
        const out = {};
        for (const [name, t] of Object.entries(tools))
            out[name] = this.tool(name, t);
        return out;
    }
}
/** A toolApproval guard: `{toolApproval, stopWhen}` plus the client. */
export function holdpointToolApproval(options = {}) {
    return new HoldpointToolApproval(options);
}
/** Wraps a tool set; returns the wrapped tools and their guard (for `stopWhen` and `close`). */
export function guardTools(tools, options = {}) {
    const guard = new HoldpointToolGuard(options);
    return { tools: guard.tools(tools), guard };
}
