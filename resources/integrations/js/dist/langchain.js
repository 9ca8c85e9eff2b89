// SPDX-License-Identifier: Apache-2.0
// LangChain JS (langchain v1, humanInTheLoopMiddleware): the console answers
// the middleware's interrupt.
//
// The middleware pauses the graph with one interrupt per model turn whose
// value is `{actionRequests: [{name, args, description?}], reviewConfigs:
// [{actionName, allowedDecisions}]}`, and expects `{decisions: [...]}` back
// in the same order, by `new Command({resume: ...})`. Each action becomes one
// console call: allow -> `approve`, modify -> `edit` with `editedAction`
// (when the tool's allowedDecisions has "edit"; else `reject`), deny ->
// `reject` with the reason as the message.
//
// Halt: every call of the batch is rejected and `halted` is set; do not
// resume, and the run stays stopped at the interrupt.
//
// No import of langchain: the shapes used are declared here.
import { EDIT_NOT_APPLICABLE, Guard, deniedText, haltedText, isObject, unavailableText } from './guard.js';
function isHITLRequest(value) {
    return isObject(value) && Array.isArray(value.actionRequests);
}
/** Answers humanInTheLoopMiddleware's interrupts through the console. */
export class HoldpointHITL extends Guard {
    constructor(options = {}) {
        super(options, {}, 'langchain');
    }
    /** Decides one HITL request; `response.decisions` is in the order of `actionRequests`. */
    async decide(request) {
        if (!isHITLRequest(request))
            throw new TypeError('expected a HITL request with actionRequests');
        const allowedFor = (name, index) => {
            const configs = request.reviewConfigs ?? [];
            const config = configs[index]?.actionName === name ? configs[index] : configs.find((c) => c.actionName === name);
            return config?.allowedDecisions ?? ['approve', 'edit', 'reject'];
        };
        const decisions = [];
        const answers = [];
        for (const [index, action] of request.actionRequests.entries()) {
            if (this.halted) {
                decisions.push(undefined);
                answers.push({ type: 'reject', message: haltedText(this.haltReason) });
                continue;
            }
            if (!isObject(action.args)) {
                decisions.push(undefined);
                answers.push({ type: 'reject', message: deniedText(`the arguments of ${action.name} are not a JSON object`) });
                continue;
            }
            let decision;
            try {
                decision = await this.ask(action.name, action.args, action.description ? { context: { description: action.description } } : {});
            }
            catch (error) {
                decisions.push(undefined);
                answers.push({ type: 'reject', message: unavailableText(error) });
                continue;
            }
            decisions.push(decision);
            const allowed = allowedFor(action.name, index);
            if (decision.decision === 'allow' && allowed.includes('approve')) {
                answers.push({ type: 'approve' });
            }
            else if (decision.decision === 'modify' && allowed.includes('edit')) {
                answers.push({ type: 'edit', editedAction: { name: action.name, args: decision.args } });
            }
            else if (decision.decision === 'halt') {
                this.halt(decision.reason);
                answers.push({ type: 'reject', message: haltedText(decision.reason) });
            }
            else if (decision.decision === 'modify') {
                answers.push({ type: 'reject', message: deniedText(EDIT_NOT_APPLICABLE) });
            }
            else if (decision.allowed) {
                answers.push({ type: 'reject', message: deniedText(`the console allowed ${action.name}, but this tool does not take "approve"`) });
            }
            else {
                answers.push({ type: 'reject', message: deniedText(decision.reason) });
            }
        }
        if (this.halted) {
            // A halt stops the whole turn: no call of this batch runs.
            for (let i = 0; i < answers.length; i++) {
                if (answers[i].type !== 'reject')
                    answers[i] = { type: 'reject', message: haltedText(this.haltReason) };
            }
        }
        return { response: { decisions: answers }, decisions, halted: this.halted, haltReason: this.haltReason };
    }
    /**
     * Decides every HITL interrupt of `result.__interrupt__`. With one
     * interrupt, `resume` is its response; with several, a map from interrupt
     * id to response, as Command({resume}) takes them.
     */
    async decideInterrupts(interrupts) {
        const hitl = interrupts.filter((i) => isHITLRequest(i.value));
        if (hitl.length !== interrupts.length)
            throw new TypeError('an interrupt is not a humanInTheLoopMiddleware request');
        const responses = [];
        for (const i of hitl)
            responses.push((await this.decide(i.value)).response);
        const resume = hitl.length === 1 ? responses[0]
            : Object.fromEntries(hitl.map((i, n) => [i.id ?? String(n), responses[n]]));
        return { resume, halted: this.halted, haltReason: this.haltReason };
    }
}
