// SPDX-License-Identifier: Apache-2.0
// OpenAI Agents JS with holdpoint/openai-agents' approvals: a model of our
// own calls read_note and delete_note (both need approval), the console
// decides each, and the run goes on with what it decided. Prints what each
// tool call came back with, as JSON.

import { Agent, Runner, Usage, tool, type Model, type ModelRequest, type ModelResponse, type StreamEvent } from '@openai/agents';
import { HoldpointApprovals } from 'holdpoint/openai-agents';
import { z } from 'zod';

// Calls both tools on its first turn; afterwards answers "done".
class TwoCallsModel implements Model {
  async getResponse(request: ModelRequest): Promise<ModelResponse> {
    const answered = Array.isArray(request.input) && request.input.some((item) => item.type === 'function_call_result');
    if (answered) {
      return { usage: new Usage(), output: [{ type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'done' }] }] };
    }
    return {
      usage: new Usage(),
      output: ['read_note', 'delete_note'].map((name, i) => ({
        type: 'function_call' as const, callId: `call-${i + 1}`, name, arguments: JSON.stringify({ path: 'a.txt' }), status: 'completed' as const,
      })),
    };
  }

  getStreamedResponse(): AsyncIterable<StreamEvent> {
    throw new Error('not streamed');
  }
}

const tools = ['read_note', 'delete_note'].map((name) => tool({
  name,
  description: `${name} a note`,
  parameters: z.object({ path: z.string() }),
  needsApproval: true,
  execute: async ({ path }) => `${name} ran on ${path}`,
}));
const agent = new Agent({ name: 'notes', instructions: 'Use the tools.', model: new TwoCallsModel(), tools });
const runner = new Runner({ tracingDisabled: true });

const approvals = new HoldpointApprovals({ agentName: 'consumer-openai-agents' });
const { result, halted } = await approvals.run((input) => runner.run(agent, input as string), 'tidy my notes');
await approvals.close();

const got: Record<string, unknown> = { halted, finalOutput: result.finalOutput };
for (const item of result.newItems) {
  if (item.type === 'tool_call_output_item' && item.rawItem.type === 'function_call_result') got[item.rawItem.name] = item.output;
}
console.log(JSON.stringify(got));
