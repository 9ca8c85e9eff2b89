// SPDX-License-Identifier: Apache-2.0
// The three frameworks as the adapter tests drive them: each one's note
// tools (every call that runs is pushed onto `ran`), its model (scripted or
// the framework's own fake) and, for LangChain, the loop an application
// runs to answer interrupts. Shared by fail-closed.test.mjs and
// arguments.test.mjs.

import { Agent, Runner, OpenAIProvider, tool as openaiTool } from '@openai/agents';
import { tool as aiTool } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { createAgent, humanInTheLoopMiddleware, tool as lcTool, FakeToolCallingModel, ToolMessage } from 'langchain';
import { Command, MemorySaver } from '@langchain/langgraph';
import { z } from 'zod';
import { within } from './console.mjs';

export const NAMES = ['read_note', 'write_note', 'delete_note', 'send_note', 'shutdown'];

// OpenAI Agents JS

export function openaiTools(ran, needsApproval) {
  return NAMES.map((name) => openaiTool({
    name,
    description: `${name} a note`,
    parameters: z.object({ path: z.string(), text: z.string().nullable() }),
    needsApproval,
    execute: async ({ path, text }) => {
      ran.push({ name, path, text });
      return `${name} ran on ${path}`;
    },
  }));
}

export function openaiAgent(tools) {
  return new Agent({ name: 'notes', instructions: 'Use the tools.', model: 'scripted', tools });
}

/** A Runner whose model is the ScriptedChatModel `model`. */
export function openaiRunner(model) {
  return new Runner({
    modelProvider: new OpenAIProvider({ apiKey: 'test-key', baseURL: model.baseURL, useResponses: false }),
    tracingDisabled: true,
  });
}

// Vercel AI SDK

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 1, text: 1, reasoning: 0 },
};

// MockLanguageModelV4 calling `calls` on its first turn; afterwards it
// answers "done". `seen` collects the tool results it was sent.
export function aiScriptedModel(calls) {
  const seen = [];
  let n = 0;
  const model = new MockLanguageModelV4({
    doGenerate: async ({ prompt }) => {
      const last = prompt[prompt.length - 1];
      if (last.role === 'tool' || n > 0) {
        for (const m of prompt.filter((p) => p.role === 'tool')) {
          for (const part of m.content) if (part.type === 'tool-result') seen.push(part.output);
        }
        return { content: [{ type: 'text', text: 'done' }], finishReason: { unified: 'stop', raw: 'stop' }, usage, warnings: [] };
      }
      n++;
      return {
        content: calls.map((c, i) => ({ type: 'tool-call', toolCallId: `tc-${i + 1}`, toolName: c.name, input: JSON.stringify(c.args) })),
        finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
        usage,
        warnings: [],
      };
    },
  });
  return { model, seen };
}

export function aiTools(ran) {
  return Object.fromEntries(NAMES.map((name) => [name, aiTool({
    description: `${name} a note`,
    inputSchema: z.object({ path: z.string(), text: z.string().optional() }),
    execute: async ({ path, text }) => {
      ran.push({ name, path, text });
      return `${name} ran on ${path}`;
    },
  })]));
}

// LangChain JS

let threads = 0;

/** createAgent with humanInTheLoopMiddleware on every tool; the fake model calls `calls`, then stops. */
export function langchainAgent(ran, calls) {
  const tools = NAMES.map((name) => lcTool(async ({ path, text }) => {
    ran.push({ name, path, text });
    return `${name} ran on ${path}`;
  }, { name, description: `${name} a note`, schema: z.object({ path: z.string(), text: z.string().optional() }) }));
  const model = new FakeToolCallingModel({
    toolCalls: [calls.map((c, i) => ({ id: `lc-${i + 1}`, name: c.name, args: c.args })), []],
  });
  return createAgent({
    model,
    tools,
    middleware: [humanInTheLoopMiddleware({ interruptOn: Object.fromEntries(NAMES.map((n) => [n, true])) })],
    checkpointer: new MemorySaver(),
  });
}

/**
 * Runs the agent the way an application does: each interrupt is answered
 * through the console and the run resumed with the adapter's answer. On a
 * halt it stops there, as the adapter asks, unless `resumeAfterHalt`: then
 * it resumes anyway, as an application that ignores `halted` would, so a
 * test sees what the adapter's answer itself lets run.
 */
export async function runThroughConsole(hitl, agent, onInterrupt = async () => {}, { resumeAfterHalt = false } = {}) {
  const config = { configurable: { thread_id: `t-${++threads}` } };
  let result = await within('the run', agent.invoke({ messages: [{ role: 'user', content: 'go' }] }, config));
  const rounds = [];
  while (result.__interrupt__?.length) {
    const running = hitl.decideInterrupts(result.__interrupt__);
    await onInterrupt(result.__interrupt__);
    const decided = await within('the decisions', running);
    rounds.push({ request: result.__interrupt__[0].value, decided });
    if (decided.halted && !resumeAfterHalt) return { result, rounds, halted: true, config };
    result = await within('the resumed run', agent.invoke(new Command({ resume: decided.resume }), config));
  }
  return { result, rounds, halted: rounds.some((r) => r.decided.halted), config };
}

export function toolMessages(result) {
  return result.messages.filter((m) => ToolMessage.isInstance(m)).map((m) => ({ name: m.name, content: m.content, status: m.status }));
}
