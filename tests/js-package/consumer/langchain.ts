// SPDX-License-Identifier: Apache-2.0
// LangChain JS with holdpoint/langchain: humanInTheLoopMiddleware pauses the
// agent at each of LangChain's fake model's calls (read_note, then
// delete_note, one per model turn: a rejected call in a batch makes the
// middleware drop the batch's approved ones), the console answers each
// interrupt, and the run resumes with its decision. Prints what each tool
// call came back with, as JSON.

import { Command, MemorySaver } from '@langchain/langgraph';
import { createAgent, humanInTheLoopMiddleware, tool, FakeToolCallingModel, ToolMessage } from 'langchain';
import { HoldpointHITL } from 'holdpoint/langchain';
import { z } from 'zod';

const names = ['read_note', 'delete_note'];
const tools = names.map((name) => tool(async ({ path }: { path: string }) => `${name} ran on ${path}`,
  { name, description: `${name} a note`, schema: z.object({ path: z.string() }) }));
const model = new FakeToolCallingModel({
  toolCalls: [...names.map((name, i) => [{ id: `lc-${i + 1}`, name, args: { path: 'a.txt' } }]), []],
});
const agent = createAgent({
  model, tools, checkpointer: new MemorySaver(),
  middleware: [humanInTheLoopMiddleware({ interruptOn: { read_note: true, delete_note: true } })],
});

const hitl = new HoldpointHITL({ agentName: 'consumer-langchain' });
const config = { configurable: { thread_id: 't1' } };
let result = await agent.invoke({ messages: [{ role: 'user', content: 'tidy my notes' }] }, config);
let halted = false;
while (result.__interrupt__?.length) {
  const decided = await hitl.decideInterrupts(result.__interrupt__);
  if (decided.halted) { halted = true; break; }
  result = await agent.invoke(new Command({ resume: decided.resume }), config);
}
await hitl.close();

const got: Record<string, unknown> = { halted };
for (const m of result.messages) if (ToolMessage.isInstance(m) && m.name) got[m.name] = m.content;
console.log(JSON.stringify(got));
