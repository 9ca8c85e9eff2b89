import type { Decision } from './client.js';
import { Guard, type GuardOptions } from './guard.js';
export interface ActionRequest {
    name: string;
    args: Record<string, any>;
    description?: string;
}
export interface ReviewConfig {
    actionName: string;
    allowedDecisions: string[];
}
export interface HITLRequest {
    actionRequests: ActionRequest[];
    reviewConfigs?: ReviewConfig[];
}
export type HITLDecision = {
    type: 'approve';
} | {
    type: 'edit';
    editedAction: {
        name: string;
        args: Record<string, any>;
    };
} | {
    type: 'reject';
    message?: string;
};
export interface HITLResponse {
    decisions: HITLDecision[];
}
export interface HoldpointHITLResult {
    /** Resume with `new Command({resume: response})` unless `halted`. */
    response: HITLResponse;
    /** One console decision per action (undefined where the console could not be asked). */
    decisions: (Decision | undefined)[];
    halted: boolean;
    haltReason: string;
}
/** An interrupt as in `result.__interrupt__`. */
export interface InterruptLike {
    id?: string;
    value?: unknown;
}
/** Answers humanInTheLoopMiddleware's interrupts through the console. */
export declare class HoldpointHITL extends Guard {
    constructor(options?: GuardOptions);
    /** Decides one HITL request; `response.decisions` is in the order of `actionRequests`. */
    decide(request: HITLRequest): Promise<HoldpointHITLResult>;
    /**
     * Decides every HITL interrupt of `result.__interrupt__`. With one
     * interrupt, `resume` is its response; with several, a map from interrupt
     * id to response, as Command({resume}) takes them.
     */
    decideInterrupts(interrupts: InterruptLike[]): Promise<{
        resume: unknown;
        halted: boolean;
        haltReason: string;
    }>;
}
