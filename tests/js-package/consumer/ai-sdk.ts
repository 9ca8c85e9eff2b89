// SPDX-License-Identifier: Apache-2.0
// The Vercel AI SDK with holdpoint/ai-sdk's toolApproval: the SDK's mock
// model calls read_note and delete_note, the console decides each, and the
// model's next turn sees the outcome. Prints what each tool call came back
// with, as JSON.

import { generateText, stepCountIs, tool } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { holdpointToolApproval } from 'holdpoint/ai-sdk';
import { z } from 'zod';

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 1, text: 1, reasoning: 0 },
};
const got: Record<string, unknown> = {};
const model = new MockLanguageModelV4({
  doGenerate: async ({ prompt }) => {
    const results = prompt.flatMap((m) => (m.role === 'tool' ? m.content : []));
    if (results.length > 0) {
      for (const part of results) if (part.type === 'tool-result') got[part.toolName] = part.output;
      return { content: [{ type: 'text', text: 'done' }], finishReason: { unified: 'stop', raw: 'stop' }, usage, warnings: [] };
    }
    return {
      content: ['read_note', 'delete_note'].map((name, i) => ({ type: 'tool-call' as const, toolCallId: `tc-${i + 1}`, toolName: name, input: JSON.stringify({ path: 'a.txt' }) })),
      finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
      usage,
      warnings: [],
    };
  },
});
const tools = Object.fromEntries(['read_note', 'delete_note'].map((name) => [name, tool({
  description: `${name} a note`,
  inputSchema: z.object({ path: z.string() }),
  execute: async ({ path }) => `${name} ran on ${path}`,
})]));

const approval = holdpointToolApproval({ agentName: 'consumer-ai-sdk' });
const result = await generateText({
  model, tools, prompt: 'tidy my notes',
  toolApproval: approval.toolApproval,
  stopWhen: [stepCountIs(5), approval.stopWhen],
});
await approval.close();
console.log(JSON.stringify({ ...got, text: result.text }));
